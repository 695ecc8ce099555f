//! Each method on a small hand-computed case with exact values.

use intruder_data::{Column, ColumnData, Role, Table};
use intruder_defence::{Pipeline, methods};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

fn run(table: &Table, step: &str, seed: u64) -> (Table, intruder_defence::ChangeLog) {
    let p = Pipeline::from_toml(&format!("[[step]]\n{step}\n"), "test.toml")
        .unwrap_or_else(|e| panic!("{e}"));
    p.run(table, seed).unwrap_or_else(|e| panic!("{e}"))
}

fn nums(t: &Table, name: &str) -> Vec<Option<f64>> {
    let c = t.column(name).unwrap();
    (0..c.len()).map(|i| c.as_f64(i)).collect()
}

fn texts(t: &Table, name: &str) -> Vec<Option<String>> {
    let c = t.column(name).unwrap();
    (0..c.len())
        .map(|i| c.text(i).map(|s| s.into_owned()))
        .collect()
}

#[test]
fn top_coding_caps_exactly_and_bottom_coding_replaces() {
    let t = Table::new(
        "t",
        vec![Column::integer(
            "age",
            Role::Key,
            &[Some(23), Some(47), Some(91), None, Some(85), Some(86)],
        )],
    )
    .unwrap();
    let (m, log) = run(
        &t,
        "method = \"top-bottom-code\"\nvariables = [\"age\"]\ntop = 85\nbottom = 30\nbottom_value = 25",
        1,
    );
    assert_eq!(
        nums(&m, "age"),
        vec![
            Some(25.0),
            Some(47.0),
            Some(85.0),
            None,
            Some(85.0),
            Some(85.0)
        ]
    );
    assert!(matches!(
        m.column("age").unwrap().data(),
        ColumnData::Integer(_)
    ));
    assert_eq!(log.cells_changed, 3);
    assert_eq!(log.steps[0].columns[0].rows, vec![0, 2, 5]);
    assert_eq!(log.suppressions, 0);
}

#[test]
fn rounding_to_base_5() {
    let t = Table::new(
        "t",
        vec![
            Column::integer(
                "i",
                Role::Other,
                &[Some(12), Some(13), Some(-12), Some(17), Some(2)],
            ),
            Column::float(
                "x",
                Role::Other,
                &[Some(12.4), Some(17.5), Some(-2.5), None, Some(0.0)],
            ),
        ],
    )
    .unwrap();
    let (m, _) = run(
        &t,
        "method = \"round\"\nvariables = [\"i\", \"x\"]\nbase = 5",
        1,
    );
    assert_eq!(
        nums(&m, "i"),
        vec![Some(10.0), Some(15.0), Some(-10.0), Some(15.0), Some(0.0)]
    );
    assert!(matches!(
        m.column("i").unwrap().data(),
        ColumnData::Integer(_)
    ));
    assert_eq!(
        nums(&m, "x"),
        vec![Some(10.0), Some(20.0), Some(-5.0), None, Some(0.0)]
    );
}

#[test]
fn global_recoding_by_breaks_left_and_right_closed() {
    let t = Table::new(
        "t",
        vec![Column::integer(
            "age",
            Role::Key,
            &[Some(5), Some(18), Some(64), Some(65), Some(120), None],
        )],
    )
    .unwrap();
    let (m, _) = run(
        &t,
        "method = \"global-recode\"\nvariables = [\"age\"]\nbreaks = [0, 18, 65, 120]",
        1,
    );
    let s = |x: &str| Some(x.to_string());
    assert_eq!(
        texts(&m, "age"),
        vec![
            s("[0,18)"),
            s("[18,65)"),
            s("[18,65)"),
            s("[65,120]"),
            s("[65,120]"),
            None
        ]
    );
    assert_eq!(
        m.column("age").unwrap().levels().unwrap(),
        ["[0,18)", "[18,65)", "[65,120]"]
    );
    let (m, _) = run(
        &t,
        "method = \"global-recode\"\nvariables = [\"age\"]\nbreaks = [0, 18, 65, 120]\nright = true\nlabels = [\"child\", \"adult\", \"old\"]",
        1,
    );
    assert_eq!(
        texts(&m, "age"),
        vec![
            s("child"),
            s("child"),
            s("adult"),
            s("adult"),
            s("old"),
            None
        ]
    );
    // outside the breaks: a clear error naming column, row and value
    let p = Pipeline::from_toml(
        "[[step]]\nmethod = \"global-recode\"\nvariables = [\"age\"]\nbreaks = [10, 100]\n",
        "p",
    )
    .unwrap();
    let e = p.run(&t, 1).unwrap_err().to_string();
    assert!(
        e.contains("'age'") && e.contains("row 1") && e.contains("value 5"),
        "{e}"
    );
}

