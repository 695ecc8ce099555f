//! The experiment file: typed, unknown keys rejected, every problem reported at once with its
//! key path and reason. See `experiments/README.md` for the reference.

use std::path::{Path, PathBuf};

use serde::Serialize;
use toml::{Table, Value};

use intruder_data::params::{ParamKind, ParamReader, ParamSpec, Range, ReadContext};

use crate::RunnerError;
use crate::reader::{Problems, Section};

mod attack;
mod risk;
mod utility;

pub use attack::AttackSpec;
pub use risk::{RiskFile, RiskSpec};
pub use utility::UtilitySpec;

/// Where the data come from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum DataSource {
    /// A data-synth generator, run once per experiment with the experiment seed.
    Generator {
        /// Registry name (`intruder synth --list`).
        name: String,
        /// Size `n` (the generator's default when absent).
        n: Option<u64>,
        /// Further generator parameters as `key=value`.
        params: Vec<String>,
    },
    /// Files on disk (paths relative to the experiment file).
    Files,
}

/// The data section.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DataSpec {
    /// Generator or files.
    pub source: DataSource,
    /// The released file (a file name of the generator's output, or a path).
    pub released: String,
    /// The file the intruder's records are drawn from (default: the released file, before
    /// masking).
    pub intruder: Option<String>,
    /// Schema of the released file (files only; default `<file stem>.schema.toml` when present).
    pub released_schema: Option<String>,
    /// Schema of the intruder's source file (files only).
    pub intruder_schema: Option<String>,
    /// True person id in the released file (a column with role truth).
    pub truth: String,
    /// True person id in the intruder's file (default: `truth`).
    pub truth_intruder: String,
    /// Keep only released records whose columns equal these values (as text), e.g. the split
    /// households of a wave.
    pub released_where: Vec<(String, String)>,
    /// The same for the intruder's source file.
    pub intruder_where: Vec<(String, String)>,
}

/// One measurement-error step on the intruder's copy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorStep {
    /// A defence method of the registry, or `blank` (cells set missing at random).
    pub method: String,
    /// The step's parameters (method included).
    pub params: Table,
}

/// The intruder's knowledge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scenario {
    /// Key variables, named as in the intruder's file.
    pub keys: Vec<String>,
    /// Intruder name → released name, for keys named differently.
    pub key_map: Vec<(String, String)>,
    /// Share of the intruder's source records the intruder knows (response knowledge); with the
    /// released file as source, the share of released people the intruder knows.
    pub known: f64,
    /// A fixed number of known records instead of a share.
    pub intruder_n: Option<u64>,
    /// Measurement error applied, in order, to the intruder's copy (truth stays intact).
    pub error: Vec<ErrorStep>,
    /// Repeat the release's deterministic recodings (global-recode, round, top-bottom-code) on
    /// the intruder's copy, as an intruder who reads the published categories would (default
    /// true).
    pub align: bool,
}

/// One declared defence, before grid expansion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DefenceSpec {
    /// Its label in reports.
    pub name: String,
    /// Pipeline steps; a parameter given as a list where the method expects one value (or as a
    /// list of lists where it expects a list) is a grid dimension.
    pub steps: Vec<Table>,
}

/// What the reports show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportSpec {
    /// Metrics in the summary tables (default: each attack's headline figures).
    pub metrics: Vec<String>,
    /// The risk axis of the risk–utility map.
    pub risk: Option<String>,
    /// The information-loss axis of the risk–utility map.
    pub loss: Option<String>,
    /// Metrics drawn against each numeric grid parameter (default: every attack's
    /// correct-match rate).
    pub plot: Vec<String>,
}

/// A published value to show beside ours in the paper.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Published {
    /// The setting label.
    pub setting: String,
    /// The metric name.
    pub metric: String,
    /// The published value.
    pub value: f64,
    /// Where it was published.
    pub source: String,
    /// One sentence on why ours differs.
    pub note: String,
}

