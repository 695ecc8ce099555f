//! The risk measures, one module each: its parameters (`PARAMS`), its [`crate::RiskMeasure`]
//! adapter, the function building that adapter from a [`intruder_data::params::ParamReader`]
//! and its registry entry `ENTRY`. [`RISK_MEASURES`] below is the registry: one line per
//! measure, which also declares its module. What several measures share is in `shared`.

pub(crate) mod figures;
pub(crate) mod shared;

intruder_table::registry! {
    /// Every risk measure, in the order `--list` and the docs show them.
    pub static RISK_MEASURES: dyn crate::RiskMeasure = {
        mod frequency,
        mod individual,
        mod household,
        mod l_diversity,
        mod t_closeness,
        mod suda2,
        mod population,
        #[cfg(feature = "fixture-methods")] mod fixture_key_space,
    }
}
