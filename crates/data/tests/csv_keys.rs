//! A CSV file's integer keys counted from the reader's chunks ([`CsvFile::keys`]) against the
//! table the reader makes: the codes and cardinalities [`ColumnCodes`] gives the table's
//! columns, or a refusal exactly where the table's column is not an undeclared integer column
//! coded by offset; the table and the columns [`CsvFile`] gives are the reader's.

use std::path::Path;

use intruder_data::keys::{
    CodeSource, ColumnCodes, Keys, MISSING, Packing, PartedCodes, SetCoding,
};
use intruder_data::{ColumnSpec, CsvFile, DataError, Dataset, Kind, ReadOptions, Role, reference};
use proptest::prelude::*;

fn describe(r: &Result<Dataset, DataError>) -> String {
    match r {
        Err(e) => format!("error: {e}"),
        Ok(ds) => ds
            .all_columns()
            .map(|c| {
                format!(
                    "{} {:?} {:?} {:?} {:?}\n",
                    c.name(),
                    c.role(),
                    c.kind(),
                    c.missing().words(),
                    c.data()
                )
            })
            .collect(),
    }
}

/// Every key's codes in row order, part after part.
fn parted_codes(keys: &dyn PartedCodes) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new(); keys.nkeys()];
    for part in 0..keys.part_rows().len() {
        let mut seen = 0;
        let ok = keys
            .for_each_piece(part, &mut |offset, sources: &[&dyn CodeSource]| {
                assert_eq!(offset, seen);
                for (k, s) in sources.iter().enumerate() {
                    assert_eq!(s.card(), keys.cards()[k]);
                    // In two blocks, to read from the middle of a piece too.
                    let mut codes = vec![0u32; s.len()];
                    let half = s.len() / 2;
                    s.fill(0, &mut codes[..half]);
                    s.fill(half, &mut codes[half..]);
                    out[k].extend(codes);
                }
                seen += sources.first().map_or(0, |s| s.len());
            })
            .unwrap();
        assert!(ok);
        assert_eq!(seen, keys.part_rows()[part]);
    }
    out
}

/// Checks `CsvFile` on `text` against the table reader, in chunks of `chunk` bytes.
fn check(text: &[u8], opts: &ReadOptions, chunk: usize) -> Result<usize, TestCaseError> {
    let label = Path::new("k.csv");
    let table = reference::read_chunked(text, label, opts, chunk);
    let file = reference::csv_file_chunked(text, label, opts, chunk);
    let Ok(file) = file else {
        prop_assert_eq!(
            describe(&table),
            describe(&file.map(|f| f.into_dataset().unwrap()))
        );
        return Ok(0);
    };
    let ds = table.as_ref().unwrap();
    prop_assert_eq!(file.columns(), ds.column_set());
    let mut taken = 0;
    let mut all = Vec::new();
    for c in ds.all_columns() {
        let declared = opts
            .overrides
            .iter()
            .any(|(n, spec)| n == c.name() && spec.kind.is_some());
        let expect = (c.kind() == Kind::Integer
            && !declared
            && !matches!(c.role(), Role::Weight | Role::Truth))
        .then(|| ColumnCodes::of(c, SetCoding::Whole))
        .filter(|s| matches!(s, ColumnCodes::Offset { .. }));
        let names = vec![c.name().to_string()];
        let got = file.keys(&names);
        prop_assert_eq!(
            got.is_some(),
            expect.is_some(),
            "column {} in chunks of {} of {:?} with {:?}",
            c.name(),
            chunk,
            String::from_utf8_lossy(text),
            opts
        );
        if let (Some(got), Some(expect)) = (got, expect) {
            let mut codes = vec![0u32; expect.len()];
            expect.fill(0, &mut codes);
            prop_assert_eq!(got.cards(), &[expect.card()][..]);
            prop_assert_eq!(parted_codes(&got), vec![codes]);
            taken += 1;
            all.push(c.name().to_string());
        }
    }
    if !all.is_empty() {
        all.reverse();
        let keys = file.keys(&all).unwrap();
        prop_assert_eq!(keys.cards().len(), all.len());
        prop_assert_eq!(keys.part_rows().iter().sum::<usize>(), ds.table.nrows());
        // Made whole, they are the key codes of the table.
        let whole = Keys::encode(&ds.table, &all, SetCoding::Whole).unwrap();
        prop_assert_eq!(Keys::from_parts(&keys).unwrap(), Some(whole.clone()));
        // Packed one word per row: each row's codes in their fields, and which keys miss or
        // have a value somewhere.
        if let Some(packed) = Keys::packed_from_parts(&keys).unwrap() {
            let p = &packed.packing;
            prop_assert_eq!(p.nkeys(), all.len());
            let expect: Vec<u64> = (0..whole.n)
                .map(|r| p.pack(whole.codes.iter().map(|c| c[r])))
                .collect();
            prop_assert_eq!(&packed.words, &expect);
            for (k, c) in whole.codes.iter().enumerate() {
                prop_assert_eq!(packed.any_missing[k], c.contains(&MISSING));
                prop_assert_eq!(packed.any_observed[k], c.iter().any(|&x| x != MISSING));
            }
        } else {
            // Only when the fields need more than 64 bits.
            prop_assert!(Packing::of_cards(keys.cards()).is_none());
        }
    }
    prop_assert_eq!(
        describe(&table),
        describe(&Ok(file.into_dataset().unwrap()))
    );
    Ok(taken)
}

