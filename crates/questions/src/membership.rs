//! Membership inference: does a person's presence in the data a release was made from show in
//! the release? The members are records of the original, the non-members records of the control
//! set (the holdout); an attack scores each target, and the scores are judged by how well they
//! separate the two (Shokri et al. 2017; for synthetic data, Stadler, Oprisanu & Troncoso,
//! "Synthetic Data — Anonymisation Groundhog Day", USENIX Security 2022).
//!
//! **Targets**: `n_targets` records drawn without replacement from the original (members) and as
//! many from the control set (non-members).
//!
//! **Attacks** (`attack`):
//! - `distance`: the closer a target's nearest release record, the likelier a member; the score
//!   is minus the target's DCR to the release ([`distance`](crate::distance)'s distance, ranges
//!   from the release) — the attack behind "DCR" protections, run as an attack.
//! - `density-ratio`, in the spirit of DOMIAS (van Breugel, Sun, Qian & van der Schaar, "Membership
//!   Inference Attacks against Synthetic Data through Overfitting Detection", AISTATS 2023): the
//!   score is `log p_release(x) − log p_reference(x)`, a release that overfits its training
//!   records being denser there than the population. The reference is the control records that
//!   are not targets (real records of the population the release never saw). Both densities are
//!   product-kernel estimates: a Gaussian kernel for numbers with Scott's bandwidth `σ ·
//!   n^(−1/(d+4))` (σ the column's standard deviation in the estimating table, 1 when it is 0),
//!   and Aitchison & Aitken's kernel for categories (`1 − λ` for the same category, `λ / (c −
//!   1)` for another of the `c` categories, `λ = min(n^(−1/(d+4)), (c − 1) / c)`); a missing
//!   number is one more category of the same kind (a binary present/missing kernel times the
//!   Gaussian when both are present). DOMIAS estimates the densities with a normalising flow
//!   or a Gaussian KDE over encoded columns; the product kernel keeps categories categorical.
//!
//! **Figures**: the AUC (the probability that a random member scores above a random
//! non-member, ties counting one half: 0.5 is chance, 1 a perfect attack), the true-positive
//! rate at false-positive rates of 1% and 10% (the largest share of members caught by a
//! threshold that catches at most that share of non-members; Carlini et al., "Membership
//! Inference Attacks From First Principles", 2022) and the advantage, the largest TPR − FPR over
//! thresholds.

use intruder_table::Table;
use intruder_table::params::{ParamKind, ParamReader, ParamSpec, Range};
use rand::seq::index::sample;
use rayon::prelude::*;

use crate::coded::{Coded, code_column, question_tables};
use crate::distance::{Space, compared_columns};
use crate::error::QuestionError;
use crate::stream;

/// How a membership attack scores a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MembershipAttack {
    /// Minus the distance to the nearest release record.
    #[default]
    Distance,
    /// The release's density over the population's (DOMIAS-like).
    DensityRatio,
}

impl MembershipAttack {
    /// The name used in parameters.
    pub fn as_str(self) -> &'static str {
        match self {
            MembershipAttack::Distance => "distance",
            MembershipAttack::DensityRatio => "density-ratio",
        }
    }
}

impl std::str::FromStr for MembershipAttack {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "distance" => Ok(MembershipAttack::Distance),
            "density-ratio" => Ok(MembershipAttack::DensityRatio),
            _ => Err(format!(
                "unknown attack '{s}'; expected distance or density-ratio"
            )),
        }
    }
}

/// The checked parameters of [`membership`].
#[derive(Debug, Clone, PartialEq)]
pub struct MembershipParams {
    /// Members drawn from the original, and as many non-members from the control set.
    pub n_targets: usize,
    /// How targets are scored.
    pub attack: MembershipAttack,
    /// The columns the attack uses (`None`: every column of the release).
    pub columns: Option<Vec<String>>,
}

