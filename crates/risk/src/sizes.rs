//! Class sizes without class ids: what every figure of a summary needs when no per-record
//! figure, weight, group or sensitive value is asked for.
//!
//! Each record's keys become one mixed-radix code (as [`crate::Classes`] makes it), written
//! into one array of `u64`, whose equal codes are then brought together in place (partitioned
//! by a hash, each part sorted in cache): the lengths of the runs of equal codes are the class
//! sizes. Memory is that array (8 bytes per record) and a few chunks per thread; the keys are
//! read a block of rows at a time through [`CodeSource`], so a column that already holds codes (a categorical column, small-range integers, an Arrow
//! dictionary) is never copied. The counts depend only on the codes, never on the order of the
//! records or the number of threads. [`size_counts_parts`] takes keys a part of the file at a
//! time ([`PartedCodes`], a Parquet file's row groups), each part coded into its own rows of the
//! one array as soon as it is decoded.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use foldhash::fast::FixedState;
use rayon::prelude::*;

use intruder_table::keys::{CodeSource, PartedCodes, read_part};
use intruder_table::{DataError, Timings};

use crate::classes::{Classes, Encoding};
use crate::keys::{MISSING, MissingPolicy};

/// Rows coded together: each key's block of codes stays in cache while the block is combined.
const BLOCK: usize = 4096;

/// The class sizes f_k of a file, as a histogram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeCounts {
    /// (size, number of classes of that size), by increasing size; no size is 0.
    pub counts: Vec<(u32, usize)>,
    /// Records dropped (listwise) for a missing key.
    pub n_deleted: usize,
    /// How the key tuples were encoded.
    pub encoding: Encoding,
}

impl SizeCounts {
    /// The histogram of `classes`' sizes.
    pub fn of_classes(classes: &Classes) -> SizeCounts {
        SizeCounts {
            counts: histogram(classes.sizes.iter().copied()),
            n_deleted: classes.n_deleted,
            encoding: classes.encoding,
        }
    }

    /// Number of classes.
    pub fn classes(&self) -> usize {
        self.counts.iter().map(|&(_, c)| c).sum()
    }

    /// Records in classes of size ≤ `limit`.
    pub fn records_at_most(&self, limit: u32) -> usize {
        self.counts
            .iter()
            .take_while(|&&(s, _)| s <= limit)
            .map(|&(s, c)| s as usize * c)
            .sum()
    }

    /// Records in classes of size < `limit`.
    pub fn records_below(&self, limit: u32) -> usize {
        limit.checked_sub(1).map_or(0, |l| self.records_at_most(l))
    }

    /// Classes of size ≤ `limit`.
    pub fn classes_at_most(&self, limit: u32) -> usize {
        self.counts
            .iter()
            .take_while(|&&(s, _)| s <= limit)
            .map(|&(_, c)| c)
            .sum()
    }

    /// Classes of size exactly `size`.
    pub fn classes_of_size(&self, size: u32) -> usize {
        self.counts
            .iter()
            .find(|&&(s, _)| s == size)
            .map_or(0, |&(_, c)| c)
    }

    /// The smallest class size (the file's k).
    pub fn min(&self) -> Option<u32> {
        self.counts.first().map(|&(s, _)| s)
    }
}

/// (value, how many times it occurs) by increasing value, for values ≥ 1.
pub(crate) fn histogram(sizes: impl Iterator<Item = u32>) -> Vec<(u32, usize)> {
    let mut h = Histogram::default();
    for s in sizes {
        h.add(s, 1);
    }
    h.into_sorted()
}

/// Counts by value, added one at a time or merged from pieces counted apart: small values in a
/// table, the rest in a map.
#[derive(Debug, Default)]
pub(crate) struct Histogram {
    small: Vec<usize>,
    large: BTreeMap<u32, usize>,
}

impl Histogram {
    /// Values below this are counted in the table.
    const SMALL: usize = 1025;

    /// Counts `value` `count` more times.
    #[inline]
    pub(crate) fn add(&mut self, value: u32, count: usize) {
        if (value as usize) < Self::SMALL {
            if self.small.is_empty() {
                self.small = vec![0; Self::SMALL];
            }
            self.small[value as usize] += count;
        } else {
            *self.large.entry(value).or_default() += count;
        }
    }

    /// Both histograms' counts.
    pub(crate) fn merge(mut self, other: Histogram) -> Histogram {
        for (v, &c) in other.small.iter().enumerate() {
            if c > 0 {
                self.add(v as u32, c);
            }
        }
        for (v, c) in other.large {
            self.add(v, c);
        }
        self
    }

