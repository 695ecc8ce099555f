// Shared helpers for the integration tests (not a test target itself).
#![allow(dead_code)]

use intruder_attack::{Attack, KeyMap, Knowledge, Linkage, configure};
use intruder_data::params::ReadContext;
use intruder_data::{Dataset, ReadOptions, Role, Table, read_csv_from};
use intruder_eval::{EvalOptions, Evaluation, Labelled, Sensitive, TruthIds, evaluate};

pub fn load(csv: &str, label: &str, truth: &[&str]) -> Dataset {
    let opts = ReadOptions::default().with_role(truth, Role::Truth);
    read_csv_from(csv.as_bytes(), label.as_ref(), &opts).expect("test CSV parses")
}

/// An attack built from its parameters as TOML (`method = "nearest"\ntop_k = 3`), the way
/// the command line and the runner build it.
pub fn attack(params: &str) -> Box<dyn Attack> {
    let table: toml::Table = params.parse().expect("test parameters are TOML");
    configure(&table, "", ReadContext::default())
        .expect("valid parameters")
        .attack
}

/// Runs `attack` on the intruder's key columns.
pub fn link(a: &dyn Attack, i: &Table, r: &Table, keys: &KeyMap, seed: u64) -> Linkage {
    let k = Knowledge::new(i, keys.clone()).expect("keys in the intruder's table");
    a.link(&k, r, seed).expect("attack runs").linkage
}

pub fn run(params: &str, i: &Dataset, r: &Dataset, keys: &KeyMap) -> Linkage {
    link(attack(params).as_ref(), &i.table, &r.table, keys, 0)
}

pub fn eval(
    l: &Linkage,
    i: &Dataset,
    r: &Dataset,
    truth: Option<&str>,
    sensitive: Option<(&str, &str)>,
) -> Evaluation {
    try_eval(l, i, r, truth, sensitive).expect("evaluation runs")
}

/// [`eval`], its error returned.
pub fn try_eval(
    l: &Linkage,
    i: &Dataset,
    r: &Dataset,
    truth: Option<&str>,
    sensitive: Option<(&str, &str)>,
) -> Result<Evaluation, intruder_attack::AttackError> {
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
    evaluate(
        l,
        &Labelled::from_dataset(i.clone()),
        &Labelled::from_dataset(r.clone()),
        &opts,
    )
}
