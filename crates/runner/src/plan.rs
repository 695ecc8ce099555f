//! The run plan: every resolved defence setting × replicate is one run. A run has two hashes:
//! its **key** (the resolved configuration, the replicate and the toolkit version), from which
//! every seed of the run derives, and its **id** (the key and the content of the input data),
//! under which its outcome is stored. So results depend only on the configuration, the seed and
//! the data's content — never on paths or the working directory — and changed data reruns.

use serde::Serialize;
use toml::Value;

use crate::grid::{Setting, expand_defence, hash_form, to_json};
use crate::hash::{VERSION, fnv1a};
use crate::record::RECORD_SCHEMA;
use crate::spec::Experiment;

/// The intruder's knowledge as a share of its source: `all (100%) of the source records`,
/// `20% of the source records`.
pub fn known_share(known: f64) -> String {
    let pct = crate::stats::fmt_unit(known, intruder_data::report::Unit::Proportion);
    let pct = pct
        .strip_suffix(".0%")
        .map_or(pct.clone(), |p| format!("{p}%"));
    if known >= 1.0 {
        format!("all ({pct}) of the source records")
    } else {
        format!("{pct} of the source records")
    }
}

/// One run: a setting and a replicate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Run {
    /// Index into [`Plan::settings`].
    pub setting: usize,
    /// 0-based replicate.
    pub replicate: u32,
    /// 16 hex digits: FNV-1a of the resolved configuration, replicate and version; every seed
    /// of the run derives from it.
    pub key: String,
    /// 16 hex digits: FNV-1a of the key, the data's fingerprint and the stored-run schema
    /// ([`crate::RECORD_SCHEMA`]); the stored outcome is `runs/<id>.json`.
    pub id: String,
}

/// Settings and runs of an experiment, in a fixed order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// Every resolved setting, defences in declaration order, grids in row-major order.
    pub settings: Vec<Setting>,
    /// Every run, by setting then replicate.
    pub runs: Vec<Run>,
}

impl Plan {
    /// The plan of an experiment on data with `fingerprint` (see [`crate::data::fingerprint`]).
    pub fn new(exp: &Experiment, fingerprint: &str) -> Result<Plan, String> {
        let mut settings = Vec::new();
        for d in &exp.defences {
            settings.extend(expand_defence(d)?);
        }
        // The shared part of every run's configuration: everything but the defences.
        let mut scenario = exp.scenario.clone();
        // the cross-examination draws nothing at random: whether it runs moves no seed
        scenario.check = true;
        for e in &mut scenario.error {
            e.params = hash_form(&e.params);
        }
        let mut shared = serde_json::json!({
            "version": VERSION,
            "seed": exp.seed,
            "data": exp.data.identity(),
            "scenario": scenario,
            "attacks": exp.attacks,
            "risk": exp.risk,
            "utility": exp.utility,
        });
        // Only when asked, so the keys (and seeds) of experiments without questions stay put.
        if !exp.questions.is_empty() {
            shared["questions"] = serde_json::json!(exp.questions);
        }
        let shared = shared.to_string();
        let mut runs = Vec::new();
        for (si, s) in settings.iter().enumerate() {
            let steps: Vec<serde_json::Value> = s
                .steps
                .iter()
                .map(|t| to_json(&Value::Table(hash_form(t))))
                .collect();
            for r in 0..exp.replicates {
                let key = format!(
                    "{shared}\u{1}{}\u{1}{}\u{1}{r}",
                    serde_json::Value::Array(steps.clone()),
                    s.label
                );
                let key = format!("{:016x}", fnv1a(key.as_bytes()));
                // The record schema is in the id (stored runs of an older schema are not
                // reused) but not in the key (seeds, hence results, do not move).
                let id = format!(
                    "{:016x}",
                    fnv1a(format!("{key}\u{1}{fingerprint}\u{1}{RECORD_SCHEMA}").as_bytes())
                );
                runs.push(Run {
                    setting: si,
                    replicate: r,
                    key,
                    id,
                });
            }
        }
        Ok(Plan { settings, runs })
    }

