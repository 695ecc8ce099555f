//! Worked examples of issue 40's levels, expressions and presets against hand-computed values
//! (the proptests against a per-pair reference are in `fellegi_sunter_kernel.rs`).

use intruder_attack::fellegi_sunter::{
    Comparison, DateMetric, Level, LevelKind, LinkageSpec, Term,
    compare::Prepared,
    expr::{self, Expr},
    strings,
};
use intruder_data::{ReadOptions, Table, read_csv_from};

fn table(csv: &str) -> Table {
    read_csv_from(csv.as_bytes(), "t.csv".as_ref(), &ReadOptions::default())
        .unwrap()
        .table
}

/// The level of row `i` of `a` against row `j` of `b` under `levels` on column `x`.
fn level_of(levels: Vec<Level>, a: &Table, b: &Table, i: usize, j: usize) -> u8 {
    let cmp = Comparison {
        column: "x".into(),
        released: None,
        term_frequency: false,
        levels,
    };
    let p = Prepared::new(&cmp, a, b, "x").unwrap();
    p.level(i, j, &mut Default::default())
}

fn n(k: LevelKind) -> Level {
    Level::new(k)
}

#[test]
fn string_measures_by_hand() {
    // martha / marhta: 6 matches, 1 transposition (t↔h counted twice, halved) →
    // Jaro = (6/6 + 6/6 + 5/6) / 3 = 17/18; Winkler: prefix "mar" (3) → 17/18 + 0.3 · 1/18.
    assert!((strings::jaro("martha", "marhta") - 17.0 / 18.0).abs() < 1e-15);
    assert!((strings::jaro_winkler("martha", "marhta") - (17.0 / 18.0 + 0.3 / 18.0)).abs() < 1e-12);
    // One adjacent transposition: Damerau–Levenshtein 1, Levenshtein 2.
    assert_eq!(strings::damerau_levenshtein("martha", "marhta"), 1);
    assert!(!strings::levenshtein_within("martha", "marhta", 1.0));
    // ca → abc: transpose (ac), insert b → 2 (the restricted variant, OSA, says 3).
    assert_eq!(strings::damerau_levenshtein("ca", "abc"), 2);
    // Social security numbers differing by one swap and one substitution: 2.
    assert_eq!(strings::damerau_levenshtein("5304218", "5302418"), 1);
    assert_eq!(strings::damerau_levenshtein("5304218", "5302419"), 2);
    assert_eq!(
        strings::damerau_levenshtein_bounded("5304218", "5302419", 1.0),
        None
    );
}

#[test]
fn expressions_by_hand() {
    let ap = |e: &str, v: &str| Expr::parse(e).unwrap().compile().unwrap().apply(v);
    assert_eq!(ap("lower(x)", "SMITH").as_deref(), Some("smith"));
    assert_eq!(ap("substr(x, 2, 3)", "surname").as_deref(), Some("urn"));
    assert_eq!(ap("substr(x, 9, 3)", "surname"), None); // empty → null
    assert_eq!(ap("prefix(x, 2)", "Émile").as_deref(), Some("Ém"));
    // American Soundex: first letter, then the codes of the consonants (b f p v 1, c g j k q s
    // x z 2, d t 3, l 4, m n 5, r 6), a repeat of the previous code dropped, H and W not
    // separating two equal codes, vowels separating them; padded with 0 to 4.
    assert_eq!(expr::soundex("Robert"), "R163");
    assert_eq!(expr::soundex("Rupert"), "R163");
    assert_eq!(expr::soundex("Ashcraft"), "A261"); // s 2, (h) c 2 dropped, r 6, f 1
    assert_eq!(expr::soundex("Tymczak"), "T522"); // m 5, c 2, z 2 dropped, (a) k 2
    assert_eq!(expr::soundex("Pfister"), "P236"); // f shares P's code 1
    assert_eq!(expr::soundex("Lee"), "L000");
    assert_eq!(expr::soundex("Zoë"), expr::soundex("Zoe")); // accents folded
    // Double Metaphone, the values of Apache commons-codec's test table (Philips 2000).
    assert_eq!(expr::dmetaphone("Smith"), "SM0|XMT");
    assert_eq!(expr::dmetaphone("Schmidt"), "XMT|SMT");
    assert_eq!(expr::dmetaphone("Thompson"), "TMPS"); // codes of 4 characters
    assert_eq!(expr::dmetaphone("Knight"), "NT"); // silent K; one code when both agree
    assert_eq!(expr::dmetaphone("Jones"), "JNS|ANS");
    // Splink's postcode patterns.
    let district = "regex_extract(x, '^[A-Za-z]{1,2}[0-9][A-Za-z0-9]?')";
    assert_eq!(ap(district, "SW1A 1AA").as_deref(), Some("SW1A"));
    assert_eq!(ap("regex_extract(x, '^[A-Za-z]{1,2}')", "12 AB"), None);
    assert_eq!(
        ap("regex_extract(x, '@([^@]+)$', 1)", "a@b.org").as_deref(),
        Some("b.org")
    );
    // Dates: 31 September and 29 February 1900 are not dates; 2000 is a leap year.
    let d = "parse_date(x, '%Y%m%d')";
    assert_eq!(ap(d, "19560409").as_deref(), Some("1956-04-09"));
    assert_eq!(ap(d, "19560931"), None);
    assert_eq!(ap(d, "19000229"), None);
    assert_eq!(ap(d, "20000229").as_deref(), Some("2000-02-29"));
    assert_eq!(ap(d, "2000022"), Some("2000-02-02".into())); // %d takes one or two digits
    assert_eq!(ap(d, "200002291"), None); // trailing text
}

