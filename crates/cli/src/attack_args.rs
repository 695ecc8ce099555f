//! The arguments of `intruder attack` and the parameter table they make (what an experiment's
//! `[[attack]]` table holds), read by `intruder_attack::configure`.

use std::path::PathBuf;

use anyhow::Result;

use crate::common::{MethodArgs, OutputArgs, ReadArgs, flag};
use crate::param_flags::{Attacks, ParamFlags};

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
    /// Every parameter of the attacks and questions as a flag (`--u-sample 5000`).
    #[command(flatten)]
    pub flags: ParamFlags<Attacks>,
}

/// The one parameter table: `--set` items, then each parameter given as a flag (a key given
/// both ways is an error); defaults live in the registry only.
pub(crate) fn parameter_table(a: &Args) -> Result<toml::Table> {
    let mut t = a.params.table()?;
    match &a.method {
        Some(m) => flag(&mut t, "method", m.as_str())?,
        None if !t.contains_key("method") => {
            t.insert("method".into(), "exact".into());
        }
        None => {}
    }
    a.flags.insert_into(&mut t)?;
    Ok(t)
}
