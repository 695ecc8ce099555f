//! A run from counts, for an engine that holds the records (the DataFusion plans of
//! `intruder-engine`): the same steps and figures as [`FellegiSunter::run`], fed with what the
//! engine counted instead of the records.
//!
//! The engine gives each comparison's dictionary ([`Prepared`] built from the distinct values
//! of both files), the records per value ([`ValueCounts`]), the agreement patterns of the
//! candidate pairs by rule set, the intruder records by their values, and — for u — the level
//! counts of the random pairs [`for_each_u_pair`] draws. From these [`FellegiSunter::fit_counted`]
//! estimates u exactly where the local kernel would (from the values' frequencies, by the
//! same rule), fits m and λ by the same EM, and weighs every pattern ([`CountedFit`]); the
//! engine then weighs its pairs, `base(pattern) + Σ term-frequency adjustments` in comparison
//! order (the local sum, bit for bit), and hands them back in the order the assignment reads
//! ([`FellegiSunter::link_counted`]).
//!
//! A specification's `[training]` (Splink's recipe) is fitted from counts as well: the engine
//! counts the sessions' patterns on their own rules and the pairs the deterministic rules find
//! ([`Counted::training`], [`Counted::deterministic_pairs`]).
//!
//! A record's ids in a comparison are its own value's and, for each `columns-reversed` level,
//! the other column's ([`Prepared::width`]); the engine hands them over in that layout,
//! comparison after comparison ([`Counted::intruder_values`], [`CountedFit::waterfall`]).

use std::collections::BTreeMap;

use rayon::prelude::*;

use super::assign::linked_records;
use super::compare::{MISSING, Prepared, pack};
use super::em::Layout;
use super::explain;
use super::fit;
use super::kernel::{TABLE_CELLS, exact_only, reused, tabled};
use super::predict::{self, Assignment};
use super::report::FsModel;
use super::score;
use super::tf::ValueCounts;
use super::ustats::{self, UEstimate};
use super::{FellegiSunter, UPlan};
use crate::error::{AttackError, ParamError};
use crate::linkage::{Candidates, Linkage};

pub use super::ustats::for_each_u_pair;

/// What an engine counted for a run.
#[derive(Debug, Clone)]
pub struct Counted {
    /// Each comparison's dictionary: [`Prepared`] on the distinct values of both files.
    pub prepared: Vec<Prepared>,
    /// Records per value id of each comparison, in each file.
    pub values: Vec<ValueCounts>,
    /// Intruder and released records.
    pub dims: (usize, usize),
    /// Candidate pairs each blocking rule produced (pairs of earlier rules excluded).
    pub per_rule: Vec<usize>,
    /// `(packed pattern, pairs)` over every candidate pair.
    pub counts: Vec<(u64, u64)>,
    /// `(rule set, packed pattern, pairs)`: bit `r` of the set is whether the pairs agree on
    /// rule `r`.
    pub by_rules: Vec<(u32, u64, u64)>,
    /// The intruder records by their value ids in each comparison (laid out as
    /// [`Prepared::width`] says, comparison after comparison), with their number (for the
    /// self-match weights).
    pub intruder_values: Vec<(Vec<u32>, u64)>,
    /// A specification's `[training]` sessions (`training.blocking`, when it has rules): the
    /// pattern counts of their pairs by the set of session rules they agree on, as
    /// [`Counted::by_rules`], and the number of those pairs.
    pub training: Option<(Vec<(u32, u64, u64)>, usize)>,
    /// The pairs agreeing on any of `training.deterministic` (when it has rules), for λ.
    pub deterministic_pairs: Option<usize>,
}

/// The fitted model and what weighs a pair.
#[derive(Debug, Clone)]
pub struct CountedFit {
    /// The model (`links` 0 and no borderline until [`FellegiSunter::link_counted`]).
    pub model: FsModel,
    /// `prior + Σ level weights` of every pattern of the candidate pairs, by packed pattern.
    pub base: Vec<(u64, f64)>,
    /// Per comparison with term frequencies: its exact level and the adjustment by value id.
    pub tf: Vec<Option<(usize, Vec<f64>)>>,
    /// The threshold's match weight.
    pub threshold_weight: f64,
    /// Intruder and released records.
    pub dims: (usize, usize),
    /// `log2(m / u)` per comparison and level.
    pub level_weights: Vec<Vec<f64>>,
    notes: Vec<(String, f64)>,
}

