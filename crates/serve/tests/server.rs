//! The server: the token, the binding, the files it may read, uploads, risk, two clients at
//! once, and an experiment run from the page and reproduced from its export.

use std::path::Path;
use std::time::{Duration, Instant};

use intruder_serve::{Config, Running, Server};
use serde_json::{Value, json};

use crate::client::{get, post_json, request};

/// A server with `config`, serving on a background thread.
fn start(config: Config) -> Running {
    Server::bind(&config).expect("bind").spawn()
}

/// A root directory holding `sub/people.csv`, a file beside the root (`secret.csv`) and, on
/// Unix, a symbolic link in the root to it (`link.csv`).
fn root_with_files() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(
        root.join("sub/people.csv"),
        "id,area,sex,age\np1,1,m,30\np2,1,m,31\np3,2,f,40\np4,3,f,50\np5,3,f,51\np6,3,f,52\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("secret.csv"), "s\n42\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.path().join("secret.csv"), root.join("link.csv")).unwrap();
    (dir, root)
}

#[test]
fn no_request_without_the_token_succeeds() {
    let s = start(Config::default());
    let routes = [
        ("GET", "/"),
        ("GET", "/api/registries"),
        ("GET", "/api/files"),
        ("POST", "/api/upload?name=a.csv"),
        ("POST", "/api/load"),
        ("POST", "/api/risk"),
        ("POST", "/api/experiment"),
        ("POST", "/api/run"),
        ("GET", "/api/job/1"),
        ("POST", "/api/job/1/cancel"),
        ("GET", "/api/job/1/report.html"),
        ("GET", "/api/job/1/records"),
        ("GET", "/no-such-page"),
    ];
    for (method, path) in routes {
        let a = request(s.addr, method, path, &[], b"{}");
        assert_eq!(a.status, 403, "{method} {path}");
        assert!(a.text().contains("needs its access token"), "{}", a.text());
        let a = request(
            s.addr,
            method,
            path,
            &[("X-Intruder-Token", "wrong")],
            b"{}",
        );
        assert_eq!(a.status, 403, "{method} {path} with a wrong token");
        let a = request(
            s.addr,
            method,
            &format!(
                "{path}{}token=wrong",
                if path.contains('?') { '&' } else { '?' }
            ),
            &[],
            b"{}",
        );
        assert_eq!(
            a.status, 403,
            "{method} {path} with a wrong token in the query"
        );
    }
    // the printed URL opens the page and sets the cookie; the cookie alone then suffices
    assert!(
        s.url.ends_with(&format!("/?token={}", s.token)),
        "{}",
        s.url
    );
    let a = request(s.addr, "GET", &format!("/?token={}", s.token), &[], b"");
    assert_eq!(a.status, 200);
    assert!(a.text().contains("<title>intruder serve</title>"));
    let cookie = a.header("set-cookie").expect("a cookie");
    assert_eq!(
        cookie,
        format!(
            "intruder_token={}; Path=/; HttpOnly; SameSite=Strict",
            s.token
        )
    );
    let a = request(
        s.addr,
        "GET",
        "/api/files",
        &[("Cookie", &format!("intruder_token={}", s.token))],
        b"",
    );
    assert_eq!(a.status, 200);
    assert_eq!(a.json()["root"], Value::Null);
}

#[test]
fn it_binds_the_loopback_address_unless_told_otherwise() {
    let config = Config::default();
    assert_eq!(config.host, "127.0.0.1");
    assert!(config.is_loopback());
    let s = start(config);
    assert!(s.addr.ip().is_loopback(), "{}", s.addr);
    assert_ne!(s.addr.port(), 0, "port 0 picks a free port");
    for (host, loopback) in [
        ("::1", true),
        ("localhost", true),
        ("0.0.0.0", false),
        ("192.168.1.2", false),
    ] {
        let c = Config {
            host: host.into(),
            ..Config::default()
        };
        assert_eq!(c.is_loopback(), loopback, "{host}");
    }
}

