//! The utility measures behind one trait and one registry, as the other method families
//! (`ARCHITECTURE.md`): each entry declares its parameters, builds a configured
//! [`UtilityMeasure`] from a TOML table, and the configured measure returns a
//! [`Report`] whose figures are the runner's metrics (`utility.<figure>`).
//!
//! | measure | figures | tables |
//! |---|---|---|
//! | `moments` | `mean_rel_diff_max`, `var_rel_diff_max` | `moments` (per variable) |
//! | `correlations` | `cor_max_abs_diff`, `cor_mean_abs_diff` | `correlations` (per pair) |
//! | `il1s` | `il1s`, `il1s_per_cell` | `il1s_per_variable` |
//! | `pmse` | `pmse`, `pmse_ratio` | `pmse_model` |
//! | `ci-overlap` | `ci_overlap_mean`, `ci_overlap_min` | `ci_overlap` (per coefficient, both intervals) |
//!
//! `variables` ([`UTILITY_COMMON`]) is required by every measure but `ci-overlap`, whose columns
//! are the model's (it ignores `variables`). Only `il1s` compares records one to one
//! ([`UtilityMeasure::one_to_one`]): [`measure_all`] gives it the original subset to the masked
//! file's kept rows; the other measures compare the files as wholes.

use std::fmt;

use intruder_data::params::{
    self, ColumnNeed, Entry, MethodDoc, ParamKind, ParamReader, ParamSpec, Problem, ReadContext,
};
use intruder_data::report::{Figure, Report, ReportTable, Unit};
use intruder_data::{Kind, Table};
use serde_json::{Value, json};

use crate::{Family, Formula, UtilityError, ci_overlap, correlations, il1s, moments, pmse};

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

static CI_PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "model",
        ParamKind::String,
        "regression model \"y ~ x1 + x2\" fitted on both files (an intercept is included; categorical predictors enter as indicators of every level but the first)",
    )
    .required(),
    ParamSpec::new(
        "family",
        ParamKind::Choice(&["linear", "logistic"]),
        "linear (OLS, t intervals) or logistic (binary response, Wald intervals)",
    )
    .default_value("linear"),
];

