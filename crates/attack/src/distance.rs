//! Distances between intruder and released records over the keys (docs/METHODS.md §2.3), prepared
//! once for `nearest` and `kmeans`.

use intruder_table::keys::{KeyCodes, MISSING, PairSpec, SetMasks, encode_pair};
use intruder_table::{Column, Kind, Table};

use crate::config::{DistanceParams, Metric, MissingPolicy, StringMetric};
use crate::error::AttackError;
use crate::keys::{Domain, KeyMap, ResolvedKey, resolve};

/// How one key enters the distance.
#[derive(Debug, Clone)]
pub(crate) enum Comp {
    /// Numbers (NaN = missing), already centred/scaled when standardising.
    Num {
        x: Vec<f64>,
        y: Vec<f64>,
        range: f64,
    },
    /// Categories compared for equality (sets by overlap), coded with one dictionary for both
    /// files ([`intruder_data::keys::encode_pair`]).
    Cat { x: KeyCodes, y: KeyCodes },
    /// Text through a string metric.
    Str {
        x: Vec<Option<String>>,
        y: Vec<Option<String>>,
    },
}

/// The keys of both files prepared for distance computations.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub comps: Vec<Comp>,
    pub weights: Vec<f64>,
    pub metric: Metric,
    pub string_metric: StringMetric,
    pub missing: MissingPolicy,
    pub ni: usize,
    pub nr: usize,
}

fn numbers(
    c: &Column,
    recode: Option<&std::collections::HashMap<String, String>>,
) -> Option<Vec<f64>> {
    let mut out = Vec::with_capacity(c.len());
    for i in 0..c.len() {
        if c.is_missing(i) {
            out.push(f64::NAN);
            continue;
        }
        let v = match recode {
            Some(r) => {
                let t = c.text(i)?;
                let t = r
                    .get(t.as_ref())
                    .map_or(t.as_ref(), |s| s.as_str())
                    .to_string();
                t.trim().parse::<f64>().ok()?
            }
            None => c.as_f64(i)?,
        };
        out.push(v);
    }
    Some(out)
}

fn texts(
    c: &Column,
    recode: Option<&std::collections::HashMap<String, String>>,
) -> Vec<Option<String>> {
    (0..c.len())
        .map(|i| {
            c.text(i)
                .map(|t| match recode.and_then(|r| r.get(t.as_ref())) {
                    Some(s) => s.clone(),
                    None => t.into_owned(),
                })
        })
        .collect()
}

fn comp_of(
    key: &ResolvedKey<'_>,
    metric: Metric,
    category_codes: bool,
) -> Result<Comp, AttackError> {
    let (ic, rc) = (key.intruder, key.released);
    let recode = key.pair.recode.as_ref();
    let is_str = ic.kind() == Kind::String || rc.kind() == Kind::String;
    let is_set = ic.kind() == Kind::Set || rc.kind() == Kind::Set;
    if is_str && !matches!(key.domain, Domain::Number) {
        return Ok(Comp::Str {
            x: texts(ic, recode),
            y: texts(rc, None),
        });
    }
    if !is_set && let (Some(x), Some(y)) = (numbers(ic, recode), numbers(rc, None)) {
        // An observed cell that reads as NaN or ±inf ("NaN", "inf", "1e999") is not a
        // distance: refuse it, naming the file, the row and the value (a missing value is an
        // empty cell or a missing token).
        for (c, v, name, side) in [
            (ic, &x, &key.pair.intruder, "intruder"),
            (rc, &y, &key.pair.released, "released"),
        ] {
            if let Some(i) = (0..c.len()).find(|&i| !c.is_missing(i) && !v[i].is_finite()) {
                return Err(AttackError::Column {
                    file: side.to_string(),
                    name: name.clone(),
                    message: format!(
                        "row {} holds '{}', which is not a finite number; distances need finite numbers (leave the cell empty, or use a missing token, for a missing value)",
                        i + 1,
                        c.text(i).unwrap_or_default()
                    ),
                });
            }
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for &v in x.iter().chain(&y) {
            if v.is_nan() {
                continue;
            }
            lo = lo.min(v);
            hi = hi.max(v);
        }
        let range = if hi > lo { hi - lo } else { 0.0 };
        return Ok(Comp::Num { x, y, range });
    }
    if metric == Metric::Euclidean && category_codes && !is_set {
        // The shared category codes as numbers (missing = NaN).
        let (x, y) = encode_pair(&PairSpec {
            intruder: key.intruder,
            released: key.released,
            domain: key.domain,
            recode,
        });
        let num = |k: &KeyCodes| -> Vec<f64> {
            k.codes
                .iter()
                .map(|&c| if c == MISSING { f64::NAN } else { f64::from(c) })
                .collect()
        };
        let (x, y) = (num(&x), num(&y));
        let (lo, hi) = x
            .iter()
            .chain(&y)
            .filter(|v| !v.is_nan())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
                (l.min(v), h.max(v))
            });
        let range = if hi > lo { hi - lo } else { 0.0 };
        return Ok(Comp::Num { x, y, range });
    }
    if metric == Metric::Euclidean {
        return Err(AttackError::Column {
            file: String::new(),
            name: key.pair.intruder.clone(),
            message: format!(
                "is {} with labels that are not numbers{}: the Euclidean distance needs numeric codes; use the Gower metric for categorical keys, or category_codes = true",
                ic.kind(),
                intruder_table::params::not_a_number_note(ic)
            ),
        });
    }
    let (x, y) = encode_pair(&PairSpec {
        intruder: key.intruder,
        released: key.released,
        domain: key.domain,
        recode,
    });
    Ok(Comp::Cat { x, y })
}

