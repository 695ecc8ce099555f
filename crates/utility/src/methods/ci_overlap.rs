//! The overlap of a regression's 95% coefficient intervals fitted on both files (Karr, Kohnen,
//! Oganian, Reiter & Sanil 2006, §3): the figures `ci_overlap_mean` and `ci_overlap_min`, the
//! table `ci_overlap` (per coefficient, both intervals) and the detail `ci_overlap_model`. Its
//! columns are the model's; it ignores `variables`. The computation is [`crate::ci_overlap()`].

use intruder_table::params::FigureSpec;
use intruder_table::Table;
use intruder_table::params::{ColumnNeed, Entry, ParamKind, ParamReader, ParamSpec};
use intruder_table::report::{Figure, Report, ReportTable, Unit};
use serde_json::json;

use super::shared::num;
use crate::{Family, Formula, UtilityError, UtilityMeasure, ci_overlap};

const NAME: &str = "ci-overlap";

/// The overlap of a regression's confidence intervals fitted on both files.
#[derive(Debug, Clone, PartialEq)]
pub struct CiOverlapMeasure {
    /// The model.
    pub(crate) formula: Formula,
    /// Its family.
    pub(crate) family: Family,
}

/// The measure's own parameters (the common ones are [`crate::UTILITY_COMMON`]).
const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "model",
        ParamKind::String,
        "regression model \"y ~ x1 + x2\" fitted on both files (an intercept is included; categorical predictors enter as indicators of every level but the first)",
    )
    .required(),
    ParamSpec::new(
        "family",
        ParamKind::Choice(&["linear", "logistic"]),
        "linear (OLS, t intervals) or logistic (binary response, Wald intervals)",
    )
    .default_value("linear"),
];

/// Registry entry.
pub const ENTRY: Entry<dyn UtilityMeasure> = Entry {
    name: NAME,
    summary: "overlap of a regression's 95% coefficient intervals fitted on both files",
    reference: "Karr, Kohnen, Oganian, Reiter & Sanil (2006) §3",
    params: PARAMS,
    figures: &[
        FigureSpec::new(
            "ci_overlap_mean",
            "mean CI overlap",
            Unit::Proportion,
            "Karr et al. (2006)",
        ),
        FigureSpec::new(
            "ci_overlap_min",
            "smallest CI overlap",
            Unit::Proportion,
            "Karr et al. (2006)",
        ),
    ],
    build,
};

/// Reads and checks the measure's parameters; `None` when any is wrong.
fn build(r: &mut ParamReader) -> Option<Box<dyn UtilityMeasure>> {
    let model: Option<String> = r.require("model");
    let family: Family = r.choice("family").unwrap_or(Family::Linear);
    let formula = match model.as_deref().map(str::parse::<Formula>) {
        Some(Ok(f)) => Some(f),
        Some(Err(e)) => {
            r.problem("model", e);
            None
        }
        None => None,
    };
    if let (Some(f), Some(cols)) = (&formula, r.context().columns) {
        for name in std::iter::once(&f.response).chain(&f.predictors) {
            if let Err(e) = cols.check(name, ColumnNeed::Any) {
                r.problem("model", e);
            }
        }
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(CiOverlapMeasure {
        formula: formula?,
        family,
    }))
}

impl UtilityMeasure for CiOverlapMeasure {
    fn name(&self) -> &'static str {
        NAME
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        let o = ci_overlap(original, masked, &self.formula, self.family)?;
        let family = match self.family {
            Family::Linear => "linear",
            Family::Logistic => "logistic",
        };
        let model = format!(
            "{} ~ {}",
            self.formula.response,
            self.formula.predictors.join(" + ")
        );
        let mut r = Report::new(format!("ci-overlap: {family} model {model}"));
        let min = o
            .coefficients
            .iter()
            .map(|c| c.overlap)
            .fold(f64::INFINITY, f64::min);
        r.push(Figure::new(
            "ci_overlap_mean",
            num(o.mean_overlap),
            Unit::Proportion,
            "mean overlap of the coefficients' 95% intervals (Karr et al.: 1 = identical, 0 = disjoint)",
        ));
        r.push(Figure::new(
            "ci_overlap_min",
            num(min),
            Unit::Proportion,
            "lowest overlap of a coefficient's 95% intervals",
        ));
        r.tables.push(ReportTable {
            name: "ci_overlap".into(),
            title: format!(
                "{family} model {model}: coefficients, 95% intervals on both files and their overlap (n = {} original, {} masked)",
                o.original.n, o.masked.n
            ),
            header: [
                "coefficient",
                "estimate_original",
                "lower_original",
                "upper_original",
                "estimate_masked",
                "lower_masked",
                "upper_masked",
                "overlap",
                "overlap_raw",
            ]
            .map(String::from)
            .to_vec(),
            rows: o
                .coefficients
                .iter()
                .map(|c| {
                    vec![
                        json!(c.name),
                        num(c.estimate_original),
                        num(c.ci_original.0),
                        num(c.ci_original.1),
                        num(c.estimate_masked),
                        num(c.ci_masked.0),
                        num(c.ci_masked.1),
                        num(c.overlap),
                        num(c.overlap_raw),
                    ]
                })
                .collect(),
        });
        r.details.insert(
            "ci_overlap_model".into(),
            json!({
                "formula": model,
                "family": family,
                "records_original": o.original.n,
                "dropped_original": o.original.dropped,
                "records_masked": o.masked.n,
                "dropped_masked": o.masked.dropped,
            }),
        );
        Ok(r)
    }
}
