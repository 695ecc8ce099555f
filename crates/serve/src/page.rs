//! The page (one HTML file with its CSS and JavaScript, embedded in the binary) and what it
//! needs of the server besides the registries: the files each generator writes, and the
//! experiment file written from the page's session.

use serde_json::{Value, json};

/// The page: every form on it is built from `/api/registries`.
pub const HTML: &str = include_str!("page.html");

/// The sections of an experiment file in the order a person reads them (the header's keys
/// first); keys not listed follow in their own order.
const ORDER: [&str; 16] = [
    "name",
    "description",
    "seed",
    "replicates",
    "data",
    "scenario",
    "defence",
    "attack",
    "risk",
    "question",
    "utility",
    "report",
    "published",
    "longitudinal",
    "tiny",
    "paper",
];

/// Each generator's files with their columns (name, type, role) at its default parameters,
/// so the page can offer a generator's released file, truth and keys before generating.
pub fn generator_files() -> Value {
    let mut out = serde_json::Map::new();
    for g in intruder_synth::generators() {
        let files = match intruder_synth::schemas(g.name, None, &[], 1) {
            Ok(files) => files,
            Err(_) => continue,
        };
        let files: Vec<Value> = files
            .iter()
            .map(|(file, schema)| {
                let columns: Vec<Value> = schema
                    .columns
                    .iter()
                    .map(|c| {
                        json!({
                            "name": c.name,
                            "kind": c.ty.as_str(),
                            "role": c.role.as_str(),
                        })
                    })
                    .collect();
                json!({"file": file, "columns": columns})
            })
            .collect();
        out.insert(g.name.to_string(), Value::Array(files));
    }
    Value::Object(out)
}

/// The experiment file of a session: a comment saying how to run it, then the header keys and
/// the sections in reading order ([`ORDER`]), each written by the `toml` crate.
pub fn experiment_text(table: &toml::Table) -> Result<String, String> {
    let mut out = String::from(
        "# Written by `intruder serve`. Save it beside the data it names (its paths are relative\n# to this file) and run it with: intruder run THIS_FILE.toml\n",
    );
    let mut header = toml::Table::new();
    let mut keys: Vec<&String> = table.keys().collect();
    keys.sort_by_key(|k| ORDER.iter().position(|o| o == k).unwrap_or(ORDER.len()));
    for k in &keys {
        let v = &table[k.as_str()];
        if !matches!(v, toml::Value::Table(_)) && !is_array_of_tables(v) {
            header.insert((*k).clone(), v.clone());
        }
    }
    out.push_str(&toml::to_string(&header).map_err(|e| e.to_string())?);
    for k in keys {
        let v = &table[k.as_str()];
        if matches!(v, toml::Value::Table(_)) || is_array_of_tables(v) {
            let mut one = toml::Table::new();
            one.insert(k.clone(), v.clone());
            out.push('\n');
            out.push_str(&toml::to_string(&one).map_err(|e| e.to_string())?);
        }
    }
    Ok(out)
}

/// Whether `v` is a non-empty array of tables (`[[attack]]`).
fn is_array_of_tables(v: &toml::Value) -> bool {
    matches!(v, toml::Value::Array(a) if !a.is_empty() && a.iter().all(toml::Value::is_table))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_experiment_is_written_in_reading_order_and_reads_back_the_same() {
        let t: toml::Table = toml::from_str(
            r#"
            seed = 7
            name = "s"
            [[attack]]
            method = "exact"
            [data]
            released = "a.csv"
            truth = "id"
            [[defence]]
            name = "k"
            [[defence.step]]
            method = "local-suppression"
            k = [2, 3]
            "#,
        )
        .unwrap();
        let text = experiment_text(&t).unwrap();
        let back: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(back, t);
        let at = |s: &str| text.find(s).unwrap();
        assert!(at("name = ") < at("seed = "));
        assert!(at("seed = ") < at("[data]"));
        assert!(at("[data]") < at("[[defence]]"));
        assert!(at("[[defence]]") < at("[[attack]]"));
        assert!(text.contains("[[defence.step]]"), "{text}");
    }

    #[test]
    fn every_generator_lists_its_files_with_columns() {
        let g = generator_files();
        let panel = g["survey-panel"].as_array().unwrap();
        assert!(!panel.is_empty());
        let cols = panel[0]["columns"].as_array().unwrap();
        assert!(cols.iter().any(|c| c["role"] == "truth"), "{cols:?}");
    }
}
