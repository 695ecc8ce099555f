//! Mulder's n_match: for record j, the number of records r that agree with j on every key where
//! both are observed (a missing value matches anything; METHODS.md §1.2).
//!
//! The naive count compares every pair, O(n²·|q|). Here records are first collapsed into their
//! distinct key tuples (missing kept as its own value), so the work is on m ≤ n tuples. Tuples
//! are then grouped by missingness pattern. For a query pattern P, a stored tuple t agrees with a
//! query q exactly when they are equal on the keys C = P ∩ pattern(t) observed in both; so one
//! hash table per distinct C, keyed by the projection of the stored tuples on C, answers every
//! query of P. The cost is O(m · patterns) instead of O(n²).
//!
//! Set-valued keys (a cell with several candidate values) are kept as bit masks beside the
//! projection: a stored entry matches when its candidates intersect the query's (or, with
//! [`SetMatch::First`], contain the query's first candidate).

use std::collections::HashMap;

use foldhash::fast::FixedState;
use rayon::prelude::*;

use intruder_data::{Kind, Table};

use crate::classes::{DELETED, classes_of};
use crate::error::RiskError;
use crate::keys::{KeyData, MISSING, MissingPolicy, SetMatch};

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
    let kd = KeyData::new(table, keys, set_match, true)?;
    Ok(n_match_of(&kd, weights))
}

/// Stored entries of one projection key that carry set-valued masks: (masks, count, weight).
type SetEntries = Vec<(Vec<u64>, u64, f64)>;

enum Projector {
    Radix { keys: Vec<usize>, radix: Vec<u64> },
    Dense(Vec<u32>),
}

pub(crate) fn n_match_of(kd: &KeyData, weights: Option<&[f64]>) -> NMatch {
    if kd.sets.iter().all(Option::is_none) {
        scalar_n_match(kd, weights)
    } else {
        set_n_match(kd, weights)
    }
}

