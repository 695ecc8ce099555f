//! Frequency and individual risk: local against datafusion.

use intruder_data::Input;
use intruder_engine::{EngineSpec, risk};
use intruder_risk::registry::{Frequency, Individual};
use intruder_risk::{MissingPolicy, RiskMeasure, RiskParams};

use crate::common::{same_figures, survey};

fn engines() -> (EngineSpec, EngineSpec) {
    (
        EngineSpec::default(),
        EngineSpec::parse(Some("datafusion"), Some("256MiB")).unwrap(),
    )
}

fn params(keys: &[&str], policy: MissingPolicy) -> RiskParams {
    let mut p = RiskParams::new(keys.iter().map(|s| s.to_string()).collect());
    p.missing = policy;
    p.per_record = false;
    p
}

fn both(m: &dyn RiskMeasure, file: &std::path::Path, what: &str) {
    let (local, df) = engines();
    let a = risk(&local, file, &Input::default(), m).unwrap();
    let b = risk(&df, file, &Input::default(), m).unwrap();
    same_figures(&a.report.figures, &b.report.figures, what);
    assert_eq!(a.warnings, b.warnings, "{what}: warnings");
}

/// Measures as every surface builds them (the registry from a table of parameters; the CLI,
/// Python, experiments): such a measure keeps `per_record` on for the calls that ask for
/// records, and the plans must still run it (they were refused: "per-record figures", found by
/// the first `intruder risk --engine datafusion` on the benchmark file).
#[test]
fn a_measure_from_the_registry_runs_on_datafusion() {
    let dir = tempfile::tempdir().unwrap();
    let (_, parquet) = survey(dir.path(), "s", 2000, 5, true);
    for text in [
        "measure = \"frequency\"\nkeys = [\"region\", \"age\", \"sex\"]\nmissing = \"wildcard\"",
        "measure = \"individual\"\nkeys = [\"region\", \"age\", \"sex\"]\nweight = \"w\"",
    ] {
        let table: toml::Table = text.parse().unwrap();
        let built = intruder_risk::configure(&table, "", Default::default(), &[]).unwrap();
        both(built.method.as_ref(), &parquet, text);
    }
}

#[test]
fn frequency_under_every_policy_matches_local() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, parquet) = survey(dir.path(), "s", 3000, 7, false);
    for policy in [
        MissingPolicy::Listwise,
        MissingPolicy::AsValue,
        MissingPolicy::Wildcard,
    ] {
        for keys in [
            &["region", "age", "sex"][..],
            &["region", "age", "sex", "job"],
        ] {
            let mut p = params(keys, policy);
            p.population_size = Some(30_000.0);
            let m = Frequency::new(p).unwrap();
            for file in [&csv, &parquet] {
                both(&m, file, &format!("{policy:?} {keys:?} {}", file.display()));
            }
        }
    }
}

/// Wildcard risk without a memory limit (every pair of missingness patterns joined in one
/// plan, hash joins) and under one (a pair at a time, sort-merge joins, parts on disk): the
/// local figures both ways, weighted and not.
#[test]
fn wildcard_with_and_without_a_memory_limit_matches_local() {
    let dir = tempfile::tempdir().unwrap();
    let (_, parquet) = survey(dir.path(), "s", 2500, 13, false);
    let keys = ["region", "age", "sex", "job"];
    let unbounded = EngineSpec::parse(Some("datafusion"), None).unwrap();
    let bounded = EngineSpec::parse(Some("datafusion"), Some("32MiB")).unwrap();
    let mut weighted = params(&keys, MissingPolicy::Wildcard);
    weighted.weight = Some("w".into());
    let measures: [Box<dyn RiskMeasure>; 2] = [
        Box::new(Frequency::new(params(&keys, MissingPolicy::Wildcard)).unwrap()),
        Box::new(Individual::new(weighted).unwrap()),
    ];
    for m in &measures {
        let local = risk(
            &EngineSpec::default(),
            &parquet,
            &Input::default(),
            m.as_ref(),
        )
        .unwrap();
        for spec in [&unbounded, &bounded] {
            let out = risk(spec, &parquet, &Input::default(), m.as_ref()).unwrap();
            let what = format!("{} limit {:?}", m.name(), spec.memory_limit);
            same_figures(&local.report.figures, &out.report.figures, &what);
        }
    }
}

