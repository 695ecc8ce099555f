//! docs/METHODS.md §2 worked examples E and F (Mitra et al., Figs. 2 and 3) and sdcMicro's
//! `recordLinkage` cases, with exact values.

use crate::common;
use common::*;
use intruder_attack::KeyMap;
use intruder_eval::Labelled;

/// Mitra Fig. 2: released wave-2 rows (area, bedrooms, wealth); the true household is the 15000 row.
const RELEASED_E: &str = "hh,area,bedrooms,wealth
h1,2,5,14800
h2,1,3,12200
h3,2,5,15000
h4,3,5,18600
h5,3,2,12100
h6,2,4,16800
h7,2,4,18000
h8,2,5,12500
h9,1,6,25000
";
const INTRUDER_E: &str = "hh,area,bedrooms,true_wealth\nh3,2,5,15000\n";

#[test]
fn example_e_exact_matching_and_attribute_disclosure() {
    let r = load(RELEASED_E, "wave2.csv", &["hh"]);
    let i = load(INTRUDER_E, "intruder.csv", &["hh", "true_wealth"]);
    let keys = KeyMap::same(&["area", "bedrooms"]).unwrap();
    let l = run(EXACT, &i, &r, &keys);
    // Candidates 14800, 15000, 12500 → rows 0, 2, 7.
    assert_eq!(
        l.records[0].list.iter().map(|c| c.row).collect::<Vec<_>>(),
        vec![0, 2, 7]
    );
    assert_eq!(l.records[0].best_ties(), 3);
    let ev = eval(&l, &i, &r, Some("hh"), Some(("wealth", "true_wealth")));
    assert_eq!(ev.twins, 1);
    assert!(
        (ev.expected_correct - 1.0 / 3.0).abs() < 1e-15,
        "identification probability 1/3"
    );
    assert_eq!(ev.unique_correct, 0);
    assert_eq!(ev.le2_correct, 0);
    assert_eq!(ev.rank1, 1);
    assert_eq!(
        ev.ties_broken, 1,
        "the tie among three is broken with the seed and counted"
    );
    let rec = &ev.records[0];
    assert_eq!(rec.best_ties, 3);
    assert!((rec.p.unwrap() - 2.0 / 3.0).abs() < 1e-15, "p_i = 2/3");
    // r_i = (200 + 0 + 2500) / 15000 / 3 = 0.06
    assert!((rec.r.unwrap() - 0.06).abs() < 1e-12, "r_i = {:?}", rec.r);
    assert_eq!(ev.attribute_a, Some(1), "p_i ≥ 0.5 counts in A");
}

/// Mitra Fig. 3: after masking the three candidates carry 15000, 16000, 14500; the true household
/// (link id h3) was released with 16000; its true original wealth is 15000.
const RELEASED_F: &str = "link,area,bedrooms,wealth
h1,2,5,15000
h3,2,5,16000
h8,2,5,14500
h2,1,3,12200
";
const INTRUDER_F: &str = "link,area,bedrooms,true_wealth\nh3,2,5,15000\n";

#[test]
fn example_f_links_removed_vs_released() {
    let r = load(RELEASED_F, "masked.csv", &[]);
    let i = load(INTRUDER_F, "intruder.csv", &["true_wealth"]);
    // Links removed: exact matching on the keys.
    let keys = KeyMap::same(&["area", "bedrooms"]).unwrap();
    let l = run(EXACT, &i, &r, &keys);
    let ev = eval(&l, &i, &r, None, Some(("wealth", "true_wealth")));
    assert!(
        (ev.records[0].p.unwrap() - 2.0 / 3.0).abs() < 1e-15,
        "p_i = 2/3 without links"
    );
    assert_eq!(ev.attribute_a, Some(1));
    // Links released: follow the link id to the 16000 record.
    let keys = KeyMap::same(&["link"]).unwrap();
    let l = run("method = \"link\"", &i, &r, &keys);
    assert_eq!(
        l.records[0].list.iter().map(|c| c.row).collect::<Vec<_>>(),
        vec![1]
    );
    let ev = eval(&l, &i, &r, None, Some(("wealth", "true_wealth")));
    assert_eq!(ev.records[0].p, Some(0.0), "p_i = 0 with the link");
    assert_eq!(ev.attribute_a, Some(0));
}

