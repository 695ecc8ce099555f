//! The bounds that decide a string level without the similarity (issue 40): the profile
//! bounds never cut a pair that reaches a threshold (Jaro and Jaro–Winkler from above, the
//! Levenshtein and Damerau–Levenshtein distances from below), and the level of every value
//! pair of a comparison equals the level evaluated pair by pair with `strsim` — random texts
//! with non-ASCII characters, upper case, long texts (past the byte path), equal values,
//! several measures and an expression in one comparison, and thresholds equal to the
//! similarity of some pair of the files (a pair exactly at the edge of a level).

use intruder_attack::fellegi_sunter::{LinkageSpec, compare::Prepared, strings};
use intruder_data::{Kind, ReadOptions, Table, read_csv_from};
use proptest::prelude::*;

/// Texts of a few characters (digits as FEBRL's ids, accented letters, a space), or long
/// ASCII texts (past the 64-byte path of `strings`), or texts of many distinct characters
/// (more than there are buckets), or texts repeating one character past a bucket's count.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-cé0-2ñ]{0,8}",
        "[abAB ß]{0,6}",
        "[a-e]{60,70}",
        // Either side of the small tables' sizes (14 and 32 bytes).
        "[a-c]{12,34}",
        "[a-zA-Z0-9àéîõüßΩж]{0,14}",
        // More than 255 characters in one bucket: a profile that bounds nothing.
        "a{250,262}b?",
    ]
}

/// A file with a string column `s` holding `values` (trimmed and missing as a CSV reads
/// them) beside the row number (no line is blank).
fn table(values: &[String], label: &str) -> Table {
    let mut csv = String::from("k,s\n");
    for (k, v) in values.iter().enumerate() {
        csv.push_str(&format!("{k},{v}\n"));
    }
    let mut opts = ReadOptions::default();
    opts.override_spec("s").kind = Some(Kind::String);
    read_csv_from(csv.as_bytes(), label.as_ref(), &opts)
        .expect("test CSV parses")
        .table
}

/// The text of row `i` as the linkage reads it (trimmed, `None` when missing; a field of
/// spaces is the empty text).
fn value(t: &Table, i: usize) -> Option<String> {
    Some(t.column("s").unwrap().text(i)?.trim().to_string())
}

#[derive(Debug, Clone, Copy)]
enum Measure {
    JaroWinkler,
    Jaro,
    Levenshtein,
    DamerauLevenshtein,
}

impl Measure {
    const ALL: [Measure; 4] = [
        Measure::JaroWinkler,
        Measure::Jaro,
        Measure::Levenshtein,
        Measure::DamerauLevenshtein,
    ];

    fn kind(self) -> &'static str {
        match self {
            Measure::JaroWinkler => "jaro-winkler",
            Measure::Jaro => "jaro",
            Measure::Levenshtein => "levenshtein",
            Measure::DamerauLevenshtein => "damerau-levenshtein",
        }
    }

    /// `strsim`'s value of the measure.
    fn of(self, x: &str, y: &str) -> f64 {
        match self {
            Measure::JaroWinkler => strsim::jaro_winkler(x, y),
            Measure::Jaro => strsim::jaro(x, y),
            Measure::Levenshtein => strsim::levenshtein(x, y) as f64,
            Measure::DamerauLevenshtein => strsim::damerau_levenshtein(x, y) as f64,
        }
    }

    /// Whether a level of the measure at threshold `t` holds.
    fn holds(self, x: &str, y: &str, t: f64) -> bool {
        match self {
            Measure::JaroWinkler | Measure::Jaro => x == y || self.of(x, y) >= t,
            _ => x == y || self.of(x, y) <= t,
        }
    }
}

/// The per-pair reference: the levels `(measure, threshold, lower-case view)` after null and
/// exact, evaluated in order on the texts.
fn reference(levels: &[(Measure, f64, bool)], x: Option<&str>, y: Option<&str>) -> u8 {
    let (Some(x), Some(y)) = (x, y) else {
        return 0;
    };
    if x == y {
        return 1;
    }
    for (l, &(m, t, lower)) in levels.iter().enumerate() {
        // An expression that gives the empty text gives null (the level does not hold).
        let hit = if lower {
            !x.is_empty() && !y.is_empty() && m.holds(&x.to_lowercase(), &y.to_lowercase(), t)
        } else {
            m.holds(x, y, t)
        };
        if hit {
            return l as u8 + 2;
        }
    }
    levels.len() as u8 + 2
}

