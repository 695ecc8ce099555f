//! `--engine` from the command line and `[engine]` from an experiment file (feature `cluster`):
//! `intruder risk` gives the same output on `local`, `datafusion` and a Ballista cluster of two
//! executors started as processes (the engine crate's `intruder-scheduler` and
//! `intruder-executor`, built beside `intruder`); `intruder attack --method exact` and
//! `--method fellegi-sunter` the same on all three (on the cluster with `--scratch-dir`:
//! docs/cluster.md); an experiment (risk, the exact attack, Fellegi–Sunter with an inline
//! linkage table) gives the same results on all three.

use std::path::{Path, PathBuf};
use std::process::Command;

use intruder_engine::local_cluster::LocalCluster;

fn intruder(args: &[&str], cwd: &Path) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_intruder"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run intruder");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A pseudo-random number in [0, 1) from a seed and an index (splitmix64).
fn unit(seed: u64, i: u64) -> f64 {
    let mut z = seed.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
}

/// A released file of `n` records (id, region text with "NA" missing, age integer with blanks,
/// sex, a weight) and an intruder file of every 7th record with some keys blanked, as CSV and
/// Parquet.
fn files(dir: &Path, n: u64) -> (PathBuf, PathBuf) {
    let regions = ["north", "south", "east", "west", "centre"];
    let mut rel = String::from("id,region,age,sex,w\n");
    let mut int = String::from("pid,region,age,sex\n");
    for i in 0..n {
        let region = match unit(1, i) {
            u if u < 0.07 => "NA".to_string(),
            u => regions[(u * 5.0) as usize % 5].to_string(),
        };
        let age = match unit(2, i) {
            u if u < 0.1 => String::new(),
            u => (20 + 5 * ((u * 12.0) as u64 % 12)).to_string(),
        };
        let sex = if unit(3, i) < 0.5 { "f" } else { "m" };
        let w = 5 + (unit(4, i) * 40.0) as u64;
        rel.push_str(&format!("{i},{region},{age},{sex},{w}\n"));
        if i % 7 == 0 {
            let age = if unit(5, i) < 0.1 { "" } else { &age };
            int.push_str(&format!("{i},{region},{age},{sex}\n"));
        }
    }
    let parquet = |name: &str, text: &str| {
        let csv = dir.join(format!("{name}.csv"));
        std::fs::write(&csv, text).unwrap();
        let ds = intruder_data::load(&csv, &intruder_data::Input::default()).unwrap();
        let p = dir.join(format!("{name}.parquet"));
        intruder_data::write_parquet(&p, &ds).unwrap();
        p
    };
    (parquet("released", &rel), parquet("intruder", &int))
}

/// The JSON output without its timings (the only figures that may differ).
fn figures(out: &str) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"));
    fn strip(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                m.retain(|k, _| !k.contains("timing") && k != "seconds" && k != "engine");
                m.values_mut().for_each(strip);
            }
            serde_json::Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// Where `a` and `b` differ, or `None`: numbers to a relative 1e-12 (an engine adds sums of
/// weights and of risks in another order), everything else exactly.
fn differs(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Option<String> {
    use serde_json::Value::{Array, Number, Object};
    match (a, b) {
        (Object(x), Object(y)) => {
            if x.len() != y.len() || x.keys().zip(y.keys()).any(|(p, q)| p != q) {
                return Some(format!(
                    "{path}: keys {:?} against {:?}",
                    x.keys(),
                    y.keys()
                ));
            }
            x.iter()
                .find_map(|(k, v)| differs(v, &y[k], &format!("{path}.{k}")))
        }
        (Array(x), Array(y)) => {
            if x.len() != y.len() {
                return Some(format!("{path}: {} items against {}", x.len(), y.len()));
            }
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (p, q))| differs(p, q, &format!("{path}[{i}]")))
        }
        (Number(x), Number(y)) => match (x.as_f64(), y.as_f64()) {
            (Some(p), Some(q)) if same_number(p, q) => None,
            _ => Some(format!("{path}: {x} against {y}")),
        },
        _ => (a != b).then(|| format!("{path}: {a} against {b}")),
    }
}

