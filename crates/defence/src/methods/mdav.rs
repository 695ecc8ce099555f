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

use intruder_table::{Column, Table};
use rand_chacha::ChaCha20Rng;
use rayon::prelude::*;

use crate::common::{check_columns, mean_sd, numeric};
use crate::{Defence, DefenceError, Masked};
use intruder_table::params::{ColumnNeed, Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "mdav";

/// Parameters of MDAV microaggregation.
#[derive(Debug, Clone, PartialEq)]
pub struct Mdav {
    /// Numeric variables aggregated together.
    pub(crate) variables: Vec<String>,
    /// Minimum group size (≥ 2).
    pub(crate) k: usize,
    /// Standardise the variables before computing distances.
    pub(crate) standardise: bool,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "variables",
        ParamKind::Columns,
        "numeric variables, aggregated jointly (no missing values)",
    )
    .example(r#"["ref_age", "total_wealth"]"#)
    .required()
    .needs(ColumnNeed::Numeric),
    ParamSpec::new("k", ParamKind::Integer, "minimum group size")
    .example("3")
        .required()
        .within(Range::at_least(2.0)),
    ParamSpec::new(
        "standardise",
        ParamKind::Bool,
        "z-score the variables (sd with n − 1) before computing distances",
    )
    .default_value("true"),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "multivariate microaggregation by MDAV, groups of k to 2k − 1",
    reference: "Domingo-Ferrer & Mateo-Sanz (2002); sdcMicro microaggregation(method = \"mdav\")",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let variables: Option<Vec<String>> = r.require("variables");
    let k: Option<usize> = r.require("k");
    let standardise = r.get_or("standardise", true);
    if let Some(v) = &variables {
        r.check(
            "variables",
            !v.is_empty(),
            "must name at least one variable",
        );
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(Mdav {
        variables: variables?,
        k: k?,
        standardise,
    }))
}

/// The remaining records, packed in row order: `ids[m]` is the row of the point at
/// `x[m·p..(m+1)·p]`. Removal compacts the arrays, so every pass runs over contiguous memory.
struct Packed {
    p: usize,
    ids: Vec<usize>,
    x: Vec<f64>,
}

impl Packed {
    #[inline]
    fn row(&self, m: usize) -> &[f64] {
        &self.x[m * self.p..(m + 1) * self.p]
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    fn centroid(&self) -> Vec<f64> {
        let mut c = vec![0.0; self.p];
        for m in 0..self.len() {
            for (cj, v) in c.iter_mut().zip(self.row(m)) {
                *cj += v;
            }
        }
        for cj in &mut c {
            *cj /= self.len() as f64;
        }
        c
    }

    /// One pass over the remaining points measuring squared distances to `c`: the farthest
    /// point and the `cap` nearest points other than row `skip`, as (distance, row id,
    /// position). Both are defined by the total order (distance, row id), so splitting the
    /// pass over threads never changes them.
    fn scan(&self, c: &[f64], cap: usize, skip: usize) -> Scan {
        const BLOCK: usize = 16_384;
        let n = self.len();
        if n <= 2 * BLOCK {
            return self.scan_range(c, cap, skip, 0, n);
        }
        let blocks: Vec<Scan> = (0..n.div_ceil(BLOCK))
            .into_par_iter()
            .map(|b| self.scan_range(c, cap, skip, b * BLOCK, ((b + 1) * BLOCK).min(n)))
            .collect();
        blocks
            .into_iter()
            .reduce(Scan::merge)
            .unwrap_or_else(|| Scan::new(cap))
    }

    fn scan_range(&self, c: &[f64], cap: usize, skip: usize, from: usize, to: usize) -> Scan {
        let p = self.p;
        let mut acc = Scan::new(cap);
        let (mut far_d, mut far_id, mut far_m) = (f64::NEG_INFINITY, usize::MAX, usize::MAX);
        // the current cap-th nearest distance: points beyond it cannot enter
        let mut worst = f64::INFINITY;
        for (m, row) in self.x[from * p..to * p].chunks_exact(p).enumerate() {
            let mut d = 0.0;
            for (a, b) in row.iter().zip(c) {
                d += (a - b) * (a - b);
            }
            let id = self.ids[from + m];
            if d > far_d || (d == far_d && id < far_id) {
                (far_d, far_id, far_m) = (d, id, from + m);
            }
            if cap > 0 && d <= worst && id != skip {
                acc.push((d, id, from + m), true);
                if acc.near.len() == cap {
                    worst = acc.near[cap - 1].0;
                }
            }
        }
        acc.far = (far_d, far_id, far_m);
        acc
    }

    /// Position of the point farthest from `c` (ties: lowest row id).
    fn farthest(&self, c: &[f64]) -> usize {
        self.scan(c, 0, usize::MAX).far.2
    }

    /// Removes the points at `positions` and returns their row ids, sorted. The remaining
    /// points keep their (row id) order, so sums run in the same order as a naive
    /// implementation's.
    fn remove(&mut self, positions: Vec<usize>) -> Vec<usize> {
        let mut drop = positions;
        drop.sort_unstable();
        let p = self.p;
        let out: Vec<usize> = drop.iter().map(|&m| self.ids[m]).collect();
        let mut w = 0;
        let mut di = 0;
        for m in 0..self.ids.len() {
            if di < drop.len() && drop[di] == m {
                di += 1;
                continue;
            }
            if w != m {
                self.ids[w] = self.ids[m];
                for j in 0..p {
                    self.x[w * p + j] = self.x[m * p + j];
                }
            }
            w += 1;
        }
        self.ids.truncate(w);
        self.x.truncate(w * p);
        out
    }
}

/// The farthest point and the nearest `cap` points seen in a pass.
struct Scan {
    far: (f64, usize, usize),
    near: Vec<(f64, usize, usize)>,
    cap: usize,
}

impl Scan {
    fn new(cap: usize) -> Self {
        Scan {
            far: (f64::NEG_INFINITY, usize::MAX, usize::MAX),
            near: Vec::with_capacity(cap + 1),
            cap,
        }
    }

    #[inline]
    fn push(&mut self, e: (f64, usize, usize), candidate: bool) {
        if e.0 > self.far.0 || (e.0 == self.far.0 && e.1 < self.far.1) {
            self.far = e;
        }
        if !candidate || self.cap == 0 {
            return;
        }
        if self.near.len() == self.cap
            && cmp_dist(&e, &self.near[self.cap - 1]) != std::cmp::Ordering::Less
        {
            return;
        }
        let at = self
            .near
            .partition_point(|x| cmp_dist(x, &e) == std::cmp::Ordering::Less);
        self.near.insert(at, e);
        self.near.truncate(self.cap);
    }

    fn merge(mut a: Scan, b: Scan) -> Scan {
        if b.far.0 > a.far.0 || (b.far.0 == a.far.0 && b.far.1 < a.far.1) {
            a.far = b.far;
        }
        for e in b.near {
            a.push(e, true);
        }
        a
    }
}

fn cmp_dist(a: &(f64, usize, usize), b: &(f64, usize, usize)) -> std::cmp::Ordering {
    a.0.total_cmp(&b.0).then(a.1.cmp(&b.1))
}

/// MDAV groups of the rows of `x` (row-major, `p` columns), each sorted, in the order formed.
fn mdav_groups(p: usize, x: Vec<f64>, n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut pk = Packed {
        p,
        ids: (0..n).collect(),
        x,
    };
    let mut groups = Vec::new();
    // the group of the point at position `r`, given a scan around it
    let group = |r: usize, sc: &Scan| -> Vec<usize> {
        std::iter::once(r)
            .chain(sc.near.iter().map(|e| e.2))
            .collect()
    };
    while pk.len() >= 3 * k {
        let c = pk.centroid();
        let r = pk.farthest(&c);
        let xr = pk.row(r).to_vec();
        let sr = pk.scan(&xr, k - 1, pk.ids[r]);
        let s_id = sr.far.1;
        let xs = pk.row(sr.far.2).to_vec();
        groups.push(pk.remove(group(r, &sr)));
        // s joins r's group only when points coincide; then take the farthest from r left
        let (s, xs) = match pk.ids.binary_search(&s_id) {
            Ok(pos) => (pos, xs),
            Err(_) => {
                let pos = pk.farthest(&xr);
                (pos, pk.row(pos).to_vec())
            }
        };
        let ss = pk.scan(&xs, k - 1, pk.ids[s]);
        groups.push(pk.remove(group(s, &ss)));
    }
    if pk.len() >= 2 * k {
        let c = pk.centroid();
        let r = pk.farthest(&c);
        let xr = pk.row(r).to_vec();
        let sr = pk.scan(&xr, k - 1, pk.ids[r]);
        groups.push(pk.remove(group(r, &sr)));
    }
    if pk.len() > 0 {
        let all: Vec<usize> = (0..pk.len()).collect();
        groups.push(pk.remove(all));
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
    mdav_groups(p, x, n, k)
}

impl Defence for Mdav {
    fn method(&self) -> &'static str {
        NAME
    }

    /// Groups of at least k records share every aggregated value, and no cell is blanked, so the
    /// promise is the same under every matching rule.
    fn claims(&self) -> Vec<crate::Claim> {
        vec![crate::Claim::k_anonymity(
            NAME,
            &self.variables,
            self.k.min(u32::MAX as usize) as u32,
            crate::ProtectAgainst::All,
        )]
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
            details: None,
        })
    }
}
