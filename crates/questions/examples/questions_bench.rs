//! One question on three CSV files, timed, for the side-by-side benchmark with anonymeter
//! (benches/questions/run.py): prints one JSON line with the counts, rates, risk, interval,
//! warnings, and the CPU and wall time of the question alone (the files are read before the
//! clocks start; CPU time is the process's user + system time from /proc/self/stat, every
//! thread included).
//!
//! Usage: questions_bench QUESTION ORIGINAL.csv CONTROL.csv RELEASED.csv PARAMS_TOML SEED
//! where QUESTION is singling-out, linkability or inference and PARAMS_TOML the parameters
//! as TOML (`n_attacks = 2000\nmode = "univariate"`).
use std::path::Path;
use std::time::Instant;

use intruder_data::{Input, load};
use intruder_questions::{
    InferenceParams, LinkabilityParams, QuestionResult, SinglingOutParams, inference, linkability,
    singling_out,
};

/// The process's CPU time so far (user + system, all threads), in seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at the last ')'.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

/// A JSON string.
fn quoted(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 7 {
        return Err("usage: questions_bench QUESTION ORIGINAL.csv CONTROL.csv RELEASED.csv PARAMS_TOML SEED".into());
    }
    let read = |p: &str| load(Path::new(p), &Input::default()).map(|d| d.table);
    let (original, control, released) = (read(&a[2])?, read(&a[3])?, read(&a[4])?);
    let params: toml::Table = a[5].parse()?;
    let seed: u64 = a[6].parse()?;
    let (cpu, wall) = (cpu_seconds(), Instant::now());
    let r: QuestionResult = match a[1].as_str() {
        "singling-out" => {
            let p = SinglingOutParams::from_table(&params, "PARAMS_TOML")?;
            singling_out(&original, &control, &released, &p, seed)?
        }
        "linkability" => {
            let p = LinkabilityParams::from_table(&params, "PARAMS_TOML")?;
            linkability(&original, &control, &released, &p, seed)?
        }
        "inference" => {
            let p = InferenceParams::from_table(&params, "PARAMS_TOML")?;
            inference(&original, &control, &released, &p, seed)?
        }
        q => return Err(format!("unknown question '{q}'").into()),
    };
    let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    let warnings: Vec<String> = r.warnings.iter().map(|w| quoted(w)).collect();
    println!(
        "{{\"tool\": \"intruder\", \"n_attacks\": {}, \"n_success\": {}, \"n_control\": {}, \"n_baseline\": {}, \"attack_rate\": [{}, {}], \"control_rate\": [{}, {}], \"baseline_rate\": [{}, {}], \"risk\": {}, \"risk_ci\": [{}, {}], \"warnings\": [{}], \"cpu_s\": {cpu:.3}, \"wall_s\": {wall:.3}}}",
        r.n_attacks,
        r.n_success,
        r.n_control,
        r.n_baseline,
        r.attack_rate.value,
        r.attack_rate.error,
        r.control_rate.value,
        r.control_rate.error,
        r.baseline_rate.value,
        r.baseline_rate.error,
        r.risk,
        r.risk_ci.0,
        r.risk_ci.1,
        warnings.join(", ")
    );
    Ok(())
}
