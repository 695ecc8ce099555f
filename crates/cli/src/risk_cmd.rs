//! `intruder risk`: frequency risk of one file.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::ValueEnum;
use serde_json::Value;

use intruder_data::{ReadOptions, Role, Schema, read_csv, write_atomically};
use intruder_risk::population::LogLinearModel;
use intruder_risk::{
    Assessment, Figure, MissingPolicy, PopulationParams, RiskParams, SetMatch, Suda2Params, assess,
    population_uniqueness, suda2,
};
use serde_json::json;

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

/// Which risk measure to compute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Measure {
    /// Frequency risk: classes, uniques, n_match, θ, individual and household risk, ℓ-diversity.
    Frequency,
    /// SUDA2: minimal sample uniques, SUDA and DIS-SUDA scores, key and category contributions.
    Suda2,
    /// Population uniques from the sample: Zayatz, Pitman, SNB, Dankar's rule, log-linear τ.
    Population,
    /// Individual risk from sampling weights (sdcMicro's indivRisk) and household risk only.
    Individual,
}

/// Log-linear model for `--measure population`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogLinear {
    /// Main effects (independence).
    MainEffects,
    /// All two-way interactions (iterative proportional fitting).
    TwoWay,
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
    #[arg(long, value_name = "C", value_parser = crate::delimiter::parse)]
    pub delimiter: Option<u8>,
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
    /// Risk measure: frequency (default), suda2, population or individual.
    #[arg(long, value_enum, default_value = "frequency")]
    pub measure: Measure,
    /// SUDA2: largest MSU size searched (default: every size, as sdcMicro).
    #[arg(long, value_name = "K")]
    pub max_msu_size: Option<usize>,
    /// SUDA2: sampling fraction f of the DIS probability (sdcMicro's DisFraction).
    #[arg(long, value_name = "F", default_value_t = 0.01)]
    pub dis_fraction: f64,
    /// SUDA2: refuse searches whose worst case (records × key subsets) exceeds this.
    #[arg(long, value_name = "STEPS", default_value_t = intruder_risk::suda::DEFAULT_COST_LIMIT)]
    pub suda_cost_limit: f64,
    /// Population: the sampling fraction π in (0, 1] (instead of --population-size or weights).
    #[arg(long, value_name = "F")]
    pub sampling_fraction: Option<f64>,
    /// Population: log-linear model for Skinner & Holmes' τ.
    #[arg(long, value_enum, default_value = "main-effects")]
    pub loglinear: LogLinear,
}

