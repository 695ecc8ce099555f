//! sdcMicro parity (issue 19): the figures sdcMicro users compare against, each on a small table
//! worked by hand, and on sdcMicro's `testdata` where the value is known.

use intruder_data::{Dataset, ReadOptions, read_csv, read_csv_from};
use intruder_risk::{GlobalRiskDenominator, MissingPolicy, RiskParams, assess, global_threshold};

fn load(csv: &str) -> Dataset {
    read_csv_from(csv.as_bytes(), "s.csv".as_ref(), &ReadOptions::default()).unwrap()
}

fn keys(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn testdata() -> Dataset {
    let p =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/sdcmicro/testdata.csv");
    read_csv(&p, &ReadOptions::default()).unwrap()
}

/// Six records on keys (a, b), weights w:
///
/// | class | records | f_k | F_k |
/// |---|---|---|---|
/// | (1, x) | 1, 2, 3 | 3 | 10 + 20 + 30 = 60 |
/// | (1, y) | 4 | 1 | 5 |
/// | (2, y) | 5, 6 | 2 | 8 + 2 = 10 |
const SMALL: &str = "a,b,w\n1,x,10\n1,x,20\n1,x,30\n1,y,5\n2,y,8\n2,y,2\n";

/// sdcMicro counts records with f_k < k as violating k-anonymity; Mulder's k ≤ 5 is f_k ≤ k.
#[test]
fn violating_k_anonymity_is_strict_and_k_at_most_is_not() {
    let ds = load(SMALL);
    let mut p = RiskParams::new(keys(&["a", "b"]));
    for (k, below, at_most) in [
        // k = 3: f_k < 3 are the 1 + 2 records of (1,y), (2,y); f_k ≤ 3 is all six.
        (3, 3, 6),
        // k = 2: f_k < 2 is record 4 alone; f_k ≤ 2 adds records 5, 6.
        (2, 1, 3),
        // k = 1: nobody is below 1; f_k ≤ 1 is the unique.
        (1, 0, 1),
    ] {
        p.k_anonymity = k;
        let a = assess(&ds.table, &p).unwrap();
        assert_eq!(a.summary.k_anonymity.below_k, below, "k = {k}");
        assert_eq!(a.summary.k_anonymity.at_most_k, at_most, "k = {k}");
        let j = a.summary.to_json();
        assert_eq!(j["records_fk_below_k"], below);
        assert_eq!(j["records_fk_at_most_k"], at_most);
    }
}

/// On testdata with sdcMicro's seven keys (createSdcObj's keyVars in its examples: urbrur, roof,
/// walls, water, electcon, relat, sex; none missing), 458 records violate 5-anonymity
/// (f_k < 5) and 518 have f_k ≤ 5 — the two counts issue 19 quotes.
#[test]
fn testdata_458_violate_5_anonymity_and_518_have_fk_at_most_5() {
    let ds = testdata();
    let p = RiskParams::new(keys(&[
        "urbrur", "roof", "walls", "water", "electcon", "relat", "sex",
    ]));
    let a = assess(&ds.table, &p).unwrap();
    assert_eq!(a.summary.k_anonymity.k, 5);
    assert_eq!(a.summary.k_anonymity.below_k, 458);
    assert_eq!(a.summary.k_anonymity.at_most_k, 518);
    assert_eq!(a.summary.classes.unwrap().k_le_5, 518);
}

/// Without weights each record's risk is 1/f_k, so Σ 1/f_k is the number of classes: 3 here
/// (1/3·3 + 1 + 1/2·2), global risk 3/6.
#[test]
fn unweighted_expected_reidentifications_are_the_sum_of_one_over_fk() {
    let ds = load(SMALL);
    let a = assess(&ds.table, &RiskParams::new(keys(&["a", "b"]))).unwrap();
    let w = a.summary.weights.unwrap();
    assert!(!w.weighted);
    assert!((w.expected_reidentifications - 3.0).abs() < 1e-12);
    assert!((w.global_risk - 0.5).abs() < 1e-12);
    assert_eq!(w.max_individual_risk, 1.0);
}

/// sdcMicro's measure_risk example keys on testdata (urbrur, roof, walls, water, sex; no weight):
/// expected re-identifications Σ 1/f_k = 93, the number of classes, and global risk 93/4580.
#[test]
fn testdata_unweighted_expected_reidentifications_are_93() {
    let ds = testdata();
    let p = RiskParams::new(keys(&["urbrur", "roof", "walls", "water", "sex"]));
    let a = assess(&ds.table, &p).unwrap();
    let w = a.summary.weights.unwrap();
    assert!((w.expected_reidentifications - 93.0).abs() < 1e-9);
    assert!((w.global_risk - 93.0 / 4580.0).abs() < 1e-12);
    assert_eq!(a.summary.classes.unwrap().classes, 93);
}

/// Per-record F_k (sdcMicro's `Fk`): the sum of the weights of the record's class.
#[test]
fn per_record_weighted_class_size() {
    let ds = load(SMALL);
    let mut p = RiskParams::new(keys(&["a", "b"]));
    p.weight = Some("w".into());
    let a = assess(&ds.table, &p).unwrap();
    assert_eq!(
        a.records.weighted_k.clone().unwrap(),
        vec![
            Some(60.0),
            Some(60.0),
            Some(60.0),
            Some(5.0),
            Some(10.0),
            Some(10.0)
        ]
    );
    let recs = a.records.into_records();
    assert!(recs.column("weighted_k").is_some());
    // Without weights there is no F_k column.
    let a = assess(&ds.table, &RiskParams::new(keys(&["a", "b"]))).unwrap();
    assert!(a.records.weighted_k.is_none());
    assert!(a.records.into_records().column("weighted_k").is_none());
}

/// sdcMicro's `measure_threshold` on the unweighted risks of SMALL, sorted: 1, ½, ½, ⅓, ⅓, ⅓
/// (sum 3), n = 6.
/// - max_global_risk 0.4 → ER = 2.4. Level ½: the risks from ½ down (2) + ½ × 1 record above
///   = 2.5 ≥ 2.4; level ⅓: 1 + ⅓ × 3 = 2.0 < 2.4 → threshold ⅓; 3 records exceed it.
/// - 0.6 → ER = 3.6 > 3: the file is already safe; sdcMicro gives NA.
/// - 0.3 → ER = 1.8: no level qualifies (2.5, 2.0 ≥ 1.8), the threshold stays 0 and every
///   record exceeds it.
#[test]
fn global_threshold_by_hand() {
    let r = [1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0, 1.0, 0.5, 0.5];
    assert_eq!(global_threshold(&r, 0.4, 6), Some(1.0 / 3.0));
    assert_eq!(global_threshold(&r, 0.6, 6), None);
    assert_eq!(global_threshold(&r, 0.3, 6), Some(0.0));
    let ds = load(SMALL);
    let mut p = RiskParams::new(keys(&["a", "b"]));
    for (m, t, above) in [
        (0.4, Some(1.0 / 3.0), 3),
        (0.6, None, 0),
        (0.3, Some(0.0), 6),
    ] {
        p.max_global_risk = m;
        let w = assess(&ds.table, &p).unwrap().summary.weights.unwrap();
        assert_eq!(w.global_threshold, t, "max_global_risk {m}");
        assert_eq!(w.records_above_threshold, above, "max_global_risk {m}");
    }
    p.max_global_risk = 1.0;
    assert!(assess(&ds.table, &p).is_err());
}

/// Under listwise deletion global risk divides by the complete records (counted) or, as sdcMicro,
/// by every record (all). SMALL plus a record missing b: Σ 1/f_k = 3 over 6 complete records of
/// 7 → 3/6 counted, 3/7 all.
#[test]
fn global_risk_denominator_under_listwise_deletion() {
    let ds = load(&format!("{SMALL}3,,4\n"));
    let mut p = RiskParams::new(keys(&["a", "b"]));
    assert_eq!(p.missing, MissingPolicy::Listwise);
    let w = assess(&ds.table, &p).unwrap().summary.weights.unwrap();
    assert!((w.global_risk - 0.5).abs() < 1e-15);
    p.global_risk_denominator = GlobalRiskDenominator::All;
    let w = assess(&ds.table, &p).unwrap().summary.weights.unwrap();
    assert!((w.global_risk - 3.0 / 7.0).abs() < 1e-15);
    assert!((w.expected_reidentifications - 3.0).abs() < 1e-12);
}

/// sdcMicro's `freqCalc` test case with missing keys (keys A, B, C; weights w), with `alpha`.
///
/// | rec | A B C | w | exact tuple | wildcard matches |
/// |---|---|---|---|---|
/// | 1 | 2 3 1 | 18 | {1, 8} | 1, 8 and incomplete 3 |
/// | 2 | 3 3 3 | 45.5 | {2} | 2 |
/// | 3 | 2 3 . | 39 | {3} | 3 and complete 1, 4, 8 |
/// | 4 | 2 3 2 | 17 | {4} | 4 and incomplete 3 |
/// | 5, 6 | 3 3 1 | 92, 8 | {5, 6} | 5, 6 |
/// | 7 | 1 4 . | 123.5 | {7} | 7 |
/// | 8 | 2 3 1 | 51 | {1, 8} | 1, 8 and incomplete 3 |
///
/// Complete records count incomplete matches at α; incomplete ones count complete matches at 1.
/// α = ½: f_k = 2.5, 1, 1 + 3 = 4, 1.5, 2, 2, 1, 2.5; F_k = 69 + 19.5 = 88.5, 45.5,
/// 39 + 86 = 125, 17 + 19.5 = 36.5, 100, 100, 123.5, 88.5. α = 1 gives sdcMicro's test values
/// (3 1 4 2 2 2 1 3; 108 45.5 125 56 100 100 123.5 108); α = 0 the as-value sizes for complete
/// records.
#[test]
fn freqcalc_alpha_on_sdcmicros_test_case() {
    let csv = "A,B,C,w\n2,3,1,18\n3,3,3,45.5\n2,3,NA,39\n2,3,2,17\n3,3,1,92\n3,3,1,8\n1,4,NA,123.5\n2,3,1,51\n";
    let ds = load(csv);
    let mut p = RiskParams::new(keys(&["A", "B", "C"]));
    p.missing = MissingPolicy::Wildcard;
    p.weight = Some("w".into());
    for (alpha, fk, big) in [
        (
            0.5,
            [2.5, 1.0, 4.0, 1.5, 2.0, 2.0, 1.0, 2.5],
            [88.5, 45.5, 125.0, 36.5, 100.0, 100.0, 123.5, 88.5],
        ),
        (
            1.0,
            [3.0, 1.0, 4.0, 2.0, 2.0, 2.0, 1.0, 3.0],
            [108.0, 45.5, 125.0, 56.0, 100.0, 100.0, 123.5, 108.0],
        ),
        (
            0.0,
            [2.0, 1.0, 4.0, 1.0, 2.0, 2.0, 1.0, 2.0],
            [69.0, 45.5, 125.0, 17.0, 100.0, 100.0, 123.5, 69.0],
        ),
    ] {
        p.wildcard_alpha = Some(alpha);
        let a = assess(&ds.table, &p).unwrap();
        assert_eq!(
            a.records.n_match_alpha.clone().unwrap(),
            fk,
            "alpha {alpha}"
        );
        let got: Vec<f64> = a
            .records
            .weighted_k
            .clone()
            .unwrap()
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(got, big, "alpha {alpha}");
    }
    // Record 4 at α = ½ has f_k = 1.5: sdcMicro's indivRisk has no branch for 1 < f_k < 2 and
    // leaves its risk 0; record 1 (f_k = 2.5 > 2, F_k = 88.5) gets p / (f_k − (1 − p)).
    p.wildcard_alpha = Some(0.5);
    let a = assess(&ds.table, &p).unwrap();
    let r = &a.records.individual_risk;
    assert_eq!(r[3], Some(0.0));
    let pk = 2.5 / 88.5;
    assert!((r[0].unwrap() - pk / (2.5 - (1.0 - pk))).abs() < 1e-15);
    // Violating 3-anonymity on fractional f_k: 2.5, 1, 1.5, 2, 2, 1, 2.5 are < 3 (not record 3).
    p.k_anonymity = 3;
    assert_eq!(
        assess(&ds.table, &p).unwrap().summary.k_anonymity.below_k,
        7
    );
    // alpha needs the wildcard policy.
    p.missing = MissingPolicy::AsValue;
    assert!(assess(&ds.table, &p).is_err());
}

/// A record missing every key counts the whole file (sdcMicro sets f_k = n, F_k = Σ w), and with
/// two or more keys it does not add to complete records' counts. Keys a, b:
/// (1,1) (1,1) (1,2) (.,.) → α = 1: 2, 2, 1 (the all-missing record is not counted), 4.
/// One key: 1, 1, 2, . → complete records add α per missing record: α = ½ gives 2.5, 2.5, 1.5, 4.
#[test]
fn freqcalc_alpha_records_missing_every_key() {
    let ds = load("a,b\n1,1\n1,1\n1,2\nNA,NA\n");
    let mut p = RiskParams::new(keys(&["a", "b"]));
    p.missing = MissingPolicy::Wildcard;
    p.wildcard_alpha = Some(1.0);
    let a = assess(&ds.table, &p).unwrap();
    assert_eq!(a.records.n_match_alpha.unwrap(), vec![2.0, 2.0, 1.0, 4.0]);
    // Mulder's n_match counts the all-missing record for everybody.
    assert_eq!(a.records.n_match.unwrap(), vec![3, 3, 2, 4]);
    let ds = load("a\n1\n1\n2\nNA\n");
    let mut p = RiskParams::new(keys(&["a"]));
    p.missing = MissingPolicy::Wildcard;
    p.wildcard_alpha = Some(0.5);
    let a = assess(&ds.table, &p).unwrap();
    assert_eq!(a.records.n_match_alpha.unwrap(), vec![2.5, 2.5, 1.5, 4.0]);
}

/// Household risk takes the global risk's denominator. SMALL in three households plus a record
/// missing b (household h3), without weights: r = 1/3, 1/3, 1/3, 1, 1/2, 1/2 and none for the
/// deleted record; households h1 = {1, 2}: 1 − (2/3)² = 5/9, h2 = {3, 4}: 1 − (2/3)·0 = 1,
/// h3 = {5, 6, 7}: 1 − (1/2)² = 3/4. All (sdcMicro): (2·5/9 + 2·1 + 3·3/4) / 7 = 193/252;
/// counted: the six complete records, (2·5/9 + 2 + 2·3/4) / 6 = 83/108.
#[test]
fn household_risk_denominator_under_listwise_deletion() {
    let ds =
        load("a,b,w,g\n1,x,10,h1\n1,x,20,h1\n1,x,30,h2\n1,y,5,h2\n2,y,8,h3\n2,y,2,h3\n3,,4,h3\n");
    let mut p = RiskParams::new(keys(&["a", "b"]));
    p.group = Some("g".into());
    let h = assess(&ds.table, &p).unwrap().summary.household.unwrap();
    assert!((h.expected_reidentifications - 83.0 / 18.0).abs() < 1e-12);
    assert!((h.global_risk - 83.0 / 108.0).abs() < 1e-15);
    p.global_risk_denominator = GlobalRiskDenominator::All;
    let h = assess(&ds.table, &p).unwrap().summary.household.unwrap();
    assert!((h.expected_reidentifications - 193.0 / 36.0).abs() < 1e-12);
    assert!((h.global_risk - 193.0 / 252.0).abs() < 1e-15);
    assert_eq!(h.households, 3);
}

/// Weights below 1 and a weight total far (> 10 %) from the population size given are warned
/// about, naming the numbers; the figures are still computed.
#[test]
fn weight_warnings_below_one_and_total_against_population_size() {
    let ds = load(SMALL);
    let mut p = RiskParams::new(keys(&["a", "b"]));
    p.weight = Some("w".into());
    assert!(assess(&ds.table, &p).unwrap().warnings.is_empty());
    // Σw = 75: N = 80 is 6.25 % off (no warning), N = 100 is 25 % off.
    p.population_size = Some(80.0);
    assert!(assess(&ds.table, &p).unwrap().warnings.is_empty());
    p.population_size = Some(100.0);
    let w = assess(&ds.table, &p).unwrap().warnings;
    assert_eq!(w.len(), 1, "{w:?}");
    for want in [
        "'w'",
        "sum to 75",
        "population size given is 100",
        "-25.0%",
        "10%",
    ] {
        assert!(w[0].contains(want), "{want:?} in {}", w[0]);
    }
    let low = load("a,b,w\n1,x,0.5\n1,x,2\n2,y,0.25\n");
    p.population_size = None;
    let a = assess(&low.table, &p).unwrap();
    assert_eq!(a.warnings.len(), 1, "{:?}", a.warnings);
    for want in [
        "'w'",
        "2 of 3 weights are below 1",
        "record 1: 0.5",
        "smallest 0.25",
    ] {
        assert!(
            a.warnings[0].contains(want),
            "{want:?} in {}",
            a.warnings[0]
        );
    }
    assert!(a.summary.weights.is_some());
}
