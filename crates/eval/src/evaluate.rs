//! The evaluator: the only code of the toolkit that reads the ground truth ([`Truth`]).
//!
//! It scores a [`Linkage`] (docs/METHODS.md §2): twins are found by equal truth ids across the two
//! files; then per intruder record the tied best set `B_i` (size `c_i`), a seeded tie-break, the
//! rank of the twin, and, with a sensitive variable, Mitra's attribute disclosure `p_i` and
//! targeting score `r_i` (eqs. 1 and 3).

use intruder_data::WriteFile;
use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::Path;

use intruder_attack::{AttackError, Candidate, Candidates, Configured, Linkage, ParamError};
use intruder_data::numeric::stores_numbers;
use intruder_data::report::{Figure, Report, Unit};
use intruder_data::{Column, Table};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::Value;

use crate::labelled::{Labelled, TruthIds};

pub use intruder_attack::DEFAULT_TOLERANCE;

/// A sensitive variable to score attribute disclosure on.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Sensitive {
    /// The sensitive column of the released file (`y_j`).
    pub released: String,
    /// The truth column of the intruder's file holding the true original value (`y_i`).
    pub truth: String,
    /// Relative tolerance: `y_j` discloses `y_i` when `|y_j − y_i| / |y_i| < tolerance`.
    pub tolerance: f64,
}

/// What the evaluator is asked to compute.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct EvalOptions {
    /// Truth ids; `None` scores attribute disclosure only (no twin figures).
    pub truth: Option<TruthIds>,
    /// Attribute disclosure, when wanted.
    pub sensitive: Option<Sensitive>,
    /// Links with a best score below this are not declared (precision/recall); `None` declares
    /// every record's best candidate.
    pub threshold: Option<f64>,
    /// Seed of the tie-break among tied best candidates.
    pub seed: u64,
}

impl EvalOptions {
    /// What the evaluator is asked for a configured attack: the truth ids, attribute disclosure
    /// on the attack's `sensitive` variable against the intruder's truth column
    /// `sensitive_truth` (when both are known) with its `tolerance`, links declared at the
    /// attack's [`declared_threshold`](intruder_attack::Attack::declared_threshold), ties broken
    /// with `seed`.
    pub fn for_attack(
        configured: &Configured,
        truth: Option<TruthIds>,
        sensitive_truth: Option<String>,
        seed: u64,
    ) -> EvalOptions {
        EvalOptions {
            truth,
            sensitive: configured
                .common
                .sensitive
                .clone()
                .zip(sensitive_truth)
                .map(|(released, truth)| Sensitive {
                    released,
                    truth,
                    tolerance: configured.common.tolerance,
                }),
            threshold: configured.attack.declared_threshold(),
            seed,
        }
    }
}

/// One point of the precision–recall curve.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct PrPoint {
    /// Links with a best score ≥ this are declared.
    pub threshold: f64,
    /// Correct declared links / declared links.
    pub precision: f64,
    /// Correct declared links / twins.
    pub recall: f64,
}

/// Attribute disclosure over the intruder records with a true value (Mitra eqs. 1 and 3).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AttributeReport {
    /// The released sensitive variable.
    pub variable: String,
    /// The tolerance used.
    pub tolerance: f64,
    /// Intruder records with a true value (those scored).
    pub records: usize,
    /// `A = #{i : p_i ≥ 0.5}`.
    pub attribute_a: usize,
    /// Mean of `p_i`.
    pub mean_p: f64,
}

/// The outcome for one intruder record.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RecordResult {
    /// Intruder row (0-based).
    pub intruder_row: usize,
    /// Released row of the real twin, when there is one.
    pub twin_row: Option<usize>,
    /// Candidates listed by the attack.
    pub candidates: usize,
    /// `c_i`: candidates tied at the best score.
    pub best_ties: usize,
    /// The best score (NaN without candidates).
    pub best_score: f64,
    /// The released row chosen (tie broken with the seed).
    pub chosen_row: Option<usize>,
    /// Whether the chosen row is the twin.
    pub correct: bool,
    /// Competition rank of the twin among the candidates (`None`: not listed).
    pub twin_rank: Option<u32>,
    /// Mitra's `p_i` (when a sensitive variable is scored and the true value is known).
    pub p: Option<f64>,
    /// Mitra's targeting score `r_i` (numeric sensitive variables; smaller = riskier).
    pub r: Option<f64>,
}

