//! Equivalence classes of a transformation, computed by rolling up the classes of a less
//! general one: the records are grouped once on their original values (the *bottom* of the
//! lattice), and the classes of a transformation are the classes of any transformation below it
//! with each code lifted to the higher level and equal tuples merged. Cost: one hash operation per
//! class of the source, not per record.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::hash::Hash;

use foldhash::fast::FixedState;

use super::hierarchy::Coded;
use super::models::{Hist, merge_hist};

/// The classes of one transformation.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The level of each key.
    pub levels: Vec<u8>,
    /// Class-major codes (`codes[c * dims + d]`); empty when `packed`.
    pub codes: Vec<u32>,
    /// Each class's codes packed in one word ([`Pack64`]'s layout), when `packed`: a roll-up
    /// then reads and writes 8 bytes a class instead of 4 per key.
    pub keys: Vec<u64>,
    /// Whether the classes' codes are in `keys` rather than `codes`.
    pub packed: bool,
    /// Records of the file per class.
    pub count: Vec<u32>,
    /// Records of the population table per class (empty without a population table).
    pub pcount: Vec<u64>,
    /// `hists[a][c]`: the class's histogram of sensitive variable `a`.
    pub hists: Vec<Vec<Hist>>,
}

impl Snapshot {
    /// Number of classes.
    pub fn len(&self) -> usize {
        self.count.len()
    }

    /// Whether there is no class.
    pub fn is_empty(&self) -> bool {
        self.count.is_empty()
    }

    /// The class-major codes, unpacked when the snapshot is packed (`packer`: the packer it
    /// was packed with).
    pub fn unpacked(&self, packer: &AnyPacker) -> std::borrow::Cow<'_, [u32]> {
        match packer {
            AnyPacker::P64(p) if self.packed => {
                let dims = p.shift.len();
                let mut out = vec![0u32; self.keys.len() * dims];
                for (k, o) in self.keys.iter().zip(out.chunks_exact_mut(dims.max(1))) {
                    for (d, x) in o.iter_mut().enumerate() {
                        *x = ((k >> p.shift[d]) & p.mask(d)) as u32;
                    }
                }
                std::borrow::Cow::Owned(out)
            }
            _ => std::borrow::Cow::Borrowed(&self.codes),
        }
    }

    /// Memory held, in 32-bit words (for the cache's budget).
    pub fn words(&self) -> usize {
        self.codes.len()
            + 2 * self.keys.len()
            + self.count.len()
            + 2 * self.pcount.len()
            + self
                .hists
                .iter()
                .flatten()
                .map(|h| 2 * h.len() + 6)
                .sum::<usize>()
    }
}

/// How a tuple of codes becomes a hash key.
pub trait Packer: Sync {
    /// The key.
    type K: Hash + Eq + Clone + Send;
    /// The key of `codes`.
    fn key(&self, codes: &[u32]) -> Self::K;
}

/// Codes packed into one 64-bit word.
pub struct Pack64 {
    shift: Vec<u32>,
    /// Bits of each key's field.
    width: Vec<u32>,
    /// Bits the keys use.
    bits: u32,
}

impl Pack64 {
    /// The mask of key `d`'s field (before shifting).
    #[inline]
    fn mask(&self, d: usize) -> u64 {
        (1u64 << self.width[d]) - 1
    }
}

/// Codes packed into one 128-bit word.
pub struct Pack128 {
    shift: Vec<u32>,
}

/// The codes themselves.
pub struct Wide;

impl Packer for Pack64 {
    type K = u64;
    #[inline]
    fn key(&self, codes: &[u32]) -> u64 {
        codes
            .iter()
            .zip(&self.shift)
            .fold(0, |k, (&c, &s)| k | (c as u64) << s)
    }
}

impl Packer for Pack128 {
    type K = u128;
    #[inline]
    fn key(&self, codes: &[u32]) -> u128 {
        codes
            .iter()
            .zip(&self.shift)
            .fold(0, |k, (&c, &s)| k | (c as u128) << s)
    }
}