#[test]
fn files_out_of_the_root_are_refused() {
    let (_dir, root) = root_with_files();
    let s = start(Config {
        root: Some(root.clone()),
        ..Config::default()
    });
    let files = get(s.addr, &s.token, "/api/files").json();
    assert_eq!(files["root_files"], json!(["sub/people.csv"]));
    let load = |path: &str| {
        post_json(
            s.addr,
            &s.token,
            "/api/load",
            &json!({"source": {"place": "root", "path": path}}),
        )
    };
    let a = load("sub/people.csv");
    assert_eq!(a.status, 200, "{}", a.text());
    let d = a.json();
    assert_eq!(d["records"], 6);
    let names: Vec<&str> = d["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["id", "area", "sex", "age"]);
    assert_eq!(d["columns"][2]["kind"], "categorical");
    assert_eq!(d["columns"][3]["kind"], "integer");
    assert_eq!(d["preview"][0], json!(["p1", "1", "m", "30"]));
    let a = load("../secret.csv");
    assert_eq!(a.status, 403);
    assert_eq!(
        a.json()["error"],
        "../secret.csv: '..' is refused; name a file under the root"
    );
    let a = load("sub/../../secret.csv");
    assert_eq!(a.status, 403);
    let abs = root
        .parent()
        .unwrap()
        .join("secret.csv")
        .display()
        .to_string();
    let a = load(&abs);
    assert_eq!(a.status, 403);
    assert_eq!(
        a.json()["error"],
        format!("{abs}: absolute paths are refused; name a file under the root")
    );
    #[cfg(unix)]
    {
        let a = load("link.csv");
        assert_eq!(a.status, 403);
        assert_eq!(
            a.json()["error"],
            "link.csv: leads out of the root (through a symbolic link); refused"
        );
    }
    // an upload's name is a plain name: no path reaches out of the uploads
    let a = post_json(
        s.addr,
        &s.token,
        "/api/load",
        &json!({"source": {"place": "upload", "path": "../../etc/passwd"}}),
    );
    assert_eq!(a.status, 403);
    // an experiment naming a file out of the root is refused before it runs
    let toml = "name = \"x\"\nseed = 1\n[data]\nreleased = \"../secret.csv\"\ntruth = \"s\"\n[scenario]\nkeys = [\"s\"]\n[[defence]]\nname = \"none\"\n[[attack]]\nmethod = \"exact\"\n";
    let a = post_json(
        s.addr,
        &s.token,
        "/api/run",
        &json!({"source": {"place": "root", "path": "sub/people.csv"}, "toml": toml}),
    );
    assert_eq!(a.status, 400);
    assert_eq!(
        a.json()["error"],
        "the experiment has problems:\n  - data.released: ../secret.csv: '..' is refused; name a file under the root"
    );
}

#[test]
fn an_upload_over_the_limit_is_refused_with_a_clear_message() {
    let s = start(Config {
        upload_limit: 1 << 20,
        ..Config::default()
    });
    let big = vec![b'1'; (2 << 20) + 5];
    let a = request(
        s.addr,
        "POST",
        "/api/upload?name=big.csv",
        &[("X-Intruder-Token", &s.token)],
        &big,
    );
    assert_eq!(a.status, 413);
    assert_eq!(
        a.json()["error"],
        "big.csv: 2 MiB is larger than the upload limit of 1 MiB (start intruder serve with --root DIR to read large files where they are)"
    );
    let a = request(
        s.addr,
        "POST",
        "/api/upload?name=tool.exe",
        &[("X-Intruder-Token", &s.token)],
        b"x",
    );
    assert_eq!(a.status, 403);
    assert!(
        a.json()["error"]
            .as_str()
            .unwrap()
            .contains("not a data or schema file")
    );
    let csv = b"id,area,sex\np1,1,m\np2,1,m\np3,2,f\n";
    let a = request(
        s.addr,
        "POST",
        "/api/upload?name=small.csv",
        &[("X-Intruder-Token", &s.token)],
        csv,
    );
    assert_eq!(a.status, 200, "{}", a.text());
    assert_eq!(
        a.json(),
        json!({"place": "upload", "path": "small.csv", "bytes": csv.len()})
    );
    let files = get(s.addr, &s.token, "/api/files").json();
    assert_eq!(files["uploads"], json!(["small.csv"]));
    let d = post_json(
        s.addr,
        &s.token,
        "/api/load",
        &json!({"source": {"place": "upload", "path": "small.csv"}}),
    )
    .json();
    assert_eq!(d["records"], 3);
}

#[test]
fn a_stopped_server_leaves_no_upload_behind_and_closes_its_port() {
    let s = start(Config::default());
    let csv = b"id,area\np1,1\np2,2\n";
    let a = request(
        s.addr,
        "POST",
        "/api/upload?name=kept.csv",
        &[("X-Intruder-Token", &s.token)],
        csv,
    );
    assert_eq!(a.status, 200, "{}", a.text());
    let session = s.uploads.parent().unwrap().to_path_buf();
    assert!(s.uploads.join("kept.csv").is_file());
    let (addr, copy) = (s.addr, s.clone());
    drop(s);
    // Another handle still holds the server: it serves on.
    assert_eq!(get(addr, &copy.token, "/api/files").status, 200);
    drop(copy);
    assert!(!session.exists(), "{} is still there", session.display());
    assert!(std::net::TcpStream::connect(addr).is_err());
}

/// A CSV file made as it is read (never held whole): `id,area,sex` and `lines` records of 17
/// bytes each (`p000000001,001,f`), record `i` in area `i % 997` of sex `m` or `f` by `i % 2`.
struct GeneratedCsv {
    lines: u64,
    next: u64,
    pending: Vec<u8>,
}

impl GeneratedCsv {
    /// The file of `lines` records.
    fn new(lines: u64) -> Self {
        GeneratedCsv {
            lines,
            next: 0,
            pending: b"id,area,sex\n".to_vec(),
        }
    }

    /// Its size in bytes.
    fn len(&self) -> u64 {
        12 + 17 * self.lines
    }
}

impl std::io::Read for GeneratedCsv {
    /// Fills `buf` with the next bytes, making records as they are needed.
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pending.len() < buf.len() && self.next < self.lines {
            let i = self.next + 1;
            let sex = if i.is_multiple_of(2) { 'm' } else { 'f' };
            self.pending
                .extend_from_slice(format!("p{i:09},{:03},{sex}\n", i % 997).as_bytes());
            self.next += 1;
        }
        let n = buf.len().min(self.pending.len());
        buf[..n].copy_from_slice(&self.pending[..n]);
        self.pending.drain(..n);
        Ok(n)
    }
}

