//! Local suppression: k-anonymity under each rule it can protect against (property tests on
//! random small tables against naive definitions of every rule and of a full-knowledge
//! intruder), local minimality, no more suppressions than a simple baseline under the wildcard
//! rule, sdcMicro's `francdat`, a hand-worked case of the wildcard rule gamed, and the wildcard
//! counter against the naive O(n²) definition (docs/METHODS.md §1.2, worked example D).

use std::path::Path;

use intruder_data::{Column, ReadOptions, Role, Table, read_csv};
use intruder_defence::{Pipeline, wildcard_counts};
use proptest::prelude::*;

/// Mulder's n_match, naively: records agreeing on every key where both are observed.
fn naive_counts(t: &Table, keys: &[String]) -> Vec<u32> {
    let cols: Vec<&Column> = keys.iter().map(|k| t.column(k).unwrap()).collect();
    (0..t.nrows())
        .map(|j| {
            (0..t.nrows())
                .filter(|&r| {
                    cols.iter()
                        .all(|c| c.is_missing(j) || c.is_missing(r) || c.text(j) == c.text(r))
                })
                .count() as u32
        })
        .collect()
}

fn keys(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn mulder_example_d_wildcard_counts_follow_the_stated_steps() {
    let age = Column::integer(
        "age",
        Role::Key,
        &[Some(40), Some(36), None, Some(40), Some(23), Some(23)],
    );
    let sex = Column::categorical(
        "gender",
        Role::Key,
        &[Some("M"), Some("F"), Some("M"), None, Some("M"), Some("M")],
        None,
    )
    .unwrap();
    let t = Table::new("mulder", vec![age, sex]).unwrap();
    let k = keys(&["age", "gender"]);
    assert_eq!(wildcard_counts(&t, &k).unwrap(), vec![3, 1, 5, 3, 3, 3]);
    assert_eq!(naive_counts(&t, &k), vec![3, 1, 5, 3, 3, 3]);
}

fn francdat() -> Table {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/francdat.csv");
    read_csv(&path, &ReadOptions::default()).unwrap().table
}

/// Minimal number of suppressions for k-anonymity (wildcard rule), by exhaustive search over
/// sets of cells of increasing size.
fn optimum(t: &Table, keys: &[String], k: u32, max: usize) -> Option<usize> {
    let n = t.nrows();
    let p = keys.len();
    let vals: Vec<Vec<Option<String>>> = keys
        .iter()
        .map(|c| {
            let col = t.column(c).unwrap();
            (0..n)
                .map(|i| col.text(i).map(|s| s.into_owned()))
                .collect()
        })
        .collect();
    let cells = n * p;
    let ok = |supp: &[usize]| {
        let miss = |i: usize, j: usize| vals[j][i].is_none() || supp.contains(&(i * p + j));
        (0..n).all(|a| {
            (0..n)
                .filter(|&b| (0..p).all(|j| miss(a, j) || miss(b, j) || vals[j][a] == vals[j][b]))
                .count() as u32
                >= k
        })
    };
    fn combos(
        start: usize,
        left: usize,
        cells: usize,
        cur: &mut Vec<usize>,
        ok: &dyn Fn(&[usize]) -> bool,
    ) -> bool {
        if left == 0 {
            return ok(cur);
        }
        for c in start..cells {
            cur.push(c);
            if combos(c + 1, left - 1, cells, cur, ok) {
                return true;
            }
            cur.pop();
        }
        false
    }
    (0..=max).find(|&s| combos(0, s, cells, &mut Vec::new(), &ok))
}

#[test]
fn francdat_k3_is_k_anonymous_with_few_suppressions() {
    let t = francdat();
    let k = keys(&["Key1", "Key2", "Key3", "Key4"]);
    let p = Pipeline::from_toml(
        "[[step]]\nmethod = \"local-suppression\"\nkeys = [\"Key1\", \"Key2\", \"Key3\", \"Key4\"]\nk = 3\nprotect_against = \"wildcard\"\n",
        "p",
    )
    .unwrap();
    let (m, log) = p.run(&t, 1).unwrap();
    let counts = naive_counts(&m, &k);
    assert!(counts.iter().all(|&c| c >= 3), "{counts:?}");
    // Our count on francdat (keys Key1..Key4, k = 3, default importance): recorded in README.
    let ours = log.suppressions;
    let best = optimum(&t, &k, 3, ours).unwrap();
    eprintln!(
        "francdat k=3: {ours} suppressions, optimum {best}: {:#?}",
        log.steps[0].notes
    );
    assert_eq!(best, FRANCDAT_K3_OPTIMUM, "exhaustive search");
    assert_eq!(ours, FRANCDAT_K3_SUPPRESSIONS);
    // only key cells changed, only by suppression
    assert_eq!(log.cells_changed, log.suppressions);
    for c in &log.steps[0].columns {
        assert!(k.contains(&c.column));
    }
}

/// The number of suppressions this implementation makes on francdat (k = 3, keys Key1..Key4,
/// default importance): Key1 2, Key2 1, Key3 2, Key4 2.
const FRANCDAT_K3_SUPPRESSIONS: usize = 7;
/// The fewest suppressions that make francdat 3-anonymous under the wildcard rule, found by
/// exhaustive search over every set of up to 7 of its 32 key cells.
const FRANCDAT_K3_OPTIMUM: usize = 6;

fn small_table() -> impl Strategy<Value = (Table, Vec<String>, u32)> {
    (1usize..=4, 2usize..=28, 2u32..=4).prop_flat_map(|(p, n, k)| {
        let cell = prop_oneof![1 => Just(None), 6 => (0u8..3).prop_map(Some)];
        (
            proptest::collection::vec(proptest::collection::vec(cell, n), p),
            Just(k),
        )
            .prop_map(move |(cols, k)| {
                let columns: Vec<Column> = cols
                    .iter()
                    .enumerate()
                    .map(|(j, v)| {
                        let s: Vec<Option<String>> =
                            v.iter().map(|x| x.map(|c| format!("c{c}"))).collect();
                        Column::categorical(format!("k{j}"), Role::Key, &s, None).unwrap()
                    })
                    .collect();
                let names = (0..cols.len()).map(|j| format!("k{j}")).collect();
                (Table::new("prop", columns).unwrap(), names, k)
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn wildcard_counts_equal_the_naive_definition((t, k, _) in small_table()) {
        prop_assert_eq!(wildcard_counts(&t, &k).unwrap(), naive_counts(&t, &k));
    }

    #[test]
    fn local_suppression_output_is_k_anonymous_and_beats_the_baseline((t, keys, k) in small_table()) {
        prop_assume!(t.nrows() >= k as usize);
        let step = format!(
            "[[step]]\nmethod = \"local-suppression\"\nkeys = [{}]\nk = {k}\nprotect_against = \"wildcard\"\n",
            keys.iter().map(|s| format!("\"{s}\"")).collect::<Vec<_>>().join(", ")
        );
        let (m, log) = Pipeline::from_toml(&step, "p").unwrap().run(&t, 0).unwrap();
        let after = naive_counts(&m, &keys);
        prop_assert!(after.iter().all(|&c| c >= k), "not {}-anonymous: {:?}", k, after);
        // baseline: suppress every observed key of every record violating k-anonymity
        let before = naive_counts(&t, &keys);
        let baseline: usize = (0..t.nrows())
            .filter(|&i| before[i] < k)
            .map(|i| keys.iter().filter(|c| !t.column(c).unwrap().is_missing(i)).count())
            .sum();
        prop_assert!(log.suppressions <= baseline, "{} > baseline {}", log.suppressions, baseline);
        // locally minimal: restoring any one suppressed cell breaks k-anonymity
        for c in &log.steps[0].columns {
            for &r in &c.rows {
                let mut cols = m.columns().to_vec();
                let j = m.position(&c.column).unwrap();
                cols[j] = t.column(&c.column).unwrap().clone();
                let mut restored = Table::new("r", cols).unwrap();
                let mut col = m.column(&c.column).unwrap().clone();
                col = restore_cell(&col, t.column(&c.column).unwrap(), r);
                restored.replace(col).unwrap();
                let counts = naive_counts(&restored, &keys);
                prop_assert!(counts.iter().any(|&x| x < k), "cell ({}, {}) was not needed", r, c.column);
            }
        }
        prop_assert_eq!(log.cells_changed, log.suppressions);
        if before.iter().all(|&c| c >= k) {
            prop_assert_eq!(log.suppressions, 0);
        }
    }
}

/// `masked` with row `r` taken from `original`.
fn restore_cell(masked: &Column, original: &Column, r: usize) -> Column {
    let vals: Vec<Option<String>> = (0..masked.len())
        .map(|i| {
            if i == r {
                original.text(i)
            } else {
                masked.text(i)
            }
            .map(|s| s.into_owned())
        })
        .collect();
    Column::categorical(masked.name(), masked.role(), &vals, None).unwrap()
}

#[test]
fn k_larger_than_the_file_is_a_clear_error() {
    let t = Table::new(
        "t",
        vec![Column::integer("a", Role::Key, &[Some(1), Some(2)])],
    )
    .unwrap();
    let p = Pipeline::from_toml(
        "[[step]]\nmethod = \"local-suppression\"\nkeys = [\"a\"]\nk = 3\n",
        "p",
    )
    .unwrap();
    let e = p.run(&t, 0).unwrap_err().to_string();
    assert!(e.contains("2 records") && e.contains("k = 3"), "{e}");
}

#[test]
fn importance_decides_which_key_is_suppressed_under_wildcard() {
    // (1,1), (1,2), (2,1) with k = 2: record 0 is made safe by suppressing either key.
    let a = Column::integer("a", Role::Key, &[Some(1), Some(1), Some(2)]);
    let b = Column::integer("b", Role::Key, &[Some(1), Some(2), Some(1)]);
    let t = Table::new("t", vec![a, b]).unwrap();
    let run = |importance: &str| {
        let p = Pipeline::from_toml(
            &format!("[[step]]\nmethod = \"local-suppression\"\nkeys = [\"a\", \"b\"]\nk = 2\nimportance = {importance}\nprotect_against = \"wildcard\"\n"),
            "p",
        )
        .unwrap();
        let (_, log) = p.run(&t, 0).unwrap();
        let rows = |c: &str| {
            log.steps[0]
                .columns
                .iter()
                .find(|x| x.column == c)
                .map(|x| x.rows.clone())
                .unwrap_or_default()
        };
        (rows("a"), rows("b"))
    };
    // a most important: b goes first (record 0), then record 2 needs a
    assert_eq!(run("[1, 2]"), (vec![2], vec![0]));
    // b most important: a goes first (record 0), then record 1 needs b
    assert_eq!(run("[2, 1]"), (vec![0], vec![1]));
    let e = Pipeline::from_toml(
        "[[step]]\nmethod = \"local-suppression\"\nkeys = [\"a\", \"b\"]\nk = 2\nimportance = [1, 1]\n",
        "p",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("step[1].importance: must be a permutation of 1..2 (one per key)"),
        "{e}"
    );
}

// ---- the rules a defence protects against (issue 32) ----

/// The visible values of record `i` on `keys` (`None` = blank).
fn tuple(t: &Table, keys: &[String], i: usize) -> Vec<Option<String>> {
    keys.iter()
        .map(|k| t.column(k).unwrap().text(i).map(|s| s.into_owned()))
        .collect()
}

/// As-value class sizes, naively: records with the same visible values and the same blanks.
fn naive_as_value(t: &Table, keys: &[String]) -> Vec<u32> {
    (0..t.nrows())
        .map(|i| {
            let a = tuple(t, keys, i);
            (0..t.nrows()).filter(|&r| tuple(t, keys, r) == a).count() as u32
        })
        .collect()
}

/// Listwise class sizes, naively: `None` for a record missing a key, else the complete records
/// equal to it.
fn naive_listwise(t: &Table, keys: &[String]) -> Vec<Option<u32>> {
    (0..t.nrows())
        .map(|i| {
            let a = tuple(t, keys, i);
            if a.iter().any(Option::is_none) {
                return None;
            }
            Some((0..t.nrows()).filter(|&r| tuple(t, keys, r) == a).count() as u32)
        })
        .collect()
}

/// What an intruder who knows every original key value of record `i` finds in the release:
/// (listwise candidates: complete released records equal to it; wildcard candidates: released
/// records equal to it wherever they show a value).
fn intruder_candidates(orig: &Table, rel: &Table, keys: &[String], i: usize) -> (u32, u32) {
    let q = tuple(orig, keys, i);
    let (mut lw, mut wc) = (0, 0);
    for r in 0..rel.nrows() {
        let s = tuple(rel, keys, r);
        let agree = q
            .iter()
            .zip(&s)
            .all(|(a, b)| a.is_none() || b.is_none() || a == b);
        if agree {
            wc += 1;
            if s.iter().all(Option::is_some) && q.iter().all(Option::is_some) {
                lw += 1;
            }
        }
    }
    (lw, wc)
}

fn suppress_with(
    t: &Table,
    keys: &[String],
    k: u32,
    rule: &str,
) -> (Table, intruder_defence::ChangeLog) {
    let step = format!(
        "[[step]]\nmethod = \"local-suppression\"\nkeys = [{}]\nk = {k}\nprotect_against = \"{rule}\"\n",
        keys.iter()
            .map(|s| format!("\"{s}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    Pipeline::from_toml(&step, "p").unwrap().run(t, 0).unwrap()
}

/// `m` with cell (`r`, `column`) taken back from `t`.
fn with_cell_restored(m: &Table, t: &Table, column: &str, r: usize) -> Table {
    let mut restored = m.clone();
    let col = restore_cell(m.column(column).unwrap(), t.column(column).unwrap(), r);
    restored.replace(col).unwrap();
    restored
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// `all` (the default): every class of visible values and blanks holds ≥ k records, which
    /// makes every complete class and every wildcard count ≥ k, and leaves a full-knowledge
    /// intruder at least k candidates under both attacks whenever the twin is among them.
    #[test]
    fn all_is_k_anonymous_under_every_rule_and_locally_minimal((t, keys, k) in small_table()) {
        prop_assume!(t.nrows() >= k as usize);
        let (m, log) = suppress_with(&t, &keys, k, "all");
        let as_value = naive_as_value(&m, &keys);
        prop_assert!(as_value.iter().all(|&c| c >= k), "as-value {:?}", as_value);
        prop_assert!(naive_listwise(&m, &keys).iter().flatten().all(|&c| c >= k));
        prop_assert!(naive_counts(&m, &keys).iter().all(|&c| c >= k));
        for i in 0..t.nrows() {
            let (lw, wc) = intruder_candidates(&t, &m, &keys, i);
            // the twin is a wildcard candidate (its visible values are its own)
            prop_assert!(wc >= k, "record {} has {} wildcard candidates", i, wc);
            let twin_complete = tuple(&m, &keys, i).iter().all(Option::is_some);
            if twin_complete {
                prop_assert!(lw >= k, "record {} has {} listwise candidates", i, lw);
            }
        }
        prop_assert_eq!(log.cells_changed, log.suppressions);
        // locally minimal: no single suppressed cell can be given back
        for c in &log.steps[0].columns {
            for &r in &c.rows {
                let restored = with_cell_restored(&m, &t, &c.column, r);
                let counts = naive_as_value(&restored, &keys);
                prop_assert!(counts.iter().any(|&x| x < k), "cell ({}, {}) was not needed", r, c.column);
            }
        }
        if naive_as_value(&t, &keys).iter().all(|&c| c >= k) {
            prop_assert_eq!(log.suppressions, 0);
        }
        // as-value is the same condition
        let (m2, _) = suppress_with(&t, &keys, k, "as-value");
        prop_assert_eq!(m2, m);
    }

    /// `listwise`: complete classes hold ≥ k records; a record with a blank is left alone, and
    /// no cell is suppressed that a complete class could take back.
    #[test]
    fn listwise_keeps_complete_classes_at_k((t, keys, k) in small_table()) {
        prop_assume!(t.nrows() >= k as usize);
        let (m, log) = suppress_with(&t, &keys, k, "listwise");
        let after = naive_listwise(&m, &keys);
        prop_assert!(after.iter().flatten().all(|&c| c >= k), "{:?}", after);
        for c in &log.steps[0].columns {
            for &r in &c.rows {
                let restored = with_cell_restored(&m, &t, &c.column, r);
                let bad = naive_listwise(&restored, &keys).iter().flatten().any(|&x| x < k);
                prop_assert!(bad, "cell ({}, {}) was not needed", r, c.column);
            }
        }
        // records complete and safe before are untouched
        let before = naive_listwise(&t, &keys);
        for (i, b) in before.iter().enumerate() {
            if b.is_some_and(|c| c >= k) {
                prop_assert_eq!(tuple(&m, &keys, i), tuple(&t, &keys, i));
            }
        }
    }
}

/// The wildcard rule gamed, worked by hand. Keys sex and postcode, k = 3: three men with three
/// different postcodes and three women sharing one. Under `wildcard` two blanked postcodes
/// make every man "3-anonymous" (each matches the two blanks and himself), yet the third man's
/// postcode stays visible and unique among the complete records. Under `all` every man's
/// postcode goes (postcode has more values: it is the less important key), and the men form
/// one class of three.
#[test]
fn the_wildcard_rule_gamed_worked_by_hand() {
    let sex = Column::categorical(
        "sex",
        Role::Key,
        &["M", "M", "M", "F", "F", "F"].map(Some),
        None,
    )
    .unwrap();
    let pc = Column::categorical(
        "postcode",
        Role::Key,
        &["A", "B", "C", "D", "D", "D"].map(Some),
        None,
    )
    .unwrap();
    let t = Table::new("men", vec![sex, pc]).unwrap();
    let k = keys(&["sex", "postcode"]);
    let rows = |log: &intruder_defence::ChangeLog, c: &str| {
        log.steps[0]
            .columns
            .iter()
            .find(|x| x.column == c)
            .map(|x| x.rows.clone())
            .unwrap_or_default()
    };
    let (w, wlog) = suppress_with(&t, &k, 3, "wildcard");
    assert_eq!(rows(&wlog, "postcode"), vec![0, 1]);
    assert_eq!(naive_counts(&w, &k), vec![3, 3, 3, 3, 3, 3]);
    assert_eq!(
        naive_listwise(&w, &k),
        vec![None, None, Some(1), Some(3), Some(3), Some(3)],
        "the third man is unique among the complete records"
    );
    assert_eq!(intruder_candidates(&t, &w, &k, 2), (1, 3));
    let (a, alog) = suppress_with(&t, &k, 3, "all");
    assert_eq!(rows(&alog, "postcode"), vec![0, 1, 2]);
    assert_eq!(rows(&alog, "sex"), Vec::<usize>::new());
    assert_eq!(naive_as_value(&a, &k), vec![3; 6]);
    assert_eq!(
        naive_listwise(&a, &k),
        vec![None, None, None, Some(3), Some(3), Some(3)]
    );
    // listwise alone: one blank per unsafe complete record, the least important key
    let (_, llog) = suppress_with(&t, &k, 3, "listwise");
    assert_eq!(rows(&llog, "postcode"), vec![0, 1, 2]);
}

/// Under `all`, a class that cannot be made safe by one key moves on down: here the only way to
/// 2-anonymity is one class of all three records with both keys blank (checked by hand: any
/// class of visible values must hold two or three of (1,1), (1,2), (2,1), and any two differ on
/// a key they would both have to blank).
#[test]
fn all_moves_classes_down_to_every_key_blank_when_it_must() {
    let a = Column::integer("a", Role::Key, &[Some(1), Some(1), Some(2)]);
    let b = Column::integer("b", Role::Key, &[Some(1), Some(2), Some(1)]);
    let t = Table::new("t", vec![a, b]).unwrap();
    let (m, log) = suppress_with(&t, &keys(&["a", "b"]), 2, "all");
    assert_eq!(log.suppressions, 6);
    assert_eq!(naive_as_value(&m, &keys(&["a", "b"])), vec![3, 3, 3]);
}

/// Under `all` a class of two joins the record that shares its visible values once its
/// distinguishing key is blank, and the least important key goes first.
#[test]
fn all_blanks_the_least_important_key_that_makes_a_class_safe() {
    // (x, 1, p) ×2, (x, 1, q): k = 3; key c has the most values (least important), so blanking
    // c for all three makes one class (x, 1, .) of 3. Blanking b instead would also work
    // for (x, ., p) ×2 + … no: (x, ., q) would be alone. Only c works.
    let a = Column::categorical(
        "a",
        Role::Key,
        &["x", "x", "x", "y", "y", "y"].map(Some),
        None,
    )
    .unwrap();
    let b = Column::integer(
        "b",
        Role::Key,
        &[Some(1), Some(1), Some(1), Some(2), Some(2), Some(2)],
    );
    let c = Column::categorical(
        "c",
        Role::Key,
        &["p", "p", "q", "r", "r", "r"].map(Some),
        None,
    )
    .unwrap();
    let t = Table::new("t", vec![a, b, c]).unwrap();
    let (m, log) = suppress_with(&t, &keys(&["a", "b", "c"]), 3, "all");
    assert_eq!(log.suppressions, 3);
    assert_eq!(log.steps[0].columns.len(), 1);
    assert_eq!(log.steps[0].columns[0].column, "c");
    assert_eq!(log.steps[0].columns[0].rows, vec![0, 1, 2]);
    assert_eq!(naive_as_value(&m, &keys(&["a", "b", "c"])), vec![3; 6]);
}
