//! Fellegi–Sunter's comparison and pattern counting as plans: the same pattern counts, by rule
//! set, as the local kernel.

use std::path::{Path, PathBuf};

use intruder_attack::fellegi_sunter::LinkageSpec;
use intruder_attack::fellegi_sunter::compare::{Prepared, pack};
use intruder_attack::fellegi_sunter::encode::rule_keys;
use intruder_attack::fellegi_sunter::kernel::Kernel;
use intruder_data::{Input, load};
use intruder_engine::EngineSpec;
use intruder_engine::plans::linkage::{LinkageRequest, pattern_counts};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const FIRST: [&str; 12] = [
    "anna", "anne", "hannah", "john", "jon", "joan", "maria", "marie", "peter", "pieter", "sophie",
    "sofie",
];
const LAST: [&str; 10] = [
    "smith", "smyth", "jones", "johnson", "jansen", "janssen", "brown", "braun", "mueller",
    "muller",
];
const TOWN: [&str; 4] = ["north", "south", "east", "west"];

/// `n` people (first name, surname, birth year, town; some cells missing), and a released copy
/// of the first `overlap` of them with typos and shifted years plus others, as CSV; the
/// released file also as Parquet.
pub(crate) fn people(
    dir: &Path,
    n: usize,
    overlap: usize,
    seed: u64,
) -> (PathBuf, PathBuf, PathBuf) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let person = |rng: &mut ChaCha8Rng| {
        let f = FIRST[rng.gen_range(0..FIRST.len())].to_string();
        let l = LAST[rng.gen_range(0..LAST.len())].to_string();
        let y = 1940 + rng.gen_range(0..50);
        let t = TOWN[rng.gen_range(0..TOWN.len())].to_string();
        (f, l, y, t)
    };
    let cell = |rng: &mut ChaCha8Rng, s: String| {
        if rng.gen_range(0..20) == 0 {
            String::new()
        } else {
            s
        }
    };
    let mut a = String::from("id,first,last,year,town\n");
    let mut b = String::from("rid,first,surname,year,town\n");
    let mut kept = Vec::new();
    for i in 0..n {
        let (f, l, y, t) = person(&mut rng);
        let row = format!(
            "{i},{},{},{},{}\n",
            cell(&mut rng, f.clone()),
            cell(&mut rng, l.clone()),
            cell(&mut rng, y.to_string()),
            cell(&mut rng, t.clone())
        );
        a.push_str(&row);
        if i < overlap {
            kept.push((f, l, y, t));
        }
    }
    for (i, (f, l, y, t)) in kept.into_iter().enumerate() {
        let typo = |rng: &mut ChaCha8Rng, s: String| {
            if rng.gen_range(0..4) == 0 && s.len() > 2 {
                let k = rng.gen_range(0..s.len());
                format!("{}x{}", &s[..k], &s[k + 1..])
            } else {
                s
            }
        };
        let f = typo(&mut rng, f);
        let l = typo(&mut rng, l);
        let y = y + rng.gen_range(-1..=1) * i32::from(rng.gen_range(0..3) == 0);
        b.push_str(&format!("{i},{f},{l},{y},{t}\n"));
    }
    for i in 0..n {
        let (f, l, y, t) = person(&mut rng);
        b.push_str(&format!(
            "{},{f},{},{y},{}\n",
            overlap + i,
            cell(&mut rng, l),
            cell(&mut rng, t)
        ));
    }
    let (pa, pb) = (dir.join("a.csv"), dir.join("b.csv"));
    std::fs::write(&pa, a).unwrap();
    std::fs::write(&pb, b).unwrap();
    let pq = dir.join("b.parquet");
    let ds = load(&pb, &Input::default()).unwrap();
    intruder_data::write_parquet(&pq, &ds).unwrap();
    (pa, pb, pq)
}

const SPEC: &str = r#"
blocking = [["town", "year"], ["last"], ["first", "town"]]