/// Overrides for a size class (`[tiny]` for tests, `[paper]` for the paper).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Size {
    /// Data size `n`.
    pub n: Option<u64>,
    /// Replicates.
    pub replicates: Option<u32>,
    /// Known intruder records.
    pub intruder_n: Option<u64>,
    /// Protection seeds of the `[longitudinal]` study.
    pub seeds: Option<Vec<u64>>,
}

/// A parsed, validated experiment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Experiment {
    /// Its name (results go to `results/<name>/` by default).
    pub name: String,
    /// What it reproduces.
    pub description: String,
    /// The experiment seed; every random step's seed derives from it.
    pub seed: u64,
    /// Replicates per setting.
    pub replicates: u32,
    /// Data.
    pub data: DataSpec,
    /// The intruder's knowledge.
    pub scenario: Scenario,
    /// Defences (grid declarations).
    pub defences: Vec<DefenceSpec>,
    /// Attacks.
    pub attacks: Vec<AttackSpec>,
    /// Risk assessments.
    pub risk: Vec<RiskSpec>,
    /// Utility measures.
    pub utility: UtilitySpec,
    /// Report options.
    pub report: ReportSpec,
    /// Published values.
    pub published: Vec<Published>,
    /// The longitudinal study (`[longitudinal]`), when declared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub longitudinal: Option<crate::longitudinal::LongitudinalSpec>,
    /// `[tiny]` overrides.
    #[serde(skip)]
    pub tiny: Size,
    /// `[paper]` overrides.
    #[serde(skip)]
    pub paper: Size,
    /// Directory of the experiment file (relative paths resolve against it).
    #[serde(skip)]
    pub base_dir: PathBuf,
    /// The file it was read from.
    #[serde(skip)]
    pub path: PathBuf,
    /// Deprecation warnings (old parameter names), each with its key path; `intruder run`
    /// prints them on standard error.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

