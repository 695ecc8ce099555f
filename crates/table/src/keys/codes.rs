//! Dense integer codes of key columns: one file ([`KeyCodes::of`], [`Keys::encode`]) or two
//! files with shared dictionaries ([`encode_pair`], [`encode_pairs`], [`encode_texts_pair`]),
//! candidate masks of set-valued cells ([`SetMasks`]) and codes of key tuples
//! ([`tuple_ids`], [`tuple_ids_pair`]).

use std::borrow::Cow;
use std::collections::HashMap;

use foldhash::fast::FixedState;
use rayon::prelude::*;

use crate::column::{Column, ColumnData, Kind};
use crate::error::DataError;
use crate::keys::policy::SetMatch;
use crate::numeric::reads_as_numbers;
use crate::table::Table;

/// The code of a missing cell, in every code array of this module.
pub const MISSING: u32 = u32::MAX;

/// How a set-valued cell (several candidate values) is coded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SetCoding {
    /// The set as a whole is the value: `{3,4}` differs from `{3}` (and equals `{4,3}`).
    #[default]
    Whole,
    /// The first listed candidate stands for the cell (Mulder's choice).
    First,
    /// Candidate masks ([`SetMasks`]) for matching: stored records offer every candidate; a
    /// query offers every candidate ([`SetMatch::Overlap`]) or its first
    /// ([`SetMatch::First`]). The code separates cells that differ as queries or as stored
    /// values, so records with equal codes match alike. With [`SetMatch::FirstBoth`] the
    /// first candidate is coded as a plain value (as [`SetCoding::First`]) and no masks are kept.
    Candidates(SetMatch),
}

/// Candidate bit masks of the cells of a set-valued key: bit `v` of a cell's mask is set when
/// candidate value `v` is among its candidates. A cell takes [`SetMasks::words`] words (one up
/// to 64 candidate values); a missing cell's masks are all zero.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetMasks {
    bits: usize,
    words: usize,
    stored: Vec<u64>,
    query: Option<Vec<u64>>,
}

impl SetMasks {
    /// Masks from the candidate values of each cell (values `< bits`): stored masks hold every
    /// candidate; query masks too, or only the first candidate with `first_only`.
    pub fn from_candidates<'a>(
        cells: impl ExactSizeIterator<Item = &'a [u32]>,
        bits: usize,
        first_only: bool,
    ) -> SetMasks {
        let words = bits.div_ceil(64).max(1);
        let n = cells.len();
        let mut stored = vec![0u64; n * words];
        let mut query = first_only.then(|| vec![0u64; n * words]);
        for (i, cell) in cells.enumerate() {
            let row = &mut stored[i * words..(i + 1) * words];
            for &v in cell {
                row[v as usize >> 6] |= 1u64 << (v & 63);
            }
            if let (Some(q), Some(&v)) = (query.as_mut(), cell.first()) {
                q[i * words + (v as usize >> 6)] |= 1u64 << (v & 63);
            }
        }
        SetMasks {
            bits,
            words,
            stored,
            query,
        }
    }

    /// Number of candidate values (bits of a mask that may be set).
    pub fn bits(&self) -> usize {
        self.bits
    }

    /// Words per cell.
    pub fn words(&self) -> usize {
        self.words
    }

    /// Number of cells.
    pub fn len(&self) -> usize {
        self.stored.len() / self.words
    }

    /// True when there are no cells.
    pub fn is_empty(&self) -> bool {
        self.stored.is_empty()
    }

    /// What cell `i` offers as a stored value: all its candidates.
    #[inline]
    pub fn stored(&self, i: usize) -> &[u64] {
        &self.stored[i * self.words..(i + 1) * self.words]
    }

    /// What cell `i` asks for as a query: all its candidates, or its first.
    #[inline]
    pub fn query(&self, i: usize) -> &[u64] {
        let q = self.query.as_deref().unwrap_or(&self.stored);
        &q[i * self.words..(i + 1) * self.words]
    }

    /// Whether a query mask and a stored mask share a candidate.
    #[inline]
    pub fn overlap(query: &[u64], stored: &[u64]) -> bool {
        query.iter().zip(stored).any(|(q, s)| q & s != 0)
    }

    /// The masks of cells `rows`, in that order.
    pub fn take(&self, rows: &[u32]) -> SetMasks {
        let w = self.words;
        let gather = |v: &[u64]| {
            let mut out = Vec::with_capacity(rows.len() * w);
            for &r in rows {
                out.extend_from_slice(&v[r as usize * w..(r as usize + 1) * w]);
            }
            out
        };
        SetMasks {
            bits: self.bits,
            words: w,
            stored: gather(&self.stored),
            query: self.query.as_deref().map(gather),
        }
    }

    /// The same masks with one more candidate value, set in the cells of `rows` (missing made a
    /// value of its own).
    fn with_extra_value(&self, rows: impl Iterator<Item = usize> + Clone) -> SetMasks {
        let bit = self.bits;
        let words = (bit + 1).div_ceil(64).max(self.words);
        let widen = |v: &[u64]| {
            let mut out = vec![0u64; self.len() * words];
            for i in 0..self.len() {
                out[i * words..i * words + self.words]
                    .copy_from_slice(&v[i * self.words..(i + 1) * self.words]);
            }
            for r in rows.clone() {
                out[r * words + (bit >> 6)] |= 1u64 << (bit & 63);
            }
            out
        };
        SetMasks {
            bits: bit + 1,
            words,
            stored: widen(&self.stored),
            query: self.query.as_deref().map(widen),
        }
    }
}

/// One key column as dense codes: equal values get equal codes, every code is below
/// [`card`](KeyCodes::card), and a missing cell holds [`MISSING`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyCodes {
    /// One code per row ([`MISSING`] at missing cells).
    pub codes: Vec<u32>,
    /// An upper bound on every code + 1 (not always the number of distinct values).
    pub card: u32,
    /// Candidate masks, when the key is matched by candidates ([`SetCoding::Candidates`], or a
    /// set-valued key of [`encode_pair`]).
    pub sets: Option<SetMasks>,
}

impl KeyCodes {
    /// Codes for counting and matching keys of one file. Categorical columns use their level
    /// codes; integers with a range below 2²⁴ are offset from their minimum; other integers,
    /// floats (`-0` = `0`) and text are numbered in sorted order; set-valued cells as `coding`
    /// says.
    pub fn of(col: &Column, coding: SetCoding) -> KeyCodes {
        code_column(col, coding, true)
    }

