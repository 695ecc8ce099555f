//! Full-domain generalisation searched, not guessed (ARX's optimal search): every key is
//! generalised along its hierarchy to one level for the whole file, and the search returns the
//! transformation of least information loss (`metric`) that satisfies the privacy models with
//! at most `suppression_limit` of the records suppressed, the rule of the intruder the result
//! protects against, and any attack constraints.
//!
//! - [`hierarchy`]: hierarchies as data (ARX's CSV format, generated intervals and masking);
//! - [`lattice`]: the search (Flash-style pruning and predictive tagging; a Lightning-style
//!   heuristic for lattices too large to search), attack constraints, the exact attack's rates;
//! - [`metrics`]: ARX's quality models `loss`, `discernibility`, `entropy`, `aecs`;
//! - [`models`]: privacy models (k-anonymity, ℓ-diversity, t-closeness, δ-presence, k-map,
//!   β-likeness, δ-disclosure, (α, k)-anonymity).
//!
//! # Suppression and the intruder
//! Records in classes that break a model are suppressed as ARX does it: every key of the
//! record blanked. Under `protect_against = all` (or `as-value`) the blanked records form a
//! class of their own, which must hold 0 or at least k records: when fewer are suppressed,
//! records from classes that can spare them are suppressed too (within the limit), so every
//! combination of visible values and blanks is shared by at least k records. Under `listwise`
//! and `wildcard` the blank class is not held to k (an intruder who drops incomplete records
//! never sees it; a wildcard intruder matches it to everyone).
//!
//! # What the release publishes
//! The levels are part of the release, so the generalisation is a public recoding: an intruder
//! maps what they know through the same hierarchies before matching
//! ([`crate::Defence::public_view`]); the cross-examination does the same.

pub mod classes;
pub mod hierarchy;
pub mod lattice;
pub mod metrics;
pub mod models;
pub mod params;
mod prepare;

use std::sync::Mutex;

use intruder_table::params::{ColumnSet, Entry, ParamKind, ParamReader, ParamSpec, Range};
use intruder_table::{Column, Kind, Role, Table};
use rand_chacha::ChaCha20Rng;
use serde_json::json;

use crate::claim::{Claim, ProtectAgainst};
use crate::common::check_columns;
use crate::methods::suppress::PROTECT_AGAINST;
use crate::{Defence, DefenceError, Masked};
use hierarchy::{Hierarchy, HierarchySpec};
use lattice::{AttackConstraint, NodeResult, Outcome, Search, Settings};
use metrics::{METRIC_CHOICES, Metric};
use models::Model;
use params::{AttackSpec, ModelSpec};
use prepare::{Coding, NAME, Sensitive};

/// How the lattice is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchMode {
    /// Optimal when the lattice has at most 16,777,216 nodes, else heuristic.
    Auto,
    /// Optimal (an error above 16,777,216 nodes).
    Optimal,
    /// Best-first within a budget.
    Heuristic,
}

