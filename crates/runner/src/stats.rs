//! Statistics over replicates (or seeds) and how figures are printed in tables.
//!
//! Intervals respect each figure's range and carry the replicates.
//!
//! A proportion of records whose numerator and denominator are known (an attack's rate) is
//! estimated by the pooled ratio p̂ = Σ k_r / Σ n_r over the R replicates. Its interval is meant
//! for the expected rate of the whole procedure — a defence drawn with its seed, an intruder
//! drawn with theirs, then the attack — so it must carry the variation *between* replicates
//! (another masking, another intruder sample), not only the binomial variation of the records
//! pooled. With R = 1 that variation cannot be seen and the interval is the Wilson score
//! interval of the pooled counts. With R ≥ 2 it is the wider of two intervals:
//!
//! - the **replicate interval**: the replicates are clusters of records, and the ratio
//!   estimator's cluster variance is v = R / (R − 1) · Σ (k_r − p̂ n_r)² / (Σ n_r)², so
//!   p̂ ± t(0.975, R − 1) · √v (the t quantile with R − 1 degrees of freedom, as for a mean of R
//!   values; with equal n_r it is exactly the t-interval of the mean of the replicate shares);
//! - the Wilson interval of the pooled counts, which keeps an interval where every replicate
//!   happens to give the same share (0 of 1,500 three times is not certainty).
//!
//! Both are clipped to [0, 1]. The coverage of this choice for the expected rate is checked by
//! simulation in the tests (replicate rates drawn around a mean, counts binomial around each).
//! Any other figure gets a Student-t interval of the mean over replicates, clipped to the unit's
//! range (proportions in [0, 1], counts ≥ 0). One replicate gives no t-interval.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

use intruder_data::report::{Unit, percent};

/// How an interval was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum IntervalKind {
    /// Wilson score interval of the pooled proportion Σ numerators / Σ denominators (one
    /// replicate).
    Wilson,
    /// The pooled proportion with the wider of the Wilson interval and the replicate interval
    /// (the ratio estimator's between-replicate variance, t with R − 1 degrees of freedom).
    Replicates,
    /// Student-t interval of the mean over replicates, clipped to the figure's range.
    T,
    /// No interval (one replicate, and the figure is not a pooled proportion).
    None,
}

