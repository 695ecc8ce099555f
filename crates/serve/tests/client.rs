//! A small blocking HTTP/1.1 client over a TCP stream: enough to test the server without a
//! client library (one request per connection, `Connection: close`, chunked answers decoded).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

/// An answer: status, headers (lower-case names) and body.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    /// The body as text.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    /// The first header called `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Sends one request: `method path` with `headers` and `body`, and reads the whole answer.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Answer {
    let mut s = TcpStream::connect(addr).expect("connect");
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    s.write_all(head.as_bytes()).expect("write head");
    // the server may answer (413) and close before the whole body is sent
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    parse(&raw)
}

/// Sends one request whose body is read from `body` as it goes (never held whole): with a
/// `Content-Length` of `length` when given, else chunked. The answer is read while the body is
/// sent, so an answer the server gives before the body ends (413) is read before it closes.
pub fn request_streamed(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    length: Option<u64>,
    mut body: impl Read + Send,
) -> Answer {
    let mut s = TcpStream::connect(addr).expect("connect");
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    match length {
        Some(n) => head.push_str(&format!("Content-Length: {n}\r\n")),
        None => head.push_str("Transfer-Encoding: chunked\r\n"),
    }
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut reader = s.try_clone().expect("clone the stream");
    std::thread::scope(|scope| {
        let answer = scope.spawn(move || {
            let mut raw = Vec::new();
            // a reset after the answer (the server closed with the body unread) keeps what came
            let _ = reader.read_to_end(&mut raw);
            raw
        });
        let sent = (|| -> std::io::Result<()> {
            s.write_all(head.as_bytes())?;
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let n = body.read(&mut buf)?;
                if length.is_none() {
                    s.write_all(format!("{n:x}\r\n").as_bytes())?;
                    s.write_all(&buf[..n])?;
                    s.write_all(b"\r\n")?;
                } else {
                    s.write_all(&buf[..n])?;
                }
                if n == 0 {
                    return Ok(());
                }
            }
        })();
        // the server may answer and close before the whole body is sent
        let _ = sent;
        parse(&answer.join().expect("the reader"))
    })
}

/// Parses a whole HTTP/1.1 answer.
fn parse(raw: &[u8]) -> Answer {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..end]).into_owned();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .expect("status");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let mut body = raw[end + 4..].to_vec();
    if headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"))
    {
        body = dechunk(&body);
    }
    Answer {
        status,
        headers,
        body,
    }
}

/// Decodes a chunked body.
fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = b.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + size]);
        b = &b[eol + 2 + size + 2..];
    }
}

/// A GET with the token header.
pub fn get(addr: SocketAddr, token: &str, path: &str) -> Answer {
    request(addr, "GET", path, &[("X-Intruder-Token", token)], b"")
}

/// A POST of JSON with the token header.
pub fn post_json(addr: SocketAddr, token: &str, path: &str, body: &serde_json::Value) -> Answer {
    request(
        addr,
        "POST",
        path,
        &[
            ("X-Intruder-Token", token),
            ("Content-Type", "application/json"),
        ],
        body.to_string().as_bytes(),
    )
}
