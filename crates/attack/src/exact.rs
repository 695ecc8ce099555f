//! Exact key matching (Mitra et al. §3.1; Dalenius 1986; Mulder's n_match for missing values).
//!
//! The candidates of intruder record `i` are the released records equal to `i` on every key:
//! `M_i`, with `c_i = |M_i|` (METHODS.md §2.1). Missing keys follow a [`MissingPolicy`]:
//! listwise (an intruder record missing a key has no candidates, a released record missing a key
//! is never a candidate), as-value (missing equals missing only) or wildcard (missing matches
//! anything, on either side). A set-valued cell matches a scalar that is one of its candidates
//! and a set it intersects ("any overlap").
//!
//! # Cost
//! No O(n·m) scan: released records are grouped by their pattern of observed keys `Q`; for an
//! intruder pattern `P` the records of `Q` that match agree with the query on the keys observed in
//! both, `S = P ∩ Q`, so one hash table per `(Q, S)` answers every query of pattern `P`
//! (METHODS.md §1.2). Without missing values that is one hash table over the full key tuple.
//! Set-valued cells are expanded into every tuple they stand for, on both sides.

use std::collections::HashMap;

use foldhash::fast::FixedState;
use intruder_data::Table;
use intruder_data::params::{ParamReader, ParamSpec};
use rayon::prelude::*;

use crate::config::{MISSING, MissingPolicy, THRESHOLD};
use crate::error::AttackError;
use crate::keys::{KeyMap, Tokens, resolve, tokenize};
use crate::linkage::{Candidates, Linkage};
use crate::{Attack, Knowledge, Linked};

/// The token standing for a missing cell under the as-value policy.
const MISSING_TOKEN: u64 = u64::MAX - 1;

type Index = HashMap<Vec<u64>, Vec<u32>, FixedState>;

/// Exact key matching; see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
pub struct ExactMatch {
    /// Missing-value policy.
    pub missing: MissingPolicy,
    /// Links are declared at a best score ≥ this (every candidate scores 1: a threshold above 1
    /// declares none); `None` declares every record's best candidate.
    pub threshold: Option<f64>,
}

/// The parameters of `exact` in the registry.
pub(crate) static PARAMS: &[ParamSpec] = &[MISSING, THRESHOLD];

impl ExactMatch {
    /// The attack with a missing-value policy (no threshold).
    pub fn new(missing: MissingPolicy) -> Self {
        ExactMatch {
            missing,
            threshold: None,
        }
    }

    /// Reads the parameters declared in [`PARAMS`].
    pub(crate) fn build(r: &mut ParamReader<'_>) -> Option<Box<dyn Attack>> {
        let missing = r.choice::<MissingPolicy>("missing").unwrap_or_default();
        let threshold = r.get::<f64>("threshold");
        r.ok()
            .then(|| Box::new(ExactMatch { missing, threshold }) as Box<dyn Attack>)
    }

    /// Links the key columns of `intruder` (any table holding them) to `released`.
    pub(crate) fn link_tables(
        &self,
        intruder: &Table,
        released: &Table,
        keys: &KeyMap,
    ) -> Result<Linkage, AttackError> {
        let resolved = resolve(intruder, released, keys)?;
        let toks: Vec<(Tokens, Tokens)> = resolved.iter().map(tokenize).collect();
        let it: Vec<&Tokens> = toks.iter().map(|t| &t.0).collect();
        let rt: Vec<&Tokens> = toks.iter().map(|t| &t.1).collect();
        let (ni, nr) = (intruder.nrows(), released.nrows());
        let is = side(&it, ni, self.missing);
        let rs = side(&rt, nr, self.missing);
        // Released records by pattern (in row order).
        let mut groups: HashMap<u64, Vec<u32>, FixedState> = HashMap::default();
        for r in 0..nr {
            if rs.active[r] {
                groups.entry(rs.pattern[r]).or_default().push(r as u32);
            }
        }
        let mut qs: Vec<u64> = groups.keys().copied().collect();
        qs.sort_unstable();
        let mut ps: Vec<u64> = (0..ni)
            .filter(|&i| is.active[i])
            .map(|i| is.pattern[i])
            .collect();
        ps.sort_unstable();
        ps.dedup();
        let mut needed: Vec<(u64, u64)> = ps
            .iter()
            .flat_map(|&p| qs.iter().map(move |&q| (q, p & q)))
            .collect();
        needed.sort_unstable();
        needed.dedup();
        let built: Vec<((u64, u64), Index)> = needed
            .par_iter()
            .map(|&(q, s)| {
                let mut index = Index::default();
                let mut buf = Vec::new();
                for &r in &groups[&q] {
                    expand(&cells(&rt, r as usize, s), &mut buf);
                    for t in buf.drain(..) {
                        index.entry(t).or_default().push(r);
                    }
                }
                ((q, s), index)
            })
            .collect();
        let indices: HashMap<(u64, u64), Index, FixedState> = built.into_iter().collect();

        let records: Vec<Candidates> = (0..ni)
            .into_par_iter()
            .map(|i| {
                if !is.active[i] {
                    return Candidates::default();
                }
                let p = is.pattern[i];
                let mut rows: Vec<usize> = Vec::new();
                let mut buf = Vec::new();
                for &q in &qs {
                    let s = p & q;
                    let index = &indices[&(q, s)];
                    expand(&cells(&it, i, s), &mut buf);
                    for t in &buf {
                        if let Some(hits) = index.get(t) {
                            rows.extend(hits.iter().map(|&r| r as usize));
                        }
                    }
                }
                Candidates::set(rows)
            })
            .collect();
        Ok(Linkage {
            method: "exact".into(),
            scored: false,
            complete: true,
            released_rows: nr,
            records,
            notes: Vec::new(),
        })
    }
}

