//! The risk measures of one table: which columns a read must give their roles, the measure
//! configured on the columns read, with the caller's words for a missing key, and a file
//! measured by the cheapest read that gives the same figures ([`measure_file`]: the key columns
//! of a Parquet or CSV file a part at a time, else the table). Arrow arrays handed over in
//! memory (Python's data frames) are the Python package's read.

use std::path::Path;

use anyhow::{Result, anyhow};
use intruder_data::params::{Built, ColumnSet, Problem, ReadContext};
use intruder_data::{ColumnarFile, CsvFile, Dataset, ReadOptions, Role, Timings};
use intruder_risk::{
    RiskMeasure, RiskOutcome, configure as configure_measure, configure_for_parts, fill_roles,
};

use crate::Surface;
use crate::attack::problems;

/// The columns the risk parameters name, each with its role (`keys`, `weight`, `sensitive`,
/// `group`): a table read for the measure gives them those roles.
pub fn roles_named(params: &toml::Table) -> Vec<(String, Role)> {
    let mut out = Vec::new();
    for (k, role) in [
        ("keys", Role::Key),
        ("weight", Role::Weight),
        ("sensitive", Role::Sensitive),
        ("group", Role::Group),
    ] {
        match params.get(k) {
            Some(toml::Value::String(s)) => out.push((s.clone(), role)),
            Some(toml::Value::Array(a)) => out.extend(
                a.iter()
                    .filter_map(|v| v.as_str().map(|s| (s.to_string(), role))),
            ),
            _ => {}
        }
    }
    out
}

/// The measure of `params` configured on `columns` (the data's, named `label`): the columns'
/// roles fill the parameters not given; every problem at once, named for `surface_name`, and
/// a missing key said in the caller's words.
pub fn configure(
    params: &mut toml::Table,
    columns: &ColumnSet,
    surface: Surface,
    surface_name: &str,
    label: &str,
) -> Result<Built<dyn RiskMeasure>> {
    fill_roles(params, columns);
    let ctx = ReadContext {
        base_dir: None,
        columns: Some(columns),
    };
    configure_measure(params, "", ctx, &[]).map_err(|p| {
        if !params.contains_key("keys") && p.len() == 1 && p[0].path == "keys" {
            let how = match surface {
                Surface::Cli => format!(
                    "--keys a,b,c or declare role = \"key\" in a schema (--schema, or {} beside the data)",
                    intruder_data::schema_beside(label.as_ref()).display()
                ),
                Surface::Python => "keys=[…] or declare the role \"key\" in schema=".into(),
                Surface::Page => "the role \"key\" on the columns of the page".into(),
            };
            anyhow!("{label}: no key variables: name them with {how}")
        } else {
            problems(surface_name, p)
        }
    })
}

/// A risk measure's outcome on a file ([`measure_file`]).
pub struct FileRisk {
    /// The measure, as configured.
    pub measure: Box<dyn RiskMeasure>,
    /// Its outcome.
    pub outcome: RiskOutcome,
    /// What the reader noted (a delimiter or decimal mark it detected), for the caller to show.
    pub notes: Vec<String>,
    /// Deprecated parameter names and the like, from the configuration.
    pub warnings: Vec<Problem>,
}

/// The measure of `params` on the file at `path` (read with `options`), on the local engine.
/// The read is chosen here, the same for every surface, and never changes a figure: when the
/// measure needs nothing but the keys ([`RiskMeasure::assess_parts`]) and no per-record
/// figures are asked for, a Parquet file's integer or dictionary-encoded text keys are read a
/// row group at a time ([`ColumnarFile::keys`]) and a plain CSV file's inferred integer keys
/// are coded from the parser's chunks ([`CsvFile::keys`]), with no table made; otherwise the
/// table is read (once: a CSV file parsed for the key path is not parsed again) and the measure
/// configured on its columns. Errors of reading are the table reader's and errors of the
/// parameters the general path's, whichever path ran.
pub fn measure_file(
    path: &Path,
    options: &ReadOptions,
    params: &mut toml::Table,
    per_record: bool,
    (surface, surface_name): (Surface, &str),
    timings: &mut Timings,
) -> Result<FileRisk> {
    let label = path.display().to_string();
    // Parameters the file's columns refuse are refused before the table is read: a Parquet
    // file's columns come from its footer (text shows as categorical, which every column
    // parameter a text column may fill accepts), a CSV file's from the parse the key path
    // made. On a 10,000,000-record file a misspelt measure or column took 2.4 s and 1 GB to
    // report.
    let refuse = |columns: &ColumnSet| {
        configure(&mut params.clone(), columns, surface, surface_name, &label).map(|_| ())
    };
    let read = if per_record {
        if let Some(file) = ColumnarFile::open(path, options) {
            refuse(&file.columns())?;
        }
        Read::Neither
    } else {
        from_parts(path, options, params, &label, &refuse, timings)?
    };
    let (ds, columns): (Dataset, ColumnSet) = match read {
        Read::Done(done) => return Ok(*done),
        Read::Table(ds, columns) => (ds, columns),
        Read::Neither => {
            let ds = intruder_data::read_timed(path, options, timings)?;
            let columns = ds.column_set();
            (ds, columns)
        }
    };
    let built = configure(params, &columns, surface, surface_name, &label)?;
    let outcome = built.method.assess_timed(&ds.table, per_record, timings)?;
    Ok(FileRisk {
        measure: built.method,
        outcome,
        notes: ds.notes,
        warnings: built.warnings,
    })
}

