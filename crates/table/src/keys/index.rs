//! The missingness-pattern index (docs/METHODS.md §1.2): which stored records agree with a query on
//! every key observed in both, without comparing every pair.
//!
//! Stored entries are grouped by their pattern of observed keys `Q`. A query of pattern `P`
//! agrees with an entry of `Q` exactly when the two are equal on the keys `C = P ∩ Q` observed
//! in both, so one hash table keyed by the projection on `C` answers every query of `P` against
//! every entry of `Q`; stored patterns with the same `C` share one table. The cost is
//! O((queries + entries) · patterns) instead of O(queries · entries).
//!
//! - A **self-join** ([`PatternIndex::self_join`]) counts, for every entry, the entries that
//!   match it and their summed weight: Mulder's n_match and sdcMicro's weighted `Fk` with `NA`
//!   keys, when the entries are a file's distinct key tuples.
//! - A **cross-join** ([`PatternIndex::cross_join`]) lists, for every record of another file
//!   coded with the same dictionaries, the stored records that match it: the candidates of
//!   exact matching.
//! - The index is **updatable** ([`PatternIndex::count_as`], [`PatternIndex::suppress`],
//!   [`PatternIndex::restore`]): suppressing a cell moves a record to another pattern, and the
//!   tables built so far follow, as local suppression needs.
//!
//! Both joins hash the smaller side of each `(P, C)` (the entries, or the queries' projections)
//! and give the same answer whatever the number of threads. Keys matched by candidate masks
//! ([`SetMasks`]) are left out of the projection; an entry found in the table then matches
//! when, on every such key in `C`, the query's mask and the entry's stored mask intersect.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

use foldhash::fast::FixedState;
use rayon::prelude::*;

use crate::keys::codes::{Keys, MISSING, SetMasks};

/// Entries at or above which the query patterns of a join are solved in parallel.
const PARALLEL_MIN: usize = 1 << 14;

/// The fewest queries in a chunk when the queries of one pattern are split to be solved in
/// parallel.
const MIN_CHUNK: usize = 1 << 16;

/// An index of stored entries (records, or distinct key tuples with their multiplicity and
/// summed weight) by missingness pattern; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct PatternIndex {
    /// Per key, the code of each entry ([`MISSING`] where unobserved).
    codes: Vec<Vec<u32>>,
    /// Per key, its cardinality (at least 1): the radix of projections.
    radix: Vec<u64>,
    /// Per key, the entries' candidate masks when the key is matched by candidates.
    sets: Vec<Option<SetMasks>>,
    /// Keys matched by candidates, as a bit mask.
    set_keys: u64,
    /// Current pattern of observed keys of each entry.
    pattern: Vec<u64>,
    /// Pattern of each entry as indexed (a restored key must have been observed).
    base: Vec<u64>,
    /// Row of the file each entry stands for (its first row, for a tuple).
    rows: Vec<u32>,
    /// Records each entry stands for.
    size: Vec<u32>,
    /// Summed weight of those records (0 without weights).
    weight: Vec<f64>,
    weighted: bool,
    /// Whether entries are distinct tuples (no two equal on every key).
    distinct: bool,
    live: Live,
}

/// The tables of the updatable path, built on demand and kept in step with the patterns.
#[derive(Debug, Clone, Default)]
struct Live {
    /// Entries per current pattern.
    by_pattern: BTreeMap<u64, usize>,
    /// The table of `(C, Q)`: entries of pattern `Q` by their projection on `C`.
    tables: HashMap<(u64, u64), LiveTable, FixedState>,
    /// The `C`s with a table, per `Q`.
    tables_of: HashMap<u64, Vec<u64>, FixedState>,
}

/// How a projection is represented: exact in every case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Width {
    /// Mixed-radix code in 64 bits.
    U64,
    /// Mixed-radix code in 128 bits.
    U128,
    /// The codes themselves.
    Wide,
}

/// The projection of entries on the keys of a `C` that are not matched by candidates.
#[derive(Debug, Clone)]
struct Projector {
    keys: Vec<usize>,
    radix: Vec<u64>,
    width: Width,
}

impl Projector {
    fn new(keys_mask: u64, radix_all: &[u64]) -> Projector {
        let keys = bits(keys_mask);
        let radix: Vec<u64> = keys.iter().map(|&k| radix_all[k]).collect();
        let width = if radix
            .iter()
            .try_fold(1u64, |a, &r| a.checked_mul(r))
            .is_some()
        {
            Width::U64
        } else if radix
            .iter()
            .try_fold(1u128, |a, &r| a.checked_mul(r as u128))
            .is_some()
        {
            Width::U128
        } else {
            Width::Wide
        };
        Projector { keys, radix, width }
    }

    #[inline]
    fn u64(&self, code: impl Fn(usize) -> u32) -> u64 {
        self.keys.iter().zip(&self.radix).fold(0u64, |a, (&k, &r)| {
            a.wrapping_mul(r).wrapping_add(code(k) as u64)
        })
    }

    #[inline]
    fn u128(&self, code: impl Fn(usize) -> u32) -> u128 {
        self.keys
            .iter()
            .zip(&self.radix)
            .fold(0u128, |a, (&k, &r)| a * r as u128 + code(k) as u128)
    }

    #[inline]
    fn wide(&self, code: impl Fn(usize) -> u32) -> Box<[u32]> {
        self.keys.iter().map(|&k| code(k)).collect()
    }
}

/// A hash map keyed by projections of one width.
#[derive(Debug, Clone)]
enum ProjMap<V> {
    U64(HashMap<u64, V, FixedState>),
    U128(HashMap<u128, V, FixedState>),
    Wide(HashMap<Box<[u32]>, V, FixedState>),
}

impl<V: Default> ProjMap<V> {
    fn new(width: Width) -> Self {
        match width {
            Width::U64 => ProjMap::U64(HashMap::default()),
            Width::U128 => ProjMap::U128(HashMap::default()),
            Width::Wide => ProjMap::Wide(HashMap::default()),
        }
    }

    #[inline]
    fn get(&self, p: &Projector, code: impl Fn(usize) -> u32) -> Option<&V> {
        match self {
            ProjMap::U64(m) => m.get(&p.u64(code)),
            ProjMap::U128(m) => m.get(&p.u128(code)),
            ProjMap::Wide(m) => m.get(&p.wide(code)),
        }
    }

    #[inline]
    fn entry(&mut self, p: &Projector, code: impl Fn(usize) -> u32) -> &mut V {
        match self {
            ProjMap::U64(m) => m.entry(p.u64(code)).or_default(),
            ProjMap::U128(m) => m.entry(p.u128(code)).or_default(),
            ProjMap::Wide(m) => m.entry(p.wide(code)).or_default(),
        }
    }

    /// Applies `f` to the value of the projection, removing it when `f` says it is empty.
    #[inline]
    fn update(
        &mut self,
        p: &Projector,
        code: impl Fn(usize) -> u32,
        f: impl FnOnce(&mut V) -> bool,
    ) {
        fn go<K: Hash + Eq, V>(
            m: &mut HashMap<K, V, FixedState>,
            k: K,
            f: impl FnOnce(&mut V) -> bool,
        ) {
            if let Some(v) = m.get_mut(&k)
                && f(v)
            {
                m.remove(&k);
            }
        }
        match self {
            ProjMap::U64(m) => go(m, p.u64(code), f),
            ProjMap::U128(m) => go(m, p.u128(code), f),
            ProjMap::Wide(m) => go(m, p.wide(code), f),
        }
    }
}

/// One table of the updatable path.
#[derive(Debug, Clone)]
struct LiveTable {
    proj: Projector,
    /// Keys of `C` matched by candidates.
    set_c: u64,
    /// Without candidate keys in `C`: count and weight per projection. With them: the entries
    /// per projection, filtered by their masks at each look-up.
    map: LiveMap,
}

#[derive(Debug, Clone)]
enum LiveMap {
    Counts(ProjMap<(u64, f64)>),
    Entries(ProjMap<Vec<u32>>),
}

/// The set bits of a mask, in increasing order.
fn bits(mut m: u64) -> Vec<usize> {
    let mut out = Vec::with_capacity(m.count_ones() as usize);
    while m != 0 {
        out.push(m.trailing_zeros() as usize);
        m &= m - 1;
    }
    out
}

/// A set of words as one bit per hash (a Bloom filter with one hash): a word not in the set is
/// told so without a table lookup, most of the time; a word in it always passes.
struct WordFilter {
    bits: Vec<u64>,
    shift: u32,
}

