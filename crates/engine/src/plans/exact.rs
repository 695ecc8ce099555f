//! The exact-key attack as plans: for each pair of missingness patterns (P of an intruder
//! record, Q of the released records) the policy lets meet — listwise: complete with
//! complete; as-value: P with P; wildcard: every pair — the released records of Q are grouped
//! on the keys observed in both (their count, and the smallest `max_listed` rows by a
//! `row_number()` window) and joined to the intruder records of P. Summed per intruder record
//! that is `c_i`; the listed rows are merged on the driver, smallest first, as
//! [`intruder_attack::ExactMatch`] lists them. Records listed in part get a lister that runs
//! the same plan without the cap for the records the evaluator asks about.

use std::sync::Arc;

use datafusion::arrow::datatypes::DataType;
use datafusion::functions_aggregate::count::count_all;
use datafusion::functions_aggregate::expr_fn::sum;
use datafusion::functions_window::expr_fn::row_number;
use datafusion::logical_expr::ExprFunctionExt;
use datafusion::prelude::*;

use intruder_attack::{Candidates, Linkage, ListCandidates, Lister, MissingPolicy};

use super::risk::{collect, int_at, rows};
use super::run_error;
use super::source::{Source, scan};
use crate::request::ExactRequest;
use crate::{EngineError, EngineSpec};

