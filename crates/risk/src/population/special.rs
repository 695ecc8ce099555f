//! Special functions for the estimators: ln Γ and digamma ψ from `statrs` (Lanczos per Pugh
//! 2004; Bernardo's AS 103), and trigamma ψ₁, which `statrs` lacks, for positive arguments
//! (recurrence up to x ≥ 10, then the asymptotic series).

/// ln Γ(x) for x > 0 (`statrs::function::gamma::ln_gamma`; about 16 significant digits).
pub fn ln_gamma(x: f64) -> f64 {
    statrs::function::gamma::ln_gamma(x)
}

/// Digamma ψ(x) = d/dx ln Γ(x), x > 0 (`statrs::function::gamma::digamma`).
pub fn digamma(x: f64) -> f64 {
    statrs::function::gamma::digamma(x)
}

/// Trigamma ψ₁(x) = d/dx ψ(x), x > 0.
pub fn trigamma(mut x: f64) -> f64 {
    let mut r = 0.0;
    while x < 10.0 {
        r += 1.0 / (x * x);
        x += 1.0;
    }
    let f = 1.0 / (x * x);
    r + 1.0 / x
        + f / 2.0
        + f / x * (1.0 / 6.0 - f * (1.0 / 30.0 - f * (1.0 / 42.0 - f * (1.0 / 30.0))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // Γ(5) = 24, Γ(1/2) = √π.
        assert!((ln_gamma(5.0) - 24f64.ln()).abs() < 1e-13);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-13);
        // ψ(1) = −γ; ψ(n+1) = ψ(n) + 1/n.
        let euler = 0.577_215_664_901_532_9;
        assert!((digamma(1.0) + euler).abs() < 1e-13);
        assert!((digamma(4.0) - (1.0 + 0.5 + 1.0 / 3.0 - euler)).abs() < 1e-13);
        // ψ₁(1) = π²/6; ψ₁(1/2) = π²/2.
        let pi2 = std::f64::consts::PI.powi(2);
        assert!((trigamma(1.0) - pi2 / 6.0).abs() < 1e-12);
        assert!((trigamma(0.5) - pi2 / 2.0).abs() < 1e-12);
        // Large argument: ln Γ(1001) = ln(1000!).
        let lf: f64 = (1..=1000).map(|k| (k as f64).ln()).sum();
        assert!((ln_gamma(1001.0) - lf).abs() < 1e-9);
    }

    /// The `statrs` functions against closed forms and reference values (C's `lgamma`, as
    /// Python's `math.lgamma` gives them), including the reflection branch below 1/2 that
    /// Pitman's θ + α can reach.
    #[test]
    fn statrs_agrees_with_reference_values() {
        let rel = |a: f64, b: f64| (a - b).abs() <= 1e-14 * b.abs().max(1.0);
        for (x, want) in [
            (0.001, 6.907_178_885_383_854),
            (0.1, 2.252_712_651_734_205_5),
            (0.25, 1.288_022_524_698_077_2),
            (0.5, 0.5 * std::f64::consts::PI.ln()),
            (1.0, 0.0),
            (2.0, 0.0),
            (3.7, 1.428_072_326_665_388_3),
            (10.5, 13.940_625_219_403_763),
            (100.5, 361.435_540_467_777_6),
        ] {
            assert!(
                rel(ln_gamma(x), want),
                "ln Γ({x}) = {} not {want}",
                ln_gamma(x)
            );
        }
        // ψ(1) = −γ; ψ(n + 1) = −γ + H_n; ψ(1/2) = −γ − 2 ln 2; ψ(n + 1/2) = ψ(1/2) + Σ 2/(2k − 1).
        let euler = 0.577_215_664_901_532_9;
        assert!(rel(digamma(1.0), -euler));
        let h9: f64 = (1..=9).map(|k| 1.0 / k as f64).sum();
        assert!(rel(digamma(10.0), h9 - euler));
        let half = -euler - 2.0 * std::f64::consts::LN_2;
        assert!(rel(digamma(0.5), half));
        let odd: f64 = (1..=12).map(|k| 2.0 / (2 * k - 1) as f64).sum();
        assert!(rel(digamma(12.5), half + odd));
        // Near zero ψ(x) ≈ −1/x − γ.
        assert!(rel(digamma(1e-8), -1e8 - euler));
    }
}
