//! Changed cells (a fixture, compiled with the feature `fixture-methods` only, for the test that
//! a new method is one file and one registry line): record by record, how many cells of the
//! `variables` the masking changed — a value replaced, suppressed or filled in — and their share
//! of the cells compared; the figures `changed_cells` and `changed_share`, the table
//! `changed_per_variable`. Values are compared as text, so a recoding counts as a change.

use intruder_table::params::FigureSpec;
use intruder_table::Table;
use intruder_table::params::{Entry, ParamReader, ParamSpec};
use intruder_table::report::{Figure, Report, ReportTable, Unit};
use serde_json::json;

use super::shared::{num, read_variables};
use crate::{UtilityError, UtilityMeasure};

const NAME: &str = "fixture-changed-cells";

/// Changed cells, record by record.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangedCells {
    /// The variables compared (any kind).
    pub(crate) variables: Vec<String>,
}

/// The measure's own parameters (the common ones are [`crate::UTILITY_COMMON`]).
const PARAMS: &[ParamSpec] = &[];

/// Registry entry.
pub const ENTRY: Entry<dyn UtilityMeasure> = Entry {
    name: NAME,
    summary: "cells the masking changed, record by record, and their share",
    reference: "Hundepool et al. (2012) §2.4 (the number of changed values)",
    params: PARAMS,
    figures: &[
        FigureSpec::new(
            "changed_cells",
            "cells changed",
            Unit::Count,
            "Hundepool et al. (2012)",
        ),
        FigureSpec::new(
            "changed_share",
            "share of cells changed",
            Unit::Proportion,
            "Hundepool et al. (2012)",
        ),
    ],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn UtilityMeasure>> {
    let variables = read_variables(r, NAME, false);
    if !r.ok() {
        return None;
    }
    Some(Box::new(ChangedCells {
        variables: variables?,
    }))
}

impl UtilityMeasure for ChangedCells {
    fn name(&self) -> &'static str {
        NAME
    }

    fn one_to_one(&self) -> bool {
        true
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        if original.nrows() != masked.nrows() {
            return Err(UtilityError::Mismatch(format!(
                "{NAME} compares records one to one: the original has {} records, the masked file {}",
                original.nrows(),
                masked.nrows()
            )));
        }
        let mut per_variable = Vec::new();
        for v in &self.variables {
            let (a, b) = (original.column(v)?, masked.column(v)?);
            let changed = (0..original.nrows()).filter(|&i| a.text(i) != b.text(i)).count();
            per_variable.push((v, changed));
        }
        let changed: usize = per_variable.iter().map(|p| p.1).sum();
        let cells = original.nrows() * self.variables.len();
        let mut r = Report::new("changed cells: values the masking replaced, record by record");
        r.push(Figure::new(
            "changed_cells",
            json!(changed),
            Unit::Count,
            "cells whose value differs between the original and the masked file",
        ));
        r.push(Figure::new(
            "changed_share",
            num(if cells == 0 { 0.0 } else { changed as f64 / cells as f64 }),
            Unit::Proportion,
            "changed cells divided by the cells compared",
        ));
        r.tables.push(ReportTable {
            name: "changed_per_variable".into(),
            title: format!("changed cells per variable ({} records)", original.nrows()),
            header: ["variable", "changed"].map(String::from).to_vec(),
            rows: per_variable.iter().map(|(v, c)| vec![json!(v), json!(c)]).collect(),
        });
        Ok(r)
    }
}