[[comparison]]
column = "first"
levels = [
  { kind = "null" },
  { kind = "exact" },
  { kind = "jaro-winkler", threshold = 0.9 },
  { kind = "exact", on = "first_letter(first)" },
  { kind = "else" },
]

[[comparison]]
column = "last"
released = "surname"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "levenshtein", threshold = 1 }, { kind = "else" }]

[[comparison]]
column = "year"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "absolute", threshold = 1 }, { kind = "else" }]

[[comparison]]
column = "town"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "else" }]
"#;

/// The local kernel's tally: `(per rule, (pattern, pairs), (rule set, pattern, pairs))`.
type Tally = (Vec<u64>, Vec<(u64, u64)>, Vec<(u32, u64, u64)>);

fn local(a: &Path, b: &Path, spec: &LinkageSpec, renamed: &[(String, String)]) -> Tally {
    let ti = load(a, &Input::default()).unwrap().table;
    let tr = load(b, &Input::default()).unwrap().table;
    let rn = |c: &str| {
        renamed
            .iter()
            .find(|(i, _)| i == c)
            .map_or(c.to_string(), |(_, r)| r.clone())
    };
    let prepared: Vec<Prepared> = spec
        .comparisons
        .iter()
        .map(|c| {
            let r = c.released.clone().unwrap_or_else(|| rn(&c.column));
            Prepared::with_names(c, &ti, &tr, &r, &rn).unwrap()
        })
        .collect();
    let keys: Vec<_> = spec
        .blocking
        .iter()
        .map(|r| rule_keys(&ti, &tr, r, &rn).unwrap())
        .collect();
    let kernel = Kernel::new(&prepared, &keys, ti.nrows(), tr.nrows());
    let built = kernel.build();
    let packed: Vec<u64> = built
        .patterns
        .iter()
        .map(|&c| pack(&kernel.decode(c)))
        .collect();
    let mut counts: Vec<(u64, u64)> = packed.iter().copied().zip(built.counts).collect();
    counts.sort_unstable();
    let mut by_rules: Vec<(u32, u64, u64)> = built
        .by_rules
        .iter()
        .map(|&(s, q, n)| (s, packed[q as usize], n))
        .collect();
    by_rules.sort_unstable();
    let per_rule = built.per_rule.iter().map(|&n| n as u64).collect();
    (per_rule, counts, by_rules)
}

pub(crate) fn request(
    a: &Path,
    b: &Path,
    spec: &LinkageSpec,
    renamed: &[(String, String)],
) -> LinkageRequest {
    LinkageRequest {
        intruder: a.to_path_buf(),
        intruder_input: Input::default(),
        released: b.to_path_buf(),
        released_input: Input::default(),
        rules: spec.blocking.clone(),
        comparisons: spec.comparisons.clone(),
        released_names: renamed.to_vec(),
        training: spec.training.clone(),
    }
}

#[test]
fn pattern_counts_by_rule_set_match_the_local_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, bq) = people(dir.path(), 600, 400, 5);
    let spec = LinkageSpec::from_toml(SPEC, "spec.toml").unwrap();
    let renamed = vec![("last".to_string(), "surname".to_string())];
    let want = local(&a, &b, &spec, &renamed);
    assert!(
        want.0.iter().all(|&n| n > 0),
        "every rule pairs records: {:?}",
        want.0
    );
    assert!(
        want.2.iter().any(|x| x.0.count_ones() > 1),
        "pairs agreeing on several rules"
    );
    for (released, limit) in [(&b, None), (&bq, None), (&bq, Some("16MiB"))] {
        let df = EngineSpec::parse(Some("datafusion"), limit).unwrap();
        let got = pattern_counts(&df, &request(&a, released, &spec, &renamed)).unwrap();
        let what = format!("{} under {limit:?}", released.display());
        assert_eq!(got.per_rule, want.0, "{what}: pairs per rule");
        assert_eq!(got.n_pairs, want.0.iter().sum::<u64>(), "{what}");
        assert_eq!(got.counts, want.1, "{what}: pattern counts");
        assert_eq!(got.by_rules, want.2, "{what}: counts by rule set");
    }
}

