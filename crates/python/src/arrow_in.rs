//! Arrow record batches → the data model, with the CSV reader's rules.
//!
//! - Integer arrays (any width) are integers, float arrays floats (NaN is missing), nulls are
//!   missing; a weight column is read as floats ≥ 0 (as the CSV reader reads it).
//! - Text, dictionary-encoded text and booleans are read through their *distinct values*: each
//!   row gets the id of its value (a dictionary array maps its keys through a table as long as
//!   its dictionary, so no row is turned into a string), then the CSV reader's decisions are made
//!   once per distinct value: missing tokens (`""`, `NA`, `.` unless the schema says otherwise),
//!   inference (integers when every value is one, numbers, mostly distinct text as strings, else
//!   categorical with levels in sorted order), declared types and categories, set-valued text
//!   (`a|b`).
//! - List arrays are set-valued cells (an empty or null list is missing).
//! - A schema (types, roles, categories, missing tokens, separators) and the roles that a
//!   method's parameters name apply as for a CSV file.

use std::collections::HashMap;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type,
    UInt16Type, UInt32Type, UInt64Type,
};
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, RecordBatch};
use arrow_buffer::ArrowNativeType;
use arrow_schema::DataType;
use foldhash::fast::FixedState;
use rayon::prelude::*;

use intruder_data::keys::{CodeSource, KeyCodes, MISSING, SetCoding};
use intruder_data::params::did_you_mean;
use intruder_data::{
    Bitmap, Column, ColumnData, ColumnSpec, DEFAULT_MISSING, DataError, Kind, Location, Role,
    Schema, format_float,
};

/// Code of a missing cell while reading.
const NONE: u32 = u32::MAX;

/// How to read a table that arrives as Arrow batches.
#[derive(Debug, Clone, Default)]
pub struct ReadSpec {
    /// The name of the table in messages (`data`, `released`, …), where the CLI names a file.
    pub label: String,
    /// A declared schema.
    pub schema: Option<Schema>,
    /// Roles named by a method's parameters (`keys`, `weight`, …), over the schema's.
    pub roles: Vec<(String, Role)>,
    /// The key columns are only counted (risk measures): a key whose type is not declared is
    /// read as categorical codes straight from the arrays ([`key_column`]) instead of as the
    /// integers, floats or text the CSV reader would make of it. Equal values get equal codes
    /// exactly as they would under the CSV reader's type, so every count is the same.
    pub keys_as_codes: bool,
    /// Roles (other than the truth) naming a column the table lacks are skipped: the caller's
    /// parameter check reports every such name with its parameter and a did-you-mean.
    pub optional_roles: bool,
}

/// The column names of a stream, checked as the CSV reader checks a header.
pub fn names(label: &str, fields: &[String]) -> Result<(), DataError> {
    for (j, n) in fields.iter().enumerate() {
        if n.trim().is_empty() || fields[..j].contains(n) {
            return Err(DataError::Input {
                location: Location {
                    file: label.into(),
                    line: None,
                    column: Some(format!("'{n}' ({})", j + 1)),
                },
                message: "column names must be non-empty and distinct".into(),
            });
        }
    }
    Ok(())
}

/// The merged specification of every column (schema, then the parameters' roles), after
/// checking that every column they name exists.
pub fn specs(fields: &[String], spec: &ReadSpec) -> Result<Vec<ColumnSpec>, DataError> {
    let label = &spec.label;
    names(label, fields)?;
    let schema = spec.schema.clone().unwrap_or_default();
    let unknown: Vec<String> = schema
        .columns
        .iter()
        .filter(|(n, _)| !fields.contains(n))
        .map(|(n, _)| {
            format!(
                "columns.{n}: the table has no such column (columns: {})",
                fields.join(", ")
            )
        })
        .collect();
    if !unknown.is_empty() {
        return Err(DataError::Schema {
            path: label.into(),
            problems: unknown,
        });
    }
    // Every role naming an absent column at once (unless the caller's parameter check reports
    // them, each with its parameter: `optional_roles`).
    // (A truth column is always checked here.)
    let absent: Vec<&String> = spec
        .roles
        .iter()
        .filter(|(_, r)| !spec.optional_roles || *r == Role::Truth)
        .map(|(n, _)| n)
        .filter(|n| !fields.contains(n))
        .collect();
    match absent[..] {
        [] => {}
        [n] => {
            return Err(DataError::UnknownColumn {
                file: label.into(),
                name: n.clone(),
                hint: did_you_mean(n, fields.iter().map(String::as_str)),
                available: fields.join(", "),
            });
        }
        _ => {
            return Err(DataError::UnknownColumns {
                file: label.into(),
                names: absent
                    .iter()
                    .map(|n| {
                        format!(
                            "'{n}'{}",
                            did_you_mean(n, fields.iter().map(String::as_str))
                        )
                    })
                    .collect(),
                hint: String::new(),
                available: fields.join(", "),
            });
        }
    }
    Ok(fields
        .iter()
        .map(|name| {
            let mut s = schema.get(name).cloned().unwrap_or_default();
            for (n, role) in &spec.roles {
                if n == name {
                    s.role = Some(*role);
                }
            }
            s
        })
        .collect())
}

/// The columns `only` (all when `None`) of `batches`, in stream order, with their
/// specifications (from [`specs`]) and the file's missing tokens.
pub fn columns(
    spec: &ReadSpec,
    fields: &[String],
    specs: &[ColumnSpec],
    batches: &[RecordBatch],
    only: Option<&[String]>,
) -> Result<Vec<Column>, DataError> {
    let file_missing: Vec<String> = spec
        .schema
        .as_ref()
        .and_then(|s| s.missing.clone())
        .unwrap_or_else(|| DEFAULT_MISSING.iter().map(|s| s.to_string()).collect());
    let nrows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let wanted: Vec<usize> = (0..fields.len())
        .filter(|&j| only.is_none_or(|o| o.contains(&fields[j])))
        .collect();
    wanted
        .par_iter()
        .map(|&j| {
            let arrays: Vec<&ArrayRef> = batches.iter().map(|b| b.column(j)).collect();
            let at = At {
                label: &spec.label,
                name: &fields[j],
                position: j + 1,
            };
            let counted =
                spec.keys_as_codes && specs[j].role == Some(Role::Key) && specs[j].kind.is_none();
            column(
                &at,
                specs[j].clone(),
                &file_missing,
                &arrays,
                nrows,
                counted,
            )
        })
        .collect()
}

/// Where a column is, for messages.
struct At<'a> {
    label: &'a str,
    name: &'a str,
    position: usize,
}

impl At<'_> {
    fn err(&self, row: Option<usize>, message: impl std::fmt::Display) -> DataError {
        DataError::Input {
            location: Location {
                file: self.label.into(),
                line: None,
                column: Some(format!("'{}' ({})", self.name, self.position)),
            },
            message: match row {
                Some(r) => format!("row {}: {message}", r + 1),
                None => message.to_string(),
            },
        }
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

fn is_text(t: &DataType) -> bool {
    matches!(
        t,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Boolean
    )
}

fn is_list(t: &DataType) -> bool {
    matches!(
        t,
        DataType::List(_) | DataType::LargeList(_) | DataType::FixedSizeList(_, _)
    )
}

/// Whether values of this type can be read as cells (scalars, or the items of a list).
fn scalar(t: &DataType) -> bool {
    match t {
        DataType::Null => true,
        DataType::Dictionary(k, v) => is_int(k) && scalar(v) && !is_list(v),
        t => is_int(t) || is_float(t) || is_text(t),
    }
}

fn readable(t: &DataType) -> bool {
    match t {
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            scalar(f.data_type())
        }
        t => scalar(t),
    }
}

