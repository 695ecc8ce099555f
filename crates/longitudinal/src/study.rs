//! The whole Mitra study on one panel: baseline risks, Fig. 4 (swapping a proportion `rho`,
//! targeted vs random), Fig. 5 (synthesis), Fig. 6 (mixtures), Table 1 (every split household
//! altered, with and without links) and the utility comparison (Fig. 7). This is the function an
//! experiment runner calls: [`run_study`] with a [`StudyParams`].
//!
//! Runs are independent and seeded; they are spread over threads with rayon and collected in a
//! fixed order, so the result does not depend on the thread count.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::attack::{AttackReport, KnownKey, Mode, Pool, PreparedAttack, Scenario};
use crate::design::Transform;
use crate::error::PanelError;
use crate::panel::{Panel, PanelSummary};
use crate::protect::{Donors, Models, PartnerScore, ProtectParams, Selection, protect};
use crate::utility::{InheritanceModel, inheritance_overlap};

/// What to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyParams {
    /// Intruder knowledge scenarios.
    pub scenarios: Vec<Scenario>,
    /// Covariates of the propensity and synthesis models.
    pub covariates: Vec<KnownKey>,
    /// Proportions altered (Figs. 4–6; Mitra: 0.05..0.30).
    pub rhos: Vec<f64>,
    /// Swap shares of the mixtures (Fig. 6); empty = no Fig. 6.
    pub shares: Vec<f64>,
    /// Seeds: every figure is repeated for each.
    pub seeds: Vec<u64>,
    /// Tolerance of eq. 1 (Mitra: 0.05).
    pub tolerance: f64,
    /// Minimum leaf size of the tree.
    pub min_leaf: usize,
    /// Donor pool of a synthesised value.
    #[serde(default)]
    pub donors: Donors,
    /// Partner score within the split group.
    #[serde(default)]
    pub partner_score: PartnerScore,
    /// Candidate pool of the matching attack.
    #[serde(default)]
    pub pool: Pool,
    /// The inheritance model (`None`: no utility comparison).
    pub utility: Option<InheritanceModel>,
}

impl StudyParams {
    /// Mitra's study on the `household-panel` column names with `seeds`.
    pub fn mitra(t: usize, seeds: Vec<u64>) -> Self {
        StudyParams {
            scenarios: vec![Scenario::mitra1(), Scenario::mitra2(t)],
            covariates: Scenario::mitra2(t).keys,
            rhos: vec![0.05, 0.10, 0.15, 0.20, 0.25, 0.30],
            shares: vec![0.0, 0.25, 0.5, 0.75, 1.0],
            seeds,
            tolerance: 0.05,
            min_leaf: 5,
            donors: Donors::Leaf,
            partner_score: PartnerScore::Selection,
            pool: Pool::Split,
            utility: Some(InheritanceModel::default()),
        }
    }

    fn check(&self) -> Result<(), PanelError> {
        let mut p = Vec::new();
        if self.seeds.is_empty() {
            p.push("seeds: at least one seed is needed".to_string());
        }
        if self.scenarios.is_empty() {
            p.push("scenarios: at least one scenario is needed".to_string());
        }
        for &r in &self.rhos {
            if !(r > 0.0 && r <= 0.5) {
                p.push(format!("rhos: {r} is not in (0, 0.5]"));
            }
        }
        for &s in &self.shares {
            if !(0.0..=1.0).contains(&s) {
                p.push(format!("shares: {s} is not in [0, 1]"));
            }
        }
        if !(self.tolerance.is_finite() && self.tolerance > 0.0) {
            p.push(format!("tolerance: {} is not positive", self.tolerance));
        }
        if self.min_leaf == 0 {
            p.push("min_leaf: expected at least 1".into());
        }
        if p.is_empty() {
            Ok(())
        } else {
            Err(PanelError::Params(p))
        }
    }
}

/// One altered release scored by one attack.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StudyRow {
    /// `fig4`, `fig5`, `fig6` or `table1`.
    pub figure: String,
    /// Scenario of the attack (`links` for the link mode).
    pub scenario: String,
    /// `link` or `match`.
    pub mode: String,
    /// `swap`, `synth` or `mix`.
    pub method: String,
    /// `targeted` or `random`.
    pub selection: String,
    /// Proportion altered (`None` = all).
    pub rho: Option<f64>,
    /// Share swapped.
    pub swap_share: f64,
    /// Seed.
    pub seed: u64,
    /// Attribute disclosure `A`.
    #[serde(rename = "A")]
    pub attribute_a: usize,
    /// Mean `p_i`.
    pub mean_p: f64,
}

