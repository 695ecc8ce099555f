//! Design matrices for the propensity and synthesis models: known keys one-hot coded (first
//! level dropped), numeric keys as they are, sensitive values of earlier waves.

use intruder_data::{ColumnData, Kind};

use crate::attack::KnownKey;
use crate::error::PanelError;
use crate::panel::Panel;

/// Transform of the sensitive values entering the propensity model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transform {
    /// `asinh(y)`: log-like for heavy-tailed wealth, defined for zero and negative values.
    #[default]
    Asinh,
    /// `y` as it is.
    Identity,
}

impl Transform {
    pub(crate) fn apply(self, y: f64) -> f64 {
        match self {
            Transform::Asinh => y.asinh(),
            Transform::Identity => y,
        }
    }
}

/// Columns of a design over `rows` (wave-`T` rows): `(names, column-major values)`.
pub(crate) fn design(
    panel: &Panel,
    rows: &[usize],
    covariates: &[KnownKey],
    sensitive_waves: &[usize],
    transform: Transform,
) -> Result<(Vec<String>, Vec<Vec<f64>>), PanelError> {
    let mut names = Vec::new();
    let mut cols: Vec<Vec<f64>> = Vec::new();
    for key in covariates {
        if key.wave == 0 || key.wave > panel.t() {
            return Err(PanelError::Params(vec![format!(
                "covariate {}@{}: the panel has waves 1..{}",
                key.column,
                key.wave,
                panel.t()
            )]));
        }
        let c = panel.aligned_column(key.wave, &key.column, rows)?;
        let file = panel.waves()[key.wave - 1].table.source().to_string();
        let missing = (0..c.len()).filter(|&i| c.is_missing(i)).count();
        if missing > 0 {
            return Err(PanelError::Column {
                file,
                column: key.column.clone(),
                message: format!(
                    "{missing} missing value(s) among the modelled households; the propensity and \
                     synthesis models need complete covariates"
                ),
            });
        }
        match c.kind() {
            Kind::Integer | Kind::Float => {
                names.push(format!("{}@{}", key.column, key.wave));
                cols.push((0..c.len()).map(|i| c.as_f64(i).unwrap_or(0.0)).collect());
            }
            Kind::Categorical | Kind::String => {
                // Levels in order of first appearance among the modelled rows.
                let mut levels: Vec<String> = Vec::new();
                let vals: Vec<usize> = (0..c.len())
                    .map(|i| {
                        let v = match c.data() {
                            ColumnData::Categorical { codes, levels: lv } => {
                                lv[codes[i] as usize].clone()
                            }
                            _ => c.text(i).unwrap_or_default().into_owned(),
                        };
                        match levels.iter().position(|l| *l == v) {
                            Some(p) => p,
                            None => {
                                levels.push(v);
                                levels.len() - 1
                            }
                        }
                    })
                    .collect();
                for (k, l) in levels.iter().enumerate().skip(1) {
                    names.push(format!("{}@{}={l}", key.column, key.wave));
                    cols.push(vals.iter().map(|&v| f64::from(u8::from(v == k))).collect());
                }
            }
            Kind::Set => {
                return Err(PanelError::Column {
                    file,
                    column: key.column.clone(),
                    message: "is set-valued; expected a numeric or categorical covariate".into(),
                });
            }
        }
    }
    for &w in sensitive_waves {
        let y = panel.sensitive_aligned(w);
        let v: Vec<f64> = rows.iter().map(|&i| y[i]).collect();
        if let Some(k) = v.iter().position(|x| x.is_nan()) {
            return Err(PanelError::Column {
                file: panel.waves()[w - 1].table.source().to_string(),
                column: panel.spec().sensitive.clone(),
                message: format!(
                    "missing for the household of wave-{} row {}; the models need y in every wave",
                    panel.t(),
                    rows[k] + 1
                ),
            });
        }
        names.push(format!("{}@{w}", panel.spec().sensitive));
        cols.push(v.into_iter().map(|x| transform.apply(x)).collect());
    }
    Ok((names, cols))
}