/// Every figure of an evaluated attack.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Evaluation {
    /// The attack.
    pub method: String,
    /// Records in the intruder's file.
    pub intruder_records: usize,
    /// Records in the released file.
    pub released_records: usize,
    /// Intruder records whose person is in the released file.
    pub twins: usize,
    /// Intruder records with at least one candidate.
    pub with_candidates: usize,
    /// Twins whose chosen candidate (unique best, or tie broken with the seed) is the twin.
    pub correct_matches: usize,
    /// `correct_matches / twins` (`None` without twins).
    pub correct_match_rate: Option<f64>,
    /// Records whose best was tied, so a seeded draw chose.
    pub ties_broken: usize,
    /// Correct matches that came from such a draw.
    pub correct_by_tie_break: usize,
    /// `Σ 1/c_i` over records whose twin is in the tied best set (Mitra's 1/c_i).
    pub expected_correct: f64,
    /// Records with `c_i = 1` and the twin in it.
    pub unique_correct: usize,
    /// Records with `c_i ≤ 2` and the twin in it.
    pub le2_correct: usize,
    /// Twins ranked first (tied or not).
    pub rank1: usize,
    /// Twins ranked in the first five.
    pub top5: usize,
    /// Twins listed among the candidates at any rank (k-means: in the twin's cluster).
    pub in_candidates: usize,
    /// `rank1 / twins`.
    pub rank1_rate: Option<f64>,
    /// `top5 / twins`.
    pub top5_rate: Option<f64>,
    /// `in_candidates / twins`.
    pub in_candidates_rate: Option<f64>,
    /// Links declared at the threshold.
    pub declared: usize,
    /// The threshold used (`None` = every best candidate declared).
    pub threshold: Option<f64>,
    /// Correct declared / declared.
    pub precision: Option<f64>,
    /// Correct declared / twins.
    pub recall: Option<f64>,
    /// Harmonic mean of precision and recall.
    pub f1: Option<f64>,
    /// Precision–recall curve over every distinct best score (scored attacks only).
    pub pr_curve: Vec<PrPoint>,
    /// `A = #{i : p_i ≥ 0.5}` when a sensitive variable is scored.
    #[serde(rename = "attribute_A")]
    pub attribute_a: Option<usize>,
    /// Attribute disclosure details.
    pub attribute: Option<AttributeReport>,
    /// The tie-break seed.
    pub seed: u64,
    /// The attack's own figures.
    pub notes: Vec<(String, f64)>,
    /// Problems of the input that did not stop the scoring (the command line prints them as
    /// warnings): intruder records sharing a truth id.
    #[serde(skip)]
    pub warnings: Vec<String>,
    /// Per intruder record (written by [`write_per_record`], not part of the JSON).
    #[serde(skip)]
    pub records: Vec<RecordResult>,
}

fn ratio(a: usize, b: usize) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

/// A count as a figure's value.
fn count(x: usize) -> Value {
    Value::from(x)
}

/// An optional number as a figure's value (null when absent).
fn optional(x: Option<f64>) -> Value {
    x.map_or(Value::Null, Value::from)
}

/// Scores `linkage` against the ground truth. `intruder`/`released` are the labelled tables
/// the attack was run on (their row counts must match the linkage).
pub fn evaluate(
    linkage: &Linkage,
    intruder: &Labelled,
    released: &Labelled,
    opts: &EvalOptions,
) -> Result<Evaluation, AttackError> {
    check_inputs(linkage, intruder.table(), released.table(), opts)?;
    let (twin, warnings) = twins(intruder, released, opts)?;
    let sens = sensitive_columns(intruder, released, opts)?;
    let mut ev = Evaluation::unscored(linkage, released.table().nrows(), &twin, opts, warnings);
    let (links, attribute) = score_records(&mut ev, linkage, &twin, sens.as_ref(), opts.seed)?;
    ev.correct_match_rate = ratio(ev.correct_matches, ev.twins);
    ev.rank1_rate = ratio(ev.rank1, ev.twins);
    ev.top5_rate = ratio(ev.top5, ev.twins);
    ev.in_candidates_rate = ratio(ev.in_candidates, ev.twins);
    precision_recall(&mut ev, links, linkage, opts);
    if let Some(s) = &sens {
        let AttributeTally {
            p_sum,
            p_n,
            a_count,
        } = attribute;
        ev.attribute_a = Some(a_count);
        ev.attribute = Some(AttributeReport {
            variable: s.spec.released.clone(),
            tolerance: s.spec.tolerance,
            records: p_n,
            attribute_a: a_count,
            mean_p: if p_n > 0 { p_sum / p_n as f64 } else { 0.0 },
        });
    }
    Ok(ev)
}