    /// `(value, count)` for every value ≥ 1 counted, by increasing value.
    pub(crate) fn into_sorted(self) -> Vec<(u32, usize)> {
        let mut out: Vec<(u32, usize)> = self
            .small
            .iter()
            .enumerate()
            .filter(|&(v, &c)| v > 0 && c > 0)
            .map(|(v, &c)| (v as u32, c))
            .collect();
        out.extend(self.large);
        out
    }
}

/// Why [`size_counts`] gave no counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoSizes {
    /// The key space exceeds 64 bits: the classes need [`Encoding::Recoded`], which numbers
    /// each record's tuple (use [`crate::equivalence_classes`]).
    Recoded,
    /// Key `k` (its position) has no observed value.
    AllMissing(usize),
    /// A part of the file held values beyond the cardinalities given in advance, or other rows
    /// than it announced ([`size_counts_parts`]: the file's statistics or metadata were
    /// wrong); read it another way.
    Contradicted,
}

/// The class sizes of the records coded by `keys` (one source per key, each with the same
/// number of rows) under the listwise or as-value policy, without class ids.
///
/// # Panics
/// When `keys` is empty, the sources differ in length, `policy` is
/// [`MissingPolicy::Wildcard`] (which has no classes), or there are `u32::MAX` records or
/// more: programming errors, checked by the callers.
pub fn size_counts(keys: &[&dyn CodeSource], policy: MissingPolicy) -> Result<SizeCounts, NoSizes> {
    assert!(!keys.is_empty(), "at least one key");
    assert_ne!(policy, MissingPolicy::Wildcard, "wildcard has no classes");
    let n = keys[0].len();
    assert!(keys.iter().all(|k| k.len() == n), "keys of equal length");
    assert!(n < u32::MAX as usize, "fewer than u32::MAX records");
    let cards: Vec<u32> = keys.iter().map(|k| k.card()).collect();
    let product = key_space(&cards, policy).ok_or(NoSizes::Recoded)?;

    // Codes, block by block, on every thread; whether each key has an observed value.
    let mut codes = vec![0u64; n];
    let coder = Coder::new(&cards, policy, n);
    let observed: Vec<Vec<bool>> = codes
        .par_chunks_mut(BLOCK)
        .enumerate()
        .map(|(b, out)| {
            let mut seen = vec![false; keys.len()];
            coder.code(keys, b * BLOCK, out, &mut seen);
            seen
        })
        .collect();
    if let Some(k) = (0..keys.len()).find(|&k| !observed.iter().any(|block| block[k])) {
        return Err(NoSizes::AllMissing(k));
    }
    Ok(count(codes, product))
}

/// [`size_counts`] of keys read a part of the file at a time ([`PartedCodes`]): the parts are
/// decoded on every thread, each straight into its rows of the one code array, so no key
/// column is ever held whole. `Ok(Err(NoSizes::Contradicted))` when a part's values exceed
/// the cardinalities given in advance, or its pieces do not cover its rows exactly (one source
/// per key, all of one length, in order). The time spent decoding and coding the parts goes to
/// [`Timings::READ`], the counting to [`Timings::COUNT`].
///
/// # Errors
/// The parts' own (a file that cannot be decoded).
///
/// # Panics
/// As [`size_counts`].
pub fn size_counts_parts(
    keys: &dyn PartedCodes,
    policy: MissingPolicy,
    timings: &mut Timings,
) -> Result<Result<SizeCounts, NoSizes>, DataError> {
    let start = Instant::now();
    assert!(keys.nkeys() > 0, "at least one key");
    assert_ne!(policy, MissingPolicy::Wildcard, "wildcard has no classes");
    let rows = keys.part_rows();
    let n: usize = rows.iter().sum();
    assert!(n < u32::MAX as usize, "fewer than u32::MAX records");
    let cards = keys.cards();
    let Some(product) = key_space(cards, policy) else {
        return Ok(Err(NoSizes::Recoded));
    };
    let coder = Coder::new(cards, policy, n);
    let mut codes = vec![0u64; n];
    let mut parts: Vec<(usize, &mut [u64])> = Vec::with_capacity(rows.len());
    let mut rest = codes.as_mut_slice();
    for (p, &r) in rows.iter().enumerate() {
        let (part, tail) = rest.split_at_mut(r);
        parts.push((p, part));
        rest = tail;
    }
    let observed: Vec<Option<Vec<bool>>> = parts
        .into_par_iter()
        .map(|(p, out)| -> Result<Option<Vec<bool>>, DataError> {
            let mut seen = vec![false; cards.len()];
            // The pieces cover the part's rows exactly, in order, one source per key of one
            // length (else the part is not whole: a file at odds with its own metadata).
            let whole = read_part(keys, p, &mut |offset, sources| {
                let len = sources[0].len();
                let piece = &mut out[offset..offset + len];
                for (b, block) in piece.chunks_mut(BLOCK).enumerate() {
                    coder.code(sources, b * BLOCK, block, &mut seen);
                }
            })?;
            Ok(whole.then_some(seen))
        })
        .collect::<Result<_, _>>()?;
    let Some(observed) = observed.into_iter().collect::<Option<Vec<_>>>() else {
        return Ok(Err(NoSizes::Contradicted));
    };
    if let Some(k) = (0..cards.len()).find(|&k| !observed.iter().any(|part| part[k])) {
        return Ok(Err(NoSizes::AllMissing(k)));
    }
    timings.add(Timings::READ, start.elapsed());
    Ok(Ok(timings.time(Timings::COUNT, || count(codes, product))))
}

