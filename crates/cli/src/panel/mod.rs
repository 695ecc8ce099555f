//! `intruder panel`: the inter-wave attack on linked household panels and its defences
//! (crate `intruder-longitudinal`; Mitra, Blanchard, Dove, Tudor & Spicer 2020; docs/METHODS.md
//! §2.6 and §3). Argument parsing and rendering only: loading, attacking, altering and the
//! reports are `intruder_longitudinal::{files, workflow, reports}`.
//!
//! ```text
//! intruder synth household-panel --out hp --seed 1
//! intruder panel attack --wave1 hp/household-wave1.csv --wave2 hp/household-wave2.csv --mode match --scenario 2
//! ```
//!
//! The defaults are the column names the `household-panel` generator writes (`household_id`,
//! `link_id`, `split`, `total_wealth`), and a schema `X.schema.toml` beside `X.csv` is read
//! automatically, so its output needs only `--wave1` and `--wave2`.

mod attack;
mod protect;
mod study;

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};
use intruder_longitudinal::{
    Intruder, Mode, NonUnique, PanelFiles, PanelSpec, Pool, Scenario, WaveInput, check_tolerance,
};

use crate::common::{ReadArgs, refuse_output_file};

/// Longitudinal panels: attack split households across waves, protect them, measure the cost.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: PanelCommand,
}

#[derive(Debug, clap::Subcommand)]
enum PanelCommand {
    /// The inter-wave attack on the departed members of split households: identification
    /// (c_i, Σ1/c_i, c_i = 1 and ≤ 2 with the household inside) and attribute disclosure (A).
    #[command(
        after_help = "Example:\n  intruder synth household-panel --out hp --seed 1\n  intruder panel attack --wave1 hp/household-wave1.csv --wave2 hp/household-wave2.csv --mode match --scenario 2"
    )]
    Attack(attack::AttackArgs),
    /// Alter the last wave's sensitive values of split households (propensity-score swapping,
    /// CART synthesis or a mix) and write the altered last-wave file.
    #[command(
        after_help = "Example:\n  intruder panel protect --wave1 hp/household-wave1.csv --wave2 hp/household-wave2.csv --method swap --rho 0.1 --selection targeted --seed 1 --out hp/released-wave2.csv --log hp/protect.json"
    )]
    Protect(protect::ProtectArgs),
    /// What the alteration cost: the inheritance logistic model (wealth decile, age, sex) on the
    /// original and the altered last wave, 95% CI overlap per coefficient (Mitra Fig. 7).
    #[command(
        after_help = "Example:\n  intruder panel utility --wave1 hp/household-wave1.csv --wave2 hp/household-wave2.csv --altered hp/released-wave2.csv"
    )]
    Utility(protect::UtilityArgs),
    /// Mitra's whole study (baseline, Figs. 4–6, Table 1, utility) with the published values.
    #[command(
        after_help = "Example:\n  intruder synth household-panel --out hp --seed 1\n  intruder panel study --wave1 hp/household-wave1.csv --wave2 hp/household-wave2.csv --seeds 1..5 --out results.json"
    )]
    Study(study::StudyArgs),
}

/// Runs `intruder panel`.
pub fn run(args: Args) -> Result<()> {
    match args.command {
        PanelCommand::Attack(a) => attack::run(a),
        PanelCommand::Protect(a) => protect::run_protect(a),
        PanelCommand::Utility(a) => protect::run_utility(a),
        PanelCommand::Study(a) => study::run(a),
    }
}

/// How the intruder finds the household in the last wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ModeArg {
    /// Follow the released link ("links released").
    Link,
    /// Exact-match the known keys ("links removed").
    Match,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Link => Mode::Link,
            ModeArg::Match => Mode::Match,
        }
    }
}

/// Which last-wave records the intruder searches when matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum PoolArg {
    /// The split records (Mitra: the split indicator is released).
    Split,
    /// Every last-wave record.
    All,
}

impl From<PoolArg> for Pool {
    fn from(p: PoolArg) -> Pool {
        match p {
            PoolArg::Split => Pool::Split,
            PoolArg::All => Pool::All,
        }
    }
}