/// Checks the sensitive variable's tolerance and that the linkage was made on these tables.
fn check_inputs(
    linkage: &Linkage,
    intruder: &Table,
    released: &Table,
    opts: &EvalOptions,
) -> Result<(), AttackError> {
    if let Some(s) = &opts.sensitive
        && !(s.tolerance.is_finite() && s.tolerance > 0.0)
    {
        return Err(ParamError::Tolerance(s.tolerance).into());
    }
    if linkage.records.len() != intruder.nrows() || linkage.released_rows != released.nrows() {
        return Err(AttackError::Mismatch(format!(
            "the linkage has {} intruder and {} released records, the files {} and {}",
            linkage.records.len(),
            linkage.released_rows,
            intruder.nrows(),
            released.nrows()
        )));
    }
    Ok(())
}

/// The released row of each intruder record's twin (equal truth ids; none without truth ids),
/// and a warning when intruder records share an id.
fn twins(
    intruder: &Labelled,
    released: &Labelled,
    opts: &EvalOptions,
) -> Result<(Vec<Option<usize>>, Vec<String>), AttackError> {
    let (intruder_truth, released_truth) = (intruder.truth(), released.truth());
    let (intruder, released) = (intruder.table(), released.table());
    let mut twin: Vec<Option<usize>> = vec![None; intruder.nrows()];
    let mut warnings: Vec<String> = Vec::new();
    if let Some(ids) = &opts.truth {
        let ic = intruder_truth.require(intruder, &ids.intruder)?;
        let rc = released_truth.require(released, &ids.released)?;
        // The released ids' map and the intruder's shared ids at once, then the look-ups on
        // every thread (each a few cache misses: the evaluator's main cost on big files).
        let (by_id, shared) = rayon::join(
            || released_rows_by_id(rc, released, &ids.released),
            || shared_id_warning(ic, intruder, &ids.intruder),
        );
        let by_id = by_id?;
        warnings.extend(shared);
        twin.par_iter_mut().enumerate().for_each(|(i, t)| {
            *t = ic.text(i).and_then(|v| by_id.get(v.as_ref()).copied());
        });
    }
    Ok((twin, warnings))
}

/// Truth ids as keys: borrowed from a text column's cells (no copy per record), hashed with
/// foldhash (only looked up, never iterated: the order of the map reaches no result).
type IdMap<'a> = HashMap<Cow<'a, str>, usize, foldhash::fast::RandomState>;

/// The released row of each truth id of column `rc` (called `name`) of `released`; an error
/// when an id appears twice.
fn released_rows_by_id<'a>(
    rc: &'a Column,
    released: &Table,
    name: &str,
) -> Result<IdMap<'a>, AttackError> {
    let mut by_id = IdMap::with_capacity_and_hasher(rc.len(), Default::default());
    for j in 0..rc.len() {
        let Some(t) = rc.text(j) else { continue };
        match by_id.entry(t) {
            Entry::Occupied(e) => {
                return Err(AttackError::Column {
                    file: released.source().to_string(),
                    name: name.to_string(),
                    message: format!(
                        "truth id '{}' appears on rows {} and {}: ids must be unique",
                        e.key(),
                        e.get() + 1,
                        j + 1
                    ),
                });
            }
            Entry::Vacant(e) => {
                e.insert(j);
            }
        }
    }
    Ok(by_id)
}

/// The warning when intruder records share a truth id of column `ic` (called `name`) of
/// `intruder`, naming the first shared id.
fn shared_id_warning(ic: &Column, intruder: &Table, name: &str) -> Option<String> {
    // Two intruder records with one id are each scored against the released record with
    // that id: legitimate when a unit splits (a household in two wave-2 households, Mitra's
    // design), a slip when every intruder record should be one person — so a warning.
    let mut seen = IdMap::with_capacity_and_hasher(ic.len(), Default::default());
    let mut shared = 0usize;
    let mut first_shared: Option<(String, usize, usize)> = None;
    for i in 0..ic.len() {
        let Some(t) = ic.text(i) else { continue };
        match seen.entry(t) {
            Entry::Occupied(e) => {
                if shared == 0 {
                    first_shared = Some((e.key().to_string(), e.get() + 1, i + 1));
                }
                shared += 1;
            }
            Entry::Vacant(e) => {
                e.insert(i);
            }
        }
    }
    first_shared.map(|(t, a, b)| {
        format!(
            "{}: column '{}': truth id '{t}' appears on row {a} and again on row {b} ({shared} intruder record{} share{} an id with an earlier one): each is scored against the released record with that id, as when a household splits between waves; if every intruder record is one person, the ids are wrong",
            intruder.source(),
            name,
            if shared == 1 { "" } else { "s" },
            if shared == 1 { "s" } else { "" },
        )
    })
}

