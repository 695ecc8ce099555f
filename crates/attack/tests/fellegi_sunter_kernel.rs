//! The Fellegi–Sunter kernel against a straightforward per-pair reference: candidate pairs,
//! levels, weights and declared links of `FellegiSunter::run` equal those computed pair by pair
//! from the text of the two files (naive blocking over the cross product, `strsim` for the
//! string levels, the fitted model's m/u and term frequencies counted afresh); the kernel's
//! table, memo and direct paths agree; the string similarities equal `strsim`; results do not
//! depend on the number of threads; the usability rules of issue 15 (probability floor, a
//! warning when no pair can reach the threshold, the columns-reversed level).
#![allow(clippy::field_reassign_with_default)]

use std::collections::{BTreeMap, HashMap};

use intruder_attack::fellegi_sunter::{
    Assignment, DateMetric, FellegiSunter, FsParams, FsRun, LevelKind, LinkageSpec, Term,
    compare::Prepared,
    em::{PROBABILITY_FLOOR, clamp_probability},
    encode::rule_keys,
    expr::{self, Expr, Func},
    kernel::Kernel,
    strings,
};
use intruder_attack::{KeyMap, Knowledge};
use intruder_data::{Dataset, ReadOptions, Role, Table, read_csv_from};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn load(csv: &str, label: &str) -> Dataset {
    let opts = ReadOptions::default().with_role(&["pid"], Role::Truth);
    read_csv_from(csv.as_bytes(), label.as_ref(), &opts).expect("test CSV parses")
}

const FIRST: &[&str] = &[
    "anna", "andrew", "bob", "betty", "carl", "cleo", "dora", "dan", "émile", "zoë",
];
const LAST: &[&str] = &[
    "smith", "smyth", "jones", "johnson", "brown", "browne", "white", "whyte", "edwards", "ng",
];

fn typo(r: &mut ChaCha8Rng, s: &str) -> String {
    let mut c: Vec<char> = s.chars().collect();
    let k = r.gen_range(0..c.len());
    match r.gen_range(0..3) {
        0 => c[k] = (b'a' + r.gen_range(0..26u8)) as char,
        1 if c.len() > 2 => {
            c.remove(k);
        }
        _ => c.insert(k, (b'a' + r.gen_range(0..26u8)) as char),
    }
    c.into_iter().collect()
}

/// One digit of a date changed.
fn typo_digit(r: &mut ChaCha8Rng, s: &str) -> String {
    let mut c: Vec<char> = s.chars().collect();
    let k = r.gen_range(0..c.len());
    c[k] = char::from(b'0' + r.gen_range(0..10u8));
    c.into_iter().collect()
}

/// Days in a month, the reference way (no formula shared with the library).
fn month_days(y: i64, m: i64) -> i64 {
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ][(m - 1) as usize]
}

/// Days before 1 January of each year 0..=9999, counted month by month.
fn days_before_year() -> &'static [i64] {
    static T: std::sync::OnceLock<Vec<i64>> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut v = vec![0i64; 10_001];
        for y in 0..10_000 {
            v[y + 1] = v[y] + (1..=12).map(|m| month_days(y as i64, m)).sum::<i64>();
        }
        v
    })
}

/// A `%Y%m%d` text → days counted one year and one month at a time from 0000-01-01, `None`
/// when not a valid date. The grammar of DuckDB's `try_strptime` (Splink's), checked with
/// DuckDB 2.0.1: four digits of year, then one or two digits of month taken greedily, then one
/// or two of day, and nothing after (`9651013` is 9651-01-03, `1965101` is 1965-10-01,
/// `1965213` and `196511` are no date).
fn ref_days(s: &str) -> Option<i64> {
    // year: four digits; month: two (greedy, as there are always two when a day follows);
    // day: the one or two digits left
    if !(7..=8).contains(&s.len()) || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (
        s[..4].parse().ok()?,
        s[4..6].parse().ok()?,
        s[6..].parse().ok()?,
    );
    if !(1..=12).contains(&m) || d < 1 || d > month_days(y, m) {
        return None;
    }
    let mut n = days_before_year()[y as usize];
    for mm in 1..m {
        n += month_days(y, mm);
    }
    Some(n + d - 1)
}

/// A valid `YYYYMMDD` date moved by `k` days (an invalid one unchanged).
fn shift_days(s: &str, k: i64) -> String {
    let Some(mut n) = ref_days(s) else {
        return s.to_string();
    };
    n += k;
    let (mut y, mut m) = (0i64, 1i64);
    loop {
        let len = month_days(y, m);
        if n < len {
            return format!("{y:04}{m:02}{:02}", n + 1);
        }
        n -= len;
        m += 1;
        if m == 13 {
            (y, m) = (y + 1, 1);
        }
    }
}

