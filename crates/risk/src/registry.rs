//! The risk measures as a registry (docs/ARCHITECTURE.md): one [`RiskMeasure`] trait, the static
//! [`RISK_MEASURES`] table the command line, the experiment runner and the docs read, the
//! parameters every measure shares ([`RISK_COMMON`]) and [`configure`], which turns one table of
//! raw parameters into a configured measure or every problem at once. Each measure is one module
//! under `src/methods/` exporting its `ENTRY`; [`RISK_MEASURES`] lists those entries.
//!
//! ```
//! use intruder_data::params::ReadContext;
//! use intruder_data::{read_csv_from, ReadOptions};
//! use intruder_risk::configure;
//! let csv = "age,sex,w\n40,M,10\n36,F,20\n40,M,5\n";
//! let ds = read_csv_from(csv.as_bytes(), "s.csv".as_ref(), &ReadOptions::default()).unwrap();
//! let table: toml::Table = "measure = \"individual\"\nkeys = [\"age\", \"sex\"]\nweight = \"w\""
//!     .parse()
//!     .unwrap();
//! let m = configure(&table, "risk[1]", ReadContext::default(), &[]).unwrap().method;
//! let out = m.assess(&ds.table, false).unwrap();
//! assert_eq!(out.report.figure("sample_uniques").unwrap().as_f64(), Some(1.0));
//!
//! let bad: toml::Table = "measure = \"suda2\"\nkeys = [\"age\"]\nmax_msu_size = 0\ndis_fracton = 0.1"
//!     .parse()
//!     .unwrap();
//! let problems = configure(&bad, "risk[2]", ReadContext::default(), &[]).unwrap_err();
//! assert_eq!(problems[0].to_string(), "risk[2].max_msu_size: expected a value ≥ 1, found 0");
//! assert!(problems[1].to_string().contains("did you mean 'dis_fraction'?"));
//! ```

use std::fmt;

use intruder_table::params::{
    Built, ColumnSet, Entry, MethodDoc, ParamKind, ParamReader, ParamSpec, Problem, ReadContext,
    fill_from_roles, find,
};
use intruder_table::report::{Records, Report};
use intruder_table::{Role, Table, Timings};

use crate::assess::{Assessment, RiskParams};
use crate::error::RiskError;
use crate::keys::MissingPolicy;
use crate::methods::shared::outcome_of;
use intruder_table::keys::{CodeSource, PartedCodes};

// Each measure's adapter lives in its module under `methods/`; it is named here, where it has
// always been public.
pub use crate::methods::frequency::Frequency;
pub use crate::methods::household::Household;
pub use crate::methods::individual::Individual;
pub use crate::methods::l_diversity::LDiversity;
pub use crate::methods::population::Population;
pub use crate::methods::suda2::Suda2Measure;
pub use crate::methods::t_closeness::TClosenessMeasure;

