//! `intruder panel`: the inter-wave attack on linked household panels and its defences
//! (crate `intruder-longitudinal`; Mitra, Blanchard, Dove, Tudor & Spicer 2020; METHODS.md
//! §2.6 and §3).
//!
//! ```text
//! intruder synth household-panel --out hp --seed 1
//! intruder panel attack --wave1 hp/household-wave1.csv --wave2 hp/household-wave2.csv --mode match --scenario 2
//! ```
//!
//! The defaults are the column names the `household-panel` generator writes (`household_id`,
//! `link_id`, `split`, `total_wealth`), and a schema `X.schema.toml` beside `X.csv` is read
//! automatically, so its output needs only `--wave1` and `--wave2`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use intruder_data::{Dataset, ReadOptions, Schema, read_csv, write_atomically};
use intruder_longitudinal::{
    AttackReport, InheritanceModel, KnownKey, Mode, Models, NonUnique, Panel, PanelSpec,
    PartnerScore, Pool, PreparedAttack, ProtectParams, Protected, Scenario, Selection, StudyParams,
    StudyResult, Transform, inheritance_overlap, protect, run_study,
};
use serde_json::{Value, json};

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Machine-readable JSON.
    Json,
    /// Aligned figures, each with a one-line meaning.
    Table,
}

/// How the intruder finds the household in the last wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
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
pub enum PoolArg {
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
    Attack(AttackArgs),
    /// Alter the last wave's sensitive values of split households (propensity-score swapping,
    /// CART synthesis or a mix) and write the altered last-wave file.
    #[command(
        after_help = "Example:\n  intruder panel protect --wave1 hp/household-wave1.csv --wave2 hp/household-wave2.csv --method swap --rho 0.1 --selection targeted --seed 1 --out hp/released-wave2.csv --log hp/protect.json"
    )]
    Protect(ProtectArgs),
    /// What the alteration cost: the inheritance logistic model (wealth decile, age, sex) on the
    /// original and the altered last wave, 95% CI overlap per coefficient (Mitra Fig. 7).
    #[command(
        after_help = "Example:\n  intruder panel utility --wave1 hp/household-wave1.csv --wave2 hp/household-wave2.csv --altered hp/released-wave2.csv"
    )]
    Utility(UtilityArgs),
    /// Mitra's whole study (baseline, Figs. 4–6, Table 1, utility) with the published values.
    #[command(
        after_help = "Example:\n  intruder synth household-panel --out hp --seed 1\n  intruder panel study --wave1 hp/household-wave1.csv --wave2 hp/household-wave2.csv --seeds 1..5 --out results.json"
    )]
    Study(StudyArgs),
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
    /// Field delimiter of every file (one character; `tab` for a tab).
    #[arg(long, value_parser = crate::delimiter::parse)]
    delimiter: Option<u8>,
}

/// Arguments of `intruder panel attack`.
#[derive(Debug, clap::Args)]
struct AttackArgs {
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
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
    /// Write one CSV row per attacked split record here (row, link, c, found, p, r).
    #[arg(long, value_name = "OUT.csv")]
    per_record: Option<PathBuf>,
}

/// Runs `intruder panel`.
pub fn run(args: Args) -> anyhow::Result<()> {
    match args.command {
        PanelCommand::Attack(a) => run_attack(a),
        PanelCommand::Protect(a) => run_protect(a),
        PanelCommand::Utility(a) => run_utility(a),
        PanelCommand::Study(a) => run_study_cmd(a),
    }
}

/// `X.schema.toml` beside `X.csv` (or `X.csv.gz`), when it exists.
fn schema_beside(data: &Path) -> Option<PathBuf> {
    let name = data.file_name()?.to_str()?;
    let stem = name
        .strip_suffix(".csv.gz")
        .or_else(|| name.strip_suffix(".csv"))
        .or_else(|| name.strip_suffix(".gz"))?;
    let p = data.with_file_name(format!("{stem}.schema.toml"));
    p.is_file().then_some(p)
}

/// A wave read with its schema (given, or found beside the file).
struct Wave {
    data: Dataset,
    path: PathBuf,
    schema_path: Option<PathBuf>,
    schema: Option<Schema>,
}

fn read_wave(path: &Path, schema: Option<&Path>, delimiter: Option<u8>) -> anyhow::Result<Wave> {
    let schema_path = schema
        .map(Path::to_path_buf)
        .or_else(|| schema_beside(path));
    let mut opts = ReadOptions::default();
    let schema = match &schema_path {
        Some(s) => Some(Schema::from_file(s)?),
        None => None,
    };
    opts.schema = schema.clone();
    opts.delimiter = delimiter;
    let data = read_csv(path, &opts)?;
    Ok(Wave {
        data,
        path: path.to_path_buf(),
        schema_path,
        schema,
    })
}

fn has_column(ds: &Dataset, name: &str) -> bool {
    ds.table.position(name).is_some() || ds.truth.column(name).is_some()
}

/// The panel with the files it came from.
struct Loaded {
    panel: Panel,
    waves: Vec<Wave>,
}

impl Loaded {
    fn files_json(&self) -> Value {
        Value::Array(
            self.waves
                .iter()
                .map(|w| {
                    json!({
                        "file": w.path.display().to_string(),
                        "schema": w.schema_path.as_ref().map(|p| p.display().to_string()),
                    })
                })
                .collect(),
        )
    }
}

