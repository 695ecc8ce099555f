//! Regression models named in a formula, fitted on both files, and the overlap of their
//! coefficients' confidence intervals (Karr, Kohnen, Oganian, Reiter & Sanil 2006).
//!
//! - Linear: ordinary least squares from the normal equations (Cholesky of XᵀX);
//!   se = sqrt(σ̂²·diag((XᵀX)⁻¹)), σ̂² = RSS/(n − p); 95% intervals with Student's t on n − p df.
//! - Logistic: maximum likelihood by iteratively reweighted least squares (Newton's method),
//!   se from the inverse Fisher information; 95% Wald intervals with the normal quantile.
//! - Categorical predictors enter as 0/1 indicators of every level but the first (the reference),
//!   levels taken from both files so the coefficients line up.
//!
//! Overlap of coefficient k with intervals (L_o, U_o) and (L_m, U_m) and
//! L = max(L_o, L_m), U = min(U_o, U_m):
//! J_k = ½·[(U − L)/(U_o − L_o) + (U − L)/(U_m − L_m)] (Karr et al. 2006, §3). J = 1 for identical
//! intervals. `overlap` is J clamped at 0 (no overlap = no utility, as Karr et al. read it);
//! `overlap_raw` keeps the negative values that measure how far apart disjoint intervals are.

use intruder_data::{ColumnData, Kind, Table};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use crate::linalg::cholesky;
use crate::{UtilityError, numeric};

/// A model family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// Linear regression (OLS).
    Linear,
    /// Logistic regression (binary response).
    Logistic,
}

impl std::str::FromStr for Family {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "linear" | "gaussian" | "ols" => Ok(Family::Linear),
            "logistic" | "binomial" | "logit" => Ok(Family::Logistic),
            _ => Err(format!("unknown family '{s}'; expected linear or logistic")),
        }
    }
}

/// A parsed formula `y ~ x1 + x2` (an intercept is always included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Formula {
    /// The response.
    pub response: String,
    /// The predictors.
    pub predictors: Vec<String>,
}

impl std::str::FromStr for Formula {
    type Err = UtilityError;
    fn from_str(s: &str) -> Result<Self, UtilityError> {
        let err = |m: &str| UtilityError::Formula {
            formula: s.to_string(),
            message: m.to_string(),
        };
        let (lhs, rhs) = s
            .split_once('~')
            .ok_or_else(|| err("expected 'response ~ predictor + predictor'"))?;
        let response = lhs.trim().to_string();
        if response.is_empty() || response.contains('+') {
            return Err(err("the left of '~' must name one response column"));
        }
        let predictors: Vec<String> = rhs.split('+').map(|t| t.trim().to_string()).collect();
        if predictors.iter().any(|p| p.is_empty() || p.contains('~')) {
            return Err(err("the right of '~' must be column names joined by '+'"));
        }
        if predictors.contains(&response) {
            return Err(err("the response cannot also be a predictor"));
        }
        Ok(Formula {
            response,
            predictors,
        })
    }
}

/// How one variable enters a design matrix.
#[derive(Debug, Clone)]
pub(crate) enum Term {
    Numeric(String),
    /// Levels, the first being the reference.
    Categorical(String, Vec<String>),
}

/// Terms for `names`, with categorical levels observed in any of `tables` (in order of
/// appearance: each table's level order, the first table first).
pub(crate) fn terms(tables: &[&Table], names: &[String]) -> Result<Vec<Term>, UtilityError> {
    names
        .iter()
        .map(|n| {
            let c = tables[0].column(n)?;
            match c.kind() {
                Kind::Integer | Kind::Float => {
                    for t in &tables[1..] {
                        numeric(t, n)?;
                    }
                    Ok(Term::Numeric(n.clone()))
                }
                Kind::Categorical | Kind::String => {
                    let mut levels: Vec<String> = Vec::new();
                    for t in tables {
                        let c = t.column(n)?;
                        if let ColumnData::Categorical { levels: lv, .. } = c.data() {
                            let mut seen = vec![false; lv.len()];
                            for i in 0..c.len() {
                                if !c.is_missing(i)
                                    && let ColumnData::Categorical { codes, .. } = c.data()
                                {
                                    seen[codes[i] as usize] = true;
                                }
                            }
                            for (l, s) in lv.iter().zip(seen) {
                                if s && !levels.contains(l) {
                                    levels.push(l.clone());
                                }
                            }
                        } else {
                            for i in 0..c.len() {
                                if let Some(v) = c.text(i)
                                    && !levels.iter().any(|l| l == v.as_ref())
                                {
                                    levels.push(v.into_owned());
                                }
                            }
                        }
                    }
                    Ok(Term::Categorical(n.clone(), levels))
                }
                k => Err(UtilityError::Column {
                    file: tables[0].source().display().to_string(),
                    column: n.clone(),
                    message: format!("is {k}; expected a numeric or categorical column"),
                }),
            }
        })
        .collect()
}

