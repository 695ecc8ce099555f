//! `intruder-synth`: seeded synthetic look-alike populations for the source studies, with
//! ground truth.
//!
//! The microdata behind the studies the toolkit reproduces (LISS, WAS, IAB/MPI, a youth drug
//! survey) are not public. Each generator here builds a stand-in calibrated to the published
//! figures, so every experiment runs anywhere and the true answer — who is who, who is unique
//! in the population — is known.
//!
//! # Design
//!
//! * **One trait, one registry.** Every generator is a unit struct implementing [`Generator`]
//!   and listed once in [`generators`]; the CLI (`intruder synth --list`), the docs and the
//!   tests read that list instead of repeating it.
//! * **Parameters are data, validated before work.** A generator describes its parameters as
//!   a static slice of the workspace's shared [`ParamSpec`] (`intruder_data::params`: kind,
//!   range, default, doc); [`Generator::parse_table`] reads a TOML table against it (an
//!   experiment's `[data] params`, or `--set key=value` through [`Generator::parse_params`])
//!   and reports every problem at once with its path and a did-you-mean. Nothing is written
//!   when a parameter is wrong. [`docs`] gives every generator's documentation for `--list`
//!   and the README table.
//! * **Seeded and byte-reproducible.** All randomness comes from ChaCha8 seeded with the
//!   user's seed (one stream per purpose, see [`dist::rng`]); the same seed and parameters
//!   give byte-identical files, another seed gives different files. No hidden seed.
//! * **Whole or nothing.** Files are written under temporary names in the output directory
//!   and renamed into place only when the whole generator succeeded ([`output::OutputSet`]).
//! * **Ground truth by construction.** Every file keeps the true person or household id in a
//!   column whose schema role is `truth`; anything only the evaluator may see (such as the
//!   true birth month of panel members) goes to a separate `*-truth.csv` file.
//! * **CSV plus schema.** Every CSV comes with a `*.schema.toml` giving each column's type
//!   and role, in the format read by the data-model crate (see [`schema`]).
//! * **Bounded memory where it matters.** The census generator streams rows to disk and draws
//!   its sample on the fly (sequential selection), so ten million rows by twenty keys need
//!   only a few megabytes.

#![deny(missing_docs)]

pub mod dist;
mod error;
pub mod figures;
pub mod generators;
pub mod mob;
pub mod output;
mod params;
pub mod schema;

use std::path::{Path, PathBuf};

use intruder_data::params::MethodDoc;

pub use error::SynthError;
pub use params::{ParamKind, ParamSpec, Params, Range, Value};

/// A synthetic-data generator.
pub trait Generator: Sync {
    /// Registry name, e.g. `survey-panel`.
    fn name(&self) -> &'static str;
    /// One line: what it builds.
    fn summary(&self) -> &'static str;
    /// The study it imitates (authors, data set, the tables calibrated to).
    fn reference(&self) -> &'static str;
    /// One-paragraph description: what study it imitates and what it writes.
    fn description(&self) -> &'static str;
    /// Parameters with defaults, valid ranges and docs (kinds integer, number, choice, bool).
    fn params(&self) -> &'static [ParamSpec];
    /// Published figures the generator is calibrated to: (figure, published value).
    fn published(&self) -> &'static [(&'static str, &'static str)];
    /// Write the data set into `out_dir`; returns the files written.
    fn generate(
        &self,
        params: &Params,
        seed: u64,
        out_dir: &Path,
    ) -> Result<Vec<PathBuf>, SynthError>;

    /// Validate `--n` and `key=value` strings (`--set`) against this generator's parameters.
    fn parse_params(&self, n: Option<u64>, sets: &[String]) -> Result<Params, SynthError> {
        Params::parse(self.name(), self.params(), n, sets)
    }

    /// Validate a table of parameters (an experiment's `[data] params`) and the size `n`;
    /// every problem is reported with its path under `prefix` (`data.params.keys`).
    fn parse_table(
        &self,
        n: Option<u64>,
        table: &toml::Table,
        prefix: &str,
    ) -> Result<Params, SynthError> {
        Params::from_table(self.name(), self.params(), n, table, prefix)
    }

    /// The generator's documentation (name, summary, reference, parameters).
    fn doc(&self) -> MethodDoc {
        MethodDoc {
            name: self.name(),
            summary: self.summary(),
            reference: self.reference(),
            params: self.params(),
            common: &[],
        }
    }
}

static GENERATORS: &[&dyn Generator] = &[
    &generators::survey_panel::SurveyPanel,
    &generators::household_panel::HouseholdPanel,
    &generators::register_survey::RegisterSurvey,
    &generators::census::Census,
    &generators::linkage_pair::LinkagePair,
];

/// All generators, in a fixed order.
pub fn generators() -> &'static [&'static dyn Generator] {
    GENERATORS
}

/// Every generator's documentation, in registry order (for `intruder synth --list`, the README
/// table and the docs/registry walk).
pub fn docs() -> Vec<MethodDoc> {
    GENERATORS.iter().map(|g| g.doc()).collect()
}

/// The generator called `name`; the error lists the valid names.
pub fn find(name: &str) -> Result<&'static dyn Generator, SynthError> {
    GENERATORS
        .iter()
        .copied()
        .find(|g| g.name() == name)
        .ok_or_else(|| SynthError::UnknownGenerator {
            name: name.to_string(),
            hint: intruder_data::params::did_you_mean(name, GENERATORS.iter().map(|g| g.name())),
            valid: GENERATORS
                .iter()
                .map(|g| g.name())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

/// Convenience: validate `n` and `sets` for generator `name` and run it.
pub fn run(
    name: &str,
    n: Option<u64>,
    sets: &[String],
    seed: u64,
    out_dir: &Path,
) -> Result<Vec<PathBuf>, SynthError> {
    let g = find(name)?;
    let params = g.parse_params(n, sets)?;
    g.generate(&params, seed, out_dir)
}
