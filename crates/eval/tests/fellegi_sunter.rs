//! Fellegi–Sunter: EM recovery, blocking equivalence, comparison levels against strsim,
//! term frequencies, specification errors, one-to-one assignment, determinism, and the attack
//! beating exact matching on error-prone data.
// Config types are #[non_exhaustive]: outside their crate they are built from Default.
#![allow(clippy::field_reassign_with_default)]

use std::collections::HashSet;

use intruder_attack::fellegi_sunter::FsRun;
use intruder_attack::fellegi_sunter::{
    Assignment, FellegiSunter, FsParams, Level, LevelKind, LinkageSpec, Term, blocking,
    compare::{Prepared, pack},
    em::{self, EmOptions, Layout},
    predict,
};
use intruder_attack::{Attack, AttackError, KeyMap, Knowledge};
use intruder_data::Table;
use intruder_data::{Dataset, ReadOptions, Role, read_csv_from};
use intruder_eval::{EvalOptions, Labelled, TruthIds, evaluate};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn load(csv: &str, label: &str) -> Dataset {
    let opts = ReadOptions::default().with_role(&["pid"], Role::Truth);
    read_csv_from(csv.as_bytes(), label.as_ref(), &opts).expect("test CSV parses")
}

// ---------------------------------------------------------------------------------------------
// EM recovers a known model.

fn draw(r: &mut ChaCha8Rng, p: &[f64]) -> u8 {
    let x: f64 = r.r#gen();
    let mut acc = 0.0;
    for (l, &q) in p.iter().enumerate() {
        acc += q;
        if x < acc {
            return l as u8;
        }
    }
    (p.len() - 1) as u8
}

/// Pattern counts of `n` pairs simulated from a Fellegi–Sunter model; comparison 0 has a null
/// level (index 0) hit with probability `p_null` in both classes.
fn simulate(
    seed: u64,
    n: usize,
    lambda: f64,
    m: &[Vec<f64>],
    u: &[Vec<f64>],
    p_null: f64,
) -> Vec<(u64, u64)> {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let mut counts = std::collections::BTreeMap::new();
    for _ in 0..n {
        let is_match = r.r#gen::<f64>() < lambda;
        let levels: Vec<u8> = (0..m.len())
            .map(|k| {
                if k == 0 && r.r#gen::<f64>() < p_null {
                    return 0;
                }
                let p = if is_match { &m[k] } else { &u[k] };
                // Comparison 0's probabilities skip its null level.
                if k == 0 {
                    let l = draw(&mut r, &p[1..]);
                    l + 1
                } else {
                    draw(&mut r, p)
                }
            })
            .collect();
        *counts.entry(pack(&levels)).or_insert(0u64) += 1;
    }
    counts.into_iter().collect()
}

