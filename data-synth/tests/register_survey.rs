//! `register-survey`: income heaping and per-variable agreement (Bender et al., Tables 2-3).

mod common;

use common::{figure, generate, near};
use intruder_synth::figures::register_survey;

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
