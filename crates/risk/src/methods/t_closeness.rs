//! t-closeness: the Earth Mover's Distance between each key class's distribution of a sensitive
//! variable and the file's, under an equal or ordered ground distance (Li, Li & Venkatasubramanian
//! 2007; ARX).

use intruder_table::report::Unit;
use intruder_table::params::FigureSpec;
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec, Range};
use intruder_table::report::Records;
use intruder_table::{Role, Table};

use crate::methods::figures;
use crate::closeness::{GroundDistance, TClosenessParams, t_closeness};
use crate::error::RiskError;
use crate::keys::MissingPolicy;
use crate::methods::shared::{checked, needs_classes, read_common};
use crate::{RiskMeasure, RiskOutcome};

const NAME: &str = "t-closeness";

/// The measure's own parameters (the common ones are [`crate::RISK_COMMON`]).
const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "sensitive",
        ParamKind::Column,
        "sensitive column: the EMD between its distribution in each class and in the file",
    )
    .required()
    .from_role(Role::Sensitive),
    ParamSpec::new(
        "distance",
        ParamKind::Choice(&["auto", "equal", "ordered"]),
        "ground distance: equal (unordered categories, EMD = ½ Σ|p_i − q_i|), ordered (numbers, or categories in their level order, over the m distinct values: EMD = 1/(m − 1) Σ_i |Σ_{j≤i}(p_j − q_j)|), auto (ordered for integer and float columns, equal otherwise)",
    )
    .default_value("auto"),
    ParamSpec::new(
        "t",
        ParamKind::Number,
        "threshold t: count the classes (and their records) whose EMD exceeds t, i.e. are not t-close; per record above_t",
    )
    .within(Range::closed(0.0, 1.0)),
];

/// Who defines t-closeness and its earth mover's distance.
const LI: &str = "Li, Li & Venkatasubramanian (2007)";

/// Registry entry.
pub const ENTRY: Entry<dyn RiskMeasure> = Entry {
    name: NAME,
    summary: "t-closeness: Earth Mover's Distance between each key class's distribution of a sensitive variable and the file's (equal or ordered ground distance)",
    reference: "Li, Li & Venkatasubramanian (2007); ARX",
    params: PARAMS,
    figures: intruder_table::figure_list![
        figures::N_TOTAL,
        figures::N_DELETED,
        figures::N,
        figures::CLASSES,
        FigureSpec::new("sensitive_values", "distinct sensitive values (m)", Unit::Count, LI),
        FigureSpec::new(
            "n_sensitive",
            "records with an observed sensitive value",
            Unit::Count,
            LI,
        ),
        FigureSpec::new("t_max", "the file's t (largest EMD)", Unit::Score, LI).non_negative(),
        FigureSpec::new("emd_mean", "mean EMD per record", Unit::Score, LI).non_negative(),
        FigureSpec::new(
            "classes_without_sensitive",
            "classes with no sensitive value observed",
            Unit::Count,
            LI,
        ),
        FigureSpec::new("t", "threshold t", Unit::Score, LI).non_negative(),
        FigureSpec::new("classes_above_t", "classes not t-close (a count of classes)", Unit::Count, LI),
        FigureSpec::new("records_above_t", "records in classes not t-close", Unit::Count, LI),
    ],
    build,
};

/// t-closeness of a sensitive variable within the key classes ([`t_closeness`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TClosenessMeasure {
    /// The checked parameters.
    pub(crate) params: TClosenessParams,
}

/// Reads and checks the parameters of the t-closeness measure; `None` when `r` recorded a problem.
fn build(r: &mut ParamReader) -> Option<Box<dyn RiskMeasure>> {
    let c = read_common(r);
    let sensitive = r.require::<String>("sensitive");
    let distance = r.choice::<GroundDistance>("distance");
    let t = r.get::<f64>("t");
    needs_classes(r, &c, "t-closeness");
    let mut p = TClosenessParams::new(c.keys?, sensitive?);
    p.missing = c.missing;
    p.set_match = c.set_match;
    if let Some(d) = distance {
        p.distance = d;
    }
    p.t = t;
    checked(r, p, TClosenessParams::check)
        .map(|params| Box::new(TClosenessMeasure { params }) as Box<dyn RiskMeasure>)
}

impl RiskMeasure for TClosenessMeasure {
    fn name(&self) -> &'static str {
        NAME
    }
    fn keys(&self) -> &[String] {
        &self.params.keys
    }
    fn policy(&self) -> MissingPolicy {
        self.params.missing
    }
    fn headline(&self) -> &'static str {
        "t_max"
    }
    fn assess(&self, table: &Table, per_record: bool) -> Result<RiskOutcome, RiskError> {
        let tc = t_closeness(table, &self.params)?;
        Ok(RiskOutcome {
            report: tc.report(),
            records: if per_record {
                tc.records()?
            } else {
                Records::default()
            },
            warnings: crate::assess::empty_column_warnings(
                table,
                &self.params.keys,
                Some(&self.params.sensitive),
            ),
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
        let tc = TClosenessParams::new(vec![], "s");
        assert_eq!(default_of(PARAMS, "distance"), tc.distance.as_str());
    }
}
