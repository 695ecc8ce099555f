//! `intruder panel`: the inter-wave attack, the defences, utility and the study, run through the
//! binary on small `household-panel` look-alikes; figures are checked against naive counts from
//! the CSV files and against the library.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn intruder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_intruder"))
        .args(args)
        .output()
        .expect("run intruder")
}

fn ok(args: &[&str]) -> String {
    let out = intruder(args);
    assert!(
        out.status.success(),
        "intruder {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Generates a small household panel in `dir`; returns the two wave files.
fn panel(dir: &Path, n: usize, seed: u64) -> (PathBuf, PathBuf) {
    ok(&[
        "synth",
        "household-panel",
        "--n",
        &n.to_string(),
        "--seed",
        &seed.to_string(),
        "--out",
        dir.to_str().expect("utf-8 path"),
    ]);
    (
        dir.join("household-wave1.csv"),
        dir.join("household-wave2.csv"),
    )
}

/// A CSV file as header + rows of strings.
fn read(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).expect("open csv");
    let header = r
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    let rows = r
        .records()
        .map(|rec| rec.expect("record").iter().map(str::to_string).collect())
        .collect();
    (header, rows)
}

fn col(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("json")
}

/// Per-record output: row → (c, found, p).
fn per_record(path: &Path) -> HashMap<usize, (usize, bool, f64)> {
    let (h, rows) = read(path);
    let (ri, ci, fi, pi) = (col(&h, "row"), col(&h, "c"), col(&h, "found"), col(&h, "p"));
    rows.iter()
        .map(|r| {
            (
                r[ri].parse().expect("row"),
                (
                    r[ci].parse().expect("c"),
                    r[fi] == "1",
                    r[pi].parse().expect("p"),
                ),
            )
        })
        .collect()
}

/// Naive attack from the CSV files: for every split wave-2 record, the wave-2 split records whose
/// `cols` (as known in wave `waves[k]`) equal the target's; c, whether the target is among them,
/// and p (share within 5% of the true value). Keyed by 1-based wave-2 row.
fn naive_match(w1: &Path, w2: &Path, keys: &[(&str, usize)]) -> HashMap<usize, (usize, bool, f64)> {
    let (h1, r1) = read(w1);
    let (h2, r2) = read(w2);
    let id1 = col(&h1, "household_id");
    let by_id: HashMap<&str, &Vec<String>> = r1.iter().map(|r| (r[id1].as_str(), r)).collect();
    let (id2, sp, y) = (
        col(&h2, "household_id"),
        col(&h2, "split"),
        col(&h2, "total_wealth"),
    );
    let split: Vec<usize> = (0..r2.len()).filter(|&i| r2[i][sp] == "1").collect();
    let mut out = HashMap::new();
    for &i in &split {
        let w1row = by_id[r2[i][id2].as_str()];
        let known: Vec<&str> = keys
            .iter()
            .map(|&(k, w)| {
                if w == 1 {
                    w1row[col(&h1, k)].as_str()
                } else {
                    r2[i][col(&h2, k)].as_str()
                }
            })
            .collect();
        let matches: Vec<usize> = split
            .iter()
            .copied()
            .filter(|&j| {
                keys.iter()
                    .zip(&known)
                    .all(|(&(k, _), v)| r2[j][col(&h2, k)] == *v)
            })
            .collect();
        let truth: f64 = r2[i][y].parse().expect("wealth");
        let within = matches
            .iter()
            .filter(|&&j| {
                let v: f64 = r2[j][y].parse().expect("wealth");
                (v - truth).abs() / truth.abs() < 0.05
            })
            .count();
        let p = if matches.is_empty() {
            0.0
        } else {
            within as f64 / matches.len() as f64
        };
        out.insert(i + 1, (matches.len(), matches.contains(&i), p));
    }
    out
}

#[test]
fn attack_following_the_link_reads_the_true_value_so_a_is_every_split_household() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (w1, w2) = panel(dir.path(), 3000, 1);
    let pr = dir.path().join("per-record.csv");
    let (s1, s2, spr) = (
        w1.to_str().unwrap(),
        w2.to_str().unwrap(),
        pr.to_str().unwrap(),
    );
    let v = json(&ok(&[
        "panel",
        "attack",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--mode",
        "link",
        "--format",
        "json",
        "--per-record",
        spr,
    ]));
    // Worked example F logic: following the link reads the released value of the household
    // itself, which before masking is the true value, so p_i ≥ 0.5 for every target.
    let (h2, r2) = read(&w2);
    let n_split = r2.iter().filter(|r| r[col(&h2, "split")] == "1").count();
    assert!(n_split > 50, "{n_split} split households");
    assert_eq!(v["panel"]["split_records"], n_split);
    assert_eq!(v["report"]["targets"], n_split);
    assert_eq!(v["report"]["found"], n_split);
    assert_eq!(v["report"]["A"], n_split);
    assert_eq!(v["spec"]["released_link"], "link_id");
    assert_eq!(
        v["waves"][1]["schema"],
        w2.with_file_name("household-wave2.schema.toml")
            .to_str()
            .unwrap()
    );
    // c_i = the wave-2 records carrying the link; p_i = 1 for unique links.
    let link = col(&h2, "link_id");
    let mut count: HashMap<&str, usize> = HashMap::new();
    for r in &r2 {
        *count.entry(r[link].as_str()).or_default() += 1;
    }
    let recs = per_record(&pr);
    assert_eq!(recs.len(), n_split);
    let mut nonunique = 0;
    for (row, (c, found, p)) in &recs {
        let expect = count[r2[row - 1][link].as_str()];
        assert_eq!(*c, expect, "row {row}");
        assert!(found, "row {row}");
        if expect == 1 {
            assert_eq!(*p, 1.0, "row {row}");
        } else {
            nonunique += 1;
            assert!(*p >= 0.5, "row {row}");
        }
    }
    assert!(
        nonunique > 0,
        "the look-alike has households followed up twice"
    );
    assert_eq!(v["report"]["unique_correct"], n_split - nonunique);
    // The table says the same.
    let t = ok(&[
        "panel", "attack", "--wave1", s1, "--wave2", s2, "--mode", "link",
    ]);
    let a_line = t
        .lines()
        .find(|l| l.trim_start().starts_with("A "))
        .expect("A line");
    assert!(a_line.contains(&format!(" {n_split} ")), "{a_line}");
    assert!(a_line.contains("p_i >= 0.5"), "{a_line}");
}

