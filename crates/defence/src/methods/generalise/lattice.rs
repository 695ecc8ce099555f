//! The search over the lattice of level vectors.
//!
//! A *transformation* (node) gives each key a level of its hierarchy; the lattice orders them
//! componentwise, from the original values (bottom) to every key at its top level. A node is
//! *anonymous* when the records in classes that break a privacy model number at most the
//! suppression limit (those records are suppressed).
//!
//! # The optimal search
//! 1. **Flash-style pruning on the monotone models** (k-anonymity, distinct ℓ-diversity, k-map
//!    with a population table): if a node keeps them within the limit, so does every node above
//!    it, and if it does not, no node below it does. Nodes are taken bottom up; from each node
//!    not yet tagged a path goes up through untagged nodes (each step to the successor of
//!    cheapest bound; under loss and entropy first to the one with the most tuples), none
//!    whose bound passes the best score, and a binary search on the path checks its middle
//!    node: anonymous tags it and every node above (*predictive tagging*), not anonymous tags
//!    it and every node below. Every node ends tagged, most without being checked. Once most
//!    paths have broken the models from end to end, each path's last node is checked first,
//!    which settles such a path in one check (see `Search::search_path`).
//! 2. **Bounded evaluation of the candidates.** Loss and entropy are not monotone with
//!    suppression (a more general node may suppress fewer records), so every candidate is
//!    scored unless a lower bound rules it out: loss and entropy have bounds that need no
//!    grouping (every record generalised, none suppressed), taken in increasing order until
//!    the bound passes the best score; discernibility and AECS bound a node by the most
//!    classes it can have, `c` (the product of its levels' label counts, at most the classes
//!    of the original values): `n²/c` and `n/c`; both also by the classes of any node checked
//!    below it, k-anonymity's k taken into account (see `Search::raise_bounds`; raised on
//!    every node above a node checked, when no blank class is topped up). Candidates are
//!    checked against every model (the non-monotone ones included), the rule of the intruder
//!    the defence protects against, and the attack constraints.
//!
//! Ties go to the node with the lower level sum, then the lower level vector.
//!
//! # The heuristic search
//! For lattices too large to search (or when asked): ARX's Lightning, read in its code
//! (`LIGHTNINGAlgorithm`): a best-first search from the bottom over the nodes checked by their
//! own scores, with a greedy walk up the best successors every `stepping`-th step (the top's
//! level sum), up to a budget of nodes checked (deterministic) and an optional time limit; it
//! returns the best anonymous node it met and says it is not known to be optimal.
//!
//! Classes are rolled up from the cached classes of a node below ([`super::classes`]); the
//! cache keeps the classes of recently checked nodes within a budget of 16 times the bottom's
//! (at least 2²⁴ words, 64 MB, so that small files keep enough nodes to roll up from near
//! ones), so memory stays O(records × keys) plus the lattice's tags.

use std::collections::{BinaryHeap, HashMap, HashSet};
use std::rc::Rc;
use std::time::Instant;

use super::classes::{AnyPacker, Group, Snapshot, project};
use super::hierarchy::Coded;
use super::metrics::{ClassView, Metric, Prepared};
use super::models::{ClassFacts, FileFacts, Model};

/// An attack the result must withstand: the toolkit's exact attack, by an intruder who knows
/// `keys` of every record (generalised as released), under `rule`.
#[derive(Debug, Clone, PartialEq)]
pub struct AttackConstraint {
    /// `listwise` (blank records left out) or `wildcard` (a blank matches anything).
    pub wildcard: bool,
    /// The keys the intruder knows (indices into the search's keys).
    pub keys: Vec<usize>,
    /// The largest correct re-identification rate allowed.
    pub max_rate: f64,
    /// A label for reports (`exact listwise on age, sex`).
    pub label: String,
}

/// What the search is asked.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The privacy models.
    pub models: Vec<Model>,
    /// Names of the sensitive variables (for messages).
    pub sensitive: Vec<String>,
    /// Records that may be suppressed (ARX: ⌊limit · n⌋).
    pub limit: usize,
    /// When set, the class of suppressed records must hold 0 or at least this many records
    /// (protect_against = all / as-value): when fewer are suppressed, records of the classes
    /// that can spare them are suppressed too.
    pub blank_class_k: Option<u32>,
    /// Attack constraints.
    pub attacks: Vec<AttackConstraint>,
    /// Heuristic search instead of the optimal one.
    pub heuristic: bool,
    /// Nodes the heuristic may check.
    pub budget: usize,
    /// Seconds the heuristic may run (`None`: no limit).
    pub time_limit: Option<f64>,
}

/// One evaluated node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeResult {
    /// Its levels.
    pub levels: Vec<u8>,
    /// Whether it satisfies every model within the limit, the intruder rule and the attack
    /// constraints.
    pub ok: bool,
    /// Whether it satisfies the models within the limit (attack constraints aside).
    pub private: bool,
    /// Its score (ARX's definition).
    pub score: f64,
    /// Per key, for loss and entropy.
    pub per_key: Vec<f64>,
    /// Records suppressed.
    pub suppressed: usize,
    /// The exact attack's rate, listwise and wildcard, the intruder knowing every key.
    pub exact_rates: [f64; 2],
    /// Rate of each attack constraint.
    pub rates: Vec<f64>,
    /// Why it fails, when it does.
    pub failure: Option<String>,
}

