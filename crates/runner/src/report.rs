//! Reports from the stored runs: `results.csv` (one row per run and metric), `results.json`
//! (resolved configuration, seed, version, per-setting means and 95% intervals with the values
//! behind them), `summary.md`, SVG plots and a self-contained `report.html`.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::RunnerError;
use crate::aggregate::{
    HEADLINE, SettingResult, aggregate, headline_table, published_table, question_tables,
    shown_metrics, summary_tables, verdict_table,
};
use crate::glossary::{GlossaryEntry, glossary, unit_name};
use crate::hash::VERSION;
use crate::metrics::metrics;
use crate::plan::Plan;
use crate::plot;
use crate::record::RunRecord;
use crate::spec::Experiment;
use crate::table::TableData;

/// Files written by [`write_reports`].
#[derive(Debug, Clone)]
pub struct Written {
    /// Every file, in writing order.
    pub files: Vec<PathBuf>,
    /// The aggregated results.
    pub results: Vec<SettingResult>,
    /// SVG plots: (file name, caption, svg text).
    pub plots: Vec<(String, String, String)>,
    /// The glossary of every metric shown.
    pub glossary: Vec<GlossaryEntry>,
    /// The verdict table (promises, the attacks against them, the cost), when runs were
    /// cross-examined.
    pub verdict: Option<TableData>,
    /// The frontier tables of the settings whose masking searched a lattice (generalise), in
    /// plan order; the report shows them with the summary tables.
    pub frontiers: Vec<TableData>,
    /// The cross-examinations' warnings, each prefixed with its setting.
    pub verdict_warnings: Vec<String>,
}

/// The report's reading guide.
pub const HOW_TO_READ: &str = "Each setting is one way of masking the released file (\"none\" releases it unmasked); each attack is one way an intruder links the records it holds (its targets) to the release. The headline figure is correct re-identifications per target: of every record the intruder holds, the share it re-identifies correctly. Per twin divides by the targets whose person is actually in the release (the right rate when the intruder knows who responded); subsampling lowers the per-target rate even when the per-twin rate stays put. Precision is the share of the links the intruder declares that are right: how far it can trust a match. The attacks' rates are pooled over the replicates; the 95% interval in brackets carries the variation between replicates (another masking, another intruder sample) — the wider of a t-interval from that variation and the Wilson interval of the pooled counts — and is the Wilson interval alone with one replicate; other figures (counts, scores, the masking's shares) are means over replicates with a 95% t-interval clipped to their range. The risk–utility map sets the headline risk against information loss, which counts records removed by subsampling or record removal as well as records changed or recoded (a generalised band counts as a change). The glossary at the end defines every figure shown.";

/// What the verdict section says.
pub const VERDICT_TEXT: &str = "Every defence that promises k (local suppression, risk suppression, record removal, MDAV, generalisation) states the intruder it protects against (protect_against: listwise, as-value, wildcard, or all of them). The toolkit cross-examines each promise on the whole release: an intruder who knows every original record (mapped through the published recodings) runs the exact attack under the listwise and the wildcard rule, and the release's classes are counted under the listwise, as-value and wildcard rules. A promise is contradicted when, under a rule it covers, a record sits in a class below k or the attack's expected rate exceeds 1/k; it holds only under the rule promised when another rule breaks it. Settings without a promise show the same figures on the scenario's keys.";

/// What the headline section says.
pub const HEADLINE_TEXT: &str = "The share of every record the intruder holds (its targets, whether or not their person was released) that the attack re-identifies correctly: the answer to the intruder's own question. The per-twin rate and the precision of declared links follow per attack below.";

/// What the questions section says.
pub const QUESTIONS_TEXT: &str = "The three questions of anonymisation (Article 29 Working Party, Opinion 05/2014), as anonymeter asks them (Giomi et al., PoPETs 2023), without the ground truth: can a record be singled out, can records be linked, can an attribute be inferred? Before any defence ran, a share of the original records (the control set) was held back; every release was made from the others. Each question runs its attack against those original records, the same attack against the control set, and a random baseline. The risk is (attack rate − control rate) / (1 − control rate): what the release adds to what the population alone gives away; its interval (in brackets) is the question's own, from the Wilson intervals of the two rates, each end averaged over the replicates. An attack rate that does not beat the baseline rate says nothing about the release. The attacks' correct re-identifications per twin, which do use the ground truth, stand beside the risks for comparison.";

