//! PRAM, the post-randomisation method (Gouweleeuw, Kooiman, Willenborg & de Wolf 1998;
//! sdcMicro `pram`). Each observed category a of a variable is replaced by category b with
//! probability R[a][b].
//!
//! - Given matrix: `matrix` (rows = from, columns = to, each row summing to 1) over `levels`
//!   (default: the column's level order).
//! - Invariant PRAM (default): the base matrix P has d_i on the diagonal and the rest of each
//!   row spread evenly, (1 − d_i)/(L − 1); with T the category frequencies,
//!   Q[i][j] = P[j][i]·T[j] / Σ_l P[l][i]·T[l] and R̃ = P·Q, which leaves T unchanged in
//!   expectation (T·R̃ = T, Gouweleeuw et al. §4). As in sdcMicro, R = α·R̃ + (1 − α)·I.
//! - What `pd` means (`pd_meaning`):
//!   - `diagonal` (default): every d_i = pd.
//!   - `minimum`: sdcMicro's meaning (`pram()` in R/pram.R: `pds <- runif(L, min = pd, max = 1)`,
//!     `tri <- (1 - pds)/(L - 1)`): each category's d_i is drawn from U(pd, 1), anew for each
//!     variable and each stratum, and row i's remaining 1 − d_i is spread evenly over the other
//!     L − 1 categories. The diagonals average (1 + pd)/2, so at the same `pd` a fixed diagonal
//!     changes about 1.7× as many cells; a script ported from sdcMicro wants `minimum`.
//! - Within strata: T, and so R, are computed per stratum (missing stratum values form their
//!   own stratum), as sdcMicro's `strata_variables`.
//!
//! Draws go variable by variable: under `minimum` first the L diagonal entries of each stratum
//! (strata in order, d_i = pd + (1 − pd)·u), then row by row one uniform per observed cell,
//! inverted through the row's cumulative probabilities. Missing cells stay missing. Variables
//! must be categorical.

use intruder_table::{Column, ColumnData, Kind, Table};
use rand::Rng;
use rand_chacha::ChaCha20Rng;

use crate::common::{check_columns, strata_ids};
use crate::{Defence, DefenceError, Masked};
use intruder_table::params::{ColumnNeed, Entry, ParamKind, ParamReader, ParamSpec, Range};

const NAME: &str = "pram";

/// Parameters of PRAM.
#[derive(Debug, Clone, PartialEq)]
pub struct Pram {
    /// Categorical variables, each perturbed on its own.
    pub(crate) variables: Vec<String>,
    /// Invariant PRAM, 0 < pd ≤ 1: the diagonal of the base matrix, or its minimum
    /// (see `pd_meaning`).
    pub(crate) pd: f64,
    /// What `pd` means: the diagonal itself, or sdcMicro's minimum of a U(pd, 1) draw.
    pub(crate) pd_meaning: PdMeaning,
    /// Mixing with the identity, 0 ≤ alpha ≤ 1 (sdcMicro's `alpha`).
    pub(crate) alpha: f64,
    /// A given transition matrix (one variable only).
    pub(crate) matrix: Option<Vec<Vec<f64>>>,
    /// The categories of the matrix's rows and columns.
    pub(crate) levels: Option<Vec<String>>,
    /// Stratum variables.
    pub(crate) strata: Vec<String>,
}

/// What `pd` means in invariant PRAM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PdMeaning {
    /// Every diagonal entry of the base matrix is `pd`.
    #[default]
    Diagonal,
    /// sdcMicro's `pram`: each category's diagonal entry is drawn from U(pd, 1), per variable
    /// and stratum.
    Minimum,
}

impl PdMeaning {
    /// The name used in parameters.
    pub fn as_str(self) -> &'static str {
        match self {
            PdMeaning::Diagonal => "diagonal",
            PdMeaning::Minimum => "minimum",
        }
    }
}

impl std::str::FromStr for PdMeaning {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "diagonal" => Ok(PdMeaning::Diagonal),
            "minimum" => Ok(PdMeaning::Minimum),
            other => Err(format!(
                "unknown pd_meaning '{other}': expected diagonal or minimum"
            )),
        }
    }
}

const PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "variables",
        ParamKind::Columns,
        "categorical variables, perturbed independently",
    )
    .example(r#"["accommodation"]"#)
    .required()
    .needs(ColumnNeed::Categorical),
    ParamSpec::new(
        "pd",
        ParamKind::Number,
        "invariant PRAM: probability of keeping a category in the base matrix — every diagonal entry (pd_meaning = diagonal), or the lower bound of each entry's U(pd, 1) draw (pd_meaning = minimum, sdcMicro's pd)",
    )
    .default_value("0.8")
    .within(Range::left_open(0.0, 1.0)),
    ParamSpec::new(
        "pd_meaning",
        ParamKind::Choice(&["diagonal", "minimum"]),
        "what pd means: diagonal (every diagonal entry of the base matrix is pd) or minimum (sdcMicro's pram: each category's diagonal entry is drawn from U(pd, 1) per variable and stratum, the rest of its row spread evenly; at the same pd, diagonal changes about 1.7× as many cells)",
    )
    .default_value("diagonal"),
    ParamSpec::new(
        "alpha",
        ParamKind::Number,
        "invariant PRAM: R = alpha·R̃ + (1 − alpha)·I",
    )
    .default_value("0.5")
    .within(Range::SHARE),
    ParamSpec::new(
        "matrix",
        ParamKind::Matrix,
        "given transition matrix, rows = from, columns = to, rows sum to 1 (one variable only; not invariant)",
    )
    .within(Range::SHARE),
    ParamSpec::new(
        "levels",
        ParamKind::Strings,
        "the categories of the matrix's rows/columns",
    )
    .default_value("column's level order"),
    ParamSpec::new(
        "strata",
        ParamKind::Columns,
        "stratum variables: frequencies and draws per stratum",
    )
    .default_value("[]"),
];

/// Registry entry.
pub const ENTRY: Entry<dyn Defence> = Entry {
    name: NAME,
    summary: "post-randomisation of categories, invariant or with a given matrix, within strata",
    reference: "Gouweleeuw et al. (1998); sdcMicro pram",
    params: PARAMS,
    figures: &[],
    build,
};

fn build(r: &mut ParamReader) -> Option<Box<dyn Defence>> {
    let variables: Option<Vec<String>> = r.require("variables");
    let pd = r.get_or("pd", 0.8);
    let pd_meaning = r.choice::<PdMeaning>("pd_meaning").unwrap_or_default();
    let alpha = r.get_or("alpha", 0.5);
    let matrix: Option<Vec<Vec<f64>>> = r.get("matrix");
    let levels: Option<Vec<String>> = r.get("levels");
    let strata: Vec<String> = r.get_or("strata", Vec::new());
    if let Some(v) = &variables {
        r.check(
            "variables",
            !v.is_empty(),
            "must name at least one variable",
        );
        if matrix.is_some() {
            r.check(
                "variables",
                v.len() == 1,
                "a given 'matrix' applies to exactly one variable",
            );
        }
    }
    if let Some(m) = &matrix {
        let l = m.len();
        for (i, row) in m.iter().enumerate() {
            if row.len() != l {
                r.problem(
                    "matrix",
                    format!(
                        "row {} has {} entries; the matrix must be {l} × {l}",
                        i + 1,
                        row.len()
                    ),
                );
            } else if (row.iter().sum::<f64>() - 1.0).abs() > 1e-9 {
                r.problem(
                    "matrix",
                    format!(
                        "row {} sums to {}; each row holds probabilities summing to 1",
                        i + 1,
                        row.iter().sum::<f64>()
                    ),
                );
            }
        }
        if let Some(lv) = &levels {
            r.check(
                "levels",
                lv.len() == l,
                format!("has {} levels for a {l} × {l} matrix", lv.len()),
            );
        }
        if r.has("pd") || r.has("alpha") || r.has("pd_meaning") {
            r.table_problem(
                "'pd', 'pd_meaning' and 'alpha' belong to invariant PRAM; leave them out with a given 'matrix'",
            );
        }
    } else if levels.is_some() {
        r.problem("levels", "only applies with 'matrix'");
    }
    if !r.ok() {
        return None;
    }
    Some(Box::new(Pram {
        variables: variables?,
        pd,
        pd_meaning,
        alpha,
        matrix,
        levels,
        strata,
    }))
}

