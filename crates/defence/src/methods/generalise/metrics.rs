//! ARX's quality models, to ARX's definitions (ARX 3.9, package `org.deidentifier.arx.metric.v2`),
//! so that one transformation scores the same in both tools. `n` is the number of records, `E`
//! an equivalence class of the transformed records (its `count` records), *outliers* the records
//! of classes that break a privacy model (suppressed, within the suppression limit), `D` the
//! number of key variables. The weighting of generalisation against suppression is ARX's
//! `gsFactor` `w ∈ [0, 1]` (default 0.5): generalisation factor `g = 1` for `w ≤ 0.5`, else
//! `1 − 2(w − 0.5)`; suppression factor `s = 2w` for `w < 0.5`, else 1. Every per-variable value
//! of `loss` and `entropy` is floored to 10 decimals, as ARX's `Metric.round` does.
//!
//! - **loss** (`MetricMDNMLoss`, Iyengar's generalised loss with ARX's domain shares): for key
//!   `d`, the share of a label is the fraction of the hierarchy's rows under it
//!   (`DomainShareMaterialized`). Sum over classes:
//!   `L_d = Σ_{E kept} |E|·share_d(E)·g + Σ_{E suppressed} (s = 1 ? |E| : |E|·share + s·(|E| − |E|·share))`,
//!   normalised `(L_d − m_d)/(n − m_d)` with `m_d = g·n / |hierarchy rows of d|`, clamped at 0;
//!   the score is the geometric mean `Π_d (L_d + 1)^{1/D} − 1` (ARX's default aggregate).
//! - **discernibility** (`MetricSDNMDiscernability`, non-monotonic): `Σ_{E kept} |E|² +
//!   Σ_{E suppressed} n·|E|`.
//! - **entropy** (`MetricMDNUNMEntropy`, non-uniform entropy, non-monotonic, summed over keys):
//!   for key `d` at level `l`, with `a_v` the records whose original value is `v` and `b_v` the
//!   records whose value generalises to the same label as `v` at level `l`:
//!   `H_d = −g·Σ_v a_v·log2(a_v/b_v)`, plus, when `S > 0` records are suppressed, for each label
//!   `u` of the suppressed records (`c_u` of them): `−s·c_u·log2(c_u/S)`. The score is `Σ_d H_d`.
//! - **aecs** (`MetricSDAECS`, average equivalence class size): `n / (K·s + [S > 0]·g)` with `K`
//!   the classes kept (ARX swaps the factors here on purpose; both are 1 by default).

use super::hierarchy::Coded;

/// A quality model (lower is better).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// ARX's Loss.
    Loss,
    /// ARX's non-monotonic discernibility.
    Discernibility,
    /// ARX's non-monotonic non-uniform entropy.
    Entropy,
    /// ARX's average equivalence class size.
    Aecs,
}

/// The names of `metric`.
pub const METRIC_CHOICES: &[&str] = &["loss", "discernibility", "entropy", "aecs"];

impl Metric {
    /// From a parameter value.
    pub fn parse(s: &str) -> Option<Metric> {
        Some(match s {
            "loss" => Metric::Loss,
            "discernibility" => Metric::Discernibility,
            "entropy" => Metric::Entropy,
            "aecs" => Metric::Aecs,
            _ => return None,
        })
    }

    /// The parameter name.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Loss => "loss",
            Metric::Discernibility => "discernibility",
            Metric::Entropy => "entropy",
            Metric::Aecs => "aecs",
        }
    }
}

/// ARX's rounding of per-variable values: floored to 10 decimals.
pub fn arx_round(x: f64) -> f64 {
    const F: f64 = 1e10;
    (x * F).floor() / F
}

/// The classes of one transformation, as the metrics read them.
pub struct ClassView<'a> {
    /// Number of keys.
    pub dims: usize,
    /// The levels of the transformation.
    pub levels: &'a [u8],
    /// Class-major codes: class `c`, key `d` at `codes[c * dims + d]` (an id at `levels[d]`).
    pub codes: &'a [u32],
    /// Records per class (0 for a class seen only in a population table).
    pub count: &'a [u32],
    /// Whether each class is suppressed.
    pub outlier: &'a [bool],
}

