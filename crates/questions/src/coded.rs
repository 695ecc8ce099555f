//! Columns of several tables in one encoding, the way anonymeter's evaluators see a data frame:
//! a column is numeric (integer or float: compared by value, NaN = missing) or not (categorical,
//! text, set-valued: compared by label through one dictionary shared by the tables), and must be
//! the same in every table.

use std::collections::HashMap;

use intruder_table::{Column, ColumnData, Kind, Table};
use rayon::prelude::*;

use crate::error::QuestionError;

/// The code of a missing category.
pub(crate) const MISSING: u32 = u32::MAX;

/// The values of one column in each of several tables.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Coded {
    /// Numbers, one vector per table; NaN is missing.
    Numbers(Vec<Vec<f64>>),
    /// Category codes from one dictionary shared by the tables, one vector per table;
    /// [`MISSING`] is missing.
    Codes(Vec<Vec<u32>>),
}

impl Coded {
    /// Whether the column is numeric.
    pub(crate) fn is_numeric(&self) -> bool {
        matches!(self, Coded::Numbers(_))
    }
}

/// A table with the name it goes by in messages (`original`, `control set`, `release`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Named<'a> {
    /// The table.
    pub table: &'a Table,
    /// What it is.
    pub which: &'static str,
}

impl Named<'_> {
    /// The file the table came from, for messages.
    pub(crate) fn file(&self) -> String {
        self.table.source().to_string()
    }
}

/// How a column's kind is named in messages.
fn kind_phrase(kind: Kind) -> String {
    if kind.is_numeric() {
        format!("numeric ({kind})")
    } else {
        kind.to_string()
    }
}

/// Column `name` of every table in one encoding; every table must have it (callers check
/// first) and it must be numeric in all or in none.
pub(crate) fn code_column(name: &str, tables: &[Named<'_>]) -> Result<Coded, QuestionError> {
    let columns: Vec<&Column> = tables
        .iter()
        .map(|t| {
            t.table
                .column(name)
                .expect("the caller checked that every table has the column")
        })
        .collect();
    let numeric = columns[0].kind().is_numeric();
    if let Some(k) = columns
        .iter()
        .position(|c| c.kind().is_numeric() != numeric)
    {
        return Err(QuestionError::KindMismatch {
            column: name.to_string(),
            file: tables[0].file(),
            kind: kind_phrase(columns[0].kind()),
            other_file: tables[k].file(),
            other_kind: kind_phrase(columns[k].kind()),
        });
    }
    if numeric {
        let mut out = Vec::with_capacity(columns.len());
        for (c, t) in columns.iter().zip(tables) {
            let values: Vec<f64> = (0..c.len())
                .map(|i| c.as_f64(i).unwrap_or(f64::NAN))
                .collect();
            if let Some(i) = values
                .iter()
                .enumerate()
                .position(|(i, v)| !c.is_missing(i) && !v.is_finite())
            {
                return Err(QuestionError::NotFinite {
                    file: t.file(),
                    column: name.to_string(),
                    row: i + 1,
                    value: values[i],
                });
            }
            out.push(values);
        }
        return Ok(Coded::Numbers(out));
    }
    let mut dictionary: HashMap<String, u32> = HashMap::new();
    let mut code_of = |label: &str| -> u32 {
        if let Some(&c) = dictionary.get(label) {
            return c;
        }
        let c = dictionary.len() as u32;
        dictionary.insert(label.to_string(), c);
        c
    };
    let mut out = Vec::with_capacity(columns.len());
    for c in &columns {
        let codes: Vec<u32> = match c.data() {
            ColumnData::Categorical { codes, levels } => {
                let shared: Vec<u32> = levels.iter().map(|l| code_of(l)).collect();
                codes
                    .iter()
                    .enumerate()
                    .map(|(i, &k)| {
                        if c.is_missing(i) {
                            MISSING
                        } else {
                            shared[k as usize]
                        }
                    })
                    .collect()
            }
            _ => (0..c.len())
                .map(|i| c.text(i).map_or(MISSING, |t| code_of(&t)))
                .collect(),
        };
        out.push(codes);
    }
    Ok(Coded::Codes(out))
}

/// The rows of `table` that are not an exact copy of an earlier row (over all its columns; two
/// missing cells are equal), in order: pandas' `drop_duplicates`, polars' `unique(maintain_order
/// = True)`. `None` when no row repeats another.
pub(crate) fn distinct_rows(table: &Table) -> Option<Vec<usize>> {
    let n = table.nrows();
    // One exact 64-bit key per cell (numbers by their bits, labels by their index in a
    // dictionary of the column; a missing cell by its own key, told apart by the mask).
    let keys: Vec<Vec<u64>> = table.columns().par_iter().map(cell_keys).collect();
    let missing = |c: &Column, i: usize| u64::from(c.is_missing(i));
    let mut hashes = vec![0x243f_6a88_85a3_08d3u64; n];
    for (k, c) in keys.iter().zip(table.columns()) {
        for (i, h) in hashes.iter_mut().enumerate() {
            *h = (*h ^ k[i] ^ (missing(c, i) << 63))
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .rotate_left(31);
        }
    }
    let same = |a: usize, b: usize| {
        keys.iter()
            .zip(table.columns())
            .all(|(k, c)| k[a] == k[b] && c.is_missing(a) == c.is_missing(b))
    };
    // The first row of each hash; rows whose hash is taken are compared cell by cell.
    let mut first: foldhash::HashMap<u64, usize> = foldhash::HashMap::default();
    first.reserve(n);
    let mut repeated: Vec<bool> = vec![false; n];
    let mut collided: Vec<usize> = Vec::new();
    for (i, &h) in hashes.iter().enumerate() {
        match first.entry(h) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(i);
            }
            std::collections::hash_map::Entry::Occupied(e) => {
                if same(*e.get(), i) {
                    repeated[i] = true;
                } else {
                    collided.push(i);
                }
            }
        }
    }
    // Rows that share a hash with a different row: compared with every earlier such row.
    for (j, &i) in collided.iter().enumerate() {
        if collided[..j].iter().any(|&e| !repeated[e] && same(e, i)) {
            repeated[i] = true;
        }
    }
    if !repeated.contains(&true) {
        return None;
    }
    Some((0..n).filter(|&i| !repeated[i]).collect())
}

