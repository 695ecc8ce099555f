//! An exact k-d tree over the release's auxiliary columns for [`Search::nearest`].
//!
//! Every node keeps the lowest and highest value of each column over its records (numbers
//! over their non-missing values, with a flag for a missing one; category codes as numbers).
//! From that box a lower bound of the distance of a target to any record of the node follows:
//! per number, the distance to the interval (1 or +∞ for missing values, as the distance
//! counts them); per category, 1 when the target's code lies outside the interval of codes.
//! The bound is summed in the order the distance is, and every term is at most the distance's
//! term, so in floating point too the bound never exceeds a record's distance: a node whose
//! bound is above the k-th nearest distance so far holds no neighbour and is skipped. The
//! neighbours found are thus exactly those of the brute-force scan, in the same order.
//!
//! A node is split on the column of widest spread (a category's spread is 1, a number's its
//! range, at most 1 after scaling), by value, so that equal values stay together: categories
//! split first, which partitions the release by categorical tuple, then numbers. Identical
//! records therefore always share a leaf; a leaf of identical records (categorical data repeats
//! a lot) keeps its records by tie key, so its distance is computed once and its records enter
//! the k nearest in tie order until one does not.

use super::{Best, Search};

/// Most records of a leaf (unless they are all identical).
const LEAF_SIZE: usize = 16;
/// Nodes of at least this many records build their two halves in parallel.
const PARALLEL_BUILD: usize = 1 << 15;
/// Child index of a leaf.
const LEAF: u32 = u32::MAX;

/// A node: its records `start..end` in tree order and its children ([`LEAF`] for a leaf).
#[derive(Debug, Clone, Copy)]
struct Node {
    start: u32,
    end: u32,
    left: u32,
    right: u32,
    /// Whether every record of the node has the same values (a leaf, then).
    uniform: bool,
}

/// Nodes with their boxes, in depth-first order.
#[derive(Debug, Default)]
struct Nodes {
    nodes: Vec<Node>,
    /// Per node, the lowest then the highest value of every column.
    bounds: Vec<f64>,
    /// Per node and numeric column, whether one of its records misses the number.
    missing: Vec<bool>,
}

impl Nodes {
    /// Appends the nodes of `other`, whose child indices count from 0, after the nodes here.
    fn append(&mut self, other: Nodes) {
        let shift = self.nodes.len() as u32;
        self.nodes.extend(other.nodes.into_iter().map(|mut n| {
            if n.left != LEAF {
                n.left += shift;
                n.right += shift;
            }
            n
        }));
        self.bounds.extend(other.bounds);
        self.missing.extend(other.missing);
    }
}

/// Records being arranged into the tree: their values row after row, their release rows and
/// their tie keys, moved together.
struct Slab<'a> {
    values: &'a mut [f64],
    rows: &'a mut [u32],
    keys: &'a mut [u64],
}

impl<'a> Slab<'a> {
    /// How many records.
    fn len(&self) -> usize {
        self.rows.len()
    }

    /// The records before `at` and the others (`dim` values a record).
    fn split_at(self, at: usize, dim: usize) -> (Slab<'a>, Slab<'a>) {
        let (v1, v2) = self.values.split_at_mut(at * dim);
        let (r1, r2) = self.rows.split_at_mut(at);
        let (k1, k2) = self.keys.split_at_mut(at);
        (
            Slab {
                values: v1,
                rows: r1,
                keys: k1,
            },
            Slab {
                values: v2,
                rows: r2,
                keys: k2,
            },
        )
    }

    /// Swaps records `a` and `b` (`a < b`, `dim` values a record).
    fn swap(&mut self, a: usize, b: usize, dim: usize) {
        let (x, y) = self.values.split_at_mut(b * dim);
        x[a * dim..(a + 1) * dim].swap_with_slice(&mut y[..dim]);
        self.rows.swap(a, b);
        self.keys.swap(a, b);
    }

