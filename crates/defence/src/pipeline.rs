//! Pipelines: defences composed in order, declared in TOML.
//!
//! ```toml
//! [[step]]
//! method = "global-recode"
//! variables = ["age"]
//! breaks = [0, 18, 65, 120]
//!
//! [[step]]
//! method = "local-suppression"
//! k = 3
//! keys = ["age", "sex", "region"]
//! ```
//! Unknown top-level keys, unknown methods, unknown keys, wrong types and out-of-range values
//! are all reported at once, each with its path (`step[2].k: …`). Old parameter names are
//! accepted with a deprecation warning ([`Pipeline::warnings`]). When the columns of the data are
//! known ([`ReadContext::columns`]), column parameters are checked against them — each step
//! against the columns the earlier steps leave ([`crate::Defence::adjust_columns`]) — and a
//! parameter declared with a schema role (`keys`) that is not given takes the columns of that
//! role.

use std::borrow::Cow;

use std::path::Path;

use intruder_table::Table;
use intruder_table::params::{self, ColumnSet, ParamError, Problem, ReadContext, fill_from_roles};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use crate::log::{ChangeLog, diff, synthesised};
use crate::{DEFENCES, Defence, DefenceError};

/// One configured step.
#[derive(Debug)]
pub struct Step {
    /// The defence.
    pub defence: Box<dyn Defence>,
    /// The parameters as declared, with `method` (and any column filled from a schema role),
    /// for reports and logs.
    pub params: toml::Table,
}

/// Defences applied in order.
#[derive(Debug, Default)]
pub struct Pipeline {
    /// The steps.
    pub steps: Vec<Step>,
    /// Deprecation warnings raised while reading the steps (old parameter names), each with its
    /// path; the command line prints them on standard error.
    pub warnings: Vec<Problem>,
}

impl Pipeline {
    /// Reads a pipeline file.
    pub fn from_file(path: &Path) -> Result<Pipeline, DefenceError> {
        Pipeline::from_file_with(path, ReadContext::default())
    }

