//! Month of birth estimated from monthly background waves (Mulder, *survey panel anonymity*,
//! section "Month of birth").
//!
//! The panel releases the respondent's age at each monthly fill-in, never the birth date.
//! Between two consecutive observations the age either stays the same or goes up by one; an
//! increase between the fill-ins of months `m1` and `m2` puts the birthday in the interval
//! (fill-in `m1`, fill-in `m2`], which touches the calendar months `m1..=m2`. No increase over
//! a gap of fewer than twelve months rules out the months lying strictly between `m1` and `m2`
//! (they are covered entirely). The estimate is the set of months consistent with every
//! observation:
//!
//! * age changed always in the same month `m` (monthly waves): `{m - 1, m}` — two candidates;
//! * age changed in two adjacent months `m` and `m + 1` in different years: `{m}` — the paper's
//!   rule "the first of the two months";
//! * no change observed (membership shorter than a year and not spanning the birthday), or
//!   contradictory observations: the empty set — missing.
//!
//! The paper's worked respondent A (changes in March 2009 and March 2010) is labelled
//! "April/March" in its text, while its own stated rule ("that month, or the month before it")
//! and respondent B's reasoning give February/March; this module follows the stated rule.

/// One observation: the age recorded at the fill-in of a monthly wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgeObservation {
    /// Calendar year of the wave.
    pub year: i32,
    /// Calendar month of the wave, 1..=12.
    pub month: u8,
    /// Age in whole years at the fill-in.
    pub age: u32,
}

/// A set of calendar months as a bit mask (bit `m - 1` for month `m`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MonthSet(pub u16);

impl MonthSet {
    /// All twelve months.
    pub const ALL: MonthSet = MonthSet(0x0fff);

    /// The months in increasing order.
    pub fn months(self) -> Vec<u8> {
        (1..=12).filter(|m| self.0 & (1 << (m - 1)) != 0).collect()
    }

    /// Number of months in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty (no estimate).
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether month `m` (1..=12) is in the set.
    pub fn contains(self, m: u8) -> bool {
        (1..=12).contains(&m) && self.0 & (1 << (m - 1)) != 0
    }

    /// The cell text: months joined by `|`, empty when none.
    pub fn to_cell(self) -> String {
        self.months()
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join("|")
    }
}

fn month_index(o: &AgeObservation) -> i64 {
    i64::from(o.year) * 12 + i64::from(o.month) - 1
}

/// Months from index `a` to `b` inclusive (calendar months, wrapping over the year).
fn span(a: i64, b: i64) -> u16 {
    if b - a >= 11 {
        return MonthSet::ALL.0;
    }
    let mut mask = 0u16;
    for t in a..=b {
        mask |= 1 << t.rem_euclid(12);
    }
    mask
}