#[test]
fn attack_by_matching_counts_c_i_as_a_naive_count_and_as_the_library() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (w1, w2) = panel(dir.path(), 3000, 2);
    let pr = dir.path().join("per-record.csv");
    let (s1, s2, spr) = (
        w1.to_str().unwrap(),
        w2.to_str().unwrap(),
        pr.to_str().unwrap(),
    );
    for (scenario, keys) in [
        (
            "1",
            vec![("area", 1), ("accommodation", 1), ("bedrooms", 1)],
        ),
        ("area@1,children@2", vec![("area", 1), ("children", 2)]),
    ] {
        let v = json(&ok(&[
            "panel",
            "attack",
            "--wave1",
            s1,
            "--wave2",
            s2,
            "--mode",
            "match",
            "--scenario",
            scenario,
            "--format",
            "json",
            "--per-record",
            spr,
        ]));
        let got = per_record(&pr);
        let naive = naive_match(&w1, &w2, &keys);
        assert_eq!(got.len(), naive.len());
        for (row, (c, found, p)) in &naive {
            let g = got[row];
            assert_eq!((g.0, g.1), (*c, *found), "{scenario}: row {row}");
            assert!((g.2 - p).abs() < 1e-12, "{scenario}: row {row}");
        }
        let r = &v["report"];
        let unique = naive.values().filter(|x| x.0 == 1 && x.1).count();
        let le2 = naive.values().filter(|x| x.0 <= 2 && x.1).count();
        let found = naive.values().filter(|x| x.1).count();
        let expected: f64 = naive
            .values()
            .filter(|x| x.1)
            .map(|x| 1.0 / x.0 as f64)
            .sum();
        let a = naive.values().filter(|x| x.2 >= 0.5).count();
        assert_eq!(r["unique_correct"], unique, "{scenario}");
        assert_eq!(r["le2_correct"], le2, "{scenario}");
        assert_eq!(r["found"], found, "{scenario}");
        assert_eq!(r["A"], a, "{scenario}");
        assert!((r["expected_correct"].as_f64().unwrap() - expected).abs() < 1e-9);
        assert!(unique > 0 && unique < naive.len(), "{scenario}: {unique}");
        assert!(a < naive.len(), "{scenario}: matching must leave doubt");

        // The library on the same files gives the same report.
        let load = |p: &Path, w: u32| {
            let o = intruder_data::ReadOptions {
                schema: Some(
                    intruder_data::Schema::from_file(
                        &p.with_file_name(format!("household-wave{w}.schema.toml")),
                    )
                    .unwrap(),
                ),
                ..Default::default()
            };
            intruder_data::read_csv(p, &o).unwrap()
        };
        let spec = intruder_longitudinal::PanelSpec {
            link: "household_id".into(),
            released_link: Some("link_id".into()),
            split: Some("split".into()),
            sensitive: "total_wealth".into(),
            nonunique: Default::default(),
            strict: false,
        };
        let p = intruder_longitudinal::Panel::new(vec![load(&w1, 1), load(&w2, 2)], spec).unwrap();
        let sc = match scenario {
            "1" => intruder_longitudinal::Scenario::mitra1(),
            k => intruder_longitudinal::Scenario::parse(k, k).unwrap(),
        };
        let lib = intruder_longitudinal::PreparedAttack::new(
            &p,
            &sc,
            intruder_longitudinal::Mode::Match,
            intruder_longitudinal::Pool::Split,
        )
        .unwrap()
        .score(&p.sensitive_last(), 0.05)
        .unwrap();
        assert_eq!(r["A"], lib.attribute_a);
        assert_eq!(r["unique_correct"], lib.unique_correct);
        assert_eq!(r["le2_correct"], lib.le2_correct);
        assert_eq!(r["pool"], lib.pool);
    }
}

