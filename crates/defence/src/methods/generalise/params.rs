//! Reading the parameters of `generalise`: hierarchies, privacy models, attack constraints.

use std::path::{Path, PathBuf};

use intruder_table::params::{ParamReader, describe};

use super::hierarchy::{Hierarchy, HierarchySpec, resolve};
use super::models::Diversity;

/// A privacy model as declared, before the data are seen.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelSpec {
    /// ℓ-diversity.
    LDiversity {
        /// Sensitive column.
        sensitive: String,
        /// ℓ.
        l: f64,
        /// Variant.
        variant: Diversity,
    },
    /// t-closeness.
    TCloseness {
        /// Sensitive column.
        sensitive: String,
        /// t.
        t: f64,
        /// `equal`, `ordered`, or a hierarchy of the sensitive variable.
        distance: DistanceSpec,
    },
    /// δ-presence.
    DeltaPresence {
        /// δ_min.
        min: f64,
        /// δ_max.
        max: f64,
    },
    /// k-map.
    KMap {
        /// k.
        k: u32,
        /// Estimate population classes as `count / fraction` instead of the population table.
        sampling_fraction: Option<f64>,
    },
    /// β-likeness.
    BetaLikeness {
        /// Sensitive column.
        sensitive: String,
        /// β.
        beta: f64,
        /// Enhanced.
        enhanced: bool,
    },
    /// δ-disclosure privacy.
    DeltaDisclosure {
        /// Sensitive column.
        sensitive: String,
        /// δ.
        delta: f64,
    },
    /// (α, k)-anonymity.
    AlphaK {
        /// Sensitive column.
        sensitive: String,
        /// α.
        alpha: f64,
        /// k.
        k: u32,
    },
}

/// The ground distance of a t-closeness model.
#[derive(Debug, Clone, PartialEq)]
pub enum DistanceSpec {
    /// Equal.
    Equal,
    /// Ordered.
    Ordered,
    /// Along this hierarchy of the sensitive variable.
    Hierarchical(Hierarchy),
}

impl ModelSpec {
    /// The sensitive column, if any.
    pub fn sensitive(&self) -> Option<&str> {
        match self {
            ModelSpec::LDiversity { sensitive, .. }
            | ModelSpec::TCloseness { sensitive, .. }
            | ModelSpec::BetaLikeness { sensitive, .. }
            | ModelSpec::DeltaDisclosure { sensitive, .. }
            | ModelSpec::AlphaK { sensitive, .. } => Some(sensitive),
            _ => None,
        }
    }
}

/// The model names of `models`.
pub const MODEL_NAMES: &[&str] = &[
    "l-diversity",
    "t-closeness",
    "delta-presence",
    "k-map",
    "beta-likeness",
    "delta-disclosure",
    "alpha-k-anonymity",
];

/// One table of `models` or `attack_constraints`, read field by field; problems are collected
/// with the item's position.
struct Item<'t> {
    t: &'t toml::Table,
    at: String,
    problems: Vec<String>,
    used: Vec<&'static str>,
}

impl<'t> Item<'t> {
    fn num(&mut self, key: &'static str, lo: f64, hi: f64) -> Option<f64> {
        self.used.push(key);
        match self.t.get(key) {
            None => {
                self.problems
                    .push(format!("{}: '{key}' is required", self.at));
                None
            }
            Some(v) => match v.as_float().or(v.as_integer().map(|i| i as f64)) {
                Some(x) if x >= lo && x <= hi => Some(x),
                Some(x) => {
                    self.problems.push(format!(
                        "{}: '{key}' is {x}; expected a number in [{lo}, {hi}]",
                        self.at
                    ));
                    None
                }
                None => {
                    self.problems.push(format!(
                        "{}: '{key}' expected a number, found {}",
                        self.at,
                        describe(v)
                    ));
                    None
                }
            },
        }
    }

    fn opt_num(&mut self, key: &'static str, lo: f64, hi: f64) -> Option<f64> {
        if self.t.contains_key(key) {
            self.num(key, lo, hi)
        } else {
            self.used.push(key);
            None
        }
    }

    fn int(&mut self, key: &'static str, lo: f64) -> Option<u32> {
        let x = self.num(key, lo, u32::MAX as f64)?;
        if x.fract() != 0.0 {
            self.problems
                .push(format!("{}: '{key}' must be a whole number", self.at));
            return None;
        }
        Some(x as u32)
    }

