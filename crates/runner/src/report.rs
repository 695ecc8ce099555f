//! Reports from the stored runs: `results.csv` (one row per run and metric), `results.json`
//! (resolved configuration, seed, version, per-setting means and 95% intervals with the values
//! behind them), `summary.md`, SVG plots and a self-contained `report.html`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::RunnerError;
use crate::metrics::metrics;
use crate::plan::{Plan, VERSION};
use crate::plot;
use crate::spec::Experiment;

/// Mean and 95% interval of one metric over the replicates of one setting.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Stat {
    /// Mean over replicates.
    pub mean: f64,
    /// Lower end of the 95% t-interval of the mean (the mean itself with one replicate).
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
    /// Replicates with a value.
    pub n: usize,
    /// The values, by replicate.
    pub values: Vec<f64>,
}

impl Stat {
    /// From the replicate values: mean ± t(0.975, n−1)·s/√n.
    pub fn new(values: Vec<f64>) -> Stat {
        let n = values.len();
        let mean = values.iter().sum::<f64>() / n.max(1) as f64;
        let (lo, hi) = if n >= 2 {
            let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
            let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
                .map(|d| d.inverse_cdf(0.975))
                .unwrap_or(f64::NAN);
            let h = t * (var / n as f64).sqrt();
            (mean - h, mean + h)
        } else {
            (mean, mean)
        };
        Stat {
            mean,
            lo,
            hi,
            n,
            values,
        }
    }
}

/// The aggregated figures of one setting.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SettingResult {
    /// Setting label.
    pub label: String,
    /// Defence name.
    pub defence: String,
    /// Grid values.
    pub params: Vec<(String, Value)>,
    /// Run ids, by replicate.
    pub runs: Vec<String>,
    /// Metric → statistic, in first-seen order.
    pub metrics: Vec<(String, Stat)>,
}

impl SettingResult {
    /// The statistic of `metric`.
    pub fn get(&self, metric: &str) -> Option<&Stat> {
        self.metrics
            .iter()
            .find(|(k, _)| k == metric)
            .map(|(_, s)| s)
    }
}

/// Aggregates stored runs by setting.
pub fn aggregate(plan: &Plan, raws: &[Value]) -> Vec<SettingResult> {
    let mut out: Vec<SettingResult> = plan
        .settings
        .iter()
        .map(|s| SettingResult {
            label: s.label.clone(),
            defence: s.defence.clone(),
            params: s.params.clone(),
            runs: Vec::new(),
            metrics: Vec::new(),
        })
        .collect();
    let mut values: Vec<Vec<(String, Vec<f64>)>> = vec![Vec::new(); plan.settings.len()];
    for (run, raw) in plan.runs.iter().zip(raws) {
        out[run.setting].runs.push(run.id.clone());
        let vs = &mut values[run.setting];
        for (k, v) in metrics(raw) {
            if !v.is_finite() {
                continue;
            }
            match vs.iter_mut().find(|(n, _)| *n == k) {
                Some((_, list)) => list.push(v),
                None => vs.push((k, vec![v])),
            }
        }
    }
    for (o, vs) in out.iter_mut().zip(values) {
        o.metrics = vs
            .into_iter()
            .map(|(k, v)| {
                let mut st = Stat::new(v);
                if is_proportion(&k) {
                    st.lo = st.lo.max(0.0);
                    st.hi = st.hi.min(1.0);
                }
                (k, st)
            })
            .collect();
    }
    out
}

/// Whether a metric is a proportion (its interval is clipped to [0, 1]).
pub fn is_proportion(metric: &str) -> bool {
    metric.ends_with("_rate")
        || metric.ends_with("_share")
        || metric.ends_with(".precision")
        || metric.ends_with(".recall")
}

/// Formats a figure for tables: integers as integers, others with 4 significant digits.
pub fn fmt(x: f64) -> String {
    if x.is_nan() {
        return "–".into();
    }
    if x == x.round() && x.abs() < 1e12 {
        return format!("{}", x as i64);
    }
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.3}")
    } else {
        format!("{x:.4}")
    }
}

pub(crate) fn cell(s: Option<&Stat>) -> String {
    match s {
        None => "–".into(),
        Some(s) if s.n < 2 || s.lo == s.hi => fmt(s.mean),
        Some(s) => format!("{} [{}, {}]", fmt(s.mean), fmt(s.lo), fmt(s.hi)),
    }
}

/// A rendered table (markdown and HTML share it).
#[derive(Debug, Clone)]
pub struct TableData {
    /// Caption.
    pub title: String,
    /// Column names.
    pub header: Vec<String>,
    /// Cells.
    pub rows: Vec<Vec<String>>,
}

impl TableData {
    /// As a markdown table.
    pub fn markdown(&self) -> String {
        let mut s = format!("**{}**\n\n| {} |\n|", self.title, self.header.join(" | "));
        for _ in &self.header {
            s.push_str("---|");
        }
        s.push('\n');
        for r in &self.rows {
            s.push_str(&format!("| {} |\n", r.join(" | ")));
        }
        s
    }