/// 200 MB of records (11,764,705 of them).
const LINES_200_MB: u64 = 11_764_705;

#[test]
fn a_200_mb_upload_is_stored_under_the_default_limit() {
    let s = start(Config::default());
    let csv = GeneratedCsv::new(LINES_200_MB);
    let bytes = csv.len();
    assert_eq!(bytes, 199_999_997);
    assert!(bytes < intruder_serve::DEFAULT_UPLOAD_LIMIT as u64);
    let a = crate::client::request_streamed(
        s.addr,
        "POST",
        "/api/upload?name=big.csv",
        &[("X-Intruder-Token", &s.token)],
        Some(bytes),
        csv,
    );
    assert_eq!(a.status, 200, "{}", a.text());
    assert_eq!(
        a.json(),
        json!({"place": "upload", "path": "big.csv", "bytes": bytes})
    );
    let stored = s.uploads.join("big.csv");
    assert_eq!(std::fs::metadata(&stored).unwrap().len(), bytes);
    // its first and last records arrived whole
    let text = std::fs::read(&stored).unwrap();
    assert!(text.starts_with(b"id,area,sex\np000000001,001,f\n"));
    assert!(text.ends_with(b"p011764705,105,f\n"));
    drop(text);
    let files = get(s.addr, &s.token, "/api/files").json();
    assert_eq!(files["uploads"], json!(["big.csv"]));
    // the session's directory outlives the test's server thread: leave no 200 MB behind
    std::fs::remove_file(stored).unwrap();
}