    /// Codes numbered in the order of the values (no offset coding of integers, so the
    /// cardinality is the number of distinct values for every kind but categorical, whose
    /// codes are its level codes); set-valued cells as `coding` says.
    pub fn dense(col: &Column, coding: SetCoding) -> KeyCodes {
        code_column(col, coding, false)
    }

    /// Codes from derived text values, one per row (`None` = missing), numbered in sorted order.
    pub fn from_texts<S: AsRef<str>>(values: impl IntoIterator<Item = Option<S>>) -> KeyCodes {
        let (a, _) = encode_texts_pair(values, std::iter::empty::<Option<&str>>());
        a
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// Whether row `i` is missing.
    #[inline]
    pub fn is_missing(&self, i: usize) -> bool {
        self.codes[i] == MISSING
    }

    /// Number of distinct codes at observed cells.
    pub fn distinct_observed(&self) -> usize {
        distinct_observed(&self.codes, self.card)
    }

    /// The same key with missing made a value of its own: missing cells get code `card` (and
    /// one more candidate value in the masks), and the cardinality grows by one.
    pub fn missing_as_value(&self) -> KeyCodes {
        let extra = self.card;
        let missing = || {
            self.codes
                .iter()
                .enumerate()
                .filter(|(_, c)| **c == MISSING)
                .map(|(i, _)| i)
        };
        KeyCodes {
            codes: self
                .codes
                .iter()
                .map(|&c| if c == MISSING { extra } else { c })
                .collect(),
            card: self.card + 1,
            sets: self.sets.as_ref().map(|s| s.with_extra_value(missing())),
        }
    }
}

/// Every key of each row in one word ([`Keys::packed_from_parts`]): key `k` in its field of
/// [`PackedRows::packing`] (its code + 1, 0 when missing).
#[derive(Debug, Clone)]
pub struct PackedRows {
    /// One word per row.
    pub words: Vec<u64>,
    /// The keys' fields (keys `0 ..`, cardinalities as the parts gave them).
    pub packing: super::Packing,
    /// Per key, whether some row misses it.
    pub any_missing: Vec<bool>,
    /// Per key, whether some row has it.
    pub any_observed: Vec<bool>,
}

/// The key variables of one file as dense codes (struct of arrays, in key order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    /// Per key, one code per row ([`MISSING`] at missing cells).
    pub codes: Vec<Vec<u32>>,
    /// Per key, an upper bound on its codes + 1.
    pub card: Vec<u32>,
    /// Per key, candidate masks when the key is matched by candidates.
    pub sets: Vec<Option<SetMasks>>,
    /// Number of rows.
    pub n: usize,
}

impl Keys {
    /// Codes the columns `names` of `table` with [`KeyCodes::of`], one key per task. Errors
    /// name the file and the column (an unknown column, or more rows than codes can number).
    pub fn encode(table: &Table, names: &[String], coding: SetCoding) -> Result<Keys, DataError> {
        let columns = names
            .iter()
            .map(|n| table.column(n))
            .collect::<Result<Vec<_>, _>>()?;
        check_rows(table, names.first().map_or("", String::as_str))?;
        let keys: Vec<KeyCodes> = columns
            .par_iter()
            .map(|c| KeyCodes::of(c, coding))
            .collect();
        Ok(Keys::from_keys(keys, table.nrows()))
    }

    /// Keys from coded columns of `n` rows each.
    ///
    /// # Panics
    /// When a key does not have `n` rows (a programming error, not an input error).
    pub fn from_keys(keys: Vec<KeyCodes>, n: usize) -> Keys {
        let mut out = Keys {
            codes: Vec::with_capacity(keys.len()),
            card: Vec::with_capacity(keys.len()),
            sets: Vec::with_capacity(keys.len()),
            n,
        };
        for k in keys {
            assert_eq!(k.codes.len(), n, "every key has one code per row");
            out.codes.push(k.codes);
            out.card.push(k.card);
            out.sets.push(k.sets);
        }
        out
    }

    /// Keys read from `parts` (a Parquet file's row groups, a CSV file's chunks), the parts on
    /// all threads, each into its own rows: the codes the sources give, with the cardinalities
    /// announced and no candidate masks. `None` when a part held values beyond those
    /// cardinalities or did not cover its rows ([`read_part`](super::read_part)); the caller
    /// then reads the file another way. Errors are the first part's, in file order.
    ///
    /// # Panics
    /// When there are `u32::MAX` rows or more (a programming error: callers check the count).
    pub fn from_parts(parts: &dyn super::PartedCodes) -> Result<Option<Keys>, DataError> {
        let rows = parts.part_rows();
        let n: usize = rows.iter().sum();
        assert!(n < u32::MAX as usize, "fewer than u32::MAX records");
        let nkeys = parts.nkeys();
        let mut codes: Vec<Vec<u32>> = (0..nkeys).map(|_| vec![0u32; n]).collect();
        // Each part's rows of every key: disjoint slices, so the parts fill them at once.
        let mut outs: Vec<Vec<&mut [u32]>> = rows.iter().map(|_| Vec::new()).collect();
        for key in &mut codes {
            let mut rest = key.as_mut_slice();
            for (out, &r) in outs.iter_mut().zip(rows) {
                let (part, tail) = std::mem::take(&mut rest).split_at_mut(r);
                out.push(part);
                rest = tail;
            }
        }
        let read: Vec<Result<bool, DataError>> = outs
            .into_par_iter()
            .enumerate()
            .map(|(p, mut out)| {
                super::read_part(parts, p, &mut |offset, sources| {
                    for (source, key) in sources.iter().zip(out.iter_mut()) {
                        source.fill(0, &mut key[offset..offset + source.len()]);
                    }
                })
            })
            .collect();
        for whole in read {
            if !whole? {
                return Ok(None);
            }
        }
        Ok(Some(Keys {
            codes,
            card: parts.cards().to_vec(),
            sets: vec![None; nkeys],
            n,
        }))
    }

