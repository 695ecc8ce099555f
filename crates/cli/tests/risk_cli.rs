//! `intruder risk` end to end: worked examples, the sdcMicro data sets, and one test per kind of
//! bad input (each must be a clear error naming the file, line and column, never a panic).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::cells_of;
use intruder_data::{Column, Role};

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(p)
}

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

/// Runs and expects failure with exit code 2 and every needle in stderr; no panic.
fn fails(args: &[&str], needles: &[&str]) {
    let out = intruder(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "expected exit 2, stderr: {err}");
    assert!(!err.contains("panicked"), "panic: {err}");
    for n in needles {
        assert!(err.contains(n), "missing {n:?} in: {err}");
    }
}

fn temp_file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> String {
    let p = dir.path().join(name);
    std::fs::File::create(&p).unwrap().write_all(bytes).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn workplace_survey_json_has_the_documented_fields() {
    let f = repo("data/examples/workplace-survey.csv");
    let v = json(&[
        "risk",
        "--data",
        f.to_str().unwrap(),
        "--keys",
        "Gender,AgeGrp,EthnicGrp",
        "--sensitive",
        "Unionize",
        "--population-size",
        "150",
    ]);
    for field in [
        "n_total",
        "n_deleted",
        "n",
        "sample_uniques",
        "k_le_5",
        "k_le_10",
        "pr_su_new",
        "pr_su_full",
        "min_k",
        "classes",
        "pairs",
        "theta",
        "l_distinct_min",
        "l_entropy_min",
    ] {
        assert!(v.get(field).is_some(), "missing field {field}");
    }
    assert_eq!(v["n_total"], 15);
    assert_eq!(v["sample_uniques"], 3);
    assert_eq!(v["k_le_5"], 15);
    assert_eq!(v["min_k"], 1);
    assert_eq!(v["classes"], 8);
    assert_eq!(v["pairs"], 3);
    assert_eq!(v["l_distinct_min"], 1);
    // π = 0.1: θ = 0.3 / (0.3 + 2·0.9·3)
    let theta = v["theta"].as_f64().unwrap();
    assert!((theta - 0.3 / (0.3 + 5.4)).abs() < 1e-12);
}

#[test]
fn schema_declares_the_keys() {
    let v = json(&[
        "risk",
        "--data",
        repo("data/examples/workplace-survey.csv").to_str().unwrap(),
        "--schema",
        repo("data/examples/workplace-survey.schema.toml")
            .to_str()
            .unwrap(),
    ]);
    assert_eq!(
        v["keys"],
        serde_json::json!(["Gender", "AgeGrp", "EthnicGrp"])
    );
    assert_eq!(v["sample_uniques"], 3);
}

#[test]
fn mulder_table_2_wildcard_and_per_record_output() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "t2.csv",
        b"age,gender\n40,M\n36,F\n.,M\n40,.\n23,M\n23,M\n",
    );
    let out = dir.path().join("per.csv");
    let v = json(&[
        "risk",
        "--data",
        &f,
        "--keys",
        "age,gender",
        "--missing",
        "wildcard",
        "--per-record",
        out.to_str().unwrap(),
    ]);
    assert_eq!(v["n_total"], 6);
    assert_eq!(v["n_match_1"], 1);
    assert_eq!(v["n_match_le_5"], 6);
    assert_eq!(v["n_match_le_10"], 6);
    assert!((v["pr_su"].as_f64().unwrap() - 1.0 / 6.0).abs() < 1e-15);
    let text = std::fs::read_to_string(&out).unwrap();
    let expected = "row,k,n_match,individual_risk\n1,1,3,0.3333333333333333\n2,1,1,1\n3,,5,0.2\n4,,3,0.3333333333333333\n5,2,3,0.3333333333333333\n6,2,3,0.3333333333333333\n";
    assert_eq!(text, expected);
}

#[test]
fn weights_give_individual_and_global_risk() {
    let f = repo("data/sdcmicro/francdat.csv");
    let v = json(&[
        "risk",
        "--data",
        f.to_str().unwrap(),
        "--keys",
        "Key1,Key2,Key3,Key4",
        "--weight",
        "w",
    ]);
    let e = v["expected_reidentifications"].as_f64().unwrap();
    let g = v["global_risk"].as_f64().unwrap();
    assert!((g - e / 8.0).abs() < 1e-12);
    // Record 7 (Key1 = 6) is unique with weight 5: p = 1/5 → (1/4)·ln 5.
    assert!((v["max_individual_risk"].as_f64().unwrap() - 5f64.ln() / 4.0).abs() < 1e-12);
}

