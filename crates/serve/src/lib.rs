//! `intruder serve`: a local web page over the toolkit — every method family's registry, the
//! risk of a file at once, and an experiment built step by step, run, shown and exported.
//!
//! # What it serves
//! One page ([`page`]), embedded in the binary (HTML, CSS and JavaScript in one file, no CDN:
//! it works offline), and a JSON API under `/api/` that the page calls:
//! - `GET /api/registries`: every family's methods with their declared parameters
//!   ([`intruder::methods::registries_json`]) and the files each generator writes; the page
//!   builds every form from it, so a method added to a registry appears with no page edit;
//! - `GET /api/files`, `POST /api/upload`: the files the page may read ([`files`]);
//! - `POST /api/load`: a file's columns with their inferred types and roles, and a preview;
//! - `POST /api/risk`: a risk measure at once on the columns chosen ([`data`]);
//! - `POST /api/experiment`: the page's session (JSON) as an experiment TOML, checked;
//! - `POST /api/run`, `GET /api/job/{id}`, `POST /api/job/{id}/cancel`: the experiment run by
//!   the runner in the background, its progress, its cancellation, and its results ([`jobs`]);
//! - `GET /api/job/{id}/records`: the records an attack of a finished experiment re-identified,
//!   and why — each record's candidates, the pick, whether it is the true record, and the
//!   Fellegi–Sunter agreement pattern of the best pair; paged from memory ([`records`]).
//!
//! # Design decisions
//! - The session *is* an experiment file: the page sends its state, the server writes the
//!   TOML (the `toml` crate's serialiser, so the quoting is right), checks it with
//!   [`intruder_runner::Experiment::from_toml`], and runs exactly that text with
//!   [`intruder_runner::run_experiment_watched`]. "Export" downloads the same text, so
//!   `intruder run` on it reproduces the page's figures by construction (a test checks it).
//! - Access: a random token in the printed URL, as Jupyter does. The first request carries it
//!   in the query; the answer sets it as a cookie (`SameSite=Strict`, `HttpOnly`), which later
//!   requests send. Every request without it is refused with 403 ([`auth`]).
//! - Files: only uploads (stored in a private temporary directory, size-limited) or files
//!   under `--root`, or the one FILE named on the command line. A path with `..`, an absolute
//!   path, or one whose symbolic links lead out of the root is refused — on loading and in
//!   every string of a submitted experiment ([`files::Place::check_experiment`]).
//! - The server binds 127.0.0.1 unless told otherwise; the caller warns when it is not.
#![deny(missing_docs)]

pub mod auth;
pub mod data;
pub mod files;
pub mod jobs;
pub mod page;
pub mod records;
mod routes;

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};

/// The largest upload accepted by default: 256 MiB.
pub const DEFAULT_UPLOAD_LIMIT: usize = 256 << 20;

/// How to start the server.
#[derive(Debug, Clone)]
pub struct Config {
    /// The address to bind (default 127.0.0.1).
    pub host: String,
    /// The port (0: any free port).
    pub port: u16,
    /// The directory whose files the page may read (none: uploads and `file` only).
    pub root: Option<PathBuf>,
    /// One file the page opens with (read where it is; nothing else beside it is readable,
    /// but for its schema file).
    pub file: Option<PathBuf>,
    /// The largest upload, in bytes.
    pub upload_limit: usize,
}

impl Default for Config {
    /// 127.0.0.1, any free port, no root, no file, [`DEFAULT_UPLOAD_LIMIT`].
    fn default() -> Self {
        Config {
            host: "127.0.0.1".into(),
            port: 0,
            root: None,
            file: None,
            upload_limit: DEFAULT_UPLOAD_LIMIT,
        }
    }
}

impl Config {
    /// Whether the host is a loopback address (nobody else on the network can connect).
    pub fn is_loopback(&self) -> bool {
        match self.host.parse::<std::net::IpAddr>() {
            Ok(ip) => ip.is_loopback(),
            Err(_) => self.host == "localhost",
        }
    }
}

/// A server bound to its port, not serving yet.
pub struct Server {
    listener: TcpListener,
    state: Arc<routes::AppState>,
}

