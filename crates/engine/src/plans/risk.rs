//! Frequency and individual risk as plans: class sizes by `GROUP BY`, Mulder's wildcard
//! `n_match` by missingness pattern, individual risk per class by the toolkit's formula (a
//! UDF). Only counts reach the driver: the histogram of class sizes (or of `n_match`) and the
//! distinct individual risks with their records; [`intruder_risk::external`] makes the
//! figures from them with the local engine's own functions.

use std::path::Path;

use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Float64Type, Int64Type};
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::functions_aggregate::count::count_all;
use datafusion::functions_aggregate::expr_fn::{count, count_distinct, max, min, sum};
use datafusion::prelude::*;
use datafusion::scalar::ScalarValue;

use intruder_data::Input;
use intruder_risk::external::{
    ClassCounts, NMatchCounts, WeightFacts, assess_class_counts, assess_n_match_counts, check_file,
    warnings,
};
use intruder_risk::{Assessment, Encoding, MissingPolicy, RiskError, RiskParams};

use super::run_error;
use super::source::scan;
use super::udf::individual_risk;
use crate::{Engine, EngineError, EngineSpec};

/// The `k`-th key's column in plans.
fn key(k: usize) -> String {
    format!("k{k}")
}

/// Runs `df` and returns its batches.
pub(crate) async fn collect(
    spec: &EngineSpec,
    df: DataFrame,
) -> Result<Vec<RecordBatch>, EngineError> {
    df.collect().await.map_err(|e| run_error(spec, e))
}

/// The value of row `i` of column `c` as an integer (counts are BIGINT; null is 0).
pub(crate) fn int_at(b: &RecordBatch, c: &str, i: usize) -> i64 {
    let a = b.column_by_name(c).expect("a column the plan names");
    if a.is_null(i) {
        return 0;
    }
    match a.data_type() {
        DataType::Int64 => a.as_primitive::<Int64Type>().value(i),
        DataType::UInt64 => a
            .as_primitive::<datafusion::arrow::datatypes::UInt64Type>()
            .value(i) as i64,
        DataType::Int32 => a
            .as_primitive::<datafusion::arrow::datatypes::Int32Type>()
            .value(i) as i64,
        t => panic!("column {c} is {t}, not an integer"),
    }
}

/// The value of row `i` of column `c` as a number (`None` when null).
pub(crate) fn float_at(b: &RecordBatch, c: &str, i: usize) -> Option<f64> {
    let a = b.column_by_name(c).expect("a column the plan names");
    (!a.is_null(i)).then(|| a.as_primitive::<Float64Type>().value(i))
}

/// Every row of the batches.
pub(crate) fn rows(batches: &[RecordBatch]) -> impl Iterator<Item = (&RecordBatch, usize)> {
    batches
        .iter()
        .flat_map(|b| (0..b.num_rows()).map(move |i| (b, i)))
}

/// What the first pass learns of the file.
struct Facts {
    n_total: usize,
    observed: Vec<usize>,
    /// Per key, its least and greatest value when it is an integer column whose values fit
    /// in an `i64` (`Some(None)` when the key has no value at all); `None` otherwise.
    range: Vec<Option<Option<(i64, i64)>>>,
}

/// The frequency figures of `data` as `params` asks (every figure [`counts_suffice`] allows;
/// the caller has checked that).
///
/// [`counts_suffice`]: intruder_risk::external::counts_suffice
pub async fn assess(
    spec: &EngineSpec,
    ctx: &SessionContext,
    data: &Path,
    input: &Input,
    params: &RiskParams,
) -> Result<Assessment, EngineError> {
    params.check()?;
    let file = data.display().to_string();
    let nk = params.keys.len();
    let mut columns: Vec<(String, String)> = params
        .keys
        .iter()
        .enumerate()
        .map(|(k, name)| (name.clone(), key(k)))
        .collect();
    if let Some(w) = &params.weight {
        columns.push((w.clone(), "w".into()));
    }
    // Row numbers only name offending weights; on Ballista, whose executors cannot read them
    // (`file_row_index_reaches_executors`), the weight checks find those records in process.
    // Without a weight the scan leaves them out, which lets the first pass take its counts
    // and ranges from the file's statistics.
    let row = (params.weight.is_some() && file_row_index_reaches_executors(spec)).then_some("row");
    let src = scan(spec, ctx, data, input, &columns, row).await?;
    let mut df = src.df;
    if let Some(w) = &params.weight {
        let t = df
            .schema()
            .field_with_unqualified_name("w")
            .map_err(|e| run_error(spec, e))?
            .data_type()
            .clone();
        if !t.is_numeric() {
            return Err(RiskError::Column {
                file: file.clone(),
                column: w.clone(),
                message: format!("is {t} but a weight must be numeric"),
            }
            .into());
        }
        df = df
            .with_column("w", cast(col("w"), DataType::Float64))
            .map_err(|e| run_error(spec, e))?;
    }
    let facts = facts(spec, &df, nk).await?;
    check_file(&file, &params.keys, facts.n_total)?;
    let weight_facts = match &params.weight {
        Some(w) => {
            let mut wf = weight_facts(spec, &df, w, &file, facts.n_total).await?;
            if row.is_none() && (wf.bad > 0 || wf.facts.below_one.is_some()) {
                // Where the offending records are: found by DataFusion in process (the file
                // is read here only when a weight is missing, negative or below 1).
                let local = super::in_process(spec);
                let lctx = super::context(&local).await?;
                let w_col = vec![(w.clone(), "w".to_string())];
                let src = scan(&local, &lctx, data, input, &w_col, Some("row")).await?;
                let ldf = src
                    .df
                    .with_column("w", cast(col("w"), DataType::Float64))
                    .map_err(|e| run_error(spec, e))?;
                wf = weight_facts(&local, &ldf, w, &file, facts.n_total).await?;
            }
            if let Some(e) = wf.error {
                return Err(e.into());
            }
            Some(wf.facts)
        }
        None => None,
    };
    let weighted = params.weight.is_some();
    let mut a = if params.missing == MissingPolicy::Wildcard {
        let tuple = match radices(&facts.range, true) {
            Some(r) => Tuple::Packed(r, may_miss(&facts, true)),
            None => Tuple::Columns(nk),
        };
        let counts = n_match_counts(spec, ctx, df, &tuple, weighted, facts.n_total).await?;
        assess_n_match_counts(counts, &file, params)?
    } else {
        let counts = class_counts(spec, df, nk, weighted, params.missing, &facts).await?;
        assess_class_counts(counts, &file, params)?
    };
    a.warnings = warnings(
        &file,
        params,
        facts.n_total,
        &facts.observed,
        weight_facts.as_ref(),
    );
    Ok(a)
}

