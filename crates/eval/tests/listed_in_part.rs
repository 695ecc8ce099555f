//! Exact matching lists at most `max_listed` candidates per record (issue 19): the counts stay
//! exact, and every figure of the evaluator (matches, tie-breaks, ranks, Mitra's p_i and r_i,
//! precision and recall) is the same with and without the cap, on files where the cap bites,
//! under every missing-value policy.

use crate::common;

use common::{eval, load, run};
use intruder_attack::KeyMap;

/// A released file of `nr` records on two weak keys (some missing) and a numeric sensitive
/// variable; the intruder holds the first `twins` of them and `others` persons not released.
fn files(seed: u64, nr: usize, twins: usize, others: usize) -> (String, String) {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = |m: u64| {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 33) % m
    };
    let mut rows = Vec::new();
    for k in 0..nr + others {
        let a = match next(10) {
            0 => String::new(),
            v => ["x", "y"][(v % 2) as usize].to_string(),
        };
        let b = match next(12) {
            0 => String::new(),
            v => (v % 3).to_string(),
        };
        let y = 100 + next(50);
        rows.push((format!("P{k}"), a, b, y));
    }
    let mut released = String::from("pid,a,b,y\n");
    for (id, a, b, y) in &rows[..nr] {
        released.push_str(&format!("{id},{a},{b},{y}\n"));
    }
    let mut intruder = String::from("pid,a,b,y_true\n");
    for (id, a, b, y) in rows[..twins].iter().chain(&rows[nr..]) {
        intruder.push_str(&format!("{id},{a},{b},{y}\n"));
    }
    (intruder, released)
}

#[test]
fn figures_are_the_same_with_and_without_the_cap() {
    let (i, r) = files(3, 600, 250, 80);
    let i = load(&i, "i.csv", &["pid", "y_true"]);
    let r = load(&r, "r.csv", &["pid"]);
    let keys = KeyMap::same(&["a", "b"]).unwrap();
    for missing in ["listwise", "as-value", "wildcard"] {
        let whole = run(
            &format!("method = \"exact\"\nmissing = \"{missing}\"\nmax_listed = 1000000"),
            &i,
            &r,
            &keys,
        );
        assert!(whole.records.iter().all(|c| c.unlisted == 0));
        assert!(whole.notes.is_empty());
        let biggest = whole.records.iter().map(|c| c.list.len()).max().unwrap();
        assert!(biggest > 90, "{missing}: the cap must bite ({biggest})");
        let mut want = eval(&whole, &i, &r, Some("pid"), Some(("y", "y_true")));
        assert!(
            want.ties_broken > 100,
            "{missing}: {} ties broken",
            want.ties_broken
        );
        for cap in [1usize, 7, 90] {
            let part = run(
                &format!("method = \"exact\"\nmissing = \"{missing}\"\nmax_listed = {cap}"),
                &i,
                &r,
                &keys,
            );
            let mut not_listed = 0usize;
            let mut in_part = 0usize;
            for (w, p) in whole.records.iter().zip(&part.records) {
                // The count is exact; the listed rows are the smallest.
                assert_eq!(p.total(), w.list.len());
                assert_eq!(p.best_ties(), w.best_ties());
                assert_eq!(p.list.len(), w.list.len().min(cap));
                assert_eq!(p.list[..], w.list[..p.list.len()]);
                not_listed += p.unlisted;
                in_part += usize::from(p.unlisted > 0);
            }
            let note = |n: &str| part.notes.iter().find(|x| x.0 == n).map(|x| x.1);
            assert_eq!(note("max_listed"), Some(cap as f64));
            assert_eq!(note("candidates_not_listed"), Some(not_listed as f64));
            assert_eq!(note("records_listed_in_part"), Some(in_part as f64));
            let mut got = eval(&part, &i, &r, Some("pid"), Some(("y", "y_true")));
            got.notes.clear();
            want.notes.clear();
            assert_eq!(
                format!("{got:?}"),
                format!("{want:?}"),
                "{missing}, max_listed {cap}"
            );
            assert_eq!(
                format!("{:?}", got.records),
                format!("{:?}", want.records),
                "{missing}, max_listed {cap}"
            );
        }
    }
}

/// A linkage listed in part that cannot list the rest is refused, not scored on a part.
#[test]
fn a_linkage_listed_in_part_without_a_lister_is_an_error() {
    let (i, r) = files(5, 200, 100, 10);
    let i = load(&i, "i.csv", &["pid", "y_true"]);
    let r = load(&r, "r.csv", &["pid"]);
    let keys = KeyMap::same(&["a"]).unwrap();
    let mut part = run("method = \"exact\"\nmax_listed = 2", &i, &r, &keys);
    part.lister = None;
    let opts = intruder_eval::EvalOptions {
        truth: Some(intruder_eval::TruthIds {
            intruder: "pid".into(),
            released: "pid".into(),
        }),
        sensitive: None,
        threshold: None,
        seed: 1,
    };
    let e = intruder_eval::evaluate(
        &part,
        &intruder_eval::Labelled::from_dataset(i.clone()),
        &intruder_eval::Labelled::from_dataset(r.clone()),
        &opts,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("lists 2 of the") && e.contains("max_listed"),
        "{e}"
    );
}