/// How intervals are computed, for the glossary.
pub const INTERVALS_TEXT: &str = "Intervals: an attack's share of records (per target, per twin, precision, recall, ranks) is pooled over the replicates — p = Σ numerators / Σ denominators — and its 95% interval is meant for the expected rate of the whole procedure (a masking drawn with its seed, an intruder drawn with theirs, then the attack). With two or more replicates it is the wider of (a) the replicate interval, p ± t(0.975, R − 1)·√v with the ratio estimator's between-replicate variance v = R/(R − 1)·Σ(k_r − p·n_r)²/(Σn_r)² (with equal denominators, the t-interval of the mean of the replicate shares), and (b) the Wilson score interval of the pooled counts, which keeps an interval when every replicate agrees; with one replicate it is the Wilson interval alone, which reflects only the binomial variation of the records. Both stay within [0%, 100%]; the tests check by simulation that the interval covers the expected rate at least 93% of the time (nominal 95%) where the Wilson interval alone covers 54–70%. It is an interval for the expected rate, not for the rate of one replicate: a single replicate's share can lie outside it. Every other figure is the mean over replicates with a 95% Student-t interval, clipped to its range (shares within [0, 1], counts and non-negative scores such as the pMSE ratio or IL1s at least 0); one replicate gives no t-interval. An interval of zero width at the printed precision (every replicate alike, e.g. the number of targets) is never shown. Shares print as percentages with one decimal from 1% up and two significant digits below (0.033%), counts as integers (a mean rounded to the nearest; exact values in results.csv and results.json), other figures with 3 significant digits.";

const CSS: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;max-width:1320px;margin:2em auto;padding:0 1.5em;color:#222;line-height:1.45}h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}p{max-width:75em}.tw{overflow-x:auto;margin:1em 0}table{border-collapse:collapse;font-size:0.88em}caption{text-align:left;font-weight:600;padding:0.3em 0}th,td{border:1px solid #ccc;padding:0.25em 0.55em;text-align:right;vertical-align:top}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}td:first-child{white-space:nowrap}.ci{white-space:nowrap;color:#555}.gl td,.gl th{text-align:left}.gl td:first-child{white-space:normal;min-width:9em}.gl td:nth-child(2){font-family:ui-monospace,monospace;font-size:0.92em;overflow-wrap:anywhere;min-width:11em;max-width:18em}.gl td:nth-child(3){min-width:16em}pre.plan{background:#f6f6f6;padding:0.8em;white-space:pre-wrap;overflow-wrap:anywhere}figure{margin:1.5em 0}figure svg{max-width:100%;height:auto}figcaption{font-size:0.9em;color:#444;max-width:75em}code{background:#f3f3f3;padding:0 0.2em}ul.warn{color:#8a3b00;max-width:75em}";

/// Every metric id the report shows (tables, figures, axes), for its glossary.
pub fn shown_in_report(exp: &Experiment, results: &[SettingResult]) -> Vec<String> {
    let mut shown = Vec::new();
    for a in &exp.attacks {
        shown.push(format!("{}.{HEADLINE}", a.name));
    }
    shown.extend(shown_metrics(exp, results));
    shown.extend(plot::plot_metrics(exp));
    for a in &exp.attacks {
        shown.push(format!("{}.correct_match_rate", a.name));
        shown.push(format!("{}.precision", a.name));
    }
    shown.extend(
        crate::metrics::CHECK_FIGURES
            .iter()
            .map(|d| d.figure.to_string()),
    );
    shown.extend(plot::map_risk(exp));
    shown.extend(plot::map_loss(exp, results));
    for q in &exp.questions {
        shown.extend(
            crate::metrics::question_figures(q.question)
                .iter()
                .map(|d| format!("question.{}.{}", q.name, d.figure)),
        );
    }
    let mut out: Vec<String> = Vec::new();
    for k in shown {
        if !out.contains(&k) && results.iter().any(|s| s.get(&k).is_some()) {
            out.push(k);
        }
    }
    out
}

/// What the membership tables say.
pub const MEMBERSHIP_TEXT: &str = "Membership inference asks whether a person's presence in the data the release was made from shows: original records (members) and control records (non-members) are scored by an attack — their distance to the closest release record, or the release's density over the population's (in the spirit of DOMIAS) — and the AUC says how well the scores separate them (0.5: a coin toss), the true-positive rates at 1% and 10% false positives how many members a cautious intruder names.";

