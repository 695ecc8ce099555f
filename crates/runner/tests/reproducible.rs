//! Results depend on the experiment's content, its seed and its data — never on where the files
//! are: the same experiment (data files, a linkage specification beside it) copied to two
//! directories gives byte-identical results; a changed data value reruns the stored runs, an
//! unchanged file reuses them.

use std::path::Path;

use intruder_runner::{Experiment, RunOptions, run_experiment};
use proptest::prelude::*;

fn experiment(seed: u64) -> String {
    format!(
        r#"
name = "moved"
seed = {seed}
replicates = 2
[data]
released = "data/survey-panel.csv"
truth = "person_id"
[scenario]
keys = ["year_of_birth", "gender", "occupation"]
known = 0.5
[[defence]]
name = "none"
[[defence]]
name = "k"
[[defence.step]]
method = "local-suppression"
keys = ["year_of_birth", "gender", "occupation"]
k = [2, 3]
[[attack]]
method = "exact"
missing = "wildcard"
[[attack]]
method = "fellegi-sunter"
name = "fs"
linkage_spec = "specs/fs.toml"
"#
    )
}

const SPEC: &str = r#"blocking = [["gender"]]
[[comparison]]
column = "year_of_birth"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "absolute", threshold = 1 }, { kind = "else" }]
[[comparison]]
column = "occupation"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "else" }]
"#;

/// Writes the experiment, its data and its specification under `dir`.
fn lay_out(dir: &Path, seed: u64) {
    std::fs::create_dir_all(dir.join("specs")).unwrap();
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(dir.join("specs/fs.toml"), SPEC).unwrap();
    std::fs::write(dir.join("e.toml"), experiment(seed)).unwrap();
    intruder_synth::run("survey-panel", Some(180), &[], 7, &dir.join("data")).unwrap();
}

fn run(dir: &Path, force: bool) -> usize {
    let exp = Experiment::from_file(&dir.join("e.toml")).unwrap();
    run_experiment(
        &exp,
        &RunOptions {
            out: Some(dir.join("out")),
            force,
            ..Default::default()
        },
    )
    .unwrap()
    .executed
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3, .. ProptestConfig::default() })]

    #[test]
    fn the_same_experiment_in_two_directories_gives_the_same_bytes(
        seed in 0u64..1_000_000,
        depth in 1usize..4,
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let a = tmp.path().join("a");
        let mut b = tmp.path().to_path_buf();
        for i in 0..depth {
            b = b.join(format!("somewhere-else-{i}"));
        }
        lay_out(&a, seed);
        lay_out(&b, seed);
        run(&a, false);
        run(&b, false);
        for f in ["results.csv", "summary.md", "results.json"] {
            let x = std::fs::read(a.join("out").join(f)).unwrap();
            let y = std::fs::read(b.join("out").join(f)).unwrap();
            prop_assert!(x == y, "{f} differs between {} and {}", a.display(), b.display());
        }
    }
}

#[test]
fn changed_data_rerun_and_unchanged_data_reuse_stored_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    lay_out(dir, 11);
    let all = run(dir, false);
    assert_eq!(all, 6, "3 settings × 2 replicates");
    assert_eq!(run(dir, false), 0, "unchanged: every run reused");
    let before = std::fs::read(dir.join("out/results.csv")).unwrap();

    // One value of one record changes: every run depends on the released file, so all rerun.
    let csv = dir.join("data/survey-panel.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = header.iter().position(|h| *h == "occupation").unwrap();
    let mut cells: Vec<String> = lines[1].split(',').map(str::to_string).collect();
    let other = lines[2..]
        .iter()
        .map(|l| l.split(',').nth(col).unwrap().to_string())
        .find(|v| *v != cells[col])
        .unwrap();
    cells[col] = other;
    lines[1] = cells.join(",");
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    assert_eq!(run(dir, false), all, "changed data: every run reruns");
    assert_eq!(run(dir, false), 0);

    // Putting the value back finds the first runs again.
    std::fs::write(&csv, text).unwrap();
    assert_eq!(
        run(dir, false),
        0,
        "the original data's runs are still stored"
    );
    assert_eq!(std::fs::read(dir.join("out/results.csv")).unwrap(), before);
    // --force reruns everything.
    assert_eq!(run(dir, true), all);
}
