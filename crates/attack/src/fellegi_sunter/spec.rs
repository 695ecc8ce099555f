//! The linkage specification: blocking rules and comparisons as data (TOML), validated with
//! every problem reported at once, each with its key.
//!
//! ```toml
//! # Pairs are compared when they agree on the postcode, OR on birth year and surname initial,
//! # OR when first name and surname are swapped between the files.
//! blocking = [
//!   ["postcode"],
//!   ["birth_year", "first_letter(surname)"],
//!   ["l.first_name = r.surname", "l.surname = r.first_name"],
//! ]
//!
//! # One line per comparison with a preset (Splink's comparison library) ...
//! comparison = [
//!   { column = "first_name", preset = "name", term_frequency = true },
//!   { column = "dob", preset = "date_of_birth", format = "%Y%m%d" },
//! ]
//!
//! # ... or the levels written out.
//! [[comparison]]
//! column = "surname"            # intruder's column; `released = "name"` if it differs
//! term_frequency = true         # rare surnames weigh more on the exact level
//! levels = [
//!   { kind = "null" },          # missing on either side: weight 0
//!   { kind = "exact" },
//!   { kind = "columns-reversed", column = "first_name" },  # surname ↔ first name swapped
//!   { kind = "jaro-winkler", threshold = 0.92 },
//!   { kind = "damerau-levenshtein", threshold = 2 },
//!   { kind = "exact", on = "dmetaphone(surname)" },       # sounds alike
//!   { kind = "else" },
//! ]
//!
//! [[comparison]]
//! column = "birth_year"
//! levels = [{ kind = "null" }, { kind = "exact" }, { kind = "absolute", threshold = 1 }, { kind = "else", m = 0.01 }]
//! ```
//!
//! Level kinds: `null`, `exact`, `jaro-winkler` (similarity ≥ t, t in [0, 1]), `jaro`
//! (similarity ≥ t), `levenshtein` (edit distance ≤ t), `damerau-levenshtein` (edit distance
//! with adjacent transpositions ≤ t, as DuckDB's `damerau_levenshtein`), `absolute`
//! (|x − y| ≤ t), `relative` (|x − y| / max(|x|, |y|) ≤ t, t in [0, 1]), `date` (dates at most
//! t `metric`s apart: `day` (default), `month` = 365.25/12 days, `year` = 365.25 days, as
//! Splink's `AbsoluteDateDifferenceLevel`; dates `YYYY-MM-DD`, or in `format`, e.g.
//! `"%Y%m%d"`, where a value that is not a date fails the level), `array-intersect` (at least t
//! items in common; items of a set-valued column, or of a text separated by `|`),
//! `columns-reversed` (the values of this column and of `column` are swapped between the
//! files: intruder's this = released `column` and intruder's `column` = released this, none
//! missing; `symmetrical = false`: only the first equality, Splink's default), `else` (last,
//! required). A level may read the column through an expression, `on = "lower(surname)"`
//! ([`expr`](super::expr): lower, upper, trim, substr, first_letter, prefix, year, soundex,
//! dmetaphone, regex_extract, parse_date); a `null` level with `on` is null when the
//! expression is (e.g. an invalid date). A level may fix `m` and/or `u` (in (0, 1]); EM then
//! leaves it alone; `label` names it in reports.
//!
//! Presets (`preset = "…"` instead of `levels`; [`presets`](super::presets)): `exact`, `name`,
//! `date_of_birth`, `postcode`, `email`, `damerau-levenshtein`, `levenshtein`, `jaro-winkler`,
//! `jaro`, `array-intersect`, each the levels of the Splink comparison of the same name.
//!
//! Blocking terms are a column, an expression of a column (`first_letter(col)`,
//! `prefix(col, n)`, `year(col)`, `substr(lower(col), 1, 3)`, `soundex(col)`, …) compared with
//! the same expression of the released record, or `l.EXPR = r.EXPR` with a different column (or
//! expression) on each side, as Splink writes a rule on swapped columns.

use intruder_table::{Column, ColumnData, Kind, Table};

use super::expr::{Expr, Side};

/// A blocking term: a column's value or a value derived from it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Term {
    /// The value itself.
    Column {
        /// Intruder column name.
        column: String,
    },
    /// The first character of the text.
    FirstLetter {
        /// Intruder column name.
        column: String,
    },
    /// The first `n` characters of the text.
    Prefix {
        /// Intruder column name.
        column: String,
        /// Characters kept.
        n: usize,
    },
    /// The year of a date (`YYYY-…`: the text's first four characters as a number).
    Year {
        /// Intruder column name.
        column: String,
    },
    /// An expression of an intruder column equal to an expression of a released column
    /// (`l.given_name = r.surname`, `soundex(surname)`); the released side's column is named
    /// as in the intruder's file (the key map gives its released name).
    Expr {
        /// The intruder's side.
        intruder: Expr,
        /// The released side.
        released: Expr,
    },
}

