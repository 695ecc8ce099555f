//! Parquet and Arrow IPC input, Parquet output (feature `parquet`); without the feature, a clear
//! error instead of reading the file as text.

use intruder_data::{Input, ReadOptions, load, read_csv_from};

#[cfg(not(feature = "parquet"))]
#[test]
fn parquet_without_the_feature_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("x.parquet");
    std::fs::write(&p, b"PAR1\x15\x04garbage").unwrap();
    let e = load(&p, &Input::default()).unwrap_err().to_string();
    assert!(
        e.contains("Parquet support is not compiled in: build with --features parquet"),
        "{e}"
    );
    let ds = read_csv_from(
        "a\n1\n".as_bytes(),
        "m.csv".as_ref(),
        &ReadOptions::default(),
    )
    .unwrap();
    let e = ds.write_file(&p).unwrap_err().to_string();
    assert!(e.contains("not compiled in"), "{e}");
}

#[cfg(feature = "parquet")]
mod with_parquet {
    use super::*;
    use std::sync::Arc;

    use arrow_array::{
        ArrayRef, BooleanArray, DictionaryArray, Float32Array, Int32Array, LargeStringArray,
        RecordBatch, StringArray, types::Int8Type,
    };
    use arrow_schema::{DataType, Field, Schema};
    use intruder_data::{ColumnData, Kind, Role, write_parquet};

    fn describe(ds: &intruder_data::Dataset) -> String {
        let mut s = String::new();
        for c in ds.all_columns() {
            s += &format!(
                "{} {:?} {:?} {:?} {:?}\n",
                c.name(),
                c.role(),
                c.kind(),
                c.levels(),
                (0..c.len()).map(|i| c.text(i)).collect::<Vec<_>>()
            );
        }
        s
    }

    #[test]
    fn a_written_data_set_reads_back_the_same() {
        let text = "pid,age,sex,income,month,name\n\
                    p1,40,M,1200.5,3|4,\"Smith, J\"\n\
                    p2,36,F,,,Jones\n\
                    p3,.,M,980,7,\n";
        let opts = ReadOptions::default()
            .with_role(&["pid"], Role::Truth)
            .with_role(&["age", "sex"], Role::Key)
            .with_set_valued(&["month"]);
        let ds = read_csv_from(text.as_bytes(), "in.csv".as_ref(), &opts).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("out.parquet");
        ds.write_file(&p).unwrap();
        assert_eq!(&std::fs::read(&p).unwrap()[..4], b"PAR1");
        let back = load(&p, &Input::default()).unwrap();
        assert_eq!(describe(&back), describe(&ds));
        assert_eq!(back.truth_column("pid").unwrap().text(1).unwrap(), "p2");
        // Command-line roles still apply over the schema stored in the file.
        let back = load(
            &p,
            &Input::default().with_role(&["income"], Role::Sensitive),
        )
        .unwrap();
        assert_eq!(back.table.column("income").unwrap().role(), Role::Sensitive);
        assert_eq!(back.table.column("sex").unwrap().role(), Role::Key);
        // Only the renamed file is left.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        // An empty table is written whole, and reading it back says it has no records.
        let empty = ds.take(&[]);
        write_parquet(&p, &empty).unwrap();
        let e = load(&p, &Input::default()).unwrap_err().to_string();
        assert!(e.contains("no records"), "{e}");
    }