impl Default for MembershipParams {
    /// 500 targets of each kind, the distance attack, every column.
    fn default() -> Self {
        MembershipParams {
            n_targets: 500,
            attack: MembershipAttack::Distance,
            columns: None,
        }
    }
}

impl MembershipParams {
    /// Reads the parameters declared in [`PARAMS`], recording every problem in `r`.
    pub fn read(r: &mut ParamReader<'_>) -> Option<MembershipParams> {
        let d = MembershipParams::default();
        let params = MembershipParams {
            n_targets: r.get::<usize>("n_targets").unwrap_or(d.n_targets),
            attack: r.choice::<MembershipAttack>("attack").unwrap_or(d.attack),
            columns: r.get::<Vec<String>>("columns"),
        };
        r.ok().then_some(params)
    }

    /// Reads the parameters from a TOML table; every problem is reported at once under
    /// `source_name`.
    pub fn from_table(
        table: &toml::Table,
        source_name: &str,
    ) -> Result<MembershipParams, intruder_table::params::ParamError> {
        crate::read_table(table, source_name, PARAMS, MembershipParams::read)
    }
}

/// The parameters of `membership`.
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "n_targets",
        ParamKind::Integer,
        "members drawn from the original, and as many non-members from the control set",
    )
    .default_value("500")
    .within(Range::at_least(1.0)),
    ParamSpec::new(
        "attack",
        ParamKind::Choice(&["distance", "density-ratio"]),
        "distance: the nearer the closest release record, the likelier a member; density-ratio: the release's density over the population's (DOMIAS)",
    )
    .default_value("distance"),
    ParamSpec::new(
        "columns",
        ParamKind::Columns,
        "the columns the attack uses (default: every column of the release)",
    ),
];

/// How well an attack's scores separate members from non-members.
#[derive(Debug, Clone, PartialEq)]
pub struct MembershipResult {
    /// The attack.
    pub attack: MembershipAttack,
    /// Members scored.
    pub n_members: usize,
    /// Non-members scored.
    pub n_non_members: usize,
    /// Area under the ROC curve (0.5: chance).
    pub auc: f64,
    /// True-positive rate at a false-positive rate of at most 1%.
    pub tpr_at_fpr_1: f64,
    /// True-positive rate at a false-positive rate of at most 10%.
    pub tpr_at_fpr_10: f64,
    /// The largest TPR − FPR over thresholds.
    pub advantage: f64,
    /// What makes the result doubtful.
    pub warnings: Vec<String>,
}

/// The ROC figures of scores: (AUC, TPR at FPR ≤ 1%, TPR at FPR ≤ 10%, advantage). Higher
/// scores say "member"; ties count one half in the AUC and share a threshold.
pub fn roc(members: &[f64], non_members: &[f64]) -> (f64, f64, f64, f64) {
    let mut all: Vec<(f64, bool)> = members
        .iter()
        .map(|&s| (s, true))
        .chain(non_members.iter().map(|&s| (s, false)))
        .collect();
    all.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (p, n) = (members.len() as f64, non_members.len() as f64);
    let (mut tp, mut fp) = (0.0, 0.0);
    let (mut area, mut tpr1, mut tpr10, mut advantage) = (0.0, 0.0_f64, 0.0_f64, 0.0_f64);
    let mut i = 0;
    while i < all.len() {
        // One threshold per distinct score: every tied record passes it together.
        let (mut dtp, mut dfp) = (0.0, 0.0);
        let score = all[i].0;
        while i < all.len() && all[i].0.total_cmp(&score).is_eq() {
            if all[i].1 {
                dtp += 1.0
            } else {
                dfp += 1.0
            }
            i += 1;
        }
        // The trapezoid under this step: a tie counts one half.
        area += dfp * (tp + dtp / 2.0);
        tp += dtp;
        fp += dfp;
        let (tpr, fpr) = (tp / p, fp / n);
        if fpr <= 0.01 {
            tpr1 = tpr1.max(tpr);
        }
        if fpr <= 0.10 {
            tpr10 = tpr10.max(tpr);
        }
        advantage = advantage.max(tpr - fpr);
    }
    (area / (p * n), tpr1, tpr10, advantage)
}

