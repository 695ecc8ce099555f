//! A Ballista run watched for a lost executor.
//!
//! Ballista 55 does not recover safely from an executor lost in the middle of a run: with its
//! defaults (push scheduling, the adaptive planner) the job stalls for minutes; with executors
//! that ask for work and the static planner, a 1M × 1M linkage completed with wrong figures
//! (docs/cluster.md, "A lost executor"). So a run on a cluster is watched from the client:
//! the executors registered when it starts are read from the scheduler's REST API
//! (`GET /api/executors`, served on the scheduler's own port), and twice a second the
//! watchdog reads the list again and knocks on each executor's port. When an executor that was
//! there at the start is gone — it left the scheduler's list, or its port refuses connections
//! (or does not answer twice in a row) — the run's jobs are cancelled (`PATCH /api/job/{id}`,
//! the jobs found by the run's own job name) and the run fails with an error that names the
//! executor. A run that finishes is checked once more before its figures are reported, and
//! so is a run that fails (a job Ballista failed, or one the watch cancelled, between two
//! looks): when an executor of the start is gone, the error names it, not the failed job.
//!
//! What it cannot see: a live executor that the scheduler drops (when it cannot launch a task
//! there) and that registers again, with its next heartbeat, before the next look (half a
//! second) — and a run whose executors all answered to the end is taken as sound.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::EngineError;

tokio::task_local! {
    /// The job name of the run under way: every Ballista client the run opens names its jobs
    /// with it, so that the watchdog cancels this run's jobs and no other's.
    pub(crate) static JOB_NAME: String;
}

/// How often the executors are looked at.
const EVERY: Duration = Duration::from_millis(500);
/// How long an executor's port may take to accept a connection.
const KNOCK: Duration = Duration::from_secs(2);
/// How long the scheduler may leave the watchdog unanswered before the run is stopped.
const SCHEDULER_SILENT: Duration = Duration::from_secs(15);
/// How long a failed run waits for the watch to finish cancelling its jobs (the cancel's HTTP
/// request times out after 5 s).
const STOPPING: Duration = Duration::from_secs(10);

/// One executor as the scheduler lists it (`GET /api/executors`; the other fields are not
/// read).
#[derive(Debug, Clone, serde::Deserialize)]
struct Executor {
    id: String,
    host: String,
    port: u16,
}

impl Executor {
    fn named(&self) -> String {
        format!("executor {} ({}:{})", self.id, self.host, self.port)
    }
}

/// One job as the scheduler lists it (`GET /api/jobs`).
#[derive(Debug, serde::Deserialize)]
struct Job {
    job_id: String,
    job_name: String,
    status: String,
}

/// The watch over one run's executors; its task stops when it is dropped.
#[derive(Debug)]
pub(crate) struct Watchdog {
    job_name: String,
    look: Look,
    lost: watch::Receiver<Verdict>,
    task: JoinHandle<()>,
}

/// What the watch has found.
#[derive(Debug, Clone)]
enum Verdict {
    /// Every executor of the start is there.
    Watching,
    /// One is lost: the run's jobs are being cancelled.
    Stopping,
    /// One is lost: the run's error.
    Lost(String),
}

