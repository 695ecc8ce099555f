//! Bad input gives clear errors naming the file and column; attacks cannot see the truth.

use crate::common;
use common::*;
use intruder_attack::{AttackError, KeyMap, Knowledge};
use intruder_eval::{EvalOptions, Labelled, TruthIds, evaluate};

const R: &str = "pid,area,beds,sex\n1,2,5,M\n2,1,3,F\n";

#[test]
fn key_missing_from_one_file() {
    let i = load("pid,area,bedrooms\n1,2,5\n", "intruder.csv", &["pid"]);
    let r = load(R, "released.csv", &["pid"]);
    let _ = r;
    // The intruder's knowledge is projected on the keys: a key absent from the file is an error
    // naming the file, the key and the columns present.
    let err = Knowledge::new(&i.table, KeyMap::same(&["area", "beds"]).unwrap()).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("intruder.csv") && msg.contains("'beds'") && msg.contains("bedrooms"),
        "{msg}"
    );
    // The released side: the attack names the released file.
    let i = load("pid,area,beds\n1,2,5\n", "intruder.csv", &["pid"]);
    let r = load("pid,area,bedrooms\n1,2,5\n", "released.csv", &["pid"]);
    let k = Knowledge::new(&i.table, KeyMap::same(&["area", "beds"]).unwrap()).unwrap();
    let err = attack("method = \"exact\"")
        .link(&k, &r.table, 0)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("released.csv") && err.contains("'beds'") && err.contains("bedrooms"),
        "{err}"
    );
}

