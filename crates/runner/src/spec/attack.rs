//! `[[attack]]` tables: each is handed to `intruder_attack::configure`, so every parameter the
//! command line's `--set` accepts is accepted here under the same name, and vice versa.

use std::path::Path;
use std::sync::Arc;

use intruder_attack::{Configured, configure};
use intruder_data::params::ReadContext;
use serde::{Serialize, Serializer};
use serde_json::{Value, json};
use toml::Table;

use crate::reader::Problems;

/// One attack, configured once (its seed is given per run).
#[derive(Clone)]
pub struct AttackSpec {
    /// Label in reports and metric names (default: the method).
    pub name: String,
    /// Registry name.
    pub method: String,
    /// Keys as named in the intruder's file (default: the scenario's; for fellegi-sunter with a
    /// linkage specification, its columns).
    pub keys: Vec<String>,
    /// Intruder name → released name for the keys named differently (the attack's `key_map`,
    /// else the scenario's).
    pub key_map: Vec<(String, String)>,
    /// Restrict the released file to the intruder's twins first (Bender's response knowledge).
    pub twins_only: bool,
    /// Released sensitive variable scored for attribute disclosure (Mitra's A).
    pub sensitive: Option<String>,
    /// The configured attack (shared by every run).
    pub configured: Arc<Configured>,
}

impl std::fmt::Debug for AttackSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttackSpec")
            .field("name", &self.name)
            .field("method", &self.method)
            .field("keys", &self.keys)
            .field("params", &self.configured.attack.params())
            .finish()
    }
}

impl PartialEq for AttackSpec {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.method == other.method
            && self.keys == other.keys
            && self.key_map == other.key_map
            && self.configured.resolved(None) == other.configured.resolved(None)
    }
}

impl AttackSpec {
    /// The resolved parameters (method, common and the method's own, defaults included).
    pub fn resolved(&self) -> Value {
        let mut v = self.configured.resolved(None);
        if let Some(o) = v.as_object_mut() {
            o.insert("keys".into(), json!(self.keys));
            o.insert(
                "key_map".into(),
                Value::Object(
                    self.key_map
                        .iter()
                        .map(|(a, b)| (a.clone(), Value::from(b.clone())))
                        .collect(),
                ),
            );
        }
        v
    }

    /// The layout the plan hashes into every run id (`plan.rs`), hence into every seed: frozen
    /// to the flat attack configuration of earlier releases, so that an experiment file keeps
    /// its run ids, seeds and results. Parameters a method does not have take the old defaults.
    fn plan_identity(&self) -> Value {
        let p = self.configured.attack.params();
        let get = |k: &str, default: Value| p.get(k).cloned().unwrap_or(default);
        let fs = self.method == "fellegi-sunter";
        let weights: Vec<Value> = match p.get("weights") {
            Some(Value::Object(m)) => m.iter().map(|(k, w)| json!([k, w])).collect(),
            _ => Vec::new(),
        };
        let mut identity = json!({
            "name": self.name,
            "method": self.method,
            "keys": self.keys,
            "config": {
                "missing": get("missing", json!("listwise")),
                "metric": get("metric", json!("euclidean")),
                "string_metric": get("string_metric", json!("jaro-winkler")),
                "standardize": get("standardize", json!(false)),
                "weights": weights,
                "top_k": get("top_k", json!(5)),
                "one_to_one": get("one_to_one", json!(false)),
                "clusters": get("clusters", Value::Null),
                "seed": 0,
                "fellegi_sunter": {
                    "spec": get("linkage", Value::Null),
                    "threshold": if fs { get("threshold", json!(0.5)) } else { json!(0.5) },
                    "assignment": get("assignment", json!("greedy")),
                    "u_sample": get("u_sample", json!(1_000_000)),
                    "em_max_iter": get("em_max_iter", json!(25)),
                    "em_tolerance": get("em_tolerance", json!(1e-4)),
                    "fix_u_in_em": get("fix_u", json!(false)),
                    "u_free_in_em": get("u_free_in_em", json!(true)),
                    "training": get("training", json!("per-rule")),
                },
            },
            "twins_only": self.twins_only,
            "threshold": if fs { Value::Null } else { get("threshold", Value::Null) },
            "sensitive": self.sensitive,
            "tolerance": self.configured.common.tolerance,
        });
        // An attack added since carries every parameter of its own, so a changed parameter
        // changes its run ids (a stored run is never reused for another configuration).
        if !FROZEN_LAYOUT.contains(&self.method.as_str())
            && let Some(o) = identity.as_object_mut()
        {
            o.insert("params".into(), Value::Object(p));
        }
        identity
    }
}

/// The attacks of the releases before the registry, whose run ids are the frozen flat layout
/// of [`AttackSpec::plan_identity`] alone; every other attack adds its parameters.
const FROZEN_LAYOUT: [&str; 5] = ["exact", "nearest", "kmeans", "link", "fellegi-sunter"];

impl Serialize for AttackSpec {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.plan_identity().serialize(s)
    }
}

/// Reads `[[attack]]` number `i` (0-based); the scenario's keys and key map are the defaults.
pub(crate) fn parse_attack(
    t: &Table,
    i: usize,
    keys: &[String],
    key_map: &[(String, String)],
    base_dir: &Path,
    p: &mut Problems,
) -> Option<AttackSpec> {
    let loc = format!("attack[{}]", i + 1);
    let ctx = ReadContext {
        base_dir: Some(base_dir),
        columns: None,
    };
    let configured = match configure(t, &loc, ctx) {
        Ok(c) => c,
        Err(problems) => {
            p.extend(problems);
            return None;
        }
    };
    p.warn(configured.warnings.clone());
    let km = match configured.key_map(keys, key_map) {
        Ok(k) => k,
        Err(e) => {
            p.push(&format!("{loc}.keys"), e);
            return None;
        }
    };
    Some(AttackSpec {
        name: configured.name().to_string(),
        method: configured.method.to_string(),
        keys: km.pairs().iter().map(|k| k.intruder.clone()).collect(),
        key_map: km
            .pairs()
            .iter()
            .filter(|k| k.released != k.intruder)
            .map(|k| (k.intruder.clone(), k.released.clone()))
            .collect(),
        twins_only: configured.common.twins_only,
        sensitive: configured.common.sensitive.clone(),
        configured: Arc::new(configured),
    })
}
