//! What masking cost: the utility measures of an original table against its masked version,
//! with the variables and measures chosen as every surface chooses them, and — given the
//! masking's change log — the records compared one to one and the original read on the
//! released scale (its public recodings applied, so that a recoded category is not a changed
//! one).

use anyhow::{Context, Result, bail};
use intruder_data::params::{FromParam, Problem, ReadContext};
use intruder_data::report::Report;
use intruder_data::{Role, Table, Timings};
use intruder_defence::Pipeline;
use intruder_utility::{
    configure, default_measures, left_out_measures, measure_all_recoded, merge_reports,
};
use serde_json::Value;

use crate::Surface;
use crate::attack::problems;
use crate::mask::columns_of;

/// A change log read by a surface (`intruder mask --log`'s file, or `mask()`'s log), and how
/// the surface names it in messages.
pub struct LogInput {
    /// The log: either shape (its figures under `log`, or flat).
    pub value: Value,
    /// The log's name in messages (its file, or `log`).
    pub label: String,
}

/// What one utility run needs besides the two tables.
pub struct UtilityRequest<'a> {
    /// The measures' parameters (`variables`, `model`, `family`, …).
    pub params: toml::Table,
    /// The measures asked for; empty: every one that applies.
    pub measures: Vec<String>,
    /// The masking's change log, when given.
    pub log: Option<LogInput>,
    /// Who calls (how messages spell its arguments).
    pub surface: Surface,
    /// How the surface names itself in a parameter problem.
    pub surface_name: &'a str,
    /// How the surface names the original table (its file, or `original`).
    pub original_label: String,
}

/// One utility run.
pub struct UtilityRun {
    /// The measures' figures, merged (untitled: the surface titles it).
    pub report: Report,
    /// The measures run.
    pub measures: Vec<String>,
    /// Whether the records were compared one to one through the change log's kept records.
    pub kept: bool,
    /// Deprecated names used and other parameter warnings.
    pub warnings: Vec<Problem>,
    /// The variables taken from the original's roles (key, sensitive) when none were given.
    pub variables_from_roles: Option<Vec<String>>,
    /// The measures left out of the default set, and why.
    pub left_out: Vec<String>,
}

/// The 0-based rows of the original kept in the masked table, from a change log: 1-based
/// record numbers (`"row_numbers": "1-based"`), or 0-based rows in logs written by intruder
/// 0.1.0. `n` is the number of records of the original.
pub fn kept_rows(log: &LogInput, n: usize) -> Result<Vec<usize>> {
    let label = &log.label;
    let figures = log.value.get("log").unwrap_or(&log.value);
    let rows = figures
        .get("kept_rows")
        .and_then(Value::as_array)
        .with_context(|| {
            format!(
                "{label}: no log.kept_rows (expected the change log of intruder mask --log or intruder.mask())"
            )
        })?;
    let first = match figures.get("row_numbers") {
        Some(Value::String(s)) if s == "1-based" => 1,
        None => 0,
        Some(other) => bail!("{label}: log.row_numbers is {other}; expected \"1-based\""),
    };
    rows.iter()
        .enumerate()
        .map(|(i, r)| match r.as_u64() {
            Some(r) if r >= first && ((r - first) as usize) < n => Ok((r - first) as usize),
            _ => bail!(
                "{label}: kept_rows[{}] = {r} is not a record of the original ({} to {})",
                i + 1,
                first,
                n as u64 + first - 1
            ),
        })
        .collect()
}

/// The step of a change log that synthesised the release (`"synthetic"`, written by
/// `intruder mask --log` after a synthesiser), if any.
pub fn synthetic_step(log: &LogInput) -> Option<u64> {
    let figures = log.value.get("log").unwrap_or(&log.value);
    figures.get("synthetic").and_then(Value::as_u64)
}

/// The pipeline recorded in a change log (`"pipeline"`: its steps' parameters), whose public
/// recodings map the original onto the released scale. `None` for a log without steps.
pub fn pipeline_of_log(log: &LogInput) -> Result<Option<Pipeline>> {
    let label = &log.label;
    let Some(steps) = log.value.get("pipeline").and_then(Value::as_array) else {
        return Ok(None);
    };
    let tables: Vec<toml::Table> = steps
        .iter()
        .map(|s| {
            toml::Table::try_from(s)
                .with_context(|| format!("{label}: a pipeline step is not a table"))
        })
        .collect::<Result<_>>()?;
    let p = Pipeline::from_steps(&tables, "", Default::default())
        .map_err(|p| problems(&format!("{label} pipeline"), p))?;
    Ok(Some(p))
}

