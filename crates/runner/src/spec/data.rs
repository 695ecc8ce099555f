//! The `[data]` section: a generator or files, the released file, the intruder's source, the
//! truth columns and record filters.

use serde::Serialize;
use toml::Table;

use crate::reader::{Problems, Section};

/// Where the data come from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum DataSource {
    /// A data-synth generator, run once per experiment with the experiment seed.
    Generator {
        /// Registry name (`intruder synth --list`).
        name: String,
        /// Size `n` (the generator's default when absent).
        n: Option<u64>,
        /// Further generator parameters as `key=value`.
        params: Vec<String>,
    },
    /// Files on disk (paths relative to the experiment file).
    Files,
}

/// The data section. Serialized (into `results.json` and the run keys) with each file named
/// by its file name only, so that reports do not depend on how a path was written; the run
/// keys, from which every seed derives, leave files out altogether ([`DataSpec::identity`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DataSpec {
    /// Generator or files.
    pub source: DataSource,
    /// The released file (a file name of the generator's output, or a path).
    #[serde(serialize_with = "file_name")]
    pub released: String,
    /// The file the intruder's records are drawn from (default: the released file, before
    /// masking).
    #[serde(serialize_with = "opt_file_name")]
    pub intruder: Option<String>,
    /// A further file that risk measures can read whole (`[[risk]] file = "population"`), e.g.
    /// the population the released sample was drawn from; never masked, never attacked.
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "opt_file_name"
    )]
    pub population: Option<String>,
    /// Schema of the released file (files only; default `<file stem>.schema.toml` when present).
    #[serde(serialize_with = "opt_file_name")]
    pub released_schema: Option<String>,
    /// Schema of the intruder's source file (files only).
    #[serde(serialize_with = "opt_file_name")]
    pub intruder_schema: Option<String>,
    /// True person id in the released file (a column with role truth).
    pub truth: String,
    /// True person id in the intruder's file (default: `truth`).
    pub truth_intruder: String,
    /// Keep only released records whose columns equal these values (as text), e.g. the split
    /// households of a wave.
    pub released_where: Vec<(String, String)>,
    /// The same for the intruder's source file.
    pub intruder_where: Vec<(String, String)>,
}

/// The last component of a path as written (`../d/x.csv` → `x.csv`).
fn base_name(path: &str) -> String {
    std::path::Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

fn file_name<S: serde::Serializer>(path: &str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&base_name(path))
}

fn opt_file_name<S: serde::Serializer>(path: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    match path {
        Some(p) => s.serialize_some(&base_name(p)),
        None => s.serialize_none(),
    }
}

impl DataSpec {
    /// What the run keys (hence every seed) hash of the data section: the generator and its
    /// output files' names, or for files everything but where they are — the data's content is
    /// in the stored-run ids instead ([`crate::fingerprint`]). So the same experiment with its
    /// data named by an absolute, a relative or a symlinked path gives the same seeds and
    /// byte-identical results.
    pub fn identity(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self).unwrap_or(serde_json::Value::Null);
        if matches!(self.source, DataSource::Files)
            && let Some(o) = v.as_object_mut()
        {
            for k in [
                "released",
                "intruder",
                "population",
                "released_schema",
                "intruder_schema",
            ] {
                o.remove(k);
            }
            let separate = |f: &Option<String>| f.as_ref().is_some_and(|f| *f != self.released);
            o.insert("separate_intruder".into(), separate(&self.intruder).into());
            o.insert("population".into(), self.population.is_some().into());
        }
        v
    }
}

pub(crate) fn parse_data(t: &Table, p: &mut Problems) -> Option<DataSpec> {
    let mut s = Section::new(t, "data");
    let generator = s.string(p, "generator");
    let n = s.uint(p, "n");
    let params = s.scalar_map(p, "params").unwrap_or_default();
    let released = s.string(p, "released");
    let intruder = s.string(p, "intruder");
    let population = s.string(p, "population");
    let released_schema = s.string(p, "released_schema");
    let intruder_schema = s.string(p, "intruder_schema");
    let truth = s.string(p, "truth");
    let truth_intruder = s.string(p, "truth_intruder");
    let released_where = s.scalar_map(p, "released_where").unwrap_or_default();
    let intruder_where = s.scalar_map(p, "intruder_where").unwrap_or_default();
    if let Some(g) = &generator {
        // The generator reads `params` as given: kinds, ranges, choices and unknown keys
        // (with a did-you-mean) are checked here, every problem with its path.
        let table = t
            .get("params")
            .and_then(toml::Value::as_table)
            .cloned()
            .unwrap_or_default();
        match intruder_synth::configure(g, n, &table, "data.params") {
            Ok(_) => {}
            // Each problem already names its path (`data.params.bad: unknown key`).
            Err(intruder_synth::SynthError::Params { problems, .. }) => {
                for pr in problems {
                    p.push("", pr);
                }
            }
            Err(e @ intruder_synth::SynthError::UnknownGenerator { .. }) => {
                p.push("data.generator", e)
            }
            Err(e) => p.push("data.params", e),
        }
    }
    if released.is_none() && !t.contains_key("released") {
        p.push(
            "data.released",
            "is required: the file that is masked and released",
        );
    }
    if truth.is_none() && !t.contains_key("truth") {
        p.push(
            "data.truth",
            "is required: the column with the true person id (role truth)",
        );
    }
    if generator.is_none() && n.is_some() {
        p.push("data.n", "only for a generator");
    }
    s.finish(p);
    let source = match generator {
        Some(name) => DataSource::Generator {
            name,
            n,
            params: params.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        },
        None => DataSource::Files,
    };
    let truth = truth?;
    Some(DataSpec {
        source,
        released: released?,
        intruder,
        population,
        released_schema,
        intruder_schema,
        truth_intruder: truth_intruder.unwrap_or_else(|| truth.clone()),
        truth,
        released_where,
        intruder_where,
    })
}
