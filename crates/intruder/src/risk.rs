//! The risk measures of one table: which columns a read must give their roles, and the measure
//! configured on the columns read, with the caller's words for a missing key. How the data is
//! read — a table, the key codes of a Parquet or CSV file a part at a time, Arrow arrays — is
//! still the surface's choice (the read paths differ by input kind).

use anyhow::{Result, anyhow};
use intruder_data::Role;
use intruder_data::params::{Built, ColumnSet, ReadContext};
use intruder_risk::{RiskMeasure, configure as configure_measure, fill_roles};

use crate::Surface;
use crate::attack::problems;

/// The columns the risk parameters name, each with its role (`keys`, `weight`, `sensitive`,
/// `group`): a table read for the measure gives them those roles.
pub fn roles_named(params: &toml::Table) -> Vec<(String, Role)> {
    let mut out = Vec::new();
    for (k, role) in [
        ("keys", Role::Key),
        ("weight", Role::Weight),
        ("sensitive", Role::Sensitive),
        ("group", Role::Group),
    ] {
        match params.get(k) {
            Some(toml::Value::String(s)) => out.push((s.clone(), role)),
            Some(toml::Value::Array(a)) => out.extend(
                a.iter()
                    .filter_map(|v| v.as_str().map(|s| (s.to_string(), role))),
            ),
            _ => {}
        }
    }
    out
}

/// The measure of `params` configured on `columns` (the data's, named `label`): the columns'
/// roles fill the parameters not given; every problem at once, named for `surface_name`, and
/// a missing key said in the caller's words.
pub fn configure(
    params: &mut toml::Table,
    columns: &ColumnSet,
    surface: Surface,
    surface_name: &str,
    label: &str,
) -> Result<Built<dyn RiskMeasure>> {
    fill_roles(params, columns);
    let ctx = ReadContext {
        base_dir: None,
        columns: Some(columns),
    };
    configure_measure(params, "", ctx, &[]).map_err(|p| {
        if !params.contains_key("keys") && p.len() == 1 && p[0].path == "keys" {
            let how = match surface {
                Surface::Cli => format!(
                    "--keys a,b,c or declare role = \"key\" in a schema (--schema, or {} beside the data)",
                    intruder_data::schema_beside(label.as_ref()).display()
                ),
                Surface::Python => "keys=[…] or declare the role \"key\" in schema=".into(),
                Surface::Page => "the role \"key\" on the columns of the page".into(),
            };
            anyhow!("{label}: no key variables: name them with {how}")
        } else {
            problems(surface_name, p)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roles_named_are_those_of_the_four_column_parameters() {
        let params = toml::toml! {
            keys = ["age", "sex"]
            weight = "w"
            group = "hh"
            measure = "frequency"
        };
        assert_eq!(
            roles_named(&params),
            vec![
                ("age".to_string(), Role::Key),
                ("sex".to_string(), Role::Key),
                ("w".to_string(), Role::Weight),
                ("hh".to_string(), Role::Group),
            ]
        );
    }
}
