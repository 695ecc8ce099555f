//! Bad input: each a clear error naming the file and the column, or the counts.

use intruder_data::Table;
use intruder_questions::{
    InferenceParams, LinkabilityParams, Mode, ParamError, QuestionError, SinglingOutParams,
    inference, linkability, singling_out,
};

use crate::support::{cat, float, int, table};

fn people(file: &str, n: usize) -> Table {
    let ages: Vec<i64> = (0..n as i64).map(|i| 20 + 7 * i).collect();
    let incomes: Vec<f64> = (0..n).map(|i| 1000.0 + 250.0 * i as f64).collect();
    let towns: String = "abcdefghij".chars().take(n).collect();
    table(
        file,
        vec![
            int("age", &ages),
            cat("town", &towns),
            float("income", &incomes),
        ],
    )
}

fn link_params() -> LinkabilityParams {
    LinkabilityParams::new((vec!["age".into()], vec!["town".into()])).with_attacks(4)
}

fn infer_params() -> InferenceParams {
    InferenceParams::new(vec!["age".into(), "town".into()], "income").with_attacks(4)
}

fn single_params() -> SinglingOutParams {
    SinglingOutParams {
        n_attacks: 4,
        mode: Mode::Univariate,
        ..SinglingOutParams::default()
    }
}

/// The three questions on the same tables, with the parameters above.
fn all_three(
    o: &Table,
    c: &Table,
    r: &Table,
) -> Vec<Result<intruder_questions::QuestionResult, QuestionError>> {
    vec![
        singling_out(o, c, r, &single_params(), 1),
        linkability(o, c, r, &link_params(), 1),
        inference(o, c, r, &infer_params(), 1),
    ]
}

#[test]
fn a_control_set_with_other_columns() {
    let original = people("original.csv", 6);
    let control = table(
        "control.csv",
        vec![
            int("age", &[1, 2, 3, 4, 5, 6]),
            cat("town", "abcdef"),
            float("salary", &[1.0; 6]),
        ],
    );
    for e in all_three(&original, &control, &original) {
        let e = e.unwrap_err();
        assert!(
            matches!(&e, QuestionError::ControlColumns { missing, extra, .. } if missing == &["income"] && extra == &["salary"]),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "control.csv: the control set must have the columns of the original (original.csv); missing 'income'; not in the original 'salary'"
        );
    }
}

#[test]
fn an_auxiliary_column_missing_from_the_release() {
    let original = people("original.csv", 6);
    let release = table(
        "release.csv",
        vec![int("age", &[1, 2, 3, 4, 5, 6]), float("income", &[1.0; 6])],
    );
    for e in [
        linkability(&original, &original, &release, &link_params(), 1),
        inference(&original, &original, &release, &infer_params(), 1),
    ] {
        let e = e.unwrap_err();
        assert!(
            matches!(&e, QuestionError::MissingColumn { which: "release", column, .. } if column == "town"),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "release.csv: the release has no column 'town' (auxiliary column)"
        );
    }
    // A misspelt column gets a near name.
    let params = InferenceParams::new(vec!["age".into(), "twn".into()], "income").with_attacks(4);
    let e = inference(&original, &original, &original, &params, 1).unwrap_err();
    assert!(
        e.to_string()
            .contains("original.csv: the original has no column 'twn'"),
        "{e}"
    );
    assert!(e.to_string().contains("did you mean 'town'?"), "{e}");
    // Singling out draws predicates from the release's columns: each must be in the original.
    let wider = table(
        "release.csv",
        vec![
            int("age", &[1, 2, 3, 4, 5, 6]),
            cat("town", "abcdef"),
            cat("zip", "uvwxyz"),
        ],
    );
    let e = singling_out(&original, &original, &wider, &single_params(), 1).unwrap_err();
    assert!(
        matches!(&e, QuestionError::MissingColumn { which: "original", column, .. } if column == "zip"),
        "{e:?}"
    );
    // A missing secret.
    let params = InferenceParams::new(vec!["age".into()], "salary").with_attacks(4);
    let e = inference(&original, &original, &original, &params, 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "original.csv: the original has no column 'salary' (secret)"
    );
}

#[test]
fn a_secret_that_is_also_an_auxiliary_column() {
    let original = people("original.csv", 6);
    let params = InferenceParams::new(vec!["age".into(), "income".into()], "income");
    let e = inference(&original, &original, &original, &params, 1).unwrap_err();
    assert_eq!(
        e,
        QuestionError::Param(ParamError::SecretInAuxiliary("income".into()))
    );
    assert!(
        e.to_string()
            .starts_with("secret 'income' is also an auxiliary column"),
        "{e}"
    );
}

