//! The parallel reader's fast path: a chunk with no quote in it.
//!
//! Without quotes a field ends at the next delimiter, `\r` or `\n`, so the field boundaries of 64
//! bytes at a time come from one bit mask (compiled to vector compares) and each field is found
//! by a trailing-zero count rather than a test per byte; a short field's dictionary key is read
//! as one masked 8-byte load ([`Key::of_span`]).
//!
//! The path gives exactly what [`parse_general`](super::parse_general) gives, or nothing: anything
//! out of the ordinary (a record with the wrong number of fields, a cell a column refuses, a
//! chunk that ends inside a record) makes it give up, and the chunk is parsed again by the
//! general parser, which reports it.

use super::{Bits, ChunkOut, ColChunk, Ctx, MISSING};
use crate::read::intern::Key;

/// The positions of field separators (delimiter, `\r`, `\n`) in `text`, 64 bytes at a time.
struct Separators<'a> {
    text: &'a [u8],
    delim: u8,
    /// Start of the block whose mask is held (a multiple of 64), or `usize::MAX`.
    block: usize,
    mask: u64,
}

impl<'a> Separators<'a> {
    fn new(text: &'a [u8], delim: u8) -> Self {
        Separators {
            text,
            delim,
            block: usize::MAX,
            mask: 0,
        }
    }

    /// Bit `i` set when `bytes[i]` is the delimiter, `\r` or `\n`.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn mask_of(bytes: &[u8; 64], delim: u8) -> u64 {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128,
            _mm_set1_epi8,
        };
        // SAFETY: SSE2 is part of every x86-64 target; each load reads 16 of the 64 bytes.
        unsafe {
            let d = _mm_set1_epi8(delim as i8);
            let cr = _mm_set1_epi8(b'\r' as i8);
            let lf = _mm_set1_epi8(b'\n' as i8);
            let mut m = 0u64;
            for k in 0..4 {
                let v = _mm_loadu_si128(bytes.as_ptr().add(16 * k).cast::<__m128i>());
                let hit = _mm_or_si128(
                    _mm_cmpeq_epi8(v, d),
                    _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, lf)),
                );
                m |= u64::from(_mm_movemask_epi8(hit) as u16) << (16 * k);
            }
            m
        }
    }

    /// Bit `i` set when `bytes[i]` is the delimiter, `\r` or `\n`.
    #[cfg(not(target_arch = "x86_64"))]
    #[inline]
    fn mask_of(bytes: &[u8; 64], delim: u8) -> u64 {
        let mut m = 0u64;
        for (i, &c) in bytes.iter().enumerate() {
            m |= u64::from((c == delim) | (c == b'\n') | (c == b'\r')) << i;
        }
        m
    }

    #[inline]
    fn load(&mut self, block: usize) {
        self.block = block;
        self.mask = match self.text.get(block..block + 64) {
            Some(b) => Self::mask_of(b.try_into().expect("64 bytes"), self.delim),
            None => {
                // The last, partial block: padded with bytes that separate nothing.
                let mut padded = [b'x'; 64];
                let rest = &self.text[block..];
                padded[..rest.len()].copy_from_slice(rest);
                Self::mask_of(&padded, self.delim)
            }
        };
    }

    /// The first separator at or after `p`, or the text's length when there is none.
    #[inline]
    fn next_from(&mut self, p: usize) -> usize {
        let mut block = p & !63;
        if block != self.block {
            if block >= self.text.len() {
                return self.text.len();
            }
            self.load(block);
        }
        let mut m = self.mask & (!0u64 << (p - block));
        while m == 0 {
            block += 64;
            if block >= self.text.len() {
                return self.text.len();
            }
            self.load(block);
            m = self.mask;
        }
        block + m.trailing_zeros() as usize
    }
}

