//! The attack registry ([`ATTACKS`], [`ATTACK_COMMON`]) and the one function every surface uses
//! to turn a table of parameters into a configured attack ([`configure`]): the command line's
//! `--set` and flags, an experiment's `[[attack]]` table, the library. docs/ARCHITECTURE.md describes
//! the contract.

use intruder_table::Role;
use intruder_table::params::{
    self, Entry, MethodDoc, ParamKind, ParamReader, ParamSpec, Problem, Range, ReadContext,
};
use serde_json::{Map, Value};

use crate::Attack;
use crate::error::{AttackError, ParamError};
use crate::keys::KeyMap;

/// The parameters every attack shares: the scenario (keys) and the evaluation (twins only,
/// attribute disclosure), not the method.
pub static ATTACK_COMMON: &[ParamSpec] = &[
    ParamSpec::new(
        "name",
        ParamKind::String,
        "label of the attack in reports and metric names (<name>.correct_match_rate)",
    )
    .default_value("the method"),
    ParamSpec::new(
        "keys",
        ParamKind::Columns,
        "key variables (quasi-identifiers), named as in the intruder's file; in an experiment the scenario's keys by default, for fellegi-sunter with a linkage specification its columns",
    )
    .from_role(Role::Key),
    ParamSpec::new(
        "key_map",
        ParamKind::Map,
        "keys named differently in the released file: { intruder_name = \"released_name\" }",
    ),
    ParamSpec::new(
        "twins_only",
        ParamKind::Bool,
        "search only the released records that have a twin in the intruder's file (Bender's response knowledge; selected with the truth before the attack)",
    )
    .default_value("false"),
    ParamSpec::new(
        "sensitive",
        ParamKind::Column,
        "released sensitive variable scored for attribute disclosure (Mitra's A)",
    ),
    ParamSpec::new(
        "tolerance",
        ParamKind::Number,
        "relative tolerance of attribute disclosure: y_j discloses y_i when |y_j − y_i| / |y_i| < tolerance",
    )
    .default_value("0.05")
    .within(Range::POSITIVE),
];

// Every attack's line is in `methods/mod.rs`.
pub use crate::methods::ATTACKS;

/// The documentation of every attack (for `--list`, the README and Python).
pub fn docs() -> Vec<MethodDoc> {
    ATTACKS.iter().map(|e| e.doc(ATTACK_COMMON)).collect()
}

/// The registered attack called `name`; the error suggests a near name and lists them all.
pub fn find(name: &str) -> Result<&'static Entry<dyn Attack>, ParamError> {
    params::find(ATTACKS, "attack", name).map_err(ParamError::Unsupported)
}

/// The parameters every attack shares, checked.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Common {
    /// Label in reports (`None`: the method's name).
    pub name: Option<String>,
    /// Key variables as named in the intruder's file (`None`: not given; the surface's default
    /// applies, see [`Configured::key_map`]).
    pub keys: Option<Vec<String>>,
    /// Intruder name → released name, for keys named differently.
    pub key_map: Vec<(String, String)>,
    /// Search only the released records with a twin in the intruder's file.
    pub twins_only: bool,
    /// Released sensitive variable of attribute disclosure.
    pub sensitive: Option<String>,
    /// Relative tolerance of attribute disclosure.
    pub tolerance: f64,
}

/// An attack configured from a table of parameters: the shared settings, the attack, and the
/// deprecation warnings its parameters raised.
pub struct Configured {
    /// The registry name.
    pub method: &'static str,
    /// The shared parameters.
    pub common: Common,
    /// The configured attack.
    pub attack: Box<dyn Attack>,
    /// Deprecated names used (accepted, to be reported).
    pub warnings: Vec<Problem>,
}

impl std::fmt::Debug for Configured {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Configured")
            .field("method", &self.method)
            .field("common", &self.common)
            .field("params", &self.attack.params())
            .finish()
    }
}