/// What the key path made of a file.
enum Read {
    /// The outcome, from the key columns alone.
    Done(Box<FileRisk>),
    /// The table, read on the way (a CSV file whose keys did not allow the key path), and its
    /// columns (as [`Dataset::column_set`] gives them, computed for the key path already).
    Table(Dataset, ColumnSet),
    /// Nothing: the file is to be read whole.
    Neither,
}

/// The outcome from the key columns alone, when the measure and the file allow it
/// ([`measure_file`]); a CSV file whose keys do not allow it gives its table, parsed once.
fn from_parts(
    path: &Path,
    options: &ReadOptions,
    params: &toml::Table,
    label: &str,
    refuse: &dyn Fn(&ColumnSet) -> Result<()>,
    timings: &mut Timings,
) -> Result<Read> {
    let done = |built: Built<dyn RiskMeasure>, outcome, notes| {
        Read::Done(Box::new(FileRisk {
            measure: built.method,
            outcome,
            notes,
            warnings: built.warnings,
        }))
    };
    if let Some(file) = timings.time(Timings::READ, || ColumnarFile::open(path, options)) {
        let columns = file.columns();
        let Some(built) = configure_for_parts(params, &columns) else {
            refuse(&columns)?;
            return Ok(Read::Neither);
        };
        let Some(keys) = file.keys(built.method.keys()) else {
            return Ok(Read::Neither);
        };
        let threshold = BatchBuffers::reuse();
        let Some(outcome) = built.method.assess_parts(&keys, label, timings) else {
            threshold.restore();
            return Ok(Read::Neither);
        };
        return Ok(done(built, outcome?, Vec::new()));
    }
    let Some(csv) = timings.time(Timings::READ, || CsvFile::read(path, options))? else {
        return Ok(Read::Neither);
    };
    let columns = csv.columns();
    if let Some(built) = configure_for_parts(params, &columns)
        && let Some(keys) = csv.keys(built.method.keys())
        && let Some(outcome) = built.method.assess_parts(&keys, label, timings)
    {
        let notes = csv.notes().to_vec();
        return Ok(done(built, outcome?, notes));
    }
    refuse(&columns)?;
    let ds = timings.time(Timings::READ, || csv.into_dataset())?;
    Ok(Read::Table(ds, columns))
}

/// glibc gives every freed block above its mmap threshold (128 KiB at first, rising with the
/// blocks freed) back to the system, and the next such block is fresh memory that the kernel
/// zeroes page by page. Reading a Parquet file by row groups allocates and frees each batch's
/// arrays (0.5–1 MB each, thousands of them): with the default threshold a third of that
/// path's time went to page faults and unmapping (10,000,000 × 10 keys: 0.84–0.88 s → 0.48–0.52 s
/// with a threshold of 4 MiB). The threshold is raised only once a measure has taken that path,
/// whose other memory is arrays of a value per record (mapped, above the threshold: the class
/// codes, or under wildcard the key codes and the matching's arrays; peak 0.75 GiB for that
/// file under wildcard); raising it for every read would keep the freed blocks of the table
/// paths too (a wildcard count through the table peaked at 1.9 GB instead of 1.4 GB).
/// Elsewhere than glibc, nothing is changed.
struct BatchBuffers;

#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
impl BatchBuffers {
    const THRESHOLD: i32 = 4 << 20;
    /// glibc's initial threshold.
    const DEFAULT: i32 = 128 << 10;

    fn reuse() -> BatchBuffers {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: mallopt only changes a tuning parameter of the allocator; it is called before
        // the threads that read the row groups allocate.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, Self::THRESHOLD);
        }
        BatchBuffers
    }

    /// Back to the initial threshold, for a measure that reads the table after all (glibc no
    /// longer moves a threshold once it has been set).
    fn restore(self) {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: as in `reuse`.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, Self::DEFAULT);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_roles_named_are_those_of_the_four_column_parameters() {
        let params = toml::toml! {
            keys = ["age", "sex"]
            weight = "w"
            group = "hh"
            measure = "frequency"
        };
        assert_eq!(
            roles_named(&params),
            vec![
                ("age".to_string(), Role::Key),
                ("sex".to_string(), Role::Key),
                ("w".to_string(), Role::Weight),
                ("hh".to_string(), Role::Group),
            ]
        );
    }
}
