//! Which utility measures apply to two tables, and running configured measures on them: the
//! measures that compare records one to one ([`UtilityMeasure::one_to_one`]) get the original
//! subset to the masked file's kept rows; the others compare the files as wholes.

use intruder_table::report::Report;
use intruder_table::{Kind, Table};

use crate::{UtilityError, UtilityMeasure};

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
                let example = intruder_table::params::first_not_finite(c)
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
