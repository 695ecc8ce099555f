//! What several risk measures share: the parameters more than one declares, reading the common
//! parameters ([`crate::RISK_COMMON`]) and the checks every build makes, and turning an
//! [`Assessment`] into a [`RiskOutcome`].

use intruder_table::Role;
use intruder_table::params::{ColumnNeed, ParamKind, ParamReader, ParamSpec, Range};
use intruder_table::report::{Figure, Records, Report, Unit};
use serde_json::Value;

use crate::RiskOutcome;
use crate::assess::{Assessment, RiskParams};
use crate::error::RiskError;
use crate::keys::{MissingPolicy, SetMatch};

/// The sampling-weight column (frequency, individual, household).
pub(crate) const WEIGHT: ParamSpec = ParamSpec::new(
    "weight",
    ParamKind::Column,
    "sampling-weight column: individual risk as sdcMicro's indivRisk (Benedetti–Franconi) and global risk; without it individual risk is 1/f_k. Weights below 1, and a total more than 10% away from a given population_size, are warned about (a weight counts population units)",
)
.from_role(Role::Weight)
.needs(ColumnNeed::Numeric);

/// What global risk divides by (frequency, individual).
pub(crate) const GLOBAL_RISK_DENOMINATOR: ParamSpec = ParamSpec::new(
    "global_risk_denominator",
    ParamKind::Choice(&["counted", "all"]),
    "what global risk divides the expected re-identifications by: counted (the records counted; under listwise only the complete ones) or all (every record, as sdcMicro's measure_risk global_risk = global_risk_ER / nrow); with a group column household_global_risk sums and divides over the same records",
)
.default_value("counted");

/// sdcMicro's `max_global_risk`, for the global threshold (frequency, individual).
pub(crate) const MAX_GLOBAL_RISK: ParamSpec = ParamSpec::new(
    "max_global_risk",
    ParamKind::Number,
    "sdcMicro's measure_risk max_global_risk: global_threshold is the individual-risk level above which records must change for the global risk to fall below it (sdcMicro's measure_threshold); records_above_threshold counts them",
)
.default_value("0.01")
.within(Range::OPEN_UNIT);

/// sdcMicro's `freqCalc` alpha under the wildcard policy (frequency, individual).
pub(crate) const ALPHA: ParamSpec = ParamSpec::new(
    "alpha",
    ParamKind::Number,
    "sdcMicro's freqCalc alpha (wildcard policy only): a wildcard match with a record missing a key counts α instead of 1 in f_k and F_k (per record: n_match_alpha). sdcMicro's rule: a complete record counts its class at 1 and matching incomplete records at α (with ≥ 2 keys not those missing every key); an incomplete one its exact tuple and matching complete records at 1, other matching incomplete records at α; a record missing every key counts the whole file. Unset: Mulder's n_match (every match 1)",
)
.within(Range::closed(0.0, 1.0));

/// The sensitive column of ℓ-diversity (frequency, l-diversity).
pub(crate) const SENSITIVE: ParamSpec = ParamSpec::new(
    "sensitive",
    ParamKind::Column,
    "sensitive column: distinct and entropy ℓ-diversity within the classes",
)
.from_role(Role::Sensitive);

/// The household (group) column (frequency, individual, household).
pub(crate) const GROUP: ParamSpec = ParamSpec::new(
    "group",
    ParamKind::Column,
    "household (group) column: household risk 1 − Π(1 − r_i) over its members",
)
.from_role(Role::Group);

/// The common parameters, as read.
pub(crate) struct Common {
    /// The key variables (`None` when missing or not a list of names).
    pub(crate) keys: Option<Vec<String>>,
    /// The missing-value policy.
    pub(crate) missing: MissingPolicy,
    /// How set-valued cells match.
    pub(crate) set_match: SetMatch,
}

/// Reads the common parameters, recording an empty key list as a problem.
pub(crate) fn read_common(r: &mut ParamReader) -> Common {
    let keys = r.require::<Vec<String>>("keys");
    if let Some(k) = &keys
        && k.is_empty()
    {
        r.problem("keys", "is empty: name at least one key variable");
    }
    let missing = r.choice::<MissingPolicy>("missing").unwrap_or_default();
    let set_match = r.choice::<SetMatch>("set_match").unwrap_or_default();
    Common {
        keys,
        missing,
        set_match,
    }
}

/// Records a policy other than listwise or as-value as a problem of `measure`.
pub(crate) fn needs_classes(r: &mut ParamReader, c: &Common, measure: &str) {
    if c.missing == MissingPolicy::Wildcard {
        r.problem(
            "missing",
            format!("{measure} needs equivalence classes: use listwise or as-value, not wildcard"),
        );
    }
}

/// Runs the library's own check once the parameters read cleanly (every range is checked
/// before, so this is a safety net), recording its failure.
pub(crate) fn checked<T>(
    r: &mut ParamReader,
    value: T,
    check: impl FnOnce(&T) -> Result<(), RiskError>,
) -> Option<T> {
    if !r.ok() {
        return None;
    }
    match check(&value) {
        Ok(()) => Some(value),
        Err(e) => {
            r.table_problem(e);
            None
        }
    }
}

/// The [`RiskParams`] of the common parameters (`None` without keys).
pub(crate) fn risk_params(c: Common) -> Option<RiskParams> {
    let mut p = RiskParams::new(c.keys?);
    p.missing = c.missing;
    p.set_match = c.set_match;
    Some(p)
}

/// `params` for one call of [`assess`](crate::assess())-based measures: n_match and the
/// per-record figures when they are asked for.
pub(crate) fn for_call(params: &RiskParams, per_record: bool) -> RiskParams {
    let mut p = params.clone();
    p.with_n_match |= per_record;
    p.per_record = per_record;
    p
}

/// The outcome of an assessment under `report`: its per-record figures when asked for.
pub(crate) fn outcome_of(report: Report, a: Assessment, per_record: bool) -> RiskOutcome {
    RiskOutcome {
        report,
        records: if per_record {
            a.records.into_records()
        } else {
            Records::default()
        },
        warnings: a.warnings,
    }
}

/// The figures of `a` named in `keep`, in report order.
pub(crate) fn keep_figures(a: &Assessment, keep: &[&str]) -> Vec<Figure> {
    a.summary
        .figures()
        .into_iter()
        .filter(|f| keep.contains(&f.name.as_str()))
        .collect()
}

/// The figure saying no weight column was given, so individual risk is 1/f_k.
pub(crate) fn no_weights() -> Figure {
    Figure::new(
        "weights",
        Value::Null,
        Unit::Label,
        "no weight column given: individual risk is 1/f_k",
    )
}

/// The default the parameter `name` of `specs` documents.
#[cfg(test)]
pub(crate) fn default_of(specs: &[ParamSpec], name: &str) -> &'static str {
    specs.iter().find(|s| s.name == name).unwrap().default
}