    /// Reads a pipeline file, checking column parameters against `ctx.columns` when known.
    pub fn from_file_with(path: &Path, ctx: ReadContext<'_>) -> Result<Pipeline, DefenceError> {
        let text = std::fs::read_to_string(path).map_err(|source| DefenceError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Pipeline::from_toml_with(&text, &path.display().to_string(), ctx)
    }

    /// Parses pipeline text; `source_name` labels errors. Every problem is reported at once.
    pub fn from_toml(text: &str, source_name: &str) -> Result<Pipeline, DefenceError> {
        Pipeline::from_toml_with(text, source_name, ReadContext::default())
    }

    /// [`Pipeline::from_toml`] with a reading context (known columns, base directory).
    pub fn from_toml_with(
        text: &str,
        source_name: &str,
        ctx: ReadContext<'_>,
    ) -> Result<Pipeline, DefenceError> {
        let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            fail(
                source_name,
                vec![Problem {
                    path: String::new(),
                    message: format!("not valid TOML: {e}"),
                }],
            )
        })?;
        Pipeline::from_table_with(&doc, source_name, ctx)
    }

    /// Builds a pipeline from an already parsed table holding `step = [{ method = … }, …]`
    /// (e.g. a section of an experiment file); `source_name` labels errors.
    pub fn from_table(doc: &toml::Table, source_name: &str) -> Result<Pipeline, DefenceError> {
        Pipeline::from_table_with(doc, source_name, ReadContext::default())
    }

    /// [`Pipeline::from_table`] with a reading context.
    pub fn from_table_with(
        doc: &toml::Table,
        source_name: &str,
        ctx: ReadContext<'_>,
    ) -> Result<Pipeline, DefenceError> {
        let mut problems = Vec::new();
        for k in doc.keys().filter(|k| *k != "step") {
            problems.push(Problem {
                path: k.clone(),
                message: "unknown key; a pipeline holds only [[step]] tables".into(),
            });
        }
        let mut steps: Vec<toml::Table> = Vec::new();
        match doc.get("step") {
            None => problems.push(Problem {
                path: "step".into(),
                message: "no [[step]] declared".into(),
            }),
            Some(toml::Value::Array(a)) => {
                for (i, v) in a.iter().enumerate() {
                    match v {
                        toml::Value::Table(t) => steps.push(t.clone()),
                        _ => problems.push(Problem {
                            path: format!("step[{}]", i + 1),
                            message: format!(
                                "expected a table ([[step]]), found {}",
                                params::describe(v)
                            ),
                        }),
                    }
                }
            }
            Some(v) => problems.push(Problem {
                path: "step".into(),
                message: format!(
                    "expected an array of tables ([[step]]), found {}",
                    params::describe(v)
                ),
            }),
        }
        if !problems.is_empty() {
            // Still read the steps, so every problem is reported in one pass.
            if let Err(mut p) = Pipeline::from_steps(&steps, "", ctx) {
                problems.append(&mut p);
            }
            return Err(fail(source_name, problems));
        }
        Pipeline::from_steps(&steps, "", ctx).map_err(|p| fail(source_name, p))
    }

    /// Builds a pipeline from step tables (each with `method`); the path of step `i` is
    /// `{prefix}step[i]` (`prefix` is e.g. `defence[1].`). Returns every problem at once.
    pub fn from_steps(
        steps: &[toml::Table],
        prefix: &str,
        ctx: ReadContext<'_>,
    ) -> Result<Pipeline, Vec<Problem>> {
        let mut columns: Option<ColumnSet> = ctx.columns.cloned();
        let mut problems = Vec::new();
        let mut out = Pipeline::default();
        for (i, t) in steps.iter().enumerate() {
            let path = format!("{prefix}step[{}]", i + 1);
            let step_ctx = ReadContext {
                base_dir: ctx.base_dir,
                columns: columns.as_ref(),
            };
            match build_step(t, &path, step_ctx) {
                Ok((step, mut warnings)) => {
                    if let Some(c) = &mut columns {
                        forget_changed_values(&step.params, c);
                        step.defence.adjust_columns(c);
                    }
                    out.warnings.append(&mut warnings);
                    out.steps.push(step);
                }
                Err(mut p) => problems.append(&mut p),
            }
        }
        if problems.is_empty() {
            Ok(out)
        } else {
            Err(problems)
        }
    }

    /// The columns of a table with `columns` after this pipeline (recoded columns become
    /// categorical, a subsample adds its weight column): what later measures can read.
    pub fn columns_after(&self, columns: &ColumnSet) -> ColumnSet {
        let mut c = columns.clone();
        for s in &self.steps {
            forget_changed_values(&s.params, &mut c);
            s.defence.adjust_columns(&mut c);
        }
        c
    }

    /// A one-step pipeline from a method name and its parameters (as `intruder mask --method`);
    /// problem paths are the bare keys, `source_name` labels the error.
    pub fn single(
        name: &str,
        params: toml::Table,
        source_name: &str,
    ) -> Result<Pipeline, DefenceError> {
        Pipeline::single_at(name, params, "", ReadContext::default())
            .map_err(|p| fail(source_name, p))
    }

    /// A one-step pipeline whose problems have paths under `prefix` (`scenario.error[1]`, or
    /// empty for bare keys), with a reading context.
    pub fn single_at(
        name: &str,
        params: toml::Table,
        prefix: &str,
        ctx: ReadContext<'_>,
    ) -> Result<Pipeline, Vec<Problem>> {
        let mut t = params;
        t.insert("method".into(), toml::Value::String(name.into()));
        let (step, warnings) = build_step(&t, prefix, ctx)?;
        Ok(Pipeline {
            steps: vec![step],
            warnings,
        })
    }

    /// What the steps promise about the output, each numbered with its step; the cross-examination
    /// (`intruder_eval::verdict`) checks every promise against the final output.
    pub fn claims(&self) -> Vec<crate::Claim> {
        self.steps
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                s.defence.claims().into_iter().map(move |mut c| {
                    c.step = i + 1;
                    c
                })
            })
            .collect()
    }

    /// `table` as an intruder holds it once they know the release's published recodings: the
    /// steps that are public recodings ([`Defence::public_recoding`]: recoding, rounding, top
    /// coding), applied in order to the columns `table` has, and nothing else. An intruder who
    /// knows a person's age maps it into the released age band before matching.
    pub fn intruder_view(&self, table: &Table) -> Result<Table, DefenceError> {
        Ok(self.intruder_view_of(table)?.into_owned())
    }

    /// [`Pipeline::intruder_view`], borrowing `table` itself when no step is a public recoding
    /// of its columns (a pipeline of suppression, noise or swapping leaves the intruder's view
    /// as it was, and a million-record table is not copied for nothing).
    pub fn intruder_view_of<'a>(&self, table: &'a Table) -> Result<Cow<'a, Table>, DefenceError> {
        let mut t = Cow::Borrowed(table);
        for step in &self.steps {
            if let Some(view) = step.defence.public_view(&t) {
                t = Cow::Owned(view?);
                continue;
            }
            if !step.defence.public_recoding() {
                continue;
            }
            let cols = step_columns(&step.params);
            if cols.is_empty() || cols.iter().any(|c| t.position(c).is_none()) {
                continue;
            }
            let mut rng = ChaCha20Rng::seed_from_u64(0);
            t = Cow::Owned(step.defence.apply(&t, &mut rng)?.table);
        }
        Ok(t)
    }

    /// The deprecation warnings raised while reading the steps.
    pub fn warnings(&self) -> &[Problem] {
        &self.warnings
    }

    /// Runs every step on `table` with `seed`. Step `i` draws from
    /// `ChaCha20Rng::seed_from_u64(seed)` on stream `i`, so steps do not share random numbers
    /// and adding a step leaves the draws of earlier steps unchanged. After a synthesiser
    /// ([`Defence::synthetic`]) the released records are new: the log's `kept_rows` is empty and
    /// its `synthetic` names the step.
    pub fn run(&self, table: &Table, seed: u64) -> Result<(Table, ChangeLog), DefenceError> {
        let mut current = table.clone();
        // each current row's row in the input; `None` once a step synthesised the records
        let mut origin: Option<Vec<usize>> = Some((0..table.nrows()).collect());
        let mut synthetic = None;
        let mut steps = Vec::with_capacity(self.steps.len());
        for (i, step) in self.steps.iter().enumerate() {
            let mut rng = ChaCha20Rng::seed_from_u64(seed);
            rng.set_stream(i as u64);
            let masked = step.defence.apply(&current, &mut rng)?;
            let method = step.defence.method();
            let mut log = if step.defence.synthetic() {
                synthesised(
                    i + 1,
                    method,
                    &current,
                    &masked.table,
                    origin.as_deref(),
                    masked.notes,
                )
            } else {
                diff(
                    i + 1,
                    method,
                    &current,
                    &masked.table,
                    masked.kept_rows.as_deref(),
                    origin.as_deref(),
                    masked.notes,
                )
            };
            log.details = masked.details;
            if step.defence.synthetic() {
                origin = None;
                synthetic = Some(i + 1);
            } else if let (Some(k), Some(o)) = (&masked.kept_rows, &mut origin) {
                *o = k.iter().map(|&r| o[r]).collect();
            }
            current = masked.table;
            steps.push(log);
        }
        let mut changed = vec![false; table.nrows()];
        let mut recoded = vec![false; table.nrows()];
        for (s, step) in steps.iter().zip(&self.steps) {
            let public = step.defence.public_recoding();
            for c in &s.columns {
                for &r in &c.rows {
                    if public {
                        recoded[r] = true;
                    } else {
                        changed[r] = true;
                    }
                }
                // a public recoding that also suppresses (generalisation) changes those records
                for &r in &c.suppressed_rows {
                    changed[r] = true;
                }
            }
        }
        // no input record survives a synthesiser: none is counted as changed or recoded
        let kept_rows = origin.unwrap_or_default();
        let records_changed = kept_rows.iter().filter(|&&r| changed[r]).count();
        let records_recoded = kept_rows.iter().filter(|&&r| recoded[r]).count();
        let records_changed_or_recoded = kept_rows
            .iter()
            .filter(|&&r| changed[r] || recoded[r])
            .count();
        let log = ChangeLog {
            seed,
            rows_in: table.nrows(),
            rows_out: current.nrows(),
            cells_changed: steps.iter().map(|s| s.cells_changed).sum(),
            suppressions: steps.iter().map(|s| s.suppressions).sum(),
            records_changed,
            records_recoded,
            records_changed_or_recoded,
            kept_rows,
            synthetic,
            steps,
        };
        current.relabel(masked_label(table.source()));
        Ok((current, log))
    }
}

