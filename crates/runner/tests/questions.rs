//! The three questions of anonymisation in an experiment (issue 34): `[scenario] control`
//! holds a seeded share of the original records back before any defence runs, and
//! `[[question]]` tables ask singling out, linkability and inference of every run's release.

use std::path::{Path, PathBuf};

use intruder_runner::{
    Experiment, RunOptions, control_leaks, control_size, control_split, dry_run, load_data,
    run_experiment,
};

/// A small experiment on the survey panel: no masking and PRAM, the exact attack, the three
/// questions, `control` of the records held back.
fn experiment(control: &str, questions: &str) -> String {
    format!(
        r#"
name = "questions"
seed = 34
replicates = 2
[data]
generator = "survey-panel"
n = 500
released = "survey-panel.csv"
truth = "person_id"
[scenario]
keys = ["year_of_birth", "gender", "occupation", "origin"]
known = 0.5
{control}
[[defence]]
name = "none"
[[defence]]
name = "pram"
[[defence.step]]
method = "pram"
variables = ["occupation", "origin", "income_cat"]
pd = 0.5
[[attack]]
method = "exact"
{questions}
"#
    )
}

const QUESTIONS: &str = r#"
[[question]]
method = "singling-out"
n_attacks = 60
[[question]]
method = "linkability"
n_attacks = 60
aux_cols = [["year_of_birth", "gender", "occupation", "origin"], ["children", "income_cat", "net_income", "religion"]]
[[question]]
method = "inference"
name = "income"
n_attacks = 60
aux_cols = ["year_of_birth", "gender", "occupation", "origin", "children"]
secret = "net_income"
"#;

/// The experiment written as `q.toml` under `dir`, read.
fn write(dir: &Path, text: &str) -> Result<Experiment, String> {
    let path = dir.join("q.toml");
    std::fs::write(&path, text).unwrap();
    Experiment::from_file(&path).map_err(|e| e.to_string())
}

/// The figures every question reports, in order.
const FIGURES: [&str; 13] = [
    "risk",
    "risk_ci_low",
    "risk_ci_high",
    "attack_rate",
    "attack_rate_error",
    "control_rate",
    "control_rate_error",
    "baseline_rate",
    "baseline_rate_error",
    "n_attacks",
    "n_success",
    "n_control",
    "n_baseline",
];

#[test]
fn the_control_set_is_a_seeded_share_that_no_defence_sees() {
    let dir = tempfile::tempdir().unwrap();
    let exp = write(dir.path(), &experiment("control = 0.2", QUESTIONS)).unwrap();
    let data = load_data(&exp, &dir.path().join("out")).unwrap();
    let ids = |l: &intruder_eval::Labelled| -> Vec<String> {
        let c = l.truth().column("person_id").unwrap();
        (0..c.len())
            .map(|i| c.text(i).unwrap().to_string())
            .collect()
    };
    let all = ids(&data.released);
    assert_eq!(all.len(), 500);
    assert_eq!(control_size(0.2, 500), 100);
    let first = control_split(&exp, 0, &data.released).unwrap();
    let (population, control) = (ids(&first.population), ids(&first.control));
    assert_eq!((population.len(), control.len()), (400, 100));
    // disjoint, together every record, each in the original order
    assert!(control.iter().all(|id| !population.contains(id)));
    let mut both: Vec<&String> = population.iter().chain(&control).collect();
    both.sort();
    let mut sorted: Vec<&String> = all.iter().collect();
    sorted.sort();
    assert_eq!(both, sorted);
    // the same draw for the same replicate, another for another
    let again = control_split(&exp, 0, &data.released).unwrap();
    assert_eq!(ids(&again.control), control);
    assert_ne!(
        ids(&control_split(&exp, 1, &data.released).unwrap().control),
        control
    );
    // the guard every run applies: the population holds no control record, the whole file
    // holds all of them
    assert!(control_leaks(&first.population, &first.control, "person_id").is_empty());
    assert_eq!(
        control_leaks(&data.released, &first.control, "person_id").len(),
        100
    );
    // without a control share there is no split
    let plain = write(dir.path(), &experiment("", "")).unwrap();
    assert!(control_split(&plain, 0, &data.released).is_none());
}

/// Runs the experiment under `out` (`threads` workers) and returns the output directory.
fn run(exp: &Experiment, out: PathBuf, threads: usize) -> PathBuf {
    let done = run_experiment(
        exp,
        &RunOptions {
            out: Some(out.clone()),
            threads: Some(threads),
            ..RunOptions::default()
        },
    )
    .unwrap();
    assert_eq!(done.executed, 4);
    out
}

