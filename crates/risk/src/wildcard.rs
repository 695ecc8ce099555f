//! Mulder's n_match: for record j, the number of records r that agree with j on every key where
//! both are observed (a missing value matches anything; METHODS.md §1.2).
//!
//! The naive count compares every pair, O(n²·|q|). Here, with scalar keys:
//! 1. Keys that are never missing in the file (F) must agree for any match, so records are
//!    grouped by their F values with the fast class counter; groups are independent.
//! 2. A small group (≤ 48 records) is solved pair by pair on a gathered buffer of its other keys.
//! 3. A larger group collapses to its distinct tuples on the other keys (missing kept as its own
//!    value), grouped by missingness pattern. For a query pattern P, a stored tuple t agrees with
//!    a query q exactly when they are equal on the keys C = P ∩ pattern(t) observed in both; so
//!    one hash table per distinct C, keyed by the projection on C, answers every query of P (the
//!    smaller side is the one hashed). The cost is O(m · patterns) for the group's m tuples.
//!
//! With skewed keys most groups are tiny and every table stays in cache; with no key always
//! observed there is one group and step 3 runs on the whole file.
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

/// The scalar-key path.
///
/// Keys never missing in the file (F) must agree for any match, so records are first grouped by
/// their F values (the fast class counter) and each group is solved on its own with the keys
/// that can be missing (V): small groups pair by pair; larger ones are collapsed to their
/// distinct V tuples and solved by missingness pattern. With skewed keys most groups are tiny,
/// so every table stays in cache; with no key always observed there is one group.
fn scalar_n_match(kd: &KeyData, weights: Option<&[f64]>) -> NMatch {
    let nk = kd.codes.len();
    let n = kd.n;
    let (fkeys, vkeys): (Vec<usize>, Vec<usize>) =
        (0..nk).partition(|&k| !kd.codes[k].contains(&MISSING));
    let (gid, ngroups) = crate::classes::group_rows(kd, &fkeys);
    if vkeys.is_empty() {
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
    // Records in group order (a counting sort, stable in row order).
    let mut start = vec![0usize; ngroups + 1];
    for &g in &gid {
        start[g as usize + 1] += 1;
    }
    for g in 0..ngroups {
        start[g + 1] += start[g];
    }
    let mut order = vec![0u32; n];
    let mut fill = start.clone();
    for (i, &g) in gid.iter().enumerate() {
        order[fill[g as usize]] = i as u32;
        fill[g as usize] += 1;
    }
    drop(fill);
    drop(gid);

    // Solve the groups in batches of contiguous groups; results line up with `order`.
    let batch = (n / 256).max(4096);
    let mut bounds = vec![0usize];
    for g in 1..=ngroups {
        if start[g] - start[bounds.last().copied().unwrap_or(0)] >= batch || g == ngroups {
            bounds.push(g);
        }
    }
    let solver = RowSolver {
        codes: &kd.codes,
        card: &kd.card,
        weights,
        vkeys: &vkeys,
    };
    let results: Vec<Vec<(u64, f64)>> = bounds
        .par_windows(2)
        .map(|w| {
            let mut out = Vec::with_capacity(start[w[1]] - start[w[0]]);
            for g in w[0]..w[1] {
                out.extend(solver.solve(&order[start[g]..start[g + 1]]));
            }
            out
        })
        .collect();
    let mut n_match = vec![0u32; n];
    let mut weighted = weights.map(|_| vec![0.0f64; n]);
    for (&row, (c, w)) in order.iter().zip(results.into_iter().flatten()) {
        n_match[row as usize] = c.min(u32::MAX as u64) as u32;
        if let Some(wt) = weighted.as_mut() {
            wt[row as usize] = w;
        }
    }
    NMatch { n_match, weighted }
}

/// Groups up to this size are solved pair by pair.
const PAIRWISE_MAX: usize = 48;

/// Solves one group of records that agree on every always-observed key.
struct RowSolver<'a> {
    codes: &'a [Vec<u32>],
    card: &'a [u32],
    weights: Option<&'a [f64]>,
    vkeys: &'a [usize],
}

