//! Decisions: one-to-one assignment of scored pairs (each record of either file linked at most
//! once), greedy or optimal.
//!
//! *Greedy*: pairs by decreasing match weight (ties by intruder row, then released row), a pair
//! is kept when neither record is linked yet. Because it runs best-first, its links at weight
//! ≥ t are exactly those of the greedy run on the pairs ≥ t alone, for every t. It runs without
//! sorting every pair ([`greedy_lists`]): each intruder record's pairs are ordered best first,
//! the head of every list goes in a heap, and the best head is linked when its released
//! record is free, else its list moves on to its next free released record. A head taken from
//! the heap is the best pair whose two records are still free, so the links are those of the
//! global sort.
//!
//! *Optimal*: among pairs at or above the threshold weight `t`, the assignment maximising
//! `Σ (w − t)` — at `t = 0` (match probability 0.5) the most likely one-to-one linkage under the
//! model (Jaro 1989). Solved exactly per connected component of the pair graph (Hungarian
//! algorithm, `crate::hungarian`), each record free to stay unlinked.

use super::blocking::Pairs;
use crate::error::{AttackError, ParamError};
use crate::hungarian;

/// How pairs become links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Assignment {
    /// Every scored pair is a candidate; each intruder record keeps its ranked list.
    None,
    /// Greedy one-to-one, best pairs first.
    #[default]
    Greedy,
    /// Optimal one-to-one (maximum total weight above the threshold).
    Optimal,
}

impl std::str::FromStr for Assignment {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "none" => Ok(Self::None),
            "greedy" => Ok(Self::Greedy),
            "optimal" => Ok(Self::Optimal),
            _ => Err(format!(
                "unknown assignment '{s}'; expected none, greedy or optimal"
            )),
        }
    }
}

/// Per intruder record, its pairs ordered best first (weight descending, then released row).
pub trait SortedLists {
    /// Intruder records.
    fn records(&self) -> usize;
    /// Number of pairs of record `i`.
    fn len_of(&self, i: usize) -> usize;
    /// Pair `pos` of record `i`: released row and weight.
    fn at(&self, i: usize, pos: usize) -> (u32, f64);
}

/// One heap entry: intruder record `i` at position `pos` of its list.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    w: f64,
    i: u32,
    j: u32,
    pos: usize,
}

impl Eq for Entry {}

