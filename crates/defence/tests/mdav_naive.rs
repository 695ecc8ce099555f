//! MDAV against a naive transcription of Domingo-Ferrer & Torra (2005), Algorithm 1.

use intruder_defence::methods::mdav::partition;
use proptest::prelude::*;

fn d2(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// Farthest of `rows` from `c`, ties to the lowest row.
fn farthest(pts: &[Vec<f64>], rows: &[usize], c: &[f64]) -> usize {
    let mut best = rows[0];
    for &i in rows {
        let (d, db) = (d2(&pts[i], c), d2(&pts[best], c));
        if d > db || (d == db && i < best) {
            best = i;
        }
    }
    best
}

fn group(pts: &[Vec<f64>], rows: &mut Vec<usize>, r: usize, k: usize) -> Vec<usize> {
    let mut others: Vec<usize> = rows.iter().copied().filter(|&i| i != r).collect();
    others.sort_by(|&a, &b| {
        d2(&pts[a], &pts[r])
            .total_cmp(&d2(&pts[b], &pts[r]))
            .then(a.cmp(&b))
    });
    let mut g: Vec<usize> = std::iter::once(r)
        .chain(others.into_iter().take(k - 1))
        .collect();
    g.sort_unstable();
    rows.retain(|i| !g.contains(i));
    g
}

fn naive(cols: &[Vec<f64>], k: usize) -> Vec<Vec<usize>> {
    let n = cols[0].len();
    let p = cols.len();
    let stats: Vec<(f64, f64)> = cols
        .iter()
        .map(|c| {
            let m = c.iter().sum::<f64>() / n as f64;
            let s = (c.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (n as f64 - 1.0)).sqrt();
            (m, if s > 0.0 { s } else { 1.0 })
        })
        .collect();
    let pts: Vec<Vec<f64>> = (0..n)
        .map(|i| {
            (0..p)
                .map(|j| (cols[j][i] - stats[j].0) / stats[j].1)
                .collect()
        })
        .collect();
    let mut rows: Vec<usize> = (0..n).collect();
    let mut out = Vec::new();
    let centroid = |rows: &[usize]| -> Vec<f64> {
        (0..p)
            .map(|j| rows.iter().map(|&i| pts[i][j]).sum::<f64>() / rows.len() as f64)
            .collect()
    };
    while rows.len() >= 3 * k {
        let c = centroid(&rows);
        let r = farthest(&pts, &rows, &c);
        let s = farthest(&pts, &rows, &pts[r].clone());
        out.push(group(&pts, &mut rows, r, k));
        let s = if rows.contains(&s) {
            s
        } else {
            farthest(&pts, &rows, &pts[r].clone())
        };
        out.push(group(&pts, &mut rows, s, k));
    }
    if rows.len() >= 2 * k {
        let c = centroid(&rows);
        let r = farthest(&pts, &rows, &c);
        out.push(group(&pts, &mut rows, r, k));
    }
    if !rows.is_empty() {
        out.push(rows);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(150))]
    #[test]
    fn fast_mdav_equals_the_naive_algorithm(
        p in 1usize..=3,
        n in 2usize..=60,
        k in 2usize..=5,
        seed in any::<u64>(),
        coarse in any::<bool>(),
    ) {
        prop_assume!(n >= k);
        // coarse values make many ties
        let mut state = seed | 1;
        let mut next = || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state };
        let cols: Vec<Vec<f64>> = (0..p)
            .map(|_| (0..n).map(|_| if coarse { (next() % 4) as f64 } else { (next() % 100_000) as f64 / 7.0 }).collect())
            .collect();
        prop_assert_eq!(partition(&cols, k, true), naive(&cols, k));
    }
}
