//! The defence and utility parts of an experiment: utility measures from the registry (with
//! `ci-overlap` and a model) in `results.csv`, every problem at once with its path, old
//! parameter names with a warning and the same run ids.

use intruder_runner::{Experiment, Plan, RunOptions, RunnerError, metrics, run_experiment};

const UTIL_EXP: &str = r#"
name = "u"
seed = 5
[data]
generator = "survey-panel"
n = 200
released = "survey-panel.csv"
truth = "person_id"
[scenario]
keys = ["year_of_birth", "gender"]
known = 0.5
[[defence]]
name = "none"
[[defence]]
name = "noise"
[[defence.step]]
method = "noise"
variables = ["net_income"]
noise = 50
[[attack]]
method = "exact"
[utility]
variables = ["net_income", "year_of_birth"]
measures = ["moments", "il1s", "ci-overlap"]
model = "net_income ~ year_of_birth + gender"
"#;

fn metric(rows: &[Vec<String>], setting: &str, name: &str) -> f64 {
    let hit: Vec<f64> = rows
        .iter()
        .filter(|r| r[1] == setting && r[5] == name)
        .map(|r| r[6].parse().unwrap())
        .collect();
    assert_eq!(hit.len(), 1, "{setting} {name}: {hit:?}");
    hit[0]
}

