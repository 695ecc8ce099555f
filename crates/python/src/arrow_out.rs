//! The data model → Arrow record batches: categorical columns as dictionary-encoded text with
//! their levels in order, integers as Int64, floats as Float64, text as Utf8, set-valued cells as
//! lists of text; missing cells are nulls. Per-record figures and candidate tables likewise.

use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    ArrayRef, DictionaryArray, Float64Array, Int32Array, Int64Array, LargeStringArray, ListArray,
    RecordBatch, StringArray, UInt32Array,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};

use intruder_data::report::{RecordValues, Records};
use intruder_data::{Bitmap, Column, ColumnData};

/// Validity (Arrow: set = present) from a missing mask (set = missing), word by word.
fn validity(missing: &Bitmap) -> Option<NullBuffer> {
    if missing.count_ones() == 0 {
        return None;
    }
    let words: Vec<u64> = missing.words().iter().map(|w| !w).collect();
    let bits = BooleanBuffer::new(Buffer::from_vec(words), 0, missing.len());
    Some(NullBuffer::new(bits))
}

fn text_array(values: impl Iterator<Item = Option<String>>, bytes: usize) -> ArrayRef {
    if bytes > i32::MAX as usize / 2 {
        Arc::new(values.collect::<LargeStringArray>())
    } else {
        Arc::new(values.collect::<StringArray>())
    }
}

/// One column as an Arrow field and array.
pub fn column_array(c: &Column) -> (Field, ArrayRef) {
    let nulls = validity(c.missing());
    let array: ArrayRef = match c.data() {
        ColumnData::Categorical { codes, levels } => {
            let keys = Int32Array::new(
                codes
                    .iter()
                    .map(|&k| k as i32)
                    .collect::<ScalarBuffer<i32>>(),
                nulls,
            );
            let values = Arc::new(StringArray::from_iter_values(levels.iter()));
            Arc::new(
                DictionaryArray::<Int32Type>::try_new(keys, values)
                    .expect("codes index the levels"),
            )
        }
        ColumnData::Integer(v) => Arc::new(Int64Array::new(ScalarBuffer::from(v.clone()), nulls)),
        ColumnData::Float(v) => Arc::new(Float64Array::new(ScalarBuffer::from(v.clone()), nulls)),
        ColumnData::String(v) => {
            let bytes = v.iter().map(String::len).sum();
            text_array(
                (0..v.len()).map(|i| (!c.is_missing(i)).then(|| v[i].clone())),
                bytes,
            )
        }
        ColumnData::Set {
            offsets, levels, ..
        } => {
            let values = StringArray::from_iter_values(
                (0..c.len()).flat_map(|i| c.set_items(i).iter().map(|&l| &levels[l as usize])),
            );
            let offsets: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
            Arc::new(
                ListArray::try_new(
                    Arc::new(Field::new("item", DataType::Utf8, true)),
                    OffsetBuffer::new(ScalarBuffer::from(offsets)),
                    Arc::new(values),
                    nulls,
                )
                .expect("offsets cover the items"),
            )
        }
    };
    (Field::new(c.name(), array.data_type().clone(), true), array)
}

/// Columns as one record batch.
pub fn columns_batch<'a>(
    columns: impl IntoIterator<Item = &'a Column>,
    nrows: usize,
) -> Result<RecordBatch, ArrowError> {
    let (fields, arrays): (Vec<Field>, Vec<ArrayRef>) =
        columns.into_iter().map(column_array).unzip();
    batch(fields, arrays, nrows)
}

/// A record batch of `fields` (the row count is given for tables without columns).
pub fn batch(
    fields: Vec<Field>,
    arrays: Vec<ArrayRef>,
    nrows: usize,
) -> Result<RecordBatch, ArrowError> {
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    RecordBatch::try_new_with_options(
        schema,
        arrays,
        &arrow_array::RecordBatchOptions::new().with_row_count(Some(nrows)),
    )
}

/// Per-record figures as a batch: `row` (1-based, as in the CSV), then each figure.
pub fn records_batch(records: &Records) -> Result<RecordBatch, ArrowError> {
    let n = records.len();
    let mut fields = vec![Field::new("row", DataType::Int64, false)];
    let mut arrays: Vec<ArrayRef> = vec![Arc::new(Int64Array::from_iter_values(1..=n as i64))];
    for col in records.columns() {
        let array: ArrayRef = match &col.values {
            RecordValues::Count(v) => Arc::new(v.iter().copied().collect::<UInt32Array>()),
            RecordValues::Number(v) => Arc::new(v.iter().copied().collect::<Float64Array>()),
            RecordValues::Text(v) => {
                let bytes = v.iter().flatten().map(String::len).sum();
                text_array(v.iter().cloned(), bytes)
            }
        };
        fields.push(Field::new(&col.name, array.data_type().clone(), true));
        arrays.push(array);
    }
    batch(fields, arrays, n)
}
