//! The values the paper puts beside published ones, as `paper/values.csv` rows
//! (`study,setting,metric,value`), shared by the paper example and the tests that check them
//! (`tests/paper_values.rs` at the `[paper]` size within each entry's tolerance,
//! `tests/paper_tiny.rs` at the `[tiny]` size exactly against `paper/values-tiny.csv`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use intruder_runner::{
    DataSource, Experiment, RunOptions, SettingResult, fingerprint, load_study, run_experiment,
};
use serde_json::Value;

/// The experiments whose values stand beside published ones, in the paper's order: their
/// `[[published]]` entries, and for a `[longitudinal]` study its baseline, Table 1 and
/// synthesis grid.
pub const VALUE_STUDIES: &[&str] = &[
    "mulder-liss",
    "mulder-liss-skips",
    "mulder-liss-languages",
    "bender-iab",
    "drug-survey-sampling",
    "mitra-longitudinal",
    "mitra-wide-wealth",
];

/// The repository's root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The experiment `name` at its `[paper]` size.
pub fn at_paper_size(name: &str) -> Result<Experiment, Box<dyn std::error::Error>> {
    let mut exp = Experiment::from_file(&root().join(format!("experiments/{name}.toml")))?;
    let size = exp.paper.clone();
    exp.resize(&size);
    Ok(exp)
}

/// The experiment `name` at its `[tiny]` size. A generated population beyond the tiny size
/// (`register-survey`'s `population`, 934,152 at every size in the file) is cut to 20,000
/// persons, so the check stays within seconds.
pub fn at_tiny_size(name: &str) -> Result<Experiment, Box<dyn std::error::Error>> {
    let mut exp = Experiment::from_file(&root().join(format!("experiments/{name}.toml")))?;
    let size = exp.tiny.clone();
    exp.resize(&size);
    if let DataSource::Generator { params, .. } = &mut exp.data.source {
        for p in params.iter_mut() {
            if p.starts_with("population=") {
                *p = "population=20000".into();
            }
        }
    }
    Ok(exp)
}

/// Keeps only what the published values need: the defence settings they name, the attacks
/// and risk measures whose figures they are, no report figures.
pub fn restrict(exp: &mut Experiment) {
    let settings: Vec<String> = exp.published.iter().map(|p| p.setting.clone()).collect();
    exp.defences.retain(|d| {
        settings
            .iter()
            .any(|s| *s == d.name || s.starts_with(&format!("{} (", d.name)))
    });
    let metrics: Vec<String> = exp.published.iter().map(|p| p.metric.clone()).collect();
    let named = |prefix: String| metrics.iter().any(|m| m.starts_with(&prefix));
    exp.attacks.retain(|a| named(format!("{}.", a.name)));
    exp.risk.retain(|r| named(format!("risk.{}.", r.name)));
    exp.report.metrics.clear();
    exp.report.plot.clear();
    exp.report.risk = None;
    exp.report.loss = None;
}

/// The `[[published]]` entries' values: our mean as the paper shows it (empty when the figure
/// is not defined, e.g. θ without uniques or pairs).
pub fn published_rows(name: &str, exp: &Experiment, results: &[SettingResult]) -> Vec<String> {
    exp.published
        .iter()
        .map(|p| {
            let ours = results
                .iter()
                .find(|s| s.label == p.setting)
                .and_then(|s| s.get(&p.metric))
                .map_or(String::new(), |o| o.mean.to_string());
            format!("{name},{},{},{ours}", p.setting, p.metric)
        })
        .collect()
}

/// The mean of `A` over the seeds of the Table 1 rows of `rows` for `method` and `scenario`.
pub fn table1_mean(rows: &Value, method: &str, scenario: &str) -> f64 {
    let a: Vec<f64> = rows
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["figure"] == "table1" && r["method"] == method && r["scenario"] == scenario)
        .filter_map(|r| r["A"].as_f64())
        .collect();
    a.iter().sum::<f64>() / a.len().max(1) as f64
}

/// `setting,metric,value` rows of a stored Mitra study: the baseline
/// (`baseline.<scenario>.<figure>`), Table 1 (`table1.<method>.<scenario>`, A as the mean over
/// seeds) in setting `default`, and Table 1's synthesis of each synthesis-grid cell in setting
/// `leaf-<min leaf>-<donors>`.
pub fn study_rows(raw: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for b in raw["baseline"].as_array().into_iter().flatten() {
        let sc = b["scenario"].as_str().unwrap_or("");
        for f in ["unique_correct", "le2_correct", "A"] {
            out.push(format!("default,baseline.{sc}.{f},{}", b[f]));
        }
    }
    for method in ["swap", "synth"] {
        for sc in ["scenario 1", "scenario 2", "links"] {
            out.push(format!(
                "default,table1.{method}.{sc},{}",
                table1_mean(&raw["rows"], method, sc)
            ));
        }
    }
    for g in raw["synthesis_grid"].as_array().into_iter().flatten() {
        let setting = format!(
            "leaf-{}-{}",
            g["min_leaf"],
            g["donors"].as_str().unwrap_or("")
        );
        for sc in ["scenario 1", "scenario 2", "links"] {
            out.push(format!(
                "{setting},table1.synth.{sc},{}",
                table1_mean(&g["rows"], "synth", sc)
            ));
        }
    }
    out
}

/// Runs `exp` into `out` and returns its value rows (`study,setting,metric,value`), with
/// the run's results.
pub fn run_values(
    name: &str,
    exp: &Experiment,
    out: &Path,
    progress: bool,
) -> Result<(Vec<String>, intruder_runner::Done), Box<dyn std::error::Error>> {
    let done = run_experiment(
        exp,
        &RunOptions {
            out: Some(out.to_path_buf()),
            force: false,
            threads: None,
            progress,
        },
    )?;
    let mut rows = published_rows(name, exp, &done.written.results);
    if let Some(st) = &exp.study {
        let raw = load_study(exp, &**st, &fingerprint(exp)?, out)?;
        rows.extend(study_rows(&raw).into_iter().map(|r| format!("{name},{r}")));
    }
    Ok((rows, done))
}

/// The header of the values files.
pub const HEADER: &str = "study,setting,metric,value";

/// `paper/values-tiny.csv` as the studies regenerate it at their `[tiny]` sizes (restricted
/// to what the published values need), each run in a fresh directory under `scratch`.
pub fn tiny_values(scratch: &Path) -> Result<String, Box<dyn std::error::Error>> {
    let mut lines = vec![HEADER.to_string()];
    for name in VALUE_STUDIES {
        let mut exp = at_tiny_size(name)?;
        restrict(&mut exp);
        let (rows, _) = run_values(name, &exp, &scratch.join(name), false)?;
        lines.extend(rows);
    }
    Ok(lines.join("\n") + "\n")
}