/// The base matrix P of invariant PRAM with diagonal `diagonal`: row i holds d_i on the
/// diagonal and (1 − d_i)/(L − 1) elsewhere (sdcMicro's `pram`).
pub fn base_matrix(diagonal: &[f64]) -> Vec<Vec<f64>> {
    let l = diagonal.len();
    (0..l)
        .map(|i| {
            let off = if l > 1 {
                (1.0 - diagonal[i]) / (l - 1) as f64
            } else {
                0.0
            };
            (0..l)
                .map(|j| if i == j { diagonal[i] } else { off })
                .collect()
        })
        .collect()
}

/// sdcMicro's diagonal for `l` categories (`pd_meaning = minimum`): d_i = pd + (1 − pd)·u_i,
/// one uniform u_i ∈ [0, 1) from `rng` per category, in category order.
pub fn draw_diagonal(l: usize, pd: f64, rng: &mut impl Rng) -> Vec<f64> {
    (0..l)
        .map(|_| {
            let u: f64 = rng.r#gen();
            pd + (1.0 - pd) * u
        })
        .collect()
}

/// The invariant PRAM matrix for frequencies `t` with every diagonal entry of the base matrix
/// `pd` (`pd_meaning = diagonal`).
pub fn invariant_matrix(t: &[f64], pd: f64, alpha: f64) -> Vec<Vec<f64>> {
    invariant_matrix_with_diagonal(t, &vec![pd; t.len()], alpha)
}

/// The invariant PRAM matrix R = α·P·Q + (1 − α)·I for frequencies `t`, from the base matrix
/// with diagonal `diagonal` ([`base_matrix`]).
///
/// # Panics
/// When `diagonal` and `t` differ in length (one entry per category).
pub fn invariant_matrix_with_diagonal(t: &[f64], diagonal: &[f64], alpha: f64) -> Vec<Vec<f64>> {
    let l = t.len();
    assert_eq!(diagonal.len(), l, "one diagonal entry per category");
    let base = base_matrix(diagonal);
    let p = |i: usize, j: usize| base[i][j];
    // lambda_i = sum_l P[l][i] T[l]
    let lambda: Vec<f64> = (0..l)
        .map(|i| (0..l).map(|m| p(m, i) * t[m]).sum())
        .collect();
    let q = |i: usize, j: usize| {
        if lambda[i] > 0.0 {
            p(j, i) * t[j] / lambda[i]
        } else if i == j {
            1.0
        } else {
            0.0
        }
    };
    (0..l)
        .map(|i| {
            (0..l)
                .map(|j| {
                    let r: f64 = (0..l).map(|m| p(i, m) * q(m, j)).sum();
                    alpha * r + if i == j { 1.0 - alpha } else { 0.0 }
                })
                .collect()
        })
        .collect()
}

fn draw(row: &[f64], u: f64) -> usize {
    let mut acc = 0.0;
    for (j, &p) in row.iter().enumerate() {
        acc += p;
        if u < acc {
            return j;
        }
    }
    // rounding: the last category with positive probability
    row.iter().rposition(|&p| p > 0.0).unwrap_or(0)
}

impl Pram {
    fn strata_ids(&self, table: &Table) -> Result<(Vec<usize>, usize), DefenceError> {
        let n = table.nrows();
        if self.strata.is_empty() {
            return Ok((vec![0; n], 1));
        }
        let (ids, k) = strata_ids(table, &self.strata)?;
        Ok((ids.into_iter().map(|i| i as usize).collect(), k))
    }
}

