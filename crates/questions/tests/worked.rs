//! Worked examples on six records, counted by hand (and confirmed by anonymeter 1.1 on the same
//! tables: the `example` lines of data/anonymeter_reference.csv). With `n_attacks` equal to the
//! number of records every record is a target, so the main and control counts do not depend on
//! the seed; the baseline's does, and its rate is checked against its count.

use intruder_data::Table;
use intruder_questions::rates::success_rate;
use intruder_questions::{
    InferenceParams, LinkabilityParams, Mode, QuestionResult, SinglingOutParams, inference,
    linkability, singling_out,
};

use crate::support::{cat, float, int, table};

/// anonymeter's counts for an example (data/anonymeter_reference.csv).
fn anonymeter_counts(example: &str) -> (usize, f64) {
    let line = include_str!("data/anonymeter_reference.csv")
        .lines()
        .find(|l| l.starts_with(&format!("example,{example},")))
        .unwrap();
    let f: Vec<&str> = line.split(',').collect();
    (f[2].parse().unwrap(), f[3].parse().unwrap())
}

/// Checks a result's counts, rates and risk; the baseline's rate against its own count.
fn check(
    r: &QuestionResult,
    success: usize,
    control: f64,
    attack_rate: f64,
    control_rate: f64,
    risk: f64,
    high: f64,
) {
    assert_eq!(
        (r.n_attacks, r.n_success, r.n_control),
        (6, success, control),
        "{r:?}"
    );
    let near = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(near(r.attack_rate.value, attack_rate), "{r:?}");
    assert!(near(r.control_rate.value, control_rate), "{r:?}");
    assert!(near(r.risk, risk), "{r:?}");
    assert!(r.risk_ci.0 == 0.0 && near(r.risk_ci.1, high), "{r:?}");
    assert_eq!(r.baseline_rate, success_rate(6, r.n_baseline as f64, 0.95));
}

/// The release, original and control set of the linkability and inference examples:
///
/// | release | age | town | income |   | original | age | town | income |   | control | age | town | income |
/// |---|---|---|---|---|---|---|---|---|---|---|---|---|---|
/// | 0 | 20 | a | 100 | | | 21 | a | 104 | | | 22 | b | 96 |
/// | 1 | 30 | b | 200 | | | 31 | b | 215 | | | 33 | c | 230 |
/// | 2 | 40 | c | 300 | | | 41 | d | 290 | | | 44 | c | 300 |
/// | 3 | 50 | d | 400 | | | 52 | c | 400 | | | 48 | d | 385 |
/// | 4 | 60 | e | 500 | | | 69 | f | 640 | | | 66 | a | 560 |
/// | 5 | 70 | f | 600 | | | 58 | e | 476 | | | 12 | f | 150 |
fn three_tables() -> (Table, Table, Table) {
    let release = table(
        "release.csv",
        vec![
            int("age", &[20, 30, 40, 50, 60, 70]),
            cat("town", "abcdef"),
            float("income", &[100.0, 200.0, 300.0, 400.0, 500.0, 600.0]),
        ],
    );
    let original = table(
        "original.csv",
        vec![
            int("age", &[21, 31, 41, 52, 69, 58]),
            cat("town", "abdcfe"),
            float("income", &[104.0, 215.0, 290.0, 400.0, 640.0, 476.0]),
        ],
    );
    let control = table(
        "control.csv",
        vec![
            int("age", &[22, 33, 44, 48, 66, 12]),
            cat("town", "bccdaf"),
            float("income", &[96.0, 230.0, 300.0, 385.0, 560.0, 150.0]),
        ],
    );
    (original, control, release)
}

#[test]
fn linkability_by_hand() {
    // Half 1 (age): each target's nearest release record by |age difference|:
    //   original 21→0, 31→1, 41→2, 52→3, 69→5, 58→4; control 22→0, 33→1, 44→2, 48→3, 66→5, 12→0.
    // Half 2 (town): the release record with the same town (every town is there once):
    //   original a→0, b→1, d→3, c→2, f→5, e→4; control b→1, c→2, c→2, d→3, a→0, f→5.
    // Linked when both halves point to the same record: original 0, 1, 4, 5 → 4 of 6;
    // control 2, 3 → 2 of 6.
    let (original, control, release) = three_tables();
    let params = LinkabilityParams::new((vec!["age".into()], vec!["town".into()])).with_attacks(6);
    for seed in [1, 2, 3] {
        let r = linkability(&original, &control, &release, &params, seed).unwrap();
        // Rates: (4 + z²/2) / (6 + z²) and (2 + z²/2) / (6 + z²); risk (0.6016 − 0.3984) /
        // (1 − 0.3984) = 0.3378, interval 0.3378 ± 0.6013 clipped to [0, 0.9391].
        check(
            &r,
            4,
            2.0,
            0.6016109520163058,
            0.39838904798369423,
            0.3377962175580599,
            0.9391056590233108,
        );
    }
    assert_eq!(anonymeter_counts("linkability"), (4, 2.0));
}

#[test]
fn inference_of_a_category_by_hand() {
    // The guess is the town of the nearest release record by age (the same records as the
    // first half of the linkability example): original guesses a, b, c, d, f, e for a, b, d, c,
    // f, e → right for targets 0, 1, 4, 5 (4 of 6); control guesses a, b, c, d, f, a for b, c,
    // c, d, a, f → right for 2 and 3 (2 of 6).
    let (original, control, release) = three_tables();
    let params = InferenceParams::new(vec!["age".into()], "town").with_attacks(6);
    let r = inference(&original, &control, &release, &params, 11).unwrap();
    check(
        &r,
        4,
        2.0,
        0.6016109520163058,
        0.39838904798369423,
        0.3377962175580599,
        0.9391056590233108,
    );
    assert_eq!(anonymeter_counts("inference-town"), (4, 2.0));
}

