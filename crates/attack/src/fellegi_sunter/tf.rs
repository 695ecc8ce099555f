//! Term-frequency adjustment (Winkler 1989; as in Splink): on the exact level of a skewed
//! column, agreement on value `v` is weighed with `u(v) = tf(v)`, the share of `v` among the
//! observed values of both files, instead of the column's average `u_exact`. The adjustment
//! added to the level's weight is `log2(u_exact / tf(v))`: positive for values rarer than
//! average (a rare surname), negative for common ones. EM is run without it; it is applied at
//! prediction.

use super::compare::{MISSING, Prepared};

/// Term frequencies of one comparison's values.
#[derive(Debug, Clone, PartialEq)]
pub struct TermFrequencies {
    /// `tf(v)` by value id.
    pub tf: Vec<f64>,
}

impl TermFrequencies {
    /// Counts every observed value of both files.
    pub fn new(p: &Prepared) -> TermFrequencies {
        let mut counts = vec![0u64; p.dict.len()];
        let mut total = 0u64;
        for &id in p.a.iter().chain(p.b.iter()) {
            if id != MISSING {
                counts[id as usize] += 1;
                total += 1;
            }
        }
        let total = total.max(1) as f64;
        TermFrequencies {
            tf: counts.into_iter().map(|c| c as f64 / total).collect(),
        }
    }

    /// The weight adjustment `log2(u_exact / tf(v))` for agreement on value `id`.
    pub fn adjustment(&self, id: u32, u_exact: f64) -> f64 {
        let tf = self.tf[id as usize];
        if tf > 0.0 && u_exact > 0.0 {
            (u_exact / tf).log2()
        } else {
            0.0
        }
    }
}