/// Whether observed cell `i` of the intruder's key `x` and cell `j` of the released key `y` agree:
/// equal codes, or, for set-valued keys, candidates in common.
#[inline]
fn categories_meet(x: &KeyCodes, i: usize, y: &KeyCodes, j: usize) -> bool {
    match (&x.sets, &y.sets) {
        (Some(a), Some(b)) => SetMasks::overlap(a.query(i), b.stored(j)),
        _ => x.codes[i] == y.codes[j],
    }
}

impl Prepared {
    pub fn new(
        intruder: &Table,
        released: &Table,
        keys: &KeyMap,
        cfg: &DistanceParams,
    ) -> Result<Self, AttackError> {
        cfg.check()?;
        let weights = cfg.key_weights(keys)?;
        let resolved = resolve(intruder, released, keys)?;
        let mut comps = Vec::with_capacity(resolved.len());
        for k in &resolved {
            let c = comp_of(k, cfg.metric, cfg.category_codes).map_err(|e| match e {
                AttackError::Column {
                    file,
                    name,
                    message,
                    ..
                } => AttackError::Column {
                    file: match file.as_str() {
                        "intruder" => intruder.source().to_string(),
                        "released" => released.source().to_string(),
                        _ => format!("{} / {}", intruder.source(), released.source()),
                    },
                    name,
                    message,
                },
                other => other,
            })?;
            comps.push(c);
        }
        if cfg.standardize && cfg.metric == Metric::Euclidean {
            for c in &mut comps {
                if let Comp::Num { x, y, range } = c {
                    let (mut n, mut s, mut ss) = (0.0f64, 0.0f64, 0.0f64);
                    for &v in x.iter().chain(y.iter()) {
                        if !v.is_nan() {
                            n += 1.0;
                            s += v;
                        }
                    }
                    let mean = if n > 0.0 { s / n } else { 0.0 };
                    for &v in x.iter().chain(y.iter()) {
                        if !v.is_nan() {
                            ss += (v - mean) * (v - mean);
                        }
                    }
                    let sd = if n > 1.0 {
                        (ss / (n - 1.0)).sqrt()
                    } else {
                        0.0
                    };
                    let scale = if sd > 0.0 { 1.0 / sd } else { 1.0 };
                    for v in x.iter_mut().chain(y.iter_mut()) {
                        *v = (*v - mean) * scale;
                    }
                    *range *= scale;
                }
            }
        }
        // Euclidean weights enter as sqrt(w) scaling of the coordinates, so that the dense
        // kernel and the general path sum exactly the same squares.
        if cfg.metric == Metric::Euclidean {
            for (c, w) in comps.iter_mut().zip(&weights) {
                if let Comp::Num { x, y, range } = c {
                    let s = w.sqrt();
                    if s != 1.0 {
                        x.iter_mut().chain(y.iter_mut()).for_each(|v| *v *= s);
                        *range *= s;
                    }
                }
            }
        }
        Ok(Prepared {
            comps,
            weights,
            metric: cfg.metric,
            string_metric: cfg.string_metric,
            missing: cfg.missing,
            ni: intruder.nrows(),
            nr: released.nrows(),
        })
    }

    /// Whether key `k` of intruder record `i` (or released record `j`) is missing.
    fn missing_at(&self, k: usize, row: usize, released: bool) -> bool {
        match &self.comps[k] {
            Comp::Num { x, y, .. } => if released { y[row] } else { x[row] }.is_nan(),
            Comp::Cat { x, y } => if released { y } else { x }.is_missing(row),
            Comp::Str { x, y } => if released { &y[row] } else { &x[row] }.is_none(),
        }
    }

    /// Whether a record takes part: under listwise, only records with every key observed.
    pub fn active(&self, row: usize, released: bool) -> bool {
        self.missing != MissingPolicy::Listwise
            || (0..self.comps.len()).all(|k| !self.missing_at(k, row, released))
    }