/// A configured risk measure: checked parameters, ready to run on any table.
pub trait RiskMeasure: Send + Sync + fmt::Debug {
    /// Its registry name.
    fn name(&self) -> &'static str;
    /// The key variables it counts on.
    fn keys(&self) -> &[String];
    /// The missing-value policy.
    fn policy(&self) -> MissingPolicy;
    /// The figure a summary shows first.
    fn headline(&self) -> &'static str {
        "sample_uniques"
    }
    /// Measures `table`: the report, and the per-record figures when `per_record` (otherwise
    /// [`RiskOutcome::records`] is empty, and what only they need is not computed).
    fn assess(&self, table: &Table, per_record: bool) -> Result<RiskOutcome, RiskError>;
    /// [`RiskMeasure::assess`], adding the time of its phases to `timings`
    /// ([`Timings::ENCODE`] for coding the keys, [`Timings::COUNT`] for the rest; a measure that
    /// does not tell its phases apart records all of it as counting).
    fn assess_timed(
        &self,
        table: &Table,
        per_record: bool,
        timings: &mut Timings,
    ) -> Result<RiskOutcome, RiskError> {
        timings.time(Timings::COUNT, || self.assess(table, per_record))
    }
    /// Whether [`RiskMeasure::assess_codes`] can measure without per-record figures: the
    /// measure and its parameters need nothing but the key codes (no weight, group or
    /// sensitive column, no wildcard matching). A caller that holds the keys in another form
    /// (Arrow arrays) then makes no table.
    fn codes_suffice(&self) -> bool {
        false
    }
    /// The report (no per-record figures) from one [`CodeSource`] per key of
    /// [`RiskMeasure::keys`], in that order, for the file named `file` in messages: the same
    /// report as [`RiskMeasure::assess`] on a table of those codes. `None` when the measure
    /// needs more than the codes ([`RiskMeasure::codes_suffice`]) or the key space exceeds 64
    /// bits; the caller then reads the table and calls [`RiskMeasure::assess`].
    fn assess_codes(
        &self,
        keys: &[&dyn CodeSource],
        file: &str,
    ) -> Option<Result<RiskOutcome, RiskError>> {
        let _ = (keys, file);
        None
    }
    /// Whether [`RiskMeasure::assess_parts`] can measure without per-record figures: the
    /// measure needs the key codes only ([`RiskMeasure::codes_suffice`]), or all of them at
    /// once and at most a weight column (wildcard matching, weighted individual risk; the
    /// weights only when the reader made that column on the way, [`PartedCodes::column`]).
    fn parts_suffice(&self) -> bool {
        false
    }
    /// The report (no per-record figures) from keys read a part of the file at a time
    /// ([`PartedCodes`], a Parquet file's row groups, a CSV file's chunks), adding the time of
    /// decoding and coding the parts to [`Timings::READ`] and the rest to [`Timings::COUNT`]:
    /// the same report as [`RiskMeasure::assess`] on the table. `None` when the measure needs
    /// more than the key codes ([`RiskMeasure::parts_suffice`]), as for `assess_codes`, and
    /// when a part held values beyond the cardinalities its file announced.
    fn assess_parts(
        &self,
        keys: &dyn PartedCodes,
        file: &str,
        timings: &mut Timings,
    ) -> Option<Result<RiskOutcome, RiskError>> {
        let _ = (keys, file, timings);
        None
    }
    /// The parameters of a measure whose every figure comes from class or n_match counts
    /// (frequency, individual), for an engine that counts elsewhere ([`crate::external`]);
    /// `None` for the others.
    fn counted(&self) -> Option<&RiskParams> {
        None
    }
    /// This measure's outcome of an assessment made from counts ([`RiskMeasure::counted`];
    /// no per-record figures).
    fn outcome_of_counts(&self, a: Assessment) -> RiskOutcome {
        outcome_of(a.summary.report(), a, false)
    }
}

/// What a risk measure returns.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RiskOutcome {
    /// File-level figures (with unit and meaning) and tables.
    pub report: Report,
    /// Per-record figures, in record order (empty unless asked for).
    pub records: Records,
    /// Warnings about the inputs (e.g. weights below 1, a weight total far from the population
    /// size given): the command line prints them as `warning:` lines.
    pub warnings: Vec<String>,
}

/// The parameters every risk measure takes.
pub static RISK_COMMON: &[ParamSpec] = &[
    ParamSpec::new(
        "keys",
        ParamKind::Columns,
        "key variables (quasi-identifiers) the classes are formed on",
    )
    .required()
    .from_role(Role::Key),
    ParamSpec::new(
        "missing",
        ParamKind::Choice(&["listwise", "as-value", "wildcard"]),
        "missing key values: listwise drops the record, as-value makes missing a category, wildcard lets it match anything (Mulder's n_match, sdcMicro's freqCalc)",
    )
    .default_value("listwise"),
    ParamSpec::new(
        "set_match",
        ParamKind::Choice(&["overlap", "first", "first-both"]),
        "set-valued cells: overlap (sets match when they intersect; classes use the whole set), first (the query's first candidate must be among the other's) or first-both (the first candidate is the value on both sides)",
    )
    .default_value("overlap"),
];

// Every measure's line is in `methods/mod.rs`, beside the modules.
pub use crate::methods::RISK_MEASURES;

/// The measure used when none is named.
pub const DEFAULT_MEASURE: &str = "frequency";

/// Every measure's documentation (for `--list`, the README and Python).
pub fn docs() -> Vec<MethodDoc> {
    RISK_MEASURES.iter().map(|e| e.doc(RISK_COMMON)).collect()
}