impl Verdict {
    fn is_lost(&self) -> bool {
        matches!(self, Verdict::Lost(_))
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What one look needs: the scheduler's address and the executors of the start.
#[derive(Debug, Clone)]
struct Look {
    engine: String,
    base: String,
    client: reqwest::Client,
    /// The executors of the start, with whether their port answered then (one that did not —
    /// e.g. behind a network the client cannot reach — is watched through the list alone).
    start: Vec<(Executor, bool)>,
}

impl Watchdog {
    /// Reads the scheduler's executors and starts watching them, on the current runtime.
    pub(crate) async fn start(engine: &str, host: &str, port: u16) -> Result<Self, EngineError> {
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let job_name = format!(
            "intruder-{}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis()),
            RUNS.fetch_add(1, Ordering::Relaxed)
        );
        let client = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(5))
            .build()
            .map_err(|e| EngineError::Config(format!("cannot start an HTTP client: {e}")))?;
        let mut look = Look {
            engine: engine.to_string(),
            base: format!("http://{host}:{port}"),
            client,
            start: Vec::new(),
        };
        let executors = look.executors().await.map_err(|e| EngineError::Run {
            engine: engine.to_string(),
            message: format!(
                "{e}. Is intruder-scheduler running there? A run on a cluster watches its \
                 executors through the scheduler's REST API, to stop if one is lost (the \
                 scheduler serves it on its port unless started with --disable-rest-api)"
            ),
        })?;
        for x in executors {
            let answers = knock(&x).await.is_ok();
            look.start.push((x, answers));
        }
        let (tx, lost) = watch::channel(Verdict::Watching);
        let watcher = look.clone();
        let name = job_name.clone();
        let task = tokio::spawn(async move {
            let mut silent_since: Option<tokio::time::Instant> = None;
            let mut slow: HashMap<String, u32> = HashMap::new();
            loop {
                tokio::time::sleep(EVERY).await;
                let found = match watcher.gone(&mut slow).await {
                    Ok(found) => {
                        silent_since = None;
                        found
                    }
                    Err(e) => {
                        let since = *silent_since.get_or_insert_with(tokio::time::Instant::now);
                        (since.elapsed() >= SCHEDULER_SILENT).then(|| {
                            format!(
                                "the scheduler stopped answering during the run ({e}, for {} s)",
                                SCHEDULER_SILENT.as_secs()
                            )
                        })
                    }
                };
                if let Some(what) = found {
                    // (the cancelled jobs fail the run: it waits for the message)
                    let _ = tx.send(Verdict::Stopping);
                    let cancelled = watcher.cancel(&name).await;
                    let _ = tx.send(Verdict::Lost(stopped(&what, cancelled)));
                    return;
                }
            }
        });
        Ok(Self {
            job_name,
            look,
            lost,
            task,
        })
    }

    /// The name the run's jobs carry.
    pub(crate) fn job_name(&self) -> &str {
        &self.job_name
    }

    /// `fut`, unless an executor is lost first: then the run's error.
    pub(crate) async fn guard<T>(
        &self,
        fut: impl Future<Output = Result<T, EngineError>>,
    ) -> Result<T, EngineError> {
        let mut lost = self.lost.clone();
        let got = tokio::select! {
            biased;
            Ok(v) = lost.wait_for(Verdict::is_lost) => Err(self.lost_error(&v)),
            r = fut => r,
        };
        match got {
            Err(e) => Err(self.why_failed(e).await),
            ok => ok,
        }
    }

    fn lost_error(&self, v: &Verdict) -> EngineError {
        EngineError::Run {
            engine: self.look.engine.clone(),
            message: match v {
                Verdict::Lost(m) => m.clone(),
                _ => String::new(),
            },
        }
    }

    /// The error of a failed run: a lost executor's when one is why (the watch is cancelling
    /// the run's jobs, or Ballista failed a job before the watch's next look), else `e`.
    async fn why_failed(&self, e: EngineError) -> EngineError {
        let watching = matches!(*self.lost.borrow(), Verdict::Watching);
        if !watching {
            let mut lost = self.lost.clone();
            let wait = tokio::time::timeout(STOPPING, lost.wait_for(Verdict::is_lost)).await;
            return match wait {
                Ok(Ok(v)) => self.lost_error(&v),
                _ => e,
            };
        }
        match self.look.gone(&mut HashMap::new()).await {
            Ok(Some(what)) => {
                let cancelled = self.look.cancel(&self.job_name).await;
                self.lost_error(&Verdict::Lost(stopped(&what, cancelled)))
            }
            _ => e,
        }
    }

    /// The last look, when the run has finished: its figures are reported only if every
    /// executor of the start is still there.
    pub(crate) async fn finish(&self) -> Result<(), EngineError> {
        let error = |message: String| EngineError::Run {
            engine: self.look.engine.clone(),
            message,
        };
        let verdict = self.lost.borrow().clone();
        match verdict {
            Verdict::Watching => {}
            Verdict::Lost(m) => return Err(error(m)),
            Verdict::Stopping => {
                let mut lost = self.lost.clone();
                let wait = tokio::time::timeout(STOPPING, lost.wait_for(Verdict::is_lost)).await;
                return Err(match wait {
                    Ok(Ok(v)) => self.lost_error(&v),
                    _ => error("an executor was lost; no figures are reported".into()),
                });
            }
        }
        let mut slow = HashMap::new();
        // A port that does not answer now is given one more knock.
        let found = match self.look.gone(&mut slow).await {
            Ok(None) if !slow.is_empty() => self.look.gone(&mut slow).await,
            other => other,
        };
        match found {
            Ok(None) => Ok(()),
            Ok(Some(what)) => {
                let cancelled = self.look.cancel(&self.job_name).await;
                Err(error(stopped(&what, cancelled)))
            }
            Err(e) => Err(error(format!(
                "the run finished, but the scheduler could not be asked whether its executors \
                 are still there ({e}); no figures are reported"
            ))),
        }
    }
}

/// The error of a run stopped because of `what`.
fn stopped(what: &str, cancelled: Result<usize, String>) -> String {
    let jobs = match cancelled {
        Ok(0) => "no job of the run was still running".to_string(),
        Ok(1) => "its running job was cancelled".to_string(),
        Ok(n) => format!("its {n} running jobs were cancelled"),
        Err(e) => format!("its jobs could not be cancelled ({e})"),
    };
    format!(
        "{what}; Ballista 55 does not recover safely from a lost executor (it stalls, or can \
         finish with wrong figures: docs/cluster.md), so the run was stopped and {jobs}. No \
         figures are reported: run it again when the executors are back"
    )
}

impl Look {
    async fn get(&self, path: &str) -> Result<String, String> {
        let url = format!("{}{path}", self.base);
        let r = self
            .client
            .get(&url)
            .send()
            .await
            .map_err(|e| format!("GET {url}: {}", chain(&e)))?;
        let status = r.status();
        let body = r
            .text()
            .await
            .map_err(|e| format!("GET {url}: {}", chain(&e)))?;
        if !status.is_success() {
            return Err(format!("GET {url}: {status} {}", body.trim()));
        }
        Ok(body)
    }