impl WordFilter {
    /// The filter of `words`, about 16 bits per word (`count` of them), at least 4,096 bits and
    /// at most 2^22.
    fn of(words: impl Iterator<Item = u64>, count: usize) -> WordFilter {
        let log = (count.max(1) * 16)
            .next_power_of_two()
            .trailing_zeros()
            .clamp(12, 22);
        let mut f = WordFilter {
            bits: vec![0u64; 1 << (log - 6)],
            shift: 64 - log,
        };
        for w in words {
            let h = f.slot(w);
            f.bits[h >> 6] |= 1 << (h & 63);
        }
        f
    }

    #[inline]
    fn slot(&self, w: u64) -> usize {
        (w.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> self.shift) as usize
    }

    /// False when `w` is certainly not in the set.
    #[inline]
    fn may_hold(&self, w: u64) -> bool {
        let h = self.slot(w);
        self.bits[h >> 6] >> (h & 63) & 1 == 1
    }
}

/// Where the queries of a join take their codes and masks.
trait Probe: Sync {
    fn code(&self, k: usize, q: u32) -> u32;
    fn mask(&self, k: usize, q: u32) -> &[u64];
}

/// The entries as their own queries (their query masks).
struct SelfProbe<'a>(&'a PatternIndex);

impl Probe for SelfProbe<'_> {
    #[inline]
    fn code(&self, k: usize, q: u32) -> u32 {
        self.0.codes[k][q as usize]
    }
    #[inline]
    fn mask(&self, k: usize, q: u32) -> &[u64] {
        self.0.sets[k]
            .as_ref()
            .expect("a candidate key has masks")
            .query(q as usize)
    }
}

/// The records of another file.
struct KeysProbe<'a>(&'a Keys);

impl Probe for KeysProbe<'_> {
    #[inline]
    fn code(&self, k: usize, q: u32) -> u32 {
        self.0.codes[k][q as usize]
    }
    #[inline]
    fn mask(&self, k: usize, q: u32) -> &[u64] {
        self.0.sets[k]
            .as_ref()
            .expect("a candidate key has masks")
            .query(q as usize)
    }
}

/// What a join collects: per projection a bucket of stored entries, per query an output.
trait Gather: Sync {
    type Bucket: Default + Clone;
    type Out: Default + Send;
    /// Adds stored entry `e` to a bucket.
    fn add(&self, b: &mut Self::Bucket, e: u32);
    /// Gives a query the entries of a bucket.
    fn take(&self, o: &mut Self::Out, b: &Self::Bucket);
    /// Gives a query one entry.
    fn take_one(&self, o: &mut Self::Out, e: u32);
    /// Readies a bucket once every entry is in it, before queries take from it.
    fn seal(&self, _b: &mut Self::Bucket) {}
}

/// Counts records and sums weights.
struct Count<'a> {
    size: &'a [u32],
    weight: &'a [f64],
}

impl Gather for Count<'_> {
    type Bucket = (u64, f64);
    type Out = (u64, f64);
    #[inline]
    fn add(&self, b: &mut (u64, f64), e: u32) {
        b.0 += self.size[e as usize] as u64;
        b.1 += self.weight[e as usize];
    }
    #[inline]
    fn take(&self, o: &mut (u64, f64), b: &(u64, f64)) {
        o.0 += b.0;
        o.1 += b.1;
    }
    #[inline]
    fn take_one(&self, o: &mut (u64, f64), e: u32) {
        o.0 += self.size[e as usize] as u64;
        o.1 += self.weight[e as usize];
    }
}

/// Lists the rows of the entries.
struct Rows<'a> {
    rows: &'a [u32],
}

impl Gather for Rows<'_> {
    type Bucket = Vec<u32>;
    type Out = Vec<u32>;
    #[inline]
    fn add(&self, b: &mut Vec<u32>, e: u32) {
        b.push(self.rows[e as usize]);
    }
    #[inline]
    fn take(&self, o: &mut Vec<u32>, b: &Vec<u32>) {
        o.extend_from_slice(b);
    }
    #[inline]
    fn take_one(&self, o: &mut Vec<u32>, e: u32) {
        o.push(self.rows[e as usize]);
    }
}

/// Counts the rows of the entries and lists the smallest `max` of them: memory O(max) per
/// query however many entries match.
struct Capped<'a> {
    rows: &'a [u32],
    max: usize,
}

impl Capped<'_> {
    /// Keeps the smallest `max` rows once the list holds twice as many.
    #[inline]
    fn shrink(&self, o: &mut (u64, Vec<u32>)) {
        if o.1.len() >= 2 * self.max.max(1) {
            o.1.sort_unstable();
            o.1.truncate(self.max);
        }
    }
}

impl Gather for Capped<'_> {
    type Bucket = Vec<u32>;
    type Out = (u64, Vec<u32>);
    #[inline]
    fn add(&self, b: &mut Vec<u32>, e: u32) {
        b.push(self.rows[e as usize]);
    }
    #[inline]
    fn take(&self, o: &mut (u64, Vec<u32>), b: &Vec<u32>) {
        // A sealed bucket is sorted: its smallest rows come first.
        o.0 += b.len() as u64;
        o.1.extend_from_slice(&b[..b.len().min(self.max)]);
        self.shrink(o);
    }
    #[inline]
    fn take_one(&self, o: &mut (u64, Vec<u32>), e: u32) {
        o.0 += 1;
        o.1.push(self.rows[e as usize]);
        self.shrink(o);
    }
    fn seal(&self, b: &mut Vec<u32>) {
        b.sort_unstable();
    }
}

impl PatternIndex {
    /// Indexes records of a file: `rows` (every row when `None`), each an entry of its own,
    /// weighing `weights[row]` (one weight per row of the file) when given.
    ///
    /// # Panics
    /// When a row or the weights do not fit the keys, or there are more than 64 keys.
    pub fn records(keys: &Keys, rows: Option<&[u32]>, weights: Option<&[f64]>) -> PatternIndex {
        let (codes, sets, rows) = match rows {
            None => (
                keys.codes.clone(),
                keys.sets.clone(),
                (0..keys.n as u32).collect::<Vec<u32>>(),
            ),
            Some(rows) => (
                keys.codes
                    .iter()
                    .map(|c| rows.iter().map(|&r| c[r as usize]).collect())
                    .collect(),
                keys.sets
                    .iter()
                    .map(|s| s.as_ref().map(|s| s.take(rows)))
                    .collect(),
                rows.to_vec(),
            ),
        };
        let m = rows.len();
        let weight = match weights {
            Some(w) => {
                assert_eq!(w.len(), keys.n, "one weight per row");
                rows.iter().map(|&r| w[r as usize]).collect()
            }
            None => vec![0.0; m],
        };
        PatternIndex::build(
            codes,
            &keys.card,
            sets,
            rows,
            vec![1; m],
            weight,
            weights.is_some(),
            false,
        )
    }

    /// Indexes the distinct tuples of `rows` on the keys `subset` (indices into `keys`, in
    /// increasing order; missing is a value of its own for telling tuples apart): one entry
    /// per tuple, in order of first appearance, standing for its records and their summed
    /// weight. Returns the index (its keys are `subset`, renumbered from 0) and the entry of
    /// each row of `rows`.
    ///
    /// # Panics
    /// When a key index or row is out of range, or `subset` has more than 64 keys.
    pub fn distinct(
        keys: &Keys,
        subset: &[usize],
        rows: &[u32],
        weights: Option<&[f64]>,
    ) -> (PatternIndex, Vec<u32>) {
        let c = &keys.codes;
        let tuples = Tuples::of(
            rows,
            subset.len(),
            weights,
            |i| -> Box<[u32]> { subset.iter().map(|&k| c[k][rows[i] as usize]).collect() },
            |key, j| key[j],
        );
        let card: Vec<u32> = subset.iter().map(|&k| keys.card[k]).collect();
        let sets: Vec<Option<SetMasks>> = subset
            .iter()
            .map(|&k| keys.sets[k].as_ref().map(|s| s.take(&tuples.reps)))
            .collect();
        tuples.index(&card, sets, weights.is_some())
    }

    /// [`PatternIndex::distinct`] on the keys `packing` packs, from `words[i]`, the packed
    /// word of `rows[i]` (a group's rows lie anywhere in the file: their words, gathered once
    /// in group order, are read in order). The same index and entries as `distinct` on those
    /// keys.
    ///
    /// # Panics
    /// When `words` and `rows` differ in length.
    pub fn distinct_packed(
        packing: &Packing,
        words: &[u64],
        rows: &[u32],
        weights: Option<&[f64]>,
    ) -> (PatternIndex, Vec<u32>) {
        assert_eq!(words.len(), rows.len(), "one word per row");
        let nv = packing.nkeys();
        let tuples = Tuples::of(
            rows,
            nv,
            weights,
            |i| words[i],
            |&word, j| packing.code(word, j),
        );
        tuples.index(&packing.card, vec![None; nv], weights.is_some())
    }

