//! Fellegi–Sunter probabilistic record linkage (Fellegi & Sunter 1969; METHODS.md §2.5), as an
//! intruder with an error-prone copy of the data would run it.
//!
//! 1. **Blocking** ([`blocking`]): candidate pairs agree on every term of at least one rule;
//!    rules are OR-ed without duplicate pairs.
//! 2. **Comparison** ([`compare`]): each pair falls, per comparison, in the first level whose
//!    condition holds (null, exact, Jaro–Winkler ≥ t, Levenshtein ≤ d, |Δ| ≤ t, relative Δ ≤ t,
//!    dates ≤ t days apart, else). The levels of a pair are packed into one integer (4 bits a
//!    comparison) and the patterns counted, so EM is linear in the number of pairs.
//! 3. **Estimation**: `u_k(l)` from random pairs of the two files (seeded, `u_sample` pairs;
//!    random pairs are almost all non-matches; when `u_sample` reaches `n_I × n_R`, every pair
//!    once instead, see [`UPlan`]); `m_k(l)` and the share of matches among the
//!    candidate pairs `λ_C` by EM ([`em`]) under conditional independence, from deterministic
//!    starting values (`m` decreasing tenfold from the first non-null level, `u` the sampled
//!    one, `λ_C = min(n_I, n_R) / |C|`). Within the candidate pairs the non-match distribution
//!    is not `u` (the blocking columns agree by construction), so by default EM estimates every
//!    `u` among the candidates (`u_C`, started from the level shares among the candidate pairs,
//!    which are almost all non-matches); `u_free_in_em = false` keeps the sampled `u` for the
//!    comparisons on columns no blocking rule reads, and `fix_u` keeps every `u` fixed
//!    (Splink's convention; it over-weights agreement on blocking columns).
//!    **Training** ([`Training`]): by default m is trained per blocking rule ([`train`]): one
//!    EM session over the pairs each rule produces, with the comparisons on the columns it
//!    blocks on left out (they agree by construction there, which makes "agrees on the
//!    blocking column" a latent class EM prefers to the matches when the keys are weak); each
//!    comparison's m is the mean over the sessions where it was free, and λ_C comes from one
//!    more EM over every candidate pair with those m fixed. The match share is capped at
//!    `min(n_I, n_R) / pairs` in every EM. [`Training::Pooled`] runs one EM over every
//!    candidate pair (the description above without sessions).
//! 4. **Prediction**: match weight `w = log2(λ/(1−λ)) + Σ_k log2(m_k(l)/u_k(l))` (+ term-frequency
//!    adjustments, [`tf`]) with the prior `λ = λ_C |C| / (n_I n_R)`, the probability that two
//!    random records match — Splink's `probability_two_random_records_match`; match probability
//!    `2^w / (1 + 2^w)`. Then one-to-one assignment ([`predict`]).
//!
//! The attack's candidate score is the match weight (it does not saturate as a probability
//! does near 1); a probability threshold `p` is the weight `log2(p / (1 − p))`
//! ([`weight_of_probability`]).
//!
//! # Example
//! # Parameters
//! `linkage_spec` (a TOML file, relative to the experiment file) or an inline `linkage` table
//! (same format, [`spec`]); without either, comparisons and blocking are inferred from the keys
//! ([`LinkageSpec::default_for`]). `threshold` (match probability, default 0.5), `assignment`
//! (greedy | optimal | none), `u_sample`, `em_max_iter`, `em_tolerance`, `fix_u`,
//! `u_free_in_em`, `training` (per-rule | pooled): see [`FsParams`] and `intruder attack --list`.
//!
//! # Example
//! ```
//! use intruder_attack::fellegi_sunter::{FellegiSunter, FsParams, LinkageSpec};
//! use intruder_attack::{KeyMap, Knowledge};
//! use intruder_data::{read_csv_from, ReadOptions};
//! let a = "first,last,year\nanna,smith,1970\nbob,jones,1980\ncarl,brown,1990\ndora,white,1960\n";
//! let b = "first,last,year\nana,smith,1970\nbob,jones,1981\ncarl,brown,1990\nerik,black,1950\n";
//! let opts = ReadOptions::default();
//! let i = read_csv_from(a.as_bytes(), "a.csv".as_ref(), &opts).unwrap();
//! let r = read_csv_from(b.as_bytes(), "b.csv".as_ref(), &opts).unwrap();
//! let spec = LinkageSpec::from_toml(r#"
//! blocking = [[]]   # rejected: a rule must name a column
//! "#, "spec.toml");
//! assert!(spec.is_err());
//! let mut params = FsParams::default();
//! params.u_sample = 1000;
//! let fs = FellegiSunter::new(params).unwrap();
//! let keys = KeyMap::same(&["first", "last", "year"]).unwrap();
//! let knowledge = Knowledge::new(&i.table, keys).unwrap();
//! let run = fs.run(&knowledge, &r.table, 7).unwrap();
//! // Each intruder record is linked to at most one released record.
//! assert_eq!(run.linkage.records.len(), 4);
//! assert!(run.model.em.iterations >= 1);
//! ```

pub mod blocking;
pub mod compare;
pub mod em;
pub mod encode;
pub mod kernel;
pub mod predict;
pub mod spec;
pub mod strings;
pub mod tf;
pub mod train;

pub use blocking::Pairs;
pub use em::{EmOptions, EmReport};
pub use predict::Assignment;
pub use spec::{Comparison, Level, LevelKind, LinkageSpec, SpecError, Term};
pub use train::TrainingSession;

use std::io::Write;
use std::path::Path;

use intruder_data::params::{ParamKind, ParamReader, ParamSpec, Range};
use intruder_data::{Table, write_atomically};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::{AttackError, ParamError};
use crate::keys::{KeyMap, KeyPair};
use crate::linkage::{Candidate, Candidates, Linkage};
use crate::{Attack, Knowledge, LinkModel, Linked};
use compare::{Prepared, pack, unpack};
use kernel::{CandidatePairs, Kernel, Scorer};
use tf::TermFrequencies;

/// The weight of a match probability: `log2(p / (1 − p))`.
pub fn weight_of_probability(p: f64) -> f64 {
    (p / (1.0 - p)).log2()
}

/// The match probability of a weight: `2^w / (1 + 2^w)`.
pub fn probability_of_weight(w: f64) -> f64 {
    1.0 / (1.0 + (-w).exp2())
}

/// The largest `u_sample`: a billion random pairs (drawn and compared in chunks, never held in
/// memory at once).
pub const MAX_U_SAMPLE: usize = 1_000_000_000;

/// The default `u_sample`, also the most a `u_sample` may exceed the number of possible pairs
/// by: up to it, a `u_sample` at or above `n_I × n_R` compares every pair once; above both it
/// is refused ([`UPlan::new`]).
pub const DEFAULT_U_SAMPLE: usize = 1_000_000;

/// Bytes a drawn pair takes (two `u32` row numbers): the memory a sample held at once would
/// need, as the bound's error states it.
const PAIR_BYTES: usize = 8;

/// How the u probabilities are estimated for a pair of files: `u_sample` random pairs, or
/// every pair once when `u_sample` reaches the number of possible pairs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UPlan {
    /// Pairs compared (the sample, or every pair).
    pub pairs: usize,
    /// Whether every pair is compared once (no sampling).
    pub every_pair: bool,
}

