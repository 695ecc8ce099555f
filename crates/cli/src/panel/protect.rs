//! `intruder panel protect` and `intruder panel utility`.

use std::path::PathBuf;

use anyhow::{Result, bail};
use intruder_longitudinal::{
    AlterMethod, AlterationSpec, InheritanceModel, KnownKey, PartnerScore, ProtectParams,
    Selection, alter, files, inheritance_overlap, reports,
};

use super::{PanelOpts, RiskOpts, intruder, tolerance};
use crate::common::{FormatArg, OutputArgs};

/// How the selected households are altered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum MethodArg {
    /// Propensity-score swapping (§4.1): swap y^(T) with the nearest-propensity partner.
    Swap,
    /// CART synthesis (§4.2): draw y^(T) from the household's leaf.
    Synthesis,
    /// A random share swapped (--swap-share), the rest synthesised (§5.1, Fig. 6).
    Mix,
}

/// How the households to alter are chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SelectionArg {
    /// Ascending r_i (eq. 3), riskiest first.
    Targeted,
    /// Uniformly at random (seeded).
    Random,
}

/// Score swap partners are matched on when a proportion is altered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum PartnerArg {
    /// Propensity of being selected within the split group (Z*).
    Selection,
    /// Propensity of being split over all households (z).
    Split,
}

/// The alteration.
#[derive(Debug, clap::Args)]
struct ProtectOpts {
    /// swap, synthesis or mix.
    #[arg(long, value_enum)]
    method: Option<MethodArg>,
    /// Share of the split households altered, in (0, 0.5], or `all` (every split household,
    /// Table 1; swap partners are then non-split households).
    #[arg(long, value_name = "R")]
    rho: Option<String>,
    /// targeted (ascending r_i) or random.
    #[arg(long, value_enum, default_value = "targeted")]
    selection: SelectionArg,
    /// Share of the altered households swapped, with --method mix [default: 0.5].
    #[arg(long, value_name = "S")]
    swap_share: Option<f64>,
    /// Minimum leaf size of the synthesis tree (Reiter 2005, synthpop: 5).
    #[arg(long, value_name = "L", default_value_t = 5)]
    min_leaf: usize,
    /// Seed of every random step (selection, partners' ties, mix, draws).
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// Covariates of the propensity and synthesis models, column@wave,... [default: Mitra's
    /// scenario-2 keys]; the sensitive values of every wave are added.
    #[arg(long, value_delimiter = ',', value_name = "KEYS")]
    covariates: Vec<String>,
    /// Score swap partners are matched on when a proportion is altered.
    #[arg(long, value_enum, default_value = "selection")]
    partner_score: PartnerArg,
}

impl ProtectOpts {
    fn given(&self) -> bool {
        self.method.is_some() || self.rho.is_some() || self.seed.is_some()
    }

    /// The checked alteration for a panel of `t` waves, every problem at once, before any data
    /// is read.
    fn params(&self, t: usize) -> Result<(AlterMethod, ProtectParams)> {
        let mut missing = Vec::new();
        if self.method.is_none() {
            missing.push("--method swap|synthesis|mix");
        }
        if self.rho.is_none() {
            missing.push("--rho R|all");
        }
        if self.seed.is_none() {
            missing.push("--seed S");
        }
        let (Some(method), Some(rho), Some(seed)) = (self.method, self.rho.as_deref(), self.seed)
        else {
            bail!("the alteration needs {}", missing.join(", "));
        };
        let rho = match rho.trim() {
            "all" => None,
            r => Some(r.parse::<f64>().map_err(|_| {
                anyhow::anyhow!("--rho '{r}': expected a share in (0, 0.5] or 'all'")
            })?),
        };
        let method = match method {
            MethodArg::Swap => AlterMethod::Swap,
            MethodArg::Synthesis => AlterMethod::Synthesis,
            MethodArg::Mix => AlterMethod::Mix,
        };
        if let Err(e) = method.swap_share(self.swap_share) {
            bail!("--swap-share is for --method mix ({e})");
        }
        let covariates = if self.covariates.is_empty() {
            None
        } else {
            Some(
                self.covariates
                    .iter()
                    .map(|k| k.parse::<KnownKey>())
                    .collect::<Result<Vec<_>, String>>()
                    .map_err(|e| anyhow::anyhow!("--covariates: {e}"))?,
            )
        };
        let spec = AlterationSpec {
            method,
            rho,
            selection: match self.selection {
                SelectionArg::Targeted => Selection::Targeted,
                SelectionArg::Random => Selection::Random,
            },
            swap_share: self.swap_share,
            min_leaf: self.min_leaf,
            seed,
            covariates,
            partner_score: match self.partner_score {
                PartnerArg::Selection => PartnerScore::Selection,
                PartnerArg::Split => PartnerScore::Split,
            },
        };
        Ok((method, spec.params(t)?))
    }
}

