//! A file loaded for the page: its columns with their inferred types and roles, a preview, and
//! a risk measure at once on the columns the page chose (the risk registry's measures, through
//! the facade's configuration, with per-record figures summarised).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow};
use intruder::Surface;
use intruder_data::report::RecordValues;
use intruder_data::{Dataset, Input, Timings};
use serde_json::{Value, json};

use crate::files::{Places, Source};

/// How many records a preview shows.
pub const PREVIEW_ROWS: usize = 20;

/// Loaded files, by the source's JSON text: a file read once per session.
#[derive(Default)]
pub struct Cache {
    loaded: Mutex<HashMap<String, Arc<Dataset>>>,
}

impl Cache {
    /// The data of `source`: read (or generated) once, then from the cache.
    pub fn get(&self, places: &Places, source: &Source) -> Result<Arc<Dataset>> {
        let key = format!("{source:?}");
        if let Some(d) = self.lock().get(&key) {
            return Ok(d.clone());
        }
        let path = match source {
            Source::Generator { .. } => generated(places, source)?,
            other => places.resolve(other)?,
        };
        let ds = intruder_data::load(&path, &Input::default())
            .with_context(|| display_name(source, &path))?;
        let ds = Arc::new(ds);
        self.lock().insert(key, ds.clone());
        Ok(ds)
    }

