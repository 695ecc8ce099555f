//! A method is one file and one registry line (issue 33). With the feature `fixture-methods`,
//! each family's registry holds one method more — `src/methods/fixture_*.rs` of the risk,
//! attack, defence and utility crates, each declared by one `#[cfg(feature = …)] mod …,` line
//! of its family's list and by nothing else. This test checks that every surface picks them up
//! with no edit of its own: the command line's `--list` and `--help`, an experiment file run by
//! the runner (whose run ids follow the new method's parameters), and the facade's listing,
//! which Python's `intruder.methods()` returns as it is (and the web page's forms read,
//! `registries_json`); and that each fixture computes what it says, on hand-counted data.
//!
//! Run it with `cargo test -p intruder-cli --features fixture-methods --test fixture_methods`
//! (`.ci/run` does). docs/adding-a-method.md walks through the four files.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Per fixture: its family in the facade's listing, the subcommand, the flag that picks it.
const FIXTURES: [(&str, &str, &str, &str); 4] = [
    ("risk", "risk", "--measure", "fixture-key-space"),
    ("attack", "attack", "--method", "fixture-agreement"),
    ("defence", "mask", "--method", "fixture-shift"),
    ("utility", "utility", "--measure", "fixture-changed-cells"),
];

fn intruder(args: &[&str], cwd: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_intruder"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("run intruder");
    assert!(
        out.status.success(),
        "intruder {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

#[test]
fn list_shows_every_fixture_with_its_parameters() {
    for (_, command, _, name) in FIXTURES {
        let list = intruder(&[command, "--list"], root());
        assert!(
            list.contains(name),
            "intruder {command} --list lacks {name}:\n{list}"
        );
    }
    // The fixtures' own parameters are listed with their docs.
    let attacks = intruder(&["attack", "--list"], root());
    assert!(attacks.contains("min_agree"), "{attacks}");
    assert!(
        attacks.contains("fewest keys a released record must agree on"),
        "{attacks}"
    );
    let defences = intruder(&["mask", "--list"], root());
    assert!(
        defences.contains("what is added to every observed value"),
        "{defences}"
    );
}

#[test]
fn help_names_every_fixture_at_the_flag_that_picks_it() {
    for (_, command, flag, name) in FIXTURES {
        let help = intruder(&[command, "--help"], root());
        // The flag's paragraph: from its line to the next flag's.
        let start = help
            .find(&format!("{flag} <"))
            .unwrap_or_else(|| panic!("intruder {command} --help lacks {flag}:\n{help}"));
        let para = &help[start..];
        let end = para[2..].find("\n  -").map_or(para.len(), |e| e + 2);
        assert!(
            para[..end].contains(name),
            "intruder {command} --help: {flag} does not name {name}:\n{}",
            &para[..end]
        );
    }
}

#[test]
fn the_facade_listing_python_returns_holds_every_fixture() {
    let all = intruder::methods::registries_json();
    for (family, _, _, name) in FIXTURES {
        // What `intruder.methods(family)` returns: this JSON, as text.
        let listed = intruder::methods::listing(family).unwrap();
        let names: Vec<&str> = listed
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        assert!(names.contains(&name), "{family}: {names:?}");
        // The web page's forms.
        assert!(
            all[family]
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["name"] == name),
            "registries_json()[{family}] lacks {name}"
        );
    }
    let listed = intruder::methods::listing("attack").unwrap();
    let fixture = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "fixture-agreement")
        .unwrap();
    let min_agree = fixture["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "min_agree")
        .unwrap();
    assert_eq!(min_agree["kind"], "integer");
    assert_eq!(min_agree["default"], "default 1");
    assert_eq!(min_agree["range"], "≥ 1");
}

/// The workplace survey (15 records): Gender has 2 values, AgeGrp 3, EthnicGrp 2, so the key
/// space is 2 · 3 · 2 = 12 combinations, 15 / 12 = 1.25 records each.
#[test]
fn key_space_of_the_workplace_survey_by_hand() {
    let out = intruder(
        &[
            "risk",
            "--data",
            "data/examples/workplace-survey.csv",
            "--measure",
            "fixture-key-space",
            "--keys",
            "Gender,AgeGrp,EthnicGrp",
            // the fixture's own parameter, a flag of `intruder risk` with no edit of the CLI
            "--per-key",
            "--format",
            "json",
        ],
        root(),
    );
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["n"], 15);
    assert_eq!(json["key_space"], 12.0);
    assert_eq!(json["records_per_combination"], 1.25);
    assert_eq!(
        json["distinct_values"],
        serde_json::json!([
            {"key": "Gender", "distinct": 2},
            {"key": "AgeGrp", "distinct": 3},
            {"key": "EthnicGrp", "distinct": 2},
        ])
    );
}

