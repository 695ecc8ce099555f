//! The records an attack re-identified (`GET /api/job/{id}/records`): exact values on a small
//! hand-made file, the token, clear messages for bad parameters, the Fellegi–Sunter agreement
//! pattern, and paging from memory.

use std::time::Instant;

use intruder_serve::{Config, Running, Server};
use serde_json::{Value, json};

use crate::client::{get, post_json, request};
use crate::server::wait;

/// Six people: on (area, sex) rows 1–2 share (1, m), row 3 is alone in (2, f), rows 4–6 share
/// (3, f); so c_i is 2, 2, 1, 3, 3, 3 when the intruder knows every record.
const PEOPLE: &str =
    "id,area,sex,age\np1,1,m,30\np2,1,m,31\np3,2,f,40\np4,3,f,50\np5,3,f,51\np6,3,f,52\n";

/// A server with a root holding `people.csv`, and the root's directory (kept alive).
fn server_with_people() -> (Running, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("people.csv"), PEOPLE).unwrap();
    let s = Server::bind(&Config {
        root: Some(dir.path().to_path_buf()),
        ..Config::default()
    })
    .unwrap()
    .spawn();
    (s, dir)
}

/// Writes the session `exp` on data `source` as an experiment, runs it and waits: the job.
pub(crate) fn run_session(s: &Running, source: &Value, exp: &Value) -> u64 {
    let w = post_json(
        s.addr,
        &s.token,
        "/api/experiment",
        &json!({"source": source, "experiment": exp}),
    )
    .json();
    assert_eq!(w["problems"], json!([]), "{w}");
    let a = post_json(
        s.addr,
        &s.token,
        "/api/run",
        &json!({"source": source, "toml": w["toml"]}),
    )
    .json();
    let job = a["job"].as_u64().unwrap_or_else(|| panic!("{a}"));
    let st = wait(s, job);
    assert_eq!(st["state"], "done", "{st}");
    job
}

/// The exact attack on (area, sex) of the six people, every record known to the intruder.
fn people_job(s: &Running) -> u64 {
    let source = json!({"place": "root", "path": "people.csv"});
    let exp = json!({
        "name": "people", "seed": 3, "replicates": 1,
        "data": {"released": "people.csv", "truth": "id"},
        "scenario": {"keys": ["area", "sex"], "known": 1.0},
        "defence": [{"name": "none"}],
        "attack": [{"method": "exact", "name": "exact"}],
    });
    run_session(s, &source, &exp)
}

