//! Rates, errors and risks against anonymeter 1.1's own numbers (data/anonymeter_reference.csv,
//! written by data/anonymeter_reference.py), and one worked by hand.

use intruder_questions::rates::{probit, success_rate};
use intruder_questions::{QuestionResult, size_correction};

const REFERENCE: &str = include_str!("data/anonymeter_reference.csv");

/// The reference lines starting with `kind`, split at commas.
fn lines(kind: &str) -> Vec<Vec<&'static str>> {
    REFERENCE
        .lines()
        .filter(|l| l.starts_with(&format!("{kind},")))
        .map(|l| l.split(',').skip(1).collect())
        .collect()
}

fn num(s: &str) -> f64 {
    s.parse().unwrap()
}

fn close(a: f64, b: f64, what: &str) {
    assert!((a - b).abs() <= 1e-12, "{what}: {a} vs anonymeter's {b}");
}

#[test]
fn wilson_interval_worked_by_hand() {
    // z = Φ⁻¹(0.975) = 1.959963984540054, z² = 3.841458820694124.
    // 4 successes in 6: rate = (4 + z²/2) / (6 + z²) = 5.920729410347062 / 9.841458820694124
    // = 0.6016109520163058; error = z / (6 + z²) · sqrt(4·2/6 + z²/4)
    // = 0.19915375 · sqrt(1.333333 + 0.960365) = 0.3016176368779137.
    let z = probit(0.95);
    assert!((z - 1.959963984540054).abs() < 1e-12, "{z}");
    let r = success_rate(6, 4.0, 0.95);
    close(r.value, 0.6016109520163058, "rate");
    close(r.error, 0.3016176368779137, "error");
    // No success in 2,000 attacks: the centre is not 0 but z²/2 / (2000 + z²).
    let r = success_rate(2000, 0.0, 0.95);
    close(
        r.value,
        1.920729410347062 / 2003.841458820694,
        "rate of 0 in 2,000",
    );
    close(r.error, r.value, "its error equals it");
}

#[test]
fn success_rates_match_anonymeter() {
    let reference = lines("rate");
    assert_eq!(reference.len(), 11);
    for l in reference {
        let r = success_rate(l[0].parse().unwrap(), num(l[1]), num(l[2]));
        let what = format!("{} of {} at {}", l[1], l[0], l[2]);
        close(r.value, num(l[3]), &what);
        close(r.error, num(l[4]), &what);
    }
}

#[test]
fn risks_match_anonymeter() {
    let reference = lines("risk");
    assert_eq!(reference.len(), 6);
    for l in reference {
        let r = QuestionResult::from_counts(
            l[0].parse().unwrap(),
            l[1].parse().unwrap(),
            num(l[2]),
            l[3].parse().unwrap(),
            num(l[4]),
            Vec::new(),
        );
        let what = format!(
            "attack {}, control {}, baseline {} of {}",
            l[1], l[2], l[3], l[0]
        );
        close(r.attack_rate.value, num(l[5]), &what);
        close(r.attack_rate.error, num(l[6]), &what);
        close(r.control_rate.value, num(l[7]), &what);
        close(r.control_rate.error, num(l[8]), &what);
        close(r.baseline_rate.value, num(l[9]), &what);
        close(r.baseline_rate.error, num(l[10]), &what);
        close(r.risk, num(l[11]), &what);
        close(r.risk_ci.0, num(l[12]), &what);
        close(r.risk_ci.1, num(l[13]), &what);
        // anonymeter warns when the baseline is at least as good as the attack.
        let warned = r.warnings.iter().any(|w| w.contains("baseline"));
        assert_eq!(
            warned,
            r.baseline_rate.value >= r.attack_rate.value,
            "{what}"
        );
    }
}

#[test]
fn another_confidence_level_recomputes_from_the_counts() {
    let r = QuestionResult::from_counts(2000, 613, 598.4, 12, 0.95, vec!["own".into()]);
    let at_90 = r.at_confidence(0.9);
    let direct = QuestionResult::from_counts(2000, 613, 598.4, 12, 0.9, vec!["own".into()]);
    assert_eq!(at_90, direct);
    close(
        at_90.risk_ci.1,
        0.04432856455177286,
        "anonymeter's upper end at 0.9",
    );
}

#[test]
fn control_size_correction_finds_the_least_squares_optimum() {
    // anonymeter's curve_fit, started from its own guess, stops far from the optimum on these
    // series and returns about (n_control + 1) / (n_original + 1); the correction here finds
    // the least-squares optimum, which scipy's bounded search confirms (last column).
    let reference = lines("correction");
    assert_eq!(reference.len(), 3);
    for l in reference {
        let (n_original, n_control) = (l[0].parse().unwrap(), l[1].parse().unwrap());
        let sizes: Vec<usize> = l[2].split(';').map(|s| s.parse().unwrap()).collect();
        let successes: Vec<f64> = l[3].split(';').map(num).collect();
        let (anonymeter, optimum) = (num(l[4]), num(l[5]));
        let factor = size_correction(&sizes, &successes, n_original, n_control).unwrap();
        assert!(
            (factor / optimum - 1.0).abs() < 1e-6,
            "{n_control} → {n_original}: {factor} vs the optimum {optimum} (anonymeter: {anonymeter})"
        );
    }
}

#[test]
fn no_success_in_any_subset_gives_no_correction() {
    assert_eq!(
        size_correction(&[1000, 2000], &[0.0, 0.0], 5000, 2000),
        None
    );
}
