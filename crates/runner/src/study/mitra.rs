//! Mitra et al.'s inter-wave study (crate `intruder-longitudinal`, [`run_study`]) on the panel
//! waves the experiment's data step wrote — baseline risks, Fig. 4 (propensity-score swapping,
//! targeted vs random), Fig. 5 (CART synthesis), Fig. 6 (mixtures), Table 1 (every split
//! household altered) and the utility comparison (Fig. 7). Declared by `[longitudinal] study =
//! "mitra"`; its tables are computed from the stored raw [`intruder_longitudinal::StudyResult`].

use std::path::Path;

use intruder_longitudinal::{Donors, NonUnique, Panel, PanelSpec, StudyParams, run_study};
use serde::Serialize;
use serde_json::{Value, json};
use toml::Table;

use super::{Study, StudyEntry, StudyPlot};
use crate::RunnerError;
use crate::reader::{Problems, Section, describe};
use crate::stats::{Stat, cell, fmt};
use crate::table::TableData;

/// The registry entry.
pub(crate) const ENTRY: StudyEntry = StudyEntry {
    name: "mitra",
    summary: "the inter-wave attack on split households and its defences: baseline, Figs. 4-6 (swapping, synthesis, mixtures, targeted vs random), Table 1, utility (Fig. 7)",
    reference: "Mitra, Blanchard, Dove, Tudor & Spicer (2020), Confidentiality challenges in releasing longitudinal data, §3 and Table 1",
    parse: |t, p| parse(t, p).map(|s| Box::new(s) as Box<dyn Study>),
};

/// Baseline figures a published value may be given for.
const BASELINE_FIGURES: &[&str] = &[
    "found",
    "unique_correct",
    "le2_correct",
    "expected_correct",
    "A",
];

/// Methods of Table 1.
const TABLE1_METHODS: &[&str] = &["swap", "synth"];

/// Published values of the longitudinal study, shown beside ours.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct LongitudinalPublished {
    /// Where they were published.
    pub source: String,
    /// Baseline figures: (figure, scenario, value), e.g. (`unique_correct`, `scenario 1`, 56).
    pub baseline: Vec<(String, String, f64)>,
    /// Table 1: (method, scenario, value), e.g. (`swap`, `links`, 40).
    pub table1: Vec<(String, String, f64)>,
}

impl LongitudinalPublished {
    fn get(list: &[(String, String, f64)], a: &str, scenario: &str) -> Option<f64> {
        list.iter()
            .find(|(x, s, _)| x == a && s == scenario)
            .map(|t| t.2)
    }
}

/// The resolved `[longitudinal]` section.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LongitudinalSpec {
    /// The study (`mitra`).
    pub study: String,
    /// The last wave `T`.
    pub wave: usize,
    /// The wave files `1..=T` in the data directory (default `household-wave<w>.csv`).
    pub waves: Vec<String>,
    /// The true household id linking the waves (role truth or not).
    pub link: String,
    /// The released link id followed by the link attack (`None`: no link attack).
    pub released_link: Option<String>,
    /// The split indicator of the last wave (`None`: repeated links only).
    pub split: Option<String>,
    /// The sensitive numeric variable.
    pub sensitive: String,
    /// Leave out last-wave records sharing their link with another.
    pub exclude_nonunique: bool,
    /// The study's parameters ([`StudyParams::mitra`] with the section's overrides).
    pub params: StudyParams,
    /// Further runs of Table 1's synthesis (every split household synthesised), one per CART
    /// minimum leaf and donor pool, on the same panel and seeds (`[[longitudinal.synthesis_grid]]`;
    /// empty: none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub synthesis_grid: Vec<SynthesisCell>,
    /// Published values (report only; not part of the stored result's id).
    pub published: LongitudinalPublished,
}

/// One setting of the synthesis grid: the CART minimum leaf and the donor pool.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SynthesisCell {
    /// Minimum leaf size of the tree.
    pub min_leaf: usize,
    /// Donor pool of a synthesised value.
    pub donors: Donors,
}

