//! Frequency risk (docs/METHODS.md §1): equivalence classes, sample uniques, the k-anonymity
//! counts, Pr(SU), Skinner & Elliot's θ, Bender et al.'s R and Mulder's wildcard n_match; with
//! weight, group and sensitive columns also individual, global and household risk and ℓ-diversity
//! (sdcMicro's freqCalc, indivRisk, measure_hierarchical, ldiversity).

use intruder_table::keys::{CodeSource, PartedCodes};
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec, Range};
use intruder_table::{Table, Timings};

use crate::methods::figures;
use crate::assess::{
    GlobalRiskDenominator, RiskParams, assess_codes, assess_parts, assess_timed, codes_suffice,
    parts_suffice,
};
use crate::error::RiskError;
use crate::keys::MissingPolicy;
use crate::methods::shared::{
    ALPHA, GLOBAL_RISK_DENOMINATOR, GROUP, MAX_GLOBAL_RISK, SENSITIVE, WEIGHT, checked, for_call,
    outcome_of, read_common, risk_params,
};
use crate::wildcard::IncompletePairs;
use crate::{RiskMeasure, RiskOutcome};

const NAME: &str = "frequency";

/// The k of the k-anonymity counts.
const K_ANONYMITY: ParamSpec = ParamSpec::new(
    "k_anonymity",
    ParamKind::Integer,
    "k of the k-anonymity counts: records_fk_below_k counts f_k < k (sdcMicro's \"observations violating k-anonymity\", print(sdc, \"kAnon\")); records_fk_at_most_k counts f_k ≤ k (Mulder's k ≤ 5); n_match under wildcard",
)
.default_value("5")
.within(Range::at_least(1.0))
.flag_alias(&["k"]);

/// The measure's own parameters (the common ones are [`crate::RISK_COMMON`]).
const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "population_size",
        ParamKind::Number,
        "population size N: π = n/N for θ and Bender's R",
    )
    .within(Range::POSITIVE),
    WEIGHT,
    SENSITIVE,
    GROUP,
    ParamSpec::new(
        "unique_threshold",
        ParamKind::Integer,
        "Dalenius' uniqueness threshold: records in classes of size ≤ T count as unique",
    )
    .default_value("1")
    .within(Range::at_least(1.0)),
    ParamSpec::new(
        "whole_sets",
        ParamKind::Columns,
        "set-valued keys compared as one value whatever set_match says (a multi-response answer pattern such as languages spoken: {a,b} differs from {a}, also under wildcard)",
    ),
    ParamSpec::new(
        "population_uniques",
        ParamKind::Number,
        "n(U), the number of population uniques, for Bender's R (needs population_size)",
    )
    .within(Range::at_least(0.0)),
    ParamSpec::new(
        "sample_size",
        ParamKind::Number,
        "the measured file is the population and a sample of this size is released from it: Bender's R with f = sample_size / records counted and n(U) = the file's uniques (not with population_size or population_uniques)",
    )
    .within(Range::POSITIVE),
    ParamSpec::new(
        "intruder_share",
        ParamKind::Number,
        "f_a, the share of the population the intruder knows about, for Bender's R",
    )
    .default_value("1")
    .within(Range::SHARE),
    ParamSpec::new(
        "with_n_match",
        ParamKind::Bool,
        "count n_match (records matching, missing as wildcard) per record under every policy",
    )
    .default_value("false"),
    K_ANONYMITY,
    GLOBAL_RISK_DENOMINATOR,
    MAX_GLOBAL_RISK,
    ALPHA,
    ParamSpec::new(
        "incomplete_pairs",
        ParamKind::Choice(&["match", "never"]),
        "wildcard policy only: whether two records that both miss a key can match each other: match (a missing value matches anything, Mulder's stated Steps 1-5) or never (a record missing a key counts itself and the complete records agreeing with it, the rule Mulder's printed Table 2 follows; METHODS.md example D)",
    )
    .default_value("match"),
];

/// Registry entry.
pub const ENTRY: Entry<dyn RiskMeasure> = Entry {
    name: NAME,
    summary: "equivalence classes, sample uniques, k ≤ 5/10, Pr(SU), θ, Bender's R, wildcard n_match; with weight, group and sensitive columns also individual, global and household risk and ℓ-diversity",
    reference: "docs/METHODS.md §1; Skinner & Elliot (2002) θ; Bender et al. (2001) R; Mulder's n_match; sdcMicro freqCalc, indivRisk, measure_hierarchical, ldiversity",
    params: PARAMS,
    figures: intruder_table::figure_list![
        figures::N_TOTAL,
        figures::N_DELETED,
        figures::N,
        figures::SAMPLE_UNIQUES,
        figures::CLASSES,
        figures::THETA,
        figures::BENDER_R;
        figures::CLASS_SIZES,
        figures::INDIVIDUAL,
        figures::THRESHOLD,
        figures::HOUSEHOLD_RISK,
        figures::DIVERSITY_MIN,
        figures::WILDCARD,
    ],
    build,
};

