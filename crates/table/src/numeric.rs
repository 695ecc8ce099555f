//! Numbers from columns, in one place: whether a column reads as numbers ([`reads_as_numbers`],
//! [`stores_numbers`]), its values as `f64`,
//! and the mean and spread of a sample.
//!
//! ```
//! use intruder_table::numeric::{Moments, reads_as_numbers, values};
//! use intruder_table::{Column, Role};
//! let c = Column::categorical("x", Role::Other, &[Some("1"), None, Some("4")], None).unwrap();
//! assert!(reads_as_numbers(&c));
//! let v = values(&c);
//! let m = Moments::observed(v.iter().copied());
//! assert_eq!((m.n, m.mean, m.sample_var()), (2, 2.5, Some(4.5)));
//! ```

use crate::column::{Column, ColumnData};

/// Whether a label reads as a number (surrounding blanks ignored).
#[inline]
pub fn is_number(label: &str) -> bool {
    label.trim().parse::<f64>().is_ok()
}

/// Whether every observed value of `c` reads as a number: integers and floats; categorical and
/// set-valued columns whose level labels all are numbers; text whose observed values all are.
pub fn reads_as_numbers(c: &Column) -> bool {
    match c.data() {
        ColumnData::Integer(_) | ColumnData::Float(_) => true,
        ColumnData::Categorical { levels, .. } | ColumnData::Set { levels, .. } => {
            levels.iter().all(|l| is_number(l))
        }
        ColumnData::String(v) => (0..c.len()).all(|i| c.is_missing(i) || is_number(&v[i])),
    }
}

/// Whether `c` holds one number per cell by the way it is stored: integers, floats, and
/// categories whose level labels all are numbers (text and set-valued columns do not, whatever
/// they hold).
pub fn stores_numbers(c: &Column) -> bool {
    match c.data() {
        ColumnData::Integer(_) | ColumnData::Float(_) => true,
        ColumnData::Categorical { levels, .. } => levels.iter().all(|l| is_number(l)),
        ColumnData::String(_) | ColumnData::Set { .. } => false,
    }
}

/// Every row of `c` as a number ([`Column::as_f64`]), `NaN` where missing or not a number.
pub fn values(c: &Column) -> Vec<f64> {
    (0..c.len())
        .map(|i| c.as_f64(i).unwrap_or(f64::NAN))
        .collect()
}

/// Size, mean and sum of squared deviations of a sample, computed in two passes (the mean,
/// then the deviations from it), summing in the order given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments {
    /// Number of values.
    pub n: usize,
    /// Their mean (`NaN` when there is none).
    pub mean: f64,
    /// Σ (x − mean)².
    pub m2: f64,
}

impl Moments {
    /// The moments of every value given (a `NaN` makes them `NaN`).
    pub fn of<I>(values: I) -> Moments
    where
        I: IntoIterator<Item = f64>,
        I::IntoIter: Clone,
    {
        let it = values.into_iter();
        let (n, sum) = it
            .clone()
            .fold((0usize, -0.0f64), |(n, s), x| (n + 1, s + x));
        let mean = sum / n as f64;
        let m2 = it.fold(-0.0f64, |s, x| s + (x - mean) * (x - mean));
        Moments { n, mean, m2 }
    }

    /// The moments of the observed values: `NaN`s (missing) are left out.
    pub fn observed<I>(values: I) -> Moments
    where
        I: IntoIterator<Item = f64>,
        I::IntoIter: Clone,
    {
        Moments::of(values.into_iter().filter(|x| !x.is_nan()))
    }

    /// The sample variance Σ (x − mean)² / (n − 1), when n ≥ 2.
    pub fn sample_var(&self) -> Option<f64> {
        (self.n > 1).then(|| self.m2 / (self.n - 1) as f64)
    }

    /// The sample standard deviation, when n ≥ 2.
    pub fn sample_sd(&self) -> Option<f64> {
        self.sample_var().map(f64::sqrt)
    }

    /// The population variance Σ (x − mean)² / n, when n ≥ 1.
    pub fn population_var(&self) -> Option<f64> {
        (self.n > 0).then(|| self.m2 / self.n as f64)
    }

    /// The population standard deviation, when n ≥ 1.
    pub fn population_sd(&self) -> Option<f64> {
        self.population_var().map(f64::sqrt)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::Role;

    #[test]
    fn moments_sum_in_order_and_match_the_textbook_formulas() {
        let v = [1.0, 2.0, 4.0, f64::NAN];
        let m = Moments::observed(v.iter().copied());
        assert_eq!(m.n, 3);
        let mean = (1.0 + 2.0 + 4.0) / 3.0;
        assert_eq!(m.mean, mean);
        let ss: f64 = [1.0f64, 2.0, 4.0].iter().map(|x| (x - mean).powi(2)).sum();
        assert_eq!(m.sample_var(), Some(ss / 2.0));
        assert_eq!(m.population_sd(), Some((ss / 3.0).sqrt()));
        assert!(Moments::of(v.iter().copied()).mean.is_nan());
        let e = Moments::observed(std::iter::empty());
        assert!(e.mean.is_nan() && e.sample_var().is_none() && e.population_var().is_none());
        assert_eq!(Moments::of([5.0]).sample_sd(), None);
    }

    #[test]
    fn columns_read_as_numbers_or_not() {
        let t = Column::string("s", Role::Other, &[Some(" 3.5"), None]);
        assert!(reads_as_numbers(&t));
        assert_eq!(values(&t)[0], 3.5);
        assert!(values(&t)[1].is_nan());
        let t = Column::string("s", Role::Other, &[Some("x")]);
        assert!(!reads_as_numbers(&t));
        let s = Column::set("m", Role::Key, &[vec!["3", "4"]], None).unwrap();
        assert!(reads_as_numbers(&s));
        assert!(!stores_numbers(&s));
        let c = Column::categorical("c", Role::Key, &[Some("a")], None).unwrap();
        assert!(!reads_as_numbers(&c) && !stores_numbers(&c));
        let c = Column::categorical("c", Role::Key, &[Some("2")], None).unwrap();
        assert!(stores_numbers(&c));
    }
}
