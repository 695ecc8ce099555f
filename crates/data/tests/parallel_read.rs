//! The parallel CSV reader against the one-pass reference: identical tables (kinds, levels and
//! their order, codes, values, missing masks, roles, truth) and identical errors, wherever the
//! chunk cuts fall and whatever the number of threads.

use std::io::Write;
use std::path::Path;

use intruder_data::{ColumnSpec, DataError, Dataset, Kind, ReadOptions, Role, read_csv, reference};
use proptest::prelude::*;

/// Everything about a read result, placeholders at missing cells included.
fn describe(r: &Result<Dataset, DataError>) -> String {
    match r {
        Err(e) => format!("error: {e}"),
        Ok(ds) => {
            let mut s = format!("source {:?}\n", ds.table.source());
            for c in ds.all_columns() {
                s += &format!(
                    "{} {:?} {:?} missing={:?}\n  {:?}\n",
                    c.name(),
                    c.role(),
                    c.kind(),
                    c.missing().words(),
                    c.data()
                );
            }
            s
        }
    }
}

fn both(text: &[u8], opts: &ReadOptions, chunk: usize) -> (String, String) {
    let label = Path::new("p.csv");
    let a = describe(&reference::read_csv_from(text, label, opts));
    let b = describe(&reference::read_chunked(text, label, opts, chunk));
    (a, b)
}

fn assert_same(text: &[u8], opts: &ReadOptions) {
    for chunk in [1, 7, 64, 4096, 1 << 20] {
        let (a, b) = both(text, opts, chunk);
        assert_eq!(a, b, "chunk {chunk} on {:?}", String::from_utf8_lossy(text));
    }
    let c = describe(&intruder_data::read_csv_from(text, "p.csv".as_ref(), opts));
    let (a, _) = both(text, opts, 1);
    assert_eq!(a, c);
}

const CELLS: &[&str] = &[
    "1",
    "2",
    "-3",
    " 4",
    "10",
    "1.5",
    "2e3",
    "-0",
    "0",
    "inf",
    "a",
    "b",
    "B",
    "x y",
    "",
    "NA",
    ".",
    "?",
    "\"q,uoted\"",
    "\"line\nbreak\"",
    "\"cr\r\nlf\"",
    "\"say \"\"hi\"\"\"",
    "\"ab\"c",
    "\"\"",
    "a\"b",
    "1|2",
    "2|1|2",
    "3||4",
    "|",
    "\u{e9}t\u{e9}",
    "\u{feff}x",
    "\"5\"",
];

#[derive(Debug, Clone)]
struct Case {
    bom: bool,
    ncols: usize,
    rows: Vec<Vec<usize>>,
    /// 0: `\n`, 1: `\r\n`, 2: `\r`.
    terms: Vec<u8>,
    blank_after: Vec<bool>,
    invalid_utf8_at: Option<(usize, usize)>,
    ragged_at: Option<usize>,
    final_newline: bool,
    specs: Vec<(u8, u8, bool)>,
    file_missing: Option<u8>,
    /// No quote anywhere in the data (the parallel reader's fast path).
    plain: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..5, 0usize..30).prop_flat_map(|(ncols, nrows)| {
        (
            any::<bool>(),
            prop::collection::vec(prop::collection::vec(0..CELLS.len(), ncols), nrows),
            prop::collection::vec(0u8..3, nrows + 1),
            prop::collection::vec(prop::bool::weighted(0.1), nrows + 1),
            prop::option::weighted(0.1, (0..nrows.max(1), 0..ncols)),
            prop::option::weighted(0.1, 0..nrows.max(1)),
            any::<bool>(),
            prop::collection::vec((0u8..9, 0u8..4, any::<bool>()), ncols),
            prop::option::of(0u8..3),
        )
            .prop_map(
                move |(bom, rows, terms, blank_after, bad, ragged, fin, specs, fm)| Case {
                    bom,
                    ncols,
                    rows,
                    terms,
                    blank_after,
                    invalid_utf8_at: bad,
                    ragged_at: ragged,
                    final_newline: fin,
                    specs,
                    file_missing: fm,
                    plain: false,
                },
            )
    })
}

