//! Nearest neighbours over mixed-type columns, with anonymeter's distance
//! (`anonymeter.neighbors.mixed_types_kneighbors`, "inspired by Gower (1971)").
//!
//! Between a target `x` and a release record `y` over the auxiliary columns:
//! `d(x, y) = Σ_numeric |x_k − y_k| / range_k + Σ_categorical [x_k ≠ y_k]`, where `range_k` is
//! the column's range over the release and the targets together (1 when that range is 0).
//! Missing values count as anonymeter counts them: two missing numbers add 1; one missing number
//! puts the record behind every record at a finite distance; a missing category is one more
//! category (two missing add 0, as after anonymeter's label encoding).
//!
//! Unlike Gower's coefficient the sum is not divided by the number of columns (the order of the
//! neighbours does not change). Ties are broken at random (a seeded random key per release
//! record and search): anonymeter's `argsort` (an unstable introsort) orders tied records in no
//! defined way, and the lowest row number would favour the same release record in every
//! search — in linkability, both of a target's halves.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::coded::Coded;

/// The auxiliary columns of the release (the candidates) and of the targets (the queries),
/// numbers already divided by their range.
#[derive(Debug, Clone)]
pub(crate) struct Search {
    numbers: Vec<(Vec<f64>, Vec<f64>)>,
    codes: Vec<(Vec<u32>, Vec<u32>)>,
    n_candidates: usize,
    n_queries: usize,
}

impl Search {
    /// The search of the records `targets` of table `target` among every record of table
    /// `release`, over the columns `columns` (each coded over the same tables).
    pub(crate) fn new(
        columns: &[&Coded],
        release: usize,
        target: usize,
        targets: &[usize],
    ) -> Search {
        let mut numbers = Vec::new();
        let mut codes = Vec::new();
        let mut n_candidates = 0;
        for c in columns {
            match c {
                Coded::Numbers(v) => {
                    let candidates = &v[release];
                    let queries: Vec<f64> = targets.iter().map(|&r| v[target][r]).collect();
                    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
                    for &x in candidates.iter().chain(&queries) {
                        if !x.is_nan() {
                            lo = lo.min(x);
                            hi = hi.max(x);
                        }
                    }
                    let range = if hi > lo { hi - lo } else { 1.0 };
                    n_candidates = candidates.len();
                    numbers.push((
                        candidates.iter().map(|x| x / range).collect(),
                        queries.iter().map(|x| x / range).collect(),
                    ));
                }
                Coded::Codes(v) => {
                    n_candidates = v[release].len();
                    codes.push((
                        v[release].clone(),
                        targets.iter().map(|&r| v[target][r]).collect(),
                    ));
                }
            }
        }
        Search {
            numbers,
            codes,
            n_candidates,
            n_queries: targets.len(),
        }
    }

    /// The `k` nearest release records of every target, nearest first; ties are ordered by
    /// random keys drawn from `seed`.
    pub(crate) fn nearest(&self, k: usize, seed: u64) -> Vec<Vec<u32>> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let keys: Vec<u64> = (0..self.n_candidates).map(|_| rng.r#gen()).collect();
        let k = k.min(self.n_candidates);
        (0..self.n_queries)
            .into_par_iter()
            .map_init(Vec::new, |distances, q| {
                self.nearest_of(q, k, &keys, distances)
            })
            .collect()
    }

    /// The `k` nearest release records of target `q`, nearest first.
    fn nearest_of(&self, q: usize, k: usize, keys: &[u64], distances: &mut Vec<f64>) -> Vec<u32> {
        distances.clear();
        distances.resize(self.n_candidates, 0.0);
        for (candidates, queries) in &self.numbers {
            let x = queries[q];
            if x.is_nan() {
                for (d, &y) in distances.iter_mut().zip(candidates) {
                    *d += if y.is_nan() { 1.0 } else { f64::INFINITY };
                }
            } else {
                // A missing candidate gives NaN, read as +∞ below.
                for (d, &y) in distances.iter_mut().zip(candidates) {
                    *d += (x - y).abs();
                }
            }
        }
        for (candidates, queries) in &self.codes {
            let x = queries[q];
            for (d, &y) in distances.iter_mut().zip(candidates) {
                *d += f64::from(u8::from(x != y));
            }
        }
        // The k smallest (distance, key, row), kept sorted.
        let mut best: Vec<(f64, u64, u32)> = Vec::with_capacity(k + 1);
        for (j, &d) in distances.iter().enumerate() {
            let d = if d.is_nan() { f64::INFINITY } else { d };
            let item = (d, keys[j], j as u32);
            if best.len() == k {
                let worst = best[k - 1];
                if (item.0, item.1) >= (worst.0, worst.1) {
                    continue;
                }
                best.pop();
            }
            let at = best.partition_point(|b| (b.0, b.1) < (item.0, item.1));
            best.insert(at, item);
        }
        best.into_iter().map(|b| b.2).collect()
    }
}
