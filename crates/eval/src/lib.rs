//! The evaluator of attacks: the only crate of the toolkit that reads the ground truth.
//!
//! - [`Truth`]: true person ids and true original values, set apart from every table when a
//!   file is loaded ([`intruder_data::Dataset::truth`]).
//! - [`Labelled`]: a table and its truth moving together. Every row operation — [`take`],
//!   [`filter`] (`released_where` / `intruder_where`), [`mask`] (a defence's output with its
//!   log's kept rows, so removed, sampled or reordered records keep their truth), [`twins_only`]
//!   — changes both sides, so they cannot fall out of step.
//! - [`evaluate()`]: scores an attack's [`Linkage`](intruder_attack::Linkage) (docs/METHODS.md §2):
//!   twins by equal truth ids, per intruder record the tied best set `B_i` (size `c_i`), a
//!   seeded tie-break, the twin's rank, precision and recall at the attack's threshold, and
//!   Mitra's attribute disclosure `p_i`, `A` and targeting score `r_i`.
//!
//! # What an attack can see
//! An attack receives the intruder's [`Knowledge`](intruder_attack::Knowledge) — the table
//! projected on the scenario's key columns ([`Labelled::knowledge`]) — and the released
//! [`Table`](intruder_data::Table), never a [`Labelled`] or a [`Truth`]. The attack, defence,
//! risk and utility crates do not depend on this crate, so they cannot name either type; a test
//! (`tests/dependencies.rs`) reads `cargo metadata` and fails if one of them does.
//!
//! [`take`]: Labelled::take
//! [`filter`]: Labelled::filter
//! [`mask`]: Labelled::mask
//! [`twins_only`]: Labelled::twins_only
//!
//! # Example
//! ```
//! use intruder_attack::configure;
//! use intruder_data::params::ReadContext;
//! use intruder_data::{read_csv_from, ReadOptions, Role};
//! use intruder_eval::{EvalOptions, Labelled, TruthIds, evaluate};
//! let intr = "id,area,beds\n7,2,5\n";
//! let rel = "id,area,beds\n1,2,5\n7,2,5\n3,1,3\n";
//! let opts = ReadOptions::default().with_role(&["id"], Role::Truth);
//! let i = Labelled::from_dataset(read_csv_from(intr.as_bytes(), "i.csv".as_ref(), &opts).unwrap());
//! let r = Labelled::from_dataset(read_csv_from(rel.as_bytes(), "r.csv".as_ref(), &opts).unwrap());
//! let table: toml::Table = "method = \"exact\"\nkeys = [\"area\", \"beds\"]".parse().unwrap();
//! let attack = configure(&table, "", ReadContext::default()).unwrap();
//! let keys = attack.key_map(&[], &[]).unwrap();
//! let linked = attack.attack.link(&i.knowledge(keys).unwrap(), r.table(), 1).unwrap();
//! let truth = TruthIds { intruder: "id".into(), released: "id".into() };
//! let opts = EvalOptions::for_attack(&attack, Some(truth), None, 1);
//! let ev = evaluate(&linked.linkage, &i, &r, &opts).unwrap();
//! assert_eq!(ev.expected_correct, 0.5); // c_i = 2, the twin among them
//! ```
#![deny(missing_docs)]

pub mod evaluate;
mod labelled;
mod truth;
pub mod verdict;

pub use evaluate::{
    AttributeReport, DEFAULT_TOLERANCE, EvalOptions, Evaluation, PrPoint, RecordResult, Sensitive,
    evaluate, write_per_record,
};
pub use labelled::{Labelled, TruthIds, check_key_columns, twin_rows};
pub use truth::Truth;
pub use verdict::{CheckError, CrossExamination, Verdict, cross_examine, cross_examine_run};
