//! The integration tests of `intruder-utility`, one module per file, built as one test binary: one
//! link instead of one per file, for a shorter build and a smaller target directory.
//! One file's tests: `cargo test -p intruder-utility --test integration FILE::`.

mod measures;
mod registry;
mod regression_r;
