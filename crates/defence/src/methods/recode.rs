//! Global recoding (sdcMicro `globalRecode`; Hundepool et al. 2012, §3.4.2): numeric variables
//! are cut into intervals at given breaks, categorical variables are recoded through a category
//! map (a level of a hierarchy: e.g. `"1101" = "11"`). The result is categorical.

use std::collections::BTreeMap;

use intruder_table::{Column, Kind, Table, format_float};
use rand_chacha::ChaCha20Rng;

use crate::common::check_columns;
use crate::{Defence, DefenceError, Masked};
use intruder_table::params::{ColumnSet, Entry, ParamKind, ParamReader, ParamSpec};

const NAME: &str = "global-recode";

/// Parameters of global recoding.
#[derive(Debug, Clone, PartialEq)]
pub struct GlobalRecode {
    /// Variables recoded the same way.
    pub(crate) variables: Vec<String>,
    /// Interval breaks for numeric columns, strictly increasing (at least two).
    pub(crate) breaks: Option<Vec<f64>>,
    /// Labels of the intervals (one fewer than the breaks); default `[a,b)` style labels.
    pub(crate) labels: Option<Vec<String>>,
    /// Intervals closed on the right `(a,b]` (the first one `[a,b]`) instead of on the left
    /// `[a,b)` (the last one `[a,b]`).
    pub(crate) right: bool,
    /// Category map for categorical or text columns: old label = new label; unmapped labels
    /// are kept.
    pub(crate) map: Option<BTreeMap<String, String>>,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "variables",
        ParamKind::Columns,
        "variables to recode, all the same way",
    )
    .example(r#"["ref_age"]"#)
    .required()
    .alias(&["columns"]),
    ParamSpec::new(
        "breaks",
        ParamKind::Numbers,
        "interval breaks for numeric variables, strictly increasing, at least two; values outside [first, last] are an error (give `breaks` or `map`)",
    )
    .example("[0, 30, 45, 65, 120]"),
    ParamSpec::new(
        "labels",
        ParamKind::Strings,
        "interval labels, one fewer than the breaks, distinct",
    )
    .default_value("[a,b)"),
    ParamSpec::new(
        "right",
        ParamKind::Bool,
        "intervals closed on the right (a,b] (as R's cut) instead of [a,b)",
    )
    .default_value("false"),
    ParamSpec::new(
        "map",
        ParamKind::Map,
        "category map old = new (a hierarchy level); unmapped labels are kept",
    ),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "global recoding: numeric breaks or a category map",
    reference: "sdcMicro globalRecode; Hundepool et al. (2012) §3.4.2",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let variables: Option<Vec<String>> = r.require("variables");
    let breaks: Option<Vec<f64>> = r.get("breaks");
    let labels: Option<Vec<String>> = r.get("labels");
    let right = r.get_or("right", false);
    let map: Option<BTreeMap<String, String>> = r.get("map");
    if let Some(c) = &variables {
        r.check(
            "variables",
            !c.is_empty(),
            "must name at least one variable",
        );
    }
    match (r.has("breaks"), r.has("map")) {
        (false, false) => r.table_problem("give either 'breaks' (numeric) or 'map' (categorical)"),
        (true, true) => r.table_problem("give only one of 'breaks' and 'map'"),
        _ => {}
    }
    if let Some(b) = &breaks {
        r.check("breaks", b.len() >= 2, "needs at least two breaks");
        r.check(
            "breaks",
            b.windows(2).all(|w| w[0] < w[1]),
            "must be strictly increasing",
        );
        if let Some(l) = &labels {
            r.check(
                "labels",
                l.len() + 1 == b.len(),
                format!(
                    "has {} labels; {} breaks make {} intervals",
                    l.len(),
                    b.len(),
                    b.len().saturating_sub(1)
                ),
            );
        }
    }
    if let Some(l) = &labels {
        let mut u = l.clone();
        u.sort();
        u.dedup();
        r.check("labels", u.len() == l.len(), "labels must be distinct");
    }
    if labels.is_some() && !r.has("breaks") {
        r.problem("labels", "only applies with 'breaks'");
    }
    // With the data's columns known (a dry run, a command about to run): breaks need numeric
    // variables, and every label a map names must be one of each variable's values.
    if let (Some(vars), Some(cols)) = (&variables, r.context().columns) {
        for v in vars {
            let Some(kind) = cols.kind(v) else { continue };
            if breaks.is_some() && !kind.is_numeric() {
                r.problem(
                    "breaks",
                    format!(
                        "{}: column '{v}' is {kind}; 'breaks' need a numeric column (use 'map' for categories)",
                        cols.file
                    ),
                );
            }
            if let (Some(m), Some(levels)) = (&map, cols.levels_of(v)) {
                for k in m.keys().filter(|k| !levels.contains(k)) {
                    let shown: Vec<&str> = levels.iter().take(30).map(String::as_str).collect();
                    r.problem(
                        "map",
                        format!(
                            "{}: '{k}' is not a value of '{v}'{}; its values are: {}{}",
                            cols.file,
                            intruder_table::params::did_you_mean(
                                k,
                                levels.iter().map(String::as_str)
                            ),
                            shown.join(", "),
                            if levels.len() > 30 { ", …" } else { "" }
                        ),
                    );
                }
            }
        }
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(GlobalRecode {
        variables: variables?,
        breaks,
        labels,
        right,
        map,
    }))
}