/// One column of a [`Density`]: the estimating table's values and the kernel's constants.
enum KernelColumn {
    /// A Gaussian kernel of bandwidth `1 / inv_h`; `gauss` is `−ln(h √(2π))`. With missing
    /// values in the column, `same` and `other` are `ln(1 − λ)` and `ln λ` of the present/missing
    /// kernel (`None` without).
    Numbers {
        values: Vec<f64>,
        inv_h: f64,
        gauss: f64,
        missing: Option<(f64, f64)>,
    },
    /// Aitchison and Aitken's kernel: `same` = `ln(1 − λ)`, `other` = `ln(λ / (c − 1))` (both 0
    /// with one category).
    Codes {
        values: Vec<u32>,
        same: f64,
        other: f64,
    },
}

/// A product-kernel density estimate from the records of one table.
struct Density {
    columns: Vec<KernelColumn>,
    n: usize,
}

/// Records of the estimating table whose kernel terms are summed together.
const DENSITY_BLOCK: usize = 4096;

impl Density {
    /// The estimate from every record of table `table` (`n` records); `targets` (table, rows)
    /// count towards the categories a kernel spreads over and the missing values it meets.
    fn new(columns: &[Coded], table: usize, n: usize, targets: &[(usize, &[usize])]) -> Density {
        let d = columns.len() as f64;
        let shrink = (n as f64).powf(-1.0 / (d + 4.0));
        let columns = columns
            .iter()
            .map(|c| match c {
                Coded::Numbers(v) => {
                    let present: Vec<f64> =
                        v[table].iter().copied().filter(|x| !x.is_nan()).collect();
                    let m = present.len() as f64;
                    let mean = present.iter().sum::<f64>() / m.max(1.0);
                    let var = present.iter().map(|x| (x - mean).powi(2)).sum::<f64>()
                        / (m - 1.0).max(1.0);
                    let sigma = if var > 0.0 { var.sqrt() } else { 1.0 };
                    let h = sigma * shrink;
                    let any_missing = v[table].iter().any(|x| x.is_nan())
                        || targets
                            .iter()
                            .any(|(t, rows)| rows.iter().any(|&r| v[*t][r].is_nan()));
                    let lambda = shrink.min(0.5);
                    KernelColumn::Numbers {
                        values: v[table].clone(),
                        inv_h: 1.0 / h,
                        gauss: -(h * (2.0 * std::f64::consts::PI).sqrt()).ln(),
                        missing: any_missing.then(|| ((1.0 - lambda).ln(), lambda.ln())),
                    }
                }
                Coded::Codes(v) => {
                    let mut seen: Vec<u32> = v[table].to_vec();
                    for (t, rows) in targets {
                        seen.extend(rows.iter().map(|&r| v[*t][r]));
                    }
                    seen.sort_unstable();
                    seen.dedup();
                    let c = seen.len().max(1) as f64;
                    let lambda = shrink.min((c - 1.0) / c);
                    let (same, other) = if c <= 1.0 {
                        (0.0, 0.0)
                    } else {
                        ((1.0 - lambda).ln(), (lambda / (c - 1.0)).ln())
                    };
                    KernelColumn::Codes {
                        values: v[table].clone(),
                        same,
                        other,
                    }
                }
            })
            .collect();
        Density { columns, n }
    }

