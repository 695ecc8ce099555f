//! Population uniqueness from a sample (docs/METHODS.md §1.3): how many records are unique in the
//! *population*, estimated from the sample's frequencies, and each sample unique's probability
//! of being one.
//!
//! Notation: `n` sample records, `N` population size, `π = n/N`, `u` sample classes, `n_j` the
//! number of sample classes of size `j` (`n₁` = sample uniques).
//!
//! - [`Zayatz`] (Zayatz 1991, as ARX's `ModelZayatz`): the share of sample uniques that are
//!   population unique is `P = n₁·h(1) / Σ_j n_j·h(j)` with `h(j)` the hypergeometric chance that
//!   a population class of size `j` leaves exactly one record in a sample of `n` out of `N`
//!   (`h(j)/h(1) = j·∏_{t=1}^{j−1} (N−n+1−t)/(N−t)`); population uniques `Û = n₁·P/π`.
//! - [`Pitman`] (Hoshino 2001, as ARX's `ModelPitman`): the maximum-likelihood (θ, α) of the
//!   Pitman sampling formula, solving
//!   `Σ_{i=1}^{u−1} 1/(θ+iα) = Σ_{i=1}^{n−1} 1/(θ+i)` and
//!   `Σ_{i=1}^{u−1} i/(θ+iα) = Σ_j n_j Σ_{l=1}^{j−1} 1/(l−α)` by Newton's method;
//!   `Û = Γ(θ+1)/Γ(θ+α) · N^α`.
//! - [`Snb`] (Chen & Keller-McNulty 1998, slide negative binomial; the Poisson–Gamma
//!   superpopulation of Bethlehem, Keller & Pannekoek 1990 with the population cell sizes shifted
//!   to start at 1): population cell sizes `F = 1 + NB(α, β)` over `K` non-empty cells, the sample
//!   a Bernoulli(π) thinning. Then `E n₁ = Kπ(β/(1−d))^α (1 + αd/(1−d))` and
//!   `E n₂ = K(π²/2)·α(1−β)β^α(1−d)^{−(α+2)}(2 − (1−α)d)` with `d = (1−π)(1−β)`, solved for (α, β)
//!   with `K` from Shlosser's estimator `K̂ = u + n₁·Σ_j (1−π)^j n_j / Σ_j jπ(1−π)^{j−1} n_j`
//!   (Haas et al. 1995); `Û = K̂·β^α`. (ARX's second moment multiplies by `(1−d)^{α+2}` where the
//!   model divides by it, and uses a modified Shlosser estimator; this follows the model.)
//! - [`dankar_rule`] (Dankar et al. 2012, as ARX): `π ≤ 0.1`: Pitman, or Zayatz when Pitman has no
//!   valid estimate; otherwise the smaller of Zayatz and SNB, or Zayatz when SNB has none.
//! - Log-linear models (Skinner & Holmes 1998; sdcMicro `modRisk`): sample cell counts are
//!   Poisson with means μ_k fitted by a log-linear model over the grid of observed categories —
//!   main effects (closed form: `μ_k = n ∏_v m_v(x_{kv})/n` with m_v the margins) or all two-way
//!   interactions (iterative proportional fitting, the MLE of that hierarchical model). With
//!   `λ_k = μ_k/π`, `F_k − f_k ~ Poisson((1−π)λ_k)`, so for a sample unique
//!   `P(F_k = 1 | f_k = 1) = exp(−(1−π)λ_k)` and `E(1/F_k | f_k = 1) = (1 − e^{−v})/v`,
//!   `v = (1−π)λ_k`; τ₁ and τ₂ are their sums over the sample uniques. sdcMicro's `modRisk`
//!   instead plugs the fitted *sample* mean μ_k (not μ_k/π) into `v`, with π the record's
//!   inclusion probability 1/w, and divides the sums by the number of non-empty cells; both are
//!   reported (`sdcmicro_gr1`, `sdcmicro_gr2`).
//!
//! Per-record probability of population uniqueness: for a sample unique, `min(1, π·Û/n₁)` under
//! the frequency estimators (a population unique is sampled with probability π, so π·Û sample
//! uniques are expected to be population unique) and `exp(−(1−π)λ_k)` under the log-linear
//! model; 0 for records whose class has two or more sample records. With π = 1 (a census) every
//! estimate is the number of sample uniques, exactly.

use serde_json::json;

use intruder_table::Table;

use crate::classes::{DELETED, classes_of};
use crate::error::RiskError;
use crate::keys::{KeyData, MISSING, MissingPolicy, SetMatch, key_data};
use intruder_table::report::{Figure, RecordValues, Records, Report, ReportTable, Unit};

mod special;
pub use special::{digamma, ln_gamma, trigamma};

/// A sample summarised by its frequencies of frequencies.
#[derive(Debug, Clone, PartialEq)]
pub struct SampleFrequencies {
    /// Sample records n.
    pub n: f64,
    /// Population size N.
    pub big_n: f64,
    /// Sampling fraction π = n/N.
    pub pi: f64,
    /// Number of sample classes u.
    pub classes: u64,
    /// (j, n_j): the number of sample classes of size j, by increasing j, n_j > 0.
    pub freq_of_freq: Vec<(u32, u64)>,
}