impl Term {
    /// The intruder column it reads.
    pub fn column(&self) -> &str {
        match self {
            Term::Column { column }
            | Term::FirstLetter { column }
            | Term::Prefix { column, .. }
            | Term::Year { column } => column,
            Term::Expr { intruder, .. } => &intruder.column,
        }
    }

    /// The column the released side reads, named as in the intruder's file (the same as
    /// [`column`](Self::column) except for a rule on swapped columns).
    pub fn released_column(&self) -> &str {
        match self {
            Term::Expr { released, .. } => &released.column,
            _ => self.column(),
        }
    }

    /// The intruder's and the released side's expressions (without side prefixes).
    pub fn exprs(&self) -> (Expr, Expr) {
        let one = |f: Option<super::expr::Func>| {
            let e = Expr::column(self.column());
            match f {
                Some(f) => e.then(f),
                None => e,
            }
        };
        use super::expr::Func;
        let e = match self {
            Term::Column { .. } => one(None),
            Term::FirstLetter { .. } => one(Some(Func::FirstLetter)),
            Term::Prefix { n, .. } => one(Some(Func::Prefix { n: *n })),
            Term::Year { .. } => one(Some(Func::Year)),
            Term::Expr { intruder, released } => {
                let strip = |e: &Expr| Expr {
                    side: None,
                    ..e.clone()
                };
                return (strip(intruder), strip(released));
            }
        };
        (e.clone(), e)
    }

    /// Parses `col`, `first_letter(col)`, `prefix(col, n)`, `year(col)`, any expression of a
    /// column (`soundex(col)`), or `l.EXPR = r.EXPR`.
    pub fn parse(s: &str) -> Result<Term, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err("empty term".into());
        }
        if let Some((left, right)) = split_equality(s) {
            let (a, b) = (Expr::parse(left)?, Expr::parse(right)?);
            let (intruder, released) = match (a.side, b.side) {
                (Some(Side::Left), Some(Side::Right)) => (a, b),
                (Some(Side::Right), Some(Side::Left)) => (b, a),
                _ => {
                    return Err(format!(
                        "'{s}': an equality names the intruder's column with l. and the released one with r., e.g. l.given_name = r.surname"
                    ));
                }
            };
            for e in [&intruder, &released] {
                e.compile().map_err(|m| format!("'{s}': {m}"))?;
            }
            return Ok(Term::Expr { intruder, released });
        }
        let e = Expr::parse(s).map_err(|m| {
            format!("{m} (a blocking term is a column, an expression of a column such as first_letter(col), prefix(col, n), year(col), soundex(col), or l.EXPR = r.EXPR)")
        })?;
        if e.side.is_some() {
            return Err(format!(
                "'{s}': l. and r. belong in an equality (l.a = r.b); write the column alone to compare it with itself"
            ));
        }
        e.compile().map_err(|m| format!("'{s}': {m}"))?;
        use super::expr::Func;
        let column = e.column.clone();
        Ok(match e.funcs.as_slice() {
            [] => Term::Column { column },
            [Func::FirstLetter] => Term::FirstLetter { column },
            [Func::Prefix { n }] => Term::Prefix { column, n: *n },
            [Func::Year] => Term::Year { column },
            _ => Term::Expr {
                intruder: e.clone(),
                released: e,
            },
        })
    }

    /// The term as written in a specification.
    pub fn label(&self) -> String {
        match self {
            Term::Column { column } => column.clone(),
            Term::FirstLetter { column } => format!("first_letter({column})"),
            Term::Prefix { column, n } => format!("prefix({column}, {n})"),
            Term::Year { column } => format!("year({column})"),
            Term::Expr { intruder, released } if intruder == released => intruder.to_string(),
            Term::Expr { intruder, released } => {
                let side = |e: &Expr, s: Side| {
                    Expr {
                        side: Some(s),
                        ..e.clone()
                    }
                    .to_string()
                };
                format!(
                    "{} = {}",
                    side(intruder, Side::Left),
                    side(released, Side::Right)
                )
            }
        }
    }
}

/// `a = b` split at an `=` outside quotes and parentheses.
fn split_equality(s: &str) -> Option<(&str, &str)> {
    let (mut depth, mut quote) = (0i32, None::<char>);
    for (i, c) in s.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(') => depth += 1,
            (None, ')') => depth -= 1,
            (None, '=') if depth == 0 => {
                let right = s[i + 1..].trim_start_matches('=');
                return Some((&s[..i], right));
            }
            _ => {}
        }
    }
    None
}

