//! Fellegi–Sunter's blocking rules as joins: the same pairs per rule as the local engine.

use std::path::Path;

use intruder_attack::fellegi_sunter::Term;
use intruder_data::{Input, load};
use intruder_engine::EngineSpec;
use intruder_engine::plans::blocking::{BlockingRequest, candidate_pairs};

use crate::common::survey;

fn rule(cols: &[&str]) -> Vec<Term> {
    cols.iter()
        .map(|c| Term::Column {
            column: c.to_string(),
        })
        .collect()
}

/// The local engine's candidate pairs per rule, and its pairs sorted.
fn local(i: &Path, r: &Path, rules: &[Vec<Term>]) -> (Vec<u64>, Vec<(usize, usize)>) {
    let i = load(i, &Input::default()).unwrap();
    let r = load(r, &Input::default()).unwrap();
    let local = intruder_attack::fellegi_sunter::blocking::candidate_pairs(
        &i.table,
        &r.table,
        rules,
        &|c: &str| c.to_string(),
    )
    .unwrap();
    let mut pairs: Vec<(usize, usize)> = local
        .intruder
        .iter()
        .zip(&local.released)
        .map(|(&a, &b)| (a as usize, b as usize))
        .collect();
    pairs.sort_unstable();
    (local.per_rule.iter().map(|&n| n as u64).collect(), pairs)
}

#[test]
fn pairs_per_rule_and_the_pairs_match_local() {
    let dir = tempfile::tempdir().unwrap();
    let (icsv, _) = survey(dir.path(), "i", 400, 31, false);
    let (_, rpq) = survey(dir.path(), "r", 600, 32, false);
    let rules = vec![
        rule(&["region", "age"]),
        rule(&["sex", "job"]),
        rule(&["region", "sex", "job"]),
        rule(&["age"]),
    ];
    let (want, lp) = local(&icsv, &rpq, &rules);
    let req = BlockingRequest {
        intruder: icsv.clone(),
        intruder_input: Input::default(),
        released: rpq.clone(),
        released_input: Input::default(),
        rules,
        released_names: Vec::new(),
    };
    let df = EngineSpec::parse(Some("datafusion"), None).unwrap();
    let (per_rule, pairs) = candidate_pairs(&df, &req, true).unwrap();
    assert_eq!(per_rule, want);
    assert!(want[2] == 0, "rule 3 is implied by rule 2: no new pair");
    assert_eq!(pairs.unwrap(), lp);
}

/// Terms that derive a value from a column, and terms on two different columns (one file's
/// column against the other file's, as is or through a function): the local engine's pairs.
#[test]
fn expression_terms_and_terms_on_two_columns_give_the_local_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let (icsv, _) = survey(dir.path(), "i", 300, 41, false);
    let (_, rpq) = survey(dir.path(), "r", 500, 42, false);
    let terms = |t: &[&str]| -> Vec<Term> { t.iter().map(|x| Term::parse(x).unwrap()).collect() };
    let rules = vec![
        terms(&["prefix(region, 2)", "age"]),
        terms(&["first_letter(job)", "sex"]),
        terms(&["soundex(region)"]),
    ];
    let (want, lp) = local(&icsv, &rpq, &rules);
    assert!(want.iter().all(|&n| n > 0), "{want:?}");
    let req = |rules: Vec<Vec<Term>>| BlockingRequest {
        intruder: icsv.clone(),
        intruder_input: Input::default(),
        released: rpq.clone(),
        released_input: Input::default(),
        rules,
        released_names: Vec::new(),
    };
    let df = EngineSpec::parse(Some("datafusion"), None).unwrap();
    let (per_rule, pairs) = candidate_pairs(&df, &req(rules), true).unwrap();
    assert_eq!(per_rule, want);
    assert_eq!(pairs.unwrap(), lp);

    // ages 20, 25, …, 75 against jobs 0 … 39; a text against numbers; the first digit of a
    // job against that of an age; with a plain term on the same column
    let swapped = vec![
        terms(&["l.age = r.job", "sex"]),
        terms(&["l.region = r.job"]),
        terms(&["first_letter(l.job) = first_letter(r.age)", "region"]),
        terms(&["l.job = r.age"]),
    ];
    let (want, lp) = local(&icsv, &rpq, &swapped);
    assert!(
        want[0] > 0 && want[2] > 0 && want[3] > 0,
        "rules that pair records: {want:?}"
    );
    assert_eq!(want[1], 0, "regions are never jobs");
    let (per_rule, pairs) = candidate_pairs(&df, &req(swapped), true).unwrap();
    assert_eq!(per_rule, want);
    assert_eq!(pairs.unwrap(), lp);
}