/// Every utility measure, in the order of `intruder utility --list` and of its default output.
pub static UTILITY_MEASURES: &[Entry<dyn UtilityMeasure>] = &[
    Entry {
        name: "moments",
        summary: "differences in means and variances (n − 1) per variable",
        reference: "Hundepool et al. (2012) §3.6",
        params: &[],
        build: build_moments,
    },
    Entry {
        name: "correlations",
        summary: "differences in Pearson correlations (pairwise complete)",
        reference: "Hundepool et al. (2012) §3.6",
        params: &[],
        build: build_correlations,
    },
    Entry {
        name: "il1s",
        summary: "IL1s: Σ|x − x'| / (√2·S_j) over the cells, record by record (a sum, not a mean)",
        reference: "Mateo-Sanz, Sebé & Domingo-Ferrer (2004); sdcMicro dUtility(method = \"IL1\")",
        params: &[],
        build: build_il1s,
    },
    Entry {
        name: "pmse",
        summary: "propensity-score mean squared error of a logistic model telling the files apart",
        reference: "Woo, Reiter, Oganian & Karr (2009); Snoke et al. (2018) eq. 2",
        params: &[],
        build: build_pmse,
    },
    Entry {
        name: "information-loss",
        summary: "generalisation and suppression loss on the key cells: NCP, non-uniform entropy, discernibility, AECS, and a cell loss counting removed records",
        reference: "Xu et al. (2006) NCP; Gionis & Tassa (2009); Bayardo & Agrawal (2005); LeFevre et al. (2006)",
        params: &[],
        build: build_information_loss,
    },
    Entry {
        name: "ci-overlap",
        summary: "overlap of a regression's 95% coefficient intervals fitted on both files",
        reference: "Karr, Kohnen, Oganian, Reiter & Sanil (2006) §3",
        params: CI_PARAMS,
        build: build_ci_overlap,
    },
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

/// A number as JSON: `null` when not finite.
fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

fn opt(x: Option<f64>) -> Value {
    x.map_or(Value::Null, num)
}

/// The variables, required and non-empty; with known columns, numeric ones when `numeric`.
fn read_variables(r: &mut ParamReader, measure: &str, numeric: bool) -> Option<Vec<String>> {
    let v: Vec<String> = r.require("variables")?;
    r.check(
        "variables",
        !v.is_empty(),
        "must name at least one variable",
    );
    if numeric && let Some(cols) = r.context().columns {
        for name in &v {
            if let Some(k) = cols.kind(name)
                && !ColumnNeed::Numeric.accepts(k)
            {
                let example = cols
                    .first_not_number
                    .iter()
                    .find(|(n, _, _)| n == name)
                    .map(|(_, row, text)| {
                        format!(" (row {row} holds '{text}', which is not a number)")
                    })
                    .unwrap_or_default();
                r.problem(
                    "variables",
                    format!(
                        "{}: column '{name}' is {k}{example}; {measure} needs numeric variables",
                        cols.file
                    ),
                );
            }
        }
    }
    Some(v)
}

/// Means and variances per variable.
#[derive(Debug, Clone, PartialEq)]
pub struct MomentsMeasure {
    /// Numeric variables.
    pub variables: Vec<String>,
}

fn build_moments(r: &mut ParamReader) -> Option<Box<dyn UtilityMeasure>> {
    let variables = read_variables(r, "moments", true);
    if !r.ok() {
        return None;
    }
    Some(Box::new(MomentsMeasure {
        variables: variables?,
    }))
}

impl UtilityMeasure for MomentsMeasure {
    fn name(&self) -> &'static str {
        "moments"
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        let d = moments(original, masked, &self.variables)?;
        let max_abs = |f: fn(&crate::VariableDiff) -> Option<f64>| {
            d.iter()
                .filter_map(f)
                .filter(|x| x.is_finite())
                .map(f64::abs)
                .fold(None, |a: Option<f64>, x| Some(a.map_or(x, |a| a.max(x))))
        };
        let mut r = Report::new("moments: means and variances (n − 1) per variable");
        r.push(Figure::new(
            "mean_rel_diff_max",
            opt(max_abs(|v| v.mean_rel_diff)),
            Unit::Score,
            "largest |relative difference| of a variable's mean: |masked − original| / |original|",
        ));
        r.push(Figure::new(
            "var_rel_diff_max",
            opt(max_abs(|v| v.var_rel_diff)),
            Unit::Score,
            "largest |relative difference| of a variable's variance (n − 1)",
        ));
        r.tables.push(ReportTable {
            name: "moments".into(),
            title: "means and variances (n − 1) per variable; relative differences to the original"
                .into(),
            header: [
                "variable",
                "mean_original",
                "mean_masked",
                "mean_diff",
                "mean_rel_diff",
                "var_original",
                "var_masked",
                "var_diff",
                "var_rel_diff",
            ]
            .map(String::from)
            .to_vec(),
            rows: d
                .iter()
                .map(|v| {
                    vec![
                        json!(v.variable),
                        num(v.mean_original),
                        num(v.mean_masked),
                        num(v.mean_diff),
                        opt(v.mean_rel_diff),
                        num(v.var_original),
                        num(v.var_masked),
                        num(v.var_diff),
                        opt(v.var_rel_diff),
                    ]
                })
                .collect(),
        });
        Ok(r)
    }
}

/// Differences in Pearson correlations.
#[derive(Debug, Clone, PartialEq)]
pub struct CorrelationsMeasure {
    /// Numeric variables, at least two.
    pub variables: Vec<String>,
}