/// One comparison level: a condition on a pair of values.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "threshold")]
pub enum LevelKind {
    /// Missing on either side (weight 0, never estimated).
    Null,
    /// Equal values.
    Exact,
    /// Jaro–Winkler similarity ≥ threshold (Winkler 1990; `strsim::jaro_winkler`).
    JaroWinkler(f64),
    /// Jaro similarity ≥ threshold (`strsim::jaro`).
    Jaro(f64),
    /// Levenshtein edit distance ≤ threshold (`strsim::levenshtein`).
    Levenshtein(f64),
    /// Damerau–Levenshtein distance (insertions, deletions, substitutions and transpositions
    /// of adjacent characters, unrestricted: `strsim::damerau_levenshtein`, DuckDB's
    /// `damerau_levenshtein`) ≤ threshold.
    DamerauLevenshtein(f64),
    /// |x − y| ≤ threshold.
    Absolute(f64),
    /// |x − y| / max(|x|, |y|) ≤ threshold.
    Relative(f64),
    /// Dates at most threshold days (or the level's [`DateMetric`]) apart.
    Date(f64),
    /// At least threshold items in common (arrays: set-valued cells, items joined with `|`).
    ArrayIntersect(f64),
    /// The comparison's column and the level's other column ([`Level::column`]) swapped
    /// between the files (both equal crosswise, none missing).
    ColumnsReversed,
    /// Every other pair.
    Else,
}

impl LevelKind {
    /// The level as a short label, e.g. `jaro-winkler ≥ 0.92`.
    pub fn label(&self) -> String {
        match self {
            LevelKind::Null => "null".into(),
            LevelKind::Exact => "exact".into(),
            LevelKind::JaroWinkler(t) => format!("jaro-winkler >= {t}"),
            LevelKind::Jaro(t) => format!("jaro >= {t}"),
            LevelKind::Levenshtein(t) => format!("levenshtein <= {t}"),
            LevelKind::DamerauLevenshtein(t) => format!("damerau-levenshtein <= {t}"),
            LevelKind::Absolute(t) => format!("|difference| <= {t}"),
            LevelKind::Relative(t) => format!("relative difference <= {t}"),
            LevelKind::Date(t) => format!("date within {t} days"),
            LevelKind::ArrayIntersect(t) => format!("array intersection >= {t}"),
            LevelKind::ColumnsReversed => "columns reversed".into(),
            LevelKind::Else => "else".into(),
        }
    }

    /// The kind's name in a specification.
    pub fn name(&self) -> &'static str {
        match self {
            LevelKind::Null => "null",
            LevelKind::Exact => "exact",
            LevelKind::JaroWinkler(_) => "jaro-winkler",
            LevelKind::Jaro(_) => "jaro",
            LevelKind::Levenshtein(_) => "levenshtein",
            LevelKind::DamerauLevenshtein(_) => "damerau-levenshtein",
            LevelKind::Absolute(_) => "absolute",
            LevelKind::Relative(_) => "relative",
            LevelKind::Date(_) => "date",
            LevelKind::ArrayIntersect(_) => "array-intersect",
            LevelKind::ColumnsReversed => "columns-reversed",
            LevelKind::Else => "else",
        }
    }

    /// The threshold, for kinds that take one.
    pub fn threshold(&self) -> Option<f64> {
        match *self {
            LevelKind::JaroWinkler(t)
            | LevelKind::Jaro(t)
            | LevelKind::Levenshtein(t)
            | LevelKind::DamerauLevenshtein(t)
            | LevelKind::Absolute(t)
            | LevelKind::Relative(t)
            | LevelKind::Date(t)
            | LevelKind::ArrayIntersect(t) => Some(t),
            _ => None,
        }
    }

    /// Whether the level compares two texts by a string similarity or distance.
    pub fn is_string_similarity(&self) -> bool {
        matches!(
            self,
            LevelKind::JaroWinkler(_)
                | LevelKind::Jaro(_)
                | LevelKind::Levenshtein(_)
                | LevelKind::DamerauLevenshtein(_)
                | LevelKind::ArrayIntersect(_)
        )
    }

    pub(crate) fn needs_numbers(&self) -> bool {
        matches!(self, LevelKind::Absolute(_) | LevelKind::Relative(_))
    }
}

/// The unit of a `date` level's threshold (Splink's `datetime_metrics`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DateMetric {
    /// Days.
    Day,
    /// 365.25 / 12 = 30.4375 days (Splink's seconds per month divided by a day's).
    Month,
    /// 365.25 days.
    Year,
}