    /// A human-readable plan (for `--dry-run`).
    pub fn describe(&self, exp: &Experiment) -> String {
        let mut s = format!(
            "experiment '{}' (seed {}, {} replicate{}): {} setting{} × {} = {} run{}\n",
            exp.name,
            exp.seed,
            exp.replicates,
            if exp.replicates == 1 { "" } else { "s" },
            self.settings.len(),
            if self.settings.len() == 1 { "" } else { "s" },
            exp.replicates,
            self.settings.len() * exp.replicates as usize,
            if self.settings.len() * exp.replicates as usize == 1 {
                ""
            } else {
                "s"
            },
        );
        match &exp.data.source {
            crate::spec::DataSource::Generator { name, n, params } => s.push_str(&format!(
                "data: generator {name} (n = {}{}{}), released {}, intruder from {}\n",
                n.map_or("default".to_string(), |n| n.to_string()),
                if params.is_empty() { "" } else { ", " },
                params.join(", "),
                exp.data.released,
                exp.data.intruder.as_deref().unwrap_or(&exp.data.released)
            )),
            crate::spec::DataSource::Files => {
                // File names only: reports do not depend on how a path was written.
                let name = |p: &str| {
                    std::path::Path::new(p)
                        .file_name()
                        .map_or_else(|| p.to_string(), |n| n.to_string_lossy().into_owned())
                };
                s.push_str(&format!(
                    "data: files, released {}, intruder from {}\n",
                    name(&exp.data.released),
                    name(exp.data.intruder.as_deref().unwrap_or(&exp.data.released))
                ))
            }
        }
        s.push_str(&format!(
            "scenario: keys {}; intruder knows {}; {} measurement-error step{}\n",
            exp.scenario.keys.join(", "),
            exp.scenario
                .intruder_n
                .map_or(known_share(exp.scenario.known), |n| {
                    format!("{n} source records")
                }),
            exp.scenario.error.len(),
            if exp.scenario.error.len() == 1 {
                ""
            } else {
                "s"
            }
        ));
        s.push_str("settings:\n");
        for st in &self.settings {
            let methods: Vec<&str> = st
                .steps
                .iter()
                .filter_map(|t| t.get("method").and_then(Value::as_str))
                .collect();
            s.push_str(&format!(
                "  {:<40} {}\n",
                st.label,
                if methods.is_empty() {
                    "no masking".to_string()
                } else {
                    methods.join(" → ")
                }
            ));
        }
        s.push_str("attacks:\n");
        for a in &exp.attacks {
            s.push_str(&format!(
                "  {:<24} {} on {}{}\n",
                a.name,
                a.method,
                a.keys.join(", "),
                if a.twins_only { " (twins only)" } else { "" }
            ));
        }
        if !exp.risk.is_empty() {
            s.push_str("risk:\n");
            for r in &exp.risk {
                s.push_str(&format!(
                    "  {:<24} {} ({}) on the {} file, keys {}\n",
                    r.name,
                    r.measure_name(),
                    r.missing(),
                    match r.file {
                        crate::spec::RiskFile::Released => "released",
                        crate::spec::RiskFile::Source => "source",
                        crate::spec::RiskFile::Population => "population",
                    },
                    r.keys().join(", ")
                ));
            }
        }
        let u = &exp.utility;
        if !u.measures.is_empty() {
            s.push_str(&format!("utility: {}", u.measures.join(", ")));
            if !u.variables.is_empty() {
                s.push_str(&format!(" on {}", u.variables.join(", ")));
            }
            for (k, v) in &u.params {
                s.push_str(&format!("; {k} = {v}"));
            }
            s.push('\n');
        }
        if !exp.questions.is_empty() {
            s.push_str(&format!(
                "questions (control set: {} of the original records, kept out of every release):\n",
                crate::stats::fmt_unit(
                    exp.scenario.control,
                    intruder_data::report::Unit::Proportion
                )
            ));
            for q in &exp.questions {
                s.push_str(&format!("  {:<24} {}\n", q.name, q.question.summary()));
            }
        }
        if let Some(st) = &exp.study {
            s.push_str(&st.describe());
        }
        s
    }
}
