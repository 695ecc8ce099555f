//! A table and its ground truth moving together: every row operation (take, filter, masking
//! with a defence's kept rows, twins only) is applied to both, so they cannot fall out of step.

use intruder_attack::{AttackError, KeyMap, Knowledge};
use intruder_data::params::{ColumnNeed, ColumnSet, Problem};
use intruder_data::{Column, DataError, Dataset, Kind, Role, Table};
use intruder_defence::ChangeLog;

use crate::truth::Truth;

/// Which truth columns identify persons in each file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TruthIds {
    /// Truth column of the intruder's file.
    pub intruder: String,
    /// Truth column of the released file.
    pub released: String,
}

impl TruthIds {
    /// The truth ids a user means: `both` names the column of both files; otherwise `intruder`
    /// and `released` name one each; otherwise the single truth column the two files share
    /// (`intruder_truth`, `released_truth`: their truth columns, apart from a sensitive
    /// variable's true value). `None` when that is not decided.
    pub fn choose(
        both: Option<&str>,
        intruder: Option<&str>,
        released: Option<&str>,
        intruder_truth: &[&str],
        released_truth: &[&str],
    ) -> Option<TruthIds> {
        let ids = |i: &str, r: &str| TruthIds {
            intruder: i.to_string(),
            released: r.to_string(),
        };
        match (both, intruder, released) {
            (Some(t), _, _) => Some(ids(t, t)),
            (None, Some(i), Some(r)) => Some(ids(i, r)),
            _ => (intruder_truth.len() == 1 && released_truth == intruder_truth)
                .then(|| ids(intruder_truth[0], intruder_truth[0])),
        }
    }
}

/// The released rows (0-based, in file order) whose person has a twin in the intruder's file,
/// by equal truth ids: the "twins only" search space (Bender et al.'s response knowledge: the
/// intruder knows who answered both surveys). It reads the ground truth, so it lives here next
/// to the evaluator and is applied before the attack by every surface (the CLI's
/// `--twins-only`, the runner's `twins_only = true`, through [`Labelled::twins_only`]); the
/// attack only sees the released records it leaves.
pub fn twin_rows(
    intruder: &Labelled,
    released: &Labelled,
    ids: &TruthIds,
) -> Result<Vec<usize>, AttackError> {
    let ic = intruder.truth.require(&intruder.table, &ids.intruder)?;
    let rc = released.truth.require(&released.table, &ids.released)?;
    // The ids as the cells' text, borrowed from a text column (no copy per record).
    let have: std::collections::HashSet<std::borrow::Cow<'_, str>, foldhash::fast::RandomState> =
        (0..ic.len()).filter_map(|i| ic.text(i)).collect();
    Ok((0..rc.len())
        .filter(|&j| rc.text(j).is_some_and(|s| have.contains(s.as_ref())))
        .collect())
}

/// A table and its ground truth, row for row.
///
/// The only way to change its rows is through its methods, which change both sides; the table
/// reaches an attack only as a [`Knowledge`] (its key columns) or, for the released side, as the
/// table alone, never with the truth.
#[derive(Debug, Clone, PartialEq)]
pub struct Labelled {
    table: Table,
    truth: Truth,
    /// The file's columns a selection left unread ([`Dataset::unread`]): checked against by
    /// name, never read.
    unread: Vec<(String, Kind, Role)>,
}

fn rows_differ(what: &str, table: &Table, n: usize) -> DataError {
    DataError::Invalid(format!(
        "{}: {what} has {n} rows, the table {}",
        table.source(),
        table.nrows()
    ))
}

impl Labelled {
    /// Pairs a table with its truth; an error when the row counts differ (a truth without
    /// columns fits any table).
    pub fn new(table: Table, truth: Truth) -> Result<Labelled, DataError> {
        match truth.nrows() {
            Some(n) if n != table.nrows() => Err(rows_differ("the truth", &table, n)),
            _ => Ok(Labelled {
                table,
                truth,
                unread: Vec::new(),
            }),
        }
    }

