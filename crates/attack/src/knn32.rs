//! The single-precision filter of [`crate::knn::knn`]: distances are first computed in `f32`
//! (16 lanes per block, twice the SIMD width of `f64`) and only pairs that may belong to the
//! answer are recomputed exactly in `f64`, so the result is the same, bit for bit, as the `f64`
//! definition.
//!
//! # Why the filter never loses a neighbour
//! With `u = 2⁻²⁴`, `M_k` the largest magnitude in dimension `k` (both files) and `t_k = y_k − x_k`,
//! rounding the inputs and the difference to `f32` moves `t_k²` by at most `16.2·u·M_k²`, and `d`
//! fused multiply-adds of non-negative terms move the sum by at most a relative `1.02·d·u`. So a
//! pair whose exact squared distance is `≤ T` has an `f32` value (partial or complete)
//! `≤ T·(1 + 4(d+2)u) + 2·A`, with `A = 16.2·u·Σ_k M_k²`. Pairs above that bound (checked after
//! four dimensions, then after all) are skipped; every other pair is recomputed exactly and
//! offered to the same running list as in the `f64` kernel. The filter is used only when
//! `Σ_k M_k² < 10³⁶` (no `f32` overflow).

use rayon::prelude::*;

use crate::distance::Matrix;
use crate::topk::TopK;

const LANES: usize = 16;
const GROUP: usize = 4;
const CHECKPOINT: usize = 4;
const TILE_BLOCKS: usize = 256;
const U: f64 = 1.0 / 16_777_216.0;

struct Blocked32 {
    data: Vec<f32>,
    dim: usize,
    rows: usize,
}

impl Blocked32 {
    fn new(y: &Matrix) -> Self {
        let (rows, dim) = (y.rows(), y.dim);
        let nb = rows.div_ceil(LANES);
        let mut data = vec![f32::MAX; nb * dim * LANES];
        for r in 0..rows {
            let (b, l) = (r / LANES, r % LANES);
            for k in 0..dim {
                data[(b * dim + k) * LANES + l] = y.data[r * dim + k] as f32;
            }
        }
        Blocked32 { data, dim, rows }
    }
}

/// The exact squared distance, summed as `knn_naive` sums it.
#[inline]
fn exact(q: &[f64], r: &[f64]) -> f64 {
    let mut acc = 0.0f64;
    for (a, b) in r.iter().zip(q) {
        let t = a - b;
        acc = t.mul_add(t, acc);
    }
    acc
}

/// The `f32` value above which a pair cannot be within `thr` exactly (rounded up).
#[inline]
fn bound(thr: f64, slack_rel: f64, slack_abs: f64) -> f32 {
    if thr.is_infinite() {
        return f32::INFINITY;
    }
    let b = thr * (1.0 + slack_rel) + slack_abs;
    let b32 = b as f32;
    // Round up past any downward rounding of the conversion.
    if (b32 as f64) < b {
        b32 * (1.0 + 2.0 * f32::EPSILON)
    } else {
        b32
    }
}

