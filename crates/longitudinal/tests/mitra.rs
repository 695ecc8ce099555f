//! Worked examples E and F (docs/METHODS.md §2.1–2.2, Mitra Figs. 2–3), bad input, the invariants of
//! swapping and synthesis, and targeted vs random selection on the look-alike panel.
// Config types are #[non_exhaustive]: outside their crate they are built from Default.
#![allow(clippy::field_reassign_with_default)]

use intruder_data::{Dataset, ReadOptions, Schema, read_csv, read_csv_from};
use intruder_longitudinal::*;

fn csv(text: &str, name: &str) -> Dataset {
    read_csv_from(text.as_bytes(), name.as_ref(), &ReadOptions::default()).expect("csv")
}

fn spec(link: Option<&str>) -> PanelSpec {
    PanelSpec {
        link: "hh".into(),
        released_link: link.map(String::from),
        split: Some("split".into()),
        sensitive: "wealth".into(),
        nonunique: NonUnique::Include,
        strict: false,
    }
}

/// Mitra Fig. 2 / 3: household A (true wave-2 wealth 15000) and eight other split households.
fn example_panel() -> Panel {
    let w1 = "hh,lnk,area,bedrooms,wealth\nA,LA,2,5,14000\nB,LB,1,3,1\nC,LC,2,5,1\nD,LD,3,5,1\nE,LE,3,2,1\nF,LF,2,4,1\nG,LG,2,4,1\nH,LH,2,5,1\nI,LI,1,6,1\n";
    let w2 = "hh,lnk,split,area,bedrooms,wealth\nC,LC,1,2,5,14800\nB,LB,1,1,3,12200\nA,LA,1,2,5,15000\nD,LD,1,3,5,18600\nE,LE,1,3,2,12100\nF,LF,1,2,4,16800\nG,LG,1,2,4,18000\nH,LH,1,2,5,12500\nI,LI,1,1,6,25000\n";
    Panel::new(
        vec![csv(w1, "w1.csv"), csv(w2, "w2.csv")],
        spec(Some("lnk")),
    )
    .expect("panel")
}

#[test]
fn worked_example_e() {
    let panel = example_panel();
    let s = Scenario::parse("E", "area@1,bedrooms@1").unwrap();
    let a = PreparedAttack::new(&panel, &s, Mode::Match, Pool::Split).unwrap();
    let rep = a.score(&panel.sensitive_last(), 0.05).unwrap();
    let hh_a = rep.records.iter().find(|r| r.row == 2).unwrap();
    assert_eq!(hh_a.c, 3);
    assert!(hh_a.found);
    assert!((hh_a.p - 2.0 / 3.0).abs() < 1e-12);
    assert!((hh_a.r.unwrap() - 0.06).abs() < 1e-12);
    // Identification 1/c_i = 1/3 for A.
    assert!(rep.expected_correct >= 1.0 / 3.0);
}

#[test]
fn worked_example_f_with_and_without_links() {
    let panel = example_panel();
    // Released (masked) wave-2 wealth, in wave-2 row order (C, B, A, D, E, F, G, H, I).
    let masked = [
        15000.0, 11800.0, 16000.0, 19200.0, 14000.0, 15900.0, 17500.0, 14500.0, 26100.0,
    ];
    let s = Scenario::parse("F", "area@1,bedrooms@1").unwrap();
    let m = PreparedAttack::new(&panel, &s, Mode::Match, Pool::Split).unwrap();
    let rep = m.score(&masked, 0.05).unwrap();
    let a = rep.records.iter().find(|r| r.row == 2).unwrap();
    assert_eq!(a.c, 3);
    assert!((a.p - 2.0 / 3.0).abs() < 1e-12, "without links p = {}", a.p);
    let l = PreparedAttack::new(&panel, &s, Mode::Link, Pool::Split).unwrap();
    let rep = l.score(&masked, 0.05).unwrap();
    let a = rep.records.iter().find(|r| r.row == 2).unwrap();
    assert_eq!(a.c, 1);
    assert_eq!(a.p, 0.0, "with the link the intruder reads 16000");
    // Before masking the link discloses every household.
    let rep = l.score(&panel.sensitive_last(), 0.05).unwrap();
    assert_eq!(rep.attribute_a, 9);
}

