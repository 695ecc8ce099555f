//! `intruder`: simulate data intruders against masked microdata.
//!
//! Each subcommand lives in its own module with a clap `Args` struct and a `run` function;
//! `main` only dispatches.

mod attack_args;
mod attack_cmd;
#[allow(dead_code)] // used by the subcommands as they move onto the registries
mod common;
mod delimiter;
mod mask_cmd;
mod panel;
mod param_flags;
mod question_cmd;
mod risk_cmd;
mod run_cmd;
#[cfg(feature = "serve")]
mod serve_cmd;
mod synth_cmd;
mod utility_cmd;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

/// Simulate data intruders against masked microdata and report what they learn.
#[derive(Parser)]
#[command(name = "intruder", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// The arguments are parsed once per process; boxing the large variants buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Attack a released file with an intruder's file and score re-identification and attribute disclosure.
    Attack(attack_cmd::Args),
    /// Mask a file with a pipeline of defences (recoding, suppression, noise, MDAV, swapping, PRAM, subsampling).
    Mask(mask_cmd::Args),
    /// Longitudinal panels: the inter-wave attack on split households, swapping/synthesis, utility, Mitra's study.
    Panel(panel::Args),
    /// Disclosure risk: frequency risk (uniques, n_match, θ, individual, household risk, ℓ-diversity), SUDA2, population uniqueness.
    Risk(risk_cmd::Args),
    /// Run an experiment file: defence grid x attacks x replicates, with tables, plots and an HTML report.
    Run(run_cmd::Args),
    /// A local web page: risk at once, defences and attacks from the registries, a risk–utility map, the session exported as an experiment.
    #[cfg(feature = "serve")]
    Serve(serve_cmd::Args),
    /// Generate a seeded synthetic look-alike data set with ground truth.
    Synth(synth_cmd::Args),
    /// What masking cost: moments, correlations, IL1s, pMSE, CI overlap of a regression.
    Utility(utility_cmd::Args),
}

fn main() -> std::process::ExitCode {
    let cli = Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::Attack(args) => attack_cmd::run(args),
        Command::Mask(args) => mask_cmd::run(args),
        Command::Panel(args) => panel::run(args),
        Command::Risk(args) => risk_cmd::run(args),
        Command::Run(args) => run_cmd::run(args),
        #[cfg(feature = "serve")]
        Command::Serve(args) => serve_cmd::run(args),
        Command::Synth(args) => synth_cmd::run(args),
        Command::Utility(args) => utility_cmd::run(args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {}", message(&err));
            std::process::ExitCode::from(2)
        }
    }
}

/// The command line, with the names of each family's methods in the help of the flag that
/// picks one, read from the registries (a method added to a registry appears in `--help` as
/// in `--list`).
fn command() -> clap::Command {
    let names = |docs: Vec<intruder_data::params::MethodDoc>| -> Vec<&'static str> {
        docs.iter().map(|d| d.name).collect()
    };
    let risk = names(intruder_risk::docs());
    let attacks = names(intruder_attack::docs());
    let questions = names(intruder::questions::docs());
    let defences = names(intruder_defence::docs());
    let utility = names(intruder_utility::docs());
    let default_risk = intruder_risk::DEFAULT_MEASURE;
    let risk: Vec<String> = risk
        .iter()
        .map(|&n| {
            if n == default_risk {
                format!("{n} (the default)")
            } else {
                n.to_string()
            }
        })
        .collect();
    Cli::command()
        .mut_subcommand("risk", |c| {
            c.mut_arg("measure", |a| {
                a.help(format!(
                    "The risk measure (`--list` shows them all): {}.",
                    one_of(&risk)
                ))
            })
        })
        .mut_subcommand("attack", |c| {
            c.mut_arg("method", |a| {
                a.help(format!(
                    "The attack (default exact): {}; or a question: {}. `--list` shows them all.",
                    one_of(&attacks),
                    one_of(&questions)
                ))
            })
        })
        .mut_subcommand("mask", |c| {
            c.mut_arg("method", |a| {
                a.help(format!(
                    "A single method instead of a pipeline (see --list), its parameters with --set: {}.",
                    one_of(&defences)
                ))
            })
        })
        .mut_subcommand("utility", |c| {
            c.mut_arg("measure", |a| {
                a.help(format!(
                    "Measures, comma-separated (see --list): {}. Default: every one that applies.",
                    utility.join(", ")
                ))
            })
        })
}

/// `a, b or c`.
fn one_of<S: AsRef<str>>(names: &[S]) -> String {
    match names {
        [] => String::new(),
        [one] => one.as_ref().to_string(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(AsRef::as_ref).collect();
            format!("{} or {}", rest.join(", "), last.as_ref())
        }
    }
}

/// The error and its causes, `outer: cause: …`, leaving out a cause its outer message already
/// states (an I/O error shown as `FILE: REASON` would otherwise print its reason twice).
fn message(err: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}
