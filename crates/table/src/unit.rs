//! The unit of a figure, apart from the report so that the parameter framework (whose registry
//! entries declare their figures) and the report both use it without depending on each other.

/// What a figure counts or measures; the runner's metrics carry it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    /// A number of records, classes, pairs (a whole number).
    Count,
    /// A share in [0, 1].
    Proportion,
    /// A score or measure without a fixed scale (a weight, a distance, a risk sum, θ).
    Score,
    /// Text, a list, a flag: reported, not averaged.
    Label,
}

impl Unit {
    /// The name used in results files.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Count => "count",
            Unit::Proportion => "proportion",
            Unit::Score => "score",
            Unit::Label => "label",
        }
    }
}
