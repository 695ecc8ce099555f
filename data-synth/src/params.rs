//! Generator parameters on the workspace's shared parameter layer
//! ([`intruder_data::params`]): every generator declares its parameters once as a static slice
//! of [`ParamSpec`] (kinds integer or number with a [`Range`], choice or bool; default and doc),
//! and its registry entry's builder reads the validated values ([`Params::read`]) through a
//! [`ParamReader`](intruder_data::params::ParamReader) from a TOML table — the experiment's
//! `[data] params = {…}` as it is ([`crate::configure`]), the command line's `--set key=value`
//! through [`parse_assignments`](intruder_data::params::parse_assignments) ([`crate::parse`]).
//! Every problem (unknown key with a did-you-mean, wrong type, out of range, a key given twice)
//! is reported at once with its path, before any work starts.
//!
//! ```
//! let t: toml::Table = "keys = 31\nfracton = 0.1".parse().unwrap();
//! let err = intruder_synth::configure("census", None, &t, "data.params").unwrap_err().to_string();
//! assert!(err.contains("data.params.keys: expected a value in [1, 30], found 31"));
//! assert!(err.contains("data.params.fracton: unknown key (did you mean 'fraction'?)"));
//! let g = intruder_synth::configure("census", Some(5000), &toml::Table::new(), "").unwrap();
//! assert_eq!((g.params().int("n"), g.params().int("keys")), (5000, 20));
//! ```

use std::collections::BTreeMap;
use std::fmt;

use intruder_data::params::{Entry, ParamReader, Problem, ReadContext, parse_assignments};
pub use intruder_data::params::{ParamKind, ParamSpec, Range};

use crate::{Generator, SynthError};

/// A validated parameter value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// From [`ParamKind::Integer`].
    Integer(u64),
    /// From [`ParamKind::Number`].
    Float(f64),
    /// From [`ParamKind::Choice`].
    Choice(&'static str),
    /// From [`ParamKind::Bool`].
    Bool(bool),
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Integer(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Choice(v) => write!(f, "{v}"),
            Value::Bool(v) => write!(f, "{v}"),
        }
    }
}

/// Validated parameter values for one generator: every parameter of its specification, set
/// either explicitly or to its default.
#[derive(Debug, Clone)]
pub struct Params {
    generator: &'static str,
    values: BTreeMap<&'static str, Value>,
    explicit: Vec<&'static str>,
}

/// The key the size (`--n`, `[data] n`) sets.
const SIZE: &str = "n";

fn problem(path: String, message: impl Into<String>) -> Problem {
    Problem {
        path,
        message: message.into(),
    }
}

/// Reads one declared parameter (kinds integer, number, choice, bool).
fn read_one(r: &mut ParamReader<'_>, spec: &'static ParamSpec) -> Option<Value> {
    let name = spec.name;
    match spec.kind {
        ParamKind::Integer => r.require::<u64>(name).map(Value::Integer),
        ParamKind::Number => r.require::<f64>(name).map(Value::Float),
        ParamKind::Bool => r.require::<bool>(name).map(Value::Bool),
        ParamKind::Choice(words) => {
            let s: String = r.require(name)?;
            words.iter().find(|w| **w == s).map(|w| Value::Choice(w))
        }
        other => {
            r.problem(
                name,
                format!(
                    "generator parameters are integers, numbers, choices or bools, not {}",
                    other.as_str()
                ),
            );
            None
        }
    }
}

/// `table` with the size `n` (`--n`, `[data] n`) set as the parameter `n`, and the problems of
/// doing so (no such parameter; given twice).
fn with_size(
    entry: &Entry<dyn Generator>,
    n: Option<u64>,
    table: &toml::Table,
    prefix: &str,
) -> (toml::Table, Vec<Problem>) {
    let path = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    let mut merged = table.clone();
    let mut problems = Vec::new();
    if let Some(n) = n {
        match entry.params.iter().find(|s| s.name == SIZE) {
            None => problems.push(problem(
                path(SIZE),
                format!("generator '{}' has no size parameter n", entry.name),
            )),
            Some(_) if table.contains_key(SIZE) => problems.push(problem(
                path(SIZE),
                "given twice: as the size (--n, [data] n) and as a parameter; give it once",
            )),
            Some(_) => match i64::try_from(n) {
                Ok(v) => {
                    merged.insert(SIZE.into(), toml::Value::Integer(v));
                }
                Err(_) => problems.push(problem(path(SIZE), format!("{n} is too large"))),
            },
        }
    }
    (merged, problems)
}

