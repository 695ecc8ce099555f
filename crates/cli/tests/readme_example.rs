//! The README's worked example is the binary's output (issue 38: it had gone stale): the
//! command of its first line is run from the repository's root and its output compared with the
//! block, byte for byte. `INTRUDER_WRITE_README=1 cargo test -p intruder-cli --test integration
//! readme_example::` rewrites the block from the binary.

use std::path::Path;
use std::process::Command;

#[test]
fn the_worked_risk_example_is_the_binarys_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme_path = root.join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
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
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = String::from_utf8(out.stdout).unwrap();
    if got != shown && std::env::var_os("INTRUDER_WRITE_README").is_some() {
        let start = readme.find(block).unwrap() + command.len() + 1;
        let mut new = readme.clone();
        new.replace_range(start..start + shown.len(), &got);
        std::fs::write(&readme_path, new).unwrap();
        return;
    }
    assert_eq!(
        got, shown,
        "README.md's worked example is stale; run\n  INTRUDER_WRITE_README=1 cargo test -p intruder-cli --test integration readme_example::"
    );
}
