//! Errors of the attack crate: parameter errors (found before any work) apart from input errors.

use intruder_table::DataError;

/// Something wrong with an attack's parameters, found before any work is done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ParamError {
    /// No key variables were given.
    #[error("no key variables given: name at least one key shared by both files")]
    NoKeys,
    /// More keys than the matcher supports.
    #[error("{0} key variables given; at most 64 are supported")]
    TooManyKeys(usize),
    /// A key is named twice.
    #[error("key '{0}' is given twice")]
    DuplicateKey(String),
    /// A weight names a variable that is not a key, or is not a finite positive number.
    #[error("weight for '{name}': {message}")]
    Weight {
        /// The variable.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// The number of k-means clusters is zero.
    #[error("the number of clusters must be at least 1")]
    Clusters,
    /// A tolerance outside (0, ∞).
    #[error("tolerance must be a finite number > 0, got {0}")]
    Tolerance(f64),
    /// A combination of options that is not defined.
    #[error("{0}")]
    Unsupported(String),
}

/// An error of an attack or of the evaluator.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AttackError {
    /// Invalid parameters.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// An error of the data model (unknown column, bad file).
    #[error(transparent)]
    Data(#[from] DataError),
    /// A key variable has incompatible types in the two files.
    #[error("{0}")]
    TypeMismatch(Box<KeyTypeMismatch>),
    /// A file has no records.
    #[error("{file}: the {which} file has no records")]
    Empty {
        /// The file.
        file: String,
        /// "intruder" or "released".
        which: &'static str,
    },
    /// A column cannot be used as asked (names the file and the column).
    #[error("{file}: column '{name}': {message}")]
    Column {
        /// The file.
        file: String,
        /// The column.
        name: String,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A ground-truth column named for the evaluator is absent.
    #[error(
        "{file}: no ground-truth column '{name}' (truth columns present: {available}); load it with role truth (--truth / --truth-intruder / --truth-released) or check the name"
    )]
    MissingTruth {
        /// The file.
        file: String,
        /// The truth column asked for.
        name: String,
        /// The truth columns present.
        available: String,
    },
    /// The linkage does not fit the files given to the evaluator.
    #[error("the linkage does not fit the files: {0}")]
    Mismatch(String),
}

/// The details of [`AttackError::TypeMismatch`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error(
    "key '{intruder_name}' ({intruder_file}) is {intruder_kind} but '{released_name}' ({released_file}) is {released_kind}: {message}"
)]
pub struct KeyTypeMismatch {
    /// The intruder's file.
    pub intruder_file: String,
    /// The intruder's column.
    pub intruder_name: String,
    /// Its kind.
    pub intruder_kind: String,
    /// The released file.
    pub released_file: String,
    /// The released column.
    pub released_name: String,
    /// Its kind.
    pub released_kind: String,
    /// What would be needed.
    pub message: String,
}