/// Parameters of `generalise`.
#[derive(Debug)]
pub struct Generalise {
    /// The keys generalised, each with a hierarchy.
    pub(crate) keys: Vec<String>,
    /// The hierarchy of each key (as declared).
    pub(crate) hierarchies: Vec<(String, HierarchySpec)>,
    /// k-anonymity.
    pub(crate) k: Option<u32>,
    /// Other privacy models.
    pub(crate) models: Vec<ModelSpec>,
    /// Share of records that may be suppressed.
    pub(crate) suppression_limit: f64,
    /// The quality model.
    pub(crate) metric: Metric,
    /// ARX's weighting of generalisation against suppression.
    pub(crate) gs_factor: f64,
    /// The intruder the k promise holds against.
    pub(crate) protect_against: ProtectAgainst,
    /// Population table (δ-presence, k-map).
    pub(crate) population: Option<std::path::PathBuf>,
    /// Search mode.
    pub(crate) search: SearchMode,
    /// Nodes the heuristic may check.
    pub(crate) budget: usize,
    /// Seconds the heuristic may run.
    pub(crate) time_limit: Option<f64>,
    /// Attack constraints.
    pub(crate) attacks: Vec<AttackSpec>,
    /// The levels chosen by the last run (what the release publishes).
    chosen: Mutex<Option<Vec<u8>>>,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "hierarchies",
        ParamKind::Table,
        "one hierarchy per key: column = \"h/col.csv\" (ARX's hierarchy CSV: a row per value, a field per level; relative to the experiment file), { file, delimiter }, { interval = [5, 10, 20], origin = 0 } (numeric bands per level) or { mask = true } (characters masked from the right)",
    )
    .example("{ area = { mask = true }, bedrooms = { interval = [2, 4] } }")
    .required(),
    ParamSpec::new(
        "keys",
        ParamKind::Columns,
        "the key variables generalised (each needs a hierarchy; a hierarchy for a column that is not a key is an error)",
    )
    .default_value("the columns of `hierarchies`")
    .example(r#"["area", "bedrooms"]"#)
    .from_role(Role::Key),
    ParamSpec::new(
        "k",
        ParamKind::Integer,
        "k-anonymity: every released class of at least k records, under protect_against",
    )
    .example("3")
    .within(Range::at_least(1.0)),
    ParamSpec::new(
        "models",
        ParamKind::Table,
        "more privacy models, a list of tables: { model = \"l-diversity\", sensitive, l, variant = distinct|entropy|recursive, c }, { model = \"t-closeness\", sensitive, t, distance = equal|ordered|hierarchical, hierarchy }, { model = \"delta-presence\", delta_min, delta_max }, { model = \"k-map\", k, sampling_fraction }, { model = \"beta-likeness\", sensitive, beta, enhanced }, { model = \"delta-disclosure\", sensitive, delta }, { model = \"alpha-k-anonymity\", sensitive, alpha, k }",
    ),
    ParamSpec::new(
        "suppression_limit",
        ParamKind::Number,
        "share of records that may be suppressed (every key blanked), ARX's ⌊limit · n⌋",
    )
    .default_value("0")
    .within(Range::closed(0.0, 1.0)),
    ParamSpec::new(
        "metric",
        ParamKind::Choice(METRIC_CHOICES),
        "the quality model minimised, to ARX's definitions: loss (generalised loss, geometric mean over keys), discernibility, entropy (non-uniform), aecs",
    )
    .default_value("loss"),
    ParamSpec::new(
        "gs_factor",
        ParamKind::Number,
        "ARX's weighting of generalisation (0) against suppression (1) in loss, entropy and aecs",
    )
    .default_value("0.5")
    .within(Range::closed(0.0, 1.0)),
    PROTECT_AGAINST,
    ParamSpec::new(
        "population",
        ParamKind::Path,
        "population table holding the file's records with the same keys (delta-presence, k-map)",
    ),
    ParamSpec::new(
        "search",
        ParamKind::Choice(&["auto", "optimal", "heuristic"]),
        "optimal (Flash-style pruning), heuristic (ARX's Lightning: best-first from the bottom with greedy walks up, within `budget`), auto (optimal up to 16,777,216 nodes)",
    )
    .default_value("auto"),
    ParamSpec::new(
        "budget",
        ParamKind::Integer,
        "nodes the heuristic search may check",
    )
    .default_value("10000")
    .within(Range::at_least(1.0)),
    ParamSpec::new(
        "time_limit",
        ParamKind::Number,
        "seconds the heuristic search may run (results then depend on the machine's speed)",
    )
    .within(Range::POSITIVE),
    ParamSpec::new(
        "attack_constraints",
        ParamKind::Table,
        "attacks the result must withstand, a list of { attack = \"exact\", rule = listwise|wildcard, keys = [...] (default: every key), max_rate = r }",
    ),
    ParamSpec::new(
        "delimiter",
        ParamKind::String,
        "delimiter of the hierarchy files",
    )
    .default_value(";"),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "full-domain generalisation along hierarchies: the least-loss transformation meeting k, ℓ, t, δ-presence, k-map, β, δ-disclosure, (α,k) and attack constraints (ARX's search and quality models)",
    reference: "ARX (Prasser et al. 2014; Kohlmayer et al. 2012, Flash); Samarati (2001); Iyengar (2002)",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let delimiter: String = r.get_or("delimiter", ";".to_string());
    if delimiter.len() != 1 {
        r.problem("delimiter", "expected one character, e.g. \";\"");
    }
    let delim = delimiter.as_bytes().first().copied().unwrap_or(b';');
    let base = r.context().base_dir;
    let hierarchies = params::read_hierarchies(r, delim, base);
    let keys: Option<Vec<String>> = r.get("keys");
    let k: Option<i64> = r.get("k");
    let models = params::read_models(r, delim, base);
    let limit = r.get_or("suppression_limit", 0.0);
    let metric = r
        .get::<String>("metric")
        .and_then(|m| Metric::parse(&m))
        .unwrap_or(Metric::Loss);
    let gs_factor = r.get_or("gs_factor", 0.5);
    let protect_against = r
        .choice::<ProtectAgainst>("protect_against")
        .unwrap_or_default();
    let population = if r.has("population") {
        r.path_value("population")
    } else {
        None
    };
    let search = match r.get::<String>("search").as_deref() {
        Some("optimal") => SearchMode::Optimal,
        Some("heuristic") => SearchMode::Heuristic,
        _ => SearchMode::Auto,
    };
    let budget: i64 = r.get_or("budget", 10_000);
    let time_limit: Option<f64> = r.get("time_limit");
    let attacks = params::read_attacks(r);
    let (hierarchies, models) = (hierarchies?, models.unwrap_or_default());
    let keys = keys.unwrap_or_else(|| hierarchies.iter().map(|(c, _)| c.clone()).collect());
    for (col, spec) in &hierarchies {
        if !keys.contains(col) {
            let what = match spec {
                HierarchySpec::File(h) => format!("the hierarchy {}", h.source),
                _ => "the generated hierarchy".to_string(),
            };
            r.problem(
                "hierarchies",
                format!(
                    "{col}: {what} is for column '{col}', which is not a key (the keys are: {}); generalise keys only, or add '{col}' to keys",
                    keys.join(", ")
                ),
            );
        }
    }
    for key in &keys {
        if !hierarchies.iter().any(|(c, _)| c == key) {
            r.problem(
                "hierarchies",
                format!("key '{key}' has no hierarchy; give {key} = \"hierarchy.csv\""),
            );
        }
    }
    let attacks = attacks.unwrap_or_default();
    for a in &attacks {
        for key in &a.keys {
            r.check(
                "attack_constraints",
                keys.contains(key),
                format!("'{key}' is not one of the keys ({})", keys.join(", ")),
            );
        }
    }
    if k.is_none() && models.is_empty() && attacks.is_empty() {
        r.table_problem(
            "generalise needs something to protect: give k, models or attack_constraints",
        );
    }
    if models.iter().any(|m| {
        matches!(
            m,
            ModelSpec::DeltaPresence { .. }
                | ModelSpec::KMap {
                    sampling_fraction: None,
                    ..
                }
        )
    }) && population.is_none()
    {
        r.problem(
            "population",
            "delta-presence and k-map without a sampling_fraction need a population table",
        );
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(Generalise {
        keys,
        hierarchies,
        k: k.map(|k| k.clamp(1, u32::MAX as i64) as u32),
        models,
        suppression_limit: limit,
        metric,
        gs_factor,
        protect_against,
        population,
        search,
        budget: budget.max(1) as usize,
        time_limit,
        attacks,
        chosen: Mutex::new(None),
    }))
}

