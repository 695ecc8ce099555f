//! Where the toolkit's counting and matching run: in process on the toolkit's own engines
//! (`local`, the default and the reference), as Apache DataFusion plans in process with a
//! memory limit and spilling to disk (`datafusion`), or as the same plans on an Apache Ballista
//! cluster (`ballista://HOST:PORT`).
//!
//! The plans (cargo feature `cluster`, module `plans`):
//! - **frequency risk**: class sizes by `GROUP BY` on the keys (listwise: complete records
//!   only; as-value: a missing value is one more value), then the histogram of sizes; Mulder's
//!   wildcard `n_match` by missingness pattern (for each pair of patterns, the records of one
//!   grouped on the keys observed in both and joined to the distinct tuples of the other);
//!   individual risk from weights per class with the toolkit's own formula as a scalar UDF
//!   (`intruder_individual_risk`, the function [`intruder_risk::measures::individual_risk`]).
//!   Every file-level figure is then made from those counts by the risk crate's own
//!   definitions ([`intruder_risk::external`]).
//! - **the exact-key attack**: the released file grouped on its key tuple (count and smallest
//!   rows), joined to the intruder's records (by missingness pattern under wildcard): `c_i`
//!   and the listed candidates of every intruder record.
//!
//! Every figure is the local engine's: counts exactly, sums of weights to rounding (a sum
//! over classes, not over records in file order); the tests run each plan on both engines.
//!
//! Without the `cluster` feature only `local` runs; the other engines are refused with a
//! message saying how to build them.

#![deny(missing_docs)]

use std::fmt;
use std::str::FromStr;

#[cfg(feature = "cluster")]
pub mod local_cluster;
#[cfg(feature = "cluster")]
pub mod plans;

/// The engines this build runs in its own process: `local`, and `datafusion` when it was
/// built with the `cluster` feature (what the web page offers).
pub fn in_process_engines() -> &'static [&'static str] {
    if cfg!(feature = "cluster") {
        &["local", "datafusion"]
    } else {
        &["local"]
    }
}

/// Where a command runs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Engine {
    /// The toolkit's in-process engines (the reference).
    #[default]
    Local,
    /// Apache DataFusion in process, with a memory pool and spilling to disk.
    DataFusion,
    /// An Apache Ballista cluster: the scheduler's host and port.
    Ballista {
        /// Scheduler host.
        host: String,
        /// Scheduler port.
        port: u16,
    },
}

impl Engine {
    /// The engine's name as the command line spells it.
    pub fn label(&self) -> String {
        match self {
            Engine::Local => "local".into(),
            Engine::DataFusion => "datafusion".into(),
            Engine::Ballista { host, port } => format!("ballista://{host}:{port}"),
        }
    }

    /// Whether this is the local engine.
    pub fn is_local(&self) -> bool {
        *self == Engine::Local
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

impl FromStr for Engine {
    type Err = EngineError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = |why: &str| {
            EngineError::Config(format!(
                "engine '{s}': {why}; expected local, datafusion or ballista://HOST:PORT"
            ))
        };
        match s {
            "local" => Ok(Engine::Local),
            "datafusion" => Ok(Engine::DataFusion),
            _ => {
                let Some(rest) = s.strip_prefix("ballista://") else {
                    return Err(bad("unknown engine"));
                };
                let (host, port) = rest
                    .rsplit_once(':')
                    .ok_or_else(|| bad("the scheduler's port is missing"))?;
                if host.is_empty() {
                    return Err(bad("the scheduler's host is missing"));
                }
                let port: u16 = port
                    .trim_end_matches('/')
                    .parse()
                    .map_err(|_| bad("the port is not a number from 1 to 65535"))?;
                if port == 0 {
                    return Err(bad("the port is not a number from 1 to 65535"));
                }
                Ok(Engine::Ballista {
                    host: host.to_string(),
                    port,
                })
            }
        }
    }
}

/// How a command runs: the engine and, for DataFusion, its memory limit.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EngineSpec {
    /// The engine.
    pub engine: Engine,
    /// DataFusion's memory pool in bytes: operators that would exceed it spill to disk, or
    /// fail with an error naming the limit. `None`: no limit. Only for `datafusion` (a
    /// Ballista executor's pool is set where the executor starts: `--memory-pool-size`).
    pub memory_limit: Option<u64>,
    /// Where DataFusion spills (default: the system's temporary directory).
    pub spill_dir: Option<std::path::PathBuf>,
    /// A directory every Ballista executor sees (shared storage), where a run that needs
    /// each record's row number (the exact attack, listing candidate pairs) writes a numbered
    /// copy of the columns it reads, removed when the run ends: Ballista 55 loses Parquet's
    /// row numbers on the way to its executors (docs/cluster.md). Only for `ballista://`.
    pub scratch_dir: Option<std::path::PathBuf>,
}

