//! Mulder's n_match: for record j, the number of records r that agree with j on every key where
//! both are observed (a missing value matches anything; docs/METHODS.md §1.2).
//!
//! The naive count compares every pair, O(n²·|q|). Here:
//! 1. Keys that are never missing in the file and not set-valued (F) must agree for any match,
//!    so records are grouped by their F values with the fast class counter; groups are
//!    independent.
//! 2. A small group is solved pair by pair: when the other keys pack into one word per record
//!    ([`Packing`]), a pair costs one word operation (two records agree where both are observed
//!    when their words differ only in fields missing in one of them) and groups up to a few
//!    hundred records are solved so; otherwise (≤ 48 records) on a gathered buffer of codes.
//! 3. A larger group collapses to its distinct tuples on the other keys (missing kept as its own
//!    value) and is solved by the missingness-pattern index of [`intruder_data::keys`]
//!    ([`PatternIndex::self_join`]): for a query pattern P, a stored tuple t agrees with a
//!    query q exactly when they are equal on the keys C = P ∩ pattern(t) observed in both; so
//!    one hash table per distinct C, keyed by the projection on C, answers every query of P.
//!    The cost is O(m · patterns) for the group's m tuples.
//!
//! With skewed keys most groups are tiny and every table stays in cache; with no key always
//! observed there is one group and step 3 runs on the whole file. A group's records lie anywhere
//! in the file, so when the other keys fit in 64 bits they are packed one word per record
//! ([`Packing`]) while the records are put in group order, reading the file in order: the groups
//! then read their words in order instead of every key of every record at random; the buffers of
//! steps 2 and 3 are reused from group to group. Keys read a part of the file at a time (a
//! Parquet file's row groups, a CSV file's chunks) are packed so as they are read, every key of
//! a row in one word, and never held as key columns ([`n_match_packed`]: 8 bytes a row instead
//! of 4 per key and row). When no figure needs a record's own n_match (no weights, no
//! per-record output) the records are never put back in file order: their words go to buckets
//! of consecutive groups small enough for the cache, each bucket is sorted by group and solved
//! there, and only the histogram of n_match is kept ([`n_match_histogram_packed`]). Where the
//! CPU has AVX2 the pairs of step 2 are compared four at a time, and groups four times as large
//! are solved so.
//!
//! Set-valued keys (a cell with several candidate values) are kept as candidate bit masks beside
//! the projection: a stored entry matches when its candidates intersect the query's (or, with
//! [`SetMatch::First`], contain the query's first candidate). With [`SetMatch::FirstBoth`] a
//! set-valued key is coded by its first candidate and matched as a plain value.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use rayon::prelude::*;

use intruder_table::keys::{PackedRows, Packing, PatternIndex, SetMasks};
use intruder_table::{Kind, Table};

use crate::error::RiskError;
use crate::keys::{KeyData, MISSING, SetMatch, key_data};
use crate::sizes::Histogram;

/// n_match of every record, and the weighted analogue (sum of weights of the matching records,
/// sdcMicro's `Fk` with missing keys) when weights are given.
#[derive(Debug, Clone, PartialEq)]
pub struct NMatch {
    /// n_match of each record (≥ 1: a record matches itself).
    pub n_match: Vec<u32>,
    /// Σ of the weights of the matching records, when weights were given.
    pub weighted: Option<Vec<f64>>,
}

/// n_match of every record of `table` on `keys` (see the module docs).
pub fn n_match(
    table: &Table,
    keys: &[String],
    set_match: SetMatch,
    weights: Option<&[f64]>,
) -> Result<NMatch, RiskError> {
    let kd = key_data(table, keys, set_match, true)?;
    Ok(n_match_of(&kd, weights))
}

/// n_match of every record of coded keys (set-valued keys with candidate masks).
///
/// Keys never missing in the file and not set-valued (F) must agree for any match, so records
/// are first grouped by their F values (the fast class counter) and each group is solved on its
/// own with the other keys (V): small groups pair by pair; larger ones by the pattern index over
/// their distinct V tuples. With skewed keys most groups are tiny, so every table stays in
/// cache; with no key always observed there is one group.
pub(crate) fn n_match_of(kd: &KeyData, weights: Option<&[f64]>) -> NMatch {
    let nk = kd.codes.len();
    // Whether a key has a missing value, looked for on every thread (a key with none is read
    // to its end).
    let has_missing = |k: usize| {
        kd.codes[k]
            .par_chunks(1 << 16)
            .any(|c| c.contains(&MISSING))
    };
    let (fkeys, vkeys): (Vec<usize>, Vec<usize>) =
        (0..nk).partition(|&k| kd.sets[k].is_none() && !has_missing(k));
    let (gid, ngroups) = crate::classes::group_rows(kd, &fkeys);
    let packing = Packing::of(kd, &vkeys);
    let word = packing.as_ref().map(|p| move |r: usize| p.word(kd, r));
    let solver = RowSolver {
        kd: Some(kd),
        weights,
        vkeys: &vkeys,
        packing: packing.as_ref(),
        set_v: vkeys
            .iter()
            .enumerate()
            .filter_map(|(j, &k)| kd.sets[k].as_ref().map(|s| (j, s)))
            .collect(),
    };
    match_in_groups(gid, ngroups, word, &solver)
}

/// n_match of every record of keys packed one word per row
/// ([`intruder_data::keys::Keys::packed_from_parts`]): [`n_match_of`] on those keys, solved
/// group by group from the words alone ([`solve_packed`]), each record's figures written to
/// its row.
pub(crate) fn n_match_packed(rows: &PackedRows, weights: Option<&[f64]>) -> NMatch {
    let n = rows.words.len();
    // Every row is in exactly one group, so each is written once, whatever the thread count.
    let counts: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let sums: Option<Vec<AtomicU64>> = weights.map(|_| (0..n).map(|_| AtomicU64::new(0)).collect());
    solve_packed(
        rows,
        weights,
        true,
        || (),
        |(), group, figures| {
            for (&row, &(c, w)) in group.iter().zip(figures) {
                counts[row as usize].store(c.min(u64::from(u32::MAX)) as u32, Ordering::Relaxed);
                if let Some(s) = &sums {
                    s[row as usize].store(w.to_bits(), Ordering::Relaxed);
                }
            }
        },
    );
    NMatch {
        n_match: counts.into_iter().map(AtomicU32::into_inner).collect(),
        weighted: sums.map(|s| {
            s.into_iter()
                .map(|x| f64::from_bits(x.into_inner()))
                .collect()
        }),
    }
}

