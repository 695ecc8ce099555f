//! The steps of `intruder panel` as library calls: an intruder prepared on a panel, one
//! alteration of the last wave scored before and after, the utility of an alteration.
//!
//! ```
//! use intruder_longitudinal::{AlterMethod, Intruder, Mode, Pool, Scenario};
//! assert_eq!(Scenario::from_arg("2", 3).unwrap().keys.len(), 5);
//! assert!(Scenario::from_arg("3", 2).unwrap_err().contains("column@wave"));
//! assert_eq!(AlterMethod::Mix.swap_share(None), Ok(0.5));
//! assert!(AlterMethod::Swap.swap_share(Some(0.5)).is_err());
//! let i = Intruder::new(Scenario::mitra1(), Mode::Link, Pool::Split, 0.05);
//! assert_eq!(i.scenario.name, "links"); // following the link needs no keys
//! ```

use serde::{Deserialize, Serialize};

use crate::attack::{AttackReport, KnownKey, Mode, Pool, PreparedAttack, Scenario};
use crate::design::Transform;
use crate::error::PanelError;
use crate::panel::Panel;
use crate::protect::{Donors, Models, PartnerScore, ProtectParams, Protected, Selection, protect};

impl Scenario {
    /// Reads a scenario as written by people: `1` or `2` (Mitra's scenarios on the
    /// `household-panel` names, for a panel of `t` waves) or `column@wave,...`.
    pub fn from_arg(s: &str, t: usize) -> Result<Scenario, String> {
        match s.trim() {
            "1" => Ok(Scenario::mitra1()),
            "2" => Ok(Scenario::mitra2(t)),
            keys => Scenario::parse(keys, keys)
                .map_err(|e| format!("{e} (or 1 / 2 for Mitra's scenarios)")),
        }
    }

    /// The scenario of the link attack (no keys: the intruder follows the released link).
    pub fn links() -> Scenario {
        Scenario {
            name: "links".into(),
            keys: vec![],
        }
    }

    /// `name (column@wave, ...)`, or the link attack's description.
    pub fn describe(&self, mode: Mode) -> String {
        match mode {
            Mode::Link => "following the released link".to_string(),
            Mode::Match => format!(
                "{} ({})",
                self.name,
                self.keys
                    .iter()
                    .map(|k| format!("{}@{}", k.column, k.wave))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// An intruder: what they know, how they search the last wave, and the tolerance of attribute
/// disclosure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Intruder {
    /// The keys known (replaced by [`Scenario::links`] in mode link).
    pub scenario: Scenario,
    /// Follow the released link, or match the keys.
    pub mode: Mode,
    /// The records searched when matching.
    pub pool: Pool,
    /// Relative tolerance of eq. 1 (Mitra: 0.05).
    pub tolerance: f64,
}

impl Intruder {
    /// An intruder; in mode link the scenario is [`Scenario::links`].
    pub fn new(scenario: Scenario, mode: Mode, pool: Pool, tolerance: f64) -> Intruder {
        Intruder {
            scenario: match mode {
                Mode::Link => Scenario::links(),
                Mode::Match => scenario,
            },
            mode,
            pool,
            tolerance,
        }
    }

    /// Checks the tolerance (before any data is read).
    pub fn check(&self) -> Result<(), PanelError> {
        check_tolerance(self.tolerance)
    }

    /// Links the intruder's knowledge to the last wave. Errors when the panel has nothing to
    /// attack, when mode link has no released link column, or when a key is not usable.
    pub fn prepare(&self, panel: &Panel) -> Result<PreparedAttack, PanelError> {
        self.check()?;
        if self.mode == Mode::Link && panel.spec().released_link.is_none() {
            return Err(PanelError::Params(vec![format!(
                "mode link: no released link column: {} has no '{}' column in every wave; name the released link column",
                panel.last().table.source(),
                crate::files::DEFAULT_RELEASED_LINK
            )]));
        }
        if panel.targets().is_empty() {
            let s = panel.summary();
            return Err(PanelError::Params(vec![format!(
                "{}: no split record to attack ({} split record(s), {} excluded); check the split indicator (now '{}') and the non-unique policy",
                panel.last().table.source(),
                s.split_records,
                s.excluded,
                panel.spec().split.as_deref().unwrap_or("none")
            )]));
        }
        PreparedAttack::new(panel, &self.scenario, self.mode, self.pool)
    }

    /// The attack on the original last wave.
    pub fn attack(&self, panel: &Panel) -> Result<AttackReport, PanelError> {
        self.prepare(panel)?
            .score(&panel.sensitive_last(), self.tolerance)
    }
}

/// Checks a relative tolerance of attribute disclosure.
pub fn check_tolerance(t: f64) -> Result<(), PanelError> {
    if t.is_finite() && t > 0.0 {
        Ok(())
    } else {
        Err(PanelError::Params(vec![format!(
            "tolerance {t}: expected a positive relative tolerance (Mitra: 0.05)"
        )]))
    }
}

/// How the selected households are altered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AlterMethod {
    /// Propensity-score swapping (§4.1).
    Swap,
    /// CART synthesis (§4.2).
    Synthesis,
    /// A random share swapped, the rest synthesised (§5.1, Fig. 6).
    Mix,
}

impl AlterMethod {
    /// The name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            AlterMethod::Swap => "swap",
            AlterMethod::Synthesis => "synthesis",
            AlterMethod::Mix => "mix",
        }
    }

