//! One call that computes every frequency figure of a file: [`assess`].

use std::time::Instant;

use rayon::prelude::*;
use serde_json::{Value, json};

use intruder_table::keys::{
    CodeSource, ColumnCodes, KeyCodes, Keys, MISSING, PartedCodes, SetCoding,
};
use intruder_table::report::{Figure, RecordValues, Records, Report, Unit};
use intruder_table::{ColumnData, Table, Timings};

use crate::classes::{Classes, DELETED, Encoding, classes_of};
use crate::error::RiskError;
use crate::keys::{
    KeyData, MissingPolicy, SetMatch, check_keys, check_names, check_rows, key_data,
};
use crate::measures::{
    THETA_MIN_COUNT, bender_risk, household_risk, individual_risk, individual_risk_fractional,
    l_diversity, recursive_cl_diversity, skinner_elliot_theta,
};
use crate::sizes::{NoSizes, SizeCounts, histogram, size_counts, size_counts_parts};
use crate::wildcard::{
    IncompletePairs, NMatch, freqcalc_alpha, n_match_histogram_packed, n_match_packed, n_match_rule,
};

/// What to measure. Build with [`RiskParams::new`] and set the public fields.
#[derive(Debug, Clone, PartialEq)]
pub struct RiskParams {
    /// Key variables (quasi-identifiers).
    pub keys: Vec<String>,
    /// Missing-value policy.
    pub missing: MissingPolicy,
    /// Set-valued matching rule.
    pub set_match: SetMatch,
    /// Population size N, for π = n/N, θ and Bender's R.
    pub population_size: Option<f64>,
    /// Sampling-weight column: individual and global risk.
    pub weight: Option<String>,
    /// Sensitive column: ℓ-diversity.
    pub sensitive: Option<String>,
    /// Household (group) column: household risk (needs weights or uses 1/f_k).
    pub group: Option<String>,
    /// Dalenius' uniqueness threshold: records in classes of size ≤ this are "unique".
    pub unique_threshold: u32,
    /// n(U), the number of population uniques, for Bender's R.
    pub population_uniques: Option<f64>,
    /// f_a, the share of the population the intruder knows about, for Bender's R.
    pub intruder_share: f64,
    /// The measured file is the population and a sample of this many records is released
    /// from it: Bender's R with f = sample_size / (records counted) and n(U) = the file's
    /// sample uniques (here population uniques). Excludes `population_size` and
    /// `population_uniques`, which describe the measured file as the sample.
    pub sample_size: Option<f64>,
    /// Compute n_match per record even under listwise or as-value.
    pub with_n_match: bool,
    /// Set-valued keys compared as one whole value under every policy, whatever
    /// [`set_match`](Self::set_match) says: a multi-response answer pattern (languages spoken,
    /// social-media profiles) rather than a set of candidate values. Each must be a key.
    pub whole_sets: Vec<String>,
    /// The k of the k-anonymity counts: records with f_k < k (sdcMicro's "violating
    /// k-anonymity") and with f_k ≤ k.
    pub k_anonymity: u32,
    /// What global risk divides the expected re-identifications by.
    pub global_risk_denominator: GlobalRiskDenominator,
    /// sdcMicro's `max_global_risk`: the global risk the threshold of [`global_threshold`] aims at.
    pub max_global_risk: f64,
    /// sdcMicro's `freqCalc` `alpha` under the wildcard policy: the weight of a wildcard match
    /// with an incomplete record (the rule: `freqcalc_alpha` in `wildcard.rs`). `None`: Mulder's
    /// n_match, every match counts 1.
    pub wildcard_alpha: Option<f64>,
    /// Under the wildcard policy, whether two records that both miss a key may match each
    /// other: [`IncompletePairs::Match`] (Mulder's stated steps, the default) or
    /// [`IncompletePairs::Never`] (the rule his printed Table 2 follows).
    pub incomplete_pairs: IncompletePairs,
    /// Recursive (c, ℓ)-diversity of the sensitive column's classes, when given: (c, ℓ).
    pub recursive_cl: Option<(f64, u32)>,
    /// Make the per-record figures ([`Assessment::records`]). When `false` and nothing else
    /// needs them (listwise or as-value, no weight, group or sensitive column, no set-valued
    /// key, no n_match), the summary comes from the class sizes alone ([`assess_codes`]): the
    /// same figures, with 8 bytes per record instead of the class ids and per-record vectors,
    /// and `records` left empty. Under wildcard without a sensitive column, `false` skips the
    /// listwise classes (only the per-record k needs them) and, without weights or groups, the
    /// per-record risks (the figures come from the histogram of n_match).
    pub per_record: bool,
}

/// What global risk (expected re-identifications per record) divides by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GlobalRiskDenominator {
    /// The records counted: under listwise deletion only the complete ones.
    #[default]
    Counted,
    /// Every record of the file, n_total (sdcMicro's `measure_risk`: `global_risk_ER / nrow`).
    All,
}

impl GlobalRiskDenominator {
    /// The parameter's word.
    pub fn as_str(self) -> &'static str {
        match self {
            GlobalRiskDenominator::Counted => "counted",
            GlobalRiskDenominator::All => "all",
        }
    }
}

impl std::str::FromStr for GlobalRiskDenominator {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "counted" => Ok(GlobalRiskDenominator::Counted),
            "all" => Ok(GlobalRiskDenominator::All),
            _ => Err(format!("expected counted or all, found '{s}'")),
        }
    }
}

/// sdcMicro's risk threshold for a maximal global risk (`measure_threshold`, after µ-Argus 4.1
/// §2.3.4.1): with the risks in decreasing order and `er = max_global_risk · n_obs`, the
/// threshold is the first risk level r (walking down) at which the risks below, plus r for each
/// record above, sum to less than `er`; the highest risk when the whole file is already under
/// `er`. `None` where sdcMicro returns `NA`: when the file is already safe (no record need
/// change) or no level qualifies while the last risk is the one held. `n_obs` is the
/// denominator (records not counted carry no risk).
pub fn global_threshold(risks: &[f64], max_global_risk: f64, n_obs: usize) -> Option<f64> {
    threshold_of_levels(&levels_of(risks), max_global_risk, n_obs)
}

/// The distinct risks of `risks` in decreasing order, each with the number of records at it.
fn levels_of(risks: &[f64]) -> Vec<(f64, usize)> {
    let mut r: Vec<f64> = risks.to_vec();
    // A total order, so the sorted sequence (and every sum below) is the same on any thread count.
    r.par_sort_unstable_by(|a, b| b.total_cmp(a));
    let mut levels: Vec<(f64, usize)> = Vec::new();
    for x in r {
        match levels.last_mut() {
            Some((v, c)) if *v == x => *c += 1,
            _ => levels.push((x, 1)),
        }
    }
    levels
}

/// [`global_threshold`] over the distinct risk levels, in decreasing order, each with the
/// number of records at it (records at one level are summed as `level × count`).
fn threshold_of_levels(levels: &[(f64, usize)], max_global_risk: f64, n_obs: usize) -> Option<f64> {
    let er = max_global_risk * n_obs as f64;
    let mut sum_risk: f64 = levels.iter().map(|&(x, c)| x * c as f64).sum();
    let mut current = levels.first()?.0;
    let mut threshold = 0.0;
    if sum_risk < er {
        threshold = current;
    } else {
        let mut above = 0usize;
        for &(x, c) in levels {
            if x != current {
                if sum_risk + x * (above as f64) < er {
                    threshold = x;
                    break;
                }
                current = x;
            }
            above += c;
            sum_risk -= x * c as f64;
        }
    }
    // sdcMicro: NA when the unsafe level equals the threshold.
    (current != threshold).then_some(threshold)
}

/// The individual risk of each class (listwise or as-value: every record of a class has its
/// class's), and the weighted class sizes F_k when weights are given.
struct ClassRisks {
    risk: Vec<f64>,
    big: Option<Vec<f64>>,
}

impl ClassRisks {
    /// Risks of `classes`: Benedetti–Franconi's on F_k with `weights`, 1/f_k without.
    fn of(classes: &Classes, weights: Option<&[f64]>) -> ClassRisks {
        let big = weights.map(|w| classes.weighted_sizes(w));
        let risk = match &big {
            Some(b) => classes
                .sizes
                .par_iter()
                .zip(b)
                .map(|(&f, &bf)| individual_risk(f, bf))
                .collect(),
            None => classes.sizes.par_iter().map(|&f| 1.0 / f as f64).collect(),
        };
        ClassRisks { risk, big }
    }

    /// The weighted figures, equal to those of the per-record risks: the sum is taken over
    /// the records in file order, and the threshold's levels are the distinct risks with the
    /// records at each.
    fn summary(&self, classes: &Classes, params: &RiskParams, weighted: bool) -> WeightSummary {
        let (n_total, counted) = (
            classes.class_of.len(),
            classes.class_of.len() - classes.n_deleted,
        );
        let risk = &self.risk;
        let sum: f64 = classes
            .class_of
            .iter()
            .filter(|&&c| c != DELETED)
            .map(|&c| risk[c as usize])
            .sum();
        // The records at each distinct risk (classes often share one: every unique with the
        // same weight), counted by hash before the distinct risks are sorted.
        type Counts = std::collections::HashMap<u64, usize, foldhash::fast::FixedState>;
        let counts: Counts = risk
            .par_iter()
            .zip(&classes.sizes)
            .fold(Counts::default, |mut m, (&r, &f)| {
                *m.entry(r.to_bits()).or_default() += f as usize;
                m
            })
            .reduce(Counts::default, |a, b| {
                let (mut a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
                for (r, c) in b {
                    *a.entry(r).or_default() += c;
                }
                a
            });
        let mut levels: Vec<(f64, usize)> = counts
            .into_iter()
            .map(|(r, c)| (f64::from_bits(r), c))
            .collect();
        // A total order, so the levels are the same on any thread count; risks equal as
        // numbers (0 and −0) are one level, as in [`global_threshold`].
        levels.par_sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        levels.dedup_by(|next, kept| {
            let same = next.0 == kept.0;
            if same {
                kept.1 += next.1;
            }
            same
        });
        risk_levels_summary(&levels, sum, counted, n_total, params, weighted)
    }
}

impl RiskParams {
    /// Defaults: listwise, overlap, threshold 1, f_a = 1.
    pub fn new(keys: Vec<String>) -> Self {
        RiskParams {
            keys,
            missing: MissingPolicy::Listwise,
            set_match: SetMatch::Overlap,
            population_size: None,
            weight: None,
            sensitive: None,
            group: None,
            unique_threshold: 1,
            population_uniques: None,
            intruder_share: 1.0,
            sample_size: None,
            with_n_match: false,
            whole_sets: Vec::new(),
            k_anonymity: 5,
            global_risk_denominator: GlobalRiskDenominator::Counted,
            max_global_risk: 0.01,
            wildcard_alpha: None,
            incomplete_pairs: IncompletePairs::Match,
            recursive_cl: None,
            per_record: true,
        }
    }

