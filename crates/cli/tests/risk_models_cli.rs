//! `intruder risk --measure suda2|population|individual` end to end: the worked examples, the
//! per-record files, the default staying the frequency measure, and the errors (exit code 2,
//! a message naming the problem, never a panic).

use std::io::Write;
use std::process::{Command, Output};

fn intruder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_intruder"))
        .args(args)
        .output()
        .expect("run intruder")
}

fn json(args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    let out = intruder(&a);
    assert!(
        out.status.success(),
        "failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

fn fails(args: &[&str], needles: &[&str]) {
    let out = intruder(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "expected exit 2, stderr: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    for n in needles {
        assert!(err.contains(n), "missing {n:?} in: {err}");
    }
}

fn temp_file(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::File::create(&p)
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    p.to_string_lossy().into_owned()
}

/// sdcMicro's suda2 "book example" (tests/testthat/test_suda2.R): scores 4, 2, 6, 8 for rows 5–8.
const BOOK: &str = "age,gender,income,education
20s,male,50k+,highschool
20s,male,50k+,highschool
20s,male,50k-,highschool
20s,male,50k-,highschool
20s,female,50k-,university
20s,female,50k-,highschool
20s,female,50k-,middleschool
60s,male,50k-,university
";

#[test]
fn suda2_book_example_summary_and_per_record() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "book.csv", BOOK);
    let out = dir.path().join("scores.csv");
    let v = json(&[
        "risk",
        "--data",
        &f,
        "--keys",
        "age,gender,income,education",
        "--measure",
        "suda2",
        "--per-record",
        out.to_str().unwrap(),
    ]);
    assert_eq!(v["measure"], "suda2");
    assert_eq!(v["sample_uniques"], 4);
    assert_eq!(v["msus"], 6);
    assert_eq!(v["msus_by_size"], serde_json::json!([2, 4, 0, 0]));
    assert_eq!(v["score_max"], 8.0);
    assert_eq!(v["dis"], 0.01);
    // Credits: age 2 (r5) + 6 (r8) = 8; gender 2 + 2 + 2 = 6; education 2+2+2+6+2 = 14; of 20.
    assert_eq!(v["key_contributions"]["age"], 40.0);
    assert_eq!(v["key_contributions"]["gender"], 30.0);
    assert_eq!(v["key_contributions"]["income"], 0.0);
    assert_eq!(v["key_contributions"]["education"], 70.0);
    assert!(v["level_contributions"].as_array().unwrap().len() >= 9);
    let text = std::fs::read_to_string(&out).unwrap();
    let rows: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect();
    assert_eq!(
        rows[0][..4],
        ["row", "score", "dis_score", "msus"].map(String::from)
    );
    let scores: Vec<&str> = rows[1..].iter().map(|r| r[1].as_str()).collect();
    assert_eq!(scores, ["0", "0", "0", "0", "4", "2", "6", "8"]);
    assert_eq!(rows[5][3], "age+education;gender+education");
    assert_eq!(rows[8][3], "age;gender+education");
}

#[test]
fn suda2_table_and_csv_formats_work() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "book.csv", BOOK);
    for fmt in ["table", "csv"] {
        let out = intruder(&[
            "risk",
            "--data",
            &f,
            "--keys",
            "age,gender,income,education",
            "--measure",
            "suda2",
            "--max-msu-size",
            "2",
            "--format",
            fmt,
        ]);
        assert!(out.status.success());
        let s = String::from_utf8_lossy(&out.stdout);
        assert!(s.contains("max_msu_size"), "{s}");
    }
}

#[test]
fn population_estimates_with_the_hand_computed_tau() {
    // a,b: (1,x) twice, (1,y), (2,y); N = 8. Main effects: μ = 1.5 and 0.5, λ = μ/π = 3 and 1,
    // τ₁ = e^−1.5 + e^−0.5.
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "s.csv", "a,b\n1,x\n1,x\n1,y\n2,y\n");
    let out = dir.path().join("pr.csv");
    let v = json(&[
        "risk",
        "--data",
        &f,
        "--keys",
        "a,b",
        "--measure",
        "population",
        "--population-size",
        "8",
        "--per-record",
        out.to_str().unwrap(),
    ]);
    assert_eq!(v["measure"], "population");
    assert_eq!(v["sampling_fraction"], 0.5);
    assert_eq!(v["sample_uniques"], 2);
    let tau1 = v["tau1"].as_f64().unwrap();
    assert!((tau1 - ((-1.5f64).exp() + (-0.5f64).exp())).abs() < 1e-12);
    for k in [
        "zayatz",
        "pitman",
        "snb",
        "rule_model",
        "rule_estimate",
        "tau2",
    ] {
        assert!(v.get(k).is_some(), "{k}");
    }
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.starts_with("row,k,pr_population_unique_rule"));
    assert_eq!(text.lines().count(), 5);
}

