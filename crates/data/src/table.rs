//! Tables, and data sets pairing a table with the ground-truth columns its file set apart.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::column::{Column, Kind, Role};
use crate::error::DataError;
use crate::schema::{ColumnSpec, Schema};

/// A columnar table of microdata: what an attack, a defence or a risk measure sees.
///
/// A table never holds a column with role [`Role::Truth`]: the ground truth (who is who) is set
/// apart when a file is loaded ([`Dataset::truth`]) and read only through the evaluator's crate
/// (`intruder-eval`, which no attack, defence, risk or utility crate depends on). Their APIs take
/// a `&Table`, so they cannot read it by construction.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    source: PathBuf,
    columns: Vec<Column>,
    index: HashMap<String, usize>,
    nrows: usize,
}

impl Table {
    /// Builds a table. Columns must have distinct names, equal lengths and no truth role.
    pub fn new(source: impl Into<PathBuf>, columns: Vec<Column>) -> Result<Self, DataError> {
        let source = source.into();
        let nrows = columns.first().map_or(0, Column::len);
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
                    "column '{}' has {} rows, column '{}' has {nrows}",
                    c.name(),
                    c.len(),
                    columns[0].name()
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

    /// Where the table came from (a file path or a label).
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// Names the table's source anew (messages and reports name it so): e.g. the experiment
    /// runner names a file as the experiment does, whatever path it was read from.
    pub fn relabel(&mut self, source: impl Into<PathBuf>) {
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

    /// Sets the role of a column (not to truth: use [`Dataset::split_truth`]).
    pub fn set_role(&mut self, name: &str, role: Role) -> Result<(), DataError> {
        if role == Role::Truth {
            return Err(DataError::Column {
                file: self.source.clone(),
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

    /// The schema describing this table's columns (types, roles, level order).
    pub fn schema(&self) -> Schema {
        schema_of(self.columns.iter())
    }
}

/// A table and the ground-truth columns of the same file, row for row, as loaded.
///
/// The truth columns are plain columns here: this crate only carries them from the file to the
/// evaluator's side (`intruder_eval::Labelled`, which keeps them aligned with the table through
/// every row operation) and back to a file (`mask` passes them through).
#[derive(Debug, Clone, PartialEq)]
pub struct Dataset {
    /// What attacks, defences and risk measures see.
    pub table: Table,
    /// The columns with role truth (true person ids, true original values), as many rows as
    /// the table.
    pub truth: Vec<Column>,
    /// What the reader chose that the file and the user did not say (a delimiter or decimal
    /// mark detected from the first lines), one sentence each naming the file: the command
    /// line prints them as `note:`, Python raises them as warnings.
    pub notes: Vec<String>,
}

impl Dataset {
    /// Splits columns by role: truth columns go to [`Dataset::truth`], the rest to the [`Table`].
    pub fn split_truth(
        source: impl Into<PathBuf>,
        columns: Vec<Column>,
    ) -> Result<Self, DataError> {
        let (truth, rest): (Vec<Column>, Vec<Column>) =
            columns.into_iter().partition(|c| c.role() == Role::Truth);
        if let (Some(t), Some(r)) = (truth.first(), rest.first())
            && t.len() != r.len()
        {
            return Err(DataError::Invalid(format!(
                "truth column '{}' has {} rows, the table {}",
                t.name(),
                t.len(),
                r.len()
            )));
        }
        Ok(Dataset {
            table: Table::new(source, rest)?,
            truth,
            notes: Vec::new(),
        })
    }

    /// The rows `rows` of table and truth.
    pub fn take(&self, rows: &[usize]) -> Dataset {
        Dataset {
            table: self.table.take(rows),
            truth: self.truth.iter().map(|c| c.take(rows)).collect(),
            notes: self.notes.clone(),
        }
    }

    /// The truth column called `name`.
    pub fn truth_column(&self, name: &str) -> Option<&Column> {
        self.truth.iter().find(|c| c.name() == name)
    }

    /// Table and truth columns, in that order.
    pub fn all_columns(&self) -> impl Iterator<Item = &Column> {
        self.table.columns().iter().chain(&self.truth)
    }

    /// The schema of table and truth columns together.
    pub fn schema(&self) -> Schema {
        schema_of(self.all_columns())
    }
}

fn schema_of<'a>(columns: impl Iterator<Item = &'a Column>) -> Schema {
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

pub(crate) fn unknown_column(source: &Path, name: &str, names: Vec<&str>) -> DataError {
    DataError::UnknownColumn {
        file: source.to_path_buf(),
        name: name.to_string(),
        hint: crate::params::did_you_mean(name, names.iter().copied())
            + &crate::params::one_column_hint(&names),
        available: names.join(", "),
    }
}

/// Every name of `absent` missing from `names`, each with its did-you-mean, in one error.
pub(crate) fn unknown_columns(source: &Path, absent: &[&str], names: Vec<&str>) -> DataError {
    DataError::UnknownColumns {
        file: source.to_path_buf(),
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
        let ds = Dataset::split_truth("x.csv", vec![key, id]).unwrap();
        assert_eq!(ds.table.names(), vec!["age"]);
        assert!(ds.table.column("pid").is_err());
        assert_eq!(ds.truth_column("pid").unwrap().text(0).unwrap(), "a");
        let mut t = ds.table.clone();
        assert!(t.set_role("age", Role::Truth).is_err());
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
}