impl EngineSpec {
    /// The spec of `engine` (a string as [`Engine::from_str`] reads it) and an optional memory
    /// limit (as [`parse_bytes`] reads it); a limit with another engine than `datafusion` is
    /// an error.
    pub fn parse(engine: Option<&str>, memory_limit: Option<&str>) -> Result<Self, EngineError> {
        let engine = engine
            .map(Engine::from_str)
            .transpose()?
            .unwrap_or_default();
        let memory_limit = memory_limit.map(parse_bytes).transpose()?;
        if memory_limit.is_some() && engine != Engine::DataFusion {
            return Err(EngineError::Config(format!(
                "--memory-limit applies to --engine datafusion (the in-process pool), not to {engine}; a Ballista executor's pool is set where it starts (--memory-pool-size)"
            )));
        }
        Ok(EngineSpec {
            engine,
            memory_limit,
            spill_dir: None,
            scratch_dir: None,
        })
    }

    /// `self` with `scratch_dir` (see [`EngineSpec::scratch_dir`]), made absolute (the
    /// executors resolve the copies' paths, not this process); an error with another engine
    /// than `ballista://`.
    pub fn with_scratch_dir(
        mut self,
        dir: Option<std::path::PathBuf>,
    ) -> Result<Self, EngineError> {
        if dir.is_some() && !matches!(self.engine, Engine::Ballista { .. }) {
            return Err(EngineError::Config(format!(
                "--scratch-dir applies to --engine ballista://HOST:PORT (a directory every executor sees), not to {}",
                self.engine
            )));
        }
        self.scratch_dir = dir
            .map(|d| {
                std::path::absolute(&d)
                    .map_err(|e| EngineError::Config(format!("--scratch-dir {}: {e}", d.display())))
            })
            .transpose()?;
        Ok(self)
    }

    /// Reads an experiment's `[engine]` table: `name` (local | datafusion |
    /// ballista://HOST:PORT), `memory_limit` ("4GiB"), `spill_dir` and `scratch_dir`.
    pub fn from_table(t: &toml::Table) -> Result<Self, EngineError> {
        for k in t.keys() {
            if !["name", "memory_limit", "spill_dir", "scratch_dir"].contains(&k.as_str()) {
                return Err(EngineError::Config(format!(
                    "[engine]: unknown key '{k}'; expected name, memory_limit, spill_dir or scratch_dir"
                )));
            }
        }
        let text = |k: &str| -> Result<Option<String>, EngineError> {
            match t.get(k) {
                None => Ok(None),
                Some(toml::Value::String(s)) => Ok(Some(s.clone())),
                Some(v) => Err(EngineError::Config(format!(
                    "[engine]: {k} = {v} is not a string"
                ))),
            }
        };
        let mut spec =
            EngineSpec::parse(text("name")?.as_deref(), text("memory_limit")?.as_deref())?;
        spec.spill_dir = text("spill_dir")?.map(Into::into);
        spec.with_scratch_dir(text("scratch_dir")?.map(Into::into))
    }
}

impl EngineSpec {
    /// Takes `engine`, `memory_limit` and `scratch_dir` out of a method's parameter table (the
    /// Python package's keyword parameters), leaving the rest to the method.
    pub fn take_from(t: &mut toml::Table) -> Result<Self, EngineError> {
        let mut text = |k: &str| -> Result<Option<String>, EngineError> {
            match t.remove(k) {
                None => Ok(None),
                Some(toml::Value::String(s)) => Ok(Some(s)),
                Some(v) => Err(EngineError::Config(format!("{k} = {v} is not a string"))),
            }
        };
        let engine = text("engine")?;
        let limit = text("memory_limit")?;
        let scratch = text("scratch_dir")?;
        EngineSpec::parse(engine.as_deref(), limit.as_deref())?
            .with_scratch_dir(scratch.map(Into::into))
    }
}

/// Bytes from `4GiB`, `512MiB`, `4GB`, `1.5G` or a plain number of bytes (binary units for
/// the `i` forms and the one-letter forms, decimal for `KB`/`MB`/`GB`/`TB`).
pub fn parse_bytes(s: &str) -> Result<u64, EngineError> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    let mult: f64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024f64.powi(2),
        "g" | "gib" => 1024f64.powi(3),
        "t" | "tib" => 1024f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => {
            return Err(EngineError::Config(format!(
                "memory limit '{s}': unknown unit '{unit}'; write e.g. 4GiB, 512MiB or 4000000000"
            )));
        }
    };
    let x: f64 = num.parse().map_err(|_| {
        EngineError::Config(format!(
            "memory limit '{s}' is not a size; write e.g. 4GiB, 512MiB or 4000000000"
        ))
    })?;
    let bytes = x * mult;
    if !(1.0..1.8e19).contains(&bytes) {
        return Err(EngineError::Config(format!(
            "memory limit '{s}' is out of range (at least 1 byte)"
        )));
    }
    Ok(bytes as u64)
}

