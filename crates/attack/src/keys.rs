//! Key variables shared by the intruder's file and the released file: names may differ between
//! the files, and a key may be recoded on the intruder's side (e.g. to the released categories).

use std::collections::HashMap;

use intruder_table::keys::{Keys, PairSpec, encode_pairs};
use intruder_table::{Column, ColumnData, Table};

use crate::error::{AttackError, KeyTypeMismatch, ParamError};

/// One key variable: its name in each file and an optional recoding of the intruder's values.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct KeyPair {
    /// Column name in the intruder's file.
    pub intruder: String,
    /// Column name in the released file.
    pub released: String,
    /// Intruder value (as text) → released value (as text); values not listed are kept. A
    /// recoded key is compared as text.
    pub recode: Option<HashMap<String, String>>,
}

/// The key variables of an attack, in order.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct KeyMap {
    pairs: Vec<KeyPair>,
}

impl KeyMap {
    /// Keys with the same name in both files.
    pub fn same<S: AsRef<str>>(names: &[S]) -> Result<Self, ParamError> {
        Self::new(
            names
                .iter()
                .map(|n| KeyPair {
                    intruder: n.as_ref().to_string(),
                    released: n.as_ref().to_string(),
                    recode: None,
                })
                .collect(),
        )
    }

    /// Keys named in the intruder's file, renamed in the released file by `map`
    /// (intruder name → released name; keys not in `map` keep their name).
    pub fn with_map<S: AsRef<str>>(
        names: &[S],
        map: &[(String, String)],
    ) -> Result<Self, ParamError> {
        for (from, _) in map {
            if !names.iter().any(|n| n.as_ref() == from) {
                return Err(ParamError::Unsupported(format!(
                    "key map names '{from}', which is not one of the keys ({})",
                    names
                        .iter()
                        .map(|n| n.as_ref())
                        .collect::<Vec<_>>()
                        .join(", ")
                )));
            }
        }
        let mut km = Self::same(names)?;
        for p in &mut km.pairs {
            if let Some((_, to)) = map.iter().find(|(f, _)| *f == p.intruder) {
                p.released = to.clone();
            }
        }
        Ok(km)
    }

    /// Keys from explicit pairs; checks there is at least one, at most 64, none twice.
    pub fn new(pairs: Vec<KeyPair>) -> Result<Self, ParamError> {
        if pairs.is_empty() {
            return Err(ParamError::NoKeys);
        }
        if pairs.len() > 64 {
            return Err(ParamError::TooManyKeys(pairs.len()));
        }
        for (i, p) in pairs.iter().enumerate() {
            if pairs[..i].iter().any(|q| q.intruder == p.intruder) {
                return Err(ParamError::DuplicateKey(p.intruder.clone()));
            }
        }
        Ok(KeyMap { pairs })
    }

    /// Sets a recoding of the intruder's values of key `intruder_name`.
    pub fn set_recode(
        &mut self,
        intruder_name: &str,
        recode: HashMap<String, String>,
    ) -> Result<(), ParamError> {
        let p = self
            .pairs
            .iter_mut()
            .find(|p| p.intruder == intruder_name)
            .ok_or_else(|| {
                ParamError::Unsupported(format!(
                    "recode names '{intruder_name}', which is not a key"
                ))
            })?;
        p.recode = Some(recode);
        Ok(())
    }

    /// The pairs in order.
    pub fn pairs(&self) -> &[KeyPair] {
        &self.pairs
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Always false (a key map has at least one key).
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

/// How the values of a key are compared: as numbers or as text ([`Domain::shared`]).
pub use intruder_table::keys::Domain;

/// A key resolved against both tables.
#[derive(Debug, Clone, Copy)]
pub struct ResolvedKey<'a> {
    /// The key's names.
    pub pair: &'a KeyPair,
    /// The intruder's column.
    pub intruder: &'a Column,
    /// The released column.
    pub released: &'a Column,
    /// How values compare.
    pub domain: Domain,
}

fn file(t: &Table) -> String {
    t.source().to_string()
}

/// Resolves every key in both tables: the columns exist, neither file is empty, the types are
/// compatible. Errors name the file and the column.
pub fn resolve<'a>(
    intruder: &'a Table,
    released: &'a Table,
    keys: &'a KeyMap,
) -> Result<Vec<ResolvedKey<'a>>, AttackError> {
    if keys.is_empty() {
        return Err(ParamError::NoKeys.into());
    }
    let mut out = Vec::with_capacity(keys.len());
    for pair in keys.pairs() {
        let ic = intruder.column(&pair.intruder)?;
        let rc = released.column(&pair.released)?;
        let domain = Domain::shared(ic, rc, pair.recode.is_some()).map_err(|other| {
            AttackError::TypeMismatch(Box::new(KeyTypeMismatch {
                intruder_file: file(intruder),
                intruder_name: pair.intruder.clone(),
                intruder_kind: ic.kind().to_string(),
                released_file: file(released),
                released_name: pair.released.clone(),
                released_kind: rc.kind().to_string(),
                message: format!(
                    "'{}' holds values that are not numbers{}; give both files the same type (schema), or recode the key",
                    other.name(),
                    intruder_table::params::not_a_number_note(other)
                ),
            }))
        })?;
        out.push(ResolvedKey {
            pair,
            intruder: ic,
            released: rc,
            domain,
        });
    }
    if intruder.nrows() == 0 {
        return Err(AttackError::Empty {
            file: file(intruder),
            which: "intruder",
        });
    }
    if released.nrows() == 0 {
        return Err(AttackError::Empty {
            file: file(released),
            which: "released",
        });
    }
    Ok(out)
}

