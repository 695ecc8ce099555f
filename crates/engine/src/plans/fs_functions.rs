//! Fellegi–Sunter's two functions of a candidate pair's value ids — its packed agreement
//! pattern ([`PATTERN`]) and its match weight ([`WEIGHT`]) — and what they are built from.
//!
//! Both hold the run's state: each comparison's dictionary (to compute a level the first time
//! a value pair is met, and keep it) and, for the weight, the fitted model. In process they
//! are plain closures over it. For a Ballista cluster each also keeps a [`Recipe`] encoded as
//! its payload — the comparisons, the distinct values each dictionary was interned from, the
//! pattern weights and term-frequency adjustments — from which a scheduler or executor builds
//! the same function ([`function_from_payload`]; see [`super::shipped`]): the dictionaries
//! are interned again from the same values in the same order, so a value id means the same
//! value on every process, and the weights are carried bit for bit (Arrow arrays).

use std::io::Cursor;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, Float64Array, Int64Array, RecordBatch, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Schema, UInt32Type, UInt64Type};
use datafusion::arrow::ipc::reader::StreamReader;
use datafusion::arrow::ipc::writer::StreamWriter;
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{ColumnarValue, ScalarUDF};
use datafusion::prelude::{Expr, col};

use intruder_attack::fellegi_sunter::Comparison;
use intruder_attack::fellegi_sunter::compare::Prepared;
use intruder_attack::fellegi_sunter::counted::compared_by_id;
use intruder_attack::fellegi_sunter::encode::MISSING;
use intruder_data::Table;

use super::shipped::{Eval, Shipped};

/// The name of the pattern function in plans.
pub(crate) const PATTERN: &str = "intruder_fs_pattern";

/// The name of the weight function in plans.
pub(crate) const WEIGHT: &str = "intruder_fs_weight";

/// How a pair's level in one comparison is read from its two value ids.
pub(crate) enum Lookup {
    /// Null, exact and else levels: equal ids or not.
    ById { miss: u8, eq: u8, ne: u8 },
    /// Any other comparison: its levels computed with the local engine's definitions
    /// ([`Prepared::level_of_ids`]) the first time a value pair is met, and kept while the
    /// run's [`MemoBudget`] allows (computed each time they are met after that).
    Memo {
        miss: u8,
        p: Box<Prepared>,
        memo: Memo,
    },
}

/// Levels kept by value pair, shared by the engine's threads: a square table over the
/// dictionary when it is small (`u8::MAX`: not computed yet; any thread may fill a cell, it
/// always writes the same level), else a hash map in shards, each growing while the budget
/// grants it room.
pub(crate) enum Memo {
    Dense {
        n: usize,
        cells: Vec<std::sync::atomic::AtomicU8>,
        /// The table's room, held as long as it is.
        _room: MemoBudget,
    },
    Shards {
        shards: Vec<std::sync::Mutex<Shard>>,
        budget: MemoBudget,
    },
    /// Nothing kept: the budget had no room for the dictionary's table.
    None,
}

/// One shard of a [`Memo::Shards`]: its levels, and whether the budget refused it room.
#[derive(Default)]
pub(crate) struct Shard {
    levels: foldhash::HashMap<u64, u8>,
    full: bool,
}

/// Dictionaries of at most this many values squared keep their levels in a square table.
const DENSE_CELLS: usize = 1 << 24;

/// Shards of a [`Memo::Shards`].
const SHARDS: usize = 64;

/// Bytes a hash map of `(u64, u8)` entries takes per bucket (the entry, padded, and its
/// control byte).
const BUCKET_BYTES: usize = 17;

/// The memory the levels kept by value pair may take: under `--memory-limit`, a reservation in
/// the run's DataFusion pool (so that the pool's operators and these tables share the limit)
/// of at most half the limit; else unbounded. The levels met once the budget is spent are
/// computed each time (the same levels, more time).
#[derive(Clone)]
pub(crate) struct MemoBudget(
    Option<Arc<std::sync::Mutex<(datafusion::execution::memory_pool::MemoryReservation, usize)>>>,
);

impl MemoBudget {
    /// No bound (a cluster's executors, and runs without a memory limit).
    pub(crate) fn unbounded() -> MemoBudget {
        MemoBudget(None)
    }

    /// Half of `limit` (bytes), reserved in `pool` as it is used.
    pub(crate) fn within(
        pool: &Arc<dyn datafusion::execution::memory_pool::MemoryPool>,
        limit: Option<u64>,
    ) -> MemoBudget {
        use datafusion::execution::memory_pool::MemoryConsumer;
        MemoBudget(limit.map(|l| {
            let r = MemoryConsumer::new("intruder: Fellegi-Sunter levels kept by value pair")
                .register(pool);
            Arc::new(std::sync::Mutex::new((r, (l / 2) as usize)))
        }))
    }

