//! String similarities of the comparison levels, equal to `strsim`'s value for value (the same
//! algorithm and the same floating-point operations in the same order), with a byte path for
//! ASCII strings of at most 64 bytes that allocates nothing. Other strings go to `strsim`.
//! `tests/fellegi_sunter_kernel.rs` checks the equality on random strings.

/// The longest ASCII string the byte path takes (its match flags are one `u64`).
const MAX_FAST: usize = 64;

fn fast(a: &str, b: &str) -> bool {
    a.len() <= MAX_FAST && b.len() <= MAX_FAST && a.is_ascii() && b.is_ascii()
}

/// Jaro similarity of two byte strings (`strsim::generic_jaro` on bytes).
fn jaro_bytes(a: &[u8], b: &[u8]) -> f64 {
    let (al, bl) = (a.len(), b.len());
    if al == 0 && bl == 0 {
        return 1.0;
    } else if al == 0 || bl == 0 {
        return 0.0;
    }
    let range = (al.max(bl) / 2).saturating_sub(1);
    let (mut af, mut bf) = (0u64, 0u64);
    let mut matches = 0usize;
    for (i, &x) in a.iter().enumerate() {
        let lo = i.saturating_sub(range);
        let hi = bl.min(i + range + 1);
        for (j, &y) in b.iter().enumerate().take(hi).skip(lo) {
            if x == y && bf >> j & 1 == 0 {
                af |= 1 << i;
                bf |= 1 << j;
                matches += 1;
                break;
            }
        }
    }
    if matches == 0 {
        return 0.0;
    }
    let mut transpositions = 0usize;
    let mut j = 0usize;
    for (i, &x) in a.iter().enumerate() {
        if af >> i & 1 == 1 {
            while bf >> j & 1 == 0 {
                j += 1;
            }
            if x != b[j] {
                transpositions += 1;
            }
            j += 1;
        }
    }
    transpositions /= 2;
    ((matches as f64 / al as f64)
        + (matches as f64 / bl as f64)
        + ((matches - transpositions) as f64 / matches as f64))
        / 3.0
}

