//! SUDA2: special uniques and their minimal sample uniques (METHODS.md §1.3).
//!
//! A *minimal sample unique* (MSU) of a record is a set of keys on which the record is unique in
//! the file while it is unique on no proper subset (Elliot, Manning & Ford 2002, "A
//! computational algorithm for handling the special uniques problem"; SUDA2: Manning, Haglin &
//! Keane 2008, "A recursive search algorithm for statistical disclosure assessment").
//!
//! # Scores
//! With `ATT` keys and MSUs searched up to size `M`, an MSU of size `k` adds
//!
//! ```text
//!   w(k) = ∏_{i=k}^{min(M, ATT−1)} (ATT − i)          (empty product = 1)
//! ```
//!
//! to the record's SUDA score (Elliot et al. 2002; with `M = ATT`, as sdcMicro's `suda2` with
//! `original_scores = TRUE` always uses, `w(k) = (ATT − k)!`). Small MSUs weigh most.
//!
//! **DIS-SUDA** follows sdcMicro's `suda2` (C++ `Suda2`, which the R help cites as the IHSN
//! implementation): the file-level DIS probability of Skinner & Elliot (2002),
//! `dis = U·f / (U·f + P·(1 − f))` with `U` the sample-unique records, `P` the records in classes
//! of size 2 and `f` the `dis_fraction` (sdcMicro's `DisFraction`, default 0.01), is spread over
//! the records with a score: with `q = 1 + (8 − ATT)/20` and `A = Σ_{s_i>0} s_i^{−q}`,
//!
//! ```text
//!   dis_i = 1 / (1 + (U/dis − U) / (s_i^q · A))      (0 when s_i = 0)
//! ```
//!
//! (sdcMicro computes `dis` and `q` in single precision; this uses f64 throughout.)
//!
//! **Contributions** as sdcMicro: each key of an MSU of size `k` is credited `w(k)`; a record's
//! contribution share of key `v` is its credit over its score (shares may sum past 1, since an
//! MSU credits each of its keys); the file-level contribution of `v` is
//! `100 · Σ_i credit_iv / Σ_i s_i`, and the contribution of category `x` of `v` is
//! `100 · Σ_{i: v_i = x} credit_iv / Σ_i credit_iv`.
//!
//! # The search
//! Records are first collapsed into their distinct key tuples (with multiplicity) through
//! [`equivalence_classes`](crate::equivalence_classes). The search walks the set-enumeration tree
//! of key subsets (children add a key after the last one), carrying the partition of the tuples
//! into classes on the current subset. A class of one tuple is a record newly unique on the
//! subset: it is recorded as a candidate and leaves the partition (every superset along this
//! branch is non-minimal for it). Classes with no tuple of multiplicity 1 leave too (nothing in
//! them can ever become unique). Every MSU of a record is reached this way (its prefixes are
//! proper subsets, on which the record is not unique), and a candidate is an MSU exactly when no
//! other candidate of the same record is a proper subset of it — the last step removes the
//! non-minimal ones. Branches run in parallel; results do not depend on the thread count.
//!
//! Missing keys: `listwise` (records missing a key get no score) or `as-value` (missing is a
//! category). sdcMicro's own treatment (a missing value never forms part of an MSU) is not
//! reproduced.

use rayon::prelude::*;

use intruder_data::Table;

use crate::classes::{DELETED, classes_of};
use crate::error::RiskError;
use crate::keys::{KeyData, MISSING, MissingPolicy, SetMatch};

/// Default upper bound on the search's worst-case work (records × key subsets visited) before
/// [`suda2`] refuses to start.
pub const DEFAULT_COST_LIMIT: f64 = 2e11;

/// What SUDA2 measures. Build with [`Suda2Params::new`] and set the public fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Suda2Params {
    /// Key variables (ATT = their number).
    pub keys: Vec<String>,
    /// Largest MSU size searched (`None`: every size, as sdcMicro).
    pub max_msu_size: Option<usize>,
    /// Missing-value policy: listwise or as-value (wildcard is an error).
    pub missing: MissingPolicy,
    /// Set-valued keys: the whole set or the first candidate is the value.
    pub set_match: SetMatch,
    /// f in the DIS probability (sdcMicro's `DisFraction`, default 0.01).
    pub dis_fraction: f64,
    /// Refuse to start when records × key subsets up to the MSU size exceeds this.
    pub cost_limit: f64,
}

