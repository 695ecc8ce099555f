//! Times SUDA2 on one file: CSV loading and the MSU search with scoring, separately. Prints one
//! JSON object with the timings and a digest of the result (MSU counts by size, the sum of the
//! scores), so two runs — or two tools — can be compared.
//!
//! `cargo run --release -p intruder-benches --bin suda_timings -- FILE key1,key2,... [--max-msu-size M] [--repeat N] [--scores OUT.csv]`
//!
//! The search reports the best of N runs (default 1). `--scores` writes row, score, dis_score.

use std::io::Write;
use std::time::Instant;

use anyhow::{Context, Result};
use intruder_data::{ReadOptions, Role, read_csv};
use intruder_risk::{Suda2Params, suda2};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let file = args
        .get(1)
        .context("usage: suda_timings FILE KEYS [--max-msu-size M] [--repeat N]")?;
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
    let repeat: usize = opt("--repeat").map(|r| r.parse()).transpose()?.unwrap_or(1);
    let max: Option<usize> = opt("--max-msu-size").map(|r| r.parse()).transpose()?;

    let t0 = Instant::now();
    let ds = read_csv(
        file.as_ref(),
        &ReadOptions::default().with_role(&keys, Role::Key),
    )?;
    let load = t0.elapsed().as_secs_f64();
    let mut params = Suda2Params::new(keys.clone());
    params.max_msu_size = max;
    let mut best = f64::INFINITY;
    let mut result = None;
    for _ in 0..repeat.max(1) {
        let t = Instant::now();
        let r = suda2(&ds.table, &params)?;
        best = best.min(t.elapsed().as_secs_f64());
        result = Some(r);
    }
    let r = result.context("no run")?;
    let total: f64 = r.score.iter().flatten().sum();
    let max_score = r.score.iter().flatten().fold(0.0f64, |a, &b| a.max(b));
    let scored = r.score.iter().flatten().filter(|&&s| s > 0.0).count();
    if let Some(out) = opt("--scores") {
        let mut w = std::io::BufWriter::new(std::fs::File::create(out)?);
        writeln!(w, "row,score,dis_score")?;
        for (i, (s, d)) in r.score.iter().zip(&r.dis_score).enumerate() {
            writeln!(
                w,
                "{},{},{}",
                i + 1,
                s.map(|x| x.to_string()).unwrap_or_default(),
                d.map(|x| x.to_string()).unwrap_or_default()
            )?;
        }
    }
    let v = serde_json::json!({
        "file": file,
        "records": ds.table.nrows(),
        "keys": keys.len(),
        "max_msu_size": r.max_msu_size,
        "threads": rayon_threads(),
        "load_s": load,
        "suda2_s": best,
        "sample_uniques": r.sample_uniques,
        "msus": r.msu_count(),
        "msus_by_size": r.msus_by_size,
        "records_with_score": scored,
        "score_sum": total,
        "score_max": max_score,
        "key_contributions": r.key_contributions,
        "peak_rss_mb": intruder_benches::peak_rss_bytes().map(|b| b as f64 / 1e6),
    });
    println!("{}", serde_json::to_string_pretty(&v)?);
    Ok(())
}

fn rayon_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
