//! The key variables of a table, checked for the risk measures and coded once by
//! [`intruder_data::keys`] (dense codes, [`MISSING`] at missing cells, candidate masks of
//! set-valued cells when matching).

use intruder_table::Table;
use intruder_table::keys::{Keys, SetCoding};

pub use intruder_table::keys::{MISSING, MissingPolicy, SetMatch};

use crate::error::RiskError;

/// The key variables of a table as dense codes.
pub(crate) type KeyData = Keys;

/// Checks the names of the keys: at least one, none twice, at most 64.
pub(crate) fn check_names(names: &[String]) -> Result<(), RiskError> {
    if names.is_empty() {
        return Err(RiskError::Param(
            "no key variables given: name at least one with --keys".into(),
        ));
    }
    for (i, n) in names.iter().enumerate() {
        if names[..i].contains(n) {
            return Err(RiskError::Param(format!("key '{n}' is named twice")));
        }
    }
    if names.len() > 64 {
        return Err(RiskError::Param(format!(
            "{} keys given; at most 64 are supported",
            names.len()
        )));
    }
    Ok(())
}

/// Checks the number of records of `file`: at least one, fewer than `u32::MAX`.
pub(crate) fn check_rows(file: &str, n: usize) -> Result<(), RiskError> {
    if n == 0 {
        return Err(RiskError::Param(format!(
            "{file}: the file has a header but no records"
        )));
    }
    if n >= u32::MAX as usize {
        return Err(RiskError::Param(format!(
            "{file}: {n} records; at most {} are supported",
            u32::MAX - 1
        )));
    }
    Ok(())
}

/// Checks `names` against `table`: the names ([`check_names`]), the records ([`check_rows`]),
/// and that each column exists.
pub(crate) fn check_keys(table: &Table, names: &[String]) -> Result<(), RiskError> {
    let file = table.source().to_string();
    check_names(names)?;
    let n = table.nrows();
    check_rows(&file, n)?;
    for name in names {
        table.column(name)?;
    }
    Ok(())
}

/// Checks `names` against `table` ([`check_keys`]) and codes them. Classes code a set-valued key as a whole
/// ([`SetMatch::Overlap`]) or by its first candidate ([`SetMatch::First`]); with `wildcard`
/// (matching) it gets candidate masks and a code that separates cells that differ as queries
/// or as stored values.
pub(crate) fn key_data(
    table: &Table,
    names: &[String],
    set_match: SetMatch,
    wildcard: bool,
) -> Result<KeyData, RiskError> {
    check_keys(table, names)?;
    let coding = match (wildcard, set_match) {
        (true, m) => SetCoding::Candidates(m),
        (false, SetMatch::Overlap) => SetCoding::Whole,
        (false, SetMatch::First | SetMatch::FirstBoth) => SetCoding::First,
    };
    Ok(Keys::encode(table, names, coding)?)
}
