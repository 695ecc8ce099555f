//! Targeted record swapping (sdcMicro's `recordSwap`, by Johannes Gussenbauer; the method
//! Eurostat recommended for the 2021 census round). Households at risk are moved to another
//! area by exchanging their geography with a similar household's; further households are
//! swapped at random until a swap rate is reached.
//!
//! With `hierarchy` = geography levels 1..L, coarse to fine, and households (`hid`) whose records
//! share their geography:
//!
//! 1. **Risk.** A record's risk at level l is 1/f, f the number of records sharing its
//!    `risk_variables` and its geography down to level l; a household takes its members'
//!    largest (or, with `risk`, one given column per level, the members' largest).
//! 2. **Households that must be swapped.** A household is at risk at the first level where its
//!    risk exceeds the threshold: 1/`k_anonymity` (a member in fewer than k records), or
//!    `risk_threshold` with `risk`. It must be swapped across that level: with a household
//!    outside its area of that level.
//! 3. **Swaps to reach the rate.** ⌈N·swaprate/2⌉ or ⌊N·swaprate/2⌋ swaps (a fair coin picks; a
//!    swap moves two households), spread over the finest areas in proportion to their
//!    households: each area its whole part, and as many areas as the fractional parts round to,
//!    drawn at random, one more.
//! 4. **Swapping**, level by level from the coarsest, each level's areas in order of their
//!    values. At a level above the finest, an area swaps its households at risk at that level.
//!    At the finest level, an area swaps its households at risk there, and then, when fewer
//!    than its share of swaps started from it so far (households of the area that were the
//!    swapped side of a pair at a coarser level count), households drawn with probability
//!    proportional to their finest-level risk (without replacement: the largest of risk/E,
//!    E ~ Exp(1)) until the share is reached. A household is swapped once.
//! 5. **Donors.** For a household swapped at level l, the donor is a household not yet swapped,
//!    outside its level-l area, with the same `similar` values (read on each household's first
//!    record); if none, the next profile of `similar_fallback`; if none, the household stays
//!    (reported in `no_donor`). Among the eligible donors the one with the largest level-l
//!    risk/E wins (E ~ Exp(1), drawn once per household and level): risky households are the
//!    likelier donors.
//! 6. Each pair exchanges its `hierarchy` and `carry_along` values; nothing else changes.
//!
//! Randomness, in order: one Exp(1) draw per household and level (households in order of their
//! ids), the coin, the shuffle that picks the areas rounded up, then per finest area with draws
//! to make one Exp(1) per candidate. No step runs on threads, so the output depends only on the
//! data, the parameters and the seed.
//!
//! **What it promises.** Nothing about k: a swapped household keeps every value but its
//! geography, so it is as unique in its new area as it was in its old one; the protection is
//! that an intruder cannot tell which households moved. `intruder mask` cross-examines the
//! release on the schema's keys (or `--check-keys`) without a promise. It is not a public
//! recoding: an intruder cannot repeat it.
//!
//! Differences from sdcMicro 5.8.1 (besides the random number generator): sdcMicro's
//! `similar` is a list of profiles, here `similar` (the first) and `similar_fallback` (the
//! rest); a donor is checked to be outside the household's area (sdcMicro checks it is not one
//! of the area's households still in play, so a household of the same area whose own swap
//! failed can become its donor); when the fractional parts of the swap shares round to 0
//! sdcMicro may still give the first finest area one more (its loop tests one shuffled index);
//! households of risk 0 (possible only with `risk`) are never drawn nor donors (sdcMicro keeps
//! one of them in each donor pool, as its pools are keyed by risk/E); a person-level column in
//! `similar` or `carry_along` is an error (sdcMicro reads the household's first record, and warns
//! for `carry_along`).

use std::cmp::Ordering;

use intruder_table::keys::{Keys, SetCoding, tuple_ids};
use intruder_table::{Role, Table};
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha20Rng;
use rand_distr::Exp1;
use serde_json::json;

