//! Input: CSV (plain or gzip) with a header row, a delimiter, missing tokens, set-valued cells,
//! declared or inferred types, and errors that name the file, line and column; Parquet and Arrow
//! IPC files (see [`crate::columnar`]). The format is told by the file's first bytes, never by
//! its name.
//!
//! CSV is read in parallel ([`chunked`]): the text is cut into chunks at record boundaries, the
//! chunks are parsed on every thread into column builders with chunk-local dictionaries, and the
//! dictionaries are merged afterwards. The result is the one the one-pass reader ([`onepass`],
//! kept as the reference) gives, byte for byte, whatever the number of threads: same tables (level
//! order, codes, kinds, missing masks) and the same first error in file order.

pub(crate) mod chunked;
pub(crate) mod intern;
pub(crate) mod onepass;
pub(crate) mod sniff;
pub(crate) mod textcheck;

use std::io::Read;
use std::path::Path;

use crate::DataError;
use crate::Dataset;
use crate::{ColumnSpec, Schema};
use crate::{Kind, Role};

/// The default missing tokens: the empty field, `NA` and `.`.
pub const DEFAULT_MISSING: [&str; 3] = ["", "NA", "."];

/// An inferred column whose dictionary grows past this many distinct numbers (before any text
/// value) is stored as plain numbers.
pub(crate) const NUMERIC_SWITCH: usize = 1 << 16;

/// How to read a CSV file. Later sources win: inference, then the schema, then `overrides`
/// (what a command line says, e.g. `--keys` sets the key role).
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Field delimiter (default: the schema's, else the one detected from the first lines:
    /// `,`, `;`, tab or `|`).
    pub delimiter: Option<u8>,
    /// Decimal mark of numbers, `.` or `,` (default: the schema's, else `,` when the delimiter
    /// is not a comma and the first lines hold numbers such as `12,5` and none such as `12.5`).
    pub decimal: Option<u8>,
    /// Missing tokens for every column (default: the schema's, else [`DEFAULT_MISSING`]).
    pub missing: Option<Vec<String>>,
    /// A declared schema.
    pub schema: Option<Schema>,
    /// Per-column overrides, applied field by field over the schema.
    pub overrides: Vec<(String, ColumnSpec)>,
    /// Overrides that only set a role (not the truth) and name a column the file lacks are
    /// skipped instead of refused: the caller checks those names itself (the command line's parameters, each
    /// problem with its parameter and a did-you-mean, all at once).
    pub optional_overrides: bool,
    /// Read only some columns ([`Select`]); every column when `None`.
    pub select: Option<Select>,
}

/// The columns a read keeps: those named and those whose role (as the schema and the overrides
/// give it) is one of `roles`. The other columns are still checked against the schema and the
/// overrides by name, and listed in [`Dataset::unread`], but they are not decoded where the
/// format allows it (Parquet and Arrow IPC: a projection; SPSS, Stata, SAS: not converted),
/// and are dropped once parsed in CSV; their cells' errors are not reported. A name the file
/// lacks is not an error here: the caller checks the names it needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Select {
    /// Columns kept by name.
    pub names: Vec<String>,
    /// Columns kept by role.
    pub roles: Vec<Role>,
}

impl Select {
    /// Whether a column called `name` with role `role` is kept.
    pub fn keeps(&self, name: &str, role: Role) -> bool {
        self.roles.contains(&role) || self.names.iter().any(|n| n == name)
    }
}

impl ReadOptions {
    /// Sets `role` on each of `names` as an override.
    pub fn with_role(mut self, names: &[impl AsRef<str>], role: Role) -> Self {
        for n in names {
            self.override_spec(n.as_ref()).role = Some(role);
        }
        self
    }

    /// Declares each of `names` set-valued.
    pub fn with_set_valued(mut self, names: &[impl AsRef<str>]) -> Self {
        for n in names {
            self.override_spec(n.as_ref()).kind = Some(Kind::Set);
        }
        self
    }

    /// The override entry of a column, created empty when absent.
    pub fn override_spec(&mut self, name: &str) -> &mut ColumnSpec {
        let i = match self.overrides.iter().position(|(n, _)| n == name) {
            Some(i) => i,
            None => {
                self.overrides
                    .push((name.to_string(), ColumnSpec::default()));
                self.overrides.len() - 1
            }
        };
        &mut self.overrides[i].1
    }
}