    /// Every key of each row packed in one word ([`PackedRows`]), read from `parts` as
    /// [`Keys::from_parts`] reads them: 8 bytes per row instead of 4 per key and row, for
    /// engines that match whole rows. `Ok(None)` when the keys' fields need more than 64 bits
    /// ([`Packing::of_cards`]) or a part contradicted its cardinalities or rows; errors are the
    /// first part's, in file order.
    ///
    /// # Panics
    /// When there are `u32::MAX` rows or more (a programming error: callers check the count).
    pub fn packed_from_parts(
        parts: &dyn super::PartedCodes,
    ) -> Result<Option<PackedRows>, DataError> {
        let Some(packing) = super::Packing::of_cards(parts.cards()) else {
            return Ok(None);
        };
        let rows = parts.part_rows();
        let n: usize = rows.iter().sum();
        assert!(n < u32::MAX as usize, "fewer than u32::MAX records");
        let nkeys = parts.nkeys();
        let mut words: Vec<u64> = Vec::with_capacity(n);
        let spare = &mut words.spare_capacity_mut()[..n];
        let mut outs = Vec::with_capacity(rows.len());
        let mut rest = spare;
        for &r in rows {
            let (part, tail) = std::mem::take(&mut rest).split_at_mut(r);
            outs.push(part);
            rest = tail;
        }
        const BLOCK: usize = 4096;
        // Per part: whether it read whole, and which keys it saw missing and observed.
        let read: Vec<Result<(bool, u64, u64), DataError>> = outs
            .into_par_iter()
            .enumerate()
            .map(|(p, out)| {
                let (mut missing, mut observed) = (0u64, 0u64);
                let mut codes = vec![0u32; BLOCK];
                let mut block = vec![0u64; BLOCK];
                let whole = super::read_part(parts, p, &mut |offset, sources| {
                    let len = sources.first().map_or(0, |s| s.len());
                    for start in (0..len).step_by(BLOCK) {
                        let m = BLOCK.min(len - start);
                        let block = &mut block[..m];
                        block.fill(0);
                        for (k, source) in sources.iter().enumerate() {
                            let codes = &mut codes[..m];
                            source.fill(start, codes);
                            let (shift, _) = packing.fields_of(k);
                            let mut absent = false;
                            let mut present = false;
                            for (w, &c) in block.iter_mut().zip(codes.iter()) {
                                let v = if c == MISSING { 0 } else { c as u64 + 1 };
                                absent |= v == 0;
                                present |= v != 0;
                                *w |= v << shift;
                            }
                            missing |= u64::from(absent) << k;
                            observed |= u64::from(present) << k;
                        }
                        for (o, &w) in out[offset + start..offset + start + m]
                            .iter_mut()
                            .zip(block.iter())
                        {
                            o.write(w);
                        }
                    }
                })?;
                Ok((whole, missing, observed))
            })
            .collect();
        let (mut missing, mut observed) = (0u64, 0u64);
        for part in read {
            let (whole, m, o) = part?;
            if !whole {
                return Ok(None);
            }
            missing |= m;
            observed |= o;
        }
        // SAFETY: every part wrote each of its rows (`read_part` covered them all, or the part
        // was not whole and this returned above), and the parts' slices tile the first n.
        unsafe { words.set_len(n) };
        Ok(Some(PackedRows {
            words,
            packing,
            any_missing: (0..nkeys).map(|k| missing >> k & 1 != 0).collect(),
            any_observed: (0..nkeys).map(|k| observed >> k & 1 != 0).collect(),
        }))
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    /// True when there is no key.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// Bit mask of the observed keys of `row` (bit `k` = key `k` observed; at most 64 keys).
    #[inline]
    pub fn pattern(&self, row: usize) -> u64 {
        let mut p = 0u64;
        for (k, codes) in self.codes.iter().enumerate() {
            if codes[row] != MISSING {
                p |= 1 << k;
            }
        }
        p
    }

    /// Number of distinct codes of key `k` at observed cells.
    pub fn distinct_observed(&self, k: usize) -> usize {
        distinct_observed(&self.codes[k], self.card[k])
    }

    /// The keys that are matched by candidate masks, as a bit mask.
    pub fn set_keys(&self) -> u64 {
        self.sets
            .iter()
            .enumerate()
            .filter(|(_, s)| s.is_some())
            .fold(0, |m, (k, _)| m | 1 << k)
    }

    /// Whether row `row` is observed on every key.
    pub fn complete(&self, row: usize) -> bool {
        self.codes.iter().all(|c| c[row] != MISSING)
    }

    /// The same keys with missing made a value of its own on each key
    /// ([`KeyCodes::missing_as_value`]): every record is then observed on every key.
    pub fn missing_as_value(&self) -> Keys {
        let keys = (0..self.len())
            .map(|k| {
                KeyCodes {
                    codes: self.codes[k].clone(),
                    card: self.card[k],
                    sets: self.sets[k].clone(),
                }
                .missing_as_value()
            })
            .collect();
        Keys::from_keys(keys, self.n)
    }
}

fn distinct_observed(codes: &[u32], card: u32) -> usize {
    let mut seen = vec![false; card as usize];
    let mut n = 0;
    for &c in codes {
        if c != MISSING && !std::mem::replace(&mut seen[c as usize], true) {
            n += 1;
        }
    }
    n
}

fn check_rows(table: &Table, column: &str) -> Result<(), DataError> {
    if table.nrows() >= MISSING as usize {
        return Err(DataError::Column {
            file: table.source().error_file(),
            name: column.to_string(),
            message: format!(
                "{} records; key coding supports at most {}",
                table.nrows(),
                MISSING - 1
            ),
        });
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq)]
struct OrdF64(f64);
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// `-0` as `0`, so that the two compare equal as codes.
#[inline]
fn fold_zero(x: f64) -> f64 {
    if x == 0.0 { 0.0 } else { x }
}

/// Codes in sorted order of `value` (placeholder 0 where `value` is `None`).
fn dense_sorted<T: Ord + Clone>(n: usize, value: impl Fn(usize) -> Option<T>) -> (Vec<u32>, u32) {
    let mut distinct: Vec<T> = (0..n).filter_map(&value).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let codes = (0..n)
        .map(|i| match value(i) {
            Some(v) => distinct.binary_search(&v).map_or(0, |p| p as u32),
            None => 0,
        })
        .collect();
    (codes, distinct.len() as u32)
}

/// Dense codes `0..k` for arbitrary u64 values, in order of first appearance.
fn densify(values: &[u64]) -> (Vec<u32>, u32) {
    let mut map: HashMap<u64, u32, FixedState> =
        HashMap::with_capacity_and_hasher(values.len().min(1 << 20), Default::default());
    let codes = values
        .iter()
        .map(|&v| {
            let next = map.len() as u32;
            *map.entry(v).or_insert(next)
        })
        .collect();
    (codes, map.len() as u32)
}

fn with_missing(mut codes: Vec<u32>, c: &Column) -> Vec<u32> {
    for i in c.missing().ones() {
        codes[i] = MISSING;
    }
    codes
}

/// Integers whose range is below 2²⁴: codes offset from the minimum (no sort needed).
fn offset_codes(c: &Column, v: &[i64]) -> Option<(Vec<u32>, u32)> {
    let (lo, card) = offset_range(c, v)?;
    // Missing cells hold placeholders, possibly out of range: their codes are garbage
    // (wrapping, never a panic) until the caller marks them missing.
    let codes = v.iter().map(|&x| x.wrapping_sub(lo) as u32).collect();
    Some((codes, card))
}

/// The minimum and the span of an integer column whose range is below 2²⁴ ([`KeyCodes::of`]'s
/// offset coding: code = value − minimum, cardinality = the span).
pub(crate) fn offset_range(c: &Column, v: &[i64]) -> Option<(i64, u32)> {
    // Over every cell first (a branch-free loop); the placeholders at missing cells can only
    // widen the range, so look at observed cells alone when that makes it too wide.
    // One pass for both bounds, in independent lanes the compiler can vectorise.
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for chunk in v.chunks(8) {
        for &x in chunk {
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    if hi as i128 - lo as i128 >= 1 << 24 && c.missing_count() > 0 {
        let words = c.missing().words();
        (lo, hi) = (i64::MAX, i64::MIN);
        for (i, &x) in v.iter().enumerate() {
            if words[i >> 6] >> (i & 63) & 1 == 0 {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
    }
    if lo <= hi && (hi as i128 - lo as i128) < (1 << 24) {
        return Some((lo, (hi - lo + 1) as u32));
    }
    None
}

/// [`offset_range`] of an integer column known by its observed bounds (`min > max` when no cell
/// is observed) and whether a cell is missing (holding the placeholder 0): over every cell,
/// unless that makes the range 2²⁴ wide or more; then over the observed cells.
pub fn offset_of_bounds(min: i64, max: i64, any_missing: bool) -> Option<(i64, u32)> {
    let narrow = |lo: i64, hi: i64| lo <= hi && (hi as i128 - lo as i128) < 1 << 24;
    let (lo, hi) = if any_missing && narrow(min.min(0), max.max(0)) {
        (min.min(0), max.max(0))
    } else {
        (min, max)
    };
    narrow(lo, hi).then(|| (lo, (hi - lo + 1) as u32))
}

/// Codes with a placeholder 0 at missing cells, and the cardinality.
fn scalar_codes(c: &Column, offset: bool) -> (Vec<u32>, u32) {
    let n = c.len();
    match c.data() {
        ColumnData::Categorical { codes, levels } => (
            (0..n)
                .map(|i| if c.is_missing(i) { 0 } else { codes[i] })
                .collect(),
            levels.len() as u32,
        ),
        ColumnData::Integer(v) => {
            if offset && let Some(out) = offset_codes(c, v) {
                return out;
            }
            dense_sorted(n, |i| (!c.is_missing(i)).then_some(v[i]))
        }
        ColumnData::Float(v) => {
            dense_sorted(n, |i| (!c.is_missing(i)).then(|| OrdF64(fold_zero(v[i]))))
        }
        ColumnData::String(v) => dense_sorted(n, |i| (!c.is_missing(i)).then(|| v[i].as_str())),
        ColumnData::Set { levels, .. } => (
            (0..n)
                .map(|i| c.set_items(i).first().copied().unwrap_or(0))
                .collect(),
            levels.len() as u32,
        ),
    }
}

/// The whole-set codes of a set-valued column (placeholder 0 at missing cells).
fn whole_set_codes(c: &Column) -> (Vec<u32>, u32) {
    dense_sorted(c.len(), |i| {
        (!c.is_missing(i)).then(|| {
            let mut s = c.set_items(i).to_vec();
            s.sort_unstable();
            s
        })
    })
}

fn code_column(c: &Column, coding: SetCoding, offset: bool) -> KeyCodes {
    if c.kind() != Kind::Set {
        let (codes, card) = scalar_codes(c, offset);
        return KeyCodes {
            codes: with_missing(codes, c),
            card,
            sets: None,
        };
    }
    let n = c.len();
    let (codes, card, sets) = match coding {
        SetCoding::Whole => {
            let (codes, card) = whole_set_codes(c);
            (codes, card, None)
        }
        // First on both sides: the first candidate is a plain value, no masks needed.
        SetCoding::First | SetCoding::Candidates(SetMatch::FirstBoth) => {
            let (codes, card) = scalar_codes(c, offset);
            (codes, card, None)
        }
        SetCoding::Candidates(m) => {
            let (whole, _) = whole_set_codes(c);
            let (first, nlev) = scalar_codes(c, offset);
            let fc = nlev.max(1) as u64;
            let combined: Vec<u64> = whole
                .iter()
                .zip(&first)
                .map(|(&w, &f)| w as u64 * fc + f as u64)
                .collect();
            let (codes, card) = densify(&combined);
            let masks = SetMasks::from_candidates(
                (0..n).map(|i| c.set_items(i)),
                nlev as usize,
                m == SetMatch::First,
            );
            (codes, card, Some(masks))
        }
    };
    KeyCodes {
        codes: with_missing(codes, c),
        card,
        sets,
    }
}

/// How the values of a key shared by two files compare.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domain {
    /// As numbers (`-0` = `0`): integers and floats, and labels that read as numbers.
    Number,
    /// As text: categories, strings, and every recoded key.
    Text,
}

impl Domain {
    /// The domain in which the columns `a` and `b` of two files compare: text when `recoded`
    /// (values are rewritten as text) or when neither column is numeric; numbers when either
    /// is, provided the other's values read as numbers — else `Err` with that other column.
    pub fn shared<'a>(a: &'a Column, b: &'a Column, recoded: bool) -> Result<Domain, &'a Column> {
        if recoded {
            return Ok(Domain::Text);
        }
        if a.kind().is_numeric() || b.kind().is_numeric() {
            let other = if a.kind().is_numeric() { b } else { a };
            return if reads_as_numbers(other) {
                Ok(Domain::Number)
            } else {
                Err(other)
            };
        }
        Ok(Domain::Text)
    }
}

/// One key of two files to be coded with one dictionary.
#[derive(Debug, Clone, Copy)]
pub struct PairSpec<'a> {
    /// The column in the first (intruder's) file.
    pub intruder: &'a Column,
    /// The column in the second (released) file.
    pub released: &'a Column,
    /// How values compare ([`Domain::shared`]).
    pub domain: Domain,
    /// Rewrites of the first file's values, as text (values not listed are kept); a recoded
    /// key compares as text.
    pub recode: Option<&'a HashMap<String, String>>,
}

/// The values of one side of a key: per level of a dictionary-encoded column, or per row.
enum SideValues<V> {
    Levels(Vec<V>),
    Rows(Vec<Option<V>>),
}

/// Number values of a column: per level (labels parsed) or per row (`as_f64`).
fn number_values(c: &Column) -> SideValues<u64> {
    let bits = |x: f64| fold_zero(x).to_bits();
    match c.levels() {
        Some(levels) => SideValues::Levels(
            levels
                .iter()
                .map(|l| bits(l.trim().parse::<f64>().unwrap_or(f64::NAN)))
                .collect(),
        ),
        None => SideValues::Rows((0..c.len()).map(|i| c.as_f64(i).map(bits)).collect()),
    }
}

/// Text values of a column after `recode`: per level, or per row.
fn text_values<'c>(
    c: &'c Column,
    recode: Option<&'c HashMap<String, String>>,
) -> SideValues<Cow<'c, str>> {
    let rewrite = |t: Cow<'c, str>| -> Cow<'c, str> {
        match recode.and_then(|r| r.get(t.as_ref())) {
            Some(s) => Cow::Borrowed(s.as_str()),
            None => t,
        }
    };
    match c.levels() {
        Some(levels) => SideValues::Levels(
            levels
                .iter()
                .map(|l| rewrite(Cow::Borrowed(l.as_str())))
                .collect(),
        ),
        None => SideValues::Rows((0..c.len()).map(|i| c.text(i).map(rewrite)).collect()),
    }
}

/// A dictionary of values numbered in sorted order over both files.
struct Dictionary<V> {
    index: HashMap<V, u32, FixedState>,
    order: Vec<V>,
}

impl<V: std::hash::Hash + Eq + Clone> Dictionary<V> {
    fn new() -> Self {
        Dictionary {
            index: HashMap::default(),
            order: Vec::new(),
        }
    }

