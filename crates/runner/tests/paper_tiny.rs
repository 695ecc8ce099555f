//! `paper/values.csv` as the paper example regenerates it, at the `[tiny]` sizes: every study
//! with published values (`VALUE_STUDIES`) is rerun at its tiny size, restricted to what its
//! published values need, and its rows must equal `paper/values-tiny.csv` byte for byte (the
//! runs are seeded and independent of the thread count); `paper/values.csv` (the `[paper]`
//! sizes, checked within tolerances by `paper_values.rs`) must hold the same entries. After a
//! change that moves a value, regenerate with
//! `cargo run --release -p intruder-runner --example paper -- --tiny` and the paper itself.

#[path = "../examples/paper/values.rs"]
mod values;

/// (study, setting, metric) of every row of a values file.
fn entries(text: &str) -> Vec<String> {
    text.lines()
        .skip(1)
        .map(|l| l.rsplit_once(',').map_or(l, |(k, _)| k).to_string())
        .collect()
}

#[test]
fn paper_values_regenerate_at_the_tiny_size() {
    let root = values::root();
    let scratch = tempfile::tempdir().unwrap();
    let now = values::tiny_values(scratch.path()).expect("the studies run at their tiny sizes");
    let committed = std::fs::read_to_string(root.join("paper/values-tiny.csv"))
        .expect("paper/values-tiny.csv (written by the paper example with --tiny)");
    let moved: Vec<String> = now
        .lines()
        .zip(committed.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("now {a}\n  committed {b}"))
        .take(20)
        .collect();
    assert!(
        now == committed,
        "paper/values-tiny.csv differs from the tiny runs ({} rows now, {} committed):\n{}\n\
         regenerate: cargo run --release -p intruder-runner --example paper -- --tiny",
        now.lines().count(),
        committed.lines().count(),
        moved.join("\n")
    );
    let paper = std::fs::read_to_string(root.join("paper/values.csv")).expect("paper/values.csv");
    let (tiny, full) = (entries(&now), entries(&paper));
    let missing: Vec<&String> = tiny.iter().filter(|e| !full.contains(e)).collect();
    let extra: Vec<&String> = full.iter().filter(|e| !tiny.contains(e)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "paper/values.csv is not what the experiment files publish: missing {missing:?}, \
         not published any more {extra:?}; regenerate the paper"
    );
}