#[test]
fn type_mismatch_between_files() {
    let i = load("pid,area,sex\n1,2,1\n", "intruder.csv", &["pid"]);
    let r = load(R, "released.csv", &["pid"]);
    let k = Knowledge::new(&i.table, KeyMap::same(&["area", "sex"]).unwrap()).unwrap();
    let err = attack("method = \"exact\"")
        .link(&k, &r.table, 0)
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
        let k = Knowledge::new(&i.table, KeyMap::same(&["area", "beds"]).unwrap()).unwrap();
        let err = attack(&format!("method = \"{m}\""))
            .link(&k, &r.table, 0)
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
    let l = run(
        "method = \"exact\"",
        &i,
        &r,
        &KeyMap::same(&["area", "beds"]).unwrap(),
    );
    let opts = EvalOptions {
        truth: Some(TruthIds {
            intruder: "pid".into(),
            released: "pid".into(),
        }),
        sensitive: None,
        threshold: None,
        seed: 0,
    };
    let err = evaluate(
        &l,
        &Labelled::from_dataset(i.clone()),
        &Labelled::from_dataset(r.clone()),
        &opts,
    )
    .unwrap_err();
    assert!(matches!(err, AttackError::MissingTruth { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("released.csv") && msg.contains("'pid'"),
        "{msg}"
    );
}

#[test]
fn unknown_method_lists_the_registry() {
    let err = intruder_attack::find("felegi-sunter")
        .unwrap_err()
        .to_string();
    // Every attack of the registry, in its order (an attack added there is listed too).
    let names: Vec<&str> = intruder_attack::ATTACKS.iter().map(|e| e.name).collect();
    assert!(names.starts_with(&["exact", "nearest", "kmeans", "link", "fellegi-sunter"]));
    assert_eq!(
        err,
        format!(
            "unknown attack 'felegi-sunter' (did you mean 'fellegi-sunter'?); the attacks are: {}",
            names.join(", ")
        )
    );
}

#[test]
fn bad_weight_is_a_parameter_error() {
    let t: toml::Table = "method = \"nearest\"\nweights = { area = -1 }"
        .parse()
        .unwrap();
    let problems = intruder_attack::configure(&t, "attack[1]", Default::default()).unwrap_err();
    assert_eq!(
        problems[0].to_string(),
        "attack[1].weights: expected a value > 0, found -1"
    );
    let i = load("pid,area,beds\n1,2,5\n", "intruder.csv", &["pid"]);
    let r = load(R, "released.csv", &["pid"]);
    let a = attack("method = \"nearest\"\nweights = { nokey = 2 }");
    let k = Knowledge::new(&i.table, KeyMap::same(&["area"]).unwrap()).unwrap();
    let err = a.link(&k, &r.table, 0).unwrap_err().to_string();
    assert!(err.contains("nokey") && err.contains("not a key"), "{err}");
}

/// Compile-level: `Attack::link(&self, &Knowledge, &Table, seed)` is the only entry point of an
/// attack, a `Knowledge` holds the intruder's key columns only, a `Table` cannot hold a truth
/// column (`Table::new` rejects one), and the attack crate cannot name `Truth` or `Labelled`
/// (it does not depend on this crate: `tests/dependencies.rs`). Runtime: a truth column loaded from the file is not
/// among the columns an attack receives, and cannot be named as a key.
#[test]
fn attacks_cannot_see_the_truth() {
    let i = load("pid,area,beds\n1,2,5\n", "intruder.csv", &["pid"]);
    let r = load(R, "released.csv", &["pid"]);
    assert!(i.table.position("pid").is_none() && r.table.position("pid").is_none());
    assert!(i.truth_column("pid").is_some());
    assert!(
        i.table
            .columns()
            .iter()
            .all(|c| c.role() != intruder_data::Role::Truth)
    );
    for info in intruder_attack::ATTACKS {
        // Every attack builds from its defaults; none can be handed the truth column.
        let _ = attack(&format!("method = \"{}\"", info.name));
        let err = Knowledge::new(&i.table, KeyMap::same(&["pid"]).unwrap())
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

/// The intruder's other columns — here the true original value of the sensitive variable, read
/// as an ordinary column, and a name — never reach an attack: the knowledge keeps the keys only,
/// in key order, with the file's name for messages.
#[test]
fn knowledge_keeps_the_key_columns_only() {
    let i = load(
        "pid,name,area,beds,true_wealth\n1,ann,2,5,15000\n2,bob,1,3,12200\n",
        "intruder.csv",
        &["pid"],
    );
    assert_eq!(i.table.names(), vec!["name", "area", "beds", "true_wealth"]);
    let k = Knowledge::new(&i.table, KeyMap::same(&["beds", "area"]).unwrap()).unwrap();
    assert_eq!(k.table().names(), vec!["beds", "area"]);
    assert_eq!(k.nrows(), 2);
    assert_eq!(k.table().source().as_str(), "intruder.csv");
    assert!(k.table().column("true_wealth").is_err() && k.table().column("name").is_err());
    assert_eq!(k.keys(), &KeyMap::same(&["beds", "area"]).unwrap());
    // The values are the intruder's, untouched.
    assert_eq!(k.table().column("beds").unwrap().as_f64(1), Some(3.0));
    // A key map renames the released side only; the knowledge keeps the intruder's names.
    let km = KeyMap::with_map(&["area"], &[("area".into(), "region".into())]).unwrap();
    let k = Knowledge::new(&i.table, km).unwrap();
    assert_eq!(k.table().names(), vec!["area"]);
    assert_eq!(k.keys().pairs()[0].released, "region");
}

/// Truth ids are looked up as the cells' text, whatever the column stores: a released id that
/// appears twice is an error naming the file, the id and both rows; intruder records sharing
/// an id are each scored against that id's released record, with a warning naming the first
/// shared id and its rows; text and integer ids give the same twins.
#[test]
fn truth_ids_twice_are_refused_or_warned_by_name() {
    let i = load("pid,area\n3,2\n1,1\n3,2\n", "intruder.csv", &["pid"]);
    let twice = load("pid,area\n1,2\n2,1\n1,1\n", "released.csv", &["pid"]);
    let keys = KeyMap::same(&["area"]).unwrap();
    let l = run("method = \"exact\"", &i, &twice, &keys);
    let err = try_eval(&l, &i, &twice, Some("pid"), None)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("released.csv") && err.contains("truth id '1' appears on rows 1 and 3"),
        "{err}"
    );
    for released in ["pid,area\n1,1\n3,2\n", "pid,area\nx,9\n1,1\n3,2\n"] {
        let r = load(released, "released.csv", &["pid"]);
        let l = run("method = \"exact\"", &i, &r, &keys);
        let ev = eval(&l, &i, &r, Some("pid"), None);
        assert_eq!(ev.twins, 3, "{released}");
        assert_eq!(ev.correct_matches, 3, "{released}");
        assert_eq!(ev.warnings.len(), 1, "{:?}", ev.warnings);
        assert!(
            ev.warnings[0].contains(
                "truth id '3' appears on row 1 and again on row 3 (1 intruder record shares"
            ),
            "{}",
            ev.warnings[0]
        );
    }
}