/// `[[longitudinal.synthesis_grid]]`: each entry a list of minimum leaves and a list of donor
/// pools, every combination one setting (in the order written, leaves first).
fn parse_grid(tables: &[&Table], p: &mut Problems) -> Vec<SynthesisCell> {
    let mut out = Vec::new();
    for (i, t) in tables.iter().enumerate() {
        let mut s = Section::new(t, format!("longitudinal.synthesis_grid[{}]", i + 1));
        let leaves = s.uints(p, "min_leaf");
        let donors = s.strings(p, "donors");
        if !t.contains_key("min_leaf") {
            p.push(
                &s.key("min_leaf"),
                "is required: the CART minimum leaf sizes",
            );
        }
        if leaves.iter().flatten().any(|x| *x == 0) {
            p.push(&s.key("min_leaf"), "expected leaf sizes of at least 1");
        }
        let donors: Vec<Donors> = donors
            .unwrap_or_else(|| vec!["leaf".into()])
            .iter()
            .filter_map(|d| match serde_json::from_value(json!(d)) {
                Ok(v) => Some(v),
                Err(_) => {
                    p.push(
                        &s.key("donors"),
                        format!(
                            "unknown donor pool '{d}'; expected leaf, leaf-without-self or leaf-bootstrap"
                        ),
                    );
                    None
                }
            })
            .collect();
        s.finish(p);
        for &leaf in leaves.iter().flatten().filter(|x| **x > 0) {
            for &d in &donors {
                out.push(SynthesisCell {
                    min_leaf: leaf as usize,
                    donors: d,
                });
            }
        }
    }
    out
}

fn in_rho(r: f64) -> bool {
    r > 0.0 && r <= 0.5
}

/// Reads and validates `[longitudinal]`, recording every problem with its key path.
fn parse(t: &Table, p: &mut Problems) -> Option<LongitudinalSpec> {
    let mut s = Section::new(t, "longitudinal");
    // The registry has checked `study`.
    let study = s.string(p, "study");
    let wave = s.uint(p, "wave").unwrap_or(2);
    let wave_ok = (2..=100).contains(&wave);
    if !wave_ok {
        p.push(
            &s.key("wave"),
            format!("expected the last wave T in 2..=100, found {wave}"),
        );
    }
    let wave = wave as usize;
    let waves = s.strings(p, "waves");
    if let Some(w) = &waves
        && wave_ok
        && w.len() != wave
    {
        p.push(
            &s.key("waves"),
            format!(
                "list one file per wave 1..=T (T = {wave}), found {} file(s)",
                w.len()
            ),
        );
    }
    let seeds = s.uints(p, "seeds");
    match &seeds {
        None if !t.contains_key("seeds") => p.push(
            &s.key("seeds"),
            "is required: the protection seeds, e.g. [1, 2, 3, 4, 5]",
        ),
        Some(v) if v.is_empty() => p.push(&s.key("seeds"), "list at least one seed"),
        _ => {}
    }
    let link = s.string(p, "link").unwrap_or_else(|| "household_id".into());
    let released_link = s
        .string(p, "released_link")
        .unwrap_or_else(|| "link_id".into());
    let split = s.string(p, "split").unwrap_or_else(|| "split".into());
    let sensitive = s
        .string(p, "sensitive")
        .unwrap_or_else(|| "total_wealth".into());
    let exclude_nonunique = s.boolean(p, "exclude_nonunique").unwrap_or(false);
    let mut params = StudyParams::mitra(wave.max(2), seeds.clone().unwrap_or_default());
    if let Some(r) = s.numbers(p, "rhos") {
        if r.is_empty() {
            p.push(&s.key("rhos"), "list at least one proportion");
        }
        for x in r.iter().filter(|x| !in_rho(**x)) {
            p.push(
                &s.key("rhos"),
                format!("{x} is not a proportion in (0, 0.5]"),
            );
        }
        params.rhos = r;
    }
    if let Some(v) = s.numbers(p, "shares") {
        for x in v.iter().filter(|x| !(0.0..=1.0).contains(*x)) {
            p.push(&s.key("shares"), format!("{x} is not a share in [0, 1]"));
        }
        params.shares = v;
    }
    if let Some(x) = s.number(p, "tolerance") {
        if x > 0.0 {
            params.tolerance = x;
        } else {
            p.push(&s.key("tolerance"), format!("expected > 0, found {x}"));
        }
    }
    if let Some(x) = s.uint(p, "min_leaf") {
        if x >= 1 {
            params.min_leaf = x as usize;
        } else {
            p.push(&s.key("min_leaf"), "expected at least 1");
        }
    }
    if let Some(x) = s.string(p, "donors") {
        match serde_json::from_value(json!(x)) {
            Ok(v) => params.donors = v,
            Err(_) => p.push(
                &s.key("donors"),
                format!(
                    "unknown donor pool '{x}'; expected leaf, leaf-without-self or leaf-bootstrap"
                ),
            ),
        }
    }
    if let Some(x) = s.string(p, "partner_score") {
        match serde_json::from_value(json!(x)) {
            Ok(v) => params.partner_score = v,
            Err(_) => p.push(
                &s.key("partner_score"),
                format!("unknown score '{x}'; expected selection or split"),
            ),
        }
    }
    if let Some(x) = s.string(p, "pool") {
        match serde_json::from_value(json!(x)) {
            Ok(v) => params.pool = v,
            Err(_) => p.push(
                &s.key("pool"),
                format!("unknown pool '{x}'; expected split or all"),
            ),
        }
    }
    if !s.boolean(p, "utility").unwrap_or(true) {
        params.utility = None;
    }
    let released_link = (!released_link.is_empty()).then_some(released_link);
    let mut names: Vec<String> = params.scenarios.iter().map(|x| x.name.clone()).collect();
    if released_link.is_some() {
        names.push("links".into());
    }
    let published = match s.table(p, "published") {
        Some(pt) => parse_published(pt, &names, p),
        None => LongitudinalPublished::default(),
    };
    let grid_tables = s.tables(p, "synthesis_grid");
    let synthesis_grid = parse_grid(&grid_tables, p);
    s.finish(p);
    Some(LongitudinalSpec {
        study: study?,
        wave,
        waves: waves.unwrap_or_else(|| {
            (1..=wave)
                .map(|w| format!("household-wave{w}.csv"))
                .collect()
        }),
        link,
        released_link,
        split: (split != "none").then_some(split),
        sensitive,
        exclude_nonunique,
        params,
        synthesis_grid,
        published,
    })
}