/// A finished search: its outcome and what `apply` needs to write the result.
pub struct Searched {
    /// The search's outcome.
    pub outcome: Outcome,
    /// The settings it ran with.
    pub settings: Settings,
}

impl Generalise {
    /// The sensitive columns the models read, in order of first mention.
    fn sensitive_columns(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for m in &self.models {
            if let Some(s) = m.sensitive()
                && !out.iter().any(|x| x == s)
            {
                out.push(s.to_string());
            }
        }
        out
    }

    fn resolve_models(&self, sens: &[Sensitive]) -> Vec<Model> {
        let idx = |name: &str| sens.iter().position(|s| s.column == name).unwrap_or(0);
        let mut out = Vec::new();
        if let Some(k) = self.k {
            out.push(Model::KAnonymity { k });
        }
        for m in &self.models {
            out.push(match m {
                ModelSpec::LDiversity {
                    sensitive,
                    l,
                    variant,
                } => Model::LDiversity {
                    sensitive: idx(sensitive),
                    l: *l,
                    variant: *variant,
                },
                ModelSpec::TCloseness {
                    sensitive,
                    t,
                    distance,
                } => Model::TCloseness {
                    sensitive: idx(sensitive),
                    t: *t,
                    distance: prepare::distance(distance, &sens[idx(sensitive)]),
                },
                ModelSpec::DeltaPresence { min, max } => Model::DeltaPresence {
                    min: *min,
                    max: *max,
                },
                ModelSpec::KMap {
                    k,
                    sampling_fraction,
                } => Model::KMap {
                    k: *k,
                    sampling_fraction: *sampling_fraction,
                },
                ModelSpec::BetaLikeness {
                    sensitive,
                    beta,
                    enhanced,
                } => Model::BetaLikeness {
                    sensitive: idx(sensitive),
                    beta: *beta,
                    enhanced: *enhanced,
                },
                ModelSpec::DeltaDisclosure { sensitive, delta } => Model::DeltaDisclosure {
                    sensitive: idx(sensitive),
                    delta: *delta,
                },
                ModelSpec::AlphaK {
                    sensitive,
                    alpha,
                    k,
                } => Model::AlphaK {
                    sensitive: idx(sensitive),
                    alpha: *alpha,
                    k: *k,
                },
            });
        }
        out
    }