/// The generator of `entry` configured from `table` and the size `n` ([`crate::configure`]).
pub(crate) fn configure(
    entry: &Entry<dyn Generator>,
    n: Option<u64>,
    table: &toml::Table,
    prefix: &str,
) -> Result<Box<dyn Generator>, SynthError> {
    let (merged, mut problems) = with_size(entry, n, table, prefix);
    let built = entry.configure(&merged, prefix, ReadContext::default(), &[]);
    match built {
        Ok(b) if problems.is_empty() => return Ok(b.method),
        Ok(_) => {}
        Err(more) => problems.extend(more),
    }
    Err(SynthError::Params {
        generator: entry.name.to_string(),
        problems,
    })
}

/// The generator of `entry` configured from `key=value` strings and the size `n`
/// ([`crate::parse`]).
pub(crate) fn parse<S: AsRef<str>>(
    entry: &Entry<dyn Generator>,
    n: Option<u64>,
    sets: &[S],
) -> Result<Box<dyn Generator>, SynthError> {
    let mut table = toml::Table::new();
    let mut problems = Vec::new();
    for item in sets {
        let item = item.as_ref().to_string();
        match parse_assignments(std::slice::from_ref(&item)) {
            Ok(t) => {
                for (k, v) in t {
                    if table.contains_key(&k) {
                        problems.push(problem(k, "given more than once"));
                    } else {
                        table.insert(k, v);
                    }
                }
            }
            Err(e) => problems.push(problem(String::new(), e)),
        }
    }
    match configure(entry, n, &table, "") {
        Ok(g) if problems.is_empty() => Ok(g),
        Ok(_) => Err(SynthError::Params {
            generator: entry.name.to_string(),
            problems,
        }),
        Err(SynthError::Params { problems: more, .. }) => {
            problems.extend(more);
            Err(SynthError::Params {
                generator: entry.name.to_string(),
                problems,
            })
        }
        Err(e) => Err(e),
    }
}

impl Params {
    /// Reads every parameter of `specs` (generator `generator`'s) through `r`: a key given is
    /// read and checked (kind, range, choice), an absent one takes its declared default, read
    /// the same way. `None` when any given value is wrong (the problems are in `r`). What each
    /// generator's registry entry builds with.
    pub fn read(
        r: &mut ParamReader<'_>,
        generator: &'static str,
        specs: &'static [ParamSpec],
    ) -> Option<Params> {
        let mut defaults = toml::Table::new();
        for s in specs {
            defaults.insert(
                s.name.to_string(),
                intruder_data::params::parse_value_text(s.default),
            );
        }
        let mut from_defaults =
            ParamReader::new(&defaults, "default", &[specs], ReadContext::default());
        let mut values = BTreeMap::new();
        let mut explicit = Vec::new();
        for s in specs {
            let v = if r.has(s.name) {
                explicit.push(s.name);
                read_one(r, s)
            } else {
                read_one(&mut from_defaults, s)
            };
            if let Some(v) = v {
                values.insert(s.name, v);
            }
        }
        let defaults_ok = from_defaults.finish().problems;
        debug_assert!(defaults_ok.is_empty(), "{generator}: {defaults_ok:?}");
        (r.ok() && values.len() == specs.len()).then_some(Params {
            generator,
            values,
            explicit,
        })
    }

