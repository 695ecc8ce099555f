//! The exact-key attack: local against datafusion.

use intruder_attack::MissingPolicy;
use intruder_data::Input;
use intruder_engine::{EngineSpec, ExactRequest, exact};

use crate::common::survey;

/// The exact attack of `i` against `r` on region, age and sex.
pub(crate) fn request(
    i: &std::path::Path,
    r: &std::path::Path,
    policy: MissingPolicy,
    max: usize,
) -> ExactRequest {
    ExactRequest {
        intruder: i.to_path_buf(),
        intruder_input: Input::default(),
        released: r.to_path_buf(),
        released_input: Input::default(),
        keys: ["region", "age", "sex"]
            .iter()
            .map(|k| (k.to_string(), k.to_string()))
            .collect(),
        missing: policy,
        max_listed: max,
    }
}

#[test]
fn candidates_and_c_i_match_local_under_every_policy() {
    let dir = tempfile::tempdir().unwrap();
    let (icsv, ipq) = survey(dir.path(), "i", 300, 5, false);
    let (_, rpq) = survey(dir.path(), "r", 900, 6, false);
    let local = EngineSpec::default();
    // Without a memory limit the joins are hash joins; under one, sort-merge joins.
    let dfs = [
        EngineSpec::parse(Some("datafusion"), None).unwrap(),
        EngineSpec::parse(Some("datafusion"), Some("256MiB")).unwrap(),
    ];
    for policy in [
        MissingPolicy::Listwise,
        MissingPolicy::AsValue,
        MissingPolicy::Wildcard,
    ] {
        for (max, df) in [(3, &dfs[0]), (100, &dfs[0]), (3, &dfs[1]), (100, &dfs[1])] {
            for intruder in [&icsv, &ipq] {
                let req = request(intruder, &rpq, policy, max);
                let a = exact(&local, &req).unwrap();
                let b = exact(df, &req).unwrap();
                let what = format!(
                    "{policy:?} max_listed {max} {} limit {:?}",
                    intruder.display(),
                    df.memory_limit
                );
                assert_eq!(a.records, b.records, "{what}: candidates");
                assert_eq!(a.notes, b.notes, "{what}: notes");
                assert_eq!(a.released_rows, b.released_rows, "{what}");
                // Records listed in part: the whole sets from both listers agree.
                let part: Vec<usize> = (0..a.records.len())
                    .filter(|&i| a.records[i].in_part())
                    .take(5)
                    .collect();
                if !part.is_empty() {
                    let la = a.lister.as_ref().unwrap().list(&part);
                    let lb = b.lister.as_ref().unwrap().list(&part);
                    assert_eq!(la, lb, "{what}: whole lists");
                    assert!(
                        la.iter()
                            .zip(&part)
                            .all(|(l, &i)| l.len() == a.records[i].total())
                    );
                }
            }
        }
    }
}

#[test]
fn a_hand_made_case() {
    let dir = tempfile::tempdir().unwrap();
    let i = dir.path().join("i.csv");
    let r = dir.path().join("r.csv");
    std::fs::write(&i, "a,b\n1,x\n2,\n3,z\n").unwrap();
    std::fs::write(&r, "a,b\n1,x\n1,x\n2,y\n,y\n3,q\n").unwrap();
    let df = EngineSpec::parse(Some("datafusion"), None).unwrap();
    let mut req = request(&i, &r, MissingPolicy::Wildcard, 100);
    req.keys = vec![("a".into(), "a".into()), ("b".into(), "b".into())];
    let out = exact(&df, &req).unwrap();
    let rows = |k: usize| {
        out.records[k]
            .list
            .iter()
            .map(|c| c.row)
            .collect::<Vec<_>>()
    };
    // (1,x) matches rows 0 and 1; (2,·) matches (2,y) and (·,y); (3,z) nothing.
    assert_eq!(rows(0), vec![0, 1]);
    assert_eq!(rows(1), vec![2, 3]);
    assert!(out.records[2].is_empty());
    req.missing = MissingPolicy::Listwise;
    let out = exact(&df, &req).unwrap();
    assert_eq!(out.records[0].total(), 2);
    assert!(out.records[1].is_empty());
}

/// Tables in memory (an experiment's intruder and released files) with a set-valued column
/// the attack does not match on: linked on datafusion as on local, the column left out of the
/// copies the plans scan.
#[test]
fn tables_with_a_set_valued_non_key_link_as_on_local() {
    let dir = tempfile::tempdir().unwrap();
    let with_set = |name: &str, n: usize, seed: u64| {
        let (csv, _) = survey(dir.path(), name, n, seed, false);
        let text = std::fs::read_to_string(&csv).unwrap();
        let mut lines = text.lines();
        let mut out = format!("{},fields\n", lines.next().unwrap());
        for (i, l) in lines.enumerate() {
            out.push_str(&format!("{l},{}\n", ["1|2", "3", "", "2|4"][i % 4]));
        }
        let p = dir.path().join(format!("{name}_set.csv"));
        std::fs::write(&p, out).unwrap();
        let input = Input {
            set_valued: vec!["fields".into()],
            ..Input::default()
        };
        intruder_data::load(&p, &input).unwrap().table
    };
    let (i, r) = (with_set("i", 200, 3), with_set("r", 700, 4));
    let keys = intruder_attack::KeyMap::same(&["region", "age", "sex"]).unwrap();
    let knowledge = intruder_attack::Knowledge::new(&i, keys).unwrap();
    let df = EngineSpec::parse(Some("datafusion"), None).unwrap();
    for policy in [MissingPolicy::Listwise, MissingPolicy::Wildcard] {
        let attack = intruder_attack::ExactMatch::with_settings(policy, None, 100).unwrap();
        let a = intruder_engine::link_tables(&EngineSpec::default(), &attack, &knowledge, &r, 0)
            .unwrap();
        let b = intruder_engine::link_tables(&df, &attack, &knowledge, &r, 0).unwrap();
        assert_eq!(a.linkage.records, b.linkage.records, "{policy:?}");
        assert!(a.linkage.records.iter().any(|x| x.total() > 0));
    }
}
