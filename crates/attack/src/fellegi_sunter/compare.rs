//! Comparison levels: each pair of values falls in the first level of the comparison whose
//! condition holds (`null` when either side is missing; `else` catches the rest).
//!
//! Values are interned per comparison into one dictionary shared by both files
//! ([`encode`](super::encode)), so a pair's level is a function of the two value ids, except
//! for a `columns-reversed` level, which also reads the other column's ids of both records.
//! A level reading an expression of the column (`on = "lower(name)"`, a preset's
//! `parse_date(…)`) reads a *view*: the expression of every distinct value computed once, with
//! its own dictionary — still a function of the two value ids. String levels (Jaro–Winkler,
//! Jaro, Levenshtein, Damerau–Levenshtein: [`strings`], equal to `strsim`;
//! array intersections) are memoised per distinct id pair by the kernel. Before a string
//! similarity is computed, exact bounds from per-value profiles (length in characters,
//! characters counted by bucket, first characters; computed once per distinct value) decide
//! the pairs whose similarity cannot reach the loosest threshold of the measure — most pairs
//! of unrelated values — so their level needs a few integer operations.
//!
//! This is the per-pair reference the kernel ([`kernel`](super::kernel)) must agree with; the
//! kernel computes the same levels from tables and memos (`tests/fellegi_sunter_kernel.rs`).

use intruder_table::Table;

use super::check::metric_of;
use super::encode::{Dict, column_ids};
use super::expr::Expr;
use super::spec::{Comparison, LevelKind};
use super::strings;
use crate::error::AttackError;

pub use super::encode::MISSING;

/// A `columns-reversed` level resolved against both files.
#[derive(Debug, Clone)]
pub struct Reversed {
    /// Its index among the comparison's levels.
    pub level: usize,
    /// Both crosswise equalities needed (else only intruder's value = released other column).
    pub symmetrical: bool,
    /// Ids (in the comparison's dictionary) of the other column's values, intruder records.
    pub a_other: Vec<u32>,
    /// Likewise, released records.
    pub b_other: Vec<u32>,
}

/// The values of a comparison as one level reads them: the column itself, or an expression
/// of it.
#[derive(Debug, Clone, Default)]
pub struct View {
    /// The expression (`None`: the values themselves).
    pub expr: Option<Expr>,
    /// Id in `dict` of each value id of the comparison (`MISSING` where the expression is
    /// null); empty for the values themselves (the identity).
    pub map: Vec<u32>,
    /// The distinct texts, by id.
    pub dict: Vec<String>,
    /// Each text as a number (NaN when not a number; empty unless a level needs numbers).
    pub num: Vec<f64>,
    /// Each text as a day count (`i64::MIN` when not a date; empty unless a date level reads
    /// the view).
    pub day: Vec<i64>,
    /// Each text's items (split at `|`, sorted, without repeats; empty unless an
    /// array-intersect level reads the view).
    pub items: Vec<Vec<String>>,
    /// Each text's profile for the bounds of the string levels (empty unless a string level
    /// reads the view).
    pub profiles: Vec<strings::TextProfile>,
    /// The texts again, in one buffer, for the string levels (empty unless one reads the view).
    pub packed: PackedTexts,
}

/// Texts in one buffer: the string levels read two texts per pair, in no order; one buffer
/// stays in cache where texts allocated one by one would not.
#[derive(Debug, Clone, Default)]
pub struct PackedTexts {
    text: String,
    /// End of each text in `text` (it starts where the previous one ends).
    ends: Vec<usize>,
}

impl PackedTexts {
    /// The texts `texts`, by id.
    pub fn of(texts: &[String]) -> Self {
        let mut out = PackedTexts {
            text: String::with_capacity(texts.iter().map(String::len).sum()),
            ends: Vec::with_capacity(texts.len()),
        };
        for t in texts {
            out.text.push_str(t);
            out.ends.push(out.text.len());
        }
        out
    }

    /// The text of id `id`.
    #[inline]
    pub fn get(&self, id: u32) -> &str {
        let id = id as usize;
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        &self.text[start..self.ends[id]]
    }
}