/// The label of a masked table: the last part of the input's label (its file name, when it
/// names a file) and "(masked)", never the input's path.
pub fn masked_label(input: &intruder_table::SourceLabel) -> String {
    let path = std::path::Path::new(input.as_str());
    let name = path
        .file_name()
        .map_or_else(|| input.to_string(), |n| n.to_string_lossy().into_owned());
    format!("{name} (masked)")
}

/// The columns a step transforms: its `variables`, or the old name `columns` (a single name is a
/// list of one).
pub fn step_columns(step: &toml::Table) -> Vec<String> {
    match step.get("variables").or_else(|| step.get("columns")) {
        Some(toml::Value::String(s)) => vec![s.clone()],
        Some(toml::Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

fn fail(source_name: &str, problems: Vec<Problem>) -> DefenceError {
    DefenceError::Params(ParamError {
        source_name: source_name.to_string(),
        problems,
    })
}

fn key_path(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// Forgets the known values of the non-categorical columns a step transforms (its
/// `variables`): rounding, top coding, noise or aggregation make other values, which a later
/// recode map may name. A categorical column keeps its levels (a defence that changes them says
/// so in `adjust_columns`).
fn forget_changed_values(params: &toml::Table, c: &mut ColumnSet) {
    let named: Vec<&str> = match params.get("variables").or_else(|| params.get("columns")) {
        Some(toml::Value::String(s)) => vec![s.as_str()],
        Some(toml::Value::Array(a)) => a.iter().filter_map(toml::Value::as_str).collect(),
        _ => Vec::new(),
    };
    let kinds: Vec<(String, intruder_table::Kind)> =
        c.columns.iter().map(|(n, k, _)| (n.clone(), *k)).collect();
    c.levels.retain(|(n, _)| {
        !named.contains(&n.as_str())
            || kinds
                .iter()
                .any(|(m, k)| m == n && *k == intruder_table::Kind::Categorical)
    });
}

/// Reads one step table (with its `method`) at `path`.
fn build_step(
    t: &toml::Table,
    path: &str,
    ctx: ReadContext<'_>,
) -> Result<(Step, Vec<Problem>), Vec<Problem>> {
    let names = || {
        DEFENCES
            .iter()
            .map(|m| m.name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let problem = |message: String| {
        vec![Problem {
            path: key_path(path, "method"),
            message,
        }]
    };
    let name = match t.get("method") {
        Some(toml::Value::String(s)) => s.clone(),
        Some(v) => {
            return Err(problem(format!(
                "expected the name of a defence, found {}; the defences are: {}",
                params::describe(v),
                names()
            )));
        }
        None => {
            return Err(problem(format!(
                "is required: the defence this step applies; the defences are: {}",
                names()
            )));
        }
    };
    let entry = crate::find(&name).map_err(problem)?;
    let mut table = t.clone();
    if let Some(cols) = ctx.columns {
        fill_from_roles(&mut table, &[entry.params], cols);
    }
    let built = entry.configure(&table, path, ctx, &[])?;
    Ok((
        Step {
            defence: built.method,
            params: table,
        },
        built.warnings,
    ))
}
