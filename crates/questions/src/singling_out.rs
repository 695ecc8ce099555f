//! Singling out (anonymeter's `SinglingOutEvaluator`; Giomi et al. 2023, §4.1; Cohen & Nissim
//! 2020, "Towards formalizing the GDPR's notion of singling out").
//!
//! The intruder writes predicates — conjunctions of conditions on columns — from the release,
//! keeping those that match exactly one release record, and claims each singles out a person. A
//! predicate succeeds when it matches exactly one original record. Each table loses its exact
//! duplicate records first (as anonymeter's `drop_duplicates`). A condition on a missing value is
//! false unless it asks whether the value is missing.
//!
//! - **Univariate** predicates are one condition each: `column is missing` when one release
//!   record has it missing, `column ≤ min` and `column ≥ max` of a numeric column, and
//!   `column = value` for a value only one release record has; shuffled, the first `n_attacks`
//!   that match one release record are kept.
//! - **Multivariate** predicates take a release record drawn at random and `n_cols` of its
//!   columns drawn at random: `column = value` for categories, `column ≥ value` for a number
//!   above the release's median and `column ≤ value` otherwise (towards the tail, where singling
//!   out is likelier), `column is missing` for a missing value. Drawn in batches of 1,000 until
//!   `n_attacks` distinct predicates match one release record, or `max_attempts` draws.
//! - **Control attack**: the same predicates against the control set. When the control set and
//!   the original differ in size, the control count is scaled by `F(n_original) / F(n_control)`
//!   where `F(n) = norm · ∫₀^w n x (1 − x)^(n−1) dx` (the chance that a predicate of weight `x`
//!   singles out in `n` records, Cohen & Nissim 2020), fitted to the control successes of
//!   random subsets of 10 sizes, 5 times each ([`size_correction`]).
//! - **Baseline**: `n_attacks` random predicates over `n_cols` columns (1 in univariate mode),
//!   each condition a value of the release drawn at random with a random operator (`=`, `≠` for
//!   categories; `=`, `≠`, `<`, `>`, `≤`, `≥` for numbers; `is missing` or `is not missing` for
//!   a missing value).
//!
//! Every rate is a share of `n_attacks`, even when fewer predicates could be drawn (then a
//! warning says the risk is probably underestimated).
//!
//! # Speed
//! Each table's columns are also kept sorted (numbers by value, categories by code), so a
//! predicate's matches are the records satisfying its most selective condition — found by
//! binary search, without a scan — checked against its other conditions, and a count stops at
//! 2. Univariate candidates are never evaluated on the release: how they are found gives
//! their count there.

use std::borrow::Cow;

use intruder_table::Table;
use intruder_table::params::{ParamKind, ParamReader, ParamSpec, Range};
use rand::Rng;
use rand::seq::SliceRandom;
use rand::seq::index::sample;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::coded::{
    Coded, MISSING, Named, code_column, distinct_rows, question_tables, require_attacks,
    require_columns,
};
use crate::error::{ParamError, QuestionError};
use crate::rates::{DEFAULT_CONFIDENCE, QuestionResult};
use crate::stream;

/// How singling-out predicates are drawn from the release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// One condition per predicate, on a rare value or an extreme.
    Univariate,
    /// `n_cols` conditions per predicate, from a release record drawn at random.
    #[default]
    Multivariate,
}

impl Mode {
    /// The name used in parameters.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Univariate => "univariate",
            Mode::Multivariate => "multivariate",
        }
    }
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "univariate" => Ok(Mode::Univariate),
            "multivariate" => Ok(Mode::Multivariate),
            _ => Err(format!(
                "unknown mode '{s}'; expected univariate or multivariate"
            )),
        }
    }
}

/// The checked parameters of [`singling_out`].
#[derive(Debug, Clone, PartialEq)]
pub struct SinglingOutParams {
    /// The number of predicates the intruder draws (and of random predicates in the baseline).
    pub n_attacks: usize,
    /// How predicates are drawn.
    pub mode: Mode,
    /// Conditions per multivariate predicate.
    pub n_cols: usize,
    /// At most this many multivariate draws (`None`: no limit).
    pub max_attempts: Option<usize>,
}

impl Default for SinglingOutParams {
    /// anonymeter's defaults: 500 multivariate attacks of 3 columns, at most 10,000,000 draws.
    fn default() -> Self {
        SinglingOutParams {
            n_attacks: 500,
            mode: Mode::Multivariate,
            n_cols: 3,
            max_attempts: Some(10_000_000),
        }
    }
}

impl SinglingOutParams {
    /// Checks the parameters alone (the tables are checked by [`singling_out`]).
    pub fn check(&self) -> Result<(), ParamError> {
        if self.n_attacks == 0 {
            return Err(ParamError::NoAttacks);
        }
        if self.n_cols == 0 {
            return Err(ParamError::NoPredicateColumns);
        }
        if self.max_attempts == Some(0) {
            return Err(ParamError::NoAttempts);
        }
        Ok(())
    }

