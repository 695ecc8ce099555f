//! `[[question]]` tables: the three questions of anonymisation (singling out, linkability,
//! inference), each read by the facade (`intruder::questions::check_params`) under anonymeter's
//! parameter names; `name` is the runner's label.

use serde::ser::{Serialize, SerializeMap, Serializer};
use toml::Table;

use intruder::questions::Question;

use crate::reader::{Problems, describe};

/// One question asked of every run's release.
#[derive(Debug, Clone, PartialEq)]
pub struct QuestionSpec {
    /// Label in metric names (`question.<name>.<figure>`; default: the method name).
    pub name: String,
    /// The question.
    pub question: Question,
    /// The table as given, without `name` (what `ask` reads).
    pub params: Table,
    /// The columns the parameters name (auxiliary columns, then the secret).
    pub columns: Vec<String>,
    /// Targets each attack draws.
    pub n_attacks: usize,
}

impl Serialize for QuestionSpec {
    /// The stored form (part of every run key): the name, the method and the parameters as
    /// given.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("name", &self.name)?;
        m.serialize_entry("method", self.question.name())?;
        for (k, v) in &self.params {
            if k != "method" {
                m.serialize_entry(k, &crate::grid::to_json(v))?;
            }
        }
        m.end()
    }
}

/// The questions an experiment asks: the three with anonymeter's rates and risk (singling out,
/// linkability, inference), membership inference and the distances to the closest record.
fn askable() -> Vec<Question> {
    Question::ALL.to_vec()
}

/// The method names of the questions an experiment asks, for messages.
fn methods() -> String {
    askable()
        .iter()
        .map(|q| q.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Reads `[[question]]` number `i` (0-based): the method, the label and the question's own
/// parameters, every problem recorded under `question[i+1]`; `file` names the experiment file
/// in the facade's messages.
pub(crate) fn parse_question(
    t: &Table,
    i: usize,
    file: &str,
    p: &mut Problems,
) -> Option<QuestionSpec> {
    let loc = format!("question[{}]", i + 1);
    let question = match t.get("method") {
        None => {
            p.push(
                &format!("{loc}.method"),
                format!("is required: one of {}", methods()),
            );
            return None;
        }
        Some(toml::Value::String(m)) => match Question::named(m) {
            Some(q) => q,
            None => {
                let names: Vec<&str> = askable().iter().map(|q| q.name()).collect();
                p.push(
                    &format!("{loc}.method"),
                    format!(
                        "unknown question '{m}'{}; the questions are: {}",
                        intruder_data::params::did_you_mean(m, names.iter().copied()),
                        methods()
                    ),
                );
                return None;
            }
        },
        Some(other) => {
            p.push(
                &format!("{loc}.method"),
                format!("expected a string, found {}", describe(other)),
            );
            return None;
        }
    };
    let mut params = t.clone();
    let name = match params.remove("name") {
        None => question.name().to_string(),
        Some(toml::Value::String(n)) => n,
        Some(other) => {
            p.push(
                &format!("{loc}.name"),
                format!("expected a string, found {}", describe(&other)),
            );
            return None;
        }
    };
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        p.push(
            &format!("{loc}.name"),
            format!("'{name}': expected letters, digits, '-' or '_' (it names the metrics)"),
        );
    }
    match intruder::questions::check_params(question, &params, file) {
        Ok(checked) => Some(QuestionSpec {
            name,
            question,
            params,
            columns: checked.columns,
            n_attacks: checked.n_attacks.unwrap_or(0),
        }),
        Err(e) => {
            match e.downcast_ref::<intruder_data::params::ParamError>() {
                Some(pe) => {
                    for problem in &pe.problems {
                        let path = if problem.path.is_empty() {
                            loc.clone()
                        } else {
                            format!("{loc}.{}", problem.path)
                        };
                        p.push(&path, &problem.message);
                    }
                }
                None => {
                    // the facade names the source; the problem's key path names it here
                    let text = e.to_string();
                    let text = text
                        .strip_prefix(&format!("{file}: "))
                        .unwrap_or(&text)
                        .to_string();
                    p.push(&loc, text);
                }
            }
            None
        }
    }
}
