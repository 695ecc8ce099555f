//! Defence grids: a `[[defence]]` declaration, its expansion into settings (one value per
//! parameter), and the parameter kinds that decide what a list means. A parameter given as a
//! list where its method expects one value (or as a list of lists where it expects a list) is a
//! grid dimension; the settings are the cartesian product.

use serde::Serialize;
use toml::{Table, Value};

use intruder_data::params::{ParamKind, ParamSpec, Problem, Range, ReadContext};

/// One declared defence, before grid expansion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DefenceSpec {
    /// Its label in reports.
    pub name: String,
    /// Pipeline steps; a parameter given as a list where the method expects one value (or as a
    /// list of lists where it expects a list) is a grid dimension.
    pub steps: Vec<Table>,
}

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
        self.pipeline_in(None)
    }

    /// The pipeline of this setting, the paths its steps name (e.g. generalisation
    /// hierarchies) relative to `base_dir` (the experiment file's directory).
    pub fn pipeline_in(
        &self,
        base_dir: Option<&std::path::Path>,
    ) -> Result<intruder_defence::Pipeline, intruder_defence::DefenceError> {
        let ctx = ReadContext {
            base_dir,
            columns: None,
        };
        self.pipeline_at("", ctx).map_err(|problems| {
            intruder_defence::DefenceError::Params(intruder_data::params::ParamError {
                source_name: self.label.clone(),
                problems,
            })
        })
    }

    /// The pipeline of this setting, problems with paths under `prefix` (`defence[1].` gives
    /// `defence[1].step[2].k`); with `ctx.columns`, column parameters are checked against the
    /// data.
    pub fn pipeline_at(
        &self,
        prefix: &str,
        ctx: ReadContext<'_>,
    ) -> Result<intruder_defence::Pipeline, Vec<Problem>> {
        intruder_defence::Pipeline::from_steps(&self.steps, prefix, ctx)
    }

    /// The numeric value of grid parameter `name`, if any.
    pub fn param_f64(&self, name: &str) -> Option<f64> {
        self.params
            .iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.as_f64())
    }
}

/// The parameters of the `blank` measurement-error step (not a defence: the runner's own).
pub static BLANK_PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "variables",
        ParamKind::Columns,
        "the intruder's columns whose cells are set missing at random",
    )
    .required()
    .alias(&["columns"]),
    ParamSpec::new("p", ParamKind::Number, "the share of cells blanked")
        .required()
        .within(Range::SHARE),
];

/// The declared parameters of a step's method (a defence, or the `blank` error step).
fn method_params(method: &str) -> Option<&'static [ParamSpec]> {
    if method == "blank" {
        Some(BLANK_PARAMS)
    } else {
        intruder_defence::method(method).map(|e| e.params)
    }
}

/// The declared kind of a step parameter (under its name or an old name).
pub fn step_grid_kind(method: &str, key: &str) -> Option<ParamKind> {
    method_params(method)?
        .iter()
        .find(|s| s.answers_to(key))
        .map(|s| s.kind)
}

/// Whether `v` is a grid list for a parameter of kind `k`: a list where the parameter holds one
/// value (number, bool, string, choice, path, column), a list of lists where it holds a list
/// (columns, strings, numbers, integers), a list of matrices for a matrix, a list of tables for
/// a table (map, number map, inline table).
pub fn is_grid(k: Option<ParamKind>, v: &Value) -> bool {
    use ParamKind as K;
    let Value::Array(a) = v else { return false };
    match k {
        Some(k) if k.is_scalar() => true,
        Some(K::Columns | K::Strings | K::Numbers | K::Integers) => {
            !a.is_empty() && a.iter().all(Value::is_array)
        }
        Some(K::Matrix) => {
            !a.is_empty()
                && a.iter().all(|x| {
                    x.as_array()
                        .is_some_and(|r| !r.is_empty() && r.iter().all(Value::is_array))
                })
        }
        Some(K::Map | K::NumberMap | K::Table) => !a.is_empty() && a.iter().all(Value::is_table),
        // Every other kind is scalar (handled above); unknown keys are not grids.
        Some(_) | None => false,
    }
}

