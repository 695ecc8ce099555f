//! `register-survey`: income heaping and per-variable agreement (Bender et al., Tables 2-3).

use crate::common;

use common::{figure, generate, near};
use intruder_synth::figures::{Table, register_survey};

#[test]
fn survey_heaping_and_agreement_reproduce_the_paper() {
    // 4,000 twins (rather than 273) so a share has a standard error below 0.008; the
    // tolerance is about 4 standard errors. A small register keeps the test fast.
    let (dir, _) = generate("register-survey", 9, &["n=1000", "twins=4000"]);
    let f = register_survey(dir.path()).expect("figures");
    assert_eq!(figure(&f, "register records"), 5000.0);
    assert_eq!(figure(&f, "survey records"), 4000.0);
    near(
        "last digit 0",
        figure(&f, "survey income last digit 0"),
        0.938,
        0.03,
    );
    near(
        "last digits 00",
        figure(&f, "survey income last digits 00"),
        0.839,
        0.03,
    );
    near(
        "last digits 000",
        figure(&f, "survey income last digits 000"),
        0.183,
        0.03,
    );
    near(
        "last digits 500",
        figure(&f, "survey income last digits 500"),
        0.1575,
        0.03,
    );
    near(
        "last digits 800",
        figure(&f, "survey income last digits 800"),
        0.1136,
        0.03,
    );
    near(
        "earnings agree",
        figure(&f, "agree: earnings"),
        2.0 / 273.0,
        0.008,
    );
    for (var, agree) in [
        ("birth_cohort", 273),
        ("sex", 273),
        ("occupation", 151),
        ("region", 262),
        ("nationality", 272),
        ("schooling", 215),
        ("occ_status", 215),
        ("part_time", 261),
        ("interruption", 255),
        ("months_worked", 187),
        ("last_duration", 189),
        ("married", 238),
        ("children", 183),
    ] {
        let name = format!("agree: {var}");
        near(&name, figure(&f, &name), f64::from(agree) / 273.0, 0.035);
    }
}

#[test]
fn default_sizes_and_register_uniqueness() {
    let (dir, _) = generate("register-survey", 1, &[]);
    let f = register_survey(dir.path()).expect("figures");
    assert_eq!(figure(&f, "register records"), 19355.0);
    assert_eq!(figure(&f, "survey records"), 273.0);
    // Published: about 69% sample uniques on the 14 keys; seeds 1-2 give 66-68%.
    near(
        "uniques",
        figure(&f, "register sample uniques (14 keys)"),
        0.69,
        0.08,
    );
}

#[test]
fn the_population_holds_the_register_sample_and_leaves_the_other_files_alone() {
    // n + twins = 550 and N = 3,000: ids have five digits with or without the population.
    let (with, files) = generate(
        "register-survey",
        3,
        &["n=500", "twins=50", "population=3000"],
    );
    let (without, _) = generate("register-survey", 3, &["n=500", "twins=50"]);
    assert!(files.iter().any(|f| f.ends_with("population.csv")));
    let reg = Table::read(&with.path().join("register.csv")).expect("register");
    let pop = Table::read(&with.path().join("population.csv")).expect("population");
    assert_eq!(pop.rows.len(), 3000);
    assert_eq!(pop.header, reg.header);
    // Every register record is in the population with the same values, as its first 550.
    let by_id: std::collections::HashMap<&str, &Vec<String>> = pop
        .rows
        .iter()
        .map(|r| (r[pop.col("person_id")].as_str(), r))
        .collect();
    assert_eq!(by_id.len(), 3000, "person ids are unique");
    for r in &reg.rows {
        assert_eq!(by_id[r[reg.col("person_id")].as_str()], r);
    }
    assert!(
        pop.rows[..550]
            .iter()
            .all(|r| r[0].as_str() <= "I00550" && r[0].as_str() >= "I00001")
    );
    // The register and the survey are the same files with or without the population.
    for f in ["register.csv", "survey.csv"] {
        assert_eq!(
            std::fs::read(with.path().join(f)).expect("with"),
            std::fs::read(without.path().join(f)).expect("without"),
            "{f}"
        );
    }
    let figs = register_survey(with.path()).expect("figures");
    assert_eq!(figure(&figs, "population records"), 3000.0);
    let u = figure(&figs, "population uniques (14 keys)");
    assert!(u > 0.0 && u < 1.0, "{u}");
}

#[test]
fn a_population_smaller_than_the_sample_is_an_error() {
    let g = intruder_synth::parse(
        "register-survey",
        None,
        &["n=100", "twins=10", "population=50"],
    )
    .expect("values in range");
    let dir = tempfile::tempdir().expect("tempdir");
    let e = g
        .generate(1, dir.path())
        .expect_err("too small")
        .to_string();
    assert!(
        e.contains("population") && e.contains("at least 110"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_dir(dir.path()).expect("dir").count(),
        0,
        "nothing written"
    );
}
