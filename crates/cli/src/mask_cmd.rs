//! `intruder mask`: apply a pipeline of defences (masking methods) to a file.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::json;

use intruder::mask::{Check, columns_of, mask};
use intruder_data::params::{self, ColumnSet, ReadContext};
use intruder_data::report::{Figure, Report, ReportTable, Unit};
use intruder_data::{ColumnarFile, Timings, write_atomically};
use intruder_defence::{ChangeLog, Pipeline, docs};

use crate::common::{self, DataArgs, FormatArg, MethodArgs};
use crate::param_flags::{Defences, ParamFlags};

/// Mask a microdata file with a pipeline of defences (recoding, suppression, noise, MDAV, rank
/// swapping, PRAM, subsampling). Truth columns pass through unchanged and are subset with the
/// records, so the masked file can still be evaluated. The masked data go to --out; a summary
/// (records, cells changed, suppressions, per step) goes to standard output in --format.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "The change log (--log, JSON) numbers records from 1, as the data lines of the input: \
`log.kept_rows` lists, for each masked record, its record number in the input (`\"row_numbers\": \"1-based\"`); \
`intruder utility --log` reads it.\n\n\
Examples:\n  intruder mask --data in.csv --pipeline p.toml --seed 42 --out masked.csv --log log.json\n  \
intruder mask --data in.csv --method local-suppression --keys age,sex,region --k 3 --seed 1 --out masked.csv\n  \
intruder mask --data in.csv --method local-suppression --set k=3 --seed 1 --out masked.csv   # keys: the schema's key columns\n  \
intruder mask --list"
)]
pub struct Args {
    #[command(flatten)]
    pub data: DataArgs,
    /// Pipeline TOML: [[step]] tables with `method = "…"` and the method's parameters.
    #[arg(long, value_name = "FILE", conflicts_with = "method")]
    pub pipeline: Option<PathBuf>,
    /// A single method instead of a pipeline (see --list), its parameters with --set.
    #[arg(long, value_name = "NAME")]
    pub method: Option<String>,
    #[command(flatten)]
    pub params: MethodArgs,
    /// Seed of every random step (required: the same seed and input give the same output).
    #[arg(long, required_unless_present = "list")]
    pub seed: Option<u64>,
    /// Where to write the masked file (Parquet when the name ends in `.parquet`, CSV otherwise;
    /// written whole or not at all; never an input).
    #[arg(long, value_name = "FILE", required_unless_present = "list")]
    pub out: Option<PathBuf>,
    /// Where to write the change log (JSON): cells and records changed per step, suppressions,
    /// and the kept records as 1-based record numbers of the input.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Format of the summary on standard output.
    #[arg(long, value_enum, default_value = "table")]
    pub format: FormatArg,
    /// Print the wall time of each phase (read, mask, check, write) on standard error when done.
    #[arg(long)]
    pub timings: bool,
    /// Skip the cross-examination: by default every promise of the pipeline (k on the keys of
    /// local suppression, risk suppression, record removal, MDAV) is checked on the output with
    /// the exact attack under the listwise and wildcard rules and with class counts under every
    /// rule, and a broken promise is a warning naming the rule and the figure.
    #[arg(long)]
    pub no_check: bool,
    /// Keys to cross-examine besides the promises' own (comma-separated); without promises the
    /// schema's key columns are checked.
    #[arg(long, value_name = "KEYS", value_delimiter = ',')]
    pub check_keys: Option<Vec<String>>,
    /// Every parameter of the defences as a flag, for --method (`--keys a,b --k 3`).
    #[command(flatten)]
    pub flags: ParamFlags<Defences>,
}

/// The columns the first step sees (truth columns are not the defences').
/// Refuses writing over an input or writing the log over the masked file.
fn check_outputs(args: &Args, data: &Path, out: &Path) -> Result<()> {
    // the data, its schema (named or beside it) and the pipeline file
    let mut owned: Vec<PathBuf> = vec![data.to_path_buf()];
    owned.extend(args.data.input().schema_for(data));
    owned.extend(args.pipeline.clone());
    let inputs: Vec<&Path> = owned.iter().map(PathBuf::as_path).collect();
    common::refuse_output_file(out, &inputs, "--out")?;
    if let Some(log) = &args.log {
        common::refuse_output_file(log, &inputs, "--log")?;
        if common::same_file(log, out) {
            bail!(
                "--log {} is also --out: give the change log its own file",
                log.display()
            );
        }
    }
    Ok(())
}

