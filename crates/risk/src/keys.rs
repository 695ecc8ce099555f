//! Key variables turned into dense integer codes, the missing-value policies, and the
//! set-valued matching rules.

use std::fmt;
use std::str::FromStr;

use rayon::prelude::*;

use intruder_data::{Column, ColumnData, Kind, SetCode, Table};

use crate::error::RiskError;

/// How missing key values are treated (METHODS.md §1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissingPolicy {
    /// Records missing any key are dropped, then classes are counted (Mulder's listwise deletion).
    #[default]
    Listwise,
    /// Missing is one more category of each key.
    AsValue,
    /// Missing matches anything (Mulder's n_match; what sdcMicro's `freqCalc` does with `NA`).
    Wildcard,
}

impl MissingPolicy {
    /// Every policy.
    pub const ALL: [MissingPolicy; 3] = [
        MissingPolicy::Listwise,
        MissingPolicy::AsValue,
        MissingPolicy::Wildcard,
    ];

    /// The command-line name.
    pub fn as_str(self) -> &'static str {
        match self {
            MissingPolicy::Listwise => "listwise",
            MissingPolicy::AsValue => "as-value",
            MissingPolicy::Wildcard => "wildcard",
        }
    }
}

impl fmt::Display for MissingPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MissingPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        MissingPolicy::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown missing-value policy '{s}'; expected listwise, as-value or wildcard"
                )
            })
    }
}

/// How set-valued cells (several candidate values) match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SetMatch {
    /// Two sets match when they intersect; a scalar matches a set containing it. For equivalence
    /// classes (listwise, as-value) the set as a whole is the value.
    #[default]
    Overlap,
    /// The first candidate is the record's value (Mulder's choice for his Table 2). Under the
    /// wildcard policy the query record's first candidate must be among the other record's
    /// candidates.
    First,
}

impl SetMatch {
    /// The command-line name.
    pub fn as_str(self) -> &'static str {
        match self {
            SetMatch::Overlap => "overlap",
            SetMatch::First => "first",
        }
    }
}

impl FromStr for SetMatch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "overlap" => Ok(SetMatch::Overlap),
            "first" => Ok(SetMatch::First),
            _ => Err(format!(
                "unknown set matching '{s}'; expected overlap or first"
            )),
        }
    }
}

/// Set-valued key: candidate sets as bit masks over the levels.
pub(crate) struct SetMasks {
    /// What a stored record offers: all its candidates.
    pub stored: Vec<u64>,
    /// What a query record asks for: all candidates (overlap) or the first one (first).
    pub query: Vec<u64>,
}

/// Code of a missing cell in [`KeyData::codes`].
pub(crate) const MISSING: u32 = u32::MAX;

/// The key variables of a table as dense codes.
pub(crate) struct KeyData {
    /// Per key, one dense code per row; [`MISSING`] at missing cells.
    pub codes: Vec<Vec<u32>>,
    /// Per key, an upper bound on codes + 1.
    pub card: Vec<u32>,
    /// Per key, candidate masks when the key is set-valued.
    pub sets: Vec<Option<SetMasks>>,
    pub n: usize,
}

