//! Step 6 of a run: utility measures of the released file against the original, each stored as
//! its report (figures, tables).

use intruder_data::Table;

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
    kept_rows: &[usize],
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
    let reports = intruder_utility::measure_each(
        &configured.measures,
        orig,
        Some(recoded),
        masked,
        Some(kept_rows),
    );
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
                    intruder_utility::UtilityError::Measure { source, .. } => source.to_string(),
                    other => other.to_string(),
                },
            }),
        }
    }
    Ok(out)
}
