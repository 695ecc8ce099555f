//! Bad input gives clear errors naming the file and column; attacks cannot see the truth.

mod common;
use common::*;
use intruder_attack::{
    AttackConfig, AttackError, EvalOptions, KeyMap, TruthIds, attack_by_name, evaluate,
};

const R: &str = "pid,area,beds,sex\n1,2,5,M\n2,1,3,F\n";

#[test]
fn key_missing_from_one_file() {
    let i = load("pid,area,bedrooms\n1,2,5\n", "intruder.csv", &["pid"]);
    let r = load(R, "released.csv", &["pid"]);
    let attack = (attack_by_name("exact").unwrap().build)(&AttackConfig::default()).unwrap();
    let err = attack
        .link(
            &i.table,
            &r.table,
            &KeyMap::same(&["area", "beds"]).unwrap(),
        )
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("intruder.csv") && msg.contains("'beds'") && msg.contains("bedrooms"),
        "{msg}"
    );
}

#[test]
fn type_mismatch_between_files() {
    let i = load("pid,area,sex\n1,2,1\n", "intruder.csv", &["pid"]);
    let r = load(R, "released.csv", &["pid"]);
    let attack = (attack_by_name("exact").unwrap().build)(&AttackConfig::default()).unwrap();
    let err = attack
        .link(&i.table, &r.table, &KeyMap::same(&["area", "sex"]).unwrap())
        .unwrap_err();
    assert!(matches!(err, AttackError::TypeMismatch { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("'sex'")
            && msg.contains("integer")
            && msg.contains("released.csv")
            && msg.contains("not numbers"),
        "{msg}"
    );
}

#[test]
fn empty_intruder_file() {
    let i = load("pid,area,beds\n", "intruder.csv", &["pid"]);
    let r = load(R, "released.csv", &["pid"]);
    for m in ["exact", "nearest", "kmeans"] {
        let attack = (attack_by_name(m).unwrap().build)(&AttackConfig::default()).unwrap();
        let err = attack
            .link(
                &i.table,
                &r.table,
                &KeyMap::same(&["area", "beds"]).unwrap(),
            )
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("intruder.csv: the intruder file has no records"),
            "{m}: {err}"
        );
    }
}

#[test]
fn truth_column_absent() {
    let i = load("pid,area,beds\n1,2,5\n", "intruder.csv", &["pid"]);
    let r = load(R, "released.csv", &[]); // pid not loaded as truth
    let attack = (attack_by_name("exact").unwrap().build)(&AttackConfig::default()).unwrap();
    let l = attack
        .link(
            &i.table,
            &r.table,
            &KeyMap::same(&["area", "beds"]).unwrap(),
        )
        .unwrap();
    let opts = EvalOptions {
        truth: Some(TruthIds {
            intruder: "pid".into(),
            released: "pid".into(),
        }),
        sensitive: None,
        threshold: None,
        seed: 0,
    };
    let err = evaluate(&l, &i.table, &i.truth, &r.table, &r.truth, &opts).unwrap_err();
    assert!(matches!(err, AttackError::MissingTruth { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("released.csv") && msg.contains("'pid'"),
        "{msg}"
    );
}

#[test]
fn unknown_method_lists_the_registry() {
    let err = attack_by_name("fellegi").unwrap_err().to_string();
    assert!(err.contains("exact, nearest, kmeans, link"), "{err}");
}

#[test]
fn bad_weight_is_a_parameter_error() {
    let mut c = AttackConfig::default();
    c.weights = vec![("area".into(), -1.0)];
    assert!((attack_by_name("nearest").unwrap().build)(&c).is_err());
    c.weights = vec![("nokey".into(), 2.0)];
    let i = load("pid,area,beds\n1,2,5\n", "intruder.csv", &["pid"]);
    let r = load(R, "released.csv", &["pid"]);
    let a = (attack_by_name("nearest").unwrap().build)(&c).unwrap();
    let err = a
        .link(&i.table, &r.table, &KeyMap::same(&["area"]).unwrap())
        .unwrap_err()
        .to_string();
    assert!(err.contains("nokey") && err.contains("not a key"), "{err}");
}

/// Compile-level: `Attack::link(&self, &Table, &Table, &KeyMap)` is the only entry point of an
/// attack, a `Table` cannot hold a truth column (`Table::new` rejects one), and `evaluate` is the
/// only public function of the crate taking a `Truth`. Runtime: a truth column loaded from the
/// file is not among the columns an attack receives, and cannot be named as a key.
#[test]
fn attacks_cannot_see_the_truth() {
    let i = load("pid,area,beds\n1,2,5\n", "intruder.csv", &["pid"]);
    let r = load(R, "released.csv", &["pid"]);
    assert!(i.table.position("pid").is_none() && r.table.position("pid").is_none());
    assert!(i.truth.column("pid").is_some());
    assert!(
        i.table
            .columns()
            .iter()
            .all(|c| c.role() != intruder_data::Role::Truth)
    );
    for info in intruder_attack::ATTACKS {
        let a = (info.build)(&AttackConfig::default()).unwrap();
        let err = a
            .link(&i.table, &r.table, &KeyMap::same(&["pid"]).unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("no column named 'pid'"),
            "{}: {err}",
            info.name
        );
    }
    // A table cannot be built around a truth column.
    let col = intruder_data::Column::integer("pid", intruder_data::Role::Truth, &[Some(1)]);
    assert!(intruder_data::Table::new("x.csv", vec![col]).is_err());
}