    /// A read with a selection keeps the columns named and those of the roles given, the
    /// same in CSV, Parquet and Arrow IPC: the others are listed unread with their kind and
    /// role (checked against, never read), the row count stays when no table column is kept,
    /// and the schema is still checked against every column of the file.
    #[test]
    fn a_selection_reads_its_columns_alone_in_every_format() {
        use intruder_data::Select;
        let text = "rec,pid,age,sex,income,name\n\
                    r1,p1,40,M,1200.5,Smith\n\
                    r2,p2,36,F,,Jones\n\
                    r3,p3,.,M,980,\n";
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("in.csv");
        std::fs::write(&csv, text).unwrap();
        std::fs::write(
            dir.path().join("in.schema.toml"),
            "[columns.rec]\nrole = \"identifier\"\n[columns.age]\nrole = \"key\"\n\
             [columns.sex]\nrole = \"key\"\ntype = \"categorical\"\n",
        )
        .unwrap();
        let whole = load(&csv, &Input::default().with_role(&["pid"], Role::Truth)).unwrap();
        let pq = dir.path().join("in.parquet");
        whole.write_file(&pq).unwrap();
        let ipc = dir.path().join("in.arrow");
        {
            let batch = RecordBatch::try_from_iter([
                (
                    "rec",
                    Arc::new(StringArray::from(vec!["r1", "r2", "r3"])) as ArrayRef,
                ),
                (
                    "pid",
                    Arc::new(StringArray::from(vec!["p1", "p2", "p3"])) as ArrayRef,
                ),
                (
                    "age",
                    Arc::new(Int32Array::from(vec![Some(40), Some(36), None])) as ArrayRef,
                ),
                (
                    "sex",
                    Arc::new(StringArray::from(vec!["M", "F", "M"])) as ArrayRef,
                ),
                (
                    "income",
                    Arc::new(arrow_array::Float64Array::from(vec![
                        Some(1200.5),
                        None,
                        Some(980.0),
                    ])) as ArrayRef,
                ),
                (
                    "name",
                    Arc::new(StringArray::from(vec![Some("Smith"), Some("Jones"), None]))
                        as ArrayRef,
                ),
            ])
            .unwrap();
            let f = std::fs::File::create(&ipc).unwrap();
            let mut w = arrow_ipc::writer::FileWriter::try_new(f, &batch.schema()).unwrap();
            w.write(&batch).unwrap();
            w.finish().unwrap();
        }
        std::fs::copy(
            dir.path().join("in.schema.toml"),
            dir.path().join("in_ipc.schema.toml"),
        )
        .unwrap();
        let schema = Some(dir.path().join("in.schema.toml"));
        let read = |path: &std::path::Path, select: Select| {
            let input = Input {
                schema: schema.clone(),
                select: Some(select),
                ..Input::default()
            }
            .with_role(&["pid"], Role::Truth);
            load(path, &input)
        };
        let truth_and_ids = Select {
            names: vec!["income".into()],
            roles: vec![Role::Truth, Role::Identifier],
        };
        for path in [&csv, &pq, &ipc] {
            let ds = read(path, truth_and_ids.clone()).unwrap();
            assert_eq!(
                ds.table.names(),
                vec!["rec", "income"],
                "{}",
                path.display()
            );
            assert_eq!(ds.table.nrows(), 3);
            assert_eq!(ds.table.column("rec").unwrap().text(2).unwrap(), "r3");
            assert_eq!(ds.table.column("income").unwrap().kind(), Kind::Float);
            assert!(ds.table.column("income").unwrap().is_missing(1));
            assert_eq!(ds.truth_column("pid").unwrap().text(1).unwrap(), "p2");
            let unread: Vec<(String, Kind, Role)> = ds.unread.clone();
            assert_eq!(
                unread,
                vec![
                    ("age".to_string(), Kind::Integer, Role::Key),
                    ("sex".to_string(), Kind::Categorical, Role::Key),
                    // Read from the CSV, declared in the schema written into the Parquet
                    // file; a text column of an Arrow file with no schema is not told
                    // categorical without being read.
                    (
                        "name".to_string(),
                        if path == &ipc {
                            Kind::String
                        } else {
                            Kind::Categorical
                        },
                        Role::Other
                    ),
                ],
                "{}",
                path.display()
            );
            // Checked against as columns of the file, the unread ones included.
            let set = ds.column_set();
            assert_eq!(set.with_role(Role::Key), vec!["age", "sex"]);
            assert!(
                set.check_usable("sex", intruder_data::params::ColumnNeed::Any)
                    .is_ok()
            );
            assert!(
                set.check_usable("pid", intruder_data::params::ColumnNeed::Any)
                    .is_err()
            );
            // No table column kept: the rows are still the file's.
            let ds = read(
                path,
                Select {
                    names: Vec::new(),
                    roles: vec![Role::Truth],
                },
            )
            .unwrap();
            assert_eq!((ds.table.ncols(), ds.table.nrows()), (0, 3));
            assert_eq!(ds.truth.len(), 1);
            // The same columns as a whole read's, value for value.
            let ds = read(
                path,
                Select {
                    names: vec!["age".into(), "name".into()],
                    roles: Vec::new(),
                },
            )
            .unwrap();
            for n in ["age", "name"] {
                let (a, b) = (ds.table.column(n).unwrap(), whole.table.column(n).unwrap());
                assert_eq!(
                    (0..3).map(|i| a.text(i)).collect::<Vec<_>>(),
                    (0..3).map(|i| b.text(i)).collect::<Vec<_>>()
                );
            }
            // The schema still names a column the file lacks: an error, selection or not.
            let bad = dir.path().join("bad.schema.toml");
            std::fs::write(&bad, "[columns.agee]\nrole = \"key\"\n").unwrap();
            let e = load(
                path,
                &Input {
                    schema: Some(bad),
                    select: Some(truth_and_ids.clone()),
                    ..Input::default()
                },
            )
            .unwrap_err()
            .to_string();
            assert!(e.contains("agee"), "{e}");
        }
        // A column that is not read is not decoded: a type the reader refuses (dates) does
        // not stop a read that leaves it out, in Parquet or Arrow IPC.
        let batch = RecordBatch::try_from_iter([
            (
                "pid",
                Arc::new(StringArray::from(vec!["p1", "p2"])) as ArrayRef,
            ),
            (
                "when",
                Arc::new(arrow_array::Date32Array::from(vec![1, 2])) as ArrayRef,
            ),
        ])
        .unwrap();
        let dated_pq = dir.path().join("dated.parquet");
        let mut w = parquet::arrow::ArrowWriter::try_new(
            std::fs::File::create(&dated_pq).unwrap(),
            batch.schema(),
            None,
        )
        .unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let dated_ipc = dir.path().join("dated.arrow");
        let mut w = arrow_ipc::writer::FileWriter::try_new(
            std::fs::File::create(&dated_ipc).unwrap(),
            &batch.schema(),
        )
        .unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
        for path in [&dated_pq, &dated_ipc] {
            let e = load(path, &Input::default()).unwrap_err().to_string();
            assert!(e.contains("is not read"), "{e}");
            let only = Input {
                select: Some(Select {
                    names: vec!["pid".into()],
                    roles: Vec::new(),
                }),
                ..Input::default()
            };
            let ds = load(path, &only).unwrap();
            assert_eq!(ds.table.names(), vec!["pid"]);
            assert_eq!(
                ds.unread,
                vec![("when".to_string(), Kind::String, Role::Other)]
            );
        }
    }

