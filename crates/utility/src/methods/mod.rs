//! The utility measures, one module each: its parameters (`PARAMS`), its configured measure
//! (public fields, read and validated by its registry entry `ENTRY`) implementing
//! [`crate::UtilityMeasure`], and the report it writes. [`UTILITY_MEASURES`] below is the
//! registry: one line per measure, which also declares its module. What several share is in
//! [`shared`].

pub(crate) mod shared;

intruder_table::registry! {
    /// Every utility measure, in the order of `intruder utility --list` and of its default
    /// output.
    pub static UTILITY_MEASURES: dyn crate::UtilityMeasure = {
        mod moments,
        mod correlations,
        mod il1s,
        mod pmse,
        mod information_loss,
        mod ci_overlap,
        #[cfg(feature = "fixture-methods")] mod fixture_changed_cells,
    }
}