impl Experiment {
    /// Reads and validates an experiment file.
    pub fn from_file(path: &Path) -> Result<Experiment, RunnerError> {
        let text = std::fs::read_to_string(path).map_err(|source| RunnerError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Experiment::from_toml(&text, path)
    }

    /// Parses experiment text; `path` labels errors and anchors relative paths.
    pub fn from_toml(text: &str, path: &Path) -> Result<Experiment, RunnerError> {
        let fail = |problems: Vec<String>| RunnerError::Spec {
            path: path.to_path_buf(),
            problems,
        };
        let doc: Table = text
            .parse()
            .map_err(|e: toml::de::Error| fail(vec![format!("not valid TOML: {e}")]))?;
        let mut p = Problems::default();
        let mut warnings: Vec<String> = Vec::new();
        let mut top = Section::new(&doc, "");
        let name = top.string(&mut p, "name");
        if name.is_none() && !doc.contains_key("name") {
            p.push("name", "is required (results go to results/<name>/)");
        }
        if let Some(n) = &name
            && (n.is_empty()
                || !n
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        {
            p.push(
                "name",
                format!("'{n}': expected letters, digits, '-' or '_' (it names a directory)"),
            );
        }
        let description = top.string(&mut p, "description").unwrap_or_default();
        let seed = top.uint(&mut p, "seed");
        if seed.is_none() && !doc.contains_key("seed") {
            p.push(
                "seed",
                "is required: every random step derives its seed from it",
            );
        }
        let replicates = top.uint(&mut p, "replicates").unwrap_or(1);
        if !(1..=100_000).contains(&replicates) {
            p.push(
                "replicates",
                format!("expected 1..=100000, found {replicates}"),
            );
        }

        let data = match top.table(&mut p, "data") {
            Some(t) => parse_data(t, &mut p),
            None => {
                if !doc.contains_key("data") {
                    p.push("data", "a [data] section is required");
                }
                None
            }
        };
        let scenario = match top.table(&mut p, "scenario") {
            Some(t) => parse_scenario(t, &mut p, &mut warnings),
            None => {
                if !doc.contains_key("scenario") {
                    p.push("scenario", "a [scenario] section with the keys is required");
                }
                None
            }
        };
        let keys = scenario
            .as_ref()
            .map(|s| s.keys.clone())
            .unwrap_or_default();
        let released_keys: Vec<String> = scenario
            .as_ref()
            .map(|s| {
                s.keys
                    .iter()
                    .map(|k| {
                        s.key_map
                            .iter()
                            .find(|(a, _)| a == k)
                            .map_or(k.clone(), |(_, b)| b.clone())
                    })
                    .collect()
            })
            .unwrap_or_default();

        let mut defences = Vec::new();
        for (i, t) in top.tables(&mut p, "defence").into_iter().enumerate() {
            if let Some(d) = parse_defence(t, i, &released_keys, &mut p, &mut warnings) {
                defences.push(d);
            }
        }
        if defences.is_empty() && !doc.contains_key("defence") {
            p.push(
                "defence",
                "at least one [[defence]] is required (one without steps means no masking)",
            );
        }
        for (i, d) in defences.iter().enumerate() {
            if defences[..i].iter().any(|e| e.name == d.name) {
                p.push(
                    &format!("defence[{}].name", i + 1),
                    format!("'{}' is used twice", d.name),
                );
            }
        }

        let key_map = scenario
            .as_ref()
            .map(|s| s.key_map.clone())
            .unwrap_or_default();
        let base_dir = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let mut attacks = Vec::new();
        for (i, t) in top.tables(&mut p, "attack").into_iter().enumerate() {
            if let Some(a) = attack::parse_attack(t, i, &keys, &key_map, &base_dir, &mut p) {
                attacks.push(a);
            }
        }
        for (i, a) in attacks.iter().enumerate() {
            if attacks[..i].iter().any(|b| b.name == a.name) {
                p.push(
                    &format!("attack[{}].name", i + 1),
                    format!("'{}' is used twice; give each attack its own name", a.name),
                );
            }
        }

        let mut risk: Vec<RiskSpec> = Vec::new();
        let ctx = intruder_data::params::ReadContext {
            base_dir: path.parent(),
            columns: None,
        };
        for (i, t) in top.tables(&mut p, "risk").into_iter().enumerate() {
            if let Some(r) = risk::parse_risk(t, i, &released_keys, ctx, &mut p) {
                if risk.iter().any(|o| o.name == r.name) {
                    p.push(
                        &format!("risk[{}].name", i + 1),
                        format!(
                            "'{}' is used twice; give each [[risk]] its own name (metrics are risk.<name>.<figure>)",
                            r.name
                        ),
                    );
                }
                risk.push(r);
            }
        }
        if attacks.is_empty() && risk.is_empty() {
            p.push(
                "",
                "nothing to measure: declare at least one [[attack]] or [[risk]]",
            );
        }

        let utility = match top.table(&mut p, "utility") {
            Some(t) => utility::parse_utility(t, &mut p, &mut warnings),
            None => UtilitySpec::default(),
        };

        let report = match top.table(&mut p, "report") {
            Some(t) => {
                let mut s = Section::new(t, "report");
                let r = ReportSpec {
                    metrics: s.strings(&mut p, "metrics").unwrap_or_default(),
                    risk: s.string(&mut p, "risk"),
                    loss: s.string(&mut p, "loss"),
                    plot: s.strings(&mut p, "plot").unwrap_or_default(),
                };
                s.finish(&mut p);
                r
            }
            None => ReportSpec {
                metrics: Vec::new(),
                risk: None,
                loss: None,
                plot: Vec::new(),
            },
        };

        let mut published = Vec::new();
        for (i, t) in top.tables(&mut p, "published").into_iter().enumerate() {
            let mut s = Section::new(t, format!("published[{}]", i + 1));
            let setting = s.string(&mut p, "setting");
            let metric = s.string(&mut p, "metric");
            let value = s.number(&mut p, "value");
            let source = s.string(&mut p, "source").unwrap_or_default();
            let note = s.string(&mut p, "note").unwrap_or_default();
            for (k, present) in [
                ("setting", setting.is_some()),
                ("metric", metric.is_some()),
                ("value", value.is_some()),
            ] {
                if !present && !t.contains_key(k) {
                    p.push(&s.key(k), "is required");
                }
            }
            s.finish(&mut p);
            if let (Some(setting), Some(metric), Some(value)) = (setting, metric, value) {
                published.push(Published {
                    setting,
                    metric,
                    value,
                    source,
                    note,
                });
            }
        }

        let size = |k: &'static str, top: &mut Section, p: &mut Problems| -> Size {
            match top.table(p, k) {
                Some(t) => {
                    let mut s = Section::new(t, k);
                    let out = Size {
                        n: s.uint(p, "n"),
                        replicates: s.uint(p, "replicates").map(|r| r.clamp(1, 100_000) as u32),
                        intruder_n: s.uint(p, "intruder_n"),
                        seeds: s.uints(p, "seeds"),
                    };
                    if out.seeds.as_ref().is_some_and(Vec::is_empty) {
                        p.push(&s.key("seeds"), "list at least one seed");
                    }
                    s.finish(p);
                    out
                }
                None => Size::default(),
            }
        };
        let longitudinal = match top.table(&mut p, "longitudinal") {
            Some(t) => crate::longitudinal::parse(t, &mut p),
            None => None,
        };
        let tiny = size("tiny", &mut top, &mut p);
        let paper = size("paper", &mut top, &mut p);
        top.finish(&mut p);

        if !p.list.is_empty() {
            return Err(fail(p.list));
        }
        let (Some(name), Some(seed), Some(data), Some(scenario)) = (name, seed, data, scenario)
        else {
            return Err(fail(vec!["incomplete experiment".into()]));
        };
        for w in std::mem::take(&mut p.warnings) {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        Ok(Experiment {
            name,
            description,
            seed,
            replicates: replicates as u32,
            data,
            scenario,
            defences,
            attacks,
            risk,
            utility,
            report,
            published,
            longitudinal,
            tiny,
            paper,
            base_dir,
            path: path.to_path_buf(),
            warnings,
        })
    }

    /// Applies a size class (`[tiny]` or `[paper]`).
    pub fn resize(&mut self, size: &Size) {
        if let Some(n) = size.n {
            match &mut self.data.source {
                DataSource::Generator { n: gn, .. } => *gn = Some(n),
                DataSource::Files => {}
            }
        }
        if let Some(r) = size.replicates {
            self.replicates = r;
        }
        if let Some(k) = size.intruder_n {
            self.scenario.intruder_n = Some(k);
        }
        if let (Some(seeds), Some(l)) = (&size.seeds, &mut self.longitudinal) {
            l.params.seeds = seeds.clone();
        }
    }

    /// Every metric name the attacks and measures of this experiment produce (for checking the
    /// `[report]` names).
    pub fn headline_metrics(&self) -> Vec<String> {
        if !self.report.metrics.is_empty() {
            return self.report.metrics.clone();
        }
        let mut m = Vec::new();
        for a in &self.attacks {
            m.push(format!("{}.correct_match_rate", a.name));
            m.push(format!("{}.expected_correct", a.name));
            if a.sensitive.is_some() {
                m.push(format!("{}.attribute_A", a.name));
            }
        }
        for r in &self.risk {
            m.push(format!("risk.{}.{}", r.name, r.measure.headline()));
        }
        if self.utility.measures.iter().any(|x| x == "il1s") {
            m.push("utility.il1s".into());
        }
        m
    }
}

fn parse_data(t: &Table, p: &mut Problems) -> Option<DataSpec> {
    let mut s = Section::new(t, "data");
    let generator = s.string(p, "generator");
    let n = s.uint(p, "n");
    let params = s.scalar_map(p, "params").unwrap_or_default();
    let released = s.string(p, "released");
    let intruder = s.string(p, "intruder");
    let released_schema = s.string(p, "released_schema");
    let intruder_schema = s.string(p, "intruder_schema");
    let truth = s.string(p, "truth");
    let truth_intruder = s.string(p, "truth_intruder");
    let released_where = s.scalar_map(p, "released_where").unwrap_or_default();
    let intruder_where = s.scalar_map(p, "intruder_where").unwrap_or_default();
    if let Some(g) = &generator {
        match intruder_synth::find(g) {
            // The generator reads `params` as given: kinds, ranges, choices and unknown keys
            // (with a did-you-mean) are checked here, every problem with its path.
            Ok(gen_) => {
                let table = t
                    .get("params")
                    .and_then(toml::Value::as_table)
                    .cloned()
                    .unwrap_or_default();
                match gen_.parse_table(n, &table, "data.params") {
                    Ok(_) => {}
                    // Each problem already names its path (`data.params.bad: unknown key`).
                    Err(intruder_synth::SynthError::Params { problems, .. }) => {
                        for pr in problems {
                            p.push("", pr);
                        }
                    }
                    Err(e) => p.push("data.params", e),
                }
            }
            Err(e) => p.push("data.generator", e),
        }
    }
    if released.is_none() && !t.contains_key("released") {
        p.push(
            "data.released",
            "is required: the file that is masked and released",
        );
    }
    if truth.is_none() && !t.contains_key("truth") {
        p.push(
            "data.truth",
            "is required: the column with the true person id (role truth)",
        );
    }
    if generator.is_none() && n.is_some() {
        p.push("data.n", "only for a generator");
    }
    s.finish(p);
    let source = match generator {
        Some(name) => DataSource::Generator {
            name,
            n,
            params: params.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        },
        None => DataSource::Files,
    };
    let truth = truth?;
    Some(DataSpec {
        source,
        released: released?,
        intruder,
        released_schema,
        intruder_schema,
        truth_intruder: truth_intruder.unwrap_or_else(|| truth.clone()),
        truth,
        released_where,
        intruder_where,
    })
}

/// The parameters of the `blank` measurement-error step (not a defence: the runner's own).
pub(crate) static BLANK_PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "variables",
        ParamKind::Columns,
        "the intruder's columns whose cells are set missing at random",
    )
    .required()
    .alias(&["columns"]),
    ParamSpec::new("p", ParamKind::Number, "the share of cells blanked")
        .required()
        .within(Range::SHARE),
];

