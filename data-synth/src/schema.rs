//! The schema TOML written next to every CSV: column types and roles.
//!
//! The shape is fixed by the data-model crate (`intruder-data`), which reads exactly this:
//!
//! ```toml
//! # written by intruder synth survey-panel (seed 7)
//! delimiter = ","
//! missing = [""]
//! [columns.gender]
//! type = "categorical"
//! role = "key"
//! categories = ["male", "female"]
//! ```

use std::fmt::Write as _;

/// Column type, as named in the schema file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    /// Unordered categories (optionally with a level order).
    Categorical,
    /// Whole numbers.
    Integer,
    /// Real numbers.
    Float,
    /// Free text (identifiers, names).
    String,
    /// Set-valued: several categories joined by a separator, e.g. `3|4`.
    Set,
}

impl ColumnType {
    /// Name used in the schema file.
    pub fn as_str(self) -> &'static str {
        match self {
            ColumnType::Categorical => "categorical",
            ColumnType::Integer => "integer",
            ColumnType::Float => "float",
            ColumnType::String => "string",
            ColumnType::Set => "set",
        }
    }
}

/// Column role, as named in the schema file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Direct identifier (record number released with the file).
    Identifier,
    /// Quasi-identifier an intruder may know.
    Key,
    /// Sensitive attribute an intruder wants to learn.
    Sensitive,
    /// Design weight.
    Weight,
    /// Grouping (e.g. household, split indicator).
    Group,
    /// Wave number of a panel.
    Wave,
    /// Ground truth: never released, seen only by the evaluator.
    Truth,
    /// Anything else.
    Other,
}

impl Role {
    /// Name used in the schema file.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Identifier => "identifier",
            Role::Key => "key",
            Role::Sensitive => "sensitive",
            Role::Weight => "weight",
            Role::Group => "group",
            Role::Wave => "wave",
            Role::Truth => "truth",
            Role::Other => "other",
        }
    }
}

/// One column of a schema.
#[derive(Debug, Clone)]
pub struct Column {
    /// Column name (a bare TOML key: letters, digits, `_`).
    pub name: String,
    /// Type.
    pub ty: ColumnType,
    /// Role.
    pub role: Role,
    /// Level order, for categorical and set columns.
    pub categories: Option<Vec<String>>,
    /// Separator of set-valued cells.
    pub separator: Option<char>,
}

/// The schema of one CSV file, in column order.
#[derive(Debug, Clone, Default)]
pub struct Schema {
    /// Columns in file order.
    pub columns: Vec<Column>,
}

impl Schema {
    /// An empty schema.
    pub fn new() -> Self {
        Schema::default()
    }

    /// Add a column without categories.
    pub fn col(mut self, name: &str, ty: ColumnType, role: Role) -> Self {
        self.columns.push(Column {
            name: name.to_string(),
            ty,
            role,
            categories: None,
            separator: None,
        });
        self
    }

    /// Add a categorical column with its level order.
    pub fn cat<S: AsRef<str>>(mut self, name: &str, role: Role, categories: &[S]) -> Self {
        self.columns.push(Column {
            name: name.to_string(),
            ty: ColumnType::Categorical,
            role,
            categories: Some(categories.iter().map(|c| c.as_ref().to_string()).collect()),
            separator: None,
        });
        self
    }

    /// Add a set-valued column (cells joined by `|`).
    pub fn set<S: AsRef<str>>(mut self, name: &str, role: Role, categories: &[S]) -> Self {
        self.columns.push(Column {
            name: name.to_string(),
            ty: ColumnType::Set,
            role,
            categories: Some(categories.iter().map(|c| c.as_ref().to_string()).collect()),
            separator: Some('|'),
        });
        self
    }

    /// Column names in order (the CSV header).
    pub fn header(&self) -> Vec<&str> {
        self.columns.iter().map(|c| c.name.as_str()).collect()
    }

    /// Render as TOML. `origin` goes into the first comment line, e.g.
    /// `survey-panel (seed 7)`; `params` into the second.
    pub fn to_toml(&self, origin: &str, params: &str) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# written by intruder synth {origin}");
        if !params.is_empty() {
            let _ = writeln!(s, "# parameters: {params}");
        }
        s.push_str("delimiter = \",\"\nmissing = [\"\"]\n");
        for c in &self.columns {
            let _ = writeln!(s, "[columns.{}]", c.name);
            let _ = writeln!(s, "type = \"{}\"", c.ty.as_str());
            let _ = writeln!(s, "role = \"{}\"", c.role.as_str());
            if let Some(cats) = &c.categories {
                let quoted: Vec<String> = cats.iter().map(|c| toml_string(c)).collect();
                let _ = writeln!(s, "categories = [{}]", quoted.join(", "));
            }
            if let Some(sep) = c.separator {
                let _ = writeln!(s, "separator = {}", toml_string(&sep.to_string()));
            }
        }
        s
    }
}

fn toml_string(v: &str) -> String {
    let mut out = String::with_capacity(v.len() + 2);
    out.push('"');
    for ch in v.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_the_documented_shape() {
        let s = Schema::new()
            .col("person_id", ColumnType::String, Role::Truth)
            .cat("gender", Role::Key, &["male", "female"])
            .set("mob", Role::Key, &["1", "2"]);
        let t = s.to_toml("survey-panel (seed 7)", "");
        let expected = "# written by intruder synth survey-panel (seed 7)\n\
delimiter = \",\"\nmissing = [\"\"]\n\
[columns.person_id]\ntype = \"string\"\nrole = \"truth\"\n\
[columns.gender]\ntype = \"categorical\"\nrole = \"key\"\ncategories = [\"male\", \"female\"]\n\
[columns.mob]\ntype = \"set\"\nrole = \"key\"\ncategories = [\"1\", \"2\"]\nseparator = \"|\"\n";
        assert_eq!(t, expected);
    }
}
