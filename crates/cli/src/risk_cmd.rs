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
    DataArgs, MethodArgs, OutputArgs, flag, flag_list, flag_opt, print_timings, refuse_output_file,
    warn,
};

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
    /// Key variables (quasi-identifiers), comma-separated. Default: the schema's key columns.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub keys: Vec<String>,
    /// How missing key values are treated: listwise (default), as-value or wildcard.
    #[arg(long, value_name = "POLICY")]
    pub missing: Option<String>,
    /// How set-valued cells match: overlap (default), first (the query's first candidate) or
    /// first-both (the first candidate on both sides).
    #[arg(long, value_name = "MODE")]
    pub set_match: Option<String>,
    /// Population size N (sampling fraction π = n/N, θ, Bender's R, population estimators).
    #[arg(long, value_name = "N", allow_hyphen_values = true)]
    pub population_size: Option<f64>,
    /// Sampling-weight column (default: the schema's weight column): individual and global risk.
    #[arg(long, value_name = "COL")]
    pub weight: Option<String>,
    /// Sensitive column (default: the schema's sensitive column): ℓ-diversity, t-closeness.
    #[arg(long, value_name = "COL")]
    pub sensitive: Option<String>,
    /// Household (group) column (default: the schema's group column): household risk.
    #[arg(long, value_name = "COL")]
    pub group: Option<String>,
    /// The k of the k-anonymity counts (parameter `k_anonymity`, default 5): records in
    /// classes of size < k and ≤ k.
    #[arg(long, value_name = "K", allow_hyphen_values = true)]
    pub k: Option<i64>,
    /// Dalenius' uniqueness threshold: classes of size ≤ T count as unique (default 1).
    #[arg(long, value_name = "T", allow_hyphen_values = true)]
    pub unique_threshold: Option<i64>,
    /// n(U), the number of population uniques, for Bender's R (needs --population-size).
    #[arg(long, value_name = "NU", allow_hyphen_values = true)]
    pub population_uniques: Option<f64>,
    /// f_a, the share of the population the intruder knows about, for Bender's R (default 1).
    #[arg(long, value_name = "FA", allow_hyphen_values = true)]
    pub intruder_share: Option<f64>,
    /// SUDA2: largest MSU size searched (default: every size, as sdcMicro).
    #[arg(long, value_name = "K", allow_hyphen_values = true)]
    pub max_msu_size: Option<i64>,
    /// SUDA2: sampling fraction f of the DIS probability (sdcMicro's DisFraction; default 0.01).
    #[arg(long, value_name = "F", allow_hyphen_values = true)]
    pub dis_fraction: Option<f64>,
    /// SUDA2: refuse searches whose worst case (records × key subsets) exceeds this (parameter
    /// `cost_limit`; default 2e11).
    #[arg(long, value_name = "STEPS", allow_hyphen_values = true)]
    pub suda_cost_limit: Option<f64>,
    /// Population: the sampling fraction π in (0, 1] (instead of --population-size or weights).
    #[arg(long, value_name = "F", allow_hyphen_values = true)]
    pub sampling_fraction: Option<f64>,
    /// Population: log-linear model for Skinner & Holmes' τ: main-effects (default) or two-way.
    #[arg(long, value_name = "MODEL")]
    pub loglinear: Option<String>,
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
}

/// The parameter table: `--set` items, then every flag given (a key given both ways is an error).
fn parameters(args: &Args) -> Result<toml::Table> {
    let mut t = args.method.table()?;
    flag_opt(&mut t, "measure", args.measure.clone())?;
    flag_list(&mut t, "keys", &args.keys)?;
    flag_opt(&mut t, "missing", args.missing.clone())?;
    flag_opt(&mut t, "set_match", args.set_match.clone())?;
    flag_opt(&mut t, "population_size", args.population_size)?;
    flag_opt(&mut t, "weight", args.weight.clone())?;
    flag_opt(&mut t, "sensitive", args.sensitive.clone())?;
    flag_opt(&mut t, "group", args.group.clone())?;
    if let Some(k) = args.k {
        if t.contains_key("k_anonymity") {
            bail!("'k_anonymity' is given both as --k and with --set k_anonymity=…; give it once");
        }
        flag(&mut t, "k_anonymity", k)?;
    }
    flag_opt(&mut t, "unique_threshold", args.unique_threshold)?;
    flag_opt(&mut t, "population_uniques", args.population_uniques)?;
    flag_opt(&mut t, "intruder_share", args.intruder_share)?;
    flag_opt(&mut t, "max_msu_size", args.max_msu_size)?;
    flag_opt(&mut t, "dis_fraction", args.dis_fraction)?;
    if let Some(c) = args.suda_cost_limit {
        if t.contains_key("cost_limit") {
            bail!(
                "'cost_limit' is given both as --suda-cost-limit and with --set cost_limit=…; give it once"
            );
        }
        flag(&mut t, "cost_limit", c)?;
    }
    flag_opt(&mut t, "sampling_fraction", args.sampling_fraction)?;
    flag_opt(&mut t, "loglinear", args.loglinear.clone())?;
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