use crate::common::{check_columns, numeric};
use crate::log::same_cell;
use crate::{Defence, DefenceError, Masked};
use intruder_table::params::{ColumnNeed, Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "record-swap";

/// Parameters of targeted record swapping.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordSwap {
    /// The household id column.
    pub(crate) hid: String,
    /// Geography columns, coarse to fine.
    pub(crate) hierarchy: Vec<String>,
    /// Similarity profiles tried in order: `similar`, then each of `similar_fallback`.
    pub(crate) similar: Vec<Vec<String>>,
    /// Columns of the k-anonymity rule (empty with `risk`).
    pub(crate) risk_variables: Vec<String>,
    /// Given risk columns, one per hierarchy level (empty: the k-anonymity rule).
    pub(crate) risk: Vec<String>,
    /// Households in classes below k must be swapped (0: none must).
    pub(crate) k_anonymity: u32,
    /// With `risk`: the risk above which a household must be swapped (0: 1/k_anonymity).
    pub(crate) risk_threshold: f64,
    /// Share of households swapped, 0 ≤ swaprate ≤ 1.
    pub(crate) swaprate: f64,
    /// Further household-level columns exchanged with the geography.
    pub(crate) carry_along: Vec<String>,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "hid",
        ParamKind::Column,
        "household id: a household's records are swapped together",
    )
    .example("link_id")
    .required()
    .from_role(Role::Group)
    .needs(ColumnNeed::Discrete),
    ParamSpec::new(
        "hierarchy",
        ParamKind::Columns,
        "geography, coarse to fine (e.g. nuts1, nuts2, nuts3): risk is counted per level and these values are exchanged between a household and its donor; every record of a household must share them",
    )
    .example(r#"["area"]"#)
    .required()
    .needs(ColumnNeed::Discrete),
    ParamSpec::new(
        "similar",
        ParamKind::Columns,
        "household-level columns a donor must share with the household it is swapped with (e.g. household size): sdcMicro's first similarity profile",
    )
    .example(r#"["household_type"]"#)
    .required()
    .needs(ColumnNeed::Discrete),
    ParamSpec::new(
        "similar_fallback",
        ParamKind::Strings,
        "further similarity profiles, tried in order when no donor shares 'similar', each its columns joined by '+' (sdcMicro's similar = list(c(\"hsize\", \"htype\"), \"hsize\") is similar = [\"hsize\", \"htype\"], similar_fallback = [\"hsize\"])",
    )
    .default_value("[]"),
    ParamSpec::new(
        "risk_variables",
        ParamKind::Columns,
        "the k-anonymity rule: a household is at risk at the first level where a member's values of these columns and the geography down to that level are shared by fewer than k_anonymity records (give risk_variables or risk)",
    )
    .example(r#"["ref_age", "ref_sex"]"#)
    .needs(ColumnNeed::Discrete),
    ParamSpec::new(
        "k_anonymity",
        ParamKind::Integer,
        "households whose count is below k at some level must be swapped across that level (0: none must)",
    )
    .default_value("3")
    .within(Range::at_least(0.0)),
    ParamSpec::new(
        "risk",
        ParamKind::Columns,
        "instead of the k-anonymity rule: one risk column per hierarchy level (a household takes its members' largest); risk 0 is never swapped",
    )
    .needs(ColumnNeed::Numeric),
    ParamSpec::new(
        "risk_threshold",
        ParamKind::Number,
        "with risk: a household is at risk at the first level where its risk exceeds this (0: 1/k_anonymity, as sdcMicro)",
    )
    .default_value("0")
    .within(Range::at_least(0.0)),
    ParamSpec::new(
        "swaprate",
        ParamKind::Number,
        "share of households swapped, a swap moving two: households·swaprate/2 swaps (rounded up or down at random), spread over the finest areas in proportion to their households; households at risk are swapped whatever the rate and count towards their finest area's share",
    )
    .example("0.05")
    .default_value("0.05")
    .within(Range::SHARE),
    ParamSpec::new(
        "carry_along",
        ParamKind::Columns,
        "further household-level columns exchanged with the geography (e.g. a finer area than the hierarchy's)",
    )
    .default_value("[]"),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "targeted record swapping: households at risk on the geography, and others up to a swap rate, exchange their geography with a similar household elsewhere",
    reference: "sdcMicro recordSwap (Gussenbauer); Eurostat's recommendation for the 2021 census round",
    params: PARAMS,
    figures: &[],
    build,
};

/// Reads and checks the parameters; every problem is recorded in `r`.
fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let hid: Option<String> = r.require("hid");
    let hierarchy: Option<Vec<String>> = r.require("hierarchy");
    let similar: Option<Vec<String>> = r.require("similar");
    let fallback: Vec<String> = r.get_or("similar_fallback", Vec::new());
    let risk_variables: Vec<String> = r.get_or("risk_variables", Vec::new());
    let k_anonymity: u32 = r.get_or("k_anonymity", 3);
    let risk: Vec<String> = r.get_or("risk", Vec::new());
    let risk_threshold: f64 = r.get_or("risk_threshold", 0.0);
    let swaprate: f64 = r.get_or("swaprate", 0.05);
    let carry_along: Vec<String> = r.get_or("carry_along", Vec::new());
    let mut profiles = Vec::new();
    if let Some(s) = &similar {
        r.check("similar", !s.is_empty(), "must name at least one column");
        profiles.push(s.clone());
    }
    for p in &fallback {
        let cols: Vec<String> = p.split('+').map(|c| c.trim().to_string()).collect();
        if cols.iter().any(String::is_empty) {
            r.problem(
                "similar_fallback",
                format!(
                    "profile '{p}' has an empty column name; join a profile's columns with '+'"
                ),
            );
            continue;
        }
        if let Some(known) = r.context().columns {
            for c in &cols {
                if let Err(e) = known.check_usable(c, ColumnNeed::Discrete) {
                    r.problem("similar_fallback", e);
                }
            }
        }
        profiles.push(cols);
    }
    match (risk_variables.is_empty(), risk.is_empty()) {
        (true, true) => r.table_problem(
            "give risk_variables (the k-anonymity rule) or risk (one risk column per hierarchy level)",
        ),
        (false, false) => r.table_problem(
            "give risk_variables (the k-anonymity rule) or risk, not both: with risk, sdcMicro does not use the k-anonymity rule",
        ),
        _ => {}
    }
    if risk.is_empty() && risk_threshold > 0.0 {
        r.problem(
            "risk_threshold",
            "applies only with 'risk'; the k-anonymity rule's threshold is 1/k_anonymity",
        );
    }
    if let Some(h) = &hierarchy {
        r.check("hierarchy", !h.is_empty(), "must name at least one column");
        if !risk.is_empty() {
            r.check(
                "risk",
                risk.len() == h.len(),
                format!(
                    "names {} columns for {} hierarchy levels; give one risk column per level",
                    risk.len(),
                    h.len()
                ),
            );
        }
        if let Some(id) = &hid {
            r.check(
                "hid",
                !h.contains(id),
                format!("'{id}' is also in 'hierarchy'; the household id is not exchanged"),
            );
        }
        for c in carry_along.iter().filter(|c| h.contains(c)) {
            r.problem(
                "carry_along",
                format!("'{c}' is in 'hierarchy', whose values are exchanged already"),
            );
        }
    }
    if let Some(id) = &hid {
        r.check(
            "carry_along",
            !carry_along.contains(id),
            format!("'{id}' is the household id, which is not exchanged"),
        );
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(RecordSwap {
        hid: hid?,
        hierarchy: hierarchy?,
        similar: profiles,
        risk_variables,
        risk,
        k_anonymity,
        risk_threshold,
        swaprate,
        carry_along,
    }))
}

/// The households of a table: rows grouped by household id, households in order of their ids.
struct Households {
    /// Rows of household h: `members[start[h]..start[h + 1]]`, in row order.
    members: Vec<usize>,
    /// Offsets into `members`, one per household and one past the end.
    start: Vec<usize>,
}

impl Households {
    /// Groups the rows of `table` by the values of column `hid`; a missing id is an error
    /// naming the row.
    fn of(table: &Table, hid: &str) -> Result<Households, DefenceError> {
        let keys = Keys::encode(table, &[hid.to_string()], SetCoding::Whole)?;
        let col = table.column(hid)?;
        if let Some(i) = (0..table.nrows()).find(|&i| col.is_missing(i)) {
            return Err(DefenceError::Column {
                method: NAME,
                column: hid.to_string(),
                message: format!(
                    "row {}: the household id is missing; every record needs one",
                    i + 1
                ),
            });
        }
        let codes = &keys.codes[0];
        let mut members: Vec<usize> = (0..table.nrows()).collect();
        members.sort_by_key(|&i| (codes[i], i));
        let mut start = Vec::new();
        for (j, &i) in members.iter().enumerate() {
            if j == 0 || codes[members[j - 1]] != codes[i] {
                start.push(j);
            }
        }
        start.push(members.len());
        Ok(Households { members, start })
    }

    /// Number of households.
    fn len(&self) -> usize {
        self.start.len() - 1
    }

    /// The rows of household `h`.
    fn rows(&self, h: usize) -> &[usize] {
        &self.members[self.start[h]..self.start[h + 1]]
    }

    /// The first row of household `h` (its values stand for the household's).
    fn first(&self, h: usize) -> usize {
        self.members[self.start[h]]
    }

    /// Checks that every record of each household holds the same value of column `name`; the
    /// error names the household, two rows and their values, and says why (`why`).
    fn check_shared(
        &self,
        table: &Table,
        hid: &str,
        name: &str,
        why: &str,
    ) -> Result<(), DefenceError> {
        let col = table.column(name)?;
        for h in 0..self.len() {
            let rows = self.rows(h);
            let first = rows[0];
            if let Some(&other) = rows[1..].iter().find(|&&r| !same_cell(col, first, col, r)) {
                let text = |r: usize| {
                    col.text(r)
                        .map_or("(missing)".to_string(), |t| format!("'{t}'"))
                };
                let id = table
                    .column(hid)?
                    .text(first)
                    .unwrap_or_default()
                    .into_owned();
                return Err(DefenceError::Column {
                    method: NAME,
                    column: name.to_string(),
                    message: format!(
                        "household '{id}' holds {} (row {}) and {} (row {}); {why}",
                        text(first),
                        first + 1,
                        text(other),
                        other + 1
                    ),
                });
            }
        }
        Ok(())
    }
}

/// The areas of every household at every hierarchy level, numbered at each level in order of
/// their values (coarse levels first, as sdcMicro's ordered maps).
struct Areas {
    /// `of[l][h]`: the level-l area of household h.
    of: Vec<Vec<u32>>,
    /// Number of areas per level.
    count: Vec<usize>,
}

impl Areas {
    /// Numbers the areas from the geography codes `geo` (one per level, per row) read on each
    /// household's first record; a missing geography is an error naming the row and column.
    fn of(
        table: &Table,
        hh: &Households,
        hierarchy: &[String],
        geo: &Keys,
    ) -> Result<Areas, DefenceError> {
        for (l, name) in hierarchy.iter().enumerate() {
            let col = table.column(name)?;
            if let Some(i) = (0..table.nrows()).find(|&i| col.is_missing(i)) {
                return Err(DefenceError::Column {
                    method: NAME,
                    column: hierarchy[l].clone(),
                    message: format!(
                        "row {}: the geography is missing; every record needs its area",
                        i + 1
                    ),
                });
            }
        }
        let nh = hh.len();
        let code = |h: usize, l: usize| geo.codes[l][hh.first(h)];
        let mut order: Vec<usize> = (0..nh).collect();
        order.sort_by(|&a, &b| {
            (0..hierarchy.len())
                .map(|l| code(a, l).cmp(&code(b, l)))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
                .then(a.cmp(&b))
        });
        let mut of = vec![vec![0u32; nh]; hierarchy.len()];
        let mut count = vec![0usize; hierarchy.len()];
        for (j, &h) in order.iter().enumerate() {
            // The first level whose value differs from the previous household's: that level and
            // every finer one start a new area.
            let new_from = match j {
                0 => 0,
                _ => (0..hierarchy.len())
                    .find(|&l| code(h, l) != code(order[j - 1], l))
                    .unwrap_or(hierarchy.len()),
            };
            for l in 0..hierarchy.len() {
                if l >= new_from {
                    count[l] += 1;
                }
                of[l][h] = (count[l] - 1) as u32;
            }
        }
        Ok(Areas { of, count })
    }
}

/// What the swapping decided.
#[derive(Debug, Default)]
struct Swaps {
    /// (household, donor, level), in the order made.
    pairs: Vec<(usize, usize, usize)>,
    /// (household, level) of the households to swap for which no donor was found.
    no_donor: Vec<(usize, usize)>,
    /// The number of swaps the swap rate asks for.
    target: usize,
}

/// The inputs of the swapping, per household.
struct Plan<'a> {
    areas: &'a Areas,
    /// `risk[h][l]`: the household's risk at level l.
    risk: &'a [Vec<f64>],
    /// The level a household must be swapped across (the number of levels: none).
    must: &'a [usize],
    /// `profiles[p][h]`: the household's value id under similarity profile p.
    profiles: &'a [Vec<u32>],
    swaprate: f64,
}

