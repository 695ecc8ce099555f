//! The lattice searches of the masking steps that search (generalise, issue 35): for each
//! setting, from its first replicate, the Pareto frontier of the quality score against the
//! attacks' rates over the lattice nodes the search scored — a table (every node, its levels,
//! score, suppressed records and rates; the chosen one marked) and a figure (score against the
//! exact attack's listwise rate, the chosen node apart).

use intruder_data::report::Unit;
use serde_json::Value;

use crate::plan::Plan;
use crate::plot::{MapPoint, map_plot};
use crate::record::{RunRecord, SearchRecord};
use crate::stats::{Stat, fmt, fmt_unit};
use crate::table::TableData;

/// The rate the figure puts on its vertical axis: the exact attack by an intruder who knows
/// every original record, blanks not matching (the cross-examination's listwise rule).
const Y_RATE: &str = "exact listwise";

/// One frontier node: its levels (in the keys' order), score, suppressed records and rates.
struct Node {
    levels: Vec<i64>,
    score: f64,
    suppressed: Option<u64>,
    /// Each attack's rate; `None` where the search reported none (no target to attack).
    rates: Vec<(String, Option<f64>)>,
}

fn node(v: &Value, keys: &[String]) -> Option<Node> {
    let levels = v.get("levels")?.as_object()?;
    Some(Node {
        levels: keys
            .iter()
            .map(|k| levels.get(k).and_then(Value::as_i64))
            .collect::<Option<_>>()?,
        score: v.get("score")?.as_f64()?,
        suppressed: v.get("suppressed").and_then(Value::as_u64),
        rates: v
            .get("rates")?
            .as_object()?
            .iter()
            .map(|(k, x)| (k.clone(), x.as_f64()))
            .collect(),
    })
}

/// One search's frontier.
struct Frontier {
    /// The keys, in the chosen levels' order.
    keys: Vec<String>,
    /// The quality model's name.
    metric: String,
    /// The levels chosen.
    chosen: Vec<i64>,
    /// The frontier's nodes, by score.
    nodes: Vec<Node>,
}

/// One search's frontier; `None` when the details are not a search's.
fn frontier(s: &SearchRecord) -> Option<Frontier> {
    let chosen = s.details.get("levels")?.as_object()?;
    let keys: Vec<String> = chosen.keys().cloned().collect();
    let chosen_levels: Vec<i64> = keys
        .iter()
        .map(|k| chosen.get(k).and_then(Value::as_i64))
        .collect::<Option<_>>()?;
    let metric = s.details.get("metric")?.as_str()?.to_string();
    let nodes = s
        .details
        .get("frontier")?
        .as_array()?
        .iter()
        .map(|v| node(v, &keys))
        .collect::<Option<Vec<_>>>()?;
    Some(Frontier {
        keys,
        metric,
        chosen: chosen_levels,
        nodes,
    })
}

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
            let Some(Frontier {
                keys,
                metric,
                chosen,
                nodes,
            }) = frontier(s)
            else {
                continue;
            };
            let title = format!(
                "Generalisation frontier: {}, step {} ({}), replicate {}",
                setting.label,
                s.step,
                s.method,
                rec.replicate + 1
            );
            tables.push(table(&title, &keys, &metric, &chosen, &nodes));
            if let Some(f) = figure(&title, si, s.step, &keys, &metric, &chosen, &nodes) {
                figures.push(f);
            }
        }
    }
    (tables, figures)
}

fn table(title: &str, keys: &[String], metric: &str, chosen: &[i64], nodes: &[Node]) -> TableData {
    let rate_names: Vec<String> = nodes
        .first()
        .map(|n| n.rates.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default();
    let mut header: Vec<String> = vec!["chosen".into()];
    header.extend(keys.iter().map(|k| format!("level of {k}")));
    header.push(format!("{metric} score"));
    header.push("records suppressed".into());
    header.extend(rate_names.iter().map(|r| format!("{r} rate")));
    let rows = nodes
        .iter()
        .map(|n| {
            let mut row = vec![if n.levels == chosen {
                "yes".into()
            } else {
                String::new()
            }];
            row.extend(n.levels.iter().map(|l| l.to_string()));
            row.push(fmt(n.score));
            row.push(n.suppressed.map_or("–".into(), |x| x.to_string()));
            for r in &rate_names {
                let x = n.rates.iter().find(|(k, _)| k == r).and_then(|(_, x)| *x);
                row.push(x.map_or("–".into(), |x| fmt_unit(x, Unit::Proportion)));
            }
            row
        })
        .collect();
    TableData {
        title: format!(
            "{title}: the nodes no other scored node beats on the score and every rate (levels: 0 = the original values)"
        ),
        header,
        rows,
    }
}

fn figure(
    title: &str,
    setting: usize,
    step: usize,
    keys: &[String],
    metric: &str,
    chosen: &[i64],
    nodes: &[Node],
) -> Option<(String, String, String)> {
    let points: Vec<(String, &str, Stat, Stat)> = nodes
        .iter()
        .filter_map(|n| {
            let y = n.rates.iter().find(|(k, _)| k == Y_RATE)?.1?;
            let label = n
                .levels
                .iter()
                .map(|l| l.to_string())
                .collect::<Vec<_>>()
                .join(",");
            let group = if n.levels == chosen {
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
        "{title}: the {metric} score of each frontier node against the exact attack's rate (an intruder who knows every original record; blanks do not match); points labelled with the levels of {}; grey line: the nodes no other beats on both",
        keys.join(", ")
    );
    let f = map_plot(
        format!("frontier-{}-step{step}.svg", setting + 1),
        caption,
        title.to_string(),
        (format!("{metric} score"), Unit::Score),
        (
            "exact attack, listwise (all known)".into(),
            Unit::Proportion,
        ),
        &pts,
    );
    Some((f.file.clone(), f.caption.clone(), f.svg()))
}
