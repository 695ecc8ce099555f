//! Altering `y^(T)` of split households (Mitra et al. §4): propensity-score swapping (§4.1),
//! CART synthesis (§4.2) and mixtures of the two (§5.1, Fig. 6).
//!
//! - **All split households** (`rho = None`, Table 1): every target is altered; swap partners
//!   come from the non-split households present in all waves, matched on the propensity of
//!   being split (`z_i`, eq. 2).
//! - **A proportion `rho`** (Figs. 4–6): `round(rho · n₁)` targets are selected, by ascending
//!   `r_i` (eq. 3; targets without matches last, ties by row) or at random; swap partners are the
//!   *unselected* split households, matched on a propensity score: by default that of being
//!   selected (`Z*_i`, a logistic model within the split group, as the paper describes), or the
//!   split propensity `e_i` ([`PartnerScore::Split`]). At most half the group can be selected.
//! - Each selected household, in selection order, takes the `y^(T)` of its nearest-propensity
//!   partner (without replacement) and the partner takes its value: the multiset of `y^(T)` is
//!   unchanged.
//! - Synthesised households get a draw from the observed `y^(T)` of their leaf of a regression
//!   tree of `y^(T)` on the covariates and `y^(1..T−1)`, fitted on every household in all waves
//!   (the household's own value among the donors, as Reiter 2005, or not: [`Donors`]).
//! - Mixtures: of the selected, `round(swap_share · k)` drawn at random are swapped, the rest
//!   synthesised.

use std::collections::HashMap;

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::attack::KnownKey;
use crate::cart::LeafTree;
use crate::design::{Transform, design};
use crate::error::PanelError;
use crate::panel::Panel;
use crate::propensity::{nearest_partners, propensity};

/// How the households to alter are chosen when only a proportion is altered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Selection {
    /// Ascending `r_i` (riskiest first).
    Targeted,
    /// Uniformly at random (seeded).
    Random,
}

impl Selection {
    /// The name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Selection::Targeted => "targeted",
            Selection::Random => "random",
        }
    }
}

/// Which of its leaf's households a synthesised household's value is drawn from.
///
/// Reiter (2005), whose code Mitra et al. used, draws from the observed values of the
/// household's leaf, the household's own value among them: the tree is grown on the original
/// data and every leaf member is a donor ([`Donors::Leaf`], the default). With small leaves
/// the own value is drawn often (1 in 5 for a leaf of 5) and is then disclosive by
/// construction; [`Donors::LeafWithoutSelf`] leaves it out (a leaf of one keeps its value).
/// [`Donors::LeafBootstrap`] draws from a Bayesian bootstrap of the leaf (Rubin 1981; Reiter
/// 2005's smoothing of the leaf's empirical distribution): one Dirichlet(1, …, 1) weight per
/// member, drawn once per leaf and protection, then each household's donor by those weights.
/// Each draw is still the own value with probability 1/m on average: what changes is how the
/// draws of one leaf are spread, not their expected disclosure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Donors {
    /// Every household of the leaf, itself included (Reiter 2005).
    #[default]
    Leaf,
    /// The other households of the leaf.
    LeafWithoutSelf,
    /// Every household of the leaf, weighted by a Bayesian bootstrap of the leaf.
    LeafBootstrap,
}

impl Donors {
    /// The name in reports and experiment files.
    pub fn as_str(self) -> &'static str {
        match self {
            Donors::Leaf => "leaf",
            Donors::LeafWithoutSelf => "leaf-without-self",
            Donors::LeafBootstrap => "leaf-bootstrap",
        }
    }
}

/// The score swap partners are matched on within the split group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PartnerScore {
    /// Propensity of being selected (`Z*`) within the split group.
    #[default]
    Selection,
    /// Propensity of being split (`z`) over all households.
    Split,
}

/// Parameters of [`protect`], checked by [`ProtectParams::check`] before any work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProtectParams {
    /// Share of the split households altered; `None` = all (Table 1).
    pub rho: Option<f64>,
    /// Targeted or random selection (ignored when all are altered).
    pub selection: Selection,
    /// Share of the altered households swapped (1 = swapping only, 0 = synthesis only).
    pub swap_share: f64,
    /// Covariates `x` of both models (the sensitive values of every wave are added).
    pub covariates: Vec<KnownKey>,
    /// Transform of `y` in the propensity model.
    #[serde(default)]
    pub transform: Transform,
    /// Minimum leaf size of the tree (Reiter 2005 / synthpop: 5).
    pub min_leaf: usize,
    /// Donor pool of a synthesised value.
    #[serde(default)]
    pub donors: Donors,
    /// Partner score when a proportion is altered.
    #[serde(default)]
    pub partner_score: PartnerScore,
    /// Seed of every random step.
    pub seed: u64,
}