/// What the distances tables say.
pub const DISTANCE_TEXT: &str = "The distances to the closest record are SDMetrics' (DCROverfittingProtection, DCRBaselineProtection): a release that lies closer to the original records than to the control set was fitted to the people in it (protection below 1); distances alone can pass a release that membership inference breaks.";

/// The questions section's heading and text for the questions `exp` asks.
fn questions_heading(exp: &Experiment) -> (String, String) {
    use intruder::questions::Question;
    let has = |k: Question| exp.questions.iter().any(|q| q.question == k);
    let three = exp.questions.iter().any(|q| q.question.has_risk());
    let mut text = Vec::new();
    if three {
        text.push(QUESTIONS_TEXT);
    }
    if has(Question::Membership) {
        text.push(MEMBERSHIP_TEXT);
    }
    if has(Question::Distances) {
        text.push(DISTANCE_TEXT);
    }
    let heading = if three && text.len() == 1 {
        "The three questions: singling out, linkability, inference".to_string()
    } else {
        "Questions without the ground truth: singling out, linkability, inference, membership, distances".to_string()
    };
    (heading, text.join(" "))
}

fn glossary_table(entries: &[GlossaryEntry]) -> TableData {
    TableData {
        title: "Glossary: every figure shown".into(),
        header: ["figure", "metric id", "definition", "unit", "used by"]
            .map(str::to_string)
            .to_vec(),
        rows: entries
            .iter()
            .map(|e| {
                vec![
                    e.name.clone(),
                    e.pattern.clone(),
                    e.definition.clone(),
                    unit_name(e.unit).to_string(),
                    e.reference.clone(),
                ]
            })
            .collect(),
    }
}

fn write_text(path: &Path, text: &str) -> Result<(), RunnerError> {
    intruder_data::write_atomically(path, |w| {
        use std::io::Write;
        w.write_all(text.as_bytes())
    })?;
    Ok(())
}

