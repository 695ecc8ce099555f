//! The kernel: blocking, comparison and pattern counting in one pass over integer records, then
//! per-record ordering and the one-to-one assignment.
//!
//! 1. **Records** ([`Kernel::new`]): each file becomes one row-major `u32` array, a row per
//!    record holding, per comparison, its value's id (in a small per-file index when the
//!    comparison has a level table), the ids of both columns of each `columns-reversed` level,
//!    and the key of each blocking rule ([`encode`](super::encode) made every id).
//! 2. **Levels** ([`Matcher`]): exact-only comparisons compare ids; other comparisons read a
//!    level table over (intruder value, released value) filled on first use — each distinct
//!    value pair is compared once, whatever the number of record pairs holding it; a table
//!    larger than the cache only over the most frequent values, the rest compared directly —
//!    or, when the two dictionaries are too large for a table, compare numbers directly
//!    (numeric and date levels) or through a memo per task (string similarities). Either way
//!    a string level is first tested by bounds read from per-value profiles
//!    ([`compare`](super::compare), [`strings`](super::strings)), which decide most pairs of
//!    unrelated values without the similarity. A pair's levels are one mixed-radix integer,
//!    its *pattern*.
//! 3. **Blocking** ([`Kernel::build`]): released rows are grouped by each rule's key with a
//!    counting sort; each intruder record walks the block of its key, rule by rule, and a pair
//!    an earlier rule produced (its keys agree on that rule) is skipped — no set of pairs is
//!    ever built. The pass counts patterns by the set of rules each pair agrees on (the input
//!    of per-rule training) and stores each pair as (released row, pattern), grouped by
//!    intruder record in chunks of [`CHUNK_ROWS`] records.
//! 4. **Ordering** ([`CandidatePairs::sort_by_weight`]): each intruder record's pairs by weight
//!    (best first), then released row.
//! 5. **Greedy one-to-one** ([`CandidatePairs::greedy`]): the best pair of every intruder record in a
//!    heap; the best entry is taken when its released record is free, else its record moves to
//!    its next free pair. This takes pairs in the order of the global sort (weight, intruder
//!    row, released row) without sorting every pair.
//!
//! Every parallel step writes results that depend on its inputs only (chunks of records,
//! sums of integer counts), so the output is the same whatever the number of threads.

use std::sync::atomic::{AtomicU8, Ordering};

use rayon::prelude::*;

use super::compare::{MISSING, Prepared, reversed_holds};
use super::encode::{NO_KEY, RuleKeys};
use super::predict;
use super::spec::LevelKind;

/// Intruder records per chunk of stored pairs.
pub const CHUNK_ROWS: usize = 512;

/// The largest level table (cells, one byte each) kept for a comparison.
const TABLE_CELLS_MAX: usize = 1 << 27;

/// A level table up to this many cells is kept whatever the values' repetition: it stays in
/// (or near) the cache. A larger one would pay a cache miss on most cells it is asked for:
/// when values repeat, the table covers only a corner of this many cells (the most frequent
/// values of each file, which hold the value pairs that recur) and the other pairs are
/// compared directly, their levels decided by the bounds for most.
const TABLE_CACHED_MAX: usize = 1 << 22;

/// Values are taken as repeating (their pairs recur, a table or memo pays) when a file holds
/// at least this many records per distinct value.
const REUSE_RECORDS_PER_VALUE: usize = 8;

/// Pattern counts are kept in an array when (rule sets × patterns) is at most this.
const DENSE_COUNTS_MAX: u64 = 1 << 16;

/// Memo entries kept per comparison and task before the memo is emptied.
const MEMO_MAX: usize = 1 << 20;

/// How a comparison turns two value ids into a level.
#[derive(Debug)]
enum Matcher {
    /// Null / exact / else levels only.
    Exact { miss: u8, eq: u8, ne: u8 },
    /// Level table over (intruder-file index, released-file index), filled on first use with
    /// `level + 1` (0: not computed yet). Any thread may fill a cell: it always writes the
    /// same value. The table covers indices below `rows` × `nb` (the most frequent values
    /// first); a pair outside it is compared directly.
    Table {
        miss: u8,
        rows: usize,
        nb: usize,
        cells: Vec<AtomicU8>,
        /// Shared id of each intruder-file index.
        a_ids: Vec<u32>,
        /// Shared id of each released-file index.
        b_ids: Vec<u32>,
    },
    /// Numeric and date levels computed for every pair.
    Direct { miss: u8 },
    /// String similarities memoised per task.
    Memo { miss: u8 },
}

/// Per-task memos of the [`Matcher::Memo`] comparisons.
#[derive(Debug, Default)]
pub struct Memos(Vec<foldhash::HashMap<u64, u8>>);

impl Memos {
    fn new(k: usize) -> Self {
        Memos((0..k).map(|_| foldhash::HashMap::default()).collect())
    }
}

#[derive(Debug, Clone, Copy)]
struct ReversedField {
    comparison: usize,
    level: u8,
    symmetrical: bool,
}

