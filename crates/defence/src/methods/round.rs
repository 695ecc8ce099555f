//! Rounding to a base (Hundepool et al. 2012, §3.4.5; µ-Argus rounding): x becomes
//! `base · round(x / base)`, halves rounded away from zero. Integer columns stay integer when the
//! base is a whole number.

use intruder_table::Table;
use rand_chacha::ChaCha20Rng;

use crate::common::{check_columns, numeric, numeric_like};
use crate::{Defence, DefenceError, Masked};
use intruder_table::params::{ColumnNeed, Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "round";

/// Parameters of rounding.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    /// Numeric variables.
    pub(crate) variables: Vec<String>,
    /// The rounding base (> 0).
    pub(crate) base: f64,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("variables", ParamKind::Columns, "numeric variables")
    .example(r#"["total_wealth"]"#)
        .required()
        .needs(ColumnNeed::Numeric)
        .alias(&["columns"]),
    ParamSpec::new(
        "base",
        ParamKind::Number,
        "rounding base: x becomes base·round(x/base), halves away from zero",
    )
    .example("1000")
    .required()
    .within(Range::POSITIVE),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "rounding to a base",
    reference: "Hundepool et al. (2012) §3.4.5; µ-Argus rounding",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let variables: Option<Vec<String>> = r.require("variables");
    let base: Option<f64> = r.require("base");
    if let Some(v) = &variables {
        r.check(
            "variables",
            !v.is_empty(),
            "must name at least one variable",
        );
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(Round {
        variables: variables?,
        base: base?,
    }))
}

impl Defence for Round {
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
            let mut v = numeric(table, NAME, name)?;
            for x in v.iter_mut().filter(|x| !x.is_nan()) {
                *x = (*x / self.base).round() * self.base;
            }
            out.replace(numeric_like(table.column(name)?, &v))?;
        }
        Ok(Masked::same_rows(out))
    }
}