/// The histogram of n_match over the records of keys packed one word per row: `(m, records
/// with n_match = m)` by increasing m, the histogram of [`n_match_packed`]'s figures without
/// a record's own (for the figures that need none: no weights, no per-record output), so the
/// records are never put back in file order.
pub(crate) fn n_match_histogram_packed(rows: &PackedRows) -> Vec<(u32, usize)> {
    solve_packed(rows, None, false, Histogram::default, |hist, _, figures| {
        for &(m, _) in figures {
            hist.add(m.min(u64::from(u32::MAX)) as u32, 1);
        }
    })
    .into_iter()
    .fold(Histogram::default(), Histogram::merge)
    .into_sorted()
}

/// Solves every group of records of packed keys (records equal on every always-observed key)
/// and hands each to `visit(state, rows, figures)`: its rows (their numbers in the file when
/// `numbered`, else unspecified) and their figures (n_match, Σ weights) in the same order. A
/// state is made by `init` for each piece of work; the states are returned.
///
/// The rows' words (with their numbers and weights when asked for) go to buckets of
/// consecutive groups in one scatter, in file order within a bucket; each bucket, small enough
/// for the cache, is then sorted by group and its groups solved there, on every thread.
fn solve_packed<S: Send>(
    rows: &PackedRows,
    weights: Option<&[f64]>,
    numbered: bool,
    init: impl Fn() -> S + Sync + Send,
    visit: impl Fn(&mut S, &[u32], &[(u64, f64)]) + Sync + Send,
) -> Vec<S> {
    let p = &rows.packing;
    let n = rows.words.len();
    let numbered = numbered || weights.is_some();
    let (fkeys, vkeys): (Vec<usize>, Vec<usize>) =
        (0..p.nkeys()).partition(|&k| !rows.any_missing[k]);
    // The group of each row: the always-observed keys' mixed-radix code when it fits in 32
    // bits, else the class id of the 64-bit code (as `group_rows` makes it).
    let radix: Vec<u64> = fkeys.iter().map(|&k| p.card_of(k).max(1) as u64).collect();
    let code_of = |w: u64| -> u64 {
        fkeys.iter().zip(&radix).fold(0u64, |c, (&k, &r)| {
            c.wrapping_mul(r).wrapping_add(p.field(w, k) - 1)
        })
    };
    let (codes, ngroups): (Vec<u32>, u64) =
        match radix.iter().try_fold(1u64, |b, &r| b.checked_mul(r)) {
            Some(bound) if bound <= u64::from(u32::MAX) => (
                rows.words.par_iter().map(|&w| code_of(w) as u32).collect(),
                bound,
            ),
            bound => {
                // The keys fit in one word, so the code fits in 64 bits (below 2^64 - 1, the
                // class counter's sentinel): the classes of the codes number the groups.
                let wide: Vec<u64> = rows.words.par_iter().map(|&w| code_of(w)).collect();
                let (gid, sizes) = crate::classes::group(&wide, bound.unwrap_or(u64::MAX));
                (gid, sizes.len() as u64)
            }
        };
    let ngroups = ngroups.max(1);
    // Buckets of 2^shift consecutive groups, at most BUCKETS of them.
    let shift = (u64::BITS - (ngroups - 1).leading_zeros())
        .saturating_sub(crate::classes::BUCKETS.trailing_zeros());
    let buckets = ((ngroups - 1) >> shift) as usize + 1;
    let (mut b_words, mut b_codes) = (vec![0u64; n], vec![0u32; n]);
    let mut b_rows = vec![0u32; if numbered { n } else { 0 }];
    let mut b_weights = vec![0.0f64; if weights.is_some() { n } else { 0 }];
    let out = (
        crate::classes::SharedPtr(b_words.as_mut_ptr()),
        crate::classes::SharedPtr(b_codes.as_mut_ptr()),
        crate::classes::SharedPtr(b_rows.as_mut_ptr()),
        crate::classes::SharedPtr(b_weights.as_mut_ptr()),
    );
    let words = &rows.words;
    let bucket_start = crate::classes::scatter(
        &codes,
        buckets,
        |g| (g >> shift) as usize,
        |pos, row, g| {
            // SAFETY: `scatter` hands each position below n once; n is the length of the words
            // and codes, of the rows when numbered and of the weights when given.
            unsafe {
                out.0.write(pos, words[row]);
                out.1.write(pos, g);
                if numbered {
                    out.2.write(pos, row as u32);
                }
                if let Some(w) = weights {
                    out.3.write(pos, w[row]);
                }
            }
        },
    );
    drop(codes);
    let vpacking = p.select(&vkeys);
    let vmask = vpacking.mask();
    let groups_per_bucket = 1usize << shift;
    (0..buckets)
        .into_par_iter()
        .fold(
            || (init(), BucketScratch::default()),
            |(mut state, mut bs), b| {
                let (lo, hi) = (bucket_start[b], bucket_start[b + 1]);
                let first = (b << shift) as u32;
                // A counting sort of the bucket's rows by group, stable.
                bs.at.clear();
                bs.at.resize(groups_per_bucket + 1, 0);
                for &g in &b_codes[lo..hi] {
                    bs.at[(g - first) as usize + 1] += 1;
                }
                for g in 0..groups_per_bucket {
                    bs.at[g + 1] += bs.at[g];
                }
                bs.start.clone_from(&bs.at);
                let len = hi - lo;
                bs.words.resize(len, 0);
                bs.rows.resize(if numbered { len } else { 0 }, 0);
                bs.weights
                    .resize(if weights.is_some() { len } else { 0 }, 0.0);
                for (i, &g) in b_codes[lo..hi].iter().enumerate() {
                    let slot = &mut bs.at[(g - first) as usize];
                    bs.words[*slot] = b_words[lo + i] & vmask;
                    if numbered {
                        bs.rows[*slot] = b_rows[lo + i];
                    }
                    if weights.is_some() {
                        bs.weights[*slot] = b_weights[lo + i];
                    }
                    *slot += 1;
                }
                // The solver looks the weights up by the bucket's positions.
                let solver = RowSolver {
                    kd: None,
                    weights: weights.map(|_| &bs.weights[..]),
                    vkeys: &vkeys,
                    packing: Some(&vpacking),
                    set_v: Vec::new(),
                };
                for g in 0..groups_per_bucket {
                    let (lo, hi) = (bs.start[g], bs.start[g + 1]);
                    let group = if numbered { &bs.rows[lo..hi] } else { &[][..] };
                    match hi - lo {
                        0 => {}
                        1 => {
                            let w = weights.map_or(0.0, |_| bs.weights[lo]);
                            visit(&mut state, group, &[(1, w)]);
                        }
                        _ => {
                            bs.local.clear();
                            bs.local.extend(lo as u32..hi as u32);
                            solver.solve(&bs.local, Some(&bs.words[lo..hi]), &mut bs.scratch);
                            visit(&mut state, group, &bs.scratch.out);
                        }
                    }
                }
                (state, bs)
            },
        )
        .map(|(state, _)| state)
        .collect()
}
/// One thread's buffers for [`solve_packed`]'s buckets.
#[derive(Default)]
struct BucketScratch {
    /// Per group of the bucket, where its next row goes.
    at: Vec<usize>,
    /// Per group of the bucket, where its rows start (and the end).
    start: Vec<usize>,
    /// The bucket's V words in group order.
    words: Vec<u64>,
    /// Their rows' numbers in the file, when asked for.
    rows: Vec<u32>,
    /// Their weights, when given.
    weights: Vec<f64>,
    /// The positions in the bucket of the group being solved (the solver's rows).
    local: Vec<u32>,
    scratch: Scratch,
}