impl GlobalRecode {
    fn interval_labels(&self, b: &[f64]) -> Vec<String> {
        if let Some(l) = &self.labels {
            return l.clone();
        }
        let m = b.len() - 1;
        (0..m)
            .map(|i| {
                let (lo, hi) = (format_float(b[i]), format_float(b[i + 1]));
                if self.right {
                    let open = if i == 0 { "[" } else { "(" };
                    format!("{open}{lo},{hi}]")
                } else {
                    let close = if i + 1 == m { "]" } else { ")" };
                    format!("[{lo},{hi}{close}")
                }
            })
            .collect()
    }

    fn cut(&self, table: &Table, name: &str, b: &[f64]) -> Result<Column, DefenceError> {
        let col = table.column(name)?;
        if !col.kind().is_numeric() {
            return Err(DefenceError::Column {
                method: NAME,
                column: name.into(),
                message: format!(
                    "is {}{}; 'breaks' need a numeric column (use 'map' for categories)",
                    col.kind(),
                    intruder_table::params::not_a_number_note(col)
                ),
            });
        }
        let labels = self.interval_labels(b);
        let m = b.len() - 1;
        let mut vals: Vec<Option<&str>> = Vec::with_capacity(col.len());
        for i in 0..col.len() {
            let Some(x) = col.as_f64(i) else {
                vals.push(None);
                continue;
            };
            if x < b[0] || x > b[m] || x.is_nan() {
                return Err(DefenceError::Column {
                    method: NAME,
                    column: name.into(),
                    message: format!(
                        "row {}: value {} lies outside the breaks [{}, {}]",
                        i + 1,
                        format_float(x),
                        format_float(b[0]),
                        format_float(b[m])
                    ),
                });
            }
            // index of the interval
            let idx = if self.right {
                // (b[j], b[j+1]], first interval closed
                b[1..].partition_point(|&e| e < x).min(m - 1)
            } else {
                b[1..].partition_point(|&e| e <= x).min(m - 1)
            };
            vals.push(Some(labels[idx].as_str()));
        }
        Ok(Column::categorical(
            name,
            col.role(),
            &vals,
            Some(labels.clone()),
        )?)
    }

    fn remap(
        &self,
        table: &Table,
        name: &str,
        map: &BTreeMap<String, String>,
    ) -> Result<Column, DefenceError> {
        let col = table.column(name)?;
        let levels = match col.kind() {
            Kind::Categorical => {
                let lv = col.levels().unwrap_or(&[]);
                if let Some(k) = map.keys().find(|k| !lv.contains(k)) {
                    return Err(DefenceError::Column {
                        method: NAME,
                        column: name.into(),
                        message: format!(
                            "the map names '{k}', which is not one of its levels ({})",
                            lv.join(", ")
                        ),
                    });
                }
                let mut out: Vec<String> = Vec::new();
                for l in lv {
                    let t = map.get(l).unwrap_or(l);
                    if !out.contains(t) {
                        out.push(t.clone());
                    }
                }
                Some(out)
            }
            Kind::Set => {
                return Err(DefenceError::Column {
                    method: NAME,
                    column: name.into(),
                    message: "is set-valued; recode a categorical, text or integer column".into(),
                });
            }
            _ => None,
        };
        let vals: Vec<Option<String>> = (0..col.len())
            .map(|i| {
                col.text(i).map(|t| {
                    map.get(t.as_ref())
                        .cloned()
                        .unwrap_or_else(|| t.into_owned())
                })
            })
            .collect();
        Ok(Column::categorical(name, col.role(), &vals, levels)?)
    }
}

impl Defence for GlobalRecode {
    fn method(&self) -> &'static str {
        NAME
    }

    fn public_recoding(&self) -> bool {
        true
    }

    fn apply(&self, table: &Table, _rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_columns(table, NAME, &self.variables)?;
        let mut out = table.clone();
        for name in &self.variables {
            let col = match (&self.breaks, &self.map) {
                (Some(b), _) => self.cut(table, name, b)?,
                (None, Some(m)) => self.remap(table, name, m)?,
                (None, None) => {
                    return Err(DefenceError::Infeasible {
                        method: NAME,
                        message: "neither breaks nor map given".into(),
                    });
                }
            };
            out.replace(col)?;
        }
        Ok(Masked::same_rows(out))
    }

    /// The recoded variables are categorical: their values are the interval labels, or the
    /// mapped labels of the values known before.
    fn adjust_columns(&self, columns: &mut ColumnSet) {
        for (name, kind, _) in &mut columns.columns {
            if self.variables.contains(name) {
                *kind = Kind::Categorical;
            }
        }
        for v in &self.variables {
            let after: Option<Vec<String>> = match (&self.breaks, &self.map) {
                (Some(b), _) if b.len() >= 2 => Some(self.interval_labels(b)),
                (_, Some(m)) => columns.levels_of(v).map(|lv| {
                    let mut out: Vec<String> = Vec::new();
                    for l in lv {
                        let t = m.get(l).unwrap_or(l);
                        if !out.contains(t) {
                            out.push(t.clone());
                        }
                    }
                    out
                }),
                _ => None,
            };
            columns.levels.retain(|(n, _)| n != v);
            if let Some(l) = after {
                columns.levels.push((v.clone(), l));
            }
        }
    }
}
