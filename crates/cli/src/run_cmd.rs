//! `intruder run FILE`: run an experiment file (data, scenario, defence grid, attacks, risk and
//! utility measures, replicates, seed) and write its reports.

use std::path::PathBuf;

use anyhow::Context;
use intruder_runner::{
    Experiment, HEADLINE, RunOptions, SettingResult, TableData, default_out, dry_run, fmt_unit,
    run_experiment,
};

/// Arguments of `intruder run`.
#[derive(clap::Args)]
pub struct Args {
    /// The experiment file (TOML; see experiments/README.md).
    pub file: PathBuf,
    /// Output directory (default: results/<experiment name>/ under the working directory).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Validate the file against its data and print the plan, without running or writing anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Rerun runs already stored under OUT/runs/.
    #[arg(long)]
    pub force: bool,
    /// Worker threads (default: all cores); results are identical whatever the number.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Use the file's [tiny] sizes (seconds in a debug build; for tests and CI).
    #[arg(long, conflicts_with = "paper")]
    pub tiny: bool,
    /// Use the file's [paper] sizes (what paper/ is generated from).
    #[arg(long)]
    pub paper: bool,
    /// Print the summary tables (markdown) when done.
    #[arg(long)]
    pub print: bool,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut exp = Experiment::from_file(&args.file)?;
    for w in &exp.warnings {
        eprintln!("warning: {}: {w}", args.file.display());
    }
    if args.tiny {
        let t = exp.tiny.clone();
        exp.resize(&t);
    }
    if args.paper {
        let t = exp.paper.clone();
        exp.resize(&t);
    }
    if args.threads == Some(0) {
        anyhow::bail!("--threads: expected at least 1");
    }
    let out = args.out.clone().unwrap_or_else(|| default_out(&exp));
    crate::common::refuse_overwrite(&out, &[&args.file], "--out")?;
    if args.dry_run {
        let dry = dry_run(&exp, &out)?;
        print!("{}", dry.plan.describe(&exp));
        println!(
            "output: {} ({} of {} runs stored{})",
            out.display(),
            dry.stored,
            dry.plan.runs.len(),
            if args.force && dry.stored > 0 {
                "; --force reruns them"
            } else {
                ""
            }
        );
        return Ok(());
    }
    let start = std::time::Instant::now();
    let done = run_experiment(
        &exp,
        &RunOptions {
            out: Some(out),
            force: args.force,
            threads: args.threads,
            progress: true,
        },
    )
    .with_context(|| format!("running {}", args.file.display()))?;
    for w in &done.warnings {
        eprintln!("warning: {}: {w}", args.file.display());
    }
    let skipped = done.plan.runs.len() - done.executed - done.failed.failed.len();
    eprintln!(
        "{}: {} run{} executed, {} stored run{} reused, {:.1} s",
        exp.name,
        done.executed,
        if done.executed == 1 { "" } else { "s" },
        skipped,
        if skipped == 1 { "" } else { "s" },
        start.elapsed().as_secs_f64()
    );
    if args.print {
        for t in intruder_runner::summary_tables(&exp, &done.written.results) {
            println!("{}", t.markdown());
        }
    }
    let files: Vec<String> = done
        .written
        .files
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    println!(
        "results in {}: {}",
        done.out_dir.display(),
        files.join(", ")
    );
    if let Some(t) = headline_text(&exp, &done.written.results) {
        print!("\n{t}");
    }
    if let Some(t) = &done.written.verdict {
        // estimates only, as the headline: the intervals are in the report
        let mut t = t.clone();
        for row in &mut t.rows {
            for c in row.iter_mut() {
                if let Some(i) = c.find(" [") {
                    c.truncate(i);
                }
            }
        }
        t.title =
            "verdict (promises against the attacks; intervals and warnings in the report):".into();
        print!("\n{}", t.text());
    }
    for w in &done.written.verdict_warnings {
        eprintln!("warning: {w}");
    }
    println!("\nreport: {}", done.out_dir.join("report.html").display());
    if !done.failed.failed.is_empty() {
        anyhow::bail!(
            "{} of {} runs failed; the reports in {} cover the others and list the failures:\n{}",
            done.failed.failed.len(),
            done.plan.runs.len(),
            done.out_dir.display(),
            done.failed.failure_text(done.plan.runs.len())
        );
    }
    Ok(())
}

/// The headline figure per setting and attack, estimates only (the intervals are in the
/// report): correct re-identifications per target.
fn headline_text(exp: &Experiment, results: &[SettingResult]) -> Option<String> {
    if exp.attacks.is_empty() || results.is_empty() {
        return None;
    }
    let mut header = vec!["setting".to_string()];
    header.extend(exp.attacks.iter().map(|a| a.name.clone()));
    let rows = results
        .iter()
        .map(|s| {
            let mut r = vec![s.label.clone()];
            r.extend(exp.attacks.iter().map(|a| {
                s.get(&format!("{}.{HEADLINE}", a.name))
                    .map_or("–".into(), |st| {
                        fmt_unit(st.mean, intruder_data::report::Unit::Proportion)
                    })
            }));
            r
        })
        .collect();
    Some(
        TableData {
            title: "correct re-identifications per target (every record the intruder holds; 95% intervals in the report):".into(),
            header,
            rows,
        }
        .text(),
    )
}