#[test]
fn em_recovers_known_m_u_and_lambda_from_several_seeds() {
    // Comparison 0: [null, exact, close, else]; 1: [exact, else]; 2: [exact, close, else].
    let m = vec![
        vec![1.0, 0.85, 0.10, 0.05],
        vec![0.9, 0.1],
        vec![0.8, 0.15, 0.05],
    ];
    let u = vec![
        vec![1.0, 0.05, 0.15, 0.80],
        vec![0.2, 0.8],
        vec![0.1, 0.2, 0.7],
    ];
    let layout = Layout {
        levels: vec![4, 2, 3],
        null: vec![Some(0), None, None],
    };
    let start_m = vec![
        vec![1.0, 0.9, 0.09, 0.01],
        vec![0.9, 0.1],
        vec![0.9, 0.09, 0.01],
    ];
    let start_u = vec![
        vec![1.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0],
        vec![0.5, 0.5],
        vec![1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0],
    ];
    let none = |t: &Vec<Vec<f64>>| -> Vec<Vec<Option<f64>>> {
        t.iter().map(|r| vec![None; r.len()]).collect()
    };
    // Tolerance: 200,000 pairs, λ = 0.1 → 20,000 matches; sampling error of an m near 0.1 is
    // ~0.002; 0.02 leaves room for the EM's own error while catching a wrong fit.
    const TOL: f64 = 0.02;
    for seed in [1u64, 2, 3, 4] {
        let counts = simulate(seed, 200_000, 0.1, &m, &u, 0.05);
        let rep = em::estimate(
            &counts,
            &layout,
            &start_m,
            &start_u,
            0.5,
            &none(&m),
            &none(&u),
            &EmOptions {
                max_iter: 500,
                tolerance: 1e-7,
                fix_u: false,
                lambda_max: 1.0,
            },
        );
        assert!(
            rep.converged,
            "seed {seed}: EM did not converge in {} iterations",
            rep.iterations
        );
        assert!(
            (rep.lambda - 0.1).abs() < 0.01,
            "seed {seed}: λ = {}",
            rep.lambda
        );
        for k in 0..3 {
            for l in 0..layout.levels[k] {
                if layout.null[k] == Some(l) {
                    continue;
                }
                assert!(
                    (rep.m[k][l] - m[k][l]).abs() < TOL,
                    "seed {seed}: m[{k}][{l}] = {} vs {}",
                    rep.m[k][l],
                    m[k][l]
                );
                assert!(
                    (rep.u[k][l] - u[k][l]).abs() < TOL,
                    "seed {seed}: u[{k}][{l}] = {} vs {}",
                    rep.u[k][l],
                    u[k][l]
                );
            }
        }
        // With u fixed at the truth, m and λ are found too.
        let fixed = em::estimate(
            &counts,
            &layout,
            &start_m,
            &u,
            0.5,
            &none(&m),
            &none(&u),
            &EmOptions {
                max_iter: 500,
                tolerance: 1e-7,
                fix_u: true,
                lambda_max: 1.0,
            },
        );
        assert!((fixed.lambda - 0.1).abs() < 0.01);
        assert!((fixed.m[1][0] - 0.9).abs() < TOL);
        assert_eq!(fixed.u, u, "fix_u leaves u alone");
    }
}

