//! Microaggregation by MDAV, maximum distance to average vector (Domingo-Ferrer & Mateo-Sanz
//! 2002; Domingo-Ferrer & Torra 2005, Algorithm 1; sdcMicro `microaggregation(method = "mdav")`).
//!
//! On the variables standardised to mean 0 and standard deviation 1 (n − 1):
//! while at least 3k records remain, take the centroid c of the remaining records, the record r
//! farthest from c and the record s farthest from r; form a group of r and its k − 1 nearest
//! remaining records, then one of s and its k − 1 nearest; remove both. If 2k to 3k − 1 records
//! remain, form one group around the record farthest from the centroid and a last group of the
//! rest; otherwise the rest is the last group. Every group has k to 2k − 1 records. Each value is
//! replaced by its group's mean on the original scale. Ties in distance go to the lower row.
//! Distances are computed in parallel, but every choice is a deterministic argmin/argmax, so the
//! result does not depend on the number of threads.

use intruder_data::{Column, Table};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

use crate::common::{check_columns, mean_sd, numeric};
use crate::{Defence, DefenceError, Masked, Method, ParamKind, ParamReader, ParamSpec};

const NAME: &str = "mdav";

/// Parameters of MDAV microaggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct Mdav {
    /// Numeric variables aggregated together.
    pub variables: Vec<String>,
    /// Minimum group size (≥ 2).
    pub k: usize,
    /// Standardise the variables before computing distances.
    pub standardise: bool,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "variables",
        kind: ParamKind::Strings,
        required: true,
        default: "",
        doc: "numeric variables, aggregated jointly (no missing values)",
    },
    ParamSpec {
        name: "k",
        kind: ParamKind::Integer,
        required: true,
        default: "",
        doc: "minimum group size, ≥ 2",
    },
    ParamSpec {
        name: "standardise",
        kind: ParamKind::Bool,
        required: false,
        default: "true",
        doc: "z-score the variables (sd with n − 1) before computing distances",
    },
];

/// Registry entry.
pub const METHOD: Method = Method {
    name: NAME,
    summary: "multivariate microaggregation by MDAV, groups of k to 2k − 1",
    source: "Domingo-Ferrer & Mateo-Sanz (2002); sdcMicro microaggregation(method = \"mdav\")",
    params: PARAMS,
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let variables: Option<Vec<String>> = r.require("variables");
    let k: Option<i64> = r.require("k");
    let standardise = r.get_or("standardise", true);
    if let Some(v) = &variables {
        r.check(
            "variables",
            !v.is_empty(),
            "must name at least one variable",
        );
    }
    if let Some(k) = k {
        r.check("k", k >= 2, format!("is {k}; expected an integer ≥ 2"));
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(Mdav {
        variables: variables?,
        k: k? as usize,
        standardise,
    }))
}

struct Points {
    p: usize,
    x: Vec<f64>,
}

impl Points {
    #[inline]
    fn row(&self, i: usize) -> &[f64] {
        &self.x[i * self.p..(i + 1) * self.p]
    }
    #[inline]
    fn d2(&self, i: usize, c: &[f64]) -> f64 {
        self.row(i)
            .iter()
            .zip(c)
            .map(|(a, b)| (a - b) * (a - b))
            .sum()
    }
}

fn centroid(pts: &Points, rows: &[usize]) -> Vec<f64> {
    let mut c = vec![0.0; pts.p];
    for &i in rows {
        for (cj, v) in c.iter_mut().zip(pts.row(i)) {
            *cj += v;
        }
    }
    for cj in &mut c {
        *cj /= rows.len() as f64;
    }
    c
}

/// The row farthest from `c` (ties: lowest row).
fn farthest(pts: &Points, rows: &[usize], c: &[f64]) -> usize {
    rows.par_iter()
        .with_min_len(4096)
        .map(|&i| (pts.d2(i, c), i))
        .reduce(
            || (f64::NEG_INFINITY, usize::MAX),
            |a, b| {
                if b.0 > a.0 || (b.0 == a.0 && b.1 < a.1) {
                    b
                } else {
                    a
                }
            },
        )
        .1
}

