//! Targeted record swapping (`record-swap`, sdcMicro's `recordSwap`): hand-worked cases whose
//! pairs are forced whatever the seed, the invariants on random households, and the errors.

use intruder_data::{Column, Role, Table};
use intruder_defence::{ChangeLog, Pipeline};
use proptest::prelude::*;

/// Runs one `record-swap` step with the parameters `params` on `table`.
fn swap(table: &Table, params: &str, seed: u64) -> Result<(Table, ChangeLog), String> {
    let p = Pipeline::from_toml(
        &format!("[[step]]\nmethod = \"record-swap\"\n{params}\n"),
        "swap.toml",
    )
    .map_err(|e| e.to_string())?;
    p.run(table, seed).map_err(|e| e.to_string())
}

/// The texts of column `name`.
fn texts(t: &Table, name: &str) -> Vec<String> {
    let c = t.column(name).unwrap();
    (0..c.len())
        .map(|i| c.text(i).map(|s| s.into_owned()).unwrap_or_default())
        .collect()
}

/// Eight households in two regions of two districts each (one row per person):
///
/// | hid | region | district | htype | tenure | ages |
/// |---|---|---|---|---|---|
/// | H1 | R1 | D1 | x (`h1_type`) | own | a |
/// | H2 | R1 | D1 | y | rent | a, b |
/// | H3 | R1 | D2 | z | rent | a |
/// | H4 | R1 | D2 | w | rent | a, b |
/// | H5 | R2 | D3 | z | rent | a |
/// | H6 | R2 | D3 | y | rent | a, b |
/// | H7 | R2 | D4 | x | own | c |
/// | H8 | R2 | D4 | w | rent | a, b |
///
/// Counts of (age, region): R1 a 4, b 2; R2 a 3, b 2, c 1 — with k = 2 only H7 (c, alone in
/// R2) is at risk on the region. Counts of (age, region, district): each district's b is alone,
/// and so is D4's a — H2, H4, H6 and H8 are at risk on the district (H1, H3, H5 are not).
fn households(h1_type: &str) -> Table {
    let rows: [[&str; 6]; 12] = [
        ["H1", "R1", "D1", h1_type, "own", "a"],
        ["H2", "R1", "D1", "y", "rent", "a"],
        ["H2", "R1", "D1", "y", "rent", "b"],
        ["H3", "R1", "D2", "z", "rent", "a"],
        ["H4", "R1", "D2", "w", "rent", "a"],
        ["H4", "R1", "D2", "w", "rent", "b"],
        ["H5", "R2", "D3", "z", "rent", "a"],
        ["H6", "R2", "D3", "y", "rent", "a"],
        ["H6", "R2", "D3", "y", "rent", "b"],
        ["H7", "R2", "D4", "x", "own", "c"],
        ["H8", "R2", "D4", "w", "rent", "a"],
        ["H8", "R2", "D4", "w", "rent", "b"],
    ];
    let col = |name: &str, role: Role, j: usize| {
        let v: Vec<Option<&str>> = rows.iter().map(|r| Some(r[j])).collect();
        Column::string(name, role, &v)
    };
    Table::new(
        "households",
        vec![
            col("hid", Role::Group, 0),
            col("region", Role::Key, 1),
            col("district", Role::Key, 2),
            col("htype", Role::Other, 3),
            col("tenure", Role::Other, 4),
            col("age", Role::Key, 5),
        ],
    )
    .unwrap()
}

const BASE: &str = "hid = \"hid\"\nhierarchy = [\"region\", \"district\"]\nsimilar = [\"htype\"]\nrisk_variables = [\"age\"]\nk_anonymity = 2";