/// n_match of every record from its group (`gid`: groups of records equal on every
/// always-observed key) and the group's solver; `word`, when the other keys pack, gives a
/// row's packed word.
fn match_in_groups<W: Fn(usize) -> u64 + Sync>(
    gid: Vec<u32>,
    ngroups: usize,
    word: Option<W>,
    solver: &RowSolver<'_>,
) -> NMatch {
    let n = gid.len();
    let weights = solver.weights;
    if solver.vkeys.is_empty() {
        // Nothing missing: n_match is the class size.
        let mut size = vec![0u64; ngroups];
        let mut wsize = vec![0.0f64; ngroups];
        for (i, &g) in gid.iter().enumerate() {
            size[g as usize] += 1;
            if let Some(w) = weights {
                wsize[g as usize] += w[i];
            }
        }
        return NMatch {
            n_match: gid.iter().map(|&g| size[g as usize] as u32).collect(),
            weighted: weights.map(|_| gid.iter().map(|&g| wsize[g as usize]).collect()),
        };
    }
    // Records in group order (a counting sort, stable in row order), with their V keys packed
    // one word each when they fit: a group's records lie anywhere in the file, so this is read
    // in file order once instead of once per key in group order.
    let (order, start, words) = crate::classes::rows_by_group(&gid, ngroups, word);
    drop(gid);

    // Solve the groups in batches of contiguous groups; results line up with `order`.
    let batch = (n / 256).max(4096);
    let mut bounds = vec![0usize];
    for g in 1..=ngroups {
        if start[g] - start[bounds.last().copied().unwrap_or(0)] >= batch || g == ngroups {
            bounds.push(g);
        }
    }
    // Each record's figures are written straight to its row (every row is in exactly one
    // group, so each is written once, whatever the thread count); a record alone in its group
    // matches only itself.
    let counts: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
    let sums: Option<Vec<AtomicU64>> = weights.map(|_| (0..n).map(|_| AtomicU64::new(0)).collect());
    let put = |row: u32, (c, w): (u64, f64)| {
        counts[row as usize].store(c.min(u32::MAX as u64) as u32, Ordering::Relaxed);
        if let Some(s) = &sums {
            s[row as usize].store(w.to_bits(), Ordering::Relaxed);
        }
    };
    bounds.par_windows(2).for_each(|w| {
        let mut scratch = Scratch::default();
        for g in w[0]..w[1] {
            let rows = &order[start[g]..start[g + 1]];
            if let [row] = rows {
                put(*row, (1, weights.map_or(0.0, |w| w[*row as usize])));
                continue;
            }
            let words = words.as_ref().map(|w| &w[start[g]..start[g + 1]]);
            solver.solve(rows, words, &mut scratch);
            for (&row, &r) in rows.iter().zip(&scratch.out) {
                put(row, r);
            }
        }
    });
    let n_match: Vec<u32> = counts.into_iter().map(AtomicU32::into_inner).collect();
    let weighted: Option<Vec<f64>> = sums.map(|s| {
        s.into_iter()
            .map(|x| f64::from_bits(x.into_inner()))
            .collect()
    });
    NMatch { n_match, weighted }
}

/// Groups up to this size are solved pair by pair when their V keys do not pack.
const PAIRWISE_MAX: usize = 48;

