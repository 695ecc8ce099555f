//! Blocking: the candidate pairs are those agreeing on every term of at least one rule.
//!
//! Each rule is run as an equi-join (released records sorted by the rule's key, each intruder
//! record looks its key up); a pair produced by rule `r` is dropped when an earlier rule
//! `r' < r` already produced it (its keys agree on `r'`), so the union holds no pair twice —
//! Splink's rule for combining blocking rules. A record missing any term of a rule is not
//! blocked by that rule. A rule without terms pairs everything (the cross product).

use std::collections::HashMap;

/// Per record of the intruder's and the released file, its blocking key (`None`: not blocked).
type BlockKeys = (Vec<Option<u64>>, Vec<Option<u64>>);

use intruder_data::{Column, Table};
use rayon::prelude::*;

use super::spec::Term;
use crate::error::AttackError;

/// Key of a record missing a term of the rule.
pub const NO_KEY: u64 = u64::MAX;

/// Candidate pairs, by rule then intruder row then released row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pairs {
    /// Intruder rows.
    pub intruder: Vec<u32>,
    /// Released rows.
    pub released: Vec<u32>,
    /// Pairs produced by each rule (after removing those of earlier rules).
    pub per_rule: Vec<usize>,
}

impl Pairs {
    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.intruder.len()
    }

    /// True when there is no pair.
    pub fn is_empty(&self) -> bool {
        self.intruder.is_empty()
    }
}

fn term_text(c: &Column, i: usize, term: &Term) -> Option<String> {
    let t = c.text(i)?;
    let t = t.trim();
    let out: String = match term {
        Term::Column { .. } => t.to_string(),
        Term::FirstLetter { .. } => t.chars().next()?.to_string(),
        Term::Prefix { n, .. } => t.chars().take(*n).collect(),
        Term::Year { .. } => {
            let y: String = t.chars().take(4).collect();
            y.parse::<i64>().ok()?.to_string()
        }
    };
    (!out.is_empty()).then_some(out)
}

/// The key of every record of both files under one rule (`None` = missing a term), equal keys
/// for equal term values across the files.
pub fn rule_keys(
    intruder: &Table,
    released: &Table,
    rule: &[Term],
    released_name: &dyn Fn(&str) -> String,
) -> Result<BlockKeys, AttackError> {
    let (ni, nr) = (intruder.nrows(), released.nrows());
    let mut a: Vec<Option<Vec<u32>>> = vec![Some(Vec::with_capacity(rule.len())); ni];
    let mut b: Vec<Option<Vec<u32>>> = vec![Some(Vec::with_capacity(rule.len())); nr];
    for term in rule {
        let ic = intruder.column(term.column())?;
        let rc = released.column(&released_name(term.column()))?;
        let mut dict: HashMap<String, u32> = HashMap::new();
        for (col, keys) in [(ic, &mut a), (rc, &mut b)] {
            for (i, k) in keys.iter_mut().enumerate() {
                let Some(v) = k.as_mut() else { continue };
                match term_text(col, i, term) {
                    Some(s) => {
                        let n = dict.len() as u32;
                        v.push(*dict.entry(s).or_insert(n));
                    }
                    None => *k = None,
                }
            }
        }
    }
    let mut tuples: HashMap<Vec<u32>, u64> = HashMap::new();
    let mut intern = |k: Option<Vec<u32>>| {
        k.map(|v| {
            let n = tuples.len() as u64;
            *tuples.entry(v).or_insert(n)
        })
    };
    let ka: Vec<Option<u64>> = a.into_iter().map(&mut intern).collect();
    let kb: Vec<Option<u64>> = b.into_iter().map(&mut intern).collect();
    Ok((ka, kb))
}

/// The candidate pairs of the rules (OR-ed, each an AND of its terms), without duplicates.
pub fn candidate_pairs(
    intruder: &Table,
    released: &Table,
    rules: &[Vec<Term>],
    released_name: &dyn Fn(&str) -> String,
) -> Result<Pairs, AttackError> {
    let mut keys: Vec<(Vec<u64>, Vec<u64>)> = Vec::with_capacity(rules.len());
    for rule in rules {
        let (a, b) = rule_keys(intruder, released, rule, released_name)?;
        let flat = |v: Vec<Option<u64>>| v.into_iter().map(|k| k.unwrap_or(NO_KEY)).collect();
        keys.push((flat(a), flat(b)));
    }
    let mut out = Pairs::default();
    for r in 0..keys.len() {
        let (ka, kb) = &keys[r];
        let earlier = &keys[..r];
        // Released rows sorted by key (then row).
        let mut sorted: Vec<(u64, u32)> = kb
            .iter()
            .enumerate()
            .filter(|(_, k)| **k != NO_KEY)
            .map(|(j, &k)| (k, j as u32))
            .collect();
        sorted.sort_unstable();
        let chunks: Vec<(Vec<u32>, Vec<u32>)> = (0..ka.len())
            .collect::<Vec<_>>()
            .par_chunks(1024)
            .map(|rows| {
                let (mut pi, mut pr) = (Vec::new(), Vec::new());
                for &i in rows {
                    let k = ka[i];
                    if k == NO_KEY {
                        continue;
                    }
                    let lo = sorted.partition_point(|x| x.0 < k);
                    let hi = sorted.partition_point(|x| x.0 <= k);
                    for &(_, j) in &sorted[lo..hi] {
                        let dup = earlier.iter().any(|(ea, eb)| {
                            let x = ea[i];
                            x != NO_KEY && x == eb[j as usize]
                        });
                        if !dup {
                            pi.push(i as u32);
                            pr.push(j);
                        }
                    }
                }
                (pi, pr)
            })
            .collect();
        let before = out.len();
        for (pi, pr) in chunks {
            out.intruder.extend_from_slice(&pi);
            out.released.extend_from_slice(&pr);
        }
        out.per_rule.push(out.len() - before);
    }
    Ok(out)
}