/// Reads `method`, the common parameters and the method's own from one table through one
/// [`ParamReader`] over `[ATTACK_COMMON, entry.params]`: every problem at once, each with its path
/// under `prefix` (`attack[2].threshold: …`), unknown keys with a did-you-mean. `ctx.base_dir`
/// anchors relative paths (`linkage_spec`).
pub fn configure(
    table: &toml::Table,
    prefix: &str,
    ctx: ReadContext<'_>,
) -> Result<Configured, Vec<Problem>> {
    let path = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    let mut problems = Vec::new();
    let entry = match table.get("method") {
        Some(toml::Value::String(m)) => match params::find(ATTACKS, "attack", m) {
            Ok(e) => Some(e),
            Err(message) => {
                problems.push(Problem {
                    path: path("method"),
                    message,
                });
                None
            }
        },
        Some(other) => {
            problems.push(Problem {
                path: path("method"),
                message: format!(
                    "expected the name of an attack, found {}",
                    params::describe(other)
                ),
            });
            None
        }
        None => {
            problems.push(Problem {
                path: path("method"),
                message: format!(
                    "is required but missing (the attack: {})",
                    ATTACKS
                        .iter()
                        .map(|e| e.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
            None
        }
    };
    let specs: Vec<&'static [ParamSpec]> = match entry {
        Some(e) => vec![ATTACK_COMMON, e.params],
        None => vec![ATTACK_COMMON],
    };
    let mut r = ParamReader::new(table, prefix, &specs, ctx);
    if entry.is_none() {
        // Without a method its parameters are unknown: report the common ones only.
        let others: Vec<&str> = table
            .keys()
            .map(String::as_str)
            .filter(|k| !ATTACK_COMMON.iter().any(|s| s.answers_to(k)))
            .collect();
        r = r.ignore(&others);
    }
    let common = read_common(&mut r);
    let attack = entry.and_then(|e| (e.build)(&mut r));
    let outcome = r.finish();
    problems.extend(outcome.problems);
    match (entry, attack) {
        (Some(e), Some(attack)) if problems.is_empty() => Ok(Configured {
            method: e.name,
            common,
            attack,
            warnings: outcome.warnings,
        }),
        (Some(e), None) if problems.is_empty() => Err(vec![Problem {
            path: prefix.to_string(),
            message: format!("'{}' could not be configured", e.name),
        }]),
        _ => Err(problems),
    }
}

fn read_common(r: &mut ParamReader<'_>) -> Common {
    Common {
        name: r.get::<String>("name"),
        keys: r.get::<Vec<String>>("keys"),
        key_map: r
            .get::<std::collections::BTreeMap<String, String>>("key_map")
            .map(|m| m.into_iter().collect())
            .unwrap_or_default(),
        twins_only: r.get::<bool>("twins_only").unwrap_or(false),
        sensitive: r.get::<String>("sensitive"),
        tolerance: r
            .get::<f64>("tolerance")
            .unwrap_or(crate::DEFAULT_TOLERANCE),
    }
}

impl Configured {
    /// The label of the attack: `name`, else the method.
    pub fn name(&self) -> &str {
        self.common.name.as_deref().unwrap_or(self.method)
    }

    /// The key names, in order: `keys` when given, else the columns the method's own parameters
    /// read (a linkage specification's), else `default_keys` (the scenario's keys, the schema's
    /// key columns). `None` when there is none.
    pub fn key_names(&self, default_keys: &[String]) -> Option<Vec<String>> {
        if let Some(k) = &self.common.keys {
            return Some(k.clone());
        }
        if let Some(k) = self.attack.implied_keys() {
            return Some(k.pairs().iter().map(|p| p.intruder.clone()).collect());
        }
        (!default_keys.is_empty()).then(|| default_keys.to_vec())
    }

    /// The key map of a run: the keys of [`key_names`](Self::key_names), renamed in the released
    /// file by `key_map`, else by the method's own parameters (a comparison's `released`), else
    /// by `default_map` (the scenario's). Errors when there is no key or `key_map` names a column
    /// that is not a key.
    pub fn key_map(
        &self,
        default_keys: &[String],
        default_map: &[(String, String)],
    ) -> Result<KeyMap, AttackError> {
        let names = self.key_names(default_keys).ok_or(ParamError::NoKeys)?;
        let implied = self.attack.implied_keys();
        let mut map: Vec<(String, String)> = self.common.key_map.clone();
        for n in &names {
            if map.iter().any(|(a, _)| a == n) {
                continue;
            }
            let from_method = implied
                .as_ref()
                .and_then(|k| k.pairs().iter().find(|p| &p.intruder == n))
                .filter(|p| p.released != p.intruder)
                .map(|p| p.released.clone());
            let from_default = default_map
                .iter()
                .find(|(a, _)| a == n)
                .map(|(_, b)| b.clone());
            if let Some(r) = from_method.or(from_default) {
                map.push((n.clone(), r));
            }
        }
        Ok(KeyMap::with_map(&names, &map)?)
    }

    /// The resolved parameters: the method, the common parameters (keys as resolved by the
    /// caller) and every parameter of the method with its value, defaults included.
    pub fn resolved(&self, keys: Option<&KeyMap>) -> Value {
        let mut m = Map::new();
        m.insert("method".into(), self.method.into());
        m.insert("name".into(), self.name().into());
        let names: Option<Vec<String>> = match keys {
            Some(k) => Some(k.pairs().iter().map(|p| p.intruder.clone()).collect()),
            None => self.common.keys.clone(),
        };
        m.insert(
            "keys".into(),
            serde_json::to_value(names).unwrap_or(Value::Null),
        );
        let map: Map<String, Value> = match keys {
            Some(k) => k
                .pairs()
                .iter()
                .filter(|p| p.released != p.intruder)
                .map(|p| (p.intruder.clone(), Value::from(p.released.clone())))
                .collect(),
            None => self
                .common
                .key_map
                .iter()
                .map(|(a, b)| (a.clone(), Value::from(b.clone())))
                .collect(),
        };
        m.insert("key_map".into(), Value::Object(map));
        m.insert("twins_only".into(), self.common.twins_only.into());
        m.insert("sensitive".into(), self.common.sensitive.clone().into());
        m.insert("tolerance".into(), self.common.tolerance.into());
        m.extend(self.attack.params());
        Value::Object(m)
    }
}
