//! t-closeness: Li, Li & Venkatasubramanian's worked example (2007, §4: the salary table),
//! hand-computed categorical cases, the exact-integer EMDs against the definition on random
//! tables, the invariants, the registry and the errors.

use intruder_data::params::ReadContext;
use intruder_data::{Column, ReadOptions, Role, Table, read_csv_from};
use intruder_risk::closeness::{emd_equal, emd_ordered};
use intruder_risk::{
    GroundDistance, MissingPolicy, RiskError, TClosenessParams, configure, t_closeness,
};
use proptest::prelude::*;

fn table(csv: &str) -> Table {
    read_csv_from(csv.as_bytes(), "t.csv".as_ref(), &ReadOptions::default())
        .unwrap()
        .table
}

fn keys(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

/// Li et al. (2007), the 3-diverse version of their salary/disease table: records 1–3 (ZIP
/// 476**, age 2*), 4–6 (4790*, ≥ 40), 7–9 (476**, 3*); salary in thousands.
const LI_3_DIVERSE: &str = "zip,age,salary,disease
476**,2*,3,gastric ulcer
476**,2*,4,gastritis
476**,2*,5,stomach cancer
4790*,>=40,6,gastritis
4790*,>=40,11,flu
4790*,>=40,8,bronchitis
476**,3*,7,bronchitis
476**,3*,9,pneumonia
476**,3*,10,stomach cancer
";

/// Their table with 0.167-closeness with respect to salary: classes {3k, 5k, 9k},
/// {6k, 11k, 8k}, {4k, 7k, 10k}.
const LI_CLOSE: &str = "zip,age,salary,disease
4767*,<=40,3,gastric ulcer
4767*,<=40,5,stomach cancer
4767*,<=40,9,pneumonia
4790*,>=40,6,gastritis
4790*,>=40,11,flu
4790*,>=40,8,bronchitis
4760*,<=40,4,gastritis
4760*,<=40,7,bronchitis
4760*,<=40,10,stomach cancer
";

fn per_record(csv: &str, p: &TClosenessParams) -> Vec<Option<f64>> {
    let t = table(csv);
    let tc = t_closeness(&t, p).unwrap();
    (0..t.nrows()).map(|i| tc.record_emd(i)).collect()
}

#[test]
fn li_et_al_salary_example() {
    // The file's salaries 3k…11k once each: q = 1/9 on each of m = 9 ordered values.
    // {3k,4k,5k}: p − q = (2,2,2,−1,−1,−1,−1,−1,−1)/9, cumulative (2,4,6,5,4,3,2,1,0)/9,
    //   Σ = 27/9 = 3, EMD = 3/8 = 0.375 (the paper's figure).
    // {6k,8k,11k}: p − q = (−1,−1,−1,2,−1,2,−1,−1,2)/9, cumulative (−1,−2,−3,−1,−2,0,−1,−2,0)/9,
    //   Σ|·| = 12/9, EMD = 12/72 = 1/6 ≈ 0.167 (the paper's figure).
    // {7k,9k,10k}: cumulative (−1,−2,−3,−4,−2,−3,−1,1,0)/9, Σ|·| = 17/9, EMD = 17/72.
    let p = TClosenessParams::new(keys(&["zip", "age"]), "salary");
    let e = per_record(LI_3_DIVERSE, &p);
    let (a, b, c) = (Some(0.375), Some(1.0 / 6.0), Some(17.0 / 72.0));
    assert_eq!(e, vec![a, a, a, b, b, b, c, c, c]);
    let tc = t_closeness(&table(LI_3_DIVERSE), &p).unwrap();
    assert_eq!(
        tc.distance,
        GroundDistance::Ordered,
        "auto: salary is numeric"
    );
    assert_eq!(tc.t_max(), Some(0.375));
    assert_eq!(tc.values, 9);
    assert_eq!(tc.n_sensitive, 9);
    // The paper's 0.167-close table: {3k,5k,9k}: cumulative (2,1,3,2,1,0,2,1,0)/9 → 12/72;
    // {6k,8k,11k}: 12/72; {4k,7k,10k}: cumulative (−1,1,0,−1,1,0,−1,1,0)/9 → 6/72.
    let e = per_record(LI_CLOSE, &p);
    let (a, c) = (Some(1.0 / 6.0), Some(1.0 / 12.0));
    assert_eq!(e, vec![a, a, a, a, a, a, c, c, c]);
    let mut p = p;
    p.t = Some(0.167);
    let tc = t_closeness(&table(LI_CLOSE), &p).unwrap();
    assert_eq!(tc.t_max(), Some(1.0 / 6.0));
    assert_eq!(
        tc.classes_above_t(),
        Some(0),
        "0.167-close, as the paper says"
    );
    p.t = Some(0.2);
    let tc = t_closeness(&table(LI_3_DIVERSE), &p).unwrap();
    assert_eq!(tc.classes_above_t(), Some(2));
    assert_eq!(tc.records_above_t(), Some(6));
}

#[test]
fn li_et_al_disease_with_the_equal_distance() {
    // File: gastric ulcer 1, gastritis 2, stomach cancer 2, flu 1, bronchitis 2, pneumonia 1.
    // 3-diverse table, {gastric ulcer, gastritis, stomach cancer}: |p − q| = 2/9 (ulcer),
    // 1/9 (gastritis), 1/9 (cancer), 1/9 (flu), 2/9 (bronchitis), 1/9 (pneumonia): ½·8/9 = 4/9;
    // the other two classes likewise 4/9.
    // 0.167-close table, {gastric ulcer, stomach cancer, pneumonia}: 2/9 + 1/9 + 2/9 + 2/9
    // (gastritis) + 1/9 (flu) + 2/9 (bronchitis) = 10/9 → 5/9; {gastritis, flu, bronchitis}:
    // 4/9; {gastritis, bronchitis, stomach cancer}: six times 1/9 → 1/3. (The paper's 0.278
    // for this table uses its disease hierarchy, which is not offered.)
    let p = TClosenessParams::new(keys(&["zip", "age"]), "disease");
    let e = per_record(LI_3_DIVERSE, &p);
    assert!(e.iter().all(|x| *x == Some(4.0 / 9.0)), "{e:?}");
    let e = per_record(LI_CLOSE, &p);
    let (a, b, c) = (Some(5.0 / 9.0), Some(4.0 / 9.0), Some(1.0 / 3.0));
    assert_eq!(e, vec![a, a, a, b, b, b, c, c, c]);
    let tc = t_closeness(&table(LI_CLOSE), &p).unwrap();
    assert_eq!(tc.distance, GroundDistance::Equal);
    assert_eq!(tc.values, 6);
}

/// Classes A {x, x}, B {x, y, y, z}, C {z, NA}, D {NA}; one record missing its key.
const SMALL: &str = "g,s\nA,x\nA,x\nB,x\nB,y\nB,y\nB,z\nC,z\nC,\nD,\n,x\n";

#[test]
fn categorical_by_hand_with_missing_values() {
    // Listwise: the last record goes. Observed sensitive values N = 7: x 3, y 2, z 2;
    // q = (3, 2, 2)/7. Equal distance:
    // A: p = (1, 0, 0): (4 + 2 + 2)/7 / 2 = 4/7;
    // B: p = (1, 2, 1)/4: |7 − 12| + |14 − 8| + |7 − 8| = 12 over 28, / 2 = 3/14;
    // C: p = (0, 0, 1) (its NA left out): (3 + 2 + 5)/7 / 2 = 5/7; D: no observed value.
    let mut p = TClosenessParams::new(keys(&["g"]), "s");
    p.t = Some(0.5);
    let t = table(SMALL);
    let tc = t_closeness(&t, &p).unwrap();
    let e: Vec<Option<f64>> = (0..t.nrows()).map(|i| tc.record_emd(i)).collect();
    let (a, b, c) = (Some(4.0 / 7.0), Some(3.0 / 14.0), Some(5.0 / 7.0));
    assert_eq!(e, vec![a, a, b, b, b, b, c, c, None, None]);
    assert_eq!(tc.n_deleted, 1);
    assert_eq!(tc.n_sensitive, 7);
    assert_eq!(tc.t_max(), Some(5.0 / 7.0));
    assert_eq!(tc.classes_above_t(), Some(2), "A and C");
    assert_eq!(tc.records_above_t(), Some(4));
    let report = tc.report();
    let fig = |n: &str| report.figure(n).unwrap().value.clone();
    assert_eq!(fig("classes_without_sensitive"), 1);
    assert_eq!(fig("classes"), 4);
    assert_eq!(fig("distance"), "equal");
    // Ordered by the level order x < y < z: cumulative q = (3, 5, 7)/7, m = 3.
    // A: cumulative p = (1, 1, 1): (4 + 2)/7 / 2 = 3/7; B: (1, 3, 4)/4: |7 − 12| + |21 − 20|
    // = 6 over 28, / 2 = 3/28; C: (0, 0, 1): (3 + 5)/7 / 2 = 4/7.
    p.distance = GroundDistance::Ordered;
    let tc = t_closeness(&t, &p).unwrap();
    let e: Vec<Option<f64>> = (0..t.nrows()).map(|i| tc.record_emd(i)).collect();
    let (a, b, c) = (Some(3.0 / 7.0), Some(3.0 / 28.0), Some(4.0 / 7.0));
    assert_eq!(e, vec![a, a, b, b, b, b, c, c, None, None]);
    // As-value: the record missing its key forms class NA {x}; N = 8, q = (4, 2, 2)/8.
    // NA: p = (1, 0, 0): (4 + 2 + 2)/8 / 2 = 1/2.
    p.distance = GroundDistance::Equal;
    p.missing = MissingPolicy::AsValue;
    let tc = t_closeness(&t, &p).unwrap();
    assert_eq!(tc.n_sensitive, 8);
    assert_eq!(tc.record_emd(9), Some(0.5));
    // Per record: k, emd, above_t.
    let r = tc.records().unwrap();
    let names: Vec<&str> = r.columns().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, vec!["k", "emd", "above_t"]);
}

