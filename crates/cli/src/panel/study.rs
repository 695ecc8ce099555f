//! `intruder panel study`.

use std::path::PathBuf;

use anyhow::Result;
use intruder_longitudinal::{StudyParams, files, parse_seeds, reports, run_study};

use super::{PanelOpts, PoolArg, tolerance};
use crate::common::{FormatArg, OutputArgs};

/// Arguments of `intruder panel study`.
#[derive(Debug, clap::Args)]
pub(super) struct StudyArgs {
    #[command(flatten)]
    panel: PanelOpts,
    /// Protection seeds: A..B (inclusive) or a comma-separated list.
    #[arg(long, value_name = "SEEDS", default_value = "1..5")]
    seeds: String,
    /// Relative tolerance of attribute disclosure (Mitra: 5%).
    #[arg(long, default_value_t = 0.05)]
    tolerance: f64,
    /// Records searched in the last wave when matching.
    #[arg(long, value_enum, default_value = "split")]
    pool: PoolArg,
    /// Write the whole result (every run) as JSON here.
    #[arg(long, value_name = "results.json")]
    out: Option<PathBuf>,
    /// Output format of the tables.
    #[arg(long, value_enum, default_value = "table")]
    format: FormatArg,
}

pub(super) fn run(a: StudyArgs) -> Result<()> {
    let tol = tolerance(a.tolerance)?;
    let seeds = parse_seeds(&a.seeds).map_err(|e| anyhow::anyhow!("--seeds {e}"))?;
    a.panel.refuse_overwrite(a.out.as_deref(), "--out", &[])?;
    let files = a.panel.load()?;
    let mut params = StudyParams::mitra(files.panel.t(), seeds);
    params.tolerance = tol;
    params.pool = a.pool.into();
    let res = run_study(&files.panel, &params)?;
    if let Some(p) = &a.out {
        files::write_json(p, &res)?;
    }
    let output = OutputArgs {
        format: a.format,
        out: None,
        timings: false,
    };
    output.emit(&reports::study_report(&files, &res))
}
