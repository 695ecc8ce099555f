//! Times reading one data file (CSV, gzip, Parquet or Arrow, told by its first bytes) into a
//! table. Prints one JSON object: best wall time of N reads and the CPU seconds of that read.
//!
//! `RAYON_NUM_THREADS=2 target/release/read_timings FILE [--repeat N] [--reference]`
//!
//! `--reference` reads CSV with the one-pass reader the parallel one replaced (one thread).

use std::time::Instant;

use anyhow::{Context, Result};
use intruder_data::{ReadOptions, read_csv, reference};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let file = args
        .get(1)
        .context("usage: read_timings FILE [--repeat N] [--reference]")?;
    let repeat: usize = args
        .iter()
        .position(|a| a == "--repeat")
        .and_then(|i| args.get(i + 1))
        .map(|r| r.parse())
        .transpose()?
        .unwrap_or(1)
        .max(1);
    let one_pass = args.iter().any(|a| a == "--reference");
    let cpu = || intruder_benches::process_cpu_seconds().unwrap_or(f64::NAN);
    let opts = ReadOptions::default();
    let mut best = (f64::INFINITY, f64::NAN);
    let mut shape = (0, 0);
    for _ in 0..repeat {
        let (t, c) = (Instant::now(), cpu());
        let ds = if one_pass {
            let f = std::fs::File::open(file)?;
            reference::read_csv_from(
                std::io::BufReader::with_capacity(1 << 20, f),
                file.as_ref(),
                &opts,
            )?
        } else {
            read_csv(file.as_ref(), &opts)?
        };
        let wall = t.elapsed().as_secs_f64();
        if wall < best.0 {
            best = (wall, cpu() - c);
        }
        shape = (ds.table.nrows(), ds.table.ncols());
        drop(ds);
    }
    println!(
        "{}",
        serde_json::json!({
            "file": file,
            "reader": if one_pass { "one-pass (reference)" } else { "parallel" },
            "threads": if one_pass { 1 } else { rayon_threads() },
            "read_s": best.0,
            "read_cpu_s": best.1,
            "repeat": repeat,
            "rows": shape.0,
            "columns": shape.1,
        })
    );
    Ok(())
}

fn rayon_threads() -> usize {
    std::env::var("RAYON_NUM_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
