//! `[[attack]]` tables go through `intruder_attack::configure`: every parameter of the command
//! line under the same name (Fellegi–Sunter's specification as a file relative to the
//! experiment, or inline), problems with their paths, and the run-id layout of earlier releases
//! kept so existing experiment files keep their seeds and results.

use intruder_runner::{Experiment, RunOptions, run_experiment};
use serde_json::json;

const HEAD: &str = r#"
name = "t"
seed = 5
replicates = 1
[data]
generator = "survey-panel"
n = 150
released = "survey-panel.csv"
truth = "person_id"
[scenario]
keys = ["year_of_birth", "gender", "occupation"]
known = 0.5
[[defence]]
name = "none"
"#;

const SPEC: &str = r#"blocking = [["gender"]]
[[comparison]]
column = "year_of_birth"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "absolute", threshold = 1 }, { kind = "else" }]
[[comparison]]
column = "occupation"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "else" }]
"#;

fn parse(text: &str, path: &std::path::Path) -> Result<Experiment, String> {
    Experiment::from_toml(text, path).map_err(|e| e.to_string())
}

#[test]
fn fellegi_sunter_is_configured_from_the_experiment_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("specs")).unwrap();
    std::fs::write(dir.path().join("specs/fs.toml"), SPEC).unwrap();
    let exp_path = dir.path().join("e.toml");
    let from_file = format!(
        "{HEAD}[[attack]]\nmethod = \"fellegi-sunter\"\nname = \"fs\"\nlinkage_spec = \"specs/fs.toml\"\nassignment = \"optimal\"\nem_max_iter = 40\nu_sample = 3000\nmatch_probability = 0.8\n"
    );
    let exp = parse(&from_file, &exp_path).unwrap();
    assert_eq!(
        exp.warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        vec![
            "attack[1].match_probability: 'match_probability' is deprecated: use 'threshold' (the old name is accepted until the next release)"
        ]
    );
    let a = &exp.attacks[0];
    // The specification's columns are the keys (gender is a blocking column).
    assert_eq!(a.keys, vec!["year_of_birth", "occupation", "gender"]);
    let r = a.resolved();
    assert_eq!(r["assignment"], "optimal");
    assert_eq!(r["em_max_iter"], 40);
    assert_eq!(r["u_sample"], 3000);
    assert_eq!(r["threshold"], 0.8);
    assert_eq!(
        r["linkage"]["blocking"],
        json!([[{"kind": "column", "column": "gender"}]])
    );
    // The same specification inline gives the same attack.
    let inline_spec = SPEC
        .replace("blocking", "[attack.linkage]\nblocking")
        .replace("[[comparison]]", "[[attack.linkage.comparison]]");
    let inline = format!(
        "{HEAD}[[attack]]\nmethod = \"fellegi-sunter\"\nname = \"fs\"\nassignment = \"optimal\"\nem_max_iter = 40\nu_sample = 3000\nthreshold = 0.8\n{inline_spec}"
    );
    let exp2 = parse(&inline, &exp_path).unwrap();
    assert!(exp2.warnings.is_empty());
    assert_eq!(exp2.attacks, exp.attacks);
    // And it runs: links declared at the weight of 0.8.
    let done = run_experiment(
        &exp2,
        &RunOptions {
            out: Some(dir.path().join("out")),
            ..Default::default()
        },
    )
    .unwrap();
    let raws = intruder_runner::load_runs(&done.plan, &dir.path().join("out")).unwrap();
    let ev = &raws[0].attacks[0];
    assert_eq!(ev.method, "fellegi-sunter");
    assert!((ev.threshold.unwrap() - 4f64.log2()).abs() < 1e-12);
    assert!(ev.notes.iter().any(|n| n.0 == "em_iterations"));
}

#[test]
fn attack_problems_come_with_their_paths() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("e.toml");
    let text = format!(
        "{HEAD}[[attack]]\nmethod = \"exact\"\n[[attack]]\nmethod = \"fellegi-sunter\"\nlinkage_spec = \"missing.toml\"\nthreshold = 1.5\nu_sample = 99999999999\nassignmnt = \"greedy\"\n[attack.linkage]\nblocking = [[\"gender\"]]\n[[attack]]\nmethod = \"nearest\"\nkeys = [\"gender\"]\nkey_map = {{ occupation = \"job\" }}\n"
    );
    let err = parse(&text, &p).unwrap_err();
    for needle in [
        "attack[2].linkage: the linkage specification is given twice",
        "attack[2].threshold: expected a value in (0, 1), found 1.5",
        "attack[2].u_sample: expected a value in [1, 1000000000], found 99999999999",
        "attack[2].assignmnt: unknown key (did you mean 'assignment'?)",
        "attack[3].keys: key map names 'occupation', which is not one of the keys (gender)",
    ] {
        assert!(err.contains(needle), "missing «{needle}» in:\n{err}");
    }
    let text =
        format!("{HEAD}[[attack]]\nmethod = \"fellegi-sunter\"\nlinkage_spec = \"missing.toml\"\n");
    let err = parse(&text, &p).unwrap_err();
    let missing = dir.path().join("missing.toml");
    assert!(
        err.contains(&format!(
            "attack[1].linkage_spec: {}: cannot read",
            missing.display()
        )),
        "{err}"
    );
}

