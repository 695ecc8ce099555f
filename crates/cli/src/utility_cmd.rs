//! `intruder utility`: what masking cost, comparing an original file with its masked version.

use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use serde_json::{Map, Value, json};

use intruder_data::{ReadOptions, Schema, Table, read_csv, write_atomically};
use intruder_utility::{Family, Formula, ci_overlap, correlations, il1s, moments, pmse};

/// A utility measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Measure {
    /// Differences in means and variances per variable.
    #[value(alias = "means", alias = "variances")]
    Moments,
    /// Differences in Pearson correlations.
    Correlations,
    /// IL1s as sdcMicro's dUtility: Σ|x − x'| / (√2·S_j), a sum over cells.
    Il1s,
    /// Propensity-score mean squared error (Woo et al. 2009).
    Pmse,
    /// Overlap of regression coefficients' 95% intervals (Karr et al. 2006); needs --model.
    CiOverlap,
}

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON object.
    Json,
    /// Aligned text for people.
    Table,
}

/// Model family of --model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FamilyArg {
    /// Ordinary least squares.
    Linear,
    /// Logistic regression (binary response).
    Logistic,
}

/// Compare a masked file with its original: moments, correlations, IL1s, pMSE, and the
/// confidence-interval overlap of a regression model.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  intruder utility --original in.csv --masked masked.csv --vars income,age --model \"income ~ age + sex\" --format table"
)]
pub struct Args {
    /// The original file.
    #[arg(long, value_name = "FILE")]
    pub original: PathBuf,
    /// The masked file.
    #[arg(long, value_name = "FILE")]
    pub masked: PathBuf,
    /// Variables compared, comma-separated (numeric; pMSE also takes categorical ones).
    #[arg(long, value_delimiter = ',', value_name = "COLS", required = true)]
    pub vars: Vec<String>,
    /// Measures, comma-separated. Default: every one that applies (ci-overlap with --model,
    /// il1s when the files have the same records).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub measure: Vec<Measure>,
    /// Regression model for ci-overlap, as "y ~ x1 + x2" (intercept included).
    #[arg(long, value_name = "FORMULA")]
    pub model: Option<String>,
    /// Family of --model.
    #[arg(long, value_enum, default_value = "linear")]
    pub family: FamilyArg,
    /// Change log of `intruder mask --log`: the original is subset to its kept rows, so IL1s
    /// compares the same records after removal or subsampling.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Schema TOML for both files.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "json")]
    pub format: Format,
    /// Write the report here (whole or not at all) instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

fn kept_rows(path: &PathBuf, n: usize) -> Result<Vec<usize>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let v: Value =
        serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
    let rows = v
        .pointer("/log/kept_rows")
        .or_else(|| v.get("kept_rows"))
        .and_then(Value::as_array)
        .with_context(|| {
            format!(
                "{}: no log.kept_rows (expected the output of intruder mask --log)",
                path.display()
            )
        })?;
    rows.iter()
        .enumerate()
        .map(|(i, r)| match r.as_u64() {
            Some(r) if (r as usize) < n => Ok(r as usize),
            _ => bail!(
                "{}: kept_rows[{i}] = {r} is not a row of the original ({n} rows)",
                path.display()
            ),
        })
        .collect()
}

fn fmt(x: f64) -> String {
    if x.is_nan() {
        "NA".into()
    } else {
        format!("{x:.6}")
    }
}

