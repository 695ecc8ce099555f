//! The utility measures, one module each: its parameters (`PARAMS`), its configured measure
//! (public fields, read and validated by its registry entry `ENTRY`) implementing
//! [`crate::UtilityMeasure`], and the report it writes. What several share is in [`shared`].

pub mod ci_overlap;
pub mod correlations;
pub mod il1s;
pub mod information_loss;
pub mod moments;
pub mod pmse;
pub(crate) mod shared;
