//! Grid expansion and the run plan: every resolved defence setting × replicate is one run,
//! keyed by a hash of its resolved configuration, the replicate and the toolkit version.

use serde::Serialize;
use toml::{Table, Value};

use crate::spec::{DefenceSpec, Experiment, is_grid, step_grid_kind, to_json};

/// The toolkit version written into every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One resolved defence setting: a pipeline with one value per parameter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting {
    /// The defence's name.
    pub defence: String,
    /// `defence` plus its grid values, e.g. `k-anonymity (k=3)`; unique within an experiment.
    pub label: String,
    /// The grid values of this setting: (`method.param`, value), in declaration order.
    pub params: Vec<(String, serde_json::Value)>,
    /// The resolved pipeline steps.
    pub steps: Vec<Table>,
}

impl Setting {
    /// The pipeline of this setting (no steps = no masking).
    pub fn pipeline(&self) -> Result<intruder_defence::Pipeline, intruder_defence::DefenceError> {
        self.pipeline_at("").map_err(|problems| {
            intruder_defence::DefenceError::Params(intruder_data::params::ParamError {
                source_name: self.label.clone(),
                problems,
            })
        })
    }

    /// The pipeline of this setting, problems with paths under `prefix` (`defence[1].` gives
    /// `defence[1].step[2].k`).
    pub fn pipeline_at(
        &self,
        prefix: &str,
    ) -> Result<intruder_defence::Pipeline, Vec<intruder_data::params::Problem>> {
        intruder_defence::Pipeline::from_steps(
            &self.steps,
            prefix,
            intruder_data::params::ReadContext::default(),
        )
    }

    /// The numeric value of grid parameter `name`, if any.
    pub fn param_f64(&self, name: &str) -> Option<f64> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.as_f64())
    }
}

/// One run: a setting and a replicate.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Run {
    /// Index into [`Plan::settings`].
    pub setting: usize,
    /// 0-based replicate.
    pub replicate: u32,
    /// 16 hex digits: FNV-1a of the resolved configuration, replicate and version.
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

/// A step as run ids hash it: a parameter that has an old name (`columns` for `variables` of
/// `global-recode`, `round`, `top-bottom-code` and the `blank` error step) is hashed under that
/// old name, the name of toolkit 0.1.0. So renaming `columns` to `variables` in an experiment
/// file changes neither the run ids, nor the stored runs that are reused, nor the seeds derived
/// from the ids (masking, tie breaks): the results stay the same.
pub(crate) fn hash_form(step: &Table) -> Table {
    let method = step.get("method").and_then(Value::as_str).unwrap_or("");
    let specs: &[intruder_data::params::ParamSpec] = if method == "blank" {
        crate::spec::BLANK_PARAMS
    } else {
        match intruder_defence::method(method) {
            Some(e) => e.params,
            None => return step.clone(),
        }
    };
    let mut out = step.clone();
    for s in specs {
        if let (Some(old), Some(v)) = (s.aliases.first(), step.get(s.name))
            && !step.contains_key(*old)
        {
            out.remove(s.name);
            out.insert((*old).to_string(), v.clone());
        }
    }
    out
}