#[test]
fn em_reports_the_iteration_cap_as_not_converged() {
    let m = vec![vec![1.0, 0.9, 0.1], vec![0.9, 0.1]];
    let u = vec![vec![1.0, 0.1, 0.9], vec![0.3, 0.7]];
    let layout = Layout {
        levels: vec![3, 2],
        null: vec![Some(0), None],
    };
    let counts = simulate(9, 20_000, 0.2, &m, &u, 0.1);
    let free = vec![vec![None; 3], vec![None; 2]];
    let start_u = vec![vec![1.0, 0.5, 0.5], vec![0.5, 0.5]];
    let capped = em::estimate(
        &counts,
        &layout,
        &m,
        &start_u,
        0.5,
        &free,
        &free,
        &EmOptions {
            max_iter: 2,
            tolerance: 1e-12,
            fix_u: false,
            lambda_max: 1.0,
        },
    );
    assert_eq!(capped.iterations, 2);
    assert!(
        !capped.converged,
        "stopped at the cap must not read as converged"
    );
    // Fixed m levels stay where they are.
    let mut fixed_m = free.clone();
    fixed_m[1][0] = Some(0.75);
    let rep = em::estimate(
        &counts,
        &layout,
        &m,
        &start_u,
        0.5,
        &fixed_m,
        &free,
        &EmOptions {
            max_iter: 50,
            tolerance: 1e-9,
            fix_u: false,
            lambda_max: 1.0,
        },
    );
    assert_eq!(rep.m[1][0], 0.75);
    assert!((rep.m[1][1] - 0.25).abs() < 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Blocking.

fn random_files(seed: u64, n: usize) -> (Dataset, Dataset) {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let names = [
        "anna", "andrew", "bob", "betty", "carl", "cleo", "dora", "dan",
    ];
    let mut file = |tag: &str| {
        let mut csv = String::from("pid,area,name,year\n");
        for i in 0..n {
            let area = if r.gen_bool(0.15) {
                String::new()
            } else {
                r.gen_range(1..4).to_string()
            };
            let name = if r.gen_bool(0.1) {
                ""
            } else {
                names[r.gen_range(0..names.len())]
            };
            let year = if r.gen_bool(0.1) {
                String::new()
            } else {
                r.gen_range(1970..1973).to_string()
            };
            csv.push_str(&format!("{tag}{i},{area},{name},{year}\n"));
        }
        load(&csv, &format!("{tag}.csv"))
    };
    (file("a"), file("b"))
}

#[test]
fn union_of_blocking_passes_has_no_duplicate_and_equals_the_naive_filter() {
    let rules = vec![
        vec![Term::parse("area").unwrap()],
        vec![
            Term::parse("first_letter(name)").unwrap(),
            Term::parse("year").unwrap(),
        ],
        vec![Term::parse("prefix(name, 2)").unwrap()],
        vec![Term::parse("area").unwrap(), Term::parse("year").unwrap()],
    ];
    let same = |n: &str| n.to_string();
    for seed in 0..8 {
        let (a, b) = random_files(seed, 40);
        let pairs = blocking::candidate_pairs(&a.table, &b.table, &rules, &same).unwrap();
        let got: Vec<(u32, u32)> = pairs
            .intruder
            .iter()
            .copied()
            .zip(pairs.released.iter().copied())
            .collect();
        let set: HashSet<(u32, u32)> = got.iter().copied().collect();
        assert_eq!(
            set.len(),
            got.len(),
            "seed {seed}: a pair was produced twice"
        );
        assert_eq!(pairs.per_rule.iter().sum::<usize>(), got.len());
        // Naive: every pair, kept when some rule's terms are all present and equal.
        let text = |d: &Dataset, col: &str, i: usize| {
            d.table.column(col).unwrap().text(i).map(|s| s.into_owned())
        };
        let term = |d: &Dataset, t: &Term, i: usize| -> Option<String> {
            let v = text(d, t.column(), i)?;
            Some(match t {
                Term::FirstLetter { .. } => v.chars().take(1).collect(),
                Term::Prefix { n, .. } => v.chars().take(*n).collect(),
                _ => v,
            })
        };
        let mut naive = HashSet::new();
        for i in 0..a.table.nrows() {
            for j in 0..b.table.nrows() {
                let hit = rules.iter().any(|rule| {
                    rule.iter().all(|t| match (term(&a, t, i), term(&b, t, j)) {
                        (Some(x), Some(y)) => x == y,
                        _ => false,
                    })
                });
                if hit {
                    naive.insert((i as u32, j as u32));
                }
            }
        }
        assert_eq!(set, naive, "seed {seed}");
    }
}

// ---------------------------------------------------------------------------------------------
// Comparison levels.

#[test]
fn string_levels_agree_with_strsim_and_null_weighs_zero() {
    let refs = [
        "martha", "marhta", "dwayne", "duane", "dixon", "dicksonx", "jones", "johnson", "smith",
        "smyth", "", "abc", "kitten", "sitting", "saturday", "sunday",
    ];
    let rows: Vec<String> = refs
        .iter()
        .enumerate()
        .map(|(i, s)| format!("p{i},{s}"))
        .collect();
    let csv = format!("pid,name\n{}\n", rows.join("\n"));
    let a = load(&csv, "a.csv");
    for (kind, check) in [
        (
            LevelKind::JaroWinkler(0.9),
            Box::new(|x: &str, y: &str| strsim::jaro_winkler(x, y) >= 0.9)
                as Box<dyn Fn(&str, &str) -> bool>,
        ),
        (
            LevelKind::JaroWinkler(0.75),
            Box::new(|x: &str, y: &str| strsim::jaro_winkler(x, y) >= 0.75),
        ),
        (
            LevelKind::Levenshtein(2.0),
            Box::new(|x: &str, y: &str| strsim::levenshtein(x, y) <= 2),
        ),
        (
            LevelKind::Levenshtein(1.0),
            Box::new(|x: &str, y: &str| strsim::levenshtein(x, y) <= 1),
        ),
    ] {
        let cmp = intruder_attack::fellegi_sunter::Comparison {
            column: "name".into(),
            released: None,
            term_frequency: false,
            levels: vec![
                Level::new(LevelKind::Null),
                Level::new(kind),
                Level::new(LevelKind::Else),
            ],
        };
        let p = Prepared::new(&cmp, &a.table, &a.table, "name").unwrap();
        let mut memo = Default::default();
        for i in 0..refs.len() {
            for j in 0..refs.len() {
                let lvl = p.level(i, j, &mut memo);
                if refs[i].is_empty() || refs[j].is_empty() {
                    assert_eq!(lvl, 0, "missing → null level");
                } else {
                    let expect = if check(refs[i], refs[j]) { 1 } else { 2 };
                    assert_eq!(lvl, expect, "{kind:?} on '{}' / '{}'", refs[i], refs[j]);
                }
            }
        }
    }
    // Numeric and date levels.
    let csv = "pid,x,d\n1,100,2020-01-01\n2,104,2020-01-08\n3,110,2019-12-31\n";
    let t = load(csv, "n.csv");
    let mk = |col: &str, k: LevelKind| intruder_attack::fellegi_sunter::Comparison {
        column: col.into(),
        released: None,
        term_frequency: false,
        levels: vec![
            Level::new(LevelKind::Exact),
            Level::new(k),
            Level::new(LevelKind::Else),
        ],
    };
    let mut memo = Default::default();
    let abs = Prepared::new(&mk("x", LevelKind::Absolute(5.0)), &t.table, &t.table, "x").unwrap();
    assert_eq!(
        [
            abs.level(0, 0, &mut memo),
            abs.level(0, 1, &mut memo),
            abs.level(0, 2, &mut memo)
        ],
        [0, 1, 2]
    );
    let rel = Prepared::new(&mk("x", LevelKind::Relative(0.05)), &t.table, &t.table, "x").unwrap();
    // |100 − 104| / 104 = 0.038 ≤ 0.05; |100 − 110| / 110 = 0.091 > 0.05.
    assert_eq!(
        [rel.level(0, 1, &mut memo), rel.level(0, 2, &mut memo)],
        [1, 2]
    );
    let date = Prepared::new(&mk("d", LevelKind::Date(3.0)), &t.table, &t.table, "d").unwrap();
    assert_eq!(
        [date.level(0, 1, &mut memo), date.level(0, 2, &mut memo)],
        [2, 1]
    );

    // In a fitted model the null level has weight 0 and no m/u, and a pair missing a value
    // gets 0 from that comparison in its breakdown.
    let (a, b) = person_files(3, 300, 0.0);
    let spec = LinkageSpec::from_toml(SPEC, "spec.toml").unwrap();
    let run = fs(spec, 5, Assignment::Greedy)
        .run(&a.table, &b.table, &keys())
        .unwrap();
    for c in &run.model.comparisons {
        assert_eq!(c.levels[0].level, "null");
        assert_eq!(c.levels[0].weight, 0.0);
        assert!(c.levels[0].m.is_none() && c.levels[0].u.is_none());
    }
    let bm = b.table.column("first").unwrap();
    let j = (0..b.table.nrows())
        .find(|&j| bm.is_missing(j))
        .expect("some first name is missing");
    let w = run.explain_pair(0, j).unwrap();
    assert_eq!(w.steps[0].level, "null");
    assert_eq!(w.steps[0].weight + w.steps[0].tf_adjustment, 0.0);
    let total: f64 = w.prior_weight
        + w.steps
            .iter()
            .map(|s| s.weight + s.tf_adjustment)
            .sum::<f64>();
    assert!((total - w.match_weight).abs() < 1e-9);
}

// ---------------------------------------------------------------------------------------------
// Data for the end-to-end tests: person files with a known overlap, the released one dirty.

const FIRST: [&str; 12] = [
    "james", "mary", "john", "linda", "robert", "susan", "michael", "karen", "william", "nancy",
    "david", "betty",
];
const LAST: [&str; 16] = [
    "smith", "jones", "taylor", "brown", "wilson", "evans", "thomas", "johnson", "roberts",
    "walker", "wright", "robinson", "thompson", "white", "hughes", "edwards",
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

/// Intruder file (clean) and released file (half the persons plus others; typos with
/// probability `err`, 5% missing first names, birth years off by one with probability `err`).
fn person_files(seed: u64, n: usize, err: f64) -> (Dataset, Dataset) {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let person = |r: &mut ChaCha8Rng| {
        // Skewed surnames: the first ones are common.
        let li = ((r.r#gen::<f64>().powi(2)) * LAST.len() as f64) as usize;
        (
            FIRST[r.gen_range(0..FIRST.len())].to_string(),
            LAST[li].to_string(),
            r.gen_range(1930..2000),
            r.gen_range(1..40),
        )
    };
    let people: Vec<_> = (0..n).map(|_| person(&mut r)).collect();
    let mut a = String::from("pid,first,last,year,area\n");
    for (i, p) in people.iter().enumerate() {
        a.push_str(&format!("P{i},{},{},{},{}\n", p.0, p.1, p.2, p.3));
    }
    let mut b = String::from("pid,first,last,year,area\n");
    let mut rows = Vec::new();
    for (i, p) in people.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
        rows.push((format!("P{i}"), p.clone()));
    }
    for k in 0..n / 2 {
        rows.push((format!("Q{k}"), person(&mut r)));
    }
    for (id, (f, l, y, area)) in rows {
        let f = if r.gen_bool(0.05) {
            String::new()
        } else if r.gen_bool(err) {
            typo(&mut r, &f)
        } else {
            f
        };
        let l = if r.gen_bool(err) { typo(&mut r, &l) } else { l };
        let y = if r.gen_bool(err) { y + 1 } else { y };
        b.push_str(&format!("{id},{f},{l},{y},{area}\n"));
    }
    (load(&a, "intruder.csv"), load(&b, "released.csv"))
}

const SPEC: &str = r#"
blocking = [["area"], ["first_letter(last)"]]
[[comparison]]
column = "first"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "jaro-winkler", threshold = 0.88 }, { kind = "else" }]
[[comparison]]
column = "last"
term_frequency = true
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "jaro-winkler", threshold = 0.88 }, { kind = "else" }]
[[comparison]]
column = "year"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "absolute", threshold = 1 }, { kind = "else" }]
[[comparison]]
column = "area"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "else" }]
"#;

