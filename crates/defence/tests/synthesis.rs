//! The synthesisers (independent-marginals, privbayes): marginals and conditionals reproduced
//! within binomial tolerances, the network structure where one choice dominates, the formulas
//! of PrivBayes, parameter errors, seeds and threads, and how a pipeline logs new records.

use intruder_data::{Column, ColumnData, Kind, Role, Table};
use intruder_defence::methods::privbayes::{mi_sensitivity, noise_scale};
use intruder_defence::{ChangeLog, Pipeline};

fn run(table: &Table, steps: &str, seed: u64) -> (Table, ChangeLog) {
    let p = Pipeline::from_toml(steps, "test.toml").unwrap_or_else(|e| panic!("{e}"));
    p.run(table, seed).unwrap_or_else(|e| panic!("{e}"))
}

fn texts(t: &Table, name: &str) -> Vec<Option<String>> {
    let c = t.column(name).unwrap();
    (0..c.len())
        .map(|i| c.text(i).map(|s| s.into_owned()))
        .collect()
}

fn share(v: &[Option<String>], value: Option<&str>) -> f64 {
    v.iter().filter(|x| x.as_deref() == value).count() as f64 / v.len() as f64
}

/// Pearson correlation of two equally long series.
fn correlation(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let syy: f64 = y.iter().map(|b| (b - my).powi(2)).sum();
    sxy / (sxx * syy).sqrt()
}

/// 100 records: `a` categorical x/y/z at 50/30/20, `b` an integer that follows `a` (10, 20 or
/// 30 plus 0..4), `m` a float missing on every fourth record.
fn dependent_table() -> Table {
    let a: Vec<Option<&str>> = (0..100)
        .map(|i| {
            Some(if i < 50 {
                "x"
            } else if i < 80 {
                "y"
            } else {
                "z"
            })
        })
        .collect();
    let b: Vec<Option<i64>> = (0..100)
        .map(|i| {
            Some(
                if i < 50 {
                    10
                } else if i < 80 {
                    20
                } else {
                    30
                } + (i % 5) as i64,
            )
        })
        .collect();
    let m: Vec<Option<f64>> = (0..100)
        .map(|i| (i % 4 != 0).then_some(i as f64 / 2.0))
        .collect();
    Table::new(
        "dep",
        vec![
            Column::categorical("a", Role::Key, &a, None).unwrap(),
            Column::integer("b", Role::Key, &b),
            Column::float("m", Role::Sensitive, &m),
        ],
    )
    .unwrap()
}

#[test]
fn independent_marginals_keep_every_marginal_within_binomial_tolerance() {
    let t = dependent_table();
    let n = 20_000;
    let (s, log) = run(
        &t,
        &format!("[[step]]\nmethod = \"independent-marginals\"\nn = {n}\n"),
        3,
    );
    assert_eq!(s.nrows(), n);
    assert_eq!(log.synthetic, Some(1));
    let a = texts(&s, "a");
    let m = texts(&s, "m");
    // every share within 4 binomial standard deviations of the input's
    for (value, p) in [
        (Some("x"), 0.5),
        (Some("y"), 0.3),
        (Some("z"), 0.2),
        (None, 0.0),
    ] {
        let sd = (p * (1.0 - p) / n as f64).sqrt().max(1e-12);
        let got = share(&a, value);
        assert!((got - p).abs() <= 4.0 * sd, "a = {value:?}: {got} vs {p}");
    }
    let sd = (0.25f64 * 0.75 / n as f64).sqrt();
    assert!(
        (share(&m, None) - 0.25).abs() <= 4.0 * sd,
        "missing share of m"
    );
    // kinds and levels stay; every number is an observed one
    assert_eq!(s.column("b").unwrap().kind(), Kind::Integer);
    assert_eq!(
        s.column("a").unwrap().levels(),
        t.column("a").unwrap().levels()
    );
    let observed: Vec<f64> = (0..100)
        .map(|i| t.column("b").unwrap().as_f64(i).unwrap())
        .collect();
    let b: Vec<f64> = (0..n)
        .map(|i| s.column("b").unwrap().as_f64(i).unwrap())
        .collect();
    assert!(b.iter().all(|v| observed.contains(v)));
    // the dependence of b on a is gone: correlation ≈ 0 (input ≈ 0.98)
    let code = |t: &Table, rows: usize| -> Vec<f64> {
        let ColumnData::Categorical { codes, .. } = t.column("a").unwrap().data() else {
            unreachable!()
        };
        codes[..rows].iter().map(|&c| c as f64).collect()
    };
    assert!(correlation(&code(&t, 100), &observed) > 0.95);
    let r = correlation(&code(&s, n), &b);
    assert!(r.abs() < 4.0 / (n as f64).sqrt(), "correlation {r}");
}

