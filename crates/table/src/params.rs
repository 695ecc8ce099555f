//! The parameter layer shared by every method family (attacks, defences, risk measures, utility
//! measures, generators).
//!
//! A method declares its parameters once, as a static slice of [`ParamSpec`] in its registry
//! [`Entry`]: name, kind, default, range, documentation, the schema role that supplies a default
//! column, and the old names still accepted. Every surface hands the method a TOML table of raw
//! values — an experiment file's `[[attack]]` table, a pipeline's `[[step]]`, the command line's
//! `--set key=value` and flags, Python keyword arguments — and the method's `build` function asks
//! a [`ParamReader`] for typed values. The reader checks kind, range and choices against the
//! declaration, resolves relative paths, checks column names against the data when they are
//! known, and records every problem with its path (`attack[2].linkage_spec: …`) instead of
//! stopping at the first; [`ParamReader::finish`] adds one problem per unknown key with a
//! did-you-mean. Checked parameters are a type apart from the work they configure (the linfa
//! way): unchecked table → `build` → a configured method → run.
//!
//! # Names
//! One name per concept across methods: `keys` are the key variables (quasi-identifiers) a method
//! matches or counts on; `variables` are the columns a method transforms or measures; `weight`,
//! `sensitive`, `group` name one column of that role. Old names (`columns`, `vars`) are declared
//! as aliases: accepted for one release with a deprecation warning.
//!
//! # Example
//! ```
//! use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec, Range, ReadContext};
//! static PARAMS: &[ParamSpec] = &[
//!     ParamSpec::new("k", ParamKind::Integer, "smallest class size").required().within(Range::at_least(2.0)),
//!     ParamSpec::new("variables", ParamKind::Columns, "columns masked").alias(&["columns"]),
//! ];
//! let table: toml::Table = "k = 1\ncolumnz = [\"a\"]".parse().unwrap();
//! let mut r = ParamReader::new(&table, "step[1]", &[PARAMS], ReadContext::default());
//! assert_eq!(r.get::<i64>("k"), None); // out of range: recorded, not returned
//! let outcome = r.finish();
//! let text: Vec<String> = outcome.problems.iter().map(|p| p.to_string()).collect();
//! assert_eq!(text[0], "step[1].k: expected a value ≥ 2, found 1");
//! assert!(text[1].starts_with("step[1].columnz: unknown key (did you mean 'variables'?)"));
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::column::{Kind, Role};
use crate::unit::Unit;

/// The declared type of a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A whole number.
    Integer,
    /// A number (an integer is accepted).
    Number,
    /// `true` or `false`.
    Bool,
    /// Text.
    String,
    /// One of a fixed list of words.
    Choice(&'static [&'static str]),
    /// A file path; a relative path is relative to the file that names it (the experiment file,
    /// or the working directory on the command line).
    Path,
    /// One column name.
    Column,
    /// A list of column names (a single name is accepted as a list of one).
    Columns,
    /// A list of texts (a single text is accepted as a list of one).
    Strings,
    /// A list of numbers.
    Numbers,
    /// A list of whole numbers.
    Integers,
    /// A list of lists of numbers (a matrix, row by row).
    Matrix,
    /// A table from text to text.
    Map,
    /// A table from text to number (e.g. per-key weights).
    NumberMap,
    /// An inline table of its own (e.g. a linkage specification).
    Table,
}

impl ParamKind {
    /// How the type is written in messages and docs.
    pub fn as_str(self) -> String {
        match self {
            ParamKind::Integer => "integer".into(),
            ParamKind::Number => "number".into(),
            ParamKind::Bool => "bool".into(),
            ParamKind::String => "string".into(),
            ParamKind::Choice(words) => format!("one of {}", words.join(" | ")),
            ParamKind::Path => "file path".into(),
            ParamKind::Column => "column".into(),
            ParamKind::Columns => "list of columns".into(),
            ParamKind::Strings => "list of strings".into(),
            ParamKind::Numbers => "list of numbers".into(),
            ParamKind::Integers => "list of integers".into(),
            ParamKind::Matrix => "list of lists of numbers".into(),
            ParamKind::Map => "table of string = string".into(),
            ParamKind::NumberMap => "table of string = number".into(),
            ParamKind::Table => "table".into(),
        }
    }

    /// Whether the parameter holds one value (a list of such values in an experiment's defence
    /// step is then a grid dimension).
    pub fn is_scalar(self) -> bool {
        matches!(
            self,
            ParamKind::Integer
                | ParamKind::Number
                | ParamKind::Bool
                | ParamKind::String
                | ParamKind::Choice(_)
                | ParamKind::Path
                | ParamKind::Column
        )
    }

    /// Whether the parameter names columns of the data.
    pub fn is_column(self) -> bool {
        matches!(self, ParamKind::Column | ParamKind::Columns)
    }
}

/// What kind of column a column parameter needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnNeed {
    /// Any column.
    Any,
    /// Integer or float.
    Numeric,
    /// A column with discrete values: categorical, integer, string or set-valued (not float).
    Discrete,
    /// A categorical column (declared or inferred; an integer-coded variable needs
    /// `type = "categorical"` in a schema, or a categorical dtype in Python).
    Categorical,
}

impl ColumnNeed {
    /// Whether a column of `kind` satisfies the need.
    pub fn accepts(self, kind: Kind) -> bool {
        match self {
            ColumnNeed::Any => true,
            ColumnNeed::Numeric => kind.is_numeric(),
            ColumnNeed::Discrete => kind != Kind::Float,
            ColumnNeed::Categorical => kind == Kind::Categorical,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            ColumnNeed::Any => "any column",
            ColumnNeed::Numeric => "a numeric (integer or float) column",
            ColumnNeed::Discrete => "a column with discrete values (not float)",
            ColumnNeed::Categorical => {
                "a categorical column (declare type = \"categorical\" in a schema, or pass a categorical column from Python)"
            }
        }
    }
}

/// The valid range of a numeric parameter (every item of a list of numbers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    /// The lower bound and whether it is included.
    pub min: Option<(f64, bool)>,
    /// The upper bound and whether it is included.
    pub max: Option<(f64, bool)>,
}

impl Range {
    /// Any value.
    pub const ANY: Range = Range {
        min: None,
        max: None,
    };
    /// A share: `[0, 1]`.
    pub const SHARE: Range = Range::closed(0.0, 1.0);
    /// A probability strictly between 0 and 1: `(0, 1)`.
    pub const OPEN_UNIT: Range = Range {
        min: Some((0.0, false)),
        max: Some((1.0, false)),
    };
    /// A positive number: `> 0`.
    pub const POSITIVE: Range = Range {
        min: Some((0.0, false)),
        max: None,
    };

    /// `[min, max]`.
    pub const fn closed(min: f64, max: f64) -> Range {
        Range {
            min: Some((min, true)),
            max: Some((max, true)),
        }
    }

    /// `≥ min`.
    pub const fn at_least(min: f64) -> Range {
        Range {
            min: Some((min, true)),
            max: None,
        }
    }

    /// `> min`.
    pub const fn above(min: f64) -> Range {
        Range {
            min: Some((min, false)),
            max: None,
        }
    }

    /// `(min, max]`.
    pub const fn left_open(min: f64, max: f64) -> Range {
        Range {
            min: Some((min, false)),
            max: Some((max, true)),
        }
    }

    /// Whether `x` lies in the range (a NaN never does).
    pub fn contains(&self, x: f64) -> bool {
        if x.is_nan() {
            return false;
        }
        let lo = match self.min {
            Some((m, true)) => x >= m,
            Some((m, false)) => x > m,
            None => true,
        };
        let hi = match self.max {
            Some((m, true)) => x <= m,
            Some((m, false)) => x < m,
            None => true,
        };
        lo && hi
    }

    /// Whether any bound is set.
    pub fn is_bounded(&self) -> bool {
        self.min.is_some() || self.max.is_some()
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = |x: f64| {
            if x == x.trunc() && x.abs() < 1e15 {
                format!("{}", x as i64)
            } else {
                format!("{x}")
            }
        };
        match (self.min, self.max) {
            (None, None) => f.write_str("any value"),
            (Some((a, true)), None) => write!(f, "≥ {}", n(a)),
            (Some((a, false)), None) => write!(f, "> {}", n(a)),
            (None, Some((b, true))) => write!(f, "≤ {}", n(b)),
            (None, Some((b, false))) => write!(f, "< {}", n(b)),
            (Some((a, ai)), Some((b, bi))) => write!(
                f,
                "in {}{}, {}{}",
                if ai { "[" } else { "(" },
                n(a),
                n(b),
                if bi { "]" } else { ")" }
            ),
        }
    }
}

