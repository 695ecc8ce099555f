//! Attack parameters: one plain struct shared by every registered attack, validated once before
//! any work ([`AttackConfig::check`]).

use crate::error::ParamError;

/// How missing key values are treated (METHODS.md §1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MissingPolicy {
    /// An intruder record missing any key has no candidates; a released record missing any key is
    /// never a candidate (Mulder's listwise deletion; Bender's 273 → 228).
    #[default]
    Listwise,
    /// Missing is one more value: it matches missing only.
    AsValue,
    /// Missing matches anything, on either side (Mulder's n_match rule).
    Wildcard,
}

impl MissingPolicy {
    /// Every policy.
    pub const ALL: [MissingPolicy; 3] = [Self::Listwise, Self::AsValue, Self::Wildcard];

    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Listwise => "listwise",
            Self::AsValue => "as-value",
            Self::Wildcard => "wildcard",
        }
    }
}

impl std::str::FromStr for MissingPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                format!("unknown missing policy '{s}'; expected listwise, as-value or wildcard")
            })
    }
}

/// The distance of the nearest-neighbour and k-means attacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// `sqrt(Σ_k w_k (x_k − y_k)²)` over numeric codes (optionally z-scored); string keys add
    /// `w_k · d_str²`.
    #[default]
    Euclidean,
    /// Gower (1971): `Σ_k w_k δ_k / Σ_k w_k` over keys observed on both sides, with
    /// `δ = |x − y| / range` for numbers, `[x ≠ y]` for categories, `d_str` for strings.
    Gower,
}

impl std::str::FromStr for Metric {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "euclidean" => Ok(Self::Euclidean),
            "gower" => Ok(Self::Gower),
            _ => Err(format!("unknown metric '{s}'; expected euclidean or gower")),
        }
    }
}

/// The string distance `d_str ∈ [0, 1]` used for text keys (through `strsim`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StringMetric {
    /// `1 − Jaro–Winkler similarity` (Winkler 1990).
    #[default]
    JaroWinkler,
    /// `1 − normalized Levenshtein similarity` (edit distance / length of the longer string).
    Levenshtein,
}

impl StringMetric {
    /// The distance between two strings, in [0, 1].
    pub fn distance(self, a: &str, b: &str) -> f64 {
        match self {
            Self::JaroWinkler => 1.0 - strsim::jaro_winkler(a, b),
            Self::Levenshtein => 1.0 - strsim::normalized_levenshtein(a, b),
        }
    }
}

impl std::str::FromStr for StringMetric {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "jaro-winkler" => Ok(Self::JaroWinkler),
            "levenshtein" => Ok(Self::Levenshtein),
            _ => Err(format!(
                "unknown string metric '{s}'; expected jaro-winkler or levenshtein"
            )),
        }
    }
}

/// Parameters of an attack. Each attack reads the fields it needs and ignores the rest; build it
/// with `AttackConfig::default()` and assign fields.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct AttackConfig {
    /// Missing key values (exact matching: all three; distances: listwise or wildcard, where a
    /// wildcard key contributes nothing to the distance).
    pub missing: MissingPolicy,
    /// Distance for `nearest` and `kmeans`.
    pub metric: Metric,
    /// String distance for text keys.
    pub string_metric: StringMetric,
    /// z-score every numeric key (mean and standard deviation of both files pooled) before
    /// weighting (Euclidean only; Gower already scales by range).
    pub standardize: bool,
    /// Per-key weights, by the intruder's key name; keys not listed weigh 1.
    pub weights: Vec<(String, f64)>,
    /// How many ranked candidates `nearest` keeps per intruder record beyond the ties at the best
    /// score (all of which are always kept).
    pub top_k: usize,
    /// Global one-to-one assignment (Hungarian algorithm) instead of independent nearest
    /// neighbours, as sdcMicro's `recordLinkage`.
    pub one_to_one: bool,
    /// Number of k-means clusters; `None` = one per complete intruder record (Bender et al.).
    pub clusters: Option<usize>,
    /// Seed for every random step (k-means initialisation when `clusters` is set).
    pub seed: u64,
    /// Parameters of `fellegi-sunter` (specification, threshold, EM, u sample, assignment).
    pub fellegi_sunter: crate::fellegi_sunter::FsParams,
}

impl Default for AttackConfig {
    fn default() -> Self {
        AttackConfig {
            missing: MissingPolicy::Listwise,
            metric: Metric::Euclidean,
            string_metric: StringMetric::JaroWinkler,
            standardize: false,
            weights: Vec::new(),
            top_k: 5,
            one_to_one: false,
            clusters: None,
            seed: 0,
            fellegi_sunter: Default::default(),
        }
    }
}

impl AttackConfig {
    /// Checks what can be checked without the data.
    pub fn check(&self) -> Result<(), ParamError> {
        if self.top_k == 0 {
            return Err(ParamError::TopK);
        }
        if self.clusters == Some(0) {
            return Err(ParamError::Clusters);
        }
        let mut seen = std::collections::HashSet::new();
        for (name, w) in &self.weights {
            if !(w.is_finite() && *w > 0.0) {
                return Err(ParamError::Weight {
                    name: name.clone(),
                    message: format!("expected a finite number > 0, got {w}"),
                });
            }
            if !seen.insert(name.as_str()) {
                return Err(ParamError::Weight {
                    name: name.clone(),
                    message: "given twice".into(),
                });
            }
        }
        Ok(())
    }

    /// The weight of each key (by intruder name), checking that every weighted name is a key.
    pub fn key_weights(&self, keys: &crate::KeyMap) -> Result<Vec<f64>, ParamError> {
        for (name, _) in &self.weights {
            if !keys.pairs().iter().any(|p| &p.intruder == name) {
                return Err(ParamError::Weight {
                    name: name.clone(),
                    message: format!(
                        "not a key; the keys are: {}",
                        keys.pairs()
                            .iter()
                            .map(|p| p.intruder.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                });
            }
        }
        Ok(keys
            .pairs()
            .iter()
            .map(|p| {
                self.weights
                    .iter()
                    .find(|(n, _)| n == &p.intruder)
                    .map_or(1.0, |(_, w)| *w)
            })
            .collect())
    }
}
