//! Mulder's θ: the population size N his own YoB row implies (paper.md §2), the N the
//! experiment files use, and θ through `intruder-risk` at that N within 5% of his printed
//! values.

use intruder_data::{Column, Role, Table};
use intruder_risk::{MissingPolicy, RiskParams, assess};

#[path = "../examples/paper/mulder_n.rs"]
mod mulder_n;

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `population_size` of the `[[risk]]` entries of an experiment file.
fn population_sizes(name: &str) -> Vec<f64> {
    let text = std::fs::read_to_string(root().join(format!("experiments/{name}.toml"))).unwrap();
    let t: toml::Table = text.parse().unwrap();
    t["risk"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| match &r["population_size"] {
            toml::Value::Integer(i) => *i as f64,
            toml::Value::Float(f) => *f,
            other => panic!("{name}: population_size {other}"),
        })
        .collect()
}

/// A file of 10,997 birth years with the YoB row's small classes (3 uniques, one pair, one
/// triple) and the other 10,989 records in classes of 183 or 184.
fn yob_file() -> Table {
    let mut years: Vec<Option<String>> = Vec::new();
    for (year, size) in [(1920, 1), (1921, 1), (1922, 1), (1923, 2), (1924, 3)] {
        years.extend((0..size).map(|_| Some(year.to_string())));
    }
    let rest = 10_997 - years.len();
    years.extend((0..rest).map(|i| Some((1930 + i % 60).to_string())));
    Table::new(
        "yob.csv",
        vec![Column::string("year_of_birth", Role::Key, &years)],
    )
    .unwrap()
}

#[test]
fn n_from_mulders_yob_row() {
    // Two classes of 2-5 records hold the 5 records beyond the 3 uniques: only 2 + 3.
    assert_eq!(mulder_n::small_classes(&mulder_n::YOB), vec![vec![2, 3]]);
    let d = mulder_n::derive().expect("one class structure");
    assert_eq!((d.n2_listwise, d.n2_n_match), (1.0, 2.0));
    // θ = 0.0010 ± 0.00005 with n₁ = 3, n₂ = 1; θ = 0.0005 ± 0.00005 with n₂ = 2.
    let close = |a: f64, b: f64| (a - b).abs() < 0.01;
    assert!(close(d.listwise.0, 15_704_501.5), "{}", d.listwise.0);
    assert!(close(d.listwise.1, 17_358_185.710526), "{}", d.listwise.1);
    assert!(close(d.n_match.0, 14_998_658.340909), "{}", d.n_match.0);
    assert!(close(d.n_match.1, 18_331_082.583333), "{}", d.n_match.1);
    assert_eq!(d.both, d.listwise);
    // The N every θ of the Mulder experiments uses lies inside.
    let mut used = Vec::new();
    for name in ["mulder-liss", "mulder-liss-skips", "mulder-liss-languages"] {
        used.extend(population_sizes(name));
    }
    assert!(used.len() > 100);
    assert!(used.iter().all(|&n| n == 16_500_000.0), "{used:?}");
    let big_n = used[0];
    assert!(d.both.0 <= big_n && big_n <= d.both.1);

    // θ through the toolkit on a file with that structure: listwise (n₂ = pairs) and from
    // n_match (n₂ = records with n_match = 2), within 5% of Mulder's 0.0010 and 0.0005.
    let t = yob_file();
    let keys = vec!["year_of_birth".to_string()];
    let theta_of = |missing: MissingPolicy, n: f64| -> f64 {
        let mut p = RiskParams::new(keys.clone());
        p.missing = missing;
        p.population_size = Some(n);
        let s = assess(&t, &p).unwrap().summary;
        match missing {
            MissingPolicy::Wildcard => {
                let w = s.wildcard.unwrap();
                assert_eq!((w.n_match_1, w.n_match_2, w.n_match_le_5), (3, 2, 8));
                w.theta.unwrap()
            }
            _ => {
                let c = s.classes.unwrap();
                assert_eq!((c.sample_uniques, c.pairs, c.classes_k_le_5), (3, 1, 5));
                c.theta.unwrap()
            }
        }
    };
    let listwise = theta_of(MissingPolicy::Listwise, big_n);
    let n_match = theta_of(MissingPolicy::Wildcard, big_n);
    assert!((listwise - mulder_n::theta(3.0, 1.0, big_n)).abs() < 1e-15);
    assert!((n_match - mulder_n::theta(3.0, 2.0, big_n)).abs() < 1e-15);
    assert!((listwise / 0.0010 - 1.0).abs() < 0.05, "{listwise}");
    assert!((n_match / 0.0005 - 1.0).abs() < 0.05, "{n_match}");
    // The N used before (13,000,000) misses both by more than 25%.
    assert!(theta_of(MissingPolicy::Listwise, 13_000_000.0) / 0.0010 > 1.25);
    assert!(theta_of(MissingPolicy::Wildcard, 13_000_000.0) / 0.0005 > 1.25);
}
