//! `intruder attack` end to end: the built binary on small files with known answers.

use std::path::Path;
use std::process::Command;

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

/// METHODS.md example E (Mitra Fig. 2) through the CLI, with renamed keys and a separate truth
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
    a.extend(["--format", "table"]);
    let (ok, out, _) = intruder(&a);
    assert!(ok);
    assert!(
        out.contains("correct-match rate")
            && out.contains("100.0%")
            && out.contains("share of twins"),
        "{out}"
    );
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
        err.contains("unknown attack method 'fs'") && err.contains("exact, nearest"),
        "{err}"
    );
}