/// One parameter of a method, as declared in its registry entry.
///
/// Build with [`ParamSpec::new`] and the `const` modifiers, so a registry is a `static` slice.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    /// The name (TOML key, `--set` key, Python keyword).
    pub name: &'static str,
    /// Its type.
    pub kind: ParamKind,
    /// Whether it must be given (after defaults from schema roles).
    pub required: bool,
    /// The default, as written in docs (empty when required, or when absence has a meaning
    /// explained in `doc`).
    pub default: &'static str,
    /// What it means, with its unit.
    pub doc: &'static str,
    /// Old names still accepted (with a deprecation warning).
    pub aliases: &'static [&'static str],
    /// The schema role whose columns are the default (`keys` ← role key, `weight` ← role weight).
    pub role: Option<Role>,
    /// The valid range of a number (or of every number in a list).
    pub range: Range,
    /// What a column parameter needs.
    pub need: ColumnNeed,
    /// Further names of its command-line flag (`--k` for `k_anonymity`); the flag's own name is
    /// the parameter's with `-` for `_`.
    pub flag_aliases: &'static [&'static str],
    /// A value to show in the method's example (TOML value text: `["income"]`, `100`): given
    /// for every parameter the example needs — each required one that no schema role fills, and
    /// one of a choice the method requires (`breaks` or `map`). The examples of a family name
    /// the columns of one built-in file (the defences': data-synth's `household-panel` wave 1),
    /// and a test runs each method's example on it ([`MethodDoc::example`]).
    pub example: &'static str,
}

impl ParamSpec {
    /// An optional parameter without a default, any value of its kind.
    pub const fn new(name: &'static str, kind: ParamKind, doc: &'static str) -> ParamSpec {
        ParamSpec {
            name,
            kind,
            required: false,
            default: "",
            doc,
            aliases: &[],
            role: None,
            range: Range::ANY,
            need: ColumnNeed::Any,
            flag_aliases: &[],
            example: "",
        }
    }

    /// The value its method's example gives it ([`ParamSpec::example`]).
    pub const fn example(mut self, value: &'static str) -> Self {
        self.example = value;
        self
    }

    /// Marks it required.
    pub const fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Its default, as written in docs.
    pub const fn default_value(mut self, default: &'static str) -> Self {
        self.default = default;
        self
    }

    /// Old names still accepted.
    pub const fn alias(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    /// Further names of its command-line flag (short ones, or names it had before).
    pub const fn flag_alias(mut self, names: &'static [&'static str]) -> Self {
        self.flag_aliases = names;
        self
    }

    /// The columns of this schema role are the default.
    pub const fn from_role(mut self, role: Role) -> Self {
        self.role = Some(role);
        self
    }

    /// The valid range.
    pub const fn within(mut self, range: Range) -> Self {
        self.range = range;
        self
    }

    /// What kind of column it needs.
    pub const fn needs(mut self, need: ColumnNeed) -> Self {
        self.need = need;
        self
    }

    /// Whether `key` is this parameter's name or one of its aliases.
    pub fn answers_to(&self, key: &str) -> bool {
        self.name == key || self.aliases.contains(&key)
    }

    /// The default as shown in `--list` and the docs: the default, the role it comes from, or
    /// `required`.
    pub fn default_text(&self) -> String {
        if self.required && self.role.is_none() {
            return "required".into();
        }
        let mut s = if self.default.is_empty() {
            String::new()
        } else {
            format!("default {}", self.default)
        };
        if let Some(r) = self.role {
            if !s.is_empty() {
                s.push_str("; ");
            }
            s.push_str(&format!("default: the {r} columns of the schema"));
        }
        if s.is_empty() {
            s = "optional".into();
        }
        s
    }
}

/// One problem with a parameter: where (`attack[2].linkage_spec`) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The key path (`attack[2].threshold`), or the section when it concerns the whole table.
    pub path: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str(&self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Every problem of a configuration, reported at once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{source_name}: {} problem{}:\n  - {}", problems.len(), if problems.len() == 1 { "" } else { "s" }, problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n  - "))]
pub struct ParamError {
    /// The file or surface the parameters came from (`experiment.toml`, `--set`).
    pub source_name: String,
    /// Every problem.
    pub problems: Vec<Problem>,
}

/// The columns of a data file, for checking column parameters before any work (`--dry-run`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ColumnSet {
    /// The file, for messages.
    pub file: String,
    /// Name, kind and role of every column (truth columns included).
    pub columns: Vec<(String, Kind, Role)>,
    /// For columns that are not numeric: the first observed cell that is not a finite number
    /// (its 1-based row and its text), so that a numeric need names the value ("NaN", "inf",
    /// "1e999", a word); empty when not known.
    pub first_not_number: Vec<(String, usize, String)>,
    /// The values of discrete columns when known: a categorical column's levels, an integer
    /// column's distinct values (up to [`ColumnSet::MAX_LEVELS`]), so that a recode map can be
    /// checked against them before any work; empty when not known.
    pub levels: Vec<(String, Vec<String>)>,
}

impl ColumnSet {
    /// The columns of a table and of the truth columns kept beside it.
    pub fn of_parts(table: &crate::Table, truth: &[crate::Column]) -> ColumnSet {
        let mut columns: Vec<(String, Kind, Role)> = table
            .columns()
            .iter()
            .map(|c| (c.name().to_string(), c.kind(), c.role()))
            .collect();
        columns.extend(
            truth
                .iter()
                .map(|c| (c.name().to_string(), c.kind(), Role::Truth)),
        );
        let first_not_number = table
            .columns()
            .iter()
            .chain(truth)
            .filter(|c| !c.kind().is_numeric())
            .filter_map(|c| first_not_finite(c).map(|(i, t)| (c.name().to_string(), i + 1, t)))
            .collect();
        let levels = table
            .columns()
            .iter()
            .filter_map(|c| column_levels(c).map(|l| (c.name().to_string(), l)))
            .collect();
        ColumnSet {
            file: table.source().to_string(),
            columns,
            first_not_number,
            levels,
        }
    }

    /// Integer columns with more distinct values than this have no levels in a column set.
    pub const MAX_LEVELS: usize = 10_000;

    /// The known values of column `name` ([`ColumnSet::levels`]).
    pub fn levels_of(&self, name: &str) -> Option<&[String]> {
        self.levels
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, l)| l.as_slice())
    }

    /// [`ColumnSet::check`], refusing a column with role truth: the ground truth is set apart
    /// for the evaluator, so no attack, defence or measure reads it.
    pub fn check_usable(&self, name: &str, need: ColumnNeed) -> Result<(), String> {
        if self
            .columns
            .iter()
            .any(|(n, _, r)| n == name && *r == Role::Truth)
        {
            return Err(format!(
                "{}: column '{name}' is the ground truth (role truth: named as the truth, e.g. by --truth or truth = \"{name}\"); it is set apart for the evaluator, so no attack, defence or measure can read it: name another column, or another truth",
                self.file
            ));
        }
        self.check(name, need)
    }

    /// The kind of column `name`.
    pub fn kind(&self, name: &str) -> Option<Kind> {
        self.columns
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, k, _)| *k)
    }

    /// The names of the columns with `role`, in file order.
    pub fn with_role(&self, role: Role) -> Vec<String> {
        self.columns
            .iter()
            .filter(|(_, _, r)| *r == role)
            .map(|(n, _, _)| n.clone())
            .collect()
    }

    /// Checks that `name` is a column satisfying `need`; the message names the file and
    /// suggests a near name.
    pub fn check(&self, name: &str, need: ColumnNeed) -> Result<(), String> {
        match self.kind(name) {
            None => {
                let names: Vec<&str> = self.columns.iter().map(|(n, _, _)| n.as_str()).collect();
                Err(format!(
                    "{}: no column named '{name}'{}{}; the columns are: {}",
                    self.file,
                    did_you_mean(name, names.iter().copied()),
                    one_column_hint(&names),
                    names.join(", ")
                ))
            }
            Some(k) if !need.accepts(k) => Err(format!(
                "{}: column '{name}' is {k}; expected {}{}",
                self.file,
                need.describe(),
                match self.first_not_number.iter().find(|x| x.0 == name) {
                    Some((_, row, text)) if need == ColumnNeed::Numeric =>
                        format!(" (row {row} holds '{text}', which is not a finite number)"),
                    _ => String::new(),
                }
            )),
            Some(_) => Ok(()),
        }
    }
}

