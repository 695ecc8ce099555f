//! SUDA2 special uniques: minimal sample uniques, SUDA and DIS-SUDA scores, key and category
//! contributions (Elliot, Manning & Ford 2002; Manning, Haglin & Keane 2008; sdcMicro's `suda2`).

use intruder_table::report::Unit;
use intruder_table::params::FigureSpec;
use intruder_table::Table;
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec, Range};
use intruder_table::report::Records;

use crate::methods::figures;
use crate::error::RiskError;
use crate::keys::MissingPolicy;
use crate::methods::shared::{checked, needs_classes, read_common};
use crate::suda::{Suda2Params, suda2};
use crate::{RiskMeasure, RiskOutcome};

const NAME: &str = "suda2";

/// The measure's own parameters (the common ones are [`crate::RISK_COMMON`]).
const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "max_msu_size",
        ParamKind::Integer,
        "largest MSU size searched (default: every size, as sdcMicro)",
    )
    .within(Range::at_least(1.0)),
    ParamSpec::new(
        "dis_fraction",
        ParamKind::Number,
        "sampling fraction f of the DIS probability (sdcMicro's DisFraction)",
    )
    .default_value("0.01")
    .within(Range::OPEN_UNIT),
    ParamSpec::new(
        "cost_limit",
        ParamKind::Number,
        "refuse searches whose worst case (records × key subsets) exceeds this many steps",
    )
    .default_value("2e11")
    .within(Range::POSITIVE)
    .flag_alias(&["suda-cost-limit"]),
    ParamSpec::new(
        "drop_msus_with_missing",
        ParamKind::Bool,
        "sdcMicro's suda2 rule for missing keys (needs missing = as-value): a record's MSUs are its as-value MSUs minus those containing a key it is missing; U and P (for DIS) are counted with missing as a value",
    )
    .default_value("false"),
];

/// Who defines SUDA and DIS-SUDA.
const SUDA: &str = "Elliot et al. (2002); sdcMicro suda2";

/// Registry entry.
pub const ENTRY: Entry<dyn RiskMeasure> = Entry {
    name: NAME,
    summary: "SUDA2 minimal sample uniques, SUDA and DIS-SUDA scores, key and category contributions",
    reference: "Elliot, Manning & Ford (2002); Manning, Haglin & Keane (2008); sdcMicro suda2",
    params: PARAMS,
    figures: intruder_table::figure_list![
        figures::N_TOTAL,
        figures::N_DELETED,
        figures::SAMPLE_UNIQUES,
        FigureSpec::new("max_msu_size", "largest MSU size searched", Unit::Count, SUDA),
        FigureSpec::new("pair_records", "records in classes of size 2 (P)", Unit::Count, SUDA),
        FigureSpec::new("msus", "minimal sample uniques (MSUs) found", Unit::Count, SUDA),
        FigureSpec::new("records_with_score", "records with an MSU", Unit::Count, SUDA),
        FigureSpec::new("score_max", "largest SUDA score", Unit::Score, SUDA).non_negative(),
        FigureSpec::new("score_mean", "mean SUDA score", Unit::Score, SUDA).non_negative(),
        FigureSpec::new("dis_fraction", "DIS sampling fraction f", Unit::Proportion, SUDA),
        FigureSpec::new("dis", "DIS probability", Unit::Proportion, SUDA),
        FigureSpec::new("dis_score_max", "largest DIS-SUDA score", Unit::Score, SUDA)
            .non_negative(),
    ],
    build,
};

/// SUDA2 special uniques ([`suda2`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Suda2Measure {
    /// The checked parameters.
    pub(crate) params: Suda2Params,
}

/// Reads and checks the parameters of the SUDA2 measure; `None` when `r` recorded a problem.
fn build(r: &mut ParamReader) -> Option<Box<dyn RiskMeasure>> {
    let c = read_common(r);
    let max_msu_size = r.get::<usize>("max_msu_size");
    let dis_fraction = r.get::<f64>("dis_fraction");
    let cost_limit = r.get::<f64>("cost_limit");
    let drop_msus_with_missing = r.get::<bool>("drop_msus_with_missing");
    needs_classes(r, &c, "SUDA2");
    if drop_msus_with_missing == Some(true) && c.missing != MissingPolicy::AsValue {
        r.problem(
            "drop_msus_with_missing",
            format!(
                "sdcMicro's rule counts uniques and pairs with missing as a value: it needs missing = \"as-value\", not \"{}\"",
                c.missing.as_str()
            ),
        );
    }
    let mut p = Suda2Params::new(c.keys?);
    p.missing = c.missing;
    p.set_match = c.set_match;
    p.max_msu_size = max_msu_size;
    if let Some(f) = dis_fraction {
        p.dis_fraction = f;
    }
    if let Some(l) = cost_limit {
        p.cost_limit = l;
    }
    if let Some(d) = drop_msus_with_missing {
        p.drop_msus_with_missing = d;
    }
    checked(r, p, Suda2Params::check)
        .map(|params| Box::new(Suda2Measure { params }) as Box<dyn RiskMeasure>)
}

impl RiskMeasure for Suda2Measure {
    fn name(&self) -> &'static str {
        NAME
    }
    fn keys(&self) -> &[String] {
        &self.params.keys
    }
    fn policy(&self) -> MissingPolicy {
        self.params.missing
    }
    fn assess(&self, table: &Table, per_record: bool) -> Result<RiskOutcome, RiskError> {
        let s = suda2(table, &self.params)?;
        Ok(RiskOutcome {
            report: s.report(),
            records: if per_record {
                s.records()
            } else {
                Records::default()
            },
            warnings: crate::assess::empty_column_warnings(table, &self.params.keys, None),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::shared::default_of;

    /// The defaults the docs show are the library's defaults.
    #[test]
    fn documented_defaults_are_the_library_defaults() {
        let s = Suda2Params::new(vec![]);
        let d: f64 = default_of(PARAMS, "dis_fraction").parse().unwrap();
        assert_eq!(d, s.dis_fraction);
        let c: f64 = default_of(PARAMS, "cost_limit").parse().unwrap();
        assert_eq!(c, s.cost_limit);
        let d: bool = default_of(PARAMS, "drop_msus_with_missing")
            .parse()
            .unwrap();
        assert_eq!(d, s.drop_msus_with_missing);
    }
}
