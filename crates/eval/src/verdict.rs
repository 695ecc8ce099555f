//! The cross-examination of a masking run: every promise a defence makes about its output,
//! checked with the toolkit's own exact attack and class counts under every matching rule.
//!
//! A defence that promises k-anonymity states the intruder it protects against
//! ([`ProtectAgainst`]). Whether the promise is worth anything is decided here, from the outside:
//! an intruder who knows every original record's key values (mapped through the release's public
//! recodings, [`intruder_defence::Pipeline::intruder_view`]) runs the exact attack against the
//! output under the listwise and the wildcard rule, and the output's own classes are counted
//! under the listwise, as-value and wildcard rules. Who is who comes from the masking log's kept
//! rows; no truth column is needed.
//!
//! # Figures, per rule
//! - `unsafe_records`: released records in classes below the promised k (listwise: complete
//!   records whose class among the complete records is smaller; as-value: records whose class of
//!   visible values and blanks is smaller; wildcard: records matched by fewer records when a
//!   blank matches anything) — or, for a risk promise, records whose individual risk (1/f_k, or
//!   Benedetti–Franconi with the promise's weights, over the same classes) is above it;
//! - `min_class`: the smallest such class (the file's k under the rule);
//! - the exact attack (listwise and wildcard), one target per original record: the candidates
//!   `c_i` of target `i` are the released records equal to its known values (listwise: complete
//!   records only; wildcard: wherever they show a value), and `expected_correct` = Σ 1/c_i over
//!   the targets whose own record is among them (Mitra's expected correct identifications: the
//!   correct re-identifications of an intruder who picks one candidate at random), `rate` =
//!   expected_correct / targets; `unique_correct` counts targets with c_i = 1 and their own
//!   record the one. A promise of k under a rule bounds that rule's rate by 1/k.
//!
//! # A synthetic release
//! When a synthesiser made the released records (`intruder_defence::ChangeLog::synthetic`), the
//! log's kept rows are empty: no released record is an original record. The class counts are
//! those of the released file, as for any release, and the exact attack finds no target's own
//! record among its candidates, so its expected and unique correct re-identifications are 0 —
//! the honest figure, not a comparison of synthetic records with unrelated originals.
//! Synthesisers promise nothing about k (a differential-privacy guarantee is not checked here),
//! so the check has no promise.
//!
//! # A perturbed release
//! Swapping and perturbation (`record-swap`, `rank-swap`, `pram`, `noise`) promise nothing about
//! k: a swapped household keeps every value but its geography, so it is as unique in its new
//! area as in its old one, and its class counts say nothing of the protection. The check has no
//! promise and reports the attack as it is: a target whose released record was moved or changed
//! is not among its candidates (the intruder's unique match is then someone else), so the rate
//! falls with the records changed — the protection such a release offers is that the intruder
//! cannot tell which matches are wrong. They are not public recodings either: an intruder cannot
//! repeat them on their own copy.
//!
//! # Verdict
//! A promise is **contradicted** when, under a rule it covers, a released record is in a class
//! below k (or above the risk threshold), or the attack's rate exceeds 1/k. Under a rule it does
//! not cover, the same findings make a warning that the promise does **not cover** an intruder
//! the toolkit simulates. Both name the rule and the figure.

use std::collections::BTreeSet;

use intruder_attack::AttackError;
use intruder_attack::KeyMap;
use intruder_attack::keys::{encode, resolve};
use intruder_data::Role;
use intruder_data::keys::{Keys, MISSING, Packing, PatternIndex, SetMasks};
use intruder_data::report::{Figure, Report, ReportTable, Unit};
use intruder_data::{Table, numeric};
use intruder_defence::{ChangeLog, Claim, DefenceError, MatchRule, Pipeline};
use rayon::prelude::*;
use serde::Serialize;
use serde_json::json;

/// The exact attack under one rule, every original record a target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttackCheck {
    /// Targets: the original records (the intruder knows them all).
    pub targets: usize,
    /// Σ 1/c_i over the targets whose own released record is among their c_i candidates.
    pub expected_correct: f64,
    /// `expected_correct / targets`: correct re-identifications per target.
    pub rate: f64,
    /// Targets with exactly one candidate, their own record.
    pub unique_correct: usize,
}

