//! Registry, parameter validation, reproducibility and output format for every generator.

use crate::common;

use common::{contents, generate};
use intruder_synth::{SynthError, configure, find, generators, parse};

/// Small settings per generator so every test here is fast.
fn small(name: &str) -> Vec<&'static str> {
    match name {
        "survey-panel" => vec!["n=300"],
        "household-panel" => vec!["n=2000"],
        "register-survey" => vec!["n=300", "twins=50"],
        "census" => vec!["n=3000", "keys=12"],
        "linkage-pair" => vec!["n=300", "n_b=200"],
        other => panic!("no small settings for new generator {other}: add them here"),
    }
}

#[test]
fn same_seed_same_bytes_other_seed_other_bytes() {
    for g in generators() {
        let sets = small(g.name);
        let (d1, f1) = generate(g.name, 42, &sets);
        let (d2, _) = generate(g.name, 42, &sets);
        let (d3, _) = generate(g.name, 43, &sets);
        let (c1, c2, c3) = (
            contents(d1.path()),
            contents(d2.path()),
            contents(d3.path()),
        );
        assert_eq!(c1, c2, "{}: same seed, different bytes", g.name);
        assert!(!f1.is_empty());
        for ((name, a), (_, b)) in c1.iter().zip(&c3) {
            if name.ends_with(".csv") {
                assert_ne!(a, b, "{}: {name} identical under another seed", g.name);
            }
        }
    }
}

#[test]
fn every_csv_has_a_schema_with_a_truth_column_matching_its_header() {
    for g in generators() {
        let (dir, files) = generate(g.name, 1, &small(g.name));
        let csvs: Vec<_> = files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == "csv"))
            .collect();
        assert!(!csvs.is_empty());
        for csv in csvs {
            let schema_path = csv.with_extension("schema.toml");
            let schema = std::fs::read_to_string(&schema_path).expect("schema next to csv");
            assert!(schema.starts_with(&format!(
                "# written by intruder synth {} (seed 1, data version {})\n",
                g.name,
                intruder_synth::DATA_VERSION
            )));
            assert!(schema.contains("delimiter = \",\"\nmissing = [\"\"]\n"));
            let header = std::fs::read_to_string(csv).expect("csv");
            let header = header.lines().next().expect("header line");
            let declared: Vec<&str> = schema
                .lines()
                .filter_map(|l| {
                    l.strip_prefix("[columns.")
                        .and_then(|l| l.strip_suffix(']'))
                })
                .collect();
            assert_eq!(
                header.split(',').collect::<Vec<_>>(),
                declared,
                "{}",
                csv.display()
            );
            assert!(
                schema.contains("role = \"truth\""),
                "{}",
                schema_path.display()
            );
        }
        // No temporary files left behind.
        for e in std::fs::read_dir(dir.path()).expect("dir") {
            let name = e.expect("entry").file_name().to_string_lossy().into_owned();
            assert!(!name.starts_with('.'), "leftover {name}");
        }
    }
}

#[test]
fn unknown_generator_lists_the_valid_names() {
    let err = find("no-such").err().expect("unknown");
    let text = err.to_string();
    for g in generators() {
        assert!(text.contains(g.name), "{text}");
    }
    assert!(matches!(err, SynthError::UnknownGenerator { .. }));
}

#[test]
fn unknown_parameter_lists_the_valid_ones() {
    for g in generators() {
        let err = parse(g.name, None, &["colour=blue"]).expect_err("unknown");
        let text = err.to_string();
        assert!(text.contains("colour: unknown key"), "{text}");
        for p in g.params {
            assert!(text.contains(p.name), "{}: {text}", g.name);
        }
    }
    // A near name is suggested.
    let err = parse("census", None, &["fracton=0.1"]).expect_err("typo");
    assert!(
        err.to_string()
            .contains("fracton: unknown key (did you mean 'fraction'?)"),
        "{err}"
    );
}

#[test]
fn out_of_range_values_are_errors_and_all_are_reported() {
    let err = parse(
        "survey-panel",
        None,
        &["n=-5", "income_missing=1.5", "fill_jitter=abc", "oops"],
    )
    .expect_err("invalid");
    let text = err.to_string();
    assert!(
        text.contains("n: expected a value in [1, 10000000], found -5"),
        "{text}"
    );
    assert!(
        text.contains("income_missing: expected a value in [0, 1], found 1.5"),
        "{text}"
    );
    assert!(
        text.contains("fill_jitter: expected a finite number, found the string \"abc\""),
        "{text}"
    );
    assert!(text.contains("--set 'oops': expected KEY=VALUE"), "{text}");
    assert!(parse::<&str>("census", Some(0), &[]).is_err());
    assert!(parse("census", None, &["keys=31"]).is_err());
    assert!(parse("census", None, &["preset=other"]).is_err());
    assert!(parse("census", None, &["n=5", "n=6"]).is_err());
    assert!(parse("census", Some(5), &["n=6"]).is_err());
}

