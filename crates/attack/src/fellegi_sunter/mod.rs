//! Fellegi–Sunter probabilistic record linkage (Fellegi & Sunter 1969; METHODS.md §2.5), as an
//! intruder with an error-prone copy of the data would run it.
//!
//! 1. **Blocking** ([`blocking`]): candidate pairs agree on every term of at least one rule;
//!    rules are OR-ed without duplicate pairs. A term is a column, an expression of a column
//!    ([`expr`]) or `l.EXPR = r.EXPR` on swapped columns.
//! 2. **Comparison** ([`compare`]): each pair falls, per comparison, in the first level whose
//!    condition holds (null, exact, Jaro–Winkler ≥ t, Jaro ≥ t, Levenshtein ≤ d,
//!    Damerau–Levenshtein ≤ d, |Δ| ≤ t, relative Δ ≤ t, dates ≤ t days, months or years apart,
//!    arrays with ≥ t items in common, columns reversed, else), each level possibly on an
//!    expression of the column; Splink's comparisons are presets ([`presets`]). The levels of a
//!    pair are packed into one integer (4 bits a comparison) and the patterns counted, so EM is
//!    linear in the number of pairs.
//! 3. **Estimation**: `u_k(l)` over two random records of the files: counted exactly from the
//!    values' frequencies where that is cheaper, else from seeded random pairs (`u_sample`;
//!    random pairs are almost all non-matches; when `u_sample` reaches `n_I × n_R`, every pair
//!    once instead, see [`UPlan`]; module `ustats`); `m_k(l)` and the share of matches among the
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
//!    candidate pair (the description above without sessions). A specification's `[training]`
//!    table writes Splink's recipe instead ([`spec::TrainingSpec`]): the sessions' own rules,
//!    and λ from deterministic rules at a given recall.
//! 4. **Prediction**: match weight `w = log2(λ/(1−λ)) + Σ_k log2(m_k(l)/u_k(l))` (+ term-frequency
//!    adjustments, [`tf`]) with the prior `λ = λ_C |C| / (n_I n_R)` (or the deterministic
//!    rules' λ), the probability that two
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

mod assign;
pub mod blocking;
mod check;
pub mod compare;
pub mod counted;
pub mod em;
pub mod encode;
mod explain;
pub mod expr;
mod fit;
pub mod kernel;
pub mod predict;
pub mod presets;
mod report;
mod run;
mod score;
mod setup;
pub mod spec;
pub mod strings;
pub mod tf;
pub mod train;
mod ustats;

pub use blocking::Pairs;
pub use check::{MAX_COMPARISONS, MAX_LEVELS};
pub use em::{EmOptions, EmReport};
pub use expr::Expr;
pub use predict::Assignment;
pub use report::{ComparisonReport, FsModel, LevelReport, Waterfall, WaterfallStep};
pub use run::{FsRun, ScoredPair, check_pair, floor_weight, write_scored_pairs};
pub use spec::{Comparison, DateMetric, Level, LevelKind, LinkageSpec, SpecError, Term};
pub use tf::ValueCounts;
pub use train::TrainingSession;

use std::path::Path;

use intruder_table::Table;
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec, Range};

use crate::error::{AttackError, ParamError};
use crate::keys::KeyMap;
use crate::linkage::Linkage;
use crate::{Attack, Knowledge, LinkModel, Linked};
use compare::pack;
use kernel::Kernel;

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
    )
    .flag_alias(&["spec"]),
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

/// The registry entry (`ATTACKS`).
pub const ENTRY: Entry<dyn Attack> = Entry {
    name: "fellegi-sunter",
    summary: "Fellegi-Sunter probabilistic linkage: blocking, comparison levels, u by random pairs, m and lambda by EM, term frequencies, one-to-one",
    reference: "Fellegi & Sunter 1969; Winkler 1988/1989 (EM, term frequencies); Splink",
    params: PARAMS,
    figures: &[],
    build: FellegiSunter::build,
};

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