    fn text(&mut self, key: &'static str, default: Option<&str>) -> Option<String> {
        self.used.push(key);
        match self.t.get(key) {
            None => {
                if default.is_none() {
                    self.problems
                        .push(format!("{}: '{key}' is required", self.at));
                }
                default.map(str::to_string)
            }
            Some(toml::Value::String(s)) => Some(s.clone()),
            Some(v) => {
                self.problems.push(format!(
                    "{}: '{key}' expected a string, found {}",
                    self.at,
                    describe(v)
                ));
                None
            }
        }
    }

    fn flag(&mut self, key: &'static str, default: bool) -> bool {
        self.used.push(key);
        match self.t.get(key) {
            None => default,
            Some(toml::Value::Boolean(b)) => *b,
            Some(v) => {
                self.problems.push(format!(
                    "{}: '{key}' expected true or false, found {}",
                    self.at,
                    describe(v)
                ));
                default
            }
        }
    }

    fn finish(mut self) -> Vec<String> {
        for k in self.t.keys() {
            if !self.used.contains(&k.as_str()) {
                self.problems.push(format!(
                    "{}: unknown key '{k}'; expected one of: {}",
                    self.at,
                    self.used.join(", ")
                ));
            }
        }
        self.problems
    }
}

/// Reads `models`: a list of tables, each with `model = NAME` and its parameters.
pub fn read_models(
    r: &mut ParamReader,
    delimiter: u8,
    base: Option<&Path>,
) -> Option<Vec<ModelSpec>> {
    let v: toml::Value = r.get("models")?;
    let items: Vec<toml::Value> = match v {
        toml::Value::Array(a) => a,
        toml::Value::Table(t) => vec![toml::Value::Table(t)],
        other => {
            r.problem(
                "models",
                format!(
                    "expected a list of tables ({{ model = \"l-diversity\", … }}), found {}",
                    describe(&other)
                ),
            );
            return None;
        }
    };
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (i, v) in items.iter().enumerate() {
        let at = format!("item {}", i + 1);
        let Some(t) = v.as_table() else {
            problems.push(format!("{at}: expected a table, found {}", describe(v)));
            continue;
        };
        let mut it = Item {
            t,
            at: at.clone(),
            problems: Vec::new(),
            used: vec!["model"],
        };
        let name = match t.get("model").and_then(|m| m.as_str()) {
            Some(n) if MODEL_NAMES.contains(&n) => n,
            Some(n) => {
                problems.push(format!(
                    "{at}: unknown model '{n}'; expected one of: {} (k-anonymity is the parameter 'k')",
                    MODEL_NAMES.join(", ")
                ));
                continue;
            }
            None => {
                problems.push(format!(
                    "{at}: 'model' is required: one of {}",
                    MODEL_NAMES.join(", ")
                ));
                continue;
            }
        };
        let spec = read_model(&mut it, name, delimiter, base);
        problems.extend(it.finish());
        if let Some(s) = spec {
            out.push(s);
        }
    }
    for p in &problems {
        r.problem("models", p);
    }
    problems.is_empty().then_some(out)
}