fn assert_clean_error(out: &Output, needles: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "'{n}' not in: {err}");
    }
}

#[test]
fn bad_input_gives_a_clear_error_naming_the_file_and_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (w1, w2) = panel(dir.path(), 400, 3);
    let (s1, s2) = (w1.to_str().unwrap(), w2.to_str().unwrap());
    // A wave-1 file without the link column (and no schema beside it).
    let other = dir.path().join("nolink");
    std::fs::create_dir(&other).unwrap();
    let bad = other.join("wave1.csv");
    let (h, rows) = read(&w1);
    let drop = col(&h, "household_id");
    let mut w = csv::Writer::from_path(&bad).unwrap();
    let keep = |r: &[String]| -> Vec<String> {
        r.iter()
            .enumerate()
            .filter(|&(j, _)| j != drop)
            .map(|(_, v)| v.clone())
            .collect()
    };
    w.write_record(keep(&h)).unwrap();
    for r in &rows {
        w.write_record(keep(r)).unwrap();
    }
    w.flush().unwrap();
    let sb = bad.to_str().unwrap();
    let out = intruder(&[
        "panel", "attack", "--wave1", sb, "--wave2", s2, "--mode", "link",
    ]);
    assert_clean_error(&out, &[sb, "household_id"]);

    // An unknown scenario key names the column and the file it is missing from.
    let out = intruder(&[
        "panel",
        "attack",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--mode",
        "match",
        "--scenario",
        "area@1,colour@1",
    ]);
    assert_clean_error(&out, &["colour", "household-wave1.csv"]);
    // A scenario that is neither 1, 2 nor column@wave.
    let out = intruder(&[
        "panel",
        "attack",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--mode",
        "match",
        "--scenario",
        "3",
    ]);
    assert_clean_error(&out, &["--scenario", "column@wave"]);
    // A wave beyond the panel.
    let out = intruder(&[
        "panel",
        "attack",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--mode",
        "match",
        "--scenario",
        "area@3",
    ]);
    assert_clean_error(&out, &["area@3", "waves 1..2"]);
    // Matching needs a scenario; a bad tolerance is refused before reading.
    let out = intruder(&[
        "panel", "attack", "--wave1", s1, "--wave2", s2, "--mode", "match",
    ]);
    assert_clean_error(&out, &["--scenario"]);
    let out = intruder(&[
        "panel",
        "attack",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--mode",
        "link",
        "--tolerance",
        "0",
    ]);
    assert_clean_error(&out, &["--tolerance"]);
    // Nothing left to attack.
    let out = intruder(&[
        "panel",
        "attack",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--mode",
        "link",
        "--split",
        "none",
        "--exclude-nonunique",
    ]);
    assert_clean_error(&out, &["household-wave2.csv", "no split record", "--split"]);
    // A split column that is not there.
    let out = intruder(&[
        "panel", "attack", "--wave1", s1, "--wave2", s2, "--mode", "link", "--split", "left",
    ]);
    assert_clean_error(&out, &["household-wave2.csv", "'left'"]);
}

