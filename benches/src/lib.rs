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

/// CPU time (user + system, all threads) this process has used so far, in seconds, from
/// /proc/self/stat (clock ticks of 1/100 s), where available.
pub fn process_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}