impl DateMetric {
    /// Days per unit.
    pub fn days(self) -> f64 {
        match self {
            DateMetric::Day => 1.0,
            DateMetric::Month => 365.25 / 12.0,
            DateMetric::Year => 365.25,
        }
    }

    /// The name in a specification.
    pub fn name(self) -> &'static str {
        match self {
            DateMetric::Day => "day",
            DateMetric::Month => "month",
            DateMetric::Year => "year",
        }
    }

    fn parse(s: &str) -> Result<DateMetric, String> {
        match s {
            "day" | "days" => Ok(DateMetric::Day),
            "month" | "months" => Ok(DateMetric::Month),
            "year" | "years" => Ok(DateMetric::Year),
            _ => Err(format!("'{s}': expected day, month or year")),
        }
    }
}

/// A level with optional fixed probabilities.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Level {
    /// The condition.
    pub kind: LevelKind,
    /// A fixed m probability (EM leaves it alone).
    pub m: Option<f64>,
    /// A fixed u probability (random sampling leaves it alone).
    pub u: Option<f64>,
    /// The other intruder column of a `columns-reversed` level (`None` for other kinds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    /// The expression of the comparison's column the level compares (`None`: the value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<Expr>,
    /// The unit of a `date` level's threshold (`None`: days).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<DateMetric>,
    /// A `columns-reversed` level: whether both crosswise equalities must hold (`None`: yes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symmetrical: Option<bool>,
    /// The level's name in reports (`None`: from its condition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

impl Level {
    /// A level without fixed probabilities.
    pub fn new(kind: LevelKind) -> Level {
        Level {
            kind,
            m: None,
            u: None,
            column: None,
            on: None,
            metric: None,
            symmetrical: None,
            label: None,
        }
    }

    /// A `columns-reversed` level against the intruder column `other`.
    pub fn columns_reversed(other: &str) -> Level {
        Level {
            column: Some(other.to_string()),
            ..Level::new(LevelKind::ColumnsReversed)
        }
    }

    /// The level reading the expression `on` of the comparison's column.
    pub fn on(mut self, on: Expr) -> Level {
        self.on = Some(on);
        self
    }

    /// The level named `label` in reports.
    pub fn labelled(mut self, label: &str) -> Level {
        self.label = Some(label.to_string());
        self
    }

    /// Whether a `columns-reversed` level needs both crosswise equalities.
    pub fn is_symmetrical(&self) -> bool {
        self.symmetrical.unwrap_or(true)
    }

    /// The level as a short label (`columns reversed with surname` names the other column).
    pub fn label(&self) -> String {
        if let Some(l) = &self.label {
            return l.clone();
        }
        let base = match (&self.kind, &self.column, self.metric) {
            (LevelKind::ColumnsReversed, Some(c), _) if self.is_symmetrical() => {
                format!("columns reversed with {c}")
            }
            (LevelKind::ColumnsReversed, Some(c), _) => {
                format!("columns reversed with {c} (one direction)")
            }
            (LevelKind::Date(t), _, Some(m)) if m != DateMetric::Day => {
                format!(
                    "date within {t} {}{}",
                    m.name(),
                    if *t == 1.0 { "" } else { "s" }
                )
            }
            (k, _, _) => k.label(),
        };
        match &self.on {
            Some(e) => format!("{base} on {e}"),
            None => base,
        }
    }
}

/// A comparison of one column: ordered levels, the first that holds is the pair's level.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Comparison {
    /// Intruder column.
    pub column: String,
    /// Released column (`None`: the key map's name, else the same name).
    pub released: Option<String>,
    /// Term-frequency adjustment of the exact level.
    pub term_frequency: bool,
    /// The levels in order, `else` last.
    pub levels: Vec<Level>,
}

impl Comparison {
    /// Index of the null level on the value itself, if any.
    pub fn null_level(&self) -> Option<usize> {
        self.levels.iter().position(|l| l.kind == LevelKind::Null)
    }

    /// Index of the exact level on the value itself (the one term frequencies adjust), if any.
    pub fn exact_level(&self) -> Option<usize> {
        self.levels
            .iter()
            .position(|l| l.kind == LevelKind::Exact && l.on.is_none())
    }
}

/// A linkage specification: blocking rules (OR-ed, each an AND of terms) and comparisons.
///
/// A rule without terms pairs every record with every other (the cross product); the TOML
/// reader refuses it (an empty rule there is a mistake), [`LinkageSpec::default_for`] uses it
/// for files small enough to compare in full.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LinkageSpec {
    /// Blocking rules; a pair is a candidate when it agrees on every term of some rule.
    pub blocking: Vec<Vec<Term>>,
    /// Comparisons.
    pub comparisons: Vec<Comparison>,
    /// Splink's training recipe (`None`: m by EM sessions on the blocking rules, λ by EM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training: Option<TrainingSpec>,
}

