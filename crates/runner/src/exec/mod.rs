//! Execution: load (or generate) the data once, run every pending run in parallel, store each
//! run's raw outcome ([`RunRecord`]) as JSON under `runs/<id>.json`.

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use intruder_data::{Bitmap, Column, Table};
use intruder_eval::Labelled;
use rand::SeedableRng;
use rand::seq::index::sample;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

mod attack;
mod question;
mod risk;
mod study;
mod utility;

pub use study::{load_study, run_study, study_id, study_path};

use crate::RunnerError;
use crate::data::Loaded;
use crate::grid::to_json;
use crate::hash::{VERSION, derive_seed};
use crate::plan::{Plan, Run};
use crate::record::{CheckRecord, IntruderRecord, MaskingRecord, RunRecord, SearchRecord};
use crate::spec::Experiment;

/// The suffix of the truth copy of a sensitive variable in the intruder's truth.
pub const ORIGINAL_SUFFIX: &str = "@original";

fn blank(
    table: &Table,
    columns: &[String],
    share: f64,
    rng: &mut ChaCha20Rng,
) -> Result<Table, RunnerError> {
    use rand::Rng;
    let mut t = table.clone();
    for name in columns {
        let c = table.column(name)?;
        let mut missing: Bitmap = c.missing().clone();
        for i in 0..c.len() {
            if rng.r#gen::<f64>() < share {
                missing.set(i);
            }
        }
        let col = Column::new(name.clone(), c.role(), c.data().clone(), missing)?;
        t.replace(col)?;
    }
    Ok(t)
}

/// Runs one run and returns its raw outcome.
pub fn run_one(
    exp: &Experiment,
    plan: &Plan,
    run: &Run,
    data: &Loaded,
) -> Result<RunRecord, RunnerError> {
    let setting = &plan.settings[run.setting];
    let ctx = |e: RunnerError| RunnerError::Run {
        setting: setting.label.clone(),
        replicate: run.replicate,
        message: e.to_string(),
    };
    run_inner(exp, plan, run, data).map_err(ctx)
}

/// The control set of `[scenario] control` and the released population (the other records),
/// for one replicate.
#[derive(Debug)]
pub struct ControlSplit {
    /// The records the defences see, the release is made from, and the intruder's sample and
    /// every measure draw on.
    pub population: Labelled,
    /// The records reserved before any defence runs: the questions' control set.
    pub control: Labelled,
}

/// Splits the released file's original records into the control set (a seeded sample of
/// `[scenario] control` of them, drawn from the experiment seed and the replicate, so every
/// setting of a replicate shares it) and the released population (the other records, in their
/// order); `None` without a control share. The defences are given the population only: a
/// control record cannot reach a release.
pub fn control_split(
    exp: &Experiment,
    replicate: u32,
    released: &Labelled,
) -> Option<ControlSplit> {
    if exp.scenario.control <= 0.0 {
        return None;
    }
    let n = released.nrows();
    let k = crate::data::control_size(exp.scenario.control, n);
    let rep_key = format!("replicate-{replicate}");
    let mut rng = ChaCha20Rng::seed_from_u64(derive_seed(exp.seed, &rep_key, "control"));
    let mut in_control = vec![false; n];
    for i in sample(&mut rng, n, k) {
        in_control[i] = true;
    }
    let (control, population): (Vec<usize>, Vec<usize>) = (0..n).partition(|&i| in_control[i]);
    Some(ControlSplit {
        population: released.take(&population),
        control: released.take(&control),
    })
}

/// The truth ids (column `truth`) of `released` that are ids of `control` records, in
/// `released`'s order: empty unless a control record reached a release.
pub fn control_leaks(released: &Labelled, control: &Labelled, truth: &str) -> Vec<String> {
    let (Some(rel), Some(ctl)) = (
        released.truth().column(truth),
        control.truth().column(truth),
    ) else {
        return Vec::new();
    };
    let ids: HashSet<String> = (0..ctl.len())
        .filter_map(|i| ctl.text(i).map(|t| t.to_string()))
        .collect();
    (0..rel.len())
        .filter_map(|i| rel.text(i).map(|t| t.to_string()))
        .filter(|t| ids.contains(t))
        .collect()
}