/// Column names of the design (without intercept).
pub(crate) fn design_names(terms: &[Term]) -> Vec<String> {
    let mut out = Vec::new();
    for t in terms {
        match t {
            Term::Numeric(n) => out.push(n.clone()),
            Term::Categorical(n, lv) => {
                for l in &lv[1.min(lv.len())..] {
                    out.push(format!("{n}={l}"));
                }
            }
        }
    }
    out
}

/// Design rows (without intercept) of the complete records, and which records those are.
pub(crate) fn design(
    t: &Table,
    terms: &[Term],
) -> Result<(Vec<Vec<f64>>, Vec<usize>), UtilityError> {
    let n = t.nrows();
    let mut cols: Vec<Vec<f64>> = Vec::new();
    for term in terms {
        match term {
            Term::Numeric(name) => cols.push(numeric(t, name)?),
            Term::Categorical(name, lv) => {
                let c = t.column(name)?;
                let idx: Vec<Option<usize>> = (0..n)
                    .map(|i| {
                        c.text(i)
                            .and_then(|v| lv.iter().position(|l| l == v.as_ref()))
                    })
                    .collect();
                for k in 1..lv.len() {
                    cols.push(
                        idx.iter()
                            .map(|x| match x {
                                None => f64::NAN,
                                Some(j) => f64::from(u8::from(*j == k)),
                            })
                            .collect(),
                    );
                }
                if lv.len() == 1 {
                    // a constant: only drop missing rows
                    cols.push(
                        idx.iter()
                            .map(|x| if x.is_some() { 0.0 } else { f64::NAN })
                            .collect(),
                    );
                }
            }
        }
    }
    let keep: Vec<usize> = (0..n)
        .filter(|&i| cols.iter().all(|c| !c[i].is_nan()))
        .collect();
    let rows = keep
        .iter()
        .map(|&i| cols.iter().map(|c| c[i]).collect())
        .collect();
    Ok((rows, keep))
}

/// A fitted model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fit {
    /// Coefficient names, `(Intercept)` first.
    pub names: Vec<String>,
    /// Estimates.
    pub estimate: Vec<f64>,
    /// Standard errors.
    pub std_error: Vec<f64>,
    /// Lower 95% limits.
    pub lower: Vec<f64>,
    /// Upper 95% limits.
    pub upper: Vec<f64>,
    /// Records used.
    pub n: usize,
    /// Records dropped for a missing value.
    pub dropped: usize,
}

fn response(
    t: &Table,
    formula: &Formula,
    family: Family,
    positive: &Option<String>,
) -> Result<Vec<f64>, UtilityError> {
    let c = t.column(&formula.response)?;
    let bad = |m: String| UtilityError::Column {
        file: t.source().display().to_string(),
        column: formula.response.clone(),
        message: m,
    };
    match (family, c.kind()) {
        (Family::Linear, Kind::Integer | Kind::Float) => numeric(t, &formula.response),
        (Family::Linear, k) => Err(bad(format!(
            "is {k}; a linear model needs a numeric response"
        ))),
        (Family::Logistic, Kind::Integer | Kind::Float) => {
            let v = numeric(t, &formula.response)?;
            if let Some(i) = v.iter().position(|x| !x.is_nan() && *x != 0.0 && *x != 1.0) {
                return Err(bad(format!(
                    "row {}: {} is not 0 or 1; a logistic model needs a binary response",
                    i + 1,
                    v[i]
                )));
            }
            Ok(v)
        }
        (Family::Logistic, _) => {
            let pos = positive.as_ref().ok_or_else(|| {
                bad("a categorical logistic response needs two levels".to_string())
            })?;
            Ok((0..c.len())
                .map(|i| match c.text(i) {
                    None => f64::NAN,
                    Some(v) => f64::from(u8::from(v.as_ref() == pos)),
                })
                .collect())
        }
    }
}

