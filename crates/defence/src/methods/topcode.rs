//! Top and bottom coding (sdcMicro `topBotCoding`; Hundepool et al. 2012, §3.4.4): values above
//! `top` become `top_value` (default `top`), values below `bottom` become `bottom_value`
//! (default `bottom`). Missing cells stay missing.

use intruder_table::Table;
use rand_chacha::ChaCha20Rng;

use crate::common::{check_columns, numeric, numeric_like};
use crate::{Defence, DefenceError, Masked};
use intruder_table::params::{ColumnNeed, Entry, ParamKind, ParamReader, ParamSpec};

const NAME: &str = "top-bottom-code";

/// Parameters of top/bottom coding.
#[derive(Debug, Clone, PartialEq)]
pub struct TopBottomCode {
    /// Numeric variables.
    pub(crate) variables: Vec<String>,
    /// Values strictly above are recoded.
    pub(crate) top: Option<f64>,
    /// Values strictly below are recoded.
    pub(crate) bottom: Option<f64>,
    /// Replacement of top-coded values.
    pub(crate) top_value: f64,
    /// Replacement of bottom-coded values.
    pub(crate) bottom_value: f64,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("variables", ParamKind::Columns, "numeric variables")
    .example(r#"["total_wealth"]"#)
        .required()
        .needs(ColumnNeed::Numeric)
        .alias(&["columns"]),
    ParamSpec::new(
        "top",
        ParamKind::Number,
        "values strictly above are replaced (give top, bottom or both)",
    )
    .example("1000000"),
    ParamSpec::new(
        "bottom",
        ParamKind::Number,
        "values strictly below are replaced",
    ),
    ParamSpec::new(
        "top_value",
        ParamKind::Number,
        "replacement for top-coded values",
    )
    .default_value("top"),
    ParamSpec::new(
        "bottom_value",
        ParamKind::Number,
        "replacement for bottom-coded values",
    )
    .default_value("bottom"),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "top and bottom coding of numeric variables",
    reference: "sdcMicro topBotCoding; Hundepool et al. (2012) §3.4.4",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let variables: Option<Vec<String>> = r.require("variables");
    let top: Option<f64> = r.get("top");
    let bottom: Option<f64> = r.get("bottom");
    let top_value: Option<f64> = r.get("top_value");
    let bottom_value: Option<f64> = r.get("bottom_value");
    if let Some(v) = &variables {
        r.check(
            "variables",
            !v.is_empty(),
            "must name at least one variable",
        );
    }
    if !r.has("top") && !r.has("bottom") {
        r.table_problem("give 'top', 'bottom' or both");
    }
    if let (Some(t), Some(b)) = (top, bottom) {
        r.check("top", t >= b, format!("{t} is below bottom {b}"));
    }
    if r.has("top_value") && !r.has("top") {
        r.problem("top_value", "only applies with 'top'");
    }
    if r.has("bottom_value") && !r.has("bottom") {
        r.problem("bottom_value", "only applies with 'bottom'");
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(TopBottomCode {
        variables: variables?,
        top,
        bottom,
        top_value: top_value.or(top).unwrap_or(f64::NAN),
        bottom_value: bottom_value.or(bottom).unwrap_or(f64::NAN),
    }))
}

impl Defence for TopBottomCode {
    fn method(&self) -> &'static str {
        NAME
    }

    fn public_recoding(&self) -> bool {
        true
    }

    fn apply(&self, table: &Table, _rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_columns(table, NAME, &self.variables)?;
        let mut cols = Vec::new();
        for name in &self.variables {
            let mut v = numeric(table, NAME, name)?;
            for x in v.iter_mut().filter(|x| !x.is_nan()) {
                if self.top.is_some_and(|t| *x > t) {
                    *x = self.top_value;
                } else if self.bottom.is_some_and(|b| *x < b) {
                    *x = self.bottom_value;
                }
            }
            cols.push(numeric_like(table.column(name)?, &v));
        }
        let mut out = table.clone();
        for c in cols {
            out.replace(c)?;
        }
        Ok(Masked::same_rows(out))
    }
}