fn load_panel(o: &PanelOpts) -> anyhow::Result<Loaded> {
    let w1 = read_wave(&o.wave1, o.schema1.as_deref(), o.delimiter)?;
    let w2 = read_wave(&o.wave2, o.schema2.as_deref(), o.delimiter)?;
    let released_link = match &o.released_link {
        Some(c) => Some(c.clone()),
        None => ["link_id"]
            .into_iter()
            .find(|c| has_column(&w1.data, c) && has_column(&w2.data, c))
            .map(str::to_string),
    };
    let spec = PanelSpec {
        link: o.link.clone(),
        released_link,
        split: (o.split != "none").then(|| o.split.clone()),
        sensitive: o.sensitive.clone(),
        nonunique: if o.exclude_nonunique {
            NonUnique::Exclude
        } else {
            NonUnique::Include
        },
        strict: o.strict,
    };
    let panel = Panel::new(vec![w1.data.clone(), w2.data.clone()], spec)?;
    Ok(Loaded {
        panel,
        waves: vec![w1, w2],
    })
}

/// `1`, `2` (Mitra's scenarios on the household-panel names) or `column@wave,...`.
fn parse_scenario(s: &str, t: usize) -> anyhow::Result<Scenario> {
    match s.trim() {
        "1" => Ok(Scenario::mitra1()),
        "2" => Ok(Scenario::mitra2(t)),
        keys => Scenario::parse(keys, keys)
            .map_err(|e| anyhow::anyhow!("--scenario: {e} (or 1 / 2 for Mitra's scenarios)")),
    }
}

/// Builds the attack of `mode`; the scenario is only used when matching.
fn prepare(
    l: &Loaded,
    scenario: Option<&str>,
    mode: Mode,
    pool: Pool,
) -> anyhow::Result<(Scenario, PreparedAttack)> {
    let scenario = match (mode, scenario) {
        (Mode::Match, Some(s)) => parse_scenario(s, l.panel.t())?,
        (Mode::Match, None) => bail!(
            "--mode match needs --scenario: 1, 2 (Mitra's scenarios) or column@wave,... e.g. area@1,children@2"
        ),
        (Mode::Link, _) => {
            if l.panel.spec().released_link.is_none() {
                bail!(
                    "--mode link: no released link column: {} and {} have no link_id column; name it with --released-link COL",
                    l.waves[0].path.display(),
                    l.waves[1].path.display()
                );
            }
            Scenario {
                name: "links".into(),
                keys: vec![],
            }
        }
    };
    if l.panel.targets().is_empty() {
        bail!(
            "{}: no split record to attack ({} split record(s), {} excluded); check --split (now '{}') and --exclude-nonunique",
            l.waves[1].path.display(),
            l.panel.summary().split_records,
            l.panel.summary().excluded,
            l.panel.spec().split.as_deref().unwrap_or("none")
        );
    }
    let attack = PreparedAttack::new(&l.panel, &scenario, mode, pool)?;
    Ok((scenario, attack))
}

/// Aligned `name value meaning` lines.
fn figure_lines(figs: &[(&str, String, &str)]) -> String {
    let nw = figs.iter().map(|f| f.0.chars().count()).max().unwrap_or(0);
    let vw = figs.iter().map(|f| f.1.chars().count()).max().unwrap_or(0);
    let mut s = String::new();
    for (n, v, m) in figs {
        s.push_str(&format!("  {n:<nw$}  {v:>vw$}  {m}\n"));
    }
    s
}

