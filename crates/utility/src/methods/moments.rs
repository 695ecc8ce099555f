//! Differences in means and variances (n − 1) per variable (Hundepool et al. 2012, §3.6): the
//! figures `mean_rel_diff_max` and `var_rel_diff_max`, the table `moments` (per variable). The
//! computation is [`crate::moments()`].

use intruder_table::params::FigureSpec;
use intruder_table::Table;
use intruder_table::params::{Entry, ParamReader, ParamSpec};
use intruder_table::report::{Figure, Report, ReportTable, Unit};
use serde_json::json;

use super::shared::{num, opt, read_variables};
use crate::{UtilityError, UtilityMeasure, moments};

const NAME: &str = "moments";

/// Means and variances per variable.
#[derive(Debug, Clone, PartialEq)]
pub struct MomentsMeasure {
    /// Numeric variables.
    pub(crate) variables: Vec<String>,
}

/// The measure's own parameters (the common ones are [`crate::UTILITY_COMMON`]).
const PARAMS: &[ParamSpec] = &[];

/// Registry entry.
pub const ENTRY: Entry<dyn UtilityMeasure> = Entry {
    name: NAME,
    summary: "differences in means and variances (n − 1) per variable",
    reference: "Hundepool et al. (2012) §3.6",
    params: PARAMS,
    figures: &[
        FigureSpec::new(
            "mean_rel_diff_max",
            "largest relative mean difference",
            Unit::Score,
            "docs/METHODS.md §4",
        )
        .non_negative(),
        FigureSpec::new(
            "var_rel_diff_max",
            "largest relative variance difference",
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
    if !r.ok() {
        return None;
    }
    Some(Box::new(MomentsMeasure {
        variables: variables?,
    }))
}

impl UtilityMeasure for MomentsMeasure {
    fn name(&self) -> &'static str {
        NAME
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        let d = moments(original, masked, &self.variables)?;
        let max_abs = |f: fn(&crate::VariableDiff) -> Option<f64>| {
            d.iter()
                .filter_map(f)
                .filter(|x| x.is_finite())
                .map(f64::abs)
                .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))))
        };
        let mut r = Report::new("moments: means and variances (n − 1) per variable");
        r.push(Figure::new(
            "mean_rel_diff_max",
            opt(max_abs(|v| v.mean_rel_diff)),
            Unit::Score,
            "largest |relative difference| of a variable's mean: |masked − original| / |original|",
        ));
        r.push(Figure::new(
            "var_rel_diff_max",
            opt(max_abs(|v| v.var_rel_diff)),
            Unit::Score,
            "largest |relative difference| of a variable's variance (n − 1)",
        ));
        r.tables.push(ReportTable {
            name: "moments".into(),
            title: "means and variances (n − 1) per variable; relative differences to the original"
                .into(),
            header: [
                "variable",
                "mean_original",
                "mean_masked",
                "mean_diff",
                "mean_rel_diff",
                "var_original",
                "var_masked",
                "var_diff",
                "var_rel_diff",
            ]
            .map(String::from)
            .to_vec(),
            rows: d
                .iter()
                .map(|v| {
                    vec![
                        json!(v.variable),
                        num(v.mean_original),
                        num(v.mean_masked),
                        num(v.mean_diff),
                        opt(v.mean_rel_diff),
                        num(v.var_original),
                        num(v.var_masked),
                        num(v.var_diff),
                        opt(v.var_rel_diff),
                    ]
                })
                .collect(),
        });
        Ok(r)
    }
}