impl Server {
    /// Checks the configuration (the root is a directory, the file is a file), binds the port
    /// and draws the access token.
    pub fn bind(config: &Config) -> Result<Server> {
        let root = match &config.root {
            Some(r) => {
                let c = r
                    .canonicalize()
                    .with_context(|| format!("--root {}", r.display()))?;
                if !c.is_dir() {
                    bail!("--root {}: not a directory", r.display());
                }
                Some(c)
            }
            None => None,
        };
        let file = match &config.file {
            Some(f) => {
                let c = f.canonicalize().with_context(|| f.display().to_string())?;
                if !c.is_file() {
                    bail!("{}: not a file", f.display());
                }
                Some(c)
            }
            None => None,
        };
        let listener = TcpListener::bind((config.host.as_str(), config.port))
            .with_context(|| format!("binding {}:{}", config.host, config.port))?;
        listener.set_nonblocking(true)?;
        let places = files::Places::new(root, file)?;
        let state = Arc::new(routes::AppState::new(
            auth::new_token(),
            places,
            config.upload_limit,
        ));
        Ok(Server { listener, state })
    }

    /// The address bound.
    pub fn addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)))
    }

    /// The access token.
    pub fn token(&self) -> &str {
        &self.state.token
    }

    /// The URL to open: the page with its token.
    pub fn url(&self) -> String {
        let addr = self.addr();
        let host = if addr.ip().is_unspecified() {
            "127.0.0.1".to_string()
        } else if addr.is_ipv6() {
            format!("[{}]", addr.ip())
        } else {
            addr.ip().to_string()
        };
        format!("http://{host}:{}/?token={}", addr.port(), self.token())
    }

    /// Serves until the process is interrupted (Ctrl-C, or SIGTERM on Unix), on a
    /// multi-threaded tokio runtime of its own; then stops and removes the session's private
    /// directory with its uploads, generated data and runs.
    pub fn run(self) -> Result<()> {
        self.run_until(interrupted())
    }

    /// Serves until `stop` completes, then stops: connections still open are dropped, the
    /// runtime gets [`STOP_GRACE`] for its tasks, and the session's private directory (uploads,
    /// generated data, runs) is removed — an interrupted server leaves no copy of the data it
    /// was given behind.
    pub fn run_until(self, stop: impl Future<Output = ()> + Send + 'static) -> Result<()> {
        let work = self.state.places.work().to_path_buf();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("starting the runtime")?;
        let served = rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(self.listener)?;
            tokio::select! {
                served = axum::serve(listener, routes::router(self.state)) => served,
                () = stop => Ok(()),
            }
        });
        rt.shutdown_timeout(STOP_GRACE);
        // An experiment still running on its own thread may hold the state (and so the
        // directory's owner) past this point: the directory goes now all the same.
        let removed = match std::fs::remove_dir_all(&work) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e)
                .with_context(|| format!("removing the session's directory {}", work.display())),
            _ => Ok(()),
        };
        served.context("serving")?;
        removed
    }

    /// Serves on a background thread (tests, and a caller that goes on working): the address
    /// and token stay readable from the handle. The server stops, and its private directory
    /// goes, when the last clone of the handle is dropped (or at [`Running::stop`]).
    pub fn spawn(self) -> Running {
        let addr = self.addr();
        let token = self.state.token.clone();
        let url = self.url();
        let uploads = self.state.places.uploads();
        let (tell, told) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let stop = async move {
                // A dropped sender stops the server too.
                let _ = told.await;
            };
            if let Err(e) = self.run_until(stop) {
                eprintln!("error: intruder serve: {e:#}");
            }
        });
        Running {
            addr,
            token,
            url,
            uploads,
            stopper: Arc::new(Stopper {
                tell: std::sync::Mutex::new(Some(tell)),
                thread: std::sync::Mutex::new(Some(thread)),
            }),
        }
    }
}

/// How long a stopping server gives its tasks before the runtime drops them.
pub const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// Completes at Ctrl-C, or at SIGTERM on Unix.
async fn interrupted() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            // No handler could be installed: serve until the process is killed.
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// Stops a spawned server when the last handle goes: tells it to stop and waits for it.
#[derive(Debug)]
struct Stopper {
    tell: std::sync::Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    thread: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Stopper {
    fn stop(&self) {
        if let Some(tell) = self.tell.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = tell.send(());
        }
        let thread = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(thread) = thread {
            let _ = thread.join();
        }
    }
}

impl Drop for Stopper {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A server serving on a background thread.
#[derive(Debug, Clone)]
pub struct Running {
    /// The address bound.
    pub addr: SocketAddr,
    /// The access token.
    pub token: String,
    /// The URL to open.
    pub url: String,
    /// The directory uploads are stored in (the session's, removed with it).
    pub uploads: PathBuf,
    /// Stops the server when the last clone of the handle is dropped.
    stopper: Arc<Stopper>,
}

impl Running {
    /// Stops the server now (whatever other clones of the handle remain) and waits until it
    /// has stopped and removed its private directory.
    pub fn stop(&self) {
        self.stopper.stop();
    }
}
