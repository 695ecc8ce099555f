//! `[[risk]]` tables.

use serde::Serialize;
use toml::Table;

use crate::reader::{Problems, Section};

/// Which file a risk assessment reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RiskFile {
    /// The released (masked) file.
    Released,
    /// The intruder's whole source file, unmasked (e.g. the population).
    Source,
}

/// One risk assessment.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RiskSpec {
    /// Label in metric names (`risk.<name>.<figure>`).
    pub name: String,
    /// Keys (default: the scenario's, under their released names).
    pub keys: Vec<String>,
    /// Missing-value policy.
    pub missing: String,
    /// File assessed.
    pub file: RiskFile,
    /// Population size N.
    pub population_size: Option<f64>,
    /// Weight column.
    pub weight: Option<String>,
    /// Sensitive column (ℓ-diversity).
    pub sensitive: Option<String>,
    /// Dalenius' uniqueness threshold.
    pub unique_threshold: u32,
    /// n_match under every policy.
    pub with_n_match: bool,
}

pub(crate) fn parse_risk(
    t: &Table,
    i: usize,
    keys: &[String],
    p: &mut Problems,
) -> Option<RiskSpec> {
    let loc = format!("risk[{}]", i + 1);
    let mut s = Section::new(t, loc.clone());
    let missing = s.string(p, "missing").unwrap_or_else(|| "listwise".into());
    if missing.parse::<intruder_risk::MissingPolicy>().is_err() {
        p.push(
            &s.key("missing"),
            format!("unknown policy '{missing}'; expected listwise, as-value or wildcard"),
        );
    }
    let name = s.string(p, "name").unwrap_or_else(|| missing.clone());
    let rkeys = s.strings(p, "keys").unwrap_or_else(|| keys.to_vec());
    let file = match s.string(p, "file").as_deref() {
        None | Some("released") => RiskFile::Released,
        Some("source") => RiskFile::Source,
        Some(other) => {
            p.push(
                &s.key("file"),
                format!("unknown file '{other}'; expected released or source"),
            );
            RiskFile::Released
        }
    };
    let population_size = s.number(p, "population_size");
    let weight = s.string(p, "weight");
    let sensitive = s.string(p, "sensitive");
    let unique_threshold = s.uint(p, "unique_threshold").unwrap_or(1) as u32;
    let with_n_match = s.boolean(p, "with_n_match").unwrap_or(false);
    s.finish(p);
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        p.push(
            &format!("{loc}.name"),
            "expected letters, digits, '-' or '_'",
        );
    }
    Some(RiskSpec {
        name,
        keys: rkeys,
        missing,
        file,
        population_size,
        weight,
        sensitive,
        unique_threshold,
        with_n_match,
    })
}