impl UPlan {
    /// The plan for `u_sample` pairs on `ni` intruder and `nr` released records. Every pair
    /// is compared once when `u_sample ≥ ni · nr`; a `u_sample` above both `ni · nr` and
    /// [`DEFAULT_U_SAMPLE`] (or above [`MAX_U_SAMPLE`]) is an error naming the limit and the
    /// memory the request stands for, checked before anything is drawn.
    pub fn new(u_sample: usize, ni: usize, nr: usize) -> Result<UPlan, ParamError> {
        let possible = (ni as u128) * (nr as u128);
        let limit = (possible.max(DEFAULT_U_SAMPLE as u128)).min(MAX_U_SAMPLE as u128);
        if u_sample as u128 > limit {
            let gb = |n: u128| (n * PAIR_BYTES as u128) as f64 / 1e9;
            return Err(ParamError::Unsupported(format!(
                "fellegi-sunter parameters: u_sample: {u_sample} random pairs requested ({:.1} GB as pairs of row numbers), but the files have {possible} possible pairs ({ni} intruder × {nr} released records); at most {limit} are accepted here ({:.1} GB): every pair is compared once from u_sample = {possible} on",
                gb(u_sample as u128),
                gb(limit),
            )));
        }
        Ok(if u_sample as u128 >= possible {
            UPlan {
                pairs: possible as usize,
                every_pair: true,
            }
        } else {
            UPlan {
                pairs: u_sample,
                every_pair: false,
            }
        })
    }
}

/// The largest `em_max_iter`.
pub const MAX_EM_ITER: usize = 1_000_000;

/// Random pairs drawn and compared at a time for the u estimate.
const U_CHUNK: usize = 1 << 20;

/// The checked parameters of the Fellegi–Sunter attack.
#[derive(Debug, Clone, PartialEq)]
pub struct FsParams {
    /// The linkage specification; `None` = defaults inferred from the keys' types
    /// ([`LinkageSpec::default_for`]).
    pub spec: Option<LinkageSpec>,
    /// Links are declared at match probability ≥ this (in (0, 1)).
    pub threshold: f64,
    /// One-to-one assignment.
    pub assignment: Assignment,
    /// Random pairs drawn to estimate u (1 to [`MAX_U_SAMPLE`]).
    pub u_sample: usize,
    /// EM iteration cap (1 to [`MAX_EM_ITER`]).
    pub em_max_iter: usize,
    /// EM stops when no parameter moves by more than this (> 0).
    pub em_tolerance: f64,
    /// Keep u fixed at the sampled values during EM (Splink's convention).
    pub fix_u: bool,
    /// Estimate every u among the candidate pairs in EM (not only those of the blocking
    /// columns).
    pub u_free_in_em: bool,
    /// How m is trained: one EM session per blocking rule (default) or one pooled EM.
    pub training: Training,
}

/// How the m probabilities are estimated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Training {
    /// One EM session per blocking rule over the pairs it produces, the comparisons on the
    /// columns it blocks on left out; m averaged over the sessions where a comparison was free,
    /// then λ by EM over every candidate pair with m fixed ([`train`]; Splink's convention).
    #[default]
    PerRule,
    /// One EM over every candidate pair at once (m, u among candidates, λ). Prone to a
    /// spurious latent class when the keys are weak: within the blocks the blocking columns
    /// agree by construction.
    Pooled,
}

impl Training {
    /// The name used in parameters.
    pub fn as_str(self) -> &'static str {
        match self {
            Training::PerRule => "per-rule",
            Training::Pooled => "pooled",
        }
    }
}

impl std::str::FromStr for Training {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "per-rule" => Ok(Training::PerRule),
            "pooled" => Ok(Training::Pooled),
            _ => Err(format!(
                "unknown training '{s}'; expected per-rule or pooled"
            )),
        }
    }
}

impl Default for FsParams {
    fn default() -> Self {
        FsParams {
            spec: None,
            threshold: 0.5,
            assignment: Assignment::Greedy,
            u_sample: DEFAULT_U_SAMPLE,
            em_max_iter: 25,
            em_tolerance: 1e-4,
            fix_u: false,
            u_free_in_em: true,
            training: Training::PerRule,
        }
    }
}

impl FsParams {
    /// Every problem of the parameters, at once.
    pub fn check(&self) -> Result<(), ParamError> {
        let mut p = Vec::new();
        if !(self.threshold > 0.0 && self.threshold < 1.0) {
            p.push(format!(
                "threshold: {} is not a match probability in (0, 1)",
                self.threshold
            ));
        }
        if self.u_sample == 0 {
            p.push("u_sample: at least one random pair is needed".into());
        }
        if self.u_sample > MAX_U_SAMPLE {
            p.push(format!(
                "u_sample: {} random pairs requested ({:.1} GB as pairs of row numbers); at most {MAX_U_SAMPLE} are supported ({:.1} GB)",
                self.u_sample,
                (self.u_sample as f64) * PAIR_BYTES as f64 / 1e9,
                (MAX_U_SAMPLE * PAIR_BYTES) as f64 / 1e9,
            ));
        }
        if self.em_max_iter == 0 {
            p.push("em_max_iter: at least one EM iteration is needed".into());
        }
        if self.em_max_iter > MAX_EM_ITER {
            p.push(format!(
                "em_max_iter: {} iterations requested; at most {MAX_EM_ITER} are supported",
                self.em_max_iter
            ));
        }
        if !(self.em_tolerance.is_finite() && self.em_tolerance > 0.0) {
            p.push(format!(
                "em_tolerance: {} must be a finite number > 0",
                self.em_tolerance
            ));
        }
        if let Some(s) = &self.spec {
            p.extend(s.problems());
        }
        if p.is_empty() {
            Ok(())
        } else {
            Err(ParamError::Unsupported(format!(
                "fellegi-sunter parameters: {}",
                p.join("; ")
            )))
        }
    }
}

/// The parameters of `fellegi-sunter` in the registry.
pub(crate) static PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "linkage_spec",
        ParamKind::Path,
        "a linkage specification (TOML: blocking rules and comparison levels), relative to the experiment file (the working directory on the command line); absent, and no inline linkage: inferred from the keys' types",
    ),
    ParamSpec::new(
        "linkage",
        ParamKind::Table,
        "the linkage specification inline ([attack.linkage] with blocking and [[attack.linkage.comparison]]), instead of linkage_spec",
    ),
    ParamSpec::new(
        "threshold",
        ParamKind::Number,
        "links are declared at match probability ≥ this (precision, recall, F1; optimal assignment)",
    )
    .default_value("0.5")
    .within(Range::OPEN_UNIT)
    .alias(&["match_probability"]),
    ParamSpec::new(
        "assignment",
        ParamKind::Choice(&["greedy", "optimal", "none"]),
        "one-to-one assignment of the scored pairs: greedy (best first), optimal (maximum total weight above the threshold), none (every pair ranked)",
    )
    .default_value("greedy"),
    ParamSpec::new(
        "u_sample",
        ParamKind::Integer,
        "random pairs drawn (seeded) to estimate the u probabilities; from the number of possible pairs (intruder × released records) on, every pair is compared once instead (notes u_pairs, u_every_pair); above both that number and the default it is refused",
    )
    .default_value("1000000")
    .within(Range::closed(1.0, MAX_U_SAMPLE as f64)),
    ParamSpec::new("em_max_iter", ParamKind::Integer, "EM iteration cap")
        .default_value("25")
        .within(Range::closed(1.0, MAX_EM_ITER as f64)),
    ParamSpec::new(
        "em_tolerance",
        ParamKind::Number,
        "EM stops when no parameter moves by more than this",
    )
    .default_value("0.0001")
    .within(Range::POSITIVE),
    ParamSpec::new(
        "fix_u",
        ParamKind::Bool,
        "keep u at the random-pair values during EM (Splink's convention)",
    )
    .default_value("false"),
    ParamSpec::new(
        "u_free_in_em",
        ParamKind::Bool,
        "estimate every u among the candidate pairs in EM (false: only the u of comparisons on blocking columns)",
    )
    .default_value("true"),
    ParamSpec::new(
        "training",
        ParamKind::Choice(&["per-rule", "pooled"]),
        "m trained by one EM session per blocking rule (its columns left out), or one EM over every candidate pair",
    )
    .default_value("per-rule"),
];