/// Calls `f(row, value)` for every integer of an integer array (`None` for nulls and for
/// values past i64).
fn for_ints(a: &dyn Array, mut f: impl FnMut(usize, Option<i64>)) {
    ints!(a.data_type(), each_int, a, &mut f);
}

/// [`for_ints`] for the integer type `T`.
fn each_int<T: ArrowPrimitiveType>(a: &dyn Array, f: &mut impl FnMut(usize, Option<i64>)) {
    let p = a.as_primitive::<T>();
    match p.nulls().filter(|n| n.null_count() > 0) {
        None => {
            for (i, &v) in p.values().iter().enumerate() {
                f(i, v.to_i64());
            }
        }
        Some(nulls) => {
            for ((i, &v), valid) in p.values().iter().enumerate().zip(nulls.iter()) {
                f(i, if valid { v.to_i64() } else { None });
            }
        }
    }
}

/// Calls `f(row, value)` for every value of a float array (`None` for nulls).
fn for_floats(a: &dyn Array, mut f: impl FnMut(usize, Option<f64>)) {
    macro_rules! each {
        ($t:ty, $conv:expr) => {{
            let p = a.as_primitive::<$t>();
            match p.nulls().filter(|n| n.null_count() > 0) {
                None => {
                    for (i, &v) in p.values().iter().enumerate() {
                        f(i, Some($conv(v)));
                    }
                }
                Some(nulls) => {
                    for ((i, &v), valid) in p.values().iter().enumerate().zip(nulls.iter()) {
                        f(i, valid.then(|| $conv(v)));
                    }
                }
            }
        }};
    }
    match a.data_type() {
        DataType::Float16 => each!(
            Float16Type,
            |v: <Float16Type as ArrowPrimitiveType>::Native| { v.to_f64() }
        ),
        DataType::Float32 => each!(Float32Type, |v: f32| v as f64),
        DataType::Float64 => each!(Float64Type, |v: f64| v),
        _ => {}
    }
}

/// Distinct cell texts, each with an id in order of first appearance.
#[derive(Default)]
struct Distinct {
    map: HashMap<Box<[u8]>, u32, FixedState>,
    values: Vec<Box<[u8]>>,
}

impl Distinct {
    fn id(&mut self, bytes: &[u8]) -> u32 {
        if let Some(&c) = self.map.get(bytes) {
            return c;
        }
        let c = self.values.len() as u32;
        self.values.push(bytes.into());
        self.map.insert(bytes.into(), c);
        c
    }

    fn text(&self, id: u32) -> &str {
        // Every value came from Arrow UTF-8 text or from a number written out.
        std::str::from_utf8(&self.values[id as usize]).unwrap_or("")
    }
}

/// Appends to `out` the distinct-value id of each row of a scalar array (`NONE` for nulls).
fn ids(a: &dyn Array, d: &mut Distinct, out: &mut Vec<u32>, at: &At) -> Result<(), DataError> {
    let n = a.len();
    match a.data_type() {
        DataType::Null => out.extend(std::iter::repeat_n(NONE, n)),
        DataType::Utf8 => {
            let s = a.as_string::<i32>();
            out.extend((0..n).map(|i| {
                if s.is_null(i) {
                    NONE
                } else {
                    d.id(s.value(i).as_bytes())
                }
            }));
        }
        DataType::LargeUtf8 => {
            let s = a.as_string::<i64>();
            out.extend((0..n).map(|i| {
                if s.is_null(i) {
                    NONE
                } else {
                    d.id(s.value(i).as_bytes())
                }
            }));
        }
        DataType::Utf8View => {
            let s = a.as_string_view();
            out.extend((0..n).map(|i| {
                if s.is_null(i) {
                    NONE
                } else {
                    d.id(s.value(i).as_bytes())
                }
            }));
        }
        DataType::Boolean => {
            let b = a.as_boolean();
            let (f, t) = (d.id(b"false"), d.id(b"true"));
            out.extend((0..n).map(|i| {
                if b.is_null(i) {
                    NONE
                } else if b.value(i) {
                    t
                } else {
                    f
                }
            }));
        }
        t if is_int(t) => {
            let mut buf = itoa_buf();
            let mut overflow = None;
            let start = out.len();
            out.resize(start + n, NONE);
            for_ints(a, |i, v| match v {
                Some(v) => out[start + i] = d.id(buf.format(v).as_bytes()),
                None if a.is_valid(i) => overflow = overflow.or(Some(i)),
                None => {}
            });
            if let Some(i) = overflow {
                return Err(at.err(Some(i), "the integer does not fit 64 bits"));
            }
        }
        t if is_float(t) => {
            let start = out.len();
            out.resize(start + n, NONE);
            for_floats(a, |i, v| {
                if let Some(x) = v.filter(|x| !x.is_nan()) {
                    out[start + i] = d.id(format_float(x).as_bytes());
                }
            });
        }
        DataType::Dictionary(_, _) => {
            let dict = a.as_any_dictionary();
            // The dictionary's values once, then each row through its key.
            let mut table = Vec::with_capacity(dict.values().len());
            ids(dict.values().as_ref(), d, &mut table, at)?;
            let start = out.len();
            out.resize(start + n, NONE);
            let dst = &mut out[start..];
            let mut bad = None;
            macro_rules! keys {
                ($t:ty) => {{
                    let k = dict.keys().as_primitive::<$t>();
                    let vals = k.values();
                    let mut map = |i: usize, key: usize| match table.get(key) {
                        Some(&c) => dst[i] = c,
                        None => bad = bad.or(Some(i)),
                    };
                    if k.null_count() == 0 {
                        for (i, &key) in vals.iter().enumerate() {
                            map(i, key as usize);
                        }
                    } else {
                        for (i, &key) in vals.iter().enumerate() {
                            if k.is_valid(i) {
                                map(i, key as usize);
                            }
                        }
                    }
                }};
            }
            match dict.keys().data_type() {
                DataType::Int8 => keys!(Int8Type),
                DataType::Int16 => keys!(Int16Type),
                DataType::Int32 => keys!(Int32Type),
                DataType::Int64 => keys!(Int64Type),
                DataType::UInt8 => keys!(UInt8Type),
                DataType::UInt16 => keys!(UInt16Type),
                DataType::UInt32 => keys!(UInt32Type),
                DataType::UInt64 => keys!(UInt64Type),
                t => return Err(at.err(None, format!("dictionary keys of type {t} are not read"))),
            }
            if let Some(i) = bad {
                return Err(at.err(Some(i), "the dictionary key is out of range"));
            }
        }
        t => return Err(unreadable(at, t)),
    }
    Ok(())
}

fn itoa_buf() -> ItoaBuf {
    ItoaBuf(String::new())
}