impl AttackCheck {
    /// The figures of `targets` targets with `expected` correct re-identifications (Σ 1/c_i)
    /// and `unique` unique ones; the rate is 0 without targets.
    fn of(targets: usize, expected: f64, unique: usize) -> AttackCheck {
        AttackCheck {
            targets,
            expected_correct: expected,
            rate: if targets == 0 {
                0.0
            } else {
                expected / targets as f64
            },
            unique_correct: unique,
        }
    }
}

/// The output under one rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuleCheck {
    /// The rule.
    pub rule: MatchRule,
    /// Released records the rule judges (listwise: the complete ones; else all).
    pub judged: usize,
    /// Released records below the promise (classes below k, or risk above the threshold); 0
    /// without a promise.
    pub unsafe_records: usize,
    /// The smallest class under the rule (`None` when no record is judged).
    pub min_class: Option<u64>,
    /// The exact attack under the rule (listwise and wildcard only).
    pub attack: Option<AttackCheck>,
    /// Whether the promise covers the rule (`false` without a promise).
    pub covered: bool,
}

/// How a promise fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Kept under every rule.
    Holds,
    /// Kept under the rules it covers, broken under another the toolkit's attacks use.
    NotCovered,
    /// Broken under a rule it covers.
    Contradicted,
    /// No promise was made: the figures are reported as they are.
    NoClaim,
}

impl Verdict {
    /// The word shown in reports.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::NotCovered => "holds only under the rules promised",
            Verdict::Contradicted => "contradicted",
            Verdict::NoClaim => "no promise",
        }
    }
}

/// One promise (or, without any, the default keys) checked under every rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// The promise checked, if any.
    pub claim: Option<Claim>,
    /// The keys.
    pub keys: Vec<String>,
    /// Per rule.
    pub rules: Vec<RuleCheck>,
    /// The verdict.
    pub verdict: Verdict,
    /// Key cells observed in the original record and blank in its released record.
    pub suppressed: usize,
    /// Key cells of the released records (released records × keys).
    pub key_cells: usize,
    /// The warnings this check raised (also in [`CrossExamination::warnings`]).
    pub warnings: Vec<String>,
}

/// Every check of one masking run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CrossExamination {
    /// Original records (the targets).
    pub targets: usize,
    /// Released records.
    pub released: usize,
    /// One per promise, or one for the default keys when nothing was promised.
    pub checks: Vec<Check>,
    /// Every warning, naming the step, the rule and the figure.
    pub warnings: Vec<String>,
}

/// Cross-examines a masking run. `intruder_view` holds the original records as the intruder
/// knows them (public recodings applied), `released` the output, `kept_rows[r]` the original row
/// of released row `r`. Each claim is checked on its keys; without claims, `default_keys` (if
/// any) are checked with no promise. Errors: a key missing from either table, or of
/// incompatible types.
pub fn cross_examine(
    intruder_view: &Table,
    released: &Table,
    kept_rows: &[usize],
    claims: &[Claim],
    default_keys: &[String],
) -> Result<CrossExamination, AttackError> {
    let mut checks = Vec::new();
    let mut cache: Vec<(Vec<String>, Option<String>, Counts)> = Vec::new();
    let mut jobs: Vec<(Option<&Claim>, Vec<String>)> =
        claims.iter().map(|c| (Some(c), c.keys.clone())).collect();
    if claims.is_empty() && !default_keys.is_empty() {
        jobs.push((None, default_keys.to_vec()));
    }
    for (claim, keys) in jobs {
        let weight = claim.and_then(|c| c.weight.clone());
        let pos = cache
            .iter()
            .position(|(k, w, _)| *k == keys && *w == weight);
        let i = match pos {
            Some(i) => i,
            None => {
                let counts = Counts::new(intruder_view, released, kept_rows, &keys, &weight)?;
                cache.push((keys.clone(), weight, counts));
                cache.len() - 1
            }
        };
        checks.push(judge(claim, keys, &cache[i].2));
    }
    let warnings = checks.iter().flat_map(|c| c.warnings.clone()).collect();
    Ok(CrossExamination {
        targets: intruder_view.nrows(),
        released: released.nrows(),
        checks,
        warnings,
    })
}

