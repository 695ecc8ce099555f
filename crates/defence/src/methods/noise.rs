//! Additive noise (Brand 2002; sdcMicro `addNoise`). With `noise` = a percentage and α = noise/100:
//! - uncorrelated: x_j + e_j, e_j ~ N(0, α·Var(x_j)) independently per variable;
//! - correlated: x + e, e ~ N(0, α·Σ) with Σ the covariance matrix of the variables (complete
//!   records), so the noise keeps the correlation structure (Kim 1986; Brand 2002 eq. 4) and the
//!   masked covariance is (1 + α)·Σ in expectation.
//!
//! Variances use n − 1. Missing cells stay missing. Draws go row by row, variable by variable.
//! The output columns are floats.

use intruder_table::{Column, Table};
use linfa_linalg::cholesky::Cholesky;
use ndarray::Array2;
use rand::Rng;
use rand_chacha::ChaCha20Rng;
use rand_distr::StandardNormal;

use crate::common::{check_columns, numeric};
use crate::{Defence, DefenceError, Masked};
use intruder_table::params::{ColumnNeed, Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "noise";

/// Parameters of additive noise.
#[derive(Debug, Clone, PartialEq)]
pub struct Noise {
    /// Numeric variables.
    pub(crate) variables: Vec<String>,
    /// Noise variance as a percentage of the variable's variance (> 0).
    pub(crate) noise: f64,
    /// Correlated noise (covariance proportional to the data's).
    pub(crate) correlated: bool,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new("variables", ParamKind::Columns, "numeric variables")
    .example(r#"["total_wealth"]"#)
        .required()
        .needs(ColumnNeed::Numeric),
    ParamSpec::new(
        "noise",
        ParamKind::Number,
        "noise variance as a PERCENTAGE of the data's variance (α = noise/100), at most 1e6 (a million per cent)",
    )
    .example("10")
    .required()
    .within(Range::left_open(0.0, 1e6)),
    ParamSpec::new(
        "correlated",
        ParamKind::Bool,
        "noise covariance α·Σ (the data's covariance) instead of α·diag(Σ)",
    )
    .default_value("false"),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "additive noise, uncorrelated or correlated",
    reference: "Brand (2002); Kim (1986); sdcMicro addNoise",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let variables: Option<Vec<String>> = r.require("variables");
    let noise: Option<f64> = r.require("noise");
    let correlated = r.get_or("correlated", false);
    if let Some(v) = &variables {
        r.check(
            "variables",
            !v.is_empty(),
            "must name at least one variable",
        );
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(Noise {
        variables: variables?,
        noise: noise?,
        correlated,
    }))
}

/// Lower-triangular Cholesky factor of a symmetric matrix (`linfa-linalg`), or `None` when it
/// is not positive definite: a pivot L_ii² at or below 1e-12·|a_ii| (a constant or collinear
/// variable leaves a rounding-sized pivot rather than a negative one) counts as singular.
pub(crate) fn cholesky(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let p = a.len();
    let m = Array2::from_shape_fn((p, p), |(i, j)| a[i][j]);
    let l = m.cholesky().ok()?;
    for i in 0..p {
        let d = l[(i, i)] * l[(i, i)];
        if !(d > 1e-12 * a[i][i].abs().max(1e-300)) {
            return None;
        }
    }
    Some(l.outer_iter().map(|row| row.to_vec()).collect())
}

/// Covariance matrix (n − 1) over rows where every variable is observed.
pub(crate) fn covariance(cols: &[Vec<f64>]) -> (Vec<Vec<f64>>, usize) {
    let p = cols.len();
    let n = cols.first().map_or(0, Vec::len);
    let rows: Vec<usize> = (0..n)
        .filter(|&i| cols.iter().all(|c| !c[i].is_nan()))
        .collect();
    let m = rows.len();
    let means: Vec<f64> = cols
        .iter()
        .map(|c| rows.iter().map(|&i| c[i]).sum::<f64>() / m.max(1) as f64)
        .collect();
    let mut s = vec![vec![0.0; p]; p];
    for a in 0..p {
        for b in 0..=a {
            let v = rows
                .iter()
                .map(|&i| (cols[a][i] - means[a]) * (cols[b][i] - means[b]))
                .sum::<f64>()
                / (m.max(2) - 1) as f64;
            s[a][b] = v;
            s[b][a] = v;
        }
    }
    (s, m)
}

impl Defence for Noise {
    fn method(&self) -> &'static str {
        NAME
    }

    fn apply(&self, table: &Table, rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_columns(table, NAME, &self.variables)?;
        let mut cols = Vec::new();
        for v in &self.variables {
            cols.push(numeric(table, NAME, v)?);
        }
        let alpha = self.noise / 100.0;
        let p = cols.len();
        let (cov, m) = covariance(&cols);
        if m < 2 {
            return Err(DefenceError::Infeasible {
                method: NAME,
                message: format!(
                    "{m} records have every one of {} observed; at least 2 are needed to estimate the covariance",
                    self.variables.join(", ")
                ),
            });
        }
        let scaled: Vec<Vec<f64>> = (0..p)
            .map(|a| {
                (0..p)
                    .map(|b| {
                        if self.correlated || a == b {
                            alpha * cov[a][b]
                        } else {
                            0.0
                        }
                    })
                    .collect()
            })
            .collect();
        let l = if self.correlated {
            cholesky(&scaled).ok_or_else(|| DefenceError::Infeasible {
                method: NAME,
                message: format!(
                    "the covariance matrix of {} is not positive definite (a constant or collinear variable); use uncorrelated noise or drop the variable",
                    self.variables.join(", ")
                ),
            })?
        } else {
            (0..p)
                .map(|a| {
                    (0..p)
                        .map(|b| if a == b { scaled[a][a].sqrt() } else { 0.0 })
                        .collect()
                })
                .collect()
        };
        let n = table.nrows();
        let mut z = vec![0.0; p];
        for i in 0..n {
            for zj in z.iter_mut() {
                *zj = rng.sample(StandardNormal);
            }
            for a in 0..p {
                if cols[a][i].is_nan() {
                    continue;
                }
                let e: f64 = (0..=a).map(|b| l[a][b] * z[b]).sum();
                cols[a][i] += e;
            }
        }
        let mut out = table.clone();
        for (v, c) in self.variables.iter().zip(&cols) {
            let like = table.column(v)?;
            let vals: Vec<Option<f64>> = c.iter().map(|x| (!x.is_nan()).then_some(*x)).collect();
            out.replace(Column::float(v.as_str(), like.role(), &vals))?;
        }
        Ok(Masked {
            table: out,
            kept_rows: None,
            notes: vec![format!(
                "noise covariance = {alpha} × data covariance ({} complete records)",
                m
            )],
            details: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::cholesky;

    #[test]
    fn cholesky_of_a_known_matrix() {
        // A = L·Lᵀ with L = [[2, 0, 0], [6, 1, 0], [-8, 5, 3]].
        let a = vec![
            vec![4.0, 12.0, -16.0],
            vec![12.0, 37.0, -43.0],
            vec![-16.0, -43.0, 98.0],
        ];
        let l = cholesky(&a).unwrap();
        let want = [[2.0, 0.0, 0.0], [6.0, 1.0, 0.0], [-8.0, 5.0, 3.0]];
        for i in 0..3 {
            for j in 0..3 {
                assert!(
                    (l[i][j] - want[i][j]).abs() < 1e-12,
                    "L[{i}][{j}] = {}",
                    l[i][j]
                );
            }
        }
    }

    #[test]
    fn collinear_or_indefinite_covariances_have_no_factor() {
        // The third variable is the sum of the first two.
        let s = vec![
            vec![1.0, 2.0, 3.0],
            vec![2.0, 5.0, 7.0],
            vec![3.0, 7.0, 10.0],
        ];
        assert!(cholesky(&s).is_none());
        assert!(cholesky(&[vec![1.0, 2.0], vec![2.0, 1.0]]).is_none());
        // A pivot below 1e-12·a_ii counts as zero; above it does not.
        assert!(cholesky(&[vec![1.0, 1.0], vec![1.0, 1.0 + 1e-14]]).is_none());
        assert!(cholesky(&[vec![1.0, 1.0], vec![1.0, 1.0 + 1e-9]]).is_some());
    }
}
