//! Least squares by R's QR decomposition: LINPACK's `dqrdc2` (Householder reflections with R's
//! *limited* column pivoting) and the parts of `dqrsl` that `lm.fit` and `glm.fit` use, so that
//! coefficients, standard errors and the choice of aliased terms are R's.
//!
//! Why not a crate's QR: a general pivoted QR (nalgebra's `ColPivQR`, LAPACK's `dgeqp3`) moves
//! the column of largest remaining norm to the front at every step, so on a rank-deficient
//! design it drops other columns than R does, and a user comparing with `lm` would see another
//! term called aliased. `dqrdc2` keeps the columns in their order and moves a column to the end
//! only when its norm, after the reflections of the columns before it, has fallen below `tol`
//! times its original norm: the terms R reports as `NA` ("not defined because of
//! singularities"). Householder QR never forms XᵀX, so a design whose condition number is 10⁸
//! (money-scale predictors) loses 8 digits, not 16.

/// A QR decomposition of an n × p matrix as `dqrdc2` leaves it (column-major).
#[derive(Debug, Clone)]
pub(crate) struct Qr {
    n: usize,
    /// R in the upper triangle, the Householder vectors below it (LINPACK's layout).
    qr: Vec<f64>,
    qraux: Vec<f64>,
    /// `pivot[j]`: the original column at position j (the aliased ones last).
    pub(crate) pivot: Vec<usize>,
    /// The numerical rank: the first `rank` positions are the columns kept.
    pub(crate) rank: usize,
}

