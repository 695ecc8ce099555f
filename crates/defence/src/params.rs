//! Typed reading of a method's parameters from a TOML table, collecting every problem.
//!
//! A [`ParamReader`] wraps one step's table. Each method's `build` function asks it for typed
//! values; wrong types, missing required keys and out-of-range values are recorded as problems
//! naming the step and the key, and [`ParamReader::finish`] adds one problem per unknown key.
//! Nothing is reported until the whole pipeline has been read, so a user fixes a file in one pass.

use std::collections::BTreeMap;

/// The declared type of a parameter, for `intruder mask --list` and the README table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A whole number.
    Integer,
    /// A number (an integer is accepted).
    Number,
    /// `true` or `false`.
    Bool,
    /// Text.
    String,
    /// A list of texts (a single text is accepted as a list of one).
    Strings,
    /// A list of numbers.
    Numbers,
    /// A list of whole numbers.
    Integers,
    /// A list of lists of numbers (a matrix, row by row).
    Matrix,
    /// A table from text to text.
    Map,
}

impl ParamKind {
    /// How the type is written in messages and docs.
    pub fn as_str(self) -> &'static str {
        match self {
            ParamKind::Integer => "integer",
            ParamKind::Number => "number",
            ParamKind::Bool => "bool",
            ParamKind::String => "string",
            ParamKind::Strings => "list of strings",
            ParamKind::Numbers => "list of numbers",
            ParamKind::Integers => "list of integers",
            ParamKind::Matrix => "list of lists of numbers",
            ParamKind::Map => "table of string = string",
        }
    }
}

/// One parameter of a method, as declared in the registry.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    /// The TOML key.
    pub name: &'static str,
    /// Its type.
    pub kind: ParamKind,
    /// Whether it must be given.
    pub required: bool,
    /// The default, as written in docs (empty when required or when absence has a meaning
    /// explained in `doc`).
    pub default: &'static str,
    /// What it means, with its unit and range.
    pub doc: &'static str,
}

/// Reads one step's parameters, recording every problem.
#[derive(Debug)]
pub struct ParamReader<'a> {
    table: &'a toml::Table,
    location: String,
    specs: &'static [ParamSpec],
    problems: Vec<String>,
}

/// A value that can be read from a TOML parameter.
pub trait FromParam: Sized {
    /// Converts, or says what was expected.
    fn from_param(v: &toml::Value) -> Result<Self, String>;
}

fn describe(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("the string \"{s}\""),
        toml::Value::Integer(i) => format!("the integer {i}"),
        toml::Value::Float(f) => format!("the number {f}"),
        toml::Value::Boolean(b) => format!("the bool {b}"),
        toml::Value::Datetime(d) => format!("the date {d}"),
        toml::Value::Array(_) => "a list".to_string(),
        toml::Value::Table(_) => "a table".to_string(),
    }
}

impl FromParam for f64 {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Float(f) if f.is_finite() => Ok(*f),
            toml::Value::Integer(i) => Ok(*i as f64),
            _ => Err(format!("expected a finite number, found {}", describe(v))),
        }
    }
}

impl FromParam for i64 {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Integer(i) => Ok(*i),
            _ => Err(format!("expected an integer, found {}", describe(v))),
        }
    }
}

impl FromParam for bool {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Boolean(b) => Ok(*b),
            _ => Err(format!("expected true or false, found {}", describe(v))),
        }
    }
}

impl FromParam for String {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::String(s) => Ok(s.clone()),
            _ => Err(format!("expected a string, found {}", describe(v))),
        }
    }
}

impl FromParam for Vec<String> {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::String(s) => Ok(vec![s.clone()]),
            toml::Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, x)| String::from_param(x).map_err(|e| format!("item {}: {e}", i + 1)))
                .collect(),
            _ => Err(format!("expected a list of strings, found {}", describe(v))),
        }
    }
}

impl FromParam for Vec<f64> {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, x)| f64::from_param(x).map_err(|e| format!("item {}: {e}", i + 1)))
                .collect(),
            _ => Err(format!("expected a list of numbers, found {}", describe(v))),
        }
    }
}

