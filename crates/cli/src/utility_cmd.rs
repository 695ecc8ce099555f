//! `intruder utility`: what masking cost, comparing an original file with its masked version
//! through the utility measures of the registry (`intruder_utility::UTILITY_MEASURES`).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use intruder_data::params::{self, ColumnSet, FromParam, Problem, ReadContext};
use intruder_data::{Input, Role, Table, Timings};
use intruder_utility::{
    configure, default_measures, docs, left_out_measures, measure_all_recoded, merge_reports,
};

use crate::common::{self, MethodArgs, OutputArgs, ReadArgs};

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
    /// Variables compared, comma-separated (default: the key and sensitive columns of the
    /// original's schema).
    #[arg(
        long = "variables",
        visible_alias = "vars",
        value_delimiter = ',',
        value_name = "COLS"
    )]
    pub variables: Vec<String>,
    /// Measures, comma-separated (see --list). Default: every one that applies.
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub measure: Vec<String>,
    /// Regression model of ci-overlap, as "y ~ x1 + x2" (intercept included).
    #[arg(long, value_name = "FORMULA")]
    pub model: Option<String>,
    /// Family of --model (default linear).
    #[arg(long, value_parser = ["linear", "logistic"])]
    pub family: Option<String>,
    #[command(flatten)]
    pub params: MethodArgs,
    /// Change log of `intruder mask --log`: il1s compares each masked record with its record of
    /// the original (`log.kept_rows`, 1-based record numbers).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
}

/// The 0-based rows of the original kept in the masked file, from a change log: 1-based record
/// numbers (`"row_numbers": "1-based"`), or 0-based rows in logs written by intruder 0.1.0.
fn kept_rows(path: &Path, n: usize) -> Result<Vec<usize>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let v: Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    let log = v.get("log").unwrap_or(&v);
    let rows = log
        .get("kept_rows")
        .and_then(Value::as_array)
        .with_context(|| {
            format!(
                "{}: no log.kept_rows (expected the output of intruder mask --log)",
                path.display()
            )
        })?;
    let first = match log.get("row_numbers") {
        Some(Value::String(s)) if s == "1-based" => 1,
        None => 0,
        Some(other) => bail!(
            "{}: log.row_numbers is {other}; expected \"1-based\"",
            path.display()
        ),
    };
    rows.iter()
        .enumerate()
        .map(|(i, r)| match r.as_u64() {
            Some(r) if r >= first && ((r - first) as usize) < n => Ok((r - first) as usize),
            _ => bail!(
                "{}: kept_rows[{}] = {r} is not a record of the original ({} to {})",
                path.display(),
                i + 1,
                first,
                n as u64 + first - 1
            ),
        })
        .collect()
}

/// The pipeline recorded in a change log (`"pipeline"`: its steps' parameters), whose public
/// recodings map the original onto the released scale. `None` for a log without steps.
fn pipeline_of_log(path: &Path) -> Result<Option<intruder_defence::Pipeline>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let v: Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    let Some(steps) = v.get("pipeline").and_then(Value::as_array) else {
        return Ok(None);
    };
    let tables: Vec<toml::Table> = steps
        .iter()
        .map(|s| {
            toml::Table::try_from(s)
                .with_context(|| format!("{}: a pipeline step is not a table", path.display()))
        })
        .collect::<Result<_>>()?;
    let p = intruder_defence::Pipeline::from_steps(&tables, "", Default::default())
        .map_err(|p| common::problems(&format!("{} pipeline", path.display()), p))?;
    Ok(Some(p))
}

fn read(path: &Path, args: &Args, timings: &mut Timings) -> Result<Table> {
    let input: Input = args.read.input(args.schema.as_deref());
    Ok(common::load(path, &input, timings)
        .with_context(|| format!("reading {}", path.display()))?
        .table)
}

