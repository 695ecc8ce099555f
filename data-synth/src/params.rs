//! Generator parameters: a static description ([`ParamSpec`]) per generator, and the
//! validated values ([`Params`]) built from `key=value` strings.
//!
//! Raw text is parsed and checked once, against the generator's specification, before any
//! work starts; every problem is collected so a user can fix a command line in one pass.

use std::collections::BTreeMap;
use std::fmt;

use crate::SynthError;

/// What values a parameter accepts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// A whole number in `min..=max`.
    Integer {
        /// Smallest valid value.
        min: u64,
        /// Largest valid value.
        max: u64,
    },
    /// A real number in `min..=max` (a share is `0..=1`).
    Float {
        /// Smallest valid value.
        min: f64,
        /// Largest valid value.
        max: f64,
    },
    /// One of a fixed list of words.
    Choice(&'static [&'static str]),
    /// `true` or `false`.
    Bool,
}

impl ParamKind {
    /// A share: a real number in `0..=1`.
    pub const SHARE: ParamKind = ParamKind::Float { min: 0.0, max: 1.0 };
}

impl fmt::Display for ParamKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamKind::Integer { min, max } => write!(f, "integer {min}..={max}"),
            ParamKind::Float { min, max } => write!(f, "number {min}..={max}"),
            ParamKind::Choice(words) => write!(f, "one of {}", words.join("|")),
            ParamKind::Bool => write!(f, "true|false"),
        }
    }
}

/// Static description of one parameter of a generator.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    /// Name used in `--set name=value` (`n` is also set by `--n`).
    pub name: &'static str,
    /// Default value, as text.
    pub default: &'static str,
    /// One-line description.
    pub description: &'static str,
    /// Valid values.
    pub kind: ParamKind,
}

/// A validated parameter value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// From [`ParamKind::Integer`].
    Integer(u64),
    /// From [`ParamKind::Float`].
    Float(f64),
    /// From [`ParamKind::Choice`].
    Choice(&'static str),
    /// From [`ParamKind::Bool`].
    Bool(bool),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Integer(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Choice(v) => write!(f, "{v}"),
            Value::Bool(v) => write!(f, "{v}"),
        }
    }
}

fn parse_value(spec: &ParamSpec, text: &str) -> Result<Value, String> {
    let text = text.trim();
    let bad = |why: &str| {
        format!(
            "  {}={text}: {why}; expected {} ({})",
            spec.name, spec.kind, spec.description
        )
    };
    match spec.kind {
        ParamKind::Integer { min, max } => {
            let cleaned: String = text.chars().filter(|c| *c != '_').collect();
            let v: u64 = cleaned.parse().map_err(|_| {
                if cleaned.starts_with('-') {
                    bad("negative")
                } else {
                    bad("not a whole number")
                }
            })?;
            if v < min || v > max {
                return Err(bad("out of range"));
            }
            Ok(Value::Integer(v))
        }
        ParamKind::Float { min, max } => {
            let v: f64 = text.parse().map_err(|_| bad("not a number"))?;
            if !v.is_finite() || v < min || v > max {
                return Err(bad("out of range"));
            }
            Ok(Value::Float(v))
        }
        ParamKind::Choice(words) => words
            .iter()
            .find(|w| **w == text)
            .map(|w| Value::Choice(w))
            .ok_or_else(|| bad("not a valid choice")),
        ParamKind::Bool => match text {
            "true" | "yes" | "1" => Ok(Value::Bool(true)),
            "false" | "no" | "0" => Ok(Value::Bool(false)),
            _ => Err(bad("not a boolean")),
        },
    }
}

/// Validated parameter values for one generator: every parameter of its specification,
/// set either explicitly or to its default.
#[derive(Debug, Clone)]
pub struct Params {
    generator: &'static str,
    values: BTreeMap<&'static str, Value>,
    explicit: Vec<&'static str>,
}

