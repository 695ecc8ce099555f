//! Invariants on random small tables with missing and set-valued cells.

use intruder_data::{Column, Role, Table};
use intruder_risk::{
    Encoding, IncompletePairs, MissingPolicy, SetMatch, equivalence_classes,
    equivalence_classes_using, n_match, n_match_naive, n_match_naive_with, n_match_with,
};
use proptest::prelude::*;

/// A table of `nkeys` keys: integer keys with few values, the last key set-valued when asked.
fn table(cells: &[Vec<Option<u8>>], sets: &[Vec<u8>], with_set: bool) -> (Table, Vec<String>) {
    let nkeys = cells.first().map_or(0, Vec::len);
    let mut cols = Vec::new();
    let mut names = Vec::new();
    for k in 0..nkeys {
        let v: Vec<Option<i64>> = cells.iter().map(|r| r[k].map(i64::from)).collect();
        cols.push(Column::integer(format!("k{k}"), Role::Key, &v));
        names.push(format!("k{k}"));
    }
    if with_set {
        let v: Vec<Vec<String>> = sets
            .iter()
            .map(|s| s.iter().map(|x| x.to_string()).collect())
            .collect();
        cols.push(Column::set("s", Role::Key, &v, None).unwrap());
        names.push("s".into());
    }
    (Table::new("random", cols).unwrap(), names)
}

fn cells(nkeys: usize) -> impl Strategy<Value = Vec<Vec<Option<u8>>>> {
    prop::collection::vec(
        prop::collection::vec(prop::option::weighted(0.8, 0u8..3), nkeys),
        1..40,
    )
}

