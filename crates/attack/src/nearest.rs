//! Distance-based nearest-neighbour linkage (Bender, Brand & Bacher 2001, the "simple distance
//! criterion"; distance-based record linkage, DBRL, in the SDC literature).
//!
//! For each intruder record, every released record is scored by `−d(i, r)` where `d` is the
//! Euclidean distance over the keys (numeric codes, raw or z-scored with the two files pooled,
//! weighted per key: `d² = Σ_k w_k (x_k − y_k)²`) or Gower's distance for mixed types; text keys
//! go through a string metric (Jaro–Winkler or normalized Levenshtein via `strsim`). The
//! candidates kept are every released record tied at the smallest distance plus the next ones up
//! to `top_k`, exact, never approximated (docs/METHODS.md §2.3).
//!
//! - **Twins only vs whole file.** Bender et al. searched among the 273 twins only (the intruder
//!   knows who responded to both: about 10% of twins at the smallest distance) and among all
//!   19,355 register records (under 0.5%). Restricting the released file to the twins needs the
//!   ground truth, so it is done next to the evaluator (`intruder_eval::Labelled::twins_only`, the
//!   `twins_only` parameter) before the attack, never by the attack; the attack always searches
//!   the file it is given.
//! - **One-to-one.** With `one_to_one`, the candidates come from a global minimum-total-distance
//!   assignment (Hungarian algorithm, [`crate::hungarian`]) as sdcMicro's `recordLinkage`: each
//!   intruder record gets at most one released record and no released record is used twice.
//!   O(n²·m) with the whole n × m matrix in memory: refused above
//!   [`crate::hungarian::MAX_CELLS`] cells (5,000 × 5,000).
//! - **Speed.** All-numeric Euclidean keys without missing values (or listwise) use the blocked
//!   SIMD kernel of [`crate::knn`]; other combinations use a straightforward parallel scan.

use intruder_table::Table;
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec, Range};
use rayon::prelude::*;

use crate::config::{
    CATEGORY_CODES, DistanceParams, METRIC, MISSING, STANDARDIZE, STRING_METRIC, THRESHOLD, WEIGHTS,
};
use crate::distance::Prepared;
use crate::error::{AttackError, ParamError};
use crate::linkage::{Candidate, Candidates, Linkage};
use crate::{Attack, Knowledge, Linked, hungarian, knn};

/// The checked parameters of `nearest`.
#[derive(Debug, Clone, PartialEq)]
pub struct NearestParams {
    /// Distance, missing values, standardisation, weights.
    pub distance: DistanceParams,
    /// How many ranked candidates are kept per intruder record beyond the ties at the best score
    /// (all of which are always kept); ≥ 1.
    pub top_k: usize,
    /// Global one-to-one assignment (Hungarian algorithm) instead of independent nearest
    /// neighbours, as sdcMicro's `recordLinkage`.
    pub one_to_one: bool,
    /// Links are declared at a best score (−distance) ≥ this.
    pub threshold: Option<f64>,
}

impl Default for NearestParams {
    fn default() -> Self {
        NearestParams {
            distance: DistanceParams::default(),
            top_k: 5,
            one_to_one: false,
            threshold: None,
        }
    }
}

/// The parameters of `nearest` in the registry.
pub(crate) static PARAMS: &[ParamSpec] = &[
    MISSING,
    METRIC,
    STRING_METRIC,
    STANDARDIZE,
    CATEGORY_CODES,
    WEIGHTS,
    ParamSpec::new(
        "top_k",
        ParamKind::Integer,
        "ranked candidates kept per record beyond the ties at the smallest distance (all kept)",
    )
    .default_value("5")
    .within(Range::at_least(1.0)),
    ParamSpec::new(
        "one_to_one",
        ParamKind::Bool,
        "global one-to-one assignment minimising the total distance (Hungarian algorithm; at most 5,000 × 5,000 records)",
    )
    .default_value("false"),
    THRESHOLD,
];

/// The registry entry (`ATTACKS`).
pub const ENTRY: Entry<dyn Attack> = Entry {
    name: "nearest",
    summary: "nearest-neighbour distance linkage: Euclidean (raw/z-scored, weighted) or Gower, strings via Jaro-Winkler/Levenshtein; optional one-to-one",
    reference: "Bender, Brand & Bacher 2001 (distance criterion); sdcMicro recordLinkage",
    params: PARAMS,
    figures: &[],
    build: Nearest::build,
};

/// Nearest-neighbour distance linkage; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct Nearest {
    params: NearestParams,
}

impl Nearest {
    /// The attack with checked parameters.
    pub fn new(params: NearestParams) -> Result<Self, ParamError> {
        params.distance.check()?;
        if params.top_k == 0 {
            return Err(ParamError::Unsupported(
                "top_k: the number of ranked candidates kept must be at least 1".into(),
            ));
        }
        Ok(Nearest { params })
    }

    /// The parameters.
    pub fn params(&self) -> &NearestParams {
        &self.params
    }

    /// Reads the parameters declared in [`PARAMS`].
    pub(crate) fn build(r: &mut ParamReader<'_>) -> Option<Box<dyn Attack>> {
        let d = NearestParams::default();
        let params = NearestParams {
            distance: DistanceParams::read(r, true),
            top_k: r.get::<usize>("top_k").unwrap_or(d.top_k),
            one_to_one: r.get::<bool>("one_to_one").unwrap_or(d.one_to_one),
            threshold: r.get::<f64>("threshold"),
        };
        if !r.ok() {
            return None;
        }
        match Nearest::new(params) {
            Ok(a) => Some(Box::new(a)),
            Err(e) => {
                r.table_problem(e);
                None
            }
        }
    }
}

