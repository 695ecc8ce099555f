//! The paper's utility check (Mitra et al. §5.3, Fig. 7): a logistic regression of inheritance
//! on the wealth decile (5th decile the baseline), age and sex, fitted on the original and the
//! altered wave `T`; coefficients, 95% intervals and their overlap (Karr et al. 2006), computed
//! by `intruder_utility::ci_overlap`.

use intruder_data::{Column, Role, Table};
use intruder_utility::{CiOverlap, Family, Formula, ci_overlap};
use serde::{Deserialize, Serialize};

use crate::error::PanelError;
use crate::panel::Panel;

/// Column names of the inheritance model (all in wave `T`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InheritanceModel {
    /// The 0/1 response.
    pub response: String,
    /// Further predictors (age, sex).
    pub predictors: Vec<String>,
}

impl Default for InheritanceModel {
    /// The `household-panel` names: `inheritance ~ decile + ref_age + ref_sex`.
    fn default() -> Self {
        InheritanceModel {
            response: "inheritance".into(),
            predictors: vec!["ref_age".into(), "ref_sex".into()],
        }
    }
}

/// The decile name in the model.
pub const DECILE: &str = "wealth_decile";

/// Deciles 1..10 of `y` (rank of each value among all, as `⌊10 · #{y_j < y_i} / n⌋ + 1`).
pub fn deciles(y: &[f64]) -> Vec<Option<u8>> {
    let mut sorted: Vec<f64> = y.iter().copied().filter(|v| !v.is_nan()).collect();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len().max(1);
    y.iter()
        .map(|&v| {
            (!v.is_nan()).then(|| {
                let rank = sorted.partition_point(|&s| s < v);
                (rank * 10 / n).min(9) as u8 + 1
            })
        })
        .collect()
}

fn with_deciles(panel: &Panel, y: &[f64], m: &InheritanceModel) -> Result<Table, PanelError> {
    let last = panel.last();
    let mut cols = Vec::new();
    for name in std::iter::once(&m.response).chain(&m.predictors) {
        cols.push(crate::panel::wave_column(last, name)?.clone());
    }
    let d: Vec<Option<String>> = deciles(y)
        .into_iter()
        .map(|d| d.map(|d| d.to_string()))
        .collect();
    // Level order puts the 5th decile first: it is the reference.
    let levels: Vec<String> = [5, 1, 2, 3, 4, 6, 7, 8, 9, 10]
        .iter()
        .map(|d| d.to_string())
        .collect();
    cols.push(Column::categorical(DECILE, Role::Other, &d, Some(levels))?);
    for c in &mut cols {
        if c.role() == Role::Truth {
            *c = Column::new(
                c.name().to_string(),
                Role::Other,
                c.data().clone(),
                c.missing().clone(),
            )?;
        }
    }
    Ok(Table::new(last.table.source(), cols)?)
}

/// Fits the model on the original wave `T` and on wave `T` with `released_y`, and compares.
pub fn inheritance_overlap(
    panel: &Panel,
    released_y: &[f64],
    model: &InheritanceModel,
) -> Result<CiOverlap, PanelError> {
    let orig = with_deciles(panel, &panel.sensitive_last(), model)?;
    let masked = with_deciles(panel, released_y, model)?;
    let mut predictors = vec![DECILE.to_string()];
    predictors.extend(model.predictors.iter().cloned());
    let formula = Formula {
        response: model.response.clone(),
        predictors,
    };
    Ok(ci_overlap(&orig, &masked, &formula, Family::Logistic)?)
}