    /// The k the blank class must reach, under `all` / `as-value`.
    fn blank_k(&self) -> Option<u32> {
        let k_alpha = self.models.iter().find_map(|m| match m {
            ModelSpec::AlphaK { k, .. } => Some(*k),
            _ => None,
        });
        let k = self.k.into_iter().chain(k_alpha).max()?;
        matches!(
            self.protect_against,
            ProtectAgainst::All | ProtectAgainst::AsValue
        )
        .then_some(k)
    }

    fn settings(&self, n: usize, sens: &[Sensitive]) -> Settings {
        Settings {
            models: self.resolve_models(sens),
            sensitive: sens.iter().map(|s| s.column.clone()).collect(),
            limit: (self.suppression_limit * n as f64).floor() as usize,
            blank_class_k: self.blank_k(),
            attacks: self
                .attacks
                .iter()
                .map(|a| {
                    let keys: Vec<usize> = if a.keys.is_empty() {
                        (0..self.keys.len()).collect()
                    } else {
                        a.keys
                            .iter()
                            .filter_map(|k| self.keys.iter().position(|x| x == k))
                            .collect()
                    };
                    let names: Vec<&str> = keys.iter().map(|&i| self.keys[i].as_str()).collect();
                    AttackConstraint {
                        wildcard: a.wildcard,
                        keys,
                        max_rate: a.max_rate,
                        label: format!(
                            "the exact {} attack on {}",
                            if a.wildcard { "wildcard" } else { "listwise" },
                            names.join(", ")
                        ),
                    }
                })
                .collect(),
            heuristic: self.search == SearchMode::Heuristic,
            budget: self.budget,
            time_limit: self.time_limit,
        }
    }

    fn check_table(&self, table: &Table) -> Result<(), DefenceError> {
        check_columns(table, NAME, &self.keys)?;
        for s in self.sensitive_columns() {
            table.column(&s)?;
            if self.keys.contains(&s) {
                return Err(DefenceError::Column {
                    method: NAME,
                    column: s,
                    message: "is both a key and a sensitive variable".into(),
                });
            }
        }
        if self.keys.len() > 255 {
            return Err(DefenceError::Infeasible {
                method: NAME,
                message: "at most 255 keys".into(),
            });
        }
        Ok(())
    }

    fn population_table(&self) -> Result<Option<Table>, DefenceError> {
        let Some(path) = &self.population else {
            return Ok(None);
        };
        // Without its truth columns: the defence reads the population's keys and nothing else.
        Ok(Some(intruder_table::read_table(path)?))
    }

