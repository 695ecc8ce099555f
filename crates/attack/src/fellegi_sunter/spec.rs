//! The linkage specification: blocking rules and comparisons as data (TOML), validated with
//! every problem reported at once, each with its key.
//!
//! ```toml
//! # Pairs are compared when they agree on the postcode, OR on birth year and surname initial.
//! blocking = [
//!   ["postcode"],
//!   ["birth_year", "first_letter(surname)"],
//! ]
//!
//! [[comparison]]
//! column = "surname"            # intruder's column; `released = "name"` if it differs
//! term_frequency = true         # rare surnames weigh more on the exact level
//! levels = [
//!   { kind = "null" },          # missing on either side: weight 0
//!   { kind = "exact" },
//!   { kind = "columns-reversed", column = "first_name" },  # surname ↔ first name swapped
//!   { kind = "jaro-winkler", threshold = 0.92 },
//!   { kind = "levenshtein", threshold = 2 },
//!   { kind = "else" },
//! ]
//!
//! [[comparison]]
//! column = "birth_year"
//! levels = [{ kind = "null" }, { kind = "exact" }, { kind = "absolute", threshold = 1 }, { kind = "else", m = 0.01 }]
//! ```
//!
//! Level kinds: `null`, `exact`, `jaro-winkler` (similarity ≥ t, t in [0, 1]), `levenshtein`
//! (edit distance ≤ t), `absolute` (|x − y| ≤ t), `relative` (|x − y| / max(|x|, |y|) ≤ t,
//! t in [0, 1]), `date` (dates `YYYY-MM-DD` at most t days apart), `columns-reversed` (the
//! values of this column and of `column` are swapped between the files: intruder's this =
//! released `column` and intruder's `column` = released this, none missing; Splink's
//! `ColumnsReversedLevel`), `else` (last, required).
//! A level may fix `m` and/or `u` (in (0, 1]); EM then leaves it alone. Blocking terms are a
//! column, `first_letter(col)`, `prefix(col, n)` or `year(col)` (a date's year).

use intruder_data::{Column, ColumnData, Kind, Table};

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
}

impl Term {
    /// The intruder column it reads.
    pub fn column(&self) -> &str {
        match self {
            Term::Column { column }
            | Term::FirstLetter { column }
            | Term::Prefix { column, .. }
            | Term::Year { column } => column,
        }
    }

    /// Parses `col`, `first_letter(col)`, `prefix(col, n)`, `year(col)`.
    pub fn parse(s: &str) -> Result<Term, String> {
        let s = s.trim();
        if s.is_empty() {
            return Err("empty term".into());
        }
        let Some(open) = s.find('(') else {
            return Ok(Term::Column { column: s.into() });
        };
        let Some(inner) = s[open + 1..].strip_suffix(')') else {
            return Err(format!("'{s}': missing closing parenthesis"));
        };
        let f = s[..open].trim();
        let args: Vec<&str> = inner.split(',').map(str::trim).collect();
        let col = || -> Result<String, String> {
            match args.first() {
                Some(c) if !c.is_empty() => Ok(c.to_string()),
                _ => Err(format!("'{s}': no column named")),
            }
        };
        match (f, args.len()) {
            ("first_letter", 1) => Ok(Term::FirstLetter { column: col()? }),
            ("year", 1) => Ok(Term::Year { column: col()? }),
            ("prefix", 2) => match args[1].parse::<usize>() {
                Ok(n) if n > 0 => Ok(Term::Prefix { column: col()?, n }),
                _ => Err(format!("'{s}': prefix length must be an integer ≥ 1")),
            },
            _ => Err(format!(
                "'{s}': unknown term; expected a column, first_letter(col), prefix(col, n) or year(col)"
            )),
        }
    }

    /// The term as written in a specification.
    pub fn label(&self) -> String {
        match self {
            Term::Column { column } => column.clone(),
            Term::FirstLetter { column } => format!("first_letter({column})"),
            Term::Prefix { column, n } => format!("prefix({column}, {n})"),
            Term::Year { column } => format!("year({column})"),
        }
    }
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
    /// Levenshtein edit distance ≤ threshold (`strsim::levenshtein`).
    Levenshtein(f64),
    /// |x − y| ≤ threshold.
    Absolute(f64),
    /// |x − y| / max(|x|, |y|) ≤ threshold.
    Relative(f64),
    /// Dates at most threshold days apart.
    Date(f64),
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
            LevelKind::Levenshtein(t) => format!("levenshtein <= {t}"),
            LevelKind::Absolute(t) => format!("|difference| <= {t}"),
            LevelKind::Relative(t) => format!("relative difference <= {t}"),
            LevelKind::Date(t) => format!("date within {t} days"),
            LevelKind::ColumnsReversed => "columns reversed".into(),
            LevelKind::Else => "else".into(),
        }
    }

    fn needs_numbers(&self) -> bool {
        matches!(self, LevelKind::Absolute(_) | LevelKind::Relative(_))
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
}