/// The product of the radices of `cards` under `policy`, when it leaves room for
/// [`SENTINEL`].
fn key_space(cards: &[u32], policy: MissingPolicy) -> Option<u64> {
    let add = u64::from(policy == MissingPolicy::AsValue);
    cards
        .iter()
        .try_fold(1u64, |p, &c| p.checked_mul((c as u64 + add).max(1)))
        .filter(|&p| p < SENTINEL)
}

/// Combines the keys' codes of a block of rows into mixed-radix codes.
struct Coder {
    radix: Vec<u64>,
    /// Per key, the bits of its field when the codes are bit fields instead (see [`Coder::new`]).
    shifts: Option<Vec<u32>>,
    /// 1 when a missing value is a value of its own (code 0, the others shifted by one).
    add: u32,
    as_value: bool,
}

impl Coder {
    /// The coder of keys of cardinalities `cards` for `n` records. When the key space is too
    /// large for one counter per code ([`count`] then sorts the codes, which need only be distinct
    /// per tuple) and the keys fit in 63 bits as bit fields, each key gets a field of its own:
    /// a shift and an OR per key instead of a 64-bit multiply, which vectorizes.
    fn new(cards: &[u32], policy: MissingPolicy, n: usize) -> Coder {
        let as_value = policy == MissingPolicy::AsValue;
        let add = u32::from(as_value);
        let radix: Vec<u64> = cards.iter().map(|&c| c as u64 + add as u64).collect();
        let product = radix.iter().try_fold(1u64, |p, &r| p.checked_mul(r.max(1)));
        let dense = product.is_some_and(|p| p <= dense_limit(n));
        let shifts: Vec<u32> = radix
            .iter()
            .map(|&r| u64::BITS - r.saturating_sub(1).leading_zeros())
            .collect();
        let packs = shifts.iter().sum::<u32>() <= 63;
        Coder {
            radix,
            shifts: (!dense && packs).then_some(shifts),
            add,
            as_value,
        }
    }

    /// Writes the codes of rows `base .. base + out.len()` of `keys` into `out` (at most
    /// [`BLOCK`] rows; [`SENTINEL`] for a record deleted listwise), and marks in `seen` the
    /// keys with an observed value among them.
    fn code(&self, keys: &[&dyn CodeSource], base: usize, out: &mut [u64], seen: &mut [bool]) {
        let mut buf = [0u32; BLOCK];
        let mut missing = [false; BLOCK];
        let buf = &mut buf[..out.len()];
        let missing = &mut missing[..out.len()];
        out.fill(0);
        for k in (0..keys.len()).rev() {
            keys[k].fill(base, buf);
            let add = self.add;
            // The digits in place (0 for missing), the missing rows and whether any is observed.
            let mut observed = false;
            for (c, m) in buf.iter_mut().zip(missing.iter_mut()) {
                let miss = *c == MISSING;
                observed |= !miss;
                *m |= miss;
                *c = if miss { 0 } else { *c + add };
            }
            seen[k] |= observed;
            match &self.shifts {
                Some(shifts) => {
                    let s = shifts[k];
                    for (o, &d) in out.iter_mut().zip(buf.iter()) {
                        *o = (*o << s) | d as u64;
                    }
                }
                None => {
                    let r = self.radix[k];
                    for (o, &d) in out.iter_mut().zip(buf.iter()) {
                        *o = *o * r + d as u64;
                    }
                }
            }
        }
        if !self.as_value {
            for (o, &m) in out.iter_mut().zip(missing.iter()) {
                if m {
                    *o = SENTINEL;
                }
            }
        }
    }
}

