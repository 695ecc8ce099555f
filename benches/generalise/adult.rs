//! intruder's `generalise` on ARX's `adult` data and hierarchies, printed as ArxAdult.java prints
//! ARX's runs: one JSON line per (metric, k) with the optimum's levels, score, suppressed records,
//! nodes checked and the time of the masking step (the search and writing the masked table; the
//! CSV is read before the clock starts), best of `repeats` after `warmup` untimed runs.
//!
//! Usage: generalise_adult DATA.csv HIERARCHY_DIR K,... METRIC,... LIMIT WARMUP REPEATS [heuristic:N]
//!
//! With `heuristic:N` the search is the heuristic one (`search = "heuristic"`, `budget = N`
//! checked transformations), as `ArxAdult ... lightning:N` runs ARX's Lightning.
use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use intruder_data::{Input, load};
use intruder_defence::Pipeline;
use rand::SeedableRng;

const ATTRIBUTES: [&str; 9] = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
];

fn main() -> Result<()> {
    let a: Vec<String> = std::env::args().collect();
    anyhow::ensure!(
        a.len() == 8 || a.len() == 9,
        "usage: generalise_adult DATA.csv HIERARCHY_DIR K,... METRIC,... LIMIT WARMUP REPEATS [heuristic:N]"
    );
    let heuristic = match a.get(8) {
        None => String::new(),
        Some(h) => {
            let n: u64 = h
                .strip_prefix("heuristic:")
                .context("the optional last argument is heuristic:N")?
                .parse()
                .context("heuristic:N takes a whole number of checks")?;
            format!("search = \"heuristic\"\nbudget = {n}\n")
        }
    };
    let input = Input {
        delimiter: Some(b';'),
        ..Input::default()
    };
    let table = load(Path::new(&a[1]), &input)
        .with_context(|| format!("reading {}", a[1]))?
        .table;
    let dir = Path::new(&a[2]);
    let (warmup, repeats): (usize, usize) = (a[6].parse()?, a[7].parse()?);
    for metric in a[4].split(',') {
        for k in a[3].split(',') {
            let hierarchies: Vec<String> = ATTRIBUTES
                .iter()
                .map(|c| format!("\"{c}\" = \"{}\"", dir.join(format!("{c}.csv")).display()))
                .collect();
            let params: toml::Table = format!(
                "hierarchies = {{ {} }}\nk = {k}\nsuppression_limit = {}\nmetric = \"{metric}\"\nprotect_against = \"listwise\"\n{heuristic}",
                hierarchies.join(", "),
                a[5]
            )
            .parse()?;
            let p = Pipeline::single("generalise", params, "generalise_adult")?;
            let defence = &p.steps[0].defence;
            let mut best = f64::INFINITY;
            let mut details = serde_json::Value::Null;
            for run in 0..warmup + repeats {
                let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(0);
                let t0 = Instant::now();
                let masked = defence.apply(&table, &mut rng)?;
                let t = t0.elapsed().as_secs_f64();
                if run >= warmup {
                    best = best.min(t);
                }
                details = masked.details.unwrap_or_default();
            }
            let out = serde_json::json!({
                "tool": "intruder",
                "version": env!("CARGO_PKG_VERSION"),
                "metric": metric,
                "k": k.parse::<u32>()?,
                "suppression_limit": a[5].parse::<f64>()?,
                "levels": details["levels"],
                "score": details["score"],
                "score_per_attribute": details["score_per_key"],
                "suppressed": details["suppressed"],
                "rows": details["rows"],
                "nodes_checked": details["nodes_checked"],
                "optimal": details["optimal"],
                "seconds": best,
                "runs_timed": repeats,
            });
            println!("{out}");
        }
    }
    Ok(())
}