fn csv_escape(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// What the failures section says.
const FAILURES_TEXT: &str = "These attacks, measures and runs failed. Their figures are left out of every table and figure below; everything else was computed as usual. A run that failed as a whole is not stored and is tried again on the next `intruder run`.";

/// The failures of the runs: runs that failed as a whole, then attacks and measures that failed
/// inside a run; `None` when there are none.
fn failures_table(runs: &[RunRecord], failed: &[crate::exec::FailedRun]) -> Option<TableData> {
    let mut rows: Vec<Vec<String>> = failed
        .iter()
        .map(|f| {
            vec![
                f.setting.clone(),
                (f.replicate + 1).to_string(),
                "the whole run".into(),
                f.message.clone(),
            ]
        })
        .collect();
    for r in runs {
        for f in &r.failures {
            rows.push(vec![
                r.setting.clone(),
                (r.replicate + 1).to_string(),
                f.what(),
                f.message.clone(),
            ]);
        }
    }
    (!rows.is_empty()).then(|| TableData {
        title: "failures".into(),
        header: ["setting", "replicate", "what failed", "reason"]
            .map(String::from)
            .to_vec(),
        rows,
    })
}

/// Writes `results.csv`, `results.json`, `summary.md`, the SVG plots and `report.html` under
/// `out`. Everything is sorted by plan order, so the bytes depend only on the runs.
/// Failures (runs that failed as a whole, attacks and measures that failed inside a run) are
/// listed first.
pub fn write_reports(
    exp: &Experiment,
    plan: &Plan,
    runs: &[RunRecord],
    fingerprint: &str,
    out: &Path,
    failed: &[crate::exec::FailedRun],
) -> Result<Written, RunnerError> {
    let results = aggregate(exp, plan, runs);
    let failures = failures_table(runs, failed);
    let mut files = Vec::new();

    let p = out.join("results.csv");
    write_text(&p, &results_csv(plan, runs))?;
    files.push(p);
    let p = out.join("results.json");
    let json = results_json(exp, &results);
    write_text(&p, &(serde_json::to_string_pretty(&json)? + "\n"))?;
    files.push(p);

    // Figures.
    let figures = plot::plots(exp, plan, &results)?;
    let mut plots: Vec<Svg> = figures
        .iter()
        .map(|f| (f.file.clone(), f.caption.clone(), f.svg()))
        .collect();
    plots.extend(crate::linkage::report_charts(plan, runs));
    let (search_tables, search_plots) = crate::search::report_parts(plan, runs);
    plots.extend(search_plots);
    write_svgs(out, &plots, &mut files)?;

    // The glossary: every metric a table, a figure or an axis shows.
    let shown = shown_in_report(exp, &results);
    let entries = glossary(exp, runs, &shown);

    let headline = headline_table(exp, &results);
    let (verdict, verdict_warnings) = match verdict_table(exp, plan, runs, &results) {
        Some((t, w)) => (Some(t), w),
        None => (None, Vec::new()),
    };
    let mut tables = summary_tables(exp, &results);
    tables.extend(search_tables.iter().cloned());
    let questions = question_tables(exp, &results);
    let published = published_table(exp, &results);
    let (study_tables, study_plots) = study_parts(exp, fingerprint, out)?;
    write_svgs(out, &study_plots, &mut files)?;
    let parts = ReportParts {
        exp,
        sections: sections(
            exp,
            failures,
            headline,
            verdict.as_ref().map(|t| (t, verdict_warnings.as_slice())),
            questions,
        ),
        plots: &plots,
        tables,
        published,
        study: exp.study.as_ref().map(|st| {
            (
                st.name().to_string(),
                crate::exec::study_id(exp, &**st, fingerprint),
            )
        }),
        study_plots,
        study_tables,
        glossary: glossary_table(&entries),
        plan_text: plan.describe(exp),
        replicates: format!(
            "{} replicate{} per setting",
            exp.replicates,
            if exp.replicates == 1 { "" } else { "s" }
        ),
    };

    let p = out.join("summary.md");
    write_text(&p, &parts.markdown()?)?;
    files.push(p);
    let p = out.join("report.html");
    write_text(&p, &parts.html()?)?;
    files.push(p);

    Ok(Written {
        files,
        results,
        plots,
        glossary: entries,
        verdict,
        frontiers: search_tables,
        verdict_warnings,
    })
}

/// An SVG figure as written: (file name, caption, svg text).
type Svg = (String, String, String);

/// Writes each SVG under `out` and adds its path to `files`.
fn write_svgs(out: &Path, svgs: &[Svg], files: &mut Vec<PathBuf>) -> Result<(), RunnerError> {
    for (name, _, svg) in svgs {
        let p = out.join(name);
        write_text(&p, svg)?;
        files.push(p);
    }
    Ok(())
}

/// `results.csv`: one row per run and metric, in plan order.
fn results_csv(plan: &Plan, runs: &[RunRecord]) -> String {
    let mut csv = String::from("run,setting,defence,params,replicate,metric,value\n");
    for (run, rec) in plan.runs.iter().zip(runs) {
        let s = &plan.settings[run.setting];
        let params: Vec<String> = s.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        for m in metrics(rec) {
            let (k, v) = (m.id.to_string(), m.value);
            csv.push_str(&format!(
                "{},{},{},{},{},{},{}\n",
                run.id,
                csv_escape(&s.label),
                csv_escape(&s.defence),
                csv_escape(&params.join(";")),
                run.replicate,
                csv_escape(&k),
                if v.is_finite() {
                    format!("{v}")
                } else {
                    String::new()
                }
            ));
        }
    }
    csv
}

/// `results.json`: the experiment, the toolkit version, the resolved configuration and the
/// per-setting results.
fn results_json(exp: &Experiment, results: &[SettingResult]) -> serde_json::Value {
    json!({
        "experiment": exp.name,
        "description": exp.description,
        "version": VERSION,
        "seed": exp.seed,
        "replicates": exp.replicates,
        "config": exp,
        "settings": results,
    })
}

/// The longitudinal study's tables and figures from its stored result (none without a study).
fn study_parts(
    exp: &Experiment,
    fingerprint: &str,
    out: &Path,
) -> Result<(Vec<TableData>, Vec<Svg>), RunnerError> {
    let Some(st) = &exp.study else {
        return Ok((Vec::new(), Vec::new()));
    };
    let r = crate::exec::load_study(exp, &**st, fingerprint, out)?;
    let figs: Vec<Svg> = st
        .plots(&r)
        .iter()
        .map(plot::study_plot)
        .map(|f| (f.file.clone(), f.caption.clone(), f.svg()))
        .collect();
    Ok((st.tables(&r), figs))
}

/// One section before the figures: a heading, what it says, its tables and warnings.
struct Section<'a> {
    heading: String,
    text: String,
    tables: Vec<std::borrow::Cow<'a, TableData>>,
    warnings: &'a [String],
}