/// The donors of one level: per similarity profile and value, the households ordered by
/// their level's risk/E, largest first, with a cursor past those already swapped.
struct DonorPool {
    /// `lists[p][v]`: households with value v under profile p.
    lists: Vec<Vec<Vec<usize>>>,
    /// `cursor[p][v]`: every household before it in its list is swapped.
    cursor: Vec<Vec<usize>>,
}

impl DonorPool {
    /// Builds the pool of one level from the households' keys (risk/E; risk-0 households are
    /// left out).
    fn new(
        keys: &[f64],
        risk_positive: impl Fn(usize) -> bool,
        profiles: &[Vec<u32>],
    ) -> DonorPool {
        let mut order: Vec<usize> = (0..keys.len()).filter(|&h| risk_positive(h)).collect();
        order.sort_by(|&a, &b| keys[b].total_cmp(&keys[a]).then(a.cmp(&b)));
        let mut lists = Vec::with_capacity(profiles.len());
        for ids in profiles {
            let k = ids.iter().map(|&v| v as usize + 1).max().unwrap_or(0);
            let mut by_value = vec![Vec::new(); k];
            for &h in &order {
                by_value[ids[h] as usize].push(h);
            }
            lists.push(by_value);
        }
        let cursor = lists.iter().map(|l| vec![0; l.len()]).collect();
        DonorPool { lists, cursor }
    }

