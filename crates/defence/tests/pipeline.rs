//! Pipelines: parsing, every problem reported at once with its location, truth subsetting, and
//! the README's method table against the registry.

use intruder_data::{Column, Dataset, Role};
use intruder_defence::{METHODS, Pipeline, registry_markdown};

#[test]
fn a_malformed_pipeline_lists_every_problem_with_its_location() {
    let text = r#"
seed = 3

[[step]]
method = "local-supression"
k = 3

[[step]]
method = "local-suppression"
keys = ["a", "b"]
k = "3"
importanse = [1, 2]

[[step]]
method = "rank-swap"
variables = ["x"]
p = 0.0

[[step]]
method = "mdav"
variables = ["x"]

[[step]]
k = 2
"#;
    let e = Pipeline::from_toml(text, "bad.toml")
        .unwrap_err()
        .to_string();
    let expected = [
        "bad.toml",
        "top-level key 'seed': unknown",
        "step 1: key 'method': unknown method 'local-supression' (did you mean 'local-suppression'?)",
        "step 2 (local-suppression): key 'k': expected an integer, found the string \"3\"",
        "step 2 (local-suppression): key 'importanse': unknown key (did you mean 'importance'?)",
        "step 3 (rank-swap): key 'p': is 0; expected a percentage, 0 < p ≤ 100",
        "step 4 (mdav): key 'k': is required but missing",
        "step 5: key 'method' is required",
    ];
    for x in expected {
        assert!(e.contains(x), "missing «{x}» in:\n{e}");
    }
    assert_eq!(e.matches("\n  - ").count(), 7, "{e}");
    let e = Pipeline::from_toml("[[step]\nmethod = 1", "x.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("x.toml") && e.contains("not valid TOML"), "{e}");
    let e = Pipeline::from_toml("", "empty.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no [[step]]"), "{e}");
}

#[test]
fn every_registry_entry_rejects_an_empty_step_and_names_its_required_keys() {
    for m in METHODS {
        let text = format!("[[step]]\nmethod = \"{}\"\n", m.name);
        let r = Pipeline::from_toml(&text, "p");
        let required: Vec<_> = m.params.iter().filter(|p| p.required).collect();
        if required.is_empty() {
            // subsample needs fraction or size
            assert!(r.is_err(), "{}", m.name);
        }
        if let Err(e) = r {
            let e = e.to_string();
            for p in required {
                assert!(
                    e.contains(&format!("key '{}': is required", p.name)),
                    "{}: {e}",
                    m.name
                );
            }
        }
    }
}

#[test]
fn every_method_runs_on_a_tiny_synthetic_file() {
    let n = 40;
    let a: Vec<Option<i64>> = (0..n).map(|i| Some(i % 4)).collect();
    let b: Vec<Option<&str>> = (0..n)
        .map(|i| Some(["x", "y", "z"][i as usize % 3]))
        .collect();
    let x: Vec<Option<f64>> = (0..n).map(|i| Some((i * 13 % 17) as f64 + 0.5)).collect();
    let y: Vec<Option<f64>> = (0..n)
        .map(|i| Some((i * 7 % 11) as f64 * 2.0 - (i % 3) as f64))
        .collect();
    let t = intruder_data::Table::new(
        "tiny",
        vec![
            Column::integer("a", Role::Key, &a),
            Column::categorical("b", Role::Key, &b, None).unwrap(),
            Column::float("x", Role::Sensitive, &x),
            Column::float("y", Role::Sensitive, &y),
        ],
    )
    .unwrap();
    let steps = [
        "method = \"global-recode\"\ncolumns = [\"x\"]\nbreaks = [0, 10, 20]",
        "method = \"top-bottom-code\"\ncolumns = [\"x\"]\ntop = 12",
        "method = \"round\"\ncolumns = [\"y\"]\nbase = 5",
        "method = \"local-suppression\"\nkeys = [\"a\", \"b\"]\nk = 4",
        "method = \"risk-suppression\"\nkeys = [\"a\", \"b\"]\nthreshold = 0.2",
        "method = \"remove-records\"\nkeys = [\"a\", \"b\"]\nk = 4",
        "method = \"noise\"\nvariables = [\"x\", \"y\"]\nnoise = 10\ncorrelated = true",
        "method = \"mdav\"\nvariables = [\"x\", \"y\"]\nk = 3",
        "method = \"rank-swap\"\nvariables = [\"x\"]\np = 10",
        "method = \"pram\"\nvariables = [\"b\"]",
        "method = \"subsample\"\nfraction = 0.5",
    ];
    assert_eq!(steps.len(), METHODS.len());
    for (s, m) in steps.iter().zip(METHODS) {
        assert!(s.contains(&format!("\"{}\"", m.name)));
        let p = Pipeline::from_toml(&format!("[[step]]\n{s}\n"), "p").unwrap();
        let (out, log) = p.run(&t, 1).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        assert_eq!(out.nrows(), log.rows_out);
        assert_eq!(log.kept_rows.len(), out.nrows());
    }
}

#[test]
fn truth_is_subset_with_the_kept_rows() {
    let ids: Vec<Option<&str>> = (0..20)
        .map(|i| Some(["p0", "p1", "p2", "p3", "p4"][i % 5]))
        .collect();
    let a: Vec<Option<i64>> = (0..20)
        .map(|i| Some(if i < 17 { 1 } else { i as i64 }))
        .collect();
    let ds = Dataset::split_truth(
        "d",
        vec![
            Column::integer("a", Role::Key, &a),
            Column::string("pid", Role::Truth, &ids),
        ],
    )
    .unwrap();
    let p = Pipeline::from_toml(
        "[[step]]\nmethod = \"remove-records\"\nkeys = [\"a\"]\nk = 2\n\n[[step]]\nmethod = \"subsample\"\nfraction = 0.5\n",
        "p",
    )
    .unwrap();
    let (m, log) = p.run(&ds.table, 8).unwrap();
    let truth = ds.truth.take(&log.kept_rows);
    assert_eq!(m.nrows(), 9, "17 kept, then round(8.5) = 9");
    assert_eq!(log.steps[0].rows_removed, vec![17, 18, 19]);
    let pid = truth.column("pid").unwrap();
    for (j, &r) in log.kept_rows.iter().enumerate() {
        assert_eq!(pid.text(j).unwrap(), ["p0", "p1", "p2", "p3", "p4"][r % 5]);
    }
}

#[test]
fn readme_method_table_matches_the_registry() {
    let readme = include_str!("../README.md");
    let table = registry_markdown();
    assert!(
        readme.contains(&table),
        "crates/defence/README.md is out of date; paste the output of registry_markdown():\n{table}"
    );
}
