//! The integration tests of `intruder-risk`, one module per file, built as one test binary: one
//! link instead of one per file, for a shorter build and a smaller target directory.
//! One file's tests: `cargo test -p intruder-risk --test integration FILE::`.

mod closeness;
mod population;
mod properties;
mod registry;
mod sdcmicro_parity;
mod suda;
mod worked_examples;
