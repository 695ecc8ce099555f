//! The study of a `[longitudinal]` section: run once on the experiment's data directory (its
//! raw result stored as `OUT/longitudinal/<id>.json`, the id hashing the study's resolved
//! configuration, the data's fingerprint, the experiment seed and the toolkit version), reused
//! unless forced.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::RunnerError;
use crate::hash::{VERSION, fnv1a};
use crate::spec::Experiment;
use crate::study::Study;

/// The id of the stored study.
pub fn study_id(exp: &Experiment, study: &dyn Study, fingerprint: &str) -> String {
    let key = json!({
        "study": study.name(),
        "section": study.identity(),
        "data": fingerprint,
        "seed": exp.seed,
        "version": VERSION,
    })
    .to_string();
    format!("{:016x}", fnv1a(key.as_bytes()))
}

/// Where the study's raw result is stored: `OUT/longitudinal/<id>.json`.
pub fn study_path(exp: &Experiment, study: &dyn Study, fingerprint: &str, out: &Path) -> PathBuf {
    out.join("longitudinal")
        .join(format!("{}.json", study_id(exp, study, fingerprint)))
}

/// Runs the experiment's study unless it is stored already (always with `force`); returns
/// whether it ran.
pub fn run_study(
    exp: &Experiment,
    fingerprint: &str,
    out: &Path,
    force: bool,
) -> Result<bool, RunnerError> {
    let Some(study) = &exp.study else {
        return Ok(false);
    };
    let path = study_path(exp, &**study, fingerprint, out);
    if path.exists() && !force {
        return Ok(false);
    }
    let dir = crate::data::data_dir(exp, out)?;
    let result = study.run(&dir)?;
    let stored = json!({
        "study": study.name(),
        "id": study_id(exp, &**study, fingerprint),
        "experiment": exp.name,
        "version": VERSION,
        "seed": exp.seed,
        "data": fingerprint,
        "files": study.files(),
        "result": result,
    });
    let text = serde_json::to_string(&stored)?;
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| RunnerError::Io {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    intruder_data::write_atomically(&path, |w| {
        use std::io::Write;
        w.write_all(text.as_bytes())?;
        w.write_all(b"\n")
    })?;
    Ok(true)
}

/// Reads the stored raw result of the experiment's study (the `result` field of its file).
pub fn load_study(
    exp: &Experiment,
    study: &dyn Study,
    fingerprint: &str,
    out: &Path,
) -> Result<Value, RunnerError> {
    let path = study_path(exp, study, fingerprint, out);
    let text = std::fs::read_to_string(&path).map_err(|source| RunnerError::Io {
        path: path.clone(),
        source,
    })?;
    let mut v: Value = serde_json::from_str(&text).map_err(|e| RunnerError::Json {
        path: path.clone(),
        message: e.to_string(),
    })?;
    match v.get_mut("result") {
        Some(r) => Ok(r.take()),
        None => Err(RunnerError::Json {
            path,
            message: "no 'result' field".into(),
        }),
    }
}