/// What `summary.md` and `report.html` show, in the order they show it (the templates in
/// `templates/` lay it out).
struct ReportParts<'a> {
    /// The experiment.
    exp: &'a Experiment,
    /// Failures, headline, verdict and questions, each when there is one.
    sections: Vec<Section<'a>>,
    /// The experiment's figures.
    plots: &'a [Svg],
    /// The summary tables.
    tables: Vec<TableData>,
    /// The published values beside ours.
    published: Option<TableData>,
    /// The longitudinal study's name and the id of its stored result, when there is one.
    study: Option<(String, String)>,
    /// The longitudinal study's figures.
    study_plots: Vec<Svg>,
    /// The longitudinal study's tables.
    study_tables: Vec<TableData>,
    /// The glossary of every figure shown.
    glossary: TableData,
    /// The plan, described.
    plan_text: String,
    /// "n replicate(s) per setting".
    replicates: String,
}

/// An SVG figure as it goes inline into `report.html`: without its XML prologue.
pub(crate) fn inline_svg(svg: &str) -> &str {
    svg.find("<svg").map_or(svg, |i| &svg[i..])
}

/// `report.html`: `templates/report.html` (askama escapes every text it puts in).
#[derive(askama::Template)]
#[template(path = "report.html")]
struct ReportHtml<'a> {
    p: &'a ReportParts<'a>,
    css: &'static str,
    version: &'static str,
    how_to_read: &'static str,
    intervals: &'static str,
}

/// `summary.md`: `templates/summary.md` (markdown: nothing escaped but the tables' `|`).
#[derive(askama::Template)]
#[template(path = "summary.md")]
struct SummaryMd<'a> {
    p: &'a ReportParts<'a>,
    version: &'static str,
    how_to_read: &'static str,
    intervals: &'static str,
}

impl ReportParts<'_> {
    /// `summary.md`.
    fn markdown(&self) -> Result<String, RunnerError> {
        let t = SummaryMd {
            p: self,
            version: VERSION,
            how_to_read: HOW_TO_READ,
            intervals: INTERVALS_TEXT,
        };
        rendered(&t, "summary.md")
    }

    /// `report.html`, self-contained (SVGs inline).
    fn html(&self) -> Result<String, RunnerError> {
        let t = ReportHtml {
            p: self,
            css: CSS,
            version: VERSION,
            how_to_read: HOW_TO_READ,
            intervals: INTERVALS_TEXT,
        };
        rendered(&t, "report.html")
    }
}

/// A template's text, ending in a line break (the template engine drops the file's last one).
fn rendered(t: &impl askama::Template, file: &str) -> Result<String, RunnerError> {
    t.render()
        .map(|s| s + "\n")
        .map_err(|e| RunnerError::Invalid(format!("{file}: the template failed: {e}")))
}

/// The sections before the figures: failures, headline, verdict, questions (each when there is
/// one).
fn sections<'a>(
    exp: &Experiment,
    failures: Option<TableData>,
    headline: Option<TableData>,
    verdict: Option<(&'a TableData, &'a [String])>,
    questions: Vec<TableData>,
) -> Vec<Section<'a>> {
    let mut out = Vec::new();
    let one = |heading: &str, text: &str, tables: Vec<TableData>| Section {
        heading: heading.to_string(),
        text: text.to_string(),
        tables: tables.into_iter().map(std::borrow::Cow::Owned).collect(),
        warnings: &[],
    };
    if let Some(t) = failures {
        out.push(one("Failures", FAILURES_TEXT, vec![t]));
    }
    if let Some(t) = headline {
        out.push(one(
            "Headline: correct re-identifications per target",
            HEADLINE_TEXT,
            vec![t],
        ));
    }
    if let Some((t, warnings)) = verdict {
        out.push(Section {
            heading: "Verdict: promises against the attacks".into(),
            text: VERDICT_TEXT.into(),
            tables: vec![std::borrow::Cow::Borrowed(t)],
            warnings,
        });
    }
    if !questions.is_empty() {
        let (heading, text) = questions_heading(exp);
        out.push(one(&heading, &text, questions));
    }
    out
}