fn build_correlations(r: &mut ParamReader) -> Option<Box<dyn UtilityMeasure>> {
    let variables = read_variables(r, "correlations", true);
    if let Some(v) = &variables {
        r.check(
            "variables",
            v.len() != 1,
            "correlations need at least two variables",
        );
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(CorrelationsMeasure {
        variables: variables?,
    }))
}

impl UtilityMeasure for CorrelationsMeasure {
    fn name(&self) -> &'static str {
        "correlations"
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        let c = correlations(original, masked, &self.variables)?;
        let mut r = Report::new("correlations: Pearson, pairwise complete");
        r.push(Figure::new(
            "cor_max_abs_diff",
            num(c.max_abs_diff),
            Unit::Score,
            "largest |difference| of a correlation over the pairs of variables",
        ));
        r.push(Figure::new(
            "cor_mean_abs_diff",
            num(c.mean_abs_diff),
            Unit::Score,
            "mean |difference| of the correlations over the pairs of variables",
        ));
        let mut rows = Vec::new();
        for i in 0..c.variables.len() {
            for j in i + 1..c.variables.len() {
                rows.push(vec![
                    json!(format!("{}:{}", c.variables[i], c.variables[j])),
                    num(c.original[i][j]),
                    num(c.masked[i][j]),
                    num((c.masked[i][j] - c.original[i][j]).abs()),
                ]);
            }
        }
        r.tables.push(ReportTable {
            name: "correlations".into(),
            title: "Pearson correlations per pair of variables".into(),
            header: ["pair", "original", "masked", "abs_diff"]
                .map(String::from)
                .to_vec(),
            rows,
        });
        Ok(r)
    }
}

/// IL1s, record by record.
#[derive(Debug, Clone, PartialEq)]
pub struct Il1sMeasure {
    /// Numeric variables.
    pub variables: Vec<String>,
}

fn build_il1s(r: &mut ParamReader) -> Option<Box<dyn UtilityMeasure>> {
    let variables = read_variables(r, "il1s", true);
    if !r.ok() {
        return None;
    }
    Some(Box::new(Il1sMeasure {
        variables: variables?,
    }))
}

impl UtilityMeasure for Il1sMeasure {
    fn name(&self) -> &'static str {
        "il1s"
    }

    fn one_to_one(&self) -> bool {
        true
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        let il = il1s(original, masked, &self.variables)?;
        let mut r = Report::new("il1s: record-by-record information loss (sdcMicro dUtility IL1)");
        r.push(Figure::new(
            "il1s",
            num(il.total),
            Unit::Score,
            "IL1s: Σ |x − x'| / (√2·S_j) over the compared cells (a sum, as sdcMicro's dUtility)",
        ));
        r.push(Figure::new(
            "il1s_per_cell",
            num(il.per_cell),
            Unit::Score,
            "IL1s divided by the number of compared cells",
        ));
        r.tables.push(ReportTable {
            name: "il1s_per_variable".into(),
            title: format!(
                "IL1s per variable ({} cells observed in both files)",
                il.cells
            ),
            header: ["variable", "il1s", "cells"].map(String::from).to_vec(),
            rows: il
                .per_variable
                .iter()
                .zip(&il.per_variable_cells)
                .map(|((v, x), c)| vec![json!(v), num(*x), json!(c)])
                .collect(),
        });
        Ok(r)
    }
}

/// The propensity-score mean squared error.
#[derive(Debug, Clone, PartialEq)]
pub struct PmseMeasure {
    /// Numeric or categorical variables of the propensity model.
    pub variables: Vec<String>,
}

fn build_pmse(r: &mut ParamReader) -> Option<Box<dyn UtilityMeasure>> {
    let variables = read_variables(r, "pmse", false);
    if !r.ok() {
        return None;
    }
    Some(Box::new(PmseMeasure {
        variables: variables?,
    }))
}

