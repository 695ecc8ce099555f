//! The results of `intruder panel` as [`intruder_data::report::Report`]s: named figures with
//! their unit and meaning, tables, and the structured results as JSON details, rendered by
//! every surface the same way (`table`, `json`, `csv`, `markdown`). Rows shown to people are
//! 1-based.

use std::path::Path;

use intruder_data::report::{Figure, Report, ReportTable, Unit, human_f64};
use intruder_utility::CiOverlap;
use serde_json::{Value, json};

use crate::attack::AttackReport;
use crate::files::PanelFiles;
use crate::study::{StudyResult, StudyRow, published};
use crate::utility::InheritanceModel;
use crate::workflow::{Alteration, Intruder};

const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How many exclusions the table and markdown formats list (JSON lists all).
const EXCLUSIONS_SHOWN: usize = 10;

fn count(name: &str, v: usize, meaning: &str) -> Figure {
    Figure::new(name, v, Unit::Count, meaning)
}

/// The panel's counts: records per wave, records in all waves, split, non-unique, excluded.
pub fn panel_figures(files: &PanelFiles) -> Vec<Figure> {
    let s = files.panel.summary();
    vec![
        Figure::new(
            "records",
            Value::from(s.records.clone()),
            Unit::Count,
            "records per wave",
        ),
        count(
            "in_all_waves",
            s.in_all_waves,
            "last-wave records linked to every earlier wave",
        ),
        count(
            "split_records",
            s.split_records,
            "last-wave records of households that split",
        ),
        count(
            "nonunique_records",
            s.nonunique_records,
            "last-wave records sharing their link with another (household followed up twice)",
        ),
        count(
            "excluded",
            s.excluded,
            "split records that cannot be attacked (listed below)",
        ),
    ]
}

/// The figures of one attack: identification (`c_i`, `Σ 1/c_i`) and attribute disclosure.
pub fn attack_figures(r: &AttackReport) -> Vec<Figure> {
    vec![
        count(
            "targets",
            r.targets,
            "split records attacked: the departed member knows this household",
        ),
        count(
            "pool",
            r.pool,
            "last-wave records searched for the household",
        ),
        count(
            "with_candidates",
            r.with_candidates,
            "targets with at least one match (c_i > 0)",
        ),
        count(
            "found",
            r.found,
            "targets whose household is among their matches",
        ),
        count(
            "c_i=1",
            r.unique_correct,
            "one match, and it is the household (certain re-identification)",
        ),
        count(
            "c_i<=2",
            r.le2_correct,
            "at most two matches, the household among them",
        ),
        Figure::new(
            "sum_1/c_i",
            r.expected_correct,
            Unit::Score,
            "expected correct re-identifications picking one match at random",
        ),
        count(
            "A",
            r.attribute_a,
            "attribute disclosure: targets with p_i >= 0.5 (eq. 1)",
        ),
        Figure::new(
            "mean_p",
            r.mean_p,
            Unit::Proportion,
            "mean share of a target's matches whose value is within the tolerance",
        ),
        Figure::new(
            "tolerance",
            r.tolerance,
            Unit::Proportion,
            "a released value within this relative distance of the truth counts as disclosed",
        ),
    ]
}

/// The excluded split records, the first ten with file, row and reason.
pub fn exclusion_note(files: &PanelFiles) -> Option<String> {
    let ex = files.panel.exclusions();
    if ex.is_empty() {
        return None;
    }
    let mut s = format!("exclusions ({}):\n", ex.len());
    for e in ex.iter().take(EXCLUSIONS_SHOWN) {
        s.push_str(&format!("  {}: {e}\n", files.last().path.display()));
    }
    if ex.len() > EXCLUSIONS_SHOWN {
        s.push_str(&format!(
            "  ... {} more (all of them in the json format)\n",
            ex.len() - EXCLUSIONS_SHOWN
        ));
    }
    Some(s)
}