#[test]
fn the_sdcmicro_data_sets_load_and_run() {
    let cases: &[(&str, &[&str])] = &[
        (
            "francdat.csv",
            &["--keys", "Key1,Key2,Key3,Key4", "--weight", "w"],
        ),
        (
            "testdata.csv",
            &[
                "--keys",
                "urbrur,roof,walls,water,electcon,relat,sex",
                "--weight",
                "sampling_weight",
                "--group",
                "ori_hid",
            ],
        ),
        (
            "testdata2.csv",
            &[
                "--keys",
                "urbrur,roof,walls,water,electcon,relat,sex",
                "--weight",
                "sampling_weight",
            ],
        ),
        (
            "free1.csv",
            &[
                "--keys",
                "REGION,SEX,AGE,MARSTAT,KINDPERS,NUMYOUNG,NUMOLD",
                "--weight",
                "WEIGHT",
            ],
        ),
        ("casc1.csv", &["--keys", "1,2,3"]),
        ("microData.csv", &["--keys", "one,two"]),
    ];
    for (file, extra) in cases {
        for policy in ["listwise", "as-value", "wildcard"] {
            let f = repo(&format!("data/sdcmicro/{file}"));
            let mut args = vec!["risk", "--data", f.to_str().unwrap(), "--missing", policy];
            args.extend_from_slice(extra);
            let v = json(&args);
            let n = v["n_total"].as_u64().unwrap();
            assert!(n > 0, "{file}");
            if policy == "wildcard" {
                assert!(v["n_match_1"].as_u64().unwrap() <= n);
            } else {
                assert!(v["sample_uniques"].as_u64().unwrap() <= v["n"].as_u64().unwrap());
            }
        }
    }
    // testdata: 4,580 records in households.
    let f = repo("data/sdcmicro/testdata.csv");
    let v = json(&[
        "risk",
        "--data",
        f.to_str().unwrap(),
        "--keys",
        "urbrur,roof,walls,water,electcon,relat,sex",
        "--weight",
        "sampling_weight",
        "--group",
        "ori_hid",
    ]);
    assert_eq!(v["n_total"], 4580);
    assert!(
        v["household_expected_reidentifications"].as_f64().unwrap()
            >= v["expected_reidentifications"].as_f64().unwrap()
    );
}

#[test]
fn gzip_input_equals_plain_input() {
    let dir = tempfile::tempdir().unwrap();
    let plain = std::fs::read(repo("data/examples/workplace-survey.csv")).unwrap();
    let mut gz = flate2_free_gzip(&plain);
    let f = temp_file(&dir, "w.csv.gz", &std::mem::take(&mut gz));
    // The schema beside the file, as beside the plain one (`x.schema.toml` for `x.csv.gz`).
    let schema = std::fs::read(repo("data/examples/workplace-survey.schema.toml")).unwrap();
    temp_file(&dir, "w.schema.toml", &schema);
    let a = json(&["risk", "--data", &f, "--keys", "Gender,AgeGrp,EthnicGrp"]);
    let b = json(&[
        "risk",
        "--data",
        repo("data/examples/workplace-survey.csv").to_str().unwrap(),
        "--keys",
        "Gender,AgeGrp,EthnicGrp",
    ]);
    assert_eq!(a, b);
}

/// A gzip member with stored (uncompressed) deflate blocks, written by hand so the test needs no
/// compression crate.
fn flate2_free_gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    let chunks: Vec<&[u8]> = data.chunks(65535).collect();
    for (i, c) in chunks.iter().enumerate() {
        out.push(u8::from(i + 1 == chunks.len()));
        out.extend_from_slice(&(c.len() as u16).to_le_bytes());
        out.extend_from_slice(&(!(c.len() as u16)).to_le_bytes());
        out.extend_from_slice(c);
    }
    let mut crc = 0xffff_ffffu32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    out.extend_from_slice(&(!crc).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

#[test]
fn bad_input_ragged_row() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "ragged.csv", b"a,b\n1,2\n3\n4,5\n");
    fails(
        &["risk", "--data", &f, "--keys", "a,b"],
        &["ragged.csv:3", "expected 2 fields", "found 1"],
    );
}

#[test]
fn bad_input_invalid_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "latin1.csv", b"name,b\nok,1\nM\xfcller,2\n");
    fails(
        &["risk", "--data", &f, "--keys", "name,b"],
        &["latin1.csv:3", "column 'name' (1)", "invalid UTF-8"],
    );
}

#[test]
fn bad_input_unknown_key_column() {
    let f = repo("data/examples/workplace-survey.csv");
    fails(
        &[
            "risk",
            "--data",
            f.to_str().unwrap(),
            "--keys",
            "Gender,Agegrp",
        ],
        &[
            "workplace-survey.csv",
            "no column named 'Agegrp'",
            "did you mean 'AgeGrp'",
            "the columns are: ID, Gender",
        ],
    );
}

#[test]
fn bad_input_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "empty.csv", b"");
    fails(
        &["risk", "--data", &f, "--keys", "a"],
        &["empty.csv", "the file is empty", "header row"],
    );
    let f = temp_file(&dir, "header-only.csv", b"a,b\n");
    fails(
        &["risk", "--data", &f, "--keys", "a"],
        &["header-only.csv", "no records"],
    );
}

#[test]
fn bad_input_key_entirely_missing() {
    // A key blanked in every record (local suppression can do it) is counted as it stands and
    // warned about by name: listwise leaves every record out, wildcard matches every record.
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "allna.csv", b"a,b\n1,NA\n2,\n3,.\n");
    for (missing, field, value) in [
        ("listwise", "n", 0),
        ("as-value", "sample_uniques", 3),
        ("wildcard", "n_match_1", 3),
    ] {
        let out = intruder(&[
            "risk",
            "--data",
            &f,
            "--keys",
            "a,b",
            "--missing",
            missing,
            "--format",
            "json",
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(
            err.contains("warning:")
                && err.contains("allna.csv")
                && err.contains("key column 'b' has no observed value"),
            "{err}"
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v[field], value, "{missing}: {v}");
    }
}

#[test]
fn bad_input_negative_weight() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "negw.csv", b"a,w\n1,2.5\n2,-1\n");
    fails(
        &["risk", "--data", &f, "--keys", "a", "--weight", "w"],
        &["negw.csv:3", "column 'w' (2)", "'-1' is not positive"],
    );
}