/// The pairs an engine weighed, in the order the assignment reads them.
pub enum WeighedPairs<'a> {
    /// `assignment = none`: every candidate pair `(intruder row, released row, weight)`, in
    /// any order.
    All(Vec<(u32, u32, f64)>),
    /// `assignment = greedy`: every candidate pair by weight descending, then intruder row,
    /// then released row (consumed as it comes: one flag per record is held).
    Ranked(&'a mut dyn Iterator<Item = Result<(u32, u32, f64), AttackError>>),
    /// `assignment = optimal`: the pairs at or above the threshold's weight, in any order.
    Above(Vec<(u32, u32, f64)>),
}

/// Level counts over every pair of the two files from the values' frequencies, when the local
/// kernel counts them so (else `None`: u comes from random pairs); see `Kernel::exact_level_counts`.
pub fn exact_level_counts(
    p: &Prepared,
    v: &ValueCounts,
    (ni, nr): (usize, usize),
    budget: u64,
) -> Option<Vec<u64>> {
    if !p.reversed.is_empty() {
        return None;
    }
    let (ni, nr) = (ni as u64, nr as u64);
    let (pa, pb): (u64, u64) = (v.a.iter().sum(), v.b.iter().sum());
    let mut out = vec![0u64; p.spec.levels.len()];
    let miss = p.level_of_ids(MISSING, MISSING) as usize;
    out[miss] += ni * nr - pa * pb;
    if let Some((eq, ne)) = exact_only(p) {
        let same: u64 = v.a.iter().zip(&v.b).map(|(x, y)| x * y).sum();
        out[eq as usize] += same;
        out[ne as usize] += pa * pb - same;
        return Some(out);
    }
    let held = |c: &[u64]| -> Vec<(u32, u64)> {
        c.iter()
            .enumerate()
            .filter(|x| *x.1 > 0)
            .map(|(id, &n)| (id as u32, n))
            .collect()
    };
    let (xa, xb) = (held(&v.a), held(&v.b));
    let cells = xa.len().saturating_mul(xb.len());
    let reuse = reused(ni as usize, nr as usize, xa.len(), xb.len());
    if !tabled(cells, reuse, TABLE_CELLS) || cells as u64 > budget {
        return None;
    }
    let k = out.len();
    let sums = xa
        .par_iter()
        .fold(
            || vec![0u64; k],
            |mut acc, &(x, na)| {
                for &(y, nb) in &xb {
                    acc[p.level_of_ids(x, y) as usize] += na * nb;
                }
                acc
            },
        )
        .reduce(
            || vec![0u64; k],
            |mut x, y| {
                for (s, t) in x.iter_mut().zip(y) {
                    *s += t;
                }
                x
            },
        );
    for (o, s) in out.iter_mut().zip(sums) {
        *o += s;
    }
    Some(out)
}

/// The levels of agreement and disagreement of a comparison whose levels are null, exact and
/// else on the values themselves: its level is read from the two value ids alone (equal or
/// not; either missing gives `p.level_of_ids(MISSING, MISSING)`), as the local kernel reads it.
pub fn compared_by_id(p: &Prepared) -> Option<(u8, u8)> {
    if p.reversed.is_empty() {
        exact_only(p)
    } else {
        None
    }
}

/// The refusal of what a run from counts cannot do.
fn unsupported(what: &str) -> AttackError {
    ParamError::Unsupported(format!("fellegi-sunter from an engine's counts: {what}")).into()
}

impl FellegiSunter {
    /// This attack with its linkage specification written out: the one given, else the one
    /// [`LinkageSpec::default_for`] infers from the two tables' key columns (a surface that
    /// holds the tables does this before handing the files to an engine, which does not infer).
    pub fn with_spec_of(
        &self,
        intruder: &intruder_table::Table,
        released: &intruder_table::Table,
        keys: &crate::KeyMap,
    ) -> Result<FellegiSunter, AttackError> {
        if self.params().spec.is_some() {
            return Ok(self.clone());
        }
        let spec = super::LinkageSpec::default_for(intruder, released, keys)?;
        FellegiSunter::new(super::FsParams {
            spec: Some(spec),
            ..self.params().clone()
        })
    }