/// The columns attribute disclosure compares: the released sensitive values `y_j` and the
/// intruder's true values `y_i`.
struct SensitiveColumns<'a> {
    /// The sensitive variable asked for.
    spec: &'a Sensitive,
    /// `y_j`, of the released file.
    released: &'a Column,
    /// `y_i`, a truth column of the intruder's file.
    truth: &'a Column,
    /// Both hold numbers: compared within the tolerance (else as equal text).
    numeric: bool,
}

/// The columns of the sensitive variable, when one is scored.
fn sensitive_columns<'a>(
    intruder: &'a Labelled,
    released: &'a Labelled,
    opts: &'a EvalOptions,
) -> Result<Option<SensitiveColumns<'a>>, AttackError> {
    let Some(s) = &opts.sensitive else {
        return Ok(None);
    };
    let yc = released.table().column(&s.released)?;
    let tc = intruder.truth().require(intruder.table(), &s.truth)?;
    Ok(Some(SensitiveColumns {
        spec: s,
        released: yc,
        truth: tc,
        numeric: stores_numbers(yc) && stores_numbers(tc),
    }))
}

impl SensitiveColumns<'_> {
    /// Mitra's `p_i` (the share of the tied best set `best` within tolerance of intruder record
    /// `i`'s true value) and `r_i` (the mean relative distance; numeric variables only).
    fn disclosure(&self, i: usize, best: &[Candidate]) -> (f64, Option<f64>) {
        let (s, yc, tc) = (self.spec, self.released, self.truth);
        let c = best.len();
        let (mut within, mut rel_sum, mut rel_n) = (0usize, 0.0f64, 0usize);
        for cand in best {
            let j = cand.row;
            if yc.is_missing(j) {
                continue;
            }
            if self.numeric {
                let (yi, yj) = (
                    tc.as_f64(i).unwrap_or(f64::NAN),
                    yc.as_f64(j).unwrap_or(f64::NAN),
                );
                let rel = if yi != 0.0 {
                    (yj - yi).abs() / yi.abs()
                } else if yj == 0.0 {
                    0.0
                } else {
                    f64::INFINITY
                };
                within += usize::from(rel < s.tolerance);
                rel_sum += rel;
                rel_n += 1;
            } else {
                within += usize::from(yc.text(j) == tc.text(i));
            }
        }
        let pi = if c == 0 {
            0.0
        } else {
            within as f64 / c as f64
        };
        let r = (self.numeric && rel_n > 0).then(|| rel_sum / rel_n as f64);
        (pi, r)
    }
}

/// Mitra's `p_i` summed over the intruder records with a true value.
#[derive(Debug, Default)]
struct AttributeTally {
    /// Σ p_i.
    p_sum: f64,
    /// Records scored.
    p_n: usize,
    /// `A = #{i : p_i ≥ 0.5}`.
    a_count: usize,
}

impl Evaluation {
    /// The evaluation of `linkage` before any record is scored: the counts at zero, the rates
    /// and attribute figures unset.
    fn unscored(
        linkage: &Linkage,
        released_records: usize,
        twin: &[Option<usize>],
        opts: &EvalOptions,
        warnings: Vec<String>,
    ) -> Evaluation {
        let ni = linkage.records.len();
        Evaluation {
            method: linkage.method.clone(),
            intruder_records: ni,
            released_records,
            twins: twin.iter().filter(|t| t.is_some()).count(),
            with_candidates: 0,
            correct_matches: 0,
            correct_match_rate: None,
            ties_broken: 0,
            correct_by_tie_break: 0,
            expected_correct: 0.0,
            unique_correct: 0,
            le2_correct: 0,
            rank1: 0,
            top5: 0,
            in_candidates: 0,
            rank1_rate: None,
            top5_rate: None,
            in_candidates_rate: None,
            declared: 0,
            threshold: opts.threshold,
            precision: None,
            recall: None,
            f1: None,
            pr_curve: Vec::new(),
            attribute_a: None,
            attribute: None,
            seed: opts.seed,
            notes: linkage.notes.clone(),
            warnings,
            records: Vec::with_capacity(ni),
        }
    }
}

/// Scores every intruder record in order (ties broken with one stream seeded `seed`), adding
/// to the counts of `ev` and its per-record results; returns the declared links (best score,
/// correct) and the attribute-disclosure tally.
fn score_records(
    ev: &mut Evaluation,
    linkage: &Linkage,
    twin: &[Option<usize>],
    sens: Option<&SensitiveColumns>,
    seed: u64,
) -> Result<(Vec<(f64, bool)>, AttributeTally), AttackError> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut attribute = AttributeTally::default();
    let mut links: Vec<(f64, bool)> = Vec::new();
    let mut whole = WholeLists::new(linkage)?;
    for (i, listed) in linkage.records.iter().enumerate() {
        let full;
        let cands = if listed.in_part() {
            full = whole.of(i)?;
            &full
        } else {
            listed
        };
        let mut record = score_record(ev, i, cands, twin[i], &mut rng);
        if record.chosen_row.is_some() {
            links.push((record.best_score, record.correct));
        }
        // Mitra's p_i and r_i over the tied best set M_i.
        if let Some(s) = sens
            && !s.truth.is_missing(i)
        {
            let (pi, r) = s.disclosure(i, cands.best());
            record.p = Some(pi);
            record.r = r;
            attribute.p_sum += pi;
            attribute.p_n += 1;
            attribute.a_count += usize::from(pi >= 0.5);
        }
        ev.records.push(record);
    }
    Ok((links, attribute))
}