/// Pushes shared-layer problems with their paths.
pub(crate) fn push_problems(p: &mut Problems, problems: Vec<intruder_data::params::Problem>) {
    for x in problems {
        p.push(&x.path, x.message);
    }
}

/// Adds warnings not yet recorded.
pub(crate) fn push_warnings(
    warnings: &mut Vec<String>,
    new: impl IntoIterator<Item = intruder_data::params::Problem>,
) {
    for w in new {
        let w = w.to_string();
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    }
}

fn parse_scenario(t: &Table, p: &mut Problems, warnings: &mut Vec<String>) -> Option<Scenario> {
    let mut s = Section::new(t, "scenario");
    let keys = s.strings(p, "keys");
    let key_map = s.string_map(p, "key_map").unwrap_or_default();
    let known = s.share(p, "known").unwrap_or(1.0);
    let intruder_n = s.uint(p, "intruder_n");
    let align = s.boolean(p, "align").unwrap_or(true);
    let mut error = Vec::new();
    for (i, e) in s.tables(p, "error").into_iter().enumerate() {
        let loc = format!("scenario.error[{}]", i + 1);
        match e.get("method").and_then(Value::as_str) {
            None => p.push(
                &format!("{loc}.method"),
                "is required (a defence method, or 'blank')",
            ),
            Some("blank") => {
                let mut r =
                    ParamReader::new(e, loc.clone(), &[BLANK_PARAMS], ReadContext::default());
                let _: Option<Vec<String>> = r.require("variables");
                let _: Option<f64> = r.require("p");
                let outcome = r.finish();
                push_warnings(warnings, outcome.warnings);
                push_problems(p, outcome.problems);
                error.push(ErrorStep {
                    method: "blank".into(),
                    params: e.clone(),
                });
            }
            Some(m) => {
                let mut params = e.clone();
                params.remove("method");
                match intruder_defence::Pipeline::single_at(m, params, &loc, ReadContext::default())
                {
                    Err(problems) => push_problems(p, problems),
                    Ok(pipe) => {
                        push_warnings(warnings, pipe.warnings);
                        error.push(ErrorStep {
                            method: m.to_string(),
                            params: e.clone(),
                        });
                    }
                }
            }
        }
    }
    match &keys {
        Some(k) if k.is_empty() => p.push("scenario.keys", "list at least one key"),
        None if !t.contains_key("keys") => p.push("scenario.keys", "is required"),
        _ => {}
    }
    if let Some(k) = &keys {
        for (a, _) in &key_map {
            if !k.contains(a) {
                p.push(
                    &format!("scenario.key_map.{a}"),
                    format!("'{a}' is not one of the keys ({})", k.join(", ")),
                );
            }
        }
    }
    s.finish(p);
    Some(Scenario {
        keys: keys?,
        key_map,
        known,
        intruder_n,
        error,
        align,
    })
}