/// Two numbers equal to a relative 1e-12 (integers exactly, as their f64 is exact here).
fn same_number(x: f64, y: f64) -> bool {
    x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
}

/// The commands compared across engines.
fn commands(r: &str, i: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for missing in ["listwise", "as-value", "wildcard"] {
        for measure in ["frequency", "individual"] {
            out.push(
                [
                    "risk",
                    "--data",
                    r,
                    "--keys",
                    "region,age,sex",
                    "--missing",
                    missing,
                    "--measure",
                    measure,
                    "--weight",
                    "w",
                ]
                .map(String::from)
                .to_vec(),
            );
        }
        out.push(
            [
                "attack",
                "--method",
                "exact",
                "--intruder",
                i,
                "--released",
                r,
                "--keys",
                "region,age,sex",
                "--missing",
                missing,
                "--truth-intruder",
                "pid",
                "--truth-released",
                "id",
                "--set",
                "max_listed=3",
            ]
            .map(String::from)
            .to_vec(),
        );
    }
    // Fellegi–Sunter, its specification inferred from the keys (the CLI holds the files),
    // u from random pairs (500 are fewer than the value pairs of the keys) and greedy, or
    // from the values' frequencies and every pair ranked
    for extra in [
        ["--set", "u_sample=500", "--assignment", "greedy"],
        ["--set", "u_sample=1000000", "--assignment", "none"],
    ] {
        let mut cmd = [
            "attack",
            "--method",
            "fellegi-sunter",
            "--intruder",
            i,
            "--released",
            r,
            "--keys",
            "region,age,sex",
            "--truth-intruder",
            "pid",
            "--truth-released",
            "id",
        ]
        .map(String::from)
        .to_vec();
        cmd.extend(extra.map(String::from));
        out.push(cmd);
    }
    // and a specification with Splink's recipe ([training]: EM sessions on their own rules,
    // λ from deterministic rules), a blocking rule on two different columns and a
    // columns-reversed level; with a pair explained and the scored pairs written
    let spec = Path::new(r).with_file_name("training.toml");
    std::fs::write(
        &spec,
        r#"blocking = [["region"], ["l.age = r.region"]]
comparison = [
  { column = "region", levels = [{ kind = "null" }, { kind = "exact" }, { kind = "columns-reversed", column = "age" }, { kind = "else" }] },
  { column = "age", levels = [{ kind = "null" }, { kind = "exact" }, { kind = "absolute", threshold = 5 }, { kind = "else" }] },
  { column = "sex", preset = "exact" },
]
[training]
blocking = [["sex"], ["age"]]
deterministic = [["region", "age", "sex"]]
recall = 0.9
"#,
    )
    .unwrap();
    out.push(
        [
            "attack",
            "--method",
            "fellegi-sunter",
            "--intruder",
            i,
            "--released",
            r,
            "--linkage-spec",
            spec.to_str().unwrap(),
            "--truth-intruder",
            "pid",
            "--truth-released",
            "id",
            "--explain-pair",
            "3,5",
            "--pairs-out",
            Path::new(r).with_file_name("pairs.csv").to_str().unwrap(),
        ]
        .map(String::from)
        .to_vec(),
    );
    out
}