/// A step as run ids hash it: a parameter that has an old name (`columns` for `variables` of
/// `global-recode`, `round`, `top-bottom-code` and the `blank` error step) is hashed under that
/// old name, the name of toolkit 0.1.0. So renaming `columns` to `variables` in an experiment
/// file changes neither the run ids, nor the seeds derived from them (masking, tie breaks): the
/// results stay the same.
pub fn hash_form(step: &Table) -> Table {
    let method = step.get("method").and_then(Value::as_str).unwrap_or("");
    let Some(specs) = method_params(method) else {
        return step.clone();
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

/// A TOML value as JSON (for hashing and reports).
pub fn to_json(v: &Value) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
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

/// The most settings one defence may expand to.
pub const MAX_SETTINGS: usize = 10_000;

/// Expands a defence's grid: each parameter given as a list where its method expects one value
/// (or a list of lists where it expects a list) is a dimension; the settings are the cartesian
/// product, the first dimension varying slowest (steps in order, keys of a step alphabetically).
pub fn expand_defence(d: &DefenceSpec) -> Result<Vec<Setting>, String> {
    // (step index, key, method, values)
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
                        "step[{}].{k}: an empty grid list ({method})",
                        si + 1
                    ));
                }
                dims.push((si, k.clone(), method.to_string(), vals));
            }
        }
    }
    let total = dims
        .iter()
        .try_fold(1usize, |acc, d| acc.checked_mul(d.3.len()))
        .filter(|&t| t <= MAX_SETTINGS);
    let Some(total) = total else {
        return Err(format!(
            "the grid has more than {MAX_SETTINGS} settings (the product of its list lengths); at most {MAX_SETTINGS} per defence"
        ));
    };
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

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Value {
        format!("x = {text}")
            .parse::<Table>()
            .unwrap()
            .remove("x")
            .unwrap()
    }

    #[test]
    fn grid_lists_by_parameter_kind() {
        use ParamKind as K;
        // one value: a list is a grid
        for k in [
            K::Integer,
            K::Number,
            K::Bool,
            K::String,
            K::Choice(&["a", "b"]),
            K::Path,
            K::Column,
        ] {
            assert!(is_grid(Some(k), &v("[1, 2]")), "{k:?}");
            assert!(!is_grid(Some(k), &v("1")), "{k:?}");
        }
        // a list: a list of lists is a grid, a plain list is the value
        for k in [K::Columns, K::Strings, K::Numbers, K::Integers] {
            assert!(!is_grid(Some(k), &v(r#"["a", "b"]"#)), "{k:?}");
            assert!(is_grid(Some(k), &v(r#"[["a"], ["a", "b"]]"#)), "{k:?}");
            assert!(!is_grid(Some(k), &v("[]")), "{k:?}");
        }
        // a matrix: a list of matrices
        assert!(!is_grid(Some(K::Matrix), &v("[[0.5, 0.5], [0.5, 0.5]]")));
        assert!(is_grid(
            Some(K::Matrix),
            &v("[[[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5], [0.5, 0.5]]]")
        ));
        // a table: a list of tables
        for k in [K::Map, K::NumberMap, K::Table] {
            assert!(!is_grid(Some(k), &v("{ a = 1 }")), "{k:?}");
            assert!(is_grid(Some(k), &v("[{ a = 1 }, { a = 2 }]")), "{k:?}");
        }
        // unknown keys are never grids
        assert!(!is_grid(None, &v("[1, 2]")));
    }

    #[test]
    fn kinds_come_from_the_registry_under_old_names_too() {
        assert_eq!(
            step_grid_kind("round", "variables"),
            Some(ParamKind::Columns)
        );
        assert_eq!(step_grid_kind("round", "columns"), Some(ParamKind::Columns));
        assert_eq!(step_grid_kind("round", "base"), Some(ParamKind::Number));
        assert_eq!(
            step_grid_kind("risk-suppression", "suppress"),
            Some(ParamKind::Column)
        );
        assert_eq!(step_grid_kind("blank", "columns"), Some(ParamKind::Columns));
        assert_eq!(step_grid_kind("blank", "p"), Some(ParamKind::Number));
        assert_eq!(step_grid_kind("noise", "columns"), None);
        assert_eq!(step_grid_kind("no-such-method", "k"), None);
        // a grid over the old name expands like one over the new
        let spec = DefenceSpec {
            name: "r".into(),
            steps: vec![
                "method = \"round\"\ncolumns = [[\"a\"], [\"b\"]]\nbase = 5"
                    .parse()
                    .unwrap(),
            ],
        };
        let settings = expand_defence(&spec).unwrap();
        let labels: Vec<&str> = settings.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["r (columns=[a])", "r (columns=[b])"]);
    }

    #[test]
    fn huge_grids_are_refused_without_overflow() {
        let mut step: Table = "method = \"local-suppression\"".parse().unwrap();
        let big: Vec<Value> = (2..1000).map(Value::Integer).collect();
        step.insert("k".into(), Value::Array(big.clone()));
        step.insert(
            "keys".into(),
            Value::Array(
                (0..1000)
                    .map(|i| Value::Array(vec![Value::String(i.to_string())]))
                    .collect(),
            ),
        );
        let d = DefenceSpec {
            name: "g".into(),
            steps: vec![step],
        };
        let e = expand_defence(&d).unwrap_err();
        assert!(e.contains("more than 10000 settings"), "{e}");
    }
}