/// The scalar-key path. Tuples are grouped by missingness pattern; every query pattern P is one
/// task (its queries are its own, so tasks write disjoint results and run in parallel). For each
/// common key set C = P ∩ Q, the smaller side is put in a hash table keyed by the projection on
/// C: the stored tuples (then each query probes it), or the distinct query projections (then
/// the stored tuples stream past it). Tables on the smaller side stay small and cache-friendly.
fn scalar_n_match(kd: &KeyData, weights: Option<&[f64]>) -> NMatch {
    let nk = kd.codes.len();
    let classes = classes_of(kd, MissingPolicy::AsValue);
    let m = classes.sizes.len();
    let mut rep = vec![u32::MAX; m];
    let mut wsum = vec![0.0f64; m];
    for (i, &c) in classes.class_of.iter().enumerate() {
        if rep[c as usize] == u32::MAX {
            rep[c as usize] = i as u32;
        }
        if let Some(w) = weights {
            wsum[c as usize] += w[i];
        }
    }
    // Tuple codes, column by column, contiguous.
    let tcodes: Vec<Vec<u32>> = kd
        .codes
        .iter()
        .map(|col| rep.par_iter().map(|&r| col[r as usize]).collect())
        .collect();
    let pattern: Vec<u64> = (0..m)
        .into_par_iter()
        .map(|t| {
            (0..nk)
                .filter(|&k| tcodes[k][t] != MISSING)
                .fold(0u64, |p, k| p | 1 << k)
        })
        .collect();
    let mut members: std::collections::BTreeMap<u64, Vec<u32>> = Default::default();
    for (t, &p) in pattern.iter().enumerate() {
        members.entry(p).or_default().push(t as u32);
    }
    let patterns: Vec<u64> = members.keys().copied().collect();
    let sizes = &classes.sizes;
    let ctx = Ctx { sizes, wsum: &wsum };

    let per_pattern: Vec<(Vec<u64>, Vec<f64>)> = patterns
        .par_iter()
        .map(|&p| {
            let queries = &members[&p];
            let mut cnt = vec![0u64; queries.len()];
            let mut wc = vec![0.0f64; queries.len()];
            let mut by_c: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
            for &q in &patterns {
                by_c.entry(p & q).or_default().push(q);
            }
            for (c, qs) in by_c {
                let stored: Vec<&[u32]> = qs.iter().map(|q| members[q].as_slice()).collect();
                if c == p && qs == [p] {
                    // Only the queries' own pattern agrees on all of P: the tuples are distinct,
                    // so each matches itself alone.
                    for (j, &q) in queries.iter().enumerate() {
                        cnt[j] += sizes[q as usize] as u64;
                        wc[j] += wsum[q as usize];
                    }
                    continue;
                }
                let keys: Vec<usize> = (0..nk).filter(|&k| c >> k & 1 == 1).collect();
                let radix: Vec<u64> = keys.iter().map(|&k| kd.card[k].max(1) as u64).collect();
                let fits64 = radix
                    .iter()
                    .try_fold(1u64, |a, &r| a.checked_mul(r))
                    .is_some();
                let fits128 = radix
                    .iter()
                    .try_fold(1u128, |a, &r| a.checked_mul(r as u128))
                    .is_some();
                if fits64 {
                    let proj = |t: u32| {
                        keys.iter()
                            .zip(&radix)
                            .fold(0u64, |a, (&k, &r)| a * r + tcodes[k][t as usize] as u64)
                    };
                    ctx.match_c(proj, &stored, queries, &mut cnt, &mut wc);
                } else if fits128 {
                    let proj = |t: u32| {
                        keys.iter().zip(&radix).fold(0u128, |a, (&k, &r)| {
                            a * r as u128 + tcodes[k][t as usize] as u128
                        })
                    };
                    ctx.match_c(proj, &stored, queries, &mut cnt, &mut wc);
                } else {
                    let proj = |t: u32| {
                        keys.iter()
                            .map(|&k| tcodes[k][t as usize])
                            .collect::<Box<[u32]>>()
                    };
                    ctx.match_c(proj, &stored, queries, &mut cnt, &mut wc);
                }
            }
            (cnt, wc)
        })
        .collect();
    let mut count = vec![0u64; m];
    let mut wcount = vec![0.0f64; m];
    for (p, (cnt, wc)) in patterns.iter().zip(per_pattern) {
        for ((&q, c), w) in members[p].iter().zip(cnt).zip(wc) {
            count[q as usize] = c;
            wcount[q as usize] = w;
        }
    }
    let n_match = classes
        .class_of
        .par_iter()
        .map(|&c| count[c as usize].min(u32::MAX as u64) as u32)
        .collect();
    let weighted = weights.map(|_| {
        classes
            .class_of
            .par_iter()
            .map(|&c| wcount[c as usize])
            .collect()
    });
    NMatch { n_match, weighted }
}

/// What [`Ctx::match_c`] reads about the distinct tuples.
struct Ctx<'a> {
    sizes: &'a [u32],
    wsum: &'a [f64],
}

