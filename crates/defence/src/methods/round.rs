//! Rounding to a base (Hundepool et al. 2012, §3.4.5; µ-Argus rounding): x becomes
//! `base · round(x / base)`, halves rounded away from zero. Integer columns stay integer when the
//! base is a whole number.

use intruder_data::Table;
use rand_chacha::ChaCha20Rng;

use crate::common::{check_columns, numeric, numeric_like};
use crate::{Defence, DefenceError, Masked, Method, ParamKind, ParamReader, ParamSpec};

const NAME: &str = "round";

/// Parameters of rounding.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    /// Numeric columns.
    pub columns: Vec<String>,
    /// The rounding base (> 0).
    pub base: f64,
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
        name: "base",
        kind: ParamKind::Number,
        required: true,
        default: "",
        doc: "rounding base, > 0 (x becomes base·round(x/base), halves away from zero)",
    },
];

/// Registry entry.
pub const METHOD: Method = Method {
    name: NAME,
    summary: "rounding to a base",
    source: "Hundepool et al. (2012) §3.4.5; µ-Argus rounding",
    params: PARAMS,
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let columns: Option<Vec<String>> = r.require("columns");
    let base: Option<f64> = r.require("base");
    if let Some(b) = base {
        r.check("base", b > 0.0, format!("is {b}; expected a number > 0"));
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(Round {
        columns: columns?,
        base: base?,
    }))
}

impl Defence for Round {
    fn method(&self) -> &'static str {
        NAME
    }

    fn apply(&self, table: &Table, _rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_columns(table, NAME, &self.columns)?;
        let mut out = table.clone();
        for name in &self.columns {
            let mut v = numeric(table, NAME, name)?;
            for x in v.iter_mut().filter(|x| !x.is_nan()) {
                *x = (*x / self.base).round() * self.base;
            }
            out.replace(numeric_like(table.column(name)?, &v))?;
        }
        Ok(Masked::same_rows(out))
    }
}
