//! Optimal one-to-one assignment (Kuhn 1955; Munkres 1957), the shortest-augmenting-path form
//! with potentials, O(n²·m) time and O(n·m) memory for an n × m cost matrix.
//!
//! Used by `nearest` with `one_to_one` (as sdcMicro's `recordLinkage`). The full cost matrix must
//! be held: at 8 bytes a cell, 5,000 × 5,000 takes 200 MB and about 10¹¹ steps in the worst case,
//! which is where it stops being practical on a small machine; `nearest` refuses matrices over
//! [`MAX_CELLS`] cells. A few thousand records a side run in seconds.

/// The largest cost matrix (cells) `nearest` hands to the assignment.
pub const MAX_CELLS: usize = 25_000_000;

/// Minimum-cost assignment on a row-major `rows × cols` cost matrix. Returns for each row the
/// column assigned to it (`None` when `rows > cols` leaves the row unassigned). Costs must be
/// finite. Ties between equally cheap assignments are resolved deterministically.
pub fn assign(cost: &[f64], rows: usize, cols: usize) -> Vec<Option<usize>> {
    assert_eq!(cost.len(), rows * cols, "cost matrix size");
    if rows == 0 || cols == 0 {
        return vec![None; rows];
    }
    if rows > cols {
        // Transpose so that the side being assigned is the smaller one.
        let mut t = vec![0.0; rows * cols];
        for r in 0..rows {
            for c in 0..cols {
                t[c * rows + r] = cost[r * cols + c];
            }
        }
        let by_col = assign(&t, cols, rows);
        let mut out = vec![None; rows];
        for (c, r) in by_col.into_iter().enumerate() {
            if let Some(r) = r {
                out[r] = Some(c);
            }
        }
        return out;
    }
    let (n, m) = (rows, cols);
    // 1-based potentials u (rows), v (cols); p[j] = row matched to column j (0 = none).
    let mut u = vec![0.0f64; n + 1];
    let mut v = vec![0.0f64; m + 1];
    let mut p = vec![0usize; m + 1];
    let mut way = vec![0usize; m + 1];
    let mut minv = vec![0.0f64; m + 1];
    let mut used = vec![false; m + 1];
    for i in 1..=n {
        p[0] = i;
        let mut j0 = 0usize;
        minv.iter_mut().for_each(|x| *x = f64::INFINITY);
        used.iter_mut().for_each(|x| *x = false);
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let mut delta = f64::INFINITY;
            let mut j1 = 0usize;
            let row = &cost[(i0 - 1) * m..i0 * m];
            for j in 1..=m {
                if !used[j] {
                    let cur = row[j - 1] - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            if j1 == 0 {
                // Only possible with non-finite costs; stop rather than loop.
                break;
            }
            for j in 0..=m {
                if used[j] {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if p[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    let mut out = vec![None; n];
    for j in 1..=m {
        if p[j] != 0 {
            out[p[j] - 1] = Some(j - 1);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn total(cost: &[f64], cols: usize, a: &[Option<usize>]) -> f64 {
        a.iter()
            .enumerate()
            .filter_map(|(r, c)| c.map(|c| cost[r * cols + c]))
            .sum()
    }

    /// Brute force over every injective assignment of the smaller side.
    fn brute(cost: &[f64], rows: usize, cols: usize) -> f64 {
        fn rec(
            cost: &[f64],
            rows: usize,
            cols: usize,
            r: usize,
            used: &mut Vec<bool>,
            transpose: bool,
        ) -> f64 {
            let (nr, nc) = if transpose {
                (cols, rows)
            } else {
                (rows, cols)
            };
            if r == nr {
                return 0.0;
            }
            let mut best = f64::INFINITY;
            for c in 0..nc {
                if !used[c] {
                    used[c] = true;
                    let x = if transpose {
                        cost[c * cols + r]
                    } else {
                        cost[r * cols + c]
                    };
                    best = best.min(x + rec(cost, rows, cols, r + 1, used, transpose));
                    used[c] = false;
                }
            }
            best
        }
        let transpose = rows > cols;
        let nc = if transpose { rows } else { cols };
        rec(cost, rows, cols, 0, &mut vec![false; nc], transpose)
    }

    #[test]
    fn known_3x3() {
        // Classic example: optimum 5 (0→1, 1→0, 2→2).
        let c = [4.0, 1.0, 3.0, 2.0, 0.0, 5.0, 3.0, 2.0, 2.0];
        let a = assign(&c, 3, 3);
        assert_eq!(total(&c, 3, &a), 5.0);
    }

    proptest! {
        #[test]
        fn equals_brute_force(rows in 1usize..6, cols in 1usize..6, seed in any::<u64>()) {
            use rand::{Rng, SeedableRng};
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let cost: Vec<f64> = (0..rows * cols).map(|_| (rng.gen_range(0..20) as f64) / 2.0).collect();
            let a = assign(&cost, rows, cols);
            // A valid injective assignment of min(rows, cols) pairs...
            let mut seen = std::collections::HashSet::new();
            for c in a.iter().flatten() { prop_assert!(seen.insert(*c)); }
            prop_assert_eq!(seen.len(), rows.min(cols));
            // ...with the optimal total.
            let t = total(&cost, cols, &a);
            let b = brute(&cost, rows, cols);
            prop_assert!((t - b).abs() < 1e-9, "hungarian {} brute {}", t, b);
        }
    }
}
