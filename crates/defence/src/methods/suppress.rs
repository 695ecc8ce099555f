//! Local suppression to k-anonymity (sdcMicro `localSuppression`/`kAnon`) and suppression above
//! an individual-risk threshold (sdcMicro `localSupp` with `indivRisk`).
//!
//! # k-anonymity with wildcards
//! A suppressed (missing) key cell matches any value, as sdcMicro's `kAnon` judges the output: a
//! record's frequency counts every record that agrees with it on all keys observed in both
//! ([`intruder_data::keys::PatternIndex`]). Suppressing a cell never lowers any record's frequency, so one pass over
//! the records that violate k-anonymity suffices and the output is k-anonymous.
//!
//! # Which cell
//! Records are visited from the rarest (lowest frequency, then row order). For a violating
//! record: if suppressing one key makes it safe, the least important such key is suppressed;
//! otherwise the key whose suppression raises its frequency most (ties: least important). This
//! repeats until the record is safe. A second pass then restores every suppressed cell that is
//! no longer needed (most important keys first). Importance follows sdcMicro: 1 = most important, suppressed
//! last; by default keys with more distinct values are less important (sdcMicro's default).
//! The greedy is not guaranteed optimal (optimal local suppression is NP-hard; Meyerson &
//! Williams 2004), but it never suppresses more than suppressing every key of every originally
//! violating record.
//!
//! # Individual risk
//! Without weights the risk of a record is 1/f_k. With sampling weights it is Benedetti &
//! Franconi's (1998) estimate as in sdcMicro's `indivRisk(method = "approx")`, with
//! p_k = f_k / F_k and F_k the summed weight of the record's class:
//! f_k = 1: p/(1−p)·ln(1/p); f_k = 2: p/(1−p) − (p/(1−p))²·ln(1/p); f_k > 2: p/(f_k − (1 − p));
//! when p_k ≥ 1 (no sampling) the risk is 1/f_k. Classes use the wildcard rule above.

use intruder_data::Table;
use rand_chacha::ChaCha20Rng;

use crate::common::{check_columns, key_codes, suppress, weights};
use crate::{Defence, DefenceError, Masked};
use intruder_data::Role;
use intruder_data::keys::{Keys, PatternIndex};
use intruder_data::params::{ColumnNeed, Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "local-suppression";
const RISK_NAME: &str = "risk-suppression";

/// Parameters of local suppression to k-anonymity.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalSuppression {
    /// Key variables.
    pub keys: Vec<String>,
    /// Target k (≥ 2).
    pub k: u32,
    /// sdcMicro importance, one per key, a permutation of 1..=p (1 = suppressed last); `None`
    /// for the default (more distinct values = less important).
    pub importance: Option<Vec<i64>>,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "keys",
        ParamKind::Columns,
        "key variables (quasi-identifiers), 1 to 64",
    )
    .required()
    .from_role(Role::Key),
    ParamSpec::new(
        "k",
        ParamKind::Integer,
        "target k: every record must match at least k records (itself included), missing = wildcard",
    )
    .required()
    .within(Range::at_least(2.0)),
    ParamSpec::new(
        "importance",
        ParamKind::Integers,
        "one per key, a permutation of 1..p; 1 = most important, suppressed last (sdcMicro's convention)",
    )
    .default_value("by distinct values"),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "local suppression of key cells until k-anonymous (missing = wildcard)",
    reference: "sdcMicro localSuppression / kAnon; Samarati & Sweeney (1998)",
    params: PARAMS,
    build,
};

fn read_keys(r: &mut ParamReader) -> Option<Vec<String>> {
    let keys: Option<Vec<String>> = r.require("keys");
    if let Some(k) = &keys {
        r.check("keys", !k.is_empty(), "must name at least one key");
        r.check("keys", k.len() <= 64, "at most 64 keys are supported");
    }
    keys
}

/// k as a class size (the declaration keeps it ≥ 2).
fn read_k(r: &mut ParamReader) -> Option<u32> {
    let k: Option<i64> = r.require("k");
    let k = k?;
    match u32::try_from(k) {
        Ok(k) => Some(k),
        Err(_) => {
            r.problem("k", format!("is {k}; expected at most {}", u32::MAX));
            None
        }
    }
}

fn read_importance(r: &mut ParamReader, keys: &Option<Vec<String>>) -> Option<Vec<i64>> {
    let imp: Option<Vec<i64>> = r.get("importance");
    if let (Some(i), Some(k)) = (&imp, keys) {
        let mut s = i.clone();
        s.sort_unstable();
        r.check(
            "importance",
            s == (1..=k.len() as i64).collect::<Vec<_>>(),
            format!("must be a permutation of 1..{} (one per key)", k.len()),
        );
    }
    imp
}

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let keys = read_keys(r);
    let k = read_k(r);
    let importance = read_importance(r, &keys);
    if !r.ok() {
        return None;
    }
    Some(Box::new(LocalSuppression {
        keys: keys?,
        k: k?,
        importance,
    }))
}

