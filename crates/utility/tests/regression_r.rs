//! Regression against R: coefficients and standard errors of `lm` and `glm(family = binomial)`
//! on well- and badly-scaled designs, computed by R 4.2 with
//! `tests/fixtures/regression/make.R` (committed with its output, `expected.csv`, and the data
//! it simulated), equal to 1e-10 (relative); a rank-deficient design is refused naming the
//! term R reports as `NA`.

use std::path::Path;

use intruder_data::{ReadOptions, Table, read_csv};
use intruder_utility::{Family, fit};

const DIR: &str = "tests/fixtures/regression";

fn read(path: &Path) -> Table {
    read_csv(path, &ReadOptions::default()).unwrap().table
}

/// One line of `expected.csv`.
struct Expected {
    case: String,
    family: Family,
    term: String,
    estimate: Option<f64>,
    std_error: Option<f64>,
}

fn expected() -> Vec<Expected> {
    let text = std::fs::read_to_string(Path::new(DIR).join("expected.csv")).unwrap();
    let num = |s: &str| (s != "NA").then(|| s.parse::<f64>().unwrap());
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Expected {
                case: f[0].into(),
                family: f[1].parse().unwrap(),
                term: f[2].into(),
                estimate: num(f[3]),
                std_error: num(f[4]),
            }
        })
        .collect()
}

/// The data file and the model of each case, as `make.R` fits them.
fn case(case: &str, family: Family) -> (Table, String) {
    let testdata = Path::new("../../data/sdcmicro/testdata.csv");
    let file = |f: &str| Path::new(DIR).join(f);
    match (case, family) {
        ("well", Family::Linear) => (read(&file("well.csv")), "y ~ x1 + x2 + g".into()),
        ("well", Family::Logistic) => (read(&file("well.csv")), "z ~ x1 + x2 + g".into()),
        ("testdata", Family::Linear) => (read(testdata), "income ~ expend + savings".into()),
        ("testdata-age", Family::Linear) => {
            (read(testdata), "income ~ expend + savings + age".into())
        }
        ("testdata", Family::Logistic) => (
            read(&file("testdata_urban.csv")),
            "urban ~ expend + savings + age".into(),
        ),
        ("badly-scaled", Family::Linear) => {
            (read(&file("badly_scaled.csv")), "y ~ a + b + c".into())
        }
        ("badly-scaled", Family::Logistic) => (read(&file("badly_scaled.csv")), "z ~ a + b".into()),
        ("rank-deficient", Family::Linear) => {
            (read(&file("rank_deficient.csv")), "y ~ x1 + x2 + x3".into())
        }
        ("rank-deficient", Family::Logistic) => {
            (read(&file("rank_deficient.csv")), "z ~ x1 + x3 + x2".into())
        }
        other => panic!("no case {other:?}"),
    }
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

#[test]
fn coefficients_and_standard_errors_equal_r_to_1e_10() {
    let all = expected();
    let mut cases: Vec<(String, Family)> = Vec::new();
    for e in &all {
        if !cases.iter().any(|(c, f)| *c == e.case && *f == e.family) {
            cases.push((e.case.clone(), e.family));
        }
    }
    assert_eq!(cases.len(), 9, "every case of make.R");
    let mut checked = 0;
    let mut worst = 0.0f64;
    for (name, family) in cases {
        let rows: Vec<&Expected> = all
            .iter()
            .filter(|e| e.case == name && e.family == family)
            .collect();
        if rows.iter().any(|e| e.estimate.is_none()) {
            continue; // rank deficient: below
        }
        let (table, model) = case(&name, family);
        let f = fit(&table, &model.parse().unwrap(), family)
            .unwrap_or_else(|e| panic!("{name} {family:?}: {e}"));
        assert_eq!(f.names.len(), rows.len(), "{name} {family:?}");
        for (k, e) in rows.iter().enumerate() {
            let (est, se) = (e.estimate.unwrap(), e.std_error.unwrap());
            assert!(
                rel(f.estimate[k], est) < 1e-10,
                "{name} {family:?} {}: estimate {} vs R {est} (rel {:e})",
                e.term,
                f.estimate[k],
                rel(f.estimate[k], est)
            );
            assert!(
                rel(f.std_error[k], se) < 1e-10,
                "{name} {family:?} {}: se {} vs R {se} (rel {:e})",
                e.term,
                f.std_error[k],
                rel(f.std_error[k], se)
            );
            worst = worst
                .max(rel(f.estimate[k], est))
                .max(rel(f.std_error[k], se));
            checked += 1;
        }
    }
    assert_eq!(checked, 28);
    eprintln!("largest relative difference from R: {worst:e}");
}

#[test]
fn a_rank_deficient_design_names_the_term_r_aliases() {
    for e in expected().iter().filter(|e| e.estimate.is_none()) {
        let (table, model) = case(&e.case, e.family);
        let err = fit(&table, &model.parse().unwrap(), e.family)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("singular")
                && err.contains(&format!("'{}' is a linear combination", e.term))
                && err.contains("rank is 3 for 4 coefficients"),
            "{} {:?}: {err}",
            e.case,
            e.family
        );
    }
}

/// The case of issue 38: `income ~ expend + savings` on sdcMicro's testdata (condition number
/// 1.2e8) was refused as singular by the normal equations; R's `lm` fits it.
#[test]
fn money_scale_predictors_are_not_called_singular() {
    let t = read(Path::new("../../data/sdcmicro/testdata.csv"));
    let f = fit(
        &t,
        &"income ~ expend + savings".parse().unwrap(),
        Family::Linear,
    )
    .unwrap();
    assert_eq!(f.n, 4580);
    assert!(f.std_error.iter().all(|s| s.is_finite() && *s > 0.0));
}
