//! Attacks on masked microdata.
//!
//! An *intruder* holds a file of identified records and links it to a *released* (masked) file
//! over key variables. Every attack returns, for each intruder record, released candidates
//! ranked by score (higher is better; ties share a rank), a [`Linkage`]. The evaluator — the
//! only code of the toolkit that reads the ground truth, in crate `intruder-eval`, which this
//! crate does not depend on — turns a linkage into the figures of docs/METHODS.md §2: correct-match
//! rate, Mitra's expected identifications `Σ 1/c_i`, uniques, ranks, precision/recall, and
//! attribute disclosure `A`.
//!
//! # Attacks
//! | name | method | source |
//! |---|---|---|
//! | `exact` | [`ExactMatch`]: records equal on every key; missing listwise / as-value / wildcard; sets by overlap | Mitra et al. 2020 §3.1; Dalenius 1986; Mulder |
//! | `nearest` | [`Nearest`]: Euclidean (raw, z-scored, weighted) or Gower distance, strings via `strsim`; optional one-to-one (Hungarian) | Bender et al. 2001; sdcMicro `recordLinkage` |
//! | `kmeans` | [`KMeansAttack`]: every intruder record a centre, released records assigned to the nearest; or `k` true clusters | Bender et al. 2001 |
//! | `link` | [`FollowLink`]: follow a released link id ("links released") | Mitra et al. 2020 §3 |
//! | `fellegi-sunter` | [`fellegi_sunter::FellegiSunter`]: blocking, comparison levels, EM, term frequencies, one-to-one | Fellegi & Sunter 1969; Winkler; Splink |
//!
//! The registry is [`ATTACKS`] (`Entry<dyn Attack>`: name, summary, reference, declared
//! parameters, builder), with the parameters every attack shares in [`ATTACK_COMMON`] (`name`,
//! `keys`, `key_map`, `twins_only`, `sensitive`, `tolerance`); [`docs()`] feeds `intruder attack
//! --list`, the README table and the experiment reader. Adding an attack is one file,
//! `src/methods/<name>.rs`, implementing [`Attack`] with its `PARAMS`, `build` and `ENTRY`, and
//! one line, `mod <name>,`, in the list of `src/methods/mod.rs` ([`ATTACKS`]); then
//! `INTRUDER_WRITE_DOCS=1 cargo test -p intruder-cli --test integration generated_docs::`
//! regenerates the docs. docs/adding-a-method.md walks through an example
//! (`src/methods/fixture_agreement.rs`, compiled with the feature `fixture-methods` only).
//!
//! # Parameters: one path for every surface
//! [`configure`] takes a TOML table — `--set key=value` plus flags on the command line, an
//! experiment's `[[attack]]` table — and reads `method`, the common parameters and the method's
//! own through one `ParamReader`: kind, range and choices come from the declarations, every
//! problem is reported at once with its path (`attack[2].threshold: …`), unknown keys with a
//! did-you-mean. Each attack has its own checked parameter type ([`NearestParams`],
//! [`KMeansParams`], [`fellegi_sunter::FsParams`], …): unchecked table → `build` → checked
//! parameters → configured attack → [`Attack::link`]. The same names work everywhere: what
//! `--set` accepts, an experiment file accepts.
//!
//! # The ground truth cannot reach an attack
//! [`Attack::link`] takes a [`Knowledge`] — the intruder's table projected on the scenario's key
//! columns, with the [`KeyMap`] — and the released [`Table`]. The projection drops every other
//! column of the intruder's file (e.g. the true original value of a sensitive variable), and a
//! `Table` cannot hold a column with role truth (`Table::new` rejects it; loading sets such
//! columns apart in `intruder_data::Dataset::truth`). This crate depends on `intruder-table`
//! (the table model, which reads no data file) and not on `intruder-data` (which reads files and
//! holds the truth) nor `intruder-eval` (the labelled data and the evaluator), directly or
//! through any other crate, so no code here can name them: `intruder-eval`'s
//! `tests/dependencies.rs` checks the dependency tree, and compiles this crate with an attack
//! that tries to read the truth (`src/truth_peek.rs`, feature `truth-peek`), which must fail. Tests
//! check that a truth column loaded from a file and the intruder's non-key columns are absent
//! from what an attack receives.
//!
//! An attack returns [`Linked`]: the linkage and, for attacks that fit a model
//! (Fellegi–Sunter), the fitted [`LinkModel`] — as JSON and text, the weight breakdown of one
//! pair, the scored pairs as CSV. [`Attack::declared_threshold`] is the score at which links are
//! declared; the evaluator's precision and recall use it.
//!
//! # Command line
//! `intruder attack --intruder I.csv --released R.csv [--method NAME] [--set key=value …]
//! [--keys a,b,c] [--truth COL | --truth-intruder COL --truth-released COL] [--format
//! table|json|csv|markdown]`; `intruder attack --list` shows every attack with its parameters.
//! The keys default to the intruder file's schema columns with role `key`. See the crate README.
//!
//! # Example
//! ```
//! use intruder_attack::{Knowledge, configure};
//! use intruder_data::params::ReadContext;
//! use intruder_data::{read_csv_from, ReadOptions};
//! let i = read_csv_from("area,beds\n2,5\n".as_bytes(), "i.csv".as_ref(), &ReadOptions::default()).unwrap();
//! let rel = "area,beds\n2,5\n2,5\n1,3\n";
//! let r = read_csv_from(rel.as_bytes(), "r.csv".as_ref(), &ReadOptions::default()).unwrap();
//! let table: toml::Table = "method = \"exact\"\nkeys = [\"area\", \"beds\"]".parse().unwrap();
//! let attack = configure(&table, "", ReadContext::default()).unwrap();
//! let keys = attack.key_map(&[], &[]).unwrap();
//! let knowledge = Knowledge::new(&i.table, keys).unwrap();
//! let linked = attack.attack.link(&knowledge, &r.table, 1).unwrap();
//! // Released rows 0 and 1 tie at the best score: c_1 = 2 (scoring is `intruder_eval`'s).
//! let best: Vec<usize> = linked.linkage.records[0].best().iter().map(|c| c.row).collect();
//! assert_eq!(best, vec![0, 1]);
//! ```
#![deny(missing_docs)]

