//! The ground truth cannot reach an attack, a defence, a risk or a utility measure: no path of
//! dependencies leads from their crates to this one (where `Truth`, `Labelled` and the
//! evaluator live), nor to a crate above it (the facade `intruder`, the runner, the surfaces).
//! Checked over the whole dependency tree `cargo tree` resolves (normal, build and dev
//! dependencies, transitively; `cargo tree -i intruder-eval -p CRATE` shows a path found).

use std::process::Command;

const BLIND: &[&str] = &[
    "intruder-data",
    "intruder-attack",
    "intruder-defence",
    "intruder-risk",
    "intruder-utility",
    "intruder-questions",
];

/// Crates that hold or reach the truth: none may be reached from a blind crate.
const SEEING: &[&str] = &[
    "intruder-eval",
    "intruder",
    "intruder-runner",
    "intruder-cli",
    "intruder-python",
];

/// Every package `name` reaches (itself included), by name.
fn reached(name: &str) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["tree", "--offline", "-p", name, "-e", "normal,build,dev"])
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
fn attack_defence_risk_and_utility_crates_cannot_reach_the_truth() {
    let mut found = Vec::new();
    for blind in BLIND {
        let reached = reached(blind);
        assert!(
            reached.iter().any(|n| n == blind),
            "{blind} is in its own tree"
        );
        for seeing in SEEING {
            if reached.iter().any(|n| n == seeing) {
                found.push(format!("{blind} reaches {seeing}"));
            }
        }
    }
    assert!(found.is_empty(), "the truth is reachable: {found:?}");
}

#[test]
fn the_check_sees_direct_and_transitive_dependencies() {
    // The runner scores attacks: it depends on this crate directly.
    assert!(
        reached("intruder-runner")
            .iter()
            .any(|n| n == "intruder-eval")
    );
    // The CLI reaches it directly and through the facade.
    let cli = reached("intruder-cli");
    assert!(cli.iter().any(|n| n == "intruder") && cli.iter().any(|n| n == "intruder-eval"));
    // The attack crate does not name csv-core; it reaches it through intruder-data and csv.
    assert!(reached("intruder-attack").iter().any(|n| n == "csv-core"));
}
