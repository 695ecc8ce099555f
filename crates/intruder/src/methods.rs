//! Every method family's registry as data: the names, summaries, references and declared
//! parameters (type, choices, default, range, role, docs) that `--list` prints, as JSON. The
//! web page of `intruder serve` builds its forms from it, so a method added to a registry
//! appears there with no page edit.

use anyhow::{Result, bail};
use intruder_data::params::{MethodDoc, ParamKind, ParamSpec, did_you_mean};
use serde_json::{Value, json};

/// The families, in the order a page or a listing shows them: what the experiment file calls
/// `[[risk]]`, `[[attack]]`, `[[question]]`, `[[defence.step]]`, `[utility] measures` and
/// `[data] generator`.
pub const FAMILIES: [&str; 6] = [
    "risk",
    "attack",
    "question",
    "defence",
    "utility",
    "generator",
];

/// The documentation of every method of `family` (one of [`FAMILIES`]), in registry order.
pub fn docs(family: &str) -> Result<Vec<MethodDoc>> {
    Ok(match family {
        "risk" => intruder_risk::docs(),
        "attack" => intruder_attack::docs(),
        "question" => crate::questions::docs(),
        "defence" | "defense" => intruder_defence::docs(),
        "utility" => intruder_utility::docs(),
        "generator" => intruder_synth::docs(),
        other => bail!(
            "unknown family '{other}'{}; the families are: {}",
            did_you_mean(other, FAMILIES),
            FAMILIES.join(", ")
        ),
    })
}

/// The families of a surface's listing (Python's `intruder.methods(family)`): the five method
/// families, the questions listed with the attacks, as `intruder attack --list` shows them and
/// `intruder attack --method` and Python's `attack()` run them.
pub const LISTED: [&str; 5] = ["attack", "defence", "risk", "utility", "generator"];

/// The methods of `family` (one of [`LISTED`], or `defense`) as JSON ([`docs_json`]): what
/// Python's `intruder.methods(family)` returns. `attack` lists the attacks, then the questions.
pub fn listing(family: &str) -> Result<Value> {
    let docs = match family {
        "attack" => {
            let mut d = docs("attack")?;
            d.extend(docs("question")?);
            d
        }
        "defence" | "defense" | "risk" | "utility" | "generator" => docs(family)?,
        other => bail!(
            "unknown family '{other}'{}; the families are: {}",
            did_you_mean(other, LISTED),
            LISTED.join(", ")
        ),
    };
    Ok(docs_json(&docs))
}

/// The kind of a parameter as one word a program can switch on (`type` is the docs' text).
pub fn kind_word(kind: ParamKind) -> &'static str {
    match kind {
        ParamKind::Integer => "integer",
        ParamKind::Number => "number",
        ParamKind::Bool => "bool",
        ParamKind::String => "string",
        ParamKind::Choice(_) => "choice",
        ParamKind::Path => "path",
        ParamKind::Column => "column",
        ParamKind::Columns => "columns",
        ParamKind::Strings => "strings",
        ParamKind::Numbers => "numbers",
        ParamKind::Integers => "integers",
        ParamKind::Matrix => "matrix",
        ParamKind::Map => "map",
        ParamKind::NumberMap => "number-map",
        ParamKind::Table => "table",
    }
}

/// One declared parameter as JSON: name, type (as the docs write it) and kind (one word),
/// choices, required, default, range, the role whose columns are its default, old names, docs,
/// whether it is the family's common one, and the value the method's example gives it.
pub fn param_json(s: &ParamSpec, common: bool) -> Value {
    json!({
        "name": s.name,
        "type": s.kind.as_str(),
        "kind": kind_word(s.kind),
        "choices": match s.kind { ParamKind::Choice(w) => json!(w), _ => Value::Null },
        "required": s.required,
        "default": if s.default.is_empty() { Value::Null } else { json!(s.default_text()) },
        "range": if s.range.is_bounded() { json!(s.range.to_string()) } else { Value::Null },
        "role": s.role.map(|r| r.as_str()),
        "aliases": s.aliases,
        "doc": s.doc,
        "common": common,
        "example": if s.example.is_empty() { Value::Null } else { json!(s.example) },
    })
}

/// The methods of `docs` as a JSON array: name, summary, reference, parameters (the
/// family's common ones first, marked `common`) and the figures each declares (id, human name,
/// unit, reference, whether it is never negative), and its example's settings.
pub fn docs_json(docs: &[MethodDoc]) -> Value {
    Value::Array(
        docs.iter()
            .map(|d| {
                let mut ps: Vec<Value> = d.common.iter().map(|s| param_json(s, true)).collect();
                ps.extend(d.params.iter().map(|s| param_json(s, false)));
                let figures: Vec<Value> = d
                    .figures
                    .iter()
                    .map(|f| {
                        json!({
                            "id": f.id,
                            "name": f.name,
                            "unit": f.unit.as_str(),
                            "reference": f.reference,
                            "non_negative": f.non_negative,
                        })
                    })
                    .collect();
                json!({
                    "name": d.name,
                    "summary": d.summary,
                    "reference": d.reference,
                    "parameters": ps,
                    "figures": figures,
                    "example": d.example().map_or(Value::Null, |t| {
                        serde_json::to_value(t).expect("a TOML table is JSON")
                    }),
                })
            })
            .collect(),
    )
}

/// Every family's methods as one JSON object, keyed by family name.
pub fn registries_json() -> Value {
    let mut out = serde_json::Map::new();
    for f in FAMILIES {
        // every name of FAMILIES is a family
        let docs = docs(f).unwrap_or_default();
        out.insert(f.to_string(), docs_json(&docs));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_family_lists_its_registry_in_order() {
        let all = registries_json();
        for f in FAMILIES {
            let names: Vec<&str> = all[f]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["name"].as_str().unwrap())
                .collect();
            let expected: Vec<&str> = docs(f).unwrap().iter().map(|d| d.name).collect();
            assert_eq!(names, expected, "{f}");
            assert!(!names.is_empty(), "{f}");
        }
    }

    #[test]
    fn a_parameter_carries_its_type_default_and_docs() {
        let defences = docs_json(&docs("defence").unwrap());
        let pram = defences
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == "pram")
            .unwrap();
        let pd = pram["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "pd")
            .unwrap();
        assert_eq!(pd["type"], "number");
        assert_eq!(pd["kind"], "number");
        let variables = pram["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "variables")
            .unwrap();
        assert_eq!(variables["type"], "list of columns");
        assert_eq!(variables["kind"], "columns");
        assert!(!pd["doc"].as_str().unwrap().is_empty());
    }

    #[test]
    fn an_unknown_family_is_refused_with_a_suggestion() {
        let e = docs("defense").map(|d| d.len()).unwrap();
        assert!(e > 0);
        let err = docs("atack").unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown family 'atack' (did you mean 'attack'?); the families are: risk, attack, question, defence, utility, generator"
        );
    }
}