/// Released rows grouped by one rule's key, with a copy of their records in block order (a
/// block's records are read as one contiguous run).
#[derive(Debug)]
struct Blocks {
    starts: Vec<u32>,
    rows: Vec<u32>,
    data: Vec<u32>,
}

impl Blocks {
    fn new(keys: &RuleKeys, b: &[u32], width: usize) -> Self {
        let n = keys.n_keys as usize;
        let mut starts = vec![0u32; n + 1];
        for &k in &keys.b {
            if k != NO_KEY {
                starts[k as usize + 1] += 1;
            }
        }
        for x in 1..=n {
            starts[x] += starts[x - 1];
        }
        let mut next = starts.clone();
        let mut rows = vec![0u32; starts[n] as usize];
        for (j, &k) in keys.b.iter().enumerate() {
            if k != NO_KEY {
                rows[next[k as usize] as usize] = j as u32;
                next[k as usize] += 1;
            }
        }
        let mut data = Vec::with_capacity(rows.len() * width);
        for &j in &rows {
            data.extend_from_slice(&b[j as usize * width..(j as usize + 1) * width]);
        }
        Blocks { starts, rows, data }
    }

    /// The released rows of a key and their records (`width` fields each).
    #[inline]
    fn block(&self, key: u32, width: usize) -> (&[u32], &[u32]) {
        let k = key as usize;
        let (lo, hi) = (self.starts[k] as usize, self.starts[k + 1] as usize);
        (&self.rows[lo..hi], &self.data[lo * width..hi * width])
    }
}

/// The integer records of both files and how to compare them.
#[derive(Debug)]
pub struct Kernel<'p> {
    prepared: &'p [Prepared],
    matchers: Vec<Matcher>,
    /// Levels per comparison.
    levels: Vec<usize>,
    /// Mixed-radix place value of each comparison (comparison 0 is the least significant).
    strides: Vec<u64>,
    /// Number of possible patterns (product of the level counts).
    product: u64,
    reversed: Vec<ReversedField>,
    n_rules: usize,
    width: usize,
    a: Vec<u32>,
    b: Vec<u32>,
    ni: usize,
    nr: usize,
    blocks: Vec<Blocks>,
}

/// Which way a pattern is stored while pairs are formed.
pub trait Code: Copy + Send + Sync + Default + 'static {
    /// From a pattern known to fit.
    fn from_u64(x: u64) -> Self;
    /// Back to the pattern.
    fn to_u64(self) -> u64;
}

impl Code for u32 {
    #[inline]
    fn from_u64(x: u64) -> Self {
        x as u32
    }
    #[inline]
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
}

impl Code for u64 {
    #[inline]
    fn from_u64(x: u64) -> Self {
        x
    }
    #[inline]
    fn to_u64(self) -> u64 {
        self
    }
}

/// The pairs of a range of intruder records: record `start + r` holds
/// `released[offsets[r]..offsets[r + 1]]` with their patterns.
#[derive(Debug, Clone, Default)]
pub struct Chunk<C> {
    /// First intruder row.
    pub start: usize,
    /// `rows + 1` offsets into `released` / `codes`.
    pub offsets: Vec<usize>,
    /// Released rows.
    pub released: Vec<u32>,
    /// Patterns (while blocking: mixed-radix codes; afterwards: indices into the pattern list).
    pub codes: Vec<C>,
}

/// Pattern counts by the set of rules the pairs agree on.
#[derive(Debug)]
enum Counts {
    Dense(Vec<u64>),
    Sparse(foldhash::HashMap<(u32, u64), u64>),
}

/// What one task accumulates while forming pairs.
#[derive(Debug)]
struct Acc {
    counts: Counts,
    per_rule: Vec<u64>,
    memos: Memos,
}

/// Everything blocking produced.
#[derive(Debug)]
pub struct Built {
    /// The candidate pairs, patterns as indices into `patterns`.
    pub candidates: CandidatePairs,
    /// The distinct patterns (mixed-radix codes), ascending.
    pub patterns: Vec<u64>,
    /// Pairs per pattern.
    pub counts: Vec<u64>,
    /// `(rule set, pattern index, pairs)`: bit `r` of the set is whether the pairs agree on
    /// rule `r`; ascending.
    pub by_rules: Vec<(u32, u32, u64)>,
    /// Pairs produced by each rule (pairs of earlier rules excluded).
    pub per_rule: Vec<usize>,
}

/// Candidate pairs grouped by intruder record.
#[derive(Debug, Clone, Default)]
pub struct CandidatePairs {
    /// Chunks of [`CHUNK_ROWS`] intruder records (the last may be shorter).
    pub chunks: Vec<Chunk<u32>>,
    /// Intruder records.
    pub ni: usize,
}

impl<'p> Kernel<'p> {
    /// Lays out the records of both files. `rules[r]` are the keys of blocking rule `r`.
    pub fn new(prepared: &'p [Prepared], rules: &[RuleKeys], ni: usize, nr: usize) -> Self {
        Self::with_table_limit(prepared, rules, ni, nr, TABLE_CELLS_MAX)
    }

