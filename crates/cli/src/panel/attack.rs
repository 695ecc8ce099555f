//! `intruder panel attack`.

use std::path::PathBuf;

use anyhow::Result;
use intruder_longitudinal::reports;

use super::{ModeArg, PanelOpts, PoolArg, intruder, tolerance};
use crate::common::OutputArgs;

/// Arguments of `intruder panel attack`.
#[derive(Debug, clap::Args)]
pub(super) struct AttackArgs {
    #[command(flatten)]
    panel: PanelOpts,
    /// What the intruder knows (mode match): 1 or 2 (Mitra's scenarios on the household-panel
    /// names) or column@wave,... e.g. "area@1,children@2".
    #[arg(long, value_name = "KEYS")]
    scenario: Option<String>,
    /// Follow the released link, or exact-match the known keys.
    #[arg(long, value_enum)]
    mode: ModeArg,
    /// Records searched in the last wave when matching.
    #[arg(long, value_enum, default_value = "split")]
    pool: PoolArg,
    /// Relative tolerance of attribute disclosure (eq. 1; Mitra: 5%).
    #[arg(long, default_value_t = 0.05)]
    tolerance: f64,
    /// Write one row per attacked split record here (row, link, c, found, p, r; row is the
    /// 1-based last-wave row): Parquet when the name ends in `.parquet`, CSV otherwise.
    #[arg(long, value_name = "OUT.csv")]
    per_record: Option<PathBuf>,
    #[command(flatten)]
    output: OutputArgs,
}

pub(super) fn run(a: AttackArgs) -> Result<()> {
    let tol = tolerance(a.tolerance)?;
    a.panel
        .refuse_overwrite(a.per_record.as_deref(), "--per-record", &[])?;
    a.panel
        .refuse_overwrite(a.output.out.as_deref(), "--out", &[])?;
    let files = a.panel.load()?;
    let intruder = intruder(a.scenario.as_deref(), a.mode, a.pool, tol, files.panel.t())?;
    a.panel.check_attackable(&files, intruder.mode)?;
    let report = intruder.attack(&files.panel)?;
    if let Some(p) = &a.per_record {
        files.write_per_record(p, &report)?;
    }
    a.output
        .emit(&reports::attack_report(&files, &intruder, &report))
}
