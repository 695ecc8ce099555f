//! Local suppression to k-anonymity (sdcMicro `localSuppression`/`kAnon`) and suppression above
//! an individual-risk threshold (sdcMicro `localSupp` with `indivRisk`).
//!
//! # Against which intruder
//! Both methods promise something about the output — every record in a class of at least k, or
//! every individual risk at most the threshold — under the rule named by `protect_against`
//! ([`ProtectAgainst`], [`crate::claim`]): `all` (the default: every combination of visible key
//! values, with its blanked cells, shared by at least k records, which holds under listwise,
//! as-value and wildcard matching alike), `as-value` (the same condition), `listwise` (complete
//! records only) or `wildcard` (missing matches anything, as sdcMicro's `kAnon` judges its
//! output). Under `wildcard` alone a few blanked cells per class satisfy the count while the
//! visible values stay unique among the complete records, which an exact listwise attack
//! re-identifies; `intruder mask` cross-examines every promise with that attack.
//!
//! # Which cells
//! Keys are suppressed least important first, with sdcMicro's convention: importance 1 = most
//! important, suppressed last; by default keys with more distinct values are less important
//! (sdcMicro's default). Under `wildcard` records are visited rarest first ([`wildcard`]);
//! under the other rules whole classes of visible values move down the lattice of visible keys
//! ([`classes`]). Both end with a pass that gives back every suppressed cell no longer needed.
//! The greedy is not guaranteed optimal (optimal local suppression is NP-hard; Meyerson &
//! Williams 2004).
//!
//! # Individual risk
//! Without weights the risk of a record is 1/f_k. With sampling weights it is Benedetti &
//! Franconi's (1998) estimate as in sdcMicro's `indivRisk(method = "approx")`, with
//! p_k = f_k / F_k and F_k the summed weight of the record's class:
//! f_k = 1: p/(1−p)·ln(1/p); f_k = 2: p/(1−p) − (p/(1−p))²·ln(1/p); f_k > 2: p/(f_k − (1 − p));
//! when p_k ≥ 1 (no sampling) the risk is 1/f_k. Classes follow `protect_against` (under `all`
//! and `as-value`, f_k and F_k of the record's class of visible values; under `wildcard`, of its
//! wildcard matches, as `freqCalc` counts them).

mod classes;
mod wildcard;

use intruder_table::Table;
use rand_chacha::ChaCha20Rng;

use crate::claim::{Claim, PROTECT_AGAINST_CHOICES, ProtectAgainst};
use crate::common::{check_columns, key_codes, suppress, weights};
use crate::{Defence, DefenceError, Masked};
use classes::ClassRule;
use intruder_table::Role;
use intruder_table::keys::{Keys, PatternIndex};
use intruder_table::params::{ColumnNeed, Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "local-suppression";
const RISK_NAME: &str = "risk-suppression";

/// What a class (or a record's set of matches) must reach to be safe.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Target {
    /// At least k records.
    K(u32),
    /// Individual risk at most `threshold` (1/f_k, or Benedetti–Franconi with weights).
    Risk {
        /// The largest risk allowed.
        threshold: f64,
        /// Whether the summed weights are sampling weights (else risk = 1/f_k).
        weighted: bool,
    },
}

impl Target {
    /// Whether `n` records weighing `w` in all are safe (no records: nothing to protect).
    pub(crate) fn safe(self, n: u64, w: f64) -> bool {
        if n == 0 {
            return true;
        }
        match self {
            Target::K(k) => n >= k as u64,
            Target::Risk {
                threshold,
                weighted,
            } => {
                let risk = if weighted {
                    individual_risk(n.min(u32::MAX as u64) as u32, w)
                } else {
                    1.0 / n as f64
                };
                risk <= threshold
            }
        }
    }
}

/// Parameters of local suppression to k-anonymity.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalSuppression {
    /// Key variables.
    pub(crate) keys: Vec<String>,
    /// Target k (≥ 2).
    pub(crate) k: u32,
    /// sdcMicro importance, one per key, a permutation of 1..=p (1 = suppressed last); `None`
    /// for the default (more distinct values = less important).
    pub(crate) importance: Option<Vec<i64>>,
    /// The rule under which the output is k-anonymous.
    pub(crate) protect_against: ProtectAgainst,
}

