//! SPSS, Stata and SAS files as statistical offices keep microdata, read by content (issue 38):
//! value labels are categories, user-missing values are missing. The files were written by R's
//! haven 2.5 (ReadStat) with `tests/fixtures/statfiles/make.R`, which prints what haven reads
//! back; the expected values below are those.

use std::path::{Path, PathBuf};

#[cfg(feature = "statfiles")]
use intruder_data::Kind;
use intruder_data::{Input, load};

fn fixture(name: &str) -> PathBuf {
    Path::new("tests/fixtures/statfiles").join(name)
}

/// The fixture copied under a name without its extension: the format is told by content.
#[cfg(feature = "statfiles")]
fn renamed(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(format!("data-{}", name.replace('.', "-")));
    std::fs::copy(fixture(name), &p).unwrap();
    p
}

#[cfg(not(feature = "statfiles"))]
#[test]
fn without_the_feature_the_error_says_how_to_build() {
    for (name, what) in [
        ("survey.sav", "SPSS"),
        ("survey.dta", "Stata"),
        ("survey.sas7bdat", "SAS"),
    ] {
        let e = load(&fixture(name), &Input::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(name) && e.contains(what) && e.contains("--features statfiles"),
            "{e}"
        );
    }
}

#[cfg(feature = "statfiles")]
mod with_statfiles {
    use super::*;
    use intruder_data::{Dataset, Role};

    fn texts(ds: &Dataset, column: &str) -> Vec<Option<String>> {
        let c = ds
            .table
            .column(column)
            .map(|c| c.clone())
            .or_else(|_| ds.truth_column(column).cloned().ok_or(()))
            .unwrap();
        (0..c.len())
            .map(|i| c.text(i).map(|t| t.into_owned()))
            .collect()
    }

    fn s(v: &[Option<&str>]) -> Vec<Option<String>> {
        v.iter().map(|x| x.map(str::to_string)).collect()
    }

    const REGION: [Option<&str>; 12] = [
        Some("North"),
        Some("South"),
        Some("East"),
        Some("North"),
        Some("South"),
        None, // SPSS user-missing 9, Stata .a
        Some("4"),
        Some("North"),
        Some("East"),
        Some("South"),
        Some("North"),
        None,
    ];

    #[test]
    fn spss_value_labels_are_categories_and_user_missing_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let ds = load(&renamed(dir.path(), "survey.sav"), &Input::default()).unwrap();
        let region = ds.table.column("region").unwrap();
        assert_eq!(region.kind(), Kind::Categorical);
        assert_eq!(region.levels().unwrap(), ["North", "South", "East", "4"]);
        assert_eq!(texts(&ds, "region"), s(&REGION));
        assert_eq!(
            ds.table.column("sex").unwrap().levels().unwrap(),
            ["Male", "Female"]
        );
        // Labels on the user-missing codes 98, 99 of age alone: age stays a number, and the
        // codes (a missing range) are missing.
        let age = ds.table.column("age").unwrap();
        assert_eq!(age.kind(), Kind::Integer);
        assert_eq!(
            texts(&ds, "age"),
            s(&[
                Some("34"),
                Some("51"),
                None,
                Some("27"),
                None,
                Some("45"),
                Some("62"),
                Some("33"),
                None,
                Some("40"),
                Some("19"),
                Some("58")
            ])
        );
        assert_eq!(ds.table.column("income").unwrap().kind(), Kind::Float);
        assert_eq!(ds.table.column("income").unwrap().as_f64(2), Some(1800.25));
        assert_eq!(texts(&ds, "pid")[11].as_deref(), Some("p12"));
    }

    #[test]
    fn stata_value_labels_are_categories_and_extended_missing_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let ds = load(&renamed(dir.path(), "survey.dta"), &Input::default()).unwrap();
        let region = ds.table.column("region").unwrap();
        assert_eq!(region.kind(), Kind::Categorical);
        // The label of .a ("Don't know") labels a missing cell, not a category.
        assert_eq!(region.levels().unwrap(), ["North", "South", "East", "4"]);
        assert_eq!(texts(&ds, "region"), s(&REGION));
        assert_eq!(ds.table.column("age").unwrap().kind(), Kind::Integer);
        assert_eq!(ds.table.column("age").unwrap().missing_count(), 3);
        assert_eq!(ds.table.column("income").unwrap().as_f64(4), Some(2950.75));
    }

    #[test]
    fn sas_codes_stay_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let ds = load(&renamed(dir.path(), "survey.sas7bdat"), &Input::default()).unwrap();
        assert_eq!(ds.table.nrows(), 12);
        let region = ds.table.column("region").unwrap();
        assert_eq!(region.kind(), Kind::Integer);
        assert_eq!(texts(&ds, "region")[5].as_deref(), Some("9"));
        assert!(region.is_missing(11));
        assert_eq!(ds.table.column("income").unwrap().as_f64(0), Some(2500.5));
        assert_eq!(texts(&ds, "pid")[0].as_deref(), Some("p01"));
    }

    #[test]
    fn a_schema_and_roles_apply_as_for_every_format() {
        let dir = tempfile::tempdir().unwrap();
        let schema = dir.path().join("s.toml");
        std::fs::write(&schema, "[columns.region]\ntype = \"integer\"\n").unwrap();
        for name in ["survey.sav", "survey.dta"] {
            let input = Input {
                schema: Some(schema.clone()),
                ..Input::default()
            }
            .with_role(&["pid"], Role::Truth)
            .with_role(&["sex"], Role::Key);
            let ds = load(&fixture(name), &input).unwrap();
            // Declared integer: the codes, the user-missing one still missing.
            let region = ds.table.column("region").unwrap();
            assert_eq!(region.kind(), Kind::Integer, "{name}");
            assert_eq!(region.text(0).unwrap(), "1");
            assert!(region.is_missing(5));
            assert!(ds.truth_column("pid").is_some());
            assert_eq!(ds.table.column("sex").unwrap().role(), Role::Key);
        }
    }

    #[test]
    fn a_damaged_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["survey.sav", "survey.dta", "survey.sas7bdat"] {
            let bytes = std::fs::read(fixture(name)).unwrap();
            let p = dir.path().join(format!("cut-{name}"));
            std::fs::write(&p, &bytes[..bytes.len().min(200)]).unwrap();
            let e = load(&p, &Input::default()).unwrap_err().to_string();
            assert!(
                e.contains(&format!("cut-{name}")) && e.contains("not a readable"),
                "{e}"
            );
        }
    }
}
