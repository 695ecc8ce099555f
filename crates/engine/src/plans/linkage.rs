//! Fellegi–Sunter as plans ([`link`]): the candidate pairs of the blocking rules (as
//! [`super::blocking`] makes them), each pair's level on every comparison, the agreement
//! patterns counted by the set of rules the pairs agree on — what the local kernel
//! ([`intruder_attack::fellegi_sunter::kernel::Kernel::build`]) counts, and all that EM reads —
//! then u, EM and the weights on the driver ([`intruder_attack::fellegi_sunter::counted`]), and
//! every pair weighed for the assignment. The records never leave the engine:
//! 1. each comparison's distinct values in either file (a `GROUP BY`) are interned on the
//!    driver into the comparison's dictionary ([`Prepared`], built from the distinct values as
//!    the local engine builds it from the records), and joined back to each record as its
//!    value id; a `columns-reversed` level's other column is interned into the same dictionary
//!    and its ids joined back beside (`ra{k}_{r}`, `rb{k}_{r}`); a blocking term that derives
//!    a key (an expression, or two different columns) is keyed from the distinct values the
//!    same way;
//! 2. each blocking rule is an equi-join (a rule without terms a cross join) less the pairs of
//!    the earlier rules, tagged with the set of rules the pair agrees on (bit `r`: both records
//!    observe rule `r`'s columns and they are equal); the rules' pairs are unioned;
//! 3. a function of the pair's value ids gives its pattern (4 bits a comparison, as
//!    [`intruder_attack::fellegi_sunter::compare::pack`] packs it): a null/exact/else
//!    comparison by equality of the ids, any other by the local engine's definitions
//!    ([`Prepared::level_of_ids`]), computed the first time a value pair is met and kept (a
//!    square table over a small dictionary, else a sharded map) for both passes — under
//!    `--memory-limit` within half the limit, reserved in DataFusion's pool, and computed
//!    again each time once that is spent ([`super::fs_functions::MemoBudget`]);
//! 4. the patterns are counted by rule set;
//! 5. u's random pairs are joined to the records by row number, a million at a time;
//! 6. a second pass weighs every pair (the pattern's weight, then the term-frequency
//!    adjustments in comparison order: the local sum) for the assignment.
//!
//! The candidate pairs are produced again for each pass rather than held: under a memory limit
//! the joins, aggregates and the sort spill. The functions hold the dictionaries and the model
//! ([`super::fs_functions`]); on Ballista they travel with them ([`super::shipped`]), the
//! dictionaries' tables and u's random pairs are files in the scratch directory, and the
//! greedy assignment's sort is planned by Ballista's static planner (its adaptive planner's
//! sort reaches the client out of order: [`super::for_sorted_output`]). The run's model keeps
//! the scan, the dictionaries and the weights, and answers a pair's breakdown and the scored
//! pairs file on the engine afterwards ([`super::fs_model`]).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, RecordBatch, UInt32Array, new_null_array,
};
use datafusion::arrow::compute::{cast, concat};
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Int64Type, Schema, UInt32Type};
use datafusion::functions::core::expr_fn::nullif;
use datafusion::functions_aggregate::count::count_all;
use datafusion::prelude::*;
use rayon::prelude::*;

use intruder_attack::fellegi_sunter::FsModel;
use intruder_attack::fellegi_sunter::compare::Prepared;
use intruder_attack::fellegi_sunter::counted::{Counted, CountedFit, WeighedPairs, borderline};
use intruder_attack::fellegi_sunter::encode::{MISSING, NO_KEY, rule_keys};
use intruder_attack::fellegi_sunter::spec::TrainingSpec;
use intruder_attack::fellegi_sunter::{
    Assignment, Comparison, FellegiSunter, LevelKind, Term, ValueCounts,
};
use intruder_attack::{Linkage, Linked};
use intruder_data::{Column, Input, Role, Table};

use super::fs_functions::{
    Interned, Lookup, MemoBudget, Recipe, Weights, id_columns, pattern_function, side_columns,
    weight_function,
};
use super::risk::{collect, int_at, rows};
use super::run_error;
use super::source::scan;
use crate::{Engine, EngineError, EngineSpec};

/// Blocking rules and comparisons on two files.
#[derive(Debug, Clone)]
pub struct LinkageRequest {
    /// The intruder's file.
    pub intruder: PathBuf,
    /// How to read it.
    pub intruder_input: Input,
    /// The released file.
    pub released: PathBuf,
    /// How to read it.
    pub released_input: Input,
    /// The blocking rules (terms on one column each), OR-ed.
    pub rules: Vec<Vec<Term>>,
    /// The comparisons, in the specification's order.
    pub comparisons: Vec<Comparison>,
    /// The released name of an intruder column (a key map), when it differs.
    pub released_names: Vec<(String, String)>,
    /// The specification's `[training]` (Splink's recipe): its sessions' rules and its
    /// deterministic rules are planned as the blocking rules are.
    pub training: Option<TrainingSpec>,
}

/// What the plans counted: the inputs of EM.
pub struct PatternTally {
    /// Candidate pairs each rule produced (pairs of earlier rules excluded).
    pub per_rule: Vec<u64>,
    /// Candidate pairs.
    pub n_pairs: u64,
    /// `(packed pattern, pairs)`, ascending.
    pub counts: Vec<(u64, u64)>,
    /// `(rule set, packed pattern, pairs)`, ascending: bit `r` of the set is whether the
    /// pairs agree on rule `r`.
    pub by_rules: Vec<(u32, u64, u64)>,
    /// Each comparison's dictionary (the distinct values of both files).
    pub prepared: Vec<Prepared>,
    /// How each comparison's level is read from a pair's value ids.
    lookups: Arc<Vec<Lookup>>,
}

/// Whether a column is read from the intruder's file and from the released file.
type Sides = (bool, bool);

/// The columns read, `(intruder name, released name)`, and the files each is read from.
type Columns = (Vec<(String, String)>, Vec<Sides>);

impl LinkageRequest {
    /// The blocking rules, then the `[training]` sessions' and deterministic rules.
    fn every_rule(&self) -> impl Iterator<Item = &Vec<Term>> {
        let training = self.training.iter();
        let extra = training.flat_map(|t| t.blocking.iter().chain(&t.deterministic));
        self.rules.iter().chain(extra)
    }

    fn released_name(&self, c: &str) -> String {
        self.released_names
            .iter()
            .find(|(i, _)| i == c)
            .map_or(c.to_string(), |(_, r)| r.clone())
    }