    /// Checks the parameters that do not depend on the data.
    pub fn check(&self) -> Result<(), RiskError> {
        let mut problems = Vec::new();
        if self.keys.is_empty() {
            problems.push("no key variables given".to_string());
        }
        if let Some(n) = self.population_size
            && !(n.is_finite() && n > 0.0)
        {
            problems.push(format!(
                "population size must be a positive number, found {n}"
            ));
        }
        if self.k_anonymity == 0 {
            problems.push("the k of k-anonymity must be at least 1".into());
        }
        if !(self.max_global_risk > 0.0 && self.max_global_risk < 1.0) {
            problems.push(format!(
                "max_global_risk must lie strictly between 0 and 1, found {}",
                self.max_global_risk
            ));
        }
        if let Some(a) = self.wildcard_alpha {
            if !(0.0..=1.0).contains(&a) {
                problems.push(format!("alpha must lie in [0, 1], found {a}"));
            }
            if self.missing != MissingPolicy::Wildcard {
                problems.push(
                    "alpha weighs wildcard matches: it needs the wildcard missing policy".into(),
                );
            }
        }
        if self.incomplete_pairs == IncompletePairs::Never {
            if self.missing != MissingPolicy::Wildcard {
                problems.push(
                    "incomplete_pairs = never says which wildcard matches count: it needs the wildcard missing policy".into(),
                );
            }
            if self.wildcard_alpha.is_some() {
                problems.push(
                    "incomplete_pairs = never and alpha are two rules for matches between incomplete records: give one".into(),
                );
            }
        }
        if self.unique_threshold == 0 {
            problems.push("the uniqueness threshold must be at least 1".into());
        }
        if let Some(u) = self.population_uniques
            && !(u.is_finite() && u >= 0.0)
        {
            problems.push(format!(
                "the number of population uniques must be ≥ 0, found {u}"
            ));
        }
        if !(0.0..=1.0).contains(&self.intruder_share) {
            problems.push(format!(
                "the intruder's share f_a must lie in [0, 1], found {}",
                self.intruder_share
            ));
        }
        if let (Some(u), Some(n)) = (self.population_uniques, self.population_size)
            && u > n
        {
            problems.push(format!(
                "population_uniques: {u} population uniques cannot exceed the population size {n}"
            ));
        }
        if let Some(m) = self.sample_size {
            if !(m.is_finite() && m > 0.0) {
                problems.push(format!("sample_size must be a positive number, found {m}"));
            }
            if self.population_size.is_some() || self.population_uniques.is_some() {
                problems.push(
                    "sample_size takes the measured file as the population (N = its records, \
                     n(U) = its uniques): it cannot be combined with population_size or \
                     population_uniques"
                        .into(),
                );
            }
        }
        if self.population_uniques.is_some() && self.population_size.is_none() {
            problems
                .push("Bender's R needs the population size (for the sampling fraction)".into());
        }
        for w in &self.whole_sets {
            if !self.keys.contains(w) {
                problems.push(format!("whole_sets names '{w}', which is not a key"));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(RiskError::Param(problems.join("; ")))
        }
    }
}

/// Summary figures of the classes under listwise or as-value.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassSummary {
    /// Records dropped for a missing key (listwise).
    pub n_deleted: usize,
    /// Records counted.
    pub n: usize,
    /// Records in classes of size 1.
    pub sample_uniques: usize,
    /// Records in classes of size ≤ 5 (figure names `k_le_5` and `records_k_le_5`).
    pub k_le_5: usize,
    /// Records in classes of size ≤ 10 (figure names `k_le_10` and `records_k_le_10`).
    pub k_le_10: usize,
    /// Classes of size ≤ 5 (not records: Mulder's Table 3 counts classes).
    pub classes_k_le_5: usize,
    /// Classes of size ≤ 10.
    pub classes_k_le_10: usize,
    /// sample_uniques / n.
    pub pr_su_new: Option<f64>,
    /// sample_uniques / n_total.
    pub pr_su_full: f64,
    /// The file's k (smallest class).
    pub min_k: Option<u32>,
    /// Number of classes.
    pub classes: usize,
    /// Number of classes of size 2.
    pub pairs: usize,
    /// Skinner–Elliot θ̂ (needs the population size).
    pub theta: Option<f64>,
    /// Whether θ̂ rests on at least [`THETA_MIN_COUNT`] uniques and pairs.
    pub theta_reliable: bool,
    /// Records in classes of size ≤ the uniqueness threshold.
    pub uniques_at_threshold: usize,
    /// Classes (not records) of size ≤ the uniqueness threshold.
    pub classes_at_threshold: usize,
    /// How the keys were encoded.
    pub encoding: Encoding,
}

/// Summary figures of n_match (wildcard).
#[derive(Debug, Clone, PartialEq)]
pub struct WildcardSummary {
    /// Records with n_match = 1.
    pub n_match_1: usize,
    /// Records with n_match ≤ 5.
    pub n_match_le_5: usize,
    /// Records with n_match ≤ 10.
    pub n_match_le_10: usize,
    /// n_match_1 / n_total.
    pub pr_su: f64,
    /// Records with n_match = 2.
    pub n_match_2: usize,
    /// Skinner–Elliot θ̂ from n_match as Mulder's Table 4 computes it (needs the population
    /// size): n₁ = records with n_match = 1, n₂ = records with n_match = 2 (not pairs), π =
    /// n_total / N. Without missing values n₂ is twice the pairs of the classes, so this θ is
    /// about half the listwise one (Mulder's YoB row: 0.0010 in Table 3, 0.0005 in Table 4).
    pub theta: Option<f64>,
    /// Records with n_match ≤ the uniqueness threshold.
    pub uniques_at_threshold: usize,
    /// The rule for two records that both miss a key.
    pub incomplete_pairs: IncompletePairs,
    /// The file's k under wildcard: the smallest n_match (`None` without records); what
    /// `min_k` is under listwise and as-value, and sdcMicro's k-anonymity with `NA` matching
    /// anything.
    pub min_k: Option<u32>,
}

/// k-anonymity counts in records, on f_k (listwise, as-value) or n_match (wildcard).
#[derive(Debug, Clone, PartialEq)]
pub struct KAnonymitySummary {
    /// The k.
    pub k: u32,
    /// Records with f_k < k: sdcMicro's "observations violating k-anonymity".
    pub below_k: usize,
    /// Records with f_k ≤ k (the convention of `k_le_5`, Mulder's k ≤ 5).
    pub at_most_k: usize,
}

/// Individual and global risk: from sampling weights (Benedetti–Franconi), or 1/f_k without.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightSummary {
    /// Σ of individual risks: the expected number of re-identifications (Σ 1/f_k without
    /// weights, which is the number of classes under listwise and as-value).
    pub expected_reidentifications: f64,
    /// That sum divided by the denominator.
    pub global_risk: f64,
    /// What the global risk divided by.
    pub denominator: GlobalRiskDenominator,
    /// The largest individual risk.
    pub max_individual_risk: f64,
    /// sdcMicro's `max_global_risk`.
    pub max_global_risk: f64,
    /// sdcMicro's `global_threshold` ([`global_threshold`]); `None` where it gives `NA`.
    pub global_threshold: Option<f64>,
    /// Records whose individual risk exceeds the threshold (0 when there is none).
    pub records_above_threshold: usize,
    /// Whether the risks came from weights.
    pub weighted: bool,
}

/// Household risk.
#[derive(Debug, Clone, PartialEq)]
pub struct HouseholdSummary {
    /// Σ over the records of the denominator of their household's risk (sdcMicro's
    /// hierarchical expected re-identifications with `All`).
    pub expected_reidentifications: f64,
    /// Mean household risk per record of the denominator.
    pub global_risk: f64,
    /// The records summed and divided by: those counted (under listwise the complete ones), or
    /// every record (sdcMicro's `measure_hierarchical`); the same choice as global risk.
    pub denominator: GlobalRiskDenominator,
    /// Number of households.
    pub households: usize,
    /// The largest household risk.
    pub max_risk: f64,
}

/// ℓ-diversity of the sensitive variable.
#[derive(Debug, Clone, PartialEq)]
pub struct DiversitySummary {
    /// Smallest distinct ℓ over classes.
    pub l_distinct_min: u32,
    /// Smallest entropy ℓ over classes.
    pub l_entropy_min: f64,
    /// Classes whose observed sensitive values are all the same (distinct ℓ = 1): knowing the
    /// keys discloses the sensitive value.
    pub classes_l1: usize,
    /// Records in those classes.
    pub records_l1: usize,
}

/// Every file-level figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Policy used.
    pub policy: MissingPolicy,
    /// Keys used.
    pub keys: Vec<String>,
    /// Records in the file.
    pub n_total: usize,
    /// The uniqueness threshold.
    pub unique_threshold: u32,
    /// Listwise / as-value figures.
    pub classes: Option<ClassSummary>,
    /// Wildcard figures.
    pub wildcard: Option<WildcardSummary>,
    /// k-anonymity counts.
    pub k_anonymity: KAnonymitySummary,
    /// Individual and global risk (weighted, or 1/f_k).
    pub weights: Option<WeightSummary>,
    /// Household risk.
    pub household: Option<HouseholdSummary>,
    /// ℓ-diversity.
    pub diversity: Option<DiversitySummary>,
    /// Bender's R.
    pub bender_r: Option<f64>,
}

