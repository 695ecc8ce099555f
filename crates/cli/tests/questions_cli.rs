//! `intruder attack --method singling-out|linkability|inference`: the three questions end to
//! end, on small files with hand-computed answers, and every input problem the issue names.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn attack(args: &[&str], threads: &str) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_intruder"))
        .arg("attack")
        .args(args)
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The original, a control set of other people, and a release that copies the original.
struct Files {
    _dir: tempfile::TempDir,
    original: PathBuf,
    control: PathBuf,
    released: PathBuf,
}

fn files() -> Files {
    let dir = tempfile::tempdir().unwrap();
    let original = write(
        dir.path(),
        "original.csv",
        "age,town,income\n20,a,100\n35,b,200\n50,c,300\n65,d,400\n",
    );
    let control = write(
        dir.path(),
        "control.csv",
        "age,town,income\n22,b,150\n37,c,250\n52,d,350\n67,a,450\n",
    );
    let released = write(
        dir.path(),
        "released.csv",
        "age,town,income\n20,a,100\n35,b,200\n50,c,300\n65,d,400\n",
    );
    Files {
        _dir: dir,
        original,
        control,
        released,
    }
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The Wilson centre of `k` successes in `n` at 95%: `(k + z²/2) / (n + z²)`.
fn wilson_centre(k: f64, n: f64) -> f64 {
    let z: f64 = 1.959_963_984_540_054;
    (k + z * z / 2.0) / (n + z * z)
}

#[test]
fn linkability_of_a_copy_links_every_target_and_no_control_record() {
    let f = files();
    let (ok, out, err) = attack(
        &[
            "--method",
            "linkability",
            "--original",
            s(&f.original),
            "--control",
            s(&f.control),
            "--released",
            s(&f.released),
            "--set",
            r#"aux_cols=[["age"],["town"]]"#,
            "--set",
            "n_attacks=4",
            "--seed",
            "7",
            "--format",
            "json",
        ],
        "2",
    );
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    // Each original record's age and town both point to that record in the copy; a control
    // record's age points to one release record, its town to another (the towns are rotated).
    assert_eq!(v["n_attacks"], 4);
    assert_eq!(v["n_success"], 4);
    assert_eq!(v["n_control"], 0.0);
    assert_eq!(v["question"], "linkability");
    let attack_rate = v["attack_rate"].as_f64().unwrap();
    let control_rate = v["control_rate"].as_f64().unwrap();
    assert!((attack_rate - wilson_centre(4.0, 4.0)).abs() < 1e-12);
    assert!((control_rate - wilson_centre(0.0, 4.0)).abs() < 1e-12);
    let risk = (attack_rate - control_rate) / (1.0 - control_rate);
    assert!((v["risk"].as_f64().unwrap() - risk).abs() < 1e-12);
    assert_eq!(v["risk_ci"][0], v["risk_ci_low"]);
    assert_eq!(v["risk_ci"][1], v["risk_ci_high"]);
    assert_eq!(
        v["params"]["aux_cols"],
        serde_json::json!([["age"], ["town"]])
    );
    assert_eq!(v["params"]["n_neighbors"], 1);
    assert_eq!(v["seed"], 7);
    for field in [
        "attack_rate_error",
        "control_rate_error",
        "baseline_rate",
        "baseline_rate_error",
        "n_baseline",
        "confidence_level",
        "warnings",
    ] {
        assert!(v.get(field).is_some(), "{field} missing from {out}");
    }
}

#[test]
fn inference_of_a_copy_guesses_every_secret_and_the_answer_does_not_depend_on_threads() {
    let f = files();
    let args = [
        "--method",
        "inference",
        "--original",
        s(&f.original),
        "--control",
        s(&f.control),
        "--released",
        s(&f.released),
        "--set",
        "aux_cols=age,town",
        "--set",
        "secret=income",
        "--set",
        "n_attacks=4",
        "--set",
        "confidence_level=0.9",
        "--format",
        "json",
    ];
    let (ok, out, err) = attack(&args, "2");
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["n_success"], 4);
    assert_eq!(v["confidence_level"], 0.9);
    assert_eq!(v["params"]["confidence_level"], 0.9);
    let (ok1, out1, _) = attack(&args, "1");
    assert!(ok1);
    assert_eq!(out, out1, "one thread and two give the same answer");
}

#[test]
fn singling_out_reports_in_every_format() {
    let f = files();
    for (format, needle) in [
        ("table", "risk_ci_high"),
        ("markdown", "| `attack_rate` |"),
        ("csv", "risk,risk_ci_low,risk_ci_high,attack_rate"),
    ] {
        let (ok, out, err) = attack(
            &[
                "--method",
                "singling-out",
                "--original",
                s(&f.original),
                "--control",
                s(&f.control),
                "--released",
                s(&f.released),
                "--set",
                "mode=univariate",
                "--set",
                "n_attacks=4",
                "--format",
                format,
            ],
            "2",
        );
        assert!(ok, "{format}: {err}");
        assert!(out.contains(needle), "{format}: {out}");
    }
}

/// Runs a question expected to fail and returns its message.
fn refused(args: &[&str]) -> String {
    let (ok, out, err) = attack(args, "2");
    assert!(!ok, "expected an error, got {out}");
    assert!(out.is_empty(), "nothing on standard output: {out}");
    err
}

