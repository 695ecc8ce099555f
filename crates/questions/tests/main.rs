//! The integration tests of `intruder-questions`, one module per file, built as one test binary.
//! One file's tests: `cargo test -p intruder-questions --test integration FILE::`.

mod acceptance;
mod errors;
mod membership;
mod params;
mod rates;
mod support;
mod worked;