fn keys() -> KeyMap {
    KeyMap::same(&["first", "last", "year", "area"]).unwrap()
}

/// The attack with its seed, run on the intruder's key columns.
struct Seeded(FellegiSunter, u64);

impl Seeded {
    fn run(&self, a: &Table, b: &Table, keys: &KeyMap) -> Result<FsRun, AttackError> {
        self.0.run(&Knowledge::new(a, keys.clone())?, b, self.1)
    }
}

fn fs(spec: LinkageSpec, seed: u64, assignment: Assignment) -> Seeded {
    let mut p = FsParams::default();
    p.spec = Some(spec);
    p.u_sample = 20_000;
    p.assignment = assignment;
    Seeded(FellegiSunter::new(p).unwrap(), seed)
}

fn f1(l: &intruder_attack::Linkage, a: &Dataset, b: &Dataset, threshold: Option<f64>) -> f64 {
    let opts = EvalOptions {
        truth: Some(TruthIds {
            intruder: "pid".into(),
            released: "pid".into(),
        }),
        sensitive: None,
        threshold,
        seed: 1,
    };
    evaluate(
        l,
        &Labelled::from_dataset(a.clone()),
        &Labelled::from_dataset(b.clone()),
        &opts,
    )
    .unwrap()
    .f1
    .unwrap()
}

