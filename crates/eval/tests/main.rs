//! The integration tests of `intruder-eval`, one module per file, built as one test binary: one
//! link instead of one per file, for a shorter build and a smaller target directory.
//! One file's tests: `cargo test -p intruder-eval --test integration FILE::`.

mod common;
mod dependencies;
mod errors_and_truth;
mod fellegi_sunter;
mod fellegi_sunter_weak_keys;
mod function_length;
mod labelled;
mod listed_in_part;
mod registry;
mod verdict;
mod worked_examples;