/// `a` and `b` equal, numbers to a relative 1e-12.
fn close_json(a: &serde_json::Value, b: &serde_json::Value, at: &str) {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1e-300),
                "{at}: local {x} engine {y}"
            );
        }
        (Value::Object(x), Value::Object(y)) => {
            let keys = |m: &serde_json::Map<String, Value>| {
                m.keys()
                    .filter(|k| *k != "borderline_unused")
                    .cloned()
                    .collect::<Vec<_>>()
            };
            assert_eq!(keys(x), keys(y), "{at}: fields");
            for k in keys(x) {
                close_json(&x[&k], &y[&k], &format!("{at}.{k}"));
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}: length");
            for (n, (p, q)) in x.iter().zip(y).enumerate() {
                close_json(p, q, &format!("{at}[{n}]"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
}

pub(crate) const TF_SPEC: &str = r#"
blocking = [["town", "year"], ["last"], ["first", "town"]]

[[comparison]]
column = "first"
term_frequency = true
levels = [
  { kind = "null" },
  { kind = "exact" },
  { kind = "jaro-winkler", threshold = 0.9 },
  { kind = "else" },
]

[[comparison]]
column = "last"
released = "surname"
term_frequency = true
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "levenshtein", threshold = 1 }, { kind = "else" }]

[[comparison]]
column = "year"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "absolute", threshold = 1 }, { kind = "else" }]

[[comparison]]
column = "town"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "else" }]

# record numbers: a dictionary too large for a square table of levels (a hash map instead)
[[comparison]]
column = "id"
released = "rid"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "levenshtein", threshold = 1 }, { kind = "else" }]
"#;

#[test]
fn a_run_gives_the_local_linkage_and_model() {
    use intruder_attack::fellegi_sunter::Assignment;
    let dir = tempfile::tempdir().unwrap();
    let (a, b, bq) = people(dir.path(), 6000, 4000, 9);
    let spec = LinkageSpec::from_toml(TF_SPEC, "spec.toml").unwrap();
    let renamed = vec![
        ("last".to_string(), "surname".to_string()),
        ("id".to_string(), "rid".to_string()),
    ];
    let ti = load(&a, &Input::default()).unwrap().table;
    let tr = load(&b, &Input::default()).unwrap().table;
    // u from the values' frequencies (the default sample), and from 500 random pairs
    // (the fuzzy comparisons' value pairs are more than that)
    for (assignment, u_sample, released, limit) in [
        (Assignment::Greedy, None, &b, None),
        (Assignment::Greedy, Some(500), &bq, Some("64MiB")),
        (Assignment::None, Some(500), &b, None),
        (Assignment::Optimal, None, &bq, None),
    ] {
        let (fs, want) = local_run(&spec, assignment, u_sample, (&ti, &tr));
        let df = EngineSpec::parse(Some("datafusion"), limit).unwrap();
        let got = intruder_engine::plans::linkage::link(
            &df,
            &request(&a, released, &spec, &renamed),
            &fs,
            11,
        )
        .unwrap();
        let what = format!(
            "{assignment:?}, u_sample {u_sample:?}, {}",
            released.display()
        );
        same_linked(&want, &got, &what);
        assert_eq!(
            want.model.as_ref().unwrap().to_json()["borderline"].is_null(),
            assignment == Assignment::None,
            "{what}: a borderline link explained"
        );
        if u_sample.is_some() {
            let sampled = want.model.as_ref().unwrap().to_json()["comparisons"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["u_from_frequencies"] == false)
                .count();
            assert!(sampled >= 1, "{what}: some u from random pairs");
        }
    }
}