impl FsParams {
    /// Reads the parameters declared in [`PARAMS`]; problems inside a linkage specification come
    /// back under `linkage_spec` (with the file) or `linkage`.
    pub(crate) fn read(r: &mut ParamReader<'_>) -> FsParams {
        let d = FsParams::default();
        let file = r.path_value("linkage_spec");
        let inline = r.get::<toml::Table>("linkage");
        let spec = match (file, inline) {
            (Some(_), Some(_)) => {
                r.problem(
                    "linkage",
                    "the linkage specification is given twice: as a file (linkage_spec) and inline (linkage); keep one",
                );
                None
            }
            (Some(path), None) => match LinkageSpec::from_file(&path) {
                Ok(s) => Some(s),
                Err(e) => {
                    for p in e.problems {
                        r.problem("linkage_spec", format!("{}: {p}", path.display()));
                    }
                    None
                }
            },
            (None, Some(t)) => match LinkageSpec::from_table(&t, "linkage") {
                Ok(s) => Some(s),
                Err(e) => {
                    for p in e.problems {
                        r.problem("linkage", p);
                    }
                    None
                }
            },
            (None, None) => None,
        };
        FsParams {
            spec,
            threshold: r.get::<f64>("threshold").unwrap_or(d.threshold),
            assignment: r.choice::<Assignment>("assignment").unwrap_or(d.assignment),
            u_sample: r.get::<usize>("u_sample").unwrap_or(d.u_sample),
            em_max_iter: r.get::<usize>("em_max_iter").unwrap_or(d.em_max_iter),
            em_tolerance: r.get::<f64>("em_tolerance").unwrap_or(d.em_tolerance),
            fix_u: r.get::<bool>("fix_u").unwrap_or(d.fix_u),
            u_free_in_em: r.get::<bool>("u_free_in_em").unwrap_or(d.u_free_in_em),
            training: r.choice::<Training>("training").unwrap_or(d.training),
        }
    }

    /// The parameters as reported in results (`linkage`: the specification used, or null when
    /// it is inferred from the keys).
    pub fn to_json(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut m = serde_json::Map::new();
        m.insert(
            "linkage".into(),
            serde_json::to_value(&self.spec).unwrap_or(serde_json::Value::Null),
        );
        m.insert("threshold".into(), self.threshold.into());
        m.insert(
            "assignment".into(),
            serde_json::to_value(self.assignment).unwrap_or(serde_json::Value::Null),
        );
        m.insert("u_sample".into(), self.u_sample.into());
        m.insert("em_max_iter".into(), self.em_max_iter.into());
        m.insert("em_tolerance".into(), self.em_tolerance.into());
        m.insert("fix_u".into(), self.fix_u.into());
        m.insert("u_free_in_em".into(), self.u_free_in_em.into());
        m.insert("training".into(), self.training.as_str().into());
        m
    }
}

impl From<SpecError> for AttackError {
    fn from(e: SpecError) -> Self {
        AttackError::Param(ParamError::Unsupported(e.to_string()))
    }
}

/// One level of one comparison in the fitted model.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct LevelReport {
    /// The level's condition.
    pub level: String,
    /// P(level | match) (`None` for the null level).
    pub m: Option<f64>,
    /// P(level | non-match), from random pairs.
    pub u: Option<f64>,
    /// P(level | non-match) among the candidate pairs, as EM found it.
    pub u_candidates: Option<f64>,
    /// `log2(m / u)` (0 for the null level).
    pub weight: f64,
    /// Candidate pairs at this level.
    pub pairs: u64,
    /// Whether m / u were fixed by the specification.
    pub fixed: bool,
    /// Whether the term-frequency adjustment applies.
    pub term_frequency: bool,
}

/// One comparison in the fitted model.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ComparisonReport {
    /// Intruder column.
    pub column: String,
    /// Released column.
    pub released: String,
    /// Its levels.
    pub levels: Vec<LevelReport>,
}

/// The fitted model: what was estimated and how; serialisable as the explanation of the run.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FsModel {
    /// The specification used (given or inferred).
    pub spec: LinkageSpec,
    /// Candidate pairs per blocking rule (after removing pairs of earlier rules).
    pub pairs_per_rule: Vec<usize>,
    /// Candidate pairs.
    pub candidate_pairs: usize,
    /// Distinct agreement patterns among them.
    pub patterns: usize,
    /// Random pairs requested for u (`u_sample`).
    pub u_sample: usize,
    /// Pairs compared for u: `u_sample`, or every possible pair when there are no more.
    pub u_pairs: usize,
    /// Whether u came from every pair once (`u_sample ≥ n_I × n_R`) rather than a sample.
    pub u_every_pair: bool,
    /// How m was trained.
    pub training: Training,
    /// The per-rule training sessions (empty for pooled training).
    pub sessions: Vec<TrainingSession>,
    /// The EM outcome (m, u among candidates, λ_C, iterations, converged). Per-rule training:
    /// the final EM over every candidate pair with the trained m fixed (it estimates λ_C, u
    /// among candidates, and m only for comparisons left out of every session).
    pub em: EmReport,
    /// λ: probability that two random records match (`λ_C |C| / (n_I n_R)`).
    pub lambda: f64,
    /// `log2(λ / (1 − λ))`, the weight every pair starts from.
    pub prior_weight: f64,
    /// The threshold as match probability and as weight.
    pub threshold: f64,
    /// `log2(threshold / (1 − threshold))`.
    pub threshold_weight: f64,
    /// The assignment.
    pub assignment: Assignment,
    /// Links declared (one-to-one links, or pairs, at or above the threshold).
    pub links: usize,
    /// Per comparison and level: m, u, weight.
    pub comparisons: Vec<ComparisonReport>,
    /// What the user should know before reading the links (e.g. that no pair can reach the
    /// threshold), found while training.
    pub warnings: Vec<String>,
}

