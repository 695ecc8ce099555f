//! The u probabilities: P(level | non-match), from two random records of the two files.
//!
//! Per comparison, the cheaper of two exact-or-sampled routes:
//! - **From the values' frequencies** (exact): the level counts over *every* intruder ×
//!   released record pair, `Σ_x Σ_y n_I(x) n_R(y) [level(x, y) = l]` over the distinct values
//!   of each file ([`Kernel::exact_level_counts`]). An exact-only comparison costs one pass
//!   over its values; a comparison with fuzzy levels costs one comparison per distinct value
//!   pair, taken when that is at most the `u_sample` pairs a sample would compare (small
//!   domains). Nothing is drawn: no sampling error.
//! - **From random pairs** (sampled, Splink's `estimate_u_using_random_sampling`): `u_sample`
//!   pairs drawn with a seeded generator, in chunks, compared in parallel — only the
//!   comparisons that could not be counted exactly. When `u_sample` reaches the number of
//!   possible pairs, every pair is compared once instead ([`UPlan`]).
//!
//! Either way a level never seen gets a count of 1 (its weight would be infinite), and the
//! free levels share what the specification's fixed u leave.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::UPlan;
use super::compare::Prepared;
use super::em::{self, Layout, Table2};
use super::kernel::Kernel;

/// Random pairs drawn and compared at a time.
const U_CHUNK: usize = 1 << 20;

/// The u probabilities and how each comparison's were found.
pub(crate) struct UEstimate {
    /// u per comparison and level (null levels 1).
    pub u: Table2,
    /// Per comparison: counted from the values' frequencies over every pair (true) or from the
    /// random pairs (false).
    pub from_frequencies: Vec<bool>,
    /// Pairs compared at random (0 when every comparison was counted exactly).
    pub sampled_pairs: usize,
}

/// The pairs of the u estimate, chunk by chunk, to `each`: every pair once (row-major) when
/// the plan says so, else the plan's pairs drawn with a generator seeded by `seed` — the same
/// pairs whoever compares them (the local kernel, or an engine joining them to its records).
pub fn for_each_u_pair<E>(
    plan: UPlan,
    (ni, nr): (usize, usize),
    seed: u64,
    mut each: impl FnMut(&[(u32, u32)]) -> Result<(), E>,
) -> Result<(), E> {
    let mut sample: Vec<(u32, u32)> = Vec::with_capacity(plan.pairs.min(U_CHUNK));
    if plan.every_pair {
        let mut next = 0usize;
        while next < plan.pairs {
            let n = (plan.pairs - next).min(U_CHUNK);
            sample.clear();
            sample.extend((next..next + n).map(|p| ((p / nr) as u32, (p % nr) as u32)));
            each(&sample)?;
            next += n;
        }
    } else {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut left = plan.pairs;
        while left > 0 {
            let n = left.min(U_CHUNK);
            sample.clear();
            sample
                .extend((0..n).map(|_| (rng.gen_range(0..ni as u32), rng.gen_range(0..nr as u32))));
            each(&sample)?;
            left -= n;
        }
    }
    Ok(())
}

/// Adds level counts `c` into `acc` (empty: taken as they are).
pub(crate) fn add_counts(acc: &mut Vec<Vec<u64>>, c: Vec<Vec<u64>>) {
    if acc.is_empty() {
        *acc = c;
    } else {
        for (a, c) in acc.iter_mut().zip(c) {
            for (x, y) in a.iter_mut().zip(c) {
                *x += y;
            }
        }
    }
}

/// Level counts of the comparisons not counted exactly, over the plan's random pairs (or every
/// pair).
fn sampled_counts(kernel: &Kernel, plan: UPlan, wanted: &[bool], seed: u64) -> Vec<Vec<u64>> {
    let mut counts: Vec<Vec<u64>> = Vec::new();
    let done: Result<(), std::convert::Infallible> =
        for_each_u_pair(plan, (kernel.ni(), kernel.nr()), seed, |sample| {
            add_counts(&mut counts, kernel.level_counts(sample, wanted));
            Ok(())
        });
    let Ok(()) = done;
    counts
}

/// u of one comparison from its level counts: the free non-null levels share what the fixed
/// u leave, in proportion to their counts (at least 1 each), kept off 0 and 1.
fn u_of_counts(p: &Prepared, null: Option<usize>, counts: &[u64]) -> Vec<f64> {
    let fixed: Vec<Option<f64>> = p.spec.levels.iter().map(|l| l.u).collect();
    let fixed_sum: f64 = fixed.iter().flatten().sum();
    let levels = counts.len();
    let free: Vec<usize> = (0..levels)
        .filter(|&l| Some(l) != null && fixed[l].is_none())
        .collect();
    let cnt = |l: usize| (counts[l] as f64).max(1.0);
    let tot: f64 = free.iter().map(|&l| cnt(l)).sum();
    (0..levels)
        .map(|l| {
            if Some(l) == null {
                1.0
            } else if let Some(v) = fixed[l] {
                v
            } else {
                em::clamp_probability((1.0 - fixed_sum) * cnt(l) / tot)
            }
        })
        .collect()
}

/// Estimates u for every comparison; see the [module docs](self).
pub(crate) fn estimate_u(
    kernel: &Kernel,
    prepared: &[Prepared],
    layout: &Layout,
    plan: UPlan,
    seed: u64,
) -> UEstimate {
    let budget = plan.pairs as u64;
    let exact: Vec<Option<Vec<u64>>> = (0..prepared.len())
        .map(|c| kernel.exact_level_counts(c, budget))
        .collect();
    let got: Result<UEstimate, std::convert::Infallible> =
        u_of(prepared, layout, plan, exact, |wanted| {
            Ok(sampled_counts(kernel, plan, wanted, seed))
        });
    let Ok(u) = got;
    u
}

/// u from the level counts over every pair of the comparisons counted exactly (`exact[c]`),
/// and `sampled(wanted)`'s counts over the plan's pairs for the others.
pub(crate) fn u_of<E>(
    prepared: &[Prepared],
    layout: &Layout,
    plan: UPlan,
    exact: Vec<Option<Vec<u64>>>,
    sampled: impl FnOnce(&[bool]) -> Result<Vec<Vec<u64>>, E>,
) -> Result<UEstimate, E> {
    let k = prepared.len();
    let wanted: Vec<bool> = exact.iter().map(Option::is_none).collect();
    let sampled = if wanted.iter().any(|&w| w) {
        sampled(&wanted)?
    } else {
        Vec::new()
    };
    let u = (0..k)
        .map(|c| {
            let counts = exact[c].as_ref().unwrap_or_else(|| &sampled[c]);
            u_of_counts(&prepared[c], layout.null[c], counts)
        })
        .collect();
    Ok(UEstimate {
        u,
        from_frequencies: exact.iter().map(Option::is_some).collect(),
        sampled_pairs: if sampled.is_empty() { 0 } else { plan.pairs },
    })
}
