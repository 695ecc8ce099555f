//! `intruder attack --method fellegi-sunter` end to end on a seeded linkage pair: the linkage
//! beats exact matching on files with typos, writes its pairs, and rejects a bad specification.

use std::path::Path;
use std::process::Command;

fn intruder(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_intruder"))
        .args(args)
        .output()
        .expect("run intruder")
}

fn repo(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(p)
        .to_string_lossy()
        .into_owned()
}

fn attack_json(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let a = dir.join("file-a.csv");
    let b = dir.join("file-b.csv");
    let sa = dir.join("file-a.schema.toml");
    let sb = dir.join("file-b.schema.toml");
    let mut args = vec![
        "attack",
        "--intruder",
        a.to_str().unwrap(),
        "--released",
        b.to_str().unwrap(),
        "--intruder-schema",
        sa.to_str().unwrap(),
        "--released-schema",
        sb.to_str().unwrap(),
        "--truth",
        "person_id",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = intruder(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn fellegi_sunter_beats_exact_matching_on_noisy_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = intruder(&[
        "synth",
        "linkage-pair",
        "--n",
        "600",
        "--seed",
        "11",
        "--set",
        "n_b=1500",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pairs = dir.path().join("pairs.csv");
    let spec = repo("benches/linkage/linkage.toml");
    let fs = attack_json(
        dir.path(),
        &[
            "--method",
            "fellegi-sunter",
            "--linkage-spec",
            &spec,
            "--pairs-out",
            pairs.to_str().unwrap(),
        ],
    );
    assert_eq!(fs["method"], "fellegi-sunter");
    assert_eq!(fs["intruder_records"], 600);
    let f1 = fs["f1"].as_f64().unwrap();
    assert!(f1 > 0.9, "F1 {f1}");
    let exact = attack_json(
        dir.path(),
        &[
            "--method",
            "exact",
            "--keys",
            "first_name,surname,birth_year,birth_month,sex,postcode",
        ],
    );
    let (fs_rate, exact_rate) = (
        fs["correct_match_rate"].as_f64().unwrap(),
        exact["correct_match_rate"].as_f64().unwrap(),
    );
    assert!(
        fs_rate > exact_rate,
        "Fellegi–Sunter {fs_rate} vs exact {exact_rate}"
    );
    let text = std::fs::read_to_string(&pairs).unwrap();
    assert!(
        text.starts_with("id_intruder,id_released,match_weight,match_probability\n"),
        "{}",
        &text[..80.min(text.len())]
    );
    // Every pair above the default floor (probability 0.01): at least the ~300 true pairs found.
    assert!(text.lines().count() > 250);
}

#[test]
fn a_bad_specification_lists_every_problem() {
    let dir = tempfile::tempdir().unwrap();
    let out = intruder(&[
        "synth",
        "linkage-pair",
        "--n",
        "50",
        "--seed",
        "1",
        "--set",
        "n_b=80",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let spec = dir.path().join("bad.toml");
    std::fs::write(
        &spec,
        "blocking = [[\"postcode\"]]\n[[comparison]]\ncolumn = \"surname\"\nlevels = [{ kind = \"jaro-winkler\", threshold = 2 }]\n",
    )
    .unwrap();
    let a = dir.path().join("file-a.csv");
    let b = dir.path().join("file-b.csv");
    let out = intruder(&[
        "attack",
        "--method",
        "fellegi-sunter",
        "--intruder",
        a.to_str().unwrap(),
        "--released",
        b.to_str().unwrap(),
        "--truth",
        "person_id",
        "--linkage-spec",
        spec.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        err.contains("bad.toml")
            && err.contains("3 problem")
            && err.contains("threshold")
            && err.contains("else"),
        "{err}"
    );
}

/// The fitted model comes back through the registry: its text and the waterfall in the default
/// table, the model as JSON, pairs named by the identifier columns, and the keys taken from the
/// schema when no specification is given.
#[test]
fn the_model_explains_itself_in_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = intruder(&[
        "synth",
        "linkage-pair",
        "--n",
        "120",
        "--seed",
        "4",
        "--set",
        "n_b=200",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let (a, b) = (dir.path().join("file-a.csv"), dir.path().join("file-b.csv"));
    let (pairs, model) = (dir.path().join("pairs.csv"), dir.path().join("model.json"));
    let out = intruder(&[
        "attack",
        "--intruder",
        a.to_str().unwrap(),
        "--released",
        b.to_str().unwrap(),
        "--method",
        "fellegi-sunter",
        "--u-sample",
        "5000",
        "--explain-pair",
        "1,1",
        "--pairs-out",
        pairs.to_str().unwrap(),
        "--model-out",
        model.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("Fellegi-Sunter model: "), "{text}");
    assert!(
        text.contains("pair intruder row 1 / released row 1"),
        "{text}"
    );
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    // Keys from the schema (role key): seven comparisons, inferred from their types.
    assert_eq!(m["spec"]["comparisons"].as_array().unwrap().len(), 7);
    assert_eq!(m["u_sample"], 5000);
    let p = std::fs::read_to_string(&pairs).unwrap();
    let first = p.lines().nth(1).expect("at least one pair");
    assert!(
        first.starts_with('A') && first.split(',').nth(1).unwrap().starts_with('B'),
        "{first}"
    );
    // The same run as JSON: the model and the waterfall under their old names.
    let out = intruder(&[
        "attack",
        "--intruder",
        a.to_str().unwrap(),
        "--released",
        b.to_str().unwrap(),
        "--method",
        "fellegi-sunter",
        "--u-sample",
        "5000",
        "--explain-pair",
        "1,1",
        "--threshold",
        "0.9",
        "--format",
        "json",
    ]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["explain_pair"]["intruder_row"], 0);
    assert_eq!(v["model"]["threshold"], 0.9);
    assert_eq!(v["config"]["threshold"], 0.9);
    let w = v["threshold"].as_f64().unwrap();
    assert!(
        (w - 9f64.log2()).abs() < 1e-12,
        "declared at the weight of 0.9: {w}"
    );
    assert_eq!(v["declared"], v["model"]["links"]);
}

/// Issue 17: `--charts DIR` writes the linkage charts (with the waterfall of `--explain-pair`),
/// refuses a chart path that is an input, and needs a model-fitting attack.
#[test]
fn charts_are_written_beside_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let out = intruder(&[
        "synth",
        "linkage-pair",
        "--n",
        "200",
        "--seed",
        "3",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let charts = dir.path().join("charts");
    let c = charts.to_str().unwrap();
    let v = attack_json(
        dir.path(),
        &[
            "--method",
            "fellegi-sunter",
            "--explain-pair",
            "1,1",
            "--charts",
            c,
        ],
    );
    let em = v["model"]["em"]["change_history"].as_array().unwrap();
    assert!(!em.is_empty());
    for f in ["match_weights.svg", "m_u.svg", "em.svg", "waterfall.svg"] {
        let svg = std::fs::read_to_string(charts.join(f)).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"),
            "{f}"
        );
    }
    // Without --explain-pair: no waterfall.
    let plain = dir.path().join("plain");
    attack_json(
        dir.path(),
        &[
            "--method",
            "fellegi-sunter",
            "--charts",
            plain.to_str().unwrap(),
        ],
    );
    assert!(plain.join("m_u.svg").exists() && !plain.join("waterfall.svg").exists());
    // A chart that would overwrite an input is refused before anything runs.
    let clash = dir.path().join("clash");
    std::fs::create_dir(&clash).unwrap();
    std::fs::copy(dir.path().join("file-a.csv"), clash.join("em.svg")).unwrap();
    let out = intruder(&[
        "attack",
        "--method",
        "fellegi-sunter",
        "--intruder",
        clash.join("em.svg").to_str().unwrap(),
        "--released",
        dir.path().join("file-b.csv").to_str().unwrap(),
        "--truth",
        "person_id",
        "--charts",
        clash.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--charts"));
    // Exact matching fits no model.
    let out = intruder(&[
        "attack",
        "--method",
        "exact",
        "--intruder",
        dir.path().join("file-a.csv").to_str().unwrap(),
        "--released",
        dir.path().join("file-b.csv").to_str().unwrap(),
        "--truth",
        "person_id",
        "--charts",
        c,
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--charts need"));
}