fn ok_keys(t: &Table, names: &[String]) -> bool {
    names
        .iter()
        .all(|n| t.column(n).unwrap().missing_count() < t.nrows())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn n_match_equals_the_naive_count(rows in cells(3), seed in any::<u64>(), first in any::<bool>()) {
        let mut x = seed | 1;
        let sets: Vec<Vec<u8>> = (0..rows.len()).map(|_| {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            match x % 5 { 0 => vec![], 1 | 2 => vec![(x >> 8) as u8 % 4], _ => vec![(x >> 8) as u8 % 4, (x >> 16) as u8 % 4] }
        }).collect();
        let (t, names) = table(&rows, &sets, true);
        prop_assume!(ok_keys(&t, &names));
        let m = if first { SetMatch::First } else { SetMatch::Overlap };
        let w: Vec<f64> = (0..t.nrows()).map(|i| 1.0 + i as f64).collect();
        let fast = n_match(&t, &names, m, Some(&w)).unwrap();
        let slow = n_match_naive(&t, &names, m, Some(&w)).unwrap();
        prop_assert_eq!(&fast.n_match, &slow.n_match);
        for (a, b) in fast.weighted.unwrap().iter().zip(slow.weighted.unwrap()) {
            prop_assert!((a - b).abs() < 1e-9);
        }
    }

    /// The rule of Mulder's printed Table 2 (two records that both miss a key never match)
    /// against its pair-by-pair definition, with weights; a complete record's count is the
    /// stated steps' own, and an incomplete record's never exceeds it.
    #[test]
    fn n_match_without_incomplete_pairs_equals_the_naive_count(rows in cells(3), seed in any::<u64>(), first in any::<bool>()) {
        let mut x = seed | 1;
        let sets: Vec<Vec<u8>> = (0..rows.len()).map(|_| {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17;
            match x % 5 { 0 => vec![], 1 | 2 => vec![(x >> 8) as u8 % 4], _ => vec![(x >> 8) as u8 % 4, (x >> 16) as u8 % 4] }
        }).collect();
        let (t, names) = table(&rows, &sets, true);
        prop_assume!(ok_keys(&t, &names));
        let m = if first { SetMatch::First } else { SetMatch::Overlap };
        let w: Vec<f64> = (0..t.nrows()).map(|i| 1.0 + i as f64).collect();
        let never = IncompletePairs::Never;
        let fast = n_match_with(&t, &names, m, never, Some(&w)).unwrap();
        let slow = n_match_naive_with(&t, &names, m, never, Some(&w)).unwrap();
        prop_assert_eq!(&fast.n_match, &slow.n_match);
        for (a, b) in fast.weighted.unwrap().iter().zip(slow.weighted.unwrap()) {
            prop_assert!((a - b).abs() < 1e-9);
        }
        let stated = n_match(&t, &names, m, None).unwrap().n_match;
        let incomplete = |i: usize| names.iter().any(|k| t.column(k).unwrap().is_missing(i));
        for i in 0..t.nrows() {
            prop_assert!(fast.n_match[i] >= 1 && fast.n_match[i] <= stated[i]);
            if !incomplete(i) {
                prop_assert_eq!(fast.n_match[i], stated[i]);
            }
        }
    }

    /// Larger tables with keys that are always observed: groups of a few records to a few
    /// hundred (`spread` values of the second always-observed key), so that groups go through
    /// the pair-by-pair path (packed: up to 160 records with two other keys) and beyond it
    /// through the pattern path.
    #[test]
    fn n_match_equals_naive_on_grouped_tables(
        rows in prop::collection::vec(
            (0u8..2, 0u8..8, prop::option::weighted(0.7, 0u8..4), prop::option::weighted(0.7, 0u8..3)),
            60..700,
        ),
        spread in prop::sample::select(vec![1u8, 2, 8]),
        weighted in any::<bool>(),
    ) {
        let cells: Vec<Vec<Option<u8>>> = rows.iter().map(|&(a, b, c, d)| vec![Some(a), Some(b % spread), c, d]).collect();
        let (t, names) = table(&cells, &[], false);
        prop_assume!(ok_keys(&t, &names));
        let w: Vec<f64> = (0..t.nrows()).map(|i| 0.5 + (i % 7) as f64).collect();
        let w = weighted.then_some(w.as_slice());
        let fast = n_match(&t, &names, SetMatch::Overlap, w).unwrap();
        let slow = n_match_naive(&t, &names, SetMatch::Overlap, w).unwrap();
        prop_assert_eq!(&fast.n_match, &slow.n_match);
        if let (Some(a), Some(b)) = (fast.weighted, slow.weighted) {
            for (x, y) in a.iter().zip(&b) {
                prop_assert!((x - y).abs() < 1e-9);
            }
        }
    }

    #[test]
    fn n_match_is_at_least_listwise_k(rows in cells(4)) {
        let (t, names) = table(&rows, &[], false);
        prop_assume!(ok_keys(&t, &names));
        let nm = n_match(&t, &names, SetMatch::Overlap, None).unwrap().n_match;
        let cl = equivalence_classes(&t, &names, MissingPolicy::Listwise, SetMatch::Overlap).unwrap();
        for (i, &m) in nm.iter().enumerate() {
            prop_assert!(m >= 1);
            if let Some(k) = cl.k(i) {
                prop_assert!(m >= k);
            }
        }
    }

    #[test]
    fn n_match_equals_k_without_missing(rows in prop::collection::vec(prop::collection::vec(0u8..3, 3), 1..50)) {
        let rows: Vec<Vec<Option<u8>>> = rows.into_iter().map(|r| r.into_iter().map(Some).collect()).collect();
        let (t, names) = table(&rows, &[], false);
        let nm = n_match(&t, &names, SetMatch::Overlap, None).unwrap().n_match;
        let cl = equivalence_classes(&t, &names, MissingPolicy::Listwise, SetMatch::Overlap).unwrap();
        let k: Vec<u32> = (0..t.nrows()).map(|i| cl.k(i).unwrap()).collect();
        prop_assert_eq!(nm, k);
    }

    #[test]
    fn mixed_radix_and_recoded_paths_agree(rows in cells(4), as_value in any::<bool>()) {
        let (t, names) = table(&rows, &[], false);
        prop_assume!(ok_keys(&t, &names));
        let policy = if as_value { MissingPolicy::AsValue } else { MissingPolicy::Listwise };
        let a = equivalence_classes_using(&t, &names, policy, SetMatch::Overlap, Encoding::MixedRadix).unwrap();
        let b = equivalence_classes_using(&t, &names, policy, SetMatch::Overlap, Encoding::Recoded).unwrap();
        let ka: Vec<Option<u32>> = (0..t.nrows()).map(|i| a.k(i)).collect();
        let kb: Vec<Option<u32>> = (0..t.nrows()).map(|i| b.k(i)).collect();
        prop_assert_eq!(ka, kb);
        // Same partition: two records share a class under one encoding iff under the other.
        for i in 0..t.nrows() {
            for j in 0..t.nrows() {
                let same_a = a.class_of[i] == a.class_of[j];
                let same_b = b.class_of[i] == b.class_of[j];
                prop_assert_eq!(same_a, same_b);
            }
        }
    }
}

