//! A Ballista cluster on 127.0.0.1: the project's scheduler and executors started as separate
//! processes, each on free ports with its own work directory, stopped when dropped. The tests
//! run the plans through it; `docs/cluster.md` gives the same commands for real machines.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{EngineError, EngineSpec};

/// A free port on 127.0.0.1 (bound, then released for a process to take).
fn free_port() -> Result<u16, EngineError> {
    let l = TcpListener::bind("127.0.0.1:0")
        .map_err(|e| EngineError::Config(format!("no free port on 127.0.0.1: {e}")))?;
    l.local_addr()
        .map(|a| a.port())
        .map_err(|e| EngineError::Config(format!("no free port on 127.0.0.1: {e}")))
}

/// Waits until something listens on `port` (at most 60 s) or `child` has ended.
fn wait_for(port: u16, child: &mut Child, what: &str) -> Result<(), EngineError> {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(EngineError::Config(format!(
                "{what} ended ({status}) before listening on port {port}"
            )));
        }
        if start.elapsed() > Duration::from_secs(60) {
            return Err(EngineError::Config(format!(
                "{what} did not listen on port {port} within 60 s"
            )));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

/// A scheduler and its executors, killed (and waited for) when dropped.
#[derive(Debug)]
pub struct LocalCluster {
    scheduler: Child,
    executors: Vec<Option<Child>>,
    executor_ports: Vec<u16>,
    port: u16,
    logs: PathBuf,
    _work: Vec<tempfile::TempDir>,
    scratch: tempfile::TempDir,
}

impl Drop for LocalCluster {
    fn drop(&mut self) {
        for e in self.executors.iter_mut().flatten() {
            let _ = e.kill();
            let _ = e.wait();
        }
        let _ = self.scheduler.kill();
        let _ = self.scheduler.wait();
    }
}

impl LocalCluster {
    /// Starts `bins/intruder-scheduler` and `executors` × `bins/intruder-executor` (one core
    /// each), their output in `logs`; returns once every executor has had time to register.
    pub fn start(bins: &Path, executors: usize, logs: &Path) -> Result<LocalCluster, EngineError> {
        let io = |e: std::io::Error| EngineError::Config(format!("starting a local cluster: {e}"));
        let bin = |name: &str| -> Result<PathBuf, EngineError> {
            let p = bins.join(name);
            if p.is_file() {
                Ok(p)
            } else {
                Err(EngineError::Config(format!(
                    "{} is missing: build it with cargo build -p intruder-engine --features cluster --bins",
                    p.display()
                )))
            }
        };
        let out = |name: &str| std::fs::File::create(logs.join(name)).map(Stdio::from);
        let port = free_port()?;
        let scheduler = Command::new(bin("intruder-scheduler")?)
            .args(["--bind-host", "127.0.0.1", "--external-host", "127.0.0.1"])
            .args(["--bind-port", &port.to_string()])
            // A lost executor is noticed within seconds, not minutes.
            .args(["--executor-timeout-seconds", "6"])
            .args(["--expire-dead-executor-interval-seconds", "2"])
            .stdout(out("scheduler.log").map_err(io)?)
            .stderr(out("scheduler.err").map_err(io)?)
            .spawn()
            .map_err(io)?;
        let mut c = LocalCluster {
            scheduler,
            executors: Vec::new(),
            executor_ports: Vec::new(),
            port,
            logs: logs.to_path_buf(),
            _work: Vec::new(),
            scratch: tempfile::tempdir().map_err(io)?,
        };
        wait_for(port, &mut c.scheduler, "intruder-scheduler")?;
        for k in 0..executors {
            let (p, g, h) = (free_port()?, free_port()?, free_port()?);
            let work = tempfile::tempdir().map_err(io)?;
            let mut child = Command::new(bin("intruder-executor")?)
                .args(["--scheduler-host", "127.0.0.1"])
                .args(["--scheduler-port", &port.to_string()])
                .args(["--bind-host", "127.0.0.1", "--external-host", "127.0.0.1"])
                .args(["--bind-port", &p.to_string()])
                .args(["--bind-grpc-port", &g.to_string()])
                .args(["--bind-health-port", &h.to_string()])
                .args(["--executor-heartbeat-interval-seconds", "1"])
                .args(["--vcores", "1"])
                .arg("--work-dir")
                .arg(work.path())
                .stdout(out(&format!("executor{k}.log")).map_err(io)?)
                .stderr(out(&format!("executor{k}.err")).map_err(io)?)
                .spawn()
                .map_err(io)?;
            let ready = wait_for(p, &mut child, "intruder-executor");
            c.executors.push(Some(child));
            c.executor_ports.push(p);
            c._work.push(work);
            ready?;
        }
        // Registration rides on the first heartbeat.
        std::thread::sleep(Duration::from_secs(3));
        Ok(c)
    }

    /// The scheduler's port on 127.0.0.1.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Executor `k`'s port on 127.0.0.1 (its data port, as the scheduler lists it).
    pub fn executor_port(&self, k: usize) -> Option<u16> {
        self.executor_ports.get(k).copied()
    }

    /// `ballista://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("ballista://127.0.0.1:{}", self.port)
    }

    /// The engine of this cluster, with its scratch directory (every executor runs on this
    /// machine, so any directory is shared): see [`EngineSpec::scratch_dir`].
    pub fn spec(&self) -> EngineSpec {
        EngineSpec::parse(Some(&self.url()), None)
            .and_then(|s| s.with_scratch_dir(Some(self.scratch.path().to_path_buf())))
            .expect("a well-formed url")
    }

    /// The scratch directory of [`LocalCluster::spec`].
    pub fn scratch_dir(&self) -> &Path {
        self.scratch.path()
    }

    /// Kills executor `k` (as a machine lost mid-run); `false` when it was already gone.
    pub fn kill_executor(&mut self, k: usize) -> bool {
        match self.executors.get_mut(k).and_then(Option::take) {
            Some(mut e) => {
                let _ = e.kill();
                let _ = e.wait();
                true
            }
            None => false,
        }
    }

    /// The last `n` lines of every log, for a failing test's message.
    pub fn log_tails(&self, n: usize) -> String {
        let mut s = String::new();
        let mut files: Vec<_> = std::fs::read_dir(&self.logs)
            .map(|d| d.flatten().map(|f| f.path()).collect())
            .unwrap_or_default();
        files.sort();
        for f in files {
            let t = std::fs::read_to_string(&f).unwrap_or_default();
            let lines: Vec<&str> = t.lines().collect();
            let from = lines.len().saturating_sub(n);
            s.push_str(&format!(
                "--- {}\n{}\n",
                f.display(),
                lines[from..].join("\n")
            ));
        }
        s
    }
}
