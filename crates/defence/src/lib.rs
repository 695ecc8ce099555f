//! Defences: the masking methods statistical offices apply before releasing microdata
//! (sdcMicro, µ-Argus, Dalenius' protective actions), behind one trait and one registry.
//!
//! # Design
//! - A configured method is a [`Defence`]: it takes a `&Table` (never the ground truth, which
//!   is set apart when a file is loaded and read only by the evaluator's crate, `intruder-eval`,
//!   which this crate does not depend on) and a seeded [`ChaCha20Rng`], and returns a [`Masked`]
//!   table. Parameters are a type apart, declared once with the shared parameter layer
//!   ([`intruder_data::params`]) and read and validated by the method's entry in [`DEFENCES`]
//!   before any work; every problem is reported at once with its path (`step[2].k: …`).
//! - One name per concept: `keys` are the key variables a method counts classes on
//!   (local-suppression, risk-suppression, remove-records); `variables` are the columns a
//!   method transforms (global-recode, top-bottom-code, round, noise, mdav, rank-swap, pram).
//!   The old name `columns` is accepted with a deprecation warning for one release
//!   ([`Pipeline::warnings`]).
//! - [`Pipeline`] composes steps declared in TOML (`[[step]] method = "…"`). Each step draws from
//!   its own ChaCha20 stream derived from the run's seed and the step's position, so a run is
//!   byte-identical for the same seed and input whatever the number of threads.
//! - [`Pipeline::run`] returns the masked table and a [`ChangeLog`]: which cells and records each
//!   step changed, how many cells it suppressed, and the kept row indices (into the input) when
//!   rows were removed or sampled, so the caller can subset the truth with them
//!   (`intruder_eval::Labelled::mask` does it for every surface). [`ChangeLog::record_numbers`] is the same log with 1-based
//!   record numbers, as shown to users (`intruder mask --log`).
//!
//! # Methods
//! | name | what | reference |
//! |---|---|---|
//! | `global-recode` | breaks for numbers, category maps for categories | sdcMicro `globalRecode` |
//! | `top-bottom-code` | caps values above/below a threshold | sdcMicro `topBotCoding` |
//! | `round` | rounds to a base | Hundepool et al. (2012) §3.4 |
//! | `generalise` | full-domain generalisation along hierarchies, searched for the least loss under privacy models | ARX (Flash, Lightning; its quality models) |
//! | `local-suppression` | suppresses key cells until k-anonymous (missing = wildcard) | sdcMicro `localSuppression`/`kAnon` |
//! | `risk-suppression` | suppresses a key where individual risk exceeds a threshold | sdcMicro `localSupp`, `indivRisk` |
//! | `remove-records` | removes records in classes below a size | Dalenius (1986) "destruction" |
//! | `noise` | additive noise, uncorrelated or correlated | Brand (2002); sdcMicro `addNoise` |
//! | `mdav` | multivariate microaggregation (MDAV) | Domingo-Ferrer & Mateo-Sanz (2002); sdcMicro `microaggregation(method = "mdav")` |
//! | `rank-swap` | rank swapping within p percent of n ranks | Moore (1996); sdcMicro `rankSwap` |
//! | `pram` | post-randomisation, invariant or given matrix, within strata | Gouweleeuw et al. (1998); sdcMicro `pram` |
//! | `record-swap` | targeted record swapping: households at risk on the geography, and others up to a swap rate, exchange their geography with a similar household elsewhere | sdcMicro `recordSwap` (Gussenbauer) |
//! | `subsample` | simple random (stratified) subsample with design weights | Skinner et al.; Bender et al. |
//! | `independent-marginals` | synthetic records, every column drawn independently from its marginal | the baseline synthesiser |
//! | `privbayes` | synthetic records from a Bayesian network learnt under ε-differential privacy | Zhang et al. (2017) |
//!
//! # Synthesisers
//! `independent-marginals` and `privbayes` release new records rather than masked ones
//! ([`Defence::synthetic`]): the pipeline's log maps no released record to an input record
//! ([`ChangeLog::synthetic`], empty `kept_rows`), so the truth of the release is no one
//! (`intruder_eval::Labelled::release`): the twin-based attacks find no twin, and a measure that
//! pairs records one to one does not apply. A synthesiser promises nothing about k; `privbayes`
//! releases its table under ε-differential privacy, which no attack here checks.
//!
//! `crates/defence/README.md` lists every parameter, generated from [`docs`]; a test checks it.
//!
//! # Example
//! ```
//! use intruder_data::{Column, Role, Table};
//! use intruder_defence::Pipeline;
//! let t = Table::new("mem", vec![Column::integer("age", Role::Key, &[Some(23), Some(47), Some(91)])]).unwrap();
//! let p = Pipeline::from_toml("[[step]]\nmethod = \"top-bottom-code\"\nvariables = [\"age\"]\ntop = 85\n", "p.toml").unwrap();
//! assert!(p.warnings().is_empty());
//! let (masked, log) = p.run(&t, 7).unwrap();
//! assert_eq!(masked.column("age").unwrap().as_f64(2), Some(85.0));
//! assert_eq!(log.cells_changed, 1);
//! ```
//!
//! # Checked by construction
//! A configured defence (`methods::round::Round`, …) keeps its fields private: the only way to
//! one is its entry's `build` (through [`Pipeline`] or `Entry::configure`), which checks every
//! parameter, so a library cannot run a defence with settings no surface would accept. What a
//! library writes unchecked is the step's table of parameters. This does not compile:
//! ```compile_fail
//! let r = intruder_defence::methods::round::Round { variables: vec!["x".into()], base: -5.0 };
//! ```
#![deny(missing_docs)]
// `!(x > y)` is deliberate: it is also true when x is NaN. Index loops mirror the formulas.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::needless_range_loop)]