#[test]
fn the_records_of_an_exact_attack_show_each_candidate_and_whether_the_pick_is_right() {
    let (s, _dir) = server_with_people();
    let job = people_job(&s);
    let a = get(s.addr, &s.token, &format!("/api/job/{job}/records"));
    assert_eq!(a.status, 200, "{}", a.text());
    let r = a.json();
    assert_eq!(r["setting"], "none");
    assert_eq!(r["replicate"], 1);
    assert_eq!(r["attack"], "exact");
    assert_eq!(r["method"], "exact");
    assert_eq!(
        r["keys"],
        json!([{"intruder": "area", "released": "area"}, {"intruder": "sex", "released": "sex"}])
    );
    assert_eq!(r["intruder_records"], 6);
    assert_eq!(r["total"], 6);
    assert_eq!(r["fitted_model"], false);
    let rows = r["rows"].as_array().unwrap();
    let by_row = |n: u64| rows.iter().find(|x| x["row"] == n).unwrap().clone();
    // c_i and the candidates with their values, row by row
    for (n, c_i, cands) in [
        (1, 2, vec![1, 2]),
        (2, 2, vec![1, 2]),
        (3, 1, vec![3]),
        (4, 3, vec![4, 5, 6]),
        (5, 3, vec![4, 5, 6]),
        (6, 3, vec![4, 5, 6]),
    ] {
        let x = by_row(n);
        assert_eq!(x["c_i"], c_i, "{x}");
        assert_eq!(x["candidates_total"], c_i, "{x}");
        assert_eq!(x["more_candidates"], 0, "{x}");
        assert_eq!(
            x["true_row"], n,
            "the intruder knows row {n} of the release"
        );
        let rows: Vec<u64> = x["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["row"].as_u64().unwrap())
            .collect();
        assert_eq!(rows, cands, "{x}");
        // every candidate agrees with the intruder's values on both keys
        for c in x["candidates"].as_array().unwrap() {
            assert_eq!(c["values"], x["values"], "{x}");
            assert_eq!(c["score"], 1.0);
            assert_eq!(c["rank"], 1);
            assert_eq!(c["true_record"], c["row"] == n);
        }
        // the pick is one of the tied candidates (the evaluator's seeded draw); it is correct
        // exactly when it is the true record
        let picked = x["picked_row"].as_u64().unwrap();
        assert!(cands.contains(&picked), "{x}");
        assert_eq!(x["correct"], picked == n, "{x}");
        assert_eq!(x["declared"], true);
        assert_eq!(
            x["status"],
            if picked == n { "correct" } else { "wrong" },
            "{x}"
        );
        assert_eq!(x["pattern"], Value::Null, "no model for exact matching");
    }
    assert_eq!(by_row(3)["values"], json!(["2", "f"]));
    assert_eq!(by_row(3)["status"], "correct", "row 3 is unique");
    assert_eq!(by_row(4)["candidates"][2]["values"], json!(["3", "f"]));
    // re-identified first, then the wrong links, each in row order; counts add up to the
    // evaluator's figures
    let correct = r["counts"]["correct"].as_u64().unwrap();
    assert_eq!(correct, r["evaluator"]["correct_matches"].as_u64().unwrap());
    assert_eq!(correct + r["counts"]["wrong"].as_u64().unwrap(), 6);
    assert_eq!(r["counts"]["not-linked"], 0);
    let statuses: Vec<&str> = rows.iter().map(|x| x["status"].as_str().unwrap()).collect();
    let mut sorted = statuses.clone();
    sorted.sort_by_key(|s| *s != "correct");
    assert_eq!(statuses, sorted);
    // Mitra's Σ 1/c_i over the six: 1/2 + 1/2 + 1 + 1/3 · 3 = 3
    let expected = r["evaluator"]["expected_correct"].as_f64().unwrap();
    assert!((expected - 3.0).abs() < 1e-12, "{expected}");

    // a page, and one status
    let p = get(
        s.addr,
        &s.token,
        &format!("/api/job/{job}/records?offset=2&limit=3"),
    )
    .json();
    assert_eq!(p["total"], 6);
    assert_eq!(p["rows"].as_array().unwrap().as_slice(), &rows[2..5]);
    let c = get(
        s.addr,
        &s.token,
        &format!("/api/job/{job}/records?status=correct&setting=none&attack=exact&replicate=1"),
    )
    .json();
    assert_eq!(c["total"], correct);
    assert!(
        c["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["status"] == "correct")
    );
    let far = get(
        s.addr,
        &s.token,
        &format!("/api/job/{job}/records?offset=100"),
    )
    .json();
    assert_eq!(far["rows"], json!([]));
    assert_eq!(far["total"], 6);
}

#[test]
fn records_need_the_token_and_bad_parameters_are_explained() {
    let (s, _dir) = server_with_people();
    let job = people_job(&s);
    let path = format!("/api/job/{job}/records");
    let a = request(s.addr, "GET", &path, &[], b"");
    assert_eq!(a.status, 403);
    let a = request(s.addr, "GET", &path, &[("X-Intruder-Token", "wrong")], b"");
    assert_eq!(a.status, 403);
    for (query, message) in [
        (
            "setting=k-3",
            "setting: no setting 'k-3' (the experiment has 'none')",
        ),
        (
            "attack=nearest",
            "attack: no attack 'nearest' (the experiment has 'exact')",
        ),
        (
            "replicate=2",
            "replicate: 2 is out of range: the experiment has replicates 1 to 1",
        ),
        (
            "replicate=0",
            "replicate: 0 is out of range: the experiment has replicates 1 to 1",
        ),
        ("offset=-1", "offset: '-1' is not a whole number ≥ 0"),
        ("limit=ten", "limit: 'ten' is not a whole number ≥ 0"),
        (
            "limit=0",
            "limit: 0 is out of range: ask for 1 to 500 records a page",
        ),
        (
            "limit=501",
            "limit: 501 is out of range: ask for 1 to 500 records a page",
        ),
        (
            "status=right",
            "status: 'right' is not one of correct, wrong, not-linked (or all)",
        ),
        (
            "limt=5",
            "unknown parameter 'limt' (known: setting, replicate, attack, status, offset, limit)",
        ),
    ] {
        let a = get(s.addr, &s.token, &format!("{path}?{query}"));
        assert_eq!(a.status, 400, "{query}: {}", a.text());
        assert_eq!(a.json()["error"], message, "{query}");
    }
    let a = get(s.addr, &s.token, "/api/job/77/records");
    assert_eq!(a.status, 404);
    assert_eq!(a.json()["error"], "no job 77");
}

/// The session of [`crate::server::generator_session`] with a Fellegi–Sunter attack added.
fn fellegi_sunter_session() -> (Value, Value) {
    let (source, mut exp) = crate::server::generator_session();
    exp["replicates"] = json!(1);
    exp["attack"]
        .as_array_mut()
        .unwrap()
        .push(json!({"method": "fellegi-sunter", "name": "fs"}));
    (source, exp)
}

#[test]
fn a_fellegi_sunter_record_shows_the_agreement_pattern_of_its_best_pair() {
    let s = Server::bind(&Config::default()).unwrap().spawn();
    let (source, exp) = fellegi_sunter_session();
    let job = run_session(&s, &source, &exp);
    let a = get(
        s.addr,
        &s.token,
        &format!("/api/job/{job}/records?attack=fs&limit=500"),
    );
    assert_eq!(a.status, 200, "{}", a.text());
    let r = a.json();
    assert_eq!(r["method"], "fellegi-sunter");
    assert_eq!(r["fitted_model"], true);
    let rows = r["rows"].as_array().unwrap();
    assert_eq!(rows.len() as u64, r["intruder_records"].as_u64().unwrap());
    let mut patterns = 0;
    let mut wrong = 0;
    for x in rows {
        let p = &x["pattern"];
        if x["picked_row"].is_null() {
            assert!(p.is_null(), "{x}");
            continue;
        }
        patterns += 1;
        assert_eq!(p["intruder_row"], x["row"], "{x}");
        assert_eq!(p["released_row"], x["picked_row"], "{x}");
        let steps = p["steps"].as_array().unwrap();
        assert_eq!(steps.len(), 3, "one level per comparison: {p}");
        // prior + each level's weight (and term-frequency adjustment) = the total weight
        let mut total = p["prior_weight"].as_f64().unwrap();
        for st in steps {
            assert!(st["level"].is_string(), "{st}");
            total += st["weight"].as_f64().unwrap() + st["tf_adjustment"].as_f64().unwrap();
            assert!(
                (st["cumulative"].as_f64().unwrap() - total).abs() < 1e-9,
                "{p}"
            );
        }
        let w = p["match_weight"].as_f64().unwrap();
        assert!((w - total).abs() < 1e-9, "{p}");
        let prob = p["match_probability"].as_f64().unwrap();
        let expected = 2f64.powf(w) / (1.0 + 2f64.powf(w));
        assert!((prob - expected).abs() < 1e-9, "{prob} vs {expected}");
        // the pick's weight is the attack's best score
        assert!((x["best_score"].as_f64().unwrap() - w).abs() < 1e-9, "{x}");
        // a wrong pick also shows the pair with the true record (not necessarily lighter: a
        // one-to-one assignment may give the heavier pair to another record)
        let t = &x["true_pattern"];
        if x["correct"] == false && !x["true_row"].is_null() {
            wrong += 1;
            assert_eq!(t["released_row"], x["true_row"], "{x}");
            assert_eq!(t["steps"].as_array().unwrap().len(), 3, "{t}");
        } else {
            assert!(t.is_null(), "{x}");
        }
    }
    assert!(patterns > 0, "{r}");
    assert!(wrong > 0, "some picks are wrong: {}", r["counts"]);
}

#[test]
fn pages_of_a_hundred_thousand_records_come_from_memory() {
    let s = Server::bind(&Config::default()).unwrap().spawn();
    let source = json!({"place": "generator", "generator": "survey-panel", "n": 100_000, "params": {}, "seed": 7, "file": "survey-panel.csv"});
    let keys = json!(["year_of_birth", "gender", "occupation", "origin"]);
    let exp = json!({
        "name": "big", "seed": 7, "replicates": 1,
        "data": {"generator": "survey-panel", "n": 100_000, "released": "survey-panel.csv", "truth": "person_id"},
        "scenario": {"keys": keys, "known": 1.0},
        "defence": [{"name": "none"}],
        "attack": [{"method": "exact", "name": "exact"}],
    });
    let job = run_session(&s, &source, &exp);
    let t = Instant::now();
    let first = get(s.addr, &s.token, &format!("/api/job/{job}/records"));
    let redo = t.elapsed().as_secs_f64();
    assert_eq!(first.status, 200, "{}", first.text());
    let total = first.json()["total"].as_u64().unwrap();
    assert!(total >= 90_000, "{total}");
    let mut slowest = 0.0f64;
    for offset in [0, 50_000, total - 50] {
        let t = Instant::now();
        let a = get(
            s.addr,
            &s.token,
            &format!("/api/job/{job}/records?offset={offset}&limit=50"),
        );
        slowest = slowest.max(t.elapsed().as_secs_f64());
        assert_eq!(a.status, 200);
        assert_eq!(a.json()["rows"].as_array().unwrap().len(), 50);
    }
    eprintln!(
        "first request (the attack redone): {:.0} ms; slowest page of 50 of {total} records: {:.1} ms",
        redo * 1e3,
        slowest * 1e3
    );
    assert!(slowest < 0.2, "a page took {slowest:.3} s");
}
