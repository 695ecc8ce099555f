//! The integration tests of `intruder-runner`, one module per file, built as one test binary: one
//! link instead of one per file, for a shorter build and a smaller target directory.
//! One file's tests: `cargo test -p intruder-runner --test integration FILE::`.

mod attack_spec;
mod data_params;
mod defence_utility;
mod dry_run;
mod files_only;
mod generalise_frontier;
mod layers;
mod linkage_charts;
mod longitudinal;
mod mulder_theta;
mod paper_claims;
mod paper_tiny;
mod paper_values;
mod paths_and_failures;
mod questions;
mod report_layout;
mod reproducible;
mod risk_measures;
mod runner;
mod synthetic;
mod verdicts;