/// The engine's run (DataFusion in process) of `fs` on `a` and `released`, with seed 11.
fn on_datafusion(
    a: &Path,
    released: &Path,
    spec: &LinkageSpec,
    renamed: &[(String, String)],
    fs: &intruder_attack::fellegi_sunter::FellegiSunter,
) -> intruder_attack::Linked {
    let df = EngineSpec::parse(Some("datafusion"), None).unwrap();
    intruder_engine::plans::linkage::link(&df, &request(a, released, spec, renamed), fs, 11)
        .unwrap()
}

/// [`TF_SPEC`] with Splink's recipe: EM sessions on their own rules and, with
/// `deterministic`, λ from deterministic rules with a recall of 0.8.
pub(crate) fn training_spec(deterministic: bool) -> String {
    let mut s = format!("{TF_SPEC}\n[training]\nblocking = [[\"year\"], [\"first\", \"town\"]]\n");
    if deterministic {
        s.push_str("deterministic = [[\"first\", \"last\", \"year\"], [\"id\"]]\nrecall = 0.8\n");
    }
    s
}

/// Splink's recipe (a specification's `[training]`: EM sessions on their own rules, λ from
/// deterministic rules with a recall) on the engine: the local run's model and links.
#[test]
fn splinks_training_recipe_gives_the_local_linkage_and_model() {
    use intruder_attack::fellegi_sunter::Assignment;
    let dir = tempfile::tempdir().unwrap();
    let (a, b, bq) = people(dir.path(), 3000, 2000, 13);
    let renamed = vec![
        ("last".to_string(), "surname".to_string()),
        ("id".to_string(), "rid".to_string()),
    ];
    let ti = load(&a, &Input::default()).unwrap().table;
    let tr = load(&b, &Input::default()).unwrap().table;
    // Sessions and λ from the deterministic rules; sessions alone (λ by EM).
    for deterministic in [true, false] {
        let spec = LinkageSpec::from_toml(&training_spec(deterministic), "spec.toml").unwrap();
        for (assignment, released) in [(Assignment::Greedy, &b), (Assignment::Optimal, &bq)] {
            let (fs, want) = local_run(&spec, assignment, None, (&ti, &tr));
            let what = format!("{assignment:?}, deterministic rules {deterministic}");
            let model = want.model.as_ref().unwrap().to_json();
            // The recipe is in force: a session per training rule, λ from the rules' pairs.
            let notes = serde_json::to_value(&want.linkage.notes)
                .unwrap()
                .to_string();
            assert_eq!(
                notes.contains("lambda_deterministic_pairs"),
                deterministic,
                "{what}: {notes}"
            );
            let sessions: Vec<&str> = model["sessions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["rule"].as_str().unwrap())
                .collect();
            assert_eq!(sessions, ["year", "first & town"], "{what}");
            same_linked(
                &want,
                &on_datafusion(&a, released, &spec, &renamed, &fs),
                &what,
            );
        }
    }
}

/// Blocking terms that derive a value from a column (first letter, Soundex, a substring of the
/// lower case; in the rules and in a training session's rule): the local run's pairs, model
/// and links on the engine.
#[test]
fn expression_blocking_terms_give_the_local_linkage_and_model() {
    use intruder_attack::fellegi_sunter::Assignment;
    let dir = tempfile::tempdir().unwrap();
    let (a, b, bq) = people(dir.path(), 3000, 2000, 17);
    let rules = r#"blocking = [["first_letter(last)", "year"], ["soundex(first)", "town"], ["substr(lower(last), 1, 3)"]]"#;
    let text = TF_SPEC.replace(
        r#"blocking = [["town", "year"], ["last"], ["first", "town"]]"#,
        rules,
    );
    assert!(text.contains("soundex"));
    let text = format!("{text}\n[training]\nblocking = [[\"prefix(first, 2)\"], [\"year\"]]\n");
    let spec = LinkageSpec::from_toml(&text, "spec.toml").unwrap();
    let renamed = vec![
        ("last".to_string(), "surname".to_string()),
        ("id".to_string(), "rid".to_string()),
    ];
    let ti = load(&a, &Input::default()).unwrap().table;
    let tr = load(&b, &Input::default()).unwrap().table;
    for (assignment, released) in [(Assignment::Greedy, &b), (Assignment::None, &bq)] {
        let (fs, want) = local_run(&spec, assignment, None, (&ti, &tr));
        let what = format!("expression terms, {assignment:?}, {}", released.display());
        let per_rule = want.model.as_ref().unwrap().to_json()["pairs_per_rule"].clone();
        assert!(
            per_rule
                .as_array()
                .unwrap()
                .iter()
                .all(|n| n.as_u64().unwrap() > 0),
            "{what}: every rule pairs records: {per_rule}"
        );
        same_linked(
            &want,
            &on_datafusion(&a, released, &spec, &renamed, &fs),
            &what,
        );
    }
}

/// `released` with the first and last names of every seventh record swapped, written as
/// `name` in `dir`.
pub(crate) fn with_swapped_names(dir: &Path, released: &Path, name: &str) -> PathBuf {
    let text = std::fs::read_to_string(released).unwrap();
    let mut out = String::new();
    for (n, line) in text.lines().enumerate() {
        let mut f: Vec<&str> = line.split(',').collect();
        if n > 0 && n % 7 == 0 {
            f.swap(1, 2);
        }
        out.push_str(&f.join(","));
        out.push('\n');
    }
    let p = dir.join(name);
    std::fs::write(&p, out).unwrap();
    p
}

/// [`TF_SPEC`] with Splink's swapped-names pieces: a blocking rule on two different columns
/// (also in a training session) and `columns-reversed` levels on the names (symmetrical on
/// the first name, one way on the last).
pub(crate) fn swapped_spec() -> String {
    let text = TF_SPEC
        .replace(
            r#"blocking = [["town", "year"], ["last"], ["first", "town"]]"#,
            r#"blocking = [["town", "year"], ["l.first = r.last", "l.last = r.first"], ["last"], ["l.last = r.first", "year"]]"#,
        )
        .replace(
            r#"{ kind = "exact" },
  { kind = "jaro-winkler", threshold = 0.9 },"#,
            r#"{ kind = "exact" },
  { kind = "columns-reversed", column = "last", symmetrical = true },
  { kind = "jaro-winkler", threshold = 0.9 },"#,
        )
        .replacen(
            r#"{ kind = "exact" }, { kind = "levenshtein", threshold = 1 }"#,
            r#"{ kind = "exact" }, { kind = "columns-reversed", column = "first" }, { kind = "levenshtein", threshold = 1 }"#,
            1,
        );
    assert_eq!(text.matches("columns-reversed").count(), 2);
    // (without the record numbers: the last comparison, town, has missing values)
    let text = text[..text.find("# record numbers").unwrap()].to_string();
    let text = format!("{text}\n[training]\nblocking = [[\"l.first = r.last\"], [\"year\"]]\n");
    text
}

/// Splink's swapped-names pieces: a blocking rule on two different columns (`l.first =
/// r.last and l.last = r.first`, also in a training session) and `columns-reversed` levels
/// (the names crosswise: symmetrical on the first name, one way on the last): the local
/// run's pairs, model, borderline waterfall and links on the engine.
#[test]
fn terms_on_two_columns_and_columns_reversed_levels_give_the_local_linkage_and_model() {
    use intruder_attack::fellegi_sunter::Assignment;
    let dir = tempfile::tempdir().unwrap();
    let (a, b, _) = people(dir.path(), 2000, 1500, 23);
    let b = with_swapped_names(dir.path(), &b, "swapped.csv");
    let text = swapped_spec();
    let spec = LinkageSpec::from_toml(&text, "spec.toml").unwrap();
    let renamed = vec![
        ("last".to_string(), "surname".to_string()),
        ("id".to_string(), "rid".to_string()),
    ];
    let ti = load(&a, &Input::default()).unwrap().table;
    let tr = load(&b, &Input::default()).unwrap().table;
    for assignment in [Assignment::Greedy, Assignment::None, Assignment::Optimal] {
        let (fs, want) = local_run(&spec, assignment, None, (&ti, &tr));
        let what = format!("swapped names, {assignment:?}");
        let model = want.model.as_ref().unwrap().to_json();
        let per_rule = model["pairs_per_rule"].as_array().unwrap().clone();
        assert!(
            per_rule.iter().all(|n| n.as_u64().unwrap() > 0),
            "{what}: every rule pairs records: {per_rule:?}"
        );
        // the reversed levels hold for some candidate pairs
        for c in [0, 1] {
            let levels = &model["comparisons"][c]["levels"];
            let reversed = levels
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["level"].as_str().unwrap().contains("reversed"))
                .unwrap_or_else(|| panic!("{what}: comparison {c}'s levels {levels}"));
            assert!(
                reversed["pairs"].as_u64().unwrap() > 20,
                "{what}: {reversed}"
            );
        }
        let got = on_datafusion(&a, &b, &spec, &renamed, &fs);
        same_linked(&want, &got, &what);
        if assignment == Assignment::Greedy {
            same_answers(&want, &got, (ti.nrows(), tr.nrows()), &what, false);
        }
    }
}