/// Every tuple a record stands for on the keys in `mask` (sets expanded).
fn expand(cells: &[&[u64]], out: &mut Vec<Vec<u64>>) {
    out.clear();
    out.push(Vec::with_capacity(cells.len()));
    for cell in cells {
        if cell.len() == 1 {
            for t in out.iter_mut() {
                t.push(cell[0]);
            }
        } else {
            let prev = std::mem::take(out);
            for t in prev {
                for &v in *cell {
                    let mut t2 = t.clone();
                    t2.push(v);
                    out.push(t2);
                }
            }
        }
    }
}

/// Per-record key cells with the policy applied: `None` where the record takes no part.
struct Side {
    /// Bit k set = key k observed (or missing-as-value).
    pattern: Vec<u64>,
    /// Whether the record takes part at all.
    active: Vec<bool>,
}

fn side(tokens: &[&Tokens], n: usize, policy: MissingPolicy) -> Side {
    let mut pattern = vec![0u64; n];
    let mut active = vec![true; n];
    let full: u64 = if tokens.len() == 64 {
        u64::MAX
    } else {
        (1u64 << tokens.len()) - 1
    };
    for i in 0..n {
        let mut p = 0u64;
        for (k, t) in tokens.iter().enumerate() {
            if !t.row(i).is_empty() {
                p |= 1 << k;
            }
        }
        match policy {
            MissingPolicy::Listwise => active[i] = p == full,
            MissingPolicy::AsValue => p = full,
            MissingPolicy::Wildcard => {}
        }
        pattern[i] = p;
    }
    Side { pattern, active }
}

fn cells<'t>(tokens: &'t [&Tokens], i: usize, mask: u64) -> Vec<&'t [u64]> {
    const MISSING_CELL: &[u64] = &[MISSING_TOKEN];
    tokens
        .iter()
        .enumerate()
        .filter(|(k, _)| mask >> k & 1 == 1)
        .map(|(_, t)| {
            let r = t.row(i);
            if r.is_empty() { MISSING_CELL } else { r }
        })
        .collect()
}

impl Attack for ExactMatch {
    fn name(&self) -> &'static str {
        "exact"
    }

    fn link(
        &self,
        knowledge: &Knowledge,
        released: &Table,
        _seed: u64,
    ) -> Result<Linked, AttackError> {
        let linkage = self.link_tables(knowledge.table(), released, knowledge.keys())?;
        Ok(Linked::from(linkage))
    }

    fn declared_threshold(&self) -> Option<f64> {
        self.threshold
    }

    fn params(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut m = serde_json::Map::new();
        m.insert("missing".into(), self.missing.as_str().into());
        m.insert("threshold".into(), self.threshold.into());
        m
    }
}

/// The O(n·m) definition, for tests: `j` matches `i` when on every key the cells agree under
/// the policy (sets by overlap).
#[doc(hidden)]
pub fn naive_exact(
    intruder: &Table,
    released: &Table,
    keys: &KeyMap,
    policy: MissingPolicy,
) -> Result<Vec<Vec<usize>>, AttackError> {
    let resolved = resolve(intruder, released, keys)?;
    let toks: Vec<(Tokens, Tokens)> = resolved.iter().map(tokenize).collect();
    Ok((0..intruder.nrows())
        .map(|i| {
            (0..released.nrows())
                .filter(|&j| {
                    toks.iter().all(|(a, b)| {
                        let (x, y) = (a.row(i), b.row(j));
                        match (x.is_empty(), y.is_empty(), policy) {
                            (false, false, _) => x.iter().any(|v| y.contains(v)),
                            (_, _, MissingPolicy::Listwise) => false,
                            (true, true, MissingPolicy::AsValue) => true,
                            (_, _, MissingPolicy::AsValue) => false,
                            (_, _, MissingPolicy::Wildcard) => true,
                        }
                    })
                })
                .collect()
        })
        .collect())
}