    /// [`new`](Self::new) with level tables of at most `table_cells` cells (larger comparisons
    /// compare directly or through memos); tests use 0 to check those paths against the tables.
    pub fn with_table_limit(
        prepared: &'p [Prepared],
        rules: &[RuleKeys],
        ni: usize,
        nr: usize,
        table_cells: usize,
    ) -> Self {
        Self::with_table_limits(prepared, rules, ni, nr, table_cells, TABLE_CACHED_MAX)
    }

    /// [`with_table_limit`](Self::with_table_limit) with tables kept whole up to
    /// `cached_cells` cells, larger ones cut to a corner of that many; tests use a few cells to
    /// check the corners against whole tables.
    pub fn with_table_limits(
        prepared: &'p [Prepared],
        rules: &[RuleKeys],
        ni: usize,
        nr: usize,
        table_cells: usize,
        cached_cells: usize,
    ) -> Self {
        let k = prepared.len();
        let levels: Vec<usize> = prepared.iter().map(|p| p.spec.levels.len()).collect();
        let mut strides = Vec::with_capacity(k);
        let mut product = 1u64;
        for &l in &levels {
            strides.push(product);
            product = product.saturating_mul(l as u64);
        }
        let reversed: Vec<ReversedField> = prepared
            .iter()
            .enumerate()
            .flat_map(|(c, p)| {
                p.reversed.iter().map(move |r| ReversedField {
                    comparison: c,
                    level: r.level as u8,
                    symmetrical: r.symmetrical,
                })
            })
            .collect();
        let width = k + 2 * reversed.len() + rules.len();
        let mut matchers = Vec::with_capacity(k);
        let mut a = vec![0u32; ni * width];
        let mut b = vec![0u32; nr * width];
        for (c, p) in prepared.iter().enumerate() {
            let (m, xa, xb) = matcher(p, table_cells, cached_cells);
            matchers.push(m);
            for (i, &x) in xa.iter().enumerate() {
                a[i * width + c] = x;
            }
            for (j, &y) in xb.iter().enumerate() {
                b[j * width + c] = y;
            }
        }
        let mut q = 0;
        for p in prepared {
            for r in &p.reversed {
                let f = k + 2 * q;
                for i in 0..ni {
                    a[i * width + f] = p.a[i];
                    a[i * width + f + 1] = r.a_other[i];
                }
                for j in 0..nr {
                    b[j * width + f] = p.b[j];
                    b[j * width + f + 1] = r.b_other[j];
                }
                q += 1;
            }
        }
        let rf = k + 2 * reversed.len();
        for (r, keys) in rules.iter().enumerate() {
            for (i, &x) in keys.a.iter().enumerate() {
                a[i * width + rf + r] = x;
            }
            for (j, &y) in keys.b.iter().enumerate() {
                b[j * width + rf + r] = y;
            }
        }
        let blocks = rules.iter().map(|r| Blocks::new(r, &b, width)).collect();
        Kernel {
            prepared,
            matchers,
            levels,
            strides,
            product,
            reversed,
            n_rules: rules.len(),
            width,
            a,
            b,
            ni,
            nr,
            blocks,
        }
    }

    /// Number of possible patterns.
    pub fn product(&self) -> u64 {
        self.product
    }

    /// Fresh memos for one task.
    pub fn memos(&self) -> Memos {
        Memos::new(self.levels.len())
    }

    #[inline]
    fn row_a(&self, i: usize) -> &[u32] {
        &self.a[i * self.width..(i + 1) * self.width]
    }

    #[inline]
    fn row_b(&self, j: usize) -> &[u32] {
        &self.b[j * self.width..(j + 1) * self.width]
    }

    #[inline]
    fn level(&self, c: usize, x: u32, y: u32, memos: &mut Memos) -> u8 {
        match &self.matchers[c] {
            Matcher::Exact { miss, eq, ne } => {
                if x == MISSING || y == MISSING {
                    *miss
                } else if x == y {
                    *eq
                } else {
                    *ne
                }
            }
            Matcher::Table {
                miss,
                rows,
                nb,
                cells,
                a_ids,
                b_ids,
            } => {
                if x == MISSING || y == MISSING {
                    return *miss;
                }
                let (a_id, b_id) = (a_ids[x as usize], b_ids[y as usize]);
                if x as usize >= *rows || y as usize >= *nb {
                    return self.prepared[c].level_of_ids(a_id, b_id);
                }
                let cell = &cells[x as usize * nb + y as usize];
                let v = cell.load(Ordering::Relaxed);
                if v != 0 {
                    return v - 1;
                }
                let l = self.prepared[c].level_of_ids(a_id, b_id);
                cell.store(l + 1, Ordering::Relaxed);
                l
            }
            Matcher::Direct { miss } => {
                if x == MISSING || y == MISSING {
                    *miss
                } else {
                    self.prepared[c].level_of_ids(x, y)
                }
            }
            Matcher::Memo { miss } => {
                if x == MISSING || y == MISSING {
                    return *miss;
                }
                if x == y {
                    return self.prepared[c].level_of_ids(x, y);
                }
                let memo = &mut memos.0[c];
                let key = (u64::from(x) << 32) | u64::from(y);
                if let Some(&l) = memo.get(&key) {
                    return l;
                }
                if memo.len() >= MEMO_MAX {
                    memo.clear();
                }
                let l = self.prepared[c].level_of_ids(x, y);
                memo.insert(key, l);
                l
            }
        }
    }

