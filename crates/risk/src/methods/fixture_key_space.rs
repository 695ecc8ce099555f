//! The key space (a fixture, compiled with the feature `fixture-methods` only, for the test that
//! a new method is one file and one registry line): the distinct observed values of each key
//! and their product, the number of key combinations an intruder must tell apart, and the
//! records per combination. A file whose records are few beside its key space is one where
//! most records sit alone (Dalenius 1986; Skinner & Elliot 2002 reason from the same ratio).
//! Per record (`--per-record`): `counted`, 1 when the record is counted, 0 when a missing key
//! leaves it out (listwise).

use std::collections::HashSet;

use intruder_table::params::FigureSpec;
use intruder_table::Table;
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec};
use intruder_table::report::{Figure, RecordValues, Records, Report, Unit};
use serde_json::json;

use crate::methods::figures;
use crate::error::RiskError;
use crate::keys::MissingPolicy;
use crate::methods::shared::{needs_classes, read_common};
use crate::{RiskMeasure, RiskOutcome};

const NAME: &str = "fixture-key-space";

/// The measure's own parameters (the common `keys`, `missing` and `set_match` are
/// [`crate::RISK_COMMON`]).
const PARAMS: &[ParamSpec] = &[ParamSpec::new(
    "per_key",
    ParamKind::Bool,
    "also report each key's distinct values as a table",
)
.default_value("false")];

/// Registry entry.
pub const ENTRY: Entry<dyn RiskMeasure> = Entry {
    name: NAME,
    summary: "the key space: distinct values per key, their product and the records per combination",
    reference: "Dalenius (1986); Skinner & Elliot (2002)",
    params: PARAMS,
    figures: intruder_table::figure_list![
        figures::N,
        FigureSpec::new(
            "key_space",
            "key space (combinations of observed values)",
            Unit::Count,
            "Dalenius (1986)",
        ),
        FigureSpec::new(
            "records_per_combination",
            "records per key combination",
            Unit::Score,
            "Skinner & Elliot (2002)",
        )
        .non_negative(),
    ],
    build,
};

/// The key space of a file on its keys.
#[derive(Debug, Clone, PartialEq)]
pub struct KeySpace {
    /// The key variables.
    pub(crate) keys: Vec<String>,
    /// Listwise: records missing a key are not counted and a missing cell is no value;
    /// as-value: a missing cell is one more value of its key.
    pub(crate) missing: MissingPolicy,
    /// Whether to add the table of distinct values per key.
    pub(crate) per_key: bool,
}

fn build(r: &mut ParamReader) -> Option<Box<dyn RiskMeasure>> {
    let c = read_common(r);
    let per_key = r.get_or("per_key", false);
    needs_classes(r, &c, NAME);
    if !r.ok() {
        return None;
    }
    Some(Box::new(KeySpace {
        keys: c.keys?,
        missing: c.missing,
        per_key,
    }))
}

impl RiskMeasure for KeySpace {
    fn name(&self) -> &'static str {
        NAME
    }
    fn keys(&self) -> &[String] {
        &self.keys
    }
    fn policy(&self) -> MissingPolicy {
        self.missing
    }
    fn headline(&self) -> &'static str {
        "key_space"
    }
    fn assess(&self, table: &Table, per_record: bool) -> Result<RiskOutcome, RiskError> {
        let columns = self
            .keys
            .iter()
            .map(|k| table.column(k))
            .collect::<Result<Vec<_>, _>>()?;
        let listwise = self.missing == MissingPolicy::Listwise;
        let counted: Vec<usize> = (0..table.nrows())
            .filter(|&i| !listwise || columns.iter().all(|c| !c.is_missing(i)))
            .collect();
        let distinct: Vec<usize> = columns
            .iter()
            .map(|c| {
                let values: HashSet<Option<String>> =
                    counted.iter().map(|&i| c.text(i).map(String::from)).collect();
                values.len()
            })
            .collect();
        let space: f64 = distinct.iter().map(|&d| d as f64).product();
        let mut report = Report::new("key space");
        report.push(Figure::new("keys", json!(self.keys), Unit::Label, "the key variables"));
        report.push(Figure::new(
            "n",
            json!(counted.len()),
            Unit::Count,
            "records counted (under listwise, those with every key observed)",
        ));
        report.push(Figure::new(
            "key_space",
            json!(space),
            Unit::Count,
            "key combinations: the product of the keys' distinct observed values",
        ));
        let per_combination = if space > 0.0 { counted.len() as f64 / space } else { 0.0 };
        report.push(Figure::new(
            "records_per_combination",
            json!(per_combination),
            Unit::Score,
            "records counted divided by the key space (below 1, most records can sit alone)",
        ));
        if self.per_key {
            report.tables.push(intruder_table::report::ReportTable {
                name: "distinct_values".into(),
                title: "distinct values per key".into(),
                header: vec!["key".into(), "distinct".into()],
                rows: self
                    .keys
                    .iter()
                    .zip(&distinct)
                    .map(|(k, d)| vec![json!(k), json!(d)])
                    .collect(),
            });
        }
        // Per record: whether it is counted (1) or left out for a missing key (0).
        let mut records = Records::default();
        if per_record {
            let mut counted_flag = vec![0u32; table.nrows()];
            for &i in &counted {
                counted_flag[i] = 1;
            }
            records = Records::new(table.nrows());
            records
                .push("counted", RecordValues::from(counted_flag))
                .map_err(RiskError::Param)?;
        }
        Ok(RiskOutcome {
            report,
            records,
            warnings: Vec::new(),
        })
    }
}
