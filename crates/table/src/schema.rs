//! Schema files: declared types, roles, missing tokens and category order.
//!
//! ```toml
//! delimiter = ","                 # optional; one ASCII character (default: detected)
//! decimal = "."                   # optional; "." or "," (default: detected)
//! missing = ["", "NA", "."]       # optional; tokens read as missing in every column
//! [columns.gender]
//! type = "categorical"            # categorical | integer | float | string | set
//! role = "key"                    # identifier | key | sensitive | weight | group | wave | truth | other
//! categories = ["M", "F"]         # optional level order (categorical, set)
//! [columns.birth_month]
//! type = "set"
//! separator = "|"                 # cells such as 3|4
//! missing = ["?"]                 # optional; replaces the file-wide tokens for this column
//! ```
//! Columns the schema does not name are inferred. Every problem in a schema is reported at once.

use std::path::{Path, PathBuf};

use crate::column::{Kind, Role};
use crate::error::DataError;

/// A parsed schema.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Schema {
    /// Field delimiter.
    pub delimiter: Option<u8>,
    /// Decimal mark of numbers (`.` or `,`).
    pub decimal: Option<u8>,
    /// File-wide missing tokens.
    pub missing: Option<Vec<String>>,
    /// Column specifications in file order.
    pub columns: Vec<(String, ColumnSpec)>,
}

/// What a schema declares about one column; `None` means "infer" or "default".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ColumnSpec {
    /// The storage type.
    pub kind: Option<Kind>,
    /// The role.
    pub role: Option<Role>,
    /// Level order for categorical and set-valued columns.
    pub categories: Option<Vec<String>>,
    /// Missing tokens for this column.
    pub missing: Option<Vec<String>>,
    /// Separator of set-valued cells (default `|`).
    pub separator: Option<String>,
}

impl Schema {
    /// The spec of column `name`.
    pub fn get(&self, name: &str) -> Option<&ColumnSpec> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }

    /// The spec of column `name`, created empty when absent.
    pub fn entry(&mut self, name: &str) -> &mut ColumnSpec {
        let i = match self.columns.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                self.columns.push((name.to_string(), ColumnSpec::default()));
                self.columns.len() - 1
            }
        };
        &mut self.columns[i].1
    }

    /// Reads a schema file.
    pub fn from_file(path: &Path) -> Result<Schema, DataError> {
        let text = std::fs::read_to_string(path).map_err(|source| DataError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Schema::from_toml(&text, path)
    }

    /// Parses schema text; `path` names it in errors. Every problem is reported at once.
    pub fn from_toml(text: &str, path: &Path) -> Result<Schema, DataError> {
        let fail = |problems: Vec<String>| DataError::Schema {
            path: PathBuf::from(path),
            problems,
        };
        let doc: toml::Table =
            toml::from_str(text).map_err(|e| fail(vec![e.to_string().trim().to_string()]))?;
        let mut problems = Vec::new();
        let mut schema = Schema::default();
        for (key, value) in &doc {
            match key.as_str() {
                "delimiter" => match value.as_str() {
                    Some(s) if s.len() == 1 && s.is_ascii() => {
                        schema.delimiter = Some(s.as_bytes()[0])
                    }
                    Some("\\t") => schema.delimiter = Some(b'\t'),
                    _ => problems.push(format!(
                        "delimiter: expected one ASCII character, found {value}"
                    )),
                },
                "decimal" => match value.as_str() {
                    Some(".") => schema.decimal = Some(b'.'),
                    Some(",") => schema.decimal = Some(b','),
                    _ => problems.push(format!("decimal: expected \".\" or \",\", found {value}")),
                },
                "missing" => match string_list(value) {
                    Some(v) => schema.missing = Some(v),
                    None => problems.push(format!(
                        "missing: expected a list of strings, found {value}"
                    )),
                },
                "columns" => match value.as_table() {
                    Some(cols) => {
                        for (name, spec) in cols {
                            match spec.as_table() {
                                Some(spec) => {
                                    let parsed = column_spec(name, spec, &mut problems);
                                    schema.columns.push((name.clone(), parsed));
                                }
                                None => problems.push(format!(
                                    "columns.{name}: expected a table, found {spec}"
                                )),
                            }
                        }
                    }
                    None => {
                        problems.push("columns: expected a table of column specifications".into())
                    }
                },
                other => problems.push(format!(
                    "{other}: unknown key; expected delimiter, decimal, missing or columns"
                )),
            }
        }
        // A file has one sampling weight and one true person id.
        for role in [Role::Weight, Role::Truth] {
            let named: Vec<&str> = schema
                .columns
                .iter()
                .filter(|(_, s)| s.role == Some(role))
                .map(|(n, _)| n.as_str())
                .collect();
            if named.len() > 1 {
                problems.push(format!(
                    "columns: role = \"{}\" is given to {} columns ({}); expected at most one",
                    role.as_str(),
                    named.len(),
                    named.join(", ")
                ));
            }
        }
        if problems.is_empty() {
            Ok(schema)
        } else {
            Err(fail(problems))
        }
    }

    /// The schema as TOML text that [`Schema::from_toml`] reads back.
    pub fn to_toml(&self) -> String {
        let q = |s: &str| toml::Value::String(s.to_string()).to_string();
        let list = |v: &[String]| {
            format!(
                "[{}]",
                v.iter().map(|s| q(s)).collect::<Vec<_>>().join(", ")
            )
        };
        let mut out = String::new();
        if let Some(d) = self.delimiter {
            let d = if d == b'\t' {
                "\\t".to_string()
            } else {
                (d as char).to_string()
            };
            out += &format!("delimiter = {}\n", q(&d));
        }
        if let Some(d) = self.decimal {
            out += &format!("decimal = {}\n", q(&(d as char).to_string()));
        }
        if let Some(m) = &self.missing {
            out += &format!("missing = {}\n", list(m));
        }
        for (name, spec) in &self.columns {
            out += &format!("\n[columns.{}]\n", q(name));
            if let Some(k) = spec.kind {
                out += &format!("type = {}\n", q(k.as_str()));
            }
            if let Some(r) = spec.role {
                out += &format!("role = {}\n", q(r.as_str()));
            }
            if let Some(c) = &spec.categories {
                out += &format!("categories = {}\n", list(c));
            }
            if let Some(m) = &spec.missing {
                out += &format!("missing = {}\n", list(m));
            }
            if let Some(s) = &spec.separator {
                out += &format!("separator = {}\n", q(s));
            }
        }
        out
    }
}

