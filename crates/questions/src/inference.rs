//! Inference (anonymeter's `InferenceEvaluator`; Giomi et al. 2023, §4.3).
//!
//! The intruder knows a target's auxiliary columns `aux_cols` and guesses its `secret` as the
//! secret of the nearest release record on those columns (anonymeter's mixed-type distance;
//! the `neighbours` module in the source). A guess is right when it equals the secret, or, with
//! `regression`, when `|guess − secret| / (|guess| + 10⁻¹²) ≤ tolerance`; a missing guess of a
//! missing secret is right.
//!
//! - **Main attack**: `n_attacks` targets drawn from the original without replacement.
//! - **Control attack**: `n_attacks` targets drawn from the control set.
//! - **Baseline**: `n_attacks` targets drawn from the original, each guessed as the secret of a
//!   release record drawn at random (without replacement).

use intruder_table::Table;
use intruder_table::params::{ParamKind, ParamReader, ParamSpec, Range};
use rand::RngCore;
use rand::seq::index::sample;

use crate::coded::{
    Coded, MISSING, code_column, question_tables, require_attacks, require_columns,
};
use crate::error::{ParamError, QuestionError};
use crate::linkability::first_repeat;
use crate::neighbours::Search;
use crate::rates::{DEFAULT_CONFIDENCE, QuestionResult};
use crate::stream;

/// The checked parameters of [`inference`].
#[derive(Debug, Clone, PartialEq)]
pub struct InferenceParams {
    /// The number of targets attacked (in the original, again in the control set, and by the
    /// baseline).
    pub n_attacks: usize,
    /// The columns the intruder knows.
    pub aux_cols: Vec<String>,
    /// The column the intruder guesses.
    pub secret: String,
    /// Whether a numeric guess within `tolerance` counts as right (`true`) or only an exact one
    /// (`false`); `None`: `true` for a numeric secret, `false` otherwise.
    pub regression: Option<bool>,
    /// The largest relative error of a right guess under `regression`.
    pub tolerance: f64,
}

impl InferenceParams {
    /// The parameters with anonymeter's defaults (500 attacks, tolerance 0.05, regression
    /// for a numeric secret).
    pub fn new(aux_cols: Vec<String>, secret: impl Into<String>) -> InferenceParams {
        InferenceParams {
            n_attacks: 500,
            aux_cols,
            secret: secret.into(),
            regression: None,
            tolerance: 0.05,
        }
    }

    /// The same parameters with `n_attacks` attacks.
    pub fn with_attacks(mut self, n_attacks: usize) -> InferenceParams {
        self.n_attacks = n_attacks;
        self
    }

    /// The same parameters with `regression` set.
    pub fn with_regression(mut self, regression: bool) -> InferenceParams {
        self.regression = Some(regression);
        self
    }

    /// The same parameters with another tolerance.
    pub fn with_tolerance(mut self, tolerance: f64) -> InferenceParams {
        self.tolerance = tolerance;
        self
    }

    /// Checks the parameters alone (the tables are checked by [`inference`]).
    pub fn check(&self) -> Result<(), ParamError> {
        if self.n_attacks == 0 {
            return Err(ParamError::NoAttacks);
        }
        if self.aux_cols.is_empty() {
            return Err(ParamError::NoAuxiliary { which: "aux_cols" });
        }
        if let Some(c) = first_repeat(&self.aux_cols) {
            return Err(ParamError::RepeatedAuxiliary {
                column: c.to_string(),
                which: "aux_cols",
                why: "name each column once",
            });
        }
        if self.aux_cols.contains(&self.secret) {
            return Err(ParamError::SecretInAuxiliary(self.secret.clone()));
        }
        if !(self.tolerance.is_finite() && self.tolerance >= 0.0) {
            return Err(ParamError::Tolerance(self.tolerance));
        }
        Ok(())
    }

    /// Reads the parameters declared in [`PARAMS`], recording every problem in `r`.
    pub fn read(r: &mut ParamReader<'_>) -> Option<InferenceParams> {
        let n_attacks = r.get::<usize>("n_attacks").unwrap_or(500);
        let aux_cols = r.require::<Vec<String>>("aux_cols");
        let secret = r.require::<String>("secret");
        let regression = r.get::<bool>("regression");
        let tolerance = r.get::<f64>("tolerance").unwrap_or(0.05);
        let params = InferenceParams {
            n_attacks,
            aux_cols: aux_cols?,
            secret: secret?,
            regression,
            tolerance,
        };
        crate::checked(r, params, |p| p.check())
    }

    /// Reads the parameters from a TOML table (`--set` values, an experiment's table); every
    /// problem is reported at once under `source_name`.
    pub fn from_table(
        table: &toml::Table,
        source_name: &str,
    ) -> Result<InferenceParams, intruder_table::params::ParamError> {
        crate::read_table(table, source_name, PARAMS, InferenceParams::read)
    }
}

