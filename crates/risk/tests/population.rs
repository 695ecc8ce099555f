//! Population-uniqueness estimators on small hand-computed cases, the decision rule, the
//! log-linear τ, and the errors (a sampling fraction outside (0, 1] among them).

use intruder_data::{ReadOptions, Table, read_csv_from};
use intruder_risk::population::{
    LogLinearModel, Pitman, SampleFrequencies, Snb, UniquenessEstimator, Zayatz, dankar_rule,
    estimate_with, ipf_two_way, ln_gamma,
};
use intruder_risk::{PopulationParams, population_uniqueness};

fn table(csv: &str) -> Table {
    read_csv_from(csv.as_bytes(), "s.csv".as_ref(), &ReadOptions::default())
        .unwrap()
        .table
}

fn close(a: f64, b: f64, tol: f64) {
    assert!((a - b).abs() <= tol * (1.0 + b.abs()), "{a} vs {b}");
}

#[test]
fn zayatz_by_hand() {
    // Classes of sizes 1, 1, 2, 3: n = 7, n₁ = 2; π = 1/2 so N = 14.
    // h(j) = j·C(N−j, n−1)/C(N, n): h(1) = 1716/3432, h(2) = 2·924/3432, h(3) = 3·462/3432, so
    // h(2)/h(1) = 14/13 and h(3)/h(1) = 21/26. P = 2 / (2 + 14/13 + 21/26) = 52/101 and
    // Û = n₁·P/π = 208/101.
    let s = SampleFrequencies::new(&[1, 1, 2, 3], 0.5).unwrap();
    assert_eq!(s.n, 7.0);
    assert_eq!(s.big_n, 14.0);
    close(Zayatz::h_ratio(2, 7.0, 14.0), 14.0 / 13.0, 1e-14);
    close(Zayatz::h_ratio(3, 7.0, 14.0), 21.0 / 26.0, 1e-14);
    let e = Zayatz.estimate(&s);
    close(e.population_uniques.unwrap(), 208.0 / 101.0, 1e-14);
}

#[test]
fn pitman_solves_its_likelihood_equations() {
    // 30 uniques, 4 pairs, 2 triples, one class of 5: n = 49, u = 37; π = 0.01, N = 4,900.
    let mut sizes = vec![1u32; 30];
    sizes.extend([2, 2, 2, 2, 3, 3, 5]);
    let s = SampleFrequencies::new(&sizes, 0.01).unwrap();
    let e = Pitman.estimate(&s);
    let theta = e.parameters.iter().find(|p| p.0 == "theta").unwrap().1;
    let alpha = e.parameters.iter().find(|p| p.0 == "alpha").unwrap().1;
    // The two equations of Hoshino (2001), as direct sums written out here.
    let mut g1 = 0.0;
    let mut g2 = 0.0;
    for i in 1..37 {
        g1 += 1.0 / (theta + i as f64 * alpha);
        g2 += i as f64 / (theta + i as f64 * alpha);
    }
    for i in 1..49 {
        g1 -= 1.0 / (theta + i as f64);
    }
    // Σ_j n_j Σ_{l<j} 1/(l − α): pairs 4·(1/(1−α)), triples 2·(1/(1−α) + 1/(2−α)), the 5: l = 1..4.
    let inner = |j: u32| (1..j).map(|l| 1.0 / (l as f64 - alpha)).sum::<f64>();
    g2 -= 4.0 * inner(2) + 2.0 * inner(3) + inner(5);
    assert!(g1.abs() < 1e-9 && g2.abs() < 1e-9, "{g1} {g2}");
    assert!(alpha > 0.0 && alpha < 1.0 && theta > -alpha);
    // Û = Γ(θ+1)/Γ(θ+α)·N^α.
    let want = (ln_gamma(theta + 1.0) - ln_gamma(theta + alpha)).exp() * 4900f64.powf(alpha);
    close(e.population_uniques.unwrap(), want, 1e-12);
}

#[test]
fn pitman_with_a_light_tail_has_a_negative_alpha() {
    // 10 uniques among 17 classes of 29 records: the likelihood peaks at α < 0 (finitely many
    // classes); the equations still hold there.
    let mut sizes = vec![1u32; 10];
    sizes.extend([2, 2, 2, 2, 3, 3, 5]);
    let s = SampleFrequencies::new(&sizes, 0.01).unwrap();
    let e = estimate_with(&Pitman, &s);
    let theta = e.parameters.iter().find(|p| p.0 == "theta").unwrap().1;
    let alpha = e.parameters.iter().find(|p| p.0 == "alpha").unwrap().1;
    assert!(alpha < 0.0, "{alpha}");
    let (g1, g2) = Pitman::score_equations(&s, theta, alpha);
    assert!(g1.abs() < 1e-9 && g2.abs() < 1e-9, "{g1} {g2}");
    let want = (ln_gamma(theta + 1.0) - ln_gamma(theta + alpha)).exp() * 2900f64.powf(alpha);
    close(e.population_uniques.unwrap(), want, 1e-12);
}

