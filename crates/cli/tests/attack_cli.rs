//! `intruder attack` end to end: the built binary on small files with known answers.

use std::path::Path;
use std::process::Command;

use crate::common::cells_of;

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn intruder(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_intruder"))
        .arg("attack")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// docs/METHODS.md example E (Mitra Fig. 2) through the CLI, with renamed keys and a separate truth
/// column name in each file.
#[test]
fn example_e_json_and_per_record() {
    let dir = tempfile::tempdir().unwrap();
    let r = write(
        dir.path(),
        "wave2.csv",
        "hid,area,bedrooms,wealth\nh1,2,5,14800\nh2,1,3,12200\nh3,2,5,15000\nh4,3,5,18600\nh5,3,2,12100\nh6,2,4,16800\nh7,2,4,18000\nh8,2,5,12500\nh9,1,6,25000\n",
    );
    let i = write(
        dir.path(),
        "intruder.csv",
        "person,region,beds,true_wealth\nh3,2,5,15000\n",
    );
    let per = dir.path().join("per.csv");
    let (ok, out, err) = intruder(&[
        "--intruder",
        i.to_str().unwrap(),
        "--released",
        r.to_str().unwrap(),
        "--keys",
        "region,beds",
        "--key-map",
        "region=area,beds=bedrooms",
        "--method",
        "exact",
        "--truth-intruder",
        "person",
        "--truth-released",
        "hid",
        "--sensitive",
        "wealth",
        "--sensitive-truth",
        "true_wealth",
        "--seed",
        "3",
        "--per-record",
        per.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for f in [
        "method",
        "intruder_records",
        "twins",
        "correct_match_rate",
        "expected_correct",
        "unique_correct",
        "le2_correct",
        "rank1",
        "top5",
        "attribute_A",
    ] {
        assert!(v.get(f).is_some(), "field {f} missing in {out}");
    }
    assert_eq!(v["method"], "exact");
    assert_eq!(v["twins"], 1);
    assert!((v["expected_correct"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(v["attribute_A"], 1);
    let per = std::fs::read_to_string(per).unwrap();
    let row: Vec<&str> = per.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(row[0], "1");
    assert_eq!(row[1], "3", "twin is released row 3");
    assert_eq!(row[3], "3", "c_i = 3");
    assert!((row[8].parse::<f64>().unwrap() - 2.0 / 3.0).abs() < 1e-12);
    assert!((row[9].parse::<f64>().unwrap() - 0.06).abs() < 1e-12);
}

#[test]
fn nearest_twins_only_vs_whole_file_and_table() {
    let dir = tempfile::tempdir().unwrap();
    // Twin 1 is beaten by a non-twin (id 9) in the whole file, found when only twins are searched.
    let r = write(dir.path(), "r.csv", "id,a,b\n1,0,1\n9,0,0.2\n2,5,5\n");
    let i = write(dir.path(), "i.csv", "id,a,b\n1,0,0\n2,5,5.1\n");
    let base = [
        "--intruder",
        i.to_str().unwrap(),
        "--released",
        r.to_str().unwrap(),
        "--keys",
        "a,b",
        "--method",
        "nearest",
        "--truth",
        "id",
        "--format",
        "json",
    ];
    let (ok, out, err) = intruder(&base);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["correct_match_rate"], 0.5);
    let mut a = base.to_vec();
    a.push("--twins-only");
    let (ok, out, err) = intruder(&a);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["correct_match_rate"], 1.0);
    assert_eq!(v["twins_only"], true);
    a.retain(|x| *x != "--format" && *x != "json"); // the default format: a table for people
    let (ok, out, _) = intruder(&a);
    assert!(ok);
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("correct_match_rate "))
        .unwrap_or_else(|| panic!("no correct_match_rate line in {out}"));
    let cells: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(cells[1], "1", "{line}");
    assert!(line.contains("share of twins whose chosen candidate is the twin (2 of 2)"));
    assert!(out.contains("twins_only_released_records  2"), "{out}");
}

#[test]
fn bad_inputs_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let r = write(dir.path(), "r.csv", "id,a,b\n1,0,1\n");
    let i = write(dir.path(), "i.csv", "id,a,c\n1,0,0\n");
    let (ok, _, err) = intruder(&[
        "--intruder",
        i.to_str().unwrap(),
        "--released",
        r.to_str().unwrap(),
        "--keys",
        "a,b",
        "--truth",
        "id",
    ]);
    assert!(!ok);
    assert!(err.contains("i.csv") && err.contains("'b'"), "{err}");
    let (ok, _, err) = intruder(&[
        "--intruder",
        i.to_str().unwrap(),
        "--released",
        r.to_str().unwrap(),
        "--keys",
        "a",
        "--truth",
        "pid",
    ]);
    assert!(!ok);
    assert!(err.contains("pid"), "{err}");
    let (ok, _, err) = intruder(&[
        "--intruder",
        i.to_str().unwrap(),
        "--released",
        r.to_str().unwrap(),
        "--keys",
        "a",
        "--truth",
        "id",
        "--method",
        "fs",
    ]);
    assert!(!ok);
    assert!(
        err.contains("method: unknown attack 'fs'")
            && err.contains("exact, nearest, kmeans, link, fellegi-sunter"),
        "{err}"
    );
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

#[test]
fn list_shows_every_attack_with_its_parameters() {
    let (ok, out, err) = intruder(&["--list"]);
    assert!(ok, "{err}");
    assert!(out.contains("common parameters (every method):"), "{out}");
    for name in ["exact", "nearest", "kmeans", "link", "fellegi-sunter"] {
        assert!(out.contains(&format!("\n{name}  —  ")), "{name}: {out}");
    }
    for p in [
        "top_k",
        "linkage_spec",
        "u_sample",
        "em_max_iter",
        "twins_only",
    ] {
        assert!(out.contains(&format!("  {p} ")), "{p}: {out}");
    }
    assert!(out.contains("(old name: match_probability)"));
}

/// Files whose schemas (beside them) declare the keys and the person id: no --keys, no --truth.
fn schema_files(dir: &Path) -> (String, String) {
    let schema = "[columns.id]\nrole = \"truth\"\n[columns.a]\nrole = \"key\"\n[columns.b]\nrole = \"key\"\n";
    let i = write(dir, "i.csv", "id,a,b,note\n1,0,0,x\n2,5,5.1,y\n3,?,1,z\n");
    let r = write(
        dir,
        "r.csv",
        "id,a,b,note\n1,0,1,p\n9,0,0.2,q\n2,5,5,r\n3,7,1,s\n",
    );
    write(dir, "i.schema.toml", schema);
    write(dir, "r.schema.toml", schema);
    (
        i.to_str().unwrap().to_string(),
        r.to_str().unwrap().to_string(),
    )
}

#[test]
fn schema_keys_and_truth_are_used_and_set_overrides_them() {
    let dir = tempfile::tempdir().unwrap();
    let (i, r) = schema_files(dir.path());
    let base = ["--intruder", &i, "--released", &r, "--format", "json"];
    let (ok, out, err) = intruder(&[&base[..], &["--missing-tokens", "?"]].concat());
    assert!(ok, "{err}");
    let v = json(&out);
    assert_eq!(v["config"]["keys"], serde_json::json!(["a", "b"]));
    assert_eq!(v["config"]["method"], "exact");
    assert_eq!(
        v["twins"], 3,
        "the shared truth column 'id' is the person id"
    );
    // Exact on (a, b): no intruder record matches; record 3 misses 'a' ('?' is missing here).
    assert_eq!(v["with_candidates"], 0);
    let (ok, out, err) = intruder(
        &[
            &base[..],
            &[
                "--missing-tokens",
                "?",
                "--set",
                "keys=b",
                "--set",
                "missing=wildcard",
            ],
        ]
        .concat(),
    );
    assert!(ok, "{err}");
    let v = json(&out);
    assert_eq!(v["config"]["keys"], serde_json::json!(["b"]));
    assert_eq!(v["config"]["missing"], "wildcard");
    // b: 0 → none, 5.1 → none, 1 → released ids 1 and 3 (rows 1 and 4).
    assert_eq!(v["with_candidates"], 1);
    assert_eq!(v["expected_correct"], 0.5);
    // Without --missing-tokens '?' is a value: column 'a' reads as text in one file only.
    let (ok, _, err) = intruder(&base);
    assert!(!ok);
    assert!(err.contains("'a'") && err.contains("not numbers"), "{err}");
    // A key given both as a flag and with --set.
    let (ok, _, err) = intruder(&[&base[..], &["--keys", "a", "--set", "keys=b"]].concat());
    assert!(!ok);
    assert!(
        err.contains("'keys' is given both as --keys and with --set keys=…"),
        "{err}"
    );
}

#[test]
fn every_parameter_problem_at_once_before_reading_data() {
    let (ok, _, err) = intruder(&[
        "--intruder",
        "no-such-file.csv",
        "--released",
        "no-such-file.csv",
        "--method",
        "nearest",
        "--top-k",
        "0",
        "--set",
        "metrc=gower",
        "--tolerance",
        "-1",
    ]);
    assert!(!ok);
    assert!(err.contains("3 problems"), "{err}");
    assert!(
        err.contains("top_k: expected a value ≥ 1, found 0"),
        "{err}"
    );
    assert!(
        err.contains("metrc: unknown key (did you mean 'metric'?)"),
        "{err}"
    );
    assert!(
        err.contains("tolerance: expected a value > 0, found -1"),
        "{err}"
    );
    assert!(!err.contains("no-such-file"), "{err}");
    let (ok, _, err) = intruder(&[
        "--intruder",
        "x.csv",
        "--released",
        "y.csv",
        "--method",
        "fellegi-sunter",
        "--u-sample",
        "99999999999999",
    ]);
    assert!(!ok && !err.contains("panicked"), "{err}");
    assert!(
        err.contains("u_sample: expected a value in [1, 1000000000], found 99999999999999"),
        "{err}"
    );
}

#[test]
fn formats_render_the_same_figures() {
    let dir = tempfile::tempdir().unwrap();
    let (i, r) = schema_files(dir.path());
    let base = [
        "--intruder",
        &i,
        "--released",
        &r,
        "--missing-tokens",
        "?",
        "--method",
        "nearest",
        "--keys",
        "b",
    ];
    let (ok, table, err) = intruder(&base);
    assert!(ok, "{err}");
    assert!(
        table.starts_with("intruder attack — nearest on "),
        "{table}"
    );
    assert!(
        table.contains("reported by the attack:\n  intruder_records_used"),
        "{table}"
    );
    let (ok, csv, _) = intruder(&[&base[..], &["--format", "csv"]].concat());
    assert!(ok);
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 2, "{csv}");
    let header: Vec<&str> = lines[0].split(',').collect();
    let values: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(
        &header[..4],
        &["method", "intruder_records", "released_records", "twins"]
    );
    assert_eq!(&values[..4], &["nearest", "3", "4", "3"]);
    let (ok, md, _) = intruder(&[&base[..], &["--format", "markdown"]].concat());
    assert!(ok);
    assert!(
        md.contains("| `twins` | 3 | intruder records whose person is in the released file |"),
        "{md}"
    );
    let (ok, js, _) = intruder(&[&base[..], &["--format", "json"]].concat());
    assert!(ok);
    let v = json(&js);
    let twins_col = header.iter().position(|h| *h == "correct_matches").unwrap();
    assert_eq!(v["correct_matches"].to_string(), values[twins_col]);
    assert_eq!(v["config"]["top_k"], 5);
    assert!(v["version"].is_string() && v["notes"].is_array() && v["pr_curve"].is_array());
}

#[test]
fn outputs_never_overwrite_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let (i, r) = schema_files(dir.path());
    let before = std::fs::read(&i).unwrap();
    let schema = dir.path().join("r.schema.toml");
    for (flag, target) in [
        ("--out", i.clone()),
        ("--per-record", r.clone()),
        ("--out", schema.to_str().unwrap().to_string()),
    ] {
        let (ok, _, err) = intruder(&[
            "--intruder",
            &i,
            "--released",
            &r,
            "--missing-tokens",
            "?",
            flag,
            &target,
        ]);
        assert!(!ok, "{flag} {target}");
        assert!(
            err.contains(&format!("{flag} {target}: this is an input file")),
            "{err}"
        );
    }
    assert_eq!(std::fs::read(&i).unwrap(), before);
    // A fitted-model output asked of an attack without a model.
    let out = dir.path().join("m.json");
    let (ok, _, err) = intruder(&[
        "--intruder",
        &i,
        "--released",
        &r,
        "--model-out",
        out.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("need an attack that fits a model"), "{err}");
    assert!(!out.exists());
}

/// `--per-record x.parquet` writes Parquet (not CSV under that name) with the cells of the CSV:
/// example E's file, with and without a sensitive variable (empty `p` and `r` as nulls).
#[test]
fn per_record_parquet_holds_the_csv_cells() {
    let dir = tempfile::tempdir().unwrap();
    let r = write(
        dir.path(),
        "wave2.csv",
        "hid,area,bedrooms,wealth\nh1,2,5,14800\nh2,1,3,12200\nh3,2,5,15000\nh4,3,5,18600\nh5,3,2,12100\nh6,2,4,16800\nh7,2,4,18000\nh8,2,5,12500\nh9,1,6,25000\n",
    );
    let i = write(
        dir.path(),
        "intruder.csv",
        "person,area,bedrooms,true_wealth\nh3,2,5,15000\nh9,1,6,25000\nh0,7,7,1\n",
    );
    for sensitive in [
        &["--sensitive", "wealth", "--sensitive-truth", "true_wealth"][..],
        &[],
    ] {
        let run = |out: &Path| {
            let mut args = vec![
                "--intruder",
                i.to_str().unwrap(),
                "--released",
                r.to_str().unwrap(),
                "--keys",
                "area,bedrooms",
                "--method",
                "exact",
                "--truth-intruder",
                "person",
                "--truth-released",
                "hid",
                "--seed",
                "3",
                "--per-record",
                out.to_str().unwrap(),
            ];
            args.extend_from_slice(sensitive);
            let (ok, _, err) = intruder(&args);
            (ok, err)
        };
        let (csv, pq) = (dir.path().join("per.csv"), dir.path().join("per.parquet"));
        let (ok, err) = run(&csv);
        assert!(ok, "{err}");
        let (ok, err) = run(&pq);
        if !ok {
            assert!(err.contains("not compiled in"), "{err}");
            assert!(!pq.exists());
            return;
        }
        assert!(std::fs::read(&pq).unwrap().starts_with(b"PAR1"));
        let text = std::fs::read_to_string(&csv).unwrap();
        assert_eq!(text.lines().count(), 4, "{text}");
        assert_eq!(cells_of(&pq), cells_of(&csv), "{sensitive:?}");
        assert!(text.starts_with("intruder_row,twin_row,candidates,best_ties,best_score,chosen_row,correct,twin_rank,p,r\n"));
    }
}

/// Keys that the Parquet files' columns (read from their footers) lack, or that are a file's
/// truth, are refused before either table is read: the released file's unreadable column (a
/// value its schema's categories lack) is never reached — it was, after both files had been
/// read.
#[test]
fn keys_the_parquet_footers_lack_are_refused_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(dir.path(), "d.csv", "id,a,b\n1,x,1\n2,y,2\n3,x,1\n4,y,2\n");
    let pq = |name: &str| {
        let ds = intruder_data::load(&csv, &intruder_data::Input::default()).unwrap();
        let p = dir.path().join(name);
        ds.write_file(&p).is_ok().then_some(p)
    };
    let (Some(i), Some(r)) = (pq("i.parquet"), pq("r.parquet")) else {
        return; // built without Parquet support
    };
    let schema = write(
        dir.path(),
        "s.toml",
        "[columns.a]\ntype = \"categorical\"\ncategories = [\"x\"]\n",
    );
    let run = |keys: &str| {
        let (ok, _, err) = intruder(&[
            "--intruder",
            i.to_str().unwrap(),
            "--released",
            r.to_str().unwrap(),
            "--released-schema",
            schema.to_str().unwrap(),
            "--truth",
            "id",
            "--method",
            "exact",
            "--set",
            &format!("keys={keys}"),
        ]);
        assert!(!ok);
        err
    };
    // The released file cannot be read: the categories lack 'y'.
    assert!(run("a,b").contains("'y'"));
    for (keys, problem) in [
        ("a,zz", "no column named 'zz'"),
        ("a,id", "(it is the intruder's file's truth)"),
    ] {
        let err = run(keys);
        assert!(
            err.contains(problem) && !err.contains("'y'"),
            "{keys}: {err}"
        );
    }
}
