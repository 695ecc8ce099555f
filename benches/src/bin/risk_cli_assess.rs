//! Times what `intruder risk` does after reading its file: the registry's `configure` and the
//! measure's `assess`, on the table loaded exactly as the command line loads it. This is "the
//! CLI's counting time (no CSV round trip)" that `benches/python/risk_bench.py` compares
//! `intruder.risk` on an in-memory DataFrame with. Prints one JSON object.
//!
//! `cargo run --release -p intruder-benches --bin risk_cli_assess -- FILE key1,key2,... [--missing POLICY] [--repeat N] [--per-record]`

use std::time::Instant;

use anyhow::{Context, Result, anyhow};
use intruder_data::params::ReadContext;
use intruder_data::{Input, Role, load};
use intruder_risk::{configure, fill_roles};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: risk_cli_assess FILE KEYS [--missing POLICY] [--repeat N] [--per-record]";
    let file = args.get(1).context(usage)?;
    let keys: Vec<String> = args
        .get(2)
        .context(usage)?
        .split(',')
        .map(str::to_string)
        .collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    let missing = opt("--missing").map_or("listwise", String::as_str);
    let repeat: usize = opt("--repeat")
        .map(|r| r.parse())
        .transpose()?
        .unwrap_or(3)
        .max(1);
    let per_record = args.iter().any(|a| a == "--per-record");
    let cpu = || intruder_benches::process_cpu_seconds().unwrap_or(f64::NAN);

    // As `intruder risk --data FILE --keys … --missing …`: the keys get the role key.
    let (t, c) = (Instant::now(), cpu());
    let input = Input {
        roles: keys.iter().map(|k| (k.clone(), Role::Key)).collect(),
        ..Input::default()
    };
    let ds = load(file.as_ref(), &input)?;
    let (load_s, load_cpu_s) = (t.elapsed().as_secs_f64(), cpu() - c);
    let rss_after_load = intruder_benches::peak_rss_bytes();

    let mut table = toml::Table::new();
    table.insert(
        "keys".into(),
        toml::Value::Array(keys.iter().map(|k| k.as_str().into()).collect()),
    );
    table.insert("missing".into(), missing.into());
    let mut best = (f64::INFINITY, f64::NAN);
    let mut summary = serde_json::Value::Null;
    for _ in 0..repeat {
        let (t, c) = (Instant::now(), cpu());
        // What the command line does after `load`: the column set, role defaults, the
        // registry's configure, then assess.
        let columns = ds.column_set();
        let mut params = table.clone();
        fill_roles(&mut params, &columns);
        let ctx = ReadContext {
            base_dir: None,
            columns: Some(&columns),
        };
        let built = configure(&params, "", ctx, &[])
            .map_err(|p| anyhow!("{} problems: {:?}", p.len(), p))?;
        let outcome = built.method.assess(&ds.table, per_record)?;
        let wall = t.elapsed().as_secs_f64();
        if wall < best.0 {
            best = (wall, cpu() - c);
        }
        summary = outcome.report.to_json();
    }
    let out = serde_json::json!({
        "rows": ds.table.nrows(),
        "keys": keys.len(),
        "missing": missing,
        "per_record": per_record,
        "threads": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
        "load_s": load_s,
        "load_cpu_s": load_cpu_s,
        "assess_s": best.0,
        "assess_cpu_s": best.1,
        "repeat": repeat,
        "peak_rss_after_load_bytes": rss_after_load,
        "peak_rss_bytes": intruder_benches::peak_rss_bytes(),
        "summary": summary,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