    /// Adds each column's log-kernel term between the target `x` (a value per column: a number,
    /// or a category code as a number) and the records `block` to `sums`.
    fn add_terms(&self, x: &[f64], block: std::ops::Range<usize>, sums: &mut [f64]) {
        for (c, &x) in self.columns.iter().zip(x) {
            match c {
                KernelColumn::Numbers {
                    values,
                    inv_h,
                    gauss,
                    missing,
                } => {
                    let ys = &values[block.clone()];
                    match missing {
                        None => {
                            for (s, y) in sums.iter_mut().zip(ys) {
                                let z = (x - y) * inv_h;
                                *s += gauss - 0.5 * z * z;
                            }
                        }
                        Some((same, other)) => {
                            for (s, y) in sums.iter_mut().zip(ys) {
                                *s += match (x.is_nan(), y.is_nan()) {
                                    (true, true) => *same,
                                    (true, false) | (false, true) => *other,
                                    _ => {
                                        let z = (x - y) * inv_h;
                                        same + gauss - 0.5 * z * z
                                    }
                                };
                            }
                        }
                    }
                }
                KernelColumn::Codes {
                    values,
                    same,
                    other,
                } => {
                    let x = x as u32;
                    for (s, &y) in sums.iter_mut().zip(&values[block.clone()]) {
                        *s += if x == y { *same } else { *other };
                    }
                }
            }
        }
    }

    /// `log p(x)` of the target `x` (a value per column), summed block by block with a running
    /// maximum (`log Σ exp`, stable).
    fn log_density(&self, x: &[f64], sums: &mut Vec<f64>) -> f64 {
        let (mut max, mut total) = (f64::NEG_INFINITY, 0.0_f64);
        for start in (0..self.n).step_by(DENSITY_BLOCK) {
            let end = (start + DENSITY_BLOCK).min(self.n);
            sums.clear();
            sums.resize(end - start, 0.0);
            self.add_terms(x, start..end, sums);
            let block_max = sums.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if block_max > max {
                total *= (max - block_max).exp();
                max = block_max;
            }
            total += sums.iter().map(|&v| (v - max).exp()).sum::<f64>();
        }
        max + total.ln() - (self.n as f64).ln()
    }
}

/// The values of row `row` of table `table` in every column, category codes as numbers.
fn target_values(columns: &[Coded], table: usize, row: usize) -> Vec<f64> {
    columns
        .iter()
        .map(|c| match c {
            Coded::Numbers(v) => v[table][row],
            Coded::Codes(v) => f64::from(v[table][row]),
        })
        .collect()
}