proptest! {
    #[test]
    fn profile_bounds_never_cut_a_pair_that_reaches_a_threshold(
        a in text(),
        b in text(),
        others in prop::collection::vec(text(), 0..6),
        same in any::<bool>(),
    ) {
        let b = if same { a.clone() } else { b };
        // The buckets of a dictionary (many distinct characters share the last bucket).
        let buckets = strings::CharBuckets::of(
            others.iter().map(String::as_str).chain([a.as_str(), b.as_str()]),
        );
        let (p, q) = (
            strings::TextProfile::new(&a, &buckets),
            strings::TextProfile::new(&b, &buckets),
        );
        prop_assert!(strings::jaro_upper_bound(&p, &q) >= strsim::jaro(&a, &b));
        prop_assert!(strings::jaro_winkler_upper_bound(&p, &q) >= strsim::jaro_winkler(&a, &b));
        let lower = strings::edit_distance_lower_bound(&p, &q) as usize;
        prop_assert!(lower <= strsim::damerau_levenshtein(&a, &b));
        prop_assert!(lower <= strsim::levenshtein(&a, &b));
        prop_assert!(strsim::damerau_levenshtein(&a, &b) <= strsim::levenshtein(&a, &b));
    }

    #[test]
    fn bounded_levels_equal_the_per_pair_reference(
        va in prop::collection::vec(text(), 1..16),
        vb in prop::collection::vec(text(), 1..16),
        first in 0usize..4,
        second in 0usize..4,
        lower in any::<bool>(),
        edge in prop::collection::vec((0usize..256, 0usize..256), 3),
    ) {
        let (ta, tb) = (table(&va, "a.csv"), table(&vb, "b.csv"));
        let (ni, nr) = (ta.nrows(), tb.nrows());
        let xs: Vec<Option<String>> = (0..ni).map(|i| value(&ta, i)).collect();
        let ys: Vec<Option<String>> = (0..nr).map(|j| value(&tb, j)).collect();
        // Thresholds at the edge: the measure's value on pairs of the files.
        let (m1, m2) = (Measure::ALL[first], Measure::ALL[second]);
        let at = |m: Measure, (i, j): (usize, usize), lower: bool| -> f64 {
            let x = xs[i % ni].clone().unwrap_or_default();
            let y = ys[j % nr].clone().unwrap_or_default();
            if lower {
                m.of(&x.to_lowercase(), &y.to_lowercase())
            } else {
                m.of(&x, &y)
            }
        };
        let (mut t1, mut t2) = (at(m1, edge[0], false), at(m1, edge[1], false));
        // The stricter threshold first (higher similarity, smaller distance).
        if matches!(m1, Measure::JaroWinkler | Measure::Jaro) == (t1 < t2) {
            std::mem::swap(&mut t1, &mut t2);
        }
        let t3 = at(m2, edge[2], lower);
        let levels = [(m1, t1, false), (m1, t2, false), (m2, t3, lower)];
        let on = if lower { r#", on = "lower(s)""# } else { "" };
        let spec = format!(
            r#"blocking = [["s"]]
[[comparison]]
column = "s"
levels = [{{ kind = "null" }}, {{ kind = "exact" }}, {{ kind = "{}", threshold = {:?} }}, {{ kind = "{}", threshold = {:?} }}, {{ kind = "{}", threshold = {:?}{on} }}, {{ kind = "else" }}]
"#,
            m1.kind(), t1, m1.kind(), t2, m2.kind(), t3,
        );
        let spec = LinkageSpec::from_toml(&spec, "spec.toml").expect("test specification is valid");
        let p = Prepared::new(&spec.comparisons[0], &ta, &tb, "s").unwrap();
        let mut memo = foldhash::HashMap::default();
        for (i, x) in xs.iter().enumerate() {
            for (j, y) in ys.iter().enumerate() {
                let want = reference(&levels, x.as_deref(), y.as_deref());
                prop_assert_eq!(
                    p.level(i, j, &mut memo), want,
                    "{:?} / {:?}, levels {:?}", x, y, levels
                );
            }
        }
    }
}