#[test]
fn individual_measure_reports_the_weighted_figures_of_the_frequency_measure() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "w.csv",
        "a,b,w,hh\n1,x,10,1\n1,x,20,1\n1,y,5,2\n2,y,8,3\n",
    );
    let base = [
        "risk", "--data", &f, "--keys", "a,b", "--weight", "w", "--group", "hh",
    ];
    let freq = json(&base);
    let mut a = base.to_vec();
    a.extend(["--measure", "individual"]);
    let ind = json(&a);
    for k in [
        "expected_reidentifications",
        "global_risk",
        "max_individual_risk",
        "household_expected_reidentifications",
    ] {
        assert_eq!(ind[k], freq[k], "{k}");
    }
    assert!(ind.get("l_distinct_min").is_none());
    assert!(ind.get("theta").is_none());
}

#[test]
fn the_default_measure_is_frequency() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "book.csv", BOOK);
    let a = json(&["risk", "--data", &f, "--keys", "age,gender"]);
    let b = json(&[
        "risk",
        "--data",
        &f,
        "--keys",
        "age,gender",
        "--measure",
        "frequency",
    ]);
    assert_eq!(a, b);
    assert!(a.get("sample_uniques").is_some());
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "book.csv", BOOK);
    let keys = "age,gender,income,education";
    fails(
        &[
            "risk",
            "--data",
            &f,
            "--keys",
            keys,
            "--measure",
            "population",
            "--sampling-fraction",
            "1.5",
        ],
        &["sampling_fraction", "(0, 1]", "1.5"],
    );
    fails(
        &[
            "risk",
            "--data",
            &f,
            "--keys",
            keys,
            "--measure",
            "population",
            "--sampling-fraction",
            "0",
        ],
        &["(0, 1]"],
    );
    fails(
        &[
            "risk",
            "--data",
            &f,
            "--keys",
            keys,
            "--measure",
            "population",
        ],
        &["--population-size", "--sampling-fraction", "--weight"],
    );
    fails(
        &[
            "risk",
            "--data",
            &f,
            "--keys",
            keys,
            "--measure",
            "suda2",
            "--missing",
            "wildcard",
        ],
        &["wildcard"],
    );
    fails(
        &[
            "risk",
            "--data",
            &f,
            "--keys",
            "age,nope",
            "--measure",
            "suda2",
        ],
        &["nope"],
    );
    // Too many keys for a full search: the estimated cost and how to limit the MSU size.
    let header: Vec<String> = (0..45).map(|i| format!("k{i}")).collect();
    let mut csv = header.join(",");
    csv.push('\n');
    for r in 0..20 {
        let row: Vec<String> = (0..45).map(|i| ((r * 3 + i) % 4).to_string()).collect();
        csv.push_str(&row.join(","));
        csv.push('\n');
    }
    let wide = temp_file(&dir, "wide.csv", &csv);
    fails(
        &[
            "risk",
            "--data",
            &wide,
            "--keys",
            &header.join(","),
            "--measure",
            "suda2",
        ],
        &["45 keys", "steps", "--max-msu-size"],
    );
    // The suggested limit works.
    let out = intruder(&[
        "risk",
        "--data",
        &wide,
        "--keys",
        &header.join(","),
        "--measure",
        "suda2",
        "--max-msu-size",
        "3",
        "--format",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn suda2_with_sdcmicros_missing_value_rule() {
    // francdat's keys with the missing cells of sdcMicro's freqCalc example: sdcMicro's suda2
    // scores are 0 3 0 0 6 2 8 0 (crates/risk/tests/suda.rs works them by hand).
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "francdat_na.csv",
        "Key1,Key2,Key3,Key4\n1,2,5,1\n1,2,1,1\n1,2,,1\n,,1,5\n4,3,1,\n,3,1,1\n6,2,1,5\n1,2,5,1\n",
    );
    let out = dir.path().join("scores.csv");
    let v = json(&[
        "risk",
        "--data",
        &f,
        "--keys",
        "Key1,Key2,Key3,Key4",
        "--measure",
        "suda2",
        "--missing",
        "as-value",
        "--set",
        "drop_msus_with_missing=true",
        "--per-record",
        out.to_str().unwrap(),
    ]);
    assert_eq!(v["drop_msus_with_missing"], true);
    assert_eq!(v["sample_uniques"], 6);
    assert_eq!(v["pair_records"], 2);
    let text = std::fs::read_to_string(&out).unwrap();
    let scores: Vec<&str> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(scores, ["0", "3", "0", "0", "6", "2", "8", "0"]);
    let bad = intruder(&[
        "risk",
        "--data",
        &f,
        "--keys",
        "Key1,Key2,Key3,Key4",
        "--measure",
        "suda2",
        "--set",
        "drop_msus_with_missing=true",
    ]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("drop_msus_with_missing") && err.contains("as-value"),
        "{err}"
    );
}