/// The search's result.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The best node that satisfies everything, if any.
    pub best: Option<NodeResult>,
    /// Every node scored, in the order evaluated.
    pub evaluated: Vec<NodeResult>,
    /// Nodes checked (grouped), scored or not.
    pub nodes_checked: usize,
    /// Nodes in the lattice.
    pub nodes_total: f64,
    /// Whether the best is known to be optimal.
    pub optimal: bool,
    /// When nothing qualifies: the node that came closest (fewest records short), and why.
    pub closest: Option<NodeResult>,
}

/// The data, coded for the search.
pub struct Prepared2<'a> {
    /// Hierarchies of the keys.
    pub dims: &'a [Coded],
    /// The classes on the original values.
    pub bottom: Snapshot,
    /// Records of the file.
    pub n: usize,
    /// Per sensitive variable, its share of each code over the file.
    pub file: FileFacts,
    /// Whether classes carry population counts.
    pub population: bool,
}

struct Cached {
    snap: Rc<Snapshot>,
    used: u64,
    /// Its classes.
    len: usize,
    /// Its memory, in words.
    words: usize,
    /// Its levels one byte each, when they fit (see [`Search::below`]).
    swar: Option<u128>,
}

/// Each byte's high bit.
const HIGH: u128 = 0x8080_8080_8080_8080_8080_8080_8080_8080;

/// The search state.
pub struct Search<'a> {
    data: &'a Prepared2<'a>,
    settings: &'a Settings,
    metric: &'a Prepared,
    packer: AnyPacker,
    group: Group<'a>,
    radix: Vec<usize>,
    /// Sorted by classes, fewest first.
    cache: Vec<Cached>,
    /// Words the cache holds.
    held: usize,
    budget_words: usize,
    clock: u64,
    checked: usize,
    evaluated: Vec<NodeResult>,
    best: Option<NodeResult>,
    closest: Option<(usize, NodeResult)>,
    monotone: Vec<usize>,
    /// Paths of the optimal search whose every node broke the monotone models, and the others
    /// (see [`Search::search_path`]).
    paths_broken: usize,
    paths_other: usize,
    bounds: Vec<f64>,
    /// Per node, the product of its keys' label counts (the tuples it can have).
    space: Vec<f64>,
}

/// Tags of the optimal search: 0 unknown, 1 breaks the monotone models, 2 keeps them.
struct State {
    tags: Vec<u8>,
    scored: Vec<bool>,
}

/// Sources at least this large are split by a hub before rolling up several keys at once.
const HUB_MIN: usize = 4096;

/// Largest lattice searched optimally (tags are kept per node).
pub const MAX_OPTIMAL_NODES: f64 = 16_777_216.0;

fn better(a: &NodeResult, b: &NodeResult) -> bool {
    let sa: u32 = a.levels.iter().map(|&x| x as u32).sum();
    let sb: u32 = b.levels.iter().map(|&x| x as u32).sum();
    (a.score, sa, &a.levels) < (b.score, sb, &b.levels)
}

impl<'a> Search<'a> {
    /// A search over `data`.
    pub fn new(data: &'a Prepared2<'a>, settings: &'a Settings, metric: &'a Prepared) -> Self {
        let card: Vec<usize> = data.dims.iter().map(|c| c.card(0)).collect();
        let radix = data.dims.iter().map(|c| c.levels).collect();
        let budget_words = (16 * data.bottom.words()).max(1 << 24);
        Search {
            data,
            settings,
            metric,
            packer: AnyPacker::new(&card),
            group: Group {
                dims: data.dims,
                population: data.population,
                sensitive: data.bottom.hists.len(),
            },
            radix,
            cache: Vec::new(),
            held: 0,
            budget_words,
            clock: 0,
            checked: 0,
            evaluated: Vec::new(),
            best: None,
            closest: None,
            monotone: settings
                .models
                .iter()
                .enumerate()
                .filter(|(_, m)| m.monotone_with_suppression())
                .map(|(i, _)| i)
                .collect(),
            paths_broken: 0,
            paths_other: 0,
            bounds: Vec::new(),
            space: Vec::new(),
        }
    }

    /// Nodes in the lattice.
    pub fn nodes_total(&self) -> f64 {
        self.radix.iter().map(|&r| r as f64).product()
    }

    fn decode(&self, mut idx: usize) -> Vec<u8> {
        let mut v = vec![0u8; self.radix.len()];
        for d in (0..self.radix.len()).rev() {
            v[d] = (idx % self.radix[d]) as u8;
            idx /= self.radix[d];
        }
        v
    }

    fn encode(&self, levels: &[u8]) -> usize {
        levels
            .iter()
            .zip(&self.radix)
            .fold(0, |i, (&l, &r)| i * r + l as usize)
    }

