//! The inter-wave attack (Mitra et al. §3.1; docs/METHODS.md §2.6).
//!
//! The member who left a split household knows `x_i` and `y_i^(1..T−1)`, so identifies the
//! household in wave `T−1`; then either
//! - **follows the released link** ([`Mode::Link`], `intruder_attack::FollowLink`): the
//!   candidates are the wave-`T` records carrying the link (one, or several for a non-unique
//!   link), or
//! - **exact-matches `x_i`** in wave `T` ([`Mode::Match`], `intruder_attack::ExactMatch`) among
//!   the wave-`T` split records (the paper's candidate pool; [`Pool::All`] searches every
//!   wave-`T` record).
//!
//! Both are scored by the shared evaluator of `intruder-attack`: identification (`c_i`,
//! `Σ 1/c_i`, counts with `c_i = 1` and `c_i ≤ 2` with the household inside, and the household
//! among the matches at all) and attribute disclosure (eq. 1: `p_i`, `A = #{p_i ≥ 0.5}` at a
//! tolerance, 5% by default; eq. 3: the targeting score `r_i`). The candidate sets do not depend
//! on the sensitive values, so a [`PreparedAttack`] is linked once and re-scored for every
//! masked version of `y^(T)` ([`PreparedAttack::score`]).

use intruder_attack::{Attack, ExactMatch, FollowLink, KeyMap, Linkage, MissingPolicy};
use intruder_data::{Column, Role, Table};
use intruder_eval::{EvalOptions, Labelled, Sensitive, Truth, TruthIds, evaluate};
use serde::{Deserialize, Serialize};

use crate::error::PanelError;
use crate::panel::Panel;

/// A key the intruder knows: column `column` as recorded in wave `wave` (1-based), matched
/// against the same column of wave `T`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownKey {
    /// The column name (the same in every wave).
    pub column: String,
    /// The wave whose value the intruder knows.
    pub wave: usize,
}

impl std::str::FromStr for KnownKey {
    type Err = String;
    /// `column@wave`, e.g. `area@1`.
    fn from_str(s: &str) -> Result<Self, String> {
        let (c, w) = s
            .trim()
            .rsplit_once('@')
            .ok_or_else(|| format!("key '{s}': expected column@wave, e.g. area@1"))?;
        let wave: usize = w
            .parse()
            .map_err(|_| format!("key '{s}': '{w}' is not a wave number"))?;
        if c.is_empty() || wave == 0 {
            return Err(format!("key '{s}': expected column@wave with wave ≥ 1"));
        }
        Ok(KnownKey {
            column: c.to_string(),
            wave,
        })
    }
}

/// What the intruder knows: a named list of keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scenario {
    /// A name for reports.
    pub name: String,
    /// The keys.
    pub keys: Vec<KnownKey>,
}

impl Scenario {
    /// Parses `area@1,accommodation@1,...`.
    pub fn parse(name: &str, keys: &str) -> Result<Scenario, String> {
        Ok(Scenario {
            name: name.to_string(),
            keys: keys
                .split(',')
                .map(str::parse)
                .collect::<Result<Vec<KnownKey>, String>>()?,
        })
    }

    /// Mitra's scenario 1 on the `household-panel` column names: output area, accommodation
    /// and bedrooms as reported in wave 1.
    pub fn mitra1() -> Scenario {
        Scenario::parse("scenario 1", "area@1,accommodation@1,bedrooms@1").expect("valid")
    }

    /// Mitra's scenario 2 for a panel of `t` waves: scenario 1 plus children and household type
    /// reported in wave `t`.
    pub fn mitra2(t: usize) -> Scenario {
        Scenario::parse(
            "scenario 2",
            &format!("area@1,accommodation@1,bedrooms@1,children@{t},household_type@{t}"),
        )
        .expect("valid")
    }

    /// Checks the keys against the panel: waves in range, no column twice, same type in the
    /// known wave and in wave `T`.
    pub fn check(&self, panel: &Panel) -> Result<(), PanelError> {
        let mut problems = Vec::new();
        if self.keys.is_empty() {
            problems.push(format!("{}: no keys", self.name));
        }
        for (k, key) in self.keys.iter().enumerate() {
            if key.wave == 0 || key.wave > panel.t() {
                problems.push(format!(
                    "{}: key {}@{}: the panel has waves 1..{}",
                    self.name,
                    key.column,
                    key.wave,
                    panel.t()
                ));
            }
            if self.keys[..k].iter().any(|o| o.column == key.column) {
                problems.push(format!(
                    "{}: column '{}' is named twice; a key is matched against the wave-T column of the same name",
                    self.name, key.column
                ));
            }
        }
        if !problems.is_empty() {
            return Err(PanelError::Params(problems));
        }
        for key in &self.keys {
            panel.check_same_type(key.wave, &key.column)?;
        }
        Ok(())
    }
}

