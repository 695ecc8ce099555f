//! Every run and test the paper names exists, and every explanation names one.
//!
//! `paper/paper.md`, `paper/mitra.md` and `paper/README.md` cite a run as `` run `E` ``,
//! `` run `E/SETTING` `` or `` run `E:NAME` `` (the words "run", "runs", "tested by" or "test"
//! right before the backticks; further citations may follow in a list, `` `a`, `b` and `c` ``):
//! E an experiment file `experiments/E.toml`, SETTING one of its defence settings (a defence
//! name, or a grid setting's label such as `income rounded (base=50)`), NAME one of its attacks
//! or risk measures. A test is cited as `` test `path/file.rs::function` ``. Each citation
//! must resolve. And each `[[published]]` note of every experiment file, and each paragraph of
//! mitra.md, that gives a cause ("explain", "because", "cause", "due to") must cite a run or a
//! test, unless it says the difference is not explained or not tested.

use std::path::{Path, PathBuf};

use intruder_runner::{Experiment, expand_defence};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The citations of `text`: the backticked spans right after a citing word, and the spans
/// that continue such a list.
fn citations(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut consumed = 0usize;
    let mut list_end: Option<usize> = None;
    while let Some(open) = rest.find('`') {
        let start = consumed + open;
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        let span = &text[start + 1..start + 1 + len];
        let end = start + len + 2;
        let before: String = text[..start]
            .chars()
            .rev()
            .take(12)
            .collect::<Vec<char>>()
            .into_iter()
            .rev()
            .collect::<String>()
            .to_lowercase();
        let cited = ["run ", "runs ", "tested by ", "test ", "runs: ", "run: "]
            .iter()
            .any(|w| before.ends_with(w))
            || list_end.is_some_and(|e| {
                matches!(
                    &text[e..start],
                    ", " | " and " | ", and " | " or " | ", or " | "; "
                )
            });
        if cited {
            out.push(span.to_string());
            list_end = Some(end);
        } else {
            list_end = None;
        }
        consumed = end;
        rest = &text[end..];
    }
    out
}

/// Why `citation` does not resolve, if it does not.
fn unresolved(citation: &str) -> Option<String> {
    if let Some((path, name)) = citation.split_once("::") {
        let file = root().join(path);
        return match std::fs::read_to_string(&file) {
            Err(_) => Some(format!("`{citation}`: no file {path}")),
            Ok(t) if t.contains(&format!("fn {name}(")) => None,
            Ok(_) => Some(format!("`{citation}`: {path} has no fn {name}")),
        };
    }
    let (run, name) = match citation.split_once(':') {
        Some((r, n)) => (r, Some(n)),
        None => (citation, None),
    };
    let (exp_name, setting) = match run.split_once('/') {
        Some((e, s)) => (e, Some(s)),
        None => (run, None),
    };
    let file = root().join(format!("experiments/{exp_name}.toml"));
    if !file.exists() {
        return Some(format!(
            "`{citation}`: no experiment file experiments/{exp_name}.toml"
        ));
    }
    let exp = match Experiment::from_file(&file) {
        Ok(e) => e,
        Err(e) => return Some(format!("`{citation}`: {exp_name}.toml does not load: {e}")),
    };
    if let Some(s) = setting {
        let mut labels: Vec<String> = Vec::new();
        for d in &exp.defences {
            labels.push(d.name.clone());
            labels.extend(
                expand_defence(d)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|x| x.label),
            );
        }
        if !labels.iter().any(|l| l == s) {
            return Some(format!(
                "`{citation}`: {exp_name} has no setting '{s}' (it has: {})",
                labels.join(", ")
            ));
        }
    }
    if let Some(n) = name
        && !exp.attacks.iter().any(|a| a.name == n)
        && !exp.risk.iter().any(|r| r.name == n)
    {
        return Some(format!(
            "`{citation}`: {exp_name} has no attack or risk measure '{n}'"
        ));
    }
    None
}

/// Whether `text` gives a cause without citing a run or test and without saying it is not
/// explained or not tested.
fn uncited_cause(text: &str) -> bool {
    let l = text.to_lowercase();
    let causal = ["explain", "because", "cause", "due to"]
        .iter()
        .any(|w| l.contains(w));
    let open = [
        "not explain",
        "unexplained",
        "untested",
        "not tested",
        "no run",
        "not a cause",
        "is not the cause",
    ]
    .iter()
    .any(|w| l.contains(w));
    causal && !open && citations(text).is_empty()
}

#[test]
fn citations_are_found_in_lists() {
    let t = "as run `a/b`, `c:d` and `e` show; not `f`; tested by `x.rs::y`.";
    assert_eq!(citations(t), vec!["a/b", "c:d", "e", "x.rs::y"]);
    assert!(uncited_cause("the scaling explains the gap"));
    assert!(!uncited_cause(
        "the scaling explains the gap (run `bender-iab`)"
    ));
    assert!(!uncited_cause("not explained by the runs"));
}

#[test]
fn every_named_run_and_test_exists() {
    let mut problems = Vec::new();
    let mut count = 0;
    for doc in ["paper/paper.md", "paper/mitra.md", "paper/README.md"] {
        let text = std::fs::read_to_string(root().join(doc)).expect(doc);
        for c in citations(&text) {
            count += 1;
            if let Some(p) = unresolved(&c) {
                problems.push(format!("{doc}: {p}"));
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(count > 30, "only {count} citations found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_explanation_names_a_run_or_a_test() {
    let mut problems = Vec::new();
    let dir = root().join("experiments");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    for f in files {
        let exp = Experiment::from_file(&f).expect("experiment");
        for p in &exp.published {
            if uncited_cause(&p.note) {
                problems.push(format!(
                    "{}: {} {}: {}",
                    exp.name, p.setting, p.metric, p.note
                ));
            }
        }
    }
    let mitra = std::fs::read_to_string(root().join("paper/mitra.md")).unwrap();
    for para in mitra.split("\n\n") {
        if !para.starts_with('|') && uncited_cause(para) {
            problems.push(format!("mitra.md: {para}"));
        }
    }
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}