/// A key space beyond 64 bits goes through exact re-coding and still counts right.
#[test]
fn wide_key_space_is_recoded_exactly() {
    let n = 400;
    let mut cols = Vec::new();
    let mut names = Vec::new();
    for k in 0..9 {
        // 9 keys × 300 distinct values each: 300^9 > 2^64. Records i and i + 300 are twins.
        let v: Vec<Option<String>> = (0..n)
            .map(|i| Some(format!("v{}", ((i % 300) * 7 + k) % 300)))
            .collect();
        cols.push(Column::string(format!("k{k}"), Role::Key, &v));
        names.push(format!("k{k}"));
    }
    let t = Table::new("wide", cols).unwrap();
    let c = equivalence_classes(&t, &names, MissingPolicy::Listwise, SetMatch::Overlap).unwrap();
    assert_eq!(c.encoding, Encoding::Recoded);
    assert!(
        equivalence_classes_using(
            &t,
            &names,
            MissingPolicy::Listwise,
            SetMatch::Overlap,
            Encoding::MixedRadix
        )
        .is_err()
    );
    let naive: Vec<u32> = n_match_naive(&t, &names, SetMatch::Overlap, None)
        .unwrap()
        .n_match;
    let k: Vec<u32> = (0..n).map(|i| c.k(i).unwrap()).collect();
    assert_eq!(k, naive);
    assert_eq!(k.iter().filter(|&&x| x == 2).count(), 200);

    // 17 keys × 300 values exceed even 128 bits: projections fall back to boxed tuples.
    let mut cols = Vec::new();
    let mut names = Vec::new();
    for k in 0..17 {
        let v: Vec<Option<String>> = (0..n)
            .map(|i| (i % 11 != k % 11).then(|| format!("v{}", ((i % 300) * 7 + k) % 300)))
            .collect();
        cols.push(Column::string(format!("k{k}"), Role::Key, &v));
        names.push(format!("k{k}"));
    }
    let t = Table::new("wider", cols).unwrap();
    assert_eq!(
        n_match(&t, &names, SetMatch::Overlap, None)
            .unwrap()
            .n_match,
        n_match_naive(&t, &names, SetMatch::Overlap, None)
            .unwrap()
            .n_match
    );
    assert_eq!(
        n_match(&t, &names, SetMatch::Overlap, None)
            .unwrap()
            .n_match,
        naive
    );
}

/// Keys of several kinds: offset integers, a categorical, floats, and optionally integers
/// whose span (15,000,001 values) makes the key space too large for one counter per code, so
/// the class sizes are counted by sorting.
type Row = (Option<u8>, Option<u8>, Option<u8>, Option<u8>);