impl UtilityMeasure for PmseMeasure {
    fn name(&self) -> &'static str {
        "pmse"
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        let p = pmse(original, masked, &self.variables)?;
        let mut r = Report::new("pmse: propensity-score mean squared error");
        r.push(Figure::new(
            "pmse",
            num(p.pmse),
            Unit::Score,
            "pMSE: mean of (p̂ − c)² over the stacked records; 0 when a model cannot tell the files apart",
        ));
        r.push(Figure::new(
            "pmse_ratio",
            num(p.ratio),
            Unit::Score,
            "pMSE over its null expectation (k − 1)(1 − c)²c/N; about 1 when the masking keeps the modelled distribution",
        ));
        r.tables.push(ReportTable {
            name: "pmse_model".into(),
            title: "the propensity model (logistic, main effects, records with a missing variable dropped)"
                .into(),
            header: [
                "model",
                "parameters",
                "records",
                "dropped",
                "c",
                "null_expectation",
            ]
            .map(String::from)
            .to_vec(),
            rows: vec![vec![
                json!("propensity"),
                json!(p.parameters),
                json!(p.n),
                json!(p.dropped),
                num(p.c),
                num(p.null_expectation),
            ]],
        });
        Ok(r)
    }
}

/// Information loss of generalisation, suppression and removal ([`crate::information_loss`]).
#[derive(Debug, Clone, PartialEq)]
pub struct InformationLossMeasure {
    /// The key variables.
    pub variables: Vec<String>,
}

fn build_information_loss(r: &mut ParamReader) -> Option<Box<dyn UtilityMeasure>> {
    let variables = read_variables(r, "information-loss", false);
    if !r.ok() {
        return None;
    }
    Some(Box::new(InformationLossMeasure {
        variables: variables?,
    }))
}

impl UtilityMeasure for InformationLossMeasure {
    fn name(&self) -> &'static str {
        "information-loss"
    }

    fn one_to_one(&self) -> bool {
        true
    }

    fn raw_original(&self) -> bool {
        true
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        self.measure_rows(original, masked, None)
    }

    fn measure_rows(
        &self,
        original: &Table,
        masked: &Table,
        kept_rows: Option<&[usize]>,
    ) -> Result<Report, UtilityError> {
        let l = crate::information_loss(original, masked, kept_rows, &self.variables)?;
        let mut r = Report::new("information-loss: generalisation, suppression and removal");
        let share = |r: &mut Report, name: &str, v: f64, meaning: &str| {
            r.push(Figure::new(name, num(v), Unit::Proportion, meaning));
        };
        share(
            &mut r,
            "cell_loss",
            l.cell_loss,
            "mean NCP over the key cells of every original record, a removed record's cells counting 1: 0 for an unchanged or relabelled cell, (|G| − 1)/(|D| − 1) or the interval's share of the range for a recoded one, 1 for a suppressed or perturbed one",
        );
        share(
            &mut r,
            "ncp",
            l.ncp,
            "mean normalised certainty penalty over the released records' key cells (Xu et al. 2006)",
        );
        r.push(Figure::new(
            "entropy_bits",
            num(l.entropy_bits),
            Unit::Score,
            "mean non-uniform entropy per released key cell, in bits: −log2 f(x)/f(G(y)) (Gionis & Tassa 2009)",
        ));
        r.push(Figure::new(
            "discernibility",
            num(l.discernibility),
            Unit::Score,
            "Σ|E|²/n² over the released records' classes on the variables, blank as a value (Bayardo & Agrawal 2005)",
        ));
        r.push(Figure::new(
            "discernibility_original",
            num(l.discernibility_original),
            Unit::Score,
            "the same over the released records' original values",
        ));
        r.push(Figure::new(
            "aecs",
            num(l.aecs),
            Unit::Score,
            "average equivalence class size: released records / classes (LeFevre et al. 2006)",
        ));
        r.push(Figure::new(
            "aecs_original",
            num(l.aecs_original),
            Unit::Score,
            "the same for the released records' original values",
        ));
        r.tables.push(ReportTable {
            name: "columns".into(),
            title: "per key variable (cells of released records observed in the original)".into(),
            header: [
                "variable",
                "kind",
                "cells",
                "generalised",
                "suppressed",
                "perturbed",
                "ncp",
                "entropy_bits",
            ]
            .map(String::from)
            .to_vec(),
            rows: l
                .columns
                .iter()
                .map(|c| {
                    vec![
                        json!(c.column),
                        json!(c.kind),
                        json!(c.cells),
                        json!(c.generalised),
                        json!(c.suppressed),
                        json!(c.perturbed),
                        num(c.ncp),
                        num(c.entropy_bits),
                    ]
                })
                .collect(),
        });
        Ok(r)
    }
}