impl SampleFrequencies {
    /// From class sizes and the sampling fraction. Errors when π ∉ (0, 1] or no class is given.
    pub fn new(sizes: &[u32], pi: f64) -> Result<Self, RiskError> {
        check_fraction(pi)?;
        if sizes.is_empty() {
            return Err(RiskError::Param(
                "no sample classes to estimate from".into(),
            ));
        }
        let mut s: Vec<u32> = sizes.iter().copied().filter(|&x| x > 0).collect();
        s.sort_unstable();
        let mut fof: Vec<(u32, u64)> = Vec::new();
        for x in s {
            match fof.last_mut() {
                Some((j, c)) if *j == x => *c += 1,
                _ => fof.push((x, 1)),
            }
        }
        let n: f64 = fof.iter().map(|&(j, c)| j as f64 * c as f64).sum();
        Ok(SampleFrequencies {
            n,
            big_n: n / pi,
            pi,
            classes: fof.iter().map(|&(_, c)| c).sum(),
            freq_of_freq: fof,
        })
    }

    /// n_j.
    pub fn n_of(&self, j: u32) -> u64 {
        self.freq_of_freq
            .iter()
            .find(|&&(s, _)| s == j)
            .map_or(0, |&(_, c)| c)
    }
}

fn check_fraction(pi: f64) -> Result<(), RiskError> {
    if pi.is_finite() && pi > 0.0 && pi <= 1.0 {
        Ok(())
    } else {
        Err(RiskError::Param(format!(
            "the sampling fraction must lie in (0, 1], found {pi}"
        )))
    }
}

/// One estimator's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Estimated number of population uniques; `None` when the model gives no valid estimate
    /// (did not converge, or falls outside [0, N]).
    pub population_uniques: Option<f64>,
    /// Fitted parameters, by name.
    pub parameters: Vec<(&'static str, f64)>,
}

/// An estimator of the number of population uniques from sample frequencies.
pub trait UniquenessEstimator: Sync {
    /// Registry name.
    fn name(&self) -> &'static str;
    /// The paper it implements.
    fn reference(&self) -> &'static str;
    /// The estimate. Called with n₁ > 0 and π < 1 (see [`estimate_all`]).
    fn estimate(&self, s: &SampleFrequencies) -> Estimate;
}

/// Every frequency-based estimator, in report order.
pub static ESTIMATORS: &[&dyn UniquenessEstimator] = &[&Zayatz, &Pitman, &Snb];

/// Runs `e` with the census and no-uniques cases handled: with no sample uniques every estimate
/// is 0; with π = 1 it is n₁.
pub fn estimate_with(e: &dyn UniquenessEstimator, s: &SampleFrequencies) -> Estimate {
    let n1 = s.n_of(1) as f64;
    if n1 == 0.0 || s.pi >= 1.0 {
        return Estimate {
            population_uniques: Some(n1),
            parameters: Vec::new(),
        };
    }
    let mut e = e.estimate(s);
    if let Some(u) = e.population_uniques
        && !(u.is_finite() && u >= 0.0 && u <= s.big_n)
    {
        e.population_uniques = None;
    }
    e
}

/// Every estimator of [`ESTIMATORS`] on `s`, by name.
pub fn estimate_all(s: &SampleFrequencies) -> Vec<(&'static str, Estimate)> {
    ESTIMATORS
        .iter()
        .map(|e| (e.name(), estimate_with(*e, s)))
        .collect()
}

/// Zayatz (1991), module docs.
#[derive(Debug, Clone, Copy)]
pub struct Zayatz;

impl Zayatz {
    /// h(j)/h(1) = j·∏_{t=1}^{j−1} (N−n+1−t)/(N−t).
    pub fn h_ratio(j: u32, n: f64, big_n: f64) -> f64 {
        let mut log = (j as f64).ln();
        for t in 1..j {
            let num = big_n - n + 1.0 - t as f64;
            if num <= 0.0 {
                return 0.0;
            }
            log += num.ln() - (big_n - t as f64).ln();
            if log < -745.0 {
                return 0.0;
            }
        }
        log.exp()
    }
}

impl UniquenessEstimator for Zayatz {
    fn name(&self) -> &'static str {
        "zayatz"
    }
    fn reference(&self) -> &'static str {
        "Zayatz (1991), Estimation of the number of unique population elements using a sample"
    }
    fn estimate(&self, s: &SampleFrequencies) -> Estimate {
        let n1 = s.n_of(1) as f64;
        let den: f64 = s
            .freq_of_freq
            .iter()
            .map(|&(j, c)| c as f64 * Zayatz::h_ratio(j, s.n, s.big_n))
            .sum();
        let p = n1 / den;
        Estimate {
            population_uniques: Some(n1 * p / s.pi),
            parameters: vec![("p_unique_given_sample_unique", p)],
        }
    }
}

/// Pitman's sampling formula (Hoshino 2001), module docs. The search keeps α < 1 and
/// θ + iα > 0 for i < u, so α ≤ 0 (a light tail: finitely many classes) is allowed, as in ARX;
/// an estimate is valid when Newton's method converges and 0 ≤ Û ≤ N.
#[derive(Debug, Clone, Copy)]
pub struct Pitman;

impl Pitman {
    /// The two likelihood equations at (θ, α), as direct sums (for checking a solution).
    pub fn score_equations(s: &SampleFrequencies, theta: f64, alpha: f64) -> (f64, f64) {
        let u = s.classes;
        let (mut s1, mut si) = (0.0, 0.0);
        for i in 1..u {
            let x = 1.0 / (theta + i as f64 * alpha);
            s1 += x;
            si += i as f64 * x;
        }
        let mut rn = 0.0;
        for i in 1..s.n as u64 {
            rn += 1.0 / (theta + i as f64);
        }
        let mut rj = 0.0;
        for &(j, c) in &s.freq_of_freq {
            let mut t = 0.0;
            for l in 1..j {
                t += 1.0 / (l as f64 - alpha);
            }
            rj += c as f64 * t;
        }
        (s1 - rn, si - rj)
    }

