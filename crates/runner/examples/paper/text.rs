//! The paper's prose around the generated tables: the head and tail of paper.md, the text
//! before and after a study's tables (with the small tables computed from the runs that back
//! it), and mitra.md.

use std::collections::HashMap;

use intruder_runner::{Experiment, SettingResult, fmt};
use serde_json::Value;

use crate::mulder_n;
use crate::values::table1_mean;

/// The mean of `metric` in `setting` of `results`.
fn get(results: &[SettingResult], setting: &str, metric: &str) -> Option<f64> {
    results
        .iter()
        .find(|s| s.label == setting)
        .and_then(|s| s.get(metric))
        .map(|s| s.mean)
}

/// A share as a percentage with one decimal.
fn pct(x: Option<f64>) -> String {
    x.map_or("–".into(), |v| format!("{:.1}%", 100.0 * v))
}

/// A count or figure as the tables print it.
fn num(x: Option<f64>) -> String {
    x.map_or("–".into(), fmt)
}

/// The population size N a study's first risk measure gives θ.
fn population_size(exp: &Experiment) -> Option<f64> {
    exp.risk.iter().find_map(|r| {
        r.params.get("population_size")?.as_float().or_else(|| {
            r.params
                .get("population_size")?
                .as_integer()
                .map(|i| i as f64)
        })
    })
}

/// Text between a study's description and its tables.
pub fn intro(name: &str, exp: &Experiment, _results: &[SettingResult]) -> Option<String> {
    match name {
        "mulder-liss" => Some(mulder_theta(exp)),
        _ => None,
    }
}

/// Text after a study's comparison tables.
pub fn after(
    name: &str,
    exp: &Experiment,
    results: &[SettingResult],
    all: &HashMap<String, Vec<SettingResult>>,
) -> Option<String> {
    match name {
        "mulder-liss" => Some(format!(
            "{}{}",
            mulder_rules(exp, results),
            mulder_rounding(results)
        )),
        "mulder-liss-skips" => Some(mulder_variant(
            exp,
            results,
            all.get("mulder-liss")?,
            SKIPS_ROWS,
            SKIPS_TEXT,
        )),
        "mulder-liss-languages" => Some(mulder_variant(
            exp,
            results,
            all.get("mulder-liss")?,
            LANGUAGE_ROWS,
            LANGUAGES_TEXT,
        )),
        "mitra-was" => Some(MITRA_WAS.to_string()),
        "bender-iab" => Some(bender_scaling(results)),
        _ => None,
    }
}