    /// `levels` one byte each in a word, when there are at most 16 keys of at most 128 levels:
    /// then `a ≤ b` in every key is `((b | HIGH) − a) & HIGH == HIGH` (no byte borrows).
    fn swar(&self, levels: &[u8]) -> Option<u128> {
        (levels.len() <= 16 && self.radix.iter().all(|&r| r <= 128)).then(|| {
            levels
                .iter()
                .enumerate()
                .fold(0u128, |w, (d, &l)| w | (l as u128) << (8 * d))
        })
    }

    /// Whether cached node `c` is at or below `levels` (`swar`: theirs packed).
    #[inline]
    fn below(c: &Cached, levels: &[u8], swar: Option<u128>) -> bool {
        match (c.swar, swar) {
            (Some(a), Some(b)) => ((b | HIGH) - a) & HIGH == HIGH,
            _ => c.snap.levels.iter().zip(levels).all(|(a, b)| a <= b),
        }
    }

    /// The cached node below `levels` with the fewest classes (`None`: the bottom); among
    /// as few, `levels` itself when cached. The cache is sorted by classes, so the first node
    /// below is the one.
    fn source(&self, levels: &[u8]) -> Option<usize> {
        let swar = self.swar(levels);
        let first = self
            .cache
            .iter()
            .position(|c| Self::below(c, levels, swar))?;
        let len = self.cache[first].len;
        let same = self.cache[first..]
            .iter()
            .take_while(|c| c.len == len)
            .position(|c| c.snap.levels == levels);
        Some(first + same.unwrap_or(0))
    }

    /// The classes of `levels`, rolled up from the smallest cached node below it. When that
    /// node is large and differs from `levels` in several keys, a *hub* is made on the way:
    /// the source with the one key raised that shrinks its domain most, cached for the nodes
    /// that share that level.
    pub fn classes(&mut self, levels: &[u8]) -> Rc<Snapshot> {
        loop {
            self.clock += 1;
            let src = self.source(levels);
            if let Some(i) = src {
                self.cache[i].used = self.clock;
                if self.cache[i].snap.levels == levels {
                    return Rc::clone(&self.cache[i].snap);
                }
            }
            let from = match src {
                Some(i) => &self.cache[i].snap,
                None => &self.data.bottom,
            };
            let raised: Vec<usize> = (0..levels.len())
                .filter(|&d| from.levels[d] < levels[d])
                .collect();
            if from.len() >= HUB_MIN && raised.len() >= 2 {
                let d = *raised
                    .iter()
                    .max_by(|&&a, &&b| {
                        let shrink = |d: usize| {
                            let c = &self.data.dims[d];
                            c.card(from.levels[d] as usize) as f64
                                / c.card(levels[d] as usize) as f64
                        };
                        shrink(a).total_cmp(&shrink(b)).then(b.cmp(&a))
                    })
                    .expect("two keys raised");
                let mut hub = from.levels.clone();
                hub[d] = levels[d];
                let snap = Rc::new(self.group.roll_up(&self.packer, from, &hub, false).0);
                if !self.remember(&snap) {
                    return Rc::new(self.group.roll_up(&self.packer, &snap, levels, false).0);
                }
                continue;
            }
            let snap = Rc::new(self.group.roll_up(&self.packer, from, levels, false).0);
            self.remember(&snap);
            return snap;
        }
    }

    /// Caches `snap` (evicting the least recently used); `false` when it is too large to keep.
    fn remember(&mut self, snap: &Rc<Snapshot>) -> bool {
        let words = snap.words();
        if words > self.budget_words / 4 {
            return false;
        }
        while self.held + words > self.budget_words && !self.cache.is_empty() {
            let oldest = (0..self.cache.len())
                .min_by_key(|&i| self.cache[i].used)
                .expect("not empty");
            self.held -= self.cache[oldest].words;
            self.cache.remove(oldest);
        }
        let len = snap.len();
        let at = self.cache.partition_point(|c| c.len <= len);
        self.cache.insert(
            at,
            Cached {
                snap: Rc::clone(snap),
                used: self.clock,
                len,
                words,
                swar: self.swar(&snap.levels),
            },
        );
        self.held += words;
        true
    }

    /// Whether the records in classes that break the monotone models number at most the
    /// limit (counting stops once they pass it). k-anonymity alone, the usual case, needs only
    /// the class sizes.
    fn monotone_within_limit(&self, snap: &Snapshot) -> bool {
        let limit = self.settings.limit;
        let mut out = 0usize;
        if let [m] = self.monotone[..]
            && let Model::KAnonymity { k } = self.settings.models[m]
        {
            for &c in &snap.count {
                if c != 0 && c < k {
                    out += c as usize;
                    if out > limit {
                        return false;
                    }
                }
            }
            return true;
        }
        let mut hs = Vec::with_capacity(snap.hists.len());
        for c in 0..snap.len() {
            if snap.count[c] == 0 {
                continue;
            }
            hs.clear();
            hs.extend(snap.hists.iter().map(|h| h[c].clone()));
            let f = ClassFacts {
                count: snap.count[c],
                pcount: if self.data.population {
                    snap.pcount[c]
                } else {
                    0
                },
                hists: &hs,
            };
            if self
                .monotone
                .iter()
                .any(|&m| !self.settings.models[m].holds(&f, &self.data.file))
            {
                out += snap.count[c] as usize;
                if out > limit {
                    return false;
                }
            }
        }
        true
    }

