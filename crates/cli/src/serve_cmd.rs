//! `intruder serve [--port N] [--host H] [--root DIR] [FILE]`: the local web page (crate
//! `intruder-serve`). Prints the URL with its access token and serves until interrupted.

use std::path::PathBuf;

/// Arguments of `intruder serve`.
#[derive(clap::Args)]
#[command(
    after_help = "Examples:\n  intruder serve\n  intruder serve --root data/examples\n  intruder serve survey.csv --port 8765"
)]
pub struct Args {
    /// A data file the page opens with (nothing else beside it is readable but its schema).
    pub file: Option<PathBuf>,
    /// The port (0: any free port).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// The address to listen on. Anything but 127.0.0.1 (or ::1, localhost) lets other
    /// machines reach the page, which the token alone then protects.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// A directory whose data files the page may read (never a path out of it).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The largest upload, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = (intruder_serve::DEFAULT_UPLOAD_LIMIT >> 20) as u64)]
    pub upload_limit: u64,
}

/// Runs the command.
pub fn run(args: Args) -> anyhow::Result<()> {
    let config = intruder_serve::Config {
        host: args.host,
        port: args.port,
        root: args.root,
        file: args.file,
        upload_limit: usize::try_from(args.upload_limit.saturating_mul(1 << 20))
            .unwrap_or(usize::MAX),
    };
    if !config.is_loopback() {
        eprintln!(
            "warning: --host {}: the page is reachable from other machines; anyone with the URL's token can read the files it serves and run experiments",
            config.host
        );
    }
    let server = intruder_serve::Server::bind(&config)?;
    println!("intruder serve: open {}", server.url());
    println!("(stop with Ctrl-C)");
    server.run()
}
