//! Regenerates `paper/paper.md` and `paper/figures/` from the experiment files: every study is
//! run at its `[paper]` size (stored runs under `results/paper/<name>/` are reused), and its
//! tables, figures and published values are written into the paper.
//!
//! ```text
//! cargo run --release -p intruder-runner --example paper [-- --only NAME] [--full-census]
//! ```
//! `--full-census` runs dalenius-census at its default N = 10,000,000 instead of the paper's
//! N = 1,000,000.

use std::path::{Path, PathBuf};

use intruder_runner::{Experiment, RunOptions, published_table, run_experiment, summary_tables};

const STUDIES: &[(&str, &str)] = &[
    (
        "quickstart",
        "A small end-to-end run: every attack against no masking and four defences.",
    ),
    (
        "mulder-liss",
        "Mulder's uniqueness tables on the LISS-like survey panel: listwise k against the wildcard n_match, and what an estimated month of birth adds.",
    ),
    (
        "mitra-was",
        "Mitra's inter-wave study on the WAS-like household panel: split households found across waves without links (two key sets) and with links, and attribute disclosure on wealth.",
    ),
    (
        "bender-iab",
        "Bender, Brand and Bacher's register-survey study: uniqueness, the distance criterion with and without response knowledge, k-means re-identification, and Fellegi-Sunter for comparison.",
    ),
    (
        "drug-survey-sampling",
        "The drug-survey argument: sample uniques are rarely population uniques; region drives the small classes.",
    ),
    (
        "dalenius-census",
        "Dalenius' census-scale uniqueness, at N = 1,000,000 for the paper (10,000,000 with --full-census).",
    ),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    let full_census = args.iter().any(|a| a == "--full-census");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let paper = root.join("paper");
    let figures = paper.join("figures");
    std::fs::create_dir_all(&figures)?;
    let mut sections = String::new();
    for (name, blurb) in STUDIES {
        if only.as_deref().is_some_and(|o| o != *name) {
            continue;
        }
        let file = root.join("experiments").join(format!("{name}.toml"));
        let mut exp = Experiment::from_file(&file)?;
        if !(full_census && *name == "dalenius-census") {
            let size = exp.paper.clone();
            exp.resize(&size);
        }
        let out: PathBuf = root.join("results").join("paper").join(name);
        let start = std::time::Instant::now();
        let done = run_experiment(
            &exp,
            &RunOptions {
                out: Some(out),
                force: false,
                threads: None,
                progress: true,
            },
        )?;
        eprintln!(
            "{name}: {} runs ({} executed) in {:.1} s",
            done.plan.runs.len(),
            done.executed,
            start.elapsed().as_secs_f64()
        );
        sections.push_str(&format!(
            "## {}\n\n{blurb}\n\n{}\n\n*Experiment file:* `experiments/{name}.toml`; {} setting{} × {} replicate{}, seed {}. Cells are means over replicates with their 95% t-intervals.\n\n",
            title(name),
            exp.description,
            done.plan.settings.len(),
            if done.plan.settings.len() == 1 { "" } else { "s" },
            exp.replicates,
            if exp.replicates == 1 { "" } else { "s" },
            exp.seed
        ));
        for t in summary_tables(&exp, &done.written.results) {
            sections.push_str(&t.markdown());
            sections.push('\n');
        }
        if let Some(t) = published_table(&exp, &done.written.results) {
            sections.push_str(&t.markdown());
            sections.push('\n');
        }
        for (file, caption, svg) in &done.written.plots {
            let target = format!("{name}-{file}");
            std::fs::write(figures.join(&target), svg)?;
            sections.push_str(&format!(
                "![{caption}](figures/{target})\n\n*{caption}.*\n\n"
            ));
        }
    }
    if only.is_some() {
        eprintln!("--only: paper/paper.md not rewritten");
        return Ok(());
    }
    let text = format!("{}{sections}{}", HEAD, TAIL);
    std::fs::write(paper.join("paper.md"), text)?;
    eprintln!("wrote {}", paper.join("paper.md").display());
    Ok(())
}

