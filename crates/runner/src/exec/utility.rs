//! Step 6 of a run: utility measures of the released file against the original, each stored as
//! its report (figures, tables). A synthetic release (a synthesiser made its records) has no
//! record of the original: the measures that compare records one to one (il1s,
//! information-loss) do not apply to it and are recorded as failures saying so; the measures
//! that compare the files as wholes (moments, correlations, pmse, ci-overlap) run as usual.

use intruder_data::Table;
use intruder_data::report::Report;
use intruder_defence::ChangeLog;
use intruder_utility::{UtilityError, UtilityMeasure};

use crate::RunnerError;
use crate::record::{FailureRecord, UtilityRecord};
use crate::spec::Experiment;

/// Every utility measure: the reports of those that ran, and a failure for each that did not
/// (the others are kept).
pub(super) fn run_utility(
    exp: &Experiment,
    orig: &Table,
    recoded: &Table,
    masked: &Table,
    log: &ChangeLog,
    failures: &mut Vec<FailureRecord>,
) -> Result<Vec<UtilityRecord>, RunnerError> {
    let u = &exp.utility;
    if u.measures.is_empty() {
        return Ok(Vec::new());
    }
    let configured = u.configure().map_err(|problems| {
        RunnerError::Invalid(
            problems
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; "),
        )
    })?;
    // compared on the released scale: the original through the release's public recodings
    let reports: Vec<Result<Report, UtilityError>> = match log.synthetic {
        None => intruder_utility::measure_each(
            &configured.measures,
            orig,
            Some(recoded),
            masked,
            Some(&log.kept_rows),
        ),
        Some(step) => configured
            .measures
            .chunks(1)
            .map(|one| synthetic_measure(one, step, orig, recoded, masked))
            .collect(),
    };
    let mut out = Vec::new();
    for (m, report) in configured.measures.iter().zip(reports) {
        match report {
            Ok(report) => out.push(UtilityRecord {
                measure: m.name().to_string(),
                report,
            }),
            Err(e) => failures.push(FailureRecord {
                stage: "utility".into(),
                name: m.name().to_string(),
                message: match e {
                    UtilityError::Measure { source, .. } => source.to_string(),
                    other => other.to_string(),
                },
            }),
        }
    }
    Ok(out)
}

/// One measure (`one`, a list of one) on a release that step `step` synthesised: a measure
/// that compares records one to one does not apply (no released record is an original record);
/// the others compare the files as wholes.
fn synthetic_measure(
    one: &[Box<dyn UtilityMeasure>],
    step: usize,
    orig: &Table,
    recoded: &Table,
    masked: &Table,
) -> Result<Report, UtilityError> {
    if one.iter().any(|m| m.one_to_one()) {
        return Err(UtilityError::Mismatch(format!(
            "not applicable to a synthetic release: step {step} made new records, none of them an original record to compare with one to one (compare the files as wholes: moments, correlations, pmse)"
        )));
    }
    intruder_utility::measure_each(one, orig, Some(recoded), masked, None)
        .pop()
        .unwrap_or_else(|| Err(UtilityError::Mismatch("no utility measure to run".into())))
}
