//! Times one attack on two CSV files (load time apart from attack time), for
//! `benches/attack/run.py`. Usage:
//!
//! `attack_bench METHOD INTRUDER.csv RELEASED.csv KEYS TRUTH [BEST_OUT.csv]`
//!
//! Prints one JSON line: seconds to load, to attack, to evaluate, and the main figures. With
//! `BEST_OUT.csv`, writes each intruder record's smallest distance (nearest) so the harness can
//! check it against scikit-learn.

use std::io::Write;
use std::time::Instant;

use intruder_attack::{KeyMap, configure};
use intruder_data::params::ReadContext;
use intruder_data::{ReadOptions, Role, read_csv};
use intruder_eval::{EvalOptions, Labelled, TruthIds, evaluate};

/// CPU seconds (user + system) of this process so far, from /proc/self/stat (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 6 {
        return Err(
            "usage: attack_bench METHOD INTRUDER.csv RELEASED.csv KEYS TRUTH [BEST_OUT.csv]".into(),
        );
    }
    let (method, ipath, rpath, keys, truth) = (&a[1], &a[2], &a[3], &a[4], &a[5]);
    let keys: Vec<&str> = keys.split(',').collect();
    let opts = ReadOptions::default().with_role(&[truth.as_str()], Role::Truth);
    let t0 = Instant::now();
    let i = Labelled::from_dataset(read_csv(ipath.as_ref(), &opts)?);
    let r = Labelled::from_dataset(read_csv(rpath.as_ref(), &opts)?);
    let load = t0.elapsed().as_secs_f64();
    let mut params = toml::Table::new();
    params.insert("method".into(), method.as_str().into());
    let attack = configure(&params, "", ReadContext::default())
        .map_err(|p| {
            p.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ")
        })?
        .attack;
    let knowledge = i.knowledge(KeyMap::same(&keys)?)?;
    let (t1, c1) = (Instant::now(), cpu_seconds());
    let linkage = attack.link(&knowledge, r.table(), 0)?.linkage;
    let link = t1.elapsed().as_secs_f64();
    let link_cpu = cpu_seconds() - c1;
    let t2 = Instant::now();
    let ev = evaluate(
        &linkage,
        &i,
        &r,
        &EvalOptions {
            truth: Some(TruthIds {
                intruder: truth.clone(),
                released: truth.clone(),
            }),
            sensitive: None,
            threshold: None,
            seed: 1,
        },
    )?;
    let eval = t2.elapsed().as_secs_f64();
    if let Some(out) = a.get(6) {
        let mut f = std::io::BufWriter::new(std::fs::File::create(out)?);
        writeln!(f, "best_distance")?;
        for rec in &linkage.records {
            writeln!(f, "{}", rec.list.first().map_or(f64::NAN, |c| -c.score))?;
        }
    }
    println!(
        "{{\"method\":\"{method}\",\"threads\":{},\"intruder\":{},\"released\":{},\"keys\":{},\"load_s\":{load:.3},\"attack_s\":{link:.3},\"attack_cpu_s\":{link_cpu:.2},\"evaluate_s\":{eval:.3},\"correct_match_rate\":{},\"expected_correct\":{:.3},\"in_candidates\":{}}}",
        rayon::current_num_threads(),
        i.nrows(),
        r.nrows(),
        keys.len(),
        ev.correct_match_rate.unwrap_or(f64::NAN),
        ev.expected_correct,
        ev.in_candidates
    );
    Ok(())
}