impl FsModel {
    /// The m, u and weight of every level of every comparison, aligned for people.
    pub fn to_table(&self) -> String {
        let mut rows: Vec<[String; 7]> = vec![[
            "comparison".into(),
            "level".into(),
            "m".into(),
            "u".into(),
            "weight".into(),
            "pairs".into(),
            "notes".into(),
        ]];
        let f = |x: Option<f64>| x.map_or("-".into(), |v| format!("{v:.6}"));
        for c in &self.comparisons {
            for l in &c.levels {
                let mut notes = Vec::new();
                if l.fixed {
                    notes.push("fixed");
                }
                if l.term_frequency {
                    notes.push("tf-adjusted");
                }
                rows.push([
                    if c.column == c.released {
                        c.column.clone()
                    } else {
                        format!("{}/{}", c.column, c.released)
                    },
                    l.level.clone(),
                    f(l.m),
                    f(l.u),
                    format!("{:+.3}", l.weight),
                    l.pairs.to_string(),
                    notes.join(", "),
                ]);
            }
        }
        let widths: Vec<usize> = (0..7)
            .map(|k| rows.iter().map(|r| r[k].chars().count()).max().unwrap_or(0))
            .collect();
        let mut out = String::new();
        out.push_str(&format!(
            "Fellegi-Sunter model: {} candidate pairs ({} per rule), {} patterns; EM {} after {} iterations (last change {:.2e}); lambda among candidates {:.6}, prior lambda {:.3e} (weight {:+.3}); threshold p >= {} (weight {:+.3}), {:?} assignment, {} links\n",
            self.candidate_pairs,
            self.pairs_per_rule.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(" + "),
            self.patterns,
            if self.em.converged { "converged" } else { "stopped at the iteration cap (not converged)" },
            self.em.iterations,
            self.em.last_change,
            self.em.lambda,
            self.lambda,
            self.prior_weight,
            self.threshold,
            self.threshold_weight,
            self.assignment,
            self.links,
        ));
        out.push_str(&if self.u_every_pair {
            format!(
                "u from every pair once ({} pairs: u_sample {} reaches the intruder x released records)\n",
                self.u_pairs, self.u_sample
            )
        } else {
            format!("u from {} random pairs\n", self.u_pairs)
        });
        for w in &self.warnings {
            out.push_str(&format!("warning: {w}\n"));
        }
        if !self.sessions.is_empty() {
            out.push_str(&format!(
                "m trained per blocking rule (mean over the sessions where a comparison was free); the EM above estimates lambda with m fixed{}\n",
                if self.sessions.len() == 1 && self.sessions[0].left_out.is_empty() {
                    " (single session over every pair: it is that session)"
                } else {
                    ""
                }
            ));
            for (r, t) in self.sessions.iter().enumerate() {
                out.push_str(&format!(
                    "  session {} [{}]: {} pairs, {} patterns, left out: {}; {}\n",
                    r + 1,
                    t.rule,
                    t.pairs,
                    t.patterns,
                    if t.left_out.is_empty() {
                        "none".to_string()
                    } else {
                        t.left_out.join(", ")
                    },
                    match t.last_change {
                        None => "EM not run (no pair or no comparison left free)".to_string(),
                        Some(ch) => format!(
                            "EM {} after {} iterations (last change {:.2e}), lambda {:.6} (cap {:.6})",
                            if t.converged {
                                "converged"
                            } else {
                                "stopped at the iteration cap (not converged)"
                            },
                            t.iterations,
                            ch,
                            t.lambda,
                            t.lambda_max
                        ),
                    }
                ));
            }
        }
        for r in rows {
            let line: Vec<String> = r
                .iter()
                .enumerate()
                .map(|(k, s)| format!("{s:<w$}", w = widths[k]))
                .collect();
            out.push_str(line.join("  ").trim_end());
            out.push('\n');
        }
        out
    }
}

/// One step of a pair's weight breakdown.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WaterfallStep {
    /// The comparison's intruder column.
    pub comparison: String,
    /// The intruder's value.
    pub intruder_value: Option<String>,
    /// The released value.
    pub released_value: Option<String>,
    /// The level the pair falls in.
    pub level: String,
    /// `log2(m / u)` of the level.
    pub weight: f64,
    /// Term-frequency adjustment `log2(u_exact / tf(v))` (0 when none).
    pub tf_adjustment: f64,
    /// Running total after this step.
    pub cumulative: f64,
}

/// The weight breakdown of one pair (a waterfall in numbers).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Waterfall {
    /// Intruder row (0-based).
    pub intruder_row: usize,
    /// Released row (0-based).
    pub released_row: usize,
    /// Whether blocking made it a candidate pair.
    pub candidate: bool,
    /// The prior weight `log2(λ/(1−λ))`.
    pub prior_weight: f64,
    /// Per comparison.
    pub steps: Vec<WaterfallStep>,
    /// The match weight.
    pub match_weight: f64,
    /// The match probability.
    pub match_probability: f64,
}

impl Waterfall {
    /// The breakdown as aligned text.
    pub fn to_table(&self) -> String {
        let mut out = format!(
            "pair intruder row {} / released row {}{}\n  prior                         {:+.3}\n",
            self.intruder_row + 1,
            self.released_row + 1,
            if self.candidate {
                ""
            } else {
                " (not a candidate pair: blocking would not compare it)"
            },
            self.prior_weight
        );
        for s in &self.steps {
            out.push_str(&format!(
                "  {:<12} {:>14} | {:<14} {:<24} {:+.3}{}  = {:+.3}\n",
                s.comparison,
                s.intruder_value.as_deref().unwrap_or("(missing)"),
                s.released_value.as_deref().unwrap_or("(missing)"),
                s.level,
                s.weight,
                if s.tf_adjustment != 0.0 {
                    format!(" tf {:+.3}", s.tf_adjustment)
                } else {
                    String::new()
                },
                s.cumulative
            ));
        }
        out.push_str(&format!(
            "  match weight {:+.3}, match probability {:.6}\n",
            self.match_weight, self.match_probability
        ));
        out
    }
}

/// Everything a run produced: the model, the scored candidate pairs and the linkage.
#[derive(Debug, Clone)]
pub struct FsRun {
    /// The fitted model (the explanation).
    pub model: FsModel,
    /// The linkage handed to the evaluator (scores are match weights).
    pub linkage: Linkage,
    /// The candidate pairs, grouped by intruder record, each record's best first.
    candidates: CandidatePairs,
    /// Levels of each pattern (by pattern index).
    pattern_levels: Vec<Vec<u8>>,
    scorer: Scorer,
    /// Intruder and released records of the run.
    dims: (usize, usize),
    prepared: Vec<Prepared>,
    level_weights: Vec<Vec<f64>>,
}

/// A scored candidate pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredPair {
    /// Intruder row (0-based).
    pub intruder: usize,
    /// Released row (0-based).
    pub released: usize,
    /// Index of its agreement pattern ([`FsRun::pattern_levels`]).
    pub pattern: usize,
    /// Match weight.
    pub weight: f64,
}