/// The values of a discrete column as a column set knows them: a categorical column's levels,
/// an integer column's distinct values in order (when at most [`ColumnSet::MAX_LEVELS`]).
pub fn column_levels(c: &crate::Column) -> Option<Vec<String>> {
    match c.data() {
        crate::ColumnData::Categorical { levels, .. } => Some(levels.clone()),
        crate::ColumnData::Integer(v) => {
            let mut seen = std::collections::BTreeSet::new();
            for (i, x) in v.iter().enumerate() {
                if !c.is_missing(i) {
                    seen.insert(*x);
                    if seen.len() > ColumnSet::MAX_LEVELS {
                        return None;
                    }
                }
            }
            Some(seen.into_iter().map(|x| x.to_string()).collect())
        }
        _ => None,
    }
}

/// ` (row 3 holds 'abc', which is not a number)`: where a column refused as not numeric first
/// holds a cell that is not a finite number, for messages; empty when every cell is one.
pub fn not_a_number_note(c: &crate::Column) -> String {
    first_not_finite(c)
        .map(|(i, t)| format!(" (row {} holds '{t}', which is not a number)", i + 1))
        .unwrap_or_default()
}

/// The first observed cell of `c` (0-based row, text) that does not read as a finite number.
pub fn first_not_finite(c: &crate::Column) -> Option<(usize, String)> {
    (0..c.len()).find_map(|i| {
        let t = c.text(i)?;
        match t.trim().parse::<f64>() {
            Ok(x) if x.is_finite() => None,
            _ => Some((i, t.into_owned())),
        }
    })
}

/// What a surface knows when reading parameters.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadContext<'a> {
    /// The directory relative paths are resolved against (the experiment file's; the working
    /// directory when `None`).
    pub base_dir: Option<&'a Path>,
    /// The columns of the data, when known: column parameters are then checked.
    pub columns: Option<&'a ColumnSet>,
}

/// The outcome of reading one table: problems (the configuration is invalid when any) and
/// warnings (deprecated names).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Every problem.
    pub problems: Vec<Problem>,
    /// Every warning.
    pub warnings: Vec<Problem>,
}

/// A value that can be read from a TOML parameter.
pub trait FromParam: Sized {
    /// Converts, or says what was expected.
    fn from_param(v: &toml::Value) -> Result<Self, String>;
}

/// How a TOML value is named in messages.
pub fn describe(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("the string \"{s}\""),
        toml::Value::Integer(i) => format!("the integer {i}"),
        toml::Value::Float(f) => format!("the number {f}"),
        toml::Value::Boolean(b) => format!("the bool {b}"),
        toml::Value::Datetime(d) => format!("the date {d}"),
        toml::Value::Array(_) => "a list".to_string(),
        toml::Value::Table(_) => "a table".to_string(),
    }
}

impl FromParam for f64 {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Float(f) if f.is_finite() => Ok(*f),
            toml::Value::Integer(i) => Ok(*i as f64),
            _ => Err(format!("expected a finite number, found {}", describe(v))),
        }
    }
}

impl FromParam for i64 {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Integer(i) => Ok(*i),
            _ => Err(format!("expected an integer, found {}", describe(v))),
        }
    }
}

impl FromParam for u64 {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Integer(i) if *i >= 0 => Ok(*i as u64),
            _ => Err(format!(
                "expected a whole number ≥ 0, found {}",
                describe(v)
            )),
        }
    }
}

impl FromParam for usize {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        u64::from_param(v).and_then(|x| {
            usize::try_from(x).map_err(|_| format!("{x} is too large for this machine"))
        })
    }
}

impl FromParam for u32 {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        u64::from_param(v).and_then(|x| {
            u32::try_from(x).map_err(|_| format!("expected at most {}, found {x}", u32::MAX))
        })
    }
}

impl FromParam for bool {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Boolean(b) => Ok(*b),
            _ => Err(format!("expected true or false, found {}", describe(v))),
        }
    }
}

impl FromParam for String {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::String(s) => Ok(s.clone()),
            _ => Err(format!("expected a string, found {}", describe(v))),
        }
    }
}

impl FromParam for Vec<String> {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::String(s) => Ok(vec![s.clone()]),
            toml::Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, x)| String::from_param(x).map_err(|e| format!("item {}: {e}", i + 1)))
                .collect(),
            _ => Err(format!("expected a list of strings, found {}", describe(v))),
        }
    }
}

impl FromParam for Vec<f64> {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, x)| f64::from_param(x).map_err(|e| format!("item {}: {e}", i + 1)))
                .collect(),
            _ => Err(format!("expected a list of numbers, found {}", describe(v))),
        }
    }
}

impl FromParam for Vec<i64> {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, x)| i64::from_param(x).map_err(|e| format!("item {}: {e}", i + 1)))
                .collect(),
            _ => Err(format!(
                "expected a list of integers, found {}",
                describe(v)
            )),
        }
    }
}

impl FromParam for Vec<Vec<f64>> {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, x)| Vec::<f64>::from_param(x).map_err(|e| format!("row {}: {e}", i + 1)))
                .collect(),
            _ => Err(format!(
                "expected a list of lists of numbers, found {}",
                describe(v)
            )),
        }
    }
}

impl FromParam for BTreeMap<String, String> {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Table(t) => t
                .iter()
                .map(|(k, x)| match x {
                    toml::Value::String(s) => Ok((k.clone(), s.clone())),
                    toml::Value::Integer(i) => Ok((k.clone(), i.to_string())),
                    _ => Err(format!(
                        "entry '{k}': expected a string, found {}",
                        describe(x)
                    )),
                })
                .collect(),
            _ => Err(format!(
                "expected a table of string = string, found {}",
                describe(v)
            )),
        }
    }
}

impl FromParam for Vec<(String, f64)> {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Table(t) => t
                .iter()
                .map(|(k, x)| {
                    f64::from_param(x)
                        .map(|f| (k.clone(), f))
                        .map_err(|e| format!("entry '{k}': {e}"))
                })
                .collect(),
            _ => Err(format!(
                "expected a table of name = number, found {}",
                describe(v)
            )),
        }
    }
}

impl FromParam for toml::Table {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        match v {
            toml::Value::Table(t) => Ok(t.clone()),
            _ => Err(format!("expected a table, found {}", describe(v))),
        }
    }
}

impl FromParam for toml::Value {
    fn from_param(v: &toml::Value) -> Result<Self, String> {
        Ok(v.clone())
    }
}

/// Reads one table of parameters against one or more declared lists, recording every problem.
#[derive(Debug)]
pub struct ParamReader<'a> {
    table: &'a toml::Table,
    prefix: String,
    specs: Vec<&'static [ParamSpec]>,
    ctx: ReadContext<'a>,
    ignored: Vec<String>,
    outcome: Outcome,
    warned: Vec<&'static str>,
}

impl<'a> ParamReader<'a> {
    /// A reader over `table`; `prefix` starts every problem's path (`attack[2]`, `step 1
    /// (mdav)`, empty on the command line); `specs` are the declared parameter lists (a family's
    /// common parameters and the method's own).
    pub fn new(
        table: &'a toml::Table,
        prefix: impl Into<String>,
        specs: &[&'static [ParamSpec]],
        ctx: ReadContext<'a>,
    ) -> Self {
        ParamReader {
            table,
            prefix: prefix.into(),
            specs: specs.to_vec(),
            ctx,
            ignored: vec!["method".into()],
            outcome: Outcome::default(),
            warned: Vec::new(),
        }
    }

    /// Keys accepted without a declaration (the reader ignores them): `method` always.
    pub fn ignore(mut self, keys: &[&str]) -> Self {
        self.ignored.extend(keys.iter().map(|k| k.to_string()));
        self
    }

    /// The context (base directory, known columns).
    pub fn context(&self) -> ReadContext<'a> {
        self.ctx
    }