    #[allow(clippy::too_many_arguments)]
    fn build(
        codes: Vec<Vec<u32>>,
        card: &[u32],
        sets: Vec<Option<SetMasks>>,
        rows: Vec<u32>,
        size: Vec<u32>,
        weight: Vec<f64>,
        weighted: bool,
        distinct: bool,
    ) -> PatternIndex {
        let nk = codes.len();
        assert!(nk <= 64, "at most 64 keys");
        let m = rows.len();
        let pattern: Vec<u64> = (0..m)
            .map(|e| {
                (0..nk)
                    .filter(|&k| codes[k][e] != MISSING)
                    .fold(0u64, |p, k| p | 1 << k)
            })
            .collect();
        let set_keys = sets
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some())
            .fold(0u64, |p, (k, _)| p | 1 << k);
        let mut live = Live::default();
        for &p in &pattern {
            *live.by_pattern.entry(p).or_insert(0) += 1;
        }
        PatternIndex {
            radix: card.iter().map(|&c| c.max(1) as u64).collect(),
            codes,
            sets,
            set_keys,
            base: pattern.clone(),
            pattern,
            rows,
            size,
            weight,
            weighted,
            distinct,
            live,
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// True when there is no entry.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Number of keys.
    pub fn nkeys(&self) -> usize {
        self.codes.len()
    }

    /// The current pattern of observed keys of entry `e` (bit `k` = key `k` observed).
    pub fn pattern(&self, e: usize) -> u64 {
        self.pattern[e]
    }

    /// The row of the file that entry `e` stands for (the first, for a tuple).
    pub fn row(&self, e: usize) -> u32 {
        self.rows[e]
    }

    /// The number of records entry `e` stands for (1 for a record, the multiplicity of a tuple).
    pub fn size(&self, e: usize) -> u32 {
        self.size[e]
    }

    /// The summed weight of the records entry `e` stands for (their number without weights).
    pub fn weight(&self, e: usize) -> f64 {
        if self.weighted {
            self.weight[e]
        } else {
            self.size[e] as f64
        }
    }

    /// Entries by current pattern, each list in increasing order.
    fn members(&self) -> BTreeMap<u64, Vec<u32>> {
        let mut members: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
        for (e, &p) in self.pattern.iter().enumerate() {
            members.entry(p).or_default().push(e as u32);
        }
        members
    }

    /// For every entry, the records of the entries matching it (itself included) and their
    /// summed weight (0 without weights): a query asks with its query masks, an entry offers
    /// its stored masks.
    pub fn self_join(&self) -> Vec<(u64, f64)> {
        let members = self.members();
        let g = Count {
            size: &self.size,
            weight: &self.weight,
        };
        let solved = self.join_all(&members, &SelfProbe(self), &members, &g, true);
        let mut out = vec![(0u64, 0.0f64); self.len()];
        for (queries, res) in solved {
            for (&q, r) in queries.iter().zip(res) {
                out[q as usize] = r;
            }
        }
        out
    }

    /// For every record of `queries` (a file coded with the same dictionaries, e.g. by
    /// [`encode_pairs`](crate::keys::encode_pairs)) that `active` admits, the rows of the
    /// stored entries matching it, in increasing order; an empty list for the others.
    ///
    /// # Panics
    /// When `queries` has other keys or cardinalities than the index.
    pub fn cross_join(&self, queries: &Keys, active: impl Fn(usize) -> bool) -> Vec<Vec<u32>> {
        assert_eq!(queries.len(), self.nkeys(), "the same keys on both sides");
        for (k, &c) in queries.card.iter().enumerate() {
            assert!(
                (c.max(1) as u64) <= self.radix[k],
                "the queries are coded with the index's dictionaries"
            );
        }
        let mut qmembers: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
        for i in (0..queries.n).filter(|&i| active(i)) {
            qmembers
                .entry(queries.pattern(i))
                .or_default()
                .push(i as u32);
        }
        let g = Rows { rows: &self.rows };
        let solved = self.join_all(&qmembers, &KeysProbe(queries), &self.members(), &g, false);
        let mut out = vec![Vec::new(); queries.n];
        for (qs, res) in solved {
            for (&q, mut r) in qs.iter().zip(res) {
                r.sort_unstable();
                out[q as usize] = r;
            }
        }
        out
    }

    /// For every record of `queries` (coded with the index's dictionaries) that `active`
    /// admits, the records the matching entries stand for and their summed weight (0 without
    /// weights); `(0, 0)` for the others. On an index of distinct tuples
    /// ([`PatternIndex::distinct`]) this counts records with one table entry per tuple.
    ///
    /// # Panics
    /// As [`cross_join`](Self::cross_join).
    pub fn cross_counts(&self, queries: &Keys, active: impl Fn(usize) -> bool) -> Vec<(u64, f64)> {
        assert_eq!(queries.len(), self.nkeys(), "the same keys on both sides");
        for (k, &c) in queries.card.iter().enumerate() {
            assert!(
                (c.max(1) as u64) <= self.radix[k],
                "the queries are coded with the index's dictionaries"
            );
        }
        let mut qmembers: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
        for i in (0..queries.n).filter(|&i| active(i)) {
            qmembers
                .entry(queries.pattern(i))
                .or_default()
                .push(i as u32);
        }
        let g = Count {
            size: &self.size,
            weight: &self.weight,
        };
        let solved = self.join_all(&qmembers, &KeysProbe(queries), &self.members(), &g, false);
        let mut out = vec![(0u64, 0.0f64); queries.n];
        for (qs, res) in solved {
            for (&q, r) in qs.iter().zip(res) {
                out[q as usize] = r;
            }
        }
        out
    }

    /// The record counts of [`self_join`](Self::self_join) and of
    /// [`cross_counts`](Self::cross_counts) for every record of `queries` at once (weights left
    /// out): per entry the records of the entries matching it, per query the records of the
    /// entries matching it. The same numbers as the two calls.
    ///
    /// When no key is matched by candidates and the keys pack into 64 bits, the complete entries
    /// and the complete queries (usually most of both) meet each pattern with a blank in one pass
    /// over a small table per pattern, each pair of sides counted once in both directions, and
    /// only the entries and queries with blanks go through the general join; otherwise the two
    /// calls themselves.
    ///
    /// # Panics
    /// As [`cross_join`](Self::cross_join).
    pub fn match_counts(&self, queries: &Keys) -> (Vec<u64>, Vec<u64>) {
        let general = || {
            let (own, cross) =
                rayon::join(|| self.self_join(), || self.cross_counts(queries, |_| true));
            (
                own.into_iter().map(|(n, _)| n).collect(),
                cross.into_iter().map(|(n, _)| n).collect(),
            )
        };
        let nk = self.nkeys();
        if self.set_keys != 0 || nk == 0 || nk >= 64 {
            return general();
        }
        let card: Vec<u32> = self.radix.iter().map(|&r| r as u32).collect();
        let Some(packing) = Packing::of_cards(&card) else {
            return general();
        };
        assert_eq!(queries.len(), nk, "the same keys on both sides");
        for (k, &c) in queries.card.iter().enumerate() {
            assert!(
                (c.max(1) as u64) <= self.radix[k],
                "the queries are coded with the index's dictionaries"
            );
        }
        let full = (1u64 << nk) - 1;
        let members = self.members();
        let no_entries = Vec::new();
        let complete: &[u32] = members.get(&full).unwrap_or(&no_entries);
        let blanked: BTreeMap<u64, Vec<u32>> = members
            .iter()
            .filter(|(p, _)| **p != full)
            .map(|(&p, e)| (p, e.clone()))
            .collect();
        let entry_word = |e: u32| packing.pack((0..nk).map(|k| self.codes[k][e as usize]));
        let query_word = |q: usize| packing.pack((0..nk).map(|k| queries.codes[k][q]));
        let entry_words: Vec<u64> = complete.iter().map(|&e| entry_word(e)).collect();
        let (mut whole, mut partial) = (Vec::new(), BTreeMap::<u64, Vec<u32>>::new());
        for q in 0..queries.n {
            match queries.pattern(q) {
                p if p == full => whole.push(q as u32),
                p => partial.entry(p).or_default().push(q as u32),
            }
        }
        let query_words: Vec<u64> = whole.iter().map(|&q| query_word(q as usize)).collect();
        let size = |e: u32| self.size[e as usize] as u64;

        let mut own = vec![0u64; self.len()];
        let mut cross = vec![0u64; queries.n];
        // Complete against complete: equal words.
        let mut by_word: HashMap<u64, u64, FixedState> =
            HashMap::with_capacity_and_hasher(complete.len(), FixedState::default());
        for (&e, &w) in complete.iter().zip(&entry_words) {
            *by_word.entry(w).or_insert(0) += size(e);
        }
        for (&e, w) in complete.iter().zip(&entry_words) {
            own[e as usize] += by_word[w];
        }
        for (&q, w) in whole.iter().zip(&query_words) {
            cross[q as usize] += by_word.get(w).copied().unwrap_or(0);
        }
        // Complete against each pattern with blanks: a complete word agrees with an entry of
        // pattern `p` when it equals the entry's word on `p`'s fields. One table per pattern
        // (its entries by word) meets every complete entry and query once; each side's records
        // are added to the other's.
        let fields_of = |p: u64| -> u64 {
            (0..nk).filter(|&k| p >> k & 1 == 1).fold(0u64, |m, k| {
                let (offset, mask) = packing.fields_of(k);
                m | mask << offset
            })
        };
        let meet = |(&p, entries): (&u64, &Vec<u32>)| {
            let fields = fields_of(p);
            // per word of the pattern: its entries' records, the complete entries' records
            let mut table: HashMap<u64, (u64, u64), FixedState> =
                HashMap::with_capacity_and_hasher(entries.len(), FixedState::default());
            // and a bit per word's hash, which turns most complete words away without a lookup
            let filter = WordFilter::of(entries.iter().map(|&e| entry_word(e)), entries.len());
            for &e in entries {
                table.entry(entry_word(e)).or_insert((0, 0)).0 += size(e);
            }
            // only the complete entries and queries that meet an entry: (position, records)
            let mut to_complete: Vec<(u32, u64)> = Vec::new();
            for (i, (&e, &w)) in complete.iter().zip(&entry_words).enumerate() {
                let w = w & fields;
                if !filter.may_hold(w) {
                    continue;
                }
                if let Some(slot) = table.get_mut(&w) {
                    slot.1 += size(e);
                    to_complete.push((i as u32, slot.0));
                }
            }
            let mut to_whole: Vec<(u32, u64)> = Vec::new();
            for (i, &w) in query_words.iter().enumerate() {
                let w = w & fields;
                if !filter.may_hold(w) {
                    continue;
                }
                if let Some(slot) = table.get(&w) {
                    to_whole.push((i as u32, slot.0));
                }
            }
            let to_entries: Vec<(u32, u64)> = entries
                .iter()
                .map(|&e| (e, table[&entry_word(e)].1))
                .collect();
            (to_complete, to_whole, to_entries)
        };
        let met: Vec<_> = if blanked.len() > 1 && self.len() >= PARALLEL_MIN {
            blanked.par_iter().map(meet).collect()
        } else {
            blanked.iter().map(meet).collect()
        };
        for (to_complete, to_whole, to_entries) in met {
            for (i, n) in to_complete {
                own[complete[i as usize] as usize] += n;
            }
            for (i, n) in to_whole {
                cross[whole[i as usize] as usize] += n;
            }
            for (e, n) in to_entries {
                own[e as usize] += n;
            }
        }
        // Entries with blanks against each other, and queries with blanks against every
        // entry: the general join.
        let g = Count {
            size: &self.size,
            weight: &self.weight,
        };
        let (among, partial_solved) = rayon::join(
            || self.join_all(&blanked, &SelfProbe(self), &blanked, &g, true),
            || self.join_all(&partial, &KeysProbe(queries), &members, &g, false),
        );
        for (es, res) in among {
            for (&e, (n, _)) in es.iter().zip(res) {
                own[e as usize] += n;
            }
        }
        for (qs, res) in partial_solved {
            for (&q, (n, _)) in qs.iter().zip(res) {
                cross[q as usize] += n;
            }
        }
        (own, cross)
    }

    /// As [`cross_join`](Self::cross_join), but per query the number of matching rows and only
    /// the smallest `max` of them, in increasing order: memory O(queries · max + entries)
    /// however many pairs match (a binary key on two files of n records matches n²/2 pairs).
    /// The count is exact and the list is the start of `cross_join`'s list.
    ///
    /// # Panics
    /// As [`cross_join`](Self::cross_join).
    pub fn cross_join_capped(
        &self,
        queries: &Keys,
        active: impl Fn(usize) -> bool,
        max: usize,
    ) -> Vec<(u64, Vec<u32>)> {
        assert_eq!(queries.len(), self.nkeys(), "the same keys on both sides");
        for (k, &c) in queries.card.iter().enumerate() {
            assert!(
                (c.max(1) as u64) <= self.radix[k],
                "the queries are coded with the index's dictionaries"
            );
        }
        let mut qmembers: BTreeMap<u64, Vec<u32>> = BTreeMap::new();
        for i in (0..queries.n).filter(|&i| active(i)) {
            qmembers
                .entry(queries.pattern(i))
                .or_default()
                .push(i as u32);
        }
        let g = Capped {
            rows: &self.rows,
            max,
        };
        let solved = self.join_all(&qmembers, &KeysProbe(queries), &self.members(), &g, false);
        let mut out = vec![(0u64, Vec::new()); queries.n];
        for (qs, res) in solved {
            for (&q, mut r) in qs.iter().zip(res) {
                r.1.sort_unstable();
                r.1.truncate(max);
                r.1.shrink_to_fit();
                out[q as usize] = r;
            }
        }
        out
    }

    /// Solves every query pattern (in parallel when the index is large).
    fn join_all<'q, P: Probe, G: Gather>(
        &self,
        queries: &'q BTreeMap<u64, Vec<u32>>,
        probe: &P,
        stored: &BTreeMap<u64, Vec<u32>>,
        g: &G,
        self_join: bool,
    ) -> Vec<(&'q [u32], Vec<G::Out>)> {
        let mut pats: Vec<(u64, &'q [u32])> =
            queries.iter().map(|(&p, q)| (p, q.as_slice())).collect();
        // Few query patterns (every query complete, say) but many queries: the queries of a
        // pattern are split into about two chunks per thread, each solved on its own and
        // building the stored side's tables again. A query's figures are summed over the same
        // tables in the same order whatever chunk it falls in, so the result does not depend
        // on the number of threads.
        let threads = rayon::current_num_threads();
        let total: usize = pats.iter().map(|(_, q)| q.len()).sum();
        if threads > 1 && pats.len() < threads && total >= MIN_CHUNK && self.len() >= PARALLEL_MIN {
            let size = total.div_ceil(2 * threads).max(MIN_CHUNK);
            pats = pats
                .into_iter()
                .flat_map(|(p, qs)| qs.chunks(size).map(move |c| (p, c)))
                .collect();
        }
        let solve = |&(p, qs): &(u64, &'q [u32])| {
            (qs, self.join_pattern(p, qs, probe, stored, g, self_join))
        };
        if pats.len() > 1 && self.len() >= PARALLEL_MIN {
            pats.par_iter().map(solve).collect()
        } else {
            pats.iter().map(solve).collect()
        }
    }

    /// The outputs of the queries of pattern `p`: stored patterns are grouped by `C = P ∩ Q`,
    /// each group answered by one table.
    fn join_pattern<P: Probe, G: Gather>(
        &self,
        p: u64,
        queries: &[u32],
        probe: &P,
        stored: &BTreeMap<u64, Vec<u32>>,
        g: &G,
        self_join: bool,
    ) -> Vec<G::Out> {
        let mut out: Vec<G::Out> = (0..queries.len()).map(|_| G::Out::default()).collect();
        let mut by_c: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for &q in stored.keys() {
            by_c.entry(p & q).or_default().push(q);
        }
        for (c, qs) in by_c {
            let st: Vec<&[u32]> = qs.iter().map(|q| stored[q].as_slice()).collect();
            if self_join && self.distinct && c == p && qs == [p] && p & self.set_keys == 0 {
                // Only the queries' own pattern agrees on all of P, and entries are distinct:
                // each matches itself alone.
                for (o, &q) in out.iter_mut().zip(queries) {
                    g.take_one(o, q);
                }
                continue;
            }
            let proj = Projector::new(c & !self.set_keys, &self.radix);
            let set_c = c & self.set_keys;
            let codes = &self.codes;
            match proj.width {
                Width::U64 => self.match_c(
                    |t| proj.u64(|k| codes[k][t as usize]),
                    |q| proj.u64(|k| probe.code(k, q)),
                    &st,
                    queries,
                    set_c,
                    probe,
                    g,
                    &mut out,
                ),
                Width::U128 => self.match_c(
                    |t| proj.u128(|k| codes[k][t as usize]),
                    |q| proj.u128(|k| probe.code(k, q)),
                    &st,
                    queries,
                    set_c,
                    probe,
                    g,
                    &mut out,
                ),
                Width::Wide => self.match_c(
                    |t| proj.wide(|k| codes[k][t as usize]),
                    |q| proj.wide(|k| probe.code(k, q)),
                    &st,
                    queries,
                    set_c,
                    probe,
                    g,
                    &mut out,
                ),
            }
        }
        out
    }

    /// Whether query `q` and stored entry `t` share a candidate on every key of `set_c`.
    #[inline]
    fn masks_match<P: Probe>(&self, set_c: u64, t: u32, probe: &P, q: u32) -> bool {
        let mut m = set_c;
        while m != 0 {
            let k = m.trailing_zeros() as usize;
            m &= m - 1;
            let s = self.sets[k]
                .as_ref()
                .expect("a candidate key has masks")
                .stored(t as usize);
            if !SetMasks::overlap(probe.mask(k, q), s) {
                return false;
            }
        }
        true
    }

    /// Gives each query the stored entries whose projection equals its own (and whose masks
    /// meet its masks on `set_c`). Without candidate keys the smaller side is hashed.
    #[allow(clippy::too_many_arguments)]
    fn match_c<K: Hash + Eq, P: Probe, G: Gather>(
        &self,
        proj_s: impl Fn(u32) -> K,
        proj_q: impl Fn(u32) -> K,
        stored: &[&[u32]],
        queries: &[u32],
        set_c: u64,
        probe: &P,
        g: &G,
        out: &mut [G::Out],
    ) {
        let n_stored: usize = stored.iter().map(|s| s.len()).sum();
        if set_c != 0 {
            let mut table: HashMap<K, Vec<u32>, FixedState> =
                HashMap::with_capacity_and_hasher(n_stored, FixedState::default());
            for &t in stored.iter().flat_map(|s| s.iter()) {
                table.entry(proj_s(t)).or_default().push(t);
            }
            for (o, &q) in out.iter_mut().zip(queries) {
                if let Some(list) = table.get(&proj_q(q)) {
                    for &t in list {
                        if self.masks_match(set_c, t, probe, q) {
                            g.take_one(o, t);
                        }
                    }
                }
            }
        } else if n_stored <= queries.len() {
            let mut table: HashMap<K, G::Bucket, FixedState> =
                HashMap::with_capacity_and_hasher(n_stored, FixedState::default());
            for &t in stored.iter().flat_map(|s| s.iter()) {
                g.add(table.entry(proj_s(t)).or_default(), t);
            }
            for b in table.values_mut() {
                g.seal(b);
            }
            for (o, &q) in out.iter_mut().zip(queries) {
                if let Some(b) = table.get(&proj_q(q)) {
                    g.take(o, b);
                }
            }
        } else {
            let mut index: HashMap<K, u32, FixedState> =
                HashMap::with_capacity_and_hasher(queries.len(), FixedState::default());
            let slots: Vec<u32> = queries
                .iter()
                .map(|&q| {
                    let next = index.len() as u32;
                    *index.entry(proj_q(q)).or_insert(next)
                })
                .collect();
            let mut acc = vec![G::Bucket::default(); index.len()];
            for &t in stored.iter().flat_map(|s| s.iter()) {
                if let Some(&s) = index.get(&proj_s(t)) {
                    g.add(&mut acc[s as usize], t);
                }
            }
            for b in &mut acc {
                g.seal(b);
            }
            for (o, &s) in out.iter_mut().zip(&slots) {
                g.take(o, &acc[s as usize]);
            }
        }
    }

    /// The records matching entry `e` (itself included, in its current pattern) were `e`'s
    /// observed keys `pattern` (a subset of those it had when indexed), and their summed weight
    /// (their number without weights). Builds the tables it needs and keeps them for later
    /// calls.
    pub fn count_as(&mut self, e: usize, pattern: u64) -> (u64, f64) {
        debug_assert_eq!(
            pattern & !self.base[e],
            0,
            "query keys must have been observed"
        );
        let PatternIndex {
            codes,
            radix,
            sets,
            set_keys,
            pattern: current,
            size,
            weight,
            live,
            ..
        } = self;
        let (mut n, mut w) = (0u64, 0.0f64);
        let code = |k: usize| codes[k][e];
        for &q in live.by_pattern.keys() {
            let c = pattern & q;
            let t = live.tables.entry((c, q)).or_insert_with(|| {
                live.tables_of.entry(q).or_default().push(c);
                LiveTable::build(c, q, *set_keys, radix, codes, current, size, weight)
            });
            match &t.map {
                LiveMap::Counts(m) => {
                    if let Some(&(a, b)) = m.get(&t.proj, code) {
                        n += a;
                        w += b;
                    }
                }
                LiveMap::Entries(m) => {
                    if let Some(list) = m.get(&t.proj, code) {
                        for &s in list {
                            let ok = bits(t.set_c).into_iter().all(|k| {
                                let ms = sets[k].as_ref().expect("a candidate key has masks");
                                SetMasks::overlap(ms.query(e), ms.stored(s as usize))
                            });
                            if ok {
                                n += size[s as usize] as u64;
                                w += weight[s as usize];
                            }
                        }
                    }
                }
            }
        }
        (n, if self.weighted { w } else { n as f64 })
    }

    /// The records matching entry `e` as it stands, and their summed weight
    /// ([`count_as`](Self::count_as) with its current pattern).
    pub fn count(&mut self, e: usize) -> (u64, f64) {
        self.count_as(e, self.pattern[e])
    }

    /// [`count`](Self::count) of every entry.
    pub fn counts(&mut self) -> Vec<(u64, f64)> {
        (0..self.len()).map(|e| self.count(e)).collect()
    }

    /// Marks key `k` of entry `e` as missing (a suppressed cell), updating every table built
    /// so far.
    pub fn suppress(&mut self, e: usize, k: usize) {
        let new = self.pattern[e] & !(1u64 << k);
        self.set_pattern(e, new);
    }

    /// Marks key `k` of entry `e` as observed again, with its indexed value; a key missing
    /// when the entry was indexed stays missing.
    pub fn restore(&mut self, e: usize, k: usize) {
        let new = (self.pattern[e] | (1u64 << k)) & self.base[e];
        self.set_pattern(e, new);
    }

    fn set_pattern(&mut self, e: usize, new: u64) {
        let old = self.pattern[e];
        if new == old {
            return;
        }
        let (s, w) = (self.size[e] as u64, self.weight[e]);
        let code = |k: usize| self.codes[k][e];
        let live = &mut self.live;
        for (q, add) in [(old, false), (new, true)] {
            let Some(cs) = live.tables_of.get(&q) else {
                continue;
            };
            for c in cs {
                let t = live.tables.get_mut(&(*c, q)).expect("listed tables exist");
                match &mut t.map {
                    LiveMap::Counts(m) if add => {
                        let v = m.entry(&t.proj, code);
                        v.0 += s;
                        v.1 += w;
                    }
                    LiveMap::Counts(m) => m.update(&t.proj, code, |v| {
                        v.0 -= s;
                        v.1 -= w;
                        v.0 == 0
                    }),
                    LiveMap::Entries(m) if add => m.entry(&t.proj, code).push(e as u32),
                    LiveMap::Entries(m) => m.update(&t.proj, code, |v| {
                        v.retain(|&x| x != e as u32);
                        v.is_empty()
                    }),
                }
            }
        }
        if let Some(c) = live.by_pattern.get_mut(&old) {
            *c -= 1;
            if *c == 0 {
                live.by_pattern.remove(&old);
            }
        }
        *live.by_pattern.entry(new).or_insert(0) += 1;
        self.pattern[e] = new;
    }

    /// The entries that match `e` now but would not once key `k` of `e` is restored: entries
    /// observing key `k` with a value `e`'s does not match, that agree with `e` on every other
    /// key observed in both. O(entries · keys).
    pub fn lost_on_restore(&self, e: usize, k: usize) -> Vec<usize> {
        let bit = 1u64 << k;
        let agree = |l: usize, s: usize| match &self.sets[l] {
            Some(m) => SetMasks::overlap(m.query(e), m.stored(s)),
            None => self.codes[l][s] == self.codes[l][e],
        };
        (0..self.len())
            .filter(|&s| {
                let ps = self.pattern[s];
                if s == e || ps & bit == 0 || agree(k, s) {
                    return false;
                }
                let mut common = ps & self.pattern[e] & !bit;
                while common != 0 {
                    let l = common.trailing_zeros() as usize;
                    if !agree(l, s) {
                        return false;
                    }
                    common &= common - 1;
                }
                true
            })
            .collect()
    }
}

impl LiveTable {
    /// The table of `(c, q)` over the entries whose current pattern is `q`.
    #[allow(clippy::too_many_arguments)]
    fn build(
        c: u64,
        q: u64,
        set_keys: u64,
        radix: &[u64],
        codes: &[Vec<u32>],
        pattern: &[u64],
        size: &[u32],
        weight: &[f64],
    ) -> LiveTable {
        let proj = Projector::new(c & !set_keys, radix);
        let set_c = c & set_keys;
        let mut map = if set_c == 0 {
            LiveMap::Counts(ProjMap::new(proj.width))
        } else {
            LiveMap::Entries(ProjMap::new(proj.width))
        };
        for (e, &p) in pattern.iter().enumerate() {
            if p != q {
                continue;
            }
            let code = |k: usize| codes[k][e];
            match &mut map {
                LiveMap::Counts(m) => {
                    let v = m.entry(&proj, code);
                    v.0 += size[e] as u64;
                    v.1 += weight[e];
                }
                LiveMap::Entries(m) => m.entry(&proj, code).push(e as u32),
            }
        }
        LiveTable { proj, set_c, map }
    }
}

/// The distinct tuples of a group of rows, in order of first appearance.
struct Tuples {
    /// Per key, the code of each tuple.
    codes: Vec<Vec<u32>>,
    /// The first row of each tuple.
    reps: Vec<u32>,
    /// Rows per tuple.
    sizes: Vec<u32>,
    /// Summed weight per tuple.
    wsum: Vec<f64>,
    /// The tuple of each row.
    tuple_of: Vec<u32>,
}

impl Tuples {
    /// The tuples of `rows`, told apart by `key_of(i)` for `rows[i]`; `code_of(key, j)` is
    /// key `j`'s code. Tuples are numbered in order of first appearance and each weight is
    /// summed in row order. The hot loop only numbers the tuples (a hash table and four
    /// vectors); codes and weights are filled in afterwards, once per tuple and once per row.
    fn of<K: Hash + Eq + Clone>(
        rows: &[u32],
        nv: usize,
        weights: Option<&[f64]>,
        key_of: impl Fn(usize) -> K,
        code_of: impl Fn(&K, usize) -> u32,
    ) -> Tuples {
        let part = Part::of(0..rows.len(), &key_of);
        let mut t = Tuples {
            codes: vec![Vec::with_capacity(part.keys.len()); nv],
            reps: part.first.iter().map(|&i| rows[i]).collect(),
            sizes: part.sizes,
            wsum: vec![0.0; part.keys.len()],
            tuple_of: part.tuple_of,
        };
        for key in &part.keys {
            for (j, codes) in t.codes.iter_mut().enumerate() {
                codes.push(code_of(key, j));
            }
        }
        if let Some(w) = weights {
            for (&id, &r) in t.tuple_of.iter().zip(rows) {
                t.wsum[id as usize] += w[r as usize];
            }
        }
        t
    }