impl Params {
    /// Build and validate parameters for a generator with specification `specs`.
    ///
    /// `n` (from `--n`) sets the parameter named `n`; `sets` are `key=value` strings.
    /// All problems (unknown key, malformed pair, bad value, a key given twice) are
    /// collected into one [`SynthError::Params`] that lists the valid parameters.
    pub fn parse<S: AsRef<str>>(
        generator: &'static str,
        specs: &'static [ParamSpec],
        n: Option<u64>,
        sets: &[S],
    ) -> Result<Params, SynthError> {
        let mut problems = Vec::new();
        let mut raw: Vec<(&'static ParamSpec, String)> = Vec::new();
        if let Some(n) = n {
            match specs.iter().find(|s| s.name == "n") {
                Some(spec) => raw.push((spec, n.to_string())),
                None => problems.push("  --n: this generator has no size parameter `n`".into()),
            }
        }
        for item in sets {
            let item = item.as_ref();
            let Some((key, value)) = item.split_once('=') else {
                problems.push(format!("  `{item}`: expected key=value"));
                continue;
            };
            let key = key.trim();
            match specs.iter().find(|s| s.name == key) {
                Some(spec) => {
                    if raw.iter().any(|(s, _)| s.name == key) {
                        problems.push(format!("  {key}: given more than once"));
                    } else {
                        raw.push((spec, value.to_string()));
                    }
                }
                None => problems.push(format!("  {key}: unknown parameter")),
            }
        }
        let mut values = BTreeMap::new();
        let mut explicit = Vec::new();
        for spec in specs {
            let (text, is_explicit) = match raw.iter().find(|(s, _)| s.name == spec.name) {
                Some((_, v)) => (v.as_str(), true),
                None => (spec.default, false),
            };
            match parse_value(spec, text) {
                Ok(v) => {
                    values.insert(spec.name, v);
                    if is_explicit {
                        explicit.push(spec.name);
                    }
                }
                Err(p) => problems.push(p),
            }
        }
        if problems.is_empty() {
            Ok(Params {
                generator,
                values,
                explicit,
            })
        } else {
            let mut valid = vec!["valid parameters:".to_string()];
            for s in specs {
                valid.push(format!(
                    "    {} = {} ({}; default {})",
                    s.name, s.kind, s.description, s.default
                ));
            }
            problems.extend(valid);
            Err(SynthError::Params {
                generator: generator.to_string(),
                problems,
            })
        }
    }

    /// Name of the generator these parameters were validated for.
    pub fn generator(&self) -> &'static str {
        self.generator
    }

    /// Whether the user set `name` explicitly (rather than taking the default).
    pub fn is_explicit(&self, name: &str) -> bool {
        self.explicit.contains(&name)
    }

    /// All resolved values, in name order, as `name=value` text.
    pub fn describe(&self) -> String {
        self.values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn get(&self, name: &str) -> &Value {
        // Generators only ask for names in their own specification, which `parse` filled.
        self.values
            .get(name)
            .unwrap_or_else(|| panic!("parameter `{name}` not in the specification"))
    }

    /// Integer parameter `name` (panics if the generator's own spec lacks it: a bug).
    pub fn int(&self, name: &str) -> u64 {
        match self.get(name) {
            Value::Integer(v) => *v,
            other => panic!("parameter `{name}` is not an integer: {other:?}"),
        }
    }

    /// Integer parameter `name` as `usize`.
    pub fn usize(&self, name: &str) -> usize {
        usize::try_from(self.int(name)).unwrap_or(usize::MAX)
    }

    /// Real parameter `name`.
    pub fn float(&self, name: &str) -> f64 {
        match self.get(name) {
            Value::Float(v) => *v,
            other => panic!("parameter `{name}` is not a number: {other:?}"),
        }
    }

    /// Choice parameter `name`.
    pub fn choice(&self, name: &str) -> &'static str {
        match self.get(name) {
            Value::Choice(v) => v,
            other => panic!("parameter `{name}` is not a choice: {other:?}"),
        }
    }

    /// Boolean parameter `name`.
    pub fn bool(&self, name: &str) -> bool {
        match self.get(name) {
            Value::Bool(v) => *v,
            other => panic!("parameter `{name}` is not a boolean: {other:?}"),
        }
    }
}
