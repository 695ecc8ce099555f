//! Typed reading of a TOML table that records every problem (key path and reason) instead of
//! stopping at the first, so a user fixes an experiment file in one pass.

use intruder_data::params::{Problem, nearest};
use toml::{Table, Value};

/// Collects problems (and warnings) while reading nested tables, each with its key path.
#[derive(Debug, Default)]
pub(crate) struct Problems {
    pub(crate) list: Vec<Problem>,
    /// Deprecated names used (accepted; reported to the user).
    pub(crate) warnings: Vec<Problem>,
}

impl Problems {
    /// Records a problem at `key` (empty: the file as a whole).
    pub(crate) fn push(&mut self, key: &str, message: impl std::fmt::Display) {
        self.list.push(Problem {
            path: key.to_string(),
            message: message.to_string(),
        });
    }

    /// Records problems that carry their own paths (from the shared parameter layer).
    pub(crate) fn extend(&mut self, problems: impl IntoIterator<Item = Problem>) {
        self.list.extend(problems);
    }

    /// Records warnings not yet recorded.
    pub(crate) fn warn(&mut self, warnings: impl IntoIterator<Item = Problem>) {
        for w in warnings {
            if !self.warnings.contains(&w) {
                self.warnings.push(w);
            }
        }
    }
}

/// A view of one TOML table at a key path; remembers which keys were read.
pub(crate) struct Section<'a> {
    pub(crate) table: &'a Table,
    pub(crate) path: String,
    used: Vec<&'static str>,
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::String(_) => "a string",
        Value::Integer(_) => "an integer",
        Value::Float(_) => "a number",
        Value::Boolean(_) => "a boolean",
        Value::Datetime(_) => "a date",
        Value::Array(_) => "a list",
        Value::Table(_) => "a table",
    }
}

impl<'a> Section<'a> {
    pub(crate) fn new(table: &'a Table, path: impl Into<String>) -> Self {
        Section {
            table,
            path: path.into(),
            used: Vec::new(),
        }
    }

    pub(crate) fn key(&self, k: &str) -> String {
        if self.path.is_empty() {
            k.to_string()
        } else {
            format!("{}.{k}", self.path)
        }
    }

