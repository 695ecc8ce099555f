//! Column helpers shared by the methods.

use intruder_data::{Bitmap, Column, ColumnData, Kind, Table};

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
        Kind::Integer | Kind::Float => Ok((0..c.len())
            .map(|i| c.as_f64(i).unwrap_or(f64::NAN))
            .collect()),
        k => Err(DefenceError::Column {
            method,
            column: name.to_string(),
            message: format!("is {k}; expected a numeric (integer or float) column"),
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

/// Sample mean and standard deviation (n − 1) of the observed values.
pub(crate) fn mean_sd(values: &[f64]) -> (f64, f64, usize) {
    let obs: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    let n = obs.len();
    if n == 0 {
        return (f64::NAN, f64::NAN, 0);
    }
    let mean = obs.iter().sum::<f64>() / n as f64;
    let var = if n > 1 {
        obs.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64
    } else {
        0.0
    };
    (mean, var.sqrt(), n)
}

/// Dense codes of the given columns (missing cells get code 0; see the masks).
pub(crate) fn key_codes(table: &Table, names: &[String]) -> Result<Vec<Vec<u32>>, DefenceError> {
    names
        .iter()
        .map(|n| {
            Ok(table
                .column(n)?
                .dense_codes(intruder_data::SetCode::WholeSet)
                .codes)
        })
        .collect()
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