/// A score and what the search needs from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Score {
    /// The score (ARX's aggregate).
    pub value: f64,
    /// Per key, for the multi-dimensional metrics (loss, entropy).
    pub per_key: Vec<f64>,
}

/// A metric prepared for one data set and set of hierarchies.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The metric.
    pub metric: Metric,
    g: f64,
    s: f64,
    n: f64,
    /// Hierarchy rows per key.
    domain: Vec<f64>,
    /// `shares[d][level][id]`.
    shares: Vec<Vec<Vec<f64>>>,
    /// Loss: `Σ_records share·g` per key and level (every record kept), normalised and rounded.
    loss_bound: Vec<Vec<f64>>,
    /// Entropy: `−g·Σ_v a_v·log2(a_v/b_v)` per key and level, rounded.
    entropy_raw: Vec<Vec<f64>>,
}

impl Prepared {
    /// Prepares `metric` with ARX's `gs_factor`; `records_at[d][level][id]` counts the records
    /// whose key `d` generalises to `id` at `level` (level 0: the original values).
    pub fn new(
        metric: Metric,
        gs_factor: f64,
        dims: &[Coded],
        records_at: &[Vec<Vec<u64>>],
        n: usize,
    ) -> Prepared {
        let s = if gs_factor < 0.5 {
            2.0 * gs_factor
        } else {
            1.0
        };
        let g = if gs_factor <= 0.5 {
            1.0
        } else {
            1.0 - 2.0 * (gs_factor - 0.5)
        };
        let nf = n as f64;
        let mut p = Prepared {
            metric,
            g,
            s,
            n: nf,
            domain: dims.iter().map(|c| c.domain as f64).collect(),
            shares: dims.iter().map(|c| c.share.clone()).collect(),
            loss_bound: Vec::new(),
            entropy_raw: Vec::new(),
        };
        for (d, c) in dims.iter().enumerate() {
            let mut lb = Vec::with_capacity(c.levels);
            let mut ent = Vec::with_capacity(c.levels);
            for level in 0..c.levels {
                let at = &records_at[d][level];
                let total: f64 = at
                    .iter()
                    .enumerate()
                    .map(|(id, &k)| k as f64 * c.share[level][id])
                    .sum();
                lb.push(p.normalise_loss(total * g, d));
                // Σ over original values v with a_v > 0 of a_v·log2(a_v / b_v)
                let mut e = 0.0;
                for (id0, &a) in records_at[d][0].iter().enumerate() {
                    if a == 0 {
                        continue;
                    }
                    let b = at[c.lift(id0 as u32, 0, level) as usize];
                    let (a, b) = (a as f64, b as f64);
                    e += a * (a / b).log2();
                }
                ent.push(e * g);
            }
            p.loss_bound.push(lb);
            p.entropy_raw.push(ent);
        }
        p
    }

    fn normalise_loss(&self, aggregate: f64, d: usize) -> f64 {
        let min = self.g * self.n / self.domain[d];
        let max = self.n;
        let r = (aggregate - min) / (max - min);
        arx_round(if r >= 0.0 { r } else { 0.0 })
    }

    fn geometric_mean(values: &[f64]) -> f64 {
        let k = values.len() as f64;
        values
            .iter()
            .fold(1.0, |acc, v| acc * (v + 1.0).powf(1.0 / k))
            - 1.0
    }

    fn negate_round(x: f64) -> f64 {
        arx_round(if x == 0.0 { x } else { -x })
    }