    /// The table and truth of a loaded file.
    pub fn from_dataset(data: Dataset) -> Labelled {
        // A Dataset's truth columns have the table's rows (checked when it was built).
        Labelled {
            table: data.table,
            truth: Truth::new(data.truth),
            unread: data.unread,
        }
    }

    /// Back to a data set (to write table and truth to a file).
    pub fn into_dataset(self) -> Dataset {
        Dataset {
            table: self.table,
            truth: self.truth.into_columns(),
            notes: Vec::new(),
            unread: self.unread,
        }
    }

    /// The table (no truth column can be in it).
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The ground truth.
    pub fn truth(&self) -> &Truth {
        &self.truth
    }

    /// Number of records.
    pub fn nrows(&self) -> usize {
        self.table.nrows()
    }

    /// The intruder's knowledge: the table projected on the intruder-side keys of `keys`.
    pub fn knowledge(&self, keys: KeyMap) -> Result<Knowledge, AttackError> {
        Knowledge::new(&self.table, keys)
    }

    /// Every problem of an attack's keys against the intruder's file (`self`) and the released
    /// file, at once: a key either file lacks (with a did-you-mean), and a key that is a truth
    /// column (set apart for the evaluator: named as such, not as a missing column). `path`
    /// starts each problem (`keys`, `attack[1].keys`).
    pub fn check_keys(&self, released: &Labelled, keys: &KeyMap, path: &str) -> Vec<Problem> {
        check_key_columns(
            Some(&self.column_set()),
            Some(&released.column_set()),
            keys,
            path,
        )
    }

    /// The columns of table and truth ([`ColumnSet::of_parts`]) and those a selection left
    /// unread (their values not known).
    pub fn column_set(&self) -> ColumnSet {
        let mut set = ColumnSet::of_parts(self.table(), self.truth().columns());
        set.columns.extend(self.unread.iter().cloned());
        set
    }

    /// The records `rows`, in that order, of table and truth.
    pub fn take(&self, rows: &[usize]) -> Labelled {
        Labelled {
            table: self.table.take(rows),
            truth: self.truth.take(rows),
            unread: self.unread.clone(),
        }
    }

    /// The records whose columns equal the given values (compared as text); a condition may
    /// name a truth column. An error names an unknown column.
    pub fn filter(&self, conditions: &[(String, String)]) -> Result<Labelled, DataError> {
        if conditions.is_empty() {
            return Ok(self.clone());
        }
        let mut cols = Vec::with_capacity(conditions.len());
        for (name, value) in conditions {
            let c = match self.truth.column(name) {
                Some(c) => c,
                None => self.table.column(name)?,
            };
            cols.push((c, value));
        }
        let rows: Vec<usize> = (0..self.nrows())
            .filter(|&i| {
                cols.iter()
                    .all(|(c, v)| c.text(i).is_some_and(|t| t == v.as_str()))
            })
            .collect();
        Ok(self.take(&rows))
    }

    /// The released file after a defence: `masked` is the defence's output and `kept_rows`
    /// its log's kept rows (for each output record, its row here). The truth follows the kept
    /// rows always — whether the defence removed, sampled or reordered records — so it cannot
    /// be misaligned.
    pub fn mask(&self, masked: Table, kept_rows: &[usize]) -> Result<Labelled, DataError> {
        if masked.nrows() != kept_rows.len() {
            return Err(rows_differ(
                "the defence's kept-row list",
                &masked,
                kept_rows.len(),
            ));
        }
        if let Some(&r) = kept_rows.iter().find(|&&r| r >= self.nrows()) {
            return Err(DataError::Invalid(format!(
                "{}: the defence kept row {r} of a table of {} rows",
                self.table.source(),
                self.nrows()
            )));
        }
        Ok(Labelled {
            table: masked,
            truth: self.truth.take(kept_rows),
            unread: Vec::new(),
        })
    }

