//! Studies: whole designs a `[longitudinal]` section runs beside the defence × attack grid, each
//! behind one small trait and one registry line ([`STUDIES`]). A study parses its section
//! (every problem with its key path), describes itself for `--dry-run`, runs on the experiment's
//! data directory (its raw result is stored and reused like a run), and turns the stored result
//! into report tables.

use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use toml::Table;

use crate::RunnerError;
use crate::reader::Problems;
use crate::table::TableData;

mod mitra;

pub use mitra::{LongitudinalPublished, LongitudinalSpec};

/// A configured study.
pub trait Study: Send + Sync + std::fmt::Debug {
    /// Its registry name.
    fn name(&self) -> &'static str;
    /// The resolved configuration that identifies a stored result (values shown beside ours,
    /// such as published figures, left out).
    fn identity(&self) -> Value;
    /// The whole resolved configuration (for `results.json`).
    fn config(&self) -> Value;
    /// Lines for `--dry-run`.
    fn describe(&self) -> String;
    /// The same study with other protection seeds (a `[tiny]` or `[paper]` size).
    fn with_seeds(&self, seeds: &[u64]) -> Box<dyn Study>;
    /// The data files it reads, relative to the data directory.
    fn files(&self) -> Vec<String>;
    /// Runs on the files of `data_dir`; returns the raw result.
    fn run(&self, data_dir: &Path) -> Result<Value, RunnerError>;
    /// Report tables from the raw result.
    fn tables(&self, result: &Value) -> Vec<TableData>;
    /// Report figures from the raw result, as data the report lays out (none unless the
    /// study draws some).
    fn plots(&self, _result: &Value) -> Vec<StudyPlot> {
        Vec::new()
    }
}

/// A study's line plot as data (the report lays it out with its other figures; a study does
/// not reach the plot module, which reads the experiment).
#[derive(Debug, Clone)]
pub struct StudyPlot {
    /// File name (`*.svg`).
    pub file: String,
    /// Caption.
    pub caption: String,
    /// Title.
    pub title: String,
    /// x-axis title.
    pub x_title: String,
    /// y-axis title.
    pub y_title: String,
    /// Series: name, and (x, statistic) points.
    pub series: Vec<(String, Vec<(f64, crate::stats::Stat)>)>,
}

/// A registry entry: the study's name, documentation and parser.
#[derive(Clone, Copy)]
pub struct StudyEntry {
    /// The name (`study = "…"`).
    pub name: &'static str,
    /// One line on what it runs.
    pub summary: &'static str,
    /// The paper it reproduces.
    pub reference: &'static str,
    /// Reads the section, recording every problem with its key path.
    pub(crate) parse: fn(&Table, &mut Problems) -> Option<Box<dyn Study>>,
}

impl std::fmt::Debug for StudyEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StudyEntry")
            .field("name", &self.name)
            .finish()
    }
}

/// Every study.
pub static STUDIES: &[StudyEntry] = &[mitra::ENTRY];

/// A shared, configured study (cheap to clone; compared and serialised by its configuration).
#[derive(Debug, Clone)]
pub struct StudyBox(pub Arc<dyn Study>);

impl PartialEq for StudyBox {
    fn eq(&self, other: &Self) -> bool {
        self.0.name() == other.0.name() && self.0.config() == other.0.config()
    }
}

impl serde::Serialize for StudyBox {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.config().serialize(s)
    }
}

impl std::ops::Deref for StudyBox {
    type Target = dyn Study;
    fn deref(&self) -> &(dyn Study + 'static) {
        &*self.0
    }
}

/// Reads a `[longitudinal]` section: `study` names a registry entry, which reads the rest.
pub(crate) fn parse(t: &Table, p: &mut Problems) -> Option<StudyBox> {
    let names: Vec<&str> = STUDIES.iter().map(|e| e.name).collect();
    match t.get("study") {
        None => {
            p.push(
                "longitudinal.study",
                format!("is required (the study to run: {})", names.join(", ")),
            );
            None
        }
        Some(toml::Value::String(name)) => {
            match intruder_data::params::find_by(STUDIES, "study", name, |e| e.name) {
                Ok(e) => (e.parse)(t, p).map(|s| StudyBox(Arc::from(s))),
                Err(msg) => {
                    p.push("longitudinal.study", msg);
                    None
                }
            }
        }
        Some(other) => {
            p.push(
                "longitudinal.study",
                format!(
                    "expected a string, found {}",
                    crate::reader::describe(other)
                ),
            );
            None
        }
    }
}