fn protect_args<'a>(s1: &'a str, s2: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec!["panel", "protect", "--wave1", s1, "--wave2", s2];
    v.extend_from_slice(extra);
    v
}

#[test]
fn protect_is_reproducible_and_changes_only_the_sensitive_column() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (w1, w2) = panel(dir.path(), 3000, 5);
    let (s1, s2) = (w1.to_str().unwrap(), w2.to_str().unwrap());
    let out = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (a, b, c, la, lb) = (
        out("a.csv"),
        out("b.csv"),
        out("c.csv"),
        out("a.json"),
        out("b.json"),
    );
    for (method, extra) in [
        ("swap", vec!["--rho", "0.2", "--selection", "targeted"]),
        ("mix", vec!["--rho", "all", "--selection", "random"]),
    ] {
        let run = |o: &str, log: &str, seed: &str| {
            let mut x = vec!["--method", method, "--seed", seed, "--out", o, "--log", log];
            x.extend_from_slice(&extra);
            ok(&protect_args(s1, s2, &x))
        };
        run(&a, &la, "7");
        run(&b, &lb, "7");
        assert!(
            std::fs::read(&a).unwrap() == std::fs::read(&b).unwrap(),
            "{method}: same seed, same bytes"
        );
        // The logs differ only in the output path they name.
        let (mut ja, mut jb) = (
            json(&std::fs::read_to_string(&la).unwrap()),
            json(&std::fs::read_to_string(&lb).unwrap()),
        );
        assert_eq!(ja["out"].as_str(), Some(a.as_str()));
        ja["out"] = serde_json::Value::Null;
        jb["out"] = serde_json::Value::Null;
        assert!(ja == jb, "{method}: logs differ");
        // Only the sensitive column differs from the input, and only on altered rows.
        let (h0, r0) = read(&w2);
        let (h1, r1) = read(Path::new(&a));
        assert_eq!(h0, h1);
        assert_eq!(r0.len(), r1.len());
        let y = col(&h0, "total_wealth");
        let log = json(&std::fs::read_to_string(&la).unwrap());
        let mut touched = std::collections::HashSet::new();
        for s in log["swaps"].as_array().unwrap() {
            touched.insert(s["row"].as_u64().unwrap() as usize);
            touched.insert(s["partner"].as_u64().unwrap() as usize);
        }
        for d in log["draws"].as_array().unwrap() {
            touched.insert(d["row"].as_u64().unwrap() as usize);
        }
        let mut changed = 0;
        for (i, (x, z)) in r0.iter().zip(&r1).enumerate() {
            for j in 0..h0.len() {
                if j != y {
                    assert_eq!(x[j], z[j], "{method}: row {} column {}", i + 1, h0[j]);
                }
            }
            if x[y] != z[y] {
                changed += 1;
                assert!(
                    touched.contains(&(i + 1)),
                    "{method}: row {} changed",
                    i + 1
                );
            }
        }
        assert!(changed > 0, "{method}");
        assert_eq!(log["changed"], changed);
        if method == "swap" {
            // Swapping permutes values: the multiset of wealth is unchanged.
            let mut v0: Vec<&str> = r0.iter().map(|r| r[y].as_str()).collect();
            let mut v1: Vec<&str> = r1.iter().map(|r| r[y].as_str()).collect();
            v0.sort_unstable();
            v1.sort_unstable();
            assert_eq!(v0, v1);
            assert_eq!(
                log["swaps"].as_array().unwrap().len(),
                log["selected"].as_array().unwrap().len()
            );
        }
        // The attack before the alteration is the one `panel attack` reports.
        let v = json(&ok(&[
            "panel",
            "attack",
            "--wave1",
            s1,
            "--wave2",
            s2,
            "--mode",
            "match",
            "--scenario",
            "2",
            "--format",
            "json",
        ]));
        assert_eq!(log["before"]["A"], v["report"]["A"]);
        assert!(
            log["after"]["A"].as_u64() < log["before"]["A"].as_u64(),
            "{method}"
        );
    }
    // A different seed changes a random selection.
    let mut x = vec![
        "--method",
        "synthesis",
        "--rho",
        "0.3",
        "--selection",
        "random",
    ];
    x.extend(["--seed", "1", "--out", &a]);
    ok(&protect_args(s1, s2, &x));
    x[7] = "2";
    x[9] = &c;
    ok(&protect_args(s1, s2, &x));
    assert!(std::fs::read(&a).unwrap() != std::fs::read(&c).unwrap());

    // Utility of the written file equals the alteration redone in memory.
    let mix = [
        "--method",
        "mix",
        "--rho",
        "all",
        "--selection",
        "random",
        "--seed",
        "7",
    ];
    let mut x = mix.to_vec();
    x.extend(["--out", &b]);
    ok(&protect_args(s1, s2, &x));
    let from_file = json(&ok(&[
        "panel",
        "utility",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--altered",
        &b,
        "--format",
        "json",
    ]));
    let mut x = vec!["panel", "utility", "--wave1", s1, "--wave2", s2];
    x.extend(mix);
    x.extend(["--format", "json"]);
    let in_memory = json(&ok(&x));
    let m = from_file["overlap"]["mean_overlap"].as_f64().unwrap();
    assert_eq!(m, in_memory["overlap"]["mean_overlap"].as_f64().unwrap());
    assert!(m > 0.0 && m < 1.0, "{m}");
    let coefs = from_file["overlap"]["coefficients"].as_array().unwrap();
    assert!(coefs.iter().any(|c| c["name"] == "wealth_decile=10"));
    // The original against itself overlaps fully.
    let same = json(&ok(&[
        "panel",
        "utility",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--altered",
        s2,
        "--format",
        "json",
    ]));
    assert!((same["overlap"]["mean_overlap"].as_f64().unwrap() - 1.0).abs() < 1e-9);
}