impl FsRun {
    /// Every candidate pair with its weight, by intruder row, each record's pairs best first
    /// (weight descending, then released row).
    pub fn pairs(&self) -> impl Iterator<Item = ScoredPair> + '_ {
        self.candidates.iter().map(|(i, j, p)| ScoredPair {
            intruder: i,
            released: j as usize,
            pattern: p as usize,
            weight: self.scorer.weight(i, p),
        })
    }

    /// The match weights of [`pairs`](Self::pairs), in that order.
    pub fn weights(&self) -> Vec<f64> {
        self.pairs().map(|p| p.weight).collect()
    }

    /// Number of candidate pairs.
    pub fn candidate_count(&self) -> usize {
        self.model.candidate_pairs
    }

    /// The level of each comparison in pattern `p` (index into the comparison's levels).
    pub fn pattern_levels(&self, p: usize) -> &[u8] {
        &self.pattern_levels[p]
    }

    /// The weight of a pair given its levels: `(prior + Σ level weights) + Σ term-frequency
    /// adjustments` (the kernel's order of summation), and each comparison's adjustment.
    fn weight_of(&self, i: usize, levels: &[u8]) -> (f64, Vec<f64>) {
        let mut w = self.model.prior_weight;
        for (k, &l) in levels.iter().enumerate() {
            w += self.level_weights[k][l as usize];
        }
        let mut adj = vec![0.0; levels.len()];
        for (k, &l) in levels.iter().enumerate() {
            if let Some(t) = &self.scorer.tf[k]
                && Some(l as usize) == self.prepared[k].exact_level()
            {
                adj[k] = t[self.prepared[k].a[i] as usize];
                w += adj[k];
            }
        }
        (w, adj)
    }

    /// The weight breakdown of intruder row `i` and released row `j` (0-based), whether or
    /// not blocking made them a candidate pair.
    pub fn explain_pair(&self, i: usize, j: usize) -> Result<Waterfall, AttackError> {
        let (ni, nr) = self.dims;
        if i >= ni || j >= nr {
            return Err(ParamError::Unsupported(format!(
                "explain pair: row {} / {} is outside the files ({ni} intruder and {nr} released records)",
                i + 1,
                j + 1
            ))
            .into());
        }
        let levels: Vec<u8> = self
            .prepared
            .iter()
            .map(|p| p.level(i, j, &mut foldhash::HashMap::default()))
            .collect();
        let (total, adj) = self.weight_of(i, &levels);
        let mut cum = self.model.prior_weight;
        let steps = levels
            .iter()
            .enumerate()
            .map(|(k, &l)| {
                let p = &self.prepared[k];
                let w = self.level_weights[k][l as usize];
                cum += w + adj[k];
                WaterfallStep {
                    comparison: p.spec.column.clone(),
                    intruder_value: p.value(p.a[i]).map(str::to_string),
                    released_value: p.value(p.b[j]).map(str::to_string),
                    level: p.spec.levels[l as usize].label(),
                    weight: w,
                    tf_adjustment: adj[k],
                    cumulative: cum,
                }
            })
            .collect();
        let candidate = self.candidates.of(i).0.contains(&(j as u32));
        Ok(Waterfall {
            intruder_row: i,
            released_row: j,
            candidate,
            prior_weight: self.model.prior_weight,
            steps,
            match_weight: total,
            match_probability: probability_of_weight(total),
        })
    }

    /// Writes `id_intruder,id_released,match_weight,match_probability` for every candidate pair
    /// with match probability ≥ `floor`, best first; `intruder_id(i)` and `released_id(j)` name
    /// the records of (0-based) rows `i` and `j`. Whole or not at all.
    pub fn write_pairs(
        &self,
        path: &Path,
        intruder_id: &dyn Fn(usize) -> String,
        released_id: &dyn Fn(usize) -> String,
        floor: f64,
    ) -> Result<usize, AttackError> {
        if !(0.0..=1.0).contains(&floor) {
            return Err(ParamError::Unsupported(format!(
                "pairs floor {floor} is not a probability in [0, 1]"
            ))
            .into());
        }
        let fw = if floor > 0.0 {
            weight_of_probability(floor)
        } else {
            f64::NEG_INFINITY
        };
        let mut keep: Vec<ScoredPair> = self.pairs().filter(|p| p.weight >= fw).collect();
        keep.sort_by(|a, b| {
            b.weight
                .total_cmp(&a.weight)
                .then(a.intruder.cmp(&b.intruder))
                .then(a.released.cmp(&b.released))
        });
        write_atomically(path, |w| {
            writeln!(w, "id_intruder,id_released,match_weight,match_probability")?;
            for p in &keep {
                let q = |s: String| {
                    if s.contains([',', '"', '\n']) {
                        format!("\"{}\"", s.replace('"', "\"\""))
                    } else {
                        s
                    }
                };
                writeln!(
                    w,
                    "{},{},{},{}",
                    q(intruder_id(p.intruder)),
                    q(released_id(p.released)),
                    p.weight,
                    probability_of_weight(p.weight)
                )?;
            }
            Ok(())
        })?;
        Ok(keep.len())
    }
}

/// The Fellegi–Sunter attack; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct FellegiSunter {
    params: FsParams,
}

fn start_m(levels: usize, null: Option<usize>) -> Vec<f64> {
    // Non-null levels in order get m ∝ 10^(−rank), normalised.
    let mut m = vec![1.0; levels];
    let mut rank = 0i32;
    let mut total = 0.0;
    for (l, v) in m.iter_mut().enumerate() {
        if Some(l) == null {
            continue;
        }
        *v = 10f64.powi(-rank);
        total += *v;
        rank += 1;
    }
    for (l, v) in m.iter_mut().enumerate() {
        if Some(l) != null {
            *v /= total;
        }
    }
    m
}

impl FellegiSunter {
    /// Checks the parameters (every problem at once).
    pub fn new(params: FsParams) -> Result<Self, AttackError> {
        params.check()?;
        Ok(FellegiSunter { params })
    }

    /// Reads the parameters declared in [`PARAMS`].
    pub(crate) fn build(r: &mut ParamReader<'_>) -> Option<Box<dyn Attack>> {
        let params = FsParams::read(r);
        if !r.ok() {
            return None;
        }
        match Self::new(params) {
            Ok(a) => Some(Box::new(a)),
            Err(e) => {
                r.table_problem(e);
                None
            }
        }
    }

    /// The parameters.
    pub fn params(&self) -> &FsParams {
        &self.params
    }

    /// The intruder columns a given specification reads (comparisons, then blocking terms), each
    /// once; their released names where the specification gives them.
    fn spec_keys(spec: &LinkageSpec) -> Vec<KeyPair> {
        let mut out: Vec<KeyPair> = Vec::new();
        let mut add = |column: &str, released: Option<&String>| {
            if column.is_empty() || out.iter().any(|p| p.intruder == column) {
                return;
            }
            out.push(KeyPair {
                intruder: column.to_string(),
                released: released.cloned().unwrap_or_else(|| column.to_string()),
                recode: None,
            });
        };
        for c in &spec.comparisons {
            add(&c.column, c.released.as_ref());
        }
        for l in spec.comparisons.iter().flat_map(|c| &c.levels) {
            if let Some(other) = &l.column {
                add(other, None);
            }
        }
        for t in spec.blocking.iter().flatten() {
            add(t.column(), None);
        }
        out
    }

