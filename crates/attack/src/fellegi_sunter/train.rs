//! Training m by EM one blocking rule at a time (Splink's `estimate_parameters_using_
//! expectation_maximisation(blocking_rule)`, Linacre et al. 2022).
//!
//! Within the pairs a blocking rule produces, the comparisons on the columns the rule blocks on
//! agree by construction. Pooling every candidate pair into one EM lets the latent "match"
//! class settle on such an agreement instead of on the true matches: with weak categorical
//! keys, blocking on the birth year makes "same birth year" a class EM prefers (m of the birth
//! year → 1, m of everything else → the level shares among same-year pairs). So, per rule `r`:
//!
//! 1. **Session `r`**: EM over *all* candidate pairs agreeing on every term of rule `r` (also
//!    those an earlier rule produced: a pair is in the session when its keys agree on the rule),
//!    with the comparisons on columns rule `r` reads left out. The match share is capped at
//!    `min(n_I, n_R) / pairs` (at most one true match per record). u of the session's
//!    comparisons is estimated among the session's pairs, started from their level shares
//!    (`u_free_in_em`, the default), or kept at the random-pair u (`u_free_in_em = false`, or
//!    `fix_u`, Splink's convention).
//! 2. **m**: each comparison's `m` is the plain mean, level by level, over the sessions where
//!    it was free (Splink averages the sessions' m the same way). A comparison left out of
//!    every session (its column is in every rule) keeps its m estimated in step 3.
//! 3. **λ**: one more EM over the whole candidate set with the trained m held fixed (u among
//!    the candidates and λ free, λ capped as above): λ_C is the share of matches the trained
//!    model implies among the candidates.
//!
//! u for prediction stays the random-pair u (module docs). When there is a single rule that
//! reads no column (no blocking), its session is the whole candidate set with nothing left out
//! and is taken as it is: the result equals pooled EM.

use super::compare::{pack, unpack};
use super::em::{self, EmOptions, EmReport, Layout, Table2};
use super::spec::Term;

/// One EM training session (one blocking rule).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TrainingSession {
    /// The blocking rule, as written (`(all pairs)` for a rule without terms).
    pub rule: String,
    /// Candidate pairs agreeing on the rule (the session's pairs).
    pub pairs: usize,
    /// Distinct agreement patterns among them (over the comparisons left free).
    pub patterns: usize,
    /// Comparisons (intruder columns) left out: the rule reads their column.
    pub left_out: Vec<String>,
    /// m per comparison and level (`None` for comparisons left out or when EM did not run).
    pub m: Vec<Option<Vec<f64>>>,
    /// u among the session's pairs (`None` as for `m`).
    pub u: Vec<Option<Vec<f64>>>,
    /// Share of matches among the session's pairs.
    pub lambda: f64,
    /// Upper bound on that share, `min(n_I, n_R) / pairs`.
    pub lambda_max: f64,
    /// EM iterations run (0: not run — no pair, or no comparison left free).
    pub iterations: usize,
    /// Whether the tolerance was reached before the iteration cap.
    pub converged: bool,
    /// Largest parameter change of the last iteration (`None` when EM did not run).
    pub last_change: Option<f64>,
}

/// The EM settings shared by every session.
pub(crate) struct Settings {
    pub max_iter: usize,
    pub tolerance: f64,
    pub fix_u: bool,
    pub u_free: bool,
    /// `min(n_I, n_R)`: at most that many true matches.
    pub n_min: usize,
}

/// The inputs every session reads.
pub(crate) struct Model<'a> {
    pub layout: &'a Layout,
    /// Intruder column of each comparison.
    pub columns: Vec<&'a str>,
    /// Deterministic starting m (full shape).
    pub m0: &'a Table2,
    /// m / u fixed by the specification.
    pub fixed_m: &'a [Vec<Option<f64>>],
    pub fixed_u: &'a [Vec<Option<f64>>],
    /// u from random pairs.
    pub u_rand: &'a Table2,
}

