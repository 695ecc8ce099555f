//! Parquet and Arrow IPC files.

use std::path::Path;

use crate::error::{DataError, Location};
use crate::read::ReadOptions;
use crate::table::Dataset;

/// Reads a Parquet or Arrow IPC file.
pub(crate) fn read(path: &Path, _options: &ReadOptions) -> Result<Dataset, DataError> {
    Err(DataError::Input {
        location: Location {
            file: path.to_path_buf(),
            line: None,
            column: None,
        },
        message: "Parquet support is not compiled in: build with --features parquet".into(),
    })
}
