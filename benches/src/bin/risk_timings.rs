//! Times the steps of `intruder risk` on one file: CSV loading, listwise class counting,
//! as-value counting and wildcard n_match, each separately. Prints one JSON object.
//!
//! `cargo run --release -p intruder-benches --bin risk_timings -- FILE key1,key2,... [--skip-wildcard] [--repeat N]`
//!
//! Counting steps report the best of N runs (default 1); loading and n_match run once.

use std::time::Instant;

use anyhow::{Context, Result};
use intruder_data::{ReadOptions, Role, read_csv};
use intruder_risk::{MissingPolicy, SetMatch, equivalence_classes, n_match};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let file = args
        .get(1)
        .context("usage: risk_timings FILE KEYS [--skip-wildcard]")?;
    let keys: Vec<String> = args
        .get(2)
        .context("missing KEYS")?
        .split(',')
        .map(str::to_string)
        .collect();
    let skip_wildcard = args.iter().any(|a| a == "--skip-wildcard");
    let repeat: usize = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|i| args.get(i + 1))
        .map(|r| r.parse())
        .transpose()?
        .unwrap_or(1)
        .max(1);
    // Best of `repeat` runs of a step: wall seconds and the CPU seconds of that run.
    let cpu = || intruder_benches::process_cpu_seconds().unwrap_or(f64::NAN);
    let best = |f: &dyn Fn() -> Result<()>| -> Result<(f64, f64)> {
        let mut b = (f64::INFINITY, f64::NAN);
        for _ in 0..repeat {
            let (t, c) = (Instant::now(), cpu());
            f()?;
            let wall = t.elapsed().as_secs_f64();
            if wall < b.0 {
                b = (wall, cpu() - c);
            }
        }
        Ok(b)
    };

    let (t, c) = (Instant::now(), cpu());
    let opts = ReadOptions::default().with_role(&keys, Role::Key);
    let ds = read_csv(file.as_ref(), &opts)?;
    let load = t.elapsed().as_secs_f64();
    let load_cpu = cpu() - c;

    let listwise =
        equivalence_classes(&ds.table, &keys, MissingPolicy::Listwise, SetMatch::Overlap)?;
    let listwise_s = best(&|| {
        equivalence_classes(&ds.table, &keys, MissingPolicy::Listwise, SetMatch::Overlap)?;
        Ok(())
    })?;
    let as_value =
        equivalence_classes(&ds.table, &keys, MissingPolicy::AsValue, SetMatch::Overlap)?;
    let as_value_s = best(&|| {
        equivalence_classes(&ds.table, &keys, MissingPolicy::AsValue, SetMatch::Overlap)?;
        Ok(())
    })?;

    let (wild, n_match_1) = if skip_wildcard {
        (None, None)
    } else {
        let (t, c) = (Instant::now(), cpu());
        let nm = n_match(&ds.table, &keys, SetMatch::Overlap, None)?;
        (
            Some((t.elapsed().as_secs_f64(), cpu() - c)),
            Some(nm.n_match.iter().filter(|&&m| m == 1).count()),
        )
    };
    let uniques = (0..ds.table.nrows())
        .filter(|&i| listwise.k(i) == Some(1))
        .count();
    let out = serde_json::json!({
        "rows": ds.table.nrows(),
        "keys": keys.len(),
        "threads": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "load_s": load,
        "load_cpu_s": load_cpu,
        "listwise_s": listwise_s.0,
        "listwise_cpu_s": listwise_s.1,
        "listwise_classes": listwise.sizes.len(),
        "listwise_uniques": uniques,
        "listwise_deleted": listwise.n_deleted,
        "as_value_s": as_value_s.0,
        "as_value_cpu_s": as_value_s.1,
        "as_value_classes": as_value.sizes.len(),
        "wildcard_s": wild.map(|w| w.0),
        "wildcard_cpu_s": wild.map(|w| w.1),
        "wildcard_n_match_1": n_match_1,
        "peak_rss_bytes": intruder_benches::peak_rss_bytes(),
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
