//! `[[attack]]` tables.

use intruder_attack::{AttackConfig, MissingPolicy, attack_by_name};
use serde::Serialize;
use toml::Table;

use crate::reader::{Problems, Section};

/// One attack.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttackSpec {
    /// Label in reports and metric names (default: the method).
    pub name: String,
    /// Registry name.
    pub method: String,
    /// Keys (default: the scenario's).
    pub keys: Vec<String>,
    /// The attack's parameters.
    pub config: AttackConfig,
    /// Restrict the released file to the intruder's twins first (Bender's response knowledge).
    pub twins_only: bool,
    /// Declare links at this score only (precision/recall).
    pub threshold: Option<f64>,
    /// Released sensitive variable scored for attribute disclosure (Mitra's A).
    pub sensitive: Option<String>,
    /// Tolerance of attribute disclosure.
    pub tolerance: f64,
}

pub(crate) fn parse_attack(
    t: &Table,
    i: usize,
    keys: &[String],
    p: &mut Problems,
) -> Option<AttackSpec> {
    let loc = format!("attack[{}]", i + 1);
    let mut s = Section::new(t, loc.clone());
    let method = s.string(p, "method");
    if method.is_none() && !t.contains_key("method") {
        p.push(&s.key("method"), "is required");
    }
    let name = s.string(p, "name");
    let akeys = s.strings(p, "keys");
    let mut config = AttackConfig::default();
    if let Some(m) = s.string(p, "missing") {
        match m.parse::<MissingPolicy>() {
            Ok(x) => config.missing = x,
            Err(e) => p.push(&s.key("missing"), e),
        }
    }
    if let Some(m) = s.string(p, "metric") {
        match m.parse() {
            Ok(x) => config.metric = x,
            Err(e) => p.push(&s.key("metric"), e),
        }
    }
    if let Some(m) = s.string(p, "string_metric") {
        match m.parse() {
            Ok(x) => config.string_metric = x,
            Err(e) => p.push(&s.key("string_metric"), e),
        }
    }
    if let Some(b) = s.boolean(p, "standardize") {
        config.standardize = b;
    }
    if let Some(w) = s.number_map(p, "weights") {
        config.weights = w;
    }
    if let Some(k) = s.uint(p, "top_k") {
        config.top_k = k as usize;
    }
    if let Some(b) = s.boolean(p, "one_to_one") {
        config.one_to_one = b;
    }
    if let Some(k) = s.uint(p, "clusters") {
        config.clusters = Some(k as usize);
    }
    if let Some(k) = s.uint(p, "u_sample") {
        config.fellegi_sunter.u_sample = k as usize;
    }
    if let Some(x) = s.number(p, "match_probability") {
        config.fellegi_sunter.threshold = x;
    }
    let twins_only = s.boolean(p, "twins_only").unwrap_or(false);
    let threshold = s.number(p, "threshold");
    let sensitive = s.string(p, "sensitive");
    let tolerance = s
        .number(p, "tolerance")
        .unwrap_or(intruder_attack::DEFAULT_TOLERANCE);
    s.finish(p);
    if let Err(e) = config.check() {
        p.push(&loc, e);
    }
    let method = method?;
    match attack_by_name(&method) {
        Ok(info) => {
            if let Err(e) = (info.build)(&config) {
                p.push(&loc, e);
            }
        }
        Err(e) => p.push(&format!("{loc}.method"), e),
    }
    let keys = akeys.unwrap_or_else(|| keys.to_vec());
    Some(AttackSpec {
        name: name.unwrap_or_else(|| method.clone()),
        method,
        keys,
        config,
        twins_only,
        threshold,
        sensitive,
        tolerance,
    })
}