/// A reusable buffer for writing integers.
struct ItoaBuf(String);
impl ItoaBuf {
    fn format(&mut self, v: i64) -> &str {
        use std::fmt::Write;
        self.0.clear();
        let _ = write!(self.0, "{v}");
        &self.0
    }
}

fn unreadable(at: &At, t: &DataType) -> DataError {
    at.err(
        None,
        format!(
            "Arrow type {t} is not read; expected text, dictionary-encoded text, integers, \
             floats, booleans, or lists of these (set-valued cells)"
        ),
    )
}

/// One column; a key that is only `counted` as categorical codes ([`key_column`]).
fn column(
    at: &At,
    spec: ColumnSpec,
    file_missing: &[String],
    arrays: &[&ArrayRef],
    nrows: usize,
    counted: bool,
) -> Result<Column, DataError> {
    let dtype = arrays
        .first()
        .map_or(DataType::Null, |a| a.data_type().clone());
    if !readable(&dtype) {
        return Err(unreadable(at, &dtype));
    }
    let role = spec.role.unwrap_or(Role::Other);
    let weight = role == Role::Weight;
    let kind = if weight && spec.kind != Some(Kind::Integer) {
        Some(Kind::Float)
    } else if spec.kind.is_none() && matches!(dtype, DataType::Dictionary(_, _)) {
        // Categories stay categories (a pandas category, a polars Categorical or Enum, a
        // pyarrow dictionary), whatever their labels look like: declared categorical, levels
        // ordered as the CSV reader orders a declared categorical column.
        Some(Kind::Categorical)
    } else {
        spec.kind
    };
    let tokens: Vec<String> = spec
        .missing
        .clone()
        .unwrap_or_else(|| file_missing.to_vec());
    let name = at.name.to_string();
    if is_list(&dtype) {
        if !matches!(kind, None | Some(Kind::Set)) {
            return Err(at.err(
                None,
                format!(
                    "a list column holds set-valued cells; the schema declares it {}",
                    kind.map_or("", Kind::as_str)
                ),
            ));
        }
        return list_column(at, &spec, role, &tokens, arrays, nrows);
    }
    if counted && let Some(c) = key_column(at, role, arrays, nrows) {
        return Ok(c);
    }
    if counted && let Some(c) = dictionary_key_column(at, role, &tokens, arrays)? {
        return Ok(c);
    }
    // Numbers read directly (no text), as the CSV reader would infer or was told.
    let direct_int = is_int(&dtype) && matches!(kind, None | Some(Kind::Integer));
    let direct_float = (is_float(&dtype) || is_int(&dtype)) && kind == Some(Kind::Float)
        || is_float(&dtype) && kind.is_none();
    if direct_int {
        let (v, missing) = integers_read_directly(at, arrays, nrows, weight)?;
        return Column::new(name, role, ColumnData::Integer(v), missing);
    }
    if direct_float {
        let (v, missing) = floats_read_directly(at, arrays, nrows, weight)?;
        return Column::new(name, role, ColumnData::Float(v), missing);
    }
    // Everything else through the distinct values.
    let mut cells = Cells::read(at, arrays, nrows, &tokens)?;
    if counted && kind.is_none() && !cells.present.is_empty() {
        let data = cells.inferred_levels(at)?;
        return Column::new(name, role, data, cells.missing);
    }
    let data = match kind {
        None => cells.inferred_data(at)?,
        Some(Kind::Categorical) => cells.categories(at, spec.categories.as_deref())?,
        Some(Kind::Integer) => cells.declared_integers(at, weight)?,
        Some(Kind::Float) => cells.declared_floats(at, weight)?,
        Some(Kind::String) => cells.strings(),
        Some(Kind::Set) => cells.sets(at, &spec)?,
    };
    Column::new(name, role, data, cells.missing)
}

/// An integer column read straight from Arrow integers (a negative weight, or an unsigned
/// integer past 64 bits, is an error naming its row).
fn integers_read_directly(
    at: &At,
    arrays: &[&ArrayRef],
    nrows: usize,
    weight: bool,
) -> Result<(Vec<i64>, Bitmap), DataError> {
    let mut v = vec![0i64; nrows];
    let mut missing = Bitmap::new(nrows);
    let mut base = 0;
    let mut problem: Option<(usize, String)> = None;
    for a in arrays {
        for_ints(a.as_ref(), |i, x| match x {
            Some(x) if weight && x < 0 => {
                problem.get_or_insert((
                    base + i,
                    format!("weight '{x}' is negative; expected a weight ≥ 0"),
                ));
            }
            Some(x) => v[base + i] = x,
            None if a.is_valid(i) => {
                problem.get_or_insert((base + i, "the integer does not fit 64 bits".into()));
            }
            None => missing.set(base + i),
        });
        base += a.len();
    }
    match problem {
        Some((row, m)) => Err(at.err(Some(row), m)),
        None => Ok((v, missing)),
    }
}

/// A float column read straight from Arrow floats or integers (NaN is missing; an infinite
/// value, or a negative weight, is an error naming its row).
fn floats_read_directly(
    at: &At,
    arrays: &[&ArrayRef],
    nrows: usize,
    weight: bool,
) -> Result<(Vec<f64>, Bitmap), DataError> {
    let mut v = vec![f64::NAN; nrows];
    let mut missing = Bitmap::new(nrows);
    let mut base = 0;
    let mut problem: Option<(usize, String)> = None;
    let mut check = |row: usize, x: Option<f64>, v: &mut [f64], missing: &mut Bitmap| match x {
        Some(x) if x.is_nan() => missing.set(row),
        Some(x) if !x.is_finite() || (weight && x < 0.0) => {
            problem.get_or_insert((
                row,
                format!(
                    "expected a finite number{}, found {x}",
                    if weight { " ≥ 0" } else { "" }
                ),
            ));
        }
        Some(x) => v[row] = x,
        None => missing.set(row),
    };
    for a in arrays {
        if is_int(a.data_type()) {
            for_ints(a.as_ref(), |i, x| {
                check(base + i, x.map(|x| x as f64), &mut v, &mut missing)
            });
        } else {
            for_floats(a.as_ref(), |i, x| check(base + i, x, &mut v, &mut missing));
        }
        base += a.len();
    }
    match problem {
        Some((row, m)) => Err(at.err(Some(row), m)),
        None => Ok((v, missing)),
    }
}

/// A column's cells as codes of their distinct texts: missing cells (nulls and the missing
/// tokens) coded `NONE`, the values present, and each present value read as a number.
struct Cells {
    distinct: Distinct,
    codes: Vec<u32>,
    missing: Bitmap,
    present: Vec<u32>,
    parsed: Vec<(Option<i64>, Option<f64>)>,
    nrows: usize,
}

