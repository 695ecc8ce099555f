//! `[[risk]]` tables name any measure of the risk registry with the parameters `intruder risk`
//! takes: SUDA2, population estimators and household risk end up as `risk.<name>.<figure>` in
//! `results.csv`, with hand-checked values; bad tables are refused with every problem at once.

use intruder_runner::{Experiment, RunOptions, run_experiment};

/// Keys a, b: classes (1,x) = rows 1–2, (1,y) = row 3, (2,y) = row 4; weights 10, 20, 5, 8;
/// households {1, 2}, {3}, {4}.
const DATA: &str = "pid,a,b,w,hh\n1,1,x,10,1\n2,1,x,20,1\n3,1,y,5,2\n4,2,y,8,3\n";

const EXP: &str = r#"
name = "risk-registry"
seed = 7
[data]
released = "s.csv"
truth = "pid"
[scenario]
keys = ["a", "b"]
[[defence]]
name = "none"
[[risk]]
name = "msu"
measure = "suda2"
max_msu_size = 2
[[risk]]
name = "pop"
measure = "population"
population_size = 40
[[risk]]
name = "hh"
measure = "household"
group = "hh"
weight = "w"
[[risk]]
file = "source"
"#;

fn metric(csv: &str, name: &str) -> f64 {
    let rows: Vec<&str> = csv
        .lines()
        .filter(|l| l.split(',').nth(5) == Some(name))
        .collect();
    assert_eq!(rows.len(), 1, "{name} in\n{csv}");
    rows[0].rsplit(',').next().unwrap().parse().unwrap()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-12, "{a} vs {b}");
}

