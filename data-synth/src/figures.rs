//! Recompute the calibrated figures from written files.
//!
//! Used by the tests, by `examples/calibrate.rs` (which produced the README tables) and by
//! anyone who wants to check a generated data set against the published values. The files
//! are read back from disk, so the figures describe exactly what was written.

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use crate::SynthError;

/// A small in-memory table read from one of our CSV files (no quoted fields).
#[derive(Debug, Clone)]
pub struct Table {
    /// Column names.
    pub header: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Read `path`.
    pub fn read(path: &Path) -> Result<Table, SynthError> {
        let text = fs::read_to_string(path).map_err(|e| SynthError::io(path, e))?;
        let mut lines = text.lines();
        let header = lines
            .next()
            .unwrap_or("")
            .split(',')
            .map(str::to_string)
            .collect();
        let rows = lines
            .map(|l| l.split(',').map(str::to_string).collect())
            .collect();
        Ok(Table { header, rows })
    }

    /// Index of column `name` (panics if absent: the generators write fixed headers).
    pub fn col(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    }

    /// The cells of column `name`.
    pub fn column(&self, name: &str) -> Vec<&str> {
        let i = self.col(name);
        self.rows.iter().map(|r| r[i].as_str()).collect()
    }

    /// Share of empty cells in column `name`.
    pub fn missing_share(&self, name: &str) -> f64 {
        let c = self.column(name);
        c.iter().filter(|v| v.is_empty()).count() as f64 / c.len().max(1) as f64
    }
}

/// One recomputed figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// What it is, in the words of [`crate::Generator::published`].
    pub name: String,
    /// The value from the generated files.
    pub value: f64,
}

fn fig(name: &str, value: f64) -> Figure {
    Figure {
        name: name.to_string(),
        value,
    }
}

/// Figures of a `survey-panel` output directory.
pub fn survey_panel(dir: &Path) -> Result<Vec<Figure>, SynthError> {
    let t = Table::read(&dir.join("survey-panel.csv"))?;
    let n = t.rows.len() as f64;
    let mob = t.column("birth_month_est");
    let count = |k: usize| {
        mob.iter()
            .filter(|v| if v.is_empty() { 0 } else { v.split('|').count() } == k)
            .count() as f64
            / n
    };
    Ok(vec![
        fig("respondents", n),
        fig("net income missing", t.missing_share("net_income")),
        fig("income category missing", t.missing_share("income_cat")),
        fig("origin missing", t.missing_share("origin")),
        fig("religion missing", t.missing_share("religion")),
        fig("urbanisation missing", t.missing_share("urbanisation")),
        fig("profession missing", t.missing_share("profession")),
        fig("month of birth: two candidates", count(2)),
        fig("month of birth: one candidate", count(1)),
        fig("month of birth: no estimate", count(0)),
    ])
}

/// Sizes of the equivalence classes of `rows` on columns `cols` (class key -> count).
pub fn class_sizes<'a>(t: &'a Table, cols: &[&str]) -> HashMap<Vec<&'a str>, usize> {
    let idx: Vec<usize> = cols.iter().map(|c| t.col(c)).collect();
    let mut m = HashMap::new();
    for r in &t.rows {
        let key: Vec<&str> = idx.iter().map(|&i| r[i].as_str()).collect();
        *m.entry(key).or_insert(0) += 1;
    }
    m
}

/// Figures of the output of generator `name` in `dir`.
pub fn compute(name: &str, dir: &Path) -> Result<Vec<Figure>, SynthError> {
    match name {
        "survey-panel" => survey_panel(dir),
        _ => Ok(Vec::new()),
    }
}
