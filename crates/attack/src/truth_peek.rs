//! An attack that tries to read the truth of the table it is given. Compiled only with the
//! feature `truth-peek`, by `intruder-eval`'s `tests/dependencies.rs`, which expects the
//! compilation to FAIL: this crate cannot name `intruder_data` (which reads data files and sets
//! the truth apart in `Dataset::truth`) because it does not depend on it, and `intruder_table`
//! offers no way to the truth (its `read_table` leaves truth columns out). Never enable the
//! feature otherwise.

use intruder_table::Table;

/// Re-reads the released file (its label taken for a path: a label is all a table holds) and
/// counts the true identities it holds.
pub fn truth_of(released: &Table) -> usize {
    let file = std::path::Path::new(released.source().as_str());
    let read = intruder_data::load(file, &intruder_data::Input::default());
    read.map_or(0, |dataset| dataset.truth.len())
}