    /// Blocks, estimates and predicts; see the [module docs](self). `seed` drives the random
    /// pairs of the u estimate.
    pub fn run(
        &self,
        knowledge: &Knowledge,
        released: &Table,
        seed: u64,
    ) -> Result<FsRun, AttackError> {
        let (intruder, keys) = (knowledge.table(), knowledge.keys());
        if let Some(spec) = &self.params.spec {
            let missing: Vec<String> = Self::spec_keys(spec)
                .into_iter()
                .filter(|p| !keys.pairs().iter().any(|k| k.intruder == p.intruder))
                .map(|p| p.intruder)
                .collect();
            if !missing.is_empty() {
                return Err(ParamError::Unsupported(format!(
                    "fellegi-sunter: the linkage specification reads {}, which {} not among the keys ({}); an attack sees the intruder's key columns only: add {} to the keys, or leave the keys out (they are then the specification's columns)",
                    missing.iter().map(|m| format!("'{m}'")).collect::<Vec<_>>().join(", "),
                    if missing.len() == 1 { "is" } else { "are" },
                    keys.pairs().iter().map(|p| p.intruder.as_str()).collect::<Vec<_>>().join(", "),
                    if missing.len() == 1 { "it" } else { "them" },
                ))
                .into());
            }
        }
        let (ni, nr) = (intruder.nrows(), released.nrows());
        for (t, n, which) in [(intruder, ni, "intruder"), (released, nr, "released")] {
            if n == 0 {
                return Err(AttackError::Empty {
                    file: t.source().display().to_string(),
                    which,
                });
            }
            if n >= u32::MAX as usize {
                return Err(AttackError::Column {
                    file: t.source().display().to_string(),
                    name: String::new(),
                    message: format!("{n} records: at most {} are supported", u32::MAX - 1),
                });
            }
        }
        let released_name = |n: &str| -> String {
            keys.pairs()
                .iter()
                .find(|p| p.intruder == n)
                .map_or(n.to_string(), |p| p.released.clone())
        };
        let spec = match &self.params.spec {
            Some(s) => s.clone(),
            None => LinkageSpec::default_for(intruder, released, keys)?,
        };
        spec.validate(intruder, released, &released_name)?;
        let mut clock = Clock::new();
        let prepared: Vec<Prepared> = spec
            .comparisons
            .iter()
            .map(|c| {
                let rn = c
                    .released
                    .clone()
                    .unwrap_or_else(|| released_name(&c.column));
                Prepared::with_names(c, intruder, released, &rn, &released_name)
            })
            .collect::<Result<_, _>>()?;
        let k = prepared.len();
        let layout = em::Layout {
            levels: prepared.iter().map(|p| p.spec.levels.len()).collect(),
            null: prepared.iter().map(|p| p.null_level()).collect(),
        };
        clock.lap("encode comparisons");
        let rules = &spec.blocking;
        let rule_keys: Vec<encode::RuleKeys> = rules
            .iter()
            .map(|rule| encode::rule_keys(intruder, released, rule, &released_name))
            .collect::<Result<_, _>>()?;
        let kernel = Kernel::new(&prepared, &rule_keys, ni, nr);
        drop(rule_keys);

        clock.lap("blocking keys and record layout");
        // u from random pairs (seeded; drawn sequentially in chunks, compared in parallel; the
        // counts are sums, so chunking changes nothing but the memory held). When u_sample
        // reaches the number of possible pairs, every pair is compared once instead: the exact
        // level shares, with no sampling error and no more work than the sample.
        let plan = UPlan::new(self.params.u_sample, ni, nr)?;
        let mut u_counts: Vec<Vec<u64>> = layout.levels.iter().map(|&l| vec![0u64; l]).collect();
        let mut sample: Vec<(u32, u32)> = Vec::with_capacity(plan.pairs.min(U_CHUNK));
        let mut add = |sample: &[(u32, u32)]| {
            for (acc, c) in u_counts.iter_mut().zip(kernel.level_counts(sample)) {
                for (a, b) in acc.iter_mut().zip(c) {
                    *a += b;
                }
            }
        };
        if plan.every_pair {
            let mut next = 0usize;
            while next < plan.pairs {
                let n = (plan.pairs - next).min(U_CHUNK);
                sample.clear();
                sample.extend((next..next + n).map(|p| ((p / nr) as u32, (p % nr) as u32)));
                add(&sample);
                next += n;
            }
        } else {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut left = plan.pairs;
            while left > 0 {
                let n = left.min(U_CHUNK);
                sample.clear();
                sample.extend(
                    (0..n).map(|_| (rng.gen_range(0..ni as u32), rng.gen_range(0..nr as u32))),
                );
                add(&sample);
                left -= n;
            }
        }
        drop(sample);
        let fixed_u: Vec<Vec<Option<f64>>> = prepared
            .iter()
            .map(|p| p.spec.levels.iter().map(|l| l.u).collect())
            .collect();
        let fixed_m: Vec<Vec<Option<f64>>> = prepared
            .iter()
            .map(|p| p.spec.levels.iter().map(|l| l.m).collect())
            .collect();
        let u_rand: em::Table2 = (0..k)
            .map(|c| {
                let null = layout.null[c];
                let fixed_sum: f64 = fixed_u[c].iter().flatten().sum();
                let free: Vec<usize> = (0..layout.levels[c])
                    .filter(|&l| Some(l) != null && fixed_u[c][l].is_none())
                    .collect();
                // A level never seen among the random pairs gets a count of 1, not 0 (its
                // weight would be infinite), and stays within the probability floor.
                let cnt = |l: usize| (u_counts[c][l] as f64).max(1.0);
                let tot: f64 = free.iter().map(|&l| cnt(l)).sum();
                (0..layout.levels[c])
                    .map(|l| {
                        if Some(l) == null {
                            1.0
                        } else if let Some(v) = fixed_u[c][l] {
                            v
                        } else {
                            em::clamp_probability((1.0 - fixed_sum) * cnt(l) / tot)
                        }
                    })
                    .collect()
            })
            .collect();

        clock.lap("u from random pairs");
        // Blocking and comparison of every candidate pair in one pass (the kernel).
        let built = kernel.build();
        let n_pairs = built.candidates.len();
        let per_rule = built.per_rule.clone();
        let pattern_levels: Vec<Vec<u8>> =
            built.patterns.iter().map(|&c| kernel.decode(c)).collect();
        drop(kernel);
        let packed: Vec<u64> = pattern_levels.iter().map(|l| pack(l)).collect();
        // Pattern counts in the EM's code (packed levels; same order as the patterns).
        let counts: Vec<(u64, u64)> = packed
            .iter()
            .copied()
            .zip(built.counts.iter().copied())
            .collect();
        let by_rules: Vec<(u32, u64, u64)> = built
            .by_rules
            .iter()
            .map(|&(set, p, n)| (set, packed[p as usize], n))
            .collect();
        let mut candidates = built.candidates;

        clock.lap("blocking, comparison and pattern counts");
        // EM from deterministic starting values.
        let m0: em::Table2 = (0..k)
            .map(|c| {
                let mut m = start_m(layout.levels[c], layout.null[c]);
                let fixed_sum: f64 = fixed_m[c].iter().flatten().sum();
                let free_sum: f64 = (0..layout.levels[c])
                    .filter(|&l| Some(l) != layout.null[c] && fixed_m[c][l].is_none())
                    .map(|l| m[l])
                    .sum();
                for l in 0..layout.levels[c] {
                    if let Some(v) = fixed_m[c][l] {
                        m[l] = v;
                    } else if Some(l) != layout.null[c] && free_sum > 0.0 {
                        m[l] *= (1.0 - fixed_sum) / free_sum;
                    }
                }
                m
            })
            .collect();
        let lambda0 = if n_pairs > 0 {
            (ni.min(nr) as f64 / n_pairs as f64).clamp(1e-6, 0.5)
        } else {
            0.5
        };
        // Among the candidate pairs, a comparison on a column no blocking rule reads has, for
        // non-matches, the distribution of random pairs: its u stays at the sampled value,
        // which anchors EM. Comparisons on blocking columns agree more often than at random
        // within the blocks, so EM estimates their u among the candidates.
        let blocking_cols: std::collections::HashSet<&str> =
            rules.iter().flatten().map(|t| t.column()).collect();
        let em_fixed_u: Vec<Vec<Option<f64>>> = (0..k)
            .map(|c| {
                if self.params.u_free_in_em
                    || blocking_cols.contains(prepared[c].spec.column.as_str())
                {
                    fixed_u[c].clone()
                } else {
                    u_rand[c]
                        .iter()
                        .enumerate()
                        .map(|(l, &u)| (layout.null[c] != Some(l)).then_some(u))
                        .collect()
                }
            })
            .collect();
        let mut pattern_pairs: Vec<Vec<u64>> = layout.levels.iter().map(|&l| vec![0; l]).collect();
        for &(code, n) in &counts {
            for (c, row) in pattern_pairs.iter_mut().enumerate() {
                row[unpack(code, c)] += n;
            }
        }
        // u starts from the level shares among the candidate pairs (almost all non-matches),
        // not from the random pairs: within blocks the blocking columns agree far more often
        // than at random, and starting from the random-pair u would make every pair agreeing
        // on them look like a match.
        let u0: em::Table2 = (0..k)
            .map(|c| {
                let tot: u64 = (0..layout.levels[c])
                    .filter(|&l| layout.null[c] != Some(l))
                    .map(|l| pattern_pairs[c][l])
                    .sum();
                (0..layout.levels[c])
                    .map(|l| match em_fixed_u[c][l] {
                        Some(v) => v,
                        None if layout.null[c] == Some(l) => 1.0,
                        None if tot > 0 => (pattern_pairs[c][l] as f64).max(0.5) / tot as f64,
                        None => u_rand[c][l],
                    })
                    .collect()
            })
            .collect();
        let em_opts = EmOptions {
            max_iter: self.params.em_max_iter,
            tolerance: self.params.em_tolerance,
            fix_u: self.params.fix_u,
            // At most one true match per intruder record (and per released record).
            lambda_max: if n_pairs > 0 {
                (ni.min(nr) as f64 / n_pairs as f64).min(1.0)
            } else {
                1.0
            },
        };
        let (report, sessions) = match self.params.training {
            Training::Pooled => (
                em::estimate(
                    &counts,
                    &layout,
                    &m0,
                    &u0,
                    lambda0,
                    &fixed_m,
                    &em_fixed_u,
                    &em_opts,
                ),
                Vec::new(),
            ),
            Training::PerRule => {
                let model = train::Model {
                    layout: &layout,
                    columns: prepared.iter().map(|p| p.spec.column.as_str()).collect(),
                    m0: &m0,
                    fixed_m: &fixed_m,
                    fixed_u: &fixed_u,
                    u_rand: &u_rand,
                };
                let set = train::Settings {
                    max_iter: self.params.em_max_iter,
                    tolerance: self.params.em_tolerance,
                    fix_u: self.params.fix_u,
                    u_free: self.params.u_free_in_em,
                    n_min: ni.min(nr),
                };
                train::per_rule(
                    rules,
                    &by_rules,
                    n_pairs,
                    &counts,
                    &model,
                    &set,
                    &u0,
                    &em_fixed_u,
                )
            }
        };

        clock.lap("EM");
        // Prediction weights: m and u kept within the probability floor, so that no level weighs
        // more than ±log2((1 − 1e-6) / 1e-6) ≈ 19.93.
        let level_weights: Vec<Vec<f64>> = (0..k)
            .map(|c| {
                (0..layout.levels[c])
                    .map(|l| {
                        if layout.null[c] == Some(l) {
                            0.0
                        } else {
                            (em::clamp_probability(report.m[c][l])
                                / em::clamp_probability(u_rand[c][l]))
                            .log2()
                        }
                    })
                    .collect()
            })
            .collect();
        let matches = report.lambda * n_pairs as f64;
        let lambda = (matches / (ni as f64 * nr as f64)).clamp(1e-300, 1.0 - 1e-12);
        let prior_weight = weight_of_probability(lambda);
        let exact: Vec<Option<usize>> = prepared.iter().map(|p| p.exact_level()).collect();
        // Term-frequency adjustment by the intruder's value id.
        let tf: Vec<Option<Vec<f64>>> = prepared
            .iter()
            .enumerate()
            .map(|(c, p)| {
                let l = exact[c]?;
                p.spec.term_frequency.then(|| {
                    let t = TermFrequencies::new(p);
                    let u = em::clamp_probability(u_rand[c][l]);
                    (0..p.dict.len() as u32)
                        .map(|id| t.adjustment(id, u))
                        .collect()
                })
            })
            .collect();
        let scorer = Scorer {
            base: pattern_levels
                .iter()
                .map(|lv| {
                    let mut w = prior_weight;
                    for (c, &l) in lv.iter().enumerate() {
                        w += level_weights[c][l as usize];
                    }
                    w
                })
                .collect(),
            tf_mask: pattern_levels
                .iter()
                .map(|lv| {
                    (0..k)
                        .filter(|&c| tf[c].is_some() && exact[c] == Some(lv[c] as usize))
                        .fold(0u16, |m, c| m | 1 << c)
                })
                .collect(),
            a_ids: prepared
                .iter()
                .enumerate()
                .map(|(c, p)| {
                    if tf[c].is_some() {
                        p.a.clone()
                    } else {
                        Vec::new()
                    }
                })
                .collect(),
            tf,
        };

        // No pair can be declared when even the best levels everywhere stay under the threshold.
        let thr_w = weight_of_probability(self.params.threshold);
        let mut warnings = Vec::new();
        let best = best_reachable(&prepared, &layout, &level_weights, &scorer, prior_weight);
        if best.total < thr_w {
            warnings.push(format!(
                "no pair can be declared a link: the largest match weight any pair can reach is {:+.3} (match probability {:.3e}), below the threshold's weight {thr_w:+.3} (match probability {}); prior weight {prior_weight:+.3} (lambda {lambda:.3e}), best level of each comparison: {}. Lower the threshold, or check the m and u of the levels above",
                best.total,
                probability_of_weight(best.total),
                self.params.threshold,
                best.parts.join(", ")
            ));
        }

        clock.lap("weights");
        // Decisions.
        candidates.sort_by_weight(&scorer);
        let mut links = 0usize;
        let records: Vec<Candidates> = match self.params.assignment {
            Assignment::None => (0..ni)
                .map(|i| {
                    let (js, ps) = candidates.of(i);
                    let list: Vec<(usize, f64)> = js
                        .iter()
                        .zip(ps)
                        .map(|(&j, &p)| (j as usize, scorer.weight(i, p)))
                        .collect();
                    links += list.iter().filter(|x| x.1 >= thr_w).count();
                    Candidates::from_scored(list)
                })
                .collect(),
            Assignment::Greedy | Assignment::Optimal => {
                let assigned = if self.params.assignment == Assignment::Greedy {
                    candidates.greedy(&scorer, nr)
                } else {
                    // Only pairs at or above the threshold can be linked.
                    let mut above = Pairs::default();
                    let mut w = Vec::new();
                    for (i, j, p) in candidates.iter() {
                        let x = scorer.weight(i, p);
                        if x >= thr_w {
                            above.intruder.push(i as u32);
                            above.released.push(j);
                            w.push(x);
                        }
                    }
                    predict::optimal(&above, &w, ni, nr, thr_w)?
                };
                assigned
                    .into_iter()
                    .map(|a| match a {
                        Some((j, w)) => {
                            links += usize::from(w >= thr_w);
                            Candidates {
                                list: vec![Candidate {
                                    row: j as usize,
                                    score: w,
                                    rank: 1,
                                }],
                                unlisted: 0,
                            }
                        }
                        None => Candidates::default(),
                    })
                    .collect()
            }
        };
        clock.lap("one-to-one");
        let comparisons = prepared
            .iter()
            .enumerate()
            .map(|(c, p)| ComparisonReport {
                column: p.spec.column.clone(),
                released: p.released_column.clone(),
                levels: p
                    .spec
                    .levels
                    .iter()
                    .enumerate()
                    .map(|(l, lev)| {
                        let null = layout.null[c] == Some(l);
                        LevelReport {
                            level: lev.label(),
                            m: (!null).then_some(report.m[c][l]),
                            u: (!null).then_some(u_rand[c][l]),
                            u_candidates: (!null).then_some(report.u[c][l]),
                            weight: level_weights[c][l],
                            pairs: pattern_pairs[c][l],
                            fixed: lev.m.is_some() || lev.u.is_some(),
                            term_frequency: p.spec.term_frequency && exact[c] == Some(l),
                        }
                    })
                    .collect(),
            })
            .collect();
        let mut notes = vec![
            ("candidate_pairs".to_string(), n_pairs as f64),
            ("u_pairs".into(), plan.pairs as f64),
            ("u_every_pair".into(), f64::from(u8::from(plan.every_pair))),
            ("agreement_patterns".into(), counts.len() as f64),
            ("em_sessions".into(), sessions.len() as f64),
            ("em_iterations".into(), report.iterations as f64),
            ("em_converged".into(), f64::from(u8::from(report.converged))),
            ("lambda_candidates".into(), report.lambda),
            ("lambda".into(), lambda),
            ("prior_weight".into(), prior_weight),
            ("threshold_match_probability".into(), self.params.threshold),
            ("threshold_match_weight".into(), thr_w),
            ("links_at_threshold".into(), links as f64),
        ];
        for (r, n) in per_rule.iter().enumerate() {
            notes.push((format!("pairs_blocking_rule_{}", r + 1), *n as f64));
        }
        for (r, t) in sessions.iter().enumerate() {
            notes.push((format!("em_session_{}_pairs", r + 1), t.pairs as f64));
            notes.push((
                format!("em_session_{}_iterations", r + 1),
                t.iterations as f64,
            ));
            notes.push((
                format!("em_session_{}_converged", r + 1),
                f64::from(u8::from(t.converged)),
            ));
            notes.push((format!("em_session_{}_lambda", r + 1), t.lambda));
        }
        let linkage = Linkage {
            method: "fellegi-sunter".into(),
            scored: true,
            complete: self.params.assignment == Assignment::None,
            released_rows: nr,
            records,
            notes,
            lister: None,
        };
        let model = FsModel {
            spec,
            pairs_per_rule: per_rule.clone(),
            candidate_pairs: n_pairs,
            patterns: counts.len(),
            u_sample: self.params.u_sample,
            u_pairs: plan.pairs,
            u_every_pair: plan.every_pair,
            training: self.params.training,
            sessions,
            em: report,
            lambda,
            prior_weight,
            threshold: self.params.threshold,
            threshold_weight: thr_w,
            assignment: self.params.assignment,
            links,
            comparisons,
            warnings,
        };
        Ok(FsRun {
            model,
            linkage,
            candidates,
            pattern_levels,
            scorer,
            dims: (ni, nr),
            prepared,
            level_weights,
        })
    }
}