/// Records, and per key the records observed and, for integer keys, the least and greatest
/// value (cheap: Parquet's statistics often give them).
async fn facts(spec: &EngineSpec, df: &DataFrame, nk: usize) -> Result<Facts, EngineError> {
    let schema = df.schema().clone();
    let is_int: Vec<bool> = (0..nk)
        .map(|k| {
            schema
                .field_with_unqualified_name(&key(k))
                .is_ok_and(|f| f.data_type().is_integer())
        })
        .collect();
    let mut aggs = vec![count_all().alias("n")];
    for k in 0..nk {
        aggs.push(count(col(key(k))).alias(format!("o{k}")));
        if is_int[k] {
            aggs.push(min(col(key(k))).alias(format!("lo{k}")));
            aggs.push(max(col(key(k))).alias(format!("hi{k}")));
        }
    }
    let b = &totals(spec, df, aggs).await?;
    let range = (0..nk)
        .map(|k| {
            if !is_int[k] {
                return None;
            }
            let (lo, hi) = (
                wide_int_at(b, &format!("lo{k}")),
                wide_int_at(b, &format!("hi{k}")),
            );
            match (lo, hi) {
                (Some(lo), Some(hi)) => match (i64::try_from(lo), i64::try_from(hi)) {
                    (Ok(lo), Ok(hi)) => Some(Some((lo, hi))),
                    _ => None,
                },
                _ => Some(None),
            }
        })
        .collect();
    Ok(Facts {
        n_total: int_at(b, "n", 0) as usize,
        observed: (0..nk)
            .map(|k| int_at(b, &format!("o{k}"), 0) as usize)
            .collect(),
        range,
    })
}

/// Row 0 of integer column `c` widened to `i128` (`None` when null).
fn wide_int_at(b: &RecordBatch, c: &str) -> Option<i128> {
    use datafusion::arrow::compute::cast;
    let a = b.column_by_name(c).expect("a column the plan names");
    if a.is_null(0) {
        return None;
    }
    if a.data_type() == &DataType::UInt64 {
        return Some(
            a.as_primitive::<datafusion::arrow::datatypes::UInt64Type>()
                .value(0) as i128,
        );
    }
    let a = cast(a, &DataType::Int64).expect("an integer column casts to Int64");
    Some(a.as_primitive::<Int64Type>().value(0) as i128)
}

/// The one row of `aggs` over the whole of `df`.
async fn totals(
    spec: &EngineSpec,
    df: &DataFrame,
    aggs: Vec<Expr>,
) -> Result<RecordBatch, EngineError> {
    let b = collect(
        spec,
        df.clone()
            .aggregate(vec![], aggs)
            .map_err(|e| run_error(spec, e))?,
    )
    .await?;
    Ok(b.into_iter()
        .find(|b| b.num_rows() > 0)
        .expect("an aggregate without groups has one row"))
}

/// Each key's distinct values (a pass of its own: only when the ranges cannot settle the
/// encoding).
async fn distinct(spec: &EngineSpec, df: &DataFrame, nk: usize) -> Result<Vec<usize>, EngineError> {
    let aggs = (0..nk)
        .map(|k| count_distinct(col(key(k))).alias(format!("d{k}")))
        .collect();
    let b = totals(spec, df, aggs).await?;
    Ok((0..nk)
        .map(|k| int_at(&b, &format!("d{k}"), 0) as usize)
        .collect())
}

/// The radix of each key when every key is an integer column and the product of their
/// ranges (each one more under as-value, for missing) is below 2^63: each tuple is then one
/// `BIGINT`, Σ (value − least) × stride, missing coded as the range. `None` otherwise.
fn radices(range: &[Option<Option<(i64, i64)>>], as_value: bool) -> Option<Vec<(i64, i64)>> {
    let mut product: i128 = 1;
    let mut out = Vec::with_capacity(range.len());
    for r in range {
        let (lo, width) = match (*r)? {
            Some((lo, hi)) => (lo, hi as i128 - lo as i128 + 1),
            None => (0, 0),
        };
        let radix = (width + i128::from(as_value)).max(1);
        product = product.checked_mul(radix)?;
        if product >= 1i128 << 63 {
            return None;
        }
        out.push((lo, radix as i64));
    }
    Some(out)
}