#[test]
fn risk_and_exact_are_the_same_on_every_engine() {
    let dir = tempfile::tempdir().unwrap();
    let (r, i) = files(dir.path(), 1500);
    let (r, i) = (r.to_str().unwrap(), i.to_str().unwrap());
    let bins = Path::new(env!("CARGO_BIN_EXE_intruder")).parent().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let cluster = LocalCluster::start(bins, 2, logs.path()).unwrap();
    let engines = ["datafusion".to_string(), cluster.url()];
    let scratch = cluster.scratch_dir().to_str().unwrap().to_string();
    for cmd in commands(r, i) {
        let mut args: Vec<&str> = cmd.iter().map(String::as_str).collect();
        args.extend(["--format", "json"]);
        let (ok, local, err) = intruder(&args, dir.path());
        assert!(ok, "{args:?}: {err}");
        let pairs_at = args.iter().position(|&x| x == "--pairs-out").map(|p| p + 1);
        let pairs = |a: &[&str]| pairs_at.map(|p| std::fs::read_to_string(a[p]).unwrap());
        let local_pairs = pairs(&args);
        for (n, engine) in engines.iter().enumerate() {
            let mut a = args.clone();
            a.extend(["--engine", engine]);
            let own = pairs_at.map(|p| format!("{}.{n}", a[p]));
            if let (Some(p), Some(own)) = (pairs_at, &own) {
                a[p] = own;
            }
            let on_cluster = engine.starts_with("ballista://");
            if on_cluster && args[0] == "attack" {
                // The attacks' numbered copies and Fellegi–Sunter's dictionaries
                // (docs/cluster.md).
                a.extend(["--scratch-dir", &scratch]);
            }
            let (ok, out, err) = intruder(&a, dir.path());
            assert!(ok, "{a:?}: {err}\n{}", cluster.log_tails(10));
            if let Some(d) = differs(&figures(&local), &figures(&out), "$") {
                panic!("{a:?}: {d}");
            }
            assert!(pairs(&a) == local_pairs, "{a:?}: the scored pairs differ");
            if args[0] == "risk" {
                // --timings gives the engine's phase (it printed only `write` once)
                a.push("--timings");
                let (ok, _, err) = intruder(&a, dir.path());
                let line = err
                    .lines()
                    .find(|l| l.starts_with("timings: "))
                    .unwrap_or("");
                assert!(
                    ok && line.contains("engine ") && line.contains("write "),
                    "{a:?}: {err}"
                );
            }
        }
    }
    drop(cluster);
}

/// An engine reads the files itself, so the command line reads of them only the truth, the
/// identifier columns and the released sensitive variable: the keys, unread on the driver,
/// are still taken from the schema's roles and checked by name (a misspelt key, a key that is
/// the truth), and `--pairs-out` names records by their identifier, as the local run does.
#[test]
fn an_engine_run_reads_the_truth_and_ids_alone_and_checks_keys_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (mut rel, mut int) = (
        String::from("rec,id,region,age,sex,income\n"),
        String::from("rec,pid,region,age,sex,income_true\n"),
    );
    let regions = ["north", "south", "east", "west"];
    for i in 0..400u64 {
        let region = regions[(unit(7, i) * 4.0) as usize % 4];
        let age = 20 + 5 * ((unit(8, i) * 10.0) as u64 % 10);
        let sex = if unit(9, i) < 0.5 { "f" } else { "m" };
        let income = 1000 + (unit(10, i) * 50.0) as u64 * 100;
        rel.push_str(&format!("R{i:04},{i},{region},{age},{sex},{income}\n"));
        if i % 3 == 0 {
            int.push_str(&format!("I{i:04},{i},{region},{age},{sex},{income}\n"));
        }
    }
    let roles = "[columns.rec]\nrole = \"identifier\"\n\
                 [columns.region]\nrole = \"key\"\n[columns.age]\nrole = \"key\"\n\
                 [columns.sex]\nrole = \"key\"\n";
    for (name, text) in [("released", &rel), ("intruder", &int)] {
        std::fs::write(dir.path().join(format!("{name}.csv")), text).unwrap();
        std::fs::write(dir.path().join(format!("{name}.schema.toml")), roles).unwrap();
    }
    std::fs::write(
        dir.path().join("spec.toml"),
        "blocking = [[\"region\"]]\ncomparison = [\n  { column = \"age\", preset = \"exact\" },\n  { column = \"sex\", preset = \"exact\" },\n]\n",
    )
    .unwrap();
    let base = [
        "attack",
        "--intruder",
        "intruder.csv",
        "--released",
        "released.csv",
        "--truth-intruder",
        "pid",
        "--truth-released",
        "id",
        "--format",
        "json",
    ];
    let runs: [&[&str]; 2] = [
        // keys from the schema's roles; attribute disclosure on the released income
        &[
            "--method",
            "exact",
            "--sensitive",
            "income",
            "--sensitive-truth",
            "income_true",
        ],
        &[
            "--method",
            "fellegi-sunter",
            "--linkage-spec",
            "spec.toml",
            "--pairs-out",
            "PAIRS",
        ],
    ];
    for extra in runs {
        let run = |engine: &str| {
            let mut a: Vec<&str> = base.iter().chain(extra).copied().collect();
            let pairs = format!("pairs-{engine}.csv");
            if let Some(p) = a.iter().position(|&x| x == "PAIRS") {
                a[p] = &pairs;
            }
            a.extend(["--engine", engine]);
            let (ok, out, err) = intruder(&a, dir.path());
            assert!(ok, "{a:?}: {err}");
            let written = std::fs::read_to_string(dir.path().join(&pairs)).ok();
            (figures(&out), written)
        };
        let (local, local_pairs) = run("local");
        let (engine, engine_pairs) = run("datafusion");
        if let Some(d) = differs(&local, &engine, "$") {
            panic!("{extra:?}: {d}");
        }
        assert_eq!(local["keys"], engine["keys"], "{extra:?}");
        assert_eq!(local_pairs, engine_pairs, "{extra:?}");
        if let Some(p) = engine_pairs {
            // records named by their identifier column, which the driver read
            let first = p.lines().nth(1).unwrap_or_default();
            assert!(first.starts_with('I') && first.contains(",R"), "{first}");
        }
    }
    // Keys checked by name against every column of the files, those the driver left unread.
    for (keys, needles) in [
        ("regoin,age", &["regoin", "region"][..]),
        ("pid,age", &["ground truth"][..]),
    ] {
        let mut a: Vec<&str> = base.to_vec();
        a.extend([
            "--method",
            "exact",
            "--keys",
            keys,
            "--engine",
            "datafusion",
        ]);
        let (ok, _, err) = intruder(&a, dir.path());
        assert!(!ok, "{a:?}");
        for n in needles {
            assert!(err.contains(n), "{keys}: {err}");
        }
    }
}

