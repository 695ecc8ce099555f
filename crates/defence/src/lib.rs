//! Defences: the masking methods statistical offices apply before releasing microdata
//! (sdcMicro, µ-Argus, Dalenius' protective actions), behind one trait and one registry.
//!
//! # Design
//! - A configured method is a [`Defence`]: it takes a `&Table` (never the ground truth, which
//!   lives in [`intruder_data::Truth`]) and a seeded [`ChaCha20Rng`], and returns a [`Masked`]
//!   table. Parameters are a type apart, read and validated once by the method's entry in
//!   [`METHODS`] before any work; every problem is reported at once with its key.
//! - [`Pipeline`] composes steps declared in TOML (`[[step]] method = "…"`). Each step draws from
//!   its own ChaCha20 stream derived from the run's seed and the step's position, so a run is
//!   byte-identical for the same seed and input whatever the number of threads.
//! - [`Pipeline::run`] returns the masked table and a [`ChangeLog`]: which cells and records each
//!   step changed, how many cells it suppressed, and the kept row indices (into the input) when
//!   rows were removed or sampled, so the caller can subset the truth with
//!   [`intruder_data::Truth::take`].
//!
//! # Methods
//! | name | what | source |
//! |---|---|---|
//! | `global-recode` | breaks for numbers, category maps for categories | sdcMicro `globalRecode` |
//! | `top-bottom-code` | caps values above/below a threshold | sdcMicro `topBotCoding` |
//! | `round` | rounds to a base | Hundepool et al. (2012) §3.4 |
//! | `local-suppression` | suppresses key cells until k-anonymous (missing = wildcard) | sdcMicro `localSuppression`/`kAnon` |
//! | `risk-suppression` | suppresses a key where individual risk exceeds a threshold | sdcMicro `localSupp`, `indivRisk` |
//! | `remove-records` | removes records in classes below a size | Dalenius (1986) "destruction" |
//! | `noise` | additive noise, uncorrelated or correlated | Brand (2002); sdcMicro `addNoise` |
//! | `mdav` | multivariate microaggregation (MDAV) | Domingo-Ferrer & Mateo-Sanz (2002); sdcMicro `microaggregation(method = "mdav")` |
//! | `rank-swap` | rank swapping within p percent of n ranks | Moore (1996); sdcMicro `rankSwap` |
//! | `pram` | post-randomisation, invariant or given matrix, within strata | Gouweleeuw et al. (1998); sdcMicro `pram` |
//! | `subsample` | simple random (stratified) subsample with design weights | Skinner et al.; Bender et al. |
//!
//! `crates/defence/README.md` lists every parameter; a test checks it against the registry.
//!
//! # Example
//! ```
//! use intruder_data::{Column, Role, Table};
//! use intruder_defence::Pipeline;
//! let t = Table::new("mem", vec![Column::integer("age", Role::Key, &[Some(23), Some(47), Some(91)])]).unwrap();
//! let p = Pipeline::from_toml("[[step]]\nmethod = \"top-bottom-code\"\ncolumns = [\"age\"]\ntop = 85\n", "p.toml").unwrap();
//! let (masked, log) = p.run(&t, 7).unwrap();
//! assert_eq!(masked.column("age").unwrap().as_f64(2), Some(85.0));
//! assert_eq!(log.cells_changed, 1);
//! ```
#![deny(missing_docs)]
// `!(x > y)` is deliberate: it is also true when x is NaN. Index loops mirror the formulas.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::needless_range_loop)]

mod common;
mod error;
mod keyindex;
mod log;
pub mod methods;
mod params;
mod pipeline;

use std::fmt;

pub use error::DefenceError;
pub use keyindex::{KeyIndex, wildcard_counts};
pub use log::{ChangeLog, ColumnChange, StepLog};
pub use params::{FromParam, ParamKind, ParamReader, ParamSpec};
pub use pipeline::{Pipeline, Step};
pub use rand_chacha::ChaCha20Rng;

use intruder_data::Table;

/// A configured, validated masking method.
pub trait Defence: fmt::Debug + Send + Sync {
    /// The registry name of the method.
    fn method(&self) -> &'static str;
    /// Masks `table`, drawing any randomness from `rng`. The input is never modified.
    fn apply(&self, table: &Table, rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError>;
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
}

impl Masked {
    /// A result that keeps every row.
    pub fn same_rows(table: Table) -> Self {
        Masked {
            table,
            kept_rows: None,
            notes: Vec::new(),
        }
    }
}

/// A registry entry: a method's name, documentation, parameters and builder.
#[derive(Clone, Copy)]
pub struct Method {
    /// The name used in pipelines (`method = "…"`) and on the command line.
    pub name: &'static str,
    /// One line saying what it does.
    pub summary: &'static str,
    /// The source it implements (paper, sdcMicro function).
    pub source: &'static str,
    /// Its parameters.
    pub params: &'static [ParamSpec],
    /// Reads and validates parameters, recording problems in the reader; `None` when any.
    pub build: fn(&mut ParamReader) -> Option<Box<dyn Defence>>,
}

impl fmt::Debug for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Method").field("name", &self.name).finish()
    }
}

impl Method {
    /// Builds the method from a TOML table of parameters (`method` is ignored); `source_name`
    /// labels errors. Every problem is reported at once.
    pub fn configure(
        &self,
        params: &toml::Table,
        source_name: &str,
    ) -> Result<Box<dyn Defence>, DefenceError> {
        let mut r = ParamReader::new(params, self.name, self.params);
        let built = (self.build)(&mut r);
        let problems = r.finish();
        match built {
            Some(d) if problems.is_empty() => Ok(d),
            _ => Err(DefenceError::Params {
                source_name: source_name.to_string(),
                problems,
            }),
        }
    }
}

/// Every defence, in the order of `intruder mask --list`.
pub static METHODS: &[Method] = &[
    methods::recode::METHOD,
    methods::topcode::METHOD,
    methods::round::METHOD,
    methods::suppress::METHOD,
    methods::suppress::RISK_METHOD,
    methods::remove::METHOD,
    methods::noise::METHOD,
    methods::mdav::METHOD,
    methods::rankswap::METHOD,
    methods::pram::METHOD,
    methods::subsample::METHOD,
];

/// The registry entry called `name`.
pub fn method(name: &str) -> Option<&'static Method> {
    METHODS.iter().find(|m| m.name == name)
}

/// The registry as a markdown table (one row per parameter), as in `crates/defence/README.md`.
pub fn registry_markdown() -> String {
    let mut s = String::from(
        "| method | parameter | type | required | default | meaning |\n|---|---|---|---|---|---|\n",
    );
    for m in METHODS {
        s.push_str(&format!(
            "| **`{}`** | | | | | {} ({}) |\n",
            m.name, m.summary, m.source
        ));
        for p in m.params {
            s.push_str(&format!(
                "| | `{}` | {} | {} | {} | {} |\n",
                p.name,
                p.kind.as_str(),
                if p.required { "yes" } else { "no" },
                if p.default.is_empty() {
                    "–".to_string()
                } else {
                    format!("`{}`", p.default)
                },
                p.doc.replace('|', "\\|")
            ));
        }
    }
    s
}
