//! Parquet and Arrow IPC files (cargo feature `parquet`).
//!
//! **Input.** Arrow types map to the data model: integer columns (any width) are integers,
//! float columns floats (NaN is missing), nulls are missing; text, dictionary-encoded text and
//! booleans go through the CSV reader's column builders, so that inference (categorical or
//! string, numeric text), declared types and categories, set-valued cells, missing tokens and
//! their errors are the CSV reader's. A schema (the one given, else one written into the file by
//! [`write_parquet`]) and command-line roles apply as for CSV.
//!
//! **Output.** [`write_parquet`] writes a table (and the ground truth of a [`Dataset`]):
//! categorical columns as dictionary-encoded strings with their levels in order, integers as
//! Int64, floats as Float64, text as strings, set-valued cells as their `a|b` text; missing cells
//! are nulls; the data set's schema (kinds, roles, level order) is stored in the file's metadata
//! under `intruder.schema`, so reading the file back gives the same data set.

use std::path::Path;

use crate::Dataset;
use crate::read::ReadOptions;
use crate::{DataError, Location};

/// The error when the feature is off.
#[cfg(not(feature = "parquet"))]
fn not_compiled(path: &Path) -> DataError {
    DataError::Input {
        location: Location {
            file: path.to_path_buf(),
            line: None,
            column: None,
        },
        message: "Parquet support is not compiled in: build with --features parquet".into(),
    }
}

/// Reads a Parquet or Arrow IPC file.
#[cfg(not(feature = "parquet"))]
pub(crate) fn read(path: &Path, _options: &ReadOptions) -> Result<Dataset, DataError> {
    Err(not_compiled(path))
}

/// Writes columns as Parquet, whole or not at all.
#[cfg(not(feature = "parquet"))]
pub(crate) fn write_columns(
    path: &Path,
    _columns: &[&crate::Column],
    _nrows: usize,
    _schema: crate::Schema,
) -> Result<(), DataError> {
    Err(not_compiled(path))
}

/// Writes a data set (table, then truth columns) as Parquet, whole or not at all; its schema
/// (kinds, roles, level order) goes into the file's metadata, so that reading the file back
/// gives the same data set. Without the `parquet` feature this is an error saying so.
pub fn write_parquet(path: &Path, data: &Dataset) -> Result<(), DataError> {
    let columns: Vec<&crate::Column> = data.table.columns().iter().chain(&data.truth).collect();
    write_columns(path, &columns, data.table.nrows(), data.schema())
}

mod parts;
pub use parts::{ColumnarFile, ParquetKeys};

#[cfg(feature = "statfiles")]
pub(crate) use imp::from_batches;
#[cfg(feature = "parquet")]
pub(crate) use imp::read;
#[cfg(feature = "parquet")]
pub(crate) use imp::write_columns;

#[cfg(feature = "parquet")]
mod imp {
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    use arrow_array::cast::AsArray;
    use arrow_array::types::{
        Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type,
        UInt8Type, UInt16Type, UInt32Type, UInt64Type,
    };
    use arrow_array::{
        AnyDictionaryArray, Array, ArrayRef, ArrowPrimitiveType, DictionaryArray, Float64Array,
        Int64Array, RecordBatch, StringArray, UInt32Array,
    };
    use arrow_buffer::{ArrowNativeType, NullBuffer};
    use arrow_schema::{DataType, Field, Schema as ArrowSchema};
    use rayon::prelude::*;

    use super::*;
    use crate::read::chunked::{Bits, ColChunk, ColPlan, Plan, finish_column};
    use crate::read::intern::Key;
    use crate::read::onepass::{self, Config};
    use crate::write::{FloatStyle, push_f64, push_i64, write_atomically};
    use crate::{Bitmap, Column, ColumnData, Kind, Schema};

    pub(super) const SCHEMA_KEY: &str = "intruder.schema";

