//! Generalisation hierarchies as data: ARX's hierarchy CSV format, and hierarchies generated for
//! numbers (interval bands) and strings (masking from the right).
//!
//! # The CSV format (ARX's)
//! One row per original value; the first field is the value as it appears in the data, each
//! further field the value's label one level up, so every row has the same number of fields
//! (levels 0 … h). No header. The delimiter is given (ARX's examples use `;`).
//! ```text
//! 34;30-34;30-39;*
//! 35;35-39;30-39;*
//! ```
//! A row whose first field is empty stands for a blank (missing) cell of the column.
//!
//! # Checks
//! Every row has the same number of levels; a value is listed once; every label has one parent
//! at each level up (`30-34` cannot lie under `30-39` on one line and `20-39` on another); and,
//! when the data are known, every value of the column is listed. Each error names the file, the
//! line and the value.
//!
//! # Generated hierarchies
//! - **Intervals** for a numeric column: `{ interval = [5, 10, 20] }` makes level 1 bands of
//!   width 5 (`[20, 25)`), level 2 bands of width 10, level 3 of 20, and a last level `*`. Each
//!   width is a whole multiple of the one before (so bands nest); bands start at `origin`
//!   (default 0).
//! - **Masking** for a text column: `{ mask = true }` masks one more character from the right
//!   at each level (`12345` → `1234*` → `123**` …) until every character is masked, and ends
//!   with `*`.
//!
//! A generated hierarchy is materialised on the column's observed values (one row per distinct
//! value), exactly as if it had been exported to a CSV file and loaded: ARX's quality models then
//! read the same hierarchy in both tools.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use intruder_table::format_float;

/// Where a hierarchy comes from, as given in the parameters.
#[derive(Debug, Clone, PartialEq)]
pub enum HierarchySpec {
    /// A hierarchy CSV file, read when the parameters are read.
    File(Hierarchy),
    /// Interval bands of the given widths (one per level), starting at `origin`.
    Interval {
        /// Band width per level, each a whole multiple of the one before.
        widths: Vec<f64>,
        /// Where the bands start.
        origin: f64,
    },
    /// Characters masked from the right, one more per level.
    Mask {
        /// The masking character.
        with: char,
    },
}

/// A generalisation hierarchy of one column: `rows[i][0]` is an original value, `rows[i][l]` its
/// label at level `l`.
#[derive(Debug, Clone, PartialEq)]
pub struct Hierarchy {
    /// The column it generalises.
    pub column: String,
    /// Where it comes from: the file, or a description of the generated hierarchy.
    pub source: String,
    /// One row per original value.
    pub rows: Vec<Vec<String>>,
    /// The 1-based line of each row in its file (0 for generated rows).
    pub lines: Vec<usize>,
}

/// A problem with a hierarchy: the file (or generator), the line when there is one, what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HierarchyError {
    /// The file or generator.
    pub source: String,
    /// The 1-based line, when the problem is on one.
    pub line: Option<usize>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for HierarchyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}: {}", self.source, self.message),
            None => write!(f, "{}: {}", self.source, self.message),
        }
    }
}