    /// The index of the tuples, and the entry of each row.
    fn index(
        self,
        card: &[u32],
        sets: Vec<Option<SetMasks>>,
        weighted: bool,
    ) -> (PatternIndex, Vec<u32>) {
        let idx = PatternIndex::build(
            self.codes, card, sets, self.reps, self.sizes, self.wsum, weighted, true,
        );
        (idx, self.tuple_of)
    }
}

/// The tuples of a run of consecutive rows, numbered in order of first appearance in the run.
struct Part<K> {
    /// Each tuple's key, in order.
    keys: Vec<K>,
    /// Each tuple's first position (an index into the rows).
    first: Vec<usize>,
    /// Rows per tuple.
    sizes: Vec<u32>,
    /// The tuple of each row of the run.
    tuple_of: Vec<u32>,
}

impl<K: Hash + Eq + Clone> Part<K> {
    /// The tuples of the rows at positions `range`, told apart by `key_of`.
    fn of(range: std::ops::Range<usize>, key_of: &impl Fn(usize) -> K) -> Part<K> {
        let mut index: HashMap<K, u32, FixedState> = HashMap::default();
        let mut part = Part {
            keys: Vec::new(),
            first: Vec::new(),
            sizes: Vec::new(),
            tuple_of: Vec::with_capacity(range.len()),
        };
        for i in range {
            let next = index.len() as u32;
            let id = *index.entry(key_of(i)).or_insert_with_key(|key| {
                part.keys.push(key.clone());
                part.first.push(i);
                part.sizes.push(0);
                next
            });
            part.sizes[id as usize] += 1;
            part.tuple_of.push(id);
        }
        part
    }
}

/// How some keys' codes pack into one word per row: key `j` in its own bit field, holding its
/// code + 1 (0 when missing). Equal words are equal tuples (missing as a value of its own).
/// For engines that visit a file's rows in an order of their own (groups), where reading every
/// key of a row would cost one cache miss per key: they pack each row once, in passing.
#[derive(Debug, Clone)]
pub struct Packing {
    /// The packed keys (indices into the keys).
    subset: Vec<usize>,
    /// Per packed key: bit offset and mask of its field.
    fields: Vec<(u32, u64)>,
    /// Per packed key: its cardinality.
    card: Vec<u32>,
}

impl Packing {
    /// The packing of the keys `subset` of `keys`; `None` when one of them is matched by
    /// candidates or their fields need more than 64 bits.
    pub fn of(keys: &Keys, subset: &[usize]) -> Option<Packing> {
        if subset.iter().any(|&k| keys.sets[k].is_some()) {
            return None;
        }
        let card: Vec<u32> = subset.iter().map(|&k| keys.card[k]).collect();
        let mut packing = Packing::of_cards(&card)?;
        packing.subset = subset.to_vec();
        Some(packing)
    }