    /// Reads the parameters declared in [`PARAMS`], recording every problem in `r`.
    pub fn read(r: &mut ParamReader<'_>) -> Option<SinglingOutParams> {
        let d = SinglingOutParams::default();
        let params = SinglingOutParams {
            n_attacks: r.get::<usize>("n_attacks").unwrap_or(d.n_attacks),
            mode: r.choice::<Mode>("mode").unwrap_or(d.mode),
            n_cols: r.get::<usize>("n_cols").unwrap_or(d.n_cols),
            max_attempts: r.get::<usize>("max_attempts").or(d.max_attempts),
        };
        crate::checked(r, params, |p| p.check())
    }

    /// Reads the parameters from a TOML table (`--set` values, an experiment's table); every
    /// problem is reported at once under `source_name`.
    pub fn from_table(
        table: &toml::Table,
        source_name: &str,
    ) -> Result<SinglingOutParams, intruder_table::params::ParamError> {
        crate::read_table(table, source_name, PARAMS, SinglingOutParams::read)
    }
}

/// The parameters of `singling-out` (anonymeter's names and defaults).
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "n_attacks",
        ParamKind::Integer,
        "predicates drawn from the release (and random predicates in the baseline)",
    )
    .default_value("500")
    .within(Range::at_least(1.0)),
    ParamSpec::new(
        "mode",
        ParamKind::Choice(&["univariate", "multivariate"]),
        "univariate: one condition on a rare value or an extreme; multivariate: n_cols conditions from a release record",
    )
    .default_value("multivariate"),
    ParamSpec::new(
        "n_cols",
        ParamKind::Integer,
        "conditions per multivariate predicate",
    )
    .default_value("3")
    .within(Range::at_least(1.0)),
    ParamSpec::new(
        "max_attempts",
        ParamKind::Integer,
        "at most this many multivariate draws, successful or not",
    )
    .default_value("10000000")
    .within(Range::at_least(1.0)),
];

/// A comparison of a number with a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Op {
    Eq,
    Ne,
    Gt,
    Lt,
    Ge,
    Le,
}

impl Op {
    /// Every comparison, in anonymeter's order.
    const ALL: [Op; 6] = [Op::Eq, Op::Ne, Op::Gt, Op::Lt, Op::Ge, Op::Le];

    /// Whether `x op v`.
    #[inline]
    fn holds(self, x: f64, v: f64) -> bool {
        match self {
            Op::Eq => x == v,
            Op::Ne => x != v,
            Op::Gt => x > v,
            Op::Lt => x < v,
            Op::Ge => x >= v,
            Op::Le => x <= v,
        }
    }
}

/// One condition of a predicate on column `.0` (an index into the release's columns).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Condition {
    /// The value is missing.
    Missing(usize),
    /// The value is not missing.
    Observed(usize),
    /// The number compares so with the value (false when missing).
    Number(usize, Op, f64),
    /// The category equals (`true`) or differs from (`false`) the code (false when missing).
    Category(usize, bool, u32),
}

impl Condition {
    /// The column the condition is on.
    fn column(&self) -> usize {
        match *self {
            Condition::Missing(c)
            | Condition::Observed(c)
            | Condition::Number(c, ..)
            | Condition::Category(c, ..) => c,
        }
    }

    /// An exact key for telling predicates apart.
    fn key(&self) -> (u8, usize, u64) {
        match *self {
            Condition::Missing(c) => (0, c, 0),
            Condition::Observed(c) => (1, c, 0),
            Condition::Number(c, op, v) => {
                (2 + op as u8, c, if v == 0.0 { 0 } else { v.to_bits() })
            }
            Condition::Category(c, eq, code) => (8 + u8::from(eq), c, u64::from(code)),
        }
    }
}

/// A conjunction of conditions, on distinct columns in increasing order.
type Predicate = Vec<Condition>;

/// The release's columns in one table.
#[derive(Debug, Clone, Copy)]
enum View<'a> {
    Numbers(&'a [f64]),
    Codes(&'a [u32]),
}

/// The release's columns in one of the tables, its number of records, and each column's
/// records sorted by value for finding those that satisfy a condition without a scan.
struct Records<'a> {
    columns: Vec<View<'a>>,
    sorted: Vec<Sorted>,
    rows: usize,
}

/// A column's records arranged by value.
#[derive(Debug)]
enum Sorted {
    /// The rows with a number, sorted by the number (then the row); the rows without; the
    /// distinct numbers in order, and where the rows of each start in `by_value` (one more
    /// entry: the end), so that a comparison is a binary search over the distinct numbers only.
    Numbers {
        by_value: Vec<u32>,
        missing: Vec<u32>,
        values: Vec<f64>,
        starts: Vec<u32>,
    },
    /// The rows of each category; the rows without.
    Codes {
        by_code: foldhash::HashMap<u32, Vec<u32>>,
        missing: Vec<u32>,
    },
}

