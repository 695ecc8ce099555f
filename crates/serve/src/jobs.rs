//! Experiments run in the background: each job runs the experiment runner on a thread of its
//! own, into a directory of the session, and the page polls its progress, may cancel it, and
//! gets its results — the per-setting figures (`results.json`'s `settings`), the runner's SVG
//! figures (the risk–utility map first), the headline and verdict tables and the warnings.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use intruder_runner::{
    Done, Experiment, Loaded, Plan, RunOptions, RunnerError, TableData, Watch, headline_table,
    run_experiment_watched,
};
use serde_json::{Value, json};

use crate::records::{RecordsKey, RecordsView};

/// A records view computed once, shared by the requests that wait for it.
type RecordsCell = Arc<OnceLock<Result<Arc<RecordsView>, String>>>;

/// How many records views a job keeps in memory (each holds the intruder's file, the release
/// and the linkage of one attack): the oldest asked for is dropped first.
pub const RECORDS_KEPT: usize = 4;

/// The few values asked for last, by key: at most `capacity`, the oldest dropped first.
pub struct Recent<K, V> {
    capacity: usize,
    values: HashMap<K, V>,
    order: VecDeque<K>,
}

impl<K: std::hash::Hash + Eq + Clone, V: Clone + Default> Recent<K, V> {
    /// An empty store of at most `capacity` values.
    pub fn new(capacity: usize) -> Self {
        Recent {
            capacity,
            values: HashMap::new(),
            order: VecDeque::new(),
        }
    }

    /// The value of `key`, a default one stored first when there is none (dropping the oldest
    /// beyond the capacity).
    pub fn get_or_default(&mut self, key: K) -> V {
        if let Some(v) = self.values.get(&key) {
            return v.clone();
        }
        let v = V::default();
        self.values.insert(key.clone(), v.clone());
        self.order.push_back(key);
        while self.order.len() > self.capacity {
            if let Some(old) = self.order.pop_front() {
                self.values.remove(&old);
            }
        }
        v
    }

    /// Forgets every value.
    pub fn clear(&mut self) {
        self.values.clear();
        self.order.clear();
    }

    /// How many values are kept.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Where a job is.
#[derive(Debug, Clone)]
pub enum State {
    /// Running.
    Running,
    /// Finished: the results the page shows.
    Done(Arc<Value>),
    /// Failed, with the runner's message.
    Failed(String),
    /// Cancelled by the page.
    Cancelled,
}

/// One experiment running or run.
pub struct Job {
    /// The runner's progress and cancellation.
    pub watch: Watch,
    /// Where it is.
    state: Mutex<State>,
    /// Its output directory (its runs, and the last `report.html` written there).
    pub out: PathBuf,
    /// Its own copy of the report, taken as it finished (a later job into the same `out`
    /// rewrites `report.html`).
    pub report: PathBuf,
    /// The experiment it runs.
    pub exp: Experiment,
    /// The plan, once the experiment is done.
    plan: OnceLock<Plan>,
    /// The experiment's data, loaded once for the records views (until forgotten).
    data: Mutex<Option<Arc<Loaded>>>,
    /// The records views asked for last, each computed once ([`crate::records`]).
    records: Mutex<Recent<RecordsKey, RecordsCell>>,
}

impl Job {
    /// A job of `exp` writing into `out`, running.
    fn new(exp: Experiment, out: PathBuf, report: PathBuf) -> Job {
        Job {
            watch: Watch::default(),
            state: Mutex::new(State::Running),
            out,
            report,
            exp,
            plan: OnceLock::new(),
            data: Mutex::new(None),
            records: Mutex::new(Recent::new(RECORDS_KEPT)),
        }
    }

    /// The plan of a finished experiment (`None` while it runs, or when it failed or was
    /// cancelled).
    pub fn plan(&self) -> Option<&Plan> {
        match self.state() {
            State::Done(_) => self.plan.get(),
            _ => None,
        }
    }

    /// The experiment's data as its runs read them, loaded on first use.
    pub fn data(&self) -> Result<Arc<Loaded>, String> {
        let mut data = self.data.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = &*data {
            return Ok(d.clone());
        }
        let d =
            Arc::new(intruder_runner::load_data(&self.exp, &self.out).map_err(|e| e.to_string())?);
        *data = Some(d.clone());
        Ok(d)
    }

