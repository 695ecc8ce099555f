//! The experiment's data: generated once under `OUT/data/` or read from files beside the
//! experiment file, with the truth columns named in `[data]` given the truth role at load
//! (whatever a schema says), filtered by `released_where` / `intruder_where`; and the
//! fingerprint of the data's content that stored-run ids include.

use std::path::{Path, PathBuf};

use intruder_data::{Input, Role};
use intruder_eval::Labelled;

use crate::RunnerError;
use crate::hash::{Fnv, VERSION, fnv1a, hash_file};
use crate::spec::{DataSource, Experiment};

/// The data of an experiment: the released file before masking and, when the intruder draws
/// from another file, that file.
#[derive(Debug)]
pub struct Loaded {
    /// The file that is masked and released (unmasked here), with its truth.
    pub released: Labelled,
    /// The intruder's source file, when it is not the released file, with its truth.
    pub source: Option<Labelled>,
    /// The file `[data] population` names, read whole for risk measures (`file = "population"`).
    pub population: Option<Labelled>,
}

impl Loaded {
    /// The intruder's source.
    pub fn source(&self) -> &Labelled {
        self.source.as_ref().unwrap_or(&self.released)
    }
}

/// The number of records held back as the control set (`[scenario] control`) of a file of
/// `n` records with control share `share`: the share rounded to the nearest record.
pub fn control_size(share: f64, n: usize) -> usize {
    ((share * n as f64).round() as usize).min(n)
}

/// The generator's configuration key (names the generated data directory): the generator,
/// its parameters, the seed, the toolkit version and the generator's data version (so data
/// stored by an older generator are not reused once its bytes change).
fn generator_key(exp: &Experiment) -> Option<String> {
    match &exp.data.source {
        DataSource::Generator { name, n, params } => Some(format!(
            "{name}\u{1}{n:?}\u{1}{params:?}\u{1}{}\u{1}{VERSION}\u{1}synth-data-{}",
            exp.seed,
            intruder_synth::DATA_VERSION
        )),
        DataSource::Files => None,
    }
}

/// The paths of the released file and the intruder's source file, with their explicit schemas.
fn files(exp: &Experiment, dir: &Path) -> Vec<(PathBuf, Option<PathBuf>)> {
    let d = &exp.data;
    let (rel_schema, int_schema) = match &d.source {
        DataSource::Generator { .. } => (None, None),
        DataSource::Files => (
            d.released_schema.as_ref().map(|s| exp.base_dir.join(s)),
            d.intruder_schema.as_ref().map(|s| exp.base_dir.join(s)),
        ),
    };
    let mut out = vec![(dir.join(&d.released), rel_schema)];
    if let Some(f) = &d.intruder
        && f != &d.released
    {
        out.push((dir.join(f), int_schema));
    }
    out
}

/// The path of the `[data] population` file, when named (its schema found beside it).
fn population_file(exp: &Experiment, dir: &Path) -> Option<PathBuf> {
    exp.data.population.as_ref().map(|f| dir.join(f))
}

/// The fingerprint of the experiment's input data: for a generator, its configuration (the
/// data are a function of it); for files, the content of the released and intruder files, their
/// schemas and the study's files — never their paths. Stored-run ids include it, so changed
/// data rerun.
pub fn fingerprint(exp: &Experiment) -> Result<String, RunnerError> {
    if let Some(key) = generator_key(exp) {
        return Ok(format!("generator:{:016x}", fnv1a(key.as_bytes())));
    }
    let mut h = Fnv::new();
    let input = Input::default();
    let mut paths: Vec<(PathBuf, Option<PathBuf>)> = files(exp, &exp.base_dir);
    paths.extend(population_file(exp, &exp.base_dir).map(|p| (p, None)));
    if let Some(st) = &exp.study {
        paths.extend(st.files().into_iter().map(|f| (exp.base_dir.join(f), None)));
    }
    for (data, schema) in paths {
        hash_file(&mut h, &data)?;
        let schema = schema.or_else(|| input.schema_for(&data));
        match schema {
            Some(s) => hash_file(&mut h, &s)?,
            None => h.write(b"\x00no schema"),
        }
    }
    Ok(format!("files:{:016x}", h.finish()))
}

