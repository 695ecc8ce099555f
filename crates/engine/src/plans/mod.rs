//! The DataFusion plans, run in process or on a Ballista cluster (cargo feature `cluster`).
//!
//! - [`context`]: a `SessionContext` for the engine (DataFusion with its memory pool and
//!   disk manager, or a Ballista client), with the toolkit's functions registered ([`udf`]).
//! - [`source`]: a data file as a DataFrame whose missing cells are nulls as the toolkit's
//!   reader makes them, with each record's row number.
//! - [`risk`] and [`exact`]: the plans.

pub mod blocking;
pub mod exact;
mod fs_functions;
mod fs_model;
pub mod linkage;
pub mod risk;
pub mod shipped;
pub mod source;
pub mod udf;
mod watchdog;

use std::future::Future;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::Arc;

use datafusion::dataframe::DataFrame;
use datafusion::error::DataFusionError;
use datafusion::execution::disk_manager::{DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::memory_pool::{FairSpillPool, TrackConsumersPool};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};

use intruder_attack::Linkage;
use intruder_data::Input;
use intruder_risk::{RiskMeasure, RiskOutcome, RiskParams};

use crate::request::ExactRequest;
use crate::{Engine, EngineError, EngineSpec};

/// The engine's error of a DataFusion or Ballista failure.
pub(crate) fn run_error(spec: &EngineSpec, e: DataFusionError) -> EngineError {
    let message = match &e {
        DataFusionError::ResourcesExhausted(m) => format!(
            "the memory limit was reached by an operator that cannot spill: {m} (raise --memory-limit)"
        ),
        _ => e.to_string(),
    };
    EngineError::Run {
        engine: spec.engine.label(),
        message,
    }
}

/// A multi-threaded runtime for one command.
fn runtime() -> Result<tokio::runtime::Runtime, EngineError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(16 << 20)
        .build()
        .map_err(|e| EngineError::Config(format!("cannot start the engine's threads: {e}")))
}

/// A command's threads (a tokio runtime), shared by its run and by what is asked of the run's
/// model afterwards (a Ballista session's connections live on them). Shut down without
/// waiting when the last holder lets go, from any thread.
pub(crate) struct Threads(Option<tokio::runtime::Runtime>);

impl Threads {
    fn rt(&self) -> &tokio::runtime::Runtime {
        self.0.as_ref().expect("the threads, until dropped")
    }
}

impl Drop for Threads {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// One command's run: its threads and, on a Ballista cluster, the watch over its executors
/// ([`watchdog`]: a lost executor stops the run with an error instead of a stall or figures
/// that cannot be trusted).
pub(crate) struct Run {
    watch: Option<watchdog::Watchdog>,
    threads: Arc<Threads>,
}

impl Run {
    /// The threads, and on a cluster the executors as the scheduler lists them now.
    pub(crate) fn start(spec: &EngineSpec) -> Result<Self, EngineError> {
        Self::on(Arc::new(Threads(Some(runtime()?))), spec)
    }

    /// A run on threads of an earlier one (a model's session), watched afresh on a cluster.
    pub(crate) fn on(threads: Arc<Threads>, spec: &EngineSpec) -> Result<Self, EngineError> {
        let watch = match &spec.engine {
            Engine::Ballista { host, port } => {
                Some(threads.rt().block_on(watchdog::Watchdog::start(
                    &spec.engine.label(),
                    host,
                    *port,
                ))?)
            }
            _ => None,
        };
        Ok(Self { watch, threads })
    }

    /// The run's threads.
    pub(crate) fn threads(&self) -> Arc<Threads> {
        self.threads.clone()
    }

    /// `fut` to its end, or (on a cluster) until an executor of the start is lost.
    pub(crate) fn block_on<T>(
        &self,
        fut: impl Future<Output = Result<T, EngineError>>,
    ) -> Result<T, EngineError> {
        match &self.watch {
            None => self.threads.rt().block_on(fut),
            Some(w) => self
                .threads
                .rt()
                .block_on(watchdog::JOB_NAME.scope(w.job_name().to_string(), w.guard(fut))),
        }
    }

    /// `value`, the run's result, if (on a cluster) every executor of the start is still
    /// there.
    pub(crate) fn finish<T>(&self, value: T) -> Result<T, EngineError> {
        if let Some(w) = &self.watch {
            self.threads.rt().block_on(w.finish())?;
        }
        Ok(value)
    }

