//! Training: m and the match share λ by EM on the counts of agreement patterns — never on the
//! pairs — from deterministic starting values, one session per blocking rule ([`train`]) or
//! pooled ([`Training::Pooled`]).

use super::compare::{Prepared, unpack};
use super::em::{self, EmOptions, EmReport, Layout, Table2};
use super::train::{self, TrainingSession};
use super::{FsParams, Training};

/// What blocking counted: the agreement patterns of the candidate pairs (or of the pairs of
/// the training rules).
pub(crate) struct PatternCounts<'a> {
    /// `(packed pattern, pairs)` over every candidate pair.
    pub counts: &'a [(u64, u64)],
    /// `(rule set, packed pattern, pairs)`: bit `r` of the set is whether the pairs agree on
    /// rule `r`.
    pub by_rules: &'a [(u32, u64, u64)],
    /// Candidate pairs.
    pub n_pairs: usize,
}

/// The fitted m, u among candidates and λ.
pub(crate) struct Fitted {
    /// The EM outcome over every candidate pair.
    pub report: EmReport,
    /// The per-rule sessions (empty for pooled training).
    pub sessions: Vec<TrainingSession>,
    /// Candidate pairs per comparison and level.
    pub pattern_pairs: Vec<Vec<u64>>,
}

/// Non-null levels in order get m ∝ 10^(−rank), normalised.
pub(crate) fn start_m(levels: usize, null: Option<usize>) -> Vec<f64> {
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

/// Starting m: the deterministic shape, with the specification's fixed m in place and the
/// free levels sharing the rest.
fn start_m_all(layout: &Layout, fixed_m: &[Vec<Option<f64>>]) -> Table2 {
    (0..layout.levels.len())
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
        .collect()
}

/// Runs EM; see the [module docs](self).
#[allow(clippy::too_many_arguments)]
pub(crate) fn fit(
    params: &FsParams,
    prepared: &[Prepared],
    layout: &Layout,
    rules: &[Vec<super::spec::Term>],
    patterns: &PatternCounts,
    sessions: Option<(&[Vec<super::spec::Term>], &PatternCounts)>,
    u_rand: &Table2,
    (ni, nr): (usize, usize),
) -> Fitted {
    let k = prepared.len();
    let n_pairs = patterns.n_pairs;
    let per_level = |f: &dyn Fn(&super::spec::Level) -> Option<f64>| -> Vec<Vec<Option<f64>>> {
        prepared
            .iter()
            .map(|p| p.spec.levels.iter().map(f).collect())
            .collect()
    };
    let (fixed_m, fixed_u) = (per_level(&|l| l.m), per_level(&|l| l.u));
    let m0 = start_m_all(layout, &fixed_m);
    let lambda0 = if n_pairs > 0 {
        (ni.min(nr) as f64 / n_pairs as f64).clamp(1e-6, 0.5)
    } else {
        0.5
    };
    // Among the candidate pairs, a comparison on a column no blocking rule reads has, for
    // non-matches, the distribution of random pairs: with `u_free_in_em = false` its u stays
    // at the random-pair value, which anchors EM. Comparisons on blocking columns agree more
    // often than at random within the blocks, so EM estimates their u among the candidates.
    let blocking_cols: std::collections::HashSet<&str> = rules
        .iter()
        .flatten()
        .flat_map(|t| [t.column(), t.released_column()])
        .collect();
    let em_fixed_u: Vec<Vec<Option<f64>>> = (0..k)
        .map(|c| {
            if params.u_free_in_em || blocking_cols.contains(prepared[c].spec.column.as_str()) {
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
    for &(code, n) in patterns.counts {
        for (c, row) in pattern_pairs.iter_mut().enumerate() {
            row[unpack(code, c)] += n;
        }
    }
    // u starts from the level shares among the candidate pairs (almost all non-matches),
    // not from the random pairs: within blocks the blocking columns agree far more often
    // than at random, and starting from the random-pair u would make every pair agreeing
    // on them look like a match.
    let u0: Table2 = (0..k)
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
    let (report, sessions) = match (params.training, sessions) {
        (Training::Pooled, None) => {
            let opts = EmOptions {
                max_iter: params.em_max_iter,
                tolerance: params.em_tolerance,
                fix_u: params.fix_u,
                // At most one true match per intruder record (and per released record).
                lambda_max: if n_pairs > 0 {
                    (ni.min(nr) as f64 / n_pairs as f64).min(1.0)
                } else {
                    1.0
                },
            };
            let rep = em::estimate(
                patterns.counts,
                layout,
                &m0,
                &u0,
                lambda0,
                &fixed_m,
                &em_fixed_u,
                &opts,
            );
            (rep, Vec::new())
        }
        (_, own) => {
            // Sessions on the training rules (Splink's recipe), else on the blocking rules.
            let (rules, by_rules) = match own {
                Some((r, c)) => (r, c.by_rules),
                None => (rules, patterns.by_rules),
            };
            let model = train::Model {
                layout,
                columns: prepared.iter().map(|p| p.spec.column.as_str()).collect(),
                m0: &m0,
                fixed_m: &fixed_m,
                fixed_u: &fixed_u,
                u_rand,
            };
            let set = train::Settings {
                max_iter: params.em_max_iter,
                tolerance: params.em_tolerance,
                fix_u: params.fix_u,
                u_free: params.u_free_in_em,
                n_min: ni.min(nr),
            };
            train::per_rule(
                rules,
                by_rules,
                n_pairs,
                patterns.counts,
                &model,
                &set,
                &u0,
                &em_fixed_u,
            )
        }
    };
    Fitted {
        report,
        sessions,
        pattern_pairs,
    }
}