fn num(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

fn report_figures(r: &AttackReport) -> Vec<(&'static str, String, &'static str)> {
    vec![
        (
            "targets",
            r.targets.to_string(),
            "split records attacked: the departed member knows this household",
        ),
        (
            "pool",
            r.pool.to_string(),
            "last-wave records searched for the household",
        ),
        (
            "with_candidates",
            r.with_candidates.to_string(),
            "targets with at least one match (c_i > 0)",
        ),
        (
            "found",
            r.found.to_string(),
            "targets whose household is among their matches",
        ),
        (
            "c_i=1",
            r.unique_correct.to_string(),
            "one match, and it is the household (certain re-identification)",
        ),
        (
            "c_i<=2",
            r.le2_correct.to_string(),
            "at most two matches, the household among them",
        ),
        (
            "sum_1/c_i",
            num(r.expected_correct),
            "expected correct re-identifications picking one match at random",
        ),
        (
            "A",
            r.attribute_a.to_string(),
            "attribute disclosure: targets with p_i >= 0.5 (eq. 1)",
        ),
        (
            "mean_p",
            num(r.mean_p),
            "mean share of a target's matches whose value is within the tolerance",
        ),
        (
            "tolerance",
            num(r.tolerance),
            "a released value within this relative distance of the truth counts as disclosed",
        ),
    ]
}

fn panel_figures(l: &Loaded) -> Vec<(&'static str, String, &'static str)> {
    let s = l.panel.summary();
    vec![
        (
            "records",
            s.records
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(" / "),
            "records per wave",
        ),
        (
            "in_all_waves",
            s.in_all_waves.to_string(),
            "last-wave records linked to every earlier wave",
        ),
        (
            "split_records",
            s.split_records.to_string(),
            "last-wave records of households that split",
        ),
        (
            "nonunique_records",
            s.nonunique_records.to_string(),
            "last-wave records sharing their link with another (household followed up twice)",
        ),
        (
            "excluded",
            s.excluded.to_string(),
            "split records that cannot be attacked (listed below)",
        ),
    ]
}

fn exclusion_lines(l: &Loaded) -> String {
    let ex = l.panel.exclusions();
    let mut s = String::new();
    if ex.is_empty() {
        return s;
    }
    s.push_str(&format!("exclusions ({}):\n", ex.len()));
    for e in ex.iter().take(10) {
        s.push_str(&format!("  {}: {e}\n", l.waves[1].path.display()));
    }
    if ex.len() > 10 {
        s.push_str(&format!(
            "  ... {} more (all of them in --format json)\n",
            ex.len() - 10
        ));
    }
    s
}

fn link_text(l: &Loaded, row: usize) -> String {
    let ds = l.panel.last();
    let name = &l.panel.spec().link;
    let col = ds
        .table
        .position(name)
        .map(|p| &ds.table.columns()[p])
        .or_else(|| ds.truth.column(name));
    col.and_then(|c| c.text(row))
        .map(|t| t.into_owned())
        .unwrap_or_default()
}

fn write_per_record(path: &Path, l: &Loaded, r: &AttackReport) -> anyhow::Result<()> {
    write_atomically(path, |w| {
        let io = |e: csv::Error| std::io::Error::other(e.to_string());
        let mut c = csv::Writer::from_writer(w);
        c.write_record(["row", "link", "c", "found", "p", "r"])
            .map_err(io)?;
        for t in &r.records {
            c.write_record([
                (t.row + 1).to_string(),
                link_text(l, t.row),
                t.c.to_string(),
                u8::from(t.found).to_string(),
                t.p.to_string(),
                t.r.map(|x| x.to_string()).unwrap_or_default(),
            ])
            .map_err(io)?;
        }
        c.flush()
    })
    .with_context(|| format!("writing {}", path.display()))
}

fn print(text: &str) -> anyhow::Result<()> {
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    w.write_all(text.as_bytes())?;
    Ok(())
}

fn run_attack(a: AttackArgs) -> anyhow::Result<()> {
    if !(a.tolerance.is_finite() && a.tolerance > 0.0) {
        bail!(
            "--tolerance {}: expected a positive relative tolerance (Mitra: 0.05)",
            a.tolerance
        );
    }
    let l = load_panel(&a.panel)?;
    let mode: Mode = a.mode.into();
    let (scenario, attack) = prepare(&l, a.scenario.as_deref(), mode, a.pool.into())?;
    let report = attack.score(&l.panel.sensitive_last(), a.tolerance)?;
    if let Some(p) = &a.per_record {
        write_per_record(p, &l, &report)?;
    }
    let text = match a.format {
        Format::Json => {
            let v = json!({
                "command": "panel attack",
                "waves": l.files_json(),
                "spec": l.panel.spec(),
                "scenario": scenario,
                "pool": match a.pool { PoolArg::Split => "split", PoolArg::All => "all" },
                "panel": l.panel.summary(),
                "exclusions": l.panel.exclusions(),
                "report": report,
                "version": env!("CARGO_PKG_VERSION"),
            });
            serde_json::to_string_pretty(&v)? + "\n"
        }
        Format::Table => {
            let what = match mode {
                Mode::Link => "following the released link".to_string(),
                Mode::Match => format!(
                    "{} ({})",
                    scenario.name,
                    scenario
                        .keys
                        .iter()
                        .map(|k| format!("{}@{}", k.column, k.wave))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            let mut s = format!(
                "intruder panel attack — {what}; waves {} → {}\n",
                l.waves[0].path.display(),
                l.waves[1].path.display()
            );
            let mut figs = panel_figures(&l);
            figs.extend(report_figures(&report));
            s.push_str(&figure_lines(&figs));
            s.push_str(&exclusion_lines(&l));
            s
        }
    };
    print(&text)
}

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

/// Arguments of `intruder panel protect`.
#[derive(Debug, clap::Args)]
struct ProtectArgs {
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
    format: Format,
}

/// Arguments of `intruder panel utility`.
#[derive(Debug, clap::Args)]
struct UtilityArgs {
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
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// Arguments of `intruder panel study`.
#[derive(Debug, clap::Args)]
struct StudyArgs {
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
    /// Output format.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

fn check_tolerance(t: f64) -> anyhow::Result<()> {
    if !(t.is_finite() && t > 0.0) {
        bail!("--tolerance {t}: expected a positive relative tolerance (Mitra: 0.05)");
    }
    Ok(())
}

/// The protection parameters, every problem at once, before any data is read.
fn protect_params(o: &ProtectOpts, t: usize) -> anyhow::Result<(MethodArg, ProtectParams)> {
    let mut missing = Vec::new();
    if o.method.is_none() {
        missing.push("--method swap|synthesis|mix");
    }
    if o.rho.is_none() {
        missing.push("--rho R|all");
    }
    if o.seed.is_none() {
        missing.push("--seed S");
    }
    let (Some(method), Some(rho), Some(seed)) = (o.method, o.rho.as_deref(), o.seed) else {
        bail!("the alteration needs {}", missing.join(", "));
    };
    let rho =
        match rho.trim() {
            "all" => None,
            r => Some(r.parse::<f64>().map_err(|_| {
                anyhow::anyhow!("--rho '{r}': expected a share in (0, 0.5] or 'all'")
            })?),
        };
    let swap_share = match (method, o.swap_share) {
        (MethodArg::Swap, None) => 1.0,
        (MethodArg::Synthesis, None) => 0.0,
        (MethodArg::Mix, s) => s.unwrap_or(0.5),
        (m, Some(_)) => bail!(
            "--swap-share is for --method mix; --method {} alters by {} only",
            if m == MethodArg::Swap {
                "swap"
            } else {
                "synthesis"
            },
            if m == MethodArg::Swap {
                "swapping"
            } else {
                "synthesis"
            }
        ),
    };
    let covariates = if o.covariates.is_empty() {
        Scenario::mitra2(t).keys
    } else {
        o.covariates
            .iter()
            .map(|k| k.parse::<KnownKey>())
            .collect::<Result<Vec<_>, String>>()
            .map_err(|e| anyhow::anyhow!("--covariates: {e}"))?
    };
    let params = ProtectParams {
        rho,
        selection: match o.selection {
            SelectionArg::Targeted => Selection::Targeted,
            SelectionArg::Random => Selection::Random,
        },
        swap_share,
        covariates,
        transform: Transform::Asinh,
        min_leaf: o.min_leaf,
        partner_score: match o.partner_score {
            PartnerArg::Selection => PartnerScore::Selection,
            PartnerArg::Split => PartnerScore::Split,
        },
        seed,
    };
    params.check()?;
    Ok((method, params))
}

/// One alteration with the attack scored before and after.
struct Alteration {
    method: MethodArg,
    params: ProtectParams,
    scenario: Scenario,
    protected: Protected,
    before: AttackReport,
    after: AttackReport,
}

fn alter(
    l: &Loaded,
    risk: &RiskOpts,
    method: MethodArg,
    params: ProtectParams,
) -> anyhow::Result<Alteration> {
    let (scenario, attack) = prepare(l, Some(&risk.scenario), risk.mode.into(), risk.pool.into())?;
    let y0 = l.panel.sensitive_last();
    let before = attack.score(&y0, risk.tolerance)?;
    let r: Vec<Option<f64>> = before.records.iter().map(|t| t.r).collect();
    let swaps = params.swap_share > 0.0;
    let need_split = swaps && (params.rho.is_none() || params.partner_score == PartnerScore::Split);
    let need_tree = params.swap_share < 1.0;
    let models = Models::fit(&l.panel, &params, need_split, need_tree)?;
    let protected = protect(&l.panel, &models, &r, &params)?;
    let after = attack.score(&protected.y, risk.tolerance)?;
    Ok(Alteration {
        method,
        params,
        scenario,
        protected,
        before,
        after,
    })
}

fn method_name(m: MethodArg) -> &'static str {
    match m {
        MethodArg::Swap => "swap",
        MethodArg::Synthesis => "synthesis",
        MethodArg::Mix => "mix",
    }
}

/// Writes the last-wave file with the altered sensitive values: every field is copied as read
/// except the sensitive one, which takes the text of the record its value came from (so the
/// formatting is the input's). Checked against the altered values before anything is written.
fn write_altered(
    w: &Wave,
    delimiter: Option<u8>,
    sensitive: &str,
    prot: &Protected,
    out: &Path,
) -> anyhow::Result<usize> {
    let src = &w.path;
    let bytes = std::fs::read(src).with_context(|| format!("reading {}", src.display()))?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        bail!(
            "{}: gzip input; `panel protect` copies the last wave field by field and needs it uncompressed (gunzip it first)",
            src.display()
        );
    }
    let d = delimiter
        .or(w.schema.as_ref().and_then(|s| s.delimiter))
        .unwrap_or(b',');
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(d)
        .has_headers(false)
        .from_reader(&bytes[..]);
    let mut records = Vec::new();
    for r in rdr.byte_records() {
        records.push(r.with_context(|| format!("reading {}", src.display()))?);
    }
    let Some((header, rows)) = records.split_first() else {
        bail!("{}: empty file", src.display());
    };
    let name_of = |f: &[u8], j: usize| {
        let f = if j == 0 {
            f.strip_prefix(b"\xef\xbb\xbf").unwrap_or(f)
        } else {
            f
        };
        String::from_utf8_lossy(f).trim().to_string()
    };
    let col = header
        .iter()
        .enumerate()
        .position(|(j, f)| name_of(f, j) == sensitive)
        .with_context(|| format!("{}: no column '{sensitive}'", src.display()))?;
    if rows.len() != prot.y.len() {
        bail!(
            "{}: {} data rows read back, {} expected (blank lines?)",
            src.display(),
            rows.len(),
            prot.y.len()
        );
    }
    let orig: Vec<&[u8]> = rows.iter().map(|r| r.get(col).unwrap_or(b"")).collect();
    let mut text = orig.clone();
    for &(s, p) in &prot.swaps {
        text[s] = orig[p];
        text[p] = orig[s];
    }
    for &(s, from) in &prot.draws {
        text[s] = orig[from];
    }
    let mut changed = 0;
    for (i, t) in text.iter().enumerate() {
        let v = std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.trim().parse::<f64>().ok());
        let same = match v {
            Some(v) => v == prot.y[i],
            None => prot.y[i].is_nan(),
        };
        if !same {
            bail!(
                "internal error: row {} of {} would read back as '{}' but the altered value is {}",
                i + 1,
                out.display(),
                String::from_utf8_lossy(t),
                prot.y[i]
            );
        }
        changed += usize::from(*t != orig[i]);
    }
    write_atomically(out, |f| {
        let io = |e: csv::Error| std::io::Error::other(e.to_string());
        let mut c = csv::WriterBuilder::new().delimiter(d).from_writer(f);
        c.write_byte_record(header).map_err(io)?;
        let mut rec = csv::ByteRecord::new();
        for (r, t) in rows.iter().zip(&text) {
            rec.clear();
            for (j, field) in r.iter().enumerate() {
                rec.push_field(if j == col { t } else { field });
            }
            c.write_byte_record(&rec).map_err(io)?;
        }
        c.flush()
    })
    .with_context(|| format!("writing {}", out.display()))?;
    Ok(changed)
}

fn alteration_json(l: &Loaded, a: &Alteration) -> Value {
    let p = &a.protected;
    json!({
        "method": method_name(a.method),
        "params": a.params,
        "scenario": a.scenario,
        "selected": p.selected.iter().map(|&r| json!({"row": r + 1, "link": link_text(l, r)})).collect::<Vec<_>>(),
        "swaps": p.swaps.iter().map(|&(s, d)| json!({"row": s + 1, "partner": d + 1})).collect::<Vec<_>>(),
        "draws": p.draws.iter().map(|&(s, f)| json!({"row": s + 1, "from": f + 1})).collect::<Vec<_>>(),
        "leaves": p.leaves,
        "before": a.before,
        "after": a.after,
    })
}

fn alteration_figures(
    a: &Alteration,
    changed: Option<usize>,
) -> Vec<(&'static str, String, &'static str)> {
    let p = &a.protected;
    let mut v = vec![
        (
            "selected",
            p.selected.len().to_string(),
            "split households chosen for alteration",
        ),
        (
            "swapped",
            p.swaps.len().to_string(),
            "of them, swapped with a nearest-propensity partner (the partner's value changes too)",
        ),
        (
            "synthesised",
            p.draws.len().to_string(),
            "of them, given a draw from their CART leaf",
        ),
        (
            "leaves",
            p.leaves.to_string(),
            "leaves of the synthesis tree (0 without synthesis)",
        ),
    ];
    if let Some(c) = changed {
        v.push((
            "changed",
            c.to_string(),
            "last-wave records whose sensitive value differs from the input",
        ));
    }
    v.extend([
        (
            "A_before",
            a.before.attribute_a.to_string(),
            "attribute disclosure of the intruder on the original last wave",
        ),
        (
            "A_after",
            a.after.attribute_a.to_string(),
            "the same intruder on the altered last wave",
        ),
        (
            "mean_p_before",
            num(a.before.mean_p),
            "mean p_i on the original",
        ),
        (
            "mean_p_after",
            num(a.after.mean_p),
            "mean p_i on the altered file",
        ),
    ]);
    v
}

fn run_protect(a: ProtectArgs) -> anyhow::Result<()> {
    check_tolerance(a.risk.tolerance)?;
    let (method, params) = protect_params(&a.protect, 2)?;
    let l = load_panel(&a.panel)?;
    let alt = alter(&l, &a.risk, method, params)?;
    let changed = write_altered(
        &l.waves[1],
        a.panel.delimiter,
        &l.panel.spec().sensitive,
        &alt.protected,
        &a.out,
    )?;
    let mut log = alteration_json(&l, &alt);
    if let Some(obj) = log.as_object_mut() {
        obj.insert("command".into(), json!("panel protect"));
        obj.insert("waves".into(), l.files_json());
        obj.insert("spec".into(), json!(l.panel.spec()));
        obj.insert("out".into(), json!(a.out.display().to_string()));
        obj.insert("changed".into(), json!(changed));
        obj.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
    }
    let log_text = serde_json::to_string_pretty(&log)? + "\n";
    if let Some(p) = &a.log {
        write_atomically(p, |w| w.write_all(log_text.as_bytes()))
            .with_context(|| format!("writing {}", p.display()))?;
    }
    match a.format {
        Format::Json => print(&log_text),
        Format::Table => {
            let mut s = format!(
                "intruder panel protect — {} of {} split households ({}, {}), seed {}; wrote {}\n",
                alt.params
                    .rho
                    .map_or("all".to_string(), |r| format!("rho = {}", num(r))),
                l.panel.targets().len(),
                method_name(method),
                alt.params.selection.as_str(),
                alt.params.seed,
                a.out.display()
            );
            s.push_str(&figure_lines(&alteration_figures(&alt, Some(changed))));
            s.push_str(&format!(
                "  (intruder: {}, mode {})\n",
                alt.scenario.name, alt.before.mode
            ));
            print(&s)
        }
    }
}

/// The sensitive values of an altered last-wave file, aligned on the last wave's rows.
fn altered_values(l: &Loaded, a: &UtilityArgs, path: &Path) -> anyhow::Result<Vec<f64>> {
    let schema = a
        .altered_schema
        .clone()
        .or_else(|| schema_beside(path))
        .or_else(|| l.waves[1].schema_path.clone());
    let w = read_wave(path, schema.as_deref(), a.panel.delimiter)?;
    let last = l.panel.last();
    let n = last.table.nrows();
    if w.data.table.nrows() != n {
        bail!(
            "{}: {} records, but the last wave {} has {n}; the altered file must keep the last wave's records in order",
            path.display(),
            w.data.table.nrows(),
            l.waves[1].path.display()
        );
    }
    let find = |ds: &Dataset, name: &str| {
        ds.table
            .position(name)
            .map(|p| ds.table.columns()[p].clone())
            .or_else(|| ds.truth.column(name).cloned())
    };
    let link = &l.panel.spec().link;
    if let (Some(a), Some(b)) = (find(&w.data, link), find(last, link)) {
        for i in 0..n {
            if a.text(i) != b.text(i) {
                bail!(
                    "{}: column '{link}': row {} is '{}' but '{}' in {}; the altered file must keep the last wave's records in order",
                    path.display(),
                    i + 1,
                    a.text(i).unwrap_or_default(),
                    b.text(i).unwrap_or_default(),
                    l.waves[1].path.display()
                );
            }
        }
    }
    let name = &l.panel.spec().sensitive;
    let Some(c) = find(&w.data, name) else {
        bail!(
            "{}: no column '{name}' (the sensitive variable)",
            path.display()
        );
    };
    let mut y = Vec::with_capacity(n);
    for i in 0..n {
        if c.is_missing(i) {
            y.push(f64::NAN);
            continue;
        }
        match c.as_f64(i) {
            Some(v) => y.push(v),
            None => bail!(
                "{}: column '{name}': row {}: '{}' is not a number",
                path.display(),
                i + 1,
                c.text(i).unwrap_or_default()
            ),
        }
    }
    Ok(y)
}

fn run_utility(a: UtilityArgs) -> anyhow::Result<()> {
    check_tolerance(a.risk.tolerance)?;
    let given = a.protect.method.is_some() || a.protect.rho.is_some() || a.protect.seed.is_some();
    let params = match (&a.altered, given) {
        (Some(_), true) => bail!(
            "give either --altered FILE or the alteration (--method, --rho, --seed), not both"
        ),
        (None, false) => bail!(
            "give --altered FILE (from `intruder panel protect`) or the alteration: --method, --rho, --seed"
        ),
        (Some(_), false) => None,
        (None, true) => Some(protect_params(&a.protect, 2)?),
    };
    let l = load_panel(&a.panel)?;
    let (y, alt) = match (&a.altered, params) {
        (Some(p), _) => (altered_values(&l, &a, p)?, None),
        (None, Some((method, params))) => {
            let alt = alter(&l, &a.risk, method, params)?;
            (alt.protected.y.clone(), Some(alt))
        }
        (None, None) => unreachable!("checked above"),
    };
    let model = InheritanceModel {
        response: a.response.clone(),
        predictors: a.predictors.clone(),
    };
    let ov = inheritance_overlap(&l.panel, &y, &model)?;
    match a.format {
        Format::Json => {
            let v = json!({
                "command": "panel utility",
                "waves": l.files_json(),
                "altered": a.altered.as_ref().map(|p| p.display().to_string()),
                "alteration": alt.as_ref().map(|x| alteration_json(&l, x)),
                "overlap": ov,
                "version": env!("CARGO_PKG_VERSION"),
            });
            print(&(serde_json::to_string_pretty(&v)? + "\n"))
        }
        Format::Table => {
            let what = match (&a.altered, &alt) {
                (Some(p), _) => p.display().to_string(),
                (None, Some(x)) => format!(
                    "{} of {} ({}, {}), seed {}",
                    x.params
                        .rho
                        .map_or("all".to_string(), |r| format!("rho = {}", num(r))),
                    l.panel.targets().len(),
                    method_name(x.method),
                    x.params.selection.as_str(),
                    x.params.seed
                ),
                (None, None) => String::new(),
            };
            let mut s = format!(
                "intruder panel utility — {} ~ wealth decile (5th = baseline) + {}; original {} vs altered {what}\n",
                model.response,
                model.predictors.join(" + "),
                l.waves[1].path.display()
            );
            s.push_str(&figure_lines(&[
                (
                    "mean_overlap",
                    num(ov.mean_overlap),
                    "mean 95% CI overlap over coefficients (1 = same inference; Karr et al. 2006)",
                ),
                (
                    "coefficients",
                    ov.coefficients.len().to_string(),
                    "coefficients compared (below)",
                ),
            ]));
            let header = [
                "coefficient",
                "original",
                "95% CI",
                "altered",
                "95% CI",
                "overlap",
            ];
            let rows: Vec<[String; 6]> = ov
                .coefficients
                .iter()
                .map(|c| {
                    [
                        c.name.clone(),
                        format!("{:.3}", c.estimate_original),
                        format!("({:.3}, {:.3})", c.ci_original.0, c.ci_original.1),
                        format!("{:.3}", c.estimate_masked),
                        format!("({:.3}, {:.3})", c.ci_masked.0, c.ci_masked.1),
                        format!("{:.3}", c.overlap),
                    ]
                })
                .collect();
            s.push_str(&grid(&header, &rows));
            if let Some(x) = &alt {
                s.push_str(&figure_lines(&alteration_figures(x, None)));
            }
            print(&s)
        }
    }
}

/// An aligned grid: first column left, the others right.
fn grid<const N: usize>(header: &[&str; N], rows: &[[String; N]]) -> String {
    let mut w = [0usize; N];
    for (j, h) in header.iter().enumerate() {
        w[j] = h.chars().count();
    }
    for r in rows {
        for (j, v) in r.iter().enumerate() {
            w[j] = w[j].max(v.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = String::from(" ");
        for (j, c) in cells.iter().enumerate() {
            if j == 0 {
                s.push_str(&format!(" {c:<width$}", width = w[j]));
            } else {
                s.push_str(&format!("  {c:>width$}", width = w[j]));
            }
        }
        s.push('\n');
        s
    };
    let mut s = line(header.to_vec());
    for r in rows {
        s.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    s
}

/// `A..B` (inclusive) or `a,b,c`.
fn parse_seeds(s: &str) -> anyhow::Result<Vec<u64>> {
    let bad =
        || anyhow::anyhow!("--seeds '{s}': expected A..B (inclusive, e.g. 1..5) or a list 1,2,3");
    let seeds: Vec<u64> = if let Some((a, b)) = s.split_once("..") {
        let a: u64 = a.trim().parse().map_err(|_| bad())?;
        let b: u64 = b
            .trim()
            .trim_start_matches('=')
            .parse()
            .map_err(|_| bad())?;
        if b < a {
            return Err(bad());
        }
        (a..=b).collect()
    } else {
        s.split(',')
            .map(|x| x.trim().parse::<u64>().map_err(|_| bad()))
            .collect::<anyhow::Result<_>>()?
    };
    if seeds.is_empty() {
        return Err(bad());
    }
    Ok(seeds)
}

/// Mitra et al. (2020), §3.1 and Table 1: the published figures.
mod published {
    /// Split households whose household is among the matches.
    pub const FOUND: usize = 1282;
    /// Scenario 1: c_i = 1, c_i ≤ 2, A.
    pub const S1: (usize, usize, usize) = (56, 121, 130);
    /// Scenario 2: c_i = 1, c_i ≤ 2, A.
    pub const S2: (usize, usize, usize) = (563, 871, 897);
    /// Links released: A.
    pub const LINKS_A: usize = 1486;
    /// Table 1, A after altering every split household: (scenario 1, scenario 2, links).
    pub const TABLE1_SWAP: [usize; 3] = [6, 31, 40];
    /// Table 1 for synthesis.
    pub const TABLE1_SYNTH: [usize; 3] = [4, 55, 56];
}

/// Mean and sd of `A` over seeds for rows matching a predicate.
fn mean_a(
    res: &StudyResult,
    f: impl Fn(&intruder_longitudinal::StudyRow) -> bool,
) -> Option<(f64, f64)> {
    let v: Vec<f64> = res
        .rows
        .iter()
        .filter(|r| f(r))
        .map(|r| r.attribute_a as f64)
        .collect();
    if v.is_empty() {
        return None;
    }
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let sd = if v.len() > 1 {
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    Some((m, sd))
}

fn study_tables(res: &StudyResult, title: &str) -> String {
    let mut s = format!("{title}\n\n");
    // Baseline.
    s.push_str(
        "Baseline (§3.1): the attack on the original data, beside the published WAS figures\n",
    );
    let b = &res.baseline;
    let pick = |name: &str| b.iter().find(|r| r.scenario == name);
    let mut rows: Vec<[String; 3]> = Vec::new();
    if let Some(r) = b.first() {
        rows.push([
            "household among the matches".into(),
            published::FOUND.to_string(),
            r.found.to_string(),
        ]);
    }
    for (name, (u, le, a)) in [("scenario 1", published::S1), ("scenario 2", published::S2)] {
        if let Some(r) = pick(name) {
            rows.push([
                format!("{name}: c_i = 1 / c_i <= 2"),
                format!("{u} / {le}"),
                format!("{} / {}", r.unique_correct, r.le2_correct),
            ]);
            rows.push([
                format!("{name}: A"),
                a.to_string(),
                r.attribute_a.to_string(),
            ]);
        }
    }
    if let Some(r) = pick("links") {
        rows.push([
            "links released: A".into(),
            published::LINKS_A.to_string(),
            r.attribute_a.to_string(),
        ]);
    }
    s.push_str(&grid(&["figure", "published", "here"], &rows));
    // Figs. 4 and 5.
    let rhos = &res.params.rhos;
    let names: Vec<String> = res
        .params
        .scenarios
        .iter()
        .map(|x| x.name.clone())
        .collect();
    let fmt = |x: Option<(f64, f64)>| x.map_or("–".to_string(), |(m, _)| format!("{m:.1}"));
    for (fig, method, what) in [
        ("fig4", "swap", "Fig. 4 (swapping a proportion rho)"),
        ("fig5", "synth", "Fig. 5 (synthesising a proportion rho)"),
    ] {
        s.push_str(&format!(
            "\n{what}: A, mean over {} seed(s); the paper plots these (no published numbers)\n",
            res.params.seeds.len()
        ));
        let mut header: Vec<String> = vec!["rho".into()];
        for n in &names {
            header.push(format!("{n} targeted"));
            header.push(format!("{n} random"));
        }
        let rows: Vec<Vec<String>> = rhos
            .iter()
            .map(|&rho| {
                let mut r = vec![format!("{rho:.2}")];
                for n in &names {
                    for sel in ["targeted", "random"] {
                        r.push(fmt(mean_a(res, |x| {
                            x.figure == fig
                                && x.method == method
                                && &x.scenario == n
                                && x.selection == sel
                                && x.rho == Some(rho)
                        })));
                    }
                }
                r
            })
            .collect();
        s.push_str(&grid_dyn(&header, &rows));
    }
    // Fig. 6.
    if !res.params.shares.is_empty() {
        s.push_str(&format!(
            "\nFig. 6 (mixtures, targeted): A, mean over {} seed(s); columns = share swapped\n",
            res.params.seeds.len()
        ));
        let mut header: Vec<String> = vec!["rho".into()];
        for n in &names {
            for sh in &res.params.shares {
                header.push(format!("{n} {}", num(*sh)));
            }
        }
        let rows: Vec<Vec<String>> = rhos
            .iter()
            .map(|&rho| {
                let mut r = vec![format!("{rho:.2}")];
                for n in &names {
                    for &sh in &res.params.shares {
                        r.push(fmt(mean_a(res, |x| {
                            x.figure == "fig6"
                                && &x.scenario == n
                                && x.rho == Some(rho)
                                && x.swap_share == sh
                        })));
                    }
                }
                r
            })
            .collect();
        s.push_str(&grid_dyn(&header, &rows));
    }
    // Table 1.
    s.push_str(&format!(
        "\nTable 1 (every split household altered): A, mean over {} seed(s) (published in parentheses)\n",
        res.params.seeds.len()
    ));
    let mut header: Vec<String> = vec!["method".into()];
    let mut cols: Vec<String> = names.clone();
    cols.push("links".into());
    header.extend(cols.iter().cloned());
    let mut rows = Vec::new();
    for (method, label, pubs) in [
        ("swap", "swapping", published::TABLE1_SWAP),
        ("synth", "synthesis", published::TABLE1_SYNTH),
    ] {
        let mut r = vec![label.to_string()];
        for (k, c) in cols.iter().enumerate() {
            let m = fmt(mean_a(res, |x| {
                x.figure == "table1" && x.method == method && &x.scenario == c
            }));
            // Published values exist for Mitra's two scenarios and the links.
            let p = if c == "links" {
                Some(pubs[2])
            } else if c == "scenario 1" || c == "scenario 2" {
                pubs.get(k).copied()
            } else {
                None
            };
            r.push(match p {
                Some(p) => format!("{m} ({p})"),
                None => m,
            });
        }
        rows.push(r);
    }
    s.push_str(&grid_dyn(&header, &rows));
    // Utility.
    if !res.utility.is_empty() {
        s.push_str("\nUtility (Fig. 7): inheritance model, 95% CI overlap, every split household altered\n");
        let rows: Vec<[String; 3]> = res
            .utility
            .iter()
            .map(|u| {
                let low = u
                    .overlap
                    .coefficients
                    .iter()
                    .min_by(|a, b| a.overlap.total_cmp(&b.overlap))
                    .map_or("–".to_string(), |c| {
                        format!("{} {:.3}", c.name, c.overlap)
                    });
                [
                    format!("{} (seed {})", u.method, u.seed),
                    format!("{:.3}", u.overlap.mean_overlap),
                    low,
                ]
            })
            .collect();
        s.push_str(&grid(&["alteration", "mean overlap", "lowest"], &rows));
    }
    if !res.exclusions.is_empty() {
        s.push_str(&format!(
            "\n{} split record(s) excluded; see --format json\n",
            res.exclusions.len()
        ));
    }
    s
}

fn grid_dyn(header: &[String], rows: &[Vec<String>]) -> String {
    let n = header.len();
    let mut w = vec![0usize; n];
    for r in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        for (j, v) in r.iter().enumerate().take(n) {
            w[j] = w[j].max(v.chars().count());
        }
    }
    let mut s = String::new();
    for r in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        s.push(' ');
        for (j, c) in r.iter().enumerate().take(n) {
            if j == 0 {
                s.push_str(&format!(" {c:<width$}", width = w[j]));
            } else {
                s.push_str(&format!("  {c:>width$}", width = w[j]));
            }
        }
        s.push('\n');
    }
    s
}

fn run_study_cmd(a: StudyArgs) -> anyhow::Result<()> {
    check_tolerance(a.tolerance)?;
    let seeds = parse_seeds(&a.seeds)?;
    let l = load_panel(&a.panel)?;
    let mut params = StudyParams::mitra(l.panel.t(), seeds);
    params.tolerance = a.tolerance;
    params.pool = a.pool.into();
    let res = run_study(&l.panel, &params)?;
    if let Some(p) = &a.out {
        let text = serde_json::to_string_pretty(&res)? + "\n";
        write_atomically(p, |w| w.write_all(text.as_bytes()))
            .with_context(|| format!("writing {}", p.display()))?;
    }
    match a.format {
        Format::Json => {
            let v = json!({
                "command": "panel study",
                "waves": l.files_json(),
                "result": res,
                "published": {
                    "found": published::FOUND,
                    "scenario 1": {"unique_correct": published::S1.0, "le2_correct": published::S1.1, "A": published::S1.2},
                    "scenario 2": {"unique_correct": published::S2.0, "le2_correct": published::S2.1, "A": published::S2.2},
                    "links": {"A": published::LINKS_A},
                    "table1": {"swap": published::TABLE1_SWAP, "synth": published::TABLE1_SYNTH},
                },
                "version": env!("CARGO_PKG_VERSION"),
            });
            print(&(serde_json::to_string_pretty(&v)? + "\n"))
        }
        Format::Table => {
            let title = format!(
                "intruder panel study — Mitra et al. (2020) on {} → {}: {} targets, seeds {}",
                l.waves[0].path.display(),
                l.waves[1].path.display(),
                l.panel.targets().len(),
                res.params
                    .seeds
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            );
            print(&study_tables(&res, &title))
        }
    }
}