impl Defence for Pram {
    fn method(&self) -> &'static str {
        NAME
    }

    fn apply(&self, table: &Table, rng: &mut ChaCha20Rng) -> Result<Masked, DefenceError> {
        check_columns(table, NAME, &self.variables)?;
        check_columns(table, NAME, &self.strata)?;
        let (strata, n_strata) = self.strata_ids(table)?;
        let mut out = table.clone();
        let mut notes = Vec::new();
        for v in &self.variables {
            let col = table.column(v)?;
            let ColumnData::Categorical { codes, levels } = col.data() else {
                return Err(DefenceError::Column {
                    method: NAME,
                    column: v.clone(),
                    message: format!(
                        "is {}; PRAM needs a categorical column (declare type = \"categorical\" in the schema)",
                        col.kind()
                    ),
                });
            };
            debug_assert_eq!(col.kind(), Kind::Categorical);
            // map matrix levels to column levels
            let (mat_levels, given): (Vec<String>, Option<&Vec<Vec<f64>>>) =
                match (&self.matrix, &self.levels) {
                    (Some(m), Some(lv)) => (lv.clone(), Some(m)),
                    (Some(m), None) => {
                        if m.len() != levels.len() {
                            return Err(DefenceError::Column {
                                method: NAME,
                                column: v.clone(),
                                message: format!(
                                    "has {} levels ({}) but the matrix is {} × {}; give 'levels'",
                                    levels.len(),
                                    levels.join(", "),
                                    m.len(),
                                    m.len()
                                ),
                            });
                        }
                        (levels.clone(), Some(m))
                    }
                    _ => (levels.clone(), None),
                };
            // column code -> matrix index
            let mut to_mat = vec![usize::MAX; levels.len()];
            for (ci, l) in levels.iter().enumerate() {
                if let Some(mi) = mat_levels.iter().position(|x| x == l) {
                    to_mat[ci] = mi;
                }
            }
            for i in 0..col.len() {
                if !col.is_missing(i) && to_mat[codes[i] as usize] == usize::MAX {
                    return Err(DefenceError::Column {
                        method: NAME,
                        column: v.clone(),
                        message: format!(
                            "row {}: category '{}' is not among the matrix levels ({})",
                            i + 1,
                            levels[codes[i] as usize],
                            mat_levels.join(", ")
                        ),
                    });
                }
            }
            let l = mat_levels.len();
            let matrices: Vec<Vec<Vec<f64>>> = match given {
                Some(m) => vec![m.clone(); n_strata],
                None => {
                    let mut t = vec![vec![0.0; l]; n_strata];
                    for i in 0..col.len() {
                        if !col.is_missing(i) {
                            t[strata[i]][to_mat[codes[i] as usize]] += 1.0;
                        }
                    }
                    t.iter()
                        .map(|ts| match self.pd_meaning {
                            PdMeaning::Diagonal => invariant_matrix(ts, self.pd, self.alpha),
                            PdMeaning::Minimum => {
                                let d = draw_diagonal(l, self.pd, rng);
                                invariant_matrix_with_diagonal(ts, &d, self.alpha)
                            }
                        })
                        .collect()
                }
            };
            // output levels: the column's, then any matrix level not among them
            let mut out_levels = levels.clone();
            let mut from_mat = vec![0u32; l];
            for (mi, ml) in mat_levels.iter().enumerate() {
                from_mat[mi] = match out_levels.iter().position(|x| x == ml) {
                    Some(p) => p as u32,
                    None => {
                        out_levels.push(ml.clone());
                        (out_levels.len() - 1) as u32
                    }
                };
            }
            let mut new_codes = codes.clone();
            let mut changed = 0usize;
            for i in 0..col.len() {
                if col.is_missing(i) {
                    continue;
                }
                let a = to_mat[codes[i] as usize];
                let u: f64 = rng.r#gen();
                let b = draw(&matrices[strata[i]][a], u);
                new_codes[i] = from_mat[b];
                changed += usize::from(b != a);
            }
            notes.push(format!("{v}: {changed} categories changed"));
            out.replace(Column::new(
                v.as_str(),
                col.role(),
                ColumnData::Categorical {
                    codes: new_codes,
                    levels: out_levels,
                },
                col.missing().clone(),
            )?)?;
        }
        Ok(Masked {
            table: out,
            kept_rows: None,
            notes,
            details: None,
        })
    }
}
