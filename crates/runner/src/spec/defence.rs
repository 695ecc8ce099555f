//! `[[defence]]` tables: a name and pipeline steps whose list-valued parameters are grid
//! dimensions; every setting of the grid is validated (the first invalid one reports).

use toml::{Table, Value};

use crate::grid::{DefenceSpec, expand_defence};
use crate::reader::{Problems, Section};

pub(crate) fn parse_defence(
    t: &Table,
    i: usize,
    released_keys: &[String],
    base_dir: Option<&std::path::Path>,
    p: &mut Problems,
) -> Option<DefenceSpec> {
    let loc = format!("defence[{}]", i + 1);
    let mut s = Section::new(t, loc.clone());
    let name = s.string(p, "name");
    if name.is_none() && !t.contains_key("name") {
        p.push(&s.key("name"), "is required (the label in reports)");
    }
    let mut steps: Vec<Table> = s.tables(p, "step").into_iter().cloned().collect();
    s.finish(p);
    // A step's key variables default to the scenario's keys (released names), as an attack's.
    for step in &mut steps {
        let Some(entry) = step
            .get("method")
            .and_then(Value::as_str)
            .and_then(intruder_defence::method)
        else {
            continue;
        };
        for spec in entry.params {
            if spec.role == Some(intruder_data::Role::Key)
                && !released_keys.is_empty()
                && !step.contains_key(spec.name)
                && !spec.aliases.iter().any(|a| step.contains_key(*a))
            {
                step.insert(
                    spec.name.into(),
                    Value::Array(released_keys.iter().cloned().map(Value::String).collect()),
                );
            }
        }
    }
    let name = name?;
    let spec = DefenceSpec { name, steps };
    // Validate every setting of the grid; report the problems of the first invalid one.
    match expand_defence(&spec) {
        Ok(settings) => {
            for st in &settings {
                let ctx = intruder_data::params::ReadContext {
                    base_dir,
                    columns: None,
                };
                match st.pipeline_at(&format!("{loc}."), ctx) {
                    Err(problems) => {
                        for x in problems {
                            let m = if settings.len() > 1 {
                                format!("{} (setting '{}')", x.message, st.label)
                            } else {
                                x.message
                            };
                            p.push(&x.path, m);
                        }
                        break;
                    }
                    Ok(pipe) => p.warn(pipe.warnings),
                }
            }
        }
        Err(e) => p.push(&loc, e),
    }
    Some(spec)
}
