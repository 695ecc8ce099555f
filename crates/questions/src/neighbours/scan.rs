//! The brute-force scan for searches the tree cannot prune: every release record, in blocks of
//! 8 records column-major inside a block (category codes as numbers), so that one pass computes
//! 8 distances with SIMD (AVX2 when the CPU has it, detected at run time); targets scan the
//! blocks in chunks of 16 over tiles of 128 blocks that stay in cache; a block whose every record
//! is already farther than the k-th nearest after half the columns is dropped (the terms are
//! never negative). The sums run in the order of the distance everywhere else, so the
//! neighbours are the same. Numbers with missing values take [`Search::nearest_of`] instead.

use super::{Best, Search};

/// Release records per SIMD block.
const LANES: usize = 8;
/// Release blocks per cache tile (with 15 columns, 120 KB).
const TILE_BLOCKS: usize = 128;
/// Targets scanning a tile while it is in cache.
pub(super) const QUERY_CHUNK: usize = 16;

/// The release's auxiliary columns in blocks of [`LANES`] records, column-major inside a block
/// (numbers first, then category codes as numbers), so that one pass computes the distances of
/// a block's records at once with SIMD; the sums run in the same order as
/// [`Search::nearest_of`]'s, so both paths give the same neighbours.
pub(super) struct Blocked {
    data: Vec<f64>,
    dim: usize,
    n_numbers: usize,
    rows: usize,
}

impl Blocked {
    /// The candidates of `search` in blocks.
    pub(super) fn new(search: &Search) -> Blocked {
        let n_numbers = search.numbers.len();
        let dim = n_numbers + search.codes.len();
        let rows = search.n_candidates;
        let blocks = rows.div_ceil(LANES);
        let mut data = vec![0.0; blocks * dim * LANES];
        for r in 0..rows {
            let (b, l) = (r / LANES, r % LANES);
            for (k, (c, _)) in search.numbers.iter().enumerate() {
                data[(b * dim + k) * LANES + l] = c[r];
            }
            for (k, (c, _)) in search.codes.iter().enumerate() {
                data[(b * dim + n_numbers + k) * LANES + l] = f64::from(c[r]);
            }
        }
        Blocked {
            data,
            dim,
            n_numbers,
            rows,
        }
    }

    /// The `k` nearest release records of each target of `chunk` (targets row after row).
    pub(super) fn nearest_of_chunk(&self, chunk: &[f64], k: usize, keys: &[u64]) -> Vec<Vec<u32>> {
        let n = chunk.len() / self.dim.max(1);
        let mut best: Vec<Best> = (0..n).map(|_| Best::new(k)).collect();
        let blocks = self.rows.div_ceil(LANES);
        let mut start = 0;
        while start < blocks {
            let end = (start + TILE_BLOCKS).min(blocks);
            for (q, b) in chunk.chunks(self.dim.max(1)).zip(best.iter_mut()) {
                self.scan(q, start..end, keys, b);
            }
            start = end;
        }
        best.into_iter().map(Best::rows).collect()
    }

    /// Offers every release record of blocks `blocks` to `best` for target `q`.
    fn scan(&self, q: &[f64], blocks: std::ops::Range<usize>, keys: &[u64], best: &mut Best) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2 (checked just above).
                unsafe { self.scan_avx2(q, blocks, keys, best) };
                return;
            }
        }
        self.scan_body(q, blocks, keys, best);
    }

    /// [`Blocked::scan_body`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn scan_avx2(
        &self,
        q: &[f64],
        blocks: std::ops::Range<usize>,
        keys: &[u64],
        best: &mut Best,
    ) {
        self.scan_body(q, blocks, keys, best);
    }

    /// Offers the records of blocks `blocks` to `best`: their distances, numbers then
    /// categories.
    #[inline(always)]
    fn scan_body(&self, q: &[f64], blocks: std::ops::Range<usize>, keys: &[u64], best: &mut Best) {
        let dim = self.dim;
        for b in blocks {
            let block = &self.data[b * dim * LANES..(b + 1) * dim * LANES];
            let mut acc = [0.0f64; LANES];
            for k in 0..self.n_numbers {
                let y = &block[k * LANES..(k + 1) * LANES];
                for l in 0..LANES {
                    acc[l] += (q[k] - y[l]).abs();
                }
            }
            // Distances only grow: a block whose every record is already farther than the
            // k-th nearest after half the columns is dropped.
            let half = self.n_numbers.max(dim / 2);
            for k in self.n_numbers..half {
                let y = &block[k * LANES..(k + 1) * LANES];
                for l in 0..LANES {
                    acc[l] += if q[k] != y[l] { 1.0 } else { 0.0 };
                }
            }
            let bound = best.bound();
            if half > 0 && acc.iter().all(|&a| a > bound) {
                continue;
            }
            for k in half..dim {
                let y = &block[k * LANES..(k + 1) * LANES];
                for l in 0..LANES {
                    acc[l] += if q[k] != y[l] { 1.0 } else { 0.0 };
                }
            }
            for (l, &d) in acc.iter().enumerate() {
                let row = b * LANES + l;
                if d <= bound && row < self.rows {
                    best.offer(d, keys[row], row as u32);
                }
            }
        }
    }
}