/// The two waves and how they are linked.
#[derive(Debug, clap::Args)]
struct PanelOpts {
    /// Wave-1 file (CSV, plain or gzip).
    #[arg(long, value_name = "FILE")]
    wave1: PathBuf,
    /// Wave-2 file, the last wave T (CSV, plain or gzip).
    #[arg(long, value_name = "FILE")]
    wave2: PathBuf,
    /// Schema (TOML) of wave 1 [default: X.schema.toml beside X.csv, when present].
    #[arg(long, value_name = "FILE")]
    schema1: Option<PathBuf>,
    /// Schema (TOML) of wave 2 [default: X.schema.toml beside X.csv, when present].
    #[arg(long, value_name = "FILE")]
    schema2: Option<PathBuf>,
    /// Column linking the waves (the true household id; may be a truth column).
    #[arg(long, value_name = "COL", default_value = "household_id")]
    link: String,
    /// Released link column, followed by `--mode link` [default: link_id when every wave has it].
    #[arg(long, value_name = "COL")]
    released_link: Option<String>,
    /// Split indicator of the last wave (1/0); `none`: only repeated links reveal splits.
    #[arg(long, value_name = "COL", default_value = "split")]
    split: String,
    /// Sensitive numeric variable, same name in every wave.
    #[arg(long, value_name = "COL", default_value = "total_wealth")]
    sensitive: String,
    /// Attack only split households with a unique link (Mitra's main analysis); the others are
    /// listed as exclusions.
    #[arg(long)]
    exclude_nonunique: bool,
    /// Fail when any split record cannot be attacked (instead of listing it as an exclusion).
    #[arg(long)]
    strict: bool,
    #[command(flatten)]
    read: ReadArgs,
}

impl PanelOpts {
    fn waves(&self) -> Vec<WaveInput> {
        [(&self.wave1, &self.schema1), (&self.wave2, &self.schema2)]
            .into_iter()
            .map(|(path, schema)| WaveInput {
                path: path.clone(),
                input: self.read.input(schema.as_deref()),
            })
            .collect()
    }

    /// Every input file: the waves and the schemas that apply to them.
    fn inputs(&self) -> Vec<PathBuf> {
        let mut v = Vec::new();
        for w in self.waves() {
            v.extend(w.input.schema_for(&w.path));
            v.push(w.path);
        }
        v
    }

    /// Refuses `output` when it is one of the inputs (`extra` are further inputs).
    fn refuse_overwrite(&self, output: Option<&Path>, flag: &str, extra: &[&Path]) -> Result<()> {
        let Some(output) = output else { return Ok(()) };
        let inputs = self.inputs();
        let mut all: Vec<&Path> = inputs.iter().map(PathBuf::as_path).collect();
        all.extend_from_slice(extra);
        refuse_output_file(output, &all, flag)
    }

    fn load(&self) -> Result<PanelFiles> {
        let spec = PanelSpec {
            link: self.link.clone(),
            released_link: self.released_link.clone(),
            split: (self.split != "none").then(|| self.split.clone()),
            sensitive: self.sensitive.clone(),
            nonunique: if self.exclude_nonunique {
                NonUnique::Exclude
            } else {
                NonUnique::Include
            },
            strict: self.strict,
        };
        Ok(PanelFiles::load(&self.waves(), spec)?)
    }

    /// Says, in terms of the flags, why the panel cannot be attacked in `mode`.
    fn check_attackable(&self, files: &PanelFiles, mode: Mode) -> Result<()> {
        if mode == Mode::Link && files.panel.spec().released_link.is_none() {
            bail!(
                "--mode link: no released link column: {} and {} have no link_id column; name it with --released-link COL",
                self.wave1.display(),
                self.wave2.display()
            );
        }
        if files.panel.targets().is_empty() {
            let s = files.panel.summary();
            bail!(
                "{}: no split record to attack ({} split record(s), {} excluded); check --split (now '{}') and --exclude-nonunique",
                self.wave2.display(),
                s.split_records,
                s.excluded,
                self.split
            );
        }
        Ok(())
    }
}

/// The intruder whose risk scores r_i drive targeted selection, and who is scored before and
/// after the alteration.
#[derive(Debug, clap::Args)]
struct RiskOpts {
    /// The intruder's knowledge: 1, 2 (Mitra's scenarios) or column@wave,...
    #[arg(long, value_name = "KEYS", default_value = "2")]
    scenario: String,
    /// The intruder's mode.
    #[arg(long, value_enum, default_value = "match")]
    mode: ModeArg,
    /// Records searched in the last wave when matching.
    #[arg(long, value_enum, default_value = "split")]
    pool: PoolArg,
    /// Relative tolerance of attribute disclosure (Mitra: 5%).
    #[arg(long, default_value_t = 0.05)]
    tolerance: f64,
}

/// Checks `--tolerance` before any data is read.
fn tolerance(t: f64) -> Result<f64> {
    check_tolerance(t).context("--tolerance")?;
    Ok(t)
}

/// The intruder of `mode`; the scenario (`1`, `2` or `column@wave,...`) is read when matching.
fn intruder(
    scenario: Option<&str>,
    mode: ModeArg,
    pool: PoolArg,
    tolerance: f64,
    t: usize,
) -> Result<Intruder> {
    let scenario = match (mode, scenario) {
        (ModeArg::Match, Some(s)) => {
            Scenario::from_arg(s, t).map_err(|e| anyhow::anyhow!("--scenario: {e}"))?
        }
        (ModeArg::Match, None) => bail!(
            "--mode match needs --scenario: 1, 2 (Mitra's scenarios) or column@wave,... e.g. area@1,children@2"
        ),
        (ModeArg::Link, _) => Scenario::links(),
    };
    Ok(Intruder::new(scenario, mode.into(), pool.into(), tolerance))
}
