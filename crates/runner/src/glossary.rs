//! The metric glossary: a human name, a definition, the unit and who uses each figure the
//! reports show. Attack, masking and intruder figures come from the registries in
//! [`crate::metrics`]; risk and utility figures take their definition from the measure's own
//! report (the `meaning` of each figure, stored with the run) and their human name and
//! reference from the figures the measure's registry entry declares ([`measure_figure`]). Axis
//! titles, legends and table headers all read from here, never from raw ids like
//! `fellegi-sunter.correct_match_rate`.

use intruder_data::params::{FigureSpec, declared_figure};
use intruder_data::report::Unit;
use intruder_risk::RISK_MEASURES;
use intruder_utility::UTILITY_MEASURES;

use crate::metrics::{ATTACK_FIGURES, CHECK_FIGURES, FigureDoc, MASKING_FIGURES};
use crate::record::RunRecord;
use crate::spec::Experiment;

/// What a k-anonymity count counts, added to the measure's own definition: whether a class
/// of exactly k is included (f_k ≤ k, as here, or sdcMicro's "violating k-anonymity", f_k < k)
/// and whether records or classes are counted (sdcMicro counts records; Mulder's Table 4
/// counts classes).
pub fn k_count_note(figure: &str) -> Option<String> {
    let k = match figure {
        "k_le_5" => 5,
        "k_le_10" => 10,
        "sample_uniques" => {
            return Some(
                "Counts records (not classes) whose key combination occurs once in the file (f_k = 1).".into(),
            );
        }
        "min_k" => {
            return Some(
                "f_k is the size of a record's class; the file is k-anonymous for every k up to this value.".into(),
            );
        }
        _ => return None,
    };
    Some(format!(
        "Counts records (as sdcMicro does; Mulder's Table 4 counts classes) in classes of size f_k ≤ {k}: a class of exactly {k} records is included, so this is not sdcMicro's \"records violating {k}-anonymity\" (f_k < {k}), which leaves it out."
    ))
}

/// Where a metric id comes from, parsed against the experiment's attack and risk names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind<'a> {
    /// `masking.*`, `intruder.*`, `check.*`.
    Masking(&'a str),
    /// `<attack>.<figure>`.
    Attack(&'a str, &'a str),
    /// `risk.<name>.<figure>`.
    Risk(&'a str, &'a str),
    /// `utility.<figure>`.
    Utility(&'a str),
    /// `question.<name>.<figure>`.
    Question(&'a str, &'a str),
}

/// Parses a metric id.
pub fn kind<'a>(exp: &Experiment, id: &'a str) -> Option<Kind<'a>> {
    if id.starts_with("masking.") || id.starts_with("intruder.") || id.starts_with("check.") {
        return Some(Kind::Masking(id));
    }
    if let Some(rest) = id.strip_prefix("utility.") {
        return Some(Kind::Utility(rest));
    }
    if let Some(rest) = id.strip_prefix("question.") {
        for q in &exp.questions {
            if let Some(f) = rest
                .strip_prefix(q.name.as_str())
                .and_then(|x| x.strip_prefix('.'))
            {
                return Some(Kind::Question(&rest[..q.name.len()], f));
            }
        }
    }
    if let Some(rest) = id.strip_prefix("risk.") {
        for r in &exp.risk {
            if let Some(f) = rest
                .strip_prefix(r.name.as_str())
                .and_then(|x| x.strip_prefix('.'))
            {
                return Some(Kind::Risk(&rest[..r.name.len()], f));
            }
        }
    }
    for a in &exp.attacks {
        if let Some(f) = id
            .strip_prefix(a.name.as_str())
            .and_then(|x| x.strip_prefix('.'))
        {
            return Some(Kind::Attack(&id[..a.name.len()], f));
        }
    }
    None
}

fn attack_doc(figure: &str) -> Option<&'static FigureDoc> {
    ATTACK_FIGURES.iter().find(|d| d.figure == figure)
}

fn question_doc(figure: &str) -> Option<&'static FigureDoc> {
    crate::metrics::question_figure_doc(figure)
}

fn masking_doc(id: &str) -> Option<&'static FigureDoc> {
    MASKING_FIGURES
        .iter()
        .chain(CHECK_FIGURES)
        .find(|d| d.figure == id)
}

/// The declaration of a risk or utility metric's figure: for `risk.<name>.<figure>`, in the
/// registry entry of the measure the experiment's risk `<name>` runs; for `utility.<figure>`, in
/// the utility measure's entry that declares it. `None` for other metrics and for a figure no
/// entry declares (a test keeps every reported figure declared).
pub fn measure_figure(exp: &Experiment, id: &str) -> Option<&'static FigureSpec> {
    match kind(exp, id)? {
        Kind::Risk(r, f) => {
            let measure = exp.risk.iter().find(|x| x.name == r)?.measure.name();
            RISK_MEASURES
                .iter()
                .find(|e| e.name == measure)?
                .figures
                .iter()
                .find(|d| d.id == f)
        }
        Kind::Utility(f) => declared_figure(UTILITY_MEASURES, f),
        _ => None,
    }
}

