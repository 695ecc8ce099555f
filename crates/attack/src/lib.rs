//! Attacks on masked microdata, and the one evaluator that scores them against ground truth.
//!
//! An *intruder* holds a file of identified records and links it to a *released* (masked) file
//! over key variables. Every attack here returns, for each intruder record, released candidates
//! ranked by score (higher is better; ties share a rank), a [`Linkage`]. One [`evaluate()`]
//! function — the only code of the toolkit that reads the ground truth — turns a linkage into the
//! figures of METHODS.md §2: correct-match rate, Mitra's expected identifications `Σ 1/c_i`,
//! uniques, ranks, precision/recall, and attribute disclosure `A`.
//!
//! # Attacks
//! | name | method | source |
//! |---|---|---|
//! | `exact` | [`ExactMatch`]: records equal on every key; missing listwise / as-value / wildcard; sets by overlap | Mitra et al. §3.1; Dalenius 1986; Mulder |
//! | `nearest` | [`Nearest`]: Euclidean (raw, z-scored, weighted) or Gower distance, strings via `strsim`; optional one-to-one (Hungarian) | Bender et al. 2001; sdcMicro `recordLinkage` |
//! | `kmeans` | [`KMeansAttack`]: every intruder record a centre, released records assigned to the nearest; or `k` true clusters | Bender et al. 2001 |
//! | `link` | [`FollowLink`]: follow a released link id ("links released") | Mitra et al. §3 |
//!
//! The table is [`ATTACKS`], which the CLI and the docs read; adding an attack (e.g.
//! Fellegi–Sunter) is one module implementing [`Attack`] and one line in [`ATTACKS`].
//!
//! # The ground truth cannot reach an attack
//! [`Attack::link`] takes two [`Table`]s and a [`KeyMap`]. A `Table` cannot hold a column with
//! role truth (`Table::new` rejects it; loading puts such columns in a separate
//! [`intruder_data::Truth`]), and no function of this crate other than [`evaluate()`] takes a
//! `Truth`. So an attack is unable, by its signature, to see who is who; a test checks that a
//! truth column loaded from a file is absent from the tables an attack receives.
//!
//! # Command line
//! `intruder attack --intruder I.csv --released R.csv --keys a,b,c [--key-map a=x,...]
//! --method exact|nearest|kmeans|link [--truth COL | --truth-intruder COL --truth-released COL]
//! [--sensitive COL --sensitive-truth COL --tolerance 0.05] [--weights a=10,...] [--standardize]
//! [--metric euclidean|gower] [--string-metric jaro-winkler|levenshtein] [--one-to-one]
//! [--clusters K] [--top-k 5] [--twins-only] [--threshold T]
//! [--missing listwise|as-value|wildcard] [--intruder-schema F] [--released-schema F]
//! [--delimiter C] [--seed S] [--format json|table] [--per-record OUT.csv] [--out FILE]`
//!
//! - `--keys` names the keys in the intruder's file; `--key-map a=x` says key `a` is called `x`
//!   in the released file.
//! - `--truth COL` names the true person id when both files call it the same; otherwise
//!   `--truth-intruder` and `--truth-released`. These columns are read as ground truth and
//!   reach only the evaluator.
//! - `--sensitive COL` is the released sensitive variable; `--sensitive-truth COL` the intruder
//!   file's column with the true original value (ground truth too); `--tolerance` Mitra's 5%.
//! - `--twins-only` restricts the released file to records that have a twin in the intruder's
//!   file before the attack (Bender's response knowledge); this uses the truth and is done by the
//!   CLI, not by the attack. Report both runs: with and without it.
//! - The JSON output holds `method, intruder_records, released_records, twins,
//!   correct_match_rate, expected_correct, unique_correct, le2_correct, rank1, top5,
//!   in_candidates, precision, recall, f1, pr_curve, attribute_A` (when a sensitive variable is
//!   given) and the attack's notes; `--format table` prints the same figures aligned, each with a
//!   one-line meaning. `--per-record` writes one CSV row per intruder record.
//!
//! # Example
//! ```
//! use intruder_attack::{ATTACKS, AttackConfig, EvalOptions, KeyMap, TruthIds, attack_by_name, evaluate};
//! use intruder_data::{read_csv_from, ReadOptions, Role};
//! let intr = "id,area,beds\n7,2,5\n";
//! let rel = "id,area,beds\n1,2,5\n7,2,5\n3,1,3\n";
//! let opts = ReadOptions::default().with_role(&["id"], Role::Truth);
//! let i = read_csv_from(intr.as_bytes(), "i.csv".as_ref(), &opts).unwrap();
//! let r = read_csv_from(rel.as_bytes(), "r.csv".as_ref(), &opts).unwrap();
//! let attack = (attack_by_name("exact").unwrap().build)(&AttackConfig::default()).unwrap();
//! let keys = KeyMap::same(&["area", "beds"]).unwrap();
//! let linkage = attack.link(&i.table, &r.table, &keys).unwrap();
//! let opts = EvalOptions {
//!     truth: Some(TruthIds { intruder: "id".into(), released: "id".into() }),
//!     sensitive: None, threshold: None, seed: 1,
//! };
//! let ev = evaluate(&linkage, &i.table, &i.truth, &r.table, &r.truth, &opts).unwrap();
//! assert_eq!(ev.expected_correct, 0.5); // c_i = 2, the twin among them
//! assert!(ATTACKS.iter().any(|a| a.name == "nearest"));
//! ```
#![deny(missing_docs)]

