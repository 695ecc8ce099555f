//! Regenerates all of `paper/` from the experiment files: `paper.md` and `paper/figures/`
//! (every study at its `[paper]` size; stored runs under `results/paper/<name>/` are reused),
//! `mitra.md` (Mitra's study with its synthesis grid), `values.csv` (every value shown beside a
//! published one) and the report screenshots (`paper/screenshots/`, headless Chromium).
//!
//! ```text
//! cargo run --release -p intruder-runner --example paper                 # everything
//! cargo run --release -p intruder-runner --example paper -- --only NAME  # one study's section data and values.csv rows
//! cargo run --release -p intruder-runner --example paper -- --full-census
//! cargo run --release -p intruder-runner --example paper -- --no-screenshots
//! cargo run --release -p intruder-runner --example paper -- --tiny       # paper/values-tiny.csv (what CI checks)
//! ```
//! `--full-census` runs dalenius-census at its default N = 10,000,000 instead of the paper's
//! N = 1,000,000.

mod mulder_n;
mod text;
mod values;

use std::path::{Path, PathBuf};

use intruder_runner::{
    Experiment, SettingResult, fingerprint, fmt, load_study, published_table, summary_tables,
};

use values::{HEADER, VALUE_STUDIES, at_paper_size, root, study_rows};

/// The sections of paper.md: experiment, title, one-line blurb.
const STUDIES: &[(&str, &str, &str)] = &[
    (
        "quickstart",
        "1. Quickstart",
        "A small end-to-end run: every attack against no masking and four defences.",
    ),
    (
        "mulder-liss",
        "2. Mulder: uniqueness with missing values (LISS)",
        "Mulder's uniqueness tables on the LISS-like survey panel: listwise k against the wildcard n_match under both matching rules, and what an estimated month of birth adds.",
    ),
    (
        "mulder-liss-skips",
        "2.1 Mulder: the same respondents skip the same questionnaires",
        "The test of the missing-at-random explanation of section 2's largest gaps: the same rows on a look-alike whose questionnaire variables are missing for the same respondents.",
    ),
    (
        "mulder-liss-languages",
        "2.2 Mulder: fewer several-language answer patterns",
        "The test of the rare-pattern explanation of section 2's language rows: the same rows on a look-alike with fewer several-language answer patterns.",
    ),
    (
        "mitra-was",
        "3. The inter-wave attack against generic defences (household panel)",
        "Mitra's inter-wave attack, reversed, set against the toolkit's generic defences; Mitra's own study is mitra.md.",
    ),
    (
        "bender-iab",
        "4. Bender et al.: register and survey (IAB/MPI)",
        "Bender, Brand and Bacher's register-survey study: uniqueness, the distance criterion with and without response knowledge, k-means re-identification, and Fellegi-Sunter for comparison.",
    ),
    (
        "drug-survey-sampling",
        "5. Sampling: sample and population uniques (drug survey)",
        "The drug-survey argument: sample uniques are rarely population uniques; region drives the small classes.",
    ),
    (
        "dalenius-census",
        "6. Dalenius: uniqueness at census scale",
        "Dalenius' census-scale uniqueness, at N = 1,000,000 for the paper (10,000,000 with --full-census).",
    ),
];

/// Report screenshots: experiment and page widths.
const SCREENSHOTS: &[(&str, &[u32])] = &[("quickstart", &[1000, 1400]), ("mulder-liss", &[1000])];

