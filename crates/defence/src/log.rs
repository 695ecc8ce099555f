//! The change log of a masking run: what each step changed, in the input's row numbering.

use intruder_table::{Column, ColumnData, Table};
use serde::Serialize;

/// What one column lost or changed in one step.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnChange {
    /// The column.
    pub column: String,
    /// Number of cells whose value changed (suppressions included).
    pub changed: usize,
    /// Number of cells that were observed before and are missing after (suppressions).
    pub suppressed: usize,
    /// The changed rows, as 0-based row indices into the pipeline's input.
    pub rows: Vec<usize>,
    /// The suppressed rows among them.
    pub suppressed_rows: Vec<usize>,
}

/// What one step did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepLog {
    /// 1-based position in the pipeline.
    pub step: usize,
    /// The method's registry name.
    pub method: String,
    /// Rows before the step.
    pub rows_in: usize,
    /// Rows after the step.
    pub rows_out: usize,
    /// Rows the step removed, as 0-based indices into the pipeline's input.
    pub rows_removed: Vec<usize>,
    /// Cells changed (over columns present before and after).
    pub cells_changed: usize,
    /// Cells suppressed (observed before, missing after).
    pub suppressions: usize,
    /// Records with at least one changed cell.
    pub records_changed: usize,
    /// Columns the step added (e.g. a design weight).
    pub columns_added: Vec<String>,
    /// Per-column changes (columns without change are left out).
    pub columns: Vec<ColumnChange>,
    /// Facts reported by the method.
    pub notes: Vec<String>,
    /// Structured facts reported by the method (e.g. the levels a generalisation chose).
    pub details: Option<serde_json::Value>,
}

/// What a whole pipeline did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangeLog {
    /// The seed of the run.
    pub seed: u64,
    /// Rows of the input.
    pub rows_in: usize,
    /// Rows of the output.
    pub rows_out: usize,
    /// For each output row, its 0-based row in the input: subset the truth with
    /// `truth.take(&log.kept_rows)`. Empty when a step synthesised the released records
    /// ([`ChangeLog::synthetic`]): no released record is an input record.
    pub kept_rows: Vec<usize>,
    /// The 1-based step that made new records (a synthesiser, [`crate::Defence::synthetic`]);
    /// `None` when every released record is a masked input record. With a synthetic release
    /// `kept_rows` is empty, the truth of every released record is no one
    /// (`intruder_eval::Labelled::release`), and no measure may pair released records with
    /// input records.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthetic: Option<usize>,
    /// Total cells changed over all steps (a cell changed by two steps counts twice).
    pub cells_changed: usize,
    /// Total suppressions over all steps.
    pub suppressions: usize,
    /// Input records (surviving to the output) changed by a step that is not a public recoding
    /// ([`crate::Defence::public_recoding`]): a recoded value is the original on the released
    /// scale, its loss is generalisation (`information-loss`), not a change.
    pub records_changed: usize,
    /// Input records (surviving to the output) with a cell recoded by a public recoding.
    pub records_recoded: usize,
    /// Input records (surviving to the output) changed or recoded, each counted once: what a
    /// release altered in any way (a generalised record is altered though not changed).
    pub records_changed_or_recoded: usize,
    /// Per step.
    pub steps: Vec<StepLog>,
}

impl ChangeLog {
    /// The log as shown to users (`intruder mask --log`): the same fields, with every row —
    /// `kept_rows`, each step's `rows_removed` and each column's changed `rows` — as a **1-based
    /// record number of the input** (the first data line of the CSV is record 1), and a field
    /// `"row_numbers": "1-based"` saying so. `intruder utility --log` reads it back.
    pub fn record_numbers(&self) -> serde_json::Value {
        let one = |v: &[usize]| -> Vec<usize> { v.iter().map(|r| r + 1).collect() };
        let steps: Vec<serde_json::Value> = self
            .steps
            .iter()
            .map(|s| {
                serde_json::json!({
                    "step": s.step,
                    "method": s.method,
                    "rows_in": s.rows_in,
                    "rows_out": s.rows_out,
                    "rows_removed": one(&s.rows_removed),
                    "cells_changed": s.cells_changed,
                    "suppressions": s.suppressions,
                    "records_changed": s.records_changed,
                    "columns_added": s.columns_added,
                    "columns": s.columns.iter().map(|c| serde_json::json!({
                        "column": c.column,
                        "changed": c.changed,
                        "suppressed": c.suppressed,
                        "rows": one(&c.rows),
                    })).collect::<Vec<_>>(),
                    "notes": s.notes,
                    "details": s.details,
                })
            })
            .collect();
        let mut out = serde_json::json!({
            "row_numbers": "1-based",
            "seed": self.seed,
            "rows_in": self.rows_in,
            "rows_out": self.rows_out,
            "kept_rows": one(&self.kept_rows),
            "cells_changed": self.cells_changed,
            "suppressions": self.suppressions,
            "records_changed": self.records_changed,
            "records_recoded": self.records_recoded,
            "records_changed_or_recoded": self.records_changed_or_recoded,
            "steps": steps,
        });
        if let Some(step) = self.synthetic {
            out["synthetic"] = step.into();
        }
        out
    }
}