    /// Estimates u, fits m and λ and weighs every pattern, from an engine's counts; see the
    /// [module docs](self). `sampled(pairs, wanted)` gives the level counts, per comparison
    /// (those `wanted`), of one chunk of the random pairs [`for_each_u_pair`] draws with
    /// `seed`; it is called chunk by chunk, only when some comparison is not counted
    /// exactly.
    pub fn fit_counted<E: From<AttackError>>(
        &self,
        c: &Counted,
        seed: u64,
        mut sampled: impl FnMut(&[(u32, u32)], &[bool]) -> Result<Vec<Vec<u64>>, E>,
    ) -> Result<CountedFit, E> {
        let p = self.params();
        let spec = p
            .spec
            .as_ref()
            .ok_or_else(|| unsupported("a linkage specification is needed (the comparisons are not inferred from the records)"))?;
        let dims = c.dims;
        let prepared = &c.prepared;
        let layout = Layout {
            levels: prepared.iter().map(|x| x.spec.levels.len()).collect(),
            null: prepared.iter().map(|x| x.null_level()).collect(),
        };
        let plan = UPlan::new(p.u_sample, dims.0, dims.1).map_err(AttackError::from)?;
        let budget = plan.pairs as u64;
        let exact: Vec<Option<Vec<u64>>> = prepared
            .iter()
            .zip(&c.values)
            .map(|(x, v)| exact_level_counts(x, v, dims, budget))
            .collect();
        let u: UEstimate = ustats::u_of(prepared, &layout, plan, exact, |wanted| {
            let mut counts = Vec::new();

            for_each_u_pair(plan, dims, seed, |pairs| {
                ustats::add_counts(&mut counts, sampled(pairs, wanted)?);
                Ok::<(), E>(())
            })?;
            Ok::<_, E>(counts)
        })?;
        let n_pairs: usize = c.per_rule.iter().sum();
        let patterns = fit::PatternCounts {
            counts: &c.counts,
            by_rules: &c.by_rules,
            n_pairs,
        };
        let (own, deterministic) = recipe(spec, c)?;
        let sessions = own.as_ref().map(|(rules, counts)| (*rules, counts));
        let fitted = fit::fit(
            p,
            prepared,
            &layout,
            &spec.blocking,
            &patterns,
            sessions,
            &u.u,
            dims,
        );
        let pattern_levels: Vec<Vec<u8>> = c
            .counts
            .iter()
            .map(|&(q, _)| {
                (0..prepared.len())
                    .map(|k| super::compare::unpack(q, k) as u8)
                    .collect()
            })
            .collect();
        let s = score::score(
            p.threshold,
            prepared,
            &c.values,
            &layout,
            &fitted.report,
            &u.u,
            &pattern_levels,
            n_pairs,
            deterministic.map(|d| d.0),
            dims,
        );
        let base: Vec<(u64, f64)> = pattern_levels
            .iter()
            .zip(&s.scorer.base)
            .map(|(lv, &w)| (pack(lv), w))
            .collect();
        let tf: Vec<Option<(usize, Vec<f64>)>> = s
            .scorer
            .tf
            .iter()
            .zip(prepared)
            .map(|(t, x)| {
                t.clone()
                    .map(|t| (x.exact_level().expect("tf on an exact level"), t))
            })
            .collect();
        let comparisons =
            explain::comparison_reports(prepared, &layout, &fitted, &u, &s.level_weights);
        let mut notes = explain::notes(
            p,
            plan,
            &u,
            &fitted,
            c.counts.len(),
            &c.per_rule,
            (n_pairs, 0),
            (s.lambda, s.prior_weight, s.threshold_weight),
        );
        if let Some((_, pairs)) = deterministic {
            notes.push(("lambda_deterministic_pairs".into(), pairs as f64));
        }
        let self_match_weights = self_match_weights(
            prepared,
            &s.level_weights,
            &tf,
            s.prior_weight,
            &c.intruder_values,
        );
        let model = FsModel {
            spec: spec.clone(),
            pairs_per_rule: c.per_rule.clone(),
            candidate_pairs: n_pairs,
            patterns: c.counts.len(),
            u_sample: p.u_sample,
            u_pairs: plan.pairs,
            u_every_pair: plan.every_pair,
            training: p.training,
            sessions: fitted.sessions,
            em: fitted.report,
            lambda: s.lambda,
            prior_weight: s.prior_weight,
            threshold: p.threshold,
            threshold_weight: s.threshold_weight,
            assignment: p.assignment,
            links: 0,
            comparisons,
            warnings: s.warnings,
            self_match_weights,
            borderline: None,
        };
        Ok(CountedFit {
            model,
            base,
            tf,
            threshold_weight: s.threshold_weight,
            dims,
            level_weights: s.level_weights,
            notes,
        })
    }

