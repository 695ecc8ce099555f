//! ℓ-diversity of a sensitive variable within the key classes: distinct and entropy ℓ, the classes
//! whose records share one sensitive value, and recursive (c, ℓ)-diversity (Machanavajjhala et al.
//! 2007; sdcMicro's `ldiversity`).

use serde_json::json;

use intruder_table::params::FigureSpec;
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec, Range};
use intruder_table::report::{Figure, RecordValues, Records, Report, Unit};
use intruder_table::{Table, Timings};

use crate::methods::figures;
use crate::assess::{RiskParams, assess_timed};
use crate::error::RiskError;
use crate::keys::MissingPolicy;
use crate::methods::shared::{
    SENSITIVE, checked, keep_figures, needs_classes, read_common, risk_params,
};
use crate::{RiskMeasure, RiskOutcome};

const NAME: &str = "l-diversity";

/// The measure's own parameters (the common ones are [`crate::RISK_COMMON`]).
const PARAMS: &[ParamSpec] = &[
    SENSITIVE.required(),
    ParamSpec::new(
        "recursive_c",
        ParamKind::Number,
        "c of recursive (c, ℓ)-diversity (Machanavajjhala et al. 2007, Def. 4.1: r_1 < c·(r_ℓ + … + r_m)); with recursive_l, per record recursive_cl_diverse (1/0). sdcMicro's ldiversity has no recursive variant",
    )
    .within(Range::POSITIVE),
    ParamSpec::new(
        "recursive_l",
        ParamKind::Integer,
        "ℓ of recursive (c, ℓ)-diversity (with recursive_c)",
    )
    .within(Range::at_least(1.0)),
];

/// Registry entry.
pub const ENTRY: Entry<dyn RiskMeasure> = Entry {
    name: NAME,
    summary: "distinct and entropy ℓ-diversity of a sensitive variable within the key classes",
    reference: "Machanavajjhala et al. (2007); sdcMicro ldiversity",
    params: PARAMS,
    figures: intruder_table::figure_list![
        figures::N_TOTAL,
        figures::N_DELETED,
        figures::N,
        figures::CLASSES,
        FigureSpec::new(
            "classes_l_distinct_1",
            "classes with one sensitive value (a count of classes)",
            Unit::Count,
            "Machanavajjhala et al. (2007)",
        ),
        FigureSpec::new(
            "records_l_distinct_1",
            "records whose keys disclose their sensitive value",
            Unit::Count,
            "Machanavajjhala et al. (2007)",
        );
        figures::DIVERSITY_MIN,
    ],
    build,
};

/// ℓ-diversity of a sensitive variable within the key classes.
#[derive(Debug, Clone, PartialEq)]
pub struct LDiversity {
    /// The checked parameters (`sensitive` is set).
    pub(crate) params: RiskParams,
}

/// Reads and checks the parameters of the ℓ-diversity measure; `None` when `r` recorded a problem.
fn build(r: &mut ParamReader) -> Option<Box<dyn RiskMeasure>> {
    let c = read_common(r);
    let sensitive = r.require::<String>("sensitive");
    let rc = r.get::<f64>("recursive_c");
    let rl = r.get::<u32>("recursive_l");
    if r.has("recursive_c") != r.has("recursive_l") {
        let missing = if r.has("recursive_c") {
            "recursive_l"
        } else {
            "recursive_c"
        };
        r.problem(
            missing,
            "recursive (c, ℓ)-diversity needs both recursive_c and recursive_l",
        );
    }
    needs_classes(r, &c, "ℓ-diversity");
    let mut p = risk_params(c)?;
    p.recursive_cl = rc.zip(rl);
    p.sensitive = Some(sensitive?);
    checked(r, p, RiskParams::check)
        .map(|params| Box::new(LDiversity { params }) as Box<dyn RiskMeasure>)
}

impl RiskMeasure for LDiversity {
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
        "l_distinct_min"
    }
    fn assess(&self, table: &Table, per_record: bool) -> Result<RiskOutcome, RiskError> {
        self.assess_timed(table, per_record, &mut Timings::new())
    }
    fn assess_timed(
        &self,
        table: &Table,
        per_record: bool,
        timings: &mut Timings,
    ) -> Result<RiskOutcome, RiskError> {
        let a = assess_timed(table, &self.params, timings)?;
        let warnings = a.warnings.clone();
        let mut report = Report::new("ℓ-diversity");
        report.figures = keep_figures(
            &a,
            &["policy", "keys", "n_total", "n_deleted", "n", "classes"],
        );
        report.push(Figure::new(
            "sensitive",
            json!(self.params.sensitive),
            Unit::Label,
            "the sensitive column",
        ));
        let d = a.summary.diversity.as_ref();
        report.push(Figure::new(
            "l_distinct_min",
            json!(d.map(|d| d.l_distinct_min)),
            Unit::Count,
            "fewest distinct sensitive values in a class",
        ));
        report.push(Figure::new(
            "l_entropy_min",
            json!(d.map(|d| d.l_entropy_min)),
            Unit::Score,
            "smallest entropy ℓ (exp of entropy) of a class",
        ));
        report.push(Figure::new(
            "classes_l_distinct_1",
            json!(d.map(|d| d.classes_l1)),
            Unit::Count,
            "classes whose records all share one sensitive value (attribute disclosure)",
        ));
        report.push(Figure::new(
            "records_l_distinct_1",
            json!(d.map(|d| d.records_l1)),
            Unit::Count,
            "records in those classes: their keys disclose the sensitive value",
        ));
        let records = if per_record {
            let r = a.records;
            let mut out = Records::new(r.k.len());
            for (name, values) in [
                ("k", RecordValues::from(r.k)),
                ("l_distinct", r.l_distinct.unwrap_or_default().into()),
                ("l_entropy", r.l_entropy.unwrap_or_default().into()),
            ] {
                out.push(name, values).map_err(RiskError::Param)?;
            }
            if let Some(rc) = r.recursive_cl {
                out.push("recursive_cl_diverse", RecordValues::from(rc))
                    .map_err(RiskError::Param)?;
            }
            out
        } else {
            Records::default()
        };
        Ok(RiskOutcome {
            report,
            records,
            warnings,
        })
    }
}