fn string_list(v: &toml::Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|x| x.as_str().map(str::to_string))
        .collect()
}

fn column_spec(name: &str, spec: &toml::Table, problems: &mut Vec<String>) -> ColumnSpec {
    let mut out = ColumnSpec::default();
    for (key, value) in spec {
        let at = format!("columns.{name}.{key}");
        match key.as_str() {
            "type" => match value.as_str().map(str::parse::<Kind>) {
                Some(Ok(k)) => out.kind = Some(k),
                Some(Err(e)) => problems.push(format!("{at}: {e}")),
                None => problems.push(format!("{at}: expected a string, found {value}")),
            },
            "role" => match value.as_str().map(str::parse::<Role>) {
                Some(Ok(r)) => out.role = Some(r),
                Some(Err(e)) => problems.push(format!("{at}: {e}")),
                None => problems.push(format!("{at}: expected a string, found {value}")),
            },
            "categories" => match string_list(value) {
                Some(v) => {
                    let mut seen = std::collections::HashSet::new();
                    if let Some(d) = v.iter().find(|c| !seen.insert(*c)) {
                        problems.push(format!("{at}: category '{d}' is listed twice"));
                    }
                    out.categories = Some(v);
                }
                None => problems.push(format!("{at}: expected a list of strings, found {value}")),
            },
            "missing" => match string_list(value) {
                Some(v) => out.missing = Some(v),
                None => problems.push(format!("{at}: expected a list of strings, found {value}")),
            },
            "separator" => match value.as_str() {
                Some(s) if !s.is_empty() => out.separator = Some(s.to_string()),
                _ => problems.push(format!("{at}: expected a non-empty string, found {value}")),
            },
            _ => problems.push(format!(
                "{at}: unknown key; expected type, role, categories, missing or separator"
            )),
        }
    }
    if out.categories.is_some()
        && !matches!(out.kind, None | Some(Kind::Categorical) | Some(Kind::Set))
    {
        problems.push(format!(
            "columns.{name}.categories: only categorical and set columns have categories"
        ));
    }
    if out.separator.is_some() && out.kind != Some(Kind::Set) {
        problems.push(format!(
            "columns.{name}.separator: only set columns (type = \"set\") have a separator"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let text = r#"
delimiter = ";"
missing = ["", "NA"]
[columns.g]
type = "categorical"
role = "key"
categories = ["M", "F"]
[columns.m]
type = "set"
separator = "|"
"#;
        let s = Schema::from_toml(text, Path::new("s.toml")).unwrap();
        assert_eq!(s.delimiter, Some(b';'));
        assert_eq!(
            s.get("g").unwrap().categories.as_deref(),
            Some(&["M".to_string(), "F".to_string()][..])
        );
        let again = Schema::from_toml(&s.to_toml(), Path::new("s2.toml")).unwrap();
        assert_eq!(again, s);
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let text = r#"
delimter = ","
[columns.a]
type = "text"
role = "quasi"
[columns.b]
type = "integer"
categories = ["x", "x"]
colour = 3
"#;
        let err = Schema::from_toml(text, Path::new("bad.toml"))
            .unwrap_err()
            .to_string();
        for needle in [
            "bad.toml",
            "delimter: unknown key",
            "columns.a.type: unknown type 'text'",
            "columns.a.role: unknown role 'quasi'",
            "columns.b.categories: category 'x' is listed twice",
            "columns.b.colour: unknown key",
            "columns.b.categories: only categorical and set",
        ] {
            assert!(err.contains(needle), "missing {needle:?} in:\n{err}");
        }
    }

    #[test]
    fn toml_syntax_errors_name_the_file_and_line() {
        let err = Schema::from_toml("[columns.a\ntype=", Path::new("broken.toml"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("broken.toml") && err.contains("line 1"),
            "{err}"
        );
    }
}