/// Two person files sharing about half their persons, with typos, missing values, names
/// swapped, years off by one.
fn files(seed: u64, n: usize) -> (Dataset, Dataset) {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let person = |r: &mut ChaCha8Rng| {
        (
            FIRST[r.gen_range(0..FIRST.len())].to_string(),
            LAST[((r.r#gen::<f64>().powi(2)) * LAST.len() as f64) as usize].to_string(),
            r.gen_range(1960..1966),
            r.gen_range(1..5),
        )
    };
    let people: Vec<_> = (0..n).map(|_| person(&mut r)).collect();
    // Dates of birth as FEBRL writes them (YYYYMMDD), a few invalid (day 31 of a short month),
    // and tags (arrays written with |).
    let dob = |r: &mut ChaCha8Rng, y: i32| {
        format!("{y}{:02}{:02}", r.gen_range(1..13), r.gen_range(1..32))
    };
    let tags = |r: &mut ChaCha8Rng| {
        let k = r.gen_range(0..4);
        (0..k)
            .map(|_| ["red", "green", "blue", "grey", "gold"][r.gen_range(0..5)])
            .collect::<Vec<_>>()
            .join("|")
    };
    let extra: Vec<(String, String)> = people
        .iter()
        .map(|p| (dob(&mut r, p.2), tags(&mut r)))
        .collect();
    let head = "pid,first,last,year,area,dob,tags\n";
    let field = |r: &mut ChaCha8Rng, s: String| if r.gen_bool(0.08) { String::new() } else { s };
    let mut a = String::from(head);
    for (i, p) in people.iter().enumerate() {
        let (f, l) = (field(&mut r, p.0.clone()), field(&mut r, p.1.clone()));
        let y = field(&mut r, p.2.to_string());
        let (d, t) = (field(&mut r, extra[i].0.clone()), extra[i].1.clone());
        a.push_str(&format!("P{i},{f},{l},{y},{},{d},{t}\n", p.3));
    }
    let mut b = String::from(head);
    let mut rows: Vec<(String, _, (String, String))> = people
        .iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(i, p)| (format!("P{i}"), p.clone(), extra[i].clone()))
        .collect();
    for k in 0..n / 2 {
        let p = person(&mut r);
        let e = (dob(&mut r, p.2), tags(&mut r));
        rows.push((format!("Q{k}"), p, e));
    }
    for (id, (f, l, y, area), (d, t)) in rows {
        let (mut f, mut l) = (f, l);
        if r.gen_bool(0.1) {
            std::mem::swap(&mut f, &mut l);
        }
        let f = if r.gen_bool(0.15) {
            typo(&mut r, &f)
        } else {
            f
        };
        let l = if r.gen_bool(0.15) {
            typo(&mut r, &l)
        } else {
            l
        };
        let y = if r.gen_bool(0.1) { y + 1 } else { y };
        let (f, l) = (field(&mut r, f), field(&mut r, l));
        let area = field(&mut r, area.to_string());
        // A date of birth with a digit changed, or a day or a year off.
        let d = match r.gen_range(0..10) {
            0 => typo_digit(&mut r, &d),
            1 => shift_days(&d, r.gen_range(-40..40)),
            2 => shift_days(&d, 365 * r.gen_range(-3..4)),
            _ => d,
        };
        let d = field(&mut r, d);
        let t = if r.gen_bool(0.2) { tags(&mut r) } else { t };
        b.push_str(&format!("{id},{f},{l},{y},{area},{d},{t}\n"));
    }
    (load(&a, "a.csv"), load(&b, "b.csv"))
}

/// Specifications exercising every kernel path: fuzzy string levels (with and without term
/// frequencies), a columns-reversed level, numeric levels, exact-only comparisons, one to three
/// overlapping blocking rules.
fn spec(variant: usize) -> LinkageSpec {
    let rules = [
        r#"blocking = [["area"], ["first_letter(last)", "year"]]"#,
        r#"blocking = [["year"]]"#,
        r#"blocking = [["prefix(first, 2)"], ["area", "year"], ["first_letter(last)"]]"#,
        r#"blocking = [["area"], ["year(year)"], ["last"]]"#,
    ];
    let first = [
        r#"levels = [{ kind = "null" }, { kind = "exact" }, { kind = "columns-reversed", column = "last" }, { kind = "jaro-winkler", threshold = 0.9 }, { kind = "jaro-winkler", threshold = 0.7 }, { kind = "else" }]"#,
        r#"levels = [{ kind = "null" }, { kind = "exact" }, { kind = "levenshtein", threshold = 1 }, { kind = "else" }]"#,
        r#"levels = [{ kind = "null" }, { kind = "exact" }, { kind = "columns-reversed", column = "last" }, { kind = "else" }]"#,
        r#"levels = [{ kind = "null" }, { kind = "columns-reversed", column = "last" }, { kind = "exact" }, { kind = "jaro-winkler", threshold = 0.8 }, { kind = "else" }]"#,
    ];
    let text = format!(
        r#"{}
[[comparison]]
column = "first"
term_frequency = {}
{}
[[comparison]]
column = "last"
term_frequency = {}
levels = [{{ kind = "null" }}, {{ kind = "exact" }}, {{ kind = "jaro-winkler", threshold = 0.88 }}, {{ kind = "levenshtein", threshold = 2 }}, {{ kind = "else" }}]
[[comparison]]
column = "year"
levels = [{{ kind = "null" }}, {{ kind = "exact" }}, {{ kind = "absolute", threshold = 1 }}, {{ kind = "else" }}]
[[comparison]]
column = "area"
term_frequency = {}
levels = [{{ kind = "null" }}, {{ kind = "exact" }}, {{ kind = "else" }}]
"#,
        rules[variant % 4],
        variant.is_multiple_of(2),
        first[(variant / 4) % 4],
        variant.is_multiple_of(3),
        variant.is_multiple_of(5),
    );
    LinkageSpec::from_toml(&text, "spec.toml").expect("test specification is valid")
}

/// Specifications with the levels, presets, transformations and blocking rules of issue 40:
/// Damerau–Levenshtein, Jaro, dates by months and years (FEBRL's `YYYYMMDD`, invalid dates
/// null), array intersections, levels on expressions (lower, substr, soundex, dmetaphone),
/// columns reversed in one direction, blocking on swapped and transformed columns.
fn spec2(variant: usize) -> LinkageSpec {
    let rules = [
        r#"blocking = [["dob"], ["l.first = r.last", "l.last = r.first"]]"#,
        r#"blocking = [["soundex(last)"], ["substr(lower(first), 1, 2)", "area"]]"#,
        r#"blocking = [["dmetaphone(first)"], ["year(dob)", "area"], ["l.first = r.last"]]"#,
        r#"blocking = [["area"]]"#,
    ];
    let first = [
        r#"preset = "name"
dmetaphone = true"#,
        r#"levels = [{ kind = "null" }, { kind = "exact" }, { kind = "columns-reversed", column = "last", symmetrical = false }, { kind = "jaro", threshold = 0.85 }, { kind = "exact", on = "soundex(first)" }, { kind = "else" }]"#,
        r#"preset = "jaro-winkler"
thresholds = [0.95, 0.8]"#,
    ];
    let last = [
        r#"preset = "damerau-levenshtein""#,
        r#"levels = [{ kind = "null" }, { kind = "exact", on = "upper(last)" }, { kind = "exact" }, { kind = "damerau-levenshtein", threshold = 1 }, { kind = "array-intersect", threshold = 1, on = "dmetaphone(last)" }, { kind = "exact", on = "substr(last, 2, 3)" }, { kind = "else" }]"#,
    ];
    let dob = [
        r#"preset = "date_of_birth"
format = "%Y%m%d""#,
        r#"levels = [{ kind = "null" }, { kind = "exact" }, { kind = "date", threshold = 20, format = "%Y%m%d" }, { kind = "date", threshold = 2, metric = "year", format = "%Y%m%d" }, { kind = "else" }]"#,
        r#"preset = "date_of_birth"
format = "%Y%m%d"
invalid_as_null = false
thresholds = [3, 10]
metrics = ["month", "day"]"#,
    ];
    let text = format!(
        r#"{}
[[comparison]]
column = "first"
term_frequency = {}
{}
[[comparison]]
column = "last"
term_frequency = {}
{}
[[comparison]]
column = "dob"
{}
[[comparison]]
column = "tags"
preset = "array-intersect"
thresholds = [2, 1]
[[comparison]]
column = "area"
levels = [{{ kind = "null" }}, {{ kind = "exact" }}, {{ kind = "else" }}]
"#,
        rules[variant % 4],
        variant.is_multiple_of(2),
        first[(variant / 4) % 3],
        variant.is_multiple_of(3),
        last[(variant / 12) % 2],
        dob[(variant / 2) % 3],
    );
    LinkageSpec::from_toml(&text, "spec.toml").expect("test specification is valid")
}

fn keys() -> KeyMap {
    KeyMap::same(&["first", "last", "year", "area", "dob", "tags"]).unwrap()
}

/// The key columns `keys()` names that `t` holds.
fn keys_of(t: &Table) -> KeyMap {
    let names: Vec<&str> = ["first", "last", "year", "area", "dob", "tags"]
        .into_iter()
        .filter(|c| t.position(c).is_some())
        .collect();
    KeyMap::same(&names).unwrap()
}

fn run(spec: &LinkageSpec, a: &Table, b: &Table, seed: u64, assignment: Assignment) -> FsRun {
    let mut p = FsParams::default();
    p.spec = Some(spec.clone());
    p.u_sample = 3_000;
    p.assignment = assignment;
    FellegiSunter::new(p)
        .unwrap()
        .run(&Knowledge::new(a, keys_of(a)).unwrap(), b, seed)
        .unwrap()
}

// ---------------------------------------------------------------------------------------------
// The per-pair reference.

fn text(t: &Table, col: &str, i: usize) -> Option<String> {
    let s = t.column(col).unwrap().text(i)?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

/// An expression of a value, the straightforward way (the phonetic codes from the library's
/// wrappers of `rphonetic`, checked on their own against worked examples).
fn ref_expr(e: &Expr, v: &str) -> Option<String> {
    let mut cur = v.to_string();
    for f in &e.funcs {
        cur = match f {
            Func::Lower => cur.to_lowercase(),
            Func::Upper => cur.to_uppercase(),
            Func::Trim => cur.trim().to_string(),
            Func::Substr { start, len } => cur.chars().skip(start - 1).take(*len).collect(),
            Func::FirstLetter => cur.chars().take(1).collect(),
            Func::Prefix { n } => cur.chars().take(*n).collect(),
            Func::Year => cur
                .chars()
                .take(4)
                .collect::<String>()
                .parse::<i64>()
                .ok()?
                .to_string(),
            Func::Soundex => expr::soundex(&cur),
            Func::DMetaphone => expr::dmetaphone(&cur),
            Func::ParseDate { format } => {
                assert_eq!(format, "%Y%m%d", "the tests write FEBRL's dates");
                ref_days(&cur)?;
                format!("{}-{}-{}", &cur[..4], &cur[4..6], &cur[6..])
            }
            Func::RegexExtract { .. } => panic!("not generated by these tests"),
        };
        if cur.is_empty() {
            return None;
        }
    }
    Some(cur)
}

fn term_side(t: &Table, term: &Term, i: usize, released: bool) -> Option<String> {
    let (ea, eb) = term.exprs();
    let e = if released { eb } else { ea };
    let v = text(t, &e.column, i)?;
    ref_expr(&e, &v)
}

fn candidate(spec: &LinkageSpec, a: &Table, b: &Table, i: usize, j: usize) -> bool {
    spec.blocking.iter().any(|rule| {
        rule.iter().all(|t| {
            matches!((term_side(a, t, i, false), term_side(b, t, j, true)), (Some(x), Some(y)) if x == y)
        })
    })
}

/// Whether a level's condition holds for two values (after the level's expression).
fn ref_holds(kind: &LevelKind, days: f64, x: &str, y: &str) -> bool {
    match *kind {
        LevelKind::Exact => x == y,
        LevelKind::JaroWinkler(t) => x == y || strsim::jaro_winkler(x, y) >= t,
        LevelKind::Jaro(t) => x == y || strsim::jaro(x, y) >= t,
        LevelKind::Levenshtein(t) => x == y || strsim::levenshtein(x, y) as f64 <= t,
        LevelKind::DamerauLevenshtein(t) => x == y || strsim::damerau_levenshtein(x, y) as f64 <= t,
        LevelKind::Absolute(t) => {
            (x.parse::<f64>().unwrap() - y.parse::<f64>().unwrap()).abs() <= t
        }
        LevelKind::Date(t) => {
            let d = |s: &str| ref_days(&s.replace('-', ""));
            match (d(x), d(y)) {
                (Some(p), Some(q)) => ((p - q).abs() as f64) <= t * days,
                _ => false,
            }
        }
        LevelKind::ArrayIntersect(t) => {
            let set = |s: &str| {
                s.split('|')
                    .filter(|v| !v.is_empty())
                    .map(str::to_string)
                    .collect::<std::collections::HashSet<_>>()
            };
            (set(x).intersection(&set(y)).count() as f64) >= t
        }
        k => panic!("level {k:?} not generated by these tests"),
    }
}

/// The level of a pair, every condition evaluated in order on the texts.
fn level(spec: &LinkageSpec, c: usize, a: &Table, b: &Table, i: usize, j: usize) -> u8 {
    let cmp = &spec.comparisons[c];
    let (x, y) = (text(a, &cmp.column, i), text(b, &cmp.column, j));
    for (l, lev) in cmp.levels.iter().enumerate() {
        let days = match lev.metric {
            None | Some(DateMetric::Day) => 1.0,
            Some(DateMetric::Month) => 365.25 / 12.0,
            Some(DateMetric::Year) => 365.25,
        };
        let view = |v: &Option<String>| match (&lev.on, v) {
            (_, None) => None,
            (None, Some(v)) => Some(v.clone()),
            (Some(e), Some(v)) => ref_expr(e, v),
        };
        let (vx, vy) = (view(&x), view(&y));
        let hit = match (&lev.kind, &vx, &vy) {
            (LevelKind::Null, _, _) => vx.is_none() || vy.is_none(),
            (LevelKind::Else, _, _) => true,
            (LevelKind::ColumnsReversed, Some(x), _) => {
                let other = lev.column.as_deref().unwrap();
                text(b, other, j).as_deref() == Some(x.as_str())
                    && (lev.symmetrical == Some(false) || vy.is_some() && text(a, other, i) == vy)
            }
            (_, None, _) | (_, _, None) => false,
            (k, Some(x), Some(y)) => ref_holds(k, days, x, y),
        };
        if hit {
            return l as u8;
        }
    }
    unreachable!("a comparison ends with else")
}

/// Share of each value among the observed values of both files.
fn term_frequencies(a: &Table, b: &Table, col: &str) -> HashMap<String, f64> {
    let mut n: HashMap<String, u64> = HashMap::new();
    let mut total = 0u64;
    for (t, rows) in [(a, a.nrows()), (b, b.nrows())] {
        for i in 0..rows {
            if let Some(v) = text(t, col, i) {
                *n.entry(v).or_insert(0) += 1;
                total += 1;
            }
        }
    }
    n.into_iter()
        .map(|(v, c)| (v, c as f64 / total as f64))
        .collect()
}

/// Every candidate pair with its levels and weight, from the fitted model's reported m, u and
/// weights: `(prior + Σ level weights) + Σ term-frequency adjustments`.
fn reference_pairs(
    spec: &LinkageSpec,
    a: &Table,
    b: &Table,
    run: &FsRun,
) -> BTreeMap<(usize, usize), (Vec<u8>, f64)> {
    let model = &run.model;
    let tfs: Vec<Option<HashMap<String, f64>>> = spec
        .comparisons
        .iter()
        .map(|c| c.term_frequency.then(|| term_frequencies(a, b, &c.column)))
        .collect();
    let mut out = BTreeMap::new();
    for i in 0..a.nrows() {
        for j in 0..b.nrows() {
            if !candidate(spec, a, b, i, j) {
                continue;
            }
            let levels: Vec<u8> = (0..spec.comparisons.len())
                .map(|c| level(spec, c, a, b, i, j))
                .collect();
            let mut w = model.prior_weight;
            for (c, &l) in levels.iter().enumerate() {
                w += model.comparisons[c].levels[l as usize].weight;
            }
            for (c, &l) in levels.iter().enumerate() {
                let cmp = &spec.comparisons[c];
                let exact = cmp
                    .levels
                    .iter()
                    .position(|x| x.kind == LevelKind::Exact && x.on.is_none());
                if let (Some(tf), true) = (&tfs[c], exact == Some(l as usize)) {
                    let v = text(a, &cmp.column, i).unwrap();
                    let u = clamp_probability(model.comparisons[c].levels[l as usize].u.unwrap());
                    w += (u / tf[&v]).log2();
                }
            }
            out.insert((i, j), (levels, w));
        }
    }
    out
}

/// Greedy one-to-one by (weight descending, intruder row, released row), NaN left out.
fn reference_greedy(
    pairs: &BTreeMap<(usize, usize), (Vec<u8>, f64)>,
    ni: usize,
    nr: usize,
) -> Vec<Option<(usize, f64)>> {
    let mut order: Vec<(usize, usize, f64)> = pairs
        .iter()
        .filter(|(_, v)| !v.1.is_nan())
        .map(|(&(i, j), v)| (i, j, v.1))
        .collect();
    order.sort_by(|x, y| y.2.total_cmp(&x.2).then(x.0.cmp(&y.0)).then(x.1.cmp(&y.1)));
    let mut out = vec![None; ni];
    let mut used = vec![false; nr];
    for (i, j, w) in order {
        if out[i].is_none() && !used[j] {
            out[i] = Some((j, w));
            used[j] = true;
        }
    }
    out
}

fn check_against_reference(seed: u64, n: usize, variant: usize) {
    check_spec_against_reference(seed, n, variant, &spec(variant));
}

fn check_spec_against_reference(seed: u64, n: usize, variant: usize, spec: &LinkageSpec) {
    let (a, b) = files(seed, n);
    let (a, b) = (&a.table, &b.table);
    let got = run(spec, a, b, seed, Assignment::Greedy);
    let want = reference_pairs(spec, a, b, &got);
    let pairs: BTreeMap<(usize, usize), (Vec<u8>, f64)> = got
        .pairs()
        .map(|p| {
            (
                (p.intruder, p.released),
                (got.pattern_levels(p.pattern).to_vec(), p.weight),
            )
        })
        .collect();
    assert_eq!(
        pairs.len(),
        got.candidate_count(),
        "a pair was produced twice"
    );
    assert_eq!(
        pairs.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "candidate pairs (seed {seed}, variant {variant})"
    );
    for (k, (levels, w)) in &want {
        let (gl, gw) = &pairs[k];
        assert_eq!(
            gl, levels,
            "levels of pair {k:?} (seed {seed}, variant {variant})"
        );
        assert_eq!(
            gw.to_bits(),
            w.to_bits(),
            "weight of pair {k:?}: {gw} vs {w} (seed {seed}, variant {variant})"
        );
    }
    // Each intruder record's pairs come best first.
    let listed: Vec<_> = got.pairs().collect();
    for w in listed.windows(2) {
        if w[0].intruder == w[1].intruder {
            assert!(
                w[0].weight > w[1].weight
                    || (w[0].weight == w[1].weight && w[0].released < w[1].released)
            );
        }
    }
    // Declared links: the greedy one-to-one of the reference.
    let greedy = reference_greedy(&want, a.nrows(), b.nrows());
    for (i, rec) in got.linkage.records.iter().enumerate() {
        let got_i: Option<(usize, f64)> = rec.list.first().map(|c| (c.row, c.score));
        assert_eq!(
            got_i, greedy[i],
            "link of intruder row {i} (seed {seed}, variant {variant})"
        );
    }
    let thr = got.model.threshold_weight;
    assert_eq!(
        got.model.links,
        greedy.iter().flatten().filter(|x| x.1 >= thr).count()
    );
    // Without assignment: every candidate of each record, ranked.
    let all = run(spec, a, b, seed, Assignment::None);
    for (i, rec) in all.linkage.records.iter().enumerate() {
        let mut w: Vec<(usize, f64)> = want
            .range((i, 0)..(i + 1, 0))
            .map(|(&(_, j), v)| (j, v.1))
            .collect();
        w.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
        let g: Vec<(usize, f64)> = rec.list.iter().map(|c| (c.row, c.score)).collect();
        assert_eq!(g, w, "ranked list of intruder row {i}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn kernel_equals_the_per_pair_reference(seed in 0u64..1_000_000, n in 8usize..70, variant in 0usize..40) {
        check_against_reference(seed, n, variant);
    }

    #[test]
    fn kernel_with_splink_levels_equals_the_per_pair_reference(seed in 0u64..1_000_000, n in 8usize..70, variant in 0usize..72) {
        check_spec_against_reference(seed, n, variant, &spec2(variant));
    }

    #[test]
    fn kernel_paths_agree_table_memo_direct(seed in 0u64..1_000_000, n in 8usize..60, variant in 0usize..80) {
        let (a, b) = files(seed, n);
        let spec = if variant < 40 { spec(variant) } else { spec2(variant - 40) };
        let (a, b) = (&a.table, &b.table);
        let same = |c: &str| c.to_string();
        let prepared: Vec<Prepared> = spec
            .comparisons
            .iter()
            .map(|c| Prepared::with_names(c, a, b, &c.column, &same).unwrap())
            .collect();
        let keys: Vec<_> = spec
            .blocking
            .iter()
            .map(|r| rule_keys(a, b, r, &same).unwrap())
            .collect();
        let (ni, nr) = (a.nrows(), b.nrows());
        let tables = Kernel::new(&prepared, &keys, ni, nr);
        let direct = Kernel::with_table_limit(&prepared, &keys, ni, nr, 0);
        // Tables cut to a corner of a few cells (the pairs outside compared directly).
        let corners = Kernel::with_table_limits(&prepared, &keys, ni, nr, usize::MAX, 1 + seed as usize % 7);
        let (x, y) = (tables.build(), direct.build());
        for y in [&y, &corners.build()] {
            prop_assert_eq!(&x.patterns, &y.patterns);
            prop_assert_eq!(&x.counts, &y.counts);
            prop_assert_eq!(&x.by_rules, &y.by_rules);
            prop_assert_eq!(&x.per_rule, &y.per_rule);
            prop_assert_eq!(
                x.candidates.iter().collect::<Vec<_>>(),
                y.candidates.iter().collect::<Vec<_>>()
            );
        }
        // Level counts over every pair of the cross product, and each pair's levels against
        // the per-pair reference of `Prepared`.
        let all: Vec<(u32, u32)> = (0..ni as u32)
            .flat_map(|i| (0..nr as u32).map(move |j| (i, j)))
            .collect();
        let every = vec![true; prepared.len()];
        prop_assert_eq!(tables.level_counts(&all, &every), direct.level_counts(&all, &every));
        prop_assert_eq!(tables.level_counts(&all, &every), corners.level_counts(&all, &every));
        // u from the values' frequencies equals the counts over every pair.
        let counts = tables.level_counts(&all, &every);
        for (c, want) in counts.iter().enumerate() {
            if let Some(exact) = tables.exact_level_counts(c, u64::MAX) {
                prop_assert_eq!(&exact, want);
            }
            if let Some(exact) = corners.exact_level_counts(c, u64::MAX) {
                prop_assert_eq!(&exact, want);
            }
        }
        let (mut m1, mut m2, mut m3) = (tables.memos(), direct.memos(), corners.memos());
        // One memo per comparison (ids are per comparison).
        let mut memo = vec![foldhash::HashMap::default(); prepared.len()];
        for &(i, j) in all.iter().step_by(7) {
            let (i, j) = (i as usize, j as usize);
            let want: Vec<u8> = prepared
                .iter()
                .zip(memo.iter_mut())
                .map(|(p, m)| p.level(i, j, m))
                .collect();
            prop_assert_eq!(&tables.pair_levels(i, j, &mut m1), &want);
            prop_assert_eq!(&direct.pair_levels(i, j, &mut m2), &want);
            prop_assert_eq!(&corners.pair_levels(i, j, &mut m3), &want);
        }
    }

    #[test]
    fn string_similarities_equal_strsim(a in "[a-zé ]{0,70}", b in "[a-zé ]{0,70}", t in 0.0f64..4.0) {
        prop_assert_eq!(strings::jaro_winkler(&a, &b).to_bits(), strsim::jaro_winkler(&a, &b).to_bits());
        prop_assert_eq!(strings::levenshtein_within(&a, &b, t.floor()), strsim::levenshtein(&a, &b) as f64 <= t.floor());
    }

    #[test]
    fn damerau_levenshtein_and_jaro_equal_strsim(a in "[a-dé]{0,12}", b in "[a-dé]{0,12}", t in 0u32..4, c in "[0-4]{0,10}", e in "[0-4]{0,10}") {
        // Digits (FEBRL's ids and dates): the byte path with its early exit.
        let dd = strsim::damerau_levenshtein(&c, &e);
        prop_assert_eq!(strings::damerau_levenshtein_bounded(&c, &e, t as f64), (dd <= t as usize).then_some(dd));
        let d = strsim::damerau_levenshtein(&a, &b);
        prop_assert_eq!(strings::damerau_levenshtein(&a, &b), d);
        prop_assert_eq!(strings::damerau_levenshtein_within(&a, &b, t as f64), d <= t as usize);
        prop_assert_eq!(strings::damerau_levenshtein_bounded(&a, &b, t as f64), (d <= t as usize).then_some(d));
        let l = strsim::levenshtein(&a, &b);
        prop_assert_eq!(strings::levenshtein_bounded(&a, &b, t as f64), (l <= t as usize).then_some(l));
        prop_assert_eq!(strings::jaro(&a, &b).to_bits(), strsim::jaro(&a, &b).to_bits());
    }

    #[test]
    fn ascii_similarities_equal_strsim(a in "[a-e]{0,66}", b in "[a-e]{0,66}") {
        prop_assert_eq!(strings::jaro_winkler(&a, &b).to_bits(), strsim::jaro_winkler(&a, &b).to_bits());
        let d = strsim::damerau_levenshtein(&a, &b);
        prop_assert_eq!(strings::damerau_levenshtein(&a, &b), d);
        for t in 0..5 {
            prop_assert_eq!(strings::damerau_levenshtein_bounded(&a, &b, t as f64), (d <= t).then_some(d));
        }
        for t in 0..4 {
            prop_assert_eq!(strings::levenshtein_within(&a, &b, t as f64), strsim::levenshtein(&a, &b) <= t);
        }
    }
}

#[test]
fn kernel_equals_the_reference_on_larger_files() {
    for (seed, variant) in [(1, 0), (2, 5), (3, 10), (4, 15), (5, 22)] {
        check_against_reference(seed, 220, variant);
    }
    for (seed, variant) in [(6, 0), (7, 13), (8, 26), (9, 39), (10, 50), (11, 71)] {
        check_spec_against_reference(seed, 220, variant, &spec2(variant));
    }
}

#[test]
fn results_are_identical_whatever_the_thread_count() {
    let (a, b) = files(42, 600);
    for variant in [0, 7, 13] {
        let spec = spec(variant);
        let with = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| run(&spec, &a.table, &b.table, 3, Assignment::Greedy))
        };
        let (one, three) = (with(1), with(3));
        assert_eq!(one.model, three.model);
        assert_eq!(one.linkage, three.linkage);
        let bits = |r: &FsRun| {
            r.pairs()
                .map(|p| (p.intruder, p.released, p.pattern, p.weight.to_bits()))
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&one), bits(&three));
    }
}

// ---------------------------------------------------------------------------------------------
// Exact values and usability.

/// Every level of the fitted model weighs `log2(clamp(m) / clamp(u))`, so no level weighs more
/// than ±log2((1 − 1e-6) / 1e-6) ≈ ±19.93 however rare it is among matches or non-matches.
#[test]
fn level_weights_are_log_ratios_of_probabilities_kept_off_0_and_1() {
    // Area never differs between the two copies of a person: EM drives m(area else) to 0.
    let (a, b) = files(8, 400);
    let r = run(&spec(0), &a.table, &b.table, 1, Assignment::Greedy);
    let bound = ((1.0 - PROBABILITY_FLOOR) / PROBABILITY_FLOOR).log2();
    assert!((bound - 19.931568).abs() < 1e-6);
    for c in &r.model.comparisons {
        for l in &c.levels {
            let (Some(m), Some(u)) = (l.m, l.u) else {
                assert_eq!(l.weight, 0.0, "the null level weighs 0");
                continue;
            };
            assert_eq!(
                l.weight.to_bits(),
                (clamp_probability(m) / clamp_probability(u))
                    .log2()
                    .to_bits(),
                "{} {}",
                c.column,
                l.level
            );
            assert!(
                l.weight.abs() <= bound + 1e-12,
                "{} {}: {}",
                c.column,
                l.level,
                l.weight
            );
            assert!((PROBABILITY_FLOOR..=1.0 - PROBABILITY_FLOOR).contains(&u));
        }
    }
    let area_else = &r.model.comparisons[3].levels[2];
    assert_eq!(area_else.level, "else");
    assert!(area_else.m.unwrap() >= PROBABILITY_FLOOR);
    assert!(area_else.weight >= -bound, "{}", area_else.weight);
}

/// Fixed m and u give exactly `log2(m / u)`; a model whose best pair stays below the threshold
/// says so, with the numbers.
#[test]
fn a_threshold_no_pair_can_reach_is_reported_at_training_time() {
    let (a, b) = files(9, 300);
    let spec = LinkageSpec::from_toml(
        r#"
blocking = [["area"]]
[[comparison]]
column = "area"
levels = [{ kind = "null" }, { kind = "exact", m = 0.6, u = 0.5 }, { kind = "else", m = 0.4, u = 0.5 }]
"#,
        "weak.toml",
    )
    .unwrap();
    let mut p = FsParams::default();
    p.spec = Some(spec);
    p.u_sample = 2_000;
    let keys = KeyMap::same(&["area"]).unwrap();
    let r = FellegiSunter::new(p)
        .unwrap()
        .run(&Knowledge::new(&a.table, keys).unwrap(), &b.table, 1)
        .unwrap();
    let lv = &r.model.comparisons[0].levels;
    assert_eq!(lv[1].weight, (0.6f64 / 0.5).log2());
    assert_eq!(lv[2].weight, (0.4f64 / 0.5).log2());
    assert_eq!(r.model.links, 0);
    assert_eq!(r.model.warnings.len(), 1, "{:?}", r.model.warnings);
    let w = &r.model.warnings[0];
    let best = r.model.prior_weight + lv[1].weight;
    assert!(w.contains("no pair can be declared"), "{w}");
    assert!(w.contains(&format!("{best:+.3}")), "{w}");
    assert!(
        w.contains(&format!("{:+.3}", r.model.threshold_weight)),
        "{w}"
    );
    assert!(
        r.model
            .to_table()
            .contains("warning: no pair can be declared")
    );
    // A model that can reach the threshold says nothing.
    let ok = run(&self::spec(0), &a.table, &b.table, 1, Assignment::Greedy);
    assert!(ok.model.warnings.is_empty(), "{:?}", ok.model.warnings);
    assert!(ok.model.links > 0);
}

#[test]
fn columns_reversed_level_catches_swapped_names() {
    let a = load(
        "pid,first,last,year,area\n1,anna,smith,1970,1\n2,bob,jones,1980,2\n3,carl,brown,1990,1\n",
        "a.csv",
    );
    let b = load(
        "pid,first,last,year,area\n1,smith,anna,1970,1\n2,bob,jones,1980,2\n3,carl,,1990,1\n",
        "b.csv",
    );
    let spec = LinkageSpec::from_toml(
        r#"
blocking = [["year"]]
[[comparison]]
column = "first"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "columns-reversed", column = "last" }, { kind = "else" }]
[[comparison]]
column = "last"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "columns-reversed", column = "first" }, { kind = "else" }]
"#,
        "swap.toml",
    )
    .unwrap();
    let r = run(&spec, &a.table, &b.table, 1, Assignment::Greedy);
    let levels = |i: usize, j: usize| -> Vec<String> {
        r.explain_pair(i, j)
            .unwrap()
            .steps
            .iter()
            .map(|s| s.level.clone())
            .collect()
    };
    assert_eq!(
        levels(0, 0),
        ["columns reversed with last", "columns reversed with first"]
    );
    assert_eq!(levels(1, 1), ["exact", "exact"]);
    // A missing value is not a swap.
    assert_eq!(levels(2, 2), ["exact", "null"]);
    let p: Vec<_> = r
        .pairs()
        .map(|p| (p.intruder, r.pattern_levels(p.pattern).to_vec()))
        .collect();
    assert!(p.contains(&(0, vec![2, 2])));

    // The level names another column, and takes no threshold.
    for (bad, want) in [
        (r#"{ kind = "columns-reversed" }"#, "column: missing"),
        (
            r#"{ kind = "columns-reversed", column = "first" }"#,
            "must be another column",
        ),
        (
            r#"{ kind = "columns-reversed", column = "last", threshold = 1 }"#,
            "takes no threshold",
        ),
        (r#"{ kind = "exact", column = "last" }"#, "takes no column"),
    ] {
        let text = format!(
            "blocking = [[\"year\"]]\n[[comparison]]\ncolumn = \"first\"\nlevels = [{{ kind = \"null\" }}, {bad}, {{ kind = \"else\" }}]\n"
        );
        let e = LinkageSpec::from_toml(&text, "bad.toml").unwrap_err();
        assert!(e.to_string().contains(want), "{bad}: {e}");
    }
}

/// With `u_sample` at or above `n_I × n_R` every pair is compared once: u is the exact share
/// of each level over the cross product (a level never seen counts 1, as for a sample), the
/// same whatever the seed, and the notes say so. A sample below the cross product stays a
/// sample; a `u_sample` above both the cross product and the default is refused up front.
#[test]
fn u_from_every_pair_when_the_sample_would_exceed_the_pairs() {
    use intruder_attack::fellegi_sunter::{DEFAULT_U_SAMPLE, UPlan};
    let (a, b) = files(21, 30);
    let (ni, nr) = (a.table.nrows(), b.table.nrows());
    assert_eq!((ni, nr), (30, 30));
    let s = spec(1);
    let every = |seed: u64, u_sample: usize| {
        let mut p = FsParams::default();
        p.spec = Some(s.clone());
        p.u_sample = u_sample;
        FellegiSunter::new(p)
            .unwrap()
            .run(&Knowledge::new(&a.table, keys()).unwrap(), &b.table, seed)
            .unwrap()
    };
    let r1 = every(1, ni * nr);
    let r2 = every(99, DEFAULT_U_SAMPLE);
    assert!(r1.model.u_every_pair && r2.model.u_every_pair);
    assert_eq!((r1.model.u_pairs, r2.model.u_pairs), (900, 900));
    let note = |r: &FsRun, n: &str| {
        r.linkage
            .notes
            .iter()
            .find(|x| x.0 == n)
            .map(|x| x.1)
            .unwrap()
    };
    assert_eq!(note(&r1, "u_pairs"), 900.0);
    assert_eq!(note(&r1, "u_every_pair"), 1.0);
    for (c, cmp) in s.comparisons.iter().enumerate() {
        let mut count = vec![0u64; cmp.levels.len()];
        for i in 0..ni {
            for j in 0..nr {
                count[level(&s, c, &a.table, &b.table, i, j) as usize] += 1;
            }
        }
        let null = cmp
            .levels
            .iter()
            .position(|l| matches!(l.kind, LevelKind::Null));
        let free: Vec<usize> = (0..count.len()).filter(|&l| Some(l) != null).collect();
        let tot: f64 = free.iter().map(|&l| (count[l] as f64).max(1.0)).sum();
        for &l in &free {
            let want = clamp_probability((count[l] as f64).max(1.0) / tot);
            let (u1, u2) = (
                r1.model.comparisons[c].levels[l].u.unwrap(),
                r2.model.comparisons[c].levels[l].u.unwrap(),
            );
            assert_eq!(u1.to_bits(), want.to_bits(), "{} level {l}", cmp.column);
            assert_eq!(u2.to_bits(), want.to_bits(), "{} level {l}", cmp.column);
        }
    }
    // One pair fewer than the cross product: a sample, seeded.
    let r3 = every(1, ni * nr - 1);
    assert!(!r3.model.u_every_pair);
    assert_eq!(r3.model.u_pairs, 899);
    assert_eq!(note(&r3, "u_every_pair"), 0.0);

    assert_eq!(
        UPlan::new(10, 2, 5).unwrap(),
        UPlan {
            pairs: 10,
            every_pair: true
        }
    );
    assert_eq!(
        UPlan::new(9, 2, 5).unwrap(),
        UPlan {
            pairs: 9,
            every_pair: false
        }
    );
    assert!(UPlan::new(DEFAULT_U_SAMPLE, 2, 5).unwrap().every_pair);
    let e = UPlan::new(DEFAULT_U_SAMPLE + 1, 2, 5)
        .unwrap_err()
        .to_string();
    for want in [
        "u_sample: 1000001 random pairs requested",
        "10 possible pairs (2 intruder × 5 released records)",
        "at most 1000000 are accepted",
        "GB",
    ] {
        assert!(e.contains(want), "{want:?} in {e}");
    }
    // Large files: the sample may go up to the pairs, and never beyond MAX_U_SAMPLE.
    assert_eq!(UPlan::new(5_000_000, 3000, 3000).unwrap().pairs, 5_000_000);
    assert!(UPlan::new(9_000_001, 3000, 3000).is_err());
    let mut p = FsParams::default();
    p.u_sample = 1_000_000_000;
    let e = FellegiSunter::new(p)
        .unwrap()
        .run(&Knowledge::new(&a.table, keys()).unwrap(), &b.table, 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("at most 1000000") && e.contains("8.0 GB"), "{e}");
}