/// Six people, each unique on (age, sex, area), so that no figure depends on how ties are
/// broken. The shift moves every age by 5.
const PEOPLE: &str =
    "pid,age,sex,area\np1,30,m,1\np2,30,f,1\np3,40,m,2\np4,40,f,2\np5,50,f,1\np6,60,m,2\n";

const EXPERIMENT: &str = r#"name = "fixtures"
seed = 7
replicates = 1

[data]
released = "people.csv"
truth = "pid"

[scenario]
keys = ["age", "sex", "area"]
known = 1.0

[[defence]]
name = "none"

[[defence]]
name = "shift"
[[defence.step]]
method = "fixture-shift"
variables = ["age"]
by = 5

[[attack]]
method = "exact"

[[attack]]
method = "fixture-agreement"
min_agree = 3

[[risk]]
name = "space"
measure = "fixture-key-space"

[utility]
variables = ["age", "sex"]
measures = ["fixture-changed-cells"]

[report]
metrics = ["risk.space.key_space", "utility.changed_share"]
"#;

/// `results.csv` as setting → metric → value.
fn results(dir: &Path) -> BTreeMap<String, BTreeMap<String, f64>> {
    let csv = std::fs::read_to_string(dir.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "run,setting,defence,params,replicate,metric,value"
    );
    let mut out: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    for l in lines {
        let cells: Vec<&str> = l.split(',').collect();
        let value = cells[6].parse().unwrap_or(f64::NAN);
        out.entry(cells[1].to_string())
            .or_default()
            .insert(cells[5].to_string(), value);
    }
    out
}

#[test]
fn an_experiment_file_runs_every_fixture() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("people.csv"), PEOPLE).unwrap();
    std::fs::write(tmp.path().join("fixtures.toml"), EXPERIMENT).unwrap();
    intruder(&["run", "fixtures.toml", "--out", "out"], tmp.path());
    let r = results(&tmp.path().join("out"));
    let (none, shift) = (&r["none"], &r["shift"]);
    // The defence: 6 of the 12 cells of (age, sex) change, none without masking.
    assert_eq!(shift["utility.changed_cells"], 6.0);
    assert_eq!(shift["utility.changed_share"], 0.5);
    assert_eq!(none["utility.changed_share"], 0.0);
    // The risk measure on the released file: ages {30, 40, 50, 60} (shifted or not) × 2 sexes
    // × 2 areas = 16 combinations for 6 records.
    for s in [none, shift] {
        assert_eq!(s["risk.space.key_space"], 16.0);
        assert_eq!(s["risk.space.records_per_combination"], 6.0 / 16.0);
    }
    // The report names the new measures' figures as their entries declare them, with their
    // references, in the tables and the glossary.
    let html = std::fs::read_to_string(tmp.path().join("out/report.html")).unwrap();
    for declared in [
        "key space (combinations of observed values) (risk space)",
        "<td>key space (combinations of observed values)</td>",
        "<td>Dalenius (1986)</td>",
        "<td>share of cells changed</td>",
        "<td>Hundepool et al. (2012)</td>",
    ] {
        assert!(html.contains(declared), "{declared} not in the report");
    }
    // The attack: agreeing on all three keys is exact matching without missing values, so the
    // evaluator scores it as the exact attack, figure by figure; after the shift no age agrees.
    for s in [none, shift] {
        let mut compared = 0;
        for (metric, value) in s {
            if let Some(figure) = metric.strip_prefix("exact.")
                && let Some(fixture) = s.get(&format!("fixture-agreement.{figure}"))
            {
                assert!(
                    value == fixture || (value.is_nan() && fixture.is_nan()),
                    "{metric}: exact {value}, fixture-agreement {fixture}"
                );
                compared += 1;
            }
        }
        assert!(compared >= 5, "{s:?}");
    }
    assert!(none["fixture-agreement.correct_match_rate"] > 0.0);
    assert_eq!(shift["fixture-agreement.correct_match_rate"], 0.0);

    // The new attack's own parameter reaches its run ids: on two keys (sex, area) p1 is alone
    // and found after the shift, so a run stored for min_agree = 3 must not be reused.
    let two = EXPERIMENT.replace("min_agree = 3", "min_agree = 2");
    std::fs::write(tmp.path().join("fixtures.toml"), two).unwrap();
    intruder(&["run", "fixtures.toml", "--out", "out"], tmp.path());
    let r = results(&tmp.path().join("out"));
    assert!(
        r["shift"]["fixture-agreement.correct_match_rate"] > 0.0,
        "{:?}",
        r["shift"]
    );
}
