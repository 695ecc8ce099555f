//! The command line's common surface, as the README documents it once: every command that reads
//! data takes the same input flags, every command that reports takes `--format` with the same
//! default, every command that runs methods has `--list`; and `crates/cli/src` stays parsing and
//! rendering (no file over 400 lines).

use std::path::Path;
use std::process::Command;

fn help(cmd: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_intruder"))
        .args([cmd, "--help"])
        .output()
        .unwrap();
    assert!(out.status.success(), "intruder {cmd} --help failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_command_has_the_common_flags() {
    for cmd in ["risk", "attack", "mask", "utility"] {
        let h = help(cmd);
        for flag in [
            "--delimiter",
            "--missing-tokens",
            "--format",
            "--list",
            "--set",
        ] {
            assert!(h.contains(flag), "intruder {cmd} --help lacks {flag}:\n{h}");
        }
        assert!(
            h.contains("[default: table]"),
            "intruder {cmd}: --format's default is not table:\n{h}"
        );
    }
    for cmd in ["risk", "mask"] {
        let h = help(cmd);
        for flag in ["--data", "--schema"] {
            assert!(h.contains(flag), "intruder {cmd} --help lacks {flag}:\n{h}");
        }
    }
    let h = help("synth");
    assert!(h.contains("--list"), "{h}");
}

#[test]
fn the_cli_crate_holds_parsing_and_rendering_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack = vec![src];
    let mut long = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let n = std::fs::read_to_string(&p).unwrap().lines().count();
                if n > 400 {
                    long.push(format!("{} ({n} lines)", p.display()));
                }
            }
        }
    }
    assert!(long.is_empty(), "files over 400 lines: {long:?}");
}
