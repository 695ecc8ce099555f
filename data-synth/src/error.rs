//! Errors of the synthetic-data generators.

use std::path::PathBuf;

use intruder_data::params::Problem;

/// Everything that can go wrong when choosing, configuring or running a generator.
///
/// Parameter problems ([`SynthError::UnknownGenerator`], [`SynthError::Params`]) are reported
/// before anything is written; I/O problems leave no partial output behind.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SynthError {
    /// No generator has this name.
    #[error("unknown generator '{name}'{hint}; the generators are: {valid}")]
    UnknownGenerator {
        /// The name asked for.
        name: String,
        /// A did-you-mean, or empty.
        hint: String,
        /// Comma-separated list of valid names.
        valid: String,
    },
    /// One or more parameters are unknown, malformed or out of range (all problems listed).
    #[error("invalid parameters for `{generator}`:\n  - {}", .problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  - "))]
    Params {
        /// Generator the parameters were meant for.
        generator: String,
        /// Every problem, each with the parameter's path and what is valid.
        problems: Vec<Problem>,
    },
    /// Writing an output file failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// File or directory concerned.
        path: PathBuf,
        /// Underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl SynthError {
    /// A problem found by a generator once every parameter was valid on its own (values that
    /// do not fit together); the message names the parameters and their values.
    pub(crate) fn params(generator: &str, message: impl Into<String>) -> Self {
        SynthError::Params {
            generator: generator.to_string(),
            problems: vec![Problem {
                path: String::new(),
                message: message.into(),
            }],
        }
    }

    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SynthError::Io {
            path: path.into(),
            source,
        }
    }
}