/// How the intruder finds the household in wave `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Follow the released link ("links released").
    Link,
    /// Exact-match the known keys ("links removed").
    Match,
}

impl Mode {
    /// The name in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Link => "link",
            Mode::Match => "match",
        }
    }
}

/// Which wave-`T` records the intruder searches when matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pool {
    /// The split records (Mitra: the split indicator is released).
    #[default]
    Split,
    /// Every wave-`T` record.
    All,
}

const TARGET: &str = "__target_row";
const RECORD: &str = "__record_row";
const TRUE_Y: &str = "__true_y";

/// An attack linked once, scored for any version of `y^(T)`; built by [`PreparedAttack::new`].
#[derive(Debug, Clone)]
pub struct PreparedAttack {
    scenario: String,
    mode: Mode,
    sensitive: String,
    targets: Vec<usize>,
    pool: Vec<usize>,
    intruder: Labelled,
    released: Labelled,
    linkage: Linkage,
}

/// One intruder target's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TargetResult {
    /// Wave-`T` row (0-based).
    pub row: usize,
    /// `c_i`.
    pub c: usize,
    /// Whether the true household is among the `c_i` matches.
    pub found: bool,
    /// `p_i` (eq. 1).
    pub p: f64,
    /// `r_i` (eq. 3; `None` without candidates).
    pub r: Option<f64>,
}

/// The figures of one attack on one version of the data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttackReport {
    /// Scenario name.
    pub scenario: String,
    /// `link` or `match`.
    pub mode: String,
    /// Split records attacked.
    pub targets: usize,
    /// Records searched in wave `T`.
    pub pool: usize,
    /// Targets with `c_i > 0`.
    pub with_candidates: usize,
    /// Targets whose true household is among the matches ("potential to be correctly
    /// identified"; Mitra: 1,282).
    pub found: usize,
    /// `c_i = 1` with the household inside (Mitra: 56 / 563).
    pub unique_correct: usize,
    /// `c_i ≤ 2` with the household inside (Mitra: 121 / 871).
    pub le2_correct: usize,
    /// `Σ 1/c_i` over targets whose household is among the matches.
    pub expected_correct: f64,
    /// The tolerance of eq. 1.
    pub tolerance: f64,
    /// `A = #{i : p_i ≥ 0.5}` (Mitra: 130 / 897; 1,486 with links, before masking).
    #[serde(rename = "A")]
    pub attribute_a: usize,
    /// Mean `p_i`.
    pub mean_p: f64,
    /// Per target (not serialised).
    #[serde(skip)]
    pub records: Vec<TargetResult>,
}

fn row_ids(name: &str, rows: &[usize]) -> Column {
    let v: Vec<Option<String>> = rows.iter().map(|r| Some(r.to_string())).collect();
    Column::string(name, Role::Truth, &v)
}

