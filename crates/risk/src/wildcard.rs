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
use crate::keys::{KeyData, MissingPolicy, SetMatch};

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

pub(crate) fn n_match_of(kd: &KeyData<'_>, weights: Option<&[f64]>) -> NMatch {
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
