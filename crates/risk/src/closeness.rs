//! t-closeness (Li, Li & Venkatasubramanian 2007, "t-Closeness: Privacy Beyond k-Anonymity and
//! ℓ-Diversity"; ARX implements it): how far the distribution of a sensitive variable within
//! each equivalence class of the keys lies from its distribution in the whole file.
//!
//! A class is *t-close* when the Earth Mover's Distance (EMD) between the class's distribution
//! `p` of the sensitive values and the file's distribution `q` is at most `t`; the file's t is
//! the largest class EMD. Two ground distances (Li et al. §4.2):
//!
//! - **equal** (unordered categories, every pair of values at distance 1):
//!   `EMD = ½ Σ_i |p_i − q_i|`;
//! - **ordered** (numbers, or categories in their level order), over the m distinct values
//!   v_1 < … < v_m at distance |i − j|/(m − 1):
//!   `EMD = 1/(m − 1) · Σ_{i=1}^{m} |Σ_{j≤i} (p_j − q_j)|` (0 when m = 1).
//!
//! Classes are those of `l-diversity`: the keys under the `listwise` or `as-value` policy
//! (`wildcard` does not partition records). The file's distribution `q` is taken over the records
//! counted (those in a class) whose sensitive value is observed; the m values are the distinct
//! values among them. Missing sensitive values are not a category (as for ℓ-diversity): they are
//! left out of `p` and `q`; a class with no observed sensitive value has no EMD.
//!
//! Every EMD is computed exactly in integers — with class counts a_i of s observed values and
//! file counts b_i of N, `p_i − q_i = (a_i·N − b_i·s)/(s·N)` — and divided once at the end, so a
//! class with the file's distribution has EMD exactly 0 and every EMD lies in [0, 1]. The
//! ordered sum runs over the class's own values only: between two of them the class's cumulative
//! count is constant while the file's grows, and the sum of |A·N − B_i·s| over such a stretch
//! comes from prefix sums of B split where B_i·s crosses A·N (a binary search), so a class
//! costs O(c log m) for c distinct values, not O(m).
//!
//! Hierarchical ground distances (Li et al.'s disease hierarchy) are not offered.

use std::str::FromStr;

use serde_json::json;

use intruder_table::keys::{KeyCodes, MISSING, SetCoding};
use intruder_table::report::{Figure, RecordValues, Records, Report, Unit};
use intruder_table::{ColumnData, Kind, Table};

use crate::classes::{DELETED, classes_of};
use crate::error::RiskError;
use crate::keys::{MissingPolicy, SetMatch, key_data};

/// The ground distance between sensitive values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GroundDistance {
    /// Ordered for integer and float columns, equal otherwise.
    #[default]
    Auto,
    /// Every two distinct values at distance 1.
    Equal,
    /// Values ranked: numbers by value, categories by their level order.
    Ordered,
}

impl GroundDistance {
    /// The name used in parameters and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            GroundDistance::Auto => "auto",
            GroundDistance::Equal => "equal",
            GroundDistance::Ordered => "ordered",
        }
    }
}

impl FromStr for GroundDistance {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(GroundDistance::Auto),
            "equal" => Ok(GroundDistance::Equal),
            "ordered" => Ok(GroundDistance::Ordered),
            other => Err(format!(
                "unknown distance '{other}': expected auto, equal or ordered"
            )),
        }
    }
}

/// What t-closeness measures. Build with [`TClosenessParams::new`] and set the public fields.
#[derive(Debug, Clone, PartialEq)]
pub struct TClosenessParams {
    /// Key variables the classes are formed on.
    pub keys: Vec<String>,
    /// Missing keys: listwise or as-value (wildcard is an error).
    pub missing: MissingPolicy,
    /// Set-valued keys: the whole set or the first candidate is the value.
    pub set_match: SetMatch,
    /// The sensitive column.
    pub sensitive: String,
    /// The ground distance.
    pub distance: GroundDistance,
    /// The threshold t: classes (and their records) with EMD above it are counted.
    pub t: Option<f64>,
}

impl TClosenessParams {
    /// Defaults: listwise, whole sets, automatic distance, no threshold.
    pub fn new(keys: Vec<String>, sensitive: impl Into<String>) -> Self {
        TClosenessParams {
            keys,
            missing: MissingPolicy::Listwise,
            set_match: SetMatch::Overlap,
            sensitive: sensitive.into(),
            distance: GroundDistance::Auto,
            t: None,
        }
    }

    /// Checks what does not depend on the data.
    pub fn check(&self) -> Result<(), RiskError> {
        let mut problems = Vec::new();
        if self.keys.is_empty() {
            problems.push("no key variables given".to_string());
        }
        if self.missing == MissingPolicy::Wildcard {
            problems.push(
                "t-closeness needs classes: use the listwise or as-value missing-value policy, not wildcard"
                    .into(),
            );
        }
        if let Some(t) = self.t
            && !(0.0..=1.0).contains(&t)
        {
            problems.push(format!("the threshold t must lie in [0, 1], found {t}"));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(RiskError::Param(problems.join("; ")))
        }
    }
}