    fn input_error(path: &Path, column: Option<String>, message: String) -> DataError {
        DataError::Input {
            location: Location {
                file: path.to_path_buf(),
                line: None,
                column,
            },
            message,
        }
    }

    /// Reads a Parquet or Arrow IPC file (told by its first bytes).
    pub(crate) fn read(path: &Path, options: &ReadOptions) -> Result<Dataset, DataError> {
        let io = |source| DataError::Io {
            path: path.to_path_buf(),
            source,
        };
        let bad = |e: &dyn std::fmt::Display, what: &str| {
            input_error(path, None, format!("not a readable {what} file: {e}"))
        };
        let file = std::fs::File::open(path).map_err(io)?;
        let mut head = [0u8; 6];
        {
            use std::io::Read;
            let mut f = &file;
            f.read_exact(&mut head).map_err(io)?;
        }
        let (schema, batches): (Arc<ArrowSchema>, Vec<RecordBatch>) = if head.starts_with(b"PAR1") {
            use parquet::arrow::ProjectionMask;
            use parquet::arrow::arrow_reader::{
                ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReaderBuilder,
            };
            // The file as shared bytes (memory-mapped: no copy): every reader below slices it
            // independently (a `File` would share one cursor between the threads).
            // SAFETY: the map is read only; a file changed by another process while it is read
            // gives a decoding error or different values, as reading it would.
            let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
            let bytes = bytes::Bytes::from_owner(map);
            let meta = ArrowReaderMetadata::load(&bytes, ArrowReaderOptions::new())
                .map_err(|e| bad(&e, "Parquet"))?;
            let schema = meta.schema().clone();
            // A selection reads only its columns (a projection: the others are not decoded).
            let projection = match &options.select {
                Some(_) => {
                    let (_, plans, _) = plan_columns(path, &schema, options)?;
                    Some(kept_columns(&plans, options))
                }
                None => None,
            };
            let mask = projection
                .as_ref()
                .map(|keep| ProjectionMask::roots(meta.parquet_schema(), keep.iter().copied()));
            let nrows = usize::try_from(meta.metadata().file_metadata().num_rows())
                .map_err(|e| bad(&e, "Parquet"))?;
            // Row groups are decoded in parallel: contiguous runs of them, one reader each, over
            // the same file and metadata; the batches are kept in file order.
            let groups = meta.metadata().num_row_groups();
            let tasks = groups.min(rayon::current_num_threads()).max(1);
            let runs: Vec<Vec<usize>> = (0..tasks)
                .map(|t| (t * groups / tasks..(t + 1) * groups / tasks).collect())
                .collect();
            let parts = runs
                .into_par_iter()
                .map(|rows| -> Result<Vec<RecordBatch>, DataError> {
                    let mut builder = ParquetRecordBatchReaderBuilder::new_with_metadata(
                        bytes.clone(),
                        meta.clone(),
                    )
                    .with_row_groups(rows)
                    .with_batch_size(1 << 16);
                    if let Some(mask) = &mask {
                        builder = builder.with_projection(mask.clone());
                    }
                    builder
                        .build()
                        .map_err(|e| bad(&e, "Parquet"))?
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| bad(&e, "Parquet"))
                })
                .collect::<Result<Vec<_>, _>>()?;
            let batches = parts.into_iter().flatten().collect();
            return from_columns(
                path,
                &schema,
                batches,
                options,
                projection.as_deref(),
                nrows,
            );
        } else {
            let reader = arrow_ipc::reader::FileReader::try_new(file, None)
                .map_err(|e| bad(&e, "Arrow IPC"))?;
            let schema = reader.schema();
            let batches = reader
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| bad(&e, "Arrow IPC"))?;
            (schema, batches)
        };
        from_batches(path, &schema, batches, options)
    }

    /// The data set of a file's record batches (every column of `schema`).
    pub(crate) fn from_batches(
        path: &Path,
        schema: &ArrowSchema,
        batches: Vec<RecordBatch>,
        options: &ReadOptions,
    ) -> Result<Dataset, DataError> {
        let nrows: usize = batches.iter().map(RecordBatch::num_rows).sum();
        from_columns(path, schema, batches, options, None, nrows)
    }

    /// The columns of `schema` that `options`' selection keeps (all when it has none).
    fn kept_columns(plans: &[ColPlan], options: &ReadOptions) -> Vec<usize> {
        (0..plans.len())
            .filter(|&j| {
                options
                    .select
                    .as_ref()
                    .is_none_or(|s| s.keeps(&plans[j].name, plans[j].role))
            })
            .collect()
    }

    /// The data set of a file's `nrows` records from its record batches: of every column of
    /// `schema`, or of the columns `projection` lists when the batches hold only those. A
    /// selection's other columns are not converted and are listed as [`Dataset::unread`].
    fn from_columns(
        path: &Path,
        schema: &ArrowSchema,
        batches: Vec<RecordBatch>,
        options: &ReadOptions,
        projection: Option<&[usize]>,
        nrows: usize,
    ) -> Result<Dataset, DataError> {
        let (options, plans, cfg) = plan_columns(path, schema, options)?;
        let kept = kept_columns(&plans, &options);
        // Each kept column's arrays held by that column alone, so that they are freed as soon
        // as it is converted: the decoded file and the table never both exist whole.
        let per_column: Vec<Vec<ArrayRef>> = kept
            .iter()
            .enumerate()
            .map(|(p, &j)| {
                let at = if projection.is_some() { p } else { j };
                batches.iter().map(|b| b.column(at).clone()).collect()
            })
            .collect();
        drop(batches);
        let mut is_kept = vec![false; plans.len()];
        kept.iter().for_each(|&j| is_kept[j] = true);
        let unread = (0..plans.len())
            .filter(|&j| !is_kept[j])
            .map(|j| {
                let stored = schema.field(j).data_type();
                let kind = plans[j].declared_kind().unwrap_or(if is_int(stored) {
                    Kind::Integer
                } else if is_float(stored) {
                    Kind::Float
                } else {
                    Kind::String
                });
                (plans[j].name.clone(), kind, plans[j].role)
            })
            .collect();
        let columns = kept
            .par_iter()
            .zip(per_column)
            .map(|(&j, arrays)| {
                let refs: Vec<&ArrayRef> = arrays.iter().collect();
                let c = column(path, &plans[j], &refs, nrows, &cfg);
                drop(refs);
                drop(arrays);
                c
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut ds = Dataset::split_truth_rows(PathBuf::from(path), columns, nrows)?;
        ds.unread = unread;
        Ok(ds)
    }

    /// The read options with the schema written into the file when the user gives none, the
    /// plan of every column of `schema` (names checked: non-empty and distinct), and the
    /// configuration.
    fn plan_columns(
        path: &Path,
        schema: &ArrowSchema,
        options: &ReadOptions,
    ) -> Result<(ReadOptions, Vec<ColPlan>, Config), DataError> {
        let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
        // The schema written into the file applies when the user gives none.
        let mut options = options.clone();
        if options.schema.is_none()
            && let Some(text) = schema.metadata().get(SCHEMA_KEY)
        {
            options.schema = Some(Schema::from_toml(text, path)?);
        }
        let cfg = Config::new(&options);
        let mut seen = std::collections::HashSet::new();
        for (j, n) in names.iter().enumerate() {
            if n.trim().is_empty() || !seen.insert(n.as_str()) {
                return Err(input_error(
                    path,
                    Some(format!("'{n}' ({})", j + 1)),
                    "column names must be non-empty and distinct".into(),
                ));
            }
        }
        let specs = onepass::column_specs(&names, path, &options)?;
        let plans: Vec<ColPlan> = names
            .iter()
            .zip(specs)
            .enumerate()
            .map(|(j, (name, spec))| {
                let plan = ColPlan::new(name, j + 1, spec, &cfg.file_missing);
                categories_stay(plan, schema.field(j).data_type(), &cfg)
            })
            .collect();
        Ok((options, plans, cfg))
    }

    /// The plan of a column of Arrow type `t`: a dictionary whose kind is not declared is
    /// categorical ([`ColPlan::as_categorical`]).
    pub(crate) fn categories_stay(plan: ColPlan, t: &DataType, cfg: &Config) -> ColPlan {
        if matches!(t, DataType::Dictionary(_, _)) && matches!(plan.plan, Plan::Infer) {
            plan.as_categorical(&cfg.file_missing)
        } else {
            plan
        }
    }

    fn is_int(t: &DataType) -> bool {
        matches!(
            t,
            DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::Int64
                | DataType::UInt8
                | DataType::UInt16
                | DataType::UInt32
                | DataType::UInt64
        )
    }

    fn is_float(t: &DataType) -> bool {
        matches!(t, DataType::Float16 | DataType::Float32 | DataType::Float64)
    }

    /// `$f::<T>(args)` for the Arrow integer type `T` of `$dtype` (which is an integer type).
    macro_rules! int_type {
        ($dtype:expr, $f:ident($($arg:expr),*)) => {
            match $dtype {
                DataType::Int8 => $f::<Int8Type>($($arg),*),
                DataType::Int16 => $f::<Int16Type>($($arg),*),
                DataType::Int32 => $f::<Int32Type>($($arg),*),
                DataType::Int64 => $f::<Int64Type>($($arg),*),
                DataType::UInt8 => $f::<UInt8Type>($($arg),*),
                DataType::UInt16 => $f::<UInt16Type>($($arg),*),
                DataType::UInt32 => $f::<UInt32Type>($($arg),*),
                DataType::UInt64 => $f::<UInt64Type>($($arg),*),
                t => unreachable!("{t} is not an integer type"),
            }
        };
    }

    /// Integer `i` of an integer array (`None` when it does not fit an i64, or `a` holds no
    /// integers).
    fn int_at(a: &dyn Array, i: usize) -> Option<i64> {
        if !is_int(a.data_type()) {
            return None;
        }
        int_type!(a.data_type(), int_value(a, i))
    }

    /// [`int_at`] for the integer type `T`.
    fn int_value<T: ArrowPrimitiveType>(a: &dyn Array, i: usize) -> Option<i64> {
        a.as_primitive::<T>().value(i).to_i64()
    }

    fn float_at(a: &dyn Array, i: usize) -> f64 {
        match a.data_type() {
            DataType::Float16 => a.as_primitive::<Float16Type>().value(i).to_f64(),
            DataType::Float32 => a.as_primitive::<Float32Type>().value(i) as f64,
            DataType::Float64 => a.as_primitive::<Float64Type>().value(i),
            _ => int_at(a, i).map_or(f64::NAN, |x| x as f64),
        }
    }

    /// Appends the integers of `a` to `out`, one per cell (whatever a null slot holds, or 0 when
    /// that does not fit an i64); the first cell, not null, whose value does not fit an i64.
    fn ints_into<T: ArrowPrimitiveType>(a: &dyn Array, out: &mut Vec<i64>) -> Option<usize> {
        let p = a.as_primitive::<T>();
        let mut too_wide = None;
        for (i, v) in p.values().iter().enumerate() {
            out.push(v.to_i64().unwrap_or_else(|| {
                if too_wide.is_none() && p.is_valid(i) {
                    too_wide = Some(i);
                }
                0
            }));
        }
        too_wide
    }

    /// `f(i)` for every null cell `i` of `a`, in order.
    fn for_nulls(a: &dyn Array, f: impl FnMut(usize)) {
        if let Some(nulls) = a.logical_nulls().filter(|n| n.null_count() > 0) {
            for_null_rows(&nulls, 0, a.len(), f);
        }
    }

    /// `f(i)` for every null row `start + i` of `nulls` among `start .. start + len`, in order.
    pub(super) fn for_null_rows(
        nulls: &NullBuffer,
        start: usize,
        len: usize,
        mut f: impl FnMut(usize),
    ) {
        for_words(nulls, start, len, |first, valid| {
            let mut null = !valid;
            if len - first < 64 {
                null &= (1u64 << (len - first)) - 1;
            }
            while null != 0 {
                f(first + null.trailing_zeros() as usize);
                null &= null - 1;
            }
        });
    }

    /// Calls `f(first, valid)` for rows `start .. start + len` of `nulls` 64 at a time: `first`
    /// counts from `start`, bit `i` of `valid` tells whether row `start + first + i` is
    /// present (the bits past the end are 0).
    pub(super) fn for_words(
        nulls: &NullBuffer,
        start: usize,
        len: usize,
        mut f: impl FnMut(usize, u64),
    ) {
        let chunks = nulls.inner().slice(start, len);
        let chunks = chunks.bit_chunks();
        let mut first = 0;
        for word in chunks.iter() {
            f(first, word);
            first += 64;
        }
        if chunks.remainder_len() > 0 {
            f(first, chunks.remainder_bits());
        }
    }

    /// Appends the text of cell `i` (not null) to `out`.
    fn text_at(a: &dyn Array, i: usize, out: &mut Vec<u8>) -> bool {
        match a.data_type() {
            DataType::Utf8 => out.extend_from_slice(a.as_string::<i32>().value(i).as_bytes()),
            DataType::LargeUtf8 => out.extend_from_slice(a.as_string::<i64>().value(i).as_bytes()),
            DataType::Utf8View => out.extend_from_slice(a.as_string_view().value(i).as_bytes()),
            DataType::Boolean => out.extend_from_slice(if a.as_boolean().value(i) {
                b"true"
            } else {
                b"false"
            }),
            DataType::Dictionary(_, _) => {
                // (Cell by cell only for a dictionary of dictionaries: `column` reads a
                // dictionary's values once.)
                let d = a.as_any_dictionary();
                let k = int_at(d.keys(), i).unwrap_or(0) as usize;
                return text_at(d.values().as_ref(), k, out);
            }
            t if is_int(t) => match int_at(a, i) {
                Some(x) => push_i64(out, x),
                None => {
                    let v = a.as_primitive::<UInt64Type>().value(i);
                    out.extend_from_slice(v.to_string().as_bytes())
                }
            },
            t if is_float(t) => push_f64(out, float_at(a, i), FloatStyle::Data),
            _ => return false,
        }
        true
    }

    fn readable(t: &DataType) -> bool {
        match t {
            DataType::Utf8
            | DataType::LargeUtf8
            | DataType::Utf8View
            | DataType::Boolean
            | DataType::Null => true,
            DataType::Dictionary(_, v) => readable(v) && !matches!(**v, DataType::Null),
            t => is_int(t) || is_float(t),
        }
    }

    /// A column of the table from its Arrow arrays (in file order), as the table reader makes it.
    pub(crate) fn column(
        path: &Path,
        plan: &ColPlan,
        arrays: &[&ArrayRef],
        nrows: usize,
        cfg: &Config,
    ) -> Result<Column, DataError> {
        let dtype = arrays
            .first()
            .map_or(DataType::Null, |a| a.data_type().clone());
        if !readable(&dtype) {
            return Err(input_error(
                path,
                column_at(plan),
                format!(
                    "Arrow type {dtype} is not read; expected text, dictionary-encoded text, \
                     integers, floats or booleans"
                ),
            ));
        }
        let nulls: usize = arrays.iter().map(|a| a.null_count()).sum();
        let direct_int = is_int(&dtype) && matches!(plan.plan, Plan::Infer | Plan::Int);
        let direct_float = (is_float(&dtype) && matches!(plan.plan, Plan::Infer | Plan::Float))
            || (is_int(&dtype) && matches!(plan.plan, Plan::Float));
        if (direct_int || direct_float) && (nulls < nrows || !matches!(plan.plan, Plan::Infer)) {
            return if direct_int {
                integer_column(path, plan, arrays, nrows)
            } else {
                float_column(path, plan, arrays, nrows)
            };
        }
        // Text, dictionaries, booleans, and numbers declared otherwise: the CSV builders.
        let mut parts = Vec::with_capacity(arrays.len());
        let mut field = Vec::new();
        let mut row = 0;
        for a in arrays {
            let mut builder = ChunkBuilder {
                path,
                plan,
                col: plan.builder(),
                bits: Bits::default(),
                row: &mut row,
            };
            match a.as_any_dictionary_opt() {
                Some(d) => builder.dictionary_cells(a.as_ref(), d)?,
                None => builder.plain_cells(a.as_ref(), &dtype, &mut field)?,
            }
            parts.push((builder.col, builder.bits));
        }
        finish_column(plan, parts, nrows, cfg, path)
    }

    /// Where a column's errors point: its name and position.
    fn column_at(plan: &ColPlan) -> Option<String> {
        Some(format!("'{}' ({})", plan.name, plan.position))
    }

    /// An integer column read directly from Arrow integer arrays (nulls are missing; a weight
    /// must not be negative).
    fn integer_column(
        path: &Path,
        plan: &ColPlan,
        arrays: &[&ArrayRef],
        nrows: usize,
    ) -> Result<Column, DataError> {
        let mut missing = Bitmap::new(nrows);
        let mut row = 0;
        let mut v = Vec::with_capacity(nrows);
        for a in arrays {
            let too_wide = int_type!(a.data_type(), ints_into(a.as_ref(), &mut v));
            if let Some(i) = too_wide {
                return Err(input_error(
                    path,
                    column_at(plan),
                    format!("row {}: the integer does not fit 64 bits", row + i + 1),
                ));
            }
            for_nulls(a.as_ref(), |i| {
                v[row + i] = 0;
                missing.set(row + i);
            });
            row += a.len();
        }
        if plan.weight
            && let Some(i) = (0..nrows).find(|&i| v[i] < 0)
        {
            return Err(input_error(
                path,
                column_at(plan),
                format!(
                    "row {}: weight '{}' is negative; expected a weight ≥ 0",
                    i + 1,
                    v[i]
                ),
            ));
        }
        Column::new(
            plan.name.clone(),
            plan.role,
            ColumnData::Integer(v),
            missing,
        )
    }

    /// A float column read directly from Arrow float arrays, or integer arrays declared floats
    /// (nulls and NaN are missing; other values must be finite, and a weight not negative).
    fn float_column(
        path: &Path,
        plan: &ColPlan,
        arrays: &[&ArrayRef],
        nrows: usize,
    ) -> Result<Column, DataError> {
        let mut missing = Bitmap::new(nrows);
        let mut row = 0;
        let mut v: Vec<f64> = Vec::with_capacity(nrows);
        for a in arrays {
            let a = a.as_ref();
            floats_into(a, &mut v);
            for_nulls(a, |i| v[row + i] = f64::NAN);
            row += a.len();
        }
        for (i, &x) in v.iter().enumerate() {
            if x.is_nan() {
                missing.set(i);
            } else if !x.is_finite() || (plan.weight && x < 0.0) {
                return Err(input_error(
                    path,
                    column_at(plan),
                    format!(
                        "row {}: expected a finite number{}, found {x}",
                        i + 1,
                        if plan.weight { " ≥ 0" } else { "" }
                    ),
                ));
            }
        }
        Column::new(plan.name.clone(), plan.role, ColumnData::Float(v), missing)
    }

    /// Appends the values of a float array, or an integer array declared floats, to `v` (one
    /// per cell, whatever a null slot holds).
    fn floats_into(a: &dyn Array, v: &mut Vec<f64>) {
        match a.data_type() {
            DataType::Float16 => v.extend(
                a.as_primitive::<Float16Type>()
                    .values()
                    .iter()
                    .map(|x| x.to_f64()),
            ),
            DataType::Float32 => v.extend(
                a.as_primitive::<Float32Type>()
                    .values()
                    .iter()
                    .map(|&x| x as f64),
            ),
            DataType::Float64 => v.extend_from_slice(a.as_primitive::<Float64Type>().values()),
            // Integers declared floats.
            DataType::UInt64 => v.extend(
                a.as_primitive::<UInt64Type>()
                    .values()
                    .iter()
                    .map(|&x| x as f64),
            ),
            t => {
                let mut ints = Vec::with_capacity(a.len());
                int_type!(t, ints_into(a, &mut ints));
                v.extend(ints.iter().map(|&x| x as f64));
            }
        }
    }

    /// A cell's interned key and whether it is missing (null, or a missing token of `plan`).
    #[inline]
    fn cell(plan: &ColPlan, field: &[u8], null: bool) -> (Key, bool) {
        let key = Key::of(field);
        (key, null || plan.is_missing(field, key))
    }

    /// One Arrow array's cells going through the CSV reader's column builder: the chunk being
    /// built, its missing bits, and the row count shared by the column's arrays.
    struct ChunkBuilder<'a> {
        /// The file (for errors).
        path: &'a Path,
        /// The column's plan.
        plan: &'a ColPlan,
        /// The chunk being built.
        col: ColChunk,
        /// Its missing bits.
        bits: Bits,
        /// Rows read so far over the column's arrays.
        row: &'a mut usize,
    }

    impl ChunkBuilder<'_> {
        /// Adds one cell (its text, key and whether it is missing).
        #[inline]
        fn push(&mut self, field: &[u8], (key, missing): (Key, bool)) -> Result<(), DataError> {
            self.bits.push(missing);
            *self.row += 1;
            let row = *self.row;
            self.col.push(self.plan, field, key, missing).map_err(|m| {
                input_error(self.path, column_at(self.plan), format!("row {row}: {m}"))
            })
        }

        /// Adds the cells of dictionary array `a` (`d`): each dictionary value's text once (a
        /// null value is a missing cell), then each cell's through its key.
        fn dictionary_cells(
            &mut self,
            a: &dyn Array,
            d: &dyn AnyDictionaryArray,
        ) -> Result<(), DataError> {
            let plan = self.plan;
            let values = d.values();
            let texts: Vec<(Vec<u8>, (Key, bool))> = (0..values.len())
                .map(|k| {
                    let mut t = Vec::new();
                    let null = values.is_null(k);
                    if !null {
                        text_at(values.as_ref(), k, &mut t);
                    }
                    let c = cell(plan, &t, null);
                    (t, c)
                })
                .collect();
            let null_cell = (Vec::new(), cell(plan, b"", true));
            let nulls = a.nulls();
            for (i, &k) in d.normalized_keys().iter().enumerate() {
                let (text, c) = if nulls.is_some_and(|n| n.is_null(i)) {
                    &null_cell
                } else {
                    &texts[k]
                };
                self.push(text, *c)?;
            }
            Ok(())
        }

        /// Adds the cells of a non-dictionary array `a` (the column's type `dtype`): text
        /// arrays typed once; other arrays (booleans, numbers declared otherwise, nulls) cell
        /// by cell through `field`.
        fn plain_cells(
            &mut self,
            a: &dyn Array,
            dtype: &DataType,
            field: &mut Vec<u8>,
        ) -> Result<(), DataError> {
            let plan = self.plan;
            let mut push_cell = |text: &[u8], null: bool| self.push(text, cell(plan, text, null));
            let mut push_text =
                |v: Option<&str>| push_cell(v.unwrap_or_default().as_bytes(), v.is_none());
            match a.data_type() {
                DataType::Utf8 => a.as_string::<i32>().iter().try_for_each(&mut push_text)?,
                DataType::LargeUtf8 => a.as_string::<i64>().iter().try_for_each(&mut push_text)?,
                DataType::Utf8View => a.as_string_view().iter().try_for_each(&mut push_text)?,
                _ => {
                    for i in 0..a.len() {
                        field.clear();
                        let null = a.is_null(i) || matches!(dtype, DataType::Null);
                        if !null {
                            text_at(a, i, field);
                        }
                        push_cell(field.as_slice(), null)?;
                    }
                }
            }
            Ok(())
        }
    }

    /// Writes columns as Parquet with `schema` in the metadata, whole or not at all.
    pub(crate) fn write_columns(
        path: &Path,
        columns: &[&Column],
        nrows: usize,
        schema: Schema,
    ) -> Result<(), DataError> {
        let mut metadata = HashMap::new();
        metadata.insert(SCHEMA_KEY.to_string(), schema.to_toml());
        let fields: Vec<Field> = columns
            .iter()
            .map(|c| Field::new(c.name(), arrow_type(c), true))
            .collect();
        let schema = Arc::new(ArrowSchema::new_with_metadata(fields, metadata));
        let props = parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::SNAPPY)
            .build();
        let parquet_err = |e: parquet::errors::ParquetError| std::io::Error::other(e.to_string());
        write_atomically(path, |w| {
            let mut writer =
                parquet::arrow::ArrowWriter::try_new(w, schema.clone(), Some(props.clone()))
                    .map_err(parquet_err)?;
            const BATCH: usize = 1 << 20;
            let mut start = 0;
            while start < nrows || (start == 0 && nrows == 0) {
                let end = (start + BATCH).min(nrows);
                let arrays: Vec<ArrayRef> = columns.iter().map(|c| array(c, start..end)).collect();
                let batch = RecordBatch::try_new(schema.clone(), arrays)
                    .map_err(|e| std::io::Error::other(e.to_string()))?;
                writer.write(&batch).map_err(parquet_err)?;
                if nrows == 0 {
                    break;
                }
                start = end;
            }
            writer.close().map_err(parquet_err)?;
            Ok(())
        })
    }

    fn arrow_type(c: &Column) -> DataType {
        match c.data() {
            ColumnData::Categorical { .. } => {
                DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8))
            }
            ColumnData::Integer(_) => DataType::Int64,
            ColumnData::Float(_) => DataType::Float64,
            ColumnData::String(_) | ColumnData::Set { .. } => DataType::Utf8,
        }
    }

    fn array(c: &Column, rows: std::ops::Range<usize>) -> ArrayRef {
        let present = |i: usize| !c.is_missing(i);
        match c.data() {
            ColumnData::Categorical { codes, levels } => {
                let keys: UInt32Array = rows.map(|i| present(i).then(|| codes[i])).collect();
                let values = Arc::new(StringArray::from_iter_values(levels.iter()));
                Arc::new(
                    DictionaryArray::<UInt32Type>::try_new(keys, values)
                        .expect("codes index the levels"),
                )
            }
            ColumnData::Integer(v) => Arc::new(
                rows.map(|i| present(i).then(|| v[i]))
                    .collect::<Int64Array>(),
            ),
            ColumnData::Float(v) => Arc::new(
                rows.map(|i| present(i).then(|| v[i]))
                    .collect::<Float64Array>(),
            ),
            ColumnData::String(_) | ColumnData::Set { .. } => Arc::new(
                rows.map(|i| c.text(i).map(|t| t.into_owned()))
                    .collect::<StringArray>(),
            ),
        }
    }
}