/// `[longitudinal.published]`: `source`, `baseline.<figure>.<scenario>`,
/// `table1.<method>.<scenario>`.
fn parse_published(t: &Table, scenarios: &[String], p: &mut Problems) -> LongitudinalPublished {
    let mut s = Section::new(t, "longitudinal.published");
    let source = s.string(p, "source").unwrap_or_default();
    let mut out = LongitudinalPublished {
        source,
        ..Default::default()
    };
    for (part, allowed) in [("baseline", BASELINE_FIGURES), ("table1", TABLE1_METHODS)] {
        let Some(pt) = s.table(p, part) else { continue };
        for (k, v) in pt {
            let loc = format!("longitudinal.published.{part}.{k}");
            if !allowed.contains(&k.as_str()) {
                p.push(
                    &loc,
                    format!("unknown key; valid keys here: {}", allowed.join(", ")),
                );
                continue;
            }
            let Some(m) = v.as_table() else {
                p.push(
                    &loc,
                    format!(
                        "expected a table of scenario = number, found {}",
                        describe(v)
                    ),
                );
                continue;
            };
            for (sc, x) in m {
                let loc = format!("{loc}.{sc}");
                if !scenarios.contains(sc) {
                    p.push(
                        &loc,
                        format!(
                            "unknown scenario; the study's are: {}",
                            scenarios.join(", ")
                        ),
                    );
                    continue;
                }
                let val = match x {
                    toml::Value::Integer(i) => *i as f64,
                    toml::Value::Float(f) if f.is_finite() => *f,
                    other => {
                        p.push(
                            &loc,
                            format!("expected a number, found {}", describe(other)),
                        );
                        continue;
                    }
                };
                let entry = (k.clone(), sc.clone(), val);
                if part == "baseline" {
                    out.baseline.push(entry);
                } else {
                    out.table1.push(entry);
                }
            }
        }
    }
    s.finish(p);
    out
}