/// The summary printed after masking.
fn summary(data: &Path, out: &Path, log: &ChangeLog) -> Report {
    let mut r = Report::new(format!(
        "intruder mask — {} → {} (seed {})",
        data.display(),
        out.display(),
        log.seed
    ));
    let count = |name: &str, v: usize, meaning: &str| Figure::new(name, v, Unit::Count, meaning);
    r.push(count("rows_in", log.rows_in, "records in the input"));
    r.push(count(
        "rows_out",
        log.rows_out,
        "records in the masked file",
    ));
    r.push(count(
        "cells_changed",
        log.cells_changed,
        "cells changed, suppressions included (a cell changed by two steps counts twice)",
    ));
    r.push(count(
        "suppressions",
        log.suppressions,
        "cells observed before and missing after",
    ));
    r.push(count(
        "records_changed",
        log.records_changed,
        "masked records with a cell changed by a step that is not a public recoding (suppressions included)",
    ));
    r.push(count(
        "records_recoded",
        log.records_recoded,
        "masked records with a cell recoded (recoding, rounding, top coding: the original on the released scale; see information-loss)",
    ));
    r.tables.push(ReportTable {
        name: "steps".into(),
        title: "per step".into(),
        header: [
            "step",
            "method",
            "rows_out",
            "cells_changed",
            "suppressions",
            "records_changed",
            "notes",
        ]
        .map(String::from)
        .to_vec(),
        rows: log
            .steps
            .iter()
            .map(|s| {
                vec![
                    json!(s.step),
                    json!(s.method),
                    json!(s.rows_out),
                    json!(s.cells_changed),
                    json!(s.suppressions),
                    json!(s.records_changed),
                    json!(s.notes.join("; ")),
                ]
            })
            .collect(),
    });
    // what each method reports as data (a generalisation's chosen levels, score, suppressed,
    // rows, nodes checked, optimal; a swap's pairs): JSON only, as the log has it
    let step_details: Vec<serde_json::Value> = log
        .steps
        .iter()
        .filter_map(|s| {
            s.details
                .as_ref()
                .map(|d| json!({"step": s.step, "method": s.method, "details": d}))
        })
        .collect();
    // a search's frontier (generalise) as a table too
    for s in &log.steps {
        if let Some(f) = s
            .details
            .as_ref()
            .and_then(intruder::frontier::Frontier::of)
        {
            r.tables.push(ReportTable {
                name: format!("frontier_step{}", s.step),
                title: format!(
                    "step {} ({}) frontier: {}",
                    s.step,
                    s.method,
                    intruder::frontier::Frontier::TITLE
                ),
                header: f.header(),
                rows: f.rows(),
            });
        }
    }
    if !step_details.is_empty() {
        r.details.insert(
            "step_details".into(),
            serde_json::Value::Array(step_details),
        );
    }
    r
}

/// The parameters of `--method`: the `--set` items, then the flags (a key given both ways is
/// an error; a flag the method does not take is reported with the method's parameters, as an
/// unknown `--set` key is).
fn method_table(args: &Args) -> Result<toml::Table> {
    let mut t = args.params.table()?;
    args.flags.insert_into(&mut t)?;
    Ok(t)
}

/// Runs `intruder mask`.
pub fn run(args: Args) -> Result<()> {
    if args.params.list {
        let text = params::list_text(
            "Defences (in a pipeline: [[step]] method = \"NAME\"; alone: --method NAME --set key=value).\n\
             Each example runs as written on household-wave1.csv of `intruder synth household-panel --out DIR`:\n\
             intruder mask --data DIR/household-wave1.csv --method NAME EXAMPLE --seed 1 --out masked.csv",
            &docs(),
        );
        std::io::stdout().lock().write_all(text.as_bytes())?;
        return Ok(());
    }
    let data = args.data.data()?;
    let (Some(seed), Some(out)) = (args.seed, &args.out) else {
        bail!("--seed and --out are required");
    };
    if (!args.params.set.is_empty() || !args.flags.is_empty()) && args.method.is_none() {
        let mut given = args.flags.given();
        if !args.params.set.is_empty() {
            given.insert(0, "--set".into());
        }
        bail!(
            "{} {} to --method NAME; a pipeline file declares its parameters in its [[step]] tables",
            given.join(", "),
            if given.len() == 1 { "applies" } else { "apply" }
        );
    }
    check_outputs(&args, data, out)?;
    let pipeline_on = |columns: &ColumnSet| {
        let ctx = ReadContext {
            base_dir: None,
            columns: Some(columns),
        };
        match (&args.pipeline, &args.method) {
            (Some(p), None) => Ok(Pipeline::from_file_with(p, ctx)?),
            (None, Some(m)) => Pipeline::single_at(m, method_table(&args)?, "", ctx)
                .map_err(|p| common::problems(&format!("--method {m} (--set and flags)"), p)),
            _ => bail!(
                "give --pipeline FILE or --method NAME (with --set key=value); --list shows the methods"
            ),
        }
    };
    let input = args.data.input();
    // Steps that a Parquet file's columns, read from its footer, refuse are refused before the
    // table is read (text shows as categorical there, which every column parameter a text
    // column may fill accepts): a misspelt column took 2.4 s and 1 GB to report on 10,000,000
    // records.
    if let Some(file) = ColumnarFile::open(data, &input.read_options(data)?) {
        pipeline_on(&file.columns())?;
    }
    let mut timings = Timings::new();
    let ds = common::load(data, &input, &mut timings)?;
    let pipeline = pipeline_on(&columns_of(&ds.table, &data.display().to_string()))?;
    common::warn(pipeline.warnings());
    let check = match args.no_check {
        true => Check::Off,
        false => Check::On {
            keys: args.check_keys.as_deref(),
        },
    };
    let label = data.display().to_string();
    let masked = mask(ds, &pipeline, seed, check, &label, &mut timings)?;
    let log_json = args
        .log
        .as_ref()
        .map(|_| {
            serde_json::to_string_pretty(&masked.log_file_json(&label, &out.display().to_string()))
        })
        .transpose()?;
    timings
        .time(Timings::WRITE, || masked.dataset.write_file(out))
        .with_context(|| format!("writing {}", out.display()))?;
    if let (Some(path), Some(text)) = (&args.log, log_json) {
        write_atomically(path, |w| {
            w.write_all(text.as_bytes())?;
            w.write_all(b"\n")
        })
        .with_context(|| format!("writing {}", path.display()))?;
    }
    let (log, check) = (&masked.log, &masked.cross_examination);
    let mut report = summary(data, out, log);
    match &check {
        Some(x) if !x.checks.is_empty() => {
            x.add_to(&mut report);
            for w in &x.warnings {
                eprintln!("warning: {w}");
            }
        }
        Some(_) => report.notes.push(
            "cross-examination: nothing to check (no step promises k, and the data declares no key columns; --check-keys names them)".into(),
        ),
        None => {}
    }
    let text = report.render(args.format.into());
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes())?;
    stdout.flush()?;
    common::print_timings(args.timings, &timings);
    Ok(())
}
