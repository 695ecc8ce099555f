//! Exact k-nearest-neighbour search under the squared Euclidean distance, brute force over a
//! blocked copy of the released matrix.
//!
//! # How it is fast and still exact
//! - The released rows are copied into blocks of [`LANES`] rows stored dimension-major inside the
//!   block, so the inner loop computes `LANES` distances at once with SIMD (AVX2 when the CPU has
//!   it, detected at run time; SSE2 otherwise).
//! - Queries are processed in chunks in parallel (rayon); each chunk walks the released blocks in
//!   tiles that stay in cache while every query of the chunk scans them.
//! - Partial-sum early exit: after half of the dimensions a block is dropped when every lane
//!   already exceeds the query's current k-th best. Squares are non-negative, so a partial sum
//!   never exceeds the final one and the exit never loses a neighbour.
//! - Every distance is summed in the same order (dimension 0, 1, …) as [`knn_naive`], without
//!   fused multiply-add, so the result is bit-identical to the naive search and independent of the
//!   thread count.
//!
//! # What is returned
//! For each query, `(squared distance, released row)` pairs sorted by distance then row: every
//! row tied at the best distance, and further rows up to `k` in total (ties at the k-th distance
//! beyond that are cut by row order).

use rayon::prelude::*;

use crate::distance::Matrix;

use crate::topk::TopK;

/// Rows per SIMD block.
pub const LANES: usize = 8;
/// Released blocks per cache tile.
const TILE_BLOCKS: usize = 256;

/// The released matrix in SIMD blocks; padding rows hold a huge value and never win.
struct Blocked {
    data: Vec<f64>,
    dim: usize,
    rows: usize,
}

const PAD: f64 = 1e300;

impl Blocked {
    fn new(y: &Matrix) -> Self {
        let (rows, dim) = (y.rows(), y.dim);
        let nb = rows.div_ceil(LANES);
        let mut data = vec![PAD; nb * dim * LANES];
        for r in 0..rows {
            let (b, l) = (r / LANES, r % LANES);
            for k in 0..dim {
                data[(b * dim + k) * LANES + l] = y.data[r * dim + k];
            }
        }
        Blocked { data, dim, rows }
    }

    fn blocks(&self) -> usize {
        self.rows.div_ceil(LANES)
    }
}

/// Queries scanned together against each block (shared loads, independent add chains).
const GROUP: usize = 4;
/// Dimensions summed before the early-exit test.
const CHECKPOINT: usize = 4;

/// Adds the squares of `rows` (dimension-major, `LANES` released values per dimension) minus each
/// query's values into its accumulator, dimension by dimension in order.
#[inline(always)]
fn accumulate(acc: &mut [[f64; LANES]; GROUP], rows: &[f64], qs: &[&[f64]; GROUP], from: usize) {
    for (k, row) in rows.chunks_exact(LANES).enumerate() {
        let row: &[f64; LANES] = match row.try_into() {
            Ok(r) => r,
            Err(_) => return,
        };
        for g in 0..GROUP {
            let qk = qs[g][from + k];
            for l in 0..LANES {
                let t = row[l] - qk;
                acc[g][l] = t.mul_add(t, acc[g][l]);
            }
        }
    }
}

