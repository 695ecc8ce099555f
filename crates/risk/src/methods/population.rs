//! Population uniques estimated from the sample: Zayatz, Pitman, SNB, Dankar et al.'s rule and
//! Skinner & Holmes' log-linear τ₁ and τ₂ (Zayatz 1991; Hoshino 2001; Chen & Keller-McNulty 1998;
//! Dankar et al. 2012; Skinner & Holmes 1998; sdcMicro's `modRisk`; ARX).

use intruder_table::report::Unit;
use intruder_table::params::FigureSpec;
use intruder_table::params::{ColumnNeed, Entry, ParamKind, ParamReader, ParamSpec, Range};
use intruder_table::report::Records;
use intruder_table::{Role, Table};

use crate::methods::figures;
use crate::error::RiskError;
use crate::keys::MissingPolicy;
use crate::methods::shared::{checked, needs_classes, read_common};
use crate::population::{LogLinearModel, PopulationParams, population_uniqueness};
use crate::{RiskMeasure, RiskOutcome};

const NAME: &str = "population";

/// The population size N.
const POPULATION_SIZE: ParamSpec = ParamSpec::new(
    "population_size",
    ParamKind::Number,
    "population size N: the sampling fraction π = n/N",
)
.within(Range::POSITIVE);

/// The measure's own parameters (the common ones are [`crate::RISK_COMMON`]).
const PARAMS: &[ParamSpec] = &[
    POPULATION_SIZE,
    ParamSpec::new(
        "sampling_fraction",
        ParamKind::Number,
        "the sampling fraction π, given directly (instead of population_size)",
    )
    .within(Range::left_open(0.0, 1.0)),
    ParamSpec::new(
        "weight",
        ParamKind::Column,
        "sampling-weight column: π = n / Σw when neither population_size nor sampling_fraction is given; each record's 1/w in sdcMicro's τ. Weights below 1, and a total more than 10% away from a given population_size, are warned about",
    )
    .from_role(Role::Weight)
    .needs(ColumnNeed::Numeric),
    ParamSpec::new(
        "loglinear",
        ParamKind::Choice(&["main-effects", "two-way"]),
        "log-linear model of the cell means for Skinner & Holmes' τ: main effects (closed form) or all two-way interactions (IPF)",
    )
    .default_value("main-effects"),
    ParamSpec::new(
        "max_cells",
        ParamKind::Number,
        "largest grid (product of the keys' observed categories) the two-way model may fit",
    )
    .default_value("4000000")
    .within(Range::POSITIVE),
];

/// Registry entry.
pub const ENTRY: Entry<dyn RiskMeasure> = Entry {
    name: NAME,
    summary: "population uniques estimated from the sample: Zayatz, Pitman, SNB, Dankar et al.'s rule, log-linear τ₁ and τ₂",
    reference: "Zayatz (1991); Hoshino (2001); Chen & Keller-McNulty (1998); Dankar et al. (2012); Skinner & Holmes (1998); sdcMicro modRisk; ARX",
    params: PARAMS,
    figures: intruder_table::figure_list![
        figures::N_TOTAL,
        figures::N_DELETED,
        figures::N,
        figures::CLASSES,
        figures::SAMPLE_UNIQUES,
        FigureSpec::new("sampling_fraction", "sampling fraction π", Unit::Proportion, "docs/METHODS.md §1.3"),
        FigureSpec::new("population_size", "population size N", Unit::Score, "docs/METHODS.md §1.3")
            .non_negative(),
        FigureSpec::new("sample_pairs", "sample classes of size 2 (n₂)", Unit::Count, "docs/METHODS.md §1.3"),
        FigureSpec::new("zayatz", "population uniques (Zayatz)", Unit::Score, "Zayatz (1991)")
            .non_negative(),
        FigureSpec::new("pitman", "population uniques (Pitman)", Unit::Score, "Hoshino (2001)")
            .non_negative(),
        FigureSpec::new(
            "snb",
            "population uniques (slide negative binomial)",
            Unit::Score,
            "Chen & Keller-McNulty (1998)",
        )
        .non_negative(),
        FigureSpec::new(
            "rule_estimate",
            "population uniques (rule)",
            Unit::Score,
            "Dankar et al. (2012); docs/METHODS.md §1.3",
        )
        .non_negative(),
        FigureSpec::new("tau1", "population uniques τ₁", Unit::Score, "Skinner & Holmes (1998)")
            .non_negative(),
        FigureSpec::new(
            "tau2",
            "correct matches of sample uniques τ₂",
            Unit::Score,
            "Skinner & Holmes (1998)",
        )
        .non_negative(),
        FigureSpec::new("sdcmicro_gr1", "τ₁ as sdcMicro's modRisk", Unit::Score, "sdcMicro modRisk")
            .non_negative(),
        FigureSpec::new("sdcmicro_gr2", "τ₂ as sdcMicro's modRisk", Unit::Score, "sdcMicro modRisk")
            .non_negative(),
    ],
    build,
};

/// Population uniqueness estimated from the sample ([`population_uniqueness`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Population {
    /// The checked parameters.
    pub(crate) params: PopulationParams,
}

/// Reads and checks the parameters of the population measure; `None` when `r` recorded a problem.
fn build(r: &mut ParamReader) -> Option<Box<dyn RiskMeasure>> {
    let c = read_common(r);
    let population_size = r.get::<f64>("population_size");
    let sampling_fraction = r.get::<f64>("sampling_fraction");
    let weight = r.get::<String>("weight");
    let loglinear = r.choice::<LogLinearModel>("loglinear");
    let max_cells = r.get::<f64>("max_cells");
    if r.has("population_size") && r.has("sampling_fraction") {
        r.problem(
            "sampling_fraction",
            "give population_size or sampling_fraction, not both",
        );
    }
    if !r.has("population_size") && !r.has("sampling_fraction") && !r.has("weight") {
        r.table_problem(
            "the estimators need the sampling fraction: give population_size (--population-size N), sampling_fraction (--sampling-fraction F) or a weight column (--weight COL)",
        );
    }
    needs_classes(r, &c, "the population estimators");
    let mut p = PopulationParams::new(c.keys?);
    p.missing = c.missing;
    p.set_match = c.set_match;
    p.population_size = population_size;
    p.sampling_fraction = sampling_fraction;
    p.weight = weight;
    if let Some(m) = loglinear {
        p.log_linear = m;
    }
    if let Some(m) = max_cells {
        p.max_cells = m;
    }
    checked(r, p, PopulationParams::check)
        .map(|params| Box::new(Population { params }) as Box<dyn RiskMeasure>)
}

impl RiskMeasure for Population {
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
        let pr = population_uniqueness(table, &self.params)?;
        Ok(RiskOutcome {
            report: pr.report(),
            records: if per_record {
                pr.records()
            } else {
                Records::default()
            },
            warnings: pr
                .warnings
                .iter()
                .cloned()
                .chain(crate::assess::empty_column_warnings(
                    table,
                    &self.params.keys,
                    None,
                ))
                .collect(),
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
        let p = PopulationParams::new(vec![]);
        assert_eq!(default_of(PARAMS, "loglinear"), p.log_linear.as_str());
        let m: f64 = default_of(PARAMS, "max_cells").parse().unwrap();
        assert_eq!(m, p.max_cells);
    }
}