    /// The path of `key` in messages.
    pub fn path(&self, key: &str) -> String {
        if self.prefix.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.prefix)
        }
    }

    fn spec(&self, key: &str) -> Option<&'static ParamSpec> {
        self.specs
            .iter()
            .flat_map(|s| s.iter())
            .find(|s| s.name == key)
    }

    /// The raw value of `key` (under its name or an alias; an alias records a warning, both
    /// a problem).
    pub fn raw(&mut self, key: &str) -> Option<&'a toml::Value> {
        let spec = self.spec(key);
        debug_assert!(spec.is_some(), "parameter '{key}' read but not declared");
        let direct = self.table.get(key);
        let Some(spec) = spec else { return direct };
        let alias = spec
            .aliases
            .iter()
            .find_map(|a| self.table.get(*a).map(|v| (*a, v)));
        match (direct, alias) {
            (Some(v), None) => Some(v),
            (None, None) => None,
            (Some(v), Some((a, _))) => {
                self.problem(
                    key,
                    format!("given twice: as '{key}' and as its old name '{a}'; keep '{key}'"),
                );
                Some(v)
            }
            (None, Some((a, v))) => {
                if !self.warned.contains(&spec.name) {
                    self.warned.push(spec.name);
                    let path = self.path(a);
                    self.outcome.warnings.push(Problem {
                        path,
                        message: format!(
                            "'{a}' is deprecated: use '{key}' (the old name is accepted until the next release)"
                        ),
                    });
                }
                Some(v)
            }
        }
    }

    /// Checks a raw value against the declaration (choices, range, columns); records problems.
    fn validate(&mut self, key: &str, spec: &ParamSpec, v: &toml::Value) -> bool {
        let mut ok = true;
        if let ParamKind::Choice(words) = spec.kind
            && let toml::Value::String(s) = v
            && !words.contains(&s.as_str())
        {
            self.problem(
                key,
                format!(
                    "unknown value '{s}'{}; expected one of: {}",
                    did_you_mean(s, words.iter().copied()),
                    words.join(", ")
                ),
            );
            ok = false;
        }
        if spec.range.is_bounded() {
            let mut nums = Vec::new();
            collect_numbers(v, &mut nums);
            if let Some(x) = nums.into_iter().find(|x| !spec.range.contains(*x)) {
                self.problem(
                    key,
                    format!(
                        "expected {}, found {}",
                        range_phrase(&spec.range),
                        fmt_num(x)
                    ),
                );
                ok = false;
            }
        }
        if spec.kind.is_column()
            && let Some(cols) = self.ctx.columns
        {
            let names: Vec<String> = match v {
                toml::Value::String(s) => vec![s.clone()],
                toml::Value::Array(a) => a
                    .iter()
                    .filter_map(|x| x.as_str().map(str::to_string))
                    .collect(),
                _ => Vec::new(),
            };
            for n in names {
                if let Err(e) = cols.check_usable(&n, spec.need) {
                    self.problem(key, e);
                    ok = false;
                }
            }
        }
        ok
    }

    /// An optional value: `None` when absent or invalid (then a problem is recorded).
    pub fn get<T: FromParam>(&mut self, key: &str) -> Option<T> {
        let v = self.raw(key)?;
        if let Some(spec) = self.spec(key)
            && !self.validate(key, spec, v)
        {
            return None;
        }
        match T::from_param(v) {
            Ok(x) => Some(x),
            Err(e) => {
                self.problem(key, e);
                None
            }
        }
    }

    /// A required value: records a problem when absent.
    pub fn require<T: FromParam>(&mut self, key: &str) -> Option<T> {
        if !self.has(key) {
            let doc = self.spec(key).map(|s| s.doc).unwrap_or("");
            self.problem(
                key,
                if doc.is_empty() {
                    "is required but missing".to_string()
                } else {
                    format!("is required but missing ({doc})")
                },
            );
            return None;
        }
        self.get(key)
    }

    /// An optional value with a default.
    pub fn get_or<T: FromParam>(&mut self, key: &str, default: T) -> T {
        self.get(key).unwrap_or(default)
    }

    /// A choice parsed into its type (`FromStr` errors become problems).
    pub fn choice<T: std::str::FromStr>(&mut self, key: &str) -> Option<T>
    where
        T::Err: fmt::Display,
    {
        let s: String = self.get(key)?;
        match s.parse::<T>() {
            Ok(x) => Some(x),
            Err(e) => {
                self.problem(key, e);
                None
            }
        }
    }

    /// A file path, resolved against the context's base directory.
    pub fn path_value(&mut self, key: &str) -> Option<PathBuf> {
        let s: String = self.get(key)?;
        let p = PathBuf::from(&s);
        Some(match self.ctx.base_dir {
            Some(base) if p.is_relative() => base.join(p),
            _ => p,
        })
    }

    /// Whether `key` (or an alias) was given.
    pub fn has(&self, key: &str) -> bool {
        if self.table.contains_key(key) {
            return true;
        }
        self.spec(key)
            .is_some_and(|s| s.aliases.iter().any(|a| self.table.contains_key(*a)))
    }

    /// Records a problem about `key`.
    pub fn problem(&mut self, key: &str, message: impl fmt::Display) {
        let path = self.path(key);
        self.outcome.problems.push(Problem {
            path,
            message: message.to_string(),
        });
    }

    /// Records a problem about the table as a whole.
    pub fn table_problem(&mut self, message: impl fmt::Display) {
        self.outcome.problems.push(Problem {
            path: self.prefix.clone(),
            message: message.to_string(),
        });
    }

    /// Checks `cond`, recording `message` about `key` when it fails.
    pub fn check(&mut self, key: &str, cond: bool, message: impl fmt::Display) {
        if !cond {
            self.problem(key, message);
        }
    }

    /// Whether no problem has been recorded so far.
    pub fn ok(&self) -> bool {
        self.outcome.problems.is_empty()
    }

    /// Adds one problem per unknown key (with a did-you-mean) and returns every problem and
    /// warning.
    pub fn finish(mut self) -> Outcome {
        let known: Vec<&'static str> = self
            .specs
            .iter()
            .flat_map(|s| s.iter())
            .flat_map(|s| std::iter::once(s.name).chain(s.aliases.iter().copied()))
            .collect();
        let names: Vec<&'static str> = self
            .specs
            .iter()
            .flat_map(|s| s.iter())
            .map(|s| s.name)
            .collect();
        let unknown: Vec<String> = self
            .table
            .keys()
            .filter(|k| !known.contains(&k.as_str()) && !self.ignored.contains(k))
            .cloned()
            .collect();
        for k in unknown {
            // Suggest the current name even when the typo is nearer an old one.
            let hint = nearest(&k, known.iter().copied())
                .map(|n| {
                    let canonical = self
                        .specs
                        .iter()
                        .flat_map(|s| s.iter())
                        .find(|s| s.answers_to(n))
                        .map_or(n, |s| s.name);
                    format!(" (did you mean '{canonical}'?)")
                })
                .unwrap_or_default();
            self.problem(
                &k,
                format!(
                    "unknown key{hint}; the keys are: {}",
                    if names.is_empty() {
                        "(none)".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            );
        }
        self.outcome
    }
}

fn collect_numbers(v: &toml::Value, out: &mut Vec<f64>) {
    match v {
        toml::Value::Integer(i) => out.push(*i as f64),
        toml::Value::Float(f) => out.push(*f),
        toml::Value::Array(a) => a.iter().for_each(|x| collect_numbers(x, out)),
        toml::Value::Table(t) => t.values().for_each(|x| collect_numbers(x, out)),
        _ => {}
    }
}

fn fmt_num(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn range_phrase(r: &Range) -> String {
    format!("a value {r}")
}

/// The name of a delimiter in messages.
pub fn delimiter_name(d: u8) -> String {
    match d {
        b'\t' => "tab".to_string(),
        d => format!("'{}'", d as char),
    }
}

/// When the columns are one column whose name holds another likely delimiter (a `;`-separated
/// file read with `,`): ` (the header was read as one column; try --delimiter ';')`, else
/// empty.
pub fn one_column_hint(names: &[&str]) -> String {
    let [only] = names else {
        return String::new();
    };
    let best = [b';', b'\t', b'|', b',']
        .into_iter()
        .map(|d| (only.bytes().filter(|&b| b == d).count(), d))
        .filter(|(n, _)| *n > 0)
        .max_by_key(|(n, _)| *n);
    match best {
        Some((_, d)) => format!(
            " (the header was read as one column: the file's delimiter seems to be {}; try --delimiter {}, or delimiter in a schema)",
            delimiter_name(d),
            if d == b'\t' {
                "tab".to_string()
            } else {
                format!("'{}'", d as char)
            }
        ),
        None => String::new(),
    }
}

/// ` (did you mean 'x'?)` when a candidate is close to `name` (strsim: Damerau–Levenshtein
/// ≤ 2 on lower case, or Jaro–Winkler ≥ 0.9), else empty.
pub fn did_you_mean<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> String {
    nearest(name, candidates)
        .map(|n| format!(" (did you mean '{n}'?)"))
        .unwrap_or_default()
}

/// The candidate closest to `name`, when close enough to be a likely typo.
pub fn nearest<'c>(name: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let lower = name.to_lowercase();
    let mut best: Option<(usize, f64, &str)> = None;
    for c in candidates {
        let cl = c.to_lowercase();
        let d = strsim::damerau_levenshtein(&lower, &cl);
        let jw = strsim::jaro_winkler(&lower, &cl);
        let len = lower.chars().count();
        if len <= 2 && d > 0 {
            continue;
        }
        let limit = if len <= 4 { 1 } else { 2 };
        if d > limit && jw < 0.9 {
            continue;
        }
        let better = match best {
            None => true,
            Some((bd, bjw, _)) => d < bd || (d == bd && jw > bjw),
        };
        if better {
            best = Some((d, jw, c));
        }
    }
    best.map(|(_, _, c)| c)
}

/// Fills absent parameters that declare a schema role with the columns of that role: one name
/// for [`ParamKind::Column`], every name for [`ParamKind::Columns`]. Returns the keys filled.
pub fn fill_from_roles(
    table: &mut toml::Table,
    specs: &[&'static [ParamSpec]],
    columns: &ColumnSet,
) -> Vec<String> {
    let mut filled = Vec::new();
    for s in specs.iter().flat_map(|s| s.iter()) {
        let Some(role) = s.role else { continue };
        if table.contains_key(s.name) || s.aliases.iter().any(|a| table.contains_key(*a)) {
            continue;
        }
        let names = columns.with_role(role);
        let value = match s.kind {
            ParamKind::Column if !names.is_empty() => toml::Value::String(names[0].clone()),
            ParamKind::Columns | ParamKind::Strings if !names.is_empty() => {
                toml::Value::Array(names.into_iter().map(toml::Value::String).collect())
            }
            _ => continue,
        };
        table.insert(s.name.to_string(), value);
        filled.push(s.name.to_string());
    }
    filled
}

/// Parses `--set key=value` items into a table. The value is read as TOML (`k=3`, `p=2.5`,
/// `keys=["a","b"]`, `weights={a=10}`), and otherwise as text; a bare comma-separated list is a
/// list (of numbers when every item is one, else of strings): `keys=a,b`.
pub fn parse_assignments(items: &[String]) -> Result<toml::Table, String> {
    let mut t = toml::Table::new();
    for item in items {
        let Some((k, v)) = item.split_once('=') else {
            return Err(format!("--set '{item}': expected KEY=VALUE"));
        };
        let k = k.trim();
        if k.is_empty() {
            return Err(format!("--set '{item}': the key is empty"));
        }
        let value = parse_value_text(v.trim());
        if t.insert(k.to_string(), value).is_some() {
            return Err(format!("--set: key '{k}' given twice"));
        }
    }
    Ok(t)
}

/// Reads one command-line value: as TOML when it parses, a comma-separated list, else text.
pub fn parse_value_text(v: &str) -> toml::Value {
    let parse = |v: &str| -> Option<toml::Value> {
        format!("v = {v}")
            .parse::<toml::Table>()
            .ok()
            .and_then(|mut t| t.remove("v"))
    };
    match parse(v) {
        Some(x) => x,
        None if v.contains(',') => {
            let items: Vec<toml::Value> = v
                .split(',')
                .map(|s| {
                    let s = s.trim();
                    match parse(s) {
                        Some(x @ (toml::Value::Integer(_) | toml::Value::Float(_))) => x,
                        _ => toml::Value::String(s.to_string()),
                    }
                })
                .collect();
            toml::Value::Array(items)
        }
        None => toml::Value::String(v.to_string()),
    }
}

/// Inserts a command-line flag's value under `key`; refuses a key given both as a flag and with
/// `--set`.
pub fn insert_flag(table: &mut toml::Table, key: &str, value: toml::Value) -> Result<(), String> {
    if table.contains_key(key) {
        return Err(format!(
            "'{key}' is given both as --{} and with --set {key}=…; give it once",
            key.replace('_', "-")
        ));
    }
    table.insert(key.to_string(), value);
    Ok(())
}

/// A figure a method reports beyond its family's common ones: the id its report gives it, the
/// human name reports, charts and the glossary show, its unit, its reference, and whether a
/// score can be negative (the runner clips a non-negative score's interval at 0, as a count's).
/// The definition stays with the report's figure (its `meaning`), which may quote the
/// parameters. A test runs every method and checks that each number it reports is declared
/// here with the same unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FigureSpec {
    /// The figure's id in the method's report (`sample_uniques`).
    pub id: &'static str,
    /// Its human name (`sample uniques (records with f_k = 1)`).
    pub name: &'static str,
    /// Its unit.
    pub unit: Unit,
    /// Who defines or uses it (a paper, a software function, a section of docs/METHODS.md).
    pub reference: &'static str,
    /// Whether it is never negative (always so for a count or a share; declared for a score).
    pub non_negative: bool,
}

impl FigureSpec {
    /// A figure; a count or a share is non-negative, a score may be negative until
    /// [`FigureSpec::non_negative`] says otherwise.
    pub const fn new(
        id: &'static str,
        name: &'static str,
        unit: Unit,
        reference: &'static str,
    ) -> Self {
        FigureSpec {
            id,
            name,
            unit,
            reference,
            non_negative: !matches!(unit, Unit::Score | Unit::Label),
        }
    }

    /// What [`figure_list!`](crate::figure_list) fills its array with before copying the
    /// figures in (no entry declares it).
    #[doc(hidden)]
    pub const FILLER: FigureSpec = FigureSpec::new("", "", Unit::Label, "");

    /// A score that cannot be negative (a sum of squares, a distance, a probability, a risk).
    pub const fn non_negative(mut self) -> Self {
        self.non_negative = true;
        self
    }
}

/// One constant slice of [`FigureSpec`]s from single figures and slices, for an entry's
/// `figures` (measures that share figures list the shared slices):
/// `figure_list![N_TOTAL, N; INDIVIDUAL, THRESHOLD]` (the figures before `;`, then the slices).
#[macro_export]
macro_rules! figure_list {
    ($($item:expr),* $(,)? $(; $($list:expr),* $(,)?)?) => {{
        const PARTS: &[&[$crate::params::FigureSpec]] = &[&[$($item),*] $($(, $list)*)?];
        const LEN: usize = {
            let (mut n, mut i) = (0, 0);
            while i < PARTS.len() {
                n += PARTS[i].len();
                i += 1;
            }
            n
        };
        const OUT: [$crate::params::FigureSpec; LEN] = {
            let mut out = [$crate::params::FigureSpec::FILLER; LEN];
            let (mut k, mut i) = (0, 0);
            while i < PARTS.len() {
                let mut j = 0;
                while j < PARTS[i].len() {
                    out[k] = PARTS[i][j];
                    k += 1;
                    j += 1;
                }
                i += 1;
            }
            out
        };
        &OUT
    }};
}

/// The declaration of figure `id` among `entries`' figures (the first that declares it).
pub fn declared_figure<T: ?Sized>(entries: &[Entry<T>], id: &str) -> Option<&'static FigureSpec> {
    entries
        .iter()
        .flat_map(|e| e.figures.iter())
        .find(|f| f.id == id)
}