    /// Solves the likelihood equations; `None` when Newton's method does not converge.
    pub fn fit(s: &SampleFrequencies) -> Option<(f64, f64)> {
        let u = s.classes as f64;
        let n = s.n;
        if s.classes < 2 || n < 2.0 {
            return None;
        }
        let c1 = s.n_of(1) as f64;
        let c2 = (s.n_of(2) as f64).max(1.0);
        let c = c1 * (c1 - 1.0) / c2;
        let mut t = (n * u * c - c1 * (n - 1.0) * (2.0 * u + c)) / (2.0 * c1 * u + c1 * c - n * c);
        let mut a = (t * (c1 - n) + (n - 1.0) * c1) / (n * u);
        // The likelihood needs θ + iα > 0 for i < u and α < 1.
        let inside = |t: f64, a: f64| {
            t.is_finite() && a.is_finite() && a < 1.0 && t + a > 0.0 && t + (u - 1.0) * a > 0.0
        };
        if !inside(t, a) {
            t = 1.0;
            a = 0.5;
        }
        let eval = |t: f64, a: f64| {
            let (mut s1, mut si, mut s11, mut si1, mut sii) = (0.0, 0.0, 0.0, 0.0, 0.0);
            for i in 1..s.classes {
                let fi = i as f64;
                let x = 1.0 / (t + fi * a);
                let x2 = x * x;
                s1 += x;
                si += fi * x;
                s11 += x2;
                si1 += fi * x2;
                sii += fi * fi * x2;
            }
            let (mut rj, mut rj2) = (0.0, 0.0);
            let (p0, p1) = (digamma(1.0 - a), trigamma(1.0 - a));
            for &(j, cnt) in &s.freq_of_freq {
                if j > 1 {
                    rj += cnt as f64 * (digamma(j as f64 - a) - p0);
                    rj2 += cnt as f64 * (p1 - trigamma(j as f64 - a));
                }
            }
            let g1 = s1 - (digamma(t + n) - digamma(t + 1.0));
            let g2 = si - rj;
            let j11 = -s11 + (trigamma(t + 1.0) - trigamma(t + n));
            let j12 = -si1;
            let j22 = -sii - rj2;
            (g1, g2, j11, j12, j22)
        };
        for _ in 0..500 {
            let (g1, g2, j11, j12, j22) = eval(t, a);
            let det = j11 * j22 - j12 * j12;
            if !det.is_finite() || det == 0.0 {
                return None;
            }
            let dt = -(j22 * g1 - j12 * g2) / det;
            let da = -(-j12 * g1 + j11 * g2) / det;
            let mut step = 1.0;
            let (mut nt, mut na);
            loop {
                nt = t + step * dt;
                na = a + step * da;
                if inside(nt, na) {
                    break;
                }
                step /= 2.0;
                if step < 1e-12 {
                    return None;
                }
            }
            let done = (nt - t).abs() <= 1e-10 * (1.0 + t.abs()) && (na - a).abs() <= 1e-10;
            t = nt;
            a = na;
            if done {
                let (g1, g2, ..) = eval(t, a);
                let scale = 1.0 + u;
                return (g1.abs() < 1e-7 * scale && g2.abs() < 1e-7 * scale).then_some((t, a));
            }
        }
        None
    }
}

impl UniquenessEstimator for Pitman {
    fn name(&self) -> &'static str {
        "pitman"
    }
    fn reference(&self) -> &'static str {
        "Hoshino (2001), Applying Pitman's sampling formula to microdata disclosure risk assessment"
    }
    fn estimate(&self, s: &SampleFrequencies) -> Estimate {
        match Pitman::fit(s) {
            Some((t, a)) => Estimate {
                population_uniques: Some(
                    (ln_gamma(t + 1.0) - ln_gamma(t + a) + a * s.big_n.ln()).exp(),
                ),
                parameters: vec![("theta", t), ("alpha", a)],
            },
            None => Estimate {
                population_uniques: None,
                parameters: Vec::new(),
            },
        }
    }
}

/// The slide negative binomial model (Chen & Keller-McNulty 1998), module docs.
#[derive(Debug, Clone, Copy)]
pub struct Snb;

impl Snb {
    /// Shlosser's estimate of the number of non-empty population cells.
    pub fn shlosser(s: &SampleFrequencies) -> f64 {
        let q = s.pi;
        let (mut num, mut den) = (0.0, 0.0);
        for &(j, c) in &s.freq_of_freq {
            let j = j as f64;
            num += (1.0 - q).powf(j) * c as f64;
            den += j * q * (1.0 - q).powf(j - 1.0) * c as f64;
        }
        s.classes as f64 + s.n_of(1) as f64 * num / den
    }

    /// Expected (n₁, n₂) under the model with K cells, sampling fraction π, parameters (α, β).
    pub fn expected(k: f64, pi: f64, alpha: f64, beta: f64) -> (f64, f64) {
        let d = (1.0 - pi) * (1.0 - beta);
        let e1 = k * pi * (beta / (1.0 - d)).powf(alpha) * (1.0 + alpha * d / (1.0 - d));
        let e2 = k * pi * pi / 2.0
            * alpha
            * (1.0 - beta)
            * beta.powf(alpha)
            * (1.0 - d).powf(-(alpha + 2.0))
            * (2.0 - (1.0 - alpha) * d);
        (e1, e2)
    }

