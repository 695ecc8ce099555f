//! The generators, one module each: its parameters (`PARAMS`), its registry entry `ENTRY`
//! (name, summary, reference, parameters, and the builder that reads them into the configured
//! generator implementing [`crate::Generator`]), and the files it writes. [`GENERATORS`] below
//! is the registry: one line per generator, which also declares its module.

mod names;

intruder_data::registry! {
    /// Every generator, in the order of `intruder synth --list`.
    pub static GENERATORS: dyn crate::Generator = {
        mod survey_panel,
        mod household_panel,
        mod register_survey,
        mod census,
        mod linkage_pair,
    }
}
