//! Labelled data: table and truth move together through every row operation, and what an
//! attack is handed holds the intruder's key columns only.

use intruder_attack::{KeyMap, configure};
use intruder_data::params::ReadContext;
use intruder_data::{Column, Dataset, ReadOptions, Role, Table, read_csv_from};
use intruder_defence::Pipeline;
use intruder_eval::{Labelled, Truth, TruthIds};

fn labelled(csv: &str, truth: &[&str]) -> Labelled {
    let opts = ReadOptions::default().with_role(truth, Role::Truth);
    Labelled::from_dataset(read_csv_from(csv.as_bytes(), "f.csv".as_ref(), &opts).unwrap())
}

fn texts(c: &Column) -> Vec<String> {
    (0..c.len())
        .map(|i| c.text(i).map_or("NA".into(), |s| s.into_owned()))
        .collect()
}

const F: &str = "pid,area,beds,income\np1,1,2,10\np2,1,3,20\np3,2,2,30\np4,2,3,40\n";

#[test]
fn a_defence_that_reorders_records_keeps_their_truth() {
    let l = labelled(F, &["pid"]);
    // A "defence" that reverses the records without dropping any: the row count is unchanged,
    // so only the kept rows can realign the truth.
    let reversed = l.table().take(&[3, 2, 1, 0]);
    let m = l.mask(reversed, &[3, 2, 1, 0]).unwrap();
    assert_eq!(
        texts(m.truth().column("pid").unwrap()),
        ["p4", "p3", "p2", "p1"]
    );
    assert_eq!(
        texts(m.table().column("income").unwrap()),
        ["40", "30", "20", "10"]
    );
}

#[test]
fn a_pipeline_that_removes_and_samples_records_keeps_their_truth() {
    let ids: Vec<Option<String>> = (0..20).map(|i| Some(format!("p{i}"))).collect();
    let ids: Vec<Option<&str>> = ids.iter().map(|s| s.as_deref()).collect();
    let a: Vec<Option<i64>> = (0..20).map(|i| Some(if i < 17 { 1 } else { i })).collect();
    let ds = Dataset::split_truth(
        "d",
        vec![
            Column::integer("a", Role::Key, &a),
            Column::string("pid", Role::Truth, &ids),
            Column::integer("row", Role::Other, &(0..20).map(Some).collect::<Vec<_>>()),
        ],
    )
    .unwrap();
    let l = Labelled::from_dataset(ds);
    let p = Pipeline::from_toml(
        "[[step]]\nmethod = \"remove-records\"\nkeys = [\"a\"]\nk = 2\n\n[[step]]\nmethod = \"subsample\"\nfraction = 0.5\n",
        "p",
    )
    .unwrap();
    let (t, log) = p.run(l.table(), 8).unwrap();
    let m = l.mask(t, &log.kept_rows).unwrap();
    assert_eq!(m.nrows(), 9, "17 kept, then round(8.5) = 9");
    let (pid, row) = (
        m.truth().column("pid").unwrap(),
        m.table().column("row").unwrap(),
    );
    for j in 0..m.nrows() {
        assert_eq!(pid.text(j).unwrap(), format!("p{}", row.text(j).unwrap()));
    }
}

#[test]
fn masking_with_a_wrong_kept_row_list_is_an_error() {
    let l = labelled(F, &["pid"]);
    let e = l
        .mask(l.table().take(&[0, 1]), &[0])
        .unwrap_err()
        .to_string();
    assert!(e.contains("kept-row list has 1 rows, the table 2"), "{e}");
    let e = l.mask(l.table().take(&[0]), &[7]).unwrap_err().to_string();
    assert!(e.contains("kept row 7 of a table of 4 rows"), "{e}");
    // A truth of another length cannot be paired with a table.
    let t = Truth::new(vec![Column::integer("pid", Role::Truth, &[Some(1)])]);
    assert!(Labelled::new(l.table().clone(), t).is_err());
}

#[test]
fn filter_take_and_cell_changes_move_the_truth_along() {
    let l = labelled(F, &["pid"]);
    let f = l.filter(&[("beds".into(), "3".into())]).unwrap();
    assert_eq!(texts(f.truth().column("pid").unwrap()), ["p2", "p4"]);
    // A condition may name a truth column; an unknown column is an error that names it.
    let g = l.filter(&[("pid".into(), "p3".into())]).unwrap();
    assert_eq!(texts(g.table().column("income").unwrap()), ["30"]);
    let e = l
        .filter(&[("bedz".into(), "3".into())])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("no column named 'bedz'") && e.contains("beds"),
        "{e}"
    );
    let t = l.take(&[2, 0]);
    assert_eq!(texts(t.truth().column("pid").unwrap()), ["p3", "p1"]);
    // A change of cells must keep the records.
    let e = l
        .clone()
        .map_cells(|t| Ok(t.take(&[0])))
        .unwrap_err()
        .to_string();
    assert!(e.contains("has 1 rows, the table 4"), "{e}");
    let with = l
        .with_truth(Column::float(
            "income@original",
            Role::Other,
            &[Some(1.0); 4],
        ))
        .unwrap();
    assert_eq!(
        with.truth().column("income@original").unwrap().role(),
        Role::Truth
    );
}