/// The parameters of `inference` (anonymeter's names and defaults).
pub static PARAMS: &[ParamSpec] = &[
    ParamSpec::new(
        "n_attacks",
        ParamKind::Integer,
        "targets attacked, drawn without replacement from the original (as many from the control set, and as many release records by the baseline)",
    )
    .default_value("500")
    .within(Range::at_least(1.0)),
    ParamSpec::new(
        "aux_cols",
        ParamKind::Columns,
        "the columns the intruder knows of a target",
    )
    .required(),
    ParamSpec::new(
        "secret",
        ParamKind::Column,
        "the column the intruder guesses (not one of aux_cols)",
    )
    .required(),
    ParamSpec::new(
        "regression",
        ParamKind::Bool,
        "true: a numeric guess within `tolerance` (relative) is right; false: only an exact guess; absent: true for a numeric secret",
    ),
    ParamSpec::new(
        "tolerance",
        ParamKind::Number,
        "largest relative error |guess − secret| / |guess| of a right guess under regression",
    )
    .default_value("0.05")
    .within(Range::at_least(0.0)),
];

/// Inference risk on `secret` of `released` for the records of `original`, against the control
/// set `control` and the random baseline; see the [module docs](self).
pub fn inference(
    original: &Table,
    control: &Table,
    released: &Table,
    params: &InferenceParams,
    seed: u64,
) -> Result<QuestionResult, QuestionError> {
    params.check()?;
    let [ori, ctl, rel] = question_tables(original, control, released)?;
    let secret = std::slice::from_ref(&params.secret);
    require_columns(ori, &params.aux_cols, "auxiliary column")?;
    require_columns(ori, secret, "secret")?;
    require_columns(rel, &params.aux_cols, "auxiliary column")?;
    require_columns(rel, secret, "secret")?;
    let tables = [rel, ori, ctl];
    let aux: Vec<Coded> = params
        .aux_cols
        .iter()
        .map(|c| code_column(c, &tables))
        .collect::<Result<_, _>>()?;
    let secrets = code_column(&params.secret, &tables)?;
    let regression = params.regression.unwrap_or(secrets.is_numeric());
    if regression && !secrets.is_numeric() {
        return Err(QuestionError::RegressionOnCategories {
            file: ori.file(),
            column: params.secret.clone(),
            kind: original
                .column(&params.secret)
                .map(|c| c.kind().to_string())
                .unwrap_or_default(),
        });
    }
    require_attacks(
        ori,
        original.nrows(),
        params.n_attacks,
        "main attack",
        false,
    )?;
    require_attacks(
        ctl,
        control.nrows(),
        params.n_attacks,
        "control attack",
        false,
    )?;
    require_attacks(rel, released.nrows(), params.n_attacks, "baseline", false)?;
    let judge = Judge {
        secrets: &secrets,
        regression,
        tolerance: params.tolerance,
    };
    let columns: Vec<&Coded> = aux.iter().collect();
    let attack = |target: usize, rows: usize, k: u64| -> usize {
        let mut rng = stream(seed, k);
        let targets = sample(&mut rng, rows, params.n_attacks).into_vec();
        let nearest = Search::new(&columns, 0, target, &targets).nearest(1, rng.next_u64());
        targets
            .iter()
            .zip(&nearest)
            .filter(|(t, g)| judge.right(target, **t, g[0] as usize))
            .count()
    };
    let n_success = attack(1, original.nrows(), 1);
    let n_control = attack(2, control.nrows(), 2);
    let n_baseline = {
        let mut rng = stream(seed, 3);
        let targets = sample(&mut rng, original.nrows(), params.n_attacks).into_vec();
        let guesses = sample(&mut rng, released.nrows(), params.n_attacks).into_vec();
        targets
            .iter()
            .zip(&guesses)
            .filter(|(t, g)| judge.right(1, **t, **g))
            .count()
    };
    Ok(QuestionResult::from_counts(
        params.n_attacks,
        n_success,
        n_control as f64,
        n_baseline,
        DEFAULT_CONFIDENCE,
        Vec::new(),
    ))
}

/// Whether a guess of the secret is right.
struct Judge<'a> {
    secrets: &'a Coded,
    regression: bool,
    tolerance: f64,
}

impl Judge<'_> {
    /// Whether the secret of release record `guess` is a right guess of the secret of record
    /// `row` of table `target`.
    fn right(&self, target: usize, row: usize, guess: usize) -> bool {
        match self.secrets {
            Coded::Codes(v) => {
                let (s, g) = (v[target][row], v[0][guess]);
                s == g || (s == MISSING && g == MISSING)
            }
            Coded::Numbers(v) => {
                let (s, g) = (v[target][row], v[0][guess]);
                if s.is_nan() || g.is_nan() {
                    return s.is_nan() && g.is_nan();
                }
                if self.regression {
                    (g - s).abs() / (g.abs() + 1e-12) <= self.tolerance
                } else {
                    g == s
                }
            }
        }
    }
}