/// Where the figures `method` declares and those its runs reported (id and unit; labels left
/// out) disagree: each number reported but not declared or declared with another unit, and
/// each declared figure never reported, one line each. Empty when they agree; the registry
/// tests of the risk and utility measures assert it for every entry.
pub fn figure_mismatches(
    method: &str,
    declared: &[FigureSpec],
    reported: &[(String, Unit)],
) -> Vec<String> {
    let mut out = Vec::new();
    for (name, unit) in reported {
        match declared.iter().find(|f| f.id == name) {
            None => out.push(format!("{method}: {name} ({unit:?}) is not declared")),
            Some(f) if f.unit != *unit => out.push(format!(
                "{method}: {name} is reported as {unit:?}, declared as {:?}",
                f.unit
            )),
            Some(_) => {}
        }
    }
    for f in declared {
        if !reported.iter().any(|(n, _)| n == f.id) {
            out.push(format!("{method}: {} is declared, never reported", f.id));
        }
    }
    out
}

/// A registry entry: a method's name, documentation, parameters and builder. Every family has
/// one static slice of these (`ATTACKS`, `DEFENCES`, `RISK_MEASURES`, `UTILITY_MEASURES`), read
/// by the CLI (`--list`, `--method`, `--set`), the experiment runner, the Python package and the
/// generated docs.
pub struct Entry<T: ?Sized + 'static> {
    /// The name used everywhere (`method = "…"`, `--method`).
    pub name: &'static str,
    /// One line saying what it does.
    pub summary: &'static str,
    /// What it implements: paper, section or equation, software function.
    pub reference: &'static str,
    /// Its own parameters (a family's common parameters are declared apart).
    pub params: &'static [ParamSpec],
    /// The figures it reports beyond its family's common ones (an attack's correct and wrong
    /// matches come from the evaluator and a defence's from the masking summary: those declare
    /// none); the runner names them, and bounds their intervals, from here.
    pub figures: &'static [FigureSpec],
    /// Reads and validates parameters, recording problems in the reader; `None` when any.
    pub build: fn(&mut ParamReader) -> Option<Box<T>>,
}

