//! PrivBayes (Zhang, Cormode, Procopiuc, Srivastava & Xiao, "PrivBayes: Private Data Release
//! via Bayesian Networks", ACM TODS 42(4), 2017): a synthetic release under ε-differential
//! privacy. The budget ε is split: ε₁ = β·ε learns a Bayesian network, ε₂ = (1 − β)·ε its
//! conditional distributions, and `n` new records are drawn from the network.
//!
//! # Attributes
//! Every column of the table is one attribute with a finite domain: a categorical column's
//! levels; a text or set column's distinct values (as written); a numeric column's range cut
//! into `bins` bins — equal width (max − min)/bins for floats; for integers a whole width
//! w = ⌈(max − min + 1)/bins⌉, so that every bin holds whole numbers (at most `bins` bins). A
//! column with missing cells has one more value, "missing". As in the paper, the domains are
//! taken as public; here they are read from the input (levels, ranges, whether a column has
//! missing cells), so the guarantee covers the cell values given those domains.
//!
//! # 1. The network (GreedyBayes, ε₁)
//! The first attribute is drawn uniformly at random. Then, d − 1 times, among every pair
//! (X, Π) of an attribute X not yet in the network and a set Π of min(k, |V|) attributes
//! already in it (V), one pair is drawn by the exponential mechanism with the mutual
//! information I(X; Π) as score: Pr ∝ exp(ε₁ · I / (2 (d − 1) Δ)), each of the d − 1 draws
//! spending ε₁/(d − 1). The sensitivity Δ of I (natural logarithms; the ratio I/Δ does not
//! depend on the base) is the paper's Lemma 4.1 for n records:
//! - when X or Π is binary (two values; Π's joint domain): Δ = (1/n)·ln n + ((n − 1)/n)·ln(n/(n − 1));
//! - otherwise: Δ = (2/n)·ln((n + 1)/2) + ((n − 1)/n)·ln((n + 1)/(n − 1)).
//!
//! Pairs whose joint table would exceed 2²⁴ cells are not candidates; when none is left the
//! step fails (lower `k` or `bins`). The mutual informations are computed in parallel, each
//! on its own, and kept in candidate order, so the result does not depend on the threads.
//!
//! # 2. Noisy conditionals (NoisyConditionals, ε₂)
//! With k' = min(k, d − 1), the joint counts of the last d − k' pairs (X_i, Π_i), i > k', are
//! materialised over their whole domain and every cell gets Laplace noise of scale
//! 2(d − k')/ε₂ on counts (the paper's 2(d − k)/(n·ε₂) on probabilities: each joint
//! distribution moves by at most 2/n in L1 when one record changes, and d − k' of them share
//! ε₂). Negative cells are set to 0 and each table renormalised; a parent configuration whose
//! cells are all 0 gets the uniform distribution. The first k' + 1 attributes are drawn jointly
//! from the noisy joint of pair k' + 1 (whose parents are the first k'), the rest from their
//! noisy conditionals given their parents (ancestral sampling).
//!
//! # 3. Values
//! A drawn category, text or set is that value; "missing" is a missing cell; a numeric bin
//! gives a value drawn uniformly within it (a float in [lo, lo + width), an integer among the
//! bin's whole numbers), so integers stay integers.
//!
//! Draws, from the step's seeded stream: the first attribute, the d − 1 network choices, the
//! noise cell by cell (pair by pair), then record by record the codes, then column by column
//! the values within bins. The output is the same for a seed whatever the number of threads.
//! The released table satisfies ε-differential privacy (replacement of one record) with
//! respect to the input's records; the method promises nothing about k, and no released record
//! is an input record ([`crate::Defence::synthetic`]).

use intruder_table::{Column, ColumnData, Kind, Table};
use rand::Rng;
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;
use serde_json::json;