impl Packer for Wide {
    type K = Box<[u32]>;
    fn key(&self, codes: &[u32]) -> Box<[u32]> {
        codes.into()
    }
}

/// The packer that fits codes below `card` per key.
pub enum AnyPacker {
    /// ≤ 64 bits.
    P64(Pack64),
    /// ≤ 128 bits.
    P128(Pack128),
    /// Wider.
    Wide(Wide),
}

impl AnyPacker {
    /// For codes below `card[d]` at every level of key `d`.
    pub fn new(card: &[usize]) -> AnyPacker {
        let mut shift = Vec::with_capacity(card.len());
        let mut width = Vec::with_capacity(card.len());
        let mut s = 0u32;
        for &c in card {
            shift.push(s);
            width.push(64 - (c.max(1) as u64).leading_zeros());
            s += 64 - (c.max(1) as u64).leading_zeros();
        }
        if s <= 64 {
            AnyPacker::P64(Pack64 {
                shift,
                width,
                bits: s,
            })
        } else if s <= 128 {
            AnyPacker::P128(Pack128 { shift })
        } else {
            AnyPacker::Wide(Wide)
        }
    }
}

/// Packed key `k` with each field of `moved` (shift, mask, lifting table) lifted in place.
#[inline(always)]
fn lift(mut k: u64, moved: &[(u32, u64, &[u32])]) -> u64 {
    for &(s, mask, up) in moved {
        let code = (k >> s) & mask;
        k = (k & !(mask << s)) | ((up[code as usize] as u64) << s);
    }
    k
}

/// Fibonacci hashing's multiplier (2⁶⁴ / φ).
const FIB: u64 = 0x9E37_79B9_7F4A_7C15;

/// Largest number of tuples numbered in a table rather than hashed.
const DENSE_MAX: usize = 1 << 22;

/// The scratch table of dense roll-ups: per tuple number, the stamp of the roll-up that last
/// used it and the class it was given.
#[derive(Default)]
struct DenseTable {
    stamp: Vec<u32>,
    slot: Vec<u32>,
    epoch: u32,
}

thread_local! {
    static DENSE: std::cell::RefCell<DenseTable> = std::cell::RefCell::new(DenseTable::default());
}

/// A tuple's number in the mixed radix of the target's cardinalities, with the table it indexes.
struct Dense<'t> {
    radix: Vec<usize>,
    table: std::cell::RefCell<&'t mut DenseTable>,
}

