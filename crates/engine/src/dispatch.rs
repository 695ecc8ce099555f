//! One call per command, whatever the engine: the surfaces (command line, runner, Python)
//! call these with a few lines, and `local` runs the toolkit's own engines exactly as the
//! command line does without an engine.

use std::path::{Path, PathBuf};

use intruder_attack::{Attack, ExactMatch, Knowledge, Linkage, Linked};
use intruder_data::{Dataset, Input, Table, load};
use intruder_risk::{RiskMeasure, RiskOutcome};

use crate::request::ExactRequest;
use crate::{Engine, EngineError, EngineSpec};

/// `measure` (frequency or individual) on the file `data` read as `input` says, on the engine
/// of `spec`: the same outcome as the measure's own `assess` (no per-record figures).
pub fn risk(
    spec: &EngineSpec,
    data: &Path,
    input: &Input,
    measure: &dyn RiskMeasure,
) -> Result<RiskOutcome, EngineError> {
    match &spec.engine {
        Engine::Local => {
            let ds = load(data, input)?;
            Ok(measure.assess(&ds.table, false)?)
        }
        #[cfg(feature = "cluster")]
        _ => crate::plans::risk(spec, data, input, measure),
        #[cfg(not(feature = "cluster"))]
        e => Err(EngineError::NotBuilt(e.label())),
    }
}

/// The exact-key attack of `req` on the engine of `spec`: per intruder record, `c_i` and the
/// smallest `max_listed` candidate rows, as [`ExactMatch`] links them.
pub fn exact(spec: &EngineSpec, req: &ExactRequest) -> Result<Linkage, EngineError> {
    match &spec.engine {
        Engine::Local => {
            let intruder = load(&req.intruder, &req.intruder_input)?;
            let released = load(&req.released, &req.released_input)?;
            let knowledge = Knowledge::new(&intruder.table, req.key_map()?)?;
            let attack = ExactMatch::with_settings(req.missing, None, req.max_listed)
                .map_err(intruder_attack::AttackError::from)?;
            Ok(attack.link(&knowledge, &released.table, 0)?.linkage)
        }
        #[cfg(feature = "cluster")]
        _ => crate::plans::exact(spec, req),
        #[cfg(not(feature = "cluster"))]
        e => Err(EngineError::NotBuilt(e.label())),
    }
}

/// A table written to a temporary Parquet file, for an engine other than local to scan (the
/// runner's and Python's tables live in memory).
#[derive(Debug)]
struct Written {
    path: PathBuf,
    _dir: tempfile::TempDir,
}

/// A linkage's lister that reads the temporary copies later (the exact attack lists the
/// candidates of records listed in part when the evaluator asks): the copies live as long as
/// it does.
#[derive(Debug)]
struct KeepCopies {
    inner: intruder_attack::Lister,
    _copies: (Written, Written),
}

impl intruder_attack::ListCandidates for KeepCopies {
    fn list(&self, records: &[usize]) -> Vec<Vec<usize>> {
        self.inner.list(records)
    }
}

fn write(spec: &EngineSpec, table: &Table, keys: &[&str]) -> Result<Written, EngineError> {
    if !crate::CLUSTER_BUILT {
        return Err(EngineError::NotBuilt(spec.engine.label()));
    }
    if !matches!(spec.engine, Engine::DataFusion) && spec.scratch_dir.is_none() {
        return Err(EngineError::Unsupported {
            engine: spec.engine.label(),
            what: format!(
                "{} is a table in memory: a cluster's executors read Parquet files on shared storage (run the command on a file instead, or give a scratch directory every executor sees: --scratch-dir, [engine] scratch_dir)",
                table.source()
            ),
        });
    }
    // A set-valued key matches by overlap, which the plans do not express: refused. A
    // set-valued column the plans do not read (a survey's list of fields, say) is left out of
    // the copy.
    let is_set = |c: &&intruder_data::Column| c.kind() == intruder_data::Kind::Set;
    #[cfg(feature = "cluster")]
    if let Some(c) = table
        .columns()
        .iter()
        .filter(is_set)
        .find(|c| keys.contains(&c.name()))
    {
        let label = table.source().to_string();
        return Err(crate::plans::source::set_valued(spec, &label, c.name()));
    }
    #[cfg(not(feature = "cluster"))]
    let _ = keys;
    let kept = if table.columns().iter().any(|c| is_set(&c)) {
        let columns = table.columns().iter().filter(|c| !is_set(c)).cloned();
        Table::new(table.source().clone(), columns.collect())?
    } else {
        table.clone()
    };
    // In process: the system's temporary directory; on a cluster: the shared scratch one.
    let dir = match &spec.scratch_dir {
        Some(d) => tempfile::Builder::new().prefix("intruder-").tempdir_in(d),
        None => tempfile::tempdir(),
    }
    .map_err(|e| EngineError::Config(format!("cannot make a temporary directory: {e}")))?;
    let path = dir.path().join("table.parquet");
    let ds = Dataset {
        table: kept,
        truth: Vec::new(),
        notes: Vec::new(),
        unread: Vec::new(),
    };
    intruder_data::write_parquet(&path, &ds)?;
    Ok(Written { path, _dir: dir })
}