/// Old measure names still accepted.
fn measure_names(given: &[String]) -> (Vec<String>, Vec<Problem>) {
    let mut warnings = Vec::new();
    let mut out: Vec<String> = Vec::new();
    for m in given {
        let name = match m.as_str() {
            "means" | "variances" => {
                warnings.push(Problem {
                    path: "--measure".into(),
                    message: format!(
                        "'{m}' is deprecated: use 'moments' (the old name is accepted until the next release)"
                    ),
                });
                "moments".to_string()
            }
            _ => m.clone(),
        };
        if !out.contains(&name) {
            out.push(name);
        }
    }
    (out, warnings)
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
    common::flag_list(&mut table, "variables", &args.variables)?;
    common::flag_opt(&mut table, "model", args.model.clone())?;
    common::flag_opt(&mut table, "family", args.family.clone())?;
    let mut timings = Timings::new();
    let original = read(orig_path, &args, &mut timings)?;
    let masked = read(masked_path, &args, &mut timings)?;
    let kept = match &args.log {
        Some(log) => Some(kept_rows(log, original.nrows())?),
        None => None,
    };
    // with the masking's log, the original is also read on the released scale: its public
    // recodings applied, so that a recoded category is not a changed one
    let recoded = match &args.log {
        Some(log) => match pipeline_of_log(log)? {
            Some(p) => Some(p.intruder_view(&original)?),
            None => None,
        },
        None => None,
    };
    let (names, mut warnings) = measure_names(&args.measure);
    let only_model = !names.is_empty() && names.iter().all(|m| m == "ci-overlap");
    if !table.contains_key("variables") && !only_model {
        let from_schema: Vec<String> = original
            .columns()
            .iter()
            .filter(|c| matches!(c.role(), Role::Key | Role::Sensitive))
            .map(|c| c.name().to_string())
            .collect();
        if !from_schema.is_empty() {
            eprintln!(
                "note: variables from the roles key and sensitive of {}'s schema: {}",
                orig_path.display(),
                from_schema.join(", ")
            );
            common::flag_list(&mut table, "variables", &from_schema)?;
        } else if names.is_empty() && !table.contains_key("model") {
            bail!(
                "give --variables COLS (the schema of {} declares no key or sensitive column)",
                orig_path.display()
            );
        }
    }
    let names = if names.is_empty() {
        let vars: Vec<String> = table
            .get("variables")
            .and_then(|v| Vec::<String>::from_param(v).ok())
            .unwrap_or_default();
        let same = kept.as_ref().map_or(original.nrows(), Vec::len) == masked.nrows();
        for n in left_out_measures(&original, &vars, same) {
            eprintln!("note: {n}");
        }
        default_measures(&original, &vars, same, table.contains_key("model"))
    } else {
        names
    };
    let columns = ColumnSet {
        file: orig_path.display().to_string(),
        ..ColumnSet::of_parts(&original, &[])
    };
    let ctx = ReadContext {
        base_dir: None,
        columns: Some(&columns),
    };
    let configured = configure(&names, &table, "", ctx, &[])
        .map_err(|p| common::problems("--variables/--measure/--model/--set", p))?;
    warnings.extend(configured.warnings);
    common::warn(&warnings);
    let reports = timings.time("utility", || {
        measure_all_recoded(
            &configured.measures,
            &original,
            recoded.as_ref(),
            &masked,
            kept.as_deref(),
        )
    })?;
    let mut report = merge_reports(
        format!(
            "utility of {} against {}{}",
            masked_path.display(),
            orig_path.display(),
            if kept.is_some() {
                " (il1s on the kept records)"
            } else {
                ""
            }
        ),
        reports,
    );
    report
        .details
        .insert("original".into(), json!(orig_path.display().to_string()));
    report
        .details
        .insert("masked".into(), json!(masked_path.display().to_string()));
    report.details.insert("measures".into(), json!(names));
    timings.time(Timings::WRITE, || args.output.emit(&report))?;
    common::print_timings(args.output.timings, &timings);
    Ok(())
}