#[test]
fn a_synthetic_step_maps_no_released_record_to_an_input_record() {
    let t = dependent_table();
    let (s, log) = run(
        &t,
        "[[step]]\nmethod = \"independent-marginals\"\n\n[[step]]\nmethod = \"noise\"\nvariables = [\"m\"]\nnoise = 10\n",
        1,
    );
    // default n: as many as the input
    assert_eq!(s.nrows(), 100);
    assert_eq!(log.rows_out, 100);
    assert!(log.kept_rows.is_empty());
    assert_eq!(log.synthetic, Some(1));
    assert_eq!(log.records_changed, 0);
    assert_eq!(log.steps[0].rows_removed, (0..100).collect::<Vec<_>>());
    assert_eq!(log.steps[0].cells_changed, 0);
    // the later step counts its changes but lists no input row
    assert!(log.steps[1].cells_changed > 0);
    assert!(log.steps[1].columns.iter().all(|c| c.rows.is_empty()));
    let json = log.record_numbers();
    assert_eq!(json["synthetic"], 1);
    assert_eq!(json["kept_rows"].as_array().unwrap().len(), 0);
    // a masking log says nothing of synthesis
    let (_, masked) = run(
        &t,
        "[[step]]\nmethod = \"noise\"\nvariables = [\"m\"]\nnoise = 10\n",
        1,
    );
    assert_eq!(masked.synthetic, None);
    assert!(masked.record_numbers().get("synthetic").is_none());
    assert!(
        !serde_json::to_string(&masked)
            .unwrap()
            .contains("synthetic")
    );
    // a synthesiser promises nothing
    let p = Pipeline::from_toml(
        "[[step]]\nmethod = \"privbayes\"\nepsilon = 1\n\n[[step]]\nmethod = \"independent-marginals\"\n",
        "p",
    )
    .unwrap();
    assert!(p.claims().is_empty());
}

#[test]
fn privbayes_formulas_by_hand() {
    // Lemma 4.1 at n = 10: ln 10/10 + 0.9 ln(10/9); (2/10) ln 5.5 + 0.9 ln(11/9)
    assert!((mi_sensitivity(10, true) - 0.325_082_973_391_448_3).abs() < 1e-12);
    assert!((mi_sensitivity(10, false) - 0.521_553_244_363_621_2).abs() < 1e-12);
    // 2(d − k)/((1 − β) ε)
    assert!((noise_scale(5, 2, 1.0, 0.3) - 6.0 / 0.7).abs() < 1e-12);
    // k beyond d − 1 counts as d − 1: one joint of every attribute
    assert!((noise_scale(3, 5, 2.0, 0.5) - 2.0).abs() < 1e-12);
    assert!((noise_scale(3, 0, 1.0, 0.5) - 12.0).abs() < 1e-12);
}

/// 400 records: `a` one of four values, `b` a copy of `a`, `c` one of four values unrelated to
/// either.
fn copy_table() -> Table {
    let v = ["p", "q", "r", "s"];
    let a: Vec<Option<&str>> = (0..400).map(|i| Some(v[i % 4])).collect();
    let c: Vec<Option<&str>> = (0..400).map(|i| Some(v[(i / 4) % 4])).collect();
    Table::new(
        "copy",
        vec![
            Column::categorical("a", Role::Key, &a, None).unwrap(),
            Column::categorical("b", Role::Key, &a, None).unwrap(),
            Column::categorical("c", Role::Key, &c, None).unwrap(),
        ],
    )
    .unwrap()
}