fn title(name: &str) -> &'static str {
    match name {
        "quickstart" => "1. Quickstart",
        "mulder-liss" => "2. Mulder: uniqueness with missing values (LISS)",
        "mitra-was" => "3. Mitra: linking across waves (WAS)",
        "bender-iab" => "4. Bender et al.: register and survey (IAB/MPI)",
        "drug-survey-sampling" => "5. Sampling: sample and population uniques (drug survey)",
        "dalenius-census" => "6. Dalenius: uniqueness at census scale",
        _ => "Study",
    }
}

const HEAD: &str = r#"# intruder: simulating data intruders against masked microdata

*Generated by `cargo run --release -p intruder-runner --example paper`; do not edit by hand —
edit `experiments/*.toml` or `crates/runner/examples/paper.rs` and regenerate.*

## Abstract

Statistical offices mask surveys, registers and censuses before release and must judge how many
people an intruder could still re-identify, and what the masking cost. `intruder` attacks a
masked file the way an intruder would — exact key matching, nearest-neighbour distance,
k-means, following released links, Fellegi–Sunter linkage — and scores every attack against
ground truth that only the evaluator can read. Experiments are declared in TOML files (data,
the intruder's knowledge, a grid of defences, attacks, risk and utility measures, replicates, a
seed) and reproduce bit for bit. We re-run five published studies on calibrated synthetic
look-alikes of their (non-public) data and show our figures beside the published ones.

## The toolkit

- **Data** (`intruder-data`): typed columns with roles (key, sensitive, weight, truth …);
  ground truth is kept apart from the tables attacks receive, so an attack cannot see who is
  who by its signature.
- **Look-alike data** (`intruder-synth`): seeded generators calibrated to each study's
  published marginals (survey panel, household panel, register + survey, census, linkage pair).
- **Risk** (`intruder-risk`): equivalence classes and sample uniques under listwise, as-value
  and wildcard missing-value policies (Mulder's n_match), Skinner–Elliot θ, individual and
  global risk from weights, SUDA2, population-uniqueness estimators.
- **Defences** (`intruder-defence`): global recoding, top/bottom coding, rounding, local
  suppression to k-anonymity, risk-based suppression, record removal, noise, MDAV, rank
  swapping, PRAM, subsampling — composed into pipelines.
- **Attacks and evaluation** (`intruder-attack`): every attack returns ranked candidates; one
  evaluator computes the correct-match rate (ties broken with the seed), Mitra's expected
  identifications Σ 1/c_i, the counts with c_i = 1 and c_i ≤ 2, ranks, precision/recall and
  attribute disclosure A (the released sensitive value within 5% of the truth).
- **Utility** (`intruder-utility`): moments, correlations, IL1s, pMSE, CI overlap.
- **Experiments** (`intruder-runner`, `intruder run FILE`): a defence parameter given as a list
  is a grid dimension; each setting × replicate is one run, stored raw under `runs/` and keyed
  by a hash of its resolved configuration, so reruns skip finished work and new metrics need no
  rerun; every random step's seed derives from the experiment seed, the run and the step, so
  results are identical whatever the thread count. Reports: `results.csv`, `results.json`,
  `summary.md`, SVG plots and a self-contained `report.html`.

## Method of the reproductions

The released file is the (masked) original; the intruder's file is a seeded sample of the
original records of the intruder's source — the released file itself, or the population,
survey, or other wave the generator wrote — with optional measurement error. The intruder's
sample depends on the replicate only, so every defence setting faces the same intruder (common
random numbers), which makes differences between settings sharper than the intervals of each.
Deterministic recodings of the release (bands, rounding, top coding) are applied to the
intruder's copy too, as an intruder who reads the published categories would.

Published values come from the source papers (see `/work/shared/seeds`); the look-alikes match
their published marginals, not their joint distributions, so we expect the same order of
magnitude and the same direction of every effect, not equal numbers. Each difference is
explained in the last column of the comparison tables.

"#;

const TAIL: &str = r#"## Limitations

The look-alikes are calibrated to published marginals; effects that depend on the real joint
distribution (how rare a combination of occupation and birth year is, how wealth changes when a
household splits) are reproduced in direction, not in size. Mitra's propensity-score swapping
and CART synthesis await the longitudinal crate; the Dalenius study uses N = 1,000,000 in the
paper (the experiment file's default is the full 10,000,000).
"#;
