//! `intruder-scheduler`: Apache Ballista's scheduler with the toolkit's functions registered
//! (the plans of `--engine ballista://HOST:PORT` name them) and its codecs (which carry the
//! functions that hold a run's state). Every flag is Ballista's
//! scheduler's (`intruder-scheduler --help`); e.g.
//! `intruder-scheduler --bind-host 0.0.0.0 --bind-port 50050`.

use std::sync::Arc;

use ballista_core::extension::{
    ballista_aggregate_functions, ballista_scalar_functions, ballista_window_functions,
};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::{Config, SchedulerConfig};
use ballista_scheduler::scheduler_process::start_server;
use clap::Parser;
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::prelude::SessionConfig;
use tracing_subscriber::EnvFilter;

fn main() -> ballista_core::error::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(32 * 1024 * 1024)
        .build()
        .map_err(|e| ballista_core::error::BallistaError::General(e.to_string()))?;
    runtime.block_on(run())
}

async fn run() -> ballista_core::error::Result<()> {
    let opt = Config::parse();
    let filter = std::env::var(EnvFilter::DEFAULT_ENV).unwrap_or(opt.log_level_setting.clone());
    tracing_subscriber::fmt()
        .with_ansi(false)
        .with_env_filter(EnvFilter::new(filter))
        .init();
    let addr = format!("{}:{}", opt.bind_host, opt.bind_port);
    let addr = addr.parse().map_err(|e: std::net::AddrParseError| {
        ballista_core::error::BallistaError::Configuration(format!("{addr}: {e}"))
    })?;
    let mut config: SchedulerConfig = opt.try_into()?;
    // Fellegi–Sunter's functions arrive with their state (intruder_engine::plans::shipped).
    let (logical, physical) = intruder_engine::plans::shipped::codecs();
    config.override_logical_codec = Some(logical);
    config.override_physical_codec = Some(physical);
    let config = config.with_override_session_builder(Arc::new(|config: SessionConfig| {
        let mut scalar = ballista_scalar_functions();
        scalar.extend(intruder_engine::plans::udf::all());
        Ok(SessionStateBuilder::new()
            .with_config(config)
            .with_default_features()
            .with_scalar_functions(scalar)
            .with_aggregate_functions(ballista_aggregate_functions())
            .with_window_functions(ballista_window_functions())
            .build())
    }));
    let cluster = BallistaCluster::new_from_config(&config).await?;
    start_server(cluster, addr, Arc::new(config)).await
}