impl Suda2Params {
    /// Defaults: every MSU size, listwise, whole sets, `dis_fraction` 0.01, [`DEFAULT_COST_LIMIT`].
    pub fn new(keys: Vec<String>) -> Self {
        Suda2Params {
            keys,
            max_msu_size: None,
            missing: MissingPolicy::Listwise,
            set_match: SetMatch::Overlap,
            dis_fraction: 0.01,
            cost_limit: DEFAULT_COST_LIMIT,
        }
    }

    /// Checks what does not depend on the data.
    pub fn check(&self) -> Result<(), RiskError> {
        let mut problems = Vec::new();
        if self.keys.is_empty() {
            problems.push("no key variables given".to_string());
        }
        if self.max_msu_size == Some(0) {
            problems.push("the maximum MSU size must be at least 1".into());
        }
        if !(self.dis_fraction > 0.0 && self.dis_fraction < 1.0) {
            problems.push(format!(
                "the DIS sampling fraction must lie in (0, 1), found {}",
                self.dis_fraction
            ));
        }
        if self.missing == MissingPolicy::Wildcard {
            problems.push(
                "SUDA2 needs classes: use the listwise or as-value missing-value policy, not wildcard"
                    .into(),
            );
        }
        if !(self.cost_limit > 0.0) {
            problems.push(format!(
                "the cost limit must be positive, found {}",
                self.cost_limit
            ));
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(RiskError::Param(problems.join("; ")))
        }
    }
}

/// Σ_{k=1}^{m} C(att, k): the number of key subsets searched with MSUs up to size m.
pub fn subsets_up_to(att: usize, m: usize) -> f64 {
    let mut c = 1.0f64;
    let mut total = 0.0;
    for k in 1..=m.min(att) {
        c = c * (att + 1 - k) as f64 / k as f64;
        total += c;
    }
    total
}

/// The SUDA weight w(k) of an MSU of size `k` with `att` keys searched up to size `m`
/// (module docs).
pub fn msu_weight(k: usize, att: usize, m: usize) -> f64 {
    let top = m.min(att.saturating_sub(1));
    (k..=top).map(|i| (att - i) as f64).product()
}

/// The contribution of one category of a key to the file's SUDA scores.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelContribution {
    /// Key.
    pub key: String,
    /// Category (as written in the file; `NA` for missing under as-value).
    pub level: String,
    /// Percent of the key's credit earned by records with this category (`None` when the key
    /// earned nothing).
    pub percent: Option<f64>,
}

/// The result of [`suda2`].
#[derive(Debug, Clone, PartialEq)]
pub struct Suda2 {
    /// Keys, in the order given (bit `v` of an MSU mask is `keys[v]`).
    pub keys: Vec<String>,
    /// Largest MSU size searched.
    pub max_msu_size: usize,
    /// Records in the file.
    pub n_total: usize,
    /// Records dropped for a missing key (listwise).
    pub n_deleted: usize,
    /// Records unique on all keys (U).
    pub sample_uniques: usize,
    /// Records in classes of size 2 on all keys (P).
    pub pair_records: usize,
    /// Skinner–Elliot DIS probability `U·f / (U·f + P·(1−f))` (`None` when U = P = 0).
    pub dis: Option<f64>,
    /// The f used for `dis`.
    pub dis_fraction: f64,
    /// SUDA score of each record (`None`: deleted).
    pub score: Vec<Option<f64>>,
    /// DIS-SUDA score of each record (`None`: deleted).
    pub dis_score: Vec<Option<f64>>,
    /// MSUs of record `i`: `msu_masks[msu_offsets[i]..msu_offsets[i+1]]`, bit masks over keys,
    /// sorted by size then mask.
    pub msu_offsets: Vec<u64>,
    /// See `msu_offsets`.
    pub msu_masks: Vec<u64>,
    /// Number of MSUs of each size (index 0 = size 1).
    pub msus_by_size: Vec<u64>,
    /// File-level contribution of each key, percent (sdcMicro's `attribute_contributions`).
    pub key_contributions: Vec<f64>,
    /// Contribution of each category (sdcMicro's `attribute_level_contributions`).
    pub level_contributions: Vec<LevelContribution>,
}

impl Suda2 {
    /// The MSUs of record `i` as bit masks over [`Suda2::keys`].
    pub fn msus(&self, i: usize) -> &[u64] {
        &self.msu_masks[self.msu_offsets[i] as usize..self.msu_offsets[i + 1] as usize]
    }

    /// The MSUs of record `i` as key names.
    pub fn msu_names(&self, i: usize) -> Vec<Vec<&str>> {
        self.msus(i)
            .iter()
            .map(|&m| {
                (0..self.keys.len())
                    .filter(|v| m >> v & 1 == 1)
                    .map(|v| self.keys[v].as_str())
                    .collect()
            })
            .collect()
    }