    /// The best donor for household `h` swapped across `area` (the level's area of each
    /// household): the first household of its profile's list not yet swapped and outside h's
    /// area, profile by profile.
    fn donor(
        &mut self,
        h: usize,
        area: &[u32],
        used: &[bool],
        profiles: &[Vec<u32>],
    ) -> Option<usize> {
        for (p, ids) in profiles.iter().enumerate() {
            let v = ids[h] as usize;
            let list = &self.lists[p][v];
            let cursor = &mut self.cursor[p][v];
            while *cursor < list.len() && used[list[*cursor]] {
                *cursor += 1;
            }
            if let Some(&d) = list[*cursor..]
                .iter()
                .find(|&&d| !used[d] && area[d] != area[h])
            {
                return Some(d);
            }
        }
        None
    }
}

impl Plan<'_> {
    /// The number of swaps per finest area: the total ⌈N·rate/2⌉ or ⌊N·rate/2⌋ (a fair coin),
    /// each area its whole share and the areas the fractional parts round to one more,
    /// drawn by a shuffle. Returns the total and the shares.
    fn quotas(&self, rng: &mut ChaCha20Rng) -> (usize, Vec<usize>) {
        let finest = self.areas.of.len() - 1;
        let nh = self.must.len();
        let half = nh as f64 * (self.swaprate / 2.0);
        let total = if rng.r#gen::<bool>() {
            half.ceil()
        } else {
            half.floor()
        } as usize;
        let mut size = vec![0usize; self.areas.count[finest]];
        for &a in &self.areas.of[finest] {
            size[a as usize] += 1;
        }
        let mut quota = Vec::with_capacity(size.len());
        let mut excess = 0.0;
        for &s in &size {
            let x = s as f64 / nh as f64 * total as f64;
            quota.push(x.floor() as usize);
            excess += x - x.floor();
        }
        let extra = excess.round() as usize;
        if extra > 0 {
            let mut areas: Vec<usize> = (0..size.len()).collect();
            areas.shuffle(rng);
            for &a in &areas[..extra.min(areas.len())] {
                quota[a] += 1;
            }
        }
        (total, quota)
    }

    /// Runs the swapping: donor keys, quotas, then level by level from the coarsest.
    fn run(&self, rng: &mut ChaCha20Rng) -> Swaps {
        let nh = self.must.len();
        let levels = self.areas.of.len();
        let finest = levels - 1;
        let mut keys = vec![vec![0.0f64; nh]; levels];
        for h in 0..nh {
            for l in 0..levels {
                let e: f64 = rng.sample(Exp1);
                keys[l][h] = self.risk[h][l] / e;
            }
        }
        let mut pools: Vec<DonorPool> = (0..levels)
            .map(|l| DonorPool::new(&keys[l], |h| self.risk[h][l] > 0.0, self.profiles))
            .collect();
        let (target, quota) = self.quotas(rng);
        let mut swaps = Swaps {
            target,
            ..Swaps::default()
        };
        let mut used = vec![false; nh];
        let mut failed = vec![false; nh];
        let mut swapped_side = vec![false; nh];
        for l in 0..levels {
            let area = &self.areas.of[l];
            let mut in_area: Vec<Vec<usize>> = vec![Vec::new(); self.areas.count[l]];
            for h in (0..nh).filter(|&h| !used[h] && !failed[h]) {
                in_area[area[h] as usize].push(h);
            }
            let mut started = vec![0usize; self.areas.count[l]];
            if l == finest {
                for h in (0..nh).filter(|&h| swapped_side[h]) {
                    started[area[h] as usize] += 1;
                }
            }
            for (a, households) in in_area.iter().enumerate() {
                let mut chosen: Vec<usize> = households
                    .iter()
                    .copied()
                    .filter(|&h| !used[h] && self.must[h] == l)
                    .collect();
                if l == finest {
                    let rest = quota[a].saturating_sub(started[a]);
                    let more = rest.saturating_sub(chosen.len());
                    chosen.extend(self.draw(households, more, &used, rng));
                }
                for h in chosen {
                    match pools[l].donor(h, area, &used, self.profiles) {
                        Some(d) => {
                            used[h] = true;
                            used[d] = true;
                            swapped_side[h] = true;
                            swaps.pairs.push((h, d, l));
                        }
                        None => {
                            failed[h] = true;
                            swaps.no_donor.push((h, l));
                        }
                    }
                }
            }
        }
        swaps
    }

    /// Draws `n` of the `households` of a finest area not yet swapped nor at risk there, with
    /// probability proportional to their finest-level risk, without replacement (the `n`
    /// largest risk/E, E ~ Exp(1) drawn per candidate in order), largest first.
    fn draw(
        &self,
        households: &[usize],
        n: usize,
        used: &[bool],
        rng: &mut ChaCha20Rng,
    ) -> Vec<usize> {
        if n == 0 {
            return Vec::new();
        }
        let finest = self.areas.of.len() - 1;
        let mut keyed: Vec<(f64, usize)> = households
            .iter()
            .copied()
            .filter(|&h| !used[h] && self.must[h] != finest && self.risk[h][finest] > 0.0)
            .map(|h| {
                let e: f64 = rng.sample(Exp1);
                (self.risk[h][finest] / e, h)
            })
            .collect();
        keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        keyed.into_iter().take(n).map(|(_, h)| h).collect()
    }
}