/// The overlap of a regression's confidence intervals fitted on both files.
#[derive(Debug, Clone, PartialEq)]
pub struct CiOverlapMeasure {
    /// The model.
    pub formula: Formula,
    /// Its family.
    pub family: Family,
}

fn build_ci_overlap(r: &mut ParamReader) -> Option<Box<dyn UtilityMeasure>> {
    let model: Option<String> = r.require("model");
    let family: Family = r.choice("family").unwrap_or(Family::Linear);
    let formula = match model.as_deref().map(str::parse::<Formula>) {
        Some(Ok(f)) => Some(f),
        Some(Err(e)) => {
            r.problem("model", e);
            None
        }
        None => None,
    };
    if let (Some(f), Some(cols)) = (&formula, r.context().columns) {
        for name in std::iter::once(&f.response).chain(&f.predictors) {
            if let Err(e) = cols.check(name, ColumnNeed::Any) {
                r.problem("model", e);
            }
        }
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(CiOverlapMeasure {
        formula: formula?,
        family,
    }))
}

impl UtilityMeasure for CiOverlapMeasure {
    fn name(&self) -> &'static str {
        "ci-overlap"
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        let o = ci_overlap(original, masked, &self.formula, self.family)?;
        let family = match self.family {
            Family::Linear => "linear",
            Family::Logistic => "logistic",
        };
        let model = format!(
            "{} ~ {}",
            self.formula.response,
            self.formula.predictors.join(" + ")
        );
        let mut r = Report::new(format!("ci-overlap: {family} model {model}"));
        let min = o
            .coefficients
            .iter()
            .map(|c| c.overlap)
            .fold(f64::INFINITY, f64::min);
        r.push(Figure::new(
            "ci_overlap_mean",
            num(o.mean_overlap),
            Unit::Proportion,
            "mean overlap of the coefficients' 95% intervals (Karr et al.: 1 = identical, 0 = disjoint)",
        ));
        r.push(Figure::new(
            "ci_overlap_min",
            num(min),
            Unit::Proportion,
            "lowest overlap of a coefficient's 95% intervals",
        ));
        r.tables.push(ReportTable {
            name: "ci_overlap".into(),
            title: format!(
                "{family} model {model}: coefficients, 95% intervals on both files and their overlap (n = {} original, {} masked)",
                o.original.n, o.masked.n
            ),
            header: [
                "coefficient",
                "estimate_original",
                "lower_original",
                "upper_original",
                "estimate_masked",
                "lower_masked",
                "upper_masked",
                "overlap",
                "overlap_raw",
            ]
            .map(String::from)
            .to_vec(),
            rows: o
                .coefficients
                .iter()
                .map(|c| {
                    vec![
                        json!(c.name),
                        num(c.estimate_original),
                        num(c.ci_original.0),
                        num(c.ci_original.1),
                        num(c.estimate_masked),
                        num(c.ci_masked.0),
                        num(c.ci_masked.1),
                        num(c.overlap),
                        num(c.overlap_raw),
                    ]
                })
                .collect(),
        });
        r.details.insert(
            "ci_overlap_model".into(),
            json!({
                "formula": model,
                "family": family,
                "records_original": o.original.n,
                "dropped_original": o.original.dropped,
                "records_masked": o.masked.n,
                "dropped_masked": o.masked.dropped,
            }),
        );
        Ok(r)
    }
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