/// Wildcard risk under a limit where the two large missingness patterns are too large for a
/// hash join's build side (a third of the limit at 80 bytes a row for tuples packed in one
/// number: 69,905 rows at 16 MiB): 240,000 records, `a` with 200,000 values, `b` missing in
/// half of them (115,223 and 89,574 distinct tuples), `a` missing in 1 % (10 tuples).
/// The tuples of `a` and `b` are joined one pattern at a time: to those of `b` alone by a
/// hash join, to those of `a` alone by a sort-merge join; the local figures. (At 8 MiB the
/// Parquet writer's buffered row group of the tuples, which cannot spill, passes the pool: the
/// run fails with "the memory limit was reached", not a wrong figure.)
#[test]
fn wildcard_pairs_too_large_to_hash_join_match_local() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("a,b\n");
    let mut x: u64 = 7;
    for _ in 0..240_000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let a = (x >> 33) % 200_000;
        let b = (x >> 20) % 20;
        match (b < 10, (x >> 12) % 100 == 0) {
            (_, true) => csv.push_str(&format!(",{}\n", b % 10)),
            (true, false) => csv.push_str(&format!("{a},{b}\n")),
            (false, false) => csv.push_str(&format!("{a},\n")),
        }
    }
    let c = dir.path().join("big.csv");
    std::fs::write(&c, csv).unwrap();
    let ds = intruder_data::load(&c, &Input::default()).unwrap();
    let p = dir.path().join("big.parquet");
    intruder_data::write_parquet(&p, &ds).unwrap();
    let m = Frequency::new(params(&["a", "b"], MissingPolicy::Wildcard)).unwrap();
    let local = risk(&EngineSpec::default(), &p, &Input::default(), &m).unwrap();
    let bounded = EngineSpec::parse(Some("datafusion"), Some("16MiB")).unwrap();
    let out = risk(&bounded, &p, &Input::default(), &m).unwrap();
    same_figures(&local.report.figures, &out.report.figures, "16 MiB");
}

#[test]
fn individual_risk_from_weights_matches_local() {
    let dir = tempfile::tempdir().unwrap();
    let (_, parquet) = survey(dir.path(), "s", 2500, 11, true);
    for policy in [
        MissingPolicy::Listwise,
        MissingPolicy::AsValue,
        MissingPolicy::Wildcard,
    ] {
        let mut p = params(&["region", "age", "sex", "job"], policy);
        p.weight = Some("w".into());
        p.population_size = Some(40_000.0);
        let m = Individual::new(p.clone()).unwrap();
        both(&m, &parquet, &format!("individual {policy:?}"));
        let m = Frequency::new(p).unwrap();
        both(&m, &parquet, &format!("frequency weighted {policy:?}"));
    }
}

/// METHODS.md example D (Mulder's Table 2): n_match is 3, 1, 5, 3, 3, 3.
#[test]
fn mulders_table_2_on_datafusion() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t2.csv");
    std::fs::write(&f, "age,gender\n40,M\n36,F\n.,M\n40,.\n23,M\n23,M\n").unwrap();
    let m = Frequency::new(params(&["age", "gender"], MissingPolicy::Wildcard)).unwrap();
    let (_, df) = engines();
    let out = risk(&df, &f, &Input::default(), &m).unwrap();
    let get = |n: &str| {
        out.report
            .figures
            .iter()
            .find(|x| x.name == n)
            .unwrap_or_else(|| panic!("no figure {n}"))
            .value
            .clone()
    };
    assert_eq!(get("n_match_1"), serde_json::json!(1));
    assert_eq!(get("n_match_le_5"), serde_json::json!(6));
    // Σ 1/n_match = 1/3·4 + 1 + 1/5
    let er = get("expected_reidentifications").as_f64().unwrap();
    assert!((er - (4.0 / 3.0 + 1.0 + 0.2)).abs() < 1e-12, "{er}");
}