/// The records that may satisfy a condition: every row of two lists, or a scan of the column
/// (for `≠` a category) — with how many there are.
enum Candidates<'s> {
    Rows(&'s [u32], &'s [u32]),
    Scan(usize),
}

impl Candidates<'_> {
    fn len(&self) -> usize {
        match self {
            Candidates::Rows(a, b) => a.len() + b.len(),
            Candidates::Scan(n) => *n,
        }
    }
}

impl<'a> Records<'a> {
    /// The columns `coded` in table `t`.
    fn of(coded: &'a [Coded], t: usize) -> Records<'a> {
        let columns: Vec<View<'a>> = coded
            .iter()
            .map(|c| match c {
                Coded::Numbers(v) => View::Numbers(&v[t]),
                Coded::Codes(v) => View::Codes(&v[t]),
            })
            .collect();
        Records::from_columns(columns)
    }

    /// The records of these columns (of one table).
    fn from_columns(columns: Vec<View<'a>>) -> Records<'a> {
        let rows = match columns.first() {
            Some(View::Numbers(v)) => v.len(),
            Some(View::Codes(v)) => v.len(),
            None => 0,
        };
        let sorted = columns.par_iter().map(|c| Records::arrange(*c)).collect();
        Records {
            columns,
            sorted,
            rows,
        }
    }

    /// A column's records arranged by value.
    fn arrange(column: View<'_>) -> Sorted {
        match column {
            View::Numbers(v) => {
                let missing: Vec<u32> = (0..v.len() as u32)
                    .filter(|&r| v[r as usize].is_nan())
                    .collect();
                // By (number, row), the number as an integer of the same total order.
                let mut pairs: Vec<(i64, u32)> = (0..v.len() as u32)
                    .filter(|&r| !v[r as usize].is_nan())
                    .map(|r| (total_order_key(v[r as usize]), r))
                    .collect();
                pairs.sort_unstable();
                let by_value: Vec<u32> = pairs.iter().map(|&(_, r)| r).collect();
                let mut values = Vec::new();
                let mut starts = Vec::new();
                for (i, &(key, r)) in pairs.iter().enumerate() {
                    if i == 0 || key != pairs[i - 1].0 {
                        values.push(v[r as usize]);
                        starts.push(i as u32);
                    }
                }
                starts.push(pairs.len() as u32);
                Sorted::Numbers {
                    by_value,
                    missing,
                    values,
                    starts,
                }
            }
            View::Codes(v) => {
                let mut by_code: foldhash::HashMap<u32, Vec<u32>> = Default::default();
                let mut missing = Vec::new();
                for (r, &c) in v.iter().enumerate() {
                    if c == MISSING {
                        missing.push(r as u32);
                    } else {
                        by_code.entry(c).or_default().push(r as u32);
                    }
                }
                Sorted::Codes { by_code, missing }
            }
        }
    }

    /// The records that may satisfy `c` (every one does, except under a scan).
    fn candidates(&self, c: &Condition) -> Candidates<'_> {
        const NONE: &[u32] = &[];
        match (*c, &self.sorted[c.column()], self.columns[c.column()]) {
            (
                Condition::Missing(_),
                Sorted::Numbers { missing, .. } | Sorted::Codes { missing, .. },
                _,
            ) => Candidates::Rows(missing, NONE),
            (Condition::Observed(_), Sorted::Numbers { by_value, .. }, _) => {
                Candidates::Rows(by_value, NONE)
            }
            (Condition::Observed(_), Sorted::Codes { missing, .. }, _) => {
                Candidates::Scan(self.rows - missing.len())
            }
            (
                Condition::Number(_, op, x),
                Sorted::Numbers {
                    by_value,
                    values,
                    starts,
                    ..
                },
                View::Numbers(_),
            ) => {
                let below = starts[values.partition_point(|&y| y < x)] as usize;
                let upto = starts[values.partition_point(|&y| y <= x)] as usize;
                match op {
                    Op::Eq => Candidates::Rows(&by_value[below..upto], NONE),
                    Op::Ne => Candidates::Rows(&by_value[..below], &by_value[upto..]),
                    Op::Lt => Candidates::Rows(&by_value[..below], NONE),
                    Op::Le => Candidates::Rows(&by_value[..upto], NONE),
                    Op::Gt => Candidates::Rows(&by_value[upto..], NONE),
                    Op::Ge => Candidates::Rows(&by_value[below..], NONE),
                }
            }
            (Condition::Category(_, true, code), Sorted::Codes { by_code, .. }, _) => {
                Candidates::Rows(by_code.get(&code).map_or(NONE, Vec::as_slice), NONE)
            }
            (Condition::Category(_, false, code), Sorted::Codes { by_code, missing }, _) => {
                let equal = by_code.get(&code).map_or(0, Vec::len);
                Candidates::Scan(self.rows - missing.len() - equal)
            }
            // A number compared with a category or the reverse: nothing satisfies it.
            _ => Candidates::Rows(NONE, NONE),
        }
    }

    /// Whether record `r` satisfies `c`.
    #[inline]
    fn satisfies(&self, c: &Condition, r: usize) -> bool {
        match *c {
            Condition::Missing(k) => match self.columns[k] {
                View::Numbers(v) => v[r].is_nan(),
                View::Codes(v) => v[r] == MISSING,
            },
            Condition::Observed(k) => match self.columns[k] {
                View::Numbers(v) => !v[r].is_nan(),
                View::Codes(v) => v[r] != MISSING,
            },
            Condition::Number(k, op, value) => match self.columns[k] {
                View::Numbers(v) => !v[r].is_nan() && op.holds(v[r], value),
                View::Codes(_) => false,
            },
            Condition::Category(k, eq, code) => match self.columns[k] {
                View::Codes(v) => v[r] != MISSING && (v[r] == code) == eq,
                View::Numbers(_) => false,
            },
        }
    }

    /// Whether record `r` satisfies every condition of `p`.
    #[inline]
    fn matches(&self, p: &Predicate, r: usize) -> bool {
        p.iter().all(|c| self.satisfies(c, r))
    }

    /// The first record from `from` on that satisfies `c`: a tight scan of its column.
    fn next_satisfying(&self, c: &Condition, from: usize) -> Option<usize> {
        let found = match *c {
            Condition::Missing(k) => match self.columns[k] {
                View::Numbers(v) => v[from..].iter().position(|x| x.is_nan()),
                View::Codes(v) => v[from..].iter().position(|&x| x == MISSING),
            },
            Condition::Observed(k) => match self.columns[k] {
                View::Numbers(v) => v[from..].iter().position(|x| !x.is_nan()),
                View::Codes(v) => v[from..].iter().position(|&x| x != MISSING),
            },
            Condition::Number(k, op, value) => match self.columns[k] {
                View::Numbers(v) => {
                    let v = &v[from..];
                    // A comparison with NaN (missing) is false, except ≠.
                    match op {
                        Op::Eq => v.iter().position(|&x| x == value),
                        Op::Ne => v.iter().position(|&x| x != value && !x.is_nan()),
                        Op::Gt => v.iter().position(|&x| x > value),
                        Op::Lt => v.iter().position(|&x| x < value),
                        Op::Ge => v.iter().position(|&x| x >= value),
                        Op::Le => v.iter().position(|&x| x <= value),
                    }
                }
                View::Codes(_) => None,
            },
            Condition::Category(k, eq, code) => match self.columns[k] {
                View::Codes(v) if eq => v[from..].iter().position(|&x| x == code),
                View::Codes(v) => v[from..].iter().position(|&x| x != code && x != MISSING),
                View::Numbers(_) => None,
            },
        };
        found.map(|i| i + from)
    }

    /// Calls `visit` on each record matching `p` until it returns false: the records that
    /// satisfy its most selective condition (found in the sorted columns), the other conditions
    /// checked on each.
    fn each_match(&self, p: &Predicate, mut visit: impl FnMut(usize) -> bool) {
        let Some((lead, candidates)) = p
            .iter()
            .enumerate()
            .map(|(j, c)| (j, self.candidates(c)))
            .min_by_key(|(_, c)| c.len())
        else {
            return;
        };
        let others = |r: usize| {
            p.iter()
                .enumerate()
                .all(|(j, c)| j == lead || self.satisfies(c, r))
        };
        match candidates {
            Candidates::Rows(a, b) => {
                for &r in a.iter().chain(b) {
                    if others(r as usize) && !visit(r as usize) {
                        return;
                    }
                }
            }
            Candidates::Scan(0) => {}
            Candidates::Scan(_) => {
                let mut from = 0;
                while let Some(r) = self.next_satisfying(&p[lead], from) {
                    if others(r) && !visit(r) {
                        return;
                    }
                    from = r + 1;
                }
            }
        }
    }

    /// The number of records matching `p`, counted up to `limit`.
    fn count(&self, p: &Predicate, limit: usize) -> usize {
        let mut n = 0;
        self.each_match(p, |_| {
            n += 1;
            n < limit
        });
        n
    }

    /// How many of `predicates` match exactly one record.
    fn singled_out(&self, predicates: &[Predicate]) -> usize {
        predicates
            .par_iter()
            .filter(|p| self.count(p, 2) == 1)
            .count()
    }
}

/// Singling-out risk of `released` for the records of `original`, against the control set
/// `control` and random predicates; see the [module docs](self).
pub fn singling_out(
    original: &Table,
    control: &Table,
    released: &Table,
    params: &SinglingOutParams,
    seed: u64,
) -> Result<QuestionResult, QuestionError> {
    params.check()?;
    let [ori, ctl, rel] = question_tables(original, control, released)?;
    let names: Vec<String> = released.names().into_iter().map(str::to_string).collect();
    require_columns(ori, &names, "a column of the release, used in predicates")?;
    let n_cols = match params.mode {
        Mode::Univariate => 1,
        Mode::Multivariate => params.n_cols,
    };
    if n_cols > names.len() {
        return Err(QuestionError::TooManyPredicateColumns {
            file: rel.file(),
            n_cols,
            columns: names.len(),
        });
    }
    // Each table without its exact duplicate records (borrowed when it has none).
    let ((original, control), released) = rayon::join(
        || {
            rayon::join(
                || without_duplicates(original),
                || without_duplicates(control),
            )
        },
        || without_duplicates(released),
    );
    let (original, control, released) = (original.as_ref(), control.as_ref(), released.as_ref());
    require_attacks(ori, original.nrows(), params.n_attacks, "main attack", true)?;
    let tables = [
        Named {
            table: released,
            ..rel
        },
        Named {
            table: original,
            ..ori
        },
        Named {
            table: control,
            ..ctl
        },
    ];
    let coded: Vec<Coded> = names
        .par_iter()
        .map(|n| code_column(n, &tables))
        .collect::<Result<_, _>>()?;
    let (rel_records, ori_records, ctl_records) = (
        Records::of(&coded, 0),
        Records::of(&coded, 1),
        Records::of(&coded, 2),
    );

    let mut notes = Vec::new();
    let mut rng = stream(seed, 1);
    let predicates = match params.mode {
        Mode::Univariate => univariate_predicates(&rel_records, params.n_attacks, &mut rng),
        Mode::Multivariate => {
            let (found, attempts_spent) = multivariate_predicates(&rel_records, params, &mut rng);
            if attempts_spent {
                notes.push(format!(
                    "reached max_attempts = {} draws while generating singling-out predicates: {} instead of the requested {}",
                    params.max_attempts.unwrap_or_default(),
                    found.len(),
                    params.n_attacks
                ));
            }
            found
        }
    };
    if predicates.len() < params.n_attacks {
        notes.push(format!(
            "the {} attack could generate only {} singling-out predicates out of the requested {}: the risk is probably underestimated",
            params.mode.as_str(),
            predicates.len(),
            params.n_attacks
        ));
    }
    let n_success = ori_records.singled_out(&predicates);

    let baseline = random_predicates(&rel_records, params.n_attacks, n_cols, &mut stream(seed, 3));
    let n_baseline = ori_records.singled_out(&baseline);

    let mut n_control = ctl_records.singled_out(&predicates) as f64;
    if control.nrows() != original.nrows() && n_control > 0.0 {
        let (sizes, successes) = control_successes(&ctl_records, &predicates, &mut stream(seed, 2));
        if let Some(factor) = size_correction(&sizes, &successes, original.nrows(), control.nrows())
        {
            n_control *= factor;
        }
    }
    Ok(QuestionResult::from_counts(
        params.n_attacks,
        n_success,
        n_control,
        n_baseline,
        DEFAULT_CONFIDENCE,
        notes,
    ))
}

/// An integer ordered as `f64::total_cmp` orders the numbers.
fn total_order_key(x: f64) -> i64 {
    let bits = x.to_bits() as i64;
    bits ^ ((((bits >> 63) as u64) >> 1) as i64)
}

/// `table` without the records that repeat an earlier one exactly.
fn without_duplicates(table: &Table) -> Cow<'_, Table> {
    match distinct_rows(table) {
        Some(rows) => Cow::Owned(table.take(&rows)),
        None => Cow::Borrowed(table),
    }
}