/// Fellegi–Sunter with `spec`, `assignment` and `u_sample` (else the default), and its local
/// run on `(intruder, released)` with seed 11.
pub(crate) fn local_run(
    spec: &LinkageSpec,
    assignment: intruder_attack::fellegi_sunter::Assignment,
    u_sample: Option<usize>,
    (intruder, released): (&intruder_data::Table, &intruder_data::Table),
) -> (
    intruder_attack::fellegi_sunter::FellegiSunter,
    intruder_attack::Linked,
) {
    use intruder_attack::fellegi_sunter::{FellegiSunter, FsParams};
    use intruder_attack::{Attack, Knowledge};
    let mut params = FsParams {
        spec: Some(spec.clone()),
        assignment,
        ..FsParams::default()
    };
    if let Some(n) = u_sample {
        params.u_sample = n;
    }
    let fs = FellegiSunter::new(params).unwrap();
    let knowledge = Knowledge::new(intruder, fs.implied_keys().unwrap()).unwrap();
    let want = fs.link(&knowledge, released, 11).unwrap();
    (fs, want)
}

/// The engine's linkage and model (`got`) are the local run's (`want`): the same links and
/// ranks, scores and every number of the model to a relative 1e-12.
pub(crate) fn same_linked(
    want: &intruder_attack::Linked,
    got: &intruder_attack::Linked,
    what: &str,
) {
    let (wm, gm) = (
        want.model.as_ref().unwrap().to_json(),
        got.model.as_ref().unwrap().to_json(),
    );
    close_json(&wm, &gm, what);
    assert!(
        wm["links"].as_u64().unwrap() > 100,
        "{what}: {}",
        wm["links"]
    );
    let (wl, gl) = (&want.linkage, &got.linkage);
    assert_eq!(wl.records.len(), gl.records.len(), "{what}");
    for (n, (x, y)) in wl.records.iter().zip(&gl.records).enumerate() {
        assert_eq!(x.list.len(), y.list.len(), "{what}: record {n}");
        for (p, q) in x.list.iter().zip(&y.list) {
            assert_eq!((p.row, p.rank), (q.row, q.rank), "{what}: record {n}");
            assert!(
                (p.score - q.score).abs() <= 1e-12 * p.score.abs().max(1.0),
                "{what}: record {n}"
            );
        }
    }
    close_json(
        &serde_json::to_value(&wl.notes).unwrap(),
        &serde_json::to_value(&gl.notes).unwrap(),
        &format!("{what}: notes"),
    );
}