/// Why a run could not be cross-examined.
#[derive(Debug)]
pub enum CheckError {
    /// The attack could not run (a key missing or of incompatible types).
    Attack(AttackError),
    /// The intruder's view could not be made (a public recoding failed on the original).
    Defence(DefenceError),
}

impl std::fmt::Display for CheckError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckError::Attack(e) => write!(f, "cross-examination: {e}"),
            CheckError::Defence(e) => write!(f, "cross-examination: {e}"),
        }
    }
}

impl std::error::Error for CheckError {}

impl From<AttackError> for CheckError {
    fn from(e: AttackError) -> Self {
        CheckError::Attack(e)
    }
}

impl From<DefenceError> for CheckError {
    fn from(e: DefenceError) -> Self {
        CheckError::Defence(e)
    }
}

/// Cross-examines one run of `pipeline` on `original` (its output `masked`, its `log`): every
/// promise of the pipeline's steps, the intruder holding `original` mapped through the
/// pipeline's public recodings. `check_keys` adds a check without a promise on those keys; when
/// no step promises anything and no keys are given, the key columns of `original`'s schema (role
/// key) are checked, and with none of those either the result has no check (the caller says so).
/// Every surface (`intruder mask`, Python's `mask`, the experiment runner) calls this.
pub fn cross_examine_run(
    pipeline: &Pipeline,
    original: &Table,
    masked: &Table,
    log: &ChangeLog,
    check_keys: Option<&[String]>,
) -> Result<CrossExamination, CheckError> {
    let claims = pipeline.claims();
    let schema_keys: Vec<String> = original
        .with_role(Role::Key)
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    let default_keys: Vec<String> = match check_keys {
        Some(k) => k.to_vec(),
        None if claims.is_empty() => schema_keys,
        None => Vec::new(),
    };
    let view = pipeline.intruder_view_of(original)?;
    let mut x = cross_examine(&view, masked, &log.kept_rows, &claims, &[])?;
    if !default_keys.is_empty() {
        let extra = cross_examine(&view, masked, &log.kept_rows, &[], &default_keys)?;
        x.checks.extend(extra.checks);
    }
    Ok(x)
}

/// The released file's classes under each rule, one entry per distinct released tuple (every
/// record of a tuple is in the same class under every rule), and the attacks.
struct Counts {
    /// Records of each tuple.
    size: Vec<u64>,
    /// Whether each tuple observes every key (its records are judged under the listwise rule).
    complete: Vec<bool>,
    /// Per tuple, its as-value class: records and summed weight (records without weights).
    as_value: Vec<(u64, f64)>,
    /// Per tuple, its wildcard class: the records matching it and their summed weight.
    wildcard: Vec<(u64, f64)>,
    weighted: bool,
    suppressed: usize,
    key_cells: usize,
    attack_listwise: AttackCheck,
    attack_wildcard: AttackCheck,
}