#[test]
fn snb_moments_by_hand_and_by_direct_sums() {
    // α = 1 (geometric), β = 1/2, π = 1/2, K = 100: P(F = k) = 2^−k, so
    // E n₁ = K Σ_F F·(1/4)^F = K·(1/4)/(3/4)² = 400/9 and E n₂ = K·x²/(1−x)³ with x = 1/4 = 400/27.
    let (e1, e2) = Snb::expected(100.0, 0.5, 1.0, 0.5);
    close(e1, 400.0 / 9.0, 1e-14);
    close(e2, 400.0 / 27.0, 1e-14);
    // Another point against the sums over F = 1 + NB(α, β) thinned by π.
    let (k, pi, a, b): (f64, f64, f64, f64) = (50.0, 0.2, 2.5, 0.3);
    let (mut s1, mut s2) = (0.0, 0.0);
    for m in 0..2000u32 {
        let lp = ln_gamma(m as f64 + a) - ln_gamma(a) - ln_gamma(m as f64 + 1.0)
            + a * b.ln()
            + m as f64 * (1.0 - b).ln();
        let f = (m + 1) as f64;
        s1 += lp.exp() * f * pi * (1.0 - pi).powf(f - 1.0);
        s2 += lp.exp() * f * (f - 1.0) / 2.0 * pi * pi * (1.0 - pi).powf(f - 2.0);
    }
    let (e1, e2) = Snb::expected(k, pi, a, b);
    close(e1, k * s1, 1e-10);
    close(e2, k * s2, 1e-10);
    // The solver recovers the parameters from the moments.
    let (fa, fb) = Snb::fit(100.0, 0.5, 400.0 / 9.0, 400.0 / 27.0).unwrap();
    close(fa, 1.0, 1e-8);
    close(fb, 0.5, 1e-8);
}

#[test]
fn shlosser_by_hand() {
    // Sizes 1, 1, 2, 3 at π = 1/2: Σ(1−π)^j n_j = 1/2·2 + 1/4 + 1/8 = 1.375;
    // Σ jπ(1−π)^{j−1} n_j = 1 + 0.5 + 0.375 = 1.875; K̂ = 4 + 2·1.375/1.875 = 82/15.
    let s = SampleFrequencies::new(&[1, 1, 2, 3], 0.5).unwrap();
    close(Snb::shlosser(&s), 82.0 / 15.0, 1e-14);
}

#[test]
fn dankar_rule_as_arx() {
    assert_eq!(
        dankar_rule(0.05, Some(4.0), Some(3.0), Some(5.0)),
        Some(("pitman", 3.0))
    );
    assert_eq!(
        dankar_rule(0.1, Some(4.0), None, Some(5.0)),
        Some(("zayatz", 4.0))
    );
    assert_eq!(
        dankar_rule(0.3, Some(4.0), Some(1.0), Some(5.0)),
        Some(("zayatz", 4.0))
    );
    assert_eq!(
        dankar_rule(0.3, Some(4.0), Some(1.0), Some(3.0)),
        Some(("snb", 3.0))
    );
    assert_eq!(
        dankar_rule(0.3, Some(4.0), Some(1.0), None),
        Some(("zayatz", 4.0))
    );
    assert_eq!(dankar_rule(0.3, None, None, None), None);
}

#[test]
fn a_census_gives_the_sample_uniques_exactly() {
    let s = SampleFrequencies::new(&[1, 1, 1, 2, 4], 1.0).unwrap();
    for e in intruder_risk::population::ESTIMATORS {
        assert_eq!(
            estimate_with(*e, &s).population_uniques,
            Some(3.0),
            "{}",
            e.name()
        );
    }
}

const SMALL: &str = "a,b\n1,x\n1,x\n1,y\n2,y\n";

