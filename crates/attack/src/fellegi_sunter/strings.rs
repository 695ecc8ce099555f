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

/// The Damerau–Levenshtein distance of two ASCII byte strings of at most `W − 2` bytes when
/// it is at most `max`, else `None`: the table of [`damerau_levenshtein_bytes`] in one stack
/// array of `CELLS = W × W` bytes, given up at the first row whose every cell exceeds `max` (a row's least cell never
/// decreases down the table: every step into a row costs at least the least cell of the row
/// above, a transposition from `k` rows up at least `i − k` more).
fn damerau_levenshtein_small<const W: usize, const CELLS: usize>(
    a: &[u8],
    b: &[u8],
    max: usize,
) -> Option<usize> {
    let (n, m) = (a.len(), b.len());
    debug_assert!(CELLS == W * W && n + 2 <= W && m + 2 <= W);
    let big = (n + m) as u8;
    let mut d = [0u8; CELLS];
    // ASCII only (the byte path).
    let mut last_row = [0u8; 128];
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

/// Whether the length difference or the bag distance of two texts of the byte path exceeds
/// `max` (then so does any edit distance of them).
fn refused_by_bag(a: &str, b: &str, max: f64) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    (a.len().abs_diff(b.len())) as f64 > max || bag_distance(a, b) as f64 > max
}

/// The Levenshtein distance of `a` and `b` when it is at most `max`, else `None` (refused by
/// the length difference or the bag distance before the table when it can be).
pub fn levenshtein_bounded(a: &str, b: &str, max: f64) -> Option<usize> {
    if fast(a, b) && refused_by_bag(a, b, max) {
        return None;
    }
    levenshtein_by_table(a, b, max)
}

/// [`levenshtein_bounded`] without the length and bag tests (for pairs a bound from their
/// profiles has let through).
pub fn levenshtein_by_table(a: &str, b: &str, max: f64) -> Option<usize> {
    let d = if fast(a, b) {
        levenshtein_bytes(a.as_bytes(), b.as_bytes())
    } else {
        strsim::levenshtein(a, b)
    };
    (d as f64 <= max).then_some(d)
}

/// The Damerau–Levenshtein distance of `a` and `b` when it is at most `max`, else `None`.
pub fn damerau_levenshtein_bounded(a: &str, b: &str, max: f64) -> Option<usize> {
    if fast(a, b) && refused_by_bag(a, b, max) {
        return None;
    }
    damerau_levenshtein_by_table(a, b, max)
}

/// [`damerau_levenshtein_bounded`] without the length and bag tests (for pairs a bound from
/// their profiles has let through): the table, given up once every cell of a row exceeds
/// `max` when the texts are short.
pub fn damerau_levenshtein_by_table(a: &str, b: &str, max: f64) -> Option<usize> {
    if !fast(a, b) {
        let d = strsim::damerau_levenshtein(a, b);
        return (d as f64 <= max).then_some(d);
    }
    if max < 0.0 {
        return None;
    }
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let longest = a.len().max(b.len());
    if longest <= 14 && max < 64.0 {
        return damerau_levenshtein_small::<16, 256>(a, b, max as usize);
    }
    if longest <= 32 && max < 64.0 {
        return damerau_levenshtein_small::<34, 1156>(a, b, max as usize);
    }
    let d = damerau_levenshtein_bytes(a, b);
    (d as f64 <= max).then_some(d)
}

/// Buckets of a [`TextProfile`]'s character counts (the profile fits in 32 bytes: one
/// profile per cache line read).
pub const BUCKETS: usize = 24;

/// Which bucket each character of a dictionary's texts is counted in: the `BUCKETS − 1` most
/// frequent characters one bucket each, every other character the last bucket. Characters
/// sharing a bucket only loosen the bounds (two different characters may look alike, never
/// the reverse), so any assignment keeps them exact.
#[derive(Debug, Clone)]
pub struct CharBuckets {
    ascii: [u8; 128],
    other: foldhash::HashMap<char, u8>,
}

impl CharBuckets {
    /// The buckets of the characters of `texts`, the most frequent characters (over the
    /// texts, each text once) first, ties by character.
    pub fn of<'a>(texts: impl IntoIterator<Item = &'a str>) -> Self {
        let mut freq: foldhash::HashMap<char, u64> = foldhash::HashMap::default();
        for t in texts {
            for c in t.chars() {
                *freq.entry(c).or_insert(0) += 1;
            }
        }
        let mut by_freq: Vec<(char, u64)> = freq.into_iter().collect();
        by_freq.sort_by_key(|&(c, n)| (std::cmp::Reverse(n), c));
        let shared = (BUCKETS - 1) as u8;
        let mut out = CharBuckets {
            ascii: [shared; 128],
            other: foldhash::HashMap::default(),
        };
        for (k, &(c, _)) in by_freq.iter().take(BUCKETS - 1).enumerate() {
            if c.is_ascii() {
                out.ascii[c as usize] = k as u8;
            } else {
                out.other.insert(c, k as u8);
            }
        }
        out
    }

    /// The bucket of a character.
    #[inline]
    fn bucket(&self, c: char) -> usize {
        if c.is_ascii() {
            usize::from(self.ascii[c as usize])
        } else {
            usize::from(self.other.get(&c).copied().unwrap_or((BUCKETS - 1) as u8))
        }
    }
}