impl Summary {
    /// The figures in report order, each with its meaning.
    pub fn figures(&self) -> Vec<Figure> {
        let mut out = Vec::new();
        let mut add = |name: &str, value: Value, unit: Unit, meaning: String| {
            out.push(Figure::new(name, value, unit, meaning))
        };
        add(
            "policy",
            json!(self.policy.as_str()),
            Unit::Label,
            "how missing key values were treated".into(),
        );
        add(
            "keys",
            json!(self.keys),
            Unit::Label,
            "key variables (quasi-identifiers)".into(),
        );
        add(
            "n_total",
            json!(self.n_total),
            Unit::Count,
            "records in the file".into(),
        );
        let t = self.unique_threshold;
        if let Some(c) = &self.classes {
            class_size_figures(c, &mut add);
            class_uniqueness_figures(c, t, &mut add);
        }
        if let Some(w) = &self.wildcard {
            wildcard_figures(w, t, &mut add);
        }
        k_anonymity_figures(&self.k_anonymity, self.wildcard.is_some(), &mut add);
        if let Some(w) = &self.weights {
            weight_figures(w, &mut add);
        }
        if let Some(h) = &self.household {
            household_figures(h, &mut add);
        }
        if let Some(d) = &self.diversity {
            add(
                "l_distinct_min",
                json!(d.l_distinct_min),
                Unit::Count,
                "fewest distinct sensitive values in a class".into(),
            );
            add(
                "l_entropy_min",
                json!(d.l_entropy_min),
                Unit::Score,
                "smallest entropy ℓ (exp of entropy) of a class".into(),
            );
        }
        if let Some(r) = self.bender_r {
            add(
                "bender_r",
                json!(r),
                Unit::Proportion,
                "Bender's R = 1 − exp(−f·n(U)·f_a)".into(),
            );
        }
        out
    }

    /// The figures as one JSON object.
    pub fn to_json(&self) -> Value {
        Value::Object(
            self.figures()
                .into_iter()
                .map(|f| (f.name, f.value))
                .collect(),
        )
    }
}

/// Adds the class-size figures (listwise or as-value): records and classes at each size.
fn class_size_figures(c: &ClassSummary, add: &mut impl FnMut(&str, Value, Unit, String)) {
    add(
        "n_deleted",
        json!(c.n_deleted),
        Unit::Count,
        "records dropped for a missing key (listwise)".into(),
    );
    add("n", json!(c.n), Unit::Count, "records counted".into());
    add(
        "sample_uniques",
        json!(c.sample_uniques),
        Unit::Count,
        "records alone in their class (k = 1)".into(),
    );
    add(
        "k_le_5",
        json!(c.k_le_5),
        Unit::Count,
        "records in classes of size ≤ 5".into(),
    );
    add(
        "k_le_10",
        json!(c.k_le_10),
        Unit::Count,
        "records in classes of size ≤ 10".into(),
    );
    add(
        "records_k_le_5",
        json!(c.k_le_5),
        Unit::Count,
        "records in classes of size ≤ 5 (= k_le_5)".into(),
    );
    add(
        "records_k_le_10",
        json!(c.k_le_10),
        Unit::Count,
        "records in classes of size ≤ 10 (= k_le_10)".into(),
    );
    add(
        "classes_k_le_5",
        json!(c.classes_k_le_5),
        Unit::Count,
        "classes (not records) of size ≤ 5, as Mulder's Table 3 counts".into(),
    );
    add(
        "classes_k_le_10",
        json!(c.classes_k_le_10),
        Unit::Count,
        "classes (not records) of size ≤ 10, as Mulder's Table 3 counts".into(),
    );
}

/// Adds the uniqueness figures of the classes (listwise or as-value): shares of uniques, the
/// file's k, θ and the records at the uniqueness threshold `t`.
fn class_uniqueness_figures(
    c: &ClassSummary,
    t: u32,
    add: &mut impl FnMut(&str, Value, Unit, String),
) {
    add(
        "pr_su_new",
        json!(c.pr_su_new),
        Unit::Proportion,
        "share of counted records that are unique (uniques / n)".into(),
    );
    add(
        "pr_su_full",
        json!(c.pr_su_full),
        Unit::Proportion,
        "share of all records that are unique (uniques / n_total)".into(),
    );
    add(
        "min_k",
        json!(c.min_k),
        Unit::Count,
        "the file's k: size of the smallest class".into(),
    );
    add(
        "classes",
        json!(c.classes),
        Unit::Count,
        "number of equivalence classes".into(),
    );
    add(
        "pairs",
        json!(c.pairs),
        Unit::Count,
        "number of classes of size 2".into(),
    );
    add(
        "theta",
        json!(c.theta),
        Unit::Proportion,
        "Skinner–Elliot θ: chance a unique match is correct (needs N)".into(),
    );
    add(
        "theta_reliable",
        json!(c.theta_reliable),
        Unit::Label,
        format!("θ rests on at least {THETA_MIN_COUNT} uniques and {THETA_MIN_COUNT} pairs"),
    );
    add(
        "uniques_at_threshold",
        json!(c.uniques_at_threshold),
        Unit::Count,
        format!("records in classes of size ≤ {t}"),
    );
    add(
        "classes_at_threshold",
        json!(c.classes_at_threshold),
        Unit::Count,
        format!("classes (not records) of size ≤ {t}"),
    );
    add(
        "encoding",
        json!(match c.encoding {
            Encoding::MixedRadix => "mixed-radix",
            Encoding::Recoded => "recoded",
        }),
        Unit::Label,
        "how key tuples were coded (Dalenius' mixed radix in 64 bits, else exact re-coding)".into(),
    );
}

/// Adds the wildcard figures: records by n_match, θ and the records at the uniqueness threshold
/// `t`.
fn wildcard_figures(w: &WildcardSummary, t: u32, add: &mut impl FnMut(&str, Value, Unit, String)) {
    add(
        "n_match_1",
        json!(w.n_match_1),
        Unit::Count,
        "records matching no other record (missing matches anything)".into(),
    );
    add(
        "n_match_le_5",
        json!(w.n_match_le_5),
        Unit::Count,
        "records matching ≤ 5 records, themselves included".into(),
    );
    add(
        "n_match_le_10",
        json!(w.n_match_le_10),
        Unit::Count,
        "records matching ≤ 10 records, themselves included".into(),
    );
    add(
        "pr_su",
        json!(w.pr_su),
        Unit::Proportion,
        "share of records with n_match = 1".into(),
    );
    add(
        "n_match_2",
        json!(w.n_match_2),
        Unit::Count,
        "records matching exactly one other record".into(),
    );
    if w.theta.is_some() {
        add(
            "theta",
            json!(w.theta),
            Unit::Proportion,
            "Skinner–Elliot θ from n_match (n₁ = records with n_match = 1, n₂ = records with n_match = 2, as Mulder's Table 4; needs N)".into(),
        );
    }
    add(
        "uniques_at_threshold",
        json!(w.uniques_at_threshold),
        Unit::Count,
        format!("records with n_match ≤ {t}"),
    );
    if w.incomplete_pairs == IncompletePairs::Never {
        add(
            "incomplete_pairs",
            json!(w.incomplete_pairs.as_str()),
            Unit::Label,
            "two records that both miss a key never match (the rule of Mulder's printed Table 2)"
                .into(),
        );
    }
    add(
        "min_k",
        json!(w.min_k),
        Unit::Count,
        "the file's k: the smallest n_match (missing matches anything, as sdcMicro's kAnon counts NA)".into(),
    );
}

/// Adds the k-anonymity counts, on n_match under wildcard (`on_n_match`), else on f_k.
fn k_anonymity_figures(
    ka: &KAnonymitySummary,
    on_n_match: bool,
    add: &mut impl FnMut(&str, Value, Unit, String),
) {
    let on = if on_n_match { "n_match" } else { "f_k" };
    add(
        "records_fk_below_k",
        json!(ka.below_k),
        Unit::Count,
        format!(
            "records with {on} < {} (sdcMicro's observations violating {}-anonymity)",
            ka.k, ka.k
        ),
    );
    add(
        "records_fk_at_most_k",
        json!(ka.at_most_k),
        Unit::Count,
        format!("records with {on} ≤ {}", ka.k),
    );
}

/// Adds the individual and global risk figures and sdcMicro's risk threshold.
fn weight_figures(w: &WeightSummary, add: &mut impl FnMut(&str, Value, Unit, String)) {
    add(
        "expected_reidentifications",
        json!(w.expected_reidentifications),
        Unit::Score,
        if w.weighted {
            "Σ individual risk: expected number of re-identifications".into()
        } else {
            "Σ 1/f_k (no weights): expected number of re-identifications, sdcMicro's global_risk_ER without w".into()
        },
    );
    add(
        "global_risk",
        json!(w.global_risk),
        Unit::Proportion,
        match w.denominator {
            GlobalRiskDenominator::Counted => {
                "expected re-identifications per counted record".into()
            }
            GlobalRiskDenominator::All => {
                "expected re-identifications per record of the file (sdcMicro)".into()
            }
        },
    );
    add(
        "max_individual_risk",
        json!(w.max_individual_risk),
        Unit::Proportion,
        "largest individual risk".into(),
    );
    add(
        "global_threshold",
        json!(w.global_threshold),
        Unit::Proportion,
        format!(
            "sdcMicro's risk threshold for a maximal global risk of {} (null where sdcMicro gives NA)",
            w.max_global_risk
        ),
    );
    add(
        "records_above_threshold",
        json!(w.records_above_threshold),
        Unit::Count,
        "records whose individual risk exceeds global_threshold".into(),
    );
}

/// Adds the household risk figures.
fn household_figures(h: &HouseholdSummary, add: &mut impl FnMut(&str, Value, Unit, String)) {
    let over = match h.denominator {
        GlobalRiskDenominator::Counted => "counted record",
        GlobalRiskDenominator::All => "record of the file (sdcMicro)",
    };
    add(
        "household_expected_reidentifications",
        json!(h.expected_reidentifications),
        Unit::Score,
        format!("Σ over each {over} of its household's risk 1 − Π(1 − r_i)"),
    );
    add(
        "household_global_risk",
        json!(h.global_risk),
        Unit::Proportion,
        format!("mean household risk per {over}"),
    );
}

