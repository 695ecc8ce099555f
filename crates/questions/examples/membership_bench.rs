//! Membership inference or the distances to the closest record on three CSV files, timed, for
//! benches/questions/membership.py: prints one JSON line with the figures and the CPU and wall
//! time of the measure alone (the files are read before the clocks start; CPU time is the
//! process's user + system time from /proc/self/stat, every thread included).
//!
//! Usage: membership_bench membership|dcr ORIGINAL.csv CONTROL.csv RELEASED.csv PARAMS_TOML SEED
use std::path::Path;
use std::time::Instant;

use intruder_data::{Input, load};
use intruder_questions::{DistanceParams, MembershipParams, distances, membership};

/// The process's CPU time so far (user + system, all threads), in seconds.
fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() != 7 {
        return Err("usage: membership_bench membership|dcr ORIGINAL.csv CONTROL.csv RELEASED.csv PARAMS_TOML SEED".into());
    }
    let read = |p: &str| load(Path::new(p), &Input::default()).map(|d| d.table);
    let (original, control, released) = (read(&a[2])?, read(&a[3])?, read(&a[4])?);
    let params: toml::Table = a[5].parse()?;
    let seed: u64 = a[6].parse()?;
    let (cpu, wall) = (cpu_seconds(), Instant::now());
    let figures: Vec<(&str, f64)> = match a[1].as_str() {
        "membership" => {
            let p = MembershipParams::from_table(&params, "PARAMS_TOML")?;
            let m = membership(&original, &control, &released, &p, seed)?;
            vec![
                ("auc", m.auc),
                ("tpr_at_fpr_1", m.tpr_at_fpr_1),
                ("tpr_at_fpr_10", m.tpr_at_fpr_10),
                ("advantage", m.advantage),
                ("n_members", m.n_members as f64),
            ]
        }
        "dcr" => {
            let p = DistanceParams::from_table(&params, "PARAMS_TOML")?;
            let d = distances(&original, &control, &released, &p, seed)?;
            vec![
                ("overfitting_protection", d.overfitting_protection),
                ("closer_to_training", d.closer_to_training),
                ("median_dcr_release", d.median_dcr_release),
                ("median_dcr_holdout", d.median_dcr_holdout),
                ("median_nndr_release", d.median_nndr_release),
                ("exact_copies", d.exact_copies),
            ]
        }
        q => return Err(format!("unknown measure '{q}'").into()),
    };
    let (wall, cpu) = (wall.elapsed().as_secs_f64(), cpu_seconds() - cpu);
    let body: Vec<String> = figures
        .iter()
        .map(|(k, v)| format!("\"{k}\": {v}"))
        .collect();
    println!(
        "{{\"tool\": \"intruder\", \"measure\": \"{}\", {}, \"cpu_s\": {cpu:.3}, \"wall_s\": {wall:.3}}}",
        a[1],
        body.join(", ")
    );
    Ok(())
}