/// Membership inference against `released` for records of `original` (members) and `control`
/// (non-members); see the [module docs](self).
pub fn membership(
    original: &Table,
    control: &Table,
    released: &Table,
    params: &MembershipParams,
    seed: u64,
) -> Result<MembershipResult, QuestionError> {
    if params.n_targets == 0 {
        return Err(crate::ParamError::NoAttacks.into());
    }
    let [ori, ctl, rel] = question_tables(original, control, released)?;
    let tables = [rel, ori, ctl];
    let names = compared_columns(params.columns.as_deref(), &tables, released)?;
    let columns: Vec<Coded> = names
        .iter()
        .map(|c| code_column(c, &tables))
        .collect::<Result<_, _>>()?;
    let reference_needed = usize::from(params.attack == MembershipAttack::DensityRatio);
    for (t, rows, purpose) in [
        (ori, original.nrows(), "member draw"),
        (
            ctl,
            control.nrows().saturating_sub(reference_needed),
            if reference_needed == 1 {
                "non-member draw (leaving one reference record at least)"
            } else {
                "non-member draw"
            },
        ),
    ] {
        if params.n_targets > rows {
            return Err(QuestionError::TooManyTargets {
                file: t.file(),
                which: t.which,
                n_targets: params.n_targets,
                rows,
                purpose,
            });
        }
    }
    let members = sample(&mut stream(seed, 1), original.nrows(), params.n_targets).into_vec();
    let non_members = sample(&mut stream(seed, 2), control.nrows(), params.n_targets).into_vec();
    let (member_scores, non_member_scores) = match params.attack {
        MembershipAttack::Distance => {
            let space = Space::new(&columns);
            let score = |table: usize, rows: &[usize]| -> Vec<f64> {
                space
                    .two_nearest(table, rows, 0, released.nrows())
                    .iter()
                    .map(|p| -p.0)
                    .collect()
            };
            (score(1, &members), score(2, &non_members))
        }
        MembershipAttack::DensityRatio => {
            let mut is_target = vec![false; control.nrows()];
            for &r in &non_members {
                is_target[r] = true;
            }
            let reference: Vec<usize> = (0..control.nrows()).filter(|&r| !is_target[r]).collect();
            // The reference as a table of its own, appended to each column.
            let mut columns = columns.clone();
            for c in &mut columns {
                match c {
                    Coded::Numbers(v) => v.push(reference.iter().map(|&r| v[2][r]).collect()),
                    Coded::Codes(v) => v.push(reference.iter().map(|&r| v[2][r]).collect()),
                }
            }
            let targets: [(usize, &[usize]); 2] = [(1, &members), (2, &non_members)];
            let synthetic = Density::new(&columns, 0, released.nrows(), &targets);
            let population = Density::new(&columns, 3, reference.len(), &targets);
            let score = |table: usize, rows: &[usize]| -> Vec<f64> {
                rows.par_iter()
                    .map_init(Vec::new, |sums, &r| {
                        let x = target_values(&columns, table, r);
                        synthetic.log_density(&x, sums) - population.log_density(&x, sums)
                    })
                    .collect()
            };
            (score(1, &members), score(2, &non_members))
        }
    };
    let (auc, tpr_at_fpr_1, tpr_at_fpr_10, advantage) = roc(&member_scores, &non_member_scores);
    let mut warnings = Vec::new();
    if params.n_targets < 100 {
        warnings.push(format!(
            "{} non-members: a false-positive rate of 1% allows no false positive, so tpr_at_fpr_1 is the share of members scored above every non-member",
            params.n_targets
        ));
    }
    Ok(MembershipResult {
        attack: params.attack,
        n_members: members.len(),
        n_non_members: non_members.len(),
        auc,
        tpr_at_fpr_1,
        tpr_at_fpr_10,
        advantage,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::{Density, target_values};
    use crate::coded::{Coded, MISSING};

    /// The density of a hand-computed example: one number and one category, two records.
    #[test]
    fn product_kernel_density_by_hand() {
        // Table 0 estimates: (0, a), (2, b). Table 1 holds the target (1, a).
        let columns = vec![
            Coded::Numbers(vec![vec![0.0, 2.0], vec![1.0]]),
            Coded::Codes(vec![vec![0, 1], vec![0]]),
        ];
        let targets: [(usize, &[usize]); 1] = [(1, &[0])];
        let density = Density::new(&columns, 0, 2, &targets);
        let shrink = 2f64.powf(-1.0 / 6.0);
        let h = 2f64.sqrt() * shrink; // σ of {0, 2} is √2
        let gauss =
            |z: f64| (-0.5 * (z / h).powi(2)).exp() / (h * (2.0 * std::f64::consts::PI).sqrt());
        let lambda = shrink.min(0.5); // two categories: λ ≤ 1/2
        let expected = ((gauss(1.0) * (1.0 - lambda) + gauss(1.0) * lambda) / 2.0).ln();
        let x = target_values(&columns, 1, 0);
        let got = density.log_density(&x, &mut Vec::new());
        assert!((got - expected).abs() < 1e-12, "{got} vs {expected}");
        // A missing category is one more category, equal only to itself.
        let columns = vec![Coded::Codes(vec![vec![0, MISSING], vec![MISSING]])];
        let density = Density::new(&columns, 0, 2, &targets);
        let shrink = 2f64.powf(-1.0 / 5.0);
        let lambda = shrink.min(0.5);
        let expected = (((1.0 - lambda) + lambda) / 2.0_f64).ln();
        let got = density.log_density(&target_values(&columns, 1, 0), &mut Vec::new());
        assert!((got - expected).abs() < 1e-12, "{got} vs {expected}");
    }
}
