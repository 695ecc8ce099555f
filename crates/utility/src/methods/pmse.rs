//! The propensity-score mean squared error of a logistic model telling the files apart (Woo,
//! Reiter, Oganian & Karr 2009; Snoke et al. 2018, eq. 2): the figures `pmse` and `pmse_ratio`,
//! the table `pmse_model`. The computation is [`crate::pmse()`].

use intruder_table::params::FigureSpec;
use intruder_table::Table;
use intruder_table::params::{Entry, ParamReader, ParamSpec};
use intruder_table::report::{Figure, Report, ReportTable, Unit};
use serde_json::json;

use super::shared::{num, read_variables};
use crate::{UtilityError, UtilityMeasure, pmse};

const NAME: &str = "pmse";

/// The propensity-score mean squared error.
#[derive(Debug, Clone, PartialEq)]
pub struct PmseMeasure {
    /// Numeric or categorical variables of the propensity model.
    pub(crate) variables: Vec<String>,
}

/// The measure's own parameters (the common ones are [`crate::UTILITY_COMMON`]).
const PARAMS: &[ParamSpec] = &[];

/// Registry entry.
pub const ENTRY: Entry<dyn UtilityMeasure> = Entry {
    name: NAME,
    summary: "propensity-score mean squared error of a logistic model telling the files apart",
    reference: "Woo, Reiter, Oganian & Karr (2009); Snoke et al. (2018) eq. 2",
    params: PARAMS,
    figures: &[
        FigureSpec::new("pmse", "pMSE", Unit::Score, "Woo et al. (2009)").non_negative(),
        FigureSpec::new("pmse_ratio", "pMSE ratio", Unit::Score, "Woo et al. (2009)")
            .non_negative(),
    ],
    build,
};

/// Reads and checks the measure's parameters; `None` when any is wrong.
fn build(r: &mut ParamReader) -> Option<Box<dyn UtilityMeasure>> {
    let variables = read_variables(r, NAME, false);
    if !r.ok() {
        return None;
    }
    Some(Box::new(PmseMeasure {
        variables: variables?,
    }))
}

impl UtilityMeasure for PmseMeasure {
    fn name(&self) -> &'static str {
        NAME
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        let p = pmse(original, masked, &self.variables)?;
        let mut r = Report::new("pmse: propensity-score mean squared error");
        r.push(Figure::new(
            "pmse",
            num(p.pmse),
            Unit::Score,
            "pMSE: mean of (p̂ − c)² over the stacked records; 0 when a model cannot tell the files apart",
        ));
        r.push(Figure::new(
            "pmse_ratio",
            num(p.ratio),
            Unit::Score,
            "pMSE over its null expectation (k − 1)(1 − c)²c/N; about 1 when the masking keeps the modelled distribution",
        ));
        r.tables.push(ReportTable {
            name: "pmse_model".into(),
            title: "the propensity model (logistic, main effects, records with a missing variable dropped)"
                .into(),
            header: [
                "model",
                "parameters",
                "records",
                "dropped",
                "c",
                "null_expectation",
            ]
            .map(String::from)
            .to_vec(),
            rows: vec![vec![
                json!("propensity"),
                json!(p.parameters),
                json!(p.n),
                json!(p.dropped),
                num(p.c),
                num(p.null_expectation),
            ]],
        });
        Ok(r)
    }
}