    /// The packing of keys of cardinalities `card` (keys `0 ..`), each in its own field;
    /// `None` when the fields need more than 64 bits.
    pub fn of_cards(card: &[u32]) -> Option<Packing> {
        let mut fields = Vec::with_capacity(card.len());
        let mut offset = 0u32;
        for &c in card {
            // Values 0 ..= card: the bit length of card.
            let bits = 64 - (c.max(1) as u64).leading_zeros();
            fields.push((offset, (1u64 << bits) - 1));
            offset += bits;
            if offset > 64 {
                return None;
            }
        }
        Some(Packing {
            subset: (0..card.len()).collect(),
            fields,
            card: card.to_vec(),
        })
    }

    /// The packing of the packed keys `keys` alone, their fields where they are: a word of
    /// this packing keeps only those fields ([`Packing::mask`]).
    pub fn select(&self, keys: &[usize]) -> Packing {
        Packing {
            subset: keys.iter().map(|&j| self.subset[j]).collect(),
            fields: keys.iter().map(|&j| self.fields[j]).collect(),
            card: keys.iter().map(|&j| self.card[j]).collect(),
        }
    }

    /// Packed key `j`'s cardinality.
    #[inline]
    pub fn card_of(&self, j: usize) -> u32 {
        self.card[j]
    }