    /// The linkage of the pairs an engine weighed with `fit`, as [`FellegiSunter::run`] links
    /// them, and the model with its number of links.
    pub fn link_counted(
        &self,
        fit: &CountedFit,
        pairs: WeighedPairs<'_>,
    ) -> Result<(Linkage, FsModel), AttackError> {
        let p = self.params();
        let (ni, nr) = fit.dims;
        let thr_w = fit.threshold_weight;
        let (records, links): (Vec<Candidates>, usize) = match (p.assignment, pairs) {
            (Assignment::None, WeighedPairs::All(all)) => {
                let mut by: Vec<Vec<(usize, f64)>> = vec![Vec::new(); ni];
                let mut links = 0usize;
                for (i, j, w) in all {
                    links += usize::from(w >= thr_w);
                    by[i as usize].push((j as usize, w));
                }
                (by.into_iter().map(Candidates::from_scored).collect(), links)
            }
            (Assignment::Greedy, WeighedPairs::Ranked(ranked)) => {
                let mut out: Vec<Option<(u32, f64)>> = vec![None; ni];
                let mut used = vec![false; nr];
                for x in ranked {
                    let (i, j, w) = x?;
                    if w.is_nan() || out[i as usize].is_some() || used[j as usize] {
                        continue;
                    }
                    used[j as usize] = true;
                    out[i as usize] = Some((j, w));
                }
                linked_records(out, thr_w)
            }
            (Assignment::Optimal, WeighedPairs::Above(mut above)) => {
                // the local order: by intruder row, each row's pairs best first
                above.sort_by(|a, b| a.0.cmp(&b.0).then(b.2.total_cmp(&a.2)).then(a.1.cmp(&b.1)));
                let pairs = super::blocking::Pairs {
                    intruder: above.iter().map(|x| x.0).collect(),
                    released: above.iter().map(|x| x.1).collect(),
                    per_rule: Vec::new(),
                };
                let w: Vec<f64> = above.iter().map(|x| x.2).collect();
                linked_records(predict::optimal(&pairs, &w, ni, nr, thr_w)?, thr_w)
            }
            (a, _) => {
                return Err(unsupported(&format!(
                    "the pairs given do not suit assignment {a:?}"
                )));
            }
        };
        let mut notes = fit.notes.clone();
        for (name, v) in &mut notes {
            if name == "links_at_threshold" {
                *v = links as f64;
            }
        }
        let mut model = fit.model.clone();
        model.links = links;
        let linkage = Linkage {
            method: "fellegi-sunter".into(),
            scored: true,
            complete: p.assignment == Assignment::None,
            released_rows: nr,
            records,
            notes,
            lister: None,
        };
        Ok((linkage, model))
    }
}

/// A specification's `[training]` (Splink's recipe) from an engine's counts, as the local run
/// reads it: the sessions' rules with their pattern counts, and λ from the pairs the
/// deterministic rules find, with that number of pairs (each `None` without such rules).
#[allow(clippy::type_complexity)]
fn recipe<'a>(
    spec: &'a super::LinkageSpec,
    c: &'a Counted,
) -> Result<
    (
        Option<(&'a [Vec<super::spec::Term>], fit::PatternCounts<'a>)>,
        Option<(f64, usize)>,
    ),
    AttackError,
> {
    let rules_of = |f: fn(&super::spec::TrainingSpec) -> &Vec<Vec<super::spec::Term>>| {
        spec.training.as_ref().map(f).filter(|r| !r.is_empty())
    };
    let (session_rules, deterministic_rules) =
        (rules_of(|t| &t.blocking), rules_of(|t| &t.deterministic));
    if session_rules.is_some() != c.training.is_some()
        || deterministic_rules.is_some() != c.deterministic_pairs.is_some()
    {
        return Err(unsupported(
            "the engine's counts do not match the specification's [training] rules",
        ));
    }
    let own = c.training.as_ref().map(|(by_rules, n)| fit::PatternCounts {
        counts: &[],
        by_rules,
        n_pairs: *n,
    });
    let sessions = session_rules.map(Vec::as_slice).zip(own);
    let recall = spec.training.as_ref().and_then(|t| t.recall);
    let deterministic = c
        .deterministic_pairs
        .map(|pairs| super::setup::deterministic_lambda(pairs, recall, c.dims));
    Ok((sessions, deterministic))
}

