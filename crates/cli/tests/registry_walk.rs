//! Every entry of every registry (attacks, defences, risk measures, utility measures,
//! generators) is reachable everywhere: its command's `--list` shows it with each of its
//! parameters, and an experiment file may name it (the runner does not call it unknown). The
//! README's method tables are generated here ([`tables`]) and checked with every other
//! generated doc by `generated_docs.rs`.

use std::process::Command;

use intruder_data::params::MethodDoc;

struct Family {
    /// Registry name used in messages ("attack", "risk measure", …).
    what: &'static str,
    title: &'static str,
    /// The CLI command and the flag that names a method.
    command: &'static str,
    flag: &'static str,
    /// How an experiment file names it (`{}` is the name).
    toml: &'static str,
    /// How Python names it.
    python: &'static str,
    docs: Vec<MethodDoc>,
}

/// The questions without truth that carry anonymeter's risk (`risk`), or the others.
fn questions(risk: bool) -> Vec<MethodDoc> {
    intruder::questions::docs()
        .into_iter()
        .filter(|d| {
            intruder::questions::Question::named(d.name).is_some_and(|q| q.has_risk() == risk)
        })
        .collect()
}

fn families() -> Vec<Family> {
    vec![
        Family {
            what: "attack",
            title: "Attacks",
            command: "attack",
            flag: "--method",
            toml: "[[attack]]\nmethod = \"{}\"\n",
            python: "intruder.attack(..., method=NAME)",
            docs: intruder_attack::docs(),
        },
        Family {
            what: "question",
            title: "The three questions",
            command: "attack",
            flag: "--method",
            toml: "[[question]]\nmethod = \"{}\"\n",
            python: "intruder.attack(original, released, method=NAME, control=df)",
            docs: questions(true),
        },
        Family {
            what: "measure without truth",
            title: "Membership inference and distances",
            command: "attack",
            flag: "--method",
            toml: "[[question]]\nmethod = \"{}\"\n",
            python: "intruder.attack(original, released, method=NAME, control=df)",
            docs: questions(false),
        },
        Family {
            what: "defence",
            title: "Defences",
            command: "mask",
            flag: "--method",
            toml: "[[defence]]\nname = \"d\"\n[[defence.step]]\nmethod = \"{}\"\n",
            python: "intruder.mask(..., [{\"method\": NAME, ...}])",
            docs: intruder_defence::docs(),
        },
        Family {
            what: "risk measure",
            title: "Risk measures",
            command: "risk",
            flag: "--measure",
            toml: "[[risk]]\nmeasure = \"{}\"\n",
            python: "intruder.risk(..., measure=NAME)",
            docs: intruder_risk::docs(),
        },
        Family {
            what: "utility measure",
            title: "Utility measures",
            command: "utility",
            flag: "--measure",
            toml: "[utility]\nmeasures = [\"{}\"]\n",
            python: "intruder.utility(..., measures=[NAME])",
            docs: intruder_utility::docs(),
        },
        Family {
            what: "generator",
            title: "Generators",
            command: "synth",
            flag: "NAME",
            toml: "",
            python: "intruder.synth(NAME)",
            docs: intruder_synth::docs(),
        },
    ]
}

/// The README's method tables.
pub(crate) fn tables() -> String {
    let esc = |x: &str| x.replace('|', "\\|");
    let mut s = String::new();
    for f in families() {
        let reach = if f.command == "synth" {
            "`intruder synth NAME`, `[data] generator = NAME`".to_string()
        } else if f.toml.starts_with("[[question]]") {
            format!(
                "`intruder {} {} NAME --original FILE --control FILE --released FILE`, `{}` with `[scenario] control`",
                f.command,
                f.flag,
                f.toml
                    .trim_end()
                    .replace('\n', " ")
                    .replace("\"{}\"", "NAME")
            )
        } else {
            format!(
                "`intruder {} {} NAME`, `{}`",
                f.command,
                f.flag,
                f.toml
                    .trim_end()
                    .replace('\n', " ")
                    .replace("\"{}\"", "NAME")
            )
        };
        s.push_str(&format!(
            "### {}\n\nReached by {reach}, `{}`; `intruder {} --list` shows every parameter.\n\n",
            f.title, f.python, f.command
        ));
        if let Some(common) = f.docs.first().map(|d| d.common).filter(|c| !c.is_empty()) {
            let names: Vec<String> = common.iter().map(|p| format!("`{}`", p.name)).collect();
            s.push_str(&format!(
                "Parameters every {} takes: {}.\n\n",
                f.what,
                names.join(", ")
            ));
        }
        s.push_str("| name | what it does | its parameters | reference |\n|---|---|---|---|\n");
        for d in &f.docs {
            let own: Vec<String> = d
                .params
                .iter()
                .filter(|p| !d.common.iter().any(|c| c.name == p.name))
                .map(|p| format!("`{}`", p.name))
                .collect();
            s.push_str(&format!(
                "| `{}` | {} | {} | {} |\n",
                d.name,
                esc(d.summary),
                if own.is_empty() {
                    "—".to_string()
                } else {
                    own.join(", ")
                },
                esc(d.reference)
            ));
        }
        s.push('\n');
    }
    s
}

