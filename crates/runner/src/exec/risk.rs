//! Step 5 of a run: risk measures of the released (or source) file, each a configured measure of
//! the registry; the stored outcome is the measure's report (figures with units, tables), and
//! the metrics `risk.<name>.<figure>` are its numeric figures.

use intruder_data::Table;

use crate::RunnerError;
use crate::record::{FailureRecord, RiskRecord};
use crate::spec::{Experiment, RiskFile};

pub(super) fn run_risk(
    exp: &Experiment,
    masked: &Table,
    source: &Table,
    population: Option<&Table>,
    failures: &mut Vec<FailureRecord>,
) -> Result<Vec<RiskRecord>, RunnerError> {
    let mut risk = Vec::new();
    for r in &exp.risk {
        let table = match r.file {
            RiskFile::Released => masked,
            RiskFile::Source => source,
            // The check before any run reports this with its key path.
            RiskFile::Population => population.ok_or_else(|| {
                RunnerError::Risk(intruder_risk::RiskError::Param(format!(
                    "risk '{}': file = \"population\" needs [data] population",
                    r.name
                )))
            })?,
        };
        // A measure that fails is recorded and the others kept.
        let outcome = match intruder_engine::risk_table(&exp.engine, table, r.measure.as_ref()) {
            Ok(o) => o,
            Err(e) => {
                failures.push(FailureRecord {
                    stage: "risk".into(),
                    name: r.name.clone(),
                    message: e.to_string(),
                });
                continue;
            }
        };
        let mut report = outcome.report;
        // Warnings about the inputs (weights below 1, a weight total far from the population
        // size) travel with the figures they qualify.
        report
            .notes
            .extend(outcome.warnings.iter().map(|w| format!("warning: {w}")));
        risk.push(RiskRecord {
            name: r.name.clone(),
            measure: r.measure_name().to_string(),
            report,
        });
    }
    Ok(risk)
}