impl Counts {
    fn new(
        intruder_view: &Table,
        released: &Table,
        kept_rows: &[usize],
        keys: &[String],
        weight: &Option<String>,
    ) -> Result<Counts, AttackError> {
        let map = KeyMap::same(keys)?;
        let pair = same_values(intruder_view, released, kept_rows, keys)?;
        let (queries, stored, blanks) = if let Some((q, s, blanks)) = pair {
            (q, s, Some(blanks))
        } else if released.nrows() == 0 || intruder_view.nrows() == 0 {
            let q = Keys::encode(intruder_view, keys, Default::default())?;
            let s = Keys::encode(released, keys, Default::default())?;
            (q, s, None)
        } else {
            let (q, s) = encode(&resolve(intruder_view, released, &map)?);
            (q, s, None)
        };
        let w: Option<Vec<f64>> = match weight {
            Some(name) => Some(numeric::values(released.column(name)?)),
            None => None,
        };
        // The released file's distinct tuples (its as-value classes), with their records and
        // summed weights: every class count and both attacks work on tuples, not records. When
        // the records are in place, the targets whose records lost a value are found meanwhile.
        let rows: Vec<u32> = (0..stored.n as u32).collect();
        let ((classes, entry), changed) = rayon::join(
            || distinct(&stored, &rows, w.as_deref()),
            || blanks.map(|b| Changed::find(&queries, b)),
        );
        let weighted = w.is_some();
        let size: Vec<u64> = (0..classes.len()).map(|e| classes.size(e) as u64).collect();
        let as_value: Vec<(u64, f64)> = (0..classes.len())
            .map(|e| {
                let n = size[e];
                (
                    n,
                    if weighted {
                        classes.weight(e)
                    } else {
                        n as f64
                    },
                )
            })
            .collect();
        let complete: Vec<bool> = (0..classes.len())
            .map(|e| stored.complete(classes.row(e) as usize))
            .collect();
        let blanked = changed.as_ref().map(|c| c.blanked);
        let (matched, attack_listwise, attack_wildcard) = if let Some(mut changed) = changed {
            // Every record in place and only blanks added: a target whose record kept all its
            // values has its own tuple's classes as candidates, which the self-join counts.
            let (matched, counts) = if weighted {
                rayon::join(|| classes.self_join(), || changed.candidates(&classes))
            } else {
                // record counts alone: both joins at once, each pair of sides met once
                let (own, cross) = classes.match_counts(&changed.tuples);
                let with_count = |n: u64| (n, n as f64);
                (
                    own.into_iter().map(with_count).collect(),
                    cross.into_iter().map(with_count).collect(),
                )
            };
            changed.counts = counts;
            let classes_of = (entry.as_slice(), size.as_slice(), complete.as_slice());
            let (l, wc) = attacks_in_place(&queries, classes_of, &matched, &changed);
            (matched, l, wc)
        } else {
            let mut twin = vec![None; queries.n];
            for (r, &o) in kept_rows.iter().enumerate() {
                if o < twin.len() {
                    twin[o] = Some(r);
                }
            }
            let l = attack_listwise(&queries, &stored, &classes, &entry, &twin);
            // The released file's wildcard matches, and the attack, are independent: both at once.
            let (matched, wc) = rayon::join(
                || classes.self_join(),
                || {
                    // the targets' distinct tuples: each looked up once, however many share it
                    let all_rows: Vec<u32> = (0..queries.n as u32).collect();
                    let (qidx, qentry) = distinct(&queries, &all_rows, None);
                    let reps: Vec<u32> = (0..qidx.len()).map(|e| qidx.row(e)).collect();
                    let targets = Targets {
                        all: &queries,
                        distinct: take_keys(&queries, &reps),
                        entry: &qentry,
                    };
                    attack(&targets, &stored, &classes, &twin)
                },
            );
            (matched, l, wc)
        };
        let wildcard: Vec<(u64, f64)> = matched
            .iter()
            .map(|&(n, f)| (n, if weighted { f } else { n as f64 }))
            .collect();
        let suppressed = blanked.unwrap_or_else(|| {
            let mut suppressed = 0;
            for (sc, qc) in stored.codes.iter().zip(&queries.codes) {
                for (r, &o) in kept_rows.iter().enumerate() {
                    if o < queries.n && sc[r] == MISSING && qc[o] != MISSING {
                        suppressed += 1;
                    }
                }
            }
            suppressed
        });
        Ok(Counts {
            size,
            complete,
            as_value,
            wildcard,
            weighted,
            suppressed,
            key_cells: stored.n * stored.len(),
            attack_listwise,
            attack_wildcard,
        })
    }
}