impl ProtectParams {
    /// Swapping only, of all split households, with Mitra scenario-2 covariates for `t` waves.
    pub fn new(covariates: Vec<KnownKey>, seed: u64) -> Self {
        ProtectParams {
            rho: None,
            selection: Selection::Targeted,
            swap_share: 1.0,
            covariates,
            transform: Transform::Asinh,
            min_leaf: 5,
            donors: Donors::Leaf,
            partner_score: PartnerScore::Selection,
            seed,
        }
    }

    /// Every problem at once.
    pub fn check(&self) -> Result<(), PanelError> {
        let mut p = Vec::new();
        if let Some(r) = self.rho
            && !(r > 0.0 && r <= 0.5)
        {
            p.push(format!(
                "rho = {r}: expected 0 < rho ≤ 0.5 (partners come from the unselected split households; use all for every split household)"
            ));
        }
        if !(0.0..=1.0).contains(&self.swap_share) {
            p.push(format!(
                "swap_share = {}: expected a share in [0, 1]",
                self.swap_share
            ));
        }
        if self.min_leaf == 0 {
            p.push("min_leaf = 0: expected at least 1".into());
        }
        if p.is_empty() {
            Ok(())
        } else {
            Err(PanelError::Params(p))
        }
    }
}

/// The result of [`protect`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Protected {
    /// The released `y^(T)`, aligned on wave-`T` rows.
    #[serde(skip)]
    pub y: Vec<f64>,
    /// Wave-`T` rows selected for alteration, in selection order.
    pub selected: Vec<usize>,
    /// `(selected row, partner row)` exchanges.
    pub swaps: Vec<(usize, usize)>,
    /// `(selected row, row whose value was drawn)` synthesis draws.
    pub draws: Vec<(usize, usize)>,
    /// Leaves of the tree (0 without synthesis).
    pub leaves: usize,
}

/// Fitted models reused across runs of the same panel (the split propensity and the tree do
/// not depend on the seed of a run).
#[derive(Debug, Clone)]
pub struct Models {
    population: Vec<usize>,
    split_score: Option<Vec<f64>>,
    tree: Option<LeafTree>,
    pos: Vec<Option<usize>>,
}

impl Models {
    /// Fits what `params` needs: the split propensity (swapping all) and the tree (synthesis).
    pub fn fit(
        panel: &Panel,
        params: &ProtectParams,
        need_split_score: bool,
        need_tree: bool,
    ) -> Result<Models, PanelError> {
        params.check()?;
        let population = panel.in_all_waves();
        let n = panel.last().table.nrows();
        let mut pos = vec![None; n];
        for (k, &i) in population.iter().enumerate() {
            pos[i] = Some(k);
        }
        let all_waves: Vec<usize> = (1..=panel.t()).collect();
        let split_score = if need_split_score {
            let (_, cols) = design(
                panel,
                &population,
                &params.covariates,
                &all_waves,
                params.transform,
            )?;
            let z: Vec<bool> = population.iter().map(|&i| panel.is_split(i)).collect();
            let e = propensity(&cols, &z)?;
            let mut full = vec![f64::NAN; n];
            for (k, &i) in population.iter().enumerate() {
                full[i] = e[k];
            }
            Some(full)
        } else {
            None
        };
        let tree = if need_tree {
            let earlier: Vec<usize> = (1..panel.t()).collect();
            let (_, cols) = design(
                panel,
                &population,
                &params.covariates,
                &earlier,
                Transform::Identity,
            )?;
            let y = panel.sensitive_last();
            let yv: Vec<f64> = population.iter().map(|&i| y[i]).collect();
            if let Some(k) = yv.iter().position(|v| v.is_nan()) {
                return Err(PanelError::Column {
                    file: panel.last().table.source().to_string(),
                    column: panel.spec().sensitive.clone(),
                    message: format!(
                        "row {}: missing; the tree needs y^(T) of every household",
                        population[k] + 1
                    ),
                });
            }
            Some(LeafTree::fit(&cols, &yv, params.min_leaf, params.seed)?)
        } else {
            None
        };
        Ok(Models {
            population,
            split_score,
            tree,
            pos,
        })
    }