/// The plan hashes the attacks into every run id (and so into every seed): the layout of
/// earlier releases is kept, parameters a method lacks at their old defaults.
#[test]
fn run_ids_keep_the_layout_of_earlier_releases() {
    let text = format!(
        "{HEAD}[[attack]]\nmethod = \"kmeans\"\nname = \"km\"\nstandardize = true\nweights = {{ occupation = 10 }}\n[[attack]]\nmethod = \"fellegi-sunter\"\nu_sample = 100000\n[[attack]]\nmethod = \"exact\"\nsensitive = \"net_income\"\nthreshold = 1\n"
    );
    let exp = parse(&text, std::path::Path::new("e.toml")).unwrap();
    let v = serde_json::to_value(&exp.attacks).unwrap();
    let fs = |spec, threshold, u_sample| {
        json!({
            "spec": spec, "threshold": threshold, "assignment": "greedy", "u_sample": u_sample,
            "em_max_iter": 25, "em_tolerance": 0.0001, "fix_u_in_em": false,
            "u_free_in_em": true, "training": "per-rule"
        })
    };
    let config = |missing: &str, standardize: bool, weights: serde_json::Value, f| {
        json!({
            "missing": missing, "metric": "euclidean", "string_metric": "jaro-winkler",
            "standardize": standardize, "weights": weights, "top_k": 5, "one_to_one": false,
            "clusters": null, "seed": 0, "fellegi_sunter": f
        })
    };
    let keys = json!(["year_of_birth", "gender", "occupation"]);
    assert_eq!(
        v,
        json!([
            {
                "name": "km", "method": "kmeans", "keys": keys,
                "config": config("listwise", true, json!([["occupation", 10.0]]), fs(json!(null), 0.5, 1_000_000)),
                "twins_only": false, "threshold": null, "sensitive": null, "tolerance": 0.05
            },
            {
                "name": "fellegi-sunter", "method": "fellegi-sunter", "keys": keys,
                "config": config("listwise", false, json!([]), fs(json!(null), 0.5, 100_000)),
                "twins_only": false, "threshold": null, "sensitive": null, "tolerance": 0.05
            },
            {
                "name": "exact", "method": "exact", "keys": keys,
                "config": config("listwise", false, json!([]), fs(json!(null), 0.5, 1_000_000)),
                "twins_only": false, "threshold": 1.0, "sensitive": "net_income", "tolerance": 0.05
            }
        ])
    );
    // Serialised text, as the plan hashes it: floats as earlier releases wrote them.
    let text = serde_json::to_string(&exp.attacks[0]).unwrap();
    assert!(
        text.contains("\"weights\":[[\"occupation\",10.0]]"),
        "{text}"
    );
    assert!(text.contains("\"em_tolerance\":0.0001"), "{text}");
}

#[test]
fn an_attack_redone_record_by_record_agrees_with_its_stored_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.toml");
    let inline_spec = SPEC
        .replace("blocking", "[attack.linkage]\nblocking")
        .replace("[[comparison]]", "[[attack.linkage.comparison]]");
    let text = format!(
        "{HEAD}[[defence]]\nname = \"k\"\n[[defence.step]]\nmethod = \"local-suppression\"\nkeys = [\"year_of_birth\", \"gender\", \"occupation\"]\nk = 3\n[[attack]]\nmethod = \"exact\"\nname = \"exact\"\n[[attack]]\nmethod = \"fellegi-sunter\"\nname = \"fs\"\n{inline_spec}"
    );
    let exp = parse(&text, &path).unwrap();
    let out = dir.path().join("out");
    let fp = intruder_runner::fingerprint(&exp).unwrap();
    let plan = intruder_runner::Plan::new(&exp, &fp).unwrap();
    let data = intruder_runner::load_data(&exp, &out).unwrap();
    for run in &plan.runs {
        let stored = intruder_runner::run_one(&exp, &plan, run, &data).unwrap();
        for a in &stored.attacks {
            let redone = intruder_runner::attack_records(&exp, &plan, run, &data, &a.name).unwrap();
            let ev = &redone.evaluation;
            assert_eq!(ev.declared, a.declared, "{}", a.name);
            assert_eq!(
                ev.correct_matches, a.evaluator.correct_matches,
                "{}",
                a.name
            );
            assert_eq!(
                ev.expected_correct, a.evaluator.expected_correct,
                "{}",
                a.name
            );
            let correct: Vec<bool> = ev.records.iter().map(|r| r.correct).collect();
            assert_eq!(correct, a.records.correct, "{}", a.name);
            assert_eq!(redone.declared, a.records.declared, "{}", a.name);
            let ties: Vec<u32> = ev.records.iter().map(|r| r.best_ties as u32).collect();
            assert_eq!(ties, a.records.best_ties, "{}", a.name);
            assert_eq!(redone.released.nrows(), a.released_records);
            assert_eq!(redone.linked.model.is_some(), a.method == "fellegi-sunter");
        }
    }
    let e =
        intruder_runner::attack_records(&exp, &plan, &plan.runs[0], &data, "nearest").unwrap_err();
    assert_eq!(
        e.to_string(),
        "no attack 'nearest' in the experiment (it has 'exact', 'fs')"
    );
}
