//! Wall-clock time by phase: what `--timings` prints and what JSON notes carry.
//!
//! ```
//! use intruder_table::Timings;
//! let mut t = Timings::new();
//! let sum: u64 = t.time(Timings::COUNT, || (0..1000u64).sum());
//! t.add(Timings::READ, std::time::Duration::from_millis(1500));
//! assert_eq!(sum, 499_500);
//! assert_eq!(t.get(Timings::READ).unwrap().as_millis(), 1500);
//! assert!(t.to_string().starts_with("count "));
//! assert!(t.to_json()["read_s"].as_f64().unwrap() == 1.5);
//! ```

use std::fmt;
use std::time::{Duration, Instant};

/// Durations of named phases, in the order the phases were first recorded; recording a phase
/// again adds to its time.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Timings {
    phases: Vec<(String, Duration)>,
}

impl Timings {
    /// Reading the input file (parsing included); the readers record it themselves.
    pub const READ: &'static str = "read";
    /// Coding the keys (dense codes, tuple codes).
    pub const ENCODE: &'static str = "encode";
    /// Counting (class sizes, matches, scores).
    pub const COUNT: &'static str = "count";
    /// Writing outputs.
    pub const WRITE: &'static str = "write";
    /// A run on an engine other than the local one (`--engine`), which reads and counts in
    /// one plan.
    pub const ENGINE: &'static str = "engine";

    /// No phase yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `d` to `phase`.
    pub fn add(&mut self, phase: &str, d: Duration) {
        match self.phases.iter_mut().find(|(p, _)| p == phase) {
            Some((_, t)) => *t += d,
            None => self.phases.push((phase.to_string(), d)),
        }
    }

    /// Runs `f`, adding its wall time to `phase`.
    pub fn time<T>(&mut self, phase: &str, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        self.add(phase, start.elapsed());
        out
    }

    /// The time of `phase`, when recorded.
    pub fn get(&self, phase: &str) -> Option<Duration> {
        self.phases
            .iter()
            .find(|(p, _)| p == phase)
            .map(|(_, d)| *d)
    }

    /// The phases and their times, in order.
    pub fn phases(&self) -> impl Iterator<Item = (&str, Duration)> {
        self.phases.iter().map(|(p, d)| (p.as_str(), *d))
    }

    /// The sum of all phases.
    pub fn total(&self) -> Duration {
        self.phases.iter().map(|(_, d)| *d).sum()
    }

    /// `{"read_s": 1.234, …, "total_s": …}`, seconds as numbers.
    pub fn to_json(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for (p, d) in &self.phases {
            m.insert(format!("{p}_s"), serde_json::json!(d.as_secs_f64()));
        }
        m.insert(
            "total_s".into(),
            serde_json::json!(self.total().as_secs_f64()),
        );
        serde_json::Value::Object(m)
    }
}

/// `read 1.234 s, encode 0.101 s, total 1.335 s`.
impl fmt::Display for Timings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (p, d) in &self.phases {
            write!(f, "{p} {:.3} s, ", d.as_secs_f64())?;
        }
        write!(f, "total {:.3} s", self.total().as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_accumulate_in_first_recorded_order() {
        let mut t = Timings::new();
        t.add("write", Duration::from_millis(10));
        t.add("read", Duration::from_millis(5));
        t.add("write", Duration::from_millis(20));
        let names: Vec<&str> = t.phases().map(|(p, _)| p).collect();
        assert_eq!(names, ["write", "read"]);
        assert_eq!(t.get("write"), Some(Duration::from_millis(30)));
        assert_eq!(t.total(), Duration::from_millis(35));
        assert_eq!(t.to_string(), "write 0.030 s, read 0.005 s, total 0.035 s");
        assert_eq!(t.get("count"), None);
    }
}