    /// Checks a node fully: models, limit, the blank class, attack constraints, score.
    pub fn evaluate(&mut self, levels: &[u8]) -> NodeResult {
        self.checked += 1;
        let snap = self.classes(levels);
        self.raise_bounds(levels, &snap);
        self.score_snap(&snap)
    }

    fn score_snap(&mut self, snap: &Snapshot) -> NodeResult {
        let r = self.judge(snap);
        if r.ok && self.best.as_ref().is_none_or(|b| better(&r, b)) {
            self.best = Some(r.clone());
        }
        if !r.ok {
            let short = r.suppressed.saturating_sub(self.settings.limit);
            if self
                .closest
                .as_ref()
                .is_none_or(|(s, c)| (short, r.score) < (*s, c.score))
            {
                self.closest = Some((short, r.clone()));
            }
        }
        self.evaluated.push(r.clone());
        r
    }

    /// Which classes are suppressed at `snap`, and why the node fails if it does.
    pub fn outliers(&self, snap: &Snapshot) -> (Vec<bool>, Option<String>) {
        let models = &self.settings.models;
        let mut outlier = vec![false; snap.len()];
        let mut failure = None;
        let mut hs = Vec::with_capacity(snap.hists.len());
        let mut broken = vec![0usize; models.len()];
        let ks: Vec<u32> = models
            .iter()
            .filter_map(|m| match m {
                Model::KAnonymity { k } => Some(*k),
                _ => None,
            })
            .collect();
        let sizes_only = !self.data.population && ks.len() == models.len();
        if sizes_only {
            // k-anonymity alone, the usual case: class sizes are all it reads (every class
            // holds records of the file without a population table)
            let most = ks.iter().copied().max().unwrap_or(0);
            for (o, &n) in outlier.iter_mut().zip(&snap.count) {
                if n < most {
                    *o = true;
                    for (b, &k) in broken.iter_mut().zip(&ks) {
                        if n < k {
                            *b += n as usize;
                        }
                    }
                }
            }
        }
        for c in (0..snap.len()).filter(|_| !sizes_only) {
            if snap.count[c] == 0 {
                let p = if self.data.population {
                    snap.pcount[c]
                } else {
                    0
                };
                if let Some(m) = models.iter().find(|m| !m.holds_empty(p)) {
                    failure.get_or_insert_with(|| {
                        format!(
                            "{}: a population class without records breaks it and cannot be suppressed",
                            m.describe(&self.settings.sensitive)
                        )
                    });
                }
                continue;
            }
            hs.clear();
            hs.extend(snap.hists.iter().map(|h| h[c].clone()));
            let f = ClassFacts {
                count: snap.count[c],
                pcount: if self.data.population {
                    snap.pcount[c]
                } else {
                    0
                },
                hists: &hs,
            };
            for (i, m) in models.iter().enumerate() {
                if !m.holds(&f, &self.data.file) {
                    outlier[c] = true;
                    broken[i] += snap.count[c] as usize;
                }
            }
        }
        let s: usize = (0..snap.len())
            .filter(|&c| outlier[c])
            .map(|c| snap.count[c] as usize)
            .sum();
        if failure.is_none() && s > self.settings.limit {
            let worst = (0..models.len()).max_by_key(|&i| broken[i]).unwrap_or(0);
            failure = Some(format!(
                "{} needs {s} records suppressed ({} by {} alone); the suppression limit allows {}",
                if models.len() == 1 {
                    "the model"
                } else {
                    "the models"
                },
                broken.get(worst).copied().unwrap_or(0),
                models
                    .get(worst)
                    .map(|m| m.describe(&self.settings.sensitive))
                    .unwrap_or_default(),
                self.settings.limit
            ));
        }
        (outlier, failure)
    }