/// The declared kind of a defence parameter (under its name or an old name), from the
/// registry; the `blank` error step's own parameters too.
fn param_kind(method: &str, key: &str) -> Option<ParamKind> {
    let specs: &[ParamSpec] = if method == "blank" {
        BLANK_PARAMS
    } else {
        intruder_defence::method(method)?.params
    };
    specs.iter().find(|s| s.answers_to(key)).map(|s| s.kind)
}

/// Whether `v` is a grid list for a parameter of kind `k`: a list where the parameter holds one
/// value (number, bool, string, choice, path, column), a list of lists where it holds a list
/// (columns, strings, numbers, integers), a list of matrices for a matrix, a list of tables for
/// a table (map, number map, inline table).
pub(crate) fn is_grid(k: Option<ParamKind>, v: &Value) -> bool {
    use ParamKind as K;
    let Value::Array(a) = v else { return false };
    match k {
        Some(k) if k.is_scalar() => true,
        Some(K::Columns | K::Strings | K::Numbers | K::Integers) => {
            !a.is_empty() && a.iter().all(Value::is_array)
        }
        Some(K::Matrix) => {
            !a.is_empty()
                && a.iter().all(|x| {
                    x.as_array()
                        .is_some_and(|r| !r.is_empty() && r.iter().all(Value::is_array))
                })
        }
        Some(K::Map | K::NumberMap | K::Table) => !a.is_empty() && a.iter().all(Value::is_table),
        // Every other kind is scalar (handled above); unknown keys are not grids.
        Some(_) | None => false,
    }
}

