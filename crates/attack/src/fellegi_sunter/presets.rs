//! Presets: the comparisons of Splink's comparison library (`splink.comparison_library`), one
//! line in a specification, expanded into the levels Splink builds for them.
//!
//! ```toml
//! comparison = [
//!   { column = "given_name", preset = "name", term_frequency = true },  # cl.NameComparison
//!   { column = "date_of_birth", preset = "date_of_birth", format = "%Y%m%d" },
//!   { column = "soc_sec_id", preset = "damerau-levenshtein", thresholds = [1, 2] },
//! ]
//! ```
//!
//! | preset | levels (after `null`, before `else`) | Splink |
//! |---|---|---|
//! | `exact` | exact | `cl.ExactMatch(col)` |
//! | `name` | exact; Jaro–Winkler ≥ 0.92, ≥ 0.88; with `dmetaphone = true` Double Metaphone codes in common; Jaro–Winkler ≥ 0.7 (`thresholds` replaces 0.92, 0.88, 0.7) | `cl.NameComparison(col)` (`dmeta_col_name`: a column of codes; here computed from the name) |
//! | `date_of_birth` | exact; Levenshtein ≤ 1; dates within 1 month, 1 year, 10 years (`thresholds`, `metrics`); the null level on the parsed date (`format`, default `%Y-%m-%d`; `invalid_as_null = false`: on the value) | `cl.DateOfBirthComparison(col, input_is_string=True, datetime_format=…, invalid_dates_as_null=True)` |
//! | `postcode` | exact; exact on sector, district, area (UK postcode patterns); with `invalid_as_null = true` the null level on a valid postcode | `cl.PostcodeComparison(col)` |
//! | `email` | exact; exact on the user name; Jaro–Winkler ≥ 0.88 on the address, on the user name | `cl.EmailComparison(col)` |
//! | `damerau-levenshtein` | exact; Damerau–Levenshtein ≤ each of `thresholds` (default 1, 2) | `cl.DamerauLevenshteinAtThresholds(col, [1, 2])` |
//! | `levenshtein` | exact; Levenshtein ≤ each of `thresholds` (default 1, 2) | `cl.LevenshteinAtThresholds(col, [1, 2])` |
//! | `jaro-winkler` | exact; Jaro–Winkler ≥ each of `thresholds` (default 0.9, 0.7) | `cl.JaroWinklerAtThresholds(col, [0.9, 0.7])` |
//! | `jaro` | exact; Jaro ≥ each of `thresholds` (default 0.9, 0.7) | `cl.JaroAtThresholds(col, [0.9, 0.7])` |
//! | `array-intersect` | at least each of `thresholds` items in common (default 1; no exact level) | `cl.ArrayIntersectAtSizes(col, [1])` |
//!
//! `term_frequency = true` adjusts the exact level on the value itself, as Splink's
//! `.configure(term_frequency_adjustments=True)` does.

use super::expr::{Expr, Func};
use super::spec::{DateMetric, Level, LevelKind, RawComparison};

/// The names of the presets.
pub const PRESETS: &[&str] = &[
    "exact",
    "name",
    "date_of_birth",
    "postcode",
    "email",
    "damerau-levenshtein",
    "levenshtein",
    "jaro-winkler",
    "jaro",
    "array-intersect",
];

/// Splink's `PostcodeComparison` patterns.
const SECTOR: &str = "^[A-Za-z]{1,2}[0-9][A-Za-z0-9]? [0-9]";
const DISTRICT: &str = "^[A-Za-z]{1,2}[0-9][A-Za-z0-9]?";
const AREA: &str = "^[A-Za-z]{1,2}";
const VALID_POSTCODE: &str = "^[A-Za-z]{1,2}[0-9][A-Za-z0-9]? [0-9][A-Za-z]{2}$";
/// Splink's `EmailComparison` pattern of the user name.
const USERNAME: &str = "^[^@]+";

fn regex(column: &str, pattern: &str) -> Expr {
    Expr::column(column).then(Func::RegexExtract {
        pattern: pattern.to_string(),
        group: 0,
    })
}

fn n(kind: LevelKind) -> Level {
    Level::new(kind)
}

