// Shared helpers for the integration tests (not a test target itself).
#![allow(dead_code)]

use intruder_attack::{
    AttackConfig, EvalOptions, Evaluation, KeyMap, Linkage, Sensitive, TruthIds, attack_by_name,
    evaluate,
};
use intruder_data::{Dataset, ReadOptions, Role, read_csv_from};

pub fn load(csv: &str, label: &str, truth: &[&str]) -> Dataset {
    let opts = ReadOptions::default().with_role(truth, Role::Truth);
    read_csv_from(csv.as_bytes(), label.as_ref(), &opts).expect("test CSV parses")
}

pub fn run(method: &str, cfg: &AttackConfig, i: &Dataset, r: &Dataset, keys: &KeyMap) -> Linkage {
    let attack = (attack_by_name(method).expect("registered").build)(cfg).expect("valid config");
    attack.link(&i.table, &r.table, keys).expect("attack runs")
}

pub fn eval(
    l: &Linkage,
    i: &Dataset,
    r: &Dataset,
    truth: Option<&str>,
    sensitive: Option<(&str, &str)>,
) -> Evaluation {
    let opts = EvalOptions {
        truth: truth.map(|t| TruthIds {
            intruder: t.into(),
            released: t.into(),
        }),
        sensitive: sensitive.map(|(rel, tr)| Sensitive {
            released: rel.into(),
            truth: tr.into(),
            tolerance: 0.05,
        }),
        threshold: None,
        seed: 7,
    };
    evaluate(l, &i.table, &i.truth, &r.table, &r.truth, &opts).expect("evaluation runs")
}