    /// The share of the altered households swapped: 1 for swap, 0 for synthesis, `given` (0.5
    /// when absent) for mix; a share given to swap or synthesis is an error.
    pub fn swap_share(self, given: Option<f64>) -> Result<f64, String> {
        match (self, given) {
            (AlterMethod::Swap, None) => Ok(1.0),
            (AlterMethod::Synthesis, None) => Ok(0.0),
            (AlterMethod::Mix, s) => Ok(s.unwrap_or(0.5)),
            (m, Some(_)) => Err(format!(
                "swap_share is for method mix; method {} alters by {} only",
                m.as_str(),
                if m == AlterMethod::Swap {
                    "swapping"
                } else {
                    "synthesis"
                }
            )),
        }
    }
}

/// An alteration as asked for; [`AlterationSpec::params`] checks it into [`ProtectParams`].
#[derive(Debug, Clone, PartialEq)]
pub struct AlterationSpec {
    /// Swap, synthesis or mix.
    pub method: AlterMethod,
    /// Share of the split households altered; `None` = all (Table 1).
    pub rho: Option<f64>,
    /// Targeted (ascending `r_i`) or random.
    pub selection: Selection,
    /// Share swapped, for mix (default 0.5).
    pub swap_share: Option<f64>,
    /// Minimum leaf size of the synthesis tree.
    pub min_leaf: usize,
    /// Seed of every random step.
    pub seed: u64,
    /// Covariates of the models; `None`: Mitra's scenario-2 keys.
    pub covariates: Option<Vec<KnownKey>>,
    /// Score swap partners are matched on when a proportion is altered.
    pub partner_score: PartnerScore,
}

impl AlterationSpec {
    /// The protection parameters for a panel of `t` waves, every problem at once.
    pub fn params(&self, t: usize) -> Result<ProtectParams, PanelError> {
        let swap_share = self
            .method
            .swap_share(self.swap_share)
            .map_err(|e| PanelError::Params(vec![e]))?;
        let params = ProtectParams {
            rho: self.rho,
            selection: self.selection,
            swap_share,
            covariates: self
                .covariates
                .clone()
                .unwrap_or_else(|| Scenario::mitra2(t).keys),
            transform: Transform::Asinh,
            min_leaf: self.min_leaf,
            // `intruder panel protect` draws from the whole leaf (Reiter 2005); the study's
            // `donors` option is not exposed there.
            donors: Donors::Leaf,
            partner_score: self.partner_score,
            seed: self.seed,
        };
        params.check()?;
        Ok(params)
    }
}

/// One alteration of the last wave with the intruder scored before and after.
#[derive(Debug, Clone)]
pub struct Alteration {
    /// The method.
    pub method: AlterMethod,
    /// The checked parameters.
    pub params: ProtectParams,
    /// The intruder whose `r_i` drove targeted selection.
    pub intruder: Intruder,
    /// What was done.
    pub protected: Protected,
    /// The intruder on the original last wave.
    pub before: AttackReport,
    /// The intruder on the altered last wave.
    pub after: AttackReport,
}