    /// The tree, when fitted.
    pub fn tree(&self) -> Option<&LeafTree> {
        self.tree.as_ref()
    }

    /// Wave-`T` row of training record `k` of the tree.
    pub fn population(&self) -> &[usize] {
        &self.population
    }
}

fn rng(seed: u64, stream: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(stream);
    r
}

/// Targets in ascending `r` (`None` last), ties by row.
pub fn targeted_order(targets: &[usize], r: &[Option<f64>]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..targets.len()).collect();
    idx.sort_by(|&a, &b| {
        let ka = r[a].unwrap_or(f64::INFINITY);
        let kb = r[b].unwrap_or(f64::INFINITY);
        ka.total_cmp(&kb).then(targets[a].cmp(&targets[b]))
    });
    idx.into_iter().map(|k| targets[k]).collect()
}

/// Alters `y^(T)` of split households; `risk[k]` is `r_i` of `panel.targets()[k]` (from
/// [`crate::PreparedAttack::score`] on the original data), used by targeted selection.
pub fn protect(
    panel: &Panel,
    models: &Models,
    risk: &[Option<f64>],
    params: &ProtectParams,
) -> Result<Protected, PanelError> {
    params.check()?;
    let targets = panel.targets();
    if risk.len() != targets.len() {
        return Err(PanelError::Params(vec![format!(
            "{} risk scores for {} targets",
            risk.len(),
            targets.len()
        )]));
    }
    let y0 = panel.sensitive_last();
    let mut y = y0.clone();
    let selected = select(targets, risk, params);
    let (to_swap, to_synth) = swapped_and_synthesised(&selected, params);
    // Swapping.
    let mut swaps = Vec::new();
    if !to_swap.is_empty() {
        let (donors, score) = swap_partners(panel, models, &selected, &y0, params)?;
        swaps = nearest_partners(&to_swap, &donors, &score)?;
        for &(s, d) in &swaps {
            y[s] = y0[d];
            y[d] = y0[s];
        }
    }
    // Synthesis.
    let mut draws = Vec::new();
    let mut leaves = 0;
    if !to_synth.is_empty() {
        let tree = models
            .tree
            .as_ref()
            .ok_or_else(|| PanelError::Model("the synthesis tree was not fitted".into()))?;
        leaves = tree.leaves();
        draws = synthesis_draws(models, tree, &to_synth, params)?;
        for &(s, from) in &draws {
            y[s] = y0[from];
        }
    }
    Ok(Protected {
        y,
        selected,
        swaps,
        draws,
        leaves,
    })
}

/// The wave-`T` rows selected for alteration, in selection order: every target, or the first
/// `round(rho · n₁)`, riskiest first or in a seeded random order.
fn select(targets: &[usize], risk: &[Option<f64>], params: &ProtectParams) -> Vec<usize> {
    let mut order = match params.selection {
        Selection::Targeted => targeted_order(targets, risk),
        Selection::Random => {
            let mut v = targets.to_vec();
            v.shuffle(&mut rng(params.seed, 1));
            v
        }
    };
    if let Some(rho) = params.rho {
        let k = (rho * targets.len() as f64).round() as usize;
        order.truncate(k);
    }
    order
}

/// The selected rows to swap (`round(swap_share · k)` of them, drawn at random unless all or
/// none) and those to synthesise, each in selection order.
fn swapped_and_synthesised(selected: &[usize], params: &ProtectParams) -> (Vec<usize>, Vec<usize>) {
    let k = selected.len();
    let n_swap = (params.swap_share * k as f64).round() as usize;
    let mut is_swap = vec![false; k];
    if n_swap == k {
        is_swap.iter_mut().for_each(|b| *b = true);
    } else if n_swap > 0 {
        let mut idx: Vec<usize> = (0..k).collect();
        idx.shuffle(&mut rng(params.seed, 2));
        for &j in &idx[..n_swap] {
            is_swap[j] = true;
        }
    }
    let to_swap: Vec<usize> = (0..k)
        .filter(|&j| is_swap[j])
        .map(|j| selected[j])
        .collect();
    let to_synth: Vec<usize> = (0..k)
        .filter(|&j| !is_swap[j])
        .map(|j| selected[j])
        .collect();
    (to_swap, to_synth)
}

