//! Information loss measured where the change happened: generalisation (recoding to coarser
//! categories or intervals), suppression and removal, on the released file's own scale.
//!
//! Comparing released labels with original labels calls a recoded value "changed" although
//! nothing was lost but precision: a one-to-one relabelling would count every record as
//! changed. Here each key column's released values are read as **groups of original values**:
//! the original values observed behind released value `y` form its group `G(y)`. A column whose
//! every original value is released as one value (a function, as every recoding is) is a
//! *generalisation*; a column where one original value is released as several values (PRAM,
//! swapping, noise) is *perturbed*. Per cell, with `x` the original value and `y` the released
//! one (cells missing in the original are left out):
//!
//! - **NCP** (normalised certainty penalty; Xu et al. 2006, ARX's "loss" family): generalised
//!   `y`: `(|G(y)| − 1) / (|D| − 1)` for categories, `(max G(y) − min G(y)) / (max D − min D)`
//!   for numbers, `D` the column's original values (so a relabelling, `|G| = 1`, costs 0);
//!   suppressed: 1; in a perturbed column, 0 where `y = x` and 1 where `y ≠ x`.
//! - **Non-uniform entropy** (Gionis & Tassa 2009), in bits: generalised `y`: `−log2(f(x) /
//!   f(G(y)))` with `f` the frequency among the released records' original values; suppressed
//!   or perturbed away: `−log2(f(x) / n)`; unchanged: 0.
//! - **Cell loss**: the NCP of every key cell of every *original* record, a removed record's
//!   cells counting 1 each: one figure in [0, 1] for every defence, recoding, suppression,
//!   perturbation and removal alike.
//! - **Discernibility** (Bayardo & Agrawal 2005): Σ |E|² over the released records' classes on
//!   the variables (blank as a value), divided by n²; beside it the same for the original values
//!   of the released records. **AECS** (average equivalence class size; LeFevre et al. 2006):
//!   n / number of classes, released and original.
//!
//! # Worked example
//! Ages 20, 25, 30, 40 (so `D` spans 20 years) recoded to bands `[20, 30)`, `[30, 50)` and
//! `[30, 50)`: `G([20, 30)) = {20, 25}`, NCP (25 − 20) / 20 = 0.25 for the first two records;
//! `G([30, 50)) = {30, 40}`, NCP 10 / 20 = 0.5 for the last two; mean NCP 0.375. Entropy: each
//! band holds two of the four original values once each, so −log2(1/2) = 1 bit per cell. Four
//! released records in two classes of two: discernibility (4 + 4) / 16 = 0.5 (original: four
//! classes of one, 4 / 16 = 0.25), AECS 2 (original 1). Suppressing the last age instead: NCP
//! 1 for that cell, 0 for the others.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use intruder_table::{Column, Kind, Table};
use serde::Serialize;

use crate::UtilityError;

/// What generalisation, suppression and removal cost on one column.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ColumnLoss {
    /// The column.
    pub column: String,
    /// `generalisation` (every original value released as one value) or `perturbation`.
    pub kind: &'static str,
    /// Released cells observed in the original.
    pub cells: usize,
    /// Of them, released as a value standing for more than one original value.
    pub generalised: usize,
    /// Of them, blank in the release.
    pub suppressed: usize,
    /// Of them, released as another value in a perturbed column.
    pub perturbed: usize,
    /// Mean NCP over the cells.
    pub ncp: f64,
    /// Mean non-uniform entropy over the cells, in bits.
    pub entropy_bits: f64,
}

/// Information loss over the key variables.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InformationLoss {
    /// NCP of every key cell of every original record, removed records counting 1 per cell.
    pub cell_loss: f64,
    /// Mean NCP over the released records' key cells.
    pub ncp: f64,
    /// Mean non-uniform entropy over the released records' key cells, in bits.
    pub entropy_bits: f64,
    /// Σ |E|² / n² over the released records' classes.
    pub discernibility: f64,
    /// The same over the original values of the released records.
    pub discernibility_original: f64,
    /// Released records / released classes.
    pub aecs: f64,
    /// The same for the original values of the released records.
    pub aecs_original: f64,
    /// Original records not released.
    pub records_removed: usize,
    /// Per column.
    pub columns: Vec<ColumnLoss>,
}

/// The value of cell `i` as text (`None` when missing).
fn text(c: &Column, i: usize) -> Option<String> {
    c.text(i).map(|s| s.into_owned())
}