impl Summary {
    /// The figures as a report (what `intruder risk` prints for the frequency measure).
    pub fn report(&self) -> Report {
        let mut r = Report::new("frequency risk");
        r.figures = self.figures();
        r
    }
}

impl RecordRisk {
    /// The per-record figures as columns: `k`, `n_match` (empty when not computed),
    /// `individual_risk`, `weighted_k` (F_k) with a weight column, then `household_risk` and `l_distinct` when a group or sensitive
    /// column was given (with `l_entropy` after `l_distinct`).
    pub fn into_records(self) -> Records {
        let n = self.k.len();
        let mut r = Records::new(n);
        let mut push = |name: &str, v: RecordValues| {
            r.push(name, v)
                .expect("per-record columns of one assessment have one length")
        };
        push("k", self.k.into());
        push(
            "n_match",
            match self.n_match {
                Some(m) => m.into(),
                None => RecordValues::Count(vec![None; n]),
            },
        );
        if let Some(f) = self.n_match_alpha {
            push("n_match_alpha", f.into());
        }
        push("individual_risk", self.individual_risk.into());
        if let Some(f) = self.weighted_k {
            push("weighted_k", f.into());
        }
        if let Some(h) = self.household_risk {
            push("household_risk", h.into());
        }
        if let Some(l) = self.l_distinct {
            push("l_distinct", l.into());
        }
        if let Some(l) = self.l_entropy {
            push("l_entropy", l.into());
        }
        if let Some(r) = self.recursive_cl {
            push("recursive_cl_diverse", r.into());
        }
        r
    }
}

/// Per-record figures, in input order (empty when not asked for: [`RiskParams::per_record`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RecordRisk {
    /// f_k under the policy (listwise k under wildcard); `None` when deleted.
    pub k: Vec<Option<u32>>,
    /// n_match, when computed (wildcard, or asked for).
    pub n_match: Option<Vec<u32>>,
    /// Individual risk (with weights: Benedetti–Franconi; else 1/f_k).
    pub individual_risk: Vec<Option<f64>>,
    /// F_k, the sum of the weights of the record's class (or of its matches under wildcard),
    /// sdcMicro's `Fk`; with a weight column.
    pub weighted_k: Option<Vec<Option<f64>>>,
    /// sdcMicro's fractional f_k with `alpha` (wildcard with alpha given).
    pub n_match_alpha: Option<Vec<f64>>,
    /// Household risk, with a group column.
    pub household_risk: Option<Vec<f64>>,
    /// Distinct ℓ of the record's class, with a sensitive column.
    pub l_distinct: Option<Vec<Option<u32>>>,
    /// Entropy ℓ (exp of the entropy of the sensitive values) of the record's class.
    pub l_entropy: Option<Vec<Option<f64>>>,
    /// 1 when the record's class is recursive (c, ℓ)-diverse, 0 when not (when asked).
    pub recursive_cl: Option<Vec<Option<u32>>>,
}

/// The result of [`assess`].
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    /// File-level figures.
    pub summary: Summary,
    /// Per-record figures.
    pub records: RecordRisk,
    /// What the user should know about the inputs (weights below 1, a weight total far from
    /// the population size given): the figures are computed, but may not mean what they say.
    pub warnings: Vec<String>,
}

/// The relative difference between the weights' total and a given population size above which
/// [`weight_warnings`] warns: 10 %.
pub const WEIGHT_TOTAL_TOLERANCE: f64 = 0.10;

/// Warnings about sampling weights read from column `name` of `file`: weights below 1 (a weight
/// counts the population units a record stands for, so F_k = Σw and every risk estimated from
/// it assume weights ≥ 1), and, with a population size N, a total Σw that differs from N by
/// more than [`WEIGHT_TOTAL_TOLERANCE`] of N (the weights then do not describe that
/// population).
pub fn weight_warnings(
    weights: &[f64],
    name: &str,
    file: &str,
    population_size: Option<f64>,
) -> Vec<String> {
    let below: Vec<usize> = (0..weights.len()).filter(|&i| weights[i] < 1.0).collect();
    let facts = WeightFacts {
        name: name.to_string(),
        below_one: below.first().map(|&first| {
            let min = below
                .iter()
                .map(|&i| weights[i])
                .fold(f64::INFINITY, f64::min);
            (below.len(), first, weights[first], min)
        }),
        // Summed in record order.
        total: weights.iter().sum(),
        n: weights.len(),
    };
    weight_facts_warnings(&facts, file, population_size)
}

/// What a weight column holds, for the warnings [`crate::assess`] gives about it.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightFacts {
    /// The column's name.
    pub name: String,
    /// Weights below 1: how many, the first such record (0-based), its weight, and the
    /// smallest.
    pub below_one: Option<(usize, usize, f64, f64)>,
    /// The sum of the weights.
    pub total: f64,
    /// Records.
    pub n: usize,
}

/// The warnings about a weight column that [`weight_warnings`] gives, from its facts.
pub fn weight_facts_warnings(
    w: &WeightFacts,
    file: &str,
    population_size: Option<f64>,
) -> Vec<String> {
    let mut out = Vec::new();
    let name = &w.name;
    if let Some((count, first, at_first, min)) = w.below_one {
        out.push(format!(
            "{file}: weight column '{name}': {count} of {} weights are below 1 (the first on record {}: {at_first}; the smallest {min}); a weight counts the population units a record stands for, so F_k (a sum of weights) and the individual, global and household risk estimated from it assume weights ≥ 1: rescale the weights to population units",
            w.n,
            first + 1,
        ));
    }
    if let Some(big_n) = population_size {
        let total = w.total;
        if big_n > 0.0 && ((total - big_n) / big_n).abs() > WEIGHT_TOTAL_TOLERANCE {
            out.push(format!(
                "{file}: weight column '{name}': the weights sum to {total}, but the population size given is {big_n} ({:+.1}%, more than {:.0}% off): the weights and the population size describe different populations; check both",
                (total - big_n) / big_n * 100.0,
                WEIGHT_TOTAL_TOLERANCE * 100.0,
            ));
        }
    }
    out
}

/// Computes every frequency figure of `table` as `params` asks.
///
/// Individual risk uses the class sizes of the policy: f_k (listwise, as-value) or n_match
/// (wildcard, as sdcMicro's `freqCalc` counts records with `NA` keys), with the matching weighted
/// sizes F_k when a weight column is given and 1/f_k otherwise.
pub fn assess(table: &Table, params: &RiskParams) -> Result<Assessment, RiskError> {
    assess_timed(table, params, &mut Timings::new())
}

/// [`assess`], adding the time spent coding the keys to [`Timings::ENCODE`] and the rest to
/// [`Timings::COUNT`].
pub fn assess_timed(
    table: &Table,
    params: &RiskParams,
    timings: &mut Timings,
) -> Result<Assessment, RiskError> {
    params.check()?;
    let encode_start = Instant::now();
    let file = table.source().to_string();
    let n_total = table.nrows();
    let set_key = |k: &String| {
        table
            .column(k)
            .is_ok_and(|c| c.kind() == intruder_table::Kind::Set)
    };
    if codes_suffice(params) && !params.keys.iter().any(set_key) {
        // The class sizes alone: the columns lend their codes where they hold them.
        check_keys(table, &params.keys)?;
        let columns = params
            .keys
            .iter()
            .map(|k| table.column(k))
            .collect::<Result<Vec<_>, _>>()?;
        let sources: Vec<ColumnCodes> = columns
            .par_iter()
            .map(|c| ColumnCodes::of(c, SetCoding::Whole))
            .collect();
        let refs: Vec<&dyn CodeSource> = sources.iter().map(|s| s as &dyn CodeSource).collect();
        timings.add(Timings::ENCODE, encode_start.elapsed());
        let count_start = Instant::now();
        let a = sizes_assessment(&refs, &file, params, n_total)?;
        timings.add(Timings::COUNT, count_start.elapsed());
        if let Some(a) = a {
            return Ok(a);
        }
    }
    let wildcard = params.missing == MissingPolicy::Wildcard;
    // Classes always use the plain coding. Matching codes set-valued keys differently, so it
    // needs its own coding only when a key is set-valued; otherwise the two are identical.
    let mut plain = key_data(table, &params.keys, params.set_match, false)?;
    whole_set_keys(table, params, &mut plain)?;
    let has_set_key = params.keys.iter().any(|k| {
        table
            .column(k)
            .is_ok_and(|c| c.kind() == intruder_table::Kind::Set)
    });
    let matching = if (wildcard || params.with_n_match) && has_set_key {
        let mut m = key_data(table, &params.keys, params.set_match, true)?;
        whole_set_keys(table, params, &mut m)?;
        Some(m)
    } else {
        None
    };
    timings.add(Timings::ENCODE, encode_start.elapsed());
    let count_start = Instant::now();
    let weights = params
        .weight
        .as_deref()
        .map(|w| weight_values(table, w, &file))
        .transpose()?;
    let coded = Coded {
        plain,
        matched: None,
        matching,
        weights,
        table: Some(table),
        file,
    };
    let a = assess_coded(coded, params);
    timings.add(Timings::COUNT, count_start.elapsed());
    a
}

/// A file's keys, coded, and what else an assessment reads of it.
struct Coded<'a> {
    /// The keys as classes code them (no codes, only the number of rows, when `matched` is
    /// given: nothing else reads them then).
    plain: KeyData,
    /// n_match, when computed already (from keys packed one word per row).
    matched: Option<NMatch>,
    /// The keys as matching codes them, when that differs (a set-valued key matched).
    matching: Option<KeyData>,
    /// The weights, when the parameters name a weight column.
    weights: Option<Vec<f64>>,
    /// The table, for the group and sensitive columns; `None` when the parameters name
    /// neither ([`keys_suffice`]).
    table: Option<&'a Table>,
    /// The file's name in messages.
    file: String,
}

/// Whether the coded keys (and the weights) give every figure `params` asks for: no group,
/// sensitive or whole-set columns and no per-record figures (whose rows are the table's).
fn keys_suffice(params: &RiskParams) -> bool {
    !params.per_record
        && params.group.is_none()
        && params.sensitive.is_none()
        && params.recursive_cl.is_none()
        && params.whole_sets.is_empty()
}