/// Importance ranks (1 = most important), given or sdcMicro's default.
fn importance_of(keys: &Keys, given: &Option<Vec<i64>>) -> Vec<i64> {
    if let Some(g) = given {
        return g.clone();
    }
    let card: Vec<(usize, usize)> = (0..keys.len())
        .map(|j| (keys.distinct_observed(j), j))
        .collect();
    let mut card = card;
    // fewer distinct values = more important (rank 1); ties: earlier key more important
    card.sort_by_key(|&(c, j)| (c, j));
    let mut imp = vec![0; keys.len()];
    for (rank, &(_, j)) in card.iter().enumerate() {
        imp[j] = rank as i64 + 1;
    }
    imp
}

/// A record's count as a `u32` (counts never exceed the number of records).
fn count32(c: (u64, f64)) -> u32 {
    c.0.min(u32::MAX as u64) as u32
}

fn check_keys(table: &Table, method: &'static str, keys: &[String]) -> Result<(), DefenceError> {
    check_columns(table, method, keys)
}

/// Local suppression on an index: returns the suppressed (row, key) cells in order.
pub(crate) fn k_anonymise(
    idx: &mut PatternIndex,
    k: u32,
    importance: &[i64],
) -> Vec<(usize, usize)> {
    let n = idx.len();
    let mut order: Vec<(u32, usize)> = (0..n)
        .map(|r| (count32(idx.count(r)), r))
        .filter(|&(c, _)| c < k)
        .collect();
    order.sort_unstable();
    let mut out = Vec::new();
    for (_, r) in order {
        loop {
            let obs = idx.pattern(r);
            if count32(idx.count_as(r, obs)) >= k || obs == 0 {
                break;
            }
            // candidates: (safe?, count, importance) — pick safe with largest importance number,
            // else largest count then largest importance number
            let mut best: Option<(bool, u32, i64, usize)> = None;
            let mut bits = obs;
            while bits != 0 {
                let j = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let c = count32(idx.count_as(r, obs & !(1u64 << j)));
                let safe = c >= k;
                let cand = (safe, if safe { 0 } else { c }, importance[j], j);
                let better = match best {
                    None => true,
                    Some(b) => (cand.0, cand.1, cand.2) > (b.0, b.1, b.2),
                };
                if better {
                    best = Some(cand);
                }
            }
            let Some((_, _, _, j)) = best else { break };
            idx.suppress(r, j);
            out.push((r, j));
        }
    }
    restore_redundant(idx, k, importance, out)
}

/// Second pass: tries to restore each suppressed cell, most important keys first (then the
/// latest suppression first), and keeps it restored when every record still has at least k
/// matches. Restoring only removes matches, so each check is exact: the record's own count
/// with the cell restored, and the count of every record that would lose it as a match.
fn restore_redundant(
    idx: &mut PatternIndex,
    k: u32,
    importance: &[i64],
    cells: Vec<(usize, usize)>,
) -> Vec<(usize, usize)> {
    if cells.is_empty() {
        return cells;
    }
    let mut counts: Vec<u32> = (0..idx.len()).map(|r| count32(idx.count(r))).collect();
    let mut order: Vec<usize> = (0..cells.len()).collect();
    order.sort_by_key(|&c| (importance[cells[c].1], std::cmp::Reverse(c)));
    let mut keep = vec![true; cells.len()];
    for c in order {
        let (r, j) = cells[c];
        let obs = idx.pattern(r);
        let restored = obs | (1u64 << j);
        let now = count32(idx.count_as(r, restored));
        if now < k {
            continue;
        }
        let losers = if now < counts[r] {
            idx.lost_on_restore(r, j)
        } else {
            Vec::new()
        };
        if losers.iter().any(|&s| counts[s] <= k) {
            continue;
        }
        idx.restore(r, j);
        counts[r] = now;
        for s in losers {
            counts[s] -= 1;
        }
        keep[c] = false;
    }
    cells
        .into_iter()
        .zip(keep)
        .filter_map(|(c, k)| k.then_some(c))
        .collect()
}

fn apply_suppressions(
    table: &Table,
    keys: &[String],
    cells: &[(usize, usize)],
) -> Result<(Table, Vec<String>), DefenceError> {
    let mut out = table.clone();
    let mut notes = Vec::new();
    for (j, key) in keys.iter().enumerate() {
        let rows: Vec<usize> = cells.iter().filter(|c| c.1 == j).map(|c| c.0).collect();
        notes.push(format!("{key}: {} suppressions", rows.len()));
        if !rows.is_empty() {
            out.replace(suppress(table.column(key)?, rows))?;
        }
    }
    Ok((out, notes))
}

