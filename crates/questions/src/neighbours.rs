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
//!
//! # Speed
//! Exact brute force, `O(targets × release records × columns)`, without anonymeter's sort of
//! every distance: the release is copied into blocks of 8 records, column-major inside a block
//! (category codes as numbers), so one pass computes 8 distances with SIMD (AVX2 when the CPU
//! has it, detected at run time); targets scan the blocks in chunks of 16 over tiles of 128
//! blocks that stay in cache; a block whose every record is already farther than the k-th
//! nearest after half the columns is dropped (the terms are never negative). Numbers with
//! missing values take a plain column-at-a-time scan instead; both paths sum in the same order
//! and give the same neighbours (tested).

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
        let any_missing = self
            .numbers
            .iter()
            .any(|(c, q)| c.iter().chain(q).any(|x| x.is_nan()));
        if any_missing {
            return (0..self.n_queries)
                .into_par_iter()
                .map_init(Vec::new, |distances, q| {
                    self.nearest_of(q, k, &keys, distances)
                })
                .collect();
        }
        let blocked = Blocked::new(self);
        let queries: Vec<f64> = (0..self.n_queries)
            .flat_map(|q| {
                self.numbers
                    .iter()
                    .map(move |(_, x)| x[q])
                    .chain(self.codes.iter().map(move |(_, x)| f64::from(x[q])))
            })
            .collect();
        let dim = blocked.dim;
        queries
            .par_chunks(QUERY_CHUNK * dim.max(1))
            .flat_map_iter(|chunk| blocked.nearest_of_chunk(chunk, k, &keys))
            .collect()
    }

    /// The `k` nearest release records of target `q`, nearest first, one column at a time over
    /// every release record (the path for numbers with missing values).
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
        let mut best = Best::new(k);
        for (j, &d) in distances.iter().enumerate() {
            let d = if d.is_nan() { f64::INFINITY } else { d };
            best.offer(d, keys[j], j as u32);
        }
        best.rows()
    }
}

/// Release records per SIMD block.
const LANES: usize = 8;
/// Release blocks per cache tile (with 15 columns, 120 KB).
const TILE_BLOCKS: usize = 128;
/// Targets scanning a tile while it is in cache.
const QUERY_CHUNK: usize = 16;

/// The `k` nearest records so far, as (distance, tie key, row), sorted.
struct Best {
    items: Vec<(f64, u64, u32)>,
    k: usize,
}

impl Best {
    fn new(k: usize) -> Best {
        Best {
            items: Vec::with_capacity(k + 1),
            k,
        }
    }

    /// The distance a record must not exceed to enter.
    #[inline]
    fn bound(&self) -> f64 {
        if self.items.len() < self.k {
            f64::INFINITY
        } else {
            self.items[self.k - 1].0
        }
    }

    /// Keeps record `row` at distance `d` if it is among the `k` nearest so far (ties ordered
    /// by `key`).
    #[inline]
    fn offer(&mut self, d: f64, key: u64, row: u32) {
        if self.items.len() == self.k {
            let worst = self.items[self.k - 1];
            if (d, key) >= (worst.0, worst.1) {
                return;
            }
            self.items.pop();
        }
        let at = self.items.partition_point(|b| (b.0, b.1) < (d, key));
        self.items.insert(at, (d, key, row));
    }

    fn rows(self) -> Vec<u32> {
        self.items.into_iter().map(|b| b.2).collect()
    }
}

/// The release's auxiliary columns in blocks of [`LANES`] records, column-major inside a block
/// (numbers first, then category codes as numbers), so that one pass computes the distances of
/// a block's records at once with SIMD; the sums run in the same order as
/// [`Search::nearest_of`]'s, so both paths give the same neighbours.
struct Blocked {
    data: Vec<f64>,
    dim: usize,
    n_numbers: usize,
    rows: usize,
}

impl Blocked {
    fn new(search: &Search) -> Blocked {
        let n_numbers = search.numbers.len();
        let dim = n_numbers + search.codes.len();
        let rows = search.n_candidates;
        let blocks = rows.div_ceil(LANES);
        let mut data = vec![0.0; blocks * dim * LANES];
        for r in 0..rows {
            let (b, l) = (r / LANES, r % LANES);
            for (k, (c, _)) in search.numbers.iter().enumerate() {
                data[(b * dim + k) * LANES + l] = c[r];
            }
            for (k, (c, _)) in search.codes.iter().enumerate() {
                data[(b * dim + n_numbers + k) * LANES + l] = f64::from(c[r]);
            }
        }
        Blocked {
            data,
            dim,
            n_numbers,
            rows,
        }
    }