    /// Packed key `j`'s field: its bit offset and mask.
    #[inline]
    pub fn fields_of(&self, j: usize) -> (u32, u64) {
        self.fields[j]
    }

    /// The bits of every field.
    pub fn mask(&self) -> u64 {
        self.fields
            .iter()
            .fold(0u64, |m, &(offset, mask)| m | mask << offset)
    }

    /// The value of packed key `j` in `word`: its code + 1, 0 when missing.
    #[inline]
    pub fn field(&self, word: u64, j: usize) -> u64 {
        let (offset, mask) = self.fields[j];
        (word >> offset) & mask
    }

    /// The word of a row whose packed keys have the codes `codes` ([`MISSING`] when missing).
    #[inline]
    pub fn pack(&self, codes: impl IntoIterator<Item = u32>) -> u64 {
        codes
            .into_iter()
            .zip(&self.fields)
            .fold(0u64, |w, (c, &(offset, _))| {
                let v = if c == MISSING { 0 } else { c as u64 + 1 };
                w | v << offset
            })
    }

    /// The word of every row of `keys` (the keys this packing was made for), filled key by
    /// key: the words [`Packing::word`] gives, reading each key's codes in one run.
    pub fn words(&self, keys: &Keys) -> Vec<u64> {
        let mut words = vec![0u64; keys.n];
        for (&k, &(offset, _)) in self.subset.iter().zip(&self.fields) {
            words
                .par_iter_mut()
                .with_min_len(1 << 16)
                .zip(keys.codes[k].par_iter())
                .for_each(|(w, &c)| {
                    // MISSING is u32::MAX: code + 1 wraps it to 0
                    *w |= (c.wrapping_add(1) as u64) << offset;
                });
        }
        words
    }

