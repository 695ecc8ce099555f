//! The missing-value policies and the set-valued matching rules, shared by the risk measures,
//! the defences and the attacks (docs/METHODS.md §1.2).

use std::fmt;
use std::str::FromStr;

/// How missing key values are treated (docs/METHODS.md §1.2).
///
/// For counting (risk measures): listwise drops records missing a key before classes are
/// counted; as-value makes missing one more category; wildcard lets a missing value match
/// anything (Mulder's n_match, sdcMicro's `freqCalc` with `NA`). For linking (attacks): an
/// intruder record missing a key has no candidates and a released record missing a key is never
/// a candidate (listwise); missing matches missing only (as-value); missing matches anything, on
/// either side (wildcard).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum MissingPolicy {
    /// Records missing any key take no part (Mulder's listwise deletion; Bender's 273 → 228).
    #[default]
    Listwise,
    /// Missing is one more value of each key: it matches missing only.
    AsValue,
    /// Missing matches anything (Mulder's n_match; what sdcMicro's `freqCalc` does with `NA`).
    Wildcard,
}

impl MissingPolicy {
    /// Every policy.
    pub const ALL: [MissingPolicy; 3] = [
        MissingPolicy::Listwise,
        MissingPolicy::AsValue,
        MissingPolicy::Wildcard,
    ];

    /// The name used on the command line and in experiment files.
    pub fn as_str(self) -> &'static str {
        match self {
            MissingPolicy::Listwise => "listwise",
            MissingPolicy::AsValue => "as-value",
            MissingPolicy::Wildcard => "wildcard",
        }
    }
}

impl fmt::Display for MissingPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for MissingPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        MissingPolicy::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown missing-value policy '{s}'; expected listwise, as-value or wildcard"
                )
            })
    }
}

/// How set-valued cells (several candidate values) match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SetMatch {
    /// Two sets match when they intersect; a scalar matches a set containing it. For equivalence
    /// classes (listwise, as-value) the set as a whole is the value.
    #[default]
    Overlap,
    /// The first candidate is the record's value (Mulder's choice for his Table 2). Under the
    /// wildcard policy the query record's first candidate must be among the other record's
    /// candidates.
    First,
    /// The first candidate is the record's value on both sides: under the wildcard policy two
    /// cells match when their first candidates are equal (as if each record had the single
    /// value its first candidate names). For classes it is [`SetMatch::First`].
    FirstBoth,
}

impl SetMatch {
    /// Every rule.
    pub const ALL: [SetMatch; 3] = [SetMatch::Overlap, SetMatch::First, SetMatch::FirstBoth];

    /// The command-line name.
    pub fn as_str(self) -> &'static str {
        match self {
            SetMatch::Overlap => "overlap",
            SetMatch::First => "first",
            SetMatch::FirstBoth => "first-both",
        }
    }
}

impl fmt::Display for SetMatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SetMatch {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        SetMatch::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| {
                format!("unknown set matching '{s}'; expected overlap, first or first-both")
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_explained() {
        for p in MissingPolicy::ALL {
            assert_eq!(p.as_str().parse::<MissingPolicy>().unwrap(), p);
            assert_eq!(p.to_string(), p.as_str());
        }
        for m in SetMatch::ALL {
            assert_eq!(m.as_str().parse::<SetMatch>().unwrap(), m);
        }
        let e = "pairwise".parse::<MissingPolicy>().unwrap_err();
        assert!(e.contains("'pairwise'") && e.contains("wildcard"), "{e}");
        assert!("any".parse::<SetMatch>().unwrap_err().contains("overlap"));
        let json = serde_json::to_string(&MissingPolicy::AsValue).unwrap();
        assert_eq!(json, "\"as-value\"");
    }
}