#[test]
fn ci_overlap_with_a_model_reaches_results_csv() {
    let exp = Experiment::from_toml(UTIL_EXP, "u.toml".as_ref()).unwrap();
    assert!(exp.warnings.is_empty(), "{:?}", exp.warnings);
    assert_eq!(
        exp.utility.params["model"].as_str(),
        Some("net_income ~ year_of_birth + gender")
    );
    let plan = Plan::new(&exp, "data").unwrap();
    assert!(
        plan.describe(&exp).contains(
            "utility: moments, il1s, ci-overlap on net_income, year_of_birth; model = \"net_income ~ year_of_birth + gender\""
        ),
        "{}",
        plan.describe(&exp)
    );
    let dir = tempfile::tempdir().unwrap();
    let done = run_experiment(
        &exp,
        &RunOptions {
            out: Some(dir.path().to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    let text = std::fs::read_to_string(dir.path().join("results.csv")).unwrap();
    let rows: Vec<Vec<String>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    // no masking: identical intervals, no loss
    assert_eq!(metric(&rows, "none", "utility.ci_overlap_mean"), 1.0);
    assert_eq!(metric(&rows, "none", "utility.ci_overlap_min"), 1.0);
    assert_eq!(metric(&rows, "none", "utility.il1s"), 0.0);
    assert_eq!(metric(&rows, "none", "utility.mean_rel_diff_max"), 0.0);
    // 50% noise on income: the income coefficients' intervals move
    let mean = metric(&rows, "noise", "utility.ci_overlap_mean");
    let min = metric(&rows, "noise", "utility.ci_overlap_min");
    assert!(min <= mean && mean < 1.0 && min >= 0.0, "{min} {mean}");
    assert!(metric(&rows, "noise", "utility.il1s") > 0.0);
    // the utility metrics, in the order of the measures
    let names: Vec<&str> = rows
        .iter()
        .filter(|r| r[1] == "noise" && r[5].starts_with("utility."))
        .map(|r| r[5].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "utility.mean_rel_diff_max",
            "utility.var_rel_diff_max",
            "utility.il1s",
            "utility.il1s_per_cell",
            "utility.ci_overlap_mean",
            "utility.ci_overlap_min"
        ]
    );
    // the stored report holds the coefficients with both intervals; its figures are the metrics
    let raws = intruder_runner::load_runs(&done.plan, dir.path()).unwrap();
    for raw in &raws {
        let ci = raw
            .utility
            .iter()
            .find(|u| u.measure == "ci-overlap")
            .unwrap();
        let table = &ci.report.tables[0];
        assert_eq!(table.name, "ci_overlap");
        let overlaps: Vec<f64> = table.rows.iter().map(|r| r[7].as_f64().unwrap()).collect();
        // (Intercept), year_of_birth, gender=female
        assert_eq!(overlaps.len(), 3);
        let m = metrics(raw);
        let get = |k: &str| m.iter().find(|x| x.id.to_string() == k).unwrap().value;
        assert_eq!(
            get("utility.ci_overlap_min"),
            overlaps.iter().copied().fold(f64::INFINITY, f64::min)
        );
        assert!(
            (get("utility.ci_overlap_mean") - overlaps.iter().sum::<f64>() / 3.0).abs() < 1e-15
        );
    }
    let summary = std::fs::read_to_string(dir.path().join("summary.md")).unwrap();
    assert!(summary.contains("ci_overlap_mean"), "{summary}");
}

fn problems(text: &str) -> Vec<String> {
    match Experiment::from_toml(text, "bad.toml".as_ref()) {
        Err(RunnerError::Spec { problems, .. }) => {
            problems.iter().map(ToString::to_string).collect()
        }
        other => panic!("expected problems, got {other:?}"),
    }
}

#[test]
fn utility_problems_are_reported_at_once_with_their_paths() {
    let bad = UTIL_EXP
        .replace(
            "measures = [\"moments\", \"il1s\", \"ci-overlap\"]",
            "measures = [\"moments\", \"ci-overlap\", \"pmsee\"]\nfamly = \"logistic\"",
        )
        .replace(
            "model = \"net_income ~ year_of_birth + gender\"",
            "model = \"net_income\"",
        );
    let p = problems(&bad);
    assert_eq!(
        p,
        vec![
            format!(
                "utility.measures: item 3: unknown utility measure 'pmsee' (did you mean 'pmse'?); the utility measures are: {}",
                intruder_utility::UTILITY_MEASURES.iter().map(|e| e.name).collect::<Vec<_>>().join(", ")
            ),
            "utility.famly: unknown key (did you mean 'family'?); the keys of moments, ci-overlap are: variables, model, family".to_string(),
            "utility.model: model formula 'net_income': expected 'response ~ predictor + predictor'".to_string(),
        ]
    );
    // a parameter of a measure that is not listed; a measure that needs variables without them
    let bad = UTIL_EXP
        .replace(
            "measures = [\"moments\", \"il1s\", \"ci-overlap\"]",
            "measures = [\"correlations\"]",
        )
        .replace(
            "variables = [\"net_income\", \"year_of_birth\"]",
            "variables = [\"net_income\"]",
        );
    let p = problems(&bad);
    assert_eq!(
        p,
        vec![
            "utility.model: is a parameter of ci-overlap, which is not among the measures (correlations); add it to the measures or leave 'model' out",
            "utility.variables: correlations need at least two variables",
        ]
    );
    // ci-overlap alone needs no variables
    let ok = UTIL_EXP
        .replace("variables = [\"net_income\", \"year_of_birth\"]\n", "")
        .replace(
            "measures = [\"moments\", \"il1s\", \"ci-overlap\"]",
            "measures = [\"ci-overlap\"]",
        );
    let exp = Experiment::from_toml(&ok, "ok.toml".as_ref()).unwrap();
    assert!(exp.utility.variables.is_empty());
    let p = problems(&ok.replace(
        "measures = [\"ci-overlap\"]",
        "measures = [\"ci-overlap\", \"pmse\"]",
    ));
    assert_eq!(p.len(), 1);
    assert!(
        p[0].starts_with("utility.variables: is required but missing"),
        "{p:?}"
    );
}

const OLD_NAMES: &str = r#"
name = "old"
seed = 11
[data]
generator = "survey-panel"
n = 150
released = "survey-panel.csv"
truth = "person_id"
[scenario]
keys = ["year_of_birth", "gender", "occupation"]
known = 0.5
[[scenario.error]]
method = "blank"
columns = ["occupation"]
p = 0.1
[[defence]]
name = "bands"
[[defence.step]]
method = "global-recode"
columns = ["year_of_birth"]
breaks = [1900, 1950, 1980, 2020]
[[defence.step]]
method = "round"
columns = ["net_income"]
base = [100, 1000]
[[attack]]
method = "exact"
"#;

#[test]
fn old_names_warn_keep_the_run_ids_and_both_names_are_refused() {
    let old = Experiment::from_toml(OLD_NAMES, "old.toml".as_ref()).unwrap();
    assert_eq!(
        old.warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        vec![
            "scenario.error[1].columns: 'columns' is deprecated: use 'variables' (the old name is accepted until the next release)",
            "defence[1].step[1].columns: 'columns' is deprecated: use 'variables' (the old name is accepted until the next release)",
            "defence[1].step[2].columns: 'columns' is deprecated: use 'variables' (the old name is accepted until the next release)",
        ]
    );
    let new_text = OLD_NAMES.replace("columns = ", "variables = ");
    let new = Experiment::from_toml(&new_text, "new.toml".as_ref()).unwrap();
    assert!(new.warnings.is_empty(), "{:?}", new.warnings);
    let (po, pn) = (
        Plan::new(&old, "data").unwrap(),
        Plan::new(&new, "data").unwrap(),
    );
    assert_eq!(pn.settings.len(), 2);
    let labels: Vec<&str> = pn.settings.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["bands (base=100)", "bands (base=1000)"]);
    let ids = |p: &Plan| p.runs.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    assert_eq!(
        ids(&po),
        ids(&pn),
        "renaming keeps the run ids (and the seeds)"
    );
    // both names at once
    let both = OLD_NAMES.replace(
        "columns = [\"year_of_birth\"]",
        "columns = [\"year_of_birth\"]\nvariables = [\"year_of_birth\"]",
    );
    let p = problems(&both);
    assert_eq!(
        p,
        vec![
            "defence[1].step[1].variables: given twice: as 'variables' and as its old name 'columns'; keep 'variables' (setting 'bands (base=100)')"
        ]
    );
}

#[test]
fn defence_problems_carry_their_step_path() {
    let bad = OLD_NAMES
        .replace("columns = [\"year_of_birth\"]", "variables = [\"year_of_birth\"]")
        .replace("breaks = [1900, 1950, 1980, 2020]", "breaks = [1900, 1950, 1980, 2020]\nrigth = true")
        .replace("method = \"blank\"", "method = \"blank\"\nzz = 1")
        .replace("p = 0.1", "p = 1.5")
        .replace("[[attack]]", "[[defence]]\nname = \"k\"\n[[defence.step]]\nmethod = \"local-suppression\"\nk = [1, 3]\n[[attack]]");
    let p = problems(&bad);
    for x in [
        "scenario.error[1].p: expected a value in [0, 1], found 1.5",
        "scenario.error[1].zz: unknown key",
        "defence[1].step[1].rigth: unknown key (did you mean 'right'?)",
        "defence[2].step[1].k: expected a value ≥ 2, found 1 (setting 'k (k=1)')",
    ] {
        assert!(
            p.iter().any(|l| l.starts_with(x)),
            "missing «{x}» in {p:#?}"
        );
    }
    assert_eq!(p.len(), 4, "{p:#?}");
    // local-suppression without keys takes the scenario's keys
    let ok = bad
        .replace("rigth = true", "")
        .replace("zz = 1\n", "")
        .replace("p = 1.5", "p = 0.1")
        .replace("k = [1, 3]", "k = [2, 3]");
    let exp = Experiment::from_toml(&ok, "ok.toml".as_ref()).unwrap();
    assert_eq!(
        exp.defences[1].steps[0]["keys"],
        toml::Value::Array(vec![
            "year_of_birth".into(),
            "gender".into(),
            "occupation".into()
        ])
    );
}
