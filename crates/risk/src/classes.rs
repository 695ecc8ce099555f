//! Equivalence classes on the key variables (docs/METHODS.md §1.1) under the listwise and as-value
//! policies.
//!
//! Each record's keys become one integer by Dalenius' mixed-radix (T2) code,
//! `x_1 + C_1·x_2 + C_1·C_2·x_3 + …`, when the product of the category counts fits in a u64.
//! Otherwise the tuple is re-coded key by key (`id ← dense(id·C_k + x_k)`), which is exact: no
//! hash of the tuple stands in for it, so no collision can merge two classes.
//!
//! Counting the codes uses a direct array when the key space is small, and otherwise a
//! radix-partitioned hash count: codes are scattered into 256 partitions by hash, then each
//! partition (whose hash table fits in cache) is counted on its own, in parallel. Class ids are
//! assigned in a fixed order (code order, or partition then first appearance), so results are
//! identical whatever the number of threads.

use rayon::prelude::*;

use intruder_table::Table;

use crate::error::RiskError;
use crate::keys::{KeyData, MISSING, MissingPolicy, SetMatch, key_data};

/// Class id of a record deleted by the listwise policy.
pub const DELETED: u32 = u32::MAX;

/// How the key tuples were encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Dalenius' mixed-radix code in one u64.
    MixedRadix,
    /// Key-by-key exact re-coding (the key space exceeds 64 bits).
    Recoded,
}

/// The equivalence classes of a file on its keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classes {
    /// Class id of each record ([`DELETED`] for records dropped by listwise deletion).
    pub class_of: Vec<u32>,
    /// Size f_k of each class.
    pub sizes: Vec<u32>,
    /// Records dropped (listwise) for a missing key.
    pub n_deleted: usize,
    /// How the tuples were encoded.
    pub encoding: Encoding,
}

impl Classes {
    /// f_k of record `i`, `None` when it was deleted.
    pub fn k(&self, i: usize) -> Option<u32> {
        let c = self.class_of[i];
        (c != DELETED).then(|| self.sizes[c as usize])
    }

    /// The weighted class size F_k of each class: the sum of the weights of its records.
    pub fn weighted_sizes(&self, weights: &[f64]) -> Vec<f64> {
        let mut f = vec![0.0; self.sizes.len()];
        for (&c, &w) in self.class_of.iter().zip(weights) {
            if c != DELETED {
                f[c as usize] += w;
            }
        }
        f
    }
}

/// Equivalence classes of `table` on `keys` under `policy` (listwise or as-value).
///
/// Set-valued keys: with [`SetMatch::Overlap`] the set as a whole is the value (`{3,4}` is its
/// own category); with [`SetMatch::First`] the first candidate is.
pub fn equivalence_classes(
    table: &Table,
    keys: &[String],
    policy: MissingPolicy,
    set_match: SetMatch,
) -> Result<Classes, RiskError> {
    if policy == MissingPolicy::Wildcard {
        return Err(RiskError::Param(
            "the wildcard policy does not partition records into classes; use n_match instead"
                .into(),
        ));
    }
    let kd = key_data(table, keys, set_match, false)?;
    Ok(classes_of(&kd, policy))
}

/// As [`equivalence_classes`], forcing the encoding: [`Encoding::Recoded`] is always possible;
/// [`Encoding::MixedRadix`] is an error when the key space exceeds 64 bits. The two give the same
/// classes (the choice only affects speed); this exists so that can be checked.
pub fn equivalence_classes_using(
    table: &Table,
    keys: &[String],
    policy: MissingPolicy,
    set_match: SetMatch,
    encoding: Encoding,
) -> Result<Classes, RiskError> {
    if policy == MissingPolicy::Wildcard {
        return Err(RiskError::Param(
            "the wildcard policy does not partition records into classes".into(),
        ));
    }
    let kd = key_data(table, keys, set_match, false)?;
    let c = classes_with(&kd, policy, encoding == Encoding::Recoded);
    if c.encoding != encoding {
        return Err(RiskError::Param(
            "the key space exceeds 64 bits: the mixed-radix code cannot be used".into(),
        ));
    }
    Ok(c)
}

pub(crate) fn classes_of(kd: &KeyData, policy: MissingPolicy) -> Classes {
    classes_with(kd, policy, false)
}

