//! What the surfaces share: the `--engine`, `--memory-limit` and `--scratch-dir` flags, and the attack call
//! that runs an attack's linkage on the chosen engine.

use std::path::Path;

use intruder_attack::fellegi_sunter::FellegiSunter;
use intruder_attack::{Attack, KeyMap, Linked, MissingPolicy};
use intruder_data::Input;

use crate::{EngineError, EngineSpec, ExactRequest};

/// `--engine`, `--memory-limit` and `--scratch-dir`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct EngineArgs {
    /// Where the counting and matching run: local (the default: the toolkit's in-process
    /// engines), datafusion (Apache DataFusion in process, spilling to disk past
    /// --memory-limit), or ballista://HOST:PORT (an Apache Ballista cluster; see
    /// docs/cluster.md). Frequency and individual risk, the exact attack and Fellegi–Sunter
    /// (with a linkage specification) run on every engine with the same figures.
    #[arg(long, value_name = "ENGINE")]
    pub engine: Option<String>,
    /// DataFusion's memory pool (e.g. 4GiB): operators past it spill to disk (only with
    /// --engine datafusion).
    #[arg(long, value_name = "SIZE")]
    pub memory_limit: Option<String>,
    /// A directory every Ballista executor sees (shared storage), where the exact attack and
    /// Fellegi–Sunter write numbered copies of the columns they read (and Fellegi–Sunter its
    /// dictionaries), removed when they end (only with --engine ballista://HOST:PORT;
    /// Ballista 55 loses Parquet's row numbers on the way to its executors).
    #[arg(long, value_name = "DIR")]
    pub scratch_dir: Option<std::path::PathBuf>,
}

impl EngineArgs {
    /// The engine asked for; `None` for the local engine (the surface's own path).
    pub fn spec(&self) -> Result<Option<EngineSpec>, EngineError> {
        let spec = EngineSpec::parse(self.engine.as_deref(), self.memory_limit.as_deref())?
            .with_scratch_dir(self.scratch_dir.clone())?;
        Ok((!spec.engine.is_local()).then_some(spec))
    }
}

/// The linkage of `attack` (configured by the registry) run on `spec`'s engine: the exact
/// attack and Fellegi–Sunter as plans (`seed` drives Fellegi–Sunter's random pairs); any other
/// attack is refused with a message naming what runs there.
pub fn link_on_engine(
    spec: &EngineSpec,
    attack: &dyn Attack,
    keys: &KeyMap,
    intruder: (&Path, &Input),
    released: (&Path, &Input),
    seed: u64,
) -> Result<Linked, EngineError> {
    if let Some(fs) = attack
        .as_any()
        .and_then(|a| a.downcast_ref::<FellegiSunter>())
    {
        return fellegi_sunter(spec, fs, keys, intruder, released, seed);
    }
    if attack.name() != "exact" {
        return Err(EngineError::Unsupported {
            engine: spec.engine.label(),
            what: format!(
                "the {} attack runs on the local engine only (the exact and fellegi-sunter attacks run as plans)",
                attack.name()
            ),
        });
    }
    let params = attack.params();
    let missing: MissingPolicy = params
        .get("missing")
        .and_then(|v| v.as_str())
        .unwrap_or("listwise")
        .parse()
        .map_err(|e: String| EngineError::Config(e))?;
    let max_listed = params
        .get("max_listed")
        .and_then(|v| v.as_u64())
        .unwrap_or(intruder_attack::exact::DEFAULT_MAX_LISTED as u64) as usize;
    let req = ExactRequest {
        intruder: intruder.0.to_path_buf(),
        intruder_input: intruder.1.clone(),
        released: released.0.to_path_buf(),
        released_input: released.1.clone(),
        keys: keys
            .pairs()
            .iter()
            .map(|p| {
                if p.recode.is_some() {
                    Err(EngineError::Unsupported {
                        engine: spec.engine.label(),
                        what: format!(
                            "key '{}' is recoded: recoded keys run on the local engine only",
                            p.intruder
                        ),
                    })
                } else {
                    Ok((p.intruder.clone(), p.released.clone()))
                }
            })
            .collect::<Result<_, _>>()?,
        missing,
        max_listed,
    };
    Ok(Linked::from(crate::exact(spec, &req)?))
}

/// Fellegi–Sunter on `spec`'s engine, with its linkage specification (the engines do not infer
/// one from the records) and the key map's released names.
fn fellegi_sunter(
    spec: &EngineSpec,
    fs: &FellegiSunter,
    keys: &KeyMap,
    intruder: (&Path, &Input),
    released: (&Path, &Input),
    seed: u64,
) -> Result<Linked, EngineError> {
    let Some(ls) = fs.params().spec.as_ref() else {
        return Err(EngineError::Unsupported {
            engine: spec.engine.label(),
            what: "fellegi-sunter without a linkage specification infers its comparisons from the records, which the engines do not read on the driver: give --linkage-spec (or an inline linkage table)".into(),
        });
    };
    if let Some(p) = keys.pairs().iter().find(|p| p.recode.is_some()) {
        return Err(EngineError::Unsupported {
            engine: spec.engine.label(),
            what: format!(
                "key '{}' is recoded: recoded keys run on the local engine only",
                p.intruder
            ),
        });
    }
    #[cfg(feature = "cluster")]
    {
        let req = crate::plans::linkage::LinkageRequest {
            intruder: intruder.0.to_path_buf(),
            intruder_input: intruder.1.clone(),
            released: released.0.to_path_buf(),
            released_input: released.1.clone(),
            rules: ls.blocking.clone(),
            comparisons: ls.comparisons.clone(),
            released_names: keys
                .pairs()
                .iter()
                .map(|p| (p.intruder.clone(), p.released.clone()))
                .collect(),
            training: ls.training.clone(),
        };
        crate::plans::linkage::link(spec, &req, fs, seed)
    }
    #[cfg(not(feature = "cluster"))]
    {
        let _ = (ls, intruder, released, seed);
        Err(EngineError::NotBuilt(spec.engine.label()))
    }
}