    /// A provisional id (first appearance).
    fn intern(&mut self, v: &V) -> u32 {
        if let Some(&c) = self.index.get(v) {
            return c;
        }
        let c = self.order.len() as u32;
        self.index.insert(v.clone(), c);
        self.order.push(v.clone());
        c
    }

    /// Provisional id → final code, numbering the values in the order of `cmp`.
    fn finish(self, cmp: impl Fn(&V, &V) -> std::cmp::Ordering) -> (Vec<u32>, u32) {
        let mut ids: Vec<u32> = (0..self.order.len() as u32).collect();
        ids.sort_unstable_by(|&a, &b| cmp(&self.order[a as usize], &self.order[b as usize]));
        let mut remap = vec![0u32; ids.len()];
        for (code, &id) in ids.iter().enumerate() {
            remap[id as usize] = code as u32;
        }
        (remap, ids.len() as u32)
    }
}

/// Provisional ids of one side: per row, the candidate ids (empty = missing).
fn side_ids<V: std::hash::Hash + Eq + Clone>(
    c: &Column,
    values: &SideValues<V>,
    dict: &mut Dictionary<V>,
) -> (Vec<u32>, Vec<u32>) {
    // Offsets and ids, as a set-valued column stores its items.
    let n = c.len();
    let mut offsets = Vec::with_capacity(n + 1);
    offsets.push(0u32);
    let mut ids = Vec::with_capacity(n);
    match values {
        SideValues::Levels(levels) => {
            let level_ids: Vec<u32> = levels.iter().map(|v| dict.intern(v)).collect();
            for i in 0..n {
                if !c.is_missing(i) {
                    ids.extend(c.set_items(i).iter().map(|&l| level_ids[l as usize]));
                }
                offsets.push(ids.len() as u32);
            }
        }
        SideValues::Rows(rows) => {
            for v in rows {
                if let Some(v) = v {
                    ids.push(dict.intern(v));
                }
                offsets.push(ids.len() as u32);
            }
        }
    }
    (offsets, ids)
}

/// Codes of both sides from provisional candidate ids, remapped to final value codes. Scalar
/// keys: the value code. Set-valued keys (either side): the code of the candidate set (shared
/// numbering of the sorted candidate lists) and candidate masks over the value codes.
fn finish_pair(
    sides: [(Vec<u32>, Vec<u32>); 2],
    remap: &[u32],
    nvalues: u32,
    set_valued: bool,
) -> (KeyCodes, KeyCodes) {
    let [(oa, ia), (ob, ib)] = sides;
    let cells = |o: &[u32], ids: &[u32]| -> Vec<Vec<u32>> {
        (0..o.len() - 1)
            .map(|i| {
                let mut v: Vec<u32> = ids[o[i] as usize..o[i + 1] as usize]
                    .iter()
                    .map(|&id| remap[id as usize])
                    .collect();
                v.sort_unstable();
                v.dedup();
                v
            })
            .collect()
    };
    if !set_valued {
        let scalar = |o: &[u32], ids: &[u32]| -> Vec<u32> {
            (0..o.len() - 1)
                .map(|i| {
                    if o[i] == o[i + 1] {
                        MISSING
                    } else {
                        remap[ids[o[i] as usize] as usize]
                    }
                })
                .collect()
        };
        return (
            KeyCodes {
                codes: scalar(&oa, &ia),
                card: nvalues,
                sets: None,
            },
            KeyCodes {
                codes: scalar(&ob, &ib),
                card: nvalues,
                sets: None,
            },
        );
    }
    let (ca, cb) = (cells(&oa, &ia), cells(&ob, &ib));
    let mut distinct: Vec<&Vec<u32>> = ca.iter().chain(&cb).filter(|v| !v.is_empty()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let code = |cell: &Vec<u32>| -> u32 {
        if cell.is_empty() {
            MISSING
        } else {
            distinct.binary_search(&cell).map_or(MISSING, |p| p as u32)
        }
    };
    let card = distinct.len() as u32;
    let side = |cs: &[Vec<u32>]| KeyCodes {
        codes: cs.iter().map(code).collect(),
        card,
        sets: Some(SetMasks::from_candidates(
            cs.iter().map(Vec::as_slice),
            nvalues as usize,
            false,
        )),
    };
    (side(&ca), side(&cb))
}

/// Codes one key of two files with one dictionary: a value gets the same code in both files,
/// whatever each file's storage kind or level order, after the first file's `recode`. Values
/// are numbered in sorted order (numbers numerically, text by bytes). When either column is
/// set-valued both sides get candidate masks (a scalar cell is a set of one), matched by
/// overlap, and codes that number the candidate sets.
pub fn encode_pair(spec: &PairSpec<'_>) -> (KeyCodes, KeyCodes) {
    let (a, b) = (spec.intruder, spec.released);
    let set_valued = a.kind() == Kind::Set || b.kind() == Kind::Set;
    if let (Domain::Number, false, ColumnData::Integer(va), ColumnData::Integer(vb)) =
        (spec.domain, set_valued, a.data(), b.data())
    {
        return integer_pair(a, va, b, vb);
    }
    match spec.domain {
        Domain::Number => {
            let mut dict = Dictionary::<u64>::new();
            let sa = side_ids(a, &number_values(a), &mut dict);
            let sb = side_ids(b, &number_values(b), &mut dict);
            let (remap, k) = dict.finish(|x, y| f64::from_bits(*x).total_cmp(&f64::from_bits(*y)));
            finish_pair([sa, sb], &remap, k, set_valued)
        }
        Domain::Text => {
            let mut dict = Dictionary::<Cow<'_, str>>::new();
            let sa = side_ids(a, &text_values(a, spec.recode), &mut dict);
            let sb = side_ids(b, &text_values(b, None), &mut dict);
            let (remap, k) = dict.finish(|x, y| x.cmp(y));
            finish_pair([sa, sb], &remap, k, set_valued)
        }
    }
}

/// Two integer columns: offset codes over both when the range is small, else sorted values.
fn integer_pair(a: &Column, va: &[i64], b: &Column, vb: &[i64]) -> (KeyCodes, KeyCodes) {
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for (c, v) in [(a, va), (b, vb)] {
        for (i, &x) in v.iter().enumerate() {
            if !c.is_missing(i) {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
    }
    let code_side = |c: &Column, v: &[i64], f: &dyn Fn(i64) -> u32| -> Vec<u32> {
        v.iter()
            .enumerate()
            .map(|(i, &x)| if c.is_missing(i) { MISSING } else { f(x) })
            .collect()
    };
    let (codes_a, codes_b, card) = if lo > hi {
        (vec![MISSING; va.len()], vec![MISSING; vb.len()], 0)
    } else if (hi as i128 - lo as i128) < (1 << 24) {
        let f = |x: i64| (x - lo) as u32;
        (
            code_side(a, va, &f),
            code_side(b, vb, &f),
            (hi - lo + 1) as u32,
        )
    } else {
        let mut distinct: Vec<i64> = Vec::new();
        for (c, v) in [(a, va), (b, vb)] {
            distinct.extend(
                v.iter()
                    .enumerate()
                    .filter(|(i, _)| !c.is_missing(*i))
                    .map(|(_, &x)| x),
            );
        }
        distinct.sort_unstable();
        distinct.dedup();
        let f = |x: i64| distinct.binary_search(&x).map_or(MISSING, |p| p as u32);
        (
            code_side(a, va, &f),
            code_side(b, vb, &f),
            distinct.len() as u32,
        )
    };
    (
        KeyCodes {
            codes: codes_a,
            card,
            sets: None,
        },
        KeyCodes {
            codes: codes_b,
            card,
            sets: None,
        },
    )
}

/// Codes every key of two files with [`encode_pair`], one key per task: the first file's
/// [`Keys`] and the second's, code for code comparable.
///
/// # Panics
/// When the columns of one side differ in length (they come from one table each).
pub fn encode_pairs(specs: &[PairSpec<'_>]) -> (Keys, Keys) {
    let coded: Vec<(KeyCodes, KeyCodes)> = specs.par_iter().map(encode_pair).collect();
    let na = specs.first().map_or(0, |s| s.intruder.len());
    let nb = specs.first().map_or(0, |s| s.released.len());
    let (a, b): (Vec<KeyCodes>, Vec<KeyCodes>) = coded.into_iter().unzip();
    (Keys::from_keys(a, na), Keys::from_keys(b, nb))
}

/// Codes derived text values of two files with one dictionary (`None` = missing), numbered in
/// sorted order: e.g. the first letter of a name, or a year cut from a date, as a blocking key.
pub fn encode_texts_pair<A: AsRef<str>, B: AsRef<str>>(
    a: impl IntoIterator<Item = Option<A>>,
    b: impl IntoIterator<Item = Option<B>>,
) -> (KeyCodes, KeyCodes) {
    let mut dict = Dictionary::<String>::new();
    let mut ids = |values: &mut dyn Iterator<Item = Option<String>>| -> Vec<u32> {
        values
            .map(|v| v.map_or(MISSING, |s| dict.intern(&s)))
            .collect()
    };
    let ia = ids(&mut a.into_iter().map(|v| v.map(|s| s.as_ref().to_string())));
    let ib = ids(&mut b.into_iter().map(|v| v.map(|s| s.as_ref().to_string())));
    let (remap, card) = dict.finish(|x, y| x.cmp(y));
    let side = |ids: Vec<u32>| KeyCodes {
        codes: ids
            .into_iter()
            .map(|id| {
                if id == MISSING {
                    MISSING
                } else {
                    remap[id as usize]
                }
            })
            .collect(),
        card,
        sets: None,
    };
    (side(ia), side(ib))
}

/// Ids of the key tuples of one file, in order of first appearance, and their number. With
/// `listwise` a row missing any key gets [`MISSING`]; otherwise missing is a value of its own.
///
/// # Panics
/// When the code arrays differ in length.
pub fn tuple_ids(keys: &[&[u32]], listwise: bool) -> (Vec<u32>, u32) {
    let (a, _, k) = tuple_ids_pair(keys, &[], listwise);
    (a, k)
}

/// Ids of the key tuples of two files coded with shared dictionaries ([`encode_pair`]): equal
/// tuples get equal ids in both files, numbered in order of first appearance (the first file,
/// then the second). With `listwise` a row missing any key gets [`MISSING`]; otherwise missing
/// is a value of its own.
///
/// # Panics
/// When the code arrays of one file differ in length, or the files have different numbers of
/// keys (a file with no key array at all stands for a file with no rows).
pub fn tuple_ids_pair(a: &[&[u32]], b: &[&[u32]], listwise: bool) -> (Vec<u32>, Vec<u32>, u32) {
    assert!(
        b.is_empty() || a.len() == b.len(),
        "both files have the same keys"
    );
    let nk = a.len().max(b.len());
    if nk <= 2 {
        // Two codes fit one u64: hash that instead of a slice.
        let mut map: HashMap<u64, u32, FixedState> = HashMap::default();
        let mut side = |keys: &[&[u32]]| -> Vec<u32> {
            let n = keys.first().map_or(0, |k| k.len());
            assert!(keys.iter().all(|k| k.len() == n), "one code per row");
            (0..n)
                .map(|i| {
                    let mut v = 0u64;
                    for k in keys {
                        if listwise && k[i] == MISSING {
                            return MISSING;
                        }
                        v = v << 32 | k[i] as u64;
                    }
                    let next = map.len() as u32;
                    *map.entry(v).or_insert(next)
                })
                .collect()
        };
        let ia = side(a);
        let ib = side(b);
        let k = map.len() as u32;
        return (ia, ib, k);
    }
    let mut map: HashMap<Box<[u32]>, u32, FixedState> = HashMap::default();
    let mut side = |keys: &[&[u32]]| -> Vec<u32> {
        let n = keys.first().map_or(0, |k| k.len());
        assert!(keys.iter().all(|k| k.len() == n), "one code per row");
        let mut buf = Vec::with_capacity(keys.len());
        (0..n)
            .map(|i| {
                buf.clear();
                buf.extend(keys.iter().map(|k| k[i]));
                if listwise && buf.contains(&MISSING) {
                    return MISSING;
                }
                if let Some(&id) = map.get(buf.as_slice()) {
                    return id;
                }
                let id = map.len() as u32;
                map.insert(buf.as_slice().into(), id);
                id
            })
            .collect()
    };
    let ia = side(a);
    let ib = side(b);
    let k = map.len() as u32;
    (ia, ib, k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::Role;

    #[test]
    fn key_codes_group_equal_values_and_mark_missing() {
        let c = Column::integer("a", Role::Key, &[Some(5), None, Some(-1), Some(5)]);
        let d = KeyCodes::dense(&c, SetCoding::Whole);
        assert_eq!(d.card, 2);
        assert_eq!(d.codes, vec![1, MISSING, 0, 1]);
        let o = KeyCodes::of(&c, SetCoding::Whole);
        assert_eq!((o.codes.clone(), o.card), (vec![6, MISSING, 0, 6], 7));
        assert_eq!(o.distinct_observed(), 2);
        let f = Column::float(
            "f",
            Role::Key,
            &[Some(0.0), Some(-0.0), Some(2.5), Some(f64::NAN)],
        );
        let d = KeyCodes::of(&f, SetCoding::Whole);
        assert_eq!(d.card, 2);
        assert_eq!(d.codes, vec![0, 0, 1, MISSING]);
        let wide = Column::integer("w", Role::Key, &[Some(0), Some(1 << 40), None]);
        let d = KeyCodes::of(&wide, SetCoding::Whole);
        assert_eq!((d.codes, d.card), (vec![0, 1, MISSING], 2));
    }

    #[test]
    fn set_cells_code_by_first_whole_set_or_candidates() {
        let c = Column::set(
            "m",
            Role::Key,
            &[vec!["3", "4"], vec!["3"], vec![], vec!["4", "3"]],
            None,
        )
        .unwrap();
        let first = KeyCodes::of(&c, SetCoding::First);
        assert_eq!(first.codes, vec![0, 0, MISSING, 1]);
        let whole = KeyCodes::of(&c, SetCoding::Whole);
        assert_ne!(whole.codes[0], whole.codes[1]);
        assert_eq!(whole.codes[0], whole.codes[3]);
        assert_eq!(whole.codes[2], MISSING);
        let cand = KeyCodes::of(&c, SetCoding::Candidates(SetMatch::First));
        // {3,4} and {4,3} offer the same candidates but ask for different first ones.
        assert_ne!(cand.codes[0], cand.codes[3]);
        let m = cand.sets.as_ref().unwrap();
        assert_eq!((m.stored(0), m.query(0)), (&[0b11u64][..], &[0b01u64][..]));
        assert_eq!((m.stored(3), m.query(3)), (&[0b11u64][..], &[0b10u64][..]));
        assert_eq!(m.stored(2), &[0u64]);
        let over = KeyCodes::of(&c, SetCoding::Candidates(SetMatch::Overlap));
        assert_eq!(over.sets.as_ref().unwrap().query(3), &[0b11u64]);
    }

    #[test]
    fn masks_span_several_words_beyond_64_candidates() {
        let levels: Vec<String> = (0..130).map(|i| format!("v{i}")).collect();
        let c = Column::set(
            "s",
            Role::Key,
            &[vec!["v0", "v129"], vec!["v129"], vec!["v64"]],
            Some(levels),
        )
        .unwrap();
        let k = KeyCodes::of(&c, SetCoding::Candidates(SetMatch::Overlap));
        let m = k.sets.unwrap();
        assert_eq!(m.words(), 3);
        assert!(SetMasks::overlap(m.query(0), m.stored(1)));
        assert!(!SetMasks::overlap(m.query(0), m.stored(2)));
    }

    #[test]
    fn two_files_share_codes_whatever_their_level_order_and_kind() {
        let a = Column::categorical(
            "g",
            Role::Key,
            &[Some("M"), Some("F"), None],
            Some(vec!["M".into(), "F".into()]),
        )
        .unwrap();
        let b = Column::categorical(
            "g",
            Role::Key,
            &[Some("F"), Some("X"), Some("M")],
            Some(vec!["X".into(), "F".into(), "M".into()]),
        )
        .unwrap();
        let spec = PairSpec {
            intruder: &a,
            released: &b,
            domain: Domain::shared(&a, &b, false).unwrap(),
            recode: None,
        };
        let (x, y) = encode_pair(&spec);
        assert_eq!(x.card, 3);
        assert_eq!(x.codes, vec![1, 0, MISSING]); // F < M < X
        assert_eq!(y.codes, vec![0, 2, 1]);
        // Integer against numeric labels, and a recode that makes the key text.
        let i = Column::integer("y", Role::Key, &[Some(1970), Some(-0), None]);
        let l = Column::categorical("y", Role::Key, &[Some("0"), Some("1970.0")], None).unwrap();
        let d = Domain::shared(&i, &l, false).unwrap();
        assert_eq!(d, Domain::Number);
        let (x, y) = encode_pair(&PairSpec {
            intruder: &i,
            released: &l,
            domain: d,
            recode: None,
        });
        assert_eq!((x.codes, y.codes), (vec![1, 0, MISSING], vec![0, 1]));
        let recode: HashMap<String, String> = [("1970".to_string(), "old".to_string())].into();
        let t = Column::categorical("y", Role::Key, &[Some("old"), Some("0")], None).unwrap();
        let (x, y) = encode_pair(&PairSpec {
            intruder: &i,
            released: &t,
            domain: Domain::shared(&i, &t, true).unwrap(),
            recode: Some(&recode),
        });
        assert_eq!(x.codes[0], y.codes[0]);
        assert_eq!(x.codes[1], y.codes[1]);
        let s = Column::string("s", Role::Key, &[Some("abc")]);
        assert_eq!(Domain::shared(&i, &s, false).unwrap_err().name(), "s");
    }

    #[test]
    fn a_set_valued_side_gives_masks_to_both() {
        let a = Column::set("m", Role::Key, &[vec!["3", "4"], vec![]], None).unwrap();
        let b = Column::integer("m", Role::Key, &[Some(4), Some(5), None]);
        let d = Domain::shared(&a, &b, false).unwrap();
        let (x, y) = encode_pair(&PairSpec {
            intruder: &a,
            released: &b,
            domain: d,
            recode: None,
        });
        let (mx, my) = (x.sets.unwrap(), y.sets.unwrap());
        assert!(SetMasks::overlap(mx.query(0), my.stored(0)));
        assert!(!SetMasks::overlap(mx.query(0), my.stored(1)));
        assert_eq!((x.codes[1], y.codes[2]), (MISSING, MISSING));
        assert_ne!(x.codes[0], y.codes[0]);
    }

    #[test]
    fn tuple_ids_in_first_appearance_with_missing_as_value_or_dropped() {
        let a = [0u32, 1, 0, MISSING];
        let b = [2u32, 2, 2, 2];
        let c3 = [7u32, 7, 7, 7];
        assert_eq!(tuple_ids(&[&a, &b, &c3], false), (vec![0, 1, 0, 2], 3));
        assert_eq!(tuple_ids(&[&a, &b, &c3], true), (vec![0, 1, 0, MISSING], 2));
        let (ids, k) = tuple_ids(&[&a, &b], false);
        assert_eq!((ids, k), (vec![0, 1, 0, 2], 3));
        let (ids, k) = tuple_ids(&[&a, &b], true);
        assert_eq!((ids, k), (vec![0, 1, 0, MISSING], 2));
        let c = [1u32];
        let d = [2u32];
        let (x, y, k) = tuple_ids_pair(&[&a, &b], &[&c, &d], true);
        assert_eq!((x[1], y[0], k), (1, 1, 2));
        let (x, y) = encode_texts_pair([Some("b"), None], [Some("a"), Some("b")]);
        assert_eq!(
            (x.codes, y.codes, x.card),
            (vec![1, MISSING], vec![0, 1], 2)
        );
    }

    #[test]
    fn missing_as_value_adds_one_code_and_one_candidate() {
        let c = Column::set("m", Role::Key, &[vec!["a"], vec![]], None).unwrap();
        let k = KeyCodes::of(&c, SetCoding::Candidates(SetMatch::Overlap)).missing_as_value();
        assert_eq!(k.codes[1], k.card - 1);
        let m = k.sets.unwrap();
        assert!(SetMasks::overlap(m.query(1), m.stored(1)));
        assert!(!SetMasks::overlap(m.query(0), m.stored(1)));
    }

    /// Parts served as listed: per part, `Ok(pieces)` of (offset, codes of each key), or an
    /// error, or `Err(None)` for values beyond the cardinalities.
    struct Listed {
        rows: Vec<usize>,
        cards: Vec<u32>,
        parts: Vec<Result<Vec<(usize, Vec<Vec<u32>>)>, Option<String>>>,
    }

    impl super::super::PartedCodes for Listed {
        fn part_rows(&self) -> &[usize] {
            &self.rows
        }
        fn cards(&self) -> &[u32] {
            &self.cards
        }
        fn for_each_piece(
            &self,
            part: usize,
            piece: &mut dyn FnMut(usize, &[&dyn super::super::CodeSource]),
        ) -> Result<bool, DataError> {
            match &self.parts[part] {
                Err(None) => Ok(false),
                Err(Some(message)) => Err(DataError::Input {
                    location: crate::error::Location {
                        file: "listed".into(),
                        line: None,
                        column: None,
                    },
                    message: message.clone(),
                }),
                Ok(pieces) => {
                    for (offset, keys) in pieces {
                        let sources: Vec<KeyCodes> = keys
                            .iter()
                            .zip(&self.cards)
                            .map(|(codes, &card)| KeyCodes {
                                codes: codes.clone(),
                                card,
                                sets: None,
                            })
                            .collect();
                        let refs: Vec<&dyn super::super::CodeSource> = sources
                            .iter()
                            .map(|s| s as &dyn super::super::CodeSource)
                            .collect();
                        piece(*offset, &refs);
                    }
                    Ok(true)
                }
            }
        }
    }

    #[test]
    fn keys_from_parts_are_the_parts_codes_in_order_or_none() {
        let m = MISSING;
        let listed = |parts| Listed {
            rows: vec![3, 0, 2],
            cards: vec![4, 2],
            parts,
        };
        let whole = || {
            vec![
                Ok(vec![
                    (0, vec![vec![3, m], vec![0, 1]]),
                    (2, vec![vec![0], vec![m]]),
                ]),
                Ok(vec![]),
                Ok(vec![(0, vec![vec![1, 2], vec![1, 1]])]),
            ]
        };
        let keys = Keys::from_parts(&listed(whole())).unwrap().unwrap();
        assert_eq!(keys.codes, vec![vec![3, m, 0, 1, 2], vec![0, 1, m, 1, 1]]);
        assert_eq!((keys.card, keys.n), (vec![4, 2], 5));
        assert!(keys.sets.iter().all(Option::is_none));
        // Values beyond the cardinalities, or pieces that do not cover their part: none.
        for (p, part) in [
            (2, Err(None)),
            (0, Ok(vec![(0, vec![vec![3, m], vec![0, 1]])])),
            (2, Ok(vec![(1, vec![vec![1, 2], vec![1, 1]])])),
            (2, Ok(vec![(0, vec![vec![1, 2], vec![1]])])),
            (2, Ok(vec![(0, vec![vec![1, 2]])])),
        ] {
            let mut parts = whole();
            parts[p] = part;
            assert!(Keys::from_parts(&listed(parts)).unwrap().is_none());
        }
        // The first part's error, in file order, whichever thread read it first.
        let mut parts = whole();
        parts[2] = Err(Some("late".into()));
        parts[0] = Err(Some("early".into()));
        let err = Keys::from_parts(&listed(parts)).unwrap_err().to_string();
        assert!(err.ends_with("early"), "{err}");
    }
}