impl View {
    #[inline]
    fn id(&self, x: u32) -> u32 {
        if x == MISSING || self.map.is_empty() {
            x
        } else {
            self.map[x as usize]
        }
    }
}

/// The loosest thresholds of a view's string levels: a pair whose similarity cannot reach
/// them (by a bound read from the two values' profiles) fails all of them at once.
#[derive(Debug, Clone, Copy, Default)]
struct Bounds {
    /// Least Jaro–Winkler level threshold.
    jw: Option<f64>,
    /// Least Jaro level threshold.
    jaro: Option<f64>,
    /// Largest Levenshtein threshold.
    lev: Option<f64>,
    /// Largest Damerau–Levenshtein threshold.
    dl: Option<f64>,
}

/// The string measures the bounds decide (an index into the bit set of measures rejected).
const JARO_WINKLER: u8 = 0;
const JARO: u8 = 1;
const LEVENSHTEIN: u8 = 2;
const DAMERAU_LEVENSHTEIN: u8 = 3;

/// How [`Prepared::level_by_bounds`] tests a level.
#[derive(Debug, Clone, Copy)]
enum Quick {
    Null,
    Else,
    /// A `columns-reversed` level (never holds on the two values alone).
    Never,
    Exact,
    /// A string measure (`JARO_WINKLER`, …): decided when the bound rejects the pair.
    Measure(u8),
    /// Numbers and dates: cheap, evaluated.
    Plain,
    /// Array intersections: left to the full evaluation.
    Full,
}

/// The string measures of one pair computed so far while its levels are tested in order
/// (each measure once per view, however many levels test it).
#[derive(Default)]
struct Sims {
    len: usize,
    entries: [(usize, u8, f64); 8],
}

impl Sims {
    fn get(&mut self, view: usize, measure: u8, f: impl FnOnce() -> f64) -> f64 {
        if let Some(e) = self.entries[..self.len]
            .iter()
            .find(|e| e.0 == view && e.1 == measure)
        {
            return e.2;
        }
        let v = f();
        if self.len < self.entries.len() {
            self.entries[self.len] = (view, measure, v);
            self.len += 1;
        }
        v
    }
}

/// One comparison resolved against both files.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The comparison.
    pub spec: Comparison,
    /// The released column's name.
    pub released_column: String,
    /// Value id of every intruder record (`MISSING` when missing).
    pub a: Vec<u32>,
    /// Value id of every released record.
    pub b: Vec<u32>,
    /// The distinct values, by id.
    pub dict: Vec<String>,
    /// The views the levels read (view 0: the values themselves).
    pub views: Vec<View>,
    /// The view of each level.
    pub level_view: Vec<usize>,
    /// Whether a level needs more than equality of ids (then levels are memoised).
    pub fuzzy: bool,
    /// Per view, the loosest threshold of each string measure its levels test.
    bounds: Vec<Bounds>,
    /// How the bounds' quick path tests each level.
    quick: Vec<Quick>,
    /// The `columns-reversed` levels, in order.
    pub reversed: Vec<Reversed>,
}

