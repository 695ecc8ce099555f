//! Individual, household and population-uniqueness risk at scale: loads one file, adds a
//! seeded design-weight column and a household column when the file has none, and times
//! `assess` (weighted individual risk as sdcMicro's indivRisk, household risk) and
//! `population_uniqueness` (Zayatz, Pitman, SNB, Dankar's rule, log-linear τ). Prints one JSON
//! object.
//!
//! `cargo run --release -p intruder-benches --bin risk_at_scale -- FILE key1,key2,... [--household-size H] [--seed S] [--fraction F] [--repeat N]`
//!
//! Weights: w_i = (1 + (x_i mod 199)) / F̄ rescaled so that Σw = n/F (default F = 0.1), with x_i
//! from a SplitMix64 stream seeded by `--seed` (default 1). Households: consecutive runs of H
//! records (default 3).

use std::time::Instant;

use anyhow::{Context, Result};
use intruder_data::{Column, ReadOptions, Role, read_csv};
use intruder_risk::{PopulationParams, RiskParams, assess, population_uniqueness};

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let file = args
        .get(1)
        .context("usage: risk_at_scale FILE KEYS [--household-size H]")?;
    let keys: Vec<String> = args
        .get(2)
        .context("missing KEYS")?
        .split(',')
        .map(str::to_string)
        .collect();
    let opt = |name: &str| -> Option<&String> {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let h: usize = opt("--household-size")
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(3);
    let seed: u64 = opt("--seed").map(|s| s.parse()).transpose()?.unwrap_or(1);
    let fraction: f64 = opt("--fraction")
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(0.1);
    let repeat: usize = opt("--repeat").map(|s| s.parse()).transpose()?.unwrap_or(1);

    let t0 = Instant::now();
    let mut ds = read_csv(
        file.as_ref(),
        &ReadOptions::default().with_role(&keys, Role::Key),
    )?;
    let load = t0.elapsed().as_secs_f64();
    let n = ds.table.nrows();
    let mut state = seed;
    let raw: Vec<f64> = (0..n)
        .map(|_| 1.0 + (splitmix(&mut state) % 199) as f64)
        .collect();
    let scale = n as f64 / fraction / raw.iter().sum::<f64>();
    let w: Vec<Option<f64>> = raw.iter().map(|x| Some(x * scale)).collect();
    let hh: Vec<Option<i64>> = (0..n).map(|i| Some((i / h.max(1)) as i64)).collect();
    ds.table
        .push(Column::float("bench_weight", Role::Weight, &w))?;
    ds.table
        .push(Column::integer("bench_household", Role::Group, &hh))?;

    let mut p = RiskParams::new(keys.clone());
    p.weight = Some("bench_weight".into());
    p.group = Some("bench_household".into());
    let mut best_assess = f64::INFINITY;
    let mut a = None;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        a = Some(assess(&ds.table, &p)?);
        best_assess = best_assess.min(t.elapsed().as_secs_f64());
    }
    let a = a.context("no run")?;
    let mut pp = PopulationParams::new(keys.clone());
    pp.weight = Some("bench_weight".into());
    let mut best_pop = f64::INFINITY;
    let mut pr = None;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        pr = Some(population_uniqueness(&ds.table, &pp)?);
        best_pop = best_pop.min(t.elapsed().as_secs_f64());
    }
    let pr = pr.context("no run")?;
    let s = a.summary.to_json();
    let v = serde_json::json!({
        "file": file,
        "records": n,
        "keys": keys.len(),
        "household_size": h,
        "load_s": load,
        "assess_weighted_household_s": best_assess,
        "population_estimators_s": best_pop,
        "sample_uniques": s["sample_uniques"],
        "expected_reidentifications": s["expected_reidentifications"],
        "household_expected_reidentifications": s["household_expected_reidentifications"],
        "population": pr.to_json(),
        "peak_rss_mb": intruder_benches::peak_rss_bytes().map(|b| b as f64 / 1e6),
    });
    println!("{}", serde_json::to_string_pretty(&v)?);
    Ok(())
}
