//! Parameters read from TOML as a surface passes them (`--set`, an experiment's table), every
//! problem reported at once.

use intruder_questions::{InferenceParams, LinkabilityParams, Mode, SinglingOutParams};

fn parse(text: &str) -> toml::Table {
    text.parse().unwrap()
}

#[test]
fn defaults_are_anonymeters() {
    let p = SinglingOutParams::from_table(&parse(""), "--set").unwrap();
    assert_eq!(p, SinglingOutParams::default());
    assert_eq!(
        (p.n_attacks, p.mode, p.n_cols, p.max_attempts),
        (500, Mode::Multivariate, 3, Some(10_000_000))
    );
    let p = LinkabilityParams::from_table(&parse("aux_cols = [[\"age\"], [\"town\"]]"), "--set")
        .unwrap();
    assert_eq!(
        p,
        LinkabilityParams::new((vec!["age".into()], vec!["town".into()]))
    );
    assert_eq!((p.n_attacks, p.n_neighbors), (500, 1));
    let p = InferenceParams::from_table(&parse("aux_cols = [\"age\"]\nsecret = \"town\""), "--set")
        .unwrap();
    assert_eq!(p, InferenceParams::new(vec!["age".into()], "town"));
    assert_eq!((p.regression, p.tolerance), (None, 0.05));
}

#[test]
fn every_parameter_reads() {
    let p = SinglingOutParams::from_table(
        &parse("n_attacks = 2000\nmode = \"univariate\"\nn_cols = 4\nmax_attempts = 50000"),
        "--set",
    )
    .unwrap();
    assert_eq!(
        (p.n_attacks, p.mode, p.n_cols, p.max_attempts),
        (2000, Mode::Univariate, 4, Some(50_000))
    );
    let p = LinkabilityParams::from_table(
        &parse("n_attacks = 2000\naux_cols = [[\"age\", \"sex\"], [\"education\", \"occupation\"]]\nn_neighbors = 5"),
        "--set",
    )
    .unwrap();
    assert_eq!(
        p.aux_cols,
        (
            vec!["age".to_string(), "sex".into()],
            vec!["education".to_string(), "occupation".into()]
        )
    );
    assert_eq!((p.n_attacks, p.n_neighbors), (2000, 5));
    let p = InferenceParams::from_table(
        &parse("aux_cols = [\"age\", \"sex\"]\nsecret = \"income\"\nregression = true\ntolerance = 0.1\nn_attacks = 300"),
        "--set",
    )
    .unwrap();
    assert_eq!(
        (p.regression, p.tolerance, p.n_attacks),
        (Some(true), 0.1, 300)
    );
}

#[test]
fn every_problem_is_reported_at_once() {
    let e = SinglingOutParams::from_table(
        &parse("n_attacks = 0\nmode = \"multi\"\nn_col = 2"),
        "experiment.toml",
    )
    .unwrap_err();
    let text: Vec<String> = e.problems.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 3, "{text:?}");
    assert_eq!(text[0], "n_attacks: expected a value ≥ 1, found 0");
    assert!(
        text[1].starts_with("mode: unknown value 'multi'"),
        "{text:?}"
    );
    assert!(
        text[2].starts_with("n_col: unknown key (did you mean 'n_cols'?)"),
        "{text:?}"
    );
    assert!(
        e.to_string().starts_with("experiment.toml: 3 problems"),
        "{e}"
    );
}

#[test]
fn linkability_needs_two_lists() {
    let e = LinkabilityParams::from_table(&parse(""), "--set").unwrap_err();
    assert!(
        e.problems[0]
            .to_string()
            .starts_with("aux_cols: is required but missing"),
        "{e}"
    );
    let e = LinkabilityParams::from_table(&parse("aux_cols = [\"age\", \"town\"]"), "--set")
        .unwrap_err();
    assert!(
        e.problems[0]
            .to_string()
            .contains("expected two lists of column names"),
        "{e}"
    );
    let e = LinkabilityParams::from_table(&parse("aux_cols = [[\"age\"], [\"age\"]]"), "--set")
        .unwrap_err();
    assert!(
        e.problems[0]
            .to_string()
            .contains("column 'age' is named twice in both sets of aux_cols"),
        "{e}"
    );
}

#[test]
fn inference_refuses_its_secret_among_the_auxiliary_columns() {
    let e = InferenceParams::from_table(
        &parse("aux_cols = [\"age\", \"town\"]\nsecret = \"town\""),
        "--set",
    )
    .unwrap_err();
    assert!(
        e.problems[0]
            .to_string()
            .starts_with("secret 'town' is also an auxiliary column"),
        "{e}"
    );
    let e = InferenceParams::from_table(
        &parse("aux_cols = [\"age\"]\nsecret = \"town\"\ntolerance = -1"),
        "--set",
    )
    .unwrap_err();
    assert_eq!(
        e.problems[0].to_string(),
        "tolerance: expected a value ≥ 0, found -1"
    );
}

#[test]
fn the_parameter_lists_name_every_field() {
    let names = |specs: &[intruder_data::params::ParamSpec]| {
        specs.iter().map(|s| s.name).collect::<Vec<_>>()
    };
    assert_eq!(
        names(intruder_questions::params::SINGLING_OUT),
        ["n_attacks", "mode", "n_cols", "max_attempts"]
    );
    assert_eq!(
        names(intruder_questions::params::LINKABILITY),
        ["n_attacks", "aux_cols", "n_neighbors"]
    );
    assert_eq!(
        names(intruder_questions::params::INFERENCE),
        ["n_attacks", "aux_cols", "secret", "regression", "tolerance"]
    );
}
