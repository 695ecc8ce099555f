//! Synthesisers as defences (issue 34): a synthetic release's records are no one, so the
//! twin-based attacks find no twin and no correct re-identification, the utility measures that
//! pair records one to one are recorded as not applicable, and the others and the questions run.

use intruder_runner::{Experiment, Plan, RunOptions, load_runs, run_experiment};

const SYNTH_EXP: &str = r#"
name = "synth"
seed = 34
[data]
generator = "survey-panel"
n = 300
released = "survey-panel.csv"
truth = "person_id"
[scenario]
keys = ["year_of_birth", "gender", "occupation"]
known = 0.5
control = 0.2
[[defence]]
name = "none"
[[defence]]
name = "marginals"
[[defence.step]]
method = "independent-marginals"
[[defence]]
name = "privbayes"
[[defence.step]]
method = "privbayes"
epsilon = 1
[[attack]]
method = "exact"
[[question]]
method = "singling-out"
n_attacks = 40
[utility]
variables = ["net_income", "year_of_birth"]
measures = ["moments", "il1s"]
"#;

#[test]
fn a_synthetic_release_has_no_twins_and_no_one_to_one_utility() {
    let exp = Experiment::from_toml(SYNTH_EXP, "s.toml".as_ref()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let done = run_experiment(
        &exp,
        &RunOptions {
            out: Some(dir.path().to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    let plan: &Plan = &done.plan;
    let runs = load_runs(plan, dir.path()).unwrap();
    assert_eq!(runs.len(), 3);
    for run in &runs {
        let attack = &run.attacks[0];
        let has = |m: &str| run.utility.iter().any(|u| u.measure == m);
        assert!(has("moments"), "{}", run.setting);
        assert_eq!(run.questions.len(), 1, "{}", run.setting);
        assert_eq!(run.masking.rows_out, 240, "{}", run.setting);
        if run.setting == "none" {
            assert!(attack.evaluator.twins > 0);
            assert!(attack.evaluator.correct_matches > 0);
            assert!(has("il1s"));
            assert!(run.failures.is_empty(), "{:?}", run.failures);
            continue;
        }
        // no released record is anyone's twin; every declared link is wrong
        assert_eq!(attack.evaluator.twins, 0, "{}", run.setting);
        assert_eq!(attack.evaluator.correct_matches, 0, "{}", run.setting);
        assert_eq!(attack.evaluator.expected_correct, 0.0, "{}", run.setting);
        if attack.declared > 0 {
            assert_eq!(attack.precision, Some(0.0), "{}", run.setting);
        }
        // every released record is new: none is shown as it was (the map's default loss)
        assert_eq!(run.masking.records_changed, 240);
        assert_eq!(run.masking.records_changed_or_recoded, 240);
        // il1s pairs records: not applicable, said so
        assert!(!has("il1s"), "{}", run.setting);
        assert_eq!(run.failures.len(), 1, "{:?}", run.failures);
        let f = &run.failures[0];
        assert_eq!((f.stage.as_str(), f.name.as_str()), ("utility", "il1s"));
        assert!(
            f.message
                .starts_with("not applicable to a synthetic release"),
            "{}",
            f.message
        );
    }
}

/// An attack restricted to twins has nothing to search in a synthetic release: the run records
/// that failure with the reason, not "the released file has no records".
#[test]
fn twins_only_against_a_synthetic_release_says_there_is_no_twin() {
    let text = SYNTH_EXP.replace(
        "[[attack]]\nmethod = \"exact\"\n",
        "[[attack]]\nmethod = \"exact\"\ntwins_only = true\n",
    );
    assert_ne!(text, SYNTH_EXP);
    let exp = Experiment::from_toml(&text, "s.toml".as_ref()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let done = run_experiment(
        &exp,
        &RunOptions {
            out: Some(dir.path().to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    let runs = load_runs(&done.plan, dir.path()).unwrap();
    for run in &runs {
        let failed: Vec<_> = run
            .failures
            .iter()
            .filter(|f| f.stage == "attack")
            .collect();
        if run.setting == "none" {
            assert_eq!(run.attacks.len(), 1);
            assert!(failed.is_empty(), "{:?}", failed);
            continue;
        }
        assert!(run.attacks.is_empty(), "{}", run.setting);
        assert_eq!(failed.len(), 1, "{:?}", run.failures);
        let m = &failed[0].message;
        assert!(
            m.contains("column 'person_id'")
                && m.contains("twins_only: none of the 240 released records has a twin")
                && m.contains("synthetic release"),
            "{m}"
        );
    }
}
