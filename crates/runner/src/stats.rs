//! Statistics over replicates (or seeds) and how figures are printed in tables.
//!
//! Intervals respect each figure's range: a proportion of records whose pooled numerator and
//! denominator are known gets a Wilson score interval on the pooled counts (never outside
//! [0, 1], never of zero width unless the denominator is infinite); any other figure gets a
//! Student-t interval of the mean over replicates, clipped to the unit's range (proportions
//! in [0, 1], counts ≥ 0). One replicate gives no t-interval.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use intruder_data::report::Unit;

/// How an interval was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IntervalKind {
    /// Wilson score interval of the pooled proportion Σ numerators / Σ denominators.
    Wilson,
    /// Student-t interval of the mean over replicates, clipped to the figure's range.
    T,
    /// No interval (one replicate, and the figure is not a pooled proportion).
    None,
}

impl IntervalKind {
    /// How the report names it.
    pub fn describe(self) -> &'static str {
        match self {
            IntervalKind::Wilson => "Wilson score interval of the pooled proportion",
            IntervalKind::T => "t-interval of the mean over replicates, clipped to the range",
            IntervalKind::None => "no interval (one replicate)",
        }
    }
}

/// Mean and 95% interval of one metric over the replicates of one setting.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Stat {
    /// The estimate: the mean over replicates, or for a pooled proportion Σ numerators /
    /// Σ denominators.
    pub mean: f64,
    /// Lower end of the 95% interval (the estimate itself when there is none).
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Replicates with a value.
    pub n: usize,
    /// How the interval was computed.
    pub interval: IntervalKind,
    /// The values, by replicate.
    pub values: Vec<f64>,
    /// For a pooled proportion: Σ numerators and Σ denominators over the replicates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pooled: Option<(f64, f64)>,
}

/// The standard normal quantile of a two-sided 95% interval, z = Φ⁻¹(0.975).
pub fn z975() -> f64 {
    Normal::new(0.0, 1.0)
        .map(|d| d.inverse_cdf(0.975))
        .unwrap_or(1.959_963_984_540_054)
}

