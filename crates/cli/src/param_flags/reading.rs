//! How the text of a flag becomes a parameter value, by the parameter's kind.

use anyhow::{Result, bail};
use clap::ArgMatches;
use intruder_data::params::{self, ParamKind};

use super::FlagSpec;

/// How a flag's text becomes a parameter value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reading {
    /// A switch: present is `true`; `--flag=false` is `false`.
    Switch,
    /// Text as written (a word, a path, a column).
    Text,
    /// Comma-separated texts: a list of strings.
    Texts,
    /// Comma-separated numbers: a list of numbers.
    Numbers,
    /// `a=x,b=y` pairs: a table of texts (`numbers`: of numbers).
    Pairs { numbers: bool },
    /// One value read as `--set` reads it (TOML, else a list, else text).
    Value,
}

impl Reading {
    pub(super) fn of(kind: ParamKind) -> Reading {
        match kind {
            ParamKind::Bool => Reading::Switch,
            ParamKind::String | ParamKind::Choice(_) | ParamKind::Path | ParamKind::Column => {
                Reading::Text
            }
            ParamKind::Columns | ParamKind::Strings => Reading::Texts,
            ParamKind::Numbers | ParamKind::Integers => Reading::Numbers,
            ParamKind::Map => Reading::Pairs { numbers: false },
            ParamKind::NumberMap => Reading::Pairs { numbers: true },
            ParamKind::Integer | ParamKind::Number | ParamKind::Matrix | ParamKind::Table => {
                Reading::Value
            }
        }
    }

    pub(super) fn value_name(self, kind: ParamKind) -> &'static str {
        match (self, kind) {
            (Reading::Text, ParamKind::Path) => "FILE",
            (Reading::Text, ParamKind::Column) => "COL",
            (Reading::Text, ParamKind::Choice(_)) => "WORD",
            (Reading::Text, _) => "TEXT",
            (Reading::Texts, ParamKind::Columns) => "COLS",
            (Reading::Texts, _) => "A,B",
            (Reading::Numbers, _) => "X,Y",
            (Reading::Pairs { .. }, _) => "A=X,B=Y",
            (Reading::Value, ParamKind::Integer) => "N",
            (Reading::Value, ParamKind::Number) => "X",
            _ => "VALUE",
        }
    }
}

/// `a=x` items as a table (`numbers`: of numbers); one item that is an inline table is read
/// as TOML.
fn pairs(items: &[String], flag: &str, numbers: bool) -> Result<toml::Value> {
    if let [one] = items
        && one.trim_start().starts_with('{')
    {
        return Ok(params::parse_value_text(one));
    }
    let mut t = toml::Table::new();
    for s in items {
        let Some((a, b)) = s.split_once('=') else {
            bail!("--{flag}: '{s}' is not of the form name=value");
        };
        let (a, b) = (a.trim(), b.trim());
        let v = if numbers {
            match b.parse::<f64>() {
                Ok(x) if b.parse::<i64>().is_ok() => toml::Value::Integer(x as i64),
                Ok(x) => toml::Value::Float(x),
                Err(_) => bail!("--{flag}: '{b}' for '{a}' is not a number"),
            }
        } else {
            toml::Value::String(b.to_string())
        };
        if t.insert(a.to_string(), v).is_some() {
            bail!("--{flag}: '{a}' is given twice");
        }
    }
    Ok(toml::Value::Table(t))
}

/// The value of one flag given on the command line (`None`: not given).
pub(super) fn read(m: &ArgMatches, f: &FlagSpec) -> Result<Option<toml::Value>> {
    let id = format!("param:{}", f.param);
    if f.reading == Reading::Switch {
        return Ok(m
            .try_get_one::<bool>(&id)
            .ok()
            .flatten()
            .map(|b| toml::Value::Boolean(*b)));
    }
    let Some(values) = m.try_get_many::<String>(&id).ok().flatten() else {
        return Ok(None);
    };
    let items: Vec<String> = values.cloned().collect();
    Ok(Some(match f.reading {
        Reading::Texts => toml::Value::Array(
            items
                .iter()
                .map(|s| toml::Value::String(s.trim().to_string()))
                .collect(),
        ),
        Reading::Numbers => toml::Value::Array(
            items
                .iter()
                .map(|s| params::parse_value_text(s.trim()))
                .collect(),
        ),
        Reading::Pairs { numbers } => pairs(&items, &f.long, numbers)?,
        Reading::Text => toml::Value::String(items.concat()),
        Reading::Value => {
            let text = items.concat();
            let text = text.trim();
            let digits = text.strip_prefix('-').unwrap_or(text);
            if !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit())
                && text.parse::<i64>().is_err()
            {
                bail!(
                    "--{} {text}: too large for a whole number (the largest is {})",
                    f.long,
                    i64::MAX
                );
            }
            params::parse_value_text(text)
        }
        Reading::Switch => unreachable!("read above"),
    }))
}
