//! `[data] params` is read by the generator's own parameter declarations: every problem with
//! its path (`data.params.<key>`), unknown keys with a did-you-mean, before anything runs.

use intruder_runner::Experiment;

fn experiment(params: &str) -> String {
    format!(
        r#"
name = "t"
seed = 3
[data]
generator = "census"
n = 500
params = {params}
released = "sample.csv"
truth = "person_id"
[scenario]
keys = ["k01", "k02"]
[[defence]]
name = "none"
[[attack]]
method = "exact"
"#
    )
}

fn problems(params: &str) -> String {
    match Experiment::from_toml(&experiment(params), "t.toml".as_ref()) {
        Ok(_) => panic!("{params}: accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn unknown_keys_wrong_kinds_and_ranges_are_reported_with_their_paths() {
    let text =
        problems("{ bad = 1, fracton = 0.1, keys = 31, skew = \"high\", preset = \"drug\" }");
    for needle in [
        "data.params.bad: unknown key",
        "data.params.fracton: unknown key (did you mean 'fraction'?)",
        "data.params.keys: expected a value in [1, 30], found 31",
        "data.params.skew: expected a finite number, found the string \"high\"",
        "data.params.preset: unknown value 'drug'",
    ] {
        assert!(text.contains(needle), "'{needle}' not in:\n{text}");
    }
    let text = problems("{ n = 600 }");
    assert!(text.contains("data.params.n: given twice"), "{text}");
}

#[test]
fn valid_params_are_accepted() {
    let exp = Experiment::from_toml(
        &experiment("{ keys = 12, fraction = 0.05, preset = \"none\" }"),
        "t.toml".as_ref(),
    );
    assert!(exp.is_ok(), "{:?}", exp.err());
}
