//! Regression models named in a formula, fitted on both files, and the overlap of their
//! coefficients' confidence intervals (Karr, Kohnen, Oganian, Reiter & Sanil 2006).
//!
//! - Linear: least squares as R's `lm` computes it — a Householder QR of the design with R's
//!   limited column pivoting (`dqrdc2`, see `linalg.rs`), never the normal equations, so
//!   money-scale predictors (condition number 10⁸) fit as they do in R; se =
//!   sqrt(σ̂²·diag((RᵀR)⁻¹)), σ̂² = RSS/(n − p); 95% intervals with Student's t on n − p df.
//! - Logistic: maximum likelihood as R's `glm(family = binomial)` computes it (IRLS from R's
//!   starting values, each step by the same QR, R's convergence rule), se from the last step's
//!   QR as `summary.glm`; 95% Wald intervals with the normal quantile.
//! - A design of deficient rank is refused, naming the terms R reports as `NA` (aliased: a
//!   linear combination of the terms before them); `crates/utility/tests/regression_r.rs`
//!   checks coefficients and standard errors against R to 1e-10.
//! - Categorical predictors enter as 0/1 indicators of every level but the first (the reference),
//!   levels taken from both files so the coefficients line up.
//!
//! Overlap of coefficient k with intervals (L_o, U_o) and (L_m, U_m) and
//! L = max(L_o, L_m), U = min(U_o, U_m):
//! J_k = ½·[(U − L)/(U_o − L_o) + (U − L)/(U_m − L_m)] (Karr et al. 2006, §3). J = 1 for identical
//! intervals. `overlap` is J clamped at 0 (no overlap = no utility, as Karr et al. read it);
//! `overlap_raw` keeps the negative values that measure how far apart disjoint intervals are.

use intruder_table::{ColumnData, Kind, Table};
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use crate::linalg::Qr;
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
                    file: tables[0].source().to_string(),
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
        file: t.source().to_string(),
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

/// The tolerance of `lm.fit`'s QR (R's default `tol = 1e-7`).
const LM_TOL: f64 = 1e-7;
/// `glm.control()`'s `epsilon` (convergence of the deviance) and `maxit`.
const GLM_EPSILON: f64 = 1e-8;
const GLM_MAXIT: usize = 25;

/// `binomial()$linkinv` as R's C code computes it (`logit_linkinv`): η clamped to ±30.
fn logit_linkinv(eta: f64) -> f64 {
    const THRESH: f64 = 30.0;
    let tmp = if eta < -THRESH {
        f64::EPSILON
    } else if eta > THRESH {
        1.0 / f64::EPSILON
    } else {
        eta.exp()
    };
    tmp / (1.0 + tmp)
}

/// `binomial()$mu.eta` (`logit_mu_eta`): dμ/dη, at least machine epsilon.
fn logit_mu_eta(eta: f64) -> f64 {
    const THRESH: f64 = 30.0;
    if !(-THRESH..=THRESH).contains(&eta) {
        f64::EPSILON
    } else {
        let opexp = 1.0 + eta.exp();
        eta.exp() / (opexp * opexp)
    }
}

/// `binomial()$dev.resids` summed, unit weights.
fn binomial_deviance(y: &[f64], mu: &[f64]) -> f64 {
    let ylogy = |y: f64, mu: f64| if y > 0.0 { y * (y / mu).ln() } else { 0.0 };
    y.iter()
        .zip(mu)
        .map(|(&y, &m)| 2.0 * (ylogy(y, m) + ylogy(1.0 - y, 1.0 - m)))
        .sum()
}

/// η = Xβ for a column-major X.
fn linear_predictor(x: &[f64], n: usize, beta: &[f64]) -> Vec<f64> {
    let mut eta = vec![0.0; n];
    for (j, b) in beta.iter().enumerate() {
        for (e, v) in eta.iter_mut().zip(&x[j * n..(j + 1) * n]) {
            *e += v * b;
        }
    }
    eta
}

/// Fits `formula` on `table`; `terms` fix the coding of categorical predictors.
///
/// Linear models are R's `lm.fit` (Householder QR with limited pivoting, tolerance 1e-7);
/// logistic models are R's `glm.fit` for `binomial()` (iteratively reweighted least squares
/// from R's starting values, each step the same QR with tolerance 1e-11, stopping when
/// |dev − dev_old| / (|dev| + 0.1) < 1e-8, at most 25 iterations), with standard errors from
/// the last step's QR as `summary.glm` computes them. A design whose rank is below its number
/// of coefficients is refused, naming the terms R reports as `NA` ("not defined because of
/// singularities").
fn fit_with(
    table: &Table,
    formula: &Formula,
    family: Family,
    terms: &[Term],
    positive: &Option<String>,
) -> Result<Fit, UtilityError> {
    let mut d = Design::of(table, formula, family, terms, positive)?;
    let Estimates { beta, cov, q } = match family {
        Family::Linear => d.fit_linear()?,
        Family::Logistic => d.fit_logistic()?,
    };
    let se: Vec<f64> = cov.iter().map(|v| v.sqrt()).collect();
    Ok(Fit {
        lower: beta.iter().zip(&se).map(|(b, s)| b - q * s).collect(),
        upper: beta.iter().zip(&se).map(|(b, s)| b + q * s).collect(),
        names: d.names,
        estimate: beta,
        std_error: se,
        n: d.n,
        dropped: table.nrows() - d.n,
    })
}