    /// As an HTML table.
    pub fn html(&self) -> String {
        let mut s = format!("<table><caption>{}</caption><thead><tr>", esc(&self.title));
        for h in &self.header {
            s.push_str(&format!("<th>{}</th>", esc(h)));
        }
        s.push_str("</tr></thead><tbody>");
        for r in &self.rows {
            s.push_str("<tr>");
            for c in r {
                s.push_str(&format!("<td>{}</td>", esc(c)));
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table>\n");
        s
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The summary tables: one per attack (its headline figures), one for risk, one for utility;
/// the `[report] metrics` list replaces them with a single table.
pub fn summary_tables(exp: &Experiment, results: &[SettingResult]) -> Vec<TableData> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    if !exp.report.metrics.is_empty() {
        groups.push(("Selected figures".into(), exp.report.metrics.clone()));
    } else {
        for a in &exp.attacks {
            let mut m = vec![
                "twins",
                "correct_match_rate",
                "expected_correct",
                "unique_correct",
                "le2_correct",
                "rank1_rate",
                "in_candidates_rate",
            ]
            .into_iter()
            .map(|k| format!("{}.{k}", a.name))
            .collect::<Vec<_>>();
            if a.sensitive.is_some() {
                m.push(format!("{}.attribute_A", a.name));
            }
            groups.push((format!("Attack `{}` ({})", a.name, a.method), m));
        }
        for r in &exp.risk {
            let m = [
                "n",
                "n_deleted",
                "sample_uniques",
                "k_le_5",
                "k_le_10",
                "theta",
                "n_match_1",
                "global_risk",
                "bender_r",
                "household_global_risk",
                "l_distinct_min",
                "score_max",
                "dis_score_max",
                "rule_estimate",
                "tau1",
            ]
            .into_iter()
            .map(|k| format!("risk.{}.{k}", r.name))
            .filter(|k| results.iter().any(|s| s.get(k).is_some()))
            .collect();
            let how = if r.measure_name() == intruder_risk::DEFAULT_MEASURE {
                r.missing().to_string()
            } else {
                format!("{}, {}", r.measure_name(), r.missing())
            };
            groups.push((format!("Risk `{}` ({how})", r.name), m));
        }
        let um: Vec<String> = [
            "utility.il1s",
            "utility.il1s_per_cell",
            "utility.mean_rel_diff_max",
            "utility.var_rel_diff_max",
            "utility.cor_max_abs_diff",
            "utility.pmse_ratio",
            "utility.ci_overlap_mean",
            "masking.records_changed_share",
            "masking.suppressions",
        ]
        .into_iter()
        .filter(|k| results.iter().any(|s| s.get(k).is_some()))
        .map(str::to_string)
        .collect();
        if !um.is_empty() {
            groups.push(("Information loss".into(), um));
        }
    }
    groups
        .into_iter()
        .filter(|(_, m)| !m.is_empty())
        .map(|(title, m)| {
            let prefix = common_prefix(&m);
            let mut header = vec!["setting".to_string()];
            header.extend(m.iter().map(|k| k[prefix..].to_string()));
            let rows = results
                .iter()
                .map(|s| {
                    let mut r = vec![s.label.clone()];
                    r.extend(m.iter().map(|k| cell(s.get(k))));
                    r
                })
                .collect();
            TableData {
                title,
                header,
                rows,
            }
        })
        .collect()
}

fn common_prefix(m: &[String]) -> usize {
    let Some(first) = m.first() else { return 0 };
    let Some(dot) = first.rfind('.') else {
        return 0;
    };
    let p = &first[..=dot];
    if m.len() > 1
        && m.iter()
            .all(|k| k.starts_with(p) && !k[p.len()..].contains('.'))
    {
        p.len()
    } else {
        0
    }
}

/// Ours beside the published values (`[[published]]`).
pub fn published_table(exp: &Experiment, results: &[SettingResult]) -> Option<TableData> {
    if exp.published.is_empty() {
        return None;
    }
    let rows = exp
        .published
        .iter()
        .map(|p| {
            let ours = results
                .iter()
                .find(|s| s.label == p.setting)
                .and_then(|s| s.get(&p.metric));
            vec![
                p.setting.clone(),
                format!("`{}`", p.metric),
                fmt(p.value),
                cell(ours),
                ours.map_or("–".into(), |o| fmt(o.mean - p.value)),
                p.source.clone(),
                p.note.clone(),
            ]
        })
        .collect();
    Some(TableData {
        title: "Published values beside ours".into(),
        header: [
            "setting",
            "figure",
            "published",
            "ours (95% interval)",
            "difference",
            "source",
            "why they differ",
        ]
        .map(str::to_string)
        .to_vec(),
        rows,
    })
}

/// Files written by [`write_reports`].
#[derive(Debug, Clone)]
pub struct Written {
    /// Every file, in writing order.
    pub files: Vec<PathBuf>,
    /// The aggregated results.
    pub results: Vec<SettingResult>,
    /// SVG plots: (file name, caption, svg text).
    pub plots: Vec<(String, String, String)>,
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

/// Writes `results.csv`, `results.json`, `summary.md`, the SVG plots and `report.html` under
/// `out`. Everything is sorted by plan order, so the bytes depend only on the runs.
pub fn write_reports(
    exp: &Experiment,
    plan: &Plan,
    raws: &[Value],
    out: &Path,
) -> Result<Written, RunnerError> {
    let results = aggregate(plan, raws);
    let mut files = Vec::new();

    // results.csv: one row per run and metric.
    let mut csv = String::from("run,setting,defence,params,replicate,metric,value\n");
    for (run, raw) in plan.runs.iter().zip(raws) {
        let s = &plan.settings[run.setting];
        let params: Vec<String> = s.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        for (k, v) in metrics(raw) {
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
    let p = out.join("results.csv");
    write_text(&p, &csv)?;
    files.push(p);

    // results.json
    let json = json!({
        "experiment": exp.name,
        "description": exp.description,
        "version": VERSION,
        "seed": exp.seed,
        "replicates": exp.replicates,
        "config": exp,
        "settings": results,
    });
    let p = out.join("results.json");
    write_text(&p, &(serde_json::to_string_pretty(&json)? + "\n"))?;
    files.push(p);

    // Plots.
    let plots = plot::plots(exp, plan, &results)?;
    for (name, _, svg) in &plots {
        let p = out.join(name);
        write_text(&p, svg)?;
        files.push(p);
    }

    // summary.md
    let tables = summary_tables(exp, &results);
    let published = published_table(exp, &results);
    let study_tables = match &exp.longitudinal {
        Some(l) => crate::longitudinal::longitudinal_tables(
            l,
            &crate::longitudinal::load_longitudinal(exp, l, out)?,
        ),
        None => Vec::new(),
    };
    let mut md = format!(
        "# {}\n\n{}\n\nToolkit {VERSION}, seed {}, {} replicate{} per setting; cells are the mean over replicates with its 95% t-interval in brackets. Raw runs: `runs/`, every figure per run: `results.csv`.\n\n```text\n{}```\n\n",
        exp.name,
        exp.description,
        exp.seed,
        exp.replicates,
        if exp.replicates == 1 { "" } else { "s" },
        plan.describe(exp)
    );
    for t in &tables {
        md.push_str(&t.markdown());
        md.push('\n');
    }
    if let Some(t) = &published {
        md.push_str(&t.markdown());
        md.push('\n');
    }
    if let Some(l) = &exp.longitudinal {
        md.push_str(&format!(
            "## Longitudinal study ({})\n\nRaw result: `longitudinal/{}.json`.\n\n",
            l.study,
            crate::longitudinal::study_id(exp, l)
        ));
    }
    for t in &study_tables {
        md.push_str(&t.markdown());
        md.push('\n');
    }
    for (name, caption, _) in &plots {
        md.push_str(&format!("![{caption}]({name})\n\n"));
    }
    let p = out.join("summary.md");
    write_text(&p, &md)?;
    files.push(p);

    // report.html (self-contained: SVGs inline).
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title><style>body{{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}}table{{border-collapse:collapse;margin:1em 0;font-size:0.9em}}caption{{text-align:left;font-weight:600;padding:0.3em 0}}th,td{{border:1px solid #ccc;padding:0.25em 0.6em;text-align:right}}td:first-child,th:first-child{{text-align:left}}pre{{background:#f6f6f6;padding:0.8em;overflow-x:auto}}figure{{margin:1.5em 0}}</style></head><body>\n<h1>{0}</h1>\n<p>{1}</p>\n<p>Toolkit {VERSION}, seed {2}, {3} replicate(s) per setting; cells are the mean over replicates with its 95% t-interval in brackets.</p>\n<pre>{4}</pre>\n",
        esc(&exp.name),
        esc(&exp.description),
        exp.seed,
        exp.replicates,
        esc(&plan.describe(exp))
    );
    for t in &tables {
        html.push_str(&t.html());
    }
    if let Some(t) = &published {
        html.push_str(&t.html());
    }
    if let Some(l) = &exp.longitudinal {
        html.push_str(&format!(
            "<h2>Longitudinal study ({})</h2>\n",
            esc(&l.study)
        ));
    }
    for t in &study_tables {
        html.push_str(&t.html());
    }
    for (_, caption, svg) in &plots {
        let body = svg.find("<svg").map_or(svg.as_str(), |i| &svg[i..]);
        html.push_str(&format!(
            "<figure>{body}<figcaption>{}</figcaption></figure>\n",
            esc(caption)
        ));
    }
    html.push_str("</body></html>\n");
    let p = out.join("report.html");
    write_text(&p, &html)?;
    files.push(p);

    Ok(Written {
        files,
        results,
        plots,
    })
}