#[test]
fn privbayes_links_the_copied_attribute_to_its_original_at_large_epsilon() {
    let t = copy_table();
    for seed in 0..6 {
        let (s, log) = run(
            &t,
            "[[step]]\nmethod = \"privbayes\"\nepsilon = 100\nk = 1\n",
            seed,
        );
        let net = log.steps[0].details.as_ref().unwrap()["network"]
            .as_array()
            .unwrap()
            .clone();
        let linked = net.iter().any(|p| {
            let x = p["attribute"].as_str().unwrap();
            let parents: Vec<&str> = p["parents"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            (x == "a" && parents == ["b"]) || (x == "b" && parents == ["a"])
        });
        assert!(linked, "seed {seed}: {net:?}");
        // and the copy survives in the records
        let (a, b) = (texts(&s, "a"), texts(&s, "b"));
        let same = a.iter().zip(&b).filter(|(x, y)| x == y).count();
        assert!(
            same as f64 >= 0.95 * s.nrows() as f64,
            "seed {seed}: {same}"
        );
    }
}

#[test]
fn privbayes_at_large_epsilon_reproduces_the_conditionals() {
    // P(a = x) = 0.6; P(b = u | x) = 0.9, P(b = u | y) = 0.2
    let a: Vec<Option<&str>> = (0..1000)
        .map(|i| Some(if i < 600 { "x" } else { "y" }))
        .collect();
    let b: Vec<Option<&str>> = (0..1000)
        .map(|i| {
            Some(if i < 540 || (600..680).contains(&i) {
                "u"
            } else {
                "v"
            })
        })
        .collect();
    let t = Table::new(
        "cond",
        vec![
            Column::categorical("a", Role::Key, &a, None).unwrap(),
            Column::categorical("b", Role::Key, &b, None).unwrap(),
        ],
    )
    .unwrap();
    let n = 40_000;
    let (s, _) = run(
        &t,
        &format!("[[step]]\nmethod = \"privbayes\"\nepsilon = 1e6\nn = {n}\n"),
        4,
    );
    let (sa, sb) = (texts(&s, "a"), texts(&s, "b"));
    let count = |av: &str, bv: Option<&str>| {
        sa.iter()
            .zip(&sb)
            .filter(|(x, y)| x.as_deref() == Some(av) && bv.is_none_or(|b| y.as_deref() == Some(b)))
            .count() as f64
    };
    let px = count("x", None) / n as f64;
    assert!((px - 0.6).abs() < 4.0 * (0.24f64 / n as f64).sqrt(), "{px}");
    let u_x = count("x", Some("u")) / count("x", None);
    let u_y = count("y", Some("u")) / count("y", None);
    assert!((u_x - 0.9).abs() < 0.015, "{u_x}");
    assert!((u_y - 0.2).abs() < 0.015, "{u_y}");
}

#[test]
fn privbayes_keeps_kinds_ranges_and_missing_cells() {
    let t = dependent_table();
    let (s, _) = run(
        &t,
        "[[step]]\nmethod = \"privbayes\"\nepsilon = 1e6\nbins = 4\nn = 4000\n",
        2,
    );
    let b = s.column("b").unwrap();
    assert_eq!(b.kind(), Kind::Integer);
    assert!((0..s.nrows()).all(|i| (10.0..=34.0).contains(&b.as_f64(i).unwrap())));
    let m = s.column("m").unwrap();
    assert_eq!(m.kind(), Kind::Float);
    let missing = m.missing_count() as f64 / s.nrows() as f64;
    assert!((missing - 0.25).abs() < 0.04, "{missing}");
    assert!(
        (0..s.nrows())
            .filter_map(|i| m.as_f64(i))
            .all(|v| (0.5..=49.5).contains(&v))
    );
    assert_eq!(
        s.column("a").unwrap().levels(),
        t.column("a").unwrap().levels()
    );
}

#[test]
fn privbayes_parameters_out_of_range_are_clear_errors() {
    for (params, path) in [
        ("epsilon = 0", "step[1].epsilon"),
        ("epsilon = -1", "step[1].epsilon"),
        ("k = 2", "step[1].epsilon: is required"),
        ("epsilon = 1\nk = -1", "step[1].k"),
        ("epsilon = 1\nbins = 1", "step[1].bins"),
        ("epsilon = 1\nbeta = 1", "step[1].beta"),
        ("epsilon = 1\nn = 0", "step[1].n"),
    ] {
        let e = Pipeline::from_toml(
            &format!("[[step]]\nmethod = \"privbayes\"\n{params}\n"),
            "p",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains(path), "{params}: {e}");
    }
    let e = Pipeline::from_toml("[[step]]\nmethod = \"independent-marginals\"\nn = 0\n", "p")
        .unwrap_err()
        .to_string();
    assert!(e.contains("step[1].n"), "{e}");
}

#[test]
fn synthesisers_are_seeded_and_do_not_depend_on_the_thread_count() {
    let t = dependent_table();
    for step in [
        "[[step]]\nmethod = \"privbayes\"\nepsilon = 1\n",
        "[[step]]\nmethod = \"independent-marginals\"\n",
    ] {
        let p = Pipeline::from_toml(step, "p").unwrap();
        let run_with = |threads: usize, seed: u64| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| {
                let (s, log) = p.run(&t, seed).unwrap();
                (
                    ["a", "b", "m"].map(|c| texts(&s, c)),
                    serde_json::to_string(&log).unwrap(),
                )
            })
        };
        assert_eq!(run_with(1, 7), run_with(3, 7), "{step}");
        assert_ne!(run_with(1, 7).0, run_with(1, 8).0, "{step}");
    }
}