impl<T: ?Sized> Clone for Entry<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Entry<T> {}

impl<T: ?Sized> fmt::Debug for Entry<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entry").field("name", &self.name).finish()
    }
}

/// A family's registry in one list, one line per method: `mod NAME` declares the module
/// `NAME.rs` beside the file that holds the list and takes its `ENTRY`; a path (`suppress::RISK_ENTRY`,
/// `crate::exact::ENTRY`) takes an entry declared elsewhere. Attributes (`#[cfg(…)]`) apply to
/// both the module and its line. Adding a method is then its file and one line here
/// (docs/adding-a-method.md).
///
/// ```ignore
/// intruder_table::registry! {
///     /// Every risk measure, in the order `--list` shows them.
///     pub static RISK_MEASURES: dyn crate::RiskMeasure = {
///         mod frequency,
///         mod individual,
///         #[cfg(feature = "fixture-methods")]
///         mod fixture_key_space,
///     }
/// }
/// ```
#[macro_export]
macro_rules! registry {
    (@munch [$(#[$a:meta])* $vis:vis static $reg:ident: $ty:ty] [$($acc:tt)*]) => {
        $(#[$a])*
        $vis static $reg: &[$crate::params::Entry<$ty>] = &[$($acc)*];
    };
    (@munch $head:tt [$($acc:tt)*] $(#[$m:meta])* mod $name:ident $(, $($rest:tt)*)?) => {
        $(#[$m])*
        pub mod $name;
        $crate::registry!(@munch $head [$($acc)* $(#[$m])* $name::ENTRY,] $($($rest)*)?);
    };
    (@munch $head:tt [$($acc:tt)*] $(#[$m:meta])* $entry:path $(, $($rest:tt)*)?) => {
        $crate::registry!(@munch $head [$($acc)* $(#[$m])* $entry,] $($($rest)*)?);
    };
    ($(#[$a:meta])* $vis:vis static $reg:ident: $ty:ty = { $($items:tt)* }) => {
        $crate::registry!(@munch [$(#[$a])* $vis static $reg: $ty] [] $($items)*);
    };
}

/// A method built from a registry entry, with the warnings its parameters raised.
pub struct Built<T: ?Sized> {
    /// The configured method.
    pub method: Box<T>,
    /// Deprecation warnings.
    pub warnings: Vec<Problem>,
}

impl<T: ?Sized> fmt::Debug for Built<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Built")
            .field("warnings", &self.warnings)
            .finish()
    }
}

impl<T: ?Sized> Entry<T> {
    /// Builds the method from a table of parameters (`method` and `ignore` keys are skipped);
    /// every problem is reported at once under `prefix`.
    pub fn configure(
        &self,
        table: &toml::Table,
        prefix: &str,
        ctx: ReadContext<'_>,
        ignore: &[&str],
    ) -> Result<Built<T>, Vec<Problem>> {
        let mut r = ParamReader::new(table, prefix, &[self.params], ctx).ignore(ignore);
        let built = (self.build)(&mut r);
        let outcome = r.finish();
        match built {
            Some(m) if outcome.problems.is_empty() => Ok(Built {
                method: m,
                warnings: outcome.warnings,
            }),
            _ if outcome.problems.is_empty() => Err(vec![Problem {
                path: prefix.to_string(),
                message: format!("'{}' could not be configured", self.name),
            }]),
            _ => Err(outcome.problems),
        }
    }
}

/// The entry called `name` in `registry`; the error names the family, suggests a near name and
/// lists every entry.
pub fn find<'r, T: ?Sized>(
    registry: &'r [Entry<T>],
    family: &str,
    name: &str,
) -> Result<&'r Entry<T>, String> {
    find_by(registry, family, name, |e| e.name)
}

/// The item of `registry` whose `key` is `name` (for registries of other shapes); the error
/// names the family, suggests a near name and lists every item.
pub fn find_by<'r, E>(
    registry: &'r [E],
    family: &str,
    name: &str,
    key: impl Fn(&E) -> &str,
) -> Result<&'r E, String> {
    registry.iter().find(|e| key(e) == name).ok_or_else(|| {
        let names: Vec<&str> = registry.iter().map(&key).collect();
        let plural = match family.strip_suffix('y') {
            Some(stem) => format!("{stem}ies"),
            None => format!("{family}s"),
        };
        format!(
            "unknown {family} '{name}'{}; the {plural} are: {}",
            did_you_mean(name, names.iter().copied()),
            names.join(", ")
        )
    })
}

/// One method's documentation (what `--list`, the docs and Python's `methods()` show).
#[derive(Debug, Clone, Copy)]
pub struct MethodDoc {
    /// Name.
    pub name: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Reference.
    pub reference: &'static str,
    /// The method's own parameters (the family's common ones are [`MethodDoc::common`]).
    pub params: &'static [ParamSpec],
    /// The family's common parameters (shown once above the methods).
    pub common: &'static [ParamSpec],
    /// The figures it reports beyond its family's common ones ([`Entry::figures`]).
    pub figures: &'static [FigureSpec],
}

impl MethodDoc {
    /// The method's example as a TOML table (`method` is not in it): each of its own and the
    /// family's common parameters that declares an example value, with that value; `None` when
    /// none does.
    pub fn example(&self) -> Option<toml::Table> {
        let mut t = toml::Table::new();
        for p in self.common.iter().chain(self.params) {
            if !p.example.is_empty() {
                t.insert(p.name.to_string(), parse_value_text(p.example));
            }
        }
        (!t.is_empty()).then_some(t)
    }

    /// The example as command-line settings: `--set 'variables=["total_wealth"]' --set base=1000`
    /// (a value with a quote, bracket, brace or space in single quotes).
    pub fn example_flags(&self) -> Option<String> {
        let mut out = Vec::new();
        for p in self.common.iter().chain(self.params) {
            if p.example.is_empty() {
                continue;
            }
            let plain = p
                .example
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
            out.push(if plain {
                format!("--set {}={}", p.name, p.example)
            } else {
                format!("--set '{}={}'", p.name, p.example)
            });
        }
        (!out.is_empty()).then(|| out.join(" "))
    }
}

impl<T: ?Sized> Entry<T> {
    /// This entry's documentation, with the family's common parameters.
    pub fn doc(&self, common: &'static [ParamSpec]) -> MethodDoc {
        MethodDoc {
            name: self.name,
            summary: self.summary,
            reference: self.reference,
            params: self.params,
            common,
            figures: self.figures,
        }
    }
}

/// `--list` text: the family's common parameters, then every method with its parameters.
pub fn list_text(title: &str, docs: &[MethodDoc]) -> String {
    let mut out = String::new();
    out.push_str(title);
    out.push('\n');
    let common = docs.first().map(|d| d.common).unwrap_or(&[]);
    let line = |out: &mut String, p: &ParamSpec| {
        out.push_str(&format!(
            "  {:<16} {:<28} {:<24} {}\n",
            p.name,
            p.kind.as_str(),
            p.default_text(),
            doc_with_range(p)
        ));
    };
    if !common.is_empty() {
        out.push_str("\ncommon parameters (every method):\n");
        for p in common {
            line(&mut out, p);
        }
    }
    for d in docs {
        out.push_str(&format!(
            "\n{}  —  {}\n  reference: {}\n",
            d.name, d.summary, d.reference
        ));
        for p in d.params {
            line(&mut out, p);
        }
        if let Some(flags) = d.example_flags() {
            out.push_str(&format!("  example: {flags}\n"));
        }
        if !d.figures.is_empty() {
            let ids: Vec<&str> = d.figures.iter().map(|f| f.id).collect();
            out.push_str(&wrap_list("  reports: ", &ids, 100));
        }
    }
    out
}

/// `head` then `items` joined with ", ", wrapped before `width` characters, continuation lines
/// indented under the first item.
fn wrap_list(head: &str, items: &[&str], width: usize) -> String {
    let indent = " ".repeat(head.chars().count());
    let mut out = String::from(head);
    let mut len = out.chars().count();
    for (i, item) in items.iter().enumerate() {
        let piece = if i + 1 < items.len() {
            format!("{item},")
        } else {
            item.to_string()
        };
        let n = piece.chars().count();
        if i > 0 && len + 1 + n > width {
            out.push('\n');
            out.push_str(&indent);
            len = indent.len();
        } else if i > 0 {
            out.push(' ');
            len += 1;
        }
        out.push_str(&piece);
        len += n;
    }
    out.push('\n');
    out
}

fn doc_with_range(p: &ParamSpec) -> String {
    let mut s = p.doc.to_string();
    if p.range.is_bounded() {
        s.push_str(&format!(" ({})", p.range));
    }
    if p.kind.is_column() && p.need != ColumnNeed::Any {
        s.push_str(&format!(" [{}]", p.need.describe()));
    }
    if !p.aliases.is_empty() {
        s.push_str(&format!(" (old name: {})", p.aliases.join(", ")));
    }
    s
}

/// The registry as a markdown table, one row per parameter (the README tables, checked by tests).
pub fn markdown_table(docs: &[MethodDoc]) -> String {
    let mut s =
        String::from("| method | parameter | type | default | meaning |\n|---|---|---|---|---|\n");
    let esc = |x: &str| x.replace('|', "\\|");
    for d in docs {
        let example = d
            .example_flags()
            .map(|f| format!(". Example: `{}`", esc(&f)))
            .unwrap_or_default();
        s.push_str(&format!(
            "| **`{}`** | | | | {} ({}){example} |\n",
            d.name,
            esc(d.summary),
            esc(d.reference)
        ));
        for p in d.params {
            s.push_str(&format!(
                "| | `{}` | {} | {} | {} |\n",
                p.name,
                esc(&p.kind.as_str()),
                esc(&p.default_text()),
                esc(&doc_with_range(p))
            ));
        }
    }
    s
}

/// The common parameters of a family as a markdown table.
pub fn markdown_common(params: &[ParamSpec]) -> String {
    let mut s = String::from("| parameter | type | default | meaning |\n|---|---|---|---|\n");
    let esc = |x: &str| x.replace('|', "\\|");
    for p in params {
        s.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            p.name,
            esc(&p.kind.as_str()),
            esc(&p.default_text()),
            esc(&doc_with_range(p))
        ));
    }
    s
}

/// Replaces the text between `<!-- BEGIN name -->` and `<!-- END name -->` in `doc` by
/// `generated` (for README tables generated from a registry). `None` when the markers are absent.
pub fn splice_generated(doc: &str, name: &str, generated: &str) -> Option<String> {
    let begin = format!("<!-- BEGIN {name} -->");
    let end = format!("<!-- END {name} -->");
    let b = doc.find(&begin)? + begin.len();
    let e = doc[b..].find(&end)? + b;
    Some(format!("{}\n{}{}", &doc[..b], generated, &doc[e..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    static SPECS: &[ParamSpec] = &[
        ParamSpec::new("k", ParamKind::Integer, "class size")
            .required()
            .within(Range::at_least(2.0)),
        ParamSpec::new("p", ParamKind::Number, "share").within(Range::SHARE),
        ParamSpec::new("variables", ParamKind::Columns, "columns")
            .alias(&["columns"])
            .needs(ColumnNeed::Numeric),
        ParamSpec::new("mode", ParamKind::Choice(&["greedy", "optimal"]), "mode"),
        ParamSpec::new("keys", ParamKind::Columns, "keys").from_role(Role::Key),
        ParamSpec::new("weight", ParamKind::Column, "weight").from_role(Role::Weight),
        ParamSpec::new("spec", ParamKind::Path, "a file"),
    ];

    /// A method's example: its parameters' example values in declaration order (common ones
    /// first), as a table and as `--set` flags, quoted for the shell where a value needs it.
    #[test]
    fn a_methods_example_is_its_parameters_example_values() {
        static COMMON: &[ParamSpec] =
            &[ParamSpec::new("keys", ParamKind::Columns, "keys").example(r#"["a", "b"]"#)];
        static OWN: &[ParamSpec] = &[
            ParamSpec::new("k", ParamKind::Integer, "k")
                .required()
                .example("3"),
            ParamSpec::new("p", ParamKind::Number, "p"),
            ParamSpec::new("hid", ParamKind::Column, "hid").example("household_id"),
            ParamSpec::new("h", ParamKind::Table, "h").example("{ a = { mask = true } }"),
        ];
        let doc = MethodDoc {
            name: "m",
            summary: "s",
            reference: "r",
            params: OWN,
            common: COMMON,
            figures: &[],
        };
        assert_eq!(
            doc.example_flags().unwrap(),
            r#"--set 'keys=["a", "b"]' --set k=3 --set hid=household_id --set 'h={ a = { mask = true } }'"#
        );
        let t = doc.example().unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(t["k"], toml::Value::Integer(3));
        assert_eq!(t["hid"], toml::Value::String("household_id".into()));
        assert_eq!(t["h"]["a"]["mask"], toml::Value::Boolean(true));
        assert!(
            list_text("T", &[doc]).contains(
                "\n  example: --set 'keys=[\"a\", \"b\"]' --set k=3 --set hid=household_id"
            )
        );
        let none = MethodDoc {
            common: &[],
            params: &OWN[1..2],
            ..doc
        };
        assert_eq!((none.example(), none.example_flags()), (None, None));
        assert!(!list_text("T", &[none]).contains("example:"));
    }

    fn read(text: &str, ctx: ReadContext<'_>) -> (Vec<String>, Vec<String>) {
        let t: toml::Table = text.parse().unwrap();
        let mut r = ParamReader::new(&t, "attack[2]", &[SPECS], ctx);
        let _ = r.require::<i64>("k");
        let _ = r.get::<f64>("p");
        let _ = r.get::<Vec<String>>("variables");
        let _ = r.get::<String>("mode");
        let o = r.finish();
        (
            o.problems.iter().map(ToString::to_string).collect(),
            o.warnings.iter().map(ToString::to_string).collect(),
        )
    }

    #[test]
    fn every_problem_with_its_path() {
        let (p, w) = read(
            "k = 1\np = 1.5\nmode = \"gredy\"\nvariabels = [\"x\"]",
            ReadContext::default(),
        );
        assert_eq!(
            p,
            vec![
                "attack[2].k: expected a value ≥ 2, found 1",
                "attack[2].p: expected a value in [0, 1], found 1.5",
                "attack[2].mode: unknown value 'gredy' (did you mean 'greedy'?); expected one of: greedy, optimal",
                "attack[2].variabels: unknown key (did you mean 'variables'?); the keys are: k, p, variables, mode, keys, weight, spec",
            ]
        );
        assert!(w.is_empty());
    }

    #[test]
    fn required_missing_names_the_doc() {
        let (p, _) = read("", ReadContext::default());
        assert_eq!(p, vec!["attack[2].k: is required but missing (class size)"]);
    }

    #[test]
    fn alias_warns_and_both_is_a_problem() {
        let (p, w) = read("k = 3\ncolumns = [\"x\"]", ReadContext::default());
        assert!(p.is_empty(), "{p:?}");
        assert_eq!(
            w,
            vec![
                "attack[2].columns: 'columns' is deprecated: use 'variables' (the old name is accepted until the next release)"
            ]
        );
        let (p, _) = read(
            "k = 3\ncolumns = [\"x\"]\nvariables = [\"y\"]",
            ReadContext::default(),
        );
        assert_eq!(
            p,
            vec![
                "attack[2].variables: given twice: as 'variables' and as its old name 'columns'; keep 'variables'"
            ]
        );
    }

    #[test]
    fn columns_are_checked_against_the_data() {
        let cols = ColumnSet {
            file: "d.csv".into(),
            columns: vec![
                ("income".into(), Kind::Float, Role::Sensitive),
                ("sex".into(), Kind::Categorical, Role::Key),
            ],
            first_not_number: vec![("sex".into(), 1, "M".into())],
            levels: Vec::new(),
        };
        let ctx = ReadContext {
            base_dir: None,
            columns: Some(&cols),
        };
        let (p, _) = read("k = 2\nvariables = [\"incme\", \"sex\"]", ctx);
        assert_eq!(
            p,
            vec![
                "attack[2].variables: d.csv: no column named 'incme' (did you mean 'income'?); the columns are: income, sex",
                "attack[2].variables: d.csv: column 'sex' is categorical; expected a numeric (integer or float) column (row 1 holds 'M', which is not a finite number)",
            ]
        );
    }

    #[test]
    fn roles_fill_absent_parameters_only() {
        let cols = ColumnSet {
            file: "d.csv".into(),
            columns: vec![
                ("a".into(), Kind::Integer, Role::Key),
                ("w".into(), Kind::Float, Role::Weight),
                ("b".into(), Kind::Integer, Role::Key),
            ],
            first_not_number: Vec::new(),
            levels: Vec::new(),
        };
        let mut t: toml::Table = "keys = [\"a\"]".parse().unwrap();
        let filled = fill_from_roles(&mut t, &[SPECS], &cols);
        assert_eq!(filled, vec!["weight"]);
        assert_eq!(t["keys"].as_array().unwrap().len(), 1);
        assert_eq!(t["weight"].as_str(), Some("w"));
        let mut t = toml::Table::new();
        fill_from_roles(&mut t, &[SPECS], &cols);
        assert_eq!(t["keys"], toml::Value::Array(vec!["a".into(), "b".into()]));
    }

    #[test]
    fn paths_resolve_against_the_base() {
        let t: toml::Table = "spec = \"link.toml\"".parse().unwrap();
        let base = Path::new("/exp");
        let mut r = ParamReader::new(
            &t,
            "",
            &[SPECS],
            ReadContext {
                base_dir: Some(base),
                columns: None,
            },
        );
        assert_eq!(r.path_value("spec"), Some(PathBuf::from("/exp/link.toml")));
    }

    #[test]
    fn assignments_parse_as_toml_lists_or_text() {
        let t = parse_assignments(&[
            "k=3".into(),
            "keys=a,b".into(),
            "p=0.5".into(),
            "name=hello world".into(),
            "breaks=1,2.5".into(),
        ])
        .unwrap();
        assert_eq!(t["k"].as_integer(), Some(3));
        assert_eq!(t["keys"], toml::Value::Array(vec!["a".into(), "b".into()]));
        assert_eq!(t["p"].as_float(), Some(0.5));
        assert_eq!(t["name"].as_str(), Some("hello world"));
        assert_eq!(
            t["breaks"],
            toml::Value::Array(vec![toml::Value::Integer(1), toml::Value::Float(2.5)])
        );
        assert!(parse_assignments(&["k".into()]).is_err());
        assert!(parse_assignments(&["k=1".into(), "k=2".into()]).is_err());
    }

    #[test]
    fn near_names() {
        assert_eq!(nearest("mising", ["missing", "metric"]), Some("missing"));
        assert_eq!(nearest("zzz", ["missing", "metric"]), None);
        assert_eq!(nearest("Gendr", ["gender", "age"]), Some("gender"));
        assert_eq!(nearest("k", ["p", "keys"]), None);
        assert_eq!(nearest("K", ["p", "k"]), Some("k"));
    }

    #[test]
    fn unknown_entry_lists_the_family() {
        struct Dummy;
        static REG: &[Entry<Dummy>] = &[Entry {
            name: "exact",
            summary: "",
            reference: "",
            params: &[],
            figures: &[],
            build: |_| Some(Box::new(Dummy)),
        }];
        assert_eq!(
            find(REG, "attack", "exakt").unwrap_err(),
            "unknown attack 'exakt' (did you mean 'exact'?); the attacks are: exact"
        );
    }

    #[test]
    fn figure_lists_join_single_figures_then_slices_in_order() {
        const A: FigureSpec = FigureSpec::new("a", "A", Unit::Count, "–");
        const B: FigureSpec = FigureSpec::new("b", "B", Unit::Score, "–").non_negative();
        const C: &[FigureSpec] = &[FigureSpec::new("c", "C", Unit::Score, "–")];
        const D: &[FigureSpec] = &[FigureSpec::new("d", "D", Unit::Proportion, "–"), A];
        let all: &[FigureSpec] = crate::figure_list![A, B; C, D];
        let ids: Vec<(&str, bool)> = all.iter().map(|f| (f.id, f.non_negative)).collect();
        assert_eq!(
            ids,
            [
                ("a", true),
                ("b", true),
                ("c", false),
                ("d", true),
                ("a", true)
            ]
        );
        let only: &[FigureSpec] = crate::figure_list![B];
        assert_eq!(only, [B]);
        struct Dummy;
        static REG: &[Entry<Dummy>] = &[Entry {
            name: "m",
            summary: "",
            reference: "",
            params: &[],
            figures: crate::figure_list![A; C],
            build: |_| Some(Box::new(Dummy)),
        }];
        assert_eq!(declared_figure(REG, "c").map(|f| f.name), Some("C"));
        assert_eq!(declared_figure(REG, "b"), None);
    }

    #[test]
    fn figure_mismatches_name_each_undeclared_misunited_and_unreported_figure() {
        let declared = [
            FigureSpec::new("a", "A", Unit::Count, "–"),
            FigureSpec::new("b", "B", Unit::Score, "–"),
            FigureSpec::new("c", "C", Unit::Count, "–"),
        ];
        let reported = [
            ("a".to_string(), Unit::Count),
            ("b".to_string(), Unit::Proportion),
            ("d".to_string(), Unit::Score),
        ];
        assert_eq!(
            figure_mismatches("m", &declared, &reported),
            [
                "m: b is reported as Proportion, declared as Score",
                "m: d (Score) is not declared",
                "m: c is declared, never reported",
            ]
        );
        assert!(figure_mismatches("m", &declared[..1], &reported[..1]).is_empty());
    }

    #[test]
    fn the_list_of_figures_wraps_under_its_first_item() {
        assert_eq!(
            wrap_list("  reports: ", &["alpha", "beta", "gamma"], 24),
            "  reports: alpha, beta,\n           gamma\n"
        );
        assert_eq!(wrap_list("r: ", &["x"], 10), "r: x\n");
    }

    #[test]
    fn splice_replaces_between_markers() {
        let doc = "a\n<!-- BEGIN t -->\nold\n<!-- END t -->\nb";
        assert_eq!(
            splice_generated(doc, "t", "new\n").unwrap(),
            "a\n<!-- BEGIN t -->\nnew\n<!-- END t -->\nb"
        );
    }
}