fn key(k: usize) -> String {
    format!("k{k}")
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

/// Both files scanned, keys of different types in the two files compared as text, each row's
/// pattern in `p`.
struct Sides {
    intruder: DataFrame,
    released: DataFrame,
    _sources: (Source, Source),
}

async fn sides(
    spec: &EngineSpec,
    ctx: &SessionContext,
    req: &ExactRequest,
) -> Result<Sides, EngineError> {
    let e = |e| run_error(spec, e);
    let nk = req.keys.len();
    let icols: Vec<(String, String)> = (0..nk).map(|k| (req.keys[k].0.clone(), key(k))).collect();
    let rcols: Vec<(String, String)> = (0..nk).map(|k| (req.keys[k].1.clone(), key(k))).collect();
    let si = scan(
        spec,
        ctx,
        &req.intruder,
        &req.intruder_input,
        &icols,
        Some("i"),
    )
    .await?;
    let sr = scan(
        spec,
        ctx,
        &req.released,
        &req.released_input,
        &rcols,
        Some("j"),
    )
    .await?;
    let (mut i, mut r) = (si.df.clone(), sr.df.clone());
    for k in 0..nk {
        let ti = i
            .schema()
            .field_with_unqualified_name(&key(k))
            .map_err(e)?
            .data_type()
            .clone();
        let tr = r
            .schema()
            .field_with_unqualified_name(&key(k))
            .map_err(e)?
            .data_type()
            .clone();
        if ti != tr {
            i = i
                .with_column(&key(k), cast(col(key(k)), DataType::Utf8))
                .map_err(e)?;
            r = r
                .with_column(&key(k), cast(col(key(k)), DataType::Utf8))
                .map_err(e)?;
        }
    }
    Ok(Sides {
        intruder: i.with_column("p", pattern(nk)).map_err(e)?,
        released: r.with_column("p", pattern(nk)).map_err(e)?,
        _sources: (si, sr),
    })
}

async fn patterns(spec: &EngineSpec, df: &DataFrame) -> Result<Vec<i64>, EngineError> {
    let b = collect(
        spec,
        df.clone()
            .aggregate(vec![col("p")], vec![])
            .map_err(|e| run_error(spec, e))?,
    )
    .await?;
    let mut v: Vec<i64> = rows(&b).map(|(b, i)| int_at(b, "p", i)).collect();
    v.sort_unstable();
    Ok(v)
}

/// The (intruder pattern, released pattern) pairs `policy` lets meet.
fn meetings(policy: MissingPolicy, nk: usize, ip: &[i64], rp: &[i64]) -> Vec<(i64, i64)> {
    let full = if nk >= 64 { -1 } else { (1i64 << nk) - 1 };
    match policy {
        MissingPolicy::Listwise => {
            if ip.contains(&full) && rp.contains(&full) {
                vec![(full, full)]
            } else {
                Vec::new()
            }
        }
        MissingPolicy::AsValue => ip
            .iter()
            .filter(|p| rp.contains(p))
            .map(|&p| (p, p))
            .collect(),
        MissingPolicy::Wildcard => ip
            .iter()
            .flat_map(|&p| rp.iter().map(move |&q| (p, q)))
            .collect(),
    }
}

/// `(i, c)` summed per intruder record, and `(i, j)` of the listed rows (at most `cap` per
/// pattern pair; `None`: every row), over the intruder records that `only` admits.
async fn join(
    spec: &EngineSpec,
    s: &Sides,
    policy: MissingPolicy,
    nk: usize,
    cap: Option<usize>,
    only: Option<&[usize]>,
) -> Result<(Vec<(usize, u64)>, Vec<(usize, usize)>), EngineError> {
    let e = |e| run_error(spec, e);
    let ip = patterns(spec, &s.intruder).await?;
    let rp = patterns(spec, &s.released).await?;
    let mut intruder = s.intruder.clone();
    if let Some(records) = only {
        let list: Vec<Expr> = records.iter().map(|&i| lit(i as i64)).collect();
        intruder = intruder.filter(col("i").in_list(list, false)).map_err(e)?;
    }
    let (mut counts, mut listed): (Option<DataFrame>, Option<DataFrame>) = (None, None);
    for (p, q) in meetings(policy, nk, &ip, &rp) {
        let common: Vec<usize> = (0..nk).filter(|&k| p & q & (1 << k) != 0).collect();
        let ic = intruder.clone().filter(col("p").eq(lit(p))).map_err(e)?;
        let rq = s.released.clone().filter(col("p").eq(lit(q))).map_err(e)?;
        let group: Vec<Expr> = common.iter().map(|&k| col(key(k))).collect();
        let rename = |extra: &[&str]| -> Vec<Expr> {
            let mut v: Vec<Expr> = common
                .iter()
                .map(|&k| col(key(k)).alias(format!("q{k}")))
                .collect();
            v.extend(extra.iter().map(|c| col(*c)));
            v
        };
        let lcols: Vec<String> = common.iter().map(|&k| key(k)).collect();
        let rcols: Vec<String> = common.iter().map(|&k| format!("q{k}")).collect();
        let lrefs: Vec<&str> = lcols.iter().map(String::as_str).collect();
        let rrefs: Vec<&str> = rcols.iter().map(String::as_str).collect();
        let c = rq
            .clone()
            .aggregate(group.clone(), vec![count_all().alias("c")])
            .map_err(e)?
            .select(rename(&["c"]))
            .map_err(e)?;
        let c = ic
            .clone()
            .join(c, JoinType::Inner, &lrefs, &rrefs, None)
            .map_err(e)?
            .select(vec![col("i"), col("c")])
            .map_err(e)?;
        let mut l = rq;
        if let Some(cap) = cap {
            let rn = row_number()
                .partition_by(group.clone())
                .order_by(vec![col("j").sort(true, false)])
                .build()
                .map_err(e)?
                .alias("rn");
            l = l
                .window(vec![rn])
                .map_err(e)?
                .filter(col("rn").lt_eq(lit(cap as u64)))
                .map_err(e)?;
        }
        let l = l.select(rename(&["j"])).map_err(e)?;
        let l = ic
            .join(l, JoinType::Inner, &lrefs, &rrefs, None)
            .map_err(e)?
            .select(vec![col("i"), col("j")])
            .map_err(e)?;
        counts = Some(match counts {
            None => c,
            Some(a) => a.union(c).map_err(e)?,
        });
        listed = Some(match listed {
            None => l,
            Some(a) => a.union(l).map_err(e)?,
        });
    }
    let (Some(counts), Some(listed)) = (counts, listed) else {
        return Ok((Vec::new(), Vec::new()));
    };
    let counts = collect(
        spec,
        counts
            .aggregate(vec![col("i")], vec![sum(col("c")).alias("c")])
            .map_err(e)?,
    )
    .await?;
    let listed = collect(spec, listed).await?;
    Ok((
        rows(&counts)
            .map(|(b, r)| (int_at(b, "i", r) as usize, int_at(b, "c", r) as u64))
            .collect(),
        rows(&listed)
            .map(|(b, r)| (int_at(b, "i", r) as usize, int_at(b, "j", r) as usize))
            .collect(),
    ))
}

/// The exact attack of `req`: the same [`Linkage`] as [`intruder_attack::ExactMatch`]'s.
pub async fn link(
    spec: &EngineSpec,
    ctx: &SessionContext,
    req: &ExactRequest,
) -> Result<Linkage, EngineError> {
    let e = |e| run_error(spec, e);
    let nk = req.keys.len();
    let s = sides(spec, ctx, req).await?;
    let n = |df: &DataFrame| {
        let df = df.clone();
        async move {
            let b = collect(
                spec,
                df.aggregate(vec![], vec![count_all().alias("n")])
                    .map_err(e)?,
            )
            .await?;
            Ok::<usize, EngineError>(int_at(&b[0], "n", 0) as usize)
        }
    };
    let (ni, nr) = (n(&s.intruder).await?, n(&s.released).await?);
    for (count, which, path) in [
        (ni, "intruder", &req.intruder),
        (nr, "released", &req.released),
    ] {
        if count == 0 {
            return Err(intruder_attack::AttackError::Empty {
                file: path.display().to_string(),
                which,
            }
            .into());
        }
    }
    let max = req.max_listed.max(1);
    let (counts, listed) = join(spec, &s, req.missing, nk, Some(max), None).await?;
    let mut total = vec![0u64; ni];
    for (i, c) in counts {
        total[i] += c;
    }
    let mut lists: Vec<Vec<usize>> = vec![Vec::new(); ni];
    for (i, j) in listed {
        lists[i].push(j);
    }
    let (mut not_listed, mut in_part) = (0u64, 0usize);
    let records: Vec<Candidates> = lists
        .into_iter()
        .zip(&total)
        .map(|(mut rows, &count)| {
            rows.sort_unstable();
            rows.dedup();
            rows.truncate(max);
            let listed = rows.len() as u64;
            if count > listed {
                not_listed += count - listed;
                in_part += 1;
            }
            Candidates::set_in_part(rows, count as usize)
        })
        .collect();
    let mut notes = Vec::new();
    let mut lister = None;
    if in_part > 0 {
        notes.push(("max_listed".to_string(), max as f64));
        notes.push(("records_listed_in_part".to_string(), in_part as f64));
        notes.push(("candidates_not_listed".to_string(), not_listed as f64));
        lister = Some(Lister::new(Arc::new(PlanLister {
            spec: spec.clone(),
            req: req.clone(),
        })));
    }
    Ok(Linkage {
        method: "exact".into(),
        scored: false,
        complete: true,
        released_rows: nr,
        records,
        notes,
        lister,
    })
}

/// Lists the whole candidate set of records listed in part: the plan again, for those
/// records, without the cap.
#[derive(Debug)]
struct PlanLister {
    spec: EngineSpec,
    req: ExactRequest,
}

impl PlanLister {
    fn run(&self, records: &[usize]) -> Result<Vec<Vec<usize>>, EngineError> {
        super::Run::once(&self.spec, async {
            let ctx = super::context(&self.spec).await?;
            let s = sides(&self.spec, &ctx, &self.req).await?;
            let (_, listed) = join(
                &self.spec,
                &s,
                self.req.missing,
                self.req.keys.len(),
                None,
                Some(records),
            )
            .await?;
            let mut by: std::collections::HashMap<usize, Vec<usize>> = Default::default();
            for (i, j) in listed {
                by.entry(i).or_default().push(j);
            }
            Ok(records
                .iter()
                .map(|i| {
                    let mut v = by.remove(i).unwrap_or_default();
                    v.sort_unstable();
                    v.dedup();
                    v
                })
                .collect())
        })
    }
}

impl ListCandidates for PlanLister {
    fn list(&self, records: &[usize]) -> Vec<Vec<usize>> {
        // The trait has no error path: a failure here is an engine lost mid-evaluation.
        self.run(records)
            .unwrap_or_else(|e| panic!("listing the candidates of {} records: {e}", records.len()))
    }
}
