//! The experiment file: typed, unknown keys rejected, every problem reported at once with its
//! key path and reason. See `experiments/README.md` for the reference.

use std::path::{Path, PathBuf};

use serde::Serialize;
use toml::Table;

use intruder_data::params::Problem;

use crate::RunnerError;
use crate::grid::DefenceSpec;
use crate::reader::{Problems, Section};
use crate::study::StudyBox;

mod attack;
mod data;
mod defence;
mod question;
mod risk;
mod scenario;
mod utility;

pub use attack::AttackSpec;
pub use data::{DataSource, DataSpec};
pub use question::QuestionSpec;
pub use risk::{RiskFile, RiskSpec};
pub use scenario::{ErrorStep, Scenario};
pub use utility::UtilitySpec;

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

/// Whether `metric` names a metric an experiment with these attacks and [[risk]] measures
/// produces; the error says what it could be.
fn check_metric(
    metric: &str,
    attacks: &[&str],
    risks: &[&str],
    questions: &[(&str, intruder::questions::Question)],
) -> Result<(), String> {
    use crate::metrics::{ATTACK_FIGURES, MASKING_FIGURES, question_figures};
    if let Some(rest) = metric.strip_prefix("question.") {
        let (name, figure) = rest.split_once('.').unwrap_or((rest, ""));
        let asked = questions.iter().find(|(n, _)| *n == name);
        let figures =
            question_figures(asked.map_or(intruder::questions::Question::SinglingOut, |(_, q)| *q));
        return if asked.is_some() && figures.iter().any(|d| d.figure == figure) {
            Ok(())
        } else {
            Err(format!(
                "is not a metric: question metrics are question.<name>.<figure> with a [[question]] name ({}) and one of {}",
                if questions.is_empty() {
                    "none is declared".to_string()
                } else {
                    questions
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                },
                figures
                    .iter()
                    .map(|d| d.figure)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        };
    }
    if metric.starts_with("masking.") || metric.starts_with("intruder.") {
        return if MASKING_FIGURES.iter().any(|d| d.figure == metric) {
            Ok(())
        } else {
            Err(format!(
                "is not a metric: the masking and intruder metrics are {}",
                MASKING_FIGURES
                    .iter()
                    .map(|d| d.figure)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        };
    }
    if let Some(rest) = metric.strip_prefix("risk.") {
        let name = rest.split_once('.').map_or(rest, |(n, _)| n);
        return if rest.contains('.') && risks.contains(&name) {
            Ok(())
        } else {
            Err(format!(
                "is not a metric: risk metrics are risk.<name>.<figure> with a [[risk]] name ({})",
                if risks.is_empty() {
                    "none is declared".to_string()
                } else {
                    risks.join(", ")
                }
            ))
        };
    }
    if metric.starts_with("utility.") && metric.len() > "utility.".len() {
        return Ok(());
    }
    // <attack>.<figure>: the longest attack name that prefixes the metric.
    let attack = attacks
        .iter()
        .filter(|a| {
            metric.len() > a.len() + 1
                && metric.starts_with(*a)
                && metric.as_bytes()[a.len()] == b'.'
        })
        .max_by_key(|a| a.len());
    match attack {
        Some(a) => {
            let figure = &metric[a.len() + 1..];
            if ATTACK_FIGURES.iter().any(|d| d.figure == figure) {
                Ok(())
            } else {
                Err(format!(
                    "is not a metric: attack '{a}' reports {}",
                    ATTACK_FIGURES
                        .iter()
                        .map(|d| d.figure)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
        }
        None => Err(format!(
            "is not a metric of this experiment: expected <attack>.<figure> with an attack name ({}), risk.<name>.<figure>, utility.<figure>, masking.<figure> or intruder.records",
            attacks.join(", ")
        )),
    }
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
    /// How far (a share of the committed value) a regenerated value may move from the value
    /// committed in `paper/values.csv` before the paper's regression test fails; `None` = 0.25.
    pub tolerance: Option<f64>,
    /// An absolute floor on that allowance (for values near zero); `None` = 0.
    pub tolerance_abs: Option<f64>,
}

impl Published {
    /// The largest allowed move of a regenerated value from the committed value `committed`:
    /// max(tolerance · |committed|, tolerance_abs).
    pub fn allowance(&self, committed: f64) -> f64 {
        (self.tolerance.unwrap_or(0.25) * committed.abs()).max(self.tolerance_abs.unwrap_or(0.0))
    }
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
    /// The questions of anonymisation asked of every run's release (`[[question]]`; they need
    /// `[scenario] control`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<QuestionSpec>,
    /// Utility measures.
    pub utility: UtilitySpec,
    /// Report options.
    pub report: ReportSpec,
    /// Published values.
    pub published: Vec<Published>,
    /// Where risk measures and the exact attack run (`[engine]`: name, memory_limit,
    /// spill_dir; default local).
    #[serde(skip)]
    pub engine: intruder_engine::EngineSpec,
    /// The study of the `[longitudinal]` section, when declared.
    #[serde(rename = "longitudinal", skip_serializing_if = "Option::is_none")]
    pub study: Option<StudyBox>,
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
    pub warnings: Vec<Problem>,
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
        let fail = |problems: Vec<Problem>| RunnerError::Spec {
            path: path.to_path_buf(),
            problems,
        };
        let doc: Table = text.parse().map_err(|e: toml::de::Error| {
            fail(vec![Problem {
                path: String::new(),
                message: format!("not valid TOML: {e}"),
            }])
        })?;
        let mut p = Problems::default();
        let mut top = Section::new(&doc, "");
        let header = read_header(&mut top, &mut p);
        let data = read_data(&mut top, &mut p);
        let scenario = read_scenario(&mut top, &mut p);
        let released_keys = released_keys(scenario.as_ref());
        let defences = read_defences(&mut top, &mut p, &released_keys, path.parent());
        let base_dir = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        let attacks = read_attacks(&mut top, &mut p, scenario.as_ref(), &base_dir);
        let risk = read_risks(&mut top, &mut p, &released_keys, path.parent());
        let questions = read_questions(&mut top, &mut p, scenario.as_ref(), path);
        if attacks.is_empty() && risk.is_empty() && questions.is_empty() {
            p.push(
                "",
                "nothing to measure: declare at least one [[attack]], [[risk]] or [[question]]",
            );
        }
        let utility = match top.table(&mut p, "utility") {
            Some(t) => utility::parse_utility(t, &mut p),
            None => UtilitySpec::default(),
        };
        let report = read_report(&mut top, &mut p);
        check_report_metrics(&report, &attacks, &risk, &questions, &mut p);
        let published = read_published(&mut top, &mut p);
        let study = match top.table(&mut p, "longitudinal") {
            Some(t) => crate::study::parse(t, &mut p),
            None => None,
        };
        let engine = read_engine(&mut top, &mut p);
        let tiny = read_size("tiny", &mut top, &mut p);
        let paper = read_size("paper", &mut top, &mut p);
        top.finish(&mut p);

        if !p.list.is_empty() {
            return Err(fail(p.list));
        }
        let (Some(name), Some(seed), Some(data), Some(scenario)) =
            (header.name, header.seed, data, scenario)
        else {
            return Err(fail(vec![Problem {
                path: String::new(),
                message: "incomplete experiment".into(),
            }]));
        };
        Ok(Experiment {
            name,
            description: header.description,
            seed,
            replicates: header.replicates as u32,
            data,
            scenario,
            defences,
            attacks,
            risk,
            questions,
            utility,
            report,
            published,
            study,
            engine,
            tiny,
            paper,
            base_dir,
            path: path.to_path_buf(),
            warnings: p.warnings,
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
        if let (Some(seeds), Some(s)) = (&size.seeds, &self.study) {
            self.study = Some(StudyBox(std::sync::Arc::from(s.with_seeds(seeds))));
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

/// The top-level keys of an experiment file: its name, description, seed and replicates.
struct Header {
    /// `name` (required; it names the results directory).
    name: Option<String>,
    /// `description` (default empty).
    description: String,
    /// `seed` (required).
    seed: Option<u64>,
    /// `replicates` (default 1; checked to lie in 1..=100000).
    replicates: u64,
}

/// Reads the top-level `name`, `description`, `seed` and `replicates`, recording what is
/// missing or malformed.
fn read_header(top: &mut Section<'_>, p: &mut Problems) -> Header {
    let doc = top.table;
    let name = top.string(p, "name");
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
    let description = top.string(p, "description").unwrap_or_default();
    let seed = top.uint(p, "seed");
    if seed.is_none() && !doc.contains_key("seed") {
        p.push(
            "seed",
            "is required: every random step derives its seed from it",
        );
    }
    let replicates = top.uint(p, "replicates").unwrap_or(1);
    if !(1..=100_000).contains(&replicates) {
        p.push(
            "replicates",
            format!("expected 1..=100000, found {replicates}"),
        );
    }
    Header {
        name,
        description,
        seed,
        replicates,
    }
}

/// Reads the required `[data]` section.
fn read_data(top: &mut Section<'_>, p: &mut Problems) -> Option<DataSpec> {
    match top.table(p, "data") {
        Some(t) => data::parse_data(t, p),
        None => {
            if !top.table.contains_key("data") {
                p.push("data", "a [data] section is required");
            }
            None
        }
    }
}

/// Reads the required `[scenario]` section.
fn read_scenario(top: &mut Section<'_>, p: &mut Problems) -> Option<Scenario> {
    match top.table(p, "scenario") {
        Some(t) => scenario::parse_scenario(t, p),
        None => {
            if !top.table.contains_key("scenario") {
                p.push("scenario", "a [scenario] section with the keys is required");
            }
            None
        }
    }
}

/// The scenario's keys as the released file names them (through its key map); empty without
/// a scenario.
fn released_keys(scenario: Option<&Scenario>) -> Vec<String> {
    scenario
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
        .unwrap_or_default()
}

/// Reads the `[[defence]]` tables: at least one is required, and their names must differ.
fn read_defences(
    top: &mut Section<'_>,
    p: &mut Problems,
    released_keys: &[String],
    dir: Option<&Path>,
) -> Vec<DefenceSpec> {
    let mut defences = Vec::new();
    for (i, t) in top.tables(p, "defence").into_iter().enumerate() {
        if let Some(d) = defence::parse_defence(t, i, released_keys, dir, p) {
            defences.push(d);
        }
    }
    if defences.is_empty() && !top.table.contains_key("defence") {
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
    defences
}

/// Reads the `[[attack]]` tables (the scenario's keys and key map are their defaults); their
/// names must differ.
fn read_attacks(
    top: &mut Section<'_>,
    p: &mut Problems,
    scenario: Option<&Scenario>,
    base_dir: &Path,
) -> Vec<AttackSpec> {
    let keys = scenario.map(|s| s.keys.clone()).unwrap_or_default();
    let key_map = scenario.map(|s| s.key_map.clone()).unwrap_or_default();
    let mut attacks = Vec::new();
    for (i, t) in top.tables(p, "attack").into_iter().enumerate() {
        if let Some(a) = attack::parse_attack(t, i, &keys, &key_map, base_dir, p) {
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
    attacks
}

/// Reads the `[[risk]]` tables; their names must differ (they name the metrics).
fn read_risks(
    top: &mut Section<'_>,
    p: &mut Problems,
    released_keys: &[String],
    dir: Option<&Path>,
) -> Vec<RiskSpec> {
    let mut risk: Vec<RiskSpec> = Vec::new();
    let ctx = intruder_data::params::ReadContext {
        base_dir: dir,
        columns: None,
    };
    for (i, t) in top.tables(p, "risk").into_iter().enumerate() {
        if let Some(r) = risk::parse_risk(t, i, released_keys, ctx, p) {
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
    risk
}

/// Reads the `[[question]]` tables: their names must differ (they name the metrics), and they
/// need a control set (`[scenario] control`).
fn read_questions(
    top: &mut Section<'_>,
    p: &mut Problems,
    scenario: Option<&Scenario>,
    path: &Path,
) -> Vec<QuestionSpec> {
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    );
    let mut questions: Vec<QuestionSpec> = Vec::new();
    for (i, t) in top.tables(p, "question").into_iter().enumerate() {
        if let Some(q) = question::parse_question(t, i, &file, p) {
            if questions.iter().any(|o| o.name == q.name) {
                p.push(
                    &format!("question[{}].name", i + 1),
                    format!(
                        "'{}' is used twice; give each [[question]] its own name (metrics are question.<name>.<figure>)",
                        q.name
                    ),
                );
            }
            questions.push(q);
        }
    }
    let asked = top.table.get("question").is_some();
    if asked && scenario.is_some_and(|s| s.control == 0.0) {
        p.push(
            "scenario.control",
            format!(
                "{file}: a [[question]] compares the attack on the original with the same attack on a control set of original records the release never saw; add `control = 0.2` (the share of the original records kept out of the release) to [scenario]"
            ),
        );
    }
    questions
}

/// Reads the `[report]` section (every list empty and no axis when absent).
fn read_report(top: &mut Section<'_>, p: &mut Problems) -> ReportSpec {
    match top.table(p, "report") {
        Some(t) => {
            let mut s = Section::new(t, "report");
            let r = ReportSpec {
                metrics: s.strings(p, "metrics").unwrap_or_default(),
                risk: s.string(p, "risk"),
                loss: s.string(p, "loss"),
                plot: s.strings(p, "plot").unwrap_or_default(),
            };
            s.finish(p);
            r
        }
        None => ReportSpec {
            metrics: Vec::new(),
            risk: None,
            loss: None,
            plot: Vec::new(),
        },
    }
}

/// Checks the `[report]` names against what the plan produces: an attack's figures, masking
/// and intruder figures, a declared risk measure's, a declared question's, utility figures
/// when measured.
fn check_report_metrics(
    report: &ReportSpec,
    attacks: &[AttackSpec],
    risk: &[RiskSpec],
    questions: &[QuestionSpec],
    p: &mut Problems,
) {
    let attack_names: Vec<&str> = attacks.iter().map(|a| a.name.as_str()).collect();
    let risk_names: Vec<&str> = risk.iter().map(|r| r.name.as_str()).collect();
    let question_names: Vec<(&str, intruder::questions::Question)> = questions
        .iter()
        .map(|q| (q.name.as_str(), q.question))
        .collect();
    let named = |k: &str, names: Vec<String>| -> Vec<(String, String)> {
        names.into_iter().map(|n| (k.to_string(), n)).collect()
    };
    let mut all = named("report.metrics", report.metrics.clone());
    all.extend(named("report.plot", report.plot.clone()));
    all.extend(named("report.risk", report.risk.iter().cloned().collect()));
    all.extend(named("report.loss", report.loss.iter().cloned().collect()));
    for (key, m) in all {
        if let Err(e) = check_metric(&m, &attack_names, &risk_names, &question_names) {
            p.push(&key, format!("'{m}' {e}"));
        }
    }
}

/// Reads the `[[published]]` tables.
fn read_published(top: &mut Section<'_>, p: &mut Problems) -> Vec<Published> {
    top.tables(p, "published")
        .into_iter()
        .enumerate()
        .filter_map(|(i, t)| read_published_value(t, i, p))
        .collect()
}

/// Reads `[[published]]` number `i` (0-based); `None` when a required key is missing.
fn read_published_value(t: &Table, i: usize, p: &mut Problems) -> Option<Published> {
    let mut s = Section::new(t, format!("published[{}]", i + 1));
    let setting = s.string(p, "setting");
    let metric = s.string(p, "metric");
    let value = s.number(p, "value");
    let source = s.string(p, "source").unwrap_or_default();
    let note = s.string(p, "note").unwrap_or_default();
    let tolerance = s.number(p, "tolerance");
    let tolerance_abs = s.number(p, "tolerance_abs");
    for (k, v) in [("tolerance", tolerance), ("tolerance_abs", tolerance_abs)] {
        if let Some(v) = v
            && !(v.is_finite() && v >= 0.0)
        {
            p.push(&s.key(k), format!("expected a number ≥ 0, found {v}"));
        }
    }
    for (k, present) in [
        ("setting", setting.is_some()),
        ("metric", metric.is_some()),
        ("value", value.is_some()),
    ] {
        if !present && !t.contains_key(k) {
            p.push(&s.key(k), "is required");
        }
    }
    s.finish(p);
    let (setting, metric, value) = (setting?, metric?, value?);
    Some(Published {
        setting,
        metric,
        value,
        source,
        note,
        tolerance,
        tolerance_abs,
    })
}

/// Reads a size class (`[tiny]` or `[paper]`, named by `k`); no overrides when absent.
fn read_size(k: &'static str, top: &mut Section<'_>, p: &mut Problems) -> Size {
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
}

/// Reads the `[engine]` section (the local engine when absent or invalid).
fn read_engine(top: &mut Section<'_>, p: &mut Problems) -> intruder_engine::EngineSpec {
    match top.table(p, "engine") {
        Some(t) => intruder_engine::EngineSpec::from_table(t).unwrap_or_else(|e| {
            p.push("engine", e.to_string());
            Default::default()
        }),
        None => Default::default(),
    }
}
