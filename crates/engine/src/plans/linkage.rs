//! Fellegi–Sunter's comparison and pattern counting as plans: the candidate pairs of the
//! blocking rules (as [`super::blocking`] makes them), each pair's level on every comparison,
//! and the agreement patterns counted by the set of rules the pairs agree on — what the local
//! kernel ([`intruder_attack::fellegi_sunter::kernel::Kernel::build`]) counts, and all that
//! EM reads.
//!
//! The values are compared on the driver, once per distinct pair, with the local engine's own
//! definitions ([`Prepared::level_of_ids`]); the records never leave the engine:
//! 1. each comparison's distinct values in either file (a `GROUP BY`) are interned on the
//!    driver into the comparison's dictionary ([`Prepared`], built from the distinct values as
//!    the local engine builds it from the records), and joined back to each record as its
//!    value id;
//! 2. each blocking rule is an equi-join less the pairs of the earlier rules, tagged with the
//!    set of rules the pair agrees on (bit `r`: both records observe rule `r`'s columns and
//!    they are equal);
//! 3. per comparison, the distinct `(intruder id, released id)` pairs among the candidate pairs
//!    go to the driver, which computes their levels (string similarities and all) in parallel;
//!    the levels are joined back to the pairs;
//! 4. the pattern (4 bits a comparison, as
//!    [`intruder_attack::fellegi_sunter::compare::pack`] packs it) is counted by rule set.
//!
//! The candidate pairs are produced again for each comparison's distinct pairs and for the
//! final count rather than held: under a memory limit the joins and aggregates spill.

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, RecordBatch, UInt8Array, UInt32Array, new_null_array,
};
use datafusion::arrow::compute::{cast, concat};
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Int64Type, Schema, UInt32Type};
use datafusion::functions_aggregate::count::count_all;
use datafusion::prelude::*;
use rayon::prelude::*;

use intruder_attack::fellegi_sunter::compare::Prepared;
use intruder_attack::fellegi_sunter::encode::MISSING;
use intruder_attack::fellegi_sunter::{Comparison, LevelKind, Term};
use intruder_data::{Column, Input, Role, Table};

use super::risk::{collect, int_at, rows};
use super::source::scan;
use super::{run_error, runtime};
use crate::{EngineError, EngineSpec};

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
    /// The blocking rules (column terms), OR-ed.
    pub rules: Vec<Vec<Term>>,
    /// The comparisons, in the specification's order.
    pub comparisons: Vec<Comparison>,
    /// The released name of an intruder column (a key map), when it differs.
    pub released_names: Vec<(String, String)>,
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
}

impl LinkageRequest {
    fn released_name(&self, c: &str) -> String {
        self.released_names
            .iter()
            .find(|(i, _)| i == c)
            .map_or(c.to_string(), |(_, r)| r.clone())
    }