/// Scores intruder record `i`'s candidates against its twin: the row chosen (a tie broken with
/// `rng`), whether it is the twin and the twin's rank, added to the counts of `ev`; `p` and `r`
/// are left unset.
fn score_record(
    ev: &mut Evaluation,
    i: usize,
    cands: &Candidates,
    twin: Option<usize>,
    rng: &mut ChaCha8Rng,
) -> RecordResult {
    let best = cands.best();
    let c = best.len();
    if !cands.is_empty() {
        ev.with_candidates += 1;
    }
    let chosen = match c {
        0 => None,
        1 => Some(best[0].row),
        _ => {
            ev.ties_broken += 1;
            Some(best[rng.gen_range(0..c)].row)
        }
    };
    let best_score = best.first().map_or(f64::NAN, |b| b.score);
    let t = twin;
    let correct = t.is_some() && chosen == t;
    let twin_rank = t.and_then(|t| cands.list.iter().find(|x| x.row == t).map(|x| x.rank));
    if correct {
        ev.correct_matches += 1;
        if c > 1 {
            ev.correct_by_tie_break += 1;
        }
    }
    if twin_rank == Some(1) {
        ev.expected_correct += 1.0 / c as f64;
        ev.unique_correct += usize::from(c == 1);
        ev.le2_correct += usize::from(c <= 2);
    }
    if let Some(r) = twin_rank {
        ev.in_candidates += 1;
        ev.rank1 += usize::from(r == 1);
        ev.top5 += usize::from(r <= 5);
    }
    RecordResult {
        intruder_row: i,
        twin_row: t,
        candidates: cands.list.len(),
        best_ties: c,
        best_score,
        chosen_row: chosen,
        correct,
        twin_rank,
        p: None,
        r: None,
    }
}

/// Precision, recall and F1 of the links declared at the threshold, and the precision–recall
/// curve of a scored attack; `links` are (best score, correct) of each record with a chosen row.
fn precision_recall(
    ev: &mut Evaluation,
    mut links: Vec<(f64, bool)>,
    linkage: &Linkage,
    opts: &EvalOptions,
) {
    links.sort_by(|a, b| b.0.total_cmp(&a.0));
    let thr = opts.threshold.unwrap_or(f64::NEG_INFINITY);
    let declared: Vec<&(f64, bool)> = links.iter().filter(|l| l.0 >= thr).collect();
    let tp = declared.iter().filter(|l| l.1).count();
    ev.declared = declared.len();
    if opts.truth.is_some() {
        ev.precision = ratio(tp, declared.len());
        ev.recall = ratio(tp, ev.twins);
        ev.f1 = match (ev.precision, ev.recall) {
            (Some(p), Some(r)) if p + r > 0.0 => Some(2.0 * p * r / (p + r)),
            (Some(_), Some(_)) => Some(0.0),
            _ => None,
        };
        if linkage.scored && ev.twins > 0 {
            let mut tp = 0usize;
            for (n, l) in links.iter().enumerate() {
                tp += usize::from(l.1);
                if n + 1 == links.len() || links[n + 1].0 != l.0 {
                    ev.pr_curve.push(PrPoint {
                        threshold: l.0,
                        precision: tp as f64 / (n + 1) as f64,
                        recall: tp as f64 / ev.twins as f64,
                    });
                }
            }
        }
    }
}

/// Candidate rows read at a time for records listed in part: the evaluator's memory for them.
const WHOLE_BATCH_ROWS: usize = 1 << 22;

/// The whole candidate lists of the records a linkage lists in part, read from its lister in
/// batches of consecutive such records (about [`WHOLE_BATCH_ROWS`] rows at a time), in
/// record order.
struct WholeLists<'a> {
    linkage: &'a Linkage,
    /// Records listed in part, in order.
    pending: Vec<usize>,
    /// Next position in `pending` to read.
    next: usize,
    /// The batch read last: (record, its whole list).
    batch: std::collections::VecDeque<(usize, Vec<usize>)>,
}