/// The derivation of N from Mulder's YoB row, and θ at the experiment's N.
fn mulder_theta(exp: &Experiment) -> String {
    let Some(d) = mulder_n::derive() else {
        return "**θ and N.** Mulder's YoB row does not fix its class structure.\n\n".into();
    };
    let big_n = population_size(exp).unwrap_or(f64::NAN);
    let n1 = f64::from(mulder_n::YOB.uniques);
    let th3 = mulder_n::theta(n1, d.n2_listwise, big_n);
    let th4 = mulder_n::theta(n1, d.n2_n_match, big_n);
    let old3 = mulder_n::theta(n1, d.n2_listwise, 13_000_000.0);
    let old4 = mulder_n::theta(n1, d.n2_n_match, 13_000_000.0);
    let n = |x: f64| {
        let s = format!("{:.0}", x.round());
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    format!(
        "**θ and the population size N.** Mulder does not state his N, but his YoB row fixes it. \
Year of birth is never missing, so Table 4's n_match is Table 3's k counted in records: 3 \
uniques and 5 classes of size ≤ 5 (Table 3) holding 8 records (Table 4, n_match ≤ 5) leave 2 \
classes with 5 records between them, each of 2 to 5 records — sizes {:?}, the only solution: \
one pair and one triple. Table 3's θ counts n₂ = {} pair; Table 4's θ \"calculated as before, \
now using the number of matches\" counts n₂ = {} records with n_match = 2, which is why it is \
half the listwise one (0.0005 against 0.0010). With θ = n₁π / (n₁π + 2(1 − π)n₂) and π = \
10,997 / N, a θ printed as 0.0010 with n₁ = 3, n₂ = 1 needs N in [{}, {}], and 0.0005 with n₂ \
= 2 needs N in [{}, {}]; both hold for N in [{}, {}]. The toolkit uses N = {} (the interval's \
centre, rounded; the Netherlands had about 16.7 million inhabitants then, inside it): θ = {:.6} \
and {:.6} for the YoB row, within 1% of the printed values, where the N = 13,000,000 used \
before gives {:.5} and {:.5}, {:.0}% too high. Every θ below uses this N. Checked by test \
`crates/runner/tests/mulder_theta.rs::n_from_mulders_yob_row` (the interval, and θ through \
`intruder-risk` on a file with that class structure).\n\n",
        d.small,
        d.n2_listwise,
        d.n2_n_match,
        n(d.listwise.0),
        n(d.listwise.1),
        n(d.n_match.0),
        n(d.n_match.1),
        n(d.both.0),
        n(d.both.1),
        n(big_n),
        th3,
        th4,
        old3,
        old4,
        100.0 * (old3 / th3 - 1.0),
    )
}

/// Table 4 under the two matching rules: how often each is the nearer to Mulder's figures.
fn mulder_rules(exp: &Experiment, results: &[SettingResult]) -> String {
    let mut closer = [0usize; 3]; // stated, printed, tie
    let mut differ = 0usize;
    let mut rows = String::new();
    for p in &exp.published {
        let Some(base) = p.metric.strip_prefix("risk.") else {
            continue;
        };
        let Some((measure, figure)) = base.split_once('.') else {
            continue;
        };
        if p.setting != "none"
            || !measure.starts_with("t4_")
            || measure.ends_with("_first")
            || measure.ends_with("_never")
            || figure == "theta"
        {
            continue;
        }
        let stated = get(results, "none", &p.metric);
        let printed = get(results, "none", &format!("risk.{measure}_never.{figure}"));
        let (Some(a), Some(b)) = (stated, printed) else {
            continue;
        };
        if a == b {
            continue;
        }
        differ += 1;
        let (da, db) = ((a - p.value).abs(), (b - p.value).abs());
        closer[if da < db {
            0
        } else if db < da {
            1
        } else {
            2
        }] += 1;
        if figure == "n_match_1" {
            let row = p
                .source
                .split_once(", row ")
                .map_or(p.source.as_str(), |(_, r)| r);
            rows.push_str(&format!(
                "| {row} | {} | {} | {} |\n",
                fmt(p.value),
                fmt(a),
                fmt(b)
            ));
        }
    }
    format!(
        "**Which matching rule Mulder's Table 4 follows.** His Steps 1–5 let a missing value match \
anything; his printed Table 2 (METHODS.md example D, test \
`crates/risk/tests/worked_examples.rs::example_d_mulder_table_2_and_its_erratum`) only follows \
when two records that both miss a key never match each other. Both rules are run on every Table \
4 row (the grid above: `t4_*_never`, `incomplete_pairs = \"never\"`). Of the {differ} figures \
(n_match = 1, ≤ 5, ≤ 10) where the two rules give different counts, the stated steps are nearer \
Mulder's value in {}, the printed table's rule in {}, and {} tie. The records with n_match = 1 \
where the rules differ:\n\n| row | published | stated steps (`t4_*`) | printed Table 2's rule (`t4_*_never`) |\n|---|---|---|---|\n{rows}\n",
        closer[0], closer[1], closer[2]
    )
}

/// The heaping test: Table 3 rows 4 and 11 and Table 4 row 11 with every income rounded.
fn mulder_rounding(results: &[SettingResult]) -> String {
    let settings = [
        "none",
        "income rounded (base=10)",
        "income rounded (base=50)",
        "income rounded (base=100)",
    ];
    let figs: [(&str, &str, f64); 9] = [
        ("risk.t3_inc.sample_uniques", "T3 row 4 k = 1", 856.0),
        ("risk.t3_inc.classes_k_le_5", "T3 row 4 classes ≤ 5", 1431.0),
        (
            "risk.t3_inc.classes_k_le_10",
            "T3 row 4 classes ≤ 10",
            1506.0,
        ),
        (
            "risk.t3_yob_g_inc.sample_uniques",
            "T3 row 11 k = 1",
            4616.0,
        ),
        (
            "risk.t3_yob_g_inc.classes_k_le_5",
            "T3 row 11 classes ≤ 5",
            5813.0,
        ),
        (
            "risk.t3_yob_g_inc.classes_k_le_10",
            "T3 row 11 classes ≤ 10",
            5860.0,
        ),
        ("risk.t4_yob_g_inc.n_match_1", "T4 row 11 n_match = 1", 49.0),
        (
            "risk.t4_yob_g_inc.n_match_le_5",
            "T4 row 11 n_match ≤ 5",
            307.0,
        ),
        (
            "risk.t4_yob_g_inc.n_match_le_10",
            "T4 row 11 n_match ≤ 10",
            1393.0,
        ),
    ];
    let mut t = format!(
        "**Heaped incomes (run `mulder-liss/income rounded`).** Every reported income rounded to 10, 50 or 100 euro, against the look-alike's own incomes and Mulder's:\n\n| figure | published | {} |\n|---|---|{}\n",
        settings.join(" | "),
        "---|".repeat(settings.len())
    );
    for (m, label, published) in figs {
        t.push_str(&format!("| {label} | {} |", fmt(published)));
        for s in settings {
            t.push_str(&format!(" {} |", num(get(results, s, m))));
        }
        t.push('\n');
    }
    t.push('\n');
    t.push_str(ROUNDING_TEXT);
    t
}

/// Rows (measure, label) of a variant's comparison.
type Rows = &'static [(&'static str, &'static str)];

const SKIPS_ROWS: Rows = &[
    ("t3_yob_g_occ_prof_edu", "T3 row 19"),
    ("t3_yob_g_occ_prof_edu_incc", "T3 row 20"),
    ("t3_yob_g_orig_ch_sm", "T3 row 21"),
    ("t3_yob_g_orig_ch_sm_lang", "T3 row 22"),
    ("t4_yob_g_occ_prof_edu", "T4 row 29"),
    ("t4_yob_g_occ_prof_edu_incc", "T4 row 30"),
    ("t4_yob_mob_g_occ_prof_edu", "T4 row 33"),
    ("t4_yob_mob_g_occ_prof_edu_incc", "T4 row 34"),
];

const LANGUAGE_ROWS: Rows = &[
    ("t3_lang", "T3 row 8"),
    ("t3_yob_g_lang", "T3 row 15"),
    ("t3_yob_g_orig_ch_sm_lang", "T3 row 22"),
    ("t4_yob_g_lang", "T4 row 15"),
    ("t4_yob_mob_g_lang", "T4 row 25"),
    ("t4_yob_g_orig_ch_sm_lang", "T4 row 32"),
    ("t4_yob_mob_g_orig_ch_sm_lang", "T4 row 36"),
];

/// A variant's key rows beside section 2's (`mulder-liss`, the default look-alike) and Mulder's.
fn mulder_variant(
    exp: &Experiment,
    results: &[SettingResult],
    base: &[SettingResult],
    rows: Rows,
    text: &str,
) -> String {
    let mut t = String::from(
        "**Key rows: the default look-alike (section 2), this one, and Mulder's.**\n\n| row | figure | published | section 2 | this look-alike |\n|---|---|---|---|---|\n",
    );
    for (measure, label) in rows {
        let figs: &[&str] = if measure.starts_with("t3_") {
            &[
                "n_deleted",
                "sample_uniques",
                "classes_k_le_5",
                "classes_k_le_10",
            ]
        } else {
            &["n_match_1", "n_match_le_5", "n_match_le_10"]
        };
        for f in figs {
            let metric = format!("risk.{measure}.{f}");
            let Some(p) = exp
                .published
                .iter()
                .find(|p| p.setting == "none" && p.metric == metric)
            else {
                continue;
            };
            t.push_str(&format!(
                "| {label} | {f} | {} | {} | {} |\n",
                fmt(p.value),
                num(get(base, "none", &metric)),
                num(get(results, "none", &metric))
            ));
        }
    }
    t.push('\n');
    t.push_str(text);
    t
}

/// Bender's published figures against each scaling of the same 14 variables.
fn bender_scaling(results: &[SettingResult]) -> String {
    let r = |m: &str| get(results, "none", m);
    let rows: [(&str, &str, &str, Option<&str>); 4] = [
        (
            "raw (earnings in DM, codes)",
            "distance-twins",
            "distance-file",
            Some("kmeans-raw"),
        ),
        (
            "z-scored",
            "distance-z-twins",
            "distance-z-file",
            Some("kmeans"),
        ),
        (
            "z-scored, earnings in 7 classes",
            "distance-class-twins",
            "distance-class-file",
            None,
        ),
        (
            "raw, three-digit occupation codes",
            "distance-rawcode-twins",
            "distance-rawcode-file",
            None,
        ),
    ];
    let mut t = String::from(
        "**One scaling for every published figure?** The distance criterion and k-means on the same 14 variables, per scaling (runs `bender-iab:distance-twins`, `bender-iab:distance-file`, `bender-iab:distance-z-twins`, `bender-iab:distance-z-file`, `bender-iab:distance-class-twins`, `bender-iab:distance-class-file`, `bender-iab:distance-rawcode-twins`, `bender-iab:distance-rawcode-file`, `bender-iab:kmeans`, `bender-iab:kmeans-raw`):\n\n| scaling | twins only: twin nearest | twins only: one or two closer | whole file: twin nearest | k-means: twin in own cluster | k-means: twin nearest to centre |\n|---|---|---|---|---|---|\n| (published) | about 10% | nearly none | under 0.5% | 37.7% | 9.2% |\n",
    );
    for (label, twins, file, km) in rows {
        t.push_str(&format!(
            "| {label} | {} | {} | {} | {} | {} |\n",
            pct(r(&format!("{twins}.correct_match_rate"))),
            pct(r(&format!("{twins}.rank_2_3_rate"))),
            pct(r(&format!("{file}.correct_match_rate"))),
            km.map_or("–".into(), |k| pct(r(&format!("{k}.in_candidates_rate")))),
            km.map_or("–".into(), |k| pct(r(&format!("{k}.correct_match_rate")))),
        ));
    }
    t.push('\n');
    t.push_str(BENDER_TEXT);
    t
}

/// mitra.md.
pub fn mitra(
    exp: &Experiment,
    seeds: &str,
    runs: usize,
    study: &str,
    raw: &Value,
    wide: &Value,
) -> String {
    let grid_row = |g: &Value| {
        format!(
            "| {} | {} | {:.1} | {:.1} | {:.1} |\n",
            g["min_leaf"],
            g["donors"].as_str().unwrap_or(""),
            table1_mean(&g["rows"], "synth", "scenario 1"),
            table1_mean(&g["rows"], "synth", "scenario 2"),
            table1_mean(&g["rows"], "synth", "links"),
        )
    };
    let mut leaf = String::from(
        "| minimum leaf | donors | scenario 1 | scenario 2 | links |\n|---|---|---|---|---|\n| (published) | | 4 | 55 | 56 |\n",
    );
    for g in raw["synthesis_grid"].as_array().into_iter().flatten() {
        leaf.push_str(&grid_row(g));
    }
    let base_a = |r: &Value, sc: &str| {
        r["baseline"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|b| b["scenario"] == sc)
            .and_then(|b| b["A"].as_f64())
            .map_or("–".into(), fmt)
    };
    let mut wealth = String::from(
        "| wave-2 wealth change s.d. (not split / split) | baseline A, scenarios 1 / 2 | minimum leaf | donors | scenario 1 | scenario 2 | links |\n|---|---|---|---|---|---|---|\n| (published) | 130 / 897 | | | 4 | 55 | 56 |\n",
    );
    for (r, label) in [(raw, "0.15 / 0.35 (default)"), (wide, "0.5 / 0.75")] {
        for g in r["synthesis_grid"].as_array().into_iter().flatten() {
            if !(g["min_leaf"] == 5 || g["min_leaf"] == 100) || g["donors"] != "leaf" {
                continue;
            }
            wealth.push_str(&format!(
                "| {label} | {} / {} {}",
                base_a(r, "scenario 1"),
                base_a(r, "scenario 2"),
                grid_row(g)
            ));
        }
    }
    format!(
        "{MITRA_HEAD}\n*Experiment file:* `experiments/{}.toml`, seed {}, protection seeds {seeds}; {runs} runs of the defence grid beside the study.\n\n{study}\n\n## Table 1's synthesis against the CART leaf size and donor pool\n\n{MITRA_LEAF_INTRO}\n{leaf}\n{MITRA_WEALTH_INTRO}\n{wealth}\n{}",
        exp.name,
        exp.seed,
        mitra_differences(raw, wide)
    )
}

/// Table 1's A of the synthesis-grid cell (`min_leaf`, `donors`) of a stored study, as
/// "scenario 1 / scenario 2 / links" rounded to whole records.
fn grid_a(raw: &Value, min_leaf: u64, donors: &str) -> String {
    raw["synthesis_grid"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|g| g["min_leaf"] == min_leaf && g["donors"] == donors)
        .map_or("–".into(), |g| {
            ["scenario 1", "scenario 2", "links"]
                .map(|sc| format!("{:.0}", table1_mean(&g["rows"], "synth", sc)))
                .join(" / ")
        })
}

/// Table 1's A of a method in the study's own run, "scenario 1 / scenario 2 / links".
fn table1_a(raw: &Value, method: &str) -> String {
    ["scenario 1", "scenario 2", "links"]
        .map(|sc| format!("{:.0}", table1_mean(&raw["rows"], method, sc)))
        .join(" / ")
}

/// mitra.md's account of the differences, its figures read from the stored studies.
fn mitra_differences(raw: &Value, wide: &Value) -> String {
    format!(
        r#"## Differences from the paper

- **Baseline and swapping** agree closely (c_i = 1 / c_i ≤ 2 / A above; Table 1's swapping
  {} against 6 / 31 / 40).
- **Synthesis (Table 1) leaves far more risk than published, and no run here explains it.** At
  the setting closest to what Mitra et al. describe — Reiter's CART synthesis, whose code they
  used, drawing from the household's whole leaf with its own value among the donors, minimum
  leaf 5 (they state no leaf size) — A is {} against 4 / 55 / 56 (scenario 1 / scenario 2 /
  links). What was tried, in run `mitra-longitudinal` (its synthesis grid) and run
  `mitra-wide-wealth`:
  1. *Larger leaves*: A falls with the leaf size, to {} at a minimum leaf of 2,000.
  2. *The household's own value left out* of its leaf's donors: {} at leaf 5, {} at leaf 50
     (with it: {}).
  3. *A Bayesian bootstrap of the leaf* (another reading of Reiter's draw) at leaf 100: {},
     against {} for a plain draw.
  4. *Wave-2 wealth following wave 1 less closely* (wealth-change s.d. 0.5 / 0.75 instead of
     0.15 / 0.35; the WAS publishes no such spread): {} at leaf 100, {} at leaf 5.
  Only a combination of two settings Mitra et al. never state — leaves of 100 or more and a
  wave-to-wave wealth spread about three times the look-alike's — comes to the order of the
  published figures. That is a fit, not an explanation: the gap is not explained. (Reiter's
  trees may also have stopped splitting earlier than a minimum leaf alone makes them, e.g. by
  a deviance threshold; the toolkit's tree has none, so that is not tested.)
- **Targeted swapping in scenario 1 is not monotone in rho** (Fig. 4): not explained by a run
  here. Partners come from the unselected split households, so a swapped-in value can itself
  fall within 5% for another intruder; a possible cause, not tested.
- Non-unique links are included (the generator's calibration counts all 1,486 records); the
  paper's main analysis keeps the 87.7% unique ones (`exclude_nonunique = true` in the
  experiment file does that).
"#,
        table1_a(raw, "swap"),
        grid_a(raw, 5, "leaf"),
        grid_a(raw, 2000, "leaf"),
        grid_a(raw, 5, "leaf-without-self"),
        grid_a(raw, 50, "leaf-without-self"),
        grid_a(raw, 50, "leaf"),
        grid_a(raw, 100, "leaf-bootstrap"),
        grid_a(raw, 100, "leaf"),
        grid_a(wide, 100, "leaf"),
        grid_a(wide, 5, "leaf"),
    )
}

pub const HEAD: &str = r#"# intruder: simulating data intruders against masked microdata

*Generated by `cargo run --release -p intruder-runner --example paper` (all of `paper/`: this
file, `mitra.md`, `values.csv`, the figures and the report screenshots); do not edit by hand —
edit `experiments/*.toml` or `crates/runner/examples/paper/` and regenerate.*

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

Published values come from the source papers (references in each experiment file); the
look-alikes match their published marginals, not their joint distributions, so we expect the
same order of magnitude and the same direction of every effect, not equal numbers. The last
column of the comparison tables says why each figure differs. An explanation is only given as
one when a run could have shown it wrong, and it names that run as `experiment`,
`experiment/setting` (a defence setting) or `experiment:name` (an attack or risk measure), or
the test (as `file.rs::function`); `crates/runner/tests/paper_claims.rs` checks that every run
and test named here exists. A difference no run tests is called untested, and one the runs leave
open, not explained.

"#;

pub const TAIL: &str = r#"## Limitations

The look-alikes are calibrated to published marginals; effects that depend on the real joint
distribution (how rare a combination of occupation and birth year is, how wealth changes when a
household splits) are reproduced in direction, not in size. Mitra's propensity-score swapping
and CART synthesis are reproduced in [`mitra.md`](mitra.md). The Dalenius study uses
N = 1,000,000 in the paper (`--full-census` runs the experiment file's default, 10,000,000).

Every value shown beside a published one is also written to `paper/values.csv`; the test
`crates/runner/tests/paper_values.rs` reruns the studies and fails when one of them moves from
the committed value by more than the tolerance its `[[published]]` entry states.
"#;

const ROUNDING_TEXT: &str = "Rounding lowers both Table 3 rows, but not together to Mulder's counts: row 4 (incomes alone) needs less than rounding every income to 10 euro, row 11 (with year of birth and gender) more than that, so heaping, as modelled here, does not explain the income rows. LISS's incomes may also be tied more closely to age and gender than the look-alike's; no run here tests that. Table 4 row 11's uniques stay at 0 under every rounding (Mulder: 49): not explained.\n\n";

const SKIPS_TEXT: &str = "With the questionnaires skipped together, listwise deletion on Table 3 rows 19-22 comes within 5% of Mulder's counts, where missingness at random deletes far more: the missingness pattern explains the deletions. The uniques and small classes of those rows then rise past Mulder's, a little on rows 19-20 and far on rows 21-22: there LISS lies between missingness at random and fully nested missingness, and the rest of the difference is not explained. In Table 4 the explanation given before for rows 29-30 and 33 (at random fewer records miss profession and education field together, so more stay unique) is refuted: with the two missing together, the records with n_match = 1 become more, not fewer. In the look-alike only people in work have a profession, and occupation tells who works, so nested missingness leaves the workers complete and matching only one another; that is a possible cause of the rise, not tested.\n\n";

const LANGUAGES_TEXT: &str = "The scale (0.25) was chosen on Table 3 row 8 alone, as the experiment file records: of the scales tried (1, 0.5, 0.35, 0.3, 0.25, 0.2, 0.15) its counts are nearest Mulder's 7 / 19 / 23. The other rows test the explanation. Table 3 row 15 (year of birth, gender and languages) falls from well above Mulder's counts to below them, so the rare answer patterns account for its excess, and somewhat more; the Table 4 rows with month of birth or several other keys (25, 32, 36) come nearer Mulder's. Table 4 row 15 moves away from his (fewer records with n_match <= 5 / <= 10, where he has more) and Table 3 row 22 falls further below his: not explained.\n\n";

const MITRA_WAS: &str = "**What this section is.** Not Mitra's design: it reverses it — the intruder holds the wave-2 keys of a split household and searches every wave-1 household — and sets that attack against the toolkit's generic defences (additive noise and rank swapping on wealth), so none of its counts is set beside Mitra's published ones. Mitra's own study — the departed member finding the household in the last wave, scenarios 1 and 2 and the released links, propensity-score swapping, CART synthesis, their mixtures, Table 1 and the utility comparison — is reproduced in [`mitra.md`](mitra.md).\n\n";

const BENDER_TEXT: &str = "No scaling fits every published figure. Raw values fit the twins-only rate (about 10%) but put about as many twins at rank 2 or 3, where Bender et al. found nearly none, and leave the whole-file rate several times above theirs; z-scored values fit k-means' own-cluster share (37.7%) but make the twins-only and whole-file rates several times too high. In the toolkit the nearest register record to a k-means centre is the whole-file distance criterion on k-means' scaling (equal in every replicate: runs `bender-iab:kmeans` and `bender-iab:distance-z-file`, `bender-iab:kmeans-raw` and `bender-iab:distance-file`), so Bender's 9.2% (k-means) and under 0.5% (distance criterion) cannot both come from one scaling of these variables: their two analyses presumably measured distance differently, which the paper does not describe. The scaling is therefore not the explanation of the distance-criterion figures it was given as before, and the differences are not explained.\n\n";

const MITRA_HEAD: &str = r#"# Mitra et al. (2020) on the household-panel look-alike

*Generated by `cargo run --release -p intruder-runner --example paper` (with the rest of
`paper/`); do not edit by hand — edit `experiments/mitra-longitudinal.toml`,
`experiments/mitra-wide-wealth.toml` or `crates/runner/examples/paper/` and regenerate.*

Inter-wave attack on split households and its defences (propensity-score swapping, CART
synthesis), reproduced with `intruder-longitudinal` through the runner on the
`household-panel` look-alike (data seed 1). Settings: candidate pool = wave-2 split records;
tolerance 5%; propensity covariates = the scenario-2 keys + asinh(wealth) of both waves
(`linfa-logistic`, no penalty); within-split partners matched on the propensity of being
selected (Z*); CART minimum leaf 5 (smartcore), a synthesised value drawn from the household's
whole leaf, its own value included (Reiter 2005, whose code Mitra et al. used; Mitra et al. do
not state a leaf size and say changing it "is not explored here"); Table 1 in random order.
Cells are means over the protection seeds with their 95% t-intervals.
"#;

const MITRA_LEAF_INTRO: &str = r#"Every split household synthesised (Table 1), A per scenario, mean over the
protection seeds, for CART minimum leaves of 5 to 2,000 and three donor pools: the whole leaf
(the default, Reiter 2005), the leaf without the household itself, or a Bayesian bootstrap of
the leaf (Dirichlet weights drawn once per leaf, the household's own value included). The grid
is the experiment file's `[[longitudinal.synthesis_grid]]`, run with the study (run
`mitra-longitudinal`; its stored result holds every cell's rows, and `values.csv` their means).
"#;

const MITRA_WEALTH_INTRO: &str = r#"### How closely wave-2 wealth follows wave 1

The look-alike draws a household's wave-2 wealth as its wave-1 wealth × exp(0.03 + s·z) when it
did not split and × exp(−0.25 + s'·z) when it split, with s = 0.15 and s' = 0.35 by default
(`wealth_change`, `split_wealth_change`; not calibrated to the WAS, which publishes no such
figure). The tree's leaves group households of similar wave-1 wealth, so the narrower these
changes, the more often a donor's wave-2 value falls within 5% of the split household's. Run
`mitra-wide-wealth` draws the look-alike with s = 0.5 and s' = 0.75 (baseline and Table 1
only). Baseline A is not a calibration target of the look-alike: it follows from its wealth
model.
"#;
