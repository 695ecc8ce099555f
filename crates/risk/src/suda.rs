//! SUDA2: special uniques and their minimal sample uniques (docs/METHODS.md §1.3).
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
//! branch is non-minimal for it). Every MSU of a record is reached this way (its prefixes are
//! proper subsets, on which the record is not unique), and a candidate is an MSU exactly when no
//! other candidate of the same record is a proper subset of it — the last step removes the
//! non-minimal ones.
//!
//! Pruning, none of which changes the result (the brute-force property test checks it):
//! - within a class on S, tuples that agree on every key after the last key of S can never
//!   become unique below S (not even on all those keys), and any one of them blocks whatever
//!   the others block: they are kept as a single *blocker*;
//! - a class with no tuple that can still become unique (multiplicity 1, not a blocker) is
//!   dropped with everything below it;
//! - keys are searched by decreasing number of categories (they split classes early, so fewer
//!   records stay in the partitions), and tuples are numbered in lexicographic order so that
//!   a class's members are read in increasing order.
//!
//! Subtrees down to depth 3 run as parallel tasks; their candidates are gathered in a fixed
//! order, so results do not depend on the thread count.
//!
//! Missing keys: `listwise` (records missing a key get no score) or `as-value` (missing is a
//! category). With `as-value` and [`Suda2Params::drop_msus_with_missing`], sdcMicro's rule:
//!
//! - a record's MSUs are its as-value MSUs minus every MSU that contains a key the record is
//!   missing;
//! - U and P (for `dis` and DIS-SUDA) are counted with missing as a value.
//!
//! This is what sdcMicro's C++ `Suda2` (src/Suda2.h) computes: R's `suda2` replaces `NA` by
//! `missing = -999`; the search builds one item per (key, value) and skips the items whose value
//! is the missing code ("If missing Value, ignore item"), so a record is never unique through a
//! missing value while the other records' missing values still differ from its observed ones
//! (as-value); uniques and pairs compare whole rows, `-999` included. An MSU found this way is
//! unique as-value with no unique proper subset, and every as-value MSU free of the record's
//! missing keys is found: the two descriptions agree. The per-record DIS-SUDA score depends on
//! P only (`U/dis − U = P·(1 − f)/f`); sdcMicro's U (`NbUniqueTotal`) counts only records alone in
//! their hash bucket, which leaves its scores unchanged (up to its single-precision rounding)
//! while U > 0 (our `dis` figure uses the true U). Categories: the missing category earns no
//! credit and is left out of the level contributions, as sdcMicro's (`sort(unique(x))` drops
//! `NA`).

use rayon::prelude::*;

use intruder_table::Table;
use intruder_table::report::{Figure, RecordValues, Records, Report, ReportTable, Unit};
use serde_json::{Value, json};

use crate::classes::{Classes, DELETED, classes_of};
use crate::error::RiskError;
use intruder_table::keys::tuple_ids;