/// The one `BIGINT` coding a tuple by `radices` (see there); a key that `may_miss` gets the
/// missing code (radix − 1) where it is missing (under listwise no key may: those records are
/// gone).
fn packed(radices: &[(i64, i64)], may_miss: &[bool]) -> Expr {
    let mut stride: i64 = 1;
    let mut sum: Option<Expr> = None;
    for (k, &(lo, radix)) in radices.iter().enumerate() {
        if radix > 1 {
            let v = cast(col(key(k)), DataType::Int64) - lit(lo);
            let code = match may_miss[k] {
                true => coalesce(vec![v, lit(radix - 1)]),
                false => v,
            };
            let term = code * lit(stride);
            sum = Some(match sum {
                Some(s) => s + term,
                None => term,
            });
        }
        stride *= radix;
    }
    sum.unwrap_or_else(|| lit(0i64))
}

/// Per key, whether it may be missing in the records grouped under `as_value` (else none is).
fn may_miss(facts: &Facts, as_value: bool) -> Vec<bool> {
    facts
        .observed
        .iter()
        .map(|&o| as_value && o < facts.n_total)
        .collect()
}

/// The weight column checked as the local engine checks it (every record a finite number ≥ 0;
/// the first offending record named), and what its warnings need.
async fn weight_facts(
    spec: &EngineSpec,
    df: &DataFrame,
    name: &str,
    file: &str,
    n: usize,
) -> Result<Weights, EngineError> {
    let with_rows = df.schema().field_with_unqualified_name("row").is_ok();
    let w = || col("w");
    let bad = w().is_null().or(w().lt(lit(0.0))).or(w().gt(lit(f64::MAX)));
    let below = w().lt(lit(1.0));
    let row_if = |c: Expr| {
        let row = match with_rows {
            true => col("row"),
            false => lit(0i64),
        };
        when(c, row)
            .otherwise(lit(ScalarValue::Int64(None)))
            .expect("a CASE with one branch")
    };
    let ones = |c: Expr| sum(when(c, lit(1i64)).otherwise(lit(0i64)).expect("CASE"));
    let aggs = vec![
        min(row_if(bad.clone())).alias("first_bad"),
        min(row_if(below.clone())).alias("first_below"),
        ones(below).alias("below"),
        ones(bad).alias("bad"),
        min(w()).alias("min"),
        sum(w()).alias("total"),
    ];
    let b = &totals(spec, df, aggs).await?;
    let at = |row: i64| async move {
        let r = collect(
            spec,
            df.clone()
                .filter(col("row").eq(lit(row)))
                .map_err(|e| run_error(spec, e))?
                .select(vec![col("w")])
                .map_err(|e| run_error(spec, e))?,
        )
        .await?;
        Ok::<Option<f64>, EngineError>(rows(&r).next().and_then(|(b, i)| float_at(b, "w", i)))
    };
    let err = |message: String| RiskError::Column {
        file: file.into(),
        column: name.into(),
        message,
    };
    let bad = int_at(b, "bad", 0) as usize;
    let mut error = None;
    if with_rows && bad > 0 {
        let row = int_at(b, "first_bad", 0);
        error = Some(match at(row).await? {
            None => err(format!(
                "record {} has no weight; every record needs one",
                row + 1
            )),
            Some(v) => err(format!(
                "record {} has weight {v}; a weight must be a finite number ≥ 0",
                row + 1
            )),
        });
    }
    let below_one = if b.column_by_name("first_below").expect("named").is_null(0) {
        None
    } else {
        let first = int_at(b, "first_below", 0);
        let value = match with_rows {
            true => at(first).await?.unwrap_or(f64::NAN),
            false => f64::NAN,
        };
        Some((
            int_at(b, "below", 0) as usize,
            first as usize,
            value,
            float_at(b, "min", 0).unwrap_or(f64::NAN),
        ))
    };
    Ok(Weights {
        facts: WeightFacts {
            name: name.to_string(),
            below_one,
            total: float_at(b, "total", 0).unwrap_or(0.0),
            n,
        },
        bad,
        error,
    })
}

/// A weight column's facts, its missing or negative weights, and the error naming the first
/// (when the rows are known).
struct Weights {
    facts: WeightFacts,
    bad: usize,
    error: Option<RiskError>,
}

/// Whether each record's row number (DataFusion's `file_row_index()`) can be used on `spec`'s
/// engine: in process yes; on Ballista no — datafusion-proto 55.2 rebuilds a Parquet scan's
/// table schema from its file schema and partition columns only
/// (`FileScanConfig::parse_table_schema_from_proto`, datafusion-datasource 55.2.0
/// `file_scan_config/proto.rs`), so an executor cannot decode a scan that projects the row
/// index ("Column index 6 out of bounds for projected expressions of length 6").
/// Whether the plans' executors can read a Parquet scan's `file_row_index()`: in process yes;
/// on Ballista 55 no (docs/cluster.md), where a run needing row numbers scans a numbered copy
/// ([`super::source::scan`], [`EngineSpec::scratch_dir`]).
pub(crate) fn file_row_index_reaches_executors(spec: &EngineSpec) -> bool {
    spec.engine == Engine::DataFusion
}

/// How the local engine codes the tuples: Dalenius' mixed radix when the key space fits in
/// 64 bits (each key's distinct values, plus missing under as-value), else re-coding.
fn encoding(distinct: &[usize], as_value: bool) -> Encoding {
    let product = distinct
        .iter()
        .map(|&d| d as u64 + u64::from(as_value))
        .try_fold(1u64, |p, r| p.checked_mul(r.max(1)));
    match product {
        Some(p) if p < u64::MAX => Encoding::MixedRadix,
        _ => Encoding::Recoded,
    }
}

