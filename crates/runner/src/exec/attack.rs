//! Step 4 of a run: every attack on the released file, scored by the evaluator.

use std::borrow::Cow;

use intruder_attack::{KeyMap, Linked};
use intruder_eval::{EvalOptions, Evaluation, Labelled, TruthIds, evaluate};

use super::ORIGINAL_SUFFIX;
use crate::RunnerError;
use crate::hash::derive_seed;
use crate::plan::Run;
use crate::record::{AttackOutcomes, AttackRecord, EvaluatorCounts, FailureRecord};
use crate::spec::{AttackSpec, Experiment};

/// One attack linked and evaluated: the release it linked to, its linkage (and model), its
/// keys and the evaluator's outcome.
pub(super) struct Attacked<'m> {
    /// The release linked to: the masked file, or its twins only (`twins_only`).
    pub released: Cow<'m, Labelled>,
    /// The attack's keys.
    pub keys: KeyMap,
    /// What the attack returned.
    pub linked: Linked,
    /// The evaluator's figures and per-record outcomes.
    pub evaluation: Evaluation,
}

/// Runs attack `a` of `run` on `masked` with the intruder's key columns (the attack sees
/// nothing else) and scores its linkage with the evaluator, with the run's seeds.
pub(super) fn link_and_evaluate<'m>(
    exp: &Experiment,
    run: &Run,
    a: &AttackSpec,
    intruder: &Labelled,
    masked: &'m Labelled,
) -> Result<Attacked<'m>, RunnerError> {
    let truth_ids = TruthIds {
        intruder: exp.data.truth_intruder.clone(),
        released: exp.data.truth.clone(),
    };
    let seed = derive_seed(exp.seed, &run.key, &format!("attack-{}", a.name));
    let keys = KeyMap::with_map(&a.keys, &a.key_map)?;
    let rel = if a.twins_only {
        Cow::Owned(masked.twins_only(intruder, &truth_ids)?)
    } else {
        Cow::Borrowed(masked)
    };
    // The attack sees the intruder's key columns and the released table only.
    let knowledge = intruder.knowledge(keys.clone())?;
    let linked = intruder_engine::link_tables(
        &exp.engine,
        a.configured.attack.as_ref(),
        &knowledge,
        rel.table(),
        seed,
    )?;
    let opts = EvalOptions::for_attack(
        &a.configured,
        Some(truth_ids),
        a.sensitive
            .as_ref()
            .map(|s| format!("{s}{ORIGINAL_SUFFIX}")),
        derive_seed(exp.seed, &run.key, &format!("ties-{}", a.name)),
    );
    let evaluation = evaluate(&linked.linkage, intruder, &rel, &opts)?;
    Ok(Attacked {
        released: rel,
        keys,
        linked,
        evaluation,
    })
}

/// Per intruder record, whether the evaluator counts a declared link: the evaluator's rule
/// (`evaluate`), a chosen candidate whose best score reaches the threshold. An error when the
/// recount differs from the evaluator's `declared` (attack `name`).
pub(super) fn declared_links(ev: &Evaluation, name: &str) -> Result<Vec<bool>, RunnerError> {
    let thr = ev.threshold.unwrap_or(f64::NEG_INFINITY);
    let declared: Vec<bool> = ev
        .records
        .iter()
        .map(|r| r.chosen_row.is_some() && r.best_score >= thr)
        .collect();
    let n_declared = declared.iter().filter(|&&d| d).count();
    if n_declared != ev.declared {
        return Err(RunnerError::Invalid(format!(
            "attack '{name}': {n_declared} declared links recounted from the records, the evaluator counted {}",
            ev.declared
        )));
    }
    Ok(declared)
}

pub(super) fn run_attacks(
    exp: &Experiment,
    run: &Run,
    intruder: &Labelled,
    masked: &Labelled,
    failures: &mut Vec<FailureRecord>,
) -> Result<Vec<AttackRecord>, RunnerError> {
    let mut attacks = Vec::new();
    let one = |a: &AttackSpec| -> Result<AttackRecord, RunnerError> {
        let Attacked {
            released: rel,
            linked,
            evaluation: ev,
            ..
        } = link_and_evaluate(exp, run, a, intruder, masked)?;
        let mut model = linked.model.map(|m| m.to_json());
        if let Some(m) = &mut model {
            crate::linkage::attach_threshold_curve(m, &ev.pr_curve);
        }
        let rec = &ev.records;
        let declared = declared_links(&ev, &a.name)?;
        let records = AttackOutcomes {
            twin: rec.iter().map(|r| r.twin_row.is_some()).collect(),
            candidates: rec.iter().map(|r| r.candidates as u32).collect(),
            best_ties: rec.iter().map(|r| r.best_ties as u32).collect(),
            twin_rank: rec.iter().map(|r| r.twin_rank.unwrap_or(0)).collect(),
            correct: rec.iter().map(|r| r.correct).collect(),
            declared,
            p: rec.iter().map(|r| r.p).collect(),
        };
        Ok(AttackRecord {
            name: a.name.clone(),
            method: a.method.clone(),
            released_records: rel.nrows(),
            declared: ev.declared,
            threshold: ev.threshold,
            precision: ev.precision,
            recall: ev.recall,
            f1: ev.f1,
            attribute_a: ev.attribute_a,
            attribute_mean_p: ev.attribute.as_ref().map(|x| x.mean_p),
            notes: ev.notes.clone(),
            evaluator: EvaluatorCounts {
                twins: ev.twins,
                with_candidates: ev.with_candidates,
                correct_matches: ev.correct_matches,
                expected_correct: ev.expected_correct,
                unique_correct: ev.unique_correct,
                le2_correct: ev.le2_correct,
            },
            records,
            model,
            warnings: ev.warnings.clone(),
        })
    };
    // An attack that fails is recorded and the others kept.
    for a in &exp.attacks {
        match one(a) {
            Ok(r) => attacks.push(r),
            Err(e) => failures.push(FailureRecord {
                stage: "attack".into(),
                name: a.name.clone(),
                message: e.to_string(),
            }),
        }
    }
    Ok(attacks)
}