    /// Whether `bytes` more may be taken (and, if so, reserves them).
    fn grant(&self, bytes: usize) -> bool {
        match &self.0 {
            None => true,
            Some(r) => {
                let mut r = r.lock().expect("the levels' reservation");
                let (reservation, cap) = &mut *r;
                reservation.size() + bytes <= *cap && reservation.try_grow(bytes).is_ok()
            }
        }
    }
}

impl Lookup {
    pub(crate) fn new(p: &Prepared, budget: &MemoBudget) -> Lookup {
        let miss = p.level_of_ids(MISSING, MISSING);
        if let Some((eq, ne)) = compared_by_id(p) {
            return Lookup::ById { miss, eq, ne };
        }
        let n = p.dict.len();
        let memo = if n.saturating_mul(n) <= DENSE_CELLS {
            if budget.grant(n * n) {
                Memo::Dense {
                    n,
                    cells: (0..n * n)
                        .map(|_| std::sync::atomic::AtomicU8::new(u8::MAX))
                        .collect(),
                    _room: budget.clone(),
                }
            } else {
                Memo::None
            }
        } else {
            Memo::Shards {
                shards: (0..SHARDS)
                    .map(|_| std::sync::Mutex::new(Shard::default()))
                    .collect(),
                budget: budget.clone(),
            }
        };
        Lookup::Memo {
            miss,
            p: Box::new(p.clone()),
            memo,
        }
    }

    #[inline]
    fn level(&self, x: u32, y: u32) -> u8 {
        use std::sync::atomic::Ordering::Relaxed;
        match self {
            Lookup::ById { miss, eq, ne } => {
                if x == MISSING || y == MISSING {
                    *miss
                } else if x == y {
                    *eq
                } else {
                    *ne
                }
            }
            Lookup::Memo { miss, .. } if x == MISSING || y == MISSING => *miss,
            Lookup::Memo { p, memo, .. } => match memo {
                Memo::Dense { n, cells, .. } => {
                    let cell = &cells[x as usize * n + y as usize];
                    match cell.load(Relaxed) {
                        u8::MAX => {
                            let l = p.level_of_ids(x, y);
                            cell.store(l, Relaxed);
                            l
                        }
                        l => l,
                    }
                }
                Memo::Shards { shards, budget } => {
                    let key = (u64::from(x) << 32) | u64::from(y);
                    let shard = &shards[(key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize];
                    if let Some(&l) = shard.lock().expect("a memo shard").levels.get(&key) {
                        return l;
                    }
                    let l = p.level_of_ids(x, y);
                    let mut s = shard.lock().expect("a memo shard");
                    if s.full {
                        return l;
                    }
                    let (len, cap) = (s.levels.len(), s.levels.capacity());
                    if len == cap {
                        // the map doubles its buckets on this insert: room asked first
                        let buckets = if cap == 0 {
                            0
                        } else {
                            (cap * 8 / 7).next_power_of_two()
                        };
                        let more = (buckets * 2).max(4) - buckets;
                        if !budget.grant(more * BUCKET_BYTES) {
                            s.full = true;
                            return l;
                        }
                    }
                    s.levels.insert(key, l);
                    l
                }
                Memo::None => p.level_of_ids(x, y),
            },
        }
    }
}

impl Lookup {
    /// The ids a record gives the comparison ([`Prepared::width`]).
    fn width(&self) -> usize {
        match self {
            Lookup::ById { .. } => 1,
            Lookup::Memo { p, .. } => p.width(),
        }
    }