#[test]
fn a_200_mb_upload_over_the_limit_is_refused_naming_the_limit() {
    let s = start(Config {
        upload_limit: 100 << 20,
        ..Config::default()
    });
    // declared: refused before the body is read
    let a = crate::client::request_streamed(
        s.addr,
        "POST",
        "/api/upload?name=big.csv",
        &[("X-Intruder-Token", &s.token)],
        Some(GeneratedCsv::new(LINES_200_MB).len()),
        GeneratedCsv::new(LINES_200_MB),
    );
    assert_eq!(a.status, 413, "{}", a.text());
    assert_eq!(
        a.json()["error"],
        "big.csv: 191 MiB is larger than the upload limit of 100 MiB (start intruder serve with --root DIR to read large files where they are)"
    );
    // not declared (chunked): refused once the limit is passed, and nothing kept
    let a = crate::client::request_streamed(
        s.addr,
        "POST",
        "/api/upload?name=big.csv",
        &[("X-Intruder-Token", &s.token)],
        None,
        GeneratedCsv::new(LINES_200_MB),
    );
    assert_eq!(a.status, 413, "{}", a.text());
    assert_eq!(
        a.json()["error"],
        "big.csv: the upload went past the upload limit of 100 MiB (start intruder serve with --root DIR to read large files where they are)"
    );
    let left: Vec<_> = std::fs::read_dir(&s.uploads).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    let files = get(s.addr, &s.token, "/api/files").json();
    assert_eq!(files["uploads"], json!([]));
    // a file under the limit still goes in
    let csv = GeneratedCsv::new(1000);
    let a = crate::client::request_streamed(
        s.addr,
        "POST",
        "/api/upload?name=small.csv",
        &[("X-Intruder-Token", &s.token)],
        None,
        csv,
    );
    assert_eq!(a.status, 200, "{}", a.text());
    assert_eq!(a.json()["bytes"], 12 + 17 * 1000);
}

#[test]
fn the_risk_of_the_keys_chosen_comes_at_once() {
    let (_dir, root) = root_with_files();
    let s = start(Config {
        root: Some(root),
        ..Config::default()
    });
    let source = json!({"place": "root", "path": "sub/people.csv"});
    let a = post_json(
        s.addr,
        &s.token,
        "/api/risk",
        &json!({"source": source, "params": {"keys": ["area", "sex"]}}),
    );
    assert_eq!(a.status, 200, "{}", a.text());
    let r = a.json();
    assert_eq!(r["measure"], "frequency");
    let figure = |name: &str| {
        r["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {r}"))
            .clone()
    };
    // classes on (area, sex): (1,m) ×2, (2,f) ×1, (3,f) ×3
    assert_eq!(figure("sample_uniques")["value"], 1);
    assert!(
        !figure("sample_uniques")["meaning"]
            .as_str()
            .unwrap()
            .is_empty()
    );
    let sizes = r["records"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["summary"]["kind"] == "counts")
        .expect("class sizes");
    assert_eq!(
        sizes["summary"]["counts"],
        json!([1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0])
    );
    let a = post_json(
        s.addr,
        &s.token,
        "/api/risk",
        &json!({"source": source, "params": {"keys": ["area", "sexx"]}}),
    );
    assert_eq!(a.status, 400);
    assert!(
        a.json()["error"]
            .as_str()
            .unwrap()
            .contains("did you mean 'sex'"),
        "{}",
        a.text()
    );
}

