//! The CSV reader: delimiters, quoting, BOM, inference, schemas and overrides, set-valued cells,
//! the numeric switch for large dictionaries, and writing back.

use intruder_data::{
    ColumnData, ColumnSpec, Kind, ReadOptions, Role, Schema, read_csv, read_csv_from,
};

fn read(
    text: &str,
    opts: &ReadOptions,
) -> Result<intruder_data::Dataset, intruder_data::DataError> {
    read_csv_from(text.as_bytes(), "t.csv".as_ref(), opts)
}

#[test]
fn infers_integer_float_categorical_and_string() {
    let ds = read(
        "i,f,c,s\n1,1.5,a,x\n2,2,b,y\n3,.,a,z\n",
        &ReadOptions::default(),
    )
    .unwrap();
    let t = &ds.table;
    assert_eq!(t.column("i").unwrap().kind(), Kind::Integer);
    assert_eq!(t.column("f").unwrap().kind(), Kind::Float);
    assert!(t.column("f").unwrap().is_missing(2));
    let c = t.column("c").unwrap();
    assert_eq!(c.kind(), Kind::Categorical);
    assert_eq!(c.levels().unwrap(), ["a", "b"]);
    // Few rows: text with few distinct values stays categorical.
    assert_eq!(t.column("s").unwrap().kind(), Kind::Categorical);
}

#[test]
fn numeric_levels_sort_numerically() {
    let opts = ReadOptions::default().with_role(&["g"], Role::Key);
    let mut o = opts.clone();
    o.override_spec("g").kind = Some(Kind::Categorical);
    let ds = read("g\n10\n9\n100\n9\n", &o).unwrap();
    assert_eq!(
        ds.table.column("g").unwrap().levels().unwrap(),
        ["9", "10", "100"]
    );
}

