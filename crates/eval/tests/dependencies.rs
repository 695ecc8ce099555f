//! The ground truth cannot reach an attack, a defence, a risk, utility or question measure. Their
//! crates depend on `intruder-table` (the table model and parameters, which read no data file)
//! and, through no path of dependencies, on `intruder-data` (which reads files and sets the truth
//! apart in `Dataset::truth`), on this crate (where `Truth`, `Labelled` and the evaluator live)
//! or on a crate above it (the facade `intruder`, the runner, the surfaces). Checked over the
//! whole dependency tree `cargo tree` resolves (transitively; `cargo tree -i intruder-data -p
//! CRATE -e normal,build` shows a path found), and by compiling the attack crate with an attack
//! that tries to read the truth (`crates/attack/src/truth_peek.rs`), which must fail.

use std::process::Command;

/// The crates of methods, which must not see the truth; and the table model under them.
const BLIND: &[&str] = &[
    "intruder-table",
    "intruder-attack",
    "intruder-defence",
    "intruder-risk",
    "intruder-utility",
    "intruder-questions",
];

/// Crates that hold or reach the truth: none may be reached from a blind crate, with its tests
/// (dev-dependencies) or without them.
const SEEING: &[&str] = &[
    "intruder-eval",
    "intruder",
    "intruder-runner",
    "intruder-cli",
    "intruder-python",
];

/// The crate that reads data files and holds the truth: a blind crate's library may not reach
/// it. Its tests may, to read their fixtures (dev-dependencies, never part of the library).
const READER: &str = "intruder-data";

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

/// Every package `name` reaches (itself included) over the edge kinds `edges`, by name.
fn reached(name: &str, edges: &str) -> Vec<String> {
    let out = cargo()
        .args(["tree", "--offline", "-p", name, "-e", edges])
        .args(["--prefix", "none", "--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree -p {name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn method_crates_cannot_reach_the_truth() {
    let mut found = Vec::new();
    for blind in BLIND {
        let library = reached(blind, "normal,build");
        assert!(
            library.iter().any(|n| n == blind),
            "{blind} is in its own tree"
        );
        if library.iter().any(|n| n == READER) {
            found.push(format!("{blind}'s library reaches {READER}"));
        }
        let with_tests = reached(blind, "normal,build,dev");
        for seeing in SEEING {
            if with_tests.iter().any(|n| n == seeing) {
                found.push(format!("{blind} reaches {seeing}"));
            }
        }
    }
    assert!(found.is_empty(), "the truth is reachable: {found:?}");
}

#[test]
fn the_check_sees_direct_and_transitive_dependencies() {
    // The runner scores attacks: it depends on this crate directly.
    let runner = reached("intruder-runner", "normal,build");
    assert!(runner.iter().any(|n| n == "intruder-eval"));
    // The CLI reaches the evaluator through the facade, and the reader through several crates.
    let cli = reached("intruder-cli", "normal,build");
    assert!(cli.iter().any(|n| n == "intruder") && cli.iter().any(|n| n == "intruder-eval"));
    // The attack crate does not name csv-core; it reaches it through intruder-table and csv.
    assert!(
        reached("intruder-attack", "normal,build")
            .iter()
            .any(|n| n == "csv-core")
    );
    // Its tests read fixtures through the reader: seen over dev edges only.
    assert!(
        reached("intruder-attack", "normal,build,dev")
            .iter()
            .any(|n| n == READER)
    );
}

/// Checks the attack crate (library only) with `features`; the compiler's messages on failure.
fn check_attack(features: &str) -> Result<(), String> {
    // A target directory of its own: the one this test runs from is locked by `cargo test`.
    // (This binary is TARGET/PROFILE/deps/NAME.)
    let exe = std::env::current_exe().expect("the test binary's path");
    let target = exe
        .ancestors()
        .nth(3)
        .expect("a target directory")
        .join("truth-peek");
    let out = cargo()
        .args([
            "check",
            "--offline",
            "--quiet",
            "--lib",
            "-p",
            "intruder-attack",
        ])
        .args(["--features", features, "--message-format", "short"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo check runs");
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn an_attack_that_reads_the_truth_does_not_compile() {
    // The crate compiles as it is (so the failure below is the peek's and nothing else's)...
    check_attack("").expect("intruder-attack compiles");
    // ...and not with an attack that re-reads its released table's file for the truth.
    let errors = check_attack("truth-peek").expect_err("the truth peek must not compile");
    let lines: Vec<&str> = errors.lines().filter(|l| l.contains("error")).collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("truth_peek.rs") && l.contains("intruder_data")),
        "{errors}"
    );
    assert!(
        lines
            .iter()
            .filter(|l| l.contains(".rs:"))
            .all(|l| l.contains("truth_peek.rs")),
        "errors outside the peek: {errors}"
    );
}