pub(crate) fn step_grid_kind(method: &str, key: &str) -> Option<ParamKind> {
    param_kind(method, key)
}

fn parse_defence(
    t: &Table,
    i: usize,
    released_keys: &[String],
    p: &mut Problems,
    warnings: &mut Vec<String>,
) -> Option<DefenceSpec> {
    let loc = format!("defence[{}]", i + 1);
    let mut s = Section::new(t, loc.clone());
    let name = s.string(p, "name");
    if name.is_none() && !t.contains_key("name") {
        p.push(&s.key("name"), "is required (the label in reports)");
    }
    let mut steps: Vec<Table> = s.tables(p, "step").into_iter().cloned().collect();
    s.finish(p);
    // A step's key variables default to the scenario's keys (released names), as an attack's.
    for step in &mut steps {
        let Some(entry) = step
            .get("method")
            .and_then(Value::as_str)
            .and_then(intruder_defence::method)
        else {
            continue;
        };
        for spec in entry.params {
            if spec.role == Some(intruder_data::Role::Key)
                && !released_keys.is_empty()
                && !step.contains_key(spec.name)
                && !spec.aliases.iter().any(|a| step.contains_key(*a))
            {
                step.insert(
                    spec.name.into(),
                    Value::Array(released_keys.iter().cloned().map(Value::String).collect()),
                );
            }
        }
    }
    let name = name?;
    let spec = DefenceSpec { name, steps };
    // Validate every setting of the grid; report the problems of the first invalid one.
    match crate::plan::expand_defence(&spec) {
        Ok(settings) => {
            for st in &settings {
                match st.pipeline_at(&format!("{loc}.")) {
                    Err(problems) => {
                        for x in problems {
                            let m = if settings.len() > 1 {
                                format!("{} (setting '{}')", x.message, st.label)
                            } else {
                                x.message
                            };
                            p.push(&x.path, m);
                        }
                        break;
                    }
                    Ok(pipe) => push_warnings(warnings, pipe.warnings),
                }
            }
        }
        Err(e) => p.push(&loc, e),
    }
    Some(spec)
}

