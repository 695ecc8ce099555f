//! Times MDAV and local suppression on a seeded synthetic file of N records (default 100,000):
//! `cargo run --release -p intruder-defence --example bench_defence -- [N] [SEED]`.
//! Prints a markdown table for BENCHMARKS.md (section 5).

use std::time::Instant;

use intruder_data::{Column, Role, Table};
use intruder_defence::{Pipeline, wildcard_counts};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;
use rand_distr::{Distribution, LogNormal, Normal};

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let income = LogNormal::new(10.0, 0.8).expect("valid");
    let noise = Normal::<f64>::new(0.0, 1.0).expect("valid");
    let mut age = Vec::with_capacity(n);
    let mut sex = Vec::with_capacity(n);
    let mut region = Vec::with_capacity(n);
    let mut edu = Vec::with_capacity(n);
    let mut inc = Vec::with_capacity(n);
    let mut wealth = Vec::with_capacity(n);
    let mut hours = Vec::with_capacity(n);
    for _ in 0..n {
        let a: i64 = rng.gen_range(16..96);
        age.push(Some(a));
        sex.push(Some(if rng.r#gen::<bool>() { "M" } else { "F" }));
        region.push(Some(format!(
            "R{:02}",
            (rng.r#gen::<f64>().powi(2) * 40.0) as u32
        )));
        edu.push(Some(
            [
                "none", "primary", "lower", "upper", "bachelor", "master", "doctor",
            ][rng.gen_range(0..7)],
        ));
        let y: f64 = income.sample(&mut rng);
        inc.push(Some(y));
        wealth.push(Some(y * 3.0 + 20000.0 * noise.sample(&mut rng).abs()));
        hours.push(Some(40.0 + 8.0 * noise.sample(&mut rng)));
    }
    let t = Table::new(
        "bench",
        vec![
            Column::integer("age", Role::Key, &age),
            Column::categorical("sex", Role::Key, &sex, None).expect("valid"),
            Column::categorical("region", Role::Key, &region, None).expect("valid"),
            Column::categorical("edu", Role::Key, &edu, None).expect("valid"),
            Column::float("income", Role::Sensitive, &inc),
            Column::float("wealth", Role::Sensitive, &wealth),
            Column::float("hours", Role::Sensitive, &hours),
        ],
    )
    .expect("valid table");
    let keys: Vec<String> = ["age", "sex", "region", "edu"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let before = wildcard_counts(&t, &keys).expect("keys exist");
    let viol = before.iter().filter(|&&c| c < 3).count();
    println!("| step | records | parameters | seconds | result |");
    println!("|---|---|---|---|---|");
    let cases = [
        (
            "local-suppression",
            "keys = [\"age\", \"sex\", \"region\", \"edu\"]\nk = 3",
        ),
        (
            "mdav",
            "variables = [\"income\", \"wealth\", \"hours\"]\nk = 3",
        ),
        (
            "mdav",
            "variables = [\"income\", \"wealth\", \"hours\"]\nk = 10",
        ),
    ];
    for (m, params) in cases {
        let p = Pipeline::from_toml(&format!("[[step]]\nmethod = \"{m}\"\n{params}\n"), "bench")
            .expect("valid pipeline");
        let start = Instant::now();
        let (out, log) = p.run(&t, seed).expect("runs");
        let secs = start.elapsed().as_secs_f64();
        let result = if m == "local-suppression" {
            let after = wildcard_counts(&out, &keys).expect("keys exist");
            assert!(after.iter().all(|&c| c >= 3));
            format!(
                "{viol} records below k=3 before; {} suppressions; 3-anonymous after",
                log.suppressions
            )
        } else {
            log.steps[0].notes.join("; ")
        };
        println!(
            "| {m} | {n} | {} | {secs:.2} | {result} |",
            params.replace('\n', ", ")
        );
    }
}