    /// The columns read, each once: `(intruder name, released name)`, with the files that
    /// read it `(intruder, released)` (a blocking term on two different columns reads the one
    /// from the intruder's file and the other from the released file).
    fn columns(&self, spec: &EngineSpec) -> Result<Columns, EngineError> {
        let refuse = |what: String| EngineError::Unsupported {
            engine: spec.engine.label(),
            what,
        };
        let mut cols: Vec<(String, String)> = Vec::new();
        let mut sides: Vec<Sides> = Vec::new();
        let mut add = |i: &str, r: String, (on_a, on_b): (bool, bool)| -> Result<(), EngineError> {
            match cols.iter().position(|(x, _)| x == i) {
                Some(n) if cols[n].1 != r => Err(refuse(format!(
                    "intruder column '{i}' is compared with released columns '{}' and '{r}': the plans read one released column per intruder column",
                    cols[n].1
                ))),
                Some(n) => {
                    sides[n].0 |= on_a;
                    sides[n].1 |= on_b;
                    Ok(())
                }
                None => {
                    cols.push((i.to_string(), r));
                    sides.push((on_a, on_b));
                    Ok(())
                }
            }
        };
        for t in self.every_rule().flatten() {
            let (x, y) = (t.column(), t.released_column());
            if x == y {
                add(x, self.released_name(x), (true, true))?;
            } else {
                add(x, self.released_name(x), (true, false))?;
                add(y, self.released_name(y), (false, true))?;
            }
        }
        for c in &self.comparisons {
            let r = c
                .released
                .clone()
                .unwrap_or_else(|| self.released_name(&c.column));
            add(&c.column, r, (true, true))?;
            for o in reversed_columns(c) {
                add(o, self.released_name(o), (true, true))?;
            }
        }
        Ok((cols, sides))
    }
}

/// A column of distinct values as the toolkit's column of the same kind (integers, floats,
/// text), so that the dictionary interns them as the local engine does.
fn as_column(
    spec: &EngineSpec,
    name: &str,
    values: &ArrayRef,
    file: &str,
) -> Result<Column, EngineError> {
    column_of(name, values).map_err(|what| match what {
        ColumnOf::Arrow(e) => run_error(spec, e.into()),
        ColumnOf::Type(t) => EngineError::Unsupported {
            engine: spec.engine.label(),
            what: format!(
                "{file}: column '{name}' is {t}; the plans compare integer, float and text columns"
            ),
        },
    })
}

/// Why [`column_of`] failed.
#[derive(Debug)]
pub(crate) enum ColumnOf {
    /// A cast failed.
    Arrow(datafusion::arrow::error::ArrowError),
    /// The values are of a type the plans do not compare.
    Type(DataType),
}

impl std::fmt::Display for ColumnOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ColumnOf::Arrow(e) => e.fmt(f),
            ColumnOf::Type(t) => write!(f, "values of type {t}"),
        }
    }
}

/// [`as_column`] without the engine's error.
pub(crate) fn column_of(name: &str, values: &ArrayRef) -> Result<Column, ColumnOf> {
    let e = ColumnOf::Arrow;
    let t = values.data_type();
    Ok(if t.is_integer() {
        let v = cast(values, &DataType::Int64).map_err(e)?;
        let v = v.as_primitive::<Int64Type>();
        Column::integer(name, Role::Key, &v.iter().collect::<Vec<_>>())
    } else if t.is_floating() {
        let v = cast(values, &DataType::Float64).map_err(e)?;
        let v = v.as_primitive::<Float64Type>();
        Column::float(name, Role::Key, &v.iter().collect::<Vec<_>>())
    } else if compared(t) {
        let v = cast(values, &DataType::Utf8).map_err(e)?;
        let v = v.as_string::<i32>();
        Column::string(name, Role::Key, &v.iter().collect::<Vec<_>>())
    } else {
        return Err(ColumnOf::Type(t.clone()));
    })
}

/// One array of a collected single-column result.
fn one_array(
    spec: &EngineSpec,
    batches: &[RecordBatch],
    t: &DataType,
) -> Result<ArrayRef, EngineError> {
    let parts: Vec<&dyn Array> = batches.iter().map(|b| b.column(0).as_ref()).collect();
    if parts.is_empty() {
        return Ok(new_null_array(t, 0));
    }
    concat(&parts).map_err(|e: datafusion::arrow::error::ArrowError| run_error(spec, e.into()))
}

/// `df` with column `c` as plain text when it is dictionary-encoded (a dictionary table's
/// values and the records' must have one type to be joined).
fn plain(spec: &EngineSpec, df: DataFrame, c: &str) -> Result<DataFrame, EngineError> {
    let t = type_of(spec, &df, c)?;
    match t {
        DataType::Dictionary(..) | DataType::LargeUtf8 | DataType::Utf8View => df
            .with_column(c, cast_expr(col(c), DataType::Utf8))
            .map_err(|e| run_error(spec, e)),
        _ => Ok(df),
    }
}

/// The type of column `c` of `df`.
fn type_of(spec: &EngineSpec, df: &DataFrame, c: &str) -> Result<DataType, EngineError> {
    Ok(df
        .schema()
        .field_with_unqualified_name(c)
        .map_err(|e| run_error(spec, e))?
        .data_type()
        .clone())
}

fn cast_expr(e: Expr, t: DataType) -> Expr {
    datafusion::prelude::cast(e, t)
}

