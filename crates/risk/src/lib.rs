//! Frequency risk measures for microdata (docs/METHODS.md §1): who is unique on the key variables,
//! under each missing-value policy, and how risky that is.
//!
//! - [`equivalence_classes`]: classes and f_k under `listwise` or `as-value`, with Dalenius'
//!   mixed-radix code (exact re-coding when the key space exceeds 64 bits) and a parallel,
//!   radix-partitioned count that gives the same answer whatever the thread count.
//! - [`n_match`]: Mulder's wildcard count, grouped by missingness pattern (never O(n²)); set-valued
//!   cells match by overlap or by their first candidate.
//! - [`assess`]: every file-level figure (uniques, k ≤ 5, k ≤ 10, Pr(SU), θ, Bender's R,
//!   individual risk from weights as sdcMicro, global and household risk, ℓ-diversity) and the
//!   per-record figures.
//! - [`suda2`] and [`population_uniqueness`]: special uniques, and population uniques estimated
//!   from the sample.
//! - [`t_closeness`]: the Earth Mover's Distance between each class's distribution of a
//!   sensitive variable and the file's (Li, Li & Venkatasubramanian 2007).
//! - The registry ([`RISK_MEASURES`], [`configure`]): each measure behind one [`RiskMeasure`]
//!   trait returning a [`Report`] and per-record [`Records`], configured from a table of raw
//!   parameters the same way by the command line and the experiment runner.
//!
//! On sdcMicro: its `freqCalc` counts a record with `NA` keys against every record agreeing on
//! the keys observed in both, i.e. the `wildcard` policy here; `as-value` (missing as a category
//! of its own) is what a plain `GROUP BY` does.
//!
//! ```
//! use intruder_data::{read_csv_from, ReadOptions};
//! use intruder_risk::{assess, MissingPolicy, RiskParams};
//! // Mulder's Table 2 (docs/METHODS.md example D).
//! let csv = "age,gender\n40,M\n36,F\n.,M\n40,.\n23,M\n23,M\n";
//! let ds = read_csv_from(csv.as_bytes(), "t2.csv".as_ref(), &ReadOptions::default()).unwrap();
//! let mut p = RiskParams::new(vec!["age".into(), "gender".into()]);
//! p.missing = MissingPolicy::Wildcard;
//! let a = assess(&ds.table, &p).unwrap();
//! assert_eq!(a.records.n_match.unwrap(), vec![3, 1, 5, 3, 3, 3]);
//! ```
//!
//! # Adding a risk measure
//! 1. Create `src/methods/<name>.rs`, starting with a `//!` line saying what the measure computes
//!    and its reference, holding: `const PARAMS: &[ParamSpec]`, the measure's own parameters (the
//!    common `keys`, `missing` and `set_match` are [`RISK_COMMON`]); the adapter type and its
//!    [`RiskMeasure`] impl; `fn build(r: &mut ParamReader) -> Option<Box<dyn RiskMeasure>>`,
//!    which reads every parameter through `r`, records each problem there and returns `None` when
//!    there is one; and `pub const ENTRY: Entry<dyn RiskMeasure>` (name, summary, reference,
//!    `PARAMS`, `build`). `src/methods/round.rs` of the defence crate has the same shape. What
//!    measures share (`read_common`, `needs_classes`, `checked`, the `weight`, `group` and
//!    `sensitive` specs, …) is in `src/methods/shared.rs`; `registry.rs` is not imported.
//! 2. Add its one line, `mod <name>,`, to the list in `src/methods/mod.rs`
//!    ([`RISK_MEASURES`], `intruder_data::registry!`), where `--list` should show it: the line
//!    declares the module and registers its `ENTRY`. The command line (`--list`, `--help`,
//!    `--measure`, `--set`), the experiment runner, Python's `intruder.methods()` and the web
//!    page read that list.
//! 3. Regenerate the generated docs (the tables of this crate's README and of the workspace's):
//!    `INTRUDER_WRITE_DOCS=1 cargo test -p intruder-cli --test integration generated_docs::`
//!    (without the variable that test fails while any is stale).
//!
//! docs/adding-a-method.md walks through a whole example (`src/methods/fixture_key_space.rs`,
//! compiled with the feature `fixture-methods` only).
//!
//! `tests/registry.rs` then builds and runs the new entry on a small file, with its keys and the
//! columns its parameters take from schema roles filled in (a measure that needs more than that
//! to build fails there), and the registry's own tests check that its name is new and its
//! parameters do not shadow the common ones.
#![deny(missing_docs)]

mod assess;
mod classes;
pub mod closeness;
mod error;
pub mod external;
mod keys;
pub mod measures;
mod methods;
pub mod population;
pub mod registry;
pub mod sizes;
pub mod suda;
mod wildcard;

pub use assess::{
    Assessment, ClassSummary, DiversitySummary, GlobalRiskDenominator, HouseholdSummary,
    KAnonymitySummary, RecordRisk, RiskParams, Summary, WeightSummary, WildcardSummary, assess,
    assess_codes, assess_parts, assess_timed, codes_suffice, global_threshold, parts_suffice,
};
pub use classes::{
    Classes, DELETED, Encoding, dalenius_t1_code, equivalence_classes, equivalence_classes_using,
    mixed_radix_code,
};
pub use closeness::{GroundDistance, TCloseness, TClosenessParams, t_closeness};
pub use error::RiskError;
pub use intruder_table::keys::{CodeSource, PartedCodes};
pub use intruder_table::report::{Figure, Records, Report, Unit};
pub use keys::{MissingPolicy, SetMatch};
pub use population::{PopulationParams, PopulationRisk, population_uniqueness};
pub use registry::{
    DEFAULT_MEASURE, RISK_COMMON, RISK_MEASURES, RiskMeasure, RiskOutcome, configure,
    configure_for_parts, docs, fill_roles,
};
pub use suda::{Suda2, Suda2Params, suda2};
pub use wildcard::{
    IncompletePairs, NMatch, n_match, n_match_naive, n_match_naive_with, n_match_with,
};