impl RecordSwap {
    /// Checks that every named column exists and that no list names one twice.
    fn check_named(&self, table: &Table) -> Result<(), DefenceError> {
        check_columns(table, NAME, std::slice::from_ref(&self.hid))?;
        check_columns(table, NAME, &self.hierarchy)?;
        for p in &self.similar {
            check_columns(table, NAME, p)?;
        }
        check_columns(table, NAME, &self.risk_variables)?;
        check_columns(table, NAME, &self.risk)?;
        check_columns(table, NAME, &self.carry_along)
    }

    /// The threshold above which a household's risk puts it at risk (sdcMicro's rule).
    fn threshold(&self) -> f64 {
        if self.risk_threshold > 0.0 {
            self.risk_threshold
        } else if self.k_anonymity == 0 {
            2.0
        } else {
            1.0 / self.k_anonymity as f64
        }
    }

    /// `risk[h][l]`: each household's largest member risk at each level, from the given risk
    /// columns or as 1/f of the k-anonymity rule.
    fn household_risk(
        &self,
        table: &Table,
        hh: &Households,
        geo: &Keys,
    ) -> Result<Vec<Vec<f64>>, DefenceError> {
        let levels = self.hierarchy.len();
        let mut per_row: Vec<Vec<f64>> = Vec::with_capacity(levels);
        if self.risk.is_empty() {
            let rv = Keys::encode(table, &self.risk_variables, SetCoding::Whole)?;
            for l in 0..levels {
                let mut cols: Vec<&[u32]> = rv.codes.iter().map(Vec::as_slice).collect();
                cols.extend(geo.codes[..=l].iter().map(Vec::as_slice));
                let (ids, k) = tuple_ids(&cols, false);
                let mut count = vec![0u64; k as usize];
                for &i in &ids {
                    count[i as usize] += 1;
                }
                per_row.push(
                    ids.iter()
                        .map(|&i| 1.0 / count[i as usize] as f64)
                        .collect(),
                );
            }
        } else {
            for name in &self.risk {
                let v = numeric(table, NAME, name)?;
                if let Some(i) = v.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
                    return Err(DefenceError::Column {
                        method: NAME,
                        column: name.clone(),
                        message: format!(
                            "row {}: risk {} is missing or negative; risks are numbers ≥ 0",
                            i + 1,
                            v[i]
                        ),
                    });
                }
                per_row.push(v);
            }
        }
        Ok((0..hh.len())
            .map(|h| {
                (0..levels)
                    .map(|l| {
                        hh.rows(h)
                            .iter()
                            .map(|&r| per_row[l][r])
                            .fold(0.0, f64::max)
                    })
                    .collect()
            })
            .collect())
    }

    /// `ids[p][h]`: the value id of each household's first record under each similarity
    /// profile.
    fn profile_ids(&self, table: &Table, hh: &Households) -> Result<Vec<Vec<u32>>, DefenceError> {
        let mut out = Vec::with_capacity(self.similar.len());
        for p in &self.similar {
            let keys = Keys::encode(table, p, SetCoding::Whole)?;
            let cols: Vec<&[u32]> = keys.codes.iter().map(Vec::as_slice).collect();
            let (ids, _) = tuple_ids(&cols, false);
            out.push((0..hh.len()).map(|h| ids[hh.first(h)]).collect());
        }
        Ok(out)
    }

    /// The swap report: counts per level, the pairs and the households without a donor, by
    /// household id.
    fn report(
        &self,
        table: &Table,
        hh: &Households,
        must: &[usize],
        swaps: &Swaps,
    ) -> Result<(Vec<String>, serde_json::Value), DefenceError> {
        let id_col = table.column(&self.hid)?;
        let id = |h: usize| id_col.text(hh.first(h)).unwrap_or_default().into_owned();
        let nh = hh.len();
        let swapped = 2 * swaps.pairs.len();
        let records: usize = swaps
            .pairs
            .iter()
            .map(|&(a, b, _)| hh.rows(a).len() + hh.rows(b).len())
            .sum();
        let mut notes = vec![format!(
            "{nh} households ({} records); swap rate {} asks for {} swaps; {swapped} households ({:.2}%, {records} records) swapped in {} pairs",
            table.nrows(),
            self.swaprate,
            swaps.target,
            100.0 * swapped as f64 / nh.max(1) as f64,
            swaps.pairs.len()
        )];
        let mut levels = Vec::new();
        for (l, name) in self.hierarchy.iter().enumerate() {
            let at_risk = must.iter().filter(|&&m| m == l).count();
            let made = swaps.pairs.iter().filter(|p| p.2 == l).count();
            let lost = swaps.no_donor.iter().filter(|p| p.1 == l).count();
            notes.push(format!(
                "{name}: {at_risk} households at risk, {made} swaps, {lost} without a donor"
            ));
            levels
                .push(json!({"level": name, "at_risk": at_risk, "swaps": made, "no_donor": lost}));
        }
        let details = json!({
            "households": nh,
            "records": table.nrows(),
            "swaprate": self.swaprate,
            "threshold": self.threshold(),
            "target_swaps": swaps.target,
            "households_swapped": swapped,
            "records_swapped": records,
            "levels": levels,
            "pairs": swaps.pairs.iter().map(|&(a, b, l)| json!({
                "household": id(a), "donor": id(b), "level": self.hierarchy[l]
            })).collect::<Vec<_>>(),
            "no_donor": swaps.no_donor.iter().map(|&(h, l)| json!({
                "household": id(h), "level": self.hierarchy[l]
            })).collect::<Vec<_>>(),
        });
        Ok((notes, details))
    }
}