    pub(crate) fn raw(&mut self, k: &'static str) -> Option<&'a Value> {
        self.used.push(k);
        self.table.get(k)
    }

    fn typed<T>(
        &mut self,
        p: &mut Problems,
        k: &'static str,
        expected: &str,
        f: impl Fn(&Value) -> Option<T>,
    ) -> Option<T> {
        let v = self.raw(k)?;
        match f(v) {
            Some(t) => Some(t),
            None => {
                p.push(
                    &self.key(k),
                    format!("expected {expected}, found {}", describe(v)),
                );
                None
            }
        }
    }

    pub(crate) fn string(&mut self, p: &mut Problems, k: &'static str) -> Option<String> {
        self.typed(p, k, "a string", |v| v.as_str().map(str::to_string))
    }

    pub(crate) fn boolean(&mut self, p: &mut Problems, k: &'static str) -> Option<bool> {
        self.typed(p, k, "true or false", Value::as_bool)
    }

    pub(crate) fn uint(&mut self, p: &mut Problems, k: &'static str) -> Option<u64> {
        self.typed(p, k, "a whole number ≥ 0", |v| {
            v.as_integer().and_then(|i| u64::try_from(i).ok())
        })
    }

    pub(crate) fn number(&mut self, p: &mut Problems, k: &'static str) -> Option<f64> {
        self.typed(p, k, "a number", |v| match v {
            Value::Integer(i) => Some(*i as f64),
            Value::Float(f) if f.is_finite() => Some(*f),
            _ => None,
        })
    }

    pub(crate) fn share(&mut self, p: &mut Problems, k: &'static str) -> Option<f64> {
        let v = self.number(p, k)?;
        if (0.0..=1.0).contains(&v) {
            Some(v)
        } else {
            p.push(
                &self.key(k),
                format!("expected a share in [0, 1], found {v}"),
            );
            None
        }
    }

    /// A list of whole numbers ≥ 0 (a single number is accepted as a list of one).
    pub(crate) fn uints(&mut self, p: &mut Problems, k: &'static str) -> Option<Vec<u64>> {
        self.typed(p, k, "a list of whole numbers ≥ 0", |v| match v {
            Value::Integer(i) => u64::try_from(*i).ok().map(|x| vec![x]),
            Value::Array(a) => a
                .iter()
                .map(|x| x.as_integer().and_then(|i| u64::try_from(i).ok()))
                .collect(),
            _ => None,
        })
    }

    /// A list of finite numbers (a single number is accepted as a list of one).
    pub(crate) fn numbers(&mut self, p: &mut Problems, k: &'static str) -> Option<Vec<f64>> {
        let num = |x: &Value| match x {
            Value::Integer(i) => Some(*i as f64),
            Value::Float(f) if f.is_finite() => Some(*f),
            _ => None,
        };
        self.typed(p, k, "a list of numbers", |v| match v {
            Value::Array(a) => a.iter().map(num).collect(),
            other => num(other).map(|x| vec![x]),
        })
    }

    /// A list of strings (a single string is accepted as a list of one).
    pub(crate) fn strings(&mut self, p: &mut Problems, k: &'static str) -> Option<Vec<String>> {
        self.typed(p, k, "a list of strings", |v| match v {
            Value::String(s) => Some(vec![s.clone()]),
            Value::Array(a) => a.iter().map(|x| x.as_str().map(str::to_string)).collect(),
            _ => None,
        })
    }

    /// A table of string = string.
    pub(crate) fn string_map(
        &mut self,
        p: &mut Problems,
        k: &'static str,
    ) -> Option<Vec<(String, String)>> {
        self.typed(p, k, "a table of name = \"text\"", |v| {
            v.as_table().and_then(|t| {
                t.iter()
                    .map(|(a, b)| b.as_str().map(|b| (a.clone(), b.to_string())))
                    .collect()
            })
        })
    }

    /// A table of string = scalar (numbers and booleans are written as text).
    pub(crate) fn scalar_map(
        &mut self,
        p: &mut Problems,
        k: &'static str,
    ) -> Option<Vec<(String, String)>> {
        self.typed(p, k, "a table of name = value", |v| {
            v.as_table().and_then(|t| {
                t.iter()
                    .map(|(a, b)| {
                        let s = match b {
                            Value::String(s) => s.clone(),
                            Value::Integer(i) => i.to_string(),
                            Value::Float(f) => f.to_string(),
                            Value::Boolean(x) => x.to_string(),
                            _ => return None,
                        };
                        Some((a.clone(), s))
                    })
                    .collect()
            })
        })
    }

    /// A table of string = number.
    pub(crate) fn table(&mut self, p: &mut Problems, k: &'static str) -> Option<&'a Table> {
        self.typed(p, k, "a table", |v| v.as_table().map(|_| ()))?;
        self.table.get(k).and_then(Value::as_table)
    }

    /// An array of tables (`[[k]]`).
    pub(crate) fn tables(&mut self, p: &mut Problems, k: &'static str) -> Vec<&'a Table> {
        match self.raw(k) {
            None => Vec::new(),
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .filter_map(|(i, v)| match v {
                    Value::Table(t) => Some(t),
                    other => {
                        p.push(
                            &format!("{}[{}]", self.key(k), i + 1),
                            format!("expected a table, found {}", describe(other)),
                        );
                        None
                    }
                })
                .collect(),
            Some(Value::Table(_)) => {
                // `[attack]` (one table) where `[[attack]]` (an array of tables) is meant: with
                // one entry it would read the same, with two the second replaces the first.
                // The TOML header: the key path without the array indices (`defence.step`).
                let mut header = String::new();
                let mut depth = 0usize;
                for ch in self.path.chars() {
                    match ch {
                        '[' => depth += 1,
                        ']' => depth = depth.saturating_sub(1),
                        c if depth == 0 => header.push(c),
                        _ => {}
                    }
                }
                if !header.is_empty() {
                    header.push('.');
                }
                header.push_str(k);
                p.push(
                    &self.key(k),
                    format!(
                        "expected [[{header}]] tables (an array of tables, one per entry), found a single [{header}] table: write [[{header}]]"
                    ),
                );
                Vec::new()
            }
            Some(other) => {
                p.push(
                    &self.key(k),
                    format!("expected [[{k}]] tables, found {}", describe(other)),
                );
                Vec::new()
            }
        }
    }

    /// Records every key of the table that was not read, with the valid keys.
    pub(crate) fn finish(self, p: &mut Problems) {
        for k in self.table.keys() {
            if !self.used.iter().any(|u| u == k) {
                let mut valid: Vec<&str> = self.used.clone();
                valid.sort_unstable();
                valid.dedup();
                let near = nearest(k, valid.iter().copied())
                    .map(|v| format!(" (did you mean '{v}'?)"))
                    .unwrap_or_default();
                p.push(
                    &self.key(k),
                    format!("unknown key{near}; valid keys here: {}", valid.join(", ")),
                );
            }
        }
    }
}

/// A short description of a value for messages: its type and, when short, itself.
pub(crate) fn describe(v: &Value) -> String {
    let text = v.to_string();
    if text.len() <= 40 {
        format!("{} ({text})", kind(v))
    } else {
        kind(v).to_string()
    }
}