const EXACT: &str = "method = \"exact\"";
const NEAREST: &str = "method = \"nearest\"";
const ONE_TO_ONE: &str = "method = \"nearest\"\none_to_one = true";

#[test]
fn sdcmicro_record_linkage_two_dimensions() {
    // x = (1,0),(0,1),(−1,0),(0,−1) against y = (0,0),(0,2.1),(−2.1,0),(0,−2.1): rate 1.
    let x = "id,a,b\n1,1,0\n2,0,1\n3,-1,0\n4,0,-1\n";
    let y = "id,a,b\n1,0,0\n2,0,2.1\n3,-2.1,0\n4,0,-2.1\n";
    let (i, r) = (load(x, "x.csv", &["id"]), load(y, "y.csv", &["id"]));
    let keys = KeyMap::same(&["a", "b"]).unwrap();
    let ev = eval(&run(ONE_TO_ONE, &i, &r, &keys), &i, &r, Some("id"), None);
    assert_eq!(ev.correct_match_rate, Some(1.0));
    // Without one-to-one every x is nearest to y1 (0,0): only x1 is right.
    let ev = eval(&run(NEAREST, &i, &r, &keys), &i, &r, Some("id"), None);
    assert_eq!(ev.correct_match_rate, Some(0.25));
}

#[test]
fn sdcmicro_record_linkage_one_dimension() {
    // x = 1,2,3,4 against y = 2,3,4,−0.1: the optimal assignment shifts everyone, rate 0.
    let x = "id,v\n1,1\n2,2\n3,3\n4,4\n";
    let y = "id,v\n1,2\n2,3\n3,4\n4,-0.1\n";
    let (i, r) = (load(x, "x.csv", &["id"]), load(y, "y.csv", &["id"]));
    let keys = KeyMap::same(&["v"]).unwrap();
    let ev = eval(&run(ONE_TO_ONE, &i, &r, &keys), &i, &r, Some("id"), None);
    assert_eq!(ev.correct_match_rate, Some(0.0));
}

#[test]
fn ties_are_counted_not_hidden() {
    // Two released records identical on the keys: the nearest set has both, c_i = 2.
    let x = "id,a\n1,5\n";
    let y = "id,a\n9,5\n1,5\n3,7\n";
    let (i, r) = (load(x, "x.csv", &["id"]), load(y, "y.csv", &["id"]));
    let keys = KeyMap::same(&["a"]).unwrap();
    let l = run(NEAREST, &i, &r, &keys);
    assert_eq!(l.records[0].best_ties(), 2);
    assert_eq!(l.records[0].list[0].rank, 1);
    assert_eq!(l.records[0].list[1].rank, 1);
    assert_eq!(l.records[0].list[2].rank, 3);
    let ev = eval(&l, &i, &r, Some("id"), None);
    assert_eq!(ev.ties_broken, 1);
    assert_eq!(ev.expected_correct, 0.5);
    assert_eq!(ev.le2_correct, 1);
    assert_eq!(ev.unique_correct, 0);
    // Over many seeds the draw picks each tied candidate, and the count of tie-breaks is reported.
    let mut hits = 0;
    for seed in 0..64 {
        let opts = intruder_eval::EvalOptions {
            truth: Some(intruder_eval::TruthIds {
                intruder: "id".into(),
                released: "id".into(),
            }),
            sensitive: None,
            threshold: None,
            seed,
        };
        let e = intruder_eval::evaluate(
            &l,
            &Labelled::from_dataset(i.clone()),
            &Labelled::from_dataset(r.clone()),
            &opts,
        )
        .unwrap();
        hits += e.correct_matches;
        assert_eq!(e.correct_by_tie_break, e.correct_matches);
    }
    assert!(
        hits > 0 && hits < 64,
        "seeded draws pick both tied candidates ({hits}/64)"
    );
}