    /// The level of a pair from its slot of ids: the intruder record's [`width`](Self::width)
    /// ids, then the released record's; `columns-reversed` levels applied.
    #[inline]
    fn level_at(&self, slot: &[u32]) -> u8 {
        match self {
            Lookup::Memo { p, .. } if !p.reversed.is_empty() => {
                let (a, b) = slot.split_at(p.width());
                let base = self.level(a[0], b[0]);
                p.apply_reversed(
                    base,
                    a[0],
                    b[1..].iter().copied(),
                    b[0],
                    a[1..].iter().copied(),
                )
            }
            _ => self.level(slot[0], slot[1]),
        }
    }
}

/// The names of the id columns one side (`"a"` or `"b"`) gives comparison `k` of width
/// `width`: its value's (`ia{k}`), then each `columns-reversed` level's other column's
/// (`ra{k}_{r}`).
pub(crate) fn side_columns(side: &str, k: usize, width: usize) -> Vec<String> {
    std::iter::once(format!("i{side}{k}"))
        .chain((1..width).map(|r| format!("r{side}{k}_{}", r - 1)))
        .collect()
}

/// The id columns of every comparison, each comparison's slot in turn: the intruder's
/// ([`side_columns`] `"a"`), then the released file's (`"b"`).
pub(crate) fn id_columns(lookups: &[Lookup]) -> Vec<Expr> {
    lookups
        .iter()
        .enumerate()
        .flat_map(|(k, l)| {
            let w = l.width();
            side_columns("a", k, w)
                .into_iter()
                .chain(side_columns("b", k, w))
        })
        .map(col)
        .collect()
}

/// Where each comparison's slot starts among a pair's ids, and the ids in all.
fn slots(lookups: &[Lookup]) -> (Vec<usize>, usize) {
    let mut at = Vec::with_capacity(lookups.len());
    let mut n = 0;
    for l in lookups {
        at.push(n);
        n += 2 * l.width();
    }
    (at, n)
}

/// The packed pattern (4 bits a comparison) of a pair's ids (each comparison's slot in turn).
fn pattern_of(lookups: &[Lookup], ids: &[u32]) -> u64 {
    let mut at = 0;
    lookups.iter().enumerate().fold(0u64, |acc, (c, l)| {
        let w = 2 * l.width();
        let level = l.level_at(&ids[at..at + w]);
        at += w;
        acc | (u64::from(level) << (4 * c))
    })
}

/// What the functions are built from: per comparison, the values it was interned from
/// ([`Interned`]); for the weight, the model's part that weighs a pair.
#[derive(Clone)]
pub(crate) struct Recipe {
    /// The intruder's and the released file's names (for errors).
    pub labels: (String, String),
    /// Each comparison's values.
    pub comparisons: Vec<Interned>,
    /// `prior + Σ level weights` by packed pattern, and per comparison with term
    /// frequencies its exact level and the adjustment by value id.
    pub weights: Option<Weights>,
}

/// The part of a fitted model that weighs a pair.
#[derive(Clone)]
pub(crate) struct Weights {
    /// `prior + Σ level weights` by packed pattern.
    pub base: Vec<(u64, f64)>,
    /// Per comparison with term frequencies: its exact level and the adjustment by value id.
    pub tf: Vec<Option<(usize, Vec<f64>)>>,
}

/// A comparison with the distinct values of either file its dictionary is interned from, in
/// the order they are interned (as [`Prepared::with_names`] interns records).
#[derive(Clone)]
pub(crate) struct Interned {
    /// The comparison.
    pub comparison: Comparison,
    /// Its released column's name.
    pub released: String,
    /// The intruder's distinct values.
    pub a: ArrayRef,
    /// The released file's distinct values.
    pub b: ArrayRef,
    /// The other column of each `columns-reversed` level, in the levels' order (a column
    /// once): its names in either file, its distinct values in either file.
    pub others: Vec<((String, String), ArrayRef, ArrayRef)>,
}

impl Interned {
    /// The comparison's dictionary: one table per file of the distinct values (each column
    /// padded with nulls, which are not interned, to the longest), interned as the local
    /// engine interns the records.
    pub(crate) fn prepared(
        &self,
        labels: &(String, String),
    ) -> std::result::Result<Prepared, String> {
        let c = &self.comparison;
        let table = |label: &str, own: (&str, &ArrayRef), others: Vec<(&str, &ArrayRef)>| {
            let mut cols: Vec<(&str, &ArrayRef)> = vec![own];
            for o in others {
                if !cols.iter().any(|x| x.0 == o.0) {
                    cols.push(o);
                }
            }
            let n = cols.iter().map(|x| x.1.len()).max().unwrap_or(0);
            let columns = cols
                .into_iter()
                .map(|(name, v)| {
                    let pad = datafusion::arrow::array::new_null_array(v.data_type(), n - v.len());
                    let v = datafusion::arrow::compute::concat(&[v.as_ref(), pad.as_ref()])
                        .map_err(|e| e.to_string())?;
                    super::linkage::column_of(name, &v)
                        .map_err(|e| format!("{label}: column '{name}': {e}"))
                })
                .collect::<std::result::Result<Vec<_>, String>>()?;
            Table::new(label, columns).map_err(|e| e.to_string())
        };
        let ta = table(
            &labels.0,
            (&c.column, &self.a),
            self.others.iter().map(|o| (o.0.0.as_str(), &o.1)).collect(),
        )?;
        let tb = table(
            &labels.1,
            (&self.released, &self.b),
            self.others.iter().map(|o| (o.0.1.as_str(), &o.2)).collect(),
        )?;
        let released_of = |name: &str| {
            self.others
                .iter()
                .find(|o| o.0.0 == name)
                .map_or(name.to_string(), |o| o.0.1.clone())
        };
        Prepared::with_names(c, &ta, &tb, &self.released, &released_of).map_err(|e| e.to_string())
    }
}

/// A comparison in a [`Header`]: it, its released column, and the names in either file of
/// its `columns-reversed` levels' other columns.
type Named = (Comparison, String, Vec<(String, String)>);

/// The header of an encoded [`Recipe`] (its arrays follow as Arrow IPC streams).
#[derive(serde::Serialize, serde::Deserialize)]
struct Header {
    labels: (String, String),
    comparisons: Vec<Named>,
    /// Per comparison, its exact level when it has term-frequency adjustments; absent: no
    /// weights.
    tf_levels: Option<Vec<Option<usize>>>,
}

/// The version tag of the encoding.
const MAGIC: &[u8; 4] = b"IFS1";

fn bad(what: impl std::fmt::Display) -> DataFusionError {
    DataFusionError::Plan(format!(
        "a Fellegi–Sunter function's payload cannot be read ({what}): are the client, scheduler and executors one version of the toolkit?"
    ))
}

/// One Arrow IPC stream of `columns` (one batch).
fn ipc(columns: Vec<(&str, ArrayRef)>) -> Result<Vec<u8>> {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, a)| Field::new(*n, a.data_type().clone(), true))
            .collect::<Vec<_>>(),
    ));
    let batch = RecordBatch::try_new(schema.clone(), columns.into_iter().map(|c| c.1).collect())?;
    let mut out = Vec::new();
    let mut w = StreamWriter::try_new(&mut out, &schema)?;
    w.write(&batch)?;
    w.finish()?;
    drop(w);
    Ok(out)
}

