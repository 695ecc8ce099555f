//! The cross-examination (`intruder_eval::verdict`): its attack figures equal the exact attack's
//! as the evaluator scores it (random tables with blanks, changed cells and removed records), a
//! hand-worked case of the wildcard rule gamed, and every promise kind judged.

use intruder_attack::{ExactMatch, KeyMap, MissingPolicy};
use intruder_data::{Column, Role, Table};
use intruder_defence::{Claim, MatchRule, Pipeline, ProtectAgainst};
use intruder_eval::verdict::{Verdict, cross_examine};
use intruder_eval::{EvalOptions, Labelled, Truth, TruthIds, evaluate};
use proptest::prelude::*;

fn cat(name: &str, v: &[Option<&str>]) -> Column {
    Column::categorical(name, Role::Key, v, None).unwrap()
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Labels a table with a truth id per row (`ids[r]`).
fn labelled(t: &Table, ids: &[usize]) -> Labelled {
    let id: Vec<Option<i64>> = ids.iter().map(|&i| Some(i as i64)).collect();
    Labelled::new(
        t.clone(),
        Truth::new(vec![Column::integer("id", Role::Truth, &id)]),
    )
    .unwrap()
}

/// The exact attack run and scored the ordinary way: (expected correct, unique correct).
fn exact_scored(
    orig: &Table,
    rel: &Table,
    kept: &[usize],
    keys: &[String],
    missing: MissingPolicy,
) -> (f64, usize) {
    let i = labelled(orig, &(0..orig.nrows()).collect::<Vec<_>>());
    let r = labelled(rel, kept);
    let km = KeyMap::same(keys).unwrap();
    let linked = intruder_attack::Attack::link(
        &ExactMatch::new(missing),
        &i.knowledge(km).unwrap(),
        r.table(),
        0,
    )
    .unwrap();
    let ids = TruthIds {
        intruder: "id".into(),
        released: "id".into(),
    };
    let opts = EvalOptions {
        truth: Some(ids),
        sensitive: None,
        threshold: None,
        seed: 0,
    };
    let ev = evaluate(&linked.linkage, &i, &r, &opts).unwrap();
    (ev.expected_correct, ev.unique_correct)
}

fn table_strategy() -> impl Strategy<Value = (Table, Table, Vec<usize>)> {
    (1usize..=3, 2usize..=24).prop_flat_map(|(p, n)| {
        let cell = prop_oneof![1 => Just(None), 5 => (0u8..3).prop_map(Some)];
        let orig = proptest::collection::vec(proptest::collection::vec(cell.clone(), n), p);
        // per released cell: 0 keep, 1 blank, 2 change
        let edit = proptest::collection::vec(proptest::collection::vec(0u8..6, n), p);
        let keep = proptest::collection::vec(proptest::bool::weighted(0.8), n);
        (orig, edit, keep).prop_map(move |(orig, edit, keep)| {
            let kept: Vec<usize> = (0..n).filter(|&r| keep[r]).collect();
            let mk = |cols: &[Vec<Option<u8>>], rows: &[usize]| {
                let columns = cols
                    .iter()
                    .enumerate()
                    .map(|(j, v)| {
                        let s: Vec<Option<String>> = rows
                            .iter()
                            .map(|&r| v[r].map(|c| format!("v{c}")))
                            .collect();
                        Column::categorical(format!("k{j}"), Role::Key, &s, None).unwrap()
                    })
                    .collect();
                Table::new("t", columns).unwrap()
            };
            let all: Vec<usize> = (0..n).collect();
            let released: Vec<Vec<Option<u8>>> = orig
                .iter()
                .zip(&edit)
                .map(|(col, e)| {
                    col.iter()
                        .zip(e)
                        .map(|(&v, &e)| match e {
                            1 => None,
                            2 => v.map(|x| (x + 1) % 3),
                            _ => v,
                        })
                        .collect()
                })
                .collect();
            (mk(&orig, &all), mk(&released, &kept), kept)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// The cross-examination's attack is the exact attack: the same Σ 1/c_i and the same
    /// unique re-identifications as `ExactMatch` scored by `evaluate`, under both rules.
    #[test]
    fn the_check_equals_the_exact_attack((orig, rel, kept) in table_strategy()) {
        prop_assume!(rel.nrows() > 0);
        let keys: Vec<String> = orig.columns().iter().map(|c| c.name().to_string()).collect();
        let x = cross_examine(&orig, &rel, &kept, &[], &keys).unwrap();
        let c = &x.checks[0];
        prop_assert_eq!(c.verdict, Verdict::NoClaim);
        for (rule, policy) in [(MatchRule::Listwise, MissingPolicy::Listwise), (MatchRule::Wildcard, MissingPolicy::Wildcard)] {
            let a = c.rules.iter().find(|r| r.rule == rule).unwrap().attack.clone().unwrap();
            let (expected, unique) = exact_scored(&orig, &rel, &kept, &keys, policy);
            prop_assert!((a.expected_correct - expected).abs() < 1e-9, "{:?}: {} vs {}", rule, a.expected_correct, expected);
            prop_assert_eq!(a.unique_correct, unique);
            prop_assert_eq!(a.targets, orig.nrows());
        }
    }
}

fn blanked_strategy() -> impl Strategy<Value = (Table, Table)> {
    (1usize..=3, 2usize..=24).prop_flat_map(|(p, n)| {
        let cell = prop_oneof![1 => Just(None), 5 => (0u8..3).prop_map(Some)];
        let orig = proptest::collection::vec(proptest::collection::vec(cell, n), p);
        let blank = proptest::collection::vec(
            proptest::collection::vec(proptest::bool::weighted(0.3), n),
            p,
        );
        (orig, blank).prop_map(move |(orig, blank)| {
            let mk = |cols: &[Vec<Option<u8>>]| {
                let columns = cols
                    .iter()
                    .enumerate()
                    .map(|(j, v)| {
                        let s: Vec<Option<String>> =
                            v.iter().map(|x| x.map(|c| format!("v{c}"))).collect();
                        Column::categorical(format!("k{j}"), Role::Key, &s, None).unwrap()
                    })
                    .collect();
                Table::new("t", columns).unwrap()
            };
            let o = mk(&orig);
            // blank cells in the same columns (the values kept, as suppression does)
            let mut r = o.clone();
            for (j, b) in blank.iter().enumerate() {
                let c = o.column(&format!("k{j}")).unwrap();
                let mut missing = c.missing().clone();
                for (i, &x) in b.iter().enumerate() {
                    if x {
                        missing.set(i);
                    }
                }
                r.replace(Column::new(c.name(), c.role(), c.data().clone(), missing).unwrap())
                    .unwrap();
            }
            (o, r)
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]

    /// The same when the release only blanks cells and keeps every record in place (the codes
    /// are then taken from the original once).
    #[test]
    fn the_check_of_blanks_equals_the_exact_attack((orig, rel) in blanked_strategy()) {
        let keys: Vec<String> = orig.columns().iter().map(|c| c.name().to_string()).collect();
        let kept: Vec<usize> = (0..orig.nrows()).collect();
        let x = cross_examine(&orig, &rel, &kept, &[], &keys).unwrap();
        // key cells observed in the original and blank in the release, counted cell by cell
        let blanked: usize = keys
            .iter()
            .map(|k| {
                let (a, b) = (orig.column(k).unwrap(), rel.column(k).unwrap());
                (0..orig.nrows()).filter(|&r| !a.is_missing(r) && b.is_missing(r)).count()
            })
            .sum();
        prop_assert_eq!(x.checks[0].suppressed, blanked);
        prop_assert_eq!(x.checks[0].key_cells, keys.len() * rel.nrows());
        for (rule, policy) in [(MatchRule::Listwise, MissingPolicy::Listwise), (MatchRule::Wildcard, MissingPolicy::Wildcard)] {
            let a = x.checks[0].rules.iter().find(|r| r.rule == rule).unwrap().attack.clone().unwrap();
            let (expected, unique) = exact_scored(&orig, &rel, &kept, &keys, policy);
            prop_assert!((a.expected_correct - expected).abs() < 1e-9, "{:?}: {} vs {}", rule, a.expected_correct, expected);
            prop_assert_eq!(a.unique_correct, unique);
        }
    }
}

/// Three men with three postcodes, three women sharing one; k = 3. Protected against the
/// wildcard rule only, two postcodes are blanked and the third man stays unique among the
/// complete records: the promise does not cover the listwise rule (1 of 4 complete records in a
/// class below 3; the listwise attack re-identifies the third man and, one time in three, each
/// woman: (1 + 3 · 1/3) / 6 = 1/3 per target). Worse, it is contradicted under its own rule:
/// each blanked man matches every man in the file (n_match 3), but an intruder who knows his
/// postcode rules out the third man, so the first two have 2 candidates each and the wildcard
/// attack re-identifies (1/2 + 1/2 + 1/3 + 3 · 1/3) / 6 = 7/18 = 38.9% per target, above 1/3.
/// Protected against all rules, the promise holds.
#[test]
fn the_wildcard_rule_gamed_is_caught_and_named() {
    let t = Table::new(
        "men",
        vec![
            cat("sex", &["M", "M", "M", "F", "F", "F"].map(Some)),
            cat("postcode", &["A", "B", "C", "D", "D", "D"].map(Some)),
        ],
    )
    .unwrap();
    let run = |rule: &str| {
        let p = Pipeline::from_toml(
            &format!("[[step]]\nmethod = \"local-suppression\"\nkeys = [\"sex\", \"postcode\"]\nk = 3\nprotect_against = \"{rule}\"\n"),
            "p",
        )
        .unwrap();
        let (m, log) = p.run(&t, 0).unwrap();
        cross_examine(
            &p.intruder_view(&t).unwrap(),
            &m,
            &log.kept_rows,
            &p.claims(),
            &[],
        )
        .unwrap()
    };
    let x = run("wildcard");
    let c = &x.checks[0];
    assert_eq!(c.verdict, Verdict::Contradicted);
    let lw = &c.rules[0];
    assert_eq!(
        (lw.rule, lw.judged, lw.unsafe_records, lw.min_class),
        (MatchRule::Listwise, 4, 1, Some(1))
    );
    let a = lw.attack.as_ref().unwrap();
    assert_eq!(a.unique_correct, 1);
    assert!((a.expected_correct - 2.0).abs() < 1e-12);
    assert!((a.rate - 1.0 / 3.0).abs() < 1e-12);
    let wc = &c.rules[2];
    assert_eq!(
        (wc.unsafe_records, wc.min_class),
        (0, Some(3)),
        "every record matches 3"
    );
    let a = wc.attack.as_ref().unwrap();
    assert!((a.expected_correct - 7.0 / 3.0).abs() < 1e-12);
    assert_eq!(a.unique_correct, 0);
    let head =
        "step 1 (local-suppression) promised k = 3 on sex, postcode (protect_against = wildcard)";
    assert_eq!(
        x.warnings,
        vec![
            format!(
                "{head}, which does not cover the listwise rule: 1 of 4 records are in classes below 3 (smallest 1)"
            ),
            format!(
                "{head}, which does not cover the as-value rule: 3 of 6 records are in classes below 3 (smallest 1)"
            ),
            format!(
                "{head}, contradicted under the wildcard rule: the exact attack re-identifies 38.9% per target (expected), above 1/k = 33.3%"
            ),
        ]
    );
    let x = run("all");
    assert_eq!(x.checks[0].verdict, Verdict::Holds);
    assert!(x.warnings.is_empty());
    assert_eq!(
        x.checks[0].rules[0].attack.as_ref().unwrap().unique_correct,
        0
    );
}

/// A promise broken by a later step is contradicted, and the warning names the step, the rule
/// and the figures; a risk promise is judged by individual risk.
#[test]
fn later_steps_can_contradict_a_promise_and_risk_promises_are_judged_by_risk() {
    let a: Vec<Option<&str>> = ["x", "x", "x", "y", "y", "y"].map(Some).to_vec();
    let t = Table::new("t", vec![cat("a", &a)]).unwrap();
    let keys = names(&["a"]);
    // k = 3 holds on the input; a promise of k = 4 is contradicted under every rule
    let claim = Claim::k_anonymity("local-suppression", &keys, 4, ProtectAgainst::All);
    let kept: Vec<usize> = (0..6).collect();
    let x = cross_examine(&t, &t, &kept, &[Claim { step: 1, ..claim }], &[]).unwrap();
    let c = &x.checks[0];
    assert_eq!(c.verdict, Verdict::Contradicted);
    assert!(c.rules.iter().all(|r| r.unsafe_records == 6 && r.covered));
    // the attack: every target has c_i = 3 → rate 1/3 < ... above 1/4
    assert!(x.warnings[0].contains("contradicted under the listwise rule: 6 of 6 records are in classes below 4 (smallest 3); the exact attack re-identifies 33.3% per target (expected), above 1/k = 25.0%"), "{}", x.warnings[0]);
    // a risk promise of 0.4 holds (risk 1/3), one of 0.3 does not
    let risk = |t: f64| Claim {
        step: 2,
        max_risk: Some(t),
        ..Claim::k_anonymity(
            "risk-suppression",
            &keys,
            intruder_defence::methods::suppress::k_for_risk(t),
            ProtectAgainst::All,
        )
    };
    let x = cross_examine(&t, &t, &kept, &[risk(0.4)], &[]).unwrap();
    assert_eq!(x.checks[0].verdict, Verdict::Holds);
    let x = cross_examine(&t, &t, &kept, &[risk(0.3)], &[]).unwrap();
    assert_eq!(x.checks[0].verdict, Verdict::Contradicted);
    assert!(
        x.warnings[0].contains("6 of 6 records have individual risk above 0.3"),
        "{}",
        x.warnings[0]
    );
}

/// Records removed by the pipeline are targets the intruder cannot find; a subsample lowers
/// the rate per target.
#[test]
fn removed_records_count_as_targets_not_found() {
    let t = Table::new("t", vec![cat("a", &["x", "y", "z", "w"].map(Some))]).unwrap();
    let rel = t.take(&[1, 3]);
    let x = cross_examine(&t, &rel, &[1, 3], &[], &names(&["a"])).unwrap();
    let a = x.checks[0].rules[0].attack.clone().unwrap();
    assert_eq!((a.targets, a.unique_correct), (4, 2));
    assert!((a.rate - 0.5).abs() < 1e-12);
}

/// A synthetic release that repeats the original records exactly (independent marginals of a
/// one-column file of distinct values can only redraw them): its classes are counted as for any
/// release, but no released record is an original record, so the exact attack's expected and
/// unique correct re-identifications are 0 — not the 1 per target of comparing row r with
/// original row r.
#[test]
fn a_synthetic_release_is_cross_examined_without_pairing_records() {
    let t = Table::new(
        "one",
        vec![cat("postcode", &["A", "B", "C", "D"].map(Some))],
    )
    .unwrap();
    let p =
        Pipeline::from_toml("[[step]]\nmethod = \"independent-marginals\"\nn = 4\n", "p").unwrap();
    let (m, log) = p.run(&t, 0).unwrap();
    assert!(log.kept_rows.is_empty());
    let x =
        intruder_eval::cross_examine_run(&p, &t, &m, &log, Some(&names(&["postcode"]))).unwrap();
    assert_eq!(x.checks.len(), 1);
    let c = &x.checks[0];
    assert_eq!(c.verdict, Verdict::NoClaim);
    assert_eq!(c.suppressed, 0);
    for r in &c.rules {
        assert!(r.min_class.is_some());
        if let Some(a) = &r.attack {
            assert_eq!((a.targets, a.unique_correct), (4, 0));
            assert_eq!(a.expected_correct, 0.0);
        }
    }
}