/// `df` with the value id `id` of column `c` (the dictionary `values` → `ids` joined to it;
/// missing values get [`MISSING`]). On a cluster the dictionary is a file in the scratch
/// directory, kept in `temps` for the run.
#[allow(clippy::too_many_arguments)]
async fn with_ids(
    spec: &EngineSpec,
    ctx: &SessionContext,
    df: DataFrame,
    c: &str,
    id: &str,
    values: &ArrayRef,
    ids: &[u32],
    temps: &mut Vec<tempfile::TempDir>,
) -> Result<DataFrame, EngineError> {
    let e = |e| run_error(spec, e);
    let (vname, iname) = (format!("{id}_v"), format!("{id}_i"));
    let schema = Arc::new(Schema::new(vec![
        Field::new(&vname, values.data_type().clone(), true),
        Field::new(&iname, DataType::UInt32, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![values.clone(), Arc::new(UInt32Array::from(ids.to_vec()))],
    )
    .map_err(|x| e(x.into()))?;
    let dict = small_table(spec, ctx, batch, temps).await?;
    let joined = dict
        .join(df, JoinType::Right, &[vname.as_str()], &[c], None)
        .map_err(e)?;
    let keep: Vec<Expr> = joined
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .filter(|n| *n != vname && *n != iname)
        .map(col)
        .chain([coalesce(vec![col(&iname), lit(MISSING)]).alias(id)])
        .collect();
    joined.select(keep).map_err(e)
}

/// The distinct values of one file's column with the records per value.
#[derive(Clone)]
struct Values {
    v: ArrayRef,
    n: Vec<u64>,
}

/// Whether the plans compare values of type `t` (integers, floats, text).
fn compared(t: &DataType) -> bool {
    t.is_integer()
        || t.is_floating()
        || matches!(
            t,
            DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Dictionary(..)
        )
}

/// Both files as the plans read them — each comparison's value ids (`ia{k}`, `ib{k}`), the
/// blocking columns (`a{n}`, `b{n}`), the row numbers (`i`, `j`) when asked for — and the
/// comparisons' dictionaries with the records per value.
pub struct Scanned {
    /// The intruder's file.
    pub a: DataFrame,
    /// The released file.
    pub b: DataFrame,
    /// The columns read: `(intruder name, released name)`, column `n` as `a{n}` / `b{n}`.
    pub cols: Vec<(String, String)>,
    /// The blocking terms that derive a value from a column, term `t`'s keys as `ta{t}` /
    /// `tb{t}`.
    pub derived: Vec<Term>,
    /// Each comparison's dictionary.
    pub prepared: Vec<Prepared>,
    /// Records per value id of each comparison.
    pub values: Vec<ValueCounts>,
    /// Intruder and released records.
    pub dims: (usize, usize),
    /// What the pattern and weight functions are built from (without weights).
    recipe: Recipe,
    _sources: (super::source::Source, super::source::Source),
    /// The dictionaries' files on a cluster.
    _temps: Vec<tempfile::TempDir>,
}

/// The distinct values of column `c` of `df` with their records.
async fn distinct_values(
    spec: &EngineSpec,
    df: &DataFrame,
    c: &str,
) -> Result<(ArrayRef, Vec<u64>), EngineError> {
    let t = type_of(spec, df, c)?;
    let d = df
        .clone()
        .aggregate(vec![col(c)], vec![count_all().alias("n")])
        .map_err(|e| run_error(spec, e))?;
    let got = collect(spec, d).await?;
    let n: Vec<u64> = rows(&got).map(|(b, i)| int_at(b, "n", i) as u64).collect();
    Ok((one_array(spec, &got, &t)?, n))
}

/// Records per value id, from the distinct values' ids and records.
fn per_id(ids: &[u32], n: &[u64], dict: usize) -> Vec<u64> {
    let mut v = vec![0u64; dict];
    for (&id, &k) in ids.iter().zip(n) {
        if id != MISSING {
            v[id as usize] += k;
        }
    }
    v
}

/// The other columns of a comparison's `columns-reversed` levels, in the levels' order.
fn reversed_columns(c: &Comparison) -> impl Iterator<Item = &str> {
    c.levels.iter().filter_map(|l| match l.kind {
        LevelKind::ColumnsReversed => l.column.as_deref(),
        _ => None,
    })
}

/// Scans both files and interns each comparison's values; see [`Scanned`].
pub async fn scan_both(
    spec: &EngineSpec,
    ctx: &SessionContext,
    req: &LinkageRequest,
    rows: bool,
) -> Result<Scanned, EngineError> {
    if req.comparisons.len() > intruder_attack::fellegi_sunter::MAX_COMPARISONS {
        return Err(EngineError::Config(format!(
            "{} comparisons: at most {} are supported",
            req.comparisons.len(),
            intruder_attack::fellegi_sunter::MAX_COMPARISONS
        )));
    }
    set_options(ctx);
    let (cols, sides) = req.columns(spec)?;
    let icols: Vec<(String, String)> = cols
        .iter()
        .enumerate()
        .filter(|(n, _)| sides[*n].0)
        .map(|(n, (c, _))| (c.clone(), format!("a{n}")))
        .collect();
    let rcols: Vec<(String, String)> = cols
        .iter()
        .enumerate()
        .filter(|(n, _)| sides[*n].1)
        .map(|(n, (_, r))| (r.clone(), format!("b{n}")))
        .collect();
    let (ri, rj) = if rows {
        (Some("i"), Some("j"))
    } else {
        (None, None)
    };
    let si = scan(spec, ctx, &req.intruder, &req.intruder_input, &icols, ri).await?;
    let sr = scan(spec, ctx, &req.released, &req.released_input, &rcols, rj).await?;
    let mut w = Building {
        spec,
        ctx,
        cols: &cols,
        labels: (si.label.clone(), sr.label.clone()),
        a: si.df.clone(),
        b: sr.df.clone(),
        values: HashMap::new(),
        temps: Vec::new(),
    };
    let mut prepared = Vec::with_capacity(req.comparisons.len());
    let mut values = Vec::with_capacity(req.comparisons.len());
    let mut dims = (0usize, 0usize);
    let mut recipe = Recipe {
        labels: w.labels.clone(),
        comparisons: Vec::with_capacity(req.comparisons.len()),
        weights: None,
    };
    for (k, c) in req.comparisons.iter().enumerate() {
        let (p, v, interned, records) = w.intern(k, c).await?;
        dims = records;
        values.push(v);
        recipe.comparisons.push(interned);
        prepared.push(p);
    }
    // Blocking terms that derive a value from a column (first_letter, soundex, substr, …) or
    // compare two different columns: the key of each distinct value computed here as the
    // local engine computes it (`rule_keys` on the distinct values), joined back as `ta{t}` /
    // `tb{t}` (null where a value has none).
    let mut derived: Vec<Term> = Vec::new();
    for term in req.every_rule().flatten() {
        if matches!(term, Term::Column { .. }) || derived.contains(term) {
            continue;
        }
        w.derive(derived.len(), term).await?;
        derived.push(term.clone());
    }
    // (blocking alone, with no comparison, counts no records here)
    for (n, label) in [(dims.0, &si.label), (dims.1, &sr.label)] {
        if req.comparisons.is_empty() {
            break;
        }
        if n == 0 {
            return Err(EngineError::Config(format!("{label}: no records to link")));
        }
        if n >= u32::MAX as usize {
            return Err(EngineError::Config(format!(
                "{label}: {n} records; at most {} are supported",
                u32::MAX - 1
            )));
        }
    }
    let (a, b, temps) = (w.a, w.b, w.temps);
    Ok(Scanned {
        a,
        b,
        cols,
        derived,
        prepared,
        values,
        dims,
        recipe,
        _sources: (si, sr),
        _temps: temps,
    })
}

/// Both files as [`scan_both`] builds them, column by column.
struct Building<'a> {
    spec: &'a EngineSpec,
    ctx: &'a SessionContext,
    cols: &'a [(String, String)],
    labels: (String, String),
    a: DataFrame,
    b: DataFrame,
    /// Each column's distinct values read so far, by file (`"a"`: the intruder's) and column:
    /// a column compared and also read by a `columns-reversed` level or a blocking term is
    /// counted once.
    values: HashMap<(&'static str, usize), Values>,
    temps: Vec<tempfile::TempDir>,
}

impl Building<'_> {
    fn at(&self, c: &str) -> usize {
        self.cols
            .iter()
            .position(|(i, _)| i == c)
            .expect("a read column")
    }

    /// The distinct values of one file's (`"a"`: the intruder's, else the released) column
    /// `n` (read as plain text where it was a dictionary), and the records per value.
    async fn distinct(&mut self, side: &'static str, n: usize) -> Result<Values, EngineError> {
        if let Some(v) = self.values.get(&(side, n)) {
            return Ok(v.clone());
        }
        let spec = self.spec;
        let (df, name, label) = if side == "a" {
            (&mut self.a, &self.cols[n].0, &self.labels.0)
        } else {
            (&mut self.b, &self.cols[n].1, &self.labels.1)
        };
        let c = format!("{side}{n}");
        *df = plain(spec, df.clone(), &c)?;
        let (v, counts) = distinct_values(spec, df, &c).await?;
        if !compared(v.data_type()) {
            return Err(EngineError::Unsupported {
                engine: spec.engine.label(),
                what: format!(
                    "{label}: column '{name}' is {}; the plans compare integer, float and text columns",
                    v.data_type()
                ),
            });
        }
        let got = Values { v, n: counts };
        self.values.insert((side, n), got.clone());
        Ok(got)
    }

    /// Joins id `name` of each value `values` (`ids`) to the records of one file (`"a"`:
    /// the intruder's, else the released) by its column `n`.
    async fn join_ids(
        &mut self,
        side: &str,
        n: usize,
        name: &str,
        (values, ids): (&ArrayRef, &[u32]),
    ) -> Result<(), EngineError> {
        let (spec, ctx) = (self.spec, self.ctx);
        let df = if side == "a" {
            &mut self.a
        } else {
            &mut self.b
        };
        let c = format!("{side}{n}");
        *df = with_ids(
            spec,
            ctx,
            df.clone(),
            &c,
            name,
            values,
            ids,
            &mut self.temps,
        )
        .await?;
        Ok(())
    }

    /// Comparison `k`'s dictionary from the distinct values (its own column's, then each
    /// `columns-reversed` level's other column's), its records per value, what the functions
    /// are built from, the records of either file (missing values included); its ids joined to
    /// the records (`ia{k}`, `ib{k}`, `ra{k}_{r}`, `rb{k}_{r}`).
    async fn intern(
        &mut self,
        k: usize,
        c: &Comparison,
    ) -> Result<(Prepared, ValueCounts, Interned, (usize, usize)), EngineError> {
        let n = self.at(&c.column);
        let (da, db) = (self.distinct("a", n).await?, self.distinct("b", n).await?);
        let mut others: Vec<((String, String), ArrayRef, ArrayRef)> = Vec::new();
        for o in reversed_columns(c) {
            if !others.iter().any(|x| x.0.0 == o) {
                let m = self.at(o);
                let (oa, ob) = (self.distinct("a", m).await?, self.distinct("b", m).await?);
                others.push((self.cols[m].clone(), oa.v, ob.v));
            }
        }
        let interned = Interned {
            comparison: c.clone(),
            released: self.cols[n].1.clone(),
            a: da.v.clone(),
            b: db.v.clone(),
            others,
        };
        let p = interned
            .prepared(&self.labels)
            .map_err(|what| EngineError::Unsupported {
                engine: self.spec.engine.label(),
                what,
            })?;
        let v = ValueCounts {
            a: per_id(&p.a, &da.n, p.dict.len()),
            b: per_id(&p.b, &db.n, p.dict.len()),
        };
        let (va, vb) = (&da.v, &db.v);
        self.join_ids("a", n, &format!("ia{k}"), (va, &p.a[..va.len()]))
            .await?;
        self.join_ids("b", n, &format!("ib{k}"), (vb, &p.b[..vb.len()]))
            .await?;
        for (r, (rev, o)) in p.reversed.iter().zip(reversed_columns(c)).enumerate() {
            let m = self.at(o);
            let (_, va, vb) = interned
                .others
                .iter()
                .find(|x| x.0.0 == o)
                .expect("the other column's values");
            self.join_ids(
                "a",
                m,
                &format!("ra{k}_{r}"),
                (va, &rev.a_other[..va.len()]),
            )
            .await?;
            self.join_ids(
                "b",
                m,
                &format!("rb{k}_{r}"),
                (vb, &rev.b_other[..vb.len()]),
            )
            .await?;
        }
        let records = (
            da.n.iter().sum::<u64>() as usize,
            db.n.iter().sum::<u64>() as usize,
        );
        Ok((p, v, interned, records))
    }

    /// Blocking term `t`'s keys joined to the records as `ta{t}` / `tb{t}` (a term on two
    /// different columns: the intruder's column from its file, the other from the released
    /// file).
    async fn derive(&mut self, t: usize, term: &Term) -> Result<(), EngineError> {
        let (n, m) = (self.at(term.column()), self.at(term.released_column()));
        let (da, db) = (self.distinct("a", n).await?, self.distinct("b", m).await?);
        let (la, lb) = (self.labels.0.as_str(), self.labels.1.as_str());
        let (aname, rname) = (&self.cols[n].0, self.cols[m].1.clone());
        let ta = Table::new(la, vec![as_column(self.spec, aname, &da.v, la)?])?;
        let tb = Table::new(lb, vec![as_column(self.spec, &rname, &db.v, lb)?])?;
        let keys = rule_keys(&ta, &tb, std::slice::from_ref(term), &|_| rname.clone())?;
        let (ka, kb) = (format!("ta{t}"), format!("tb{t}"));
        self.join_ids("a", n, &ka, (&da.v, &keys.a)).await?;
        self.join_ids("b", m, &kb, (&db.v, &keys.b)).await?;
        let spec = self.spec;
        let none = |df: DataFrame, k: &str| {
            df.with_column(k, nullif(col(k), lit(NO_KEY)))
                .map_err(|e| run_error(spec, e))
        };
        self.a = none(self.a.clone(), &ka)?;
        self.b = none(self.b.clone(), &kb)?;
        Ok(())
    }
}

/// The candidate pairs: per rule an equi-join less the earlier rules' pairs, with `s`, the set
/// of rules the pair agrees on, and the value ids of every comparison; the rules' pairs
/// unioned (with the rows `i`, `j` when `rows`).
pub(crate) fn candidate_pairs(
    spec: &EngineSpec,
    req: &LinkageRequest,
    st: &Scanned,
    rows: bool,
) -> Result<DataFrame, EngineError> {
    candidate_pairs_of(spec, req, st, (&st.a, &st.b), rows)
}

/// [`candidate_pairs`] among the records `a` and `b` (both files as `st` reads them, or
/// some of their rows).
pub(crate) fn candidate_pairs_of(
    spec: &EngineSpec,
    req: &LinkageRequest,
    st: &Scanned,
    (a, b): (&DataFrame, &DataFrame),
    rows: bool,
) -> Result<DataFrame, EngineError> {
    let cols = &st.cols;
    let e = |e| run_error(spec, e);
    let at = |c: &str| {
        cols.iter()
            .position(|(x, _)| x == c)
            .expect("a rule's column")
    };
    // a rule's join keys: the columns themselves, or both as text when their types differ
    let (mut a, mut b) = (a.clone(), b.clone());
    let mut key = |n: usize| -> Result<(String, String), EngineError> {
        let (x, y) = (format!("a{n}"), format!("b{n}"));
        if type_of(spec, &a, &x)? == type_of(spec, &b, &y)? {
            return Ok((x, y));
        }
        let (kx, ky) = (format!("ka{n}"), format!("kb{n}"));
        if a.schema().field_with_unqualified_name(&kx).is_err() {
            a = a
                .clone()
                .with_column(&kx, cast_expr(col(&x), DataType::Utf8))
                .map_err(e)?;
            b = b
                .clone()
                .with_column(&ky, cast_expr(col(&y), DataType::Utf8))
                .map_err(e)?;
        }
        Ok((kx, ky))
    };
    let keys: Vec<Vec<(String, String)>> = req
        .rules
        .iter()
        .map(|rule| {
            rule.iter()
                .map(|t| match t {
                    Term::Column { column } => key(at(column)),
                    other => {
                        let d = st
                            .derived
                            .iter()
                            .position(|x| x == other)
                            .expect("a derived term");
                        Ok((format!("ta{d}"), format!("tb{d}")))
                    }
                })
                .collect()
        })
        .collect::<Result<_, _>>()?;
    let agree = |r: usize| -> Expr {
        keys[r]
            .iter()
            .map(|(x, y)| col(x).eq(col(y)))
            .fold(lit(true), Expr::and)
            .is_true()
    };
    let ks = 0..st.prepared.len();
    let mut ids: Vec<Expr> = side_ids(st, "a", ks.clone())
        .into_iter()
        .chain(side_ids(st, "b", ks))
        .map(col)
        .collect();
    if rows {
        ids.extend([col("i"), col("j")]);
    }
    let mut all: Option<DataFrame> = None;
    for r in 0..req.rules.len() {
        let l: Vec<&str> = keys[r].iter().map(|(x, _)| x.as_str()).collect();
        let rr: Vec<&str> = keys[r].iter().map(|(_, y)| y.as_str()).collect();
        let earlier = (0..r).map(|q| agree(q).not()).reduce(Expr::and);
        // a rule without terms pairs every record with every other (a cross join), as the
        // local engine's one block does
        let joined = if l.is_empty() {
            a.clone()
                .join_on(b.clone(), JoinType::Inner, earlier)
                .map_err(e)?
        } else {
            a.clone()
                .join(b.clone(), JoinType::Inner, &l, &rr, earlier)
                .map_err(e)?
        };
        let set = (r + 1..req.rules.len()).fold(lit(1i64 << r), |s, q| {
            s + when(agree(q), lit(1i64 << q))
                .otherwise(lit(0i64))
                .expect("a CASE with an ELSE")
        });
        let mut sel = vec![set.alias("s")];
        sel.extend(ids.iter().cloned());
        let part = joined.select(sel).map_err(e)?;
        all = Some(match all {
            None => part,
            Some(u) => u.union(part).map_err(e)?,
        });
    }
    all.ok_or_else(|| EngineError::Config("a linkage specification needs a blocking rule".into()))
}

/// The candidate pairs with their packed pattern, `pattern`.
fn with_pattern(
    spec: &EngineSpec,
    st: &Scanned,
    pairs: DataFrame,
    lookups: &Arc<Vec<Lookup>>,
) -> Result<DataFrame, EngineError> {
    let payload = st.recipe.encode().map_err(|e| run_error(spec, e))?;
    let udf = pattern_function(lookups.clone(), payload);
    pairs
        .with_column("pattern", udf.call(id_columns(lookups)))
        .map_err(|e| run_error(spec, e))
}

/// How each comparison's level is read for a run on `st`: in process under a memory limit,
/// the levels kept by value pair share the run's pool ([`MemoBudget::within`]).
pub(crate) fn lookups_of(spec: &EngineSpec, st: &Scanned) -> Arc<Vec<Lookup>> {
    let budget = match spec.engine {
        Engine::DataFusion => MemoBudget::within(
            &st.a.task_ctx().runtime_env().memory_pool,
            spec.memory_limit,
        ),
        _ => MemoBudget::unbounded(),
    };
    Arc::new(
        st.prepared
            .iter()
            .map(|p| Lookup::new(p, &budget))
            .collect(),
    )
}

/// Counts the agreement patterns of the candidate pairs by rule set; see the [module
/// docs](self).
pub async fn count_patterns(
    spec: &EngineSpec,
    req: &LinkageRequest,
    st: &Scanned,
) -> Result<PatternTally, EngineError> {
    let e = |e| run_error(spec, e);
    let pairs = candidate_pairs(spec, req, st, false)?;
    let lookups = lookups_of(spec, st);
    let scored = with_pattern(spec, st, pairs, &lookups)?;
    let counted = scored
        .aggregate(vec![col("s"), col("pattern")], vec![count_all().alias("n")])
        .map_err(e)?;
    let got = collect(spec, counted).await?;
    let mut by_rules: Vec<(u32, u64, u64)> = rows(&got)
        .map(|(b, i)| {
            (
                int_at(b, "s", i) as u32,
                int_at(b, "pattern", i) as u64,
                int_at(b, "n", i) as u64,
            )
        })
        .collect();
    by_rules.sort_unstable();
    let mut per_rule = vec![0u64; req.rules.len()];
    let mut counts: std::collections::BTreeMap<u64, u64> = Default::default();
    for &(s, q, n) in &by_rules {
        per_rule[s.trailing_zeros() as usize] += n;
        *counts.entry(q).or_default() += n;
    }
    let n_pairs = per_rule.iter().sum();
    Ok(PatternTally {
        per_rule,
        n_pairs,
        counts: counts.into_iter().collect(),
        by_rules,
        prepared: st.prepared.clone(),
        lookups,
    })
}

/// The planner's options these plans need (set on the session by [`scan_both`], before any
/// of them is built).
/// - A round-robin repartition the planner puts between a Parquet scan and the projection
///   that reads its row numbers leaves `file_row_index()` with no file to read ("source
///   dependent and cannot be evaluated directly", DataFusion 55.2): these plans go without it
///   (the scans are still split by byte range, the joins and aggregates by hash).
/// - The joins are written with their small side (a dictionary, a table of levels or weights,
///   a chunk of random pairs) on the left, which a hash join builds; the planner, which knows
///   nothing of the candidate pairs' number, would swap them and build on the pairs.
fn set_options(ctx: &SessionContext) {
    let state = ctx.state_ref();
    let mut state = state.write();
    let opts = state.config_mut().options_mut();
    opts.optimizer.enable_round_robin_repartition = false;
    opts.optimizer.join_reordering = false;
}

/// The number of rows of `df`.
pub(super) async fn count_rows(spec: &EngineSpec, df: DataFrame) -> Result<u64, EngineError> {
    let counted = df
        .aggregate(vec![], vec![count_all().alias("n")])
        .map_err(|e| run_error(spec, e))?;
    Ok(rows(&collect(spec, counted).await?)
        .map(|(b, i)| int_at(b, "n", i) as u64)
        .sum())
}

/// [`count_patterns`] on `spec`'s engine, from synchronous code.
pub fn pattern_counts(
    spec: &EngineSpec,
    req: &LinkageRequest,
) -> Result<PatternTally, EngineError> {
    super::Run::once(spec, async {
        let ctx = super::context(spec).await?;
        let st = scan_both(spec, &ctx, req, false).await?;
        count_patterns(spec, req, &st).await
    })
}

/// The names of one side's id columns (`"a"` or `"b"`) of the comparisons `ks`, each
/// comparison's in turn ([`side_columns`]).
fn side_ids(st: &Scanned, side: &str, ks: impl Iterator<Item = usize>) -> Vec<String> {
    ks.flat_map(|k| side_columns(side, k, st.prepared[k].width()))
        .collect()
}

/// The intruder records grouped by their value ids (every comparison's, laid out as
/// `Prepared::width` says), with their number.
async fn intruder_values(
    spec: &EngineSpec,
    st: &Scanned,
) -> Result<Vec<(Vec<u32>, u64)>, EngineError> {
    let names = side_ids(st, "a", 0..st.prepared.len());
    let ids: Vec<Expr> = names.iter().map(col).collect();
    let g =
        st.a.clone()
            .aggregate(ids, vec![count_all().alias("n")])
            .map_err(|e| run_error(spec, e))?;
    let got = collect(spec, g).await?;
    let mut out = Vec::new();
    for b in &got {
        let cs: Vec<&UInt32Array> = (0..names.len())
            .map(|c| b.column(c).as_primitive::<UInt32Type>())
            .collect();
        for r in 0..b.num_rows() {
            out.push((
                cs.iter().map(|x| x.value(r)).collect(),
                int_at(b, "n", r) as u64,
            ));
        }
    }
    Ok(out)
}

/// `batch` as a table of the engine: in memory in process; on a cluster a Parquet file in the
/// scratch directory (its directory kept in `temps`), read back as the batch's types.
async fn small_table(
    spec: &EngineSpec,
    ctx: &SessionContext,
    batch: RecordBatch,
    temps: &mut Vec<tempfile::TempDir>,
) -> Result<DataFrame, EngineError> {
    let e = |e| run_error(spec, e);
    if matches!(spec.engine, crate::Engine::DataFusion) {
        return ctx.read_batch(batch).map_err(e);
    }
    let (dir, file) =
        super::source::scratch_file(spec, "Fellegi–Sunter's dictionaries and samples")?;
    let out = std::fs::File::create(&file)
        .map_err(|x| EngineError::Config(format!("cannot write {}: {x}", file.display())))?;
    let mut w = datafusion::parquet::arrow::ArrowWriter::try_new(out, batch.schema(), None)
        .map_err(|x| e(x.into()))?;
    w.write(&batch).map_err(|x| e(x.into()))?;
    w.close().map_err(|x| e(x.into()))?;
    temps.push(dir);
    let path = file
        .to_str()
        .ok_or_else(|| EngineError::Config(format!("{}: not UTF-8", file.display())))?;
    let df = ctx
        .read_parquet(path, ParquetReadOptions::default())
        .await
        .map_err(e)?;
    // (strings come back as views)
    let back: Vec<Expr> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| cast_expr(col(f.name()), f.data_type().clone()).alias(f.name()))
        .collect();
    df.select(back).map_err(e)
}

/// A table of `(key, value)` rows for a join.
async fn table2(
    spec: &EngineSpec,
    ctx: &SessionContext,
    names: (&str, &str),
    (key, value): (ArrayRef, ArrayRef),
    temps: &mut Vec<tempfile::TempDir>,
) -> Result<DataFrame, EngineError> {
    let schema = Arc::new(Schema::new(vec![
        Field::new(names.0, key.data_type().clone(), false),
        Field::new(names.1, value.data_type().clone(), false),
    ]));
    let batch =
        RecordBatch::try_new(schema, vec![key, value]).map_err(|x| run_error(spec, x.into()))?;
    small_table(spec, ctx, batch, temps).await
}

/// The level counts, per comparison (those `wanted`), of one chunk of the u estimate's random
/// pairs: the pairs joined to both files by row number, their value ids compared on the
/// driver.
async fn sample_levels(
    spec: &EngineSpec,
    ctx: &SessionContext,
    st: &Scanned,
    pairs: &[(u32, u32)],
    wanted: &[bool],
) -> Result<Vec<Vec<u64>>, EngineError> {
    let e = |e| run_error(spec, e);
    let ks: Vec<usize> = (0..wanted.len()).filter(|&k| wanted[k]).collect();
    let is: ArrayRef = Arc::new(datafusion::arrow::array::UInt64Array::from_iter_values(
        pairs.iter().map(|p| u64::from(p.0)),
    ));
    let js: ArrayRef = Arc::new(datafusion::arrow::array::UInt64Array::from_iter_values(
        pairs.iter().map(|p| u64::from(p.1)),
    ));
    let mut temps = Vec::new();
    let sample = table2(spec, ctx, ("si", "sj"), (is, js), &mut temps).await?;
    // a file's row number (as `r{row}`) and the wanted comparisons' ids
    let side = |df: &DataFrame, row: &str, ids: &str| {
        df.clone()
            .select(
                std::iter::once(cast_expr(col(row), DataType::UInt64).alias(format!("r{row}")))
                    .chain(side_ids(st, ids, ks.iter().copied()).into_iter().map(col))
                    .collect::<Vec<Expr>>(),
            )
            .map_err(e)
    };
    let (a, b) = (side(&st.a, "i", "a")?, side(&st.b, "j", "b")?);
    let joined = sample
        .join(a, JoinType::Inner, &["si"], &["ri"], None)
        .map_err(e)?
        .join(b, JoinType::Inner, &["sj"], &["rj"], None)
        .map_err(e)?;
    let got = collect(spec, joined).await?;
    let mut out: Vec<Vec<u64>> = st
        .prepared
        .iter()
        .map(|p| vec![0u64; p.spec.levels.len()])
        .collect();
    let mut seen = 0usize;
    for batch in &got {
        seen += batch.num_rows();
        for &k in &ks {
            let p = &st.prepared[k];
            let ids = |side: &str| -> Vec<&[u32]> {
                side_columns(side, k, p.width())
                    .iter()
                    .map(|c| {
                        let x = batch.column_by_name(c).expect("ids");
                        x.as_primitive::<UInt32Type>().values().as_ref()
                    })
                    .collect()
            };
            let (xs, ys) = (ids("a"), ids("b"));
            let part: Vec<u64> = (0..batch.num_rows())
                .into_par_iter()
                .fold(
                    || vec![0u64; p.spec.levels.len()],
                    |mut acc, r| {
                        let l = if p.reversed.is_empty() {
                            p.level_of_ids(xs[0][r], ys[0][r])
                        } else {
                            let x: Vec<u32> = xs.iter().map(|c| c[r]).collect();
                            let y: Vec<u32> = ys.iter().map(|c| c[r]).collect();
                            p.level_of_sides(&x, &y)
                        };
                        acc[l as usize] += 1;
                        acc
                    },
                )
                .reduce(
                    || vec![0u64; p.spec.levels.len()],
                    |mut s, t| {
                        for (a, b) in s.iter_mut().zip(t) {
                            *a += b;
                        }
                        s
                    },
                );
            for (o, v) in out[k].iter_mut().zip(part) {
                *o += v;
            }
        }
    }
    if seen != pairs.len() {
        return Err(EngineError::Run {
            engine: spec.engine.label(),
            message: format!(
                "{} of {} random pairs found their records by row number",
                seen,
                pairs.len()
            ),
        });
    }
    Ok(out)
}

/// Every candidate pair `(i, j, w)` with its match weight ([`weight_function`]).
pub(super) fn weighed_pairs(
    spec: &EngineSpec,
    req: &LinkageRequest,
    st: &Scanned,
    lookups: &Arc<Vec<Lookup>>,
    fit: &CountedFit,
) -> Result<DataFrame, EngineError> {
    let e = |e| run_error(spec, e);
    let pairs = candidate_pairs(spec, req, st, true)?;
    let weights = Weights {
        base: fit.base.clone(),
        tf: fit.tf.clone(),
    };
    let recipe = Recipe {
        weights: Some(weights.clone()),
        ..st.recipe.clone()
    };
    let udf = weight_function(lookups.clone(), &weights, recipe.encode().map_err(e)?);
    pairs
        .select(vec![
            cast_expr(col("i"), DataType::UInt32).alias("i"),
            cast_expr(col("j"), DataType::UInt32).alias("j"),
            udf.call(id_columns(lookups)).alias("w"),
        ])
        .map_err(e)
}

/// The ids of intruder row `i` and released row `j` in each comparison (laid out as
/// `Prepared::width` says, comparison after comparison).
pub(super) async fn pair_ids(
    spec: &EngineSpec,
    st: &Scanned,
    (i, j): (usize, usize),
) -> Result<(Vec<u32>, Vec<u32>), EngineError> {
    let k = side_ids(st, "a", 0..st.prepared.len()).len();
    let one =
        |df: &DataFrame, row: &str, at: usize, side: &str| -> Result<DataFrame, EngineError> {
            let names = side_ids(st, side, 0..st.prepared.len());
            df.clone()
                .filter(cast_expr(col(row), DataType::UInt64).eq(lit(at as u64)))
                .and_then(|d| d.select(names.iter().map(col).collect::<Vec<Expr>>()))
                .map_err(|e| run_error(spec, e))
        };
    let ids = |got: &[RecordBatch]| -> Vec<u32> {
        got.iter()
            .find(|b| b.num_rows() > 0)
            .map(|b| {
                (0..k)
                    .map(|c| b.column(c).as_primitive::<UInt32Type>().value(0))
                    .collect()
            })
            .unwrap_or_default()
    };
    let a = ids(&collect(spec, one(&st.a, "i", i, "a")?).await?);
    let b = ids(&collect(spec, one(&st.b, "j", j, "b")?).await?);
    if a.len() != k || b.len() != k {
        return Err(EngineError::Run {
            engine: spec.engine.label(),
            message: format!("records {} / {} not found by row number", i + 1, j + 1),
        });
    }
    Ok((a, b))
}

/// `(i, j, w)` rows of collected batches.
pub(super) fn triples(got: &[RecordBatch]) -> Vec<(u32, u32, f64)> {
    let mut out = Vec::new();
    for b in got {
        let i = b.column(0).as_primitive::<UInt32Type>();
        let j = b.column(1).as_primitive::<UInt32Type>();
        let w = b.column(2).as_primitive::<Float64Type>();
        out.extend((0..b.num_rows()).map(|r| (i.value(r), j.value(r), w.value(r))));
    }
    out
}

/// The greedy one-to-one assignment of the weighed pairs, read as a stream sorted by weight.
fn greedy(
    rt: &super::Run,
    spec: &EngineSpec,
    attack: &FellegiSunter,
    fit: &CountedFit,
    weighed: DataFrame,
) -> Result<(Linkage, FsModel), EngineError> {
    let e = |e| run_error(spec, e);
    // Sorted by weight alone (a one-column sort, several times faster than three);
    // the pairs of equal weight arrive together and are put in row order here. On
    // Ballista the sort runs on the static planner, whose sorted output reaches the
    // client in order (the adaptive planner's does not: `for_sorted_output`).
    let ranked = weighed.sort(vec![col("w").sort(false, true)]).map_err(e)?;
    let ranked = rt.block_on(super::for_sorted_output(spec, ranked))?;
    let mut stream = rt.block_on(async { ranked.execute_stream().await.map_err(e) })?;
    let mut group: Vec<(u32, u32, f64)> = Vec::new();
    let mut ready: std::collections::VecDeque<(u32, u32, f64)> = Default::default();
    let mut done = false;
    let mut failed: Option<EngineError> = None;
    let mut last: Option<f64> = None;
    let flush = |group: &mut Vec<(u32, u32, f64)>,
                 ready: &mut std::collections::VecDeque<(u32, u32, f64)>| {
        group.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)));
        ready.extend(group.drain(..));
    };
    let mut next = std::iter::from_fn(|| {
        use futures::StreamExt;
        loop {
            if let Some(x) = ready.pop_front() {
                return Some(Ok(x));
            }
            if done {
                return None;
            }
            let got = rt.block_on(async { Ok(stream.next().await) });
            let got = match got {
                Ok(got) => got,
                Err(lost) => {
                    failed = Some(lost);
                    done = true;
                    return Some(Err(intruder_attack::AttackError::from(
                        intruder_attack::ParamError::Unsupported("the engine's run failed".into()),
                    )));
                }
            };
            match got {
                None => {
                    done = true;
                    flush(&mut group, &mut ready);
                }
                Some(Err(x)) => {
                    failed = Some(run_error(spec, x));
                    done = true;
                    return Some(Err(intruder_attack::AttackError::from(
                        intruder_attack::ParamError::Unsupported("the engine's run failed".into()),
                    )));
                }
                Some(Ok(b)) => {
                    for t in triples(std::slice::from_ref(&b)) {
                        // The assignment is only right on a sorted stream: check it.
                        if let Some(l) = last.filter(|&l| t.2 > l) {
                            failed = Some(EngineError::Run {
                                engine: spec.engine.label(),
                                message: format!(
                                    "the candidate pairs sorted by weight arrived out of order (weight {} after {l}); no links are reported from an unsorted stream",
                                    t.2
                                ),
                            });
                            done = true;
                            return Some(Err(intruder_attack::AttackError::from(
                                intruder_attack::ParamError::Unsupported(
                                    "the engine's run failed".into(),
                                ),
                            )));
                        }
                        last = Some(t.2);
                        if group
                            .first()
                            .is_some_and(|g| g.2.to_bits() != t.2.to_bits())
                        {
                            flush(&mut group, &mut ready);
                        }
                        group.push(t);
                    }
                }
            }
        }
    });
    let got = attack.link_counted(fit, WeighedPairs::Ranked(&mut next));
    if let Some(f) = failed {
        return Err(f);
    }
    Ok(got?)
}

