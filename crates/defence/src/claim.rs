//! What a defence promises about its output, and against which intruder.
//!
//! A record is safe under k-anonymity when the records an intruder cannot tell it from number at
//! least k. Which records those are depends on how the intruder treats a blanked (missing) key
//! cell, and the toolkit's attacks and risk measures use three rules ([`MatchRule`]):
//!
//! - **listwise**: a record missing any key is left out; classes are counted among the complete
//!   records (an intruder who only trusts complete records, `intruder attack --missing listwise`);
//! - **as-value**: missing is one more category; a class is a combination of visible values
//!   together with which keys are blank (a plain `GROUP BY`);
//! - **wildcard**: a missing cell matches any value, on either side (Mulder's n_match, sdcMicro's
//!   `freqCalc`).
//!
//! A defence that promises k states the rule it protects against ([`ProtectAgainst`]). The
//! default, `all`, asks for every combination of visible key values, with its blanked cells, to be
//! shared by at least k records (as-value k-anonymity). That one condition implies the other two:
//! a complete record's as-value class is its listwise class, and the records that share a
//! record's visible values and blanks are among those that match it with wildcards. It also
//! holds for every intruder who knows only some of the keys: a class can only grow when keys are
//! dropped. `wildcard` alone can be met by blanking a few cells per class that then match every
//! visible value (two blanked records make every postcode of their class "3-anonymous" while the
//! postcodes stay unique among the complete records); `listwise` alone by blanking one cell of
//! every unsafe record, which a wildcard intruder then matches.
//!
//! `wildcard` is weaker than it looks even against the wildcard intruder: the count is taken
//! inside the released file, where a blanked record matches every record that shares its
//! visible values, but an intruder who knows the target's true values rules out the records
//! whose visible values differ from them. Three men with postcodes A, B, C and the first two
//! postcodes blanked each match 3 released records, yet an intruder who knows the first man's
//! postcode finds 2 candidates. Under `all` the records of a class share their visible values
//! and blanks, so every one of them matches the intruder's query: at least k candidates whatever
//! the rule.
//!
//! A [`Claim`] is what one step promises; `intruder_eval::verdict` checks every claim of a
//! pipeline against the output with the toolkit's own exact attack, under every rule.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// A rule by which an intruder treats blanked key cells (see the [module docs](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchRule {
    /// Records missing any key are left out.
    Listwise,
    /// Missing is a category of its own.
    AsValue,
    /// Missing matches anything.
    Wildcard,
}

impl MatchRule {
    /// Every rule, in report order.
    pub const ALL: [MatchRule; 3] = [MatchRule::Listwise, MatchRule::AsValue, MatchRule::Wildcard];

    /// The name used in parameters, reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            MatchRule::Listwise => "listwise",
            MatchRule::AsValue => "as-value",
            MatchRule::Wildcard => "wildcard",
        }
    }
}

impl fmt::Display for MatchRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The intruder a k-promising defence protects against (parameter `protect_against`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProtectAgainst {
    /// Complete records in classes of at least k.
    Listwise,
    /// Every combination of visible values and blanks shared by at least k records.
    AsValue,
    /// Every record matched by at least k records when missing matches anything.
    Wildcard,
    /// Every rule at once (the as-value condition, which implies the others). The default.
    #[default]
    All,
}

/// The choices of `protect_against`, as declared in the parameters.
pub const PROTECT_AGAINST_CHOICES: &[&str] = &["all", "listwise", "as-value", "wildcard"];

impl ProtectAgainst {
    /// The name used in parameters and reports.
    pub fn name(self) -> &'static str {
        match self {
            ProtectAgainst::Listwise => "listwise",
            ProtectAgainst::AsValue => "as-value",
            ProtectAgainst::Wildcard => "wildcard",
            ProtectAgainst::All => "all",
        }
    }

    /// The rules this choice promises to hold under.
    pub fn rules(self) -> &'static [MatchRule] {
        match self {
            ProtectAgainst::Listwise => &[MatchRule::Listwise],
            // as-value classes of at least k make every complete record's listwise class at
            // least k, and wildcard matches include the as-value class
            ProtectAgainst::AsValue | ProtectAgainst::All => &MatchRule::ALL,
            ProtectAgainst::Wildcard => &[MatchRule::Wildcard],
        }
    }

    /// Whether the promise covers `rule`.
    pub fn covers(self, rule: MatchRule) -> bool {
        self.rules().contains(&rule)
    }
}

impl fmt::Display for ProtectAgainst {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ProtectAgainst {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "all" => Ok(ProtectAgainst::All),
            "listwise" => Ok(ProtectAgainst::Listwise),
            "as-value" => Ok(ProtectAgainst::AsValue),
            "wildcard" => Ok(ProtectAgainst::Wildcard),
            other => Err(format!(
                "'{other}' is not a rule; expected one of {}",
                PROTECT_AGAINST_CHOICES.join(", ")
            )),
        }
    }
}

/// What one step of a pipeline promises about its output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Claim {
    /// The step's 1-based position in the pipeline (0 until the pipeline numbers it).
    pub step: usize,
    /// The method's registry name.
    pub method: &'static str,
    /// The key variables the promise is about.
    pub keys: Vec<String>,
    /// Every record is in a class of at least `k` records on the keys.
    pub k: u32,
    /// The largest individual risk promised, when the promise is a risk threshold (risk-based
    /// suppression): without weights, risk 1/f_k, so `k` = ⌈1/threshold⌉ says the same.
    pub max_risk: Option<f64>,
    /// The sampling-weight column of a risk promise.
    pub weight: Option<String>,
    /// The rules the promise holds under.
    pub protect_against: ProtectAgainst,
}

impl Claim {
    /// A k-anonymity promise.
    pub fn k_anonymity(
        method: &'static str,
        keys: &[String],
        k: u32,
        protect_against: ProtectAgainst,
    ) -> Claim {
        Claim {
            step: 0,
            method,
            keys: keys.to_vec(),
            k,
            max_risk: None,
            weight: None,
            protect_against,
        }
    }

    /// The promise in words: `k = 3 on age, sex (against all rules)`.
    pub fn describe(&self) -> String {
        let what = match self.max_risk {
            Some(t) => format!("individual risk ≤ {t}"),
            None => format!("k = {}", self.k),
        };
        format!(
            "{what} on {} (protect_against = {})",
            self.keys.join(", "),
            self.protect_against
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_covers_every_rule_and_parses() {
        for r in MatchRule::ALL {
            assert!(ProtectAgainst::All.covers(r));
            assert!(ProtectAgainst::AsValue.covers(r));
        }
        assert!(!ProtectAgainst::Wildcard.covers(MatchRule::Listwise));
        assert!(!ProtectAgainst::Listwise.covers(MatchRule::Wildcard));
        for c in PROTECT_AGAINST_CHOICES {
            assert_eq!(c.parse::<ProtectAgainst>().unwrap().name(), *c);
        }
        assert!("none".parse::<ProtectAgainst>().is_err());
    }
}