#[test]
fn every_method_is_listed_by_its_command_with_its_parameters() {
    for f in families() {
        let out = Command::new(env!("CARGO_BIN_EXE_intruder"))
            .args([f.command, "--list"])
            .output()
            .unwrap();
        assert!(out.status.success(), "intruder {} --list failed", f.command);
        let text = String::from_utf8_lossy(&out.stdout);
        for d in &f.docs {
            assert!(
                text.contains(d.name),
                "intruder {} --list lacks {}",
                f.command,
                d.name
            );
            for p in d.params {
                assert!(
                    text.contains(p.name),
                    "intruder {} --list lacks {}'s parameter {}",
                    f.command,
                    d.name,
                    p.name
                );
            }
        }
    }
}

/// Every parameter of every method is a flag of its command (`--u-sample` for `u_sample`), made
/// from the entry (`crates/cli/src/param_flags.rs`); generators keep `--set`.
#[test]
fn every_parameter_is_a_flag_of_its_command() {
    for f in families().into_iter().filter(|f| f.command != "synth") {
        let out = Command::new(env!("CARGO_BIN_EXE_intruder"))
            .args([f.command, "--help"])
            .output()
            .unwrap();
        assert!(out.status.success(), "intruder {} --help failed", f.command);
        let text = String::from_utf8_lossy(&out.stdout);
        for d in &f.docs {
            for p in d.common.iter().chain(d.params) {
                let flag = format!("--{}", p.name.replace('_', "-"));
                assert!(
                    text.lines()
                        .any(|l| l.trim_start().starts_with(&format!("{flag} "))
                            || l.trim_start().starts_with(&format!("{flag}["))
                            || l.trim_start() == flag),
                    "intruder {} --help has no {flag} for {}'s parameter {}",
                    f.command,
                    d.name,
                    p.name
                );
            }
        }
    }
}

/// Every parameter's range reads as people write it (`> 0`, `in [0, 1]`), never as a bound
/// spelt out in 300 digits (`time_limit` once showed `f64::MAX` whole in `--list`, the READMEs
/// and Python's `methods()`).
#[test]
fn every_range_is_written_short() {
    for f in families() {
        for d in &f.docs {
            for p in d.params.iter().chain(d.common) {
                let range = p.range.to_string();
                assert!(
                    range.len() <= 40,
                    "{} {}: {} has the range {range}",
                    f.what,
                    d.name,
                    p.name
                );
            }
        }
    }
}

const HEAD: &str = r#"
name = "walk"
seed = 1
replicates = 1
[data]
generator = "survey-panel"
n = 100
released = "survey-panel.csv"
truth = "person_id"
[scenario]
keys = ["year_of_birth", "gender"]
known = 0.5
"#;

/// Problems an experiment naming `name` in family `f` has that say the name is unknown.
fn unknown_problems(f: &Family, name: &str) -> Vec<String> {
    let text = if f.command == "synth" {
        HEAD.replace(
            "generator = \"survey-panel\"",
            &format!("generator = \"{name}\""),
        )
    } else {
        let mut t = HEAD.to_string();
        if f.command != "mask" {
            t.push_str("[[defence]]\nname = \"none\"\n");
        }
        t.push_str(&f.toml.replace("{}", name));
        t
    };
    match intruder_runner::Experiment::from_toml(&text, "walk.toml".as_ref()) {
        Ok(_) => Vec::new(),
        Err(e) => e
            .to_string()
            .lines()
            .filter(|l| l.contains("unknown") && l.contains(&format!("'{name}'")))
            .map(str::to_string)
            .collect(),
    }
}

#[test]
fn every_method_can_be_named_in_an_experiment_file() {
    for f in families()
        .into_iter()
        .filter(|f| !f.toml.is_empty() || f.command == "synth")
    {
        for d in &f.docs {
            let p = unknown_problems(&f, d.name);
            assert!(
                p.is_empty(),
                "the runner does not know {} {}: {p:?}",
                f.what,
                d.name
            );
        }
        // The check can fail: a made-up name is unknown.
        assert!(
            !unknown_problems(&f, "no-such-method").is_empty(),
            "{}: a made-up name was not refused",
            f.what
        );
    }
}