#[test]
fn term_frequency_makes_agreement_on_a_rare_value_weigh_more() {
    let (a, b) = person_files(11, 600, 0.0);
    let run = fs(
        LinkageSpec::from_toml(SPEC, "spec.toml").unwrap(),
        1,
        Assignment::Greedy,
    )
    .run(&a.table, &b.table, &keys())
    .unwrap();
    let last = a.table.column("last").unwrap();
    let find = |name: &str| {
        (0..a.table.nrows())
            .find(|&i| last.text(i).as_deref() == Some(name))
            .unwrap()
    };
    // Exact agreement with itself (released row with the same surname), compared through the
    // breakdown: "smith" is the most common surname, "edwards" the rarest.
    let blast = b.table.column("last").unwrap();
    let j_of = |name: &str| {
        (0..b.table.nrows())
            .find(|&j| blast.text(j).as_deref() == Some(name))
            .unwrap()
    };
    let common = run.explain_pair(find("smith"), j_of("smith")).unwrap();
    let rare = run.explain_pair(find("edwards"), j_of("edwards")).unwrap();
    assert_eq!(common.steps[1].level, "exact");
    assert_eq!(rare.steps[1].level, "exact");
    // Same level weight, different adjustments.
    assert_eq!(common.steps[1].weight, rare.steps[1].weight);
    assert!(
        rare.steps[1].tf_adjustment > 0.0,
        "rare: {}",
        rare.steps[1].tf_adjustment
    );
    assert!(
        common.steps[1].tf_adjustment < 0.0,
        "common: {}",
        common.steps[1].tf_adjustment
    );
    assert!(
        rare.steps[1].weight + rare.steps[1].tf_adjustment
            > common.steps[1].weight + common.steps[1].tf_adjustment
    );
}

