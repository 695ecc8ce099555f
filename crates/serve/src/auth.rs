//! The access token: drawn at start, printed in the URL, required of every request — in the
//! query (`?token=`, the first load), a cookie the first answer sets, or the header
//! `X-Intruder-Token`. Anything else gets 403.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rand::RngCore;

/// The cookie that carries the token after the first load.
pub const COOKIE: &str = "intruder_token";

/// The header a script may send the token in instead.
pub const HEADER: &str = "x-intruder-token";

/// A fresh token: 24 random bytes from the operating system, as 48 hexadecimal digits.
pub fn new_token() -> String {
    let mut bytes = [0u8; 24];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two strings in time that depends on their lengths only.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The token a request carries in its query, header or cookie, and whether it came in the
/// query (then the answer sets the cookie).
pub fn token_of(req: &Request) -> Option<(String, bool)> {
    if let Some(q) = req.uri().query() {
        for pair in q.split('&') {
            if let Some(v) = pair.strip_prefix("token=") {
                return Some((v.to_string(), true));
            }
        }
    }
    if let Some(v) = req.headers().get(HEADER).and_then(|v| v.to_str().ok()) {
        return Some((v.to_string(), false));
    }
    for v in req.headers().get_all(header::COOKIE) {
        let Ok(v) = v.to_str() else { continue };
        for c in v.split(';') {
            if let Some(t) = c.trim().strip_prefix(&format!("{COOKIE}=")) {
                return Some((t.to_string(), false));
            }
        }
    }
    None
}

/// Refuses every request without the right token (403, with a sentence saying how to get in);
/// sets the cookie on an answer to a request that brought the token in its query.
pub async fn require_token(State(token): State<Arc<str>>, req: Request, next: Next) -> Response {
    match token_of(&req) {
        Some((t, in_query)) if same(&t, &token) => {
            let mut resp = next.run(req).await;
            if in_query {
                let cookie = format!("{COOKIE}={t}; Path=/; HttpOnly; SameSite=Strict");
                if let Ok(v) = HeaderValue::from_str(&cookie) {
                    resp.headers_mut().append(header::SET_COOKIE, v);
                }
            }
            resp
        }
        _ => (
            StatusCode::FORBIDDEN,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            Body::from(
                "403: this intruder serve page needs its access token: open the URL it printed when it started (…/?token=…)\n",
            ),
        )
            .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_48_hex_digits_and_new_each_time() {
        let a = new_token();
        assert_eq!(a.len(), 48);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, new_token());
    }

    #[test]
    fn tokens_compare_equal_only_when_equal() {
        assert!(same("abc", "abc"));
        assert!(!same("abc", "abd"));
        assert!(!same("abc", "ab"));
    }

    #[test]
    fn the_token_is_read_from_query_header_or_cookie() {
        let r = Request::builder()
            .uri("/x?a=1&token=t1")
            .body(Body::empty())
            .unwrap();
        assert_eq!(token_of(&r), Some(("t1".into(), true)));
        let r = Request::builder()
            .uri("/x")
            .header(HEADER, "t2")
            .body(Body::empty())
            .unwrap();
        assert_eq!(token_of(&r), Some(("t2".into(), false)));
        let r = Request::builder()
            .uri("/x")
            .header(header::COOKIE, "a=b; intruder_token=t3")
            .body(Body::empty())
            .unwrap();
        assert_eq!(token_of(&r), Some(("t3".into(), false)));
        let r = Request::builder().uri("/x").body(Body::empty()).unwrap();
        assert_eq!(token_of(&r), None);
    }
}