/// Runs `intruder risk`.
pub fn run(args: Args) -> Result<()> {
    let mut opts = ReadOptions::default();
    if let Some(s) = &args.schema {
        opts.schema = Some(Schema::from_file(s)?);
    }
    opts.delimiter = args.delimiter;
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
    match args.measure {
        Measure::Suda2 => return run_suda2(&args, &ds.table, keys),
        Measure::Population => return run_population(&args, &ds.table, keys),
        Measure::Frequency | Measure::Individual => {}
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
    if args.measure == Measure::Individual {
        return finish_individual(&args, &a);
    }

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

fn policy_of(args: &Args) -> MissingPolicy {
    match args.missing {
        Policy::Listwise => MissingPolicy::Listwise,
        Policy::AsValue => MissingPolicy::AsValue,
        Policy::Wildcard => MissingPolicy::Wildcard,
    }
}

fn set_match_of(args: &Args) -> SetMatch {
    match args.set_match {
        SetMode::Overlap => SetMatch::Overlap,
        SetMode::First => SetMatch::First,
    }
}

/// Prints figures in the chosen format (the conventions of the frequency output); `extra` is
/// merged into the JSON object only.
fn print_figures(
    args: &Args,
    title: &str,
    figs: &[Figure],
    extra: Option<(&str, Value)>,
) -> Result<()> {
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    match args.format {
        Format::Json => {
            let mut obj: serde_json::Map<String, Value> = figs
                .iter()
                .map(|f| (f.name.to_string(), f.value.clone()))
                .collect();
            if let Some((k, v)) = extra {
                obj.insert(k.to_string(), v);
            }
            writeln!(w, "{}", serde_json::to_string_pretty(&Value::Object(obj))?)?
        }
        Format::Csv => {
            let mut c = csv::Writer::from_writer(&mut w);
            c.write_record(figs.iter().map(|f| f.name))?;
            c.write_record(figs.iter().map(|f| plain(&f.value)))?;
            c.flush()?;
        }
        Format::Table => {
            writeln!(w, "intruder risk ({title}) — {}", args.data.display())?;
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

/// `--measure individual`: the weighted individual and household figures of the frequency
/// assessment.
fn finish_individual(args: &Args, a: &Assessment) -> Result<()> {
    if let Some(out) = &args.per_record {
        write_per_record(out, a).with_context(|| format!("writing {}", out.display()))?;
    }
    const KEEP: &[&str] = &[
        "policy",
        "keys",
        "n_total",
        "n_deleted",
        "n",
        "sample_uniques",
        "expected_reidentifications",
        "global_risk",
        "max_individual_risk",
        "household_expected_reidentifications",
        "household_global_risk",
    ];
    let mut figs: Vec<Figure> = a
        .summary
        .figures()
        .into_iter()
        .filter(|f| KEEP.contains(&f.name))
        .collect();
    if args.weight.is_none() {
        figs.push(Figure {
            name: "weights",
            value: Value::Null,
            meaning: "no --weight given: individual risk is 1/f_k".into(),
        });
    }
    print_figures(args, "individual", &figs, None)
}

fn run_suda2(args: &Args, table: &intruder_data::Table, keys: Vec<String>) -> Result<()> {
    let mut p = Suda2Params::new(keys);
    p.max_msu_size = args.max_msu_size;
    p.missing = policy_of(args);
    p.set_match = set_match_of(args);
    p.dis_fraction = args.dis_fraction;
    p.cost_limit = args.suda_cost_limit;
    let s = suda2(table, &p)?;
    if let Some(out) = &args.per_record {
        write_atomically(out, |f| {
            let mut c = csv::Writer::from_writer(f);
            let io = |e: csv::Error| std::io::Error::other(e.to_string());
            let mut header = vec![
                "row".to_string(),
                "score".into(),
                "dis_score".into(),
                "msus".into(),
            ];
            header.extend(s.keys.iter().map(|k| format!("contribution_{k}")));
            c.write_record(&header).map_err(io)?;
            for i in 0..s.score.len() {
                let mut row = vec![
                    (i + 1).to_string(),
                    s.score[i].map(|x| x.to_string()).unwrap_or_default(),
                    s.dis_score[i].map(|x| x.to_string()).unwrap_or_default(),
                    s.msu_names(i)
                        .iter()
                        .map(|m| m.join("+"))
                        .collect::<Vec<_>>()
                        .join(";"),
                ];
                if s.score[i].is_some() {
                    row.extend(s.record_contributions(i).iter().map(|x| x.to_string()));
                } else {
                    row.extend(s.keys.iter().map(|_| String::new()));
                }
                c.write_record(&row).map_err(io)?;
            }
            c.flush()
        })
        .with_context(|| format!("writing {}", out.display()))?;
    }
    let scored: Vec<f64> = s.score.iter().flatten().copied().collect();
    let positive = scored.iter().filter(|&&x| x > 0.0).count();
    let max = scored.iter().copied().fold(0.0f64, f64::max);
    let dis_max = s.dis_score.iter().flatten().copied().fold(0.0f64, f64::max);
    let contributions: serde_json::Map<String, Value> = s
        .keys
        .iter()
        .zip(&s.key_contributions)
        .map(|(k, c)| (k.clone(), json!(c)))
        .collect();
    let fig = |name: &'static str, value: Value, meaning: &str| Figure {
        name,
        value,
        meaning: meaning.into(),
    };
    let figs = vec![
        fig(
            "measure",
            json!("suda2"),
            "SUDA2 special uniques (Elliot et al. 2002; Manning et al. 2008)",
        ),
        fig(
            "policy",
            json!(p.missing.as_str()),
            "how missing key values were treated",
        ),
        fig("keys", json!(s.keys), "key variables (ATT = their number)"),
        fig("n_total", json!(s.n_total), "records in the file"),
        fig(
            "n_deleted",
            json!(s.n_deleted),
            "records dropped for a missing key (listwise)",
        ),
        fig(
            "max_msu_size",
            json!(s.max_msu_size),
            "largest MSU size searched",
        ),
        fig(
            "sample_uniques",
            json!(s.sample_uniques),
            "records unique on all keys (U)",
        ),
        fig(
            "pair_records",
            json!(s.pair_records),
            "records in classes of size 2 (P)",
        ),
        fig("msus", json!(s.msu_count()), "minimal sample uniques found"),
        fig(
            "msus_by_size",
            json!(s.msus_by_size),
            "MSUs of size 1, 2, …",
        ),
        fig(
            "records_with_score",
            json!(positive),
            "records with at least one MSU",
        ),
        fig("score_max", json!(max), "largest SUDA score"),
        fig(
            "score_mean",
            json!(if scored.is_empty() {
                0.0
            } else {
                scored.iter().sum::<f64>() / scored.len() as f64
            }),
            "mean SUDA score over the records counted",
        ),
        fig(
            "dis_fraction",
            json!(s.dis_fraction),
            "f of the DIS probability (sdcMicro's DisFraction)",
        ),
        fig("dis", json!(s.dis), "DIS probability U·f / (U·f + P·(1−f))"),
        fig("dis_score_max", json!(dis_max), "largest DIS-SUDA score"),
        fig(
            "key_contributions",
            Value::Object(contributions),
            "percent of the total score credited to each key (sdcMicro's attribute_contributions)",
        ),
    ];
    let levels: Vec<Value> = s
        .level_contributions
        .iter()
        .map(|l| json!({"key": l.key, "level": l.level, "percent": l.percent}))
        .collect();
    print_figures(
        args,
        "suda2",
        &figs,
        Some(("level_contributions", Value::Array(levels))),
    )
}

fn run_population(args: &Args, table: &intruder_data::Table, keys: Vec<String>) -> Result<()> {
    let mut p = PopulationParams::new(keys);
    p.missing = policy_of(args);
    p.set_match = set_match_of(args);
    p.population_size = args.population_size;
    p.sampling_fraction = args.sampling_fraction;
    p.weight = args.weight.clone();
    p.log_linear = match args.loglinear {
        LogLinear::MainEffects => LogLinearModel::MainEffects,
        LogLinear::TwoWay => LogLinearModel::TwoWay,
    };
    let r = population_uniqueness(table, &p)?;
    if let Some(out) = &args.per_record {
        write_atomically(out, |f| {
            let mut c = csv::Writer::from_writer(f);
            let io = |e: csv::Error| std::io::Error::other(e.to_string());
            c.write_record([
                "row",
                "k",
                "pr_population_unique_rule",
                "pr_population_unique_loglinear",
                "expected_inverse_f_loglinear",
            ])
            .map_err(io)?;
            let opt = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
            for i in 0..r.k.len() {
                c.write_record([
                    (i + 1).to_string(),
                    r.k[i].map(|x| x.to_string()).unwrap_or_default(),
                    opt(r.pr_unique_rule[i]),
                    opt(r.pr_unique_loglinear[i]),
                    opt(r.expected_inverse_loglinear[i]),
                ])
                .map_err(io)?;
            }
            c.flush()
        })
        .with_context(|| format!("writing {}", out.display()))?;
    }
    let params: serde_json::Map<String, Value> = r
        .estimates
        .iter()
        .map(|(n, e)| {
            (
                n.to_string(),
                Value::Object(
                    e.parameters
                        .iter()
                        .map(|(k, v)| (k.to_string(), json!(v)))
                        .collect(),
                ),
            )
        })
        .collect();
    print_figures(
        args,
        "population",
        &r.figures(),
        Some(("parameters", Value::Object(params))),
    )
}
