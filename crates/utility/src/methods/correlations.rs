//! Differences in Pearson correlations, pairwise complete (Hundepool et al. 2012, §3.6): the
//! figures `cor_max_abs_diff` and `cor_mean_abs_diff`, the table `correlations` (per pair of
//! variables). The computation is [`crate::correlations()`].

use intruder_table::params::FigureSpec;
use intruder_table::Table;
use intruder_table::params::{Entry, ParamReader, ParamSpec};
use intruder_table::report::{Figure, Report, ReportTable, Unit};
use serde_json::json;

use super::shared::{num, read_variables};
use crate::{UtilityError, UtilityMeasure, correlations};

const NAME: &str = "correlations";

/// Differences in Pearson correlations.
#[derive(Debug, Clone, PartialEq)]
pub struct CorrelationsMeasure {
    /// Numeric variables, at least two.
    pub(crate) variables: Vec<String>,
}

/// The measure's own parameters (the common ones are [`crate::UTILITY_COMMON`]).
const PARAMS: &[ParamSpec] = &[];

/// Registry entry.
pub const ENTRY: Entry<dyn UtilityMeasure> = Entry {
    name: NAME,
    summary: "differences in Pearson correlations (pairwise complete)",
    reference: "Hundepool et al. (2012) §3.6",
    params: PARAMS,
    figures: &[
        FigureSpec::new(
            "cor_max_abs_diff",
            "largest correlation difference",
            Unit::Score,
            "docs/METHODS.md §4",
        )
        .non_negative(),
        FigureSpec::new(
            "cor_mean_abs_diff",
            "mean correlation difference",
            Unit::Score,
            "docs/METHODS.md §4",
        )
        .non_negative(),
    ],
    build,
};

/// Reads and checks the measure's parameters; `None` when any is wrong.
fn build(r: &mut ParamReader) -> Option<Box<dyn UtilityMeasure>> {
    let variables = read_variables(r, NAME, true);
    if let Some(v) = &variables {
        r.check(
            "variables",
            v.len() != 1,
            "correlations need at least two variables",
        );
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(CorrelationsMeasure {
        variables: variables?,
    }))
}

impl UtilityMeasure for CorrelationsMeasure {
    fn name(&self) -> &'static str {
        NAME
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        let c = correlations(original, masked, &self.variables)?;
        let mut r = Report::new("correlations: Pearson, pairwise complete");
        r.push(Figure::new(
            "cor_max_abs_diff",
            num(c.max_abs_diff),
            Unit::Score,
            "largest |difference| of a correlation over the pairs of variables",
        ));
        r.push(Figure::new(
            "cor_mean_abs_diff",
            num(c.mean_abs_diff),
            Unit::Score,
            "mean |difference| of the correlations over the pairs of variables",
        ));
        let mut rows = Vec::new();
        for i in 0..c.variables.len() {
            for j in i + 1..c.variables.len() {
                rows.push(vec![
                    json!(format!("{}:{}", c.variables[i], c.variables[j])),
                    num(c.original[i][j]),
                    num(c.masked[i][j]),
                    num((c.masked[i][j] - c.original[i][j]).abs()),
                ]);
            }
        }
        r.tables.push(ReportTable {
            name: "correlations".into(),
            title: "Pearson correlations per pair of variables".into(),
            header: ["pair", "original", "masked", "abs_diff"]
                .map(String::from)
                .to_vec(),
            rows,
        });
        Ok(r)
    }
}
