//! Term-frequency adjustment (Winkler 1989; as in Splink): on the exact level of a skewed
//! column, agreement on value `v` is weighed with `u(v) = tf(v)`, the share of `v` among the
//! observed values of both files, instead of the column's average `u_exact`. The adjustment
//! added to the level's weight is `log2(u_exact / tf(v))`: positive for values rarer than
//! average (a rare surname), negative for common ones. EM is run without it; it is applied at
//! prediction.

use super::compare::{MISSING, Prepared};

/// The records of each file holding each value of a comparison (by value id), and the
/// records missing it: what u from the values' frequencies and the term frequencies read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ValueCounts {
    /// Intruder records per value id.
    pub a: Vec<u64>,
    /// Released records per value id.
    pub b: Vec<u64>,
}

impl ValueCounts {
    /// Counts the records of a comparison prepared on the two files.
    pub fn of(p: &Prepared) -> ValueCounts {
        let count = |ids: &[u32]| {
            let mut v = vec![0u64; p.dict.len()];
            for &id in ids.iter().filter(|&&id| id != MISSING) {
                v[id as usize] += 1;
            }
            v
        };
        ValueCounts {
            a: count(&p.a),
            b: count(&p.b),
        }
    }
}

/// Term frequencies of one comparison's values.
#[derive(Debug, Clone, PartialEq)]
pub struct TermFrequencies {
    /// `tf(v)` by value id.
    pub tf: Vec<f64>,
}

impl TermFrequencies {
    /// Counts every observed value of both files.
    pub fn new(p: &Prepared) -> TermFrequencies {
        Self::of_counts(&ValueCounts::of(p))
    }

    /// From the records of each file holding each value.
    pub fn of_counts(v: &ValueCounts) -> TermFrequencies {
        let counts: Vec<u64> = v.a.iter().zip(&v.b).map(|(x, y)| x + y).collect();
        let total = counts.iter().sum::<u64>().max(1) as f64;
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
