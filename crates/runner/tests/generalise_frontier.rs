//! Issue 35 in an experiment file: a generalisation step's lattice search is kept with each run
//! (the levels chosen, their score, the Pareto frontier of score against the attacks' rates)
//! and the report shows the frontier as a table and a figure per setting.

use intruder_runner::{Experiment, RunOptions, load_runs, run_experiment};
use serde_json::Value;

const EXPERIMENT: &str = r#"
name = "frontier"
seed = 35
replicates = 2
[data]
generator = "survey-panel"
n = 600
released = "survey-panel.csv"
truth = "person_id"
[scenario]
keys = ["year_of_birth", "children"]
known = 0.5
[[defence]]
name = "none"
[[defence]]
name = "generalise"
[[defence.step]]
method = "generalise"
k = 5
suppression_limit = 0.02
metric = "loss"
hierarchies = { year_of_birth = { interval = [5, 10, 20] }, children = { interval = [2, 4] } }
[[attack]]
method = "exact"
"#;

/// (levels, score, the rates) of a frontier node.
fn node(v: &Value) -> (Vec<i64>, f64, Vec<f64>) {
    let levels = ["year_of_birth", "children"]
        .iter()
        .map(|k| v["levels"][k].as_i64().unwrap())
        .collect();
    let rates = v["rates"]
        .as_object()
        .unwrap()
        .values()
        .map(|x| x.as_f64().unwrap())
        .collect();
    (levels, v["score"].as_f64().unwrap(), rates)
}

#[test]
fn the_search_is_kept_with_each_run_and_its_frontier_reported() {
    let exp = Experiment::from_toml(EXPERIMENT, "f.toml".as_ref()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let done = run_experiment(
        &exp,
        &RunOptions {
            out: Some(dir.path().to_path_buf()),
            ..Default::default()
        },
    )
    .unwrap();
    let runs = load_runs(&done.plan, dir.path()).unwrap();
    for (run, rec) in done.plan.runs.iter().zip(&runs) {
        let setting = &done.plan.settings[run.setting];
        if setting.steps.is_empty() {
            assert!(rec.searches.is_empty());
            continue;
        }
        // One search, step 1, with the levels chosen and a frontier holding them.
        assert_eq!(rec.searches.len(), 1);
        let s = &rec.searches[0];
        assert_eq!((s.step, s.method.as_str()), (1, "generalise"));
        let chosen: Vec<i64> = ["year_of_birth", "children"]
            .iter()
            .map(|k| s.details["levels"][k].as_i64().unwrap())
            .collect();
        let frontier: Vec<_> = s.details["frontier"]
            .as_array()
            .unwrap()
            .iter()
            .map(node)
            .collect();
        assert!(!frontier.is_empty());
        // The optimum has the least score of the nodes that meet the model, so it is on the
        // frontier, first (the frontier is sorted by score).
        assert_eq!(frontier[0].0, chosen);
        assert_eq!(frontier[0].1, s.details["score"].as_f64().unwrap());
        // No node of the frontier beats another on the score and every rate.
        for (i, a) in frontier.iter().enumerate() {
            for (j, b) in frontier.iter().enumerate() {
                let le = b.1 <= a.1 && b.2.iter().zip(&a.2).all(|(x, y)| x <= y);
                let lt = b.1 < a.1 || b.2.iter().zip(&a.2).any(|(x, y)| x < y);
                assert!(i == j || !(le && lt), "{b:?} beats {a:?}");
            }
        }
    }
    // The report: the table of the first replicate's frontier, the chosen row marked, and the
    // figure with the chosen levels as a point's label.
    let first = done
        .plan
        .runs
        .iter()
        .zip(&runs)
        .find(|(r, _)| r.setting == 1 && r.replicate == 0)
        .unwrap()
        .1;
    let details = &first.searches[0].details;
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    let title = "Generalisation frontier: generalise, step 1 (generalise), replicate 1";
    assert!(html.contains(&format!("<caption>{title}: the nodes no other")));
    let rows = html.split(&format!("<caption>{title}")).nth(1).unwrap();
    let rows = &rows[..rows.find("</table>").unwrap()];
    let n = details["frontier"].as_array().unwrap().len();
    assert_eq!(rows.matches("<tr>").count(), n + 1, "{rows}");
    assert_eq!(rows.matches("<td>yes</td>").count(), 1, "{rows}");
    let label = format!(
        "({},{})",
        details["levels"]["year_of_birth"], details["levels"]["children"]
    );
    let svg = std::fs::read_to_string(dir.path().join("frontier-2-step1.svg")).unwrap();
    assert!(svg.contains(&label), "{label} not in the figure");
    // A node is one value, without an interval: the legend names none, while the risk–utility
    // map of two replicates has them.
    assert!(!svg.contains("95% interval"));
    let map = std::fs::read_to_string(dir.path().join("risk-utility.svg")).unwrap();
    assert!(map.contains("95% interval"));
    assert!(html.contains(&label));
}