impl KeyData {
    /// Encodes `names` of `table`. With `wildcard`, set-valued keys get masks and a code that
    /// separates cells that differ as queries or as stored values.
    pub fn new(
        table: &Table,
        names: &[String],
        set_match: SetMatch,
        wildcard: bool,
    ) -> Result<Self, RiskError> {
        let file = table.source().display().to_string();
        if names.is_empty() {
            return Err(RiskError::Param(
                "no key variables given: name at least one with --keys".into(),
            ));
        }
        for (i, n) in names.iter().enumerate() {
            if names[..i].contains(n) {
                return Err(RiskError::Param(format!("key '{n}' is named twice")));
            }
        }
        if names.len() > 64 {
            return Err(RiskError::Param(format!(
                "{} keys given; at most 64 are supported",
                names.len()
            )));
        }
        let n = table.nrows();
        if n == 0 {
            return Err(RiskError::Param(format!(
                "{file}: the file has a header but no records"
            )));
        }
        if n >= u32::MAX as usize {
            return Err(RiskError::Param(format!(
                "{file}: {n} records; at most {} are supported",
                u32::MAX - 1
            )));
        }
        let mut columns = Vec::with_capacity(names.len());
        for name in names {
            let c = table.column(name)?;
            if c.missing_count() == n {
                return Err(RiskError::Column {
                    file: file.clone(),
                    column: name.clone(),
                    message: format!(
                        "every one of the {n} values is missing; a key needs observed values"
                    ),
                });
            }
            columns.push(c);
        }
        // Each key is encoded on its own, in parallel (the order of the results is the keys').
        type Encoded = (Vec<u32>, u32, Option<SetMasks>);
        let encoded: Vec<Result<Encoded, RiskError>> = columns
            .par_iter()
            .map(|c| -> Result<Encoded, RiskError> {
                if c.kind() != Kind::Set {
                    let (cs, k) = fast_codes(c);
                    return Ok((with_missing(cs, c), k, None));
                }
                let nlev = c.levels().map_or(0, <[String]>::len);
                if wildcard && nlev > 64 {
                    return Err(RiskError::Column {
                        file: file.clone(),
                        column: c.name().to_string(),
                        message: format!(
                            "set-valued key with {nlev} levels; matching supports at most 64"
                        ),
                    });
                }
                if wildcard {
                    let whole = c.dense_codes(SetCode::WholeSet);
                    let first = c.dense_codes(SetCode::First);
                    let fc = first.cardinality.max(1) as u64;
                    let combined: Vec<u64> = whole
                        .codes
                        .iter()
                        .zip(&first.codes)
                        .map(|(&w, &f)| w as u64 * fc + f as u64)
                        .collect();
                    let (dense, k) = densify(&combined);
                    let stored: Vec<u64> = (0..n).map(|i| mask(c.set_items(i))).collect();
                    let query = match set_match {
                        SetMatch::Overlap => stored.clone(),
                        SetMatch::First => (0..n)
                            .map(|i| mask(&c.set_items(i)[..c.set_items(i).len().min(1)]))
                            .collect(),
                    };
                    Ok((with_missing(dense, c), k, Some(SetMasks { stored, query })))
                } else {
                    let mode = match set_match {
                        SetMatch::Overlap => SetCode::WholeSet,
                        SetMatch::First => SetCode::First,
                    };
                    let d = c.dense_codes(mode);
                    Ok((with_missing(d.codes, c), d.cardinality, None))
                }
            })
            .collect();
        let mut codes = Vec::with_capacity(names.len());
        let mut card = Vec::with_capacity(names.len());
        let mut sets = Vec::with_capacity(names.len());
        for e in encoded {
            let (c, k, s) = e?;
            codes.push(c);
            card.push(k);
            sets.push(s);
        }
        Ok(KeyData {
            codes,
            card,
            sets,
            n,
        })
    }

    /// Bit mask of the observed keys of `row`.
    pub fn pattern(&self, row: usize) -> u64 {
        let mut p = 0u64;
        for (k, codes) in self.codes.iter().enumerate() {
            if codes[row] != MISSING {
                p |= 1 << k;
            }
        }
        p
    }
}

fn with_missing(mut codes: Vec<u32>, c: &Column) -> Vec<u32> {
    for i in c.missing().ones() {
        codes[i] = MISSING;
    }
    codes
}

fn mask(items: &[u32]) -> u64 {
    items.iter().fold(0u64, |m, &c| m | (1u64 << c))
}

/// Dense codes for a column: integers with a small range are offset from their minimum (no
/// sort needed); everything else goes through [`Column::dense_codes`].
fn fast_codes(c: &Column) -> (Vec<u32>, u32) {
    if let ColumnData::Integer(v) = c.data() {
        // Over every cell first (a branch-free loop); the placeholders at missing cells can only
        // widen the range, so look at observed cells alone when that makes it too wide.
        // One pass for both bounds, in independent lanes the compiler can vectorise.
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for chunk in v.chunks(8) {
            for &x in chunk {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
        if hi as i128 - lo as i128 >= 1 << 24 && c.missing_count() > 0 {
            let words = c.missing().words();
            (lo, hi) = (i64::MAX, i64::MIN);
            for (i, &x) in v.iter().enumerate() {
                if words[i >> 6] >> (i & 63) & 1 == 0 {
                    lo = lo.min(x);
                    hi = hi.max(x);
                }
            }
        }
        if lo <= hi && (hi as i128 - lo as i128) < (1 << 24) {
            // Missing cells hold placeholders: clamp so the subtraction stays in range; the
            // caller marks them missing.
            let codes = v.iter().map(|&x| (x.clamp(lo, hi) - lo) as u32).collect();
            return (codes, (hi - lo + 1) as u32);
        }
    }
    let d = c.dense_codes(SetCode::WholeSet);
    (d.codes, d.cardinality)
}

/// Dense codes `0..k` for arbitrary u64 values, in order of first appearance.
pub(crate) fn densify(values: &[u64]) -> (Vec<u32>, u32) {
    let mut map: std::collections::HashMap<u64, u32, foldhash::fast::FixedState> =
        std::collections::HashMap::with_capacity_and_hasher(
            values.len().min(1 << 20),
            Default::default(),
        );
    let codes = values
        .iter()
        .map(|&v| {
            let next = map.len() as u32;
            *map.entry(v).or_insert(next)
        })
        .collect();
    (codes, map.len() as u32)
}