mod config;
pub mod distance;
mod error;
pub mod exact;
pub mod fellegi_sunter;
pub mod hungarian;
pub mod keys;
pub mod kmeans;
pub mod knn;
#[cfg(target_arch = "x86_64")]
mod knn32;
mod knowledge;
pub mod link;
mod linkage;
mod methods;
pub mod nearest;
mod registry;
mod topk;
// An attack that tries to read the truth: it must not compile (see the file).
#[cfg(feature = "truth-peek")]
mod truth_peek;

pub use config::{DistanceParams, Metric, MissingPolicy, StringMetric};
pub use error::{AttackError, KeyTypeMismatch, ParamError};
/// Default tolerance of attribute disclosure (Mitra: 5%): the `tolerance` parameter every
/// attack shares, used by the evaluator (`intruder-eval`).
pub const DEFAULT_TOLERANCE: f64 = 0.05;
pub use exact::ExactMatch;
pub use fellegi_sunter::Waterfall;
pub use keys::{KeyMap, KeyPair};
pub use kmeans::{KMeansAttack, KMeansParams};
pub use knowledge::Knowledge;
pub use link::FollowLink;
pub use linkage::{Candidate, Candidates, Linkage, ListCandidates, Lister};
pub use nearest::{Nearest, NearestParams};
pub use registry::{ATTACK_COMMON, ATTACKS, Common, Configured, configure, docs, find};

use std::path::Path;

use intruder_table::Table;

/// An attack: links the intruder's knowledge to the released file.
///
/// It sees the intruder's key columns ([`Knowledge`]) and the released [`Table`], never the
/// ground truth, and returns for every intruder record the released candidates ranked by score,
/// higher = better, ties sharing a rank.
pub trait Attack: Send + Sync {
    /// The registry name.
    fn name(&self) -> &'static str;

    /// Runs the attack; `seed` drives every random step (k-means++ with `clusters`, the random
    /// pairs of Fellegi–Sunter's u). Errors name the file and column at fault.
    fn link(
        &self,
        knowledge: &Knowledge,
        released: &Table,
        seed: u64,
    ) -> Result<Linked, AttackError>;

    /// The score at which links are declared (precision, recall, F1); `None`: every record's
    /// best candidate. Fellegi–Sunter: the weight of its probability threshold.
    fn declared_threshold(&self) -> Option<f64> {
        None
    }

    /// Every parameter of the method with its value, defaults included (the resolved
    /// configuration in reports).
    fn params(&self) -> serde_json::Map<String, serde_json::Value>;

    /// The keys the method's own parameters read, when they name columns (a linkage
    /// specification): used when `keys` is not given.
    fn implied_keys(&self) -> Option<KeyMap> {
        None
    }

    /// Whether [`link`](Attack::link) returns a fitted model ([`Linked::model`]).
    fn fits_model(&self) -> bool {
        false
    }

    /// The attack as its own type, for a surface that runs some attacks elsewhere (the
    /// engines run Fellegi–Sunter from its parameters); `None` by default.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// What an attack returns: the linkage, and the fitted model of attacks that fit one.
#[derive(Debug)]
pub struct Linked {
    /// Per intruder record, the ranked released candidates.
    pub linkage: Linkage,
    /// The fitted model (Fellegi–Sunter), `None` for the other attacks.
    pub model: Option<Box<dyn LinkModel>>,
}

impl From<Linkage> for Linked {
    fn from(linkage: Linkage) -> Self {
        Linked {
            linkage,
            model: None,
        }
    }
}

/// A fitted linkage model (Fellegi–Sunter): its explanation and its scored pairs.
pub trait LinkModel: Send + Sync + std::fmt::Debug {
    /// The model as JSON (m, u, weights, EM report).
    fn to_json(&self) -> serde_json::Value;

    /// The model for people.
    fn to_text(&self) -> String;

    /// The weight breakdown of intruder row `i` and released row `j` (0-based, rows of the
    /// tables the attack was run on).
    fn explain_pair(&self, i: usize, j: usize) -> Result<Waterfall, AttackError>;

    /// Writes `id_intruder,id_released,match_weight,match_probability` for every scored pair at
    /// match probability ≥ `floor`, best first; the closures name the records of 0-based rows.
    /// Returns the number of pairs written.
    fn write_pairs(
        &self,
        path: &Path,
        intruder_id: &dyn Fn(usize) -> String,
        released_id: &dyn Fn(usize) -> String,
        floor: f64,
    ) -> Result<usize, AttackError>;
}
