//! A table and the ground-truth columns its file set apart: what a reader returns. Only the
//! evaluator's side (`intruder-eval`) and the surfaces see a [`Dataset`]; methods see its
//! [`Table`].

use crate::{Column, DataError, Kind, Role, Schema, Table};

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
    /// The file's columns a read with a selection ([`crate::Select`]) left out: name, kind
    /// and role. The kind is the one declared, else the one read (CSV), else the one
    /// stored (Parquet, Arrow IPC and statistical files: integers, floats; text as a string,
    /// since a text column not read is not told categorical). Writing the data set writes only
    /// the columns read.
    pub unread: Vec<(String, Kind, Role)>,
}

impl Dataset {
    /// Splits columns by role: truth columns go to [`Dataset::truth`], the rest to the [`Table`].
    pub fn split_truth(
        source: impl Into<intruder_table::SourceLabel>,
        columns: Vec<Column>,
    ) -> Result<Self, DataError> {
        let nrows = columns.first().map_or(0, Column::len);
        Dataset::split_truth_rows(source, columns, nrows)
    }

    /// [`Dataset::split_truth`] of a file of `nrows` records, so that a table keeps its rows
    /// when no column of it was read (a file read for its truth alone).
    pub fn split_truth_rows(
        source: impl Into<intruder_table::SourceLabel>,
        columns: Vec<Column>,
        nrows: usize,
    ) -> Result<Self, DataError> {
        let (truth, rest): (Vec<Column>, Vec<Column>) =
            columns.into_iter().partition(|c| c.role() == Role::Truth);
        if let Some(t) = truth.iter().find(|t| t.len() != nrows) {
            return Err(DataError::Invalid(format!(
                "truth column '{}' has {} rows, the table {nrows}",
                t.name(),
                t.len(),
            )));
        }
        Ok(Dataset {
            table: Table::with_rows(source, rest, nrows)?,
            truth,
            notes: Vec::new(),
            unread: Vec::new(),
        })
    }

    /// The columns `select` keeps; the others are listed in [`Dataset::unread`].
    pub fn selected(self, select: &crate::Select) -> Result<Dataset, DataError> {
        let nrows = self.table.nrows();
        let source = self.table.source().clone();
        let mut unread = self.unread;
        let mut kept = Vec::new();
        for c in self.table.into_columns().into_iter().chain(self.truth) {
            if select.keeps(c.name(), c.role()) {
                kept.push(c);
            } else {
                unread.push((c.name().to_string(), c.kind(), c.role()));
            }
        }
        let mut ds = Dataset::split_truth_rows(source, kept, nrows)?;
        ds.notes = self.notes;
        ds.unread = unread;
        Ok(ds)
    }

    /// The rows `rows` of table and truth.
    pub fn take(&self, rows: &[usize]) -> Dataset {
        Dataset {
            table: self.table.take(rows),
            truth: self.truth.iter().map(|c| c.take(rows)).collect(),
            notes: self.notes.clone(),
            unread: self.unread.clone(),
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

    /// The columns of table and truth, for checking parameters against
    /// ([`crate::params::ColumnSet::of_parts`]), and the columns a selection left
    /// [`unread`](Dataset::unread) (their values not known).
    pub fn column_set(&self) -> crate::params::ColumnSet {
        let mut set = crate::params::ColumnSet::of_parts(&self.table, &self.truth);
        set.columns.extend(self.unread.iter().cloned());
        set
    }

    /// The schema of table and truth columns together.
    pub fn schema(&self) -> Schema {
        intruder_table::schema_of(self.all_columns())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truth_columns_are_set_apart_from_the_table() {
        let id = Column::string("pid", Role::Truth, &[Some("a")]);
        let key = Column::integer("age", Role::Key, &[Some(3)]);
        let ds = Dataset::split_truth("x.csv", vec![key, id]).unwrap();
        assert_eq!(ds.table.names(), vec!["age"]);
        assert!(ds.table.column("pid").is_err());
        assert_eq!(ds.truth_column("pid").unwrap().text(0).unwrap(), "a");
        let long = Column::string("pid", Role::Truth, &[Some("a"), Some("b")]);
        let key = Column::integer("age", Role::Key, &[Some(3)]);
        assert!(Dataset::split_truth("x.csv", vec![key, long]).is_err());
    }
}