/// Runs `intruder utility`.
pub fn run(args: Args) -> Result<()> {
    let formula: Option<Formula> = args.model.as_deref().map(str::parse).transpose()?;
    let mut measures = args.measure.clone();
    if measures.contains(&Measure::CiOverlap) && formula.is_none() {
        bail!("--measure ci-overlap needs --model \"y ~ x1 + x2\"");
    }
    let mut opts = ReadOptions::default();
    if let Some(s) = &args.schema {
        opts.schema = Some(Schema::from_file(s)?);
    }
    let mut original: Table = read_csv(&args.original, &opts)?.table;
    let masked: Table = read_csv(&args.masked, &opts)?.table;
    if let Some(log) = &args.log {
        let rows = kept_rows(log, original.nrows())?;
        original = original.take(&rows);
    }
    if measures.is_empty() {
        measures.push(Measure::Moments);
        if args.vars.len() >= 2 {
            measures.push(Measure::Correlations);
        }
        if original.nrows() == masked.nrows() {
            measures.push(Measure::Il1s);
        }
        measures.push(Measure::Pmse);
        if formula.is_some() {
            measures.push(Measure::CiOverlap);
        }
    }
    let family = match args.family {
        FamilyArg::Linear => Family::Linear,
        FamilyArg::Logistic => Family::Logistic,
    };
    let vars = &args.vars;
    let mut report = Map::new();
    report.insert(
        "original".into(),
        json!(args.original.display().to_string()),
    );
    report.insert("masked".into(), json!(args.masked.display().to_string()));
    report.insert("variables".into(), json!(vars));
    let mut text = String::new();
    writeln!(
        text,
        "utility of {} against {}",
        args.masked.display(),
        args.original.display()
    )?;
    for m in &measures {
        match m {
            Measure::Moments => {
                let d = moments(&original, &masked, vars)?;
                writeln!(text, "\nmeans and variances (n − 1)")?;
                writeln!(
                    text,
                    "  {:<16} {:>14} {:>14} {:>12} {:>14} {:>14} {:>12}",
                    "variable",
                    "mean orig",
                    "mean masked",
                    "rel diff",
                    "var orig",
                    "var masked",
                    "rel diff"
                )?;
                for v in &d {
                    writeln!(
                        text,
                        "  {:<16} {:>14} {:>14} {:>12} {:>14} {:>14} {:>12}",
                        v.variable,
                        fmt(v.mean_original),
                        fmt(v.mean_masked),
                        v.mean_rel_diff.map_or("NA".into(), fmt),
                        fmt(v.var_original),
                        fmt(v.var_masked),
                        v.var_rel_diff.map_or("NA".into(), fmt)
                    )?;
                }
                report.insert("moments".into(), serde_json::to_value(d)?);
            }
            Measure::Correlations => {
                let c = correlations(&original, &masked, vars)?;
                writeln!(
                    text,
                    "\ncorrelations: max |Δr| = {}, mean |Δr| = {}",
                    fmt(c.max_abs_diff),
                    fmt(c.mean_abs_diff)
                )?;
                report.insert("correlations".into(), serde_json::to_value(c)?);
            }
            Measure::Il1s => {
                let il = il1s(&original, &masked, vars)?;
                writeln!(
                    text,
                    "\nIL1s (sdcMicro dUtility: sum over {} cells of |x − x'|/(√2·S_j)) = {}; per cell {}",
                    il.cells,
                    fmt(il.total),
                    fmt(il.per_cell)
                )?;
                report.insert("il1s".into(), serde_json::to_value(il)?);
            }
            Measure::Pmse => {
                let p = pmse(&original, &masked, vars)?;
                writeln!(
                    text,
                    "\npMSE = {} (null expectation {}, ratio {}; {} parameters, N = {}, c = {})",
                    fmt(p.pmse),
                    fmt(p.null_expectation),
                    fmt(p.ratio),
                    p.parameters,
                    p.n,
                    fmt(p.c)
                )?;
                report.insert("pmse".into(), serde_json::to_value(p)?);
            }
            Measure::CiOverlap => {
                let Some(f) = &formula else {
                    bail!("ci-overlap needs --model");
                };
                let o = ci_overlap(&original, &masked, f, family)?;
                writeln!(
                    text,
                    "\nCI overlap (Karr et al. 2006), {:?} model {} ~ {}: mean {}",
                    family,
                    f.response,
                    f.predictors.join(" + "),
                    fmt(o.mean_overlap)
                )?;
                writeln!(
                    text,
                    "  {:<20} {:>12} {:>12} {:>10}",
                    "coefficient", "β orig", "β masked", "overlap"
                )?;
                for c in &o.coefficients {
                    writeln!(
                        text,
                        "  {:<20} {:>12} {:>12} {:>10}",
                        c.name,
                        fmt(c.estimate_original),
                        fmt(c.estimate_masked),
                        fmt(c.overlap)
                    )?;
                }
                report.insert("ci_overlap".into(), serde_json::to_value(o)?);
            }
        }
    }
    let body = match args.format {
        Format::Json => serde_json::to_string_pretty(&Value::Object(report))? + "\n",
        Format::Table => text,
    };
    match &args.out {
        Some(p) => write_atomically(p, |w| w.write_all(body.as_bytes()))?,
        None => std::io::stdout().lock().write_all(body.as_bytes())?,
    }
    Ok(())
}
