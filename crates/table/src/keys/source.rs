//! Key codes read a block of rows at a time ([`CodeSource`]), for engines that only need each
//! row's code once, in passing (counting class sizes): a categorical column lends its level
//! codes and an integer column its values, so no code array is made for them.

use super::codes::{KeyCodes, MISSING, SetCoding, offset_range};
use crate::bitmap::Bitmap;
use crate::column::{Column, ColumnData, Kind};

/// A key column's codes, read by blocks of rows: every code is below [`card`](Self::card), a
/// missing cell reads [`MISSING`]. The codes are those [`KeyCodes::of`] makes of the column
/// (the same values, the same cardinality), so whatever counts them counts the same classes.
pub trait CodeSource: Sync {
    /// Number of rows.
    fn len(&self) -> usize;
    /// True when there are no rows.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// An upper bound on every code + 1 (as [`KeyCodes::card`]).
    fn card(&self) -> u32;
    /// Writes the codes of rows `start .. start + out.len()` into `out`.
    fn fill(&self, start: usize, out: &mut [u32]);
}

impl CodeSource for KeyCodes {
    fn len(&self) -> usize {
        self.codes.len()
    }
    fn card(&self) -> u32 {
        self.card
    }
    fn fill(&self, start: usize, out: &mut [u32]) {
        out.copy_from_slice(&self.codes[start..start + out.len()]);
    }
}

/// The codes of one column as [`KeyCodes::of`] makes them, lent by the column where it holds
/// them already (level codes, integers in a range below 2²⁴) and made once otherwise.
#[derive(Debug)]
pub enum ColumnCodes<'a> {
    /// A categorical column's level codes.
    Levels {
        /// One level code per row (a placeholder at missing cells).
        codes: &'a [u32],
        /// The missing cells.
        missing: &'a Bitmap,
        /// The number of levels.
        card: u32,
    },
    /// An integer column's values offset from their minimum.
    Offset {
        /// One value per row (a placeholder at missing cells).
        values: &'a [i64],
        /// The minimum observed value (code 0).
        lo: i64,
        /// The missing cells.
        missing: &'a Bitmap,
        /// The span of the values.
        card: u32,
    },
    /// Codes made by [`KeyCodes::of`] (text, floats, wide integers, set-valued cells).
    Owned(KeyCodes),
}

impl<'a> ColumnCodes<'a> {
    /// The codes of `col`, set-valued cells coded as `coding` says (their codes are always
    /// made: [`ColumnCodes::Owned`]). Candidate masks are not part of a source.
    pub fn of(col: &'a Column, coding: SetCoding) -> ColumnCodes<'a> {
        if col.kind() != Kind::Set {
            match col.data() {
                ColumnData::Categorical { codes, levels } => {
                    return ColumnCodes::Levels {
                        codes,
                        missing: col.missing(),
                        card: levels.len() as u32,
                    };
                }
                ColumnData::Integer(v) => {
                    if let Some((lo, card)) = offset_range(col, v) {
                        return ColumnCodes::Offset {
                            values: v,
                            lo,
                            missing: col.missing(),
                            card,
                        };
                    }
                }
                _ => {}
            }
        }
        ColumnCodes::Owned(KeyCodes::of(col, coding))
    }
}

/// Key codes read a part of the rows at a time (a Parquet file's row groups), for counting
/// without ever holding every key column: each part is decoded, its codes used, and its memory
/// given back before the next. The cardinalities are known before any part is read (from the
/// file's statistics), so a part's codes can be combined as soon as it is decoded.
pub trait PartedCodes: Sync {
    /// Number of keys.
    fn nkeys(&self) -> usize {
        self.cards().len()
    }
    /// The number of rows of each part, in file order.
    fn part_rows(&self) -> &[usize];
    /// Each key's bound on its codes + 1 ([`CodeSource::card`]).
    fn cards(&self) -> &[u32];
    /// Decodes part `part` and hands its rows to `piece` a slice at a time, in order: the
    /// offset of the slice within the part and one source per key, each as long as the slice.
    /// `Ok(false)` (and no further slice) when a value lies outside what the cardinalities
    /// allow: the statistics the cardinalities came from were wrong, and the caller must read
    /// the file another way.
    fn for_each_piece(
        &self,
        part: usize,
        piece: &mut dyn FnMut(usize, &[&dyn CodeSource]),
    ) -> Result<bool, crate::DataError>;
    /// A column of the file other than the keys (not a truth column), as the table would hold
    /// it: a CSV file's column the reader finished on the way (its weight column), a Parquet
    /// file's column read whole when first asked for. `None` when it cannot be had so (a CSV
    /// column left as chunk codes, a column that does not read), and the caller then reads the
    /// table for it (which gives the error, if any).
    fn column(&self, name: &str) -> Option<&Column> {
        let _ = name;
        None
    }
}

/// Key codes held whole (one [`CodeSource`] per key, of one length) served as a single part,
/// for an engine that takes [`PartedCodes`].
pub struct OnePart<'a> {
    sources: &'a [&'a dyn CodeSource],
    rows: [usize; 1],
    cards: Vec<u32>,
}

impl<'a> OnePart<'a> {
    /// The sources as one part; `None` when they differ in length.
    pub fn new(sources: &'a [&'a dyn CodeSource]) -> Option<OnePart<'a>> {
        let n = sources.first().map_or(0, |s| s.len());
        sources.iter().all(|s| s.len() == n).then(|| OnePart {
            sources,
            rows: [n],
            cards: sources.iter().map(|s| s.card()).collect(),
        })
    }
}