#[test]
fn key_types_differing_between_waves_is_an_error() {
    let w1 = "hh,area,wealth\nA,north,1\nB,south,2\n";
    let w2 = "hh,split,area,wealth\nA,1,3,1\nB,0,4,2\n";
    let panel = Panel::new(vec![csv(w1, "w1.csv"), csv(w2, "w2.csv")], spec(None)).unwrap();
    let s = Scenario::parse("s", "area@1").unwrap();
    let err = PreparedAttack::new(&panel, &s, Mode::Match, Pool::Split)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("w1.csv") && err.contains("area") && err.contains("w2.csv"),
        "{err}"
    );
}

#[test]
fn repeated_link_in_an_earlier_wave_is_an_error() {
    let w1 = "hh,area,wealth\nA,1,1\nA,2,2\n";
    let w2 = "hh,split,area,wealth\nA,1,1,1\n";
    let err = Panel::new(vec![csv(w1, "w1.csv"), csv(w2, "w2.csv")], spec(None))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("w1.csv") && err.contains("'A'") && err.contains("rows 1 and 2"),
        "{err}"
    );
}

#[test]
fn missing_link_id_is_an_error() {
    let w1 = "hh,area,wealth\nA,1,1\n,2,2\n";
    let w2 = "hh,split,area,wealth\nA,1,1,1\n";
    let err = Panel::new(vec![csv(w1, "w1.csv"), csv(w2, "w2.csv")], spec(None))
        .unwrap_err()
        .to_string();
    assert!(err.contains("w1.csv") && err.contains("row 2"), "{err}");
}

#[test]
fn links_pointing_nowhere_and_missing_wealth_are_reported_exclusions_or_strict_errors() {
    let w1 = "hh,area,wealth\nA,1,1\nB,2,2\nC,3,3\n";
    let w2 = "hh,split,area,wealth\nA,1,1,10\nZ,1,2,20\nC,1,3,\nB,0,2,5\n";
    let panel = Panel::new(vec![csv(w1, "w1.csv"), csv(w2, "w2.csv")], spec(None)).unwrap();
    assert_eq!(panel.targets(), &[0]);
    let ex = panel.exclusions();
    assert_eq!(ex.len(), 2);
    assert_eq!(ex[0].reason, ExclusionReason::NoEarlierRecord { wave: 1 });
    assert_eq!(ex[0].row, 2);
    assert_eq!(ex[1].reason, ExclusionReason::MissingSensitive);
    assert_eq!(panel.summary().not_in_all_waves, 1);
    let mut s = spec(None);
    s.strict = true;
    let err = Panel::new(vec![csv(w1, "w1.csv"), csv(w2, "w2.csv")], s)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("2 split record") && err.contains("'Z'"),
        "{err}"
    );
}

#[test]
fn several_splits_linking_back_to_one_household() {
    let w1 = "hh,area,wealth\nA,1,100\nB,2,200\n";
    // A followed up twice: both records are split even though one flag says 0.
    let w2 = "hh,split,area,wealth\nA,1,1,90\nA,0,5,30\nB,0,2,210\n";
    let panel = Panel::new(vec![csv(w1, "w1.csv"), csv(w2, "w2.csv")], spec(None)).unwrap();
    assert_eq!(panel.targets(), &[0, 1]);
    assert_eq!(panel.summary().split_by_repeated_link_only, 1);
    assert_eq!(panel.summary().nonunique_links, 1);
    let mut s = spec(None);
    s.nonunique = NonUnique::Exclude;
    let panel = Panel::new(vec![csv(w1, "w1.csv"), csv(w2, "w2.csv")], s).unwrap();
    assert!(panel.targets().is_empty());
    assert_eq!(panel.exclusions().len(), 2);
    assert_eq!(
        panel.exclusions()[0].reason,
        ExclusionReason::NonUniqueLink { records: 2 }
    );
}

