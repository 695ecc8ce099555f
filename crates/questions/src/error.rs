//! Errors of the three questions: parameter problems (found before any data is read) apart from
//! problems of the input tables (each names the file and the column or the counts).

/// Something wrong with a question's parameters, found before any work is done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// `n_attacks` is zero.
    #[error("n_attacks must be at least 1")]
    NoAttacks,
    /// `n_cols` is zero.
    #[error("n_cols must be at least 1 (the number of columns in a multivariate predicate)")]
    NoPredicateColumns,
    /// `max_attempts` is zero.
    #[error("max_attempts must be at least 1")]
    NoAttempts,
    /// `n_neighbors` is zero.
    #[error("n_neighbors must be at least 1")]
    NoNeighbours,
    /// A tolerance that is not a finite number ≥ 0.
    #[error("tolerance must be a finite number ≥ 0, got {0}")]
    Tolerance(f64),
    /// A list of auxiliary columns is empty.
    #[error("{which} is empty: the intruder needs at least one auxiliary column")]
    NoAuxiliary {
        /// `aux_cols`, or `aux_cols[1]` / `aux_cols[2]` for linkability's two sets.
        which: &'static str,
    },
    /// A column is named twice in the auxiliary columns, or in both of linkability's sets.
    #[error("column '{column}' is named twice in {which}: {why}")]
    RepeatedAuxiliary {
        /// The column.
        column: String,
        /// Where (`aux_cols`).
        which: &'static str,
        /// Why that is refused.
        why: &'static str,
    },
    /// The secret is also an auxiliary column.
    #[error(
        "secret '{0}' is also an auxiliary column: the intruder would know what it tries to infer; remove it from aux_cols"
    )]
    SecretInAuxiliary(String),
}

/// An error of a question: its parameters, or the tables it was given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum QuestionError {
    /// Invalid parameters.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The control set does not have the original's columns.
    #[error(
        "{control}: the control set must have the columns of the original ({original}){}{}",
        list_phrase("; missing", missing),
        list_phrase("; not in the original", extra)
    )]
    ControlColumns {
        /// The control file.
        control: String,
        /// The original file.
        original: String,
        /// Columns of the original that the control set lacks.
        missing: Vec<String>,
        /// Columns of the control set that the original lacks.
        extra: Vec<String>,
    },
    /// A column the question needs is not in one of the tables.
    #[error("{file}: the {which} has no column '{column}' ({role}){hint}")]
    MissingColumn {
        /// The file.
        file: String,
        /// `original`, `control set` or `release`.
        which: &'static str,
        /// The column.
        column: String,
        /// What the column is for (`auxiliary column`, `secret`).
        role: &'static str,
        /// A did-you-mean, or empty.
        hint: String,
    },
    /// A column is numeric in one table and not in another.
    #[error(
        "column '{column}' is {kind} in {file} but {other_kind} in {other_file}: a column must be numeric in every table or in none"
    )]
    KindMismatch {
        /// The column.
        column: String,
        /// The first file.
        file: String,
        /// Its kind there.
        kind: String,
        /// The other file.
        other_file: String,
        /// Its kind there.
        other_kind: String,
    },
    /// A numeric column holds NaN or an infinity where a number is observed.
    #[error("{file}: column '{column}' row {row} holds {value}, which is not a finite number")]
    NotFinite {
        /// The file.
        file: String,
        /// The column.
        column: String,
        /// The 1-based row.
        row: usize,
        /// The value.
        value: f64,
    },
    /// A regression secret that is not numeric.
    #[error(
        "{file}: secret '{column}' is {kind}: regression = true needs a numeric secret (set regression = false to guess it exactly)"
    )]
    RegressionOnCategories {
        /// The file.
        file: String,
        /// The secret.
        column: String,
        /// Its kind.
        kind: String,
    },
    /// More attacks than a table the targets (or guesses) are drawn from, without replacement,
    /// has records.
    #[error(
        "{file}: n_attacks = {n_attacks} but the {which} has {rows} records{after}; the {purpose} draws n_attacks records without replacement: lower n_attacks to at most {rows}"
    )]
    TooManyAttacks {
        /// The file.
        file: String,
        /// `original`, `control set` or `release`.
        which: &'static str,
        /// The number of attacks asked for.
        n_attacks: usize,
        /// The records available.
        rows: usize,
        /// ` (after dropping duplicate records)` or empty.
        after: &'static str,
        /// What draws them (`main attack`, `control attack`, `baseline`).
        purpose: &'static str,
    },
    /// More membership targets than the original or the control set has records.
    #[error(
        "{file}: n_targets = {n_targets} but the {which} has {rows} records; the {purpose} draws n_targets records without replacement: lower n_targets to at most {rows}"
    )]
    TooManyTargets {
        /// The file.
        file: String,
        /// `original` or `control set`.
        which: &'static str,
        /// The number of targets asked for.
        n_targets: usize,
        /// The records available.
        rows: usize,
        /// What draws them (`member draw`, `non-member draw`).
        purpose: &'static str,
    },
    /// More neighbours than the release has records.
    #[error("{file}: n_neighbors = {n_neighbors} but the release has {rows} records")]
    TooManyNeighbours {
        /// The release file.
        file: String,
        /// The number of neighbours asked for.
        n_neighbors: usize,
        /// The release's records.
        rows: usize,
    },
    /// More predicate columns than the release has columns.
    #[error("{file}: n_cols = {n_cols} but the release has {columns} columns")]
    TooManyPredicateColumns {
        /// The release file.
        file: String,
        /// The number of columns per predicate asked for.
        n_cols: usize,
        /// The release's columns.
        columns: usize,
    },
    /// A table the question needs has no records.
    #[error("{file}: the {which} has no records")]
    Empty {
        /// The file.
        file: String,
        /// `original`, `control set` or `release`.
        which: &'static str,
    },
}

/// `"; missing 'a', 'b'"`, or empty when the list is.
fn list_phrase(label: &str, names: &[String]) -> String {
    if names.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    format!("{label} {}", quoted.join(", "))
}