/// Cases without a quote in their data, long enough to span many 64-byte blocks.
fn plain_case() -> impl Strategy<Value = Case> {
    (case(), 0usize..200).prop_map(|(mut c, extra)| {
        let plain: Vec<usize> = (0..CELLS.len())
            .filter(|&i| !CELLS[i].contains('"'))
            .collect();
        for i in 0..extra {
            let row = (0..c.ncols)
                .map(|j| (i * 7 + j * 3) % CELLS.len())
                .collect();
            c.rows.push(row);
            c.terms.push(c.terms[i % c.terms.len()]);
            c.blank_after.push(i % 37 == 5);
        }
        for row in &mut c.rows {
            for v in row.iter_mut() {
                if CELLS[*v].contains('"') {
                    *v = plain[*v % plain.len()];
                }
            }
        }
        c.plain = true;
        c
    })
}

fn render(c: &Case) -> Vec<u8> {
    let term = |t: u8| -> &[u8] {
        match t {
            0 => b"\n",
            1 => b"\r\n",
            _ => b"\r",
        }
    };
    let mut out = Vec::new();
    if c.bom {
        out.extend_from_slice("\u{feff}".as_bytes());
    }
    let header: Vec<String> = (0..c.ncols)
        .map(|j| {
            if j == 1 {
                "\"c1\"".into()
            } else {
                format!("c{j}")
            }
        })
        .collect();
    out.extend_from_slice(header.join(",").as_bytes());
    out.extend_from_slice(term(c.terms[0]));
    for (i, row) in c.rows.iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            if c.invalid_utf8_at == Some((i, j)) {
                out.extend_from_slice(b"z\xff");
            } else {
                out.extend_from_slice(CELLS[v].as_bytes());
            }
        }
        if c.ragged_at == Some(i) {
            out.extend_from_slice(b",extra");
        }
        if i + 1 < c.rows.len() || c.final_newline {
            out.extend_from_slice(term(c.terms[i + 1]));
        }
        if c.blank_after[i + 1] {
            out.extend_from_slice(if i % 2 == 0 || c.plain {
                b"\n"
            } else {
                b"\"\"\n"
            });
        }
    }
    out
}

fn options(c: &Case) -> ReadOptions {
    let mut o = ReadOptions {
        missing: c.file_missing.map(|m| match m {
            0 => vec![],
            1 => vec!["?".to_string()],
            _ => vec!["NA".to_string(), String::new()],
        }),
        ..Default::default()
    };
    for (j, &(kind, role, own_missing)) in c.specs.iter().enumerate() {
        let spec: &mut ColumnSpec = o.override_spec(&format!("c{j}"));
        spec.kind = match kind {
            0..=3 => None,
            4 => Some(Kind::Categorical),
            5 => Some(Kind::Integer),
            6 => Some(Kind::Float),
            7 => Some(Kind::String),
            _ => Some(Kind::Set),
        };
        if matches!(kind, 4 | 8) && own_missing {
            spec.categories = Some(vec!["b".into(), "a".into(), "1".into(), "2".into()]);
        }
        spec.role = match role {
            0 => None,
            1 => Some(Role::Key),
            2 => Some(Role::Weight),
            _ => Some(Role::Truth),
        };
        if own_missing && kind < 4 {
            spec.missing = Some(vec![".".into(), "-0".into()]);
        }
        if kind == 8 && role == 1 {
            spec.separator = Some("||".into());
        }
    }
    o
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn parallel_reader_matches_the_one_pass_reader(c in case()) {
        let text = render(&c);
        let opts = options(&c);
        for chunk in [1usize, 5, 23, 1 << 20] {
            let (a, b) = both(&text, &opts, chunk);
            prop_assert_eq!(&a, &b, "chunk {} on {:?}", chunk, String::from_utf8_lossy(&text));
        }
    }

    #[test]
    fn quote_free_text_matches_the_one_pass_reader(c in plain_case()) {
        let text = render(&c);
        let opts = options(&c);
        for chunk in [1usize, 5, 23, 64, 150, 1 << 20] {
            let (a, b) = both(&text, &opts, chunk);
            prop_assert_eq!(&a, &b, "chunk {} on {:?}", chunk, String::from_utf8_lossy(&text));
        }
        let opts = ReadOptions::default();
        for chunk in [7usize, 1 << 20] {
            let (a, b) = both(&text, &opts, chunk);
            prop_assert_eq!(&a, &b, "chunk {} on {:?}", chunk, String::from_utf8_lossy(&text));
        }
    }

    #[test]
    fn inferred_types_match_without_overrides(c in case()) {
        let text = render(&c);
        let opts = ReadOptions::default();
        for chunk in [1usize, 9, 1 << 20] {
            let (a, b) = both(&text, &opts, chunk);
            prop_assert_eq!(&a, &b, "chunk {} on {:?}", chunk, String::from_utf8_lossy(&text));
        }
    }
}

