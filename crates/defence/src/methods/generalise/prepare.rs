//! The data coded for the search: each key's hierarchy built and checked against the column,
//! every record's original values as hierarchy rows, sensitive variables as codes, and the
//! population table when a model needs one.

use std::collections::BTreeSet;

use intruder_table::{Column, Table};

use super::classes::{AnyPacker, Group};
use super::hierarchy::{Coded, Hierarchy, HierarchySpec};
use super::lattice::Prepared2;
use super::models::{Distance, FileFacts};
use super::params::{DistanceSpec, ModelSpec};
use crate::DefenceError;

pub(super) const NAME: &str = "generalise";

fn column_error(column: &str, message: String) -> DefenceError {
    DefenceError::Column {
        method: NAME,
        column: column.to_string(),
        message,
    }
}

/// The hierarchy of `col` as `spec` says: a file as read, a generated one built on the column's
/// observed values.
pub fn build_hierarchy(
    name: &str,
    col: &Column,
    spec: &HierarchySpec,
) -> Result<Hierarchy, DefenceError> {
    let err = |e: super::hierarchy::HierarchyError| column_error(name, e.to_string());
    match spec {
        HierarchySpec::File(h) => Ok(h.clone()),
        HierarchySpec::Interval { widths, origin } => {
            if !col.kind().is_numeric() {
                return Err(column_error(
                    name,
                    format!(
                        "is {}; an interval hierarchy needs a numeric column (use a hierarchy file or {{ mask = true }})",
                        col.kind()
                    ),
                ));
            }
            let mut seen: BTreeSet<String> = BTreeSet::new();
            let mut values = Vec::new();
            for i in 0..col.len() {
                if let (Some(t), Some(x)) = (col.text(i), col.as_f64(i))
                    && seen.insert(t.to_string())
                {
                    values.push((t.into_owned(), x));
                }
            }
            values.sort_by(|a, b| a.1.total_cmp(&b.1));
            Hierarchy::interval(name, &values, widths, *origin).map_err(err)
        }
        HierarchySpec::Mask { with } => {
            let values: BTreeSet<String> = (0..col.len())
                .filter_map(|i| col.text(i).map(|t| t.into_owned()))
                .collect();
            let values: Vec<String> = values.into_iter().collect();
            Hierarchy::mask(name, &values, *with).map_err(err)
        }
    }
}

/// Each record's row of `h` (a blank cell: the row whose value is empty).
pub fn leaves(h: &Hierarchy, col: &Column) -> Result<Vec<u32>, DefenceError> {
    let index = h.index();
    if let intruder_table::ColumnData::Categorical { codes, levels } = col.data() {
        // each label looked up once, not each record
        let rows: Vec<Option<u32>> = levels
            .iter()
            .map(|l| index.get(l.as_str()).copied())
            .collect();
        let blank = index.get("").copied();
        let mut out = Vec::with_capacity(col.len());
        for (i, &c) in codes.iter().enumerate() {
            let row = if col.is_missing(i) {
                blank
            } else {
                rows[c as usize]
            };
            match row {
                Some(r) => out.push(r),
                None => {
                    let t = col.text(i);
                    return Err(column_error(
                        &h.column,
                        h.missing_value(t.as_deref(), i).to_string(),
                    ));
                }
            }
        }
        return Ok(out);
    }
    let mut out = Vec::with_capacity(col.len());
    for i in 0..col.len() {
        let t = col.text(i);
        let key = t.as_deref().unwrap_or("");
        match index.get(key) {
            Some(&r) => out.push(r),
            None => {
                return Err(column_error(
                    &h.column,
                    h.missing_value(t.as_deref(), i).to_string(),
                ));
            }
        }
    }
    Ok(out)
}

/// A sensitive variable coded for the models.
pub struct Sensitive {
    /// Its column.
    pub column: String,
    /// Each record's code.
    pub codes: Vec<u32>,
    /// The share of each code in the file.
    pub p: Vec<f64>,
    /// The codes present, in value order (numeric when every value is a number).
    pub order: Vec<u32>,
    /// Parents per level when coded by a hierarchy.
    pub parent: Option<Vec<Vec<u32>>>,
}

/// Codes the sensitive column `name`: by its hierarchy's rows when a model needs the
/// hierarchical distance, else by its distinct values in order.
pub fn sensitive(
    table: &Table,
    name: &str,
    hierarchy: Option<&Hierarchy>,
) -> Result<Sensitive, DefenceError> {
    let col = table.column(name)?;
    let n = col.len();
    let (codes, size, labels): (Vec<u32>, usize, Vec<String>) = match hierarchy {
        Some(h) => {
            let codes = leaves(h, col)?;
            let labels = h.rows.iter().map(|r| r[0].clone()).collect();
            (codes, h.rows.len(), labels)
        }
        None => {
            let values: BTreeSet<String> = (0..n)
                .map(|i| col.text(i).map(|t| t.into_owned()).unwrap_or_default())
                .collect();
            let labels: Vec<String> = values.into_iter().collect();
            let index: std::collections::HashMap<&str, u32> = labels
                .iter()
                .enumerate()
                .map(|(i, l)| (l.as_str(), i as u32))
                .collect();
            let codes = (0..n)
                .map(|i| index[col.text(i).as_deref().unwrap_or("")])
                .collect();
            let size = labels.len();
            (codes, size, labels)
        }
    };
    let mut count = vec![0u64; size];
    for &c in &codes {
        count[c as usize] += 1;
    }
    let p: Vec<f64> = count.iter().map(|&c| c as f64 / n.max(1) as f64).collect();
    let mut order: Vec<u32> = (0..size as u32)
        .filter(|&c| count[c as usize] > 0)
        .collect();
    let number = |c: u32| labels[c as usize].trim().parse::<f64>().ok();
    if order.iter().all(|&c| number(c).is_some()) {
        order.sort_by(|&a, &b| {
            number(a)
                .unwrap_or(0.0)
                .total_cmp(&number(b).unwrap_or(0.0))
        });
    } else {
        order.sort_by(|&a, &b| labels[a as usize].cmp(&labels[b as usize]));
    }
    let parent = hierarchy.map(|h| {
        let c = Coded::new(h);
        (0..c.levels - 1).map(|l| c.up[l][1].clone()).collect()
    });
    Ok(Sensitive {
        column: name.to_string(),
        codes,
        p,
        order,
        parent,
    })
}