#[test]
fn bad_input_is_a_clear_error_naming_file_and_column() {
    let f = files();
    let dir = tempfile::tempdir().unwrap();
    let other = write(
        dir.path(),
        "other_control.csv",
        "age,town,wealth\n22,b,150\n",
    );
    let narrow = write(dir.path(), "narrow.csv", "age,town\n20,a\n35,b\n");
    let base = |released: &Path, control: &Path| -> Vec<String> {
        [
            "--method",
            "inference",
            "--original",
            s(&f.original),
            "--control",
            s(control),
            "--released",
            s(released),
        ]
        .map(str::to_string)
        .to_vec()
    };
    let run = |mut args: Vec<String>, more: &[&str]| {
        args.extend(more.iter().map(|a| a.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&refs)
    };
    // A control set with other columns.
    let e = run(
        base(&f.released, &other),
        &["--set", "aux_cols=age", "--set", "secret=income"],
    );
    assert!(e.contains("other_control.csv"), "{e}");
    assert!(
        e.contains("missing 'income'") && e.contains("'wealth'"),
        "{e}"
    );
    // An auxiliary column (here the secret) missing from the release.
    let e = run(
        base(&narrow, &f.control),
        &["--set", "aux_cols=age", "--set", "secret=income"],
    );
    assert!(e.contains("narrow.csv") && e.contains("'income'"), "{e}");
    // A secret that is also an auxiliary column.
    let e = run(
        base(&f.released, &f.control),
        &["--set", "aux_cols=age,income", "--set", "secret=income"],
    );
    assert!(
        e.contains("secret 'income' is also an auxiliary column"),
        "{e}"
    );
    // More attacks than records.
    let e = run(
        base(&f.released, &f.control),
        &[
            "--set",
            "aux_cols=age",
            "--set",
            "secret=income",
            "--set",
            "n_attacks=5",
        ],
    );
    assert!(
        e.contains("n_attacks = 5") && e.contains("4 records"),
        "{e}"
    );
    // A parameter of a linkage attack.
    let e = run(
        base(&f.released, &f.control),
        &[
            "--set",
            "aux_cols=age",
            "--set",
            "secret=income",
            "--keys",
            "age",
        ],
    );
    assert!(e.contains("keys"), "{e}");
    // A flag of a linkage attack.
    let e = run(
        base(&f.released, &f.control),
        &[
            "--set",
            "aux_cols=age",
            "--set",
            "secret=income",
            "--truth",
            "id",
        ],
    );
    assert!(e.contains("--truth apply to linkage attacks"), "{e}");
}

#[test]
fn a_question_needs_a_control_set_and_the_original_not_an_intruder_file() {
    let f = files();
    let e = refused(&[
        "--method",
        "singling-out",
        "--original",
        s(&f.original),
        "--released",
        s(&f.released),
    ]);
    assert!(e.contains("needs --control FILE"), "{e}");
    let e = refused(&[
        "--method",
        "singling-out",
        "--intruder",
        s(&f.original),
        "--released",
        s(&f.released),
    ]);
    assert!(e.contains("give --original FILE and --control FILE"), "{e}");
    // --original with a linkage attack.
    let e = refused(&[
        "--method",
        "exact",
        "--original",
        s(&f.original),
        "--control",
        s(&f.control),
        "--released",
        s(&f.released),
    ]);
    assert!(
        e.contains("--original and --control belong to the questions without truth"),
        "{e}"
    );
}

#[test]
fn list_shows_the_three_questions_with_anonymeter_names() {
    let (ok, out, err) = attack(&["--list"], "2");
    assert!(ok, "{err}");
    let questions = out
        .split_once("the three questions")
        .expect("a section of questions")
        .1;
    for name in [
        "singling-out",
        "linkability",
        "inference",
        "n_attacks",
        "n_cols",
        "aux_cols",
        "n_neighbors",
        "secret",
        "regression",
        "confidence_level",
    ] {
        assert!(questions.contains(name), "{name} missing from --list");
    }
}

#[test]
fn membership_and_distances_from_the_command_line() {
    let f = files();
    let run = |method: &str, more: &[&str]| -> Value {
        let mut args = vec![
            "--method",
            method,
            "--original",
            s(&f.original),
            "--control",
            s(&f.control),
            "--released",
            s(&f.released),
            "--format",
            "json",
        ];
        args.extend(more);
        let (ok, out, err) = attack(&args, "2");
        assert!(ok, "{method}: {err}");
        serde_json::from_str(&out).unwrap()
    };
    // Every member has its copy in the release (distance 0); every non-member lies farther.
    let m = run("membership", &["--set", "n_targets=4"]);
    assert_eq!(m["question"], "membership");
    assert_eq!(
        (m["auc"].as_f64(), m["advantage"].as_f64()),
        (Some(1.0), Some(1.0))
    );
    assert_eq!(
        (m["n_members"].as_u64(), m["n_non_members"].as_u64()),
        (Some(4), Some(4))
    );
    assert_eq!(m["attack"], "distance");
    // Every release record copies an original record: nothing protects.
    let d = run("dcr", &[]);
    assert_eq!(d["exact_copies"], 1.0);
    assert_eq!(d["closer_to_training"], 1.0);
    assert_eq!(d["overfitting_protection"], 0.0);
    assert_eq!(d["median_dcr_release"], 0.0);
    // confidence_level belongs to the three questions only.
    let (ok, _, err) = attack(
        &[
            "--method",
            "dcr",
            "--original",
            s(&f.original),
            "--control",
            s(&f.control),
            "--released",
            s(&f.released),
            "--set",
            "confidence_level=0.9",
        ],
        "2",
    );
    assert!(!ok && err.contains("confidence_level"), "{err}");
}