/// The households swap partners are drawn from and the propensity score they are matched on:
/// the non-split households of every wave on the split propensity when every split household
/// is altered, else the unselected split households on [`ProtectParams::partner_score`].
fn swap_partners(
    panel: &Panel,
    models: &Models,
    selected: &[usize],
    y0: &[f64],
    params: &ProtectParams,
) -> Result<(Vec<usize>, Vec<f64>), PanelError> {
    let targets = panel.targets();
    let n = y0.len();
    let not_fitted = || PanelError::Model("the split propensity model was not fitted".into());
    if params.rho.is_none() {
        let e = models.split_score.as_ref().ok_or_else(not_fitted)?;
        let donors = models
            .population
            .iter()
            .copied()
            .filter(|&i| !panel.is_split(i) && !y0[i].is_nan())
            .collect();
        return Ok((donors, e.clone()));
    }
    let mut chosen = vec![false; n];
    for &s in selected {
        chosen[s] = true;
    }
    let donors: Vec<usize> = targets.iter().copied().filter(|&i| !chosen[i]).collect();
    let score = match params.partner_score {
        PartnerScore::Split => models.split_score.clone().ok_or_else(not_fitted)?,
        PartnerScore::Selection => selection_propensity(panel, &chosen, params)?,
    };
    Ok((donors, score))
}

/// The propensity of being selected (`Z*`) within the split group, on wave-`T` rows (NaN
/// outside the group); `chosen` marks the selected rows.
fn selection_propensity(
    panel: &Panel,
    chosen: &[bool],
    params: &ProtectParams,
) -> Result<Vec<f64>, PanelError> {
    let targets = panel.targets();
    let all_waves: Vec<usize> = (1..=panel.t()).collect();
    let (_, cols) = design(
        panel,
        targets,
        &params.covariates,
        &all_waves,
        params.transform,
    )?;
    let z: Vec<bool> = targets.iter().map(|&i| chosen[i]).collect();
    let e = propensity(&cols, &z)?;
    let mut full = vec![f64::NAN; chosen.len()];
    for (j, &i) in targets.iter().enumerate() {
        full[i] = e[j];
    }
    Ok(full)
}

/// For each row of `to_synth`, in order, the row whose value it draws from its leaf of `tree`
/// (one seeded stream for every draw).
fn synthesis_draws(
    models: &Models,
    tree: &LeafTree,
    to_synth: &[usize],
    params: &ProtectParams,
) -> Result<Vec<(usize, usize)>, PanelError> {
    let mut draws = Vec::with_capacity(to_synth.len());
    let mut r = rng(params.seed, 3);
    // Bayesian-bootstrap weights of a leaf (cumulative), drawn when first needed.
    let mut boot: HashMap<usize, Vec<f64>> = HashMap::new();
    for &s in to_synth {
        let k = models.pos[s].ok_or_else(|| {
            PanelError::Model(format!(
                "wave-T row {} is not in the tree's population",
                s + 1
            ))
        })?;
        let m = tree.members(tree.leaf_of(k));
        let from = match params.donors {
            Donors::LeafWithoutSelf if m.len() > 1 => {
                // Draw among the others: an index in 0..len−1, shifted past k's own.
                let own = m.iter().position(|&x| x == k).ok_or_else(|| {
                    PanelError::Model("a household is missing from its own leaf".into())
                })?;
                let j = r.gen_range(0..m.len() - 1);
                models.population[m[if j >= own { j + 1 } else { j }]]
            }
            Donors::LeafBootstrap => {
                let cum = boot.entry(tree.leaf_of(k)).or_insert_with(|| {
                    // Normalised Exp(1) draws are Dirichlet(1, …, 1).
                    let mut acc = 0.0;
                    m.iter()
                        .map(|_| {
                            acc += -(1.0 - r.r#gen::<f64>()).ln();
                            acc
                        })
                        .collect()
                });
                let total = cum.last().copied().unwrap_or(0.0);
                let u = r.r#gen::<f64>() * total;
                let j = cum.partition_point(|&c| c <= u).min(m.len() - 1);
                models.population[m[j]]
            }
            _ => models.population[m[r.gen_range(0..m.len())]],
        };
        draws.push((s, from));
    }
    Ok(draws)
}
