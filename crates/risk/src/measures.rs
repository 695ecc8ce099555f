//! Risk figures computed from class sizes: Skinner–Elliot θ, Bender's R, individual risk from
//! sampling weights (Benedetti–Franconi as sdcMicro), household risk, ℓ-diversity.

/// Skinner & Elliot's θ̂ = n₁π / (n₁π + 2(1−π)n₂), the probability that a unique match is
/// correct; n₁ = sample-unique records, n₂ = classes of size 2, π = n/N. `None` when undefined
/// (n₁ = n₂ = 0).
pub fn skinner_elliot_theta(n1: usize, n2: usize, sampling_fraction: f64) -> Option<f64> {
    let pi = sampling_fraction;
    let num = n1 as f64 * pi;
    let den = num + 2.0 * (1.0 - pi) * n2 as f64;
    (den > 0.0).then(|| num / den)
}

/// Below this many sample uniques or pairs, θ̂ is flagged as unreliable (Mulder does not report
/// it where uniques are few).
pub const THETA_MIN_COUNT: usize = 10;

/// Bender et al.'s risk R = 1 − exp(−f · n(U) · f_a): f the sampling fraction, n(U) the number
/// of population uniques, f_a the share of the population the intruder has information on.
pub fn bender_risk(sampling_fraction: f64, population_uniques: f64, intruder_share: f64) -> f64 {
    1.0 - (-sampling_fraction * population_uniques * intruder_share).exp()
}

/// Individual risk of a record in a class of sample size `fk` and weighted size `big_fk`, as
/// sdcMicro's `indivRisk(method = "approx")` (Benedetti & Franconi), with p = f_k / F_k:
/// f_k = 1: p/(1−p)·ln(1/p); f_k = 2: p/(1−p) − (p/(1−p))²·ln(1/p); f_k > 2: p/(f_k − (1−p)).
/// When F_k ≤ f_k (p ≥ 1: nobody outside the sample) the risk is 1/f_k.
pub fn individual_risk(fk: u32, big_fk: f64) -> f64 {
    let f = fk as f64;
    let p = f / big_fk;
    if p >= 1.0 || p.is_nan() || big_fk <= 0.0 {
        return 1.0 / f;
    }
    let odds = p / (1.0 - p);
    match fk {
        0 => 0.0,
        1 => odds * (1.0 / p).ln(),
        2 => odds - odds * odds * (1.0 / p).ln(),
        _ => p / (f - (1.0 - p)),
    }
}

/// Individual risk from a possibly fractional f_k (sdcMicro's `freqCalc` with `alpha` < 1), as
/// sdcMicro's `indivRisk(method = "approx")` computes it: the f_k = 1 and f_k = 2 formulas only at
/// exactly 1 and 2, p/(f_k − (1 − p)) above 2, and 0 strictly between 1 and 2 (no branch of
/// sdcMicro's applies there); 1/f_k where F_k = f_k.
pub fn individual_risk_fractional(fk: f64, big_fk: f64) -> f64 {
    if fk == big_fk {
        return 1.0 / fk;
    }
    let p = fk / big_fk;
    let odds = p / (1.0 - p);
    if fk > 2.0 {
        p / (fk - (1.0 - p))
    } else if fk == 2.0 {
        odds - odds * odds * (1.0 / p).ln()
    } else if fk == 1.0 {
        odds * (1.0 / p).ln()
    } else {
        0.0
    }
}

/// Household risk of each record: 1 − Π over its household's members of (1 − r_i), as sdcMicro's
/// hierarchical risk. Records whose risk is `None` contribute nothing.
pub fn household_risk(risk: &[Option<f64>], household: &[u32]) -> Vec<f64> {
    let nh = household.iter().map(|&h| h as usize + 1).max().unwrap_or(0);
    let mut keep = vec![1.0f64; nh];
    for (r, &h) in risk.iter().zip(household) {
        if let Some(r) = r {
            keep[h as usize] *= 1.0 - r;
        }
    }
    household.iter().map(|&h| 1.0 - keep[h as usize]).collect()
}

/// Distinct and entropy ℓ-diversity of a sensitive variable per class: the number of distinct
/// observed values, and exp(entropy) of their distribution. Missing sensitive values are
/// ignored; a class whose values are all missing has ℓ = 0.
pub fn l_diversity(
    class_of: &[u32],
    nclasses: usize,
    sensitive: &[Option<u32>],
) -> (Vec<u32>, Vec<f64>) {
    let mut pairs: Vec<(u32, u32)> = class_of
        .iter()
        .zip(sensitive)
        .filter_map(|(&c, s)| {
            (c != crate::classes::DELETED)
                .then_some(())
                .and(s.map(|s| (c, s)))
        })
        .collect();
    pairs.sort_unstable();
    let mut distinct = vec![0u32; nclasses];
    let mut entropy = vec![0.0f64; nclasses];
    let mut totals = vec![0u32; nclasses];
    for &(c, _) in &pairs {
        totals[c as usize] += 1;
    }
    let mut i = 0;
    while i < pairs.len() {
        let mut j = i;
        while j < pairs.len() && pairs[j] == pairs[i] {
            j += 1;
        }
        let c = pairs[i].0 as usize;
        distinct[c] += 1;
        let p = (j - i) as f64 / totals[c] as f64;
        entropy[c] -= p * p.ln();
        i = j;
    }
    let l_entropy = entropy
        .iter()
        .zip(&totals)
        .map(|(&h, &t)| if t == 0 { 0.0 } else { h.exp() })
        .collect();
    (distinct, l_entropy)
}

