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
//! No O(n·m) scan: both files' keys are coded once with shared dictionaries
//! ([`intruder_data::keys::encode_pairs`]) and the released records are indexed by their pattern
//! of observed keys ([`PatternIndex`]): for an intruder pattern `P`, the records of a stored
//! pattern `Q` that match agree with the query on the keys observed in both, `C = P ∩ Q`, so one
//! hash table per `C` answers every query of pattern `P` (METHODS.md §1.2; a cross-join). Without
//! missing values that is one hash table over the full key tuple. Set-valued keys are matched by
//! candidate masks beside the hashed projection.

use intruder_data::Table;
use intruder_data::keys::PatternIndex;
use intruder_data::params::{ParamReader, ParamSpec};

use crate::config::{MISSING, MissingPolicy, THRESHOLD};
use crate::error::AttackError;
use crate::keys::{KeyMap, Tokens, encode, resolve, tokenize};
use crate::linkage::{Candidates, Linkage};
use crate::{Attack, Knowledge, Linked};

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
        let (queries, stored) = encode(&resolved);
        let matches = match self.missing {
            MissingPolicy::Listwise => {
                // Only complete records take part, on either side.
                let complete: Vec<u32> = (0..stored.n)
                    .filter(|&r| stored.complete(r))
                    .map(|r| r as u32)
                    .collect();
                PatternIndex::records(&stored, Some(&complete), None)
                    .cross_join(&queries, |i| queries.complete(i))
            }
            MissingPolicy::AsValue => {
                // Missing is one more value of each key (the same code on both sides).
                let (queries, stored) = (queries.missing_as_value(), stored.missing_as_value());
                PatternIndex::records(&stored, None, None).cross_join(&queries, |_| true)
            }
            MissingPolicy::Wildcard => {
                PatternIndex::records(&stored, None, None).cross_join(&queries, |_| true)
            }
        };
        let nr = released.nrows();
        let records: Vec<Candidates> = matches
            .into_iter()
            .map(|rows| Candidates::set(rows.into_iter().map(|r| r as usize).collect()))
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
