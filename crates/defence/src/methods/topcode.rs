//! Top and bottom coding (sdcMicro `topBotCoding`; Hundepool et al. 2012, §3.4.4): values above
//! `top` become `top_value` (default `top`), values below `bottom` become `bottom_value`
//! (default `bottom`). Missing cells stay missing.

use intruder_data::Table;
use rand_chacha::ChaCha20Rng;

use crate::common::{check_columns, numeric, numeric_like};
use crate::{Defence, DefenceError, Masked, Method, ParamKind, ParamReader, ParamSpec};

const NAME: &str = "top-bottom-code";

/// Parameters of top/bottom coding.
#[derive(Debug, Clone, PartialEq)]
pub struct TopBottomCode {
    /// Numeric columns.
    pub columns: Vec<String>,
    /// Values strictly above are recoded.
    pub top: Option<f64>,
    /// Values strictly below are recoded.
    pub bottom: Option<f64>,
    /// Replacement of top-coded values.
    pub top_value: f64,
    /// Replacement of bottom-coded values.
    pub bottom_value: f64,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "columns",
        kind: ParamKind::Strings,
        required: true,
        default: "",
        doc: "numeric columns",
    },
    ParamSpec {
        name: "top",
        kind: ParamKind::Number,
        required: false,
        default: "",
        doc: "values strictly above are replaced (give top, bottom or both)",
    },
    ParamSpec {
        name: "bottom",
        kind: ParamKind::Number,
        required: false,
        default: "",
        doc: "values strictly below are replaced",
    },
    ParamSpec {
        name: "top_value",
        kind: ParamKind::Number,
        required: false,
        default: "top",
        doc: "replacement for top-coded values",
    },
    ParamSpec {
        name: "bottom_value",
        kind: ParamKind::Number,
        required: false,
        default: "bottom",
        doc: "replacement for bottom-coded values",
    },
];

/// Registry entry.
pub const METHOD: Method = Method {
    name: NAME,
    summary: "top and bottom coding of numeric variables",
    source: "sdcMicro topBotCoding; Hundepool et al. (2012) §3.4.4",
    params: PARAMS,
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let columns: Option<Vec<String>> = r.require("columns");
    let top: Option<f64> = r.get("top");
    let bottom: Option<f64> = r.get("bottom");
    let top_value: Option<f64> = r.get("top_value");
    let bottom_value: Option<f64> = r.get("bottom_value");
    if !r.has("top") && !r.has("bottom") {
        r.step_problem("give 'top', 'bottom' or both");
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
        columns: columns?,
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

    fn apply(&self, table: &Table, _rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_columns(table, NAME, &self.columns)?;
        let mut cols = Vec::new();
        for name in &self.columns {
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