#[test]
fn errors_name_the_file_and_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.csv");
    std::fs::write(&f, "a,w\n1,2\n2,\n3,4\n").unwrap();
    let mut p = params(&["a"], MissingPolicy::Listwise);
    p.weight = Some("w".into());
    let m = Individual::new(p).unwrap();
    let (local, df) = engines();
    let a = risk(&local, &f, &Input::default(), &m)
        .unwrap_err()
        .to_string();
    let b = risk(&df, &f, &Input::default(), &m)
        .unwrap_err()
        .to_string();
    assert!(b.contains("record 2 has no weight"), "{b}");
    assert_eq!(a, b);
    let m = Frequency::new(params(&["nope"], MissingPolicy::Listwise)).unwrap();
    let b = risk(&df, &f, &Input::default(), &m)
        .unwrap_err()
        .to_string();
    assert!(
        b.contains("no column named 'nope'") && b.contains("bad.csv"),
        "{b}"
    );
    // What the counts cannot give is refused, not approximated.
    let mut p = params(&["a"], MissingPolicy::Listwise);
    p.sensitive = Some("w".into());
    let b = risk(&df, &f, &Input::default(), &Frequency::new(p).unwrap())
        .unwrap_err()
        .to_string();
    assert!(b.contains("local engine only"), "{b}");
}

#[test]
fn a_tiny_memory_limit_fails_clearly_or_matches() {
    let dir = tempfile::tempdir().unwrap();
    let (_, parquet) = survey(dir.path(), "s", 4000, 3, false);
    let m = Frequency::new(params(
        &["region", "age", "sex", "job"],
        MissingPolicy::AsValue,
    ))
    .unwrap();
    let local = risk(&EngineSpec::default(), &parquet, &Input::default(), &m).unwrap();
    let tiny = EngineSpec::parse(Some("datafusion"), Some("64KiB")).unwrap();
    match risk(&tiny, &parquet, &Input::default(), &m) {
        Ok(out) => same_figures(&local.report.figures, &out.report.figures, "64 KiB"),
        Err(e) => {
            let e = e.to_string();
            assert!(
                e.contains("--engine datafusion") && e.to_lowercase().contains("memory"),
                "{e}"
            );
        }
    }
}

/// A table in memory (an experiment's released file) with a set-valued column the measure
/// does not count on runs on datafusion with the local figures: the column is left out of the
/// copy the plans scan (survey-panel's `education_field` made every experiment's risk and
/// exact figures fail on datafusion). A set-valued key is refused by name.
#[test]
fn a_set_valued_column_that_is_not_a_key_is_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, _) = survey(dir.path(), "s", 1500, 11, false);
    // The survey with a set-valued column `fields` appended.
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    let mut out = format!("{},fields\n", lines.next().unwrap());
    for (i, l) in lines.enumerate() {
        let cell = ["1|2", "3", "", "2|4|1"][i % 4];
        out.push_str(&format!("{l},{cell}\n"));
    }
    let with_set = dir.path().join("with_set.csv");
    std::fs::write(&with_set, out).unwrap();
    let input = Input {
        set_valued: vec!["fields".into()],
        ..Input::default()
    };
    let table = intruder_data::load(&with_set, &input).unwrap().table;
    assert_eq!(
        table.column("fields").unwrap().kind(),
        intruder_data::Kind::Set
    );
    let (local, df) = engines();
    for policy in [MissingPolicy::Listwise, MissingPolicy::Wildcard] {
        let m = Frequency::new(params(&["region", "age", "sex"], policy)).unwrap();
        let a = intruder_engine::risk_table(&local, &table, &m).unwrap();
        let b = intruder_engine::risk_table(&df, &table, &m).unwrap();
        same_figures(&a.report.figures, &b.report.figures, "a set-valued non-key");
        assert!(a.report.figures.iter().any(|f| f.name == "n_total"));
    }
    let m = Frequency::new(params(&["region", "fields"], MissingPolicy::Listwise)).unwrap();
    let e = intruder_engine::risk_table(&df, &table, &m)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("'fields' is set-valued") && e.contains("local engine only"),
        "{e}"
    );
}