/// Days since 1970-01-01 of a `YYYY-MM-DD` date (proleptic Gregorian), `None` if not a date.
pub fn days(s: &str) -> Option<i64> {
    let s = s.trim();
    let mut it = s.splitn(3, '-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    let d: i64 = it
        .next()?
        .get(..2)?
        .trim_end_matches(['T', ' '])
        .parse()
        .ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// Howard Hinnant's `days_from_civil`: days since 1970-01-01.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// The items of an array value: split at `|`, sorted, without repeats (DuckDB's
/// `list_intersect` counts each common item once).
pub fn items(s: &str) -> Vec<String> {
    let mut v: Vec<String> = s
        .split('|')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    v.sort();
    v.dedup();
    v
}

/// Number of items two sorted, repeat-free lists share.
pub fn common_items(a: &[String], b: &[String]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// The first row holding value id `id`, as (table, column, row) for an error message.
fn where_is<'t>(
    id: u32,
    a: &[u32],
    b: &[u32],
    intruder: (&'t Table, &'t str),
    released: (&'t Table, &'t str),
) -> (&'t Table, &'t str, usize) {
    match a.iter().position(|&x| x == id) {
        Some(r) => (intruder.0, intruder.1, r),
        None => (
            released.0,
            released.1,
            b.iter().position(|&x| x == id).unwrap_or(0),
        ),
    }
}

impl Prepared {
    /// Interns the comparison's columns; errors name the file and column.
    pub fn new(
        spec: &Comparison,
        intruder: &Table,
        released: &Table,
        released_column: &str,
    ) -> Result<Prepared, AttackError> {
        Self::with_names(spec, intruder, released, released_column, &|c: &str| {
            c.to_string()
        })
    }

    /// [`new`](Self::new), the released name of a `columns-reversed` level's other column given
    /// by `released_of`.
    pub fn with_names(
        spec: &Comparison,
        intruder: &Table,
        released: &Table,
        released_column: &str,
        released_of: &dyn Fn(&str) -> String,
    ) -> Result<Prepared, AttackError> {
        let ic = intruder.column(&spec.column)?;
        let rc = released.column(released_column)?;
        let mut d = Dict::default();
        let a = column_ids(ic, &mut d);
        let b = column_ids(rc, &mut d);
        let mut reversed = Vec::new();
        for (l, lev) in spec.levels.iter().enumerate() {
            if let (LevelKind::ColumnsReversed, Some(other)) = (&lev.kind, &lev.column) {
                let oa = column_ids(intruder.column(other)?, &mut d);
                let ob = column_ids(released.column(&released_of(other))?, &mut d);
                reversed.push(Reversed {
                    level: l,
                    symmetrical: lev.is_symmetrical(),
                    a_other: oa,
                    b_other: ob,
                });
            }
        }
        let dict = d.values;
        let mut views = vec![View {
            dict: dict.clone(),
            ..View::default()
        }];
        let mut level_view = Vec::with_capacity(spec.levels.len());
        for lev in &spec.levels {
            let v = match &lev.on {
                None => 0,
                Some(e) => match views.iter().position(|v| v.expr.as_ref() == Some(e)) {
                    Some(v) => v,
                    None => {
                        views.push(derived_view(e, &dict).map_err(|m| AttackError::Column {
                            file: intruder.source().to_string(),
                            name: spec.column.clone(),
                            message: m,
                        })?);
                        views.len() - 1
                    }
                },
            };
            level_view.push(v);
        }
        for (l, lev) in spec.levels.iter().enumerate() {
            let v = &mut views[level_view[l]];
            match lev.kind {
                LevelKind::Absolute(_) | LevelKind::Relative(_) if v.num.is_empty() => {
                    v.num = v
                        .dict
                        .iter()
                        .map(|s| s.parse::<f64>().unwrap_or(f64::NAN))
                        .collect();
                }
                LevelKind::ArrayIntersect(_) if v.items.is_empty() => {
                    v.items = v.dict.iter().map(|s| items(s)).collect();
                }
                LevelKind::Date(_) if v.day.is_empty() => {
                    let mut out = Vec::with_capacity(v.dict.len());
                    for (id, s) in v.dict.iter().enumerate() {
                        match days(s) {
                            Some(d) => out.push(d),
                            // A view of the values (no parse_date) must hold dates only.
                            None if v.expr.is_none() => {
                                let (t, col, row) = where_is(
                                    id as u32,
                                    &a,
                                    &b,
                                    (intruder, ic.name()),
                                    (released, rc.name()),
                                );
                                return Err(AttackError::Column {
                                    file: t.source().to_string(),
                                    name: col.to_string(),
                                    message: format!(
                                        "row {}: '{s}' is not a date YYYY-MM-DD (needed by a 'date' level; give format = \"…\" for another format)",
                                        row + 1
                                    ),
                                });
                            }
                            None => out.push(i64::MIN),
                        }
                    }
                    v.day = out;
                }
                _ => {}
            }
        }
        let fuzzy = spec
            .levels
            .iter()
            .any(|l| l.kind.is_string_similarity() || l.on.is_some());
        profile_views(spec, &mut views, &level_view);
        let bounds = level_bounds(spec, &level_view, views.len());
        let quick = quick_tests(spec);
        Ok(Prepared {
            spec: spec.clone(),
            released_column: released_column.to_string(),
            a,
            b,
            dict,
            views,
            level_view,
            fuzzy,
            bounds,
            quick,
            reversed,
        })
    }

    /// Whether level `l` holds for value ids `x`, `y` (a `columns-reversed` level never does
    /// here: it reads more than the two values; [`level`](Self::level) applies it).
    pub fn holds(&self, l: usize, x: u32, y: u32) -> bool {
        self.holds_with(l, x, y, &mut Sims::default())
    }

    fn holds_with(&self, l: usize, x: u32, y: u32, sims: &mut Sims) -> bool {
        let level = &self.spec.levels[l];
        let view = self.level_view[l];
        let v = &self.views[view];
        let (vx, vy) = (v.id(x), v.id(y));
        let miss = vx == MISSING || vy == MISSING;
        // The texts, read only by the levels that compare them.
        let texts = || (v.packed.get(vx), v.packed.get(vy));
        let bound = self.bounds[view];
        // A distance beyond every threshold of the view is infinite here.
        let distance = |d: Option<usize>| d.map_or(f64::INFINITY, |d| d as f64);
        match level.kind {
            LevelKind::Null => miss,
            LevelKind::Else => true,
            LevelKind::ColumnsReversed => false,
            _ if miss => false,
            LevelKind::Exact => vx == vy,
            LevelKind::JaroWinkler(_)
            | LevelKind::Jaro(_)
            | LevelKind::Levenshtein(_)
            | LevelKind::DamerauLevenshtein(_)
                if vx == vy =>
            {
                true
            }
            // Each measure is computed once per pair; a pair whose bound (from the two values'
            // profiles) cannot reach the loosest threshold of the view fails every level of the
            // measure without it (-1 or an infinite distance).
            LevelKind::JaroWinkler(t) => {
                sims.get(view, JARO_WINKLER, || {
                    if self.bound_rejects(view, JARO_WINKLER, vx, vy) {
                        -1.0
                    } else {
                        let (a, b) = texts();
                        strings::jaro_winkler(a, b)
                    }
                }) >= t
            }
            LevelKind::Jaro(t) => {
                sims.get(view, JARO, || {
                    if self.bound_rejects(view, JARO, vx, vy) {
                        -1.0
                    } else {
                        let (a, b) = texts();
                        strings::jaro(a, b)
                    }
                }) >= t
            }
            LevelKind::Levenshtein(t) => {
                let max = bound.lev.unwrap_or(t);
                sims.get(view, LEVENSHTEIN, || {
                    if self.bound_rejects(view, LEVENSHTEIN, vx, vy) {
                        f64::INFINITY
                    } else {
                        let (a, b) = texts();
                        distance(strings::levenshtein_by_table(a, b, max))
                    }
                }) <= t
            }
            LevelKind::DamerauLevenshtein(t) => {
                let max = bound.dl.unwrap_or(t);
                sims.get(view, DAMERAU_LEVENSHTEIN, || {
                    if self.bound_rejects(view, DAMERAU_LEVENSHTEIN, vx, vy) {
                        f64::INFINITY
                    } else {
                        let (a, b) = texts();
                        distance(strings::damerau_levenshtein_by_table(a, b, max))
                    }
                }) <= t
            }
            LevelKind::Absolute(_) | LevelKind::Relative(_) | LevelKind::Date(_) => {
                self.holds_plain(l, vx, vy)
            }
            LevelKind::ArrayIntersect(t) => {
                (common_items(&v.items[vx as usize], &v.items[vy as usize]) as f64) >= t
            }
        }
    }

    /// Whether a numeric or date level `l` holds for the view ids `vx`, `vy` (neither missing).
    #[inline]
    fn holds_plain(&self, l: usize, vx: u32, vy: u32) -> bool {
        let level = &self.spec.levels[l];
        let v = &self.views[self.level_view[l]];
        match level.kind {
            LevelKind::Absolute(t) => {
                let (p, q) = (v.num[vx as usize], v.num[vy as usize]);
                (p - q).abs() <= t
            }
            LevelKind::Relative(t) => {
                let (p, q) = (v.num[vx as usize], v.num[vy as usize]);
                let den = p.abs().max(q.abs());
                if den == 0.0 {
                    true
                } else {
                    (p - q).abs() / den <= t
                }
            }
            LevelKind::Date(t) => {
                let (p, q) = (v.day[vx as usize], v.day[vy as usize]);
                p != i64::MIN
                    && q != i64::MIN
                    && ((p - q).abs() as f64) <= t * metric_of(level).days()
            }
            _ => unreachable!("holds_plain is only asked about numeric and date levels"),
        }
    }

    /// Whether the bound of `measure` on view `view` (from the profiles of the distinct view
    /// ids `vx`, `vy`) puts the pair below every level of that measure reading the view: a
    /// similarity bound under the least threshold, a distance bound over the largest.
    #[inline(always)]
    fn bound_rejects(&self, view: usize, measure: u8, vx: u32, vy: u32) -> bool {
        let v = &self.views[view];
        let (p, q) = (&v.profiles[vx as usize], &v.profiles[vy as usize]);
        let b = &self.bounds[view];
        let over = |max: Option<f64>| {
            max.is_some_and(|m| f64::from(strings::edit_distance_lower_bound(p, q)) > m)
        };
        match measure {
            JARO_WINKLER => {
                b.jw.is_some_and(|t| strings::jaro_winkler_upper_bound(p, q) < t)
            }
            JARO => b.jaro.is_some_and(|t| strings::jaro_upper_bound(p, q) < t),
            LEVENSHTEIN => over(b.lev),
            _ => over(b.dl),
        }
    }

    /// The level of two value ids when the cheap tests decide it: null, exact, numeric and
    /// date levels evaluated, a string level held by equal values or failed by its bound
    /// ([`bound_rejects`](Self::bound_rejects), once per view and measure). `None` as soon as a
    /// level needs a string measure (or an array intersection) computed.
    #[inline]
    fn level_by_bounds(&self, x: u32, y: u32) -> Option<u8> {
        // Bit `4 view + measure`: that measure's bound rejected the pair on that view.
        let mut rejected = 0u64;
        // The view ids of the last view read (consecutive levels mostly read the same view).
        let (mut last, mut vx, mut vy) = (usize::MAX, MISSING, MISSING);
        for (l, &q) in self.quick.iter().enumerate() {
            let view = self.level_view[l];
            if view != last {
                let v = &self.views[view];
                (last, vx, vy) = (view, v.id(x), v.id(y));
            }
            let miss = vx == MISSING || vy == MISSING;
            let holds = match q {
                Quick::Null => miss,
                Quick::Else => true,
                Quick::Never => false,
                _ if miss => false,
                Quick::Exact => vx == vy,
                Quick::Measure(_) if vx == vy => true,
                Quick::Measure(m) => {
                    let bit = 1u64
                        .checked_shl((4 * view + m as usize) as u32)
                        .unwrap_or(0);
                    if rejected & bit == 0 {
                        if !self.bound_rejects(view, m, vx, vy) {
                            return None;
                        }
                        rejected |= bit;
                    }
                    false
                }
                Quick::Plain => self.holds_plain(l, vx, vy),
                Quick::Full => return None,
            };
            if holds {
                return Some(l as u8);
            }
        }
        None
    }

    /// The level (index into the comparison's levels) of two value ids, `columns-reversed`
    /// levels skipped (they read more than the two values; [`level`](Self::level) applies them).
    /// Each string measure is computed at most once per pair, however many levels test it.
    pub fn level_of_ids(&self, x: u32, y: u32) -> u8 {
        if let Some(l) = self.level_by_bounds(x, y) {
            return l;
        }
        let mut sims = Sims::default();
        for idx in 0..self.spec.levels.len() {
            if self.holds_with(idx, x, y, &mut sims) {
                return idx as u8;
            }
        }
        // Unreachable for a checked comparison (it ends with `else`).
        (self.spec.levels.len() - 1) as u8
    }

    /// The level of intruder row `i` and released row `j`, memoised in `memo` (one memo per
    /// comparison: keys are this comparison's value ids) when fuzzy.
    #[inline]
    pub fn level(&self, i: usize, j: usize, memo: &mut foldhash::HashMap<u64, u8>) -> u8 {
        let (x, y) = (self.a[i], self.b[j]);
        let base = if !self.fuzzy || x == MISSING || y == MISSING {
            self.level_of_ids(x, y)
        } else {
            let key = ((x as u64) << 32) | y as u64;
            match memo.get(&key) {
                Some(&l) => l,
                None => {
                    let l = self.level_of_ids(x, y);
                    memo.insert(key, l);
                    l
                }
            }
        };
        self.apply_reversed(base, x, self.b_other_ids(j), y, self.a_other_ids(i))
    }

    /// The ids one record gives this comparison: its own value's, then the other column's of
    /// each `columns-reversed` level, in order ([`level_of_sides`](Self::level_of_sides)).
    pub fn width(&self) -> usize {
        1 + self.reversed.len()
    }

    /// The level of two records from their ids laid out as [`width`](Self::width) says (`a`
    /// the intruder record's, `b` the released record's), `columns-reversed` levels applied.
    #[inline]
    pub fn level_of_sides(&self, a: &[u32], b: &[u32]) -> u8 {
        let (x, y) = (a[0], b[0]);
        let base = self.level_of_ids(x, y);
        if self.reversed.is_empty() {
            return base;
        }
        self.apply_reversed(base, x, b[1..].iter().copied(), y, a[1..].iter().copied())
    }

    fn a_other_ids(&self, i: usize) -> impl Iterator<Item = u32> + '_ {
        self.reversed.iter().map(move |r| r.a_other[i])
    }

    fn b_other_ids(&self, j: usize) -> impl Iterator<Item = u32> + '_ {
        self.reversed.iter().map(move |r| r.b_other[j])
    }

    /// The level once the `columns-reversed` levels are applied to the level `base` of the two
    /// values: the first reversed level before `base` that holds (intruder's value `x` equals the
    /// released other column `y_other`, and — when symmetrical — the intruder's other column
    /// `x_other` equals the released value `y`, none missing).
    #[inline]
    pub fn apply_reversed(
        &self,
        base: u8,
        x: u32,
        y_other: impl Iterator<Item = u32>,
        y: u32,
        x_other: impl Iterator<Item = u32>,
    ) -> u8 {
        for ((r, yo), xo) in self.reversed.iter().zip(y_other).zip(x_other) {
            if r.level as u8 >= base {
                break;
            }
            if reversed_holds(r.symmetrical, x, yo, y, xo) {
                return r.level as u8;
            }
        }
        base
    }

    /// Index of the null level, if any.
    pub fn null_level(&self) -> Option<usize> {
        self.spec.null_level()
    }

    /// Index of the exact level on the value itself (term frequencies adjust it), if any.
    pub fn exact_level(&self) -> Option<usize> {
        self.spec.exact_level()
    }

    /// The text of a value id (`None` for missing).
    pub fn value(&self, id: u32) -> Option<&str> {
        (id != MISSING).then(|| self.dict[id as usize].as_str())
    }
}

