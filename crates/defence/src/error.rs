//! Errors of the defence crate: parameter problems (all listed at once, each with its key) apart
//! from problems met while masking a table.

use std::path::PathBuf;

use intruder_table::DataError;
use intruder_table::params::ParamError;

/// An error of a defence or a pipeline.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DefenceError {
    /// Parameters or a pipeline declaration are invalid; every problem is listed, each with its
    /// path (`step[2].k`) and what was expected.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// A pipeline file could not be read.
    #[error("{path}: {source}", path = .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A column named by a step cannot be used as the step asks.
    #[error("{method}: column '{column}': {message}")]
    Column {
        /// The method.
        method: &'static str,
        /// The column.
        column: String,
        /// What is wrong and what was expected.
        message: String,
    },
    /// The method cannot reach its goal on this table (e.g. fewer records than k).
    #[error("{method}: {message}")]
    Infeasible {
        /// The method.
        method: &'static str,
        /// Why.
        message: String,
    },
    /// An error of the data model (unknown column, inconsistent table).
    #[error(transparent)]
    Data(#[from] DataError),
}