/// The histogram of the runs of equal codes (below `product`, or [`SENTINEL`]).
fn count(codes: Vec<u64>, product: u64) -> SizeCounts {
    let n = codes.len();
    if product <= dense_limit(n) {
        // A small key space: one counter per code.
        let mut per_code = vec![0u32; product as usize];
        let mut n_deleted = 0usize;
        for &c in &codes {
            if c == SENTINEL {
                n_deleted += 1;
            } else {
                per_code[c as usize] += 1;
            }
        }
        drop(codes);
        SizeCounts {
            counts: histogram(per_code.into_iter().filter(|&s| s > 0)),
            n_deleted,
            encoding: Encoding::MixedRadix,
        }
    } else {
        let (counts, n_deleted) = partitioned_runs(codes);
        SizeCounts {
            counts,
            n_deleted,
            encoding: Encoding::MixedRadix,
        }
    }
}

/// Codes per bucket of [`partitioned_runs`] (on average): 128 KiB, sorted in a core's cache.
const BUCKET_CODES: usize = 1 << 14;

/// The most buckets of [`partitioned_runs`]: a counter and a write stream each.
const MAX_BUCKETS: usize = 1024;

/// Codes per chunk of [`partitioned_runs`]' first step: 512 KiB, partitioned in a core's cache.
const CHUNK_CODES: usize = 1 << 16;

/// A bucket of [`partitioned_runs`] larger than this is counted by a map, not gathered.
const LARGE_BUCKET: usize = 4 * BUCKET_CODES;

/// The histogram of the class sizes of `codes` and the number of [`SENTINEL`]s, without
/// sorting the whole array, in its own memory (8 bytes per record) and a few chunks' per thread:
/// 1. each chunk of the array is partitioned in place by a hash of the codes (equal codes in
///    the same bucket; [`SENTINEL`]s in a bucket of their own, only counted);
/// 2. each bucket is gathered from every chunk, sorted and its runs counted, in parallel. A
///    bucket swollen past [`LARGE_BUCKET`] codes by large classes (the hash spreads distinct
///    codes evenly) is counted by a map of its distinct codes instead, never gathered.
///
/// Every step works in a core's cache, where a sort of the whole array makes ~23 passes over
/// memory for 10 million codes (BENCHMARKS.md). The result depends only on the multiset of
/// codes, never on their order or the number of threads.
fn partitioned_runs(mut codes: Vec<u64>) -> (Vec<(u32, usize)>, usize) {
    let bits = codes
        .len()
        .div_ceil(BUCKET_CODES)
        .next_power_of_two()
        .min(MAX_BUCKETS)
        .trailing_zeros();
    let buckets = 1usize << bits;
    // Fibonacci hashing: the top bits of the product mix every bit of the code (codes are
    // mixed-radix numbers or bit fields, whose own high bits can be nearly constant).
    let bucket_of = |c: u64| {
        if c == SENTINEL {
            buckets
        } else if bits == 0 {
            0
        } else {
            (c.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (u64::BITS - bits)) as usize
        }
    };
    // 1. Where each bucket starts in each chunk (the end of the last: `start[buckets + 1]`).
    let starts: Vec<Vec<u32>> = codes
        .par_chunks_mut(CHUNK_CODES)
        .map_init(
            || vec![0u64; CHUNK_CODES],
            |scratch, chunk| {
                let mut start = vec![0u32; buckets + 2];
                for &c in chunk.iter() {
                    start[bucket_of(c) + 1] += 1;
                }
                for b in 0..=buckets {
                    start[b + 1] += start[b];
                }
                let mut at = start.clone();
                let scratch = &mut scratch[..chunk.len()];
                for &c in chunk.iter() {
                    let slot = &mut at[bucket_of(c)];
                    scratch[*slot as usize] = c;
                    *slot += 1;
                }
                chunk.copy_from_slice(scratch);
                start
            },
        )
        .collect();
    // 2. Each bucket's codes from every chunk, sorted; the histogram of its runs.
    let parts: Vec<Vec<(u32, usize)>> = (0..buckets)
        .into_par_iter()
        .map_init(Vec::new, |bucket, b| {
            let pieces = || {
                codes
                    .chunks(CHUNK_CODES)
                    .zip(&starts)
                    .map(move |(chunk, start)| &chunk[start[b] as usize..start[b + 1] as usize])
            };
            if pieces().map(<[u64]>::len).sum::<usize>() > LARGE_BUCKET {
                let mut per_code: HashMap<u64, u32, FixedState> = HashMap::default();
                for &c in pieces().flatten() {
                    *per_code.entry(c).or_default() += 1;
                }
                return histogram(per_code.into_values());
            }
            bucket.clear();
            for piece in pieces() {
                bucket.extend_from_slice(piece);
            }
            bucket.sort_unstable();
            histogram(runs(bucket))
        })
        .collect();
    let n_deleted = starts
        .iter()
        .map(|s| (s[buckets + 1] - s[buckets]) as usize)
        .sum();
    let mut merged: BTreeMap<u32, usize> = BTreeMap::new();
    for (size, classes) in parts.into_iter().flatten() {
        *merged.entry(size).or_default() += classes;
    }
    (merged.into_iter().collect(), n_deleted)
}

