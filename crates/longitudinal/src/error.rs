//! Errors of the longitudinal crate.

use intruder_attack::AttackError;
use intruder_data::DataError;
use intruder_utility::UtilityError;

/// An error of the inter-wave attack, the defences or the study.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PanelError {
    /// An error of the data model (unknown column, unreadable file, ...).
    #[error(transparent)]
    Data(#[from] DataError),
    /// An error of the attack crate (matching, evaluation).
    #[error(transparent)]
    Attack(#[from] AttackError),
    /// An error of the utility crate (regression).
    #[error(transparent)]
    Utility(#[from] UtilityError),
    /// A column of a wave cannot be used as asked.
    #[error("{file}: column '{column}': {message}")]
    Column {
        /// The wave's file.
        file: String,
        /// The column.
        column: String,
        /// What is wrong and what was expected.
        message: String,
    },
    /// Parameters failed validation (every problem listed, checked before any work).
    #[error("invalid parameters:\n  {}", .0.join("\n  "))]
    Params(Vec<String>),
    /// Records excluded while `strict` was asked for.
    #[error("{count} split record(s) cannot be attacked (strict mode): {first}")]
    Strict {
        /// How many.
        count: usize,
        /// The first, explained.
        first: String,
    },
    /// A model (propensity, tree) could not be fitted.
    #[error("{0}")]
    Model(String),
}

impl From<intruder_attack::ParamError> for PanelError {
    fn from(e: intruder_attack::ParamError) -> Self {
        PanelError::Attack(e.into())
    }
}