fn classes_with(kd: &KeyData, policy: MissingPolicy, force_recode: bool) -> Classes {
    let n = kd.n;
    let as_value = policy == MissingPolicy::AsValue;
    let nk = kd.codes.len();
    let radix: Vec<u64> = kd
        .card
        .iter()
        .map(|&c| c as u64 + u64::from(as_value))
        .collect();
    let product = radix
        .iter()
        .try_fold(1u64, |p, &r| p.checked_mul(r.max(1)))
        .filter(|_| !force_recode);
    let deleted = |i: usize| !as_value && kd.codes.iter().any(|c| c[i] == MISSING);
    let digit = |k: usize, i: usize| -> u64 {
        let c = kd.codes[k][i];
        if c == MISSING {
            0
        } else {
            c as u64 + u64::from(as_value)
        }
    };
    let (grouping, encoding) = match product {
        Some(p) if p < u64::MAX => {
            // Key by key over contiguous columns (simple loops the compiler vectorises), then
            // listwise deletion marks records missing any key.
            // Cache-blocked: each block of rows takes every key while its codes sit in cache,
            // so the key columns are read once and the codes written once.
            const BLOCK: usize = 4096;
            let mut codes = vec![0u64; n];
            let add = u32::from(as_value);
            codes
                .par_chunks_mut(BLOCK)
                .enumerate()
                .for_each(|(b, out)| {
                    let (base, len) = (b * BLOCK, out.len());
                    first_touch(out);
                    for k in (0..nk).rev() {
                        let r = radix[k];
                        let kc = &kd.codes[k][base..base + len];
                        for (o, &c) in out.iter_mut().zip(kc) {
                            let d = if c == MISSING { 0 } else { (c + add) as u64 };
                            *o = *o * r + d;
                        }
                    }
                    if !as_value {
                        for kc in &kd.codes {
                            for (o, &c) in out.iter_mut().zip(&kc[base..base + len]) {
                                if c == MISSING {
                                    *o = SENTINEL;
                                }
                            }
                        }
                    }
                });
            (group(&codes, p), Encoding::MixedRadix)
        }
        _ => {
            let mut ids = vec![0u64; n];
            let mut groups = None;
            #[allow(clippy::needless_range_loop)]
            for k in 0..nk {
                for (i, id) in ids.iter_mut().enumerate() {
                    if *id != SENTINEL {
                        *id = if deleted(i) {
                            SENTINEL
                        } else {
                            *id * radix[k] + digit(k, i)
                        };
                    }
                }
                let bound = (n as u64).saturating_mul(radix[k]).saturating_add(1);
                let g = group(&ids, bound);
                for (id, &c) in ids.iter_mut().zip(&g.0) {
                    *id = if c == DELETED { SENTINEL } else { c as u64 };
                }
                groups = Some(g);
            }
            (
                groups.unwrap_or_else(|| (vec![DELETED; n], Vec::new())),
                Encoding::Recoded,
            )
        }
    };
    let (class_of, sizes) = grouping;
    let n_deleted = class_of.iter().filter(|&&c| c == DELETED).count();
    Classes {
        class_of,
        sizes,
        n_deleted,
        encoding,
    }
}

/// Writes the zeros of a block of a freshly allocated (still unmapped) array before its codes
/// are accumulated into it. Left to `*o = *o * r + d`, the first touch of each page would be a
/// read, which maps the shared zero page, and the write after it would copy the page and flush
/// the TLB of every core running the process: on 10,000,000 records that was a third of the
/// wildcard count's time in the kernel (1.35 s → 1.10 s end to end from Parquet, BENCHMARKS.md).
fn first_touch(block: &mut [u64]) {
    block.fill(0);
}

/// Groups the records by their values on the key indices `keys` (which must have no missing
/// values), returning each record's group and the number of groups; one group when `keys` is
/// empty. Mixed radix when it fits in 64 bits, exact key-by-key re-coding otherwise.
pub(crate) fn group_rows(kd: &KeyData, keys: &[usize]) -> (Vec<u32>, usize) {
    let n = kd.n;
    if keys.is_empty() {
        return (vec![0; n], 1);
    }
    const BLOCK: usize = 4096;
    let radix: Vec<u64> = keys.iter().map(|&k| kd.card[k].max(1) as u64).collect();
    let product = radix.iter().try_fold(1u64, |p, &r| p.checked_mul(r));
    let mut codes = vec![0u64; n];
    match product {
        Some(bound) if bound < u64::MAX => {
            codes
                .par_chunks_mut(BLOCK)
                .enumerate()
                .for_each(|(b, out)| {
                    let (base, len) = (b * BLOCK, out.len());
                    first_touch(out);
                    for (&k, &r) in keys.iter().zip(&radix) {
                        for (o, &c) in out.iter_mut().zip(&kd.codes[k][base..base + len]) {
                            *o = *o * r + c as u64;
                        }
                    }
                });
            let (g, sizes) = group(&codes, bound);
            (g, sizes.len())
        }
        _ => {
            let mut out = (vec![0u32; n], 1usize);
            for (&k, &r) in keys.iter().zip(&radix) {
                for (x, &c) in codes.iter_mut().zip(&kd.codes[k]) {
                    *x = *x * r + c as u64;
                }
                let (g, sizes) = group(&codes, (n as u64 + 1).saturating_mul(r));
                for (x, &gi) in codes.iter_mut().zip(&g) {
                    *x = gi as u64;
                }
                out = (g, sizes.len());
            }
            out
        }
    }
}