    /// The released file after a pipeline run: `masked` is its output and `log` its change log.
    /// When the records are masked input records the truth follows the log's kept rows
    /// ([`Labelled::mask`]); when a step synthesised them ([`ChangeLog::synthetic`]) no released
    /// record is anyone, so every truth cell of the release is missing: no released record is
    /// an intruder's twin, and a control record cannot be found in it.
    pub fn release(&self, masked: Table, log: &ChangeLog) -> Result<Labelled, DataError> {
        if log.synthetic.is_none() {
            return self.mask(masked, &log.kept_rows);
        }
        let n = masked.nrows();
        Ok(Labelled {
            table: masked,
            truth: self.truth.no_one(n),
            unread: Vec::new(),
        })
    }

    /// The table changed cell by cell (same records, same order): measurement error on the
    /// intruder's copy, a recoding the intruder repeats. An error when the row count changes.
    pub fn map_cells(
        self,
        f: impl FnOnce(&Table) -> Result<Table, DataError>,
    ) -> Result<Labelled, DataError> {
        let table = f(&self.table)?;
        if table.nrows() != self.table.nrows() {
            return Err(rows_differ(
                "a cell-by-cell change left a table that",
                &self.table,
                table.nrows(),
            ));
        }
        Ok(Labelled {
            table,
            truth: self.truth,
            unread: Vec::new(),
        })
    }

    /// Adds a truth column (e.g. the true original value of a sensitive variable, copied
    /// before masking or error can change it).
    pub fn with_truth(mut self, column: Column) -> Result<Labelled, DataError> {
        if column.len() != self.nrows() {
            return Err(rows_differ(
                &format!("truth column '{}'", column.name()),
                &self.table,
                column.len(),
            ));
        }
        self.truth.push(column);
        Ok(self)
    }

    /// Twins only: the records here whose person has a twin in `intruder`, by equal truth ids
    /// (Bender et al.'s response knowledge: the intruder knows who answered both surveys). It
    /// reads the truth, so it is applied here, before the attack; the attack only sees the
    /// records it leaves.
    ///
    /// Errors when no record here has a twin (a synthetic release's records are no one's): a
    /// twins-only attack would have nothing to search, and saying so beats an empty file.
    pub fn twins_only(&self, intruder: &Labelled, ids: &TruthIds) -> Result<Labelled, AttackError> {
        let rows = twin_rows(intruder, self, ids)?;
        if rows.is_empty() && self.nrows() > 0 {
            return Err(AttackError::Column {
                file: self.table.source().to_string(),
                name: ids.released.clone(),
                message: format!(
                    "twins_only: none of the {} released records has a twin in the intruder's file \
                     (no id equal to one of '{}'), so a twins-only attack has nothing to search; \
                     a synthetic release's records are no one's: attack it without twins_only \
                     (every link is then wrong) or ask the questions without the truth \
                     (singling out, linkability, inference, membership)",
                    self.nrows(),
                    ids.intruder
                ),
            });
        }
        Ok(self.take(&rows))
    }
}

/// [`Labelled::check_keys`] on the files' columns (truth columns with the role truth), which a
/// Parquet file's footer gives before its table is read; a side whose columns are not known
/// (`None`) is not checked.
pub fn check_key_columns(
    intruder: Option<&ColumnSet>,
    released: Option<&ColumnSet>,
    keys: &KeyMap,
    path: &str,
) -> Vec<Problem> {
    let mut out = Vec::new();
    for (side, set, name) in keys.pairs().iter().flat_map(|k| {
        [
            ("intruder's", intruder, k.intruder.as_str()),
            ("released", released, k.released.as_str()),
        ]
    }) {
        let Some(set) = set else { continue };
        if let Err(e) = set.check_usable(name, ColumnNeed::Any) {
            let truth = set
                .columns
                .iter()
                .any(|(n, _, r)| n == name && *r == Role::Truth);
            let e = if truth {
                format!("{e} (it is the {side} file's truth)")
            } else {
                e
            };
            let p = Problem {
                path: path.to_string(),
                message: e,
            };
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    out
}