#[derive(Debug, Clone)]
struct Case {
    /// Per column: 0 small integers, 1 integers spanning 2²⁴ or more, 2 integers and a word,
    /// 3 integers and a decimal, 4 integers far from 0.
    styles: Vec<u8>,
    cells: Vec<Vec<(i64, bool)>>,
    roles: Vec<u8>,
    declare_integer: Option<usize>,
    quote_at: Option<usize>,
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..5, 0usize..80).prop_flat_map(|(ncols, nrows)| {
        (
            prop::collection::vec(0u8..5, ncols),
            prop::collection::vec(
                prop::collection::vec((-1000i64..1000, prop::bool::weighted(0.15)), ncols),
                nrows,
            ),
            prop::collection::vec(0u8..6, ncols),
            prop::option::weighted(0.2, 0..ncols),
            prop::option::weighted(0.2, 0..nrows.max(1)),
        )
            .prop_map(|(styles, cells, roles, declare_integer, quote_at)| Case {
                styles,
                cells,
                roles,
                declare_integer,
                quote_at,
            })
    })
}

fn render(c: &Case) -> (Vec<u8>, ReadOptions) {
    let ncols = c.styles.len();
    let mut s: String = (0..ncols)
        .map(|j| format!("c{j}"))
        .collect::<Vec<_>>()
        .join(",");
    s.push('\n');
    for (i, row) in c.cells.iter().enumerate() {
        let fields: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(j, &(v, missing))| {
                if missing {
                    return if v % 2 == 0 {
                        String::new()
                    } else {
                        "NA".into()
                    };
                }
                let cell = match c.styles[j] {
                    0 => (v % 7).to_string(),
                    1 => (v * 40_000).to_string(),
                    2 if v % 50 == 0 => "word".to_string(),
                    3 if v % 50 == 0 => "1.5".to_string(),
                    4 => (v % 5 + 5_000_000_000).to_string(),
                    _ => (v % 13 - 3).to_string(),
                };
                if c.quote_at == Some(i) && j == 0 {
                    format!("\"{cell}\"")
                } else {
                    cell
                }
            })
            .collect();
        s += &fields.join(",");
        s.push('\n');
    }
    let mut opts = ReadOptions::default();
    for (j, &r) in c.roles.iter().enumerate() {
        let role = match r {
            0 => Some(Role::Weight),
            1 => Some(Role::Truth),
            2 => Some(Role::Key),
            _ => None,
        };
        if role.is_some() {
            let spec: &mut ColumnSpec = opts.override_spec(&format!("c{j}"));
            spec.role = role;
        }
    }
    if let Some(j) = c.declare_integer {
        opts.override_spec(&format!("c{j}")).kind = Some(Kind::Integer);
    }
    (s.into_bytes(), opts)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn csv_keys_are_the_tables_codes_or_none(c in case()) {
        let (text, opts) = render(&c);
        for chunk in [1usize, 17, 64, 1 << 20] {
            check(&text, &opts, chunk)?;
        }
    }
}

#[test]
fn integer_keys_of_a_csv_file_come_from_its_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.csv");
    let mut text = String::from("a,b,w,t\n");
    for i in 0..5000i64 {
        let a = if i % 17 == 0 {
            String::new()
        } else {
            (i % 9 - 4).to_string()
        };
        text += &format!("{a},{},{}.5,x{}\n", 100 + i % 3, i % 4, i % 2);
    }
    std::fs::write(&path, &text).unwrap();
    let opts = ReadOptions::default();
    let file = CsvFile::read(&path, &opts).unwrap().unwrap();
    let keys = file.keys(&["a".into(), "b".into()]).unwrap();
    // a: −4 … 4 and the missing cells' 0; b: 100 … 102 (no cell missing).
    assert_eq!(keys.cards(), &[9, 3]);
    let codes = parted_codes(&keys);
    assert_eq!(&codes[0][..3], &[u32::MAX, 1, 2]);
    assert_eq!(&codes[1][..4], &[0, 1, 2, 0]);
    // A float and a text column are not integer keys.
    assert!(file.keys(&["w".into()]).is_none());
    assert!(file.keys(&["t".into()]).is_none());
    assert!(file.keys(&["nope".into()]).is_none());
    assert_eq!(
        describe(&Ok(file.into_dataset().unwrap())),
        describe(&intruder_data::read_csv(&path, &opts))
    );
    // Not a plain CSV file: the table reader's business.
    let gz = dir.path().join("k.csv.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, text.as_bytes()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    assert!(CsvFile::read(&gz, &opts).unwrap().is_none());
    assert!(
        CsvFile::read(&dir.path().join("absent.csv"), &opts)
            .unwrap()
            .is_none()
    );
    // A parse error is the reader's.
    std::fs::write(&path, "a,b\n1,2\n3\n").unwrap();
    assert_eq!(
        CsvFile::read(&path, &opts).unwrap_err().to_string(),
        intruder_data::read_csv(&path, &opts)
            .unwrap_err()
            .to_string()
    );
}