    /// The levels of a pair of records into `out` (one per comparison).
    #[inline]
    fn levels_of(&self, ra: &[u32], rb: &[u32], memos: &mut Memos, out: &mut [u8]) {
        let k = self.levels.len();
        for c in 0..k {
            out[c] = self.level(c, ra[c], rb[c], memos);
        }
        for (q, r) in self.reversed.iter().enumerate() {
            let c = r.comparison;
            if out[c] > r.level {
                let f = k + 2 * q;
                let (xs, xo, ys, yo) = (ra[f], ra[f + 1], rb[f], rb[f + 1]);
                if reversed_holds(r.symmetrical, xs, yo, ys, xo) {
                    out[c] = r.level;
                }
            }
        }
    }

    /// The mixed-radix pattern of levels.
    #[inline]
    fn code(&self, levels: &[u8]) -> u64 {
        levels
            .iter()
            .zip(&self.strides)
            .map(|(&l, &s)| u64::from(l) * s)
            .sum()
    }

    /// The levels of a mixed-radix pattern.
    pub fn decode(&self, code: u64) -> Vec<u8> {
        self.levels
            .iter()
            .zip(&self.strides)
            .map(|(&l, &s)| ((code / s) % l as u64) as u8)
            .collect()
    }

    /// The levels of intruder row `i` and released row `j`.
    pub fn pair_levels(&self, i: usize, j: usize, memos: &mut Memos) -> Vec<u8> {
        let mut out = vec![0u8; self.levels.len()];
        self.levels_of(self.row_a(i), self.row_b(j), memos, &mut out);
        out
    }

    /// Per comparison and level, how many of the pairs `(i, j)` fall there; comparisons
    /// with `wanted[c]` false are not compared (their counts stay 0). The pairs are compared
    /// grouped by intruder record (a counting sort; the counts are sums, whatever the order):
    /// each intruder record's fields, profiles and level-table row are read once per group
    /// rather than once per pair.
    pub fn level_counts(&self, pairs: &[(u32, u32)], wanted: &[bool]) -> Vec<Vec<u64>> {
        let mut starts = vec![0usize; self.ni + 1];
        for &(i, _) in pairs {
            starts[i as usize + 1] += 1;
        }
        for i in 1..=self.ni {
            starts[i] += starts[i - 1];
        }
        let mut by_row = vec![(0u32, 0u32); pairs.len()];
        for &(i, j) in pairs {
            let s = &mut starts[i as usize];
            by_row[*s] = (i, j);
            *s += 1;
        }
        self.level_counts_in_order(&by_row, wanted)
    }

    /// [`level_counts`](Self::level_counts) over the pairs in the order given. A comparison
    /// without `columns-reversed` levels is counted on its own, pass after pass over a chunk of
    /// pairs (only its records' field, profiles and table stay in cache); the others pair by
    /// pair, all their levels at once (a reversed level reads other comparisons' fields).
    fn level_counts_in_order(&self, pairs: &[(u32, u32)], wanted: &[bool]) -> Vec<Vec<u64>> {
        let k = self.levels.len();
        let reversed: Vec<usize> = (0..self.reversed.len())
            .filter(|&q| wanted[self.reversed[q].comparison])
            .collect();
        let with_reversed = |c: usize| reversed.iter().any(|&q| self.reversed[q].comparison == c);
        let (by_row, by_column): (Vec<usize>, Vec<usize>) = (0..k)
            .filter(|&c| wanted[c])
            .partition(|&c| with_reversed(c));
        let w = self.width;
        let zero = || -> Vec<u64> { vec![0u64; k * 16] };
        let flat = pairs
            .par_chunks(1 << 14)
            .fold(
                || (zero(), self.memos()),
                |(mut acc, mut memos), chunk| {
                    for &c in &by_column {
                        let counts = &mut acc[c * 16..c * 16 + 16];
                        for &(i, j) in chunk {
                            let (x, y) = (self.a[i as usize * w + c], self.b[j as usize * w + c]);
                            counts[self.level(c, x, y, &mut memos) as usize] += 1;
                        }
                    }
                    if !by_row.is_empty() {
                        let mut buf = [0u8; 16];
                        for &(i, j) in chunk {
                            let (ra, rb) = (self.row_a(i as usize), self.row_b(j as usize));
                            for &c in &by_row {
                                buf[c] = self.level(c, ra[c], rb[c], &mut memos);
                            }
                            self.apply_reversed(ra, rb, &reversed, &mut buf);
                            for &c in &by_row {
                                acc[c * 16 + buf[c] as usize] += 1;
                            }
                        }
                    }
                    (acc, memos)
                },
            )
            .map(|x| x.0)
            .reduce(zero, |mut x, y| {
                for (s, t) in x.iter_mut().zip(y) {
                    *s += t;
                }
                x
            });
        (0..k)
            .map(|c| flat[c * 16..c * 16 + self.levels[c]].to_vec())
            .collect()
    }