    fn judge(&self, snap: &Snapshot) -> NodeResult {
        let (mut outlier, mut failure) = self.outliers(snap);
        let private = failure.is_none();
        // the view: classes, with records taken from classes that can spare them when the
        // blank class must reach k
        let dims = self.data.dims.len();
        // the codes, unpacked only for what reads them: loss and entropy, a topped-up blank
        // class (its records' tuples), the attack constraints (projections)
        let reads_codes = matches!(self.metric.metric, Metric::Loss | Metric::Entropy)
            || self.settings.blank_class_k.is_some()
            || !self.settings.attacks.is_empty();
        let base = if reads_codes {
            snap.unpacked(&self.packer)
        } else {
            std::borrow::Cow::Borrowed(&snap.codes[..])
        };
        let mut codes = std::borrow::Cow::Borrowed(&base[..]);
        let mut count = std::borrow::Cow::Borrowed(&snap.count[..]);
        let mut s: usize = (0..snap.len())
            .filter(|&c| outlier[c])
            .map(|c| count[c] as usize)
            .sum();
        if let Some(k) = self.settings.blank_class_k
            && s > 0
            && (s as u64) < k as u64
        {
            let need = k as usize - s;
            let k_min = self.settings.models.iter().find_map(|m| match m {
                Model::KAnonymity { k } => Some(*k),
                _ => None,
            });
            let floor = k_min.unwrap_or(1) as usize;
            let mut spare: Vec<(usize, usize)> = (0..snap.len())
                .filter(|&c| !outlier[c] && count[c] as usize > floor)
                .map(|c| (count[c] as usize - floor, c))
                .collect();
            spare.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            let mut left = need;
            for (sp, c) in spare {
                if left == 0 {
                    break;
                }
                let take = sp.min(left);
                count.to_mut()[c] -= take as u32;
                codes
                    .to_mut()
                    .extend_from_slice(&base[c * dims..(c + 1) * dims]);
                count.to_mut().push(take as u32);
                outlier.push(true);
                left -= take;
            }
            s = k as usize - left;
            if left > 0 && failure.is_none() {
                failure = Some(format!(
                    "protect_against: {} records suppressed form a class below k = {k}, and the other classes cannot spare {} more",
                    k as usize - need,
                    need
                ));
            } else if s > self.settings.limit && failure.is_none() {
                failure = Some(format!(
                    "protect_against: the {} suppressed records form a class below k = {k}; reaching k needs {k} suppressed, above the limit of {}",
                    k as usize - need,
                    self.settings.limit
                ));
            }
        }
        let view = ClassView {
            dims,
            levels: &snap.levels,
            codes: &codes,
            count: &count,
            outlier: &outlier,
        };
        let score = self.metric.score(&view);

        let distinct = count.len() == snap.len();
        let all: Vec<usize> = (0..dims).collect();
        let exact_rates = exact_rates_on(&view, self.data.n, &all, distinct);
        let mut rates = Vec::with_capacity(self.settings.attacks.len());
        for a in &self.settings.attacks {
            let r = exact_rates_on(&view, self.data.n, &a.keys, distinct)[a.wildcard as usize];
            if r > a.max_rate && failure.is_none() {
                failure = Some(format!(
                    "attack constraint: {} re-identifies {:.4}% > {:.4}%",
                    a.label,
                    100.0 * r,
                    100.0 * a.max_rate
                ));
            }
            rates.push(r);
        }
        NodeResult {
            levels: snap.levels.clone(),
            ok: failure.is_none(),
            private,
            score: score.value,
            per_key: score.per_key,
            suppressed: s,
            exact_rates,
            rates,
            failure,
        }
    }

    /// Runs the search.
    pub fn run(mut self) -> Outcome {
        let total = self.nodes_total();
        let optimal = !self.settings.heuristic && total <= MAX_OPTIMAL_NODES;
        if optimal {
            self.optimal_search();
        } else {
            self.heuristic_search();
        }
        if self.best.is_none() && self.closest.is_none() {
            // nothing was scored (every node breaks the monotone models): the top, which
            // suppresses fewest, is the closest, and says which constraint fails
            let top: Vec<u8> = self.radix.iter().map(|&r| (r - 1) as u8).collect();
            self.evaluate(&top);
        }
        let exhausted = optimal;
        Outcome {
            best: self.best,
            evaluated: self.evaluated,
            nodes_checked: self.checked,
            nodes_total: total,
            optimal: exhausted,
            closest: self.closest.map(|x| x.1),
        }
    }

    fn successors(&self, idx: usize) -> Vec<usize> {
        let levels = self.decode(idx);
        let mut out = Vec::new();
        let mut stride = 1usize;
        for d in (0..self.radix.len()).rev() {
            if (levels[d] as usize) + 1 < self.radix[d] {
                out.push(idx + stride);
            }
            stride *= self.radix[d];
        }
        out
    }

    fn predecessors(&self, idx: usize) -> Vec<usize> {
        let levels = self.decode(idx);
        let mut out = Vec::new();
        let mut stride = 1usize;
        for d in (0..self.radix.len()).rev() {
            if levels[d] > 0 {
                out.push(idx - stride);
            }
            stride *= self.radix[d];
        }
        out
    }

    /// Tags `idx` and every node above (`up`) or below it with `tag`.
    fn tag_closure(&self, tags: &mut [u8], idx: usize, tag: u8, up: bool) {
        let mut stack = vec![idx];
        while let Some(i) = stack.pop() {
            if tags[i] == tag {
                continue;
            }
            tags[i] = tag;
            let next = if up {
                self.successors(i)
            } else {
                self.predecessors(i)
            };
            stack.extend(next.into_iter().filter(|&j| tags[j] != tag));
        }
    }

    fn bound(&self, idx: usize) -> f64 {
        self.bounds[idx]
    }

