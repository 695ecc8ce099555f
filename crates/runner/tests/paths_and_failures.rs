//! Results depend on the data's content and the configuration, never on how the data's path is
//! written; and an attack or measure that fails in one setting is recorded with the setting and
//! the reason while every other figure is kept and reported (issue 38).

use std::collections::BTreeMap;
use std::path::Path;

use intruder_runner::{Experiment, RunOptions, run_experiment};

/// 90 people: keys age and sex, income, a weight below 1 for some (a warning naming the file),
/// and x, y for a regression.
fn csv() -> String {
    let mut s = String::from("pid,age,sex,w,x,y\n");
    for i in 0..90u32 {
        let x = (i * 7) % 23;
        s.push_str(&format!(
            "p{i},{},{},{},{x},{}\n",
            20 + (i * 7) % 9,
            if i % 3 == 0 { "f" } else { "m" },
            if i % 10 == 0 { 0.5 } else { 4.0 },
            3 * x + (i * 13) % 5
        ));
    }
    s
}

fn experiment(released: &str) -> String {
    format!(
        r#"
name = "paths"
seed = 11
replicates = 2
[data]
released = "{released}"
truth = "pid"
[scenario]
keys = ["age", "sex"]
known = 0.5
[[defence]]
name = "none"
[[defence]]
name = "flatten x"
[[defence.step]]
method = "top-bottom-code"
variables = ["x"]
top = 0
[[attack]]
method = "exact"
[[risk]]
measure = "frequency"
weight = "w"
[utility]
measures = ["moments", "ci-overlap"]
variables = ["x", "y"]
model = "y ~ x"
"#
    )
}

/// Every file under `dir` with its bytes (paths relative to `dir`).
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.insert(rel, std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

fn run(exp_path: &Path, out: &Path) -> intruder_runner::Done {
    let exp = Experiment::from_file(exp_path).unwrap();
    run_experiment(
        &exp,
        &RunOptions {
            out: Some(out.to_path_buf()),
            threads: Some(2),
            ..Default::default()
        },
    )
    .unwrap()
}

#[test]
fn absolute_relative_and_symlinked_data_paths_give_byte_identical_results() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::create_dir_all(root.join("exp")).unwrap();
    std::fs::write(root.join("data/people.csv"), csv()).unwrap();
    std::os::unix::fs::symlink("../data", root.join("exp/link")).unwrap();
    let abs = root.join("data/people.csv").canonicalize().unwrap();
    let written = [
        ("relative", "../data/people.csv".to_string()),
        ("absolute", abs.display().to_string()),
        ("symlinked", "link/people.csv".to_string()),
        ("dotted", "./../exp/../data/./people.csv".to_string()),
    ];
    let mut outputs = Vec::new();
    for (name, path) in &written {
        let e = root.join(format!("exp/{name}.toml"));
        std::fs::write(&e, experiment(path)).unwrap();
        let out = root.join(format!("out-{name}"));
        let done = run(&e, &out);
        assert_eq!(done.executed, 4, "{name}");
        outputs.push((name, files(&out)));
    }
    let (first, reference) = &outputs[0];
    assert!(reference.contains_key("results.json") && reference.contains_key("report.html"));
    assert_eq!(
        reference.keys().filter(|k| k.starts_with("runs/")).count(),
        4,
        "stored runs"
    );
    for (name, files) in &outputs[1..] {
        assert_eq!(
            files.keys().collect::<Vec<_>>(),
            reference.keys().collect::<Vec<_>>(),
            "{name} vs {first}: the same files (run ids)"
        );
        for (f, bytes) in files {
            assert!(
                bytes == &reference[f],
                "{name} vs {first}: {f} differs:\n{}",
                String::from_utf8_lossy(bytes)
            );
        }
    }
    // The warning about weights below 1 names the file as the experiment does, not its path.
    let summary = String::from_utf8_lossy(&reference["results.json"]).into_owned();
    assert!(
        summary.contains("\"released\": \"people.csv\""),
        "{summary}"
    );
}

#[test]
fn a_measure_that_fails_in_one_setting_is_recorded_and_the_rest_kept() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("people.csv"), csv()).unwrap();
    let e = tmp.path().join("e.toml");
    std::fs::write(&e, experiment("people.csv")).unwrap();
    let out = tmp.path().join("out");
    let done = run(&e, &out);
    // Top-coding x at 0 leaves it constant: y ~ x cannot be fitted on the masked file of
    // "flatten x" (both replicates); every other figure of both settings is there.
    assert!(done.failed.failed.is_empty());
    let flagged: Vec<&String> = done
        .warnings
        .iter()
        .filter(|w| w.contains("utility measure 'ci-overlap' failed"))
        .collect();
    assert_eq!(flagged.len(), 2, "{:#?}", done.warnings);
    for w in &flagged {
        assert!(
            w.contains("setting 'flatten x'")
                && w.contains("singular")
                && w.contains("'x' is a linear combination"),
            "{w}"
        );
    }
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let has = |setting: &str, metric: &str| {
        csv.lines()
            .any(|l| l.contains(&format!(",{setting},")) && l.contains(&format!(",{metric},")))
    };
    assert!(has("none", "utility.ci_overlap_mean"));
    assert!(!has("flatten x", "utility.ci_overlap_mean"));
    for setting in ["none", "flatten x"] {
        assert!(
            has(setting, "utility.mean_rel_diff_max"),
            "{setting}: moments kept"
        );
        assert!(
            has(setting, "exact.twins"),
            "{setting}: the attack's figures are kept"
        );
        assert!(has(setting, "risk.listwise.sample_uniques"), "{setting}");
    }
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.contains("## Failures") && md.contains("utility measure 'ci-overlap'"),
        "{md}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("<h2>Failures</h2>"));
}