#[test]
fn twins_only_keeps_the_released_records_with_a_twin_and_their_truth() {
    let intruder = labelled("pid,area\np3,2\np9,1\np1,1\n", &["pid"]);
    let released = labelled(F, &["pid"]);
    let ids = TruthIds {
        intruder: "pid".into(),
        released: "pid".into(),
    };
    let t = released.twins_only(&intruder, &ids).unwrap();
    assert_eq!(texts(t.truth().column("pid").unwrap()), ["p1", "p3"]);
    assert_eq!(texts(t.table().column("income").unwrap()), ["10", "30"]);
    let bad = TruthIds {
        intruder: "pidd".into(),
        released: "pid".into(),
    };
    let e = released
        .twins_only(&intruder, &bad)
        .unwrap_err()
        .to_string();
    assert!(e.contains("no ground-truth column 'pidd'"), "{e}");
}

/// What an attack is handed: the knowledge holds the scenario's key columns only (not the
/// intruder's other columns, not the truth), and the released side is a `Table`, which cannot
/// hold a truth column. `Attack::link` takes nothing else.
#[test]
fn an_attack_gets_the_key_columns_and_nothing_else() {
    let l = labelled(F, &["pid"]);
    let k = l
        .knowledge(KeyMap::same(&["area", "beds"]).unwrap())
        .unwrap();
    assert_eq!(k.table().names(), ["area", "beds"]);
    // The truth cannot be asked for as a key: it is not a column of the table.
    let e = l
        .knowledge(KeyMap::same(&["pid"]).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("no column named 'pid'"), "{e}");
    let truth_col = Column::string("pid", Role::Truth, &[Some("p1")]);
    assert!(Table::new("r.csv", vec![truth_col]).is_err());
    // An attack run on the knowledge links on the keys only.
    let table: toml::Table = "method = \"exact\"\nkeys = [\"area\", \"beds\"]"
        .parse()
        .unwrap();
    let c = configure(&table, "", ReadContext::default()).unwrap();
    let linked = c.attack.link(&k, l.table(), 0).unwrap();
    assert_eq!(linked.linkage.records[0].best_ties(), 1);
}

/// A synthetic release (a synthesiser made its records): its truth is no one, so no released
/// record is an intruder's twin, no re-identification is correct, and every declared link is
/// wrong — even when a synthetic record happens to repeat an original's keys.
#[test]
fn a_synthetic_release_is_no_ones_twin() {
    let l = labelled(F, &["pid"]);
    let p =
        Pipeline::from_toml("[[step]]\nmethod = \"independent-marginals\"\nn = 6\n", "p").unwrap();
    let (t, log) = p.run(l.table(), 3).unwrap();
    assert_eq!(log.synthetic, Some(1));
    // the kept-row list is empty: masking with it is an error, the release is not
    assert!(l.mask(t.clone(), &log.kept_rows).is_err());
    let released = l.release(t, &log).unwrap();
    assert_eq!(released.nrows(), 6);
    let pid = released.truth().column("pid").unwrap();
    assert_eq!(pid.missing_count(), 6);
    assert_eq!(pid.kind(), l.truth().column("pid").unwrap().kind());
    // a masking log keeps the truth of its kept rows
    let q = Pipeline::from_toml("[[step]]\nmethod = \"subsample\"\nsize = 2\n", "q").unwrap();
    let (s, slog) = q.run(l.table(), 3).unwrap();
    let kept = l.release(s.clone(), &slog).unwrap();
    assert_eq!(kept, l.mask(s, &slog.kept_rows).unwrap());
    // the exact attack links every intruder record somewhere; none of the links is right
    let table: toml::Table = "method = \"exact\"\nkeys = [\"area\", \"beds\"]"
        .parse()
        .unwrap();
    let c = configure(&table, "", ReadContext::default()).unwrap();
    let k = l
        .knowledge(KeyMap::same(&["area", "beds"]).unwrap())
        .unwrap();
    let linked = c.attack.link(&k, released.table(), 0).unwrap();
    let opts = intruder_eval::EvalOptions {
        truth: Some(TruthIds {
            intruder: "pid".into(),
            released: "pid".into(),
        }),
        sensitive: None,
        threshold: None,
        seed: 1,
    };
    let ev = intruder_eval::evaluate(&linked.linkage, &l, &released, &opts).unwrap();
    assert_eq!(ev.twins, 0);
    assert_eq!(ev.correct_matches, 0);
    assert_eq!(ev.correct_match_rate, None);
    assert!(ev.declared > 0);
    assert_eq!(ev.precision, Some(0.0));
}