impl Cells {
    /// Codes every cell of `arrays` by its text; a cell equal to one of `tokens` is missing.
    fn read(
        at: &At,
        arrays: &[&ArrayRef],
        nrows: usize,
        tokens: &[String],
    ) -> Result<Cells, DataError> {
        let mut d = Distinct::default();
        let mut codes = Vec::with_capacity(nrows);
        for a in arrays {
            ids(a.as_ref(), &mut d, &mut codes, at)?;
        }
        let missing_value: Vec<bool> = d
            .values
            .iter()
            .map(|v| tokens.iter().any(|t| t.as_bytes() == &v[..]))
            .collect();
        // Missing cells get NONE, and the values actually present are marked.
        let mut used = vec![false; d.values.len()];
        let mut missing = Bitmap::new(nrows);
        for (i, c) in codes.iter_mut().enumerate() {
            if *c != NONE && missing_value[*c as usize] {
                *c = NONE;
            }
            if *c == NONE {
                missing.set(i);
            } else {
                used[*c as usize] = true;
            }
        }
        let present: Vec<u32> = (0..d.values.len() as u32)
            .filter(|&v| used[v as usize])
            .collect();
        let parsed = parse_used(&d, &used);
        Ok(Cells {
            distinct: d,
            codes,
            missing,
            present,
            parsed,
            nrows,
        })
    }

    /// The first row holding value `v` (for messages).
    fn first_row(&self) -> impl Fn(u32) -> Option<usize> + '_ {
        |v| self.codes.iter().position(|&c| c == v)
    }

    /// Whether every present value reads as an integer.
    fn all_int(&self) -> bool {
        self.present
            .iter()
            .all(|&v| self.parsed[v as usize].0.is_some())
    }

    /// Whether every present value reads as a number.
    fn all_num(&self) -> bool {
        self.present
            .iter()
            .all(|&v| self.parsed[v as usize].1.is_some())
    }

    /// A value per row from a value per distinct text (0 for missing cells).
    fn per_row<T: Copy>(&self, missing: T, table: impl Fn(u32) -> T) -> Vec<T> {
        self.codes
            .iter()
            .map(|&c| if c == NONE { missing } else { table(c) })
            .collect()
    }

    /// The cells as categories in the CSV reader's level order (`declared`, else numeric,
    /// else text); the codes move into the column.
    fn categories(
        &mut self,
        at: &At,
        declared: Option<&[String]>,
    ) -> Result<ColumnData, DataError> {
        let (levels, remap) = level_order(
            at,
            &self.distinct,
            &self.present,
            declared,
            &self.first_row(),
        )?;
        Ok(categorical(std::mem::take(&mut self.codes), levels, &remap))
    }

    /// A key column counted by its levels, as the CSV reader infers them: integers, else
    /// numbers in numeric order, else every distinct text.
    fn inferred_levels(&mut self, at: &At) -> Result<ColumnData, DataError> {
        let parsed = &self.parsed;
        let (levels, remap) = if self.all_int() {
            number_levels(&self.present, |v| parsed[v as usize].0.map(Num::Int))
        } else if self.all_num() {
            number_levels(&self.present, |v| parsed[v as usize].1.map(Num::Float))
        } else {
            // Text (the CSV reader's strings or categories): every distinct text is a level.
            return self.categories(at, None);
        };
        Ok(categorical(std::mem::take(&mut self.codes), levels, &remap))
    }

    /// The column's data with no declared kind, inferred as the CSV reader infers it:
    /// integers, numbers, free text (over 1,000 distinct values, most of them unique), else
    /// categories.
    fn inferred_data(&mut self, at: &At) -> Result<ColumnData, DataError> {
        let non_missing = self.nrows - self.missing.count_ones();
        let distinct = self.present.len();
        let parsed = &self.parsed;
        Ok(if distinct > 0 && self.all_int() {
            ColumnData::Integer(self.per_row(0, |c| parsed[c as usize].0.unwrap_or(0)))
        } else if distinct > 0 && self.all_num() {
            ColumnData::Float(self.per_row(f64::NAN, |c| parsed[c as usize].1.unwrap_or(f64::NAN)))
        } else if distinct > 1000 && distinct * 2 > non_missing {
            self.strings()
        } else {
            self.categories(at, None)?
        })
    }

    /// The column declared integer: each present text an integer (or a whole number).
    fn declared_integers(&self, at: &At, weight: bool) -> Result<ColumnData, DataError> {
        let d = &self.distinct;
        let first_row = self.first_row();
        let mut ints = vec![0i64; d.values.len()];
        for &v in &self.present {
            let t = d.text(v).trim();
            let x = t.parse::<i64>().ok().or_else(|| {
                t.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && x.fract() == 0.0 && x.abs() < 9.0e15)
                    .map(|x| x as i64)
            });
            match x {
                Some(i) if weight && i < 0 => {
                    return Err(at.err(
                        first_row(v),
                        format!("weight '{}' is negative; expected a weight ≥ 0", d.text(v)),
                    ));
                }
                Some(i) => ints[v as usize] = i,
                None => {
                    return Err(at.err(
                        first_row(v),
                        format!("expected an integer, found '{}'", d.text(v)),
                    ));
                }
            }
        }
        Ok(ColumnData::Integer(self.per_row(0, |c| ints[c as usize])))
    }

    /// The column declared float: each present text a finite number (≥ 0 for a weight).
    fn declared_floats(&self, at: &At, weight: bool) -> Result<ColumnData, DataError> {
        let d = &self.distinct;
        let first_row = self.first_row();
        let mut nums = vec![0f64; d.values.len()];
        for &v in &self.present {
            let text = d.text(v);
            match text.trim().parse::<f64>() {
                Ok(x) if !x.is_finite() => {
                    return Err(at.err(
                        first_row(v),
                        format!("expected a finite number, found '{text}'"),
                    ));
                }
                Ok(x) if weight && x < 0.0 => {
                    return Err(at.err(
                        first_row(v),
                        format!("weight '{text}' is negative; expected a weight ≥ 0"),
                    ));
                }
                Ok(x) => nums[v as usize] = x,
                Err(_) => {
                    let what = if weight {
                        "a weight (a number ≥ 0)"
                    } else {
                        "a number"
                    };
                    return Err(at.err(first_row(v), format!("expected {what}, found '{text}'")));
                }
            }
        }
        Ok(ColumnData::Float(
            self.per_row(f64::NAN, |c| nums[c as usize]),
        ))
    }

    /// The cells as free text (missing cells empty).
    fn strings(&self) -> ColumnData {
        ColumnData::String(
            self.codes
                .iter()
                .map(|&c| {
                    if c == NONE {
                        String::new()
                    } else {
                        self.distinct.text(c).to_string()
                    }
                })
                .collect(),
        )
    }

    /// The column declared set-valued: each text split at the separator into candidates.
    fn sets(&self, at: &At, spec: &ColumnSpec) -> Result<ColumnData, DataError> {
        let d = &self.distinct;
        let first_row = self.first_row();
        let sep = spec.separator.clone().unwrap_or_else(|| "|".into());
        let mut parts = Distinct::default();
        let mut cells: Vec<Vec<u32>> = vec![Vec::new(); d.values.len()];
        for &v in &self.present {
            let text = d.text(v);
            let cell = &mut cells[v as usize];
            for part in text.split(sep.as_str()) {
                if part.is_empty() {
                    return Err(at.err(
                        first_row(v),
                        format!(
                            "empty candidate in set-valued cell '{text}'; expected values separated by '{sep}'"
                        ),
                    ));
                }
                let p = parts.id(part.as_bytes());
                if !cell.contains(&p) {
                    cell.push(p);
                }
            }
        }
        let rows = self.codes.iter().map(|&c| {
            if c == NONE {
                &[][..]
            } else {
                &cells[c as usize][..]
            }
        });
        set_data(
            at,
            &parts,
            rows,
            self.nrows,
            spec.categories.as_deref(),
            &first_row,
        )
    }
}

