//! Exact key matching (Mitra et al. §3.1; Dalenius 1986; Mulder's n_match for missing values).
//!
//! The candidates of intruder record `i` are the released records equal to `i` on every key:
//! `M_i`, with `c_i = |M_i|` (docs/METHODS.md §2.1). Missing keys follow a [`MissingPolicy`]:
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
//! hash table per `C` answers every query of pattern `P` (docs/METHODS.md §1.2; a cross-join). Without
//! missing values that is one hash table over the full key tuple. Set-valued keys are matched by
//! candidate masks beside the hashed projection.
//!
//! # Memory
//! A key with few values matches O(n · m) pairs (a binary key on two files of 40,000 records:
//! 800 million). Each record lists at most `max_listed` candidates (the smallest rows) with the
//! exact count of the others ([`Candidates::unlisted`]), so the attack holds
//! O(n · max_listed + m) whatever the number of pairs; `c_i` stays exact, the notes say how
//! many candidates were not listed, and the evaluator reads the whole set of such a record
//! from the attack's index ([`crate::linkage::ListCandidates`]), one batch of records at a
//! time, so its figures are the figures of the whole lists.

use std::sync::Arc;

use intruder_table::Table;
use intruder_table::keys::{Keys, PatternIndex};
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec, Range};

use crate::config::{MISSING, MissingPolicy, THRESHOLD};
use crate::error::{AttackError, ParamError};
use crate::keys::{KeyMap, Tokens, encode, resolve, tokenize};
use crate::linkage::{Candidates, Linkage, ListCandidates, Lister};
use crate::{Attack, Knowledge, Linked};

/// The default `max_listed`: candidates listed per intruder record.
pub const DEFAULT_MAX_LISTED: usize = 100;

/// The largest `max_listed`.
pub const MAX_MAX_LISTED: usize = 1_000_000_000;

/// Exact key matching; see the [module docs](self).
#[derive(Debug, Clone, PartialEq)]
pub struct ExactMatch {
    /// Missing-value policy.
    missing: MissingPolicy,
    /// Links are declared at a best score ≥ this (every candidate scores 1: a threshold above 1
    /// declares none); `None` declares every record's best candidate.
    threshold: Option<f64>,
    /// Candidates listed per intruder record (the smallest rows; the count stays exact).
    max_listed: usize,
}

/// `max_listed` (exact).
pub(crate) const MAX_LISTED: ParamSpec = ParamSpec::new(
    "max_listed",
    ParamKind::Integer,
    "candidates listed per intruder record (the smallest rows): c_i and every figure stay exact, the notes count the candidates not listed (memory O(records · max_listed), not O(pairs))",
)
.default_value("100")
.within(Range::closed(1.0, MAX_MAX_LISTED as f64));

/// The parameters of `exact` in the registry.
pub(crate) static PARAMS: &[ParamSpec] = &[MISSING, THRESHOLD, MAX_LISTED];

/// The registry entry (`ATTACKS`).
pub const ENTRY: Entry<dyn Attack> = Entry {
    name: "exact",
    summary: "exact key matching: candidates equal on every key (missing listwise, as-value or wildcard; sets by overlap)",
    reference: "Mitra et al. 2020, §3.1; Dalenius 1986; Mulder et al. (n_match)",
    params: PARAMS,
    figures: &[],
    build: ExactMatch::build,
};

impl ExactMatch {
    /// The attack with a missing-value policy (no threshold, [`DEFAULT_MAX_LISTED`]).
    pub fn new(missing: MissingPolicy) -> Self {
        ExactMatch {
            missing,
            threshold: None,
            max_listed: DEFAULT_MAX_LISTED,
        }
    }

    /// The attack with every setting, checked as the registry checks them: `max_listed` within
    /// its declared range (`max_listed` of `--list`), a finite threshold.
    pub fn with_settings(
        missing: MissingPolicy,
        threshold: Option<f64>,
        max_listed: usize,
    ) -> Result<Self, ParamError> {
        if !MAX_LISTED.range.contains(max_listed as f64) {
            return Err(ParamError::Unsupported(format!(
                "max_listed: expected a value {}, found {max_listed}",
                MAX_LISTED.range
            )));
        }
        if threshold.is_some_and(|t| !t.is_finite()) {
            return Err(ParamError::Unsupported(format!(
                "threshold: expected a finite number, found {}",
                threshold.unwrap_or_default()
            )));
        }
        Ok(ExactMatch {
            missing,
            threshold,
            max_listed,
        })
    }