#[test]
fn bad_input_weight_not_a_number() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(&dir, "textw.csv", b"a,w\n1,2.5\n2,heavy\n");
    fails(
        &["risk", "--data", &f, "--keys", "a", "--weight", "w"],
        &[
            "textw.csv:3",
            "column 'w' (2)",
            "expected a weight",
            "'heavy'",
        ],
    );
    let f = temp_file(&dir, "nanw.csv", b"a,w\n1,NaN\n");
    fails(
        &["risk", "--data", &f, "--keys", "a", "--weight", "w"],
        &["nanw.csv:2", "finite number"],
    );
    let f = temp_file(&dir, "missw.csv", b"a,w\n1,\n");
    fails(
        &["risk", "--data", &f, "--keys", "a", "--weight", "w"],
        &["missw.csv", "record 1 has no weight"],
    );
}

#[test]
fn bad_input_schema_problems_are_all_listed() {
    let dir = tempfile::tempdir().unwrap();
    let s = temp_file(
        &dir,
        "bad.toml",
        b"[columns.Gender]\ntype = \"text\"\n[columns.Nope]\nrole = \"key\"\n",
    );
    let f = repo("data/examples/workplace-survey.csv");
    fails(
        &[
            "risk",
            "--data",
            f.to_str().unwrap(),
            "--schema",
            &s,
            "--keys",
            "Gender",
        ],
        &["bad.toml", "unknown type 'text'"],
    );
    let s = temp_file(&dir, "absent.toml", b"[columns.Nope]\nrole = \"key\"\n");
    fails(
        &["risk", "--data", f.to_str().unwrap(), "--schema", &s],
        &["columns.Nope: the file has no such column"],
    );
}

#[test]
fn bad_input_undeclared_category_and_bad_integer() {
    let dir = tempfile::tempdir().unwrap();
    let s = temp_file(&dir, "s.toml", b"[columns.g]\ntype = \"categorical\"\ncategories = [\"M\", \"F\"]\n[columns.n]\ntype = \"integer\"\n");
    let f = temp_file(&dir, "d.csv", b"g,n\nM,1\nX,2\n");
    fails(
        &["risk", "--data", &f, "--schema", &s, "--keys", "g"],
        &[
            "d.csv:3",
            "column 'g' (1)",
            "'X' is not one of the declared categories [M, F]",
        ],
    );
    let f = temp_file(&dir, "e.csv", b"g,n\nM,1\nF,two\n");
    fails(
        &["risk", "--data", &f, "--schema", &s, "--keys", "g"],
        &[
            "e.csv:3",
            "column 'n' (2)",
            "expected an integer, found 'two'",
        ],
    );
}

#[test]
fn missing_file_and_no_keys() {
    fails(
        &["risk", "--data", "/nonexistent/x.csv", "--keys", "a"],
        &["/nonexistent/x.csv", "No such file"],
    );
    // Without a schema beside it (the shipped one declares the keys) and without --keys.
    let dir = tempfile::tempdir().unwrap();
    let plain = std::fs::read(repo("data/examples/workplace-survey.csv")).unwrap();
    let f = temp_file(&dir, "w.csv", &plain);
    fails(&["risk", "--data", &f], &["no key variables"]);
    // With the shipped schema beside the data, its keys are used.
    let f = repo("data/examples/workplace-survey.csv");
    let v = json(&["risk", "--data", f.to_str().unwrap()]);
    assert_eq!(
        v["keys"],
        serde_json::json!(["Gender", "AgeGrp", "EthnicGrp"])
    );
}

