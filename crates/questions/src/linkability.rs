//! Linkability (anonymeter's `LinkabilityEvaluator`; Giomi et al. 2023, §4.2).
//!
//! The intruder holds two datasets about the same people that share no column: one with the
//! auxiliary columns `aux_cols[1]`, the other with `aux_cols[2]`. It links them through the
//! release: a target's two halves are linked when their `n_neighbors` nearest release records
//! (anonymeter's mixed-type distance; the `neighbours` module in the source) share one.
//!
//! - **Main attack**: `n_attacks` targets drawn from the original without replacement.
//! - **Control attack**: `n_attacks` targets drawn from the control set.
//! - **Baseline**: for each attack, two independent draws of `n_neighbors` distinct release
//!   records, linked when they share one (`1 − C(n − k, k) / C(n, k)` on average for `n`
//!   release records).

use intruder_table::Table;
use intruder_table::params::{ParamKind, ParamReader, ParamSpec, Range};
use rand::RngCore;
use rand::seq::index::sample;

use crate::coded::{Coded, code_column, question_tables, require_attacks, require_columns};
use crate::error::{ParamError, QuestionError};
use crate::neighbours::Search;
use crate::rates::{DEFAULT_CONFIDENCE, QuestionResult};
use crate::stream;

/// The checked parameters of [`linkability`].
#[derive(Debug, Clone, PartialEq)]
pub struct LinkabilityParams {
    /// The number of targets attacked (in the original, and again in the control set).
    pub n_attacks: usize,
    /// The auxiliary columns of the intruder's two datasets; no column in both.
    pub aux_cols: (Vec<String>, Vec<String>),
    /// How many nearest release records of each half are compared.
    pub n_neighbors: usize,
}

impl LinkabilityParams {
    /// The parameters with anonymeter's defaults (500 attacks, 1 neighbour).
    pub fn new(aux_cols: (Vec<String>, Vec<String>)) -> LinkabilityParams {
        LinkabilityParams {
            n_attacks: 500,
            aux_cols,
            n_neighbors: 1,
        }
    }

    /// The same parameters with `n_attacks` attacks.
    pub fn with_attacks(mut self, n_attacks: usize) -> LinkabilityParams {
        self.n_attacks = n_attacks;
        self
    }

    /// The same parameters with `n_neighbors` neighbours.
    pub fn with_neighbours(mut self, n_neighbors: usize) -> LinkabilityParams {
        self.n_neighbors = n_neighbors;
        self
    }

    /// Checks the parameters alone (the tables are checked by [`linkability`]).
    pub fn check(&self) -> Result<(), ParamError> {
        if self.n_attacks == 0 {
            return Err(ParamError::NoAttacks);
        }
        if self.n_neighbors == 0 {
            return Err(ParamError::NoNeighbours);
        }
        for (set, which) in [
            (&self.aux_cols.0, "aux_cols[1]"),
            (&self.aux_cols.1, "aux_cols[2]"),
        ] {
            if set.is_empty() {
                return Err(ParamError::NoAuxiliary { which });
            }
            if let Some(c) = first_repeat(set) {
                return Err(ParamError::RepeatedAuxiliary {
                    column: c.to_string(),
                    which,
                    why: "name each column once",
                });
            }
        }
        if let Some(c) = self.aux_cols.0.iter().find(|c| self.aux_cols.1.contains(c)) {
            return Err(ParamError::RepeatedAuxiliary {
                column: c.clone(),
                which: "both sets of aux_cols",
                why: "the intruder's two datasets share no column (a shared column would link them without the release)",
            });
        }
        Ok(())
    }

    /// Reads the parameters declared in [`PARAMS`], recording every problem in `r`.
    pub fn read(r: &mut ParamReader<'_>) -> Option<LinkabilityParams> {
        let n_attacks = r.get::<usize>("n_attacks").unwrap_or(500);
        let n_neighbors = r.get::<usize>("n_neighbors").unwrap_or(1);
        let aux = r.require::<toml::Value>("aux_cols");
        let aux_cols = match aux {
            Some(v) => match two_lists(&v) {
                Ok(sets) => Some(sets),
                Err(e) => {
                    r.problem("aux_cols", e);
                    None
                }
            },
            None => None,
        };
        let params = LinkabilityParams {
            n_attacks,
            aux_cols: aux_cols?,
            n_neighbors,
        };
        crate::checked(r, params, |p| p.check())
    }

    /// Reads the parameters from a TOML table (`--set` values, an experiment's table); every
    /// problem is reported at once under `source_name`.
    pub fn from_table(
        table: &toml::Table,
        source_name: &str,
    ) -> Result<LinkabilityParams, intruder_table::params::ParamError> {
        crate::read_table(table, source_name, PARAMS, LinkabilityParams::read)
    }
}

/// The first name given twice in `names`.
pub(crate) fn first_repeat(names: &[String]) -> Option<&str> {
    names
        .iter()
        .enumerate()
        .find(|(i, n)| names[..*i].contains(n))
        .map(|(_, n)| n.as_str())
}