    /// Runs the search on `table` (no output written): for reports and benchmarks.
    pub fn search(&self, table: &Table) -> Result<(Searched, Coding, Vec<u32>), DefenceError> {
        self.check_table(table)?;
        let coding = Coding::new(table, &self.keys, &self.hierarchies)?;
        let sens: Vec<Sensitive> = self
            .sensitive_columns()
            .iter()
            .map(|c| prepare::sensitive(table, c, prepare::sensitive_hierarchy(&self.models, c)))
            .collect::<Result<_, _>>()?;
        let population = match self.population_table()? {
            Some(p) => {
                let src = self
                    .population
                    .as_ref()
                    .map(|x| x.display().to_string())
                    .unwrap_or_default();
                Some(coding.population_leaves(&p, &self.keys, &src)?)
            }
            None => None,
        };
        let settings = self.settings(table.nrows(), &sens);
        let lattice_nodes: f64 = coding.dims.iter().map(|c| c.levels as f64).product();
        if self.search == SearchMode::Optimal && lattice_nodes > lattice::MAX_OPTIMAL_NODES {
            return Err(DefenceError::Infeasible {
                method: NAME,
                message: format!(
                    "the lattice has {lattice_nodes} nodes, above the {} the optimal search handles; use search = \"heuristic\" (or \"auto\")",
                    lattice::MAX_OPTIMAL_NODES
                ),
            });
        }
        let (data, class_of) = coding.prepare(table.nrows(), &sens, population);
        let prepared = metrics::Prepared::new(
            self.metric,
            self.gs_factor,
            &coding.dims,
            &coding.records_at,
            table.nrows(),
        );
        let outcome = Search::new(&data, &settings, &prepared).run();
        Ok((Searched { outcome, settings }, coding, class_of))
    }
}

/// Every record's class at `levels` and whether it is suppressed, with the blank class topped
/// up as the search judged it.
fn suppressed_rows(
    coding: &Coding,
    settings: &Settings,
    levels: &[u8],
    class_of: &[u32],
    sens: &[Sensitive],
    population: Option<Vec<u32>>,
    n: usize,
) -> Vec<bool> {
    let (data, _) = coding.prepare(n, sens, population);
    let card: Vec<usize> = coding.dims.iter().map(|c| c.card(0)).collect();
    let group = classes::Group {
        dims: &coding.dims,
        population: data.population,
        sensitive: sens.len(),
    };
    let (snap, map) = group.roll_up(&classes::AnyPacker::new(&card), &data.bottom, levels, true);
    let map = map.unwrap_or_default();
    let metric = metrics::Prepared::new(
        Metric::Discernibility,
        0.5,
        &coding.dims,
        &coding.records_at,
        n,
    );
    let search = Search::new(&data, settings, &metric);
    let (outlier, _) = search.outliers(&snap);
    let mut rows: Vec<bool> = (0..n)
        .map(|r| outlier[map[class_of[r] as usize] as usize])
        .collect();
    let s = rows.iter().filter(|&&x| x).count();
    if let Some(k) = settings.blank_class_k
        && s > 0
        && s < k as usize
    {
        // the same classes the search took records from: most spare first, the last records
        let floor = settings
            .models
            .iter()
            .find_map(|m| match m {
                Model::KAnonymity { k } => Some(*k),
                _ => None,
            })
            .unwrap_or(1) as usize;
        let mut spare: Vec<(usize, usize)> = (0..snap.len())
            .filter(|&c| !outlier[c] && snap.count[c] as usize > floor)
            .map(|c| (snap.count[c] as usize - floor, c))
            .collect();
        spare.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut left = k as usize - s;
        for (sp, c) in spare {
            if left == 0 {
                break;
            }
            let mut take = sp.min(left);
            left -= take;
            for r in (0..n).rev() {
                if take == 0 {
                    break;
                }
                if map[class_of[r] as usize] as usize == c && !rows[r] {
                    rows[r] = true;
                    take -= 1;
                }
            }
        }
    }
    rows
}