/// `protect_against` of the k- and risk-promising defences.
pub(crate) const PROTECT_AGAINST: ParamSpec = ParamSpec::new(
    "protect_against",
    ParamKind::Choice(PROTECT_AGAINST_CHOICES),
    "the intruder the promise holds against: all (every combination of visible key values, with its blanked cells, shared by enough records: safe under listwise, as-value and wildcard matching alike), listwise (complete records only), as-value (the same condition as all), wildcard (a missing cell matches anything, sdcMicro's kAnon rule: a few blanks per class can satisfy it while visible values stay unique)",
)
.default_value("all");

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
        "target k: every record in a class of at least k records (itself included) under protect_against",
    )
    .example("3")
    .required()
    .within(Range::at_least(2.0)),
    ParamSpec::new(
        "importance",
        ParamKind::Integers,
        "one per key, a permutation of 1..p; 1 = most important, suppressed last (sdcMicro's convention)",
    )
    .default_value("by distinct values"),
    PROTECT_AGAINST,
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "local suppression of key cells until k-anonymous under the rule protect_against names",
    reference: "sdcMicro localSuppression / kAnon; Samarati & Sweeney (1998)",
    params: PARAMS,
    figures: &[],
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
    let protect_against = r
        .choice::<ProtectAgainst>("protect_against")
        .unwrap_or_default();
    if !r.ok() {
        return None;
    }
    Some(Box::new(LocalSuppression {
        keys: keys?,
        k: k?,
        importance,
        protect_against,
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

fn check_keys(table: &Table, method: &'static str, keys: &[String]) -> Result<(), DefenceError> {
    check_columns(table, method, keys)
}

/// The cells to suppress so that every record reaches `target` under `rule`.
fn cells_for(
    method: &'static str,
    coded: &Keys,
    weights: Option<&[f64]>,
    rule: ProtectAgainst,
    target: Target,
    importance: &[i64],
) -> Result<Vec<(usize, usize)>, DefenceError> {
    let class_rule = match rule {
        ProtectAgainst::Wildcard => {
            let mut idx = PatternIndex::records(coded, None, weights);
            return Ok(wildcard::anonymise(&mut idx, target, importance));
        }
        ProtectAgainst::Listwise => ClassRule::Listwise,
        ProtectAgainst::AsValue | ProtectAgainst::All => ClassRule::AsValue,
    };
    classes::anonymise(
        &coded.codes,
        &coded.card,
        weights,
        class_rule,
        target,
        importance,
    )
    .map_err(|u| DefenceError::Infeasible {
        method,
        message: format!(
            "even with every key of every record suppressed, the {} records left with no visible key do not reach the target under protect_against = {rule}",
            u.records
        ),
    })
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
        let cells = cells_for(
            NAME,
            &coded,
            None,
            self.protect_against,
            Target::K(self.k),
            &imp,
        )?;
        let (out, mut notes) = apply_suppressions(table, &self.keys, &cells)?;
        notes.push(format!("protect_against = {}", self.protect_against));
        Ok(Masked {
            table: out,
            kept_rows: None,
            notes,
            details: None,
        })
    }

    fn claims(&self) -> Vec<Claim> {
        vec![Claim::k_anonymity(
            NAME,
            &self.keys,
            self.k,
            self.protect_against,
        )]
    }
}

/// Parameters of suppression above an individual-risk threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct RiskSuppression {
    /// Key variables defining the classes.
    pub(crate) keys: Vec<String>,
    /// Records with risk strictly above are suppressed (0 < threshold ≤ 1).
    pub(crate) threshold: f64,
    /// The key suppressed first; `None` = the least important key (most distinct values).
    pub(crate) suppress: Option<String>,
    /// Sampling-weight column for Benedetti–Franconi risk; `None` = risk 1/f_k.
    pub(crate) weight: Option<String>,
    /// The rule under which every risk ends at most the threshold.
    pub(crate) protect_against: ProtectAgainst,
}

const RISK_PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "keys",
        ParamKind::Columns,
        "key variables defining the classes, 1 to 64",
    )
    .required()
    .from_role(Role::Key),
    ParamSpec::new(
        "threshold",
        ParamKind::Number,
        "every record ends with individual risk at most this, under protect_against",
    )
    .example("0.2")
    .required()
    .within(Range::left_open(0.0, 1.0)),
    ParamSpec::new(
        "suppress",
        ParamKind::Column,
        "the key suppressed first (sdcMicro localSupp's keyVar), one of the keys; others follow, least important first, where it is not enough",
    )
    .default_value("least important key"),
    ParamSpec::new(
        "weight",
        ParamKind::Column,
        "sampling weight column: risk by Benedetti–Franconi (sdcMicro indivRisk); without it risk = 1/f_k",
    )
    .needs(ColumnNeed::Numeric),
    PROTECT_AGAINST,
];

/// Registry entry.
pub const RISK_ENTRY: Entry<dyn Defence> = Entry {
    name: RISK_NAME,
    summary: "suppresses key cells (one key first) until every individual risk is at most a threshold",
    reference: "sdcMicro localSupp + indivRisk; Benedetti & Franconi (1998)",
    params: RISK_PARAMS,
    figures: &[],
    build: build_risk,
};

