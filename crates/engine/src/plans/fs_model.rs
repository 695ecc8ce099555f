//! The model of a Fellegi–Sunter run on an engine ([`super::linkage::link`]), with what a
//! user asks of it afterwards — a pair's weight breakdown (`--explain-pair`, the charts'
//! waterfall) and the scored pairs as a file (`--pairs-out`) — answered by the engine, where
//! the records stay: the run's scan, dictionaries and fitted weights are kept with the model
//! ([`Session`]), and each question is a plan of its own on the run's threads (watched afresh
//! on a cluster).
//!
//! - A pair's breakdown reads the two records' value ids by row number, and whether blocking
//!   made them a candidate pair from the blocking rules' joins on those two rows alone; the
//!   breakdown itself is the local one ([`CountedFit::waterfall`]).
//! - The scored pairs are every candidate pair weighed as for the assignment, those at or above
//!   the floor's weight sorted by weight (descending), intruder row, released row — the local
//!   order — and streamed to the file, which is written whole or not at all
//!   ([`write_scored_pairs`]): the pairs are never all held on the client.

use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::prelude::*;

use intruder_attack::fellegi_sunter::counted::CountedFit;
use intruder_attack::fellegi_sunter::{
    FsModel, Waterfall, check_pair, floor_weight, write_scored_pairs,
};
use intruder_attack::{AttackError, LinkModel, ParamError};

use super::linkage::{
    LinkageRequest, Scanned, candidate_pairs_of, count_rows, pair_ids, triples, weighed_pairs,
};
use super::{Run, Threads, run_error};
use crate::{EngineError, EngineSpec};

/// What a finished run keeps for the questions asked of its model.
pub(crate) struct Session {
    pub(crate) spec: EngineSpec,
    pub(crate) req: LinkageRequest,
    pub(crate) fit: CountedFit,
    pub(crate) st: Scanned,
    /// (last: the scan's plans and a cluster's connections go before the threads)
    pub(crate) threads: Arc<Threads>,
}

/// A Fellegi–Sunter model fitted on an engine; see the [module docs](self).
pub struct EngineModel {
    model: FsModel,
    session: Arc<Session>,
}

impl std::fmt::Debug for EngineModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EngineModel")
            .field("model", &self.model)
            .field("engine", &self.session.spec.engine.label())
            .finish()
    }
}

/// An engine's error as the attack's.
fn attack_error(e: EngineError) -> AttackError {
    match e {
        EngineError::Attack(a) => a,
        other => ParamError::Unsupported(other.to_string()).into(),
    }
}

impl EngineModel {
    pub(crate) fn new(model: FsModel, session: Session) -> Self {
        Self {
            model,
            session: Arc::new(session),
        }
    }

    /// `f` as a run of its own on the session's threads.
    fn run<T>(
        &self,
        f: impl AsyncFnOnce(&Session) -> Result<T, EngineError>,
    ) -> Result<T, AttackError> {
        let s = &self.session;
        let got = Run::on(s.threads.clone(), &s.spec).and_then(|run| {
            let value = run.block_on(f(s))?;
            run.finish(value)
        });
        got.map_err(attack_error)
    }
}

/// Whether blocking makes intruder row `i` and released row `j` a candidate pair: the rules'
/// joins on those two records alone.
async fn is_candidate(s: &Session, (i, j): (usize, usize)) -> Result<bool, EngineError> {
    let spec = &s.spec;
    let row = |df: &DataFrame, name: &str, at: usize| {
        df.clone()
            .filter(cast(col(name), DataType::UInt64).eq(lit(at as u64)))
            .map_err(|e| run_error(spec, e))
    };
    let (a, b) = (row(&s.st.a, "i", i)?, row(&s.st.b, "j", j)?);
    let pairs = candidate_pairs_of(spec, &s.req, &s.st, (&a, &b), false)?;
    Ok(count_rows(spec, pairs).await? > 0)
}

impl LinkModel for EngineModel {
    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.model).unwrap_or(serde_json::Value::Null)
    }

    fn to_text(&self) -> String {
        self.model.to_table()
    }

    fn explain_pair(&self, i: usize, j: usize) -> Result<Waterfall, AttackError> {
        check_pair(self.session.fit.dims, (i, j))?;
        self.run(async |s: &Session| {
            let (a, b) = pair_ids(&s.spec, &s.st, (i, j)).await?;
            let candidate = is_candidate(s, (i, j)).await?;
            Ok(s.fit.waterfall(&s.st.prepared, (i, j), (&a, &b), candidate))
        })
    }

    fn write_pairs(
        &self,
        path: &Path,
        intruder_id: &dyn Fn(usize) -> String,
        released_id: &dyn Fn(usize) -> String,
        floor: f64,
    ) -> Result<usize, AttackError> {
        let fw = floor_weight(floor)?;
        let s = &self.session;
        let spec = &s.spec;
        let e = |e| attack_error(run_error(spec, e));
        let run = Run::on(s.threads.clone(), spec).map_err(attack_error)?;
        // levels met afresh (the run's were let go with it)
        let lookups = super::linkage::lookups_of(spec, &s.st);
        let weighed = weighed_pairs(spec, &s.req, &s.st, &lookups, &s.fit).map_err(attack_error)?;
        let kept = weighed
            .filter(col("w").gt_eq(lit(fw)).and(not(isnan(col("w")))))
            .and_then(|d| {
                d.sort(vec![
                    col("w").sort(false, true),
                    col("i").sort(true, true),
                    col("j").sort(true, true),
                ])
            })
            .map_err(e)?;
        let kept = run
            .block_on(super::for_sorted_output(spec, kept))
            .map_err(attack_error)?;
        let mut stream = run
            .block_on(async { kept.execute_stream().await.map_err(|x| run_error(spec, x)) })
            .map_err(attack_error)?;
        let mut batch: std::vec::IntoIter<(u32, u32, f64)> = Vec::new().into_iter();
        let rows = std::iter::from_fn(|| {
            loop {
                if let Some((i, j, w)) = batch.next() {
                    return Some(Ok((i as usize, j as usize, w)));
                }
                let next = run.block_on(async {
                    use futures::StreamExt;
                    Ok(stream.next().await)
                });
                match next {
                    Err(x) => return Some(Err(attack_error(x))),
                    Ok(None) => return None,
                    Ok(Some(Err(x))) => return Some(Err(e(x))),
                    Ok(Some(Ok(b))) => batch = triples(std::slice::from_ref(&b)).into_iter(),
                }
            }
        });
        let n = write_scored_pairs(path, rows, intruder_id, released_id)?;
        run.finish(n).map_err(attack_error)
    }
}
