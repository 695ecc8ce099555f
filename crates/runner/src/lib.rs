//! `intruder-runner`: experiments from a TOML file — data, the intruder's knowledge, a grid of
//! defences, attacks, risk and utility measures, replicates and a seed — run reproducibly, with
//! tables and plots a methodologist can paste into a paper.
//!
//! # Shape
//! - [`Experiment::from_file`] reads and validates the file (unknown keys, wrong types, unknown
//!   methods, missing seed: every problem at once, each with its key path).
//! - [`Plan::new`] expands the defence grids: a step parameter given as a list where the method
//!   expects one value (or as a list of lists where it expects a list) is a grid dimension; each
//!   resolved setting × replicate is one [`Run`], keyed by an FNV-1a hash of the resolved
//!   configuration, the replicate and the toolkit version.
//! - [`execute`] runs every run not yet stored under `OUT/runs/<id>.json` (all with `force`)
//!   in parallel. Every random step's seed derives from (experiment seed, run key, step name)
//!   through [`derive_seed`], never from a thread id, so output is byte-identical whatever the
//!   thread count. The intruder's sample and measurement error depend on the replicate only, so
//!   every defence setting faces the same intruder (common random numbers); masking and tie
//!   breaks depend on the run.
//! - [`metrics`] computes every figure from a stored raw outcome (attacks' per-record outcomes,
//!   the risk summary, utility measures), so a new metric needs no rerun.
//! - [`write_reports`] writes `results.csv`, `results.json`, `summary.md`, SVG figures and a
//!   self-contained `report.html`. They lead with the intruder's own question — correct
//!   re-identifications per target, every record it holds ([`HEADLINE`]) — then per attack the
//!   rate per twin and the precision of its declared links, risk against each numeric grid
//!   parameter, and the risk–utility map (information loss counting removed records too). An
//!   attack's shares are pooled over replicates with an interval that carries the variation
//!   between them (Wilson alone for one replicate), other figures get a
//!   t-interval clipped to their range ([`Stat`]); every figure shown has a glossary entry
//!   ([`glossary`]) whose human name titles axes, legends and columns. The figures are laid
//!   out as [`Figure`]s (points, labels, legend rectangles) before they are drawn, so tests
//!   check the layout itself. `summary.md` and `report.html` are rendered from the templates in
//!   `crates/runner/templates/` (askama, checked when the crate compiles); askama's HTML escaper
//!   is the one escape of every text in the report and in the figures' SVG.
//!
//! # The scenario
//! The released file is the masked original. The intruder's file is a seeded sample of the
//! ORIGINAL records of the intruder's source (the released file before masking by default, or
//! another file the generator wrote: a population, a survey, a second wave, file B), optionally
//! with measurement error (any defence method — `round`, `pram`, `noise`, `global-recode` — or
//! `blank`, cells set missing at random). Truth columns stay intact so the evaluator can score.
//!
//! # The questions
//! `[[question]]` tables ask the three questions of anonymisation (singling out, linkability,
//! inference; anonymeter's definitions) of every run's release through the facade
//! (`intruder::questions::ask`), with no ground truth. They need a control set:
//! `[scenario] control` holds a seeded share of the released file's original records back before
//! any defence runs ([`control_split`], drawn from the seed and the replicate). With a control
//! share the released population is the rest: the defences mask only it (the defence input is
//! built from its rows, so a control record cannot reach a release), the intruder draws from it,
//! and every measure reads it. Each question attacks the population's records, the same attack
//! runs against the control set, a baseline guesses; the figures are metrics
//! `question.<name>.<figure>` and the report's section "The three questions" shows the risks
//! beside the attacks' rates per twin.
//!
//! ```no_run
//! use intruder_runner::{Experiment, RunOptions, run_experiment};
//! let exp = Experiment::from_file("experiments/quickstart.toml".as_ref()).unwrap();
//! let done = run_experiment(&exp, &RunOptions::default()).unwrap();
//! println!("{}", done.out_dir.display());
//! ```
#![deny(missing_docs)]

// Layers, each importing only the ones above it in this list (a test checks there is no cycle):
// hash, reader, table, stats, record → grid, metrics, study → spec → glossary, plan, data →
// check, exec → aggregate → plot → report → this file.
mod aggregate;
mod check;
mod data;
mod exec;
mod glossary;
mod grid;
mod hash;
pub mod linkage;
mod markup;
mod metrics;
mod plan;
mod plot;
mod reader;
mod record;
mod report;
mod search;
mod spec;
mod stats;
mod study;
mod table;

use std::path::{Path, PathBuf};

use intruder_data::params::Problem;

