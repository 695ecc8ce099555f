//! Tables: what an attack, a defence or a risk measure sees.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::column::{Column, Kind, Role};
use crate::error::DataError;
use crate::schema::{ColumnSpec, Schema};

/// What a table is called in messages and reports: the file it was read from as the user named
/// it, `NAME (masked)` for a release, the experiment's name for its data. A label only: the
/// table model cannot open it (no method reads a file through a table; the readers, which
/// alone can load a file's truth, live in another crate).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SourceLabel(Arc<str>);

impl SourceLabel {
    /// The label's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The label where an error names a file.
    pub fn error_file(&self) -> PathBuf {
        PathBuf::from(self.as_str())
    }
}

impl fmt::Display for SourceLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for SourceLabel {
    fn from(s: &str) -> Self {
        SourceLabel(s.into())
    }
}

impl From<String> for SourceLabel {
    fn from(s: String) -> Self {
        SourceLabel(s.into())
    }
}

impl From<&String> for SourceLabel {
    fn from(s: &String) -> Self {
        SourceLabel(s.as_str().into())
    }
}

/// A file's path as the user gave it (lossily, where it is not Unicode).
impl From<&Path> for SourceLabel {
    fn from(p: &Path) -> Self {
        SourceLabel(p.to_string_lossy().into())
    }
}

impl From<PathBuf> for SourceLabel {
    fn from(p: PathBuf) -> Self {
        SourceLabel::from(p.as_path())
    }
}

impl From<&PathBuf> for SourceLabel {
    fn from(p: &PathBuf) -> Self {
        SourceLabel::from(p.as_path())
    }
}

impl From<&SourceLabel> for SourceLabel {
    fn from(l: &SourceLabel) -> Self {
        l.clone()
    }
}

/// A columnar table of microdata: what an attack, a defence or a risk measure sees.
///
/// A table never holds a column with role [`Role::Truth`]: the ground truth (who is who) is set
/// apart when a file is loaded (`intruder_data::Dataset::truth`), in a crate no attack, defence,
/// risk, utility or question crate depends on, even transitively; their APIs take a `&Table`,
/// so they cannot read it by construction.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    source: SourceLabel,
    columns: Vec<Column>,
    index: HashMap<String, usize>,
    nrows: usize,
}

impl Table {
    /// Builds a table. Columns must have distinct names, equal lengths and no truth role.
    pub fn new(source: impl Into<SourceLabel>, columns: Vec<Column>) -> Result<Self, DataError> {
        let nrows = columns.first().map_or(0, Column::len);
        Table::with_rows(source, columns, nrows)
    }

    /// [`Table::new`] with its number of rows given, so that a table may have rows and no
    /// column (a file read for its truth and row count alone); every column must have `nrows`
    /// rows.
    pub fn with_rows(
        source: impl Into<SourceLabel>,
        columns: Vec<Column>,
        nrows: usize,
    ) -> Result<Self, DataError> {
        let source = source.into();
        let mut index = HashMap::with_capacity(columns.len());
        for (i, c) in columns.iter().enumerate() {
            if c.role() == Role::Truth {
                return Err(DataError::Invalid(format!(
                    "column '{}' has role truth: ground truth is set apart from a Table (Dataset::truth)",
                    c.name()
                )));
            }
            if c.len() != nrows {
                return Err(DataError::Invalid(format!(
                    "column '{}' has {} rows, {} has {nrows}",
                    c.name(),
                    c.len(),
                    match i {
                        0 => "the table".to_string(),
                        _ => format!("column '{}'", columns[0].name()),
                    }
                )));
            }
            if index.insert(c.name().to_string(), i).is_some() {
                return Err(DataError::Invalid(format!(
                    "two columns are named '{}'",
                    c.name()
                )));
            }
        }
        Ok(Table {
            source,
            columns,
            index,
            nrows,
        })
    }

    /// What the table is called in messages and reports (the file it was read from, as named,
    /// or a label such as `NAME (masked)`).
    pub fn source(&self) -> &SourceLabel {
        &self.source
    }

    /// Names the table's source anew (messages and reports name it so): e.g. the experiment
    /// runner names a file as the experiment does, whatever path it was read from.
    pub fn relabel(&mut self, source: impl Into<SourceLabel>) {
        self.source = source.into();
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.columns.len()
    }

    /// The columns, taken out of the table.
    pub fn into_columns(self) -> Vec<Column> {
        self.columns
    }

    /// The columns in order.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The column names in order.
    pub fn names(&self) -> Vec<&str> {
        self.columns.iter().map(Column::name).collect()
    }

    /// Position of a column.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    /// The column called `name`, or an error that lists the columns and suggests a near name.
    pub fn column(&self, name: &str) -> Result<&Column, DataError> {
        match self.index.get(name) {
            Some(&i) => Ok(&self.columns[i]),
            None => Err(unknown_column(&self.source, name, self.names())),
        }
    }

    /// Columns having `role`, in order.
    pub fn with_role(&self, role: Role) -> Vec<&Column> {
        self.columns.iter().filter(|c| c.role() == role).collect()
    }

    /// Sets the role of a column (not to truth: `intruder_data::Dataset::split_truth` sets truth apart).
    pub fn set_role(&mut self, name: &str, role: Role) -> Result<(), DataError> {
        if role == Role::Truth {
            return Err(DataError::Column {
                file: self.source.error_file(),
                name: name.into(),
                message: "a table column cannot take the truth role".into(),
            });
        }
        let i = self
            .position(name)
            .ok_or_else(|| unknown_column(&self.source, name, self.names()))?;
        self.columns[i].set_role_unchecked(role);
        Ok(())
    }