/// The levels of preset `preset` on `column` with the options of `rc`; an error is
/// `field: message` (under the comparison's key).
pub(crate) fn levels(preset: &str, column: &str, rc: &RawComparison) -> Result<Vec<Level>, String> {
    let allowed: &[&str] = match preset {
        "exact" => &[],
        "name" => &["thresholds", "dmetaphone"],
        "date_of_birth" => &["thresholds", "metrics", "format", "invalid_as_null"],
        "postcode" => &["invalid_as_null"],
        "email" => &[],
        _ => &["thresholds"],
    };
    for (name, set) in [
        ("thresholds", rc.thresholds.is_some()),
        ("metrics", rc.metrics.is_some()),
        ("format", rc.format.is_some()),
        ("invalid_as_null", rc.invalid_as_null.is_some()),
        ("dmetaphone", rc.dmetaphone.is_some()),
    ] {
        if set && !allowed.contains(&name) {
            return Err(format!("{name}: preset '{preset}' takes no {name}"));
        }
    }
    let th = |default: &[f64]| rc.thresholds.clone().unwrap_or_else(|| default.to_vec());
    let mut out = vec![n(LevelKind::Null)];
    let exact = n(LevelKind::Exact);
    match preset {
        "exact" => out.push(exact),
        "name" => {
            let t = th(&[0.92, 0.88, 0.7]);
            out.push(exact);
            out.extend(
                t.iter()
                    .filter(|&&x| x >= 0.88)
                    .map(|&x| n(LevelKind::JaroWinkler(x))),
            );
            if rc.dmetaphone == Some(true) {
                out.push(
                    n(LevelKind::ArrayIntersect(1.0))
                        .on(Expr::column(column).then(Func::DMetaphone))
                        .labelled("double metaphone codes in common"),
                );
            }
            out.extend(
                t.iter()
                    .filter(|&&x| x < 0.88)
                    .map(|&x| n(LevelKind::JaroWinkler(x))),
            );
        }
        "date_of_birth" => return date_of_birth(column, rc),
        "postcode" => {
            if rc.invalid_as_null == Some(true) {
                out[0] = n(LevelKind::Null).on(regex(column, VALID_POSTCODE));
            }
            out.push(exact.labelled("exact match on full postcode"));
            for (p, what) in [(SECTOR, "sector"), (DISTRICT, "district"), (AREA, "area")] {
                out.push(
                    n(LevelKind::Exact)
                        .on(regex(column, p))
                        .labelled(&format!("exact match on {what}")),
                );
            }
        }
        "email" => {
            out.push(exact);
            out.push(
                n(LevelKind::Exact)
                    .on(regex(column, USERNAME))
                    .labelled("exact match on username"),
            );
            out.push(n(LevelKind::JaroWinkler(0.88)));
            out.push(
                n(LevelKind::JaroWinkler(0.88))
                    .on(regex(column, USERNAME))
                    .labelled("jaro-winkler >= 0.88 on username"),
            );
        }
        "damerau-levenshtein" | "levenshtein" | "jaro-winkler" | "jaro" => {
            let (default, kind): (&[f64], fn(f64) -> LevelKind) = match preset {
                "damerau-levenshtein" => (&[1.0, 2.0], LevelKind::DamerauLevenshtein),
                "levenshtein" => (&[1.0, 2.0], LevelKind::Levenshtein),
                "jaro-winkler" => (&[0.9, 0.7], LevelKind::JaroWinkler),
                _ => (&[0.9, 0.7], LevelKind::Jaro),
            };
            out.push(exact);
            out.extend(th(default).into_iter().map(|t| n(kind(t))));
        }
        "array-intersect" => {
            out.extend(
                th(&[1.0])
                    .into_iter()
                    .map(|t| n(LevelKind::ArrayIntersect(t))),
            );
        }
        other => {
            return Err(format!(
                "preset: unknown preset '{other}'; expected one of {}",
                PRESETS.join(", ")
            ));
        }
    }
    out.push(n(LevelKind::Else));
    Ok(out)
}

/// Splink's `DateOfBirthComparison(col, input_is_string=True, …)`: null (on the parsed date
/// when invalid dates are null), exact, Levenshtein ≤ 1 on the text (Splink 5's
/// `LevenshteinLevel(col, 1)`, "Levenshtein distance <= 1": a transposition of two digits is 2
/// edits, not 1), then one date level per threshold and metric, else.
fn date_of_birth(column: &str, rc: &RawComparison) -> Result<Vec<Level>, String> {
    let format = rc.format.clone().unwrap_or_else(|| "%Y-%m-%d".to_string());
    let thresholds = rc
        .thresholds
        .clone()
        .unwrap_or_else(|| vec![1.0, 1.0, 10.0]);
    let metrics: Vec<DateMetric> = match &rc.metrics {
        None => vec![DateMetric::Month, DateMetric::Year, DateMetric::Year],
        Some(ms) => ms
            .iter()
            .map(|m| match m.as_str() {
                "day" => Ok(DateMetric::Day),
                "month" => Ok(DateMetric::Month),
                "year" => Ok(DateMetric::Year),
                _ => Err(format!("metrics: '{m}': expected day, month or year")),
            })
            .collect::<Result<_, _>>()?,
    };
    if thresholds.len() != metrics.len() || thresholds.is_empty() {
        return Err(format!(
            "thresholds: {} threshold(s) and {} metric(s); give one metric per threshold (at least one)",
            thresholds.len(),
            metrics.len()
        ));
    }
    let parsed = Expr::column(column).then(Func::ParseDate { format });
    let null = if rc.invalid_as_null.unwrap_or(true) {
        n(LevelKind::Null).on(parsed.clone())
    } else {
        n(LevelKind::Null)
    };
    let mut out = vec![
        null,
        n(LevelKind::Exact).labelled("exact match on date of birth"),
        n(LevelKind::Levenshtein(1.0)),
    ];
    for (t, m) in thresholds.into_iter().zip(metrics) {
        let mut l = n(LevelKind::Date(t)).on(parsed.clone());
        l.metric = Some(m);
        l.label = Some(format!(
            "date within {t} {}{}",
            m.name(),
            if t == 1.0 { "" } else { "s" }
        ));
        out.push(l);
    }
    out.push(n(LevelKind::Else));
    Ok(out)
}