/// Level order of the CSV reader: declared order, else numeric order when every level is a
/// number (ties by text), else text order. Returns the levels and the level of each distinct
/// value (`NONE` for values not among them).
fn level_order(
    at: &At,
    d: &Distinct,
    present: &[u32],
    declared: Option<&[String]>,
    first_row: &dyn Fn(u32) -> Option<usize>,
) -> Result<(Vec<String>, Vec<u32>), DataError> {
    let mut remap = vec![NONE; d.values.len()];
    if let Some(cats) = declared {
        let index: HashMap<&str, u32> = cats
            .iter()
            .enumerate()
            .map(|(i, c)| (c.as_str(), i as u32))
            .collect();
        for &v in present {
            match index.get(d.text(v)) {
                Some(&l) => remap[v as usize] = l,
                None => {
                    let shown: Vec<&str> = cats.iter().take(20).map(String::as_str).collect();
                    return Err(at.err(
                        first_row(v),
                        format!(
                            "'{}' is not one of the declared categories [{}]",
                            d.text(v),
                            shown.join(", ")
                        ),
                    ));
                }
            }
        }
        return Ok((cats.to_vec(), remap));
    }
    let num = |v: u32| -> Option<f64> {
        let t = d.text(v).trim();
        t.parse::<i64>()
            .ok()
            .map(|i| i as f64)
            .or_else(|| t.parse::<f64>().ok().filter(|x| x.is_finite()))
    };
    let mut order: Vec<u32> = present.to_vec();
    if order.iter().all(|&v| num(v).is_some()) {
        order.sort_by(|&a, &b| {
            num(a)
                .unwrap_or(0.0)
                .total_cmp(&num(b).unwrap_or(0.0))
                .then_with(|| d.values[a as usize].cmp(&d.values[b as usize]))
        });
    } else {
        order.sort_by(|&a, &b| d.values[a as usize].cmp(&d.values[b as usize]));
    }
    for (l, &v) in order.iter().enumerate() {
        remap[v as usize] = l as u32;
    }
    Ok((
        order.iter().map(|&v| d.text(v).to_string()).collect(),
        remap,
    ))
}

/// A number as the CSV reader types it: an integer, or a float (`-0` = `0`).
#[derive(Clone, Copy)]
enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn cmp(self, other: Num) -> std::cmp::Ordering {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => a.cmp(&b),
            (a, b) => a.float().total_cmp(&b.float()),
        }
    }

    fn float(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(x) if x == 0.0 => 0.0,
            Num::Float(x) => x,
        }
    }

    fn label(self) -> String {
        match self {
            Num::Int(i) => i.to_string(),
            Num::Float(x) => format_float(if x == 0.0 { 0.0 } else { x }),
        }
    }
}

/// Levels of distinct values that are all numbers: one level per number (so `1` and `1.0`, or
/// `0` and `-0`, are one level, as they are one value of a numeric column), in numeric order.
/// Returns the levels and the level of each distinct value (`NONE` for values not present).
/// Each distinct value that occurs (`used`) read as an integer and as a finite number (the
/// reader's inference rules); values that do not occur are `(None, None)`.
fn parse_used(d: &Distinct, used: &[bool]) -> Vec<(Option<i64>, Option<f64>)> {
    (0..d.values.len() as u32)
        .map(|v| {
            if !used[v as usize] {
                return (None, None);
            }
            let t = d.text(v).trim();
            let int = t.parse::<i64>().ok();
            let num = int
                .map(|i| i as f64)
                .or_else(|| t.parse::<f64>().ok().filter(|x| x.is_finite()));
            (int, num)
        })
        .collect()
}

fn number_levels(present: &[u32], num: impl Fn(u32) -> Option<Num>) -> (Vec<String>, Vec<u32>) {
    let mut order: Vec<(Num, u32)> = present
        .iter()
        .filter_map(|&v| num(v).map(|x| (x, v)))
        .collect();
    order.sort_by(|a, b| a.0.cmp(b.0));
    let len = present.iter().max().map_or(0, |&m| m as usize + 1);
    let mut remap = vec![NONE; len];
    let mut levels: Vec<String> = Vec::new();
    let mut last: Option<Num> = None;
    for (x, v) in order {
        if last.is_none_or(|l| l.cmp(x) != std::cmp::Ordering::Equal) {
            levels.push(x.label());
            last = Some(x);
        }
        remap[v as usize] = levels.len() as u32 - 1;
    }
    (levels, remap)
}

/// How a key that is only counted becomes level codes, without a per-row array: each batch's
/// array with a table from its values (offset from the minimum, or dictionary entries) to level
/// codes (`NONE`: missing). Read block by block as a [`CodeSource`] (the risk measures count
/// the classes from it directly), or made into a categorical [`Column`].
pub struct KeyPlan {
    levels: Vec<String>,
    /// An upper bound on the codes + 1: the number of levels, or the span of the values.
    card: u32,
    batches: Vec<PlanBatch>,
    /// The first row of each batch.
    starts: Vec<usize>,
    luts: Vec<Vec<u32>>,
    nrows: usize,
}

struct PlanBatch {
    array: ArrayRef,
    how: How,
    /// Index into [`KeyPlan::luts`].
    lut: usize,
}

#[derive(Clone, Copy)]
enum How {
    /// Integers: the table is indexed by value − `lo`.
    Ints(i64),
    /// Whole-number floats: the table is indexed by value − `lo`; NaN is missing.
    Floats(i64),
    /// Dictionary keys: the table is indexed by the key.
    Dict,
}

const _: () = assert!(
    NONE == MISSING,
    "a plan's missing code is the key codes' MISSING"
);

impl KeyPlan {
    fn new(
        levels: Vec<String>,
        arrays: &[&ArrayRef],
        hows: Vec<(How, usize)>,
        luts: Vec<Vec<u32>>,
    ) -> KeyPlan {
        let mut starts = Vec::with_capacity(arrays.len());
        let mut nrows = 0;
        for a in arrays {
            starts.push(nrows);
            nrows += a.len();
        }
        KeyPlan {
            card: levels.len() as u32,
            levels,
            batches: arrays
                .iter()
                .zip(hows)
                .map(|(a, (how, lut))| PlanBatch {
                    array: (*a).clone(),
                    how,
                    lut,
                })
                .collect(),
            starts,
            luts,
            nrows,
        }
    }

    /// The categorical column of the plan's level codes.
    fn column(&self, at: &At, role: Role) -> Result<Column, DataError> {
        const ROWS: usize = 1 << 16;
        let mut codes = vec![NONE; self.nrows];
        codes
            .par_chunks_mut(ROWS)
            .enumerate()
            .for_each(|(b, out)| self.fill(b * ROWS, out));
        // Missing cells: placeholder 0.
        let mut missing = Bitmap::new(self.nrows);
        for (i, c) in codes.iter_mut().enumerate() {
            if *c == NONE {
                *c = 0;
                missing.set(i);
            }
        }
        Column::new(
            at.name,
            role,
            ColumnData::Categorical {
                codes,
                levels: self.levels.clone(),
            },
            missing,
        )
    }
}

