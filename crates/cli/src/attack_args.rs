//! The arguments of `intruder attack` and the parameter table they make (what an experiment's
//! `[[attack]]` table holds), read by `intruder_attack::configure`.

use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::common::{MethodArgs, OutputArgs, ReadArgs, flag, flag_list, flag_opt};

/// Link an intruder's file to a released file and report how many people were re-identified
/// and what was learned about them; or ask one of the three questions of anonymisation
/// (`--method singling-out|linkability|inference` with `--original` and `--control`). `--list`
/// shows every attack and question with its parameters.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The intruder's file (CSV, plain or gzip).
    #[arg(long, value_name = "FILE", required_unless_present_any = ["list", "original"])]
    pub intruder: Option<PathBuf>,
    /// The released (masked or synthetic) file (CSV, plain or gzip).
    #[arg(long, value_name = "FILE", required_unless_present = "list")]
    pub released: Option<PathBuf>,
    /// The original file the release was made from: what the three questions (singling-out,
    /// linkability, inference) attack, instead of an intruder's file.
    #[arg(long, value_name = "FILE", conflicts_with = "intruder")]
    pub original: Option<PathBuf>,
    /// The control set of the three questions: real records of the same population that the
    /// release never saw (same columns as --original).
    #[arg(long, value_name = "FILE", requires = "original")]
    pub control: Option<PathBuf>,
    /// Schema (TOML) of the original file (default: the FILE.schema.toml beside it).
    #[arg(long, value_name = "FILE", requires = "original")]
    pub original_schema: Option<PathBuf>,
    /// Schema (TOML) of the control file (default: the FILE.schema.toml beside it).
    #[arg(long, value_name = "FILE", requires = "control")]
    pub control_schema: Option<PathBuf>,
    /// Schema (TOML) of the intruder's file (default: the FILE.schema.toml beside it).
    #[arg(long, value_name = "FILE")]
    pub intruder_schema: Option<PathBuf>,
    /// Schema (TOML) of the released file (default: the FILE.schema.toml beside it).
    #[arg(long, value_name = "FILE")]
    pub released_schema: Option<PathBuf>,
    #[command(flatten)]
    pub read: ReadArgs,
    /// The attack (default exact); `--list` shows them all.
    #[arg(long, value_name = "NAME")]
    pub method: Option<String>,
    #[command(flatten)]
    pub params: MethodArgs,
    /// keys: key variables as named in the intruder's file, comma-separated (default: the
    /// intruder schema's columns with role key).
    #[arg(long, value_delimiter = ',')]
    pub keys: Vec<String>,
    /// key_map: keys named differently in the released file, intruder=released,…
    #[arg(long, value_delimiter = ',', value_name = "A=X")]
    pub key_map: Vec<String>,
    /// twins_only: search only released records with a twin in the intruder's file.
    #[arg(long)]
    pub twins_only: bool,
    /// sensitive: released sensitive variable of attribute disclosure (with --sensitive-truth).
    #[arg(long, value_name = "COL")]
    pub sensitive: Option<String>,
    /// tolerance: relative tolerance of attribute disclosure (default 0.05).
    #[arg(long, allow_negative_numbers = true)]
    pub tolerance: Option<f64>,
    /// missing: listwise, as-value or wildcard.
    #[arg(long)]
    pub missing: Option<String>,
    /// metric: euclidean or gower (nearest).
    #[arg(long)]
    pub metric: Option<String>,
    /// string_metric: jaro-winkler or levenshtein (nearest).
    #[arg(long)]
    pub string_metric: Option<String>,
    /// standardize: z-score numeric keys before distances.
    #[arg(long)]
    pub standardize: bool,
    /// weights: per-key weights by intruder key name, a=10,b=2 (nearest, kmeans).
    #[arg(long, value_delimiter = ',', value_name = "A=W")]
    pub weights: Vec<String>,
    /// top_k: ranked candidates kept beyond the ties at the best (nearest).
    #[arg(long, allow_negative_numbers = true)]
    pub top_k: Option<i64>,
    /// one_to_one: global one-to-one assignment (nearest).
    #[arg(long)]
    pub one_to_one: bool,
    /// clusters: number of k-means clusters (kmeans).
    #[arg(long, allow_negative_numbers = true)]
    pub clusters: Option<i64>,
    /// threshold: declare links at a best score ≥ this (fellegi-sunter: a match probability).
    #[arg(long, allow_negative_numbers = true)]
    pub threshold: Option<f64>,
    /// linkage_spec: the linkage specification TOML (fellegi-sunter).
    #[arg(long, alias = "spec", value_name = "FILE")]
    pub linkage_spec: Option<PathBuf>,
    /// u_sample: random pairs for the u probabilities (fellegi-sunter).
    #[arg(long, allow_negative_numbers = true)]
    pub u_sample: Option<i64>,
    /// em_max_iter: EM iteration cap (fellegi-sunter).
    #[arg(long, allow_negative_numbers = true)]
    pub em_max_iter: Option<i64>,
    /// em_tolerance: EM convergence tolerance (fellegi-sunter).
    #[arg(long, allow_negative_numbers = true)]
    pub em_tolerance: Option<f64>,
    /// fix_u: keep u at the sampled values during EM (fellegi-sunter).
    #[arg(long)]
    pub fix_u: bool,
    /// assignment: greedy, optimal or none (fellegi-sunter).
    #[arg(long)]
    pub assignment: Option<String>,
    /// Truth column holding the person id in both files (default: the one truth column the two
    /// files share, when there is exactly one).
    #[arg(long, conflicts_with_all = ["truth_intruder", "truth_released"])]
    pub truth: Option<String>,
    /// Truth id column of the intruder's file.
    #[arg(long, requires = "truth_released")]
    pub truth_intruder: Option<String>,
    /// Truth id column of the released file.
    #[arg(long, requires = "truth_intruder")]
    pub truth_released: Option<String>,
    /// Column of the intruder's file with the true original value of the sensitive variable
    /// (read as ground truth: only the evaluator sees it).
    #[arg(long, value_name = "COL")]
    pub sensitive_truth: Option<String>,
    /// Seed of every random step (tie-breaks, k-means with --clusters, the u sample).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write one row per intruder record here (rows 1-based; Parquet when the name ends in
    /// `.parquet`, CSV otherwise).
    #[arg(long, value_name = "FILE")]
    pub per_record: Option<PathBuf>,
    /// Write id_intruder,id_released,match_weight,match_probability for every scored pair at or
    /// above --pairs-floor (attacks with a fitted model: fellegi-sunter).
    #[arg(long, value_name = "FILE")]
    pub pairs_out: Option<PathBuf>,
    /// The match probability floor of --pairs-out.
    #[arg(long, default_value_t = 0.01)]
    pub pairs_floor: f64,
    /// Write the fitted model (m, u, weights, EM report) as JSON here (fellegi-sunter).
    #[arg(long, value_name = "FILE")]
    pub model_out: Option<PathBuf>,
    /// The weight breakdown of one pair, INTRUDER_ROW,RELEASED_ROW (1-based; fellegi-sunter).
    #[arg(long, value_name = "I,R")]
    pub explain_pair: Option<String>,
    /// Write linkage charts (SVG) into this directory (fellegi-sunter): match_weights.svg,
    /// m_u.svg, em.svg, and waterfall.svg with --explain-pair.
    #[arg(long, value_name = "DIR")]
    pub charts: Option<PathBuf>,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub engine: intruder_engine::EngineArgs,
}