#[test]
fn table_and_csv_formats() {
    let f = repo("data/examples/workplace-survey.csv");
    let out = intruder(&[
        "risk",
        "--data",
        f.to_str().unwrap(),
        "--keys",
        "Gender,AgeGrp,EthnicGrp",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("sample_uniques") && text.contains("records alone in their class (k = 1)"),
        "{text}"
    );
    let out = intruder(&[
        "risk",
        "--data",
        f.to_str().unwrap(),
        "--keys",
        "Gender,AgeGrp,EthnicGrp",
        "--format",
        "csv",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let values: Vec<&str> = lines.next().unwrap().split(',').collect();
    let i = header.iter().position(|h| *h == "sample_uniques").unwrap();
    assert_eq!(values[i], "3");
}

/// Keys a, b: classes (1,x) = rows 1–2, (1,y) = row 3, (2,y) = row 4; weights w 10, 20, 5, 8
/// and w1 all 1; households {1, 2}, {3}, {4}; sensitive s: Y N | Y | Y.
const ROLES_CSV: &str = "a,b,w,w1,hh,s\n1,x,10,1,1,Y\n1,x,20,1,1,N\n1,y,5,1,2,Y\n2,y,8,1,3,Y\n";
const ROLES_SCHEMA: &str = "[columns.a]\nrole = \"key\"\n[columns.b]\nrole = \"key\"\n[columns.w]\nrole = \"weight\"\n[columns.hh]\nrole = \"group\"\n[columns.s]\nrole = \"sensitive\"\n";

/// The data with its schema beside it (`roles.schema.toml`), and the same data without one.
fn roles_files(dir: &tempfile::TempDir) -> (String, String) {
    temp_file(dir, "roles.schema.toml", ROLES_SCHEMA.as_bytes());
    let with = temp_file(dir, "roles.csv", ROLES_CSV.as_bytes());
    let plain = temp_file(dir, "plain.csv", ROLES_CSV.as_bytes());
    (with, plain)
}

/// Benedetti–Franconi individual risks of ROLES_CSV with weight w: (f, F) = (2, 30), (1, 5),
/// (1, 8).
fn roles_risks() -> [f64; 4] {
    let p: f64 = 2.0 / 30.0;
    let odds = p / (1.0 - p);
    let pair = odds - odds * odds * (1.0 / p).ln();
    let one = |big: f64| {
        let p = 1.0 / big;
        p / (1.0 - p) * (1.0 / p).ln()
    };
    [pair, pair, one(5.0), one(8.0)]
}

fn close(v: &serde_json::Value, expected: f64) {
    let x = v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"));
    assert!((x - expected).abs() < 1e-12, "{x} vs {expected}");
}

#[test]
fn schema_roles_give_individual_household_and_l_diversity_without_flags() {
    let dir = tempfile::tempdir().unwrap();
    let (with, plain) = roles_files(&dir);
    let v = json(&["risk", "--data", &with]);
    assert_eq!(v["keys"], serde_json::json!(["a", "b"]));
    assert_eq!(v["sample_uniques"], 2);
    let r = roles_risks();
    close(&v["expected_reidentifications"], r.iter().sum());
    close(&v["max_individual_risk"], r[2]);
    let hh1 = 1.0 - (1.0 - r[0]) * (1.0 - r[1]);
    close(
        &v["household_expected_reidentifications"],
        2.0 * hh1 + r[2] + r[3],
    );
    assert_eq!(v["l_distinct_min"], 1);
    // Exactly what the flags give on the same data without a schema.
    let flags = json(&[
        "risk",
        "--data",
        &plain,
        "--keys",
        "a,b",
        "--weight",
        "w",
        "--group",
        "hh",
        "--sensitive",
        "s",
    ]);
    assert_eq!(v, flags);
    // `--schema` names the schema of a file that has none beside it.
    let schema = dir.path().join("roles.schema.toml");
    let named = json(&[
        "risk",
        "--data",
        &plain,
        "--schema",
        schema.to_str().unwrap(),
    ]);
    assert_eq!(named, flags);
}

#[test]
fn a_flag_overrides_the_schema_role() {
    let dir = tempfile::tempdir().unwrap();
    let (with, _) = roles_files(&dir);
    // Weights of 1: no population beyond the sample, so r = 1/f_k: ½ + ½ + 1 + 1.
    let v = json(&["risk", "--data", &with, "--weight", "w1"]);
    close(&v["expected_reidentifications"], 3.0);
    let v = json(&["risk", "--data", &with, "--keys", "a"]);
    assert_eq!(v["keys"], serde_json::json!(["a"]));
    assert_eq!(v["sample_uniques"], 1);
}

#[test]
fn population_takes_the_schema_weight() {
    let dir = tempfile::tempdir().unwrap();
    let (with, plain) = roles_files(&dir);
    // π = n / Σw = 4 / 43.
    let v = json(&["risk", "--data", &with, "--measure", "population"]);
    close(&v["sampling_fraction"], 4.0 / 43.0);
    let v = json(&[
        "risk",
        "--data",
        &with,
        "--method",
        "population",
        "--weight",
        "w1",
    ]);
    close(&v["sampling_fraction"], 1.0);
    fails(
        &[
            "risk",
            "--data",
            &plain,
            "--keys",
            "a,b",
            "--measure",
            "population",
        ],
        &["population_size", "--population-size", "--weight"],
    );
}

#[test]
fn household_and_l_diversity_measures_write_their_per_record_columns() {
    let dir = tempfile::tempdir().unwrap();
    let (with, _) = roles_files(&dir);
    let out = dir.path().join("hh.csv");
    let v = json(&[
        "risk",
        "--data",
        &with,
        "--measure",
        "household",
        "--weight",
        "w1",
        "--per-record",
        out.to_str().unwrap(),
    ]);
    assert_eq!(v["households"], 3);
    close(&v["household_global_risk"], (0.75 * 2.0 + 2.0) / 4.0);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "row,k,individual_risk,household_risk\n1,2,0.5,0.75\n2,2,0.5,0.75\n3,1,1,1\n4,1,1,1\n"
    );
    let v = json(&[
        "risk",
        "--data",
        &with,
        "--measure",
        "l-diversity",
        "--per-record",
        out.to_str().unwrap(),
    ]);
    assert_eq!(v["classes_l_distinct_1"], 2);
    assert_eq!(v["records_l_distinct_1"], 2);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        // l_entropy: the (1,x) class holds two values once each, exp(ln 2) = 2.
        "row,k,l_distinct,l_entropy\n1,2,2,2\n2,2,2,2\n3,1,1,1\n4,1,1,1\n"
    );
}

#[test]
fn per_record_over_an_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (with, _) = roles_files(&dir);
    fails(
        &["risk", "--data", &with, "--per-record", &with],
        &["--per-record", "this is an input file"],
    );
    assert_eq!(std::fs::read_to_string(&with).unwrap(), ROLES_CSV);
    let schema = dir.path().join("roles.schema.toml");
    fails(
        &[
            "risk",
            "--data",
            &with,
            "--per-record",
            schema.to_str().unwrap(),
        ],
        &["this is an input file"],
    );
    fails(
        &["risk", "--data", &with, "--out", &with],
        &["--out", "this is an input file"],
    );
    assert_eq!(std::fs::read_to_string(&schema).unwrap(), ROLES_SCHEMA);
}

