//! Key variables coded once, for every engine that counts or matches on them: frequency risk,
//! local suppression and exact matching (and blocking keys of record linkage).
//!
//! - **One missing representation**: a missing cell is [`MISSING`] in every code array.
//! - **Codes** ([`KeyCodes`], [`Keys`]): dense integers per key, equal values equal codes. One
//!   file: [`KeyCodes::of`] / [`Keys::encode`]. Two files: [`encode_pair`] / [`encode_pairs`]
//!   code a key of the intruder's and the released file with one dictionary, whatever each
//!   file's level order or storage kind (an integer column against numeric labels compares as
//!   numbers, a recoded key as text, [`Domain::shared`]); [`encode_texts_pair`] does the same
//!   for derived values (blocking terms), and [`tuple_ids_pair`] numbers key tuples across the
//!   two files.
//! - **Set-valued cells** ([`SetCoding`]): as a whole, by their first candidate, or as
//!   candidate bit masks ([`SetMasks`]) with all candidates or only the first asked for.
//! - **One missingness-pattern index** ([`PatternIndex`]): the self-join behind n_match (with
//!   weights), the cross-join behind exact matching, and the updates behind local suppression;
//!   its entries can be read from some keys packed one word per row ([`Packing`]), for engines
//!   that visit rows in an order of their own.
//! - **Codes read in passing** ([`CodeSource`], [`ColumnCodes`]): the same codes a block of rows
//!   at a time, lent by the column where it holds them (level codes, small-range integers), for
//!   engines that need each row's code once (class sizes without class ids).
//! - **One [`MissingPolicy`] and one [`SetMatch`]**, re-exported by the risk and attack crates.
//!
//! ```
//! use intruder_table::keys::{Domain, PairSpec, PatternIndex, encode_pairs};
//! use intruder_table::{Column, Role};
//! // The intruder's area is an integer, the released file's a category with its own order.
//! let ia = Column::integer("area", Role::Key, &[Some(2), None]);
//! let ra = Column::categorical("area", Role::Key, &[Some("1"), Some("2"), None], None).unwrap();
//! let spec = PairSpec { intruder: &ia, released: &ra, domain: Domain::shared(&ia, &ra, false).unwrap(), recode: None };
//! let (intruder, released) = encode_pairs(&[spec]);
//! let index = PatternIndex::records(&released, None, None);
//! // Missing matches anything (wildcard): record 2 of the intruder matches every released row.
//! assert_eq!(index.cross_join(&intruder, |_| true), vec![vec![1, 2], vec![0, 1, 2]]);
//! ```

pub(crate) mod codes;
mod index;
mod policy;
mod source;

pub use codes::{
    Domain, KeyCodes, Keys, MISSING, PackedRows, PairSpec, SetCoding, SetMasks, encode_pair,
    encode_pairs, encode_texts_pair, offset_of_bounds, tuple_ids, tuple_ids_pair,
};
pub use index::{Packing, PatternIndex};
pub use policy::{MissingPolicy, SetMatch};
pub use source::{CodeSource, ColumnCodes, OnePart, PartedCodes, read_part};
