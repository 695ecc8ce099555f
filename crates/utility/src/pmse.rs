//! The propensity-score mean squared error (Woo, Reiter, Oganian & Karr 2009): stack the
//! original (t = 0) and masked (t = 1) records, fit a logistic regression of t on the variables
//! (main effects; categorical variables as indicators; numeric ones standardised on the stacked
//! data), and compute pMSE = (1/N) Σ (p̂_i − c)², c = n_masked / N. pMSE = 0 when the model
//! cannot tell the files apart. Its null expectation under a logistic model with k parameters is
//! (k − 1)(1 − c)²c / N (Snoke, Raab, Nowok, Dibben & Slavković 2018, eq. 2); the ratio to it is
//! reported as well (about 1 for masking that keeps the modelled distribution).
//! The model is fitted by `linfa-logistic` without penalty (alpha = 0).

use intruder_data::Table;
use linfa::prelude::*;
use linfa_logistic::LogisticRegression;
use ndarray::{Array1, Array2};
use serde::Serialize;

use crate::UtilityError;
use crate::regression::{design, design_names, terms};

/// The pMSE of a masked file against its original.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pmse {
    /// pMSE.
    pub pmse: f64,
    /// Its null expectation (k − 1)(1 − c)²c / N.
    pub null_expectation: f64,
    /// pMSE / null expectation.
    pub ratio: f64,
    /// k: parameters of the propensity model, intercept included.
    pub parameters: usize,
    /// c = n_masked / N.
    pub c: f64,
    /// N: records used (both files).
    pub n: usize,
    /// Records dropped for a missing value (both files).
    pub dropped: usize,
}

/// The pMSE over `vars` (numeric or categorical).
pub fn pmse(original: &Table, masked: &Table, vars: &[String]) -> Result<Pmse, UtilityError> {
    let t = terms(&[original, masked], vars)?;
    let (ro, _) = design(original, &t)?;
    let (rm, _) = design(masked, &t)?;
    let p = design_names(&t).len();
    let n = ro.len() + rm.len();
    if ro.is_empty() || rm.is_empty() {
        return Err(UtilityError::Mismatch(
            "pMSE needs complete records in both files".into(),
        ));
    }
    let mut x = Array2::<f64>::zeros((n, p));
    for (i, r) in ro.iter().chain(&rm).enumerate() {
        for (j, v) in r.iter().enumerate() {
            x[[i, j]] = *v;
        }
    }
    // standardise each column on the stacked data (constant columns are left centred)
    for j in 0..p {
        let col = x.column(j);
        let m = col.sum() / n as f64;
        let s = (col.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n as f64).sqrt();
        let s = if s > 0.0 { s } else { 1.0 };
        x.column_mut(j).mapv_inplace(|v| (v - m) / s);
    }
    let y: Array1<usize> = (0..n).map(|i| usize::from(i >= ro.len())).collect();
    let c = rm.len() as f64 / n as f64;
    let ds = Dataset::new(x.clone(), y);
    let model = LogisticRegression::default()
        .alpha(0.0)
        .max_iterations(500)
        .fit(&ds)
        .map_err(|e| UtilityError::Model(format!("pMSE propensity model: {e}")))?;
    let probs = model.predict_probabilities(&x);
    // predict_probabilities gives P(labels().pos.class), which may be class 0
    let pos_is_masked = model.labels().pos.class == 1;
    let pmse = probs
        .iter()
        .map(|&q| {
            let p1 = if pos_is_masked { q } else { 1.0 - q };
            (p1 - c).powi(2)
        })
        .sum::<f64>()
        / n as f64;
    let k = p + 1;
    let null = (k as f64 - 1.0) * (1.0 - c).powi(2) * c / n as f64;
    Ok(Pmse {
        pmse,
        null_expectation: null,
        ratio: if null > 0.0 { pmse / null } else { f64::NAN },
        parameters: k,
        c,
        n,
        dropped: original.nrows() + masked.nrows() - n,
    })
}