/// Information loss of `masked` against `original` over `vars`; `kept_rows[r]` is the original
/// row of masked row `r` (`None`: the same rows in the same order). The original should already
/// be mapped through any public recoding the caller wants to count as no change; this measure
/// is meant for the original as it was, so that recoding shows as generalisation.
pub fn information_loss(
    original: &Table,
    masked: &Table,
    kept_rows: Option<&[usize]>,
    vars: &[String],
) -> Result<InformationLoss, UtilityError> {
    let rows: Vec<usize> = match kept_rows {
        Some(k) => k.to_vec(),
        None if original.nrows() == masked.nrows() => (0..masked.nrows()).collect(),
        None => {
            return Err(UtilityError::Mismatch(format!(
                "information loss compares records one to one: the original has {} records and the masked file {}; give the masking log (kept rows)",
                original.nrows(),
                masked.nrows()
            )));
        }
    };
    if rows.len() != masked.nrows() || rows.iter().any(|&r| r >= original.nrows()) {
        return Err(UtilityError::Mismatch(
            "the kept rows do not fit the two files".into(),
        ));
    }
    let mut columns = Vec::new();
    let (mut kept_loss, mut kept_cells, mut entropy) = (0.0, 0usize, 0.0);
    for v in vars {
        let (oc, mc) = (original.column(v)?, masked.column(v)?);
        let col = column_loss(oc, mc, &rows, v)?;
        kept_loss += col.ncp * col.cells as f64;
        entropy += col.entropy_bits * col.cells as f64;
        kept_cells += col.cells;
        columns.push(col);
    }
    // removed records: each observed key cell costs 1
    let mut kept = vec![false; original.nrows()];
    for &r in &rows {
        kept[r] = true;
    }
    let mut removed_cells = 0usize;
    for v in vars {
        let oc = original.column(v)?;
        removed_cells += (0..original.nrows())
            .filter(|&r| !kept[r] && !oc.is_missing(r))
            .count();
    }
    let all_cells = kept_cells + removed_cells;
    let ratio = |a: f64, b: usize| if b == 0 { 0.0 } else { a / b as f64 };
    let tuples = |t: &Table,
                  pick: &dyn Fn(usize) -> usize,
                  n: usize|
     -> Result<(f64, usize), UtilityError> {
        let cols: Vec<&Column> = vars.iter().map(|v| t.column(v)).collect::<Result<_, _>>()?;
        let mut sizes: HashMap<Vec<Option<String>>, u64> = HashMap::new();
        for i in 0..n {
            let key = cols.iter().map(|c| text(c, pick(i))).collect();
            *sizes.entry(key).or_default() += 1;
        }
        Ok((sizes.values().map(|&s| (s * s) as f64).sum(), sizes.len()))
    };
    let n = masked.nrows();
    let (dm, classes) = tuples(masked, &|i| i, n)?;
    let (dm_o, classes_o) = tuples(original, &|i| rows[i], n)?;
    let n2 = (n as f64).powi(2);
    Ok(InformationLoss {
        cell_loss: ratio(kept_loss + removed_cells as f64, all_cells),
        ncp: ratio(kept_loss, kept_cells),
        entropy_bits: ratio(entropy, kept_cells),
        discernibility: if n == 0 { 0.0 } else { dm / n2 },
        discernibility_original: if n == 0 { 0.0 } else { dm_o / n2 },
        aecs: ratio(n as f64, classes),
        aecs_original: ratio(n as f64, classes_o),
        records_removed: original.nrows() - n,
        columns,
    })
}