/// The result of [`t_closeness`].
#[derive(Debug, Clone, PartialEq)]
pub struct TCloseness {
    /// Keys.
    pub keys: Vec<String>,
    /// The missing-value policy used.
    pub policy: MissingPolicy,
    /// The sensitive column.
    pub sensitive: String,
    /// The ground distance used (`equal` or `ordered`, never `auto`).
    pub distance: GroundDistance,
    /// The threshold, when given.
    pub t: Option<f64>,
    /// Records in the file.
    pub n_total: usize,
    /// Records dropped for a missing key (listwise).
    pub n_deleted: usize,
    /// Records with an observed sensitive value among those counted (N of the file's
    /// distribution).
    pub n_sensitive: usize,
    /// Distinct observed sensitive values (m).
    pub values: usize,
    /// Class id of each record ([`DELETED`] when dropped).
    pub class_of: Vec<u32>,
    /// Size f_k of each class.
    pub sizes: Vec<u32>,
    /// EMD of each class (`None`: no observed sensitive value in it).
    pub class_emd: Vec<Option<f64>>,
}

impl TCloseness {
    /// EMD of record `i`'s class (`None`: deleted, or no observed sensitive value in its class).
    pub fn record_emd(&self, i: usize) -> Option<f64> {
        let c = self.class_of[i];
        if c == DELETED {
            None
        } else {
            self.class_emd[c as usize]
        }
    }

    /// The file's t: the largest class EMD (`None` when no class has an observed sensitive value).
    pub fn t_max(&self) -> Option<f64> {
        self.class_emd.iter().flatten().copied().reduce(f64::max)
    }

    /// Classes with EMD above the threshold (`None` without a threshold).
    pub fn classes_above_t(&self) -> Option<usize> {
        let t = self.t?;
        Some(self.class_emd.iter().flatten().filter(|&&e| e > t).count())
    }

    /// Records in classes with EMD above the threshold (`None` without a threshold).
    pub fn records_above_t(&self) -> Option<usize> {
        let t = self.t?;
        Some(
            self.class_emd
                .iter()
                .zip(&self.sizes)
                .filter(|(e, _)| e.is_some_and(|e| e > t))
                .map(|(_, &s)| s as usize)
                .sum(),
        )
    }

    /// File-level figures in report order.
    pub fn figures(&self) -> Vec<Figure> {
        let f = Figure::new;
        let counted = self.class_of.len() - self.n_deleted;
        let emds: Vec<f64> = (0..self.class_of.len())
            .filter_map(|i| self.record_emd(i))
            .collect();
        let mean = (!emds.is_empty()).then(|| emds.iter().sum::<f64>() / emds.len() as f64);
        vec![
            f(
                "measure",
                json!("t-closeness"),
                Unit::Label,
                "t-closeness (Li, Li & Venkatasubramanian 2007)",
            ),
            f(
                "policy",
                json!(self.policy.as_str()),
                Unit::Label,
                "how missing key values were treated",
            ),
            f("keys", json!(self.keys), Unit::Label, "key variables"),
            f(
                "n_total",
                json!(self.n_total),
                Unit::Count,
                "records in the file",
            ),
            f(
                "n_deleted",
                json!(self.n_deleted),
                Unit::Count,
                "records dropped for a missing key (listwise)",
            ),
            f("n", json!(counted), Unit::Count, "records counted"),
            f(
                "classes",
                json!(self.sizes.len()),
                Unit::Count,
                "equivalence classes",
            ),
            f(
                "sensitive",
                json!(self.sensitive),
                Unit::Label,
                "the sensitive column",
            ),
            f(
                "distance",
                json!(self.distance.as_str()),
                Unit::Label,
                "ground distance: equal (½ Σ |p − q|) or ordered (1/(m − 1) Σ |cumulative p − q|)",
            ),
            f(
                "sensitive_values",
                json!(self.values),
                Unit::Count,
                "distinct observed sensitive values (m)",
            ),
            f(
                "n_sensitive",
                json!(self.n_sensitive),
                Unit::Count,
                "records counted with an observed sensitive value (the file's distribution)",
            ),
            f(
                "t_max",
                json!(self.t_max()),
                Unit::Score,
                "the file's t: the largest EMD between a class's sensitive distribution and the file's",
            ),
            f(
                "emd_mean",
                json!(mean),
                Unit::Score,
                "mean over the records of their class's EMD",
            ),
            f(
                "classes_without_sensitive",
                json!(self.class_emd.iter().filter(|e| e.is_none()).count()),
                Unit::Count,
                "classes whose sensitive values are all missing (no EMD)",
            ),
            f(
                "t",
                json!(self.t),
                Unit::Score,
                "the threshold t (parameter t)",
            ),
            f(
                "classes_above_t",
                json!(self.classes_above_t()),
                Unit::Count,
                "classes with EMD above t (not t-close)",
            ),
            f(
                "records_above_t",
                json!(self.records_above_t()),
                Unit::Count,
                "records in those classes",
            ),
        ]
    }

