//! Step 5 of a run: risk measures of the released (or source) file.

use intruder_data::Table;
use intruder_risk::{RiskParams, assess};
use serde_json::{Value, json};

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
        let mut p = RiskParams::new(r.keys.clone());
        p.missing = r
            .missing
            .parse()
            .map_err(|e: String| RunnerError::Invalid(e))?;
        p.population_size = r.population_size;
        p.weight = r.weight.clone();
        p.sensitive = r.sensitive.clone();
        p.unique_threshold = r.unique_threshold;
        p.with_n_match = r.with_n_match;
        let a = assess(table, &p)?;
        risk.push(json!({"name": r.name, "summary": a.summary.to_json()}));
    }
    Ok(risk)
}