/// The Fellegi–Sunter attack; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct FellegiSunter {
    params: FsParams,
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

    /// Blocks, estimates and predicts; see the [module docs](self). `seed` drives the random
    /// pairs of the u estimate. The steps, each its own module: set-up (`setup`), u
    /// (`ustats`), blocking and comparison ([`kernel`]), training (`fit`, [`train`], [`em`]),
    /// weights (`score`), assignment (`assign`, [`predict`]), explanation (`explain`).
    pub fn run(
        &self,
        knowledge: &Knowledge,
        released: &Table,
        seed: u64,
    ) -> Result<FsRun, AttackError> {
        let p = &self.params;
        let setup = setup::Setup::new(p, knowledge, released)?;
        let dims = (setup.ni, setup.nr);
        let mut clock = Clock::new();
        let kernel = Kernel::new(&setup.prepared, &setup.rule_keys, setup.ni, setup.nr);
        clock.lap("encoding, blocking keys and record layout");
        let plan = UPlan::new(p.u_sample, setup.ni, setup.nr)?;
        let u = ustats::estimate_u(&kernel, &setup.prepared, &setup.layout, plan, seed);
        clock.lap("u (value frequencies and random pairs)");
        // Blocking and comparison of every candidate pair in one pass (the kernel).
        let built = kernel.build();
        let n_pairs = built.candidates.len();
        let pattern_levels: Vec<Vec<u8>> =
            built.patterns.iter().map(|&c| kernel.decode(c)).collect();
        drop(kernel);
        let packed: Vec<u64> = pattern_levels.iter().map(|l| pack(l)).collect();
        let counts: Vec<(u64, u64)> = packed.iter().copied().zip(built.counts).collect();
        let by_rules: Vec<(u32, u64, u64)> = built
            .by_rules
            .iter()
            .map(|&(set, q, n)| (set, packed[q as usize], n))
            .collect();
        let mut candidates = built.candidates;
        clock.lap("blocking, comparison and pattern counts");
        let patterns = fit::PatternCounts {
            counts: &counts,
            by_rules: &by_rules,
            n_pairs,
        };
        let rules = &setup.spec.blocking;
        let own = training_patterns(&setup);
        let own_counts = own.as_ref().map(|(by_rules, n)| fit::PatternCounts {
            counts: &[],
            by_rules,
            n_pairs: *n,
        });
        let sessions = setup.spec.training.as_ref().map(|t| t.blocking.as_slice());
        let sessions = sessions.zip(own_counts.as_ref());
        let fitted = fit::fit(
            p,
            &setup.prepared,
            &setup.layout,
            rules,
            &patterns,
            sessions,
            &u.u,
            dims,
        );
        clock.lap("EM");
        let s = score::score(
            p.threshold,
            &setup.prepared,
            &setup
                .prepared
                .iter()
                .map(ValueCounts::of)
                .collect::<Vec<_>>(),
            &setup.layout,
            &fitted.report,
            &u.u,
            &pattern_levels,
            n_pairs,
            setup.deterministic.map(|d| d.0),
            dims,
        );
        clock.lap("weights");
        candidates.sort_by_weight(&s.scorer);
        let thr_w = s.threshold_weight;
        let (records, links) = assign::assign(p.assignment, &candidates, &s.scorer, thr_w, dims)?;
        clock.lap("one-to-one");
        let comparisons = explain::comparison_reports(
            &setup.prepared,
            &setup.layout,
            &fitted,
            &u,
            &s.level_weights,
        );
        let mut notes = explain::notes(
            p,
            plan,
            &u,
            &fitted,
            counts.len(),
            &built.per_rule,
            (n_pairs, links),
            (s.lambda, s.prior_weight, thr_w),
        );
        if let Some((_, pairs)) = setup.deterministic {
            notes.push(("lambda_deterministic_pairs".into(), pairs as f64));
        }
        let self_weights = explain::self_match_weights(
            &setup.prepared,
            &s.level_weights,
            &s.scorer,
            s.prior_weight,
            setup.ni,
        );
        let borderline = borderline_link(&records, thr_w, p.assignment);
        let linkage = Linkage {
            method: "fellegi-sunter".into(),
            scored: true,
            complete: p.assignment == Assignment::None,
            released_rows: setup.nr,
            records,
            notes,
            lister: None,
        };
        let model = FsModel {
            spec: setup.spec,
            pairs_per_rule: built.per_rule,
            candidate_pairs: n_pairs,
            patterns: counts.len(),
            u_sample: p.u_sample,
            u_pairs: plan.pairs,
            u_every_pair: plan.every_pair,
            training: p.training,
            sessions: fitted.sessions,
            em: fitted.report,
            lambda: s.lambda,
            prior_weight: s.prior_weight,
            threshold: p.threshold,
            threshold_weight: thr_w,
            assignment: p.assignment,
            links,
            comparisons,
            warnings: s.warnings,
            self_match_weights: self_weights,
            borderline: None,
        };
        let mut run = FsRun {
            model,
            linkage,
            candidates,
            pattern_levels,
            scorer: s.scorer,
            dims,
            prepared: setup.prepared,
            level_weights: s.level_weights,
        };
        run.model.borderline = borderline.and_then(|(i, j)| run.explain_pair(i, j).ok());
        clock.lap("explanation");
        Ok(run)
    }
}

