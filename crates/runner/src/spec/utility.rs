//! The `[utility]` section: the utility measures of the registry
//! (`intruder_utility::UTILITY_MEASURES`) with their parameters under the same names.

use serde::Serialize;
use toml::{Table, Value};

use intruder_data::params::ReadContext;

use crate::reader::Problems;

/// Utility measures of the masked file against the original.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct UtilitySpec {
    /// Variables compared (`ci-overlap` takes its columns from `model` instead).
    pub variables: Vec<String>,
    /// Measures of the registry: `moments`, `correlations`, `il1s`, `pmse`, `ci-overlap`
    /// (default `["il1s"]`).
    pub measures: Vec<String>,
    /// Every other parameter of the listed measures, under its registry name (`model`,
    /// `family`).
    #[serde(skip_serializing_if = "Table::is_empty")]
    pub params: Table,
}

impl UtilitySpec {
    /// The parameter table the registry reads: `variables` and the other parameters.
    pub fn table(&self) -> Table {
        let mut t = self.params.clone();
        if !self.variables.is_empty() {
            t.insert(
                "variables".into(),
                Value::Array(self.variables.iter().cloned().map(Value::String).collect()),
            );
        }
        t
    }

    /// Configures the measures (every problem with its path `utility.…`).
    pub fn configure(
        &self,
    ) -> Result<intruder_utility::Configured, Vec<intruder_data::params::Problem>> {
        intruder_utility::configure(
            &self.measures,
            &self.table(),
            "utility",
            ReadContext::default(),
            &[],
        )
    }
}

pub(crate) fn parse_utility(t: &Table, p: &mut Problems) -> UtilitySpec {
    let measures: Vec<String> = match t.get("measures") {
        None => vec!["il1s".into()],
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) if a.iter().all(Value::is_str) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        Some(other) => {
            p.push(
                "utility.measures",
                format!(
                    "expected a list of measure names, found {}; the measures are: {}",
                    intruder_data::params::describe(other),
                    intruder_utility::UTILITY_MEASURES
                        .iter()
                        .map(|e| e.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            Vec::new()
        }
    };
    if t.contains_key("measures") && measures.is_empty() && t["measures"].is_array() {
        p.push("utility.measures", "list at least one measure");
    }
    let variables: Vec<String> = match t.get("variables") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    let mut params = t.clone();
    params.remove("measures");
    params.remove("variables");
    let spec = UtilitySpec {
        variables,
        measures,
        params,
    };
    let mut table = t.clone();
    table.remove("measures");
    match intruder_utility::configure(
        &spec.measures,
        &table,
        "utility",
        ReadContext::default(),
        &[],
    ) {
        Ok(c) => p.warn(c.warnings),
        Err(problems) => p.extend(problems),
    }
    spec
}