#[test]
fn inference_of_a_number_within_a_tolerance_by_hand() {
    // Guesses from the nearest release record by age; right when |guess − secret| / guess ≤ 5%:
    // original 104 vs 100 (4%) ✓, 215 vs 200 (7.5%), 290 vs 300 (3.3%) ✓, 400 vs 400 ✓,
    //   640 vs 600 (6.7%), 476 vs 500 (4.8%) ✓ → 4 of 6;
    // control 96 vs 100 (4%) ✓, 230 vs 200 (15%), 300 vs 300 ✓, 385 vs 400 (3.75%) ✓,
    //   560 vs 600 (6.7%), 150 vs 100 (50%) → 3 of 6.
    // A numeric secret means regression unless told otherwise.
    let (original, control, release) = three_tables();
    let params = InferenceParams::new(vec!["age".into()], "income").with_attacks(6);
    let r = inference(&original, &control, &release, &params, 11).unwrap();
    check(
        &r,
        4,
        3.0,
        0.6016109520163058,
        0.5,
        0.20322190403261153,
        0.9853335330884345,
    );
    assert_eq!(anonymeter_counts("inference-income"), (4, 3.0));
    // Exact guesses only: 400 in the original, 300 in the control set → risk 0.
    let exact = params.with_regression(false);
    let r = inference(&original, &control, &release, &exact, 11).unwrap();
    check(
        &r,
        1,
        1.0,
        0.29677809596738847,
        0.29677809596738847,
        0.0,
        0.5363964391271058,
    );
    assert_eq!(anonymeter_counts("inference-income-exact"), (1, 1.0));
}

#[test]
fn univariate_singling_out_by_hand() {
    // Release ages 20, 30, 30, 40, 40, 50 and towns a, a, b, b, c, c: the predicates that
    // single out in the release are age ≤ 20, age ≥ 50, age = 20 and age = 50 (no town is
    // unique, no value missing): 4, fewer than the 6 asked for (a warning says so).
    // Original (7 records, one an exact copy of another, dropped): ages 18, 20, 35, 45, 50, 55
    //   → age ≤ 20 matches 2, age ≥ 50 matches 2, age = 20 and age = 50 one each: 2 of 6.
    // Control: ages 15, 19, 33, 47, 50, 58 → only age = 50 singles out: 1 of 6.
    let release = table(
        "release.csv",
        vec![int("age", &[20, 30, 30, 40, 40, 50]), cat("town", "aabbcc")],
    );
    let original = table(
        "original.csv",
        vec![
            int("age", &[18, 20, 20, 35, 45, 50, 55]),
            cat("town", "xyyxyxy"),
        ],
    );
    let control = table(
        "control.csv",
        vec![int("age", &[15, 19, 33, 47, 50, 58]), cat("town", "xyxyxy")],
    );
    let params = SinglingOutParams {
        n_attacks: 6,
        mode: Mode::Univariate,
        ..SinglingOutParams::default()
    };
    for seed in [1, 2] {
        let r = singling_out(&original, &control, &release, &params, seed).unwrap();
        check(
            &r,
            2,
            1.0,
            0.39838904798369423,
            0.29677809596738847,
            0.14449344002742215,
            0.6823154956772528,
        );
        assert!(
            r.warnings[0]
                .contains("could generate only 4 singling-out predicates out of the requested 6"),
            "{:?}",
            r.warnings
        );
    }
    assert_eq!(anonymeter_counts("singling-out-univariate"), (2, 1.0));
}

#[test]
fn multivariate_singling_out_by_hand() {
    // Predicates over both columns of a release record: town = its town and age ≥ its age when
    // above the release's median age (45), age ≤ its age otherwise:
    //   (20, a): age ≤ 20 & town = a  → singles out record 0 in the release
    //   (30, a): age ≤ 30 & town = a  → 2 records
    //   (40, b): age ≤ 40 & town = b  → singles out
    //   (50, b): age ≥ 50 & town = b  → singles out
    //   (60, c): age ≥ 60 & town = c  → 2 records
    //   (70, c): age ≥ 70 & town = c  → singles out
    // Original (18, a), (19, a), (39, b), (45, b), (55, b), (75, c): the last three single out,
    // the first matches 2 → 3 of 6. Control (10, b), (35, a), (41, b), (49, b), (65, c),
    // (80, a): only age ≤ 40 & town = b (10) → 1 of 6.
    let release = table(
        "release.csv",
        vec![int("age", &[20, 30, 40, 50, 60, 70]), cat("town", "aabbcc")],
    );
    let original = table(
        "original.csv",
        vec![int("age", &[18, 19, 39, 45, 55, 75]), cat("town", "aabbbc")],
    );
    let control = table(
        "control.csv",
        vec![int("age", &[10, 35, 41, 49, 65, 80]), cat("town", "babbca")],
    );
    let params = SinglingOutParams {
        n_attacks: 6,
        mode: Mode::Multivariate,
        n_cols: 2,
        max_attempts: Some(10_000),
    };
    let r = singling_out(&original, &control, &release, &params, 5).unwrap();
    check(
        &r,
        3,
        1.0,
        0.5,
        0.29677809596738847,
        0.2889868800548443,
        0.8086566646967948,
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("reached max_attempts = 10000")),
        "{:?}",
        r.warnings
    );
    assert_eq!(anonymeter_counts("singling-out-multivariate"), (3, 1.0));
}