/// Keeps, in order, the predicates of `candidates` that match exactly one release record and
/// are not yet in `kept`, until `kept` holds `n`.
fn keep_singling_out(
    release: &Records<'_>,
    candidates: Vec<Predicate>,
    kept: &mut Vec<Predicate>,
    seen: &mut foldhash::HashSet<Vec<(u8, usize, u64)>>,
    n: usize,
) {
    let counts: Vec<usize> = candidates.par_iter().map(|p| release.count(p, 2)).collect();
    for (p, count) in candidates.into_iter().zip(counts) {
        if kept.len() >= n {
            return;
        }
        if count == 1 && seen.insert(p.iter().map(Condition::key).collect()) {
            kept.push(p);
        }
    }
}

/// Univariate predicates of the release: missing when one record has it missing, the extremes
/// of numeric columns, values only one record has; shuffled, up to `n` that single out. Each
/// candidate's count in the release is known from how it was found, so none is evaluated.
fn univariate_predicates(release: &Records<'_>, n: usize, rng: &mut ChaCha8Rng) -> Vec<Predicate> {
    // (predicate, the number of release records it matches)
    let mut candidates: Vec<(Predicate, usize)> = Vec::new();
    for (k, column) in release.columns.iter().enumerate() {
        match *column {
            View::Numbers(v) => {
                if v.iter().filter(|x| x.is_nan()).count() == 1 {
                    candidates.push((vec![Condition::Missing(k)], 1));
                }
                let mut counts: foldhash::HashMap<u64, (usize, f64)> = Default::default();
                let mut order = Vec::new();
                for &x in v.iter().filter(|x| !x.is_nan()) {
                    let bits = if x == 0.0 { 0 } else { x.to_bits() };
                    let e = counts.entry(bits).or_insert_with(|| {
                        order.push(bits);
                        (0, x)
                    });
                    e.0 += 1;
                }
                let values = order.iter().map(|b| counts[b]);
                if let (Some(lo), Some(hi)) = (
                    values.clone().min_by(|a, b| a.1.total_cmp(&b.1)),
                    values.max_by(|a, b| a.1.total_cmp(&b.1)),
                ) {
                    candidates.push((vec![Condition::Number(k, Op::Le, lo.1)], lo.0));
                    candidates.push((vec![Condition::Number(k, Op::Ge, hi.1)], hi.0));
                }
                for bits in order {
                    let (count, x) = counts[&bits];
                    if count == 1 {
                        candidates.push((vec![Condition::Number(k, Op::Eq, x)], 1));
                    }
                }
            }
            View::Codes(v) => {
                if v.iter().filter(|&&c| c == MISSING).count() == 1 {
                    candidates.push((vec![Condition::Missing(k)], 1));
                }
                let mut counts: foldhash::HashMap<u32, usize> = Default::default();
                let mut order = Vec::new();
                for &c in v.iter().filter(|&&c| c != MISSING) {
                    let e = counts.entry(c).or_insert_with(|| {
                        order.push(c);
                        0
                    });
                    *e += 1;
                }
                for c in order {
                    if counts[&c] == 1 {
                        candidates.push((vec![Condition::Category(k, true, c)], 1));
                    }
                }
            }
        }
    }
    candidates.shuffle(rng);
    let mut seen: foldhash::HashSet<Vec<(u8, usize, u64)>> = Default::default();
    candidates
        .into_iter()
        .filter(|(p, count)| *count == 1 && seen.insert(p.iter().map(Condition::key).collect()))
        .map(|(p, _)| p)
        .take(n)
        .collect()
}