    /// A run of one future: [`Run::start`], [`Run::block_on`], [`Run::finish`].
    pub(crate) fn once<T>(
        spec: &EngineSpec,
        fut: impl Future<Output = Result<T, EngineError>>,
    ) -> Result<T, EngineError> {
        let run = Self::start(spec)?;
        let value = run.block_on(fut)?;
        run.finish(value)
    }
}

/// DataFusion in process, without a memory limit, spilling where `spec` spills: where a
/// cluster's run does on the client what its executors cannot (read row numbers).
pub(crate) fn in_process(spec: &EngineSpec) -> EngineSpec {
    EngineSpec {
        engine: Engine::DataFusion,
        memory_limit: None,
        spill_dir: spec.spill_dir.clone(),
        scratch_dir: None,
    }
}

/// The session of `spec`'s engine, with the toolkit's functions registered.
pub async fn context(spec: &EngineSpec) -> Result<SessionContext, EngineError> {
    let ctx = match &spec.engine {
        Engine::Local => {
            return Err(EngineError::Config("the local engine runs no plans".into()));
        }
        Engine::DataFusion => {
            let mut rt = RuntimeEnvBuilder::new();
            if let Some(limit) = spec.memory_limit {
                let pool = TrackConsumersPool::new(
                    FairSpillPool::new(limit as usize),
                    NonZeroUsize::new(5).expect("5 > 0"),
                );
                rt = rt.with_memory_pool(Arc::new(pool));
            }
            let mode = match &spec.spill_dir {
                Some(d) => DiskManagerMode::Directories(vec![d.clone()]),
                None => DiskManagerMode::OsTmpDirectory,
            };
            rt = rt.with_disk_manager_builder(DiskManagerBuilder::default().with_mode(mode));
            let rt = rt.build_arc().map_err(|e| run_error(spec, e))?;
            let config = SessionConfig::new()
                .with_target_partitions(std::thread::available_parallelism().map_or(2, |n| n.get()))
                // Sorts that spill need room to merge: 16 MiB, or a 64th of a smaller limit
                // (from 1 MiB): a plan may run a sort per partition of each of its branches at
                // once (the exact attack under wildcard: one per pair of missingness patterns),
                // and each holds its reservation.
                .with_sort_spill_reservation_bytes(
                    spec.memory_limit
                        .map_or(16 << 20, |l| (l as usize / 64).clamp(1 << 20, 16 << 20)),
                );
            let state = SessionStateBuilder::new()
                .with_default_features()
                .with_config(config)
                .with_runtime_env(rt)
                .build();
            SessionContext::new_with_state(state)
        }
        Engine::Ballista { host, port } => ballista_context(spec, host, *port, true).await?,
    };
    udf::register(&ctx);
    Ok(ctx)
}

/// A Ballista client whose jobs the scheduler plans adaptively (`adaptive`: Ballista's
/// default, joins and partition counts chosen from the sizes measured as stages end) or with
/// its static planner, with hash joins (its default there, sort-merge joins, fails on plans
/// whose join sides are partitioned differently: "Invalid SortMergeJoinExec, partition count
/// mismatch", seen on wildcard risk).
async fn ballista_context(
    spec: &EngineSpec,
    host: &str,
    port: u16,
    adaptive: bool,
) -> Result<SessionContext, EngineError> {
    use ballista::prelude::{SessionConfigExt, SessionContextExt};
    let (logical, physical) = shipped::codecs();
    let mut config = SessionConfig::new_with_ballista()
        .with_ballista_job_name(
            &watchdog::JOB_NAME
                .try_with(|n| n.clone())
                .unwrap_or_else(|_| "intruder".into()),
        )
        .with_ballista_adaptive_query_planner(adaptive)
        .with_ballista_logical_extension_codec(logical)
        .with_ballista_physical_extension_codec(physical);
    if !adaptive {
        config = config.set_bool("datafusion.optimizer.prefer_hash_join", true);
    }
    let state = SessionStateBuilder::new()
        .with_default_features()
        .with_config(config)
        .build();
    SessionContext::remote_with_state(&format!("df://{host}:{port}"), state)
        .await
        .map_err(|e| run_error(spec, e))
}

/// `df` on a session where a sort's output reaches the client in order: in process, `df`
/// itself; on Ballista, `df`'s plan on a client whose jobs are planned statically. Ballista
/// 55's adaptive planner's sort reaches the client out of order (the 1M × 1M linkage's pairs
/// by weight: −15.77 after −32.65, every time; with the static planner, in order:
/// docs/cluster.md).
pub(crate) async fn for_sorted_output(
    spec: &EngineSpec,
    df: DataFrame,
) -> Result<DataFrame, EngineError> {
    match &spec.engine {
        Engine::Ballista { host, port } => {
            let ctx = ballista_context(spec, host, *port, false).await?;
            udf::register(&ctx);
            let plan = df.into_unoptimized_plan();
            Ok(DataFrame::new(ctx.state(), plan))
        }
        _ => Ok(df),
    }
}

/// [`crate::risk`] on a DataFusion or Ballista engine.
pub fn risk(
    spec: &EngineSpec,
    data: &Path,
    input: &Input,
    measure: &dyn RiskMeasure,
) -> Result<RiskOutcome, EngineError> {
    let params = measure.counted().ok_or_else(|| EngineError::Unsupported {
        engine: spec.engine.label(),
        what: format!(
            "the {} measure runs on the local engine only (frequency and individual risk run as plans)",
            measure.name()
        ),
    })?;
    // A measure keeps `per_record` on (its calls choose: `assess(table, per_record)`); from
    // counts there are none, so the plans are asked for the summary only, as
    // `outcome_of_counts` reports it. A surface refuses `--per-record` before it gets here.
    let params = &RiskParams {
        per_record: false,
        ..params.clone()
    };
    if let Some(what) = intruder_risk::external::counts_suffice(params) {
        return Err(EngineError::Unsupported {
            engine: spec.engine.label(),
            what: format!("{what}: these run on the local engine only"),
        });
    }
    let a = Run::once(spec, async {
        let ctx = context(spec).await?;
        risk::assess(spec, &ctx, data, input, params).await
    })?;
    Ok(measure.outcome_of_counts(a))
}

/// [`crate::exact`] on a DataFusion or Ballista engine.
pub fn exact(spec: &EngineSpec, req: &ExactRequest) -> Result<Linkage, EngineError> {
    req.key_map()?;
    Run::once(spec, async {
        let ctx = context(spec).await?;
        exact::link(spec, &ctx, req).await
    })
}
