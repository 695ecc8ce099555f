//! The `[scenario]` section: the intruder's keys, how much of the source they know, the
//! measurement error on their copy, and the control set the questions need.

use serde::Serialize;
use toml::{Table, Value};

use intruder_data::params::{ParamReader, ReadContext};

use crate::grid::BLANK_PARAMS;
use crate::reader::{Problems, Section};

/// One measurement-error step on the intruder's copy.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ErrorStep {
    /// A defence method of the registry, or `blank` (cells set missing at random).
    pub method: String,
    /// The step's parameters (method included).
    pub params: Table,
}

/// The intruder's knowledge.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scenario {
    /// Key variables, named as in the intruder's file.
    pub keys: Vec<String>,
    /// Intruder name → released name, for keys named differently.
    pub key_map: Vec<(String, String)>,
    /// Share of the intruder's source records the intruder knows (response knowledge); with the
    /// released file as source, the share of released people the intruder knows.
    pub known: f64,
    /// A fixed number of known records instead of a share.
    pub intruder_n: Option<u64>,
    /// Measurement error applied, in order, to the intruder's copy (truth stays intact).
    pub error: Vec<ErrorStep>,
    /// Repeat the release's deterministic recodings (global-recode, round, top-bottom-code) on
    /// the intruder's copy, as an intruder who reads the published categories would (default
    /// true).
    pub align: bool,
    /// Cross-examine every setting's promises (k-anonymity of local suppression, risk
    /// suppression, record removal, MDAV) with the exact attack on the whole release, every
    /// original record known (default true; `intruder_eval::verdict`). It reads the results
    /// and draws nothing at random, so it is not part of a run's key (its seeds).
    #[serde(skip_serializing_if = "is_true")]
    pub check: bool,
    /// The share of the original records reserved as the control set of the `[[question]]`
    /// tables before any defence runs (default 0: no control set). The defences, the intruder's
    /// sample and every measure see only the other records: with a control set, the released
    /// population is the complement.
    #[serde(skip_serializing_if = "is_zero")]
    pub control: f64,
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl Scenario {
    /// The keys as named in the released file (through `key_map`).
    pub fn released_keys(&self) -> Vec<String> {
        self.keys
            .iter()
            .map(|k| {
                self.key_map
                    .iter()
                    .find(|(a, _)| a == k)
                    .map_or_else(|| k.clone(), |(_, b)| b.clone())
            })
            .collect()
    }
}

pub(crate) fn parse_scenario(t: &Table, p: &mut Problems) -> Option<Scenario> {
    let mut s = Section::new(t, "scenario");
    let keys = s.strings(p, "keys");
    let key_map = s.string_map(p, "key_map").unwrap_or_default();
    let known = s.share(p, "known").unwrap_or(1.0);
    let intruder_n = s.uint(p, "intruder_n");
    let align = s.boolean(p, "align").unwrap_or(true);
    let check = s.boolean(p, "check").unwrap_or(true);
    let control = s.share(p, "control").unwrap_or(0.0);
    if control >= 1.0 {
        p.push(
            "scenario.control",
            format!("expected a share in [0, 1), found {control}: some records must be released"),
        );
    }
    let mut error = Vec::new();
    for (i, e) in s.tables(p, "error").into_iter().enumerate() {
        let loc = format!("scenario.error[{}]", i + 1);
        match e.get("method").and_then(Value::as_str) {
            None => p.push(
                &format!("{loc}.method"),
                "is required (a defence method, or 'blank')",
            ),
            Some("blank") => {
                let mut r =
                    ParamReader::new(e, loc.clone(), &[BLANK_PARAMS], ReadContext::default());
                let _: Option<Vec<String>> = r.require("variables");
                let _: Option<f64> = r.require("p");
                let outcome = r.finish();
                p.warn(outcome.warnings);
                p.extend(outcome.problems);
                error.push(ErrorStep {
                    method: "blank".into(),
                    params: e.clone(),
                });
            }
            Some(m) => {
                let mut params = e.clone();
                params.remove("method");
                match intruder_defence::Pipeline::single_at(m, params, &loc, ReadContext::default())
                {
                    Err(problems) => p.extend(problems),
                    Ok(pipe) => {
                        p.warn(pipe.warnings);
                        error.push(ErrorStep {
                            method: m.to_string(),
                            params: e.clone(),
                        });
                    }
                }
            }
        }
    }
    match &keys {
        Some(k) if k.is_empty() => p.push("scenario.keys", "list at least one key"),
        None if !t.contains_key("keys") => p.push("scenario.keys", "is required"),
        _ => {}
    }
    if let Some(k) = &keys {
        for (a, _) in &key_map {
            if !k.contains(a) {
                p.push(
                    &format!("scenario.key_map.{a}"),
                    format!("'{a}' is not one of the keys ({})", k.join(", ")),
                );
            }
        }
    }
    s.finish(p);
    Some(Scenario {
        keys: keys?,
        key_map,
        known,
        intruder_n,
        error,
        align,
        check,
        control: if control < 1.0 { control } else { 0.0 },
    })
}
