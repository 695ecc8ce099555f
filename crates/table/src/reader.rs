//! The one way a method reads a second data table (a population table named in its
//! parameters): through a reader installed by the program, which gives the table without its
//! truth columns. This crate reads no data file itself; `intruder-data` installs its reader
//! (`intruder_data::install_table_reader`), and every surface of the toolkit does so before it
//! runs a method.

use std::path::Path;
use std::sync::OnceLock;

use crate::error::DataError;
use crate::table::Table;

/// Reads a data file into a [`Table`] (its truth columns left out).
pub type TableReader = fn(&Path) -> Result<Table, DataError>;

static READER: OnceLock<TableReader> = OnceLock::new();

/// Installs the reader [`read_table`] calls. The first installed reader stays: later calls do
/// nothing (every reader the toolkit installs is the same one).
pub fn set_table_reader(reader: TableReader) {
    let _ = READER.set(reader);
}

/// Reads the data file `path` into a table without its truth columns, through the installed
/// reader; an error naming the file when no reader is installed.
pub fn read_table(path: &Path) -> Result<Table, DataError> {
    match READER.get() {
        Some(read) => read(path),
        None => Err(DataError::Invalid(format!(
            "cannot read '{}': no data-file reader is installed (call \
             intruder_data::install_table_reader() before running the method)",
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_reader_the_error_names_the_file_and_the_remedy() {
        // This crate's tests never install one (it has no reader to install).
        let err = read_table(Path::new("people/population.csv")).unwrap_err();
        let text = err.to_string();
        assert!(text.contains("'people/population.csv'"), "{text}");
        assert!(text.contains("install_table_reader"), "{text}");
    }
}
