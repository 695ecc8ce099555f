//! `intruder synth`: generate a seeded synthetic look-alike data set with ground truth.
//!
//! ```text
//! intruder synth --list
//! intruder synth survey-panel --seed 7 --out data/survey-panel
//! intruder synth census --n 10000000 --set keys=20 --set fraction=0.01
//! intruder synth census --set preset=drug-survey
//! ```
//!
//! The generators, their parameters and the published figures they imitate all come from the
//! `intruder-synth` registry; this module only parses the command line and prints.

use std::path::PathBuf;

use anyhow::Context as _;
use intruder_data::params;
use intruder_synth::generators;

/// Seed used when `--seed` is not given. It is printed with every run, so no run depends on a
/// hidden seed.
pub const DEFAULT_SEED: u64 = 1;

/// Generate a seeded synthetic look-alike data set (CSV + schema TOML, with ground truth).
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Run `intruder synth --list` for the generators, their parameters and defaults, \
                  and the published figures each one imitates."
)]
pub struct Args {
    /// Generator to run (see --list).
    #[arg(value_name = "NAME", required_unless_present = "list")]
    pub name: Option<String>,

    /// Describe every generator, its parameters with defaults, and the published figures.
    #[arg(long, conflicts_with_all = ["n", "out", "set"])]
    pub list: bool,

    /// Size of the data set (the generator's `n` parameter).
    #[arg(long)]
    pub n: Option<u64>,

    /// Random seed; the same seed and parameters give byte-identical files.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,

    /// Output directory [default: synth/NAME].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Set a generator parameter (repeatable), e.g. --set preset=drug-survey.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// Run `intruder synth`.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.list {
        print!("{}", list_text());
        return Ok(());
    }
    let Some(name) = args.name.as_deref() else {
        anyhow::bail!("give a generator name, or --list");
    };
    let generator = intruder_synth::parse(name, args.n, &args.set)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("synth").join(name));
    println!(
        "intruder synth {name}: seed {}{} -> {}",
        args.seed,
        if args.seed == DEFAULT_SEED {
            " (default)"
        } else {
            ""
        },
        out.display()
    );
    println!("parameters: {}", generator.params().describe());
    let files = generator
        .generate(args.seed, &out)
        .with_context(|| format!("generating {name} into {}", out.display()))?;
    for f in files {
        println!("wrote {}", f.display());
    }
    Ok(())
}

/// The `--list` text: every generator with its parameters (kind, default, meaning and valid
/// range, from the shared parameter layer), its description and the published figures it
/// imitates.
pub fn list_text() -> String {
    let mut s = format!(
        "Generators (seed: --seed, default {DEFAULT_SEED}; parameters: --set key=value, size: --n):\n"
    );
    for g in generators() {
        describe(&mut s, g);
    }
    s
}

fn describe(s: &mut String, g: &intruder_data::params::Entry<dyn intruder_synth::Generator>) {
    s.push('\n');
    s.push_str(params::list_text("", &[g.doc(&[])]).trim_start_matches('\n'));
    // The description and the published figures come with a configured generator: the
    // defaults (which a test keeps valid).
    let Ok(built) = intruder_synth::parse::<&str>(g.name, None, &[]) else {
        return;
    };
    s.push_str(&format!("  {}\n", built.description()));
    s.push_str("  published figures it imitates:\n");
    for (figure, value) in built.published() {
        s.push_str(&format!("    {figure:<45} {value}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_names_every_generator_and_parameter() {
        let text = list_text();
        for g in generators() {
            assert!(text.contains(g.name));
            assert!(text.contains(g.summary) && text.contains(g.reference));
            for p in g.params {
                assert!(text.contains(p.name));
                // Every range is shown with the parameter.
                if p.range.is_bounded() {
                    assert!(text.contains(&format!("({})", p.range)), "{}", p.name);
                }
            }
        }
    }

    #[test]
    fn run_writes_files_and_rejects_bad_parameters() {
        let dir = tempfile::tempdir().expect("tempdir");
        let args = Args {
            name: Some("linkage-pair".into()),
            list: false,
            n: Some(50),
            seed: 3,
            out: Some(dir.path().to_path_buf()),
            set: vec!["n_b=40".into()],
        };
        run(args).expect("run");
        assert!(dir.path().join("file-a.csv").exists());
        let bad = Args {
            name: Some("linkage-pair".into()),
            list: false,
            n: None,
            seed: 3,
            out: Some(dir.path().join("bad")),
            set: vec!["typo=2".into()],
        };
        let err = run(bad).expect_err("typo above 1");
        assert!(
            format!("{err:#}").contains("typo: expected a value in [0, 1], found 2"),
            "{err:#}"
        );
        assert!(!dir.path().join("bad").exists());
    }
}