/// Warnings about the columns a measure reads that hold no observed value, by name: a key
/// every record is missing (listwise deletes every record; otherwise it tells no record
/// apart), a sensitive variable every record is missing (every class has ℓ = 0: nothing is
/// measured). Such a file is legal but surely not what was meant.
pub fn empty_column_warnings(
    table: &Table,
    keys: &[String],
    sensitive: Option<&str>,
) -> Vec<String> {
    let file = table.source().to_string();
    let empty = |name: &str| {
        table
            .column(name)
            .is_ok_and(|c| !c.is_empty() && c.missing_count() == c.len())
    };
    let keys_empty: Vec<&str> = keys
        .iter()
        .map(String::as_str)
        .filter(|k| empty(k))
        .collect();
    let mut out: Vec<String> = empty_keys_warning(&file, &keys_empty).into_iter().collect();
    if let Some(s) = sensitive.filter(|s| empty(s)) {
        out.push(format!(
            "{file}: sensitive column '{s}' has no observed value: every record is missing it, so every class has ℓ = 0 and nothing is measured — are its values missing tokens, or is it the wrong column?"
        ));
    }
    out
}

/// The warning for key columns every record misses (`None` when there are none); the same
/// words whether the keys came from a table or from key codes alone.
pub(crate) fn empty_keys_warning(file: &str, keys_empty: &[&str]) -> Option<String> {
    if keys_empty.is_empty() {
        return None;
    }
    let one = keys_empty.len() == 1;
    Some(format!(
        "{file}: key column{} {} {} no observed value: every record is missing {} (listwise, every record is deleted; as-value and wildcard, {} no record apart) — are {} missing tokens, or the wrong column?",
        if one { "" } else { "s" },
        keys_empty
            .iter()
            .map(|k| format!("'{k}'"))
            .collect::<Vec<_>>()
            .join(", "),
        if one { "has" } else { "have" },
        if one { "it" } else { "them" },
        if one { "it tells" } else { "they tell" },
        if one { "its values" } else { "their values" },
    ))
}

/// Every frequency figure of coded keys ([`assess`] once the keys are coded).
fn assess_coded(coded: Coded<'_>, params: &RiskParams) -> Result<Assessment, RiskError> {
    let Coded {
        plain,
        matched,
        matching,
        weights,
        table,
        file,
    } = coded;
    let n_total = plain.n;
    check_population(params.population_size, n_total)?;
    let warnings = coded_warnings(&plain, weights.as_deref(), table, &file, params);
    let counts = count_keys(plain, matched, matching, weights.as_deref(), params);
    let (class_summary, wildcard_summary) = frequency_summaries(&counts, n_total, params)?;
    let k_anonymity = k_anonymity_summary(&counts, n_total, params)?;
    let risks = individual_risks(&counts, weights.as_deref(), n_total, params)?;
    let (household, household_summary) = household_risks(table, &risks, n_total, &file, params)?;
    let diversity = sensitive_diversity(table, counts.classes.as_ref(), params)?;
    let bender_r = bender_r_of(params, class_summary.as_ref(), n_total, &file)?;

    Ok(Assessment {
        summary: Summary {
            policy: params.missing,
            keys: params.keys.clone(),
            n_total,
            unique_threshold: params.unique_threshold,
            classes: class_summary,
            wildcard: wildcard_summary,
            k_anonymity,
            weights: risks.summary,
            household: household_summary,
            diversity: diversity.summary,
            bender_r,
        },
        records: RecordRisk {
            k: counts.k,
            n_match: counts.nm.map(|m| m.n_match),
            individual_risk: risks.individual,
            weighted_k: risks.weighted_k,
            n_match_alpha: counts.alpha_counts.map(|(f, _)| f),
            household_risk: household,
            l_distinct: diversity.l_distinct,
            l_entropy: diversity.l_entropy,
            recursive_cl: diversity.recursive_cl,
        },
        warnings,
    })
}

/// The column `name` of the table, an error when the keys were read as codes alone.
fn named_column<'t>(
    table: Option<&'t Table>,
    name: &str,
) -> Result<&'t intruder_table::Column, RiskError> {
    let table = table.ok_or_else(|| {
        RiskError::Param(format!("column '{name}' is needed but no table was read"))
    })?;
    Ok(table.column(name)?)
}

/// The error of a figure that needs the classes when they were not counted.
fn no_classes() -> RiskError {
    RiskError::Param("the classes were not counted".into())
}

/// The warnings of an assessment: weights that do not look like sampling weights, and key or
/// sensitive columns with no observed value.
fn coded_warnings(
    plain: &KeyData,
    weights: Option<&[f64]>,
    table: Option<&Table>,
    file: &str,
    params: &RiskParams,
) -> Vec<String> {
    let mut warnings = match (weights, params.weight.as_deref()) {
        (Some(w), Some(name)) => weight_warnings(w, name, file, params.population_size),
        _ => Vec::new(),
    };
    if let Some(t) = table {
        warnings.extend(empty_column_warnings(
            t,
            &params.keys,
            params.sensitive.as_deref(),
        ));
    } else if plain.n > 0 {
        // keys read as codes alone: the same warning from the codes
        let keys_empty: Vec<&str> = (plain.codes.iter().zip(&params.keys))
            .filter(|(codes, _)| codes.iter().all(|&c| c == MISSING))
            .map(|(_, k)| k.as_str())
            .collect();
        warnings.extend(empty_keys_warning(file, &keys_empty));
    }
    warnings
}

/// What counting the coded keys gives: the classes, n_match, sdcMicro's counts with alpha and
/// the histograms the figures come from.
struct KeyCounts {
    /// The classes (listwise under wildcard), when a figure needs them.
    classes: Option<Classes>,
    /// The per-record k: only for the per-record figures (k-anonymity comes from the sizes).
    k: Vec<Option<u32>>,
    /// The histogram of class sizes, outside wildcard.
    sizes: Option<SizeCounts>,
    /// n_match, under wildcard or when asked for.
    nm: Option<NMatch>,
    /// sdcMicro's freqCalc counts with alpha: fractional f_k and F_k under wildcard.
    alpha_counts: Option<(Vec<f64>, Option<Vec<f64>>)>,
    /// The histogram of n_match, under wildcard.
    n_match_hist: Option<Vec<(u32, usize)>>,
}

/// Counts the coded keys as `params` asks, then frees the key codes.
fn count_keys(
    plain: KeyData,
    matched: Option<NMatch>,
    matching: Option<KeyData>,
    weights: Option<&[f64]>,
    params: &RiskParams,
) -> KeyCounts {
    let n_total = plain.n;
    let wildcard = params.missing == MissingPolicy::Wildcard;
    let kd_match = matching.as_ref().unwrap_or(&plain);
    let class_policy = if wildcard {
        MissingPolicy::Listwise
    } else {
        params.missing
    };
    // Under wildcard the classes only give the per-record k and ℓ-diversity's groups.
    let need_classes = !wildcard || params.per_record || params.sensitive.is_some();
    let classes: Option<Classes> = need_classes.then(|| classes_of(&plain, class_policy));
    // The per-record k: only for the per-record figures (k-anonymity comes from the sizes).
    let k: Vec<Option<u32>> = match &classes {
        Some(c) if params.per_record => (0..n_total).map(|i| c.k(i)).collect(),
        _ => Vec::new(),
    };
    // Every class figure comes from the histogram of class sizes, as in [`assess_codes`].
    let sizes = classes
        .as_ref()
        .filter(|_| !wildcard)
        .map(SizeCounts::of_classes);
    debug_assert!(
        matched.is_none() || (!need_classes && params.wildcard_alpha.is_none()),
        "keys without codes are only matched"
    );
    let nm: Option<NMatch> = matched.or_else(|| {
        (wildcard || params.with_n_match)
            .then(|| n_match_rule(kd_match, params.incomplete_pairs, weights))
    });
    // sdcMicro's freqCalc counts with alpha: fractional f_k and F_k under wildcard.
    let alpha_counts: Option<(Vec<f64>, Option<Vec<f64>>)> = match params.wildcard_alpha {
        Some(a) if wildcard => {
            let exact = classes_of(&plain, MissingPolicy::AsValue);
            Some(freqcalc_alpha(kd_match, &exact, weights, a))
        }
        _ => None,
    };
    // The key codes are not needed any more: free them before the per-record figures are made.
    drop(matching);
    drop(plain);

    // Under wildcard every n_match figure but the per-record ones comes from its histogram.
    let n_match_hist: Option<Vec<(u32, usize)>> = nm
        .as_ref()
        .filter(|_| wildcard)
        .map(|nm| histogram(nm.n_match.iter().copied()));
    KeyCounts {
        classes,
        k,
        sizes,
        nm,
        alpha_counts,
        n_match_hist,
    }
}

/// The class figures (listwise, as-value) or the wildcard figures, from their histograms.
fn frequency_summaries(
    counts: &KeyCounts,
    n_total: usize,
    params: &RiskParams,
) -> Result<(Option<ClassSummary>, Option<WildcardSummary>), RiskError> {
    if let Some(h) = &counts.n_match_hist {
        Ok((None, Some(wildcard_summary_of(h, n_total, params))))
    } else {
        let sc = counts
            .sizes
            .as_ref()
            .ok_or_else(|| RiskError::Param("no class sizes".into()))?;
        Ok((Some(class_summary(sc, n_total, params)), None))
    }
}

/// k-anonymity in records: on n_match under wildcard (sdcMicro's fk with NA keys), else f_k.
fn k_anonymity_summary(
    counts: &KeyCounts,
    n_total: usize,
    params: &RiskParams,
) -> Result<KAnonymitySummary, RiskError> {
    let wildcard = params.missing == MissingPolicy::Wildcard;
    let ka = params.k_anonymity;
    Ok(match (&counts.alpha_counts, &counts.nm, wildcard) {
        (None, _, false) if let Some(sc) = &counts.sizes => k_anonymity_of(sc, ka),
        (Some((f, _)), _, _) => KAnonymitySummary {
            k: ka,
            below_k: f.iter().filter(|&&x| x < f64::from(ka)).count(),
            at_most_k: f.iter().filter(|&&x| x <= f64::from(ka)).count(),
        },
        (None, Some(_), true) if let Some(h) = &counts.n_match_hist => n_match_k_anonymity(h, ka),
        _ => {
            let classes = counts.classes.as_ref().ok_or_else(no_classes)?;
            let k = |i: usize| classes.k(i);
            KAnonymitySummary {
                k: ka,
                below_k: (0..n_total)
                    .filter(|&i| k(i).is_some_and(|f| f < ka))
                    .count(),
                at_most_k: (0..n_total)
                    .filter(|&i| k(i).is_some_and(|f| f <= ka))
                    .count(),
            }
        }
    })
}

