//! `intruder risk`: the risk measures of one file (`intruder_risk::RISK_MEASURES`). Parsing and
//! rendering only: the flags become one table of parameters for the registry.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use intruder::Surface;
use intruder::risk::{configure, measure_file, roles_named};
use intruder_data::WriteFile;
use intruder_data::params::list_text;
use intruder_data::{ColumnarFile, Timings};
use intruder_risk::{DEFAULT_MEASURE, RiskMeasure, RiskOutcome, docs};

use crate::common::{
    DataArgs, MethodArgs, OutputArgs, flag_opt, print_timings, refuse_output_file, warn,
};
use crate::param_flags::{ParamFlags, Risk};

/// Disclosure risk of one file: frequency risk (classes, uniques, n_match, θ, individual,
/// household risk, ℓ-diversity), t-closeness, SUDA2, population uniqueness. Columns with a
/// weight, sensitive or group role in the schema are used without flags; a flag overrides the
/// schema.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  intruder risk --data data/examples/workplace-survey.csv --keys Gender,AgeGrp,EthnicGrp --sensitive Unionize\n  intruder risk --data survey.csv --measure suda2 --max-msu-size 3 --per-record scores.csv\n  intruder risk --list"
)]
pub struct Args {
    #[command(flatten)]
    pub data: DataArgs,
    /// The risk measure (`--list` shows them all; `main.rs` adds the registry's names).
    #[arg(long, visible_alias = "method", value_name = "NAME")]
    pub measure: Option<String>,
    #[command(flatten)]
    pub method: MethodArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Set-valued columns (cells such as 3|4), comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub set_valued: Vec<String>,
    /// Write per-record figures (row, then the measure's columns: k, n_match, risk, scores…) to
    /// this file (Parquet when the name ends in `.parquet`, CSV otherwise); rows are numbered
    /// from 1.
    #[arg(long, value_name = "OUT.csv")]
    pub per_record: Option<PathBuf>,
    #[command(flatten)]
    pub engine: intruder_engine::EngineArgs,
    /// Every parameter of the risk measures as a flag (`--k-anonymity 3`, or `--k 3`).
    #[command(flatten)]
    pub flags: ParamFlags<Risk>,
}

/// The parameter table: `--set` items, then every parameter given as a flag (a key given both
/// ways is an error).
fn parameters(args: &Args) -> Result<toml::Table> {
    let mut t = args.method.table()?;
    flag_opt(&mut t, "measure", args.measure.clone())?;
    args.flags.insert_into(&mut t)?;
    Ok(t)
}

/// Runs `intruder risk`.
pub fn run(args: Args) -> Result<()> {
    if args.method.list {
        print!(
            "{}",
            list_text(
                "risk measures (intruder risk --measure NAME, or measure = \"NAME\" in an experiment's [[risk]])",
                &docs()
            )
        );
        return Ok(());
    }
    let mut table = parameters(&args)?;
    let data = args.data.data()?;
    let mut input = args.data.input();
    let schema = input.schema_for(data);
    for (out, flag) in [
        (&args.per_record, "--per-record"),
        (&args.output.out, "--out"),
    ] {
        if let Some(out) = out {
            let mut inputs = vec![data];
            inputs.extend(schema.as_deref());
            refuse_output_file(out, &inputs, flag)?;
        }
    }
    input.roles = roles_named(&table);
    input.set_valued = args.set_valued.clone();
    // A name the file lacks is left to the parameters' check, which reports every one at once
    // with its parameter and a did-you-mean.
    input.optional_roles = true;
    let mut timings = Timings::new();
    let per_record = args.per_record.is_some();
    if let Some(spec) = args.engine.spec()? {
        if per_record {
            bail!(
                "--per-record runs on the local engine only (--engine {})",
                spec.engine
            );
        }
        // the engine reads and counts in one plan: one phase
        let (measure, outcome) = timings.time(Timings::ENGINE, || {
            engine_outcome(&spec, data, &input, &mut table)
        })?;
        return finish(&args, data, measure.as_ref(), outcome, &timings);
    }
    let options = input.read_options(data)?;
    let run = measure_file(
        data,
        &options,
        &mut table,
        per_record,
        (Surface::Cli, "intruder risk"),
        &mut timings,
    )?;
    crate::common::notes(&run.notes);
    warn(&run.warnings);
    let (measure, outcome) = (run.measure, run.outcome);
    finish(&args, data, measure.as_ref(), outcome, &timings)
}

/// The measure configured from the file's columns (its roles filled in) and its outcome on
/// an engine other than local (`intruder_engine::risk`).
fn engine_outcome(
    spec: &intruder_engine::EngineSpec,
    data: &std::path::Path,
    input: &intruder_data::Input,
    table: &mut toml::Table,
) -> Result<(Box<dyn RiskMeasure>, RiskOutcome)> {
    let options = input.read_options(data)?;
    let columns = match ColumnarFile::open(data, &options) {
        Some(file) => file.columns(),
        None => intruder_data::load(data, input)?.column_set(),
    };
    let label = data.display().to_string();
    let built = configure(table, &columns, Surface::Cli, "intruder risk", &label)?;
    warn(&built.warnings);
    let outcome = intruder_engine::risk(spec, data, input, built.method.as_ref())?;
    Ok((built.method, outcome))
}

/// Writes the outcome: warnings, per-record figures, the report, the timings.
fn finish(
    args: &Args,
    data: &std::path::Path,
    measure: &dyn RiskMeasure,
    mut outcome: RiskOutcome,
    timings: &Timings,
) -> Result<()> {
    let mut timings = timings.clone();
    for w in &outcome.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(out) = &args.per_record {
        timings.time(Timings::WRITE, || {
            outcome
                .records
                .write_file(out)
                .with_context(|| format!("writing {}", out.display()))
        })?;
    }
    outcome.report.title = if measure.name() == DEFAULT_MEASURE {
        format!("intruder risk — {}", data.display())
    } else {
        format!("intruder risk ({}) — {}", measure.name(), data.display())
    };
    timings.time(Timings::WRITE, || args.output.emit(&outcome.report))?;
    print_timings(args.output.timings, &timings);
    Ok(())
}