    /// The static bound of every node (see [`Prepared::bound`]).
    fn all_bounds(&self, total: usize) -> Vec<f64> {
        let bottom = self.data.bottom.len() as f64;
        (0..total)
            .map(|i| self.metric.bound(&self.decode(i), self.space[i].min(bottom)))
            .collect()
    }

    /// Every node's product of label counts.
    fn all_spaces(&self, total: usize) -> Vec<f64> {
        (0..total)
            .map(|i| {
                self.decode(i)
                    .iter()
                    .enumerate()
                    .map(|(d, &l)| self.data.dims[d].card(l as usize) as f64)
                    .product()
            })
            .collect()
    }

    /// A bound on the score of every node at or above one checked that can be the result, from
    /// the checked node's classes `e`, when no blank class is topped up (topping up adds a class
    /// the bound does not count). A node above merges the classes `e`; a class it keeps holds at
    /// least `k` records (the largest k of the k-anonymity models, else 1), and a class it
    /// suppresses costs `n` per record.
    /// - Discernibility: a kept class `E` costs `|E|² = Σ_{e⊂E} |e|·|E|` with `|E| ≥ max(k, |e|)`,
    ///   a suppressed part `n·|e| ≥ |e|·max(k, |e|)`: `Σ_e |e|·max(k, |e|)` bounds them all.
    /// - AECS, `n / (kept·s + [suppressed]·g)` with both factors at most 1: a kept class holds a
    ///   class `e` of at least `k` records (`L` of them) or at least `k` of the `R` records in
    ///   smaller ones, and classes only merge, so `kept + [suppressed] ≤ min(classes,
    ///   L + ⌊R/k⌋ + 1)`.
    ///
    /// Raised here on every node above.
    fn raise_bounds(&mut self, levels: &[u8], snap: &Snapshot) {
        if self.bounds.is_empty() || self.settings.blank_class_k.is_some() {
            return;
        }
        let k = self
            .settings
            .models
            .iter()
            .filter_map(|m| match m {
                Model::KAnonymity { k } => Some(*k),
                _ => None,
            })
            .max()
            .unwrap_or(1)
            .max(1) as u64;
        let b: f64 = match self.metric.metric {
            Metric::Discernibility => snap
                .count
                .iter()
                .map(|&c| (c as u64 * k.max(c as u64)) as f64)
                .sum(),
            Metric::Aecs => {
                let (mut classes, mut large, mut small) = (0u64, 0u64, 0u64);
                for &c in snap.count.iter().filter(|&&c| c > 0) {
                    classes += 1;
                    if c as u64 >= k {
                        large += 1;
                    } else {
                        small += c as u64;
                    }
                }
                let most = classes.min(large + small / k + 1);
                self.data.n as f64 / most.max(1) as f64
            }
            _ => return,
        };
        let mut cur = levels.to_vec();
        loop {
            let i = self.encode(&cur);
            if self.bounds[i] < b {
                self.bounds[i] = b;
            }
            // the next level vector at or above `levels` (odometer, last key fastest)
            let mut d = cur.len();
            loop {
                if d == 0 {
                    return;
                }
                d -= 1;
                if (cur[d] as usize) + 1 < self.radix[d] {
                    cur[d] += 1;
                    break;
                }
                cur[d] = levels[d];
            }
        }
    }

    /// Checks node `idx` against the monotone models, tagging it and the nodes it decides;
    /// a node that keeps them is scored. Returns whether it keeps them.
    fn check_monotone(&mut self, st: &mut State, idx: usize) -> bool {
        let levels = self.decode(idx);
        let snap = self.classes(&levels);
        self.checked += 1;
        self.raise_bounds(&levels, &snap);
        if self.monotone_within_limit(&snap) {
            self.tag_closure(&mut st.tags, idx, 2, true);
            self.score_snap(&snap);
            st.scored[idx] = true;
            true
        } else {
            self.tag_closure(&mut st.tags, idx, 1, false);
            false
        }
    }

