//! `household-panel`: sizes and the exact-matching counts of split households (Mitra §3.1).

use crate::common;

use common::{figure, generate};
use intruder_synth::figures::{Table, household_panel};

#[test]
fn split_counts_and_matching_counts_are_of_the_published_order() {
    // Full default size (30,587 households: fast). The c_i counts vary by seed (over seeds
    // 1-3: scenario 1 c_i=1 61-70, c_i<=2 107-156; scenario 2 552-583 and 805-865), so the
    // tolerance is roughly +-50% for scenario 1 and +-15% for scenario 2.
    let (dir, _) = generate("household-panel", 4, &[]);
    let f = household_panel(dir.path()).expect("figures");
    assert_eq!(figure(&f, "wave-1 households"), 30587.0);
    assert_eq!(figure(&f, "wave-2 households"), 20165.0);
    assert_eq!(figure(&f, "split households"), 1486.0);
    let within = |name: &str, lo: f64, hi: f64| {
        let v = figure(&f, name);
        assert!(v >= lo && v <= hi, "{name}: {v} not in [{lo}, {hi}]");
    };
    within("scenario 1: c_i = 1", 28.0, 95.0);
    within("scenario 1: c_i <= 2", 70.0, 180.0);
    within("scenario 2: c_i = 1", 480.0, 650.0);
    within("scenario 2: c_i <= 2", 740.0, 1000.0);
    within("correct household among matches", 1240.0, 1320.0);
}

#[test]
fn wealth_is_strongly_correlated_across_waves_and_links_can_be_withheld() {
    let (dir, _) = generate("household-panel", 2, &["n=4000", "links=false"]);
    let w1 = Table::read(&dir.path().join("household-wave1.csv")).expect("w1");
    let w2 = Table::read(&dir.path().join("household-wave2.csv")).expect("w2");
    assert!(!w1.header.iter().any(|h| h == "link_id"));
    assert!(!w2.header.iter().any(|h| h == "link_id"));
    let wealth1: std::collections::HashMap<&str, f64> = w1
        .column("household_id")
        .into_iter()
        .zip(w1.column("total_wealth"))
        .map(|(id, v)| (id, v.parse::<f64>().expect("wealth")))
        .collect();
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for ((id, v), s) in w2
        .column("household_id")
        .into_iter()
        .zip(w2.column("total_wealth"))
        .zip(w2.column("split"))
    {
        if s == "0" {
            xs.push(wealth1[id].max(1.0).ln());
            ys.push(v.parse::<f64>().expect("wealth").max(1.0).ln());
        }
    }
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let cov: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let vx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    let vy: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
    let corr = cov / (vx * vy).sqrt();
    assert!(corr > 0.95, "log-wealth correlation {corr}");
}

#[test]
fn moved_below_the_followed_up_twice_share_is_an_error() {
    let g = intruder_synth::parse(
        "household-panel",
        None,
        &["n=100", "retention=1", "split=0.5"],
    )
    .expect("values in range");
    let dir = tempfile::tempdir().expect("tempdir");
    // 100 wave-2 households with 50 split: 6 pairs -> needs 94 wave-1 households: fine;
    // with nonunique=1 there are 25 pairs and moved must cover them.
    assert!(g.generate(1, dir.path()).is_ok());
    let g = intruder_synth::parse(
        "household-panel",
        None,
        &["n=100", "nonunique=1", "moved=0.1", "split=0.5"],
    )
    .expect("values in range");
    let err = g
        .generate(1, dir.path().join("x").as_path())
        .expect_err("moved too small");
    assert!(err.to_string().contains("moved"), "{err}");
}

/// Log wave-2/wave-1 wealth of the households that did not split (wealth above 1,000, so the
/// rounding to whole pounds is negligible).
fn stayer_log_changes(dir: &std::path::Path) -> Vec<f64> {
    let w1 = Table::read(&dir.join("household-wave1.csv")).expect("w1");
    let w2 = Table::read(&dir.join("household-wave2.csv")).expect("w2");
    let wealth1: std::collections::HashMap<&str, f64> = w1
        .column("household_id")
        .into_iter()
        .zip(w1.column("total_wealth"))
        .map(|(id, v)| (id, v.parse::<f64>().expect("wealth")))
        .collect();
    w2.column("household_id")
        .into_iter()
        .zip(w2.column("total_wealth"))
        .zip(w2.column("split"))
        .filter(|((id, v), s)| *s == "0" && wealth1[id] > 1000.0 && *v != "0")
        .map(|((id, v), _)| (v.parse::<f64>().expect("wealth") / wealth1[id]).ln())
        .collect()
}

#[test]
fn the_wealth_change_between_waves_is_a_parameter() {
    // Without change every household that did not split gains exactly 3% (e^0.03).
    let (dir, _) = generate("household-panel", 5, &["n=3000", "wealth_change=0"]);
    let d = stayer_log_changes(dir.path());
    assert!(d.len() > 1000, "{}", d.len());
    for x in &d {
        assert!((x - 0.03).abs() < 2e-3, "{x}");
    }
    // With s.d. 0.6 the log changes have about that spread (s.e. of the s.d. about 0.01).
    let (dir, _) = generate("household-panel", 5, &["n=3000", "wealth_change=0.6"]);
    let d = stayer_log_changes(dir.path());
    let m = d.iter().sum::<f64>() / d.len() as f64;
    let sd = (d.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (d.len() - 1) as f64).sqrt();
    assert!((sd - 0.6).abs() < 0.05, "s.d. {sd}");
    assert!((m - 0.03).abs() < 0.05, "mean {m}");
    // The defaults written out give the same files as the defaults.
    let (a, _) = generate("household-panel", 5, &["n=3000"]);
    let (b, _) = generate(
        "household-panel",
        5,
        &["n=3000", "wealth_change=0.15", "split_wealth_change=0.35"],
    );
    assert_eq!(common::contents(a.path()), common::contents(b.path()));
}