/// Jaro–Winkler similarity, equal to `strsim::jaro_winkler(a, b)`.
pub fn jaro_winkler(a: &str, b: &str) -> f64 {
    if !fast(a, b) {
        return strsim::jaro_winkler(a, b);
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let sim = jaro_bytes(a, b);
    if sim > 0.7 {
        let prefix_length = a.iter().take(4).zip(b).take_while(|(x, y)| x == y).count();
        sim + 0.1 * prefix_length as f64 * (1.0 - sim)
    } else {
        sim
    }
}

/// Jaro similarity, equal to `strsim::jaro(a, b)`.
pub fn jaro(a: &str, b: &str) -> f64 {
    if !fast(a, b) {
        return strsim::jaro(a, b);
    }
    jaro_bytes(a.as_bytes(), b.as_bytes())
}

/// The (unrestricted) Damerau–Levenshtein distance of two byte strings: insertions,
/// deletions, substitutions and transpositions of adjacent characters, a substring edited
/// after a transposition too (Lowrance & Wagner 1975; `strsim::damerau_levenshtein`, DuckDB's
/// `damerau_levenshtein`).
fn damerau_levenshtein_bytes(a: &[u8], b: &[u8]) -> usize {
    let (n, m) = (a.len(), b.len());
    if n == 0 {
        return m;
    }
    if m == 0 {
        return n;
    }
    let w = m + 2;
    let max = n + m;
    let mut d = vec![0usize; (n + 2) * w];
    let mut last_row = [0u8; 256];
    d[0] = max;
    for i in 0..=n {
        d[(i + 1) * w] = max;
        d[(i + 1) * w + 1] = i;
    }
    for j in 0..=m {
        d[j + 1] = max;
        d[w + j + 1] = j;
    }
    for i in 1..=n {
        let mut last_col = 0usize;
        for j in 1..=m {
            let (k, l) = (usize::from(last_row[b[j - 1] as usize]), last_col);
            let cost = usize::from(a[i - 1] != b[j - 1]);
            if cost == 0 {
                last_col = j;
            }
            let sub = d[i * w + j] + cost;
            let ins = d[(i + 1) * w + j] + 1;
            let del = d[i * w + j + 1] + 1;
            let trans = d[k * w + l] + (i - k - 1) + 1 + (j - l - 1);
            d[(i + 1) * w + j + 1] = sub.min(ins).min(del).min(trans);
        }
        last_row[a[i - 1] as usize] = i as u8;
    }
    d[(n + 1) * w + m + 1]
}

/// The bag distance of two byte strings: `max(|A \\ B|, |B \\ A|)` over their multisets of
/// bytes. Every insertion, deletion or substitution changes it by at most 1 and a
/// transposition not at all, so it is a lower bound of the Levenshtein and the
/// Damerau–Levenshtein distance (Bartolini et al. 2002): most pairs of unrelated values are
/// refused by it without the quadratic table.
fn bag_distance(a: &[u8], b: &[u8]) -> usize {
    let mut count = [0i16; 256];
    for &x in a {
        count[x as usize] += 1;
    }
    for &y in b {
        count[y as usize] -= 1;
    }
    // Visit only the bytes present (each once: its count is cleared once read).
    let (mut only_a, mut only_b) = (0usize, 0usize);
    for &x in a.iter().chain(b) {
        let c = &mut count[x as usize];
        if *c > 0 {
            only_a += *c as usize;
        } else {
            only_b += (-*c) as usize;
        }
        *c = 0;
    }
    only_a.max(only_b)
}

/// The Damerau–Levenshtein distance of two byte strings of at most 32 bytes when it is at
/// most `max`, else `None`: the table of [`damerau_levenshtein_bytes`] in one stack array of
/// bytes, given up at the first row whose every cell exceeds `max` (a row's least cell never
/// decreases down the table: every step into a row costs at least the least cell of the row
/// above, a transposition from `k` rows up at least `i − k` more).
fn damerau_levenshtein_small(a: &[u8], b: &[u8], max: usize) -> Option<usize> {
    const W: usize = 34;
    let (n, m) = (a.len(), b.len());
    debug_assert!(n <= 32 && m <= 32);
    let big = (n + m) as u8;
    let mut d = [0u8; W * W];
    let mut last_row = [0u8; 256];
    let w = W;
    d[0] = big;
    for i in 0..=n {
        d[(i + 1) * w] = big;
        d[(i + 1) * w + 1] = i as u8;
    }
    for j in 0..=m {
        d[j + 1] = big;
        d[w + j + 1] = j as u8;
    }
    for i in 1..=n {
        let mut last_col = 0usize;
        let mut row_min = d[(i + 1) * w + 1];
        for j in 1..=m {
            let (k, l) = (usize::from(last_row[b[j - 1] as usize]), last_col);
            let cost = u8::from(a[i - 1] != b[j - 1]);
            if cost == 0 {
                last_col = j;
            }
            let sub = d[i * w + j] + cost;
            let ins = d[(i + 1) * w + j] + 1;
            let del = d[i * w + j + 1] + 1;
            let trans = d[k * w + l].saturating_add(((i - k - 1) + 1 + (j - l - 1)) as u8);
            let v = sub.min(ins).min(del).min(trans);
            d[(i + 1) * w + j + 1] = v;
            row_min = row_min.min(v);
        }
        if usize::from(row_min) > max {
            return None;
        }
        last_row[a[i - 1] as usize] = i as u8;
    }
    let dist = usize::from(d[(n + 1) * w + m + 1]);
    (dist <= max).then_some(dist)
}

/// Whether the Damerau–Levenshtein distance of `a` and `b` is at most `t`
/// (`strsim::damerau_levenshtein(a, b) as f64 <= t`).
pub fn damerau_levenshtein_within(a: &str, b: &str, t: f64) -> bool {
    damerau_levenshtein_bounded(a, b, t).is_some()
}

/// The Damerau–Levenshtein distance (`strsim::damerau_levenshtein`).
pub fn damerau_levenshtein(a: &str, b: &str) -> usize {
    if !fast(a, b) {
        return strsim::damerau_levenshtein(a, b);
    }
    damerau_levenshtein_bytes(a.as_bytes(), b.as_bytes())
}

/// The Levenshtein distance of two byte strings (`strsim::levenshtein` on bytes).
fn levenshtein_bytes(a: &[u8], b: &[u8]) -> usize {
    let mut cache = [0usize; MAX_FAST];
    for (j, c) in cache.iter_mut().enumerate().take(b.len()) {
        *c = j + 1;
    }
    let mut result = b.len();
    for (i, &x) in a.iter().enumerate() {
        result = i + 1;
        let mut distance_b = i;
        for (j, &y) in b.iter().enumerate() {
            let distance_a = distance_b + usize::from(x != y);
            distance_b = cache[j];
            result = (result + 1).min(distance_a.min(distance_b + 1));
            cache[j] = result;
        }
    }
    result
}

/// Whether the Levenshtein distance of `a` and `b` is at most `t` (`strsim::levenshtein(a, b)
/// as f64 <= t`).
pub fn levenshtein_within(a: &str, b: &str, t: f64) -> bool {
    levenshtein_bounded(a, b, t).is_some()
}

/// The Levenshtein distance of `a` and `b` when it is at most `max`, else `None` (refused by
/// the length difference or the bag distance before the table when it can be).
pub fn levenshtein_bounded(a: &str, b: &str, max: f64) -> Option<usize> {
    if !fast(a, b) {
        let d = strsim::levenshtein(a, b);
        return (d as f64 <= max).then_some(d);
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // The distance is at least the difference of the lengths, and the bag distance.
    if (a.len().abs_diff(b.len())) as f64 > max || bag_distance(a, b) as f64 > max {
        return None;
    }
    let d = levenshtein_bytes(a, b);
    (d as f64 <= max).then_some(d)
}

/// The Damerau–Levenshtein distance of `a` and `b` when it is at most `max`, else `None`.
pub fn damerau_levenshtein_bounded(a: &str, b: &str, max: f64) -> Option<usize> {
    if !fast(a, b) {
        let d = strsim::damerau_levenshtein(a, b);
        return (d as f64 <= max).then_some(d);
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if (a.len().abs_diff(b.len())) as f64 > max || bag_distance(a, b) as f64 > max {
        return None;
    }
    if a.len() <= 32 && b.len() <= 32 && max < 64.0 {
        return damerau_levenshtein_small(a, b, max as usize);
    }
    let d = damerau_levenshtein_bytes(a, b);
    (d as f64 <= max).then_some(d)
}

/// An upper bound of the Jaro similarity from the characters the two texts share (every
/// match pairs equal characters, so there are at most as many matches as common characters,
/// and transpositions only lower it): `(c/|a| + c/|b| + 1) / 3`, or 0 when nothing is shared.
/// 1 (no bound) outside the byte path.
pub fn jaro_upper_bound(a: &str, b: &str) -> f64 {
    if !fast(a, b) || a.is_empty() || b.is_empty() {
        return 1.0;
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let common = a.len().max(b.len()) - bag_distance(a, b);
    if common == 0 {
        return 0.0;
    }
    let c = common as f64;
    (c / a.len() as f64 + c / b.len() as f64 + 1.0) / 3.0
}

/// The least Jaro similarity a Jaro–Winkler similarity of at least `t` needs: `t` itself up
/// to 0.7 (no prefix bonus below it), above it the Jaro similarity `j > 0.7` with
/// `j + 0.4 (1 − j) ≥ t` (the bonus is at most 4 × 0.1 × (1 − j)).
pub fn jaro_needed_for_jaro_winkler(t: f64) -> f64 {
    if t <= 0.7 {
        t
    } else {
        t.min((t - 0.4) / 0.6).max(0.7)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_equal_strsim() {
        for (a, b) in [
            ("martha", "marhta"),
            ("dwayne", "duane"),
            ("dixon", "dicksonx"),
            ("", ""),
            ("a", ""),
            ("abc", "abc"),
            ("crate", "trace"),
            ("ñandú", "nandu"),
        ] {
            assert_eq!(
                jaro_winkler(a, b).to_bits(),
                strsim::jaro_winkler(a, b).to_bits(),
                "{a} / {b}"
            );
            assert_eq!(jaro(a, b).to_bits(), strsim::jaro(a, b).to_bits());
            assert_eq!(damerau_levenshtein(a, b), strsim::damerau_levenshtein(a, b));
            assert!(jaro_upper_bound(a, b) >= strsim::jaro(a, b));
            for t in [0.0, 1.0, 2.0, 3.0] {
                assert_eq!(
                    levenshtein_within(a, b, t),
                    strsim::levenshtein(a, b) as f64 <= t,
                    "{a} / {b} / {t}"
                );
            }
        }
    }
}