impl PlanBatch {
    /// Level codes of rows `off .. off + out.len()` of this batch.
    fn fill(&self, off: usize, out: &mut [u32], lut: &[u32]) {
        match self.how {
            How::Ints(lo) => {
                let a = self.array.as_ref();
                // Wrapping: (x − lo) for every x ≥ lo, and lo ≤ every observed value.
                let sub = lo as usize;
                let done = ints!(a.data_type(), map_through, a, off, out, lut, sub);
                debug_assert!(done, "an integer array");
            }
            How::Floats(lo) => {
                let a = self.array.slice(off, out.len());
                out.fill(NONE);
                // NaN is missing; every other value is a whole number in the table's range.
                for_floats(a.as_ref(), |i, x| {
                    if let Some(x) = x.filter(|x| !x.is_nan()) {
                        out[i] = lut[(x as i64 - lo) as usize];
                    }
                })
            }
            How::Dict => {
                let keys = self.array.as_any_dictionary().keys();
                let done = ints!(keys.data_type(), map_through, keys, off, out, lut, 0);
                debug_assert!(done, "dictionary keys of an integer type");
            }
        }
    }
}

/// Calls `$f::<T>($args…)` for the Arrow integer type `T` of `$dtype`: `true`, or `false` when
/// `$dtype` is not an integer type.
macro_rules! ints {
    ($dtype:expr, $f:ident, $($arg:expr),*) => {
        match $dtype {
            DataType::Int8 => { $f::<Int8Type>($($arg),*); true }
            DataType::Int16 => { $f::<Int16Type>($($arg),*); true }
            DataType::Int32 => { $f::<Int32Type>($($arg),*); true }
            DataType::Int64 => { $f::<Int64Type>($($arg),*); true }
            DataType::UInt8 => { $f::<UInt8Type>($($arg),*); true }
            DataType::UInt16 => { $f::<UInt16Type>($($arg),*); true }
            DataType::UInt32 => { $f::<UInt32Type>($($arg),*); true }
            DataType::UInt64 => { $f::<UInt64Type>($($arg),*); true }
            _ => false,
        }
    };
}
use ints;

/// Rows `off .. off + out.len()` of an integer array through `lut` at (value − `sub`, wrapping):
/// `NONE` where that falls outside the table and at nulls (whatever their slot holds).
fn map_through<T: ArrowPrimitiveType>(
    a: &dyn Array,
    off: usize,
    out: &mut [u32],
    lut: &[u32],
    sub: usize,
) {
    let p = a.as_primitive::<T>();
    let vals = &p.values()[off..off + out.len()];
    for (o, &x) in out.iter_mut().zip(vals) {
        *o = lut
            .get(x.as_usize().wrapping_sub(sub))
            .copied()
            .unwrap_or(NONE);
    }
    if let Some(nulls) = p.nulls().filter(|n| n.null_count() > 0) {
        let valid = nulls.inner().slice(off, out.len());
        for (w, word) in valid.bit_chunks().iter_padded().enumerate() {
            let mut null = !word;
            while null != 0 {
                let i = w * 64 + null.trailing_zeros() as usize;
                null &= null - 1;
                if let Some(o) = out.get_mut(i) {
                    *o = NONE;
                }
            }
        }
    }
}

/// Marks in `used` (one more slot than the dictionary has entries, for keys out of range) the
/// entries that the valid keys of `keys` name.
fn mark_keys<T: ArrowPrimitiveType>(keys: &dyn Array, used: &mut [bool]) {
    let p = keys.as_primitive::<T>();
    let last = used.len() - 1;
    let vals = p.values();
    match p.nulls().filter(|n| n.null_count() > 0) {
        None => {
            for &x in vals.iter() {
                used[x.as_usize().min(last)] = true;
            }
        }
        Some(nulls) => {
            let words = nulls.inner().bit_chunks();
            for (c, w) in vals.chunks(64).zip(words.iter_padded()) {
                if w == u64::MAX {
                    for &x in c {
                        used[x.as_usize().min(last)] = true;
                    }
                } else {
                    for (j, &x) in c.iter().enumerate() {
                        if w >> j & 1 == 1 {
                            used[x.as_usize().min(last)] = true;
                        }
                    }
                }
            }
        }
    }
}

impl CodeSource for KeyPlan {
    fn len(&self) -> usize {
        self.nrows
    }
    fn card(&self) -> u32 {
        self.card
    }
    fn fill(&self, start: usize, out: &mut [u32]) {
        let mut b = self
            .starts
            .partition_point(|&s| s <= start)
            .saturating_sub(1);
        let (mut row, mut done) = (start, 0);
        while done < out.len() {
            let batch = &self.batches[b];
            let off = row - self.starts[b];
            let take = (batch.array.len() - off).min(out.len() - done);
            batch.fill(off, &mut out[done..done + take], &self.luts[batch.lut]);
            done += take;
            row += take;
            b += 1;
        }
    }
}

/// What [`number_plan`] found.
enum NumberPlan {
    Plan(KeyPlan),
    /// Floats that are not all small whole numbers: [`float_key_column`].
    Floats,
    /// The general path must read it.
    No,
}

/// A key that is only counted, read from integer or float arrays as categorical codes: one
/// level per distinct number (`-0` = `0`), in numeric order, with no per-row integers or floats
/// in between. `None` when the general path must read it (dictionary or text arrays, values past
/// i64, infinities, a range of 2²⁴ or more, or no observed value), so that its errors and rules
/// apply.
fn key_column(at: &At, role: Role, arrays: &[&ArrayRef], nrows: usize) -> Option<Column> {
    match number_plan(arrays, true) {
        NumberPlan::Plan(p) => p.column(at, role).ok(),
        NumberPlan::Floats => float_key_column(at, role, arrays, nrows),
        NumberPlan::No => None,
    }
}