fn build_risk(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let keys = read_keys(r);
    let threshold: Option<f64> = r.require("threshold");
    let sup: Option<String> = r.get("suppress");
    let weight: Option<String> = r.get("weight");
    let protect_against = r
        .choice::<ProtectAgainst>("protect_against")
        .unwrap_or_default();
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
        protect_against,
    }))
}

/// Individual risk of a record with sample frequency `f` and summed weight `big_f` (sdcMicro
/// `indivRisk`, method "approx"): the risk crate's definition, re-exported so the suppression
/// threshold and `intruder risk` judge records the same way.
pub use intruder_risk::measures::individual_risk;

/// The smallest class size whose unweighted risk 1/f is at most `threshold`.
pub fn k_for_risk(threshold: f64) -> u32 {
    let mut k = (1.0 / threshold).ceil().clamp(1.0, u32::MAX as f64) as u32;
    while k > 1 && 1.0 / (k - 1) as f64 <= threshold {
        k -= 1;
    }
    while 1.0 / k as f64 > threshold {
        k += 1;
    }
    k
}

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
        let coded = key_codes(table, RISK_NAME, &self.keys)?;
        // the `suppress` key is the least important, the others keep their default order
        let mut imp = importance_of(&coded, &None);
        let first = match &self.suppress {
            Some(s) => self.keys.iter().position(|k| k == s).unwrap_or(0),
            None => (0..self.keys.len()).max_by_key(|&j| imp[j]).unwrap_or(0),
        };
        let rank = imp[first];
        for x in imp.iter_mut() {
            if *x > rank {
                *x -= 1;
            }
        }
        imp[first] = self.keys.len() as i64;
        // 1. sdcMicro's localSupp: the `suppress` key of every record whose risk (wildcard
        //    matches, as freqCalc counts them) is above the threshold
        let idx = PatternIndex::records(&coded, None, w.as_deref());
        let mut max_risk: f64 = 0.0;
        let mut cells = Vec::new();
        for (r, (f, big_f)) in idx.self_join().into_iter().enumerate() {
            let risk = if w.is_some() {
                individual_risk(f.min(u32::MAX as u64) as u32, big_f)
            } else {
                1.0 / f as f64
            };
            max_risk = max_risk.max(risk);
            if risk > self.threshold && idx.pattern(r) & (1u64 << first) != 0 {
                cells.push((r, first));
            }
        }
        let first_pass = cells.len();
        // 2. where that does not keep the promise under `protect_against`, more cells, least
        //    important key first (the first pass's cells stay)
        let mut after = coded;
        for &(r, j) in &cells {
            after.codes[j][r] = intruder_table::keys::MISSING;
        }
        let target = Target::Risk {
            threshold: self.threshold,
            weighted: w.is_some(),
        };
        cells.extend(cells_for(
            RISK_NAME,
            &after,
            w.as_deref(),
            self.protect_against,
            target,
            &imp,
        )?);
        let (out, mut notes) = apply_suppressions(table, &self.keys, &cells)?;
        notes.push(format!(
            "largest individual risk before (wildcard matches): {max_risk}"
        ));
        notes.push(format!(
            "{first_pass} cells of {} above the threshold (sdcMicro's localSupp), {} more to hold under protect_against = {}",
            self.keys[first],
            cells.len() - first_pass,
            self.protect_against
        ));
        Ok(Masked {
            table: out,
            kept_rows: None,
            notes,
            details: None,
        })
    }

    fn claims(&self) -> Vec<Claim> {
        let k = if self.weight.is_some() {
            1
        } else {
            k_for_risk(self.threshold)
        };
        vec![Claim {
            max_risk: Some(self.threshold),
            weight: self.weight.clone(),
            ..Claim::k_anonymity(RISK_NAME, &self.keys, k, self.protect_against)
        }]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_for_risk_is_the_smallest_safe_class() {
        assert_eq!(k_for_risk(1.0), 1);
        assert_eq!(k_for_risk(0.5), 2);
        assert_eq!(k_for_risk(0.4), 3);
        assert_eq!(k_for_risk(1.0 / 3.0), 3);
        assert_eq!(k_for_risk(0.1), 10);
        assert_eq!(k_for_risk(0.099), 11);
    }

    #[test]
    fn targets_judge_counts_and_risks() {
        assert!(Target::K(3).safe(3, 0.0));
        assert!(!Target::K(3).safe(2, 0.0));
        assert!(Target::K(3).safe(0, 0.0));
        let r = Target::Risk {
            threshold: 0.5,
            weighted: false,
        };
        assert!(r.safe(2, 0.0) && !r.safe(1, 0.0));
        // weighted: f = 1, F = 100 gives p/(1-p)·ln(1/p) = 0.0465
        let w = Target::Risk {
            threshold: 0.05,
            weighted: true,
        };
        assert!(w.safe(1, 100.0));
        assert!(!w.safe(1, 10.0));
    }
}