/// What is asked of a model afterwards, from the engine's model as from the local one: the
/// scored pairs file (byte for byte, every pair and above a floor) and the weight breakdown of
/// pairs (candidates and not; out of the files: an error). `light`: one floor, two pairs (each
/// answer is a few jobs on a cluster).
pub(crate) fn same_answers(
    want: &intruder_attack::Linked,
    got: &intruder_attack::Linked,
    dims: (usize, usize),
    what: &str,
    light: bool,
) {
    let (wm, gm) = (want.model.as_ref().unwrap(), got.model.as_ref().unwrap());
    let dir = tempfile::tempdir().unwrap();
    let id = |side: &'static str| move |r: usize| format!("{side}{r}");
    let floors: &[f64] = if light { &[0.5] } else { &[0.0, 0.9] };
    for &floor in floors {
        let (pw, pg) = (dir.path().join("w.csv"), dir.path().join("g.csv"));
        let nw = wm.write_pairs(&pw, &id("a"), &id("b"), floor).unwrap();
        let ng = gm.write_pairs(&pg, &id("a"), &id("b"), floor).unwrap();
        assert_eq!(nw, ng, "{what}: pairs written above {floor}");
        assert!(nw > 50, "{what}: {nw} pairs above {floor}");
        let (tw, tg) = (
            std::fs::read_to_string(&pw).unwrap(),
            std::fs::read_to_string(&pg).unwrap(),
        );
        assert!(tw == tg, "{what}: the pairs file above {floor} differs");
    }
    let e = gm
        .write_pairs(&dir.path().join("x.csv"), &id("a"), &id("b"), 1.5)
        .unwrap_err()
        .to_string();
    assert!(e.contains("not a probability"), "{e}");
    assert!(!dir.path().join("x.csv").exists());
    // the first records' best candidates, and pairs that blocking did not make
    let mut pairs: Vec<(usize, usize)> = want
        .linkage
        .records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.list.first().map(|c| (i, c.row)))
        .take(if light { 1 } else { 4 })
        .collect();
    pairs.extend([(0, 0), (1, dims.1 - 1), (dims.0 - 1, 3)]);
    pairs.truncate(if light { 2 } else { 7 });
    let mut candidates = 0;
    for (i, j) in pairs {
        let (x, y) = (
            wm.explain_pair(i, j).unwrap(),
            gm.explain_pair(i, j).unwrap(),
        );
        candidates += usize::from(x.candidate);
        close_json(
            &serde_json::to_value(&x).unwrap(),
            &serde_json::to_value(&y).unwrap(),
            &format!("{what}: explain ({i}, {j})"),
        );
    }
    assert!(
        (if light { 1..3 } else { 4..7 }).contains(&candidates),
        "{what}: {candidates} candidates"
    );
    let e = gm.explain_pair(dims.0, 0).unwrap_err().to_string();
    assert!(e.contains("outside the files"), "{e}");
}

#[test]
fn a_rule_without_terms_pairs_every_record_as_locally() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, _) = people(dir.path(), 60, 40, 3);
    // (a specification file cannot write one; the inferred specification of small files does)
    let mut spec = LinkageSpec::from_toml(
        r#"
blocking = [["town"]]
[[comparison]]
column = "first"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "jaro-winkler", threshold = 0.9 }, { kind = "else" }]
"#,
        "spec.toml",
    )
    .unwrap();
    spec.blocking.push(Vec::new());
    let want = local(&a, &b, &spec, &[]);
    assert_eq!(want.0.iter().sum::<u64>(), 60 * 100, "every pair once");
    let df = EngineSpec::parse(Some("datafusion"), None).unwrap();
    let got = pattern_counts(&df, &request(&a, &b, &spec, &[])).unwrap();
    assert_eq!((got.per_rule, got.counts, got.by_rules), want);
}