#[test]
fn errors_are_clear() {
    let t = table(SMALL);
    let mut p = TClosenessParams::new(keys(&["g"]), "s");
    p.missing = MissingPolicy::Wildcard;
    assert!(matches!(t_closeness(&t, &p), Err(RiskError::Param(m)) if m.contains("wildcard")));
    let mut p = TClosenessParams::new(keys(&["g"]), "s");
    p.t = Some(1.5);
    assert!(
        t_closeness(&t, &p)
            .unwrap_err()
            .to_string()
            .contains("[0, 1]")
    );
    let p = TClosenessParams::new(keys(&["g"]), "nope");
    assert!(
        t_closeness(&t, &p)
            .unwrap_err()
            .to_string()
            .contains("nope")
    );
    // Free text has no order: the ordered distance names the column and the way out.
    let t = Table::new(
        "t",
        vec![
            Column::categorical("g", Role::Key, &[Some("A"), Some("B")], None).unwrap(),
            Column::string("note", Role::Sensitive, &[Some("x"), Some("y")]),
        ],
    )
    .unwrap();
    let mut p = TClosenessParams::new(keys(&["g"]), "note");
    p.distance = GroundDistance::Ordered;
    let err = t_closeness(&t, &p).unwrap_err().to_string();
    assert!(
        err.contains("note") && err.contains("no order") && err.contains("equal"),
        "{err}"
    );
    // Equal distance on the same text column works: each class is a point mass on one of two
    // equally frequent values, ½(½ + ½) = ½.
    p.distance = GroundDistance::Equal;
    let tc = t_closeness(&t, &p).unwrap();
    assert_eq!(tc.t_max(), Some(0.5));
}

