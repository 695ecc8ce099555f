//! EM for the Fellegi–Sunter mixture under conditional independence (Winkler 1988; Jaro 1989),
//! over the counts of agreement patterns: each pass is linear in the number of distinct
//! patterns, not of pairs.
//!
//! Model: a pair is a match with probability λ; given its class, comparison `k` falls in level
//! `l` with probability `m_k(l)` (match) or `u_k(l)` (non-match), independently over `k`. Null
//! levels (missing on either side) carry no information and are left out of both products.
//!
//! E-step: `p(γ) = λ Π m / (λ Π m + (1−λ) Π u)`. M-step: `m_k(l) = Σ n_γ p(γ) [γ_k = l] /
//! Σ n_γ p(γ) [γ_k non-null]`, likewise `u` with `1 − p`, `λ = Σ n_γ p(γ) / Σ n_γ`. Fixed
//! probabilities stay put and the free levels share the rest; a free probability is kept in
//! `[PROBABILITY_FLOOR, 1 − PROBABILITY_FLOOR]` (a level EM sees (almost) never does not become
//! impossible: Splink gives a level it never observes in training m or u = 1e-6, the floor
//! here). Iteration stops when no
//! parameter moves by more than the tolerance (*converged*) or at the cap (*not converged*;
//! both are reported as they are).

use super::compare::unpack;

/// The smallest m or u probability a level is given by estimation, and `1 −` this the largest
/// (Splink's 1e-6 for a level not observed in training). One level then weighs at most
/// `log2((1 − 1e-6) / 1e-6) ≈ ±19.93` bits.
pub const PROBABILITY_FLOOR: f64 = 1e-6;

/// `p` kept within `[PROBABILITY_FLOOR, 1 − PROBABILITY_FLOOR]`.
pub fn clamp_probability(p: f64) -> f64 {
    p.clamp(PROBABILITY_FLOOR, 1.0 - PROBABILITY_FLOOR)
}

/// The shape of the comparisons: number of levels and the null level of each.
#[derive(Debug, Clone, PartialEq)]
pub struct Layout {
    /// Levels per comparison.
    pub levels: Vec<usize>,
    /// The null level of each comparison, if any.
    pub null: Vec<Option<usize>>,
}

/// m or u probabilities, per comparison and level (null levels hold 1: they cancel).
pub type Table2 = Vec<Vec<f64>>;

/// EM settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EmOptions {
    /// Iteration cap (≥ 1).
    pub max_iter: usize,
    /// Stop when no parameter moves by more than this.
    pub tolerance: f64,
    /// Keep every u fixed at its starting value (Splink's default when u comes from random
    /// sampling).
    pub fix_u: bool,
    /// Upper bound on the match share λ among the pairs. When each intruder record has at most
    /// one true match, λ ≤ min(n_I, n_R) / pairs; without the bound EM can drift onto a
    /// larger latent class (e.g. "same birth year") when the keys are weak. 1 for none.
    pub lambda_max: f64,
}

/// The outcome of EM.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EmReport {
    /// m probabilities.
    pub m: Table2,
    /// u probabilities (among the pairs EM was run on).
    pub u: Table2,
    /// Share of matches among the pairs EM was run on.
    pub lambda: f64,
    /// Iterations run.
    pub iterations: usize,
    /// Whether the tolerance was reached before the cap.
    pub converged: bool,
    /// Largest parameter change of the last iteration.
    pub last_change: f64,
    /// λ after each iteration.
    pub lambda_history: Vec<f64>,
    /// Largest parameter change (m, u or λ) of each iteration: EM's convergence trace.
    pub change_history: Vec<f64>,
}

/// Runs EM on pattern counts `(code, count)`; `fixed_m`/`fixed_u` hold the levels whose
/// probabilities must not move.
#[allow(clippy::too_many_arguments)]
pub fn estimate(
    counts: &[(u64, u64)],
    layout: &Layout,
    start_m: &Table2,
    start_u: &Table2,
    start_lambda: f64,
    fixed_m: &[Vec<Option<f64>>],
    fixed_u: &[Vec<Option<f64>>],
    opts: &EmOptions,
) -> EmReport {
    let k = layout.levels.len();
    let mut m = start_m.clone();
    let mut u = start_u.clone();
    let mut lambda = start_lambda.clamp(1e-12, 1.0 - 1e-12);
    let total: f64 = counts.iter().map(|c| c.1 as f64).sum();
    let mut report = EmReport {
        m: m.clone(),
        u: u.clone(),
        lambda,
        iterations: 0,
        converged: false,
        last_change: f64::NAN,
        lambda_history: Vec::new(),
        change_history: Vec::new(),
    };
    if total == 0.0 {
        return report;
    }
    let mut levels_of = vec![0usize; k];
    for it in 0..opts.max_iter {
        let mut sm: Table2 = layout.levels.iter().map(|&l| vec![0.0; l]).collect();
        let mut su: Table2 = sm.clone();
        let mut matches = 0.0f64;
        for &(code, n) in counts {
            let (mut pm, mut pu) = (lambda, 1.0 - lambda);
            for (c, lv) in levels_of.iter_mut().enumerate() {
                let l = unpack(code, c);
                *lv = l;
                if layout.null[c] == Some(l) {
                    continue;
                }
                pm *= m[c][l];
                pu *= u[c][l];
            }
            let p = if pm + pu > 0.0 { pm / (pm + pu) } else { 0.0 };
            let (wm, wu) = (n as f64 * p, n as f64 * (1.0 - p));
            matches += wm;
            for (c, &l) in levels_of.iter().enumerate() {
                sm[c][l] += wm;
                su[c][l] += wu;
            }
        }
        let mut change = 0.0f64;
        let update =
            |old: &mut Table2, sums: &Table2, fixed: &[Vec<Option<f64>>], change: &mut f64| {
                for c in 0..k {
                    let null = layout.null[c];
                    let fixed_sum: f64 = fixed[c].iter().flatten().sum();
                    let free_total: f64 = (0..layout.levels[c])
                        .filter(|&l| Some(l) != null && fixed[c][l].is_none())
                        .map(|l| sums[c][l])
                        .sum();
                    for l in 0..layout.levels[c] {
                        if Some(l) == null {
                            continue;
                        }
                        let new = match fixed[c][l] {
                            Some(v) => v,
                            None if free_total > 0.0 => {
                                clamp_probability((1.0 - fixed_sum) * sums[c][l] / free_total)
                            }
                            None => old[c][l],
                        };
                        *change = change.max((new - old[c][l]).abs());
                        old[c][l] = new;
                    }
                }
            };
        update(&mut m, &sm, fixed_m, &mut change);
        if !opts.fix_u {
            update(&mut u, &su, fixed_u, &mut change);
        }
        let new_lambda = (matches / total)
            .clamp(1e-12, 1.0 - 1e-12)
            .min(opts.lambda_max.max(1e-12));
        change = change.max((new_lambda - lambda).abs());
        lambda = new_lambda;
        report.iterations = it + 1;
        report.last_change = change;
        report.lambda_history.push(lambda);
        report.change_history.push(change);
        if change < opts.tolerance {
            report.converged = true;
            break;
        }
    }
    report.m = m;
    report.u = u;
    report.lambda = lambda;
    report
}