/// The link the model explains (`borderline`): the declared link of least weight, then of
/// least intruder row; none without assignment. `(intruder row, released row)`.
pub(crate) fn borderline_link(
    records: &[crate::linkage::Candidates],
    threshold_weight: f64,
    assignment: Assignment,
) -> Option<(usize, usize)> {
    if assignment == Assignment::None {
        return None;
    }
    records
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.list.first().map(|c| (i, c.row, c.score)))
        .filter(|x| x.2 >= threshold_weight)
        .min_by(|x, y| x.2.total_cmp(&y.2).then(x.0.cmp(&y.0)))
        .map(|x| (x.0, x.1))
}

/// `(rule set, packed pattern, pairs)` of some pairs.
type ByRules = Vec<(u32, u64, u64)>;

/// The pattern counts of the training rules' pairs by the set of training rules they agree
/// on (`training.blocking`), and their number; `None` without training rules.
fn training_patterns(setup: &setup::Setup) -> Option<(ByRules, usize)> {
    if setup.training_keys.is_empty() {
        return None;
    }
    let kernel = Kernel::new(&setup.prepared, &setup.training_keys, setup.ni, setup.nr);
    let built = kernel.build();
    let packed: Vec<u64> = built
        .patterns
        .iter()
        .map(|&c| pack(&kernel.decode(c)))
        .collect();
    let by_rules = built
        .by_rules
        .iter()
        .map(|&(set, q, n)| (set, packed[q as usize], n))
        .collect();
    Some((by_rules, built.candidates.len()))
}

/// Phase timings printed to stderr when `INTRUDER_FS_TIMING` is set (for benchmarks), each
/// line `LABEL: PHASE: SECONDS s`.
pub struct Clock(Option<(std::time::Instant, &'static str)>);

impl Clock {
    /// A clock whose lines start with `label` (off unless `INTRUDER_FS_TIMING` is set).
    pub fn labelled(label: &'static str) -> Self {
        Clock(std::env::var_os("INTRUDER_FS_TIMING").map(|_| (std::time::Instant::now(), label)))
    }

    fn new() -> Self {
        Self::labelled("fellegi-sunter")
    }

    /// Prints the time since the last lap as `what`'s.
    pub fn lap(&mut self, what: &str) {
        if let Some((t, label)) = &mut self.0 {
            eprintln!("{label}: {what}: {:.3} s", t.elapsed().as_secs_f64());
            *t = std::time::Instant::now();
        }
    }
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
        KeyMap::new(setup::spec_keys(spec)).ok()
    }

    fn fits_model(&self) -> bool {
        true
    }

    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
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