#[test]
fn parameter_problems_are_listed_at_once_with_a_did_you_mean() {
    let dir = tempfile::tempdir().unwrap();
    let (with, _) = roles_files(&dir);
    fails(
        &[
            "risk",
            "--data",
            &with,
            "--measure",
            "suda2",
            "--max-msu-size",
            "0",
            "--set",
            "dis_fracton=0.5",
            "--missing",
            "listwse",
        ],
        &[
            "intruder risk: 3 problems",
            "missing: unknown value 'listwse' (did you mean 'listwise'?)",
            "max_msu_size: expected a value ≥ 1, found 0",
            "dis_fracton: unknown key (did you mean 'dis_fraction'?)",
        ],
    );
    fails(
        &["risk", "--data", &with, "--measure", "sdua2"],
        &["unknown risk measure 'sdua2' (did you mean 'suda2'?)"],
    );
    fails(
        &["risk", "--data", &with, "--keys", "a", "--set", "keys=b"],
        &["'keys' is given both as --keys and with --set keys="],
    );
    fails(
        &["risk", "--data", &with, "--keys", "a,bb"],
        &["no column named 'bb'"],
    );
    // A parameter the measure does not take is an error, not silently ignored.
    fails(
        &[
            "risk",
            "--data",
            &with,
            "--measure",
            "suda2",
            "--population-size",
            "9",
        ],
        &["population_size: unknown key"],
    );
}

#[test]
fn list_shows_every_measure_and_its_parameters() {
    let out = intruder(&["risk", "--list"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "frequency",
        "individual",
        "household",
        "l-diversity",
        "t-closeness",
        "suda2",
        "population",
        "max_msu_size",
        "drop_msus_with_missing",
        "unique_threshold",
        "default: the weight columns of the schema",
    ] {
        assert!(text.contains(needle), "{needle} in {text}");
    }
}

#[test]
fn the_workplace_schema_declares_the_sensitive_column_too() {
    let f = repo("data/examples/workplace-survey.csv");
    let s = repo("data/examples/workplace-survey.schema.toml");
    let by_schema = json(&[
        "risk",
        "--data",
        f.to_str().unwrap(),
        "--schema",
        s.to_str().unwrap(),
    ]);
    let by_flags = json(&[
        "risk",
        "--data",
        f.to_str().unwrap(),
        "--keys",
        "Gender,AgeGrp,EthnicGrp",
        "--sensitive",
        "Unionize",
    ]);
    assert_eq!(by_schema, by_flags);
    assert_eq!(by_schema["l_distinct_min"], 1);
}

#[test]
fn t_closeness_from_the_command_line() {
    // Classes of a: {Y, N} and {Y, Y}; the file's s: Y 3, N 1 (equal distance, s is text).
    // a = 1: p = (½, ½) against q = (¾, ¼): ½(¼ + ¼) = ¼; a = 2: p = (1, 0): ½(¼ + ¼) = ¼.
    let dir = tempfile::tempdir().unwrap();
    let data = temp_file(&dir, "t.csv", b"a,s\n1,Y\n1,N\n2,Y\n2,Y\n");
    let out = dir.path().join("emd.csv");
    let v = json(&[
        "risk",
        "--data",
        &data,
        "--keys",
        "a",
        "--measure",
        "t-closeness",
        "--sensitive",
        "s",
        "--set",
        "t=0.2",
        "--per-record",
        out.to_str().unwrap(),
    ]);
    close(&v["t_max"], 0.25);
    assert_eq!(v["distance"], "equal");
    assert_eq!(v["classes_above_t"], 2);
    assert_eq!(v["records_above_t"], 4);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        "row,k,emd,above_t\n1,2,0.25,1\n2,2,0.25,1\n3,2,0.25,1\n4,2,0.25,1\n"
    );
    fails(
        &[
            "risk",
            "--data",
            &data,
            "--keys",
            "a",
            "--measure",
            "t-closeness",
            "--sensitive",
            "s",
            "--set",
            "t=1.5",
        ],
        &["t: expected a value"],
    );
}

/// testdata with holes: roof missing in every 7th record, sex in every 11th.
fn testdata_with_holes(dir: &tempfile::TempDir) -> String {
    let text = std::fs::read_to_string(repo("data/sdcmicro/testdata.csv")).unwrap();
    let mut holes = String::new();
    for (i, line) in text.lines().enumerate() {
        let mut f: Vec<&str> = line.split(',').collect();
        if i > 0 && i % 7 == 0 {
            f[1] = "";
        }
        if i > 0 && i % 11 == 0 {
            f[6] = "NA";
        }
        holes += &(f.join(",") + "\n");
    }
    temp_file(dir, "holes.csv", holes.as_bytes())
}

