//! The lattice searches of the masking steps that search (generalise, issue 35): for each
//! setting, from its first replicate, the Pareto frontier of the quality score against the
//! attacks' rates over the lattice nodes the search scored — a table (every node, its levels,
//! score, suppressed records and rates; the chosen one marked) and a figure (score against the
//! exact attack's listwise rate, the chosen node apart). The frontier is read by the facade
//! ([`intruder::frontier::Frontier`]), as `intruder mask` reads it.

use intruder::frontier::Frontier;
use intruder_data::report::Unit;
use serde_json::Value;

use crate::plan::Plan;
use crate::plot::{MapPoint, map_plot};
use crate::record::RunRecord;
use crate::stats::{Stat, fmt, fmt_unit};
use crate::table::TableData;

/// The rate the figure puts on its vertical axis: the exact attack by an intruder who knows
/// every original record, blanks not matching (the cross-examination's listwise rule).
const Y_RATE: &str = "exact listwise";

/// The frontier tables and figures of every setting whose masking searched, in plan order.
pub(crate) fn report_parts(
    plan: &Plan,
    runs: &[RunRecord],
) -> (Vec<TableData>, Vec<(String, String, String)>) {
    let (mut tables, mut figures) = (Vec::new(), Vec::new());
    for (si, setting) in plan.settings.iter().enumerate() {
        let Some(rec) = plan
            .runs
            .iter()
            .zip(runs)
            .filter(|(r, _)| r.setting == si)
            .min_by_key(|(r, _)| r.replicate)
            .map(|(_, rec)| rec)
        else {
            continue;
        };
        for s in &rec.searches {
            let Some(f) = Frontier::of(&s.details) else {
                continue;
            };
            let title = format!(
                "Generalisation frontier: {}, step {} ({}), replicate {}",
                setting.label,
                s.step,
                s.method,
                rec.replicate + 1
            );
            tables.push(table(&title, &f));
            if let Some(svg) = figure(&title, si, s.step, &f) {
                figures.push(svg);
            }
        }
    }
    (tables, figures)
}

fn table(title: &str, f: &Frontier) -> TableData {
    // The columns after the levels: the score, the records suppressed, then the rates.
    let first_rate = 1 + f.keys.len() + 2;
    let rows = f
        .rows()
        .into_iter()
        .map(|row| {
            row.into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Value::Null => "–".into(),
                    Value::String(s) => s,
                    v if i == first_rate - 2 => v.as_f64().map_or(v.to_string(), fmt),
                    v if i >= first_rate => v
                        .as_f64()
                        .map_or(v.to_string(), |x| fmt_unit(x, Unit::Proportion)),
                    v => v.to_string(),
                })
                .collect()
        })
        .collect();
    TableData {
        title: format!("{title}: {}", Frontier::TITLE),
        header: f.header(),
        rows,
    }
}

fn figure(
    title: &str,
    setting: usize,
    step: usize,
    f: &Frontier,
) -> Option<(String, String, String)> {
    let points: Vec<(String, &str, Stat, Stat)> = f
        .nodes
        .iter()
        .filter_map(|n| {
            let y = n.rates.iter().find(|(k, _)| k == Y_RATE)?.1?;
            let label = n
                .levels
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(",");
            let group = if n.levels == f.chosen {
                "the chosen levels"
            } else {
                "another frontier node"
            };
            Some((
                format!("({label})"),
                group,
                Stat::new(vec![n.score]),
                Stat::new(vec![y]),
            ))
        })
        .collect();
    if points.is_empty() {
        return None;
    }
    let pts: Vec<MapPoint> = points
        .iter()
        .map(|(label, group, loss, risk)| MapPoint {
            label: label.clone(),
            group: group.to_string(),
            loss,
            risk,
        })
        .collect();
    let caption = format!(
        "{title}: the {} score of each frontier node against the exact attack's rate (an intruder who knows every original record; blanks do not match); points labelled with the levels of {}; grey line: the nodes no other beats on both",
        f.metric,
        f.keys.join(", ")
    );
    let fig = map_plot(
        format!("frontier-{}-step{step}.svg", setting + 1),
        caption,
        title.to_string(),
        (format!("{} score", f.metric), Unit::Score),
        (
            "exact attack, listwise (all known)".into(),
            Unit::Proportion,
        ),
        &pts,
    );
    Some((fig.file.clone(), fig.caption.clone(), fig.svg()))
}