fn synth_panel(seed: u64, n: Option<&str>) -> Panel {
    let dir = tempfile::tempdir().unwrap();
    let sets: Vec<String> = n.map(|n| vec![format!("n={n}")]).unwrap_or_default();
    intruder_synth::run("household-panel", None, &sets, seed, dir.path()).unwrap();
    let load = |w: u32| {
        let mut o = ReadOptions::default();
        o.schema = Some(
            Schema::from_file(&dir.path().join(format!("household-wave{w}.schema.toml"))).unwrap(),
        );
        read_csv(&dir.path().join(format!("household-wave{w}.csv")), &o).unwrap()
    };
    let spec = PanelSpec {
        link: "household_id".into(),
        released_link: Some("link_id".into()),
        split: Some("split".into()),
        sensitive: "total_wealth".into(),
        nonunique: NonUnique::Include,
        strict: false,
    };
    Panel::new(vec![load(1), load(2)], spec).unwrap()
}

fn sorted(v: &[f64]) -> Vec<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s
}

#[test]
fn swapping_and_synthesis_invariants() {
    let panel = synth_panel(3, Some("6000"));
    let s2 = Scenario::mitra2(2);
    let attack = PreparedAttack::new(&panel, &s2, Mode::Match, Pool::Split).unwrap();
    let y0 = panel.sensitive_last();
    let base = attack.score(&y0, 0.05).unwrap();
    let risk: Vec<Option<f64>> = base.records.iter().map(|r| r.r).collect();
    let mut p = ProtectParams::new(s2.keys.clone(), 11);
    let models = Models::fit(&panel, &p, true, true).unwrap();
    for rho in [None, Some(0.2)] {
        for sel in [Selection::Targeted, Selection::Random] {
            p.rho = rho;
            p.selection = sel;
            p.swap_share = 1.0;
            let out = protect(&panel, &models, &risk, &p).unwrap();
            // The multiset of wave-T values is kept.
            assert_eq!(sorted(&out.y), sorted(&y0));
            // No partner used twice, never a selected household.
            let mut partners: Vec<usize> = out.swaps.iter().map(|s| s.1).collect();
            partners.sort();
            partners.dedup();
            assert_eq!(partners.len(), out.swaps.len());
            assert!(
                out.swaps
                    .iter()
                    .all(|&(s, d)| !out.selected.contains(&d) && s != d)
            );
            // Partners from the non-split group when all are altered, else from the split group.
            assert!(
                out.swaps
                    .iter()
                    .all(|&(_, d)| panel.is_split(d) == rho.is_some())
            );
            // Same seed, same output.
            assert_eq!(protect(&panel, &models, &risk, &p).unwrap(), out);
            assert_eq!(out.y, protect(&panel, &models, &risk, &p).unwrap().y);
        }
    }
    // Targeted order is ascending r_i.
    p.rho = Some(0.3);
    p.selection = Selection::Targeted;
    let out = protect(&panel, &models, &risk, &p).unwrap();
    let r_of = |row: usize| {
        let k = panel.targets().iter().position(|&t| t == row).unwrap();
        risk[k].unwrap_or(f64::INFINITY)
    };
    assert!(out.selected.windows(2).all(|w| r_of(w[0]) <= r_of(w[1])));
    let k = out.selected.len();
    let not_selected_min = panel
        .targets()
        .iter()
        .filter(|t| !out.selected.contains(t))
        .map(|&t| r_of(t))
        .fold(f64::INFINITY, f64::min);
    assert!(r_of(out.selected[k - 1]) <= not_selected_min);
    // A synthesised value always comes from its leaf.
    p.swap_share = 0.0;
    p.rho = None;
    let out = protect(&panel, &models, &risk, &p).unwrap();
    let tree = models.tree().unwrap();
    let pos = |row: usize| models.population().iter().position(|&r| r == row).unwrap();
    assert_eq!(out.draws.len(), panel.targets().len());
    for &(s, from) in &out.draws {
        assert_eq!(tree.leaf_of(pos(s)), tree.leaf_of(pos(from)));
        assert_eq!(out.y[s], y0[from]);
    }
    assert!(tree.min_leaf_size() >= 5);
    // Reiter's donor pool (the default) is the whole leaf, the household itself included, so
    // with leaves of 5 or more about one draw in five or fewer is the household's own value.
    let own = out.draws.iter().filter(|&&(s, from)| s == from).count();
    assert!(own > 0 && own < out.draws.len() / 2, "{own} own draws");
    // Bayesian bootstrap of the leaf: the same leaf, the own value still possible, and the
    // same draws for the same seed.
    p.donors = Donors::LeafBootstrap;
    let out = protect(&panel, &models, &risk, &p).unwrap();
    assert_eq!(out.draws.len(), panel.targets().len());
    for &(s, from) in &out.draws {
        assert_eq!(tree.leaf_of(pos(s)), tree.leaf_of(pos(from)));
        assert_eq!(out.y[s], y0[from]);
    }
    let own = out.draws.iter().filter(|&&(s, from)| s == from).count();
    assert!(own > 0 && own < out.draws.len() / 2, "{own} own draws");
    assert_eq!(
        out.draws,
        protect(&panel, &models, &risk, &p).unwrap().draws
    );
    // Without self: the same leaf, never the household itself.
    p.donors = Donors::LeafWithoutSelf;
    let out = protect(&panel, &models, &risk, &p).unwrap();
    assert_eq!(out.draws.len(), panel.targets().len());
    for &(s, from) in &out.draws {
        assert_eq!(tree.leaf_of(pos(s)), tree.leaf_of(pos(from)));
        assert_ne!(s, from);
        assert_eq!(out.y[s], y0[from]);
    }
}

