//! Fellegi–Sunter's blocking as plans: each rule an equi-join of the two files on its columns
//! (a record missing a term is not blocked by that rule), a pair of rule `r` dropped when an
//! earlier rule already pairs it (its columns agree there, both observed) — the local
//! engine's de-duplication ([`intruder_attack::fellegi_sunter::blocking::candidate_pairs`]),
//! Splink's rule for OR-ed blocking rules. The candidate pairs per rule are what the cost
//! model of `docs/cluster.md` rests on.

use std::path::PathBuf;

use datafusion::arrow::datatypes::DataType;
use datafusion::functions_aggregate::count::count_all;
use datafusion::prelude::*;

use intruder_attack::fellegi_sunter::Term;
use intruder_data::Input;

use super::risk::{collect, int_at, rows};
use super::source::scan;
use super::{run_error, runtime};
use crate::{EngineError, EngineSpec};

/// Blocking rules on two files.
#[derive(Debug, Clone)]
pub struct BlockingRequest {
    /// The intruder's file.
    pub intruder: PathBuf,
    /// How to read it.
    pub intruder_input: Input,
    /// The released file.
    pub released: PathBuf,
    /// How to read it.
    pub released_input: Input,
    /// The rules, as a linkage specification writes them (column terms).
    pub rules: Vec<Vec<Term>>,
    /// The released name of an intruder column (a key map), when it differs.
    pub released_names: Vec<(String, String)>,
}

impl BlockingRequest {
    fn released_name(&self, c: &str) -> String {
        self.released_names
            .iter()
            .find(|(i, _)| i == c)
            .map_or(c.to_string(), |(_, r)| r.clone())
    }
}

/// The columns the rules read, each once (intruder names).
fn columns(spec: &EngineSpec, rules: &[Vec<Term>]) -> Result<Vec<String>, EngineError> {
    let mut cols: Vec<String> = Vec::new();
    for t in rules.iter().flatten() {
        match t {
            Term::Column { column } => {
                if !cols.contains(column) {
                    cols.push(column.clone());
                }
            }
            other => {
                return Err(EngineError::Unsupported {
                    engine: spec.engine.label(),
                    what: format!(
                        "blocking term {}: the plans block on column terms; expressions of a column block on the local engine",
                        other.label()
                    ),
                });
            }
        }
    }
    Ok(cols)
}

/// The candidate pairs of each rule (after the earlier rules' pairs), and, when `list`, every
/// pair `(intruder row, released row)` sorted.
pub async fn block(
    spec: &EngineSpec,
    ctx: &SessionContext,
    req: &BlockingRequest,
    list: bool,
) -> Result<(Vec<u64>, Option<Vec<(usize, usize)>>), EngineError> {
    let e = |e| run_error(spec, e);
    if list && !super::risk::row_numbers_reach_executors(spec) {
        return Err(EngineError::Unsupported {
            engine: spec.engine.label(),
            what: "listing the candidate pairs needs row numbers, which Ballista 55 cannot send to its executors (see docs/cluster.md)".into(),
        });
    }
    let cols = columns(spec, &req.rules)?;
    let at = |c: &str| cols.iter().position(|x| x == c).expect("a rule's column");
    let icols: Vec<(String, String)> = cols
        .iter()
        .enumerate()
        .map(|(n, c)| (c.clone(), format!("a{n}")))
        .collect();
    let rcols: Vec<(String, String)> = cols
        .iter()
        .enumerate()
        .map(|(n, c)| (req.released_name(c), format!("b{n}")))
        .collect();
    let (ri, rj) = match list {
        true => (Some("i"), Some("j")),
        false => (None, None),
    };
    let si = scan(spec, ctx, &req.intruder, &req.intruder_input, &icols, ri).await?;
    let sr = scan(spec, ctx, &req.released, &req.released_input, &rcols, rj).await?;
    let (mut a, mut b) = (si.df.clone(), sr.df.clone());
    for n in 0..cols.len() {
        let (x, y) = (format!("a{n}"), format!("b{n}"));
        let ta = a
            .schema()
            .field_with_unqualified_name(&x)
            .map_err(e)?
            .data_type()
            .clone();
        let tb = b
            .schema()
            .field_with_unqualified_name(&y)
            .map_err(e)?
            .data_type()
            .clone();
        if ta != tb {
            a = a
                .with_column(&x, cast(col(&x), DataType::Utf8))
                .map_err(e)?;
            b = b
                .with_column(&y, cast(col(&y), DataType::Utf8))
                .map_err(e)?;
        }
    }
    let agree = |rule: &[Term]| -> Expr {
        rule.iter()
            .map(|t| {
                let n = at(t.column());
                col(format!("a{n}")).eq(col(format!("b{n}")))
            })
            .fold(lit(true), Expr::and)
            .is_true()
    };
    let mut per_rule = Vec::with_capacity(req.rules.len());
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (r, rule) in req.rules.iter().enumerate() {
        let lcols: Vec<String> = rule
            .iter()
            .map(|t| format!("a{}", at(t.column())))
            .collect();
        let rcols: Vec<String> = rule
            .iter()
            .map(|t| format!("b{}", at(t.column())))
            .collect();
        let lrefs: Vec<&str> = lcols.iter().map(String::as_str).collect();
        let rrefs: Vec<&str> = rcols.iter().map(String::as_str).collect();
        let earlier = req.rules[..r]
            .iter()
            .map(|x| agree(x).not())
            .reduce(Expr::and);
        let joined = a
            .clone()
            .join(b.clone(), JoinType::Inner, &lrefs, &rrefs, earlier)
            .map_err(e)?;
        let n = collect(
            spec,
            joined
                .clone()
                .aggregate(vec![], vec![count_all().alias("n")])
                .map_err(e)?,
        )
        .await?;
        per_rule.push(int_at(&n[0], "n", 0) as u64);
        if list {
            let got = collect(spec, joined.select(vec![col("i"), col("j")]).map_err(e)?).await?;
            pairs.extend(
                rows(&got).map(|(b, k)| (int_at(b, "i", k) as usize, int_at(b, "j", k) as usize)),
            );
        }
    }
    pairs.sort_unstable();
    Ok((per_rule, list.then_some(pairs)))
}

/// [`block`] on `spec`'s engine, from synchronous code.
pub fn candidate_pairs(
    spec: &EngineSpec,
    req: &BlockingRequest,
    list: bool,
) -> Result<(Vec<u64>, Option<Vec<(usize, usize)>>), EngineError> {
    runtime()?.block_on(async {
        let ctx = super::context(spec).await?;
        block(spec, &ctx, req, list).await
    })
}