/// The column `col` with each value replaced by its label at `level` of `h` (values the
/// hierarchy does not list are kept; level 0 keeps the column as it is), and the rows
/// `blank` blanked.
fn recode(col: &Column, h: &Hierarchy, level: usize, blank: Option<&[bool]>) -> Column {
    if level == 0 {
        return match blank {
            Some(b) => crate::common::suppress(
                col,
                b.iter().enumerate().filter(|(_, x)| **x).map(|(i, _)| i),
            ),
            None => col.clone(),
        };
    }
    let index = h.index();
    // a cell's label: the hierarchy's at `level`, else the cell as it is
    let label = |t: Option<&str>| -> Option<String> {
        match index.get(t.unwrap_or("")) {
            Some(&r) if t.is_some() || !h.rows[r as usize][level].is_empty() => {
                Some(h.rows[r as usize][level].clone())
            }
            _ => t.map(str::to_owned),
        }
    };
    let mut levels: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for row in &h.rows {
        if seen.insert(row[level].as_str()) {
            levels.push(row[level].clone());
        }
    }
    if let intruder_table::ColumnData::Categorical { codes, levels: own } = col.data() {
        // each label worked out once, not each record
        let per_level: Vec<Option<String>> = own.iter().map(|l| label(Some(l))).collect();
        let for_missing = label(None);
        return recode_categorical(col, codes, &per_level, for_missing, levels, blank);
    }
    let values: Vec<Option<String>> = (0..col.len())
        .map(|i| {
            if blank.is_some_and(|b| b[i]) {
                return None;
            }
            label(col.text(i).as_deref())
        })
        .collect();
    for v in values.iter().flatten() {
        if seen.insert(v.as_str()) {
            levels.push(v.clone());
        }
    }
    Column::categorical(col.name(), col.role(), &values, Some(levels))
        .expect("every label is declared")
}

/// [`recode`] of a categorical column, given each of its levels' label (`per_level`), a missing
/// cell's, and the hierarchy's labels at the level (`levels`): the same column, the labels the
/// hierarchy does not list appended in the order of the records.
fn recode_categorical(
    col: &Column,
    codes: &[u32],
    per_level: &[Option<String>],
    for_missing: Option<String>,
    mut levels: Vec<String>,
    blank: Option<&[bool]>,
) -> Column {
    let mut code_of: std::collections::HashMap<String, u32> = levels
        .iter()
        .enumerate()
        .map(|(i, l)| (l.clone(), i as u32))
        .collect();
    let mut out_code = |l: &Option<String>, levels: &mut Vec<String>| -> Option<u32> {
        let l = l.as_ref()?;
        let next = levels.len() as u32;
        Some(*code_of.entry(l.clone()).or_insert_with(|| {
            levels.push(l.clone());
            next
        }))
    };
    // codes given in the order of the records, so that unlisted labels are appended as met
    let mut own_code: Vec<Option<Option<u32>>> = vec![None; per_level.len()];
    let mut missing_code: Option<Option<u32>> = None;
    let mut out = Vec::with_capacity(codes.len());
    let mut missing = intruder_table::Bitmap::new(codes.len());
    for (i, &c) in codes.iter().enumerate() {
        let code = if blank.is_some_and(|b| b[i]) {
            None
        } else if col.is_missing(i) {
            *missing_code.get_or_insert_with(|| out_code(&for_missing, &mut levels))
        } else {
            *own_code[c as usize]
                .get_or_insert_with(|| out_code(&per_level[c as usize], &mut levels))
        };
        match code {
            Some(x) => out.push(x),
            None => {
                missing.set(i);
                out.push(0);
            }
        }
    }
    Column::new(
        col.name(),
        col.role(),
        intruder_table::ColumnData::Categorical { codes: out, levels },
        missing,
    )
    .expect("every code is a level")
}

