//! Column helpers shared by the methods.

use intruder_table::keys::{Keys, PatternIndex, SetCoding, tuple_ids};
use intruder_table::numeric::Moments;
use intruder_table::{Bitmap, Column, ColumnData, Kind, Table};

use crate::DefenceError;

/// The observed values of a numeric column (`NaN` where missing); an error names the column and
/// its kind when it is not integer or float.
pub(crate) fn numeric(
    table: &Table,
    method: &'static str,
    name: &str,
) -> Result<Vec<f64>, DefenceError> {
    let c = table.column(name)?;
    match c.kind() {
        Kind::Integer | Kind::Float => Ok(intruder_table::numeric::values(c)),
        k => Err(DefenceError::Column {
            method,
            column: name.to_string(),
            message: format!(
                "is {k}; expected a numeric (integer or float) column{}",
                match intruder_table::params::first_not_finite(c) {
                    Some((i, t)) =>
                        format!(" (row {} holds '{t}', which is not a finite number)", i + 1),
                    None => String::new(),
                }
            ),
        }),
    }
}

/// A numeric column like `like` holding `values` (`NaN` = missing). It stays an integer column
/// when `like` is one and every value is a whole number that fits; otherwise it is a float.
pub(crate) fn numeric_like(like: &Column, values: &[f64]) -> Column {
    let mut missing = Bitmap::new(values.len());
    for (i, v) in values.iter().enumerate() {
        if v.is_nan() {
            missing.set(i);
        }
    }
    let integral = like.kind() == Kind::Integer
        && values
            .iter()
            .all(|v| v.is_nan() || (v.fract() == 0.0 && v.abs() < 9.0e15));
    let data = if integral {
        ColumnData::Integer(
            values
                .iter()
                .map(|v| if v.is_nan() { 0 } else { *v as i64 })
                .collect(),
        )
    } else {
        ColumnData::Float(values.to_vec())
    };
    Column::new(like.name(), like.role(), data, missing).expect("lengths agree by construction")
}

/// `col` with the cells at `rows` set missing.
pub(crate) fn suppress(col: &Column, rows: impl IntoIterator<Item = usize>) -> Column {
    let mut m = col.missing().clone();
    for r in rows {
        m.set(r);
    }
    Column::new(col.name(), col.role(), col.data().clone(), m).expect("same data, same length")
}

/// Checks that every name is a column of `table` and not repeated.
pub(crate) fn check_columns(
    table: &Table,
    method: &'static str,
    names: &[String],
) -> Result<(), DefenceError> {
    for (i, n) in names.iter().enumerate() {
        table.column(n)?;
        if names[..i].contains(n) {
            return Err(DefenceError::Column {
                method,
                column: n.clone(),
                message: "is named twice".into(),
            });
        }
    }
    Ok(())
}

/// Sample mean and standard deviation (n − 1; 0 for a single value) of the observed values,
/// and their number ([`Moments`]).
pub(crate) fn mean_sd(values: &[f64]) -> (f64, f64, usize) {
    let m = Moments::observed(values.iter().copied());
    if m.n == 0 {
        return (f64::NAN, f64::NAN, 0);
    }
    (m.mean, m.sample_sd().unwrap_or(0.0), m.n)
}

/// The key columns `names` coded once ([`Keys::encode`], set-valued cells as a whole). At most
/// 64 keys (one bit each in a missingness pattern).
pub(crate) fn key_codes(
    table: &Table,
    method: &'static str,
    names: &[String],
) -> Result<Keys, DefenceError> {
    if names.len() > 64 {
        return Err(DefenceError::Infeasible {
            method,
            message: format!("{} keys given; at most 64 are supported", names.len()),
        });
    }
    Ok(Keys::encode(table, names, SetCoding::Whole)?)
}

/// The stratum of each row on the columns `names` (missing a value of its own), numbered in
/// order of first appearance, and the number of strata.
pub(crate) fn strata_ids(
    table: &Table,
    names: &[String],
) -> Result<(Vec<u32>, usize), DefenceError> {
    let keys = Keys::encode(table, names, SetCoding::Whole)?;
    let codes: Vec<&[u32]> = keys.codes.iter().map(Vec::as_slice).collect();
    let (ids, k) = tuple_ids(&codes, false);
    Ok((ids, k as usize))
}

/// The missingness-pattern index of every record of `table` on `keys` ([`PatternIndex`]),
/// weighted when `weights` are given: wildcard frequencies, updatable as cells are suppressed.
pub(crate) fn key_index(
    table: &Table,
    method: &'static str,
    keys: &[String],
    weights: Option<&[f64]>,
) -> Result<PatternIndex, DefenceError> {
    let coded = key_codes(table, method, keys)?;
    Ok(PatternIndex::records(&coded, None, weights))
}

/// The wildcard frequency of every record of `table` on `keys`: the records that agree with it
/// on every key observed in both, itself included (sdcMicro's `kAnon` judgement, Mulder's
/// n_match).
pub fn wildcard_counts(table: &Table, keys: &[String]) -> Result<Vec<u32>, DefenceError> {
    let idx = key_index(table, "wildcard counts", keys, None)?;
    Ok(idx
        .self_join()
        .into_iter()
        .map(|(c, _)| c.min(u32::MAX as u64) as u32)
        .collect())
}

/// Positive finite weights of column `name`; an error names the column and the first bad row.
pub(crate) fn weights(
    table: &Table,
    method: &'static str,
    name: &str,
) -> Result<Vec<f64>, DefenceError> {
    let w = numeric(table, method, name)?;
    if let Some(i) = w.iter().position(|v| !(v.is_finite() && *v > 0.0)) {
        return Err(DefenceError::Column {
            method,
            column: name.to_string(),
            message: format!(
                "row {}: weight {} is missing or not positive; weights must be positive numbers",
                i + 1,
                w[i]
            ),
        });
    }
    Ok(w)
}