/// The intruder's file of a replicate: a seeded sample of the source's original records, the
/// true original value of each scored sensitive variable kept in its truth, and the scenario's
/// measurement error applied.
fn draw_intruder(exp: &Experiment, rep_key: &str, src: &Labelled) -> Result<Labelled, RunnerError> {
    // 1. The intruder's records: a seeded sample of the source's original records. The sample
    //    depends on the replicate only, so every setting faces the same intruder (common random
    //    numbers across settings).
    let n_src = src.nrows();
    let m = match exp.scenario.intruder_n {
        Some(k) => (k as usize).min(n_src),
        None => ((exp.scenario.known * n_src as f64).round() as usize).min(n_src),
    };
    let mut rng = ChaCha20Rng::seed_from_u64(derive_seed(exp.seed, rep_key, "intruder"));
    let mut rows = sample(&mut rng, n_src, m).into_vec();
    rows.sort_unstable();
    let mut intruder = src.take(&rows);
    // The true original value of each sensitive variable, kept in the intruder's truth before
    // measurement error can change it (the attack never sees it: it gets the key columns).
    let mut sens_done = HashSet::new();
    for a in &exp.attacks {
        if let Some(s) = &a.sensitive
            && sens_done.insert(s.clone())
        {
            let mut c = intruder.table().column(s)?.clone();
            c.rename(format!("{s}{ORIGINAL_SUFFIX}"));
            intruder = intruder.with_truth(c)?;
        }
    }
    // 2. Measurement error on the intruder's copy (truth untouched).
    for (i, step) in exp.scenario.error.iter().enumerate() {
        let seed = derive_seed(exp.seed, rep_key, &format!("error-{i}"));
        if step.method == "blank" {
            let cols = intruder_defence::step_columns(&step.params);
            let p = step
                .params
                .get("p")
                .and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)))
                .unwrap_or(0.0);
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            let blanked = blank(intruder.table(), &cols, p, &mut rng)?;
            intruder = intruder.map_cells(|_| Ok(blanked))?;
        } else {
            let pipe = intruder_defence::Pipeline::single(
                &step.method,
                step.params.clone(),
                &format!("scenario.error[{}]", i + 1),
            )?;
            let (t, log) = pipe.run(intruder.table(), seed)?;
            intruder = intruder.release(t, &log)?;
        }
    }
    Ok(intruder)
}

/// A run's release and intruder: the control set held back, the intruder's file drawn (with
/// measurement error, and the release's public recodings when the scenario aligns them), and
/// the setting's pipeline applied to the released population.
struct Release {
    /// The control set and the released population, with a control share.
    split: Option<ControlSplit>,
    /// The intruder's file as the attacks see it.
    intruder: Labelled,
    /// The setting's pipeline.
    pipeline: intruder_defence::Pipeline,
    /// The masked release with its truth.
    masked: Labelled,
    /// What the pipeline changed.
    log: intruder_defence::ChangeLog,
}

impl Release {
    /// The released population before masking: the released file less the control set.
    fn original<'a>(&'a self, data: &'a Loaded) -> &'a Labelled {
        self.split
            .as_ref()
            .map_or(&data.released, |s| &s.population)
    }
}

/// Steps 0 to 3 of a run (control set, intruder, masking), as [`run_one`] takes them.
fn release(
    exp: &Experiment,
    plan: &Plan,
    run: &Run,
    data: &Loaded,
) -> Result<Release, RunnerError> {
    let setting = &plan.settings[run.setting];
    let rep_key = format!("replicate-{}", run.replicate);
    // 0. The control set, reserved before any defence: with one, the released population (the
    //    file the defences mask, the intruder draws from and every measure reads) is the rest.
    let split = control_split(exp, run.replicate, &data.released);
    let original = split.as_ref().map_or(&data.released, |s| &s.population);
    let src = match &data.source {
        Some(source) => source,
        None => original,
    };
    let mut intruder = draw_intruder(exp, &rep_key, src)?;
    // 3. Masking: the truth follows the defence's kept rows, whatever it did to the records; a
    //    synthetic release's records are no one (no twin, no control record).
    let pipeline = setting.pipeline_in(Some(&exp.base_dir))?;
    let (masked_table, log) =
        pipeline.run(original.table(), derive_seed(exp.seed, &run.key, "defence"))?;
    let masked = original.release(masked_table, &log)?;
    // The release is made from the population's rows only; checked all the same.
    if let Some(s) = &split {
        let leaks = control_leaks(&masked, &s.control, &exp.data.truth);
        if let Some(id) = leaks.first() {
            return Err(RunnerError::Invalid(format!(
                "{} control record(s) reached the release (first: '{id}'): the control set must stay out of every defence",
                leaks.len()
            )));
        }
    }
    // The intruder knows the published categories: deterministic recodings of the release are
    // applied to the intruder's copy too (scenario.align).
    if exp.scenario.align {
        let view = pipeline.intruder_view(intruder.table())?;
        intruder = intruder.map_cells(|_| Ok(view))?;
    }
    Ok(Release {
        split,
        intruder,
        pipeline,
        masked,
        log,
    })
}