#[test]
fn date_levels_count_months_and_years_as_splink_does() {
    // A month is 365.25 / 12 = 30.4375 days, a year 365.25 days (Splink's seconds).
    let a = table("x\n2000-01-01\n2000-01-01\n2000-01-01\n2000-01-01\n");
    let b = table("x\n2000-01-31\n2000-02-01\n2000-12-31\n2001-01-01\n");
    let levels = |t: f64, m: DateMetric| {
        let mut l = n(LevelKind::Date(t));
        l.metric = Some(m);
        vec![
            n(LevelKind::Null),
            n(LevelKind::Exact),
            l,
            n(LevelKind::Else),
        ]
    };
    // 30 days ≤ 30.4375 < 31 days.
    assert_eq!(level_of(levels(1.0, DateMetric::Month), &a, &b, 0, 0), 2);
    assert_eq!(level_of(levels(1.0, DateMetric::Month), &a, &b, 1, 1), 3);
    // 365 days (2000 is a leap year: 2000-12-31 is day 365) ≤ 365.25 < 366.
    assert_eq!(level_of(levels(1.0, DateMetric::Year), &a, &b, 2, 2), 2);
    assert_eq!(level_of(levels(1.0, DateMetric::Year), &a, &b, 3, 3), 3);
    assert_eq!(level_of(levels(31.0, DateMetric::Day), &a, &b, 1, 1), 2);
}

#[test]
fn date_of_birth_preset_as_splink_5() {
    let spec = LinkageSpec::from_toml(
        r#"blocking = [["x"]]
comparison = [{ column = "x", preset = "date_of_birth", format = "%Y%m%d" }]"#,
        "s.toml",
    )
    .unwrap();
    let levels = spec.comparisons[0].levels.clone();
    // null (invalid), exact, Levenshtein ≤ 1, 1 month, 1 year, 10 years, else.
    assert!(matches!(levels[2].kind, LevelKind::Levenshtein(t) if t == 1.0));
    // Splink 5.0.0's levels for these pairs (benches/linkage/febrl4/splink_dob_levels.py, its
    // comparison vector values 5 4 1 3 3 -1 2 0 in the toolkit's order). An adjacent
    // transposition is one Damerau–Levenshtein edit but two Levenshtein edits, so Splink
    // leaves 1956 ↔ 1965 to the date levels (9 years: within 10 years) and 12 ↔ 21 April to
    // "within 1 month"; 19560490 is no date (null); 326 days; 1800: else.
    let a = table(
        "x\n19560409\n19560409\n19560409\n19560412\n19561210\n19560409\n19560409\n19560409\n",
    );
    let b = table(
        "x\n19560409\n19560419\n19650409\n19560421\n19561201\n19560490\n19570301\n18000101\n",
    );
    let got: Vec<u8> = (0..8)
        .map(|i| level_of(levels.clone(), &a, &b, i, i))
        .collect();
    assert_eq!(got, [1, 2, 5, 3, 3, 0, 4, 6]);
}

#[test]
fn array_intersection_counts_common_items_once() {
    let a = table("x\nred|green|blue\nred|red\nred\n");
    let b = table("x\ngreen|blue|grey\nred\ngold\n");
    let levels = || {
        vec![
            n(LevelKind::Null),
            n(LevelKind::ArrayIntersect(2.0)),
            n(LevelKind::ArrayIntersect(1.0)),
            n(LevelKind::Else),
        ]
    };
    assert_eq!(level_of(levels(), &a, &b, 0, 0), 1); // green, blue
    assert_eq!(level_of(levels(), &a, &b, 1, 1), 2); // red (once)
    assert_eq!(level_of(levels(), &a, &b, 2, 2), 3);
    // The same single-item array does not reach 2 items in common.
    assert_eq!(level_of(levels(), &a, &b, 2, 1), 2);
}