/// The report of the inter-wave attack: the panel's counts, the attack's figures, the
/// exclusions; JSON details `command`, `waves`, `spec`, `scenario`, `candidate_pool`,
/// `panel`, `exclusions`, `report`, `version`.
pub fn attack_report(files: &PanelFiles, intruder: &Intruder, report: &AttackReport) -> Report {
    let mut r = Report::new(format!(
        "intruder panel attack — {}; waves {}",
        intruder.scenario.describe(intruder.mode),
        files.files_text()
    ));
    r.figures = panel_figures(files);
    r.figures.extend(attack_figures(report));
    r.notes.extend(exclusion_note(files));
    let d = &mut r.details;
    d.insert("command".into(), json!("panel attack"));
    d.insert("waves".into(), files.files_json());
    d.insert("spec".into(), json!(files.panel.spec()));
    d.insert("scenario".into(), json!(intruder.scenario));
    d.insert("candidate_pool".into(), json!(intruder.pool));
    d.insert("panel".into(), json!(files.panel.summary()));
    d.insert("exclusions".into(), json!(files.panel.exclusions()));
    d.insert("report".into(), json!(report));
    d.insert("version".into(), json!(VERSION));
    r
}

fn rho_text(a: &Alteration) -> String {
    a.params
        .rho
        .map_or("all".to_string(), |r| format!("rho = {}", human_f64(r)))
}

/// What an alteration did (selected, swapped, synthesised, leaves, `changed` when given) and
/// its intruder's `A` and mean `p_i` before and after.
pub fn alteration_figures(a: &Alteration, changed: Option<usize>) -> Vec<Figure> {
    let p = &a.protected;
    let mut v = vec![
        count(
            "selected",
            p.selected.len(),
            "split households chosen for alteration",
        ),
        count(
            "swapped",
            p.swaps.len(),
            "of them, swapped with a nearest-propensity partner (the partner's value changes too)",
        ),
        count(
            "synthesised",
            p.draws.len(),
            "of them, given a draw from their CART leaf",
        ),
        count(
            "leaves",
            p.leaves,
            "leaves of the synthesis tree (0 without synthesis)",
        ),
    ];
    if let Some(c) = changed {
        v.push(count(
            "changed",
            c,
            "last-wave records whose sensitive value differs from the input",
        ));
    }
    v.extend([
        count(
            "A_before",
            a.before.attribute_a,
            "attribute disclosure of the intruder on the original last wave",
        ),
        count(
            "A_after",
            a.after.attribute_a,
            "the same intruder on the altered last wave",
        ),
        Figure::new(
            "mean_p_before",
            a.before.mean_p,
            Unit::Proportion,
            "mean p_i on the original",
        ),
        Figure::new(
            "mean_p_after",
            a.after.mean_p,
            Unit::Proportion,
            "mean p_i on the altered file",
        ),
    ]);
    v
}

/// What an alteration did, row by row (1-based last-wave rows): method, parameters, the
/// intruder's scenario, selected rows with their link, swap pairs, synthesis draws, leaves, and
/// the intruder before and after.
pub fn alteration_json(files: &PanelFiles, a: &Alteration) -> Value {
    let p = &a.protected;
    json!({
        "method": a.method.as_str(),
        "params": a.params,
        "scenario": a.intruder.scenario,
        "selected": p.selected.iter().map(|&r| json!({"row": r + 1, "link": files.link_text(r)})).collect::<Vec<_>>(),
        "swaps": p.swaps.iter().map(|&(s, d)| json!({"row": s + 1, "partner": d + 1})).collect::<Vec<_>>(),
        "draws": p.draws.iter().map(|&(s, f)| json!({"row": s + 1, "from": f + 1})).collect::<Vec<_>>(),
        "leaves": p.leaves,
        "before": a.before,
        "after": a.after,
    })
}

