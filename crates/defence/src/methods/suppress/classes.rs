//! Local suppression under the listwise and as-value rules: classes of visible values.
//!
//! A record's *class* is its combination of visible key values together with which keys are
//! blank (the as-value class). Suppressing key `j` of every record of a class moves the whole
//! class to the class with `j` blank as well — one level down in the lattice of patterns of
//! visible keys — and a class can only receive records from the levels above it. So the levels
//! are settled top down, each once:
//!
//! 1. **Top down.** At each level, from all keys visible to one, every unsafe class (fewer than k
//!    records, or an individual risk above the threshold) is moved down by one key. The key is
//!    the least important one whose destination class becomes safe with it; when none does, the
//!    one whose destination is largest (ties: least important), and the class is settled again
//!    at the next level. Under `listwise` only complete classes are held to the target: a class
//!    with a blank is left out by the intruder, so one blank per unsafe complete record is
//!    enough (least important key).
//! 2. **Every key blank** (`as-value`): the class of records with no visible key is held to the
//!    target too. When it is unsafe, records are taken from the classes with the fewest visible
//!    keys that can spare them and stay safe; if those do not suffice, whole classes are moved.
//! 3. **Restore.** Every suppressed cell that is not needed is given back: for each class, most
//!    important keys first, the records sharing an original value move back up when both the
//!    class they leave (unless emptied) and the class they join stay safe. Repeated until
//!    nothing changes, so no single class of records can take back a cell without breaking the
//!    target.
//!
//! Cost: O(records × keys) hash operations per level and per restore pass.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;

use foldhash::fast::FixedState;
use intruder_table::keys::MISSING;

use super::Target;

/// Which classes must reach the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClassRule {
    /// Complete classes only.
    Listwise,
    /// Every class, the one with every key blank included.
    AsValue,
}

/// Why the target could not be reached.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unreachable {
    pub records: usize,
}

/// Suppresses cells of `codes` (one code vector per key, [`MISSING`] where missing) until every
/// class the rule holds reaches `target`; returns the suppressed (row, key) cells, ordered by row
/// then key.
pub(crate) fn anonymise(
    codes: &[Vec<u32>],
    card: &[u32],
    weights: Option<&[f64]>,
    rule: ClassRule,
    target: Target,
    importance: &[i64],
) -> Result<Vec<(usize, usize)>, Unreachable> {
    match Packed::new(card) {
        Some(packer) => Engine::new(codes, weights, rule, target, importance, packer).run(),
        None => Engine::new(codes, weights, rule, target, importance, Wide).run(),
    }
}

/// How a class's tuple of codes (with blanks) is kept as a hash key.
trait Packer {
    /// The key.
    type K: Hash + Eq + Clone;
    /// The key of the codes `code(0..p)`.
    fn pack(&self, p: usize, code: &dyn Fn(usize) -> u32) -> Self::K;
    /// `key` with key `j`'s code replaced by `v`.
    fn with(&self, key: &Self::K, j: usize, v: u32) -> Self::K;
}

/// Every code in one 128-bit word, a field per key (value `card` for a blank).
struct Packed {
    shift: Vec<u32>,
    mask: Vec<u128>,
    card: Vec<u32>,
}

impl Packed {
    fn new(card: &[u32]) -> Option<Packed> {
        let (mut shift, mut mask, mut s) = (Vec::new(), Vec::new(), 0u32);
        for &c in card {
            let bits = 64 - (c as u64 + 1).leading_zeros();
            shift.push(s);
            mask.push(((1u128 << bits) - 1) << s);
            s += bits;
            if s > 128 {
                return None;
            }
        }
        Some(Packed {
            shift,
            mask,
            card: card.to_vec(),
        })
    }

    #[inline]
    fn field(&self, j: usize, v: u32) -> u128 {
        let v = if v == MISSING { self.card[j] } else { v };
        (v as u128) << self.shift[j]
    }
}

impl Packer for Packed {
    type K = u128;
    fn pack(&self, p: usize, code: &dyn Fn(usize) -> u32) -> u128 {
        (0..p).fold(0, |k, j| k | self.field(j, code(j)))
    }
    #[inline]
    fn with(&self, key: &u128, j: usize, v: u32) -> u128 {
        (key & !self.mask[j]) | self.field(j, v)
    }
}

/// The codes themselves, for keys too wide for 128 bits.
struct Wide;