impl FromParam for Vec<i64> {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, x)| i64::from_param(x).map_err(|e| format!("item {}: {e}", i + 1)))
                .collect(),
            _ => Err(format!(
                "expected a list of integers, found {}",
                describe(v)
            )),
        }
    }
}

impl FromParam for Vec<Vec<f64>> {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, x)| Vec::<f64>::from_param(x).map_err(|e| format!("row {}: {e}", i + 1)))
                .collect(),
            _ => Err(format!(
                "expected a list of lists of numbers, found {}",
                describe(v)
            )),
        }
    }
}

impl FromParam for BTreeMap<String, String> {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Table(t) => t
                .iter()
                .map(|(k, x)| match x {
                    toml::Value::String(s) => Ok((k.clone(), s.clone())),
                    toml::Value::Integer(i) => Ok((k.clone(), i.to_string())),
                    _ => Err(format!(
                        "entry '{k}': expected a string, found {}",
                        describe(x)
                    )),
                })
                .collect(),
            _ => Err(format!(
                "expected a table of string = string, found {}",
                describe(v)
            )),
        }
    }
}

impl<'a> ParamReader<'a> {
    /// A reader over `table`; `location` prefixes every problem (e.g. `step 2 (mdav)`).
    pub fn new(
        table: &'a toml::Table,
        location: impl Into<String>,
        specs: &'static [ParamSpec],
    ) -> Self {
        ParamReader {
            table,
            location: location.into(),
            specs,
            problems: Vec::new(),
        }
    }

    /// An optional value: `None` when absent or of the wrong type (then a problem is recorded).
    pub fn get<T: FromParam>(&mut self, key: &str) -> Option<T> {
        debug_assert!(
            self.specs.iter().any(|s| s.name == key),
            "parameter '{key}' read but not declared"
        );
        let v = self.table.get(key)?;
        match T::from_param(v) {
            Ok(x) => Some(x),
            Err(e) => {
                self.problem(key, e);
                None
            }
        }
    }

    /// A required value: records a problem when absent.
    pub fn require<T: FromParam>(&mut self, key: &str) -> Option<T> {
        if !self.table.contains_key(key) {
            self.problem(key, "is required but missing".to_string());
            return None;
        }
        self.get(key)
    }

    /// An optional value with a default.
    pub fn get_or<T: FromParam>(&mut self, key: &str, default: T) -> T {
        self.get(key).unwrap_or(default)
    }

    /// Whether `key` was given.
    pub fn has(&self, key: &str) -> bool {
        self.table.contains_key(key)
    }

    /// Records a problem about `key`.
    pub fn problem(&mut self, key: &str, message: impl std::fmt::Display) {
        self.problems
            .push(format!("{}: key '{key}': {message}", self.location));
    }

    /// Records a problem about the step as a whole.
    pub fn step_problem(&mut self, message: impl std::fmt::Display) {
        self.problems.push(format!("{}: {message}", self.location));
    }

    /// Checks `cond`, recording `message` about `key` when it fails.
    pub fn check(&mut self, key: &str, cond: bool, message: impl std::fmt::Display) {
        if !cond {
            self.problem(key, message);
        }
    }

    /// Whether no problem has been recorded so far.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }

    /// Adds one problem per unknown key (`method` is always allowed) and returns every problem.
    pub fn finish(mut self) -> Vec<String> {
        let known: Vec<&str> = self.specs.iter().map(|s| s.name).collect();
        let unknown: Vec<String> = self
            .table
            .keys()
            .filter(|k| *k != "method" && !known.contains(&k.as_str()))
            .cloned()
            .collect();
        for k in unknown {
            let near = known
                .iter()
                .find(|n| near_name(n, &k))
                .map(|n| format!(" (did you mean '{n}'?)"))
                .unwrap_or_default();
            self.problem(
                &k,
                format!("unknown key{near}; the keys are: {}", known.join(", ")),
            );
        }
        self.problems
    }
}

/// Whether two names are within two edits of each other (case-insensitive).
pub(crate) fn near_name(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()] <= 2
}