#[test]
fn every_run_asks_every_question_of_the_release_of_the_population() {
    let dir = tempfile::tempdir().unwrap();
    let exp = write(dir.path(), &experiment("control = 0.2", QUESTIONS)).unwrap();
    let out = run(&exp, dir.path().join("a"), 2);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let settings = json["settings"].as_array().unwrap();
    assert_eq!(settings.len(), 2);
    for s in settings {
        let names: Vec<&str> = s["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .filter(|n| n.starts_with("question."))
            .collect();
        let expected: Vec<String> = ["singling-out", "linkability", "income"]
            .iter()
            .flat_map(|q| FIGURES.iter().map(move |f| format!("question.{q}.{f}")))
            .collect();
        assert_eq!(names, expected, "setting {}", s["label"]);
        let n = |k: &str| {
            s["metrics"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["name"] == k)
                .unwrap()["stat"]["mean"]
                .as_f64()
                .unwrap()
        };
        assert_eq!(n("question.income.n_attacks"), 60.0);
        assert_eq!(n("question.linkability.n_attacks"), 60.0);
    }
    // every run masked the population only: 400 of the 500 records
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let rows_in: Vec<&str> = csv
        .lines()
        .filter(|l| l.contains(",masking.rows_in,"))
        .map(|l| l.rsplit(',').next().unwrap())
        .collect();
    assert_eq!(rows_in, ["400"; 4]);
    // the stored run keeps each answer's parameters and seed
    let run_file = std::fs::read_dir(out.join("runs"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let raw: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run_file).unwrap()).unwrap();
    let qs = raw["questions"].as_array().unwrap();
    let names: Vec<&str> = qs.iter().map(|q| q["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["singling-out", "linkability", "income"]);
    assert_eq!(qs[2]["method"], "inference");
    assert_eq!(qs[2]["report"]["details"]["params"]["secret"], "net_income");
    // the report's section and its glossary
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for x in [
        "## The three questions: singling out, linkability, inference",
        "| setting | singling-out risk | linkability risk | income risk | exact per twin |",
        "**Question income (inference): success rates**",
        "| setting | attack rate | control rate | baseline rate | successes | attacks |",
        "question.<name>.risk",
        "Giomi et al.",
        "questions (control set: 20.0% of the original records, kept out of every release):",
    ] {
        assert!(md.contains(x), "missing «{x}» in summary.md:\n{md}");
    }
}

#[test]
fn without_masking_linkability_and_inference_risks_are_high() {
    let dir = tempfile::tempdir().unwrap();
    let exp = write(dir.path(), &experiment("control = 0.2", QUESTIONS)).unwrap();
    let out = run(&exp, dir.path().join("a"), 1);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let none = &json["settings"][0];
    assert_eq!(none["label"], "none");
    let mean = |k: &str| {
        none["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == k)
            .unwrap()["stat"]["mean"]
            .as_f64()
            .unwrap()
    };
    for q in ["linkability", "income"] {
        let risk = mean(&format!("question.{q}.risk"));
        assert!(risk > 0.6, "{q}: risk {risk} on the unmasked release");
        assert!(
            mean(&format!("question.{q}.attack_rate"))
                > mean(&format!("question.{q}.control_rate"))
        );
    }
}

#[test]
fn the_same_seed_gives_byte_identical_results_whatever_the_threads() {
    let dir = tempfile::tempdir().unwrap();
    let exp = write(dir.path(), &experiment("control = 0.2", QUESTIONS)).unwrap();
    let a = run(&exp, dir.path().join("a"), 1);
    let b = run(&exp, dir.path().join("b"), 3);
    for f in ["results.csv", "results.json", "summary.md", "report.html"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f} differs"
        );
    }
}

#[test]
fn a_question_without_a_control_set_says_what_to_add() {
    let dir = tempfile::tempdir().unwrap();
    let err = write(dir.path(), &experiment("", QUESTIONS)).unwrap_err();
    assert!(err.contains("q.toml: 1 problem"), "{err}");
    assert!(
        err.contains("scenario.control: q.toml: a [[question]] compares the attack on the original with the same attack on a control set"),
        "{err}"
    );
    assert!(
        err.contains("add `control = 0.2` (the share of the original records kept out of the release) to [scenario]"),
        "{err}"
    );
}

#[test]
fn question_parameters_are_checked_when_the_file_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let bad = r#"
[[question]]
method = "linkabilty"
[[question]]
method = "inference"
aux_cols = ["year_of_birth", "net_income"]
secret = "net_income"
[[question]]
method = "singling-out"
n_atacks = 5
[[question]]
method = "singling-out"
[[question]]
method = "singling-out"
[[question]]
method = "membership"
attack = "densty"
"#;
    let err = write(dir.path(), &experiment("control = 0.2", bad)).unwrap_err();
    for x in [
        "5 problems",
        "question[1].method: unknown question 'linkabilty' (did you mean 'linkability'?); the questions are: singling-out, linkability, inference, membership, dcr",
        "question[2]: secret 'net_income' is also an auxiliary column: the intruder would know what it tries to infer; remove it from aux_cols",
        "question[3].n_atacks: unknown key (did you mean 'n_attacks'?)",
        "question[5].name: 'singling-out' is used twice; give each [[question]] its own name",
        "question[6].attack: unknown value 'densty'; expected one of: distance, density-ratio",
    ] {
        assert!(err.contains(x), "missing «{x}» in:\n{err}");
    }
    let share = write(dir.path(), &experiment("control = 1.0", QUESTIONS)).unwrap_err();
    assert!(
        share.contains(
            "scenario.control: expected a share in [0, 1), found 1: some records must be released"
        ),
        "{share}"
    );
}

#[test]
fn an_auxiliary_column_missing_from_the_data_is_named_before_any_run() {
    let dir = tempfile::tempdir().unwrap();
    let q = QUESTIONS.replace(
        "aux_cols = [\"year_of_birth\", \"gender\", \"occupation\", \"origin\", \"children\"]",
        "aux_cols = [\"year_of_birth\", \"gendr\"]",
    );
    let exp = write(dir.path(), &experiment("control = 0.2", &q)).unwrap();
    let out = dir.path().join("out");
    let err = dry_run(&exp, &out).unwrap_err().to_string();
    assert!(err.contains("q.toml: 1 problem"), "{err}");
    assert!(
        err.contains("question[3].aux_cols: survey-panel.csv: no column named 'gendr' (did you mean 'gender'?)"),
        "{err}"
    );
    assert!(!out.exists(), "a dry run writes nothing");
    // too many attacks for the control set: found before any run
    let many = QUESTIONS.replacen("n_attacks = 60", "n_attacks = 150", 1);
    let exp = write(dir.path(), &experiment("control = 0.2", &many)).unwrap();
    let err = run_experiment(
        &exp,
        &RunOptions {
            out: Some(out.clone()),
            ..RunOptions::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("question[1].n_attacks: 150 attacks, but the control set holds 100 records (0.2 of the 500 records of survey-panel.csv); expected at most 100, or a larger control share"),
        "{err}"
    );
    assert!(
        !out.join("runs")
            .read_dir()
            .is_ok_and(|mut d| d.next().is_some())
    );
}

#[test]
fn membership_and_distances_judge_every_setting_of_the_grid() {
    let dir = tempfile::tempdir().unwrap();
    let more = format!(
        "{QUESTIONS}[[question]]\nmethod = \"membership\"\nn_targets = 60\n[[question]]\nmethod = \"dcr\"\nname = \"distances\"\n"
    );
    let exp = write(dir.path(), &experiment("control = 0.2", &more)).unwrap();
    let out = run(&exp, dir.path().join("a"), 1);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    let none = &json["settings"][0];
    assert_eq!(none["label"], "none");
    let mean = |k: &str| {
        none["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == k)
            .unwrap_or_else(|| panic!("{k} missing"))["stat"]["mean"]
            .as_f64()
            .unwrap()
    };
    // The unmasked release copies every released original record: each member finds itself at
    // distance 0, so no threshold confuses them with control records that have no copy (the
    // survey panel's records are unique on all their columns).
    assert_eq!(mean("question.membership.auc"), 1.0);
    assert_eq!(mean("question.membership.n_members"), 60.0);
    assert_eq!(mean("question.distances.exact_copies"), 1.0);
    assert_eq!(mean("question.distances.closer_to_training"), 1.0);
    assert_eq!(mean("question.distances.overfitting_protection"), 0.0);
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    for x in [
        "## Questions without the ground truth",
        "**Question membership: membership inference**",
        "| setting | membership AUC | TPR at 1% FPR | TPR at 10% FPR |",
        "**Question distances (dcr): distances to the closest record**",
    ] {
        assert!(summary.contains(x), "missing «{x}» in the summary");
    }
    let glossary = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        glossary.contains("question.&#60;name&#62;.tpr_at_fpr_1"),
        "the metric pattern's angle brackets are escaped"
    );
}
