//! Fast paths equal their definitions: hashed exact matching vs the O(n·m) scan under every
//! missing policy with set-valued cells; the dense nearest kernel vs the general distance path.

use intruder_attack::exact::naive_exact;
use intruder_attack::{
    Attack, DistanceParams, ExactMatch, KMeansAttack, KMeansParams, KeyMap, Knowledge, Linkage,
    Metric, MissingPolicy, Nearest, NearestParams,
};
use intruder_data::{Column, Role, Table};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

/// Runs `attack` on the intruder's key columns.
fn link(a: &dyn Attack, i: &Table, r: &Table, keys: &KeyMap, seed: u64) -> Linkage {
    let k = Knowledge::new(i, keys.clone()).expect("keys in the intruder's table");
    a.link(&k, r, seed).expect("attack runs").linkage
}

fn table(rng: &mut rand_chacha::ChaCha8Rng, n: usize, miss: f64, sets: bool) -> Table {
    let a: Vec<Option<i64>> = (0..n)
        .map(|_| (rng.r#gen::<f64>() >= miss).then(|| rng.gen_range(0..3)))
        .collect();
    let b: Vec<Option<String>> = (0..n)
        .map(|_| {
            (rng.r#gen::<f64>() >= miss).then(|| ["x", "y", "z"][rng.gen_range(0..3)].to_string())
        })
        .collect();
    let mut cols = vec![
        Column::integer("a", Role::Key, &a),
        Column::categorical("b", Role::Key, &b, None).unwrap(),
    ];
    if sets {
        let s: Vec<Vec<String>> = (0..n)
            .map(|_| {
                let k = if rng.r#gen::<f64>() < miss {
                    0
                } else {
                    rng.gen_range(1..3)
                };
                (0..k)
                    .map(|_| format!("m{}", rng.gen_range(0..4)))
                    .collect()
            })
            .collect();
        cols.push(Column::set("c", Role::Key, &s, None).unwrap());
    }
    Table::new("t.csv", cols).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn hashed_exact_equals_scan(ni in 1usize..25, nr in 1usize..60, miss in 0.0f64..0.4, sets in any::<bool>(), seed in any::<u64>()) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let i = table(&mut rng, ni, miss, sets);
        let r = table(&mut rng, nr, miss, sets);
        let names: Vec<&str> = if sets { vec!["a", "b", "c"] } else { vec!["a", "b"] };
        let keys = KeyMap::same(&names).unwrap();
        for policy in MissingPolicy::ALL {
            let fast = link(&ExactMatch::new(policy), &i, &r, &keys, 0);
            let slow = naive_exact(&i, &r, &keys, policy).unwrap();
            let got: Vec<Vec<usize>> = fast.records.iter().map(|c| c.list.iter().map(|x| x.row).collect()).collect();
            prop_assert_eq!(got, slow, "policy {:?}", policy);
        }
    }

    #[test]
    fn hashed_exact_equals_scan_across_storage_kinds(ni in 1usize..25, nr in 1usize..60, miss in 0.0f64..0.4, seed in any::<u64>()) {
        // The files store the same keys differently: the intruder's `a` is a category with
        // numeric labels in its own level order and `c` a scalar category; the released `a` is
        // an integer and `c` set-valued. One dictionary per key makes them comparable.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut draw = |n: usize| -> Vec<(Option<i64>, Vec<String>)> {
            (0..n)
                .map(|_| {
                    let a = (rng.r#gen::<f64>() >= miss).then(|| rng.gen_range(0..3));
                    let k = if rng.r#gen::<f64>() < miss { 0 } else { rng.gen_range(1..3) };
                    (a, (0..k).map(|_| format!("m{}", rng.gen_range(0..4))).collect())
                })
                .collect()
        };
        let (di, dr) = (draw(ni), draw(nr));
        let labels: Vec<Option<String>> = di.iter().map(|(a, _)| a.map(|x| x.to_string())).collect();
        let first: Vec<Option<String>> = di.iter().map(|(_, c)| c.first().cloned()).collect();
        let i = Table::new("i.csv", vec![
            Column::categorical("a", Role::Key, &labels, Some(vec!["2".into(), "0".into(), "1".into()])).unwrap(),
            Column::categorical("c", Role::Key, &first, None).unwrap(),
        ]).unwrap();
        let ints: Vec<Option<i64>> = dr.iter().map(|(a, _)| *a).collect();
        let sets: Vec<Vec<String>> = dr.iter().map(|(_, c)| c.clone()).collect();
        let r = Table::new("r.csv", vec![
            Column::integer("a", Role::Key, &ints),
            Column::set("c", Role::Key, &sets, None).unwrap(),
        ]).unwrap();
        let keys = KeyMap::same(&["a", "c"]).unwrap();
        for policy in MissingPolicy::ALL {
            let fast = link(&ExactMatch::new(policy), &i, &r, &keys, 0);
            let slow = naive_exact(&i, &r, &keys, policy).unwrap();
            let got: Vec<Vec<usize>> = fast.records.iter().map(|c| c.list.iter().map(|x| x.row).collect()).collect();
            prop_assert_eq!(got, slow, "policy {:?}", policy);
        }
    }

    #[test]
    fn dense_kernel_equals_general_path(ni in 1usize..15, nr in 1usize..80, seed in any::<u64>(), standardize in any::<bool>()) {
        // The same numeric keys once as numbers (dense kernel) and once with a constant string key
        // added (general path; the string key adds 0 to every distance).
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mk = |rng: &mut rand_chacha::ChaCha8Rng, n: usize| {
            let a: Vec<Option<i64>> = (0..n).map(|_| Some(rng.gen_range(0..4))).collect();
            let b: Vec<Option<f64>> = (0..n).map(|_| Some(rng.gen_range(0..3) as f64 * 1.5)).collect();
            let s: Vec<Option<&str>> = vec![Some("same"); n];
            Table::new("t.csv", vec![
                Column::integer("a", Role::Key, &a),
                Column::float("b", Role::Key, &b),
                Column::string("s", Role::Key, &s),
            ]).unwrap()
        };
        let i = mk(&mut rng, ni);
        let r = mk(&mut rng, nr);
        let params = NearestParams {
            distance: DistanceParams { standardize, weights: vec![("a".into(), 2.0)], ..DistanceParams::default() },
            top_k: 3,
            ..NearestParams::default()
        };
        let fast = link(&Nearest::new(params.clone()).unwrap(), &i, &r, &KeyMap::same(&["a", "b"]).unwrap(), 0);
        let slow = link(&Nearest::new(params).unwrap(), &i, &r, &KeyMap::same(&["a", "b", "s"]).unwrap(), 0);
        for (f, s) in fast.records.iter().zip(&slow.records) {
            let fr: Vec<(usize, u32)> = f.list.iter().map(|c| (c.row, c.rank)).collect();
            let sr: Vec<(usize, u32)> = s.list.iter().map(|c| (c.row, c.rank)).collect();
            prop_assert_eq!(fr, sr);
            for (x, y) in f.list.iter().zip(&s.list) {
                prop_assert!((x.score - y.score).abs() <= 1e-12 * x.score.abs().max(1.0));
            }
        }
    }
}

#[test]
fn gower_mixed_types_and_strings() {
    let i = Table::new(
        "i.csv",
        vec![
            Column::integer("age", Role::Key, &[Some(40)]),
            Column::categorical("sex", Role::Key, &[Some("M")], None).unwrap(),
            Column::string("name", Role::Key, &[Some("Jonathan")]),
        ],
    )
    .unwrap();
    let r = Table::new(
        "r.csv",
        vec![
            Column::integer("age", Role::Key, &[Some(40), Some(20), Some(40)]),
            Column::categorical("sex", Role::Key, &[Some("M"), Some("M"), Some("F")], None)
                .unwrap(),
            Column::string(
                "name",
                Role::Key,
                &[Some("Jonathon"), Some("Jonathan"), Some("Jonathan")],
            ),
        ],
    )
    .unwrap();
    let params = NearestParams {
        distance: DistanceParams {
            metric: Metric::Gower,
            ..DistanceParams::default()
        },
        ..NearestParams::default()
    };
    let l = link(
        &Nearest::new(params).unwrap(),
        &i,
        &r,
        &KeyMap::same(&["age", "sex", "name"]).unwrap(),
        0,
    );
    let jw = 1.0 - strsim::jaro_winkler("Jonathan", "Jonathon");
    // Row 0: (0 + 0 + jw)/3; row 1: (1 + 0 + 0)/3 (age range 20); row 2: (0 + 1 + 0)/3.
    assert_eq!(l.records[0].list[0].row, 0);
    assert!((l.records[0].list[0].score + jw / 3.0).abs() < 1e-12);
    assert_eq!(l.records[0].list[1].rank, 2);
    assert_eq!(l.records[0].list[1].row, 1);
    assert_eq!(l.records[0].list[2].row, 2);
    assert_eq!(
        l.records[0].list[1].rank, l.records[0].list[2].rank,
        "rows 1 and 2 tie at 1/3"
    );
}

#[test]
fn kmeans_bender_steps() {
    // Three intruder records (one with a missing key, dropped listwise); released twins near them.
    let i = Table::new(
        "survey.csv",
        vec![
            Column::integer("occ", Role::Key, &[Some(10), Some(50), None]),
            Column::integer("earn", Role::Key, &[Some(100), Some(300), Some(200)]),
        ],
    )
    .unwrap();
    let r = Table::new(
        "register.csv",
        vec![
            Column::integer("occ", Role::Key, &[Some(11), Some(49), Some(12), Some(30)]),
            Column::integer(
                "earn",
                Role::Key,
                &[Some(101), Some(305), Some(90), Some(200)],
            ),
        ],
    )
    .unwrap();
    let l = link(
        &KMeansAttack::new(KMeansParams::default()).unwrap(),
        &i,
        &r,
        &KeyMap::same(&["occ", "earn"]).unwrap(),
        0,
    );
    assert!(
        l.records[2].is_empty(),
        "record with a missing key is dropped"
    );
    // Cluster of record 0: released rows 0 and 2 (and row 3? (30,200) is nearer (50,300)? d0²=400+10000, d1²=400+10000: tie → first centre).
    let rows0: Vec<usize> = l.records[0].list.iter().map(|c| c.row).collect();
    let rows1: Vec<usize> = l.records[1].list.iter().map(|c| c.row).collect();
    assert_eq!(rows0, vec![0, 2, 3]);
    assert_eq!(rows1, vec![1]);
    assert!(
        l.notes
            .contains(&("intruder_records_dropped".to_string(), 1.0))
    );
}

#[test]
fn kmeans_fewer_clusters_is_coarser_and_seeded() {
    // Two well-separated groups of intruder records; k = 2 puts each released record in its
    // group's cluster, so a record's candidates are every released record of its group.
    let i = Table::new(
        "survey.csv",
        vec![Column::float(
            "x",
            Role::Key,
            &[Some(0.0), Some(1.0), Some(100.0), Some(101.0)],
        )],
    )
    .unwrap();
    let r = Table::new(
        "register.csv",
        vec![Column::float(
            "x",
            Role::Key,
            &[Some(0.2), Some(100.4), Some(0.9), Some(99.0), Some(50.0)],
        )],
    )
    .unwrap();
    let params = KMeansParams {
        clusters: Some(2),
        ..KMeansParams::default()
    };
    let keys = KeyMap::same(&["x"]).unwrap();
    let l = link(
        &KMeansAttack::new(params.clone()).unwrap(),
        &i,
        &r,
        &keys,
        11,
    );
    let rows = |n: usize| -> Vec<usize> {
        let mut v: Vec<usize> = l.records[n].list.iter().map(|c| c.row).collect();
        v.sort_unstable();
        v
    };
    // 50.0 is nearer the centre 0.5 of {0, 1} (49.5) than the centre 100.5 of {100, 101} (50.5).
    assert_eq!(rows(0), vec![0, 2, 4]);
    assert_eq!(rows(1), vec![0, 2, 4]);
    assert_eq!(rows(2), vec![1, 3]);
    // Ranked by distance to each intruder record: record 1 (x = 1) is nearest 0.9.
    assert_eq!(l.records[1].list[0].row, 2);
    assert!(l.notes.contains(&("clusters".to_string(), 2.0)));
    let again = link(&KMeansAttack::new(params).unwrap(), &i, &r, &keys, 11);
    assert_eq!(l, again, "same seed, same result");
}

fn levels(c: &[&str]) -> Vec<String> {
    c.iter().map(|s| s.to_string()).collect()
}

/// `category_codes`: a categorical key enters the Euclidean distance as its category code
/// (schema order M = 0, S = 1, W = 2), as SPSS treats every variable as interval scaled.
#[test]
fn category_codes_enter_the_euclidean_distance() {
    let cats = ["M", "S", "W"];
    let i = Table::new(
        "survey.csv",
        vec![
            Column::integer("age", Role::Key, &[Some(30)]),
            Column::categorical("status", Role::Key, &[Some("W")], Some(levels(&cats))).unwrap(),
        ],
    )
    .unwrap();
    let r = Table::new(
        "register.csv",
        vec![
            Column::integer("age", Role::Key, &[Some(30), Some(33), Some(31)]),
            Column::categorical(
                "status",
                Role::Key,
                &[Some("M"), Some("W"), Some("S")],
                Some(levels(&cats)),
            )
            .unwrap(),
        ],
    )
    .unwrap();
    let keys = KeyMap::same(&["age", "status"]).unwrap();
    let mut params = NearestParams::default();
    // Off: the labels are not numbers, so the Euclidean distance refuses the key.
    let k = Knowledge::new(&i, keys.clone()).unwrap();
    let Err(err) = Nearest::new(params.clone()).unwrap().link(&k, &r, 0) else {
        panic!("a categorical key without codes must be refused");
    };
    assert!(err.to_string().contains("category_codes"), "{err}");
    // On: distances √(0² + 2²) = 2, √(3² + 0²) = 3, √(1² + 1²) = √2: row 2, then 0, then 1.
    params.distance.category_codes = true;
    let l = link(&Nearest::new(params).unwrap(), &i, &r, &keys, 0);
    let rows: Vec<usize> = l.records[0].list.iter().map(|c| c.row).collect();
    assert_eq!(rows, vec![2, 0, 1]);
    assert!((l.records[0].list[0].score + 2f64.sqrt()).abs() < 1e-12);
    assert!((l.records[0].list[1].score + 2.0).abs() < 1e-12);
}