/// Fits `formula` on `table`; `terms` fix the coding of categorical predictors.
fn fit_with(
    table: &Table,
    formula: &Formula,
    family: Family,
    terms: &[Term],
    positive: &Option<String>,
) -> Result<Fit, UtilityError> {
    let y_all = response(table, formula, family, positive)?;
    let (rows, keep) = design(table, terms)?;
    let mut x = Vec::new();
    let mut y = Vec::new();
    for (r, &i) in rows.into_iter().zip(&keep) {
        if !y_all[i].is_nan() {
            let mut row = vec![1.0];
            row.extend(r);
            x.push(row);
            y.push(y_all[i]);
        }
    }
    let mut names = vec!["(Intercept)".to_string()];
    names.extend(design_names(terms));
    let n = y.len();
    let p = names.len();
    let file = table.source().display().to_string();
    if n <= p {
        return Err(UtilityError::Model(format!(
            "{file}: {n} complete records for {p} coefficients of '{} ~ {}'",
            formula.response,
            formula.predictors.join(" + ")
        )));
    }
    let singular = || {
        UtilityError::Model(format!(
            "{file}: the design of '{} ~ {}' is singular (a constant or collinear predictor, or a category absent from this file): coefficients {}",
            formula.response,
            formula.predictors.join(" + "),
            names.join(", ")
        ))
    };
    let xtwx = |w: &dyn Fn(usize) -> f64| {
        let mut a = vec![vec![0.0; p]; p];
        for (i, row) in x.iter().enumerate() {
            let wi = w(i);
            for j in 0..p {
                for k in 0..=j {
                    a[j][k] += wi * row[j] * row[k];
                }
            }
        }
        for j in 0..p {
            for k in 0..j {
                a[k][j] = a[j][k];
            }
        }
        a
    };
    let (beta, cov, q) = match family {
        Family::Linear => {
            let a = xtwx(&|_| 1.0);
            let l = cholesky(&a).ok_or_else(singular)?;
            let xty: Vec<f64> = (0..p)
                .map(|j| x.iter().zip(&y).map(|(r, yi)| r[j] * yi).sum())
                .collect();
            let beta = l.solve(&xty);
            let rss: f64 = x
                .iter()
                .zip(&y)
                .map(|(r, yi)| {
                    let f: f64 = r.iter().zip(&beta).map(|(a, b)| a * b).sum();
                    (yi - f).powi(2)
                })
                .sum();
            let s2 = rss / (n - p) as f64;
            let inv = l.inverse();
            let cov: Vec<f64> = (0..p).map(|j| s2 * inv[j][j]).collect();
            let t = StudentsT::new(0.0, 1.0, (n - p) as f64)
                .map_err(|e| UtilityError::Model(e.to_string()))?;
            (beta, cov, t.inverse_cdf(0.975))
        }
        Family::Logistic => {
            let mut beta = vec![0.0; p];
            let mut converged = false;
            let mut l = None;
            for _ in 0..100 {
                let mu: Vec<f64> = x
                    .iter()
                    .map(|r| {
                        let eta: f64 = r.iter().zip(&beta).map(|(a, b)| a * b).sum();
                        1.0 / (1.0 + (-eta).exp())
                    })
                    .collect();
                let a = xtwx(&|i| mu[i] * (1.0 - mu[i]));
                let f = cholesky(&a).ok_or_else(singular)?;
                let g: Vec<f64> = (0..p)
                    .map(|j| {
                        x.iter()
                            .zip(&y)
                            .zip(&mu)
                            .map(|((r, yi), m)| r[j] * (yi - m))
                            .sum()
                    })
                    .collect();
                let step = f.solve(&g);
                l = Some(f);
                let mut big = 0.0f64;
                for (b, s) in beta.iter_mut().zip(&step) {
                    *b += s;
                    big = big.max(s.abs());
                }
                if big < 1e-10 {
                    converged = true;
                    break;
                }
            }
            if !converged || beta.iter().any(|b| !b.is_finite() || b.abs() > 50.0) {
                return Err(UtilityError::Model(format!(
                    "{file}: the logistic model '{} ~ {}' did not converge (the response may be perfectly separated by a predictor)",
                    formula.response,
                    formula.predictors.join(" + ")
                )));
            }
            // covariance at the final estimate
            let mu: Vec<f64> = x
                .iter()
                .map(|r| {
                    1.0 / (1.0 + (-r.iter().zip(&beta).map(|(a, b)| a * b).sum::<f64>()).exp())
                })
                .collect();
            let a = xtwx(&|i| mu[i] * (1.0 - mu[i]));
            let l = cholesky(&a).or(l).ok_or_else(singular)?;
            let inv = l.inverse();
            let cov: Vec<f64> = (0..p).map(|j| inv[j][j]).collect();
            let z = Normal::standard().inverse_cdf(0.975);
            (beta, cov, z)
        }
    };
    let se: Vec<f64> = cov.iter().map(|v| v.sqrt()).collect();
    Ok(Fit {
        lower: beta.iter().zip(&se).map(|(b, s)| b - q * s).collect(),
        upper: beta.iter().zip(&se).map(|(b, s)| b + q * s).collect(),
        names,
        estimate: beta,
        std_error: se,
        n,
        dropped: table.nrows() - n,
    })
}

