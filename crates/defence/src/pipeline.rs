//! Pipelines: defences composed in order, declared in TOML.
//!
//! ```toml
//! [[step]]
//! method = "global-recode"
//! columns = ["age"]
//! breaks = [0, 18, 65, 120]
//!
//! [[step]]
//! method = "local-suppression"
//! k = 3
//! keys = ["age", "sex", "region"]
//! ```
//! Unknown top-level keys, unknown methods, unknown keys, wrong types and out-of-range values
//! are all reported at once, each with the step number, method and key.

use std::path::Path;

use intruder_data::Table;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use crate::log::{ChangeLog, diff};
use crate::params::near_name;
use crate::{Defence, DefenceError, METHODS, method};

/// One configured step.
#[derive(Debug)]
pub struct Step {
    /// The defence.
    pub defence: Box<dyn Defence>,
    /// The parameters as declared (for reports).
    pub params: toml::Table,
}

/// Defences applied in order.
#[derive(Debug, Default)]
pub struct Pipeline {
    /// The steps.
    pub steps: Vec<Step>,
}

impl Pipeline {
    /// Reads a pipeline file.
    pub fn from_file(path: &Path) -> Result<Pipeline, DefenceError> {
        let text = std::fs::read_to_string(path).map_err(|source| DefenceError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Pipeline::from_toml(&text, &path.display().to_string())
    }

    /// Parses pipeline text; `source_name` labels errors. Every problem is reported at once.
    pub fn from_toml(text: &str, source_name: &str) -> Result<Pipeline, DefenceError> {
        let fail = |problems: Vec<String>| DefenceError::Params {
            source_name: source_name.to_string(),
            problems,
        };
        let doc: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| fail(vec![format!("not valid TOML: {e}")]))?;
        Pipeline::from_table(&doc, source_name)
    }

    /// Builds a pipeline from an already parsed table holding `step = [{ method = … }, …]`
    /// (e.g. a section of an experiment file); `source_name` labels errors.
    pub fn from_table(doc: &toml::Table, source_name: &str) -> Result<Pipeline, DefenceError> {
        let fail = |problems: Vec<String>| DefenceError::Params {
            source_name: source_name.to_string(),
            problems,
        };
        let mut problems = Vec::new();
        for k in doc.keys().filter(|k| *k != "step") {
            problems.push(format!(
                "top-level key '{k}': unknown; a pipeline holds only [[step]] tables"
            ));
        }
        let steps: Vec<toml::Table> = match doc.get("step") {
            None => {
                problems.push("no [[step]] declared".to_string());
                Vec::new()
            }
            Some(toml::Value::Array(a)) => a
                .iter()
                .enumerate()
                .filter_map(|(i, v)| match v {
                    toml::Value::Table(t) => Some(t.clone()),
                    _ => {
                        problems.push(format!("step {}: expected a table", i + 1));
                        None
                    }
                })
                .collect(),
            Some(_) => {
                problems.push("'step' must be an array of tables ([[step]])".to_string());
                Vec::new()
            }
        };
        let mut out = Vec::new();
        for (i, t) in steps.into_iter().enumerate() {
            match build_step(&t, &format!("step {}", i + 1)) {
                Ok(d) => out.push(Step {
                    defence: d,
                    params: t,
                }),
                Err(mut p) => problems.append(&mut p),
            }
        }
        if problems.is_empty() {
            Ok(Pipeline { steps: out })
        } else {
            Err(fail(problems))
        }
    }

    /// A one-step pipeline from a method name and its parameters (as `intruder mask --method`).
    pub fn single(
        name: &str,
        params: toml::Table,
        source_name: &str,
    ) -> Result<Pipeline, DefenceError> {
        let mut t = params;
        t.insert("method".into(), toml::Value::String(name.into()));
        let d = build_step(&t, "step 1").map_err(|problems| DefenceError::Params {
            source_name: source_name.to_string(),
            problems,
        })?;
        Ok(Pipeline {
            steps: vec![Step {
                defence: d,
                params: t,
            }],
        })
    }

    /// Runs every step on `table` with `seed`. Step `i` draws from
    /// `ChaCha20Rng::seed_from_u64(seed)` on stream `i`, so steps do not share random numbers
    /// and adding a step leaves the draws of earlier steps unchanged.
    pub fn run(&self, table: &Table, seed: u64) -> Result<(Table, ChangeLog), DefenceError> {
        let mut current = table.clone();
        let mut origin: Vec<usize> = (0..table.nrows()).collect();
        let mut steps = Vec::with_capacity(self.steps.len());
        for (i, step) in self.steps.iter().enumerate() {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            rng.set_stream(i as u64);
            let masked = step.defence.apply(&current, &mut rng)?;
            let log = diff(
                i + 1,
                step.defence.method(),
                &current,
                &masked.table,
                masked.kept_rows.as_deref(),
                &origin,
                masked.notes,
            );
            if let Some(k) = &masked.kept_rows {
                origin = k.iter().map(|&r| origin[r]).collect();
            }
            current = masked.table;
            steps.push(log);
        }
        let mut changed = vec![false; table.nrows()];
        for s in &steps {
            for c in &s.columns {
                for &r in &c.rows {
                    changed[r] = true;
                }
            }
        }
        let records_changed = origin.iter().filter(|&&r| changed[r]).count();
        let log = ChangeLog {
            seed,
            rows_in: table.nrows(),
            rows_out: current.nrows(),
            cells_changed: steps.iter().map(|s| s.cells_changed).sum(),
            suppressions: steps.iter().map(|s| s.suppressions).sum(),
            records_changed,
            kept_rows: origin,
            steps,
        };
        Ok((current, log))
    }
}

fn build_step(t: &toml::Table, location: &str) -> Result<Box<dyn Defence>, Vec<String>> {
    let name = match t.get("method") {
        Some(toml::Value::String(s)) => s.clone(),
        Some(_) => return Err(vec![format!("{location}: key 'method': expected a string")]),
        None => {
            return Err(vec![format!(
                "{location}: key 'method' is required; the methods are: {}",
                names()
            )]);
        }
    };
    let Some(m) = method(&name) else {
        let near = METHODS
            .iter()
            .find(|m| near_name(m.name, &name))
            .map(|m| format!(" (did you mean '{}'?)", m.name))
            .unwrap_or_default();
        return Err(vec![format!(
            "{location}: key 'method': unknown method '{name}'{near}; the methods are: {}",
            names()
        )]);
    };
    let mut r = crate::ParamReader::new(t, format!("{location} ({name})"), m.params);
    let built = (m.build)(&mut r);
    let problems = r.finish();
    match built {
        Some(d) if problems.is_empty() => Ok(d),
        _ => Err(problems),
    }
}

fn names() -> String {
    METHODS
        .iter()
        .map(|m| m.name)
        .collect::<Vec<_>>()
        .join(", ")
}