    /// Drops the data and records views kept in memory (a later request computes them again).
    pub fn forget_records(&self) {
        *self.data.lock().unwrap_or_else(|e| e.into_inner()) = None;
        self.records
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// The records view of `key`: computed by `compute` on the first request, then from
    /// memory (a second request while it is computed waits for it).
    pub fn records(
        &self,
        key: RecordsKey,
        compute: impl FnOnce() -> Result<RecordsView, String>,
    ) -> Result<Arc<RecordsView>, String> {
        let cell = self
            .records
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_default(key);
        cell.get_or_init(|| compute().map(Arc::new)).clone()
    }

    /// Where it is now.
    pub fn state(&self) -> State {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Its state as the page polls it: `running` with runs done and to do, `done` with the
    /// results, `failed` with the message, `cancelled`.
    pub fn status_json(&self, id: u64) -> Value {
        let (done, total) = self.watch.progress();
        match self.state() {
            State::Running => json!({"id": id, "state": "running", "done": done, "total": total}),
            State::Done(r) => {
                json!({"id": id, "state": "done", "done": done, "total": total, "result": *r})
            }
            State::Failed(m) => json!({"id": id, "state": "failed", "error": m}),
            State::Cancelled => {
                json!({"id": id, "state": "cancelled", "done": done, "total": total})
            }
        }
    }
}

/// The jobs of a session.
#[derive(Default)]
pub struct Jobs {
    next: AtomicU64,
    jobs: Mutex<HashMap<u64, Arc<Job>>>,
}

impl Jobs {
    /// Starts running `exp` on a thread of its own into `runs/<experiment name>/<data>/`
    /// ([`run_dir`]), the same directory for every run of that name on those data in the
    /// session: runs stored by an earlier run are reused (their ids hash the resolved
    /// configuration and the data), so a setting added to the session runs alone and the map
    /// fills in; two pages (two browsers) on different data run apart even under the same
    /// name. The records views of earlier jobs are dropped from memory (asked for again, they
    /// are computed again). Returns the job's number, or an error when an experiment of that
    /// name on those data is still running.
    pub fn start(&self, exp: Experiment, runs: &Path) -> Result<u64, String> {
        let out = run_dir(runs, &exp);
        let mut jobs = self.lock();
        if jobs
            .values()
            .any(|j| j.out == out && matches!(j.state(), State::Running))
        {
            return Err(format!(
                "the experiment '{}' is still running on these data: wait for it or cancel it",
                exp.name
            ));
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let report = out.join(format!("report-job{id}.html"));
        let job = Arc::new(Job::new(exp, out, report));
        let earlier: Vec<Arc<Job>> = jobs.values().cloned().collect();
        jobs.insert(id, job.clone());
        drop(jobs);
        // the page looks at the records of its last run: the earlier runs' leave memory
        for j in earlier {
            j.forget_records();
        }
        std::thread::spawn(move || {
            let opts = RunOptions {
                out: Some(job.out.clone()),
                force: false,
                threads: None,
                progress: false,
            };
            let result = run_experiment_watched(&job.exp, &opts, &job.watch);
            let state = match result {
                // the report is copied while the job still counts as running, so no other job
                // into the same directory can rewrite `report.html` before
                Ok(done) => {
                    let _ = std::fs::copy(job.out.join("report.html"), &job.report);
                    let _ = job.plan.set(done.plan.clone());
                    State::Done(Arc::new(results_json(&job.exp, &done)))
                }
                Err(RunnerError::Cancelled) => State::Cancelled,
                Err(e) => State::Failed(e.to_string()),
            };
            *job.state.lock().unwrap_or_else(|e| e.into_inner()) = state;
        });
        Ok(id)
    }

    /// The job numbered `id`.
    pub fn get(&self, id: u64) -> Option<Arc<Job>> {
        self.lock().get(&id).cloned()
    }

    /// The map, even after a panic elsewhere poisoned the lock.
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Job>>> {
        self.jobs.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The directory an experiment runs into: `runs/<name>/<data>`, `<data>` a hash of its data
/// section and the directory its paths resolve from (stable within a session), followed by
/// the engine's name when it is not the local engine (`data-…-datafusion`): stored runs are
/// reused on the engine they ran on only.
pub fn run_dir(runs: &Path, exp: &Experiment) -> PathBuf {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{:?}", exp.data).hash(&mut h);
    exp.base_dir.hash(&mut h);
    let dir = runs.join(&exp.name);
    match &exp.engine.engine {
        intruder_engine::Engine::Local => dir.join(format!("data-{:016x}", h.finish())),
        // a run asked of another engine runs there, rather than reusing the local one's
        other => {
            let name: String = other
                .label()
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            dir.join(format!("data-{:016x}-{name}", h.finish()))
        }
    }
}

/// A rendered table as JSON.
fn table_json(t: &TableData) -> Value {
    json!({"title": t.title, "header": t.header, "rows": t.rows})
}

/// What the page shows of a finished experiment: the per-setting figures as `results.json`
/// has them (`settings`), the SVG figures (the risk–utility map first), the headline and
/// verdict tables, the generalisation frontiers' tables, the runner's warnings and failed runs, and the replicates and attacks
/// (name, method) whose records the page may ask for.
pub fn results_json(exp: &Experiment, done: &Done) -> Value {
    let w = &done.written;
    let mut plots: Vec<&(String, String, String)> = w.plots.iter().collect();
    plots.sort_by_key(|(file, _, _)| file != "risk-utility.svg");
    let plots: Vec<Value> = plots
        .into_iter()
        .map(|(file, caption, svg)| json!({"file": file, "caption": caption, "svg": svg}))
        .collect();
    let mut warnings = done.warnings.clone();
    warnings.extend(w.verdict_warnings.iter().cloned());
    json!({
        "experiment": exp.name,
        "settings": w.results,
        "plots": plots,
        "headline": headline_table(exp, &w.results).as_ref().map(table_json),
        "verdict": w.verdict.as_ref().map(table_json),
        "frontiers": w.frontiers.iter().map(table_json).collect::<Vec<_>>(),
        "warnings": warnings,
        "failed": done.failed.failure_text(done.plan.runs.len()),
        "runs": done.plan.runs.len(),
        "replicates": exp.replicates,
        "attacks": exp.attacks.iter().map(|a| json!({"name": a.name, "method": a.method})).collect::<Vec<_>>(),
        "executed": done.executed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recent_store_keeps_the_last_values_asked_for() {
        let mut r: Recent<&str, Arc<OnceLock<u32>>> = Recent::new(2);
        let a = r.get_or_default("a");
        a.set(1).unwrap();
        assert_eq!(r.get_or_default("a").get(), Some(&1), "kept: the same cell");
        r.get_or_default("b");
        r.get_or_default("c");
        assert_eq!(r.len(), 2);
        assert_eq!(r.get_or_default("a").get(), None, "dropped: a new cell");
        assert_eq!(a.get(), Some(&1), "a cell in use lives on");
        r.clear();
        assert!(r.is_empty());
    }
}
