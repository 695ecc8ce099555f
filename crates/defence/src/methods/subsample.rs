//! Subsampling (the role of sampling in disclosure risk: Skinner, Marsh, Openshaw & Wymer 1994;
//! docs/METHODS.md §1.3): a simple random sample without replacement, of a `fraction` or a `size`,
//! optionally stratified (n_h = round(fraction · N_h), at least 1 per non-empty stratum). The
//! design weight N_h / n_h is written to the `weight` column: multiplied into it when it exists
//! (a weight of a weight), added as a float column with role weight otherwise. Kept rows stay in
//! input order and are reported so the truth can be subset the same way.

use intruder_table::{Column, Role, Table};
use rand_chacha::ChaCha20Rng;

use crate::common::{check_columns, numeric, strata_ids};
use crate::{Defence, DefenceError, Masked};
use intruder_table::params::{ColumnSet, Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "subsample";

/// Parameters of subsampling.
#[derive(Debug, Clone, PartialEq)]
pub struct Subsample {
    /// Sampling fraction, 0 < f ≤ 1.
    pub(crate) fraction: Option<f64>,
    /// Sample size (without strata).
    pub(crate) size: Option<usize>,
    /// Stratum variables.
    pub(crate) strata: Vec<String>,
    /// The design-weight column to add or update.
    pub(crate) weight: String,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "fraction",
        ParamKind::Number,
        "sampling fraction (give fraction or size)",
    )
    .example("0.5")
    .within(Range::left_open(0.0, 1.0)),
    ParamSpec::new("size", ParamKind::Integer, "sample size (not with strata)")
        .within(Range::at_least(1.0)),
    ParamSpec::new(
        "strata",
        ParamKind::Columns,
        "stratum variables: the fraction is applied per stratum",
    )
    .default_value("[]"),
    ParamSpec::new(
        "weight",
        ParamKind::String,
        "design-weight column: multiplied by N_h/n_h if present, else added",
    )
    .default_value("weight"),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "simple random (stratified) subsample with design weights",
    reference: "Skinner et al. (1994); docs/METHODS.md §1.3",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let fraction: Option<f64> = r.get("fraction");
    let size: Option<usize> = r.get("size");
    let strata: Vec<String> = r.get_or("strata", Vec::new());
    let weight: String = r.get_or("weight", "weight".to_string());
    match (r.has("fraction"), r.has("size")) {
        (false, false) => r.table_problem("give 'fraction' or 'size'"),
        (true, true) => r.table_problem("give only one of 'fraction' and 'size'"),
        _ => {}
    }
    if size.is_some() {
        r.check(
            "size",
            strata.is_empty(),
            "cannot be combined with 'strata' (use 'fraction')",
        );
    }
    r.check("weight", !weight.is_empty(), "must be a column name");
    if !r.ok() {
        return None;
    }
    Some(Box::new(Subsample {
        fraction,
        size,
        strata,
        weight,
    }))
}

impl Defence for Subsample {
    fn method(&self) -> &'static str {
        NAME
    }

    /// The design weight is added when absent.
    fn adjust_columns(&self, columns: &mut ColumnSet) {
        if columns.kind(&self.weight).is_none() {
            columns.columns.push((
                self.weight.clone(),
                intruder_table::Kind::Float,
                Role::Weight,
            ));
        }
    }

    fn apply(&self, table: &Table, rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_columns(table, NAME, &self.strata)?;
        let n = table.nrows();
        // strata ids in order of first appearance
        let mut groups: Vec<Vec<usize>> = Vec::new();
        if self.strata.is_empty() {
            groups.push((0..n).collect());
        } else {
            let (ids, k) = strata_ids(table, &self.strata)?;
            groups = vec![Vec::new(); k];
            for (i, &g) in ids.iter().enumerate() {
                groups[g as usize].push(i);
            }
        }
        let mut kept = Vec::new();
        let mut design = vec![0.0; n];
        for g in &groups {
            let big_n = g.len();
            let m = match (self.size, self.fraction) {
                (Some(s), _) => {
                    if s > big_n {
                        return Err(DefenceError::Infeasible {
                            method: NAME,
                            message: format!("size {s} exceeds the {big_n} records"),
                        });
                    }
                    s
                }
                (None, Some(f)) => ((f * big_n as f64).round() as usize).clamp(1, big_n),
                (None, None) => big_n,
            };
            let mut pick: Vec<usize> = rand::seq::index::sample(rng, big_n, m)
                .into_iter()
                .map(|j| g[j])
                .collect();
            pick.sort_unstable();
            for &i in &pick {
                design[i] = big_n as f64 / m as f64;
            }
            kept.extend(pick);
        }
        kept.sort_unstable();
        let mut out = table.take(&kept);
        let w: Vec<Option<f64>> = match table.position(&self.weight) {
            Some(_) => {
                let old = numeric(table, NAME, &self.weight)?;
                kept.iter()
                    .map(|&i| (!old[i].is_nan()).then(|| old[i] * design[i]))
                    .collect()
            }
            None => kept.iter().map(|&i| Some(design[i])).collect(),
        };
        let role = table
            .column(&self.weight)
            .map(|c| c.role())
            .unwrap_or(Role::Weight);
        let col = Column::float(self.weight.as_str(), role, &w);
        if table.position(&self.weight).is_some() {
            out.replace(col)?;
        } else {
            out.push(col)?;
        }
        Ok(Masked {
            table: out,
            notes: vec![format!(
                "{} of {} records kept in {} strata",
                kept.len(),
                n,
                groups.len()
            )],
            kept_rows: Some(kept),
            details: None,
        })
    }
}