    /// Solves E n₁ = n₁, E n₂ = n₂ for (α, β); `None` when no start converges.
    pub fn fit(k: f64, pi: f64, n1: f64, n2: f64) -> Option<(f64, f64)> {
        if !(n1 > 0.0 && n2 > 0.0 && k > 0.0) {
            return None;
        }
        let f = |x: f64, y: f64| -> Option<(f64, f64)> {
            let (a, b) = (x.exp(), 1.0 / (1.0 + (-y).exp()));
            let (e1, e2) = Snb::expected(k, pi, a, b);
            let r = (e1.ln() - n1.ln(), e2.ln() - n2.ln());
            (r.0.is_finite() && r.1.is_finite()).then_some(r)
        };
        for &a0 in &[1.0f64, 0.3, 3.0, 0.05, 20.0] {
            for &b0 in &[0.5f64, 0.1, 0.9, 0.01, 0.99] {
                let (mut x, mut y) = (a0.ln(), (b0 / (1.0 - b0)).ln());
                let mut ok = false;
                for _ in 0..200 {
                    let Some((r1, r2)) = f(x, y) else { break };
                    if r1.abs() < 1e-12 && r2.abs() < 1e-12 {
                        ok = true;
                        break;
                    }
                    let h = 1e-6;
                    let (Some(px), Some(mx), Some(py), Some(my)) =
                        (f(x + h, y), f(x - h, y), f(x, y + h), f(x, y - h))
                    else {
                        break;
                    };
                    let (j11, j21) = ((px.0 - mx.0) / (2.0 * h), (px.1 - mx.1) / (2.0 * h));
                    let (j12, j22) = ((py.0 - my.0) / (2.0 * h), (py.1 - my.1) / (2.0 * h));
                    let det = j11 * j22 - j12 * j21;
                    if !det.is_finite() || det.abs() < 1e-300 {
                        break;
                    }
                    let dx = -(j22 * r1 - j12 * r2) / det;
                    let dy = -(-j21 * r1 + j11 * r2) / det;
                    // Damped: at most 2 in log space per step.
                    let scale = (2.0 / dx.abs().max(dy.abs())).min(1.0);
                    x += scale * dx;
                    y += scale * dy;
                    if !(x.is_finite() && y.is_finite()) || x.abs() > 50.0 || y.abs() > 50.0 {
                        break;
                    }
                }
                if ok {
                    return Some((x.exp(), 1.0 / (1.0 + (-y).exp())));
                }
            }
        }
        None
    }
}

impl UniquenessEstimator for Snb {
    fn name(&self) -> &'static str {
        "snb"
    }
    fn reference(&self) -> &'static str {
        "Chen & Keller-McNulty (1998), Estimation of identification disclosure risk in microdata"
    }
    fn estimate(&self, s: &SampleFrequencies) -> Estimate {
        let k = Snb::shlosser(s);
        match Snb::fit(k, s.pi, s.n_of(1) as f64, s.n_of(2) as f64) {
            Some((a, b)) => Estimate {
                population_uniques: Some(k * b.powf(a)),
                parameters: vec![("k", k), ("alpha", a), ("beta", b)],
            },
            None => Estimate {
                population_uniques: None,
                parameters: vec![("k", k)],
            },
        }
    }
}

/// Dankar et al.'s (2012) rule as ARX applies it: `(estimator, estimate)`; `None` when no
/// estimator the rule would pick has a valid (finite, non-zero) estimate.
pub fn dankar_rule(
    pi: f64,
    zayatz: Option<f64>,
    pitman: Option<f64>,
    snb: Option<f64>,
) -> Option<(&'static str, f64)> {
    let valid = |x: Option<f64>| x.filter(|v| v.is_finite() && *v != 0.0);
    let z = valid(zayatz).map(|v| ("zayatz", v));
    // π is often computed (n/N, n/Σw): allow rounding at the 10% boundary.
    if pi <= 0.1 * (1.0 + 1e-9) {
        valid(pitman).map(|v| ("pitman", v)).or(z)
    } else {
        match (valid(snb), z) {
            (Some(s), Some((_, zv))) if zv < s => z,
            (Some(s), _) => Some(("snb", s)),
            (None, z) => z,
        }
    }
}

/// The log-linear model of the sample cell means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogLinearModel {
    /// Main effects only (independence): closed form.
    #[default]
    MainEffects,
    /// All two-way interactions: iterative proportional fitting over the full grid.
    TwoWay,
}

impl LogLinearModel {
    /// The command-line name.
    pub fn as_str(self) -> &'static str {
        match self {
            LogLinearModel::MainEffects => "main-effects",
            LogLinearModel::TwoWay => "two-way",
        }
    }
}

impl std::str::FromStr for LogLinearModel {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "main-effects" => Ok(LogLinearModel::MainEffects),
            "two-way" => Ok(LogLinearModel::TwoWay),
            _ => Err(format!(
                "unknown log-linear model '{s}'; expected main-effects or two-way"
            )),
        }
    }
}

/// What to estimate. Build with [`PopulationParams::new`] and set the public fields.
#[derive(Debug, Clone, PartialEq)]
pub struct PopulationParams {
    /// Key variables.
    pub keys: Vec<String>,
    /// Missing-value policy (listwise or as-value).
    pub missing: MissingPolicy,
    /// Set-valued matching.
    pub set_match: SetMatch,
    /// Population size N (π = records / N).
    pub population_size: Option<f64>,
    /// Sampling fraction π, given directly.
    pub sampling_fraction: Option<f64>,
    /// Sampling-weight column (π = records / Σ w when neither of the above is given; the
    /// records' 1/w in sdcMicro's variant of τ).
    pub weight: Option<String>,
    /// Log-linear model.
    pub log_linear: LogLinearModel,
    /// Largest grid (product of the observed category counts) for the two-way model.
    pub max_cells: f64,
}