#[test]
fn suda2_population_and_household_risk_from_an_experiment_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("exp.toml");
    std::fs::write(dir.path().join("s.csv"), DATA).unwrap();
    std::fs::write(&path, EXP).unwrap();
    let exp = Experiment::from_toml(EXP, &path).unwrap();
    let names: Vec<(&str, &str)> = exp
        .risk
        .iter()
        .map(|r| (r.name.as_str(), r.measure_name()))
        .collect();
    assert_eq!(
        names,
        [
            ("msu", "suda2"),
            ("pop", "population"),
            ("hh", "household"),
            ("listwise", "frequency")
        ]
    );
    let out = dir.path().join("out");
    run_experiment(
        &exp,
        &RunOptions {
            out: Some(out.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    // SUDA2 with 2 keys: row 4 is unique on {a}, row 3 on {a, b}; w(1) = w(2) = 1.
    assert_eq!(metric(&csv, "risk.msu.msus"), 2.0);
    assert_eq!(metric(&csv, "risk.msu.score_max"), 1.0);
    assert_eq!(metric(&csv, "risk.msu.sample_uniques"), 2.0);
    // π = 4/40; main effects μ(1,y) = 4·¾·½ = 1.5, μ(2,y) = 4·¼·½ = 0.5; v = (1−π)μ/π = 9μ.
    close(metric(&csv, "risk.pop.sampling_fraction"), 0.1);
    close(
        metric(&csv, "risk.pop.tau1"),
        (-13.5f64).exp() + (-4.5f64).exp(),
    );
    // Benedetti–Franconi r for (f, F) = (2, 30), (1, 5), (1, 8); household 1 = rows 1–2.
    let p: f64 = 2.0 / 30.0;
    let odds = p / (1.0 - p);
    let pair = odds - odds * odds * (1.0 / p).ln();
    let one = |big: f64| {
        let p = 1.0 / big;
        p / (1.0 - p) * (1.0 / p).ln()
    };
    let hh1 = 1.0 - (1.0 - pair) * (1.0 - pair);
    close(
        metric(&csv, "risk.hh.household_expected_reidentifications"),
        2.0 * hh1 + one(5.0) + one(8.0),
    );
    assert_eq!(metric(&csv, "risk.hh.households"), 3.0);
    // The frequency measure of the source file, named after its policy.
    assert_eq!(metric(&csv, "risk.listwise.sample_uniques"), 2.0);
}

#[test]
fn bad_risk_tables_are_refused_with_every_problem() {
    let text = EXP
        .replace("max_msu_size = 2", "max_msu_size = 0\nmax_msu_sise = 3")
        .replace("group = \"hh\"\n", "")
        .replace(
            "population_size = 40",
            "population_size = 40\nsampling_fraction = 2",
        );
    let err = Experiment::from_toml(&text, "exp.toml".as_ref())
        .unwrap_err()
        .to_string();
    for needle in [
        "risk[1].max_msu_size: expected a value ≥ 1, found 0",
        "risk[1].max_msu_sise: unknown key (did you mean 'max_msu_size'?)",
        "risk[2].sampling_fraction: expected a value in (0, 1], found 2",
        "risk[3].group: is required but missing",
    ] {
        assert!(err.contains(needle), "{needle} in {err}");
    }
    let text = EXP.replace("name = \"pop\"", "name = \"msu\"");
    let err = Experiment::from_toml(&text, "exp.toml".as_ref())
        .unwrap_err()
        .to_string();
    assert!(err.contains("'msu' is used twice"), "{err}");
}

/// A population file beside the released sample: `[data] population` names it and a risk
/// measure with `file = "population"` reads it whole; `sample_size` gives Bender's R from its
/// own uniques. Population: a = 1, 1, 2, 3, 4, 4 (uniques 2 and 3); the released sample is
/// its first four records.
#[test]
fn a_population_file_for_population_uniques_and_bender_r() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pop.csv"),
        "pid,a\n1,1\n2,1\n3,2\n4,3\n5,4\n6,4\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("s.csv"), "pid,a\n1,1\n2,1\n3,2\n4,3\n").unwrap();
    let text = r#"
name = "population-file"
seed = 7
[data]
released = "s.csv"
population = "pop.csv"
truth = "pid"
[scenario]
keys = ["a"]
[[defence]]
name = "none"
[[risk]]
name = "sample"
[[risk]]
name = "pop"
file = "population"
sample_size = 4
"#;
    let path = dir.path().join("exp.toml");
    std::fs::write(&path, text).unwrap();
    let exp = Experiment::from_toml(text, &path).unwrap();
    let out = dir.path().join("out");
    run_experiment(
        &exp,
        &RunOptions {
            out: Some(out.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(metric(&csv, "risk.sample.sample_uniques"), 2.0);
    assert_eq!(metric(&csv, "risk.pop.n"), 6.0);
    assert_eq!(metric(&csv, "risk.pop.sample_uniques"), 2.0);
    // f = 4/6, n(U) = 2, f_a = 1.
    close(
        metric(&csv, "risk.pop.bender_r"),
        1.0 - (-4.0f64 / 6.0 * 2.0).exp(),
    );
    // Without [data] population the check names the key.
    let bad = text.replace("population = \"pop.csv\"\n", "");
    std::fs::write(&path, &bad).unwrap();
    let exp = Experiment::from_toml(&bad, &path).unwrap();
    let err = run_experiment(
        &exp,
        &RunOptions {
            out: Some(dir.path().join("out2")),
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("risk[2].file") && err.contains("[data] population"),
        "{err}"
    );
}

#[test]
fn t_closeness_from_an_experiment_file() {
    // Keys a, sensitive b: the file's b is x twice, y twice, q = (½, ½). Class a = 1 holds
    // x, x, y: ½(|⅔ − ½| + |⅓ − ½|) = ⅙; class a = 2 holds y: ½(½ + ½) = ½ (equal distance:
    // b is text). With t = 0.2 only class a = 2 (one record) is above.
    let exp_text = r#"
name = "t-closeness"
seed = 7
[data]
released = "s.csv"
truth = "pid"
[scenario]
keys = ["a", "b"]
[[defence]]
name = "none"
[[risk]]
name = "tc"
measure = "t-closeness"
keys = ["a"]
sensitive = "b"
t = 0.2
"#;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("exp.toml");
    std::fs::write(dir.path().join("s.csv"), DATA).unwrap();
    std::fs::write(&path, exp_text).unwrap();
    let exp = Experiment::from_toml(exp_text, &path).unwrap();
    assert_eq!(exp.risk[0].measure_name(), "t-closeness");
    let out = dir.path().join("out");
    run_experiment(
        &exp,
        &RunOptions {
            out: Some(out.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(metric(&csv, "risk.tc.t_max"), 0.5);
    close(metric(&csv, "risk.tc.emd_mean"), (3.0 / 6.0 + 0.5) / 4.0);
    assert_eq!(metric(&csv, "risk.tc.classes_above_t"), 1.0);
    assert_eq!(metric(&csv, "risk.tc.records_above_t"), 1.0);
}