/// The columns of one Arrow IPC stream (its batches concatenated).
fn from_ipc(bytes: &[u8]) -> Result<Vec<ArrayRef>> {
    let r = StreamReader::try_new(Cursor::new(bytes), None)?;
    let schema = r.schema();
    let batches = r.collect::<std::result::Result<Vec<_>, _>>()?;
    let b = datafusion::arrow::compute::concat_batches(&schema, &batches)?;
    Ok(b.columns().to_vec())
}

impl Recipe {
    /// The recipe encoded: `IFS1`, the header's length (u32 LE) and JSON, then each blob's
    /// length (u64 LE) and bytes: per comparison its intruder and released values, then with
    /// weights the patterns and their weights, then each term-frequency adjustment.
    pub(crate) fn encode(&self) -> Result<Vec<u8>> {
        let header = Header {
            labels: self.labels.clone(),
            comparisons: self
                .comparisons
                .iter()
                .map(|x| {
                    let names = x.others.iter().map(|o| o.0.clone()).collect();
                    (x.comparison.clone(), x.released.clone(), names)
                })
                .collect(),
            tf_levels: self
                .weights
                .as_ref()
                .map(|w| w.tf.iter().map(|t| t.as_ref().map(|x| x.0)).collect()),
        };
        let mut blobs = Vec::new();
        for x in &self.comparisons {
            let others = x.others.iter().map(|o| (&o.1, &o.2));
            for (a, b) in std::iter::once((&x.a, &x.b)).chain(others) {
                blobs.push(ipc(vec![("v", a.clone())])?);
                blobs.push(ipc(vec![("v", b.clone())])?);
            }
        }
        if let Some(w) = &self.weights {
            blobs.push(ipc(vec![
                (
                    "pattern",
                    Arc::new(UInt64Array::from_iter_values(w.base.iter().map(|x| x.0))) as ArrayRef,
                ),
                (
                    "weight",
                    Arc::new(Float64Array::from_iter_values(w.base.iter().map(|x| x.1))),
                ),
            ])?);
            for (_, adj) in w.tf.iter().flatten() {
                blobs.push(ipc(vec![(
                    "adj",
                    Arc::new(Float64Array::from(adj.clone())) as ArrayRef,
                )])?);
            }
        }
        let json = serde_json::to_vec(&header).map_err(bad)?;
        let mut out =
            Vec::with_capacity(8 + json.len() + blobs.iter().map(|b| 8 + b.len()).sum::<usize>());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(&json);
        for b in blobs {
            out.extend_from_slice(&(b.len() as u64).to_le_bytes());
            out.extend_from_slice(&b);
        }
        Ok(out)
    }