/// Splink's recipe (a specification's `[training]`), counted on the run's scan: the
/// sessions' pattern counts on their own rules by rule set, with their number of pairs, and the
/// pairs the deterministic rules find (for λ); each `None` without such rules.
async fn training_counts(
    spec: &EngineSpec,
    req: &LinkageRequest,
    st: &Scanned,
) -> Result<(Option<(Vec<(u32, u64, u64)>, usize)>, Option<usize>), EngineError> {
    let Some(t) = &req.training else {
        return Ok((None, None));
    };
    let on_rules = |rules: &[Vec<Term>]| LinkageRequest {
        rules: rules.to_vec(),
        training: None,
        ..req.clone()
    };
    let sessions = match t.blocking.is_empty() {
        true => None,
        false => {
            let got = count_patterns(spec, &on_rules(&t.blocking), st).await?;
            Some((got.by_rules, got.n_pairs as usize))
        }
    };
    let deterministic = match t.deterministic.is_empty() {
        true => None,
        false => {
            let pairs = candidate_pairs(spec, &on_rules(&t.deterministic), st, false)?;
            Some(count_rows(spec, pairs).await? as usize)
        }
    };
    Ok((sessions, deterministic))
}

/// Fellegi–Sunter with `attack`'s parameters on the engine of `spec` (DataFusion in process):
/// the same linkage and model as the local run (`FellegiSunter::run`), the records never on
/// the driver; see [`intruder_attack::fellegi_sunter::counted`].
pub fn link(
    spec: &EngineSpec,
    req: &LinkageRequest,
    attack: &FellegiSunter,
    seed: u64,
) -> Result<Linked, EngineError> {
    let rt = super::Run::start(spec)?;
    let ctx = rt.block_on(super::context(spec))?;
    let mut clock =
        intruder_attack::fellegi_sunter::Clock::labelled("fellegi-sunter on the engine");
    let st = rt.block_on(scan_both(spec, &ctx, req, true))?;
    clock.lap("dictionaries");
    let tally = rt.block_on(count_patterns(spec, req, &st))?;
    let lookups = tally.lookups.clone();
    clock.lap("pattern counts");
    let (training, deterministic_pairs) = rt.block_on(training_counts(spec, req, &st))?;
    if req.training.is_some() {
        clock.lap("training rules");
    }
    let counted = Counted {
        prepared: st.prepared.clone(),
        values: st.values.clone(),
        dims: st.dims,
        per_rule: tally.per_rule.iter().map(|&n| n as usize).collect(),
        counts: tally.counts,
        by_rules: tally.by_rules,
        intruder_values: rt.block_on(intruder_values(spec, &st))?,
        training,
        deterministic_pairs,
    };
    clock.lap("intruder records by value");
    let fit = attack.fit_counted(&counted, seed, |pairs, wanted| {
        rt.block_on(sample_levels(spec, &ctx, &st, pairs, wanted))
    })?;
    clock.lap("u and EM");
    let weighed = weighed_pairs(spec, req, &st, &lookups, &fit)?;
    let e = |e| run_error(spec, e);
    let (linkage, model) = match attack.params().assignment {
        Assignment::None => {
            let got = rt.block_on(collect(spec, weighed))?;
            attack.link_counted(&fit, WeighedPairs::All(triples(&got)))?
        }
        Assignment::Optimal => {
            let above = weighed
                .filter(col("w").gt_eq(lit(fit.threshold_weight)))
                .map_err(e)?;
            let got = rt.block_on(collect(spec, above))?;
            attack.link_counted(&fit, WeighedPairs::Above(triples(&got)))?
        }
        Assignment::Greedy => greedy(&rt, spec, attack, &fit, weighed)?,
    };
    clock.lap("weights and assignment");
    let mut model = model;
    if let Some((i, j)) = borderline(&linkage, &fit, attack.params().assignment) {
        let (a, b) = rt.block_on(pair_ids(spec, &st, (i, j)))?;
        model.borderline = Some(fit.waterfall(&st.prepared, (i, j), (&a, &b), true));
    }
    let session = super::fs_model::Session {
        spec: spec.clone(),
        req: req.clone(),
        fit,
        st,
        threads: rt.threads(),
    };
    let model = super::fs_model::EngineModel::new(model, session);
    rt.finish(Linked {
        linkage,
        model: Some(Box::new(model)),
    })
}
