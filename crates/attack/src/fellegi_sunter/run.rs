//! A finished run: the model, the scored candidate pairs and the linkage, with the
//! explanations a user asks of it afterwards (a pair's weight breakdown, the scored pairs as a
//! file).

use std::io::Write;
use std::path::Path;

use intruder_table::write_atomically;

use super::compare::Prepared;
use super::kernel::{CandidatePairs, Scorer};
use super::report::{FsModel, Waterfall, WaterfallStep};
use super::{probability_of_weight, weight_of_probability};
use crate::error::{AttackError, ParamError};
use crate::linkage::Linkage;

/// Everything a run produced: the model, the scored candidate pairs and the linkage.
#[derive(Debug, Clone)]
pub struct FsRun {
    /// The fitted model (the explanation).
    pub model: FsModel,
    /// The linkage handed to the evaluator (scores are match weights).
    pub linkage: Linkage,
    /// The candidate pairs, grouped by intruder record, each record's best first.
    pub(crate) candidates: CandidatePairs,
    /// Levels of each pattern (by pattern index).
    pub(crate) pattern_levels: Vec<Vec<u8>>,
    pub(crate) scorer: Scorer,
    /// Intruder and released records of the run.
    pub(crate) dims: (usize, usize),
    pub(crate) prepared: Vec<Prepared>,
    pub(crate) level_weights: Vec<Vec<f64>>,
}

/// A scored candidate pair.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoredPair {
    /// Intruder row (0-based).
    pub intruder: usize,
    /// Released row (0-based).
    pub released: usize,
    /// Index of its agreement pattern ([`FsRun::pattern_levels`]).
    pub pattern: usize,
    /// Match weight.
    pub weight: f64,
}

impl FsRun {
    /// Every candidate pair with its weight, by intruder row, each record's pairs best first
    /// (weight descending, then released row).
    pub fn pairs(&self) -> impl Iterator<Item = ScoredPair> + '_ {
        self.candidates.iter().map(|(i, j, p)| ScoredPair {
            intruder: i,
            released: j as usize,
            pattern: p as usize,
            weight: self.scorer.weight(i, p),
        })
    }

    /// The match weights of [`pairs`](Self::pairs), in that order.
    pub fn weights(&self) -> Vec<f64> {
        self.pairs().map(|p| p.weight).collect()
    }

    /// Number of candidate pairs.
    pub fn candidate_count(&self) -> usize {
        self.model.candidate_pairs
    }

    /// The level of each comparison in pattern `p` (index into the comparison's levels).
    pub fn pattern_levels(&self, p: usize) -> &[u8] {
        &self.pattern_levels[p]
    }

    /// The weight of a pair given its levels: `(prior + Σ level weights) + Σ term-frequency
    /// adjustments` (the kernel's order of summation), and each comparison's adjustment.
    pub(crate) fn weight_of(&self, i: usize, levels: &[u8]) -> (f64, Vec<f64>) {
        let mut w = self.model.prior_weight;
        for (k, &l) in levels.iter().enumerate() {
            w += self.level_weights[k][l as usize];
        }
        let mut adj = vec![0.0; levels.len()];
        for (k, &l) in levels.iter().enumerate() {
            if let Some(t) = &self.scorer.tf[k]
                && Some(l as usize) == self.prepared[k].exact_level()
            {
                adj[k] = t[self.prepared[k].a[i] as usize];
                w += adj[k];
            }
        }
        (w, adj)
    }

    /// The weight breakdown of intruder row `i` and released row `j` (0-based), whether or
    /// not blocking made them a candidate pair.
    pub fn explain_pair(&self, i: usize, j: usize) -> Result<Waterfall, AttackError> {
        check_pair(self.dims, (i, j))?;
        let levels: Vec<u8> = self
            .prepared
            .iter()
            .map(|p| p.level(i, j, &mut foldhash::HashMap::default()))
            .collect();
        let (total, adj) = self.weight_of(i, &levels);
        let mut cum = self.model.prior_weight;
        let steps = levels
            .iter()
            .enumerate()
            .map(|(k, &l)| {
                let p = &self.prepared[k];
                let w = self.level_weights[k][l as usize];
                cum += w + adj[k];
                WaterfallStep {
                    comparison: p.spec.column.clone(),
                    intruder_value: p.value(p.a[i]).map(str::to_string),
                    released_value: p.value(p.b[j]).map(str::to_string),
                    level: p.spec.levels[l as usize].label(),
                    weight: w,
                    tf_adjustment: adj[k],
                    cumulative: cum,
                }
            })
            .collect();
        let candidate = self.candidates.of(i).0.contains(&(j as u32));
        Ok(Waterfall {
            intruder_row: i,
            released_row: j,
            candidate,
            prior_weight: self.model.prior_weight,
            steps,
            match_weight: total,
            match_probability: probability_of_weight(total),
        })
    }

    /// Writes `id_intruder,id_released,match_weight,match_probability` for every candidate pair
    /// with match probability ≥ `floor`, best first; `intruder_id(i)` and `released_id(j)` name
    /// the records of (0-based) rows `i` and `j`. Whole or not at all.
    pub fn write_pairs(
        &self,
        path: &Path,
        intruder_id: &dyn Fn(usize) -> String,
        released_id: &dyn Fn(usize) -> String,
        floor: f64,
    ) -> Result<usize, AttackError> {
        let fw = floor_weight(floor)?;
        let mut keep: Vec<ScoredPair> = self.pairs().filter(|p| p.weight >= fw).collect();
        keep.sort_by(|a, b| {
            b.weight
                .total_cmp(&a.weight)
                .then(a.intruder.cmp(&b.intruder))
                .then(a.released.cmp(&b.released))
        });
        let rows = keep.iter().map(|p| Ok((p.intruder, p.released, p.weight)));
        write_scored_pairs(path, rows, intruder_id, released_id)
    }
}

