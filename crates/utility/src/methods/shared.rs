//! What several utility measures share: reading the `variables` parameter and writing numbers
//! into a report as JSON.

use intruder_table::params::{ColumnNeed, ParamReader};
use serde_json::Value;

/// A number as JSON: `null` when not finite.
pub(crate) fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// An optional number as JSON: `null` when absent or not finite.
pub(crate) fn opt(x: Option<f64>) -> Value {
    x.map_or(Value::Null, num)
}

/// The variables, required and non-empty; with known columns, numeric ones when `numeric`.
pub(crate) fn read_variables(
    r: &mut ParamReader,
    measure: &str,
    numeric: bool,
) -> Option<Vec<String>> {
    let v: Vec<String> = r.require("variables")?;
    r.check(
        "variables",
        !v.is_empty(),
        "must name at least one variable",
    );
    if numeric && let Some(cols) = r.context().columns {
        for name in &v {
            if let Some(k) = cols.kind(name)
                && !ColumnNeed::Numeric.accepts(k)
            {
                let example = cols
                    .first_not_number
                    .iter()
                    .find(|(n, _, _)| n == name)
                    .map(|(_, row, text)| {
                        format!(" (row {row} holds '{text}', which is not a number)")
                    })
                    .unwrap_or_default();
                r.problem(
                    "variables",
                    format!(
                        "{}: column '{name}' is {k}{example}; {measure} needs numeric variables",
                        cols.file
                    ),
                );
            }
        }
    }
    Some(v)
}