/// Why an engine could not run a command.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A bad engine, limit or parameter.
    #[error("{0}")]
    Config(String),
    /// The engine is not in this build.
    #[error(
        "--engine {0} needs a build with the cluster feature: cargo install --path crates/cli --features parquet,cluster"
    )]
    NotBuilt(String),
    /// What the plans do not cover.
    #[error("--engine {engine}: {what}")]
    Unsupported {
        /// The engine.
        engine: String,
        /// What was asked.
        what: String,
    },
    /// Reading the data.
    #[error(transparent)]
    Data(#[from] intruder_data::DataError),
    /// The risk measure's own error (the same as the local engine's).
    #[error(transparent)]
    Risk(#[from] intruder_risk::RiskError),
    /// The attack's own error.
    #[error(transparent)]
    Attack(#[from] intruder_attack::AttackError),
    /// The engine failed while running a plan (an executor lost past its retries, the memory
    /// limit reached by an operator that cannot spill, an I/O error).
    #[error("--engine {engine}: {message}")]
    Run {
        /// The engine.
        engine: String,
        /// DataFusion's or Ballista's message.
        message: String,
    },
}

/// Whether this build has the DataFusion and Ballista engines.
pub const CLUSTER_BUILT: bool = cfg!(feature = "cluster");

mod dispatch;
mod request;
mod surface;
pub use dispatch::{exact, link_tables, risk, risk_table, with_spec};
pub use request::ExactRequest;
pub use surface::{EngineArgs, link_on_engine};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_parse() {
        assert_eq!("local".parse::<Engine>().unwrap(), Engine::Local);
        assert_eq!("datafusion".parse::<Engine>().unwrap(), Engine::DataFusion);
        assert_eq!(
            "ballista://127.0.0.1:50050".parse::<Engine>().unwrap(),
            Engine::Ballista {
                host: "127.0.0.1".into(),
                port: 50050
            }
        );
        for bad in [
            "spark",
            "ballista://",
            "ballista://host",
            "ballista://:5",
            "ballista://h:0",
            "ballista://h:x",
        ] {
            let e = bad.parse::<Engine>().unwrap_err().to_string();
            assert!(e.contains("expected local, datafusion"), "{bad}: {e}");
        }
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_bytes("4GiB").unwrap(), 4 << 30);
        assert_eq!(parse_bytes("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_bytes("4GB").unwrap(), 4_000_000_000);
        assert_eq!(parse_bytes("1.5g").unwrap(), 3 << 29);
        assert_eq!(parse_bytes("1000").unwrap(), 1000);
        for bad in ["", "GiB", "4 parsecs", "0", "-1GiB"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn limit_only_with_datafusion() {
        let s = EngineSpec::parse(Some("datafusion"), Some("4GiB")).unwrap();
        assert_eq!(s.memory_limit, Some(4 << 30));
        let e = EngineSpec::parse(Some("local"), Some("4GiB")).unwrap_err();
        assert!(e.to_string().contains("applies to --engine datafusion"));
        let t: toml::Table =
            toml::from_str("name = \"datafusion\"\nmemory_limit = \"1GiB\"").unwrap();
        assert_eq!(
            EngineSpec::from_table(&t).unwrap().memory_limit,
            Some(1 << 30)
        );
        let t: toml::Table = toml::from_str("nme = \"local\"").unwrap();
        assert!(
            EngineSpec::from_table(&t)
                .unwrap_err()
                .to_string()
                .contains("unknown key 'nme'")
        );
    }

    #[test]
    fn scratch_only_with_ballista() {
        let t: toml::Table =
            toml::from_str("name = \"ballista://h:50050\"\nscratch_dir = \"/shared/tmp\"").unwrap();
        assert_eq!(
            EngineSpec::from_table(&t).unwrap().scratch_dir,
            Some("/shared/tmp".into())
        );
        let t: toml::Table =
            toml::from_str("name = \"datafusion\"\nscratch_dir = \"/shared/tmp\"").unwrap();
        let e = EngineSpec::from_table(&t).unwrap_err().to_string();
        assert!(
            e.contains("--scratch-dir applies to --engine ballista"),
            "{e}"
        );
        let mut t: toml::Table =
            toml::from_str("engine = \"ballista://h:1\"\nscratch_dir = \"/s\"\nk = 3").unwrap();
        let s = EngineSpec::take_from(&mut t).unwrap();
        assert_eq!(s.scratch_dir, Some("/s".into()));
        assert_eq!(t.len(), 1, "the method's own parameters are left");
        let mut t: toml::Table =
            toml::from_str("engine = \"ballista://h:1\"\nscratch_dir = \"rel\"").unwrap();
        assert_eq!(
            EngineSpec::take_from(&mut t).unwrap().scratch_dir,
            Some(std::env::current_dir().unwrap().join("rel")),
            "made absolute: the executors resolve it"
        );
        let mut t: toml::Table = toml::from_str("scratch_dir = \"/s\"").unwrap();
        assert!(
            EngineSpec::take_from(&mut t).is_err(),
            "local takes no scratch directory"
        );
    }
}