    /// The `columns-reversed` levels `which` (indices into the reversed fields) applied to the
    /// levels in `out`.
    #[inline]
    fn apply_reversed(&self, ra: &[u32], rb: &[u32], which: &[usize], out: &mut [u8]) {
        let k = self.levels.len();
        for &q in which {
            let r = self.reversed[q];
            let c = r.comparison;
            if out[c] > r.level {
                let f = k + 2 * q;
                let (xs, xo, ys, yo) = (ra[f], ra[f + 1], rb[f], rb[f + 1]);
                if reversed_holds(r.symmetrical, xs, yo, ys, xo) {
                    out[c] = r.level;
                }
            }
        }
    }

    /// The exact level counts of comparison `c` over every (intruder, released) record pair,
    /// from the values' frequencies: `Σ_x Σ_y n_I(x) n_R(y) [level(x, y) = l]` over the
    /// distinct values of each file. `None` when the comparison has a `columns-reversed` level
    /// (its level reads other columns too) or when the distinct value pairs to compare exceed
    /// `budget` (then sampling is cheaper). An exact-only comparison costs one pass over its
    /// values; others compare each distinct value pair once (filling the comparison's level
    /// table, which the candidate pairs then read).
    pub fn exact_level_counts(&self, c: usize, budget: u64) -> Option<Vec<u64>> {
        if self.reversed.iter().any(|r| r.comparison == c) {
            return None;
        }
        let count = |rows: &[u32], n: usize| -> (Vec<u64>, u64) {
            let mut v = vec![0u64; n];
            let mut miss = 0u64;
            for x in rows.chunks_exact(self.width).map(|r| r[c]) {
                if x == MISSING {
                    miss += 1;
                } else {
                    v[x as usize] += 1;
                }
            }
            (v, miss)
        };
        let mut out = vec![0u64; self.levels[c]];
        let (ni, nr) = (self.ni as u64, self.nr as u64);
        match &self.matchers[c] {
            Matcher::Exact { miss, eq, ne } => {
                let n = self.prepared[c].dict.len();
                let (ca, ma) = count(&self.a, n);
                let (cb, mb) = count(&self.b, n);
                let same: u64 = ca.iter().zip(&cb).map(|(x, y)| x * y).sum();
                let present = (ni - ma) * (nr - mb);
                out[*miss as usize] += ni * nr - present;
                out[*eq as usize] += same;
                out[*ne as usize] += present - same;
            }
            Matcher::Table {
                miss, a_ids, b_ids, ..
            } => {
                let (na, nb) = (a_ids.len(), b_ids.len());
                if (na as u64).saturating_mul(nb as u64) > budget {
                    return None;
                }
                let (ca, ma) = count(&self.a, na);
                let (cb, mb) = count(&self.b, nb);
                out[*miss as usize] += ni * nr - (ni - ma) * (nr - mb);
                let k = self.levels[c];
                let sums = (0..na)
                    .into_par_iter()
                    .fold(
                        || (vec![0u64; k], self.memos()),
                        |(mut acc, mut memos), x| {
                            for (y, &ny) in cb.iter().enumerate() {
                                let l = self.level(c, x as u32, y as u32, &mut memos);
                                acc[l as usize] += ca[x] * ny;
                            }
                            (acc, memos)
                        },
                    )
                    .map(|x| x.0)
                    .reduce(
                        || vec![0u64; k],
                        |mut x, y| {
                            for (s, t) in x.iter_mut().zip(y) {
                                *s += t;
                            }
                            x
                        },
                    );
                for (o, s) in out.iter_mut().zip(sums) {
                    *o += s;
                }
            }
            Matcher::Direct { .. } | Matcher::Memo { .. } => return None,
        }
        Some(out)
    }

    fn acc(&self) -> Acc {
        let sets = 1u64 << self.n_rules;
        let counts = match sets.checked_mul(self.product) {
            Some(n) if n <= DENSE_COUNTS_MAX => Counts::Dense(vec![0; n as usize]),
            _ => Counts::Sparse(Default::default()),
        };
        Acc {
            counts,
            per_rule: vec![0; self.n_rules],
            memos: self.memos(),
        }
    }