/// The measure a table names (`measure`, or `method`), [`DEFAULT_MEASURE`] when neither.
fn named(table: &toml::Table, prefix: &str) -> Result<&'static Entry<dyn RiskMeasure>, Problem> {
    let path = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    let given = match (table.get("measure"), table.get("method")) {
        (Some(_), Some(_)) => {
            return Err(Problem {
                path: path("method"),
                message: "given twice: as 'measure' and as 'method'; keep 'measure'".into(),
            });
        }
        (Some(v), None) => Some(("measure", v)),
        (None, Some(v)) => Some(("method", v)),
        (None, None) => None,
    };
    let (key, name) = match given {
        None => ("measure", DEFAULT_MEASURE),
        Some((key, toml::Value::String(s))) => (key, s.as_str()),
        Some((key, other)) => {
            return Err(Problem {
                path: path(key),
                message: format!(
                    "expected the name of a risk measure, found {}",
                    intruder_table::params::describe(other)
                ),
            });
        }
    };
    find(RISK_MEASURES, "risk measure", name).map_err(|message| Problem {
        path: path(key),
        message,
    })
}

/// The measure `table` names, configured against `columns` known before any value is read (the
/// columns of a Parquet file's or an Arrow table's schema, or of a CSV file's reader chunks;
/// roles filled in as [`fill_roles`] does), when it needs nothing but the key codes, a part of
/// the file at a time or all at once ([`RiskMeasure::parts_suffice`]). `None` otherwise, and
/// when configuring fails: the caller then reads the table, and configuring against it reports
/// the problems.
pub fn configure_for_parts(
    table: &toml::Table,
    columns: &ColumnSet,
) -> Option<Built<dyn RiskMeasure>> {
    let mut table = table.clone();
    fill_roles(&mut table, columns);
    let ctx = ReadContext {
        base_dir: None,
        columns: Some(columns),
    };
    let built = configure(&table, "", ctx, &[]).ok()?;
    built.method.parts_suffice().then_some(built)
}

/// Fills the parameters of the measure `table` names that are absent and declare a schema role
/// (`keys`, `weight`, `sensitive`, `group`) with the columns of that role; returns the keys
/// filled. Does nothing when the measure is unknown ([`configure`] reports it).
pub fn fill_roles(table: &mut toml::Table, columns: &ColumnSet) -> Vec<String> {
    match named(table, "") {
        Ok(e) => fill_from_roles(table, &[RISK_COMMON, e.params], columns),
        Err(_) => Vec::new(),
    }
}

/// Builds the measure a table of raw parameters names (`measure`, or `method`; default
/// `frequency`) from the common and the measure's own parameters, read through one
/// [`ParamReader`]: every problem comes back at once, each with its path under `prefix`
/// (`risk[2].max_msu_size: …`), an unknown key with a did-you-mean. `ignore` lists keys the
/// caller reads itself (the runner's `name` and `file`). Column names are checked when `ctx`
/// knows the columns.
pub fn configure(
    table: &toml::Table,
    prefix: &str,
    ctx: ReadContext<'_>,
    ignore: &[&str],
) -> Result<Built<dyn RiskMeasure>, Vec<Problem>> {
    let entry = named(table, prefix).map_err(|p| vec![p])?;
    let mut r = ParamReader::new(table, prefix, &[RISK_COMMON, entry.params], ctx)
        .ignore(&["measure"])
        .ignore(ignore);
    let built = (entry.build)(&mut r);
    let outcome = r.finish();
    match built {
        Some(m) if outcome.problems.is_empty() => Ok(Built {
            method: m,
            warnings: outcome.warnings,
        }),
        _ if outcome.problems.is_empty() => Err(vec![Problem {
            path: prefix.to_string(),
            message: format!("risk measure '{}' could not be configured", entry.name),
        }]),
        _ => Err(outcome.problems),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::methods::shared::default_of;

    /// The defaults the docs show are the library's defaults.
    #[test]
    fn documented_defaults_are_the_library_defaults() {
        let f = RiskParams::new(vec![]);
        assert_eq!(default_of(RISK_COMMON, "missing"), f.missing.as_str());
        assert_eq!(default_of(RISK_COMMON, "set_match"), f.set_match.as_str());
    }

    #[test]
    fn names_are_unique_and_parameters_do_not_shadow_the_common_ones() {
        for (i, e) in RISK_MEASURES.iter().enumerate() {
            assert!(RISK_MEASURES[..i].iter().all(|o| o.name != e.name));
            for p in e.params {
                assert!(
                    RISK_COMMON.iter().all(|c| c.name != p.name),
                    "{}.{}",
                    e.name,
                    p.name
                );
            }
        }
    }
}
