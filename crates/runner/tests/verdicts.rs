//! Issue 32 in an experiment file: every setting's promise cross-examined on the whole release
//! (`check.*` metrics, a verdict table with warnings naming the setting, the rule and the
//! figures), the check moving no seed, and attack rates over replicates with an interval that
//! carries the replicates.

use intruder_runner::{Experiment, IntervalKind, RunOptions, load_runs, run_experiment};

fn experiment(check: bool) -> String {
    format!(
        r#"
name = "verdicts"
seed = 32
replicates = 5
[data]
generator = "survey-panel"
n = 400
released = "survey-panel.csv"
truth = "person_id"
[scenario]
keys = ["year_of_birth", "gender", "occupation"]
known = 1.0
check = {check}
[[defence]]
name = "none"
[[defence]]
name = "wildcard only"
[[defence.step]]
method = "local-suppression"
keys = ["year_of_birth", "gender", "occupation"]
k = 3
protect_against = "wildcard"
[[defence]]
name = "all rules"
[[defence.step]]
method = "local-suppression"
keys = ["year_of_birth", "gender", "occupation"]
k = 3
[[defence]]
name = "half"
[[defence.step]]
method = "subsample"
fraction = 0.5
[[attack]]
method = "exact"
"#
    )
}

#[test]
fn issue_32_an_experiment_reports_the_verdict_of_every_setting() {
    let exp = Experiment::from_toml(&experiment(true), "v.toml".as_ref()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let done = run_experiment(
        &exp,
        &RunOptions {
            out: Some(dir.path().to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    let results = &done.written.results;
    let get = |setting: &str, m: &str| {
        results
            .iter()
            .find(|s| s.label == setting)
            .unwrap()
            .get(m)
            .unwrap_or_else(|| panic!("{setting}: {m}"))
            .clone()
    };
    // the promise under all rules holds in every replicate; the wildcard one does not
    assert_eq!(get("all rules", "check.holds").mean, 1.0);
    assert_eq!(get("wildcard only", "check.holds").mean, 0.0);
    assert!(
        get("all rules", "check.listwise_min_class")
            .values
            .iter()
            .all(|&v| v >= 3.0)
    );
    assert!(get("all rules", "check.listwise_rate").mean <= 1.0 / 3.0);
    assert!(
        get("wildcard only", "check.listwise_min_class")
            .values
            .iter()
            .any(|&v| v < 3.0)
    );
    // the verdict table, and warnings naming the setting, the rule and the figures
    let t = done.written.verdict.as_ref().expect("a verdict table");
    let row = |s: &str| t.rows.iter().find(|r| r[0] == s).unwrap().clone();
    assert_eq!(row("all rules")[1], "k = 3 (all)");
    assert_eq!(row("all rules")[2], "holds (5 of 5)");
    // the wildcard count holds, but listwise classes of 1 remain: a rule it does not cover
    assert_eq!(
        row("wildcard only")[2],
        "holds only under the rule promised (5 of 5)"
    );
    assert_eq!(row("none")[2], "no promise");
    let w = &done.written.verdict_warnings;
    assert!(
        w.iter().any(
            |x| x.starts_with("wildcard only: step 1 (local-suppression) promised k = 3")
                && x.contains("the listwise rule")
        ),
        "{w:?}"
    );
    assert!(w.iter().all(|x| !x.starts_with("all rules:")), "{w:?}");
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert!(html.contains("Verdict: promises against the attacks"));
    let md = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(
        md.contains("| all rules | k = 3 (all) | holds (5 of 5) |"),
        "{md}"
    );
    // five replicates of a 50% subsample: the rate's interval carries the replicates
    let s = get("half", "exact.correct_per_target");
    assert_eq!(s.interval, IntervalKind::Replicates);
    assert_eq!(s.values.len(), 5);
    let (k, n) = s.pooled.unwrap();
    let (wl, wh) = intruder_runner::wilson(k, n).unwrap();
    assert!(s.lo <= wl && s.hi >= wh, "never narrower than Wilson's");
    // the check draws nothing at random: without it, every other figure is the same
    let raws = load_runs(&done.plan, dir.path()).unwrap();
    assert!(raws.iter().all(|r| !r.checks.is_empty()));
    let exp2 = Experiment::from_toml(&experiment(false), "v.toml".as_ref()).unwrap();
    let dir2 = tempfile::tempdir().unwrap();
    let done2 = run_experiment(
        &exp2,
        &RunOptions {
            out: Some(dir2.path().to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(done2.written.verdict.is_none());
    for (a, b) in done.written.results.iter().zip(&done2.written.results) {
        for m in &b.metrics {
            assert_eq!(a.get(&m.name), Some(&m.stat), "{} {}", a.label, m.name);
        }
        assert!(
            a.metrics.len() > b.metrics.len(),
            "the check adds check.* figures"
        );
    }
}