use crate::common::numeric_like;
use crate::methods::marginals::synthetic_size;
use crate::{Defence, DefenceError, Masked};
use intruder_table::params::{Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "privbayes";

/// The largest joint table (cells) a pair of the network may have.
pub const MAX_CELLS: u64 = 1 << 24;

/// Parameters of PrivBayes.
#[derive(Debug, Clone, PartialEq)]
pub struct PrivBayes {
    /// The privacy budget ε (> 0).
    pub(crate) epsilon: f64,
    /// The degree of the network: at most `k` parents per attribute.
    pub(crate) k: usize,
    /// Bins of a numeric column (≥ 2).
    pub(crate) bins: usize,
    /// The share β of ε spent on learning the network (0 < β < 1).
    pub(crate) beta: f64,
    /// Records to release; `None`: as many as the input.
    pub(crate) n: Option<usize>,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "epsilon",
        ParamKind::Number,
        "the privacy budget ε of the release (ε-differential privacy)",
    )
    .example("1")
    .required()
    .within(Range::POSITIVE),
    ParamSpec::new(
        "k",
        ParamKind::Integer,
        "degree of the Bayesian network: parents per attribute (0 = independent attributes)",
    )
    .default_value("2")
    .within(Range::at_least(0.0)),
    ParamSpec::new(
        "bins",
        ParamKind::Integer,
        "equal-width bins of a numeric column (integers: whole-number widths, at most this many bins)",
    )
    .default_value("20")
    .within(Range::at_least(2.0)),
    ParamSpec::new(
        "beta",
        ParamKind::Number,
        "share β of ε spent on learning the network; the rest, (1 − β)·ε, on the conditional distributions",
    )
    .default_value("0.3")
    .within(Range::OPEN_UNIT),
    ParamSpec::new(
        "n",
        ParamKind::Integer,
        "records to release (synthetic records, none of them an input record)",
    )
    .default_value("as many as the input")
    .within(Range::at_least(1.0)),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "synthetic records from a Bayesian network learnt under ε-differential privacy (the release is ε-DP; no k promised)",
    reference: "Zhang, Cormode, Procopiuc, Srivastava & Xiao (2017), ACM TODS 42(4)",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let epsilon: Option<f64> = r.require("epsilon");
    let k: usize = r.get_or("k", 2);
    let bins: usize = r.get_or("bins", 20);
    let beta: f64 = r.get_or("beta", 0.3);
    let n: Option<usize> = r.get("n");
    if let Some(e) = epsilon {
        r.check("epsilon", e.is_finite(), "must be a finite number");
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(PrivBayes {
        epsilon: epsilon?,
        k,
        bins,
        beta,
        n,
    }))
}

/// The sensitivity of the mutual information I(X; Π) over `n` records (natural logarithms;
/// PrivBayes, Zhang et al. 2017, Lemma 4.1): `binary` when X or Π has two values.
pub fn mi_sensitivity(n: usize, binary: bool) -> f64 {
    let n = n as f64;
    if n < 2.0 {
        // one record: I is 0 on every table of one record
        return f64::MIN_POSITIVE;
    }
    if binary {
        n.ln() / n + (n - 1.0) / n * (n / (n - 1.0)).ln()
    } else {
        2.0 / n * ((n + 1.0) / 2.0).ln() + (n - 1.0) / n * ((n + 1.0) / (n - 1.0)).ln()
    }
}

/// The scale of the Laplace noise added to every cell of the joint counts of `d` attributes
/// under a network of degree `k` (k' = min(k, d − 1)) with budget `epsilon` and share `beta` on
/// the network: 2(d − k')/((1 − β)·ε).
pub fn noise_scale(d: usize, k: usize, epsilon: f64, beta: f64) -> f64 {
    let k = k.min(d.saturating_sub(1));
    2.0 * (d - k) as f64 / ((1.0 - beta) * epsilon)
}

/// How an attribute's codes become a column again.
#[derive(Debug)]
enum Values {
    /// A categorical column: code c is level c; `levels.len()` is "missing".
    Levels(Vec<String>),
    /// A text or set column: code c is the cell of input row `rows[c]` (a missing cell too).
    Rows(Vec<usize>),
    /// A numeric column cut into bins of `width` from `min` (`max` the largest value); the
    /// code after the bins is "missing".
    Bins {
        min: f64,
        max: f64,
        width: f64,
        bins: usize,
        integer: bool,
    },
}