    /// Forms the pairs of one chunk of intruder records.
    fn fill<C: Code>(&self, chunk: &mut Chunk<C>, rows: usize, acc: &mut Acc) {
        let k = self.levels.len();
        let rf = k + 2 * self.reversed.len();
        let nrules = self.n_rules;
        let mut buf = [0u8; 16];
        chunk.offsets.clear();
        chunk.offsets.push(0);
        for i in chunk.start..chunk.start + rows {
            let ra = self.row_a(i);
            let keys = &ra[rf..rf + nrules];
            for (r, &key) in keys.iter().enumerate() {
                if key == NO_KEY {
                    continue;
                }
                let mut produced = 0u64;
                let (js, data) = self.blocks[r].block(key, self.width);
                for (&j, rb) in js.iter().zip(data.chunks_exact(self.width)) {
                    let bkeys = &rb[rf..rf + nrules];
                    // A pair an earlier rule produced is skipped.
                    if (0..r).any(|q| keys[q] != NO_KEY && keys[q] == bkeys[q]) {
                        continue;
                    }
                    let mut set = 1u32 << r;
                    for q in r + 1..nrules {
                        if keys[q] != NO_KEY && keys[q] == bkeys[q] {
                            set |= 1 << q;
                        }
                    }
                    self.levels_of(ra, rb, &mut acc.memos, &mut buf[..k]);
                    let code = self.code(&buf[..k]);
                    chunk.released.push(j);
                    chunk.codes.push(C::from_u64(code));
                    match &mut acc.counts {
                        Counts::Dense(v) => v[(u64::from(set) * self.product + code) as usize] += 1,
                        Counts::Sparse(h) => *h.entry((set, code)).or_insert(0) += 1,
                    }
                    produced += 1;
                }
                acc.per_rule[r] += produced;
            }
            chunk.offsets.push(chunk.released.len());
        }
    }

    fn build_with<C: Code>(&self) -> (Vec<Chunk<C>>, Acc) {
        let mut chunks: Vec<Chunk<C>> = (0..self.ni.div_ceil(CHUNK_ROWS))
            .map(|c| Chunk {
                start: c * CHUNK_ROWS,
                ..Chunk::default()
            })
            .collect();
        let ni = self.ni;
        let acc = chunks
            .par_iter_mut()
            .fold(
                || self.acc(),
                |mut acc, chunk| {
                    let rows = CHUNK_ROWS.min(ni - chunk.start);
                    self.fill(chunk, rows, &mut acc);
                    chunk.released.shrink_to_fit();
                    chunk.codes.shrink_to_fit();
                    acc
                },
            )
            .reduce(
                || self.acc(),
                |mut x, y| {
                    match (&mut x.counts, y.counts) {
                        (Counts::Dense(a), Counts::Dense(b)) => {
                            for (s, t) in a.iter_mut().zip(b) {
                                *s += t;
                            }
                        }
                        (Counts::Sparse(a), Counts::Sparse(b)) => {
                            for (key, n) in b {
                                *a.entry(key).or_insert(0) += n;
                            }
                        }
                        _ => unreachable!("every task counts the same way"),
                    }
                    for (s, t) in x.per_rule.iter_mut().zip(y.per_rule) {
                        *s += t;
                    }
                    x
                },
            );
        (chunks, acc)
    }

    /// Blocking and comparison of every candidate pair; see the [module docs](self).
    pub fn build(&self) -> Built {
        if self.product <= u64::from(u32::MAX) {
            let (chunks, acc) = self.build_with::<u32>();
            self.finish(chunks, acc)
        } else {
            let (chunks, acc) = self.build_with::<u64>();
            self.finish(chunks, acc)
        }
    }

    /// Pattern list, counts and pattern indices in place of codes.
    fn finish<C: Code>(&self, chunks: Vec<Chunk<C>>, acc: Acc) -> Built {
        let mut triples: Vec<(u32, u64, u64)> = match acc.counts {
            Counts::Dense(v) => v
                .into_iter()
                .enumerate()
                .filter(|x| x.1 > 0)
                .map(|(x, n)| {
                    let x = x as u64;
                    ((x / self.product) as u32, x % self.product, n)
                })
                .collect(),
            Counts::Sparse(h) => h.into_iter().map(|((s, c), n)| (s, c, n)).collect(),
        };
        triples.sort_unstable();
        let mut patterns: Vec<u64> = triples.iter().map(|t| t.1).collect();
        patterns.sort_unstable();
        patterns.dedup();
        let index_of = |c: u64| patterns.binary_search(&c).expect("counted pattern") as u32;
        let mut counts = vec![0u64; patterns.len()];
        let by_rules: Vec<(u32, u32, u64)> = triples
            .iter()
            .map(|&(s, c, n)| {
                let p = index_of(c);
                counts[p as usize] += n;
                (s, p, n)
            })
            .collect();
        // Codes → pattern indices.
        let dense: Option<Vec<u32>> = (self.product <= 1 << 24).then(|| {
            let mut m = vec![u32::MAX; self.product as usize];
            for (p, &c) in patterns.iter().enumerate() {
                m[c as usize] = p as u32;
            }
            m
        });
        let sparse: foldhash::HashMap<u64, u32> = if dense.is_none() {
            patterns
                .iter()
                .enumerate()
                .map(|(p, &c)| (c, p as u32))
                .collect()
        } else {
            Default::default()
        };
        let remap = |c: u64| -> u32 {
            match &dense {
                Some(m) => m[c as usize],
                None => sparse[&c],
            }
        };
        let chunks: Vec<Chunk<u32>> = chunks
            .into_par_iter()
            .map(|ch| Chunk {
                start: ch.start,
                offsets: ch.offsets,
                released: ch.released,
                codes: ch.codes.into_iter().map(|c| remap(c.to_u64())).collect(),
            })
            .collect();
        Built {
            candidates: CandidatePairs {
                chunks,
                ni: self.ni,
            },
            patterns,
            counts,
            by_rules,
            per_rule: acc.per_rule.iter().map(|&n| n as usize).collect(),
        }
    }

