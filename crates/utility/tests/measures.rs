//! Utility measures on hand-computed cases.

use intruder_data::{Column, Role, Table};
use intruder_utility::{Family, Formula, ci_overlap, correlations, fit, il1s, moments, pmse};

fn table(name: &str, cols: &[(&str, &[f64])]) -> Table {
    Table::new(
        name,
        cols.iter()
            .map(|(n, v)| {
                Column::float(
                    *n,
                    Role::Sensitive,
                    &v.iter().map(|x| Some(*x)).collect::<Vec<_>>(),
                )
            })
            .collect(),
    )
    .unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12 * (1.0 + b.abs())
}

fn vars(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Original x = (1, 2, 3), y = (2, 4, 7); masked x = (1, 2, 4), y = (3, 4, 6).
fn three_by_two() -> (Table, Table) {
    (
        table(
            "orig.csv",
            &[("x", &[1.0, 2.0, 3.0]), ("y", &[2.0, 4.0, 7.0])],
        ),
        table(
            "masked.csv",
            &[("x", &[1.0, 2.0, 4.0]), ("y", &[3.0, 4.0, 6.0])],
        ),
    )
}

#[test]
fn means_and_variances_on_the_3x2_case() {
    let (o, m) = three_by_two();
    let d = moments(&o, &m, &vars(&["x", "y"])).unwrap();
    assert!(close(d[0].mean_original, 2.0) && close(d[0].mean_masked, 7.0 / 3.0));
    assert!(close(d[0].mean_diff, 1.0 / 3.0));
    assert!(close(d[0].mean_rel_diff.unwrap(), 1.0 / 6.0));
    assert!(close(d[0].var_original, 1.0) && close(d[0].var_masked, 7.0 / 3.0));
    assert!(close(d[1].mean_diff, 0.0));
    assert!(close(d[1].var_original, 19.0 / 3.0) && close(d[1].var_masked, 7.0 / 3.0));
    assert!(close(d[1].var_diff, -4.0));
}

#[test]
fn correlation_difference_on_the_3x2_case() {
    let (o, m) = three_by_two();
    let c = correlations(&o, &m, &vars(&["x", "y"])).unwrap();
    // original: Sxy = 5, Sxx = 2, Syy = 114/9 → r = 15/√228; masked: x and y deviations equal → 1
    assert!(close(c.original[0][1], 15.0 / 228f64.sqrt()));
    assert!(close(c.masked[0][1], 1.0));
    assert!(close(c.max_abs_diff, 1.0 - 15.0 / 228f64.sqrt()));
    assert!(close(c.mean_abs_diff, c.max_abs_diff));
}

#[test]
fn il1s_on_the_3x2_case_is_sdcmicros_sum() {
    let (o, m) = three_by_two();
    let il = il1s(&o, &m, &vars(&["x", "y"])).unwrap();
    // x: |3 − 4| / (√2·1); y: (1 + 0 + 1) / (√2·√(19/3)) = √(6/19)
    let expect = 1.0 / 2f64.sqrt() + (6.0f64 / 19.0).sqrt();
    assert!(close(il.total, expect), "{} vs {expect}", il.total);
    assert_eq!(il.cells, 6);
    assert!(close(il.per_cell, expect / 6.0));
    assert!(close(il.per_variable[0].1, 1.0 / 2f64.sqrt()));
    // identical files: 0
    assert_eq!(il1s(&o, &o, &vars(&["x", "y"])).unwrap().total, 0.0);
    // different record counts: a clear error
    let short = table("short.csv", &[("x", &[1.0, 2.0]), ("y", &[1.0, 2.0])]);
    let e = il1s(&o, &short, &vars(&["x"])).unwrap_err().to_string();
    assert!(e.contains("one to one") && e.contains("kept rows"), "{e}");
}

fn sample(n: usize, seed: u64) -> Table {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(seed);
    let x: Vec<f64> = (0..n).map(|_| rng.gen_range(0.0..10.0)).collect();
    let z: Vec<f64> = (0..n).map(|_| rng.gen_range(-1.0..1.0)).collect();
    let y: Vec<f64> = x
        .iter()
        .zip(&z)
        .map(|(a, b)| 1.0 + 0.5 * a + 2.0 * b + rng.gen_range(-1.0..1.0))
        .collect();
    let b: Vec<f64> = x
        .iter()
        .map(|a| f64::from(u8::from(rng.gen_range(0.0..10.0) < *a)))
        .collect();
    let g: Vec<Option<&str>> = (0..n).map(|i| Some(["a", "b", "c"][i % 3])).collect();
    let mut t = table("s.csv", &[("x", &x), ("z", &z), ("y", &y), ("b", &b)]);
    t.push(Column::categorical("g", Role::Key, &g, None).unwrap())
        .unwrap();
    t
}

#[test]
fn pmse_is_zero_when_the_masked_file_equals_the_original() {
    let t = sample(300, 1);
    let p = pmse(&t, &t, &vars(&["x", "z", "g"])).unwrap();
    assert!(p.pmse < 1e-12, "{}", p.pmse);
    assert_eq!(p.parameters, 5);
    assert!(close(p.c, 0.5));
    // null expectation (k − 1)(1 − c)²c/N = 4 · 0.25 · 0.5 / 600
    assert!(close(p.null_expectation, 4.0 * 0.25 * 0.5 / 600.0));
}

#[test]
fn pmse_grows_when_the_masked_file_is_shifted() {
    let t = sample(300, 2);
    let x: Vec<f64> = (0..300)
        .map(|i| t.column("x").unwrap().as_f64(i).unwrap() + 3.0)
        .collect();
    let mut m = t.clone();
    m.replace(Column::float(
        "x",
        Role::Sensitive,
        &x.iter().map(|v| Some(*v)).collect::<Vec<_>>(),
    ))
    .unwrap();
    let p = pmse(&t, &m, &vars(&["x", "z"])).unwrap();
    assert!(p.ratio > 20.0, "ratio {}", p.ratio);
    assert!(p.pmse > 0.01 && p.pmse <= 0.25);
}

/// Issue 32: blanks are information. Suppressing a tenth of a categorical and a numeric
/// variable shows in the pMSE (no record is dropped: before, every record with a blank was left
/// out, so a release with blanks everywhere could not be judged at all); the same blanks in both
/// files give pMSE 0, with one more parameter per variable (the `<missing>` level, the numeric
/// variable's missingness indicator).
#[test]
fn pmse_sees_suppression_and_drops_no_record() {
    let t = sample(300, 3);
    let blank = |t: &Table, name: &str| -> Column {
        let c = t.column(name).unwrap();
        let mut missing = c.missing().clone();
        for i in (0..300).step_by(10) {
            missing.set(i);
        }
        Column::new(name, c.role(), c.data().clone(), missing).unwrap()
    };
    let mut m = t.clone();
    m.replace(blank(&t, "g")).unwrap();
    m.replace(blank(&t, "x")).unwrap();
    let p = pmse(&t, &m, &vars(&["x", "g"])).unwrap();
    assert_eq!(p.dropped, 0);
    assert_eq!(p.n, 600);
    // x, its indicator, g = b, g = c, g = <missing>, and the intercept
    assert_eq!(p.parameters, 6);
    // The 30 masked records with blanks are told apart (p̂ → 1); the other 570 records look
    // alike (p̂ = 270/570): pMSE = (30·0.5² + 570·(270/570 − 0.5)²)/600 = 0.013158, about 12.6
    // times its null expectation 5·0.25·0.5/600.
    let hand = (30.0 * 0.25 + 570.0 * (270.0f64 / 570.0 - 0.5).powi(2)) / 600.0;
    assert!((p.pmse - hand).abs() < 2e-4, "{} vs {hand}", p.pmse);
    assert!(p.ratio > 12.0, "ratio {}", p.ratio);
    let same = pmse(&m, &m, &vars(&["x", "g"])).unwrap();
    assert!(same.pmse < 1e-12, "{}", same.pmse);
    assert_eq!(same.parameters, 6);
}

#[test]
fn ols_matches_the_closed_form() {
    let t = table(
        "ols.csv",
        &[("x", &[1.0, 2.0, 3.0, 4.0]), ("y", &[3.0, 5.0, 8.0, 9.0])],
    );
    let f = fit(&t, &"y ~ x".parse().unwrap(), Family::Linear).unwrap();
    // slope Sxy/Sxx = 10.5/5 = 2.1, intercept 6.25 − 2.1·2.5 = 1; RSS 0.7, s² = 0.35
    assert!(close(f.estimate[1], 2.1) && close(f.estimate[0], 1.0));
    assert!(close(f.std_error[1], 0.07f64.sqrt()));
    // t(0.975, 2) = 4.302652729749464
    assert!((f.upper[1] - (2.1 + 4.302652729749464 * 0.07f64.sqrt())).abs() < 1e-9);
}

#[test]
fn logistic_matches_the_closed_form_of_a_binary_predictor() {
    // x = 0: 3 events of 10; x = 1: 6 of 10
    let x: Vec<f64> = (0..20).map(|i| f64::from(u8::from(i >= 10))).collect();
    let y: Vec<f64> = (0..20)
        .map(|i| f64::from(u8::from(i < 3 || (10..16).contains(&i))))
        .collect();
    let t = table("logit.csv", &[("x", &x), ("y", &y)]);
    let f = fit(&t, &"y ~ x".parse().unwrap(), Family::Logistic).unwrap();
    let logit = |p: f64| (p / (1.0 - p)).ln();
    assert!((f.estimate[0] - logit(0.3)).abs() < 1e-9);
    assert!((f.estimate[1] - (logit(0.6) - logit(0.3))).abs() < 1e-9);
    // At the maximum, se(β0) = 1/√(n p (1 − p)) = 1/√2.1 and se(β1) = √(1/2.1 + 1/2.4); R's
    // summary.glm takes them from the last IRLS step's weights, a step before the maximum:
    // 0.69006522550742344 and 0.94491093628944134 (R 4.2, glm(y ~ x, binomial), 4 iterations).
    assert!((f.std_error[0] - 1.0 / 2.1f64.sqrt()).abs() < 1e-6);
    assert!((f.std_error[1] - (1.0 / 2.1 + 1.0 / 2.4f64).sqrt()).abs() < 1e-6);
    assert!((f.std_error[0] - 0.690_065_225_507_423_4).abs() < 1e-12);
    assert!((f.std_error[1] - 0.944_910_936_289_441_3).abs() < 1e-12);
}

#[test]
fn ci_overlap_is_one_for_identical_data() {
    let t = sample(200, 3);
    for (formula, family) in [
        ("y ~ x + z + g", Family::Linear),
        ("b ~ x + g", Family::Logistic),
    ] {
        let f: Formula = formula.parse().unwrap();
        let o = ci_overlap(&t, &t, &f, family).unwrap();
        assert_eq!(
            o.coefficients.len(),
            if family == Family::Linear { 5 } else { 4 }
        );
        for c in &o.coefficients {
            assert!((c.overlap - 1.0).abs() < 1e-12, "{}: {}", c.name, c.overlap);
        }
        assert!((o.mean_overlap - 1.0).abs() < 1e-12);
    }
}

#[test]
fn ci_overlap_of_shifted_intervals() {
    use intruder_utility::{CiOverlap, CoefficientOverlap};
    let _ = std::any::type_name::<(CiOverlap, CoefficientOverlap)>();
    let j = regression_overlap((0.0, 2.0), (1.0, 3.0));
    assert!(close(j, 0.5));
    let j = regression_overlap((0.0, 1.0), (2.0, 3.0));
    assert!(close(j, -1.0));
    let j = regression_overlap((0.0, 4.0), (1.0, 2.0));
    // 0.5·(1/4 + 1/1)
    assert!(close(j, 0.625));
}

fn regression_overlap(a: (f64, f64), b: (f64, f64)) -> f64 {
    intruder_utility::interval_overlap(a, b)
}

#[test]
fn formulas_are_parsed_and_bad_ones_explained() {
    let f: Formula = " income ~ age + sex ".parse().unwrap();
    assert_eq!(f.response, "income");
    assert_eq!(f.predictors, vec!["age", "sex"]);
    for bad in ["income age", "~ age", "y ~ ", "y ~ a + + b", "y ~ y"] {
        let e = bad.parse::<Formula>().unwrap_err().to_string();
        assert!(e.contains(bad), "{e}");
    }
    let t = sample(20, 4);
    let e = fit(&t, &"g ~ x".parse().unwrap(), Family::Linear)
        .unwrap_err()
        .to_string();
    assert!(e.contains("'g'") && e.contains("numeric response"), "{e}");
    let e = fit(&t, &"y ~ nope".parse().unwrap(), Family::Linear)
        .unwrap_err()
        .to_string();
    assert!(e.contains("nope"), "{e}");
}