/// Alters the last wave: the intruder is scored on the original (its `r_i` drive targeted
/// selection), the models `params` needs are fitted, the split households altered, and the
/// intruder scored again.
pub fn alter(
    panel: &Panel,
    intruder: &Intruder,
    method: AlterMethod,
    params: ProtectParams,
) -> Result<Alteration, PanelError> {
    let attack = intruder.prepare(panel)?;
    let before = attack.score(&panel.sensitive_last(), intruder.tolerance)?;
    let r: Vec<Option<f64>> = before.records.iter().map(|t| t.r).collect();
    let swaps = params.swap_share > 0.0;
    let need_split = swaps && (params.rho.is_none() || params.partner_score == PartnerScore::Split);
    let need_tree = params.swap_share < 1.0;
    let models = Models::fit(panel, &params, need_split, need_tree)?;
    let protected = protect(panel, &models, &r, &params)?;
    let after = attack.score(&protected.y, intruder.tolerance)?;
    Ok(Alteration {
        method,
        params,
        intruder: intruder.clone(),
        protected,
        before,
        after,
    })
}

/// The most seeds a study runs (each is a whole protection and attack run).
pub const MAX_SEEDS: usize = 100_000;

/// Parses `A..B` (inclusive) or a comma-separated list of seeds.
pub fn parse_seeds(s: &str) -> Result<Vec<u64>, String> {
    let bad = || format!("'{s}': expected A..B (inclusive, e.g. 1..5) or a list 1,2,3");
    let seeds: Vec<u64> = if let Some((a, b)) = s.split_once("..") {
        let a: u64 = a.trim().parse().map_err(|_| bad())?;
        let b: u64 = b
            .trim()
            .trim_start_matches('=')
            .parse()
            .map_err(|_| bad())?;
        if b < a {
            return Err(bad());
        }
        if b - a >= MAX_SEEDS as u64 {
            return Err(format!(
                "'{s}': {} seeds requested; at most {MAX_SEEDS} are supported (each seed is a whole protection and attack run)",
                (b - a).saturating_add(1)
            ));
        }
        (a..=b).collect()
    } else {
        s.split(',')
            .map(|x| x.trim().parse::<u64>().map_err(|_| bad()))
            .collect::<Result<_, _>>()?
    };
    if seeds.is_empty() {
        return Err(bad());
    }
    if seeds.len() > MAX_SEEDS {
        return Err(format!(
            "{} seeds given; at most {MAX_SEEDS} are supported",
            seeds.len()
        ));
    }
    Ok(seeds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_ranges_and_lists() {
        assert_eq!(parse_seeds("1..5").unwrap(), vec![1, 2, 3, 4, 5]);
        assert_eq!(parse_seeds("1..=3").unwrap(), vec![1, 2, 3]);
        assert_eq!(parse_seeds("4, 9").unwrap(), vec![4, 9]);
        assert!(parse_seeds("5..2").is_err());
        assert!(parse_seeds("a").is_err());
        assert!(parse_seeds("").is_err());
    }

    #[test]
    fn alteration_spec_defaults_and_checks() {
        let spec = AlterationSpec {
            method: AlterMethod::Synthesis,
            rho: Some(0.2),
            selection: Selection::Random,
            swap_share: None,
            min_leaf: 5,
            seed: 3,
            covariates: None,
            partner_score: PartnerScore::Selection,
        };
        let p = spec.params(3).unwrap();
        assert_eq!(p.swap_share, 0.0);
        assert_eq!(p.covariates, Scenario::mitra2(3).keys);
        let bad = AlterationSpec {
            rho: Some(0.7),
            swap_share: Some(0.5),
            ..spec.clone()
        };
        let e = bad.params(2).unwrap_err().to_string();
        assert!(e.contains("swap_share is for method mix"), "{e}");
        let bad = AlterationSpec {
            rho: Some(0.7),
            ..spec
        };
        let e = bad.params(2).unwrap_err().to_string();
        assert!(e.contains("rho = 0.7"), "{e}");
    }
}
