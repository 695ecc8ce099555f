//! `intruder utility`: what masking cost, comparing an original file with its masked version
//! through the utility measures of the registry (`intruder_utility::UTILITY_MEASURES`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use intruder::Surface;
use intruder::utility::{LogInput, UtilityRequest, utility};
use intruder_data::params;
use intruder_data::{Input, Table, Timings};
use intruder_utility::docs;

use crate::common::{self, MethodArgs, OutputArgs, ReadArgs};
use crate::param_flags::{ParamFlags, Utility};

/// Compare a masked file with its original: moments, correlations, IL1s, pMSE, and the
/// confidence-interval overlap of a regression model.
///
/// Variables: --variables, else the columns with role key or sensitive in the original's
/// schema. Measures: --measure, else every one that applies — moments, correlations (two or
/// more variables) and il1s (same records) when every variable is numeric, pmse, and ci-overlap
/// with --model. Only il1s compares records one to one: with --log (the change log of
/// `intruder mask`) it compares the masked records with the same records of the original; the
/// other measures compare the files as wholes.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  intruder utility --original in.csv --masked masked.csv --variables income,age --model \"income ~ age + sex\"\n  intruder utility --original in.csv --masked masked.csv --log log.json --measure il1s,moments --format json\n  intruder utility --list"
)]
pub struct Args {
    /// The original file (its schema: --schema, else the one beside it).
    #[arg(long, value_name = "FILE", required_unless_present = "list")]
    pub original: Option<PathBuf>,
    /// The masked file (its schema: --schema, else the one beside it).
    #[arg(long, value_name = "FILE", required_unless_present = "list")]
    pub masked: Option<PathBuf>,
    /// Schema TOML for both files (default: each file's `FILE.schema.toml` when present).
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
    /// Measures, comma-separated (see --list). Default: every one that applies.
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub measure: Vec<String>,
    #[command(flatten)]
    pub params: MethodArgs,
    /// Change log of `intruder mask --log`: il1s compares each masked record with its record of
    /// the original (`log.kept_rows`, 1-based record numbers).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Every parameter of the utility measures as a flag (`--variables a,b`, `--model "y ~ x"`).
    #[command(flatten)]
    pub flags: ParamFlags<Utility>,
}

/// The change log of `intruder mask --log`, read as JSON.
fn read_log(path: &Path) -> Result<LogInput> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    Ok(LogInput {
        value,
        label: path.display().to_string(),
    })
}

fn read(path: &Path, args: &Args, timings: &mut Timings) -> Result<Table> {
    let input: Input = args.read.input(args.schema.as_deref());
    Ok(common::load(path, &input, timings)
        .with_context(|| format!("reading {}", path.display()))?
        .table)
}

/// Runs `intruder utility`.
pub fn run(args: Args) -> Result<()> {
    if args.params.list {
        let text = params::list_text(
            "Utility measures (--measure NAME; in an experiment: [utility] measures = [\"NAME\"]):",
            &docs(),
        );
        std::io::stdout().lock().write_all(text.as_bytes())?;
        return Ok(());
    }
    let (Some(orig_path), Some(masked_path)) = (&args.original, &args.masked) else {
        bail!("--original and --masked are required");
    };
    if let Some(out) = &args.output.out {
        let mut inputs: Vec<&Path> = vec![orig_path, masked_path];
        inputs.extend(args.log.as_deref());
        inputs.extend(args.schema.as_deref());
        common::refuse_output_file(out, &inputs, "--out")?;
    }
    let mut table = args.params.table()?;
    args.flags.insert_into(&mut table)?;
    let mut timings = Timings::new();
    let original = read(orig_path, &args, &mut timings)?;
    let masked = read(masked_path, &args, &mut timings)?;
    let request = UtilityRequest {
        params: table,
        measures: args.measure.clone(),
        log: args.log.as_deref().map(read_log).transpose()?,
        surface: Surface::Cli,
        surface_name: "--variables/--measure/--model/--set",
        original_label: orig_path.display().to_string(),
    };
    let run = utility(&original, &masked, request, &mut timings)?;
    if let Some(vars) = &run.variables_from_roles {
        eprintln!(
            "note: variables from the roles key and sensitive of {}'s schema: {}",
            orig_path.display(),
            vars.join(", ")
        );
    }
    for n in &run.left_out {
        eprintln!("note: {n}");
    }
    common::warn(&run.warnings);
    let mut report = run.report;
    report.title = format!(
        "utility of {} against {}{}",
        masked_path.display(),
        orig_path.display(),
        if run.kept {
            " (il1s on the kept records)"
        } else {
            ""
        }
    );
    report
        .details
        .insert("original".into(), json!(orig_path.display().to_string()));
    report
        .details
        .insert("masked".into(), json!(masked_path.display().to_string()));
    report
        .details
        .insert("measures".into(), json!(run.measures));
    timings.time(Timings::WRITE, || args.output.emit(&report))?;
    common::print_timings(args.output.timings, &timings);
    Ok(())
}