/// Removes and returns `r` and its k − 1 nearest rows among `rows` (ties: lowest row).
fn take_group(pts: &Points, rows: &mut Vec<usize>, r: usize, k: usize) -> Vec<usize> {
    let c = pts.row(r).to_vec();
    let mut d: Vec<(f64, usize)> = rows
        .par_iter()
        .with_min_len(4096)
        .filter(|&&i| i != r)
        .map(|&i| (pts.d2(i, &c), i))
        .collect();
    let cmp = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    let m = (k - 1).min(d.len());
    if m < d.len() {
        d.select_nth_unstable_by(m, cmp);
    }
    let mut group: Vec<usize> = std::iter::once(r)
        .chain(d[..m].iter().map(|x| x.1))
        .collect();
    group.sort_unstable();
    rows.retain(|i| group.binary_search(i).is_err());
    group
}

/// MDAV groups of `pts` (each sorted), in the order formed.
fn mdav_groups(pts: &Points, n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut rows: Vec<usize> = (0..n).collect();
    let mut groups = Vec::new();
    while rows.len() >= 3 * k {
        let c = centroid(pts, &rows);
        let r = farthest(pts, &rows, &c);
        let s = farthest(pts, &rows, pts.row(r));
        groups.push(take_group(pts, &mut rows, r, k));
        let s = if rows.contains(&s) {
            s
        } else {
            farthest(pts, &rows, pts.row(r))
        };
        groups.push(take_group(pts, &mut rows, s, k));
    }
    if rows.len() >= 2 * k {
        let c = centroid(pts, &rows);
        let r = farthest(pts, &rows, &c);
        groups.push(take_group(pts, &mut rows, r, k));
    }
    if !rows.is_empty() {
        groups.push(rows);
    }
    groups
}

/// The MDAV partition of the rows of `data` (one `Vec<f64>` per variable, no missing values)
/// with minimum group size `k`, after optional standardisation.
pub fn partition(data: &[Vec<f64>], k: usize, standardise: bool) -> Vec<Vec<usize>> {
    let p = data.len();
    let n = data.first().map_or(0, Vec::len);
    let stats: Vec<(f64, f64)> = data
        .iter()
        .map(|c| {
            let (m, s, _) = mean_sd(c);
            if standardise && s > 0.0 {
                (m, s)
            } else if standardise {
                (m, 1.0)
            } else {
                (0.0, 1.0)
            }
        })
        .collect();
    let mut x = vec![0.0; n * p];
    for i in 0..n {
        for j in 0..p {
            x[i * p + j] = (data[j][i] - stats[j].0) / stats[j].1;
        }
    }
    mdav_groups(&Points { p, x }, n, k)
}

impl Defence for Mdav {
    fn method(&self) -> &'static str {
        NAME
    }

    fn apply(&self, table: &Table, _rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_columns(table, NAME, &self.variables)?;
        let mut data = Vec::new();
        for v in &self.variables {
            let c = numeric(table, NAME, v)?;
            if let Some(i) = c.iter().position(|x| x.is_nan()) {
                return Err(DefenceError::Column {
                    method: NAME,
                    column: v.clone(),
                    message: format!(
                        "row {} is missing; MDAV needs complete records (impute, or suppress after aggregating)",
                        i + 1
                    ),
                });
            }
            data.push(c);
        }
        let n = table.nrows();
        if n < self.k {
            return Err(DefenceError::Infeasible {
                method: NAME,
                message: format!("{n} records cannot form a group of k = {}", self.k),
            });
        }
        let groups = partition(&data, self.k, self.standardise);
        let mut out = table.clone();
        for (v, c) in self.variables.iter().zip(&data) {
            let mut agg = vec![0.0; n];
            for g in &groups {
                let m = g.iter().map(|&i| c[i]).sum::<f64>() / g.len() as f64;
                for &i in g {
                    agg[i] = m;
                }
            }
            let like = table.column(v)?;
            let vals: Vec<Option<f64>> = agg.into_iter().map(Some).collect();
            out.replace(Column::float(v.as_str(), like.role(), &vals))?;
        }
        Ok(Masked {
            table: out,
            kept_rows: None,
            notes: vec![format!("{} groups of at least {}", groups.len(), self.k)],
        })
    }
}