/// What the bounds of the string levels read of one text, computed once per distinct value:
/// its length in characters (`strsim` counts characters), how many of its characters fall in
/// each bucket of a [`CharBuckets`], and its first four characters folded to a byte each
/// (two characters folded alike only lengthen the common prefix the bound assumes).
#[derive(Debug, Clone, Copy)]
#[repr(C, align(32))]
pub struct TextProfile {
    counts: [u8; BUCKETS],
    prefix: [u8; 4],
    len: u16,
    /// False when the text is longer than `u16::MAX` characters or a bucket would count more
    /// than 255 of them: then the profile bounds nothing.
    exact: bool,
}

impl TextProfile {
    /// The profile of `s` with the buckets `buckets`.
    pub fn new(s: &str, buckets: &CharBuckets) -> Self {
        let mut counts = [0u8; BUCKETS];
        let mut prefix = [0u8; 4];
        let mut len = 0usize;
        let mut exact = true;
        for (k, c) in s.chars().enumerate() {
            if k < 4 {
                let u = c as u32;
                prefix[k] = (u ^ (u >> 8) ^ (u >> 16)) as u8;
            }
            let n = &mut counts[buckets.bucket(c)];
            match n.checked_add(1) {
                Some(m) => *n = m,
                None => exact = false,
            }
            len += 1;
        }
        TextProfile {
            counts,
            prefix,
            len: u16::try_from(len).unwrap_or_else(|_| {
                exact = false;
                u16::MAX
            }),
            exact,
        }
    }
}

/// An upper bound of the number of characters two texts share (the size of the intersection
/// of their multisets of characters), from their (exact) profiles: the sum over buckets of the
/// smaller count, at most the shorter length.
#[inline]
fn common_upper_bound(a: &TextProfile, b: &TextProfile) -> u32 {
    a.counts
        .iter()
        .zip(&b.counts)
        .map(|(&x, &y)| u32::from(x.min(y)))
        .sum()
}

/// A lower bound of the Levenshtein and the Damerau–Levenshtein distance of two texts from
/// their profiles: the bag distance `max(|a|, |b|) − common` (every insertion, deletion or
/// substitution changes the characters not in common by at most one on each side, a
/// transposition not at all; Bartolini et al. 2002), itself at least `||a| − |b||`.
#[inline]
pub fn edit_distance_lower_bound(a: &TextProfile, b: &TextProfile) -> u32 {
    if !(a.exact && b.exact) {
        return 0;
    }
    u32::from(a.len.max(b.len)) - common_upper_bound(a, b)
}

/// Added to the similarity bounds so that rounding can never put a bound below the value it
/// bounds.
const ROUNDING_MARGIN: f64 = 1e-9;

/// An upper bound of the Jaro similarity of two texts from their profiles: every match pairs
/// two equal characters, so there are at most as many matches `m` as characters in common,
/// and transpositions only lower it: `(m/|a| + m/|b| + 1) / 3` (1 for two empty texts, 0 when
/// one is empty or nothing is shared), plus a margin for rounding.
#[inline]
pub fn jaro_upper_bound(a: &TextProfile, b: &TextProfile) -> f64 {
    if !(a.exact && b.exact) || (a.len == 0 && b.len == 0) {
        return 1.0 + ROUNDING_MARGIN;
    }
    let m = if a.len == 0 || b.len == 0 {
        0
    } else {
        common_upper_bound(a, b)
    };
    if m == 0 {
        return ROUNDING_MARGIN;
    }
    let m = f64::from(m);
    (m / f64::from(a.len) + m / f64::from(b.len) + 1.0) / 3.0 + ROUNDING_MARGIN
}

/// An upper bound of the length of the common prefix of two texts as `strsim::jaro_winkler`
/// counts it (at most four characters): their folded first characters agreeing.
#[inline]
fn common_prefix(a: &TextProfile, b: &TextProfile) -> u32 {
    let n = a.len.min(b.len).min(4) as usize;
    a.prefix[..n]
        .iter()
        .zip(&b.prefix[..n])
        .take_while(|(x, y)| x == y)
        .count() as u32
}

/// An upper bound of the Jaro–Winkler similarity of two texts from their profiles: the
/// Jaro–Winkler formula (`j + 0.1 l (1 − j)` above 0.7, increasing in `j`) applied to
/// [`jaro_upper_bound`] with the texts' actual common prefix `l`.
#[inline]
pub fn jaro_winkler_upper_bound(a: &TextProfile, b: &TextProfile) -> f64 {
    let j = jaro_upper_bound(a, b);
    if j > 0.7 {
        let l = f64::from(common_prefix(a, b));
        j + 0.1 * l * (1.0 - j).max(0.0) + ROUNDING_MARGIN
    } else {
        j
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
            let buckets = CharBuckets::of([a, b]);
            let (p, q) = (TextProfile::new(a, &buckets), TextProfile::new(b, &buckets));
            assert!(jaro_upper_bound(&p, &q) >= strsim::jaro(a, b));
            assert!(jaro_winkler_upper_bound(&p, &q) >= strsim::jaro_winkler(a, b));
            assert!(edit_distance_lower_bound(&p, &q) as usize <= strsim::levenshtein(a, b));
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