    /// Record `i`'s share of its score credited to each key (sdcMicro's `contributionPercent`,
    /// a fraction); all zero when the score is zero or the record was deleted.
    pub fn record_contributions(&self, i: usize) -> Vec<f64> {
        let att = self.keys.len();
        let mut c = vec![0.0; att];
        let s = self.score[i].unwrap_or(0.0);
        if s == 0.0 {
            return c;
        }
        for &m in self.msus(i) {
            let w = msu_weight(m.count_ones() as usize, att, self.max_msu_size);
            for (v, cv) in c.iter_mut().enumerate() {
                if m >> v & 1 == 1 {
                    *cv += w;
                }
            }
        }
        c.iter_mut().for_each(|x| *x /= s);
        c
    }

    /// Number of MSUs in the file.
    pub fn msu_count(&self) -> u64 {
        self.msu_masks.len() as u64
    }
}

/// Estimated worst-case work of the search: records × key subsets up to the MSU size.
pub fn suda2_cost(n: usize, att: usize, max_msu_size: usize) -> f64 {
    n as f64 * subsets_up_to(att, max_msu_size)
}

/// Runs SUDA2 on `table` (module docs).
pub fn suda2(table: &Table, params: &Suda2Params) -> Result<Suda2, RiskError> {
    params.check()?;
    let att = params.keys.len();
    let m = params.max_msu_size.unwrap_or(att).min(att);
    let n = table.nrows();
    let cost = suda2_cost(n, att, m);
    if cost > params.cost_limit {
        let fit = (1..=m)
            .rev()
            .find(|&k| suda2_cost(n, att, k) <= params.cost_limit);
        let hint = match fit {
            Some(k) => format!(
                "limit the MSU size with --max-msu-size {k} (≈ {:.2e}), use fewer keys, or raise --suda-cost-limit",
                suda2_cost(n, att, k)
            ),
            None => "use fewer keys or fewer records, or raise --suda-cost-limit".into(),
        };
        return Err(RiskError::Param(format!(
            "SUDA2 over {att} keys with MSUs up to size {m} may visit {:.3e} key subsets × {n} records ≈ {cost:.2e} steps, over the limit of {:.2e}; {hint}",
            subsets_up_to(att, m),
            params.cost_limit
        )));
    }
    let kd = KeyData::new(table, &params.keys, params.set_match, false)?;
    let classes = classes_of(&kd, params.missing);

    // Distinct tuples: class id = tuple id; multiplicity = class size.
    let nt = classes.sizes.len();
    let mut rep = vec![u32::MAX; nt];
    for (i, &c) in classes.class_of.iter().enumerate() {
        if c != DELETED && rep[c as usize] == u32::MAX {
            rep[c as usize] = i as u32;
        }
    }
    let as_value = params.missing == MissingPolicy::AsValue;
    let vals: Vec<Vec<u32>> = kd
        .codes
        .iter()
        .map(|codes| {
            rep.iter()
                .map(|&r| {
                    let c = codes[r as usize];
                    if c == MISSING {
                        0
                    } else {
                        c + u32::from(as_value)
                    }
                })
                .collect()
        })
        .collect();
    let mult = &classes.sizes;
    let cands = search(&vals, mult, m);

    // Minimal candidates per tuple → MSUs per record.
    let mut per_tuple_off = vec![0u64; nt + 1];
    let mut masks: Vec<u64> = Vec::with_capacity(cands.len());
    {
        let mut i = 0;
        let mut kept: Vec<u64> = Vec::new();
        for t in 0..nt {
            kept.clear();
            while i < cands.len() && cands[i].0 == t as u32 {
                let mk = cands[i].1;
                if !kept.iter().any(|&k| k & mk == k) {
                    kept.push(mk);
                }
                i += 1;
            }
            masks.extend_from_slice(&kept);
            per_tuple_off[t + 1] = masks.len() as u64;
        }
    }

    let weights: Vec<f64> = (0..=att).map(|k| msu_weight(k, att, m)).collect();
    let mut msus_by_size = vec![0u64; m];
    for &mk in &masks {
        msus_by_size[mk.count_ones() as usize - 1] += 1;
    }
    let tuple_score: Vec<f64> = (0..nt)
        .map(|t| {
            masks[per_tuple_off[t] as usize..per_tuple_off[t + 1] as usize]
                .iter()
                .map(|&mk| weights[mk.count_ones() as usize])
                .sum()
        })
        .collect();

    // Per record.
    let mut msu_offsets = Vec::with_capacity(n + 1);
    msu_offsets.push(0u64);
    let mut msu_masks = Vec::with_capacity(masks.len());
    let mut score = Vec::with_capacity(n);
    for &c in &classes.class_of {
        if c == DELETED {
            score.push(None);
        } else {
            let t = c as usize;
            if mult[t] == 1 {
                msu_masks.extend_from_slice(
                    &masks[per_tuple_off[t] as usize..per_tuple_off[t + 1] as usize],
                );
            }
            score.push(Some(if mult[t] == 1 { tuple_score[t] } else { 0.0 }));
        }
        msu_offsets.push(msu_masks.len() as u64);
    }

    let u = mult.iter().filter(|&&s| s == 1).count();
    let pairs = 2 * mult.iter().filter(|&&s| s == 2).count();
    let f = params.dis_fraction;
    let dis = (u + pairs > 0).then(|| u as f64 * f / (u as f64 * f + pairs as f64 * (1.0 - f)));
    let q = 1.0 + (8.0 - att as f64) / 20.0;
    let adj: f64 = score
        .iter()
        .flatten()
        .filter(|&&s| s > 0.0)
        .map(|&s| s.powf(-q))
        .sum();
    let dis_score = score
        .iter()
        .map(|s| {
            s.map(|s| match dis {
                Some(d) if s > 0.0 && d > 0.0 => {
                    let uf = u as f64;
                    1.0 / (1.0 + (uf / d - uf) / (s.powf(q) * adj))
                }
                _ => 0.0,
            })
        })
        .collect();

    // Contributions.
    let mut credit_total = vec![0.0f64; att];
    let mut credit_level: Vec<Vec<f64>> =
        kd.card.iter().map(|&c| vec![0.0; c as usize + 1]).collect();
    for t in 0..nt {
        if mult[t] != 1 {
            continue;
        }
        for &mk in &masks[per_tuple_off[t] as usize..per_tuple_off[t + 1] as usize] {
            let w = weights[mk.count_ones() as usize];
            for v in 0..att {
                if mk >> v & 1 == 1 {
                    credit_total[v] += w;
                    credit_level[v][vals[v][t] as usize] += w;
                }
            }
        }
    }
    let total_score: f64 = tuple_score
        .iter()
        .zip(mult)
        .filter(|(_, m)| **m == 1)
        .map(|(s, _)| s)
        .sum();
    let key_contributions = credit_total
        .iter()
        .map(|&c| {
            if total_score > 0.0 {
                100.0 * c / total_score
            } else {
                0.0
            }
        })
        .collect();
    let mut level_contributions = Vec::new();
    for (v, name) in params.keys.iter().enumerate() {
        let col = table.column(name)?;
        // Label of each code: from a record carrying it.
        let mut label: Vec<Option<String>> = vec![None; credit_level[v].len()];
        let mut seen = vec![false; credit_level[v].len()];
        for &r in &rep {
            let code = vals[v][r_to_t(&classes.class_of, r)] as usize;
            if !seen[code] {
                seen[code] = true;
                label[code] = Some(
                    col.text(r as usize)
                        .map(|s| s.into_owned())
                        .unwrap_or_else(|| "NA".into()),
                );
            }
        }
        let mut rows: Vec<(String, Option<f64>)> = label
            .into_iter()
            .zip(&credit_level[v])
            .filter_map(|(l, &c)| {
                l.map(|l| {
                    (
                        l,
                        (credit_total[v] > 0.0).then(|| 100.0 * c / credit_total[v]),
                    )
                })
            })
            .collect();
        rows.sort_by(|a, b| natural_cmp(&a.0, &b.0));
        for (level, percent) in rows {
            level_contributions.push(LevelContribution {
                key: name.clone(),
                level,
                percent,
            });
        }
    }

    Ok(Suda2 {
        keys: params.keys.clone(),
        max_msu_size: m,
        n_total: n,
        n_deleted: classes.n_deleted,
        sample_uniques: u,
        pair_records: pairs,
        dis,
        dis_fraction: f,
        score,
        dis_score,
        msu_offsets,
        msu_masks,
        msus_by_size,
        key_contributions,
        level_contributions,
    })
}

