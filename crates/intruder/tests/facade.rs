//! The facade's orchestration on hand-made tables: the choices every surface used to make on
//! its own (keys from roles, truth ids, twins only, the change log's scale) made once, with
//! hand-computed results and each surface's wording in errors.

use intruder::Surface;
use intruder::attack::{AttackRequest, Placement, TruthNames, attack, configure};
use intruder::mask::{Check, mask, pipeline_of_steps};
use intruder::utility::{LogInput, UtilityRequest, kept_rows, utility};
use intruder_data::{ReadOptions, Role, Timings, read_csv_from};
use intruder_eval::Labelled;

fn labelled(csv: &str, opts: ReadOptions) -> Labelled {
    Labelled::from_dataset(read_csv_from(csv.as_bytes(), "t.csv".as_ref(), &opts).unwrap())
}

/// Four people; `area,sex` single out p1 and p4, p2 and p3 share `1,f`.
const INTRUDER: &str = "pid,area,sex\np1,1,m\np2,1,f\np3,1,f\np4,2,m\n";
/// The released file: the same four people in another order, and p5 whom the intruder lacks.
const RELEASED: &str =
    "pid,area,sex,income\np4,2,m,40\np3,1,f,30\np5,2,f,50\np1,1,m,10\np2,1,f,20\n";

fn request(params: toml::Table, truth: TruthNames, surface: Surface) -> AttackRequest<'static> {
    let configured = configure(&params, "test").unwrap();
    AttackRequest {
        params,
        configured,
        truth,
        seed: 7,
        placement: Placement::Local,
        surface,
        surface_name: "test",
        intruder_label: "intruder.csv".into(),
    }
}

fn exact() -> toml::Table {
    toml::toml! { method = "exact" }
}

fn by_pid() -> TruthNames {
    TruthNames {
        truth: Some("pid".into()),
        ..TruthNames::default()
    }
}

#[test]
fn keys_come_from_the_intruder_tables_roles_when_none_are_given() {
    let opts = ReadOptions::default()
        .with_role(&["pid"], Role::Truth)
        .with_role(&["area", "sex"], Role::Key);
    let intruder = labelled(INTRUDER, opts);
    let released = labelled(
        RELEASED,
        ReadOptions::default().with_role(&["pid"], Role::Truth),
    );
    let req = request(exact(), by_pid(), Surface::Cli);
    let run = attack(req, &intruder, &released, &mut Timings::new()).unwrap();
    let names: Vec<&str> = run
        .keys
        .pairs()
        .iter()
        .map(|p| p.intruder.as_str())
        .collect();
    assert_eq!(names, vec!["area", "sex"]);
    // p1 (1,m) and p4 (2,m) are unique in the release; p2 and p3 share (1,f) with each other
    // (p5 is 2,f): 2 sure matches, and the tie of two is broken once right in expectation.
    let ev = &run.evaluation;
    assert_eq!(ev.intruder_records, 4);
    assert_eq!(ev.twins, 4);
    assert_eq!(ev.unique_correct, 2);
    assert!(
        (ev.expected_correct - 3.0).abs() < 1e-12,
        "{}",
        ev.expected_correct
    );
}

#[test]
fn twins_only_searches_the_released_records_with_a_twin_and_reports_rows_of_the_whole_file() {
    let truth = ReadOptions::default().with_role(&["pid"], Role::Truth);
    let intruder = labelled(INTRUDER, truth.clone());
    let released = labelled(RELEASED, truth);
    let params = toml::toml! { method = "exact"
    keys = ["area"]
    twins_only = true };
    let run = attack(
        request(params, by_pid(), Surface::Python),
        &intruder,
        &released,
        &mut Timings::new(),
    )
    .unwrap();
    // p5 (row 3 of the release) has no twin: rows 1, 2, 4, 5 are searched.
    assert_eq!(run.twins.as_deref(), Some(&[0, 1, 3, 4][..]));
    assert_eq!(run.restricted.as_ref().unwrap().nrows(), 4);
    // p4 is the only area-2 twin: found for sure; the three area-1 people tie.
    assert_eq!(run.evaluation.unique_correct, 1);
    let p4 = &run.linkage.records[3];
    assert_eq!(p4.list.len(), 1);
    assert_eq!(p4.list[0].row, 0, "row of the whole released file");
}

#[test]
fn errors_name_the_callers_own_arguments() {
    let intruder = labelled(INTRUDER, ReadOptions::default());
    let released = labelled(RELEASED, ReadOptions::default());
    let keyless = |surface| {
        let req = request(exact(), TruthNames::default(), surface);
        attack(req, &intruder, &released, &mut Timings::new())
            .err()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        keyless(Surface::Cli),
        "no key variables: give --keys (or --set keys=…), or declare role = \"key\" columns in the schema of intruder.csv"
    );
    assert_eq!(
        keyless(Surface::Python),
        "no key variables: give keys=[…], or declare role = \"key\" columns in the schema of intruder.csv"
    );
    let unscored = |surface| {
        let params = toml::toml! { method = "exact"
        keys = ["area"] };
        let req = request(params, TruthNames::default(), surface);
        attack(req, &intruder, &released, &mut Timings::new())
            .err()
            .unwrap()
            .to_string()
    };
    assert!(unscored(Surface::Cli).starts_with(
        "nothing to score: give the truth ids (--truth or --truth-intruder with --truth-released;"
    ));
    assert!(unscored(Surface::Python).contains("and/or sensitive= with sensitive_truth="));
    let both = TruthNames {
        truth: Some("pid".into()),
        truth_intruder: Some("pid".into()),
        ..TruthNames::default()
    };
    assert_eq!(
        both.check(Surface::Python).unwrap_err().to_string(),
        "give truth= (one column in both tables) or truth_intruder= with truth_released=, not both"
    );
    let half = TruthNames {
        truth_released: Some("pid".into()),
        ..TruthNames::default()
    };
    assert_eq!(
        half.check(Surface::Cli).unwrap_err().to_string(),
        "--truth-intruder and --truth-released go together"
    );
}