impl Ord for Entry {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // The heap pops the greatest: higher weight, then lower intruder row, then lower
        // released row.
        self.w
            .total_cmp(&o.w)
            .then(o.i.cmp(&self.i))
            .then(o.j.cmp(&self.j))
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

/// Greedy one-to-one over lists ordered best first (see the [module docs](self)); pairs with a
/// NaN weight are left out. For each intruder row, its released partner and weight.
pub fn greedy_lists<L: SortedLists>(lists: &L, nr: usize) -> Vec<Option<(u32, f64)>> {
    let ni = lists.records();
    let mut out = vec![None; ni];
    let mut used = vec![false; nr];
    let mut heap = std::collections::BinaryHeap::with_capacity(ni);
    let entry = |i: usize, pos: usize| -> Option<Entry> {
        let (j, w) = lists.at(i, pos);
        (!w.is_nan()).then_some(Entry {
            w,
            i: i as u32,
            j,
            pos,
        })
    };
    for i in 0..ni {
        if lists.len_of(i) > 0 {
            heap.extend(entry(i, 0));
        }
    }
    while let Some(e) = heap.pop() {
        let i = e.i as usize;
        if !used[e.j as usize] {
            used[e.j as usize] = true;
            out[i] = Some((e.j, e.w));
            continue;
        }
        if let Some(pos) = (e.pos + 1..lists.len_of(i)).find(|&q| !used[lists.at(i, q).0 as usize])
        {
            heap.extend(entry(i, pos));
        }
    }
    out
}

/// Scored pairs grouped by intruder record and ordered best first.
struct Flat {
    offsets: Vec<usize>,
    pairs: Vec<(u32, f64)>,
}

impl SortedLists for Flat {
    fn records(&self) -> usize {
        self.offsets.len() - 1
    }
    fn len_of(&self, i: usize) -> usize {
        self.offsets[i + 1] - self.offsets[i]
    }
    fn at(&self, i: usize, pos: usize) -> (u32, f64) {
        self.pairs[self.offsets[i] + pos]
    }
}

/// Greedy one-to-one over every pair: for each intruder row, its released partner and weight.
pub fn greedy(pairs: &Pairs, w: &[f64], ni: usize, nr: usize) -> Vec<Option<(u32, f64)>> {
    let mut offsets = vec![0usize; ni + 1];
    for &i in &pairs.intruder {
        offsets[i as usize + 1] += 1;
    }
    for i in 0..ni {
        offsets[i + 1] += offsets[i];
    }
    let mut next = offsets.clone();
    let mut flat = vec![(0u32, 0.0f64); pairs.len()];
    for ((&i, &j), &x) in pairs.intruder.iter().zip(&pairs.released).zip(w) {
        let i = i as usize;
        flat[next[i]] = (j, x);
        next[i] += 1;
    }
    for i in 0..ni {
        // NaN weights last (never taken), then best first, then by released row.
        flat[offsets[i]..offsets[i + 1]].sort_unstable_by(|a, b| {
            a.1.is_nan()
                .cmp(&b.1.is_nan())
                .then_with(|| b.1.total_cmp(&a.1))
                .then(a.0.cmp(&b.0))
        });
    }
    greedy_lists(
        &Flat {
            offsets,
            pairs: flat,
        },
        nr,
    )
}

fn find(parent: &mut [u32], mut x: u32) -> u32 {
    while parent[x as usize] != x {
        let p = parent[x as usize];
        parent[x as usize] = parent[p as usize];
        x = p;
    }
    x
}

/// Optimal one-to-one among pairs with weight ≥ `min_weight`.
pub fn optimal(
    pairs: &Pairs,
    w: &[f64],
    ni: usize,
    nr: usize,
    min_weight: f64,
) -> Result<Vec<Option<(u32, f64)>>, AttackError> {
    let edges: Vec<usize> = (0..pairs.len()).filter(|&p| w[p] >= min_weight).collect();
    let mut parent: Vec<u32> = (0..(ni + nr) as u32).collect();
    for &p in &edges {
        let a = find(&mut parent, pairs.intruder[p]);
        let b = find(&mut parent, ni as u32 + pairs.released[p]);
        if a != b {
            let (lo, hi) = (a.min(b), a.max(b));
            parent[hi as usize] = lo;
        }
    }
    // Edges grouped by component root.
    let mut by_comp: Vec<(u32, usize)> = edges
        .iter()
        .map(|&p| (find(&mut parent, pairs.intruder[p]), p))
        .collect();
    by_comp.sort_unstable();
    let mut out = vec![None; ni];
    let mut start = 0;
    while start < by_comp.len() {
        let root = by_comp[start].0;
        let end = start + by_comp[start..].partition_point(|x| x.0 == root);
        let comp = &by_comp[start..end];
        start = end;
        let mut rows: Vec<u32> = comp.iter().map(|&(_, p)| pairs.intruder[p]).collect();
        let mut cols: Vec<u32> = comp.iter().map(|&(_, p)| pairs.released[p]).collect();
        rows.sort_unstable();
        rows.dedup();
        cols.sort_unstable();
        cols.dedup();
        if comp.len() == 1 {
            let p = comp[0].1;
            out[pairs.intruder[p] as usize] = Some((pairs.released[p], w[p]));
            continue;
        }
        let (r, c) = (rows.len(), cols.len() + rows.len());
        if r * c > hungarian::MAX_CELLS {
            return Err(ParamError::Unsupported(format!(
                "fellegi-sunter: optimal one-to-one meets a group of {} intruder and {} released records linked above the threshold, too large for the exact assignment ({} cells > {}); raise the threshold or use the greedy assignment",
                rows.len(),
                cols.len(),
                r * c,
                hungarian::MAX_CELLS
            ))
            .into());
        }
        // Real columns cost 1 unless an edge (cost −(w − t) − ε); dummy columns cost 0 (unlinked).
        let mut cost = vec![0.0f64; r * c];
        for row in 0..r {
            for col in 0..cols.len() {
                cost[row * c + col] = 1.0;
            }
        }
        let mut wt = vec![f64::NAN; r * cols.len()];
        for &(_, p) in comp {
            let row = rows.binary_search(&pairs.intruder[p]).unwrap_or(0);
            let col = cols.binary_search(&pairs.released[p]).unwrap_or(0);
            cost[row * c + col] = -(w[p] - min_weight) - 1e-9;
            wt[row * cols.len() + col] = w[p];
        }
        for (row, a) in hungarian::assign(&cost, r, c).into_iter().enumerate() {
            if let Some(col) = a
                && col < cols.len()
                && !wt[row * cols.len() + col].is_nan()
            {
                out[rows[row] as usize] = Some((cols[col], wt[row * cols.len() + col]));
            }
        }
    }
    Ok(out)
}