#[test]
fn two_clients_at_once_get_the_same_answers() {
    let (_dir, root) = root_with_files();
    let s = start(Config {
        root: Some(root),
        ..Config::default()
    });
    let ask = |s: &Running| {
        let source = json!({"place": "root", "path": "sub/people.csv"});
        let d = post_json(s.addr, &s.token, "/api/load", &json!({"source": source})).json();
        let r = post_json(
            s.addr,
            &s.token,
            "/api/risk",
            &json!({"source": source, "params": {"keys": ["area", "age"]}}),
        )
        .json();
        (d, r)
    };
    let (a, b) = std::thread::scope(|scope| {
        let a = scope.spawn(|| (0..5).map(|_| ask(&s)).collect::<Vec<_>>());
        let b = scope.spawn(|| (0..5).map(|_| ask(&s)).collect::<Vec<_>>());
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!(a, b);
    assert_eq!(a[0].0["records"], 6);
}

/// A page's file of 40 people: `id,area,sex,age`; with `unique`, every person alone on
/// (area, sex), else all in one class.
fn people_csv(unique: bool) -> String {
    let mut t = String::from("id,area,sex,age\n");
    for i in 0..40 {
        let (area, sex) = if unique {
            (i / 2, if i % 2 == 0 { "m" } else { "f" })
        } else {
            (1, "m")
        };
        t.push_str(&format!("p{i},{area},{sex},{}\n", 20 + i));
    }
    t
}

/// The session a page sends for an uploaded file: the default name (`session`), keys area and
/// sex, no masking, the exact attack.
fn upload_session(path: &str) -> Value {
    json!({
        "name": "session", "seed": 3, "replicates": 1,
        "data": {"released": path, "truth": "id"},
        "scenario": {"keys": ["area", "sex"]},
        "defence": [{"name": "none"}],
        "attack": [{"method": "exact", "name": "exact"}],
    })
}

#[test]
fn two_browsers_at_once_each_see_their_own_file_and_results() {
    let s = start(Config::default());
    // each page uploads its own file under the same name, loads it, and runs the default
    // session on it at the same time as the other
    let page = |unique: bool| {
        let csv = people_csv(unique);
        let up = request(
            s.addr,
            "POST",
            "/api/upload?name=survey.csv",
            &[("X-Intruder-Token", &s.token)],
            csv.as_bytes(),
        );
        assert_eq!(up.status, 200, "{}", up.text());
        let path = up.json()["path"].as_str().unwrap().to_string();
        let source = json!({"place": "upload", "path": path});
        let d = post_json(s.addr, &s.token, "/api/load", &json!({"source": source})).json();
        assert_eq!(d["records"], 40);
        let risk = post_json(
            s.addr,
            &s.token,
            "/api/risk",
            &json!({"source": source, "params": {"keys": ["area", "sex"]}}),
        )
        .json();
        let w = post_json(
            s.addr,
            &s.token,
            "/api/experiment",
            &json!({"source": source, "experiment": upload_session(&path)}),
        )
        .json();
        assert_eq!(w["problems"], json!([]), "{w}");
        let toml = w["toml"].as_str().unwrap().to_string();
        let r = post_json(
            s.addr,
            &s.token,
            "/api/run",
            &json!({"source": source, "toml": toml}),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let job = r.json()["job"].as_u64().unwrap();
        let st = wait(&s, job);
        assert_eq!(st["state"], "done", "{st}");
        let records = get(s.addr, &s.token, &format!("/api/job/{job}/records")).json();
        let report = get(s.addr, &s.token, &format!("/api/job/{job}/report.html"));
        assert_eq!(report.status, 200);
        (csv, path, risk, toml, st, records, report.text())
    };
    let (a, b) = std::thread::scope(|scope| {
        let a = scope.spawn(|| page(true));
        let b = scope.spawn(|| page(false));
        (a.join().unwrap(), b.join().unwrap())
    });
    // the second upload of another file under the same name was stored beside the first
    let mut paths = [a.1.clone(), b.1.clone()];
    paths.sort();
    assert_eq!(paths, ["survey-2.csv", "survey.csv"]);
    assert_eq!(std::fs::read_to_string(s.uploads.join(&a.1)).unwrap(), a.0);
    assert_eq!(std::fs::read_to_string(s.uploads.join(&b.1)).unwrap(), b.0);
    let uniques = |r: &Value| {
        r["figures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == "sample_uniques")
            .unwrap()["value"]
            .clone()
    };
    assert_eq!(uniques(&a.2), 40);
    assert_eq!(uniques(&b.2), 0);
    // each page's records: everyone re-identified on its unique file, one in 40 at most on
    // the other
    assert_eq!(a.5["counts"]["correct"], 40, "{}", a.5["counts"]);
    assert!(
        a.5["counts"]["correct"].as_u64().unwrap() > b.5["counts"]["correct"].as_u64().unwrap()
    );
    assert!(
        b.5["counts"]["correct"].as_u64().unwrap() <= 1,
        "{}",
        b.5["counts"]
    );
    assert_ne!(a.6, b.6, "each job keeps its own report");
    // each page's figures are what its export gives on its own file
    for (csv, path, _, toml, st, _, _) in [&a, &b] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(path), csv).unwrap();
        let file = dir.path().join("session.toml");
        std::fs::write(&file, toml).unwrap();
        let reproduced = run_exported(&file, &dir.path().join("out"));
        assert_eq!(reproduced["settings"], st["result"]["settings"]);
    }
    // the same file uploaded again keeps its name
    let again = request(
        s.addr,
        "POST",
        "/api/upload?name=survey.csv",
        &[("X-Intruder-Token", &s.token)],
        std::fs::read(s.uploads.join("survey.csv"))
            .unwrap()
            .as_slice(),
    );
    assert_eq!(again.json()["path"], "survey.csv");
}

/// Polls a job until it is no longer running (two minutes at most).
pub fn wait(s: &Running, job: u64) -> Value {
    let start = Instant::now();
    loop {
        let st = get(s.addr, &s.token, &format!("/api/job/{job}")).json();
        if st["state"] != "running" {
            return st;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "job {job} still running: {st}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The session of a page that loaded the survey-panel generator's file: keys, no masking and
/// k-anonymity, the exact attack, the frequency risk and information loss.
pub fn generator_session() -> (Value, Value) {
    let source = json!({"place": "generator", "generator": "survey-panel", "n": 300, "params": {}, "seed": 7, "file": "survey-panel.csv"});
    let keys = json!(["year_of_birth", "gender", "occupation"]);
    let exp = json!({
        "name": "page-session", "seed": 7, "replicates": 2,
        "data": {"generator": "survey-panel", "n": 300, "released": "survey-panel.csv", "truth": "person_id"},
        "scenario": {"keys": keys, "known": 0.3},
        "defence": [{"name": "none"}, {"name": "k-anonymity", "step": [{"method": "local-suppression", "keys": keys, "k": [2, 3]}]}],
        "attack": [{"method": "exact", "name": "exact"}],
        "risk": [{"name": "page", "measure": "frequency", "keys": keys}],
        "utility": {"variables": keys, "measures": ["information-loss"]},
    });
    (source, exp)
}

#[test]
fn an_exported_session_reproduces_the_page_figures() {
    let s = start(Config::default());
    let (source, exp) = generator_session();
    let w = post_json(
        s.addr,
        &s.token,
        "/api/experiment",
        &json!({"source": source, "experiment": exp}),
    );
    assert_eq!(w.status, 200, "{}", w.text());
    let w = w.json();
    assert_eq!(w["problems"], json!([]), "{}", w["toml"]);
    let toml = w["toml"].as_str().unwrap().to_string();
    let a = post_json(
        s.addr,
        &s.token,
        "/api/run",
        &json!({"source": source, "toml": toml}),
    )
    .json();
    let job = a["job"].as_u64().unwrap_or_else(|| panic!("{a}"));
    let st = wait(&s, job);
    assert_eq!(st["state"], "done", "{st}");
    let page = &st["result"];
    assert_eq!(page["plots"][0]["file"], "risk-utility.svg");
    assert!(
        page["plots"][0]["svg"]
            .as_str()
            .unwrap()
            .starts_with("<svg")
    );
    assert_eq!(
        page["settings"].as_array().unwrap().len(),
        3,
        "none, k = 2, k = 3"
    );
    assert!(page["verdict"].is_object(), "{}", page["verdict"]);
    let report = get(s.addr, &s.token, &format!("/api/job/{job}/report.html"));
    assert_eq!(report.status, 200);
    assert!(report.text().contains("<html"));

    // export: the same text, saved and run by the runner as `intruder run` runs it
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("page-session.toml");
    std::fs::write(&file, &toml).unwrap();
    let reproduced = run_exported(&file, &dir.path().join("out"));
    assert_eq!(reproduced["settings"], page["settings"]);
}

/// A generalisation step's search shows on the page as it does in the report: the frontier's
/// table (the chosen node marked) beside the headline and verdict tables, and its figure with
/// the other figures.
#[test]
fn a_generalisation_frontier_shows_on_the_page() {
    let s = start(Config::default());
    let (source, mut exp) = generator_session();
    exp["defence"] = json!([
        {"name": "none"},
        {"name": "generalised", "step": [{
            "method": "generalise",
            "hierarchies": {
                "year_of_birth": {"interval": [5, 10, 20]},
                "gender": {"mask": true},
                "occupation": {"mask": true},
            },
            "k": 2,
            "suppression_limit": 0.05,
        }]},
    ]);
    exp["replicates"] = json!(1);
    let job = crate::records::run_session(&s, &source, &exp);
    let st = wait(&s, job);
    let page = &st["result"];
    let frontiers = page["frontiers"].as_array().unwrap();
    assert_eq!(frontiers.len(), 1, "{}", page["frontiers"]);
    let f = &frontiers[0];
    assert!(
        f["title"]
            .as_str()
            .unwrap()
            .starts_with("Generalisation frontier: generalised"),
        "{f}"
    );
    assert_eq!(f["header"][0], "chosen");
    let rows = f["rows"].as_array().unwrap();
    assert_eq!(
        rows.iter().filter(|r| r[0] == "yes").count(),
        1,
        "one chosen node: {f}"
    );
    assert!(
        page["plots"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["file"].as_str().unwrap().starts_with("frontier-")),
        "{}",
        page["plots"]
    );
}

#[test]
fn a_setting_added_to_the_session_runs_alone_and_the_map_fills_in() {
    let s = start(Config::default());
    let (source, mut exp) = generator_session();
    let run = |exp: &Value| {
        let toml = post_json(
            s.addr,
            &s.token,
            "/api/experiment",
            &json!({"source": source, "experiment": exp}),
        )
        .json()["toml"]
            .as_str()
            .unwrap()
            .to_string();
        let job = post_json(
            s.addr,
            &s.token,
            "/api/run",
            &json!({"source": source, "toml": toml}),
        )
        .json()["job"]
            .as_u64()
            .unwrap();
        wait(&s, job)
    };
    let first = run(&exp);
    assert_eq!(first["result"]["executed"], 6, "3 settings x 2 replicates");
    exp["defence"].as_array_mut().unwrap().push(json!({"name": "pram", "step": [{"method": "pram", "variables": ["occupation"], "pd": 0.8}]}));
    let second = run(&exp);
    assert_eq!(second["state"], "done", "{second}");
    assert_eq!(
        second["result"]["executed"], 2,
        "only the new setting's 2 replicates"
    );
    let settings = second["result"]["settings"].as_array().unwrap();
    assert_eq!(settings.len(), 4);
    assert_eq!(
        &settings[..3],
        first["result"]["settings"].as_array().unwrap().as_slice()
    );
}

/// Runs an exported experiment file with the runner into `out` and reads its `results.json`.
pub fn run_exported(file: &Path, out: &Path) -> Value {
    let exp = intruder_runner::Experiment::from_file(file).unwrap();
    let opts = intruder_runner::RunOptions {
        out: Some(out.to_path_buf()),
        ..Default::default()
    };
    intruder_runner::run_experiment(&exp, &opts).unwrap();
    serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap()
}

#[test]
fn a_long_experiment_can_be_cancelled() {
    let s = start(Config::default());
    let (source, mut exp) = generator_session();
    exp["replicates"] = json!(400);
    let toml = post_json(
        s.addr,
        &s.token,
        "/api/experiment",
        &json!({"source": source, "experiment": exp}),
    )
    .json()["toml"]
        .as_str()
        .unwrap()
        .to_string();
    let job = post_json(
        s.addr,
        &s.token,
        "/api/run",
        &json!({"source": source, "toml": toml}),
    )
    .json()["job"]
        .as_u64()
        .unwrap();
    let c = post_json(
        s.addr,
        &s.token,
        &format!("/api/job/{job}/cancel"),
        &json!({}),
    );
    assert_eq!(c.status, 200);
    let st = wait(&s, job);
    assert_eq!(st["state"], "cancelled", "{st}");
    assert!(st["done"].as_u64().unwrap() < 1200, "{st}");
    let a = get(s.addr, &s.token, "/api/job/99");
    assert_eq!(a.status, 404);
    assert_eq!(a.json()["error"], "no job 99");
}

#[test]
fn the_registries_list_every_family_with_parameters() {
    let s = start(Config::default());
    let r = get(s.addr, &s.token, "/api/registries").json();
    for f in intruder::methods::FAMILIES {
        let names: Vec<&str> = r[f]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        let expected: Vec<&str> = intruder::methods::docs(f)
            .unwrap()
            .iter()
            .map(|d| d.name)
            .collect();
        assert_eq!(names, expected, "{f}");
    }
    assert!(r["generator_files"]["survey-panel"][0]["file"].is_string());
}
