//! Individual risk from sampling weights (Benedetti & Franconi 1998; sdcMicro's
//! `indivRisk(method = "approx")`), expected re-identifications and global risk; with a group
//! column also household risk.

use intruder_table::keys::{CodeSource, PartedCodes};
use intruder_table::params::{Entry, ParamReader, ParamSpec};
use intruder_table::report::Report;
use intruder_table::{Table, Timings};

use crate::methods::figures;
use crate::assess::{
    Assessment, GlobalRiskDenominator, RiskParams, assess_codes, assess_parts, assess_timed,
    codes_suffice, parts_suffice,
};
use crate::error::RiskError;
use crate::keys::MissingPolicy;
use crate::methods::shared::{
    ALPHA, GLOBAL_RISK_DENOMINATOR, GROUP, MAX_GLOBAL_RISK, WEIGHT, checked, for_call,
    keep_figures, no_weights, outcome_of, read_common, risk_params,
};
use crate::{RiskMeasure, RiskOutcome};

const NAME: &str = "individual";

/// The figures of the individual measure (as `intruder risk --measure individual` has printed).
const INDIVIDUAL_FIGURES: &[&str] = &[
    "policy",
    "keys",
    "n_total",
    "n_deleted",
    "n",
    "sample_uniques",
    "expected_reidentifications",
    "global_risk",
    "max_individual_risk",
    "global_threshold",
    "records_above_threshold",
    "household_expected_reidentifications",
    "household_global_risk",
];

/// The measure's own parameters (the common ones are [`crate::RISK_COMMON`]).
const PARAMS: &[ParamSpec] = &[
    WEIGHT,
    GROUP,
    GLOBAL_RISK_DENOMINATOR,
    MAX_GLOBAL_RISK,
    ALPHA,
];

/// Registry entry.
pub const ENTRY: Entry<dyn RiskMeasure> = Entry {
    name: NAME,
    summary: "individual risk from sampling weights, expected re-identifications and global risk (with group: household risk)",
    reference: "Benedetti & Franconi (1998); sdcMicro indivRisk(method = \"approx\")",
    params: PARAMS,
    figures: intruder_table::figure_list![
        figures::N_TOTAL,
        figures::N_DELETED,
        figures::N,
        figures::SAMPLE_UNIQUES;
        figures::INDIVIDUAL,
        figures::THRESHOLD,
        figures::HOUSEHOLD_RISK,
    ],
    build,
};

/// Individual risk from sampling weights (sdcMicro's `indivRisk`), global risk, and household
/// risk with a group column.
#[derive(Debug, Clone, PartialEq)]
pub struct Individual {
    /// The checked parameters.
    pub(crate) params: RiskParams,
}

impl Individual {
    /// The measure with `params`, checked as the registry checks them ([`RiskParams::check`]).
    /// The typed way in for a library: the fields are private, so an unchecked measure cannot
    /// be made (the registry's `build` reads the same parameters from a table).
    pub fn new(params: RiskParams) -> Result<Self, RiskError> {
        params.check()?;
        Ok(Individual { params })
    }
}

/// Reads and checks the parameters of the individual measure; `None` when `r` recorded a problem.
fn build(r: &mut ParamReader) -> Option<Box<dyn RiskMeasure>> {
    let c = read_common(r);
    let weight = r.get::<String>("weight");
    let group = r.get::<String>("group");
    let denominator = r.choice::<GlobalRiskDenominator>("global_risk_denominator");
    let max_global_risk = r.get::<f64>("max_global_risk");
    let alpha = r.get::<f64>("alpha");
    let mut p = risk_params(c)?;
    p.weight = weight;
    p.group = group;
    p.wildcard_alpha = alpha;
    if let Some(d) = denominator {
        p.global_risk_denominator = d;
    }
    if let Some(m) = max_global_risk {
        p.max_global_risk = m;
    }
    checked(r, p, RiskParams::check)
        .map(|params| Box::new(Individual { params }) as Box<dyn RiskMeasure>)
}

impl RiskMeasure for Individual {
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
        "global_risk"
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
        let a = assess_timed(table, &for_call(&self.params, per_record), timings)?;
        Ok(outcome_of(self.report(&a), a, per_record))
    }
    fn codes_suffice(&self) -> bool {
        codes_suffice(&for_call(&self.params, false))
    }
    fn parts_suffice(&self) -> bool {
        parts_suffice(&for_call(&self.params, false))
    }
    fn assess_codes(
        &self,
        keys: &[&dyn CodeSource],
        file: &str,
    ) -> Option<Result<RiskOutcome, RiskError>> {
        let a = assess_codes(keys, file, &for_call(&self.params, false))?;
        Some(a.map(|a| outcome_of(self.report(&a), a, false)))
    }
    fn assess_parts(
        &self,
        keys: &dyn PartedCodes,
        file: &str,
        timings: &mut Timings,
    ) -> Option<Result<RiskOutcome, RiskError>> {
        let a = assess_parts(keys, file, &for_call(&self.params, false), timings)?;
        Some(a.map(|a| outcome_of(self.report(&a), a, false)))
    }
    fn counted(&self) -> Option<&RiskParams> {
        Some(&self.params)
    }
    fn outcome_of_counts(&self, a: Assessment) -> RiskOutcome {
        outcome_of(self.report(&a), a, false)
    }
}

impl Individual {
    /// The individual measure's figures of an assessment.
    fn report(&self, a: &Assessment) -> Report {
        let mut report = Report::new("individual risk");
        report.figures = keep_figures(a, INDIVIDUAL_FIGURES);
        if self.params.weight.is_none() {
            report.push(no_weights());
        }
        report
    }
}