/// Utility of one protection.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StudyUtility {
    /// `swap` or `synth` (all split households altered).
    pub method: String,
    /// Seed.
    pub seed: u64,
    /// The comparison.
    pub overlap: intruder_utility::CiOverlap,
}

/// Everything the study computed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StudyResult {
    /// The panel.
    pub panel: PanelSummary,
    /// Exclusions (as text).
    pub exclusions: Vec<String>,
    /// Attacks on the original data.
    pub baseline: Vec<AttackReport>,
    /// Altered releases.
    pub rows: Vec<StudyRow>,
    /// Utility.
    pub utility: Vec<StudyUtility>,
    /// The parameters.
    pub params: StudyParams,
}

/// One protection of the study: what to alter, how, and which attack scores it.
struct Job {
    figure: &'static str,
    scenario: usize,
    selection: Selection,
    rho: Option<f64>,
    share: f64,
    seed: u64,
}

/// Runs the study.
pub fn run_study(panel: &Panel, params: &StudyParams) -> Result<StudyResult, PanelError> {
    params.check()?;
    let y0 = panel.sensitive_last();
    let (attacks, link) = prepare_attacks(panel, params)?;
    let mut baseline = Vec::new();
    for a in attacks.iter().chain(link.iter()) {
        baseline.push(a.score(&y0, params.tolerance)?);
    }
    let risks: Vec<Vec<Option<f64>>> = baseline[..attacks.len()]
        .iter()
        .map(|b| b.records.iter().map(|r| r.r).collect())
        .collect();
    let base = ProtectParams {
        rho: None,
        selection: Selection::Random,
        swap_share: 1.0,
        covariates: params.covariates.clone(),
        transform: Transform::Asinh,
        min_leaf: params.min_leaf,
        donors: params.donors,
        partner_score: params.partner_score,
        seed: params.seeds[0],
    };
    let models = Models::fit(panel, &base, true, true)?;
    let study = Study {
        panel,
        params,
        attacks: &attacks,
        link: link.as_ref(),
        risks: &risks,
        models: &models,
        base: &base,
    };
    let outcomes: Vec<Result<JobOutcome, PanelError>> = jobs(params, attacks.len())
        .par_iter()
        .map(|job| study.run(job))
        .collect();
    let mut rows = Vec::new();
    let mut utility = Vec::new();
    for o in outcomes {
        let (r, u) = o?;
        rows.extend(r);
        utility.extend(u);
    }
    Ok(StudyResult {
        panel: panel.summary().clone(),
        exclusions: panel.exclusions().iter().map(|e| e.to_string()).collect(),
        baseline,
        rows,
        utility,
        params: params.clone(),
    })
}

/// The matching attack of each scenario, and the link attack when the panel releases links.
fn prepare_attacks(
    panel: &Panel,
    params: &StudyParams,
) -> Result<(Vec<PreparedAttack>, Option<PreparedAttack>), PanelError> {
    let mut attacks = Vec::new();
    for s in &params.scenarios {
        attacks.push(PreparedAttack::new(panel, s, Mode::Match, params.pool)?);
    }
    let link = match &panel.spec().released_link {
        Some(_) => Some(PreparedAttack::new(
            panel,
            &Scenario {
                name: "links".into(),
                keys: vec![],
            },
            Mode::Link,
            params.pool,
        )?),
        None => None,
    };
    Ok((attacks, link))
}

/// Every protection to run, in the order of the result's rows: per seed, per scenario and
/// proportion Figs. 4 and 5 (targeted and random) and Fig. 6 (each share), then Table 1.
fn jobs(params: &StudyParams, scenarios: usize) -> Vec<Job> {
    let mut jobs = Vec::new();
    for &seed in &params.seeds {
        for sc in 0..scenarios {
            for &rho in &params.rhos {
                for sel in [Selection::Targeted, Selection::Random] {
                    jobs.push(Job {
                        figure: "fig4",
                        scenario: sc,
                        selection: sel,
                        rho: Some(rho),
                        share: 1.0,
                        seed,
                    });
                    jobs.push(Job {
                        figure: "fig5",
                        scenario: sc,
                        selection: sel,
                        rho: Some(rho),
                        share: 0.0,
                        seed,
                    });
                }
                for &share in &params.shares {
                    jobs.push(Job {
                        figure: "fig6",
                        scenario: sc,
                        selection: Selection::Targeted,
                        rho: Some(rho),
                        share,
                        seed,
                    });
                }
            }
        }
        for share in [1.0, 0.0] {
            jobs.push(Job {
                figure: "table1",
                scenario: usize::MAX,
                selection: Selection::Random,
                rho: None,
                share,
                seed,
            });
        }
    }
    jobs
}