/// The distinct individual risks of `df` (whose rows have `risk` and `records`) with their
/// records, and the sum of the risks over the records.
async fn risk_levels(
    spec: &EngineSpec,
    df: DataFrame,
) -> Result<(Vec<(f64, usize)>, f64), EngineError> {
    let b = collect(
        spec,
        df.aggregate(vec![col("risk")], vec![sum(col("records")).alias("r")])
            .map_err(|e| run_error(spec, e))?,
    )
    .await?;
    let levels: Vec<(f64, usize)> = rows(&b)
        .map(|(b, i)| {
            (
                float_at(b, "risk", i).unwrap_or(0.0),
                int_at(b, "r", i) as usize,
            )
        })
        .collect();
    let total = sum_of_risks(&levels);
    Ok((levels, total))
}

/// The sum of the risks of `levels` (risk, records) over their records, summed by decreasing
/// risk, then records: the same on any partitioning.
fn sum_of_risks(levels: &[(f64, usize)]) -> f64 {
    let mut sorted = levels.to_vec();
    sorted.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    sorted.iter().map(|&(r, c)| r * c as f64).sum()
}

/// The histogram of `df`'s column `value`, each row counting `weight` records.
async fn histogram(
    spec: &EngineSpec,
    df: DataFrame,
    value: &str,
    weight: Expr,
) -> Result<Vec<(u32, usize)>, EngineError> {
    let b = collect(
        spec,
        df.aggregate(vec![col(value)], vec![sum(weight).alias("c")])
            .map_err(|e| run_error(spec, e))?,
    )
    .await?;
    Ok(rows(&b)
        .map(|(b, i)| (int_at(b, value, i) as u32, int_at(b, "c", i) as usize))
        .collect())
}

/// Class sizes (and weighted sizes) under listwise or as-value.
async fn class_counts(
    spec: &EngineSpec,
    df: DataFrame,
    nk: usize,
    weighted: bool,
    policy: MissingPolicy,
    facts: &Facts,
) -> Result<ClassCounts, EngineError> {
    let e = |e| run_error(spec, e);
    let keys: Vec<Expr> = (0..nk).map(|k| col(key(k))).collect();
    let df_for_distinct = df.clone();
    let mut base = df;
    if policy == MissingPolicy::Listwise {
        let complete = keys
            .iter()
            .map(|k| k.clone().is_not_null())
            .reduce(Expr::and)
            .expect("at least one key");
        base = base.filter(complete).map_err(e)?;
    }
    let mut aggs = vec![count_all().alias("f")];
    if weighted {
        aggs.push(sum(col("w")).alias("big"));
    }
    let as_value = policy == MissingPolicy::AsValue;
    // Grouped on one BIGINT when the keys' ranges allow (the local engine's mixed radix;
    // several times faster than grouping on the columns, in half the memory), else on the
    // columns. Either way the encoding reported is the local engine's.
    let (group, encoding) = match radices(&facts.range, as_value) {
        Some(r) => (
            vec![packed(&r, &may_miss(facts, as_value)).alias("tuple")],
            Encoding::MixedRadix,
        ),
        None => (
            keys,
            encoding(&distinct(spec, &df_for_distinct, nk).await?, as_value),
        ),
    };
    let classes = base.aggregate(group, aggs).map_err(e)?;
    let sizes = histogram(spec, classes.clone(), "f", lit(1i64)).await?;
    let counted: usize = sizes.iter().map(|&(f, c)| f as usize * c).sum();
    let risk_levels = if weighted {
        let r = classes
            .select(vec![
                individual_risk()
                    .call(vec![col("f"), col("big")])
                    .alias("risk"),
                col("f").alias("records"),
            ])
            .map_err(e)?;
        Some(risk_levels(spec, r).await?)
    } else {
        None
    };
    Ok(ClassCounts {
        n_total: facts.n_total,
        n_deleted: facts.n_total - counted,
        sizes,
        encoding,
        risk_levels,
    })
}

/// The missingness pattern of a row: bit `k` set when key `k` is observed.
fn pattern(nk: usize) -> Expr {
    (0..nk)
        .map(|k| {
            when(col(key(k)).is_not_null(), lit(1i64 << k))
                .otherwise(lit(0i64))
                .expect("a CASE with one branch")
        })
        .reduce(|a, b| a + b)
        .expect("at least one key")
}

/// How wildcard's plans hold a tuple: as the key columns, or as one `BIGINT` (integer keys
/// whose ranges allow it, [`radices`] with missing as a value: the local engine's mixed
/// radix), which makes every grouping and every join between patterns one on a single number.
enum Tuple {
    /// `k0` … `k{n-1}`.
    Columns(usize),
    /// `t`, coded by these `(least value, radix)`; a missing key's digit is its radix − 1.
    /// Then, per key, whether it may be missing.
    Packed(Vec<(i64, i64)>, Vec<bool>),
}

impl Tuple {
    /// Keys.
    fn nk(&self) -> usize {
        match self {
            Tuple::Columns(n) => *n,
            Tuple::Packed(r, _) => r.len(),
        }
    }

    /// The columns that name a tuple in plans.
    fn names(&self) -> Vec<Expr> {
        match self {
            Tuple::Columns(n) => (0..*n).map(|k| col(key(k))).collect(),
            Tuple::Packed(..) => vec![col("t")],
        }
    }

    /// The grouping of the file's records into tuples.
    fn group(&self) -> Vec<Expr> {
        match self {
            Tuple::Columns(_) => self.names(),
            Tuple::Packed(r, m) => vec![packed(r, m).alias("t")],
        }
    }

    /// Place value of key `k` in `t`.
    fn stride(r: &[(i64, i64)], k: usize) -> i64 {
        r[..k].iter().map(|&(_, radix)| radix).product()
    }

    /// Key `k`'s digit in `t`.
    fn digit(r: &[(i64, i64)], k: usize) -> Expr {
        (col("t") / lit(Self::stride(r, k))) % lit(r[k].1)
    }

