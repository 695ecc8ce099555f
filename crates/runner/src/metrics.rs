//! Metrics computed from the stored raw outcome of a run ([`RunRecord`]), so a new metric needs
//! no rerun: add it here and run `intruder run FILE` again (stored runs are reused). Every
//! metric carries its unit.

use intruder_data::report::{Report, Unit};

use crate::record::{AttackRecord, Metric, RunRecord, Scope};

/// Every metric of one run, in a fixed order: `masking.*`, `intruder.*`, then `<attack>.*`,
/// `risk.<name>.*` and `utility.*`.
pub fn metrics(run: &RunRecord) -> Vec<Metric> {
    let m = &run.masking;
    let mut out = vec![
        Metric::new(Scope::Masking, "rows_in", m.rows_in as f64, Unit::Count),
        Metric::new(Scope::Masking, "rows_out", m.rows_out as f64, Unit::Count),
        Metric::new(
            Scope::Masking,
            "cells_changed",
            m.cells_changed as f64,
            Unit::Count,
        ),
        Metric::new(
            Scope::Masking,
            "suppressions",
            m.suppressions as f64,
            Unit::Count,
        ),
        Metric::new(
            Scope::Masking,
            "records_changed",
            m.records_changed as f64,
            Unit::Count,
        ),
    ];
    if m.rows_out > 0 {
        out.push(Metric::new(
            Scope::Masking,
            "records_changed_share",
            m.records_changed as f64 / m.rows_out as f64,
            Unit::Proportion,
        ));
    }
    out.push(Metric::new(
        Scope::Intruder,
        "records",
        run.intruder.records as f64,
        Unit::Count,
    ));
    for a in &run.attacks {
        out.extend(attack_metrics(a));
    }
    for r in &run.risk {
        out.extend(report_metrics(&r.report, || Scope::Risk(r.name.clone())));
    }
    for u in &run.utility {
        out.extend(report_metrics(&u.report, || Scope::Utility));
    }
    out
}

/// The numeric figures of a report (a bool counts as 0/1), with their units.
fn report_metrics(report: &Report, scope: impl Fn() -> Scope) -> Vec<Metric> {
    report
        .figures
        .iter()
        .filter_map(|f| {
            f.as_f64()
                .map(|x| Metric::new(scope(), f.name.clone(), x, f.unit))
        })
        .collect()
}

/// An attack's figures, recomputed from its per-record outcomes (METHODS.md §2): twins,
/// correct matches and their rate, Mitra's `Σ 1/c_i` over records whose twin is among the tied
/// best, `c_i = 1` and `c_i ≤ 2` counts, rank-1 and in-candidates rates; precision, recall and
/// attribute disclosure come from the evaluator's figures.
pub fn attack_metrics(a: &AttackRecord) -> Vec<Metric> {
    let r = &a.records;
    let n = r.twin.len();
    let twins = r.twin.iter().filter(|&&t| t).count();
    let n_correct = r.correct.iter().filter(|&&c| c).count();
    let mut expected = 0.0;
    let mut unique = 0usize;
    let mut le2 = 0usize;
    let mut rank1 = 0usize;
    let mut in_cand = 0usize;
    for i in 0..n {
        let rank = r.twin_rank.get(i).copied().unwrap_or(0);
        if rank == 1 {
            rank1 += 1;
            let c = r.best_ties.get(i).copied().unwrap_or(1).max(1);
            expected += 1.0 / c as f64;
            if c == 1 {
                unique += 1;
            }
            if c <= 2 {
                le2 += 1;
            }
        }
        if rank >= 1 {
            in_cand += 1;
        }
    }
    let with_cand = r.candidates.iter().filter(|&&c| c > 0).count();
    let scope = || Scope::Attack(a.name.clone());
    let count = |k: &str, x: f64| Metric::new(scope(), k, x, Unit::Count);
    let share = |k: &str, x: f64| Metric::new(scope(), k, x, Unit::Proportion);
    let mut out = vec![
        count("intruder_records", n as f64),
        count("twins", twins as f64),
        count("with_candidates", with_cand as f64),
        count("correct_matches", n_correct as f64),
    ];
    if twins > 0 {
        let t = twins as f64;
        out.push(share("correct_match_rate", n_correct as f64 / t));
        out.push(share("expected_rate", expected / t));
        out.push(share("rank1_rate", rank1 as f64 / t));
        out.push(share("in_candidates_rate", in_cand as f64 / t));
    }
    out.push(count("expected_correct", expected));
    out.push(count("unique_correct", unique as f64));
    out.push(count("le2_correct", le2 as f64));
    out.push(count("released_records", a.released_records as f64));
    for (k, x) in [
        ("precision", a.precision),
        ("recall", a.recall),
        ("f1", a.f1),
    ] {
        if let Some(x) = x {
            out.push(share(k, x));
        }
    }
    out.push(count("declared", a.declared as f64));
    if let Some(x) = a.attribute_a {
        out.push(count("attribute_A", x as f64));
    }
    if let Some(x) = a.attribute_mean_p {
        out.push(share("attribute_mean_p", x));
    }
    out
}

/// The figures every attack produces, with their units (for checking `[report]` names and the
/// glossary before any run).
pub const ATTACK_FIGURES: &[(&str, Unit)] = &[
    ("intruder_records", Unit::Count),
    ("twins", Unit::Count),
    ("with_candidates", Unit::Count),
    ("correct_matches", Unit::Count),
    ("correct_match_rate", Unit::Proportion),
    ("expected_rate", Unit::Proportion),
    ("rank1_rate", Unit::Proportion),
    ("in_candidates_rate", Unit::Proportion),
    ("expected_correct", Unit::Count),
    ("unique_correct", Unit::Count),
    ("le2_correct", Unit::Count),
    ("released_records", Unit::Count),
    ("precision", Unit::Proportion),
    ("recall", Unit::Proportion),
    ("f1", Unit::Proportion),
    ("declared", Unit::Count),
    ("attribute_A", Unit::Count),
    ("attribute_mean_p", Unit::Proportion),
];

/// The masking and intruder figures.
pub const MASKING_FIGURES: &[&str] = &[
    "masking.rows_in",
    "masking.rows_out",
    "masking.cells_changed",
    "masking.suppressions",
    "masking.records_changed",
    "masking.records_changed_share",
    "intruder.records",
];