/// Pareto-optimal nodes among those evaluated that satisfy the models: none has both a lower
/// score and lower attack rates. Of nodes alike in every objective (levels that merge no
/// class, such as masking characters that leave every value distinct), the one kept is the one
/// the search would choose: the lower level sum, then the lower levels; so the chosen node is
/// on the frontier whenever it is not beaten.
pub fn frontier(evaluated: &[NodeResult]) -> Vec<NodeResult> {
    let objectives = |r: &NodeResult| -> Vec<f64> {
        let mut v = vec![r.score, r.exact_rates[0], r.exact_rates[1]];
        v.extend(&r.rates);
        v
    };
    let cands: Vec<&NodeResult> = evaluated.iter().filter(|r| r.private).collect();
    let objs: Vec<Vec<f64>> = cands.iter().map(|r| objectives(r)).collect();
    let order = |r: &NodeResult| {
        let sum: u32 = r.levels.iter().map(|&l| l as u32).sum();
        (sum, r.levels.clone())
    };
    let mut out: Vec<NodeResult> = Vec::new();
    for (i, a) in cands.iter().enumerate() {
        let oa = &objs[i];
        let dominated = objs.iter().enumerate().any(|(j, ob)| {
            let le = ob.iter().zip(oa).all(|(x, y)| x <= y);
            let lt = ob.iter().zip(oa).any(|(x, y)| x < y);
            j != i && le && (lt || (ob == oa && order(cands[j]) < order(cands[i])))
        });
        if !dominated && !out.iter().any(|o| o.levels == a.levels) {
            out.push((*a).clone());
        }
    }
    out.sort_by(|a, b| a.score.total_cmp(&b.score).then(a.levels.cmp(&b.levels)));
    out
}

fn node_json(keys: &[String], r: &NodeResult, attacks: &[AttackConstraint]) -> serde_json::Value {
    let levels: serde_json::Map<String, serde_json::Value> = keys
        .iter()
        .zip(&r.levels)
        .map(|(k, &l)| (k.clone(), json!(l)))
        .collect();
    let mut rates = serde_json::Map::new();
    rates.insert("exact listwise".into(), json!(r.exact_rates[0]));
    rates.insert("exact wildcard".into(), json!(r.exact_rates[1]));
    for (a, x) in attacks.iter().zip(&r.rates) {
        rates.insert(a.label.clone(), json!(x));
    }
    json!({"levels": levels, "score": r.score, "suppressed": r.suppressed, "rates": rates})
}

impl Generalise {
    fn infeasible(&self, s: &Searched) -> DefenceError {
        let o = &s.outcome;
        let what = match &o.closest {
            Some(c) => {
                let levels: Vec<String> = self
                    .keys
                    .iter()
                    .zip(&c.levels)
                    .map(|(k, l)| format!("{k} {l}"))
                    .collect();
                format!(
                    "{}; the best found: levels {}, {} records suppressed, score {}",
                    c.failure.clone().unwrap_or_default(),
                    levels.join(", "),
                    c.suppressed,
                    c.score
                )
            }
            None => "no node was checked".into(),
        };
        DefenceError::Infeasible {
            method: NAME,
            message: format!(
                "no generalisation satisfies the constraints ({} of {} nodes checked): {what}",
                o.nodes_checked, o.nodes_total
            ),
        }
    }
}