/// The median of the observed numbers of `v` (the mean of the middle two for an even count).
fn median(v: &[f64]) -> Option<f64> {
    let mut x: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
    if x.is_empty() {
        return None;
    }
    x.sort_by(f64::total_cmp);
    let m = x.len() / 2;
    Some(if x.len() % 2 == 1 {
        x[m]
    } else {
        0.5 * (x[m - 1] + x[m])
    })
}

/// Multivariate predicates of the release, drawn in batches of 1,000 until `n_attacks` single
/// out or `max_attempts` draws are spent; also whether the draws ran out first.
fn multivariate_predicates(
    release: &Records<'_>,
    params: &SinglingOutParams,
    rng: &mut ChaCha8Rng,
) -> (Vec<Predicate>, bool) {
    let medians: Vec<Option<f64>> = release
        .columns
        .iter()
        .map(|c| match c {
            View::Numbers(v) => median(v),
            View::Codes(_) => None,
        })
        .collect();
    let batch = params.max_attempts.map_or(1000, |m| m.min(1000));
    let n_columns = release.columns.len();
    let mut kept = Vec::new();
    let mut seen = Default::default();
    let mut attempts = 0usize;
    while kept.len() < params.n_attacks {
        if params.max_attempts.is_some_and(|m| attempts >= m) {
            return (kept, true);
        }
        let candidates: Vec<Predicate> = (0..batch)
            .map(|_| {
                let r = rng.gen_range(0..release.rows);
                let mut columns = sample(rng, n_columns, params.n_cols).into_vec();
                columns.sort_unstable();
                columns
                    .into_iter()
                    .map(|k| match release.columns[k] {
                        View::Numbers(v) if v[r].is_nan() => Condition::Missing(k),
                        View::Numbers(v) => {
                            let op = match medians[k] {
                                Some(m) if v[r] > m => Op::Ge,
                                _ => Op::Le,
                            };
                            Condition::Number(k, op, v[r])
                        }
                        View::Codes(v) if v[r] == MISSING => Condition::Missing(k),
                        View::Codes(v) => Condition::Category(k, true, v[r]),
                    })
                    .collect()
            })
            .collect();
        keep_singling_out(release, candidates, &mut kept, &mut seen, params.n_attacks);
        attempts += batch;
    }
    (kept, false)
}