#[test]
fn edge_cases_match() {
    let cases: &[&str] = &[
        "",
        "\n\n",
        "\u{feff}",
        "\u{feff}\u{feff}a,b\n1,2\n",
        "a,b",
        "a,b\n",
        "a,b\n1,2",
        "a,b\n1,",
        "a,b\n1,\"x",
        "a,b\n1,\"x\n\n\n",
        "a\n\n\n1\n\n2\n",
        "a,b\r\n1,2\r\n\r\n3,4\r\nx\r\n",
        "a,b\r1,2\r3\r",
        "a,b\n\"\"\n1,2\n\"\"",
        "a\n\"\"\n1\n",
        "\"a\nb\",c\n1,2\n",
        "a,a\n1,2\n",
        "a,\n1,2\n",
        "\"a\"x,b\n1,2\n",
        "a,b\n1,2,3\n",
        "a,b\n\"1\n2\",3\n4\n",
    ];
    for t in cases {
        assert_same(t.as_bytes(), &ReadOptions::default());
    }
    let semi = ReadOptions {
        delimiter: Some(b';'),
        ..Default::default()
    };
    assert_same(b"a;b\n\"x;y\";2\n", &semi);
    let quote = ReadOptions {
        delimiter: Some(b'"'),
        ..Default::default()
    };
    assert_same(b"a\"b\n1\"2\n", &quote);
}

/// Text of a column of distinct numbers `0..n` (with repeats and missing cells), with `text` at
/// the rows given.
fn big_column(n: usize, texts: &[(usize, &str)], float: bool) -> String {
    let mut s = String::from("x,k\n");
    let mut row = 0;
    for i in 0..n {
        for &(at, t) in texts {
            if at == row {
                s += &format!("{t},{}\n", row % 3);
                row += 1;
            }
        }
        let v = if float {
            format!("{}.25", i * 7)
        } else {
            (i * 7).to_string()
        };
        s += &format!("{v},{}\n", row % 3);
        row += 1;
        if i % 1000 == 0 {
            s += &format!(",{}\n", row % 3);
            row += 1;
            s += &format!("{v},{}\n", row % 3);
            row += 1;
        }
    }
    s
}

#[test]
fn large_dictionaries_and_the_numeric_switch_match() {
    let n = 70_000;
    let variants: Vec<(Vec<(usize, &str)>, bool)> = vec![
        (vec![], false),
        (vec![], true),
        (vec![(0, "oops")], false),
        (vec![(30_000, "oops")], true),
        (vec![(n + 100, "oops"), (n + 200, "more")], false),
        (vec![(n + 100, "oops")], true),
        // Around the 65,537th distinct value (rows include repeats and missing cells).
        (vec![(65_536 + 131, "t")], false),
        (vec![(65_536 + 132, "t")], false),
        (vec![(65_536 + 133, "t")], false),
        (vec![(65_536 + 134, "t")], false),
    ];
    for (texts, float) in variants {
        let text = big_column(n, &texts, float);
        let opts = ReadOptions::default();
        for chunk in [50_000, 1 << 20, 64 << 20] {
            let (a, b) = both(text.as_bytes(), &opts, chunk);
            assert!(a == b, "{texts:?} float={float} chunk {chunk}: differ");
        }
    }
}