impl Defence for Generalise {
    fn method(&self) -> &'static str {
        NAME
    }

    fn apply(&self, table: &Table, _rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        let (searched, coding, class_of) = self.search(table)?;
        let Some(best) = searched.outcome.best.clone() else {
            return Err(self.infeasible(&searched));
        };
        let n = table.nrows();
        let sens: Vec<Sensitive> = self
            .sensitive_columns()
            .iter()
            .map(|c| prepare::sensitive(table, c, prepare::sensitive_hierarchy(&self.models, c)))
            .collect::<Result<_, _>>()?;
        let population = match self.population_table()? {
            Some(p) => Some(coding.population_leaves(&p, &self.keys, "population")?),
            None => None,
        };
        let blank = suppressed_rows(
            &coding,
            &searched.settings,
            &best.levels,
            &class_of,
            &sens,
            population,
            n,
        );
        let mut out = table.clone();
        for (j, key) in self.keys.iter().enumerate() {
            let col = recode(
                table.column(key)?,
                &coding.hierarchies[j],
                best.levels[j] as usize,
                Some(&blank),
            );
            out.replace(col)?;
        }
        *self.chosen.lock().unwrap_or_else(|e| e.into_inner()) = Some(best.levels.clone());
        let o = &searched.outcome;
        let levels_text: Vec<String> = self
            .keys
            .iter()
            .zip(&best.levels)
            .map(|(k, l)| format!("{k} = {l}"))
            .collect();
        let notes = vec![
            format!("levels: {}", levels_text.join(", ")),
            format!("{} = {}", self.metric.name(), best.score),
            format!(
                "{} records suppressed (limit {}); {} of {} nodes checked; {}",
                best.suppressed,
                searched.settings.limit,
                o.nodes_checked,
                o.nodes_total,
                if o.optimal {
                    "optimal"
                } else {
                    "heuristic: not known to be optimal"
                }
            ),
            format!("protect_against = {}", self.protect_against),
        ];
        let attacks = &searched.settings.attacks;
        let levels: serde_json::Map<String, serde_json::Value> = self
            .keys
            .iter()
            .zip(&best.levels)
            .map(|(k, &l)| (k.clone(), json!(l)))
            .collect();
        let details = json!({
            "levels": levels,
            "metric": self.metric.name(),
            "score": best.score,
            "score_per_key": best.per_key,
            "suppressed": best.suppressed,
            "rows": n,
            "nodes_checked": o.nodes_checked,
            "nodes_total": o.nodes_total,
            "optimal": o.optimal,
            "rates": node_json(&self.keys, &best, attacks)["rates"].clone(),
            "frontier": frontier(&o.evaluated).iter().map(|r| node_json(&self.keys, r, attacks)).collect::<Vec<_>>(),
        });
        Ok(Masked {
            table: out,
            kept_rows: None,
            notes,
            details: Some(details),
        })
    }

    fn adjust_columns(&self, columns: &mut ColumnSet) {
        for (name, kind, _) in &mut columns.columns {
            if self.keys.contains(name) {
                *kind = Kind::Categorical;
            }
        }
    }

    fn claims(&self) -> Vec<Claim> {
        let k_alpha = self.models.iter().find_map(|m| match m {
            ModelSpec::AlphaK { k, .. } => Some(*k),
            _ => None,
        });
        match self.k.into_iter().chain(k_alpha).max() {
            Some(k) if k >= 2 => vec![Claim::k_anonymity(
                NAME,
                &self.keys,
                k,
                self.protect_against,
            )],
            _ => Vec::new(),
        }
    }

    fn public_recoding(&self) -> bool {
        true
    }

    fn public_view(&self, table: &Table) -> Option<Result<Table, DefenceError>> {
        let chosen = self
            .chosen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let levels = match chosen {
            Some(l) => l,
            None => match self.search(table) {
                Ok((s, _, _)) => match s.outcome.best {
                    Some(b) => b.levels,
                    None => return Some(Err(self.infeasible(&s))),
                },
                Err(e) => return Some(Err(e)),
            },
        };
        Some((|| {
            let mut out = table.clone();
            for (j, key) in self.keys.iter().enumerate() {
                let Ok(col) = table.column(key) else { continue };
                let spec = &self
                    .hierarchies
                    .iter()
                    .find(|(c, _)| c == key)
                    .expect("a hierarchy per key")
                    .1;
                let h = prepare::build_hierarchy(key, col, spec)?;
                out.replace(recode(col, &h, levels[j] as usize, None))?;
            }
            Ok(out)
        })())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(levels: &[u8], score: f64, rate: f64) -> NodeResult {
        NodeResult {
            levels: levels.to_vec(),
            ok: true,
            private: true,
            score,
            per_key: Vec::new(),
            suppressed: 0,
            exact_rates: [rate, rate / 2.0],
            rates: Vec::new(),
            failure: None,
        }
    }

    /// (3, 6, 16) and (3, 0, 9) alike in score and rates (masking that merges nothing): the
    /// frontier keeps (3, 0, 9), the node the search chooses, whatever order they were met in;
    /// (1, 1, 1), cheaper but riskier, stays; (4, 6, 16), dearer and no safer, goes.
    #[test]
    fn of_nodes_alike_the_frontier_keeps_the_one_the_search_chooses() {
        let evaluated = [
            node(&[3, 6, 16], 0.5, 0.1),
            node(&[4, 6, 16], 0.6, 0.1),
            node(&[3, 0, 9], 0.5, 0.1),
            node(&[1, 1, 1], 0.2, 0.4),
        ];
        let kept: Vec<Vec<u8>> = frontier(&evaluated).into_iter().map(|r| r.levels).collect();
        assert_eq!(kept, [vec![1, 1, 1], vec![3, 0, 9]]);
    }
}
