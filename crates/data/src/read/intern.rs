//! A byte-string interner: distinct values get codes `0, 1, 2, …` in order of first insertion.
//!
//! Open addressing with linear probing over a power-of-two table of codes; the values live in one
//! byte arena. Short values (≤ 8 bytes, the common case for microdata keys) are hashed by one
//! multiplication of their packed bytes.

use std::hash::BuildHasher;

use foldhash::fast::FixedState;

const EMPTY: u32 = u32::MAX;

/// A value's key: values of at most 7 bytes are packed into it whole (bytes, then the length
/// plus one in the top byte), so equal keys mean equal values; longer values get a 56-bit hash
/// (top byte zero) and are compared byte by byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key(u64);

impl Key {
    /// A key no short value has (their top byte is the length plus one).
    pub(crate) const NOT_SHORT: Key = Key(0);

    #[inline]
    pub(crate) fn of(v: &[u8]) -> Key {
        let n = v.len();
        let lo = |i: usize| v[i] as u64;
        let w16 = |i: usize| u16::from_le_bytes([v[i], v[i + 1]]) as u64;
        let w32 = |i: usize| u32::from_le_bytes([v[i], v[i + 1], v[i + 2], v[i + 3]]) as u64;
        let packed = match n {
            0 => 0,
            1 => lo(0),
            2 => w16(0),
            3 => w16(0) | lo(2) << 16,
            4 => w32(0),
            5 => w32(0) | lo(4) << 32,
            6 => w32(0) | w16(4) << 32,
            7 => w32(0) | w16(4) << 32 | lo(6) << 48,
            _ => {
                return Key(FixedState::with_seed(0x5EED).hash_one(v) & 0x00FF_FFFF_FFFF_FFFF);
            }
        };
        Key(packed | ((n as u64 + 1) << 56))
    }

    /// [`Key::of`] of `text[start..end]`, without a branch on the length when the value is
    /// short and eight bytes can be read from `start`.
    #[inline]
    pub(crate) fn of_span(text: &[u8], start: usize, end: usize) -> Key {
        let n = end - start;
        match text.get(start..start + 8) {
            Some(word) if n <= 7 => {
                let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
                let mask = (1u64 << (8 * n)).wrapping_sub(1);
                Key(word & mask | ((n as u64 + 1) << 56))
            }
            _ => Key::of(&text[start..end]),
        }
    }

    #[inline]
    pub(crate) fn is_short(self) -> bool {
        self.0 >> 56 != 0
    }

    #[inline]
    fn slot(self, shift: u32) -> usize {
        ((self.0 ^ (self.0 >> 31)).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
    }
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    key: Key,
    code: u32,
}

const FREE: Slot = Slot {
    key: Key(0),
    code: EMPTY,
};

#[derive(Debug, Clone)]
pub(crate) struct Interner {
    bytes: Vec<u8>,
    /// `starts[i]..starts[i + 1]` is value `i` in `bytes`.
    starts: Vec<usize>,
    table: Vec<Slot>,
    shift: u32,
}

impl Default for Interner {
    fn default() -> Self {
        Interner::with_capacity(16)
    }
}

impl Interner {
    pub(crate) fn with_capacity(n: usize) -> Self {
        let slots = (n.max(8) * 2).next_power_of_two();
        Interner {
            bytes: Vec::new(),
            starts: vec![0],
            table: vec![FREE; slots],
            shift: 64 - slots.trailing_zeros(),
        }
    }

    /// Number of distinct values.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.starts.len() - 1
    }

    /// Value `code`.
    #[inline]
    pub(crate) fn get(&self, code: u32) -> &[u8] {
        let c = code as usize;
        &self.bytes[self.starts[c]..self.starts[c + 1]]
    }