/// Above this many published values a study's comparison is laid out as grids (one per
/// published table, one row per quasi-identifier set) instead of one row per value.
const GRID_FROM: usize = 30;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    let full_census = args.iter().any(|a| a == "--full-census");
    let root = root();
    let paper = root.join("paper");
    if args.iter().any(|a| a == "--tiny") {
        let scratch = tempfile::tempdir()?;
        let text = values::tiny_values(scratch.path())?;
        std::fs::write(paper.join("values-tiny.csv"), text)?;
        eprintln!("wrote {}", paper.join("values-tiny.csv").display());
        return Ok(());
    }
    let figures = paper.join("figures");
    std::fs::create_dir_all(&figures)?;
    let mut sections = String::new();
    let mut rows: Vec<String> = Vec::new();
    // Each study's results, for the text of later sections that compare with them.
    let mut all: std::collections::HashMap<String, Vec<SettingResult>> = Default::default();
    for (name, title, blurb) in STUDIES {
        if only.as_deref().is_some_and(|o| o != *name) {
            continue;
        }
        let mut exp =
            Experiment::from_file(&root.join("experiments").join(format!("{name}.toml")))?;
        if !(full_census && *name == "dalenius-census") {
            let size = exp.paper.clone();
            exp.resize(&size);
        }
        let (exp_rows, done) = run(name, &exp)?;
        if VALUE_STUDIES.contains(name) {
            rows.extend(exp_rows);
        }
        all.insert(name.to_string(), done.written.results.clone());
        let results = &done.written.results;
        sections.push_str(&format!(
            "## {title}\n\n{blurb}\n\n{}\n\n*Experiment file:* `experiments/{name}.toml`; {} setting{} × {} replicate{}, seed {}. Cells are means over replicates with their 95% t-intervals.\n\n",
            exp.description,
            done.plan.settings.len(),
            if done.plan.settings.len() == 1 { "" } else { "s" },
            exp.replicates,
            if exp.replicates == 1 { "" } else { "s" },
            exp.seed
        ));
        if let Some(intro) = text::intro(name, &exp, results) {
            sections.push_str(&intro);
        }
        for t in summary_tables(&exp, results) {
            sections.push_str(&t.markdown());
            sections.push('\n');
        }
        if exp.published.len() > GRID_FROM {
            sections.push_str(&published_grids(&exp, results));
        } else if let Some(t) = published_table(&exp, results) {
            sections.push_str(&t.markdown());
            sections.push('\n');
        }
        if let Some(extra) = text::after(name, &exp, results, &all) {
            sections.push_str(&extra);
        }
        for (file, caption, svg) in &done.written.plots {
            let target = format!("{name}-{file}");
            std::fs::write(figures.join(&target), svg)?;
            sections.push_str(&format!(
                "![{caption}](figures/{target})\n\n*{caption}.*\n\n"
            ));
        }
    }
    // Mitra's study (mitra.md) and its look-alike with a wider wealth change.
    let mitra_only = only
        .as_deref()
        .is_some_and(|o| o == "mitra-longitudinal" || o == "mitra-wide-wealth");
    if only.is_none() || mitra_only {
        rows.extend(mitra_md(&root)?);
    }
    write_values(&paper.join("values.csv"), only.as_deref(), rows)?;
    if only.is_some() {
        eprintln!("--only: paper/paper.md not rewritten");
        return Ok(());
    }
    let text = format!("{}{sections}{}", text::HEAD, text::TAIL);
    std::fs::write(paper.join("paper.md"), text)?;
    eprintln!("wrote {}", paper.join("paper.md").display());
    if !args.iter().any(|a| a == "--no-screenshots") {
        screenshots(&root)?;
    }
    Ok(())
}

/// Runs `exp` into `results/paper/<name>/` (stored runs reused): its value rows and results.
fn run(
    name: &str,
    exp: &Experiment,
) -> Result<(Vec<String>, intruder_runner::Done), Box<dyn std::error::Error>> {
    let out: PathBuf = root().join("results").join("paper").join(name);
    let start = std::time::Instant::now();
    let (rows, done) = values::run_values(name, exp, &out, true)?;
    eprintln!(
        "{name}: {} runs ({} executed) in {:.1} s",
        done.plan.runs.len(),
        done.executed,
        start.elapsed().as_secs_f64()
    );
    Ok((rows, done))
}