/// The plan's lines for `--dry-run`.
fn describe_study(l: &LongitudinalSpec) -> String {
    let p = &l.params;
    let per_seed = p.scenarios.len() * p.rhos.len() * (4 + p.shares.len()) + 2;
    let list = |v: &[f64]| {
        v.iter()
            .map(|x| format!("{x:.2}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let grid = if l.synthesis_grid.is_empty() {
        String::new()
    } else {
        format!(
            "  synthesis grid (Table 1's synthesis): {}\n",
            l.synthesis_grid
                .iter()
                .map(|c| format!("min leaf {} {}", c.min_leaf, c.donors.as_str()))
                .collect::<Vec<_>>()
                .join("; ")
        )
    };
    format!(
        "longitudinal: study {} on waves {} (T = {}), link {}, released link {}, split {}, sensitive {}\n  scenarios: {}\n  rho {}; mixture swap shares {}; seeds {}; tolerance {}; min leaf {}; donors {}; utility {}\n  {} altered releases ({} per seed: Figs. 4-6 and Table 1)\n{grid}",
        l.study,
        l.waves.join(", "),
        l.wave,
        l.link,
        l.released_link.as_deref().unwrap_or("none"),
        l.split.as_deref().unwrap_or("none"),
        l.sensitive,
        p.scenarios
            .iter()
            .map(|s| format!(
                "{} ({})",
                s.name,
                s.keys
                    .iter()
                    .map(|k| format!("{}@{}", k.column, k.wave))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .collect::<Vec<_>>()
            .join("; "),
        list(&p.rhos),
        if p.shares.is_empty() {
            "none".to_string()
        } else {
            list(&p.shares)
        },
        p.seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        p.tolerance,
        p.min_leaf,
        p.donors.as_str(),
        if p.utility.is_some() { "on" } else { "off" },
        per_seed * p.seeds.len(),
        per_seed,
    )
}

fn close(a: Option<f64>, b: Option<f64>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => (a - b).abs() < 1e-9,
        _ => false,
    }
}

/// The values of `A` over seeds of the rows matching the filter.
fn a_values(rows: &[Value], f: impl Fn(&Value) -> bool) -> Vec<f64> {
    rows.iter()
        .filter(|r| f(r))
        .filter_map(|r| r["A"].as_f64())
        .collect()
}

/// Mean [95% interval] over seeds, the interval clipped to the figure's range (counts ≥ 0,
/// overlaps in [0, 1]).
fn stat_cell(v: Vec<f64>, range: (f64, f64)) -> String {
    if v.is_empty() {
        return "–".into();
    }
    cell(Some(&Stat::new(v).clipped(range.0, range.1)))
}

const COUNT: (f64, f64) = (0.0, f64::INFINITY);
const SHARE: (f64, f64) = (0.0, 1.0);

/// The study's tables from its stored result: the panel, the baseline (with published values),
/// Fig. 4, Fig. 5, Fig. 6, Table 1 (with published values) and the utility comparison. Cells
/// are the mean over seeds with its 95% t-interval in brackets when there are several seeds.
fn longitudinal_tables(l: &LongitudinalSpec, r: &Value) -> Vec<TableData> {
    let seeds = l.params.seeds.len();
    let t = StudyTables {
        l,
        r,
        rows: r["rows"].as_array().map_or(&[][..], Vec::as_slice),
        over: if seeds > 1 {
            format!("mean over {seeds} seeds [95% interval]")
        } else {
            "one seed".to_string()
        },
    };
    let mut out = Vec::new();
    out.extend(t.panel());
    out.push(t.baseline());
    let scenarios = t.scenarios();
    let study_scen: Vec<&String> = scenarios
        .iter()
        .filter(|s| l.params.scenarios.iter().any(|x| &x.name == *s))
        .collect();
    for (fig, what) in [
        ("fig4", "Fig. 4: propensity-score swapping"),
        ("fig5", "Fig. 5: CART synthesis"),
    ] {
        out.push(t.by_rho(fig, what, &study_scen));
    }
    out.extend(t.mixtures(&study_scen));
    let t1_scen = t.table1_scenarios(&scenarios);
    out.push(t.table1(&t1_scen));
    out.extend(t.synthesis_grid(&t1_scen));
    out.extend(t.utility());
    out
}

/// What every table of the study is computed from: the spec, the stored result, its rows and
/// the cells' description (one seed, or the mean over several).
struct StudyTables<'a> {
    /// The study's spec.
    l: &'a LongitudinalSpec,
    /// The stored raw result.
    r: &'a Value,
    /// The result's rows (one per figure, scenario, setting and seed).
    rows: &'a [Value],
    /// What a cell shows ("one seed" or "mean over n seeds [95% interval]").
    over: String,
}

/// A baseline figure's column name.
fn baseline_label(f: &str) -> &str {
    match f {
        "unique_correct" => "c_i = 1",
        "le2_correct" => "c_i ≤ 2",
        "expected_correct" => "Σ 1/c_i",
        other => other,
    }
}

impl StudyTables<'_> {
    /// The panel's figures, when the result has them.
    fn panel(&self) -> Option<TableData> {
        let o = self.r["panel"].as_object()?;
        let mut t = TableData {
            title: format!("Longitudinal panel ({})", self.l.waves.join(", ")),
            header: vec!["figure".into(), "value".into()],
            rows: Vec::new(),
        };
        for (k, v) in o {
            if let Some(x) = v.as_f64() {
                t.rows.push(vec![k.replace('_', " "), fmt(x)]);
            }
        }
        Some(t)
    }

    /// The baseline: the inter-wave attack on the original last wave, with the published
    /// values beside it.
    fn baseline(&self) -> TableData {
        let l = self.l;
        let pb = &l.published.baseline;
        let pub_figs: Vec<&str> = BASELINE_FIGURES
            .iter()
            .copied()
            .filter(|f| pb.iter().any(|(x, _, _)| x == f))
            .collect();
        let mut header: Vec<String> = [
            "attack",
            "mode",
            "targets",
            "found",
            "c_i = 1",
            "c_i ≤ 2",
            "Σ 1/c_i",
            "A",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        for f in &pub_figs {
            header.push(format!("{} (published)", baseline_label(f)));
        }
        let mut t = TableData {
            title: format!(
                "Longitudinal baseline: the inter-wave attack on the original last wave{}",
                if l.published.source.is_empty() || pub_figs.is_empty() {
                    String::new()
                } else {
                    format!("; published: {}", l.published.source)
                }
            ),
            header,
            rows: Vec::new(),
        };
        for b in self.r["baseline"].as_array().into_iter().flatten() {
            let sc = b["scenario"].as_str().unwrap_or("");
            let num = |k: &str| b[k].as_f64().map_or("–".into(), fmt);
            let mut row = vec![
                sc.to_string(),
                b["mode"].as_str().unwrap_or("").to_string(),
                num("targets"),
                num("found"),
                num("unique_correct"),
                num("le2_correct"),
                num("expected_correct"),
                num("A"),
            ];
            for f in &pub_figs {
                row.push(LongitudinalPublished::get(pb, f, sc).map_or("–".into(), fmt));
            }
            t.rows.push(row);
        }
        t
    }

    /// The scenarios in the order of the rows.
    fn scenarios(&self) -> Vec<String> {
        let mut scenarios: Vec<String> = Vec::new();
        for x in self.rows {
            if let Some(s) = x["scenario"].as_str()
                && !scenarios.iter().any(|y| y == s)
            {
                scenarios.push(s.to_string());
            }
        }
        scenarios
    }

    /// Fig. 4 or 5 (`fig`, titled `what`): A by proportion altered ρ, targeted and random, per
    /// scenario.
    fn by_rho(&self, fig: &str, what: &str, study_scen: &[&String]) -> TableData {
        let mut header = vec!["ρ".to_string()];
        for s in study_scen {
            for sel in ["targeted", "random"] {
                header.push(format!("{s} {sel}"));
            }
        }
        let mut t = TableData {
            title: format!(
                "{what}, attribute disclosure A by proportion altered ρ ({})",
                self.over
            ),
            header,
            rows: Vec::new(),
        };
        for &rho in &self.l.params.rhos {
            let mut row = vec![format!("{rho:.2}")];
            for s in study_scen {
                for sel in ["targeted", "random"] {
                    row.push(stat_cell(
                        a_values(self.rows, |x| {
                            x["figure"] == fig
                                && x["scenario"] == s.as_str()
                                && x["selection"] == sel
                                && close(x["rho"].as_f64(), Some(rho))
                        }),
                        COUNT,
                    ));
                }
            }
            t.rows.push(row);
        }
        t
    }

    /// Fig. 6: mixtures of swapping and synthesis, A by ρ and share swapped; `None` without
    /// shares.
    fn mixtures(&self, study_scen: &[&String]) -> Option<TableData> {
        let shares = &self.l.params.shares;
        if shares.is_empty() {
            return None;
        }
        let mut header = vec!["ρ".to_string()];
        for s in study_scen {
            for &sh in shares {
                header.push(format!("{s}, swap share {sh:.2}"));
            }
        }
        let mut t = TableData {
            title: format!(
                "Fig. 6: mixtures of swapping and synthesis (targeted), A by ρ and share swapped ({})",
                self.over
            ),
            header,
            rows: Vec::new(),
        };
        for &rho in &self.l.params.rhos {
            let mut row = vec![format!("{rho:.2}")];
            for s in study_scen {
                for &sh in shares {
                    row.push(stat_cell(
                        a_values(self.rows, |x| {
                            x["figure"] == "fig6"
                                && x["scenario"] == s.as_str()
                                && close(x["rho"].as_f64(), Some(rho))
                                && close(x["swap_share"].as_f64(), Some(sh))
                        }),
                        COUNT,
                    ));
                }
            }
            t.rows.push(row);
        }
        Some(t)
    }

    /// The scenarios that have Table 1 rows, in the order of `scenarios`.
    fn table1_scenarios<'s>(&self, scenarios: &'s [String]) -> Vec<&'s String> {
        scenarios
            .iter()
            .filter(|s| {
                self.rows
                    .iter()
                    .any(|x| x["figure"] == "table1" && x["scenario"] == s.as_str())
            })
            .collect()
    }

    /// Table 1: every split household altered, A per method and scenario, with the published
    /// values beside it.
    fn table1(&self, t1_scen: &[&String]) -> TableData {
        let l = self.l;
        let pt = &l.published.table1;
        let mut header = vec!["method".to_string()];
        for s in t1_scen {
            header.push(s.to_string());
            if pt.iter().any(|(_, x, _)| x == *s) {
                header.push(format!("{s} (published)"));
            }
        }
        let mut t = TableData {
            title: format!(
                "Table 1: every split household altered, A ({}){}",
                self.over,
                if l.published.source.is_empty() || pt.is_empty() {
                    String::new()
                } else {
                    format!("; published: {}", l.published.source)
                }
            ),
            header,
            rows: Vec::new(),
        };
        for (m, name) in [("swap", "swapping"), ("synth", "synthesis")] {
            let mut row = vec![name.to_string()];
            for s in t1_scen {
                row.push(stat_cell(
                    a_values(self.rows, |x| {
                        x["figure"] == "table1" && x["scenario"] == s.as_str() && x["method"] == m
                    }),
                    COUNT,
                ));
                if pt.iter().any(|(_, x, _)| x == *s) {
                    row.push(LongitudinalPublished::get(pt, m, s).map_or("–".into(), fmt));
                }
            }
            t.rows.push(row);
        }
        t
    }

    /// Table 1's synthesis by CART minimum leaf and donor pool; `None` without a synthesis
    /// grid.
    fn synthesis_grid(&self, cols: &[&String]) -> Option<TableData> {
        let grid = self.r["synthesis_grid"]
            .as_array()
            .filter(|g| !g.is_empty())?;
        let pt = &self.l.published.table1;
        let mut header = vec!["minimum leaf".to_string(), "donors".to_string()];
        header.extend(cols.iter().map(|s| s.to_string()));
        let mut t = TableData {
            title: format!(
                "Table 1's synthesis (every split household synthesised) by CART minimum leaf and donor pool, A ({})",
                self.over
            ),
            header,
            rows: Vec::new(),
        };
        if !pt.is_empty() {
            let mut row = vec!["(published)".to_string(), String::new()];
            for s in cols {
                row.push(LongitudinalPublished::get(pt, "synth", s).map_or("–".into(), fmt));
            }
            t.rows.push(row);
        }
        for g in grid {
            let grows = g["rows"].as_array().map_or(&[][..], Vec::as_slice);
            let mut row = vec![
                g["min_leaf"].as_u64().map_or("–".into(), |x| x.to_string()),
                g["donors"].as_str().unwrap_or("").to_string(),
            ];
            for s in cols {
                row.push(stat_cell(
                    a_values(grows, |x| x["scenario"] == s.as_str()),
                    COUNT,
                ));
            }
            t.rows.push(row);
        }
        Some(t)
    }

    /// The utility comparison (Fig. 7): the inheritance model's CI overlap per method; `None`
    /// without utility results.
    fn utility(&self) -> Option<TableData> {
        let util = self.r["utility"].as_array().filter(|u| !u.is_empty())?;
        let mut t = TableData {
            title: format!(
                "Utility (Fig. 7): 95% CI overlap of the inheritance model, original vs altered last wave, every split household altered ({})",
                self.over
            ),
            header: vec![
                "method".into(),
                "mean CI overlap".into(),
                "lowest coefficient overlap".into(),
            ],
            rows: Vec::new(),
        };
        for (m, name) in [("swap", "swapping"), ("synth", "synthesis")] {
            let us: Vec<&Value> = util.iter().filter(|u| u["method"] == m).collect();
            if us.is_empty() {
                continue;
            }
            let mean: Vec<f64> = us
                .iter()
                .filter_map(|u| u["overlap"]["mean_overlap"].as_f64())
                .collect();
            let lowest: Vec<f64> = us
                .iter()
                .filter_map(|u| {
                    u["overlap"]["coefficients"]
                        .as_array()?
                        .iter()
                        .filter_map(|c| c["overlap"].as_f64())
                        .reduce(f64::min)
                })
                .collect();
            t.rows.push(vec![
                name.to_string(),
                stat_cell(mean, SHARE),
                stat_cell(lowest, SHARE),
            ]);
        }
        Some(t)
    }
}