impl<'a> WholeLists<'a> {
    fn new(linkage: &'a Linkage) -> Result<WholeLists<'a>, AttackError> {
        let pending: Vec<usize> = (0..linkage.records.len())
            .filter(|&i| linkage.records[i].in_part())
            .collect();
        if let (Some(&i), None) = (pending.first(), &linkage.lister) {
            let c = &linkage.records[i];
            return Err(AttackError::Mismatch(format!(
                "the {} attack lists {} of the {} candidates of intruder record {} and cannot list the others: its figures would not be exact (raise max_listed)",
                linkage.method,
                c.list.len(),
                c.total(),
                i + 1
            )));
        }
        Ok(WholeLists {
            linkage,
            pending,
            next: 0,
            batch: Default::default(),
        })
    }

    /// The whole candidates of record `i` (listed in part; records asked in order).
    fn of(&mut self, i: usize) -> Result<Candidates, AttackError> {
        if self.batch.front().is_none_or(|b| b.0 != i) {
            self.batch.clear();
            let start = self.pending[self.next..].partition_point(|&r| r < i) + self.next;
            let mut end = start;
            let mut rows = 0usize;
            while end < self.pending.len() && (end == start || rows < WHOLE_BATCH_ROWS) {
                rows += self.linkage.records[self.pending[end]].total();
                end += 1;
            }
            let records = &self.pending[start..end];
            let lister = self.linkage.lister.as_ref().ok_or_else(|| {
                AttackError::Mismatch("a record listed in part, but no way to list the rest".into())
            })?;
            self.batch = records.iter().copied().zip(lister.list(records)).collect();
            self.next = end;
        }
        let (r, rows) = self.batch.pop_front().ok_or_else(|| {
            AttackError::Mismatch(format!(
                "record {} is not among those listed in part",
                i + 1
            ))
        })?;
        debug_assert_eq!(r, i);
        let want = &self.linkage.records[i];
        // In the order a whole list holds them (rows of the attacked table, increasing). Built
        // as listed, not through `Candidates::set`, which would sort and deduplicate: the check
        // below must see a lister that repeats or misorders rows.
        let got = Candidates {
            list: rows
                .into_iter()
                .map(|row| Candidate {
                    row,
                    score: 1.0,
                    rank: 1,
                })
                .collect(),
            unlisted: 0,
        };
        let prefix = got.list.len() >= want.list.len()
            && got.list[..want.list.len()]
                .iter()
                .zip(&want.list)
                .all(|(a, b)| a.row == b.row);
        if got.list.len() != want.total() || !prefix {
            return Err(AttackError::Mismatch(format!(
                "the {} attack counted {} candidates for intruder record {} but lists {} in whole",
                self.linkage.method,
                want.total(),
                i + 1,
                got.list.len()
            )));
        }
        Ok(got)
    }
}

/// Writes one row per intruder record (rows 1-based, as in the files), whole or not at all:
/// Parquet when the name ends in `.parquet` (the numbers as 64-bit integers and doubles,
/// `correct` as the text `true`/`false`, empty cells as nulls; an error when Parquet support is
/// not compiled in), CSV otherwise (formatted on every thread, `intruder_data::write`).
/// `released_rows` maps the linkage's released rows back to the file's rows when the released
/// table was restricted (twins only); pass `None` otherwise.
pub fn write_per_record(
    path: &Path,
    ev: &Evaluation,
    released_rows: Option<&[usize]>,
) -> Result<(), AttackError> {
    use intruder_data::Role;
    use intruder_data::write::{Cells, FloatStyle, write_csv};
    const HEADER: [&str; 10] = [
        "intruder_row",
        "twin_row",
        "candidates",
        "best_ties",
        "best_score",
        "chosen_row",
        "correct",
        "twin_rank",
        "p",
        "r",
    ];
    let recs = &ev.records;
    let map = |r: usize| (released_rows.map_or(r, |m| m[r]) + 1) as i64;
    let whole = |f: &dyn Fn(&RecordResult) -> i64| recs.iter().map(f).collect::<Vec<_>>();
    let ints = |f: &dyn Fn(&RecordResult) -> Option<i64>| recs.iter().map(f).collect::<Vec<_>>();
    let floats = |f: &dyn Fn(&RecordResult) -> Option<f64>| recs.iter().map(f).collect::<Vec<_>>();
    let intruder_row = whole(&|r| r.intruder_row as i64 + 1);
    let twin_row = ints(&|r| r.twin_row.map(map));
    let candidates = whole(&|r| r.candidates as i64);
    let best_ties = whole(&|r| r.best_ties as i64);
    let best_score = floats(&|r| (!r.best_score.is_nan()).then_some(r.best_score));
    let chosen_row = ints(&|r| r.chosen_row.map(map));
    let correct: Vec<String> = recs.iter().map(|r| r.correct.to_string()).collect();
    let twin_rank = ints(&|r| r.twin_rank.map(i64::from));
    let p = floats(&|r| r.p);
    let r = floats(&|r| r.r);
    if !intruder_data::is_parquet_name(path) {
        write_csv(
            path,
            &HEADER,
            &[
                Cells::Int(&intruder_row),
                Cells::OptInt(&twin_row),
                Cells::Int(&candidates),
                Cells::Int(&best_ties),
                Cells::OptFloat(&best_score, FloatStyle::Display),
                Cells::OptInt(&chosen_row),
                Cells::Text(&correct),
                Cells::OptInt(&twin_rank),
                Cells::OptFloat(&p, FloatStyle::Display),
                Cells::OptFloat(&r, FloatStyle::Display),
            ],
        )?;
        return Ok(());
    }
    let int = |name: &str, v: &[Option<i64>]| Column::integer(name, Role::Other, v);
    let all = |name: &str, v: &[i64]| int(name, &v.iter().copied().map(Some).collect::<Vec<_>>());
    let float = |name: &str, v: &[Option<f64>]| Column::float(name, Role::Other, v);
    let correct = Column::string(
        HEADER[6],
        Role::Other,
        &correct.iter().map(Some).collect::<Vec<_>>(),
    );
    let columns = vec![
        all(HEADER[0], &intruder_row),
        int(HEADER[1], &twin_row),
        all(HEADER[2], &candidates),
        all(HEADER[3], &best_ties),
        float(HEADER[4], &best_score),
        int(HEADER[5], &chosen_row),
        correct,
        int(HEADER[7], &twin_rank),
        float(HEADER[8], &p),
        float(HEADER[9], &r),
    ];
    Table::new(path, columns)?.write_file(path)?;
    Ok(())
}

impl Evaluation {
    /// The figures as a [`Report`] (every command renders it as table, JSON, CSV or markdown).
    /// The JSON holds the fields of the serialised `Evaluation` under the same names;
    /// `pr_curve`, `attribute` and `notes` are details (JSON only), the attack's notes are also
    /// shown as a text block.
    pub fn report(&self, title: impl Into<String>) -> Report {
        let mut r = Report::new(title);
        let mut fig = |name: &str, value: Value, unit: Unit, meaning: String| {
            r.push(Figure::new(name, value, unit, meaning));
        };
        self.match_figures(&mut fig);
        self.rank_figures(&mut fig);
        self.declared_figures(&mut fig);
        self.attribute_figures(&mut fig);
        fn to<T: serde::Serialize>(x: &T) -> Value {
            serde_json::to_value(x).unwrap_or(Value::Null)
        }
        r.details.insert("pr_curve".into(), to(&self.pr_curve));
        r.details.insert("attribute".into(), to(&self.attribute));
        r.details.insert("notes".into(), to(&self.notes));
        if let Some(text) = self.notes_text() {
            r.notes.push(text);
        }
        r
    }

