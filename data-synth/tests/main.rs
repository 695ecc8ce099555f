//! The integration tests of `intruder-synth`, one module per file, built as one test binary: one
//! link instead of one per file, for a shorter build and a smaller target directory.
//! One file's tests: `cargo test -p intruder-synth --test integration FILE::`.

mod census;
mod common;
mod household_panel;
mod linkage_pair;
mod output;
mod register_survey;
mod registry;
mod survey_panel;