#[test]
fn global_recoding_by_category_map() {
    let t = Table::new(
        "t",
        vec![
            Column::categorical(
                "occ",
                Role::Key,
                &[Some("1101"), Some("1102"), Some("2101"), None],
                None,
            )
            .unwrap(),
        ],
    )
    .unwrap();
    let (m, log) = run(
        &t,
        "method = \"global-recode\"\nvariables = [\"occ\"]\nmap = { \"1101\" = \"11\", \"1102\" = \"11\" }",
        1,
    );
    let s = |x: &str| Some(x.to_string());
    assert_eq!(texts(&m, "occ"), vec![s("11"), s("11"), s("2101"), None]);
    assert_eq!(m.column("occ").unwrap().levels().unwrap(), ["11", "2101"]);
    assert_eq!(log.cells_changed, 2);
    let p = Pipeline::from_toml(
        "[[step]]\nmethod = \"global-recode\"\nvariables = [\"occ\"]\nmap = { \"1110\" = \"11\" }\n",
        "p",
    )
    .unwrap();
    let e = p.run(&t, 1).unwrap_err().to_string();
    assert!(
        e.contains("'1110'") && e.contains("not one of its levels"),
        "{e}"
    );
}

#[test]
fn mdav_on_a_tiny_one_dimensional_set_has_the_known_partition() {
    // centroid 7.5; farthest r = 30; farthest from r: s = 1. Group of r: {30, 9, 8};
    // group of s: {1, 2, 3}; 4 records remain (< 2k = 6): last group {4, 5, 6, 7}.
    let vals: Vec<f64> = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 30.0];
    let groups = methods::mdav::partition(std::slice::from_ref(&vals), 3, true);
    assert_eq!(groups, vec![vec![7, 8, 9], vec![0, 1, 2], vec![3, 4, 5, 6]]);
    let t = Table::new(
        "t",
        vec![Column::float(
            "x",
            Role::Sensitive,
            &vals.iter().map(|v| Some(*v)).collect::<Vec<_>>(),
        )],
    )
    .unwrap();
    let (m, _) = run(&t, "method = \"mdav\"\nvariables = [\"x\"]\nk = 3", 1);
    let g1 = 47.0 / 3.0;
    assert_eq!(
        nums(&m, "x"),
        [2.0, 2.0, 2.0, 5.5, 5.5, 5.5, 5.5, g1, g1, g1]
            .map(Some)
            .to_vec()
    );
}