/// The link the model explains (the local run's `borderline`): the declared link of least
/// weight (then of least intruder row); none without assignment.
pub fn borderline(
    linkage: &Linkage,
    fit: &CountedFit,
    assignment: Assignment,
) -> Option<(usize, usize)> {
    super::borderline_link(&linkage.records, fit.threshold_weight, assignment)
}

impl CountedFit {
    /// The weight breakdown of intruder row `i` and released row `j` (a candidate pair) from
    /// their value ids in each comparison (laid out as [`Prepared::width`] says, comparison
    /// after comparison), as `FsRun::explain_pair` gives it; `candidate`: whether blocking
    /// made them a candidate pair.
    pub fn waterfall(
        &self,
        prepared: &[Prepared],
        (i, j): (usize, usize),
        (a_ids, b_ids): (&[u32], &[u32]),
        candidate: bool,
    ) -> super::Waterfall {
        let a_ids = sides(prepared, a_ids);
        let b_ids = sides(prepared, b_ids);
        let levels: Vec<u8> = prepared
            .iter()
            .enumerate()
            .map(|(k, p)| p.level_of_sides(a_ids[k], b_ids[k]))
            .collect();
        let (a_ids, b_ids): (Vec<u32>, Vec<u32>) =
            a_ids.iter().zip(&b_ids).map(|(a, b)| (a[0], b[0])).unzip();
        let prior = self.model.prior_weight;
        let mut total = prior;
        for (k, &l) in levels.iter().enumerate() {
            total += self.level_weights[k][l as usize];
        }
        let mut adj = vec![0.0; levels.len()];
        for (k, &l) in levels.iter().enumerate() {
            if let Some((e, t)) = &self.tf[k]
                && *e == l as usize
            {
                adj[k] = t[a_ids[k] as usize];
                total += adj[k];
            }
        }
        let mut cum = prior;
        let steps = levels
            .iter()
            .enumerate()
            .map(|(k, &l)| {
                let p = &prepared[k];
                let w = self.level_weights[k][l as usize];
                cum += w + adj[k];
                super::WaterfallStep {
                    comparison: p.spec.column.clone(),
                    intruder_value: p.value(a_ids[k]).map(str::to_string),
                    released_value: p.value(b_ids[k]).map(str::to_string),
                    level: p.spec.levels[l as usize].label(),
                    weight: w,
                    tf_adjustment: adj[k],
                    cumulative: cum,
                }
            })
            .collect();
        super::Waterfall {
            intruder_row: i,
            released_row: j,
            candidate,
            prior_weight: prior,
            steps,
            match_weight: total,
            match_probability: super::probability_of_weight(total),
        }
    }
}

/// One record's ids (laid out as [`Prepared::width`] says, comparison after comparison) cut
/// into each comparison's.
fn sides<'a>(prepared: &[Prepared], ids: &'a [u32]) -> Vec<&'a [u32]> {
    let mut rest = ids;
    prepared
        .iter()
        .map(|p| {
            let (own, more) = rest.split_at(p.width());
            rest = more;
            own
        })
        .collect()
}

/// The self-match weights ([`explain`]'s) of the intruder records grouped by their values.
fn self_match_weights(
    prepared: &[Prepared],
    level_weights: &[Vec<f64>],
    tf: &[Option<(usize, Vec<f64>)>],
    prior_weight: f64,
    records: &[(Vec<u32>, u64)],
) -> Vec<(f64, u64)> {
    let mut by: BTreeMap<i64, u64> = BTreeMap::new();
    for (ids, n) in records {
        let mut w = prior_weight;
        for (c, (p, own)) in prepared.iter().zip(sides(prepared, ids)).enumerate() {
            let x = own[0];
            let l = p.level_of_sides(own, own) as usize;
            w += level_weights[c][l];
            if let Some((e, t)) = &tf[c]
                && *e == l
            {
                w += t[x as usize];
            }
        }
        *by.entry((w * 100.0).round() as i64).or_insert(0) += n;
    }
    by.into_iter().map(|(k, n)| (k as f64 / 100.0, n)).collect()
}