pub use aggregate::{
    ATTACK_TABLE, ATTACK_TIES_TABLE, HEADLINE, MetricStat, SettingResult, aggregate,
    headline_table, published_table, shown_metrics, summary_tables,
};
pub use check::check_data;
pub use data::{Loaded, control_size, data_dir, fingerprint, load_data, load_data_readonly};
pub use exec::{
    AttackRecords, ControlSplit, ExecOptions, Executed, FailedRun, ORIGINAL_SUFFIX, Watch,
    attack_records, control_leaks, control_split, execute, execute_watched, load_runs, load_study,
    run_one, run_study, study_id, study_path,
};
pub use glossary::{
    GlossaryEntry, entry as glossary_entry, figure_name, glossary, human_name, measure_figure,
};
pub use grid::{BLANK_PARAMS, DefenceSpec, Setting, expand_defence, is_grid};
pub use hash::{Fnv, VERSION, derive_seed, fnv1a};
pub use metrics::{
    ATTACK_FIGURES, FigureDoc, MASKING_FIGURES, attack_metrics, metrics, question_figures,
};
pub use plan::{Plan, Run};
pub use plot::{
    Figure, LabelEl, LegendEl, MapPoint, PointEl, Rect, map_plot, pareto, place_labels, plots,
    spans_decades,
};
pub use record::{
    AttackOutcomes, AttackRecord, CheckRecord, CheckRuleRecord, EvaluatorCounts, FailureRecord,
    IntruderRecord, MaskingRecord, Metric, MetricId, QuestionRecord, RECORD_SCHEMA, RiskRecord,
    RunRecord, Scope, UtilityRecord,
};
pub use report::{HOW_TO_READ, INTERVALS_TEXT, Written, shown_in_report, write_reports};
pub use spec::{
    AttackSpec, DataSource, DataSpec, ErrorStep, Experiment, Published, QuestionSpec, ReportSpec,
    RiskFile, RiskSpec, Scenario, Size, UtilitySpec,
};
pub use stats::{IntervalKind, Stat, cell_unit, fmt, fmt_unit, sig3, wilson};
pub use study::{LongitudinalPublished, LongitudinalSpec, STUDIES, Study, StudyBox, StudyEntry};
pub use table::TableData;

