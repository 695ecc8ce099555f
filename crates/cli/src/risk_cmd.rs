//! `intruder risk`: the risk measures of one file (`intruder_risk::RISK_MEASURES`). Parsing and
//! rendering only: the flags become one table of parameters for the registry.

use std::path::PathBuf;

use anyhow::{Context, Result, bail};

use intruder::Surface;
use intruder::risk::{configure, roles_named};
use intruder_data::params::{ColumnSet, list_text};
use intruder_data::{ColumnarFile, CsvFile, Timings};
use intruder_risk::{DEFAULT_MEASURE, RiskMeasure, RiskOutcome, configure_for_parts, docs};

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

/// What the key path made of the data file.
enum Parted {
    /// The outcome, from the key columns alone.
    Done(Box<dyn RiskMeasure>, RiskOutcome),
    /// The table, read on the way (a CSV file whose keys did not allow the key path), and its
    /// columns (as [`ColumnSet::of`] gives them, computed for the key path already).
    Table(intruder_data::Dataset, ColumnSet),
    /// Nothing: the file is to be read whole.
    Neither,
}

/// The outcome from the key columns alone, when the measure needs nothing else
/// ([`intruder_risk::RiskMeasure::assess_parts`]) and the keys allow it: a Parquet file's
/// integer or dictionary-encoded text keys read a row group at a time
/// ([`intruder_data::ColumnarFile::keys`]), or a plain CSV file's inferred integer keys
/// counted from the reader's chunks
/// ([`intruder_data::CsvFile::keys`]); neither makes an integer column of the keys. A CSV file
/// whose keys do not allow it gives its table, parsed once. Every error of reading is the
/// table reader's, and every error of configuring the general path's.
fn from_parts(
    data: &std::path::Path,
    input: &intruder_data::Input,
    table: &toml::Table,
    timings: &mut Timings,
) -> Result<Parted> {
    let Ok(options) = input.read_options(data) else {
        return Ok(Parted::Neither);
    };
    let label = data.display().to_string();
    if let Some(file) = timings.time(Timings::READ, || ColumnarFile::open(data, &options)) {
        let Some(built) = configure_for_parts(table, &file.columns()) else {
            return Ok(Parted::Neither);
        };
        let Some(keys) = file.keys(built.method.keys()) else {
            return Ok(Parted::Neither);
        };
        let threshold = BatchBuffers::reuse();
        let Some(outcome) = built.method.assess_parts(&keys, &label, timings) else {
            threshold.restore();
            return Ok(Parted::Neither);
        };
        let outcome = outcome?;
        warn(&built.warnings);
        return Ok(Parted::Done(built.method, outcome));
    }
    let Some(csv) = timings.time(Timings::READ, || CsvFile::read(data, &options))? else {
        return Ok(Parted::Neither);
    };
    let columns = csv.columns();
    if let Some(built) = configure_for_parts(table, &columns)
        && let Some(keys) = csv.keys(built.method.keys())
        && let Some(outcome) = built.method.assess_parts(&keys, &label, timings)
    {
        let outcome = outcome?;
        crate::common::notes(csv.notes());
        warn(&built.warnings);
        return Ok(Parted::Done(built.method, outcome));
    }
    let ds = timings.time(Timings::READ, || csv.into_dataset())?;
    crate::common::notes(&ds.notes);
    Ok(Parted::Table(ds, columns))
}

/// glibc gives every freed block above its mmap threshold (128 KiB at first, rising with the
/// blocks freed) back to the system, and the next such block is fresh memory that the kernel
/// zeroes page by page. Reading a Parquet file by row groups allocates and frees each batch's
/// arrays (0.5–1 MB each, thousands of them): with the default threshold a third of that
/// path's time went to page faults and unmapping (10,000,000 × 10 keys: 0.84–0.88 s → 0.48–0.52 s
/// with a threshold of 4 MiB). The threshold is raised only once the command has taken that path,
/// whose other memory is arrays of a value per record (mapped, above the threshold: the class
/// codes, or under wildcard the key codes and the matching's arrays; peak 0.75 GiB for that
/// file under wildcard); raising it for every command would keep the freed blocks of the table
/// paths too (a wildcard count through the table peaked at 1.9 GB instead of 1.4 GB).
/// Elsewhere than glibc, nothing is changed.
struct BatchBuffers;

#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
impl BatchBuffers {
    const THRESHOLD: i32 = 4 << 20;
    /// glibc's initial threshold.
    const DEFAULT: i32 = 128 << 10;

    fn reuse() -> BatchBuffers {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: mallopt only changes a tuning parameter of the allocator; it is called before
        // the threads that read the row groups allocate.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, Self::THRESHOLD);
        }
        BatchBuffers
    }

    /// Back to the initial threshold, for a command that reads the table after all (glibc no
    /// longer moves a threshold once it has been set).
    fn restore(self) {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: as in `reuse`.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, Self::DEFAULT);
        }
    }
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
        let (measure, outcome) = engine_outcome(&spec, data, &input, &mut table)?;
        return finish(&args, data, measure.as_ref(), outcome, &timings);
    }
    let parted = if per_record {
        Parted::Neither
    } else {
        from_parts(data, &input, &table, &mut timings)?
    };
    let (measure, outcome) = match parted {
        Parted::Done(measure, outcome) => (measure, outcome),
        parted => {
            let (ds, columns) = match parted {
                Parted::Table(ds, columns) => (ds, columns),
                _ => {
                    let ds = crate::common::load(data, &input, &mut timings)?;
                    let columns = ColumnSet::of(&ds);
                    (ds, columns)
                }
            };
            let label = data.display().to_string();
            let built = configure(&mut table, &columns, Surface::Cli, "intruder risk", &label)?;
            warn(&built.warnings);
            let measure = built.method;
            let outcome = measure.assess_timed(&ds.table, per_record, &mut timings)?;
            (measure, outcome)
        }
    };
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
        None => ColumnSet::of(&intruder_data::load(data, input)?),
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