#[test]
fn protect_and_utility_refuse_bad_parameters_before_work() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (w1, w2) = panel(dir.path(), 400, 6);
    let (s1, s2) = (w1.to_str().unwrap(), w2.to_str().unwrap());
    let o = dir.path().join("o.csv");
    let so = o.to_str().unwrap();
    let out = intruder(&protect_args(s1, s2, &["--method", "swap", "--out", so]));
    assert_clean_error(&out, &["--rho", "--seed"]);
    let out = intruder(&protect_args(
        s1,
        s2,
        &[
            "--method", "swap", "--rho", "0.7", "--seed", "1", "--out", so,
        ],
    ));
    assert_clean_error(&out, &["rho = 0.7"]);
    let out = intruder(&protect_args(
        s1,
        s2,
        &[
            "--method",
            "swap",
            "--rho",
            "0.1",
            "--seed",
            "1",
            "--swap-share",
            "0.5",
            "--out",
            so,
        ],
    ));
    assert_clean_error(&out, &["--swap-share", "mix"]);
    let out = intruder(&protect_args(
        s1,
        s2,
        &[
            "--method",
            "swap",
            "--rho",
            "0.1",
            "--seed",
            "1",
            "--covariates",
            "area@1,colour@2",
            "--out",
            so,
        ],
    ));
    assert_clean_error(&out, &["colour", "household-wave2.csv"]);
    assert!(!o.exists(), "nothing written on error");
    let out = intruder(&["panel", "utility", "--wave1", s1, "--wave2", s2]);
    assert_clean_error(&out, &["--altered"]);
    // An altered file whose records are not the last wave's.
    let out = intruder(&[
        "panel",
        "utility",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--altered",
        s1,
    ]);
    assert_clean_error(&out, &[s1, "records"]);
}

