//! Explanation: the fitted model as a report (m, u and weight of every level, with how u was
//! found), the run's notes, the self-match weights behind Splink's unlinkables chart and the
//! borderline link's waterfall.

use std::collections::BTreeMap;

use super::compare::Prepared;
use super::em::Layout;
use super::fit::Fitted;
use super::kernel::Scorer;
use super::report::{ComparisonReport, LevelReport};
use super::ustats::UEstimate;
use super::{FsParams, UPlan};

/// Every comparison's levels with m, u (random or exact pairs), u among the candidates, weight
/// and number of candidate pairs.
pub(crate) fn comparison_reports(
    prepared: &[Prepared],
    layout: &Layout,
    fitted: &Fitted,
    u: &UEstimate,
    level_weights: &[Vec<f64>],
) -> Vec<ComparisonReport> {
    prepared
        .iter()
        .enumerate()
        .map(|(c, p)| ComparisonReport {
            column: p.spec.column.clone(),
            released: p.released_column.clone(),
            u_from_frequencies: u.from_frequencies[c],
            levels: p
                .spec
                .levels
                .iter()
                .enumerate()
                .map(|(l, lev)| {
                    let null = layout.null[c] == Some(l);
                    LevelReport {
                        level: lev.label(),
                        m: (!null).then_some(fitted.report.m[c][l]),
                        u: (!null).then_some(u.u[c][l]),
                        u_candidates: (!null).then_some(fitted.report.u[c][l]),
                        weight: level_weights[c][l],
                        pairs: fitted.pattern_pairs[c][l],
                        fixed: lev.m.is_some() || lev.u.is_some(),
                        term_frequency: p.spec.term_frequency && p.exact_level() == Some(l),
                    }
                })
                .collect(),
        })
        .collect()
}

/// The figures of a run, as the attack's notes.
#[allow(clippy::too_many_arguments)]
pub(crate) fn notes(
    params: &FsParams,
    plan: UPlan,
    u: &UEstimate,
    fitted: &Fitted,
    patterns: usize,
    per_rule: &[usize],
    (n_pairs, links): (usize, usize),
    (lambda, prior_weight, thr_w): (f64, f64, f64),
) -> Vec<(String, f64)> {
    let report = &fitted.report;
    let mut notes = vec![
        ("candidate_pairs".to_string(), n_pairs as f64),
        ("u_pairs".into(), plan.pairs as f64),
        ("u_every_pair".into(), f64::from(u8::from(plan.every_pair))),
        (
            "u_from_frequencies".into(),
            u.from_frequencies.iter().filter(|&&x| x).count() as f64,
        ),
        ("u_sampled_pairs".into(), u.sampled_pairs as f64),
        ("agreement_patterns".into(), patterns as f64),
        ("em_sessions".into(), fitted.sessions.len() as f64),
        ("em_iterations".into(), report.iterations as f64),
        ("em_converged".into(), f64::from(u8::from(report.converged))),
        ("lambda_candidates".into(), report.lambda),
        ("lambda".into(), lambda),
        ("prior_weight".into(), prior_weight),
        ("threshold_match_probability".into(), params.threshold),
        ("threshold_match_weight".into(), thr_w),
        ("links_at_threshold".into(), links as f64),
    ];
    for (r, n) in per_rule.iter().enumerate() {
        notes.push((format!("pairs_blocking_rule_{}", r + 1), *n as f64));
    }
    for (r, t) in fitted.sessions.iter().enumerate() {
        let s = r + 1;
        notes.push((format!("em_session_{s}_pairs"), t.pairs as f64));
        notes.push((format!("em_session_{s}_iterations"), t.iterations as f64));
        notes.push((
            format!("em_session_{s}_converged"),
            f64::from(u8::from(t.converged)),
        ));
        notes.push((format!("em_session_{s}_lambda"), t.lambda));
    }
    notes
}

/// The match weight of every intruder record against an exact copy of itself (Splink's
/// unlinkables), rounded to 0.01, with the number of records at each weight, ascending.
pub(crate) fn self_match_weights(
    prepared: &[Prepared],
    level_weights: &[Vec<f64>],
    scorer: &Scorer,
    prior_weight: f64,
    ni: usize,
) -> Vec<(f64, u64)> {
    use super::compare::MISSING;
    let mut by: BTreeMap<i64, u64> = BTreeMap::new();
    // A value's level against itself, once per distinct value (u8::MAX: not computed yet).
    let mut own: Vec<Vec<u8>> = prepared
        .iter()
        .map(|p| vec![u8::MAX; p.dict.len()])
        .collect();
    for i in 0..ni {
        let mut w = prior_weight;
        for (c, p) in prepared.iter().enumerate() {
            let x = p.a[i];
            let base = if x == MISSING {
                p.level_of_ids(x, x)
            } else {
                let cell = &mut own[c][x as usize];
                if *cell == u8::MAX {
                    *cell = p.level_of_ids(x, x);
                }
                *cell
            };
            let l = if p.reversed.is_empty() {
                base
            } else {
                let other = || p.reversed.iter().map(|r| r.a_other[i]);
                p.apply_reversed(base, x, other(), x, other())
            };
            w += level_weights[c][l as usize];
            if let Some(t) = &scorer.tf[c]
                && p.exact_level() == Some(l as usize)
            {
                w += t[x as usize];
            }
        }
        *by.entry((w * 100.0).round() as i64).or_insert(0) += 1;
    }
    by.into_iter().map(|(k, n)| (k as f64 / 100.0, n)).collect()
}
