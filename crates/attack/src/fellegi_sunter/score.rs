//! Prediction: the weight of every level `log2(m / u)`, the prior `log2(λ / (1 − λ))`, the
//! term-frequency adjustments, and the [`Scorer`] that gives every candidate pair its match
//! weight from its pattern (module docs of [`fellegi_sunter`](super), step 4).

use super::compare::Prepared;
use super::em::{self, EmReport, Layout, Table2};
use super::kernel::Scorer;
use super::tf::{TermFrequencies, ValueCounts};
use super::{probability_of_weight, weight_of_probability};

/// Weights and the scorer.
pub(crate) struct Scoring {
    /// `log2(m / u)` per comparison and level (0 for the null level).
    pub level_weights: Vec<Vec<f64>>,
    /// λ: probability that two random records match.
    pub lambda: f64,
    /// `log2(λ / (1 − λ))`.
    pub prior_weight: f64,
    /// The threshold's weight.
    pub threshold_weight: f64,
    /// Pattern weights and term-frequency adjustments.
    pub scorer: Scorer,
    /// E.g. that no pair can reach the threshold.
    pub warnings: Vec<String>,
}

/// The weights of the fitted model; see the [module docs](self).
#[allow(clippy::too_many_arguments)]
pub(crate) fn score(
    threshold: f64,
    prepared: &[Prepared],
    values: &[ValueCounts],
    layout: &Layout,
    report: &EmReport,
    u_rand: &Table2,
    pattern_levels: &[Vec<u8>],
    n_pairs: usize,
    lambda_given: Option<f64>,
    (ni, nr): (usize, usize),
) -> Scoring {
    let k = prepared.len();
    // m and u kept within the probability floor, so that no level weighs more than
    // ±log2((1 − 1e-6) / 1e-6) ≈ 19.93.
    let level_weights: Vec<Vec<f64>> = (0..k)
        .map(|c| {
            (0..layout.levels[c])
                .map(|l| {
                    if layout.null[c] == Some(l) {
                        0.0
                    } else {
                        (em::clamp_probability(report.m[c][l])
                            / em::clamp_probability(u_rand[c][l]))
                        .log2()
                    }
                })
                .collect()
        })
        .collect();
    // λ from the deterministic rules when given (Splink's recipe), else from EM's share of
    // matches among the candidates.
    let matches = report.lambda * n_pairs as f64;
    let lambda = lambda_given
        .unwrap_or(matches / (ni as f64 * nr as f64))
        .clamp(1e-300, 1.0 - 1e-12);
    let prior_weight = weight_of_probability(lambda);
    let scorer = scorer(
        prepared,
        values,
        &level_weights,
        u_rand,
        pattern_levels,
        prior_weight,
    );
    // No pair can be declared when even the best levels everywhere stay under the threshold.
    let thr_w = weight_of_probability(threshold);
    let mut warnings = Vec::new();
    let best = best_reachable(
        prepared,
        values,
        layout,
        &level_weights,
        &scorer,
        prior_weight,
    );
    if best.total < thr_w {
        warnings.push(format!(
            "no pair can be declared a link: the largest match weight any pair can reach is {:+.3} (match probability {:.3e}), below the threshold's weight {thr_w:+.3} (match probability {threshold}); prior weight {prior_weight:+.3} (lambda {lambda:.3e}), best level of each comparison: {}. Lower the threshold, or check the m and u of the levels above",
            best.total,
            probability_of_weight(best.total),
            best.parts.join(", ")
        ));
    }
    Scoring {
        level_weights,
        lambda,
        prior_weight,
        threshold_weight: thr_w,
        scorer,
        warnings,
    }
}

/// The scorer: per pattern `prior + Σ level weights`, and the term-frequency adjustment of the
/// exact level by the intruder's value id.
fn scorer(
    prepared: &[Prepared],
    values: &[ValueCounts],
    level_weights: &[Vec<f64>],
    u_rand: &Table2,
    pattern_levels: &[Vec<u8>],
    prior_weight: f64,
) -> Scorer {
    let k = prepared.len();
    let exact: Vec<Option<usize>> = prepared.iter().map(|p| p.exact_level()).collect();
    let tf: Vec<Option<Vec<f64>>> = prepared
        .iter()
        .enumerate()
        .map(|(c, p)| {
            let l = exact[c]?;
            p.spec.term_frequency.then(|| {
                let t = TermFrequencies::of_counts(&values[c]);
                let u = em::clamp_probability(u_rand[c][l]);
                (0..p.dict.len() as u32)
                    .map(|id| t.adjustment(id, u))
                    .collect()
            })
        })
        .collect();
    Scorer {
        base: pattern_levels
            .iter()
            .map(|lv| {
                let mut w = prior_weight;
                for (c, &l) in lv.iter().enumerate() {
                    w += level_weights[c][l as usize];
                }
                w
            })
            .collect(),
        tf_mask: pattern_levels
            .iter()
            .map(|lv| {
                (0..k)
                    .filter(|&c| tf[c].is_some() && exact[c] == Some(lv[c] as usize))
                    .fold(0u16, |m, c| m | 1 << c)
            })
            .collect(),
        a_ids: prepared
            .iter()
            .enumerate()
            .map(|(c, p)| {
                if tf[c].is_some() {
                    p.a.clone()
                } else {
                    Vec::new()
                }
            })
            .collect(),
        tf,
    }
}

/// The largest weight a pair can reach: the prior plus, per comparison, its best level (the
/// null level counts, weight 0), the exact level with the largest term-frequency adjustment of
/// a value both files hold.
struct Reachable {
    total: f64,
    parts: Vec<String>,
}

fn best_reachable(
    prepared: &[Prepared],
    values: &[ValueCounts],
    layout: &em::Layout,
    level_weights: &[Vec<f64>],
    scorer: &Scorer,
    prior_weight: f64,
) -> Reachable {
    let mut total = prior_weight;
    let mut parts = Vec::new();
    for (c, p) in prepared.iter().enumerate() {
        let adj = |l: usize| -> f64 {
            match &scorer.tf[c] {
                Some(t) if p.exact_level() == Some(l) => values[c]
                    .a
                    .iter()
                    .zip(&values[c].b)
                    .zip(t)
                    .filter(|((x, y), _)| **x > 0 && **y > 0)
                    .map(|(_, &w)| w)
                    .fold(f64::NEG_INFINITY, f64::max),
                _ => 0.0,
            }
        };
        let (l, w) = (0..layout.levels[c])
            .map(|l| {
                let a = adj(l);
                (l, level_weights[c][l] + if a.is_finite() { a } else { 0.0 })
            })
            .fold((0, f64::NEG_INFINITY), |b, x| if x.1 > b.1 { x } else { b });
        total += w;
        parts.push(format!(
            "{} {} {w:+.3}",
            p.spec.column,
            p.spec.levels[l].label()
        ));
    }
    Reachable { total, parts }
}
