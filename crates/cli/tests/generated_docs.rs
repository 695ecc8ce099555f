//! Every generated doc, checked by one test and rewritten by one command:
//!
//! ```text
//! INTRUDER_WRITE_DOCS=1 cargo test -p intruder-cli --test integration generated_docs::
//! ```
//!
//! - `README.md`: the method tables, from every registry ([`crate::registry_walk::tables`]),
//!   and the worked example, the binary's output (issue 38: it had gone stale);
//! - `crates/{risk,attack,defence,utility}/README.md`: each registry's parameter tables
//!   (between `<!-- BEGIN name -->` and `<!-- END name -->`);
//! - `docs/adding-a-method.md`: its worked examples, the fixture methods' files as they are.
//!
//! A method added to a registry changes these; the test then names every stale file and the
//! command above (docs/adding-a-method.md).

use std::path::{Path, PathBuf};
use std::process::Command;

use intruder_data::params::{markdown_common, markdown_table, splice_generated};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `doc` with the section `name` regenerated as `generated`.
fn spliced(doc: &str, path: &str, name: &str, generated: &str) -> String {
    splice_generated(doc, name, generated).unwrap_or_else(|| {
        panic!("{path} lacks the markers <!-- BEGIN {name} --> and <!-- END {name} -->")
    })
}

const BEGIN: &str =
    "<!-- method tables: generated from the registries by crates/cli/tests/registry_walk.rs -->";
const END: &str = "<!-- end of method tables -->";

/// The root README with its method tables and its worked example regenerated.
fn root_readme(readme: &str) -> String {
    let (Some(b), Some(e)) = (readme.find(BEGIN), readme.find(END)) else {
        panic!("README.md lacks the markers\n{BEGIN}\n{END}");
    };
    let tables = crate::registry_walk::tables();
    let readme = format!("{}{BEGIN}\n\n{tables}{}", &readme[..b], &readme[e..]);
    worked_example(&readme)
}

/// The README's worked example: the command of its block's first line, run from the
/// repository's root, and its output below it, byte for byte.
fn worked_example(readme: &str) -> String {
    let section = readme
        .split_once("\n## A worked example\n")
        .expect("README has '## A worked example'")
        .1;
    let (_, block) = section.split_once("```text\n").expect("a text block");
    let (block, _) = block.split_once("```").expect("the block ends");
    let (command, shown) = block.split_once('\n').expect("a command line");
    let args: Vec<&str> = command
        .strip_prefix("$ intruder ")
        .expect("the block starts with `$ intruder …`")
        .split_whitespace()
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_intruder"))
        .args(&args)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = String::from_utf8(out.stdout).unwrap();
    let start = readme.find(block).unwrap() + command.len() + 1;
    let mut new = readme.to_string();
    new.replace_range(start..start + shown.len(), &got);
    new
}

fn risk_readme(doc: &str) -> String {
    let generated = format!(
        "Common parameters (every measure):\n\n{}\nEach measure's own parameters:\n\n{}",
        markdown_common(intruder_risk::RISK_COMMON),
        markdown_table(&intruder_risk::docs())
    );
    spliced(doc, "crates/risk/README.md", "risk-measures", &generated)
}

fn attack_readme(doc: &str) -> String {
    let generated = format!(
        "Parameters every attack takes:\n\n{}\nEach attack's own parameters:\n\n{}",
        markdown_common(intruder_attack::ATTACK_COMMON),
        markdown_table(&intruder_attack::docs())
    );
    spliced(doc, "crates/attack/README.md", "attacks", &generated)
}

fn defence_readme(doc: &str) -> String {
    let generated = markdown_table(&intruder_defence::docs());
    spliced(doc, "crates/defence/README.md", "defences", &generated)
}

fn utility_readme(doc: &str) -> String {
    let generated = intruder_utility::registry_markdown();
    spliced(
        doc,
        "crates/utility/README.md",
        "utility-measures",
        &generated,
    )
}

/// The fixture methods docs/adding-a-method.md shows, whole.
const EXAMPLES: [&str; 4] = [
    "crates/risk/src/methods/fixture_key_space.rs",
    "crates/attack/src/methods/fixture_agreement.rs",
    "crates/defence/src/methods/fixture_shift.rs",
    "crates/utility/src/methods/fixture_changed_cells.rs",
];

fn adding_a_method(doc: &str) -> String {
    let mut doc = doc.to_string();
    for path in EXAMPLES {
        let code =
            std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
        doc = spliced(
            &doc,
            "docs/adding-a-method.md",
            path,
            &format!("```rust\n{code}```\n"),
        );
    }
    doc
}

/// Every generated doc: its path from the repository's root and how it is regenerated from its
/// current text.
const DOCS: [(&str, fn(&str) -> String); 6] = [
    ("README.md", root_readme),
    ("crates/risk/README.md", risk_readme),
    ("crates/attack/README.md", attack_readme),
    ("crates/defence/README.md", defence_readme),
    ("crates/utility/README.md", utility_readme),
    ("docs/adding-a-method.md", adding_a_method),
];

#[test]
fn every_generated_doc_is_up_to_date() {
    let write = std::env::var_os("INTRUDER_WRITE_DOCS").is_some();
    let mut stale = Vec::new();
    for (path, fresh) in DOCS {
        let file = root().join(path);
        let doc = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{path}: {e}"));
        let new = fresh(&doc);
        if new != doc {
            if write {
                std::fs::write(&file, &new).unwrap_or_else(|e| panic!("{path}: {e}"));
            } else {
                stale.push(path);
            }
        }
    }
    assert!(
        stale.is_empty(),
        "generated docs are out of date: {}; rewrite them with\n  INTRUDER_WRITE_DOCS=1 cargo test -p intruder-cli --test integration generated_docs::",
        stale.join(", ")
    );
}

#[test]
fn each_registry_table_names_every_method_in_bold() {
    let read = |p: &str| std::fs::read_to_string(root().join(p)).unwrap();
    let families = [
        ("crates/risk/README.md", intruder_risk::docs()),
        ("crates/attack/README.md", intruder_attack::docs()),
        ("crates/defence/README.md", intruder_defence::docs()),
        ("crates/utility/README.md", intruder_utility::docs()),
    ];
    for (path, docs) in families {
        let doc = read(path);
        for d in docs {
            assert!(
                doc.contains(&format!("| **`{}`** |", d.name)),
                "{path}: {}",
                d.name
            );
        }
    }
}