    /// The values in code order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len() as u32).map(|c| self.get(c))
    }

    /// The slot holding `value`, or the free slot where it would go.
    #[inline(always)]
    fn probe(&self, value: &[u8], key: Key) -> (usize, bool) {
        let mask = self.table.len() - 1;
        let mut slot = key.slot(self.shift);
        loop {
            let s = self.table[slot];
            if s.code == EMPTY {
                return (slot, false);
            }
            if s.key == key && (key.is_short() || self.get(s.code) == value) {
                return (slot, true);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The code of `value` and whether it was new.
    #[inline]
    pub(crate) fn intern(&mut self, value: &[u8]) -> (u32, bool) {
        self.intern_key(value, Key::of(value))
    }

    /// [`Interner::intern`] with the value's key computed by the caller.
    #[inline]
    pub(crate) fn intern_key(&mut self, value: &[u8], key: Key) -> (u32, bool) {
        let (slot, found) = self.probe(value, key);
        if found {
            return (self.table[slot].code, false);
        }
        let code = self.len() as u32;
        self.bytes.extend_from_slice(value);
        self.starts.push(self.bytes.len());
        self.table[slot] = Slot { key, code };
        if self.len() * 2 > self.table.len() {
            self.grow();
        }
        (code, true)
    }

    /// The code of `value` when present.
    #[inline]
    pub(crate) fn find(&self, value: &[u8]) -> Option<u32> {
        self.find_key(value, Key::of(value))
    }

    /// [`Interner::find`] with the value's key computed by the caller.
    #[inline]
    pub(crate) fn find_key(&self, value: &[u8], key: Key) -> Option<u32> {
        let (slot, found) = self.probe(value, key);
        found.then(|| self.table[slot].code)
    }

    /// [`Interner::find_key`] of a short key (its value packed whole): no bytes compared.
    #[inline(always)]
    pub(crate) fn find_short(&self, key: Key) -> Option<u32> {
        debug_assert!(key.is_short());
        let mask = self.table.len() - 1;
        let mut slot = key.slot(self.shift);
        loop {
            let s = self.table[slot & mask];
            // A free slot's key is zero, which no short key is.
            if s.key == key {
                return Some(s.code);
            }
            if s.code == EMPTY {
                return None;
            }
            slot += 1;
        }
    }

    fn grow(&mut self) {
        let slots = self.table.len() * 2;
        let old = std::mem::replace(&mut self.table, vec![FREE; slots]);
        self.shift = 64 - slots.trailing_zeros();
        let mask = slots - 1;
        for s in old.into_iter().filter(|s| s.code != EMPTY) {
            let mut slot = s.key.slot(self.shift);
            while self.table[slot].code != EMPTY {
                slot = (slot + 1) & mask;
            }
            self.table[slot] = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_first_insertion_and_survive_growth() {
        let mut d = Interner::default();
        let values: Vec<Vec<u8>> = (0..5000u32)
            .map(|i| {
                if i % 3 == 0 {
                    format!("long value number {i}").into_bytes()
                } else {
                    i.to_string().into_bytes()
                }
            })
            .collect();
        for (i, v) in values.iter().enumerate() {
            assert_eq!(d.intern(v), (i as u32, true));
        }
        for (i, v) in values.iter().enumerate() {
            assert_eq!(d.intern(v), (i as u32, false));
            assert_eq!(d.find(v), Some(i as u32));
            assert_eq!(d.get(i as u32), v.as_slice());
        }
        // Zero bytes and length are part of the value.
        assert!(d.intern(b"a").1);
        assert!(d.intern(b"a\0").1);
        assert!(d.intern(b"").1);
        assert_eq!(d.find(b"a\0\0"), None);
        for v in [
            &b""[..],
            b"a",
            b"ab",
            b"abc",
            b"abcd",
            b"abcde",
            b"abcdef",
            b"abcdefg",
        ] {
            assert_ne!(Key::of(v), Key::of(&[v, b"\0"].concat()), "{v:?}");
        }
        for v in values.iter().chain([&b"a".to_vec(), &b"zz".to_vec()]) {
            let key = Key::of(v);
            if key.is_short() {
                assert_eq!(d.find_short(key), d.find(v), "{v:?}");
            }
        }
        assert_eq!(d.len(), 5003);
    }

    #[test]
    fn a_span_has_the_key_of_its_bytes() {
        let text = b"0123456789abcdefghij,,NA\r\n";
        for start in 0..text.len() {
            for end in start..=text.len() {
                let got = Key::of_span(text, start, end);
                assert_eq!(got, Key::of(&text[start..end]), "{start}..{end}");
            }
        }
    }
}