/// Groups up to this size are solved pair by pair when their `nv` V keys pack into one word:
/// a pair then costs one word operation, against one probe per missingness pattern and
/// distinct tuple for the pattern index, so the break-even grows with the patterns (2^nv).
/// Measured on the benchmark file (10,000,000 rows, 3 V keys, 2 threads), the count phase of
/// `intruder risk --missing wildcard`: 2.02–2.08 s with 48, 1.60–1.78 s with 256, 1.49–1.61 s
/// with 320 (the rule without AVX2), 1.47–1.53 s with 400, 1.86 s with no limit (a group of
/// 12,965 rows solved pair by pair). Bounded because a group of equal words costs n² pairs but
/// a single tuple in the index. On a CPU with AVX2 the pairs run four an instruction
/// ([`agreeing_counts`], [`agreeing_weights`]) and the limit is four times as high: measured
/// there (the solving of the buckets of [`solve_packed`], same file, no weights), 300–313 ms
/// with 320, 254–281 ms with 640, 255–272 ms with 1280 (the rule), 256–287 ms with 2500; with
/// weights the whole count phase took 1.56–1.59 s with 320, 1.32–1.34 s with 1280. With
/// weights the higher limit holds on every CPU: the pattern index sums the weights in another
/// order, and the sums must not depend on the machine (the four-lane loop without AVX2 still
/// has no gather and four chains of additions).
fn packed_pairwise_max(nv: usize, weighted: bool) -> usize {
    let most = 40usize << nv.min(16);
    if weighted || pairs_vectorised() {
        (4 * most).clamp(PAIRWISE_MAX, 2048)
    } else {
        most.clamp(PAIRWISE_MAX, 512)
    }
}

/// Whether [`agreeing_counts`] and [`agreeing_weights`] compare four pairs an instruction on
/// this CPU.
fn pairs_vectorised() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// For each packed word `q` of a group (`observed`: its observed fields' bits), the number of
/// the group's words that agree with it wherever both are observed, appended to `out`.
fn agreeing_counts(words: &[u64], observed: &[u64], out: &mut Vec<(u64, f64)>) {
    agreeing_counts_on(words, observed, out, true)
}

