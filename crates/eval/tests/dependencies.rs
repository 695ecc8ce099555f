//! The ground truth cannot reach an attack, a defence, a risk or a utility measure: their crates
//! do not depend on this one (where `Truth`, `Labelled` and the evaluator live), checked over
//! `cargo metadata`. Dev-dependencies count too: a test of those crates that needs the truth
//! belongs here.

use std::process::Command;

const BLIND: &[&str] = &[
    "intruder-data",
    "intruder-attack",
    "intruder-defence",
    "intruder-risk",
    "intruder-utility",
    "intruder-questions",
];

#[test]
fn attack_defence_risk_and_utility_crates_cannot_see_the_truth() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata is JSON");
    let packages = meta["packages"].as_array().expect("a package list");
    let mut checked = 0;
    for p in packages {
        let name = p["name"].as_str().unwrap_or_default();
        if !BLIND.contains(&name) {
            continue;
        }
        checked += 1;
        for d in p["dependencies"].as_array().expect("a dependency list") {
            assert_ne!(
                d["name"].as_str(),
                Some("intruder-eval"),
                "{name} depends on intruder-eval ({} dependency): the truth would reach it",
                d["kind"].as_str().unwrap_or("normal")
            );
        }
    }
    assert_eq!(
        checked,
        BLIND.len(),
        "every blind crate is in the workspace"
    );
    // The negative control: a crate that does depend on it is seen.
    let runner = packages
        .iter()
        .find(|p| p["name"] == "intruder-runner")
        .expect("the runner is in the workspace");
    assert!(
        runner["dependencies"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["name"] == "intruder-eval"),
        "the runner scores attacks, so it depends on intruder-eval"
    );
}