impl PopulationParams {
    /// Defaults: listwise, main effects, two-way grids up to 4,000,000 cells.
    pub fn new(keys: Vec<String>) -> Self {
        PopulationParams {
            keys,
            missing: MissingPolicy::Listwise,
            set_match: SetMatch::Overlap,
            population_size: None,
            sampling_fraction: None,
            weight: None,
            log_linear: LogLinearModel::MainEffects,
            max_cells: 4e6,
        }
    }

    /// Checks what does not depend on the data.
    pub fn check(&self) -> Result<(), RiskError> {
        let mut problems = Vec::new();
        if self.keys.is_empty() {
            problems.push("no key variables given".to_string());
        }
        if self.missing == MissingPolicy::Wildcard {
            problems.push(
                "population estimators need classes: use the listwise or as-value policy".into(),
            );
        }
        if let Some(pi) = self.sampling_fraction
            && !(pi.is_finite() && pi > 0.0 && pi <= 1.0)
        {
            problems.push(format!(
                "the sampling fraction must lie in (0, 1], found {pi}"
            ));
        }
        if let Some(n) = self.population_size
            && !(n.is_finite() && n > 0.0)
        {
            problems.push(format!(
                "the population size must be a positive number, found {n}"
            ));
        }
        if self.population_size.is_some() && self.sampling_fraction.is_some() {
            problems.push("give the population size or the sampling fraction, not both".into());
        }
        if self.population_size.is_none()
            && self.sampling_fraction.is_none()
            && self.weight.is_none()
        {
            problems.push(
                "the estimators need the sampling fraction: give the population size (--population-size N), the fraction (--sampling-fraction F) or a weight column (--weight COL)".into(),
            );
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(RiskError::Param(problems.join("; ")))
        }
    }
}

/// Skinner & Holmes' τ from a log-linear model.
#[derive(Debug, Clone, PartialEq)]
pub struct LogLinearRisk {
    /// Model fitted.
    pub model: LogLinearModel,
    /// τ₁ = Σ_{SU} P(F = 1 | f = 1): expected sample uniques that are population unique.
    pub tau1: f64,
    /// τ₂ = Σ_{SU} E(1/F | f = 1): expected correct matches of sample uniques.
    pub tau2: f64,
    /// sdcMicro `modRisk`'s gr1 (module docs).
    pub sdcmicro_gr1: f64,
    /// sdcMicro `modRisk`'s gr2.
    pub sdcmicro_gr2: f64,
    /// Cells of the grid of observed categories.
    pub grid_cells: f64,
    /// IPF sweeps (two-way model).
    pub sweeps: usize,
}

/// The result of [`population_uniqueness`].
#[derive(Debug, Clone, PartialEq)]
pub struct PopulationRisk {
    /// Keys.
    pub keys: Vec<String>,
    /// Policy.
    pub policy: MissingPolicy,
    /// Records in the file.
    pub n_total: usize,
    /// Records dropped (listwise).
    pub n_deleted: usize,
    /// The sample's frequencies (n = records counted).
    pub frequencies: SampleFrequencies,
    /// Every frequency estimator's answer, in [`ESTIMATORS`] order.
    pub estimates: Vec<(&'static str, Estimate)>,
    /// Dankar et al.'s choice.
    pub rule: Option<(&'static str, f64)>,
    /// Log-linear τ.
    pub log_linear: LogLinearRisk,
    /// Per record: sample class size f_k (`None`: deleted).
    pub k: Vec<Option<u32>>,
    /// Per record: probability of population uniqueness from the rule's estimate.
    pub pr_unique_rule: Vec<Option<f64>>,
    /// Per record: P(F = 1 | f) under the log-linear model.
    pub pr_unique_loglinear: Vec<Option<f64>>,
    /// Per record: E(1/F | f = 1) under the log-linear model (sample uniques; 0 otherwise).
    pub expected_inverse_loglinear: Vec<Option<f64>>,
    /// Warnings about the weights ([`crate::assess::weight_warnings`]).
    pub warnings: Vec<String>,
}

impl PopulationRisk {
    /// The estimate of `name` (`zayatz`, `pitman`, `snb`).
    pub fn estimate(&self, name: &str) -> Option<&Estimate> {
        self.estimates
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, e)| e)
    }