#[test]
fn log_linear_main_effects_by_hand() {
    // Margins a: 1→3, 2→1; b: x→2, y→2; n = 4. Sample uniques (1,y) and (2,y):
    // μ = 4·(3/4)(2/4) = 1.5 and 4·(1/4)(2/4) = 0.5; π = 4/8, λ = μ/π = 3 and 1,
    // v = (1−π)λ = 1.5 and 0.5. τ₁ = e^−1.5 + e^−0.5, τ₂ = (1−e^−1.5)/1.5 + (1−e^−0.5)/0.5.
    // sdcMicro: v = (1−π)μ = 0.75 and 0.25, over 3 non-empty cells.
    let t = table(SMALL);
    let mut p = PopulationParams::new(vec!["a".into(), "b".into()]);
    p.population_size = Some(8.0);
    let r = population_uniqueness(&t, &p).unwrap();
    let l = &r.log_linear;
    close(l.tau1, (-1.5f64).exp() + (-0.5f64).exp(), 1e-14);
    close(
        l.tau2,
        (1.0 - (-1.5f64).exp()) / 1.5 + (1.0 - (-0.5f64).exp()) / 0.5,
        1e-14,
    );
    close(
        l.sdcmicro_gr1,
        ((-0.75f64).exp() + (-0.25f64).exp()) / 3.0,
        1e-14,
    );
    assert_eq!(r.pr_unique_loglinear[0], Some(0.0));
    close(r.pr_unique_loglinear[2].unwrap(), (-1.5f64).exp(), 1e-14);
    close(r.pr_unique_loglinear[3].unwrap(), (-0.5f64).exp(), 1e-14);
    assert_eq!(r.k, vec![Some(2), Some(2), Some(1), Some(1)]);
    assert_eq!(r.frequencies.pi, 0.5);
}

#[test]
fn two_way_model_is_saturated_with_two_keys() {
    // With two keys the two-way model reproduces the table: μ = f = 1 for both uniques.
    let t = table(SMALL);
    let mut p = PopulationParams::new(vec!["a".into(), "b".into()]);
    p.population_size = Some(8.0);
    p.log_linear = LogLinearModel::TwoWay;
    let r = population_uniqueness(&t, &p).unwrap();
    close(r.log_linear.tau1, 2.0 * (-1.0f64).exp(), 1e-9);
}

#[test]
fn ipf_matches_every_two_way_margin() {
    // A 2×3×2 table (first key fastest): the fitted table has the observed two-way margins.
    let card = [2usize, 3, 2];
    let obs: Vec<f64> = (0..12).map(|i| ((i * 7 + 3) % 5) as f64).collect();
    let fit = ipf_two_way(&obs, &card);
    let coord = |c: usize| [c % 2, (c / 2) % 3, c / 6];
    for (a, b) in [(0usize, 1usize), (0, 2), (1, 2)] {
        let mut mo = [0.0; 6];
        let mut mf = [0.0; 6];
        for c in 0..12 {
            let x = coord(c);
            let idx = x[a] + card[a] * x[b];
            mo[idx] += obs[c];
            mf[idx] += fit[c];
        }
        for (o, f) in mo.iter().zip(&mf) {
            assert!((o - f).abs() < 1e-7, "margin ({a},{b}): {o} vs {f}");
        }
    }
}

#[test]
fn sampling_fraction_outside_zero_one_is_an_error() {
    let t = table(SMALL);
    for bad in [0.0, -0.1, 1.5, f64::NAN] {
        let mut p = PopulationParams::new(vec!["a".into(), "b".into()]);
        p.sampling_fraction = Some(bad);
        let e = population_uniqueness(&t, &p).unwrap_err().to_string();
        assert!(e.contains("(0, 1]"), "{e}");
        assert!(SampleFrequencies::new(&[1, 2], bad).is_err());
    }
    let mut p = PopulationParams::new(vec!["a".into(), "b".into()]);
    p.population_size = Some(2.0);
    let e = population_uniqueness(&t, &p).unwrap_err().to_string();
    assert!(e.contains("smaller than the file's 4 records"), "{e}");
    let p = PopulationParams::new(vec!["a".into(), "b".into()]);
    let e = population_uniqueness(&t, &p).unwrap_err().to_string();
    assert!(
        e.contains("--population-size") && e.contains("--weight"),
        "{e}"
    );
}

#[test]
fn weights_give_the_sampling_fraction_and_bad_weights_are_named() {
    let t = table("a,w\n1,2\n2,2\n2,4\n");
    let mut p = PopulationParams::new(vec!["a".into()]);
    p.weight = Some("w".into());
    let r = population_uniqueness(&t, &p).unwrap();
    assert_eq!(r.frequencies.pi, 3.0 / 8.0);
    let t = table("a,w\n1,2\n2,x\n");
    let e = population_uniqueness(&t, &p).unwrap_err().to_string();
    assert!(e.contains("'w'") && e.contains("record 2"), "{e}");
}
