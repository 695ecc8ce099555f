//! The key variables of a table, checked for the risk measures and coded once by
//! [`intruder_data::keys`] (dense codes, [`MISSING`] at missing cells, candidate masks of
//! set-valued cells when matching).

use intruder_data::Table;
use intruder_data::keys::{Keys, SetCoding};

pub use intruder_data::keys::{MISSING, MissingPolicy, SetMatch};

use crate::error::RiskError;

/// The key variables of a table as dense codes.
pub(crate) type KeyData = Keys;

/// Checks `names` against `table` and codes them. Classes code a set-valued key as a whole
/// ([`SetMatch::Overlap`]) or by its first candidate ([`SetMatch::First`]); with `wildcard`
/// (matching) it gets candidate masks and a code that separates cells that differ as queries
/// or as stored values.
pub(crate) fn key_data(
    table: &Table,
    names: &[String],
    set_match: SetMatch,
    wildcard: bool,
) -> Result<KeyData, RiskError> {
    let file = table.source().display().to_string();
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
    let n = table.nrows();
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
    for name in names {
        let c = table.column(name)?;
        if c.missing_count() == n {
            return Err(RiskError::Column {
                file: file.clone(),
                column: name.clone(),
                message: format!(
                    "every one of the {n} values is missing; a key needs observed values"
                ),
            });
        }
    }
    let coding = match (wildcard, set_match) {
        (true, m) => SetCoding::Candidates(m),
        (false, SetMatch::Overlap) => SetCoding::Whole,
        (false, SetMatch::First | SetMatch::FirstBoth) => SetCoding::First,
    };
    Ok(Keys::encode(table, names, coding)?)
}