fn r_to_t(class_of: &[u32], r: u32) -> usize {
    class_of[r as usize] as usize
}

/// Numbers in numeric order, then text.
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.total_cmp(&y),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        _ => a.cmp(b),
    }
}

/// A partition of tuples into classes: class `c` is `members[bounds[c]..bounds[c+1]]`.
#[derive(Default)]
struct Partition {
    members: Vec<u32>,
    bounds: Vec<u32>,
}

impl Partition {
    fn clear(&mut self) {
        self.members.clear();
        self.bounds.clear();
        self.bounds.push(0);
    }
    fn is_empty(&self) -> bool {
        self.members.is_empty()
    }
    fn classes(&self) -> impl Iterator<Item = &[u32]> {
        self.bounds
            .windows(2)
            .map(|w| &self.members[w[0] as usize..w[1] as usize])
    }
}

struct Search<'a> {
    vals: &'a [Vec<u32>],
    mult: &'a [u32],
    att: usize,
    max: usize,
}

impl Search<'_> {
    /// Refines `part` by key `w` into `out`: singletons of multiplicity 1 are emitted as
    /// newly unique on `mask`; classes without a multiplicity-1 tuple are dropped.
    fn refine(
        &self,
        part: &Partition,
        w: usize,
        mask: u64,
        out: &mut Partition,
        buf: &mut Vec<u64>,
        emit: &mut Vec<(u32, u64)>,
    ) {
        out.clear();
        let vw = &self.vals[w];
        for class in part.classes() {
            buf.clear();
            buf.extend(
                class
                    .iter()
                    .map(|&t| (vw[t as usize] as u64) << 32 | t as u64),
            );
            buf.sort_unstable();
            let mut a = 0;
            while a < buf.len() {
                let key = buf[a] >> 32;
                let mut b = a + 1;
                while b < buf.len() && buf[b] >> 32 == key {
                    b += 1;
                }
                if b - a == 1 {
                    let t = buf[a] as u32;
                    if self.mult[t as usize] == 1 {
                        emit.push((t, mask));
                    }
                } else if buf[a..b].iter().any(|&x| self.mult[x as u32 as usize] == 1) {
                    out.members.extend(buf[a..b].iter().map(|&x| x as u32));
                    out.bounds.push(out.members.len() as u32);
                }
                a = b;
            }
        }
    }

    fn dfs(
        &self,
        part: &Partition,
        mask: u64,
        last: usize,
        depth: usize,
        bufs: &mut [Partition],
        buf: &mut Vec<u64>,
        emit: &mut Vec<(u32, u64)>,
    ) {
        if depth >= self.max {
            return;
        }
        let Some((cur, rest)) = bufs.split_first_mut() else {
            return;
        };
        for w in last + 1..self.att {
            let m = mask | 1 << w;
            self.refine(part, w, m, cur, buf, emit);
            if !cur.is_empty() && depth + 1 < self.max {
                self.dfs(cur, m, w, depth + 1, rest, buf, emit);
            }
        }
    }
}

