//! Reports from the stored runs: `results.csv` (one row per run and metric), `results.json`
//! (resolved configuration, seed, version, per-setting means and 95% intervals with the values
//! behind them), `summary.md`, SVG plots and a self-contained `report.html`.

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::RunnerError;
use crate::aggregate::{SettingResult, aggregate, published_table, summary_tables};
use crate::hash::VERSION;
use crate::metrics::metrics;
use crate::plan::Plan;
use crate::plot;
use crate::record::RunRecord;
use crate::spec::Experiment;
use crate::table::esc;

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
    runs: &[RunRecord],
    fingerprint: &str,
    out: &Path,
) -> Result<Written, RunnerError> {
    let results = aggregate(plan, runs);
    let mut files = Vec::new();

    // results.csv: one row per run and metric.
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
    let study_tables = match &exp.study {
        Some(st) => st.tables(&crate::exec::load_study(exp, &**st, fingerprint, out)?),
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
    if let Some(st) = &exp.study {
        md.push_str(&format!(
            "## Longitudinal study ({})\n\nRaw result: `longitudinal/{}.json`.\n\n",
            st.name(),
            crate::exec::study_id(exp, &**st, fingerprint)
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
    if let Some(st) = &exp.study {
        html.push_str(&format!(
            "<h2>Longitudinal study ({})</h2>\n",
            esc(st.name())
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