fn mixed_table(rows: &[Row], spread: bool) -> (Table, Vec<String>) {
    let a: Vec<Option<i64>> = rows.iter().map(|r| r.0.map(i64::from)).collect();
    let b: Vec<Option<String>> = rows.iter().map(|r| r.1.map(|x| format!("c{x}"))).collect();
    let c: Vec<Option<f64>> = rows
        .iter()
        .map(|r| r.2.map(|x| f64::from(x) / 2.0))
        .collect();
    let d: Vec<Option<i64>> = rows
        .iter()
        .map(|r| r.3.map(|x| i64::from(x % 3) * 7_500_000))
        .collect();
    let mut cols = vec![
        Column::integer("a", Role::Key, &a),
        Column::categorical(
            "b",
            Role::Key,
            &b.iter().map(|x| x.as_deref()).collect::<Vec<_>>(),
            None,
        )
        .unwrap(),
        Column::float("c", Role::Key, &c),
    ];
    if spread {
        cols.push(Column::integer("d", Role::Key, &d));
    }
    let names = cols.iter().map(|c| c.name().to_string()).collect();
    (Table::new("mixed", cols).unwrap(), names)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Without per-record figures the summary comes from the class sizes alone (from the
    /// table's columns, or from key-code sources), or under wildcard from the histogram of
    /// n_match without the classes (from the table, or from key codes read in parts, with and
    /// without alpha): every figure equals the full assessment's.
    #[test]
    fn class_sizes_alone_give_the_full_summary(
        rows in prop::collection::vec(
            (prop::option::weighted(0.85, 0u8..4), prop::option::weighted(0.85, 0u8..3),
             prop::option::weighted(0.85, 0u8..3), prop::option::weighted(0.85, 0u8..6)),
            1..80,
        ),
        spread in any::<bool>(),
        policy in 0u8..3,
        threshold in 1u32..4,
        k in 1u32..7,
        max_global_risk in prop::sample::select(vec![0.01, 0.1, 0.3, 0.6, 0.9]),
        all in any::<bool>(),
        population in any::<bool>(),
        cuts in prop::collection::vec(0usize..80, 0..4),
        piece in 1usize..6,
        contradict in prop::option::of(0usize..5),
    ) {
        use intruder_data::keys::{CodeSource, KeyCodes, PartedCodes, SetCoding};
        use intruder_risk::{GlobalRiskDenominator, RiskParams, assess, assess_codes, assess_parts};
        let (t, names) = mixed_table(&rows, spread);
        prop_assume!(ok_keys(&t, &names));
        let mut p = RiskParams::new(names.clone());
        p.missing = [MissingPolicy::Listwise, MissingPolicy::AsValue, MissingPolicy::Wildcard]
            [policy as usize];
        p.unique_threshold = threshold;
        p.k_anonymity = k;
        p.max_global_risk = max_global_risk;
        if all {
            p.global_risk_denominator = GlobalRiskDenominator::All;
        }
        if population {
            p.population_size = Some(t.nrows() as f64 * 20.0);
        }
        let full = assess(&t, &p).unwrap();
        prop_assert_eq!(full.records.k.len(), t.nrows());
        p.per_record = false;
        let lean = assess(&t, &p).unwrap();
        prop_assert!(lean.records.k.is_empty());
        prop_assert_eq!(&lean.summary, &full.summary);
        let codes: Vec<KeyCodes> = names
            .iter()
            .map(|n| KeyCodes::of(t.column(n).unwrap(), SetCoding::Whole))
            .collect();
        let mut ends: Vec<usize> = cuts.iter().map(|&c| c.min(t.nrows())).collect();
        ends.push(t.nrows());
        ends.sort_unstable();
        let mut timings = intruder_data::Timings::new();
        if p.missing == MissingPolicy::Wildcard {
            // No classes under wildcard: the risks are 1/n_match, from its histogram.
            prop_assert!(assess_codes(&[], "mixed", &p).is_none());
            // Read in parts, the keys are made whole and matched as the table's.
            let parted = Parted::new(&codes, &ends, piece, None);
            let from_parts = assess_parts(&parted, "mixed", &p, &mut timings).unwrap().unwrap();
            prop_assert_eq!(&from_parts.summary, &full.summary);
            let mut alpha = p.clone();
            alpha.wildcard_alpha = Some(max_global_risk);
            prop_assert_eq!(
                &assess_parts(&parted, "mixed", &alpha, &mut timings).unwrap().unwrap().summary,
                &assess(&t, &alpha).unwrap().summary
            );
            // The rule of Mulder's printed Table 2 by the same path as the table's.
            let mut never = p.clone();
            never.incomplete_pairs = IncompletePairs::Never;
            prop_assert_eq!(
                &assess_parts(&parted, "mixed", &never, &mut timings).unwrap().unwrap().summary,
                &assess(&t, &never).unwrap().summary
            );
            if let Some(c) = contradict.filter(|&c| c < ends.len() && parted.part_rows()[c] > 0) {
                let parted = Parted::new(&codes, &ends, piece, Some(c));
                prop_assert!(assess_parts(&parted, "mixed", &p, &mut timings).is_none());
            }
            // What the key codes cannot give is the table's to measure.
            let mut per_record = p.clone();
            per_record.per_record = true;
            prop_assert!(assess_parts(&parted, "mixed", &per_record, &mut timings).is_none());
            let w = full.summary.weights.as_ref().unwrap();
            let sum: f64 = full.records.individual_risk.iter().flatten().sum();
            prop_assert!((sum - w.expected_reidentifications).abs() < 1e-9);
            let m = full.records.n_match.as_ref().unwrap();
            let records = |keep: &dyn Fn(u32) -> bool| m.iter().filter(|&&x| keep(x)).count();
            prop_assert_eq!(full.summary.k_anonymity.below_k, records(&|x| x < k));
            prop_assert_eq!(w.max_individual_risk, 1.0 / f64::from(*m.iter().min().unwrap()));
            return Ok(());
        }
        let refs: Vec<&dyn CodeSource> = codes.iter().map(|c| c as &dyn CodeSource).collect();
        let from_codes = assess_codes(&refs, "mixed", &p).unwrap().unwrap();
        prop_assert_eq!(&from_codes.summary, &full.summary);
        // The same codes read in parts (cut anywhere, empty parts included), a piece at a time.
        let parted = Parted::new(&codes, &ends, piece, None);
        let from_parts = assess_parts(&parted, "mixed", &p, &mut timings).unwrap().unwrap();
        prop_assert_eq!(&from_parts.summary, &full.summary);
        if let Some(c) = contradict.filter(|&c| c < ends.len() && parted.part_rows()[c] > 0) {
            // A part whose values exceed the announced cardinalities: read another way.
            let parted = Parted::new(&codes, &ends, piece, Some(c));
            prop_assert!(assess_parts(&parted, "mixed", &p, &mut timings).is_none());
        }
        // The figures from the sizes against the per-record f_k.
        let f = &full.records.k;
        let records = |keep: &dyn Fn(u32) -> bool| f.iter().flatten().filter(|&&x| keep(x)).count();
        let ka = &full.summary.k_anonymity;
        prop_assert_eq!(ka.below_k, records(&|x| x < k));
        prop_assert_eq!(ka.at_most_k, records(&|x| x <= k));
        let classes = full.summary.classes.as_ref().unwrap();
        prop_assert_eq!(classes.sample_uniques, records(&|x| x == 1));
        prop_assert_eq!(classes.uniques_at_threshold, records(&|x| x <= threshold));
        prop_assert_eq!(classes.n_deleted, f.iter().filter(|x| x.is_none()).count());
        let per_class: f64 = f.iter().flatten().map(|&x| 1.0 / f64::from(x)).sum();
        prop_assert!((per_class - classes.classes as f64).abs() < 1e-9);
        // The expected re-identifications without weights are the number of classes.
        let w = full.summary.weights.as_ref().unwrap();
        prop_assert_eq!(w.expected_reidentifications, classes.classes as f64);
        let sum: f64 = full.records.individual_risk.iter().flatten().sum();
        prop_assert!((sum - w.expected_reidentifications).abs() < 1e-9);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// With weights (listwise and as-value: from each class's risk; wildcard, with and without
    /// sdcMicro's alpha: from each record's), the summary's figures equal those of the
    /// per-record risks bit for bit: the sum in record order, sdcMicro's threshold over the
    /// sorted per-record risks, the largest risk and the records above the threshold; and the
    /// summary is the same with and without the per-record figures.
    #[test]
    fn weighted_figures_from_classes_are_the_per_record_ones(
        rows in prop::collection::vec(
            (prop::option::weighted(0.85, 0u8..4), prop::option::weighted(0.85, 0u8..3),
             prop::option::weighted(0.85, 0u8..3), prop::option::weighted(0.85, 0u8..6)),
            1..120),
        weights in prop::collection::vec(1u32..400, 120),
        policy in 0u8..4,
        all in any::<bool>(),
        max_global_risk in 0.0f64..0.6,
    ) {
        use intruder_risk::{GlobalRiskDenominator, RiskParams, assess, global_threshold};
        let (t, names) = mixed_table(&rows, true);
        prop_assume!(ok_keys(&t, &names));
        let w: Vec<Option<f64>> =
            weights[..t.nrows()].iter().map(|&x| Some(f64::from(x) / 4.0)).collect();
        let mut cols: Vec<Column> = names.iter().map(|n| t.column(n).unwrap().clone()).collect();
        cols.push(Column::float("w", Role::Weight, &w));
        let t = Table::new("weighted", cols).unwrap();
        let mut p = RiskParams::new(names);
        p.missing = [
            MissingPolicy::Listwise,
            MissingPolicy::AsValue,
            MissingPolicy::Wildcard,
            MissingPolicy::Wildcard,
        ][policy as usize];
        if policy == 3 {
            p.wildcard_alpha = Some(0.5);
        }
        p.weight = Some("w".into());
        p.max_global_risk = max_global_risk;
        if all {
            p.global_risk_denominator = GlobalRiskDenominator::All;
        }
        let full = assess(&t, &p).unwrap();
        p.per_record = false;
        let lean = assess(&t, &p).unwrap();
        prop_assert!(lean.records.individual_risk.is_empty());
        prop_assert_eq!(&lean.summary, &full.summary);
        let risks: Vec<f64> = full.records.individual_risk.iter().flatten().copied().collect();
        let ws = full.summary.weights.as_ref().unwrap();
        let denominator = if all { t.nrows() } else { risks.len() };
        let threshold = global_threshold(&risks, max_global_risk, denominator);
        prop_assert_eq!(ws.expected_reidentifications, risks.iter().sum::<f64>());
        prop_assert_eq!(ws.global_threshold, threshold);
        prop_assert_eq!(ws.max_individual_risk, risks.iter().copied().fold(0.0, f64::max));
        prop_assert_eq!(
            ws.records_above_threshold,
            threshold.map_or(0, |x| risks.iter().filter(|&&r| r > x).count())
        );
    }
}

/// Key codes read in parts give the table's figures and errors under wildcard: a key with no
/// observed value (every cell suppressed) is counted and warned about by name — under wildcard
/// it matches every record, so the figures are those without it — and a population smaller
/// than the file is an error.
#[test]
fn wildcard_from_parts_gives_the_tables_errors() {
    use intruder_data::keys::{KeyCodes, SetCoding};
    use intruder_risk::{RiskParams, assess, assess_parts};
    let t = Table::new(
        "holes",
        vec![
            Column::integer("a", Role::Key, &[Some(1), None, Some(2), Some(1)]),
            Column::integer("b", Role::Key, &[None, None, None, None]),
        ],
    )
    .unwrap();
    let codes: Vec<KeyCodes> = ["a", "b"]
        .iter()
        .map(|n| KeyCodes::of(t.column(n).unwrap(), SetCoding::Whole))
        .collect();
    let parted = Parted::new(&codes, &[1, 4], 2, None);
    let mut p = RiskParams::new(vec!["a".into(), "b".into()]);
    p.missing = MissingPolicy::Wildcard;
    p.per_record = false;
    let both = assess_parts(&parted, "holes", &p, &mut intruder_data::Timings::new())
        .expect("the key codes suffice")
        .unwrap();
    assert_eq!(both.summary, assess(&t, &p).unwrap().summary);
    // the same warning whether the keys came as codes or from the table
    assert_eq!(both.warnings, assess(&t, &p).unwrap().warnings);
    assert_eq!(
        both.warnings,
        vec!["holes: key column 'b' has no observed value: every record is missing it (listwise, every record is deleted; as-value and wildcard, it tells no record apart) — are its values missing tokens, or the wrong column?".to_string()]
    );
    let without_b = {
        let mut q = p.clone();
        q.keys = vec!["a".into()];
        assess(&t, &q).unwrap().summary
    };
    assert_eq!(both.summary.wildcard, without_b.wildcard);
    p.keys = vec!["a".into()];
    let parted_a = Parted::new(&codes[..1], &[1, 4], 2, None);
    let mut timings = intruder_data::Timings::new();
    let n_match_1 = |a: &intruder_risk::Assessment| a.summary.wildcard.as_ref().unwrap().n_match_1;
    // a = 1, –, 2, 1: the record missing a matches every record; 2 matches itself and it.
    let a = assess_parts(&parted_a, "holes", &p, &mut timings)
        .unwrap()
        .unwrap();
    assert_eq!(n_match_1(&a), 0);
    assert_eq!(
        a.summary.k_anonymity.below_k,
        assess(&t, &p).unwrap().summary.k_anonymity.below_k
    );
    p.population_size = Some(3.0);
    let err = assess_parts(&parted_a, "holes", &p, &mut timings)
        .unwrap()
        .unwrap_err();
    assert_eq!(err.to_string(), assess(&t, &p).unwrap_err().to_string());
}

/// Key codes served in parts ending at `ends`, `piece` rows at a time; part `contradict`
/// reports values beyond the cardinalities.
struct Parted<'a> {
    codes: &'a [intruder_data::keys::KeyCodes],
    rows: Vec<usize>,
    cards: Vec<u32>,
    piece: usize,
    contradict: Option<usize>,
}

impl<'a> Parted<'a> {
    fn new(
        codes: &'a [intruder_data::keys::KeyCodes],
        ends: &[usize],
        piece: usize,
        contradict: Option<usize>,
    ) -> Self {
        let rows = ends
            .iter()
            .scan(0, |start, &end| {
                let r = end - *start;
                *start = end;
                Some(r)
            })
            .collect();
        Parted {
            codes,
            rows,
            cards: codes.iter().map(|c| c.card).collect(),
            piece,
            contradict,
        }
    }
}

impl intruder_data::keys::PartedCodes for Parted<'_> {
    fn part_rows(&self) -> &[usize] {
        &self.rows
    }
    fn cards(&self) -> &[u32] {
        &self.cards
    }
    fn for_each_piece(
        &self,
        part: usize,
        f: &mut dyn FnMut(usize, &[&dyn intruder_data::keys::CodeSource]),
    ) -> Result<bool, intruder_data::DataError> {
        use intruder_data::keys::{CodeSource, KeyCodes};
        if self.contradict == Some(part) {
            return Ok(false);
        }
        let start: usize = self.rows[..part].iter().sum();
        let mut offset = 0;
        while offset < self.rows[part] {
            let n = self.piece.min(self.rows[part] - offset);
            let at = start + offset;
            let slices: Vec<KeyCodes> = self
                .codes
                .iter()
                .map(|k| KeyCodes {
                    codes: k.codes[at..at + n].to_vec(),
                    card: k.card,
                    sets: None,
                })
                .collect();
            let refs: Vec<&dyn CodeSource> = slices.iter().map(|c| c as &dyn CodeSource).collect();
            f(offset, &refs);
            offset += n;
        }
        Ok(true)
    }
}
