//! Local suppression under the wildcard rule: a record's matches are the records that agree with
//! it on every key observed in both ([`PatternIndex`]), as sdcMicro's `kAnon` judges its output.
//!
//! Suppressing a cell never lowers any record's matches, so one pass over the unsafe records
//! suffices. Records are visited from the rarest (fewest matches, then row order). For an
//! unsafe record: if suppressing one key makes it safe, the least important such key is
//! suppressed; otherwise the key whose suppression raises its matches most (ties: least
//! important). This repeats until the record is safe. A second pass then restores every
//! suppressed cell that is no longer needed (most important keys first), so the result is
//! locally minimal: restoring any one suppressed cell makes some record unsafe.

use intruder_table::keys::PatternIndex;

use super::Target;

/// Local suppression on an index: returns the suppressed (row, key) cells in order.
pub(crate) fn anonymise(
    idx: &mut PatternIndex,
    target: Target,
    importance: &[i64],
) -> Vec<(usize, usize)> {
    let n = idx.len();
    let mut order: Vec<(u64, usize)> = (0..n)
        .filter_map(|r| {
            let (c, w) = idx.count(r);
            (!target.safe(c, w)).then_some((c, r))
        })
        .collect();
    order.sort_unstable();
    let mut out = Vec::new();
    for (_, r) in order {
        loop {
            let obs = idx.pattern(r);
            let (c, w) = idx.count_as(r, obs);
            if target.safe(c, w) || obs == 0 {
                break;
            }
            // candidates: (safe?, count, importance) — pick safe with largest importance number,
            // else largest count then largest importance number
            let mut best: Option<(bool, u64, i64, usize)> = None;
            let mut bits = obs;
            while bits != 0 {
                let j = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let (c, w) = idx.count_as(r, obs & !(1u64 << j));
                let safe = target.safe(c, w);
                let cand = (safe, if safe { 0 } else { c }, importance[j], j);
                let better = match best {
                    None => true,
                    Some(b) => (cand.0, cand.1, cand.2) > (b.0, b.1, b.2),
                };
                if better {
                    best = Some(cand);
                }
            }
            let Some((_, _, _, j)) = best else { break };
            idx.suppress(r, j);
            out.push((r, j));
        }
    }
    restore_redundant(idx, target, importance, out)
}

/// Second pass: tries to restore each suppressed cell, most important keys first (then the
/// latest suppression first), and keeps it restored when every record stays safe. Restoring only
/// removes matches, so each check is exact: the record's own count with the cell restored, and
/// the count of every record that would lose it as a match.
fn restore_redundant(
    idx: &mut PatternIndex,
    target: Target,
    importance: &[i64],
    cells: Vec<(usize, usize)>,
) -> Vec<(usize, usize)> {
    if cells.is_empty() {
        return cells;
    }
    let mut counts: Vec<(u64, f64)> = (0..idx.len()).map(|r| idx.count(r)).collect();
    let mut order: Vec<usize> = (0..cells.len()).collect();
    order.sort_by_key(|&c| (importance[cells[c].1], std::cmp::Reverse(c)));
    let mut keep = vec![true; cells.len()];
    for c in order {
        let (r, j) = cells[c];
        let obs = idx.pattern(r);
        let restored = obs | (1u64 << j);
        let now = idx.count_as(r, restored);
        if !target.safe(now.0, now.1) {
            continue;
        }
        let losers = if now.0 < counts[r].0 {
            idx.lost_on_restore(r, j)
        } else {
            Vec::new()
        };
        // entries are records: each loser loses one match and the record's weight
        let weight = idx.weight(r);
        if losers
            .iter()
            .any(|&s| !target.safe(counts[s].0 - 1, counts[s].1 - weight))
        {
            continue;
        }
        idx.restore(r, j);
        counts[r] = now;
        for s in losers {
            counts[s].0 -= 1;
            counts[s].1 -= weight;
        }
        keep[c] = false;
    }
    cells
        .into_iter()
        .zip(keep)
        .filter_map(|(c, k)| k.then_some(c))
        .collect()
}