    /// A tuple's missingness pattern (bit `k` set when key `k` is observed), from its
    /// columns, or from `t`'s digits (of the keys that may be missing; a key never missing
    /// is a constant bit, a key with no value none).
    fn pattern(&self) -> Expr {
        match self {
            Tuple::Columns(n) => pattern(*n),
            Tuple::Packed(r, may_miss) => {
                let always: i64 = (0..r.len())
                    .filter(|&k| !may_miss[k] && r[k].1 > 1)
                    .map(|k| 1i64 << k)
                    .sum();
                (0..r.len())
                    .filter(|&k| may_miss[k] && r[k].1 > 1)
                    .map(|k| {
                        when(Self::digit(r, k).not_eq(lit(r[k].1 - 1)), lit(1i64 << k))
                            .otherwise(lit(0i64))
                            .expect("a CASE with one branch")
                    })
                    .fold(lit(always), |a, b| a + b)
            }
        }
    }

    /// The keys `common` of a tuple of pattern `own`, as the expressions a join between
    /// patterns matches on: the columns, or one number — `t` with the digits of the keys it
    /// observes beyond `common` set to missing (radix − 1), as every key it does not observe
    /// already is; so only those few digits are computed, and two tuples get the same number
    /// exactly when they agree on `common`.
    fn on(&self, common: &[usize], own: i64) -> Vec<Expr> {
        match self {
            Tuple::Columns(_) => common.iter().map(|&k| col(key(k))).collect(),
            Tuple::Packed(..) if common.is_empty() => Vec::new(),
            Tuple::Packed(r, _) => {
                let shift = (0..r.len())
                    .filter(|&k| own & (1 << k) != 0 && !common.contains(&k))
                    .map(|k| (lit(r[k].1 - 1) - Self::digit(r, k)) * lit(Self::stride(r, k)))
                    .reduce(|a, b| a + b);
                vec![match shift {
                    Some(s) => col("t") + s,
                    None => col("t"),
                }]
            }
        }
    }

    /// Bytes of a tuple's row in a join's hash table (its columns, the counts), twice over.
    fn row_bytes(&self) -> f64 {
        let width = match self {
            Tuple::Columns(n) => *n,
            Tuple::Packed(..) => 1,
        };
        ((width + 4) * 8) as f64 * 2.0
    }
}

/// Mulder's n_match by missingness pattern: the distinct tuples (a missing value one more
/// value) with their records; for the tuples of each pattern P, n_match is their own records
/// plus, for each other pattern Q, the records of Q that agree on the keys both observe (Q
/// grouped on those keys and joined to P's tuples; Q's total when they share none). Each
/// pattern's histogram of n_match (and its individual risks) is counted by a job of its own
/// and the driver adds them up: a tuple has one pattern.
async fn n_match_counts(
    spec: &EngineSpec,
    ctx: &SessionContext,
    df: DataFrame,
    tuple: &Tuple,
    weighted: bool,
    n_total: usize,
) -> Result<NMatchCounts, EngineError> {
    let e = |e| run_error(spec, e);
    let mut aggs = vec![count_all().alias("cnt")];
    if weighted {
        aggs.push(sum(col("w")).alias("ws"));
    }
    let tuples = df
        .aggregate(tuple.group(), aggs)
        .map_err(e)?
        .with_column("p", tuple.pattern())
        .map_err(e)?;
    // In process, packed tuples that surely fit in a third of the limit (at most a tuple a
    // record) are held in memory instead of written to disk, in the session the joins run in.
    let held = match tuple {
        Tuple::Packed(..) if spec.engine == Engine::DataFusion => {
            let bytes = n_total as u64 * (3 + u64::from(weighted)) * 8;
            match spec.memory_limit {
                None => Some(ctx.clone()),
                Some(limit) if bytes <= limit / 3 => Some(join_session(ctx, true, limit)),
                Some(_) => None,
            }
        }
        _ => None,
    };
    let (patterns, of_pattern, files, scratch) =
        split_patterns(spec, ctx, tuples, weighted, held).await?;
    // Under a memory limit (in process), a pattern's joins run in a session that makes them
    // hash joins (their build sides as written) when those fit in a third of the limit
    // together, else one join at a time, each a hash join or a sort-merge join (whose sorts
    // spill) by its size.
    let bounded = match (spec.memory_limit.filter(|_| !files.is_empty()), &scratch) {
        (Some(limit), Some(dir)) => Some(Bounded {
            hash: join_session(ctx, true, limit),
            merge: join_session(ctx, false, limit),
            rows_fit: (limit as f64 / 3.0 / tuple.row_bytes()) as u64,
            dir: dir.path().to_path_buf(),
            files: &files,
        }),
        _ => None,
    };
    let mut hist: std::collections::BTreeMap<u32, usize> = Default::default();
    let mut levels: std::collections::BTreeMap<u64, usize> = Default::default();
    for pi in 0..patterns.len() {
        let per_tuple = pattern_n_match(
            spec,
            tuple,
            &patterns,
            pi,
            &of_pattern,
            bounded.as_ref(),
            weighted,
        )
        .await?;
        // One run of the pattern's joins: records by n_match (and individual risk).
        let mut group = vec![col("nm")];
        if weighted {
            group.push(
                individual_risk()
                    .call(vec![col("nm"), col("wnm")])
                    .alias("risk"),
            );
        }
        let b = collect(
            spec,
            per_tuple
                .aggregate(group, vec![sum(col("records")).alias("c")])
                .map_err(e)?,
        )
        .await?;
        for (b, i) in rows(&b) {
            let c = int_at(b, "c", i) as usize;
            *hist.entry(int_at(b, "nm", i) as u32).or_default() += c;
            if weighted {
                let risk = float_at(b, "risk", i).unwrap_or(0.0);
                *levels.entry(risk.to_bits()).or_default() += c;
            }
        }
    }
    let risk_levels = weighted.then(|| {
        let levels: Vec<(f64, usize)> = levels
            .into_iter()
            .map(|(b, c)| (f64::from_bits(b), c))
            .collect();
        let total = sum_of_risks(&levels);
        (levels, total)
    });
    Ok(NMatchCounts {
        n_total,
        n_match: hist.into_iter().collect(),
        risk_levels,
    })
}

