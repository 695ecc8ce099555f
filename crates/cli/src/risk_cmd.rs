//! `intruder risk`: frequency risk of one file.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use serde_json::Value;

use intruder_data::{ReadOptions, Role, Schema, read_csv, write_atomically};
use intruder_risk::{Assessment, MissingPolicy, RiskParams, SetMatch, assess};

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One JSON object.
    Json,
    /// Aligned, for people: each figure with its meaning.
    Table,
    /// A header row of figure names and one row of values.
    Csv,
}

/// Missing-value policy (METHODS.md §1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Policy {
    /// Drop records missing any key, then count classes.
    Listwise,
    /// Missing is one more category.
    AsValue,
    /// Missing matches anything (Mulder's n_match; sdcMicro's freqCalc).
    Wildcard,
}

/// Set-valued matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SetMode {
    /// Sets match when they intersect; classes use the whole set.
    Overlap,
    /// The first candidate is the value (Mulder's Table 2).
    First,
}

/// Frequency risk: equivalence classes, sample uniques, n_match, θ, individual, global and
/// household risk, ℓ-diversity.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  intruder risk --data data/examples/workplace-survey.csv --keys Gender,AgeGrp,EthnicGrp --sensitive Unionize"
)]
pub struct Args {
    /// The microdata file (CSV, plain or gzip).
    #[arg(long, value_name = "FILE")]
    pub data: PathBuf,
    /// Key variables (quasi-identifiers), comma-separated. Default: the schema's key columns.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub keys: Vec<String>,
    /// How missing key values are treated.
    #[arg(long, value_enum, default_value = "listwise")]
    pub missing: Policy,
    /// How set-valued cells match.
    #[arg(long, value_enum, default_value = "overlap")]
    pub set_match: SetMode,
    /// Population size N (sampling fraction π = n/N, θ, Bender's R).
    #[arg(long, value_name = "N")]
    pub population_size: Option<f64>,
    /// Sampling-weight column: individual risk as sdcMicro (Benedetti–Franconi), global risk.
    #[arg(long, value_name = "COL")]
    pub weight: Option<String>,
    /// Sensitive column: distinct and entropy ℓ-diversity.
    #[arg(long, value_name = "COL")]
    pub sensitive: Option<String>,
    /// Household (group) column: household risk 1 − Π(1 − r_i).
    #[arg(long, value_name = "COL")]
    pub group: Option<String>,
    /// Set-valued columns (cells such as 3|4), comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "COLS")]
    pub set_valued: Vec<String>,
    /// Schema TOML declaring types, roles, missing tokens and category order.
    #[arg(long, value_name = "FILE")]
    pub schema: Option<PathBuf>,
    /// Field delimiter (one character; `tab` for a tab).
    #[arg(long, value_name = "C")]
    pub delimiter: Option<String>,
    /// Missing-value tokens, comma-separated (default: empty field, NA and .).
    #[arg(long, value_name = "TOKENS", allow_hyphen_values = true)]
    pub missing_tokens: Option<String>,
    /// Dalenius' uniqueness threshold: classes of size ≤ T count as unique.
    #[arg(long, value_name = "T", default_value_t = 1)]
    pub unique_threshold: u32,
    /// n(U), the number of population uniques, for Bender's R (needs --population-size).
    #[arg(long, value_name = "NU")]
    pub population_uniques: Option<f64>,
    /// f_a, the share of the population the intruder knows about, for Bender's R.
    #[arg(long, value_name = "FA", default_value_t = 1.0)]
    pub intruder_share: f64,
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// Write per-record figures (row, k, n_match, …) to this CSV file.
    #[arg(long, value_name = "OUT.csv")]
    pub per_record: Option<PathBuf>,
}

/// Parses a delimiter argument.
pub fn parse_delimiter(d: &str) -> Result<u8> {
    match d {
        "tab" | "\\t" | "\t" => Ok(b'\t'),
        s if s.len() == 1 && s.is_ascii() => Ok(s.as_bytes()[0]),
        s => bail!("--delimiter: expected one ASCII character or 'tab', found '{s}'"),
    }
}

