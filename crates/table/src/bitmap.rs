//! A packed bit vector used as the per-cell missing mask of a column.

/// A fixed-length packed bit vector. A set bit marks a missing cell.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bitmap {
    words: Vec<u64>,
    len: usize,
    ones: usize,
}

impl Bitmap {
    /// All bits clear.
    pub fn new(len: usize) -> Self {
        Bitmap {
            words: vec![0; len.div_ceil(64)],
            len,
            ones: 0,
        }
    }

    /// From booleans (`true` = set).
    pub fn from_bools(bits: &[bool]) -> Self {
        let mut b = Bitmap::new(bits.len());
        for (i, &v) in bits.iter().enumerate() {
            if v {
                b.set(i);
            }
        }
        b
    }

    /// From packed words (bit `i` is bit `i % 64` of word `i / 64`); bits past `len` are
    /// cleared.
    pub fn from_words(mut words: Vec<u64>, len: usize) -> Bitmap {
        words.resize(len.div_ceil(64), 0);
        if !len.is_multiple_of(64)
            && let Some(w) = words.last_mut()
        {
            *w &= (1u64 << (len % 64)) - 1;
        }
        let ones = words.iter().map(|w| w.count_ones() as usize).sum();
        Bitmap { words, len, ones }
    }

    /// Appends the bits of `other`.
    pub fn append(&mut self, other: &Bitmap) {
        let shift = self.len % 64;
        if shift == 0 {
            self.words.extend_from_slice(&other.words);
        } else {
            for &w in &other.words {
                *self.words.last_mut().expect("a partial word exists") |= w << shift;
                self.words.push(w >> (64 - shift));
            }
        }
        self.len += other.len;
        self.ones += other.ones;
        self.words.truncate(self.len.div_ceil(64));
    }

    /// Number of bits.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the bitmap has no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> usize {
        self.ones
    }

    /// Whether bit `i` is set. Panics when `i` is out of range, like slice indexing.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        assert!(i < self.len, "bit {i} out of range {}", self.len);
        self.words[i >> 6] >> (i & 63) & 1 == 1
    }

    /// Sets bit `i`.
    #[inline]
    pub fn set(&mut self, i: usize) {
        assert!(i < self.len, "bit {i} out of range {}", self.len);
        let w = &mut self.words[i >> 6];
        let m = 1u64 << (i & 63);
        if *w & m == 0 {
            *w |= m;
            self.ones += 1;
        }
    }

    /// Clears bit `i`.
    #[inline]
    pub fn clear(&mut self, i: usize) {
        assert!(i < self.len, "bit {i} out of range {}", self.len);
        let w = &mut self.words[i >> 6];
        let m = 1u64 << (i & 63);
        if *w & m != 0 {
            *w &= !m;
            self.ones -= 1;
        }
    }

    /// Appends one bit.
    pub fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        self.len += 1;
        if bit {
            self.set(self.len - 1);
        }
    }

    /// The packed words: bit `i` is bit `i % 64` of word `i / 64`; bits past `len` are clear.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Positions of the set bits, in increasing order.
    pub fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(wi * 64 + b)
            })
        })
    }

    /// Iterates over the bits.
    pub fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// Keeps the bits at `rows`, in that order.
    pub fn take(&self, rows: &[usize]) -> Bitmap {
        let mut b = Bitmap::new(rows.len());
        for (j, &r) in rows.iter().enumerate() {
            if self.get(r) {
                b.set(j);
            }
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_clear_count() {
        let mut b = Bitmap::new(130);
        b.set(0);
        b.set(64);
        b.set(129);
        b.set(129);
        assert_eq!(b.count_ones(), 3);
        assert!(b.get(64) && !b.get(63));
        b.clear(64);
        assert_eq!(b.count_ones(), 2);
        let mut p = Bitmap::default();
        for i in 0..70 {
            p.push(i % 3 == 0);
        }
        assert_eq!(p.count_ones(), 24);
        assert_eq!(p.ones().take(3).collect::<Vec<_>>(), vec![0, 3, 6]);
        assert_eq!(p.ones().count(), 24);
        assert_eq!(
            p.take(&[3, 4, 69]).iter().collect::<Vec<_>>(),
            vec![true, false, true]
        );
    }

    #[test]
    fn append_and_from_words_match_pushing_bits() {
        for (a, b) in [(0, 5), (3, 64), (64, 3), (63, 130), (100, 0), (1, 1)] {
            let bits: Vec<bool> = (0..a + b).map(|i| (i * 7 + i / 3) % 5 < 2).collect();
            let mut left = Bitmap::from_bools(&bits[..a]);
            left.append(&Bitmap::from_bools(&bits[a..]));
            assert_eq!(left, Bitmap::from_bools(&bits), "{a} + {b}");
            let w = Bitmap::from_bools(&bits).words().to_vec();
            assert_eq!(Bitmap::from_words(w, a + b), Bitmap::from_bools(&bits));
        }
        assert_eq!(Bitmap::from_words(vec![u64::MAX], 3).count_ones(), 3);
    }
}