use crate::keys::{KeyData, MISSING, MissingPolicy, SetMatch, key_data};

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
    /// sdcMicro's rule (module docs): with `as-value`, drop every MSU containing a key the
    /// record is missing; U and P stay counted with missing as a value.
    pub drop_msus_with_missing: bool,
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
            drop_msus_with_missing: false,
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
        if self.drop_msus_with_missing && self.missing != MissingPolicy::AsValue {
            problems.push(format!(
                "dropping the MSUs with a missing key (sdcMicro's rule) counts uniques and pairs with missing as a value: it needs the as-value missing-value policy, not {}",
                self.missing.as_str()
            ));
        }
        if self.cost_limit.is_nan() || self.cost_limit <= 0.0 {
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
    /// The missing-value policy used.
    pub policy: MissingPolicy,
    /// Whether MSUs containing a key the record is missing were dropped (sdcMicro's rule).
    pub drop_msus_with_missing: bool,
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

    /// File-level figures in report order, each with its unit and meaning.
    pub fn figures(&self) -> Vec<Figure> {
        let scored: Vec<f64> = self.score.iter().flatten().copied().collect();
        let positive = scored.iter().filter(|&&x| x > 0.0).count();
        let max = scored.iter().copied().fold(0.0f64, f64::max);
        let mean = if scored.is_empty() {
            0.0
        } else {
            scored.iter().sum::<f64>() / scored.len() as f64
        };
        let dis_max = self
            .dis_score
            .iter()
            .flatten()
            .copied()
            .fold(0.0f64, f64::max);
        let contributions: serde_json::Map<String, Value> = self
            .keys
            .iter()
            .zip(&self.key_contributions)
            .map(|(k, c)| (k.clone(), json!(c)))
            .collect();
        let f = Figure::new;
        vec![
            f(
                "measure",
                json!("suda2"),
                Unit::Label,
                "SUDA2 special uniques (Elliot et al. 2002; Manning et al. 2008)",
            ),
            f(
                "policy",
                json!(self.policy.as_str()),
                Unit::Label,
                "how missing key values were treated",
            ),
            f(
                "drop_msus_with_missing",
                json!(self.drop_msus_with_missing),
                Unit::Label,
                "MSUs containing a key the record is missing dropped (sdcMicro's suda2 rule; U and P counted with missing as a value)",
            ),
            f(
                "keys",
                json!(self.keys),
                Unit::Label,
                "key variables (ATT = their number)",
            ),
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
            f(
                "max_msu_size",
                json!(self.max_msu_size),
                Unit::Count,
                "largest MSU size searched",
            ),
            f(
                "sample_uniques",
                json!(self.sample_uniques),
                Unit::Count,
                "records unique on all keys (U)",
            ),
            f(
                "pair_records",
                json!(self.pair_records),
                Unit::Count,
                "records in classes of size 2 (P)",
            ),
            f(
                "msus",
                json!(self.msu_count()),
                Unit::Count,
                "minimal sample uniques found",
            ),
            f(
                "msus_by_size",
                json!(self.msus_by_size),
                Unit::Label,
                "MSUs of size 1, 2, …",
            ),
            f(
                "records_with_score",
                json!(positive),
                Unit::Count,
                "records with at least one MSU",
            ),
            f("score_max", json!(max), Unit::Score, "largest SUDA score"),
            f(
                "score_mean",
                json!(mean),
                Unit::Score,
                "mean SUDA score over the records counted",
            ),
            f(
                "dis_fraction",
                json!(self.dis_fraction),
                Unit::Proportion,
                "f of the DIS probability (sdcMicro's DisFraction)",
            ),
            f(
                "dis",
                json!(self.dis),
                Unit::Proportion,
                "DIS probability U·f / (U·f + P·(1−f))",
            ),
            f(
                "dis_score_max",
                json!(dis_max),
                Unit::Score,
                "largest DIS-SUDA score",
            ),
            f(
                "key_contributions",
                Value::Object(contributions),
                Unit::Label,
                "percent of the total score credited to each key (sdcMicro's attribute_contributions)",
            ),
        ]
    }

    /// The figures and the table of level contributions (sdcMicro's
    /// `attribute_level_contributions`).
    pub fn report(&self) -> Report {
        let mut r = Report::new("SUDA2");
        r.figures = self.figures();
        r.tables.push(ReportTable {
            name: "level_contributions".into(),
            title: "contribution of each category to the SUDA scores, percent".into(),
            header: vec!["key".into(), "level".into(), "percent".into()],
            rows: self
                .level_contributions
                .iter()
                .map(|l| vec![json!(l.key), json!(l.level), json!(l.percent)])
                .collect(),
        });
        r
    }

    /// Per-record figures: `score`, `dis_score`, `msus` (each MSU as its keys joined by `+`,
    /// MSUs separated by `;`) and `contribution_<key>` (the record's share of its score credited
    /// to each key; empty for records not counted).
    pub fn records(&self) -> Records {
        let n = self.score.len();
        let mut r = Records::new(n);
        let msus: Vec<Option<String>> = (0..n)
            .map(|i| {
                Some(
                    self.msu_names(i)
                        .iter()
                        .map(|m| m.join("+"))
                        .collect::<Vec<_>>()
                        .join(";"),
                )
            })
            .collect();
        let mut contributions: Vec<Vec<Option<f64>>> = vec![Vec::with_capacity(n); self.keys.len()];
        for i in 0..n {
            let c = self.score[i].map(|_| self.record_contributions(i));
            for (v, col) in contributions.iter_mut().enumerate() {
                col.push(c.as_ref().map(|c| c[v]));
            }
        }
        let columns: Vec<(String, RecordValues)> = [
            ("score".to_string(), self.score.clone().into()),
            ("dis_score".to_string(), self.dis_score.clone().into()),
            ("msus".to_string(), msus.into()),
        ]
        .into_iter()
        .chain(
            self.keys
                .iter()
                .zip(contributions)
                .map(|(k, c)| (format!("contribution_{k}"), c.into())),
        )
        .collect();
        for (name, values) in columns {
            // Names are distinct unless two keys are, which `suda2` refuses.
            let _ = r.push(name, values);
        }
        r
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
    check_cost(n, att, m, params)?;
    let kd = key_data(table, &params.keys, params.set_match, false)?;
    let classes = classes_of(&kd, params.missing);
    let as_value = params.missing == MissingPolicy::AsValue;
    let tuples = Tuples::of(&kd, &classes, as_value);
    // sdcMicro's rule: a record keeps only the MSUs free of its missing keys (under as-value
    // the missing code is 0).
    let drop_missing = params.drop_msus_with_missing && as_value;
    let msus = tuple_msus(&tuples, m, drop_missing);
    let weights: Vec<f64> = (0..=att).map(|k| msu_weight(k, att, m)).collect();
    let mut msus_by_size = vec![0u64; m];
    for &mk in &msus.masks {
        msus_by_size[mk.count_ones() as usize - 1] += 1;
    }
    let scores = record_scores(&tuples, &msus, &classes, &weights);
    let dis = dis_scores(&scores.score, &tuples.mult, att, params.dis_fraction);
    let credits = Credits::of(&tuples, &msus, &weights, &kd.card);
    let key_contributions = credits.key_contributions(&scores.tuple_score, &tuples.mult);
    let level_contributions =
        level_contributions(table, params, &tuples, &classes, &credits, drop_missing)?;

    Ok(Suda2 {
        keys: params.keys.clone(),
        policy: params.missing,
        drop_msus_with_missing: drop_missing,
        max_msu_size: m,
        n_total: n,
        n_deleted: classes.n_deleted,
        sample_uniques: dis.sample_uniques,
        pair_records: dis.pair_records,
        dis: dis.dis,
        dis_fraction: params.dis_fraction,
        score: scores.score,
        dis_score: dis.dis_score,
        msu_offsets: scores.msu_offsets,
        msu_masks: scores.msu_masks,
        msus_by_size,
        key_contributions,
        level_contributions,
    })
}

/// Refuses a search whose estimated work ([`suda2_cost`]) is over the parameters' limit,
/// suggesting an MSU size that fits.
fn check_cost(n: usize, att: usize, m: usize, params: &Suda2Params) -> Result<(), RiskError> {
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
    Ok(())
}

/// The digit of key code `c` in a tuple: 0 for missing, the code shifted by one under
/// as-value (where 0 is missing's own value).
fn key_digit(c: u32, as_value: bool) -> u32 {
    if c == MISSING {
        0
    } else {
        c + u32::from(as_value)
    }
}

/// The distinct key tuples of a file (class id = tuple id before renumbering; multiplicity =
/// class size), renumbered in lexicographic order of their values in search order.
struct Tuples {
    /// `perm[i]` is the key searched i-th.
    perm: Vec<usize>,
    /// A record carrying each tuple.
    rep: Vec<u32>,
    /// Records carrying each tuple.
    mult: Vec<u32>,
    /// The tuple of each class.
    tuple_of_class: Vec<u32>,
    /// `vals[v][t]`: the digit ([`key_digit`]) of key `v` (the caller's order) in tuple `t`.
    vals: Vec<Vec<u32>>,
}

impl Tuples {
    /// The tuples of `classes` of the keys `kd`.
    fn of(kd: &KeyData, classes: &Classes, as_value: bool) -> Tuples {
        // Distinct tuples: class id = tuple id; multiplicity = class size.
        let nt = classes.sizes.len();
        let mut rep = vec![u32::MAX; nt];
        for (i, &c) in classes.class_of.iter().enumerate() {
            if c != DELETED && rep[c as usize] == u32::MAX {
                rep[c as usize] = i as u32;
            }
        }
        let perm = search_order(kd, &rep, as_value);
        let order = lexicographic_order(kd, &rep, &perm, as_value);
        let mut tuple_of_class = vec![0u32; nt];
        for (k, &c) in order.iter().enumerate() {
            tuple_of_class[c as usize] = k as u32;
        }
        let rep: Vec<u32> = order.iter().map(|&c| rep[c as usize]).collect();
        let mult: Vec<u32> = order.iter().map(|&c| classes.sizes[c as usize]).collect();
        let vals: Vec<Vec<u32>> = kd
            .codes
            .iter()
            .map(|codes| {
                rep.iter()
                    .map(|&r| key_digit(codes[r as usize], as_value))
                    .collect()
            })
            .collect();
        Tuples {
            perm,
            rep,
            mult,
            tuple_of_class,
            vals,
        }
    }
}

/// The order the search runs over the keys: by decreasing number of categories among the
/// tuples (high-cardinality keys first split classes early, so fewer records stay in the
/// partitions), ties by key; `rep` holds a record of each tuple.
fn search_order(kd: &KeyData, rep: &[u32], as_value: bool) -> Vec<usize> {
    let digit = |c: u32| key_digit(c, as_value);
    let distinct: Vec<usize> = kd
        .codes
        .iter()
        .zip(&kd.card)
        .map(|(codes, &card)| {
            let mut seen = vec![false; card as usize + 2];
            for &r in rep {
                seen[digit(codes[r as usize]) as usize] = true;
            }
            seen.iter().filter(|&&b| b).count()
        })
        .collect();
    let mut perm: Vec<usize> = (0..kd.codes.len()).collect();
    perm.sort_by_key(|&v| (std::cmp::Reverse(distinct[v]), v));
    perm
}

/// The tuples (by class id) in lexicographic order of their values with the keys in `perm`'s
/// order (LSD counting sort); `rep` holds a record of each tuple.
fn lexicographic_order(kd: &KeyData, rep: &[u32], perm: &[usize], as_value: bool) -> Vec<u32> {
    let digit = |c: u32| key_digit(c, as_value);
    let nt = rep.len();
    let mut order: Vec<u32> = (0..nt as u32).collect();
    for &v in perm.iter().rev() {
        let (codes, card) = (&kd.codes[v], kd.card[v]);
        let mut count = vec![0u32; card as usize + 2];
        for &t in &order {
            count[digit(codes[rep[t as usize] as usize]) as usize + 1] += 1;
        }
        for i in 1..count.len() {
            count[i] += count[i - 1];
        }
        let mut next = vec![0u32; nt];
        for &t in &order {
            let d = digit(codes[rep[t as usize] as usize]) as usize;
            next[count[d] as usize] = t;
            count[d] += 1;
        }
        order = next;
    }
    order
}

/// The MSUs of every tuple as key masks (bit `v` = key `v` in the caller's order), by size then
/// mask.
struct TupleMsus {
    /// Every tuple's MSUs, one after the other.
    masks: Vec<u64>,
    /// The MSUs of tuple `t` are `masks[off[t]..off[t + 1]]`.
    off: Vec<u64>,
}

impl TupleMsus {
    /// The MSUs of tuple `t`.
    fn of(&self, t: usize) -> &[u64] {
        &self.masks[self.off[t] as usize..self.off[t + 1] as usize]
    }
}

/// Searches the MSUs of the tuples up to size `m`: the minimal candidates of each tuple, in
/// the caller's key order, without those holding one of the tuple's missing keys when
/// `drop_missing`.
fn tuple_msus(tuples: &Tuples, m: usize, drop_missing: bool) -> TupleMsus {
    let (att, nt) = (tuples.vals.len(), tuples.mult.len());
    let vals = &tuples.vals;
    let searched: Vec<Vec<u32>> = tuples.perm.iter().map(|&v| vals[v].clone()).collect();
    let (cand_off, mut cands) = search(&searched, &tuples.mult, m);
    drop(searched);
    let kept_len = minimal_candidates(&mut cands, &cand_off, &tuples.perm);
    let mut per_tuple_off = vec![0u64; nt + 1];
    let mut masks: Vec<u64> = Vec::with_capacity(kept_len.iter().sum());
    for t in 0..nt {
        let start = cand_off[t] as usize;
        let kept = &cands[start..start + kept_len[t]];
        if drop_missing {
            let missing = (0..att)
                .filter(|&v| vals[v][t] == 0)
                .fold(0u64, |m, v| m | 1 << v);
            masks.extend(kept.iter().copied().filter(|&mk| mk & missing == 0));
        } else {
            masks.extend_from_slice(kept);
        }
        per_tuple_off[t + 1] = masks.len() as u64;
    }
    drop(cands);
    TupleMsus {
        masks,
        off: per_tuple_off,
    }
}

/// Per tuple, in parallel: the candidates `cands[cand_off[t]..cand_off[t + 1]]` back in the
/// caller's key order, sorted by size then mask, and the minimal ones (the MSUs) moved to the
/// front of the tuple's slice; returns how many each tuple keeps.
fn minimal_candidates(cands: &mut [u64], cand_off: &[u64], perm: &[usize]) -> Vec<usize> {
    let nt = cand_off.len() - 1;
    let mut groups: Vec<&mut [u64]> = Vec::with_capacity(nt);
    {
        let mut rest = cands;
        for t in 0..nt {
            let (head, tail) = rest.split_at_mut((cand_off[t + 1] - cand_off[t]) as usize);
            groups.push(head);
            rest = tail;
        }
    }
    let remap = mask_remap(perm);
    groups
        .par_iter_mut()
        .map(|g| {
            for mk in g.iter_mut() {
                let mut out = 0u64;
                for (b, table) in remap.iter().enumerate() {
                    out |= table[(*mk >> (8 * b) & 0xff) as usize];
                }
                *mk = out;
            }
            g.sort_unstable_by_key(|&mk| (mk.count_ones(), mk));
            let mut kept = 0;
            for i in 0..g.len() {
                let mk = g[i];
                if !g[..kept].iter().any(|&k| k & !mk == 0) {
                    g[kept] = mk;
                    kept += 1;
                }
            }
            kept
        })
        .collect()
}

/// Bit i of a searched mask is key perm[i]: one lookup table per byte of the mask, giving the
/// byte's bits in the caller's key order.
fn mask_remap(perm: &[usize]) -> Vec<[u64; 256]> {
    let att = perm.len();
    (0..att.div_ceil(8))
        .map(|b| {
            let mut table = [0u64; 256];
            for (x, out) in table.iter_mut().enumerate() {
                for bit in 0..8 {
                    let i = 8 * b + bit;
                    if x >> bit & 1 == 1 && i < att {
                        *out |= 1 << perm[i];
                    }
                }
            }
            table
        })
        .collect()
}

/// The SUDA scores of the tuples and the records, and each record's MSUs.
struct Scores {
    /// Score of each tuple (Σ of its MSUs' weights).
    tuple_score: Vec<f64>,
    /// Score of each record (`None`: not counted; 0 unless the record is unique).
    score: Vec<Option<f64>>,
    /// The MSUs of record `i` are `msu_masks[msu_offsets[i]..msu_offsets[i + 1]]`.
    msu_offsets: Vec<u64>,
    /// Every unique record's MSUs, one after the other.
    msu_masks: Vec<u64>,
}

/// Scores the tuples and the records with the MSU weights `weights` (by MSU size).
fn record_scores(tuples: &Tuples, msus: &TupleMsus, classes: &Classes, weights: &[f64]) -> Scores {
    let (nt, n) = (tuples.mult.len(), classes.class_of.len());
    let mult = &tuples.mult;
    let tuple = |i: usize| tuples.tuple_of_class[classes.class_of[i] as usize] as usize;
    let tuple_score: Vec<f64> = (0..nt)
        .map(|t| {
            msus.of(t)
                .iter()
                // From +0: an empty f64 sum is −0, which would print as "-0" for a unique record
                // whose every MSU held a missing key.
                .fold(0.0, |acc, &mk| acc + weights[mk.count_ones() as usize])
        })
        .collect();

    // Per record.
    let mut msu_offsets = Vec::with_capacity(n + 1);
    msu_offsets.push(0u64);
    let mut msu_masks = Vec::with_capacity(msus.masks.len());
    let mut score = Vec::with_capacity(n);
    for (i, &c) in classes.class_of.iter().enumerate() {
        if c == DELETED {
            score.push(None);
        } else {
            let t = tuple(i);
            if mult[t] == 1 {
                msu_masks.extend_from_slice(msus.of(t));
            }
            score.push(Some(if mult[t] == 1 { tuple_score[t] } else { 0.0 }));
        }
        msu_offsets.push(msu_masks.len() as u64);
    }
    Scores {
        tuple_score,
        score,
        msu_offsets,
        msu_masks,
    }
}

/// The DIS probability of the file and the DIS-SUDA score of each record.
struct Dis {
    /// Sample-unique records (U).
    sample_uniques: usize,
    /// Records in classes of size 2 (P).
    pair_records: usize,
    /// `U·f / (U·f + P·(1−f))`; `None` without uniques or pairs.
    dis: Option<f64>,
    /// Each record's DIS-SUDA score.
    dis_score: Vec<Option<f64>>,
}

/// The DIS probability with fraction `f` and the DIS-SUDA scores of records scored `score`
/// over `att` keys; `mult` holds the tuples' multiplicities.
fn dis_scores(score: &[Option<f64>], mult: &[u32], att: usize, f: f64) -> Dis {
    let u = mult.iter().filter(|&&s| s == 1).count();
    let pairs = 2 * mult.iter().filter(|&&s| s == 2).count();
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
    Dis {
        sample_uniques: u,
        pair_records: pairs,
        dis,
        dis_score,
    }
}

/// The weights the unique tuples' MSUs credit to each key and to each level of each key.
struct Credits {
    /// Credit of each key.
    total: Vec<f64>,
    /// `level[v][x]`: credit of digit `x` of key `v`.
    level: Vec<Vec<f64>>,
}

impl Credits {
    /// The credits of the MSUs of the unique tuples, with MSU weights `weights` (by size) and
    /// `card` categories per key.
    fn of(tuples: &Tuples, msus: &TupleMsus, weights: &[f64], card: &[u32]) -> Credits {
        let (att, nt) = (tuples.vals.len(), tuples.mult.len());
        let (mult, vals) = (&tuples.mult, &tuples.vals);
        let mut credit_total = vec![0.0f64; att];
        let mut credit_level: Vec<Vec<f64>> =
            card.iter().map(|&c| vec![0.0; c as usize + 1]).collect();
        for t in 0..nt {
            if mult[t] != 1 {
                continue;
            }
            for &mk in msus.of(t) {
                let w = weights[mk.count_ones() as usize];
                for v in 0..att {
                    if mk >> v & 1 == 1 {
                        credit_total[v] += w;
                        credit_level[v][vals[v][t] as usize] += w;
                    }
                }
            }
        }
        Credits {
            total: credit_total,
            level: credit_level,
        }
    }

    /// Percent of the total score of the unique tuples credited to each key.
    fn key_contributions(&self, tuple_score: &[f64], mult: &[u32]) -> Vec<f64> {
        let total_score: f64 = tuple_score
            .iter()
            .zip(mult)
            .filter(|(_, m)| **m == 1)
            .map(|(s, _)| s)
            .sum();
        self.total
            .iter()
            .map(|&c| {
                if total_score > 0.0 {
                    100.0 * c / total_score
                } else {
                    0.0
                }
            })
            .collect()
    }
}

/// Percent of each key's credit given to each of its levels, labelled from the table, levels
/// in natural order (sdcMicro's `attribute_level_contributions`).
fn level_contributions(
    table: &Table,
    params: &Suda2Params,
    tuples: &Tuples,
    classes: &Classes,
    credits: &Credits,
    drop_missing: bool,
) -> Result<Vec<LevelContribution>, RiskError> {
    let (credit_total, credit_level) = (&credits.total, &credits.level);
    let vals = &tuples.vals;
    let tuple = |i: usize| tuples.tuple_of_class[classes.class_of[i] as usize] as usize;
    let mut level_contributions = Vec::new();
    for (v, name) in params.keys.iter().enumerate() {
        let col = table.column(name)?;
        // Label of each code: from a record carrying it.
        let mut label: Vec<Option<String>> = vec![None; credit_level[v].len()];
        let mut seen = vec![false; credit_level[v].len()];
        for &r in &tuples.rep {
            let code = vals[v][tuple(r as usize)] as usize;
            if drop_missing && code == 0 {
                continue;
            }
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
    Ok(level_contributions)
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

/// Depth of the key-subset tree down to which branches are separate parallel tasks.
const PAR_DEPTH: usize = 3;

/// Flag on a partition member that stands only as a blocker (module docs).
const BLOCKER: u32 = 1 << 31;

/// The tuples, column by column: values, and suffix ids (`suffix[j]` = id of the projection on
/// keys `j+1..att`; the last is 0). Tuples are numbered in lexicographic order of their values,
/// so members of a class lie close together and are read in increasing order.
struct Search<'a> {
    vals: &'a [Vec<u32>],
    suffix: Vec<Vec<u32>>,
    mult: Vec<u32>,
    att: usize,
    max: usize,
}

/// Scratch space of one task.
#[derive(Default)]
struct Scratch {
    buf: Vec<u64>,
    buf2: Vec<u64>,
    count: Vec<u32>,
}

impl Search<'_> {
    #[inline]
    fn val(&self, t: u32, w: usize) -> u32 {
        self.vals[w][t as usize]
    }

    /// Whether member `x` (a tuple id, with [`BLOCKER`] set when it only stands for records
    /// that cannot become unique) can become unique.
    #[inline]
    fn candidate(&self, x: u32) -> bool {
        x & BLOCKER == 0 && self.mult[x as usize] == 1
    }

    /// Adds the class on S ∪ {w} (members in `run`, packed `value << 32 | member`) to `out`
    /// when it can still yield a candidate below, and returns whether it did. Members are
    /// grouped by their projection on the keys after `w`: a group of two or more can never
    /// become unique below (not even on every key left), and any one of them blocks whatever
    /// the others block, so the group is kept as one blocker. The class is dropped when no
    /// candidate is left.
    fn push_child(&self, run: &[u64], w: usize, out: &mut Partition, buf2: &mut Vec<u64>) {
        if run.len() == 2 {
            let (a, b) = (run[0] as u32, run[1] as u32);
            let (ta, tb) = ((a & !BLOCKER) as usize, (b & !BLOCKER) as usize);
            if self.suffix[w][ta] != self.suffix[w][tb] && (self.candidate(a) || self.candidate(b))
            {
                out.members.push(a);
                out.members.push(b);
                out.bounds.push(out.members.len() as u32);
            }
            return;
        }
        buf2.clear();
        buf2.extend(run.iter().map(|&x| {
            let m = x as u32;
            (self.suffix[w][(m & !BLOCKER) as usize] as u64) << 32 | m as u64
        }));
        buf2.sort_unstable();
        let start = out.members.len();
        let mut any = false;
        let mut a = 0;
        while a < buf2.len() {
            let key = buf2[a] >> 32;
            let mut b = a + 1;
            while b < buf2.len() && buf2[b] >> 32 == key {
                b += 1;
            }
            let m = buf2[a] as u32;
            if b - a == 1 {
                any |= self.candidate(m);
                out.members.push(m);
            } else {
                out.members.push(m | BLOCKER);
            }
            a = b;
        }
        if any && out.members.len() - start >= 2 {
            out.members[start..].sort_unstable_by_key(|&m| m & !BLOCKER);
            out.bounds.push(out.members.len() as u32);
        } else {
            out.members.truncate(start);
        }
    }

    /// Refines `part` by key `w` into `out` (when `keep`): singletons of multiplicity 1 are
    /// emitted as newly unique on `mask`; classes that cannot yield a candidate are dropped.
    #[allow(clippy::too_many_arguments)]
    fn refine(
        &self,
        part: &Partition,
        w: usize,
        mask: u64,
        keep: bool,
        out: &mut Partition,
        sc: &mut Scratch,
        emit: &mut Vec<(u32, u64)>,
    ) {
        out.clear();
        let Scratch { buf, buf2, count } = sc;
        for class in part.classes() {
            if let &[a, b] = class {
                // The commonest case, without sorting: two singletons or one pair.
                let (va, vb) = (self.val(a & !BLOCKER, w), self.val(b & !BLOCKER, w));
                if va != vb {
                    for m in [a, b] {
                        if self.candidate(m) {
                            emit.push((m, mask));
                        }
                    }
                } else if keep {
                    let run = [(va as u64) << 32 | a as u64, (vb as u64) << 32 | b as u64];
                    self.push_child(&run, w, out, buf2);
                }
                continue;
            }
            buf.clear();
            if class.len() <= 48 {
                buf.extend(
                    class
                        .iter()
                        .map(|&t| (self.val(t & !BLOCKER, w) as u64) << 32 | t as u64),
                );
                buf.sort_unstable();
            } else {
                // Counting sort on the value: stable, so members stay in tuple order.
                let vals: &mut Vec<u64> = buf2;
                vals.clear();
                vals.extend(class.iter().map(|&t| self.val(t & !BLOCKER, w) as u64));
                let hi = vals.iter().copied().max().unwrap_or(0) as usize + 1;
                count.clear();
                count.resize(hi + 1, 0);
                for &v in vals.iter() {
                    count[v as usize + 1] += 1;
                }
                for i in 1..=hi {
                    count[i] += count[i - 1];
                }
                buf.resize(class.len(), 0);
                for (&t, &v) in class.iter().zip(vals.iter()) {
                    let pos = &mut count[v as usize];
                    buf[*pos as usize] = v << 32 | t as u64;
                    *pos += 1;
                }
            }
            let mut a = 0;
            while a < buf.len() {
                let key = buf[a] >> 32;
                let mut b = a + 1;
                while b < buf.len() && buf[b] >> 32 == key {
                    b += 1;
                }
                if b - a == 1 {
                    let m = buf[a] as u32;
                    if self.candidate(m) {
                        emit.push((m, mask));
                    }
                } else if keep {
                    self.push_child(&buf[a..b], w, out, buf2);
                }
                a = b;
            }
        }
    }

    /// Whether children of a node whose last key is `w`, at `depth`, are searched.
    fn descends(&self, w: usize, depth: usize) -> bool {
        w + 1 < self.att && depth < self.max
    }

    /// The subtree below `part` (children add keys `first..att`), in parallel down to
    /// [`PAR_DEPTH`], then sequentially; emissions in a fixed order whatever the threads.
    fn dfs_par(
        &self,
        part: &Partition,
        mask: u64,
        first: usize,
        depth: usize,
    ) -> Vec<Vec<(u32, u64)>> {
        if depth >= PAR_DEPTH {
            let mut emit = Vec::new();
            let mut sc = Scratch::default();
            let mut bufs: Vec<Partition> =
                (depth..self.max).map(|_| Partition::default()).collect();
            if first > 0 {
                self.dfs(part, mask, first - 1, depth, &mut bufs, &mut sc, &mut emit);
            }
            return vec![emit];
        }
        // Chunks of emissions are passed up as they are (moving the vectors, not their data).
        let per_key: Vec<Vec<Vec<(u32, u64)>>> = (first..self.att)
            .into_par_iter()
            .map(|w| {
                let mut emit = Vec::new();
                let mut sc = Scratch::default();
                let mut child = Partition::default();
                let m = mask | 1 << w;
                let keep = self.descends(w, depth + 1);
                self.refine(part, w, m, keep, &mut child, &mut sc, &mut emit);
                let mut chunks = vec![emit];
                if keep && !child.is_empty() {
                    chunks.extend(self.dfs_par(&child, m, w + 1, depth + 1));
                }
                chunks
            })
            .collect();
        per_key.into_iter().flatten().collect()
    }

    #[allow(clippy::too_many_arguments)]
    fn dfs(
        &self,
        part: &Partition,
        mask: u64,
        last: usize,
        depth: usize,
        bufs: &mut [Partition],
        sc: &mut Scratch,
        emit: &mut Vec<(u32, u64)>,
    ) {
        let Some((cur, rest)) = bufs.split_first_mut() else {
            return;
        };
        for w in last + 1..self.att {
            let m = mask | 1 << w;
            let keep = self.descends(w, depth + 1);
            self.refine(part, w, m, keep, cur, sc, emit);
            if keep && !cur.is_empty() {
                self.dfs(cur, m, w, depth + 1, rest, sc, emit);
            }
        }
    }
}

/// Candidates `(tuple, mask)`: tuple unique on `mask` and not on its prefix parent; returned
/// grouped by tuple (`offsets`, `masks`), in a fixed order whatever the thread count.
fn search(vals: &[Vec<u32>], mult: &[u32], max: usize) -> (Vec<u64>, Vec<u64>) {
    let att = vals.len();
    let nt = mult.len();
    if !mult.contains(&1) {
        return (vec![0; nt + 1], Vec::new());
    }
    // Suffix ids, exact: id_j = dense(id_{j+1}, value_j), from the last key down.
    let mut suffix = vec![vec![0u32; nt]; att];
    for j in (0..att.saturating_sub(1)).rev() {
        let zeros;
        let next: &[u32] = if j + 1 < att - 1 {
            &suffix[j + 1]
        } else {
            zeros = vec![0u32; nt];
            &zeros
        };
        suffix[j] = tuple_ids(&[next, &vals[j + 1]], false).0;
    }
    let s = Search {
        vals,
        suffix,
        mult: mult.to_vec(),
        att,
        max,
    };
    let mut root = Partition::default();
    root.clear();
    root.members.extend(0..nt as u32);
    root.bounds.push(nt as u32);
    let emitted = s.dfs_par(&root, 0, 0, 0);
    // Group by tuple (counting sort), then order each group by size and mask.
    let mut offsets = vec![0u64; nt + 1];
    for &(t, _) in emitted.iter().flatten() {
        offsets[t as usize + 1] += 1;
    }
    for t in 0..nt {
        offsets[t + 1] += offsets[t];
    }
    let mut masks = vec![0u64; offsets[nt] as usize];
    let mut pos: Vec<u64> = offsets[..nt].to_vec();
    for &(t, m) in emitted.iter().flatten() {
        masks[pos[t as usize] as usize] = m;
        pos[t as usize] += 1;
    }
    (offsets, masks)
}