impl Defence for RecordSwap {
    fn method(&self) -> &'static str {
        NAME
    }

    fn apply(&self, table: &Table, rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        self.check_named(table)?;
        if self.hierarchy.is_empty() || self.similar.iter().any(Vec::is_empty) {
            return Err(DefenceError::Infeasible {
                method: NAME,
                message: "give at least one hierarchy column and one column per similarity profile"
                    .into(),
            });
        }
        let hh = Households::of(table, &self.hid)?;
        for c in &self.hierarchy {
            hh.check_shared(table, &self.hid, c, "a household's records must share their geography, which is swapped with the household")?;
        }
        for c in &self.carry_along {
            hh.check_shared(table, &self.hid, c, "carry_along columns are exchanged with the household, so they must be household-level")?;
        }
        for c in self.similar.iter().flatten() {
            hh.check_shared(
                table,
                &self.hid,
                c,
                "a donor is matched on household-level values (similar)",
            )?;
        }
        let geo = Keys::encode(table, &self.hierarchy, SetCoding::Whole)?;
        let areas = Areas::of(table, &hh, &self.hierarchy, &geo)?;
        let risk = self.household_risk(table, &hh, &geo)?;
        let threshold = self.threshold();
        let levels = self.hierarchy.len();
        let must: Vec<usize> = risk
            .iter()
            .map(|r| r.iter().position(|&x| x > threshold).unwrap_or(levels))
            .collect();
        let profiles = self.profile_ids(table, &hh)?;
        let plan = Plan {
            areas: &areas,
            risk: &risk,
            must: &must,
            profiles: &profiles,
            swaprate: self.swaprate,
        };
        let swaps = plan.run(rng);
        // Each record takes its values from the partner household's first record.
        let mut source: Vec<usize> = (0..table.nrows()).collect();
        for &(a, b, _) in &swaps.pairs {
            for (x, y) in [(a, b), (b, a)] {
                for &r in hh.rows(x) {
                    source[r] = hh.first(y);
                }
            }
        }
        let mut out = table.clone();
        for c in self.hierarchy.iter().chain(&self.carry_along) {
            out.replace(table.column(c)?.take(&source))?;
        }
        let (notes, details) = self.report(table, &hh, &must, &swaps)?;
        Ok(Masked {
            table: out,
            kept_rows: None,
            notes,
            details: Some(details),
        })
    }
}
