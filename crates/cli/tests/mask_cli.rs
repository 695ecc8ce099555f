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
    // protect_against = all (the default): every combination of visible values and blanks
    // shared by 3 of the 8 records takes 26 of the 32 key cells; sdcMicro's wildcard rule alone
    // takes 7 (below), and then its own attack finds classes of 1 (issue 32)
    assert_eq!(empty_cells, 26);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(v["log"]["suppressions"], 26);
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
    // kept_rows are 1-based record numbers of the input: record k is pid p{k-1}
    assert_eq!(v["log"]["row_numbers"], "1-based");
    let kept: Vec<u64> = v["log"]["kept_rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(kept.len(), 30);
    assert!(kept.iter().all(|&k| (1..=60).contains(&k)), "{kept:?}");
    for (line, k) in lines[1..].iter().zip(&kept) {
        let i = *k as usize - 1;
        assert!(
            line.ends_with(&format!(",p{i}")),
            "truth follows its record: {line} vs record {k} (p{i})"
        );
        let age: usize = line.split(',').next().unwrap().parse().unwrap();
        assert_eq!(age, 20 + i % 7);
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
        "--format",
        "json",
    ]);
    assert!(ok, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    let per_var = &r["il1s_per_variable"];
    assert_eq!(per_var[0]["variable"], "income");
    assert_eq!(per_var[0]["cells"], 30);
    assert_eq!(per_var[1]["variable"], "age");
    assert_eq!(per_var[1]["cells"], 30);
    assert_eq!(per_var[1]["il1s"], 0.0, "age untouched");
    assert!(r["il1s"].as_f64().unwrap() > 0.0);
    assert_eq!(
        r["il1s_per_cell"].as_f64().unwrap(),
        r["il1s"].as_f64().unwrap() / 60.0
    );
    assert!(r["ci_overlap_mean"].as_f64().unwrap() > 0.5);
    assert!(r["ci_overlap_min"].as_f64().unwrap() <= r["ci_overlap_mean"].as_f64().unwrap());
    assert!(r["pmse"].as_f64().unwrap() >= 0.0);
    assert_eq!(
        r["measures"],
        serde_json::json!(["moments", "correlations", "il1s", "pmse", "ci-overlap"])
    );
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
        "bad.toml: 4 problems:",
        "step[1].k: expected a value ≥ 2, found 1",
        "step[1].variables: is required but missing",
        "step[1].variabls: unknown key (did you mean 'variables'?)",
        "step[2].method: unknown defence 'swap'",
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
    assert!(
        err.contains("variables: ")
            && err.contains("no column named 'Num9' (did you mean 'Num1'?)"),
        "{err}"
    );
    assert!(!out.exists());
    // the old name still works, with a warning
    let (ok, _, err) = intruder(&[
        "mask",
        "--data",
        &francdat(),
        "--method",
        "round",
        "--set",
        "columns=Num3",
        "--set",
        "base=5",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains(
            "warning: columns: 'columns' is deprecated: use 'variables' (the old name is accepted until the next release)"
        ),
        "{err}"
    );
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(
        text.lines()
            .map(|l| l.split(',').nth(6).unwrap())
            .collect::<Vec<_>>(),
        ["Num3", "5", "20", "10", "90", "15", "15", "0", "5"]
    );
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
    ]);
    assert!(ok, "{err}");
    // the default format is the table: each figure with its value and meaning
    assert_eq!(figure(&out, "il1s"), "0", "{out}");
    assert_eq!(figure(&out, "il1s_per_cell"), "0", "{out}");
    assert_eq!(figure(&out, "cor_max_abs_diff"), "0", "{out}");
    assert_eq!(figure(&out, "ci_overlap_mean"), "1", "{out}");
    assert_eq!(figure(&out, "ci_overlap_min"), "1", "{out}");
    assert!(
        out.contains("IL1s per variable (24 cells observed in both files)"),
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
    assert!(
        !ok && err.contains("\n  - model: is required but missing (regression model"),
        "{err}"
    );
}

/// The value of figure `name` in the table format (`  name  value  meaning`).
fn figure(out: &str, name: &str) -> String {
    out.lines()
        .find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some(name)).then(|| w.next().unwrap_or("").to_string())
        })
        .unwrap_or_else(|| panic!("no figure {name} in:\n{out}"))
}