impl PartedCodes for OnePart<'_> {
    fn part_rows(&self) -> &[usize] {
        &self.rows
    }
    fn cards(&self) -> &[u32] {
        &self.cards
    }
    fn for_each_piece(
        &self,
        part: usize,
        piece: &mut dyn FnMut(usize, &[&dyn CodeSource]),
    ) -> Result<bool, crate::DataError> {
        assert_eq!(part, 0, "one part");
        piece(0, self.sources);
        Ok(true)
    }
}

/// Reads part `part` of `keys` a piece at a time, handing each piece to `piece` as
/// [`PartedCodes::for_each_piece`] does, and checks that the pieces cover the part's rows
/// exactly, in order, with one source per key, all of one length. `Ok(false)` when the part
/// held values beyond the cardinalities or its pieces did not cover it so (a file at odds with
/// its own metadata: the caller reads it another way); no piece is handed on after the first
/// that breaks the rule.
pub fn read_part(
    keys: &dyn PartedCodes,
    part: usize,
    piece: &mut dyn FnMut(usize, &[&dyn CodeSource]),
) -> Result<bool, crate::DataError> {
    let rows = keys.part_rows()[part];
    let nkeys = keys.nkeys();
    let mut covered = 0;
    let mut faithful = true;
    let whole = keys.for_each_piece(part, &mut |offset, sources| {
        let len = sources.first().map_or(0, |s| s.len());
        faithful &= sources.len() == nkeys
            && offset == covered
            && len <= rows - covered
            && sources.iter().all(|s| s.len() == len);
        if faithful {
            piece(offset, sources);
            covered += len;
        }
    })?;
    Ok(whole && faithful && covered == rows)
}

/// Writes [`MISSING`] at the rows of `out` (rows `start ..`) that `missing` marks.
fn mark_missing(missing: &Bitmap, start: usize, out: &mut [u32]) {
    if missing.count_ones() == 0 || out.is_empty() {
        return;
    }
    let end = start + out.len();
    let words = missing.words();
    for (w, &word) in words
        .iter()
        .enumerate()
        .take((end - 1) / 64 + 1)
        .skip(start / 64)
    {
        let mut bits = word;
        let first = w * 64;
        if first < start {
            bits &= !0u64 << (start - first);
        }
        if first + 64 > end {
            bits &= !0u64 >> (first + 64 - end);
        }
        while bits != 0 {
            let b = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            out[first + b - start] = MISSING;
        }
    }
}

impl CodeSource for ColumnCodes<'_> {
    fn len(&self) -> usize {
        match self {
            ColumnCodes::Levels { codes, .. } => codes.len(),
            ColumnCodes::Offset { values, .. } => values.len(),
            ColumnCodes::Owned(k) => k.codes.len(),
        }
    }
    fn card(&self) -> u32 {
        match self {
            ColumnCodes::Levels { card, .. } | ColumnCodes::Offset { card, .. } => *card,
            ColumnCodes::Owned(k) => k.card,
        }
    }
    fn fill(&self, start: usize, out: &mut [u32]) {
        match self {
            ColumnCodes::Levels { codes, missing, .. } => {
                out.copy_from_slice(&codes[start..start + out.len()]);
                mark_missing(missing, start, out);
            }
            ColumnCodes::Offset {
                values,
                lo,
                missing,
                ..
            } => {
                for (o, &x) in out.iter_mut().zip(&values[start..]) {
                    *o = x.wrapping_sub(*lo) as u32;
                }
                mark_missing(missing, start, out);
            }
            ColumnCodes::Owned(k) => k.fill(start, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Role;

    /// Every block split reads the codes KeyCodes::of makes.
    fn same_as_key_codes(col: &Column) {
        let expect = KeyCodes::of(col, SetCoding::Whole);
        let src = ColumnCodes::of(col, SetCoding::Whole);
        assert_eq!(src.card(), expect.card);
        assert_eq!(src.len(), expect.codes.len());
        for block in [1, 3, 63, 64, 65, 200] {
            let mut got = vec![0u32; src.len()];
            for (b, out) in got.chunks_mut(block).enumerate() {
                src.fill(b * block, out);
            }
            assert_eq!(got, expect.codes, "{} in blocks of {block}", col.name());
        }
    }

    #[test]
    fn sources_read_the_codes_of_key_codes() {
        let n = 150;
        let ints: Vec<Option<i64>> = (0..n)
            .map(|i| (i % 7 != 3).then_some((i as i64 * 37) % 11 - 5))
            .collect();
        let wide: Vec<Option<i64>> = (0..n)
            .map(|i| (i % 5 != 0).then_some(i as i64 * (1 << 30)))
            .collect();
        let text: Vec<Option<String>> = (0..n)
            .map(|i| (i % 66 != 1).then(|| format!("v{}", i % 9)))
            .collect();
        let cat = Column::categorical(
            "cat",
            Role::Key,
            &text.iter().map(|t| t.as_deref()).collect::<Vec<_>>(),
            None,
        )
        .unwrap();
        let floats: Vec<Option<f64>> = (0..n)
            .map(|i| (i % 4 != 2).then_some(i as f64 / 8.0))
            .collect();
        let int_col = Column::integer("int", Role::Key, &ints);
        assert!(matches!(
            ColumnCodes::of(&int_col, SetCoding::Whole),
            ColumnCodes::Offset { .. }
        ));
        assert!(matches!(
            ColumnCodes::of(&cat, SetCoding::Whole),
            ColumnCodes::Levels { .. }
        ));
        for col in [
            int_col,
            Column::integer("wide", Role::Key, &wide),
            cat,
            Column::float("float", Role::Key, &floats),
        ] {
            same_as_key_codes(&col);
        }
    }
}