fn positive_level(
    tables: &[&Table],
    formula: &Formula,
    family: Family,
) -> Result<Option<String>, UtilityError> {
    if family != Family::Logistic {
        return Ok(None);
    }
    let c = tables[0].column(&formula.response)?;
    if c.kind().is_numeric() {
        return Ok(None);
    }
    let Term::Categorical(_, lv) = &terms(tables, std::slice::from_ref(&formula.response))?[0]
    else {
        return Ok(None);
    };
    if lv.len() != 2 {
        return Err(UtilityError::Column {
            file: tables[0].source().display().to_string(),
            column: formula.response.clone(),
            message: format!(
                "has {} observed categories ({}); a logistic model needs exactly two",
                lv.len(),
                lv.join(", ")
            ),
        });
    }
    Ok(Some(lv[1].clone()))
}

/// Fits `formula` on one table (categorical levels from that table; the second level of a
/// categorical response is the event).
pub fn fit(table: &Table, formula: &Formula, family: Family) -> Result<Fit, UtilityError> {
    let t = terms(&[table], &formula.predictors)?;
    let pos = positive_level(&[table], formula, family)?;
    fit_with(table, formula, family, &t, &pos)
}

/// One coefficient's intervals and their overlap.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoefficientOverlap {
    /// The coefficient.
    pub name: String,
    /// Estimate on the original.
    pub estimate_original: f64,
    /// Estimate on the masked file.
    pub estimate_masked: f64,
    /// 95% interval on the original.
    pub ci_original: (f64, f64),
    /// 95% interval on the masked file.
    pub ci_masked: (f64, f64),
    /// Karr et al.'s J_k clamped at 0.
    pub overlap: f64,
    /// J_k, negative when the intervals are disjoint.
    pub overlap_raw: f64,
}

/// The confidence-interval overlap of a model fitted on both files.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CiOverlap {
    /// The model.
    pub formula: Formula,
    /// Its family.
    pub family: Family,
    /// Per coefficient.
    pub coefficients: Vec<CoefficientOverlap>,
    /// Mean of `overlap` over coefficients.
    pub mean_overlap: f64,
    /// The fit on the original.
    pub original: Fit,
    /// The fit on the masked file.
    pub masked: Fit,
}

/// Karr et al.'s overlap J of intervals (lo1, hi1) and (lo2, hi2).
pub fn interval_overlap(a: (f64, f64), b: (f64, f64)) -> f64 {
    let lo = a.0.max(b.0);
    let hi = a.1.min(b.1);
    0.5 * ((hi - lo) / (a.1 - a.0) + (hi - lo) / (b.1 - b.0))
}

/// Fits `formula` on both files and compares the coefficients' 95% intervals.
pub fn ci_overlap(
    original: &Table,
    masked: &Table,
    formula: &Formula,
    family: Family,
) -> Result<CiOverlap, UtilityError> {
    let t = terms(&[original, masked], &formula.predictors)?;
    let pos = positive_level(&[original, masked], formula, family)?;
    let fo = fit_with(original, formula, family, &t, &pos)?;
    let fm = fit_with(masked, formula, family, &t, &pos)?;
    let coefficients: Vec<CoefficientOverlap> = (0..fo.names.len())
        .map(|k| {
            let a = (fo.lower[k], fo.upper[k]);
            let b = (fm.lower[k], fm.upper[k]);
            let j = interval_overlap(a, b);
            CoefficientOverlap {
                name: fo.names[k].clone(),
                estimate_original: fo.estimate[k],
                estimate_masked: fm.estimate[k],
                ci_original: a,
                ci_masked: b,
                overlap: j.max(0.0),
                overlap_raw: j,
            }
        })
        .collect();
    let mean_overlap =
        coefficients.iter().map(|c| c.overlap).sum::<f64>() / coefficients.len() as f64;
    Ok(CiOverlap {
        formula: formula.clone(),
        family,
        coefficients,
        mean_overlap,
        original: fo,
        masked: fm,
    })
}
