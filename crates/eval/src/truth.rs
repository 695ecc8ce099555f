//! The ground truth: true person ids and true original values, set apart from every table.

use intruder_attack::AttackError;
use intruder_data::{Bitmap, Column, ColumnData, Role, Table};

/// Ground-truth columns (true person ids, true original values). Only this crate's evaluator
/// and the labelled data ([`crate::Labelled`]) hold one; no attack, defence, risk or utility
/// crate can name this type (they do not depend on this crate).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Truth {
    columns: Vec<Column>,
}

impl Truth {
    /// Ground truth from columns (their role is set to truth).
    pub fn new(columns: Vec<Column>) -> Self {
        Truth {
            columns: columns
                .into_iter()
                .map(|c| c.with_role(Role::Truth))
                .collect(),
        }
    }

    /// True when there is no ground truth.
    pub fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// Number of rows (0 without columns).
    pub fn nrows(&self) -> Option<usize> {
        self.columns.first().map(Column::len)
    }

    /// The truth column called `name`.
    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name() == name)
    }

    /// The truth column called `name`, or an error naming `table`'s file, the column and the
    /// truth columns present.
    pub fn require(&self, table: &Table, name: &str) -> Result<&Column, AttackError> {
        self.column(name).ok_or_else(|| AttackError::MissingTruth {
            file: table.source().to_string(),
            name: name.to_string(),
            available: self.names(),
        })
    }

    /// The truth columns.
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The names of the truth columns, comma-separated ("none" without any), for messages.
    pub fn names(&self) -> String {
        if self.columns.is_empty() {
            return "none".into();
        }
        let names: Vec<&str> = self.columns.iter().map(Column::name).collect();
        names.join(", ")
    }

    /// The rows `rows`, in that order.
    pub(crate) fn take(&self, rows: &[usize]) -> Truth {
        Truth {
            columns: self.columns.iter().map(|c| c.take(rows)).collect(),
        }
    }

    /// The columns, for writing them back to a file.
    pub(crate) fn into_columns(self) -> Vec<Column> {
        self.columns
    }

    /// The same truth columns for `n` records that are no one (synthetic records): every cell
    /// missing.
    pub(crate) fn no_one(&self, n: usize) -> Truth {
        Truth {
            columns: self.columns.iter().map(|c| all_missing(c, n)).collect(),
        }
    }

    pub(crate) fn push(&mut self, column: Column) {
        self.columns.push(column.with_role(Role::Truth));
    }
}

/// A column named and typed as `like` with `n` cells, all missing.
fn all_missing(like: &Column, n: usize) -> Column {
    let data = match like.data() {
        ColumnData::Categorical { levels, .. } => ColumnData::Categorical {
            codes: vec![0; n],
            levels: levels.clone(),
        },
        ColumnData::Integer(_) => ColumnData::Integer(vec![0; n]),
        ColumnData::Float(_) => ColumnData::Float(vec![0.0; n]),
        ColumnData::String(_) => ColumnData::String(vec![String::new(); n]),
        ColumnData::Set { levels, .. } => ColumnData::Set {
            offsets: vec![0; n + 1],
            items: Vec::new(),
            levels: levels.clone(),
        },
    };
    let mut missing = Bitmap::new(n);
    for i in 0..n {
        missing.set(i);
    }
    Column::new(like.name(), like.role(), data, missing).expect("placeholders of every row")
}