#[test]
fn study_prints_the_papers_tables_beside_the_published_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (w1, w2) = panel(dir.path(), 1500, 1);
    let (s1, s2) = (w1.to_str().unwrap(), w2.to_str().unwrap());
    let res = dir.path().join("results.json");
    let t = ok(&[
        "panel",
        "study",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--seeds",
        "1",
        "--out",
        res.to_str().unwrap(),
    ]);
    for needle in [
        "Baseline",
        "Fig. 4",
        "Fig. 5",
        "Fig. 6",
        "Table 1",
        "(40)",
        "(55)",
        "Utility",
        "563 / 871",
    ] {
        assert!(t.contains(needle), "'{needle}' missing:\n{t}");
    }
    let v = json(&std::fs::read_to_string(&res).unwrap());
    // The study's baseline is the attack command's report.
    for (scenario, mode, name) in [("1", "match", "scenario 1"), ("2", "match", "scenario 2")] {
        let a = json(&ok(&[
            "panel",
            "attack",
            "--wave1",
            s1,
            "--wave2",
            s2,
            "--mode",
            mode,
            "--scenario",
            scenario,
            "--format",
            "json",
        ]));
        let b = v["baseline"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["scenario"] == name)
            .unwrap();
        assert_eq!(b["A"], a["report"]["A"]);
        assert_eq!(b["unique_correct"], a["report"]["unique_correct"]);
    }
    let links = json(&ok(&[
        "panel", "attack", "--wave1", s1, "--wave2", s2, "--mode", "link", "--format", "json",
    ]));
    let b = &v["baseline"].as_array().unwrap()[2];
    assert_eq!(b["scenario"], "links");
    assert_eq!(b["A"], links["report"]["A"]);
    // Every figure, one seed: Figs. 4/5 (2 scenarios × 6 rhos × 2 selections), Fig. 6
    // (2 × 6 × 5 shares) and Table 1 (2 methods × 3 attacks).
    let rows = v["rows"].as_array().unwrap();
    let count = |f: &str| rows.iter().filter(|r| r["figure"] == f).count();
    assert_eq!(
        (count("fig4"), count("fig5"), count("fig6"), count("table1")),
        (24, 24, 60, 6)
    );
    assert_eq!(v["utility"].as_array().unwrap().len(), 2);
    let out = intruder(&[
        "panel", "study", "--wave1", s1, "--wave2", s2, "--seeds", "5..2",
    ]);
    assert_clean_error(&out, &["--seeds"]);
}