pub mod claim;
mod common;
mod error;
mod log;
pub mod methods;
mod pipeline;

use std::fmt;

pub use claim::{Claim, MatchRule, PROTECT_AGAINST_CHOICES, ProtectAgainst};
pub use common::wildcard_counts;
pub use error::DefenceError;
pub use intruder_table::params::{
    ColumnSet, Entry, FromParam, MethodDoc, ParamKind, ParamReader, ParamSpec, Problem, ReadContext,
};
pub use log::{ChangeLog, ColumnChange, StepLog};
pub use pipeline::{Pipeline, Step, step_columns};
pub use rand_chacha::ChaCha20Rng;

use intruder_table::Table;

/// A configured, validated masking method.
pub trait Defence: fmt::Debug + Send + Sync {
    /// The registry name of the method.
    fn method(&self) -> &'static str;
    /// Masks `table`, drawing any randomness from `rng`. The input is never modified.
    fn apply(&self, table: &Table, rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError>;
    /// How the method changes the columns a later step sees (a recoded column becomes
    /// categorical, a subsample adds its weight), so a pipeline checks each step's column
    /// parameters against the columns it will meet. The default: no change.
    fn adjust_columns(&self, _columns: &mut ColumnSet) {}
    /// What the method promises about its output (k-anonymity on its keys, a largest individual
    /// risk), against which intruder ([`Claim`]); `intruder mask` and the runner cross-examine
    /// every promise with the toolkit's attacks. The default: no promise.
    fn claims(&self) -> Vec<Claim> {
        Vec::new()
    }
    /// Whether an intruder can repeat the method on their own copy of the data: it is
    /// deterministic and its parameters are published with the release (a recoding, rounding,
    /// top coding), so an intruder maps what they know into the released categories before
    /// matching. The default: no.
    fn public_recoding(&self) -> bool {
        false
    }
    /// For a public recoding chosen from the data (generalisation searches its levels): the
    /// recoding its last run chose, applied to an intruder's `table` (their copy of the keys),
    /// without the suppressions. `None` (the default): the method is repeated as it is
    /// ([`Pipeline::intruder_view`] applies [`Defence::apply`] when
    /// [`Defence::public_recoding`] holds).
    fn public_view(&self, _table: &Table) -> Option<Result<Table, DefenceError>> {
        None
    }
    /// Whether the method releases new records (a synthesiser) rather than masked input
    /// records: no output record is an input record, so its [`Masked::kept_rows`] is `None`
    /// and the pipeline's log maps no released record to an input row
    /// ([`ChangeLog::synthetic`]); the truth of such a release is no one. The default: no.
    fn synthetic(&self) -> bool {
        false
    }
}

/// The result of one defence.
#[derive(Debug, Clone)]
pub struct Masked {
    /// The masked table.
    pub table: Table,
    /// When the method removed or sampled rows: for each output row, its row in the input.
    pub kept_rows: Option<Vec<usize>>,
    /// Facts worth reporting (e.g. the group count of MDAV, the suppressions per key).
    pub notes: Vec<String>,
    /// Structured facts for reports and JSON summaries (e.g. the levels a generalisation chose
    /// and its Pareto frontier).
    pub details: Option<serde_json::Value>,
}

impl Masked {
    /// A result that keeps every row.
    pub fn same_rows(table: Table) -> Self {
        Masked {
            table,
            kept_rows: None,
            notes: Vec::new(),
            details: None,
        }
    }
}

// Every defence's line is in `methods/mod.rs`, beside the modules.
pub use methods::DEFENCES;

/// The entry called `name`; the error suggests a near name and lists every defence.
pub fn find(name: &str) -> Result<&'static Entry<dyn Defence>, String> {
    intruder_table::params::find(DEFENCES, "defence", name)
}

/// The entry called `name`, if any.
pub fn method(name: &str) -> Option<&'static Entry<dyn Defence>> {
    DEFENCES.iter().find(|m| m.name == name)
}

/// The documentation of every defence (for `intruder mask --list`, the README table and the
/// experiment reader). Defences have no common parameters.
pub fn docs() -> Vec<MethodDoc> {
    DEFENCES.iter().map(|e| e.doc(&[])).collect()
}