    /// Records of the intruder's file.
    pub fn ni(&self) -> usize {
        self.ni
    }

    /// Records of the released file.
    pub fn nr(&self) -> usize {
        self.nr
    }
}

/// The levels of agreement and disagreement of a comparison with null, exact and else levels
/// only, on the values themselves (`columns-reversed` levels aside): compared by id alone.
pub(crate) fn exact_only(p: &Prepared) -> Option<(u8, u8)> {
    let kinds: Vec<LevelKind> = p.spec.levels.iter().map(|l| l.kind).collect();
    let first = |f: &dyn Fn(LevelKind) -> bool| -> u8 {
        kinds.iter().position(|&k| f(k)).unwrap_or(kinds.len() - 1) as u8
    };
    p.spec
        .levels
        .iter()
        .all(|l| {
            l.on.is_none()
                && matches!(
                    l.kind,
                    LevelKind::Null
                        | LevelKind::Exact
                        | LevelKind::Else
                        | LevelKind::ColumnsReversed
                )
        })
        .then(|| {
            (
                first(&|k| matches!(k, LevelKind::Exact | LevelKind::Else)),
                first(&|k| k == LevelKind::Else),
            )
        })
}

/// Whether the values recur: each file has at least [`REUSE_RECORDS_PER_VALUE`] records per
/// value it holds. Near-unique values (ids, dates of birth) recur in few pairs: their levels
/// are computed directly rather than through a table whose cells would each cost a cache miss.
pub(crate) fn reused(ni: usize, nr: usize, a_values: usize, b_values: usize) -> bool {
    ni >= REUSE_RECORDS_PER_VALUE * a_values && nr >= REUSE_RECORDS_PER_VALUE * b_values
}

/// Whether a comparison's levels go through a table of `cells` value pairs (and so u can be
/// counted from the values' frequencies).
pub(crate) fn tabled(cells: usize, reuse: bool, table_cells: usize) -> bool {
    cells <= table_cells && (cells <= TABLE_CACHED_MAX || reuse)
}

/// The table limit of [`Kernel::new`].
pub(crate) const TABLE_CELLS: usize = TABLE_CELLS_MAX;

/// The matcher of a comparison and the field value of every record of each file.
fn matcher(p: &Prepared, table_cells: usize, cached_cells: usize) -> (Matcher, Vec<u32>, Vec<u32>) {
    let miss = p.level_of_ids(MISSING, MISSING);
    if let Some((eq, ne)) = exact_only(p) {
        return (Matcher::Exact { miss, eq, ne }, p.a.clone(), p.b.clone());
    }
    // Per-file indices of the values each file holds, the most frequent first (then by id):
    // pairs of common values, most of the pairs, then read a small corner of the table that
    // stays in cache.
    let local = |ids: &[u32]| -> (Vec<u32>, Vec<u32>) {
        let mut count = vec![0u32; p.dict.len()];
        for &v in ids.iter().filter(|&&v| v != MISSING) {
            count[v as usize] += 1;
        }
        let mut back: Vec<u32> = (0..p.dict.len() as u32)
            .filter(|&v| count[v as usize] > 0)
            .collect();
        back.sort_by_key(|&v| (std::cmp::Reverse(count[v as usize]), v));
        let mut of = vec![u32::MAX; p.dict.len()];
        for (x, &v) in back.iter().enumerate() {
            of[v as usize] = x as u32;
        }
        let x = ids
            .iter()
            .map(|&v| {
                if v == MISSING {
                    MISSING
                } else {
                    of[v as usize]
                }
            })
            .collect();
        (x, back)
    };
    let (xa, a_ids) = local(&p.a);
    let (xb, b_ids) = local(&p.b);
    let cells = a_ids.len().saturating_mul(b_ids.len());
    let reuse = reused(p.a.len(), p.b.len(), a_ids.len(), b_ids.len());
    if tabled(cells, reuse, table_cells) {
        // Whole when small, else the corner of the most frequent values (about square, all
        // of a file's values when they are few).
        let (na, nb) = (a_ids.len(), b_ids.len());
        let (rows, nb) = if cells <= cached_cells {
            (na, nb)
        } else {
            let side = cached_cells.isqrt().max(1);
            let rows = na.min((cached_cells / nb.min(side)).max(1));
            (rows, nb.min((cached_cells / rows).max(1)))
        };
        let cells = (0..rows * nb).map(|_| AtomicU8::new(0)).collect();
        return (
            Matcher::Table {
                miss,
                rows,
                nb,
                cells,
                a_ids,
                b_ids,
            },
            xa,
            xb,
        );
    }
    let m = if p.fuzzy && reuse {
        Matcher::Memo { miss }
    } else {
        Matcher::Direct { miss }
    };
    (m, p.a.clone(), p.b.clone())
}