    /// `GET path`, its answer read as JSON.
    async fn get_json<T: serde::de::DeserializeOwned>(&self, path: &str) -> Result<T, String> {
        let body = self.get(path).await?;
        serde_json::from_str(&body)
            .map_err(|e| format!("GET {}{path}: unexpected answer ({e})", self.base))
    }

    async fn executors(&self) -> Result<Vec<Executor>, String> {
        self.get_json("/api/executors").await
    }

    /// The first executor of the start that is gone, if any (`Err`: the scheduler did not
    /// answer). `slow` counts each executor's unanswered knocks in a row.
    async fn gone(&self, slow: &mut HashMap<String, u32>) -> Result<Option<String>, String> {
        let now = self.executors().await?;
        for (x, answers) in &self.start {
            if !now.iter().any(|n| n.id == x.id) {
                return Ok(Some(format!(
                    "{} left the scheduler's executors during the run",
                    x.named()
                )));
            }
            if !answers {
                continue;
            }
            match knock(x).await {
                Ok(()) => {
                    slow.remove(&x.id);
                }
                Err(Knock::Refused(e)) => {
                    return Ok(Some(format!(
                        "{} stopped answering during the run ({e})",
                        x.named()
                    )));
                }
                Err(Knock::Silent) => {
                    let n = slow.entry(x.id.clone()).or_insert(0);
                    *n += 1;
                    if *n >= 2 {
                        return Ok(Some(format!(
                            "{} stopped answering during the run (no connection within {} s, twice)",
                            x.named(),
                            KNOCK.as_secs()
                        )));
                    }
                }
            }
        }
        Ok(None)
    }

    /// Cancels the jobs named `job_name` that are queued or running: how many.
    async fn cancel(&self, job_name: &str) -> Result<usize, String> {
        let jobs: Vec<Job> = self.get_json("/api/jobs").await?;
        let mut n = 0;
        for j in jobs
            .iter()
            .filter(|j| j.job_name == job_name && (j.status == "Running" || j.status == "Queued"))
        {
            let url = format!("{}/api/job/{}", self.base, j.job_id);
            let r = self
                .client
                .patch(&url)
                .send()
                .await
                .map_err(|e| format!("PATCH {url}: {}", chain(&e)))?;
            if !r.status().is_success() {
                return Err(format!("PATCH {url}: {}", r.status()));
            }
            n += 1;
        }
        Ok(n)
    }
}

/// `e` and its sources (reqwest's own message leaves out why a request failed).
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(c) = source {
        let text = c.to_string();
        if !s.contains(&text) {
            s.push_str(": ");
            s.push_str(&text);
        }
        source = c.source();
    }
    s
}

enum Knock {
    Refused(std::io::Error),
    Silent,
}

/// Whether `x`'s port accepts a connection (closed at once).
async fn knock(x: &Executor) -> Result<(), Knock> {
    match tokio::time::timeout(
        KNOCK,
        tokio::net::TcpStream::connect((x.host.as_str(), x.port)),
    )
    .await
    {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(Knock::Refused(e)),
        Err(_) => Err(Knock::Silent),
    }
}
