//! Step 6 of a run: utility measures of the released file against the original, each stored as
//! its report (figures, tables) under its name.

use intruder_data::Table;
use serde_json::Value;

use crate::RunnerError;
use crate::spec::Experiment;

pub(super) fn run_utility(
    exp: &Experiment,
    orig: &Table,
    masked: &Table,
    kept_rows: &[usize],
) -> Result<Value, RunnerError> {
    let mut utility = serde_json::Map::new();
    let u = &exp.utility;
    if u.measures.is_empty() {
        return Ok(Value::Object(utility));
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
    let reports =
        intruder_utility::measure_all(&configured.measures, orig, masked, Some(kept_rows))?;
    for (m, r) in configured.measures.iter().zip(reports) {
        utility.insert(m.name().to_string(), serde_json::to_value(&r)?);
    }
    Ok(Value::Object(utility))
}