impl Packer for Wide {
    type K = Box<[u32]>;
    fn pack(&self, p: usize, code: &dyn Fn(usize) -> u32) -> Box<[u32]> {
        (0..p).map(code).collect()
    }
    fn with(&self, key: &Box<[u32]>, j: usize, v: u32) -> Box<[u32]> {
        let mut k = key.clone();
        k[j] = v;
        k
    }
}

#[derive(Debug, Clone)]
struct Class<K> {
    key: K,
    pattern: u64,
    members: Vec<u32>,
    weight: f64,
}

struct Engine<'a, P: Packer> {
    orig: &'a [Vec<u32>],
    codes: Vec<Vec<u32>>,
    weights: Option<&'a [f64]>,
    rule: ClassRule,
    target: Target,
    importance: &'a [i64],
    packer: P,
    classes: Vec<Class<P::K>>,
    index: HashMap<P::K, u32, FixedState>,
    n: usize,
    by_level: Vec<Vec<u32>>,
    full: u64,
}

impl<'a, P: Packer> Engine<'a, P> {
    fn new(
        orig: &'a [Vec<u32>],
        weights: Option<&'a [f64]>,
        rule: ClassRule,
        target: Target,
        importance: &'a [i64],
        packer: P,
    ) -> Self {
        let p = orig.len();
        let n = orig.first().map_or(0, Vec::len);
        let full = if p == 64 { u64::MAX } else { (1u64 << p) - 1 };
        let mut e = Engine {
            orig,
            codes: orig.to_vec(),
            weights,
            rule,
            target,
            importance,
            packer,
            classes: Vec::new(),
            index: HashMap::with_hasher(FixedState::default()),
            n,
            by_level: vec![Vec::new(); p + 1],
            full,
        };
        for r in 0..n {
            let key = e.packer.pack(p, &|j| orig[j][r]);
            let pattern = e.pattern_of(r);
            let c = e.class_for(key, pattern);
            e.add(c, r as u32);
        }
        e
    }

    fn pattern_of(&self, r: usize) -> u64 {
        self.codes
            .iter()
            .enumerate()
            .filter(|(_, c)| c[r] != MISSING)
            .fold(0, |m, (j, _)| m | 1u64 << j)
    }

    fn weight(&self, r: u32) -> f64 {
        self.weights.map_or(1.0, |w| w[r as usize])
    }

    fn size(&self, c: u32) -> (u64, f64) {
        let cl = &self.classes[c as usize];
        (cl.members.len() as u64, cl.weight)
    }

    /// The class of `key`, created (empty) when new.
    fn class_for(&mut self, key: P::K, pattern: u64) -> u32 {
        if let Some(&c) = self.index.get(&key) {
            return c;
        }
        let c = self.classes.len() as u32;
        self.classes.push(Class {
            key: key.clone(),
            pattern,
            members: Vec::new(),
            weight: 0.0,
        });
        self.index.insert(key, c);
        self.by_level[pattern.count_ones() as usize].push(c);
        c
    }

    fn add(&mut self, c: u32, r: u32) {
        let w = self.weight(r);
        let cl = &mut self.classes[c as usize];
        cl.members.push(r);
        cl.weight += w;
    }

    /// Whether the rule holds a class of `pattern` to the target.
    fn held(&self, pattern: u64) -> bool {
        match self.rule {
            ClassRule::AsValue => true,
            ClassRule::Listwise => pattern == self.full,
        }
    }

    /// Whether a class of `pattern` with `n` records weighing `w` satisfies the rule.
    fn ok(&self, pattern: u64, n: u64, w: f64) -> bool {
        n == 0 || !self.held(pattern) || self.target.safe(n, w)
    }

    fn run(mut self) -> Result<Vec<(usize, usize)>, Unreachable> {
        let p = self.codes.len();
        for level in (1..=p).rev() {
            self.settle(level);
        }
        if self.rule == ClassRule::AsValue {
            self.fill_blank()?;
        }
        self.restore();
        let mut cells = Vec::new();
        for r in 0..self.n {
            for j in 0..p {
                if self.codes[j][r] == MISSING && self.orig[j][r] != MISSING {
                    cells.push((r, j));
                }
            }
        }
        Ok(cells)
    }

    /// Moves every unsafe class of `level` one level down.
    fn settle(&mut self, level: usize) {
        let mut unsafe_: Vec<(u64, u32, u32)> = self.by_level[level]
            .iter()
            .filter_map(|&c| {
                let cl = &self.classes[c as usize];
                let (n, w) = self.size(c);
                (!self.ok(cl.pattern, n, w)).then(|| (n, cl.members[0], c))
            })
            .collect();
        unsafe_.sort_unstable();
        for (_, _, c) in unsafe_ {
            let j = self.choose_key(c);
            self.move_class(c, j);
        }
    }