/// [`agreeing_counts`], with AVX2 only when `avx2` (and the CPU has it).
fn agreeing_counts_on(words: &[u64], observed: &[u64], out: &mut Vec<(u64, f64)>, avx2: bool) {
    #[inline(always)]
    fn counts(words: &[u64], observed: &[u64], out: &mut Vec<(u64, f64)>) {
        for (&q, &mq) in words.iter().zip(observed) {
            let mut count = 0u64;
            for (&r, &mr) in words.iter().zip(observed) {
                count += u64::from((q ^ r) & mq & mr == 0);
            }
            out.push((count, 0.0));
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        /// The same loop compiled for AVX2 (four pairs an instruction).
        #[target_feature(enable = "avx2")]
        fn counts_avx2(words: &[u64], observed: &[u64], out: &mut Vec<(u64, f64)>) {
            counts(words, observed, out)
        }
        if avx2 && pairs_vectorised() {
            // SAFETY: the CPU has AVX2 (what `pairs_vectorised` checks).
            return unsafe { counts_avx2(words, observed, out) };
        }
    }
    counts(words, observed, out)
}

/// [`agreeing_counts`] with the sum of the agreeing words' weights (`weights`, one per word):
/// summed in four lanes (words 0, 4, 8, … in the first), then `(l0 + l1) + (l2 + l3)`, then
/// the words past the last multiple of four in order; the same sums with and without AVX2.
fn agreeing_weights(words: &[u64], observed: &[u64], weights: &[f64], out: &mut Vec<(u64, f64)>) {
    agreeing_weights_on(words, observed, weights, out, true)
}

/// [`agreeing_weights`], with AVX2 only when `avx2` (and the CPU has it).
fn agreeing_weights_on(
    words: &[u64],
    observed: &[u64],
    weights: &[f64],
    out: &mut Vec<(u64, f64)>,
    avx2: bool,
) {
    #[inline(always)]
    fn sums(words: &[u64], observed: &[u64], weights: &[f64], out: &mut Vec<(u64, f64)>) {
        let whole = words.len() / 4 * 4;
        for (&q, &mq) in words.iter().zip(observed) {
            let mut count = [0u64; 4];
            let mut sum = [0.0f64; 4];
            for ((r, mr), w) in words[..whole]
                .chunks_exact(4)
                .zip(observed[..whole].chunks_exact(4))
                .zip(weights[..whole].chunks_exact(4))
            {
                for l in 0..4 {
                    let agree = (q ^ r[l]) & mq & mr[l] == 0;
                    count[l] += u64::from(agree);
                    // Weights are ≥ 0, so adding 0.0 leaves a sum as it is.
                    sum[l] += if agree { w[l] } else { 0.0 };
                }
            }
            out.push(lanes_and_tail(q, mq, count, sum, words, observed, weights));
        }
    }
    /// The four lanes combined, then the words past the last multiple of four added in order.
    #[inline(always)]
    fn lanes_and_tail(
        q: u64,
        mq: u64,
        count: [u64; 4],
        sum: [f64; 4],
        words: &[u64],
        observed: &[u64],
        weights: &[f64],
    ) -> (u64, f64) {
        let whole = words.len() / 4 * 4;
        let mut count = count.iter().sum::<u64>();
        let mut sum = (sum[0] + sum[1]) + (sum[2] + sum[3]);
        for ((&r, &mr), &w) in words[whole..]
            .iter()
            .zip(&observed[whole..])
            .zip(&weights[whole..])
        {
            if (q ^ r) & mq & mr == 0 {
                count += 1;
                sum += w;
            }
        }
        (count, sum)
    }
    #[cfg(target_arch = "x86_64")]
    {
        /// The same sums with the four lanes in one AVX2 register.
        #[target_feature(enable = "avx2")]
        fn sums_avx2(words: &[u64], observed: &[u64], weights: &[f64], out: &mut Vec<(u64, f64)>) {
            use std::arch::x86_64::*;
            let whole = words.len() / 4 * 4;
            for (&q, &mq) in words.iter().zip(observed) {
                let (qv, mqv) = (_mm256_set1_epi64x(q as i64), _mm256_set1_epi64x(mq as i64));
                let mut count = _mm256_setzero_si256();
                let mut sum = _mm256_setzero_pd();
                for j in (0..whole).step_by(4) {
                    // SAFETY: j + 4 ≤ whole ≤ the length of all three slices; unaligned loads.
                    let (r, mr, w) = unsafe {
                        (
                            _mm256_loadu_si256(words.as_ptr().add(j).cast()),
                            _mm256_loadu_si256(observed.as_ptr().add(j).cast()),
                            _mm256_loadu_pd(weights.as_ptr().add(j)),
                        )
                    };
                    let differ =
                        _mm256_and_si256(_mm256_and_si256(_mm256_xor_si256(qv, r), mqv), mr);
                    // All ones in the lanes that agree.
                    let agree = _mm256_cmpeq_epi64(differ, _mm256_setzero_si256());
                    count = _mm256_sub_epi64(count, agree);
                    sum = _mm256_add_pd(sum, _mm256_and_pd(_mm256_castsi256_pd(agree), w));
                }
                let (mut c, mut s) = ([0u64; 4], [0.0f64; 4]);
                // SAFETY: stores to local arrays of four lanes.
                unsafe {
                    _mm256_storeu_si256(c.as_mut_ptr().cast(), count);
                    _mm256_storeu_pd(s.as_mut_ptr(), sum);
                }
                out.push(lanes_and_tail(q, mq, c, s, words, observed, weights));
            }
        }
        if avx2 && pairs_vectorised() {
            // SAFETY: the CPU has AVX2 (what `pairs_vectorised` checks).
            return unsafe { sums_avx2(words, observed, weights, out) };
        }
    }
    sums(words, observed, weights, out)
}

/// Solves one group of records that agree on every always-observed key.
struct RowSolver<'a> {
    /// The keys' codes; `None` when only their packed words are (then they always pack).
    kd: Option<&'a KeyData>,
    weights: Option<&'a [f64]>,
    vkeys: &'a [usize],
    /// How the V keys pack into one word per record, when they fit (no set-valued key).
    packing: Option<&'a Packing>,
    /// The set-valued keys among the V keys: position in V and masks.
    set_v: Vec<(usize, &'a SetMasks)>,
}

/// Buffers one task reuses from group to group.
#[derive(Default)]
struct Scratch {
    /// The group's V codes, row-major.
    local: Vec<u32>,
    /// The observed fields of each of the group's packed words.
    observed: Vec<u64>,
    /// The group's weights.
    weights: Vec<f64>,
    /// n_match (count, weight) of each record of the group, in order.
    out: Vec<(u64, f64)>,
}

impl RowSolver<'_> {
    /// The keys' codes, which every solver of keys that do not pack has.
    fn kd(&self) -> &KeyData {
        self.kd
            .expect("keys that do not pack come with their codes")
    }

    /// n_match (count, weight) of each record of `rows`, in that order, into `scratch.out`;
    /// `words` are the records' packed V keys when they pack.
    fn solve(&self, rows: &[u32], words: Option<&[u64]>, scratch: &mut Scratch) {
        let out = &mut scratch.out;
        out.clear();
        let packed = self.packing.is_some() && words.is_some();
        let most = if packed {
            packed_pairwise_max(self.vkeys.len(), self.weights.is_some())
        } else {
            PAIRWISE_MAX
        };
        if rows.len() > most {
            let (index, tuple_of) = match (self.packing, words) {
                (Some(p), Some(w)) => PatternIndex::distinct_packed(p, w, rows, self.weights),
                _ => PatternIndex::distinct(self.kd(), self.vkeys, rows, self.weights),
            };
            let per_tuple = index.self_join();
            out.extend(tuple_of.iter().map(|&t| per_tuple[t as usize]));
            return;
        }
        if let (Some(p), Some(words)) = (self.packing, words) {
            // Two records agree where both are observed when their words differ only in
            // fields missing in one of them: one word operation per pair.
            let observed = &mut scratch.observed;
            observed.clear();
            observed.extend(words.iter().map(|&w| p.observed(w)));
            let observed = &*observed;
            match self.weights {
                None => agreeing_counts(words, observed, out),
                Some(w) => {
                    let lw = &mut scratch.weights;
                    lw.clear();
                    lw.extend(rows.iter().map(|&r| w[r as usize]));
                    agreeing_weights(words, observed, lw, out);
                }
            }
            return;
        }
        // Gather the group's V codes once (row-major), then compare pairs in cache.
        let c = &self.kd().codes;
        let nv = self.vkeys.len();
        let local = &mut scratch.local;
        local.clear();
        for &r in rows {
            local.extend(self.vkeys.iter().map(|&k| c[k][r as usize]));
        }
        let lw = &mut scratch.weights;
        lw.clear();
        lw.extend(
            rows.iter()
                .map(|&r| self.weights.map_or(0.0, |w| w[r as usize])),
        );
        let (local, lw) = (&*local, &*lw);
        if self.set_v.is_empty() {
            out.extend(local.chunks_exact(nv).map(|q| {
                let (mut cnt, mut wt) = (0u64, 0.0f64);
                for (r, &wr) in local.chunks_exact(nv).zip(lw) {
                    if q.iter()
                        .zip(r)
                        .all(|(&a, &b)| a == MISSING || b == MISSING || a == b)
                    {
                        cnt += 1;
                        wt += wr;
                    }
                }
                (cnt, wt)
            }));
            return;
        }
        // With set-valued keys: equal codes match (a query's candidates are among its own);
        // otherwise a set-valued key matches when the query's candidates meet the stored ones.
        let mut is_set = vec![false; nv];
        for &(j, _) in &self.set_v {
            is_set[j] = true;
        }
        let sets_meet = |qi: usize, ri: usize| {
            self.set_v.iter().all(|&(j, m)| {
                let (a, b) = (local[qi * nv + j], local[ri * nv + j]);
                a == MISSING
                    || b == MISSING
                    || a == b
                    || SetMasks::overlap(m.query(rows[qi] as usize), m.stored(rows[ri] as usize))
            })
        };
        out.extend((0..rows.len()).map(|qi| {
            let q = &local[qi * nv..(qi + 1) * nv];
            let (mut cnt, mut wt) = (0u64, 0.0f64);
            for (ri, &wr) in lw.iter().enumerate() {
                let r = &local[ri * nv..(ri + 1) * nv];
                let scalar_ok = q
                    .iter()
                    .zip(r)
                    .zip(&is_set)
                    .all(|((&a, &b), &s)| s || a == MISSING || b == MISSING || a == b);
                if scalar_ok && sets_meet(qi, ri) {
                    cnt += 1;
                    wt += wr;
                }
            }
            (cnt, wt)
        }));
    }
}