/// A CSV file's integer keys are counted from the reader's chunks (no integer columns, no
/// encoding phase in `--timings`) with the report the table gives (`--per-record` reads the
/// table), wildcard matching (with sdcMicro's alpha too) and weighted individual risk from the
/// chunks' codes made whole, with the weight column the reader made (integer or fractional).
#[test]
fn csv_keys_from_the_readers_chunks_give_the_tables_report() {
    let dir = tempfile::tempdir().unwrap();
    let holes = testdata_with_holes(&dir);
    let testdata = repo("data/sdcmicro/testdata.csv");
    // testdata with fractional weights: sampling_weight + (record mod 4) / 4.
    let weighted = {
        let text = std::fs::read_to_string(&testdata).unwrap();
        let mut out = String::new();
        for (i, line) in text.lines().enumerate() {
            let mut f: Vec<String> = line.split(',').map(str::to_string).collect();
            if i > 0 {
                let w: f64 = f[13].parse().unwrap();
                f[13] = format!("{}", w + (i % 4) as f64 / 4.0);
            }
            out += &(f.join(",") + "\n");
        }
        temp_file(&dir, "weighted.csv", out.as_bytes())
    };
    let free1 = repo("data/sdcmicro/free1.csv");
    for (csv, keys) in [
        (
            testdata.to_str().unwrap(),
            "urbrur,roof,walls,water,electcon,relat,sex",
        ),
        (
            free1.to_str().unwrap(),
            "REGION,SEX,AGE,MARSTAT,KINDPERS,NUMYOUNG,NUMOLD",
        ),
        (holes.as_str(), "urbrur,roof,walls,water,electcon,relat,sex"),
        (
            weighted.as_str(),
            "urbrur,roof,walls,water,electcon,relat,sex",
        ),
    ] {
        for extra in [
            &["--missing", "listwise"][..],
            &["--missing", "as-value"],
            &["--measure", "individual"],
            &["--missing", "wildcard"],
            &[
                "--missing",
                "wildcard",
                "--measure",
                "individual",
                "--set",
                "alpha=0.5",
            ],
            &[
                "--missing",
                "wildcard",
                "--measure",
                "individual",
                "--weight",
                "sampling_weight",
            ],
            &["--measure", "individual", "--weight", "sampling_weight"],
            &[
                "--missing",
                "as-value",
                "--measure",
                "individual",
                "--weight",
                "sampling_weight",
            ],
        ] {
            if extra.contains(&"sampling_weight")
                && !csv.ends_with("testdata.csv")
                && csv != weighted
            {
                continue;
            }
            let run = |per_record: Option<&str>| {
                let mut args = vec!["risk", "--data", csv, "--keys", keys, "--timings"];
                args.extend_from_slice(extra);
                args.extend(["--format", "json"]);
                if let Some(out) = per_record {
                    args.extend(["--per-record", out]);
                }
                let out = intruder(&args);
                let err = String::from_utf8_lossy(&out.stderr).to_string();
                assert!(out.status.success(), "{csv} {extra:?}: {err}");
                (String::from_utf8_lossy(&out.stdout).to_string(), err)
            };
            let per_record = dir.path().join("per-record.csv");
            let (from_table, table_timings) = run(Some(per_record.to_str().unwrap()));
            let (from_chunks, timings) = run(None);
            assert_eq!(from_chunks, from_table, "{csv} {extra:?}");
            assert!(table_timings.contains("encode"), "{table_timings}");
            assert!(!timings.contains("encode"), "{csv} {extra:?}: {timings}");
        }
    }
    // A text key reads the table.
    let text_key = temp_file(&dir, "t.csv", b"a,b\nx,1\ny,2\nx,2\n");
    let (with_text, timings) = {
        let out = intruder(&["risk", "--data", &text_key, "--keys", "a,b", "--timings"]);
        assert!(out.status.success());
        (out.stdout, String::from_utf8_lossy(&out.stderr).to_string())
    };
    assert!(timings.contains("encode"), "{timings}");
    assert!(String::from_utf8_lossy(&with_text).contains("records"));
}

