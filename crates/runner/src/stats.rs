//! Statistics over replicates (or seeds) and how figures are printed in tables.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// Mean and 95% interval of one metric over the replicates of one setting.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Stat {
    /// Mean over replicates.
    pub mean: f64,
    /// Lower end of the 95% t-interval of the mean (the mean itself with one replicate).
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Replicates with a value.
    pub n: usize,
    /// The values, by replicate.
    pub values: Vec<f64>,
}

impl Stat {
    /// From the replicate values: mean ± t(0.975, n−1)·s/√n.
    pub fn new(values: Vec<f64>) -> Stat {
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n.max(1) as f64;
        let (lo, hi) = if n >= 2 {
            let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
                .map(|d| d.inverse_cdf(0.975))
                .unwrap_or(f64::NAN);
            let h = t * (var / n as f64).sqrt();
            (mean - h, mean + h)
        } else {
            (mean, mean)
        };
        Stat {
            mean,
            lo,
            hi,
            n,
            values,
        }
    }

    /// The interval clipped to `[lo, hi]` (a figure's range).
    pub fn clipped(mut self, lo: f64, hi: f64) -> Stat {
        self.lo = self.lo.max(lo);
        self.hi = self.hi.min(hi);
        self
    }
}

/// Formats a figure for tables: integers as integers, others with 4 significant digits.
pub fn fmt(x: f64) -> String {
    if x.is_nan() {
        return "–".into();
    }
    if x == x.round() && x.abs() < 1e12 {
        return format!("{}", x as i64);
    }
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.3}")
    } else {
        format!("{x:.4}")
    }
}

/// A table cell: the mean, with its interval in brackets when there is one.
pub(crate) fn cell(s: Option<&Stat>) -> String {
    match s {
        None => "–".into(),
        Some(s) if s.n < 2 || s.lo == s.hi => fmt(s.mean),
        Some(s) => format!("{} [{}, {}]", fmt(s.mean), fmt(s.lo), fmt(s.hi)),
    }
}