/// Runs the study on the wave files of `dir`: the raw result.
fn run_on(l: &LongitudinalSpec, dir: &Path) -> Result<Value, RunnerError> {
    let mut waves = Vec::with_capacity(l.waves.len());
    for f in &l.waves {
        waves.push(intruder_data::load(
            &dir.join(f),
            &intruder_data::Input::default(),
        )?);
    }
    let spec = PanelSpec {
        link: l.link.clone(),
        released_link: l.released_link.clone(),
        split: l.split.clone(),
        sensitive: l.sensitive.clone(),
        nonunique: if l.exclude_nonunique {
            NonUnique::Exclude
        } else {
            NonUnique::Include
        },
        strict: false,
    };
    let ctx = |e: intruder_longitudinal::PanelError| {
        RunnerError::Invalid(format!("[longitudinal] study '{}': {e}", l.study))
    };
    let panel = Panel::new(waves, spec).map_err(ctx)?;
    let result = run_study(&panel, &l.params).map_err(ctx)?;
    let mut value = serde_json::to_value(result)?;
    if !l.synthesis_grid.is_empty() {
        let mut grid = Vec::new();
        for cell in &l.synthesis_grid {
            // Table 1 only: no proportions, mixtures or utility.
            let params = StudyParams {
                rhos: Vec::new(),
                shares: Vec::new(),
                utility: None,
                min_leaf: cell.min_leaf,
                donors: cell.donors,
                ..l.params.clone()
            };
            let r = run_study(&panel, &params).map_err(ctx)?;
            let rows: Vec<Value> = serde_json::to_value(&r.rows)?
                .as_array()
                .into_iter()
                .flatten()
                .filter(|x| x["figure"] == "table1" && x["method"] == "synth")
                .cloned()
                .collect();
            grid.push(json!({
                "min_leaf": cell.min_leaf,
                "donors": cell.donors.as_str(),
                "rows": rows,
            }));
        }
        value["synthesis_grid"] = Value::Array(grid);
    }
    Ok(value)
}

