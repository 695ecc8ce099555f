//! Utility measures: what masking cost. Each compares an original table with its masked version
//! on named variables.
//!
//! The measures are library functions (below) and, for the command line, the experiment runner
//! and Python, entries of one registry, [`UTILITY_MEASURES`] (trait [`UtilityMeasure`], common
//! parameters [`UTILITY_COMMON`], [`configure`] shared by every surface, [`docs`]); a configured
//! measure returns an [`intruder_data::report::Report`] whose figures are the runner's metrics
//! (`utility.<figure>`). `crates/utility/README.md` lists the registry.
//!
//! | measure | what | source |
//! |---|---|---|
//! | [`moments`] | differences in means and variances per variable | Hundepool et al. (2012) §3.6 |
//! | [`correlations`] | differences in Pearson correlations | Hundepool et al. (2012) §3.6 |
//! | [`il1s`] | IL1s, sdcMicro's `dUtility(method = "IL1")` | Mateo-Sanz, Sebé & Domingo-Ferrer (2004); Templ et al. (2015) |
//! | [`pmse`] | propensity-score mean squared error | Woo, Reiter, Oganian & Karr (2009); Snoke et al. (2018) |
//! | [`ci_overlap`] | overlap of regression coefficients' 95% confidence intervals | Karr, Kohnen, Oganian, Reiter & Sanil (2006) |
//! | [`information_loss`] | NCP, non-uniform entropy, discernibility, AECS of generalisation and suppression | Xu et al. (2006); Gionis & Tassa (2009); Bayardo & Agrawal (2005); LeFevre et al. (2006) |
//!
//! # Loss where the change happened
//! A recoding is published with the release: comparing recoded labels with original labels
//! would call every recoded record changed (a one-to-one relabelling would lose "everything").
//! [`measure_all_recoded`] therefore compares on the released scale — the original mapped
//! through the same public recodings — and [`information_loss`] reads the recoding itself as
//! generalisation (how much precision each released value gave up).
//!
//! Missing cells: moments and correlations use the observed (pairwise complete) values of each
//! file; IL1s skips cells missing in either file; pMSE and regressions drop records with a
//! missing variable (listwise) and report how many.
//!
//! IL1s and information-loss compare records one to one (same rows, same order); when the
//! masking removed or sampled records, the change log's kept rows pair them
//! (`intruder utility --log`). The other measures compare the files as wholes.
//!
//! # Adding a utility measure
//! 1. Create `src/methods/<name>.rs` (`src/methods/pmse.rs` is a short one to start from). It
//!    opens with a `//!` line saying what the measure computes and its reference, and holds the
//!    measure's `NAME`, its own parameters `PARAMS` (the common `variables` is in
//!    [`UTILITY_COMMON`]), the configured measure (public fields) implementing
//!    [`UtilityMeasure`], its `build` function, which reads and checks the parameters with the
//!    [`ParamReader`](intruder_data::params::ParamReader) (every problem at once, `None` when
//!    any), and `pub const ENTRY` (name, summary, reference, params, build). What several
//!    measures share (`read_variables`, `num`, `opt`) is in `src/methods/shared.rs`; put it there,
//!    never in `registry.rs`. A sizeable computation may live in a module of its own beside
//!    `moments.rs`, `pmse.rs`.
//! 2. Add its one line, `mod <name>,`, to the list in `src/methods/mod.rs`
//!    ([`UTILITY_MEASURES`], `intruder_data::registry!`), at the place it should have in
//!    `intruder utility --list`: the line declares the module and registers its `ENTRY`.
//! 3. Regenerate the generated docs (this crate's README section and the workspace README's
//!    tables): `INTRUDER_WRITE_DOCS=1 cargo test -p intruder-cli --test integration
//!    generated_docs::` (without the variable that test fails while any is stale).
//!
//! The command line (`--list`, `--help`, `--measure`, `--set`), the experiment runner's
//! `[utility]` table and Python read the registry; docs/adding-a-method.md walks through a whole
//! example (`src/methods/fixture_changed_cells.rs`, compiled with the feature `fixture-methods`
//! only). `tests/registry.rs` builds and runs every registered measure
//! from one TOML table on a worked example: give the new measure's parameters there and check
//! its figures by name (`report("<name>")`). Each number a measure reports is declared in its
//! entry's `figures` (human name, unit, reference, `.non_negative()`), from which the runner
//! names it and bounds its interval; the registry test fails while one is undeclared.
//!
//! # Example
//! ```
//! use intruder_data::{Column, Role, Table};
//! let orig = Table::new("o", vec![Column::float("x", Role::Sensitive, &[Some(1.0), Some(2.0), Some(3.0)])]).unwrap();
//! let masked = Table::new("m", vec![Column::float("x", Role::Sensitive, &[Some(1.0), Some(2.0), Some(4.0)])]).unwrap();
//! let il = intruder_utility::il1s(&orig, &masked, &["x".to_string()]).unwrap();
//! // |3 − 4| / (√2 · sd(1, 2, 3)), and sd(1, 2, 3) = 1
//! assert!((il.total - 1.0 / 2f64.sqrt()).abs() < 1e-12);
//! ```
#![deny(missing_docs)]
// `!(x > y)` is deliberate: it is also true when x is NaN. Index loops mirror the formulas.
#![allow(clippy::neg_cmp_op_on_partial_ord, clippy::needless_range_loop)]

