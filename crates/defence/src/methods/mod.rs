//! The masking methods, one module each; each exposes its parameter type (public fields, read
//! and validated by its registry entry `ENTRY`) implementing [`crate::Defence`].
//! [`DEFENCES`] below is the registry: one line per method, which also declares its module.

intruder_table::registry! {
    /// Every defence, in the order of `intruder mask --list`. Build one with
    /// [`Entry::configure`](intruder_data::params::Entry::configure), or a sequence with
    /// [`Pipeline`](crate::Pipeline).
    pub static DEFENCES: dyn crate::Defence = {
        mod recode,
        mod topcode,
        mod round,
        mod suppress,
        suppress::RISK_ENTRY,
        mod generalise,
        mod remove,
        mod noise,
        mod mdav,
        mod rankswap,
        mod pram,
        mod record_swap,
        mod subsample,
        mod marginals,
        mod privbayes,
        #[cfg(feature = "fixture-methods")] mod fixture_shift,
    }
}
