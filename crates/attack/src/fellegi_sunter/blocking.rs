//! Blocking: the candidate pairs are those agreeing on every term of at least one rule.
//!
//! Each rule's key is one integer per record ([`encode::rule_keys`]); released records are
//! grouped by key with a counting sort and each intruder record walks the block of its key, rule
//! by rule (an equi-join, no comparison sort). A pair produced by rule `r` is dropped when an
//! earlier rule `r' < r` already produced it (its keys agree on `r'`), so the union holds no
//! pair twice without a set of the pairs — Splink's rule for combining blocking rules. A record
//! missing any term of a rule is not blocked by that rule. A rule without terms pairs everything
//! (the cross product). The attack runs the same join fused with comparison
//! ([`kernel`](super::kernel)); [`candidate_pairs`] lists the pairs alone.

use intruder_table::Table;
use rayon::prelude::*;

use super::encode::{self, NO_KEY, RuleKeys};
use super::spec::Term;
use crate::error::AttackError;

/// Candidate pairs, by intruder row, then rule, then released row.
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

/// The candidate pairs of the rules (OR-ed, each an AND of its terms), without duplicates.
pub fn candidate_pairs(
    intruder: &Table,
    released: &Table,
    rules: &[Vec<Term>],
    released_name: &dyn Fn(&str) -> String,
) -> Result<Pairs, AttackError> {
    let keys: Vec<RuleKeys> = rules
        .iter()
        .map(|rule| encode::rule_keys(intruder, released, rule, released_name))
        .collect::<Result<_, _>>()?;
    // Released rows by key, per rule.
    let blocks: Vec<Vec<Vec<u32>>> = keys
        .iter()
        .map(|k| {
            let mut b = vec![Vec::new(); k.n_keys as usize];
            for (j, &x) in k.b.iter().enumerate() {
                if x != NO_KEY {
                    b[x as usize].push(j as u32);
                }
            }
            b
        })
        .collect();
    let ni = intruder.nrows();
    let parts: Vec<(Vec<u32>, Vec<u32>, Vec<usize>)> = (0..ni)
        .collect::<Vec<_>>()
        .par_chunks(1024)
        .map(|rows| {
            let (mut pi, mut pr, mut per) = (Vec::new(), Vec::new(), vec![0; keys.len()]);
            for &i in rows {
                for (r, k) in keys.iter().enumerate() {
                    let x = k.a[i];
                    if x == NO_KEY {
                        continue;
                    }
                    for &j in &blocks[r][x as usize] {
                        let dup = keys[..r].iter().any(|e| {
                            let y = e.a[i];
                            y != NO_KEY && y == e.b[j as usize]
                        });
                        if !dup {
                            pi.push(i as u32);
                            pr.push(j);
                            per[r] += 1;
                        }
                    }
                }
            }
            (pi, pr, per)
        })
        .collect();
    let mut out = Pairs {
        per_rule: vec![0; keys.len()],
        ..Pairs::default()
    };
    for (pi, pr, per) in parts {
        out.intruder.extend_from_slice(&pi);
        out.released.extend_from_slice(&pr);
        for (s, t) in out.per_rule.iter_mut().zip(per) {
            *s += t;
        }
    }
    Ok(out)
}