/// The method of a protection that swaps `share` of the altered households.
fn method(share: f64) -> &'static str {
    if share == 1.0 {
        "swap"
    } else if share == 0.0 {
        "synth"
    } else {
        "mix"
    }
}

/// The rows and the utility comparison (Table 1 only) of one job.
type JobOutcome = (Vec<StudyRow>, Option<StudyUtility>);

/// What every job of a study reads: the panel, the prepared attacks, their baseline risks and
/// the fitted models.
struct Study<'a> {
    panel: &'a Panel,
    params: &'a StudyParams,
    /// The matching attack of each scenario.
    attacks: &'a [PreparedAttack],
    /// The link attack, when the panel releases links.
    link: Option<&'a PreparedAttack>,
    /// `r_i` of each scenario's targets on the original data.
    risks: &'a [Vec<Option<f64>>],
    models: &'a Models,
    /// The protection parameters every job starts from.
    base: &'a ProtectParams,
}

impl Study<'_> {
    /// Protects the panel as `job` says and scores the release: with its scenario's attack, or
    /// (Table 1) with every attack and the utility comparison.
    fn run(&self, job: &Job) -> Result<JobOutcome, PanelError> {
        let (panel, params) = (self.panel, self.params);
        let p = ProtectParams {
            rho: job.rho,
            selection: job.selection,
            swap_share: job.share,
            seed: job.seed,
            ..self.base.clone()
        };
        let no_risk = vec![None; panel.targets().len()];
        let risk = if job.scenario == usize::MAX {
            &no_risk
        } else {
            &self.risks[job.scenario]
        };
        let prot = protect(panel, self.models, risk, &p)?;
        let row = |a: &AttackReport, scenario: &str| StudyRow {
            figure: job.figure.into(),
            scenario: scenario.into(),
            mode: a.mode.clone(),
            method: method(job.share).into(),
            selection: job.selection.as_str().into(),
            rho: job.rho,
            swap_share: job.share,
            seed: job.seed,
            attribute_a: a.attribute_a,
            mean_p: a.mean_p,
        };
        let mut rows = Vec::new();
        if job.scenario == usize::MAX {
            for (s, a) in params.scenarios.iter().zip(self.attacks) {
                rows.push(row(&a.score(&prot.y, params.tolerance)?, &s.name));
            }
            if let Some(l) = self.link {
                rows.push(row(&l.score(&prot.y, params.tolerance)?, "links"));
            }
            let util = match &params.utility {
                Some(m) => Some(StudyUtility {
                    method: method(job.share).into(),
                    seed: job.seed,
                    overlap: inheritance_overlap(panel, &prot.y, m)?,
                }),
                None => None,
            };
            Ok((rows, util))
        } else {
            let a = self.attacks[job.scenario].score(&prot.y, params.tolerance)?;
            rows.push(row(&a, &params.scenarios[job.scenario].name));
            Ok((rows, None))
        }
    }
}

/// Mitra et al. (2020), §3.1 and Table 1: the published figures of the WAS study, shown beside
/// ours.
pub mod published {
    use serde_json::{Value, json};

    /// Split households whose household is among the matches.
    pub const FOUND: usize = 1282;
    /// Scenario 1: c_i = 1, c_i ≤ 2, A.
    pub const S1: (usize, usize, usize) = (56, 121, 130);
    /// Scenario 2: c_i = 1, c_i ≤ 2, A.
    pub const S2: (usize, usize, usize) = (563, 871, 897);
    /// Links released: A.
    pub const LINKS_A: usize = 1486;
    /// Table 1, A after altering every split household: (scenario 1, scenario 2, links).
    pub const TABLE1_SWAP: [usize; 3] = [6, 31, 40];
    /// Table 1 for synthesis.
    pub const TABLE1_SYNTH: [usize; 3] = [4, 55, 56];

    /// Every published figure as JSON.
    pub fn json() -> Value {
        json!({
            "found": FOUND,
            "scenario 1": {"unique_correct": S1.0, "le2_correct": S1.1, "A": S1.2},
            "scenario 2": {"unique_correct": S2.0, "le2_correct": S2.1, "A": S2.2},
            "links": {"A": LINKS_A},
            "table1": {"swap": TABLE1_SWAP, "synth": TABLE1_SYNTH},
        })
    }
}