#[test]
fn more_attacks_than_records() {
    let original = people("original.csv", 6);
    let control = people("control.csv", 3);
    let release = people("release.csv", 2);
    // The original has 6 records.
    let e = linkability(
        &original,
        &original,
        &original,
        &link_params().with_attacks(7),
        1,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "original.csv: n_attacks = 7 but the original has 6 records; the main attack draws n_attacks records without replacement: lower n_attacks to at most 6"
    );
    // The control set has 3.
    for e in [
        linkability(&original, &control, &original, &link_params(), 1),
        inference(&original, &control, &original, &infer_params(), 1),
    ] {
        let e = e.unwrap_err();
        assert!(
            matches!(
                e,
                QuestionError::TooManyAttacks {
                    which: "control set",
                    n_attacks: 4,
                    rows: 3,
                    ..
                }
            ),
            "{e:?}"
        );
    }
    // The inference baseline draws n_attacks release records.
    let e = inference(&original, &original, &release, &infer_params(), 1).unwrap_err();
    assert!(
        matches!(
            e,
            QuestionError::TooManyAttacks {
                which: "release",
                rows: 2,
                purpose: "baseline",
                ..
            }
        ),
        "{e:?}"
    );
    // Singling out counts the original's distinct records.
    let doubled = table(
        "original.csv",
        vec![
            int("age", &[1, 1, 2, 2, 3, 3]),
            cat("town", "aabbcc"),
            float("income", &[1.0; 6]),
        ],
    );
    let e = singling_out(&doubled, &doubled, &original, &single_params(), 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "original.csv: n_attacks = 4 but the original has 3 records (after dropping duplicate records); the main attack draws n_attacks records without replacement: lower n_attacks to at most 3"
    );
}

#[test]
fn a_column_numeric_in_one_table_only() {
    let original = people("original.csv", 6);
    let release = table(
        "release.csv",
        vec![
            cat("age", "123456"),
            cat("town", "abcdef"),
            float("income", &[1.0; 6]),
        ],
    );
    for e in all_three(&original, &original, &release) {
        let e = e.unwrap_err();
        assert!(
            matches!(&e, QuestionError::KindMismatch { column, .. } if column == "age"),
            "{e:?}"
        );
        assert!(
            e.to_string().contains(
                "'age' is categorical in release.csv but numeric (integer) in original.csv"
            ),
            "{e}"
        );
    }
}

#[test]
fn other_parameter_problems() {
    let original = people("original.csv", 6);
    // Regression on a categorical secret.
    let params = InferenceParams::new(vec!["age".into()], "town").with_regression(true);
    let e = inference(&original, &original, &original, &params.with_attacks(4), 1).unwrap_err();
    assert!(
        matches!(e, QuestionError::RegressionOnCategories { .. }),
        "{e:?}"
    );
    // More neighbours than release records.
    let e = linkability(
        &original,
        &original,
        &original,
        &link_params().with_neighbours(7),
        1,
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "original.csv: n_neighbors = 7 but the release has 6 records"
    );
    // A column in both of linkability's sets.
    let params = LinkabilityParams::new((vec!["age".into(), "town".into()], vec!["town".into()]));
    let e = linkability(&original, &original, &original, &params, 1).unwrap_err();
    assert!(
        matches!(
            e,
            QuestionError::Param(ParamError::RepeatedAuxiliary { .. })
        ),
        "{e:?}"
    );
    // An empty set.
    let params = LinkabilityParams::new((vec!["age".into()], vec![]));
    let e = linkability(&original, &original, &original, &params, 1).unwrap_err();
    assert_eq!(
        e,
        QuestionError::Param(ParamError::NoAuxiliary {
            which: "aux_cols[2]"
        })
    );
    // More predicate columns than the release has.
    let params = SinglingOutParams {
        n_cols: 4,
        n_attacks: 4,
        ..SinglingOutParams::default()
    };
    let e = singling_out(&original, &original, &original, &params, 1).unwrap_err();
    assert_eq!(
        e.to_string(),
        "original.csv: n_cols = 4 but the release has 3 columns"
    );
    // No attacks.
    let params = SinglingOutParams {
        n_attacks: 0,
        ..SinglingOutParams::default()
    };
    let e = singling_out(&original, &original, &original, &params, 1).unwrap_err();
    assert_eq!(e, QuestionError::Param(ParamError::NoAttacks));
    // An empty release.
    let empty = table(
        "empty.csv",
        vec![int("age", &[]), cat("town", ""), float("income", &[])],
    );
    let e = inference(&original, &original, &empty, &infer_params(), 1).unwrap_err();
    assert_eq!(e.to_string(), "empty.csv: the release has no records");
}