/// Whether a `columns-reversed` level holds: the intruder's value `x` equals the released
/// record's other column `y_other` (none missing) and, when symmetrical, the intruder's other
/// column `x_other` equals the released value `y`.
#[inline]
pub fn reversed_holds(symmetrical: bool, x: u32, y_other: u32, y: u32, x_other: u32) -> bool {
    if x == MISSING || y_other == MISSING || x != y_other {
        return false;
    }
    !symmetrical || (y != MISSING && x_other != MISSING && x_other == y)
}

/// The view of expression `e` over the comparison's distinct values `dict`.
fn derived_view(e: &Expr, dict: &[String]) -> Result<View, String> {
    let compiled = e.compile()?;
    let mut d = Dict::default();
    let map = dict
        .iter()
        .map(|s| compiled.apply(s).map_or(MISSING, |t| d.id(&t)))
        .collect();
    Ok(View {
        expr: Some(e.clone()),
        map,
        dict: d.values,
        ..View::default()
    })
}

/// Packs per-comparison levels (4 bits each) into one pattern code.
#[inline]
pub fn pack(levels: &[u8]) -> u64 {
    levels
        .iter()
        .enumerate()
        .fold(0u64, |acc, (k, &l)| acc | ((l as u64) << (4 * k)))
}

/// The level of comparison `k` in a pattern code.
#[inline]
pub fn unpack(code: u64, k: usize) -> usize {
    ((code >> (4 * k)) & 0xF) as usize
}