/// The complete records of a model's design and response, and what its messages name.
struct Design {
    /// Column-major design of the complete records, the intercept first (taken by a linear fit).
    x: Vec<f64>,
    /// The response of the complete records.
    y: Vec<f64>,
    /// Complete records.
    n: usize,
    /// Coefficients.
    p: usize,
    /// The coefficients' names, the intercept first.
    names: Vec<String>,
    /// The file's name in messages.
    file: String,
    /// The formula in messages (`y ~ x1 + x2`).
    model: String,
}

/// A fit's coefficients, their variances (scaled) and the quantile of the 95% intervals, in
/// the design's column order.
struct Estimates {
    /// The coefficients.
    beta: Vec<f64>,
    /// Their variances (σ̂²-scaled for a linear model).
    cov: Vec<f64>,
    /// The quantile of the intervals: Student's t (linear) or the normal (logistic).
    q: f64,
}

impl Design {
    /// The design of `formula` over the records of `table` with a response and every
    /// predictor; an error when there are no more records than coefficients.
    fn of(
        table: &Table,
        formula: &Formula,
        family: Family,
        terms: &[Term],
        positive: &Option<String>,
    ) -> Result<Design, UtilityError> {
        let y_all = response(table, formula, family, positive)?;
        let (rows, keep) = design(table, terms)?;
        let mut names = vec!["(Intercept)".to_string()];
        names.extend(design_names(terms));
        let p = names.len();
        let mut y = Vec::new();
        let mut used: Vec<&Vec<f64>> = Vec::new();
        for (r, &i) in rows.iter().zip(&keep) {
            if !y_all[i].is_nan() {
                used.push(r);
                y.push(y_all[i]);
            }
        }
        let n = y.len();
        let file = table.source().to_string();
        let model = format!("{} ~ {}", formula.response, formula.predictors.join(" + "));
        if n <= p {
            return Err(UtilityError::Model(format!(
                "{file}: {n} complete records for {p} coefficients of '{model}'"
            )));
        }
        // Column-major design with the intercept first.
        let mut x = vec![1.0; n * p];
        for (i, r) in used.iter().enumerate() {
            for (j, v) in r.iter().enumerate() {
                x[(j + 1) * n + i] = *v;
            }
        }
        Ok(Design {
            x,
            y,
            n,
            p,
            names,
            file,
            model,
        })
    }

    /// The error of a design whose rank (`qr`) is below its number of coefficients, naming the
    /// aliased terms.
    fn rank_deficient(&self, qr: &Qr) -> UtilityError {
        let aliased: Vec<String> = qr.pivot[qr.rank..]
            .iter()
            .map(|&j| format!("'{}'", self.names[j]))
            .collect();
        UtilityError::Model(format!(
            "{}: the design of '{}' is singular: its rank is {} for {} coefficients; {} {} a linear combination of the terms before {} (R's lm and glm report {} as NA, \"not defined because of singularities\"): a constant or collinear predictor, or a category absent from this file",
            self.file,
            self.model,
            qr.rank,
            self.p,
            aliased.join(", "),
            if aliased.len() == 1 { "is" } else { "are" },
            if aliased.len() == 1 { "it" } else { "them" },
            if aliased.len() == 1 {
                "its coefficient"
            } else {
                "their coefficients"
            },
        ))
    }

    /// The error of a logistic fit that went wrong, saying `why`.
    fn not_converged(&self, why: &str) -> UtilityError {
        UtilityError::Model(format!(
            "{}: the logistic model '{}' {why} (the response may be perfectly separated by a predictor)",
            self.file, self.model
        ))
    }