/// How the model is trained, as Splink's documented recipe writes it in code:
///
/// ```toml
/// [training]
/// # linker.training.estimate_parameters_using_expectation_maximisation(block_on(…)), one
/// # session per rule: m of the comparisons on columns the rule does not read
/// blocking = [["date_of_birth"], ["postcode"]]
/// # linker.training.estimate_probability_two_random_records_match(rules, recall=0.8):
/// # λ = pairs agreeing on any rule / recall / (n_I × n_R)
/// deterministic = [["soc_sec_id"], ["given_name", "surname", "date_of_birth"]]
/// recall = 0.8
/// ```
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrainingSpec {
    /// One EM session per rule (empty: the blocking rules, each its session).
    pub blocking: Vec<Vec<Term>>,
    /// Deterministic rules giving λ (empty: λ by EM over the candidate pairs).
    pub deterministic: Vec<Vec<Term>>,
    /// The share of true matches the deterministic rules are taken to find, in (0, 1].
    pub recall: Option<f64>,
}

/// The most blocking rules a specification may have (the rules a candidate pair agrees on are
/// one bit each of a `u32`).
pub const MAX_RULES: usize = 32;

/// A specification with problems, each with its key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{source_name}: the linkage specification has {} problem(s):\n{}", problems.len(), problems.iter().map(|p| format!("  {p}")).collect::<Vec<_>>().join("\n"))]
pub struct SpecError {
    /// Where the specification came from.
    pub source_name: String,
    /// Every problem found, `key: what is wrong`.
    pub problems: Vec<String>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSpec {
    blocking: Option<Vec<Vec<String>>>,
    comparison: Option<Vec<RawComparison>>,
    training: Option<RawTraining>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTraining {
    blocking: Option<Vec<Vec<String>>>,
    deterministic: Option<Vec<Vec<String>>>,
    recall: Option<f64>,
}

/// Parses rules of terms; problems go to `problems` under `key[r][t]`.
fn read_rules(rules: &[Vec<String>], key: &str, problems: &mut Vec<String>) -> Vec<Vec<Term>> {
    let mut out = Vec::new();
    for (r, rule) in rules.iter().enumerate() {
        if rule.is_empty() {
            problems.push(format!("{key}[{r}]: empty rule; name at least one column"));
        }
        let mut terms = Vec::new();
        for (t, s) in rule.iter().enumerate() {
            match Term::parse(s) {
                Ok(term) => terms.push(term),
                Err(e) => problems.push(format!("{key}[{r}][{t}]: {e}")),
            }
        }
        out.push(terms);
    }
    out
}

fn read_training(raw: RawTraining, problems: &mut Vec<String>) -> TrainingSpec {
    let blocking = read_rules(
        &raw.blocking.unwrap_or_default(),
        "training.blocking",
        problems,
    );
    let deterministic = read_rules(
        &raw.deterministic.unwrap_or_default(),
        "training.deterministic",
        problems,
    );
    match raw.recall {
        Some(r) if !(r > 0.0 && r <= 1.0) => {
            problems.push(format!("training.recall: {r} is not a share in (0, 1]"))
        }
        Some(_) if deterministic.is_empty() => problems.push(
            "training.recall: the recall of deterministic rules; give training.deterministic too"
                .into(),
        ),
        None if !deterministic.is_empty() => problems.push(
            "training.recall: missing; the share of true matches the deterministic rules find, e.g. recall = 0.8"
                .into(),
        ),
        _ => {}
    }
    TrainingSpec {
        blocking,
        deterministic,
        recall: raw.recall,
    }
}

/// A comparison as written: levels, or a preset with its options.
#[derive(serde::Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawComparison {
    pub column: Option<String>,
    pub released: Option<String>,
    pub term_frequency: Option<bool>,
    pub levels: Option<Vec<RawLevel>>,
    pub preset: Option<String>,
    pub thresholds: Option<Vec<f64>>,
    pub metrics: Option<Vec<String>>,
    pub format: Option<String>,
    pub invalid_as_null: Option<bool>,
    pub dmetaphone: Option<bool>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawLevel {
    kind: Option<String>,
    threshold: Option<f64>,
    m: Option<f64>,
    u: Option<f64>,
    column: Option<String>,
    on: Option<String>,
    metric: Option<String>,
    format: Option<String>,
    symmetrical: Option<bool>,
    label: Option<String>,
}

/// The kinds a specification may name, in the order error messages list them.
const KINDS: &str = "null, exact, jaro-winkler, jaro, levenshtein, damerau-levenshtein, absolute, relative, date, array-intersect, columns-reversed or else";

/// Reads one level; problems go to `problems` under `lkey`. `column` is the comparison's.
fn read_level(rl: RawLevel, lkey: &str, column: &str, problems: &mut Vec<String>) -> Option<Level> {
    let t = rl.threshold;
    let mut need = || -> f64 {
        t.unwrap_or_else(|| {
            problems.push(format!("{lkey}.threshold: missing"));
            0.0
        })
    };
    let kind = match rl.kind.as_deref() {
        Some("null") => LevelKind::Null,
        Some("exact") => LevelKind::Exact,
        Some("else") => LevelKind::Else,
        Some("jaro-winkler") => LevelKind::JaroWinkler(need()),
        Some("jaro") => LevelKind::Jaro(need()),
        Some("levenshtein") => LevelKind::Levenshtein(need()),
        Some("damerau-levenshtein") => LevelKind::DamerauLevenshtein(need()),
        Some("absolute") => LevelKind::Absolute(need()),
        Some("relative") => LevelKind::Relative(need()),
        Some("date") => LevelKind::Date(need()),
        Some("array-intersect") => LevelKind::ArrayIntersect(need()),
        Some("columns-reversed") => LevelKind::ColumnsReversed,
        Some(other) => {
            problems.push(format!(
                "{lkey}.kind: unknown level '{other}'; expected {KINDS}"
            ));
            return None;
        }
        None => {
            problems.push(format!("{lkey}.kind: missing"));
            return None;
        }
    };
    if t.is_some() && kind.threshold().is_none() {
        problems.push(format!(
            "{lkey}.threshold: a '{}' level takes no threshold",
            kind.name()
        ));
    }
    let mut on = match rl.on.as_deref().map(Expr::parse) {
        Some(Ok(e)) => Some(e),
        Some(Err(m)) => {
            problems.push(format!("{lkey}.on: {m}"));
            None
        }
        None => None,
    };
    if let Some(fmt) = rl.format {
        if matches!(kind, LevelKind::Date(_) | LevelKind::Null) {
            let inner = on.take().unwrap_or_else(|| Expr::column(column));
            on = Some(inner.then(super::expr::Func::ParseDate { format: fmt }));
        } else {
            problems.push(format!(
                "{lkey}.format: only a 'date' or 'null' level takes a date format"
            ));
        }
    }
    if let Some(e) = &on
        && let Err(m) = e.compile()
    {
        problems.push(format!("{lkey}.on: {m}"));
    }
    let metric = match rl.metric.as_deref().map(DateMetric::parse) {
        Some(Ok(m)) => Some(m),
        Some(Err(m)) => {
            problems.push(format!("{lkey}.metric: {m}"));
            None
        }
        None => None,
    };
    Some(Level {
        kind,
        m: rl.m,
        u: rl.u,
        column: rl.column,
        on,
        metric,
        symmetrical: rl.symmetrical,
        label: rl.label,
    })
}

/// Reads one comparison (levels written out, or a preset); problems go to `problems`.
fn read_comparison(rc: RawComparison, key: &str, problems: &mut Vec<String>) -> Comparison {
    let column = rc.column.clone().unwrap_or_else(|| {
        problems.push(format!("{key}.column: missing"));
        String::new()
    });
    // Splink's NameComparison and EmailComparison adjust their exact level by term
    // frequencies unless told otherwise.
    let term_frequency = rc
        .term_frequency
        .unwrap_or(matches!(rc.preset.as_deref(), Some("name" | "email")));
    let levels = match (&rc.preset, rc.levels.is_some()) {
        (Some(_), true) => {
            problems.push(format!("{key}: give either levels or a preset, not both"));
            Vec::new()
        }
        (Some(p), false) => match super::presets::levels(p, &column, &rc) {
            Ok(l) => l,
            Err(m) => {
                problems.push(format!("{key}.{m}"));
                Vec::new()
            }
        },
        (None, _) => {
            for (name, set) in [
                ("thresholds", rc.thresholds.is_some()),
                ("metrics", rc.metrics.is_some()),
                ("format", rc.format.is_some()),
                ("invalid_as_null", rc.invalid_as_null.is_some()),
                ("dmetaphone", rc.dmetaphone.is_some()),
            ] {
                if set {
                    problems.push(format!(
                        "{key}.{name}: an option of a preset; give preset = \"…\" or put it on a level"
                    ));
                }
            }
            let mut levels = Vec::new();
            for (l, rl) in rc.levels.unwrap_or_default().into_iter().enumerate() {
                let lkey = format!("{key}.levels[{l}]");
                levels.extend(read_level(rl, &lkey, &column, problems));
            }
            levels
        }
    };
    Comparison {
        column,
        released: rc.released,
        term_frequency,
        levels,
    }
}

impl LinkageSpec {
    /// Parses and checks a TOML specification; `source_name` labels the errors (a file name).
    pub fn from_toml(text: &str, source_name: &str) -> Result<LinkageSpec, SpecError> {
        let raw: RawSpec = toml::from_str(text).map_err(|e| SpecError {
            source_name: source_name.into(),
            problems: vec![e.to_string()],
        })?;
        Self::from_raw(raw, source_name)
    }

    /// Checks a specification given as a TOML table (an experiment's inline `[attack.linkage]`);
    /// the same format as a file.
    pub fn from_table(table: &toml::Table, source_name: &str) -> Result<LinkageSpec, SpecError> {
        let raw: RawSpec =
            toml::Value::Table(table.clone())
                .try_into()
                .map_err(|e: toml::de::Error| SpecError {
                    source_name: source_name.into(),
                    problems: vec![e.message().trim().to_string()],
                })?;
        Self::from_raw(raw, source_name)
    }

    fn from_raw(raw: RawSpec, source_name: &str) -> Result<LinkageSpec, SpecError> {
        let mut problems = Vec::new();
        let mut blocking = Vec::new();
        match raw.blocking {
            None => problems.push(
                "blocking: missing; give at least one rule, e.g. blocking = [[\"postcode\"]]"
                    .into(),
            ),
            Some(rules) => blocking = read_rules(&rules, "blocking", &mut problems),
        }
        let training = raw.training.map(|t| read_training(t, &mut problems));
        let mut comparisons = Vec::new();
        match raw.comparison {
            None => problems.push("comparison: missing; give at least one [[comparison]]".into()),
            Some(list) if list.is_empty() => {
                problems.push("comparison: empty; give at least one [[comparison]]".into())
            }
            Some(list) => {
                for (c, rc) in list.into_iter().enumerate() {
                    comparisons.push(read_comparison(
                        rc,
                        &format!("comparison[{c}]"),
                        &mut problems,
                    ));
                }
            }
        }
        let spec = LinkageSpec {
            blocking,
            comparisons,
            training,
        };
        problems.extend(spec.problems());
        if problems.is_empty() {
            Ok(spec)
        } else {
            Err(SpecError {
                source_name: source_name.into(),
                problems,
            })
        }
    }

    /// Reads a TOML specification file.
    pub fn from_file(path: &std::path::Path) -> Result<LinkageSpec, SpecError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| SpecError {
            source_name: name.clone(),
            problems: vec![format!("cannot read: {e}")],
        })?;
        Self::from_toml(&text, &name)
    }