    /// The report.
    pub fn report(&self) -> Report {
        let mut r = Report::new("t-closeness");
        r.figures = self.figures();
        r
    }

    /// Per-record figures: `k`, `emd` (its class's EMD) and, with a threshold, `above_t` (1 when
    /// the class's EMD exceeds t, else 0).
    pub fn records(&self) -> Result<Records, RiskError> {
        let n = self.class_of.len();
        let mut out = Records::new(n);
        let k: Vec<Option<u32>> = self
            .class_of
            .iter()
            .map(|&c| (c != DELETED).then(|| self.sizes[c as usize]))
            .collect();
        let emd: Vec<Option<f64>> = (0..n).map(|i| self.record_emd(i)).collect();
        out.push("k", RecordValues::from(k))
            .map_err(RiskError::Param)?;
        if let Some(t) = self.t {
            let above: Vec<Option<u32>> = emd.iter().map(|e| e.map(|e| u32::from(e > t))).collect();
            out.push("emd", RecordValues::from(emd))
                .map_err(RiskError::Param)?;
            out.push("above_t", RecordValues::from(above))
                .map_err(RiskError::Param)?;
        } else {
            out.push("emd", RecordValues::from(emd))
                .map_err(RiskError::Param)?;
        }
        Ok(out)
    }
}

/// Equal-distance EMD of one class from integer counts: the class's `(value, a_i)` pairs, its
/// `s` observed values, the file's counts `b` of `big_n`: ½ Σ |a_i/s − b_i/N|.
pub fn emd_equal(class: &[(usize, u64)], s: u64, b: &[u64], big_n: u64) -> f64 {
    let (s, n) = (s as i128, big_n as i128);
    let mut num: i128 = 0;
    let mut b_in = 0i128;
    for &(v, a) in class {
        num += (a as i128 * n - b[v] as i128 * s).abs();
        b_in += b[v] as i128;
    }
    // Values the class lacks: |0 − b_i·s| each.
    num += s * (n - b_in);
    num as f64 / (2 * s * n) as f64
}

/// Ordered-distance EMD of one class: its `(rank, a_i)` pairs in increasing rank, its `s`
/// observed values, and the file's cumulative counts `cum[i] = Σ_{j≤i} b_j` with their prefix
/// sums `pre[i] = Σ_{k<i} cum[k]` (length m + 1): 1/(m − 1) Σ_i |A_i/s − B_i/N|.
pub fn emd_ordered(class: &[(usize, u64)], s: u64, cum: &[u64], pre: &[u128]) -> f64 {
    let m = cum.len();
    if m <= 1 {
        return 0.0;
    }
    let big_n = cum[m - 1];
    let (s128, n128) = (s as i128, big_n as i128);
    // Σ_{i=lo}^{hi−1} |A·N − B_i·s|, B nondecreasing: split where B_i·s passes A·N.
    let stretch = |lo: usize, hi: usize, a: u64| -> i128 {
        if lo >= hi {
            return 0;
        }
        let an = a as i128 * n128;
        let k = lo + cum[lo..hi].partition_point(|&b| (b as i128) * s128 <= an);
        let below = (k - lo) as i128 * an - s128 * (pre[k] - pre[lo]) as i128;
        let above = s128 * (pre[hi] - pre[k]) as i128 - (hi - k) as i128 * an;
        below + above
    };
    let mut total: i128 = 0;
    let mut a_cum = 0u64;
    let mut lo = 0usize;
    for &(r, a) in class {
        total += stretch(lo, r, a_cum);
        a_cum += a;
        lo = r;
    }
    total += stretch(lo, m, a_cum);
    total as f64 / (s128 * n128 * (m as i128 - 1)) as f64
}

