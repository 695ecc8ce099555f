//! Parameter types shared by several attacks: the missing-value policy (docs/METHODS.md §1.2, the
//! toolkit's one [`intruder_data::keys::MissingPolicy`]), the distances of `nearest` and `kmeans`
//! (docs/METHODS.md §2.3), and the declarations of the parameters they share in the registry
//! ([`crate::ATTACKS`]).

use intruder_table::params::{ParamKind, ParamReader, ParamSpec, Range};

use crate::error::ParamError;
use crate::keys::KeyMap;

/// How missing key values are treated (docs/METHODS.md §1.2): the one policy of the toolkit,
/// shared with the risk measures.
pub use intruder_table::keys::MissingPolicy;

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

impl Metric {
    /// The name used in parameters.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Euclidean => "euclidean",
            Self::Gower => "gower",
        }
    }
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
    /// The name used in parameters.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::JaroWinkler => "jaro-winkler",
            Self::Levenshtein => "levenshtein",
        }
    }

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

/// The distance settings of `nearest` and `kmeans`.
#[derive(Debug, Clone, PartialEq)]
pub struct DistanceParams {
    /// Missing key values: listwise or wildcard (a wildcard key contributes nothing to the
    /// distance); as-value only with the Gower metric.
    pub missing: MissingPolicy,
    /// The distance.
    pub metric: Metric,
    /// String distance for text keys.
    pub string_metric: StringMetric,
    /// z-score every numeric key (mean and standard deviation of both files pooled) before
    /// weighting (Euclidean only; Gower already scales by range).
    pub standardize: bool,
    /// Categorical keys enter the Euclidean distance as their category codes (the position of
    /// the category in the schema's order, shared by both files), as SPSS Quick Cluster treats
    /// every variable as interval scaled (Bender et al.); off, a categorical key whose labels
    /// are not numbers is an error under the Euclidean metric.
    pub category_codes: bool,
    /// Per-key weights, by the intruder's key name; keys not listed weigh 1.
    pub weights: Vec<(String, f64)>,
}

impl Default for DistanceParams {
    fn default() -> Self {
        DistanceParams {
            missing: MissingPolicy::Listwise,
            metric: Metric::Euclidean,
            string_metric: StringMetric::JaroWinkler,
            standardize: false,
            category_codes: false,
            weights: Vec::new(),
        }
    }
}

impl DistanceParams {
    /// Checks what can be checked without the data: weights finite, > 0 and named once; the
    /// missing policy meaningful for the metric.
    pub fn check(&self) -> Result<(), ParamError> {
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
        if self.metric == Metric::Euclidean && self.missing == MissingPolicy::AsValue {
            return Err(ParamError::Unsupported(AS_VALUE_EUCLIDEAN.into()));
        }
        Ok(())
    }

    /// The weight of each key (by intruder name), checking that every weighted name is a key.
    pub fn key_weights(&self, keys: &KeyMap) -> Result<Vec<f64>, ParamError> {
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

    /// Reads the distance parameters declared by the attack (`metric` and `string_metric` only
    /// when `with_metric`); problems are recorded in the reader.
    pub(crate) fn read(r: &mut ParamReader<'_>, with_metric: bool) -> DistanceParams {
        let d = DistanceParams::default();
        let missing = r.choice::<MissingPolicy>("missing").unwrap_or(d.missing);
        let (metric, string_metric) = if with_metric {
            (
                r.choice::<Metric>("metric").unwrap_or(d.metric),
                r.choice::<StringMetric>("string_metric")
                    .unwrap_or(d.string_metric),
            )
        } else {
            (d.metric, d.string_metric)
        };
        let p = DistanceParams {
            missing,
            metric,
            standardize: r.get::<bool>("standardize").unwrap_or(d.standardize),
            category_codes: r.get::<bool>("category_codes").unwrap_or(d.category_codes),
            weights: r.get::<Vec<(String, f64)>>("weights").unwrap_or_default(),
            string_metric,
        };
        if metric == Metric::Euclidean && missing == MissingPolicy::AsValue {
            r.problem("missing", AS_VALUE_EUCLIDEAN);
        }
        p
    }

    /// The parameters as reported in results (`weights` as a table).
    pub(crate) fn to_json(&self, with_metric: bool) -> serde_json::Map<String, serde_json::Value> {
        let mut m = serde_json::Map::new();
        m.insert("missing".into(), self.missing.as_str().into());
        if with_metric {
            m.insert("metric".into(), self.metric.as_str().into());
            m.insert("string_metric".into(), self.string_metric.as_str().into());
        }
        m.insert("standardize".into(), self.standardize.into());
        m.insert("category_codes".into(), self.category_codes.into());
        m.insert(
            "weights".into(),
            serde_json::Value::Object(
                self.weights
                    .iter()
                    .map(|(k, w)| (k.clone(), serde_json::Value::from(*w)))
                    .collect(),
            ),
        );
        m
    }
}

const AS_VALUE_EUCLIDEAN: &str = "missing 'as-value' has no meaning for the Euclidean distance: use listwise or wildcard (a missing key then adds nothing), or the Gower metric";

// Declarations shared by several registry entries.

/// `missing` (exact, nearest, kmeans).
pub(crate) const MISSING: ParamSpec = ParamSpec::new(
    "missing",
    ParamKind::Choice(&["listwise", "as-value", "wildcard"]),
    "missing key values: listwise (a record missing a key takes no part), as-value (missing matches missing only) or wildcard (missing matches anything)",
)
.default_value("listwise");

/// `threshold` of the attacks whose scores are not probabilities.
pub(crate) const THRESHOLD: ParamSpec = ParamSpec::new(
    "threshold",
    ParamKind::Number,
    "declare a link only when the record's best score is at least this (precision, recall, F1); absent: every record's best candidate is declared",
);

/// `metric` (nearest).
pub(crate) const METRIC: ParamSpec = ParamSpec::new(
    "metric",
    ParamKind::Choice(&["euclidean", "gower"]),
    "distance: Euclidean over numeric codes, or Gower (1971) for mixed types",
)
.default_value("euclidean");

/// `string_metric` (nearest).
pub(crate) const STRING_METRIC: ParamSpec = ParamSpec::new(
    "string_metric",
    ParamKind::Choice(&["jaro-winkler", "levenshtein"]),
    "distance of text keys: 1 − Jaro–Winkler similarity, or 1 − normalized Levenshtein similarity",
)
.default_value("jaro-winkler");

/// `standardize` (nearest, kmeans).
pub(crate) const STANDARDIZE: ParamSpec = ParamSpec::new(
    "standardize",
    ParamKind::Bool,
    "z-score every numeric key (both files pooled) before weighting (Euclidean only)",
)
.default_value("false");

/// `category_codes` (nearest, kmeans).
pub(crate) const CATEGORY_CODES: ParamSpec = ParamSpec::new(
    "category_codes",
    ParamKind::Bool,
    "Euclidean: categorical keys enter as their category codes (schema order, shared by both files), as SPSS treats every variable as interval scaled (Bender et al.)",
)
.default_value("false");

/// `weights` (nearest, kmeans).
pub(crate) const WEIGHTS: ParamSpec = ParamSpec::new(
    "weights",
    ParamKind::NumberMap,
    "per-key weights by intruder key name, e.g. { occupation = 10 }; keys not listed weigh 1",
)
.within(Range::POSITIVE);