#[test]
fn what_an_engine_does_not_run_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let (r, i) = files(dir.path(), 200);
    let (r, i) = (r.to_str().unwrap(), i.to_str().unwrap());
    for (args, needle) in [
        (
            vec![
                "risk",
                "--data",
                r,
                "--keys",
                "region,age",
                "--measure",
                "suda2",
                "--engine",
                "datafusion",
            ],
            "local engine only",
        ),
        (
            vec![
                "risk",
                "--data",
                r,
                "--keys",
                "region",
                "--engine",
                "datafusion",
                "--memory-limit",
                "lots",
            ],
            "memory limit 'lots'",
        ),
        (
            vec![
                "risk",
                "--data",
                r,
                "--keys",
                "region",
                "--engine",
                "local",
                "--memory-limit",
                "1GiB",
            ],
            "applies to --engine datafusion",
        ),
        (
            vec!["risk", "--data", r, "--keys", "region", "--engine", "spark"],
            "expected local, datafusion or ballista://HOST:PORT",
        ),
        (
            vec![
                "risk",
                "--data",
                r,
                "--keys",
                "region",
                "--engine",
                "datafusion",
                "--scratch-dir",
                "/tmp",
            ],
            "--scratch-dir applies to --engine ballista://HOST:PORT",
        ),
        (
            vec![
                "attack",
                "--method",
                "nearest",
                "--intruder",
                i,
                "--released",
                r,
                "--keys",
                "age",
                "--truth-intruder",
                "pid",
                "--truth-released",
                "id",
                "--engine",
                "datafusion",
            ],
            "local engine only",
        ),
    ] {
        let (ok, _, err) = intruder(&args, dir.path());
        assert!(!ok, "{args:?} should fail");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

const EXPERIMENT: &str = r#"
name = "engines"
seed = 7
replicates = 2

[data]
generator = "survey-panel"
n = 400
released = "survey-panel.csv"
truth = "person_id"

[scenario]
keys = ["year_of_birth", "gender", "occupation", "origin"]
known = 0.3

[[scenario.error]]
method = "blank"
variables = ["origin"]
p = 0.05

[[defence]]
name = "none"

[[defence]]
name = "k-anonymity"
[[defence.step]]
method = "local-suppression"
keys = ["year_of_birth", "gender", "occupation", "origin"]
k = 2

[[attack]]
method = "exact"
name = "exact"

[[attack]]
method = "exact"
name = "exact-wildcard"
missing = "wildcard"

[[attack]]
method = "fellegi-sunter"
name = "fs"
u_sample = 3000

[attack.linkage]
blocking = [["gender", "origin"], ["year_of_birth"]]

[[attack.linkage.comparison]]
column = "year_of_birth"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "absolute", threshold = 1 }, { kind = "else" }]