impl Level {
    /// A level without fixed probabilities.
    pub fn new(kind: LevelKind) -> Level {
        Level {
            kind,
            m: None,
            u: None,
            column: None,
        }
    }

    /// A `columns-reversed` level against the intruder column `other`.
    pub fn columns_reversed(other: &str) -> Level {
        Level {
            column: Some(other.to_string()),
            ..Level::new(LevelKind::ColumnsReversed)
        }
    }

    /// The level as a short label (`columns reversed with surname` names the other column).
    pub fn label(&self) -> String {
        match (&self.kind, &self.column) {
            (LevelKind::ColumnsReversed, Some(c)) => format!("columns reversed with {c}"),
            (k, _) => k.label(),
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
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawComparison {
    column: Option<String>,
    released: Option<String>,
    term_frequency: Option<bool>,
    levels: Option<Vec<RawLevel>>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLevel {
    kind: Option<String>,
    threshold: Option<f64>,
    m: Option<f64>,
    u: Option<f64>,
    column: Option<String>,
}

fn prob_ok(p: f64) -> bool {
    p.is_finite() && p > 0.0 && p <= 1.0
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
        let err = |problems| SpecError {
            source_name: source_name.into(),
            problems,
        };
        let mut problems = Vec::new();
        let mut blocking = Vec::new();
        match raw.blocking {
            None => problems.push(
                "blocking: missing; give at least one rule, e.g. blocking = [[\"postcode\"]]"
                    .into(),
            ),
            Some(rules) => {
                for (r, rule) in rules.iter().enumerate() {
                    if rule.is_empty() {
                        problems.push(format!(
                            "blocking[{r}]: empty rule; name at least one column"
                        ));
                    }
                    let mut terms = Vec::new();
                    for (t, s) in rule.iter().enumerate() {
                        match Term::parse(s) {
                            Ok(term) => terms.push(term),
                            Err(e) => problems.push(format!("blocking[{r}][{t}]: {e}")),
                        }
                    }
                    blocking.push(terms);
                }
            }
        }
        let mut comparisons = Vec::new();
        match raw.comparison {
            None => problems.push("comparison: missing; give at least one [[comparison]]".into()),
            Some(list) if list.is_empty() => {
                problems.push("comparison: empty; give at least one [[comparison]]".into())
            }
            Some(list) => {
                for (c, rc) in list.into_iter().enumerate() {
                    let key = format!("comparison[{c}]");
                    let column = rc.column.unwrap_or_else(|| {
                        problems.push(format!("{key}.column: missing"));
                        String::new()
                    });
                    let mut levels = Vec::new();
                    for (l, rl) in rc.levels.unwrap_or_default().into_iter().enumerate() {
                        let lkey = format!("{key}.levels[{l}]");
                        let t = rl.threshold;
                        let need = |problems: &mut Vec<String>| -> f64 {
                            match t {
                                Some(t) => t,
                                None => {
                                    problems.push(format!("{lkey}.threshold: missing"));
                                    0.0
                                }
                            }
                        };
                        let kind = match rl.kind.as_deref() {
                            Some("null") => LevelKind::Null,
                            Some("exact") => LevelKind::Exact,
                            Some("else") => LevelKind::Else,
                            Some("jaro-winkler") => LevelKind::JaroWinkler(need(&mut problems)),
                            Some("levenshtein") => LevelKind::Levenshtein(need(&mut problems)),
                            Some("absolute") => LevelKind::Absolute(need(&mut problems)),
                            Some("relative") => LevelKind::Relative(need(&mut problems)),
                            Some("date") => LevelKind::Date(need(&mut problems)),
                            Some("columns-reversed") => LevelKind::ColumnsReversed,
                            Some(other) => {
                                problems.push(format!("{lkey}.kind: unknown level '{other}'; expected null, exact, jaro-winkler, levenshtein, absolute, relative, date, columns-reversed or else"));
                                continue;
                            }
                            None => {
                                problems.push(format!("{lkey}.kind: missing"));
                                continue;
                            }
                        };
                        if t.is_some()
                            && matches!(
                                kind,
                                LevelKind::Null
                                    | LevelKind::Exact
                                    | LevelKind::Else
                                    | LevelKind::ColumnsReversed
                            )
                        {
                            problems.push(format!(
                                "{lkey}.threshold: a '{}' level takes no threshold",
                                kind.label()
                            ));
                        }
                        levels.push(Level {
                            kind,
                            m: rl.m,
                            u: rl.u,
                            column: rl.column,
                        });
                    }
                    comparisons.push(Comparison {
                        column,
                        released: rc.released,
                        term_frequency: rc.term_frequency.unwrap_or(false),
                        levels,
                    });
                }
            }
        }
        let spec = LinkageSpec {
            blocking,
            comparisons,
        };
        problems.extend(spec.problems());
        if problems.is_empty() {
            Ok(spec)
        } else {
            Err(err(problems))
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

    /// Problems found without the data (every one, with its key).
    pub fn problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        if self.blocking.is_empty() {
            p.push("blocking: empty; give at least one rule".into());
        }
        if self.blocking.len() > MAX_RULES {
            p.push(format!(
                "blocking: {} rules given; at most {MAX_RULES} are supported",
                self.blocking.len()
            ));
        }
        if self.comparisons.is_empty() {
            p.push("comparison: empty; give at least one comparison".into());
        }
        if self.comparisons.len() > 16 {
            p.push(format!(
                "comparison: {} comparisons given; at most 16 are supported",
                self.comparisons.len()
            ));
        }
        for (c, cmp) in self.comparisons.iter().enumerate() {
            let key = format!("comparison[{c}]");
            if let Some(prev) = self.comparisons[..c]
                .iter()
                .position(|o| o.column == cmp.column && !cmp.column.is_empty())
            {
                p.push(format!(
                    "{key}.column: '{}' is already compared in comparison[{prev}]",
                    cmp.column
                ));
            }
            if cmp.levels.is_empty() {
                p.push(format!(
                    "{key}.levels: empty; end the list with an 'else' level"
                ));
                continue;
            }
            if cmp.levels.len() > 15 {
                p.push(format!("{key}.levels: at most 15 levels are supported"));
            }
            match cmp.levels.iter().position(|l| l.kind == LevelKind::Else) {
                None => p.push(format!(
                    "{key}.levels: no 'else' level; end the list with {{ kind = \"else\" }}"
                )),
                Some(e) if e + 1 != cmp.levels.len() => {
                    p.push(format!("{key}.levels[{e}]: 'else' must be the last level"))
                }
                _ => {}
            }
            if cmp
                .levels
                .iter()
                .filter(|l| l.kind == LevelKind::Null)
                .count()
                > 1
            {
                p.push(format!("{key}.levels: more than one 'null' level"));
            }
            if cmp
                .levels
                .iter()
                .filter(|l| l.kind != LevelKind::Null)
                .count()
                < 2
            {
                p.push(format!(
                    "{key}.levels: at least two levels besides 'null' are needed (a condition and 'else')"
                ));
            }
            if cmp.term_frequency && !cmp.levels.iter().any(|l| l.kind == LevelKind::Exact) {
                p.push(format!(
                    "{key}.term_frequency: the adjustment applies to the 'exact' level, and there is none"
                ));
            }
            for (l, lev) in cmp.levels.iter().enumerate() {
                let lkey = format!("{key}.levels[{l}]");
                match (&lev.kind, &lev.column) {
                    (LevelKind::ColumnsReversed, None) => p.push(format!(
                        "{lkey}.column: missing; a columns-reversed level names the other column, e.g. column = \"surname\""
                    )),
                    (LevelKind::ColumnsReversed, Some(c)) if c.is_empty() || *c == cmp.column => {
                        p.push(format!(
                            "{lkey}.column: '{c}' must be another column than the comparison's ('{}')",
                            cmp.column
                        ))
                    }
                    (LevelKind::ColumnsReversed, Some(_)) | (_, None) => {}
                    (k, Some(_)) => p.push(format!(
                        "{lkey}.column: a '{}' level takes no column (only columns-reversed does)",
                        k.label()
                    )),
                }
                match lev.kind {
                    LevelKind::JaroWinkler(t) | LevelKind::Relative(t)
                        if !(t.is_finite() && (0.0..=1.0).contains(&t)) =>
                    {
                        p.push(format!("{lkey}.threshold: {t} is outside [0, 1]"))
                    }
                    LevelKind::Levenshtein(t) | LevelKind::Absolute(t) | LevelKind::Date(t)
                        if !(t.is_finite() && t >= 0.0) =>
                    {
                        p.push(format!("{lkey}.threshold: {t} must be a finite number ≥ 0"))
                    }
                    _ => {}
                }
                for (name, v) in [("m", lev.m), ("u", lev.u)] {
                    if let Some(v) = v {
                        if lev.kind == LevelKind::Null {
                            p.push(format!(
                                "{lkey}.{name}: a null level has no {name} (its weight is 0)"
                            ));
                        } else if !prob_ok(v) {
                            p.push(format!("{lkey}.{name}: {v} is not a probability in (0, 1]"));
                        }
                    }
                }
            }
            for (name, fixed) in [
                (
                    "m",
                    cmp.levels.iter().filter_map(|l| l.m).collect::<Vec<_>>(),
                ),
                (
                    "u",
                    cmp.levels.iter().filter_map(|l| l.u).collect::<Vec<_>>(),
                ),
            ] {
                let s: f64 = fixed.iter().sum();
                if s > 1.0 + 1e-9 {
                    p.push(format!(
                        "{key}.levels: the fixed {name} probabilities sum to {s} > 1"
                    ));
                }
            }
        }
        p
    }

    /// Every problem against the two tables (unknown columns, numeric levels on text), plus the
    /// problems of [`problems`](Self::problems), reported at once.
    pub fn validate(
        &self,
        intruder: &Table,
        released: &Table,
        released_name: &dyn Fn(&str) -> String,
    ) -> Result<(), SpecError> {
        let mut p = self.problems();
        let file = |t: &Table| t.source().display().to_string();
        let check_col = |key: &str, t: &Table, name: &str, p: &mut Vec<String>| -> bool {
            if name.is_empty() {
                return false;
            }
            if t.position(name).is_some() {
                true
            } else {
                p.push(format!(
                    "{key}: no column '{name}' in {} (columns: {})",
                    file(t),
                    t.names().join(", ")
                ));
                false
            }
        };
        for (c, cmp) in self.comparisons.iter().enumerate() {
            let key = format!("comparison[{c}].column");
            let rname = cmp
                .released
                .clone()
                .unwrap_or_else(|| released_name(&cmp.column));
            let ok_i = check_col(&key, intruder, &cmp.column, &mut p);
            let ok_r = check_col(
                &format!("comparison[{c}].released"),
                released,
                &rname,
                &mut p,
            );
            if !(ok_i && ok_r) {
                continue;
            }
            let cols = [
                (intruder, intruder.column(&cmp.column)),
                (released, released.column(&rname)),
            ];
            for (l, lev) in cmp.levels.iter().enumerate() {
                if let (LevelKind::ColumnsReversed, Some(other)) = (&lev.kind, &lev.column) {
                    let k = format!("comparison[{c}].levels[{l}].column");
                    check_col(&k, intruder, other, &mut p);
                    check_col(&k, released, &released_name(other), &mut p);
                }
            }
            for (t, col) in cols {
                let Ok(col) = col else { continue };
                for (l, lev) in cmp.levels.iter().enumerate() {
                    if lev.kind.needs_numbers() && !column_is_numeric(col) {
                        p.push(format!(
                            "comparison[{c}].levels[{l}]: '{}' compares numbers, but column '{}' of {} is {} with non-numeric values",
                            lev.kind.label(),
                            col.name(),
                            file(t),
                            col.kind()
                        ));
                    }
                }
            }
        }
        for (r, rule) in self.blocking.iter().enumerate() {
            for (t, term) in rule.iter().enumerate() {
                let key = format!("blocking[{r}][{t}]");
                check_col(&key, intruder, term.column(), &mut p);
                check_col(&key, released, &released_name(term.column()), &mut p);
            }
        }
        if p.is_empty() {
            Ok(())
        } else {
            Err(SpecError {
                source_name: "linkage specification".into(),
                problems: p,
            })
        }
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