    /// True when every key is numeric, the metric Euclidean and no active record has a missing
    /// key: the fast dense kernel applies.
    pub fn dense_ok(&self) -> bool {
        self.metric == Metric::Euclidean
            && self.comps.iter().all(|c| matches!(c, Comp::Num { .. }))
            && (self.missing == MissingPolicy::Listwise
                || (0..self.comps.len()).all(|k| match &self.comps[k] {
                    Comp::Num { x, y, .. } => !x.iter().chain(y).any(|v| v.is_nan()),
                    _ => false,
                }))
    }

    /// Row-major matrices of the active records, each value already times `sqrt(w_k)`, so the plain
    /// squared Euclidean distance between rows is `Σ_k w_k (x_k − y_k)²`. Returns the matrices and
    /// the original row of each matrix row.
    pub fn dense(&self) -> (Matrix, Vec<usize>, Matrix, Vec<usize>) {
        let d = self.comps.len();
        let build = |n: usize, released: bool| {
            let rows: Vec<usize> = (0..n).filter(|&r| self.active(r, released)).collect();
            let mut data = Vec::with_capacity(rows.len() * d);
            for &r in &rows {
                for c in &self.comps {
                    if let Comp::Num { x, y, .. } = c {
                        let v = if released { y[r] } else { x[r] };
                        data.push(v);
                    }
                }
            }
            (Matrix { data, dim: d }, rows)
        };
        let (x, xr) = build(self.ni, false);
        let (y, yr) = build(self.nr, true);
        (x, xr, y, yr)
    }

    /// The distance between intruder record `i` and released record `j` (any metric, any key
    /// type); NaN when no key is observed on both sides (wildcard/Gower).
    pub fn distance(&self, i: usize, j: usize) -> f64 {
        self.finish(self.rank_key(i, j))
    }

    /// A key ordered as the distance (the squared distance for Euclidean, the distance itself for
    /// Gower), computed exactly as the dense kernel computes it; ranks compare these.
    pub fn rank_key(&self, i: usize, j: usize) -> f64 {
        let mut acc = 0.0f64;
        let mut wsum = 0.0f64;
        for (k, c) in self.comps.iter().enumerate() {
            let w = self.weights[k];
            // δ in the metric's units: Euclidean adds w·δ², Gower adds w·δ / Σw.
            let delta: Option<f64> = match c {
                Comp::Num { x, y, range } => {
                    let (a, b) = (x[i], y[j]);
                    match (a.is_nan(), b.is_nan()) {
                        (false, false) => Some(match self.metric {
                            Metric::Euclidean => a - b,
                            Metric::Gower => {
                                if *range > 0.0 {
                                    (a - b).abs() / range
                                } else if a == b {
                                    0.0
                                } else {
                                    1.0
                                }
                            }
                        }),
                        (true, true) if self.missing == MissingPolicy::AsValue => Some(0.0),
                        _ if self.missing == MissingPolicy::AsValue => Some(1.0),
                        _ => None,
                    }
                }
                Comp::Cat { x, y } => match (x.is_missing(i), y.is_missing(j)) {
                    (false, false) => Some(if categories_meet(x, i, y, j) {
                        0.0
                    } else {
                        1.0
                    }),
                    (true, true) if self.missing == MissingPolicy::AsValue => Some(0.0),
                    _ if self.missing == MissingPolicy::AsValue => Some(1.0),
                    _ => None,
                },
                Comp::Str { x, y } => match (&x[i], &y[j]) {
                    (Some(a), Some(b)) => Some(self.string_metric.distance(a, b)),
                    (None, None) if self.missing == MissingPolicy::AsValue => Some(0.0),
                    _ if self.missing == MissingPolicy::AsValue => Some(1.0),
                    _ => None,
                },
            };
            if let Some(dl) = delta {
                match self.metric {
                    // Numeric keys are already scaled by sqrt(w).
                    Metric::Euclidean if matches!(c, Comp::Num { .. }) => acc = dl.mul_add(dl, acc),
                    Metric::Euclidean => acc += w * dl * dl,
                    Metric::Gower => acc += w * dl,
                }
                wsum += w;
            }
        }
        match self.metric {
            Metric::Euclidean => acc,
            Metric::Gower => {
                if wsum > 0.0 {
                    acc / wsum
                } else {
                    f64::NAN
                }
            }
        }
    }

    /// The distance from a [`rank_key`](Self::rank_key).
    pub fn finish(&self, key: f64) -> f64 {
        match self.metric {
            Metric::Euclidean => key.sqrt(),
            Metric::Gower => key,
        }
    }
}

/// A dense row-major matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct Matrix {
    /// `rows × dim` values, row after row.
    pub data: Vec<f64>,
    /// Number of columns.
    pub dim: usize,
}

impl Matrix {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.data.len().checked_div(self.dim).unwrap_or(0)
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }
}