/// Converts a TOML value to JSON (for hashing and reports).
pub(crate) fn to_json(v: &Value) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Value {
        format!("x = {text}")
            .parse::<Table>()
            .unwrap()
            .remove("x")
            .unwrap()
    }

    #[test]
    fn grid_lists_by_parameter_kind() {
        use ParamKind as K;
        // one value: a list is a grid
        for k in [
            K::Integer,
            K::Number,
            K::Bool,
            K::String,
            K::Choice(&["a", "b"]),
            K::Path,
            K::Column,
        ] {
            assert!(is_grid(Some(k), &v("[1, 2]")), "{k:?}");
            assert!(!is_grid(Some(k), &v("1")), "{k:?}");
        }
        // a list: a list of lists is a grid, a plain list is the value
        for k in [K::Columns, K::Strings, K::Numbers, K::Integers] {
            assert!(!is_grid(Some(k), &v(r#"["a", "b"]"#)), "{k:?}");
            assert!(is_grid(Some(k), &v(r#"[["a"], ["a", "b"]]"#)), "{k:?}");
            assert!(!is_grid(Some(k), &v("[]")), "{k:?}");
        }
        // a matrix: a list of matrices
        assert!(!is_grid(Some(K::Matrix), &v("[[0.5, 0.5], [0.5, 0.5]]")));
        assert!(is_grid(
            Some(K::Matrix),
            &v("[[[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5], [0.5, 0.5]]]")
        ));
        // a table: a list of tables
        for k in [K::Map, K::NumberMap, K::Table] {
            assert!(!is_grid(Some(k), &v("{ a = 1 }")), "{k:?}");
            assert!(is_grid(Some(k), &v("[{ a = 1 }, { a = 2 }]")), "{k:?}");
        }
        // unknown keys are never grids
        assert!(!is_grid(None, &v("[1, 2]")));
    }

    #[test]
    fn kinds_come_from_the_registry_under_old_names_too() {
        assert_eq!(
            step_grid_kind("round", "variables"),
            Some(ParamKind::Columns)
        );
        assert_eq!(step_grid_kind("round", "columns"), Some(ParamKind::Columns));
        assert_eq!(step_grid_kind("round", "base"), Some(ParamKind::Number));
        assert_eq!(
            step_grid_kind("risk-suppression", "suppress"),
            Some(ParamKind::Column)
        );
        assert_eq!(step_grid_kind("blank", "columns"), Some(ParamKind::Columns));
        assert_eq!(step_grid_kind("blank", "p"), Some(ParamKind::Number));
        assert_eq!(step_grid_kind("noise", "columns"), None);
        assert_eq!(step_grid_kind("no-such-method", "k"), None);
        // a grid over the old name expands like one over the new
        let spec = DefenceSpec {
            name: "r".into(),
            steps: vec![
                "method = \"round\"\ncolumns = [[\"a\"], [\"b\"]]\nbase = 5"
                    .parse()
                    .unwrap(),
            ],
        };
        let settings = crate::plan::expand_defence(&spec).unwrap();
        let labels: Vec<&str> = settings.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["r (columns=[a])", "r (columns=[b])"]);
    }
}