    /// Name of the generator these parameters were validated for.
    pub fn generator(&self) -> &'static str {
        self.generator
    }

    /// Whether the user set `name` explicitly (rather than taking the default).
    pub fn is_explicit(&self, name: &str) -> bool {
        self.explicit.contains(&name)
    }

    /// All resolved values, in name order, as `name=value` text.
    pub fn describe(&self) -> String {
        self.values
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn get(&self, name: &str) -> &Value {
        // Generators only ask for names in their own specification, which `from_table` filled.
        self.values
            .get(name)
            .unwrap_or_else(|| panic!("parameter `{name}` not in the specification"))
    }

    /// Integer parameter `name` (panics if the generator's own spec lacks it: a bug).
    pub fn int(&self, name: &str) -> u64 {
        match self.get(name) {
            Value::Integer(v) => *v,
            other => panic!("parameter `{name}` is not an integer: {other:?}"),
        }
    }

    /// Integer parameter `name` as `usize`.
    pub fn usize(&self, name: &str) -> usize {
        usize::try_from(self.int(name)).unwrap_or(usize::MAX)
    }

    /// Real parameter `name`.
    pub fn float(&self, name: &str) -> f64 {
        match self.get(name) {
            Value::Float(v) => *v,
            other => panic!("parameter `{name}` is not a number: {other:?}"),
        }
    }

    /// Choice parameter `name`.
    pub fn choice(&self, name: &str) -> &'static str {
        match self.get(name) {
            Value::Choice(v) => v,
            other => panic!("parameter `{name}` is not a choice: {other:?}"),
        }
    }

    /// Boolean parameter `name`.
    pub fn bool(&self, name: &str) -> bool {
        match self.get(name) {
            Value::Bool(v) => *v,
            other => panic!("parameter `{name}` is not a boolean: {other:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SPECS: &[ParamSpec] = &[
        ParamSpec::new("n", ParamKind::Integer, "size")
            .default_value("10")
            .within(Range::closed(1.0, 100.0)),
        ParamSpec::new("p", ParamKind::Number, "share")
            .default_value("0.25")
            .within(Range::SHARE),
        ParamSpec::new("mode", ParamKind::Choice(&["a", "b"]), "mode").default_value("a"),
        ParamSpec::new("flag", ParamKind::Bool, "flag").default_value("true"),
    ];

    /// A generator that writes nothing: its parameters are all there is to it.
    #[derive(Debug)]
    struct Bare(Params);

    impl Generator for Bare {
        fn name(&self) -> &'static str {
            self.0.generator()
        }
        fn description(&self) -> &'static str {
            ""
        }
        fn published(&self) -> &'static [(&'static str, &'static str)] {
            &[]
        }
        fn params(&self) -> &Params {
            &self.0
        }
        fn schemas(&self, _seed: u64) -> Result<Vec<(String, crate::Schema)>, SynthError> {
            Ok(Vec::new())
        }
        fn generate(
            &self,
            _seed: u64,
            _out: &std::path::Path,
        ) -> Result<Vec<std::path::PathBuf>, SynthError> {
            Ok(Vec::new())
        }
    }

    fn entry(name: &'static str, specs: &'static [ParamSpec]) -> Entry<dyn Generator> {
        Entry {
            name,
            summary: "",
            reference: "",
            params: specs,
            figures: &[],
            build: if name == "g" { build_g } else { build_h },
        }
    }

    fn build_g(r: &mut ParamReader) -> Option<Box<dyn Generator>> {
        Some(Box::new(Bare(Params::read(r, "g", SPECS)?)))
    }

    static NO_N: &[ParamSpec] = &[ParamSpec::new("k", ParamKind::Integer, "k").default_value("1")];

    fn build_h(r: &mut ParamReader) -> Option<Box<dyn Generator>> {
        Some(Box::new(Bare(Params::read(r, "h", NO_N)?)))
    }

    fn messages(e: SynthError) -> Vec<String> {
        match e {
            SynthError::Params { problems, .. } => {
                problems.iter().map(ToString::to_string).collect()
            }
            other => panic!("{other}"),
        }
    }

    #[test]
    fn defaults_values_and_explicit() {
        let g = parse(&entry("g", SPECS), None, &["p=1", "mode=b"]).unwrap();
        let p = g.params();
        assert_eq!(p.describe(), "flag=true mode=b n=10 p=1");
        assert!(p.is_explicit("p") && p.is_explicit("mode") && !p.is_explicit("n"));
        assert_eq!(p.float("p"), 1.0);
        let g = parse::<&str>(&entry("g", SPECS), Some(7), &[]).unwrap();
        assert_eq!(g.params().int("n"), 7);
        assert!(g.params().is_explicit("n"));
    }

    #[test]
    fn every_problem_at_once_with_its_path() {
        let t: toml::Table = "n = 0\np = \"x\"\nmode = \"c\"\nflag = 1\nflg = 2"
            .parse()
            .unwrap();
        let m = messages(configure(&entry("g", SPECS), None, &t, "data.params").unwrap_err());
        assert_eq!(
            m,
            vec![
                "data.params.n: expected a value in [1, 100], found 0",
                "data.params.p: expected a finite number, found the string \"x\"",
                "data.params.mode: unknown value 'c'; expected one of: a, b",
                "data.params.flag: expected true or false, found the integer 1",
                "data.params.flg: unknown key (did you mean 'flag'?); the keys are: n, p, mode, flag",
            ]
        );
    }

    #[test]
    fn size_given_twice_or_without_a_size_parameter() {
        let t: toml::Table = "n = 5".parse().unwrap();
        let m = messages(configure(&entry("g", SPECS), Some(6), &t, "").unwrap_err());
        assert_eq!(m.len(), 1);
        assert!(m[0].starts_with("n: given twice"), "{m:?}");
        let m = messages(parse::<&str>(&entry("h", NO_N), Some(3), &[]).unwrap_err());
        assert_eq!(m, vec!["n: generator 'h' has no size parameter n"]);
    }

    #[test]
    fn malformed_and_repeated_assignments_are_reported_with_the_rest() {
        let m =
            messages(parse(&entry("g", SPECS), None, &["oops", "n=2", "n=3", "p=2"]).unwrap_err());
        assert_eq!(
            m,
            vec![
                "--set 'oops': expected KEY=VALUE",
                "n: given more than once",
                "p: expected a value in [0, 1], found 2",
            ]
        );
    }
}