/// Parses a chunk with no quote, or gives up (`None`) where the general parser must decide.
pub(super) fn parse(ctx: &Ctx<'_>, buf: &[u8], last: bool) -> Option<ChunkOut> {
    if memchr::memchr(b'"', buf).is_some() {
        return None;
    }
    let ncols = ctx.plans.len();
    // Room for a value per line in every column from the start: growing by doubling would
    // copy each column's values about once more and touch twice the fresh memory.
    let lines = memchr::memchr_iter(b'\n', buf).count() + 1;
    let mut cols: Vec<ColChunk> = ctx
        .plans
        .iter()
        .map(|p| {
            let mut c = p.builder();
            c.reserve(lines);
            c
        })
        .collect();
    // Missing masks: this row's bit of every column in one word per column, stored each 64 rows.
    let mut words: Vec<Vec<u64>> = (0..ncols)
        .map(|_| Vec::with_capacity(lines.div_ceil(64)))
        .collect();
    let mut acc = vec![0u64; ncols];
    // Each column's missing tokens as up to four short keys, compared all at once (`None` when
    // a token is longer or there are more).
    let short_missing: Vec<Option<[Key; 4]>> = ctx
        .plans
        .iter()
        .map(|plan| {
            let keys = &plan.missing_keys;
            (keys.len() <= 4 && keys.iter().all(|k| k.is_short())).then(|| {
                let mut four = [Key::NOT_SHORT; 4];
                four[..keys.len()].copy_from_slice(keys);
                four
            })
        })
        .collect();
    let len = buf.len();
    let mut seps = Separators::new(buf, ctx.delim);
    let mut p = 0usize;
    let mut nl = 0u64;
    let mut rows = 0usize;
    let mut last_done = None;
    loop {
        // Blank lines between records are skipped, as the general parser skips them.
        while p < len && (buf[p] == b'\n' || buf[p] == b'\r') {
            nl += u64::from(buf[p] == b'\n');
            p += 1;
        }
        if p == len {
            break;
        }
        let bit = rows % 64;
        let columns = cols.iter_mut().zip(ctx.plans).zip(&mut acc);
        for (j, (((col, plan), acc), tokens)) in columns.zip(&short_missing).enumerate() {
            let end = seps.next_from(p);
            let key = Key::of_span(buf, p, end);
            let field = &buf[p..end];
            let short = key.is_short();
            let missing = match tokens {
                // A short key is its value: equal keys, equal values.
                Some(t) if short => (t[0] == key) | (t[1] == key) | (t[2] == key) | (t[3] == key),
                _ => plan.is_missing(field, key),
            };
            *acc |= u64::from(missing) << bit;
            match col {
                // The common case inline: an inferred column's cell already in its dictionary.
                ColChunk::Infer(inf) if inf.raw.is_none() => {
                    let code = if missing {
                        Some(MISSING)
                    } else if short {
                        inf.dict.find_short(key)
                    } else {
                        inf.dict.find_key(field, key)
                    };
                    match code {
                        Some(c) => inf.codes.push(c),
                        None => inf.push(field, key, missing).ok()?,
                    }
                }
                _ => col.push(plan, field, key, missing).ok()?,
            }
            let final_field = j + 1 == ncols;
            if end == len {
                if !final_field || !last {
                    return None;
                }
                p = len;
            } else if buf[end] == ctx.delim {
                if final_field {
                    return None;
                }
                p = end + 1;
            } else {
                if !final_field {
                    return None;
                }
                let mut q = end;
                if buf[q] == b'\r' && buf.get(q + 1) == Some(&b'\n') {
                    q += 1;
                }
                nl += u64::from(buf[q] == b'\n');
                p = q + 1;
            }
        }
        rows += 1;
        last_done = Some(nl);
        if bit == 63 {
            for (w, a) in words.iter_mut().zip(&mut acc) {
                w.push(std::mem::take(a));
            }
        }
    }
    if !rows.is_multiple_of(64) {
        for (w, a) in words.iter_mut().zip(&acc) {
            w.push(*a);
        }
    }
    let cols = cols
        .into_iter()
        .zip(words)
        .map(|(c, words)| (c, Bits { words, len: rows }))
        .collect();
    Some(ChunkOut {
        cols,
        rows,
        nl,
        last_done,
        complete: true,
        error: None,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::super::{ColPlan, Ctx, parse_general};
    use super::*;
    use crate::ColumnSpec;

    fn plans(n: usize, missing: &[&str]) -> Vec<ColPlan> {
        let missing: Vec<String> = missing.iter().map(|m| m.to_string()).collect();
        (0..n)
            .map(|j| ColPlan::new(&format!("c{j}"), j + 1, ColumnSpec::default(), &missing))
            .collect()
    }

    /// The fast path's output, and whether the general parser gives the same.
    fn fast(text: &[u8], ncols: usize, last: bool) -> Option<(usize, u64, Option<u64>, bool)> {
        fast_with(text, ncols, last, &["", "NA"])
    }

    fn fast_with(
        text: &[u8],
        ncols: usize,
        last: bool,
        missing: &[&str],
    ) -> Option<(usize, u64, Option<u64>, bool)> {
        let plans = plans(ncols, missing);
        let ctx = Ctx {
            body: text,
            delim: b',',
            plans: &plans,
            label: Path::new("t.csv"),
        };
        let out = parse(&ctx, text, last)?;
        let general = parse_general(&ctx, text, last);
        let summary = |o: &ChunkOut| (o.rows, o.nl, o.last_done, o.complete);
        assert_eq!(summary(&out), summary(&general));
        for ((a, abits), (b, bbits)) in out.cols.iter().zip(&general.cols) {
            assert_eq!(abits.words, bbits.words);
            assert_eq!(abits.len, bbits.len);
            let (ColChunk::Infer(a), ColChunk::Infer(b)) = (a, b) else {
                panic!("inferred columns")
            };
            assert_eq!(a.codes, b.codes);
            assert_eq!(a.rows(), b.rows());
        }
        Some(summary(&out))
    }

    #[test]
    fn quote_free_chunks_are_read_by_masks_and_the_rest_is_left_alone() {
        // Fields across 64-byte blocks, CRLF, a lone CR, blank lines, missing cells.
        let long = "x".repeat(70);
        let text = format!("1,NA,{long}\r\n\n22,,3\r4,5,6\n\r\n7,8,{long}9\n");
        assert_eq!(fast(text.as_bytes(), 3, false), Some((4, 5, Some(5), true)));
        // The last chunk may end without a line end; another may not.
        assert_eq!(fast(b"1,2\n3,4", 2, true), Some((2, 1, Some(1), true)));
        assert_eq!(fast(b"1,2\n3,4", 2, false), None);
        assert_eq!(fast(b"1,2\n3,", 2, true), Some((2, 1, Some(1), true)));
        assert_eq!(fast(b"", 2, true), Some((0, 0, None, true)));
        // A quote anywhere, a short or long record, a trailing delimiter: the general parser.
        assert_eq!(fast(b"1,2\n\"3\",4\n", 2, true), None);
        assert_eq!(fast(b"1,2\n3\n", 2, true), None);
        assert_eq!(fast(b"1,2\n3,4,5\n", 2, true), None);
        assert_eq!(fast(b"1,2,\n", 2, true), None);
        // A cell the column refuses (not UTF-8).
        assert_eq!(fast(b"1,2\n3,\xff\n", 2, true), None);
    }

    #[test]
    fn missing_tokens_long_or_many_mark_the_same_cells() {
        let text = b"missing value,1\nNA,missing value\n.,2\n?,-\n-,missing valu\n";
        let some = Some((5, 5, Some(5), true));
        for tokens in [
            &["missing value", "NA"][..],
            &["", "NA", ".", "?", "-"],
            &["NA", ".", "?", "-"],
            &[],
        ] {
            assert_eq!(fast_with(text, 2, true, tokens), some, "{tokens:?}");
        }
    }
}
