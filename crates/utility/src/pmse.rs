//! The propensity-score mean squared error (Woo, Reiter, Oganian & Karr 2009): stack the
//! original (t = 0) and masked (t = 1) records, fit a logistic regression of t on the variables
//! (main effects; categorical variables as indicators; numeric ones standardised on the stacked
//! data), and compute pMSE = (1/N) Σ (p̂_i − c)², c = n_masked / N. pMSE = 0 when the model
//! cannot tell the files apart. Its null expectation under a logistic model with k parameters is
//! (k − 1)(1 − c)²c / N (Snoke, Raab, Nowok, Dibben & Slavković 2018, eq. 2); the ratio to it is
//! reported as well (about 1 for masking that keeps the modelled distribution).
//! The model is fitted by `linfa-logistic` without penalty (alpha = 0).
//!
//! Missing values are information, not noise to drop: a suppression shows in the released file
//! as blanks, and a model that drops incomplete records cannot see it (a file with every key of
//! every record suppressed somewhere would have no record left). A blank categorical value is
//! one more category (`<missing>`); a numeric variable with blanks gets an indicator of
//! missingness, the blank cells set to the observed stacked mean. No record is dropped.

use intruder_table::Table;
use linfa::prelude::*;
use linfa_logistic::LogisticRegression;
use ndarray::{Array1, Array2};
use serde::Serialize;

use crate::UtilityError;
use crate::regression::{Term, terms};

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
    /// Records dropped (none: a blank is a category or an indicator).
    pub dropped: usize,
}

/// The pMSE over `vars` (numeric or categorical).
pub fn pmse(original: &Table, masked: &Table, vars: &[String]) -> Result<Pmse, UtilityError> {
    let t = terms(&[original, masked], vars)?;
    let (no, nm) = (original.nrows(), masked.nrows());
    let n = no + nm;
    if no == 0 || nm == 0 {
        return Err(UtilityError::Mismatch(
            "pMSE needs records in both files".into(),
        ));
    }
    let cols = stacked_design(original, masked, &t)?;
    let p = cols.len();
    let mut x = Array2::<f64>::zeros((n, p));
    for (j, c) in cols.iter().enumerate() {
        for (i, v) in c.iter().enumerate() {
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
    let y: Array1<usize> = (0..n).map(|i| usize::from(i >= no)).collect();
    let c = nm as f64 / n as f64;
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
        dropped: 0,
    })
}

/// The design columns (without intercept) of the two files stacked, the original first: a
/// numeric variable's values (blanks at the observed mean) and, when either file has a blank,
/// its missingness indicator; a categorical variable's indicators of every level but the first,
/// with `<missing>` one more level when either file has a blank.
fn stacked_design(
    original: &Table,
    masked: &Table,
    terms: &[Term],
) -> Result<Vec<Vec<f64>>, UtilityError> {
    let mut cols = Vec::new();
    for term in terms {
        match term {
            Term::Numeric(name) => {
                let mut v = intruder_table::numeric::values(original.column(name)?);
                v.extend(intruder_table::numeric::values(masked.column(name)?));
                let observed: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
                let mean = if observed.is_empty() {
                    0.0
                } else {
                    observed.iter().sum::<f64>() / observed.len() as f64
                };
                let missing: Vec<f64> = v.iter().map(|x| f64::from(u8::from(x.is_nan()))).collect();
                cols.push(
                    v.iter()
                        .map(|x| if x.is_nan() { mean } else { *x })
                        .collect(),
                );
                if missing.iter().any(|&m| m > 0.0) {
                    cols.push(missing);
                }
            }
            Term::Categorical(name, levels) => {
                let mut values: Vec<Option<String>> = Vec::new();
                for t in [original, masked] {
                    let c = t.column(name)?;
                    values.extend((0..c.len()).map(|i| c.text(i).map(|s| s.into_owned())));
                }
                let mut lv: Vec<Option<&str>> = levels.iter().map(|l| Some(l.as_str())).collect();
                if values.iter().any(Option::is_none) {
                    lv.push(None);
                }
                for l in lv.iter().skip(1) {
                    cols.push(
                        values
                            .iter()
                            .map(|v| f64::from(u8::from(v.as_deref() == *l)))
                            .collect(),
                    );
                }
            }
        }
    }
    Ok(cols)
}
