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

#[test]
fn timings_name_every_phase_of_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().join("d.csv");
    std::fs::write(&d, "id,a,b\n1,x,1\n2,y,2\n3,x,2\n4,y,1\n").unwrap();
    let m = dir.path().join("m.csv");
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_intruder"))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "intruder {args:?} failed: {err}");
        err
    };
    let d = d.to_str().unwrap();
    let m = m.to_str().unwrap();
    let cases: [(Vec<&str>, &[&str]); 4] = [
        (
            vec!["risk", "--data", d, "--keys", "a,b", "--timings"],
            &["read ", "encode ", "count ", "write "],
        ),
        (
            vec![
                "mask",
                "--data",
                d,
                "--method",
                "round",
                "--set",
                "variables=b",
                "--set",
                "base=2",
                "--seed",
                "1",
                "--out",
                m,
                "--timings",
            ],
            &["read ", "mask ", "write "],
        ),
        (
            vec![
                "utility",
                "--original",
                d,
                "--masked",
                m,
                "--variables",
                "a",
                "--timings",
            ],
            &["read ", "utility ", "write "],
        ),
        (
            vec![
                "attack",
                "--intruder",
                d,
                "--released",
                d,
                "--keys",
                "a,b",
                "--truth",
                "id",
                "--timings",
            ],
            &["read ", "attack ", "evaluate ", "write "],
        ),
    ];
    for (args, phases) in cases {
        let err = run(&args);
        let line = err
            .lines()
            .find(|l| l.starts_with("timings: "))
            .unwrap_or_else(|| panic!("intruder {args:?} --timings printed no timings: {err}"));
        for p in phases {
            assert!(line.contains(p), "{args:?}: no phase '{p}' in {line}");
        }
        assert!(line.contains(", total "), "{line}");
        // Without the flag, nothing is printed.
        let quiet: Vec<&str> = args.iter().copied().filter(|a| *a != "--timings").collect();
        assert!(!run(&quiet).contains("timings:"));
    }
}
