//! Decisions: each intruder record's ranked candidates, or the links of a one-to-one
//! assignment (greedy best-first, or optimal above the threshold; [`predict`]).

use super::blocking::Pairs;
use super::kernel::{CandidatePairs, Scorer};
use super::predict::{self, Assignment};
use crate::error::AttackError;
use crate::linkage::{Candidate, Candidates};

/// Per intruder record its candidates, and the number of links declared at the threshold's
/// weight `thr_w`. `candidates` must be ordered best first
/// ([`CandidatePairs::sort_by_weight`]).
pub(crate) fn assign(
    assignment: Assignment,
    candidates: &CandidatePairs,
    scorer: &Scorer,
    thr_w: f64,
    (ni, nr): (usize, usize),
) -> Result<(Vec<Candidates>, usize), AttackError> {
    let mut links = 0usize;
    if assignment == Assignment::None {
        let records = (0..ni)
            .map(|i| {
                let (js, ps) = candidates.of(i);
                let list: Vec<(usize, f64)> = js
                    .iter()
                    .zip(ps)
                    .map(|(&j, &p)| (j as usize, scorer.weight(i, p)))
                    .collect();
                links += list.iter().filter(|x| x.1 >= thr_w).count();
                Candidates::from_scored(list)
            })
            .collect();
        return Ok((records, links));
    }
    let assigned = if assignment == Assignment::Greedy {
        candidates.greedy(scorer, nr)
    } else {
        // Only pairs at or above the threshold can be linked.
        let mut above = Pairs::default();
        let mut w = Vec::new();
        for (i, j, p) in candidates.iter() {
            let x = scorer.weight(i, p);
            if x >= thr_w {
                above.intruder.push(i as u32);
                above.released.push(j);
                w.push(x);
            }
        }
        predict::optimal(&above, &w, ni, nr, thr_w)?
    };
    Ok(linked_records(assigned, thr_w))
}

/// Each intruder record's link of a one-to-one assignment (if any) as its one candidate, and
/// the number of links at or above the threshold's weight `thr_w`.
pub(crate) fn linked_records(
    assigned: Vec<Option<(u32, f64)>>,
    thr_w: f64,
) -> (Vec<Candidates>, usize) {
    let mut links = 0usize;
    let records = assigned
        .into_iter()
        .map(|a| match a {
            Some((j, w)) => {
                links += usize::from(w >= thr_w);
                Candidates {
                    list: vec![Candidate {
                        row: j as usize,
                        score: w,
                        rank: 1,
                    }],
                    unlisted: 0,
                }
            }
            None => Candidates::default(),
        })
        .collect();
    (records, links)
}