    /// File-level figures in report order, each with its meaning.
    pub fn figures(&self) -> Vec<Figure> {
        let mut out = Vec::new();
        let mut add = |name: &str, value: serde_json::Value, unit: Unit, meaning: String| {
            out.push(Figure::new(name, value, unit, meaning))
        };
        let s = &self.frequencies;
        add(
            "measure",
            json!("population"),
            Unit::Label,
            "population-uniqueness estimators".into(),
        );
        add(
            "policy",
            json!(self.policy.as_str()),
            Unit::Label,
            "how missing key values were treated".into(),
        );
        add(
            "keys",
            json!(self.keys),
            Unit::Label,
            "key variables (quasi-identifiers)".into(),
        );
        add(
            "n_total",
            json!(self.n_total),
            Unit::Count,
            "records in the file".into(),
        );
        add(
            "n_deleted",
            json!(self.n_deleted),
            Unit::Count,
            "records dropped for a missing key (listwise)".into(),
        );
        add(
            "n",
            json!(s.n),
            Unit::Count,
            "records counted (sample size n)".into(),
        );
        add(
            "sampling_fraction",
            json!(s.pi),
            Unit::Proportion,
            "π = n/N".into(),
        );
        add(
            "population_size",
            json!(s.big_n),
            Unit::Score,
            "N = n/π: the population the counted records stand for".into(),
        );
        add(
            "classes",
            json!(s.classes),
            Unit::Count,
            "sample classes u".into(),
        );
        add(
            "sample_uniques",
            json!(s.n_of(1)),
            Unit::Count,
            "sample classes of size 1 (n₁)".into(),
        );
        add(
            "sample_pairs",
            json!(s.n_of(2)),
            Unit::Count,
            "sample classes of size 2 (n₂)".into(),
        );
        for (name, e) in &self.estimates {
            let (field, meaning): (&'static str, &str) = match *name {
                "zayatz" => ("zayatz", "population uniques, Zayatz (1991)"),
                "pitman" => (
                    "pitman",
                    "population uniques, Pitman sampling formula (Hoshino 2001)",
                ),
                _ => (
                    "snb",
                    "population uniques, slide negative binomial (Chen & Keller-McNulty 1998)",
                ),
            };
            add(
                field,
                json!(e.population_uniques),
                Unit::Score,
                meaning.into(),
            );
        }
        add(
            "rule_model",
            json!(self.rule.map(|r| r.0)),
            Unit::Label,
            "estimator chosen by Dankar et al.'s rule (π ≤ 0.1: Pitman; else min(Zayatz, SNB))"
                .into(),
        );
        add(
            "rule_estimate",
            json!(self.rule.map(|r| r.1)),
            Unit::Score,
            "population uniques by Dankar et al.'s rule".into(),
        );
        let l = &self.log_linear;
        add(
            "loglinear_model",
            json!(l.model.as_str()),
            Unit::Label,
            "log-linear model of the sample cell means".into(),
        );
        add(
            "tau1",
            json!(l.tau1),
            Unit::Score,
            "Skinner–Holmes τ₁: expected sample uniques that are population unique".into(),
        );
        add(
            "tau2",
            json!(l.tau2),
            Unit::Score,
            "Skinner–Holmes τ₂: expected correct matches of sample uniques".into(),
        );
        add(
            "sdcmicro_gr1",
            json!(l.sdcmicro_gr1),
            Unit::Score,
            "τ₁ as sdcMicro modRisk computes it (fitted sample means, per non-empty cell)".into(),
        );
        add(
            "sdcmicro_gr2",
            json!(l.sdcmicro_gr2),
            Unit::Score,
            "τ₂ as sdcMicro modRisk computes it".into(),
        );
        out
    }

    /// The figures and a table of the estimators' fitted parameters (one row per estimator,
    /// empty where an estimator has no such parameter; in JSON an object by estimator).
    pub fn report(&self) -> Report {
        let mut r = Report::new("population uniqueness");
        r.figures = self.figures();
        let mut names: Vec<&'static str> = Vec::new();
        for (_, e) in &self.estimates {
            for (k, _) in &e.parameters {
                if !names.contains(k) {
                    names.push(k);
                }
            }
        }
        r.tables.push(ReportTable {
            name: "parameters".into(),
            title: "fitted parameters of the estimators".into(),
            header: std::iter::once("estimator")
                .chain(names.iter().copied())
                .map(str::to_string)
                .collect(),
            rows: self
                .estimates
                .iter()
                .map(|(n, e)| {
                    std::iter::once(json!(n))
                        .chain(names.iter().map(|k| {
                            e.parameters
                                .iter()
                                .find(|(p, _)| p == k)
                                .map_or(serde_json::Value::Null, |(_, v)| json!(v))
                        }))
                        .collect()
                })
                .collect(),
        });
        // In JSON the parameters stay the object by estimator they have always been (a detail
        // replaces the table of the same name there).
        r.details.insert(
            "parameters".into(),
            serde_json::Value::Object(
                self.estimates
                    .iter()
                    .map(|(n, e)| {
                        let p = e.parameters.iter().map(|(k, v)| (k.to_string(), json!(v)));
                        (n.to_string(), serde_json::Value::Object(p.collect()))
                    })
                    .collect(),
            ),
        );
        r
    }

    /// Per-record figures: `k`, `pr_population_unique_rule`, `pr_population_unique_loglinear`
    /// and `expected_inverse_f_loglinear`.
    pub fn records(&self) -> Records {
        let mut r = Records::new(self.k.len());
        for (name, values) in [
            ("k", RecordValues::from(self.k.clone())),
            (
                "pr_population_unique_rule",
                self.pr_unique_rule.clone().into(),
            ),
            (
                "pr_population_unique_loglinear",
                self.pr_unique_loglinear.clone().into(),
            ),
            (
                "expected_inverse_f_loglinear",
                self.expected_inverse_loglinear.clone().into(),
            ),
        ] {
            // Every per-record vector has one entry per record.
            let _ = r.push(name, values);
        }
        r
    }

    /// The figures as one JSON object.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Object(
            self.figures()
                .into_iter()
                .map(|f| (f.name, f.value))
                .collect(),
        )
    }
}

