//! IL1s, record by record: Σ|x − x'| / (√2·S_j) over the cells (Mateo-Sanz, Sebé &
//! Domingo-Ferrer 2004; sdcMicro `dUtility(method = "IL1")`): the figures `il1s` and
//! `il1s_per_cell`, the table `il1s_per_variable`. The only measure that compares records one to
//! one. The computation is [`crate::il1s()`].

use intruder_table::params::FigureSpec;
use intruder_table::Table;
use intruder_table::params::{Entry, ParamReader, ParamSpec};
use intruder_table::report::{Figure, Report, ReportTable, Unit};
use serde_json::json;

use super::shared::{num, read_variables};
use crate::{UtilityError, UtilityMeasure, il1s};

const NAME: &str = "il1s";

/// IL1s, record by record.
#[derive(Debug, Clone, PartialEq)]
pub struct Il1sMeasure {
    /// Numeric variables.
    pub(crate) variables: Vec<String>,
}

/// The measure's own parameters (the common ones are [`crate::UTILITY_COMMON`]).
const PARAMS: &[ParamSpec] = &[];

/// Registry entry.
pub const ENTRY: Entry<dyn UtilityMeasure> = Entry {
    name: NAME,
    summary: "IL1s: Σ|x − x'| / (√2·S_j) over the cells, record by record (a sum, not a mean)",
    reference: "Mateo-Sanz, Sebé & Domingo-Ferrer (2004); sdcMicro dUtility(method = \"IL1\")",
    params: PARAMS,
    figures: &[
        FigureSpec::new("il1s", "IL1s", Unit::Score, "docs/METHODS.md §4").non_negative(),
        FigureSpec::new("il1s_per_cell", "IL1s per cell", Unit::Score, "docs/METHODS.md §4").non_negative(),
    ],
    build,
};

/// Reads and checks the measure's parameters; `None` when any is wrong.
fn build(r: &mut ParamReader) -> Option<Box<dyn UtilityMeasure>> {
    let variables = read_variables(r, NAME, true);
    if !r.ok() {
        return None;
    }
    Some(Box::new(Il1sMeasure {
        variables: variables?,
    }))
}

impl UtilityMeasure for Il1sMeasure {
    fn name(&self) -> &'static str {
        NAME
    }

    fn one_to_one(&self) -> bool {
        true
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        let il = il1s(original, masked, &self.variables)?;
        let mut r = Report::new("il1s: record-by-record information loss (sdcMicro dUtility IL1)");
        r.push(Figure::new(
            "il1s",
            num(il.total),
            Unit::Score,
            "IL1s: Σ |x − x'| / (√2·S_j) over the compared cells (a sum, as sdcMicro's dUtility)",
        ));
        r.push(Figure::new(
            "il1s_per_cell",
            num(il.per_cell),
            Unit::Score,
            "IL1s divided by the number of compared cells",
        ));
        r.tables.push(ReportTable {
            name: "il1s_per_variable".into(),
            title: format!(
                "IL1s per variable ({} cells observed in both files)",
                il.cells
            ),
            header: ["variable", "il1s", "cells"].map(String::from).to_vec(),
            rows: il
                .per_variable
                .iter()
                .zip(&il.per_variable_cells)
                .map(|((v, x), c)| vec![json!(v), num(*x), json!(c)])
                .collect(),
        });
        Ok(r)
    }
}
