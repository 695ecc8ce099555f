//! The utility measures behind one trait and one registry, as the other method families
//! (`docs/ARCHITECTURE.md`): each entry declares its parameters, builds a configured
//! [`UtilityMeasure`] from a TOML table, and the configured measure returns a [`Report`] whose
//! figures are the runner's metrics (`utility.<figure>`). Each measure is one module,
//! `src/methods/<name>.rs`, whose `ENTRY` is one line of [`UTILITY_MEASURES`]; its module docs
//! name the figures and tables it writes.
//!
//! `variables` ([`UTILITY_COMMON`]) is required by every measure but `ci-overlap`, whose columns
//! are the model's (it ignores `variables`). Running the configured measures on two tables is
//! `run.rs` ([`measure_all`](crate::measure_all)).

use std::fmt;

use intruder_table::Table;
use intruder_table::params::{
    self, Entry, MethodDoc, ParamKind, ParamReader, ParamSpec, Problem, ReadContext,
};
use intruder_table::report::Report;

use crate::UtilityError;

/// A configured utility measure: compares a masked table with its original.
pub trait UtilityMeasure: fmt::Debug + Send + Sync {
    /// The registry name.
    fn name(&self) -> &'static str;
    /// Whether the measure compares records one to one (the same records in the same order in
    /// both tables); callers subset the original to the masked file's kept rows first
    /// ([`measure_all`](crate::measure_all)).
    fn one_to_one(&self) -> bool {
        false
    }
    /// Measures what the masking cost.
    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError>;
    /// Measures what the masking cost, knowing for each masked record its row in `original`
    /// (`None`: the same rows in the same order, or the files compared as wholes). The
    /// default: subset the original to those rows for a one-to-one measure, then [`measure`].
    ///
    /// [`measure`]: UtilityMeasure::measure
    fn measure_rows(
        &self,
        original: &Table,
        masked: &Table,
        kept_rows: Option<&[usize]>,
    ) -> Result<Report, UtilityError> {
        match kept_rows {
            Some(rows) if self.one_to_one() => self.measure(&original.take(rows), masked),
            _ => self.measure(original, masked),
        }
    }
    /// Whether the measure reads the original as it was, before the release's public recodings
    /// (information loss sees a recoding as generalisation); the others compare on the released
    /// scale ([`measure_all_recoded`](crate::measure_all_recoded)).
    fn raw_original(&self) -> bool {
        false
    }
}

/// The parameters every utility measure shares.
pub static UTILITY_COMMON: &[ParamSpec] = &[ParamSpec::new(
    "variables",
    ParamKind::Columns,
    "the variables compared: numeric for moments, correlations (two or more) and il1s; numeric or categorical for pmse; required by every measure but ci-overlap, which takes the model's columns",
)
.flag_alias(&["vars"])];

// Every measure's line is in `methods/mod.rs`, beside the modules.
pub use crate::methods::UTILITY_MEASURES;

/// The documentation of every utility measure, with the common parameters.
pub fn docs() -> Vec<MethodDoc> {
    UTILITY_MEASURES
        .iter()
        .map(|e| e.doc(UTILITY_COMMON))
        .collect()
}

/// The registry as markdown: the common parameters, then one row per measure and parameter
/// (the generated section of `crates/utility/README.md`, checked by a test).
pub fn registry_markdown() -> String {
    format!(
        "Common parameters:\n\n{}\n{}",
        params::markdown_common(UTILITY_COMMON),
        params::markdown_table(&docs())
    )
}

/// The entry called `name`; the error suggests a near name and lists every measure.
pub fn find(name: &str) -> Result<&'static Entry<dyn UtilityMeasure>, String> {
    params::find(UTILITY_MEASURES, "utility measure", name)
}

/// Configured measures and the deprecation warnings their parameters raised.
#[derive(Debug)]
pub struct Configured {
    /// The measures, in the order named.
    pub measures: Vec<Box<dyn UtilityMeasure>>,
    /// Warnings (old parameter names), each with its path.
    pub warnings: Vec<Problem>,
}

fn key_path(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// Builds the measures `names` from one table of parameters shared by all of them (an
/// experiment's `[utility]` section, the command line's flags and `--set`): every key must be
/// a parameter of a named measure or a common one; `ignore` lists surface keys (`measures`).
/// Every problem is reported at once, each with its path under `prefix` (`utility.model: …`);
/// a problem several measures share is reported once.
pub fn configure(
    names: &[String],
    table: &toml::Table,
    prefix: &str,
    ctx: ReadContext<'_>,
    ignore: &[&str],
) -> Result<Configured, Vec<Problem>> {
    let mut problems: Vec<Problem> = Vec::new();
    let mut entries = Vec::new();
    for (i, n) in names.iter().enumerate() {
        match find(n) {
            Ok(e)
                if entries
                    .iter()
                    .any(|x: &&Entry<dyn UtilityMeasure>| x.name == e.name) =>
            {
                problems.push(Problem {
                    path: key_path(prefix, "measures"),
                    message: format!("'{n}' is named twice"),
                })
            }
            Ok(e) => entries.push(e),
            Err(m) => problems.push(Problem {
                path: key_path(prefix, "measures"),
                message: if names.len() > 1 {
                    format!("item {}: {m}", i + 1)
                } else {
                    m
                },
            }),
        }
    }
    // Keys of the union of the named measures' parameters.
    let known: Vec<&'static ParamSpec> = UTILITY_COMMON
        .iter()
        .chain(entries.iter().flat_map(|e| e.params.iter()))
        .collect();
    for k in table.keys() {
        if ignore.contains(&k.as_str()) || known.iter().any(|s| s.answers_to(k)) {
            continue;
        }
        let owners: Vec<&str> = UTILITY_MEASURES
            .iter()
            .filter(|e| e.params.iter().any(|s| s.answers_to(k)))
            .map(|e| e.name)
            .collect();
        let message = if owners.is_empty() {
            let names: Vec<&str> = known.iter().map(|s| s.name).collect();
            format!(
                "unknown key{}; the keys of {} are: {}",
                params::did_you_mean(k, names.iter().copied()),
                if entries.is_empty() {
                    "the utility measures".to_string()
                } else {
                    entries
                        .iter()
                        .map(|e| e.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                },
                names.join(", ")
            )
        } else {
            format!(
                "is a parameter of {}, which is not among the measures ({}); add it to the measures or leave '{k}' out",
                owners.join(", "),
                names.join(", ")
            )
        };
        problems.push(Problem {
            path: key_path(prefix, k),
            message,
        });
    }
    let mut measures = Vec::new();
    let mut warnings: Vec<Problem> = Vec::new();
    for e in &entries {
        // Keys the others read are not unknown to this one.
        let others: Vec<&str> = table
            .keys()
            .map(String::as_str)
            .filter(|k| {
                !UTILITY_COMMON
                    .iter()
                    .chain(e.params.iter())
                    .any(|s| s.answers_to(k))
            })
            .collect();
        let mut r =
            ParamReader::new(table, prefix, &[UTILITY_COMMON, e.params], ctx).ignore(&others);
        let built = (e.build)(&mut r);
        let outcome = r.finish();
        for p in outcome.problems {
            if !problems.contains(&p) {
                problems.push(p);
            }
        }
        for w in outcome.warnings {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        if let Some(m) = built {
            measures.push(m);
        }
    }
    if problems.is_empty() && measures.len() == entries.len() {
        Ok(Configured { measures, warnings })
    } else if problems.is_empty() {
        Err(vec![Problem {
            path: prefix.to_string(),
            message: "the utility measures could not be configured".into(),
        }])
    } else {
        Err(problems)
    }
}