/// The log of `panel protect` (the `--log` file): [`alteration_json`] with `command`, `waves`,
/// `spec`, `out`, `changed` and `version`.
pub fn protect_log(files: &PanelFiles, a: &Alteration, out: &Path, changed: usize) -> Value {
    let mut log = alteration_json(files, a);
    if let Some(obj) = log.as_object_mut() {
        obj.insert("command".into(), json!("panel protect"));
        obj.insert("waves".into(), files.files_json());
        obj.insert("spec".into(), json!(files.panel.spec()));
        obj.insert("out".into(), json!(out.display().to_string()));
        obj.insert("changed".into(), json!(changed));
        obj.insert("version".into(), json!(VERSION));
    }
    log
}

/// The report of `panel protect`: the alteration's figures; JSON details are the log's
/// ([`protect_log`]) with the selected rows as `selected_rows` (`selected` is the count).
pub fn protect_report(files: &PanelFiles, a: &Alteration, out: &Path, changed: usize) -> Report {
    let mut r = Report::new(format!(
        "intruder panel protect — {} of {} split households ({}, {}), seed {}; wrote {}",
        rho_text(a),
        files.panel.targets().len(),
        a.method.as_str(),
        a.params.selection.as_str(),
        a.params.seed,
        out.display()
    ));
    r.figures = alteration_figures(a, Some(changed));
    r.notes.push(format!(
        "(intruder: {}, mode {})",
        a.intruder.scenario.name, a.before.mode
    ));
    if let Value::Object(log) = protect_log(files, a, out, changed) {
        for (k, v) in log {
            if k == "selected" {
                r.details.insert("selected_rows".into(), v);
            } else if r.figure(&k).is_none() {
                r.details.insert(k, v);
            }
        }
    }
    r
}

/// The report of `panel utility`: mean CI overlap and the coefficients compared (a table),
/// with the alteration's figures when it was redone in memory. `altered` is the altered file
/// when the values were read from one.
pub fn utility_report(
    files: &PanelFiles,
    altered: Option<&Path>,
    alteration: Option<&Alteration>,
    model: &InheritanceModel,
    ov: &CiOverlap,
) -> Report {
    let what = match (altered, alteration) {
        (Some(p), _) => p.display().to_string(),
        (None, Some(x)) => format!(
            "{} of {} ({}, {}), seed {}",
            rho_text(x),
            files.panel.targets().len(),
            x.method.as_str(),
            x.params.selection.as_str(),
            x.params.seed
        ),
        (None, None) => String::new(),
    };
    let mut r = Report::new(format!(
        "intruder panel utility — {} ~ wealth decile (5th = baseline) + {}; original {} vs altered {what}",
        model.response,
        model.predictors.join(" + "),
        files.last().path.display()
    ));
    r.push(Figure::new(
        "mean_overlap",
        ov.mean_overlap,
        Unit::Proportion,
        "mean 95% CI overlap over coefficients (1 = same inference; Karr et al. 2006)",
    ));
    r.push(count(
        "coefficients",
        ov.coefficients.len(),
        "coefficients compared (below)",
    ));
    if let Some(x) = alteration {
        r.figures.extend(alteration_figures(x, None));
    }
    r.tables.push(ReportTable {
        name: "ci_overlap".into(),
        title: "coefficients on the original and the altered last wave, 95% CIs and their overlap"
            .into(),
        header: [
            "coefficient",
            "original",
            "original_ci_low",
            "original_ci_high",
            "altered",
            "altered_ci_low",
            "altered_ci_high",
            "overlap",
        ]
        .map(String::from)
        .to_vec(),
        rows: ov
            .coefficients
            .iter()
            .map(|c| {
                vec![
                    json!(c.name),
                    json!(c.estimate_original),
                    json!(c.ci_original.0),
                    json!(c.ci_original.1),
                    json!(c.estimate_masked),
                    json!(c.ci_masked.0),
                    json!(c.ci_masked.1),
                    json!(c.overlap),
                ]
            })
            .collect(),
    });
    let d = &mut r.details;
    d.insert("command".into(), json!("panel utility"));
    d.insert("waves".into(), files.files_json());
    d.insert(
        "altered".into(),
        json!(altered.map(|p| p.display().to_string())),
    );
    d.insert(
        "alteration".into(),
        alteration.map_or(Value::Null, |x| alteration_json(files, x)),
    );
    d.insert("overlap".into(), json!(ov));
    d.insert("version".into(), json!(VERSION));
    r
}

