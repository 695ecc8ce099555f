//! Errors of the risk measures.

use intruder_table::DataError;

/// An error of a risk measure: bad parameters or data that cannot be measured as asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RiskError {
    /// From the data model (unknown column, …).
    #[error(transparent)]
    Data(#[from] DataError),
    /// Parameters that cannot work, checked before any computation.
    #[error("{0}")]
    Param(String),
    /// A column that cannot be used as asked.
    #[error("{file}: column '{column}': {message}")]
    Column {
        /// The table's source.
        file: String,
        /// The column.
        column: String,
        /// What is wrong and what was expected.
        message: String,
    },
}