impl Hierarchy {
    /// Reads a hierarchy CSV file for `column`.
    pub fn from_file(
        column: &str,
        path: &Path,
        delimiter: u8,
    ) -> Result<Hierarchy, HierarchyError> {
        let source = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| HierarchyError {
            source: source.clone(),
            line: None,
            message: format!("cannot read the hierarchy of '{column}': {e}"),
        })?;
        Hierarchy::from_csv(column, &text, &source, delimiter)
    }

    /// Parses hierarchy CSV text; `source` names it in errors.
    pub fn from_csv(
        column: &str,
        text: &str,
        source: &str,
        delimiter: u8,
    ) -> Result<Hierarchy, HierarchyError> {
        let err = |line: Option<usize>, message: String| HierarchyError {
            source: source.to_string(),
            line,
            message,
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .delimiter(delimiter)
            .flexible(true)
            .from_reader(text.as_bytes());
        let mut rows: Vec<Vec<String>> = Vec::new();
        let mut lines = Vec::new();
        for rec in reader.records() {
            let rec = rec.map_err(|e| {
                let line = e.position().map(|p| p.line() as usize);
                err(line, format!("not valid CSV: {e}"))
            })?;
            let line = rec.position().map_or(rows.len() + 1, |p| p.line() as usize);
            let fields: Vec<String> = rec.iter().map(str::to_string).collect();
            if fields.len() == 1 && fields[0].is_empty() {
                continue;
            }
            rows.push(fields);
            lines.push(line);
        }
        if rows.is_empty() {
            return Err(err(
                None,
                format!("the hierarchy of '{column}' is empty; expected one row per value"),
            ));
        }
        let width = rows[0].len();
        for (row, &line) in rows.iter().zip(&lines) {
            if row.len() != width {
                let delim = delimiter as char;
                return Err(err(
                    Some(line),
                    format!(
                        "value '{}' has {} levels; the first row has {width} (every row lists a value and its label at each level, separated by '{delim}')",
                        row[0],
                        row.len()
                    ),
                ));
            }
        }
        let h = Hierarchy {
            column: column.to_string(),
            source: source.to_string(),
            rows,
            lines,
        };
        h.check()?;
        Ok(h)
    }

    /// The number of levels above the original values.
    pub fn height(&self) -> usize {
        self.rows[0].len() - 1
    }

    fn line(&self, i: usize) -> Option<usize> {
        (self.lines[i] > 0).then_some(self.lines[i])
    }

    fn error(&self, row: Option<usize>, message: String) -> HierarchyError {
        HierarchyError {
            source: self.source.clone(),
            line: row.and_then(|r| self.line(r)),
            message,
        }
    }

    /// Checks that values are listed once and every label has one parent per level.
    pub fn check(&self) -> Result<(), HierarchyError> {
        let mut seen: HashMap<&str, usize> = HashMap::new();
        for (i, row) in self.rows.iter().enumerate() {
            if let Some(&j) = seen.get(row[0].as_str()) {
                return Err(self.error(
                    Some(i),
                    format!(
                        "value '{}' is listed twice (also on line {}); list each value of '{}' once",
                        row[0], self.lines[j], self.column
                    ),
                ));
            }
            seen.insert(&row[0], i);
        }
        for level in 1..self.height() {
            let mut parent: HashMap<&str, usize> = HashMap::new();
            for (i, row) in self.rows.iter().enumerate() {
                match parent.get(row[level].as_str()) {
                    Some(&j) if self.rows[j][level + 1] != row[level + 1] => {
                        return Err(self.error(
                            Some(i),
                            format!(
                                "label '{}' of level {level} has two parents at level {}: '{}' here and '{}' on line {} (value '{}'); a label must lie under one label per level",
                                row[level],
                                level + 1,
                                row[level + 1],
                                self.rows[j][level + 1],
                                self.lines[j],
                                row[0]
                            ),
                        ));
                    }
                    Some(_) => {}
                    None => {
                        parent.insert(&row[level], i);
                    }
                }
            }
        }
        Ok(())
    }

    /// Interval bands of `widths` from `origin` over the distinct numeric `values` (text as the
    /// data shows them), then `*`.
    pub fn interval(
        column: &str,
        values: &[(String, f64)],
        widths: &[f64],
        origin: f64,
    ) -> Result<Hierarchy, HierarchyError> {
        let source = format!(
            "the interval hierarchy of '{column}' (widths {})",
            widths
                .iter()
                .map(|w| format_float(*w))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let err = |message: String| HierarchyError {
            source: source.clone(),
            line: None,
            message,
        };
        if widths.is_empty() {
            return Err(err("needs at least one width".into()));
        }
        for (i, w) in widths.iter().enumerate() {
            if !(w.is_finite() && *w > 0.0) {
                return Err(err(format!(
                    "width {} must be a positive number",
                    format_float(*w)
                )));
            }
            if i > 0 {
                let r = w / widths[i - 1];
                if (r - r.round()).abs() > 1e-9 || r.round() < 1.0 {
                    return Err(err(format!(
                        "width {} is not a whole multiple of {}: a band of level {} would straddle two bands of level {i}",
                        format_float(*w),
                        format_float(widths[i - 1]),
                        i + 1
                    )));
                }
            }
        }
        let mut rows = Vec::with_capacity(values.len());
        for (text, x) in values {
            let mut row = vec![text.clone()];
            for w in widths {
                let lo = origin + ((x - origin) / w).floor() * w;
                row.push(format!("[{}, {})", format_float(lo), format_float(lo + w)));
            }
            row.push("*".into());
            rows.push(row);
        }
        let lines = vec![0; rows.len()];
        let h = Hierarchy {
            column: column.to_string(),
            source,
            rows,
            lines,
        };
        h.check()?;
        Ok(h)
    }

    /// Masking from the right over the distinct text `values`: level `l` masks the last `l`
    /// characters with `with`; the last level is a single `with`.
    pub fn mask(column: &str, values: &[String], with: char) -> Result<Hierarchy, HierarchyError> {
        let longest = values.iter().map(|v| v.chars().count()).max().unwrap_or(0);
        let mut rows = Vec::with_capacity(values.len());
        for v in values {
            let chars: Vec<char> = v.chars().collect();
            let mut row = vec![v.clone()];
            for l in 1..=longest {
                let keep = chars.len().saturating_sub(l);
                let masked: String = chars[..keep]
                    .iter()
                    .copied()
                    .chain(std::iter::repeat_n(with, chars.len() - keep))
                    .collect();
                row.push(masked);
            }
            row.push(with.to_string());
            rows.push(row);
        }
        let lines = vec![0; rows.len()];
        let h = Hierarchy {
            column: column.to_string(),
            source: format!("the masking hierarchy of '{column}'"),
            rows,
            lines,
        };
        h.check()?;
        Ok(h)
    }

    /// The row of each value (`""` is the row of a blank cell).
    pub fn index(&self) -> HashMap<&str, u32> {
        self.rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r[0].as_str(), i as u32))
            .collect()
    }

    /// An error for a value of the data that the hierarchy does not list.
    pub fn missing_value(&self, value: Option<&str>, record: usize) -> HierarchyError {
        let what = match value {
            Some(v) => format!("value '{v}'"),
            None => "a blank cell".to_string(),
        };
        let fix = match value {
            Some(_) => "add a row for it".to_string(),
            None => "add a row whose first field is empty for blank cells".to_string(),
        };
        self.error(
            None,
            format!(
                "{what} of column '{}' (record {}) is not in the hierarchy; every value of the column must be listed ({fix})",
                self.column,
                record + 1
            ),
        )
    }
}

