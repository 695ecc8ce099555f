//! The microdata model of **intruder**, with no reader of data files: typed columns with
//! explicit missing values and roles, set-valued cells, tables, schemas, key codes, the
//! parameter framework every method's registry entry is made of, and reports.
//!
//! # Why a crate of its own
//! Attacks, defences, risk and utility measures depend on this crate and not on
//! `intruder-data`, the crate that reads files. Ground truth (role `truth`: the true person id,
//! a true original value) is set apart when a file is read (`intruder_data::Dataset::truth`) and
//! a [`Table`] never holds it (`Table::new` rejects truth columns), so a method, which is given
//! a `&Table`, cannot read the truth by construction: it can neither open the file again (a
//! table's source is a [`SourceLabel`], text for messages, not a path) nor reach a reader that
//! would hand the truth over. A test in the facade crate checks that no
//! method crate depends on `intruder-data` through any path. A method that needs a second data
//! table named in its parameters (a population table) reads it with [`read_table`], which gives
//! a table without its truth columns.
//!
//! # Design
//! - A [`Table`] is columnar. Each [`Column`] has a [`Kind`] (categorical, integer, float,
//!   string, set-valued), a per-cell missing mask and a [`Role`] (identifier, key, sensitive,
//!   weight, group, wave, other).
//! - A set-valued cell holds one or more candidate levels (Mulder's estimated month of birth
//!   `{3,4}`); an empty set is missing. Candidates keep the order in which they were written, so
//!   "the first candidate" is well defined.
//! - A schema ([`Schema`], TOML) declares types, roles, missing tokens and level order.
//! - [`keys`] codes key columns for counting, [`params`] reads and checks method parameters,
//!   [`report`] renders results, [`write`] writes tables and records as CSV.
//!
//! # Example
//! ```
//! use intruder_table::{Column, Kind, Role, Table};
//! let age = Column::integer("age", Role::Key, &[Some(40), Some(36), None]);
//! let t = Table::new("mem", vec![age]).unwrap();
//! assert_eq!(t.column("age").unwrap().kind(), Kind::Integer);
//! assert!(t.column("age").unwrap().is_missing(2));
//! ```
#![deny(missing_docs)]

mod bitmap;
mod column;
mod error;
pub mod keys;
pub mod numeric;
pub mod params;
mod reader;
pub mod report;
mod schema;
mod table;
mod timings;
mod unit;
pub mod write;

pub use bitmap::Bitmap;
pub use column::{Column, ColumnData, Kind, Role, format_float};
pub use error::{DataError, Location};
pub use reader::{TableReader, read_table, set_table_reader};
pub use schema::{ColumnSpec, Schema};
pub use table::{SourceLabel, Table, schema_of, unknown_column, unknown_columns};
pub use timings::Timings;
pub use write::write_atomically;