    /// Orders the records by tie key (identical records, so only rows and keys move).
    fn sort_by_key(&mut self) {
        let mut pairs: Vec<(u64, u32)> = self
            .keys
            .iter()
            .copied()
            .zip(self.rows.iter().copied())
            .collect();
        pairs.sort_unstable();
        for (i, (k, r)) in pairs.into_iter().enumerate() {
            self.keys[i] = k;
            self.rows[i] = r;
        }
    }
}

/// The columns of a record: `dim` values, the first `n_numbers` of them numbers.
#[derive(Debug, Clone, Copy)]
struct Shape {
    dim: usize,
    n_numbers: usize,
}

/// A value as splits order it: missing numbers after every number.
#[inline]
fn sort_key(x: f64) -> f64 {
    if x.is_nan() { f64::INFINITY } else { x }
}

impl Shape {
    /// The box of records `values` (row after row): lowest and highest value of each column
    /// (numbers over their non-missing values), and per number whether one is missing.
    fn bounding_box(&self, values: &[f64]) -> (Vec<f64>, Vec<bool>) {
        let dim = self.dim;
        let mut bounds = vec![f64::INFINITY; 2 * dim];
        bounds[dim..].fill(f64::NEG_INFINITY);
        let mut missing = vec![false; self.n_numbers];
        for y in values.chunks_exact(dim.max(1)) {
            for (j, &x) in y.iter().enumerate().take(dim) {
                if x.is_nan() {
                    missing[j] = true;
                } else {
                    bounds[j] = bounds[j].min(x);
                    bounds[dim + j] = bounds[dim + j].max(x);
                }
            }
        }
        (bounds, missing)
    }

    /// The column to split a node of box `(bounds, missing)` on: the widest (a category's
    /// spread is 1; a number with both missing and present values counts as 1 too); `None`
    /// when every record has the same values.
    fn widest(&self, bounds: &[f64], missing: &[bool]) -> Option<usize> {
        let dim = self.dim;
        let mut widest = None;
        let mut spread = 0.0;
        for j in 0..dim {
            let (lo, hi) = (bounds[j], bounds[dim + j]);
            let present = lo <= hi;
            let s = if j < self.n_numbers {
                if present && missing[j] {
                    1.0f64.max(hi - lo)
                } else if present {
                    hi - lo
                } else {
                    0.0
                }
            } else if hi > lo {
                1.0
            } else {
                0.0
            };
            if s > spread {
                spread = s;
                widest = Some(j);
            }
        }
        widest
    }

    /// Moves the records with the lower values of column `j` to the front of `slab` and
    /// returns where the others start: near the middle, equal values on one side.
    fn split(&self, slab: &mut Slab<'_>, j: usize) -> usize {
        let dim = self.dim;
        let n = slab.len();
        let mid = n / 2;
        let mut column: Vec<f64> = slab
            .values
            .chunks_exact(dim)
            .map(|y| sort_key(y[j]))
            .collect();
        let v = *column
            .select_nth_unstable_by(mid, |a, b| a.partial_cmp(b).expect("no NaN"))
            .1;
        let below = column.iter().filter(|&&x| x < v).count();
        let up_to = column.iter().filter(|&&x| x <= v).count();
        // Values equal to v go left unless that leaves the split more lopsided.
        let inclusive = !(below > 0 && (up_to == n || mid - below <= up_to - mid));
        let goes_left = |x: f64| {
            if inclusive {
                sort_key(x) <= v
            } else {
                sort_key(x) < v
            }
        };
        let (mut i, mut e) = (0, n);
        loop {
            while i < e && goes_left(slab.values[i * dim + j]) {
                i += 1;
            }
            while i < e && !goes_left(slab.values[(e - 1) * dim + j]) {
                e -= 1;
            }
            if i >= e {
                return i;
            }
            slab.swap(i, e - 1, dim);
            i += 1;
            e -= 1;
        }
    }