/// One column discretised: a code per input row and the domain size.
#[derive(Debug)]
struct Attribute {
    codes: Vec<u32>,
    size: usize,
    values: Values,
}

/// Cuts `col` into codes (see the module docs).
fn discretise(col: &Column, bins: usize) -> Attribute {
    let n = col.len();
    let any_missing = col.missing_count() > 0;
    match (col.kind(), col.data()) {
        (Kind::Categorical, ColumnData::Categorical { codes, levels }) => {
            let l = levels.len() as u32;
            let codes = (0..n)
                .map(|i| if col.is_missing(i) { l } else { codes[i] })
                .collect();
            Attribute {
                codes,
                size: levels.len() + usize::from(any_missing),
                values: Values::Levels(levels.clone()),
            }
        }
        (Kind::Integer | Kind::Float, _) => discretise_numbers(col, bins, any_missing),
        _ => {
            let mut index: std::collections::HashMap<Option<String>, u32> = Default::default();
            let mut rows = Vec::new();
            let codes = (0..n)
                .map(|i| {
                    let key = col.text(i).map(|t| t.into_owned());
                    *index.entry(key).or_insert_with(|| {
                        rows.push(i);
                        (rows.len() - 1) as u32
                    })
                })
                .collect();
            Attribute {
                codes,
                size: rows.len(),
                values: Values::Rows(rows),
            }
        }
    }
}

/// Cuts a numeric column into equal-width bins (whole widths for integers).
fn discretise_numbers(col: &Column, bins: usize, any_missing: bool) -> Attribute {
    let n = col.len();
    let v: Vec<f64> = (0..n).map(|i| col.as_f64(i).unwrap_or(f64::NAN)).collect();
    let observed = v.iter().filter(|x| !x.is_nan());
    let min = observed.clone().fold(f64::INFINITY, |a, &b| a.min(b));
    let max = observed.fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let integer = col.kind() == Kind::Integer;
    let (width, nb) = if !min.is_finite() {
        (1.0, 0)
    } else if integer {
        let span = max - min + 1.0;
        let w = (span / bins as f64).ceil().max(1.0);
        (w, (span / w).ceil() as usize)
    } else if max > min {
        ((max - min) / bins as f64, bins)
    } else {
        (1.0, 1)
    };
    let codes = v
        .iter()
        .map(|&x| {
            if x.is_nan() {
                nb as u32
            } else {
                (((x - min) / width).floor() as usize).min(nb - 1) as u32
            }
        })
        .collect();
    Attribute {
        codes,
        size: nb + usize::from(any_missing),
        values: Values::Bins {
            min,
            max,
            width,
            bins: nb,
            integer,
        },
    }
}

/// The joint domain size of `attrs` (`None` beyond [`MAX_CELLS`]).
fn domain(attrs: &[Attribute], members: &[usize]) -> Option<u64> {
    members.iter().try_fold(1u64, |acc, &a| {
        acc.checked_mul(attrs[a].size as u64)
            .filter(|&c| c <= MAX_CELLS)
    })
}

/// Each row's code of the joint value of `members` (mixed radix, the first member slowest).
fn joint_codes(attrs: &[Attribute], members: &[usize]) -> Vec<u64> {
    let n = attrs.first().map_or(0, |a| a.codes.len());
    let mut out = vec![0u64; n];
    for &m in members {
        let size = attrs[m].size as u64;
        for (o, &c) in out.iter_mut().zip(&attrs[m].codes) {
            *o = *o * size + c as u64;
        }
    }
    out
}