impl Ctx<'_> {
    /// Adds to each query's count the stored tuples whose projection equals its own.
    fn match_c<K: std::hash::Hash + Eq>(
        &self,
        proj: impl Fn(u32) -> K,
        stored: &[&[u32]],
        queries: &[u32],
        cnt: &mut [u64],
        wc: &mut [f64],
    ) {
        let n_stored: usize = stored.iter().map(|s| s.len()).sum();
        if n_stored <= queries.len() {
            let mut table: HashMap<K, (u64, f64), FixedState> =
                HashMap::with_capacity_and_hasher(n_stored, FixedState::default());
            for &t in stored.iter().flat_map(|s| s.iter()) {
                let e = table.entry(proj(t)).or_insert((0, 0.0));
                e.0 += self.sizes[t as usize] as u64;
                e.1 += self.wsum[t as usize];
            }
            for (j, &q) in queries.iter().enumerate() {
                if let Some(&(a, b)) = table.get(&proj(q)) {
                    cnt[j] += a;
                    wc[j] += b;
                }
            }
        } else {
            let mut index: HashMap<K, u32, FixedState> =
                HashMap::with_capacity_and_hasher(queries.len(), FixedState::default());
            let slots: Vec<u32> = queries
                .iter()
                .map(|&q| {
                    let next = index.len() as u32;
                    *index.entry(proj(q)).or_insert(next)
                })
                .collect();
            let mut acc = vec![(0u64, 0.0f64); index.len()];
            for &t in stored.iter().flat_map(|s| s.iter()) {
                if let Some(&s) = index.get(&proj(t)) {
                    acc[s as usize].0 += self.sizes[t as usize] as u64;
                    acc[s as usize].1 += self.wsum[t as usize];
                }
            }
            for (j, &s) in slots.iter().enumerate() {
                cnt[j] += acc[s as usize].0;
                wc[j] += acc[s as usize].1;
            }
        }
    }
}