    /// The `k` nearest release records of each target of `chunk` (targets row after row).
    fn nearest_of_chunk(&self, chunk: &[f64], k: usize, keys: &[u64]) -> Vec<Vec<u32>> {
        let n = chunk.len() / self.dim.max(1);
        let mut best: Vec<Best> = (0..n).map(|_| Best::new(k)).collect();
        let blocks = self.rows.div_ceil(LANES);
        let mut start = 0;
        while start < blocks {
            let end = (start + TILE_BLOCKS).min(blocks);
            for (q, b) in chunk.chunks(self.dim.max(1)).zip(best.iter_mut()) {
                self.scan(q, start..end, keys, b);
            }
            start = end;
        }
        best.into_iter().map(Best::rows).collect()
    }

    /// Offers every release record of blocks `blocks` to `best` for target `q`.
    fn scan(&self, q: &[f64], blocks: std::ops::Range<usize>, keys: &[u64], best: &mut Best) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                unsafe { self.scan_avx2(q, blocks, keys, best) };
                return;
            }
        }
        self.scan_body(q, blocks, keys, best);
    }

    /// [`Blocked::scan_body`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn scan_avx2(
        &self,
        q: &[f64],
        blocks: std::ops::Range<usize>,
        keys: &[u64],
        best: &mut Best,
    ) {
        self.scan_body(q, blocks, keys, best);
    }

    /// Offers the records of blocks `blocks` to `best`: their distances, numbers then
    /// categories.
    #[inline(always)]
    fn scan_body(&self, q: &[f64], blocks: std::ops::Range<usize>, keys: &[u64], best: &mut Best) {
        let dim = self.dim;
        for b in blocks {
            let block = &self.data[b * dim * LANES..(b + 1) * dim * LANES];
            let mut acc = [0.0f64; LANES];
            for k in 0..self.n_numbers {
                let y = &block[k * LANES..(k + 1) * LANES];
                for l in 0..LANES {
                    acc[l] += (q[k] - y[l]).abs();
                }
            }
            // Distances only grow: a block whose every record is already farther than the
            // k-th nearest after half the columns is dropped.
            let half = self.n_numbers.max(dim / 2);
            for k in self.n_numbers..half {
                let y = &block[k * LANES..(k + 1) * LANES];
                for l in 0..LANES {
                    acc[l] += if q[k] != y[l] { 1.0 } else { 0.0 };
                }
            }
            let bound = best.bound();
            if half > 0 && acc.iter().all(|&a| a > bound) {
                continue;
            }
            for k in half..dim {
                let y = &block[k * LANES..(k + 1) * LANES];
                for l in 0..LANES {
                    acc[l] += if q[k] != y[l] { 1.0 } else { 0.0 };
                }
            }
            for (l, &d) in acc.iter().enumerate() {
                let row = b * LANES + l;
                if d <= bound && row < self.rows {
                    best.offer(d, keys[row], row as u32);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A search over random columns: small integers and few categories, so that ties abound.
    fn search(seed: u64, n: usize, targets: usize, numbers: usize, codes: usize) -> Search {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let number = |rng: &mut ChaCha8Rng| f64::from(rng.gen_range(0..6u32)) / 5.0;
        Search {
            numbers: (0..numbers)
                .map(|_| {
                    (
                        (0..n).map(|_| number(&mut rng)).collect(),
                        (0..targets).map(|_| number(&mut rng)).collect(),
                    )
                })
                .collect(),
            codes: (0..codes)
                .map(|_| {
                    (
                        (0..n).map(|_| rng.gen_range(0..3)).collect(),
                        (0..targets).map(|_| rng.gen_range(0..3)).collect(),
                    )
                })
                .collect(),
            n_candidates: n,
            n_queries: targets,
        }
    }

    #[test]
    fn the_blocked_scan_finds_the_neighbours_of_the_plain_scan() {
        for (seed, numbers, codes) in [(1, 2, 3), (2, 0, 4), (3, 5, 0), (4, 1, 1), (5, 3, 6)] {
            // 1,003 candidates: the last block is partly empty.
            let s = search(seed, 1003, 40, numbers, codes);
            for k in [1, 3, 10] {
                let blocked = s.nearest(k, 7);
                let mut rng = ChaCha8Rng::seed_from_u64(7);
                let keys: Vec<u64> = (0..s.n_candidates).map(|_| rng.r#gen()).collect();
                let plain: Vec<Vec<u32>> = (0..s.n_queries)
                    .map(|q| s.nearest_of(q, k, &keys, &mut Vec::new()))
                    .collect();
                assert_eq!(
                    blocked, plain,
                    "seed {seed}, {numbers} numbers, {codes} codes, k = {k}"
                );
            }
        }
    }
}