    /// Adds the figures of the matches: records, twins, correct matches and tie-breaks.
    fn match_figures(&self, fig: &mut impl FnMut(&str, Value, Unit, String)) {
        fig(
            "method",
            self.method.clone().into(),
            Unit::Label,
            "the attack".into(),
        );
        fig(
            "intruder_records",
            count(self.intruder_records),
            Unit::Count,
            "records in the intruder's file".into(),
        );
        fig(
            "released_records",
            count(self.released_records),
            Unit::Count,
            "records in the released file".into(),
        );
        fig(
            "twins",
            count(self.twins),
            Unit::Count,
            "intruder records whose person is in the released file".into(),
        );
        fig(
            "with_candidates",
            count(self.with_candidates),
            Unit::Count,
            "intruder records the attack proposed any candidate for".into(),
        );
        fig(
            "correct_matches",
            count(self.correct_matches),
            Unit::Count,
            "twins whose chosen candidate is the twin".into(),
        );
        fig(
            "correct_match_rate",
            optional(self.correct_match_rate),
            Unit::Proportion,
            format!(
                "share of twins whose chosen candidate is the twin ({} of {})",
                self.correct_matches, self.twins
            ),
        );
        fig(
            "ties_broken",
            count(self.ties_broken),
            Unit::Count,
            format!(
                "records whose best was tied, chosen at random with seed {}",
                self.seed
            ),
        );
        fig(
            "correct_by_tie_break",
            count(self.correct_by_tie_break),
            Unit::Count,
            "correct matches that came from such a draw".into(),
        );
    }