/// The rows in group order (a counting sort by `gid`, stable: row order within a group), where
/// each of the `ngroups` groups starts (`start[g] .. start[g + 1]`), and, with `word`, each
/// row's `word(row)` in the same order (made in passing, the rows read in file order). Pieces
/// of the rows are counted and scattered on every thread; nothing depends on how many.
///
/// With many groups a single scatter writes every row to a random place of a large array (and
/// each piece needs a counter per group), so above [`BUCKETS`] groups the rows are first
/// partitioned by the high bits of their group into at most that many buckets (one write
/// stream per bucket, in cache), then each bucket (a range of groups) is sorted on its own, in
/// parallel.
pub(crate) fn rows_by_group<W: Fn(usize) -> u64 + Sync>(
    gid: &[u32],
    ngroups: usize,
    word: Option<W>,
) -> (Vec<u32>, Vec<usize>, Option<Vec<u64>>) {
    let n = gid.len();
    let mut order = vec![0u32; n];
    let mut words = word.as_ref().map(|_| vec![0u64; n]);
    let order_out = SharedPtr(order.as_mut_ptr());
    let words_out = SharedPtr(
        words
            .as_mut()
            .map_or(std::ptr::null_mut(), |w| w.as_mut_ptr()),
    );
    if ngroups <= BUCKETS {
        let start = scatter(
            gid,
            ngroups,
            |g| g as usize,
            |pos, row, _| {
                // SAFETY: `scatter` hands each position below n (the length of both arrays) once;
                // the words' pointer is used only when they were made.
                unsafe {
                    order_out.write(pos, row as u32);
                    if let Some(word) = &word {
                        words_out.write(pos, word(row));
                    }
                }
            },
        );
        return (order, start, words);
    }
    // 1. Each row (its group and row number in one word, and its word) to its bucket of
    // `1 << shift` consecutive groups, in row order within a bucket.
    let shift =
        (usize::BITS - (ngroups - 1).leading_zeros()).saturating_sub(BUCKETS.trailing_zeros());
    let buckets = ((ngroups - 1) >> shift) + 1;
    let mut tagged = vec![0u64; n];
    let mut tagged_words = word.as_ref().map(|_| vec![0u64; n]);
    let out = SharedPtr(tagged.as_mut_ptr());
    let out_words = SharedPtr(
        tagged_words
            .as_mut()
            .map_or(std::ptr::null_mut(), |w| w.as_mut_ptr()),
    );
    let bucket_start = scatter(
        gid,
        buckets,
        |g| (g >> shift) as usize,
        |pos, row, g| {
            // SAFETY: as above, for the tagged arrays.
            unsafe {
                out.write(pos, (u64::from(g) << 32) | row as u64);
                if let Some(word) = &word {
                    out_words.write(pos, word(row));
                }
            }
        },
    );
    // 2. Each bucket sorted by group (counting sort, stable) into its own range.
    let mut start = vec![0usize; ngroups + 1];
    let (tagged, tagged_words) = (&tagged, tagged_words.as_deref());
    start[..ngroups]
        .par_chunks_mut(1 << shift)
        .enumerate()
        .for_each(|(b, group_start)| {
            let (lo, hi) = (bucket_start[b], bucket_start[b + 1]);
            let first = (b << shift) as u64;
            let mut at = vec![0usize; group_start.len()];
            for &t in &tagged[lo..hi] {
                at[((t >> 32) - first) as usize] += 1;
            }
            let mut run = lo;
            for (a, s) in at.iter_mut().zip(group_start.iter_mut()) {
                *s = run;
                let count = *a;
                *a = run;
                run += count;
            }
            for (i, &t) in tagged[lo..hi].iter().enumerate() {
                let slot = &mut at[((t >> 32) - first) as usize];
                let pos = *slot;
                *slot += 1;
                // SAFETY: `pos` lies in bucket b's range lo..hi (prefix sums above), which no
                // other bucket writes; it is below n, the length of both arrays (the words'
                // pointer is used only when they were made).
                unsafe {
                    order_out.write(pos, t as u32);
                    if let Some(tw) = tagged_words {
                        words_out.write(pos, tw[lo + i]);
                    }
                }
            }
        });
    start[ngroups] = n;
    (order, start, words)
}