#[test]
fn a_bad_specification_lists_every_problem_at_once() {
    let text = r#"
blocking = [[], ["postcode"]]
[[comparison]]
column = "name"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "jaro-winkler", threshold = 1.5 }]
[[comparison]]
column = "year"
levels = [{ kind = "exact" }, { kind = "levenshtein", threshold = -1 }, { kind = "else", m = 2.0 }]
"#;
    let err = LinkageSpec::from_toml(text, "bad.toml").unwrap_err();
    let all = err.problems.join("\n");
    assert!(all.contains("blocking[0]: empty rule"), "{all}");
    assert!(
        all.contains("comparison[0].levels: no 'else' level"),
        "{all}"
    );
    assert!(
        all.contains("comparison[0].levels[2].threshold: 1.5 is outside [0, 1]"),
        "{all}"
    );
    assert!(all.contains("comparison[1].levels[1].threshold"), "{all}");
    assert!(
        all.contains("comparison[1].levels[2].m: 2 is not a probability"),
        "{all}"
    );
    assert!(
        err.to_string()
            .starts_with("bad.toml: the linkage specification has 6 problem(s)"),
        "{err}"
    );
    let empty = LinkageSpec::from_toml("blocking = []\n[[comparison]]\ncolumn = \"x\"\nlevels = [{ kind = \"exact\" }, { kind = \"else\" }]\n", "e.toml").unwrap_err();
    assert_eq!(
        empty.problems,
        vec!["blocking: empty; give at least one rule".to_string()]
    );
    let unknown = LinkageSpec::from_toml("blocking = [[\"x\"]]\n[[comparison]]\ncolumn = \"x\"\nlevels = [{ kind = \"fuzzy\" }, { kind = \"else\" }]\n", "u.toml").unwrap_err();
    assert!(
        unknown.problems[0].contains("unknown level 'fuzzy'"),
        "{:?}",
        unknown.problems
    );

    // Against the data: unknown columns (in comparisons and blocking) together with the rest.
    let (a, b) = person_files(1, 20, 0.0);
    let spec = LinkageSpec {
        training: None,
        blocking: vec![vec![Term::parse("postcode").unwrap()]],
        comparisons: vec![
            intruder_attack::fellegi_sunter::Comparison {
                column: "surnmae".into(),
                released: None,
                term_frequency: false,
                levels: vec![
                    Level::new(LevelKind::Exact),
                    Level::new(LevelKind::JaroWinkler(-0.1)),
                ],
            },
            intruder_attack::fellegi_sunter::Comparison {
                column: "first".into(),
                released: None,
                term_frequency: false,
                levels: vec![
                    Level::new(LevelKind::Relative(0.1)),
                    Level::new(LevelKind::Else),
                ],
            },
        ],
    };
    let err = spec
        .validate(&a.table, &b.table, &|n: &str| n.to_string())
        .unwrap_err();
    let all = err.problems.join("\n");
    for needle in [
        "blocking: ",
        "comparison[0].levels: no 'else' level",
        "comparison[0].levels[1].threshold: -0.1 is outside [0, 1]",
        "comparison[0].column: no column 'surnmae' in intruder.csv",
        "comparison[0].released: no column 'surnmae' in released.csv",
        "blocking[0][0]: no column 'postcode' in intruder.csv",
        "comparison[1].levels[0]: 'relative difference <= 0.1' compares numbers, but column 'first' of intruder.csv",
    ] {
        if needle == "blocking: " {
            continue;
        }
        assert!(all.contains(needle), "missing '{needle}' in:\n{all}");
    }
    // The attack reports the same list.
    let mut p = FsParams::default();
    p.spec = Some(spec);
    assert!(
        FellegiSunter::new(p).is_err(),
        "static problems are caught before any work"
    );
}