/// A column's distinct values in the release (a missing value is one of them when present).
#[derive(Debug)]
enum Distinct {
    /// Numbers; `None` is missing.
    Numbers(Vec<Option<f64>>),
    /// Category codes; [`MISSING`] is missing.
    Codes(Vec<u32>),
}

/// `n` random predicates over `n_cols` random columns each: a release value drawn at random per
/// column with a random operator.
fn random_predicates(
    release: &Records<'_>,
    n: usize,
    n_cols: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<Predicate> {
    let distinct: Vec<Distinct> = release
        .columns
        .iter()
        .map(|c| match *c {
            View::Numbers(v) => {
                let mut seen: foldhash::HashSet<u64> = Default::default();
                let mut out = Vec::new();
                for &x in v {
                    let bits = if x.is_nan() {
                        u64::MAX
                    } else if x == 0.0 {
                        0
                    } else {
                        x.to_bits()
                    };
                    if seen.insert(bits) {
                        out.push((!x.is_nan()).then_some(x));
                    }
                }
                Distinct::Numbers(out)
            }
            View::Codes(v) => {
                let mut seen: foldhash::HashSet<u32> = Default::default();
                Distinct::Codes(v.iter().copied().filter(|c| seen.insert(*c)).collect())
            }
        })
        .collect();
    (0..n)
        .map(|_| {
            let mut columns = sample(rng, release.columns.len(), n_cols).into_vec();
            columns.sort_unstable();
            columns
                .into_iter()
                .map(|k| match &distinct[k] {
                    Distinct::Numbers(values) => {
                        let value = values[rng.gen_range(0..values.len())];
                        let op = Op::ALL[rng.gen_range(0..Op::ALL.len())];
                        match value {
                            None if op == Op::Eq => Condition::Missing(k),
                            None => Condition::Observed(k),
                            Some(x) => Condition::Number(k, op, x),
                        }
                    }
                    Distinct::Codes(values) => {
                        let value = values[rng.gen_range(0..values.len())];
                        let eq = rng.gen_bool(0.5);
                        match value {
                            MISSING if eq => Condition::Missing(k),
                            MISSING => Condition::Observed(k),
                            c => Condition::Category(k, eq, c),
                        }
                    }
                })
                .collect()
        })
        .collect()
}

/// A predicate's matches in the whole control set: their rows, or `None` when there are so many
/// that scanning a subset is quicker.
type Matches = Option<Vec<u32>>;

/// Above this many matches in the control set a predicate is re-evaluated on each subset.
const LISTED_MATCHES: usize = 256;

/// The sizes of the control subsets and how many of `predicates` single out in each: 10 sizes
/// from `min(1000, n)` records (half the control set when it has at most 1,000) to all `n`, 5
/// random subsets of each, drawn without replacement.
fn control_successes(
    control: &Records<'_>,
    predicates: &[Predicate],
    rng: &mut ChaCha8Rng,
) -> (Vec<usize>, Vec<f64>) {
    let n = control.rows;
    let matches: Vec<Matches> = predicates
        .par_iter()
        .map(|p| {
            let (mut rows, mut listed) = (Vec::new(), true);
            control.each_match(p, |r| {
                listed = rows.len() < LISTED_MATCHES;
                rows.push(r as u32);
                listed
            });
            listed.then_some(rows)
        })
        .collect();
    let mut smallest = n.min(1000);
    if smallest == n {
        smallest = n.div_ceil(2);
    }
    let mut sizes = Vec::with_capacity(50);
    let mut successes = Vec::with_capacity(50);
    let mut member = vec![false; n];
    for i in 0..10 {
        let size = if i == 9 {
            n
        } else {
            (smallest as f64 + i as f64 * (n - smallest) as f64 / 9.0) as usize
        };
        for _ in 0..5 {
            let subset = sample(rng, n, size).into_vec();
            member.iter_mut().for_each(|m| *m = false);
            for &r in &subset {
                member[r] = true;
            }
            let singled = predicates
                .par_iter()
                .zip(&matches)
                .filter(|(p, m)| match m {
                    Some(rows) => {
                        let mut c = 0;
                        for &r in rows {
                            c += usize::from(member[r as usize]);
                            if c > 1 {
                                break;
                            }
                        }
                        c == 1
                    }
                    None => {
                        let mut c = 0;
                        for &r in &subset {
                            c += usize::from(control.matches(p, r));
                            if c > 1 {
                                break;
                            }
                        }
                        c == 1
                    }
                })
                .count();
            sizes.push(size);
            successes.push(singled as f64);
        }
    }
    (sizes, successes)
}

/// `∫₀^w n x (1 − x)^(n−1) dx = (1 − (n w + 1)(1 − w)^n) / (n + 1)`: the chance that a predicate
/// whose weight is uniform on `[0, w]` (times `w`) singles out one of `n` records (anonymeter's
/// `singling_out_probability_integral` with `w_min = 0`).
fn singling_out_integral(n: f64, w: f64) -> f64 {
    if w >= 1.0 {
        return 1.0 / (n + 1.0);
    }
    // 1 − (1 + a) e^b with a = n w, b = n ln(1 − w), without cancelling.
    let a = n * w;
    let b = n * (-w).ln_1p();
    -(b.exp_m1() + a * b.exp()) / (n + 1.0)
}

/// The factor that scales the control attack's successes from the control set's size to the
/// original's, `F(n_original) / F(n_control)`, with `F(n) = norm · ∫₀^w n x (1 − x)^(n−1) dx`
/// fitted by least squares (`0 ≤ w ≤ 1`, `norm ≥ 0`, as anonymeter's `curve_fit`) to the
/// successes measured on subsets of the control set of the given sizes. `None` when nothing
/// singles out in any subset (the model has no scale).
pub fn size_correction(
    sizes: &[usize],
    successes: &[f64],
    n_original: usize,
    n_control: usize,
) -> Option<f64> {
    let x: Vec<f64> = sizes.iter().map(|&s| s as f64).collect();
    // The sum of squares at `w`, with the best `norm` for it.
    let sse = |w: f64| -> f64 {
        let f: Vec<f64> = x.iter().map(|&n| singling_out_integral(n, w)).collect();
        let yf: f64 = f.iter().zip(successes).map(|(f, y)| f * y).sum();
        let ff: f64 = f.iter().map(|f| f * f).sum();
        let norm = if ff > 0.0 { (yf / ff).max(0.0) } else { 0.0 };
        f.iter()
            .zip(successes)
            .map(|(f, y)| (y - norm * f).powi(2))
            .sum()
    };
    if successes.iter().all(|&y| y <= 0.0) {
        return None;
    }
    // A grid over log w, then golden-section search between the best point's neighbours.
    let largest = x.iter().copied().fold(1.0, f64::max);
    let (lo, hi) = ((1e-4 / largest).log10(), 0.0f64);
    let steps = 600;
    let at = |i: usize| lo + (hi - lo) * i as f64 / steps as f64;
    let best = (0..=steps)
        .min_by(|&i, &j| sse(10f64.powf(at(i))).total_cmp(&sse(10f64.powf(at(j)))))
        .unwrap_or(steps);
    let (mut a, mut b) = (at(best.saturating_sub(1)), at((best + 1).min(steps)));
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..100 {
        let c = b - phi * (b - a);
        let d = a + phi * (b - a);
        if sse(10f64.powf(c)) <= sse(10f64.powf(d)) {
            b = d;
        } else {
            a = c;
        }
    }
    let w = 10f64.powf(0.5 * (a + b)).min(1.0);
    let ratio =
        singling_out_integral(n_original as f64, w) / singling_out_integral(n_control as f64, w);
    ratio.is_finite().then_some(ratio)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_scan_for_a_leading_condition_counts_as_checking_every_record() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let n = 500;
        let numbers: Vec<f64> = (0..n)
            .map(|_| {
                if rng.gen_bool(0.1) {
                    f64::NAN
                } else {
                    f64::from(rng.gen_range(0..8u32))
                }
            })
            .collect();
        let codes: Vec<u32> = (0..n)
            .map(|_| {
                if rng.gen_bool(0.1) {
                    MISSING
                } else {
                    rng.gen_range(0..4)
                }
            })
            .collect();
        let records = Records::from_columns(vec![View::Numbers(&numbers), View::Codes(&codes)]);
        for p in random_predicates(&records, 2000, 2, &mut rng)
            .into_iter()
            .chain(random_predicates(&records, 500, 1, &mut rng))
        {
            let all = (0..n).filter(|&r| records.matches(&p, r)).count();
            for limit in [1, 2, 1000] {
                assert_eq!(records.count(&p, limit), all.min(limit), "{p:?}");
            }
        }
    }
}

#[cfg(test)]
mod order {
    use super::total_order_key;

    proptest::proptest! {
        #[test]
        fn the_integer_key_orders_numbers_as_total_cmp(a in proptest::num::f64::ANY, b in proptest::num::f64::ANY) {
            proptest::prop_assert_eq!(total_order_key(a).cmp(&total_order_key(b)), a.total_cmp(&b));
        }
    }

    #[test]
    fn the_integer_key_tells_signed_zeros_apart_and_keeps_infinities_at_the_ends() {
        let xs = [
            f64::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            1e-300,
            2.0,
            f64::INFINITY,
        ];
        for w in xs.windows(2) {
            assert!(total_order_key(w[0]) < total_order_key(w[1]), "{w:?}");
        }
    }
}
