//! Pipelines: parsing, every problem reported at once with its path, old names with a warning,
//! columns checked against the data and truth subsetting (the README's method table is a
//! generated doc: crates/cli/tests/generated_docs.rs).

use intruder_data::params::{ColumnSet, ParamSpec, ReadContext};
use intruder_data::{Column, Dataset, Kind, Role};
use intruder_defence::{DEFENCES, Pipeline};

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
        "bad.toml: 7 problems:",
        "\n  - seed: unknown key; a pipeline holds only [[step]] tables",
        "\n  - step[1].method: unknown defence 'local-supression' (did you mean 'local-suppression'?)",
        "\n  - step[2].k: expected an integer, found the string \"3\"",
        "\n  - step[2].importanse: unknown key (did you mean 'importance'?)",
        "\n  - step[3].p: expected a value in (0, 100], found 0",
        "\n  - step[4].k: is required but missing (minimum group size)",
        "\n  - step[5].method: is required",
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
    for m in DEFENCES {
        let text = format!("[[step]]\nmethod = \"{}\"\n", m.name);
        let r = Pipeline::from_toml(&text, "p");
        let required: Vec<_> = m.params.iter().filter(|p| p.required).collect();
        if required.is_empty() {
            // subsample needs fraction or size; independent-marginals needs nothing
            assert_eq!(r.is_err(), m.name != "independent-marginals", "{}", m.name);
        }
        if let Err(e) = r {
            let e = e.to_string();
            for p in required {
                assert!(
                    e.contains(&format!("step[1].{}: is required", p.name)),
                    "{}: {e}",
                    m.name
                );
            }
        }
    }
}