/// A bad weight in a CSV file whose keys are counted from the reader's chunks gives the
/// table's error: the same message with and without `--per-record` (which reads the table).
#[test]
fn a_bad_weight_from_the_readers_chunks_is_the_tables_error() {
    let dir = tempfile::tempdir().unwrap();
    for (bad, needle) in [
        (
            "-1.5",
            "w.csv:4: column 'w' (3): weight '-1.5' is not positive",
        ),
        (
            "",
            "w.csv: column 'w': record 3 has no weight; every record needs one",
        ),
        (
            "inf",
            "w.csv:4: column 'w' (3): expected a finite number, found 'inf'",
        ),
    ] {
        let text = format!("a,b,w\n1,2,1.5\n1,3,2.5\n2,2,{bad}\n2,3,4.5\n");
        let f = temp_file(&dir, "w.csv", text.as_bytes());
        let per_record = dir.path().join("per-record.csv");
        let run = |extra: &[&str]| {
            let mut args = vec!["risk", "--data", &f, "--keys", "a,b", "--measure"];
            args.extend(["individual", "--weight", "w"]);
            args.extend_from_slice(extra);
            let out = intruder(&args);
            assert_eq!(out.status.code(), Some(2), "{bad}");
            String::from_utf8_lossy(&out.stderr).to_string()
        };
        let from_chunks = run(&[]);
        assert!(from_chunks.contains(needle), "{from_chunks}");
        assert_eq!(
            from_chunks,
            run(&["--per-record", per_record.to_str().unwrap()])
        );
        assert!(!per_record.exists());
    }
    // A Parquet file's weight column is read whole beside its keys: a bad weight gives the
    // table reader's error, with and without --per-record.
    let ds = intruder_data::Dataset::split_truth(
        "w.parquet",
        vec![
            Column::integer("a", Role::Key, &[Some(1), Some(1), Some(2), Some(2)]),
            Column::integer("b", Role::Key, &[Some(2), Some(3), Some(2), Some(3)]),
            Column::float(
                "w",
                Role::Other,
                &[Some(1.5), Some(2.5), Some(-1.5), Some(4.5)],
            ),
        ],
    )
    .unwrap();
    let pq = dir.path().join("w.parquet");
    if ds.write_file(&pq).is_err() {
        return; // built without Parquet support
    }
    let per_record = dir.path().join("per-record.csv");
    let run = |extra: &[&str]| {
        let mut args = vec!["risk", "--data", pq.to_str().unwrap(), "--keys", "a,b"];
        args.extend(["--measure", "individual", "--weight", "w"]);
        args.extend_from_slice(extra);
        let out = intruder(&args);
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let from_keys = run(&[]);
    assert!(
        from_keys.contains("column 'w' (3): row 3: expected a finite number ≥ 0, found -1.5"),
        "{from_keys}"
    );
    assert_eq!(
        from_keys,
        run(&["--per-record", per_record.to_str().unwrap()])
    );
    assert!(!per_record.exists());
    // Parameters that the columns in the file's footer refuse are refused before the table is
    // read: the bad weight is never reached (it was, after the whole file had been read).
    for (args, problem) in [
        (
            &["--keys", "a,zz", "--measure", "individual"][..],
            "w.parquet: no column named 'zz'; the columns are: a, b, w",
        ),
        (
            &["--keys", "a,b", "--measure", "individuall"][..],
            "unknown risk measure 'individuall'",
        ),
        (
            &[
                "--keys",
                "a,b",
                "--measure",
                "frequency",
                "--k-anonymity",
                "x",
            ][..],
            "k_anonymity: expected a whole number ≥ 0, found the string \"x\"",
        ),
    ] {
        for extra in [&[][..], &["--per-record", per_record.to_str().unwrap()]] {
            let mut all = vec!["risk", "--data", pq.to_str().unwrap(), "--weight", "w"];
            all.extend_from_slice(args);
            all.extend_from_slice(extra);
            let out = intruder(&all);
            assert_eq!(out.status.code(), Some(2));
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(problem) && !err.contains("row 3"),
                "{all:?}: {err}"
            );
        }
    }
    assert!(!per_record.exists());
}

/// A Parquet copy of an sdcMicro data set with integer keys is measured from its key columns
/// alone, a row group at a time (no table: `--timings` shows no encoding phase; wildcard
/// matching and weighted individual risk from those codes made whole, with the weight column
/// read whole), with the same report as its CSV; per-record output and measures that need
/// more read the table.
#[test]
fn parquet_keys_alone_give_the_csv_report() {
    let dir = tempfile::tempdir().unwrap();
    let holes_csv = testdata_with_holes(&dir);
    for (file, keys) in [
        ("testdata.csv", "urbrur,roof,walls,water,electcon,relat,sex"),
        (
            "free1.csv",
            "REGION,SEX,AGE,MARSTAT,KINDPERS,NUMYOUNG,NUMOLD",
        ),
        ("holes.csv", "urbrur,roof,walls,water,electcon,relat,sex"),
    ] {
        let csv = if file == "holes.csv" {
            PathBuf::from(&holes_csv)
        } else {
            repo(&format!("data/sdcmicro/{file}"))
        };
        let pq = dir.path().join(file.replace(".csv", ".parquet"));
        let ds = intruder_data::load(&csv, &intruder_data::Input::default()).unwrap();
        if let Err(e) = ds.write_file(&pq) {
            // Built without Parquet support: the CLI says so too.
            assert!(e.to_string().contains("not compiled in"), "{e}");
            std::fs::write(&pq, b"PAR1garbage").unwrap();
            fails(
                &["risk", "--data", pq.to_str().unwrap(), "--keys", keys],
                &["not compiled in"],
            );
            return;
        }
        let (csv, pq) = (csv.to_str().unwrap(), pq.to_str().unwrap());
        for extra in [
            &["--missing", "listwise"][..],
            &["--missing", "as-value"],
            &["--measure", "individual"],
            &["--missing", "wildcard"],
            &["--measure", "individual", "--weight", "sampling_weight"],
            &[
                "--missing",
                "wildcard",
                "--measure",
                "individual",
                "--weight",
                "sampling_weight",
            ],
        ] {
            if extra.contains(&"sampling_weight") && file == "free1.csv" {
                continue;
            }
            let run = |data: &str| {
                let mut args = vec!["risk", "--data", data, "--keys", keys, "--timings"];
                args.extend_from_slice(extra);
                args.extend(["--format", "json"]);
                let out = intruder(&args);
                let err = String::from_utf8_lossy(&out.stderr).to_string();
                assert!(out.status.success(), "{file} {extra:?}: {err}");
                (out.stdout, err)
            };
            let (from_csv, csv_timings) = run(csv);
            let (from_pq, pq_timings) = run(pq);
            assert_eq!(
                String::from_utf8_lossy(&from_pq),
                String::from_utf8_lossy(&from_csv),
                "{file} {extra:?}"
            );
            for timings in [&csv_timings, &pq_timings] {
                assert!(!timings.contains("encode"), "{file} {extra:?}: {timings}");
            }
        }
        // Per-record figures need the table: the same file either way.
        let per_record = |data: &str, out: &Path| {
            let args = [
                "risk",
                "--data",
                data,
                "--keys",
                keys,
                "--per-record",
                out.to_str().unwrap(),
            ];
            assert!(intruder(&args).status.success());
            std::fs::read(out).unwrap()
        };
        assert_eq!(
            per_record(pq, &dir.path().join("pq.csv")),
            per_record(csv, &dir.path().join("csv.csv"))
        );
    }
}

