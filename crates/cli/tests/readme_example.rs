//! The README's section on the three questions: its commands run and their output and the risks
//! its text quotes checked (the worked example above it is a generated doc, checked and
//! rewritten by `generated_docs.rs`).

use std::path::Path;
use std::process::Command;

/// Runs the binary in `dir` and returns its standard output.
fn intruder_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_intruder"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "intruder {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The README's section on the three questions: its commands run on ARX's adult data split as
/// it says (the first 20,000 records released, the other 10,162 the control set), its output
/// block and the risks its text quotes.
#[test]
fn the_questions_example_is_the_binarys_output() {
    use std::io::Read;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme
        .split_once("\n### The three questions: singling out, linkability, inference\n")
        .expect("README has the questions section")
        .1;
    let (_, block) = section.split_once("```text\n").expect("an output block");
    let (block, _) = block.split_once("```").expect("the block ends");
    let mut text = String::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(root.join("data/arx-adult/adult.csv.gz")).unwrap(),
    )
    .read_to_string(&mut text)
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, rows: &[&str]| {
        let body = std::iter::once(lines[0]).chain(rows.iter().copied());
        std::fs::write(
            dir.path().join(name),
            body.collect::<Vec<_>>().join("\n") + "\n",
        )
        .unwrap();
    };
    write("original.csv", &lines[1..20001]);
    write("control.csv", &lines[20001..]);
    intruder_in(
        dir.path(),
        &[
            "mask",
            "--data",
            "original.csv",
            "--method",
            "pram",
            "--set",
            "variables=education,occupation,marital-status",
            "--set",
            "pd=0.6",
            "--seed",
            "1",
            "--out",
            "released.csv",
        ],
    );
    let ask = |method: &str, released: &str, set: &[&str], format: &str| -> String {
        let mut args = vec![
            "attack",
            "--method",
            method,
            "--original",
            "original.csv",
            "--control",
            "control.csv",
            "--released",
            released,
            "--seed",
            "1",
            "--format",
            format,
        ];
        for s in set {
            args.extend(["--set", s]);
        }
        intruder_in(dir.path(), &args)
    };
    let inference = [
        "aux_cols=age,sex,race,education,occupation,marital-status",
        "secret=salary-class",
        "n_attacks=2000",
    ];
    let out = ask("inference", "released.csv", &inference, "table");
    let shown: Vec<&str> = block.lines().take_while(|l| !l.contains('…')).collect();
    let got: Vec<&str> = out.lines().take(shown.len()).collect();
    assert_eq!(got, shown, "README's inference output is stale");
    // The risks the text quotes: singling out, linkability and inference of the original
    // itself, then of the PRAM release.
    let link = r#"aux_cols=[["age","sex","race","native-country"],["education","occupation","marital-status","workclass"]]"#;
    let risk = |method: &str, released: &str, set: &[&str]| -> f64 {
        let v: serde_json::Value =
            serde_json::from_str(&ask(method, released, set, "json")).unwrap();
        v["risk"].as_f64().unwrap()
    };
    let quoted = [
        (
            risk("singling-out", "original.csv", &["n_attacks=500"]),
            "0.995",
        ),
        (
            risk("linkability", "original.csv", &[link, "n_attacks=2000"]),
            "0.011",
        ),
        (risk("inference", "original.csv", &inference), "0.497"),
        (
            risk("singling-out", "released.csv", &["n_attacks=500"]),
            "0.40",
        ),
        (
            risk("linkability", "released.csv", &[link, "n_attacks=2000"]),
            "0.004",
        ),
        (risk("inference", "released.csv", &inference), "0.26"),
    ];
    let auc = |released: &str| -> f64 {
        let v: serde_json::Value =
            serde_json::from_str(&ask("membership", released, &["n_targets=1000"], "json"))
                .unwrap();
        v["auc"].as_f64().unwrap()
    };
    let quoted = quoted
        .into_iter()
        .chain([(auc("released.csv"), "0.62"), (auc("original.csv"), "0.77")]);
    for (value, text) in quoted {
        let decimals = text.len() - 2;
        assert_eq!(format!("{value:.decimals$}"), text, "README quotes {text}");
        assert!(section.contains(text), "{text} is no longer in the README");
    }
}
