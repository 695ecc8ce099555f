//! The integration tests of `intruder-defence`, one module per file, built as one test binary: one
//! link instead of one per file, for a shorter build and a smaller target directory.
//! One file's tests: `cargo test -p intruder-defence --test integration FILE::`.

mod generalise;
mod mdav_naive;
mod methods;
mod pipeline;
mod record_swap;
mod suppression;
mod synthesis;