impl<'t> Dense<'t> {
    fn new(radix: &[usize], table: &'t mut DenseTable, space: usize) -> Dense<'t> {
        if table.stamp.len() < space {
            table.stamp.resize(space, 0);
            table.slot.resize(space, 0);
        }
        table.epoch = table.epoch.wrapping_add(1);
        if table.epoch == 0 {
            table.stamp.iter_mut().for_each(|s| *s = 0);
            table.epoch = 1;
        }
        Dense {
            radix: radix.to_vec(),
            table: std::cell::RefCell::new(table),
        }
    }

    #[inline]
    fn number(&self, codes: &[u32]) -> usize {
        codes
            .iter()
            .zip(&self.radix)
            .fold(0, |i, (&c, &r)| i * r + c as usize)
    }
}

/// Finds or files a class by its key.
trait Index<K> {
    /// The class of `key`, or `None` after filing `next` under it.
    fn find_or_insert(&mut self, key: K, next: u32) -> Option<u32>;
    /// Reads the place where `key` would be found, so that a batch of look-ups waits for
    /// memory once rather than once each (the branch on found / not found, unpredictable,
    /// otherwise stops the processor from running ahead to the next look-up).
    #[inline]
    fn touch(&self, _key: &K) -> u64 {
        0
    }
}

struct Hashed<K>(HashMap<K, u32, FixedState>);

impl<K: Hash + Eq> Index<K> for Hashed<K> {
    #[inline]
    fn find_or_insert(&mut self, key: K, next: u32) -> Option<u32> {
        match self.0.entry(key) {
            Entry::Occupied(e) => Some(*e.get()),
            Entry::Vacant(v) => {
                v.insert(next);
                None
            }
        }
    }
}

/// A key maker with the index it fills.
trait Keyed {
    /// The key.
    type K;
    /// The index.
    type I: Index<Self::K>;
    /// A new, empty index for about `n` classes.
    fn index(&self, n: usize) -> Self::I;
    /// The key of `codes`.
    fn make(&self, codes: &[u32]) -> Self::K;
    /// The key of `codes` with each key `d` lifted by `lifts[d]` when it has one; the lifted
    /// codes are left in `buf`.
    #[inline]
    fn make_lifted(&self, codes: &[u32], lifts: &[Option<&[u32]>], buf: &mut [u32]) -> Self::K {
        for ((b, &c), l) in buf.iter_mut().zip(codes).zip(lifts) {
            *b = l.map_or(c, |up| up[c as usize]);
        }
        self.make(buf)
    }
}

impl<P: Packer> Keyed for &P {
    type K = P::K;
    type I = Hashed<P::K>;
    fn index(&self, n: usize) -> Hashed<P::K> {
        let mut m = HashMap::default();
        m.reserve(n);
        Hashed(m)
    }
    #[inline]
    fn make(&self, codes: &[u32]) -> P::K {
        self.key(codes)
    }
}

/// An open-addressing table on 64-bit packed tuples (linear probing, Fibonacci hashing), kept
/// per thread and reused by every roll-up. Each cell is one word, the tuple's key above the
/// class number plus one (0: empty), and the table has about twice the cells of the classes a
/// roll-up can make, so it stays in the cache where a general hash map, with wider entries,
/// misses it on most look-ups.
#[derive(Default)]
struct OpenTable {
    cells: Vec<u64>,
    shift: u32,
    class_bits: u32,
}

thread_local! {
    static OPEN: std::cell::RefCell<OpenTable> = std::cell::RefCell::new(OpenTable::default());
}

/// The per-thread table, taken for one roll-up and given back when dropped.
struct OpenIndex(OpenTable);

impl OpenIndex {
    /// The table, emptied, for at most `n` classes numbered in `class_bits` bits.
    fn take(n: usize, class_bits: u32) -> OpenIndex {
        let mut t = OPEN.with(|o| std::mem::take(&mut *o.borrow_mut()));
        let size = (2 * n.max(8)).next_power_of_two();
        t.cells.clear();
        t.cells.resize(size, 0);
        t.shift = 64 - size.trailing_zeros();
        t.class_bits = class_bits;
        OpenIndex(t)
    }
}

impl Drop for OpenIndex {
    fn drop(&mut self) {
        let t = std::mem::take(&mut self.0);
        OPEN.with(|o| *o.borrow_mut() = t);
    }
}

impl Index<u64> for OpenIndex {
    #[inline]
    fn find_or_insert(&mut self, key: u64, next: u32) -> Option<u32> {
        let t = &mut self.0;
        let mask = t.cells.len() - 1;
        let cb = t.class_bits;
        let mut i = (key.wrapping_mul(FIB) >> t.shift) as usize;
        loop {
            let cell = t.cells[i];
            if cell == 0 {
                t.cells[i] = (key << cb) | (next as u64 + 1);
                return None;
            }
            if cell >> cb == key {
                return Some((cell & ((1 << cb) - 1)) as u32 - 1);
            }
            i = (i + 1) & mask;
        }
    }

    #[inline]
    fn touch(&self, key: &u64) -> u64 {
        let t = &self.0;
        t.cells[(key.wrapping_mul(FIB) >> t.shift) as usize]
    }
}

/// Tuples packed in 64 bits with room for the class numbers (bits), found in an
/// [`OpenTable`] sized for at most the last field's classes.
struct Open<'p>(&'p Pack64, u32, usize);

