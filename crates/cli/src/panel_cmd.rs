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
    AttackReport, Mode, NonUnique, Panel, PanelSpec, Pool, PreparedAttack, Scenario,
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
    /// Field delimiter of every file (one character).
    #[arg(long)]
    delimiter: Option<char>,
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
}

fn read_wave(path: &Path, schema: Option<&Path>, delimiter: Option<char>) -> anyhow::Result<Wave> {
    let schema_path = schema
        .map(Path::to_path_buf)
        .or_else(|| schema_beside(path));
    let mut opts = ReadOptions::default();
    let schema = match &schema_path {
        Some(s) => Some(Schema::from_file(s)?),
        None => None,
    };
    opts.schema = schema;
    opts.delimiter = delimiter_byte(delimiter)?;
    let data = read_csv(path, &opts)?;
    Ok(Wave {
        data,
        path: path.to_path_buf(),
        schema_path,
    })
}

fn delimiter_byte(d: Option<char>) -> anyhow::Result<Option<u8>> {
    match d {
        None => Ok(None),
        Some(c) if c.is_ascii() => Ok(Some(c as u8)),
        Some(c) => bail!("--delimiter: expected one ASCII character, found '{c}'"),
    }
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