fn nrm2(x: &[f64]) -> f64 {
    let scale = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if scale == 0.0 || !scale.is_finite() {
        return if scale.is_finite() { 0.0 } else { scale };
    }
    let ss: f64 = x.iter().map(|v| (v / scale).powi(2)).sum();
    scale * ss.sqrt()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `y += t·x`.
fn axpy(t: f64, x: &[f64], y: &mut [f64]) {
    for (yi, xi) in y.iter_mut().zip(x) {
        *yi += t * xi;
    }
}

impl Qr {
    /// `dqrdc2` of the column-major n × p matrix `x` with tolerance `tol` (`lm.fit`: 1e-7;
    /// `glm.fit`: min(1e-7, epsilon / 1000) = 1e-11).
    pub(crate) fn new(mut x: Vec<f64>, n: usize, p: usize, tol: f64) -> Qr {
        debug_assert_eq!(x.len(), n * p);
        let mut qraux = vec![0.0; p];
        let mut work2 = vec![0.0; p];
        let mut pivot: Vec<usize> = (0..p).collect();
        for j in 0..p {
            let nrm = nrm2(&x[j * n..(j + 1) * n]);
            qraux[j] = nrm;
            work2[j] = if nrm == 0.0 { 1.0 } else { nrm };
        }
        let lup = n.min(p);
        // `k` as in LINPACK (1-based): columns from position k on have been moved to the end.
        let mut k = p + 1;
        for l in 0..lup {
            // Cycle the columns from l on to the end until one of non-negligible norm is at l.
            while l + 1 < k && qraux[l] < work2[l] * tol {
                let col: Vec<f64> = x[l * n..(l + 1) * n].to_vec();
                x.copy_within((l + 1) * n..p * n, l * n);
                x[(p - 1) * n..p * n].copy_from_slice(&col);
                pivot[l..].rotate_left(1);
                qraux[l..].rotate_left(1);
                work2[l..].rotate_left(1);
                k -= 1;
            }
            if l + 1 == n {
                break;
            }
            // The Householder reflection of column l.
            let (head, tail) = x.split_at_mut((l + 1) * n);
            let cl = &mut head[l * n + l..(l + 1) * n];
            let mut nrmxl = nrm2(cl);
            if nrmxl == 0.0 {
                continue;
            }
            if cl[0] != 0.0 {
                nrmxl = nrmxl.abs().copysign(cl[0]);
            }
            let s = 1.0 / nrmxl;
            for v in cl.iter_mut() {
                *v *= s;
            }
            cl[0] += 1.0;
            // Apply it to the remaining columns, updating their norms.
            for j in l + 1..p {
                let cj = &mut tail[(j - l - 1) * n + l..(j - l) * n];
                let t = -dot(cl, cj) / cl[0];
                axpy(t, cl, cj);
                if qraux[j] != 0.0 {
                    let tt = (1.0 - (cj[0].abs() / qraux[j]).powi(2)).max(0.0);
                    // dqrdc2's rule (D. Bates, 1999): recompute a norm that has shrunk a lot.
                    if tt.abs() < 1e-6 {
                        qraux[j] = nrm2(&cj[1..]);
                    } else {
                        qraux[j] *= tt.sqrt();
                    }
                }
            }
            qraux[l] = cl[0];
            cl[0] = -nrmxl;
        }
        Qr {
            n,
            qr: x,
            qraux,
            pivot,
            rank: (k - 1).min(n),
        }
    }

    fn at(&self, i: usize, j: usize) -> f64 {
        self.qr[j * self.n + i]
    }

    /// Qᵀy (`dqrsl` with job 1000), using the first `rank` reflections.
    pub(crate) fn qty(&self, y: &[f64]) -> Vec<f64> {
        let n = self.n;
        let mut qty = y.to_vec();
        let ju = self.rank.min(n.saturating_sub(1));
        for j in 0..ju {
            if self.qraux[j] == 0.0 {
                continue;
            }
            let mut v: Vec<f64> = self.qr[j * n + j..(j + 1) * n].to_vec();
            v[0] = self.qraux[j];
            let t = -dot(&v, &qty[j..]) / v[0];
            axpy(t, &v, &mut qty[j..]);
        }
        qty
    }

    /// The least-squares coefficients of the kept columns, in pivoted order (positions
    /// `0..rank`), from Qᵀy: R b = (Qᵀy)₁..rank, by `dqrsl`'s column-oriented back substitution.
    pub(crate) fn coef(&self, qty: &[f64]) -> Vec<f64> {
        let k = self.rank;
        let mut b = qty[..k].to_vec();
        for jj in (0..k).rev() {
            b[jj] /= self.at(jj, jj);
            if jj > 0 {
                let t = -b[jj];
                for i in 0..jj {
                    b[i] += t * self.at(i, jj);
                }
            }
        }
        b
    }

    /// The diagonal of (RᵀR)⁻¹ over the kept columns, in pivoted order: R's
    /// `chol2inv(qr[1:rank, 1:rank])`, the unscaled covariance of the coefficients.
    pub(crate) fn unscaled_variances(&self) -> Vec<f64> {
        let k = self.rank;
        // R⁻¹ (upper triangular), column by column: R·c_j = e_j.
        let mut inv = vec![0.0; k * k];
        for j in 0..k {
            let col = &mut inv[j * k..(j + 1) * k];
            col[j] = 1.0;
            for jj in (0..=j).rev() {
                col[jj] /= self.at(jj, jj);
                let t = -col[jj];
                for i in 0..jj {
                    col[i] += t * self.at(i, jj);
                }
            }
        }
        // diag(R⁻¹ R⁻ᵀ)_i = Σ_j (R⁻¹)_ij².
        (0..k)
            .map(|i| (i..k).map(|j| inv[j * k + i].powi(2)).sum())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Column-major from rows.
    fn cols(rows: &[&[f64]]) -> (Vec<f64>, usize, usize) {
        let n = rows.len();
        let p = rows[0].len();
        let mut x = vec![0.0; n * p];
        for (i, r) in rows.iter().enumerate() {
            for (j, v) in r.iter().enumerate() {
                x[j * n + i] = *v;
            }
        }
        (x, n, p)
    }

    #[test]
    fn solves_a_full_rank_least_squares_problem() {
        // y = 1 + 2.1 x exactly solvable in the mean: x = 1..4, y = 3, 5, 8, 9.
        let (x, n, p) = cols(&[&[1.0, 1.0], &[1.0, 2.0], &[1.0, 3.0], &[1.0, 4.0]]);
        let qr = Qr::new(x, n, p, 1e-7);
        assert_eq!(qr.rank, 2);
        assert_eq!(qr.pivot, vec![0, 1]);
        let qty = qr.qty(&[3.0, 5.0, 8.0, 9.0]);
        let b = qr.coef(&qty);
        assert!(
            (b[0] - 1.0).abs() < 1e-12 && (b[1] - 2.1).abs() < 1e-12,
            "{b:?}"
        );
        // RSS = Σ (Qᵀy)²_{3..4} = 0.7; (XᵀX)⁻¹ = [[1.5, -0.5], [-0.5, 0.2]].
        let rss: f64 = qty[2..].iter().map(|v| v * v).sum();
        assert!((rss - 0.7).abs() < 1e-12);
        let v = qr.unscaled_variances();
        assert!(
            (v[0] - 1.5).abs() < 1e-12 && (v[1] - 0.2).abs() < 1e-12,
            "{v:?}"
        );
    }

    #[test]
    fn a_linear_combination_of_earlier_columns_moves_to_the_end() {
        // Column 2 = column 0 + column 1: R's lm aliases it (NA), keeping the order of the rest.
        let (x, n, p) = cols(&[
            &[1.0, 0.5, 1.5, 7.0],
            &[1.0, 1.5, 2.5, 1.0],
            &[1.0, 2.0, 3.0, 4.0],
            &[1.0, 4.0, 5.0, 2.0],
            &[1.0, 3.0, 4.0, 3.0],
        ]);
        let qr = Qr::new(x, n, p, 1e-7);
        assert_eq!(qr.rank, 3);
        assert_eq!(qr.pivot, vec![0, 1, 3, 2]);
    }
}
