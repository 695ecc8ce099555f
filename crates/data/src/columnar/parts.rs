//! A Parquet file's integer keys read one row group at a time ([`PartedCodes`]), for engines
//! that only count (class sizes): no table is made, only the key columns are decoded, and each
//! row group's arrays are freed as soon as its codes are combined, so memory stays at the
//! engine's own (8 bytes per record) whatever the width of the file.
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
    use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, RecordBatch};
    use arrow_buffer::{ArrowNativeType, NullBuffer};
    use arrow_schema::DataType;
    use parquet::arrow::ProjectionMask;
    use parquet::arrow::arrow_reader::{
        ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
    };
    use parquet::file::statistics::Statistics;

    use super::*;
    use crate::column::{Column, Kind, Role};
    use crate::columnar::imp::{for_null_rows, for_words};
    use crate::keys::codes::offset_of_bounds;
    use crate::keys::{CodeSource, MISSING};
    use crate::read::chunked::{ColPlan, Plan};
    use crate::read::onepass;

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
                options.schema = Some(crate::schema::Schema::from_toml(text, path).ok()?);
            }
            let cfg = onepass::Config::new(&options);
            let specs = onepass::column_specs(&names, path, &options).ok()?;
            let plans = names
                .iter()
                .zip(specs)
                .enumerate()
                .map(|(j, (name, spec))| ColPlan::new(name, j + 1, spec, &cfg.file_missing))
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
            }
        }

        /// The columns `names` by row groups, when every one is read as integers with only
        /// nulls missing (an integer Arrow type other than unsigned 64-bit, no other kind
        /// declared, not the weight nor a truth column), every row group's statistics give its
        /// number of nulls and, if it has a value, its exact minimum and maximum, and the range
        /// the codes take is below 2²⁴ wide; `None` otherwise.
        pub fn keys(&self, names: &[String]) -> Option<ParquetKeys<'_>> {
            let fields = self.meta.schema().fields();
            let md = self.meta.metadata();
            let mut columns = Vec::with_capacity(names.len());
            let mut lo = Vec::with_capacity(names.len());
            let mut hi = Vec::with_capacity(names.len());
            for name in names {
                let j = self.plans.iter().position(|p| &p.name == name)?;
                let plan = &self.plans[j];
                // Integers of at most 64 bits with a sign, 32 without (statistics in their own
                // order, stored in the physical type's bits).
                let unsigned = matches!(
                    fields[j].data_type(),
                    DataType::UInt8 | DataType::UInt16 | DataType::UInt32
                );
                let signed = matches!(
                    fields[j].data_type(),
                    DataType::Int8 | DataType::Int16 | DataType::Int32 | DataType::Int64
                );
                if !(signed || unsigned)
                    || plan.weight
                    || plan.role == Role::Truth
                    || !matches!(plan.plan, Plan::Infer | Plan::Int)
                {
                    return None;
                }
                let (mut min, mut max) = (i64::MAX, i64::MIN);
                let mut nulls = 0u64;
                for g in md.row_groups() {
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
                // The range `ColumnCodes` takes; a key 2²⁴ wide or more is coded by its
                // distinct values, which only reading tells.
                let (min, card) = offset_of_bounds(min, max, nulls > 0)?;
                columns.push(j);
                lo.push(min);
                hi.push(min + i64::from(card) - 1);
            }
            let cards = lo
                .iter()
                .zip(&hi)
                .map(|(&l, &h)| (h - l + 1) as u32)
                .collect();
            let rows = md
                .row_groups()
                .iter()
                .map(|g| g.num_rows() as usize)
                .collect();
            let mut projected = columns.clone();
            projected.sort_unstable();
            projected.dedup();
            Some(ParquetKeys {
                file: self,
                made: (0..self.plans.len()).map(|_| OnceLock::new()).collect(),
                at: columns
                    .iter()
                    .map(|c| projected.binary_search(c).expect("projected"))
                    .collect(),
                projected,
                lo,
                hi,
                cards,
                rows,
            })
        }
    }

    /// The integer keys of a Parquet file by row groups ([`ColumnarFile::keys`]): codes and
    /// cardinalities are those [`crate::keys::ColumnCodes`] gives the columns the table reader
    /// makes.
    #[derive(Debug)]
    pub struct ParquetKeys<'a> {
        file: &'a ColumnarFile,
        /// Other columns read whole when asked for ([`PartedCodes::column`]), by position.
        made: Vec<OnceLock<Option<Column>>>,
        /// The file's columns decoded, by position.
        projected: Vec<usize>,
        /// Each key's place among the decoded columns.
        at: Vec<usize>,
        lo: Vec<i64>,
        hi: Vec<i64>,
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
            let reader =
                ParquetRecordBatchReaderBuilder::new_with_metadata(f.bytes.clone(), f.meta.clone())
                    .with_row_groups(vec![part])
                    .with_projection(mask)
                    .with_batch_size(BATCH)
                    .build()
                    .map_err(|e| bad(&e))?;
            let mut offset = 0;
            for batch in reader {
                let batch: RecordBatch = batch.map_err(|e| bad(&e))?;
                let mut sources = Vec::with_capacity(self.at.len());
                for (k, &c) in self.at.iter().enumerate() {
                    let a = batch.column(c).as_ref();
                    let s = match a.data_type() {
                        DataType::Int8 => codes_of(a.as_primitive::<Int8Type>(), self, k),
                        DataType::Int16 => codes_of(a.as_primitive::<Int16Type>(), self, k),
                        DataType::Int32 => codes_of(a.as_primitive::<Int32Type>(), self, k),
                        DataType::Int64 => codes_of(a.as_primitive::<Int64Type>(), self, k),
                        DataType::UInt8 => codes_of(a.as_primitive::<UInt8Type>(), self, k),
                        DataType::UInt16 => codes_of(a.as_primitive::<UInt16Type>(), self, k),
                        DataType::UInt32 => codes_of(a.as_primitive::<UInt32Type>(), self, k),
                        _ => None,
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

    /// Key `k`'s codes from `a`, `None` when a value lies outside the key's bounds.
    fn codes_of<'a, T>(
        a: &'a arrow_array::PrimitiveArray<T>,
        keys: &ParquetKeys,
        k: usize,
    ) -> Option<Box<dyn CodeSource + 'a>>
    where
        T: ArrowPrimitiveType,
        T::Native: Into<i64>,
    {
        let s = IntSlice {
            values: a.values().as_ref(),
            nulls: a.nulls().filter(|n| n.null_count() > 0),
            lo: keys.lo[k],
            card: keys.cards[k],
        };
        s.within(keys.hi[k])
            .then(|| Box::new(s) as Box<dyn CodeSource + 'a>)
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
