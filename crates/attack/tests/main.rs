//! The integration tests of `intruder-attack`, one module per file, built as one test binary: one
//! link instead of one per file, for a shorter build and a smaller target directory.
//! One file's tests: `cargo test -p intruder-attack --test integration FILE::`.

mod equivalence;
mod febrl4;
mod fellegi_sunter_kernel;
mod splink_levels;
mod string_level_bounds;