    /// Flash's step: a path up from `start` through untagged nodes (none whose bound is above
    /// `cap`), binary-searched for its lowest node that keeps the monotone models. Each step
    /// goes to the successor of cheapest bound; under loss and entropy (whose bounds need no
    /// grouping) first to the one with the most tuples (the raised key merges fewest labels),
    /// which keeps the path long and low: on adult 6-48 % fewer nodes checked, on the million
    /// file 10-14 % fewer (but 107 against 88 for loss at k = 2). Discernibility and AECS keep
    /// the cheapest bound (most tuples first checked 20 % more nodes under discernibility on
    /// the million file, about as many on adult).
    fn search_path(&mut self, st: &mut State, start: usize, cap: f64) {
        let finest = matches!(self.metric.metric, Metric::Loss | Metric::Entropy);
        let mut path = vec![start];
        let mut cur = start;
        loop {
            let next = self
                .successors(cur)
                .into_iter()
                .filter(|&j| st.tags[j] == 0 && self.bound(j) <= cap)
                .max_by(|&a, &b| {
                    let finer = if finest {
                        self.space[a].total_cmp(&self.space[b])
                    } else {
                        std::cmp::Ordering::Equal
                    };
                    finer
                        .then(self.bound(b).total_cmp(&self.bound(a)))
                        .then(b.cmp(&a))
                });
            match next {
                Some(j) => {
                    path.push(j);
                    cur = j;
                }
                None => break,
            }
        }
        let (mut lo, mut hi) = (0isize, path.len() as isize - 1);
        // A path whose last node breaks the models breaks them all (tagging below settles it);
        // when most paths so far did, the last node is checked first, which settles such a path
        // in one check rather than the binary search's ⌈log₂(len + 1)⌉, at the price of one
        // more check on the others. On adult under loss and entropy 93-99 % of the paths break
        // the models throughout (their tops lie just below nodes already found to keep them):
        // k = 5 checks 473 nodes instead of 806 under loss, 875 instead of 1571 under entropy.
        // Under discernibility and AECS most paths cross the boundary, and the binary search
        // stays as it was.
        if self.paths_broken > self.paths_other && path.len() > 1 {
            let last = path[path.len() - 1];
            let keeps = match st.tags[last] {
                0 => self.check_monotone(st, last),
                t => t == 2,
            };
            if !keeps {
                self.paths_broken += 1;
                return;
            }
            hi -= 1;
        }
        while lo <= hi {
            let mid = ((lo + hi) / 2) as usize;
            let idx = path[mid];
            let keeps = match st.tags[idx] {
                0 => self.check_monotone(st, idx),
                t => t == 2,
            };
            if keeps {
                hi = mid as isize - 1;
            } else {
                lo = mid as isize + 1;
            }
        }
        if lo as usize == path.len() {
            self.paths_broken += 1;
        } else {
            self.paths_other += 1;
        }
    }

    fn best_score(&self) -> f64 {
        self.best.as_ref().map_or(f64::INFINITY, |b| b.score)
    }

    fn optimal_search(&mut self) {
        let total = self.nodes_total() as usize;
        self.space = self.all_spaces(total);
        self.bounds = self.all_bounds(total);
        let mut st = State {
            tags: vec![if self.monotone.is_empty() { 2 } else { 0 }; total],
            scored: vec![false; total],
        };
        // nodes in increasing bound; none is needed once its bound passes the best score (nor
        // any node above it: the bound only grows up the lattice)
        let level_sum = |s: &Self, i: usize| -> u32 { s.decode(i).iter().map(|&x| x as u32).sum() };
        let mut order: Vec<(f64, u32, usize)> = (0..total)
            .map(|i| (self.bounds[i], level_sum(self, i), i))
            .collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        for (lb, _, idx) in order {
            if lb > self.best_score() {
                break;
            }
            if self.bounds[idx] > self.best_score() {
                continue; // raised by a node below it (discernibility)
            }
            if st.tags[idx] == 0 {
                self.search_path(&mut st, idx, self.best_score());
            }
            if st.tags[idx] == 2 && !st.scored[idx] {
                st.scored[idx] = true;
                let levels = self.decode(idx);
                self.evaluate(&levels);
            }
        }
    }

    /// ARX's Lightning (`LIGHTNINGAlgorithm`): a best-first search from the bottom over the
    /// nodes checked, ordered by their scores (a node that breaks a model is scored with its
    /// outliers suppressed, so the order leads towards few suppressions and little
    /// generalisation), every `stepping`-th step (the top's level sum) a greedy walk up the best
    /// successors to the top; expanding a node checks each successor not expanded nor ruled out
    /// and queues it by its own score. A node is skipped when expanded already, or when its
    /// lower bound is above the best score found (the bound of the optimal search).
    fn heuristic_search(&mut self) {
        let start = Instant::now();
        let dims = self.radix.len();
        let bottom = vec![0u8; dims];
        let mut run = Lightning {
            heap: BinaryHeap::new(),
            checked: HashMap::new(),
            expanded: HashSet::new(),
            start,
        };
        let r = self.evaluate(&bottom);
        run.checked.insert(bottom.clone(), r.score);
        run.heap.push(Queued(r.score, bottom));
        let top: Vec<u8> = self.radix.iter().map(|&r| (r - 1) as u8).collect();
        let stepping = top.iter().map(|&l| l as usize).sum::<usize>().max(1);
        let mut step = 0usize;
        while let Some(Queued(_, levels)) = run.heap.pop() {
            if run.expanded.contains(&levels) || self.ruled_out(&levels) {
                continue;
            }
            step += 1;
            if step.is_multiple_of(stepping) {
                let mut node = levels;
                while let Some(next) = self.expand(&mut run, &node) {
                    node = next;
                }
            } else {
                self.expand(&mut run, &levels);
            }
            if self.must_stop(&run) {
                break;
            }
        }
        if self.best.is_none() && !run.checked.contains_key(&top) {
            self.evaluate(&top);
        }
    }

    /// Whether the heuristic's budget or time is spent.
    fn must_stop(&self, run: &Lightning) -> bool {
        self.checked >= self.settings.budget
            || self
                .settings
                .time_limit
                .is_some_and(|t| run.start.elapsed().as_secs_f64() > t)
    }