/// Recursive (c, ℓ)-diversity per class (Machanavajjhala et al. 2007, Def. 4.1): with the
/// counts of the class's observed sensitive values in decreasing order r_1 ≥ … ≥ r_m, the class
/// is (c, ℓ)-diverse when r_1 < c · (r_ℓ + r_{ℓ+1} + … + r_m); never when m < ℓ. Missing
/// sensitive values are ignored.
pub fn recursive_cl_diversity(
    class_of: &[u32],
    nclasses: usize,
    sensitive: &[Option<u32>],
    c: f64,
    l: u32,
) -> Vec<bool> {
    let mut pairs: Vec<(u32, u32)> = class_of
        .iter()
        .zip(sensitive)
        .filter_map(|(&k, s)| match (k != crate::classes::DELETED, s) {
            (true, Some(s)) => Some((k, *s)),
            _ => None,
        })
        .collect();
    pairs.sort_unstable();
    let mut counts: Vec<Vec<u64>> = vec![Vec::new(); nclasses];
    let mut i = 0;
    while i < pairs.len() {
        let mut j = i;
        while j < pairs.len() && pairs[j] == pairs[i] {
            j += 1;
        }
        counts[pairs[i].0 as usize].push((j - i) as u64);
        i = j;
    }
    counts
        .into_iter()
        .map(|mut r| {
            r.sort_unstable_by(|a, b| b.cmp(a));
            let l = l as usize;
            if l == 0 || r.len() < l {
                return false;
            }
            let tail: u64 = r[l - 1..].iter().sum();
            (r[0] as f64) < c * tail as f64
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theta_by_hand() {
        // n1 = 10, n2 = 5, π = 0.5: 5 / (5 + 2·0.5·5) = 0.5
        assert_eq!(skinner_elliot_theta(10, 5, 0.5), Some(0.5));
        // A census (π = 1) makes every unique match correct.
        assert_eq!(skinner_elliot_theta(3, 7, 1.0), Some(1.0));
        assert_eq!(skinner_elliot_theta(0, 0, 0.3), None);
        assert_eq!(skinner_elliot_theta(0, 4, 0.3), Some(0.0));
    }

    #[test]
    fn bender_r_by_hand() {
        assert!((bender_risk(0.01, 100.0, 1.0) - (1.0 - (-1.0f64).exp())).abs() < 1e-15);
        assert_eq!(bender_risk(0.5, 0.0, 1.0), 0.0);
    }

    #[test]
    fn individual_risk_matches_the_sdcmicro_formulas() {
        // f = 1, F = 4: p = 1/4, p/(1-p) = 1/3, ln 4 → ln(4)/3
        assert!((individual_risk(1, 4.0) - 4f64.ln() / 3.0).abs() < 1e-15);
        // f = 2, F = 4: p = 1/2 → 1 − ln 2
        assert!((individual_risk(2, 4.0) - (1.0 - 2f64.ln())).abs() < 1e-15);
        // f = 3, F = 6: p = 1/2 → 0.5 / 2.5 = 0.2
        assert!((individual_risk(3, 6.0) - 0.2).abs() < 1e-15);
        // No population beyond the sample: 1/f.
        assert_eq!(individual_risk(4, 4.0), 0.25);
        assert_eq!(individual_risk(1, 0.5), 1.0);
    }

    #[test]
    fn household_risk_combines_members() {
        let r = household_risk(&[Some(0.5), Some(0.5), Some(0.1), None], &[0, 0, 1, 1]);
        assert_eq!(
            r,
            vec![0.75, 0.75, 0.09999999999999998, 0.09999999999999998]
        );
    }

    /// One class with sensitive counts 3, 2, 1 (values 7, 8, 9), one with a single value.
    /// (c = 2, ℓ = 2): 3 < 2·(2 + 1) = 6 → diverse; (1, 2): 3 < 3 fails; (4, 3): 3 < 4·1 holds;
    /// (3, 3): 3 < 3 fails; a class of one value has m = 1 < ℓ.
    #[test]
    fn recursive_cl_diversity_by_hand() {
        let class_of = [0, 0, 0, 0, 0, 0, 1, 1];
        let s = [7, 7, 7, 8, 8, 9, 5, 5].map(Some);
        let run = |c, l| recursive_cl_diversity(&class_of, 2, &s, c, l);
        assert_eq!(run(2.0, 2), vec![true, false]);
        assert_eq!(run(1.0, 2), vec![false, false]);
        assert_eq!(run(4.0, 3), vec![true, false]);
        assert_eq!(run(3.0, 3), vec![false, false]);
        assert_eq!(run(10.0, 1), vec![true, true]);
    }

    #[test]
    fn l_diversity_by_hand() {
        let (d, e) = l_diversity(
            &[0, 0, 0, 1, 1],
            2,
            &[Some(1), Some(2), Some(2), Some(3), None],
        );
        assert_eq!(d, vec![2, 1]);
        let h = -(1.0f64 / 3.0) * (1.0f64 / 3.0).ln() - (2.0f64 / 3.0) * (2.0f64 / 3.0).ln();
        assert!((e[0] - h.exp()).abs() < 1e-12);
        assert_eq!(e[1], 1.0);
    }
}