#[test]
fn registry_reaches_t_closeness_with_its_parameters() {
    let ds = read_csv_from(SMALL.as_bytes(), "s.csv".as_ref(), &ReadOptions::default()).unwrap();
    let spec: toml::Table =
        "measure = \"t-closeness\"\nkeys = [\"g\"]\nsensitive = \"s\"\nt = 0.5\ndistance = \"ordered\""
            .parse()
            .unwrap();
    let m = configure(&spec, "risk[1]", ReadContext::default(), &[])
        .unwrap()
        .method;
    assert_eq!(m.name(), "t-closeness");
    assert_eq!(m.headline(), "t_max");
    let out = m.assess(&ds.table, true).unwrap();
    assert_eq!(
        out.report.figure("t_max").unwrap().as_f64(),
        Some(4.0 / 7.0)
    );
    assert_eq!(
        out.report.figure("records_above_t").unwrap().as_f64(),
        Some(2.0),
        "C only (A is 3/7 under the ordered distance)"
    );
    assert_eq!(out.records.len(), 10);
    let bad: toml::Table =
        "measure = \"t-closeness\"\nkeys = [\"g\"]\nt = 2\nmissing = \"wildcard\"\ndistance = \"earth\""
            .parse()
            .unwrap();
    let problems = configure(&bad, "risk[2]", ReadContext::default(), &[]).unwrap_err();
    let text: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
    let all = text.join("\n");
    assert!(all.contains("risk[2].sensitive"), "{all}");
    assert!(all.contains("risk[2].t: expected a value"), "{all}");
    assert!(all.contains("risk[2].distance"), "{all}");
    assert!(all.contains("wildcard"), "{all}");
}