    /// Files as other tools write them by default: Parquet compressed with zstd (Polars),
    /// snappy (pyarrow, DuckDB), gzip, LZ4, Brotli or nothing, and Arrow IPC (Feather)
    /// compressed with LZ4 (pandas' `to_feather`) or zstd, all read as the same table, and
    /// their text keys read from the key columns alone too.
    #[test]
    fn every_compression_reads_the_same() {
        use intruder_data::ColumnarFile;
        use intruder_data::keys::{Keys, SetCoding};
        use parquet::basic::{BrotliLevel, Compression, GzipLevel, ZstdLevel};
        let n = 3_000;
        let sex: StringArray = (0..n)
            .map(|i| (i % 11 != 0).then_some(["M", "F", "NA"][i % 3]))
            .collect();
        let age = Int32Array::from_iter((0..n).map(|i| (i % 13 != 0).then_some((i % 90) as i32)));
        let batch = RecordBatch::try_from_iter([
            ("sex", Arc::new(sex) as ArrayRef),
            ("age", Arc::new(age) as ArrayRef),
        ])
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let names = ["sex".to_string(), "age".to_string()];
        let mut read = Vec::new();
        let parquet = [
            Compression::UNCOMPRESSED,
            Compression::SNAPPY,
            Compression::ZSTD(ZstdLevel::default()),
            Compression::GZIP(GzipLevel::default()),
            Compression::LZ4,
            Compression::LZ4_RAW,
            Compression::BROTLI(BrotliLevel::default()),
        ];
        for (i, codec) in parquet.into_iter().enumerate() {
            let p = dir.path().join(format!("c{i}.parquet"));
            let props = parquet::file::properties::WriterProperties::builder()
                .set_compression(codec)
                .set_max_row_group_row_count(Some(1_000))
                .build();
            write_batch(&p, &batch, props);
            let ds = load(&p, &Input::default()).unwrap_or_else(|e| panic!("{codec:?}: {e}"));
            // The keys alone, from the row groups: the table's codes.
            let file = ColumnarFile::open(&p, &ReadOptions::default()).unwrap();
            let keys = file.keys(&names).unwrap();
            assert_eq!(
                Keys::from_parts(&keys).unwrap(),
                Some(Keys::encode(&ds.table, &names, SetCoding::Whole).unwrap()),
                "{codec:?}"
            );
            read.push((format!("{codec:?}"), describe(&ds)));
        }
        for codec in [
            None,
            Some(arrow_ipc::CompressionType::LZ4_FRAME),
            Some(arrow_ipc::CompressionType::ZSTD),
        ] {
            let p = dir.path().join(format!("{codec:?}.arrow"));
            let options = arrow_ipc::writer::IpcWriteOptions::default()
                .try_with_compression(codec)
                .unwrap();
            let f = std::fs::File::create(&p).unwrap();
            let mut w =
                arrow_ipc::writer::FileWriter::try_new_with_options(f, &batch.schema(), options)
                    .unwrap();
            w.write(&batch).unwrap();
            w.finish().unwrap();
            let ds = load(&p, &Input::default()).unwrap_or_else(|e| panic!("{codec:?}: {e}"));
            read.push((format!("IPC {codec:?}"), describe(&ds)));
        }
        for (codec, d) in &read {
            assert_eq!(d, &read[0].1, "{codec}");
        }
    }