/// A hierarchy coded for the search: ids per level, the ancestor of every id at every higher
/// level, the labels, and ARX's materialised domain shares.
#[derive(Debug, Clone)]
pub struct Coded {
    /// The column.
    pub column: String,
    /// Number of levels (height + 1).
    pub levels: usize,
    /// `id[level][row]`: the id of row's label at `level` (ids number the distinct labels of
    /// one level from 0).
    pub id: Vec<Vec<u32>>,
    /// `labels[level][id]`.
    pub labels: Vec<Vec<String>>,
    /// `up[src][tgt - src][id]`: the ancestor at level `tgt` of an id of level `src`.
    pub up: Vec<Vec<Vec<u32>>>,
    /// `share[level][id]`: the share of the hierarchy's rows under the label (ARX's
    /// `DomainShareMaterialized`).
    pub share: Vec<Vec<f64>>,
    /// Rows of the hierarchy (the domain size of the loss metric).
    pub domain: usize,
}

impl Coded {
    /// Codes a checked hierarchy.
    pub fn new(h: &Hierarchy) -> Coded {
        let levels = h.height() + 1;
        let mut id = vec![Vec::with_capacity(h.rows.len()); levels];
        let mut labels: Vec<Vec<String>> = vec![Vec::new(); levels];
        let mut counts: Vec<Vec<u32>> = vec![Vec::new(); levels];
        for l in 0..levels {
            let mut index: HashMap<&str, u32> = HashMap::new();
            for row in &h.rows {
                let next = labels[l].len() as u32;
                let i = *index.entry(row[l].as_str()).or_insert(next);
                if i == next {
                    labels[l].push(row[l].clone());
                    counts[l].push(0);
                }
                counts[l][i as usize] += 1;
                id[l].push(i);
            }
        }
        let mut up = Vec::with_capacity(levels);
        for src in 0..levels {
            let mut per = Vec::with_capacity(levels - src);
            for tgt in src..levels {
                let mut m = vec![0u32; labels[src].len()];
                for r in 0..h.rows.len() {
                    m[id[src][r] as usize] = id[tgt][r];
                }
                per.push(m);
            }
            up.push(per);
        }
        let n = h.rows.len() as f64;
        let share = counts
            .iter()
            .map(|c| c.iter().map(|&x| x as f64 / n).collect())
            .collect();
        Coded {
            column: h.column.clone(),
            levels,
            id,
            labels,
            up,
            share,
            domain: h.rows.len(),
        }
    }