impl Open<'_> {
    /// For a roll-up from `classes` source classes, when key and class number fit one word.
    fn fits(p: &Pack64, classes: usize) -> Option<Open<'_>> {
        let class_bits = 64 - (classes as u64 + 1).leading_zeros();
        (p.bits + class_bits <= 64).then_some(Open(p, class_bits, classes))
    }
}

impl Keyed for Open<'_> {
    type K = u64;
    type I = OpenIndex;
    fn index(&self, n: usize) -> OpenIndex {
        OpenIndex::take(n.min(self.2), self.1)
    }
    #[inline]
    fn make(&self, codes: &[u32]) -> u64 {
        self.0.key(codes)
    }
    /// One pass, the key summed as the codes are lifted (building it from `buf` after writing
    /// it would read back words just stored, which stalls).
    #[inline]
    fn make_lifted(&self, codes: &[u32], lifts: &[Option<&[u32]>], buf: &mut [u32]) -> u64 {
        let mut key = 0u64;
        for (((b, &c), l), &s) in buf.iter_mut().zip(codes).zip(lifts).zip(&self.0.shift) {
            let c = l.map_or(c, |up| up[c as usize]);
            *b = c;
            key |= (c as u64) << s;
        }
        key
    }
}

struct DenseIndex<'a, 't>(&'a Dense<'t>);

impl Index<usize> for DenseIndex<'_, '_> {
    #[inline]
    fn find_or_insert(&mut self, key: usize, next: u32) -> Option<u32> {
        let mut t = self.0.table.borrow_mut();
        let e = t.epoch;
        if t.stamp[key] == e {
            Some(t.slot[key])
        } else {
            t.stamp[key] = e;
            t.slot[key] = next;
            None
        }
    }
}

impl<'d, 't> Keyed for &'d Dense<'t> {
    type K = usize;
    type I = DenseIndex<'d, 't>;
    fn index(&self, _n: usize) -> DenseIndex<'d, 't> {
        DenseIndex(self)
    }
    #[inline]
    fn make(&self, codes: &[u32]) -> usize {
        self.number(codes)
    }
}

/// Records grouped into classes with their sensitive codes and population membership.
pub struct Group<'a> {
    /// The keys' hierarchies.
    pub dims: &'a [Coded],
    /// Whether classes carry population counts.
    pub population: bool,
    /// Number of sensitive variables.
    pub sensitive: usize,
}

