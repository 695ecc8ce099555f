//! The intruder toolkit as one library: the orchestration every surface shares.
//!
//! The command line (`intruder attack`, `intruder mask`, `intruder utility`) and the Python
//! package (`intruder.attack()`, `intruder.mask()`, `intruder.utility()`) call these functions;
//! they only convert their inputs (files, data frames, flags, keyword arguments) and render the
//! results (text, JSON, Arrow tables). What a run does — which keys an attack uses when none are
//! given, which truth columns identify a person, which released records a "twins only" search
//! keeps, where the linkage runs, how a masked table carries its truth, which utility measures
//! apply and on which scale — is decided here, once.
//!
//! The layers, from the bottom (see `docs/ARCHITECTURE.md`):
//! - `intruder-table`: tables, parameters, key codes, reports, with no reader of data files;
//! - the method crates `intruder-risk`, `intruder-attack`, `intruder-defence`,
//!   `intruder-utility`: each a registry of methods on `intruder-table` alone, none able to
//!   see the ground truth;
//! - `intruder-data`: reading and writing files, the truth set apart (`Dataset::truth`);
//! - `intruder-eval`: the ground truth (`Labelled`) and the evaluator, the only crate that
//!   scores an attack;
//! - `intruder-questions`: the three questions (singling out, linkability, inference) with a
//!   control set and a baseline, which need no ground truth;
//! - this crate: one call per task ([`attack::attack`], [`mask::mask`], [`utility::utility`],
//!   [`questions::ask`], [`risk::measure_file`], which also picks how a file is read);
//! - the surfaces: `intruder-cli` and `intruder-python` (the experiment runner still runs its
//!   own loop over the grid).
//!
//! Messages name the caller's own arguments: a [`Surface`] says how the command line
//! (`--truth`) or Python (`truth=`) spells them.
//!
//! # Example: an exact-key attack scored against the truth
//!
//! ```
//! use intruder::Surface;
//! use intruder::attack::{AttackRequest, Placement, TruthNames, attack, configure};
//! use intruder_data::{ReadOptions, Role, Timings, read_csv_from};
//! use intruder_eval::Labelled;
//!
//! // The intruder knows area and sex of four people; the release holds them and one more.
//! let read = |csv: &str| {
//!     let opts = ReadOptions::default().with_role(&["pid"], Role::Truth);
//!     Labelled::from_dataset(read_csv_from(csv.as_bytes(), "t.csv".as_ref(), &opts).unwrap())
//! };
//! let intruder = read("pid,area,sex\np1,1,m\np2,1,f\np3,1,f\np4,2,m\n");
//! let released = read("pid,area,sex\np4,2,m\np3,1,f\np5,2,f\np1,1,m\np2,1,f\n");
//! let params = toml::toml! { method = "exact"
//! keys = ["area", "sex"] };
//! let request = AttackRequest {
//!     configured: configure(&params, "example")?,
//!     params,
//!     truth: TruthNames { truth: Some("pid".into()), ..TruthNames::default() },
//!     seed: 1,
//!     placement: Placement::Local,
//!     surface: Surface::Cli,
//!     surface_name: "example",
//!     intruder_label: "intruder".into(),
//! };
//! let run = attack(request, &intruder, &released, &mut Timings::new())?;
//! // p1 and p4 are unique on (area, sex): two sure re-identifications.
//! assert_eq!(run.evaluation.unique_correct, 2);
//! # anyhow::Ok(())
//! ```

pub mod attack;
pub mod frontier;
pub mod mask;
pub mod methods;
pub mod questions;
pub mod risk;
pub mod utility;

/// Who calls: how the messages spell the caller's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// The command line: `--truth-intruder`.
    Cli,
    /// The Python package: `truth_intruder=`.
    Python,
    /// The web page of `intruder serve`: the field `truth_intruder`.
    Page,
}

impl Surface {
    /// How this surface spells the argument `name` (a parameter name with underscores).
    pub fn arg(self, name: &str) -> String {
        match self {
            Surface::Cli => format!("--{}", name.replace('_', "-")),
            Surface::Python => format!("{name}="),
            Surface::Page => format!("the field '{name}'"),
        }
    }

    /// How this surface spells a list argument `name` when asking for it.
    pub fn list_arg(self, name: &str) -> String {
        match self {
            Surface::Cli => format!("--{} (or --set {name}=…)", name.replace('_', "-")),
            Surface::Python => format!("{name}=[…]"),
            Surface::Page => format!("the field '{name}' (a list)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Surface;

    #[test]
    fn each_surface_spells_arguments_its_own_way() {
        assert_eq!(Surface::Cli.arg("truth_intruder"), "--truth-intruder");
        assert_eq!(Surface::Python.arg("truth_intruder"), "truth_intruder=");
        assert_eq!(Surface::Cli.list_arg("keys"), "--keys (or --set keys=…)");
        assert_eq!(Surface::Python.list_arg("keys"), "keys=[…]");
        assert_eq!(Surface::Page.arg("keys"), "the field 'keys'");
    }
}