/// Whether two records that both miss a key may match each other under the wildcard policy
/// (METHODS.md §1.2, worked example D).
///
/// Mulder's stated Steps 1–5 let a missing value match anything on either side
/// ([`IncompletePairs::Match`], the definition and the default). His printed Table 2 does not
/// follow them: rows 3 (`., M`) and 4 (`40, .`) print n_match 4 and 2 where the steps give 5 and
/// 3, which only follows when two records that both miss a key never match each other
/// ([`IncompletePairs::Never`]). Under `Never` a complete record counts exactly as under
/// `Match` (every record agreeing with it where both are observed); a record missing a key
/// counts itself and the complete records that agree with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum IncompletePairs {
    /// Two incomplete records match when they agree where both are observed (Mulder's Steps
    /// 1–5).
    #[default]
    Match,
    /// Two distinct records that both miss a key never match (the rule Mulder's printed
    /// Table 2 follows).
    Never,
}

impl IncompletePairs {
    /// Every rule.
    pub const ALL: [IncompletePairs; 2] = [IncompletePairs::Match, IncompletePairs::Never];

    /// The name in experiment files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            IncompletePairs::Match => "match",
            IncompletePairs::Never => "never",
        }
    }
}

impl std::fmt::Display for IncompletePairs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for IncompletePairs {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        IncompletePairs::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| {
                format!("unknown rule '{s}' for incomplete pairs; expected match or never")
            })
    }
}

/// n_match of every record of `table` on `keys` under the wildcard policy and the rule
/// `incomplete` for two records that both miss a key ([`n_match`] under
/// [`IncompletePairs::Match`]).
pub fn n_match_with(
    table: &Table,
    keys: &[String],
    set_match: SetMatch,
    incomplete: IncompletePairs,
    weights: Option<&[f64]>,
) -> Result<NMatch, RiskError> {
    let kd = key_data(table, keys, set_match, true)?;
    Ok(n_match_rule(&kd, incomplete, weights))
}

/// [`n_match_of`] under the rule `incomplete`. Under [`IncompletePairs::Never`] a record missing
/// a key counts itself and the complete records matching it: the weighted n_match with weight
/// 1 on complete records and 0 on the others (its weight times that with weights), plus one
/// (its own weight); a complete record keeps its n_match. The sums are of whole numbers below
/// 2^53 (or of the weights), so the counts are exact.
pub(crate) fn n_match_rule(
    kd: &KeyData,
    incomplete: IncompletePairs,
    weights: Option<&[f64]>,
) -> NMatch {
    let all = n_match_of(kd, weights);
    if incomplete == IncompletePairs::Match {
        return all;
    }
    let missing: Vec<bool> = (0..kd.n)
        .into_par_iter()
        .map(|i| kd.codes.iter().any(|c| c[i] == MISSING))
        .collect();
    if !missing.contains(&true) {
        return all;
    }
    let complete: Vec<f64> = missing.iter().map(|&m| f64::from(u8::from(!m))).collect();
    let to_complete = n_match_of(kd, Some(&complete))
        .weighted
        .expect("weights given");
    let weighted = weights.map(|w| {
        let wc: Vec<f64> = w.iter().zip(&complete).map(|(a, c)| a * c).collect();
        let to_complete_w = n_match_of(kd, Some(&wc)).weighted.expect("weights given");
        let all_w = all.weighted.as_ref().expect("weights given");
        (0..kd.n)
            .map(|i| {
                if missing[i] {
                    w[i] + to_complete_w[i]
                } else {
                    all_w[i]
                }
            })
            .collect()
    });
    let n_match = (0..kd.n)
        .map(|i| {
            if missing[i] {
                1 + to_complete[i] as u32
            } else {
                all.n_match[i]
            }
        })
        .collect();
    NMatch { n_match, weighted }
}

/// The definition, pair by pair, O(n²·|q|): a reference for tests and benchmarks. Values are
/// compared as text, independently of any encoding.
pub fn n_match_naive(
    table: &Table,
    keys: &[String],
    set_match: SetMatch,
    weights: Option<&[f64]>,
) -> Result<NMatch, RiskError> {
    n_match_naive_with(table, keys, set_match, IncompletePairs::Match, weights)
}

/// [`n_match_naive`] under the rule `incomplete` for two records that both miss a key, pair
/// by pair: the reference [`n_match_with`] is tested against.
pub fn n_match_naive_with(
    table: &Table,
    keys: &[String],
    set_match: SetMatch,
    incomplete: IncompletePairs,
    weights: Option<&[f64]>,
) -> Result<NMatch, RiskError> {
    let cols = keys
        .iter()
        .map(|k| table.column(k))
        .collect::<Result<Vec<_>, _>>()?;
    let n = table.nrows();
    let agree = |j: usize, r: usize| {
        cols.iter().all(|c| {
            if c.is_missing(j) || c.is_missing(r) {
                return true;
            }
            if c.kind() == Kind::Set {
                let (qj, sr) = (c.set_items(j), c.set_items(r));
                match set_match {
                    SetMatch::Overlap => qj.iter().any(|x| sr.contains(x)),
                    SetMatch::First => sr.contains(&qj[0]),
                    SetMatch::FirstBoth => qj.first() == sr.first(),
                }
            } else {
                c.text(j) == c.text(r)
            }
        })
    };
    let incomplete_row = |i: usize| cols.iter().any(|c| c.is_missing(i));
    let both_incomplete = |j: usize, r: usize| {
        incomplete == IncompletePairs::Never && j != r && incomplete_row(j) && incomplete_row(r)
    };
    let mut n_match = vec![0u32; n];
    let mut weighted = weights.map(|_| vec![0.0; n]);
    for j in 0..n {
        for r in 0..n {
            if agree(j, r) && !both_incomplete(j, r) {
                n_match[j] += 1;
                if let (Some(wt), Some(w)) = (weighted.as_mut(), weights) {
                    wt[j] += w[r];
                }
            }
        }
    }
    Ok(NMatch { n_match, weighted })
}

