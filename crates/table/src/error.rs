//! Errors of the data model: every one names the file and, where it has one, the line and column.

use std::fmt;
use std::path::PathBuf;

/// Where in an input file a problem was found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location {
    /// The file (or a label such as `<memory>`).
    pub file: PathBuf,
    /// 1-based line number, when known.
    pub line: Option<u64>,
    /// The column's name (and 1-based position), when known.
    pub column: Option<String>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(col) = &self.column {
            write!(f, ": column {col}")?;
        }
        Ok(())
    }
}

/// An error of the data model.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    /// The file could not be opened or read.
    #[error("{path}: {source}", path = .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A value or row in an input file is not what was expected.
    #[error("{location}: {message}")]
    Input {
        /// Where.
        location: Location,
        /// What was found and what was expected.
        message: String,
    },
    /// A schema file is invalid; every problem is listed.
    #[error("{path}: invalid schema:\n  - {}", .problems.join("\n  - "), path = .path.display())]
    Schema {
        /// The schema file.
        path: PathBuf,
        /// Every problem found, each naming its key.
        problems: Vec<String>,
    },
    /// A column named by the user does not exist.
    #[error("{file}: no column named '{name}'{hint}; the columns are: {available}", file = .file.display())]
    UnknownColumn {
        /// The file the table came from.
        file: PathBuf,
        /// The missing name.
        name: String,
        /// A "did you mean" hint, or empty.
        hint: String,
        /// The available names, comma-separated.
        available: String,
    },
    /// Several columns named by the user do not exist (all reported at once).
    #[error("{file}: no columns named {}{hint}; the columns are: {available}", names.join(", "), file = .file.display())]
    UnknownColumns {
        /// The file the table came from.
        file: PathBuf,
        /// Each missing name, quoted, with its "did you mean" hint.
        names: Vec<String>,
        /// A hint about the header (a one-column header), or empty.
        hint: String,
        /// The available names, comma-separated.
        available: String,
    },
    /// A column exists but cannot be used as asked.
    #[error("{file}: column '{name}': {message}", file = .file.display())]
    Column {
        /// The file the table came from.
        file: PathBuf,
        /// The column.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// The table was built inconsistently through the API.
    #[error("invalid table: {0}")]
    Invalid(String),
}

impl DataError {
    /// An input error at `location` (a file, line and column) with its message.
    pub fn input(location: Location, message: impl Into<String>) -> Self {
        DataError::Input {
            location,
            message: message.into(),
        }
    }
}
