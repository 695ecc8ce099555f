//! Execution: load (or generate) the data once, run every pending run in parallel, store each
//! run's raw outcome as JSON under `runs/`.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use intruder_data::{Bitmap, Column, Dataset, ReadOptions, Schema, Table, Truth, read_csv};
use rand::SeedableRng;
use rand::seq::index::sample;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use serde_json::{Value, json};

mod attack;
mod risk;
mod utility;

use crate::RunnerError;
use crate::plan::{Plan, Run, VERSION, derive_seed, fnv1a};
use crate::spec::{DataSource, Experiment};

/// The data of an experiment: the released file before masking and, when the intruder draws
/// from another file, that file.
#[derive(Debug)]
pub struct Loaded {
    /// The file that is masked and released (unmasked here).
    pub released: Dataset,
    /// The intruder's source file, when it is not the released file.
    pub source: Option<Dataset>,
}

impl Loaded {
    /// The intruder's source.
    pub fn source(&self) -> &Dataset {
        self.source.as_ref().unwrap_or(&self.released)
    }
}

fn schema_beside(csv: &Path) -> PathBuf {
    let name = csv
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name
        .strip_suffix(".csv.gz")
        .or_else(|| name.strip_suffix(".csv"))
        .unwrap_or(&name);
    csv.with_file_name(format!("{stem}.schema.toml"))
}

pub(crate) fn read_with_schema(csv: &Path, schema: Option<&Path>) -> Result<Dataset, RunnerError> {
    let schema_path = schema
        .map(Path::to_path_buf)
        .unwrap_or_else(|| schema_beside(csv));
    let mut opts = ReadOptions::default();
    if schema_path.exists() {
        opts.schema = Some(Schema::from_file(&schema_path)?);
    } else if schema.is_some() {
        return Err(RunnerError::Io {
            path: schema_path,
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "schema file not found"),
        });
    }
    Ok(read_csv(csv, &opts)?)
}

/// Loads the experiment's data, generating it under `out/data/` first when it comes from a
/// generator (reused on later runs: the directory name hashes the generator's configuration).
pub fn load_data(exp: &Experiment, out: &Path) -> Result<Loaded, RunnerError> {
    let d = &exp.data;
    let (dir, rel_schema, int_schema) = match &d.source {
        DataSource::Generator { .. } => (data_dir(exp, out)?, None, None),
        DataSource::Files => (
            exp.base_dir.clone(),
            d.released_schema.as_ref().map(|s| exp.base_dir.join(s)),
            d.intruder_schema.as_ref().map(|s| exp.base_dir.join(s)),
        ),
    };
    let released = read_with_schema(&dir.join(&d.released), rel_schema.as_deref())?;
    let source = match &d.intruder {
        Some(f) if f != &d.released || !d.intruder_where.is_empty() => Some(filter(
            read_with_schema(&dir.join(f), int_schema.as_deref())?,
            &d.intruder_where,
        )?),
        None if !d.intruder_where.is_empty() => Some(filter(
            read_with_schema(&dir.join(&d.released), rel_schema.as_deref())?,
            &d.intruder_where,
        )?),
        _ => None,
    };
    let released = filter(released, &d.released_where)?;
    Ok(Loaded { released, source })
}

/// The directory the experiment's data files are in: for a generator, `out/data/<name>-<hash>/`,
/// generated first when not complete (the hash covers the generator's configuration, the seed
/// and the toolkit version); for files, the experiment file's directory.
pub(crate) fn data_dir(exp: &Experiment, out: &Path) -> Result<PathBuf, RunnerError> {
    match &exp.data.source {
        DataSource::Generator { name, n, params } => {
            let key = format!(
                "{name}\u{1}{n:?}\u{1}{params:?}\u{1}{}\u{1}{VERSION}",
                exp.seed
            );
            let dir = out
                .join("data")
                .join(format!("{name}-{:016x}", fnv1a(key.as_bytes())));
            let marker = dir.join(".complete");
            if !marker.exists() {
                std::fs::create_dir_all(&dir).map_err(|source| RunnerError::Io {
                    path: dir.clone(),
                    source,
                })?;
                intruder_synth::run(name, *n, params, exp.seed, &dir)?;
                std::fs::write(&marker, key).map_err(|source| RunnerError::Io {
                    path: marker.clone(),
                    source,
                })?;
            }
            Ok(dir)
        }
        DataSource::Files => Ok(exp.base_dir.clone()),
    }
}