/// Estimates population uniqueness of `table`'s records on `params.keys` (module docs).
pub fn population_uniqueness(
    table: &Table,
    params: &PopulationParams,
) -> Result<PopulationRisk, RiskError> {
    params.check()?;
    let file = table.source().to_string();
    let n_total = table.nrows();
    let kd = key_data(table, &params.keys, params.set_match, false)?;
    let classes = classes_of(&kd, params.missing);
    let weights = params
        .weight
        .as_deref()
        .map(|w| weight_values(table, w, &file))
        .transpose()?;
    let warnings = match (&weights, params.weight.as_deref()) {
        (Some(w), Some(name)) => {
            crate::assess::weight_warnings(w, name, &file, params.population_size)
        }
        _ => Vec::new(),
    };
    let pi = match (params.sampling_fraction, params.population_size, &weights) {
        (Some(p), _, _) => p,
        (None, Some(big_n), _) => {
            crate::assess::check_population(Some(big_n), n_total)?;
            n_total as f64 / big_n
        }
        (None, None, Some(w)) => {
            let total: f64 = w.iter().sum();
            n_total as f64 / total
        }
        (None, None, None) => unreachable!("checked"),
    };
    if !(pi.is_finite() && pi > 0.0 && pi <= 1.0) {
        return Err(RiskError::Param(format!(
            "{file}: the sampling fraction implied by the weights is {pi}; it must lie in (0, 1] (weights must sum to at least the number of records)"
        )));
    }
    if classes.sizes.is_empty() {
        return Err(RiskError::Param(format!(
            "{file}: every record misses a key; nothing to estimate from (try --missing as-value)"
        )));
    }
    let freqs = SampleFrequencies::new(&classes.sizes, pi)?;
    let estimates = estimate_all(&freqs);
    let get = |n: &str| {
        estimates
            .iter()
            .find(|(e, _)| *e == n)
            .and_then(|(_, e)| e.population_uniques)
    };
    let n1 = freqs.n_of(1) as f64;
    let rule = if n1 == 0.0 {
        Some(("none", 0.0))
    } else {
        dankar_rule(pi, get("zayatz"), get("pitman"), get("snb"))
    };

    let mu = fitted_means(
        &kd,
        &classes.class_of,
        params.missing,
        params.log_linear,
        params.max_cells,
    )?;
    let sizes = &classes.sizes;
    let (mut tau1, mut tau2, mut g1, mut g2) = (0.0, 0.0, 0.0, 0.0);
    let nonempty = sizes.len() as f64;
    let mut pr_ll = Vec::with_capacity(n_total);
    let mut inv_ll = Vec::with_capacity(n_total);
    let mut k = Vec::with_capacity(n_total);
    let mut pr_rule = Vec::with_capacity(n_total);
    let p_rule = rule.map(|(_, u)| {
        if n1 > 0.0 {
            (pi * u / n1).min(1.0)
        } else {
            0.0
        }
    });
    for (i, &c) in classes.class_of.iter().enumerate() {
        if c == DELETED {
            k.push(None);
            pr_ll.push(None);
            inv_ll.push(None);
            pr_rule.push(None);
            continue;
        }
        let f = sizes[c as usize];
        k.push(Some(f));
        if f != 1 {
            pr_ll.push(Some(0.0));
            inv_ll.push(Some(0.0));
            pr_rule.push(Some(0.0));
            continue;
        }
        let m = mu[c as usize];
        let v = (1.0 - pi) * m / pi;
        let p1 = (-v).exp();
        let e_inv = if v > 0.0 { -(-v).exp_m1() / v } else { 1.0 };
        tau1 += p1;
        tau2 += e_inv;
        let pi_i = weights.as_ref().map_or(pi, |w| 1.0 / w[i]);
        let vs = (1.0 - pi_i) * m;
        g1 += (-vs).exp();
        g2 += if vs > 0.0 { -(-vs).exp_m1() / vs } else { 1.0 };
        pr_ll.push(Some(p1));
        inv_ll.push(Some(e_inv));
        pr_rule.push(Some(p_rule.unwrap_or(f64::NAN)).filter(|x| !x.is_nan()));
    }
    let grid_cells: f64 = grid_levels(&kd, &classes.class_of, params.missing)
        .iter()
        .map(|l| l.1 as f64)
        .product();
    Ok(PopulationRisk {
        keys: params.keys.clone(),
        policy: params.missing,
        n_total,
        n_deleted: classes.n_deleted,
        frequencies: freqs,
        estimates,
        rule,
        log_linear: LogLinearRisk {
            model: params.log_linear,
            tau1,
            tau2,
            sdcmicro_gr1: g1 / nonempty,
            sdcmicro_gr2: g2 / nonempty,
            grid_cells,
            sweeps: 0,
        },
        k,
        pr_unique_rule: pr_rule,
        pr_unique_loglinear: pr_ll,
        expected_inverse_loglinear: inv_ll,
        warnings,
    })
}

/// Per key: the compact level of each code (`u32::MAX` when unobserved) and the number of
/// observed levels, over the records counted.
fn grid_levels(kd: &KeyData, class_of: &[u32], policy: MissingPolicy) -> Vec<(Vec<u32>, u32)> {
    let as_value = policy == MissingPolicy::AsValue;
    kd.codes
        .iter()
        .zip(&kd.card)
        .map(|(codes, &card)| {
            let mut seen = vec![false; card as usize + 1];
            for (&c, &cl) in codes.iter().zip(class_of) {
                if cl != DELETED {
                    seen[slot(c, as_value)] = true;
                }
            }
            let mut map = vec![u32::MAX; seen.len()];
            let mut next = 0;
            for (m, s) in map.iter_mut().zip(&seen) {
                if *s {
                    *m = next;
                    next += 1;
                }
            }
            (map, next)
        })
        .collect()
}

fn slot(c: u32, as_value: bool) -> usize {
    if c == MISSING {
        0
    } else {
        c as usize + usize::from(as_value)
    }
}