/// The mutual information I(X; Π) (natural logarithms) of the empirical distribution of
/// attribute `x` and the joint of `parents` over every row.
fn mutual_information(attrs: &[Attribute], x: usize, parents: &[usize]) -> f64 {
    if parents.is_empty() {
        return 0.0;
    }
    let dx = attrs[x].size as u64;
    let pi = joint_codes(attrs, parents);
    let n = pi.len();
    let mut keys: Vec<u64> = pi
        .iter()
        .zip(&attrs[x].codes)
        .map(|(&p, &c)| p * dx + c as u64)
        .collect();
    keys.sort_unstable();
    let mut cx = vec![0usize; dx as usize];
    for &c in &attrs[x].codes {
        cx[c as usize] += 1;
    }
    let nf = n as f64;
    let mut mi = 0.0;
    let mut i = 0;
    while i < n {
        // one parent configuration: its cells are consecutive
        let p = keys[i] / dx;
        let mut j = i;
        while j < n && keys[j] / dx == p {
            j += 1;
        }
        let c_pi = (j - i) as f64;
        let mut a = i;
        while a < j {
            let mut b = a;
            while b < j && keys[b] == keys[a] {
                b += 1;
            }
            let c = (b - a) as f64;
            let c_x = cx[(keys[a] % dx) as usize] as f64;
            mi += c / nf * (c * nf / (c_pi * c_x)).ln();
            a = b;
        }
        i = j;
    }
    mi.max(0.0)
}

/// Every combination of `r` items of `from`, in lexicographic order of positions.
fn combinations(from: &[usize], r: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut idx: Vec<usize> = (0..r).collect();
    if r > from.len() {
        return out;
    }
    loop {
        out.push(idx.iter().map(|&i| from[i]).collect());
        let Some(p) = (0..r).rev().find(|&p| idx[p] != p + from.len() - r) else {
            return out;
        };
        idx[p] += 1;
        for q in p + 1..r {
            idx[q] = idx[q - 1] + 1;
        }
    }
}

