//! Test files and comparisons.

use std::path::{Path, PathBuf};

use intruder_data::report::Figure;
use intruder_data::{Input, load};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A file of `n` records: keys `region` (text, 6 values, 8% missing), `age` (integer, 12
/// values, 10% missing), `sex` (text, 2 values), `job` (integer, 40 values, skewed, 5%
/// missing), a weight `w` (10 to 60, some below 1 when `light`), written as CSV and Parquet.
pub fn survey(dir: &Path, name: &str, n: usize, seed: u64, light: bool) -> (PathBuf, PathBuf) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut csv = String::from("id,region,age,sex,job,w\n");
    let regions = ["north", "south", "east", "west", "centre", "isles"];
    for i in 0..n {
        let miss = |rng: &mut ChaCha8Rng, p: f64| rng.r#gen::<f64>() < p;
        let region = if miss(&mut rng, 0.08) {
            "NA".to_string()
        } else {
            regions[rng.gen_range(0..regions.len())].to_string()
        };
        let age = if miss(&mut rng, 0.10) {
            String::new()
        } else {
            (20 + 5 * rng.gen_range(0..12)).to_string()
        };
        let sex = if rng.gen_range(0..2) == 0 { "f" } else { "m" };
        let job = if miss(&mut rng, 0.05) {
            ".".to_string()
        } else {
            let u: f64 = rng.r#gen();
            ((u * u * 40.0) as u32).to_string()
        };
        let w = if light && i % 97 == 3 {
            0.5
        } else {
            10.0 + rng.gen_range(0..51) as f64
        };
        csv.push_str(&format!("{i},{region},{age},{sex},{job},{w}\n"));
    }
    let c = dir.join(format!("{name}.csv"));
    std::fs::write(&c, csv).unwrap();
    let p = dir.join(format!("{name}.parquet"));
    let ds = load(&c, &Input::default()).unwrap();
    intruder_data::write_parquet(&p, &ds).unwrap();
    (c, p)
}

/// Asserts two reports hold the same figures: counts and labels exactly, numbers to a
/// relative 1e-12 (sums of weights are added in another order).
pub fn same_figures(local: &[Figure], engine: &[Figure], what: &str) {
    let names = |f: &[Figure]| f.iter().map(|x| x.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(local), names(engine), "{what}: figure names");
    for (a, b) in local.iter().zip(engine) {
        match (a.value.as_f64(), b.value.as_f64()) {
            (Some(x), Some(y)) if a.value.is_f64() || b.value.is_f64() => {
                let tol = 1e-12 * x.abs().max(y.abs()).max(1e-300);
                assert!(
                    (x - y).abs() <= tol,
                    "{what}: {} local {x} engine {y}",
                    a.name
                );
            }
            _ => assert_eq!(a.value, b.value, "{what}: {}", a.name),
        }
    }
}
