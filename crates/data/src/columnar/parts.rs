//! A Parquet file's integer and text keys read one row group at a time ([`PartedCodes`]), for
//! engines that only count (class sizes): no table is made, only the key columns are decoded,
//! and each row group's arrays are freed as soon as its codes are combined, so memory stays at
//! the engine's own (8 bytes per record) whatever the width of the file.
//!
//! This is a shortcut, never a second reader: [`ColumnarFile::keys`] takes it only where the
//! table reader would give each key column as integers with nothing but nulls missing (an
//! integer Arrow type of at most 64 bits with a sign or 32 without, no kind declared other than
//! integer), and where the file's statistics give every key's exact minimum and maximum and its
//! number of nulls: they give each key's codes (value − minimum) and cardinality as
//! [`crate::keys::ColumnCodes`] gives an integer column's, so the counts and the encoding
//! reported are the table path's. Every value is checked against those bounds as it is read; a
//! file whose statistics are wrong makes [`PartedCodes::for_each_piece`] say so, and the caller
//! reads the file whole.
//!
//! Text keys (Arrow strings or dictionary-encoded strings) are taken when every row group
//! stores the column dictionary-encoded, with a dictionary page, and its number of nulls: the
//! dictionary pages alone give every distinct text of the file (first seen, first numbered),
//! and the table reader makes those texts into a column of their own (the same plan, so the
//! same missing tokens, declared categories and inferred kind) whose codes
//! ([`crate::keys::ColumnCodes`]) are each text's code, and whose cardinality is the key's.
//! The row groups are then decoded as dictionary indices and each row group's dictionary is
//! mapped to those codes once. Not taken when more than 65,536 texts are distinct (the reader
//! then infers the kind from the order of the cells, not only from the texts), nor for
//! set-valued keys; a text the dictionary pages did not give (a page written plainly after its
//! dictionary filled) makes the caller read the file whole.

use std::path::Path;

use crate::keys::PartedCodes;
use crate::params::ColumnSet;
use crate::read::ReadOptions;

#[cfg(feature = "parquet")]
pub use imp::{ColumnarFile, ParquetKeys};

/// A Parquet file opened for its schema (never without the `parquet` feature).
#[cfg(not(feature = "parquet"))]
#[derive(Debug)]
pub enum ColumnarFile {}

/// The integer keys of a Parquet file by row groups (never without the `parquet` feature).
#[cfg(not(feature = "parquet"))]
#[derive(Debug)]
pub struct ParquetKeys<'a>(std::convert::Infallible, std::marker::PhantomData<&'a ()>);

#[cfg(not(feature = "parquet"))]
impl ColumnarFile {
    /// `None`: Parquet support is not compiled in (the table reader says so).
    pub fn open(_path: &Path, _options: &ReadOptions) -> Option<ColumnarFile> {
        None
    }
    /// The columns (uninhabited without the feature).
    pub fn columns(&self) -> ColumnSet {
        match *self {}
    }
    /// The keys (uninhabited without the feature).
    pub fn keys(&self, _names: &[String]) -> Option<ParquetKeys<'_>> {
        match *self {}
    }
}

#[cfg(not(feature = "parquet"))]
impl PartedCodes for ParquetKeys<'_> {
    fn part_rows(&self) -> &[usize] {
        match self.0 {}
    }
    fn cards(&self) -> &[u32] {
        match self.0 {}
    }
    fn for_each_piece(
        &self,
        _part: usize,
        _piece: &mut dyn FnMut(usize, &[&dyn crate::keys::CodeSource]),
    ) -> Result<bool, crate::DataError> {
        match self.0 {}
    }
}

#[cfg(feature = "parquet")]
mod imp {
    use std::path::PathBuf;
    use std::sync::OnceLock;

    use arrow_array::cast::AsArray;
    use arrow_array::types::{
        Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
    };
    use std::collections::HashMap;
    use std::sync::Arc;