    #[test]
    fn arrow_ipc_types_map_to_the_data_model() {
        let schema = Arc::new(Schema::new(vec![
            Field::new("age", DataType::Int32, true),
            Field::new("score", DataType::Float32, true),
            Field::new("sex", DataType::Utf8, true),
            Field::new(
                "region",
                DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8)),
                true,
            ),
            Field::new("flag", DataType::Boolean, true),
            Field::new("code", DataType::LargeUtf8, true),
        ]));
        let region: DictionaryArray<Int8Type> =
            vec![Some("north"), None, Some("south"), Some("north")]
                .into_iter()
                .collect();
        let cols: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(vec![Some(40), None, Some(36), Some(51)])),
            Arc::new(Float32Array::from(vec![
                Some(0.5),
                Some(f32::NAN),
                None,
                Some(2.0),
            ])),
            Arc::new(StringArray::from(vec![
                Some("M"),
                Some("F"),
                Some("NA"),
                None,
            ])),
            Arc::new(region),
            Arc::new(BooleanArray::from(vec![
                Some(true),
                Some(false),
                None,
                Some(true),
            ])),
            Arc::new(LargeStringArray::from(vec![
                Some("10"),
                Some("2"),
                Some("."),
                Some("7"),
            ])),
        ];
        let batch = RecordBatch::try_new(schema.clone(), cols).unwrap();
        let dir = tempfile::tempdir().unwrap();
        // Named .csv on purpose: the format is told by the content.
        let p = dir.path().join("x.csv");
        {
            let f = std::fs::File::create(&p).unwrap();
            let mut w = arrow_ipc::writer::FileWriter::try_new(f, &schema).unwrap();
            w.write(&batch).unwrap();
            w.finish().unwrap();
        }
        let ds = load(&p, &Input::default().with_role(&["age"], Role::Key)).unwrap();
        let t = &ds.table;
        let age = t.column("age").unwrap();
        assert_eq!((age.kind(), age.role()), (Kind::Integer, Role::Key));
        assert!(age.is_missing(1) && !age.is_missing(0));
        assert_eq!(age.data(), &ColumnData::Integer(vec![40, 0, 36, 51]));
        let score = t.column("score").unwrap();
        assert_eq!(score.kind(), Kind::Float);
        assert!(score.is_missing(1) && score.is_missing(2));
        // Text goes through CSV inference, missing tokens included.
        let sex = t.column("sex").unwrap();
        assert_eq!(sex.kind(), Kind::Categorical);
        assert_eq!(sex.levels().unwrap(), ["F", "M"]);
        assert!(sex.is_missing(2) && sex.is_missing(3));
        let region = t.column("region").unwrap();
        assert_eq!(region.levels().unwrap(), ["north", "south"]);
        assert!(region.is_missing(1));
        assert_eq!(
            t.column("flag").unwrap().levels().unwrap(),
            ["false", "true"]
        );
        let code = t.column("code").unwrap();
        assert_eq!(
            code.kind(),
            Kind::Integer,
            "numeric text is inferred as numbers"
        );
        assert!(code.is_missing(2));
        // The same cells as CSV give the same text columns.
        let csv = "sex,region,code\nM,north,10\nF,,2\nNA,south,.\n,north,7\n";
        let from_csv =
            read_csv_from(csv.as_bytes(), "c.csv".as_ref(), &ReadOptions::default()).unwrap();
        for name in ["sex", "region", "code"] {
            assert_eq!(
                from_csv.table.column(name).unwrap(),
                t.column(name).unwrap()
            );
        }
        // Declared types and their errors apply as for CSV.
        let e = load(&p, &Input::default().with_role(&["nope"], Role::Key)).unwrap_err();
        assert!(e.to_string().contains("no column named 'nope'"), "{e}");
        let input = Input {
            schema: Some(dir.path().join("s.toml")),
            ..Input::default()
        };
        std::fs::write(
            dir.path().join("s.toml"),
            "[columns.sex]\ntype = \"integer\"\n",
        )
        .unwrap();
        let e = load(&p, &input).unwrap_err().to_string();
        assert!(
            e.contains("column 'sex' (3)") && e.contains("row 1: expected an integer, found 'M'"),
            "{e}"
        );
    }

    #[test]
    fn csv_text_named_parquet_is_read_as_csv() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.parquet");
        std::fs::write(&p, "a,b\n1,2\n").unwrap();
        assert_eq!(
            load(&p, &Input::default()).unwrap().table.names(),
            ["a", "b"]
        );
        let garbage = dir.path().join("y.csv");
        std::fs::write(&garbage, b"PAR1not really").unwrap();
        let e = load(&garbage, &Input::default()).unwrap_err().to_string();
        assert!(e.contains("not a readable Parquet file"), "{e}");
    }

    /// Row groups are decoded in parallel: a file of many small row groups (categories first
    /// seen in late groups, missing values, text and numbers) reads the same on 1 and 3
    /// threads, and the same as the CSV text of its values.
    #[test]
    fn many_row_groups_read_the_same_on_any_thread_count() {
        let n = 1000usize;
        let age: Vec<Option<i64>> = (0..n)
            .map(|i| (i % 17 != 3).then_some((i * 7 % 90) as i64))
            .collect();
        let region: Vec<Option<String>> = (0..n)
            .map(|i| (i % 11 != 5).then(|| format!("r{}", (i * i) % (1 + i / 50))))
            .collect();
        let schema = Arc::new(Schema::new(vec![
            Field::new("age", DataType::Int64, true),
            Field::new("region", DataType::Utf8, true),
        ]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(arrow_array::Int64Array::from(age.clone())) as ArrayRef,
                Arc::new(StringArray::from(region.clone())),
            ],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("groups.parquet");
        let props = parquet::file::properties::WriterProperties::builder()
            .set_max_row_group_row_count(Some(37))
            .build();
        let mut w = parquet::arrow::ArrowWriter::try_new(
            std::fs::File::create(&p).unwrap(),
            schema,
            Some(props),
        )
        .unwrap();
        w.write(&batch).unwrap();
        let meta = w.close().unwrap();
        assert_eq!(meta.num_row_groups(), n.div_ceil(37));
        let read_on = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| describe(&load(&p, &Input::default()).unwrap()))
        };
        let one = read_on(1);
        assert_eq!(read_on(3), one);
        let mut csv = String::from("age,region\n");
        for i in 0..n {
            let a = age[i].map(|x| x.to_string()).unwrap_or_default();
            let r = region[i].clone().unwrap_or_default();
            csv += &format!("{a},{r}\n");
        }
        let from_csv = read_csv_from(csv.as_bytes(), "g.csv".as_ref(), &ReadOptions::default());
        assert_eq!(describe(&from_csv.unwrap()), one);
    }

    /// Writes one batch of `columns` as an Arrow IPC file in `dir`.
    fn ipc_file(dir: &std::path::Path, columns: Vec<(&str, ArrayRef)>) -> std::path::PathBuf {
        let schema = Arc::new(Schema::new(
            columns
                .iter()
                .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
                .collect::<Vec<_>>(),
        ));
        let batch =
            RecordBatch::try_new(schema.clone(), columns.into_iter().map(|c| c.1).collect())
                .unwrap();
        let p = dir.join("n.arrow");
        let f = std::fs::File::create(&p).unwrap();
        let mut w = arrow_ipc::writer::FileWriter::try_new(f, &schema).unwrap();
        w.write(&batch).unwrap();
        w.finish().unwrap();
        p
    }

    /// Integer and float arrays are converted a whole array at a time: what a null slot holds
    /// never shows, every integer width reads as its value, and the cell-level errors name the
    /// row of the first bad cell.
    #[test]
    fn numeric_arrays_read_as_their_values() {
        use arrow_array::{Float64Array, Int16Array, UInt64Array};
        use arrow_buffer::NullBuffer;
        let dir = tempfile::tempdir().unwrap();
        let valid = |v: &[bool]| Some(NullBuffer::from(v.to_vec()));
        // A null slot holding a value too wide for an i64 is just missing.
        let wide = UInt64Array::new(vec![5, u64::MAX, 7].into(), valid(&[true, false, true]));
        let small = Int16Array::new(vec![-3, 9, 4].into(), valid(&[true, true, false]));
        let score = Float64Array::new(
            vec![0.5, 99.0, f64::NAN].into(),
            valid(&[true, false, true]),
        );
        let p = ipc_file(
            dir.path(),
            vec![
                ("wide", Arc::new(wide) as ArrayRef),
                ("small", Arc::new(small)),
                ("score", Arc::new(score)),
            ],
        );
        let ds = load(&p, &Input::default()).unwrap();
        let t = &ds.table;
        let col = |n: &str| t.column(n).unwrap();
        assert_eq!(col("wide").data(), &ColumnData::Integer(vec![5, 0, 7]));
        assert_eq!(col("small").data(), &ColumnData::Integer(vec![-3, 9, 0]));
        let missing = |n: &str| (0..3).map(|i| col(n).is_missing(i)).collect::<Vec<_>>();
        assert_eq!(missing("wide"), [false, true, false]);
        assert_eq!(missing("small"), [false, false, true]);
        assert_eq!(missing("score"), [false, true, true]);
        assert_eq!(col("score").text(0).as_deref(), Some("0.5"));

        // Integers declared floats, the widest included.
        let schema = dir.path().join("s.toml");
        std::fs::write(
            &schema,
            "[columns.wide]\ntype = \"float\"\n[columns.small]\ntype = \"float\"\n",
        )
        .unwrap();
        let input = Input {
            schema: Some(schema.clone()),
            ..Input::default()
        };
        let big = UInt64Array::new(vec![1, u64::MAX, 2].into(), valid(&[true, true, false]));
        let p = ipc_file(
            dir.path(),
            vec![
                ("wide", Arc::new(big) as ArrayRef),
                ("small", Arc::new(Int16Array::from(vec![-3, 9, 4]))),
            ],
        );
        let ds = load(&p, &input).unwrap();
        let wide = ds.table.column("wide").unwrap();
        let ColumnData::Float(v) = wide.data() else {
            panic!("floats")
        };
        assert_eq!(v[..2], [1.0, u64::MAX as f64]);
        assert!(v[2].is_nan() && wide.is_missing(2) && !wide.is_missing(1));
        assert_eq!(
            ds.table.column("small").unwrap().data(),
            &ColumnData::Float(vec![-3.0, 9.0, 4.0])
        );

        // Errors: the first bad cell's row.
        let p = ipc_file(
            dir.path(),
            vec![(
                "n",
                Arc::new(UInt64Array::from(vec![1, 2, u64::MAX, u64::MAX])) as ArrayRef,
            )],
        );
        let e = load(&p, &Input::default()).unwrap_err().to_string();
        assert!(
            e.contains("column 'n' (1)") && e.contains("row 3: the integer does not fit 64 bits"),
            "{e}"
        );
        let weight = Input::default().with_role(&["w"], Role::Weight);
        std::fs::write(&schema, "[columns.w]\ntype = \"integer\"\n").unwrap();
        let int_weight = Input {
            schema: Some(schema),
            ..weight.clone()
        };
        let p = ipc_file(
            dir.path(),
            vec![(
                "w",
                Arc::new(Int16Array::new(
                    vec![2, -8, -1, -5].into(),
                    valid(&[true, false, true, true]),
                )) as ArrayRef,
            )],
        );
        let e = load(&p, &int_weight).unwrap_err().to_string();
        assert!(
            e.contains("row 3: weight '-1' is negative; expected a weight ≥ 0"),
            "{e}"
        );
        let p = ipc_file(
            dir.path(),
            vec![(
                "w",
                Arc::new(Float64Array::from(vec![1.0, f64::NAN, -0.5])) as ArrayRef,
            )],
        );
        let e = load(&p, &weight).unwrap_err().to_string();
        assert!(
            e.contains("row 3: expected a finite number ≥ 0, found -0.5"),
            "{e}"
        );
        let p = ipc_file(
            dir.path(),
            vec![(
                "x",
                Arc::new(Float64Array::from(vec![1.0, f64::INFINITY])) as ArrayRef,
            )],
        );
        let e = load(&p, &Input::default()).unwrap_err().to_string();
        assert!(
            e.contains("row 2: expected a finite number, found inf"),
            "{e}"
        );
    }

    /// Issue 38: a dictionary column whose labels look like numbers (pandas `astype("category")`
    /// of codes, as sdcMicro's data sets are coded; a polars Enum of "1", "2") stays
    /// categorical, its levels in numeric order; a declared kind still wins.
    #[test]
    fn dictionaries_of_numbers_stay_categorical() {
        use arrow_array::types::Int8Type;
        let dir = tempfile::tempdir().unwrap();
        let ints = arrow_array::Int64Array::from(vec![2, 10, 1]);
        let keys = arrow_array::Int8Array::from(vec![Some(0), Some(1), Some(2), None, Some(0)]);
        let dict = DictionaryArray::<Int8Type>::try_new(keys, Arc::new(ints)).unwrap();
        let text = ["4", "2", "4", "9", "2"]
            .into_iter()
            .collect::<DictionaryArray<Int8Type>>();
        let p = ipc_file(
            dir.path(),
            vec![
                ("roof", Arc::new(dict) as ArrayRef),
                ("walls", Arc::new(text) as ArrayRef),
            ],
        );
        let ds = load(&p, &Input::default()).unwrap();
        let roof = ds.table.column("roof").unwrap();
        assert_eq!(roof.kind(), intruder_data::Kind::Categorical);
        assert_eq!(roof.levels().unwrap(), ["1", "2", "10"]);
        assert!(roof.is_missing(3));
        let walls = ds.table.column("walls").unwrap();
        assert_eq!(walls.kind(), intruder_data::Kind::Categorical);
        assert_eq!(walls.levels().unwrap(), ["2", "4", "9"]);
        let schema = dir.path().join("s.toml");
        std::fs::write(&schema, "[columns.walls]\ntype = \"integer\"\n").unwrap();
        let declared = Input {
            schema: Some(schema),
            ..Input::default()
        };
        let ds = load(&p, &declared).unwrap();
        assert_eq!(
            ds.table.column("walls").unwrap().kind(),
            intruder_data::Kind::Integer
        );
    }

    /// A dictionary column reads its values once and each cell through its key: a null key
    /// and a null value are missing cells, an unused value is no level, and the cells read as
    /// the same text in CSV would.
    #[test]
    fn dictionary_cells_read_through_their_keys() {
        use arrow_array::{Int16Array, types::Int16Type};
        let dir = tempfile::tempdir().unwrap();
        let values = StringArray::from(vec![Some("b"), None, Some("a"), Some("unused")]);
        let keys = Int16Array::from(vec![Some(0), Some(1), Some(2), None, Some(0)]);
        let dict = DictionaryArray::<Int16Type>::try_new(keys, Arc::new(values)).unwrap();
        let p = ipc_file(dir.path(), vec![("x", Arc::new(dict) as ArrayRef)]);
        let ds = load(&p, &Input::default()).unwrap();
        let x = ds.table.column("x").unwrap();
        assert_eq!(x.levels().unwrap(), ["a", "b"]);
        assert_eq!(
            (0..5).map(|i| x.text(i)).collect::<Vec<_>>(),
            [
                Some("b".into()),
                None,
                Some("a".into()),
                None,
                Some("b".into())
            ]
        );
        let csv = read_csv_from(
            "x,y\nb,1\n,1\na,1\n,1\nb,1\n".as_bytes(),
            "x.csv".as_ref(),
            &ReadOptions::default(),
        )
        .unwrap();
        assert_eq!(csv.table.column("x").unwrap(), x);
        // Text views read as text.
        let view =
            arrow_array::StringViewArray::from(vec![Some("b"), None, Some("a"), None, Some("b")]);
        let p = ipc_file(dir.path(), vec![("x", Arc::new(view) as ArrayRef)]);
        let ds = load(&p, &Input::default()).unwrap();
        assert_eq!(
            csv.table.column("x").unwrap(),
            ds.table.column("x").unwrap()
        );
    }

    /// Writes `columns` as Parquet in row groups of `group` rows, with or without statistics.
    fn parquet_file(
        dir: &std::path::Path,
        columns: Vec<(&str, ArrayRef)>,
        group: usize,
        statistics: bool,
    ) -> std::path::PathBuf {
        use parquet::file::properties::{EnabledStatistics, WriterProperties};
        let batch = RecordBatch::try_from_iter(columns).unwrap();
        let p = dir.join(format!("g{group}_{statistics}.parquet"));
        let props = WriterProperties::builder()
            .set_max_row_group_row_count(Some(group))
            .set_statistics_enabled(if statistics {
                EnabledStatistics::Chunk
            } else {
                EnabledStatistics::None
            })
            .build();
        write_batch(&p, &batch, props)
    }

    /// Writes `batch` as Parquet at `path` with the writer's `props`.
    fn write_batch(
        path: &std::path::Path,
        batch: &RecordBatch,
        props: parquet::file::properties::WriterProperties,
    ) -> std::path::PathBuf {
        let mut w = parquet::arrow::ArrowWriter::try_new(
            std::fs::File::create(path).unwrap(),
            batch.schema(),
            Some(props),
        )
        .unwrap();
        w.write(batch).unwrap();
        w.close().unwrap();
        path.to_path_buf()
    }

    #[test]
    fn integer_keys_by_row_groups_give_the_tables_codes() {
        use intruder_data::ColumnarFile;
        use intruder_data::keys::{CodeSource, ColumnCodes, PartedCodes, SetCoding};
        let n = 30;
        let a: Vec<Option<i64>> = (0..n)
            .map(|i| (i % 4 != 1).then_some(1_000_000 + (i as i64 * 7) % 13))
            .collect();
        let b: Vec<Option<i32>> = (0..n).map(|i| Some(-5 + (i as i32 % 3))).collect();
        let c: Vec<Option<i8>> = (0..n).map(|i| (i % 9 != 0).then_some(i as i8)).collect();
        let d: Vec<Option<i16>> = (0..n).map(|i| Some(i as i16 % 2)).collect();
        let e: Vec<Option<i64>> = (0..n)
            .map(|i| (i % 6 != 0).then_some(20_000_000 + i as i64 % 5))
            .collect();
        let columns = vec![
            ("a", Arc::new(arrow_array::Int64Array::from(a)) as ArrayRef),
            ("b", Arc::new(Int32Array::from(b)) as ArrayRef),
            ("c", Arc::new(arrow_array::Int8Array::from(c)) as ArrayRef),
            ("d", Arc::new(arrow_array::Int16Array::from(d)) as ArrayRef),
            ("e", Arc::new(arrow_array::Int64Array::from(e)) as ArrayRef),
            (
                "t",
                Arc::new(StringArray::from_iter_values(
                    (0..n).map(|i| format!("x{}", i % 3)),
                )) as ArrayRef,
            ),
            (
                "u",
                Arc::new(arrow_array::UInt64Array::from_iter_values(0..n as u64)) as ArrayRef,
            ),
            (
                "f",
                Arc::new(arrow_array::Float64Array::from_iter_values(
                    (0..n).map(|i| i as f64 / 2.0),
                )) as ArrayRef,
            ),
        ];
        let dir = tempfile::tempdir().unwrap();
        let p = parquet_file(dir.path(), columns.clone(), 7, true);
        let opts = ReadOptions::default();
        let file = ColumnarFile::open(&p, &opts).unwrap();
        let ds = load(&p, &Input::default()).unwrap();
        // The columns as the reader gives them (text, whose kind needs reading, aside).
        let read = ds.column_set();
        let peek = file.columns();
        assert_eq!(peek.file, read.file);
        for (x, y) in peek.columns.iter().zip(&read.columns) {
            assert_eq!((&x.0, x.2), (&y.0, y.2));
            if x.0 != "t" {
                assert_eq!(x.1, y.1, "{}", x.0);
            }
        }
        let names: Vec<String> = ["c", "a", "d", "b", "a", "e"].map(String::from).to_vec();
        let keys = file.keys(&names).unwrap();
        assert_eq!(keys.part_rows(), [7, 7, 7, 7, 2]);
        let whole: Vec<ColumnCodes> = names
            .iter()
            .map(|k| ColumnCodes::of(ds.table.column(k).unwrap(), SetCoding::Whole))
            .collect();
        assert_eq!(
            keys.cards(),
            whole.iter().map(|w| w.card()).collect::<Vec<_>>()
        );
        // a, c and e have nulls: their ranges take in the 0 the table holds at missing cells,
        // unless that makes them 2²⁴ wide (e).
        assert_eq!(keys.cards(), [30, 1_000_013, 2, 3, 1_000_013, 5]);
        let mut got: Vec<Vec<u32>> = vec![Vec::new(); names.len()];
        let mut start = 0;
        for part in 0..keys.part_rows().len() {
            let whole_part = keys
                .for_each_piece(part, &mut |offset, sources| {
                    assert_eq!(offset, got[0].len() - start);
                    for (g, s) in got.iter_mut().zip(sources) {
                        let mut buf = vec![0; s.len()];
                        // From the middle of the piece, then its start: any block reads.
                        let half = s.len() / 2;
                        s.fill(half, &mut buf[half..]);
                        s.fill(0, &mut buf[..half]);
                        g.extend(buf);
                    }
                })
                .unwrap();
            assert!(whole_part);
            start += keys.part_rows()[part];
        }
        for (g, w) in got.iter().zip(&whole) {
            let mut expected = vec![0; n];
            w.fill(0, &mut expected);
            assert_eq!(g, &expected);
        }
        // Not integers nor text as the reader gives them: unsigned 64-bit, floats, unknown,
        // declared another kind or a weight. (Text keys: `text_keys_are_the_tables_codes`.)
        for k in ["u", "f", "zz"] {
            assert!(file.keys(&[k.to_string()]).is_none(), "{k}");
        }
        let declared = ReadOptions {
            schema: Some(
                intruder_data::Schema::from_toml(
                    "[columns.a]\ntype = \"categorical\"\n",
                    "s.toml".as_ref(),
                )
                .unwrap(),
            ),
            ..ReadOptions::default()
        };
        let file = ColumnarFile::open(&p, &declared).unwrap();
        assert!(file.keys(&["a".to_string()]).is_none());
        assert!(file.keys(&["b".to_string()]).is_some());
        let file = ColumnarFile::open(&p, &opts.clone().with_role(&["a"], Role::Weight)).unwrap();
        assert!(file.keys(&["a".to_string()]).is_none());
        // Without statistics nothing is known before reading.
        let bare = parquet_file(dir.path(), columns, 7, false);
        let file = ColumnarFile::open(&bare, &opts).unwrap();
        assert!(file.keys(&["b".to_string()]).is_none());
        // Not Parquet.
        let csv = dir.path().join("x.csv");
        std::fs::write(&csv, "a\n1\n").unwrap();
        assert!(ColumnarFile::open(&csv, &opts).is_none());
    }

    /// One key column of the property below: its Arrow type (0–3: signed, 8 to 64 bits; 4–6:
    /// unsigned, 8 to 32 bits) and values (`None` is null).
    fn int_array(width: u8, values: &[Option<i64>]) -> ArrayRef {
        match width {
            0 => Arc::new(arrow_array::Int8Array::from_iter(
                values.iter().map(|v| v.map(|x| x as i8)),
            )),
            1 => Arc::new(arrow_array::Int16Array::from_iter(
                values.iter().map(|v| v.map(|x| x as i16)),
            )),
            2 => Arc::new(Int32Array::from_iter(
                values.iter().map(|v| v.map(|x| x as i32)),
            )),
            3 => Arc::new(arrow_array::Int64Array::from_iter(values.iter().copied())),
            4 => Arc::new(arrow_array::UInt8Array::from_iter(
                values.iter().map(|v| v.map(|x| x as u8)),
            )),
            5 => Arc::new(arrow_array::UInt16Array::from_iter(
                values.iter().map(|v| v.map(|x| x as u16)),
            )),
            _ => Arc::new(arrow_array::UInt32Array::from_iter(
                values.iter().map(|v| v.map(|x| x as u32)),
            )),
        }
    }

    /// Reads every part of `keys` into one code vector per key.
    fn parted_codes(keys: &dyn intruder_data::keys::PartedCodes) -> Vec<Vec<u32>> {
        let mut got: Vec<Vec<u32>> = vec![Vec::new(); keys.nkeys()];
        for part in 0..keys.part_rows().len() {
            let whole = keys
                .for_each_piece(part, &mut |_, sources| {
                    for (g, s) in got.iter_mut().zip(sources) {
                        let mut buf = vec![0; s.len()];
                        s.fill(0, &mut buf);
                        g.extend(buf);
                    }
                })
                .unwrap();
            assert!(whole);
        }
        got
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Whatever the widths, ranges, nulls and row groups, the Parquet key path gives the
        /// codes and cardinalities the table path gives, or declines: only for a key coded by
        /// its distinct values (a range 2²⁴ wide) or without an observed value.
        #[test]
        fn parquet_keys_are_the_tables_codes_or_none(
            columns in proptest::collection::vec(
                (0u8..7, 0usize..5, proptest::collection::vec(
                    proptest::option::weighted(0.8, 0i64..40), 1..60)),
                1..4,
            ),
            group in 1usize..25,
        ) {
            use intruder_data::ColumnarFile;
            use intruder_data::keys::{CodeSource, ColumnCodes, PartedCodes, SetCoding};
            let n = columns.iter().map(|c| c.2.len()).min().unwrap();
            // Bases that put the range, and the 0 of missing cells, on either side of 2²⁴, and
            // unsigned 32-bit values past 2³¹ (negative in the statistics' bits).
            let bases = [0i64, -100, 1 << 23, (1 << 24) - 20, -(1 << 24)];
            let unsigned = [0i64, 3_000_000_000, (1 << 24) - 20, 1 << 31, 100];
            let mut arrays = Vec::new();
            for (j, (width, base, values)) in columns.iter().enumerate() {
                let base = match width {
                    3 => bases[*base],
                    6 => unsigned[*base],
                    4 | 5 => [0, 20, 200][*base % 3],
                    _ => [0, -20, 60][*base % 3],
                };
                let values: Vec<Option<i64>> =
                    values[..n].iter().map(|v| v.map(|x| base + x)).collect();
                arrays.push((["a", "b", "c"][j], int_array(*width, &values)));
            }
            let dir = tempfile::tempdir().unwrap();
            let p = parquet_file(dir.path(), arrays, group, true);
            let ds = load(&p, &Input::default()).unwrap();
            let names: Vec<String> = (0..columns.len()).map(|j| ["a", "b", "c"][j].to_string()).collect();
            let table: Vec<ColumnCodes> = names
                .iter()
                .map(|k| ColumnCodes::of(ds.table.column(k).unwrap(), SetCoding::Whole))
                .collect();
            let codable = names.iter().zip(&table).all(|(k, c)| {
                matches!(c, ColumnCodes::Offset { .. })
                    && ds.table.column(k).unwrap().missing_count() < n
            });
            let file = ColumnarFile::open(&p, &ReadOptions::default()).unwrap();
            let keys = file.keys(&names);
            proptest::prop_assert_eq!(keys.is_some(), codable);
            if let Some(keys) = keys {
                let cards: Vec<u32> = table.iter().map(|c| c.card()).collect();
                proptest::prop_assert_eq!(keys.cards(), &cards[..]);
                for (got, t) in parted_codes(&keys).iter().zip(&table) {
                    let mut expected = vec![0; n];
                    t.fill(0, &mut expected);
                    proptest::prop_assert_eq!(got, &expected);
                }
                // Made whole, they are the key codes of the table.
                proptest::prop_assert_eq!(
                    intruder_data::keys::Keys::from_parts(&keys).unwrap(),
                    Some(intruder_data::keys::Keys::encode(&ds.table, &names, SetCoding::Whole).unwrap())
                );
            }
        }
    }

    /// The texts of the property below: numbers as text (one written two ways), text, and
    /// numbers with a fraction; each pool with the default missing tokens.
    const POOLS: [&[&str]; 3] = [
        &["1", "2", "10", "01", "-3", "NA", ""],
        &["a", "b", "1", "A", "NA", ".", " a", "é"],
        &["1.5", "2", "2.0", "-0.25", "NA"],
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        /// Text keys, as Arrow strings or dictionary-encoded strings, in any row groups, with
        /// nulls and missing tokens, inferred or declared categorical or string, beside an
        /// integer key: the Parquet key path gives the codes and cardinalities the table path
        /// gives.
        #[test]
        fn text_keys_are_the_tables_codes(
            columns in proptest::collection::vec(
                (0usize..3, proptest::bool::ANY, proptest::collection::vec(
                    proptest::option::weighted(0.9, 0usize..8), 1..70)),
                1..3,
            ),
            ints in proptest::collection::vec(proptest::option::weighted(0.9, 0i64..9), 70),
            group in 1usize..30,
            declared in 0usize..3,
        ) {
            use intruder_data::ColumnarFile;
            use intruder_data::keys::{CodeSource, ColumnCodes, PartedCodes, SetCoding};
            let n = columns.iter().map(|c| c.2.len()).min().unwrap();
            let mut arrays = Vec::new();
            let mut names = Vec::new();
            for (j, (pool, dictionary, cells)) in columns.iter().enumerate() {
                let pool = POOLS[*pool];
                let texts = cells[..n].iter().map(|c| c.map(|i| pool[i % pool.len()]));
                let array: ArrayRef = if *dictionary {
                    Arc::new(texts.collect::<DictionaryArray<arrow_array::types::Int32Type>>())
                } else {
                    Arc::new(texts.collect::<StringArray>())
                };
                let name = ["s", "t"][j];
                arrays.push((name, array));
                names.push(name.to_string());
            }
            arrays.push(("i", Arc::new(arrow_array::Int64Array::from_iter(ints[..n].iter().copied())) as ArrayRef));
            names.push("i".to_string());
            let dir = tempfile::tempdir().unwrap();
            let p = parquet_file(dir.path(), arrays, group, true);
            let schema = dir.path().join("k.schema.toml");
            let kind = ["", "categorical", "string"][declared];
            let toml = if kind.is_empty() {
                String::new()
            } else {
                format!("[columns.s]\ntype = \"{kind}\"\n")
            };
            std::fs::write(&schema, toml).unwrap();
            let input = Input { schema: Some(schema), ..Input::default() };
            let ds = load(&p, &input).unwrap();
            let table: Vec<ColumnCodes> = names
                .iter()
                .map(|k| ColumnCodes::of(ds.table.column(k).unwrap(), SetCoding::Whole))
                .collect();
            let file = ColumnarFile::open(&p, &input.read_options(&p).unwrap()).unwrap();
            // The integer key is taken when it has an observed value and a narrow range.
            let observed = columns.iter().all(|(_, _, cells)| cells[..n].iter().any(Option::is_some));
            let int_ok = matches!(table.last(), Some(ColumnCodes::Offset { .. }))
                && ds.table.column("i").unwrap().missing_count() < n
                && observed;
            let keys = file.keys(&names);
            proptest::prop_assert_eq!(keys.is_some(), int_ok);
            let text_names = &names[..names.len() - 1];
            // Text keys are taken when each has a text (an all-null column's kind is the table
            // reader's to infer).
            let keys = file.keys(text_names);
            proptest::prop_assert_eq!(keys.is_some(), observed);
            let Some(keys) = keys else { return Ok(()) };
            let cards: Vec<u32> = table.iter().map(|c| c.card()).collect();
            proptest::prop_assert_eq!(keys.cards(), &cards[..text_names.len()]);
            for (got, t) in parted_codes(&keys).iter().zip(&table) {
                let mut expected = vec![0; n];
                t.fill(0, &mut expected);
                proptest::prop_assert_eq!(got, &expected);
            }
            proptest::prop_assert_eq!(
                intruder_data::keys::Keys::from_parts(&keys).unwrap(),
                Some(intruder_data::keys::Keys::encode(&ds.table, text_names, SetCoding::Whole).unwrap())
            );
        }
    }

    /// Text keys the dictionary pages do not settle: a column stored without a dictionary is
    /// not taken; a dictionary that filled up, its later pages written plainly, is found out
    /// while reading (the caller then reads the table).
    #[test]
    fn text_keys_outside_their_dictionary_pages_are_not_taken() {
        use intruder_data::ColumnarFile;
        use intruder_data::keys::PartedCodes;
        use parquet::file::properties::WriterProperties;
        let n = 5_000;
        let texts: Vec<String> = (0..n).map(|i| format!("value {i}")).collect();
        let array: ArrayRef = Arc::new(StringArray::from_iter_values(&texts));
        let batch = RecordBatch::try_from_iter([("t", array)]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, props| write_batch(&dir.path().join(name), &batch, props);
        let names = ["t".to_string()];
        let plain = write(
            "plain.parquet",
            WriterProperties::builder()
                .set_dictionary_enabled(false)
                .build(),
        );
        let file = ColumnarFile::open(&plain, &ReadOptions::default()).unwrap();
        assert!(file.keys(&names).is_none());
        let full = write(
            "full.parquet",
            WriterProperties::builder()
                .set_dictionary_page_size_limit(256)
                .set_data_page_row_count_limit(100)
                .set_write_batch_size(100)
                .build(),
        );
        let file = ColumnarFile::open(&full, &ReadOptions::default()).unwrap();
        let keys = file.keys(&names).unwrap();
        assert!(
            keys.cards()[0] < n as u32,
            "only the dictionary page's texts"
        );
        let read = (0..keys.part_rows().len())
            .map(|part| keys.for_each_piece(part, &mut |_, _| {}).unwrap())
            .collect::<Vec<bool>>();
        assert!(read.contains(&false), "{read:?}");
    }

    /// A row group longer than a batch: its pieces follow one another.
    #[test]
    fn a_long_row_group_is_read_in_pieces() {
        use intruder_data::ColumnarFile;
        use intruder_data::keys::{CodeSource, ColumnCodes, PartedCodes, SetCoding};
        let n = 150_000;
        let values: Vec<Option<i64>> = (0..n)
            .map(|i| (i % 13 != 4).then_some((i as i64 * 31) % 1000 - 7))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let p = parquet_file(dir.path(), vec![("a", int_array(3, &values))], n, true);
        let file = ColumnarFile::open(&p, &ReadOptions::default()).unwrap();
        let keys = file.keys(&["a".to_string()]).unwrap();
        assert_eq!(keys.part_rows(), [n]);
        let mut offsets = Vec::new();
        keys.for_each_piece(0, &mut |offset, _| offsets.push(offset))
            .unwrap();
        // Batches of 8,192 rows (`columnar::parts`).
        assert_eq!(offsets, (0..n).step_by(8_192).collect::<Vec<_>>());
        let ds = load(&p, &Input::default()).unwrap();
        let table = ColumnCodes::of(ds.table.column("a").unwrap(), SetCoding::Whole);
        let mut expected = vec![0; n];
        table.fill(0, &mut expected);
        assert_eq!(parted_codes(&keys), [expected]);
    }
}