/// sdcMicro's `freqCalc(alpha = α)` counts with missing keys, per record (f_k, and F_k with
/// weights), read from its R source (sdcMicro 5.x `R/freqCalc.r`):
/// - a record with every key missing counts the whole file: f_k = n, F_k = Σ w;
/// - a complete record counts its own class at 1 and each incomplete record that matches it
///   (missing as wildcard) at α — with two or more keys, not the records missing every key
///   (sdcMicro joins on all keys for those and finds no complete match); with one key, those
///   are the only incomplete records and count at α;
/// - an incomplete record counts the records with its exact tuple (same values, same missing
///   keys) at 1, the complete records that match it at 1, and every other incomplete record
///   that matches it at α.
///
/// With α = 1 and no record missing every key this is n_match.
pub(crate) fn freqcalc_alpha(
    kd: &KeyData,
    exact: &crate::classes::Classes,
    weights: Option<&[f64]>,
    alpha: f64,
) -> (Vec<f64>, Option<Vec<f64>>) {
    let n = kd.n;
    let nk = kd.codes.len();
    let missing = |i: usize| kd.codes.iter().filter(|c| c[i] == MISSING).count();
    let nmiss: Vec<usize> = (0..n).map(missing).collect();
    let inc: Vec<f64> = nmiss.iter().map(|&m| f64::from(u8::from(m > 0))).collect();
    let all_na: Vec<f64> = nmiss
        .iter()
        .map(|&m| f64::from(u8::from(m == nk)))
        .collect();
    let ones = vec![1.0; n];
    let w = weights.unwrap_or(&ones);
    let w_inc: Vec<f64> = w.iter().zip(&inc).map(|(a, b)| a * b).collect();
    // Matches in every record's wildcard set: all of them, and the incomplete ones, counted and
    // weighted.
    let all = n_match_of(kd, Some(w));
    let inc_count = n_match_of(kd, Some(&inc)).weighted.expect("weights given");
    let inc_weight = n_match_of(kd, Some(&w_inc))
        .weighted
        .expect("weights given");
    let all_weight = all.weighted.expect("weights given");
    let total_w: f64 = w.iter().sum();
    let na_count: f64 = all_na.iter().sum();
    let na_weight: f64 = w.iter().zip(&all_na).map(|(a, b)| a * b).sum();
    let same_w = exact.weighted_sizes(w);
    let mut fk = vec![0.0; n];
    let mut big = vec![0.0; n];
    for i in 0..n {
        let c = exact.class_of[i] as usize;
        let (f_same, w_same) = (f64::from(exact.sizes[c]), same_w[c]);
        let (m_all, m_inc) = (f64::from(all.n_match[i]), inc_count[i]);
        let (wm_all, wm_inc) = (all_weight[i], inc_weight[i]);
        if nmiss[i] == nk {
            fk[i] = n as f64;
            big[i] = total_w;
        } else if nmiss[i] == 0 {
            let (skip_c, skip_w) = if nk > 1 {
                (na_count, na_weight)
            } else {
                (0.0, 0.0)
            };
            fk[i] = f_same + alpha * (m_inc - skip_c);
            big[i] = w_same + alpha * (wm_inc - skip_w);
        } else {
            fk[i] = f_same + (m_all - m_inc) + alpha * (m_inc - f_same);
            big[i] = w_same + (wm_all - wm_inc) + alpha * (wm_inc - w_same);
        }
    }
    (fk, weights.map(|_| big))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of three always-observed keys (cards 20, 20, 10: 4,000 groups, so several
    /// groups to a bucket) and two keys with missing values (cards 5 and 7), packed. Every
    /// third row falls in one group, large enough for the pattern index; the rest spread.
    fn packed_rows(n: usize) -> PackedRows {
        let card = [20u32, 20, 10, 5, 7];
        let packing = Packing::of_cards(&card).unwrap();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % u64::from(m)) as u32
        };
        let words: Vec<u64> = (0..n)
            .map(|i| {
                let fixed = if i % 3 == 0 {
                    [0, 0, 0]
                } else {
                    [next(20), next(20), next(10)]
                };
                let v = [5u32, 7].map(|c| if next(5) == 0 { MISSING } else { next(c) });
                packing.pack(fixed.into_iter().chain(v))
            })
            .collect();
        let keys = 0..card.len();
        PackedRows {
            any_missing: keys
                .clone()
                .map(|k| words.iter().any(|&w| packing.field(w, k) == 0))
                .collect(),
            any_observed: keys
                .map(|k| words.iter().any(|&w| packing.field(w, k) != 0))
                .collect(),
            words,
            packing,
        }
    }

    /// Whether two packed rows agree by the definition: equal wherever both are observed.
    fn agree(p: &Packing, q: u64, r: u64) -> bool {
        (0..p.nkeys()).all(|k| {
            let (a, b) = (p.field(q, k), p.field(r, k));
            a == 0 || b == 0 || a == b
        })
    }

    /// n_match by its definition: the rows that agree with each.
    fn naive_histogram(rows: &PackedRows) -> Vec<(u32, usize)> {
        let p = &rows.packing;
        let n_match = rows
            .words
            .iter()
            .map(|&q| rows.words.iter().filter(|&&r| agree(p, q, r)).count() as u32);
        crate::sizes::histogram(n_match)
    }

    #[test]
    fn the_histogram_of_n_match_is_the_definitions_on_any_thread_count() {
        let rows = packed_rows(6000);
        assert!(rows.any_missing[3] && rows.any_missing[4] && !rows.any_missing[0]);
        let expect = naive_histogram(&rows);
        // The large group is solved by the pattern index, the others pair by pair.
        assert!(
            expect
                .iter()
                .any(|&(m, _)| m as usize > packed_pairwise_max(2, true)),
            "{expect:?}"
        );
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let got = pool.install(|| n_match_histogram_packed(&rows));
            assert_eq!(got, expect, "{threads} threads");
            let per_record = pool.install(|| n_match_packed(&rows, None));
            assert_eq!(
                crate::sizes::histogram(per_record.n_match.into_iter()),
                expect
            );
        }
        // No rows, and rows of one group only.
        let mut none = packed_rows(0);
        none.any_missing = vec![false; 5];
        assert_eq!(n_match_histogram_packed(&none), vec![]);
        let one: Vec<u64> = rows
            .words
            .iter()
            .copied()
            .filter(|&w| rows.packing.field(w, 0) == 1 && rows.packing.field(w, 1) == 1)
            .collect();
        let one = PackedRows { words: one, ..rows };
        assert_eq!(n_match_histogram_packed(&one), naive_histogram(&one));
    }

    #[test]
    fn groups_whose_code_needs_more_than_32_bits_are_numbered_by_class() {
        // Two always-observed keys of 70,000 values: 4.9e9 possible groups.
        let card = [70_000u32, 70_000, 4];
        let packing = Packing::of_cards(&card).unwrap();
        let words: Vec<u64> = (0..3000u32)
            .map(|i| {
                let v = if i % 5 == 0 { MISSING } else { i % 4 };
                packing.pack([(i % 7) * 9_999, (i % 11) * 6_000, v])
            })
            .collect();
        let rows = PackedRows {
            words,
            packing,
            any_missing: vec![false, false, true],
            any_observed: vec![true; 3],
        };
        let expect = naive_histogram(&rows);
        assert!(expect.len() > 3, "{expect:?}");
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            assert_eq!(pool.install(|| n_match_histogram_packed(&rows)), expect);
        }
    }

    #[test]
    fn packed_rows_match_as_the_tables_keys_with_weights() {
        let rows = packed_rows(5000);
        let p = &rows.packing;
        let names: Vec<String> = (0..5).map(|k| format!("k{k}")).collect();
        let columns = names
            .iter()
            .enumerate()
            .map(|(k, name)| {
                let values: Vec<Option<i64>> = rows
                    .words
                    .iter()
                    .map(|&w| p.field(w, k).checked_sub(1).map(|c| c as i64))
                    .collect();
                intruder_table::Column::integer(name, intruder_table::Role::Key, &values)
            })
            .collect();
        let table = Table::new("packed", columns).unwrap();
        let weights: Vec<f64> = (0..rows.words.len())
            .map(|i| 0.25 + (i * 37 % 101) as f64 / 7.0)
            .collect();
        let expect = n_match(&table, &names, SetMatch::Overlap, Some(&weights)).unwrap();
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            // The same groups in the same order, so the same sums, bit for bit.
            let got = pool.install(|| n_match_packed(&rows, Some(&weights)));
            assert_eq!(got, expect, "{threads} threads");
        }
        // And the definition's, up to the order of summation.
        let naive = n_match_naive(&table, &names, SetMatch::Overlap, Some(&weights)).unwrap();
        assert_eq!(expect.n_match, naive.n_match);
        for (a, b) in expect.weighted.unwrap().iter().zip(naive.weighted.unwrap()) {
            assert!((a - b).abs() <= 1e-12 * b, "{a} {b}");
        }
    }

    #[test]
    fn agreeing_weights_sums_in_four_lanes() {
        let p = Packing::of_cards(&[6, 6, 6]).unwrap();
        for len in [0usize, 1, 3, 4, 5, 15, 16, 17, 41] {
            let words: Vec<u64> = (0..len)
                .map(|i| p.pack([i % 3, i % 4, (i * 7) % 5].map(|x| x as u32)))
                .map(|w| {
                    if len > 2 {
                        w & !(0b111 << (3 * (w % 3)))
                    } else {
                        w
                    }
                })
                .collect();
            let observed: Vec<u64> = words.iter().map(|&w| p.observed(w)).collect();
            let weights: Vec<f64> = (0..len).map(|i| 0.1 * (i as f64 + 1.0) / 3.0).collect();
            let run = |avx2: bool| {
                let mut out = Vec::new();
                agreeing_weights_on(&words, &observed, &weights, &mut out, avx2);
                out
            };
            let out = run(true);
            assert_eq!(run(false), out, "{len} words: the same sums without AVX2");
            let whole = len / 4 * 4;
            let expect: Vec<(u64, f64)> = words
                .iter()
                .map(|&q| {
                    let agree = |r: usize| agree(&p, q, words[r]);
                    let lane = |l: usize| -> f64 {
                        (l..whole)
                            .step_by(4)
                            .filter(|&r| agree(r))
                            .fold(0.0, |s, r| s + weights[r])
                    };
                    let sum = (whole..len)
                        .filter(|&r| agree(r))
                        .fold((lane(0) + lane(1)) + (lane(2) + lane(3)), |s, r| {
                            s + weights[r]
                        });
                    ((0..len).filter(|&r| agree(r)).count() as u64, sum)
                })
                .collect();
            assert_eq!(out, expect, "{len} words");
        }
    }

    #[test]
    fn agreeing_counts_compares_every_pair() {
        // Fields of 3 bits at 0, 3 and 6; a field 0 is missing.
        let p = Packing::of_cards(&[6, 6, 6]).unwrap();
        for len in [0usize, 1, 2, 3, 15, 16, 17, 40] {
            let words: Vec<u64> = (0..len)
                .map(|i| p.pack([i % 3, i % 4, (i * 7) % 5].map(|x| x as u32)))
                .map(|w| {
                    if len > 2 {
                        w & !(0b111 << (3 * (w % 3)))
                    } else {
                        w
                    }
                })
                .collect();
            let observed: Vec<u64> = words.iter().map(|&w| p.observed(w)).collect();
            let run = |avx2: bool| {
                let mut out = vec![(9, 0.5)];
                agreeing_counts_on(&words, &observed, &mut out, avx2);
                out
            };
            let out = run(true);
            assert_eq!(run(false), out, "{len} words: the same counts without AVX2");
            let expect: Vec<(u64, f64)> = std::iter::once((9, 0.5))
                .chain(words.iter().map(|&q| {
                    (
                        words.iter().filter(|&&r| agree(&p, q, r)).count() as u64,
                        0.0,
                    )
                }))
                .collect();
            assert_eq!(out, expect, "{len} words");
        }
    }
}