    /// The nodes of the subtree over the records of `slab`, which it leaves in tree order and
    /// which start at position `offset` of it.
    fn build(&self, mut slab: Slab<'_>, offset: usize) -> Nodes {
        let (bounds, missing) = self.bounding_box(slab.values);
        let widest = self.widest(&bounds, &missing);
        let uniform = widest.is_none();
        let split = widest.filter(|_| slab.len() > LEAF_SIZE);
        if uniform {
            // Identical records: by tie key, so that they enter the k nearest in that order.
            slab.sort_by_key();
        }
        let mut nodes = Nodes {
            nodes: vec![Node {
                start: offset as u32,
                end: (offset + slab.len()) as u32,
                left: LEAF,
                right: LEAF,
                uniform,
            }],
            bounds,
            missing,
        };
        let Some(j) = split else {
            return nodes;
        };
        let n = slab.len();
        let at = self.split(&mut slab, j);
        let (left, right) = slab.split_at(at, self.dim);
        let (a, b) = if n >= PARALLEL_BUILD {
            rayon::join(
                || self.build(left, offset),
                || self.build(right, offset + at),
            )
        } else {
            (self.build(left, offset), self.build(right, offset + at))
        };
        nodes.nodes[0].left = 1;
        nodes.nodes[0].right = 1 + a.nodes.len() as u32;
        nodes.append(a);
        nodes.append(b);
        nodes
    }
}

/// The distance term of target value `x` and release value `y` of a number, as the brute
/// force adds it (NaN when only `y` is missing, read as +∞ once summed).
#[inline(always)]
pub(super) fn number_term(x: f64, y: f64) -> f64 {
    if x.is_nan() {
        if y.is_nan() { 1.0 } else { f64::INFINITY }
    } else {
        (x - y).abs()
    }
}

/// The distance term of target code `x` and release code `y` of a category.
#[inline(always)]
pub(super) fn category_term(x: f64, y: f64) -> f64 {
    if x != y { 1.0 } else { 0.0 }
}

/// The release's records in tree order, with the tree's nodes.
pub(super) struct Tree {
    /// The records in tree order, row after row (numbers, then category codes).
    data: Vec<f64>,
    /// The release row of each record in tree order.
    rows: Vec<u32>,
    /// The tie key of each record in tree order.
    keys: Vec<u64>,
    nodes: Nodes,
    dim: usize,
    n_numbers: usize,
}

impl Tree {
    /// The tree over the candidates of `search`, whose records carry tie keys `keys`.
    pub(super) fn new(search: &Search, keys: &[u64]) -> Tree {
        let n_numbers = search.numbers.len();
        let dim = n_numbers + search.codes.len();
        let n = search.n_candidates;
        let mut values = vec![0.0; n * dim];
        for (j, (c, _)) in search.numbers.iter().enumerate() {
            for (r, &x) in c.iter().enumerate() {
                values[r * dim + j] = x;
            }
        }
        for (j, (c, _)) in search.codes.iter().enumerate() {
            for (r, &x) in c.iter().enumerate() {
                values[r * dim + n_numbers + j] = f64::from(x);
            }
        }
        let mut rows: Vec<u32> = (0..n as u32).collect();
        let mut keys = keys.to_vec();
        let shape = Shape { dim, n_numbers };
        let slab = Slab {
            values: &mut values,
            rows: &mut rows,
            keys: &mut keys,
        };
        let nodes = shape.build(slab, 0);
        Tree {
            data: values,
            keys,
            rows,
            nodes,
            dim,
            n_numbers,
        }
    }

    /// The `k` (≥ 1) nearest release records of target `q` (its values in column order),
    /// nearest first, ties by key; and how many records and nodes the search examined.
    pub(super) fn nearest(&self, q: &[f64], k: usize) -> (Vec<u32>, usize) {
        let mut best = Best::new(k);
        let mut examined = 0;
        self.visit(0, q, &mut best, &mut examined);
        (best.rows(), examined)
    }