    /// The map, even after a panic elsewhere poisoned the lock (its contents stay valid).
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Dataset>>> {
        self.loaded.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How the page names a source in messages.
fn display_name(source: &Source, path: &Path) -> String {
    match source {
        Source::Root { path } | Source::Upload { path } => path.clone(),
        _ => path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
    }
}

/// The `key=value` texts of a generator's parameters, as the runner passes `[data] params`.
pub fn generator_sets(params: &toml::Table) -> Vec<String> {
    params
        .iter()
        .map(|(k, v)| match v {
            toml::Value::String(s) => format!("{k}={s}"),
            other => format!("{k}={other}"),
        })
        .collect()
}

/// The file `file` of a generator's output for its parameters and seed, generated once into
/// the session's directory (the same data the runner generates for the experiment).
fn generated(places: &Places, source: &Source) -> Result<PathBuf> {
    let Source::Generator {
        generator,
        n,
        params,
        seed,
        file,
    } = source
    else {
        return Err(anyhow!("not a generator"));
    };
    let sets = generator_sets(params);
    let key = format!("{generator}|{n:?}|{sets:?}|{seed}");
    let dir = places.generated().join(format!(
        "{generator}-{:016x}",
        intruder_runner::fnv1a(key.as_bytes())
    ));
    let marker = dir.join(".complete");
    if !marker.exists() {
        std::fs::create_dir_all(&dir)?;
        intruder_synth::run(generator, *n, &sets, *seed, &dir)?;
        std::fs::write(&marker, "")?;
    }
    let path = dir.join(file);
    if !path.is_file() {
        let written: Vec<String> = std::fs::read_dir(&dir)?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| !n.starts_with('.'))
            .collect();
        return Err(anyhow!(
            "generator '{generator}' writes no file '{file}' (it writes {})",
            written.join(", ")
        ));
    }
    Ok(path)
}

/// The columns of a data set (the table's, then the truth columns) with kind, role, missing
/// cells and number of levels, the record count, the first [`PREVIEW_ROWS`] records and the
/// reader's notes.
pub fn describe(ds: &Dataset) -> Value {
    let columns: Vec<Value> = ds
        .all_columns()
        .map(|c| {
            json!({
                "name": c.name(),
                "kind": c.kind().to_string(),
                "role": c.role().as_str(),
                "missing": c.missing_count(),
                "levels": c.levels().map(<[String]>::len),
            })
        })
        .collect();
    let n = ds.table.nrows();
    let rows: Vec<Value> = (0..n.min(PREVIEW_ROWS))
        .map(|i| {
            Value::Array(
                ds.all_columns()
                    .map(|c| {
                        c.text(i)
                            .map_or(Value::Null, |t| Value::String(t.into_owned()))
                    })
                    .collect(),
            )
        })
        .collect();
    json!({
        "records": n,
        "columns": columns,
        "preview": rows,
        "notes": ds.notes,
    })
}

/// The risk measure of `params` (`measure`, `keys`, `weight`, `sensitive`, …, as in an
/// experiment's `[[risk]]`) on `ds`: its figures with units and meanings, its tables, a
/// summary of each per-record figure, and its warnings.
pub fn risk(ds: &Dataset, mut params: toml::Table, label: &str) -> Result<Value> {
    let roles = intruder::risk::roles_named(&params);
    let mut data = ds.clone();
    for (name, role) in &roles {
        // a name the file lacks is reported by the configuration, with a did-you-mean
        let _ = data.table.set_role(name, *role);
    }
    let columns = data.column_set();
    let built = intruder::risk::configure(&mut params, &columns, Surface::Page, "risk", label)?;
    let outcome = built
        .method
        .assess_timed(&data.table, true, &mut Timings::new())?;
    let figures: Vec<Value> = outcome
        .report
        .figures
        .iter()
        .map(|f| {
            json!({
                "name": f.name,
                "value": f.value,
                "unit": f.unit.as_str(),
                "meaning": f.meaning,
            })
        })
        .collect();
    let tables: Vec<Value> = outcome
        .report
        .tables
        .iter()
        .map(|t| json!({"name": t.name, "title": t.title, "header": t.header, "rows": t.rows}))
        .collect();
    let records: Vec<Value> = outcome
        .records
        .columns()
        .iter()
        .map(|c| json!({"name": c.name, "summary": summary(&c.values)}))
        .collect();
    let mut warnings: Vec<String> = built.warnings.iter().map(ToString::to_string).collect();
    warnings.extend(outcome.warnings.iter().cloned());
    Ok(json!({
        "measure": built.method.name(),
        "figures": figures,
        "tables": tables,
        "records": records,
        "warnings": warnings,
    }))
}

/// A per-record column in a few numbers: for counts (class sizes), how many records have each
/// value 1 to 10 and above 10; for numbers (risks), the mean, quartiles and maximum and the
/// records above 0.5, 0.2 and 0.1; for texts, the number of records with a value.
pub fn summary(values: &RecordValues) -> Value {
    match values {
        RecordValues::Count(v) => {
            let mut bins = [0u64; 11];
            let mut missing = 0u64;
            for x in v {
                match x {
                    Some(c) => bins[(*c as usize).clamp(1, 11) - 1] += 1,
                    None => missing += 1,
                }
            }
            let labels: Vec<String> = (1..=10)
                .map(|i| i.to_string())
                .chain(std::iter::once(">10".to_string()))
                .collect();
            json!({"kind": "counts", "labels": labels, "counts": bins, "missing": missing})
        }
        RecordValues::Number(v) => {
            let mut xs: Vec<f64> = v
                .iter()
                .flatten()
                .copied()
                .filter(|x| x.is_finite())
                .collect();
            xs.sort_by(f64::total_cmp);
            let q = |p: f64| -> Value {
                if xs.is_empty() {
                    Value::Null
                } else {
                    json!(xs[((xs.len() - 1) as f64 * p).round() as usize])
                }
            };
            let above = |t: f64| xs.iter().filter(|x| **x > t).count();
            let mean = if xs.is_empty() {
                Value::Null
            } else {
                json!(xs.iter().sum::<f64>() / xs.len() as f64)
            };
            json!({
                "kind": "numbers",
                "n": xs.len(),
                "mean": mean,
                "q25": q(0.25), "median": q(0.5), "q75": q(0.75), "max": q(1.0),
                "above_0_5": above(0.5), "above_0_2": above(0.2), "above_0_1": above(0.1),
            })
        }
        RecordValues::Text(v) => {
            json!({"kind": "texts", "with_value": v.iter().filter(|x| x.is_some()).count()})
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_sizes_are_counted_by_value_with_a_bin_above_ten() {
        let s = summary(&RecordValues::Count(vec![
            Some(1),
            Some(1),
            Some(2),
            Some(12),
            None,
        ]));
        assert_eq!(s["counts"], json!([2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1]));
        assert_eq!(s["missing"], 1);
        assert_eq!(s["labels"][10], ">10");
    }

    #[test]
    fn risks_are_summarised_by_mean_quartiles_and_shares_above() {
        let s = summary(&RecordValues::Number(vec![
            Some(1.0),
            Some(0.5),
            Some(0.25),
            Some(0.0),
            None,
        ]));
        assert_eq!(s["n"], 4);
        assert_eq!(s["mean"], 0.4375);
        assert_eq!(s["median"], 0.5);
        assert_eq!(s["max"], 1.0);
        assert_eq!(s["above_0_5"], 1);
        assert_eq!(s["above_0_2"], 3);
    }

    #[test]
    fn a_generators_parameters_become_key_value_texts() {
        let t: toml::Table = toml::from_str("keys = 5\nfraction = 0.1\nmode = \"x\"").unwrap();
        let mut sets = generator_sets(&t);
        sets.sort();
        assert_eq!(sets, vec!["fraction=0.1", "keys=5", "mode=x"]);
    }
}