#[test]
fn a_table_is_read_as_given_with_paths() {
    let t: toml::Table = "links = false\nsplit = 0.1\nretention = 2"
        .parse()
        .expect("toml");
    let err =
        configure("household-panel", Some(100), &t, "data.params").expect_err("retention > 1");
    let text = err.to_string();
    assert!(
        text.contains("data.params.retention: expected a value in [0, 1], found 2"),
        "{text}"
    );
    let t: toml::Table = "links = false\nsplit = 0.1".parse().expect("toml");
    let g = configure("household-panel", Some(100), &t, "data.params").expect("valid");
    let p = g.params();
    assert_eq!(
        p.describe(),
        "links=false moved=0.137 n=100 nonunique=0.123 retention=0.659267 split=0.1 \
         split_wealth_change=0.35 wealth_change=0.15"
    );
    assert!(p.is_explicit("n") && p.is_explicit("links") && !p.is_explicit("moved"));
    // The same values through --set give the same parameters.
    let q = parse("household-panel", Some(100), &["links=false", "split=0.1"]).expect("valid");
    assert_eq!(p.describe(), q.params().describe());
}

#[test]
fn readme_parameter_table_is_generated_from_the_registry() {
    let readme = include_str!("../README.md");
    let table = intruder_data::params::markdown_table(&intruder_synth::docs());
    let spliced = intruder_data::params::splice_generated(readme, "generator-parameters", &table)
        .expect("README has the generator-parameters markers");
    assert!(
        spliced == readme,
        "data-synth/README.md's parameter table is stale; replace it by:\n{table}"
    );
    assert_eq!(intruder_synth::docs().len(), generators().len());
}

#[test]
fn defaults_are_valid_and_documented() {
    for g in generators() {
        let built = parse::<&str>(g.name, None, &[]).expect("the defaults are valid");
        assert_eq!(built.name(), g.name);
        assert!(!built.description().is_empty());
        assert!(!built.published().is_empty());
        assert!(!g.summary.is_empty() && !g.reference.is_empty());
        for p in g.params {
            assert!(!p.doc.is_empty(), "{}.{}", g.name, p.name);
            assert!(!p.default.is_empty(), "{}.{}", g.name, p.name);
        }
    }
}

#[test]
fn a_failing_generator_writes_nothing() {
    let g = parse("census", None, &["n=10", "sample=20"]).expect("each value in range");
    let dir = tempfile::tempdir().expect("tempdir");
    let err = g.generate(1, dir.path()).expect_err("sample > n");
    assert!(err.to_string().contains("sample=20"), "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0);
}

#[test]
fn n_flag_sets_the_size() {
    let dir = tempfile::tempdir().expect("tempdir");
    intruder_synth::run("survey-panel", Some(17), &[], 3, dir.path()).expect("run");
    let text = std::fs::read_to_string(dir.path().join("survey-panel.csv")).expect("csv");
    assert_eq!(text.lines().count(), 18);
}

/// Every generator declares the files it writes and their schemas without generating them (what
/// `intruder run --dry-run` checks an experiment against), and declares exactly what it then
/// writes: the same files, and each file's schema TOML written from the same schema.
#[test]
fn declared_schemas_are_the_schemas_written() {
    let cases: &[(&str, &[&str])] = &[
        ("survey-panel", &["n=60"]),
        ("household-panel", &["n=80"]),
        ("household-panel", &["n=80", "links=true"]),
        ("register-survey", &["n=50", "twins=10"]),
        ("register-survey", &["n=50", "twins=10", "population=200"]),
        ("census", &["n=300", "keys=4"]),
        ("census", &["n=400000", "preset=drug-survey"]),
        ("linkage-pair", &["n=40"]),
    ];
    for &(name, sets) in cases {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let g = parse(name, None, &sets).unwrap();
        let declared = intruder_synth::schemas(name, None, &sets, 7).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let files = g.generate(7, dir.path()).unwrap();
        let csv: Vec<String> = files
            .iter()
            .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
            .filter(|n| n.ends_with(".csv"))
            .collect();
        let names: Vec<String> = declared.iter().map(|(f, _)| f.clone()).collect();
        assert_eq!(csv, names, "{name} {sets:?}: the files");
        for (file, schema) in &declared {
            let stem = file.trim_end_matches(".csv");
            let written =
                std::fs::read_to_string(dir.path().join(format!("{stem}.schema.toml"))).unwrap();
            // The written TOML is the declared schema after its two comment lines.
            let body: Vec<&str> = written.lines().filter(|l| !l.starts_with('#')).collect();
            let want = schema.to_toml("", "");
            let want: Vec<&str> = want.lines().filter(|l| !l.starts_with('#')).collect();
            assert_eq!(body, want, "{name} {sets:?}: {file}");
            let header = std::fs::read_to_string(dir.path().join(file)).unwrap();
            assert_eq!(
                header
                    .lines()
                    .next()
                    .unwrap()
                    .split(',')
                    .collect::<Vec<_>>(),
                schema.header(),
                "{name}: {file} header"
            );
        }
    }
    // The parameters are checked as generating checks them.
    let e = intruder_synth::schemas("linkage-pair", None, &["n=100".into(), "n_b=10".into()], 1)
        .unwrap_err()
        .to_string();
    assert!(e.contains("do not fit in n_b=10"), "{e}");
}