#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2,fma")]
fn scan_tile(
    qs: &[&[f64]; GROUP],
    tops: &mut [TopK],
    blocked: &Blocked32,
    y: &Matrix,
    b0: usize,
    b1: usize,
    slack_rel: f64,
    slack_abs: f64,
) {
    use std::arch::x86_64::*;
    let dim = blocked.dim;
    let cut = CHECKPOINT.min(dim);
    let n = tops.len();
    let mut thr = [f64::NEG_INFINITY; GROUP];
    let mut lim = [f32::NEG_INFINITY; GROUP];
    for g in 0..n {
        thr[g] = tops[g].threshold();
        lim[g] = bound(thr[g], slack_rel, slack_abs);
    }
    let mut qt = vec![0.0f32; dim * GROUP];
    for k in 0..dim {
        for g in 0..GROUP {
            qt[k * GROUP + g] = qs[g][k] as f32;
        }
    }
    let (qt_head, qt_tail) = qt.split_at(cut * GROUP);
    let step = |a: &mut [__m256; 8], rows: &[f32], qv: &[f32]| {
        for (row, q4) in rows.chunks_exact(LANES).zip(qv.chunks_exact(GROUP)) {
            let (Ok(row), Ok(q4)): (Result<&[f32; LANES], _>, Result<&[f32; GROUP], _>) =
                (row.try_into(), q4.try_into())
            else {
                return;
            };
            // SAFETY: each half of `row` holds exactly eight f32; unaligned loads are allowed.
            let (y0, y1) = unsafe {
                (
                    _mm256_loadu_ps(row[..8].as_ptr()),
                    _mm256_loadu_ps(row[8..].as_ptr()),
                )
            };
            for g in 0..GROUP {
                let q = _mm256_set1_ps(q4[g]);
                let t0 = _mm256_sub_ps(y0, q);
                let t1 = _mm256_sub_ps(y1, q);
                a[2 * g] = _mm256_fmadd_ps(t0, t0, a[2 * g]);
                a[2 * g + 1] = _mm256_fmadd_ps(t1, t1, a[2 * g + 1]);
            }
        }
    };
    let data = &blocked.data[b0 * dim * LANES..b1 * dim * LANES];
    for (bi, blk) in data.chunks_exact(dim * LANES).enumerate() {
        let mut a = [_mm256_setzero_ps(); 8];
        let (head, tail) = blk.split_at(cut * LANES);
        step(&mut a, head, qt_head);
        let mut any_in = 0i32;
        for g in 0..GROUP {
            let t = _mm256_set1_ps(lim[g]);
            any_in |= _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(a[2 * g], t));
            any_in |= _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(a[2 * g + 1], t));
        }
        if any_in == 0 {
            continue;
        }
        step(&mut a, tail, qt_tail);
        let b = b0 + bi;
        for g in 0..n {
            let mut acc = [0.0f32; LANES];
            let (lo, hi) = acc.split_at_mut(8);
            // SAFETY: `lo` and `hi` hold exactly eight f32 each; unaligned stores are allowed.
            unsafe {
                _mm256_storeu_ps(lo.as_mut_ptr(), a[2 * g]);
                _mm256_storeu_ps(hi.as_mut_ptr(), a[2 * g + 1]);
            }
            for (l, &v) in acc.iter().enumerate() {
                let r = b * LANES + l;
                if v <= lim[g] && r < blocked.rows {
                    let d = exact(qs[g], y.row(r));
                    let best = tops[g].items.first().map_or(f64::INFINITY, |x| x.0);
                    if d <= thr[g] || d == best {
                        tops[g].offer(d, r as u32);
                        thr[g] = tops[g].threshold();
                        lim[g] = bound(thr[g], slack_rel, slack_abs);
                    }
                }
            }
        }
    }
}

/// The filtered search, or `None` when the CPU lacks AVX2/FMA or the values are too large for
/// `f32`.
pub(crate) fn knn(x: &Matrix, y: &Matrix, k: usize) -> Option<Vec<Vec<(f64, u32)>>> {
    if !(std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"))
    {
        return None;
    }
    let dim = y.dim;
    let mut m2 = vec![0.0f64; dim];
    for row in x
        .data
        .chunks_exact(dim.max(1))
        .chain(y.data.chunks_exact(dim.max(1)))
    {
        for (m, v) in m2.iter_mut().zip(row) {
            *m = m.max(v * v);
        }
    }
    let sum_m2: f64 = m2.iter().sum();
    if sum_m2.is_nan() || sum_m2 >= 1e36 {
        return None;
    }
    let slack_abs = 2.0 * 16.2 * U * sum_m2 + f64::MIN_POSITIVE;
    let slack_rel = 4.0 * (dim as f64 + 2.0) * U;
    let nq = x.rows();
    let blocked = Blocked32::new(y);
    let nb = y.rows().div_ceil(LANES);
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
                    // SAFETY: AVX2 and FMA were detected above.
                    unsafe { scan_tile(&qs, group, &blocked, y, b0, b1, slack_rel, slack_abs) };
                }
                b0 = b1;
            }
            for (s, t) in slot.iter_mut().zip(tops) {
                *s = t.items;
            }
        });
    Some(out)
}