    use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, RecordBatch, StringArray};
    use arrow_buffer::{ArrowNativeType, NullBuffer};
    use arrow_schema::{DataType, Field, Schema};
    use parquet::arrow::ProjectionMask;
    use parquet::arrow::arrow_reader::{
        ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
    };
    use parquet::basic::Encoding;
    use parquet::column::page::{Page, PageReader};
    use parquet::file::serialized_reader::SerializedPageReader;
    use parquet::file::statistics::Statistics;

    use super::*;
    use crate::columnar::imp::{for_null_rows, for_words};
    use crate::keys::offset_of_bounds;
    use crate::keys::{CodeSource, ColumnCodes, MISSING, SetCoding};
    use crate::read::NUMERIC_SWITCH;
    use crate::read::chunked::{ColPlan, Plan};
    use crate::read::onepass;
    use crate::{Column, Kind, Role};

    /// Rows decoded at a time within a row group: a batch of every key column (8,192 rows × 8
    /// bytes × 10 keys = 640 KiB) stays in a core's cache while its codes are combined, and
    /// fewer pages go back to the system and fault in again between batches (10,000,000 × 10
    /// keys: minor faults 38,000 → 24,500 and 8% less time than with 65,536 rows; BENCHMARKS.md).
    const BATCH: usize = 1 << 13;

    /// A Parquet file opened for its schema: the column plans the table reader would follow,
    /// nothing decoded.
    pub struct ColumnarFile {
        path: PathBuf,
        bytes: bytes::Bytes,
        meta: ArrowReaderMetadata,
        plans: Vec<ColPlan>,
        cfg: onepass::Config,
    }

    impl std::fmt::Debug for ColumnarFile {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("ColumnarFile")
                .field("path", &self.path)
                .field("columns", &self.plans.len())
                .finish_non_exhaustive()
        }
    }

    impl ColumnarFile {
        /// Opens `path` when it is a readable Parquet file (told by its first bytes) whose
        /// columns are flat and named as the table reader requires; `None` otherwise (not
        /// Parquet, unreadable, a schema error): the table reader then gives the error, if any.
        pub fn open(path: &Path, options: &ReadOptions) -> Option<ColumnarFile> {
            let file = std::fs::File::open(path).ok()?;
            // SAFETY: read only, as the table reader maps it (see `columnar::imp::read`).
            let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
            if !map.starts_with(b"PAR1") {
                return None;
            }
            let bytes = bytes::Bytes::from_owner(map);
            let meta = ArrowReaderMetadata::load(&bytes, ArrowReaderOptions::new()).ok()?;
            let fields = meta.schema().fields();
            // Flat files only: a root column is then its own leaf (statistics by position).
            if meta.parquet_schema().num_columns() != fields.len() {
                return None;
            }
            let names: Vec<String> = fields.iter().map(|f| f.name().clone()).collect();
            let mut seen = std::collections::HashSet::new();
            if names
                .iter()
                .any(|n| n.trim().is_empty() || !seen.insert(n.as_str()))
            {
                return None;
            }
            let mut options = options.clone();
            if options.schema.is_none()
                && let Some(text) = meta
                    .schema()
                    .metadata()
                    .get(crate::columnar::imp::SCHEMA_KEY)
            {
                options.schema = Some(crate::Schema::from_toml(text, path).ok()?);
            }
            let cfg = onepass::Config::new(&options);
            let specs = onepass::column_specs(&names, path, &options).ok()?;
            let plans = names
                .iter()
                .zip(specs)
                .enumerate()
                .map(|(j, (name, spec))| {
                    let plan = ColPlan::new(name, j + 1, spec, &cfg.file_missing);
                    crate::columnar::imp::categories_stay(plan, fields[j].data_type(), &cfg)
                })
                .collect();
            Some(ColumnarFile {
                path: path.to_path_buf(),
                bytes,
                meta,
                plans,
                cfg,
            })
        }

        /// Column `j` read whole and made as the table reader makes it; `None` when it cannot
        /// be read or made (the table reader then gives the error).
        fn read_column(&self, j: usize) -> Option<Column> {
            let mask = ProjectionMask::roots(self.meta.parquet_schema(), [j]);
            let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(
                self.bytes.clone(),
                self.meta.clone(),
            )
            .with_projection(mask)
            .with_batch_size(1 << 16)
            .build()
            .ok()?;
            let arrays: Vec<ArrayRef> = reader
                .map(|b| b.map(|b| b.column(0).clone()))
                .collect::<Result<_, _>>()
                .ok()?;
            let nrows = arrays.iter().map(|a| a.len()).sum();
            let refs: Vec<&ArrayRef> = arrays.iter().collect();
            crate::columnar::imp::column(&self.path, &self.plans[j], &refs, nrows, &self.cfg).ok()
        }

        /// The columns with their roles, as the table reader gives them, for configuring a
        /// method before anything is read; a kind the Arrow type does not settle (text is
        /// categorical or string only once read) shows as categorical.
        pub fn columns(&self) -> ColumnSet {
            let fields = self.meta.schema().fields();
            let mut columns: Vec<(String, Kind, Role)> = Vec::new();
            let mut truth = Vec::new();
            for (plan, f) in self.plans.iter().zip(fields.iter()) {
                let t = f.data_type();
                let int = t.is_integer();
                let float = t.is_floating();
                let kind = match &plan.plan {
                    Plan::Infer if int => Kind::Integer,
                    Plan::Infer if float => Kind::Float,
                    Plan::Infer | Plan::Cat(_) => Kind::Categorical,
                    Plan::Int => Kind::Integer,
                    Plan::Float => Kind::Float,
                    Plan::Str => Kind::String,
                    Plan::Set(..) => Kind::Set,
                };
                let entry = (plan.name.clone(), kind, plan.role);
                if plan.role == Role::Truth {
                    truth.push(entry);
                } else {
                    columns.push(entry);
                }
            }
            columns.extend(truth);
            ColumnSet {
                file: self.path.display().to_string(),
                columns,
                first_not_number: Vec::new(),
                levels: Vec::new(),
            }
        }

        /// The columns `names` by row groups, when every one is an integer key or a text key
        /// as the module docs say (for integers: an integer Arrow type other than unsigned
        /// 64-bit, no other kind declared, every row group's statistics giving its number of
        /// nulls and, if it has a value, its exact minimum and maximum, codes below 2²⁴ wide);
        /// never the weight nor a truth column; `None` otherwise.
        pub fn keys(&self, names: &[String]) -> Option<ParquetKeys<'_>> {
            let fields = self.meta.schema().fields();
            let md = self.meta.metadata();
            let mut columns = Vec::with_capacity(names.len());
            let mut kinds = Vec::with_capacity(names.len());
            let mut cards = Vec::with_capacity(names.len());
            for name in names {
                let j = self.plans.iter().position(|p| &p.name == name)?;
                let plan = &self.plans[j];
                if plan.weight || plan.role == Role::Truth {
                    return None;
                }
                let (kind, card) = if is_text(fields[j].data_type()) {
                    if matches!(plan.plan, Plan::Set(..)) {
                        return None;
                    }
                    self.text_key(j)?
                } else {
                    self.int_key(j)?
                };
                columns.push(j);
                kinds.push(kind);
                cards.push(card);
            }
            let rows = md
                .row_groups()
                .iter()
                .map(|g| g.num_rows() as usize)
                .collect();
            let mut projected = columns.clone();
            projected.sort_unstable();
            projected.dedup();
            // Text keys decoded as dictionary indices, whatever Arrow type the file declares.
            let meta = if kinds.iter().any(|k| matches!(k, KeyKind::Text(_))) {
                let schema = self.meta.schema();
                let fields: Vec<Field> = schema
                    .fields()
                    .iter()
                    .enumerate()
                    .map(|(j, f)| match f.data_type() {
                        t @ (DataType::Utf8 | DataType::LargeUtf8) if columns.contains(&j) => {
                            f.as_ref().clone().with_data_type(DataType::Dictionary(
                                Box::new(DataType::Int32),
                                Box::new(t.clone()),
                            ))
                        }
                        _ => f.as_ref().clone(),
                    })
                    .collect();
                let schema = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
                ArrowReaderMetadata::try_new(
                    md.clone(),
                    ArrowReaderOptions::new().with_schema(schema),
                )
                .ok()?
            } else {
                self.meta.clone()
            };
            Some(ParquetKeys {
                file: self,
                meta,
                made: (0..self.plans.len()).map(|_| OnceLock::new()).collect(),
                at: columns
                    .iter()
                    .map(|c| projected.binary_search(c).expect("projected"))
                    .collect(),
                projected,
                kinds,
                cards,
                rows,
            })
        }

        /// Column `j` as an integer key, from the row groups' statistics.
        fn int_key(&self, j: usize) -> Option<(KeyKind, u32)> {
            let plan = &self.plans[j];
            let t = self.meta.schema().fields()[j].data_type().clone();
            // Integers of at most 64 bits with a sign, 32 without (statistics in their own
            // order, stored in the physical type's bits).
            let unsigned = matches!(t, DataType::UInt8 | DataType::UInt16 | DataType::UInt32);
            let signed = matches!(
                t,
                DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
            );
            if !(signed || unsigned) || !matches!(plan.plan, Plan::Infer | Plan::Int) {
                return None;
            }
            let (mut min, mut max) = (i64::MAX, i64::MIN);
            let mut nulls = 0u64;
            for g in self.meta.metadata().row_groups() {
                if g.num_rows() == 0 {
                    continue;
                }
                let stats = g.column(j).statistics()?;
                let group_nulls = stats.null_count_opt()?;
                nulls += group_nulls;
                if group_nulls == g.num_rows() as u64 {
                    continue;
                }
                // Bounds that are values of the column, as the codes need them.
                if !stats.min_is_exact() || !stats.max_is_exact() {
                    return None;
                }
                let (a, b) = match stats {
                    Statistics::Int32(s) if unsigned => {
                        (*s.min_opt()? as u32 as i64, *s.max_opt()? as u32 as i64)
                    }
                    Statistics::Int32(s) => (*s.min_opt()? as i64, *s.max_opt()? as i64),
                    Statistics::Int64(s) => (*s.min_opt()?, *s.max_opt()?),
                    _ => return None,
                };
                min = min.min(a);
                max = max.max(b);
            }
            if min > max {
                // No observed value: the table reader infers such a column's kind.
                return None;
            }
            // The range `ColumnCodes` takes; a key 2²⁴ wide or more is coded by its distinct
            // values, which only reading tells.
            let (lo, card) = offset_of_bounds(min, max, nulls > 0)?;
            Some((
                KeyKind::Int {
                    lo,
                    hi: lo + i64::from(card) - 1,
                },
                card,
            ))
        }

        /// Column `j` as a text key, from its dictionary pages (see the module docs).
        fn text_key(&self, j: usize) -> Option<(KeyKind, u32)> {
            let md = self.meta.metadata();
            let chunks = Arc::new(self.bytes.clone());
            let mut texts: Vec<&str> = Vec::new();
            let mut pages = Vec::new();
            let mut nulls = 0u64;
            for g in md.row_groups() {
                if g.num_rows() == 0 {
                    continue;
                }
                let c = g.column(j);
                nulls += c.statistics()?.null_count_opt()?;
                c.dictionary_page_offset()?;
                let mut reader =
                    SerializedPageReader::new(chunks.clone(), c, g.num_rows() as usize, None)
                        .ok()?;
                match reader.get_next_page().ok()? {
                    Some(Page::DictionaryPage {
                        buf,
                        num_values,
                        encoding: Encoding::PLAIN | Encoding::PLAIN_DICTIONARY,
                        ..
                    }) => pages.push((buf, num_values as usize)),
                    _ => return None,
                }
            }
            // PLAIN byte arrays: a 4-byte little-endian length, then the bytes.
            let mut code_of: HashMap<&[u8], usize> = HashMap::new();
            for (buf, count) in &pages {
                let mut rest: &[u8] = buf;
                for _ in 0..*count {
                    let len = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
                    let text = rest.get(4..4 + len)?;
                    rest = &rest[4 + len..];
                    if !code_of.contains_key(text) {
                        code_of.insert(text, texts.len());
                        texts.push(std::str::from_utf8(text).ok()?);
                        if texts.len() > NUMERIC_SWITCH {
                            return None;
                        }
                    }
                }
            }
            if texts.is_empty() {
                // No observed value: the table reader infers such a column's kind.
                return None;
            }
            // The texts made a column by the table reader's plan (a null last when the file
            // has nulls, so that the column misses a value exactly when the file's does).
            let n = texts.len() + usize::from(nulls > 0);
            let values: ArrayRef = Arc::new(StringArray::from_iter(
                texts
                    .iter()
                    .map(|t| Some(*t))
                    .chain((nulls > 0).then_some(None)),
            ));
            let column =
                crate::columnar::imp::column(&self.path, &self.plans[j], &[&values], n, &self.cfg)
                    .ok()?;
            if column.kind() == Kind::Set {
                return None;
            }
            let source = ColumnCodes::of(&column, SetCoding::Whole);
            let mut codes = vec![0u32; n];
            source.fill(0, &mut codes);
            let card = source.card();
            let codes = texts
                .iter()
                .zip(codes)
                .map(|(t, c)| (t.as_bytes().to_vec().into_boxed_slice(), c))
                .collect();
            Some((KeyKind::Text(codes), card))
        }
    }

    /// Whether the table reader reads an Arrow type as text that a dictionary can hold.
    fn is_text(t: &DataType) -> bool {
        match t {
            DataType::Utf8 | DataType::LargeUtf8 => true,
            DataType::Dictionary(_, v) => matches!(**v, DataType::Utf8 | DataType::LargeUtf8),
            _ => false,
        }
    }

    /// How one key's values become codes.
    #[derive(Debug)]
    enum KeyKind {
        /// Integers, coded value − `lo`, all within `lo ..= hi`.
        Int { lo: i64, hi: i64 },
        /// Text: each distinct text of the file with its code ([`MISSING`] for a missing
        /// token).
        Text(HashMap<Box<[u8]>, u32>),
    }

    /// The integer and text keys of a Parquet file by row groups ([`ColumnarFile::keys`]):
    /// codes and cardinalities are those [`crate::keys::ColumnCodes`] gives the columns the
    /// table reader makes.
    #[derive(Debug)]
    pub struct ParquetKeys<'a> {
        file: &'a ColumnarFile,
        /// Other columns read whole when asked for ([`PartedCodes::column`]), by position.
        made: Vec<OnceLock<Option<Column>>>,
        /// The file's columns decoded, by position.
        projected: Vec<usize>,
        /// Each key's place among the decoded columns.
        at: Vec<usize>,
        /// The file's metadata for decoding the keys (text keys as dictionary indices).
        meta: ArrowReaderMetadata,
        kinds: Vec<KeyKind>,
        cards: Vec<u32>,
        rows: Vec<usize>,
    }

    impl PartedCodes for ParquetKeys<'_> {
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
            let f = self.file;
            let bad = |e: &dyn std::fmt::Display| crate::DataError::Input {
                location: crate::Location {
                    file: f.path.clone(),
                    line: None,
                    column: None,
                },
                message: format!("not a readable Parquet file: {e}"),
            };
            if self.rows[part] == 0 {
                return Ok(true);
            }
            let mask = ProjectionMask::roots(f.meta.parquet_schema(), self.projected.clone());
            let reader = ParquetRecordBatchReaderBuilder::new_with_metadata(
                f.bytes.clone(),
                self.meta.clone(),
            )
            .with_row_groups(vec![part])
            .with_projection(mask)
            .with_batch_size(BATCH)
            .build()
            .map_err(|e| bad(&e))?;
            let mut offset = 0;
            // Per text key, the codes of the dictionary last seen (a row group's batches share
            // its dictionary): mapped once, not once per batch.
            let mut maps: Vec<Option<DictionaryMap>> = self.kinds.iter().map(|_| None).collect();
            for batch in reader {
                let batch: RecordBatch = batch.map_err(|e| bad(&e))?;
                for (k, &c) in self.at.iter().enumerate() {
                    if let KeyKind::Text(codes) = &self.kinds[k] {
                        let a = batch.column(c);
                        let Some(d) = a.as_any_dictionary_opt() else {
                            return Ok(false);
                        };
                        let values = d.values();
                        if !maps[k].as_ref().is_some_and(|m| m.is_of(values)) {
                            let Some(m) = DictionaryMap::new(values, codes) else {
                                return Ok(false);
                            };
                            maps[k] = Some(m);
                        }
                        // A value the dictionary pages did not give (a placeholder behind
                        // nulls is no matter) makes the file one to read whole.
                        if let Some(m) = maps[k].as_ref().filter(|m| m.unknown) {
                            let keys = d.normalized_keys();
                            if (0..a.len()).any(|i| a.is_valid(i) && m.codes[keys[i]] == UNKNOWN) {
                                return Ok(false);
                            }
                        }
                    }
                }
                let mut sources = Vec::with_capacity(self.at.len());
                for (k, &c) in self.at.iter().enumerate() {
                    let a = batch.column(c).as_ref();
                    let s = match (&self.kinds[k], &maps[k]) {
                        (KeyKind::Text(_), Some(map)) => {
                            let d = a.as_any_dictionary();
                            Some(Box::new(TextSlice {
                                keys: d.normalized_keys(),
                                nulls: a.nulls().filter(|n| n.null_count() > 0),
                                map: &map.codes,
                                card: self.cards[k],
                            }) as Box<dyn CodeSource>)
                        }
                        (KeyKind::Text(_), None) => None,
                        (&KeyKind::Int { lo, hi }, _) => {
                            let card = self.cards[k];
                            match a.data_type() {
                                DataType::Int8 => {
                                    codes_of(a.as_primitive::<Int8Type>(), lo, hi, card)
                                }
                                DataType::Int16 => {
                                    codes_of(a.as_primitive::<Int16Type>(), lo, hi, card)
                                }
                                DataType::Int32 => {
                                    codes_of(a.as_primitive::<Int32Type>(), lo, hi, card)
                                }
                                DataType::Int64 => {
                                    codes_of(a.as_primitive::<Int64Type>(), lo, hi, card)
                                }
                                DataType::UInt8 => {
                                    codes_of(a.as_primitive::<UInt8Type>(), lo, hi, card)
                                }
                                DataType::UInt16 => {
                                    codes_of(a.as_primitive::<UInt16Type>(), lo, hi, card)
                                }
                                DataType::UInt32 => {
                                    codes_of(a.as_primitive::<UInt32Type>(), lo, hi, card)
                                }
                                _ => None,
                            }
                        }
                    };
                    let Some(s) = s else {
                        return Ok(false);
                    };
                    sources.push(s);
                }
                let refs: Vec<&dyn CodeSource> = sources.iter().map(|s| s.as_ref()).collect();
                piece(offset, &refs);
                offset += batch.num_rows();
            }
            Ok(true)
        }
        /// A column other than a truth column, read whole the first time it is asked for.
        fn column(&self, name: &str) -> Option<&Column> {
            let j = self
                .file
                .plans
                .iter()
                .position(|p| p.name == name && p.role != Role::Truth)?;
            self.made[j]
                .get_or_init(|| self.file.read_column(j))
                .as_ref()
        }
    }

    /// One key's slice of integers as codes (value − minimum).
    struct IntSlice<'a, T> {
        values: &'a [T],
        nulls: Option<&'a NullBuffer>,
        lo: i64,
        card: u32,
    }

    impl<T: ArrowNativeType + Into<i64>> IntSlice<'_, T> {
        /// True when every present value lies within `lo ..= hi`.
        fn within(&self, hi: i64) -> bool {
            let lo = self.lo;
            let outside = |v: T| {
                let v: i64 = v.into();
                v < lo || v > hi
            };
            match self.nulls {
                None => !self.values.iter().fold(false, |bad, &v| bad | outside(v)),
                Some(n) => {
                    let mut bad = false;
                    for_words(n, 0, self.values.len(), |first, valid| {
                        for (i, &v) in self.values[first..].iter().take(64).enumerate() {
                            bad |= outside(v) & ((valid >> i) & 1 != 0);
                        }
                    });
                    !bad
                }
            }
        }

        fn fill(&self, start: usize, out: &mut [u32]) {
            let values = &self.values[start..start + out.len()];
            for (o, &v) in out.iter_mut().zip(values) {
                let v: i64 = v.into();
                *o = (v - self.lo) as u32;
            }
            if let Some(n) = self.nulls {
                for_null_rows(n, start, out.len(), |i| out[i] = MISSING);
            }
        }
    }

    impl<T: ArrowNativeType + Into<i64>> CodeSource for IntSlice<'_, T> {
        fn len(&self) -> usize {
            self.values.len()
        }
        fn card(&self) -> u32 {
            self.card
        }
        fn fill(&self, start: usize, out: &mut [u32]) {
            IntSlice::fill(self, start, out)
        }
    }

    /// An integer key's codes from `a` (`card` codes from `lo`), `None` when a value lies
    /// outside `lo ..= hi`.
    fn codes_of<'a, T>(
        a: &'a arrow_array::PrimitiveArray<T>,
        lo: i64,
        hi: i64,
        card: u32,
    ) -> Option<Box<dyn CodeSource + 'a>>
    where
        T: ArrowPrimitiveType,
        T::Native: Into<i64>,
    {
        let s = IntSlice {
            values: a.values().as_ref(),
            nulls: a.nulls().filter(|n| n.null_count() > 0),
            lo,
            card,
        };
        s.within(hi)
            .then(|| Box::new(s) as Box<dyn CodeSource + 'a>)
    }

    /// The code of a dictionary value that is not among the texts of the dictionary pages.
    const UNKNOWN: u32 = MISSING - 1;

    /// The codes of one dictionary's values, and the dictionary they are of.
    struct DictionaryMap {
        /// The dictionary's values (held, so that their buffers stay theirs).
        values: ArrayRef,
        /// Each value's code ([`MISSING`] for a null or a missing token, [`UNKNOWN`] for a
        /// text not among the key's).
        codes: Vec<u32>,
        /// Whether some value is [`UNKNOWN`].
        unknown: bool,
    }

    impl DictionaryMap {
        /// The codes of `values` from the key's `codes` of every text; `None` when the values
        /// are not text.
        fn new(values: &ArrayRef, codes: &HashMap<Box<[u8]>, u32>) -> Option<DictionaryMap> {
            let text = |i: usize| -> &[u8] {
                match values.data_type() {
                    DataType::LargeUtf8 => values.as_string::<i64>().value(i).as_bytes(),
                    _ => values.as_string::<i32>().value(i).as_bytes(),
                }
            };
            if !matches!(values.data_type(), DataType::Utf8 | DataType::LargeUtf8) {
                return None;
            }
            let codes: Vec<u32> = (0..values.len())
                .map(|i| {
                    if values.is_null(i) {
                        MISSING
                    } else {
                        codes.get(text(i)).copied().unwrap_or(UNKNOWN)
                    }
                })
                .collect();
            Some(DictionaryMap {
                values: values.clone(),
                unknown: codes.contains(&UNKNOWN),
                codes,
            })
        }

        /// Whether `values` are this map's dictionary (the same buffers).
        fn is_of(&self, values: &ArrayRef) -> bool {
            let (a, b) = (self.values.to_data(), values.to_data());
            a.data_type() == b.data_type()
                && a.len() == b.len()
                && a.offset() == b.offset()
                && a.buffers().len() == b.buffers().len()
                && a.buffers()
                    .iter()
                    .zip(b.buffers())
                    .all(|(x, y)| x.as_ptr() == y.as_ptr() && x.len() == y.len())
        }
    }

    /// One text key's slice as codes: its dictionary indices through the dictionary's codes.
    struct TextSlice<'a> {
        keys: Vec<usize>,
        nulls: Option<&'a NullBuffer>,
        map: &'a [u32],
        card: u32,
    }

    impl CodeSource for TextSlice<'_> {
        fn len(&self) -> usize {
            self.keys.len()
        }
        fn card(&self) -> u32 {
            self.card
        }
        fn fill(&self, start: usize, out: &mut [u32]) {
            for (o, &k) in out.iter_mut().zip(&self.keys[start..]) {
                *o = self.map[k];
            }
            if let Some(n) = self.nulls {
                for_null_rows(n, start, out.len(), |i| out[i] = MISSING);
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use arrow_array::Int32Array;

        #[test]
        fn values_beyond_the_statistics_are_caught_and_nulls_read_missing() {
            // 150 values (three null words), sliced so that the bits start mid-word.
            let values: Vec<Option<i32>> = (0..150)
                .map(|i| (i % 7 != 3).then_some(10 + i % 5))
                .collect();
            let whole = Int32Array::from(values);
            let a = whole.slice(5, 140);
            let slice = |lo: i64, card: u32| IntSlice {
                values: a.values().as_ref(),
                nulls: a.nulls(),
                lo,
                card,
            };
            assert!(slice(10, 5).within(14));
            assert!(!slice(11, 4).within(14), "a 10 below the minimum");
            assert!(!slice(10, 4).within(13), "a 14 above the maximum");
            // Null slots hold anything: never checked.
            let mut holes = whole.values().to_vec();
            for (i, h) in holes.iter_mut().enumerate() {
                if i % 7 == 3 {
                    *h = -1_000;
                }
            }
            let holed = Int32Array::new(holes.into(), whole.nulls().cloned());
            let s = IntSlice {
                values: holed.values().as_ref(),
                nulls: holed.nulls(),
                lo: 10,
                card: 5,
            };
            assert!(s.within(14));
            // Codes from any start, missing where null.
            let s = slice(10, 5);
            for start in [0, 1, 63, 64, 100] {
                let mut out = vec![0u32; 140 - start];
                s.fill(start, &mut out);
                let expected: Vec<u32> = (start..140)
                    .map(|i| {
                        let j = i + 5;
                        if j % 7 == 3 { MISSING } else { (j % 5) as u32 }
                    })
                    .collect();
                assert_eq!(out, expected, "from {start}");
            }
        }
    }
}
