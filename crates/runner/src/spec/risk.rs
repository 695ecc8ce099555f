//! `[[risk]]` tables: each is handed to the risk registry (`intruder_risk::configure`) with every
//! parameter `intruder risk` accepts under the same name; `name` and `file` are the runner's.

use std::sync::Arc;

use serde::ser::{Serialize, SerializeMap, Serializer};
use toml::Table;

use intruder_data::params::{ReadContext, parse_value_text};
use intruder_risk::{DEFAULT_MEASURE, RISK_COMMON, RISK_MEASURES, RiskMeasure};

use crate::reader::{Problems, describe};

/// Which file a risk assessment reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RiskFile {
    /// The released (masked) file.
    Released,
    /// The intruder's whole source file, unmasked (e.g. the population).
    Source,
    /// The file `[data] population` names, unmasked (e.g. the population a released sample
    /// was drawn from, when the intruder's records come from another file).
    Population,
}

/// One risk assessment: a configured measure of the registry.
#[derive(Debug, Clone)]
pub struct RiskSpec {
    /// Label in metric names (`risk.<name>.<figure>`; default: the measure's name, or the
    /// missing-value policy for the frequency measure).
    pub name: String,
    /// File assessed.
    pub file: RiskFile,
    /// The measure's parameters as given, with `keys` defaulting to the scenario's.
    pub params: Table,
    /// The configured measure.
    pub measure: Arc<dyn RiskMeasure>,
}

impl PartialEq for RiskSpec {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.file == other.file && self.params == other.params
    }
}

impl RiskSpec {
    /// The measure's registry name.
    pub fn measure_name(&self) -> &'static str {
        self.measure.name()
    }

    /// The key variables.
    pub fn keys(&self) -> &[String] {
        self.measure.keys()
    }

    /// The missing-value policy.
    pub fn missing(&self) -> &'static str {
        self.measure.policy().as_str()
    }
}

/// The fields every `[[risk]]` table has been stored under since the first release, in that
/// order: the run ids of existing experiments hash them, so they stay as they were.
const STORED: &[&str] = &[
    "name",
    "keys",
    "missing",
    "file",
    "population_size",
    "weight",
    "sensitive",
    "unique_threshold",
    "with_n_match",
];

/// The documented default of a parameter, as a value.
fn default_value(key: &str) -> Option<toml::Value> {
    RISK_COMMON
        .iter()
        .chain(RISK_MEASURES.iter().flat_map(|e| e.params.iter()))
        .find(|s| s.name == key && !s.default.is_empty())
        .map(|s| parse_value_text(s.default))
}

impl Serialize for RiskSpec {
    /// The stored form (part of every run id): the fields of [`STORED`] with the registry's
    /// defaults filled in, typed as they always were (population size a number, the threshold
    /// an integer), then every other parameter given, by name. The frequency measure is not
    /// named, so an experiment that names it gets the same ids as one that does not.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let json = crate::grid::to_json;
        let mut m = s.serialize_map(None)?;
        for key in STORED {
            match *key {
                "name" => m.serialize_entry("name", &self.name)?,
                "file" => m.serialize_entry("file", &self.file)?,
                "population_size" => m.serialize_entry(
                    key,
                    &self
                        .params
                        .get(*key)
                        .and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64))),
                )?,
                _ => {
                    let v = self
                        .params
                        .get(*key)
                        .cloned()
                        .or_else(|| default_value(key));
                    m.serialize_entry(key, &v.as_ref().map(json))?
                }
            }
        }
        for (k, v) in &self.params {
            let named_default =
                (k == "measure" || k == "method") && v.as_str() == Some(DEFAULT_MEASURE);
            if !STORED.contains(&k.as_str()) && !named_default {
                m.serialize_entry(k, &json(v))?;
            }
        }
        m.end()
    }
}

pub(crate) fn parse_risk(
    t: &Table,
    i: usize,
    keys: &[String],
    ctx: ReadContext<'_>,
    p: &mut Problems,
) -> Option<RiskSpec> {
    let loc = format!("risk[{}]", i + 1);
    let mut params = t.clone();
    let name = params.remove("name");
    let file = params.remove("file");
    let file = match &file {
        None => RiskFile::Released,
        Some(toml::Value::String(f)) if f == "released" => RiskFile::Released,
        Some(toml::Value::String(f)) if f == "source" => RiskFile::Source,
        Some(toml::Value::String(f)) if f == "population" => RiskFile::Population,
        Some(other) => {
            p.push(
                &format!("{loc}.file"),
                format!(
                    "expected released, source or population, found {}",
                    describe(other)
                ),
            );
            RiskFile::Released
        }
    };
    if !params.contains_key("keys") {
        params.insert(
            "keys".into(),
            toml::Value::Array(keys.iter().cloned().map(toml::Value::String).collect()),
        );
    }
    let built = match intruder_risk::configure(&params, &loc, ctx, &[]) {
        Ok(b) => b,
        Err(problems) => {
            p.extend(problems);
            return None;
        }
    };
    p.warn(built.warnings.clone());
    let measure: Arc<dyn RiskMeasure> = Arc::from(built.method);
    let name = match name {
        None if measure.name() == DEFAULT_MEASURE => measure.policy().as_str().to_string(),
        None => measure.name().to_string(),
        Some(toml::Value::String(n)) => n,
        Some(other) => {
            p.push(
                &format!("{loc}.name"),
                format!("expected a string, found {}", describe(&other)),
            );
            return None;
        }
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        p.push(
            &format!("{loc}.name"),
            format!("'{name}': expected letters, digits, '-' or '_'"),
        );
    }
    Some(RiskSpec {
        name,
        file,
        params,
        measure,
    })
}