/// The records whose columns equal the given values (as text); truth columns may be named.
fn filter(ds: Dataset, conds: &[(String, String)]) -> Result<Dataset, RunnerError> {
    if conds.is_empty() {
        return Ok(ds);
    }
    let mut cols = Vec::new();
    for (name, value) in conds {
        let c = match ds.truth.column(name) {
            Some(c) => c,
            None => ds.table.column(name)?,
        };
        cols.push((c, value));
    }
    let rows: Vec<usize> = (0..ds.table.nrows())
        .filter(|&i| {
            cols.iter()
                .all(|(c, v)| c.text(i).is_some_and(|t| t == v.as_str()))
        })
        .collect();
    Ok(ds.take(&rows))
}

/// Deterministic recodings an intruder repeats on their own copy when `scenario.align` is on.
pub const ALIGNED: &[&str] = &["global-recode", "round", "top-bottom-code"];

/// The columns a step transforms: its `variables`, or the old name `columns` (a single name is a
/// list of one).
fn step_variables(step: &toml::Table) -> Vec<String> {
    match step.get("variables").or_else(|| step.get("columns")) {
        Some(toml::Value::String(s)) => vec![s.clone()],
        Some(toml::Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

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
) -> Result<Value, RunnerError> {
    let setting = &plan.settings[run.setting];
    let ctx = |e: RunnerError| RunnerError::Run {
        setting: setting.label.clone(),
        replicate: run.replicate,
        message: e.to_string(),
    };
    run_inner(exp, plan, run, data).map_err(ctx)
}

fn run_inner(
    exp: &Experiment,
    plan: &Plan,
    run: &Run,
    data: &Loaded,
) -> Result<Value, RunnerError> {
    let setting = &plan.settings[run.setting];
    let rep_key = format!("replicate-{}", run.replicate);
    // 1. The intruder's records: a seeded sample of the source's original records. The sample
    //    depends on the replicate only, so every setting faces the same intruder (common random
    //    numbers across settings).
    let src = data.source();
    let n_src = src.table.nrows();
    let m = match exp.scenario.intruder_n {
        Some(k) => (k as usize).min(n_src),
        None => ((exp.scenario.known * n_src as f64).round() as usize).min(n_src),
    };
    let mut rng = ChaCha20Rng::seed_from_u64(derive_seed(exp.seed, &rep_key, "intruder"));
    let mut rows = sample(&mut rng, n_src, m).into_vec();
    rows.sort_unstable();
    let mut intruder = src.table.take(&rows);
    let mut truth_cols: Vec<Column> = src.truth.take(&rows).columns().to_vec();
    let mut sens_done = HashSet::new();
    for a in &exp.attacks {
        if let Some(s) = &a.sensitive
            && sens_done.insert(s.clone())
        {
            let c = src.table.column(s)?.take(&rows);
            let mut c2 = c.clone();
            c2.rename(format!("{s}{ORIGINAL_SUFFIX}"));
            truth_cols.push(c2);
        }
    }
    let mut intruder_truth = Truth::new(truth_cols);
    // 2. Measurement error on the intruder's copy (truth untouched).
    for (i, step) in exp.scenario.error.iter().enumerate() {
        let seed = derive_seed(exp.seed, &rep_key, &format!("error-{i}"));
        if step.method == "blank" {
            let cols = step_variables(&step.params);
            let p = step
                .params
                .get("p")
                .and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)))
                .unwrap_or(0.0);
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            intruder = blank(&intruder, &cols, p, &mut rng)?;
        } else {
            let pipe = intruder_defence::Pipeline::single(
                &step.method,
                step.params.clone(),
                &format!("scenario.error[{}]", i + 1),
            )?;
            let (t, log) = pipe.run(&intruder, seed)?;
            if t.nrows() != intruder.nrows() {
                intruder_truth = intruder_truth.take(&log.kept_rows);
            }
            intruder = t;
        }
    }
    // 3. Masking.
    let pipeline = setting.pipeline()?;
    let (masked, log) = pipeline.run(
        &data.released.table,
        derive_seed(exp.seed, &run.id, "defence"),
    )?;
    let masked_truth = data.released.truth.take(&log.kept_rows);
    // The intruder knows the published categories: deterministic recodings of the release are
    // applied to the intruder's copy too (scenario.align).
    if exp.scenario.align {
        for (i, step) in setting.steps.iter().enumerate() {
            let method = step
                .get("method")
                .and_then(toml::Value::as_str)
                .unwrap_or("");
            if !ALIGNED.contains(&method) {
                continue;
            }
            let cols = step_variables(step);
            if cols.is_empty() || cols.iter().any(|c| intruder.position(c).is_none()) {
                continue;
            }
            let mut params = step.clone();
            params.remove("method");
            let pipe = intruder_defence::Pipeline::single(
                method,
                params,
                &format!("{} step {} (aligned)", setting.label, i + 1),
            )?;
            intruder = pipe.run(&intruder, 0)?.0;
        }
    }
    let masking = json!({
        "rows_in": log.rows_in,
        "rows_out": log.rows_out,
        "cells_changed": log.cells_changed,
        "suppressions": log.suppressions,
        "records_changed": log.records_changed,
    });
    // 4. Attacks.
    let attacks =
        attack::run_attacks(exp, run, &intruder, &intruder_truth, &masked, &masked_truth)?;
    // 5. Risk.
    let risk = risk::run_risk(exp, &masked, &src.table)?;
    // 6. Utility.
    let utility = utility::run_utility(exp, &data.released.table, &masked, &log.kept_rows)?;
    Ok(json!({
        "run": run.id,
        "experiment": exp.name,
        "version": VERSION,
        "seed": exp.seed,
        "replicate": run.replicate,
        "setting": setting.label,
        "defence": setting.defence,
        "params": setting.params.iter().map(|(k, v)| json!([k, v])).collect::<Vec<_>>(),
        "steps": setting.steps.iter().map(|t| crate::spec::to_json(&toml::Value::Table(t.clone()))).collect::<Vec<_>>(),
        "intruder": {"source_records": n_src, "records": intruder.nrows()},
        "masking": masking,
        "attacks": attacks,
        "risk": risk,
        "utility": utility,
    }))
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

