//! Differences in means, variances and correlations; IL1s.

use intruder_table::Table;
use intruder_table::numeric::Moments;
use serde::Serialize;

use crate::{UtilityError, numeric};

/// Moments of one variable in both files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariableDiff {
    /// The variable.
    pub variable: String,
    /// Mean of the original's observed values.
    pub mean_original: f64,
    /// Mean of the masked file's observed values.
    pub mean_masked: f64,
    /// masked − original.
    pub mean_diff: f64,
    /// (masked − original) / |original| (`null` when the original mean is 0).
    pub mean_rel_diff: Option<f64>,
    /// Sample variance (n − 1) of the original.
    pub var_original: f64,
    /// Sample variance (n − 1) of the masked file.
    pub var_masked: f64,
    /// masked − original.
    pub var_diff: f64,
    /// (masked − original) / original (`null` when the original variance is 0).
    pub var_rel_diff: Option<f64>,
}

/// Mean and sample variance (n − 1; `NaN` below two values) of the observed values.
fn mean_var(v: &[f64]) -> (f64, f64) {
    let m = Moments::observed(v.iter().copied());
    (m.mean, m.sample_var().unwrap_or(f64::NAN))
}

fn rel(d: f64, base: f64) -> Option<f64> {
    (base != 0.0).then(|| d / base.abs())
}

/// Means and variances (n − 1) of each variable in both files, over observed values.
pub fn moments(
    original: &Table,
    masked: &Table,
    vars: &[String],
) -> Result<Vec<VariableDiff>, UtilityError> {
    vars.iter()
        .map(|v| {
            let (mo, vo) = mean_var(&numeric(original, v)?);
            let (mm, vm) = mean_var(&numeric(masked, v)?);
            Ok(VariableDiff {
                variable: v.clone(),
                mean_original: mo,
                mean_masked: mm,
                mean_diff: mm - mo,
                mean_rel_diff: rel(mm - mo, mo),
                var_original: vo,
                var_masked: vm,
                var_diff: vm - vo,
                var_rel_diff: rel(vm - vo, vo),
            })
        })
        .collect()
}

/// Pearson correlation matrices of both files and their differences.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CorrelationDiff {
    /// The variables, in matrix order.
    pub variables: Vec<String>,
    /// Correlations in the original (pairwise complete; `NaN` for a constant variable).
    pub original: Vec<Vec<f64>>,
    /// Correlations in the masked file.
    pub masked: Vec<Vec<f64>>,
    /// Largest |masked − original| over pairs i < j.
    pub max_abs_diff: f64,
    /// Mean |masked − original| over pairs i < j.
    pub mean_abs_diff: f64,
}

fn corr(a: &[f64], b: &[f64]) -> f64 {
    let rows: Vec<usize> = (0..a.len())
        .filter(|&i| !a[i].is_nan() && !b[i].is_nan())
        .collect();
    let n = rows.len() as f64;
    let ma = rows.iter().map(|&i| a[i]).sum::<f64>() / n;
    let mb = rows.iter().map(|&i| b[i]).sum::<f64>() / n;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for &i in &rows {
        sab += (a[i] - ma) * (b[i] - mb);
        saa += (a[i] - ma).powi(2);
        sbb += (b[i] - mb).powi(2);
    }
    sab / (saa * sbb).sqrt()
}

fn corr_matrix(t: &Table, vars: &[String]) -> Result<Vec<Vec<f64>>, UtilityError> {
    let cols: Vec<Vec<f64>> = vars
        .iter()
        .map(|v| numeric(t, v))
        .collect::<Result<_, _>>()?;
    let p = cols.len();
    Ok((0..p)
        .map(|i| {
            (0..p)
                .map(|j| {
                    if i == j {
                        1.0
                    } else {
                        corr(&cols[i], &cols[j])
                    }
                })
                .collect()
        })
        .collect())
}

/// Correlation differences (needs at least two variables).
pub fn correlations(
    original: &Table,
    masked: &Table,
    vars: &[String],
) -> Result<CorrelationDiff, UtilityError> {
    if vars.len() < 2 {
        return Err(UtilityError::Mismatch(
            "correlations need at least two variables".into(),
        ));
    }
    let o = corr_matrix(original, vars)?;
    let m = corr_matrix(masked, vars)?;
    let mut diffs = Vec::new();
    for i in 0..vars.len() {
        for j in i + 1..vars.len() {
            diffs.push((m[i][j] - o[i][j]).abs());
        }
    }
    Ok(CorrelationDiff {
        variables: vars.to_vec(),
        max_abs_diff: diffs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        mean_abs_diff: diffs.iter().sum::<f64>() / diffs.len() as f64,
        original: o,
        masked: m,
    })
}

/// IL1s as sdcMicro's `dUtility(obj, method = "IL1")` computes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Il1s {
    /// sdcMicro's IL1s: Σ_j Σ_i |x_ij − x'_ij| / (√2 · S_j), **a sum over cells, not divided by
    /// n·p**; S_j is the standard deviation (n − 1) of variable j in the original.
    pub total: f64,
    /// `total` divided by the number of compared cells (Mateo-Sanz et al.'s mean form).
    pub per_cell: f64,
    /// Cells compared (observed in both files).
    pub cells: usize,
    /// Each variable's share of `total`.
    pub per_variable: Vec<(String, f64)>,
    /// Each variable's compared cells (observed in both files), in the order of `per_variable`.
    pub per_variable_cells: Vec<usize>,
}

/// IL1s over `vars`; the tables must have the same records in the same order.
pub fn il1s(original: &Table, masked: &Table, vars: &[String]) -> Result<Il1s, UtilityError> {
    if original.nrows() != masked.nrows() {
        return Err(UtilityError::Mismatch(format!(
            "IL1s compares records one to one, but {} has {} records and {} has {}; when the masking removed or sampled records, subset the original with the change log's kept rows (intruder utility --log)",
            original.source(),
            original.nrows(),
            masked.source(),
            masked.nrows()
        )));
    }
    let mut total = 0.0;
    let mut cells = 0;
    let mut per_variable = Vec::new();
    let mut per_variable_cells = Vec::new();
    for v in vars {
        let x = numeric(original, v)?;
        let y = numeric(masked, v)?;
        let (_, var) = mean_var(&x);
        let s = var.sqrt();
        if !(s > 0.0) {
            return Err(UtilityError::Column {
                file: original.source().to_string(),
                column: v.clone(),
                message: "has no spread (standard deviation 0 or undefined); IL1s divides by it"
                    .into(),
            });
        }
        let mut sum = 0.0;
        let mut var_cells = 0;
        for i in 0..x.len() {
            if !x[i].is_nan() && !y[i].is_nan() {
                sum += (x[i] - y[i]).abs() / (std::f64::consts::SQRT_2 * s);
                var_cells += 1;
            }
        }
        cells += var_cells;
        total += sum;
        per_variable.push((v.clone(), sum));
        per_variable_cells.push(var_cells);
    }
    Ok(Il1s {
        total,
        per_cell: if cells > 0 {
            total / cells as f64
        } else {
            f64::NAN
        },
        cells,
        per_variable,
        per_variable_cells,
    })
}