/// The most groups [`rows_by_group`] sorts in one scatter, and the most buckets it partitions
/// more groups into: a counter and a write stream each.
pub(crate) const BUCKETS: usize = 1024;

/// The scatter of a stable counting sort of the rows of `gid` by `bucket_of(group)` (below
/// `buckets`): `put(position, row, group)` once for every row, the positions bucket-major and
/// in row order within a bucket, each below `gid.len()` and handed out once. Pieces of the rows
/// are counted and scattered on every thread. Returns where each bucket starts (and the end).
pub(crate) fn scatter(
    gid: &[u32],
    buckets: usize,
    bucket_of: impl Fn(u32) -> usize + Sync,
    put: impl Fn(usize, usize, u32) + Sync,
) -> Vec<usize> {
    let pieces = 4 * rayon::current_num_threads();
    let piece = gid.len().div_ceil(pieces).max(1);
    let mut offsets: Vec<Vec<usize>> = gid
        .par_chunks(piece)
        .map(|c| {
            let mut h = vec![0usize; buckets];
            for &g in c {
                h[bucket_of(g)] += 1;
            }
            h
        })
        .collect();
    // Bucket-major, piece-minor: each piece's rows of a bucket follow the previous piece's.
    let mut start = vec![0usize; buckets + 1];
    let mut run = 0usize;
    for (b, s) in start.iter_mut().enumerate().take(buckets) {
        *s = run;
        for h in offsets.iter_mut() {
            let count = h[b];
            h[b] = run;
            run += count;
        }
    }
    start[buckets] = run;
    gid.par_chunks(piece)
        .zip(offsets.par_iter_mut())
        .enumerate()
        .for_each(|(pi, (c, off))| {
            let base = pi * piece;
            for (j, &g) in c.iter().enumerate() {
                let slot = &mut off[bucket_of(g)];
                put(*slot, base + j, g);
                *slot += 1;
            }
        });
    start
}

/// Dalenius' T2 (mixed-radix) code of one record: `x_1 + C_1·x_2 + C_1·C_2·x_3 + …` for values
/// `x_k ∈ 0..C_k`. `None` when a value is out of range or the code does not fit in 64 bits.
pub fn mixed_radix_code(values: &[u32], categories: &[u64]) -> Option<u64> {
    if values.len() != categories.len() {
        return None;
    }
    let mut code = 0u64;
    for (&x, &c) in values.iter().zip(categories).rev() {
        if x as u64 >= c {
            return None;
        }
        code = code.checked_mul(c)?.checked_add(x as u64)?;
    }
    Some(code)
}

/// Dalenius' T1 code of one record (§4.1): category 0 of a variable adds 0, category `x ≥ 1`
/// adds `2^(o + x − 1)`, where `o` is the number of bits (`C − 1` each) of the variables before
/// it; the sum is one-to-one. `None` when a value is out of range or the bits exceed 64.
pub fn dalenius_t1_code(values: &[u32], categories: &[u64]) -> Option<u64> {
    if values.len() != categories.len() {
        return None;
    }
    let (mut code, mut offset) = (0u64, 0u64);
    for (&x, &c) in values.iter().zip(categories) {
        if c == 0 || x as u64 >= c {
            return None;
        }
        if x > 0 {
            let bit = offset + x as u64 - 1;
            if bit >= 64 {
                return None;
            }
            code |= 1u64 << bit;
        }
        offset += c - 1;
    }
    Some(code)
}

/// Code of a record that takes no part in counting.
pub(crate) const SENTINEL: u64 = u64::MAX;

const PART_BITS: u32 = 8;
const PARTS: usize = 1 << PART_BITS;
const CHUNKS: usize = 64;

#[inline]
fn part_of(code: u64) -> usize {
    (code.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - PART_BITS)) as usize
}

