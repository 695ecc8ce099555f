//! The fast CSV writer against the `csv` crate writing `Column::text` (the previous writer):
//! byte-identical files for every kind of column, special characters and missing cells.

use intruder_data::{Column, Dataset, Role, Table};
use proptest::prelude::*;

/// The previous implementation of `Table::write_csv`, kept as the reference.
fn reference(columns: &[&Column], nrows: usize) -> Vec<u8> {
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(columns.iter().map(|c| c.name())).unwrap();
    let mut row: Vec<String> = Vec::with_capacity(columns.len());
    for i in 0..nrows {
        row.clear();
        row.extend(
            columns
                .iter()
                .map(|c| c.text(i).map(|s| s.into_owned()).unwrap_or_default()),
        );
        out.write_record(&row).unwrap();
    }
    out.into_inner().unwrap()
}

const TEXT: &[&str] = &[
    "",
    "a",
    "b c",
    "x,y",
    "say \"hi\"",
    "two\nlines",
    "cr\r",
    "é",
    " lead",
    "3",
    "-0",
    "1|2",
];

fn column(kind: u8, j: usize, cells: &[(bool, u64)]) -> Column {
    let name = if j == 1 {
        format!("c,{j}")
    } else {
        format!("c{j}")
    };
    let n = cells.len();
    match kind {
        0 => Column::integer(
            name,
            Role::Key,
            &cells
                .iter()
                .map(|&(m, v)| (!m).then_some(v as i64))
                .collect::<Vec<_>>(),
        ),
        1 => Column::float(
            name,
            Role::Other,
            &cells
                .iter()
                .map(|&(m, v)| {
                    let x = match v % 4 {
                        0 => f64::from_bits(v),
                        1 => (v % 2000) as f64 / 8.0 - 100.0,
                        2 => -0.0,
                        _ => (v as f64) * 1e-3,
                    };
                    (!m && x.is_finite()).then_some(x)
                })
                .collect::<Vec<_>>(),
        ),
        2 => Column::string(
            name,
            Role::Other,
            &cells
                .iter()
                .map(|&(m, v)| (!m).then_some(TEXT[v as usize % TEXT.len()]))
                .collect::<Vec<_>>(),
        ),
        3 => Column::categorical(
            name,
            Role::Key,
            &cells
                .iter()
                .map(|&(m, v)| (!m).then_some(TEXT[v as usize % TEXT.len()]))
                .collect::<Vec<_>>(),
            None,
        )
        .unwrap(),
        _ => Column::set(
            name,
            Role::Key,
            &cells
                .iter()
                .map(|&(m, v)| {
                    if m {
                        vec![]
                    } else {
                        (0..1 + v % 3)
                            .map(|k| TEXT[(v / 7 + k) as usize % TEXT.len()])
                            .collect()
                    }
                })
                .collect::<Vec<_>>(),
            None,
        )
        .unwrap(),
    }
    .tap_len(n)
}

trait TapLen {
    fn tap_len(self, n: usize) -> Self;
}
impl TapLen for Column {
    fn tap_len(self, n: usize) -> Self {
        assert_eq!(self.len(), n);
        self
    }
}

fn check(cols: Vec<Column>) {
    let n = cols.first().map_or(0, Column::len);
    let t = Table::new("t.csv", cols).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("out.csv");
    t.write_csv(&p).unwrap();
    let want = reference(&t.columns().iter().collect::<Vec<_>>(), n);
    let got = std::fs::read(&p).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn tables_write_as_the_csv_crate_wrote_them(
        kinds in prop::collection::vec(0u8..5, 1..5),
        cells in prop::collection::vec((prop::bool::weighted(0.2), any::<u64>()), 0..60),
    ) {
        let cols: Vec<Column> = kinds.iter().enumerate().map(|(j, &k)| column(k, j, &cells)).collect();
        check(cols);
    }
}

#[test]
fn one_empty_field_is_quoted_and_large_tables_keep_row_order() {
    check(vec![Column::string(
        "s",
        Role::Other,
        &[Some(""), None, Some("x")],
    )]);
    let cells: Vec<(bool, u64)> = (0..300_000u64)
        .map(|i| (i % 17 == 0, i.wrapping_mul(0x9E37_79B9_7F4A_7C15)))
        .collect();
    check((0..5).map(|k| column(k, k as usize, &cells)).collect());
}

#[test]
fn datasets_write_truth_after_the_table() {
    let ds = Dataset::split_truth(
        "d.csv",
        vec![
            Column::string("pid", Role::Truth, &[Some("p1"), Some("p,2")]),
            Column::integer("age", Role::Key, &[Some(30), None]),
        ],
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("d.csv");
    ds.write_csv(&p).unwrap();
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "age,pid\n30,p1\n,\"p,2\"\n"
    );
}