    /// The columns read, each once: `(intruder name, released name)`.
    fn columns(&self, spec: &EngineSpec) -> Result<Vec<(String, String)>, EngineError> {
        let refuse = |what: String| EngineError::Unsupported {
            engine: spec.engine.label(),
            what,
        };
        let mut cols: Vec<(String, String)> = Vec::new();
        let mut add = |i: &str, r: String| -> Result<(), EngineError> {
            match cols.iter().find(|(x, _)| x == i) {
                Some((_, y)) if *y != r => Err(refuse(format!(
                    "intruder column '{i}' is compared with released columns '{y}' and '{r}': the plans read one released column per intruder column"
                ))),
                Some(_) => Ok(()),
                None => {
                    cols.push((i.to_string(), r));
                    Ok(())
                }
            }
        };
        for t in self.rules.iter().flatten() {
            match t {
                Term::Column { column } => add(column, self.released_name(column))?,
                other => {
                    return Err(refuse(format!(
                        "blocking term {}: the plans block on column terms; expressions of a column block on the local engine",
                        other.label()
                    )));
                }
            }
        }
        for c in &self.comparisons {
            if c.levels
                .iter()
                .any(|l| l.kind == LevelKind::ColumnsReversed)
            {
                return Err(refuse(format!(
                    "comparison '{}' has a columns-reversed level, which reads a second column per record: it runs on the local engine only",
                    c.column
                )));
            }
            let r = c
                .released
                .clone()
                .unwrap_or_else(|| self.released_name(&c.column));
            add(&c.column, r)?;
        }
        if self.rules.iter().any(Vec::is_empty) {
            return Err(refuse(
                "a blocking rule without terms pairs every record with every other: the plans need at least one column per rule".into(),
            ));
        }
        Ok(cols)
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
    let e = |e: datafusion::arrow::error::ArrowError| run_error(spec, e.into());
    let t = values.data_type();
    Ok(if t.is_integer() {
        let v = cast(values, &DataType::Int64).map_err(e)?;
        let v = v.as_primitive::<Int64Type>();
        Column::integer(name, Role::Key, &v.iter().collect::<Vec<_>>())
    } else if t.is_floating() {
        let v = cast(values, &DataType::Float64).map_err(e)?;
        let v = v.as_primitive::<Float64Type>();
        Column::float(name, Role::Key, &v.iter().collect::<Vec<_>>())
    } else if matches!(
        t,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View | DataType::Dictionary(..)
    ) {
        let v = cast(values, &DataType::Utf8).map_err(e)?;
        let v = v.as_string::<i32>();
        Column::string(name, Role::Key, &v.iter().collect::<Vec<_>>())
    } else {
        return Err(EngineError::Unsupported {
            engine: spec.engine.label(),
            what: format!(
                "{file}: column '{name}' is {t}; the plans compare integer, float and text columns"
            ),
        });
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
    let t = df
        .schema()
        .field_with_unqualified_name(c)
        .map_err(|e| run_error(spec, e))?
        .data_type()
        .clone();
    match t {
        DataType::Dictionary(..) | DataType::LargeUtf8 | DataType::Utf8View => df
            .with_column(c, cast_expr(col(c), DataType::Utf8))
            .map_err(|e| run_error(spec, e)),
        _ => Ok(df),
    }
}

fn cast_expr(e: Expr, t: DataType) -> Expr {
    datafusion::prelude::cast(e, t)
}

/// The distinct values of column `c` of `df`.
async fn distinct_values(
    spec: &EngineSpec,
    df: &DataFrame,
    c: &str,
) -> Result<ArrayRef, EngineError> {
    let t = df
        .schema()
        .field_with_unqualified_name(c)
        .map_err(|e| run_error(spec, e))?
        .data_type()
        .clone();
    let d = df
        .clone()
        .aggregate(vec![col(c)], vec![])
        .map_err(|e| run_error(spec, e))?;
    let got = collect(spec, d).await?;
    one_array(spec, &got, &t)
}

/// `df` with the value id `id` of column `c` (a left join with the dictionary `values` →
/// `ids`; missing values get [`MISSING`]).
fn with_ids(
    spec: &EngineSpec,
    ctx: &SessionContext,
    df: DataFrame,
    c: &str,
    id: &str,
    values: &ArrayRef,
    ids: &[u32],
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
    let dict = ctx.read_batch(batch).map_err(e)?;
    let joined = df
        .join(dict, JoinType::Left, &[c], &[vname.as_str()], None)
        .map_err(e)?;
    let keep: Vec<Expr> = joined
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .filter(|n| *n != vname && *n != iname)
        .map(|n| col(n))
        .chain([coalesce(vec![col(&iname), lit(MISSING)]).alias(id)])
        .collect();
    joined.select(keep).map_err(e)
}

/// The comparisons' dictionaries, and both files with each comparison's value ids
/// (`ia{k}`, `ib{k}`).
async fn dictionaries(
    spec: &EngineSpec,
    ctx: &SessionContext,
    req: &LinkageRequest,
    cols: &[(String, String)],
    (mut a, mut b): (DataFrame, DataFrame),
    labels: (&str, &str),
) -> Result<(Vec<Prepared>, DataFrame, DataFrame), EngineError> {
    let mut prepared = Vec::with_capacity(req.comparisons.len());
    for (k, c) in req.comparisons.iter().enumerate() {
        let n = cols
            .iter()
            .position(|(i, _)| *i == c.column)
            .expect("a read column");
        let (x, y) = (format!("a{n}"), format!("b{n}"));
        a = plain(spec, a, &x)?;
        b = plain(spec, b, &y)?;
        let va = distinct_values(spec, &a, &x).await?;
        let vb = distinct_values(spec, &b, &y).await?;
        let rname = &cols[n].1;
        let ta = Table::new(labels.0, vec![as_column(spec, &c.column, &va, labels.0)?])?;
        let tb = Table::new(labels.1, vec![as_column(spec, rname, &vb, labels.1)?])?;
        let p = Prepared::new(c, &ta, &tb, rname).map_err(|e| EngineError::Run {
            engine: spec.engine.label(),
            message: e.to_string(),
        })?;
        a = with_ids(spec, ctx, a, &x, &format!("ia{k}"), &va, &p.a)?;
        b = with_ids(spec, ctx, b, &y, &format!("ib{k}"), &vb, &p.b)?;
        prepared.push(p);
    }
    Ok((prepared, a, b))
}

/// The candidate pairs: per rule an equi-join less the earlier rules' pairs, with `s`, the set
/// of rules the pair agrees on, and the value ids of every comparison; the rules' pairs
/// unioned.
fn candidate_pairs(
    spec: &EngineSpec,
    req: &LinkageRequest,
    cols: &[(String, String)],
    a: &DataFrame,
    b: &DataFrame,
) -> Result<DataFrame, EngineError> {
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
        let ty = |df: &DataFrame, c: &str| -> Result<DataType, EngineError> {
            Ok(df
                .schema()
                .field_with_unqualified_name(c)
                .map_err(e)?
                .data_type()
                .clone())
        };
        if ty(&a, &x)? == ty(&b, &y)? {
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
        .map(|rule| rule.iter().map(|t| key(at(t.column()))).collect())
        .collect::<Result<_, _>>()?;
    let agree = |r: usize| -> Expr {
        keys[r]
            .iter()
            .map(|(x, y)| col(x).eq(col(y)))
            .fold(lit(true), Expr::and)
            .is_true()
    };
    let ids: Vec<Expr> = (0..req.comparisons.len())
        .flat_map(|k| [col(format!("ia{k}")), col(format!("ib{k}"))])
        .collect();
    let mut all: Option<DataFrame> = None;
    for r in 0..req.rules.len() {
        let l: Vec<&str> = keys[r].iter().map(|(x, _)| x.as_str()).collect();
        let rr: Vec<&str> = keys[r].iter().map(|(_, y)| y.as_str()).collect();
        let earlier = (0..r).map(|q| agree(q).not()).reduce(Expr::and);
        let joined = a
            .clone()
            .join(b.clone(), JoinType::Inner, &l, &rr, earlier)
            .map_err(e)?;
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

/// The levels of comparison `k` for its distinct value-id pairs among `pairs`: computed on the
/// driver, in parallel, as a table `(x{k}, y{k}, l{k})` to join back.
async fn levels(
    spec: &EngineSpec,
    ctx: &SessionContext,
    pairs: &DataFrame,
    k: usize,
    p: &Prepared,
) -> Result<DataFrame, EngineError> {
    let e = |e| run_error(spec, e);
    let (ia, ib) = (format!("ia{k}"), format!("ib{k}"));
    let d = pairs
        .clone()
        .aggregate(vec![col(&ia), col(&ib)], vec![])
        .map_err(e)?;
    let got = collect(spec, d).await?;
    let mut xs: Vec<u32> = Vec::new();
    let mut ys: Vec<u32> = Vec::new();
    for batch in &got {
        xs.extend(batch.column(0).as_primitive::<UInt32Type>().values().iter());
        ys.extend(batch.column(1).as_primitive::<UInt32Type>().values().iter());
    }
    let ls: Vec<u8> = xs
        .par_iter()
        .zip(&ys)
        .map(|(&x, &y)| p.level_of_ids(x, y))
        .collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new(format!("x{k}"), DataType::UInt32, false),
        Field::new(format!("y{k}"), DataType::UInt32, false),
        Field::new(format!("l{k}"), DataType::UInt8, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(UInt32Array::from(xs)),
            Arc::new(UInt32Array::from(ys)),
            Arc::new(UInt8Array::from(ls)),
        ],
    )
    .map_err(|x| e(x.into()))?;
    ctx.read_batch(batch).map_err(e)
}

/// Counts the agreement patterns of the candidate pairs by rule set; see the [module
/// docs](self).
pub async fn count_patterns(
    spec: &EngineSpec,
    ctx: &SessionContext,
    req: &LinkageRequest,
) -> Result<PatternTally, EngineError> {
    let e = |e| run_error(spec, e);
    if req.comparisons.len() > intruder_attack::fellegi_sunter::MAX_COMPARISONS {
        return Err(EngineError::Config(format!(
            "{} comparisons: at most {} are supported",
            req.comparisons.len(),
            intruder_attack::fellegi_sunter::MAX_COMPARISONS
        )));
    }
    let cols = req.columns(spec)?;
    let icols: Vec<(String, String)> = cols
        .iter()
        .enumerate()
        .map(|(n, (c, _))| (c.clone(), format!("a{n}")))
        .collect();
    let rcols: Vec<(String, String)> = cols
        .iter()
        .enumerate()
        .map(|(n, (_, r))| (r.clone(), format!("b{n}")))
        .collect();
    let si = scan(spec, ctx, &req.intruder, &req.intruder_input, &icols, None).await?;
    let sr = scan(spec, ctx, &req.released, &req.released_input, &rcols, None).await?;
    let labels = (si.label.as_str(), sr.label.as_str());
    let (prepared, a, b) = dictionaries(
        spec,
        ctx,
        req,
        &cols,
        (si.df.clone(), sr.df.clone()),
        labels,
    )
    .await?;
    let pairs = candidate_pairs(spec, req, &cols, &a, &b)?;
    let mut scored = pairs.clone();
    for (k, p) in prepared.iter().enumerate() {
        let lv = levels(spec, ctx, &pairs, k, p).await?;
        let (ia, ib, x, y) = (
            format!("ia{k}"),
            format!("ib{k}"),
            format!("x{k}"),
            format!("y{k}"),
        );
        scored = scored
            .join(lv, JoinType::Inner, &[&ia, &ib], &[&x, &y], None)
            .map_err(e)?;
    }
    let pattern = (0..prepared.len()).fold(lit(0i64), |acc, k| {
        acc + cast_expr(col(format!("l{k}")), DataType::Int64) * lit(16i64.pow(k as u32))
    });
    let counted = scored
        .aggregate(
            vec![col("s"), pattern.alias("pattern")],
            vec![count_all().alias("n")],
        )
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
        prepared,
    })
}

/// [`count_patterns`] on `spec`'s engine, from synchronous code.
pub fn pattern_counts(
    spec: &EngineSpec,
    req: &LinkageRequest,
) -> Result<PatternTally, EngineError> {
    runtime()?.block_on(async {
        let ctx = super::context(spec).await?;
        count_patterns(spec, &ctx, req).await
    })
}
