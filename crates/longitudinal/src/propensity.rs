//! Propensity scores `e_i = P(z_i = 1 | x_i, y_i^(1..T))` (Mitra eq. 2; Rosenbaum & Rubin
//! 1983) by maximum-likelihood logistic regression (`linfa-logistic`, no penalty), and greedy
//! nearest-propensity matching without replacement.

use std::collections::BTreeSet;

use linfa::prelude::*;
use linfa_logistic::LogisticRegression;
use ndarray::{Array1, Array2};

use crate::error::PanelError;

/// Fits a logistic regression of `z` on the design columns (each standardised on the data, so
/// the optimiser sees comparable scales; the fitted probabilities do not depend on it) and
/// returns `P(z = 1)` for every row.
pub fn propensity(cols: &[Vec<f64>], z: &[bool]) -> Result<Vec<f64>, PanelError> {
    let n = z.len();
    let ones = z.iter().filter(|&&b| b).count();
    if ones == 0 || ones == n {
        return Err(PanelError::Model(format!(
            "propensity model: the indicator is {} for all {n} records; both groups are needed",
            u8::from(ones == n)
        )));
    }
    // Drop constant columns (e.g. a level absent from the modelled rows).
    let kept: Vec<&Vec<f64>> = cols
        .iter()
        .filter(|c| c.iter().any(|&v| v != c[0]))
        .collect();
    let p = kept.len();
    let mut x = Array2::<f64>::zeros((n, p.max(1)));
    for (j, c) in kept.iter().enumerate() {
        let m = c.iter().sum::<f64>() / n as f64;
        let s = (c.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n as f64).sqrt();
        for i in 0..n {
            x[[i, j]] = (c[i] - m) / s;
        }
    }
    let y: Array1<usize> = z.iter().map(|&b| usize::from(b)).collect();
    let ds = Dataset::new(x.clone(), y);
    let model = LogisticRegression::default()
        .alpha(0.0)
        .max_iterations(200)
        .fit(&ds)
        .map_err(|e| PanelError::Model(format!("propensity model: {e}")))?;
    let probs = model.predict_probabilities(&x);
    // predict_probabilities gives P(labels().pos.class), which may be class 0.
    let pos_is_one = model.labels().pos.class == 1;
    Ok(probs
        .iter()
        .map(|&q| if pos_is_one { q } else { 1.0 - q })
        .collect())
}

/// A key ordering `f64` like `total_cmp`.
fn key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 { !b } else { b | (1 << 63) }
}

/// Greedy nearest-neighbour matching on a score without replacement: for each of `selected`
/// in the order given, the unused donor `d` minimising `(|score[s] − score[d]|, d)`. Returns
/// `(selected, donor)` pairs. Errors when donors run out. O((k + m) log m).
pub fn nearest_partners(
    selected: &[usize],
    donors: &[usize],
    score: &[f64],
) -> Result<Vec<(usize, usize)>, PanelError> {
    if donors.len() < selected.len() {
        return Err(PanelError::Params(vec![format!(
            "{} households to alter but only {} partners: partners are used once",
            selected.len(),
            donors.len()
        )]));
    }
    let mut pool: BTreeSet<(u64, usize)> = donors.iter().map(|&d| (key(score[d]), d)).collect();
    let mut out = Vec::with_capacity(selected.len());
    for &s in selected {
        let ks = key(score[s]);
        // Largest score ≤ s: its smallest index; smallest score ≥ s: its smallest index.
        let below = pool
            .range(..(ks, usize::MAX))
            .next_back()
            .map(|&(kv, _)| *pool.range((kv, 0)..).next().expect("present"));
        let above = pool.range((ks, 0)..).next().copied();
        let pick = match (below, above) {
            (Some(b), Some(a)) => {
                let db = (score[s] - score[b.1]).abs();
                let da = (score[a.1] - score[s]).abs();
                if db < da || (db == da && b.1 < a.1) {
                    b
                } else {
                    a
                }
            }
            (Some(b), None) => b,
            (None, Some(a)) => a,
            (None, None) => unreachable!("donors checked"),
        };
        pool.remove(&pick);
        out.push((s, pick.1));
    }
    Ok(out)
}

/// The same matching by a plain scan (reference for tests).
pub fn nearest_partners_naive(
    selected: &[usize],
    donors: &[usize],
    score: &[f64],
) -> Vec<(usize, usize)> {
    let mut used = vec![false; donors.len()];
    let mut out = Vec::new();
    for &s in selected {
        let mut best: Option<(f64, usize, usize)> = None;
        for (k, &d) in donors.iter().enumerate() {
            if used[k] {
                continue;
            }
            let dist = (score[s] - score[d]).abs();
            if best.is_none_or(|(bd, bi, _)| dist < bd || (dist == bd && d < bi)) {
                best = Some((dist, d, k));
            }
        }
        if let Some((_, d, k)) = best {
            used[k] = true;
            out.push((s, d));
        }
    }
    out
}