fn read_model(it: &mut Item, name: &str, delimiter: u8, base: Option<&Path>) -> Option<ModelSpec> {
    let big = f64::MAX;
    Some(match name {
        "l-diversity" => {
            let sensitive = it.text("sensitive", None);
            let l = it.num("l", 1.0, big);
            let variant = it.text("variant", Some("distinct"));
            let c = it.opt_num("c", 0.0, big);
            let variant = match variant.as_deref() {
                Some("distinct") => Diversity::Distinct,
                Some("entropy") => Diversity::Entropy,
                Some("recursive") => match c {
                    Some(c) => Diversity::Recursive { c },
                    None => {
                        it.problems
                            .push(format!("{}: recursive ℓ-diversity needs 'c'", it.at));
                        return None;
                    }
                },
                Some(o) => {
                    it.problems.push(format!(
                        "{}: 'variant' is '{o}'; expected distinct, entropy or recursive",
                        it.at
                    ));
                    return None;
                }
                None => return None,
            };
            ModelSpec::LDiversity {
                sensitive: sensitive?,
                l: l?,
                variant,
            }
        }
        "t-closeness" => {
            let sensitive = it.text("sensitive", None);
            let t = it.num("t", 0.0, 1.0);
            let distance = it.text("distance", Some("equal"));
            let file = it.text("hierarchy", Some(""));
            let distance = match distance.as_deref() {
                Some("equal") => DistanceSpec::Equal,
                Some("ordered") => DistanceSpec::Ordered,
                Some("hierarchical") => match (file.as_deref(), sensitive.as_deref()) {
                    (Some(f), Some(s)) if !f.is_empty() => {
                        match Hierarchy::from_file(s, &resolve(base, f), delimiter) {
                            Ok(h) => DistanceSpec::Hierarchical(h),
                            Err(e) => {
                                it.problems.push(format!("{}: {e}", it.at));
                                return None;
                            }
                        }
                    }
                    _ => {
                        it.problems.push(format!(
                            "{}: the hierarchical distance needs 'hierarchy', a hierarchy file of the sensitive variable",
                            it.at
                        ));
                        return None;
                    }
                },
                Some(o) => {
                    it.problems.push(format!(
                        "{}: 'distance' is '{o}'; expected equal, ordered or hierarchical",
                        it.at
                    ));
                    return None;
                }
                None => return None,
            };
            ModelSpec::TCloseness {
                sensitive: sensitive?,
                t: t?,
                distance,
            }
        }
        "delta-presence" => {
            let min = it.num("delta_min", 0.0, 1.0);
            let max = it.num("delta_max", 0.0, 1.0);
            if let (Some(a), Some(b)) = (min, max)
                && a > b
            {
                it.problems
                    .push(format!("{}: delta_min {a} is above delta_max {b}", it.at));
            }
            ModelSpec::DeltaPresence {
                min: min?,
                max: max?,
            }
        }
        "k-map" => {
            let k = it.int("k", 1.0);
            let f = it.opt_num("sampling_fraction", f64::MIN_POSITIVE, 1.0);
            ModelSpec::KMap {
                k: k?,
                sampling_fraction: f,
            }
        }
        "beta-likeness" => {
            let sensitive = it.text("sensitive", None);
            let beta = it.num("beta", 0.0, big);
            let enhanced = it.flag("enhanced", true);
            ModelSpec::BetaLikeness {
                sensitive: sensitive?,
                beta: beta?,
                enhanced,
            }
        }
        "delta-disclosure" => {
            let sensitive = it.text("sensitive", None);
            let delta = it.num("delta", 0.0, big);
            ModelSpec::DeltaDisclosure {
                sensitive: sensitive?,
                delta: delta?,
            }
        }
        _ => {
            let sensitive = it.text("sensitive", None);
            let alpha = it.num("alpha", 0.0, 1.0);
            let k = it.int("k", 1.0);
            ModelSpec::AlphaK {
                sensitive: sensitive?,
                alpha: alpha?,
                k: k?,
            }
        }
    })
}

/// An attack constraint as declared.
#[derive(Debug, Clone, PartialEq)]
pub struct AttackSpec {
    /// `wildcard` rule rather than `listwise`.
    pub wildcard: bool,
    /// The keys the intruder knows (empty: every key).
    pub keys: Vec<String>,
    /// Largest rate allowed.
    pub max_rate: f64,
}

/// Reads `attack_constraints`: a list of `{ attack = "exact", rule = "listwise" | "wildcard",
/// keys = [...], max_rate = r }`.
pub fn read_attacks(r: &mut ParamReader) -> Option<Vec<AttackSpec>> {
    let v: toml::Value = r.get("attack_constraints")?;
    let items: Vec<toml::Value> = match v {
        toml::Value::Array(a) => a,
        toml::Value::Table(t) => vec![toml::Value::Table(t)],
        other => {
            r.problem(
                "attack_constraints",
                format!("expected a list of tables, found {}", describe(&other)),
            );
            return None;
        }
    };
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (i, v) in items.iter().enumerate() {
        let at = format!("item {}", i + 1);
        let Some(t) = v.as_table() else {
            problems.push(format!("{at}: expected a table, found {}", describe(v)));
            continue;
        };
        let mut it = Item {
            t,
            at: at.clone(),
            problems: Vec::new(),
            used: Vec::new(),
        };
        let attack = it.text("attack", Some("exact"));
        if attack.as_deref().is_some_and(|a| a != "exact") {
            it.problems.push(format!(
                "{at}: attack '{}' cannot be a search constraint; the search judges each node with the exact attack (listwise or wildcard)",
                attack.unwrap_or_default()
            ));
        }
        let rule = it.text("rule", Some("listwise"));
        let wildcard = match rule.as_deref() {
            Some("listwise") => false,
            Some("wildcard") => true,
            Some(o) => {
                it.problems.push(format!(
                    "{at}: 'rule' is '{o}'; expected listwise or wildcard"
                ));
                false
            }
            None => false,
        };
        it.used.push("keys");
        let keys: Vec<String> = match t.get("keys") {
            None => Vec::new(),
            Some(toml::Value::Array(a)) => a
                .iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect(),
            Some(toml::Value::String(s)) => vec![s.clone()],
            Some(o) => {
                it.problems.push(format!(
                    "{at}: 'keys' expected a list of columns, found {}",
                    describe(o)
                ));
                Vec::new()
            }
        };
        let max_rate = it.num("max_rate", 0.0, 1.0);
        problems.extend(it.finish());
        if let Some(m) = max_rate {
            out.push(AttackSpec {
                wildcard,
                keys,
                max_rate: m,
            });
        }
    }
    for p in &problems {
        r.problem("attack_constraints", p);
    }
    problems.is_empty().then_some(out)
}