/// The keys of both files coded once, when the release keeps every record in place and each key
/// column holds the original's values (only blanks added, as suppression does): the original's
/// codes, the same with the released blanks, and the blanks read from the missing bitmaps.
/// `None` otherwise (the files are then coded together).
fn same_values(
    original: &Table,
    released: &Table,
    kept_rows: &[usize],
    keys: &[String],
) -> Result<Option<(Keys, Keys, Blanks)>, AttackError> {
    let n = original.nrows();
    if released.nrows() != n
        || kept_rows.len() != n
        || n == 0
        || kept_rows.iter().enumerate().any(|(r, &o)| r != o)
    {
        return Ok(None);
    }
    for k in keys {
        let (a, b) = (original.column(k)?, released.column(k)?);
        if matches!(a.data(), intruder_data::ColumnData::Set { .. }) || a.data() != b.data() {
            return Ok(None);
        }
    }
    let mut pairs = Vec::with_capacity(keys.len());
    for k in keys {
        let (a, b) = (original.column(k)?, released.column(k)?);
        // a value the original misses and the release shows was not blanked: coded together
        if a.missing().ones().any(|r| !b.is_missing(r)) {
            return Ok(None);
        }
        pairs.push(b);
    }
    let q = Keys::encode(original, keys, Default::default())?;
    let mut s = q.clone();
    s.codes.par_iter_mut().zip(&pairs).for_each(|(codes, b)| {
        for r in b.missing().ones() {
            codes[r] = MISSING;
        }
    });
    // the blanks the release added: its missing cells the original observes
    let mut blanks = Blanks {
        touched: vec![false; n],
        cells: 0,
    };
    for (b, qc) in pairs.iter().zip(&q.codes) {
        for r in b.missing().ones() {
            if qc[r] != MISSING {
                blanks.touched[r] = true;
                blanks.cells += 1;
            }
        }
    }
    Ok(Some((q, s, blanks)))
}

/// The key cells a release in place blanked: per record whether it lost a value, and how many
/// cells in all.
struct Blanks {
    touched: Vec<bool>,
    cells: usize,
}

/// Whether query `i` and stored record `r` agree on every key both observe (`listwise`: both
/// must observe every key).
fn agree(q: &Keys, s: &Keys, i: usize, r: usize, listwise: bool) -> bool {
    (0..q.len()).all(|j| {
        let (a, b) = (q.codes[j][i], s.codes[j][r]);
        if a == MISSING || b == MISSING {
            return !listwise;
        }
        match (&q.sets[j], &s.sets[j]) {
            (Some(qm), Some(sm)) => SetMasks::overlap(qm.query(i), sm.stored(r)),
            _ => a == b,
        }
    })
}

/// The distinct tuples of `rows` of `s` as a pattern index (each entry standing for its
/// records and their summed weights) and the entry of each row; packed in one word per row when
/// the keys fit in 64 bits.
fn distinct(s: &Keys, rows: &[u32], weights: Option<&[f64]>) -> (PatternIndex, Vec<u32>) {
    let all: Vec<usize> = (0..s.len()).collect();
    match Packing::of(s, &all) {
        Some(p) => {
            let words: Vec<u64> =
                if rows.len() == s.n && rows.iter().enumerate().all(|(i, &r)| i == r as usize) {
                    p.words(s)
                } else {
                    rows.iter().map(|&r| p.word(s, r as usize)).collect()
                };
            PatternIndex::distinct_packed(&p, &words, rows, weights)
        }
        None => PatternIndex::distinct(s, &all, rows, weights),
    }
}

/// The targets' keys, and the same as distinct tuples with each target's tuple.
struct Targets<'a> {
    all: &'a Keys,
    distinct: Keys,
    entry: &'a [u32],
}

/// The rows `rows` of `keys`.
fn take_keys(keys: &Keys, rows: &[u32]) -> Keys {
    Keys {
        codes: keys
            .codes
            .iter()
            .map(|c| rows.iter().map(|&r| c[r as usize]).collect())
            .collect(),
        card: keys.card.clone(),
        sets: keys
            .sets
            .iter()
            .map(|m| m.as_ref().map(|m| m.take(rows)))
            .collect(),
        n: rows.len(),
    }
}

/// The exact attack under the listwise rule, without a join: a target's own record is among its
/// candidates exactly when it is complete and equal to the target, and the candidates are then
/// its class of visible values (`classes`, the released tuples; `entry`, each record's tuple).
fn attack_listwise(
    q: &Keys,
    s: &Keys,
    classes: &PatternIndex,
    entry: &[u32],
    twin: &[Option<usize>],
) -> AttackCheck {
    let targets = q.n;
    let (mut expected, mut unique) = (0.0, 0usize);
    for (i, t) in twin.iter().enumerate() {
        let Some(r) = *t else { continue };
        if q.complete(i) && s.complete(r) && agree(q, s, i, r, true) {
            let c = classes.size(entry[r] as usize);
            expected += 1.0 / c as f64;
            unique += usize::from(c == 1);
        }
    }
    AttackCheck::of(targets, expected, unique)
}