/// Fitted sample mean μ_k of each class under the log-linear model.
fn fitted_means(
    kd: &KeyData,
    class_of: &[u32],
    policy: MissingPolicy,
    model: LogLinearModel,
    max_cells: f64,
) -> Result<Vec<f64>, RiskError> {
    let as_value = policy == MissingPolicy::AsValue;
    let levels = grid_levels(kd, class_of, policy);
    let nclasses = class_of
        .iter()
        .filter(|&&c| c != DELETED)
        .map(|&c| c as usize + 1)
        .max()
        .unwrap_or(0);
    // Per class: its compact level on each key (from any of its records).
    let p = kd.codes.len();
    let mut cls_lev = vec![u32::MAX; nclasses * p];
    for (i, &c) in class_of.iter().enumerate() {
        if c == DELETED || cls_lev[c as usize * p] != u32::MAX {
            continue;
        }
        for v in 0..p {
            cls_lev[c as usize * p + v] = levels[v].0[slot(kd.codes[v][i], as_value)];
        }
    }
    let n = class_of.iter().filter(|&&c| c != DELETED).count() as f64;
    match model {
        LogLinearModel::MainEffects => {
            let mut margins: Vec<Vec<f64>> =
                levels.iter().map(|l| vec![0.0; l.1 as usize]).collect();
            for (i, &c) in class_of.iter().enumerate() {
                if c == DELETED {
                    continue;
                }
                for v in 0..p {
                    margins[v][levels[v].0[slot(kd.codes[v][i], as_value)] as usize] += 1.0;
                }
            }
            Ok((0..nclasses)
                .map(|c| {
                    let mut mu = n;
                    for v in 0..p {
                        mu *= margins[v][cls_lev[c * p + v] as usize] / n;
                    }
                    mu
                })
                .collect())
        }
        LogLinearModel::TwoWay => {
            let g: f64 = levels.iter().map(|l| l.1 as f64).product();
            if g > max_cells {
                return Err(RiskError::Param(format!(
                    "the two-way log-linear model needs the full grid of {g:.3e} cells (the product of the keys' observed categories), over the limit of {max_cells:.3e}; use the main-effects model or fewer keys"
                )));
            }
            let g = g as usize;
            let mut stride = vec![1usize; p];
            for v in 1..p {
                stride[v] = stride[v - 1] * levels[v - 1].1 as usize;
            }
            let mut obs = vec![0.0f64; g];
            for (i, &c) in class_of.iter().enumerate() {
                if c == DELETED {
                    continue;
                }
                let mut idx = 0;
                for v in 0..p {
                    idx += stride[v] * levels[v].0[slot(kd.codes[v][i], as_value)] as usize;
                }
                obs[idx] += 1.0;
            }
            let fit = ipf_two_way(
                &obs,
                &levels.iter().map(|l| l.1 as usize).collect::<Vec<_>>(),
            );
            Ok((0..nclasses)
                .map(|c| {
                    let idx: usize = (0..p)
                        .map(|v| stride[v] * cls_lev[c * p + v] as usize)
                        .sum();
                    fit[idx]
                })
                .collect())
        }
    }
}

/// Iterative proportional fitting of the model with all two-way interactions to the table
/// `obs` (first key varies fastest). One key: its margin; returns the fitted table.
pub fn ipf_two_way(obs: &[f64], card: &[usize]) -> Vec<f64> {
    let g = obs.len();
    let p = card.len();
    let n: f64 = obs.iter().sum();
    let mut stride = vec![1usize; p];
    for v in 1..p {
        stride[v] = stride[v - 1] * card[v - 1];
    }
    let coord = |cell: usize, v: usize| (cell / stride[v]) % card[v];
    let mut fit = vec![n / g as f64; g];
    let terms: Vec<(usize, usize)> = if p == 1 {
        vec![(0, 0)]
    } else {
        (0..p)
            .flat_map(|a| (a + 1..p).map(move |b| (a, b)))
            .collect()
    };
    let margin_index = |cell: usize, (a, b): (usize, usize)| {
        if a == b {
            coord(cell, a)
        } else {
            coord(cell, a) + card[a] * coord(cell, b)
        }
    };
    let obs_m: Vec<Vec<f64>> = terms
        .iter()
        .map(|&(a, b)| {
            let size = if a == b { card[a] } else { card[a] * card[b] };
            let mut m = vec![0.0; size];
            for (cell, &o) in obs.iter().enumerate() {
                m[margin_index(cell, (a, b))] += o;
            }
            m
        })
        .collect();
    for _sweep in 0..1000 {
        let mut worst = 0.0f64;
        for (t, &term) in terms.iter().enumerate() {
            let mut fm = vec![0.0; obs_m[t].len()];
            for (cell, &f) in fit.iter().enumerate() {
                fm[margin_index(cell, term)] += f;
            }
            for (o, f) in obs_m[t].iter().zip(&fm) {
                worst = worst.max((o - f).abs());
            }
            for (cell, f) in fit.iter_mut().enumerate() {
                let mi = margin_index(cell, term);
                *f = if fm[mi] > 0.0 {
                    *f * obs_m[t][mi] / fm[mi]
                } else {
                    0.0
                };
            }
        }
        if worst <= 1e-9 * n.max(1.0) {
            break;
        }
    }
    fit
}

/// The weight column as numbers ≥ 0, every record needing one.
fn weight_values(table: &Table, name: &str, file: &str) -> Result<Vec<f64>, RiskError> {
    let col = table.column(name)?;
    let err = |message: String| RiskError::Column {
        file: file.into(),
        column: name.into(),
        message,
    };
    let mut out = Vec::with_capacity(col.len());
    for i in 0..col.len() {
        match col.as_f64(i) {
            Some(w) if w.is_finite() && w > 0.0 => out.push(w),
            Some(w) => {
                return Err(err(format!(
                    "record {} has weight {w}; a weight must be a finite number > 0",
                    i + 1
                )));
            }
            None => {
                return Err(err(format!(
                    "record {} has {}; every record needs a numeric weight > 0",
                    i + 1,
                    col.text(i)
                        .map(|t| format!("'{t}'"))
                        .unwrap_or_else(|| "no weight".into())
                )));
            }
        }
    }
    Ok(out)
}