/// Individual risk per record (when the per-record figures or household risk need it) and
/// the individual and global risk figures.
struct Risks {
    /// Individual risk per record; empty when not needed.
    individual: Vec<Option<f64>>,
    /// F_k with weights, per record.
    weighted_k: Option<Vec<Option<f64>>>,
    /// The records with an individual risk: what global risk divides by under `Counted`.
    counted: usize,
    /// The individual and global risk figures.
    summary: Option<WeightSummary>,
}

/// Individual risk, per record and summed: from a histogram where one gives the figures, else
/// from each class's risk (listwise, as-value) or each record's n_match (wildcard).
fn individual_risks(
    counts: &KeyCounts,
    weights: Option<&[f64]>,
    n_total: usize,
    params: &RiskParams,
) -> Result<Risks, RiskError> {
    let wildcard = params.missing == MissingPolicy::Wildcard;
    let classes = counts.classes.as_ref();
    // Individual risk 1/f without weights comes from a histogram (of the class sizes, or of
    // n_match under wildcard) on every path, so the figures do not depend on per_record.
    let from_histogram = match (
        weights,
        &counts.sizes,
        &counts.alpha_counts,
        &counts.n_match_hist,
    ) {
        (None, Some(sc), _, _) => Some(unweighted_summary(sc, n_total, params)),
        (None, None, None, Some(h)) => Some(n_match_risk_summary(h, n_total, params)),
        _ => None,
    };
    // The per-record risks: for the per-record figures and the household risk, and under
    // wildcard for the summary when no histogram gives it.
    let records = params.per_record || params.group.is_some();
    let need = RisksNeeded {
        records,
        individual: records || (wildcard && from_histogram.is_none()),
    };
    // Outside wildcard every record of a class has its class's risk: computed once per class,
    // the summary comes from the classes (the same sums, in record order, and the same levels
    // as from the per-record risks) and the per-record risks only when asked for.
    let class_risks: Option<ClassRisks> = match classes {
        Some(c) if !wildcard && (need.records || from_histogram.is_none()) => {
            Some(ClassRisks::of(c, weights))
        }
        _ => None,
    };
    // Under wildcard every record has a risk (n_match ≥ 1): made once, as plain numbers, and
    // made per-record options only for the per-record figures.
    let wild_risks: Option<Vec<f64>> = if wildcard && need.individual {
        wildcard_risks(counts, n_total)
    } else {
        None
    };
    let (individual, weighted_k) =
        per_record_risks(counts, class_risks.as_ref(), wild_risks.as_deref(), need)?;
    let counted = match classes {
        Some(c) if !wildcard => n_total - c.n_deleted,
        _ if wild_risks.is_some() => n_total,
        _ => individual.iter().filter(|r| r.is_some()).count(),
    };
    let summary = if let Some(w) = from_histogram {
        Some(w)
    } else if let (Some(cr), Some(classes)) = (&class_risks, classes) {
        Some(cr.summary(classes, params, weights.is_some()))
    } else {
        let from_records: Vec<f64>;
        let risks: &[f64] = match &wild_risks {
            Some(r) => r,
            None => {
                from_records = individual.iter().flatten().copied().collect();
                &from_records
            }
        };
        Some(record_risks_summary(
            risks,
            counted,
            n_total,
            params,
            weights.is_some(),
        ))
    };
    drop(wild_risks);
    Ok(Risks {
        individual,
        weighted_k,
        counted,
        summary,
    })
}

/// The individual and global risk figures of the records' `risks` (summed in record order).
fn record_risks_summary(
    risks: &[f64],
    counted: usize,
    n_total: usize,
    params: &RiskParams,
    weighted: bool,
) -> WeightSummary {
    // Summed in record order.
    let sum: f64 = risks.iter().sum();
    risk_levels_summary(&levels_of(risks), sum, counted, n_total, params, weighted)
}

/// Which per-record risks an assessment needs.
#[derive(Debug, Clone, Copy)]
struct RisksNeeded {
    /// The per-record risks are reported or feed household risk.
    records: bool,
    /// Individual risks are computed record by record (for the above, or under wildcard for
    /// the summary when no histogram gives it).
    individual: bool,
}

/// The individual risk of every record under wildcard, from sdcMicro's alpha counts or n_match
/// (with F_k when weighted).
fn wildcard_risks(counts: &KeyCounts, n_total: usize) -> Option<Vec<f64>> {
    match (&counts.alpha_counts, &counts.nm) {
        (Some((f, big)), _) => Some(
            (0..n_total)
                .into_par_iter()
                .map(|i| match big {
                    Some(b) => individual_risk_fractional(f[i], b[i]),
                    None => 1.0 / f[i],
                })
                .collect(),
        ),
        (None, Some(nm)) => Some(
            (0..n_total)
                .into_par_iter()
                .map(|i| {
                    let f = nm.n_match[i];
                    match &nm.weighted {
                        Some(big) => individual_risk(f, big[i]),
                        None => 1.0 / f as f64,
                    }
                })
                .collect(),
        ),
        _ => None,
    }
}

/// Individual risk per record, and F_k with weights per record.
type PerRecordRisks = (Vec<Option<f64>>, Option<Vec<Option<f64>>>);

/// Individual risk, and F_k with weights, per record (empty when not needed).
fn per_record_risks(
    counts: &KeyCounts,
    class_risks: Option<&ClassRisks>,
    wild_risks: Option<&[f64]>,
    need: RisksNeeded,
) -> Result<PerRecordRisks, RiskError> {
    // F_k with weights under wildcard.
    let wild_big: Option<&[f64]> = match (&counts.alpha_counts, &counts.nm) {
        (Some((_, big)), _) => big.as_deref(),
        (None, Some(nm)) => nm.weighted.as_deref(),
        _ => None,
    };
    Ok(match wild_risks {
        _ if !need.individual => (Vec::new(), None),
        Some(r) if need.records => (
            r.par_iter().map(|&x| Some(x)).collect(),
            wild_big.map(|b| b.par_iter().map(|&x| Some(x)).collect()),
        ),
        Some(_) => (Vec::new(), None),
        None => {
            let classes = counts.classes.as_ref().ok_or_else(no_classes)?;
            let cr = class_risks.ok_or_else(no_classes)?;
            let per_class = |v: &[f64]| -> Vec<Option<f64>> {
                classes
                    .class_of
                    .par_iter()
                    .map(|&c| (c != DELETED).then(|| v[c as usize]))
                    .collect()
            };
            (per_class(&cr.risk), cr.big.as_deref().map(per_class))
        }
    })
}

/// Household risk per record and its figures, when a group column is given.
fn household_risks(
    table: Option<&Table>,
    risks: &Risks,
    n_total: usize,
    file: &str,
    params: &RiskParams,
) -> Result<(Option<Vec<f64>>, Option<HouseholdSummary>), RiskError> {
    let Some(g) = params.group.as_deref() else {
        return Ok((None, None));
    };
    let col = named_column(table, g)?;
    if col.missing_count() > 0 {
        let row = (0..n_total).find(|&i| col.is_missing(i)).unwrap_or(0);
        return Err(RiskError::Column {
            file: file.to_string(),
            column: g.into(),
            message: format!(
                "record {} has no household id; every record needs one",
                row + 1
            ),
        });
    }
    let d = KeyCodes::dense(col, SetCoding::Whole);
    let mut seen = vec![false; d.card as usize];
    for &c in &d.codes {
        if let Some(x) = seen.get_mut(c as usize) {
            *x = true;
        }
    }
    let households = seen.iter().filter(|&&x| x).count();
    let h = household_risk(&risks.individual, &d.codes);
    let summary = household_summary(&h, households, risks, n_total, params);
    Ok((Some(h), Some(summary)))
}

/// The household figures from each record's household risk `h`.
fn household_summary(
    h: &[f64],
    households: usize,
    risks: &Risks,
    n_total: usize,
    params: &RiskParams,
) -> HouseholdSummary {
    // Counted: the records with an individual risk (under listwise the complete ones; a
    // record deleted there still shares its household's risk, but is not summed). All:
    // every record, as sdcMicro's measure_hierarchical.
    let (sum, denominator): (f64, usize) = match params.global_risk_denominator {
        GlobalRiskDenominator::Counted => (
            h.iter()
                .zip(&risks.individual)
                .filter(|(_, r)| r.is_some())
                .map(|(x, _)| x)
                .sum(),
            risks.counted,
        ),
        GlobalRiskDenominator::All => (h.iter().sum(), n_total),
    };
    HouseholdSummary {
        expected_reidentifications: sum,
        global_risk: if denominator > 0 {
            sum / denominator as f64
        } else {
            0.0
        },
        denominator: params.global_risk_denominator,
        households,
        max_risk: h.iter().copied().fold(0.0, f64::max),
    }
}

/// ℓ-diversity of the sensitive column, per record and over the classes, and recursive
/// (c, ℓ)-diversity; all `None` without a sensitive column.
struct Diversity {
    /// Distinct ℓ of each record's class.
    l_distinct: Option<Vec<Option<u32>>>,
    /// Entropy ℓ of each record's class.
    l_entropy: Option<Vec<Option<f64>>>,
    /// The file's figures.
    summary: Option<DiversitySummary>,
    /// Whether each record's class is recursive (c, ℓ)-diverse (1) or not (0).
    recursive_cl: Option<Vec<Option<u32>>>,
}