    /// The key to blank for unsafe class `c`: the least important whose destination is safe,
    /// else the one with the largest destination (ties: least important).
    fn choose_key(&self, c: u32) -> usize {
        let cl = &self.classes[c as usize];
        let (n, w) = (cl.members.len() as u64, cl.weight);
        let mut best: Option<(bool, u64, i64, usize)> = None;
        let mut bits = cl.pattern;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let dest = self.packer.with(&cl.key, j, MISSING);
            let (dn, dw) = self.index.get(&dest).map_or((0, 0.0), |&d| self.size(d));
            let pattern = cl.pattern & !(1u64 << j);
            let safe = !self.held(pattern) || self.target.safe(dn + n, dw + w);
            let cand = (safe, if safe { 0 } else { dn + n }, self.importance[j], j);
            if best.is_none_or(|b| (cand.0, cand.1, cand.2) > (b.0, b.1, b.2)) {
                best = Some(cand);
            }
        }
        best.map(|b| b.3)
            .expect("a class above level 0 has a visible key")
    }

    /// Blanks key `j` of every record of class `c`, filing them in the class with `j` blank too.
    fn move_class(&mut self, c: u32, j: usize) {
        let members = std::mem::take(&mut self.classes[c as usize].members);
        let cl = &mut self.classes[c as usize];
        cl.weight = 0.0;
        let pattern = cl.pattern & !(1u64 << j);
        let dest_key = self.packer.with(&cl.key, j, MISSING);
        let d = self.class_for(dest_key, pattern);
        for &r in &members {
            self.codes[j][r as usize] = MISSING;
            self.add(d, r);
        }
    }

    /// Removes `rows` from their class `c`.
    fn take_rows(&mut self, c: u32, rows: &[u32]) {
        let w: f64 = rows.iter().map(|&r| self.weight(r)).sum();
        let cl = &mut self.classes[c as usize];
        if rows.len() == cl.members.len() {
            cl.members.clear();
            cl.weight = 0.0;
        } else {
            let gone: std::collections::HashSet<u32, FixedState> = rows.iter().copied().collect();
            cl.members.retain(|r| !gone.contains(r));
            cl.weight -= w;
        }
    }

    /// Makes the class with every key blank safe, when it holds records: first with records
    /// other classes can spare, fewest visible keys first, then with whole classes.
    fn fill_blank(&mut self) -> Result<(), Unreachable> {
        let blank_key = self.packer.pack(self.codes.len(), &|_| MISSING);
        let Some(&b) = self.index.get(&blank_key) else {
            return Ok(());
        };
        let p = self.codes.len();
        let blank_safe = |e: &Self| {
            let (n, w) = e.size(b);
            n == 0 || e.target.safe(n, w)
        };
        for level in 1..=p {
            let ids = self.by_level[level].clone();
            for c in ids {
                while !blank_safe(self) {
                    let cl = &self.classes[c as usize];
                    let Some(&r) = cl.members.last() else { break };
                    let (n, w) = (cl.members.len() as u64, cl.weight);
                    if !self.target.safe(n - 1, w - self.weight(r)) {
                        break;
                    }
                    self.take_rows(c, &[r]);
                    self.blank_row(r, b);
                }
            }
        }
        for level in 1..=p {
            let mut ids: Vec<(usize, u32)> = self.by_level[level]
                .iter()
                .map(|&c| (self.classes[c as usize].members.len(), c))
                .filter(|&(n, _)| n > 0)
                .collect();
            ids.sort_unstable();
            for (_, c) in ids {
                if blank_safe(self) {
                    return Ok(());
                }
                let members = std::mem::take(&mut self.classes[c as usize].members);
                self.classes[c as usize].weight = 0.0;
                for r in members {
                    self.blank_row(r, b);
                }
            }
        }
        if blank_safe(self) {
            Ok(())
        } else {
            Err(Unreachable {
                records: self.classes[b as usize].members.len(),
            })
        }
    }

    fn blank_row(&mut self, r: u32, b: u32) {
        for j in 0..self.codes.len() {
            self.codes[j][r as usize] = MISSING;
        }
        self.add(b, r);
    }

    /// Gives back every suppressed cell that is not needed; see the module docs. A pass visits
    /// the classes with a blank key and records behind it; a class whose try failed is visited
    /// again only when a class it could join, or itself, changed in the pass before.
    fn restore(&mut self) {
        let p = self.codes.len();
        let mut keys: Vec<usize> = (0..p).collect();
        keys.sort_by_key(|&j| (self.importance[j], j));
        let mut visit: Vec<u32> = (0..self.classes.len() as u32)
            .filter(|&c| self.restorable(c))
            .collect();
        let mut buf: Vec<(u32, u32)> = Vec::new();
        while !visit.is_empty() {
            let mut touched: Vec<u32> = Vec::new();
            // classes whose try failed, with the keys of the classes they would have joined
            let mut waiting: Vec<(u32, Vec<P::K>)> = Vec::new();
            for &c in &visit {
                let mut dests = Vec::new();
                for &j in &keys {
                    self.restore_class(c, j, &mut buf, &mut touched, &mut dests);
                }
                if self.restorable(c) {
                    waiting.push((c, dests));
                }
            }
            if touched.is_empty() {
                break;
            }
            let hot: HashSet<&P::K, FixedState> = touched
                .iter()
                .map(|&t| &self.classes[t as usize].key)
                .collect();
            let hot_class: HashSet<u32, FixedState> = touched.iter().copied().collect();
            visit = waiting
                .iter()
                .filter(|(c, dests)| hot_class.contains(c) || dests.iter().any(|d| hot.contains(d)))
                .map(|(c, _)| *c)
                .collect();
            // classes created or filled in this pass may hold restorable records
            visit.extend(touched.iter().copied().filter(|&t| self.restorable(t)));
            visit.sort_unstable();
            visit.dedup();
        }
    }

    /// Whether class `c` has records and a blank key some of them had observed.
    fn restorable(&self, c: u32) -> bool {
        let cl = &self.classes[c as usize];
        let blanks = !cl.pattern & self.full;
        blanks != 0
            && cl.members.iter().any(|&r| {
                let mut b = blanks;
                while b != 0 {
                    let j = b.trailing_zeros() as usize;
                    b &= b - 1;
                    if self.orig[j][r as usize] != MISSING {
                        return true;
                    }
                }
                false
            })
    }

    /// Restores key `j` of the records of class `c` that can take it back, noting the classes
    /// changed in `touched` and the classes tried in `dests`.
    fn restore_class(
        &mut self,
        c: u32,
        j: usize,
        buf: &mut Vec<(u32, u32)>,
        touched: &mut Vec<u32>,
        dests: &mut Vec<P::K>,
    ) {
        let cl = &self.classes[c as usize];
        if cl.pattern & (1u64 << j) != 0 || cl.members.is_empty() {
            return;
        }
        buf.clear();
        buf.extend(
            cl.members
                .iter()
                .map(|&r| (self.orig[j][r as usize], r))
                .filter(|&(v, _)| v != MISSING),
        );
        if buf.is_empty() {
            return;
        }
        buf.sort_unstable();
        let groups: Vec<(u32, Vec<u32>)> = buf
            .chunk_by(|a, b| a.0 == b.0)
            .map(|g| (g[0].0, g.iter().map(|x| x.1).collect()))
            .collect();
        for (v, rows) in groups {
            let (an, aw) = self.size(c);
            let cl = &self.classes[c as usize];
            let a_pattern = cl.pattern;
            let b_pattern = a_pattern | (1u64 << j);
            let dest = self.packer.with(&cl.key, j, v);
            let existing = self.index.get(&dest).copied();
            let (bn, bw) = existing.map_or((0, 0.0), |d| self.size(d));
            // the largest share of the group that can move: both sides stay safe
            let mut moved_w: f64 = rows.iter().map(|&r| self.weight(r)).sum();
            let mut m = rows.len();
            while m > 0 {
                let m64 = m as u64;
                if self.ok(a_pattern, an - m64, aw - moved_w)
                    && self.ok(b_pattern, bn + m64, bw + moved_w)
                {
                    break;
                }
                m -= 1;
                moved_w -= self.weight(rows[m]);
            }
            if m == 0 {
                dests.push(dest);
                continue;
            }
            let rows = &rows[..m];
            self.take_rows(c, rows);
            let d = self.class_for(dest, b_pattern);
            for &r in rows {
                self.codes[j][r as usize] = v;
                self.add(d, r);
            }
            touched.push(c);
            touched.push(d);
        }
    }
}