/// Reads `hierarchies`: column = "file.csv" | { file, delimiter } | { interval = [...], origin }
/// | { mask = true, with = "*" }. Files are read (and checked) now, relative to `base`.
pub fn read_hierarchies(
    r: &mut ParamReader,
    delimiter: u8,
    base: Option<&Path>,
) -> Option<Vec<(String, HierarchySpec)>> {
    let t: toml::Table = r.require("hierarchies")?;
    if t.is_empty() {
        r.problem(
            "hierarchies",
            "names no column; give column = \"hierarchy.csv\" for each key",
        );
        return None;
    }
    let mut out = Vec::new();
    for (col, v) in &t {
        match hierarchy_spec(col, v, delimiter, base) {
            Ok(s) => out.push((col.clone(), s)),
            Err(e) => r.problem("hierarchies", format!("{col}: {e}")),
        }
    }
    r.ok().then_some(out)
}

fn hierarchy_spec(
    col: &str,
    v: &toml::Value,
    delimiter: u8,
    base: Option<&Path>,
) -> Result<HierarchySpec, String> {
    let file = |path: &str, delim: u8| -> Result<HierarchySpec, String> {
        let p: PathBuf = resolve(base, path);
        Hierarchy::from_file(col, &p, delim)
            .map(HierarchySpec::File)
            .map_err(|e| e.to_string())
    };
    match v {
        toml::Value::String(s) => file(s, delimiter),
        toml::Value::Table(t) => {
            let known = ["file", "delimiter", "interval", "origin", "mask", "with"];
            if let Some(k) = t.keys().find(|k| !known.contains(&k.as_str())) {
                return Err(format!(
                    "unknown key '{k}'; a hierarchy is a file (\"h.csv\", or {{ file, delimiter }}), {{ interval = [widths], origin }} or {{ mask = true, with = \"*\" }}"
                ));
            }
            if let Some(f) = t.get("file") {
                let f = f.as_str().ok_or("'file' expected a path")?;
                let d = match t.get("delimiter") {
                    None => delimiter,
                    Some(toml::Value::String(s)) if s.len() == 1 => s.as_bytes()[0],
                    Some(_) => return Err("'delimiter' expected one character".into()),
                };
                return file(f, d);
            }
            if let Some(w) = t.get("interval") {
                let widths: Vec<f64> = w
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_float().or(x.as_integer().map(|i| i as f64)))
                            .collect()
                    })
                    .ok_or("'interval' expected a list of band widths, one per level")?;
                let origin = match t.get("origin") {
                    None => 0.0,
                    Some(o) => o
                        .as_float()
                        .or(o.as_integer().map(|i| i as f64))
                        .ok_or("'origin' expected a number")?,
                };
                if widths.is_empty() {
                    return Err("'interval' needs at least one band width".into());
                }
                return Ok(HierarchySpec::Interval { widths, origin });
            }
            if t.get("mask").and_then(|m| m.as_bool()) == Some(true) {
                let with = match t.get("with") {
                    None => '*',
                    Some(toml::Value::String(s)) if s.chars().count() == 1 => {
                        s.chars().next().unwrap_or('*')
                    }
                    Some(_) => return Err("'with' expected one character".into()),
                };
                return Ok(HierarchySpec::Mask { with });
            }
            Err("expected { file = \"h.csv\" }, { interval = [widths] } or { mask = true }".into())
        }
        other => Err(format!(
            "expected a hierarchy file path or a table, found {}",
            describe(other)
        )),
    }
}