    /// Every intruder column the specification reads (comparisons, the other columns of
    /// `columns-reversed` levels, then both sides of the blocking terms), each once.
    pub fn columns(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |c: &str| {
            if !c.is_empty() && !out.iter().any(|o| o == c) {
                out.push(c.to_string());
            }
        };
        for c in &self.comparisons {
            add(&c.column);
        }
        for l in self.comparisons.iter().flat_map(|c| &c.levels) {
            if let Some(other) = &l.column {
                add(other);
            }
        }
        let training = self.training.iter();
        let extra = training.flat_map(|t| t.blocking.iter().chain(&t.deterministic));
        for t in self.blocking.iter().chain(extra).flatten() {
            add(t.column());
            add(t.released_column());
        }
        out
    }

    /// Every rule the specification holds: blocking, then training sessions, then
    /// deterministic rules.
    pub fn all_rules(&self) -> impl Iterator<Item = &Vec<Term>> {
        let t = self.training.iter();
        self.blocking
            .iter()
            .chain(t.flat_map(|t| t.blocking.iter().chain(&t.deterministic)))
    }

    /// A default specification for the keys: comparisons by column type (text: exact with
    /// term frequencies, Jaro–Winkler ≥ 0.92 and ≥ 0.8; integers: exact, |Δ| ≤ 1; floats: exact,
    /// relative ≤ 5%; categories: exact; each with null and else), and blocking rules chosen
    /// from the single keys (and then pairs of keys) whose blocks stay under a pair budget of
    /// `max(10⁶, 200 · max(n_I, n_R))` pairs — or no blocking at all when the whole cross product
    /// fits that budget.
    pub fn default_for(
        intruder: &Table,
        released: &Table,
        keys: &crate::KeyMap,
    ) -> Result<LinkageSpec, crate::AttackError> {
        let mut comparisons = Vec::new();
        for k in keys.pairs() {
            let ic = intruder.column(&k.intruder)?;
            let rc = released.column(&k.released)?;
            let both_num = column_is_numeric(ic) && column_is_numeric(rc);
            let kind = if matches!(ic.kind(), Kind::String) || matches!(rc.kind(), Kind::String) {
                if both_num {
                    Kind::Integer
                } else {
                    Kind::String
                }
            } else {
                ic.kind()
            };
            let n = |k| Level::new(k);
            let levels = match kind {
                Kind::String => vec![
                    n(LevelKind::Null),
                    n(LevelKind::Exact),
                    n(LevelKind::JaroWinkler(0.92)),
                    n(LevelKind::JaroWinkler(0.8)),
                    n(LevelKind::Else),
                ],
                Kind::Integer if both_num => vec![
                    n(LevelKind::Null),
                    n(LevelKind::Exact),
                    n(LevelKind::Absolute(1.0)),
                    n(LevelKind::Else),
                ],
                Kind::Float if both_num => vec![
                    n(LevelKind::Null),
                    n(LevelKind::Exact),
                    n(LevelKind::Relative(0.05)),
                    n(LevelKind::Else),
                ],
                _ => vec![n(LevelKind::Null), n(LevelKind::Exact), n(LevelKind::Else)],
            };
            comparisons.push(Comparison {
                column: k.intruder.clone(),
                released: Some(k.released.clone()),
                term_frequency: !both_num,
                levels,
            });
        }
        let (ni, nr) = (intruder.nrows() as f64, released.nrows() as f64);
        let budget = (200.0 * ni.max(nr)).max(1e6);
        let mut blocking = Vec::new();
        if ni * nr > budget {
            let single: Vec<(f64, Vec<Term>)> = keys
                .pairs()
                .iter()
                .map(|k| {
                    let t = vec![Term::Column {
                        column: k.intruder.clone(),
                    }];
                    (block_cost(intruder, released, keys, &t), t)
                })
                .collect();
            let mut ok: Vec<&(f64, Vec<Term>)> =
                single.iter().filter(|(c, _)| *c <= budget).collect();
            if ok.is_empty() {
                let mut pairs = Vec::new();
                for a in 0..keys.len() {
                    for b in a + 1..keys.len() {
                        let t = vec![single[a].1[0].clone(), single[b].1[0].clone()];
                        pairs.push((block_cost(intruder, released, keys, &t), t));
                    }
                }
                pairs.sort_by(|x, y| x.0.total_cmp(&y.0));
                blocking.extend(
                    pairs
                        .into_iter()
                        .filter(|(c, _)| *c <= budget)
                        .take(3)
                        .map(|x| x.1),
                );
            } else {
                ok.sort_by(|x, y| x.0.total_cmp(&y.0));
                blocking.extend(ok.into_iter().take(3).map(|x| x.1.clone()));
            }
            if blocking.is_empty() {
                return Err(crate::ParamError::Unsupported(format!(
                    "fellegi-sunter: no key or pair of keys keeps the candidate pairs under {budget} pairs; give a linkage specification with blocking rules (linkage_spec = \"FILE\" or an inline [attack.linkage] table in an experiment, --linkage-spec FILE or --set on the command line)"
                ))
                .into());
            }
        } else {
            blocking.push(Vec::new());
        }
        Ok(LinkageSpec {
            blocking,
            comparisons,
            training: None,
        })
    }
}

