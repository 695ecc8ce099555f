//! `linkage-pair`: overlap and corruption rates of file B.

use crate::common;

use common::{figure, generate, near};
use intruder_synth::figures::{Table, class_sizes, linkage_pair};

#[test]
fn overlap_and_error_rates_match_the_parameters() {
    // 8,000 shared persons: s.e. of a 10% share of 16,000 names is 0.0024.
    let (dir, _) = generate("linkage-pair", 6, &["n=16000", "n_b=12000"]);
    let f = linkage_pair(dir.path()).expect("figures");
    assert_eq!(figure(&f, "persons in both files"), 8000.0);
    assert_eq!(figure(&f, "file B records"), 12000.0);
    near("typos", figure(&f, "names with a typo"), 0.10, 0.012);
    near("missing", figure(&f, "fields missing"), 0.05, 0.006);
    // A swap is invisible when both names are missing or both carry a typo (~1%).
    near("swaps", figure(&f, "first-name/surname swaps"), 0.02, 0.006);
    near("years", figure(&f, "birth years off by one"), 0.05, 0.01);
}

#[test]
fn surnames_have_a_skewed_frequency() {
    let (dir, _) = generate("linkage-pair", 1, &["n=20000", "n_b=100", "overlap=0.005"]);
    let a = Table::read(&dir.path().join("file-a.csv")).expect("file a");
    let sizes = class_sizes(&a, &["surname"]);
    let mut counts: Vec<usize> = sizes.values().copied().collect();
    counts.sort_unstable_by(|x, y| y.cmp(x));
    assert!(counts.len() > 200, "{} surnames", counts.len());
    // Zipf-like: the most common surname is far more frequent than the median one.
    assert!(counts[0] > 20 * counts[counts.len() / 2], "{counts:?}");
}