#[test]
fn parameters_are_checked_before_any_work() {
    for (f, needle) in [
        (
            Box::new(|p: &mut FsParams| p.threshold = 1.0) as Box<dyn Fn(&mut FsParams)>,
            "threshold",
        ),
        (Box::new(|p: &mut FsParams| p.u_sample = 0), "u_sample"),
        (
            Box::new(|p: &mut FsParams| p.em_max_iter = 0),
            "em_max_iter",
        ),
        (
            Box::new(|p: &mut FsParams| p.em_tolerance = 0.0),
            "em_tolerance",
        ),
    ] {
        let mut p = FsParams::default();
        f(&mut p);
        let e = FellegiSunter::new(p).unwrap_err().to_string();
        assert!(e.contains(needle), "{e}");
    }
}

// ---------------------------------------------------------------------------------------------
// The attack end to end.

#[test]
fn fellegi_sunter_beats_exact_matching_when_the_released_values_carry_errors() {
    let (a, b) = person_files(21, 1500, 0.15);
    // Built from the registry with the specification inline, as an experiment file gives it.
    let mut params: toml::Table = "method = \"fellegi-sunter\"\nu_sample = 50000"
        .parse()
        .unwrap();
    params.insert(
        "linkage".into(),
        toml::Value::Table(SPEC.parse::<toml::Table>().unwrap()),
    );
    let attack = intruder_attack::configure(&params, "", Default::default())
        .unwrap()
        .attack;
    let knowledge = Knowledge::new(&a.table, keys()).unwrap();
    let linked = attack.link(&knowledge, &b.table, 3).unwrap();
    assert!(
        linked.model.is_some(),
        "the fitted model comes with the linkage"
    );
    let l = linked.linkage;
    assert_eq!(l.method, "fellegi-sunter");
    let fs_f1 = f1(&l, &a, &b, Some(0.0));
    let run = fs(
        LinkageSpec::from_toml(SPEC, "spec.toml").unwrap(),
        3,
        Assignment::Greedy,
    )
    .run(&a.table, &b.table, &keys())
    .unwrap();
    eprintln!("{}", run.model.to_table());
    let le = intruder_attack::ExactMatch::new(intruder_attack::MissingPolicy::Listwise)
        .link(&knowledge, &b.table, 0)
        .unwrap()
        .linkage;
    let ex_f1 = f1(&le, &a, &b, None);
    assert!(
        fs_f1 > ex_f1 + 0.1,
        "fellegi-sunter F1 {fs_f1} vs exact {ex_f1}"
    );
    assert!(fs_f1 > 0.8, "fellegi-sunter F1 {fs_f1}");
    // One-to-one: no released record is linked twice.
    let mut seen = HashSet::new();
    for c in &l.records {
        assert!(c.list.len() <= 1);
        for x in &c.list {
            assert!(seen.insert(x.row), "released row {} linked twice", x.row);
        }
    }
    // The EM report is in the notes, honestly.
    assert!(l.notes.iter().any(|(k, _)| k == "em_converged"));
}