/// Candidates `(tuple, mask)`: tuple unique on `mask` and not on its prefix parent; sorted by
/// tuple, then size, then mask.
fn search(vals: &[Vec<u32>], mult: &[u32], max: usize) -> Vec<(u32, u64)> {
    let att = vals.len();
    let nt = mult.len();
    if !mult.contains(&1) {
        return Vec::new();
    }
    let s = Search {
        vals,
        mult,
        att,
        max,
    };
    let mut root = Partition::default();
    root.clear();
    root.members.extend(0..nt as u32);
    root.bounds.push(nt as u32);
    // Level 1, one task per key.
    let level1: Vec<(Partition, Vec<(u32, u64)>)> = (0..att)
        .into_par_iter()
        .map(|v| {
            let mut p = Partition::default();
            let mut emit = Vec::new();
            s.refine(&root, v, 1 << v, &mut p, &mut Vec::new(), &mut emit);
            (p, emit)
        })
        .collect();
    // Level 2 and below, one task per pair of keys.
    let pairs: Vec<(usize, usize)> = if max >= 2 {
        (0..att)
            .flat_map(|v| (v + 1..att).map(move |w| (v, w)))
            .filter(|&(v, _)| !level1[v].0.is_empty())
            .collect()
    } else {
        Vec::new()
    };
    let deeper: Vec<Vec<(u32, u64)>> = pairs
        .par_iter()
        .map(|&(v, w)| {
            let mut emit = Vec::new();
            let mut buf = Vec::new();
            let mut p = Partition::default();
            let m = 1u64 << v | 1 << w;
            s.refine(&level1[v].0, w, m, &mut p, &mut buf, &mut emit);
            if !p.is_empty() && max > 2 {
                let mut bufs: Vec<Partition> = (0..max.saturating_sub(2))
                    .map(|_| Partition::default())
                    .collect();
                s.dfs(&p, m, w, 2, &mut bufs, &mut buf, &mut emit);
            }
            emit
        })
        .collect();
    let mut all: Vec<(u32, u64)> = level1.into_iter().flat_map(|(_, e)| e).collect();
    for d in deeper {
        all.extend(d);
    }
    all.par_sort_unstable_by_key(|&(t, m)| (t, m.count_ones(), m));
    all
}
