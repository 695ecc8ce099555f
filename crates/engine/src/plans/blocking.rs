//! Fellegi–Sunter's blocking as plans: each rule an equi-join of the two files on its columns
//! (a record missing a term is not blocked by that rule), a pair of rule `r` dropped when an
//! earlier rule already pairs it (its columns agree there, both observed) — the local
//! engine's de-duplication ([`intruder_attack::fellegi_sunter::blocking::candidate_pairs`]),
//! Splink's rule for OR-ed blocking rules. The candidate pairs per rule are what the cost
//! model of `docs/cluster.md` rests on.

use std::path::PathBuf;

use datafusion::functions_aggregate::count::count_all;
use datafusion::prelude::*;

use intruder_attack::fellegi_sunter::Term;
use intruder_data::Input;

use super::linkage::{self, LinkageRequest, scan_both};
use super::risk::{collect, int_at, rows};
use super::run_error;
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
    /// The rules, as a linkage specification writes them (terms on one column each).
    pub rules: Vec<Vec<Term>>,
    /// The released name of an intruder column (a key map), when it differs.
    pub released_names: Vec<(String, String)>,
}

/// The candidate pairs of each rule (after the earlier rules' pairs), and, when `list`, every
/// pair `(intruder row, released row)` sorted: the candidate pairs of
/// [`super::linkage`] (which tags each pair with the rules it agrees on; the rule that made it
/// is the first of them).
pub async fn block(
    spec: &EngineSpec,
    ctx: &SessionContext,
    req: &BlockingRequest,
    list: bool,
) -> Result<(Vec<u64>, Option<Vec<(usize, usize)>>), EngineError> {
    let e = |e| run_error(spec, e);
    let lreq = LinkageRequest {
        intruder: req.intruder.clone(),
        intruder_input: req.intruder_input.clone(),
        released: req.released.clone(),
        released_input: req.released_input.clone(),
        rules: req.rules.clone(),
        comparisons: Vec::new(),
        released_names: req.released_names.clone(),
        training: None,
    };
    let st = scan_both(spec, ctx, &lreq, list).await?;
    let pairs = linkage::candidate_pairs(spec, &lreq, &st, list)?;
    let by_set = pairs
        .clone()
        .aggregate(vec![col("s")], vec![count_all().alias("n")])
        .map_err(e)?;
    let mut per_rule = vec![0u64; req.rules.len()];
    for (b, i) in rows(&collect(spec, by_set).await?) {
        per_rule[(int_at(b, "s", i) as u64).trailing_zeros() as usize] += int_at(b, "n", i) as u64;
    }
    if !list {
        return Ok((per_rule, None));
    }
    let got = collect(spec, pairs.select(vec![col("i"), col("j")]).map_err(e)?).await?;
    let mut listed: Vec<(usize, usize)> = rows(&got)
        .map(|(b, k)| (int_at(b, "i", k) as usize, int_at(b, "j", k) as usize))
        .collect();
    listed.sort_unstable();
    Ok((per_rule, Some(listed)))
}

/// [`block`] on `spec`'s engine, from synchronous code.
pub fn candidate_pairs(
    spec: &EngineSpec,
    req: &BlockingRequest,
    list: bool,
) -> Result<(Vec<u64>, Option<Vec<(usize, usize)>>), EngineError> {
    super::Run::once(spec, async {
        let ctx = super::context(spec).await?;
        block(spec, &ctx, req, list).await
    })
}