    /// A recipe from its [encoding](Self::encode).
    pub(crate) fn decode(bytes: &[u8]) -> Result<Recipe> {
        let rest = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or_else(|| bad("no IFS1 tag"))?;
        let take = |rest: &mut &[u8], n: usize| -> Result<Vec<u8>> {
            if rest.len() < n {
                return Err(bad("truncated"));
            }
            let (x, y) = rest.split_at(n);
            *rest = y;
            Ok(x.to_vec())
        };
        let mut rest = rest;
        let n = u32::from_le_bytes(take(&mut rest, 4)?.try_into().expect("4 bytes")) as usize;
        let header: Header = serde_json::from_slice(&take(&mut rest, n)?).map_err(bad)?;
        let mut blob = || -> Result<Vec<ArrayRef>> {
            let n = u64::from_le_bytes(take(&mut rest, 8)?.try_into().expect("8 bytes"));
            from_ipc(&take(&mut rest, usize::try_from(n).map_err(bad)?)?)
        };
        let column = |cols: Vec<ArrayRef>, at: usize| -> Result<ArrayRef> {
            cols.get(at).cloned().ok_or_else(|| bad("a column missing"))
        };
        let floats = |a: &ArrayRef| -> Result<Vec<f64>> {
            a.as_primitive_opt::<Float64Type>()
                .filter(|x| x.null_count() == 0)
                .map(|x| x.values().to_vec())
                .ok_or_else(|| bad("weights not a column of numbers"))
        };
        let mut comparisons = Vec::with_capacity(header.comparisons.len());
        for (comparison, released, names) in header.comparisons {
            let a = column(blob()?, 0)?;
            let b = column(blob()?, 0)?;
            let mut others = Vec::with_capacity(names.len());
            for n in names {
                others.push((n, column(blob()?, 0)?, column(blob()?, 0)?));
            }
            comparisons.push(Interned {
                comparison,
                released,
                a,
                b,
                others,
            });
        }
        let weights = match header.tf_levels {
            None => None,
            Some(levels) if levels.len() != comparisons.len() => {
                return Err(bad("term frequencies not one per comparison"));
            }
            Some(levels) => {
                let base = blob()?;
                let p = column(base.clone(), 0)?;
                let p = p
                    .as_primitive_opt::<UInt64Type>()
                    .filter(|x| x.null_count() == 0)
                    .ok_or_else(|| bad("patterns not a column of numbers"))?;
                let w = floats(&column(base, 1)?)?;
                if p.len() != w.len() {
                    return Err(bad("patterns and weights of different lengths"));
                }
                let base = p.values().iter().copied().zip(w).collect();
                let mut tf = Vec::with_capacity(levels.len());
                for l in levels {
                    tf.push(match l {
                        None => None,
                        Some(exact) => Some((exact, floats(&column(blob()?, 0)?)?)),
                    });
                }
                Some(Weights { base, tf })
            }
        };
        if !rest.is_empty() {
            return Err(bad("bytes left over"));
        }
        Ok(Recipe {
            labels: header.labels,
            comparisons,
            weights,
        })
    }

    /// Each comparison's dictionary, interned again from the values (as the driver did).
    pub(crate) fn prepared(&self) -> Result<Vec<Prepared>> {
        self.comparisons
            .iter()
            .map(|x| x.prepared(&self.labels).map_err(bad))
            .collect()
    }
}

