//! Household risk: 1 − Π(1 − r_i) over each household's members, from individual risk (weighted,
//! or 1/f_k), summed and averaged over the records (sdcMicro's `measure_hierarchical`).

use serde_json::json;

use intruder_table::params::FigureSpec;
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec};
use intruder_table::report::{Figure, RecordValues, Records, Report, Unit};
use intruder_table::{Table, Timings};

use crate::methods::figures;
use crate::assess::{GlobalRiskDenominator, RiskParams, assess_timed};
use crate::error::RiskError;
use crate::keys::MissingPolicy;
use crate::methods::shared::{
    GROUP, WEIGHT, checked, keep_figures, no_weights, read_common, risk_params,
};
use crate::{RiskMeasure, RiskOutcome};

const NAME: &str = "household";

/// The measure's own parameters (the common ones are [`crate::RISK_COMMON`]).
const PARAMS: &[ParamSpec] = &[
    GROUP.required(),
    WEIGHT,
    ParamSpec::new(
        "global_risk_denominator",
        ParamKind::Choice(&["counted", "all"]),
        "what household_global_risk sums over and divides by: counted (the records counted; under listwise only the complete ones) or all (every record, as sdcMicro's measure_hierarchical); also the individual global risk's denominator",
    )
    .default_value("counted"),
];

/// Registry entry.
pub const ENTRY: Entry<dyn RiskMeasure> = Entry {
    name: NAME,
    summary: "household risk 1 − Π(1 − r_i) over each household's members, from individual risk",
    reference: "sdcMicro measure_hierarchical",
    params: PARAMS,
    figures: intruder_table::figure_list![
        figures::N_TOTAL,
        figures::N_DELETED,
        figures::N,
        figures::SAMPLE_UNIQUES,
        FigureSpec::new("households", "households", Unit::Count, "–"),
        FigureSpec::new(
            "household_max_risk",
            "largest household risk",
            Unit::Proportion,
            "sdcMicro measure_hierarchical",
        );
        figures::INDIVIDUAL,
        figures::HOUSEHOLD_RISK,
    ],
    build,
};

/// Household risk: 1 − Π(1 − r_i) over each household's members (sdcMicro's
/// `measure_hierarchical`), from individual risk (weighted, or 1/f_k).
#[derive(Debug, Clone, PartialEq)]
pub struct Household {
    /// The checked parameters (`group` is set).
    pub(crate) params: RiskParams,
}

/// Reads and checks the parameters of the household measure; `None` when `r` recorded a problem.
fn build(r: &mut ParamReader) -> Option<Box<dyn RiskMeasure>> {
    let c = read_common(r);
    let group = r.require::<String>("group");
    let weight = r.get::<String>("weight");
    let denominator = r.choice::<GlobalRiskDenominator>("global_risk_denominator");
    let mut p = risk_params(c)?;
    p.group = Some(group?);
    p.weight = weight;
    if let Some(d) = denominator {
        p.global_risk_denominator = d;
    }
    checked(r, p, RiskParams::check)
        .map(|params| Box::new(Household { params }) as Box<dyn RiskMeasure>)
}

impl RiskMeasure for Household {
    fn name(&self) -> &'static str {
        NAME
    }
    fn keys(&self) -> &[String] {
        &self.params.keys
    }
    fn policy(&self) -> MissingPolicy {
        self.params.missing
    }
    fn headline(&self) -> &'static str {
        "household_global_risk"
    }
    fn assess(&self, table: &Table, per_record: bool) -> Result<RiskOutcome, RiskError> {
        self.assess_timed(table, per_record, &mut Timings::new())
    }
    fn assess_timed(
        &self,
        table: &Table,
        per_record: bool,
        timings: &mut Timings,
    ) -> Result<RiskOutcome, RiskError> {
        let a = assess_timed(table, &self.params, timings)?;
        let mut report = Report::new("household risk");
        report.figures = keep_figures(
            &a,
            &[
                "policy",
                "keys",
                "n_total",
                "n_deleted",
                "n",
                "sample_uniques",
                "expected_reidentifications",
                "global_risk",
                "max_individual_risk",
            ],
        );
        if self.params.weight.is_none() {
            report.push(no_weights());
        }
        let h = a
            .summary
            .household
            .as_ref()
            .ok_or_else(|| RiskError::Param("household risk was not computed".into()))?;
        let over = match h.denominator {
            GlobalRiskDenominator::Counted => "counted record",
            GlobalRiskDenominator::All => "record of the file (sdcMicro)",
        };
        report.push(Figure::new(
            "group",
            json!(self.params.group),
            Unit::Label,
            "the household (group) column",
        ));
        report.push(Figure::new(
            "households",
            json!(h.households),
            Unit::Count,
            "number of households",
        ));
        report.push(Figure::new(
            "household_expected_reidentifications",
            json!(h.expected_reidentifications),
            Unit::Score,
            format!("Σ over each {over} of its household's risk 1 − Π(1 − r_i)"),
        ));
        report.push(Figure::new(
            "household_global_risk",
            json!(h.global_risk),
            Unit::Proportion,
            format!("mean household risk per {over}"),
        ));
        report.push(Figure::new(
            "household_max_risk",
            json!(h.max_risk),
            Unit::Proportion,
            "largest household risk",
        ));
        let warnings = a.warnings.clone();
        let records = if per_record {
            let r = a.records;
            let mut out = Records::new(r.k.len());
            for (name, values) in [
                ("k", RecordValues::from(r.k)),
                ("individual_risk", r.individual_risk.into()),
                (
                    "household_risk",
                    r.household_risk.unwrap_or_default().into(),
                ),
            ] {
                out.push(name, values).map_err(RiskError::Param)?;
            }
            out
        } else {
            Records::default()
        };
        Ok(RiskOutcome {
            report,
            records,
            warnings,
        })
    }
}