/// The directory the experiment's data files are in: for a generator, `out/data/<name>-<hash>/`,
/// generated first when not complete (the hash covers the generator's configuration, the seed,
/// the toolkit version and the generator's data version); for files, the experiment file's directory.
pub fn data_dir(exp: &Experiment, out: &Path) -> Result<PathBuf, RunnerError> {
    match (&exp.data.source, generator_key(exp)) {
        (DataSource::Generator { name, n, params }, Some(key)) => {
            let dir = out
                .join("data")
                .join(format!("{name}-{:016x}", fnv1a(key.as_bytes())));
            let marker = dir.join(".complete");
            if !marker.exists() {
                std::fs::create_dir_all(&dir).map_err(|source| RunnerError::Io {
                    path: dir.clone(),
                    source,
                })?;
                intruder_synth::run(name, *n, params, exp.seed, &dir)?;
                std::fs::write(&marker, key).map_err(|source| RunnerError::Io {
                    path: marker.clone(),
                    source,
                })?;
            }
            Ok(dir)
        }
        _ => Ok(exp.base_dir.clone()),
    }
}

/// Loads the experiment's data (generating it first when it comes from a generator).
pub fn load_data(exp: &Experiment, out: &Path) -> Result<Loaded, RunnerError> {
    load_from(exp, &data_dir(exp, out)?)
}

/// Loads the experiment's data without writing anything under `out`: generated data already
/// stored there are read; otherwise they are generated into a temporary directory that is
/// removed afterwards (what a dry run does).
pub fn load_data_readonly(exp: &Experiment, out: &Path) -> Result<Loaded, RunnerError> {
    let DataSource::Generator { name, n, params } = &exp.data.source else {
        return load_from(exp, &exp.base_dir);
    };
    if let Some(stored) = stored_generated(exp, out) {
        return load_from(exp, &stored);
    }
    let tmp = tempfile::tempdir().map_err(|source| RunnerError::Io {
        path: std::env::temp_dir(),
        source,
    })?;
    intruder_synth::run(name, *n, params, exp.seed, tmp.path())?;
    load_from(exp, tmp.path())
}

/// The directory of an experiment's generated data when it is stored complete under `out`.
pub(crate) fn stored_generated(exp: &Experiment, out: &Path) -> Option<PathBuf> {
    let (DataSource::Generator { name, .. }, Some(key)) = (&exp.data.source, generator_key(exp))
    else {
        return None;
    };
    let stored = out
        .join("data")
        .join(format!("{name}-{:016x}", fnv1a(key.as_bytes())));
    stored.join(".complete").exists().then_some(stored)
}

fn load_from(exp: &Experiment, dir: &Path) -> Result<Loaded, RunnerError> {
    let d = &exp.data;
    let fs = files(exp, dir);
    let read = |path: &Path, schema: &Option<PathBuf>, truth: &str| {
        let input = Input {
            schema: schema.clone(),
            ..Input::default()
        };
        let loaded =
            match intruder_data::load(path, &input.clone().with_role(&[truth], Role::Truth)) {
                // A truth column the file lacks is reported by the check with its key
                // (`data.truth`), together with every other problem.
                Err(intruder_data::DataError::UnknownColumn { name, .. }) if name == truth => {
                    intruder_data::load(path, &input)
                }
                other => other,
            };
        // Named by its file name, as the reports name it: messages and stored runs do not
        // depend on the directory the data were read from (an absolute, relative or symlinked
        // path, a generator's output directory).
        loaded.map(|mut ds| {
            if let Some(name) = path.file_name() {
                ds.table.relabel(name.to_string_lossy().into_owned());
            }
            Labelled::from_dataset(ds)
        })
    };
    let (rel_path, rel_schema) = &fs[0];
    let released = read(rel_path, rel_schema, &d.truth)?;
    let source = match fs.get(1) {
        Some((p, s)) => Some(read(p, s, &d.truth_intruder)?.filter(&d.intruder_where)?),
        None if !d.intruder_where.is_empty() || d.truth_intruder != d.truth => {
            Some(read(rel_path, rel_schema, &d.truth_intruder)?.filter(&d.intruder_where)?)
        }
        None => None,
    };
    let released = released.filter(&d.released_where)?;
    let population = match population_file(exp, dir) {
        Some(p) => Some(read(&p, &None, &d.truth)?),
        None => None,
    };
    Ok(Loaded {
        released,
        source,
        population,
    })
}
