//! Membership inference and the distances to the closest record: worked examples computed by
//! hand, and the acceptance properties (a copy is caught, independent marginals are not).

use intruder_questions::membership::roc;
use intruder_questions::{
    DistanceParams, MembershipAttack, MembershipParams, distances, membership,
};

use crate::support::{cat, independent_marginals, int, population, renamed, table};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn roc_of_a_hand_computed_example() {
    // Members 3, 2, 2, 0 against non-members 2, 1, 0, 0. Pairs won: 3 beats all four (4); each
    // 2 beats 1, 0, 0 and ties 2 (3.5 twice); 0 ties two 0s (1): 12 of 16.
    let (auc, tpr1, tpr10, advantage) = roc(&[3.0, 2.0, 2.0, 0.0], &[2.0, 1.0, 0.0, 0.0]);
    assert!(close(auc, 0.75), "{auc}");
    // Thresholds: ≥ 3 (TPR 1/4, FPR 0), ≥ 2 (3/4, 1/4), ≥ 1 (3/4, 2/4), ≥ 0 (1, 1).
    assert!(close(tpr1, 0.25) && close(tpr10, 0.25), "{tpr1} {tpr10}");
    assert!(close(advantage, 0.5), "{advantage}");
    // Perfect and useless scores.
    assert_eq!(roc(&[2.0, 3.0], &[0.0, 1.0]), (1.0, 1.0, 1.0, 1.0));
    assert_eq!(roc(&[1.0, 1.0], &[1.0, 1.0]).0, 0.5);
}

#[test]
fn distances_of_a_hand_computed_example() {
    let training = table(
        "training.csv",
        vec![int("age", &[20, 30, 40]), cat("town", "aba")],
    );
    let holdout = table(
        "holdout.csv",
        vec![int("age", &[25, 35]), cat("town", "ba")],
    );
    let release = table(
        "release.csv",
        vec![int("age", &[20, 34]), cat("town", "ab")],
    );
    let d = distances(&training, &holdout, &release, &DistanceParams::default(), 1).unwrap();
    // Ranges: 20 in the training data, 10 in the holdout. Release (20, a): 0 to (20, a), then
    // 0.5 to (40, a); to the holdout 0.5 (35, a). Release (34, b): 0.1 to (30, b), then 0.65 to
    // (40, a); to the holdout 0.45 (25, b).
    assert!(close(d.closer_to_training, 1.0));
    assert!(close(d.overfitting_protection, 0.0));
    assert!(
        close(d.median_dcr_release, 0.05),
        "{}",
        d.median_dcr_release
    );
    assert!(
        close(d.median_dcr_holdout, 0.475),
        "{}",
        d.median_dcr_holdout
    );
    assert!(close(d.median_nndr_release, (0.0 + 0.1 / 0.65) / 2.0));
    // Holdout (25, b): 0.125 to (30, b), then 0.625; (35, a): 0.125 to (40, a), then 0.375.
    assert!(close(d.median_nndr_holdout, (0.2 + 1.0 / 3.0) / 2.0));
    assert!(close(d.exact_copies, 0.5));
    assert!(d.warnings.is_empty(), "{:?}", d.warnings);
}

#[test]
fn a_copy_is_caught_and_independent_marginals_are_not() {
    let original = population("original.csv", 3000, 11);
    let control = renamed(&population("control.csv", 3000, 12), "control.csv");
    let copy = renamed(&original, "copy.csv");
    let marginals = independent_marginals("marginals.csv", 3000, 13);
    for attack in [MembershipAttack::Distance, MembershipAttack::DensityRatio] {
        let params = MembershipParams {
            n_targets: 500,
            attack,
            columns: None,
        };
        let caught = membership(&original, &control, &copy, &params, 5).unwrap();
        // The distance attack sees a member's own copy at distance 0; the density attack's
        // kernels (Scott's bandwidth) spread a copy's weight over its neighbours.
        let floor = match attack {
            MembershipAttack::Distance => 0.95,
            MembershipAttack::DensityRatio => 0.8,
        };
        assert!(caught.auc > floor, "{attack:?} on a copy: {caught:?}");
        let missed = membership(&original, &control, &marginals, &params, 5).unwrap();
        assert!(
            (missed.auc - 0.5).abs() < 0.06,
            "{attack:?} on independent marginals: {missed:?}"
        );
    }
    let params = DistanceParams::default();
    let copy_d = distances(&original, &control, &copy, &params, 5).unwrap();
    assert!(close(copy_d.exact_copies, 1.0) && close(copy_d.overfitting_protection, 0.0));
    let marg_d = distances(&original, &control, &marginals, &params, 5).unwrap();
    assert!(
        marg_d.overfitting_protection > 0.85,
        "independent marginals lie as near the holdout as the training data: {marg_d:?}"
    );
}