/// ℓ-diversity of the sensitive column over `classes`, when a sensitive column is given.
fn sensitive_diversity(
    table: Option<&Table>,
    classes: Option<&Classes>,
    params: &RiskParams,
) -> Result<Diversity, RiskError> {
    let Some(s) = params.sensitive.as_deref() else {
        return Ok(Diversity {
            l_distinct: None,
            l_entropy: None,
            summary: None,
            recursive_cl: None,
        });
    };
    let col = named_column(table, s)?;
    let d = KeyCodes::dense(col, SetCoding::Whole);
    let sens: Vec<Option<u32>> = d
        .codes
        .iter()
        .map(|&c| (c != MISSING).then_some(c))
        .collect();
    let classes = classes.ok_or_else(no_classes)?;
    let (distinct, entropy) = l_diversity(&classes.class_of, classes.sizes.len(), &sens);
    let per: Vec<Option<u32>> = classes
        .class_of
        .iter()
        .map(|&c| (c != DELETED).then(|| distinct[c as usize]))
        .collect();
    let summary = (!distinct.is_empty()).then(|| DiversitySummary {
        l_distinct_min: distinct.iter().copied().min().unwrap_or(0),
        l_entropy_min: entropy.iter().copied().fold(f64::INFINITY, f64::min),
        classes_l1: distinct.iter().filter(|&&l| l == 1).count(),
        records_l1: per.iter().filter(|l| **l == Some(1)).count(),
    });
    let per_entropy: Vec<Option<f64>> = classes
        .class_of
        .iter()
        .map(|&c| (c != DELETED).then(|| entropy[c as usize]))
        .collect();
    let recursive_cl = params.recursive_cl.map(|(c, l)| {
        let ok = recursive_cl_diversity(&classes.class_of, classes.sizes.len(), &sens, c, l);
        classes
            .class_of
            .iter()
            .map(|&k| (k != DELETED).then(|| u32::from(ok[k as usize])))
            .collect::<Vec<Option<u32>>>()
    });
    Ok(Diversity {
        l_distinct: Some(per),
        l_entropy: Some(per_entropy),
        summary,
        recursive_cl,
    })
}

/// Checks that a population size, when given, is at least the file's `n_total` records.
pub(crate) fn check_population(
    population_size: Option<f64>,
    n_total: usize,
) -> Result<(), RiskError> {
    match population_size {
        Some(big_n) if big_n < n_total as f64 => Err(RiskError::Param(format!(
            "the population size {big_n} is smaller than the file's {n_total} records"
        ))),
        _ => Ok(()),
    }
}

/// The class figures of a histogram of class sizes.
pub(crate) fn class_summary(sc: &SizeCounts, n_total: usize, params: &RiskParams) -> ClassSummary {
    let n = n_total - sc.n_deleted;
    let t = params.unique_threshold;
    let su = sc.records_at_most(1);
    let pairs = sc.classes_of_size(2);
    let theta = params
        .population_size
        .and_then(|big_n| skinner_elliot_theta(su, pairs, n as f64 / big_n));
    ClassSummary {
        n_deleted: sc.n_deleted,
        n,
        sample_uniques: su,
        k_le_5: sc.records_at_most(5),
        k_le_10: sc.records_at_most(10),
        classes_k_le_5: sc.classes_at_most(5),
        classes_k_le_10: sc.classes_at_most(10),
        pr_su_new: (n > 0).then(|| su as f64 / n as f64),
        pr_su_full: su as f64 / n_total as f64,
        min_k: sc.min(),
        classes: sc.classes(),
        pairs,
        theta,
        theta_reliable: theta.is_some() && su >= THETA_MIN_COUNT && pairs >= THETA_MIN_COUNT,
        uniques_at_threshold: sc.records_at_most(t),
        classes_at_threshold: sc.classes_at_most(t),
        encoding: sc.encoding,
    }
}

/// k-anonymity in records from the class sizes.
pub(crate) fn k_anonymity_of(sc: &SizeCounts, k: u32) -> KAnonymitySummary {
    KAnonymitySummary {
        k,
        below_k: sc.records_below(k),
        at_most_k: sc.records_at_most(k),
    }
}

/// Individual risk 1/f_k without weights, from the class sizes: a class of size f holds f
/// records of risk 1/f, so the expected re-identifications are the number of classes (counted
/// exactly, not summed from 1/f per record).
pub(crate) fn unweighted_summary(
    sc: &SizeCounts,
    n_total: usize,
    params: &RiskParams,
) -> WeightSummary {
    // Decreasing risk = increasing size; each level with its records.
    let levels: Vec<(f64, usize)> = sc
        .counts
        .iter()
        .map(|&(f, c)| (1.0 / f as f64, f as usize * c))
        .collect();
    let sum = sc.classes() as f64;
    risk_levels_summary(&levels, sum, n_total - sc.n_deleted, n_total, params, false)
}

/// Individual risk 1/n_match without weights (wildcard), from the histogram of n_match: the
/// expected re-identifications are Σ (records with n_match = m) / m over the values m.
pub(crate) fn n_match_risk_summary(
    hist: &[(u32, usize)],
    n_total: usize,
    params: &RiskParams,
) -> WeightSummary {
    let levels: Vec<(f64, usize)> = hist
        .iter()
        .map(|&(m, records)| (1.0 / m as f64, records))
        .collect();
    let sum: f64 = hist
        .iter()
        .map(|&(m, records)| records as f64 / m as f64)
        .sum();
    let counted = hist.iter().map(|&(_, records)| records).sum();
    risk_levels_summary(&levels, sum, counted, n_total, params, false)
}

/// The wildcard figures from the histogram of n_match (`(m, records)` by increasing m).
pub(crate) fn wildcard_summary_of(
    hist: &[(u32, usize)],
    n_total: usize,
    params: &RiskParams,
) -> WildcardSummary {
    let count = |lim: u32| -> usize {
        hist.iter()
            .take_while(|&&(m, _)| m <= lim)
            .map(|&(_, r)| r)
            .sum()
    };
    let n_match_2 = count(2) - count(1);
    WildcardSummary {
        n_match_1: count(1),
        n_match_le_5: count(5),
        n_match_le_10: count(10),
        pr_su: count(1) as f64 / n_total as f64,
        n_match_2,
        theta: params
            .population_size
            .and_then(|big_n| skinner_elliot_theta(count(1), n_match_2, n_total as f64 / big_n)),
        uniques_at_threshold: count(params.unique_threshold),
        incomplete_pairs: params.incomplete_pairs,
        min_k: hist.iter().find(|&&(_, r)| r > 0).map(|&(m, _)| m),
    }
}

/// k-anonymity in records from the histogram of n_match (sdcMicro's fk with missing keys).
pub(crate) fn n_match_k_anonymity(hist: &[(u32, usize)], k: u32) -> KAnonymitySummary {
    let count = |keep: &dyn Fn(u32) -> bool| -> usize {
        hist.iter()
            .filter(|&&(m, _)| keep(m))
            .map(|&(_, r)| r)
            .sum()
    };
    KAnonymitySummary {
        k,
        below_k: count(&|m| m < k),
        at_most_k: count(&|m| m <= k),
    }
}

/// The assessment under wildcard without weights from the histogram of n_match alone (no
/// per-record figures, household or sensitive column): what [`assess_coded`] reports then.
fn n_match_summary(
    hist: &[(u32, usize)],
    file: &str,
    params: &RiskParams,
    n_total: usize,
) -> Result<Assessment, RiskError> {
    check_population(params.population_size, n_total)?;
    Ok(Assessment {
        summary: Summary {
            policy: params.missing,
            keys: params.keys.clone(),
            n_total,
            unique_threshold: params.unique_threshold,
            classes: None,
            wildcard: Some(wildcard_summary_of(hist, n_total, params)),
            k_anonymity: n_match_k_anonymity(hist, params.k_anonymity),
            weights: Some(n_match_risk_summary(hist, n_total, params)),
            household: None,
            diversity: None,
            bender_r: bender_r_of(params, None, n_total, file)?,
        },
        records: RecordRisk::default(),
        warnings: Vec::new(),
    })
}

/// The risk figures from the risk levels (decreasing, each with its records), their sum (in
/// record order where the risks are per record), the records that have a risk, and whether the
/// risks came from weights.
pub(crate) fn risk_levels_summary(
    levels: &[(f64, usize)],
    sum: f64,
    counted: usize,
    n_total: usize,
    params: &RiskParams,
    weighted: bool,
) -> WeightSummary {
    let denominator = match params.global_risk_denominator {
        GlobalRiskDenominator::Counted => counted,
        GlobalRiskDenominator::All => n_total,
    };
    let threshold = threshold_of_levels(levels, params.max_global_risk, denominator);
    WeightSummary {
        expected_reidentifications: sum,
        global_risk: if denominator > 0 {
            sum / denominator as f64
        } else {
            0.0
        },
        denominator: params.global_risk_denominator,
        max_individual_risk: levels.first().map_or(0.0, |l| l.0),
        max_global_risk: params.max_global_risk,
        global_threshold: threshold,
        records_above_threshold: threshold.map_or(0, |t| {
            levels
                .iter()
                .filter(|&&(r, _)| r > t)
                .map(|&(_, c)| c)
                .sum()
        }),
        weighted,
    }
}

/// Bender's R, when its inputs are given.
pub(crate) fn bender_r_of(
    params: &RiskParams,
    class_summary: Option<&ClassSummary>,
    n_total: usize,
    file: &str,
) -> Result<Option<f64>, RiskError> {
    Ok(match (params.population_uniques, params.population_size) {
        (Some(u), Some(big_n)) => {
            let n = class_summary.map_or(n_total, |c| c.n);
            Some(bender_risk(n as f64 / big_n, u, params.intruder_share))
        }
        _ => match (params.sample_size, class_summary) {
            // The file is the population: N its records counted, n(U) its uniques.
            (Some(m), Some(c)) => {
                if m > c.n as f64 {
                    return Err(RiskError::Param(format!(
                        "sample_size {m} exceeds the {} records counted in {file}: the sample \
                         cannot be larger than the population",
                        c.n,
                    )));
                }
                Some(bender_risk(
                    m / c.n as f64,
                    c.sample_uniques as f64,
                    params.intruder_share,
                ))
            }
            _ => None,
        },
    })
}

