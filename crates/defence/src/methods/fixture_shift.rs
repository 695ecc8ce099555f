//! Shifting by a constant (a fixture, compiled with the feature `fixture-methods` only, for the
//! test that a new method is one file and one registry line): every observed value of the
//! numeric `variables` becomes `x + by`. It hides nothing from an intruder who knows `by` — a
//! shift keeps every distance and every rank — which is what the test's attack shows.

use intruder_table::Table;
use intruder_table::params::{ColumnNeed, Entry, ParamKind, ParamReader, ParamSpec};
use rand_chacha::ChaCha20Rng;

use crate::common::{check_columns, numeric, numeric_like};
use crate::{Defence, DefenceError, Masked};

const NAME: &str = "fixture-shift";

/// Parameters of the shift.
#[derive(Debug, Clone, PartialEq)]
pub struct Shift {
    /// Numeric variables.
    pub(crate) variables: Vec<String>,
    /// What is added to every observed value.
    pub(crate) by: f64,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("variables", ParamKind::Columns, "numeric variables")
        .required()
        .needs(ColumnNeed::Numeric)
        .example(r#"["total_wealth"]"#),
    ParamSpec::new("by", ParamKind::Number, "what is added to every observed value")
        .required()
        .example("100"),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "adds a constant to numeric variables",
    reference: "a fixture: the shift that keeps every distance (Hundepool et al. 2012 §3.4 on why noise must vary)",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let variables: Option<Vec<String>> = r.require("variables");
    let by: Option<f64> = r.require("by");
    if let Some(v) = &variables {
        r.check("variables", !v.is_empty(), "must name at least one variable");
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(Shift {
        variables: variables?,
        by: by?,
    }))
}

impl Defence for Shift {
    fn method(&self) -> &'static str {
        NAME
    }

    fn apply(&self, table: &Table, _rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_columns(table, NAME, &self.variables)?;
        let mut out = table.clone();
        for name in &self.variables {
            let mut v = numeric(table, NAME, name)?;
            for x in v.iter_mut().filter(|x| !x.is_nan()) {
                *x += self.by;
            }
            out.replace(numeric_like(table.column(name)?, &v))?;
        }
        Ok(Masked::same_rows(out))
    }
}