/// The distance of a t-closeness model over a coded sensitive variable.
pub fn distance(spec: &DistanceSpec, s: &Sensitive) -> Distance {
    match spec {
        DistanceSpec::Equal => Distance::Equal,
        DistanceSpec::Ordered => Distance::Ordered {
            order: s.order.clone(),
        },
        DistanceSpec::Hierarchical(_) => Distance::Hierarchical {
            parent: s.parent.clone().unwrap_or_default(),
        },
    }
}

/// The hierarchy a model set asks for on sensitive column `name`, if any.
pub fn sensitive_hierarchy<'m>(models: &'m [ModelSpec], name: &str) -> Option<&'m Hierarchy> {
    models.iter().find_map(|m| match m {
        ModelSpec::TCloseness {
            sensitive,
            distance: DistanceSpec::Hierarchical(h),
            ..
        } if sensitive == name => Some(h),
        _ => None,
    })
}

/// Everything the search reads, and each record's bottom class.
pub struct Coding {
    /// The keys' coded hierarchies.
    pub dims: Vec<Coded>,
    /// The keys' hierarchies.
    pub hierarchies: Vec<Hierarchy>,
    /// Each file record's leaf row per key, record-major.
    pub leaf: Vec<u32>,
    /// `records_at[d][level][id]`.
    pub records_at: Vec<Vec<Vec<u64>>>,
}

impl Coding {
    /// Codes the keys of `table` through their hierarchies.
    pub fn new(
        table: &Table,
        keys: &[String],
        specs: &[(String, HierarchySpec)],
    ) -> Result<Coding, DefenceError> {
        let mut dims = Vec::new();
        let mut hierarchies = Vec::new();
        let mut per_key = Vec::new();
        for key in keys {
            let col = table.column(key)?;
            let spec = &specs
                .iter()
                .find(|(c, _)| c == key)
                .ok_or_else(|| column_error(key, "has no hierarchy".into()))?
                .1;
            let h = build_hierarchy(key, col, spec)?;
            per_key.push(leaves(&h, col)?);
            dims.push(Coded::new(&h));
            hierarchies.push(h);
        }
        let n = table.nrows();
        let d = keys.len();
        let mut leaf = vec![0u32; n * d];
        for (j, l) in per_key.iter().enumerate() {
            for r in 0..n {
                leaf[r * d + j] = l[r];
            }
        }
        let records_at = dims
            .iter()
            .enumerate()
            .map(|(j, c)| {
                (0..c.levels)
                    .map(|level| {
                        let mut at = vec![0u64; c.card(level)];
                        for &row in &per_key[j] {
                            at[c.id[level][row as usize] as usize] += 1;
                        }
                        at
                    })
                    .collect()
            })
            .collect();
        Ok(Coding {
            dims,
            hierarchies,
            leaf,
            records_at,
        })
    }

    /// The population's leaf rows (every population value must be in the hierarchies).
    pub fn population_leaves(
        &self,
        population: &Table,
        keys: &[String],
        source: &str,
    ) -> Result<Vec<u32>, DefenceError> {
        let d = keys.len();
        let n = population.nrows();
        let mut leaf = vec![0u32; n * d];
        for (j, key) in keys.iter().enumerate() {
            let col = population
                .column(key)
                .map_err(|_| DefenceError::Infeasible {
                    method: NAME,
                    message: format!("the population table {source} has no column '{key}'"),
                })?;
            let l = leaves(&self.hierarchies[j], col).map_err(|e| DefenceError::Infeasible {
                method: NAME,
                message: format!("population table {source}: {e}"),
            })?;
            for r in 0..n {
                leaf[r * d + j] = l[r];
            }
        }
        Ok(leaf)
    }

    /// The data for the search and the bottom class of each file record.
    pub fn prepare<'a>(
        &'a self,
        n: usize,
        sens: &[Sensitive],
        population: Option<Vec<u32>>,
    ) -> (Prepared2<'a>, Vec<u32>) {
        let card: Vec<usize> = self.dims.iter().map(|c| c.card(0)).collect();
        let packer = AnyPacker::new(&card);
        let group = Group {
            dims: &self.dims,
            population: population.is_some(),
            sensitive: sens.len(),
        };
        let mut leaf = self.leaf.clone();
        let mut in_file = vec![true; n];
        let mut codes: Vec<Vec<u32>> = sens.iter().map(|s| s.codes.clone()).collect();
        if let Some(p) = &population {
            let d = self.dims.len();
            let m = p.len() / d.max(1);
            leaf.extend_from_slice(p);
            in_file.extend(std::iter::repeat_n(false, m));
            for c in codes.iter_mut() {
                c.extend(std::iter::repeat_n(0, m));
            }
        }
        let (bottom, class_of) = group.bottom(&packer, &leaf, &in_file, &codes);
        let data = Prepared2 {
            dims: &self.dims,
            bottom,
            n,
            file: FileFacts {
                p: sens.iter().map(|s| s.p.clone()).collect(),
            },
            population: population.is_some(),
        };
        (data, class_of[..n].to_vec())
    }
}
