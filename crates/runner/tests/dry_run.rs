//! `--dry-run` checks every column an experiment names — kinds, and the levels a recode map
//! names — against the data's columns without running or writing anything; for a generator
//! whose data are not stored, against the schemas it declares, so a 10,000,000-record
//! population is not generated to check a file (issue 38).

use std::time::{Duration, Instant};

use intruder_runner::{Experiment, dry_run};

const BIG: &str = r#"
name = "big"
seed = 3
replicates = 1
[data]
generator = "census"
n = 10000000
params = { keys = 6 }
released = "sample.csv"
intruder = "population.csv"
truth = "person_id"
[scenario]
keys = ["k01", "k02", "k03"]
intruder_n = 100
[[defence]]
name = "none"
[[defence]]
name = "recode"
[[defence.step]]
method = "global-recode"
variables = ["k01"]
map = { "0" = "a", "77" = "b" }
[[defence]]
name = "pram"
[[defence.step]]
method = "pram"
variables = ["weight"]
[[attack]]
method = "exact"
[utility]
measures = ["moments"]
variables = ["k02", "weight"]
"#;

#[test]
fn a_generator_is_checked_by_its_declared_schemas_without_generating() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.toml");
    std::fs::write(&path, BIG).unwrap();
    let exp = Experiment::from_file(&path).unwrap();
    let out = dir.path().join("out");
    let start = Instant::now();
    let err = dry_run(&exp, &out).unwrap_err().to_string();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    assert!(!out.exists(), "a dry run writes nothing");
    for x in [
        "3 problems",
        "defence[2].step[1].map: sample.csv: '77' is not a value of 'k01'",
        "defence[3].step[1].variables: sample.csv: column 'weight' is float; expected a categorical column",
        "utility.variables: sample.csv: column 'k02' is categorical; moments needs numeric variables",
    ] {
        assert!(err.contains(x), "missing «{x}» in:\n{err}");
    }
    // Fixed, the plan is printed, still without generating.
    let fixed = BIG
        .replace("\"77\" = \"b\"", "\"1\" = \"b\"")
        .replace(
            "variables = [\"weight\"]\n[[attack]]",
            "variables = [\"k04\"]\n[[attack]]",
        )
        .replace(
            "variables = [\"k02\", \"weight\"]",
            "variables = [\"weight\"]",
        );
    std::fs::write(&path, &fixed).unwrap();
    let exp = Experiment::from_file(&path).unwrap();
    let dry = dry_run(&exp, &out).unwrap();
    assert_eq!(dry.plan.runs.len(), 3);
    assert!(!out.exists());
    // A file the generator does not write is named with the files it writes.
    let wrong = fixed.replace("released = \"sample.csv\"", "released = \"smaple.csv\"");
    std::fs::write(&path, &wrong).unwrap();
    let exp = Experiment::from_file(&path).unwrap();
    let err = dry_run(&exp, &out).unwrap_err().to_string();
    assert!(
        err.contains("'smaple.csv' (did you mean 'sample.csv'?)") && err.contains("population.csv"),
        "{err}"
    );
}