impl IntervalKind {
    /// How the report names it.
    pub fn describe(self) -> &'static str {
        match self {
            IntervalKind::Wilson => {
                "Wilson score interval of the pooled proportion (one replicate)"
            }
            IntervalKind::Replicates => {
                "pooled proportion; the wider of the Wilson interval and the t-interval of the between-replicate variation"
            }
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

/// The replicate interval of a pooled proportion `p` = Σ k_r / `n` (Σ n_r): p ± t(0.975, R − 1)
/// · √v with the ratio estimator's cluster variance v = R / (R − 1) · Σ (k_r − p n_r)² / n².
/// `None` with fewer than two replicates.
pub fn replicate_interval(ratios: &[(f64, f64)], p: f64, n: f64) -> Option<(f64, f64)> {
    let r = ratios.len();
    if r < 2 || !(n > 0.0) {
        return None;
    }
    let ss: f64 = ratios.iter().map(|(k, m)| (k - p * m).powi(2)).sum();
    let v = r as f64 / (r - 1) as f64 * ss / (n * n);
    let t = StudentsT::new(0.0, 1.0, (r - 1) as f64)
        .map(|d| d.inverse_cdf(0.975))
        .ok()?;
    let h = t * v.sqrt();
    Some((p - h, p + h))
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
    /// is Σ numerators / Σ denominators. One replicate: its Wilson interval; two or more: the
    /// wider of the Wilson interval and the replicate interval ([module docs](self)). Falls
    /// back to [`Stat::new`] over the replicate values when the pooled denominator is 0.
    pub fn pooled(ratios: &[(f64, f64)]) -> Stat {
        let values: Vec<f64> = ratios.iter().map(|(k, n)| k / n).collect();
        let k: f64 = ratios.iter().map(|r| r.0).sum();
        let n: f64 = ratios.iter().map(|r| r.1).sum();
        let Some((wlo, whi)) = wilson(k, n) else {
            return Stat::new(values).clipped(0.0, 1.0);
        };
        let p = k / n;
        let (lo, hi, interval) = match replicate_interval(ratios, p, n) {
            Some((rlo, rhi)) => (
                wlo.min(rlo).max(0.0),
                whi.max(rhi).min(1.0),
                IntervalKind::Replicates,
            ),
            None => (wlo, whi, IntervalKind::Wilson),
        };
        Stat {
            mean: p,
            lo,
            hi,
            n: ratios.len(),
            interval,
            values,
            pooled: Some((k, n)),
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

/// Formats a figure by its unit: proportions as percentages with one decimal from 1% up
/// (`30.0%`) and two significant digits below (`0.033%`, [`percent`]), counts as integers (a
/// mean over replicates rounded to the nearest), scores and anything else with 3 significant
/// digits. NaN and infinities print as `–`.
pub fn fmt_unit(x: f64, unit: Unit) -> String {
    if !x.is_finite() {
        return "–".into();
    }
    match unit {
        Unit::Proportion => percent(x),
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
        assert_eq!(s.interval, IntervalKind::Replicates);
        assert_eq!(s.pooled, Some((3.0, 10.0)));
        assert_eq!(s.values, vec![0.25, 2.0 / 6.0]);
        // Replicate interval: Σ(k − p·n)² = 0.2² + 0.2² = 0.08, v = 2/1 · 0.08 / 10² = 0.0016,
        // t(0.975, 1) = 12.7062047 → 0.3 ± 0.5082482: [−0.208, 0.808], wider than Wilson's
        // [0.1078, 0.6032] on both sides; clipped at 0.
        assert_eq!(s.lo, 0.0);
        assert!((s.hi - 0.808_248_19).abs() < 1e-7, "{}", s.hi);
        // One replicate still gets its interval.
        let one = Stat::pooled(&[(3.0, 10.0)]);
        assert!(one.has_interval());
        assert_eq!(
            cell_unit(Some(&one), Unit::Proportion),
            "30.0% [10.8%, 60.3%]"
        );
    }

    #[test]
    fn replicates_that_agree_keep_the_wilson_interval() {
        // 0 of 1,500 three times: no spread between replicates, but not certainty either.
        let s = Stat::pooled(&[(0.0, 1500.0), (0.0, 1500.0), (0.0, 1500.0)]);
        let (lo, hi) = wilson(0.0, 4500.0).unwrap();
        assert_eq!((s.lo, s.hi), (lo, hi));
        assert_eq!(s.interval, IntervalKind::Replicates);
        // Equal denominators: the replicate interval is the t-interval of the replicate shares.
        let r = [(10.0, 100.0), (20.0, 100.0), (30.0, 100.0)];
        let (rlo, rhi) = replicate_interval(&r, 0.2, 300.0).unwrap();
        let t = Stat::new(vec![0.1, 0.2, 0.3]);
        assert!((rlo - t.lo).abs() < 1e-12 && (rhi - t.hi).abs() < 1e-12);
    }

    /// Coverage of the pooled interval for the expected rate, by simulation: each of R
    /// replicates draws its own rate p_r around μ (Beta with standard deviation σ: another
    /// masking, another intruder sample), then k_r ~ Binomial(n, p_r). Over 4,000 simulated
    /// experiments per case the interval must contain μ at least 93% of the time (nominal 95%),
    /// with no spread (σ = 0), a spread far larger than the binomial noise, and in between —
    /// where the pooled Wilson interval alone covers as little as 54%.
    #[test]
    fn the_pooled_interval_covers_the_expected_rate() {
        use rand::{Rng, SeedableRng};
        use rand_chacha::ChaCha20Rng;
        use statrs::distribution::Beta;
        use statrs::distribution::ContinuousCDF as _;
        let mut rng = ChaCha20Rng::seed_from_u64(32);
        let binomial = |n: u64, p: f64, rng: &mut ChaCha20Rng| -> f64 {
            (0..n).filter(|_| rng.r#gen::<f64>() < p).count() as f64
        };
        let cases = [
            // (R, n, μ, σ)
            (3usize, 300u64, 0.05, 0.0),
            (3, 300, 0.05, 0.02),
            (5, 300, 0.2, 0.05),
            (5, 1000, 0.02, 0.01),
            (10, 200, 0.3, 0.08),
        ];
        for (r, n, mu, sigma) in cases {
            let draw_p = |rng: &mut ChaCha20Rng| -> f64 {
                if sigma == 0.0 {
                    return mu;
                }
                // Beta with mean μ and variance σ²: a + b = μ(1 − μ)/σ² − 1
                let s = mu * (1.0 - mu) / (sigma * sigma) - 1.0;
                let beta = Beta::new(mu * s, (1.0 - mu) * s).unwrap();
                beta.inverse_cdf(rng.r#gen::<f64>())
            };
            let sims = 4000;
            let (mut covered, mut wilson_covered) = (0, 0);
            for _ in 0..sims {
                let ratios: Vec<(f64, f64)> = (0..r)
                    .map(|_| {
                        let p = draw_p(&mut rng);
                        (binomial(n, p, &mut rng), n as f64)
                    })
                    .collect();
                let s = Stat::pooled(&ratios);
                covered += usize::from(s.lo <= mu && mu <= s.hi);
                let (k, m) = s.pooled.unwrap();
                let (wl, wh) = wilson(k, m).unwrap();
                wilson_covered += usize::from(wl <= mu && mu <= wh);
            }
            let cov = covered as f64 / sims as f64;
            let wcov = wilson_covered as f64 / sims as f64;
            eprintln!("R={r} n={n} μ={mu} σ={sigma}: coverage {cov:.3} (Wilson alone {wcov:.3})");
            assert!(cov >= 0.93, "R={r} n={n} μ={mu} σ={sigma}: coverage {cov}");
            if sigma >= 0.05 {
                assert!(
                    wcov < 0.8,
                    "the Wilson interval alone misses the spread: {wcov}"
                );
            }
        }
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
        // A Wilson interval at 0/4500 is not zero width: [0.0%, 0.085%].
        assert_eq!(
            cell_unit(Some(&Stat::pooled(&[(0.0, 4500.0)])), Unit::Proportion),
            "0.0% [0.0%, 0.085%]"
        );
        // No values at all: NaN, printed as a dash, never a panic.
        let none = Stat::new(Vec::new());
        assert_eq!(cell_unit(Some(&none), Unit::Score), "–");
    }

    #[test]
    fn formats_by_unit() {
        assert_eq!(fmt_unit(0.30049, Unit::Proportion), "30.0%");
        assert_eq!(fmt_unit(0.0005, Unit::Proportion), "0.050%");
        assert_eq!(fmt_unit(0.000333, Unit::Proportion), "0.033%");
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