    /// Replaces the column of the same name (same length required).
    pub fn replace(&mut self, column: Column) -> Result<Column, DataError> {
        let i = self
            .position(column.name())
            .ok_or_else(|| unknown_column(&self.source, column.name(), self.names()))?;
        if column.len() != self.nrows || column.role() == Role::Truth {
            return Err(DataError::Invalid(format!(
                "replacement column '{}' does not fit",
                column.name()
            )));
        }
        Ok(std::mem::replace(&mut self.columns[i], column))
    }

    /// Appends a column.
    pub fn push(&mut self, column: Column) -> Result<(), DataError> {
        let mut cols = std::mem::take(&mut self.columns);
        cols.push(column);
        let t = Table::new(self.source.clone(), cols)?;
        *self = t;
        Ok(())
    }

    /// The rows `rows`, in that order.
    pub fn take(&self, rows: &[usize]) -> Table {
        Table {
            source: self.source.clone(),
            columns: self.columns.iter().map(|c| c.take(rows)).collect(),
            index: self.index.clone(),
            nrows: rows.len(),
        }
    }

    /// Writes the table as CSV (header, `,` delimiter, missing as empty fields), whole or not at
    /// all: into a temporary file beside `path`, then renamed.
    pub fn write_csv(&self, path: &Path) -> Result<(), DataError> {
        crate::write::write_columns(path, &self.columns.iter().collect::<Vec<_>>(), self.nrows)
    }

    /// The schema describing this table's columns (types, roles, level order).
    pub fn schema(&self) -> Schema {
        schema_of(self.columns.iter())
    }
}

/// The schema describing `columns` as the writers write them: `,` delimited, missing as
/// empty fields, each column's kind, role and levels.
pub fn schema_of<'a>(columns: impl Iterator<Item = &'a Column>) -> Schema {
    let mut schema = Schema {
        delimiter: Some(b','),
        missing: Some(vec![String::new()]),
        ..Schema::default()
    };
    for c in columns {
        let spec = ColumnSpec {
            kind: Some(c.kind()),
            role: Some(c.role()),
            categories: match c.kind() {
                Kind::Categorical | Kind::Set => c.levels().map(<[String]>::to_vec),
                _ => None,
            },
            separator: (c.kind() == Kind::Set).then(|| "|".to_string()),
            missing: None,
        };
        schema.columns.push((c.name().to_string(), spec));
    }
    schema
}

/// The error for a column `name` that `source` does not have, with a did-you-mean among `names`.
pub fn unknown_column(source: impl Into<SourceLabel>, name: &str, names: Vec<&str>) -> DataError {
    DataError::UnknownColumn {
        file: source.into().error_file(),
        name: name.to_string(),
        hint: crate::params::did_you_mean(name, names.iter().copied())
            + &crate::params::one_column_hint(&names),
        available: names.join(", "),
    }
}

/// Every name of `absent` missing from `names`, each with its did-you-mean, in one error.
pub fn unknown_columns(
    source: impl Into<SourceLabel>,
    absent: &[&str],
    names: Vec<&str>,
) -> DataError {
    DataError::UnknownColumns {
        file: source.into().error_file(),
        names: absent
            .iter()
            .map(|n| {
                format!(
                    "'{n}'{}",
                    crate::params::did_you_mean(n, names.iter().copied())
                )
            })
            .collect(),
        hint: crate::params::one_column_hint(&names),
        available: names.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_cannot_hold_the_truth() {
        let id = Column::string("pid", Role::Truth, &[Some("a")]);
        let err = Table::new("x.csv", vec![id.clone()]).unwrap_err();
        assert!(
            err.to_string()
                .contains("ground truth is set apart from a Table"),
            "{err}"
        );
        let key = Column::integer("age", Role::Key, &[Some(3)]);
        let mut t = Table::new("x.csv", vec![key]).unwrap();
        assert!(t.set_role("age", Role::Truth).is_err());
        assert!(t.push(id).is_err());
    }

    #[test]
    fn unknown_column_suggests_a_near_name() {
        let t = Table::new(
            "f.csv",
            vec![Column::integer("Gender", Role::Key, &[Some(1)])],
        )
        .unwrap();
        let e = t.column("gendr").unwrap_err().to_string();
        assert!(
            e.contains("no column named 'gendr'") && e.contains("did you mean 'Gender'"),
            "{e}"
        );
    }

    #[test]
    fn duplicate_names_and_ragged_columns_are_rejected() {
        let a = Column::integer("a", Role::Key, &[Some(1)]);
        assert!(Table::new("f", vec![a.clone(), a.clone()]).is_err());
        let b = Column::integer("b", Role::Key, &[Some(1), Some(2)]);
        assert!(Table::new("f", vec![a, b]).is_err());
    }

    #[test]
    fn a_source_is_a_label_named_in_messages() {
        let age = Column::integer("age", Role::Key, &[Some(3)]);
        let mut t = Table::new(Path::new("data/people.csv"), vec![age]).unwrap();
        assert_eq!(t.source().as_str(), "data/people.csv");
        let e = t.column("agg").unwrap_err().to_string();
        assert!(e.starts_with("data/people.csv: "), "{e}");
        t.relabel("people.csv (masked)");
        assert_eq!(t.source().to_string(), "people.csv (masked)");
        let e = t.column("agg").unwrap_err().to_string();
        assert!(e.starts_with("people.csv (masked): "), "{e}");
        // a table built from another keeps its label
        assert_eq!(t.take(&[0]).source(), t.source());
    }
}
