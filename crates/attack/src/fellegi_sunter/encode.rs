//! Encoding: every value the linkage reads becomes an integer, once, before any pair is formed.
//!
//! - A compared column's values get ids in a dictionary shared by the two files (equal text,
//!   equal id; values are compared as the trimmed text a CSV would hold, so an integer column
//!   of one file meets a text column of the other).
//! - A blocking rule's key is one dense integer per record (`NO_KEY` when a term is missing),
//!   equal across the files exactly when every term of the rule is equal.
//!
//! This module is the only place where the Fellegi–Sunter attack turns values into integers:
//! [`column_ids`] and [`rule_keys`] can be switched to the shared two-file key encoder of
//! `intruder-table` (`crates/table/src/keys/`) without touching the kernel, which sees ids only.

use foldhash::HashMap;
use intruder_table::{Column, ColumnData, Table, format_float};

use super::spec::Term;
use crate::error::AttackError;

/// Id of a missing value.
pub const MISSING: u32 = u32::MAX;

/// Key of a record missing a term of a rule (not blocked by it).
pub const NO_KEY: u32 = u32::MAX;

/// Texts with ids, shared by the two files.
#[derive(Debug, Clone, Default)]
pub struct Dict {
    /// The texts, by id.
    pub values: Vec<String>,
    index: HashMap<Box<str>, u32>,
}

impl Dict {
    /// The id of a text, added when new.
    pub fn id(&mut self, s: &str) -> u32 {
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        let id = self.values.len() as u32;
        self.values.push(s.to_string());
        self.index.insert(s.into(), id);
        id
    }

    /// Number of texts.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// The id in `dict` of every row's trimmed text (`MISSING` where missing). Each distinct value
/// of the column is turned into text once.
pub fn column_ids(col: &Column, dict: &mut Dict) -> Vec<u32> {
    let n = col.len();
    let miss = |i: usize| col.is_missing(i);
    match col.data() {
        ColumnData::Categorical { codes, levels } => {
            let ids: Vec<u32> = levels.iter().map(|l| dict.id(l.trim())).collect();
            (0..n)
                .map(|i| {
                    if miss(i) {
                        MISSING
                    } else {
                        ids[codes[i] as usize]
                    }
                })
                .collect()
        }
        ColumnData::Integer(v) => {
            let mut seen: HashMap<i64, u32> = HashMap::default();
            (0..n)
                .map(|i| {
                    if miss(i) {
                        return MISSING;
                    }
                    *seen
                        .entry(v[i])
                        .or_insert_with(|| dict.id(&v[i].to_string()))
                })
                .collect()
        }
        ColumnData::Float(v) => {
            let mut seen: HashMap<u64, u32> = HashMap::default();
            (0..n)
                .map(|i| {
                    if miss(i) {
                        return MISSING;
                    }
                    *seen
                        .entry(v[i].to_bits())
                        .or_insert_with(|| dict.id(format_float(v[i]).trim()))
                })
                .collect()
        }
        ColumnData::String(v) => (0..n)
            .map(|i| {
                if miss(i) {
                    MISSING
                } else {
                    dict.id(v[i].trim())
                }
            })
            .collect(),
        ColumnData::Set { .. } => (0..n)
            .map(|i| match col.text(i) {
                None => MISSING,
                Some(t) => dict.id(t.trim()),
            })
            .collect(),
    }
}

/// A blocking term's value derived from a (trimmed) text on the intruder's side (`released`:
/// the released side's expression); `None` when it has none.
pub fn term_value(t: &str, term: &Term, released: bool) -> Option<String> {
    let (a, b) = term.exprs();
    let e = if released { b } else { a };
    e.compile().ok()?.apply(t)
}

/// The keys of one blocking rule in both files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleKeys {
    /// Key of every intruder record (`NO_KEY`: missing a term).
    pub a: Vec<u32>,
    /// Key of every released record.
    pub b: Vec<u32>,
    /// Keys are `0..n_keys`.
    pub n_keys: u32,
}

/// Per record of both files, the ids of one term's values (`NO_KEY` when it has none), and
/// the number of ids.
fn term_ids(
    intruder: &Table,
    released: &Table,
    term: &Term,
    released_name: &dyn Fn(&str) -> String,
) -> Result<(Vec<u32>, Vec<u32>, u32), AttackError> {
    let ic = intruder.column(term.column())?;
    let rc = released.column(&released_name(term.released_column()))?;
    let (ea, eb) = term.exprs();
    let compile = |e: &super::expr::Expr| {
        e.compile().map_err(|m| {
            crate::error::ParamError::Unsupported(format!("blocking term '{}': {m}", term.label()))
        })
    };
    let (ca, cb) = (compile(&ea)?, compile(&eb)?);
    let mut values = Dict::default();
    let (va, vb) = (column_ids(ic, &mut values), column_ids(rc, &mut values));
    let mut derived = Dict::default();
    let of_value = |c: &super::expr::Compiled, derived: &mut Dict| -> Vec<u32> {
        values
            .values
            .iter()
            .map(|v| c.apply(v).map_or(NO_KEY, |s| derived.id(&s)))
            .collect()
    };
    let of_a = of_value(&ca, &mut derived);
    let of_b = if ea == eb {
        of_a.clone()
    } else {
        of_value(&cb, &mut derived)
    };
    let map = |ids: Vec<u32>, of: &[u32]| -> Vec<u32> {
        ids.into_iter()
            .map(|v| if v == MISSING { NO_KEY } else { of[v as usize] })
            .collect()
    };
    Ok((map(va, &of_a), map(vb, &of_b), derived.len() as u32))
}

/// The keys of every record of both files under one rule. A rule without terms gives every
/// record key 0 (one block: the cross product).
pub fn rule_keys(
    intruder: &Table,
    released: &Table,
    rule: &[Term],
    released_name: &dyn Fn(&str) -> String,
) -> Result<RuleKeys, AttackError> {
    let (ni, nr) = (intruder.nrows(), released.nrows());
    let Some((first, rest)) = rule.split_first() else {
        return Ok(RuleKeys {
            a: vec![0; ni],
            b: vec![0; nr],
            n_keys: 1,
        });
    };
    let (mut a, mut b, mut n) = term_ids(intruder, released, first, released_name)?;
    for term in rest {
        let (ta, tb, tn) = term_ids(intruder, released, term, released_name)?;
        // Combine (key so far, term id) into a new dense key, numbered in order of first
        // appearance (intruder rows, then released rows).
        let mut combined: HashMap<u64, u32> = HashMap::default();
        let mut next = |k: u32, t: u32| -> u32 {
            if k == NO_KEY || t == NO_KEY {
                return NO_KEY;
            }
            let key = u64::from(k) * u64::from(tn) + u64::from(t);
            let len = combined.len() as u32;
            *combined.entry(key).or_insert(len)
        };
        a = a.iter().zip(&ta).map(|(&k, &t)| next(k, t)).collect();
        b = b.iter().zip(&tb).map(|(&k, &t)| next(k, t)).collect();
        n = combined.len() as u32;
    }
    Ok(RuleKeys { a, b, n_keys: n })
}