/// The weight of every pattern and which term-frequency adjustments apply to it.
#[derive(Debug, Clone)]
pub struct Scorer {
    /// `prior + Σ level weights`, per pattern index.
    pub base: Vec<f64>,
    /// Per pattern index, bit `c` set when comparison `c` is at its term-frequency-adjusted
    /// exact level.
    pub tf_mask: Vec<u16>,
    /// Per comparison with term frequencies, the adjustment by the intruder's value id.
    pub tf: Vec<Option<Vec<f64>>>,
    /// Per comparison, the intruder records' value ids.
    pub a_ids: Vec<Vec<u32>>,
}

impl Scorer {
    /// The weight of intruder row `i` paired at pattern index `p`:
    /// `(prior + Σ_c level weight_c) + Σ_c tf adjustment_c`, in comparison order.
    #[inline]
    pub fn weight(&self, i: usize, p: u32) -> f64 {
        let mut w = self.base[p as usize];
        let mut mask = self.tf_mask[p as usize];
        while mask != 0 {
            let c = mask.trailing_zeros() as usize;
            if let Some(t) = &self.tf[c] {
                w += t[self.a_ids[c][i] as usize];
            }
            mask &= mask - 1;
        }
        w
    }
}

/// A total order key of a weight, best first (ascending key = descending weight; NaN last).
#[inline]
fn desc_key(w: f64) -> u64 {
    if w.is_nan() {
        return u64::MAX;
    }
    let b = w.to_bits();
    let asc = if b >> 63 == 1 { !b } else { b | 1 << 63 };
    !asc
}

impl CandidatePairs {
    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.chunks.iter().map(|c| c.released.len()).sum()
    }

    /// True when there is no pair.
    pub fn is_empty(&self) -> bool {
        self.chunks.iter().all(|c| c.released.is_empty())
    }

    /// The pairs of intruder row `i`: released rows and pattern indices.
    pub fn of(&self, i: usize) -> (&[u32], &[u32]) {
        let ch = &self.chunks[i / CHUNK_ROWS];
        let r = i - ch.start;
        let (lo, hi) = (ch.offsets[r], ch.offsets[r + 1]);
        (&ch.released[lo..hi], &ch.codes[lo..hi])
    }

    /// Every pair as `(intruder row, released row, pattern index)`, by intruder row, in stored
    /// order.
    pub fn iter(&self) -> impl Iterator<Item = (usize, u32, u32)> + '_ {
        self.chunks.iter().flat_map(|ch| {
            (0..ch.offsets.len() - 1).flat_map(move |r| {
                (ch.offsets[r]..ch.offsets[r + 1])
                    .map(move |p| (ch.start + r, ch.released[p], ch.codes[p]))
            })
        })
    }

    /// Orders each intruder record's pairs best first (weight, then released row).
    pub fn sort_by_weight(&mut self, scorer: &Scorer) {
        self.chunks.par_iter_mut().for_each(|ch| {
            let mut buf: Vec<(u64, u32, u32)> = Vec::new();
            for r in 0..ch.offsets.len() - 1 {
                let (lo, hi) = (ch.offsets[r], ch.offsets[r + 1]);
                if hi - lo < 2 {
                    continue;
                }
                let i = ch.start + r;
                buf.clear();
                buf.extend((lo..hi).map(|p| {
                    (
                        desc_key(scorer.weight(i, ch.codes[p])),
                        ch.released[p],
                        ch.codes[p],
                    )
                }));
                buf.sort_unstable();
                for (p, &(_, j, c)) in (lo..hi).zip(&buf) {
                    ch.released[p] = j;
                    ch.codes[p] = c;
                }
            }
        });
    }

    /// Greedy one-to-one over every pair (NaN weights left out), in the order weight
    /// (descending), intruder row, released row ([`predict::greedy_lists`]); needs
    /// [`sort_by_weight`](Self::sort_by_weight) first. Per intruder row, its released row and
    /// weight.
    pub fn greedy(&self, scorer: &Scorer, nr: usize) -> Vec<Option<(u32, f64)>> {
        predict::greedy_lists(&Scored(self, scorer), nr)
    }
}

/// CandidatePairs with their weights, as lists for the greedy assignment.
struct Scored<'a>(&'a CandidatePairs, &'a Scorer);

impl predict::SortedLists for Scored<'_> {
    fn records(&self) -> usize {
        self.0.ni
    }
    fn len_of(&self, i: usize) -> usize {
        self.0.of(i).0.len()
    }
    fn at(&self, i: usize, pos: usize) -> (u32, f64) {
        let (js, ps) = self.0.of(i);
        (js[pos], self.1.weight(i, ps[pos]))
    }
}