/// `a=x,b=y` items as a TOML table of strings (`numbers`: of numbers).
fn assignments(items: &[String], what: &str, numbers: bool) -> Result<toml::Table> {
    let mut t = toml::Table::new();
    for s in items {
        let (a, b) = s
            .split_once('=')
            .with_context(|| format!("{what}: '{s}' is not of the form name=value"))?;
        let v = if numbers {
            toml::Value::Float(b.trim().parse::<f64>().map_err(|_| {
                anyhow::anyhow!("{what}: '{}' for '{}' is not a number", b.trim(), a.trim())
            })?)
        } else {
            toml::Value::String(b.trim().to_string())
        };
        t.insert(a.trim().to_string(), v);
    }
    Ok(t)
}

/// The one parameter table: `--set` items, then each flag given (a key given both ways is an
/// error); defaults live in the registry only.
pub(crate) fn parameter_table(a: &Args) -> Result<toml::Table> {
    let mut t = a.params.table()?;
    match &a.method {
        Some(m) => flag(&mut t, "method", m.as_str())?,
        None if !t.contains_key("method") => {
            t.insert("method".into(), "exact".into());
        }
        None => {}
    }
    flag_list(&mut t, "keys", &a.keys)?;
    if !a.key_map.is_empty() {
        flag(
            &mut t,
            "key_map",
            assignments(&a.key_map, "--key-map", false)?,
        )?;
    }
    if !a.weights.is_empty() {
        flag(
            &mut t,
            "weights",
            assignments(&a.weights, "--weights", true)?,
        )?;
    }
    for (key, on) in [
        ("twins_only", a.twins_only),
        ("standardize", a.standardize),
        ("one_to_one", a.one_to_one),
        ("fix_u", a.fix_u),
    ] {
        if on {
            flag(&mut t, key, true)?;
        }
    }
    let text = |v: &Option<String>| v.clone().map(toml::Value::from);
    let values: [(&str, Option<toml::Value>); 12] = [
        ("sensitive", text(&a.sensitive)),
        ("missing", text(&a.missing)),
        ("metric", text(&a.metric)),
        ("string_metric", text(&a.string_metric)),
        ("assignment", text(&a.assignment)),
        ("top_k", a.top_k.map(Into::into)),
        ("clusters", a.clusters.map(Into::into)),
        ("u_sample", a.u_sample.map(Into::into)),
        ("em_max_iter", a.em_max_iter.map(Into::into)),
        ("tolerance", a.tolerance.map(Into::into)),
        ("threshold", a.threshold.map(Into::into)),
        ("em_tolerance", a.em_tolerance.map(Into::into)),
    ];
    for (key, v) in values {
        flag_opt(&mut t, key, v)?;
    }
    let spec = a.linkage_spec.as_ref().map(|p| p.display().to_string());
    flag_opt(&mut t, "linkage_spec", spec)?;
    Ok(t)
}