/// A missingness pattern (its bits) with its distinct tuples, its records and their weight.
struct Pattern {
    bits: i64,
    tuples: u64,
    records: u64,
    weight: f64,
}

/// Under a memory limit: the sessions for joins, how many rows' groups a hash join may build
/// on, and where the patterns' tuples are.
struct Bounded<'a> {
    hash: SessionContext,
    merge: SessionContext,
    rows_fit: u64,
    dir: std::path::PathBuf,
    files: &'a [std::path::PathBuf],
}

/// The tuples of pattern `pi` with `records` (their own), `nm` (their n_match) and, when
/// weighted, `wnm` (its weight).
async fn pattern_n_match(
    spec: &EngineSpec,
    tuple: &Tuple,
    patterns: &[Pattern],
    pi: usize,
    of_pattern: &[DataFrame],
    bounded: Option<&Bounded<'_>>,
    weighted: bool,
) -> Result<DataFrame, EngineError> {
    let e = |e| run_error(spec, e);
    let p = patterns[pi].bits;
    // Patterns sharing no key with P add their totals; the others are joined.
    let (mut plus, mut wplus) = (0u64, 0.0f64);
    let mut joined: Vec<usize> = Vec::new();
    for (qi, q) in patterns.iter().enumerate() {
        if qi == pi {
            continue;
        }
        if p & q.bits == 0 {
            plus += q.records;
            wplus += q.weight;
        } else {
            joined.push(qi);
        }
    }
    // Each join's build side: P's tuples when Q observes every key P does and has more
    // tuples (Q's tuples are probed against P's and what matches is summed per tuple), else Q's
    // tuples grouped on the keys both observe.
    let probe_q =
        |qi: usize| p & patterns[qi].bits == p && patterns[pi].tuples < patterns[qi].tuples;
    let build = |qi: usize| match probe_q(qi) {
        true => patterns[pi].tuples,
        false => patterns[qi].tuples,
    };
    // Under a limit: one plan in the hash session when every join's build side fits with the
    // others; else a join at a time, each a hash join when its build side fits, else a
    // sort-merge join, with what came before it written to disk.
    let together =
        bounded.is_none_or(|b| joined.iter().map(|&qi| build(qi)).sum::<u64>() <= b.rows_fit);
    let mut base = match bounded {
        Some(b) => read(spec, &b.hash, &b.files[pi]).await?,
        None => of_pattern[pi].clone(),
    };
    for (step, &qi) in joined.iter().enumerate() {
        let (tp, tq) = match bounded {
            Some(b) => {
                let s = match together || build(qi) <= b.rows_fit {
                    true => &b.hash,
                    false => &b.merge,
                };
                if !together {
                    let from = match step {
                        0 => b.files[pi].clone(),
                        _ => written(spec, base, b, pi, step).await?,
                    };
                    base = read(spec, s, &from).await?;
                }
                (
                    read(spec, s, &b.files[pi]).await?,
                    read(spec, s, &b.files[qi]).await?,
                )
            }
            None => (of_pattern[pi].clone(), of_pattern[qi].clone()),
        };
        let pair = Pair {
            p,
            q: patterns[qi].bits,
            step,
            probe_q: probe_q(qi),
        };
        base = join_pattern(spec, tuple, &pair, base, tp, tq, weighted)?;
    }
    // Its own records, the totals of the patterns sharing no key, and each join's part.
    let total = |own: &str, part: &str, plus: Expr| {
        (0..joined.len())
            .map(|step| coalesce(vec![col(format!("{part}{step}")), lit(0)]))
            .fold(col(own) + plus, |a, b| a + b)
    };
    let mut sel = vec![
        col("cnt").alias("records"),
        total("cnt", "m", lit(plus as i64)).alias("nm"),
    ];
    if weighted {
        sel.push(total("ws", "wm", lit(wplus)).alias("wnm"));
    }
    base.select(sel).map_err(e)
}

/// `base` (pattern P's tuples with the joins so far) run and written to a file of its own in
/// the scratch directory; the file.
async fn written(
    spec: &EngineSpec,
    base: DataFrame,
    b: &Bounded<'_>,
    pi: usize,
    step: usize,
) -> Result<std::path::PathBuf, EngineError> {
    let file = b.dir.join(format!("base-{pi}-{step}.parquet"));
    write_file(spec, base, &file).await?;
    Ok(file)
}

/// One join of [`pattern_n_match`]: pattern `p`'s tuples with pattern `q`'s, the `step`-th.
struct Pair {
    p: i64,
    q: i64,
    step: usize,
    /// Whether `q` observes every key `p` does and has more tuples: then `q`'s tuples are
    /// probed against `p`'s (the build side) instead of grouped.
    probe_q: bool,
}

