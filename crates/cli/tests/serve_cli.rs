//! `intruder serve`: prints a URL with its token, warns when it listens beyond this machine,
//! and refuses a request without the token.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

/// The status code of a GET of `path` on `hostport`.
fn status(hostport: &str, path: &str) -> u16 {
    let mut s = TcpStream::connect(hostport).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {hostport}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    raw.split(' ').nth(1).unwrap().parse().unwrap()
}

/// `intruder serve ARGS --port 0` with its temporary files under `tmp`, once it has printed
/// its URL: the process (its output still piped), the URL's `host:port` (127.0.0.1 and the
/// port chosen) and its token.
fn serve(args: &[&str], tmp: &std::path::Path) -> (std::process::Child, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_intruder"))
        .args(["serve", "--port", "0"])
        .args(args)
        .env("TMPDIR", tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    let url = line
        .trim()
        .strip_prefix("intruder serve: open http://127.0.0.1:")
        .unwrap_or_else(|| panic!("{line}"));
    let (port, query) = url.split_once('/').unwrap();
    let token = query.strip_prefix("?token=").unwrap().to_string();
    let hostport = format!("127.0.0.1:{port}");
    // The pipe stays open: the server still writes to it (a closed one would end it).
    child.stdout = Some(out.into_inner());
    (child, hostport, token)
}

#[test]
fn serve_prints_a_url_with_its_token_and_warns_off_the_loopback() {
    // Killed below (no chance to clean up): its private directory goes with `tmp`.
    let tmp = tempfile::tempdir().unwrap();
    let (mut child, hostport, token) = serve(&["--host", "0.0.0.0"], tmp.path());
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut warning = String::new();
    err.read_line(&mut warning).unwrap();
    let url = format!("http://{hostport}/?token={token}");
    let answers = (
        status(&hostport, "/"),
        status(&hostport, &format!("/?token={token}")),
    );
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(token.len(), 48, "{url}");
    assert_eq!(
        warning.trim(),
        "warning: --host 0.0.0.0: the page is reachable from other machines; anyone with the URL's token can read the files it serves and run experiments"
    );
    assert_eq!(answers, (403, 200));
}

#[test]
fn serve_refuses_a_root_that_is_not_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.csv");
    std::fs::write(&file, "x\n1\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_intruder"))
        .args(["serve", "--root"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        format!("error: --root {}: not a directory", file.display())
    );
}

/// `intruder serve` stopped by `signal` (as Ctrl-C or a service manager stops it): it exits
/// with 0 and its private directory, with the file uploaded to it, is gone.
#[cfg(unix)]
fn stopped_by(signal: &str) {
    let tmp = tempfile::tempdir().unwrap();
    let (mut child, hostport, token) = serve(&[], tmp.path());
    let body = "id,area\np1,1\n";
    let mut s = TcpStream::connect(&hostport).unwrap();
    write!(
        s,
        "POST /api/upload?name=people.csv HTTP/1.1\r\nHost: {hostport}\r\nX-Intruder-Token: {token}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    let sessions: Vec<_> = std::fs::read_dir(tmp.path()).unwrap().collect();
    assert_eq!(sessions.len(), 1);
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert_eq!(exit.code(), Some(0), "{err}");
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[cfg(unix)]
#[test]
fn serve_interrupted_removes_its_uploads() {
    stopped_by("-INT");
}

#[cfg(unix)]
#[test]
fn serve_terminated_removes_its_uploads() {
    stopped_by("-TERM");
}