#[test]
fn bad_input_is_refused_naming_file_and_column() {
    let training = table("training.csv", vec![int("age", &[20, 30, 40])]);
    let holdout = table("holdout.csv", vec![int("age", &[25, 35])]);
    let release = table("release.csv", vec![int("years", &[20, 34])]);
    let e = distances(&training, &holdout, &release, &DistanceParams::default(), 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "training.csv: the original has no column 'years' (a compared column)"
    );
    let release = table("release.csv", vec![int("age", &[20, 34])]);
    let params = MembershipParams {
        n_targets: 3,
        ..MembershipParams::default()
    };
    let e = membership(&training, &holdout, &release, &params, 1).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("holdout.csv: n_targets = 3 but the control set has 2 records"),
        "{e}"
    );
}

/// A file of `tests/data`, read as the command line reads it.
fn data(name: &str) -> intruder_data::Table {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    intruder_data::read_csv(&path, &intruder_data::ReadOptions::default())
        .unwrap()
        .table
}

#[test]
fn distances_agree_with_sdmetrics() {
    // Figures computed by SDMetrics 0.32 (tests/data/sdmetrics_reference.py) on a mixed-type
    // fixture with missing numbers and categories, a third of the release copied from training.
    let reference = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dcr_reference.csv"),
    )
    .unwrap();
    let expected = |figure: &str| -> f64 {
        reference
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{figure},")))
            .unwrap_or_else(|| panic!("{figure} missing"))
            .parse()
            .unwrap()
    };
    let d = distances(
        &data("dcr_training.csv"),
        &data("dcr_holdout.csv"),
        &data("dcr_release.csv"),
        &DistanceParams::default(),
        1,
    )
    .unwrap();
    for (figure, ours) in [
        ("score", d.overfitting_protection),
        ("closer_to_training", d.closer_to_training),
        ("median_dcr_release", d.median_dcr_release),
        ("median_dcr_holdout", d.median_dcr_holdout),
        ("exact_copies", d.exact_copies),
    ] {
        assert!(
            (ours - expected(figure)).abs() < 1e-12,
            "{figure}: ours {ours}, SDMetrics {}",
            expected(figure)
        );
    }
}

#[test]
fn distances_with_a_constant_column_and_missing_numbers() {
    let num = |name: &str, v: &[Option<f64>]| {
        intruder_data::Column::float(name, intruder_data::Role::Other, v)
    };
    let training = table(
        "training.csv",
        vec![num("x", &[Some(30.0), Some(30.0), None])],
    );
    let holdout = table("holdout.csv", vec![num("x", &[Some(30.0), Some(30.0)])]);
    let release = table(
        "release.csv",
        vec![num("x", &[Some(30.0), Some(31.0), None])],
    );
    let d = distances(&training, &holdout, &release, &DistanceParams::default(), 1).unwrap();
    // A range of 0: equal values are 0 apart, others 1. To the training data: 30 → 0 (twice),
    // 31 → 1 (to every record), missing → 0 (the missing record), then 1.
    assert!(close(d.median_dcr_release, 0.0));
    assert!(close(d.exact_copies, 2.0 / 3.0));
    // To the holdout: 0, 1, 1; only the missing value is closer to the training data.
    assert!(close(d.closer_to_training, 1.0 / 3.0));
    assert!(close(d.overfitting_protection, 1.0));
    // NNDR: 0/0 → 1, 1/1 → 1, 0/1 → 0.
    assert!(close(d.median_nndr_release, 1.0));
}

#[test]
fn a_subsample_compares_that_many_records_of_each_table() {
    let original = population("original.csv", 400, 21);
    let control = renamed(&population("control.csv", 300, 22), "control.csv");
    let release = independent_marginals("release.csv", 500, 23);
    let all = distances(&original, &control, &release, &DistanceParams::default(), 3).unwrap();
    let whole = DistanceParams {
        num_rows_subsample: Some(500),
        ..DistanceParams::default()
    };
    // A subsample as large as every table is no subsample.
    assert_eq!(
        distances(&original, &control, &release, &whole, 3).unwrap(),
        all
    );
    let part = DistanceParams {
        num_rows_subsample: Some(100),
        ..DistanceParams::default()
    };
    let some = distances(&original, &control, &release, &part, 3).unwrap();
    assert_eq!((all.n_release, some.n_release), (500, 100));
    assert_ne!(some, all);
    assert_eq!(
        some,
        distances(&original, &control, &release, &part, 3).unwrap()
    );
}