#[test]
fn levels_on_expressions_and_columns_reversed_one_way() {
    let a = table("x,y\nSmith,anna\nsmyth,anna\n");
    let b = table("x,y\nsmith,bob\nanna,smyth\n");
    let on = |e: &str| n(LevelKind::Exact).on(Expr::parse(e).unwrap());
    let levels = vec![
        n(LevelKind::Null),
        n(LevelKind::Exact),
        on("lower(x)"),
        on("soundex(x)"),
        n(LevelKind::Else),
    ];
    assert_eq!(level_of(levels.clone(), &a, &b, 0, 0), 2); // Smith / smith
    assert_eq!(level_of(levels, &a, &b, 1, 0), 3); // smyth / smith: S530 both
    // Columns reversed, one direction (Splink's default): intruder x = released y only.
    let cmp = Comparison {
        column: "x".into(),
        released: None,
        term_frequency: false,
        levels: vec![
            n(LevelKind::Exact),
            Level {
                symmetrical: Some(false),
                ..Level::columns_reversed("y")
            },
            Level::columns_reversed("y"),
            n(LevelKind::Else),
        ],
    };
    let p = Prepared::new(&cmp, &a, &b, "x").unwrap();
    // Row 2 (smyth, anna) against (anna, smyth): both crosswise equal → the first reversed
    // level that holds, the one-way one.
    assert_eq!(p.level(1, 1, &mut Default::default()), 1);
    assert_eq!(
        cmp.levels[1].label(),
        "columns reversed with y (one direction)"
    );
}

#[test]
fn blocking_terms_on_swapped_and_transformed_columns() {
    let t = Term::parse("l.given_name = r.surname").unwrap();
    assert_eq!((t.column(), t.released_column()), ("given_name", "surname"));
    assert_eq!(t.label(), "l.given_name = r.surname");
    let r = Term::parse("r.surname = l.given_name").unwrap();
    assert_eq!(r, t);
    let s = Term::parse("soundex(surname)").unwrap();
    assert_eq!(s.label(), "soundex(surname)");
    assert!(matches!(
        Term::parse("first_letter(x)"),
        Ok(Term::FirstLetter { .. })
    ));
    for bad in ["l.a = l.b", "l.a", "nope(a)", "a = b"] {
        assert!(Term::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn presets_expand_as_splink_builds_them_and_problems_are_named() {
    let spec = |c: &str| LinkageSpec::from_toml(&format!("blocking = [[\"x\"]]\n{c}"), "s.toml");
    let labels = |s: &LinkageSpec| -> Vec<String> {
        s.comparisons[0].levels.iter().map(|l| l.label()).collect()
    };
    let name =
        spec(r#"comparison = [{ column = "x", preset = "name", dmetaphone = true }]"#).unwrap();
    assert_eq!(
        labels(&name),
        [
            "null",
            "exact",
            "jaro-winkler >= 0.92",
            "jaro-winkler >= 0.88",
            "double metaphone codes in common",
            "jaro-winkler >= 0.7",
            "else"
        ]
    );
    assert!(
        name.comparisons[0].term_frequency,
        "NameComparison adjusts the exact level"
    );
    let pc = spec(r#"comparison = [{ column = "x", preset = "postcode" }]"#).unwrap();
    assert_eq!(
        labels(&pc),
        [
            "null",
            "exact match on full postcode",
            "exact match on sector",
            "exact match on district",
            "exact match on area",
            "else"
        ]
    );
    let email = spec(r#"comparison = [{ column = "x", preset = "email" }]"#).unwrap();
    assert_eq!(labels(&email)[2], "exact match on username");
    // Every problem at once, each under its key.
    let e = spec(
        r#"comparison = [
  { column = "x", preset = "nope" },
  { column = "y", preset = "exact", levels = [] },
  { column = "z", levels = [{ kind = "exact", on = "lower(w)" }, { kind = "else" }] },
  { column = "v", preset = "exact", thresholds = [1] },
]
[training]
deterministic = [["x"]]
recall = 1.5"#,
    )
    .unwrap_err();
    let all = e.problems.join("\n");
    for want in [
        "comparison[0].preset: unknown preset 'nope'",
        "comparison[1]: give either levels or a preset",
        "comparison[2].levels[0].on: 'lower(w)' reads column 'w'",
        "comparison[3].thresholds: preset 'exact' takes no thresholds",
        "training.recall: 1.5 is not a share in (0, 1]",
    ] {
        assert!(all.contains(want), "{want:?} in\n{all}");
    }
}