/// Runs `intruder risk`.
pub fn run(args: Args) -> Result<()> {
    let mut opts = ReadOptions::default();
    if let Some(s) = &args.schema {
        opts.schema = Some(Schema::from_file(s)?);
    }
    if let Some(d) = &args.delimiter {
        opts.delimiter = Some(parse_delimiter(d)?);
    }
    if let Some(t) = &args.missing_tokens {
        opts.missing = Some(t.split(',').map(str::to_string).collect());
    }
    opts = opts
        .with_role(&args.keys, Role::Key)
        .with_set_valued(&args.set_valued);
    for (col, role) in [
        (&args.weight, Role::Weight),
        (&args.sensitive, Role::Sensitive),
        (&args.group, Role::Group),
    ] {
        if let Some(c) = col {
            opts.override_spec(c).role = Some(role);
        }
    }
    let ds = read_csv(&args.data, &opts)?;
    let keys: Vec<String> = if args.keys.is_empty() {
        ds.table
            .with_role(Role::Key)
            .iter()
            .map(|c| c.name().to_string())
            .collect()
    } else {
        args.keys.clone()
    };
    if keys.is_empty() {
        bail!(
            "{}: no key variables: name them with --keys a,b,c or declare role = \"key\" in a schema (--schema)",
            args.data.display()
        );
    }
    let mut params = RiskParams::new(keys);
    params.missing = match args.missing {
        Policy::Listwise => MissingPolicy::Listwise,
        Policy::AsValue => MissingPolicy::AsValue,
        Policy::Wildcard => MissingPolicy::Wildcard,
    };
    params.set_match = match args.set_match {
        SetMode::Overlap => SetMatch::Overlap,
        SetMode::First => SetMatch::First,
    };
    params.population_size = args.population_size;
    params.weight = args.weight.clone();
    params.sensitive = args.sensitive.clone();
    params.group = args.group.clone();
    params.unique_threshold = args.unique_threshold;
    params.population_uniques = args.population_uniques;
    params.intruder_share = args.intruder_share;
    params.with_n_match = args.per_record.is_some();
    let a = assess(&ds.table, &params)?;

    if let Some(out) = &args.per_record {
        write_per_record(out, &a).with_context(|| format!("writing {}", out.display()))?;
    }
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    match args.format {
        Format::Json => writeln!(w, "{}", serde_json::to_string_pretty(&a.summary.to_json())?)?,
        Format::Csv => {
            let figs = a.summary.figures();
            let mut c = csv::Writer::from_writer(&mut w);
            c.write_record(figs.iter().map(|f| f.name))?;
            c.write_record(figs.iter().map(|f| plain(&f.value)))?;
            c.flush()?;
        }
        Format::Table => {
            writeln!(w, "intruder risk — {}", args.data.display())?;
            let figs = a.summary.figures();
            let values: Vec<String> = figs.iter().map(|f| human(&f.value)).collect();
            let nw = figs.iter().map(|f| f.name.len()).max().unwrap_or(0);
            let vw = values
                .iter()
                .map(|v| v.chars().count())
                .max()
                .unwrap_or(0)
                .min(40);
            for (f, v) in figs.iter().zip(&values) {
                writeln!(w, "  {:<nw$}  {:>vw$}  {}", f.name, v, f.meaning)?;
            }
        }
    }
    Ok(())
}

fn plain(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(plain).collect::<Vec<_>>().join("+"),
        other => other.to_string(),
    }
}

fn human(v: &Value) -> String {
    match v {
        Value::Null => "–".into(),
        Value::Number(n) if n.is_f64() => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if x != 0.0 && x.abs() < 1e-4 {
                format!("{x:.3e}")
            } else {
                format!("{x:.6}")
                    .trim_end_matches('0')
                    .trim_end_matches('.')
                    .to_string()
            }
        }
        Value::Array(a) => a.iter().map(plain).collect::<Vec<_>>().join(", "),
        other => plain(other),
    }
}

fn write_per_record(path: &std::path::Path, a: &Assessment) -> Result<()> {
    let r = &a.records;
    write_atomically(path, |f| {
        let mut c = csv::Writer::from_writer(f);
        let io = |e: csv::Error| std::io::Error::other(e.to_string());
        let mut header = vec!["row", "k", "n_match", "individual_risk"];
        if r.household_risk.is_some() {
            header.push("household_risk");
        }
        if r.l_distinct.is_some() {
            header.push("l_distinct");
        }
        c.write_record(&header).map_err(io)?;
        let mut row = Vec::with_capacity(header.len());
        for i in 0..r.k.len() {
            row.clear();
            row.push((i + 1).to_string());
            row.push(r.k[i].map(|k| k.to_string()).unwrap_or_default());
            row.push(
                r.n_match
                    .as_ref()
                    .map(|m| m[i].to_string())
                    .unwrap_or_default(),
            );
            row.push(
                r.individual_risk[i]
                    .map(|x| x.to_string())
                    .unwrap_or_default(),
            );
            if let Some(h) = &r.household_risk {
                row.push(h[i].to_string());
            }
            if let Some(l) = &r.l_distinct {
                row.push(l[i].map(|x| x.to_string()).unwrap_or_default());
            }
            c.write_record(&row).map_err(io)?;
        }
        c.flush()
    })?;
    Ok(())
}
