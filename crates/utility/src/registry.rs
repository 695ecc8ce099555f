//! The utility measures behind one trait and one registry, as the other method families
//! (`ARCHITECTURE.md`): each entry declares its parameters, builds a configured
//! [`UtilityMeasure`] from a TOML table, and the configured measure returns a [`Report`] whose
//! figures are the runner's metrics (`utility.<figure>`). Each measure is one module,
//! `src/methods/<name>.rs`, whose `ENTRY` is one line of [`UTILITY_MEASURES`]; its module docs
//! name the figures and tables it writes.
//!
//! `variables` ([`UTILITY_COMMON`]) is required by every measure but `ci-overlap`, whose columns
//! are the model's (it ignores `variables`). The measures that compare records one to one
//! ([`UtilityMeasure::one_to_one`]) get the original subset to the masked file's kept rows in
//! [`measure_all`]; the others compare the files as wholes.

use std::fmt;

use intruder_data::params::{
    self, Entry, MethodDoc, ParamKind, ParamReader, ParamSpec, Problem, ReadContext,
};
use intruder_data::report::Report;
use intruder_data::{Kind, Table};

use crate::{UtilityError, methods};

/// A configured utility measure: compares a masked table with its original.
pub trait UtilityMeasure: fmt::Debug + Send + Sync {
    /// The registry name.
    fn name(&self) -> &'static str;
    /// Whether the measure compares records one to one (the same records in the same order in
    /// both tables); callers subset the original to the masked file's kept rows first
    /// ([`measure_all`]).
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
    /// scale ([`measure_all_recoded`]).
    fn raw_original(&self) -> bool {
        false
    }
}

/// The parameters every utility measure shares.
pub static UTILITY_COMMON: &[ParamSpec] = &[ParamSpec::new(
    "variables",
    ParamKind::Columns,
    "the variables compared: numeric for moments, correlations (two or more) and il1s; numeric or categorical for pmse; required by every measure but ci-overlap, which takes the model's columns",
)];

/// Every utility measure, in the order of `intruder utility --list` and of its default output:
/// one line per module of `src/methods/`.
pub static UTILITY_MEASURES: &[Entry<dyn UtilityMeasure>] = &[
    methods::moments::ENTRY,
    methods::correlations::ENTRY,
    methods::il1s::ENTRY,
    methods::pmse::ENTRY,
    methods::information_loss::ENTRY,
    methods::ci_overlap::ENTRY,
];

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

/// The measures that apply when none is named (`intruder utility` without `--measure`):
/// `moments` when every variable is numeric, `correlations` when there are two or more and all
/// are numeric, `il1s` when moreover both tables hold the same number of records (after
/// subsetting the original to the kept rows), `pmse` always, `ci-overlap` with a model.
pub fn default_measures(
    original: &Table,
    variables: &[String],
    same_records: bool,
    has_model: bool,
) -> Vec<String> {
    let numeric = !variables.is_empty()
        && variables.iter().all(|v| {
            original
                .column(v)
                .is_ok_and(|c| matches!(c.kind(), Kind::Integer | Kind::Float))
        });
    let mut out = Vec::new();
    if numeric {
        out.push("moments");
        if variables.len() >= 2 {
            out.push("correlations");
        }
        if same_records {
            out.push("il1s");
        }
    }
    if !variables.is_empty() {
        out.push("pmse");
    }
    if has_model {
        out.push("ci-overlap");
    }
    out.into_iter().map(str::to_string).collect()
}

/// Why [`default_measures`] leaves measures out, one sentence each naming the measures and the
/// variables that keep them out (a categorical variable, records removed): what the command
/// line prints as a note and Python raises as a warning, so that no measure disappears without
/// a word.
pub fn left_out_measures(
    original: &Table,
    variables: &[String],
    same_records: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    let not_numeric: Vec<String> = variables
        .iter()
        .filter_map(|v| {
            let c = original.column(v).ok()?;
            (!c.kind().is_numeric()).then(|| {
                let example = intruder_data::params::first_not_finite(c)
                    .map(|(i, t)| format!(", row {} holds '{t}'", i + 1))
                    .unwrap_or_default();
                format!("'{v}' is {}{example}", c.kind())
            })
        })
        .collect();
    if !variables.is_empty() && !not_numeric.is_empty() {
        out.push(format!(
            "moments, correlations and il1s are left out: they need numeric variables, and {} (a decimal comma? give --decimal , ; a code? compare it with pmse)",
            not_numeric.join("; ")
        ));
    } else if !variables.is_empty() && !same_records {
        out.push(
            "il1s is left out: the files hold different records (give the change log, --log, to compare each masked record with its original)"
                .to_string(),
        );
    }
    out
}

/// Runs `measures` on the two tables; measures that compare records one to one get the
/// original subset to `kept_rows` (each masked record's 0-based row in the original) when given.
/// The first error is returned, naming its measure ([`UtilityError::Measure`]).
pub fn measure_all(
    measures: &[Box<dyn UtilityMeasure>],
    original: &Table,
    masked: &Table,
    kept_rows: Option<&[usize]>,
) -> Result<Vec<Report>, UtilityError> {
    measure_all_recoded(measures, original, None, masked, kept_rows)
}

/// [`measure_all`] with the original also as the release's public recodings map it
/// (`recoded`, the same rows; `intruder_defence::Pipeline::intruder_view`): every measure but
/// those that read the original as it was ([`UtilityMeasure::raw_original`]) compares on that
/// released scale, so a recoded category is not a changed one; information loss sees the
/// recoding as generalisation.
pub fn measure_all_recoded(
    measures: &[Box<dyn UtilityMeasure>],
    original: &Table,
    recoded: Option<&Table>,
    masked: &Table,
    kept_rows: Option<&[usize]>,
) -> Result<Vec<Report>, UtilityError> {
    measure_each(measures, original, recoded, masked, kept_rows)
        .into_iter()
        .collect()
}

/// [`measure_all_recoded`], one outcome per measure: a measure that fails (a column of the
/// wrong kind after masking, a model that cannot be fitted) leaves the others' reports (the
/// experiment runner records the failure with its setting and keeps the rest). Each error names
/// its measure ([`UtilityError::Measure`]).
pub fn measure_each(
    measures: &[Box<dyn UtilityMeasure>],
    original: &Table,
    recoded: Option<&Table>,
    masked: &Table,
    kept_rows: Option<&[usize]>,
) -> Vec<Result<Report, UtilityError>> {
    let mut out = Vec::with_capacity(measures.len());
    for m in measures {
        let base = if m.raw_original() {
            original
        } else {
            recoded.unwrap_or(original)
        };
        out.push(
            m.measure_rows(base, masked, kept_rows)
                .map_err(|e| match e {
                    e @ UtilityError::Measure { .. } => e,
                    e => UtilityError::Measure {
                        measure: m.name().to_string(),
                        source: Box::new(e),
                    },
                }),
        );
    }
    out
}

/// Several reports as one (the command line's output): the figures, tables and details of each
/// in turn under one title.
pub fn merge_reports(title: impl Into<String>, reports: Vec<Report>) -> Report {
    let mut out = Report::new(title);
    for r in reports {
        out.figures.extend(r.figures);
        out.tables.extend(r.tables);
        out.details.extend(r.details);
        out.notes.extend(r.notes);
    }
    out
}