/// Runs every run of `plan` not yet stored under `out/runs/` (all with `force`); returns how
/// many ran.
pub fn execute(
    exp: &Experiment,
    plan: &Plan,
    out: &Path,
    opts: &ExecOptions,
) -> Result<usize, RunnerError> {
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
    if pending.is_empty() {
        return Ok(0);
    }
    let data = load_data(exp, out)?;
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
                let raw = run_one(exp, plan, run, &data)?;
                let path = runs_dir.join(format!("{}.json", run.id));
                let text = serde_json::to_string(&raw)?;
                intruder_data::write_atomically(&path, |w| {
                    use std::io::Write;
                    w.write_all(text.as_bytes())?;
                    w.write_all(b"\n")
                })?;
                bar.inc(1);
                Ok(())
            })
            .collect()
    });
    bar.finish_and_clear();
    let mut errors: Vec<String> = Vec::new();
    for r in results {
        if let Err(e) = r {
            errors.push(e.to_string());
        }
    }
    if !errors.is_empty() {
        errors.sort();
        errors.dedup();
        return Err(RunnerError::Invalid(errors.join("\n")));
    }
    Ok(pending.len())
}

/// Reads the stored raw outcome of every run of the plan, in plan order.
pub fn load_runs(plan: &Plan, out: &Path) -> Result<Vec<Value>, RunnerError> {
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