    /// The word of `row` of `keys` (the keys this packing was made for).
    #[inline]
    pub fn word(&self, keys: &Keys, row: usize) -> u64 {
        self.pack(self.subset.iter().map(|&k| keys.codes[k][row]))
    }

    /// Packed key `j`'s code in `word` ([`MISSING`] when missing).
    #[inline]
    pub fn code(&self, word: u64, j: usize) -> u32 {
        let (offset, mask) = self.fields[j];
        match (word >> offset) & mask {
            0 => MISSING,
            v => v as u32 - 1,
        }
    }

    /// The bits of the fields of `word` whose key is observed (a field is 0 when missing).
    /// Two words agree on every key observed in both exactly when
    /// `(a ^ b) & a_observed & b_observed == 0`.
    #[inline]
    pub fn observed(&self, word: u64) -> u64 {
        self.fields.iter().fold(0u64, |m, &(offset, mask)| {
            if (word >> offset) & mask != 0 {
                m | mask << offset
            } else {
                m
            }
        })
    }

    /// Number of packed keys.
    pub fn nkeys(&self) -> usize {
        self.fields.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keys::codes::{KeyCodes, SetCoding};
    use crate::keys::policy::SetMatch;
    use crate::{Column, Role};

    fn mulder() -> Keys {
        // Mulder's Table 2 (docs/METHODS.md example D).
        let age = Column::integer(
            "age",
            Role::Key,
            &[Some(40), Some(36), None, Some(40), Some(23), Some(23)],
        );
        let sex = Column::categorical(
            "gender",
            Role::Key,
            &[Some("M"), Some("F"), Some("M"), None, Some("M"), Some("M")],
            None,
        )
        .unwrap();
        Keys::from_keys(
            vec![
                KeyCodes::of(&age, SetCoding::Whole),
                KeyCodes::of(&sex, SetCoding::Whole),
            ],
            6,
        )
    }

    #[test]
    fn self_join_counts_mulders_table_2() {
        let k = mulder();
        let w = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0];
        let idx = PatternIndex::records(&k, None, Some(&w));
        let got = idx.self_join();
        let n: Vec<u64> = got.iter().map(|x| x.0).collect();
        assert_eq!(n, vec![3, 1, 5, 3, 3, 3]);
        assert_eq!(got[1].1, 2.0);
        assert_eq!(got[2].1, 1.0 + 4.0 + 8.0 + 16.0 + 32.0);
        let rows: Vec<u32> = (0..6).collect();
        let (d, of) = PatternIndex::distinct(&k, &[0, 1], &rows, Some(&w));
        assert_eq!(d.len(), 5);
        let per: Vec<u64> = of.iter().map(|&t| d.self_join()[t as usize].0).collect();
        assert_eq!(per, vec![3, 1, 5, 3, 3, 3]);
    }

