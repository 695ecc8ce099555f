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
//! Exact and sub-linear: a k-d tree over the release (the `tree` module), built once per
//! search, partitions the records by categorical tuple, then by number; a target visits only
//! the nodes whose lower bound of the distance (from the node's box, summed in the distance's
//! order) does not exceed the k-th nearest distance found so far, and identical release records
//! share a leaf whose distance is computed once. The targets are searched in parallel, in
//! the order of the leaf each visits first, so that targets near each other in the tree follow
//! each other and find its nodes in cache (40% less CPU on an independent release).
//!
//! Where the tree cannot prune (many continuous numbers: past 8 or so the nearest records are
//! no nearer than most), its first 64 targets examine a large share of the release, and the
//! remaining targets take the blocked brute-force scan of the `scan` module instead, which
//! reads the release from cache for 16 targets at a time (with 12 continuous columns the tree
//! costs 3–4× the scan). The neighbours, and their order, are those of a brute-force scan of
//! every record on either path (both tested against one on random tables with ties, copies
//! and missing values).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::coded::Coded;
use scan::{Blocked, QUERY_CHUNK};
use tree::Tree;

mod scan;
mod tree;

/// Targets searched with the tree before deciding whether it prunes.
const SAMPLE_TARGETS: usize = 64;
/// The tree is kept while its targets examine at most one release record in this many (nodes
/// and records together); beyond, the blocked scan of every record is cheaper.
const SCAN_SHARE: usize = 32;

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
        self.nearest_by(k, seed, None)
    }

    /// [`Search::nearest`] by the tree (`scan` = `Some(false)`), by a scan of every record
    /// (`Some(true)`), or by the tree unless its first targets show it prunes too little
    /// (`None`).
    fn nearest_by(&self, k: usize, seed: u64, scan: Option<bool>) -> Vec<Vec<u32>> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let keys: Vec<u64> = (0..self.n_candidates).map(|_| rng.r#gen()).collect();
        let k = k.min(self.n_candidates);
        if k == 0 {
            return vec![Vec::new(); self.n_queries];
        }
        let dim = self.numbers.len() + self.codes.len();
        let queries: Vec<f64> = (0..self.n_queries)
            .flat_map(|q| {
                self.numbers
                    .iter()
                    .map(move |(_, x)| x[q])
                    .chain(self.codes.iter().map(move |(_, x)| f64::from(x[q])))
            })
            .collect();
        let query = |q: usize| &queries[q * dim..(q + 1) * dim];
        let tree = Tree::new(self, &keys);
        // The first targets tell whether the tree prunes: if they examine more than a share of
        // the release, a scan of every record is cheaper (both give the same neighbours).
        let sample = match scan {
            Some(_) => 0,
            None => self.n_queries.min(SAMPLE_TARGETS),
        };
        let (mut nearest, examined): (Vec<Vec<u32>>, Vec<usize>) = (0..sample)
            .into_par_iter()
            .map(|q| tree.nearest(query(q), k))
            .unzip();
        let examined: usize = examined.iter().sum();
        if !scan.unwrap_or(examined * SCAN_SHARE > sample * self.n_candidates) {
            // Targets in the order of the leaf they visit first, for the cache; then back.
            let leaves: Vec<u32> = (sample..self.n_queries)
                .into_par_iter()
                .map(|q| tree.first_leaf(query(q)))
                .collect();
            let mut order: Vec<usize> = (sample..self.n_queries).collect();
            order.sort_by_key(|&q| (leaves[q - sample], q));
            let found: Vec<Vec<u32>> = order
                .par_iter()
                .map(|&q| tree.nearest(query(q), k).0)
                .collect();
            let mut rest = vec![Vec::new(); self.n_queries - sample];
            for (q, rows) in order.into_iter().zip(found) {
                rest[q - sample] = rows;
            }
            nearest.extend(rest);
            return nearest;
        }
        drop(tree);
        let rest = &queries[sample * dim..];
        let missing = |(c, q): &(Vec<f64>, Vec<f64>)| c.iter().chain(q).any(|x| x.is_nan());
        // Blocks need a column, and numbers without missing values.
        if dim == 0 || self.numbers.iter().any(missing) {
            nearest.par_extend(
                (sample..self.n_queries)
                    .into_par_iter()
                    .map_init(Vec::new, |distances, q| {
                        self.nearest_of(q, k, &keys, distances)
                    }),
            );
            return nearest;
        }
        let blocked = Blocked::new(self);
        nearest.par_extend(
            rest.par_chunks(QUERY_CHUNK * dim.max(1))
                .flat_map_iter(|chunk| blocked.nearest_of_chunk(chunk, k, &keys)),
        );
        nearest
    }

    /// The `k` nearest release records of target `q`, nearest first, one column at a time over
    /// every release record: the path of the scan for numbers with missing values, and the
    /// brute-force reference the tree is tested against.
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

