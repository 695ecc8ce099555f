//! Success rates, their errors and the risk, computed as anonymeter computes them
//! (`anonymeter.stats.confidence`: `success_rate`, `residual_success`, `bind_value`,
//! `EvaluationResults`).
//!
//! - A rate is the centre of the Wilson score interval (Wilson 1927) and its half-width:
//!   `rate = (k + z²/2) / (n + z²)`, `error = z / (n + z²) · sqrt(k (n − k) / n + z²/4)` with
//!   `z = Φ⁻¹((1 + confidence level) / 2)` (1.96 at 0.95). The centre is not `k / n`: with no
//!   success at all, 2,000 attacks give a rate of 0.00096 ± 0.00096.
//! - The risk is the residual success of the main attack over the control attack,
//!   `(attack − control) / (1 − control)`, its error propagated to first order from both rates'
//!   errors; the risk and the ends of its interval are then clipped to `[0, 1]`.

use statrs::distribution::{ContinuousCDF, Normal};

/// The confidence level anonymeter uses unless told otherwise.
pub const DEFAULT_CONFIDENCE: f64 = 0.95;

/// A success rate and its error (anonymeter's `SuccessRate`): the rate lies in
/// `value ± error` at the result's confidence level.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// The centre of the Wilson score interval.
    pub value: f64,
    /// The half-width of the Wilson score interval.
    pub error: f64,
}

/// The standard normal quantile of `(1 + confidence_level) / 2` (1.959964 at 0.95).
pub fn probit(confidence_level: f64) -> f64 {
    let normal = Normal::standard();
    normal.inverse_cdf(0.5 * (1.0 + confidence_level))
}

/// The Wilson score estimate of a success rate from `n_success` successes in `n_total` trials
/// (`n_success` may be fractional: singling out's control count after its size correction).
pub fn success_rate(n_total: usize, n_success: f64, confidence_level: f64) -> Rate {
    let z = probit(confidence_level);
    let z2 = z * z;
    let n = n_total as f64;
    let variance = n_success * (n - n_success) / n;
    let denominator = n + z2;
    Rate {
        value: (n_success + 0.5 * z2) / denominator,
        error: (z / denominator) * (variance + 0.25 * z2).sqrt(),
    }
}

/// The excess of the main attack's success over the control attack's, relative to what the
/// control attack left to gain, `(attack − control) / (1 − control)`, with its error propagated
/// from both rates' errors (anonymeter's `residual_success`; unclipped).
pub fn residual_success(attack: Rate, control: Rate) -> Rate {
    let value = (attack.value - control.value) / (1.0 - control.value);
    let d_attack = 1.0 / (1.0 - control.value).abs();
    let d_control = (attack.value - 1.0) / (1.0 - control.value).powi(2);
    let error = ((attack.error * d_attack).powi(2) + (control.error * d_control).powi(2)).sqrt();
    Rate { value, error }
}

/// A point estimate and the interval `point ± error`, each clipped to `[0, 1]` (anonymeter's
/// `bind_value`; a NaN stays NaN).
pub fn clipped(point: f64, error: f64) -> (f64, (f64, f64)) {
    let clip = |x: f64| if x.is_nan() { x } else { x.clamp(0.0, 1.0) };
    (clip(point), (clip(point - error), clip(point + error)))
}

/// The answer to one question: the three attacks' rates, the risk and its interval.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionResult {
    /// The number of attacks asked for; every rate is a share of it.
    pub n_attacks: usize,
    /// Successes of the main attack (against the original).
    pub n_success: usize,
    /// Successes of the same attack against the control set (fractional for singling out when
    /// the control set's size differs from the original's: anonymeter's size correction).
    pub n_control: f64,
    /// Successes of the baseline (random) attack.
    pub n_baseline: usize,
    /// The confidence level of the errors and the interval.
    pub confidence_level: f64,
    /// The main attack's success rate.
    pub attack_rate: Rate,
    /// The control attack's success rate.
    pub control_rate: Rate,
    /// The baseline attack's success rate.
    pub baseline_rate: Rate,
    /// `(attack − control) / (1 − control)`, clipped to `[0, 1]`.
    pub risk: f64,
    /// The risk's confidence interval, clipped to `[0, 1]`.
    pub risk_ci: (f64, f64),
    /// What makes the result doubtful (the main attack not beating the baseline, fewer attacks
    /// than asked for).
    pub warnings: Vec<String>,
}

impl QuestionResult {
    /// The rates, risk and warnings of the given success counts (anonymeter's
    /// `EvaluationResults` and `risk()`); `notes` are the question's own warnings, kept first.
    pub fn from_counts(
        n_attacks: usize,
        n_success: usize,
        n_control: f64,
        n_baseline: usize,
        confidence_level: f64,
        notes: Vec<String>,
    ) -> QuestionResult {
        let attack_rate = success_rate(n_attacks, n_success as f64, confidence_level);
        let control_rate = success_rate(n_attacks, n_control, confidence_level);
        let baseline_rate = success_rate(n_attacks, n_baseline as f64, confidence_level);
        let residual = residual_success(attack_rate, control_rate);
        let (risk, risk_ci) = clipped(residual.value, residual.error);
        let mut warnings = notes;
        if baseline_rate.value >= attack_rate.value {
            warnings.push(format!(
                "the attack is as good as or worse than the baseline (random guessing): attack rate = {}, baseline rate = {}; the risk cannot be trusted",
                attack_rate.value, baseline_rate.value
            ));
        }
        if control_rate.value >= 1.0 {
            warnings.push(
                "the control attack succeeds every time: the residual risk cannot be measured"
                    .to_string(),
            );
        }
        QuestionResult {
            n_attacks,
            n_success,
            n_control,
            n_baseline,
            confidence_level,
            attack_rate,
            control_rate,
            baseline_rate,
            risk,
            risk_ci,
            warnings,
        }
    }

    /// The same counts at another confidence level (the question's own warnings are kept).
    pub fn at_confidence(&self, confidence_level: f64) -> QuestionResult {
        let own: Vec<String> = self
            .warnings
            .iter()
            .filter(|w| {
                !w.starts_with("the attack is as good")
                    && !w.starts_with("the control attack succeeds")
            })
            .cloned()
            .collect();
        QuestionResult::from_counts(
            self.n_attacks,
            self.n_success,
            self.n_control,
            self.n_baseline,
            confidence_level,
            own,
        )
    }
}