/// The 95% Wilson score interval of `k` successes in `n` trials:
/// (p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n), p = k/n. `None` when `n` is not positive.
pub fn wilson(k: f64, n: f64) -> Option<(f64, f64)> {
    if !(n > 0.0 && n.is_finite() && k.is_finite() && (0.0..=n).contains(&k)) {
        return None;
    }
    let z = z975();
    let p = k / n;
    let z2n = z * z / n;
    let centre = (p + z2n / 2.0) / (1.0 + z2n);
    let half = z * (p * (1.0 - p) / n + z2n / (4.0 * n)).sqrt() / (1.0 + z2n);
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

impl Stat {
    /// From the replicate values: mean ± t(0.975, n−1)·s/√n (no interval with one value).
    pub fn new(values: Vec<f64>) -> Stat {
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n.max(1) as f64;
        let ((lo, hi), interval) = if n >= 2 {
            let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
                .map(|d| d.inverse_cdf(0.975))
                .unwrap_or(f64::NAN);
            let h = t * (var / n as f64).sqrt();
            ((mean - h, mean + h), IntervalKind::T)
        } else {
            ((mean, mean), IntervalKind::None)
        };
        Stat {
            mean: if n == 0 { f64::NAN } else { mean },
            lo,
            hi,
            n,
            interval,
            values,
            pooled: None,
        }
    }

    /// A pooled proportion: `ratios` are each replicate's (numerator, denominator); the estimate
    /// is Σ numerators / Σ denominators with its Wilson interval. Falls back to [`Stat::new`]
    /// over the replicate values when the pooled denominator is 0.
    pub fn pooled(ratios: &[(f64, f64)]) -> Stat {
        let values: Vec<f64> = ratios.iter().map(|(k, n)| k / n).collect();
        let k: f64 = ratios.iter().map(|r| r.0).sum();
        let n: f64 = ratios.iter().map(|r| r.1).sum();
        match wilson(k, n) {
            Some((lo, hi)) => Stat {
                mean: k / n,
                lo,
                hi,
                n: ratios.len(),
                interval: IntervalKind::Wilson,
                values,
                pooled: Some((k, n)),
            },
            None => Stat::new(values).clipped(0.0, 1.0),
        }
    }

    /// The interval clipped to `[lo, hi]` (a figure's range).
    pub fn clipped(mut self, lo: f64, hi: f64) -> Stat {
        self.lo = self.lo.max(lo);
        self.hi = self.hi.min(hi);
        self
    }

    /// Whether there is an interval to show (Wilson or t; zero-width ones included).
    pub fn has_interval(&self) -> bool {
        self.interval != IntervalKind::None && self.lo.is_finite() && self.hi.is_finite()
    }
}

/// Formats a figure by its unit: proportions as percentages with one decimal (`30.0%`),
/// counts as integers (a mean over replicates rounded to the nearest), scores and anything
/// else with 3 significant digits. NaN and infinities print as `–`.
pub fn fmt_unit(x: f64, unit: Unit) -> String {
    if !x.is_finite() {
        return "–".into();
    }
    match unit {
        Unit::Proportion => format!("{:.1}%", x * 100.0),
        Unit::Count => format!("{}", x.round() as i64),
        Unit::Score | Unit::Label => sig3(x),
    }
}

/// `x` with 3 significant digits, in plain notation between 1e-4 and 1e9, else scientific.
pub fn sig3(x: f64) -> String {
    if !x.is_finite() {
        return "–".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let a = x.abs();
    if !(1e-4..1e9).contains(&a) {
        return format!("{x:.2e}");
    }
    let mag = a.log10().floor() as i32;
    // Round to 3 significant digits first: 999.6 becomes 1000, printed without decimals.
    let scale = 10f64.powi(2 - mag);
    let r = (x * scale).round() / scale;
    let mag = r.abs().log10().floor() as i32;
    let decimals = (2 - mag).max(0) as usize;
    format!("{r:.decimals$}")
}

/// Formats a figure whose unit is unknown (published values, differences): integers as
/// integers, others with 3 significant digits.
pub fn fmt(x: f64) -> String {
    if x.is_nan() {
        return "–".into();
    }
    if x == x.round() && x.abs() < 1e12 {
        return format!("{}", x as i64);
    }
    sig3(x)
}

/// A table cell: the estimate, with its 95% interval in brackets whenever there is one —
/// except an interval of zero width at the printed precision (`600 [600, 600]`), which is never
/// shown, so every cell of a column reads alike.
pub fn cell_unit(s: Option<&Stat>, unit: Unit) -> String {
    match s {
        None => "–".into(),
        Some(s) => {
            let (m, lo, hi) = (
                fmt_unit(s.mean, unit),
                fmt_unit(s.lo, unit),
                fmt_unit(s.hi, unit),
            );
            if !s.has_interval() || (lo == m && hi == m) {
                m
            } else {
                format!("{m} [{lo}, {hi}]")
            }
        }
    }
}

/// A table cell for a figure printed with [`fmt`] (the studies' tables), zero-width intervals
/// left out as in [`cell_unit`].
pub(crate) fn cell(s: Option<&Stat>) -> String {
    match s {
        None => "–".into(),
        Some(s) => {
            let (m, lo, hi) = (fmt(s.mean), fmt(s.lo), fmt(s.hi));
            if !s.has_interval() || (lo == m && hi == m) {
                m
            } else {
                format!("{m} [{lo}, {hi}]")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_3_of_10() {
        // p = 0.3, n = 10, z = 1.9599640, z² = 3.8414588, z²/n = 0.38414588.
        // centre = (0.3 + 0.19207294) / 1.38414588 = 0.35550656
        // half   = 1.9599640 · √(0.021 + 0.00960365) / 1.38414588
        //        = 1.9599640 · 0.17493898 / 1.38414588 = 0.24771529
        // → [0.10779127, 0.60322185] (the textbook 10.8%–60.3%).
        let (lo, hi) = wilson(3.0, 10.0).unwrap();
        assert!((lo - 0.107_791_27).abs() < 1e-8, "{lo}");
        assert!((hi - 0.603_221_85).abs() < 1e-8, "{hi}");
    }

    #[test]
    fn wilson_edges_stay_in_range() {
        // 0/10: lo = 0, hi = z²/n / (1 + z²/n) = 0.38414588 / 1.38414588 = 0.27753280.
        let (lo, hi) = wilson(0.0, 10.0).unwrap();
        assert_eq!(lo, 0.0);
        assert!((hi - 0.277_532_8).abs() < 1e-6, "{hi}");
        // 10/10 mirrors it.
        let (lo, hi) = wilson(10.0, 10.0).unwrap();
        assert!((lo - (1.0 - 0.277_532_8)).abs() < 1e-6, "{lo}");
        assert_eq!(hi, 1.0);
        assert_eq!(wilson(1.0, 0.0), None);
        assert_eq!(wilson(f64::NAN, 3.0), None);
        assert_eq!(wilson(4.0, 3.0), None);
    }

    #[test]
    fn pooled_uses_the_summed_counts() {
        // Replicates 1/4 and 2/6 pool to 3/10 — not the mean of 0.25 and 0.333.
        let s = Stat::pooled(&[(1.0, 4.0), (2.0, 6.0)]);
        assert_eq!(s.mean, 0.3);
        assert_eq!(s.interval, IntervalKind::Wilson);
        assert_eq!(s.pooled, Some((3.0, 10.0)));
        assert_eq!(s.values, vec![0.25, 2.0 / 6.0]);
        assert!((s.lo - 0.107_791_27).abs() < 1e-8);
        // One replicate still gets its interval.
        let one = Stat::pooled(&[(3.0, 10.0)]);
        assert!(one.has_interval());
        assert_eq!(
            cell_unit(Some(&one), Unit::Proportion),
            "30.0% [10.8%, 60.3%]"
        );
    }

    #[test]
    fn t_interval_exact_and_clipped() {
        // Values 1, 2, 3: mean 2, s = 1, t(0.975, 2) = 4.302653, half = 4.302653/√3 = 2.484138.
        let s = Stat::new(vec![1.0, 2.0, 3.0]);
        assert_eq!(s.mean, 2.0);
        assert!((s.hi - 4.484_138).abs() < 1e-6, "{}", s.hi);
        assert!((s.lo - (-0.484_138)).abs() < 1e-6, "{}", s.lo);
        let c = s.clipped(0.0, f64::INFINITY);
        assert_eq!(c.lo, 0.0);
        assert_eq!(cell_unit(Some(&c), Unit::Count), "2 [0, 4]");
        // One replicate: no interval, the estimate alone.
        let one = Stat::new(vec![0.5]);
        assert_eq!(one.interval, IntervalKind::None);
        assert_eq!(cell_unit(Some(&one), Unit::Proportion), "50.0%");
        // Equal values: a zero-width interval, never shown; nor one that prints as zero width.
        let same = Stat::new(vec![7.0, 7.0]);
        assert_eq!(cell_unit(Some(&same), Unit::Count), "7");
        let near = Stat::new(vec![600.0, 600.0001]);
        assert_eq!(cell_unit(Some(&near), Unit::Count), "600");
        // A Wilson interval at 0/4500 is not zero width: [0.0%, 0.1%].
        assert_eq!(
            cell_unit(Some(&Stat::pooled(&[(0.0, 4500.0)])), Unit::Proportion),
            "0.0% [0.0%, 0.1%]"
        );
        // No values at all: NaN, printed as a dash, never a panic.
        let none = Stat::new(Vec::new());
        assert_eq!(cell_unit(Some(&none), Unit::Score), "–");
    }

    #[test]
    fn formats_by_unit() {
        assert_eq!(fmt_unit(0.30049, Unit::Proportion), "30.0%");
        assert_eq!(fmt_unit(0.0005, Unit::Proportion), "0.1%");
        assert_eq!(fmt_unit(1.0, Unit::Proportion), "100.0%");
        assert_eq!(fmt_unit(301.5, Unit::Count), "302");
        assert_eq!(fmt_unit(12.0, Unit::Count), "12");
        assert_eq!(fmt_unit(0.052632, Unit::Score), "0.0526");
        assert_eq!(fmt_unit(1234.5, Unit::Score), "1230");
        assert_eq!(fmt_unit(999.6, Unit::Score), "1000");
        assert_eq!(fmt_unit(-2.345, Unit::Score), "-2.35");
        assert_eq!(fmt_unit(3.0, Unit::Score), "3.00");
        assert_eq!(fmt_unit(f64::NAN, Unit::Count), "–");
        assert_eq!(fmt_unit(1.5e-7, Unit::Score), "1.50e-7");
        assert_eq!(fmt(0.052632), "0.0526");
        assert_eq!(fmt(12.0), "12");
    }
}