    /// Adds the figures of the tied best sets and of the twins' ranks.
    fn rank_figures(&self, fig: &mut impl FnMut(&str, Value, Unit, String)) {
        fig(
            "expected_correct",
            self.expected_correct.into(),
            Unit::Score,
            "Σ 1/c_i over records whose twin is in the tied best set (Mitra)".into(),
        );
        fig(
            "unique_correct",
            count(self.unique_correct),
            Unit::Count,
            "records with c_i = 1 and the twin in it".into(),
        );
        fig(
            "le2_correct",
            count(self.le2_correct),
            Unit::Count,
            "records with c_i ≤ 2 and the twin in it".into(),
        );
        fig(
            "rank1",
            count(self.rank1),
            Unit::Count,
            "twins at rank 1, tied or not".into(),
        );
        fig(
            "top5",
            count(self.top5),
            Unit::Count,
            "twins ranked 1 to 5".into(),
        );
        fig(
            "in_candidates",
            count(self.in_candidates),
            Unit::Count,
            "twins listed at any rank (k-means: assigned to the twin's cluster)".into(),
        );
        fig(
            "rank1_rate",
            optional(self.rank1_rate),
            Unit::Proportion,
            "rank1 / twins".into(),
        );
        fig(
            "top5_rate",
            optional(self.top5_rate),
            Unit::Proportion,
            "top5 / twins".into(),
        );
        fig(
            "in_candidates_rate",
            optional(self.in_candidates_rate),
            Unit::Proportion,
            "in_candidates / twins".into(),
        );
    }

    /// Adds the figures of the links declared at the threshold: precision, recall and F1.
    fn declared_figures(&self, fig: &mut impl FnMut(&str, Value, Unit, String)) {
        fig(
            "declared",
            count(self.declared),
            Unit::Count,
            "links declared (records whose best score reaches the threshold)".into(),
        );
        fig(
            "threshold",
            optional(self.threshold),
            Unit::Score,
            "the score at which links are declared (none: every best candidate)".into(),
        );
        fig(
            "precision",
            optional(self.precision),
            Unit::Proportion,
            format!("correct among the {} declared links", self.declared),
        );
        fig(
            "recall",
            optional(self.recall),
            Unit::Proportion,
            "correct declared links among the twins".into(),
        );
        fig(
            "f1",
            optional(self.f1),
            Unit::Proportion,
            "harmonic mean of precision and recall".into(),
        );
    }

    /// Adds the attribute-disclosure figures and the tie-break seed.
    fn attribute_figures(&self, fig: &mut impl FnMut(&str, Value, Unit, String)) {
        fig(
            "attribute_A",
            self.attribute_a.map_or(Value::Null, Value::from),
            Unit::Count,
            match &self.attribute {
                Some(a) => format!(
                    "records with p_i ≥ 0.5 on '{}' (tolerance {}; {} records scored)",
                    a.variable, a.tolerance, a.records
                ),
                None => "records with p_i ≥ 0.5 (no sensitive variable scored)".into(),
            },
        );
        if let Some(a) = &self.attribute {
            fig(
                "attribute_mean_p",
                a.mean_p.into(),
                Unit::Proportion,
                "mean share of tied candidates within tolerance of the true value".into(),
            );
        }
        fig(
            "seed",
            self.seed.into(),
            Unit::Label,
            "seed of the tie-break".into(),
        );
    }

    /// The attack's notes as a text block, aligned on their names (`None` without notes).
    fn notes_text(&self) -> Option<String> {
        if self.notes.is_empty() {
            return None;
        }
        let w = self
            .notes
            .iter()
            .map(|(k, _)| k.chars().count())
            .max()
            .unwrap_or(0);
        let mut text = String::from("reported by the attack:\n");
        for (k, v) in &self.notes {
            text.push_str(&format!("  {k:<w$}  {}\n", format_note(k, *v)));
        }
        Some(text)
    }
}

/// A note for people: flags (notes named `*_converged` or `*_every_pair`, stored as 0 / 1 so
/// that they stay metrics) as `true` / `false`, whole numbers without decimals, the rest to 4 decimals.
fn format_note(name: &str, v: f64) -> String {
    if (name.ends_with("_converged") || name.ends_with("_every_pair")) && (v == 0.0 || v == 1.0) {
        return (v == 1.0).to_string();
    }
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::format_note;

    #[test]
    fn flags_print_as_true_false_and_numbers_as_numbers() {
        assert_eq!(format_note("em_converged", 1.0), "true");
        assert_eq!(format_note("em_session_2_converged", 0.0), "false");
        assert_eq!(format_note("u_every_pair", 1.0), "true");
        assert_eq!(format_note("em_iterations", 12.0), "12");
        assert_eq!(format_note("lambda", 0.25), "0.2500");
    }
}