/// `base` (tuples of pattern `p` with the joins so far) with `m{step}` (and `wm{step}`): the
/// records of `tq` (pattern `q`'s tuples) that agree with each tuple on the keys both
/// observe, null when none. The build side of each hash join is its left input:
/// - `q` observes only keys `p` does: `q`'s tuples are distinct on them, so they join `base`
///   as they are;
/// - `probe_q`: `tp` (`p`'s tuples, distinct on the keys both observe) joined by `q`'s
///   tuples, summed per tuple of `p`, then joined to `base` on the tuple;
/// - else `q`'s tuples grouped on the keys both observe, joined to `base`.
fn join_pattern(
    spec: &EngineSpec,
    tuple: &Tuple,
    pair: &Pair,
    base: DataFrame,
    tp: DataFrame,
    tq: DataFrame,
    weighted: bool,
) -> Result<DataFrame, EngineError> {
    let e = |e| run_error(spec, e);
    let Pair { p, q, step, .. } = *pair;
    let common: Vec<usize> = (0..tuple.nk()).filter(|&k| p & q & (1 << k) != 0).collect();
    let (on_p, on_q) = (tuple.on(&common, p), tuple.on(&common, q));
    let (m, wm) = (format!("m{step}"), format!("wm{step}"));
    let named = |on: &[Expr], prefix: &str| -> Vec<(Expr, String)> {
        on.iter()
            .enumerate()
            .map(|(i, x)| (x.clone(), format!("{prefix}{step}_{i}")))
            .collect()
    };
    let (lon, ron) = (named(&on_p, "l"), named(&on_q, "q"));
    let mut counts = vec![col("cnt")];
    if weighted {
        counts.push(col("ws"));
    }
    let aliased = |on: &[(Expr, String)], rest: Vec<Expr>| -> Vec<Expr> {
        on.iter()
            .map(|(x, n)| x.clone().alias(n.as_str()))
            .chain(rest)
            .collect()
    };
    let sums = || {
        let mut s = vec![sum(col("cnt")).alias(m.as_str())];
        if weighted {
            s.push(sum(col("ws")).alias(wm.as_str()));
        }
        s
    };
    // The right side to join `base` on: (its columns, `base`'s expressions), and the side.
    let (right, rkeys, lkeys): (DataFrame, Vec<String>, Vec<Expr>) = if q & !p == 0 {
        let mut sel = vec![col("cnt").alias(m.as_str())];
        if weighted {
            sel.push(col("ws").alias(wm.as_str()));
        }
        let right = tq.select(aliased(&ron, sel)).map_err(e)?;
        (right, ron.iter().map(|(_, n)| n.clone()).collect(), on_p)
    } else if pair.probe_q {
        // P's tuples by their own name (`t`, or the keys P observes) with their join key.
        let own: Vec<usize> = (0..tuple.nk()).filter(|&k| p & (1 << k) != 0).collect();
        let ids: Vec<(Expr, String)> = match tuple {
            Tuple::Packed(..) => vec![(col("t"), format!("id{step}_0"))],
            Tuple::Columns(_) => own
                .iter()
                .enumerate()
                .map(|(i, &k)| (col(key(k)), format!("id{step}_{i}")))
                .collect(),
        };
        let left = tp
            .select(aliased(
                &lon,
                ids.iter()
                    .map(|(x, n)| x.clone().alias(n.as_str()))
                    .collect(),
            ))
            .map_err(e)?;
        let probe = tq.select(aliased(&ron, counts)).map_err(e)?;
        let l: Vec<&str> = lon.iter().map(|(_, n)| n.as_str()).collect();
        let r: Vec<&str> = ron.iter().map(|(_, n)| n.as_str()).collect();
        let summed = left
            .join(probe, JoinType::Inner, &l, &r, None)
            .map_err(e)?
            .aggregate(ids.iter().map(|(_, n)| col(n.as_str())).collect(), sums())
            .map_err(e)?;
        (
            summed,
            ids.iter().map(|(_, n)| n.clone()).collect(),
            ids.into_iter().map(|(x, _)| x).collect(),
        )
    } else {
        let grouped = tq
            .aggregate(
                ron.iter()
                    .map(|(x, n)| x.clone().alias(n.as_str()))
                    .collect(),
                sums(),
            )
            .map_err(e)?;
        (grouped, ron.iter().map(|(_, n)| n.clone()).collect(), on_p)
    };
    let lcols: Vec<String> = (0..lkeys.len()).map(|i| format!("j{step}_{i}")).collect();
    let mut base = base;
    for (x, n) in lkeys.iter().zip(&lcols) {
        base = base.with_column(n, x.clone()).map_err(e)?;
    }
    let keep: Vec<Expr> = base
        .schema()
        .fields()
        .iter()
        .map(|f| f.name())
        .filter(|n| !lcols.contains(n))
        .map(|n| col(n.as_str()))
        .chain(std::iter::once(col(m.as_str())))
        .chain(weighted.then(|| col(wm.as_str())))
        .collect();
    let lrefs: Vec<&str> = lcols.iter().map(String::as_str).collect();
    let rrefs: Vec<&str> = rkeys.iter().map(String::as_str).collect();
    right
        .join(base, JoinType::Right, &rrefs, &lrefs, None)
        .map_err(e)?
        .select(keep)
        .map_err(e)
}

/// The missingness patterns of `tuples` (with their tuples, records and weight, by their
/// bits) and each one's tuples. `held`: the tuples are collected and held in memory, in that
/// session. Else in process they are written once, by pattern, to directories of their own in
/// a scratch directory (returned, with those directories), and each pattern's are read from
/// there (out of core). On a cluster they stay a plan, filtered by pattern (executors
/// recompute them: no shared scratch space is assumed).
#[allow(clippy::type_complexity)]
async fn split_patterns(
    spec: &EngineSpec,
    ctx: &SessionContext,
    tuples: DataFrame,
    weighted: bool,
    held: Option<SessionContext>,
) -> Result<
    (
        Vec<Pattern>,
        Vec<DataFrame>,
        Vec<std::path::PathBuf>,
        Option<tempfile::TempDir>,
    ),
    EngineError,