/// The largest key space [`count`] counts with one counter per code, for `n` records (above
/// it the codes are sorted).
fn dense_limit(n: usize) -> u64 {
    (n as u64).max(1 << 22)
}

/// The lengths of the runs of equal values of a sorted slice.
fn runs(sorted: &[u64]) -> impl Iterator<Item = u32> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let &v = sorted.get(i)?;
        let start = i;
        i += 1;
        while i < sorted.len() && sorted[i] == v {
            i += 1;
        }
        Some((i - start) as u32)
    })
}

/// Code of a record that takes no part in counting (listwise deletion).
const SENTINEL: u64 = u64::MAX;

#[cfg(test)]
mod tests {
    use super::*;
    use intruder_table::keys::KeyCodes;

    fn key(codes: &[u32], card: u32) -> KeyCodes {
        KeyCodes {
            codes: codes.to_vec(),
            card,
            sets: None,
        }
    }

    #[test]
    fn a_hand_worked_file() {
        const M: u32 = MISSING;
        // Records: (0,1) (0,1) (1,0) (1,M) (M,0) (0,1) (1,1)
        let a = key(&[0, 0, 1, 1, M, 0, 1], 2);
        let b = key(&[1, 1, 0, M, 0, 1, 1], 2);
        let keys: [&dyn CodeSource; 2] = [&a, &b];
        let listwise = size_counts(&keys, MissingPolicy::Listwise).unwrap();
        // Classes (0,1)×3, (1,0)×1, (1,1)×1; two records deleted.
        assert_eq!(listwise.counts, vec![(1, 2), (3, 1)]);
        assert_eq!(listwise.n_deleted, 2);
        assert_eq!(listwise.records_at_most(1), 2);
        assert_eq!(listwise.records_below(3), 2);
        assert_eq!(listwise.records_at_most(3), 5);
        assert_eq!(listwise.classes(), 3);
        // As a value: (1,M) and (M,0) are classes of their own.
        let as_value = size_counts(&keys, MissingPolicy::AsValue).unwrap();
        assert_eq!(as_value.counts, vec![(1, 4), (3, 1)]);
        assert_eq!(as_value.n_deleted, 0);
    }

    /// The hand-worked file's classes whatever the coding: one counter per code (a small key
    /// space), bit fields sorted (cardinalities past the counters' limit), and a mixed-radix
    /// product sorted (fields that would need more than 63 bits).
    #[test]
    fn bit_fields_and_products_count_the_same_classes() {
        const M: u32 = MISSING;
        let a = [0, 0, 1, 1, M, 0, 1];
        let b = [1, 1, 0, M, 0, 1, 1];
        for (card, shifts) in [
            (2u32, None),
            (1 << 20, Some(vec![21, 21, 21])),
            ((1 << 21) + 2, None),
        ] {
            // A third key with one value pads the key space.
            let keys = [key(&a, card), key(&b, card), key(&[1; 7], card)];
            let refs: [&dyn CodeSource; 3] = [&keys[0], &keys[1], &keys[2]];
            let coder = Coder::new(&[card; 3], MissingPolicy::AsValue, 7);
            assert_eq!(coder.shifts, shifts, "cardinality {card}");
            let listwise = size_counts(&refs, MissingPolicy::Listwise).unwrap();
            assert_eq!(
                (listwise.counts, listwise.n_deleted),
                (vec![(1, 2), (3, 1)], 2)
            );
            let as_value = size_counts(&refs, MissingPolicy::AsValue).unwrap();
            assert_eq!(
                (as_value.counts, as_value.n_deleted),
                (vec![(1, 4), (3, 1)], 0)
            );
        }
    }