    /// Whether no node at `levels` can beat the best found: its lower bound is above the best
    /// score (ties are kept: they may win on the level sum).
    fn ruled_out(&self, levels: &[u8]) -> bool {
        let Some(best) = &self.best else {
            return false;
        };
        let space: f64 = levels
            .iter()
            .enumerate()
            .map(|(d, &l)| self.data.dims[d].card(l as usize) as f64)
            .product();
        let bottom = self.data.bottom.len() as f64;
        best.levels != levels && self.metric.bound(levels, space.min(bottom)) > best.score
    }

    /// Checks and queues every successor of `levels` not expanded nor ruled out, marks `levels`
    /// expanded, and gives the successor of lowest score (`None` when there is none, or the
    /// budget ran out on the way).
    fn expand(&mut self, run: &mut Lightning, levels: &[u8]) -> Option<Vec<u8>> {
        let mut best: Option<(f64, Vec<u8>)> = None;
        for d in 0..levels.len() {
            if (levels[d] as usize) + 1 >= self.radix[d] {
                continue;
            }
            let mut s = levels.to_vec();
            s[d] += 1;
            if run.expanded.contains(&s) || self.ruled_out(&s) {
                continue;
            }
            if self.must_stop(run) {
                return None;
            }
            let score = match run.checked.get(&s) {
                Some(&score) => score,
                None => {
                    let score = self.evaluate(&s).score;
                    run.checked.insert(s.clone(), score);
                    run.heap.push(Queued(score, s.clone()));
                    score
                }
            };
            if best
                .as_ref()
                .is_none_or(|(b, l)| score.total_cmp(b).then_with(|| s.cmp(l)).is_lt())
            {
                best = Some((score, s));
            }
        }
        run.expanded.insert(levels.to_vec());
        best.map(|(_, l)| l)
    }
}

/// The state of the heuristic search.
struct Lightning {
    /// Checked nodes not yet expanded, lowest score first.
    heap: BinaryHeap<Queued>,
    /// Every node checked, with its score.
    checked: HashMap<Vec<u8>, f64>,
    expanded: HashSet<Vec<u8>>,
    start: Instant,
}

/// A node in the heuristic's queue: its score and levels (a max-heap of the reverse order: the
/// lowest score first, then the lower levels).
#[derive(PartialEq)]
struct Queued(f64, Vec<u8>);

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Queued {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        o.0.total_cmp(&self.0).then_with(|| o.1.cmp(&self.1))
    }
}


/// The exact attack's correct re-identification rate (listwise, wildcard) over `n` targets who
/// know `keys`, from the released classes (which may repeat a tuple).
pub fn exact_rates(view: &ClassView, n: usize, keys: &[usize]) -> [f64; 2] {
    exact_rates_on(view, n, keys, false)
}

/// The same, `distinct` saying that no two classes of `view` share a tuple: a released record is a candidate for a target
/// when it shows the target's generalised values on those keys (listwise: suppressed records
/// are left out; wildcard: they match every target). Each target is correct with probability
/// 1/candidates when its own record is a candidate.
pub fn exact_rates_on(view: &ClassView, n: usize, keys: &[usize], distinct: bool) -> [f64; 2] {
    if n == 0 {
        return [0.0, 0.0];
    }
    if distinct && keys.len() == view.dims {
        // each class its own group: no grouping to do
        let s: u64 = (0..view.count.len())
            .filter(|&c| view.outlier[c])
            .map(|c| view.count[c] as u64)
            .sum();
        let (mut listwise, mut wildcard) = (0.0, 0.0);
        for (&k, &hidden) in view.count.iter().zip(view.outlier) {
            let k = k as u64;
            if k == 0 {
                continue;
            }
            if hidden {
                wildcard += k as f64 / s as f64;
            } else {
                listwise += 1.0;
                wildcard += k as f64 / (k + s) as f64;
            }
        }
        return [listwise / n as f64, wildcard / n as f64];
    }
    let (group, groups) = {
        let snap = Snapshot {
            levels: view.levels.to_vec(),
            codes: view.codes.to_vec(),
            count: view.count.to_vec(),
            ..Snapshot::default()
        };
        project(&snap, view.dims, keys)
    };
    let mut visible = vec![0u64; groups];
    let mut hidden = vec![0u64; groups];
    for c in 0..view.count.len() {
        let k = view.count[c] as u64;
        if view.outlier[c] {
            hidden[group[c] as usize] += k;
        } else {
            visible[group[c] as usize] += k;
        }
    }
    let s: u64 = hidden.iter().sum();
    let (mut listwise, mut wildcard) = (0.0, 0.0);
    for g in 0..groups {
        if visible[g] > 0 {
            listwise += 1.0;
            wildcard += visible[g] as f64 / (visible[g] + s) as f64;
        }
        if hidden[g] > 0 {
            wildcard += hidden[g] as f64 / (visible[g] + s) as f64;
        }
    }
    [listwise / n as f64, wildcard / n as f64]
}