/// Mean and standard deviation of `A` over the study's rows matching `f` (over seeds).
pub fn mean_a(res: &StudyResult, f: impl Fn(&StudyRow) -> bool) -> Option<(f64, f64)> {
    let v: Vec<f64> = res
        .rows
        .iter()
        .filter(|r| f(r))
        .map(|r| r.attribute_a as f64)
        .collect();
    if v.is_empty() {
        return None;
    }
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let sd = if v.len() > 1 {
        (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    Some((m, sd))
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn mean_cell(x: Option<(f64, f64)>) -> Value {
    x.map_or(Value::Null, |(m, _)| json!(m))
}

fn baseline_table(res: &StudyResult) -> ReportTable {
    let b = &res.baseline;
    let pick = |name: &str| b.iter().find(|r| r.scenario == name);
    let mut rows: Vec<Vec<Value>> = Vec::new();
    if let Some(r) = b.first() {
        rows.push(vec![
            json!("household among the matches"),
            json!(published::FOUND),
            json!(r.found),
        ]);
    }
    for (name, (u, le, a)) in [("scenario 1", published::S1), ("scenario 2", published::S2)] {
        if let Some(r) = pick(name) {
            rows.push(vec![
                json!(format!("{name}: c_i = 1 / c_i <= 2")),
                json!(format!("{u} / {le}")),
                json!(format!("{} / {}", r.unique_correct, r.le2_correct)),
            ]);
            rows.push(vec![
                json!(format!("{name}: A")),
                json!(a),
                json!(r.attribute_a),
            ]);
        }
    }
    if let Some(r) = pick("links") {
        rows.push(vec![
            json!("links released: A"),
            json!(published::LINKS_A),
            json!(r.attribute_a),
        ]);
    }
    ReportTable {
        name: "baseline".into(),
        title: "Baseline (§3.1): the attack on the original data, beside the published WAS figures"
            .into(),
        header: strings(&["figure", "published", "here"]),
        rows,
    }
}

/// Mitra's whole study as a report: the baseline beside the published WAS figures, Figs. 4–6
/// (mean `A` over the seeds), Table 1 (with the published values in parentheses) and the
/// utility comparison; JSON details `command`, `waves`, `result` (every run), `published`,
/// `version`.
pub fn study_report(files: &PanelFiles, res: &StudyResult) -> Report {
    let seeds = res.params.seeds.len();
    let mut r = Report::new(format!(
        "intruder panel study — Mitra et al. (2020) on {}: {} targets, seeds {}",
        files.files_text(),
        files.panel.targets().len(),
        res.params
            .seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    ));
    r.push(count(
        "targets",
        files.panel.targets().len(),
        "split records attacked",
    ));
    r.push(count(
        "seeds",
        seeds,
        "protection seeds; the tables show means over them",
    ));
    r.push(count(
        "runs",
        res.rows.len(),
        "altered releases scored (every seed, figure and attack)",
    ));
    r.tables.push(baseline_table(res));
    let rhos = &res.params.rhos;
    let names: Vec<String> = res
        .params
        .scenarios
        .iter()
        .map(|x| x.name.clone())
        .collect();
    for (fig, method, what) in [
        ("fig4", "swap", "Fig. 4 (swapping a proportion rho)"),
        ("fig5", "synth", "Fig. 5 (synthesising a proportion rho)"),
    ] {
        let mut header = vec!["rho".to_string()];
        for n in &names {
            header.push(format!("{n} targeted"));
            header.push(format!("{n} random"));
        }
        let rows = rhos
            .iter()
            .map(|&rho| {
                let mut row = vec![json!(rho)];
                for n in &names {
                    for sel in ["targeted", "random"] {
                        row.push(mean_cell(mean_a(res, |x| {
                            x.figure == fig
                                && x.method == method
                                && &x.scenario == n
                                && x.selection == sel
                                && x.rho == Some(rho)
                        })));
                    }
                }
                row
            })
            .collect();
        r.tables.push(ReportTable {
            name: fig.into(),
            title: format!(
                "{what}: A, mean over {seeds} seed(s); the paper plots these (no published numbers)"
            ),
            header,
            rows,
        });
    }
    if !res.params.shares.is_empty() {
        let mut header = vec!["rho".to_string()];
        for n in &names {
            for sh in &res.params.shares {
                header.push(format!("{n} {}", human_f64(*sh)));
            }
        }
        let rows = rhos
            .iter()
            .map(|&rho| {
                let mut row = vec![json!(rho)];
                for n in &names {
                    for &sh in &res.params.shares {
                        row.push(mean_cell(mean_a(res, |x| {
                            x.figure == "fig6"
                                && &x.scenario == n
                                && x.rho == Some(rho)
                                && x.swap_share == sh
                        })));
                    }
                }
                row
            })
            .collect();
        r.tables.push(ReportTable {
            name: "fig6".into(),
            title: format!(
                "Fig. 6 (mixtures, targeted): A, mean over {seeds} seed(s); columns = share swapped"
            ),
            header,
            rows,
        });
    }
    r.tables.push(table1(res, &names));
    if !res.utility.is_empty() {
        r.tables.push(ReportTable {
            name: "utility".into(),
            title:
                "Utility (Fig. 7): inheritance model, 95% CI overlap, every split household altered"
                    .into(),
            header: strings(&["alteration", "mean overlap", "lowest"]),
            rows: res
                .utility
                .iter()
                .map(|u| {
                    let low = u
                        .overlap
                        .coefficients
                        .iter()
                        .min_by(|a, b| a.overlap.total_cmp(&b.overlap))
                        .map_or("–".to_string(), |c| {
                            format!("{} {:.3}", c.name, c.overlap)
                        });
                    vec![
                        json!(format!("{} (seed {})", u.method, u.seed)),
                        json!(u.overlap.mean_overlap),
                        json!(low),
                    ]
                })
                .collect(),
        });
    }
    if !res.exclusions.is_empty() {
        r.notes.push(format!(
            "{} split record(s) excluded; see the json format",
            res.exclusions.len()
        ));
    }
    let d = &mut r.details;
    d.insert("command".into(), json!("panel study"));
    d.insert("waves".into(), files.files_json());
    d.insert("result".into(), json!(res));
    d.insert("published".into(), published::json());
    d.insert("version".into(), json!(VERSION));
    r
}

/// Table 1: mean `A` after altering every split household, the published value in parentheses
/// where there is one (Mitra's two scenarios and the links).
fn table1(res: &StudyResult, names: &[String]) -> ReportTable {
    let mut cols: Vec<String> = names.to_vec();
    cols.push("links".into());
    let mut header = vec!["method".to_string()];
    header.extend(cols.iter().cloned());
    let mut rows = Vec::new();
    for (method, label, pubs) in [
        ("swap", "swapping", published::TABLE1_SWAP),
        ("synth", "synthesis", published::TABLE1_SYNTH),
    ] {
        let mut row = vec![json!(label)];
        for (k, c) in cols.iter().enumerate() {
            let m = mean_a(res, |x| {
                x.figure == "table1" && x.method == method && &x.scenario == c
            })
            .map_or("–".to_string(), |(m, _)| format!("{m:.1}"));
            let p = if c == "links" {
                Some(pubs[2])
            } else if c == "scenario 1" || c == "scenario 2" {
                pubs.get(k).copied()
            } else {
                None
            };
            row.push(json!(match p {
                Some(p) => format!("{m} ({p})"),
                None => m,
            }));
        }
        rows.push(row);
    }
    ReportTable {
        name: "table1".into(),
        title: format!(
            "Table 1 (every split household altered): A, mean over {} seed(s) (published in parentheses)",
            res.params.seeds.len()
        ),
        header,
        rows,
    }
}
