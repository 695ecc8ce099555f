//! Comparison levels: each pair of values falls in the first level of the comparison whose
//! condition holds (`null` when either side is missing; `else` catches the rest).
//!
//! Values are interned per comparison into one dictionary shared by both files
//! ([`encode`](super::encode)), so a pair's level is a function of the two value ids, except
//! for a `columns-reversed` level, which also reads the other column's ids of both records.
//! String-similarity levels (Jaro–Winkler, Levenshtein: [`strings`](super::strings), equal to
//! `strsim`) are memoised per distinct id pair.
//!
//! This is the per-pair reference the kernel ([`kernel`](super::kernel)) must agree with; the
//! kernel computes the same levels from tables and memos (`tests/fellegi_sunter_kernel.rs`).

use intruder_data::Table;

use super::encode::{Dict, column_ids};
use super::spec::{Comparison, LevelKind};
use super::strings;
use crate::error::AttackError;

pub use super::encode::MISSING;

/// A `columns-reversed` level resolved against both files.
#[derive(Debug, Clone)]
pub struct Reversed {
    /// Its index among the comparison's levels.
    pub level: usize,
    /// Ids (in the comparison's dictionary) of the other column's values, intruder records.
    pub a_other: Vec<u32>,
    /// Likewise, released records.
    pub b_other: Vec<u32>,
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
    /// The value as a number (NaN when not a number).
    pub num: Vec<f64>,
    /// The value as a day count (`i64::MIN` when not a date `YYYY-MM-DD`).
    pub day: Vec<i64>,
    /// Whether a level needs string similarity (then levels are memoised).
    pub fuzzy: bool,
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
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146097 + doe - 719468)
}

impl Prepared {
    /// Interns the comparison's columns; errors name the file and column.
    ///
    /// `released_of(c)` names the released column of the intruder column `c` (the other column
    /// of a `columns-reversed` level).
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
                    a_other: oa,
                    b_other: ob,
                });
            }
        }
        let dict = d.values;
        let needs_num = spec
            .levels
            .iter()
            .any(|l| matches!(l.kind, LevelKind::Absolute(_) | LevelKind::Relative(_)));
        let needs_day = spec
            .levels
            .iter()
            .any(|l| matches!(l.kind, LevelKind::Date(_)));
        let num: Vec<f64> = if needs_num {
            dict.iter()
                .map(|s| s.parse::<f64>().unwrap_or(f64::NAN))
                .collect()
        } else {
            Vec::new()
        };
        let day: Vec<i64> = if needs_day {
            let mut out = Vec::with_capacity(dict.len());
            for (id, s) in dict.iter().enumerate() {
                match days(s) {
                    Some(d) => out.push(d),
                    None => {
                        let id = id as u32;
                        let (t, col, row) = match a.iter().position(|&x| x == id) {
                            Some(r) => (intruder, ic.name(), r),
                            None => (
                                released,
                                rc.name(),
                                b.iter().position(|&x| x == id).unwrap_or(0),
                            ),
                        };
                        return Err(AttackError::Column {
                            file: t.source().display().to_string(),
                            name: col.to_string(),
                            message: format!(
                                "row {}: '{s}' is not a date YYYY-MM-DD (needed by a 'date' level)",
                                row + 1
                            ),
                        });
                    }
                }
            }
            out
        } else {
            Vec::new()
        };
        let fuzzy = spec.levels.iter().any(|l| {
            matches!(
                l.kind,
                LevelKind::JaroWinkler(_) | LevelKind::Levenshtein(_)
            )
        });
        Ok(Prepared {
            spec: spec.clone(),
            released_column: released_column.to_string(),
            a,
            b,
            dict,
            num,
            day,
            fuzzy,
            reversed,
        })
    }

    /// The level (index into the comparison's levels) of two value ids, `columns-reversed`
    /// levels skipped (they read more than the two values; [`level`](Self::level) applies them).
    pub fn level_of_ids(&self, x: u32, y: u32) -> u8 {
        let miss = x == MISSING || y == MISSING;
        for (idx, level) in self.spec.levels.iter().enumerate() {
            let hit = match level.kind {
                LevelKind::Null => miss,
                LevelKind::Else => true,
                LevelKind::ColumnsReversed => false,
                _ if miss => false,
                LevelKind::Exact => x == y,
                LevelKind::JaroWinkler(t) => {
                    x == y
                        || strings::jaro_winkler(&self.dict[x as usize], &self.dict[y as usize])
                            >= t
                }
                LevelKind::Levenshtein(t) => {
                    x == y
                        || strings::levenshtein_within(
                            &self.dict[x as usize],
                            &self.dict[y as usize],
                            t,
                        )
                }
                LevelKind::Absolute(t) => {
                    let (p, q) = (self.num[x as usize], self.num[y as usize]);
                    (p - q).abs() <= t
                }
                LevelKind::Relative(t) => {
                    let (p, q) = (self.num[x as usize], self.num[y as usize]);
                    let den = p.abs().max(q.abs());
                    if den == 0.0 {
                        true
                    } else {
                        (p - q).abs() / den <= t
                    }
                }
                LevelKind::Date(t) => {
                    let (p, q) = (self.day[x as usize], self.day[y as usize]);
                    ((p - q).abs() as f64) <= t
                }
            };
            if hit {
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
        let base = if !self.fuzzy || x == y || x == MISSING || y == MISSING {
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

    fn a_other_ids(&self, i: usize) -> impl Iterator<Item = u32> + '_ {
        self.reversed.iter().map(move |r| r.a_other[i])
    }

    fn b_other_ids(&self, j: usize) -> impl Iterator<Item = u32> + '_ {
        self.reversed.iter().map(move |r| r.b_other[j])
    }

    /// The level once the `columns-reversed` levels are applied to the level `base` of the two
    /// values: the first reversed level before `base` that holds (intruder's value `x` equals the
    /// released other column `y_other`, and the intruder's other column `x_other` equals the
    /// released value `y`, none missing).
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
            if x != MISSING && y != MISSING && xo != MISSING && x == yo && xo == y {
                return r.level as u8;
            }
        }
        base
    }

    /// Index of the null level, if any.
    pub fn null_level(&self) -> Option<usize> {
        self.spec
            .levels
            .iter()
            .position(|l| l.kind == LevelKind::Null)
    }

    /// Index of the exact level, if any.
    pub fn exact_level(&self) -> Option<usize> {
        self.spec
            .levels
            .iter()
            .position(|l| l.kind == LevelKind::Exact)
    }

    /// The text of a value id (`None` for missing).
    pub fn value(&self, id: u32) -> Option<&str> {
        (id != MISSING).then(|| self.dict[id as usize].as_str())
    }
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