/// A Parquet file whose keys are text (categorical or string columns, stored with dictionary
/// pages) is measured from its key columns alone too, each row group's dictionary mapped to the
/// file's codes (no encoding phase), with the report its CSV gives under the same schema.
#[test]
fn parquet_text_keys_alone_give_the_csv_report() {
    let dir = tempfile::tempdir().unwrap();
    let holes = testdata_with_holes(&dir);
    let keys = "urbrur,roof,walls,water,electcon,relat,sex";
    for (kind, csv) in [("categorical", holes.clone()), ("string", holes)] {
        let schema = dir.path().join(format!("{kind}.schema.toml"));
        let toml: String = keys
            .split(',')
            .map(|k| format!("[columns.{k}]\ntype = \"{kind}\"\n"))
            .collect();
        std::fs::write(&schema, toml).unwrap();
        let input = intruder_data::Input {
            schema: Some(schema.clone()),
            ..intruder_data::Input::default()
        };
        let ds = intruder_data::load(Path::new(&csv), &input).unwrap();
        let pq = dir.path().join(format!("{kind}.parquet"));
        if ds.write_file(&pq).is_err() {
            return; // built without Parquet support
        }
        let (schema, pq) = (schema.to_str().unwrap(), pq.to_str().unwrap());
        for extra in [
            &["--missing", "listwise"][..],
            &["--missing", "wildcard"],
            &["--measure", "individual", "--weight", "sampling_weight"],
        ] {
            let run = |data: &str| {
                let mut args = vec!["risk", "--data", data, "--schema", schema, "--keys", keys];
                args.extend(["--timings", "--format", "json"]);
                args.extend_from_slice(extra);
                let out = intruder(&args);
                let err = String::from_utf8_lossy(&out.stderr).to_string();
                assert!(out.status.success(), "{kind} {extra:?}: {err}");
                (String::from_utf8_lossy(&out.stdout).to_string(), err)
            };
            let (from_csv, _) = run(&csv);
            let (from_pq, pq_timings) = run(pq);
            assert_eq!(from_pq, from_csv, "{kind} {extra:?}");
            assert!(
                !pq_timings.contains("encode"),
                "{kind} {extra:?}: {pq_timings}"
            );
        }
    }
}

/// `--per-record x.parquet` writes Parquet (not CSV under that name) holding the CSV's figures,
/// missing cells as nulls; without Parquet support it is refused and nothing is written.
#[test]
fn per_record_parquet_holds_the_csv_figures() {
    let dir = tempfile::tempdir().unwrap();
    let f = temp_file(
        &dir,
        "t2.csv",
        b"age,gender\n40,M\n36,F\n.,M\n40,.\n23,M\n23,M\n",
    );
    let run = |out: &Path| {
        intruder(&[
            "risk",
            "--data",
            &f,
            "--keys",
            "age,gender",
            "--missing",
            "wildcard",
            "--per-record",
            out.to_str().unwrap(),
        ])
    };
    let (csv, pq) = (dir.path().join("per.csv"), dir.path().join("per.parquet"));
    assert!(run(&csv).status.success());
    let out = run(&pq);
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not compiled in"), "{err}");
        assert!(!pq.exists());
        return;
    }
    assert!(std::fs::read(&pq).unwrap().starts_with(b"PAR1"));
    assert_eq!(cells_of(&pq), std::fs::read_to_string(&csv).unwrap());
    assert_eq!(cells_of(&pq), cells_of(&csv));
}

/// Issue 38: SPSS, Stata and SAS files are read by content (feature `statfiles`): value labels
/// as categories, user-missing codes as missing, so a key with a "don't know" code is deleted
/// listwise as a missing cell; the codes of a SAS file are numbers.
#[cfg(feature = "statfiles")]
#[test]
fn statistical_files_are_read_as_statistical_packages_mean_them() {
    let fixtures = repo("crates/data/tests/fixtures/statfiles");
    for name in ["survey.sav", "survey.dta"] {
        let f = fixtures.join(name);
        let r = json(&[
            "risk",
            "--data",
            f.to_str().unwrap(),
            "--keys",
            "region,sex",
        ]);
        // Records 6 (user-missing region) and 12 (system-missing) are deleted listwise.
        assert_eq!(r["n_total"], 12, "{name}");
        assert_eq!(r["n_deleted"], 2, "{name}");
        // (4, Male) is unique; (North, Male) ×3, (South, Male) ×2, (East, Female) ×2,
        // (North, Female) ×1, (South, Female) ×1.
        assert_eq!(r["sample_uniques"], 3, "{name}: {r}");
    }
    let sas = fixtures.join("survey.sas7bdat");
    let r = json(&[
        "risk",
        "--data",
        sas.to_str().unwrap(),
        "--keys",
        "region,sex",
    ]);
    // The code 9 is a value here: one record more.
    assert_eq!(r["n_deleted"], 1);
}

/// Without the feature, a statistical file is refused with a message saying how to build.
#[cfg(not(feature = "statfiles"))]
#[test]
fn statistical_files_need_the_feature() {
    let f = repo("crates/data/tests/fixtures/statfiles/survey.dta");
    fails(
        &["risk", "--data", f.to_str().unwrap(), "--keys", "region"],
        &["survey.dta", "Stata", "--features statfiles"],
    );
}