[[attack.linkage.comparison]]
column = "occupation"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "else" }]

[[attack.linkage.comparison]]
column = "origin"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "else" }]

[[risk]]
name = "listwise"
missing = "listwise"

[[risk]]
name = "wildcard"
missing = "wildcard"
"#;

#[test]
fn an_experiment_gives_the_same_results_on_every_engine() {
    let dir = tempfile::tempdir().unwrap();
    let bins = Path::new(env!("CARGO_BIN_EXE_intruder")).parent().unwrap();
    let logs = tempfile::tempdir().unwrap();
    let cluster = LocalCluster::start(bins, 2, logs.path()).unwrap();
    let local = dir.path().join("local.toml");
    let df = dir.path().join("df.toml");
    let ballista = dir.path().join("ballista.toml");
    std::fs::write(&local, EXPERIMENT).unwrap();
    std::fs::write(
        &df,
        format!("{EXPERIMENT}\n[engine]\nname = \"datafusion\"\nmemory_limit = \"256MiB\"\n"),
    )
    .unwrap();
    // The runner's files are tables in memory: on a cluster they go to the scratch directory.
    std::fs::write(
        &ballista,
        format!(
            "{EXPERIMENT}\n[engine]\nname = \"{}\"\nscratch_dir = \"{}\"\n",
            cluster.url(),
            cluster.scratch_dir().display()
        ),
    )
    .unwrap();
    for (file, out) in [(&local, "out-local"), (&df, "out-df"), (&ballista, "out-b")] {
        let (ok, _, err) = intruder(&["run", file.to_str().unwrap(), "--out", out], dir.path());
        assert!(ok, "{}: {err}\n{}", file.display(), cluster.log_tails(10));
    }
    let read =
        |out: &str| std::fs::read_to_string(dir.path().join(out).join("results.csv")).unwrap();
    let a = read("out-local");
    for b in [read("out-df"), read("out-b")] {
        same_results(&a, &b);
    }
    assert_eq!(
        std::fs::read_dir(cluster.scratch_dir()).unwrap().count(),
        0,
        "the copies in the scratch directory are removed"
    );
    drop(cluster);
    assert!(a.contains("risk.wildcard.n_match_1") && a.contains("exact.correct_matches"));
    // A bad [engine] is a problem of the file, found before anything runs.
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, format!("{EXPERIMENT}\n[engine]\nname = \"spark\"\n")).unwrap();
    let (ok, _, err) = intruder(&["run", bad.to_str().unwrap(), "--out", "x"], dir.path());
    assert!(
        !ok && err.contains("engine") && err.contains("spark"),
        "{err}"
    );
}

