//! `census`: the drug-survey preset's class counts and the generic population and sample.

use crate::common;

use common::{figure, generate};
use intruder_synth::figures::{Table, census, class_sizes};

#[test]
fn drug_survey_preset_reproduces_the_class_counts() {
    // Seeds 1-4 at n = 1,000,000 give 20-23 uniques and 42-43 classes under 5; the
    // tolerance (+-7 and +-9) covers the sampling spread of these counts (s.d. about 3).
    let (dir, _) = generate("census", 8, &["preset=drug-survey", "n=400000"]);
    let f = census(dir.path()).expect("figures");
    assert_eq!(figure(&f, "drug-survey respondents"), 1502.0);
    assert_eq!(figure(&f, "drug-survey population classes"), 126.0);
    let u = figure(&f, "drug-survey sample uniques");
    assert!((14.0..=28.0).contains(&u), "sample uniques {u}");
    let c5 = figure(&f, "drug-survey classes under 5");
    assert!((33.0..=51.0).contains(&c5), "classes under 5: {c5}");
    assert_eq!(
        figure(&f, "drug-survey classes under 5 without region"),
        0.0
    );
    // Smallest population class: hundreds per million people.
    let smallest = figure(&f, "drug-survey smallest population class");
    assert!(
        smallest * 1e6 / 400_000.0 >= 200.0,
        "smallest class {smallest}"
    );
    // Weights are N_h / n_h: they add up to the population.
    assert!((figure(&f, "weighted sample total") - 400_000.0).abs() < 1.0);
}

#[test]
fn generic_census_has_exact_sample_size_and_dependent_keys() {
    let (dir, _) = generate("census", 2, &["n=30000", "keys=20", "fraction=0.02"]);
    let f = census(dir.path()).expect("figures");
    assert_eq!(figure(&f, "population records"), 30000.0);
    assert_eq!(figure(&f, "sample records"), 600.0);
    assert!((figure(&f, "weighted sample total") - 30000.0).abs() < 1.0);
    let pop = Table::read(&dir.path().join("population.csv")).expect("population");
    assert_eq!(pop.header.len(), 21);
    // Some keys have more than ten categories and all categories are skewed.
    let k17 = class_sizes(&pop, &["k17"]);
    assert!(k17.len() > 10);
    let max = *k17.values().max().expect("non-empty");
    let min = *k17.values().min().expect("non-empty");
    assert!(max > 5 * min, "k17 not skewed: {max} vs {min}");
    let dep = cramers_v(&pop, "k02", "k04");
    let (dir0, _) = generate("census", 2, &["n=30000", "dependence=0"]);
    let pop0 = Table::read(&dir0.path().join("population.csv")).expect("population");
    let indep = cramers_v(&pop0, "k02", "k04");
    assert!(
        dep > 0.05 && dep > 2.0 * indep && indep < 0.035,
        "dependent {dep}, independent {indep}"
    );
}

fn cramers_v(t: &Table, a: &str, b: &str) -> f64 {
    let joint = class_sizes(t, &[a, b]);
    let ma = class_sizes(t, &[a]);
    let mb = class_sizes(t, &[b]);
    let n = t.rows.len() as f64;
    let mut chi = 0.0;
    for (ka, &ca) in &ma {
        for (kb, &cb) in &mb {
            let e = ca as f64 * cb as f64 / n;
            let o = joint.get(&vec![ka[0], kb[0]]).copied().unwrap_or(0) as f64;
            chi += (o - e).powi(2) / e;
        }
    }
    let k = (ma.len().min(mb.len()) - 1) as f64;
    (chi / (n * k)).sqrt()
}
