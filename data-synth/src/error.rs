//! Errors of the synthetic-data generators.

use std::path::PathBuf;

/// Everything that can go wrong when choosing, configuring or running a generator.
///
/// Parameter problems ([`SynthError::UnknownGenerator`], [`SynthError::Params`]) are reported
/// before anything is written; I/O problems leave no partial output behind.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SynthError {
    /// No generator has this name.
    #[error("unknown generator `{name}`; valid generators: {valid}")]
    UnknownGenerator {
        /// The name asked for.
        name: String,
        /// Comma-separated list of valid names.
        valid: String,
    },
    /// One or more parameters are unknown, malformed or out of range (all problems listed).
    #[error("invalid parameters for `{generator}`:\n{}", .problems.join("\n"))]
    Params {
        /// Generator the parameters were meant for.
        generator: String,
        /// One line per problem, each naming the parameter and what is valid.
        problems: Vec<String>,
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
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SynthError::Io {
            path: path.into(),
            source,
        }
    }
}