    /// Reads the parameters declared in [`PARAMS`].
    pub(crate) fn build(r: &mut ParamReader<'_>) -> Option<Box<dyn Attack>> {
        let missing = r.choice::<MissingPolicy>("missing").unwrap_or_default();
        let threshold = r.get::<f64>("threshold");
        let max_listed = r.get::<usize>("max_listed").unwrap_or(DEFAULT_MAX_LISTED);
        r.ok().then(|| {
            Box::new(ExactMatch {
                missing,
                threshold,
                max_listed,
            }) as Box<dyn Attack>
        })
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
        let index = ExactIndex::new(queries, stored, self.missing);
        let max = self.max_listed.max(1);
        let matches = index.join(|_| true, max);
        let nr = released.nrows();
        let (mut not_listed, mut in_part) = (0u64, 0usize);
        let records: Vec<Candidates> = matches
            .into_iter()
            .map(|(count, rows)| {
                let listed = rows.len() as u64;
                if count > listed {
                    not_listed += count - listed;
                    in_part += 1;
                }
                Candidates::set_in_part(
                    rows.into_iter().map(|r| r as usize).collect(),
                    count as usize,
                )
            })
            .collect();
        let mut notes = Vec::new();
        let mut lister = None;
        if in_part > 0 {
            notes.push(("max_listed".to_string(), max as f64));
            notes.push(("records_listed_in_part".to_string(), in_part as f64));
            notes.push(("candidates_not_listed".to_string(), not_listed as f64));
            lister = Some(Lister::new(Arc::new(index)));
        }
        Ok(Linkage {
            method: "exact".into(),
            scored: false,
            complete: true,
            released_rows: nr,
            records,
            notes,
            lister,
        })
    }
}

/// Both files' codes and the released records' pattern index under a missing-value policy:
/// what exact matching joins, kept to list the whole candidate set of records listed in part.
#[derive(Debug)]
struct ExactIndex {
    queries: Keys,
    index: PatternIndex,
    listwise: bool,
}

impl ExactIndex {
    fn new(queries: Keys, stored: Keys, policy: MissingPolicy) -> ExactIndex {
        match policy {
            MissingPolicy::Listwise => {
                // Only complete records take part, on either side.
                let complete: Vec<u32> = (0..stored.n)
                    .filter(|&r| stored.complete(r))
                    .map(|r| r as u32)
                    .collect();
                ExactIndex {
                    index: PatternIndex::records(&stored, Some(&complete), None),
                    queries,
                    listwise: true,
                }
            }
            MissingPolicy::AsValue => {
                // Missing is one more value of each key (the same code on both sides).
                let (queries, stored) = (queries.missing_as_value(), stored.missing_as_value());
                ExactIndex {
                    index: PatternIndex::records(&stored, None, None),
                    queries,
                    listwise: false,
                }
            }
            MissingPolicy::Wildcard => ExactIndex {
                index: PatternIndex::records(&stored, None, None),
                queries,
                listwise: false,
            },
        }
    }

    /// Per intruder record that `pick` admits: the number of candidates and the smallest `max`
    /// of their rows.
    fn join(&self, pick: impl Fn(usize) -> bool, max: usize) -> Vec<(u64, Vec<u32>)> {
        let q = &self.queries;
        self.index
            .cross_join_capped(q, |i| pick(i) && (!self.listwise || q.complete(i)), max)
    }
}

impl ListCandidates for ExactIndex {
    fn list(&self, records: &[usize]) -> Vec<Vec<usize>> {
        let mut wanted = vec![false; self.queries.n];
        for &i in records {
            wanted[i] = true;
        }
        let q = &self.queries;
        let all = self
            .index
            .cross_join(q, |i| wanted[i] && (!self.listwise || q.complete(i)));
        let mut all: Vec<Option<Vec<u32>>> = all.into_iter().map(Some).collect();
        records
            .iter()
            .map(|&i| {
                all[i]
                    .take()
                    .unwrap_or_default()
                    .into_iter()
                    .map(|r| r as usize)
                    .collect()
            })
            .collect()
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
        m.insert("max_listed".into(), self.max_listed.into());
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