/// Writes `values.csv`: the new rows, in the order of [`VALUE_STUDIES`]; with `--only` the
/// other studies' rows are kept.
fn write_values(
    path: &Path,
    only: Option<&str>,
    rows: Vec<String>,
) -> Result<(), Box<dyn std::error::Error>> {
    let mut out: Vec<String> = Vec::new();
    if let Some(o) = only
        && let Ok(old) = std::fs::read_to_string(path)
    {
        let mine = |l: &str| {
            l.starts_with(&format!("{o},"))
                || (o.starts_with("mitra-")
                    && (l.starts_with("mitra-longitudinal,")
                        || l.starts_with("mitra-wide-wealth,")))
        };
        out.extend(old.lines().skip(1).filter(|l| !mine(l)).map(str::to_string));
    }
    out.extend(rows);
    let position = |l: &String| {
        let study = l.split(',').next().unwrap_or("");
        VALUE_STUDIES
            .iter()
            .position(|n| *n == study)
            .unwrap_or(usize::MAX)
    };
    out.sort_by_key(position);
    std::fs::write(
        path,
        std::iter::once(HEADER.to_string())
            .chain(out)
            .collect::<Vec<_>>()
            .join("\n")
            + "\n",
    )?;
    Ok(())
}

/// A grid row: its label, its notes, its cells.
type GridRow = (String, String, Vec<String>);
/// A grid: its title, its figure columns, its rows.
type Grid = (String, Vec<String>, Vec<GridRow>);

/// The published values of a study as grids: one per published table (the `source` up to
/// ", row"), one row per risk measure (a quasi-identifier set), one column per figure; each
/// cell `ours / published (difference)`, and the row's notes.
fn published_grids(exp: &Experiment, results: &[SettingResult]) -> String {
    let mut tables: Vec<Grid> = Vec::new();
    for p in &exp.published {
        let (table, row) = match p.source.split_once(", row") {
            Some((t, r)) => (t.to_string(), r.trim().to_string()),
            None => (p.source.clone(), String::new()),
        };
        let mut parts = p.metric.splitn(3, '.');
        let (_, measure, figure) = (parts.next(), parts.next().unwrap_or(""), parts.next());
        let figure = figure.unwrap_or(&p.metric).to_string();
        let ours = results
            .iter()
            .find(|s| s.label == p.setting)
            .and_then(|s| s.get(&p.metric));
        let cell = match ours {
            Some(o) => {
                let d = o.mean - p.value;
                let rel = if p.value != 0.0 {
                    format!(", {:+.0}%", 100.0 * d / p.value)
                } else {
                    String::new()
                };
                format!("{} / {} ({}{rel})", fmt(o.mean), fmt(p.value), signed(d))
            }
            None => format!("– / {}", fmt(p.value)),
        };
        let t = match tables.iter().position(|t| t.0 == table) {
            Some(i) => &mut tables[i],
            None => {
                tables.push((table.clone(), Vec::new(), Vec::new()));
                tables.last_mut().expect("just pushed")
            }
        };
        if !t.1.contains(&figure) {
            t.1.push(figure.clone());
        }
        let col = t.1.iter().position(|f| *f == figure).expect("added");
        let key = format!("{} `{measure}`", row);
        let r = match t.2.iter().position(|r| r.0 == key) {
            Some(i) => &mut t.2[i],
            None => {
                t.2.push((key.clone(), String::new(), Vec::new()));
                t.2.last_mut().expect("just pushed")
            }
        };
        if r.2.len() <= col {
            r.2.resize(col + 1, String::new());
        }
        r.2[col] = cell;
        if !p.note.is_empty() && !r.1.contains(&p.note) {
            if !r.1.is_empty() {
                r.1.push(' ');
            }
            r.1.push_str(&p.note);
        }
    }
    let mut out = String::new();
    for (table, figures, rows) in tables {
        out.push_str(&format!(
            "**{table}: ours / published (difference), setting `none` unless the row names another**\n\n| quasi-identifier (risk measure) | {} | why they differ |\n|---|{}---|\n",
            figures.join(" | "),
            "---|".repeat(figures.len())
        ));
        for (key, note, mut cells) in rows {
            cells.resize(figures.len(), "–".into());
            out.push_str(&format!("| {key} | {} | {note} |\n", cells.join(" | ")));
        }
        out.push('\n');
    }
    out
}

fn signed(d: f64) -> String {
    if d > 0.0 {
        format!("+{}", fmt(d))
    } else {
        fmt(d)
    }
}

