//! The server's tests: a server on a free port per test, plain HTTP requests; and the page in
//! headless Chromium (skipped when it is not installed).

mod browser;
mod client;
mod devtools;
mod records;
mod server;
