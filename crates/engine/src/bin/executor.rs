//! `intruder-executor`: Apache Ballista's executor with the toolkit's functions registered
//! (the plans of `--engine ballista://HOST:PORT` call them) and its codecs (which carry the
//! functions that hold a run's state). Every flag is Ballista's
//! executor's (`intruder-executor --help`); e.g. `intruder-executor --scheduler-host HOST
//! --scheduler-port 50050 --bind-port 50051 --bind-grpc-port 50052 --bind-health-port 50053
//! --memory-pool-size 4294967296`.

use std::sync::Arc;

use ballista_core::registry::BallistaFunctionRegistry;
use ballista_executor::config::Config;
use ballista_executor::executor_process::{ExecutorProcessConfig, start_executor_process};
use clap::Parser;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> ballista_core::error::Result<()> {
    let opt = Config::parse();
    let mut config: ExecutorProcessConfig = opt.try_into()?;
    let mut registry = BallistaFunctionRegistry::default();
    for f in intruder_engine::plans::udf::all() {
        registry.scalar_functions.insert(f.name().to_string(), f);
    }
    config.override_function_registry = Some(Arc::new(registry));
    // Fellegi–Sunter's functions arrive with their state (intruder_engine::plans::shipped).
    let (logical, physical) = intruder_engine::plans::shipped::codecs();
    config.override_logical_codec = Some(logical);
    config.override_physical_codec = Some(physical);
    let filter =
        std::env::var(EnvFilter::DEFAULT_ENV).unwrap_or(config.special_mod_log_level.clone());
    tracing_subscriber::fmt()
        .with_ansi(false)
        .with_env_filter(EnvFilter::new(filter))
        .init();
    start_executor_process(Arc::new(config)).await
}