/// Regenerates `paper/mitra.md` from `experiments/mitra-longitudinal.toml` (the study and its
/// synthesis grid) and `experiments/mitra-wide-wealth.toml`; returns their value rows.
fn mitra_md(root: &Path) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let results = root.join("results/paper");
    let exp = at_paper_size("mitra-longitudinal")?;
    let (mut rows, done) = run("mitra-longitudinal", &exp)?;
    let summary = std::fs::read_to_string(results.join("mitra-longitudinal/summary.md"))?;
    let study = summary
        .split_once("## Longitudinal study")
        .map(|(_, rest)| rest.split_once("\n\n").map_or(rest, |(_, r)| r))
        .ok_or("summary.md has no longitudinal section")?;
    let study = study
        .replace("\n### ", "\n## ")
        .replace(
            "Raw result: `longitudinal/",
            "Raw result: `results/paper/mitra-longitudinal/longitudinal/",
        )
        .replace("](longitudinal-fig", "](figures/mitra-longitudinal-fig");
    // The study's figures (Figs. 4-6) beside the paper's other figures.
    for n in 4..=6 {
        let from = results.join(format!("mitra-longitudinal/longitudinal-fig{n}.svg"));
        if from.exists() {
            std::fs::copy(
                &from,
                root.join(format!("paper/figures/mitra-longitudinal-fig{n}.svg")),
            )?;
        }
    }
    let st = exp.study.as_ref().ok_or("no study")?;
    let raw = load_study(
        &exp,
        &**st,
        &fingerprint(&exp)?,
        &results.join("mitra-longitudinal"),
    )?;
    let wide = at_paper_size("mitra-wide-wealth")?;
    let (wide_rows, _) = run("mitra-wide-wealth", &wide)?;
    rows.extend(wide_rows);
    let wst = wide.study.as_ref().ok_or("no study")?;
    let wide_raw = load_study(
        &wide,
        &**wst,
        &fingerprint(&wide)?,
        &results.join("mitra-wide-wealth"),
    )?;
    let seeds = exp
        .study
        .as_ref()
        .map(|s| s.config()["params"]["seeds"].to_string())
        .unwrap_or_default();
    let md = text::mitra(
        &exp,
        &seeds,
        done.plan.runs.len(),
        study.trim_end(),
        &raw,
        &wide_raw,
    );
    std::fs::write(root.join("paper/mitra.md"), md)?;
    eprintln!("wrote {}", root.join("paper/mitra.md").display());
    debug_assert!(study_rows(&raw).len() >= 15);
    Ok(rows)
}

/// Screenshots of the quickstart's and Mulder's `report.html` (whole pages, at the widths
/// methodologists read them) with headless Chromium, into `paper/screenshots/<experiment>/`.
fn screenshots(root: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let chromium = ["chromium", "chromium-browser"]
        .into_iter()
        .find(|c| {
            std::process::Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .ok_or(
            "paper/screenshots/ needs headless Chromium (Debian: apt-get install chromium); \
             everything else is written; rerun, or pass --no-screenshots",
        )?;
    for (name, widths) in SCREENSHOTS {
        let report = root.join(format!("results/paper/{name}/report.html"));
        if !report.exists() {
            return Err(format!("{}: not written", report.display()).into());
        }
        let out = root.join(format!("paper/screenshots/{name}"));
        std::fs::create_dir_all(&out)?;
        for w in *widths {
            let profile = tempfile::tempdir()?;
            let png = out.join(format!("report-{w}.png"));
            let status = std::process::Command::new(chromium)
                .args([
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--no-first-run",
                    "--hide-scrollbars",
                ])
                .arg(format!("--user-data-dir={}", profile.path().display()))
                .arg(format!("--window-size={w},16000"))
                .arg(format!("--screenshot={}", png.display()))
                .arg(format!("file://{}", report.canonicalize()?.display()))
                .stderr(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .status()?;
            if !status.success() || !png.exists() {
                return Err(format!("{chromium} could not write {}", png.display()).into());
            }
            eprintln!("wrote {}", png.display());
        }
    }
    Ok(())
}
