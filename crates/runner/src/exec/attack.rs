//! Step 4 of a run: every attack on the released file, scored by the evaluator.

use intruder_attack::{KeyMap, Knowledge, TruthIds, evaluate, twin_rows};
use intruder_data::{Table, Truth};
use serde_json::{Value, json};

use super::ORIGINAL_SUFFIX;
use crate::RunnerError;
use crate::plan::{Run, derive_seed};
use crate::spec::Experiment;

pub(super) fn run_attacks(
    exp: &Experiment,
    run: &Run,
    intruder: &Table,
    intruder_truth: &Truth,
    masked: &Table,
    masked_truth: &Truth,
) -> Result<Vec<Value>, RunnerError> {
    let truth_ids = TruthIds {
        intruder: exp.data.truth_intruder.clone(),
        released: exp.data.truth.clone(),
    };
    let mut attacks = Vec::new();
    for a in &exp.attacks {
        let seed = derive_seed(exp.seed, &run.id, &format!("attack-{}", a.name));
        let keys = KeyMap::with_map(&a.keys, &a.key_map)?;
        let (rel, rel_truth) = if a.twins_only {
            let keep = twin_rows(intruder, intruder_truth, masked, masked_truth, &truth_ids)?;
            (masked.take(&keep), masked_truth.take(&keep))
        } else {
            (masked.clone(), masked_truth.clone())
        };
        // The attack sees the intruder's key columns only.
        let knowledge = Knowledge::new(intruder, keys)?;
        let linkage = a.configured.attack.link(&knowledge, &rel, seed)?.linkage;
        let opts = a.configured.eval_options(
            Some(truth_ids.clone()),
            a.sensitive
                .as_ref()
                .map(|s| format!("{s}{ORIGINAL_SUFFIX}")),
            derive_seed(exp.seed, &run.id, &format!("ties-{}", a.name)),
        );
        let ev = evaluate(&linkage, intruder, intruder_truth, &rel, &rel_truth, &opts)?;
        let rec = &ev.records;
        let records = json!({
            "twin": rec.iter().map(|r| u8::from(r.twin_row.is_some())).collect::<Vec<_>>(),
            "candidates": rec.iter().map(|r| r.candidates).collect::<Vec<_>>(),
            "best_ties": rec.iter().map(|r| r.best_ties).collect::<Vec<_>>(),
            "twin_rank": rec.iter().map(|r| r.twin_rank.unwrap_or(0)).collect::<Vec<_>>(),
            "correct": rec.iter().map(|r| u8::from(r.correct)).collect::<Vec<_>>(),
            "p": rec.iter().map(|r| r.p).collect::<Vec<_>>(),
        });
        let mut evaluation = serde_json::to_value(&ev)?;
        if let Some(o) = evaluation.as_object_mut() {
            o.remove("pr_curve");
        }
        attacks.push(json!({
            "name": a.name,
            "method": a.method,
            "released_records": rel.nrows(),
            "evaluation": evaluation,
            "records": records,
        }));
    }
    Ok(attacks)
}
