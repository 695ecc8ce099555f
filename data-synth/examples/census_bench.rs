//! Benchmark: stream a census population to disk.
//!
//! ```text
//! /usr/bin/time -v cargo run --release -p intruder-synth --example census_bench -- \
//!     10000000 20 /tmp/census-bench
//! ```
//! Arguments: rows (default 10,000,000), keys (default 20), output directory; seed 1,
//! sampling fraction 0.01. Prints the wall time and the size of the files written.

use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rows: u64 = args
        .first()
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(10_000_000);
    let keys: u64 = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(20);
    let dir = args
        .get(2)
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("intruder-census-bench"));
    let g = intruder_synth::parse("census", Some(rows), &[format!("keys={keys}")])?;
    let start = Instant::now();
    let files = g.generate(1, &dir)?;
    let secs = start.elapsed().as_secs_f64();
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0))
        .sum();
    println!(
        "census: {rows} rows x {keys} keys in {secs:.2} s ({:.2} M rows/s), {:.1} MB written",
        rows as f64 / secs / 1e6,
        bytes as f64 / 1e6
    );
    Ok(())
}