#[test]
fn mostly_distinct_text_becomes_strings_either_way() {
    let mut s = String::from("id,g\n");
    for i in 0..5000 {
        s += &format!("p{i},{}\n", i % 4);
    }
    for chunk in [100, 4096, 1 << 20] {
        let (a, b) = both(s.as_bytes(), &ReadOptions::default(), chunk);
        assert_eq!(a, b);
        assert!(a.contains("id Other String"), "{}", &a[..200]);
    }
}

fn thread_test_file(dir: &Path) -> std::path::PathBuf {
    let mut s = String::from("a,b,c,d,e\n");
    for i in 0..200_000u64 {
        let h = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
        s += &format!(
            "{},{},\"t{}\n{}\",{},{}\n",
            h % 7,
            if h % 11 == 0 {
                ""
            } else {
                ["x", "y", "z"][(h % 3) as usize]
            },
            h % 5,
            h % 2,
            (h % 1000) as f64 / 8.0,
            if i == 150_000 { "text" } else { "1" },
        );
    }
    let p = dir.join("threads.csv");
    std::fs::write(&p, s).unwrap();
    p
}

#[test]
fn results_do_not_depend_on_the_number_of_threads() {
    let dir = tempfile::tempdir().unwrap();
    let path = thread_test_file(dir.path());
    let text = std::fs::read(&path).unwrap();
    let want = describe(&reference::read_csv_from(
        text.as_slice(),
        &path,
        &ReadOptions::default(),
    ));
    for threads in [1, 2, 4] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let got = pool.install(|| describe(&read_csv(&path, &ReadOptions::default())));
        assert!(got == want, "{threads} threads differ");
    }
    // The same file, gzip-compressed.
    let gz = dir.path().join("threads.csv.gz");
    let mut enc = flate2::write::GzEncoder::new(
        std::fs::File::create(&gz).unwrap(),
        flate2::Compression::fast(),
    );
    enc.write_all(&text).unwrap();
    enc.finish().unwrap();
    let got = describe(&read_csv(&gz, &ReadOptions::default()));
    assert_eq!(got.replace("threads.csv.gz", "threads.csv"), want);
}

#[test]
fn errors_are_the_first_in_file_order() {
    let mut s = String::from("a,b\n");
    for i in 0..10_000 {
        s += &format!("{i},{}\n", if i == 9_000 || i == 7_000 { "x" } else { "1" });
    }
    let mut o = ReadOptions::default();
    o.override_spec("b").kind = Some(Kind::Integer);
    for chunk in [10, 1000, 1 << 20] {
        let (a, b) = both(s.as_bytes(), &o, chunk);
        assert_eq!(a, b);
        assert!(
            a.contains("p.csv:7002: column 'b' (2): expected an integer, found 'x'"),
            "{a}"
        );
    }
}

#[test]
fn the_numeric_switch_boundary_matches() {
    // A text value after exactly m distinct numbers: the one-pass reader switches to numeric
    // storage when the 65,537th distinct value arrives while all are numbers (m ≥ 65,537).
    for m in [65_535usize, 65_536, 65_537] {
        let mut s = String::from("x\n");
        for i in 0..m {
            s += &format!("{i}.50\n");
            if i % 500 == 0 {
                s += &format!("{i}.50\n\n");
            }
        }
        s += "t\n";
        for i in 0..10 {
            s += &format!("{}\n", i * 2 + 1);
        }
        let (a, b) = both(s.as_bytes(), &ReadOptions::default(), 1 << 20);
        assert!(a == b, "m = {m}");
        let (_, c) = both(s.as_bytes(), &ReadOptions::default(), 100_000);
        assert!(a == c, "m = {m}, small chunks");
        // After the switch, numbers before the text are formatted ("1.5"); else raw ("1.50").
        assert!(a.contains("x Other String"), "m = {m}");
        assert_eq!(a.contains("\"1.5\""), m > 65_536, "m = {m}");
        assert_eq!(a.contains("\"1.50\""), m <= 65_536, "m = {m}");
    }
}