#[test]
fn mdav_groups_have_k_to_2k_minus_1_records_and_preserve_means() {
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    use rand::Rng;
    let n = 503;
    let a: Vec<f64> = (0..n).map(|_| rng.gen_range(0.0..100.0)).collect();
    let b: Vec<f64> = (0..n).map(|_| rng.gen_range(0.0..1.0)).collect();
    for k in [2, 3, 5, 10] {
        let groups = methods::mdav::partition(&[a.clone(), b.clone()], k, true);
        let mut seen = vec![false; n];
        for g in &groups {
            assert!(
                g.len() >= k && g.len() < 2 * k,
                "k={k}: group of {}",
                g.len()
            );
            for &i in g {
                assert!(!seen[i]);
                seen[i] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }
    let t = Table::new(
        "t",
        vec![
            Column::float(
                "a",
                Role::Sensitive,
                &a.iter().map(|v| Some(*v)).collect::<Vec<_>>(),
            ),
            Column::float(
                "b",
                Role::Sensitive,
                &b.iter().map(|v| Some(*v)).collect::<Vec<_>>(),
            ),
        ],
    )
    .unwrap();
    let (m, _) = run(
        &t,
        "method = \"mdav\"\nvariables = [\"a\", \"b\"]\nk = 4",
        1,
    );
    let mean = |v: &[Option<f64>]| v.iter().map(|x| x.unwrap()).sum::<f64>() / v.len() as f64;
    let before = a.iter().sum::<f64>() / n as f64;
    assert!((mean(&nums(&m, "a")) - before).abs() < 1e-9);
}

#[test]
fn rank_swap_never_moves_a_value_more_than_p_percent_of_n_ranks() {
    let n = 200;
    // distinct values in shuffled order
    let vals: Vec<f64> = (0..n).map(|i| ((i * 37) % n) as f64 * 1.5).collect();
    let t = Table::new(
        "t",
        vec![Column::float(
            "x",
            Role::Sensitive,
            &vals.iter().map(|v| Some(*v)).collect::<Vec<_>>(),
        )],
    )
    .unwrap();
    for (p, seed) in [(10.0, 1u64), (2.5, 2), (50.0, 3)] {
        let (m, log) = run(
            &t,
            &format!("method = \"rank-swap\"\nvariables = [\"x\"]\np = {p}"),
            seed,
        );
        let w = (p / 100.0 * n as f64).floor() as i64;
        let rank = |v: f64| (v / 1.5) as i64; // value 1.5·r has rank r
        let out = nums(&m, "x");
        let mut moved = 0;
        for i in 0..n {
            let d = (rank(out[i].unwrap()) - rank(vals[i])).abs();
            assert!(d <= w, "p={p}: row {i} moved {d} ranks > {w}");
            moved += usize::from(d > 0);
        }
        assert!(moved > n / 2, "p={p}: only {moved} values swapped");
        let mut sorted: Vec<f64> = out.iter().map(|x| x.unwrap()).collect();
        sorted.sort_by(f64::total_cmp);
        let mut orig = vals.clone();
        orig.sort_by(f64::total_cmp);
        assert_eq!(sorted, orig, "swapping keeps the values");
        assert_eq!(log.cells_changed, moved);
    }
}

fn cat_table() -> Table {
    let v: Vec<Option<&str>> = (0..300)
        .map(|i| match i % 6 {
            0..=2 => Some("a"),
            3 | 4 => Some("b"),
            _ => {
                if i % 12 == 5 {
                    None
                } else {
                    Some("c")
                }
            }
        })
        .collect();
    let s: Vec<Option<&str>> = (0..300)
        .map(|i| Some(if i < 150 { "north" } else { "south" }))
        .collect();
    Table::new(
        "t",
        vec![
            Column::categorical("g", Role::Key, &v, None).unwrap(),
            Column::categorical("region", Role::Key, &s, None).unwrap(),
        ],
    )
    .unwrap()
}

#[test]
fn pram_with_the_identity_matrix_changes_nothing() {
    let t = cat_table();
    let (m, log) = run(
        &t,
        "method = \"pram\"\nvariables = [\"g\"]\nmatrix = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]",
        9,
    );
    assert_eq!(texts(&m, "g"), texts(&t, "g"));
    assert_eq!(log.cells_changed, 0);
    // a matrix sending everything to "b" (given in another level order)
    let (m, _) = run(
        &t,
        "method = \"pram\"\nvariables = [\"g\"]\nlevels = [\"c\", \"b\", \"a\"]\nmatrix = [[0, 1, 0], [0, 1, 0], [0, 1, 0]]",
        9,
    );
    for (i, v) in texts(&m, "g").into_iter().enumerate() {
        if t.column("g").unwrap().is_missing(i) {
            assert_eq!(v, None);
        } else {
            assert_eq!(v.as_deref(), Some("b"));
        }
    }
}

#[test]
fn invariant_pram_matrix_leaves_the_frequencies_invariant() {
    let t = [50.0, 30.0, 15.0, 5.0, 0.0];
    for (pd, alpha) in [(0.8, 0.5), (0.6, 1.0), (1.0, 0.3)] {
        let r = methods::pram::invariant_matrix(&t, pd, alpha);
        for (i, row) in r.iter().enumerate() {
            assert!(
                (row.iter().sum::<f64>() - 1.0).abs() < 1e-12,
                "row {i} sums to 1"
            );
            assert!(row.iter().all(|&x| x >= 0.0));
        }
        for j in 0..t.len() {
            let tj: f64 = (0..t.len()).map(|i| t[i] * r[i][j]).sum();
            assert!((tj - t[j]).abs() < 1e-9, "T·R = T at {j}: {tj} vs {}", t[j]);
        }
        assert_eq!(r[0][4], 0.0, "no draw into an empty category");
    }
    // pd = 1 is the identity
    let r = methods::pram::invariant_matrix(&t, 1.0, 1.0);
    assert_eq!(r[2], vec![0.0, 0.0, 1.0, 0.0, 0.0]);
}

#[test]
fn invariant_pram_within_strata_changes_some_and_is_seeded() {
    let t = cat_table();
    let step = "method = \"pram\"\nvariables = [\"g\"]\npd = 0.7\nalpha = 1\nstrata = [\"region\"]";
    let (a, log) = run(&t, step, 5);
    let (b, _) = run(&t, step, 5);
    let (c, _) = run(&t, step, 6);
    assert_eq!(texts(&a, "g"), texts(&b, "g"));
    assert_ne!(texts(&a, "g"), texts(&c, "g"));
    assert!(
        log.cells_changed > 10 && log.cells_changed < 200,
        "{}",
        log.cells_changed
    );
    assert_eq!(log.suppressions, 0);
    assert_eq!(
        t.column("g").unwrap().missing(),
        a.column("g").unwrap().missing()
    );
}

#[test]
fn pram_base_matrix_spreads_each_rows_rest_evenly() {
    // sdcMicro's construction: row i = d_i on the diagonal, (1 − d_i)/(L − 1) elsewhere.
    let p = methods::pram::base_matrix(&[0.9, 0.6, 0.8]);
    let want = [[0.9, 0.05, 0.05], [0.2, 0.6, 0.2], [0.1, 0.1, 0.8]];
    for (row, w) in p.iter().zip(want) {
        for (x, y) in row.iter().zip(w) {
            assert!((x - y).abs() < 1e-15, "{p:?}");
        }
    }
}

#[test]
fn invariant_pram_with_a_per_category_diagonal_by_hand() {
    // T = (3, 1), diagonal (0.9, 0.7): P = [[0.9, 0.1], [0.3, 0.7]].
    // λ = T·P = (0.9·3 + 0.3·1, 0.1·3 + 0.7·1) = (3, 1);
    // Q[k][j] = P[j][k]·T[j]/λ_k = [[2.7/3, 0.3/3], [0.3/1, 0.7/1]] = [[0.9, 0.1], [0.3, 0.7]];
    // R̃ = P·Q = [[0.84, 0.16], [0.48, 0.52]] (T·R̃ = (2.52 + 0.48, 0.48 + 0.52) = T);
    // R = 0.5·R̃ + 0.5·I = [[0.92, 0.08], [0.24, 0.76]].
    let r = methods::pram::invariant_matrix_with_diagonal(&[3.0, 1.0], &[0.9, 0.7], 0.5);
    let want = [[0.92, 0.08], [0.24, 0.76]];
    for (row, w) in r.iter().zip(want) {
        for (x, y) in row.iter().zip(w) {
            assert!((x - y).abs() < 1e-12, "{r:?}");
        }
    }
    // A constant diagonal is the fixed-diagonal matrix.
    let t = [50.0, 30.0, 15.0, 5.0];
    assert_eq!(
        methods::pram::invariant_matrix_with_diagonal(&t, &[0.7; 4], 0.5),
        methods::pram::invariant_matrix(&t, 0.7, 0.5)
    );
}

#[test]
fn sdcmicro_minimum_diagonal_draws_lie_in_pd_to_1_and_rows_sum_to_1() {
    let (pd, l) = (0.6, 5);
    let mut rng = ChaCha20Rng::seed_from_u64(42);
    let d = methods::pram::draw_diagonal(l, pd, &mut rng);
    // Exact values: d_i = pd + (1 − pd)·u_i with u_i the seed's first five uniforms.
    let mut again = ChaCha20Rng::seed_from_u64(42);
    use rand::Rng;
    let want: Vec<f64> = (0..l)
        .map(|_| pd + (1.0 - pd) * again.r#gen::<f64>())
        .collect();
    assert_eq!(d, want);
    assert!(d.iter().all(|&x| (pd..1.0).contains(&x)), "{d:?}");
    // Not all equal: a draw per category.
    assert!(d.windows(2).any(|w| w[0] != w[1]), "{d:?}");
    let t = [40.0, 25.0, 20.0, 10.0, 5.0];
    let r = methods::pram::invariant_matrix_with_diagonal(&t, &d, 0.5);
    for (i, row) in r.iter().enumerate() {
        assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-12, "row {i}");
        assert!(row.iter().all(|&x| x >= 0.0));
    }
    for j in 0..l {
        let tj: f64 = (0..l).map(|i| t[i] * r[i][j]).sum();
        assert!((tj - t[j]).abs() < 1e-9, "T·R = T at {j}");
    }
    // The base matrix's diagonal is the draw, its rows sum to 1.
    let p = methods::pram::base_matrix(&d);
    for i in 0..l {
        assert_eq!(p[i][i], d[i]);
        assert!((p[i].iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }
}

/// 1,000 strata of 20 records, categories a and b ten times each: PRAM with pd = 0.6, alpha = 1.
fn pram_strata_table() -> Table {
    let n = 20_000;
    let g: Vec<Option<&str>> = (0..n)
        .map(|i| Some(if i % 2 == 0 { "a" } else { "b" }))
        .collect();
    let labels: Vec<String> = (0..n).map(|i| format!("s{}", i / 20)).collect();
    let s: Vec<Option<&str>> = labels.iter().map(|x| Some(x.as_str())).collect();
    Table::new(
        "t",
        vec![
            Column::categorical("g", Role::Key, &g, None).unwrap(),
            Column::categorical("stratum", Role::Other, &s, None).unwrap(),
        ],
    )
    .unwrap()
}

#[test]
fn pd_meanings_change_the_expected_share_of_cells() {
    // Two equally frequent categories, base diagonal (d1, d2): with λ = (d1 + 1 − d2,
    // 1 − d1 + d2), R̃_aa = d1²/λ_a + (1 − d1)²/λ_b and R̃_bb = d2²/λ_b + (1 − d2)²/λ_a;
    // a record changes with probability 1 − R̃_xx (alpha = 1).
    // - diagonal: d1 = d2 = 0.6, λ = (1, 1), R̃_aa = 0.36 + 0.16 = 0.52: share 0.48.
    // - minimum (sdcMicro): d1, d2 ~ U(0.6, 1), fresh per stratum: the mean of the share over
    //   the square, ≈ 0.301 (midpoint rule below).
    let change = |d1: f64, d2: f64| {
        let (la, lb) = (d1 + 1.0 - d2, 1.0 - d1 + d2);
        let raa = d1 * d1 / la + (1.0 - d1) * (1.0 - d1) / lb;
        let rbb = d2 * d2 / lb + (1.0 - d2) * (1.0 - d2) / la;
        0.5 * ((1.0 - raa) + (1.0 - rbb))
    };
    let diagonal_share = change(0.6, 0.6);
    assert!((diagonal_share - 0.48).abs() < 1e-12);
    let grid = 400;
    let mut total = 0.0;
    for i in 0..grid {
        for j in 0..grid {
            let d1 = 0.6 + 0.4 * (i as f64 + 0.5) / grid as f64;
            let d2 = 0.6 + 0.4 * (j as f64 + 0.5) / grid as f64;
            total += change(d1, d2);
        }
    }
    let minimum_share = total / (grid * grid) as f64;
    assert!((minimum_share - 0.3014).abs() < 1e-3, "{minimum_share}");
    // Standard error of the observed share over 20,000 cells in 1,000 strata: ≈ 0.005 (the
    // per-stratum change probability varies with sd ≈ 0.10 under minimum); the tolerance 0.02
    // is 4 standard errors, and the two expectations lie 0.18 apart.
    let t = pram_strata_table();
    let n = t.nrows() as f64;
    for (meaning, want) in [("diagonal", diagonal_share), ("minimum", minimum_share)] {
        for seed in [1, 2] {
            let (_, log) = run(
                &t,
                &format!(
                    "method = \"pram\"\nvariables = [\"g\"]\npd = 0.6\nalpha = 1\npd_meaning = \"{meaning}\"\nstrata = [\"stratum\"]"
                ),
                seed,
            );
            let share = log.cells_changed as f64 / n;
            assert!(
                (share - want).abs() < 0.02,
                "{meaning}, seed {seed}: share {share}, expected {want}"
            );
        }
    }
}

#[test]
fn pd_meaning_minimum_is_seeded_and_refused_with_a_matrix() {
    let t = cat_table();
    let step =
        "method = \"pram\"\nvariables = [\"g\"]\npd_meaning = \"minimum\"\nstrata = [\"region\"]";
    let (a, _) = run(&t, step, 5);
    let (b, _) = run(&t, step, 5);
    assert_eq!(texts(&a, "g"), texts(&b, "g"));
    assert_eq!(
        t.column("g").unwrap().missing(),
        a.column("g").unwrap().missing()
    );
    let bad = "[[step]]\nmethod = \"pram\"\nvariables = [\"g\"]\nmatrix = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]\npd_meaning = \"minimum\"\n";
    let err = Pipeline::from_toml(bad, "p.toml").unwrap_err().to_string();
    assert!(err.contains("pd_meaning"), "{err}");
    let bad = "[[step]]\nmethod = \"pram\"\nvariables = [\"g\"]\npd_meaning = \"minimal\"\n";
    let err = Pipeline::from_toml(bad, "p.toml").unwrap_err().to_string();
    assert!(
        err.contains("pd_meaning") && err.contains("minimum"),
        "{err}"
    );
}

#[test]
fn noise_has_the_declared_covariance() {
    let mut rng = ChaCha20Rng::seed_from_u64(11);
    use rand::Rng;
    use rand_distr::StandardNormal;
    let n = 20000;
    let x: Vec<f64> = (0..n)
        .map(|_| rng.sample::<f64, _>(StandardNormal) * 10.0)
        .collect();
    let y: Vec<f64> = x
        .iter()
        .map(|v| 0.5 * v + rng.sample::<f64, _>(StandardNormal) * 5.0)
        .collect();
    let t = Table::new(
        "t",
        vec![
            Column::float(
                "x",
                Role::Sensitive,
                &x.iter().map(|v| Some(*v)).collect::<Vec<_>>(),
            ),
            Column::float(
                "y",
                Role::Sensitive,
                &y.iter().map(|v| Some(*v)).collect::<Vec<_>>(),
            ),
        ],
    )
    .unwrap();
    let cov = |a: &[f64], b: &[f64]| {
        let ma = a.iter().sum::<f64>() / a.len() as f64;
        let mb = b.iter().sum::<f64>() / b.len() as f64;
        a.iter()
            .zip(b)
            .map(|(u, v)| (u - ma) * (v - mb))
            .sum::<f64>()
            / (a.len() - 1) as f64
    };
    let (sxx, sxy, syy) = (cov(&x, &x), cov(&x, &y), cov(&y, &y));
    for correlated in [false, true] {
        let (m, _) = run(
            &t,
            &format!(
                "method = \"noise\"\nvariables = [\"x\", \"y\"]\nnoise = 20\ncorrelated = {correlated}"
            ),
            4,
        );
        let ex: Vec<f64> = nums(&m, "x")
            .iter()
            .zip(&x)
            .map(|(a, b)| a.unwrap() - b)
            .collect();
        let ey: Vec<f64> = nums(&m, "y")
            .iter()
            .zip(&y)
            .map(|(a, b)| a.unwrap() - b)
            .collect();
        assert!(
            (cov(&ex, &ex) / (0.2 * sxx) - 1.0).abs() < 0.05,
            "var of x noise"
        );
        assert!(
            (cov(&ey, &ey) / (0.2 * syy) - 1.0).abs() < 0.05,
            "var of y noise"
        );
        let c = cov(&ex, &ey);
        if correlated {
            assert!(
                (c / (0.2 * sxy) - 1.0).abs() < 0.1,
                "noise covariance {c} vs {}",
                0.2 * sxy
            );
        } else {
            assert!(
                c.abs() < 0.05 * 0.2 * sxy,
                "uncorrelated noise covariance {c}"
            );
        }
    }
}

#[test]
fn subsampling_keeps_the_fraction_and_writes_design_weights() {
    let ids: Vec<Option<i64>> = (0..10).map(Some).collect();
    let strat: Vec<Option<&str>> = (0..10)
        .map(|i| Some(if i < 4 { "a" } else { "b" }))
        .collect();
    let t = Table::new(
        "t",
        vec![
            Column::integer("id", Role::Other, &ids),
            Column::categorical("s", Role::Key, &strat, None).unwrap(),
        ],
    )
    .unwrap();
    let (m, log) = run(&t, "method = \"subsample\"\nfraction = 0.5", 3);
    assert_eq!(m.nrows(), 5);
    assert_eq!(nums(&m, "weight"), vec![Some(2.0); 5]);
    assert_eq!(m.column("weight").unwrap().role(), Role::Weight);
    let kept: Vec<Option<f64>> = log.kept_rows.iter().map(|&r| Some(r as f64)).collect();
    assert_eq!(
        nums(&m, "id"),
        kept,
        "kept rows are the input rows kept, in order"
    );
    assert!(log.kept_rows.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(log.steps[0].rows_removed.len(), 5);
    assert_eq!(log.steps[0].columns_added, vec!["weight"]);
    // stratified: a has 4 → 2 kept (weight 2), b has 6 → 3 kept (weight 2); then a weight of a weight
    let (m2, _) = run(&m, "method = \"subsample\"\nsize = 2", 4);
    assert_eq!(nums(&m2, "weight"), vec![Some(5.0); 2]);
    let (m3, _) = run(
        &t,
        "method = \"subsample\"\nfraction = 0.25\nstrata = [\"s\"]",
        5,
    );
    // a: round(1) = 1 of 4 (weight 4); b: round(1.5) = 2 of 6 (weight 3)
    let w: Vec<(String, f64)> = (0..m3.nrows())
        .map(|i| {
            (
                m3.column("s").unwrap().text(i).unwrap().into_owned(),
                m3.column("weight").unwrap().as_f64(i).unwrap(),
            )
        })
        .collect();
    assert_eq!(w.iter().filter(|x| x.0 == "a").count(), 1);
    assert_eq!(w.iter().filter(|x| x.0 == "b").count(), 2);
    assert!(w.iter().all(|x| x.1 == if x.0 == "a" { 4.0 } else { 3.0 }));
}

#[test]
fn record_removal_drops_small_classes_and_reports_kept_rows() {
    // Dalenius example B: 10110, 01101, 10110, 01101, 11101, 01101, 01101 → classes of 2, 4, 1
    let recs = [
        "10110", "01101", "10110", "01101", "11101", "01101", "01101",
    ];
    let cols: Vec<Column> = (0..5)
        .map(|j| {
            let v: Vec<Option<i64>> = recs
                .iter()
                .map(|r| Some((r.as_bytes()[j] - b'0') as i64))
                .collect();
            Column::integer(format!("v{j}"), Role::Key, &v)
        })
        .collect();
    let t = Table::new("t", cols).unwrap();
    let keys = "keys = [\"v0\", \"v1\", \"v2\", \"v3\", \"v4\"]";
    let (m, log) = run(
        &t,
        &format!("method = \"remove-records\"\n{keys}\nk = 2"),
        1,
    );
    assert_eq!(log.kept_rows, vec![0, 1, 2, 3, 5, 6]);
    assert_eq!(m.nrows(), 6);
    let (_, log) = run(
        &t,
        &format!("method = \"remove-records\"\n{keys}\nk = 3"),
        1,
    );
    assert_eq!(
        log.kept_rows,
        vec![1, 3, 5, 6],
        "threshold 2: records 1, 3, 5 are 'unique'"
    );
    assert_eq!(log.steps[0].rows_removed, vec![0, 2, 4]);
}

#[test]
fn individual_risk_follows_sdcmicro_indivrisk_approx() {
    use methods::suppress::individual_risk;
    // f = 1, F = 4: p = 1/4, (p/(1-p))·ln(1/p) = ln(4)/3
    assert!((individual_risk(1, 4.0) - 4f64.ln() / 3.0).abs() < 1e-15);
    // f = 2, F = 8: p = 1/4, o = 1/3: o − o²·ln 4
    assert!((individual_risk(2, 8.0) - (1.0 / 3.0 - 4f64.ln() / 9.0)).abs() < 1e-15);
    // f = 4, F = 16: p/(f − (1 − p)) = 0.25/3.25
    assert!((individual_risk(4, 16.0) - 0.25 / 3.25).abs() < 1e-15);
    // no sampling: 1/f
    assert_eq!(individual_risk(3, 3.0), 1.0 / 3.0);
}

#[test]
fn risk_suppression_blanks_the_chosen_key_then_keeps_its_promise() {
    let a: Vec<Option<i64>> = vec![Some(1), Some(1), Some(2), Some(2), Some(3)];
    let b: Vec<Option<i64>> = vec![Some(1), Some(1), Some(1), Some(2), Some(1)];
    let t = Table::new(
        "t",
        vec![
            Column::integer("a", Role::Key, &a),
            Column::integer("b", Role::Key, &b),
        ],
    )
    .unwrap();
    // classes: {0,1} f=2, {2} f=1, {3} f=1, {4} f=1; threshold 0.5 → rows 2, 3, 4 (risk 1):
    // sdcMicro's localSupp blanks a there. Under the wildcard rule row 3, (., 2), still matches
    // only itself, so its b goes too (4 cells); under `all` the classes of visible values
    // (., 1) ×2 and (., 2) ×1 must each reach 2: (., 2) can only go to every key blank, where
    // it is alone until the (., 1) pair joins it (6 cells).
    let t_rs = |rule: &str| {
        format!(
            "method = \"risk-suppression\"\nkeys = [\"a\", \"b\"]\nthreshold = 0.5\nsuppress = \"a\"\nprotect_against = \"{rule}\""
        )
    };
    let (m, log) = run(&t, &t_rs("wildcard"), 1);
    assert_eq!(nums(&m, "a"), vec![Some(1.0), Some(1.0), None, None, None]);
    assert_eq!(
        nums(&m, "b"),
        vec![Some(1.0), Some(1.0), Some(1.0), None, Some(1.0)]
    );
    assert_eq!(log.suppressions, 4);
    let (m, log) = run(&t, &t_rs("all"), 1);
    assert_eq!(nums(&m, "a"), vec![Some(1.0), Some(1.0), None, None, None]);
    assert_eq!(nums(&m, "b"), vec![Some(1.0), Some(1.0), None, None, None]);
    assert_eq!(log.suppressions, 6);
    // weighted: F = sum of weights; f=2 class with weights 10+10 → p = 0.1
    let w: Vec<Option<f64>> = vec![Some(10.0), Some(10.0), Some(1.0), Some(50.0), Some(2.0)];
    let mut cols = t.columns().to_vec();
    cols.push(Column::float("w", Role::Weight, &w));
    let tw = Table::new("t", cols).unwrap();
    // risks: row 2: F=1 → 1/f = 1; row 3: p=1/50 → 0.0204·ln 50 = 0.0798; row 4: p=1/2 → ln 2
    // = 0.693: sdcMicro's pass blanks b of rows 2 and 4. Wildcard: (2, .) now matches row 3
    // (f = 2, F = 51, risk 0.035) but (3, .) is alone (0.693), so its a goes: (., .) matches
    // all five. All: (2, .) and (3, .) are classes of one (risks 1 and 0.693) and both go to
    // (., .), a class of f = 2, F = 3: p = 2/3, 2 − 4·ln 1.5 = 0.378 ≤ 0.5.
    let w_rs = |rule: &str| {
        format!(
            "method = \"risk-suppression\"\nkeys = [\"a\", \"b\"]\nthreshold = 0.5\nsuppress = \"b\"\nweight = \"w\"\nprotect_against = \"{rule}\""
        )
    };
    let (m, _) = run(&tw, &w_rs("wildcard"), 1);
    assert_eq!(
        nums(&m, "b"),
        vec![Some(1.0), Some(1.0), None, Some(2.0), None]
    );
    assert_eq!(
        nums(&m, "a"),
        vec![Some(1.0), Some(1.0), Some(2.0), Some(2.0), None]
    );
    let (m, _) = run(&tw, &w_rs("all"), 1);
    assert_eq!(
        nums(&m, "b"),
        vec![Some(1.0), Some(1.0), None, Some(2.0), None]
    );
    assert_eq!(
        nums(&m, "a"),
        vec![Some(1.0), Some(1.0), None, Some(2.0), None]
    );
}

#[test]
fn same_seed_gives_identical_output_and_other_seeds_differ() {
    let t = cat_table();
    let x: Vec<Option<f64>> = (0..300).map(|i| Some((i * 7 % 113) as f64)).collect();
    let mut cols = t.columns().to_vec();
    cols.push(Column::float("x", Role::Sensitive, &x));
    let t = Table::new("t", cols).unwrap();
    let pipeline = "[[step]]\nmethod = \"pram\"\nvariables = [\"g\"]\n\n[[step]]\nmethod = \"noise\"\nvariables = [\"x\"]\nnoise = 10\n\n[[step]]\nmethod = \"rank-swap\"\nvariables = [\"x\"]\np = 5\n\n[[step]]\nmethod = \"subsample\"\nfraction = 0.3\n";
    let p = Pipeline::from_toml(pipeline, "p.toml").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let write = |seed: u64, name: &str| {
        let (m, log) = p.run(&t, seed).unwrap();
        let path = dir.path().join(name);
        m.write_csv(&path).unwrap();
        (
            std::fs::read(&path).unwrap(),
            serde_json::to_string(&log).unwrap(),
        )
    };
    let a = write(42, "a.csv");
    let b = write(42, "b.csv");
    let c = write(43, "c.csv");
    assert_eq!(a, b);
    assert_ne!(a.0, c.0);
    // the input is not modified
    assert_eq!(t.column("x").unwrap().as_f64(5), Some(35.0));
}

#[test]
fn mdav_and_local_suppression_do_not_depend_on_the_thread_count() {
    use rand::Rng;
    let mut rng = ChaCha20Rng::seed_from_u64(21);
    let n = 40_000; // above the size where MDAV splits its passes over threads
    let a: Vec<Option<f64>> = (0..n)
        .map(|_| Some(rng.gen_range(0.0..1000.0f64).round()))
        .collect();
    let b: Vec<Option<f64>> = (0..n)
        .map(|_| Some(rng.gen_range(0.0..10.0f64).round()))
        .collect();
    let t = Table::new(
        "t",
        vec![
            Column::float("a", Role::Key, &a),
            Column::float("b", Role::Key, &b),
        ],
    )
    .unwrap();
    let p = Pipeline::from_toml(
        "[[step]]\nmethod = \"mdav\"\nvariables = [\"a\", \"b\"]\nk = 400\n\n[[step]]\nmethod = \"local-suppression\"\nkeys = [\"a\", \"b\"]\nk = 3\n",
        "p",
    )
    .unwrap();
    let run_with = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let (m, log) = p.run(&t, 5).unwrap();
            (
                nums(&m, "a"),
                nums(&m, "b"),
                serde_json::to_string(&log).unwrap(),
            )
        })
    };
    assert_eq!(run_with(1), run_with(3));
}