/// The definition, term by term in f64.
fn naive_equal(p: &[f64], q: &[f64]) -> f64 {
    0.5 * p.iter().zip(q).map(|(a, b)| (a - b).abs()).sum::<f64>()
}

fn naive_ordered(p: &[f64], q: &[f64]) -> f64 {
    let m = p.len();
    if m <= 1 {
        return 0.0;
    }
    let mut cum = 0.0;
    let mut total = 0.0;
    for i in 0..m {
        cum += p[i] - q[i];
        total += cum.abs();
    }
    total / (m - 1) as f64
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// The integer EMDs equal the definition, lie in [0, 1], and the whole-table call agrees.
    #[test]
    fn emds_follow_the_definition_and_lie_in_0_1(
        rows in prop::collection::vec((0u8..4, prop::option::weighted(0.9, 0u8..6)), 1..60),
    ) {
        // An all-missing column has no type to infer; the case is covered by hand above.
        prop_assume!(rows.iter().any(|r| r.1.is_some()));
        let mut csv = String::from("g,s\n");
        for (g, s) in &rows {
            csv.push_str(&format!("{g},{}\n", s.map_or(String::new(), |s| (10 * s).to_string())));
        }
        let t = table(&csv);
        for distance in [GroundDistance::Equal, GroundDistance::Ordered] {
            let mut p = TClosenessParams::new(keys(&["g"]), "s");
            p.distance = distance;
            let tc = t_closeness(&t, &p).unwrap();
            // The file's distribution over the observed values, sorted.
            let mut values: Vec<u8> = rows.iter().filter_map(|r| r.1).collect();
            values.sort();
            values.dedup();
            let big_n = rows.iter().filter(|r| r.1.is_some()).count() as f64;
            let q: Vec<f64> = values
                .iter()
                .map(|v| rows.iter().filter(|r| r.1 == Some(*v)).count() as f64 / big_n)
                .collect();
            for (i, (g, _)) in rows.iter().enumerate() {
                let class: Vec<&(u8, Option<u8>)> = rows.iter().filter(|r| r.0 == *g).collect();
                let s = class.iter().filter(|r| r.1.is_some()).count() as f64;
                let got = tc.record_emd(i);
                if s == 0.0 {
                    prop_assert_eq!(got, None);
                    continue;
                }
                let pd: Vec<f64> = values
                    .iter()
                    .map(|v| class.iter().filter(|r| r.1 == Some(*v)).count() as f64 / s)
                    .collect();
                let want = match distance {
                    GroundDistance::Ordered => naive_ordered(&pd, &q),
                    _ => naive_equal(&pd, &q),
                };
                let got = got.unwrap();
                prop_assert!((got - want).abs() < 1e-12, "{:?} record {}: {} vs {}", distance, i, got, want);
                prop_assert!((0.0..=1.0).contains(&got));
            }
        }
    }

    /// A class with the file's distribution is at distance 0 exactly: every class holds the
    /// same multiset of sensitive values (in any order).
    #[test]
    fn a_class_with_the_files_distribution_is_zero(
        base in prop::collection::vec(0u8..5, 1..8),
        classes in 1usize..5,
        shift in 0usize..8,
    ) {
        let mut csv = String::from("g,s\n");
        for c in 0..classes {
            for j in 0..base.len() {
                let v = base[(j + shift * c) % base.len()];
                csv.push_str(&format!("c{c},{v}\n"));
            }
        }
        let t = table(&csv);
        for distance in [GroundDistance::Equal, GroundDistance::Ordered] {
            let mut p = TClosenessParams::new(keys(&["g"]), "s");
            p.distance = distance;
            let tc = t_closeness(&t, &p).unwrap();
            prop_assert_eq!(tc.t_max(), Some(0.0));
        }
    }

    /// The integer functions directly: in [0, 1], and 1 for a point mass at one end of an
    /// ordered file concentrated at the other end (the largest distance).
    #[test]
    fn integer_emds_are_bounded(
        counts in prop::collection::vec(0u64..50, 1..12),
        class in prop::collection::vec(0u64..20, 1..12),
    ) {
        let m = counts.len().min(class.len());
        let b: Vec<u64> = counts[..m].iter().map(|&x| x + 1).collect();
        let a: Vec<(usize, u64)> = class[..m]
            .iter()
            .enumerate()
            .filter(|(_, x)| **x > 0)
            .map(|(i, &x)| (i, x))
            .collect();
        prop_assume!(!a.is_empty());
        let s: u64 = a.iter().map(|x| x.1).sum();
        let big_n: u64 = b.iter().sum();
        let mut cum = Vec::new();
        let mut acc = 0;
        for &x in &b {
            acc += x;
            cum.push(acc);
        }
        let mut pre = vec![0u128];
        let mut acc = 0u128;
        for &x in &cum {
            acc += x as u128;
            pre.push(acc);
        }
        let e = emd_equal(&a, s, &b, big_n);
        let o = emd_ordered(&a, s, &cum, &pre);
        prop_assert!((0.0..=1.0).contains(&e));
        prop_assert!((0.0..=1.0).contains(&o));
    }
}

#[test]
fn the_largest_distance_is_one() {
    // The file's values all at the bottom, b = (5, 0, 0), a class of 3 at the top value:
    // equal: ½(|0 − 1| + |1 − 0|) = 1; ordered: cumulative q = (1, 1, 1), p = (0, 0, 1):
    // (1 + 1 + 0)/(3 − 1) = 1.
    let cum = [5u64, 5, 5];
    let pre = [0u128, 5, 10, 15];
    assert_eq!(emd_ordered(&[(2, 3)], 3, &cum, &pre), 1.0);
    assert_eq!(emd_equal(&[(2, 3)], 3, &[5, 0, 0], 5), 1.0);
}