/// Codes every resolved key of both files with one dictionary per key
/// ([`intruder_data::keys::encode_pairs`]): the intruder's keys and the released keys, code for
/// code comparable (set-valued keys with candidate masks on both sides).
pub fn encode(resolved: &[ResolvedKey<'_>]) -> (Keys, Keys) {
    let specs: Vec<PairSpec<'_>> = resolved
        .iter()
        .map(|k| PairSpec {
            intruder: k.intruder,
            released: k.released,
            domain: k.domain,
            recode: k.pair.recode.as_ref(),
        })
        .collect();
    encode_pairs(&specs)
}

/// The cells of one key as comparable tokens: row `i` holds `tokens[offsets[i]..offsets[i+1]]`
/// (one token for a scalar, the candidates of a set-valued cell; empty = missing).
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    /// `n + 1` offsets.
    pub offsets: Vec<u32>,
    /// Tokens: `f64` bits (numbers, `-0` folded to `0`) or interned text ids.
    pub tokens: Vec<u64>,
}

impl Tokens {
    /// Tokens of row `i` (empty when missing).
    #[inline]
    pub fn row(&self, i: usize) -> &[u64] {
        &self.tokens[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }
}

fn num_token(x: f64) -> u64 {
    if x == 0.0 {
        0f64.to_bits()
    } else {
        x.to_bits()
    }
}

/// Tokenizes a key on both sides with one shared dictionary, so equal values get equal tokens:
/// the plain encoding behind the O(n·m) reference definitions (e.g. [`crate::exact::naive_exact`]),
/// kept apart from the engines' coding ([`encode`]) so that equivalence tests compare two
/// independent paths.
pub fn tokenize(key: &ResolvedKey<'_>) -> (Tokens, Tokens) {
    let mut dict: HashMap<String, u64> = HashMap::new();
    let a = tokens_of(
        key.intruder,
        key.domain,
        key.pair.recode.as_ref(),
        &mut dict,
    );
    let b = tokens_of(key.released, key.domain, None, &mut dict);
    (a, b)
}

fn tokens_of(
    c: &Column,
    domain: Domain,
    recode: Option<&HashMap<String, String>>,
    dict: &mut HashMap<String, u64>,
) -> Tokens {
    let n = c.len();
    let mut intern = |s: &str| -> u64 {
        let s = recode.and_then(|r| r.get(s)).map_or(s, |v| v.as_str());
        if let Some(&t) = dict.get(s) {
            return t;
        }
        let t = dict.len() as u64;
        dict.insert(s.to_string(), t);
        t
    };
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u32);
    let mut tokens = Vec::with_capacity(n);
    // Per-level tokens for dictionary-encoded columns.
    let level_tokens: Option<Vec<u64>> = c.levels().map(|levels| {
        levels
            .iter()
            .map(|l| match domain {
                Domain::Number => num_token(l.trim().parse::<f64>().unwrap_or(f64::NAN)),
                Domain::Text => intern(l),
            })
            .collect()
    });
    for i in 0..n {
        if !c.is_missing(i) {
            match (c.data(), &level_tokens) {
                (ColumnData::Categorical { codes, .. }, Some(lt)) => {
                    tokens.push(lt[codes[i] as usize])
                }
                (ColumnData::Set { .. }, Some(lt)) => {
                    for &code in c.set_items(i) {
                        tokens.push(lt[code as usize]);
                    }
                }
                _ => match domain {
                    Domain::Number => tokens.push(num_token(c.as_f64(i).unwrap_or(f64::NAN))),
                    Domain::Text => {
                        let text = c.text(i).unwrap_or_default();
                        tokens.push(intern(&text));
                    }
                },
            }
        }
        offsets.push(tokens.len() as u32);
    }
    Tokens { offsets, tokens }
}
