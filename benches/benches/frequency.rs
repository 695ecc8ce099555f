//! Criterion benchmarks of the frequency counts on in-memory tables (fixed seed): listwise
//! classes and wildcard n_match, 1,000,000 rows × 10 skewed keys, 10% missing in 3 of them.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use intruder_data::{Column, Role, Table};
use intruder_risk::{MissingPolicy, SetMatch, equivalence_classes, n_match};

/// A skewed table: key k has `card[k]` categories with probabilities ∝ 1/(rank+1); keys 7–9 are
/// missing 10% of the time. xorshift with a fixed seed.
fn table(n: usize) -> (Table, Vec<String>) {
    let card = [2u64, 3, 5, 8, 12, 20, 30, 50, 80, 120];
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut cols = Vec::new();
    let mut names = Vec::new();
    for (k, &c) in card.iter().enumerate() {
        let cum: Vec<f64> = (0..c)
            .scan(0.0, |s, r| {
                *s += 1.0 / (r as f64 + 1.0);
                Some(*s)
            })
            .collect();
        let total = *cum.last().unwrap();
        let v: Vec<Option<i64>> = (0..n)
            .map(|_| {
                let u = (next() >> 11) as f64 / (1u64 << 53) as f64 * total;
                let val = cum.iter().position(|&p| u < p).unwrap_or(c as usize - 1) as i64;
                if k >= 7 && next() % 10 == 0 {
                    None
                } else {
                    Some(val)
                }
            })
            .collect();
        cols.push(Column::integer(format!("k{k}"), Role::Key, &v));
        names.push(format!("k{k}"));
    }
    (Table::new("bench", cols).unwrap(), names)
}

fn bench(c: &mut Criterion) {
    let n = 1_000_000;
    let (t, names) = table(n);
    let mut g = c.benchmark_group("frequency");
    g.sample_size(10);
    g.bench_function(BenchmarkId::new("listwise", n), |b| {
        b.iter(|| {
            equivalence_classes(&t, &names, MissingPolicy::Listwise, SetMatch::Overlap).unwrap()
        })
    });
    g.bench_function(BenchmarkId::new("wildcard_n_match", n), |b| {
        b.iter(|| n_match(&t, &names, SetMatch::Overlap, None).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