impl RowSolver<'_> {
    /// n_match (count, weight) of each record of `rows`, in that order.
    fn solve(&self, rows: &[u32]) -> Vec<(u64, f64)> {
        let c = self.codes;
        let nv = self.vkeys.len();
        let w = |r: u32| self.weights.map_or(0.0, |w| w[r as usize]);
        if rows.len() <= PAIRWISE_MAX {
            // Gather the group's V codes once (row-major), then compare pairs in cache.
            let local: Vec<u32> = rows
                .iter()
                .flat_map(|&r| self.vkeys.iter().map(move |&k| c[k][r as usize]))
                .collect();
            let lw: Vec<f64> = rows.iter().map(|&r| w(r)).collect();
            return local
                .chunks_exact(nv)
                .map(|q| {
                    let (mut cnt, mut wt) = (0u64, 0.0f64);
                    for (r, &wr) in local.chunks_exact(nv).zip(&lw) {
                        if q.iter()
                            .zip(r)
                            .all(|(&a, &b)| a == MISSING || b == MISSING || a == b)
                        {
                            cnt += 1;
                            wt += wr;
                        }
                    }
                    (cnt, wt)
                })
                .collect();
        }
        // Collapse to distinct V tuples (missing as its own value).
        let mut index: HashMap<Box<[u32]>, u32, FixedState> = HashMap::default();
        let mut tuple_of = Vec::with_capacity(rows.len());
        let mut tcodes: Vec<Vec<u32>> = vec![Vec::new(); nv];
        let mut sizes: Vec<u32> = Vec::new();
        let mut wsum: Vec<f64> = Vec::new();
        for &r in rows {
            let key: Box<[u32]> = self.vkeys.iter().map(|&k| c[k][r as usize]).collect();
            let next = index.len() as u32;
            let t = *index.entry(key).or_insert_with(|| {
                for (j, &k) in self.vkeys.iter().enumerate() {
                    tcodes[j].push(c[k][r as usize]);
                }
                sizes.push(0);
                wsum.push(0.0);
                next
            });
            sizes[t as usize] += 1;
            wsum[t as usize] += w(r);
            tuple_of.push(t);
        }
        let card: Vec<u32> = self.vkeys.iter().map(|&k| self.card[k]).collect();
        let ctx = Ctx {
            sizes: &sizes,
            wsum: &wsum,
            tcodes: &tcodes,
            card: &card,
        };
        let per_tuple = ctx.solve_tuples();
        tuple_of.iter().map(|&t| per_tuple[t as usize]).collect()
    }
}

/// Distinct tuples of one group: their codes on the V keys (local indices), sizes and weights.
struct Ctx<'a> {
    sizes: &'a [u32],
    wsum: &'a [f64],
    tcodes: &'a [Vec<u32>],
    card: &'a [u32],
}

impl Ctx<'_> {
    /// Mixed-radix code of tuple `t` on local `keys`; exact when the product of their category
    /// counts fits in 64 bits (the caller checks).
    fn radix(&self, keys: &[usize], t: u32) -> u64 {
        keys.iter().fold(0u64, |a, &k| {
            a.wrapping_mul(self.card[k].max(1) as u64)
                .wrapping_add(self.tcodes[k][t as usize] as u64)
        })
    }

    /// n_match (count, weight) of every tuple, by missingness pattern: for a query pattern P
    /// and each C = P ∩ Q over stored patterns Q, the smaller side is hashed on the projection.
    fn solve_tuples(&self) -> Vec<(u64, f64)> {
        let tc = self.tcodes;
        let nv = tc.len();
        let m = self.sizes.len();
        let mut members: std::collections::BTreeMap<u64, Vec<u32>> = Default::default();
        for t in 0..m as u32 {
            let p = (0..nv)
                .filter(|&j| tc[j][t as usize] != MISSING)
                .fold(0u64, |p, j| p | 1 << j);
            members.entry(p).or_default().push(t);
        }
        let patterns: Vec<u64> = members.keys().copied().collect();
        let mut out = vec![(0u64, 0.0f64); m];
        for &p in &patterns {
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
                    // Only the queries' own pattern agrees on all of P: tuples are distinct, so
                    // each matches itself alone.
                    for (j, &q) in queries.iter().enumerate() {
                        cnt[j] += self.sizes[q as usize] as u64;
                        wc[j] += self.wsum[q as usize];
                    }
                    continue;
                }
                let keys: Vec<usize> = (0..nv).filter(|&j| c >> j & 1 == 1).collect();
                let radix: Vec<u64> = keys.iter().map(|&k| self.card[k].max(1) as u64).collect();
                let fits64 = radix
                    .iter()
                    .try_fold(1u64, |a, &r| a.checked_mul(r))
                    .is_some();
                let fits128 = radix
                    .iter()
                    .try_fold(1u128, |a, &r| a.checked_mul(r as u128))
                    .is_some();
                if fits64 {
                    let proj = |t: u32| self.radix(&keys, t);
                    self.match_c(proj, &stored, queries, &mut cnt, &mut wc);
                } else if fits128 {
                    let proj = |t: u32| {
                        keys.iter().zip(&radix).fold(0u128, |a, (&k, &r)| {
                            a * r as u128 + tc[k][t as usize] as u128
                        })
                    };
                    self.match_c(proj, &stored, queries, &mut cnt, &mut wc);
                } else {
                    let proj = |t: u32| {
                        keys.iter()
                            .map(|&k| tc[k][t as usize])
                            .collect::<Box<[u32]>>()
                    };
                    self.match_c(proj, &stored, queries, &mut cnt, &mut wc);
                }
            }
            for ((&q, c), w) in queries.iter().zip(cnt).zip(wc) {
                out[q as usize] = (c, w);
            }
        }
        out
    }

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