#[test]
fn every_format_carries_the_same_figures_and_inputs_are_never_overwritten() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (w1, w2) = panel(dir.path(), 1000, 8);
    let (s1, s2) = (w1.to_str().unwrap(), w2.to_str().unwrap());
    let attack = |extra: &[&str]| {
        let mut x = vec![
            "panel",
            "attack",
            "--wave1",
            s1,
            "--wave2",
            s2,
            "--mode",
            "match",
            "--scenario",
            "2",
        ];
        x.extend_from_slice(extra);
        ok(&x)
    };
    let v = json(&attack(&["--format", "json"]));
    // The figures are top-level fields; the structured report is kept beside them.
    assert_eq!(v["A"], v["report"]["A"]);
    assert_eq!(v["c_i=1"], v["report"]["unique_correct"]);
    assert_eq!(v["targets"], v["panel"]["targets"]);
    assert_eq!(v["candidate_pool"], "split");
    let csv = attack(&["--format", "csv"]);
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    let row: Vec<String> = r
        .records()
        .next()
        .unwrap()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    for name in ["A", "c_i=1", "c_i<=2", "found", "targets", "pool"] {
        assert_eq!(row[col(&header, name)], v[name].to_string(), "{name}");
    }
    let md = attack(&["--format", "markdown"]);
    assert!(
        md.contains(&format!("| `A` | {} | attribute disclosure", v["A"])),
        "{md}"
    );
    // --out writes the report instead of printing it.
    let out = dir.path().join("attack.json");
    let printed = attack(&["--format", "json", "--out", out.to_str().unwrap()]);
    assert!(printed.is_empty(), "{printed}");
    assert_eq!(json(&std::fs::read_to_string(&out).unwrap()), v);

    // Outputs never overwrite an input: wave, schema beside it, or the altered file.
    let before = std::fs::read(&w2).unwrap();
    let schema2 = w2.with_file_name("household-wave2.schema.toml");
    let out = intruder(&[
        "panel",
        "attack",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--mode",
        "link",
        "--per-record",
        s2,
    ]);
    assert_clean_error(&out, &["--per-record", "inputs are never modified"]);
    let out = intruder(&[
        "panel",
        "attack",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--mode",
        "link",
        "--out",
        schema2.to_str().unwrap(),
    ]);
    assert_clean_error(&out, &["--out", "inputs are never modified"]);
    let out = intruder(&protect_args(
        s1,
        s2,
        &[
            "--method", "swap", "--rho", "all", "--seed", "1", "--out", s2,
        ],
    ));
    assert_clean_error(&out, &["--out", "inputs are never modified"]);
    let out = intruder(&protect_args(
        s1,
        s2,
        &[
            "--method", "swap", "--rho", "all", "--seed", "1", "--out", "x.csv", "--log", s1,
        ],
    ));
    assert_clean_error(&out, &["--log", "inputs are never modified"]);
    let out = intruder(&[
        "panel", "study", "--wave1", s1, "--wave2", s2, "--seeds", "1", "--out", s1,
    ]);
    assert_clean_error(&out, &["--out", "inputs are never modified"]);
    assert!(std::fs::read(&w2).unwrap() == before, "wave 2 untouched");

    // protect and utility render the same way; the table keeps the figures' meanings.
    let altered = dir.path().join("alt.csv");
    let p = json(&ok(&protect_args(
        s1,
        s2,
        &[
            "--method",
            "synthesis",
            "--rho",
            "0.2",
            "--seed",
            "4",
            "--out",
            altered.to_str().unwrap(),
            "--format",
            "json",
        ],
    )));
    assert_eq!(p["selected"], p["selected_rows"].as_array().unwrap().len());
    assert_eq!(p["synthesised"], p["draws"].as_array().unwrap().len());
    assert_eq!(p["A_before"], p["before"]["A"]);
    let u = ok(&[
        "panel",
        "utility",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--altered",
        altered.to_str().unwrap(),
        "--format",
        "csv",
    ]);
    assert!(u.starts_with("mean_overlap,coefficients,"), "{u}");
    let t = ok(&[
        "panel",
        "utility",
        "--wave1",
        s1,
        "--wave2",
        s2,
        "--altered",
        altered.to_str().unwrap(),
    ]);
    assert!(t.contains("mean 95% CI overlap over coefficients"), "{t}");
    assert!(t.contains("wealth_decile=10"), "{t}");
}
