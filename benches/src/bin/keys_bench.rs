//! The engines that code key variables and match records with missing values as wildcards,
//! timed in one process on fixed-seed tables: listwise classes, wildcard n_match, local
//! suppression (its updatable index) and the exact attack under the wildcard policy.
//!
//! ```sh
//! cargo run --release -p intruder-benches --bin keys_bench                  # wall times, best of 3
//! RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/keys_bench --once --only n_match                       # instructions …
//! RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/keys_bench --setup-only --only n_match                 # … minus the setup's
//! ```
//!
//! Wall times on a shared machine vary; instruction counts under callgrind (one thread) do not,
//! so before/after comparisons of a refactoring use both.

use std::time::Instant;

use intruder_attack::{Attack, ExactMatch, KeyMap, Knowledge, MissingPolicy as AttackMissing};
use intruder_data::{Column, Role, Table};
use intruder_defence::Pipeline;
use intruder_risk::{MissingPolicy, SetMatch, equivalence_classes, n_match};

/// A skewed table: key k has `card[k]` categories with probabilities ∝ 1/(rank+1); the last
/// `missing_keys` keys are missing 10% of the time. xorshift with a fixed seed.
fn table(n: usize, card: &[u64], missing_keys: usize, seed: u64) -> (Table, Vec<String>) {
    let mut x = 0x2545_f491_4f6c_dd1du64 ^ seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut cols = Vec::new();
    let mut names = Vec::new();
    let first_missing = card.len().saturating_sub(missing_keys);
    for (k, &c) in card.iter().enumerate() {
        let cum: Vec<f64> = (0..c)
            .scan(0.0, |s, r| {
                *s += 1.0 / (r as f64 + 1.0);
                Some(*s)
            })
            .collect();
        let total = cum.last().copied().unwrap_or(1.0);
        let v: Vec<Option<i64>> = (0..n)
            .map(|_| {
                let u = (next() >> 11) as f64 / (1u64 << 53) as f64 * total;
                let val = cum.iter().position(|&p| u < p).unwrap_or(c as usize - 1) as i64;
                if k >= first_missing && next() % 10 == 0 {
                    None
                } else {
                    Some(val)
                }
            })
            .collect();
        cols.push(Column::integer(format!("k{k}"), Role::Key, &v));
        names.push(format!("k{k}"));
    }
    (Table::new("bench", cols).expect("valid table"), names)
}

fn time<T>(reps: usize, mut f: impl FnMut() -> T) -> f64 {
    if reps == 0 {
        return 0.0;
    }
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        std::hint::black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let once = args.iter().any(|a| a == "--once");
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned();
    // `--setup-only` builds the inputs without running the engines, so that an instruction count
    // of the engine alone is the difference of two callgrind runs.
    let reps = if args.iter().any(|a| a == "--setup-only") {
        0
    } else if once {
        1
    } else {
        3
    };
    let want = |name: &str| only.as_deref().is_none_or(|o| o == name);
    let mut out = serde_json::Map::new();

    let card10 = [2u64, 3, 5, 8, 12, 20, 30, 50, 80, 120];
    if want("classes") || want("n_match") {
        let (t, keys) = table(200_000, &card10, 3, 1);
        if want("classes") {
            let s = time(reps, || {
                equivalence_classes(&t, &keys, MissingPolicy::Listwise, SetMatch::Overlap)
            });
            out.insert("classes_listwise_200k_x10".into(), s.into());
        }
        if want("n_match") {
            let s = time(reps, || n_match(&t, &keys, SetMatch::Overlap, None));
            out.insert("n_match_wildcard_200k_x10".into(), s.into());
        }
    }
    if want("suppression") {
        let (t, keys) = table(20_000, &[2, 5, 8, 12, 20], 2, 2);
        let mut step = toml::Table::new();
        step.insert(
            "keys".into(),
            toml::Value::Array(keys.iter().cloned().map(toml::Value::String).collect()),
        );
        step.insert("k".into(), toml::Value::Integer(3));
        let p = Pipeline::single("local-suppression", step, "bench")?;
        let s = time(reps, || p.run(&t, 7).map(|(m, _)| m.nrows()));
        out.insert("local_suppression_k3_20k_x5".into(), s.into());
    }
    if want("exact") {
        let card = [2u64, 3, 5, 8, 12, 20];
        let (released, keys) = table(100_000, &card, 2, 3);
        let rows: Vec<usize> = (0..released.nrows()).step_by(10).collect();
        let intruder = released.take(&rows);
        let attack = ExactMatch::new(AttackMissing::Wildcard);
        let knowledge = Knowledge::new(&intruder, KeyMap::same(&keys)?)?;
        let s = time(reps, || {
            attack
                .link(&knowledge, &released, 0)
                .map(|l| l.linkage.records.len())
        });
        out.insert("exact_wildcard_10k_x_100k_x6".into(), s.into());
    }
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