impl Group<'_> {
    /// The classes of the tuples `leaf` (row-major, one tuple of level-0 codes per record),
    /// each record counted in the file (`in_file`) or the population, with its sensitive codes
    /// (`sens[a][r]`); and the class of each record.
    pub fn bottom(
        &self,
        packer: &AnyPacker,
        leaf: &[u32],
        in_file: &[bool],
        sens: &[Vec<u32>],
    ) -> (Snapshot, Vec<u32>) {
        match packer {
            AnyPacker::P64(p) => {
                let (mut snap, class_of) = self.bottom_with(p, leaf, in_file, sens);
                // packed when every roll-up from it can use the one-word table (none has
                // more classes than the bottom)
                if Open::fits(p, snap.len()).is_some() {
                    let dims = self.dims.len().max(1);
                    snap.keys = snap.codes.chunks_exact(dims).map(|c| p.key(c)).collect();
                    snap.codes = Vec::new();
                    snap.packed = true;
                }
                (snap, class_of)
            }
            AnyPacker::P128(p) => self.bottom_with(p, leaf, in_file, sens),
            AnyPacker::Wide(p) => self.bottom_with(p, leaf, in_file, sens),
        }
    }

    fn empty(&self, levels: &[u8]) -> Snapshot {
        Snapshot {
            levels: levels.to_vec(),
            hists: vec![Vec::new(); self.sensitive],
            ..Snapshot::default()
        }
    }

    fn bottom_with<P: Packer>(
        &self,
        packer: &P,
        leaf: &[u32],
        in_file: &[bool],
        sens: &[Vec<u32>],
    ) -> (Snapshot, Vec<u32>) {
        let dims = self.dims.len();
        let records = in_file.len();
        let mut out = self.empty(&vec![0; dims]);
        let mut index: HashMap<P::K, u32, FixedState> = HashMap::default();
        let mut class_of = Vec::with_capacity(records);
        for r in 0..records {
            let codes = &leaf[r * dims..(r + 1) * dims];
            let c = match index.entry(packer.key(codes)) {
                Entry::Occupied(e) => *e.get(),
                Entry::Vacant(v) => {
                    let c = out.count.len() as u32;
                    v.insert(c);
                    out.codes.extend_from_slice(codes);
                    out.count.push(0);
                    if self.population {
                        out.pcount.push(0);
                    }
                    for h in out.hists.iter_mut() {
                        h.push(Vec::new());
                    }
                    c
                }
            } as usize;
            if in_file[r] {
                out.count[c] += 1;
                for (a, s) in sens.iter().enumerate() {
                    merge_hist(&mut out.hists[a][c], &[(s[r], 1)]);
                }
            } else {
                out.pcount[c] += 1;
            }
            class_of.push(c as u32);
        }
        (out, class_of)
    }

    /// The classes of transformation `tgt` from those of `src` (every level of `src` at or
    /// below `tgt`), and, when asked, the class of `tgt` of each class of `src`. Tuples that
    /// pack into 64 bits with room for the class numbers are found in a one-word-per-cell
    /// open-addressing table (`OpenTable`); otherwise, when the tuples of `tgt` are few
    /// enough to number (`Π card ≤ 2²²` and at most 64 per source class), by their number in
    /// a table; else by a hash map.
    pub fn roll_up(
        &self,
        packer: &AnyPacker,
        src: &Snapshot,
        tgt: &[u8],
        want_map: bool,
    ) -> (Snapshot, Option<Vec<u32>>) {
        if let AnyPacker::P64(p) = packer
            && let Some(mut o) = Open::fits(p, src.len())
        {
            // no more classes than the target's tuples: a small table for a general node
            let space = self
                .dims
                .iter()
                .zip(tgt)
                .fold(1usize, |acc, (c, &l)| acc.saturating_mul(c.card(l as usize)));
            o.2 = o.2.min(space);
            if src.packed {
                return self.roll_up_packed(p, o, src, tgt, want_map);
            }
            return self.roll_up_with(o, src, tgt, want_map);
        }
        if src.packed {
            // not made: a packed snapshot has no more classes than the packed bottom
            let plain = Snapshot {
                codes: src.unpacked(packer).into_owned(),
                keys: Vec::new(),
                packed: false,
                ..src.clone()
            };
            return self.roll_up(packer, &plain, tgt, want_map);
        }
        let space = self
            .dims
            .iter()
            .zip(tgt)
            .try_fold(1usize, |acc, (c, &l)| acc.checked_mul(c.card(l as usize)));
        if let Some(space) = space
            && space <= DENSE_MAX
            && space <= 64 * src.len().max(1024)
        {
            let radix: Vec<usize> = self
                .dims
                .iter()
                .zip(tgt)
                .map(|(c, &l)| c.card(l as usize))
                .collect();
            return DENSE.with(|d| {
                let mut d = d.borrow_mut();
                let p = Dense::new(&radix, &mut d, space);
                self.roll_up_with(&p, src, tgt, want_map)
            });
        }
        match packer {
            AnyPacker::P64(p) => self.roll_up_with(p, src, tgt, want_map),
            AnyPacker::P128(p) => self.roll_up_with(p, src, tgt, want_map),
            AnyPacker::Wide(p) => self.roll_up_with(p, src, tgt, want_map),
        }
    }

    /// Adds source class `c` to class `t` of `out`.
    #[inline(always)]
    fn add_class(&self, out: &mut Snapshot, t: usize, src: &Snapshot, c: usize) {
        out.count[t] += src.count[c];
        if self.population {
            out.pcount[t] += src.pcount[c];
        }
        for a in 0..self.sensitive {
            let (h, s) = (&mut out.hists[a], &src.hists[a]);
            merge_hist(&mut h[t], &s[c]);
        }
    }

    /// Files source class `c` as a new class of `out` (its codes filed by the caller).
    #[inline(always)]
    fn new_class(&self, out: &mut Snapshot, src: &Snapshot, c: usize) {
        out.count.push(src.count[c]);
        if self.population {
            out.pcount.push(src.pcount[c]);
        }
        for a in 0..self.sensitive {
            out.hists[a].push(src.hists[a][c].clone());
        }
    }

    /// The fields of the keys raised from `src` to `tgt`: shift, mask and lifting table.
    fn moved<'s>(&'s self, p: &Pack64, src: &Snapshot, tgt: &[u8]) -> Vec<(u32, u64, &'s [u32])> {
        (0..self.dims.len())
            .filter(|&d| src.levels[d] != tgt[d])
            .map(|d| {
                let (a, b) = (src.levels[d] as usize, tgt[d] as usize);
                (p.shift[d], p.mask(d), self.dims[d].up[a][b - a].as_slice())
            })
            .collect()
    }

    /// [`Self::roll_up`] on packed classes: each key's field lifted in place in the word.
    fn roll_up_packed(
        &self,
        p: &Pack64,
        open: Open,
        src: &Snapshot,
        tgt: &[u8],
        want_map: bool,
    ) -> (Snapshot, Option<Vec<u32>>) {
        if self.sensitive == 0 && !self.population && !want_map {
            return (self.roll_up_counts(p, open, src, tgt), None);
        }
        let mut out = self.empty(tgt);
        out.packed = true;
        out.keys.reserve_exact(src.len());
        out.count.reserve_exact(src.len());
        let mut index = open.index(src.len());
        let mut map = want_map.then(|| Vec::with_capacity(src.len()));
        let moved = self.moved(p, src, tgt);
        const BATCH: usize = 16;
        let mut keys = [0u64; BATCH];
        for start in (0..src.len()).step_by(BATCH) {
            let m = BATCH.min(src.len() - start);
            for (key, &k) in keys.iter_mut().zip(&src.keys[start..start + m]) {
                *key = lift(k, &moved);
            }
            let warm = keys[..m]
                .iter()
                .fold(0u64, |w, k| w.wrapping_add(index.touch(k)));
            std::hint::black_box(warm);
            for (i, &key) in keys[..m].iter().enumerate() {
                let c = start + i;
                let next = out.count.len() as u32;
                let t = match index.find_or_insert(key, next) {
                    Some(t) => {
                        self.add_class(&mut out, t as usize, src, c);
                        t
                    }
                    None => {
                        out.keys.push(key);
                        self.new_class(&mut out, src, c);
                        next
                    }
                };
                if let Some(m) = map.as_mut() {
                    m.push(t);
                }
            }
        }
        out.keys.shrink_to_fit();
        out.count.shrink_to_fit();
        (out, map)
    }

    /// [`Self::roll_up_packed`] when classes carry nothing but their counts (k-anonymity and
    /// the metrics that read class sizes, no population table), and no map is asked: the loop
    /// that most of a search's time goes to, with nothing in it but the lift, the look-up and
    /// the count.
    fn roll_up_counts(&self, p: &Pack64, open: Open, src: &Snapshot, tgt: &[u8]) -> Snapshot {
        let n = src.len();
        let moved = self.moved(p, src, tgt);
        let mut index = open.index(n);
        // the table's parts in locals, so that filing a class reloads nothing
        let table = &mut index.0;
        let (shift, cb) = (table.shift, table.class_bits);
        let cells = &mut table.cells[..];
        let wrap = cells.len() - 1;
        let low = (1u64 << cb) - 1;
        let mut keys: Vec<u64> = Vec::with_capacity(n);
        let mut count: Vec<u32> = Vec::with_capacity(n);
        const BATCH: usize = 16;
        let mut lifted = [0u64; BATCH];
        for (ks, cs) in src.keys.chunks(BATCH).zip(src.count.chunks(BATCH)) {
            let mut warm = 0u64;
            for (l, &k) in lifted.iter_mut().zip(ks) {
                let k = lift(k, &moved);
                *l = k;
                warm = warm.wrapping_add(cells[(k.wrapping_mul(FIB) >> shift) as usize]);
            }
            std::hint::black_box(warm);
            for (&key, &c) in lifted.iter().zip(cs) {
                let mut i = (key.wrapping_mul(FIB) >> shift) as usize;
                loop {
                    let cell = cells[i];
                    if cell == 0 {
                        cells[i] = (key << cb) | (count.len() as u64 + 1);
                        keys.push(key);
                        count.push(c);
                        break;
                    }
                    if cell >> cb == key {
                        count[((cell & low) - 1) as usize] += c;
                        break;
                    }
                    i = (i + 1) & wrap;
                }
            }
        }
        keys.shrink_to_fit();
        count.shrink_to_fit();
        Snapshot {
            levels: tgt.to_vec(),
            keys,
            packed: true,
            count,
            ..Snapshot::default()
        }
    }

    fn roll_up_with<P: Keyed>(
        &self,
        packer: P,
        src: &Snapshot,
        tgt: &[u8],
        want_map: bool,
    ) -> (Snapshot, Option<Vec<u32>>) {
        let dims = self.dims.len();
        let mut out = self.empty(tgt);
        out.codes.reserve_exact(src.codes.len());
        out.count.reserve_exact(src.len());
        let mut index = packer.index(src.len());
        let mut map = want_map.then(|| Vec::with_capacity(src.len()));
        // keys whose level changes, with their lifting tables: the others keep their codes
        let lifts: Vec<Option<&[u32]>> = (0..dims)
            .map(|d| {
                let (a, b) = (src.levels[d] as usize, tgt[d] as usize);
                (a != b).then(|| self.dims[d].up[a][b - a].as_slice())
            })
            .collect();
        // in batches: the keys made, their places read, then each filed
        const BATCH: usize = 16;
        let mut bufs = vec![0u32; BATCH * dims];
        let mut keys: Vec<P::K> = Vec::with_capacity(BATCH);
        for start in (0..src.len()).step_by(BATCH) {
            let end = (start + BATCH).min(src.len());
            for (c, buf) in (start..end).zip(bufs.chunks_exact_mut(dims)) {
                let codes = &src.codes[c * dims..(c + 1) * dims];
                keys.push(packer.make_lifted(codes, &lifts, buf));
            }
            let warm = keys.iter().fold(0u64, |w, k| w.wrapping_add(index.touch(k)));
            std::hint::black_box(warm);
            for ((c, key), buf) in (start..end).zip(keys.drain(..)).zip(bufs.chunks_exact(dims)) {
                let next = out.count.len() as u32;
                let t = match index.find_or_insert(key, next) {
                    Some(t) => {
                        self.add_class(&mut out, t as usize, src, c);
                        t as usize
                    }
                    None => {
                        out.codes.extend_from_slice(buf);
                        self.new_class(&mut out, src, c);
                        next as usize
                    }
                };
                if let Some(m) = map.as_mut() {
                    m.push(t as u32);
                }
            }
        }
        out.codes.shrink_to_fit();
        out.count.shrink_to_fit();
        (out, map)
    }
}

