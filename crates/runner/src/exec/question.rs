//! Step 7 of a run: the three questions of anonymisation (`[[question]]`), asked through the
//! facade (`intruder::questions::ask`) of the setting's release, with the released population's
//! original records as the original and the control set reserved before any defence ran. No
//! ground truth is used: every table is given without its truth columns.

use intruder_data::Table;

use crate::RunnerError;
use crate::hash::derive_seed;
use crate::plan::Run;
use crate::record::{FailureRecord, QuestionRecord};
use crate::spec::Experiment;

/// The columns of `table` that `released` has, in the release's order, under `table`'s label:
/// the original records on the release's columns.
fn on_released_columns(table: &Table, released: &Table) -> Result<Table, RunnerError> {
    let columns = released
        .names()
        .into_iter()
        .filter_map(|n| table.column(n).ok().cloned())
        .collect();
    Ok(Table::new(table.source(), columns)?)
}

/// Every question of the experiment, asked of `released` (no truth columns) about `original`
/// (the released population, as the defences saw it) with `control` as the records the release
/// never saw; both are taken through the release's public recodings (`view`), so a predicate or
/// a neighbour search compares values on the release's scale. A question that fails is
/// recorded in `failures` and the others kept.
pub(super) fn run_questions(
    exp: &Experiment,
    run: &Run,
    (original, control, released): (&Table, &Table, &Table),
    view: impl Fn(&Table) -> Result<Table, RunnerError>,
    failures: &mut Vec<FailureRecord>,
) -> Result<Vec<QuestionRecord>, RunnerError> {
    if exp.questions.is_empty() {
        return Ok(Vec::new());
    }
    let original = on_released_columns(&view(original)?, released)?;
    let control = on_released_columns(&view(control)?, released)?;
    let source_name = exp.path.file_name().map_or_else(
        || exp.path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    let mut out = Vec::new();
    for q in &exp.questions {
        let seed = derive_seed(exp.seed, &run.key, &format!("question-{}", q.name));
        match intruder::questions::ask(
            q.question,
            &q.params,
            &source_name,
            (&original, &control, released),
            seed,
        ) {
            Ok(answer) => out.push(QuestionRecord {
                name: q.name.clone(),
                method: q.question.name().to_string(),
                report: answer.report(q.name.clone()),
                warnings: answer.warnings().to_vec(),
            }),
            Err(e) => failures.push(FailureRecord {
                stage: "question".into(),
                name: q.name.clone(),
                message: e.to_string(),
            }),
        }
    }
    Ok(out)
}
