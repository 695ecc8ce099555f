//! docs/METHODS.md §1 worked examples A–D and sdcMicro's `freqCalc` case, with exact values.

use intruder_data::params::ReadContext;
use intruder_data::{Dataset, ReadOptions, Role, read_csv, read_csv_from};
use intruder_risk::{
    IncompletePairs, MissingPolicy, RiskParams, SetMatch, assess, configure, dalenius_t1_code,
    equivalence_classes, mixed_radix_code, n_match, n_match_naive, n_match_with,
};

fn load(csv: &str) -> Dataset {
    read_csv_from(
        csv.as_bytes(),
        "example.csv".as_ref(),
        &ReadOptions::default(),
    )
    .unwrap()
}

fn keys(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn repo(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
}

/// Example A (Dalenius §3.4): T2 codes 71/44/51 and record 3 the only unique.
#[test]
fn example_a_dalenius_t2_codes_and_classes() {
    let rows = [
        [1, 3, 2, 0, 1],
        [0, 2, 2, 1, 0],
        [1, 1, 0, 0, 1],
        [1, 3, 2, 0, 1],
        [0, 2, 2, 1, 0],
        [0, 2, 2, 1, 0],
        [1, 3, 2, 0, 1],
    ];
    let cats = [2, 4, 3, 2, 2];
    let codes: Vec<u64> = rows
        .iter()
        .map(|r| mixed_radix_code(r, &cats).unwrap())
        .collect();
    assert_eq!(codes, vec![71, 44, 51, 71, 44, 44, 71]);
    // Dalenius' T1 sums of the same records (§4.1.3): 169, 100, 131; record 3 alone at 131.
    let t1: Vec<u64> = rows
        .iter()
        .map(|r| dalenius_t1_code(r, &cats).unwrap())
        .collect();
    assert_eq!(t1, vec![169, 100, 131, 169, 100, 100, 169]);
    // §4.1.2, five binary variables: 13, 22, 13, 22, 23, 22, 22.
    let bin = [
        [1, 0, 1, 1, 0],
        [0, 1, 1, 0, 1],
        [1, 0, 1, 1, 0],
        [0, 1, 1, 0, 1],
        [1, 1, 1, 0, 1],
        [0, 1, 1, 0, 1],
        [0, 1, 1, 0, 1],
    ];
    let t1: Vec<u64> = bin
        .iter()
        .map(|r| dalenius_t1_code(r, &[2; 5]).unwrap())
        .collect();
    assert_eq!(t1, vec![13, 22, 13, 22, 23, 22, 22]);
    assert_eq!(dalenius_t1_code(&[2, 0, 0, 0, 0], &cats), None);
    assert_eq!(
        mixed_radix_code(&[2, 0, 0, 0, 0], &cats),
        None,
        "a value outside its categories has no code"
    );

    let mut csv = String::from("X,Y,Z,U,V\n");
    for r in rows {
        csv += &format!("{},{},{},{},{}\n", r[0], r[1], r[2], r[3], r[4]);
    }
    let ds = load(&csv);
    let a = assess(
        &ds.table,
        &RiskParams::new(keys(&["X", "Y", "Z", "U", "V"])),
    )
    .unwrap();
    let k: Vec<u32> = a.records.k.iter().map(|k| k.unwrap()).collect();
    assert_eq!(k, vec![3, 3, 1, 3, 3, 3, 3]);
    let c = a.summary.classes.unwrap();
    assert_eq!((c.sample_uniques, c.classes, c.min_k), (1, 3, Some(1)));
}

/// Example B (Dalenius §3.2): classes of 4, 2 and 1; with threshold 2, records 1, 3, 5 are unique.
#[test]
fn example_b_threshold_two() {
    let recs = [
        "10110", "01101", "10110", "01101", "11101", "01101", "01101",
    ];
    let mut csv = String::from("a,b,c,d,e\n");
    for r in recs {
        csv += &r
            .chars()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(",");
        csv += "\n";
    }
    let ds = load(&csv);
    let mut p = RiskParams::new(keys(&["a", "b", "c", "d", "e"]));
    p.unique_threshold = 2;
    let a = assess(&ds.table, &p).unwrap();
    let k: Vec<u32> = a.records.k.iter().map(|k| k.unwrap()).collect();
    assert_eq!(k, vec![2, 4, 2, 4, 1, 4, 4]);
    let unique_rows: Vec<usize> = (0..7).filter(|&i| k[i] <= 2).map(|i| i + 1).collect();
    assert_eq!(unique_rows, vec![1, 3, 5]);
    let c = a.summary.classes.unwrap();
    assert_eq!(
        (c.uniques_at_threshold, c.sample_uniques, c.pairs),
        (3, 1, 1)
    );
    // Two "unique" classes at threshold 2 ({5} and {1, 3}); at threshold 3 Dalenius' k = 2 or 3
    // gives the same records here (no class of 3).
    assert_eq!(c.classes_at_threshold, 2);
    p.unique_threshold = 3;
    let c = assess(&ds.table, &p).unwrap().summary.classes.unwrap();
    assert_eq!((c.uniques_at_threshold, c.classes_at_threshold), (3, 2));
}

/// Dalenius (1986) §5.3: the first eight records of a large matrix (P = 5), processed in order
/// with a count per distinct P-set. The outcome after records 1, 2, 3 and 8 as the paper prints
/// it, and with k = 2 the class {1, 3, 8} of three records needs no more tracking while
/// records 2, 4, 5, 6, 7 stay "unique" (classes of at most two).
#[test]
fn dalenius_5_3_eight_records_processed_in_order() {
    // Transcribed from Dalenius (1986), §5.3 ("Consider the first eight records ...").
    let recs = [
        "1,1,3,2,2",
        "0,0,5,0,2",
        "1,1,3,2,2",
        "0,0,2,1,1",
        "1,1,3,2,1",
        "0,0,5,0,2",
        "0,0,2,1,1",
        "1,1,3,2,2",
    ];
    let names = keys(&["v1", "v2", "v3", "v4", "v5"]);
    // The outcome after the first m records: each distinct P-set with its records (1-based,
    // in order of first appearance) and its count.
    let outcome = |m: usize| -> Vec<(Vec<usize>, String, u32)> {
        let csv = format!("v1,v2,v3,v4,v5\n{}\n", recs[..m].join("\n"));
        let ds = load(&csv);
        let c = equivalence_classes(
            &ds.table,
            &names,
            MissingPolicy::Listwise,
            SetMatch::Overlap,
        )
        .unwrap();
        let mut seen: Vec<u32> = Vec::new();
        for &id in &c.class_of {
            if !seen.contains(&id) {
                seen.push(id);
            }
        }
        seen.iter()
            .map(|&id| {
                let rows: Vec<usize> = (0..m)
                    .filter(|&i| c.class_of[i] == id)
                    .map(|i| i + 1)
                    .collect();
                (
                    rows.clone(),
                    recs[rows[0] - 1].replace(',', " "),
                    c.sizes[id as usize],
                )
            })
            .collect()
    };
    let row = |r: &[usize], d: &str, n: u32| (r.to_vec(), d.to_string(), n);
    assert_eq!(outcome(1), vec![row(&[1], "1 1 3 2 2", 1)]);
    assert_eq!(
        outcome(2),
        vec![row(&[1], "1 1 3 2 2", 1), row(&[2], "0 0 5 0 2", 1)]
    );
    assert_eq!(
        outcome(3),
        vec![row(&[1, 3], "1 1 3 2 2", 2), row(&[2], "0 0 5 0 2", 1)]
    );
    // The paper lists the final outcome by count (1,3,8; 2,6; 4,7; 5).
    assert_eq!(
        outcome(8),
        vec![
            row(&[1, 3, 8], "1 1 3 2 2", 3),
            row(&[2, 6], "0 0 5 0 2", 2),
            row(&[4, 7], "0 0 2 1 1", 2),
            row(&[5], "1 1 3 2 1", 1),
        ]
    );
    // With k = 2 (Dalenius' threshold): the records in classes of at most two are "unique".
    let ds = load(&format!("v1,v2,v3,v4,v5\n{}\n", recs.join("\n")));
    let mut p = RiskParams::new(names.clone());
    p.unique_threshold = 2;
    let a = assess(&ds.table, &p).unwrap();
    let k: Vec<u32> = a.records.k.iter().map(|k| k.unwrap()).collect();
    assert_eq!(k, vec![3, 2, 3, 2, 1, 2, 2, 3]);
    let tracked: Vec<usize> = (0..8).filter(|&i| k[i] <= 2).map(|i| i + 1).collect();
    assert_eq!(tracked, vec![2, 4, 5, 6, 7]);
    let c = a.summary.classes.unwrap();
    assert_eq!(
        (
            c.sample_uniques,
            c.pairs,
            c.uniques_at_threshold,
            c.classes_at_threshold,
            c.classes
        ),
        (1, 2, 5, 3, 4)
    );
}

/// Example C (survey-anonymization slides): the 15-row workplace survey kept in data/examples.
#[test]
fn example_c_workplace_survey() {
    let schema =
        intruder_data::Schema::from_file(&repo("data/examples/workplace-survey.schema.toml"))
            .unwrap();
    let opts = ReadOptions {
        schema: Some(schema),
        ..Default::default()
    };
    let ds = read_csv(&repo("data/examples/workplace-survey.csv"), &opts).unwrap();
    let key_names: Vec<String> = ds
        .table
        .with_role(Role::Key)
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    assert_eq!(key_names, keys(&["Gender", "AgeGrp", "EthnicGrp"]));
    let mut p = RiskParams::new(key_names);
    p.sensitive = Some("Unionize".into());
    let a = assess(&ds.table, &p).unwrap();
    let k: Vec<u32> = a.records.k.iter().map(|k| k.unwrap()).collect();
    //            1  2  3  4  5  6  7  8  9 10 11 12 13 14 15
    assert_eq!(k, vec![3, 2, 2, 2, 3, 3, 2, 3, 1, 2, 2, 1, 3, 1, 3]);
    let uniques: Vec<usize> = (0..15).filter(|&i| k[i] == 1).map(|i| i + 1).collect();
    assert_eq!(uniques, vec![9, 12, 14]);
    let c = a.summary.classes.as_ref().unwrap();
    assert_eq!(
        (c.min_k, c.classes, c.pairs, c.sample_uniques),
        (Some(1), 8, 3, 3)
    );
    // Every class answered Unionize one way: distinct ℓ = 1 everywhere.
    let d = a.summary.diversity.unwrap();
    assert_eq!((d.l_distinct_min, d.l_entropy_min), (1, 1.0));
    assert!(a.records.l_distinct.unwrap().iter().all(|l| *l == Some(1)));
}

/// Example D (Mulder Table 2): listwise k, n_match by the paper's stated steps, and the
/// published table's erratum.
#[test]
fn example_d_mulder_table_2_and_its_erratum() {
    let ds = load("age,gender\n40,M\n36,F\n.,M\n40,.\n23,M\n23,M\n");
    let ks = keys(&["age", "gender"]);
    let a = assess(&ds.table, &RiskParams::new(ks.clone())).unwrap();
    assert_eq!(
        a.records.k,
        vec![Some(1), Some(1), None, None, Some(2), Some(2)]
    );
    let c = a.summary.classes.unwrap();
    assert_eq!((c.n_deleted, c.n, c.sample_uniques), (2, 4, 2));
    assert_eq!(c.pr_su_new, Some(0.5));
    assert!((c.pr_su_full - 2.0 / 6.0).abs() < 1e-15);

    let stated = n_match(&ds.table, &ks, SetMatch::Overlap, None)
        .unwrap()
        .n_match;
    assert_eq!(
        stated,
        vec![3, 1, 5, 3, 3, 3],
        "Mulder's Steps 1–5 as stated"
    );
    assert_eq!(
        stated,
        n_match_naive(&ds.table, &ks, SetMatch::Overlap, None)
            .unwrap()
            .n_match
    );

    // The published table prints 4 and 2 for rows 3 and 4. That only follows if two records
    // that both miss a key never match each other: row 3 (., M) would then not match row 4
    // (40, .), and row 4 would not match row 3. The stated steps are the definition; this
    // documents the erratum.
    let published = [3, 1, 4, 2, 3, 3];
    let differs: Vec<usize> = (0..6)
        .filter(|&i| stated[i] != published[i])
        .map(|i| i + 1)
        .collect();
    assert_eq!(differs, vec![3, 4]);
    let (age, gender) = (
        ds.table.column("age").unwrap(),
        ds.table.column("gender").unwrap(),
    );
    let erratum_rule: Vec<u32> = (0..6)
        .map(|j| {
            (0..6)
                .filter(|&r| {
                    let both_missing =
                        |c: &intruder_data::Column| c.is_missing(j) || c.is_missing(r);
                    let any_missing_j = age.is_missing(j) || gender.is_missing(j);
                    let any_missing_r = age.is_missing(r) || gender.is_missing(r);
                    let agree = [age, gender]
                        .iter()
                        .all(|c| both_missing(c) || c.text(j) == c.text(r));
                    agree && !(r != j && any_missing_j && any_missing_r)
                })
                .count() as u32
        })
        .collect();
    assert_eq!(
        erratum_rule, published,
        "the rule that reproduces the printed table"
    );

    // The same rule as the toolkit's option (`incomplete_pairs = "never"`), through the
    // function, through `assess` and through the registry an experiment file configures.
    let never = n_match_with(
        &ds.table,
        &ks,
        SetMatch::Overlap,
        IncompletePairs::Never,
        None,
    )
    .unwrap()
    .n_match;
    assert_eq!(never, published);
    assert_eq!(
        n_match_with(
            &ds.table,
            &ks,
            SetMatch::Overlap,
            IncompletePairs::Match,
            None
        )
        .unwrap()
        .n_match,
        stated
    );
    let mut p = RiskParams::new(ks.clone());
    p.missing = MissingPolicy::Wildcard;
    p.incomplete_pairs = IncompletePairs::Never;
    let a = assess(&ds.table, &p).unwrap();
    assert_eq!(a.records.n_match.as_deref(), Some(&published[..]));
    // n_match = 1 for row 2 only; rows 1, 4, 5 and 6 at most 3 (≤ 5 all six); n₂ = row 4.
    let w = a.summary.wildcard.unwrap();
    assert_eq!((w.n_match_1, w.n_match_2, w.n_match_le_5), (1, 1, 6));
    let configured = |text: &str| {
        let t: toml::Table = text.parse().unwrap();
        configure(&t, "risk[1]", ReadContext::default(), &[]).map(|b| b.method)
    };
    let m = configured(
        "keys = [\"age\", \"gender\"]\nmissing = \"wildcard\"\nincomplete_pairs = \"never\"",
    )
    .unwrap_or_else(|p| panic!("{p:?}"));
    let out = m.assess(&ds.table, true).unwrap();
    assert_eq!(
        out.report.figure("n_match_1").and_then(|f| f.as_f64()),
        Some(1.0)
    );
    assert_eq!(
        out.report
            .figure("incomplete_pairs")
            .map(|f| f.value.clone()),
        Some(serde_json::json!("never"))
    );
    // The rule needs the wildcard policy, and is not combined with sdcMicro's alpha.
    let e = configured("keys = [\"age\"]\nincomplete_pairs = \"never\"").unwrap_err();
    assert!(
        e.iter()
            .any(|p| p.to_string().contains("wildcard missing policy")),
        "{e:?}"
    );
    assert!(
        configured(
            "keys = [\"age\"]\nmissing = \"wildcard\"\nalpha = 0.5\nincomplete_pairs = \"never\""
        )
        .is_err()
    );
    let e = configured("keys = [\"age\"]\nmissing = \"wildcard\"\nincomplete_pairs = \"none\"")
        .unwrap_err();
    assert!(
        e.iter().any(|p| p.to_string().contains("match, never")),
        "{e:?}"
    );
}

/// sdcMicro's own `freqCalc` example: wildcard f_k and weighted F_k.
#[test]
fn sdcmicro_freqcalc_case() {
    let a = [2, 3, 2, 2, 3, 3, 1, 2];
    let b = [3, 3, 3, 3, 3, 3, 4, 3];
    let w = [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51.0];
    let run = |c: [&str; 8]| {
        let mut csv = String::from("A,B,C,w\n");
        for i in 0..8 {
            csv += &format!("{},{},{},{}\n", a[i], b[i], c[i], w[i]);
        }
        let ds = load(&csv);
        let ks = keys(&["A", "B", "C"]);
        let nm = n_match(&ds.table, &ks, SetMatch::Overlap, Some(&w)).unwrap();
        let mut p = RiskParams::new(ks);
        p.missing = MissingPolicy::Wildcard;
        p.weight = Some("w".into());
        let risk = assess(&ds.table, &p).unwrap();
        assert_eq!(risk.records.n_match.as_ref().unwrap(), &nm.n_match);
        (nm.n_match, nm.weighted.unwrap())
    };
    let (fk, big) = run(["1", "3", "NA", "2", "1", "1", "NA", "1"]);
    assert_eq!(fk, vec![3, 1, 4, 2, 2, 2, 1, 3]);
    assert_eq!(
        big,
        vec![108.0, 45.5, 125.0, 56.0, 100.0, 100.0, 123.5, 108.0]
    );
    let (fk, big) = run(["1", "3", "1", "2", "1", "1", "1", "1"]);
    assert_eq!(fk, vec![3, 1, 3, 1, 2, 2, 1, 3]);
    assert_eq!(
        big,
        vec![108.0, 45.5, 108.0, 17.0, 100.0, 100.0, 123.5, 108.0]
    );
}

/// Individual risk with weights on the freqCalc case equals the sdcMicro formulas applied to
/// (f_k, F_k), and without weights it is 1/f_k.
#[test]
fn individual_risk_from_weights() {
    let ds = load("A,B,w\n1,1,10\n1,1,30\n2,1,5\n2,2,4\n2,2,4\n2,2,4\n");
    let mut p = RiskParams::new(keys(&["A", "B"]));
    let plain = assess(&ds.table, &p).unwrap();
    assert_eq!(
        plain.records.individual_risk,
        vec![
            Some(0.5),
            Some(0.5),
            Some(1.0),
            Some(1.0 / 3.0),
            Some(1.0 / 3.0),
            Some(1.0 / 3.0)
        ]
    );
    p.weight = Some("w".into());
    let a = assess(&ds.table, &p).unwrap();
    let r: Vec<f64> = a
        .records
        .individual_risk
        .iter()
        .map(|r| r.unwrap())
        .collect();
    // f = 2, F = 40: p = 1/20 → p/(1-p) − (p/(1-p))² ln(1/p)
    let p2 = 1.0f64 / 20.0;
    let o = p2 / (1.0 - p2);
    assert!((r[0] - (o - o * o * (1.0 / p2).ln())).abs() < 1e-15);
    // f = 1, F = 5: p = 1/5 → (1/4) ln 5
    assert!((r[2] - 5f64.ln() / 4.0).abs() < 1e-15);
    // f = 3, F = 12: p = 1/4 → 0.25 / (3 − 0.75)
    assert!((r[3] - 0.25 / 2.25).abs() < 1e-15);
    let w = a.summary.weights.unwrap();
    assert!((w.expected_reidentifications - r.iter().sum::<f64>()).abs() < 1e-12);
    assert!((w.global_risk - r.iter().sum::<f64>() / 6.0).abs() < 1e-12);
    assert_eq!(w.max_individual_risk, r.iter().copied().fold(0.0, f64::max));
}

/// θ and Bender's R through `assess`.
#[test]
fn theta_and_bender_r_from_the_file() {
    // 4 uniques, 2 pairs, n = 8; N = 80 → π = 0.1: θ = 0.4 / (0.4 + 2·0.9·2) = 0.1
    let ds = load("a\n1\n2\n3\n4\n5\n5\n6\n6\n");
    let mut p = RiskParams::new(keys(&["a"]));
    p.population_size = Some(80.0);
    p.population_uniques = Some(50.0);
    let a = assess(&ds.table, &p).unwrap();
    let c = a.summary.classes.unwrap();
    assert!((c.theta.unwrap() - 0.1).abs() < 1e-15);
    assert!(!c.theta_reliable, "4 uniques are too few to trust θ");
    assert!((a.summary.bender_r.unwrap() - (1.0 - (-0.1f64 * 50.0).exp())).abs() < 1e-15);
    // θ undefined without uniques or pairs.
    let ds = load("a\n1\n1\n1\n");
    let mut p = RiskParams::new(keys(&["a"]));
    p.population_size = Some(10.0);
    assert_eq!(
        assess(&ds.table, &p)
            .unwrap()
            .summary
            .classes
            .unwrap()
            .theta,
        None
    );
}

/// Bender's R with the measured file as the population: N = its records, n(U) = its uniques,
/// f = sample_size / N.
#[test]
fn bender_r_of_a_population_file_from_its_own_uniques() {
    // 8 records, 4 uniques (1, 2, 3, 4); a sample of 2 → f = 0.25: R = 1 − e^(−0.25·4) = 1 − 1/e.
    let ds = load("a\n1\n2\n3\n4\n5\n5\n6\n6\n");
    let mut p = RiskParams::new(keys(&["a"]));
    p.sample_size = Some(2.0);
    let a = assess(&ds.table, &p).unwrap();
    assert!((a.summary.bender_r.unwrap() - (1.0 - (-1.0f64).exp())).abs() < 1e-15);
    // f_a scales the exponent: f_a = 0.5 → 1 − e^(−0.5).
    p.intruder_share = 0.5;
    let a = assess(&ds.table, &p).unwrap();
    assert!((a.summary.bender_r.unwrap() - (1.0 - (-0.5f64).exp())).abs() < 1e-15);
    // A sample larger than the population is an error naming both sizes.
    p.sample_size = Some(9.0);
    let e = assess(&ds.table, &p).unwrap_err().to_string();
    assert!(
        e.contains("sample_size 9") && e.contains("8 records"),
        "{e}"
    );
    // It excludes the sample-side parameters.
    let mut p = RiskParams::new(keys(&["a"]));
    p.sample_size = Some(2.0);
    p.population_size = Some(80.0);
    let e = assess(&ds.table, &p).unwrap_err().to_string();
    assert!(e.contains("cannot be combined with population_size"), "{e}");
}

/// Household risk: 1 − Π(1 − r_i) within each household.
#[test]
fn household_risk_through_assess() {
    let ds = load("a,h\n1,x\n2,x\n2,y\n3,y\n3,z\n");
    let mut p = RiskParams::new(keys(&["a"]));
    p.group = Some("h".into());
    let a = assess(&ds.table, &p).unwrap();
    // r = 1, 1/2, 1/2, 1/2, 1/2 → household x: 1; y: 1 − 1/4; z: 1/2
    assert_eq!(
        a.records.household_risk.unwrap(),
        vec![1.0, 1.0, 0.75, 0.75, 0.5]
    );
}

/// As-value treats missing as a category; listwise drops the record.
#[test]
fn as_value_counts_missing_as_a_category() {
    let ds = load("a,b\n1,x\n1,\n1,\n2,x\n");
    let mut p = RiskParams::new(keys(&["a", "b"]));
    p.missing = MissingPolicy::AsValue;
    let a = assess(&ds.table, &p).unwrap();
    assert_eq!(a.records.k, vec![Some(1), Some(2), Some(2), Some(1)]);
    let classes = equivalence_classes(
        &ds.table,
        &keys(&["a", "b"]),
        MissingPolicy::Listwise,
        SetMatch::Overlap,
    )
    .unwrap();
    assert_eq!(classes.n_deleted, 2);
}

/// Set-valued cells: overlap versus first candidate (Mulder's estimated month of birth).
#[test]
fn set_valued_months() {
    let opts = ReadOptions::default().with_set_valued(&["month"]);
    let csv = "yob,month\n1970,3|4\n1970,4\n1970,5|6\n1970,3\n1971,\n";
    let ds = read_csv_from(csv.as_bytes(), "m.csv".as_ref(), &opts).unwrap();
    let ks = keys(&["yob", "month"]);
    let overlap = n_match(&ds.table, &ks, SetMatch::Overlap, None)
        .unwrap()
        .n_match;
    // {3,4} meets {3,4}, {4}, {3}; {4} meets {3,4}, {4}; {5,6} only itself; {3} meets {3,4}, {3}.
    assert_eq!(overlap, vec![3, 2, 1, 2, 1]);
    let first = n_match(&ds.table, &ks, SetMatch::First, None)
        .unwrap()
        .n_match;
    // first of {3,4} is 3: in {3,4} and {3}; 4 in {3,4}, {4}; 5 in {5,6}; 3 in {3,4}, {3}.
    assert_eq!(first, vec![2, 2, 1, 2, 1]);
    for m in [SetMatch::Overlap, SetMatch::First] {
        assert_eq!(
            n_match(&ds.table, &ks, m, None).unwrap().n_match,
            n_match_naive(&ds.table, &ks, m, None).unwrap().n_match
        );
    }
    // Listwise classes: the set as a whole (overlap) or the first candidate (first).
    let a = assess(&ds.table, &RiskParams::new(ks.clone())).unwrap();
    assert_eq!(a.records.k, vec![Some(1), Some(1), Some(1), Some(1), None]);
    let mut p = RiskParams::new(ks);
    p.set_match = SetMatch::First;
    assert_eq!(
        assess(&ds.table, &p).unwrap().records.k,
        vec![Some(2), Some(1), Some(1), Some(2), None]
    );
}

/// First candidate on both sides (`first-both`): a two-month cell is its first month, on the
/// query side and on the stored side alike.
#[test]
fn set_valued_months_first_on_both_sides() {
    let opts = ReadOptions::default().with_set_valued(&["month"]);
    let csv = "yob,month\n1970,3|4\n1970,4\n1970,5|6\n1970,3\n1971,\n";
    let ds = read_csv_from(csv.as_bytes(), "m.csv".as_ref(), &opts).unwrap();
    let ks = keys(&["yob", "month"]);
    // Firsts: 3, 4, 5, 3, missing. 3 meets the two 3s; {4} is alone ({3,4} offers only 3);
    // {5,6} alone; 1971 alone on year of birth.
    let both = n_match(&ds.table, &ks, SetMatch::FirstBoth, None)
        .unwrap()
        .n_match;
    assert_eq!(both, vec![2, 1, 1, 2, 1]);
    assert_eq!(
        both,
        n_match_naive(&ds.table, &ks, SetMatch::FirstBoth, None)
            .unwrap()
            .n_match
    );
    // Through assess (wildcard): one record with n_match 1 more than under `first` ({4}).
    let mut p = RiskParams::new(ks);
    p.missing = MissingPolicy::Wildcard;
    p.set_match = SetMatch::FirstBoth;
    let w = assess(&ds.table, &p).unwrap().summary.wildcard.unwrap();
    assert_eq!((w.n_match_1, w.n_match_2), (3, 2));
    assert_eq!(
        "first-both".parse::<SetMatch>().unwrap(),
        SetMatch::FirstBoth
    );
}

/// Classes and records of size ≤ 5 / ≤ 10 are counted apart (Mulder's Table 3 counts classes),
/// and θ under n_match counts records with n_match = 2 (Mulder's Table 4).
#[test]
fn classes_versus_records_and_theta_under_n_match() {
    // Classes {1} (1 record), {2} (2), {3} (6); N = 90, so π = 0.1.
    let ds = load("a\n1\n2\n2\n3\n3\n3\n3\n3\n3\n");
    let mut p = RiskParams::new(keys(&["a"]));
    p.population_size = Some(90.0);
    let s = assess(&ds.table, &p).unwrap().summary;
    let c = s.classes.clone().unwrap();
    assert_eq!((c.classes_k_le_5, c.classes_k_le_10), (2, 3));
    assert_eq!((c.k_le_5, c.k_le_10), (3, 9));
    // Listwise θ: n₁ = 1, n₂ = 1 pair → 0.1 / (0.1 + 2·0.9·1) = 1/19.
    assert!((c.theta.unwrap() - 1.0 / 19.0).abs() < 1e-12);
    let json = s.to_json();
    assert_eq!(json["classes_k_le_5"], 2);
    assert_eq!(json["records_k_le_5"], 3);
    assert_eq!(json["classes_k_le_10"], 3);
    assert_eq!(json["records_k_le_10"], 9);
    // Under n_match (no missing value: n_match = class size) n₂ counts the 2 records of the
    // pair: θ = 0.1 / (0.1 + 2·0.9·2) = 1/37, about half the listwise θ.
    p.missing = MissingPolicy::Wildcard;
    let s = assess(&ds.table, &p).unwrap().summary;
    let w = s.wildcard.clone().unwrap();
    assert_eq!((w.n_match_1, w.n_match_2), (1, 2));
    assert!((w.theta.unwrap() - 1.0 / 37.0).abs() < 1e-12);
    assert!((s.to_json()["theta"].as_f64().unwrap() - 1.0 / 37.0).abs() < 1e-12);
    // Without N there is no θ figure.
    p.population_size = None;
    let s = assess(&ds.table, &p).unwrap().summary;
    assert!(s.to_json().get("theta").is_none());
}

/// `whole_sets`: a multi-response answer pattern is one value under wildcard too ({a,b} is not
/// {a}), while a candidate set (an estimated month) still matches by its candidates.
#[test]
fn whole_sets_compare_answer_patterns_as_one_value() {
    let opts = ReadOptions::default().with_set_valued(&["lang", "month"]);
    let csv = "lang,month\na|b,3|4\na,4\nb,3\n,3\n";
    let ds = read_csv_from(csv.as_bytes(), "l.csv".as_ref(), &opts).unwrap();
    let mut p = RiskParams::new(keys(&["lang"]));
    p.missing = MissingPolicy::Wildcard;
    p.with_n_match = true;
    // Overlap: {a,b} meets {a}, {b}, itself and the missing cell.
    let nm = |p: &RiskParams| assess(&ds.table, p).unwrap().records.n_match.unwrap();
    assert_eq!(nm(&p), vec![4, 3, 3, 4]);
    p.whole_sets = keys(&["lang"]);
    // Whole: each pattern meets itself and the missing cell.
    assert_eq!(nm(&p), vec![2, 2, 2, 4]);
    // With the month (overlap) beside it: {a,b}/{3,4} meets itself and the missing language
    // with month 3; {a}/4 only itself; {b}/3 itself and the missing one; the missing one
    // meets {a,b}/{3,4}, {b}/3 and itself.
    p.keys = keys(&["lang", "month"]);
    assert_eq!(nm(&p), vec![2, 1, 2, 3]);
    // A name that is not a key is refused.
    p.whole_sets = keys(&["nope"]);
    assert!(assess(&ds.table, &p).is_err());
}

/// The slides' "50% sample" (survey-anonymization slides, "The role of sampling"): the 15
/// surveyed workers of example C and the 15 not surveyed. Of the sample uniques 9, 12 and 14,
/// 9 (F / 31-45 / 2) and 12 (F / 25-30 / 1) are population uniques; 14 (F / 16-24 / 2) is not —
/// worker 30, not surveyed, shares its keys.
#[test]
fn slides_fifty_percent_sample_uniques_versus_population_uniques() {
    let schema =
        intruder_data::Schema::from_file(&repo("data/examples/workplace-population.schema.toml"))
            .unwrap();
    let opts = ReadOptions {
        schema: Some(schema),
        ..Default::default()
    };
    let ds = read_csv(&repo("data/examples/workplace-population.csv"), &opts).unwrap();
    assert_eq!(ds.table.nrows(), 30);
    let ks = keys(&["Gender", "AgeGrp", "EthnicGrp"]);
    let population = assess(&ds.table, &RiskParams::new(ks.clone())).unwrap();
    let pop_k: Vec<u32> = population.records.k.iter().map(|k| k.unwrap()).collect();
    // The surveyed half alone (rows 1-15), as example C.
    let sample = load(
        &std::fs::read_to_string(repo("data/examples/workplace-population.csv"))
            .unwrap()
            .lines()
            .take(16)
            .collect::<Vec<_>>()
            .join("\n"),
    );
    let s = assess(&sample.table, &RiskParams::new(ks)).unwrap();
    let sample_uniques: Vec<usize> = (0..15)
        .filter(|&i| s.records.k[i] == Some(1))
        .map(|i| i + 1)
        .collect();
    assert_eq!(sample_uniques, vec![9, 12, 14]);
    let population_uniques: Vec<usize> = sample_uniques
        .iter()
        .copied()
        .filter(|&id| pop_k[id - 1] == 1)
        .collect();
    assert_eq!(population_uniques, vec![9, 12]);
    assert_eq!(pop_k[14 - 1], 2, "14 has one population twin (worker 30)");
    // The population's uniques: 9 and 12, and two workers not surveyed (21: M / 16-24 / 2,
    // 25: M / 31-45 / 1).
    let all: Vec<usize> = (0..30).filter(|&i| pop_k[i] == 1).map(|i| i + 1).collect();
    assert_eq!(all, vec![9, 12, 21, 25]);
}
