//! The risk measures, one module each: its parameters (`PARAMS`), its [`crate::RiskMeasure`]
//! adapter, the function building that adapter from a [`intruder_data::params::ParamReader`]
//! and its registry entry `ENTRY`, listed once in [`crate::RISK_MEASURES`]. What several
//! measures share is in `shared`.

pub mod frequency;
pub mod household;
pub mod individual;
pub mod l_diversity;
pub mod population;
pub(crate) mod shared;
pub mod suda2;
pub mod t_closeness;