    /// The ancestor at level `tgt` of `code` at level `src` (`src ≤ tgt`).
    #[inline]
    pub fn lift(&self, code: u32, src: usize, tgt: usize) -> u32 {
        self.up[src][tgt - src][code as usize]
    }

    /// Number of distinct labels at `level`.
    pub fn card(&self, level: usize) -> usize {
        self.labels[level].len()
    }
}

/// A hierarchy source read from the parameters: a path (resolved against `base`) or a table.
pub fn resolve(base: Option<&Path>, path: &str) -> PathBuf {
    let p = PathBuf::from(path);
    match base {
        Some(b) if p.is_relative() => b.join(p),
        _ => p,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AGE: &str = "34;30-34;30-39;*\n35;35-39;30-39;*\n36;35-39;30-39;*\n41;40-44;40-49;*\n";

    #[test]
    fn reads_arx_csv_and_codes_levels() {
        let h = Hierarchy::from_csv("age", AGE, "age.csv", b';').unwrap();
        assert_eq!(h.height(), 3);
        let c = Coded::new(&h);
        assert_eq!(c.card(0), 4);
        assert_eq!(c.card(1), 3);
        assert_eq!(c.card(2), 2);
        assert_eq!(c.card(3), 1);
        // 35 → 35-39 → 30-39
        assert_eq!(c.labels[2][c.lift(c.id[0][1], 0, 2) as usize], "30-39");
        assert_eq!(c.labels[2][c.lift(c.id[1][3], 1, 2) as usize], "40-49");
        // shares: 35-39 covers 2 of 4 rows, 30-39 covers 3 of 4
        assert_eq!(c.share[1][c.id[1][1] as usize], 0.5);
        assert_eq!(c.share[2][c.id[2][0] as usize], 0.75);
        assert_eq!(c.share[3][0], 1.0);
    }

    #[test]
    fn errors_name_file_line_and_value() {
        let twice = "34;30-39;*\n35;30-39;*\n34;30-39;*\n";
        let e = Hierarchy::from_csv("age", twice, "h/age.csv", b';').unwrap_err();
        assert_eq!(
            e.to_string(),
            "h/age.csv:3: value '34' is listed twice (also on line 1); list each value of 'age' once"
        );
        let two_parents = "34;30-34;30-39;*\n33;30-34;20-39;*\n";
        let e = Hierarchy::from_csv("age", two_parents, "h/age.csv", b';').unwrap_err();
        assert_eq!(
            e.to_string(),
            "h/age.csv:2: label '30-34' of level 1 has two parents at level 2: '20-39' here and '30-39' on line 1 (value '33'); a label must lie under one label per level"
        );
        let ragged = "34;30-34;*\n35;*\n";
        let e = Hierarchy::from_csv("age", ragged, "h/age.csv", b';').unwrap_err();
        assert_eq!(
            e.to_string(),
            "h/age.csv:2: value '35' has 2 levels; the first row has 3 (every row lists a value and its label at each level, separated by ';')"
        );
        let e = Hierarchy::from_csv("age", "\n", "h/age.csv", b';').unwrap_err();
        assert!(e.to_string().contains("is empty"));
        let h = Hierarchy::from_csv("age", AGE, "h/age.csv", b';').unwrap();
        assert_eq!(
            h.missing_value(Some("17"), 11).to_string(),
            "h/age.csv: value '17' of column 'age' (record 12) is not in the hierarchy; every value of the column must be listed (add a row for it)"
        );
    }

    #[test]
    fn interval_bands_nest_and_end_in_star() {
        let vals = vec![("3".to_string(), 3.0), ("17".to_string(), 17.0)];
        let h = Hierarchy::interval("age", &vals, &[5.0, 10.0], 0.0).unwrap();
        assert_eq!(h.rows[0], vec!["3", "[0, 5)", "[0, 10)", "*"]);
        assert_eq!(h.rows[1], vec!["17", "[15, 20)", "[10, 20)", "*"]);
        let e = Hierarchy::interval("age", &vals, &[5.0, 12.0], 0.0).unwrap_err();
        assert!(e.to_string().contains("not a whole multiple of 5"), "{e}");
    }

    #[test]
    fn masking_from_the_right() {
        let h = Hierarchy::mask("zip", &["12345".into(), "123".into()], '*').unwrap();
        assert_eq!(
            h.rows[0],
            vec!["12345", "1234*", "123**", "12***", "1****", "*****", "*"]
        );
        assert_eq!(
            h.rows[1],
            vec!["123", "12*", "1**", "***", "***", "***", "*"]
        );
    }
}