/// Arguments of `intruder panel protect`.
#[derive(Debug, clap::Args)]
pub(super) struct ProtectArgs {
    #[command(flatten)]
    panel: PanelOpts,
    #[command(flatten)]
    risk: RiskOpts,
    #[command(flatten)]
    protect: ProtectOpts,
    /// The altered last-wave file (every column as read, the sensitive one altered).
    #[arg(long, value_name = "OUT.csv")]
    out: PathBuf,
    /// Write what was done (selected rows, swap pairs, synthesis draws, A before/after) here.
    #[arg(long, value_name = "LOG.json")]
    log: Option<PathBuf>,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value = "table")]
    format: FormatArg,
}

/// The intruder of the risk flags (scored before and after; its r_i drive targeted selection).
fn risk_intruder(r: &RiskOpts, t: usize) -> Result<intruder_longitudinal::Intruder> {
    intruder(Some(&r.scenario), r.mode, r.pool, r.tolerance, t)
}

pub(super) fn run_protect(a: ProtectArgs) -> Result<()> {
    tolerance(a.risk.tolerance)?;
    let (method, params) = a.protect.params(2)?;
    a.panel.refuse_overwrite(Some(&a.out), "--out", &[])?;
    a.panel.refuse_overwrite(a.log.as_deref(), "--log", &[])?;
    if a.log.as_ref() == Some(&a.out) {
        bail!("--log and --out name the same file; give each its own");
    }
    let files = a.panel.load()?;
    let intruder = risk_intruder(&a.risk, files.panel.t())?;
    a.panel.check_attackable(&files, intruder.mode)?;
    let alt = alter(&files.panel, &intruder, method, params)?;
    let changed = files.write_altered(&alt.protected, &a.out)?;
    if let Some(p) = &a.log {
        files::write_json(p, &reports::protect_log(&files, &alt, &a.out, changed))?;
    }
    let output = OutputArgs {
        format: a.format,
        out: None,
        timings: false,
    };
    output.emit(&reports::protect_report(&files, &alt, &a.out, changed))
}

/// Arguments of `intruder panel utility`.
#[derive(Debug, clap::Args)]
pub(super) struct UtilityArgs {
    #[command(flatten)]
    panel: PanelOpts,
    /// The altered last-wave file (from `intruder panel protect`); without it, give the
    /// protect flags (--method, --rho, --seed, ...) and the alteration is redone in memory.
    #[arg(long, value_name = "FILE")]
    altered: Option<PathBuf>,
    /// Schema (TOML) of the altered file [default: beside it, else the last wave's].
    #[arg(long, value_name = "FILE")]
    altered_schema: Option<PathBuf>,
    #[command(flatten)]
    risk: RiskOpts,
    #[command(flatten)]
    protect: ProtectOpts,
    /// The model's 0/1 response (a last-wave column).
    #[arg(long, value_name = "COL", default_value = "inheritance")]
    response: String,
    /// Further predictors besides the wealth decile (last-wave columns).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "COLS",
        default_value = "ref_age,ref_sex"
    )]
    predictors: Vec<String>,
    #[command(flatten)]
    output: OutputArgs,
}

pub(super) fn run_utility(a: UtilityArgs) -> Result<()> {
    tolerance(a.risk.tolerance)?;
    /// Where the altered values come from.
    enum Altered<'a> {
        File(&'a std::path::Path),
        Redone(AlterMethod, ProtectParams),
    }
    let source = match (&a.altered, a.protect.given()) {
        (Some(_), true) => bail!(
            "give either --altered FILE or the alteration (--method, --rho, --seed), not both"
        ),
        (None, false) => bail!(
            "give --altered FILE (from `intruder panel protect`) or the alteration: --method, --rho, --seed"
        ),
        (Some(p), false) => Altered::File(p),
        (None, true) => {
            let (method, params) = a.protect.params(2)?;
            Altered::Redone(method, params)
        }
    };
    let extra: Vec<&std::path::Path> = a
        .altered
        .iter()
        .chain(&a.altered_schema)
        .map(PathBuf::as_path)
        .collect();
    a.panel
        .refuse_overwrite(a.output.out.as_deref(), "--out", &extra)?;
    let files = a.panel.load()?;
    let (y, alt) = match source {
        Altered::File(p) => {
            let input = a.panel.read.input(a.altered_schema.as_deref());
            (files.read_altered(p, &input)?, None)
        }
        Altered::Redone(method, params) => {
            let intruder = risk_intruder(&a.risk, files.panel.t())?;
            a.panel.check_attackable(&files, intruder.mode)?;
            let alt = alter(&files.panel, &intruder, method, params)?;
            (alt.protected.y.clone(), Some(alt))
        }
    };
    let model = InheritanceModel {
        response: a.response.clone(),
        predictors: a.predictors.clone(),
    };
    let ov = inheritance_overlap(&files.panel, &y, &model)?;
    a.output.emit(&reports::utility_report(
        &files,
        a.altered.as_deref(),
        alt.as_ref(),
        &model,
        &ov,
    ))
}