/// The sensitive values as ranks 0.. (`None` = missing), and the distance used.
fn sensitive_ranks(
    table: &Table,
    params: &TClosenessParams,
) -> Result<(Vec<Option<u32>>, GroundDistance), RiskError> {
    let col = table.column(&params.sensitive)?;
    let numeric = matches!(col.kind(), Kind::Integer | Kind::Float);
    let distance = match params.distance {
        GroundDistance::Auto if numeric => GroundDistance::Ordered,
        GroundDistance::Auto => GroundDistance::Equal,
        d => d,
    };
    let n = col.len();
    if distance == GroundDistance::Equal {
        let d = KeyCodes::dense(col, SetCoding::Whole);
        return Ok((
            d.codes
                .iter()
                .map(|&c| (c != MISSING).then_some(c))
                .collect(),
            distance,
        ));
    }
    let ranks = match col.data() {
        ColumnData::Categorical { codes, .. } => (0..n)
            .map(|i| (!col.is_missing(i)).then(|| codes[i]))
            .collect(),
        ColumnData::Integer(_) | ColumnData::Float(_) => {
            let mut vals: Vec<f64> = Vec::with_capacity(n);
            let mut raw: Vec<Option<f64>> = Vec::with_capacity(n);
            for i in 0..n {
                let v = if col.is_missing(i) {
                    None
                } else {
                    col.as_f64(i)
                };
                if let Some(x) = v {
                    if x.is_nan() {
                        return Err(RiskError::Column {
                            file: table.source().to_string(),
                            column: params.sensitive.clone(),
                            message: format!(
                                "record {} is NaN; an ordered sensitive value must be a number",
                                i + 1
                            ),
                        });
                    }
                    vals.push(x);
                }
                raw.push(v);
            }
            vals.sort_by(f64::total_cmp);
            vals.dedup();
            raw.iter()
                .map(|v| v.map(|x| vals.partition_point(|&y| y.total_cmp(&x).is_lt()) as u32))
                .collect()
        }
        _ => {
            return Err(RiskError::Column {
                file: table.source().to_string(),
                column: params.sensitive.clone(),
                message: format!(
                    "is {}, which has no order; the ordered distance needs numbers or categories (declare type = \"categorical\" with levels in their order), or use distance = \"equal\"",
                    col.kind()
                ),
            });
        }
    };
    Ok((ranks, distance))
}

/// t-closeness of `table` (module docs).
pub fn t_closeness(table: &Table, params: &TClosenessParams) -> Result<TCloseness, RiskError> {
    params.check()?;
    let kd = key_data(table, &params.keys, params.set_match, false)?;
    let classes = classes_of(&kd, params.missing);
    let (raw, distance) = sensitive_ranks(table, params)?;
    // Ranks of the values observed among the records counted, compressed to 0..m in order.
    let hi = raw
        .iter()
        .flatten()
        .copied()
        .max()
        .map_or(0, |x| x as usize + 1);
    let mut seen = vec![false; hi];
    for (&c, r) in classes.class_of.iter().zip(&raw) {
        if c != DELETED
            && let Some(r) = r
        {
            seen[*r as usize] = true;
        }
    }
    let mut dense = vec![u32::MAX; hi];
    let mut m = 0usize;
    for (r, &s) in seen.iter().enumerate() {
        if s {
            dense[r] = m as u32;
            m += 1;
        }
    }
    // (class, value) of every counted record with an observed value, sorted.
    let mut pairs: Vec<(u32, u32)> = classes
        .class_of
        .iter()
        .zip(&raw)
        .filter(|(c, _)| **c != DELETED)
        .filter_map(|(&c, r)| r.map(|r| (c, dense[r as usize])))
        .collect();
    pairs.sort_unstable();
    let mut b = vec![0u64; m];
    for &(_, v) in &pairs {
        b[v as usize] += 1;
    }
    let big_n = pairs.len() as u64;
    let mut cum = Vec::with_capacity(m);
    let mut acc = 0u64;
    for &x in &b {
        acc += x;
        cum.push(acc);
    }
    let mut pre = Vec::with_capacity(m + 1);
    let mut acc = 0u128;
    pre.push(0);
    for &x in &cum {
        acc += x as u128;
        pre.push(acc);
    }
    let mut class_emd = vec![None; classes.sizes.len()];
    let mut counts: Vec<(usize, u64)> = Vec::new();
    let mut i = 0;
    while i < pairs.len() {
        let c = pairs[i].0;
        counts.clear();
        let mut s = 0u64;
        while i < pairs.len() && pairs[i].0 == c {
            let v = pairs[i].1;
            let mut j = i;
            while j < pairs.len() && pairs[j] == (c, v) {
                j += 1;
            }
            counts.push((v as usize, (j - i) as u64));
            s += (j - i) as u64;
            i = j;
        }
        let e = match distance {
            GroundDistance::Ordered => emd_ordered(&counts, s, &cum, &pre),
            _ => emd_equal(&counts, s, &b, big_n),
        };
        class_emd[c as usize] = Some(e);
    }
    Ok(TCloseness {
        keys: params.keys.clone(),
        policy: params.missing,
        sensitive: params.sensitive.clone(),
        distance,
        t: params.t,
        n_total: table.nrows(),
        n_deleted: classes.n_deleted,
        n_sensitive: big_n as usize,
        values: m,
        class_of: classes.class_of,
        sizes: classes.sizes,
        class_emd,
    })
}