/// Groups the classes of `snap` on a subset of keys (`keys`): for each class, its projected
/// group, and the number of groups.
pub fn project(snap: &Snapshot, dims: usize, keys: &[usize]) -> (Vec<u32>, usize) {
    if keys.len() == dims {
        return ((0..snap.len() as u32).collect(), snap.len());
    }
    let mut index: HashMap<Vec<u32>, u32, FixedState> = HashMap::default();
    let mut out = Vec::with_capacity(snap.len());
    for c in 0..snap.len() {
        let k: Vec<u32> = keys.iter().map(|&d| snap.codes[c * dims + d]).collect();
        let next = index.len() as u32;
        out.push(*index.entry(k).or_insert(next));
    }
    let n = index.len();
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::methods::generalise::hierarchy::Hierarchy;
    use proptest::prelude::*;

    /// Two keys: `age` 0..20 in bands of 5 and 10 (4 levels), `zip` 5 codes masked from the
    /// right (4 levels).
    fn dims() -> Vec<Coded> {
        let ages: Vec<(String, f64)> = (0..20).map(|a| (a.to_string(), a as f64)).collect();
        let age = Hierarchy::interval("age", &ages, &[5.0, 10.0], 0.0).unwrap();
        let zips: Vec<String> = ["111", "112", "121", "122", "211"].map(String::from).into();
        let zip = Hierarchy::mask("zip", &zips, '*').unwrap();
        vec![Coded::new(&age), Coded::new(&zip)]
    }

    proptest! {
        /// The roll-up of counts alone (the search's hot loop) gives the classes of the general
        /// roll-up in the same order, and both are the records grouped on their lifted tuples
        /// in order of first appearance, from the bottom or from a node between.
        #[test]
        fn counts_roll_up_is_the_grouping(
            rows in proptest::collection::vec((0u32..20, 0u32..5), 1..300),
            mid in (0u8..4, 0u8..4),
            up in (0u8..4, 0u8..4),
        ) {
            let dims = dims();
            let group = Group { dims: &dims, population: false, sensitive: 0 };
            let card: Vec<usize> = dims.iter().map(|c| c.card(0)).collect();
            let packer = AnyPacker::new(&card);
            let leaf: Vec<u32> = rows
                .iter()
                .flat_map(|&(a, z)| [dims[0].id[0][a as usize], dims[1].id[0][z as usize]])
                .collect();
            let (bottom, _) = group.bottom(&packer, &leaf, &vec![true; rows.len()], &[]);
            prop_assert!(bottom.packed);
            let mid = [mid.0, mid.1];
            let top = [mid[0].max(up.0), mid[1].max(up.1)];
            let between = group.roll_up(&packer, &bottom, &mid, false).0;
            for (src, tgt) in [(&bottom, &top), (&between, &top), (&bottom, &mid)] {
                let (fast, none) = group.roll_up(&packer, src, tgt, false);
                let (general, map) = group.roll_up(&packer, src, tgt, true);
                prop_assert!(none.is_none() && map.is_some());
                prop_assert_eq!(&fast.keys, &general.keys);
                prop_assert_eq!(&fast.count, &general.count);
                // the records grouped on their lifted tuples, first appearance first
                let mut want: Vec<([u32; 2], u32)> = Vec::new();
                for r in 0..rows.len() {
                    let t = [0, 1].map(|d| dims[d].lift(leaf[2 * r + d], 0, tgt[d] as usize));
                    match want.iter_mut().find(|(k, _)| *k == t) {
                        Some((_, n)) => *n += 1,
                        None => want.push((t, 1)),
                    }
                }
                let codes = fast.unpacked(&packer);
                let got: Vec<([u32; 2], u32)> = fast
                    .count
                    .iter()
                    .enumerate()
                    .map(|(c, &n)| ([codes[2 * c], codes[2 * c + 1]], n))
                    .collect();
                prop_assert_eq!(got, want);
            }
        }
    }
}
