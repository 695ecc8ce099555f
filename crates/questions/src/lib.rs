//! The three questions of anonymisation — can a record be **singled out**, can records be
//! **linked**, can an attribute be **inferred** (Article 29 Working Party, Opinion 05/2014) —
//! asked as anonymeter asks them (Giomi, Boenisch, Wehmeyer & Tasnádi, "A Unified Framework for
//! Quantifying Privacy Risk in Synthetic Data", PoPETs 2023; statice/anonymeter 1.1).
//!
//! Each question runs three attacks that use the release:
//! - the **main attack** against the original records the release was made from;
//! - the same attack against a **control** set: real records from the same population that the
//!   release never saw. What the attack achieves on them it owes to what the release says about
//!   the population, not about the people in it;
//! - a naive **baseline** that guesses at random. A main attack that does not beat it measures
//!   nothing (a warning says so).
//!
//! The risk is the main attack's excess success over the control attack's, relative to what the
//! control attack left to gain: `risk = (attack − control) / (1 − control)`, with rates and
//! errors from Wilson score intervals ([`rates`]). The questions need no ground truth: they run
//! on synthetic releases, where no record has a twin, as on masked ones.
//!
//! | question | function | a success is |
//! |---|---|---|
//! | singling out | [`singling_out()`](mod@singling_out) | a predicate drawn from the release that matches exactly one original record |
//! | linkability | [`linkability()`](mod@linkability) | a target's two halves (two sets of auxiliary columns) share a nearest release record |
//! | inference | [`inference()`](mod@inference) | the secret of a target's nearest release record (on the auxiliary columns) equals the target's (numbers: within a relative tolerance) |
//!
//! Every function takes the original, the control set and the release as [`Table`](intruder_data::Table)s, checked
//! parameters and a seed, and returns a [`QuestionResult`]; every problem with the input is a
//! [`QuestionError`] naming the file and the column, or the counts. The results do not depend
//! on the number of threads. Parameters read from TOML through each question's `PARAMS` list
//! (`intruder_data::params`), so a surface passes `--set` values or an experiment's table
//! straight to `from_table`.
//!
//! # Where this differs from anonymeter 1.1
//! - The control set and the release are required (anonymeter allows no control set).
//! - Ties between equally near release records are broken at random (seeded), not by numpy's
//!   unstable sort (the `neighbours` module in the source).
//! - Inference with `regression = true` counts a guess `g` of secret `s` as right when
//!   `|g − s| / (|g| + 10⁻¹²) ≤ tolerance`; anonymeter divides by `g` itself, so every negative
//!   guess counts as right. `regression` absent means "numeric secret": anonymeter 1.1's
//!   constructor default is `false` (its `None` means the same as here).
//! - Singling out's control-size correction, when the control set has at most 1,000 records,
//!   measures at sizes from half the control set up to all of it: anonymeter measures at 1,000
//!   records or all of them, ten times the same size, which leaves its fitted model undefined
//!   (its answer then depends on the optimiser's path).
//! - More attacks than records to draw them from, an auxiliary column in both of linkability's
//!   sets, and a secret among the auxiliary columns are errors.
//!
//! # Example
//! ```
//! use intruder_data::{Column, Role, Table};
//! use intruder_questions::{linkability, LinkabilityParams};
//!
//! let table = |name: &str, ages: &[i64], towns: &[&str]| {
//!     let age: Vec<Option<i64>> = ages.iter().map(|&a| Some(a)).collect();
//!     let town: Vec<Option<&str>> = towns.iter().map(|&t| Some(t)).collect();
//!     Table::new(name, vec![
//!         Column::integer("age", Role::Key, &age),
//!         Column::categorical("town", Role::Key, &town, None).unwrap(),
//!     ]).unwrap()
//! };
//! let original = table("original.csv", &[20, 35, 50, 65], &["a", "b", "c", "d"]);
//! let control = table("control.csv", &[22, 37, 52, 67], &["b", "c", "d", "a"]);
//! let release = original.clone();
//! let params = LinkabilityParams::new((vec!["age".into()], vec!["town".into()])).with_attacks(4);
//! let result = linkability(&original, &control, &release, &params, 7).unwrap();
//! assert_eq!(result.n_success, 4); // a copy links every record
//! assert_eq!(result.n_control, 0.0); // no control record is linked to itself
//! ```
#![deny(missing_docs)]

mod coded;
pub mod distance;
pub mod error;
pub mod inference;
pub mod linkability;
pub mod membership;
mod neighbours;
pub mod rates;
pub mod singling_out;

pub use distance::{DistanceParams, DistanceResult, distances};
pub use error::{ParamError, QuestionError};
pub use inference::{InferenceParams, inference};
pub use linkability::{LinkabilityParams, linkability};
pub use membership::{MembershipAttack, MembershipParams, MembershipResult, membership};
pub use rates::{QuestionResult, Rate};
pub use singling_out::{Mode, SinglingOutParams, singling_out, size_correction};

/// The parameters of each question, as a surface's registry lists them.
pub mod params {
    pub use crate::distance::PARAMS as DCR;
    pub use crate::inference::PARAMS as INFERENCE;
    pub use crate::linkability::PARAMS as LINKABILITY;
    pub use crate::membership::PARAMS as MEMBERSHIP;
    pub use crate::singling_out::PARAMS as SINGLING_OUT;
}

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The random stream `k` of a question run from `seed`: each step (targets, control targets,
/// baseline, tie-breaking) has its own, so no step's draws depend on another's.
pub(crate) fn stream(seed: u64, k: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(k);
    rng
}

/// `params` read by `r`, once the reader holds no problem and `check` passes on them; a failed
/// check is recorded as a problem of the whole table.
pub(crate) fn checked<T>(
    r: &mut intruder_table::params::ParamReader<'_>,
    params: T,
    check: impl FnOnce(&T) -> Result<(), ParamError>,
) -> Option<T> {
    if !r.ok() {
        return None;
    }
    match check(&params) {
        Ok(()) => Some(params),
        Err(e) => {
            r.table_problem(e);
            None
        }
    }
}

/// Reads a question's parameters from a TOML table (`--set` values, an experiment's table)
/// with `read`, reporting every problem at once under `source_name`.
pub(crate) fn read_table<T>(
    table: &toml::Table,
    source_name: &str,
    specs: &'static [intruder_table::params::ParamSpec],
    read: impl FnOnce(&mut intruder_table::params::ParamReader<'_>) -> Option<T>,
) -> Result<T, intruder_table::params::ParamError> {
    let mut r = intruder_table::params::ParamReader::new(
        table,
        "",
        &[specs],
        intruder_table::params::ReadContext::default(),
    );
    let value = read(&mut r);
    let outcome = r.finish();
    match value {
        Some(v) if outcome.problems.is_empty() => Ok(v),
        _ => Err(intruder_table::params::ParamError {
            source_name: source_name.to_string(),
            problems: outcome.problems,
        }),
    }
}
