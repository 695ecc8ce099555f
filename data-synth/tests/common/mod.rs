//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};

use intruder_synth::figures::Figure;

/// Generate `name` with `sets` and `seed` into a fresh temporary directory.
pub fn generate(name: &str, seed: u64, sets: &[&str]) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let files = intruder_synth::run(name, None, &sets, seed, dir.path()).expect("generate");
    (dir, files)
}

/// The value of figure `name`.
pub fn figure(figs: &[Figure], name: &str) -> f64 {
    figs.iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("no figure {name}"))
        .value
}

/// Assert `value` is within `tol` of `target`.
pub fn near(what: &str, value: f64, target: f64, tol: f64) {
    assert!(
        (value - target).abs() <= tol,
        "{what}: generated {value:.4}, published {target:.4}, tolerance {tol}"
    );
}

/// Bytes of every file in `dir`, by file name, sorted.
pub fn contents(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| {
            let e = e.expect("entry");
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).expect("read"),
            )
        })
        .collect();
    v.sort();
    v
}