/// The figure's human name without its scope (`correct re-identifications per target`).
pub fn figure_name(exp: &Experiment, id: &str) -> String {
    match kind(exp, id) {
        Some(Kind::Masking(m)) => masking_doc(m).map_or(m.to_string(), |d| d.name.to_string()),
        Some(Kind::Attack(_, f)) => attack_doc(f).map_or(f.replace('_', " "), |d| d.name.into()),
        Some(Kind::Question(_, f)) => {
            question_doc(f).map_or(f.replace('_', " "), |d| d.name.into())
        }
        Some(Kind::Risk(_, f)) | Some(Kind::Utility(f)) => {
            measure_figure(exp, id).map_or(f.replace('_', " "), |d| d.name.to_string())
        }
        None => id.to_string(),
    }
}

/// The metric's human name with its scope: `correct re-identifications per target (attack
/// exact)`, `sample uniques (k = 1) (risk listwise)`, `risk (question inference)`, `pMSE
/// ratio`.
pub fn human_name(exp: &Experiment, id: &str) -> String {
    let name = figure_name(exp, id);
    match kind(exp, id) {
        Some(Kind::Attack(a, _)) => format!("{name} (attack {a})"),
        Some(Kind::Risk(r, _)) => format!("{name} (risk {r})"),
        Some(Kind::Question(q, _)) => format!("{name} (question {q})"),
        _ => name,
    }
}

/// One row of the glossary.
#[derive(Debug, Clone, PartialEq)]
pub struct GlossaryEntry {
    /// The human name.
    pub name: String,
    /// The metric id, with `<attack>` or `<name>` for the scope when it repeats.
    pub pattern: String,
    /// What it is.
    pub definition: String,
    /// Its unit.
    pub unit: Unit,
    /// Who uses it.
    pub reference: String,
}

/// The glossary entry of one metric id; `None` when the id names no figure the glossary knows.
pub fn entry(exp: &Experiment, runs: &[RunRecord], id: &str) -> Option<GlossaryEntry> {
    match kind(exp, id)? {
        Kind::Masking(m) => masking_doc(m).map(|d| GlossaryEntry {
            name: d.name.into(),
            pattern: m.to_string(),
            definition: d.definition.into(),
            unit: d.unit,
            reference: d.reference.into(),
        }),
        Kind::Attack(_, f) => attack_doc(f).map(|d| GlossaryEntry {
            name: d.name.into(),
            pattern: format!("<attack>.{f}"),
            definition: d.definition.into(),
            unit: d.unit,
            reference: d.reference.into(),
        }),
        Kind::Question(_, f) => question_doc(f).map(|d| GlossaryEntry {
            name: d.name.into(),
            pattern: format!("question.<name>.{f}"),
            definition: d.definition.into(),
            unit: d.unit,
            reference: d.reference.into(),
        }),
        Kind::Risk(r, f) => {
            let fig = runs
                .iter()
                .flat_map(|run| run.risk.iter())
                .filter(|x| x.name == r)
                .flat_map(|x| x.report.figures.iter())
                .find(|x| x.name == f)?;
            Some(GlossaryEntry {
                name: measure_figure(exp, id).map_or(f.replace('_', " "), |d| d.name.into()),
                pattern: format!("risk.<name>.{f}"),
                definition: match k_count_note(f) {
                    Some(note) => format!("{} {note}", fig.meaning.trim_end()),
                    None => fig.meaning.clone(),
                },
                unit: fig.unit,
                reference: measure_figure(exp, id).map_or("–".into(), |d| d.reference.into()),
            })
        }
        Kind::Utility(f) => {
            let fig = runs
                .iter()
                .flat_map(|run| run.utility.iter())
                .flat_map(|x| x.report.figures.iter())
                .find(|x| x.name == f)?;
            Some(GlossaryEntry {
                name: measure_figure(exp, id).map_or(f.replace('_', " "), |d| d.name.into()),
                pattern: format!("utility.{f}"),
                definition: fig.meaning.clone(),
                unit: fig.unit,
                reference: measure_figure(exp, id).map_or("–".into(), |d| d.reference.into()),
            })
        }
    }
}

/// The glossary of the metrics `shown`: one row per figure (an attack figure shown for
/// several attacks is one row), in first-shown order.
pub fn glossary(exp: &Experiment, runs: &[RunRecord], shown: &[String]) -> Vec<GlossaryEntry> {
    let mut out: Vec<GlossaryEntry> = Vec::new();
    for id in shown {
        if let Some(e) = entry(exp, runs, id)
            && !out.iter().any(|o| o.pattern == e.pattern)
        {
            out.push(e);
        }
    }
    out
}

/// How the report names a unit.
pub fn unit_name(u: Unit) -> &'static str {
    match u {
        Unit::Proportion => "share (printed as %)",
        Unit::Count => "count",
        Unit::Score => "score",
        Unit::Label => "label",
    }
}
