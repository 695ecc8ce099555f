//! `intruder mask` and `intruder utility` end to end.

use std::path::Path;
use std::process::Command;

fn intruder(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_intruder"))
        .args(args)
        .output()
        .expect("run intruder");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn francdat() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../defence/tests/data/francdat.csv")
        .display()
        .to_string()
}

#[test]
fn list_prints_every_method_with_its_parameters() {
    let (ok, out, _) = intruder(&["mask", "--list"]);
    assert!(ok);
    for m in intruder_names() {
        assert!(out.contains(m), "{m} missing from --list");
    }
    assert!(
        out.contains("PERCENTAGE"),
        "rank-swap's p is stated as a percentage"
    );
}

fn intruder_names() -> [&'static str; 11] {
    [
        "global-recode",
        "top-bottom-code",
        "round",
        "local-suppression",
        "risk-suppression",
        "remove-records",
        "noise",
        "mdav",
        "rank-swap",
        "pram",
        "subsample",
    ]
}

#[test]
fn single_method_with_set_masks_francdat_to_3_anonymity() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.csv");
    let log = dir.path().join("log.json");
    let (ok, _, err) = intruder(&[
        "mask",
        "--data",
        &francdat(),
        "--method",
        "local-suppression",
        "--set",
        "keys=Key1,Key2,Key3,Key4",
        "--set",
        "k=3",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let empty_cells = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').filter(|c| c.is_empty()).count())
        .sum::<usize>();
    assert_eq!(empty_cells, 7);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(v["log"]["suppressions"], 7);
    assert_eq!(v["seed"], 1);
    assert_eq!(v["pipeline"][0]["method"], "local-suppression");
}

#[test]
fn pipeline_run_is_reproducible_and_truth_is_subset() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("in.csv");
    let mut csv = String::from("pid,age,sex,income\n");
    for i in 0..60 {
        csv.push_str(&format!(
            "p{i},{},{},{}\n",
            20 + i % 7,
            ["M", "F"][i % 2],
            1000 + 37 * i
        ));
    }
    std::fs::write(&data, &csv).unwrap();
    let schema = dir.path().join("schema.toml");
    std::fs::write(
        &schema,
        "[columns.pid]\nrole = \"truth\"\n[columns.age]\nrole = \"key\"\n",
    )
    .unwrap();
    let pipeline = dir.path().join("p.toml");
    std::fs::write(
        &pipeline,
        "[[step]]\nmethod = \"noise\"\nvariables = [\"income\"]\nnoise = 5\n\n[[step]]\nmethod = \"subsample\"\nfraction = 0.5\n",
    )
    .unwrap();
    let run = |name: &str, seed: &str| {
        let out = dir.path().join(name);
        let log = dir.path().join(format!("{name}.json"));
        let (ok, _, err) = intruder(&[
            "mask",
            "--data",
            data.to_str().unwrap(),
            "--schema",
            schema.to_str().unwrap(),
            "--pipeline",
            pipeline.to_str().unwrap(),
            "--seed",
            seed,
            "--out",
            out.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
        ]);
        assert!(ok, "{err}");
        (std::fs::read_to_string(out).unwrap(), log)
    };
    let (a, log) = run("a.csv", "9");
    let (b, _) = run("b.csv", "9");
    let (c, _) = run("c.csv", "10");
    assert_eq!(a, b);
    assert_ne!(a, c);
    let lines: Vec<&str> = a.lines().collect();
    assert_eq!(lines[0], "age,sex,income,weight,pid");
    assert_eq!(lines.len(), 31);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    let kept: Vec<u64> = v["log"]["kept_rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    for (line, k) in lines[1..].iter().zip(&kept) {
        assert!(
            line.ends_with(&format!(",p{k}")),
            "truth follows its record: {line} vs p{k}"
        );
        let age: usize = line.split(',').next().unwrap().parse().unwrap();
        assert_eq!(age, 20 + *k as usize % 7);
    }
    // utility with the log: the original is subset, so IL1s compares the same records
    let masked = dir.path().join("a.csv");
    let (ok, out, err) = intruder(&[
        "utility",
        "--original",
        data.to_str().unwrap(),
        "--masked",
        masked.to_str().unwrap(),
        "--vars",
        "income,age",
        "--log",
        log.to_str().unwrap(),
        "--model",
        "income ~ age + sex",
    ]);
    assert!(ok, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["il1s"]["cells"], 60);
    assert_eq!(r["il1s"]["per_variable"][1][1], 0.0, "age untouched");
    assert!(r["il1s"]["total"].as_f64().unwrap() > 0.0);
    assert!(r["ci_overlap"]["mean_overlap"].as_f64().unwrap() > 0.5);
    assert!(r["pmse"]["pmse"].as_f64().unwrap() >= 0.0);
}

#[test]
fn a_bad_pipeline_reports_every_problem_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = dir.path().join("bad.toml");
    std::fs::write(&pipeline, "[[step]]\nmethod = \"mdav\"\nk = 1\nvariabls = [\"Num1\"]\n\n[[step]]\nmethod = \"swap\"\n").unwrap();
    let out = dir.path().join("m.csv");
    let (ok, _, err) = intruder(&[
        "mask",
        "--data",
        &francdat(),
        "--pipeline",
        pipeline.to_str().unwrap(),
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    for x in [
        "bad.toml",
        "step 1 (mdav): key 'k': is 1",
        "key 'variables': is required",
        "key 'variabls': unknown key (did you mean 'variables'?)",
        "step 2: key 'method': unknown method 'swap'",
    ] {
        assert!(err.contains(x), "missing «{x}» in {err}");
    }
    assert!(!out.exists());
    // a column that does not exist: named, with the columns listed
    let (ok, _, err) = intruder(&[
        "mask",
        "--data",
        &francdat(),
        "--method",
        "round",
        "--set",
        "columns=Num9",
        "--set",
        "base=5",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("Num9") && err.contains("Num1"), "{err}");
    assert!(!out.exists());
}

#[test]
fn utility_of_an_identical_file_is_perfect_in_table_format() {
    let (ok, out, err) = intruder(&[
        "utility",
        "--original",
        &francdat(),
        "--masked",
        &francdat(),
        "--vars",
        "Num1,Num2,Num3",
        "--model",
        "Num3 ~ Num1 + Num2",
        "--format",
        "table",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("IL1s") && out.contains("= 0.000000"), "{out}");
    assert!(
        out.contains("CI overlap") && out.contains("mean 1.000000"),
        "{out}"
    );
    let (ok, _, err) = intruder(&[
        "utility",
        "--original",
        &francdat(),
        "--masked",
        &francdat(),
        "--vars",
        "Num1",
        "--measure",
        "ci-overlap",
    ]);
    assert!(!ok && err.contains("--model"), "{err}");
}