/// The per-level figures of the step's details: (at risk, swaps, without a donor).
fn per_level(log: &ChangeLog) -> Vec<(u64, u64, u64)> {
    let d = log.steps[0].details.as_ref().unwrap();
    d["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["at_risk"].as_u64().unwrap(),
                l["swaps"].as_u64().unwrap(),
                l["no_donor"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// The pairs of the step's details: (household, donor, level).
fn pairs(log: &ChangeLog) -> Vec<(String, String, String)> {
    let d = log.steps[0].details.as_ref().unwrap();
    d["pairs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap().to_string();
            (s("household"), s("donor"), s("level"))
        })
        .collect()
}

/// Swap rate 1 on 8 households asks for 4 swaps, one per district (2 households each). Region:
/// H7 (htype x) must leave R2; the only x outside R2 is H1. District, in order: D1's H2 (y) takes
/// the only free y elsewhere, H6; D2's H4 (w) takes H8; D3 has no household at risk left (H6 is
/// taken) and its share of 1, so it draws its one free household, H5 (z), whose donor is the
/// only free z elsewhere, H3; D4 already started one swap (H7) and has no free household. Every
/// household moves: 4 pairs, the same for every seed.
#[test]
fn hand_worked_pairs_at_swap_rate_one() {
    let t = households("x");
    for seed in [1, 2, 3, 99] {
        let (m, log) = swap(&t, &format!("{BASE}\nswaprate = 1.0"), seed).unwrap();
        let mut p = pairs(&log);
        p.sort();
        let pair = |a: &str, b: &str, l: &str| (a.to_string(), b.to_string(), l.to_string());
        assert_eq!(
            p,
            vec![
                pair("H2", "H6", "district"),
                pair("H4", "H8", "district"),
                pair("H5", "H3", "district"),
                pair("H7", "H1", "region"),
            ],
            "seed {seed}"
        );
        assert_eq!(per_level(&log), vec![(1, 1, 0), (4, 3, 0)]);
        let d = log.steps[0].details.as_ref().unwrap();
        assert_eq!(d["target_swaps"], 4);
        assert_eq!(d["households_swapped"], 8);
        assert_eq!(d["records_swapped"], 12);
        assert_eq!(
            texts(&m, "region"),
            [
                "R2", "R2", "R2", "R2", "R2", "R2", "R1", "R1", "R1", "R1", "R1", "R1"
            ]
        );
        assert_eq!(
            texts(&m, "district"),
            [
                "D4", "D3", "D3", "D3", "D4", "D4", "D2", "D1", "D1", "D1", "D2", "D2"
            ]
        );
        for c in ["hid", "htype", "tenure", "age"] {
            assert_eq!(texts(&m, c), texts(&t, c), "{c} is not swapped");
        }
        assert_eq!(log.records_changed, 12);
        assert_eq!(log.cells_changed, 24);
    }
}

/// Swap rate 0: only the households at risk move (H7 with H1 on the region, H2 with H6 and H4
/// with H8 on the district); H3 and H5 stay. With H1's htype changed, H7 has no donor (it is
/// reported and stays); with the fallback profile `tenure`, H1 (the only other "own") is its
/// donor again.
#[test]
fn hand_worked_households_at_risk_only_and_a_missing_donor() {
    let (m, log) = swap(&households("x"), &format!("{BASE}\nswaprate = 0"), 5).unwrap();
    assert_eq!(per_level(&log), vec![(1, 1, 0), (4, 2, 0)]);
    assert_eq!(log.steps[0].details.as_ref().unwrap()["target_swaps"], 0);
    assert_eq!(
        texts(&m, "district"),
        [
            "D4", "D3", "D3", "D2", "D4", "D4", "D3", "D1", "D1", "D1", "D2", "D2"
        ]
    );
    assert_eq!(log.records_changed, 10);

    let t = households("q");
    let (m, log) = swap(&t, &format!("{BASE}\nswaprate = 0"), 5).unwrap();
    assert_eq!(per_level(&log), vec![(1, 0, 1), (4, 2, 0)]);
    let d = log.steps[0].details.as_ref().unwrap();
    assert_eq!(
        d["no_donor"],
        serde_json::json!([{"household": "H7", "level": "region"}])
    );
    assert_eq!(
        texts(&m, "district"),
        [
            "D1", "D3", "D3", "D2", "D4", "D4", "D3", "D1", "D1", "D4", "D2", "D2"
        ]
    );
    assert_eq!(log.records_changed, 8);
    assert_eq!(log.cells_changed, 16);

    let (_, log) = swap(
        &t,
        &format!("{BASE}\nswaprate = 0\nsimilar_fallback = [\"tenure\"]"),
        5,
    )
    .unwrap();
    assert_eq!(per_level(&log), vec![(1, 1, 0), (4, 2, 0)]);
    assert!(pairs(&log).contains(&("H7".into(), "H1".into(), "region".into())));
}

/// `carry_along` columns travel with the geography; with k = 0 and `risk` absent nobody is at
/// risk.
#[test]
fn carry_along_travels_with_the_geography() {
    let t = households("x");
    let (m, log) = swap(
        &t,
        "hid = \"hid\"\nhierarchy = [\"region\"]\nsimilar = [\"htype\"]\nrisk_variables = [\"age\"]\nk_anonymity = 0\nswaprate = 1.0\ncarry_along = [\"district\"]",
        3,
    )
    .unwrap();
    assert_eq!(per_level(&log), vec![(0, 4, 0)]);
    // Every swap crosses the region: region and district move together, so each record's
    // (region, district) is some household's original pair.
    let before: Vec<(String, String)> = texts(&t, "region")
        .into_iter()
        .zip(texts(&t, "district"))
        .collect();
    let after: Vec<(String, String)> = texts(&m, "region")
        .into_iter()
        .zip(texts(&m, "district"))
        .collect();
    for a in &after {
        assert!(before.contains(a), "{a:?}");
    }
    assert_ne!(texts(&m, "region"), texts(&t, "region"));
}

/// A risk column per level replaces the k-anonymity rule: a household is at risk where its
/// members' largest risk exceeds the threshold.
#[test]
fn given_risk_columns_and_threshold() {
    let mut t = households("x");
    let r0: Vec<Option<f64>> = (0..12)
        .map(|i| Some(if i == 9 { 0.9 } else { 0.1 }))
        .collect();
    let r1: Vec<Option<f64>> = (0..12)
        .map(|i| Some(if i == 2 { 0.8 } else { 0.1 }))
        .collect();
    t.push(Column::float("r0", Role::Other, &r0)).unwrap();
    t.push(Column::float("r1", Role::Other, &r1)).unwrap();
    let (_, log) = swap(
        &t,
        "hid = \"hid\"\nhierarchy = [\"region\", \"district\"]\nsimilar = [\"htype\"]\nrisk = [\"r0\", \"r1\"]\nrisk_threshold = 0.5\nswaprate = 0",
        1,
    )
    .unwrap();
    assert_eq!(per_level(&log), vec![(1, 1, 0), (1, 1, 0)]);
    let mut p = pairs(&log);
    p.sort();
    assert_eq!(
        p,
        vec![
            ("H2".into(), "H6".into(), "district".into()),
            ("H7".into(), "H1".into(), "region".into())
        ]
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let t = households("x");
    let e = swap(&t, &BASE.replace("\"district\"]", "\"distrikt\"]"), 1).unwrap_err();
    assert!(e.contains("distrikt") && e.contains("district"), "{e}");
    for rate in ["1.5", "-0.1"] {
        let e = swap(&t, &format!("{BASE}\nswaprate = {rate}"), 1).unwrap_err();
        assert!(
            e.contains("step[1].swaprate: expected a value in [0, 1]"),
            "{e}"
        );
    }
    let e = swap(
        &t,
        "hid = \"hid\"\nhierarchy = [\"region\"]\nsimilar = [\"htype\"]",
        1,
    )
    .unwrap_err();
    assert!(e.contains("give risk_variables"), "{e}");
    let e = swap(&t, &format!("{BASE}\nrisk_threshold = 0.2"), 1).unwrap_err();
    assert!(
        e.contains("risk_threshold: applies only with 'risk'"),
        "{e}"
    );
    let e = swap(&t, &format!("{BASE}\ncarry_along = [\"region\"]"), 1).unwrap_err();
    assert!(e.contains("'region' is in 'hierarchy'"), "{e}");
    let e = swap(&t, &format!("{BASE}\nsimilar_fallback = [\"tenure+\"]"), 1).unwrap_err();
    assert!(e.contains("empty column name"), "{e}");
    // a person-level column as carry_along or similar
    let e = swap(&t, &format!("{BASE}\ncarry_along = [\"age\"]"), 1).unwrap_err();
    assert_eq!(
        e,
        "record-swap: column 'age': household 'H2' holds 'a' (row 2) and 'b' (row 3); carry_along columns are exchanged with the household, so they must be household-level"
    );
    // a household whose records disagree on the geography
    let mut bad = households("x");
    let d: Vec<Option<&str>> = (0..12)
        .map(|i| {
            Some(if i == 5 {
                "D1"
            } else {
                [
                    "D1", "D1", "D1", "D2", "D2", "D2", "D3", "D3", "D3", "D4", "D4", "D4",
                ][i]
            })
        })
        .collect();
    bad.replace(Column::string("district", Role::Key, &d))
        .unwrap();
    let e = swap(&bad, BASE, 1).unwrap_err();
    assert_eq!(
        e,
        "record-swap: column 'district': household 'H4' holds 'D2' (row 5) and 'D1' (row 6); a household's records must share their geography, which is swapped with the household"
    );
    // a missing household id
    let mut bad = households("x");
    let ids = texts(&t, "hid");
    let h: Vec<Option<&str>> = ids
        .iter()
        .enumerate()
        .map(|(i, s)| if i == 3 { None } else { Some(s.as_str()) })
        .collect::<Vec<_>>();
    bad.replace(Column::string("hid", Role::Group, &h)).unwrap();
    let e = swap(&bad, BASE, 1).unwrap_err();
    assert!(
        e.contains("column 'hid': row 4: the household id is missing"),
        "{e}"
    );
}

/// A random population: households of 1–4 persons in `regions` × 3 districts, a household type
/// and tenure, a person's age group and a person-level value `x`.
fn population() -> impl Strategy<Value = Table> {
    prop::collection::vec(
        (
            0u8..3,
            0u8..3,
            0u8..3,
            1usize..=4,
            prop::collection::vec((0u8..4, 0i64..100), 4),
        ),
        1..40,
    )
    .prop_map(|hh| {
        let (mut hid, mut region, mut district, mut htype, mut age, mut x) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        for (h, (r, d, ty, size, persons)) in hh.iter().enumerate() {
            for (a, v) in persons.iter().take(*size) {
                hid.push(Some(h as i64 * 7 % 101));
                region.push(Some(format!("R{r}")));
                district.push(Some(format!("R{r}D{d}")));
                htype.push(Some(*ty as i64));
                age.push(Some(*a as i64));
                x.push(Some(*v));
            }
        }
        Table::new(
            "pop",
            vec![
                Column::integer("hid", Role::Group, &hid),
                Column::string("region", Role::Key, &region),
                Column::string("district", Role::Key, &district),
                Column::integer("htype", Role::Other, &htype),
                Column::integer("age", Role::Key, &age),
                Column::integer("x", Role::Sensitive, &x),
            ],
        )
        .unwrap()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    /// Only the geography changes; households stay whole; the household-level geographies are
    /// permuted (each pair exchanges its own); every donor shares the household type and lives
    /// in another area of the pair's level; the households at risk per level are those counted
    /// naively, and each is swapped or reported without a donor; the same seed gives the same output on 1 and 2 threads.
    #[test]
    fn swapping_exchanges_whole_households_geography_only(
        t in population(),
        k in 0u32..4,
        rate in prop::sample::select(vec![0.0, 0.1, 0.5, 1.0]),
        seed in any::<u64>(),
    ) {
        let params = format!(
            "hid = \"hid\"\nhierarchy = [\"region\", \"district\"]\nsimilar = [\"htype\"]\nrisk_variables = [\"age\"]\nk_anonymity = {k}\nswaprate = {rate}"
        );
        let pool = |n| rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap();
        let (m, log) = pool(1).install(|| swap(&t, &params, seed)).unwrap();
        let (m2, log2) = pool(2).install(|| swap(&t, &params, seed)).unwrap();
        prop_assert_eq!(&m, &m2);
        prop_assert_eq!(&log, &log2);
        for c in ["hid", "htype", "age", "x"] {
            prop_assert_eq!(texts(&m, c), texts(&t, c));
        }
        let (hid, r0, d0, r1, d1) = (
            texts(&t, "hid"), texts(&t, "region"), texts(&t, "district"),
            texts(&m, "region"), texts(&m, "district"),
        );
        let geo = |h: &str, r: &[String], d: &[String]| -> (String, String) {
            let i = hid.iter().position(|x| x == h).unwrap();
            (r[i].clone(), d[i].clone())
        };
        for i in 0..hid.len() {
            prop_assert_eq!((r1[i].clone(), d1[i].clone()), geo(&hid[i], &r1, &d1), "household split");
        }
        let mut moved = std::collections::BTreeSet::new();
        for (a, b, level) in pairs(&log) {
            prop_assert_eq!(geo(&a, &r1, &d1), geo(&b, &r0, &d0));
            prop_assert_eq!(geo(&b, &r1, &d1), geo(&a, &r0, &d0));
            let (ga, gb) = (geo(&a, &r0, &d0), geo(&b, &r0, &d0));
            if level == "region" { prop_assert_ne!(ga.0, gb.0); } else { prop_assert_ne!(ga.1, gb.1); }
            let ty = |h: &str| texts(&t, "htype")[hid.iter().position(|x| x == h).unwrap()].clone();
            prop_assert_eq!(ty(&a), ty(&b));
            prop_assert!(moved.insert(a.clone()) && moved.insert(b.clone()), "swapped twice");
        }
        for i in 0..hid.len() {
            if !moved.contains(&hid[i]) {
                prop_assert_eq!((&r1[i], &d1[i]), (&r0[i], &d0[i]));
            }
        }
        // The households at risk, counted naively: the first level where a member's age is
        // shared by fewer than k records of the same region (level 0) or district (level 1).
        let age = texts(&t, "age");
        let count = |i: usize, l: usize| {
            (0..hid.len())
                .filter(|&j| age[j] == age[i] && r0[j] == r0[i] && (l == 0 || d0[j] == d0[i]))
                .count() as u32
        };
        let mut level_of = std::collections::BTreeMap::new();
        for (i, h) in hid.iter().enumerate() {
            let l = (0..2).find(|&l| count(i, l) < k).unwrap_or(2);
            let e = level_of.entry(h.clone()).or_insert(2);
            *e = (*e).min(l);
        }
        let d = log.steps[0].details.as_ref().unwrap();
        let lost: std::collections::BTreeSet<String> = d["no_donor"]
            .as_array().unwrap().iter().map(|x| x["household"].as_str().unwrap().to_string()).collect();
        for l in 0..2 {
            let naive = level_of.values().filter(|&&x| x == l).count() as u64;
            prop_assert_eq!(d["levels"][l]["at_risk"].as_u64().unwrap(), naive);
        }
        for (h, &l) in &level_of {
            if l < 2 {
                prop_assert!(moved.contains(h) || lost.contains(h), "household {} at risk neither swapped nor reported", h);
            }
        }
        if k <= 1 && rate == 0.0 {
            prop_assert!(moved.is_empty());
        }
    }
}

/// sdcMicro's figures on its own `createDat(500)` (set.seed(35)), committed by
/// `benches/record_swap/fixture.R`: households at risk per level are the same (they are
/// deterministic); where sdcMicro finds no donor for 4 households at risk on nuts3 on every
/// seed, so does record-swap (496 swapped); and the swap counts agree where they are random.
#[test]
fn sdcmicro_figures_on_createdat() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let t = intruder_data::read_csv(
        &dir.join("createdat500.csv"),
        &intruder_data::ReadOptions::default(),
    )
    .unwrap()
    .table;
    let peer: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("createdat500_sdcmicro.json")).unwrap(),
    )
    .unwrap();
    let list = |v: &serde_json::Value| -> String {
        let names: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|x| format!("{x}"))
            .collect();
        format!("[{}]", names.join(", "))
    };
    for case in ["k1_rate10", "k3_rate05", "k2_rate05"] {
        let c = &peer[case];
        let params = format!(
            "hid = \"hid\"\nhierarchy = {}\nsimilar = [\"hsize\"]\nrisk_variables = {}\nk_anonymity = {}\nswaprate = {}",
            list(&c["hierarchy"]),
            list(&c["risk_variables"]),
            c["k"],
            c["swaprate"]
        );
        let theirs: Vec<u64> = c["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["households_swapped"].as_u64().unwrap())
            .collect();
        let mut ours = Vec::new();
        for seed in 1..=5 {
            let (_, log) = swap(&t, &params, seed).unwrap();
            let at_risk: Vec<u64> = per_level(&log).iter().map(|l| l.0).collect();
            let expected: Vec<u64> = c["at_risk"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            assert_eq!(at_risk, expected, "{case}");
            let d = log.steps[0].details.as_ref().unwrap();
            ours.push(d["households_swapped"].as_u64().unwrap());
            if case == "k3_rate05" {
                assert_eq!(d["no_donor"].as_array().unwrap().len(), 4);
                assert_eq!(c["runs"][seed as usize - 1]["at_risk_not_swapped"], 4);
            }
        }
        let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len() as f64;
        match case {
            // 0.1 · 500 / 2 = 25 swaps; both fall short by one on one seed, when an area's
            // households were all taken as donors before its turn
            "k1_rate10" => {
                assert_eq!(ours.iter().max(), Some(&50));
                assert_eq!(theirs.iter().max(), Some(&50));
            }
            "k3_rate05" => {
                assert_eq!(ours, vec![496; 5]);
                assert_eq!(theirs, vec![496; 5]);
            }
            _ => assert!(
                (mean(&ours) - mean(&theirs)).abs() <= 5.0,
                "{ours:?} {theirs:?}"
            ),
        }
    }
}
