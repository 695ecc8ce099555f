//! A headless Chromium driven over the DevTools protocol: a minimal WebSocket client (text
//! frames, no extensions) and the few protocol calls the browser test needs.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The Chromium binary, when installed (`CHROMIUM` overrides the path).
pub fn chromium() -> Option<String> {
    let path = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    std::path::Path::new(&path).exists().then_some(path)
}

/// A browser started by the test (killed when dropped) and a connection to one page.
pub struct Browser {
    child: Child,
    ws: TcpStream,
    next: u64,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    /// Asks chromium to quit (SIGTERM: it closes its helper processes too), and kills it after
    /// five seconds.
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    /// Starts headless Chromium with a fresh profile and a window of `width` × `height`, and
    /// connects to its first page.
    pub fn start(binary: &str, width: u32, height: u32) -> Browser {
        let profile = tempfile::tempdir().unwrap();
        let child = Command::new(binary)
            .args([
                "--headless=new",
                "--remote-debugging-port=0",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-extensions",
                "--disable-breakpad",
                "--disable-crash-reporter",
                // no scroll bar: see [`Browser::hide_scrollbars`]
                "--hide-scrollbars",
                &format!("--window-size={width},{height}"),
                &format!("--user-data-dir={}", profile.path().display()),
                "about:blank",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting chromium");
        // chromium writes its port to the profile once it listens
        let port_file = profile.path().join("DevToolsActivePort");
        let started = Instant::now();
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file)
                && let Some(port) = text.lines().next().filter(|l| !l.is_empty())
            {
                break port.to_string();
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "chromium did not listen"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let hostport = format!("127.0.0.1:{port}");
        let page_ws = page_target(&hostport);
        let ws = connect(&page_ws);
        let mut b = Browser {
            child,
            ws,
            next: 0,
            _profile: profile,
        };
        b.hide_scrollbars();
        b
    }

    /// Calls a protocol method and returns its result (events on the way are skipped).
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let msg = json!({"id": id, "method": method, "params": params}).to_string();
        send_text(&mut self.ws, msg.as_bytes());
        loop {
            let text = read_message(&mut self.ws);
            let v: Value = serde_json::from_slice(&text).unwrap();
            if v["id"] == id {
                if let Some(e) = v.get("error") {
                    panic!("{method}: {e}");
                }
                return v["result"].clone();
            }
        }
    }

    /// Evaluates `expr` in the page (awaiting a promise) and returns its value; a thrown error
    /// fails the test with the page's message.
    pub fn eval(&mut self, expr: &str) -> Value {
        let r = self.call(
            "Runtime.evaluate",
            json!({"expression": expr, "awaitPromise": true, "returnByValue": true}),
        );
        if let Some(e) = r.get("exceptionDetails") {
            panic!("{expr}: {e}");
        }
        r["result"]["value"].clone()
    }

    /// Waits until `expr` is true in the page (`timeout` at most).
    pub fn wait_for(&mut self, expr: &str, timeout: Duration) {
        let start = Instant::now();
        while self.eval(expr) != Value::Bool(true) {
            assert!(start.elapsed() < timeout, "waited {timeout:?} for {expr}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Hides the window's scroll bars from the start, so the page is laid out at the same
    /// width when an element is measured as when the capture beyond the window (which needs no
    /// scroll bar) draws it: with a scroll bar at measuring, the text above reflowed wider at
    /// capture and the clip fell below the element (its heading cut off). Hidden only just
    /// before measuring, the first screenshot was still measured with the bar.
    fn hide_scrollbars(&mut self) {
        self.call("Emulation.setScrollbarsHidden", json!({"hidden": true}));
    }

    /// A PNG of the element `selector` (its whole box, beyond the window), written to `path`.
    pub fn screenshot_of(&mut self, selector: &str, path: &std::path::Path) {
        let b = self.eval(&format!(
            "(() => {{ const r = document.querySelector({selector:?}).getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }})()"
        ));
        let r = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true, "clip": {
                "x": b[0], "y": b[1], "width": b[2], "height": b[3], "scale": 1}}),
        );
        std::fs::write(path, base64_decode(r["data"].as_str().unwrap())).unwrap();
    }

    /// A PNG of the whole page (beyond the window), written to `path`.
    pub fn screenshot(&mut self, path: &std::path::Path) {
        let m = self.call("Page.getLayoutMetrics", json!({}));
        let size = &m["cssContentSize"];
        let r = self.call(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true, "clip": {
                "x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}}),
        );
        let png = base64_decode(r["data"].as_str().unwrap());
        std::fs::write(path, png).unwrap();
    }
}

/// The WebSocket address of the browser's first page target.
fn page_target(hostport: &str) -> String {
    let start = Instant::now();
    loop {
        let mut s = TcpStream::connect(hostport).unwrap();
        write!(
            s,
            "GET /json/list HTTP/1.1\r\nHost: {hostport}\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        // chromium keeps the connection open: read the head, then Content-Length bytes
        let head = read_head(&mut s);
        let len: usize = head
            .lines()
            .find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("content-length")
                    .then(|| v.trim().parse().ok())?
            })
            .unwrap_or(0);
        let mut body = vec![0u8; len];
        s.read_exact(&mut body).unwrap();
        let raw = String::from_utf8_lossy(&body).into_owned();
        let body = raw.as_str();
        if let Ok(Value::Array(targets)) = serde_json::from_str::<Value>(body)
            && let Some(t) = targets.iter().find(|t| t["type"] == "page")
        {
            return t["webSocketDebuggerUrl"].as_str().unwrap().to_string();
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no page target: {raw}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Opens a WebSocket to `url` (`ws://host:port/path`).
fn connect(url: &str) -> TcpStream {
    let rest = url.trim_start_matches("ws://");
    let (hostport, path) = rest.split_at(rest.find('/').unwrap());
    let mut s = TcpStream::connect(hostport).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    .unwrap();
    let head = read_head(&mut s);
    assert!(head.starts_with("HTTP/1.1 101"), "{head}");
    s
}

/// Reads an HTTP answer's head, up to and including the blank line, byte by byte (what
/// follows stays in the stream).
fn read_head(s: &mut TcpStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        s.read_exact(&mut byte).unwrap();
        head.push(byte[0]);
    }
    String::from_utf8_lossy(&head).into_owned()
}

/// Sends one masked text frame.
fn send_text(s: &mut TcpStream, payload: &[u8]) {
    let mut frame = vec![0x81u8];
    let n = payload.len();
    if n < 126 {
        frame.push(0x80 | n as u8);
    } else if n < 65536 {
        frame.push(0x80 | 126);
        frame.extend_from_slice(&(n as u16).to_be_bytes());
    } else {
        frame.push(0x80 | 127);
        frame.extend_from_slice(&(n as u64).to_be_bytes());
    }
    let mask = [0x12u8, 0x34, 0x56, 0x78];
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    s.write_all(&frame).unwrap();
}

/// Reads one whole message (its fragments joined), skipping control frames.
fn read_message(s: &mut TcpStream) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let mut h = [0u8; 2];
        s.read_exact(&mut h).unwrap();
        let fin = h[0] & 0x80 != 0;
        let opcode = h[0] & 0x0f;
        let mut len = u64::from(h[1] & 0x7f);
        if len == 126 {
            let mut b = [0u8; 2];
            s.read_exact(&mut b).unwrap();
            len = u64::from(u16::from_be_bytes(b));
        } else if len == 127 {
            let mut b = [0u8; 8];
            s.read_exact(&mut b).unwrap();
            len = u64::from_be_bytes(b);
        }
        let mut payload = vec![0u8; len as usize];
        s.read_exact(&mut payload).unwrap();
        if opcode >= 0x8 {
            continue;
        }
        out.extend_from_slice(&payload);
        if fin {
            return out;
        }
    }
}

/// Decodes standard base64 (the screenshots' encoding).
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => 0,
        }
    };
    let bytes: Vec<u8> = text.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
    for chunk in bytes.chunks(4) {
        let pad = chunk.iter().filter(|c| **c == b'=').count();
        let n = chunk.iter().fold(0u32, |acc, c| (acc << 6) | value(*c)) << (6 * (4 - chunk.len()));
        let b = n.to_be_bytes();
        out.extend_from_slice(&b[1..4 - pad.min(2)]);
    }
    out
}

#[test]
fn base64_decodes_padded_and_unpadded_groups() {
    assert_eq!(base64_decode("aGVsbG8="), b"hello");
    assert_eq!(base64_decode("aGk="), b"hi");
    assert_eq!(base64_decode("aGV5"), b"hey");
    assert_eq!(base64_decode("aA=="), b"h");
}