    /// A lower bound of the score of every transformation at or above `levels`, needing no
    /// grouping; `classes_max` bounds the number of classes at `levels` (the records' distinct
    /// tuples, or the product of the keys' label counts). Loss and entropy: every record
    /// generalised, none suppressed (a suppressed record costs at least as much). Discernibility:
    /// `n² / classes_max` (`Σ|E|² ≥ n²/#classes`, and a suppressed record costs `n ≥ |E|`).
    /// AECS: `n / classes_max`. Each grows up the lattice.
    pub fn bound(&self, levels: &[u8], classes_max: f64) -> f64 {
        match self.metric {
            Metric::Loss => {
                let v: Vec<f64> = levels
                    .iter()
                    .enumerate()
                    .map(|(d, &l)| self.loss_bound[d][l as usize])
                    .collect();
                Self::geometric_mean(&v)
            }
            Metric::Entropy => levels
                .iter()
                .enumerate()
                .map(|(d, &l)| Self::negate_round(self.entropy_raw[d][l as usize]))
                .sum(),
            Metric::Discernibility => self.n * self.n / classes_max.max(1.0),
            Metric::Aecs => {
                // n / (kept·s + [suppressed]·g) ≥ n / classes when both factors are ≤ 1
                self.n / classes_max.max(1.0)
            }
        }
    }

    /// The score of a transformation.
    pub fn score(&self, view: &ClassView) -> Score {
        match self.metric {
            Metric::Loss => self.loss(view),
            Metric::Discernibility => {
                let mut dm = 0.0;
                for (c, &k) in view.count.iter().enumerate() {
                    if k == 0 {
                        continue;
                    }
                    let k = k as f64;
                    dm += if view.outlier[c] { self.n * k } else { k * k };
                }
                Score {
                    value: dm,
                    per_key: Vec::new(),
                }
            }
            Metric::Entropy => self.entropy(view),
            Metric::Aecs => {
                let (mut kept, mut all) = (0.0, 0.0);
                for (c, &k) in view.count.iter().enumerate() {
                    if k > 0 {
                        all += 1.0;
                        if !view.outlier[c] {
                            kept += 1.0;
                        }
                    }
                }
                // ARX: "factors are switched on purpose"
                let (gf, sf) = (self.s, self.g);
                let mut denom = kept * gf;
                if kept != all {
                    denom += sf;
                }
                Score {
                    value: self.n / denom,
                    per_key: Vec::new(),
                }
            }
        }
    }

    fn loss(&self, view: &ClassView) -> Score {
        let dims = view.dims;
        let mut agg = vec![0.0; dims];
        for (c, &k) in view.count.iter().enumerate() {
            if k == 0 {
                continue;
            }
            let k = k as f64;
            for d in 0..dims {
                let id = view.codes[c * dims + d] as usize;
                let share = k * self.shares[d][view.levels[d] as usize][id];
                agg[d] += if !view.outlier[c] {
                    share * self.g
                } else if self.s == 1.0 {
                    k
                } else {
                    share + self.s * (k - share)
                };
            }
        }
        let per_key: Vec<f64> = (0..dims).map(|d| self.normalise_loss(agg[d], d)).collect();
        Score {
            value: Self::geometric_mean(&per_key),
            per_key,
        }
    }

    fn entropy(&self, view: &ClassView) -> Score {
        let dims = view.dims;
        let mut raw: Vec<f64> = (0..dims)
            .map(|d| self.entropy_raw[d][view.levels[d] as usize])
            .collect();
        let suppressed: f64 = view
            .count
            .iter()
            .zip(view.outlier)
            .filter(|(_, o)| **o)
            .map(|(&k, _)| k as f64)
            .sum();
        if suppressed != 0.0 {
            // per key, the suppressed records of each label, in label order
            let mut by_label: Vec<f64> = Vec::new();
            for (d, r) in raw.iter_mut().enumerate() {
                by_label.clear();
                for (c, &k) in view.count.iter().enumerate() {
                    if view.outlier[c] && k > 0 {
                        let id = view.codes[c * dims + d] as usize;
                        if by_label.len() <= id {
                            by_label.resize(id + 1, 0.0);
                        }
                        by_label[id] += k as f64;
                    }
                }
                for &count in by_label.iter().filter(|&&x| x > 0.0) {
                    *r += count * (count / suppressed).log2() * self.s;
                }
            }
        }
        let per_key: Vec<f64> = raw.into_iter().map(Self::negate_round).collect();
        Score {
            value: per_key.iter().sum(),
            per_key,
        }
    }
}