#[test]
fn delimiters_quotes_and_bom() {
    let ds = read(
        "\u{feff}a;b\n\"x;y\";2\n",
        &ReadOptions {
            delimiter: Some(b';'),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(ds.table.names(), vec!["a", "b"]);
    assert_eq!(ds.table.column("a").unwrap().text(0).unwrap(), "x;y");
    let ds = read(
        "a\tb\n1\t2\n",
        &ReadOptions {
            delimiter: Some(b'\t'),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(ds.table.column("b").unwrap().as_f64(0), Some(2.0));
}

#[test]
fn custom_missing_tokens_per_file_and_per_column() {
    let opts = ReadOptions {
        missing: Some(vec!["-9".into()]),
        ..Default::default()
    };
    let ds = read("a,b\n-9,NA\n1,2\n", &opts).unwrap();
    assert!(ds.table.column("a").unwrap().is_missing(0));
    // "NA" is no longer a missing token: b is text.
    assert!(!ds.table.column("b").unwrap().is_missing(0));
    let schema = Schema::from_toml("[columns.b]\nmissing = [\"?\"]\n", "s.toml".as_ref()).unwrap();
    let ds = read(
        "a,b\n,?\n1,2\n",
        &ReadOptions {
            schema: Some(schema),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(ds.table.column("a").unwrap().is_missing(0));
    assert!(ds.table.column("b").unwrap().is_missing(0));
}

#[test]
fn overrides_win_over_the_schema() {
    let schema = Schema::from_toml(
        "[columns.a]\ntype = \"categorical\"\nrole = \"sensitive\"\n",
        "s.toml".as_ref(),
    )
    .unwrap();
    let mut opts = ReadOptions {
        schema: Some(schema),
        ..Default::default()
    }
    .with_role(&["a"], Role::Key);
    opts.override_spec("a").kind = Some(Kind::Integer);
    let ds = read("a\n1\n2\n", &opts).unwrap();
    let a = ds.table.column("a").unwrap();
    assert_eq!((a.kind(), a.role()), (Kind::Integer, Role::Key));
}

#[test]
fn truth_columns_leave_the_table() {
    let schema = Schema::from_toml("[columns.pid]\nrole = \"truth\"\n", "s.toml".as_ref()).unwrap();
    let ds = read(
        "pid,age\np1,30\np2,40\n",
        &ReadOptions {
            schema: Some(schema),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(ds.table.names(), vec!["age"]);
    assert_eq!(ds.truth_column("pid").unwrap().text(1).unwrap(), "p2");
}

#[test]
fn set_valued_cells_keep_their_written_order() {
    let opts = ReadOptions::default().with_set_valued(&["m"]);
    let ds = read("m,x\n4|3,1\n3,1\n,1\n3|3,1\n", &opts).unwrap();
    let m = ds.table.column("m").unwrap();
    assert_eq!(m.levels().unwrap(), ["3", "4"]);
    assert_eq!(m.set_items(0), &[1, 0]);
    assert!(m.is_missing(2));
    assert_eq!(m.set_items(3), &[0], "a repeated candidate counts once");
    let err = read("m\n3||4\n", &opts).unwrap_err().to_string();
    assert!(
        err.contains("t.csv:2") && err.contains("empty candidate"),
        "{err}"
    );
    let mut o = opts.clone();
    o.override_spec("m").separator = Some("/".into());
    assert_eq!(
        read("m\n3/4\n", &o)
            .unwrap()
            .table
            .column("m")
            .unwrap()
            .set_items(0)
            .len(),
        2
    );
}

#[test]
fn header_problems() {
    let err = read("a,a\n1,2\n", &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("t.csv:1") && err.contains("appears twice"),
        "{err}"
    );
    let err = read("a,\n1,2\n", &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("empty column name"), "{err}");
    let err = read(
        "a\n1\n",
        &ReadOptions::default().with_role(&["b"], Role::Key),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("no column named 'b'"), "{err}");
}

#[test]
fn a_large_numeric_column_switches_to_plain_storage() {
    let mut text = String::from("x,y\n");
    for i in 0..70_000 {
        text += &format!("{},{}\n", i * 3, i as f64 + 0.5);
    }
    let ds = read(&text, &ReadOptions::default()).unwrap();
    assert!(
        matches!(ds.table.column("x").unwrap().data(), ColumnData::Integer(v) if v[69_999] == 209_997)
    );
    assert!(matches!(ds.table.column("y").unwrap().data(), ColumnData::Float(v) if v[1] == 1.5));
    // A text value after the switch keeps everything, as text.
    text += "oops,1\n";
    let ds = read(&text, &ReadOptions::default()).unwrap();
    let x = ds.table.column("x").unwrap();
    assert_eq!(x.kind(), Kind::String);
    assert_eq!(x.text(70_000).unwrap(), "oops");
    assert_eq!(x.text(2).unwrap(), "6");
}

#[test]
fn write_and_read_back_with_the_tables_schema() {
    let opts = ReadOptions::default()
        .with_set_valued(&["m"])
        .with_role(&["g"], Role::Key);
    let ds = read("g,m,v,pid\nF,3|4,1.25,a\nM,,NA,b\n", &opts.clone()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("out.csv");
    ds.write_csv(&csv).unwrap();
    let schema_text = ds.schema().to_toml();
    let schema = Schema::from_toml(&schema_text, "schema.toml".as_ref()).unwrap();
    let back = read_csv(
        &csv,
        &ReadOptions {
            schema: Some(schema),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(back.table, ds.table.clone().with_source(&csv));
    assert_eq!(back.truth, ds.truth);
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left behind"
    );
}

trait WithSource {
    fn with_source(self, p: &std::path::Path) -> intruder_data::Table;
}
impl WithSource for intruder_data::Table {
    fn with_source(self, p: &std::path::Path) -> intruder_data::Table {
        intruder_data::Table::new(p, self.columns().to_vec()).unwrap()
    }
}

#[test]
fn schema_spec_defaults_are_empty() {
    assert_eq!(ColumnSpec::default().kind, None);
}

/// Issue 38: a `;`-separated file with decimal commas, as spreadsheets in much of Europe save
/// it, reads as numbers without flags; the choices are noted; a given delimiter or decimal
/// mark wins.
#[test]
fn delimiter_and_decimal_comma_are_detected_and_noted() {
    let text = "region;income;share\nnorth;1234,5;0,25\nsouth;99;-1,5\n";
    let ds = read(text, &ReadOptions::default()).unwrap();
    let t = &ds.table;
    assert_eq!(t.names(), ["region", "income", "share"]);
    assert_eq!(t.column("income").unwrap().kind(), Kind::Float);
    assert_eq!(t.column("share").unwrap().as_f64(1), Some(-1.5));
    assert_eq!(t.column("income").unwrap().as_f64(0), Some(1234.5));
    assert_eq!(ds.notes.len(), 2, "{:?}", ds.notes);
    assert!(ds.notes[0].contains("t.csv") && ds.notes[0].contains("';'"));
    assert!(ds.notes[1].contains("decimal comma") && ds.notes[1].contains("'1234,5'"));
    // The decimal mark given: the cells stay text.
    let opts = ReadOptions {
        decimal: Some(b'.'),
        ..ReadOptions::default()
    };
    let ds = read(text, &opts).unwrap();
    assert_eq!(ds.table.column("income").unwrap().kind(), Kind::Categorical);
    assert_eq!(ds.notes.len(), 1);
    // A comma-separated file is read as before, without a note.
    let ds = read("a,b\n1,2.5\n", &ReadOptions::default()).unwrap();
    assert!(ds.notes.is_empty());
    assert_eq!(ds.table.column("b").unwrap().kind(), Kind::Float);
}

/// Excel's "Unicode text" is UTF-16 with a byte-order mark and tabs.
#[test]
fn utf16_files_are_decoded() {
    for big_endian in [false, true] {
        let text = "a\tb\r\n1\tx\r\n2\tÿ\r\n";
        let mut bytes: Vec<u8> = if big_endian {
            vec![0xfe, 0xff]
        } else {
            vec![0xff, 0xfe]
        };
        for u in text.encode_utf16() {
            bytes.extend(if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            });
        }
        let ds = read_csv_from(&bytes[..], "u.csv".as_ref(), &ReadOptions::default()).unwrap();
        assert_eq!(ds.table.names(), ["a", "b"]);
        assert_eq!(ds.table.column("b").unwrap().text(1).unwrap(), "ÿ");
        assert_eq!(ds.table.column("a").unwrap().kind(), Kind::Integer);
    }
}

#[test]
fn a_header_without_records_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("h.csv");
    std::fs::write(&p, "a,b,c\n").unwrap();
    let e = read_csv(&p, &ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("h.csv") && e.contains("no records") && e.contains("a, b, c"),
        "{e}"
    );
}

#[test]
fn every_unknown_column_is_named_at_once() {
    let opts = ReadOptions::default()
        .with_role(&["rooof", "Sex"], Role::Key)
        .with_role(&["weigth"], Role::Weight);
    let e = read("roof,sex,weight\n1,2,3\n", &opts)
        .unwrap_err()
        .to_string();
    for x in [
        "'rooof' (did you mean 'roof'?)",
        "'Sex' (did you mean 'sex'?)",
        "'weigth' (did you mean 'weight'?)",
    ] {
        assert!(e.contains(x), "{x} in {e}");
    }
    // Optional role overrides are left to the caller's check.
    let mut opts = opts;
    opts.optional_overrides = true;
    assert!(read("roof,sex,weight\n1,2,3\n", &opts).is_ok());
}