/// `f` of each row's `n` ids ([`id_columns`]) as a column.
fn id_eval<T, A>(n: usize, f: impl Fn(&[u32]) -> Option<T> + Send + Sync + 'static) -> Arc<Eval>
where
    A: Array + FromIterator<Option<T>> + 'static,
{
    Arc::new(move |args: &[ColumnarValue]| {
        let arrays = ColumnarValue::values_to_arrays(args)?;
        let ids: Vec<&[u32]> = arrays
            .iter()
            .map(|a| a.as_primitive::<UInt32Type>().values().as_ref())
            .collect();
        let rows = ids.first().map_or(0, |a| a.len());
        let mut row = vec![0u32; n];
        let mut lost = false;
        let got: A = (0..rows)
            .map(|r| {
                for (v, a) in row.iter_mut().zip(&ids) {
                    *v = a[r];
                }
                let x = f(&row);
                lost |= x.is_none();
                x
            })
            .collect();
        if lost {
            return Err(DataFusionError::Execution(
                "a candidate pair's pattern is not among those counted".into(),
            ));
        }
        Ok(ColumnarValue::Array(Arc::new(got) as ArrayRef))
    })
}

/// The pattern function over `lookups`, with `payload` (an encoded [`Recipe`]) to ship it.
pub(crate) fn pattern_function(lookups: Arc<Vec<Lookup>>, payload: Vec<u8>) -> ScalarUDF {
    let n = slots(&lookups).1;
    let eval = id_eval::<i64, Int64Array>(n, move |ids| Some(pattern_of(&lookups, ids) as i64));
    Shipped::udf(
        PATTERN,
        vec![DataType::UInt32; n],
        DataType::Int64,
        payload,
        eval,
    )
}

/// The weight function: the pattern's `prior + Σ level weights`, then each term-frequency
/// adjustment of a comparison at its exact level, by the intruder's value, in comparison
/// order (the local scorer's sum).
pub(crate) fn weight_function(
    lookups: Arc<Vec<Lookup>>,
    weights: &Weights,
    payload: Vec<u8>,
) -> ScalarUDF {
    let (at, n) = slots(&lookups);
    let base: foldhash::HashMap<u64, f64> = weights.base.iter().copied().collect();
    let tf = weights.tf.clone();
    let eval = id_eval::<f64, Float64Array>(n, move |ids| {
        let q = pattern_of(&lookups, ids);
        let mut w = *base.get(&q)?;
        for (c, t) in tf.iter().enumerate() {
            if let Some((exact, adj)) = t
                && ((q >> (4 * c)) & 0xF) as usize == *exact
            {
                w += adj[ids[at[c]] as usize];
            }
        }
        Some(w)
    });
    Shipped::udf(
        WEIGHT,
        vec![DataType::UInt32; n],
        DataType::Float64,
        payload,
        eval,
    )
}

/// The function `name` ([`PATTERN`] or [`WEIGHT`]) built from its payload.
pub(crate) fn function_from_payload(name: &str, payload: &[u8]) -> Result<ScalarUDF> {
    let recipe = Recipe::decode(payload)?;
    let prepared = recipe.prepared()?;
    // (an adjustment per value of the dictionary, and exact levels among the levels: the
    // weight function indexes both)
    if let Some(w) = &recipe.weights {
        for ((t, p), c) in w.tf.iter().zip(&prepared).zip(0..) {
            if let Some((exact, adj)) = t
                && (adj.len() != p.dict.len() || *exact >= p.spec.levels.len())
            {
                return Err(bad(format!(
                    "comparison {c}: {} term-frequency adjustments for {} values",
                    adj.len(),
                    p.dict.len()
                )));
            }
        }
    }
    // an executor's levels are kept without a bound (the pool of its runtime is not reached
    // from here)
    let budget = MemoBudget::unbounded();
    let lookups = Arc::new(
        prepared
            .iter()
            .map(|p| Lookup::new(p, &budget))
            .collect::<Vec<_>>(),
    );
    match (name, &recipe.weights) {
        (PATTERN, _) => Ok(pattern_function(lookups, payload.to_vec())),
        (WEIGHT, Some(w)) => Ok(weight_function(lookups, w, payload.to_vec())),
        _ => Err(bad(format!("{name} without its model"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{StringArray, UInt32Array};
    use intruder_attack::fellegi_sunter::LinkageSpec;

    fn interned(
        c: &Comparison,
        released: &str,
        (a, b): (ArrayRef, ArrayRef),
        others: Vec<((String, String), ArrayRef, ArrayRef)>,
    ) -> Interned {
        Interned {
            comparison: c.clone(),
            released: released.into(),
            a,
            b,
            others,
        }
    }

    /// Runs `f` on value-id rows `(ia0, ib0, ia1, ib1)`.
    fn eval(f: &ScalarUDF, rows: &[[u32; 4]]) -> ArrayRef {
        let cols: Vec<ColumnarValue> = (0..4)
            .map(|c| {
                ColumnarValue::Array(Arc::new(UInt32Array::from_iter_values(
                    rows.iter().map(|r| r[c]),
                )) as ArrayRef)
            })
            .collect();
        let s = f
            .inner()
            .downcast_ref::<Shipped>()
            .expect("a shipped function");
        let args = datafusion::logical_expr::ScalarFunctionArgs {
            args: cols,
            arg_fields: (0..4)
                .map(|c| Arc::new(Field::new(format!("x{c}"), DataType::UInt32, false)))
                .collect(),
            number_rows: rows.len(),
            return_field: Arc::new(Field::new("out", s.returns_type(), true)),
            config_options: Arc::new(Default::default()),
        };
        match f.invoke_with_args(args).unwrap() {
            ColumnarValue::Array(a) => a,
            ColumnarValue::Scalar(_) => panic!("a column"),
        }
    }

    #[test]
    fn a_function_rebuilt_from_its_payload_computes_the_same() {
        let spec = LinkageSpec::from_toml(
            r#"
blocking = [["first"]]
[[comparison]]
column = "first"
term_frequency = true
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "jaro-winkler", threshold = 0.9 }, { kind = "else" }]
[[comparison]]
column = "year"
released = "yob"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "absolute", threshold = 1 }, { kind = "else" }]
"#,
            "spec.toml",
        )
        .unwrap();
        let first_a: ArrayRef =
            Arc::new(StringArray::from(vec![Some("anna"), Some("marie"), None]));
        let first_b: ArrayRef = Arc::new(StringArray::from(vec![
            Some("anne"),
            Some("maria"),
            Some("anna"),
        ]));
        let year_a: ArrayRef = Arc::new(Int64Array::from(vec![1950, 1960]));
        let year_b: ArrayRef = Arc::new(Int64Array::from(vec![1961, 1950, 1970]));
        let recipe = Recipe {
            labels: ("i.csv".into(), "r.csv".into()),
            comparisons: vec![
                interned(&spec.comparisons[0], "first", (first_a, first_b), vec![]),
                interned(&spec.comparisons[1], "yob", (year_a, year_b), vec![]),
            ],
            weights: None,
        };
        let prepared = recipe.prepared().unwrap();
        let budget = MemoBudget::unbounded();
        let lookups = Arc::new(
            prepared
                .iter()
                .map(|p| Lookup::new(p, &budget))
                .collect::<Vec<_>>(),
        );
        // weights that are not short decimals (bit-for-bit through the payload)
        let weights = Weights {
            base: (0..256u64)
                .map(|q| (q, (q as f64).sqrt() / 3.0 - 1.1))
                .collect(),
            tf: vec![Some((1, vec![0.1 / 3.0, -2.0f64.ln(), 1e-300, 7.0])), None],
        };
        let with_weights = Recipe {
            weights: Some(weights.clone()),
            ..recipe.clone()
        };
        let pattern = pattern_function(lookups.clone(), recipe.encode().unwrap());
        let weight = weight_function(lookups, &weights, with_weights.encode().unwrap());
        let rows: Vec<[u32; 4]> = (0..4u32)
            .flat_map(|x| (0..4u32).map(move |y| [x, y, x % 3, (y + 1) % 4]))
            .chain([[MISSING, 0, 0, MISSING]])
            .collect();
        let dicts: Vec<usize> = prepared.iter().map(|p| p.dict.len()).collect();
        assert_eq!(
            dicts,
            vec![4, 4],
            "anna, marie, anne, maria; 1950, 1960, 1961, 1970"
        );
        let rows: Vec<[u32; 4]> = rows
            .into_iter()
            .filter(|r| r.iter().all(|&v| v == MISSING || v < 4))
            .collect();
        for (f, name) in [(&pattern, PATTERN), (&weight, WEIGHT)] {
            let payload = f
                .inner()
                .downcast_ref::<Shipped>()
                .unwrap()
                .payload()
                .to_vec();
            let g = function_from_payload(name, &payload).unwrap();
            assert_eq!(g.name(), name);
            let (x, y) = (eval(f, &rows), eval(&g, &rows));
            assert_eq!(x.as_ref(), y.as_ref(), "{name}: the same column");
            if name == WEIGHT {
                let (x, y) = (
                    x.as_primitive::<Float64Type>(),
                    y.as_primitive::<Float64Type>(),
                );
                for (p, q) in x.values().iter().zip(y.values()) {
                    assert_eq!(p.to_bits(), q.to_bits(), "bit for bit");
                }
            }
        }
        // marie/maria agree at jaro-winkler (0.92: level 2), 1950/1961 differ (else, 3); anna/anne
        // do not (0.883: else); 1960/1961 are within 1 (level 2)
        let p = eval(&pattern, &[[1, 3, 0, 2], [0, 2, 1, 2]]);
        let p = p.as_primitive::<datafusion::arrow::datatypes::Int64Type>();
        assert_eq!((p.value(0), p.value(1)), (2 | (3 << 4), 3 | (2 << 4)));
        // A payload from another version, or cut short: an error, not a wrong function.
        let mut bad = with_weights.encode().unwrap();
        bad.truncate(bad.len() - 3);
        let e = function_from_payload(WEIGHT, &bad).unwrap_err().to_string();
        assert!(e.contains("cannot be read"), "{e}");
        let e = function_from_payload(WEIGHT, b"XYZ0")
            .unwrap_err()
            .to_string();
        assert!(e.contains("one version"), "{e}");
        let e = function_from_payload(WEIGHT, &recipe.encode().unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("without its model"), "{e}");
        // Weights that do not fit the dictionaries: an error, not an index out of bounds on
        // an executor.
        let short = Recipe {
            weights: Some(Weights {
                base: weights.base.clone(),
                tf: vec![Some((1, vec![0.5; 3])), None],
            }),
            ..recipe.clone()
        };
        let e = function_from_payload(WEIGHT, &short.encode().unwrap())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("3 term-frequency adjustments for 4 values"),
            "{e}"
        );
    }

    /// Levels kept within a budget: under a pool of a few kilobytes (and under none) every
    /// pair of 5,000 names × 5,000 names sampled gets the levels the dictionary computes, the
    /// tables stop growing at half the limit and their room is reserved in the pool (and
    /// given back with them); a dictionary too large for a small budget's square table keeps
    /// nothing and still answers.
    #[test]
    fn levels_kept_within_the_budget_are_the_levels() {
        use datafusion::execution::memory_pool::{GreedyMemoryPool, MemoryPool};
        let spec = LinkageSpec::from_toml(
            r#"
blocking = [["name"]]
[[comparison]]
column = "name"
levels = [{ kind = "null" }, { kind = "exact" }, { kind = "jaro-winkler", threshold = 0.9 }, { kind = "else" }]
"#,
            "spec.toml",
        )
        .unwrap();
        let names = |side: &str, n: usize| -> ArrayRef {
            Arc::new(StringArray::from_iter_values(
                (0..n).map(|i| format!("{side}{}x{}", i % 97, i / 97)),
            ))
        };
        let of = |n: usize| {
            let r = Recipe {
                labels: ("i.csv".into(), "r.csv".into()),
                comparisons: vec![interned(
                    &spec.comparisons[0],
                    "name",
                    (names("an", n), names("am", n)),
                    vec![],
                )],
                weights: None,
            };
            r.prepared().unwrap().remove(0)
        };
        let cases = [
            (5000usize, 1u64 << 20),
            (5000, 64 << 10),
            (1500, 64 << 10),
            (1500, 64 << 20),
        ];
        for (n, limit) in cases {
            let p = of(n);
            let pool: Arc<dyn MemoryPool> = Arc::new(GreedyMemoryPool::new(limit as usize));
            let bounded = Lookup::new(&p, &MemoBudget::within(&pool, Some(limit)));
            let free = Lookup::new(&p, &MemoBudget::unbounded());
            let dict = p.dict.len() as u32;
            let mut differs = 0usize;
            for x in (0..dict).step_by(7) {
                for y in (0..dict).step_by(11) {
                    let want = p.level_of_ids(x, y);
                    assert_eq!(bounded.level(x, y), want, "{x}, {y}");
                    assert_eq!(bounded.level(x, y), want, "{x}, {y} met again");
                    assert_eq!(free.level(x, y), want);
                    differs += usize::from(want != p.level_of_ids(x, x));
                }
            }
            assert!(differs > 1000, "pairs of different levels: {differs}");
            let held = pool.reserved();
            assert!(held <= (limit / 2) as usize, "{held} reserved of {limit}");
            match &bounded {
                Lookup::Memo {
                    memo: Memo::Shards { shards, .. },
                    ..
                } => {
                    assert!(dict as usize * dict as usize > DENSE_CELLS);
                    let kept: usize = shards.iter().map(|s| s.lock().unwrap().levels.len()).sum();
                    let full = shards.iter().filter(|s| s.lock().unwrap().full).count();
                    assert!(kept > 100 && full > 0, "{kept} kept, {full} shards full");
                    let room: usize = shards
                        .iter()
                        .map(|s| s.lock().unwrap().levels.capacity() * 8 / 7 * BUCKET_BYTES)
                        .sum();
                    assert!(room <= held, "{room} bytes of tables, {held} reserved");
                }
                Lookup::Memo {
                    memo: Memo::None, ..
                } => assert!(dict as usize * dict as usize > limit as usize / 2),
                Lookup::Memo {
                    memo: Memo::Dense { n, .. },
                    ..
                } => assert_eq!((*n, held), (dict as usize, n * n)),
                Lookup::ById { .. } => panic!("a similarity level is not read by id"),
            }
            drop(bounded);
            assert_eq!(pool.reserved(), 0);
        }
    }
}