mod config;
pub mod distance;
mod error;
pub mod evaluate;
pub mod exact;
pub mod fellegi_sunter;
pub mod hungarian;
pub mod keys;
pub mod kmeans;
pub mod knn;
#[cfg(target_arch = "x86_64")]
mod knn32;
pub mod link;
mod linkage;
pub mod nearest;

pub use config::{AttackConfig, Metric, MissingPolicy, StringMetric};
pub use error::{AttackError, KeyTypeMismatch, ParamError};
pub use evaluate::{
    AttributeReport, DEFAULT_TOLERANCE, EvalOptions, Evaluation, PrPoint, RecordResult, Sensitive,
    TruthIds, evaluate, write_per_record,
};
pub use exact::ExactMatch;
pub use keys::{KeyMap, KeyPair};
pub use kmeans::KMeansAttack;
pub use link::FollowLink;
pub use linkage::{Candidate, Candidates, Linkage};
pub use nearest::Nearest;

use intruder_data::Table;

/// An attack: links the intruder's file to the released file over the keys.
///
/// It sees two [`Table`]s, never the ground truth, and returns for every intruder record the
/// released candidates ranked by score, higher = better, ties sharing a rank.
pub trait Attack: Send + Sync {
    /// The registry name.
    fn name(&self) -> &'static str;

    /// Runs the attack. Errors name the file and column at fault.
    fn link(
        &self,
        intruder: &Table,
        released: &Table,
        keys: &KeyMap,
    ) -> Result<Linkage, AttackError>;
}

/// A registered attack: what the CLI lists and builds.
#[derive(Clone, Copy)]
pub struct AttackInfo {
    /// The name used on the command line and in results.
    pub name: &'static str,
    /// One line on what it does.
    pub summary: &'static str,
    /// The source it implements.
    pub reference: &'static str,
    /// Builds the attack from parameters, checked before any work.
    pub build: fn(&AttackConfig) -> Result<Box<dyn Attack>, AttackError>,
}

impl std::fmt::Debug for AttackInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AttackInfo")
            .field("name", &self.name)
            .finish()
    }
}

/// Every attack, in the order the CLI lists them.
pub const ATTACKS: &[AttackInfo] = &[
    AttackInfo {
        name: "exact",
        summary: "exact key matching: candidates equal on every key (missing listwise, as-value or wildcard; sets by overlap)",
        reference: "Mitra et al., longitudinal linked data, §3.1; Dalenius 1986; Mulder",
        build: ExactMatch::build,
    },
    AttackInfo {
        name: "nearest",
        summary: "nearest-neighbour distance linkage: Euclidean (raw/z-scored, weighted) or Gower, strings via Jaro-Winkler/Levenshtein; optional one-to-one",
        reference: "Bender, Brand & Bacher 2001 (distance criterion); sdcMicro recordLinkage",
        build: Nearest::build,
    },
    AttackInfo {
        name: "kmeans",
        summary: "k-means cluster re-identification: intruder records as centres, released records assigned to the nearest",
        reference: "Bender, Brand & Bacher 2001 (cluster analysis)",
        build: KMeansAttack::build,
    },
    AttackInfo {
        name: "link",
        summary: "follow a released link id column (the 'links released' mode)",
        reference: "Mitra et al., longitudinal linked data, §3",
        build: FollowLink::build,
    },
    AttackInfo {
        name: "fellegi-sunter",
        summary: "Fellegi-Sunter probabilistic linkage: blocking, comparison levels, u by random pairs, m and lambda by EM, term frequencies, one-to-one",
        reference: "Fellegi & Sunter 1969; Winkler 1988/1989 (EM, term frequencies); Splink",
        build: fellegi_sunter::FellegiSunter::build,
    },
];

/// The registered attack called `name`.
pub fn attack_by_name(name: &str) -> Result<&'static AttackInfo, ParamError> {
    ATTACKS
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| ParamError::UnknownMethod {
            name: name.to_string(),
            available: ATTACKS
                .iter()
                .map(|a| a.name)
                .collect::<Vec<_>>()
                .join(", "),
        })
}
