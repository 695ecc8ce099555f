//! Cholesky solves and inverses of symmetric positive definite matrices, by `linfa-linalg`
//! (the factorisation and the two triangular solves), with the toolkit's rule for "numerically
//! singular" on top.

use linfa_linalg::cholesky::Cholesky;
use linfa_linalg::triangular::{SolveTriangularInplace, UPLO};
use ndarray::{Array2, ArrayView2};

/// A lower Cholesky factor L of A = L·Lᵀ.
#[derive(Debug, Clone)]
pub(crate) struct Factor(Array2<f64>);

/// Lower Cholesky factor of a row-major symmetric matrix, or `None` when the matrix is not
/// (numerically) positive definite: a pivot L_ii² at or below 1e-12 times the largest |a_ii|
/// counts as singular (a constant or collinear predictor leaves a rounding-sized pivot rather
/// than a negative one, which `linfa-linalg` alone would accept).
pub(crate) fn cholesky(a: &[Vec<f64>]) -> Option<Factor> {
    let p = a.len();
    let m = Array2::from_shape_fn((p, p), |(i, j)| a[i][j]);
    let scale = m
        .diag()
        .iter()
        .map(|d| d.abs())
        .fold(0.0, f64::max)
        .max(1e-300);
    let l = m.cholesky().ok()?;
    l.diag()
        .iter()
        .all(|d| d * d > 1e-12 * scale)
        .then_some(Factor(l))
}

impl Factor {
    /// Solves L·Lᵀ·X = B in place.
    fn solve_in_place(&self, b: &mut Array2<f64>) {
        let lt: ArrayView2<f64> = self.0.t();
        // Shapes agree by construction; the diagonal is positive (checked in `cholesky`).
        self.0
            .solve_triangular_inplace(b, UPLO::Lower)
            .expect("square factor");
        lt.solve_triangular_inplace(b, UPLO::Upper)
            .expect("square factor");
    }

    /// Solves L·Lᵀ·x = b.
    pub(crate) fn solve(&self, b: &[f64]) -> Vec<f64> {
        let mut x = Array2::from_shape_fn((b.len(), 1), |(i, _)| b[i]);
        self.solve_in_place(&mut x);
        x.into_iter().collect()
    }

    /// The inverse (L·Lᵀ)⁻¹, row-major.
    pub(crate) fn inverse(&self) -> Vec<Vec<f64>> {
        let mut x = Array2::eye(self.0.nrows());
        self.solve_in_place(&mut x);
        x.outer_iter().map(|row| row.to_vec()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A = L·Lᵀ with L = [[2, 0, 0], [6, 1, 0], [-8, 5, 3]] (the classic 3×3 example).
    const A: [[f64; 3]; 3] = [
        [4.0, 12.0, -16.0],
        [12.0, 37.0, -43.0],
        [-16.0, -43.0, 98.0],
    ];

    fn a() -> Vec<Vec<f64>> {
        A.iter().map(|r| r.to_vec()).collect()
    }

    #[test]
    fn factor_solve_and_inverse_of_a_known_matrix() {
        let f = cholesky(&a()).unwrap();
        let want = [[2.0, 0.0, 0.0], [6.0, 1.0, 0.0], [-8.0, 5.0, 3.0]];
        for i in 0..3 {
            for j in 0..3 {
                assert!((f.0[(i, j)] - want[i][j]).abs() < 1e-12, "L[{i}][{j}]");
            }
        }
        // A·(1, 2, 3) = (-20, -43, 192).
        let x = f.solve(&[-20.0, -43.0, 192.0]);
        for (got, want) in x.iter().zip([1.0, 2.0, 3.0]) {
            assert!((got - want).abs() < 1e-10, "{x:?}");
        }
        let inv = f.inverse();
        for i in 0..3 {
            for j in 0..3 {
                let e: f64 = (0..3).map(|k| A[i][k] * inv[k][j]).sum();
                let id = if i == j { 1.0 } else { 0.0 };
                assert!((e - id).abs() < 1e-10, "(A·A⁻¹)[{i}][{j}] = {e}");
            }
        }
    }

    #[test]
    fn singular_and_indefinite_matrices_have_no_factor() {
        // Collinear: the third row is the sum of the first two.
        let s = vec![
            vec![1.0, 2.0, 3.0],
            vec![2.0, 5.0, 7.0],
            vec![3.0, 7.0, 10.0],
        ];
        assert!(cholesky(&s).is_none());
        // Indefinite.
        assert!(cholesky(&[vec![1.0, 2.0], vec![2.0, 1.0]]).is_none());
        // A pivot of 1e-14 relative to the scale is treated as zero.
        assert!(cholesky(&[vec![1.0, 1.0], vec![1.0, 1.0 + 1e-14]]).is_none());
        assert!(cholesky(&[vec![1.0, 1.0], vec![1.0, 1.0 + 1e-9]]).is_some());
    }
}