fn column_loss(
    oc: &Column,
    mc: &Column,
    rows: &[usize],
    name: &str,
) -> Result<ColumnLoss, UtilityError> {
    let numeric = matches!(oc.kind(), Kind::Integer | Kind::Float);
    // the domain D: every observed original value of the column
    let (mut dmin, mut dmax) = (f64::INFINITY, f64::NEG_INFINITY);
    let mut domain: BTreeSet<String> = BTreeSet::new();
    for i in 0..oc.len() {
        if let Some(x) = text(oc, i) {
            if numeric && let Some(f) = oc.as_f64(i) {
                dmin = dmin.min(f);
                dmax = dmax.max(f);
            }
            domain.insert(x);
        }
    }
    // the released cells: (original, released) for each released record with an original value
    let cells: Vec<(usize, String, Option<String>)> = rows
        .iter()
        .enumerate()
        .filter_map(|(i, &r)| text(oc, r).map(|x| (r, x, text(mc, i))))
        .collect();
    let mut groups: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut images: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut freq: HashMap<&str, usize> = HashMap::new();
    for (_, x, y) in &cells {
        *freq.entry(x.as_str()).or_default() += 1;
        if let Some(y) = y {
            groups.entry(y.as_str()).or_default().insert(x.as_str());
            images.entry(x.as_str()).or_default().insert(y.as_str());
        }
    }
    let generalisation = images.values().all(|s| s.len() == 1);
    let n_obs = cells.len();
    let value = |x: &str| -> f64 { x.parse::<f64>().unwrap_or(f64::NAN) };
    let group_ncp = |g: &BTreeSet<&str>| -> f64 {
        if g.len() <= 1 {
            return 0.0;
        }
        if numeric && dmax > dmin {
            let vals: Vec<f64> = g.iter().map(|x| value(x)).collect();
            let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (hi - lo) / (dmax - dmin)
        } else if domain.len() > 1 {
            (g.len() - 1) as f64 / (domain.len() - 1) as f64
        } else {
            0.0
        }
    };
    let group_freq: BTreeMap<&str, usize> = groups
        .iter()
        .map(|(y, g)| (*y, g.iter().map(|x| freq[x]).sum()))
        .collect();
    let (mut ncp, mut bits) = (0.0, 0.0);
    let (mut generalised, mut suppressed, mut perturbed) = (0, 0, 0);
    for (_, x, y) in &cells {
        let fx = freq[x.as_str()] as f64;
        match y {
            None => {
                suppressed += 1;
                ncp += 1.0;
                bits += -(fx / n_obs as f64).log2();
            }
            Some(y) if generalisation => {
                let g = &groups[y.as_str()];
                if g.len() > 1 {
                    generalised += 1;
                }
                ncp += group_ncp(g);
                bits += -(fx / group_freq[y.as_str()] as f64).log2();
            }
            Some(y) if y == x => {}
            Some(_) => {
                perturbed += 1;
                ncp += 1.0;
                bits += -(fx / n_obs as f64).log2();
            }
        }
    }
    let mean = |a: f64| if n_obs == 0 { 0.0 } else { a / n_obs as f64 };
    Ok(ColumnLoss {
        column: name.to_string(),
        kind: if generalisation {
            "generalisation"
        } else {
            "perturbation"
        },
        cells: n_obs,
        generalised,
        suppressed,
        perturbed,
        ncp: mean(ncp),
        entropy_bits: mean(bits).max(0.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use intruder_table::Role;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_worked_example_of_the_module_docs() {
        let o = Table::new(
            "o",
            vec![Column::integer(
                "age",
                Role::Key,
                &[Some(20), Some(25), Some(30), Some(40)],
            )],
        )
        .unwrap();
        let m = Table::new(
            "m",
            vec![
                Column::categorical(
                    "age",
                    Role::Key,
                    &[
                        Some("[20,30)"),
                        Some("[20,30)"),
                        Some("[30,50)"),
                        Some("[30,50)"),
                    ],
                    None,
                )
                .unwrap(),
            ],
        )
        .unwrap();
        let l = information_loss(&o, &m, None, &names(&["age"])).unwrap();
        assert!((l.ncp - 0.375).abs() < 1e-12, "{}", l.ncp);
        assert!((l.cell_loss - 0.375).abs() < 1e-12);
        assert!((l.entropy_bits - 1.0).abs() < 1e-12);
        assert_eq!((l.discernibility, l.discernibility_original), (0.5, 0.25));
        assert_eq!((l.aecs, l.aecs_original), (2.0, 1.0));
        assert_eq!(l.columns[0].kind, "generalisation");
        assert_eq!(l.columns[0].generalised, 4);
        // suppressing the last age instead
        let s = Table::new(
            "s",
            vec![Column::integer(
                "age",
                Role::Key,
                &[Some(20), Some(25), Some(30), None],
            )],
        )
        .unwrap();
        let l = information_loss(&o, &s, None, &names(&["age"])).unwrap();
        assert!((l.ncp - 0.25).abs() < 1e-12);
        assert_eq!(l.columns[0].suppressed, 1);
        // the last record removed: its cell costs 1 in cell_loss only
        let r = o.take(&[0, 1, 2]);
        let l = information_loss(&o, &r, Some(&[0, 1, 2]), &names(&["age"])).unwrap();
        assert_eq!((l.ncp, l.cell_loss, l.records_removed), (0.0, 0.25, 1));
    }

    #[test]
    fn a_relabelling_loses_nothing_and_perturbation_is_told_apart() {
        let o = Table::new(
            "o",
            vec![
                Column::categorical("c", Role::Key, &["a", "b", "b", "c"].map(Some), None).unwrap(),
            ],
        )
        .unwrap();
        let relabel = Table::new(
            "m",
            vec![
                Column::categorical("c", Role::Key, &["x", "y", "y", "z"].map(Some), None).unwrap(),
            ],
        )
        .unwrap();
        let l = information_loss(&o, &relabel, None, &names(&["c"])).unwrap();
        assert_eq!((l.ncp, l.cell_loss, l.entropy_bits), (0.0, 0.0, 0.0));
        assert_eq!(l.discernibility, l.discernibility_original);
        assert_eq!(l.aecs, l.aecs_original);
        // "b" released once as "b" and once as "c": a perturbation; one cell moved
        let pram = Table::new(
            "p",
            vec![
                Column::categorical("c", Role::Key, &["a", "b", "c", "c"].map(Some), None).unwrap(),
            ],
        )
        .unwrap();
        let l = information_loss(&o, &pram, None, &names(&["c"])).unwrap();
        assert_eq!(l.columns[0].kind, "perturbation");
        assert_eq!(l.columns[0].perturbed, 1);
        assert!((l.ncp - 0.25).abs() < 1e-12);
        // −log2(f(b)/n) = −log2(2/4) = 1 bit for the moved cell, over 4 cells
        assert!((l.entropy_bits - 0.25).abs() < 1e-12);
    }
}