/// Fills, for each view a string-similarity level reads, its texts' profiles (the bounds'
/// input) and its texts packed in one buffer.
fn profile_views(spec: &Comparison, views: &mut [View], level_view: &[usize]) {
    for (l, lev) in spec.levels.iter().enumerate() {
        let v = &mut views[level_view[l]];
        let bounded = matches!(
            lev.kind,
            LevelKind::JaroWinkler(_)
                | LevelKind::Jaro(_)
                | LevelKind::Levenshtein(_)
                | LevelKind::DamerauLevenshtein(_)
        );
        if bounded && v.profiles.is_empty() && !v.dict.is_empty() {
            let buckets = strings::CharBuckets::of(v.dict.iter().map(String::as_str));
            v.packed = PackedTexts::of(&v.dict);
            v.profiles = v
                .dict
                .iter()
                .map(|s| strings::TextProfile::new(s, &buckets))
                .collect();
        }
    }
}

/// Per view, the loosest threshold of each bounded measure its levels use (the lowest
/// similarity, the highest distance): a pair past it is in none of them.
fn level_bounds(spec: &Comparison, level_view: &[usize], nviews: usize) -> Vec<Bounds> {
    let mut bounds = vec![Bounds::default(); nviews];
    for (l, lev) in spec.levels.iter().enumerate() {
        let b = &mut bounds[level_view[l]];
        let lo = |x: Option<f64>, t: f64| Some(x.map_or(t, |v| v.min(t)));
        let hi = |x: Option<f64>, t: f64| Some(x.map_or(t, |v| v.max(t)));
        match lev.kind {
            LevelKind::JaroWinkler(t) => b.jw = lo(b.jw, t),
            LevelKind::Jaro(t) => b.jaro = lo(b.jaro, t),
            LevelKind::Levenshtein(t) => b.lev = hi(b.lev, t),
            LevelKind::DamerauLevenshtein(t) => b.dl = hi(b.dl, t),
            _ => {}
        }
    }
    bounds
}

/// Per level, the cheap test that can decide it before any similarity is computed.
fn quick_tests(spec: &Comparison) -> Vec<Quick> {
    spec.levels
        .iter()
        .map(|l| match l.kind {
            LevelKind::Null => Quick::Null,
            LevelKind::Else => Quick::Else,
            LevelKind::ColumnsReversed => Quick::Never,
            LevelKind::Exact => Quick::Exact,
            LevelKind::JaroWinkler(_) => Quick::Measure(JARO_WINKLER),
            LevelKind::Jaro(_) => Quick::Measure(JARO),
            LevelKind::Levenshtein(_) => Quick::Measure(LEVENSHTEIN),
            LevelKind::DamerauLevenshtein(_) => Quick::Measure(DAMERAU_LEVENSHTEIN),
            LevelKind::Absolute(_) | LevelKind::Relative(_) | LevelKind::Date(_) => Quick::Plain,
            LevelKind::ArrayIntersect(_) => Quick::Full,
        })
        .collect()
}