/// Estimate the birth month from a respondent's observations (in any order).
///
/// Returns the set of months consistent with every observed age; empty when no age change
/// was observed or the observations contradict each other.
pub fn estimate_birth_months(observations: &[AgeObservation]) -> MonthSet {
    let mut obs = observations.to_vec();
    obs.sort_by_key(month_index);
    let mut mask = MonthSet::ALL.0;
    let mut changes = 0usize;
    for pair in obs.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let (ta, tb) = (month_index(a), month_index(b));
        let gap = tb - ta;
        if gap == 0 {
            if a.age != b.age {
                return MonthSet(0);
            }
            continue;
        }
        let delta = i64::from(b.age) - i64::from(a.age);
        // Over `gap` months the age goes up by floor or ceil of gap / 12.
        let lo = gap / 12;
        let hi = (gap + 11) / 12;
        if delta < lo || delta > hi {
            return MonthSet(0);
        }
        if gap >= 12 {
            continue; // a birthday surely passed; no month information at this resolution
        }
        if delta == 1 {
            changes += 1;
            mask &= span(ta, tb);
        } else if gap >= 2 {
            mask &= !span(ta + 1, tb - 1);
        }
    }
    if changes == 0 {
        return MonthSet(0);
    }
    MonthSet(mask & MonthSet::ALL.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn monthly(start: (i32, u8), ages: &[u32]) -> Vec<AgeObservation> {
        let t0 = i64::from(start.0) * 12 + i64::from(start.1) - 1;
        ages.iter()
            .enumerate()
            .map(|(i, &age)| {
                let t = t0 + i as i64;
                AgeObservation {
                    year: (t / 12) as i32,
                    month: (t % 12 + 1) as u8,
                    age,
                }
            })
            .collect()
    }

    /// Ages for monthly waves from `start`, with the age going up at each listed (year, month).
    fn with_changes(
        start: (i32, u8),
        len: usize,
        age0: u32,
        at: &[(i32, u8)],
    ) -> Vec<AgeObservation> {
        let t0 = i64::from(start.0) * 12 + i64::from(start.1) - 1;
        let mut age = age0;
        let mut ages = Vec::new();
        for i in 0..len {
            let t = t0 + i as i64;
            let ym = ((t / 12) as i32, (t % 12 + 1) as u8);
            if i > 0 && at.contains(&ym) {
                age += 1;
            }
            ages.push(age);
        }
        monthly(start, &ages)
    }

    #[test]
    fn respondent_a_same_month_twice_gives_that_month_and_the_one_before() {
        // Changes in March 2009 and March 2010, then drops out.
        let obs = with_changes((2008, 11), 20, 40, &[(2009, 3), (2010, 3)]);
        assert_eq!(estimate_birth_months(&obs).months(), vec![2, 3]);
    }

    #[test]
    fn respondent_b_adjacent_months_gives_the_first() {
        // Changes in June 2008, July 2009 and June 2010.
        let obs = with_changes((2008, 1), 36, 30, &[(2008, 6), (2009, 7), (2010, 6)]);
        let est = estimate_birth_months(&obs);
        assert_eq!(est.months(), vec![6]);
        assert_eq!(est.to_cell(), "6");
    }

    #[test]
    fn respondent_c_seven_months_without_change_has_no_estimate() {
        let obs = monthly((2009, 1), &[25; 7]);
        let est = estimate_birth_months(&obs);
        assert!(est.is_empty());
        assert_eq!(est.to_cell(), "");
    }

    #[test]
    fn january_change_wraps_to_december() {
        let obs = with_changes((2008, 10), 6, 50, &[(2009, 1)]);
        assert_eq!(estimate_birth_months(&obs).to_cell(), "1|12");
    }

    #[test]
    fn gap_widens_the_interval_and_no_change_excludes_covered_months() {
        // Observed March (age 20), then June (age 21): birthday in March..=June.
        let o = |year, month, age| AgeObservation { year, month, age };
        assert_eq!(
            estimate_birth_months(&[o(2010, 3, 20), o(2010, 6, 21)]).months(),
            vec![3, 4, 5, 6]
        );
        // Adding: 2011 March (21) -> 2011 May (21): April is excluded; the change is known
        // to lie in March..=June, so the estimate is March, May or June.
        let est = estimate_birth_months(&[
            o(2010, 3, 20),
            o(2010, 6, 21),
            o(2011, 3, 21),
            o(2011, 5, 21),
        ]);
        assert_eq!(est.months(), vec![3, 5, 6]);
    }

    #[test]
    fn contradictions_give_no_estimate() {
        let o = |year, month, age| AgeObservation { year, month, age };
        assert!(estimate_birth_months(&[o(2010, 3, 20), o(2010, 4, 22)]).is_empty());
        assert!(estimate_birth_months(&[o(2010, 3, 20), o(2010, 4, 19)]).is_empty());
        // Changes in March and in June of different years: no month fits both.
        let obs = with_changes((2008, 1), 30, 30, &[(2008, 3), (2009, 6)]);
        assert!(estimate_birth_months(&obs).is_empty());
    }
}
