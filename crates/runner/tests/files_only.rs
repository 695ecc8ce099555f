//! An experiment on plain CSV files without a schema: `truth = "pid"` in `[data]` is enough (the
//! column gets the truth role at load), and a misspelled truth or key column fails the dry run
//! before anything runs, naming the file's key and the column.

use std::path::Path;

use intruder_runner::{Experiment, RunOptions, dry_run, run_experiment};

fn csv() -> String {
    let mut s = String::from("pid,age,sex,region,income\n");
    for i in 0..120u32 {
        s.push_str(&format!(
            "p{i},{},{},{},{}\n",
            20 + (i * 7) % 50,
            if i % 3 == 0 { "f" } else { "m" },
            ["north", "south", "east"][(i % 3) as usize],
            1000 + i * 13
        ));
    }
    s
}

fn experiment(truth: &str, key: &str) -> String {
    format!(
        r#"
name = "files"
seed = 4
replicates = 1
[data]
released = "people.csv"
truth = "{truth}"
[scenario]
keys = ["age", "sex", "{key}"]
known = 0.5
[[defence]]
name = "none"
[[defence]]
name = "k"
[[defence.step]]
method = "local-suppression"
keys = ["age", "sex", "{key}"]
k = 3
[[attack]]
method = "exact"
[[risk]]
measure = "frequency"
"#
    )
}

fn lay_out(dir: &Path, truth: &str, key: &str) -> Experiment {
    std::fs::write(dir.join("people.csv"), csv()).unwrap();
    let p = dir.join("e.toml");
    std::fs::write(&p, experiment(truth, key)).unwrap();
    Experiment::from_file(&p).unwrap()
}

#[test]
fn truth_named_in_data_is_enough() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = lay_out(tmp.path(), "pid", "region");
    let out = tmp.path().join("out");
    dry_run(&exp, &out).unwrap();
    assert!(!out.exists(), "a dry run writes nothing");
    let done = run_experiment(
        &exp,
        &RunOptions {
            out: Some(out.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(done.executed, 2);
    let results = std::fs::read_to_string(out.join("results.csv")).unwrap();
    // Without masking every record is unique on (age, sex, region) or not, and the attack finds
    // every twin: the truth column was used to score it, not as a key.
    assert!(results.contains(",exact.twins,"), "{results}");
    assert!(
        !results.contains("pid"),
        "the truth column is not a released variable"
    );
}

#[test]
fn misspelled_columns_fail_the_dry_run_and_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let exp = lay_out(tmp.path(), "pdi", "regoin");
    let err = dry_run(&exp, &tmp.path().join("out"))
        .unwrap_err()
        .to_string();
    for want in [
        "data.truth",
        "'pdi'",
        "scenario.keys",
        "'regoin'",
        "did you mean 'region'",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    assert!(
        err.starts_with(&tmp.path().join("e.toml").display().to_string()),
        "{err}"
    );
}

/// The evaluator's warnings reach the caller of a run: an intruder file where two records share
/// a truth id (a unit that split) is scored, and the run says so, naming the setting, the
/// replicate, the attack and the rows — again when the stored run is reused.
#[test]
fn evaluator_warnings_are_reported_by_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("people.csv"), csv()).unwrap();
    // The intruder knows 10 people, p3 twice (rows 4 and 11).
    let mut known = String::from("pid,age,sex,region\n");
    for i in (0..10u32).chain([3]) {
        known.push_str(&format!(
            "p{i},{},{},{}\n",
            20 + (i * 7) % 50,
            if i % 3 == 0 { "f" } else { "m" },
            ["north", "south", "east"][(i % 3) as usize],
        ));
    }
    std::fs::write(dir.join("known.csv"), known).unwrap();
    let toml = r#"
name = "split"
seed = 4
replicates = 1
[data]
released = "people.csv"
intruder = "known.csv"
truth = "pid"
[scenario]
keys = ["age", "sex", "region"]
known = 1.0
[[defence]]
name = "none"
[[attack]]
name = "exact"
method = "exact"
"#;
    let p = dir.join("e.toml");
    std::fs::write(&p, toml).unwrap();
    let exp = Experiment::from_file(&p).unwrap();
    let opts = RunOptions {
        out: Some(dir.join("out")),
        ..Default::default()
    };
    for executed in [1, 0] {
        let done = run_experiment(&exp, &opts).unwrap();
        assert_eq!(done.executed, executed);
        assert_eq!(done.warnings.len(), 1, "{:?}", done.warnings);
        let w = &done.warnings[0];
        for part in [
            "setting 'none'",
            "replicate 1",
            "attack 'exact'",
            "truth id 'p3'",
            "row 4 and again on row 11",
        ] {
            assert!(w.contains(part), "{part} in {w}");
        }
    }
}