/// Whether the class sizes alone give every figure `params` asks for (no per-record figures,
/// weights, groups, sensitive values, n_match or wildcard matching, whole-set keys).
pub fn codes_suffice(params: &RiskParams) -> bool {
    !params.per_record
        && params.missing != MissingPolicy::Wildcard
        && !params.with_n_match
        && params.weight.is_none()
        && params.group.is_none()
        && params.sensitive.is_none()
        && params.recursive_cl.is_none()
        && params.whole_sets.is_empty()
}

/// [`assess`] from the key codes alone, one [`CodeSource`] per key of `params.keys` (in that
/// order) of the file named `file` in messages: the same summary as [`assess`] on a table
/// holding those codes, with no per-record figures, counted with 8 bytes per record
/// ([`crate::sizes`]). `None` when `params` asks for more than the codes give
/// ([`codes_suffice`]) or the key space exceeds 64 bits (the caller then reads the table and
/// calls [`assess`]). Set-valued keys are the caller's to refuse (a source has one code per
/// cell).
pub fn assess_codes(
    keys: &[&dyn CodeSource],
    file: &str,
    params: &RiskParams,
) -> Option<Result<Assessment, RiskError>> {
    if !codes_suffice(params) {
        return None;
    }
    let run = || -> Result<Option<Assessment>, RiskError> {
        check_sources(params, keys.len())?;
        let n_total = keys[0].len();
        if let Some(k) = keys.iter().position(|k| k.len() != n_total) {
            return Err(RiskError::Param(format!(
                "key '{}' has {} rows, key '{}' {n_total}",
                params.keys[k],
                keys[k].len(),
                params.keys[0]
            )));
        }
        check_rows(file, n_total)?;
        sizes_assessment(keys, file, params, n_total)
    };
    run().transpose()
}

/// The parameters, and one source for each of their keys.
fn check_sources(params: &RiskParams, sources: usize) -> Result<(), RiskError> {
    params.check()?;
    check_names(&params.keys)?;
    if sources != params.keys.len() {
        return Err(RiskError::Param(format!(
            "{sources} key sources for {} keys",
            params.keys.len()
        )));
    }
    Ok(())
}

/// Whether [`assess_parts`] can give every figure `params` asks for: the class sizes alone
/// ([`codes_suffice`]), or the coded keys and the weights (wildcard matching, n_match, alpha,
/// weighted individual risk; no per-record figures, group, sensitive or whole-set columns).
pub fn parts_suffice(params: &RiskParams) -> bool {
    codes_suffice(params) || keys_suffice(params)
}

/// [`assess`] from keys read a part of the file at a time ([`PartedCodes`], a Parquet file's
/// row groups, a CSV file's chunks): the same summary, with no key column of the table ever
/// made. When the class sizes suffice ([`codes_suffice`]) no key is held whole: each part's
/// codes are combined as it is decoded ([`assess_codes`]); wildcard matching (without alpha)
/// packs every key of a row in one word as the parts are read ([`Keys::packed_from_parts`]);
/// otherwise (n_match, alpha, weighted classes) the parts are copied into the key codes
/// [`assess`] would have made of the table ([`Keys::from_parts`]); weights are the reader's
/// weight column ([`PartedCodes::column`]). `None` when `params` asks for more than the codes
/// give ([`parts_suffice`]), names a weight column the reader did not make, the class sizes'
/// key space exceeds 64 bits, or a part held values beyond the cardinalities given in advance
/// (the caller then reads the table and calls [`assess`]). The time spent decoding and coding
/// the parts goes to [`Timings::READ`], the counting to [`Timings::COUNT`].
pub fn assess_parts(
    keys: &dyn PartedCodes,
    file: &str,
    params: &RiskParams,
    timings: &mut Timings,
) -> Option<Result<Assessment, RiskError>> {
    if !parts_suffice(params) {
        return None;
    }
    let sizes = codes_suffice(params);
    let mut run = || -> Result<Option<Assessment>, RiskError> {
        // The weight column, when the reader gives it; otherwise the table's to read.
        let weight = match params.weight.as_deref() {
            Some(name) => match timings.time(Timings::READ, || keys.column(name)) {
                Some(col) => Some((name, col)),
                None => return Ok(None),
            },
            None => None,
        };
        check_sources(params, keys.nkeys())?;
        let n_total: usize = keys.part_rows().iter().sum();
        check_rows(file, n_total)?;
        if sizes {
            check_population(params.population_size, n_total)?;
            let sc = size_counts_parts(keys, params.missing, timings)?;
            return timings.time(Timings::COUNT, || sizes_summary(sc, file, params, n_total));
        }
        // Wildcard matching alone needs only each row's keys packed in one word (8 bytes a row
        // instead of 4 per key): the groups and the words come from those.
        // (a key with no observed value takes the general path below, which warns about it)
        if params.missing == MissingPolicy::Wildcard
            && params.wildcard_alpha.is_none()
            && params.incomplete_pairs == IncompletePairs::Match
            && let Some(packed) = timings.time(Timings::READ, || Keys::packed_from_parts(keys))?
            && packed.any_observed.iter().all(|&o| o)
        {
            if weight.is_none() {
                // Without weights every figure comes from the histogram of n_match.
                return timings.time(Timings::COUNT, || {
                    n_match_summary(&n_match_histogram_packed(&packed), file, params, n_total)
                        .map(Some)
                });
            }
            return timings.time(Timings::COUNT, || -> Result<_, RiskError> {
                let weights = weight
                    .map(|(name, col)| weight_values_of(col, name, file))
                    .transpose()?;
                let nm = n_match_packed(&packed, weights.as_deref());
                let coded = Coded {
                    plain: Keys {
                        codes: Vec::new(),
                        card: Vec::new(),
                        sets: Vec::new(),
                        n: n_total,
                    },
                    matched: Some(nm),
                    matching: None,
                    weights,
                    table: None,
                    file: file.to_string(),
                };
                assess_coded(coded, params).map(Some)
            });
        }
        // In the order assess checks a table: the keys' values, then the rest.
        let Some(plain) = timings.time(Timings::READ, || Keys::from_parts(keys))? else {
            return Ok(None);
        };
        timings.time(Timings::COUNT, || {
            let weights = weight
                .map(|(name, col)| weight_values_of(col, name, file))
                .transpose()?;
            let coded = Coded {
                plain,
                matched: None,
                matching: None,
                weights,
                table: None,
                file: file.to_string(),
            };
            assess_coded(coded, params).map(Some)
        })
    };
    run().transpose()
}

/// The assessment from the class sizes; `None` when the key space needs recoding.
fn sizes_assessment(
    keys: &[&dyn CodeSource],
    file: &str,
    params: &RiskParams,
    n_total: usize,
) -> Result<Option<Assessment>, RiskError> {
    check_population(params.population_size, n_total)?;
    sizes_summary(size_counts(keys, params.missing), file, params, n_total)
}

/// The assessment from the class sizes `sc` counted; `None` when they could not be counted
/// so (the key space needs recoding, or parts contradicted their statistics).
fn sizes_summary(
    sc: Result<SizeCounts, NoSizes>,
    file: &str,
    params: &RiskParams,
    n_total: usize,
) -> Result<Option<Assessment>, RiskError> {
    let sc = match sc {
        Ok(sc) => sc,
        // a key with no observed value: the general path counts it and warns
        Err(NoSizes::Recoded | NoSizes::Contradicted | NoSizes::AllMissing(_)) => return Ok(None),
    };
    let classes = class_summary(&sc, n_total, params);
    let bender_r = bender_r_of(params, Some(&classes), n_total, file)?;
    Ok(Some(Assessment {
        summary: Summary {
            policy: params.missing,
            keys: params.keys.clone(),
            n_total,
            unique_threshold: params.unique_threshold,
            k_anonymity: k_anonymity_of(&sc, params.k_anonymity),
            weights: Some(unweighted_summary(&sc, n_total, params)),
            classes: Some(classes),
            wildcard: None,
            household: None,
            diversity: None,
            bender_r,
        },
        records: RecordRisk::default(),
        warnings: Vec::new(),
    }))
}

/// Recodes the keys named in `whole_sets` as whole values (the set as one value, no masks).
fn whole_set_keys(
    table: &Table,
    params: &RiskParams,
    kd: &mut crate::keys::KeyData,
) -> Result<(), RiskError> {
    for (k, name) in params.keys.iter().enumerate() {
        if params.whole_sets.contains(name) {
            let c = KeyCodes::of(table.column(name)?, SetCoding::Whole);
            kd.codes[k] = c.codes;
            kd.card[k] = c.card;
            kd.sets[k] = None;
        }
    }
    Ok(())
}

/// The weights of a column: numeric, observed, finite and ≥ 0, else an error naming the record.
fn weight_values(table: &Table, name: &str, file: &str) -> Result<Vec<f64>, RiskError> {
    weight_values_of(table.column(name)?, name, file)
}

/// [`weight_values`] of the column `col` named `name`.
fn weight_values_of(
    col: &intruder_table::Column,
    name: &str,
    file: &str,
) -> Result<Vec<f64>, RiskError> {
    // Every cell a finite number ≥ 0 (the common case, checked in parallel): the values.
    if let ColumnData::Float(v) = col.data()
        && col.missing_count() == 0
        && v.par_iter().all(|&w| w.is_finite() && w >= 0.0)
    {
        return Ok(v.clone());
    }
    let err = |message: String| RiskError::Column {
        file: file.into(),
        column: name.into(),
        message,
    };
    if !matches!(col.data(), ColumnData::Integer(_) | ColumnData::Float(_)) {
        let bad = (0..col.len()).find(|&i| !col.is_missing(i) && col.as_f64(i).is_none());
        return Err(err(match bad {
            Some(i) => format!(
                "record {} has '{}'; a weight must be a number ≥ 0",
                i + 1,
                col.text(i).unwrap_or_default()
            ),
            None => format!("is {} but a weight must be numeric", col.kind()),
        }));
    }
    let mut out = Vec::with_capacity(col.len());
    for i in 0..col.len() {
        match col.as_f64(i) {
            None => {
                return Err(err(format!(
                    "record {} has no weight; every record needs one",
                    i + 1
                )));
            }
            Some(w) if !w.is_finite() || w < 0.0 => {
                return Err(err(format!(
                    "record {} has weight {w}; a weight must be a finite number ≥ 0",
                    i + 1
                )));
            }
            Some(w) => out.push(w),
        }
    }
    Ok(out)
}
