//! Helpers shared by the test modules.

use std::path::Path;

/// The cells of a file read back (`row` and every column, missing as empty), one CSV-like line
/// per record after the header.
pub fn cells_of(path: &Path) -> String {
    let ds = intruder_data::load(path, &intruder_data::Input::default()).unwrap();
    let cols = ds.table.columns();
    let mut text = cols.iter().map(|c| c.name()).collect::<Vec<_>>().join(",") + "\n";
    for i in 0..ds.table.nrows() {
        let row: Vec<String> = cols
            .iter()
            .map(|c| c.text(i).map(|t| t.into_owned()).unwrap_or_default())
            .collect();
        text += &(row.join(",") + "\n");
    }
    text
}