impl Study for LongitudinalSpec {
    fn name(&self) -> &'static str {
        ENTRY.name
    }

    fn identity(&self) -> Value {
        let mut sec = serde_json::to_value(self).unwrap_or(Value::Null);
        if let Some(o) = sec.as_object_mut() {
            o.remove("published");
        }
        sec
    }

    fn config(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    fn describe(&self) -> String {
        describe_study(self)
    }

    fn with_seeds(&self, seeds: &[u64]) -> Box<dyn Study> {
        let mut l = self.clone();
        l.params.seeds = seeds.to_vec();
        Box::new(l)
    }

    fn files(&self) -> Vec<String> {
        self.waves.clone()
    }

    fn run(&self, dir: &Path) -> Result<Value, RunnerError> {
        run_on(self, dir)
    }

    fn tables(&self, result: &Value) -> Vec<TableData> {
        longitudinal_tables(self, result)
    }

    fn plots(&self, result: &Value) -> Vec<StudyPlot> {
        longitudinal_plots(self, result)
    }
}

/// Mitra et al.'s Figs. 4–6 as line plots: attribute disclosures A against the proportion ρ of
/// split households altered, one line per scenario and selection (Figs. 4, 5) or per scenario
/// and share swapped (Fig. 6), mean over seeds with its 95% t-interval clipped at 0.
fn longitudinal_plots(l: &LongitudinalSpec, r: &Value) -> Vec<StudyPlot> {
    let empty = Vec::new();
    let rows = r["rows"].as_array().unwrap_or(&empty);
    let seeds = l.params.seeds.len();
    let over = if seeds > 1 {
        format!("mean over {seeds} seeds, bars: 95% t-intervals")
    } else {
        "one seed".to_string()
    };
    let scen: Vec<&str> = l.params.scenarios.iter().map(|s| s.name.as_str()).collect();
    let series = |keep: &dyn Fn(&Value, f64) -> bool| -> Vec<(f64, Stat)> {
        l.params
            .rhos
            .iter()
            .filter_map(|&rho| {
                let v = a_values(rows, |x| keep(x, rho));
                (!v.is_empty()).then(|| (rho, Stat::new(v).clipped(COUNT.0, COUNT.1)))
            })
            .collect()
    };
    let mut out = Vec::new();
    for (fig, what) in [
        ("fig4", "Fig. 4: propensity-score swapping"),
        ("fig5", "Fig. 5: CART synthesis"),
    ] {
        let mut data = Vec::new();
        for s in &scen {
            for sel in ["targeted", "random"] {
                let pts = series(&|x, rho| {
                    x["figure"] == fig
                        && x["scenario"] == *s
                        && x["selection"] == sel
                        && close(x["rho"].as_f64(), Some(rho))
                });
                if !pts.is_empty() {
                    data.push((format!("{s}, {sel}"), pts));
                }
            }
        }
        out.extend(study_figure(
            &format!("longitudinal-{fig}.svg"),
            &format!("{what}: attribute disclosures A by proportion altered ρ ({over})"),
            what,
            &data,
        ));
    }
    let mut data = Vec::new();
    for s in &scen {
        for &sh in &l.params.shares {
            let pts = series(&|x, rho| {
                x["figure"] == "fig6"
                    && x["scenario"] == *s
                    && close(x["rho"].as_f64(), Some(rho))
                    && close(x["swap_share"].as_f64(), Some(sh))
            });
            if !pts.is_empty() {
                data.push((format!("{s}, swap share {sh:.2}"), pts));
            }
        }
    }
    out.extend(study_figure(
        "longitudinal-fig6.svg",
        &format!(
            "Fig. 6: mixtures of swapping and synthesis (targeted): attribute disclosures A by ρ and share swapped ({over})"
        ),
        "Fig. 6: mixtures of swapping and synthesis",
        &data,
    ));
    out
}

fn study_figure(
    file: &str,
    caption: &str,
    title: &str,
    data: &[(String, Vec<(f64, Stat)>)],
) -> Option<StudyPlot> {
    (!data.is_empty()).then(|| StudyPlot {
        file: file.into(),
        caption: caption.into(),
        title: title.into(),
        x_title: "proportion of split households altered ρ".into(),
        y_title: "attribute disclosures A (records)".into(),
        series: data.to_vec(),
    })
}