/// Two lists of column names from `[["a", "b"], ["c"]]`.
fn two_lists(v: &toml::Value) -> Result<(Vec<String>, Vec<String>), String> {
    let expected = "expected two lists of column names, e.g. [[\"age\", \"sex\"], [\"education\", \"occupation\"]]";
    let toml::Value::Array(outer) = v else {
        return Err(format!(
            "{expected}; found {}",
            intruder_table::params::describe(v)
        ));
    };
    if outer.len() != 2 {
        return Err(format!("{expected}; found a list of {} items", outer.len()));
    }
    let list = |x: &toml::Value, i: usize| -> Result<Vec<String>, String> {
        match x {
            toml::Value::Array(a) => a
                .iter()
                .map(|s| {
                    s.as_str().map(str::to_string).ok_or_else(|| {
                        format!(
                            "list {i}: expected column names, found {}",
                            intruder_table::params::describe(s)
                        )
                    })
                })
                .collect(),
            _ => Err(format!(
                "{expected}; item {i} is {}",
                intruder_table::params::describe(x)
            )),
        }
    };
    Ok((list(&outer[0], 1)?, list(&outer[1], 2)?))
}

/// The parameters of `linkability` (anonymeter's names and defaults).
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "n_attacks",
        ParamKind::Integer,
        "targets attacked, drawn without replacement from the original (and as many from the control set)",
    )
    .default_value("500")
    .within(Range::at_least(1.0)),
    ParamSpec::new(
        "aux_cols",
        ParamKind::Columns,
        "two lists of auxiliary columns, one per dataset the intruder links, no column in both: [[\"age\", \"sex\"], [\"education\", \"occupation\"]]",
    )
    .required(),
    ParamSpec::new(
        "n_neighbors",
        ParamKind::Integer,
        "nearest release records of each half compared; the halves are linked when they share one",
    )
    .default_value("1")
    .within(Range::at_least(1.0)),
];

/// Linkability risk of `released` for the records of `original`, against the control set
/// `control` and the random baseline; see the [module docs](self).
pub fn linkability(
    original: &Table,
    control: &Table,
    released: &Table,
    params: &LinkabilityParams,
    seed: u64,
) -> Result<QuestionResult, QuestionError> {
    params.check()?;
    let [ori, ctl, rel] = question_tables(original, control, released)?;
    for set in [&params.aux_cols.0, &params.aux_cols.1] {
        require_columns(ori, set, "auxiliary column")?;
        require_columns(rel, set, "auxiliary column")?;
    }
    let tables = [rel, ori, ctl];
    let code = |set: &[String]| -> Result<Vec<Coded>, QuestionError> {
        set.iter().map(|c| code_column(c, &tables)).collect()
    };
    let first = code(&params.aux_cols.0)?;
    let second = code(&params.aux_cols.1)?;
    require_attacks(
        ori,
        original.nrows(),
        params.n_attacks,
        "main attack",
        false,
    )?;
    require_attacks(
        ctl,
        control.nrows(),
        params.n_attacks,
        "control attack",
        false,
    )?;
    if params.n_neighbors > released.nrows() {
        return Err(QuestionError::TooManyNeighbours {
            file: rel.file(),
            n_neighbors: params.n_neighbors,
            rows: released.nrows(),
        });
    }
    let n_success = linked_targets(&first, &second, 1, original.nrows(), params, seed, 1);
    let n_control = linked_targets(&first, &second, 2, control.nrows(), params, seed, 2);
    let n_baseline = linked_at_random(released.nrows(), params, seed);
    Ok(QuestionResult::from_counts(
        params.n_attacks,
        n_success,
        n_control as f64,
        n_baseline,
        DEFAULT_CONFIDENCE,
        Vec::new(),
    ))
}

/// How many of `n_attacks` targets drawn from table `target` (of `rows` records) have halves
/// whose nearest release records meet.
fn linked_targets(
    first: &[Coded],
    second: &[Coded],
    target: usize,
    rows: usize,
    params: &LinkabilityParams,
    seed: u64,
    k: u64,
) -> usize {
    let mut rng = stream(seed, k);
    let targets = sample(&mut rng, rows, params.n_attacks).into_vec();
    let half = |set: &[Coded], rng: &mut dyn RngCore| {
        let columns: Vec<&Coded> = set.iter().collect();
        Search::new(&columns, 0, target, &targets).nearest(params.n_neighbors, rng.next_u64())
    };
    let a = half(first, &mut rng);
    let b = half(second, &mut rng);
    a.iter()
        .zip(&b)
        .filter(|(x, y)| x.iter().any(|i| y.contains(i)))
        .count()
}

/// How many of `n_attacks` pairs of random draws of `n_neighbors` release records share one.
fn linked_at_random(n_released: usize, params: &LinkabilityParams, seed: u64) -> usize {
    let mut rng = stream(seed, 3);
    (0..params.n_attacks)
        .filter(|_| {
            let a = sample(&mut rng, n_released, params.n_neighbors).into_vec();
            let b = sample(&mut rng, n_released, params.n_neighbors).into_vec();
            a.iter().any(|i| b.contains(i))
        })
        .count()
}