fn rule_label(rule: &[Term]) -> String {
    if rule.is_empty() {
        "(all pairs)".into()
    } else {
        rule.iter().map(Term::label).collect::<Vec<_>>().join(" & ")
    }
}

/// Counts of the session's patterns over the comparisons `free` (re-packed in that order):
/// the candidate pairs agreeing on rule `r` (bit `r` of their rule set).
fn session_counts(by_rules: &[(u32, u64, u64)], r: usize, free: &[usize]) -> Vec<(u64, u64)> {
    let mut h: std::collections::BTreeMap<u64, u64> = Default::default();
    let mut buf = vec![0u8; free.len()];
    for &(set, code, n) in by_rules {
        if set >> r & 1 == 0 {
            continue;
        }
        for (s, &c) in free.iter().enumerate() {
            buf[s] = unpack(code, c) as u8;
        }
        *h.entry(pack(&buf)).or_insert(0) += n;
    }
    h.into_iter().collect()
}

/// Runs the session of one rule.
fn session(
    rule: &[Term],
    r: usize,
    by_rules: &[(u32, u64, u64)],
    model: &Model,
    set: &Settings,
) -> (TrainingSession, Option<EmReport>, Vec<usize>) {
    let k = model.layout.levels.len();
    let read: Vec<&str> = rule
        .iter()
        .flat_map(|t| [t.column(), t.released_column()])
        .collect();
    let free: Vec<usize> = (0..k)
        .filter(|&c| !read.contains(&model.columns[c]))
        .collect();
    let left_out: Vec<String> = (0..k)
        .filter(|c| !free.contains(c))
        .map(|c| model.columns[c].to_string())
        .collect();
    let counts = session_counts(by_rules, r, &free);
    let n: u64 = counts.iter().map(|c| c.1).sum();
    let lambda_max = if n > 0 {
        (set.n_min as f64 / n as f64).min(1.0)
    } else {
        1.0
    };
    let mut out = TrainingSession {
        rule: rule_label(rule),
        pairs: n as usize,
        patterns: counts.len(),
        left_out,
        m: vec![None; k],
        u: vec![None; k],
        lambda: 0.0,
        lambda_max,
        iterations: 0,
        converged: false,
        last_change: None,
    };
    if n == 0 || free.is_empty() {
        return (out, None, free);
    }
    let sub = Layout {
        levels: free.iter().map(|&c| model.layout.levels[c]).collect(),
        null: free.iter().map(|&c| model.layout.null[c]).collect(),
    };
    let mut shares: Vec<Vec<u64>> = sub.levels.iter().map(|&l| vec![0; l]).collect();
    for &(code, cnt) in &counts {
        for (s, row) in shares.iter_mut().enumerate() {
            row[unpack(code, s)] += cnt;
        }
    }
    let fixed_m: Vec<Vec<Option<f64>>> = free.iter().map(|&c| model.fixed_m[c].clone()).collect();
    // u held fixed in the session: the specification's, or every non-null random-pair u.
    let fixed_u: Vec<Vec<Option<f64>>> = free
        .iter()
        .map(|&c| {
            if set.u_free {
                model.fixed_u[c].clone()
            } else {
                model.u_rand[c]
                    .iter()
                    .enumerate()
                    .map(|(l, &u)| (model.layout.null[c] != Some(l)).then_some(u))
                    .collect()
            }
        })
        .collect();
    let m0: Table2 = free.iter().map(|&c| model.m0[c].clone()).collect();
    let u0: Table2 = free
        .iter()
        .enumerate()
        .map(|(s, &c)| {
            if set.fix_u {
                return model.u_rand[c].clone();
            }
            let null = model.layout.null[c];
            let tot: u64 = (0..sub.levels[s])
                .filter(|&l| null != Some(l))
                .map(|l| shares[s][l])
                .sum();
            (0..sub.levels[s])
                .map(|l| match fixed_u[s][l] {
                    Some(v) => v,
                    None if null == Some(l) => 1.0,
                    None if tot > 0 => (shares[s][l] as f64).max(0.5) / tot as f64,
                    None => model.u_rand[c][l],
                })
                .collect()
        })
        .collect();
    let rep = em::estimate(
        &counts,
        &sub,
        &m0,
        &u0,
        (set.n_min as f64 / n as f64).clamp(1e-6, 0.5),
        &fixed_m,
        &fixed_u,
        &EmOptions {
            max_iter: set.max_iter,
            tolerance: set.tolerance,
            fix_u: set.fix_u,
            lambda_max,
        },
    );
    for (s, &c) in free.iter().enumerate() {
        out.m[c] = Some(rep.m[s].clone());
        out.u[c] = Some(rep.u[s].clone());
    }
    out.lambda = rep.lambda;
    out.iterations = rep.iterations;
    out.converged = rep.converged;
    out.last_change = Some(rep.last_change);
    (out, Some(rep), free)
}