/// FNV-1a, 64 bits.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The seed of random step `step` of a run: from the experiment seed, a run key and the step
/// name, never from thread ids.
pub fn derive_seed(seed: u64, key: &str, step: &str) -> u64 {
    let mut s = seed.to_le_bytes().to_vec();
    s.extend_from_slice(key.as_bytes());
    s.push(0);
    s.extend_from_slice(step.as_bytes());
    // splitmix64 finaliser over FNV, to spread nearby keys.
    let mut z = fnv1a(&s).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn value_label(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(value_label).collect::<Vec<_>>().join(",")
        ),
        Value::Table(t) => format!(
            "{{{}}}",
            t.iter()
                .map(|(k, v)| format!("{k}:{}", value_label(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        other => other.to_string(),
    }
}

/// Expands a defence's grid: each parameter given as a list where its method expects one value
/// (or a list of lists where it expects a list) is a dimension; the settings are the cartesian
/// product, the first dimension varying slowest (steps in order, keys of a step alphabetically).
pub fn expand_defence(d: &DefenceSpec) -> Result<Vec<Setting>, String> {
    // (step index, key, values)
    let mut dims: Vec<(usize, String, String, Vec<Value>)> = Vec::new();
    for (si, step) in d.steps.iter().enumerate() {
        let method = step.get("method").and_then(Value::as_str).unwrap_or("");
        for (k, v) in step {
            if k == "method" {
                continue;
            }
            if is_grid(step_grid_kind(method, k), v) {
                let vals = v.as_array().cloned().unwrap_or_default();
                if vals.is_empty() {
                    return Err(format!(
                        "step {} ({method}): key '{k}': an empty grid list",
                        si + 1
                    ));
                }
                dims.push((si, k.clone(), method.to_string(), vals));
            }
        }
    }
    let total: usize = dims.iter().map(|d| d.3.len()).product();
    if total > 10_000 {
        return Err(format!(
            "the grid has {total} settings; at most 10000 per defence"
        ));
    }
    let mut out = Vec::with_capacity(total);
    for idx in 0..total {
        let mut steps = d.steps.clone();
        let mut params = Vec::new();
        let mut rem = idx;
        let mut picks = vec![0usize; dims.len()];
        for (j, dim) in dims.iter().enumerate().rev() {
            picks[j] = rem % dim.3.len();
            rem /= dim.3.len();
        }
        for (j, (si, k, method, vals)) in dims.iter().enumerate() {
            let v = vals[picks[j]].clone();
            params.push((format!("{method}.{k}"), to_json(&v)));
            steps[*si].insert(k.clone(), v);
        }
        let label = if params.is_empty() {
            d.name.clone()
        } else {
            let short: Vec<String> = dims
                .iter()
                .enumerate()
                .map(|(j, (_, k, _, vals))| format!("{k}={}", value_label(&vals[picks[j]])))
                .collect();
            format!("{} ({})", d.name, short.join(", "))
        };
        out.push(Setting {
            defence: d.name.clone(),
            label,
            params,
            steps,
        });
    }
    Ok(out)
}

impl Plan {
    /// The plan of an experiment.
    pub fn new(exp: &Experiment) -> Result<Plan, String> {
        let mut settings = Vec::new();
        for d in &exp.defences {
            settings.extend(expand_defence(d)?);
        }
        // The shared part of every run's configuration: everything but the defences.
        let mut scenario = exp.scenario.clone();
        for e in &mut scenario.error {
            e.params = hash_form(&e.params);
        }
        let shared = serde_json::json!({
            "version": VERSION,
            "seed": exp.seed,
            "data": exp.data,
            "scenario": scenario,
            "attacks": exp.attacks,
            "risk": exp.risk,
            "utility": exp.utility,
        });
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
                runs.push(Run {
                    setting: si,
                    replicate: r,
                    id: format!("{:016x}", fnv1a(key.as_bytes())),
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
            self.runs.len(),
            if self.runs.len() == 1 { "" } else { "s" },
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
            crate::spec::DataSource::Files => s.push_str(&format!(
                "data: files, released {}, intruder from {}\n",
                exp.data.released,
                exp.data.intruder.as_deref().unwrap_or(&exp.data.released)
            )),
        }
        s.push_str(&format!(
            "scenario: keys {}; intruder knows {}; {} measurement-error step{}\n",
            exp.scenario.keys.join(", "),
            exp.scenario.intruder_n.map_or(
                format!("{} of the source records", exp.scenario.known),
                |n| { format!("{n} source records") }
            ),
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
        if let Some(l) = &exp.longitudinal {
            s.push_str(&crate::longitudinal::describe_study(l));
        }
        s
    }
}