/// Ranked candidates from `(rank key, row)` pairs sorted by key then row; ranks come from the
/// keys themselves, scores are `−finish(key)`.
pub(crate) fn from_sorted_keys(pairs: &[(f64, usize)], finish: impl Fn(f64) -> f64) -> Candidates {
    let mut list = Vec::with_capacity(pairs.len());
    let mut rank = 1u32;
    for (i, &(d, row)) in pairs.iter().enumerate() {
        if i > 0 && d != pairs[i - 1].0 {
            rank = i as u32 + 1;
        }
        list.push(Candidate {
            row,
            score: -finish(d),
            rank,
        });
    }
    Candidates { list, unlisted: 0 }
}

/// Keeps the ties at the best distance plus up to `k` in total, from a full list.
fn cut(mut all: Vec<(f64, usize)>, k: usize) -> Vec<(f64, usize)> {
    all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let best = all.first().map_or(f64::INFINITY, |x| x.0);
    let ties = all.iter().take_while(|x| x.0 == best).count();
    all.truncate(ties.max(k));
    all
}

impl Attack for Nearest {
    fn name(&self) -> &'static str {
        "nearest"
    }

    fn declared_threshold(&self) -> Option<f64> {
        self.params.threshold
    }

    fn params(&self) -> serde_json::Map<String, serde_json::Value> {
        let mut m = self.params.distance.to_json(true);
        m.insert("top_k".into(), self.params.top_k.into());
        m.insert("one_to_one".into(), self.params.one_to_one.into());
        m.insert("threshold".into(), self.params.threshold.into());
        m
    }

    fn link(
        &self,
        knowledge: &Knowledge,
        released: &Table,
        _seed: u64,
    ) -> Result<Linked, AttackError> {
        let (intruder, keys) = (knowledge.table(), knowledge.keys());
        let prep = Prepared::new(intruder, released, keys, &self.params.distance)?;
        let (ni, nr) = (prep.ni, prep.nr);
        let active_i: Vec<usize> = (0..ni).filter(|&i| prep.active(i, false)).collect();
        let active_r: Vec<usize> = (0..nr).filter(|&r| prep.active(r, true)).collect();
        let mut records = vec![Candidates::default(); ni];

        if self.params.one_to_one {
            let (n, m) = (active_i.len(), active_r.len());
            if n.saturating_mul(m) > hungarian::MAX_CELLS {
                return Err(ParamError::Unsupported(format!(
                    "one-to-one assignment of {n} × {m} records needs the whole {n} × {m} distance matrix and O(n²·m) time; it is limited to {} cells (5,000 × 5,000): restrict the files (e.g. twins only) or drop one-to-one",
                    hungarian::MAX_CELLS
                ))
                .into());
            }
            let cost: Vec<f64> = active_i
                .par_iter()
                .flat_map_iter(|&i| active_r.iter().map(move |&r| (i, r)))
                .map(|(i, r)| prep.distance(i, r))
                .collect();
            if let Some(p) = cost.iter().position(|c| !c.is_finite()) {
                return Err(AttackError::Column {
                    file: released.source().to_string(),
                    name: keys
                        .pairs()
                        .iter()
                        .map(|p| p.released.as_str())
                        .collect::<Vec<_>>()
                        .join(","),
                    message: format!(
                        "no key is observed in both intruder record {} and released record {}: one-to-one assignment needs a distance for every pair (use listwise)",
                        active_i[p / m] + 1,
                        active_r[p % m] + 1
                    ),
                });
            }
            let a = hungarian::assign(&cost, n, m);
            for (ii, col) in a.into_iter().enumerate() {
                if let Some(c) = col {
                    let d = cost[ii * m + c];
                    records[active_i[ii]] = from_sorted_keys(&[(d, active_r[c])], |x| x);
                }
            }
        } else if prep.dense_ok() {
            let (x, xr, y, yr) = prep.dense();
            // Never more candidates than released records (a huge top_k allocates nothing).
            let res = knn::knn(&x, &y, self.params.top_k.min(nr.max(1)));
            for (qi, list) in res.into_iter().enumerate() {
                // Ranks from the squared distances themselves (a square root could merge two
                // distinct values); scores are −distance.
                let mut c = Candidates {
                    list: Vec::with_capacity(list.len()),
                    unlisted: 0,
                };
                let mut rank = 1u32;
                for (n, &(d2, r)) in list.iter().enumerate() {
                    if n > 0 && d2 != list[n - 1].0 {
                        rank = n as u32 + 1;
                    }
                    c.list.push(Candidate {
                        row: yr[r as usize],
                        score: -d2.sqrt(),
                        rank,
                    });
                }
                records[xr[qi]] = c;
            }
        } else {
            let k = self.params.top_k.min(nr.max(1));
            let lists: Vec<(usize, Candidates)> = active_i
                .par_iter()
                .map(|&i| {
                    let all: Vec<(f64, usize)> = active_r
                        .iter()
                        .map(|&r| (prep.rank_key(i, r), r))
                        .filter(|p| !p.0.is_nan())
                        .collect();
                    (i, from_sorted_keys(&cut(all, k), |x| prep.finish(x)))
                })
                .collect();
            for (i, c) in lists {
                records[i] = c;
            }
        }
        Ok(Linked::from(Linkage {
            method: "nearest".into(),
            scored: true,
            complete: false,
            released_rows: nr,
            records,
            notes: vec![
                ("intruder_records_used".into(), active_i.len() as f64),
                ("released_records_used".into(), active_r.len() as f64),
            ],
            lister: None,
        }))
    }
}