/// A Parquet file of integer keys of several Arrow types, written by DataFusion from `sql`.
fn typed_parquet(dir: &std::path::Path, name: &str, sql: &str) -> std::path::PathBuf {
    use datafusion::dataframe::DataFrameWriteOptions;
    let path = dir.join(format!("{name}.parquet"));
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let ctx = datafusion::prelude::SessionContext::new();
        let df = ctx.sql(sql).await.unwrap();
        df.repartition(datafusion::prelude::Partitioning::RoundRobinBatch(1))
            .unwrap()
            .write_parquet(
                path.to_str().unwrap(),
                DataFrameWriteOptions::new().with_single_file_output(true),
                None,
            )
            .await
            .unwrap();
    });
    path
}

/// Integer keys are grouped as one BIGINT (each key's value less its least, times the
/// product of the earlier keys' ranges; missing one more value under as-value) when the
/// ranges' product is below 2^63, else on the columns: the local engine's figures either way,
/// and its encoding (`mixed-radix` or `recoded`, from the distinct values).
#[test]
fn integer_keys_grouped_as_one_number_match_local() {
    let dir = tempfile::tempdir().unwrap();
    // 6,000 records: `a` int8 from -3 to 3, `b` int32 with negatives and 10% missing, `c`
    // uint16, `d` missing everywhere, `e` uint64 near i64::MAX, `wide` 1 or 10^15 (a range too wide to pack beside the others,
    // 2 distinct values), `u1` … `u6` unique per record (six such keys: 6000^6 tuples
    // overflow 64 bits, so the local engine re-codes), `w` a weight.
    let packed = typed_parquet(
        dir.path(),
        "packed",
        "SELECT CAST(v % 7 - 3 AS TINYINT) AS a,
                CASE WHEN v % 10 = 0 THEN NULL ELSE CAST((v * 7919) % 23 - 11 AS INT) END AS b,
                CAST((v * 104729) % 5 AS SMALLINT UNSIGNED) AS c,
                CAST(NULL AS BIGINT) AS d,
                CAST(9223372036854775000 - (v % 3) AS BIGINT UNSIGNED) AS e,
                CASE WHEN v % 4 = 0 THEN 1000000000000000 ELSE 1 END AS wide,
                v * 1000003 AS u1, v * 7 - 50000 AS u2, v * 13 AS u3, v * 17 AS u4,
                v * 19 + 5 AS u5, v AS u6,
                CAST(10 + v % 41 AS DOUBLE) AS w
         FROM generate_series(0, 5999) AS t(v)",
    );
    let cases: [&[&str]; 7] = [
        &["a", "b", "c"],
        &["a", "b", "c", "d"],
        &["a", "e"],
        &["a", "b", "wide", "c", "u1"],
        &["u1", "u2", "u3", "u4", "u5", "u6"],
        &["a", "b", "c", "u2", "u6"],
        &["d"],
    ];
    for keys in cases {
        for policy in [
            MissingPolicy::Listwise,
            MissingPolicy::AsValue,
            MissingPolicy::Wildcard,
        ] {
            let what = format!("{keys:?} {policy:?}");
            both(
                &Frequency::new(params(keys, policy)).unwrap(),
                &packed,
                &what,
            );
            let mut weighted = params(keys, policy);
            weighted.weight = Some("w".into());
            both(&Individual::new(weighted).unwrap(), &packed, &what);
            if policy == MissingPolicy::Wildcard {
                // Without a limit: every pair of patterns in one plan.
                let m = Frequency::new(params(keys, policy)).unwrap();
                let unbounded = EngineSpec::parse(Some("datafusion"), None).unwrap();
                let a = risk(&EngineSpec::default(), &packed, &Input::default(), &m).unwrap();
                let b = risk(&unbounded, &packed, &Input::default(), &m).unwrap();
                same_figures(&a.report.figures, &b.report.figures, &what);
            }
        }
    }
}