/// One request to the page's server (`Connection: close`), its status and JSON body (a
/// chunked body decoded).
#[cfg(feature = "serve")]
fn page(
    s: &intruder_serve::Running,
    method: &str,
    path: &str,
    body: &serde_json::Value,
) -> (u16, serde_json::Value) {
    use std::io::{Read, Write};
    let body = body.to_string();
    let mut c = std::net::TcpStream::connect(s.addr).unwrap();
    write!(
        c,
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nX-Intruder-Token: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        s.addr,
        s.token,
        body.len()
    )
    .unwrap();
    let mut raw = Vec::new();
    c.read_to_end(&mut raw).unwrap();
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (head, mut rest) = raw.split_once("\r\n\r\n").unwrap();
    let status: u16 = head.split(' ').nth(1).unwrap().parse().unwrap();
    let mut text = String::new();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        loop {
            let (size, tail) = rest.split_once("\r\n").unwrap();
            let n = usize::from_str_radix(size.trim(), 16).unwrap();
            if n == 0 {
                break;
            }
            text.push_str(&tail[..n]);
            rest = &tail[n + 2..];
        }
    } else {
        text = rest.to_string();
    }
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (status, v)
}

/// The page runs an experiment whose `[engine]` is DataFusion in its own process, with the
/// figures of the same experiment on the local engine (the page's result, setting by
/// setting); a Ballista cluster and a spill directory are refused, each named.
#[cfg(feature = "serve")]
#[test]
fn the_page_runs_an_experiment_on_datafusion_with_the_local_figures() {
    use serde_json::json;
    let s = intruder_serve::Server::bind(&intruder_serve::Config::default())
        .unwrap()
        .spawn();
    let source = json!({"place": "generator", "generator": "survey-panel", "n": 400, "params": {}, "seed": 7, "file": "survey-panel.csv"});
    let run = |toml: String| -> serde_json::Value {
        let (status, a) = page(
            &s,
            "POST",
            "/api/run",
            &json!({"source": source, "toml": toml}),
        );
        assert_eq!(status, 200, "{a}");
        let job = a["job"].as_u64().unwrap_or_else(|| panic!("{a}"));
        let start = std::time::Instant::now();
        loop {
            let (_, st) = page(&s, "GET", &format!("/api/job/{job}"), &json!(null));
            if st["state"] != "running" {
                assert_eq!(st["state"], "done", "{st}");
                return st["result"]["settings"].clone();
            }
            assert!(start.elapsed().as_secs() < 300, "job {job}: {st}");
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    };
    // DataFusion first, on a fresh session (nothing stored to reuse), then the local engine
    // (runs stored on one engine are not reused on another)
    let df = run(format!(
        "{EXPERIMENT}\n[engine]\nname = \"datafusion\"\nmemory_limit = \"256MiB\"\n"
    ));
    let local = run(EXPERIMENT.to_string());
    assert!(local.as_array().is_some_and(|a| a.len() == 2), "{local}");
    assert!(local.to_string().contains("exact-wildcard"), "{local}");
    if let Some(d) = differs(&local, &df, "settings") {
        panic!("the page on datafusion against local: {d}");
    }
    let (status, a) = page(
        &s,
        "POST",
        "/api/run",
        &json!({"source": source, "toml": format!("{EXPERIMENT}\n[engine]\nname = \"ballista://127.0.0.1:50050\"\nspill_dir = \"spill\"\n")}),
    );
    assert_eq!(status, 400, "{a}");
    let said = a.to_string();
    assert!(
        said.contains("engine.name: ballista://127.0.0.1:50050")
            && said.contains("engine.spill_dir"),
        "{said}"
    );
}

/// Two results.csv with the same rows, metric by metric: values to a relative 1e-12 (sums in
/// another order).
fn same_results(a: &str, b: &str) {
    assert!(a.lines().count() > 4, "{a}");
    assert_eq!(a.lines().count(), b.lines().count(), "rows:\n{a}\n{b}");
    for (x, y) in a.lines().zip(b.lines()) {
        let (xs, xv) = x.rsplit_once(',').unwrap();
        let (ys, yv) = y.rsplit_once(',').unwrap();
        assert_eq!(xs, ys, "results.csv on two engines");
        match (xv.parse::<f64>(), yv.parse::<f64>()) {
            (Ok(p), Ok(q)) => assert!(same_number(p, q), "{x} against {y}"),
            _ => assert_eq!(xv, yv, "{x} against {y}"),
        }
    }
}