/// A survey with a schema beside it: `s.csv` and `s.schema.toml` (pid truth, age/sex keys,
/// income sensitive), fields separated by `;`.
fn survey_beside(dir: &Path) -> std::path::PathBuf {
    let data = dir.join("s.csv");
    let mut csv = String::from("pid;age;sex;income\n");
    for i in 0..40 {
        csv.push_str(&format!(
            "p{i};{};{};{}\n",
            30 + i % 5,
            ["M", "F"][i % 2],
            1000 + 11 * i
        ));
    }
    // one record alone in its class on (age, sex): record 41
    csv.push_str("p40;99;F;5000\n");
    std::fs::write(&data, csv).unwrap();
    std::fs::write(
        dir.join("s.schema.toml"),
        "delimiter = \";\"\n[columns.pid]\nrole = \"truth\"\n[columns.age]\nrole = \"key\"\n[columns.sex]\nrole = \"key\"\n[columns.income]\nrole = \"sensitive\"\n",
    )
    .unwrap();
    data
}

#[test]
fn the_schema_beside_the_data_gives_the_delimiter_the_truth_and_the_keys() {
    let dir = tempfile::tempdir().unwrap();
    let data = survey_beside(dir.path());
    let out = dir.path().join("m.csv");
    let log = dir.path().join("log.json");
    // no --schema, no keys: the schema beside s.csv declares them
    let (ok, stdout, err) = intruder(&[
        "mask",
        "--data",
        data.to_str().unwrap(),
        "--method",
        "remove-records",
        "--set",
        "k=2",
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(ok, "{err}");
    let s: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(s["rows_in"], 41);
    assert_eq!(s["rows_out"], 40, "the unique record 41 is removed");
    assert_eq!(s["steps"][0]["method"], "remove-records");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&log).unwrap()).unwrap();
    assert_eq!(v["pipeline"][0]["keys"], serde_json::json!(["age", "sex"]));
    assert_eq!(
        v["log"]["steps"][0]["rows_removed"],
        serde_json::json!([41])
    );
    let kept: Vec<u64> = v["log"]["kept_rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(kept, (1..=40).collect::<Vec<u64>>());
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(text.lines().next().unwrap(), "age,sex,income,pid");
    assert_eq!(text.lines().count(), 41);
    // utility: the variables default to the schema's key and sensitive columns; the log's
    // 1-based rows pair the records for il1s
    let (ok, stdout, err) = intruder(&[
        "utility",
        "--original",
        data.to_str().unwrap(),
        "--masked",
        out.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(ok, "{err}");
    assert!(
        err.contains("variables from the roles key and sensitive")
            && err.contains("age, sex, income"),
        "{err}"
    );
    let r: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    // sex is categorical: by default only pmse applies
    assert_eq!(r["measures"], serde_json::json!(["pmse"]));
    // il1s on the same records: zero, since remove-records changes no cell
    let (ok, stdout, err) = intruder(&[
        "utility",
        "--original",
        data.to_str().unwrap(),
        "--masked",
        out.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--variables",
        "age,income",
        "--measure",
        "il1s,moments",
        "--format",
        "json",
    ]);
    assert!(ok, "{err}");
    let r: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(r["il1s"], 0.0);
    assert_eq!(r["il1s_per_variable"][0]["cells"], 40);
    // moments compare the files as wholes: the removed record moves the means
    let income_mean: f64 = (0..40).map(|i| 1000.0 + 11.0 * i as f64).sum::<f64>() / 40.0;
    let orig_mean = (income_mean * 40.0 + 5000.0) / 41.0;
    let m = r["moments"][1].clone();
    assert_eq!(m["variable"], "income");
    assert!(
        (m["mean_original"].as_f64().unwrap() - orig_mean).abs() < 1e-9,
        "{m}"
    );
    assert!(
        (m["mean_masked"].as_f64().unwrap() - income_mean).abs() < 1e-9,
        "{m}"
    );
    // without the log, il1s cannot pair 41 records with 40
    let (ok, _, err) = intruder(&[
        "utility",
        "--original",
        data.to_str().unwrap(),
        "--masked",
        out.to_str().unwrap(),
        "--variables",
        "age,income",
        "--measure",
        "il1s",
    ]);
    assert!(!ok && err.contains("intruder utility --log"), "{err}");
}

#[test]
fn delimiter_flag_reads_a_file_without_schema() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("t.txt");
    std::fs::write(&data, "a|x\n1|10\n2|20\n3|30\n4|40\n").unwrap();
    let out = dir.path().join("m.csv");
    let run = |delim: Option<&str>| {
        let mut a = vec![
            "mask",
            "--data",
            data.to_str().unwrap(),
            "--method",
            "round",
            "--set",
            "variables=x",
            "--set",
            "base=25",
            "--seed",
            "1",
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(d) = delim {
            a.extend(["--delimiter", d]);
        }
        intruder(&a)
    };
    // Without --delimiter the delimiter is detected from the first lines, and a note says so.
    let (ok, _, err) = run(None);
    assert!(ok, "{err}");
    assert!(
        err.contains("note:") && err.contains("separated by '|'"),
        "{err}"
    );
    let detected = std::fs::read_to_string(&out).unwrap();
    // Told another delimiter, the header is one column: the message suggests the right one.
    let (ok, _, err) = run(Some(","));
    assert!(!ok);
    assert!(
        err.contains("no column named 'x'") && err.contains("try --delimiter '|'"),
        "{err}"
    );
    let (ok, _, err) = run(Some("|"));
    assert!(ok, "{err}");
    assert!(
        !err.contains("note:"),
        "a given delimiter is not noted: {err}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), detected);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "a,x\n1,0\n2,25\n3,25\n4,50\n"
    );
}

#[test]
fn summary_and_utility_formats() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.csv");
    let base = [
        "mask",
        "--data",
        &francdat(),
        "--method",
        "top-bottom-code",
        "--set",
        "variables=Num3",
        "--set",
        "top=20",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]
    .map(String::from);
    let with = |fmt: &str| {
        let mut a: Vec<&str> = base.iter().map(String::as_str).collect();
        a.extend(["--format", fmt]);
        let (ok, stdout, err) = intruder(&a);
        assert!(ok, "{err}");
        stdout
    };
    let table = with("table");
    assert!(
        table.contains("  cells_changed    2  cells changed"),
        "{table}"
    );
    let json: serde_json::Value = serde_json::from_str(&with("json")).unwrap();
    assert_eq!(json["cells_changed"], 2);
    // top coding is a public recoding: the records are recoded, not changed
    assert_eq!(json["records_changed"], 0);
    assert_eq!(json["records_recoded"], 2);
    assert_eq!(json["steps"][0]["method"], "top-bottom-code");
    let csv = with("csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "rows_in,rows_out,cells_changed,suppressions,records_changed,records_recoded,steps.1.method,steps.1.rows_out,steps.1.cells_changed,steps.1.suppressions,steps.1.records_changed,steps.1.notes"
    );
    assert_eq!(
        lines.next().unwrap(),
        "8,8,2,0,0,2,top-bottom-code,8,2,0,2,"
    );
    let md = with("markdown");
    assert!(md.contains("| `cells_changed` | 2 |"), "{md}");
    // utility in every format agrees on il1s: Num3 values 22 and 91 capped at 20
    let u = |fmt: &str| {
        let (ok, stdout, err) = intruder(&[
            "utility",
            "--original",
            &francdat(),
            "--masked",
            out.to_str().unwrap(),
            "--vars",
            "Num3",
            "--measure",
            "il1s",
            "--format",
            fmt,
        ]);
        assert!(ok, "{err}");
        stdout
    };
    let j: serde_json::Value = serde_json::from_str(&u("json")).unwrap();
    let il = j["il1s"].as_f64().unwrap();
    let (sum, sd) = {
        let x = [4.0, 22.0, 8.0, 91.0, 13.0, 14.0, 1.0, 5.0_f64];
        let m = x.iter().sum::<f64>() / 8.0;
        let v = x.iter().map(|a| (a - m).powi(2)).sum::<f64>() / 7.0;
        ((22.0 - 20.0) + (91.0 - 20.0), v.sqrt())
    };
    assert!((il - sum / (2f64.sqrt() * sd)).abs() < 1e-12, "{il}");
    let csv = u("csv");
    assert!(
        csv.starts_with(
            "il1s,il1s_per_cell,il1s_per_variable.Num3.il1s,il1s_per_variable.Num3.cells\n"
        ),
        "{csv}"
    );
    assert!(u("markdown").contains("| `il1s` |"));
    assert_eq!(
        figure(&u("table"), "il1s"),
        intruder_data::report::human_f64(il)
    );
}

#[test]
fn outputs_never_overwrite_inputs() {
    let dir = tempfile::tempdir().unwrap();
    let data = survey_beside(dir.path());
    let before = std::fs::read_to_string(&data).unwrap();
    let schema = dir.path().join("s.schema.toml");
    let other = dir.path().join("m.csv");
    let mask = |out: &Path, log: Option<&Path>| {
        let mut a = vec![
            "mask".to_string(),
            "--data".into(),
            data.display().to_string(),
            "--method".into(),
            "remove-records".into(),
            "--set".into(),
            "k=2".into(),
            "--seed".into(),
            "1".into(),
            "--out".into(),
            out.display().to_string(),
        ];
        if let Some(l) = log {
            a.extend(["--log".to_string(), l.display().to_string()]);
        }
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        intruder(&a)
    };
    let (ok, _, err) = mask(&data, None);
    assert!(
        !ok && err.contains("--out") && err.contains("is an input file"),
        "{err}"
    );
    let (ok, _, err) = mask(&schema, None);
    assert!(!ok && err.contains("is an input file"), "{err}");
    let (ok, _, err) = mask(&other, Some(&data));
    assert!(
        !ok && err.contains("--log") && err.contains("is an input file"),
        "{err}"
    );
    let (ok, _, err) = mask(&other, Some(&other));
    assert!(!ok && err.contains("is also --out"), "{err}");
    assert_eq!(std::fs::read_to_string(&data).unwrap(), before);
    assert!(!other.exists());
    let (ok, _, err) = mask(&other, None);
    assert!(ok, "{err}");
    let (ok, _, err) = intruder(&[
        "utility",
        "--original",
        data.to_str().unwrap(),
        "--masked",
        other.to_str().unwrap(),
        "--out",
        other.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("is an input file"), "{err}");
    assert_eq!(std::fs::read_to_string(&data).unwrap(), before);
}

#[test]
fn utility_log_rows_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let data = survey_beside(dir.path());
    let log = dir.path().join("log.json");
    let run = |log_text: &str| {
        std::fs::write(&log, log_text).unwrap();
        intruder(&[
            "utility",
            "--original",
            data.to_str().unwrap(),
            "--masked",
            data.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
            "--variables",
            "age",
            "--measure",
            "il1s",
            "--format",
            "json",
        ])
    };
    // record 0 does not exist when rows count from 1
    let (ok, _, err) = run(r#"{"log": {"row_numbers": "1-based", "kept_rows": [0]}}"#);
    assert!(
        !ok && err.contains("kept_rows[1] = 0 is not a record of the original (1 to 41)"),
        "{err}"
    );
    let (ok, _, err) = run(r#"{"log": {"row_numbers": "1-based", "kept_rows": [42]}}"#);
    assert!(!ok && err.contains("kept_rows[1] = 42"), "{err}");
    // a log of intruder 0.1.0 (no row_numbers) counted from 0: the identity over 41 records
    let legacy: Vec<usize> = (0..41).collect();
    let (ok, out, err) = run(&format!("{{\"log\": {{\"kept_rows\": {legacy:?}}}}}"));
    assert!(ok, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["il1s"], 0.0);
    // 1-based, the same records shifted by one: il1s is no longer 0
    let shifted: Vec<usize> = (2..=41).chain([1]).collect();
    let (ok, out, err) = run(&format!(
        "{{\"log\": {{\"row_numbers\": \"1-based\", \"kept_rows\": {shifted:?}}}}}"
    ));
    assert!(ok, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(r["il1s"].as_f64().unwrap() > 0.0);
}

/// `mask --out x.parquet` writes Parquet (not CSV under that name) holding what the CSV holds.
#[test]
fn masked_parquet_holds_the_masked_csv() {
    let dir = tempfile::tempdir().unwrap();
    let run = |out: &Path| {
        intruder(&[
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
        ])
    };
    let (csv, pq) = (dir.path().join("m.csv"), dir.path().join("m.parquet"));
    let (ok, _, err) = run(&csv);
    assert!(ok, "{err}");
    let (ok, _, err) = run(&pq);
    if !ok {
        assert!(err.contains("not compiled in"), "{err}");
        assert!(!pq.exists());
        return;
    }
    assert!(std::fs::read(&pq).unwrap().starts_with(b"PAR1"));
    let read = |p: &Path| intruder_data::load(p, &intruder_data::Input::default()).unwrap();
    let (a, b) = (read(&csv), read(&pq));
    assert_eq!(a.table.nrows(), b.table.nrows());
    let names = |d: &intruder_data::Dataset| {
        d.table
            .columns()
            .iter()
            .map(|c| c.name().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&a), names(&b));
    for (x, y) in a.table.columns().iter().zip(b.table.columns()) {
        for i in 0..a.table.nrows() {
            assert_eq!(x.text(i), y.text(i), "{} row {}", x.name(), i + 1);
        }
    }
    // Suppressed cells are missing in both.
    let missing: usize = b.table.columns().iter().map(|c| c.missing_count()).sum();
    assert_eq!(missing, 26);
}

/// `--format json` carries what a method reports as data: a generalisation of ARX's adult
/// subset (age and sex along ARX's hierarchies, k = 5) gives its chosen levels (age at level 4,
/// sex kept), its score, the records suppressed, the rows and the nodes checked, and says the
/// search was optimal — the same as the log's `details`.
#[test]
fn the_json_summary_gives_a_generalisation_s_levels() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/arx-adult");
    let h = root.join("hierarchies");
    let hierarchies = format!(
        "hierarchies={{ age = \"{}\", sex = \"{}\" }}",
        h.join("age.csv").display(),
        h.join("sex.csv").display()
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.csv");
    let data = root.join("adult_subset.csv");
    let (ok, stdout, stderr) = intruder(&[
        "mask",
        "--data",
        data.to_str().unwrap(),
        "--delimiter",
        ";",
        "--method",
        "generalise",
        "--set",
        &hierarchies,
        "--set",
        "k=5",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(ok, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let steps = v["step_details"].as_array().expect("step_details");
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0]["step"], 1);
    assert_eq!(steps[0]["method"], "generalise");
    let d = &steps[0]["details"];
    assert_eq!(d["levels"], serde_json::json!({"age": 4, "sex": 0}));
    assert_eq!(d["metric"], "loss");
    assert_eq!(d["suppressed"], 0);
    assert_eq!(d["rows"], 3017);
    // (5 of the 10 nodes since the search climbs through the node that merges the fewest
    // labels; 4 with the earlier order)
    assert_eq!(d["nodes_checked"], 5);
    assert_eq!(d["optimal"], true);
    assert!((d["score"].as_f64().unwrap() - 0.41421356237309515).abs() < 1e-12);
    // The frontier as a table (a list of objects in JSON): a row per node of the log's
    // frontier, the chosen levels first and marked.
    let frontier = d["frontier"].as_array().unwrap();
    let rows = v["frontier_step1"].as_array().expect("the frontier table");
    assert_eq!(rows.len(), frontier.len());
    assert_eq!(rows[0]["chosen"], "yes");
    assert_eq!(
        (&rows[0]["level of age"], &rows[0]["level of sex"]),
        (&serde_json::json!(4), &serde_json::json!(0))
    );
    assert_eq!(rows[0]["loss score"], d["score"]);
    for (row, node) in rows.iter().zip(frontier) {
        assert_eq!(row["level of age"], node["levels"]["age"]);
        assert_eq!(row["records suppressed"], node["suppressed"]);
        assert_eq!(row["exact listwise rate"], node["rates"]["exact listwise"]);
    }
    assert_eq!(rows.iter().filter(|r| r["chosen"] == "yes").count(), 1);
}

/// Steps that a Parquet file's columns (read from its footer) refuse are refused before the
/// table is read: the file's unreadable column (a value its schema's categories lack) is never
/// reached — it was, after the whole file had been read.
#[test]
fn a_parquet_files_columns_refuse_steps_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, pq) = (dir.path().join("d.csv"), dir.path().join("d.parquet"));
    std::fs::write(&csv, "a,b\nx,1\ny,2\nx,1\ny,2\n").unwrap();
    let ds = intruder_data::load(&csv, &intruder_data::Input::default()).unwrap();
    if ds.write_file(&pq).is_err() {
        return; // built without Parquet support
    }
    let schema = dir.path().join("s.toml");
    std::fs::write(
        &schema,
        "[columns.a]\ntype = \"categorical\"\ncategories = [\"x\"]\n",
    )
    .unwrap();
    let out = dir.path().join("m.csv");
    let run = |set: &[&str]| {
        let mut args = vec!["mask", "--data", pq.to_str().unwrap(), "--schema"];
        args.extend([schema.to_str().unwrap(), "--method", "local-suppression"]);
        for s in set {
            args.extend(["--set", s]);
        }
        args.extend(["--seed", "1", "--out", out.to_str().unwrap()]);
        let (ok, _, err) = intruder(&args);
        assert!(!ok && !out.exists(), "{err}");
        err
    };
    // The file cannot be read: the categories lack 'y'.
    assert!(run(&["keys=a,b", "k=2"]).contains("'y'"));
    for (set, problem) in [
        (
            &["keys=a,zz", "k=2"][..],
            "no column named 'zz'; the columns are: a, b",
        ),
        (&["keys=a,b"][..], "k: is required but missing"),
    ] {
        let err = run(set);
        assert!(
            err.contains(problem) && !err.contains("'y'"),
            "{set:?}: {err}"
        );
    }
}
