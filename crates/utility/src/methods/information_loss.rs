//! Generalisation and suppression loss on the key cells (Xu et al. 2006 NCP; Gionis & Tassa
//! 2009 non-uniform entropy; Bayardo & Agrawal 2005 discernibility; LeFevre et al. 2006 AECS):
//! the figures `cell_loss`, `ncp`, `entropy_bits`, `discernibility`, `discernibility_original`,
//! `aecs`, `aecs_original`, the table `columns` (per key variable). It reads the original as it
//! was, before the release's recodings. The computation is [`crate::information_loss()`].

use intruder_table::params::FigureSpec;
use intruder_table::Table;
use intruder_table::params::{Entry, ParamReader, ParamSpec};
use intruder_table::report::{Figure, Report, ReportTable, Unit};
use serde_json::json;

use super::shared::{num, read_variables};
use crate::{UtilityError, UtilityMeasure};

const NAME: &str = "information-loss";

/// Information loss of generalisation, suppression and removal ([`crate::information_loss`]).
#[derive(Debug, Clone, PartialEq)]
pub struct InformationLossMeasure {
    /// The key variables.
    pub(crate) variables: Vec<String>,
}

/// The measure's own parameters (the common ones are [`crate::UTILITY_COMMON`]).
const PARAMS: &[ParamSpec] = &[];

/// Registry entry.
pub const ENTRY: Entry<dyn UtilityMeasure> = Entry {
    name: NAME,
    summary: "generalisation and suppression loss on the key cells: NCP, non-uniform entropy, discernibility, AECS, and a cell loss counting removed records",
    reference: "Xu et al. (2006) NCP; Gionis & Tassa (2009); Bayardo & Agrawal (2005); LeFevre et al. (2006)",
    params: PARAMS,
    figures: &[
        FigureSpec::new(
            "cell_loss",
            "information lost per key cell",
            Unit::Proportion,
            "Xu et al. (2006) NCP; utility information-loss",
        ),
        FigureSpec::new(
            "ncp",
            "NCP of the released key cells",
            Unit::Proportion,
            "Xu et al. (2006)",
        ),
        FigureSpec::new(
            "entropy_bits",
            "non-uniform entropy (bits per key cell)",
            Unit::Score,
            "Gionis & Tassa (2009)",
        )
        .non_negative(),
        FigureSpec::new(
            "discernibility",
            "discernibility (Σ|E|²/n²)",
            Unit::Score,
            "Bayardo & Agrawal (2005)",
        )
        .non_negative(),
        FigureSpec::new(
            "discernibility_original",
            "discernibility of the original values (Σ|E|²/n²)",
            Unit::Score,
            "Bayardo & Agrawal (2005)",
        )
        .non_negative(),
        FigureSpec::new(
            "aecs",
            "average equivalence class size",
            Unit::Score,
            "LeFevre et al. (2006)",
        )
        .non_negative(),
        FigureSpec::new(
            "aecs_original",
            "average equivalence class size of the original values",
            Unit::Score,
            "LeFevre et al. (2006)",
        )
        .non_negative(),
    ],
    build,
};

/// Reads and checks the measure's parameters; `None` when any is wrong.
fn build(r: &mut ParamReader) -> Option<Box<dyn UtilityMeasure>> {
    let variables = read_variables(r, NAME, false);
    if !r.ok() {
        return None;
    }
    Some(Box::new(InformationLossMeasure {
        variables: variables?,
    }))
}

impl UtilityMeasure for InformationLossMeasure {
    fn name(&self) -> &'static str {
        NAME
    }

    fn one_to_one(&self) -> bool {
        true
    }

    fn raw_original(&self) -> bool {
        true
    }

    fn measure(&self, original: &Table, masked: &Table) -> Result<Report, UtilityError> {
        self.measure_rows(original, masked, None)
    }

    fn measure_rows(
        &self,
        original: &Table,
        masked: &Table,
        kept_rows: Option<&[usize]>,
    ) -> Result<Report, UtilityError> {
        let l = crate::information_loss(original, masked, kept_rows, &self.variables)?;
        let mut r = Report::new("information-loss: generalisation, suppression and removal");
        let share = |r: &mut Report, name: &str, v: f64, meaning: &str| {
            r.push(Figure::new(name, num(v), Unit::Proportion, meaning));
        };
        share(
            &mut r,
            "cell_loss",
            l.cell_loss,
            "mean NCP over the key cells of every original record, a removed record's cells counting 1: 0 for an unchanged or relabelled cell, (|G| − 1)/(|D| − 1) or the interval's share of the range for a recoded one, 1 for a suppressed or perturbed one",
        );
        share(
            &mut r,
            "ncp",
            l.ncp,
            "mean normalised certainty penalty over the released records' key cells (Xu et al. 2006)",
        );
        r.push(Figure::new(
            "entropy_bits",
            num(l.entropy_bits),
            Unit::Score,
            "mean non-uniform entropy per released key cell, in bits: −log2 f(x)/f(G(y)) (Gionis & Tassa 2009)",
        ));
        r.push(Figure::new(
            "discernibility",
            num(l.discernibility),
            Unit::Score,
            "Σ|E|²/n² over the released records' classes on the variables, blank as a value (Bayardo & Agrawal 2005)",
        ));
        r.push(Figure::new(
            "discernibility_original",
            num(l.discernibility_original),
            Unit::Score,
            "the same over the released records' original values",
        ));
        r.push(Figure::new(
            "aecs",
            num(l.aecs),
            Unit::Score,
            "average equivalence class size: released records / classes (LeFevre et al. 2006)",
        ));
        r.push(Figure::new(
            "aecs_original",
            num(l.aecs_original),
            Unit::Score,
            "the same for the released records' original values",
        ));
        r.tables.push(ReportTable {
            name: "columns".into(),
            title: "per key variable (cells of released records observed in the original)".into(),
            header: [
                "variable",
                "kind",
                "cells",
                "generalised",
                "suppressed",
                "perturbed",
                "ncp",
                "entropy_bits",
            ]
            .map(String::from)
            .to_vec(),
            rows: l
                .columns
                .iter()
                .map(|c| {
                    vec![
                        json!(c.column),
                        json!(c.kind),
                        json!(c.cells),
                        json!(c.generalised),
                        json!(c.suppressed),
                        json!(c.perturbed),
                        num(c.ncp),
                        num(c.entropy_bits),
                    ]
                })
                .collect(),
        });
        Ok(r)
    }
}