/// The exact attack under the wildcard rule: c_i per target from `idx` (the released tuples),
/// looked up once per distinct target tuple, and the twin's presence from its codes.
fn attack(t: &Targets<'_>, s: &Keys, idx: &PatternIndex, twin: &[Option<usize>]) -> AttackCheck {
    let listwise = false;
    let q = t.all;
    let targets = q.n;
    if s.n == 0 || targets == 0 {
        return AttackCheck::of(targets, 0.0, 0);
    }
    let d = &t.distinct;
    let counts: Vec<u64> = idx
        .cross_counts(d, |i| !listwise || d.complete(i))
        .into_iter()
        .map(|(c, _)| c)
        .collect();
    let (mut expected, mut unique) = (0.0, 0usize);
    for i in 0..targets {
        let c = counts[t.entry[i] as usize];
        let Some(r) = twin[i] else { continue };
        if c > 0 && agree(q, s, i, r, listwise) {
            expected += 1.0 / c as f64;
            unique += usize::from(c == 1);
        }
    }
    AttackCheck::of(targets, expected, unique)
}

/// The targets whose records lost a value, when every target's record is released in place
/// with blanks added and nothing else (`q` the targets, `s` the release, row `i` of each the same
/// person), and their candidates: each changed tuple looked up once in the released tuples.
struct Changed {
    /// Key cells the intruder knows and the release blanks (in place, every difference).
    blanked: usize,
    /// The changed targets, in row order.
    rows: Vec<u32>,
    /// The distinct tuples of the changed targets.
    tuples: Keys,
    /// The changed targets of each tuple.
    sizes: Vec<u64>,
    /// Candidates (records, weight) of each tuple, once [`Changed::candidates`] counted them.
    counts: Vec<(u64, f64)>,
}

impl Changed {
    /// The changed targets' distinct tuples, the targets `blanks` names as changed (`q` the
    /// targets' keys).
    fn find(q: &Keys, blanks: Blanks) -> Changed {
        let Blanks {
            touched,
            cells: blanked,
        } = blanks;
        let rows: Vec<u32> = (0..q.n as u32).filter(|&i| touched[i as usize]).collect();
        let changed = take_keys(q, &rows);
        let all: Vec<u32> = (0..rows.len() as u32).collect();
        let (didx, _) = distinct(&changed, &all, None);
        let reps: Vec<u32> = (0..didx.len()).map(|e| didx.row(e)).collect();
        Changed {
            blanked,
            tuples: take_keys(&changed, &reps),
            rows,
            sizes: (0..didx.len()).map(|e| didx.size(e) as u64).collect(),
            counts: Vec::new(),
        }
    }

    /// The candidates of each changed tuple among `idx` (the released tuples).
    fn candidates(&self, idx: &PatternIndex) -> Vec<(u64, f64)> {
        if self.tuples.n == 0 {
            return Vec::new();
        }
        idx.cross_counts(&self.tuples, |_| true)
    }
}

/// Both exact attacks when every record is released in place with blanks added (see
/// [`Changed`]): the targets whose records kept their values counted per released tuple,
/// then the changed ones. Listwise: a target whose record kept every value
/// and is complete has its tuple's class as candidates (`entry`, `complete`); a changed record
/// has a blank, so no listwise candidate is its own. Wildcard: a target whose record kept every
/// value has the records matching its own tuple as candidates — the tuple's wildcard class,
/// `matched[entry[i]]` — and its own record among them; a changed target's candidates are
/// `changed.counts`. The same figures as [`attack_listwise`] and [`attack`] (Σ 1/c_i summed
/// tuple by tuple, kept/c at once: equal to rounding).
fn attacks_in_place(
    q: &Keys,
    (entry, size, complete): (&[u32], &[u64], &[bool]),
    matched: &[(u64, f64)],
    changed: &Changed,
) -> (AttackCheck, AttackCheck) {
    let targets = q.n;
    // the targets whose records kept their values, per released tuple: its records less the
    // changed targets' records in it (a changed target's released tuple has the blank, so it
    // is never a kept target's own); each adds 1/c of its tuple's listwise candidates (when
    // complete) and of its wildcard candidates, so a tuple adds kept/c at once
    let mut kept: Vec<u64> = size.to_vec();
    for &i in &changed.rows {
        kept[entry[i as usize] as usize] -= 1;
    }
    let (mut listwise, mut wildcard) = ((0.0, 0usize), (0.0, 0usize));
    for (e, &k) in kept.iter().enumerate() {
        if k == 0 {
            continue;
        }
        if complete[e] {
            listwise.0 += k as f64 / size[e] as f64;
            listwise.1 += if size[e] == 1 { k as usize } else { 0 };
        }
        let c = matched[e].0;
        wildcard.0 += k as f64 / c as f64;
        wildcard.1 += if c == 1 { k as usize } else { 0 };
    }
    // the changed targets, per tuple: each one's own record is among its tuple's candidates (it
    // is the target's values with blanks added, so it agrees wherever both observe), which are
    // therefore never 0
    for (&n, &(c, _)) in changed.sizes.iter().zip(&changed.counts) {
        wildcard.0 += n as f64 / c as f64;
        wildcard.1 += if c == 1 { n as usize } else { 0 };
    }
    (
        AttackCheck::of(targets, listwise.0, listwise.1),
        AttackCheck::of(targets, wildcard.0, wildcard.1),
    )
}

