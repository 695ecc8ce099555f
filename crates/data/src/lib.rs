//! The microdata model of **intruder**: typed columns with explicit missing values and roles,
//! set-valued cells, schemas, and CSV input.
//!
//! # Design
//! - A [`Table`] is columnar. Each [`Column`] has a [`Kind`] (categorical, integer, float,
//!   string, set-valued), a per-cell missing mask and a [`Role`] (identifier, key, sensitive,
//!   weight, group, wave, other).
//! - Ground truth (role `truth`: the true person id, a true original value) is never part of a
//!   [`Table`]. Loading sets it apart ([`Dataset::truth`]), and every attack, defence and risk
//!   measure takes a `&Table`, so none of them can read it; the truth is read through the
//!   evaluator's crate (`intruder-eval`: `Truth`, `Labelled`, the evaluator), which the attack,
//!   defence, risk and utility crates do not depend on. `Table::new` rejects truth columns.
//! - A set-valued cell holds one or more candidate levels (Mulder's estimated month of birth
//!   `{3,4}`); an empty set is missing. Candidates keep the order in which they were written, so
//!   "the first candidate" is well defined.
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

mod bitmap;
mod column;
mod columnar;
mod error;
mod files;
pub mod keys;
mod load;
pub mod numeric;
pub mod params;
mod read;
pub mod report;
mod schema;
mod statfile;
mod table;
mod timings;
mod unit;
pub mod write;

pub use bitmap::Bitmap;
pub use column::{Column, ColumnData, Kind, Role, format_float};
pub use columnar::{ColumnarFile, ParquetKeys, write_parquet};
pub use error::{DataError, Location};
pub use files::{is_parquet_name, read_csv, read_timed};
pub use load::{Input, load, load_timed, schema_beside};
pub use read::chunked::{CsvFile, CsvKeys};
pub use read::{DEFAULT_MISSING, FileFormat, ReadOptions, read_csv_from, reference};
pub use schema::{ColumnSpec, Schema};
pub use table::{Dataset, Table};
pub use timings::Timings;
pub use write::write_atomically;