/// Every defence's example (the settings its parameters declare with `ParamSpec::example`, which
/// `--list` prints) runs as written on household-wave1.csv of `intruder synth household-panel`,
/// the file `--list` names: as one step of a pipeline and through its registry entry alike. A
/// new defence is run here without naming it; one whose required parameters lack an example
/// (and so whose `--list` example would not run) fails.
#[test]
fn every_methods_example_runs_on_the_file_list_names() {
    let dir = tempfile::tempdir().unwrap();
    let generator =
        intruder_synth::configure("household-panel", Some(400), &toml::Table::new(), "").unwrap();
    generator.generate(1, dir.path()).unwrap();
    let data = intruder_data::load(
        &dir.path().join("household-wave1.csv"),
        &intruder_data::Input::default(),
    )
    .unwrap();
    let t = data.table;
    let cols = ColumnSet::of_parts(&t, &[]);
    let common: &[ParamSpec] = &[];
    for m in DEFENCES {
        let doc = m.doc(common);
        // the example gives every required parameter no schema role fills
        for p in m.params {
            let filled = p.role.is_some_and(|r| !t.with_role(r).is_empty());
            assert!(
                !p.required || filled || !p.example.is_empty(),
                "{}: required parameter {} has no example",
                m.name,
                p.name
            );
        }
        let example = doc.example().unwrap_or_default();
        let flags = doc.example_flags().unwrap_or_default();
        let mut step = example.clone();
        step.insert("method".into(), m.name.into());
        let mut pipeline = toml::Table::new();
        pipeline.insert("step".into(), vec![toml::Value::Table(step)].into());
        let ctx = ReadContext {
            base_dir: None,
            columns: Some(&cols),
        };
        let p = Pipeline::from_toml_with(&toml::to_string(&pipeline).unwrap(), "p", ctx)
            .unwrap_or_else(|e| panic!("{} {flags}: {e}", m.name));
        assert!(p.warnings().is_empty(), "{}: {:?}", m.name, p.warnings());
        // The registry entry builds the same method from the bare table.
        let built = m
            .configure(&p.steps[0].params, "", ctx, &[])
            .unwrap_or_else(|e| panic!("{} {flags}: {e:?}", m.name));
        assert_eq!(built.method.method(), m.name);
        let (out, log) = p
            .run(&t, 1)
            .unwrap_or_else(|e| panic!("{} {flags}: {e}", m.name));
        assert_eq!(out.nrows(), log.rows_out);
        assert!(
            log.rows_out < t.nrows() || log.cells_changed > 0 || built.method.synthetic(),
            "{} {flags}: the example changes nothing",
            m.name
        );
        if built.method.synthetic() {
            // new records: none maps to an input row
            assert!(log.kept_rows.is_empty(), "{}", m.name);
            assert_eq!(log.synthetic, Some(1), "{}", m.name);
        } else {
            assert_eq!(log.kept_rows.len(), out.nrows());
            assert_eq!(log.synthetic, None, "{}", m.name);
        }
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
    let kept = ds.take(&log.kept_rows);
    assert_eq!(m.nrows(), 9, "17 kept, then round(8.5) = 9");
    assert_eq!(log.steps[0].rows_removed, vec![17, 18, 19]);
    let pid = kept.truth_column("pid").unwrap();
    for (j, &r) in log.kept_rows.iter().enumerate() {
        assert_eq!(pid.text(j).unwrap(), ["p0", "p1", "p2", "p3", "p4"][r % 5]);
    }
}

#[test]
fn a_masked_table_is_labelled_anew_never_with_the_unmasked_files_path() {
    let a: Vec<Option<i64>> = (0..6).map(|i| Some(i % 3)).collect();
    let ds = Dataset::split_truth(
        "/srv/census/people.csv",
        vec![Column::integer("a", Role::Key, &a)],
    )
    .unwrap();
    let p = Pipeline::from_toml("[[step]]\nmethod = \"subsample\"\nfraction = 0.5\n", "p").unwrap();
    let (m, _) = p.run(&ds.table, 1).unwrap();
    assert_eq!(m.source().as_str(), "people.csv (masked)");
    assert_eq!(ds.table.source().as_str(), "/srv/census/people.csv");
}

#[test]
fn the_old_name_columns_is_accepted_with_a_warning_and_both_names_are_refused() {
    let t = intruder_data::Table::new(
        "t",
        vec![Column::integer(
            "age",
            Role::Key,
            &[Some(23), Some(47), Some(91)],
        )],
    )
    .unwrap();
    for method in ["global-recode", "top-bottom-code", "round"] {
        let extra = match method {
            "global-recode" => "breaks = [0, 50, 100]",
            "top-bottom-code" => "top = 85",
            _ => "base = 10",
        };
        let old = format!("[[step]]\nmethod = \"{method}\"\ncolumns = [\"age\"]\n{extra}\n");
        let new = old.replace("columns", "variables");
        let p_old = Pipeline::from_toml(&old, "old.toml").unwrap();
        let w: Vec<String> = p_old.warnings().iter().map(ToString::to_string).collect();
        assert_eq!(
            w,
            vec![
                "step[1].columns: 'columns' is deprecated: use 'variables' (the old name is accepted until the next release)"
            ],
            "{method}"
        );
        let p_new = Pipeline::from_toml(&new, "new.toml").unwrap();
        assert!(p_new.warnings().is_empty());
        let (a, _) = p_old.run(&t, 1).unwrap();
        let (b, _) = p_new.run(&t, 1).unwrap();
        assert_eq!(a, b, "{method}: the old name configures the same method");
        let both = format!(
            "[[step]]\nmethod = \"{method}\"\ncolumns = [\"age\"]\nvariables = [\"age\"]\n{extra}\n"
        );
        let e = Pipeline::from_toml(&both, "both.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "step[1].variables: given twice: as 'variables' and as its old name 'columns'; keep 'variables'"
            ),
            "{method}: {e}"
        );
    }
    // Methods that always said `variables` have no old name.
    let e = Pipeline::from_toml(
        "[[step]]\nmethod = \"noise\"\ncolumns = [\"age\"]\nnoise = 5\n",
        "n.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("step[1].columns: unknown key"), "{e}");
    assert!(e.contains("step[1].variables: is required"), "{e}");
}

fn columns() -> ColumnSet {
    ColumnSet {
        file: "in.csv".into(),
        columns: vec![
            ("age".into(), Kind::Integer, Role::Key),
            ("sex".into(), Kind::Categorical, Role::Key),
            ("income".into(), Kind::Float, Role::Sensitive),
        ],
        first_not_number: Vec::new(),
        levels: Vec::new(),
    }
}

#[test]
fn columns_are_checked_against_the_data_step_by_step() {
    let cols = columns();
    let ctx = ReadContext {
        base_dir: None,
        columns: Some(&cols),
    };
    let e = Pipeline::from_toml_with(
        "[[step]]\nmethod = \"noise\"\nvariables = [\"incme\", \"sex\"]\nnoise = 5\n\n[[step]]\nmethod = \"pram\"\nvariables = [\"income\"]\n",
        "p.toml",
        ctx,
    )
    .unwrap_err()
    .to_string();
    for x in [
        "p.toml: 3 problems:",
        "step[1].variables: in.csv: no column named 'incme' (did you mean 'income'?); the columns are: age, sex, income",
        "step[1].variables: in.csv: column 'sex' is categorical; expected a numeric (integer or float) column",
        "step[2].variables: in.csv: column 'income' is float; expected a categorical column",
    ] {
        assert!(e.contains(x), "missing «{x}» in:\n{e}");
    }
    // A recoded variable is categorical for the next step; a subsample's weight exists after it.
    let e = Pipeline::from_toml_with(
        "[[step]]\nmethod = \"global-recode\"\nvariables = [\"age\"]\nbreaks = [0, 50, 120]\n\n[[step]]\nmethod = \"noise\"\nvariables = [\"age\"]\nnoise = 5\n",
        "p.toml",
        ctx,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("step[2].variables: in.csv: column 'age' is categorical"),
        "{e}"
    );
    let p = Pipeline::from_toml_with(
        "[[step]]\nmethod = \"subsample\"\nfraction = 0.5\n\n[[step]]\nmethod = \"risk-suppression\"\nkeys = [\"age\", \"sex\"]\nthreshold = 0.5\nweight = \"weight\"\n",
        "p.toml",
        ctx,
    );
    assert!(p.is_ok(), "{:?}", p.err().map(|e| e.to_string()));
}

#[test]
fn keys_default_to_the_key_columns_of_the_schema() {
    let cols = columns();
    let ctx = ReadContext {
        base_dir: None,
        columns: Some(&cols),
    };
    let p = Pipeline::from_toml_with(
        "[[step]]\nmethod = \"local-suppression\"\nk = 2\n",
        "p.toml",
        ctx,
    )
    .unwrap();
    assert_eq!(
        p.steps[0].params["keys"],
        toml::Value::Array(vec!["age".into(), "sex".into()])
    );
    // Without known columns the keys are required.
    let e = Pipeline::from_toml(
        "[[step]]\nmethod = \"local-suppression\"\nk = 2\n",
        "p.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("step[1].keys: is required but missing"), "{e}");
}

#[test]
fn the_log_for_people_numbers_records_from_one() {
    let a: Vec<Option<i64>> = vec![Some(1), Some(1), Some(2), Some(1), Some(3)];
    let t = intruder_data::Table::new("t", vec![Column::integer("a", Role::Key, &a)]).unwrap();
    let p = Pipeline::from_toml(
        "[[step]]\nmethod = \"remove-records\"\nkeys = [\"a\"]\nk = 2\n",
        "p",
    )
    .unwrap();
    let (_, log) = p.run(&t, 1).unwrap();
    assert_eq!(log.kept_rows, vec![0, 1, 3]);
    assert_eq!(log.steps[0].rows_removed, vec![2, 4]);
    let v = log.record_numbers();
    assert_eq!(v["row_numbers"], "1-based");
    assert_eq!(v["kept_rows"], serde_json::json!([1, 2, 4]));
    assert_eq!(v["steps"][0]["rows_removed"], serde_json::json!([3, 5]));
    assert_eq!(v["rows_in"], 5);
    assert_eq!(v["rows_out"], 3);
    let p = Pipeline::from_toml(
        "[[step]]\nmethod = \"top-bottom-code\"\nvariables = [\"a\"]\ntop = 2\n",
        "p",
    )
    .unwrap();
    let (_, log) = p.run(&t, 1).unwrap();
    assert_eq!(log.steps[0].columns[0].rows, vec![4]);
    assert_eq!(
        log.record_numbers()["steps"][0]["columns"][0]["rows"],
        serde_json::json!([5])
    );
}