/// Phase timings printed to stderr when `INTRUDER_FS_TIMING` is set (for benchmarks).
struct Clock(Option<std::time::Instant>);

impl Clock {
    fn new() -> Self {
        Clock(std::env::var_os("INTRUDER_FS_TIMING").map(|_| std::time::Instant::now()))
    }

    fn lap(&mut self, what: &str) {
        if let Some(t) = &mut self.0 {
            eprintln!("fellegi-sunter: {what}: {:.3} s", t.elapsed().as_secs_f64());
            *t = std::time::Instant::now();
        }
    }
}

/// The largest weight a pair can reach: the prior plus, per comparison, its best level (the
/// null level counts, weight 0), the exact level with the largest term-frequency adjustment of
/// a value both files hold.
struct Reachable {
    total: f64,
    parts: Vec<String>,
}

fn best_reachable(
    prepared: &[Prepared],
    layout: &em::Layout,
    level_weights: &[Vec<f64>],
    scorer: &Scorer,
    prior_weight: f64,
) -> Reachable {
    let mut total = prior_weight;
    let mut parts = Vec::new();
    for (c, p) in prepared.iter().enumerate() {
        let adj = |l: usize| -> f64 {
            match &scorer.tf[c] {
                Some(t) if p.exact_level() == Some(l) => {
                    let mut in_b = vec![false; p.dict.len()];
                    for &y in p.b.iter().filter(|&&y| y != compare::MISSING) {
                        in_b[y as usize] = true;
                    }
                    p.a.iter()
                        .filter(|&&x| x != compare::MISSING && in_b[x as usize])
                        .map(|&x| t[x as usize])
                        .fold(f64::NEG_INFINITY, f64::max)
                }
                _ => 0.0,
            }
        };
        let (l, w) = (0..layout.levels[c])
            .map(|l| {
                let a = adj(l);
                (l, level_weights[c][l] + if a.is_finite() { a } else { 0.0 })
            })
            .fold((0, f64::NEG_INFINITY), |b, x| if x.1 > b.1 { x } else { b });
        total += w;
        parts.push(format!(
            "{} {} {w:+.3}",
            p.spec.column,
            p.spec.levels[l].label()
        ));
    }
    Reachable { total, parts }
}

