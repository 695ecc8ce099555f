//! The attack registry, [`ATTACKS`]: one line per attack. A new attack is one module here,
//! `src/methods/<name>.rs` exporting its `ENTRY`, declared by its line (`mod <name>,`); the
//! first attacks live at the crate's root (`exact.rs`, `nearest.rs`, `kmeans.rs`, `link.rs`,
//! `fellegi_sunter/`) and are named by path.

intruder_table::registry! {
    /// Every attack, in the order `--list` shows them: one line per attack, each module's
    /// `ENTRY`.
    pub static ATTACKS: dyn crate::Attack = {
        crate::exact::ENTRY,
        crate::nearest::ENTRY,
        crate::kmeans::ENTRY,
        crate::link::ENTRY,
        crate::fellegi_sunter::ENTRY,
        #[cfg(feature = "fixture-methods")] mod fixture_agreement,
    }
}