/// Individual risk of a class of `n` records weighing `w` (1/f without weights).
fn risk_of(n: u64, w: f64, weighted: bool) -> f64 {
    if weighted {
        intruder_defence::methods::suppress::individual_risk(n.min(u32::MAX as u64) as u32, w)
    } else {
        1.0 / n as f64
    }
}

fn judge(claim: Option<&Claim>, keys: Vec<String>, c: &Counts) -> Check {
    let mut rules = Vec::new();
    let mut warnings = Vec::new();
    let (mut broken, mut uncovered) = (BTreeSet::new(), BTreeSet::new());
    for rule in MatchRule::ALL {
        // the classes of the released tuples the rule judges, each with its tuple's records
        let classes: Vec<(u64, (u64, f64))> = match rule {
            MatchRule::Listwise => (0..c.size.len())
                .filter(|&e| c.complete[e])
                .map(|e| (c.size[e], c.as_value[e]))
                .collect(),
            MatchRule::AsValue => c.size.iter().copied().zip(c.as_value.clone()).collect(),
            MatchRule::Wildcard => c.size.iter().copied().zip(c.wildcard.clone()).collect(),
        };
        let judged = classes.iter().map(|&(m, _)| m as usize).sum::<usize>();
        let min_class = classes.iter().map(|&(_, (n, _))| n).min();
        let unsafe_records = match claim {
            None => 0,
            Some(cl) => classes
                .iter()
                .filter(|&&(_, (n, w))| match cl.max_risk {
                    Some(t) => risk_of(n, w, c.weighted) > t,
                    None => n < cl.k as u64,
                })
                .map(|&(m, _)| m as usize)
                .sum(),
        };
        let attack = match rule {
            MatchRule::Listwise => Some(c.attack_listwise.clone()),
            MatchRule::AsValue => None,
            MatchRule::Wildcard => Some(c.attack_wildcard.clone()),
        };
        let covered = claim.is_some_and(|cl| cl.protect_against.covers(rule));
        if let Some(cl) = claim {
            let bound = 1.0 / cl.k.max(1) as f64;
            let over = attack
                .as_ref()
                .filter(|a| a.rate > bound * (1.0 + 1e-12))
                .map(|a| a.rate);
            if unsafe_records > 0 || over.is_some() {
                let mut found = Vec::new();
                if unsafe_records > 0 {
                    found.push(match cl.max_risk {
                        Some(t) => format!(
                            "{unsafe_records} of {judged} records have individual risk above {t}"
                        ),
                        None => format!(
                            "{unsafe_records} of {judged} records are in classes below {} (smallest {})",
                            cl.k,
                            min_class.unwrap_or(0)
                        ),
                    });
                }
                if let Some(r) = over {
                    found.push(format!(
                        "the exact attack re-identifies {} per target (expected), above 1/k = {}",
                        percent(r),
                        percent(bound)
                    ));
                }
                let head = format!("step {} ({})", cl.step, cl.method);
                warnings.push(if covered {
                    broken.insert(rule);
                    format!(
                        "{head} promised {}, contradicted under the {rule} rule: {}",
                        cl.describe(),
                        found.join("; ")
                    )
                } else {
                    uncovered.insert(rule);
                    format!(
                        "{head} promised {}, which does not cover the {rule} rule: {}",
                        cl.describe(),
                        found.join("; ")
                    )
                });
            }
        }
        rules.push(RuleCheck {
            rule,
            judged,
            unsafe_records,
            min_class,
            attack,
            covered,
        });
    }
    let verdict = match claim {
        None => Verdict::NoClaim,
        Some(_) if !broken.is_empty() => Verdict::Contradicted,
        Some(_) if !uncovered.is_empty() => Verdict::NotCovered,
        Some(_) => Verdict::Holds,
    };
    Check {
        claim: claim.cloned(),
        keys,
        rules,
        verdict,
        suppressed: c.suppressed,
        key_cells: c.key_cells,
        warnings,
    }
}