impl Attack for FellegiSunter {
    fn name(&self) -> &'static str {
        "fellegi-sunter"
    }

    fn link(
        &self,
        knowledge: &Knowledge,
        released: &Table,
        seed: u64,
    ) -> Result<Linked, AttackError> {
        let mut run = self.run(knowledge, released, seed)?;
        let linkage = std::mem::replace(
            &mut run.linkage,
            Linkage {
                method: "fellegi-sunter".into(),
                scored: true,
                complete: false,
                released_rows: 0,
                records: Vec::new(),
                notes: Vec::new(),
                lister: None,
            },
        );
        Ok(Linked {
            linkage,
            model: Some(Box::new(run)),
        })
    }

    fn declared_threshold(&self) -> Option<f64> {
        Some(weight_of_probability(self.params.threshold))
    }

    fn params(&self) -> serde_json::Map<String, serde_json::Value> {
        self.params.to_json()
    }

    fn implied_keys(&self) -> Option<KeyMap> {
        let spec = self.params.spec.as_ref()?;
        KeyMap::new(Self::spec_keys(spec)).ok()
    }

    fn fits_model(&self) -> bool {
        true
    }
}

impl LinkModel for FsRun {
    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.model).unwrap_or(serde_json::Value::Null)
    }

    fn to_text(&self) -> String {
        self.model.to_table()
    }

    fn explain_pair(&self, i: usize, j: usize) -> Result<Waterfall, AttackError> {
        FsRun::explain_pair(self, i, j)
    }

    fn write_pairs(
        &self,
        path: &Path,
        intruder_id: &dyn Fn(usize) -> String,
        released_id: &dyn Fn(usize) -> String,
        floor: f64,
    ) -> Result<usize, AttackError> {
        FsRun::write_pairs(self, path, intruder_id, released_id, floor)
    }
}
