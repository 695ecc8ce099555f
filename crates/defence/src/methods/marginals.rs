//! Independent marginals: the baseline synthesiser. It releases `n` new records (default: as
//! many as the input) in which every column is drawn on its own from its empirical marginal in
//! the input: each synthetic cell is the cell of a row drawn uniformly at random, with
//! replacement, from the input's rows, independently for every column and every record. A
//! category comes out with its observed frequency, a number is one of the observed values, and
//! a missing cell comes out at the observed share of missing cells, whatever the column's kind
//! (categorical, integer, float, text, set). Every marginal is kept in expectation; every
//! relationship between columns is destroyed.
//!
//! Draws go column by column (in table order), one uniform row index per record. The records are
//! new: no released record is an input record ([`crate::Defence::synthetic`]), so the truth of
//! the release is no one and the method promises nothing about k.

use intruder_table::Table;
use rand::Rng;
use rand_chacha::ChaCha20Rng;

use crate::{Defence, DefenceError, Masked};
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "independent-marginals";

/// Parameters of the independent-marginals synthesiser.
#[derive(Debug, Clone, PartialEq)]
pub struct IndependentMarginals {
    /// Records to release; `None`: as many as the input.
    pub(crate) n: Option<usize>,
}

const PARAMS: &[ParamSpec] = &[ParamSpec::new(
    "n",
    ParamKind::Integer,
    "records to release (synthetic records, none of them an input record)",
)
.default_value("as many as the input")
.within(Range::at_least(1.0))];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "synthetic records, every column drawn independently from its empirical marginal (keeps marginals, destroys relationships)",
    reference: "the baseline synthesiser of synthetic-data evaluations (e.g. Stadler, Oprisanu & Troncoso 2022)",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let n: Option<usize> = r.get("n");
    if !r.ok() {
        return None;
    }
    Some(Box::new(IndependentMarginals { n }))
}

/// The number of records a synthesiser releases: `n`, or as many as the input's; an error
/// when the input has no record to learn from.
pub(crate) fn synthetic_size(
    method: &'static str,
    table: &Table,
    n: Option<usize>,
) -> Result<usize, DefenceError> {
    if table.nrows() == 0 {
        return Err(DefenceError::Infeasible {
            method,
            message: "the input has no records to learn the distribution from".into(),
        });
    }
    Ok(n.unwrap_or(table.nrows()))
}

impl Defence for IndependentMarginals {
    fn method(&self) -> &'static str {
        NAME
    }

    fn synthetic(&self) -> bool {
        true
    }

    fn apply(&self, table: &Table, rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        let n_in = table.nrows();
        let n = synthetic_size(NAME, table, self.n)?;
        let mut columns = Vec::with_capacity(table.ncols());
        for col in table.columns() {
            let rows: Vec<usize> = (0..n).map(|_| rng.gen_range(0..n_in)).collect();
            columns.push(col.take(&rows));
        }
        let out = Table::new(table.source(), columns)?;
        Ok(Masked {
            table: out,
            kept_rows: None,
            notes: vec![format!(
                "{n} synthetic records, each of {} columns drawn independently from its marginal in {n_in} input records",
                table.ncols()
            )],
            details: None,
        })
    }
}
