//! The `[utility]` section.

use serde::Serialize;
use toml::Table;

use crate::reader::{Problems, Section};

pub(crate) const UTILITY_MEASURES: &[&str] = &["il1s", "moments", "correlations", "pmse"];

/// Utility measures of the masked file against the original.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct UtilitySpec {
    /// Variables compared.
    pub variables: Vec<String>,
    /// Measures: `il1s`, `moments`, `correlations`, `pmse`.
    pub measures: Vec<String>,
}

pub(crate) fn parse_utility(t: &Table, p: &mut Problems) -> UtilitySpec {
    let mut s = Section::new(t, "utility");
    let variables = s.strings(p, "variables").unwrap_or_default();
    let measures = s
        .strings(p, "measures")
        .unwrap_or_else(|| vec!["il1s".into()]);
    for m in &measures {
        if !UTILITY_MEASURES.contains(&m.as_str()) {
            p.push(
                "utility.measures",
                format!(
                    "unknown measure '{m}'; the measures are: {}",
                    UTILITY_MEASURES.join(", ")
                ),
            );
        }
    }
    if variables.is_empty() {
        p.push("utility.variables", "list at least one variable");
    }
    s.finish(p);
    UtilitySpec {
        variables,
        measures,
    }
}
