//! Step 6 of a run: utility measures of the released file against the original, each stored as
//! its report (figures, tables).

use intruder_data::Table;

use crate::RunnerError;
use crate::record::UtilityRecord;
use crate::spec::Experiment;

pub(super) fn run_utility(
    exp: &Experiment,
    orig: &Table,
    recoded: &Table,
    masked: &Table,
    kept_rows: &[usize],
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
    let reports = intruder_utility::measure_all_recoded(
        &configured.measures,
        orig,
        Some(recoded),
        masked,
        Some(kept_rows),
    )?;
    Ok(configured
        .measures
        .iter()
        .zip(reports)
        .map(|(m, report)| UtilityRecord {
            measure: m.name().to_string(),
            report,
        })
        .collect())
}