/// The path for set-valued keys: hash tables of projections with candidate masks beside them.
fn set_n_match(kd: &KeyData, weights: Option<&[f64]>) -> NMatch {
    let nk = kd.codes.len();
    // 1. Distinct tuples (missing as its own value).
    let classes = classes_of(kd, MissingPolicy::AsValue);
    let m = classes.sizes.len();
    let mut rep = vec![u32::MAX; m];
    let mut wsum = vec![0.0f64; m];
    for (i, &c) in classes.class_of.iter().enumerate() {
        debug_assert_ne!(c, DELETED);
        if rep[c as usize] == u32::MAX {
            rep[c as usize] = i as u32;
        }
        if let Some(w) = weights {
            wsum[c as usize] += w[i];
        }
    }
    let pattern: Vec<u64> = rep.iter().map(|&r| kd.pattern(r as usize)).collect();
    let set_keys: u64 = (0..nk)
        .filter(|&k| kd.sets[k].is_some())
        .fold(0, |m, k| m | (1 << k));

    // 2. Distinct patterns, and the tuples of each.
    let mut patterns: Vec<u64> = pattern.clone();
    patterns.sort_unstable();
    patterns.dedup();
    let mut members: HashMap<u64, Vec<u32>, FixedState> = HashMap::default();
    for (t, &p) in pattern.iter().enumerate() {
        members.entry(p).or_default().push(t as u32);
    }

    // 3. Projectors for every C = P ∩ Q that occurs.
    let mut cs: Vec<u64> = patterns
        .iter()
        .flat_map(|&p| patterns.iter().map(move |&q| p & q))
        .collect();
    cs.sort_unstable();
    cs.dedup();
    let projectors: HashMap<u64, Projector, FixedState> = cs
        .par_iter()
        .map(|&c| {
            let keys: Vec<usize> = (0..nk)
                .filter(|&k| c >> k & 1 == 1 && set_keys >> k & 1 == 0)
                .collect();
            let radix: Vec<u64> = keys.iter().map(|&k| kd.card[k].max(1) as u64).collect();
            let fits = radix
                .iter()
                .try_fold(1u64, |p, &r| p.checked_mul(r))
                .is_some();
            let proj = if fits {
                Projector::Radix { keys, radix }
            } else {
                // Exact key-by-key re-coding over the tuples observed on C.
                let mut ids = vec![0u64; m];
                for (&k, &r) in keys.iter().zip(&radix) {
                    let mut map: HashMap<u64, u32, FixedState> = HashMap::default();
                    for t in 0..m {
                        if pattern[t] & c == c {
                            let v = ids[t] * r + kd.codes[k][rep[t] as usize] as u64;
                            let next = map.len() as u32;
                            ids[t] = *map.entry(v).or_insert(next) as u64;
                        }
                    }
                }
                Projector::Dense(ids.into_iter().map(|x| x as u32).collect())
            };
            (c, proj)
        })
        .collect();
    let project = |c: u64, t: usize| -> u64 {
        match &projectors[&c] {
            Projector::Radix { keys, radix } => {
                let row = rep[t] as usize;
                keys.iter()
                    .zip(radix)
                    .fold(0u64, |acc, (&k, &r)| acc * r + kd.codes[k][row] as u64)
            }
            Projector::Dense(ids) => ids[t] as u64,
        }
    };
    let masks = |c: u64, t: usize, query: bool| -> Vec<u64> {
        let row = rep[t] as usize;
        (0..nk)
            .filter(|&k| c >> k & 1 == 1 && set_keys >> k & 1 == 1)
            .map(|k| {
                let s = kd.sets[k].as_ref().expect("set key has masks");
                if query { s.query[row] } else { s.stored[row] }
            })
            .collect()
    };

    // 4. For each query pattern P: build the tables, answer its tuples.
    let results: Vec<Vec<(u32, u64, f64)>> = patterns
        .par_iter()
        .map(|&p| {
            let mut scalar: HashMap<(u64, u64), (u64, f64), FixedState> = HashMap::default();
            let mut with_sets: HashMap<(u64, u64), SetEntries, FixedState> = HashMap::default();
            let mut c_list: Vec<u64> = Vec::new();
            for t in 0..m {
                let c = pattern[t] & p;
                if !c_list.contains(&c) {
                    c_list.push(c);
                }
                let key = (c, project(c, t));
                let (cnt, w) = (classes.sizes[t] as u64, wsum[t]);
                if c & set_keys == 0 {
                    let e = scalar.entry(key).or_insert((0, 0.0));
                    e.0 += cnt;
                    e.1 += w;
                } else {
                    let ms = masks(c, t, false);
                    let list = with_sets.entry(key).or_default();
                    match list.iter_mut().find(|(m2, _, _)| *m2 == ms) {
                        Some(e) => {
                            e.1 += cnt;
                            e.2 += w;
                        }
                        None => list.push((ms, cnt, w)),
                    }
                }
            }
            members[&p]
                .iter()
                .map(|&q| {
                    let q = q as usize;
                    let (mut cnt, mut w) = (0u64, 0.0f64);
                    for &c in &c_list {
                        let key = (c, project(c, q));
                        if c & set_keys == 0 {
                            if let Some(&(a, b)) = scalar.get(&key) {
                                cnt += a;
                                w += b;
                            }
                        } else if let Some(list) = with_sets.get(&key) {
                            let qm = masks(c, q, true);
                            for (sm, a, b) in list {
                                if sm.iter().zip(&qm).all(|(s, q)| s & q != 0) {
                                    cnt += a;
                                    w += b;
                                }
                            }
                        }
                    }
                    (q as u32, cnt, w)
                })
                .collect()
        })
        .collect();
    let mut per_tuple = vec![(0u32, 0.0f64); m];
    for (t, cnt, w) in results.into_iter().flatten() {
        per_tuple[t as usize] = (cnt.min(u32::MAX as u64) as u32, w);
    }
    let n_match = classes
        .class_of
        .iter()
        .map(|&c| per_tuple[c as usize].0)
        .collect();
    let weighted = weights.map(|_| {
        classes
            .class_of
            .iter()
            .map(|&c| per_tuple[c as usize].1)
            .collect()
    });
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
                let query = match set_match {
                    SetMatch::Overlap => qj,
                    SetMatch::First => &qj[..1],
                };
                query.iter().any(|x| sr.contains(x))
            } else {
                c.text(j) == c.text(r)
            }
        })
    };
    let mut n_match = vec![0u32; n];
    let mut weighted = weights.map(|_| vec![0.0; n]);
    for j in 0..n {
        for r in 0..n {
            if agree(j, r) {
                n_match[j] += 1;
                if let (Some(wt), Some(w)) = (weighted.as_mut(), weights) {
                    wt[j] += w[r];
                }
            }
        }
    }
    Ok(NMatch { n_match, weighted })
}