#[inline(always)]
fn scan_tile_generic(
    qs: &[&[f64]; GROUP],
    tops: &mut [TopK],
    blocked: &Blocked,
    b0: usize,
    b1: usize,
) {
    let dim = blocked.dim;
    let cut = CHECKPOINT.min(dim);
    let n = tops.len();
    let mut thr = [f64::NEG_INFINITY; GROUP];
    for g in 0..n {
        thr[g] = tops[g].threshold();
    }
    for (bi, blk) in blocked.data[b0 * dim * LANES..b1 * dim * LANES]
        .chunks_exact(dim * LANES)
        .enumerate()
    {
        let (head, tail) = blk.split_at(cut * LANES);
        let mut acc = [[0.0f64; LANES]; GROUP];
        accumulate(&mut acc, head, qs, 0);
        // Non-short-circuit test so that it compiles to vector compares; padding queries have
        // threshold −∞ and are always out.
        let mut all_out = true;
        for (lanes, &t) in acc.iter().zip(&thr) {
            for &a in lanes {
                all_out &= a > t;
            }
        }
        if all_out {
            continue;
        }
        accumulate(&mut acc, tail, qs, cut);
        let b = b0 + bi;
        for g in 0..n {
            let best = tops[g].items.first().map_or(f64::INFINITY, |x| x.0);
            for (l, &a) in acc[g].iter().enumerate() {
                if a <= thr[g] || a == best {
                    let r = b * LANES + l;
                    if r < blocked.rows {
                        tops[g].offer(a, r as u32);
                        thr[g] = tops[g].threshold();
                    }
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn scan_tile_avx2(
    qs: &[&[f64]; GROUP],
    tops: &mut [TopK],
    blocked: &Blocked,
    b0: usize,
    b1: usize,
) {
    use std::arch::x86_64::*;
    // Explicit intrinsics: eight accumulators (4 queries × 2 vectors of 4 lanes) stay in
    // registers. Same arithmetic as `accumulate`: t = y − q; acc = fma(t, t, acc), dimension by
    // dimension in order.
    const _: () = assert!(LANES == 8 && GROUP == 4);
    let dim = blocked.dim;
    let cut = CHECKPOINT.min(dim);
    let n = tops.len();
    let mut thr = [f64::NEG_INFINITY; GROUP];
    for g in 0..n {
        thr[g] = tops[g].threshold();
    }
    // The group's queries interleaved by dimension: qt[4k + g] = qs[g][k].
    let mut qt = vec![0.0f64; dim * GROUP];
    for k in 0..dim {
        for g in 0..GROUP {
            qt[k * GROUP + g] = qs[g][k];
        }
    }
    let (qt_head, qt_tail) = qt.split_at(cut * GROUP);
    let step = |a: &mut [__m256d; 8], rows: &[f64], qv: &[f64]| {
        for (row, q4) in rows.chunks_exact(LANES).zip(qv.chunks_exact(GROUP)) {
            let (Ok(row), Ok(q4)): (Result<&[f64; LANES], _>, Result<&[f64; GROUP], _>) =
                (row.try_into(), q4.try_into())
            else {
                return;
            };
            // SAFETY: each half of `row` holds exactly four f64; unaligned loads are allowed.
            let (y0, y1) = unsafe {
                (
                    _mm256_loadu_pd(row[..4].as_ptr()),
                    _mm256_loadu_pd(row[4..].as_ptr()),
                )
            };
            for g in 0..GROUP {
                let q = _mm256_set1_pd(q4[g]);
                let t0 = _mm256_sub_pd(y0, q);
                let t1 = _mm256_sub_pd(y1, q);
                a[2 * g] = _mm256_fmadd_pd(t0, t0, a[2 * g]);
                a[2 * g + 1] = _mm256_fmadd_pd(t1, t1, a[2 * g + 1]);
            }
        }
    };
    let data = &blocked.data[b0 * dim * LANES..b1 * dim * LANES];
    for (bi, blk) in data.chunks_exact(dim * LANES).enumerate() {
        let mut a = [_mm256_setzero_pd(); 8];
        let (head, tail) = blk.split_at(cut * LANES);
        step(&mut a, head, qt_head);
        let mut any_in = 0i32;
        for g in 0..GROUP {
            let t = _mm256_set1_pd(thr[g]);
            any_in |= _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(a[2 * g], t));
            any_in |= _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LE_OQ>(a[2 * g + 1], t));
        }
        if any_in == 0 {
            continue;
        }
        step(&mut a, tail, qt_tail);
        let b = b0 + bi;
        for g in 0..n {
            let mut acc = [0.0f64; LANES];
            let (lo, hi) = acc.split_at_mut(4);
            // SAFETY: `lo` and `hi` hold exactly four f64 each; unaligned stores are allowed.
            unsafe {
                _mm256_storeu_pd(lo.as_mut_ptr(), a[2 * g]);
                _mm256_storeu_pd(hi.as_mut_ptr(), a[2 * g + 1]);
            }
            let best = tops[g].items.first().map_or(f64::INFINITY, |x| x.0);
            for (l, &v) in acc.iter().enumerate() {
                if v <= thr[g] || v == best {
                    let r = b * LANES + l;
                    if r < blocked.rows {
                        tops[g].offer(v, r as u32);
                        thr[g] = tops[g].threshold();
                    }
                }
            }
        }
    }
}

fn scan_tile(
    qs: &[&[f64]; GROUP],
    tops: &mut [TopK],
    blocked: &Blocked,
    b0: usize,
    b1: usize,
    avx2: bool,
) {
    #[cfg(target_arch = "x86_64")]
    if avx2 {
        // SAFETY: `avx2` is true only when the CPU reports AVX2 and FMA (checked in `knn`).
        unsafe { scan_tile_avx2(qs, tops, blocked, b0, b1) };
        return;
    }
    let _ = avx2;
    scan_tile_generic(qs, tops, blocked, b0, b1)
}

/// The `k` nearest released rows of every query row (squared Euclidean), exact; see the module
/// docs for what "k" keeps when distances tie.
///
/// On x86-64 with AVX2 and FMA, a single-precision filter (module `knn32`) discards pairs
/// that cannot be in the answer and recomputes the rest exactly; the result is identical.
pub fn knn(x: &Matrix, y: &Matrix, k: usize) -> Vec<Vec<(f64, u32)>> {
    assert_eq!(x.dim, y.dim, "query and released matrices differ in width");
    #[cfg(target_arch = "x86_64")]
    if x.dim > 0
        && y.rows() > 0
        && let Some(r) = crate::knn32::knn(x, y, k.max(1))
    {
        return r;
    }
    knn_f64(x, y, k)
}

/// The `f64` kernel alone (what [`knn`] runs without AVX2/FMA).
pub fn knn_f64(x: &Matrix, y: &Matrix, k: usize) -> Vec<Vec<(f64, u32)>> {
    assert_eq!(x.dim, y.dim, "query and released matrices differ in width");
    let k = k.max(1);
    let nq = x.rows();
    if y.rows() == 0 {
        return vec![Vec::new(); nq];
    }
    #[cfg(target_arch = "x86_64")]
    let avx2 =
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma");
    #[cfg(not(target_arch = "x86_64"))]
    let avx2 = false;
    let blocked = Blocked::new(y);
    let nb = blocked.blocks();
    let threads = rayon::current_num_threads().max(1);
    let chunk = (nq / (threads * 4)).clamp(1, 256);
    let mut out: Vec<Vec<(f64, u32)>> = vec![Vec::new(); nq];
    out.par_chunks_mut(chunk)
        .enumerate()
        .for_each(|(ci, slot)| {
            let q0 = ci * chunk;
            let mut tops: Vec<TopK> = (0..slot.len()).map(|_| TopK::new(k)).collect();
            let mut b0 = 0;
            while b0 < nb {
                let b1 = (b0 + TILE_BLOCKS).min(nb);
                for (gi, group) in tops.chunks_mut(GROUP).enumerate() {
                    let first = q0 + gi * GROUP;
                    let last = first + group.len() - 1;
                    let qs: [&[f64]; GROUP] = std::array::from_fn(|g| x.row((first + g).min(last)));
                    scan_tile(&qs, group, &blocked, b0, b1, avx2);
                }
                b0 = b1;
            }
            for (s, t) in slot.iter_mut().zip(tops) {
                *s = t.items;
            }
        });
    out
}

/// The definition: every distance, sorted by (distance, row), cut as [`knn`] cuts. For tests and
/// as the reference in benchmarks.
pub fn knn_naive(x: &Matrix, y: &Matrix, k: usize) -> Vec<Vec<(f64, u32)>> {
    let k = k.max(1);
    (0..x.rows())
        .map(|i| {
            let q = x.row(i);
            let mut all: Vec<(f64, u32)> = (0..y.rows())
                .map(|j| {
                    let r = y.row(j);
                    let mut acc = 0.0f64;
                    for d in 0..x.dim {
                        let t = r[d] - q[d];
                        acc = t.mul_add(t, acc);
                    }
                    (acc, j as u32)
                })
                .collect();
            all.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let best = all.first().map_or(f64::INFINITY, |x| x.0);
            let ties = all.iter().take_while(|x| x.0 == best).count();
            all.truncate(ties.max(k));
            all
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn mat(v: Vec<f64>, dim: usize) -> Matrix {
        Matrix { data: v, dim }
    }

    #[test]
    fn ties_at_best_are_all_reported() {
        // Five released rows at distance 1 from the origin, one at 0.5 further.
        let y = mat(
            vec![1.0, 0.0, 0.0, 1.0, -1.0, 0.0, 0.0, -1.0, 1.0, 0.0, 1.5, 0.0],
            2,
        );
        let x = mat(vec![0.0, 0.0], 2);
        let r = knn(&x, &y, 2);
        assert_eq!(
            r[0].iter().map(|p| p.1).collect::<Vec<_>>(),
            vec![0, 1, 2, 3, 4]
        );
        assert!(r[0].iter().all(|p| p.0 == 1.0));
        assert_eq!(r, knn_naive(&x, &y, 2));
    }

    #[test]
    fn full_query_groups_and_tiles_equal_naive() {
        use rand::{Rng, SeedableRng};
        // Enough queries for full groups of four in every chunk, enough released rows for
        // several tiles, few levels for many ties; widths below and above the checkpoint.
        for (dim, levels, seed) in [(14, 3, 1u64), (3, 4, 2), (1, 5, 3), (5, 2, 4)] {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut make = |n: usize| -> Vec<f64> {
                (0..n * dim)
                    .map(|_| rng.gen_range(0..levels) as f64 * 0.25)
                    .collect()
            };
            let x = mat(make(203), dim);
            let y = mat(make(2 * TILE_BLOCKS * LANES + 13), dim);
            let naive = knn_naive(&x, &y, 5);
            assert_eq!(knn(&x, &y, 5), naive, "dim {dim}");
            assert_eq!(knn_f64(&x, &y, 5), naive, "dim {dim}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn fast_equals_naive(nq in 1usize..20, ny in 1usize..300, dim in 1usize..16, k in 1usize..6,
                             levels in 2i32..6, seed in any::<u64>()) {
            use rand::{Rng, SeedableRng};
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            // Small integer codes make ties common, as with categorical keys.
            let mut make = |n: usize| -> Vec<f64> { (0..n * dim).map(|_| rng.gen_range(0..levels) as f64 * 0.5).collect() };
            let x = mat(make(nq), dim);
            let y = mat(make(ny), dim);
            let naive = knn_naive(&x, &y, k);
            prop_assert_eq!(&knn(&x, &y, k), &naive);
            prop_assert_eq!(&knn_f64(&x, &y, k), &naive);
        }

        #[test]
        fn f32_filter_keeps_neighbours_below_f32_resolution(nq in 1usize..12, ny in 1usize..300, dim in 1usize..15, seed in any::<u64>()) {
            use rand::{Rng, SeedableRng};
            // Values near 1e5 differing by less than one f32 step there (~0.008).
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut make = |n: usize| -> Vec<f64> { (0..n * dim).map(|_| 1e5 + rng.r#gen::<f64>() * 1e-3).collect() };
            let x = mat(make(nq), dim);
            let y = mat(make(ny), dim);
            let naive = knn_naive(&x, &y, 3);
            prop_assert_eq!(&knn(&x, &y, 3), &naive);
        }

        #[test]
        fn fast_equals_naive_continuous(nq in 1usize..10, ny in 1usize..400, dim in 1usize..15, seed in any::<u64>()) {
            use rand::{Rng, SeedableRng};
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut make = |n: usize| -> Vec<f64> { (0..n * dim).map(|_| rng.r#gen::<f64>() * 100.0 - 50.0).collect() };
            let x = mat(make(nq), dim);
            let y = mat(make(ny), dim);
            let naive = knn_naive(&x, &y, 5);
            prop_assert_eq!(&knn(&x, &y, 5), &naive);
            prop_assert_eq!(&knn_f64(&x, &y, 5), &naive);
        }
    }
}