/// One attack of one run redone record by record: what the stored run keeps only as counts.
#[derive(Debug)]
pub struct AttackRecords {
    /// The intruder's file as the attack saw it (with its truth, which the attack did not see).
    pub intruder: Labelled,
    /// The release the attack linked to (its twins only when the attack says so), with its
    /// truth.
    pub released: Labelled,
    /// The attack's keys: intruder column and released column.
    pub keys: intruder_attack::KeyMap,
    /// The attack's linkage and, for a fitted model (Fellegi–Sunter), the model.
    pub linked: intruder_attack::Linked,
    /// The evaluator's figures and per-record outcomes (chosen row, correct, twin rank).
    pub evaluation: intruder_eval::Evaluation,
    /// Per intruder record, whether the evaluator counts a declared link (a chosen candidate
    /// whose score reaches the attack's threshold), as the stored run counts them.
    pub declared: Vec<bool>,
}

/// Redoes the attack named `attack` of `run`: the same release, intruder, seeds and evaluation
/// as [`run_one`], so its per-record outcomes add up to the stored run's figures.
pub fn attack_records(
    exp: &Experiment,
    plan: &Plan,
    run: &Run,
    data: &Loaded,
    attack: &str,
) -> Result<AttackRecords, RunnerError> {
    let spec = exp
        .attacks
        .iter()
        .find(|a| a.name == attack)
        .ok_or_else(|| {
            RunnerError::Invalid(format!(
                "no attack '{attack}' in the experiment (it has {})",
                exp.attacks
                    .iter()
                    .map(|a| format!("'{}'", a.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
    let r = release(exp, plan, run, data)?;
    let done = attack::link_and_evaluate(exp, run, spec, &r.intruder, &r.masked)?;
    let released = match done.released {
        std::borrow::Cow::Owned(t) => t,
        std::borrow::Cow::Borrowed(_) => r.masked.clone(),
    };
    let declared = attack::declared_links(&done.evaluation, attack)?;
    Ok(AttackRecords {
        intruder: r.intruder,
        released,
        keys: done.keys,
        linked: done.linked,
        evaluation: done.evaluation,
        declared,
    })
}

fn run_inner(
    exp: &Experiment,
    plan: &Plan,
    run: &Run,
    data: &Loaded,
) -> Result<RunRecord, RunnerError> {
    let setting = &plan.settings[run.setting];
    let r = release(exp, plan, run, data)?;
    let Release {
        split,
        intruder,
        pipeline,
        masked,
        log,
    } = &r;
    let original = r.original(data);
    let src = match &data.source {
        Some(source) => source,
        None => original,
    };
    let n_src = src.nrows();
    // The setting's promises cross-examined on the whole release (scenario.check).
    let checks = if exp.scenario.check {
        let claims = pipeline.claims();
        let keys: Vec<String> = exp.scenario.released_keys();
        let x = intruder_eval::cross_examine_run(
            pipeline,
            original.table(),
            masked.table(),
            log,
            claims.is_empty().then_some(keys.as_slice()),
        )
        .map_err(|e| RunnerError::Invalid(e.to_string()))?;
        x.checks.iter().map(CheckRecord::of).collect()
    } else {
        Vec::new()
    };
    // a synthetic release holds no input record: every released record counts as changed
    let every_if_synthetic = |n: usize| log.synthetic.map_or(n, |_| log.rows_out);
    let masking = MaskingRecord {
        rows_in: log.rows_in,
        rows_out: log.rows_out,
        cells_changed: log.cells_changed,
        suppressions: log.suppressions,
        records_changed: every_if_synthetic(log.records_changed),
        records_recoded: log.records_recoded,
        records_changed_or_recoded: every_if_synthetic(log.records_changed_or_recoded),
    };
    // 4. Attacks, 5. risk, 6. utility: one that fails is recorded, the others kept.
    let mut failures = Vec::new();
    let attacks = attack::run_attacks(exp, run, intruder, masked, &mut failures)?;
    let risk = risk::run_risk(
        exp,
        masked.table(),
        src.table(),
        data.population.as_ref().map(|p| p.table()),
        &mut failures,
    )?;
    // utility compares on the released scale: the original through the public recodings
    let recoded = pipeline.intruder_view_of(original.table())?;
    let utility = utility::run_utility(
        exp,
        original.table(),
        &recoded,
        masked.table(),
        log,
        &mut failures,
    )?;
    // 7. The questions: the released population against its control set, no truth.
    let questions = match split {
        Some(s) => question::run_questions(
            exp,
            run,
            (original.table(), s.control.table(), masked.table()),
            |t| Ok(pipeline.intruder_view(t)?),
            &mut failures,
        )?,
        None => Vec::new(),
    };
    Ok(RunRecord {
        run: run.id.clone(),
        key: run.key.clone(),
        experiment: exp.name.clone(),
        version: VERSION.to_string(),
        seed: exp.seed,
        replicate: run.replicate,
        setting: setting.label.clone(),
        defence: setting.defence.clone(),
        params: setting.params.clone(),
        steps: setting
            .steps
            .iter()
            .map(|t| to_json(&toml::Value::Table(t.clone())))
            .collect(),
        intruder: IntruderRecord {
            source_records: n_src,
            records: intruder.nrows(),
        },
        masking,
        attacks,
        risk,
        utility,
        checks,
        questions,
        searches: log
            .steps
            .iter()
            .enumerate()
            .filter_map(|(i, st)| {
                let details = st.details.as_ref()?;
                details.get("frontier")?;
                Some(SearchRecord {
                    step: i + 1,
                    method: st.method.clone(),
                    details: details.clone(),
                })
            })
            .collect(),
        failures,
    })
}

/// Options of [`execute`].
#[derive(Debug, Clone, Default)]
pub struct ExecOptions {
    /// Rerun runs already stored.
    pub force: bool,
    /// Worker threads (`None` = rayon's default).
    pub threads: Option<usize>,
    /// Show a progress bar with ETA on stderr (hidden when stderr is not a terminal).
    pub progress: bool,
}

/// A run that failed as a whole (its masking or its measurement error could not be applied):
/// it is not stored, and the reports cover the other runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedRun {
    /// The run's stored-run id.
    pub run: String,
    /// The setting's label.
    pub setting: String,
    /// 0-based replicate.
    pub replicate: u32,
    /// What went wrong.
    pub message: String,
}

/// What [`execute`] did.
#[derive(Debug, Clone, Default)]
pub struct Executed {
    /// Runs executed and stored now.
    pub executed: usize,
    /// Runs that failed as a whole (not stored), in plan order.
    pub failed: Vec<FailedRun>,
}

impl Executed {
    /// The failures as one text: each distinct reason once, with the settings and replicates
    /// it hit (of `total` runs).
    pub fn failure_text(&self, total: usize) -> String {
        let mut errors: Vec<(String, Vec<(String, u32)>)> = Vec::new();
        for f in &self.failed {
            let at = (f.setting.clone(), f.replicate);
            match errors.iter_mut().find(|(m, _)| *m == f.message) {
                Some((_, list)) => list.push(at),
                None => errors.push((f.message.clone(), vec![at])),
            }
        }
        errors
            .into_iter()
            .map(|(msg, at)| format!("{msg}\n    (in {})", where_failed(&at, total)))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Runs every run of `plan` not yet stored under `out/runs/` (all with `force`). A run that
/// fails as a whole is not stored and is returned in [`Executed::failed`]: the other runs are
/// executed and stored all the same. An attack or measure that fails inside a run is recorded
/// in the run ([`crate::FailureRecord`]) and the run stored.
pub fn execute(
    exp: &Experiment,
    plan: &Plan,
    out: &Path,
    opts: &ExecOptions,
) -> Result<Executed, RunnerError> {
    execute_watched(exp, plan, out, opts, &Watch::default())
}

/// How far a run of the experiment has got, and whether its caller wants it stopped: the
/// web page of `intruder serve` polls it and asks for cancellation. Runs finished before a
/// cancellation are stored (a rerun reuses them); runs not started are not.
#[derive(Debug, Default)]
pub struct Watch {
    total: AtomicUsize,
    done: AtomicUsize,
    cancel: AtomicBool,
}

impl Watch {
    /// Runs finished and runs to execute now (stored runs left out).
    pub fn progress(&self) -> (usize, usize) {
        (
            self.done.load(Ordering::Relaxed),
            self.total.load(Ordering::Relaxed),
        )
    }

    /// Asks the runs not started yet not to start.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether cancellation was asked for.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// [`execute`], reporting progress to `watch` and stopping before any run not yet started
/// once `watch` is cancelled ([`RunnerError::Cancelled`]).
pub fn execute_watched(
    exp: &Experiment,
    plan: &Plan,
    out: &Path,
    opts: &ExecOptions,
    watch: &Watch,
) -> Result<Executed, RunnerError> {
    let runs_dir = out.join("runs");
    std::fs::create_dir_all(&runs_dir).map_err(|source| RunnerError::Io {
        path: runs_dir.clone(),
        source,
    })?;
    let pending: Vec<&Run> = plan
        .runs
        .iter()
        .filter(|r| opts.force || !runs_dir.join(format!("{}.json", r.id)).exists())
        .collect();
    watch.total.store(pending.len(), Ordering::Relaxed);
    if pending.is_empty() {
        return Ok(Executed::default());
    }
    let data = crate::data::load_data(exp, out)?;
    // Every column the experiment names is checked against the data before any run.
    let problems = crate::check::check_data(exp, plan, &data);
    if !problems.is_empty() {
        return Err(RunnerError::Spec {
            path: exp.path.clone(),
            problems,
        });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads.unwrap_or(0))
        .build()
        .map_err(|e| RunnerError::Invalid(format!("thread pool: {e}")))?;
    let bar = if opts.progress {
        let b = indicatif::ProgressBar::new(pending.len() as u64);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} runs, ETA {eta}",
        ) {
            b.set_style(style);
        }
        b.set_message(exp.name.clone());
        b
    } else {
        indicatif::ProgressBar::hidden()
    };
    let results: Vec<Result<(), RunnerError>> = pool.install(|| {
        pending
            .par_iter()
            .map(|run| {
                if watch.cancelled() {
                    return Err(RunnerError::Cancelled);
                }
                let raw = run_one(exp, plan, run, &data)?;
                let path = runs_dir.join(format!("{}.json", run.id));
                let text = serde_json::to_string(&raw)?;
                intruder_data::write_atomically(&path, |w| {
                    use std::io::Write;
                    w.write_all(text.as_bytes())?;
                    w.write_all(b"\n")
                })?;
                bar.inc(1);
                watch.done.fetch_add(1, Ordering::Relaxed);
                Ok(())
            })
            .collect()
    });
    bar.finish_and_clear();
    if watch.cancelled() {
        return Err(RunnerError::Cancelled);
    }
    let mut done = Executed::default();
    for (run, r) in pending.iter().zip(results) {
        match r {
            Ok(()) => done.executed += 1,
            Err(e) => done.failed.push(FailedRun {
                run: run.id.clone(),
                setting: plan.settings[run.setting].label.clone(),
                replicate: run.replicate,
                message: match e {
                    RunnerError::Run { message, .. } => message,
                    other => other.to_string(),
                },
            }),
        }
    }
    Ok(done)
}

/// Where a failure happened, for its message: every run, or the settings with their replicates.
fn where_failed(at: &[(String, u32)], total: usize) -> String {
    if at.len() == total && total > 1 {
        return format!("every setting and replicate, {total} runs");
    }
    let mut by: Vec<(&str, Vec<u32>)> = Vec::new();
    for (s, r) in at {
        match by.iter_mut().find(|(x, _)| x == s) {
            Some((_, v)) => v.push(*r),
            None => by.push((s, vec![*r])),
        }
    }
    by.iter()
        .map(|(s, reps)| {
            let mut reps = reps.clone();
            reps.sort_unstable();
            format!(
                "setting '{s}', replicate{} {}",
                if reps.len() == 1 { "" } else { "s" },
                reps.iter()
                    .map(|r| (r + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Reads the stored raw outcome of every run of the plan, in plan order; a stored run that does
/// not read as a run record is an error naming the file.
pub fn load_runs(plan: &Plan, out: &Path) -> Result<Vec<RunRecord>, RunnerError> {
    plan.runs
        .iter()
        .map(|r| {
            let path = out.join("runs").join(format!("{}.json", r.id));
            let text = std::fs::read_to_string(&path).map_err(|source| RunnerError::Io {
                path: path.clone(),
                source,
            })?;
            serde_json::from_str(&text).map_err(|e| RunnerError::Json {
                path,
                message: e.to_string(),
            })
        })
        .collect()
}