impl Defence for LocalSuppression {
    fn method(&self) -> &'static str {
        NAME
    }

    fn apply(&self, table: &Table, _rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_keys(table, NAME, &self.keys)?;
        if table.nrows() < self.k as usize && table.nrows() > 0 {
            return Err(DefenceError::Infeasible {
                method: NAME,
                message: format!(
                    "the table has {} records; k = {} cannot be reached",
                    table.nrows(),
                    self.k
                ),
            });
        }
        let coded = key_codes(table, NAME, &self.keys)?;
        let imp = importance_of(&coded, &self.importance);
        let mut idx = PatternIndex::records(&coded, None, None);
        let cells = k_anonymise(&mut idx, self.k, &imp);
        let (out, notes) = apply_suppressions(table, &self.keys, &cells)?;
        Ok(Masked {
            table: out,
            kept_rows: None,
            notes,
        })
    }
}

/// Parameters of suppression above an individual-risk threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct RiskSuppression {
    /// Key variables defining the classes.
    pub keys: Vec<String>,
    /// Records with risk strictly above are suppressed (0 < threshold ≤ 1).
    pub threshold: f64,
    /// The key whose cell is suppressed; `None` = the least important key (most distinct values).
    pub suppress: Option<String>,
    /// Sampling-weight column for Benedetti–Franconi risk; `None` = risk 1/f_k.
    pub weight: Option<String>,
}

const RISK_PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "keys",
        ParamKind::Columns,
        "key variables defining the classes (missing = wildcard), 1 to 64",
    )
    .required()
    .from_role(Role::Key),
    ParamSpec::new(
        "threshold",
        ParamKind::Number,
        "records with individual risk strictly above are suppressed",
    )
    .required()
    .within(Range::left_open(0.0, 1.0)),
    ParamSpec::new(
        "suppress",
        ParamKind::Column,
        "the key whose cell is suppressed (sdcMicro localSupp's keyVar), one of the keys",
    )
    .default_value("least important key"),
    ParamSpec::new(
        "weight",
        ParamKind::Column,
        "sampling weight column: risk by Benedetti–Franconi (sdcMicro indivRisk); without it risk = 1/f_k",
    )
    .needs(ColumnNeed::Numeric),
];

/// Registry entry.
pub const RISK_ENTRY: Entry<dyn Defence> = Entry {
    name: RISK_NAME,
    summary: "suppresses one key of records whose individual risk exceeds a threshold",
    reference: "sdcMicro localSupp + indivRisk; Benedetti & Franconi (1998)",
    params: RISK_PARAMS,
    build: build_risk,
};

fn build_risk(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let keys = read_keys(r);
    let threshold: Option<f64> = r.require("threshold");
    let sup: Option<String> = r.get("suppress");
    let weight: Option<String> = r.get("weight");
    if let (Some(s), Some(k)) = (&sup, &keys) {
        r.check(
            "suppress",
            k.contains(s),
            format!("'{s}' is not one of the keys ({})", k.join(", ")),
        );
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(RiskSuppression {
        keys: keys?,
        threshold: threshold?,
        suppress: sup,
        weight,
    }))
}

/// Individual risk of a record with sample frequency `f` and summed weight `big_f` (sdcMicro
/// `indivRisk`, method "approx"): the risk crate's definition, re-exported so the suppression
/// threshold and `intruder risk` judge records the same way.
pub use intruder_risk::measures::individual_risk;

impl Defence for RiskSuppression {
    fn method(&self) -> &'static str {
        RISK_NAME
    }

    fn apply(&self, table: &Table, _rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_keys(table, RISK_NAME, &self.keys)?;
        let w = match &self.weight {
            Some(name) => Some(weights(table, RISK_NAME, name)?),
            None => None,
        };
        let weighted = w.is_some();
        let coded = key_codes(table, RISK_NAME, &self.keys)?;
        let idx = PatternIndex::records(&coded, None, w.as_deref());
        let j = match &self.suppress {
            Some(s) => self.keys.iter().position(|k| k == s).unwrap_or(0),
            None => {
                let imp = importance_of(&coded, &None);
                (0..self.keys.len()).max_by_key(|&j| imp[j]).unwrap_or(0)
            }
        };
        let mut cells = Vec::new();
        let mut max_risk: f64 = 0.0;
        for (r, (f, big_f)) in idx.self_join().into_iter().enumerate() {
            let f = count32((f, big_f));
            let risk = if weighted {
                individual_risk(f, big_f)
            } else {
                1.0 / f as f64
            };
            max_risk = max_risk.max(risk);
            if risk > self.threshold && idx.pattern(r) & (1u64 << j) != 0 {
                cells.push((r, j));
            }
        }
        let (out, mut notes) = apply_suppressions(table, &self.keys, &cells)?;
        notes.push(format!("largest individual risk before: {max_risk}"));
        Ok(Masked {
            table: out,
            kept_rows: None,
            notes,
        })
    }
}
