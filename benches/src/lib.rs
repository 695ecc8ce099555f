//! Benchmarks of the intruder toolkit. The criterion benches live in `benches/`; the
//! side-by-side comparisons with DuckDB, pandas and others are scripts beside them that call the
//! binaries in `src/bin/`. Figures and commands are recorded in the repository's BENCHMARKS.md.

/// Reads a process's peak resident set size (VmHWM) in bytes from /proc, where available.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