/// The plan of [`key_column`]: one pass for the range of the observed values (and whether
/// floats are all whole numbers), one for which values occur — the levels of a column. Without
/// `levels_present` (counting only) the codes are the offsets from the minimum and the
/// cardinality the span, as the command line codes integer keys ([`KeyCodes::of`]), and the
/// second pass is skipped.
fn number_plan(arrays: &[&ArrayRef], levels_present: bool) -> NumberPlan {
    let ints = arrays.iter().all(|a| is_int(a.data_type()));
    let floats = arrays.iter().all(|a| is_float(a.data_type()));
    if !ints && !floats {
        return NumberPlan::No;
    }
    // Pass 1: the range of the observed values (and whether floats are all whole numbers).
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    let (mut ilo, mut ihi) = (i64::MAX, i64::MIN);
    let mut ok = true;
    let mut whole = true;
    for a in arrays {
        if ints {
            for_ints(a.as_ref(), |i, x| match x {
                Some(x) => {
                    ilo = ilo.min(x);
                    ihi = ihi.max(x);
                }
                None if a.is_valid(i) => ok = false,
                None => {}
            });
        } else {
            for_floats(a.as_ref(), |_, x| {
                if let Some(x) = x.filter(|x| !x.is_nan()) {
                    lo = lo.min(x);
                    hi = hi.max(x);
                    whole &= x == x.trunc();
                }
            });
        }
    }
    if floats {
        if lo > hi || !lo.is_finite() || !hi.is_finite() {
            return NumberPlan::No;
        }
        if whole && lo.abs() < 9.0e15 && hi.abs() < 9.0e15 {
            (ilo, ihi) = (lo as i64, hi as i64);
        } else {
            return NumberPlan::Floats;
        }
    }
    if !ok || ilo > ihi || ihi as i128 - ilo as i128 >= 1 << 24 {
        return NumberPlan::No;
    }
    let span = (ihi - ilo) as usize + 1;
    let how = if ints {
        How::Ints(ilo)
    } else {
        How::Floats(ilo)
    };
    if !levels_present {
        // Codes are offsets from the minimum, as the CSV reader's integers are coded for
        // counting (KeyCodes::of): no second pass, no levels.
        let plan = KeyPlan::new(
            Vec::new(),
            arrays,
            vec![(how, 0); arrays.len()],
            vec![(0..span as u32).collect()],
        );
        return NumberPlan::Plan(KeyPlan {
            card: span as u32,
            ..plan
        });
    }
    // Pass 2: which values occur.
    let mut seen = vec![false; span];
    for a in arrays {
        if ints {
            for_ints(a.as_ref(), |_, x| {
                if let Some(x) = x {
                    seen[(x - ilo) as usize] = true;
                }
            });
        } else {
            for_floats(a.as_ref(), |_, x| {
                if let Some(x) = x.filter(|x| !x.is_nan()) {
                    seen[(x as i64 - ilo) as usize] = true;
                }
            });
        }
    }
    // Levels: the values that occur, in order; the table from offset to level code.
    let mut lut = vec![NONE; span];
    let mut levels = Vec::new();
    for (o, _) in seen.iter().enumerate().filter(|(_, s)| **s) {
        lut[o] = levels.len() as u32;
        levels.push((ilo + o as i64).to_string());
    }
    NumberPlan::Plan(KeyPlan::new(
        levels,
        arrays,
        vec![(how, 0); arrays.len()],
        vec![lut],
    ))
}

/// A key that is only counted, from dictionary arrays, in two passes over the keys: which
/// dictionary entries occur, then each key through a table from entry to level code (missing
/// tokens and nulls: missing). Levels as [`column`] makes them for a counted key. `None` when
/// the general path must read it (other arrays, keys out of range, no observed value).
fn dictionary_key_column(
    at: &At,
    role: Role,
    tokens: &[String],
    arrays: &[&ArrayRef],
) -> Result<Option<Column>, DataError> {
    match dictionary_plan(at, tokens, arrays)? {
        Some(p) => Ok(Some(p.column(at, role)?)),
        None => Ok(None),
    }
}

/// The plan of [`dictionary_key_column`]: which entries occur, and per batch the table from
/// entry to level code.
fn dictionary_plan(
    at: &At,
    tokens: &[String],
    arrays: &[&ArrayRef],
) -> Result<Option<KeyPlan>, DataError> {
    if !arrays
        .iter()
        .all(|a| matches!(a.data_type(), DataType::Dictionary(_, _)))
    {
        return Ok(None);
    }
    // Pass 1, per batch: the distinct value of each entry, and the entries that occur.
    let mut d = Distinct::default();
    let mut tables: Vec<Vec<u32>> = Vec::with_capacity(arrays.len());
    let mut used_entries: Vec<Vec<bool>> = Vec::with_capacity(arrays.len());
    for a in arrays {
        let dict = a.as_any_dictionary();
        let mut table = Vec::with_capacity(dict.values().len());
        ids(dict.values().as_ref(), &mut d, &mut table, at)?;
        // One more slot: keys out of range (negative ones wrap there too).
        let mut used = vec![false; table.len() + 1];
        let ok = ints!(dict.keys().data_type(), mark_keys, dict.keys(), &mut used);
        if !ok || used.pop() == Some(true) {
            return Ok(None);
        }
        tables.push(table);
        used_entries.push(used);
    }
    let missing_value: Vec<bool> = d
        .values
        .iter()
        .map(|v| tokens.iter().any(|t| t.as_bytes() == &v[..]))
        .collect();
    let mut used = vec![false; d.values.len()];
    for (table, occurs) in tables.iter().zip(&used_entries) {
        for (&v, &o) in table.iter().zip(occurs) {
            if o && v != NONE && !missing_value[v as usize] {
                used[v as usize] = true;
            }
        }
    }
    let present: Vec<u32> = (0..d.values.len() as u32)
        .filter(|&v| used[v as usize])
        .collect();
    if present.is_empty() {
        return Ok(None);
    }
    let parsed = parse_used(&d, &used);
    let (levels, remap) = if present.iter().all(|&v| parsed[v as usize].0.is_some()) {
        number_levels(&present, |v| parsed[v as usize].0.map(Num::Int))
    } else if present.iter().all(|&v| parsed[v as usize].1.is_some()) {
        number_levels(&present, |v| parsed[v as usize].1.map(Num::Float))
    } else {
        // Only undeclared categories reach here, so no row is ever named.
        level_order(at, &d, &present, None, &|_| None)?
    };
    // Per batch, the table from entry to level code.
    let luts: Vec<Vec<u32>> = tables
        .iter()
        .map(|table| {
            table
                .iter()
                .map(|&v| {
                    if v == NONE || !used[v as usize] {
                        NONE
                    } else {
                        remap[v as usize]
                    }
                })
                .collect()
        })
        .collect();
    let hows = (0..arrays.len()).map(|b| (How::Dict, b)).collect();
    Ok(Some(KeyPlan::new(levels, arrays, hows, luts)))
}

