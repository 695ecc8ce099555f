//! The integration tests of `intruder-cli`, one module per file, built as one test binary: one
//! link instead of one per file, for a shorter build and a smaller target directory.
//! One file's tests: `cargo test -p intruder-cli --test integration FILE::`.

mod attack_cli;
mod common;
#[cfg(feature = "cluster")]
mod engines_cli;
mod fellegi_sunter_cli;
mod generated_docs;
mod hostile;
mod mask_cli;
mod panel_cli;
mod questions_cli;
mod readme_example;
mod registry_walk;
mod risk_cli;
mod risk_models_cli;
mod run_cli;
#[cfg(feature = "serve")]
mod serve_cli;
mod surface;
mod verdicts_cli;