proptest::proptest! {
    #[test]
    fn nearest_partners_fast_equals_naive(scores in proptest::collection::vec(0u8..20, 2..60), k in 1usize..30) {
        let score: Vec<f64> = scores.iter().map(|&s| f64::from(s) / 20.0).collect();
        let n = score.len();
        let k = k.min(n / 2);
        let selected: Vec<usize> = (0..k).collect();
        let donors: Vec<usize> = (k..n).collect();
        let fast = nearest_partners(&selected, &donors, &score).unwrap();
        let naive = nearest_partners_naive(&selected, &donors, &score);
        proptest::prop_assert_eq!(fast, naive);
    }
}

#[test]
fn targeted_selection_beats_random_at_every_rho() {
    // Mitra §5.1: targeting lowers A. One look-alike panel (default size); random selection
    // over 6 seeds; targeted must be lower than every random run at every rho and in both
    // scenarios (a sign test: were they exchangeable, P = 1/7 per cell, 12 cells).
    let panel = synth_panel(1, None);
    let y0 = panel.sensitive_last();
    for s in [Scenario::mitra1(), Scenario::mitra2(2)] {
        let attack = PreparedAttack::new(&panel, &s, Mode::Match, Pool::Split).unwrap();
        let base = attack.score(&y0, 0.05).unwrap();
        let risk: Vec<Option<f64>> = base.records.iter().map(|r| r.r).collect();
        let mut p = ProtectParams::new(Scenario::mitra2(2).keys, 1);
        let models = Models::fit(&panel, &p, false, false).unwrap();
        for rho in [0.05, 0.10, 0.15, 0.20, 0.25, 0.30] {
            p.rho = Some(rho);
            p.selection = Selection::Targeted;
            let t = attack
                .score(&protect(&panel, &models, &risk, &p).unwrap().y, 0.05)
                .unwrap()
                .attribute_a;
            p.selection = Selection::Random;
            for seed in 1..=6 {
                p.seed = seed;
                let r = attack
                    .score(&protect(&panel, &models, &risk, &p).unwrap().y, 0.05)
                    .unwrap()
                    .attribute_a;
                assert!(
                    t < r,
                    "{} rho {rho}: targeted A {t} vs random A {r} (seed {seed})",
                    s.name
                );
            }
        }
    }
}
