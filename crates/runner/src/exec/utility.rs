//! Step 6 of a run: utility measures of the released file against the original.

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
    if !u.variables.is_empty() {
        for m in &u.measures {
            let v = match m.as_str() {
                "il1s" => {
                    let o = orig.take(kept_rows);
                    serde_json::to_value(intruder_utility::il1s(&o, masked, &u.variables)?)?
                }
                "moments" => {
                    serde_json::to_value(intruder_utility::moments(orig, masked, &u.variables)?)?
                }
                "correlations" => serde_json::to_value(intruder_utility::correlations(
                    orig,
                    masked,
                    &u.variables,
                )?)?,
                "pmse" => {
                    serde_json::to_value(intruder_utility::pmse(orig, masked, &u.variables)?)?
                }
                other => return Err(RunnerError::Invalid(format!("unknown measure {other}"))),
            };
            utility.insert(m.clone(), v);
        }
    }
    Ok(Value::Object(utility))
}