/// An error of the runner.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunnerError {
    /// A file could not be read or written.
    #[error("{path}: {source}", path = path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The experiment file has problems (all of them listed).
    #[error("{path}: {} problem{}:\n  - {}", problems.len(), if problems.len() == 1 { "" } else { "s" }, problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  - "), path = path.display())]
    Spec {
        /// The experiment file.
        path: PathBuf,
        /// Every problem, with its key path.
        problems: Vec<Problem>,
    },
    /// A stored run cannot be read.
    #[error("{path}: not a stored run: {message}", path = path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The engine of `[engine]` could not run a measure or an attack.
    #[error(transparent)]
    Engine(#[from] intruder_engine::EngineError),
    /// A run failed.
    #[error("setting '{setting}', replicate {replicate}: {message}")]
    Run {
        /// The setting.
        setting: String,
        /// The replicate.
        replicate: u32,
        /// What failed.
        message: String,
    },
    /// Data model.
    #[error(transparent)]
    Data(#[from] intruder_data::DataError),
    /// Generator.
    #[error(transparent)]
    Synth(#[from] intruder_synth::SynthError),
    /// Defence.
    #[error(transparent)]
    Defence(#[from] intruder_defence::DefenceError),
    /// Attack.
    #[error(transparent)]
    Attack(#[from] intruder_attack::AttackError),
    /// Attack parameters.
    #[error(transparent)]
    AttackParam(#[from] intruder_attack::ParamError),
    /// Risk.
    #[error(transparent)]
    Risk(#[from] intruder_risk::RiskError),
    /// Utility.
    #[error(transparent)]
    Utility(#[from] intruder_utility::UtilityError),
    /// Serialisation.
    #[error("JSON: {0}")]
    Serde(#[from] serde_json::Error),
    /// A plot could not be drawn.
    #[error("plot: {0}")]
    Plot(String),
    /// Anything else, explained.
    #[error("{0}")]
    Invalid(String),
    /// The caller cancelled the experiment ([`Watch::cancel`]); the runs finished before are
    /// stored.
    #[error("cancelled: the runs finished before are stored, the others were not started")]
    Cancelled,
}

/// Options of [`run_experiment`].
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Output directory (default `results/<experiment name>/` under the working directory).
    pub out: Option<PathBuf>,
    /// Rerun stored runs.
    pub force: bool,
    /// Worker threads.
    pub threads: Option<usize>,
    /// Progress bar on stderr.
    pub progress: bool,
}

/// What [`run_experiment`] did.
#[derive(Debug, Clone)]
pub struct Done {
    /// The output directory.
    pub out_dir: PathBuf,
    /// The plan.
    pub plan: Plan,
    /// Runs executed now (the others were stored already).
    pub executed: usize,
    /// Whether the `[longitudinal]` study ran now (false: none declared, or stored already).
    pub study_ran: bool,
    /// The reports.
    pub written: Written,
    /// The evaluator's warnings of every run's attacks (executed now or stored), each once,
    /// naming the run's setting, replicate and attack; and every attack or measure that failed
    /// inside a run (its other outcomes kept), naming the setting, replicate and reason.
    pub warnings: Vec<String>,
    /// Runs that failed as a whole (not stored; the reports cover the others). The caller
    /// reports them as an error once the reports are written ([`Executed::failure_text`]).
    pub failed: Executed,
}

/// The default output directory of an experiment.
pub fn default_out(exp: &Experiment) -> PathBuf {
    Path::new("results").join(&exp.name)
}

/// What `--dry-run` finds: the plan, and how many of its runs are stored.
#[derive(Debug, Clone)]
pub struct DryRun {
    /// The plan.
    pub plan: Plan,
    /// Runs stored under `OUT/runs/` already.
    pub stored: usize,
    /// The data's fingerprint.
    pub fingerprint: String,
}

/// Validates an experiment against its data without running anything or writing under `out`:
/// checks every column the experiment names (kinds, and the levels a recode map names,
/// included) against the files' columns — read from the data files, or for a generator whose
/// data are not stored yet, its declared schemas, so that nothing is generated — and plans the
/// runs. Every problem at once, as [`RunnerError::Spec`].
pub fn dry_run(exp: &Experiment, out: &Path) -> Result<DryRun, RunnerError> {
    let fingerprint = fingerprint(exp)?;
    let plan = Plan::new(exp, &fingerprint).map_err(RunnerError::Invalid)?;
    let problems = match check::declared_columns(exp, out)? {
        Some(columns) => check::check_columns(exp, &plan, &columns),
        None => check_data(exp, &plan, &load_data_readonly(exp, out)?),
    };
    if !problems.is_empty() {
        return Err(RunnerError::Spec {
            path: exp.path.clone(),
            problems,
        });
    }
    let stored = plan
        .runs
        .iter()
        .filter(|r| out.join("runs").join(format!("{}.json", r.id)).exists())
        .count();
    Ok(DryRun {
        plan,
        stored,
        fingerprint,
    })
}

/// Plans, checks the data, executes (skipping stored runs unless `force`) and writes the
/// reports.
pub fn run_experiment(exp: &Experiment, opts: &RunOptions) -> Result<Done, RunnerError> {
    run_experiment_watched(exp, opts, &Watch::default())
}

/// [`run_experiment`], reporting the runs' progress to `watch` and stopping before the
/// reports when it is cancelled ([`RunnerError::Cancelled`]).
pub fn run_experiment_watched(
    exp: &Experiment,
    opts: &RunOptions,
    watch: &Watch,
) -> Result<Done, RunnerError> {
    let fingerprint = fingerprint(exp)?;
    let plan = Plan::new(exp, &fingerprint).map_err(RunnerError::Invalid)?;
    let out = opts.out.clone().unwrap_or_else(|| default_out(exp));
    std::fs::create_dir_all(&out).map_err(|source| RunnerError::Io {
        path: out.clone(),
        source,
    })?;
    let executed = execute_watched(
        exp,
        &plan,
        &out,
        &ExecOptions {
            force: opts.force,
            threads: opts.threads,
            progress: opts.progress,
        },
        watch,
    )?;
    if !plan.runs.is_empty() && executed.failed.len() == plan.runs.len() {
        return Err(RunnerError::Invalid(executed.failure_text(plan.runs.len())));
    }
    // The reports cover every run that is stored; runs that failed as a whole are listed.
    let failed_ids: std::collections::HashSet<&str> =
        executed.failed.iter().map(|f| f.run.as_str()).collect();
    let stored = Plan {
        settings: plan.settings.clone(),
        runs: plan
            .runs
            .iter()
            .filter(|r| !failed_ids.contains(r.id.as_str()))
            .cloned()
            .collect(),
    };
    let study_ran = run_study(exp, &fingerprint, &out, opts.force)?;
    let runs = load_runs(&stored, &out)?;
    let written = write_reports(exp, &stored, &runs, &fingerprint, &out, &executed.failed)?;
    let mut warnings: Vec<String> = Vec::new();
    for run in &runs {
        for a in &run.attacks {
            for w in &a.warnings {
                let w = format!(
                    "setting '{}', replicate {}, attack '{}': {w}",
                    run.setting,
                    run.replicate + 1,
                    a.name
                );
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
        }
        for q in &run.questions {
            for w in &q.warnings {
                let w = format!(
                    "setting '{}', replicate {}, question '{}': {w}",
                    run.setting,
                    run.replicate + 1,
                    q.name
                );
                if !warnings.contains(&w) {
                    warnings.push(w);
                }
            }
        }
        for f in &run.failures {
            let w = format!(
                "setting '{}', replicate {}: {} failed (its figures are left out; the others are kept): {}",
                run.setting,
                run.replicate + 1,
                f.what(),
                f.message
            );
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
    }
    let executed_now = executed.executed;
    Ok(Done {
        out_dir: out,
        plan,
        executed: executed_now,
        study_ran,
        written,
        warnings,
        failed: executed,
    })
}