/// A share as a percentage people can read ([`intruder_data::report::percent`]).
pub fn percent(x: f64) -> String {
    intruder_data::report::percent(x)
}

impl Check {
    /// The check's title: what was promised and how it fared.
    pub fn title(&self) -> String {
        match &self.claim {
            Some(c) => format!(
                "step {} ({}) promised {}: {}",
                c.step,
                c.method,
                c.describe(),
                self.verdict.word()
            ),
            None => format!("no promise; keys {}", self.keys.join(", ")),
        }
    }
}

impl CrossExamination {
    /// Adds the cross-examination to a report: one table per check (one row per rule), the
    /// figures of the first check (`check_<rule>_rate`, `check_<rule>_below`,
    /// `key_cells_suppressed`, `verdict`), and the whole, warnings included, as the
    /// `cross_examination` detail (JSON). The caller prints the warnings.
    pub fn add_to(&self, report: &mut Report) {
        for (i, c) in self.checks.iter().enumerate() {
            let rows = c
                .rules
                .iter()
                .map(|r| {
                    vec![
                        json!(r.rule.name()),
                        json!(if r.covered { "yes" } else { "no" }),
                        json!(r.judged),
                        json!(r.min_class),
                        json!(r.unsafe_records),
                        json!(r.attack.as_ref().map(|a| percent(a.rate))),
                        json!(r.attack.as_ref().map(|a| a.unique_correct)),
                    ]
                })
                .collect();
            report.tables.push(ReportTable {
                name: format!("cross_examination_{}", i + 1),
                title: format!(
                    "cross-examination {} — the exact attack on the output, every one of the {} original records known; {}",
                    i + 1,
                    self.targets,
                    c.title()
                ),
                header: [
                    "rule",
                    "promised",
                    "records_judged",
                    "smallest_class",
                    "records_below_promise",
                    "attack_rate_per_target",
                    "unique_reidentifications",
                ]
                .map(String::from)
                .to_vec(),
                rows,
            });
        }
        if let Some(c) = self.checks.first() {
            for r in &c.rules {
                let id = r.rule.name().replace('-', "_");
                if let Some(a) = &r.attack {
                    report.push(Figure::new(
                        format!("check_{id}_rate"),
                        a.rate,
                        Unit::Proportion,
                        format!(
                            "the exact attack ({} rule, every original record known): expected correct re-identifications per target",
                            r.rule
                        ),
                    ));
                }
                report.push(Figure::new(
                    format!("check_{id}_below"),
                    r.unsafe_records,
                    Unit::Count,
                    format!(
                        "released records below the promise under the {} rule",
                        r.rule
                    ),
                ));
            }
            report.push(Figure::new(
                "key_cells_suppressed",
                if c.key_cells == 0 {
                    0.0
                } else {
                    c.suppressed as f64 / c.key_cells as f64
                },
                Unit::Proportion,
                "share of the released key cells that were observed in the original and are blank",
            ));
            report.push(Figure::new(
                "verdict",
                c.verdict.word(),
                Unit::Label,
                "the promise checked against the attacks (holds, contradicted, holds only under the rules promised)",
            ));
        }
        report.details.insert(
            "cross_examination".into(),
            serde_json::to_value(self).unwrap_or_default(),
        );
    }
}