impl PreparedAttack {
    /// Builds the intruder's file (one row per target: its known keys, or its wave-`T−1`
    /// released link) and the released pool of wave `T`, and links them.
    pub fn new(
        panel: &Panel,
        scenario: &Scenario,
        mode: Mode,
        pool: Pool,
    ) -> Result<PreparedAttack, PanelError> {
        let t = panel.t();
        let last = panel.last();
        let n = last.table.nrows();
        let targets = panel.targets().to_vec();
        let pool_rows: Vec<usize> = match pool {
            Pool::Split => (0..n).filter(|&i| panel.is_split(i)).collect(),
            Pool::All => (0..n).collect(),
        };
        let sensitive = panel.spec().sensitive.clone();
        let (icols, rcols, keys) = match mode {
            Mode::Link => {
                let link = panel.spec().released_link.clone().ok_or_else(|| {
                    PanelError::Params(vec![
                        "mode 'link' needs the released link column (links are withheld)".into(),
                    ])
                })?;
                panel.check_same_type(t - 1, &link)?;
                let mut ic = panel.aligned_column(t - 1, &link, &targets)?;
                ic.rename(link.clone());
                let rc = panel.aligned_column(t, &link, &pool_rows)?;
                if ic.role() == Role::Truth {
                    return Err(PanelError::Params(vec![format!(
                        "the released link '{link}' is a truth column; a released link must be in the released file"
                    )]));
                }
                (vec![ic], vec![rc], KeyMap::same(&[link])?)
            }
            Mode::Match => {
                scenario.check(panel)?;
                let mut ic = Vec::new();
                let mut rc = Vec::new();
                for k in &scenario.keys {
                    let mut a = panel.aligned_column(k.wave, &k.column, &targets)?;
                    let mut b = panel.aligned_column(t, &k.column, &pool_rows)?;
                    if a.role() == Role::Truth || b.role() == Role::Truth {
                        return Err(PanelError::Params(vec![format!(
                            "key '{}' is a truth column; keys must be released",
                            k.column
                        )]));
                    }
                    a.rename(k.column.clone());
                    b.rename(k.column.clone());
                    ic.push(a);
                    rc.push(b);
                }
                let names: Vec<&str> = scenario.keys.iter().map(|k| k.column.as_str()).collect();
                (ic, rc, KeyMap::same(&names)?)
            }
        };
        // labelled after the last wave's file: `wave3.csv` → `wave3.intruder-knowledge`
        let label = std::path::Path::new(last.table.source().as_str());
        let intruder = Table::new(label.with_extension("intruder-knowledge"), icols)?;
        let y = panel.sensitive_last();
        let true_y: Vec<Option<f64>> = targets.iter().map(|&i| Some(y[i])).collect();
        let intruder_truth = Truth::new(vec![
            row_ids(TARGET, &targets),
            Column::float(TRUE_Y, Role::Truth, &true_y),
        ]);
        let mut rcols = rcols;
        let pool_y: Vec<Option<f64>> = pool_rows
            .iter()
            .map(|&i| (!y[i].is_nan()).then_some(y[i]))
            .collect();
        rcols.push(Column::float(sensitive.clone(), Role::Sensitive, &pool_y));
        let released = Table::new(last.table.source(), rcols)?;
        let released_truth = Truth::new(vec![row_ids(RECORD, &pool_rows)]);
        let intruder = Labelled::new(intruder, intruder_truth)?;
        let released = Labelled::new(released, released_truth)?;
        let knowledge = intruder.knowledge(keys)?;
        let released_table = released.table();
        let linkage = match mode {
            Mode::Link => FollowLink.link(&knowledge, released_table, 0)?.linkage,
            Mode::Match => {
                ExactMatch::new(MissingPolicy::Listwise)
                    .link(&knowledge, released_table, 0)?
                    .linkage
            }
        };
        Ok(PreparedAttack {
            scenario: scenario.name.clone(),
            mode,
            sensitive,
            targets,
            pool: pool_rows,
            intruder,
            released,
            linkage,
        })
    }

    /// The linkage (candidate sets over the pool's rows).
    pub fn linkage(&self) -> &Linkage {
        &self.linkage
    }

    /// Wave-`T` rows of the pool, in the released table's order.
    pub fn pool(&self) -> &[usize] {
        &self.pool
    }

    /// Scores the attack when wave `T` is released with sensitive values `released_y` (aligned
    /// on wave-`T` rows, `NaN` = missing); the true values are the panel's original ones.
    pub fn score(&self, released_y: &[f64], tolerance: f64) -> Result<AttackReport, PanelError> {
        if !(tolerance.is_finite() && tolerance > 0.0) {
            return Err(PanelError::Params(vec![format!(
                "tolerance {tolerance}: expected a positive number (Mitra: 0.05)"
            )]));
        }
        let v: Vec<Option<f64>> = self
            .pool
            .iter()
            .map(|&i| released_y.get(i).copied().filter(|x| !x.is_nan()))
            .collect();
        let released = self.released.clone().map_cells(|t| {
            let mut t = t.clone();
            t.replace(Column::float(self.sensitive.clone(), Role::Sensitive, &v))?;
            Ok(t)
        })?;
        let opts = EvalOptions {
            truth: Some(TruthIds {
                intruder: TARGET.into(),
                released: RECORD.into(),
            }),
            sensitive: Some(Sensitive {
                released: self.sensitive.clone(),
                truth: TRUE_Y.into(),
                tolerance,
            }),
            threshold: None,
            seed: 0,
        };
        let ev = evaluate(&self.linkage, &self.intruder, &released, &opts)?;
        // The evaluator warns of intruder records sharing a truth id; here each target is a
        // wave-T row of its own (its truth id), so there is nothing to pass on.
        debug_assert!(ev.warnings.is_empty(), "{:?}", ev.warnings);
        let records: Vec<TargetResult> = ev
            .records
            .iter()
            .map(|r| TargetResult {
                row: self.targets[r.intruder_row],
                c: r.best_ties,
                found: r.twin_rank == Some(1),
                p: r.p.unwrap_or(0.0),
                r: r.r,
            })
            .collect();
        Ok(AttackReport {
            scenario: self.scenario.clone(),
            mode: self.mode.as_str().into(),
            targets: self.targets.len(),
            pool: self.pool.len(),
            with_candidates: ev.with_candidates,
            found: ev.in_candidates,
            unique_correct: ev.unique_correct,
            le2_correct: ev.le2_correct,
            expected_correct: ev.expected_correct,
            tolerance,
            attribute_a: ev.attribute_a.unwrap_or(0),
            mean_p: ev.attribute.as_ref().map_or(0.0, |a| a.mean_p),
            records,
        })
    }
}
