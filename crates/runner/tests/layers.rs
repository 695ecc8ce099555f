//! No two modules of a crate import each other, directly or through others: for every crate of
//! the workspace, the graph of its top-level modules (an edge for each `crate::m` path, or
//! `super::m` in a top-level file, outside comments) has no cycle. A submodule using its parent
//! (`super::`) is not an edge: it is part of the same top-level module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The identifiers following each occurrence of `prefix` in `code`.
fn after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().next_back();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let id: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !id.is_empty() {
            out.push(id);
        }
    }
    out
}

/// Top-level module → the top-level modules it names.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(src).unwrap().with_extension("");
        let parts: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let top = parts[0].clone();
        if top == "lib" || top == "main" || top == "bin" {
            continue;
        }
        // Depth of the module the file is (`a.rs`, `a/mod.rs`: 1; `a/b.rs`: 2).
        let depth = parts.len() - usize::from(parts.last().is_some_and(|p| p == "mod"));
        let code: String = std::fs::read_to_string(&f)
            .unwrap()
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let mut refs: BTreeSet<String> = after(&code, "crate::").into_iter().collect();
        // From a module at depth d, d `super::`s reach the crate root.
        refs.extend(after(&code, &"super::".repeat(depth)));
        refs.remove(&top);
        g.entry(top).or_default().extend(refs);
    }
    let names: BTreeSet<String> = g.keys().cloned().collect();
    for v in g.values_mut() {
        v.retain(|m| names.contains(m));
    }
    g
}

/// A cycle through `start`, if any (as the path of modules).
fn cycle(g: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_string(), vec![start.to_string()])];
    let mut seen = BTreeSet::new();
    while let Some((m, path)) = stack.pop() {
        for n in g.get(&m).into_iter().flatten() {
            if n == start {
                let mut p = path.clone();
                p.push(n.clone());
                return Some(p);
            }
            if seen.insert(n.clone()) {
                let mut p = path.clone();
                p.push(n.clone());
                stack.push((n.clone(), p));
            }
        }
    }
    None
}

#[test]
fn no_module_cycles_in_any_crate() {
    let root = workspace();
    let mut srcs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    srcs.push(root.join("data-synth/src"));
    srcs.sort();
    let mut cycles = Vec::new();
    for src in &srcs {
        let g = graph(src);
        for m in g.keys() {
            if let Some(c) = cycle(&g, m) {
                cycles.push(format!("{}: {}", src.display(), c.join(" → ")));
                break;
            }
        }
    }
    assert!(cycles.is_empty(), "module cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(cycle(&g, "a").unwrap(), ["a", "b", "c", "a"]);
    g.get_mut("c").unwrap().clear();
    assert_eq!(cycle(&g, "a"), None);
    assert_eq!(
        after("use crate::x::y; notcrate::z; crate::w", "crate::"),
        ["x", "w"]
    );
}