/// Whether cell `i` of `a` and cell `j` of `b` hold the same value (both missing counts as same).
pub(crate) fn same_cell(a: &Column, i: usize, b: &Column, j: usize) -> bool {
    match (a.is_missing(i), b.is_missing(j)) {
        (true, true) => return true,
        (false, false) => {}
        _ => return false,
    }
    match (a.data(), b.data()) {
        (ColumnData::Integer(x), ColumnData::Integer(y)) => x[i] == y[j],
        (ColumnData::Float(x), ColumnData::Float(y)) => x[i] == y[j],
        (
            ColumnData::Categorical {
                codes: c1,
                levels: l1,
            },
            ColumnData::Categorical {
                codes: c2,
                levels: l2,
            },
        ) if l1 == l2 => c1[i] == c2[j],
        _ => a.text(i) == b.text(j),
    }
}

/// Compares `before` (the step's input) with `after`; `kept` maps rows of `after` to rows of
/// `before`; `origin` maps rows of `before` to rows of the pipeline input (`None` after a
/// synthesiser: the rows are new records, counted but not listed).
pub(crate) fn diff(
    step: usize,
    method: &str,
    before: &Table,
    after: &Table,
    kept: Option<&[usize]>,
    origin: Option<&[usize]>,
    notes: Vec<String>,
) -> StepLog {
    let n_after = after.nrows();
    let row_in = |r: usize| kept.map_or(r, |k| k[r]);
    let input_row = |i: usize| origin.map(|o| o[i]);
    let mut touched = vec![false; n_after];
    let mut columns = Vec::new();
    let mut columns_added = Vec::new();
    let (mut cells, mut supp) = (0, 0);
    for b in after.columns() {
        let Some(a) = before.position(b.name()).map(|p| &before.columns()[p]) else {
            columns_added.push(b.name().to_string());
            continue;
        };
        let mut ch = ColumnChange {
            column: b.name().to_string(),
            changed: 0,
            suppressed: 0,
            rows: Vec::new(),
            suppressed_rows: Vec::new(),
        };
        for (r, t) in touched.iter_mut().enumerate() {
            let i = row_in(r);
            if !same_cell(a, i, b, r) {
                ch.changed += 1;
                if !a.is_missing(i) && b.is_missing(r) {
                    ch.suppressed += 1;
                    ch.suppressed_rows.extend(input_row(i));
                }
                ch.rows.extend(input_row(i));
                *t = true;
            }
        }
        if ch.changed > 0 {
            cells += ch.changed;
            supp += ch.suppressed;
            columns.push(ch);
        }
    }
    let rows_removed = match kept {
        None => Vec::new(),
        Some(k) => {
            let mut keep = vec![false; before.nrows()];
            for &i in k {
                keep[i] = true;
            }
            (0..before.nrows())
                .filter(|&i| !keep[i])
                .filter_map(input_row)
                .collect()
        }
    };
    StepLog {
        step,
        method: method.to_string(),
        rows_in: before.nrows(),
        rows_out: n_after,
        rows_removed,
        cells_changed: cells,
        suppressions: supp,
        records_changed: touched.iter().filter(|&&t| t).count(),
        columns_added,
        columns,
        notes,
        details: None,
    }
}

/// The log of a step that synthesised `after` from `before` (a synthesiser): no released record
/// is an input record, so every input record of the step (`origin`: their rows in the pipeline
/// input, `None` when they were already synthetic) is withheld (`rows_removed`), and no cell is
/// compared.
pub(crate) fn synthesised(
    step: usize,
    method: &str,
    before: &Table,
    after: &Table,
    origin: Option<&[usize]>,
    notes: Vec<String>,
) -> StepLog {
    StepLog {
        step,
        method: method.to_string(),
        rows_in: before.nrows(),
        rows_out: after.nrows(),
        rows_removed: origin.map(<[usize]>::to_vec).unwrap_or_default(),
        cells_changed: 0,
        suppressions: 0,
        records_changed: 0,
        columns_added: after
            .columns()
            .iter()
            .filter(|c| before.position(c.name()).is_none())
            .map(|c| c.name().to_string())
            .collect(),
        columns: Vec::new(),
        notes,
        details: None,
    }
}