/// The format of a data file, told by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// Delimited text.
    Csv,
    /// Gzip-compressed delimited text.
    Gzip,
    /// Apache Parquet (`PAR1`).
    Parquet,
    /// Arrow IPC file (`ARROW1`).
    Arrow,
    /// SPSS system file (`$FL2`, `$FL3`: `.sav`, `.zsav`).
    Spss,
    /// Stata data file (`.dta`, releases 104–119).
    Stata,
    /// SAS data set (`.sas7bdat`).
    Sas,
}

impl FileFormat {
    /// The format of a file starting with `head` (its first 32 bytes when it has them).
    pub fn sniff(head: &[u8]) -> FileFormat {
        /// SAS7BDAT's 32-byte magic number.
        const SAS_MAGIC: [u8; 32] = [
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc2, 0xea,
            0x81, 0x60, 0xb3, 0x14, 0x11, 0xcf, 0xbd, 0x92, 0x08, 0x00, 0x09, 0xc7, 0x31, 0x8c,
            0x18, 0x1f, 0x10, 0x11,
        ];
        if head.starts_with(b"$FL2") || head.starts_with(b"$FL3") {
            return FileFormat::Spss;
        }
        if head.starts_with(b"<stata_dta>") {
            return FileFormat::Stata;
        }
        // Stata releases 104–115: release byte, byte order (1 or 2), file type 1, a zero byte.
        if let [release, order, 1, 0, ..] = head
            && (104..=115).contains(release)
            && matches!(order, 1 | 2)
        {
            return FileFormat::Stata;
        }
        if head.starts_with(&SAS_MAGIC) {
            return FileFormat::Sas;
        }
        if head.starts_with(&[0x1f, 0x8b]) {
            FileFormat::Gzip
        } else if head.starts_with(b"PAR1") {
            FileFormat::Parquet
        } else if head.starts_with(b"ARROW1") {
            FileFormat::Arrow
        } else {
            FileFormat::Csv
        }
    }
}

/// A file with a header (or a schema) but no record is refused by name: every command would
/// otherwise fail later with a message about its columns (an empty column reads as
/// categorical).
pub(crate) fn no_records(path: &Path, ds: Dataset) -> Result<Dataset, DataError> {
    let rows = match ds.truth.first() {
        Some(t) if ds.table.ncols() == 0 => t.len(),
        _ => ds.table.nrows(),
    };
    if rows > 0 {
        return Ok(ds);
    }
    Err(DataError::Input {
        location: crate::Location {
            file: path.to_path_buf(),
            line: None,
            column: None,
        },
        message: format!(
            "the file has no records: it names {} column{} ({}) but holds no data",
            ds.table.ncols() + ds.truth.len(),
            if ds.table.ncols() + ds.truth.len() == 1 {
                ""
            } else {
                "s"
            },
            ds.all_columns()
                .take(8)
                .map(|c| c.name().to_string())
                .collect::<Vec<_>>()
                .join(", ")
                + if ds.table.ncols() + ds.truth.len() > 8 {
                    ", …"
                } else {
                    ""
                }
        ),
    })
}

/// Reads CSV text from any reader; `label` names it in errors. The text is read whole, then
/// parsed in parallel.
pub fn read_csv_from<R: Read>(
    mut reader: R,
    label: &Path,
    options: &ReadOptions,
) -> Result<Dataset, DataError> {
    let mut text = Vec::new();
    reader
        .read_to_end(&mut text)
        .map_err(|source| DataError::Io {
            path: label.to_path_buf(),
            source,
        })?;
    chunked::read(&text, label, options)
}

/// The one-pass reader the parallel one is checked against (tests, benchmarks): the same
/// results, on one thread. Not for general use.
#[doc(hidden)]
pub mod reference {
    use super::*;

    /// Reads CSV from any reader in one pass, as the reader did before it went parallel.
    pub fn read_csv_from<R: Read>(
        reader: R,
        label: &Path,
        options: &ReadOptions,
    ) -> Result<Dataset, DataError> {
        onepass::read(reader, label, options)
    }

    /// Reads CSV text with the parallel reader cutting it into chunks of about `chunk_bytes`
    /// (so that tests can make chunk boundaries fall everywhere).
    pub fn read_chunked(
        text: &[u8],
        label: &Path,
        options: &ReadOptions,
        chunk_bytes: usize,
    ) -> Result<Dataset, DataError> {
        chunked::read_with(text, label, options, chunk_bytes)
    }

    /// CSV text parsed as [`crate::CsvFile::read`] parses a file, in chunks of about
    /// `chunk_bytes`.
    pub fn csv_file_chunked(
        text: &[u8],
        label: &Path,
        options: &ReadOptions,
        chunk_bytes: usize,
    ) -> Result<crate::CsvFile, DataError> {
        crate::CsvFile::parse(text, label, options, chunk_bytes)
    }
}
