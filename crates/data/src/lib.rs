//! The data files of **intruder**: reading every format into a [`Dataset`] (a [`Table`] and the
//! ground-truth columns set apart from it) and writing tables by name. The model itself (tables,
//! columns, key codes, parameters, reports) is `intruder-table`, re-exported here whole; methods
//! depend on that crate alone, so they can reach no reader (see its docs).
//!
//! # Design
//! - Ground truth (role `truth`: the true person id, a true original value) is never part of a
//!   [`Table`]. Reading sets it apart ([`Dataset::truth`]), and every attack, defence and risk
//!   measure takes a `&Table` and depends on `intruder-table` only, so none of them can read it;
//!   the truth is read through the evaluator's crate (`intruder-eval`: `Truth`, `Labelled`, the
//!   evaluator). A method that reads a population table named in its parameters does so through
//!   [`install_table_reader`]'s reader, which leaves the truth columns out.
//! - A schema ([`Schema`], TOML) declares types, roles, missing tokens and level order; what it
//!   does not declare is inferred, and command-line overrides win over both.
//! - Files are CSV (plain or gzip), Parquet or Arrow IPC (feature `parquet`), SPSS, Stata or
//!   SAS (feature `statfiles`), told apart by their content. An engine that only counts key codes can skip the table: a Parquet file's
//!   integer keys and dictionary-encoded text keys are read one row group at a time
//!   ([`ColumnarFile::keys`], a [`keys::PartedCodes`]), and a plain CSV file's inferred
//!   integer keys are coded straight
//!   from the reader's chunks ([`CsvFile::keys`]), with the codes and cardinalities the table
//!   would give; a CSV file parsed so is still made a table ([`CsvFile::into_dataset`]) when
//!   the keys do not allow it, without parsing it again. An engine that needs every key at
//!   once (wildcard matching) makes the parts whole with [`keys::Keys::from_parts`]: the key
//!   codes [`keys::Keys::encode`] makes of the table.
//! - A caller that needs only some columns reads a selection ([`Select`]: columns by name and
//!   by role): Parquet and Arrow IPC decode only those, CSV drops the others once parsed, and
//!   the data set lists the others as [`Dataset::unread`] (name, kind, role), so that
//!   parameters are still checked against every column of the file. The command line's engine
//!   runs read so: the engine reads the key columns itself, the driver only the truth and the
//!   ids.
//!
//! # Example
//! ```
//! use intruder_data::{read_csv_from, ReadOptions, Role, Kind};
//! let csv = "age,sex,month\n40,M,3|4\n36,F,\n.,M,7\n";
//! let opts = ReadOptions::default().with_role(&["age", "sex"], Role::Key).with_set_valued(&["month"]);
//! let ds = read_csv_from(csv.as_bytes(), "mem.csv".as_ref(), &opts).unwrap();
//! let age = ds.table.column("age").unwrap();
//! assert_eq!(age.kind(), Kind::Integer);
//! assert!(age.is_missing(2));
//! assert_eq!(ds.table.column("month").unwrap().text(0).unwrap(), "3|4");
//! ```
#![deny(missing_docs)]

mod columnar;
mod dataset;
mod files;
mod load;
mod read;
mod statfile;

pub use columnar::{ColumnarFile, ParquetKeys, write_parquet};
pub use dataset::Dataset;
pub use files::{WriteFile, is_parquet_name, read_csv, read_timed};
pub use intruder_table::{
    Bitmap, Column, ColumnData, ColumnSpec, DataError, Kind, Location, Role, Schema, SourceLabel,
    Table, Timings, figure_list, format_float, keys, numeric, params, registry, report, write,
    write_atomically,
};
pub use load::{Input, load, load_timed, schema_beside};
pub use read::chunked::{CsvFile, CsvKeys};
pub use read::{DEFAULT_MISSING, FileFormat, ReadOptions, Select, read_csv_from, reference};

/// Installs this crate's reader as the one [`intruder_table::read_table`] calls: a data file
/// read as [`load`] reads it with no options (the schema beside it, the format told by its
/// content), its truth columns left out. Every surface calls it before running a method; it
/// is also installed the first time any file is read through this crate.
pub fn install_table_reader() {
    intruder_table::set_table_reader(|path| Ok(load(path, &Input::default())?.table));
}