    /// Least squares as R's `lm.fit`, with 95% intervals from Student's t; takes the design.
    fn fit_linear(&mut self) -> Result<Estimates, UtilityError> {
        let (n, p) = (self.n, self.p);
        let qr = Qr::new(std::mem::take(&mut self.x), n, p, LM_TOL);
        if qr.rank < p {
            return Err(self.rank_deficient(&qr));
        }
        let qty = qr.qty(&self.y);
        let b = qr.coef(&qty);
        let rss: f64 = qty[qr.rank..].iter().map(|v| v * v).sum();
        let s2 = rss / (n - qr.rank) as f64;
        // Coefficients and unscaled variances in the original column order.
        let v = qr.unscaled_variances();
        let mut beta = vec![0.0; p];
        let mut var = vec![0.0; p];
        for (pos, &j) in qr.pivot[..qr.rank].iter().enumerate() {
            beta[j] = b[pos];
            var[j] = v[pos];
        }
        let cov: Vec<f64> = var.iter().map(|v| s2 * v).collect();
        let t = StudentsT::new(0.0, 1.0, (n - qr.rank) as f64)
            .map_err(|e| UtilityError::Model(e.to_string()))?;
        Ok(Estimates {
            beta,
            cov,
            q: t.inverse_cdf(0.975),
        })
    }

    /// Maximum likelihood as R's `glm.fit` for `binomial()`, with 95% Wald intervals.
    fn fit_logistic(&self) -> Result<Estimates, UtilityError> {
        let p = self.p;
        let (start, qr, mu) = self.irls()?;
        if qr.rank < p {
            return Err(self.rank_deficient(&qr));
        }
        // R's warning "fitted probabilities numerically 0 or 1 occurred".
        let eps = 10.0 * f64::EPSILON;
        if mu.iter().any(|&m| m > 1.0 - eps || m < eps) {
            return Err(self.not_converged("has fitted probabilities numerically 0 or 1"));
        }
        let v = qr.unscaled_variances();
        let mut cov = vec![0.0; p];
        for (pos, &j) in qr.pivot[..qr.rank].iter().enumerate() {
            cov[j] = v[pos];
        }
        let z = Normal::standard().inverse_cdf(0.975);
        Ok(Estimates {
            beta: start,
            cov,
            q: z,
        })
    }

    /// `glm.fit`'s iterations from `binomial()$initialize` with unit weights: the coefficients,
    /// the last step's QR and the fitted probabilities.
    fn irls(&self) -> Result<(Vec<f64>, Qr, Vec<f64>), UtilityError> {
        let (x, y, n, p) = (&self.x, &self.y, self.n, self.p);
        // binomial()$initialize with unit weights, then glm.fit's iterations.
        let mu0: Vec<f64> = y.iter().map(|&yi| (yi + 0.5) / 2.0).collect();
        let mut eta: Vec<f64> = mu0.iter().map(|&m| (m / (1.0 - m)).ln()).collect();
        let mut mu: Vec<f64> = eta.iter().map(|&e| logit_linkinv(e)).collect();
        let mut dev_old = binomial_deviance(y, &mu);
        let mut start = vec![0.0; p];
        let mut last: Option<Qr> = None;
        let mut converged = false;
        for _ in 0..GLM_MAXIT {
            let mu_eta: Vec<f64> = eta.iter().map(|&e| logit_mu_eta(e)).collect();
            let z: Vec<f64> = (0..n)
                .map(|i| eta[i] + (y[i] - mu[i]) / mu_eta[i])
                .collect();
            let w: Vec<f64> = (0..n)
                .map(|i| (mu_eta[i] * mu_eta[i] / (mu[i] * (1.0 - mu[i]))).sqrt())
                .collect();
            let mut xw = x.clone();
            for j in 0..p {
                for i in 0..n {
                    xw[j * n + i] *= w[i];
                }
            }
            let zw: Vec<f64> = z.iter().zip(&w).map(|(a, b)| a * b).collect();
            let qr = Qr::new(xw, n, p, (1e-7f64).min(GLM_EPSILON / 1000.0));
            let b = qr.coef(&qr.qty(&zw));
            // Aliased columns keep a coefficient of 0, as Cdqrls leaves them.
            start = vec![0.0; p];
            for (pos, &j) in qr.pivot[..qr.rank].iter().enumerate() {
                start[j] = b[pos];
            }
            if start.iter().any(|b| !b.is_finite()) {
                return Err(self.not_converged("has non-finite coefficients"));
            }
            eta = linear_predictor(x, n, &start);
            mu = eta.iter().map(|&e| logit_linkinv(e)).collect();
            let dev = binomial_deviance(y, &mu);
            last = Some(qr);
            if !dev.is_finite() {
                return Err(self.not_converged("has a non-finite deviance"));
            }
            if (dev - dev_old).abs() / (dev.abs() + 0.1) < GLM_EPSILON {
                converged = true;
                break;
            }
            dev_old = dev;
        }
        if !converged {
            return Err(self.not_converged(&format!("did not converge in {GLM_MAXIT} iterations")));
        }
        let qr = last.expect("at least one iteration");
        Ok((start, qr, mu))
    }
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
            file: tables[0].source().to_string(),
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