/// Trains m per blocking rule, then λ over the candidates with m fixed; see the
/// [module docs](self). `by_rules` holds `(rule set, pattern code, pairs)`: bit `r` of the set
/// is whether the pairs agree on rule `r`; `union_counts` the pattern counts of every candidate
/// pair; `final_u0` / `final_fixed_u` the starting and fixed u of the candidate-set EM (as
/// pooled EM uses them).
#[allow(clippy::too_many_arguments)]
pub(crate) fn per_rule(
    rules: &[Vec<Term>],
    by_rules: &[(u32, u64, u64)],
    n_pairs: usize,
    union_counts: &[(u64, u64)],
    model: &Model,
    set: &Settings,
    final_u0: &Table2,
    final_fixed_u: &[Vec<Option<f64>>],
) -> (EmReport, Vec<TrainingSession>) {
    let k = model.layout.levels.len();
    let mut sessions = Vec::with_capacity(rules.len());
    let mut whole: Option<EmReport> = None;
    for (r, rule) in rules.iter().enumerate() {
        let (s, rep, free) = session(rule, r, by_rules, model, set);
        if rules.len() == 1 && free.len() == k && s.pairs == n_pairs {
            whole = rep;
        }
        sessions.push(s);
    }
    if let Some(rep) = whole {
        return (rep, sessions);
    }
    // m: mean over the sessions where the comparison was free.
    let trained: Vec<Option<Vec<f64>>> = (0..k)
        .map(|c| {
            let ms: Vec<&Vec<f64>> = sessions.iter().filter_map(|s| s.m[c].as_ref()).collect();
            (!ms.is_empty()).then(|| {
                (0..model.layout.levels[c])
                    .map(|l| ms.iter().map(|m| m[l]).sum::<f64>() / ms.len() as f64)
                    .collect()
            })
        })
        .collect();
    let m0: Table2 = (0..k)
        .map(|c| trained[c].clone().unwrap_or_else(|| model.m0[c].clone()))
        .collect();
    let fixed_m: Vec<Vec<Option<f64>>> = (0..k)
        .map(|c| match &trained[c] {
            Some(m) => m
                .iter()
                .enumerate()
                .map(|(l, &v)| (model.layout.null[c] != Some(l)).then_some(v))
                .collect(),
            None => model.fixed_m[c].clone(),
        })
        .collect();
    let n = n_pairs;
    let lambda_max = if n > 0 {
        (set.n_min as f64 / n as f64).min(1.0)
    } else {
        1.0
    };
    let lambda0 = if n > 0 {
        (set.n_min as f64 / n as f64).clamp(1e-6, 0.5)
    } else {
        0.5
    };
    let rep = em::estimate(
        union_counts,
        model.layout,
        &m0,
        final_u0,
        lambda0,
        &fixed_m,
        final_fixed_u,
        &EmOptions {
            max_iter: set.max_iter,
            tolerance: set.tolerance,
            fix_u: set.fix_u,
            lambda_max,
        },
    );
    (rep, sessions)
}