> {
    let e = |e| run_error(spec, e);
    let mut sums = vec![count_all().alias("tn"), sum(col("cnt")).alias("n")];
    if weighted {
        sums.push(sum(col("ws")).alias("wn"));
    }
    let pattern = |bits: i64, b: &RecordBatch, i: usize| Pattern {
        bits,
        tuples: int_at(b, "tn", i) as u64,
        records: int_at(b, "n", i) as u64,
        weight: match weighted {
            true => float_at(b, "wn", i).unwrap_or(0.0),
            false => 0.0,
        },
    };
    let in_memory = match &held {
        Some(session) => {
            let batches = collect(spec, tuples.clone()).await?;
            Some(session.read_batches(batches).map_err(e)?)
        }
        None => None,
    };
    if spec.engine != Engine::DataFusion || in_memory.is_some() {
        let tuples = in_memory.unwrap_or(tuples);
        let pb = collect(
            spec,
            tuples.clone().aggregate(vec![col("p")], sums).map_err(e)?,
        )
        .await?;
        let mut patterns: Vec<Pattern> = rows(&pb)
            .map(|(b, i)| pattern(int_at(b, "p", i), b, i))
            .collect();
        patterns.sort_unstable_by_key(|p| p.bits);
        let mut of_pattern = Vec::with_capacity(patterns.len());
        for p in &patterns {
            let t = tuples.clone().filter(col("p").eq(lit(p.bits))).map_err(e)?;
            of_pattern.push(match &held {
                // Held: each pattern's tuples apart, so that a join does not filter them all.
                Some(session) => session.read_batches(collect(spec, t).await?).map_err(e)?,
                None => t,
            });
        }
        return Ok((patterns, of_pattern, Vec::new(), None));
    }
    let dir = scratch_dir(spec)?;
    let root = dir.path().join("tuples");
    let root_str = root
        .to_str()
        .ok_or_else(|| EngineError::Config("temporary path not UTF-8".into()))?;
    tuples
        .write_parquet(
            root_str,
            DataFrameWriteOptions::new().with_partition_by(vec!["p".into()]),
            None,
        )
        .await
        .map_err(e)?;
    let mut bits: Vec<(i64, std::path::PathBuf)> = std::fs::read_dir(&root)
        .map_err(|err| EngineError::Config(format!("cannot read {}: {err}", root.display())))?
        .filter_map(|d| d.ok())
        .filter_map(|d| {
            let name = d.file_name().to_str()?.strip_prefix("p=")?.parse().ok()?;
            Some((name, d.path()))
        })
        .collect();
    bits.sort_unstable_by_key(|(b, _)| *b);
    let (mut patterns, mut of_pattern, mut files) = (Vec::new(), Vec::new(), Vec::new());
    for (b, path) in bits {
        let df = read(spec, ctx, &path).await?;
        patterns.push(pattern(b, &totals(spec, &df, sums.clone()).await?, 0));
        of_pattern.push(df);
        files.push(path);
    }
    Ok((patterns, of_pattern, files, Some(dir)))
}

/// A temporary directory in the spill directory (else the system's).
fn scratch_dir(spec: &EngineSpec) -> Result<tempfile::TempDir, EngineError> {
    match &spec.spill_dir {
        Some(d) => tempfile::tempdir_in(d),
        None => tempfile::tempdir(),
    }
    .map_err(|e| EngineError::Config(format!("cannot make a temporary directory: {e}")))
}

/// `df` run and written to the Parquet file `path`; the rows written.
async fn write_file(spec: &EngineSpec, df: DataFrame, path: &Path) -> Result<u64, EngineError> {
    let p = path
        .to_str()
        .ok_or_else(|| EngineError::Config("temporary path not UTF-8".into()))?;
    let out = df
        .write_parquet(
            p,
            DataFrameWriteOptions::new().with_single_file_output(true),
            None,
        )
        .await
        .map_err(|e| run_error(spec, e))?;
    Ok(rows(&out).map(|(b, i)| int_at(b, "count", i) as u64).sum())
}

/// A session beside `ctx` (the same memory pool and spill directory) whose joins are hash
/// joins with the left input as the build side, as written (`hash`), or sort-merge joins,
/// whose sorts spill (DataFusion 55's hash join cannot spill its build side).
fn join_session(ctx: &SessionContext, hash: bool, limit: u64) -> SessionContext {
    let mut config = ctx.copied_config();
    config.options_mut().optimizer.prefer_hash_join = hash;
    config.options_mut().optimizer.join_reordering = !hash;
    // Each sort under a sort-merge join (two inputs, each partition) reserves room to merge
    // its spills: at most a sixteenth of the limit each, so that one join fits in it.
    let merge = &mut config.options_mut().execution.sort_spill_reservation_bytes;
    *merge = (*merge).min(limit as usize / 16);
    let state = datafusion::execution::session_state::SessionStateBuilder::new()
        .with_default_features()
        .with_config(config)
        .with_runtime_env(ctx.runtime_env())
        .build();
    SessionContext::new_with_state(state)
}

/// The Parquet file `path` scanned in `ctx`.
async fn read(
    spec: &EngineSpec,
    ctx: &SessionContext,
    path: &Path,
) -> Result<DataFrame, EngineError> {
    let p = path
        .to_str()
        .ok_or_else(|| EngineError::Config("temporary path not UTF-8".into()))?;
    ctx.read_parquet(p, ParquetReadOptions::default())
        .await
        .map_err(|e| run_error(spec, e))
}