mod generalisation;
mod linalg;
mod methods;
mod moments;
mod pmse;
mod registry;
mod regression;
mod run;

use intruder_table::{DataError, Kind, Table};

pub use generalisation::{ColumnLoss, InformationLoss, information_loss};
pub use methods::ci_overlap::CiOverlapMeasure;
pub use methods::correlations::CorrelationsMeasure;
pub use methods::il1s::Il1sMeasure;
pub use methods::information_loss::InformationLossMeasure;
pub use methods::moments::MomentsMeasure;
pub use methods::pmse::PmseMeasure;
pub use moments::{CorrelationDiff, Il1s, VariableDiff, correlations, il1s, moments};
pub use pmse::{Pmse, pmse};
pub use registry::{
    Configured, UTILITY_COMMON, UTILITY_MEASURES, UtilityMeasure, configure, docs, find,
    registry_markdown,
};
pub use regression::{
    CiOverlap, CoefficientOverlap, Family, Fit, Formula, ci_overlap, fit, interval_overlap,
};
pub use run::{
    default_measures, left_out_measures, measure_all, measure_all_recoded, measure_each,
    merge_reports,
};

/// An error of a utility measure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UtilityError {
    /// An error of the data model (unknown column and the like).
    #[error(transparent)]
    Data(#[from] DataError),
    /// A column cannot be used as asked.
    #[error("{file}: column '{column}': {message}")]
    Column {
        /// The file (table source).
        file: String,
        /// The column.
        column: String,
        /// What is wrong and what was expected.
        message: String,
    },
    /// The two tables do not correspond as the measure needs.
    #[error("{0}")]
    Mismatch(String),
    /// A model formula cannot be parsed.
    #[error("model formula '{formula}': {message}")]
    Formula {
        /// The formula.
        formula: String,
        /// What is wrong.
        message: String,
    },
    /// A model could not be fitted.
    #[error("{0}")]
    Model(String),
    /// An error of one measure, naming it.
    #[error("utility measure '{measure}': {source}")]
    Measure {
        /// The measure's registry name.
        measure: String,
        /// What went wrong.
        source: Box<UtilityError>,
    },
}

/// The values of a numeric variable (`NaN` when missing); an error names file, column and kind.
pub(crate) fn numeric(table: &Table, name: &str) -> Result<Vec<f64>, UtilityError> {
    let c = table.column(name)?;
    if !matches!(c.kind(), Kind::Integer | Kind::Float) {
        return Err(UtilityError::Column {
            file: table.source().to_string(),
            column: name.to_string(),
            message: format!(
                "is {}{}; this measure needs a numeric column",
                c.kind(),
                intruder_table::params::not_a_number_note(c)
            ),
        });
    }
    Ok(intruder_table::numeric::values(c))
}