    /// The leaf a search for `q` visits first (the child of lower bound at every node): targets
    /// searched in this order find the same part of the tree in cache.
    pub(super) fn first_leaf(&self, q: &[f64]) -> u32 {
        let mut node = 0;
        loop {
            let n = self.nodes.nodes[node];
            if n.left == LEAF {
                return node as u32;
            }
            let (a, b) = (n.left as usize, n.right as usize);
            node = if self.lower_bound(b, q) < self.lower_bound(a, q) {
                b
            } else {
                a
            };
        }
    }

    /// Offers the records of node `node` that may be among the nearest of `q` to `best`,
    /// the child of lower bound first, counting the nodes and records examined.
    fn visit(&self, node: usize, q: &[f64], best: &mut Best, examined: &mut usize) {
        let n = self.nodes.nodes[node];
        if n.left == LEAF {
            *examined += self.scan(n, q, best);
            return;
        }
        *examined += 2;
        let (a, b) = (n.left as usize, n.right as usize);
        let (la, lb) = (self.lower_bound(a, q), self.lower_bound(b, q));
        let ((first, lf), (second, ls)) = if lb < la {
            ((b, lb), (a, la))
        } else {
            ((a, la), (b, lb))
        };
        if lf <= best.bound() {
            self.visit(first, q, best, examined);
        }
        if ls <= best.bound() {
            self.visit(second, q, best, examined);
        }
    }

    /// A lower bound of the distance of `q` to every record of node `node`, summed in the
    /// distance's order.
    #[inline]
    fn lower_bound(&self, node: usize, q: &[f64]) -> f64 {
        let dim = self.dim;
        let bounds = &self.nodes.bounds[2 * dim * node..2 * dim * (node + 1)];
        let (lo, hi) = bounds.split_at(dim);
        let missing = &self.nodes.missing[self.n_numbers * node..self.n_numbers * (node + 1)];
        let mut s = 0.0;
        for j in 0..self.n_numbers {
            let x = q[j];
            s += if x.is_nan() {
                if missing[j] { 1.0 } else { f64::INFINITY }
            } else if lo[j] > hi[j] {
                // Every record misses the number.
                f64::INFINITY
            } else {
                (lo[j] - x).max(x - hi[j]).max(0.0)
            };
        }
        for j in self.n_numbers..dim {
            s += if q[j] < lo[j] || q[j] > hi[j] {
                1.0
            } else {
                0.0
            };
        }
        s
    }

    /// The distance of `q` to the record at position `i` in tree order (missing: +∞).
    #[inline]
    fn distance(&self, i: usize, q: &[f64]) -> f64 {
        let y = &self.data[i * self.dim..(i + 1) * self.dim];
        let mut d = 0.0;
        for j in 0..self.n_numbers {
            d += number_term(q[j], y[j]);
        }
        for j in self.n_numbers..self.dim {
            d += category_term(q[j], y[j]);
        }
        if d.is_nan() { f64::INFINITY } else { d }
    }

    /// Offers the records of leaf `n` to `best`; how many distances it computed.
    fn scan(&self, n: Node, q: &[f64], best: &mut Best) -> usize {
        let (start, end) = (n.start as usize, n.end as usize);
        if n.uniform {
            let d = self.distance(start, q);
            if d > best.bound() {
                return 1;
            }
            for i in start..end {
                if !best.offer(d, self.keys[i], self.rows[i]) {
                    break;
                }
            }
            return 1;
        }
        for i in start..end {
            let y = &self.data[i * self.dim..(i + 1) * self.dim];
            let mut d = 0.0;
            for j in 0..self.n_numbers {
                d += number_term(q[j], y[j]);
            }
            // The terms are never negative: a record already farther is dropped.
            if d > best.bound() {
                continue;
            }
            for j in self.n_numbers..self.dim {
                d += category_term(q[j], y[j]);
            }
            let d = if d.is_nan() { f64::INFINITY } else { d };
            if d <= best.bound() {
                best.offer(d, self.keys[i], self.rows[i]);
            }
        }
        end - start
    }
}
