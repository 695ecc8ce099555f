//! The integration tests of `intruder-data`, one module per file, built as one test binary: one
//! link instead of one per file, for a shorter build and a smaller target directory.
//! One file's tests: `cargo test -p intruder-data --test integration FILE::`.

mod columnar;
mod csv_keys;
mod parallel_read;
mod read;
mod statfiles;
mod write_csv;