/// The `k` nearest records so far, as (distance, tie key, row), sorted.
struct Best {
    items: Vec<(f64, u64, u32)>,
    k: usize,
}

impl Best {
    /// No record yet, room for `k`.
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
    /// by `key`); whether it was kept.
    #[inline]
    fn offer(&mut self, d: f64, key: u64, row: u32) -> bool {
        if self.items.len() == self.k {
            let worst = self.items[self.k - 1];
            if (d, key) >= (worst.0, worst.1) {
                return false;
            }
            self.items.pop();
        }
        let at = self.items.partition_point(|b| (b.0, b.1) < (d, key));
        self.items.insert(at, (d, key, row));
        true
    }

    /// The rows kept, nearest first.
    fn rows(self) -> Vec<u32> {
        self.items.into_iter().map(|b| b.2).collect()
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

    /// The neighbours of every target by brute force, with the tie keys `nearest` draws from
    /// `seed`.
    fn brute_force(s: &Search, k: usize, seed: u64) -> Vec<Vec<u32>> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let keys: Vec<u64> = (0..s.n_candidates).map(|_| rng.r#gen()).collect();
        let k = k.min(s.n_candidates);
        (0..s.n_queries)
            .map(|q| s.nearest_of(q, k, &keys, &mut Vec::new()))
            .collect()
    }

    #[test]
    fn the_tree_finds_the_neighbours_of_the_brute_force_scan() {
        for (seed, numbers, codes) in [(1, 2, 3), (2, 0, 4), (3, 5, 0), (4, 1, 1), (5, 3, 6)] {
            let s = search(seed, 1003, 100, numbers, codes);
            for k in [1, 3, 10] {
                for scan in [None, Some(false), Some(true)] {
                    assert_eq!(
                        s.nearest_by(k, 7, scan),
                        brute_force(&s, k, 7),
                        "seed {seed}, {numbers} numbers, {codes} codes, k = {k}, {scan:?}"
                    );
                }
            }
        }
    }

    /// A small mixed table drawn from `seed`: numbers on a grid of `grid` steps and categories
    /// of `levels` codes (so that distances tie), a share `missing` of missing values, a share
    /// `copies` of release records copying an earlier one and of targets copying a release
    /// record.
    fn mixed(
        seed: u64,
        (n, targets): (usize, usize),
        (numbers, codes): (usize, usize),
        (grid, levels): (u32, u32),
        (missing, copies): (f64, f64),
    ) -> Search {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let dim = numbers + codes;
        let cell = |rng: &mut ChaCha8Rng, j: usize| -> f64 {
            let absent = rng.gen_bool(missing);
            if j < numbers {
                if absent {
                    f64::NAN
                } else {
                    f64::from(rng.gen_range(0..=grid)) / f64::from(grid)
                }
            } else if absent {
                f64::from(crate::coded::MISSING)
            } else {
                f64::from(rng.gen_range(0..levels))
            }
        };
        let mut release: Vec<Vec<f64>> = Vec::with_capacity(n);
        for r in 0..n {
            let row = if r > 0 && rng.gen_bool(copies) {
                release[rng.gen_range(0..r)].clone()
            } else {
                (0..dim).map(|j| cell(&mut rng, j)).collect()
            };
            release.push(row);
        }
        let queries: Vec<Vec<f64>> = (0..targets)
            .map(|_| {
                if rng.gen_bool(copies) {
                    release[rng.gen_range(0..n)].clone()
                } else {
                    (0..dim).map(|j| cell(&mut rng, j)).collect()
                }
            })
            .collect();
        let column = |rows: &[Vec<f64>], j: usize| rows.iter().map(|r| r[j]).collect::<Vec<f64>>();
        Search {
            numbers: (0..numbers)
                .map(|j| (column(&release, j), column(&queries, j)))
                .collect(),
            codes: (numbers..dim)
                .map(|j| {
                    let codes = |v: Vec<f64>| v.into_iter().map(|x| x as u32).collect();
                    (codes(column(&release, j)), codes(column(&queries, j)))
                })
                .collect(),
            n_candidates: n,
            n_queries: targets,
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        #[test]
        fn the_tree_agrees_with_the_brute_force_scan_on_random_mixed_tables(
            seed in 0u64..1_000_000,
            n in 1usize..300,
            targets in 1usize..12,
            numbers in 0usize..4,
            codes in 0usize..4,
            grid in 1u32..6,
            levels in 1u32..4,
            missing in proptest::sample::select(vec![0.0, 0.05, 0.3]),
            copies in proptest::sample::select(vec![0.0, 0.2, 0.6]),
            k in 1usize..15,
        ) {
            let s = mixed(seed, (n, targets), (numbers, codes), (grid, levels), (missing, copies));
            let expected = brute_force(&s, k, seed ^ 0x5eed);
            for scan in [None, Some(false), Some(true)] {
                proptest::prop_assert_eq!(&s.nearest_by(k, seed ^ 0x5eed, scan), &expected, "{:?}", scan);
            }
        }
    }
}