/// Σ_v n_I(v) · n_R(v) of a blocking rule (the pairs it produces).
fn block_cost(intruder: &Table, released: &Table, keys: &crate::KeyMap, rule: &[Term]) -> f64 {
    let map = |n: &str| {
        keys.pairs()
            .iter()
            .find(|p| p.intruder == n)
            .map_or(n.to_string(), |p| p.released.clone())
    };
    match super::encode::rule_keys(intruder, released, rule, &map) {
        Ok(k) => {
            let mut counts = vec![(0.0f64, 0.0f64); k.n_keys as usize];
            for &x in k.a.iter().filter(|&&x| x != super::encode::NO_KEY) {
                counts[x as usize].0 += 1.0;
            }
            for &x in k.b.iter().filter(|&&x| x != super::encode::NO_KEY) {
                counts[x as usize].1 += 1.0;
            }
            counts.iter().map(|(x, y)| x * y).sum()
        }
        Err(_) => f64::INFINITY,
    }
}

/// Whether every observed value of the column reads as a number.
pub(crate) fn column_is_numeric(c: &Column) -> bool {
    match c.data() {
        ColumnData::Integer(_) | ColumnData::Float(_) => true,
        ColumnData::Categorical { levels, .. } => {
            levels.iter().all(|l| l.trim().parse::<f64>().is_ok())
        }
        ColumnData::String(v) => {
            (0..c.len()).all(|i| c.is_missing(i) || v[i].trim().parse::<f64>().is_ok())
        }
        ColumnData::Set { .. } => false,
    }
}
