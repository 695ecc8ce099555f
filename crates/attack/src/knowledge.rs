//! What an intruder knows: their table projected on the key columns of the scenario, with the
//! key map to the released names (docs/ARCHITECTURE.md, "Ground truth": attacks get the intruder's
//! knowledge and the released table, never the truth).
//!
//! An attack receives a [`Knowledge`] and the released table, never the intruder's whole file:
//! the constructor keeps the key columns only, so the intruder's other columns — the true
//! original value of a sensitive variable, a name, an address — cannot reach an attack, and the
//! ground truth (`intruder_eval::Truth`) is never part of a [`Table`] in the first place.

use intruder_table::Table;

use crate::error::AttackError;
use crate::keys::KeyMap;

/// The intruder's table restricted to the key columns, and the key map.
#[derive(Debug, Clone, PartialEq)]
pub struct Knowledge {
    table: Table,
    keys: KeyMap,
}

impl Knowledge {
    /// Projects `intruder` on the intruder-side names of `keys`, in key order; every other
    /// column is dropped. Errors name the file and the missing column (with the columns
    /// present).
    pub fn new(intruder: &Table, keys: KeyMap) -> Result<Knowledge, AttackError> {
        let columns = keys
            .pairs()
            .iter()
            .map(|p| intruder.column(&p.intruder).cloned())
            .collect::<Result<Vec<_>, _>>()?;
        let table = Table::new(intruder.source(), columns)?;
        Ok(Knowledge { table, keys })
    }

    /// The key columns (named as in the intruder's file; the source path labels errors).
    pub fn table(&self) -> &Table {
        &self.table
    }

    /// The keys and their names in the released file.
    pub fn keys(&self) -> &KeyMap {
        &self.keys
    }

    /// Number of intruder records.
    pub fn nrows(&self) -> usize {
        self.table.nrows()
    }
}