/// Draws an index with probability proportional to exp(`logw`), from one uniform.
fn draw_exponential(logw: &[f64], rng: &mut ChaCha20Rng) -> usize {
    let top = logw.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let w: Vec<f64> = logw.iter().map(|l| (l - top).exp()).collect();
    draw_weighted(&w, rng.r#gen::<f64>())
}

/// The index whose cumulative weight first exceeds `u` times the total (the last positive
/// weight when rounding leaves none).
fn draw_weighted(w: &[f64], u: f64) -> usize {
    let total: f64 = w.iter().sum();
    let target = u * total;
    let mut acc = 0.0;
    for (i, &x) in w.iter().enumerate() {
        acc += x;
        if target < acc {
            return i;
        }
    }
    w.iter().rposition(|&x| x > 0.0).unwrap_or(0)
}

/// GreedyBayes: the network as (attribute, parents) pairs in order, each chosen by the
/// exponential mechanism with budget `eps1` over the d − 1 choices.
fn learn_network(
    attrs: &[Attribute],
    k: usize,
    eps1: f64,
    rng: &mut ChaCha20Rng,
) -> Result<Vec<(usize, Vec<usize>)>, DefenceError> {
    let d = attrs.len();
    let n = attrs[0].codes.len();
    let first = rng.gen_range(0..d);
    let mut network = vec![(first, Vec::new())];
    let mut in_net = vec![false; d];
    in_net[first] = true;
    let per_choice = eps1 / (d.max(2) - 1) as f64;
    let mut scores: std::collections::HashMap<(usize, Vec<usize>), f64> = Default::default();
    for _ in 1..d {
        let v: Vec<usize> = network.iter().map(|(a, _)| *a).collect();
        let sets = combinations(&v, k.min(v.len()));
        let candidates: Vec<(usize, Vec<usize>)> = (0..d)
            .filter(|&x| !in_net[x])
            .flat_map(|x| sets.iter().map(move |p| (x, p.clone())))
            .filter(|(x, p)| {
                let mut all = p.clone();
                all.push(*x);
                domain(attrs, &all).is_some()
            })
            .collect();
        if candidates.is_empty() {
            return Err(DefenceError::Infeasible {
                method: NAME,
                message: format!(
                    "every attribute's joint table with {} parents would exceed {MAX_CELLS} cells; lower k or bins",
                    k.min(v.len())
                ),
            });
        }
        // the mutual informations not met in an earlier choice, in parallel, kept in order
        let fresh: Vec<&(usize, Vec<usize>)> = candidates
            .iter()
            .filter(|c| !scores.contains_key(*c))
            .collect();
        let computed: Vec<f64> = fresh
            .par_iter()
            .map(|(x, p)| mutual_information(attrs, *x, p))
            .collect();
        for (c, mi) in fresh.into_iter().zip(computed) {
            scores.insert(c.clone(), mi);
        }
        let logw: Vec<f64> = candidates
            .iter()
            .map(|c| {
                let (x, p) = c;
                let mi = scores[c];
                let dp = domain(attrs, p).unwrap_or(u64::MAX);
                let delta = mi_sensitivity(n, attrs[*x].size == 2 || dp == 2);
                per_choice * mi / (2.0 * delta)
            })
            .collect();
        let chosen = candidates[draw_exponential(&logw, rng)].clone();
        in_net[chosen.0] = true;
        network.push(chosen);
    }
    Ok(network)
}

/// One Laplace draw of scale `b` (inverse of the distribution function at one uniform).
fn laplace(b: f64, rng: &mut ChaCha20Rng) -> f64 {
    let u: f64 = rng.r#gen::<f64>() - 0.5;
    -b * u.signum() * (1.0 - 2.0 * u.abs()).max(f64::MIN_POSITIVE).ln()
}

/// The joint counts of `members` (mixed radix, last member fastest) with Laplace noise of scale
/// `b` on every cell, negative cells set to 0.
fn noisy_joint(
    attrs: &[Attribute],
    members: &[usize],
    b: f64,
    rng: &mut ChaCha20Rng,
) -> Result<Vec<f64>, DefenceError> {
    let cells = domain(attrs, members).ok_or_else(|| DefenceError::Infeasible {
        method: NAME,
        message: format!("a joint table would exceed {MAX_CELLS} cells; lower k or bins"),
    })? as usize;
    let mut counts = vec![0.0; cells];
    for c in joint_codes(attrs, members) {
        counts[c as usize] += 1.0;
    }
    for c in counts.iter_mut() {
        *c = (*c + laplace(b, rng)).max(0.0);
    }
    Ok(counts)
}

/// Draws the codes of every attribute for `n` records: the first k' + 1 attributes from the
/// noisy joint `first` of pair k' + 1 (members `first_members`), the others from their noisy
/// joints with their parents (`rest`: attribute, parents, joint counts).
fn sample_codes(
    attrs: &[Attribute],
    first_members: &[usize],
    first: &[f64],
    rest: &[(usize, Vec<usize>, Vec<f64>)],
    n: usize,
    rng: &mut ChaCha20Rng,
) -> Vec<Vec<u32>> {
    let mut codes = vec![vec![0u32; n]; attrs.len()];
    let mut cum = Vec::with_capacity(first.len());
    let mut acc = 0.0;
    for &c in first {
        acc += c;
        cum.push(acc);
    }
    for r in 0..n {
        let u: f64 = rng.r#gen();
        let mut cell = if acc > 0.0 {
            cum.partition_point(|&c| c <= u * acc).min(first.len() - 1)
        } else {
            (u * first.len() as f64) as usize
        };
        for &m in first_members.iter().rev() {
            let size = attrs[m].size;
            codes[m][r] = (cell % size) as u32;
            cell /= size;
        }
        for (x, parents, joint) in rest {
            let dx = attrs[*x].size;
            let p = parents
                .iter()
                .fold(0usize, |acc, &q| acc * attrs[q].size + codes[q][r] as usize);
            let row = &joint[p * dx..(p + 1) * dx];
            let u: f64 = rng.r#gen();
            codes[*x][r] = if row.iter().sum::<f64>() > 0.0 {
                draw_weighted(row, u) as u32
            } else {
                ((u * dx as f64) as usize).min(dx - 1) as u32
            };
        }
    }
    codes
}

/// The column of attribute `a` (from `col`) holding the drawn `codes`.
fn column_of(
    col: &Column,
    a: &Attribute,
    codes: &[u32],
    rng: &mut ChaCha20Rng,
) -> Result<Column, DefenceError> {
    match &a.values {
        Values::Levels(levels) => {
            let l = levels.len() as u32;
            let missing: Vec<bool> = codes.iter().map(|&c| c == l).collect();
            let data = ColumnData::Categorical {
                codes: codes.iter().map(|&c| c.min(l.saturating_sub(1))).collect(),
                levels: levels.clone(),
            };
            Ok(Column::new(
                col.name(),
                col.role(),
                data,
                intruder_table::Bitmap::from_bools(&missing),
            )?)
        }
        Values::Rows(rows) => {
            let take: Vec<usize> = codes.iter().map(|&c| rows[c as usize]).collect();
            Ok(col.take(&take))
        }
        Values::Bins {
            min,
            max,
            width,
            bins,
            integer,
        } => {
            let values: Vec<f64> = codes
                .iter()
                .map(|&c| {
                    let b = c as usize;
                    if b >= *bins {
                        return f64::NAN;
                    }
                    let lo = min + b as f64 * width;
                    if *integer {
                        let hi = (lo + width - 1.0).min(*max);
                        rng.gen_range(lo as i64..=hi as i64) as f64
                    } else if min == max {
                        *min
                    } else {
                        (lo + rng.r#gen::<f64>() * width).min(*max)
                    }
                })
                .collect();
            Ok(numeric_like(col, &values))
        }
    }
}

impl Defence for PrivBayes {
    fn method(&self) -> &'static str {
        NAME
    }

    fn synthetic(&self) -> bool {
        true
    }

    fn apply(&self, table: &Table, rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        let n_out = synthetic_size(NAME, table, self.n)?;
        let d = table.ncols();
        if d == 0 {
            return Err(DefenceError::Infeasible {
                method: NAME,
                message: "the input has no columns".into(),
            });
        }
        let attrs: Vec<Attribute> = table
            .columns()
            .iter()
            .map(|c| discretise(c, self.bins))
            .collect();
        let eps1 = self.beta * self.epsilon;
        let network = learn_network(&attrs, self.k, eps1, rng)?;
        let k = self.k.min(d - 1);
        let b = noise_scale(d, self.k, self.epsilon, self.beta);
        // pair k' + 1 (0-based k) holds the first k' attributes as parents
        let (x0, p0) = &network[k];
        let mut first_members = p0.clone();
        first_members.push(*x0);
        let first = noisy_joint(&attrs, &first_members, b, rng)?;
        let mut rest = Vec::with_capacity(d - k - 1);
        for (x, parents) in &network[k + 1..] {
            let mut members = parents.clone();
            members.push(*x);
            rest.push((*x, parents.clone(), noisy_joint(&attrs, &members, b, rng)?));
        }
        let codes = sample_codes(&attrs, &first_members, &first, &rest, n_out, rng);
        let mut columns = Vec::with_capacity(d);
        for ((col, a), c) in table.columns().iter().zip(&attrs).zip(&codes) {
            columns.push(column_of(col, a, c, rng)?);
        }
        let out = Table::new(table.source(), columns)?;
        let names =
            |v: &[usize]| -> Vec<&str> { v.iter().map(|&i| table.columns()[i].name()).collect() };
        let details = json!({
            "epsilon": self.epsilon,
            "beta": self.beta,
            "k": k,
            "noise_scale": b,
            "network": network
                .iter()
                .map(|(x, p)| json!({"attribute": table.columns()[*x].name(), "parents": names(p)}))
                .collect::<Vec<_>>(),
        });
        Ok(Masked {
            table: out,
            kept_rows: None,
            notes: vec![format!(
                "{n_out} synthetic records from a degree-{k} network of {d} attributes learnt on {} records (ε = {}, β = {}, Laplace scale {b:.4} on counts)",
                table.nrows(),
                self.epsilon,
                self.beta
            )],
            details: Some(details),
        })
    }
}
