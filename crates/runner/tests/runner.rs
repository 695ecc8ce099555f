//! Grid expansion, the 95% interval, and metrics recomputed from raw per-record outcomes equal
//! the evaluator's figures.

use intruder_runner::{Experiment, Plan, RunOptions, Stat, attack_metrics, run_experiment};

const EXP: &str = r#"
name = "t"
seed = 3
replicates = 2
[data]
generator = "survey-panel"
n = 200
released = "survey-panel.csv"
truth = "person_id"
[scenario]
keys = ["year_of_birth", "gender", "occupation"]
known = 0.5
[[defence]]
name = "none"
[[defence]]
name = "grid"
[[defence.step]]
method = "local-suppression"
keys = ["year_of_birth", "gender", "occupation"]
k = [2, 3]
importance = [[1, 2, 3], [3, 2, 1]]
[[defence.step]]
method = "global-recode"
variables = ["year_of_birth"]
breaks = [1900, 1950, 2020]
[[attack]]
method = "exact"
missing = "wildcard"
[[attack]]
method = "nearest"
metric = "gower"
"#;

#[test]
fn grid_expands_scalar_lists_and_lists_of_lists_only() {
    let exp = Experiment::from_toml(EXP, "t.toml".as_ref()).unwrap();
    let plan = Plan::new(&exp, "data").unwrap();
    // none + 2 (k) × 2 (importance); `keys` and `breaks` are plain list parameters.
    assert_eq!(plan.settings.len(), 5);
    assert_eq!(plan.runs.len(), 10);
    let labels: Vec<&str> = plan.settings.iter().map(|s| s.label.as_str()).collect();
    assert!(
        labels.contains(&"grid (importance=[1,2,3], k=2)"),
        "{labels:?}"
    );
    assert!(
        labels.contains(&"grid (importance=[3,2,1], k=3)"),
        "{labels:?}"
    );
    let mut ids: Vec<&str> = plan.runs.iter().map(|r| r.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 10, "run ids are distinct");
    // The same file gives the same ids.
    let again = Plan::new(
        &Experiment::from_toml(EXP, "t.toml".as_ref()).unwrap(),
        "data",
    )
    .unwrap();
    assert_eq!(again, plan);
}

#[test]
fn interval_is_the_t_interval_of_the_mean() {
    let s = Stat::new(vec![1.0, 2.0, 3.0]);
    assert_eq!(s.mean, 2.0);
    // t(0.975, 2) = 4.302653, s = 1: half-width 4.302653 / √3.
    assert!((s.hi - 2.0 - 4.302_652_73 / 3f64.sqrt()).abs() < 1e-6);
    assert!((s.lo - (2.0 - 4.302_652_73 / 3f64.sqrt())).abs() < 1e-6);
    let one = Stat::new(vec![0.5]);
    assert_eq!((one.lo, one.hi), (0.5, 0.5));
}

#[test]
fn metrics_from_raw_records_match_the_evaluator() {
    let dir = tempfile::tempdir().unwrap();
    let exp = Experiment::from_toml(EXP, "t.toml".as_ref()).unwrap();
    let done = run_experiment(
        &exp,
        &RunOptions {
            out: Some(dir.path().to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    let raws = intruder_runner::load_runs(&done.plan, dir.path()).unwrap();
    let mut checked = 0;
    for raw in &raws {
        for a in &raw.attacks {
            let m = attack_metrics(a);
            let get = |k: &str| {
                m.iter()
                    .find(|x| x.id.figure == k)
                    .map(|x| x.value)
                    .unwrap()
            };
            let ev = &a.evaluator;
            for (ours, t) in [
                ("twins", ev.twins as f64),
                ("correct_matches", ev.correct_matches as f64),
                ("expected_correct", ev.expected_correct),
                ("unique_correct", ev.unique_correct as f64),
                ("le2_correct", ev.le2_correct as f64),
                ("with_candidates", ev.with_candidates as f64),
            ] {
                assert!((get(ours) - t).abs() < 1e-9, "{ours}: {} vs {t}", get(ours));
            }
            // Precision and recall from the stored per-record declared links equal the
            // evaluator's.
            for (ours, t) in [("precision", a.precision), ("recall", a.recall)] {
                let t = t.unwrap();
                assert!(
                    (get(ours) - t).abs() < 1e-12,
                    "{ours}: {} vs {t}",
                    get(ours)
                );
            }
            assert_eq!(get("declared"), a.declared as f64);
            checked += 1;
        }
    }
    assert_eq!(checked, 20);
}