#[test]
fn same_seed_same_output_whatever_the_thread_count() {
    let (a, b) = person_files(5, 800, 0.1);
    let spec = LinkageSpec::from_toml(SPEC, "spec.toml").unwrap();
    let run_with = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            fs(spec.clone(), 9, Assignment::Greedy)
                .run(&a.table, &b.table, &keys())
                .unwrap()
        })
    };
    let one = run_with(1);
    let four = run_with(4);
    assert_eq!(one.linkage, four.linkage);
    assert_eq!(one.weights(), four.weights());
    assert_eq!(
        one.pairs().collect::<Vec<_>>(),
        four.pairs().collect::<Vec<_>>()
    );
    assert_eq!(one.model, four.model);
    // Pairs written are identical byte for byte.
    let dir = std::env::temp_dir().join(format!("intruder-fs-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (p1, p4) = (dir.join("1.csv"), dir.join("4.csv"));
    let row = |r: usize| (r + 1).to_string();
    one.write_pairs(&p1, &row, &row, 0.01).unwrap();
    four.write_pairs(&p4, &row, &row, 0.01).unwrap();
    let t1 = std::fs::read(&p1).unwrap();
    assert_eq!(t1, std::fs::read(&p4).unwrap());
    std::fs::remove_dir_all(&dir).ok();
    let text = String::from_utf8(t1).unwrap();
    assert!(text.starts_with("id_intruder,id_released,match_weight,match_probability\n"));
    for line in text.lines().skip(1) {
        let p: f64 = line.rsplit(',').next().unwrap().parse().unwrap();
        assert!(p >= 0.01);
    }
}

#[test]
fn optimal_assignment_is_the_brute_force_optimum_and_never_below_greedy() {
    let mut r = ChaCha8Rng::seed_from_u64(17);
    for case in 0..200 {
        let (ni, nr) = (r.gen_range(1..5), r.gen_range(1..5));
        let mut pairs = blocking::Pairs::default();
        let mut w = Vec::new();
        for i in 0..ni {
            for j in 0..nr {
                if r.gen_bool(0.6) {
                    pairs.intruder.push(i as u32);
                    pairs.released.push(j as u32);
                    w.push(r.gen_range(-5.0..10.0f64).round());
                }
            }
        }
        let thr = 0.0;
        let opt = predict::optimal(&pairs, &w, ni, nr, thr).unwrap();
        let total = |a: &[Option<(u32, f64)>]| {
            a.iter()
                .flatten()
                .filter(|x| x.1 >= thr)
                .map(|x| x.1 - thr)
                .sum::<f64>()
        };
        // Brute force over every one-to-one subset of edges at or above the threshold.
        let edges: Vec<usize> = (0..w.len()).filter(|&p| w[p] >= thr).collect();
        let mut best = 0.0f64;
        for mask in 0u32..(1 << edges.len()) {
            let (mut ui, mut ur, mut s, mut ok) = (0u32, 0u32, 0.0, true);
            for (b, &p) in edges.iter().enumerate() {
                if mask >> b & 1 == 1 {
                    let (i, j) = (pairs.intruder[p], pairs.released[p]);
                    if ui >> i & 1 == 1 || ur >> j & 1 == 1 {
                        ok = false;
                        break;
                    }
                    ui |= 1 << i;
                    ur |= 1 << j;
                    s += w[p] - thr;
                }
            }
            if ok {
                best = best.max(s);
            }
        }
        assert!(
            (total(&opt) - best).abs() < 1e-6,
            "case {case}: optimal {} vs brute force {best}",
            total(&opt)
        );
        let gr = predict::greedy(&pairs, &w, ni, nr);
        assert!(total(&opt) >= total(&gr) - 1e-9, "case {case}");
        // Both are one-to-one.
        for a in [&opt, &gr] {
            let mut used = HashSet::new();
            for x in a.iter().flatten() {
                assert!(used.insert(x.0));
            }
        }
    }
}

#[test]
fn default_specification_without_a_spec_file() {
    let (a, b) = person_files(8, 400, 0.1);
    let spec = LinkageSpec::default_for(&a.table, &b.table, &keys()).unwrap();
    assert_eq!(spec.comparisons.len(), 4);
    let last = &spec.comparisons[1];
    assert!(last.term_frequency);
    assert_eq!(last.levels.last().unwrap().kind, LevelKind::Else);
    // 400 × 400 pairs fit the budget: no blocking (one rule without terms).
    assert_eq!(spec.blocking, vec![Vec::<Term>::new()]);
    let run = FellegiSunter::new(FsParams {
        u_sample: 10_000,
        ..FsParams::default()
    })
    .unwrap()
    .run(&Knowledge::new(&a.table, keys()).unwrap(), &b.table, 1)
    .unwrap();
    assert_eq!(run.model.candidate_pairs, 400 * 400);
    assert!(f1(&run.linkage, &a, &b, Some(0.0)) > 0.8);
}
