//! `intruder mask`: apply a pipeline of defences (masking methods) to a file.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use serde_json::json;

use intruder_data::{Dataset, ReadOptions, Schema, read_csv, write_atomically};
use intruder_defence::{METHODS, Pipeline};

/// Mask a microdata file with a pipeline of defences (recoding, suppression, noise, MDAV, rank
/// swapping, PRAM, subsampling). Truth columns pass through unchanged and are subset with the
/// records, so the masked file can still be evaluated.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  intruder mask --data in.csv --pipeline p.toml --seed 42 --out masked.csv --log log.json\n  intruder mask --data in.csv --method local-suppression --set keys=age,sex,region --set k=3 --seed 1 --out masked.csv\n  intruder mask --list"
)]
pub struct Args {
    /// The microdata file (CSV, plain or gzip).
    #[arg(long, value_name = "FILE", required_unless_present = "list")]
    pub data: Option<PathBuf>,
    /// Pipeline TOML: [[step]] tables with `method = "…"` and the method's parameters.
    #[arg(long, value_name = "FILE", conflicts_with = "method")]
    pub pipeline: Option<PathBuf>,
    /// A single method instead of a pipeline (see --list).
    #[arg(long, value_name = "NAME")]
    pub method: Option<String>,
    /// A parameter of --method as key=value; the value is read as TOML (k=3, p=2.5,
    /// keys='["a","b"]'), and a bare comma-separated list as a list of strings (keys=a,b).
    #[arg(long = "set", value_name = "KEY=VALUE", requires = "method")]
    pub set: Vec<String>,
    /// Seed of every random step (required: the same seed and input give the same output).
    #[arg(long, required_unless_present = "list")]
    pub seed: Option<u64>,
    /// Where to write the masked file (CSV, written whole or not at all).
    #[arg(long, value_name = "FILE", required_unless_present = "list")]
    pub out: Option<PathBuf>,
    /// Where to write the change log (JSON): cells and records changed per step, suppressions,
    /// kept row indices.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Schema TOML declaring types, roles, missing tokens and category order.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,
    /// List the methods and their parameters, then exit.
    #[arg(long)]
    pub list: bool,
}

fn parse_set(items: &[String]) -> Result<toml::Table> {
    let mut t = toml::Table::new();
    for item in items {
        let Some((k, v)) = item.split_once('=') else {
            bail!("--set '{item}': expected KEY=VALUE");
        };
        let k = k.trim();
        if k.is_empty() {
            bail!("--set '{item}': the key is empty");
        }
        let parse = |v: &str| -> Option<toml::Value> {
            format!("v = {v}")
                .parse::<toml::Table>()
                .ok()
                .and_then(|mut t| t.remove("v"))
        };
        let v = v.trim();
        let value = match parse(v) {
            Some(x) => x,
            None if v.contains(',') => toml::Value::Array(
                v.split(',')
                    .map(|s| {
                        let s = s.trim();
                        match parse(s) {
                            Some(x @ (toml::Value::Integer(_) | toml::Value::Float(_))) => x,
                            _ => toml::Value::String(s.to_string()),
                        }
                    })
                    .collect(),
            ),
            None => toml::Value::String(v.to_string()),
        };
        if t.insert(k.to_string(), value).is_some() {
            bail!("--set: key '{k}' given twice");
        }
    }
    Ok(t)
}

fn list() -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "Methods (use in a pipeline as [[step]] method = \"NAME\"):"
    )?;
    for m in METHODS {
        writeln!(
            out,
            "\n{}  —  {}\n  source: {}",
            m.name, m.summary, m.source
        )?;
        for p in m.params {
            let req = if p.required {
                "required".to_string()
            } else if p.default.is_empty() {
                "optional".to_string()
            } else {
                format!("default {}", p.default)
            };
            writeln!(
                out,
                "  {:<14} {:<26} {:<22} {}",
                p.name,
                p.kind.as_str(),
                req,
                p.doc
            )?;
        }
    }
    Ok(())
}

/// Runs `intruder mask`.
pub fn run(args: Args) -> Result<()> {
    if args.list {
        return list();
    }
    let (Some(data), Some(seed), Some(out)) = (&args.data, args.seed, &args.out) else {
        bail!("--data, --seed and --out are required");
    };
    let pipeline = match (&args.pipeline, &args.method) {
        (Some(p), None) => Pipeline::from_file(p)?,
        (None, Some(m)) => Pipeline::single(m, parse_set(&args.set)?, "--method/--set")?,
        _ => bail!("give --pipeline FILE or --method NAME (with --set key=value)"),
    };
    let mut opts = ReadOptions::default();
    if let Some(s) = &args.schema {
        opts.schema = Some(Schema::from_file(s)?);
    }
    let ds = read_csv(data, &opts)?;
    let (table, log) = pipeline
        .run(&ds.table, seed)
        .with_context(|| format!("masking {}", data.display()))?;
    let masked = Dataset {
        table,
        truth: ds.truth.take(&log.kept_rows),
    };
    let log_json = args
        .log
        .as_ref()
        .map(|_| {
            serde_json::to_string_pretty(&json!({
                "tool": format!("intruder {}", env!("CARGO_PKG_VERSION")),
                "input": data.display().to_string(),
                "output": out.display().to_string(),
                "seed": seed,
                "pipeline": pipeline.steps.iter().map(|s| &s.params).collect::<Vec<_>>(),
                "log": log,
            }))
        })
        .transpose()?;
    masked.write_csv(out)?;
    if let (Some(path), Some(text)) = (&args.log, log_json) {
        write_atomically(path, |w| {
            w.write_all(text.as_bytes())?;
            w.write_all(b"\n")
        })?;
    }
    eprintln!(
        "{}: {} → {} records, {} cells changed ({} suppressed) in {} records; wrote {}",
        data.display(),
        log.rows_in,
        log.rows_out,
        log.cells_changed,
        log.suppressions,
        log.records_changed,
        out.display()
    );
    Ok(())
}