#[test]
fn truth_names_read_each_column_once_per_table() {
    let t = TruthNames {
        truth: Some("pid".into()),
        sensitive_truth: Some("pid".into()),
        ..TruthNames::default()
    };
    assert_eq!(t.intruder_columns(), vec!["pid"]);
    assert_eq!(t.released_columns(), vec!["pid"]);
}

/// A public recoding is judged on the released scale through the change log, whichever
/// surface passes the log (Python's utility() compared labels before the facade).
#[test]
fn utility_with_the_change_log_reads_a_recoding_on_the_released_scale() {
    let csv = "pid,water,income\np1,a,10\np2,b,20\np3,c,30\np4,d,40\np5,a,50\np6,b,60\n";
    let data = read_csv_from(csv.as_bytes(), "w.csv".as_ref(), &ReadOptions::default()).unwrap();
    let original = data.table.clone();
    let step = toml::toml! { method = "global-recode"
    variables = ["water"]
    map = { a = "piped", b = "piped", c = "other", d = "other" } };
    let pipeline = pipeline_of_steps(&[step], &data.table, "w.csv", "test").unwrap();
    let masked = mask(data, &pipeline, 1, Check::Off, "w.csv", &mut Timings::new()).unwrap();
    let log = masked.log_flat_json();
    let measure = |log: Option<serde_json::Value>| {
        let request = UtilityRequest {
            params: toml::toml! { variables = ["water"] },
            measures: vec!["pmse".into()],
            log: log.map(|value| LogInput {
                value,
                label: "log".into(),
            }),
            surface: Surface::Python,
            surface_name: "test",
            original_label: "w.csv".into(),
        };
        let run = utility(
            &original,
            &masked.dataset.table,
            request,
            &mut Timings::new(),
        )
        .unwrap();
        run.report.to_json()
    };
    let pmse = |v: &serde_json::Value| -> f64 { v["pmse"].as_f64().unwrap() };
    // By labels the recoded file differs in every record: the two files are told apart.
    assert!(pmse(&measure(None)) > 0.2, "{}", measure(None));
    // On the released scale nothing changed: the files cannot be told apart.
    assert_eq!(pmse(&measure(Some(log))), 0.0);
}

#[test]
fn a_change_logs_kept_rows_are_checked_against_the_original() {
    let log = LogInput {
        value: serde_json::json!({"log": {"kept_rows": [1, 3], "row_numbers": "1-based"}}),
        label: "log.json".into(),
    };
    assert_eq!(kept_rows(&log, 3).unwrap(), vec![0, 2]);
    assert_eq!(
        kept_rows(&log, 2).unwrap_err().to_string(),
        "log.json: kept_rows[2] = 3 is not a record of the original (1 to 2)"
    );
    let old = LogInput {
        value: serde_json::json!({"kept_rows": [0, 2]}),
        label: "log".into(),
    };
    assert_eq!(kept_rows(&old, 3).unwrap(), vec![0, 2]);
}

/// A synthetic release through the facade: `mask` gives its records a truth of no one, its log
/// says which step synthesised them, and `utility` with that log refuses a measure that pairs
/// records one to one while the measures of whole files run.
#[test]
fn a_synthetic_release_has_no_truth_and_no_one_to_one_utility() {
    let csv = "pid,water,income\np1,a,10\np2,b,20\np3,c,30\np4,d,40\np5,a,50\np6,b,60\n";
    let opts = ReadOptions::default().with_role(&["pid"], Role::Truth);
    let data = read_csv_from(csv.as_bytes(), "w.csv".as_ref(), &opts).unwrap();
    let original = data.table.clone();
    let step = toml::toml! { method = "independent-marginals" };
    let pipeline = pipeline_of_steps(&[step], &data.table, "w.csv", "test").unwrap();
    let masked = mask(data, &pipeline, 1, Check::Off, "w.csv", &mut Timings::new()).unwrap();
    assert_eq!(masked.dataset.table.nrows(), 6);
    assert_eq!(masked.dataset.truth[0].missing_count(), 6);
    let log = masked.log_flat_json();
    assert_eq!(log["synthetic"], 1);
    let measure = |name: &str| {
        let request = UtilityRequest {
            params: toml::toml! { variables = ["income"] },
            measures: vec![name.into()],
            log: Some(LogInput {
                value: log.clone(),
                label: "log".into(),
            }),
            surface: Surface::Python,
            surface_name: "test",
            original_label: "w.csv".into(),
        };
        utility(
            &original,
            &masked.dataset.table,
            request,
            &mut Timings::new(),
        )
    };
    let Err(e) = measure("il1s") else {
        panic!("il1s ran on a synthetic release")
    };
    let e = e.to_string();
    assert!(
        e.starts_with("utility measure 'il1s' does not apply: step 1 of the change log synthesised the release"),
        "{e}"
    );
    assert!(measure("moments").is_ok());
}
