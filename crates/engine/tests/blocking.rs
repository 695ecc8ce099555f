//! Fellegi–Sunter's blocking rules as joins: the same pairs per rule as the local engine.

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
    let i = load(&icsv, &Input::default()).unwrap();
    let r = load(&rpq, &Input::default()).unwrap();
    let local = intruder_attack::fellegi_sunter::blocking::candidate_pairs(
        &i.table,
        &r.table,
        &rules,
        &|c: &str| c.to_string(),
    )
    .unwrap();
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
    let want: Vec<u64> = local.per_rule.iter().map(|&n| n as u64).collect();
    assert_eq!(per_rule, want);
    assert!(want[2] == 0, "rule 3 is implied by rule 2: no new pair");
    let mut lp: Vec<(usize, usize)> = local
        .intruder
        .iter()
        .zip(&local.released)
        .map(|(&a, &b)| (a as usize, b as usize))
        .collect();
    lp.sort_unstable();
    assert_eq!(pairs.unwrap(), lp);
}

#[test]
fn expression_terms_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let (icsv, _) = survey(dir.path(), "i", 20, 1, false);
    let req = BlockingRequest {
        intruder: icsv.clone(),
        intruder_input: Input::default(),
        released: icsv,
        released_input: Input::default(),
        rules: vec![vec![Term::Prefix {
            column: "region".into(),
            n: 2,
        }]],
        released_names: Vec::new(),
    };
    let df = EngineSpec::parse(Some("datafusion"), None).unwrap();
    let e = candidate_pairs(&df, &req, false).unwrap_err().to_string();
    assert!(e.contains("column terms"), "{e}");
}
