//! Step 5 of a run: risk measures of the released (or source) file, each a configured measure of
//! the registry. The stored outcome keeps every figure of the report (`summary`: name → value,
//! the metrics `risk.<name>.<figure>` are its numbers) with its unit (`units`), and the report's
//! tables (`tables`).

use intruder_data::Table;
use serde_json::{Map, Value, json};

use crate::RunnerError;
use crate::spec::{Experiment, RiskFile};

pub(super) fn run_risk(
    exp: &Experiment,
    masked: &Table,
    source: &Table,
) -> Result<Vec<Value>, RunnerError> {
    let mut risk = Vec::new();
    for r in &exp.risk {
        let table = match r.file {
            RiskFile::Released => masked,
            RiskFile::Source => source,
        };
        let report = r.measure.assess(table, false)?.report;
        let summary: Map<String, Value> = report
            .figures
            .iter()
            .map(|f| (f.name.clone(), f.value.clone()))
            .collect();
        let units: Map<String, Value> = report
            .figures
            .iter()
            .map(|f| (f.name.clone(), json!(f.unit.as_str())))
            .collect();
        let mut entry = json!({
            "name": r.name,
            "measure": r.measure_name(),
            "summary": summary,
            "units": units,
        });
        if !report.tables.is_empty() {
            entry["tables"] = serde_json::to_value(&report.tables).unwrap_or(Value::Null);
        }
        risk.push(entry);
    }
    Ok(risk)
}
