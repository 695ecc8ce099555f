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

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

use foldhash::fast::FixedState;
use intruder_data::keys::MISSING;

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
    let bits: Vec<u32> = card
        .iter()
        .map(|&c| 64 - (c as u64 + 1).leading_zeros())
        .collect();
    if bits.iter().sum::<u32>() <= 128 {
        let mut shift = Vec::with_capacity(bits.len());
        let mut s = 0u32;
        for b in &bits {
            shift.push(s);
            s += b;
        }
        let card = card.to_vec();
        let pack = move |code: &dyn Fn(usize) -> u32| -> u128 {
            let mut k = 0u128;
            for (j, &sh) in shift.iter().enumerate() {
                let c = code(j);
                let v = if c == MISSING { card[j] } else { c };
                k |= (v as u128) << sh;
            }
            k
        };
        Engine::new(codes, weights, rule, target, importance, pack).run()
    } else {
        let p = codes.len();
        let pack = move |code: &dyn Fn(usize) -> u32| -> Box<[u32]> { (0..p).map(code).collect() };
        Engine::new(codes, weights, rule, target, importance, pack).run()
    }
}

#[derive(Debug, Clone)]
struct Class {
    pattern: u64,
    members: Vec<u32>,
    weight: f64,
}

struct Engine<'a, K, P> {
    orig: &'a [Vec<u32>],
    codes: Vec<Vec<u32>>,
    weights: Option<&'a [f64]>,
    rule: ClassRule,
    target: Target,
    importance: &'a [i64],
    pack: P,
    classes: Vec<Class>,
    index: HashMap<K, u32, FixedState>,
    n: usize,
    by_level: Vec<Vec<u32>>,
    full: u64,
}

impl<'a, K, P> Engine<'a, K, P>
where
    K: Hash + Eq + Clone,
    P: Fn(&dyn Fn(usize) -> u32) -> K,
{
    fn new(
        orig: &'a [Vec<u32>],
        weights: Option<&'a [f64]>,
        rule: ClassRule,
        target: Target,
        importance: &'a [i64],
        pack: P,
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
            pack,
            classes: Vec::new(),
            index: HashMap::with_hasher(FixedState::default()),
            n,
            by_level: vec![Vec::new(); p + 1],
            full,
        };
        for r in 0..n {
            let key = e.key_of(r);
            let pattern = e.pattern_of(r);
            let c = e.class_for(key, pattern);
            e.add(c, r as u32);
        }
        e
    }

    fn key_of(&self, r: usize) -> K {
        let codes = &self.codes;
        (self.pack)(&|j| codes[j][r])
    }

    fn key_with(&self, r: usize, j: usize, v: u32) -> K {
        let codes = &self.codes;
        (self.pack)(&|i| if i == j { v } else { codes[i][r] })
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
    fn class_for(&mut self, key: K, pattern: u64) -> u32 {
        if let Some(&c) = self.index.get(&key) {
            return c;
        }
        let c = self.classes.len() as u32;
        self.classes.push(Class {
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
        let rep = cl.members[0] as usize;
        let (n, w) = (cl.members.len() as u64, cl.weight);
        let mut best: Option<(bool, u64, i64, usize)> = None;
        let mut bits = cl.pattern;
        while bits != 0 {
            let j = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let dest = self.key_with(rep, j, MISSING);
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

    /// Blanks key `j` of every record of class `c`.
    fn move_class(&mut self, c: u32, j: usize) {
        let members = std::mem::take(&mut self.classes[c as usize].members);
        self.classes[c as usize].weight = 0.0;
        self.move_rows(&members, |_| j);
    }

    /// Blanks, for each row, the key `key(row)` (the rows shared a class), and files them in
    /// their new class.
    fn move_rows(&mut self, rows: &[u32], key: impl Fn(u32) -> usize) {
        let Some(&first) = rows.first() else { return };
        let j = key(first);
        let pattern = self.pattern_of(first as usize) & !(1u64 << j);
        let dest_key = self.key_with(first as usize, j, MISSING);
        let d = self.class_for(dest_key, pattern);
        for &r in rows {
            self.codes[key(r)][r as usize] = MISSING;
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
        let blank_key = (self.pack)(&|_| MISSING);
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

    /// Gives back every suppressed cell that is not needed; see the module docs.
    fn restore(&mut self) {
        let p = self.codes.len();
        let mut keys: Vec<usize> = (0..p).collect();
        keys.sort_by_key(|&j| (self.importance[j], j));
        loop {
            let mut changed = false;
            for &j in &keys {
                for c in 0..self.classes.len() as u32 {
                    changed |= self.restore_class(c, j);
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Restores key `j` of the records of class `c` that can take it back; true when any did.
    fn restore_class(&mut self, c: u32, j: usize) -> bool {
        let cl = &self.classes[c as usize];
        if cl.pattern & (1u64 << j) != 0 || cl.members.is_empty() {
            return false;
        }
        let mut groups: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
        for &r in &cl.members {
            let v = self.orig[j][r as usize];
            if v != MISSING {
                groups.entry(v).or_default().push(r);
            }
        }
        let mut any = false;
        for (v, mut rows) in groups {
            rows.sort_unstable();
            let (an, aw) = self.size(c);
            let a_pattern = self.classes[c as usize].pattern;
            let b_pattern = a_pattern | (1u64 << j);
            let dest = self.key_with(rows[0] as usize, j, v);
            let (bn, bw) = self.index.get(&dest).map_or((0, 0.0), |&d| self.size(d));
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
                continue;
            }
            let rows = &rows[..m];
            self.take_rows(c, rows);
            let d = self.class_for(dest, b_pattern);
            for &r in rows {
                self.codes[j][r as usize] = v;
                self.add(d, r);
            }
            any = true;
        }
        any
    }
}
