//! A byte-string interner: distinct values get codes `0, 1, 2, …` in order of first insertion.
//!
//! Open addressing with linear probing over a power-of-two table of codes; the values live in one
//! byte arena. Short values (≤ 8 bytes, the common case for microdata keys) are hashed by one
//! multiplication of their packed bytes.

use std::hash::BuildHasher;

use foldhash::fast::FixedState;

const EMPTY: u32 = u32::MAX;

#[derive(Debug, Clone)]
pub(crate) struct Interner {
    bytes: Vec<u8>,
    /// `starts[i]..starts[i + 1]` is value `i` in `bytes`.
    starts: Vec<usize>,
    table: Vec<u32>,
    shift: u32,
}

impl Default for Interner {
    fn default() -> Self {
        Interner::with_capacity(16)
    }
}

#[inline]
fn hash(value: &[u8]) -> u64 {
    if value.len() <= 8 {
        let mut w = [0u8; 8];
        w[..value.len()].copy_from_slice(value);
        let x = u64::from_le_bytes(w) ^ ((value.len() as u64) << 60);
        (x ^ (x >> 29))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0x632B_E59B_D9B4_E019)
            .wrapping_mul(0xBF58_476D_1CE4_E5B9)
    } else {
        FixedState::with_seed(0x5EED).hash_one(value)
    }
}

impl Interner {
    pub(crate) fn with_capacity(n: usize) -> Self {
        let slots = (n.max(8) * 2).next_power_of_two();
        Interner {
            bytes: Vec::new(),
            starts: vec![0],
            table: vec![EMPTY; slots],
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

    /// The code of `value` and whether it was new.
    #[inline]
    pub(crate) fn intern(&mut self, value: &[u8]) -> (u32, bool) {
        let h = hash(value);
        let mask = self.table.len() - 1;
        let mut slot = (h >> self.shift) as usize;
        loop {
            let c = self.table[slot];
            if c == EMPTY {
                break;
            }
            if self.get(c) == value {
                return (c, false);
            }
            slot = (slot + 1) & mask;
        }
        let code = self.len() as u32;
        self.bytes.extend_from_slice(value);
        self.starts.push(self.bytes.len());
        self.table[slot] = code;
        if self.len() * 2 > self.table.len() {
            self.grow();
        }
        (code, true)
    }

    /// The code of `value` when present.
    #[inline]
    pub(crate) fn find(&self, value: &[u8]) -> Option<u32> {
        let h = hash(value);
        let mask = self.table.len() - 1;
        let mut slot = (h >> self.shift) as usize;
        loop {
            let c = self.table[slot];
            if c == EMPTY {
                return None;
            }
            if self.get(c) == value {
                return Some(c);
            }
            slot = (slot + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let slots = self.table.len() * 2;
        self.table = vec![EMPTY; slots];
        self.shift = 64 - slots.trailing_zeros();
        let mask = slots - 1;
        for code in 0..self.len() as u32 {
            let mut slot = (hash(self.get(code)) >> self.shift) as usize;
            while self.table[slot] != EMPTY {
                slot = (slot + 1) & mask;
            }
            self.table[slot] = code;
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
        assert_eq!(d.len(), 5003);
    }
}