/// Pointer that rayon tasks may share; every use writes a position no other task writes.
#[derive(Clone, Copy)]
pub(crate) struct SharedPtr<T>(pub(crate) *mut T);
// SAFETY: only used for writes to disjoint positions, computed from disjoint prefix sums.
unsafe impl<T> Send for SharedPtr<T> {}
unsafe impl<T> Sync for SharedPtr<T> {}
impl<T> SharedPtr<T> {
    /// # Safety
    /// `i` is in bounds and no other task writes position `i`.
    #[inline]
    pub(crate) unsafe fn write(self, i: usize, v: T) {
        unsafe { self.0.add(i).write(v) }
    }
}

/// The largest code bound whose counts [`group`] keeps one table of per thread (16 MiB each).
const PAR_COUNT_MAX: u64 = 1 << 22;

/// Groups equal codes: returns the class id of each position ([`DELETED`] for [`SENTINEL`])
/// and the class sizes. `bound` is an upper bound on the codes (exclusive).
pub(crate) fn group(codes: &[u64], bound: u64) -> (Vec<u32>, Vec<u32>) {
    let n = codes.len();
    let direct_limit = ((4 * n) as u64).clamp(1 << 22, 1 << 27);
    if bound <= direct_limit {
        let count = |mut counts: Vec<u32>, part: &[u64]| {
            for &c in part {
                if c != SENTINEL {
                    counts[c as usize] += 1;
                }
            }
            counts
        };
        let pieces = rayon::current_num_threads();
        let mut counts = if pieces > 1 && bound <= PAR_COUNT_MAX && n >= 4 * bound as usize {
            // A table of counts per thread, then summed: the rows counted on every thread.
            codes
                .par_chunks(n.div_ceil(pieces))
                .map(|part| count(vec![0u32; bound as usize], part))
                .reduce_with(|mut a, b| {
                    a.par_iter_mut().zip(&b).for_each(|(x, &y)| *x += y);
                    a
                })
                .unwrap_or_default()
        } else {
            count(vec![0u32; bound as usize], codes)
        };
        let mut sizes = Vec::new();
        for cnt in counts.iter_mut() {
            if *cnt > 0 {
                sizes.push(*cnt);
                *cnt = (sizes.len() - 1) as u32;
            }
        }
        let class_of = codes
            .par_iter()
            .map(|&c| {
                if c == SENTINEL {
                    DELETED
                } else {
                    counts[c as usize]
                }
            })
            .collect();
        return (class_of, sizes);
    }

    // 1. Histogram of partitions per chunk.
    let chunk = n.div_ceil(CHUNKS).max(1);
    let hists: Vec<Vec<u32>> = codes
        .par_chunks(chunk)
        .map(|c| {
            let mut h = vec![0u32; PARTS];
            for &x in c {
                if x != SENTINEL {
                    h[part_of(x)] += 1;
                }
            }
            h
        })
        .collect();
    // 2. Offsets: partition-major, chunk-minor, so each partition keeps row order.
    let mut offsets: Vec<Vec<usize>> = vec![vec![0; PARTS]; hists.len()];
    let mut part_start = vec![0usize; PARTS + 1];
    let mut run = 0usize;
    for p in 0..PARTS {
        part_start[p] = run;
        for (c, h) in hists.iter().enumerate() {
            offsets[c][p] = run;
            run += h[p] as usize;
        }
    }
    part_start[PARTS] = run;
    // 3. Scatter (code, row) into partitions.
    let mut pcodes = vec![0u64; run];
    let mut prows = vec![0u32; run];
    let (cp, rp) = (
        SharedPtr(pcodes.as_mut_ptr()),
        SharedPtr(prows.as_mut_ptr()),
    );
    codes
        .par_chunks(chunk)
        .zip(offsets.par_iter_mut())
        .enumerate()
        .for_each(|(ci, (c, off))| {
            let base = ci * chunk;
            for (j, &x) in c.iter().enumerate() {
                if x == SENTINEL {
                    continue;
                }
                let p = part_of(x);
                let pos = off[p];
                off[p] += 1;
                // SAFETY: `pos` lies in this chunk's own range of partition p (prefix sums above),
                // which no other chunk writes; it is below `run`.
                unsafe {
                    cp.write(pos, x);
                    rp.write(pos, (base + j) as u32);
                }
            }
        });
    // 4. Count each partition with a small hash table; local ids in first-appearance order.
    let mut local = vec![0u32; run];
    let mut slices = Vec::with_capacity(PARTS);
    let mut rest = local.as_mut_slice();
    for p in 0..PARTS {
        let (head, tail) = rest.split_at_mut(part_start[p + 1] - part_start[p]);
        slices.push((p, head));
        rest = tail;
    }
    let part_sizes: Vec<Vec<u32>> = slices
        .into_par_iter()
        .map(|(p, out)| {
            let cs = &pcodes[part_start[p]..part_start[p + 1]];
            let mut map: std::collections::HashMap<u64, u32, foldhash::fast::FixedState> =
                std::collections::HashMap::with_capacity_and_hasher(cs.len(), Default::default());
            let mut sizes = Vec::new();
            for (o, &c) in out.iter_mut().zip(cs) {
                let id = *map.entry(c).or_insert_with(|| {
                    sizes.push(0);
                    (sizes.len() - 1) as u32
                });
                sizes[id as usize] += 1;
                *o = id;
            }
            sizes
        })
        .collect();
    // 5. Global ids and scatter back to rows.
    let mut base = vec![0u32; PARTS];
    let mut total = 0u32;
    for p in 0..PARTS {
        base[p] = total;
        total += part_sizes[p].len() as u32;
    }
    let sizes: Vec<u32> = part_sizes.into_iter().flatten().collect();
    let mut class_of = vec![DELETED; n];
    let out = SharedPtr(class_of.as_mut_ptr());
    (0..PARTS).into_par_iter().for_each(|p| {
        for pos in part_start[p]..part_start[p + 1] {
            // SAFETY: every row appears in exactly one partition position, so each row index is
            // written once; rows are < n.
            unsafe { out.write(prows[pos] as usize, base[p] + local[pos]) }
        }
    });
    (class_of, sizes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counting sort by group is the stable sort by (group, row), with each row's word
    /// beside it, on any number of threads (pieces), with few groups or one per row.
    #[test]
    fn rows_by_group_is_the_stable_sort_by_group() {
        for (n, ngroups) in [
            (1000usize, 7usize),
            (1000, 1000),
            (5, 1),
            (0, 3),
            (5000, 1025),
            (5000, 4000),
            (3000, 100_000),
            (20_000, 2048),
        ] {
            let gid: Vec<u32> = (0..n)
                .map(|i| ((i * 7919 + i / 3) % ngroups) as u32)
                .collect();
            let mut expect: Vec<u32> = (0..n as u32).collect();
            expect.sort_by_key(|&r| (gid[r as usize], r));
            for threads in [1, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let (order, start, words) =
                    pool.install(|| rows_by_group(&gid, ngroups, Some(|r: usize| 3 * r as u64)));
                assert_eq!(
                    order, expect,
                    "{n} rows, {ngroups} groups, {threads} threads"
                );
                assert_eq!(start.len(), ngroups + 1);
                for g in 0..ngroups {
                    assert!(
                        order[start[g]..start[g + 1]]
                            .iter()
                            .all(|&r| gid[r as usize] == g as u32)
                    );
                }
                let words = words.unwrap();
                assert!(order.iter().zip(&words).all(|(&r, &w)| w == 3 * r as u64));
                let (plain, _, none) = rows_by_group(&gid, ngroups, None::<fn(usize) -> u64>);
                assert_eq!((plain, none), (expect.clone(), None));
            }
        }
    }

    fn naive(codes: &[u64]) -> Vec<u32> {
        codes
            .iter()
            .map(|&c| {
                if c == SENTINEL {
                    0
                } else {
                    codes.iter().filter(|&&d| d == c).count() as u32
                }
            })
            .collect()
    }

    #[test]
    fn direct_and_partitioned_paths_agree_with_naive_counts() {
        let mut x = 12345u64;
        let codes: Vec<u64> = (0..3000)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if i % 97 == 0 { SENTINEL } else { x % 700 }
            })
            .collect();
        let expect = naive(&codes);
        for bound in [700u64, 1 << 40] {
            let (class_of, sizes) = group(&codes, bound);
            let got: Vec<u32> = class_of
                .iter()
                .map(|&c| if c == DELETED { 0 } else { sizes[c as usize] })
                .collect();
            assert_eq!(got, expect, "bound {bound}");
            assert_eq!(
                sizes.iter().sum::<u32>() as usize,
                codes.iter().filter(|&&c| c != SENTINEL).count()
            );
        }
        // Counted on one thread or on several (a table of counts each): the same classes, the
        // same ids.
        let on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| group(&codes, 700))
        };
        assert_eq!(on(1), on(3));
    }
}