/// Whether intruder row `i` and released row `j` (0-based) are rows of the files of `dims`
/// records, for a pair to explain.
pub fn check_pair((ni, nr): (usize, usize), (i, j): (usize, usize)) -> Result<(), AttackError> {
    if i >= ni || j >= nr {
        return Err(ParamError::Unsupported(format!(
            "explain pair: row {} / {} is outside the files ({ni} intruder and {nr} released records)",
            i + 1,
            j + 1
        ))
        .into());
    }
    Ok(())
}

/// The match weight of a `--pairs-out` floor (a match probability; 0: every pair).
pub fn floor_weight(floor: f64) -> Result<f64, AttackError> {
    if !(0.0..=1.0).contains(&floor) {
        return Err(ParamError::Unsupported(format!(
            "pairs floor {floor} is not a probability in [0, 1]"
        ))
        .into());
    }
    Ok(if floor > 0.0 {
        weight_of_probability(floor)
    } else {
        f64::NEG_INFINITY
    })
}

/// Writes `id_intruder,id_released,match_weight,match_probability` for each `(intruder row,
/// released row, weight)` in the order given (the closures name the records of rows), the file
/// whole or not at all; returns the number of pairs written.
pub fn write_scored_pairs(
    path: &Path,
    pairs: impl Iterator<Item = Result<(usize, usize, f64), AttackError>>,
    intruder_id: &dyn Fn(usize) -> String,
    released_id: &dyn Fn(usize) -> String,
) -> Result<usize, AttackError> {
    let mut n = 0usize;
    let mut failed: Option<AttackError> = None;
    write_atomically(path, |w| {
        writeln!(w, "id_intruder,id_released,match_weight,match_probability")?;
        for p in pairs {
            let (i, j, weight) = match p {
                Ok(p) => p,
                Err(e) => {
                    failed = Some(e);
                    return Err(std::io::Error::other("the scored pairs could not be read"));
                }
            };
            let q = |s: String| {
                if s.contains([',', '"', '\n']) {
                    format!("\"{}\"", s.replace('"', "\"\""))
                } else {
                    s
                }
            };
            writeln!(
                w,
                "{},{},{},{}",
                q(intruder_id(i)),
                q(released_id(j)),
                weight,
                probability_of_weight(weight)
            )?;
            n += 1;
        }
        Ok(())
    })
    .map_err(|e| failed.take().unwrap_or_else(|| e.into()))?;
    Ok(n)
}
