//! The longitudinal inter-wave attack on linked household panels and its two defences,
//! propensity-score swapping and CART synthesis (Mitra, Blanchard, Dove, Tudor & Spicer,
//! *Confidentiality challenges in releasing longitudinally linked data*, 2020; docs/METHODS.md §2.6
//! and §3).
//!
//! | step | module | paper |
//! |---|---|---|
//! | link waves `1..T`, find split households (indicator or repeated links), report exclusions | [`panel`] | §3 |
//! | the attack: follow the link, or exact-match `x_i` in wave `T`; `c_i`, `1/c_i`, `p_i`, `A`, `r_i` | [`attack`] | §3.1, eqs. 1, 3 |
//! | propensity scores by logistic regression (`linfa-logistic`), nearest matching without replacement | [`propensity`] | §4.1, eq. 2 |
//! | CART leaves (`smartcore` regression tree) | [`cart`] | §4.2; Reiter 2005 |
//! | swapping, synthesis and mixtures of split households' `y^(T)` | [`protect`] | §4, §5 |
//! | inheritance model: CI overlap on original vs altered | [`utility`] | §5.3, Fig. 7 |
//! | the whole study (Figs. 4–6, Table 1, utility) | [`study`] | §5 |
//! | waves read from files with their schemas; per-record and altered last-wave files written | [`files`] | |
//! | the steps of `intruder panel`: an intruder, one alteration scored before and after | [`workflow`] | |
//! | the results as `intruder_data::report::Report`s (figures with unit and meaning, tables) | [`reports`] | |
//!
//! # Design
//! - Matching and scoring are not re-implemented: the intruder's knowledge becomes a
//!   [`intruder_data::Table`] (one row per split household: its keys as known from the waves
//!   named, or its wave-`T−1` link) and `intruder_attack::ExactMatch` / `FollowLink` link it to
//!   wave `T`; `intruder_eval::evaluate` scores it against the ground truth (which target is
//!   which wave-`T` record, and its original `y^(T)`), which the attack never sees.
//! - The candidate sets depend only on the keys, which no defence here alters, so an attack is
//!   linked once ([`PreparedAttack`]) and re-scored for every altered `y^(T)`.
//! - The defences need the waves and the split indicator, so they are not single-table
//!   `intruder_defence::Defence` steps. They could be expressed as such over a *joined* table
//!   (wave `T` with the needed wave-`1..T−1` columns appended and the split indicator as a
//!   group column, `r_i` as a column): swapping would then be "swap `y` between rows of group 1
//!   and their nearest-propensity partners", synthesis "replace `y` of group-1 rows by a draw
//!   from their CART leaf". The waves are kept apart here so that exclusions and several splits
//!   per household are handled once, in [`Panel`].
//!
//! # Example (worked example E, docs/METHODS.md §2.1–2.2)
//! ```
//! use intruder_data::{read_csv_from, ReadOptions};
//! use intruder_longitudinal::{Mode, Panel, PanelSpec, Pool, PreparedAttack, Scenario};
//! let w1 = "hh,area,bedrooms,wealth\nA,2,5,14000\nB,1,3,1\nC,2,5,1\nD,3,5,1\nE,3,2,1\nF,2,4,1\nG,2,4,1\nH,2,5,1\nI,1,6,1\n";
//! let w2 = "hh,split,area,bedrooms,wealth\nA,1,2,5,15000\nB,1,1,3,12200\nC,1,2,5,14800\nD,1,3,5,18600\nE,1,3,2,12100\nF,1,2,4,16800\nG,1,2,4,18000\nH,1,2,5,12500\nI,1,1,6,25000\n";
//! let o = ReadOptions::default();
//! let waves = vec![
//!     read_csv_from(w1.as_bytes(), "w1.csv".as_ref(), &o).unwrap(),
//!     read_csv_from(w2.as_bytes(), "w2.csv".as_ref(), &o).unwrap(),
//! ];
//! let spec = PanelSpec { link: "hh".into(), released_link: None, split: Some("split".into()),
//!     sensitive: "wealth".into(), nonunique: Default::default(), strict: false };
//! let panel = Panel::new(waves, spec).unwrap();
//! let s = Scenario::parse("E", "area@1,bedrooms@1").unwrap();
//! let attack = PreparedAttack::new(&panel, &s, Mode::Match, Pool::Split).unwrap();
//! let report = attack.score(&panel.sensitive_last(), 0.05).unwrap();
//! let a = &report.records[0]; // household A
//! assert_eq!(a.c, 3);
//! assert!((a.p - 2.0 / 3.0).abs() < 1e-12);
//! assert!((a.r.unwrap() - 0.06).abs() < 1e-12);
//! ```
#![deny(missing_docs)]

pub mod attack;
pub mod cart;
mod design;
mod error;
pub mod files;
pub mod panel;
pub mod propensity;
pub mod protect;
pub mod reports;
pub mod study;
pub mod utility;
pub mod workflow;

pub use attack::{AttackReport, KnownKey, Mode, Pool, PreparedAttack, Scenario, TargetResult};
pub use cart::LeafTree;
pub use design::Transform;
pub use error::PanelError;
pub use files::{DEFAULT_RELEASED_LINK, PanelFiles, WaveFile, WaveInput};
pub use panel::{Exclusion, ExclusionReason, NonUnique, Panel, PanelSpec, PanelSummary};
pub use propensity::{nearest_partners, nearest_partners_naive, propensity};
pub use protect::{
    Donors, Models, PartnerScore, ProtectParams, Protected, Selection, protect, targeted_order,
};
pub use study::{StudyParams, StudyResult, StudyRow, StudyUtility, run_study};
pub use utility::{InheritanceModel, deciles, inheritance_overlap};
pub use workflow::{
    AlterMethod, Alteration, AlterationSpec, Intruder, alter, check_tolerance, parse_seeds,
};
