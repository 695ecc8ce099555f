//! Rank swapping (Moore 1996; sdcMicro `rankSwap`): each variable on its own, the observed values
//! are ranked (ties by row); going up the ranks, each value not yet swapped is exchanged with one
//! drawn uniformly among the values not yet swapped whose rank is above it by at most
//! w = ⌊p/100 · n⌋, n the number of observed values. **p is a percentage** (p = 5 means a window
//! of 5% of the records, not 0.05). No value therefore moves by more than w ranks; a value
//! without a free partner in its window stays. Missing cells stay missing.

use intruder_table::Table;
use rand::Rng;
use rand_chacha::ChaCha20Rng;

use crate::common::{check_columns, numeric, numeric_like};
use crate::{Defence, DefenceError, Masked};
use intruder_table::params::{ColumnNeed, Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "rank-swap";

/// Parameters of rank swapping.
#[derive(Debug, Clone, PartialEq)]
pub struct RankSwap {
    /// Numeric variables, each swapped on its own.
    pub(crate) variables: Vec<String>,
    /// Window as a PERCENTAGE of the number of records, 0 < p ≤ 100.
    pub(crate) p: f64,
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "variables",
        ParamKind::Columns,
        "numeric variables, each swapped independently",
    )
    .example(r#"["total_wealth"]"#)
    .required()
    .needs(ColumnNeed::Numeric),
    ParamSpec::new(
        "p",
        ParamKind::Number,
        "rank window as a PERCENTAGE of n (p = 5 → at most ⌊0.05·n⌋ ranks apart)",
    )
    .example("5")
    .required()
    .within(Range::left_open(0.0, 100.0)),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "rank swapping within a window of p percent of the ranks",
    reference: "Moore (1996); sdcMicro rankSwap (P in percent)",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let variables: Option<Vec<String>> = r.require("variables");
    let p: Option<f64> = r.require("p");
    if let Some(v) = &variables {
        r.check(
            "variables",
            !v.is_empty(),
            "must name at least one variable",
        );
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(RankSwap {
        variables: variables?,
        p: p?,
    }))
}

/// A Fenwick tree over 0/1 flags ("free") for counting and selecting free ranks.
struct Fenwick {
    t: Vec<u32>,
}

impl Fenwick {
    fn all_ones(n: usize) -> Self {
        let mut t = vec![0u32; n + 1];
        for i in 1..=n {
            t[i] += 1;
            let j = i + (i & i.wrapping_neg());
            if j <= n {
                t[j] += t[i];
            }
        }
        Fenwick { t }
    }
    /// Free count in ranks 0..i.
    fn prefix(&self, mut i: usize) -> u32 {
        let mut s = 0;
        while i > 0 {
            s += self.t[i];
            i &= i - 1;
        }
        s
    }
    fn clear(&mut self, i: usize) {
        let mut i = i + 1;
        while i < self.t.len() {
            self.t[i] -= 1;
            i += i & i.wrapping_neg();
        }
    }
    /// The rank of the `m`-th free rank (1-based m).
    fn select(&self, mut m: u32) -> usize {
        let n = self.t.len() - 1;
        let mut pos = 0;
        let mut step = n.next_power_of_two();
        while step > 0 {
            if pos + step <= n && self.t[pos + step] < m {
                pos += step;
                m -= self.t[pos];
            }
            step >>= 1;
        }
        pos
    }
}

/// Rank-swaps `values` (`NaN` = missing) with window `w` ranks.
pub(crate) fn swap_values(values: &mut [f64], w: usize, rng: &mut ChaCha20Rng) {
    let mut order: Vec<usize> = (0..values.len()).filter(|&i| !values[i].is_nan()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]).then(a.cmp(&b)));
    let m = order.len();
    if w == 0 || m < 2 {
        return;
    }
    let mut free = Fenwick::all_ones(m);
    let mut is_free = vec![true; m];
    for a in 0..m {
        if !is_free[a] {
            continue;
        }
        let hi = (a + w).min(m - 1);
        let before = free.prefix(a + 1);
        let cnt = free.prefix(hi + 1) - before;
        if cnt == 0 {
            continue;
        }
        let pick = rng.gen_range(0..cnt);
        let b = free.select(before + pick + 1);
        let (ra, rb) = (order[a], order[b]);
        values.swap(ra, rb);
        free.clear(a);
        free.clear(b);
        is_free[a] = false;
        is_free[b] = false;
    }
}

impl Defence for RankSwap {
    fn method(&self) -> &'static str {
        NAME
    }

    fn apply(&self, table: &Table, rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_columns(table, NAME, &self.variables)?;
        let mut out = table.clone();
        let mut notes = Vec::new();
        for v in &self.variables {
            let mut vals = numeric(table, NAME, v)?;
            let m = vals.iter().filter(|x| !x.is_nan()).count();
            let w = (self.p / 100.0 * m as f64).floor() as usize;
            notes.push(format!("{v}: window of {w} ranks ({}% of {m})", self.p));
            swap_values(&mut vals, w, rng);
            out.replace(numeric_like(table.column(v)?, &vals))?;
        }
        Ok(Masked {
            table: out,
            kept_rows: None,
            notes,
            details: None,
        })
    }
}
