//! A defence pipeline run on a table: the masked table with its truth following the kept
//! records, the change log, and the cross-examination of every promise the pipeline makes by
//! the toolkit's own exact attack.

use anyhow::{Context, Result};
use intruder_data::params::{ColumnSet, ReadContext};
use intruder_data::{Dataset, Table, Timings};
use intruder_defence::{ChangeLog, Pipeline};
use intruder_eval::{CrossExamination, Labelled, cross_examine_run};
use serde_json::{Map, Value, json};

use crate::attack::problems;

/// The columns a pipeline's first step sees (truth columns are not the defences'), with the
/// values of discrete columns (a recode map is checked against them), named `label`.
pub fn columns_of(table: &Table, label: &str) -> ColumnSet {
    ColumnSet {
        file: label.to_string(),
        ..ColumnSet::of_parts(table, &[])
    }
}

/// A pipeline of the steps given as parameter tables (`method` and its parameters each),
/// checked against the columns of `table` (named `label`): every problem at once, named for
/// `surface_name`.
pub fn pipeline_of_steps(
    steps: &[toml::Table],
    table: &Table,
    label: &str,
    surface_name: &str,
) -> Result<Pipeline> {
    pipeline_of_steps_on(steps, &columns_of(table, label), surface_name)
}

/// [`pipeline_of_steps`] on a set of columns: e.g. a Parquet file's, read from its footer, so
/// that steps its columns refuse are refused before the table is read.
pub fn pipeline_of_steps_on(
    steps: &[toml::Table],
    columns: &ColumnSet,
    surface_name: &str,
) -> Result<Pipeline> {
    let ctx = ReadContext {
        base_dir: None,
        columns: Some(columns),
    };
    Pipeline::from_steps(steps, "", ctx).map_err(|p| problems(surface_name, p))
}

/// Whether and on what the exact attack cross-examines the masked table.
#[derive(Debug, Clone, Copy)]
pub enum Check<'a> {
    /// No cross-examination.
    Off,
    /// Every promise of the pipeline; `keys` adds a check without a promise on those keys (else,
    /// when nothing is promised, the table's key columns are checked).
    On {
        /// The keys of an extra check.
        keys: Option<&'a [String]>,
    },
}

/// One masking run.
pub struct Masked {
    /// The masked table, its truth columns following the kept records.
    pub dataset: Dataset,
    /// What each step changed.
    pub log: ChangeLog,
    /// The pipeline's promises against what the exact attack achieves (`None` when not asked).
    pub cross_examination: Option<CrossExamination>,
    /// The steps' parameters as run.
    steps: Vec<toml::Table>,
}

impl Masked {
    /// The change log with its provenance as `intruder mask --log` writes it: the tool, the
    /// files, the seed, the pipeline, and under `log` the figures with 1-based record numbers.
    pub fn log_file_json(&self, input: &str, output: &str) -> Value {
        json!({
            "tool": tool(),
            "input": input,
            "output": output,
            "seed": self.log.seed,
            "pipeline": self.steps,
            "log": self.log.record_numbers(),
        })
    }

    /// The change log as one flat object (Python's `mask()`): the tool, the seed, the pipeline
    /// and the cross-examination beside the log's figures (1-based record numbers).
    pub fn log_flat_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("tool".into(), tool().into());
        out.insert("seed".into(), self.log.seed.into());
        out.insert("pipeline".into(), json!(self.steps));
        out.insert(
            "cross_examination".into(),
            serde_json::to_value(&self.cross_examination).unwrap_or(Value::Null),
        );
        if let Value::Object(figures) = self.log.record_numbers() {
            for (k, v) in figures {
                out.entry(k).or_insert(v);
            }
        }
        Value::Object(out)
    }
}

/// The toolkit's name and version, as logs record them.
pub fn tool() -> String {
    format!("intruder {}", env!("CARGO_PKG_VERSION"))
}

/// Runs `pipeline` on `data` with `seed`, cross-examines it as `check` says, and carries the
/// truth along the kept records (after a synthesiser: a truth of no one). `label` names the
/// data in errors; `timings` gets the phases `mask` and `check`.
pub fn mask(
    data: Dataset,
    pipeline: &Pipeline,
    seed: u64,
    check: Check<'_>,
    label: &str,
    timings: &mut Timings,
) -> Result<Masked> {
    // A step may read a population table named in its parameters (without its truth).
    intruder_data::install_table_reader();
    let (table, log) = timings
        .time("mask", || pipeline.run(&data.table, seed))
        .with_context(|| format!("masking {label}"))?;
    let cross_examination = match check {
        Check::Off => None,
        Check::On { keys } => Some(timings.time("check", || {
            cross_examine_run(pipeline, &data.table, &table, &log, keys)
        })?),
    };
    // a synthetic release's truth is no one (Labelled::release)
    let dataset = Labelled::from_dataset(data)
        .release(table, &log)?
        .into_dataset();
    Ok(Masked {
        dataset,
        log,
        cross_examination,
        steps: pipeline.steps.iter().map(|s| s.params.clone()).collect(),
    })
}