/// The measure names asked for, each once, old names (`means`, `variances`) accepted with a
/// warning.
pub fn measure_names(given: &[String], surface: Surface) -> (Vec<String>, Vec<Problem>) {
    let mut warnings = Vec::new();
    let mut out: Vec<String> = Vec::new();
    for m in given {
        let name = match m.as_str() {
            "means" | "variances" => {
                warnings.push(Problem {
                    path: match surface {
                        Surface::Cli => "--measure".into(),
                        Surface::Python | Surface::Page => "measures".into(),
                    },
                    message: format!(
                        "'{m}' is deprecated: use 'moments' (the old name is accepted until the next release)"
                    ),
                });
                "moments".to_string()
            }
            _ => m.clone(),
        };
        if !out.contains(&name) {
            out.push(name);
        }
    }
    (out, warnings)
}

/// The variables compared when none are given: the original's key and sensitive columns
/// (added to `params`), unless only `ci-overlap` runs. `None` when nothing was added.
fn variables_from_roles(
    request: &mut UtilityRequest<'_>,
    names: &[String],
    original: &Table,
) -> Result<Option<Vec<String>>> {
    let only_model = !names.is_empty() && names.iter().all(|m| m == "ci-overlap");
    if request.params.contains_key("variables") || only_model {
        return Ok(None);
    }
    let from_schema: Vec<String> = original
        .columns()
        .iter()
        .filter(|c| matches!(c.role(), Role::Key | Role::Sensitive))
        .map(|c| c.name().to_string())
        .collect();
    if !from_schema.is_empty() {
        let list = from_schema.iter().map(|s| toml::Value::from(s.as_str()));
        request
            .params
            .insert("variables".into(), toml::Value::Array(list.collect()));
        return Ok(Some(from_schema));
    }
    if names.is_empty() && !request.params.contains_key("model") {
        bail!(
            "give {} (the schema of {} declares no key or sensitive column)",
            match request.surface {
                Surface::Cli => "--variables COLS".to_string(),
                Surface::Python => "variables=[…]".to_string(),
                Surface::Page => Surface::Page.list_arg("variables"),
            },
            request.original_label
        );
    }
    Ok(None)
}

/// Measures `masked` against `original` as `request` asks; `timings` gets the phase `utility`.
pub fn utility(
    original: &Table,
    masked: &Table,
    mut request: UtilityRequest<'_>,
    timings: &mut Timings,
) -> Result<UtilityRun> {
    let kept = match &request.log {
        Some(l) => Some(kept_rows(l, original.nrows())?),
        None => None,
    };
    // with the masking's log, the original is also read on the released scale
    let recoded = match &request.log {
        Some(l) => match pipeline_of_log(l)? {
            Some(p) => Some(p.intruder_view(original)?),
            None => None,
        },
        None => None,
    };
    let (names, mut warnings) = measure_names(&request.measures, request.surface);
    let variables = variables_from_roles(&mut request, &names, original)?;
    let mut left_out = Vec::new();
    let names = if names.is_empty() {
        let vars: Vec<String> = request
            .params
            .get("variables")
            .and_then(|v| Vec::<String>::from_param(v).ok())
            .unwrap_or_default();
        let same = kept.as_ref().map_or(original.nrows(), Vec::len) == masked.nrows();
        left_out = left_out_measures(original, &vars, same);
        default_measures(original, &vars, same, request.params.contains_key("model"))
    } else {
        names
    };
    let columns = columns_of(original, &request.original_label);
    let ctx = ReadContext {
        base_dir: None,
        columns: Some(&columns),
    };
    let configured = configure(&names, &request.params, "", ctx, &[])
        .map_err(|p| problems(request.surface_name, p))?;
    warnings.extend(configured.warnings);
    if let Some(step) = request.log.as_ref().and_then(synthetic_step)
        && let Some(m) = configured.measures.iter().find(|m| m.one_to_one())
    {
        bail!(
            "utility measure '{}' does not apply: step {step} of the change log synthesised the release, so no masked record is an original record to compare with one to one; compare the files as wholes (moments, correlations, pmse)",
            m.name()
        );
    }
    let reports = timings.time("utility", || {
        measure_all_recoded(
            &configured.measures,
            original,
            recoded.as_ref(),
            masked,
            kept.as_deref(),
        )
    })?;
    Ok(UtilityRun {
        report: merge_reports(String::new(), reports),
        measures: names,
        kept: kept.is_some(),
        warnings,
        variables_from_roles: variables,
        left_out,
    })
}