/// One exact 64-bit key per cell of `c` (missing cells: 0; the mask tells them apart).
fn cell_keys(c: &Column) -> Vec<u64> {
    let n = c.len();
    match c.data() {
        ColumnData::Integer(v) => (0..n)
            .map(|i| if c.is_missing(i) { 0 } else { v[i] as u64 })
            .collect(),
        ColumnData::Float(v) => (0..n)
            .map(|i| {
                if c.is_missing(i) || v[i] == 0.0 {
                    0
                } else {
                    v[i].to_bits()
                }
            })
            .collect(),
        ColumnData::Categorical { codes, .. } => (0..n)
            .map(|i| {
                if c.is_missing(i) {
                    0
                } else {
                    u64::from(codes[i])
                }
            })
            .collect(),
        _ => {
            let mut seen: HashMap<String, u64> = HashMap::new();
            (0..n)
                .map(|i| match c.text(i) {
                    None => 0,
                    Some(t) => {
                        let next = seen.len() as u64;
                        *seen.entry(t.into_owned()).or_insert(next)
                    }
                })
                .collect()
        }
    }
}

/// Checks that `table` has every column of `names`; the error names the file, the column and a
/// near name.
pub(crate) fn require_columns(
    table: Named<'_>,
    names: &[String],
    role: &'static str,
) -> Result<(), QuestionError> {
    for name in names {
        if table.table.position(name).is_none() {
            let columns = table.table.names();
            let hint = intruder_table::params::did_you_mean(name, columns.iter().copied());
            return Err(QuestionError::MissingColumn {
                file: table.file(),
                which: table.which,
                column: name.clone(),
                role,
                hint,
            });
        }
    }
    Ok(())
}

/// Checks that the control set has exactly the original's columns.
pub(crate) fn check_control_columns(
    original: &Table,
    control: &Table,
) -> Result<(), QuestionError> {
    let missing: Vec<String> = original
        .names()
        .into_iter()
        .filter(|n| control.position(n).is_none())
        .map(str::to_string)
        .collect();
    let extra: Vec<String> = control
        .names()
        .into_iter()
        .filter(|n| original.position(n).is_none())
        .map(str::to_string)
        .collect();
    if missing.is_empty() && extra.is_empty() {
        return Ok(());
    }
    Err(QuestionError::ControlColumns {
        control: control.source().to_string(),
        original: original.source().to_string(),
        missing,
        extra,
    })
}

/// The original, the control set and the release under the names messages give them, once
/// checked: the control set has the original's columns and no table is empty.
pub(crate) fn question_tables<'a>(
    original: &'a Table,
    control: &'a Table,
    released: &'a Table,
) -> Result<[Named<'a>; 3], QuestionError> {
    let tables = [
        Named {
            table: original,
            which: "original",
        },
        Named {
            table: control,
            which: "control set",
        },
        Named {
            table: released,
            which: "release",
        },
    ];
    check_control_columns(original, control)?;
    for t in tables {
        require_records(t)?;
    }
    Ok(tables)
}

/// Checks that a table has records.
pub(crate) fn require_records(table: Named<'_>) -> Result<(), QuestionError> {
    if table.table.nrows() == 0 {
        return Err(QuestionError::Empty {
            file: table.file(),
            which: table.which,
        });
    }
    Ok(())
}

/// Checks that `n_attacks` records can be drawn from a table of `rows` records without
/// replacement.
pub(crate) fn require_attacks(
    table: Named<'_>,
    rows: usize,
    n_attacks: usize,
    purpose: &'static str,
    deduplicated: bool,
) -> Result<(), QuestionError> {
    if n_attacks > rows {
        return Err(QuestionError::TooManyAttacks {
            file: table.file(),
            which: table.which,
            n_attacks,
            rows,
            after: if deduplicated {
                " (after dropping duplicate records)"
            } else {
                ""
            },
            purpose,
        });
    }
    Ok(())
}
