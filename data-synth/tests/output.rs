//! The CSV writer (`output::CsvSink`, on the `csv` crate) round-trips awkward text through both
//! readers: the crate's own `figures::Table` and the toolkit's `intruder_data` reader.

use intruder_data::{ReadOptions, read_csv};
use intruder_synth::figures::Table;
use intruder_synth::output::OutputSet;

#[test]
fn awkward_fields_round_trip_through_both_readers() {
    let dir = tempfile::tempdir().unwrap();
    let mut out = OutputSet::new(dir.path()).unwrap();
    let mut w = out.create("t.csv").unwrap();
    w.header(&["id", "name", "x"]).unwrap();
    let names = ["plain", "a,b", "say \"hi\"", "two\nlines", ""];
    for (i, n) in names.iter().enumerate() {
        w.int(i as u64 + 1).str(n).float(0.1 * i as f64, 2);
        w.end().unwrap();
    }
    w.opt_int(None).opt_str(None).float(-1.5, 1);
    w.end().unwrap();
    w.finish().unwrap();
    let files = out.commit().unwrap();
    let path = &files[0];

    let text = std::fs::read_to_string(path).unwrap();
    assert!(
        text.starts_with("id,name,x\n1,plain,0.00\n2,\"a,b\",0.10\n3,\"say \"\"hi\"\"\",0.20\n")
    );
    assert!(text.ends_with("5,,0.40\n,,-1.5\n"), "{text}");

    let t = Table::read(path).unwrap();
    assert_eq!(t.header, ["id", "name", "x"]);
    assert_eq!(t.rows.len(), 6);
    for (i, n) in names.iter().enumerate() {
        assert_eq!(t.rows[i][1], *n);
    }

    let d = read_csv(path, &ReadOptions::default()).unwrap();
    let name = d.table.column("name").unwrap();
    for (i, n) in names.iter().enumerate() {
        assert_eq!(
            name.text(i).as_deref(),
            (!n.is_empty()).then_some(*n),
            "row {i}"
        );
    }
    assert_eq!(d.table.nrows(), 6);
}