    /// Distinct tuples by key codes and by packed words, on one thread or several: the same
    /// entries in order of first appearance, the same sizes, weights summed to the same bits,
    /// the same tuple per row, on 274,489 rows in a scrambled order; each tuple's codes, first
    /// row and size checked against a direct count.
    #[test]
    fn tuples_are_numbered_by_first_appearance() {
        let n = 274_489;
        let code = |i: usize, m: usize| (i.wrapping_mul(2_654_435_761) >> 7) % m;
        let k = Keys {
            codes: vec![
                (0..n).map(|i| code(i, 7) as u32).collect(),
                (0..n)
                    .map(|i| {
                        if i % 11 == 0 {
                            MISSING
                        } else {
                            code(i * 3, 50) as u32
                        }
                    })
                    .collect(),
                (0..n).map(|i| code(i * 5 + 1, 300) as u32).collect(),
            ],
            card: vec![7, 50, 300],
            sets: vec![None, None, None],
            n,
        };
        let w: Vec<f64> = (0..n).map(|i| 0.1 + (i % 97) as f64 / 7.0).collect();
        let rows: Vec<u32> = (0..n as u32).map(|i| (i * 7919) % n as u32).collect();
        let packing = Packing::of(&k, &[0, 1, 2]).unwrap();
        let words: Vec<u64> = rows.iter().map(|&r| packing.word(&k, r as usize)).collect();
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                (
                    PatternIndex::distinct(&k, &[0, 1, 2], &rows, Some(&w)),
                    PatternIndex::distinct_packed(&packing, &words, &rows, Some(&w)),
                )
            })
        };
        let ((one, of_one), (one_p, of_one_p)) = run(1);
        for threads in [2, 3, 8] {
            let ((a, of_a), (b, of_b)) = run(threads);
            for (x, of_x) in [(&a, &of_a), (&b, &of_b), (&one_p, &of_one_p)] {
                assert_eq!(*of_x, of_one);
                assert_eq!(x.codes, one.codes);
                assert_eq!(x.rows, one.rows);
                assert_eq!(x.size, one.size);
                let bits = |v: &[f64]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&x.weight), bits(&one.weight));
            }
        }
        // first appearance and sizes by a direct count
        let mut seen: HashMap<(u32, u32, u32), (u32, u32)> = HashMap::default();
        let mut order = Vec::new();
        for &r in &rows {
            let r = r as usize;
            let t = (k.codes[0][r], k.codes[1][r], k.codes[2][r]);
            let e = seen.entry(t).or_insert_with(|| {
                order.push(t);
                (r as u32, 0)
            });
            e.1 += 1;
        }
        assert_eq!(one.len(), order.len());
        for (e, t) in order.iter().enumerate() {
            assert_eq!((one.rows[e], one.size[e]), seen[t]);
            assert_eq!((one.codes[0][e], one.codes[1][e], one.codes[2][e]), *t);
        }
    }

    /// Packed words give the index `distinct` gives: the same entries in the same order, the
    /// same self-join; packing declines candidate masks and fields past 64 bits.
    #[test]
    fn packed_words_index_as_distinct_does() {
        let k = mulder();
        let packing = Packing::of(&k, &[0, 1]).unwrap();
        assert_eq!(packing.nkeys(), 2);
        for (r, &whole) in packing.words(&k).iter().enumerate() {
            let word = packing.word(&k, r);
            assert_eq!(whole, word);
            assert_eq!(packing.code(word, 0), k.codes[0][r]);
            assert_eq!(packing.code(word, 1), k.codes[1][r]);
        }
        let w = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0];
        for rows in [vec![0u32, 1, 2, 3, 4, 5], vec![5, 3, 4, 0], vec![2]] {
            let words: Vec<u64> = rows.iter().map(|&r| packing.word(&k, r as usize)).collect();
            let (a, of_a) = PatternIndex::distinct(&k, &[0, 1], &rows, Some(&w));
            let (b, of_b) = PatternIndex::distinct_packed(&packing, &words, &rows, Some(&w));
            assert_eq!(of_a, of_b);
            assert_eq!(a.codes, b.codes);
            assert_eq!(a.rows, b.rows);
            assert_eq!(a.self_join(), b.self_join());
        }
        // Missing and code 0 are told apart; a subset packs only its keys.
        let only_sex = Packing::of(&k, &[1]).unwrap();
        assert_eq!(only_sex.code(only_sex.word(&k, 3), 0), MISSING);
        assert_ne!(only_sex.word(&k, 3), only_sex.word(&k, 1));
        // 3 keys of 2^22 codes need 69 bits.
        let wide = Keys {
            codes: vec![vec![0, 1]; 3],
            card: vec![1 << 22; 3],
            sets: vec![None, None, None],
            n: 2,
        };
        assert!(Packing::of(&wide, &[0, 1]).is_some());
        assert!(Packing::of(&wide, &[0, 1, 2]).is_none());
        let month = Column::set("m", Role::Key, &[vec!["1", "2"], vec!["3"]], None).unwrap();
        let sets = Keys::from_keys(
            vec![KeyCodes::of(
                &month,
                SetCoding::Candidates(SetMatch::Overlap),
            )],
            2,
        );
        assert!(Packing::of(&sets, &[0]).is_none());
    }

    /// Random keys with blanks: `n` rows of `nk` keys, codes below `card`, a blank one time in
    /// `blank_one_in` (from a seeded generator, so a case can be replayed).
    fn random_keys(seed: u64, n: usize, nk: usize, card: u32, blank_one_in: u32) -> Keys {
        // splitmix64: a seeded stream without a dependency
        let mut state = seed;
        let mut next = move |below: u32| -> u32 {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) % below as u64) as u32
        };
        let codes = (0..nk)
            .map(|_| {
                (0..n)
                    .map(|_| {
                        if next(blank_one_in) == 0 {
                            MISSING
                        } else {
                            next(card)
                        }
                    })
                    .collect()
            })
            .collect();
        Keys {
            codes,
            card: vec![card; nk],
            sets: vec![None; nk],
            n,
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(96))]
        /// `match_counts` gives what a pair-by-pair count gives, and what the self-join and
        /// the cross-join give: on records and on distinct tuples, with weights or without,
        /// blanks from none to most cells, queries from another draw.
        #[test]
        fn match_counts_are_the_joins_record_counts(
            seed in 0u64..1_000_000,
            n in 0usize..120,
            nq in 0usize..60,
            nk in 1usize..5,
            card in 1u32..4,
            blank_one_in in 1u32..12,
            tuples in proptest::bool::ANY,
        ) {
            let k = random_keys(seed, n, nk, card, blank_one_in);
            let q = random_keys(seed ^ 0x5eed, nq, nk, card, blank_one_in);
            let rows: Vec<u32> = (0..n as u32).collect();
            let w: Vec<f64> = (0..n).map(|r| 1.0 + r as f64).collect();
            let all: Vec<usize> = (0..nk).collect();
            let (idx, _) = if tuples {
                PatternIndex::distinct(&k, &all, &rows, Some(&w))
            } else {
                (PatternIndex::records(&k, None, None), Vec::new())
            };
            let (own, cross) = idx.match_counts(&q);
            let agree = |a: &Keys, i: usize, e: usize| {
                (0..nk).all(|j| {
                    let (x, y) = (a.codes[j][i], idx.codes[j][e]);
                    x == MISSING || y == MISSING || x == y
                })
            };
            let entries = Keys { codes: idx.codes.clone(), card: k.card.clone(), sets: vec![None; nk], n: idx.len() };
            let count = |a: &Keys, i: usize| -> u64 {
                (0..idx.len()).filter(|&e| agree(a, i, e)).map(|e| idx.size(e) as u64).sum()
            };
            let own_brute: Vec<u64> = (0..idx.len()).map(|e| count(&entries, e)).collect();
            let cross_brute: Vec<u64> = (0..nq).map(|i| count(&q, i)).collect();
            proptest::prop_assert_eq!(&own, &own_brute);
            proptest::prop_assert_eq!(&cross, &cross_brute);
            let joined: Vec<u64> = idx.self_join().iter().map(|x| x.0).collect();
            let crossed: Vec<u64> = idx.cross_counts(&q, |_| true).iter().map(|x| x.0).collect();
            proptest::prop_assert_eq!(own, joined);
            proptest::prop_assert_eq!(cross, crossed);
        }
    }

    /// On an index large enough to meet the patterns in parallel (and on one thread), the
    /// same counts as the self-join and the cross-join.
    #[test]
    fn match_counts_on_a_large_index_are_the_joins_counts() {
        let k = random_keys(7, 60_000, 5, 9, 9);
        let q = random_keys(8, 30_000, 5, 9, 20);
        let rows: Vec<u32> = (0..k.n as u32).collect();
        let (idx, _) = PatternIndex::distinct(&k, &[0, 1, 2, 3, 4], &rows, None);
        assert!(idx.len() >= PARALLEL_MIN);
        let joined: Vec<u64> = idx.self_join().iter().map(|x| x.0).collect();
        let crossed: Vec<u64> = idx.cross_counts(&q, |_| true).iter().map(|x| x.0).collect();
        let (own, cross) = idx.match_counts(&q);
        assert_eq!(own, joined);
        assert_eq!(cross, crossed);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        assert_eq!(one.install(|| idx.match_counts(&q)), (own, cross));
    }

    #[test]
    fn updates_follow_suppressions_and_restores() {
        let k = mulder();
        let mut idx = PatternIndex::records(&k, None, None);
        assert_eq!(
            idx.counts().iter().map(|c| c.0).collect::<Vec<_>>(),
            vec![3, 1, 5, 3, 3, 3]
        );
        // Record 2 (36, F) without gender matches every record of age 36 or missing age.
        assert_eq!(idx.count_as(1, 0b01).0, 2);
        idx.suppress(1, 1);
        assert_eq!(idx.count(1), (2, 2.0));
        assert_eq!(idx.count(2).0, 6);
        assert_eq!(idx.lost_on_restore(1, 1), vec![2]);
        idx.restore(1, 1);
        assert_eq!(
            idx.counts().iter().map(|c| c.0).collect::<Vec<_>>(),
            vec![3, 1, 5, 3, 3, 3]
        );
        // A key missing when indexed stays missing.
        idx.restore(2, 0);
        assert_eq!(idx.pattern(2), 0b10);
    }

    #[test]
    fn cross_join_lists_matching_rows_and_filters_candidates() {
        let released = Column::set(
            "m",
            Role::Key,
            &[vec!["3", "4"], vec!["5"], vec![], vec!["4"]],
            None,
        )
        .unwrap();
        let s = KeyCodes::of(&released, SetCoding::Candidates(SetMatch::Overlap));
        let stored = Keys::from_keys(vec![s.clone()], 4);
        let idx = PatternIndex::records(&stored, None, None);
        let got = idx.cross_join(&stored, |i| i != 1);
        assert_eq!(
            got,
            vec![vec![0, 2, 3], vec![], vec![0, 1, 2, 3], vec![0, 2, 3]]
        );
        let sub = PatternIndex::records(&stored, Some(&[1, 3]), None);
        assert_eq!(sub.cross_join(&stored, |_| true)[0], vec![3]);
    }

    /// The capped join counts exactly what the full join lists and keeps its first `max`
    /// rows, on every path: hashed buckets on either side, candidate masks, missing keys.
    #[test]
    fn capped_cross_join_is_the_start_of_the_full_join() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        for round in 0..12 {
            let (nq, ns) = if round % 2 == 0 { (30, 200) } else { (200, 30) };
            let mut cols = |n: usize| {
                let a: Vec<Option<i64>> = (0..n)
                    .map(|_| (next(5) != 0).then(|| next(2) as i64))
                    .collect();
                let sets: Vec<Vec<String>> = (0..n)
                    .map(|_| (0..next(3)).map(|_| format!("v{}", next(4))).collect())
                    .collect();
                (a, sets)
            };
            let (qa, qs) = cols(nq);
            let (sa, ss) = cols(ns);
            let with_sets = round % 3 != 0;
            let enc = |a: &[Option<i64>], s: &[Vec<String>]| {
                let mut keys = vec![KeyCodes::of(
                    &Column::integer("a", Role::Key, a),
                    SetCoding::Whole,
                )];
                if with_sets {
                    keys.push(KeyCodes::of(
                        &Column::set("m", Role::Key, s, None).unwrap(),
                        SetCoding::Candidates(SetMatch::Overlap),
                    ));
                }
                keys
            };
            // One dictionary for both sides: code the two files as one and split.
            let all_a: Vec<Option<i64>> = qa.iter().chain(&sa).copied().collect();
            let all_s: Vec<Vec<String>> = qs.iter().chain(&ss).cloned().collect();
            let both = Keys::from_keys(enc(&all_a, &all_s), nq + ns);
            let q_rows: Vec<u32> = (0..nq as u32).collect();
            let s_rows: Vec<u32> = (nq as u32..(nq + ns) as u32).collect();
            let idx = PatternIndex::records(&both, Some(&s_rows), None);
            let full = idx.cross_join(&both, |i| i < nq);
            for max in [1usize, 2, 3, 7, 1000] {
                let capped = idx.cross_join_capped(&both, |i| i < nq, max);
                for &q in &q_rows {
                    let (f, c) = (&full[q as usize], &capped[q as usize]);
                    assert_eq!(c.0, f.len() as u64, "round {round} max {max} query {q}");
                    assert_eq!(
                        c.1,
                        f[..f.len().min(max)],
                        "round {round} max {max} query {q}"
                    );
                }
            }
        }
    }
}