/// Frequency risk: every figure of [`assess`](crate::assess()).
#[derive(Debug, Clone, PartialEq)]
pub struct Frequency {
    /// The checked parameters.
    pub(crate) params: RiskParams,
}

impl Frequency {
    /// The measure with `params`, checked as the registry checks them ([`RiskParams::check`]).
    /// The typed way in for a library: the fields are private, so an unchecked measure cannot
    /// be made (the registry's `build` reads the same parameters from a table).
    pub fn new(params: RiskParams) -> Result<Self, RiskError> {
        params.check()?;
        Ok(Frequency { params })
    }
}

/// Reads and checks the parameters of the frequency measure; `None` when `r` recorded a problem.
fn build(r: &mut ParamReader) -> Option<Box<dyn RiskMeasure>> {
    let c = read_common(r);
    let population_size = r.get::<f64>("population_size");
    let weight = r.get::<String>("weight");
    let sensitive = r.get::<String>("sensitive");
    let group = r.get::<String>("group");
    let unique_threshold = r.get::<u32>("unique_threshold");
    let population_uniques = r.get::<f64>("population_uniques");
    let intruder_share = r.get::<f64>("intruder_share");
    let sample_size = r.get::<f64>("sample_size");
    let with_n_match = r.get::<bool>("with_n_match");
    let whole_sets = r.get::<Vec<String>>("whole_sets");
    let k_anonymity = r.get::<u32>("k_anonymity");
    let denominator = r.choice::<GlobalRiskDenominator>("global_risk_denominator");
    let max_global_risk = r.get::<f64>("max_global_risk");
    let alpha = r.get::<f64>("alpha");
    let incomplete_pairs = r.choice::<IncompletePairs>("incomplete_pairs");
    if r.has("population_uniques") && !r.has("population_size") {
        r.problem(
            "population_uniques",
            "Bender's R needs population_size too (for the sampling fraction)",
        );
    }
    if r.has("sample_size") && (r.has("population_size") || r.has("population_uniques")) {
        r.problem(
            "sample_size",
            "takes the measured file as the population (N = its records, n(U) = its uniques): remove population_size and population_uniques",
        );
    }
    let mut p = risk_params(c)?;
    p.population_size = population_size;
    p.sample_size = sample_size;
    p.weight = weight;
    p.sensitive = sensitive;
    p.group = group;
    p.population_uniques = population_uniques;
    if let Some(t) = unique_threshold {
        p.unique_threshold = t;
    }
    if let Some(f) = intruder_share {
        p.intruder_share = f;
    }
    if let Some(b) = with_n_match {
        p.with_n_match = b;
    }
    if let Some(w) = whole_sets {
        p.whole_sets = w;
    }
    if let Some(k) = k_anonymity {
        p.k_anonymity = k;
    }
    if let Some(d) = denominator {
        p.global_risk_denominator = d;
    }
    if let Some(m) = max_global_risk {
        p.max_global_risk = m;
    }
    p.wildcard_alpha = alpha;
    if let Some(i) = incomplete_pairs {
        p.incomplete_pairs = i;
    }
    checked(r, p, RiskParams::check)
        .map(|params| Box::new(Frequency { params }) as Box<dyn RiskMeasure>)
}

impl RiskMeasure for Frequency {
    fn name(&self) -> &'static str {
        NAME
    }
    fn keys(&self) -> &[String] {
        &self.params.keys
    }
    fn policy(&self) -> MissingPolicy {
        self.params.missing
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
        Ok(outcome_of(a.summary.report(), a, per_record))
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
        Some(a.map(|a| outcome_of(a.summary.report(), a, false)))
    }
    fn assess_parts(
        &self,
        keys: &dyn PartedCodes,
        file: &str,
        timings: &mut Timings,
    ) -> Option<Result<RiskOutcome, RiskError>> {
        let a = assess_parts(keys, file, &for_call(&self.params, false), timings)?;
        Some(a.map(|a| outcome_of(a.summary.report(), a, false)))
    }
    fn counted(&self) -> Option<&RiskParams> {
        Some(&self.params)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::shared::default_of;

    /// The defaults the docs show are the library's defaults.
    #[test]
    fn documented_defaults_are_the_library_defaults() {
        let f = RiskParams::new(vec![]);
        let t: u32 = default_of(PARAMS, "unique_threshold").parse().unwrap();
        assert_eq!(t, f.unique_threshold);
        let fa: f64 = default_of(PARAMS, "intruder_share").parse().unwrap();
        assert_eq!(fa, f.intruder_share);
        let b: bool = default_of(PARAMS, "with_n_match").parse().unwrap();
        assert_eq!(b, f.with_n_match);
        let k: u32 = default_of(PARAMS, "k_anonymity").parse().unwrap();
        assert_eq!(k, f.k_anonymity);
        assert_eq!(
            default_of(PARAMS, "global_risk_denominator"),
            f.global_risk_denominator.as_str()
        );
        let m: f64 = default_of(PARAMS, "max_global_risk").parse().unwrap();
        assert_eq!(m, f.max_global_risk);
    }
}