    /// The partitioned count against a map of the codes: one bucket and many (past
    /// [`BUCKET_CODES`] codes; one chunk and many), classes of one to tens of thousands of
    /// records (a bucket past [`LARGE_BUCKET`], counted by a map), codes that differ only in
    /// their high bits, and records deleted listwise.
    #[test]
    fn partitioned_runs_count_what_a_map_counts() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for n in [
            0usize,
            1,
            5,
            BUCKET_CODES - 1,
            BUCKET_CODES + 1,
            CHUNK_CODES + 1,
            300_000,
            // Class 17 alone fills a bucket past LARGE_BUCKET.
            700_000,
        ] {
            let codes: Vec<u64> = (0..n)
                .map(|i| match next() % 10 {
                    0 => SENTINEL,
                    // One large class, and classes that differ only past bit 40.
                    1 => 17,
                    2 => (next() % 64) << 40,
                    // Mostly small classes.
                    _ => next() % (n as u64 / 2 + 1) + (i as u64 % 3) * (1 << 50),
                })
                .collect();
            let mut by_code: BTreeMap<u64, u32> = BTreeMap::new();
            for &c in codes.iter().filter(|&&c| c != SENTINEL) {
                *by_code.entry(c).or_default() += 1;
            }
            let deleted = codes.iter().filter(|&&c| c == SENTINEL).count();
            let expected = (histogram(by_code.into_values()), deleted);
            assert_eq!(partitioned_runs(codes), expected, "{n} codes");
        }
    }

    #[test]
    fn an_all_missing_key_and_a_key_space_past_64_bits_are_told() {
        let a = key(&[0, 1, 0], 2);
        let b = key(&[MISSING; 3], 0);
        assert_eq!(
            size_counts(&[&a, &b], MissingPolicy::AsValue),
            Err(NoSizes::AllMissing(1))
        );
        let wide = key(&[0, 1, 2], u32::MAX - 1);
        let keys: Vec<&dyn CodeSource> = vec![&wide; 3];
        assert_eq!(
            size_counts(&keys, MissingPolicy::Listwise),
            Err(NoSizes::Recoded)
        );
    }

    /// Two keys in one part of `rows` rows whose pieces are `pieces` (offset, lengths of the
    /// two sources).
    struct Pieces {
        rows: Vec<usize>,
        pieces: Vec<(usize, usize, usize)>,
    }

    impl PartedCodes for Pieces {
        fn part_rows(&self) -> &[usize] {
            &self.rows
        }
        fn cards(&self) -> &[u32] {
            &[2, 2]
        }
        fn for_each_piece(
            &self,
            _part: usize,
            piece: &mut dyn FnMut(usize, &[&dyn CodeSource]),
        ) -> Result<bool, DataError> {
            for &(offset, a, b) in &self.pieces {
                let (a, b) = (key(&vec![1; a], 2), key(&vec![0; b], 2));
                piece(offset, &[&a, &b]);
            }
            Ok(true)
        }
    }

    #[test]
    fn parts_that_do_not_cover_their_rows_are_told_not_counted() {
        let count = |rows: usize, pieces: &[(usize, usize, usize)]| {
            let p = Pieces {
                rows: vec![rows],
                pieces: pieces.to_vec(),
            };
            size_counts_parts(&p, MissingPolicy::Listwise, &mut Timings::new()).unwrap()
        };
        let sizes = count(5, &[(0, 2, 2), (2, 3, 3)]).unwrap();
        assert_eq!(sizes.counts, vec![(5, 1)]);
        for (rows, pieces) in [
            (5, &[(0, 2, 2)][..]),        // too few rows
            (5, &[(0, 4, 4), (4, 2, 2)]), // too many
            (5, &[(0, 3, 3), (2, 2, 2)]), // overlapping
            (5, &[(0, 2, 2), (3, 2, 2)]), // a gap
            (5, &[(0, 5, 4)]),            // sources of different lengths
        ] {
            assert_eq!(
                count(rows, pieces),
                Err(NoSizes::Contradicted),
                "{pieces:?}"
            );
        }
    }
}