/// The key-code sources of the columns `keys` of `batches`, for counting their classes
/// without a table: a key that is only counted ([`ReadSpec::keys_as_codes`]: role key, type
/// not declared) through its [`KeyPlan`] where it has one, else read as [`column`] reads it and
/// coded as the risk measures code it. `None` when a key is not such a column (unknown, a
/// declared type or role, set-valued cells): the caller then reads the table.
pub fn key_sources(
    spec: &ReadSpec,
    fields: &[String],
    specs: &[ColumnSpec],
    batches: &[RecordBatch],
    keys: &[String],
) -> Result<Option<Vec<Box<dyn CodeSource + Send>>>, DataError> {
    let file_missing: Vec<String> = spec
        .schema
        .as_ref()
        .and_then(|s| s.missing.clone())
        .unwrap_or_else(|| DEFAULT_MISSING.iter().map(|s| s.to_string()).collect());
    let nrows: usize = batches.iter().map(RecordBatch::num_rows).sum();
    let found: Option<Vec<usize>> = keys
        .iter()
        .map(|k| fields.iter().position(|f| f == k))
        .collect();
    let Some(found) = found else {
        return Ok(None);
    };
    let sources: Vec<Option<Box<dyn CodeSource + Send>>> = found
        .par_iter()
        .map(
            |&j| -> Result<Option<Box<dyn CodeSource + Send>>, DataError> {
                let s = &specs[j];
                if !spec.keys_as_codes || s.role != Some(Role::Key) || s.kind.is_some() {
                    return Ok(None);
                }
                let arrays: Vec<&ArrayRef> = batches.iter().map(|b| b.column(j)).collect();
                let dtype = arrays
                    .first()
                    .map_or(DataType::Null, |a| a.data_type().clone());
                if !readable(&dtype) || is_list(&dtype) {
                    return Ok(None);
                }
                let at = At {
                    label: &spec.label,
                    name: &fields[j],
                    position: j + 1,
                };
                let tokens: Vec<String> = s.missing.clone().unwrap_or_else(|| file_missing.clone());
                let owned = |c: Column| -> Option<Box<dyn CodeSource + Send>> {
                    (c.kind() != Kind::Set).then(|| {
                        Box::new(KeyCodes::of(&c, SetCoding::Whole)) as Box<dyn CodeSource + Send>
                    })
                };
                match number_plan(&arrays, false) {
                    NumberPlan::Plan(p) => return Ok(Some(Box::new(p))),
                    NumberPlan::Floats => {
                        if let Some(c) = float_key_column(&at, Role::Key, &arrays, nrows) {
                            return Ok(owned(c));
                        }
                    }
                    NumberPlan::No => {}
                }
                if let Some(p) = dictionary_plan(&at, &tokens, &arrays)? {
                    return Ok(Some(Box::new(p)));
                }
                let c = column(&at, s.clone(), &file_missing, &arrays, nrows, false)?;
                Ok(owned(c))
            },
        )
        .collect::<Result<_, _>>()?;
    Ok(sources.into_iter().collect())
}

/// [`key_column`] for floats that are not all small whole numbers: distinct values by hashing.
fn float_key_column(at: &At, role: Role, arrays: &[&ArrayRef], nrows: usize) -> Option<Column> {
    let mut ids: HashMap<u64, u32, FixedState> = HashMap::default();
    let mut values: Vec<f64> = Vec::new();
    let mut codes = vec![0u32; nrows];
    let mut missing = Bitmap::new(nrows);
    let mut base = 0;
    for a in arrays {
        let out = &mut codes[base..base + a.len()];
        for_floats(a.as_ref(), |i, x| match x.filter(|x| !x.is_nan()) {
            Some(x) => {
                let x = if x == 0.0 { 0.0 } else { x };
                out[i] = *ids.entry(x.to_bits()).or_insert_with(|| {
                    values.push(x);
                    values.len() as u32 - 1
                });
            }
            None => missing.set(base + i),
        });
        base += a.len();
    }
    let present: Vec<u32> = (0..values.len() as u32).collect();
    let (levels, remap) = number_levels(&present, |v| Some(Num::Float(values[v as usize])));
    for (i, c) in codes.iter_mut().enumerate() {
        if !missing.get(i) {
            *c = remap[*c as usize];
        }
    }
    Column::new(
        at.name,
        role,
        ColumnData::Categorical { codes, levels },
        missing,
    )
    .ok()
}

/// A categorical column: `codes` (distinct-value ids) become level codes in place.
fn categorical(mut codes: Vec<u32>, levels: Vec<String>, remap: &[u32]) -> ColumnData {
    for c in codes.iter_mut() {
        *c = if *c == NONE { 0 } else { remap[*c as usize] };
    }
    ColumnData::Categorical { codes, levels }
}

/// A set-valued column from the items of each row (ids into `parts`).
fn set_data<'r>(
    at: &At,
    parts: &Distinct,
    rows: impl Iterator<Item = &'r [u32]>,
    nrows: usize,
    declared: Option<&[String]>,
    first_row: &dyn Fn(u32) -> Option<usize>,
) -> Result<ColumnData, DataError> {
    let present: Vec<u32> = (0..parts.values.len() as u32).collect();
    // An undeclared item's row is not known here; name the first cell instead.
    let (levels, remap) = level_order(at, parts, &present, declared, first_row)?;
    let mut offsets = Vec::with_capacity(nrows + 1);
    offsets.push(0u32);
    let mut items = Vec::new();
    for cell in rows {
        items.extend(cell.iter().map(|&p| remap[p as usize]));
        offsets.push(items.len() as u32);
    }
    Ok(ColumnData::Set {
        offsets,
        items,
        levels,
    })
}

/// A set-valued column from list arrays: each list is a cell (empty or null: missing); item
/// texts follow the scalar rules (missing tokens and nulls among the items are dropped).
fn list_column(
    at: &At,
    spec: &ColumnSpec,
    role: Role,
    tokens: &[String],
    arrays: &[&ArrayRef],
    nrows: usize,
) -> Result<Column, DataError> {
    let mut parts = Distinct::default();
    let mut cells: Vec<Vec<u32>> = Vec::with_capacity(nrows);
    let mut item_ids = Vec::new();
    for a in arrays {
        let (values, bounds): (ArrayRef, Vec<(usize, usize)>) = match a.data_type() {
            DataType::List(_) => {
                let l = a.as_list::<i32>();
                let o = l.value_offsets();
                (
                    l.values().clone(),
                    (0..l.len())
                        .map(|i| (o[i] as usize, o[i + 1] as usize))
                        .collect(),
                )
            }
            DataType::LargeList(_) => {
                let l = a.as_list::<i64>();
                let o = l.value_offsets();
                (
                    l.values().clone(),
                    (0..l.len())
                        .map(|i| (o[i] as usize, o[i + 1] as usize))
                        .collect(),
                )
            }
            DataType::FixedSizeList(_, k) => {
                let l = a.as_fixed_size_list();
                let k = *k as usize;
                (
                    l.values().clone(),
                    (0..l.len()).map(|i| (i * k, (i + 1) * k)).collect(),
                )
            }
            t => return Err(unreadable(at, t)),
        };
        item_ids.clear();
        ids(values.as_ref(), &mut parts, &mut item_ids, at)?;
        for (i, &(s, e)) in bounds.iter().enumerate() {
            let mut cell = Vec::new();
            if a.is_valid(i) {
                for &p in &item_ids[s..e] {
                    if p != NONE && !cell.contains(&p) {
                        cell.push(p);
                    }
                }
            }
            cells.push(cell);
        }
    }
    // Items that are missing tokens are dropped; the others are the levels.
    let mut keep = Distinct::default();
    let dropped: Vec<Option<u32>> = (0..parts.values.len() as u32)
        .map(|p| {
            let bytes = &parts.values[p as usize];
            (!tokens.iter().any(|t| t.as_bytes() == &bytes[..])).then(|| keep.id(bytes))
        })
        .collect();
    for cell in &mut cells {
        *cell = cell.iter().filter_map(|&p| dropped[p as usize]).collect();
    }
    let first_row = |_: u32| None;
    let data = set_data(
        at,
        &keep,
        cells.iter().map(Vec::as_slice),
        nrows,
        spec.categories.as_deref(),
        &first_row,
    )?;
    let mut missing = Bitmap::new(nrows);
    for (i, c) in cells.iter().enumerate() {
        if c.is_empty() {
            missing.set(i);
        }
    }
    Column::new(at.name.to_string(), role, data, missing)
}
