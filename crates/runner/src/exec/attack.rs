//! Step 4 of a run: every attack on the released file, scored by the evaluator.

use std::collections::HashSet;

use intruder_attack::{EvalOptions, KeyMap, Sensitive, TruthIds, attack_by_name, evaluate};
use intruder_data::{Table, Truth};
use serde_json::{Value, json};

use super::{ORIGINAL_SUFFIX, text_ids};
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
        let mut cfg = a.config.clone();
        cfg.seed = derive_seed(exp.seed, &run.id, &format!("attack-{}", a.name));
        let attack = (attack_by_name(&a.method)?.build)(&cfg)?;
        let map: Vec<(String, String)> = exp
            .scenario
            .key_map
            .iter()
            .filter(|(k, _)| a.keys.contains(k))
            .cloned()
            .collect();
        let keys = KeyMap::with_map(&a.keys, &map)?;
        let (rel, rel_truth) = if a.twins_only {
            let ic = intruder_truth.column(&truth_ids.intruder).ok_or_else(|| {
                RunnerError::Invalid(format!(
                    "twins_only needs the intruder's truth column '{}'",
                    truth_ids.intruder
                ))
            })?;
            let have: HashSet<String> = text_ids(ic).into_iter().flatten().collect();
            let rc = masked_truth.column(&truth_ids.released).ok_or_else(|| {
                RunnerError::Invalid(format!(
                    "twins_only needs the released truth column '{}'",
                    truth_ids.released
                ))
            })?;
            let keep: Vec<usize> = text_ids(rc)
                .iter()
                .enumerate()
                .filter(|(_, id)| id.as_ref().is_some_and(|x| have.contains(x)))
                .map(|(i, _)| i)
                .collect();
            (masked.take(&keep), masked_truth.take(&keep))
        } else {
            (masked.clone(), masked_truth.clone())
        };
        let linkage = attack.link(intruder, &rel, &keys)?;
        let opts = EvalOptions {
            truth: Some(truth_ids.clone()),
            sensitive: a.sensitive.as_ref().map(|s| Sensitive {
                released: s.clone(),
                truth: format!("{s}{ORIGINAL_SUFFIX}"),
                tolerance: a.tolerance,
            }),
            threshold: a.threshold,
            seed: derive_seed(exp.seed, &run.id, &format!("ties-{}", a.name)),
        };
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
