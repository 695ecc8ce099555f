//! Small dense linear algebra: Cholesky solves and inverses of symmetric positive definite
//! matrices (row-major `Vec<Vec<f64>>`).

/// Lower Cholesky factor, or `None` when the matrix is not (numerically) positive definite.
pub(crate) fn cholesky(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let p = a.len();
    let scale = (0..p)
        .map(|i| a[i][i].abs())
        .fold(0.0, f64::max)
        .max(1e-300);
    let mut l = vec![vec![0.0; p]; p];
    for i in 0..p {
        for j in 0..=i {
            let s: f64 = (0..j).map(|m| l[i][m] * l[j][m]).sum();
            if i == j {
                let d = a[i][i] - s;
                if !(d > 1e-12 * scale) {
                    return None;
                }
                l[i][i] = d.sqrt();
            } else {
                l[i][j] = (a[i][j] - s) / l[j][j];
            }
        }
    }
    Some(l)
}

/// Solves L·Lᵀ·x = b.
pub(crate) fn chol_solve(l: &[Vec<f64>], b: &[f64]) -> Vec<f64> {
    let p = l.len();
    let mut y = vec![0.0; p];
    for i in 0..p {
        y[i] = (b[i] - (0..i).map(|m| l[i][m] * y[m]).sum::<f64>()) / l[i][i];
    }
    let mut x = vec![0.0; p];
    for i in (0..p).rev() {
        x[i] = (y[i] - (i + 1..p).map(|m| l[m][i] * x[m]).sum::<f64>()) / l[i][i];
    }
    x
}

/// The inverse from a Cholesky factor.
pub(crate) fn chol_inverse(l: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let p = l.len();
    let mut inv = vec![vec![0.0; p]; p];
    for j in 0..p {
        let mut e = vec![0.0; p];
        e[j] = 1.0;
        let col = chol_solve(l, &e);
        for i in 0..p {
            inv[i][j] = col[i];
        }
    }
    inv
}