/// [`risk`] of a table in memory (the runner's released file, a Python data frame): local
/// assesses it; `datafusion` scans it from a temporary Parquet copy, Ballista from one in the
/// scratch directory. Warnings name the table's source.
pub fn risk_table(
    spec: &EngineSpec,
    table: &Table,
    measure: &dyn RiskMeasure,
) -> Result<RiskOutcome, EngineError> {
    if spec.engine.is_local() {
        return Ok(measure.assess(table, false)?);
    }
    let keys: Vec<&str> = measure.keys().iter().map(String::as_str).collect();
    let w = write(spec, table, &keys)?;
    let mut out = risk(spec, &w.path, &Input::default(), measure)?;
    let (tmp, real) = (w.path.display().to_string(), table.source().to_string());
    for x in &mut out.warnings {
        *x = x.replace(&tmp, &real);
    }
    Ok(out)
}

/// An attack's linkage of a released table in memory by the intruder's knowledge: local runs
/// the attack; `datafusion` runs the exact attack's or Fellegi–Sunter's plans on temporary
/// Parquet copies.
pub fn link_tables(
    spec: &EngineSpec,
    attack: &dyn Attack,
    knowledge: &Knowledge,
    released: &Table,
    seed: u64,
) -> Result<Linked, EngineError> {
    if spec.engine.is_local() {
        return Ok(attack.link(knowledge, released, seed)?);
    }
    let inferred = with_spec(attack, knowledge.table(), released, knowledge.keys())?;
    let attack: &dyn Attack = inferred.as_ref().map_or(attack, |f| f as &dyn Attack);
    let pairs = knowledge.keys().pairs();
    let i = write(
        spec,
        knowledge.table(),
        &pairs
            .iter()
            .map(|p| p.intruder.as_str())
            .collect::<Vec<_>>(),
    )?;
    let r = write(
        spec,
        released,
        &pairs
            .iter()
            .map(|p| p.released.as_str())
            .collect::<Vec<_>>(),
    )?;
    let mut linked = crate::link_on_engine(
        spec,
        attack,
        knowledge.keys(),
        (&i.path, &Input::default()),
        (&r.path, &Input::default()),
        seed,
    )?;
    if let Some(inner) = linked.linkage.lister.take() {
        linked.linkage.lister = Some(intruder_attack::Lister::new(std::sync::Arc::new(
            KeepCopies {
                inner,
                _copies: (i, r),
            },
        )));
    }
    Ok(linked)
}

/// Fellegi–Sunter with its linkage specification written out from the tables when none was
/// given (the engines do not infer one); `None` for another attack.
pub fn with_spec(
    attack: &dyn Attack,
    intruder: &Table,
    released: &Table,
    keys: &intruder_attack::KeyMap,
) -> Result<Option<intruder_attack::fellegi_sunter::FellegiSunter>, EngineError> {
    use intruder_attack::fellegi_sunter::FellegiSunter;
    match attack
        .as_any()
        .and_then(|a| a.downcast_ref::<FellegiSunter>())
    {
        Some(fs) => Ok(Some(fs.with_spec_of(intruder, released, keys)?)),
        None => Ok(None),
    }
}
