//! A data file as a DataFrame: the columns a plan reads, renamed, with missing cells as nulls
//! the way the toolkit's reader makes them, and each record's row number.
//!
//! A Parquet file is scanned where it lies (in process, or by the executors of a cluster, which
//! must see the same path: shared storage). Its text cells equal to a missing token (the
//! column's in the schema, else `--missing-tokens`, else the schema's, else `""`, `NA`, `.`)
//! and its NaN floats are missing, as the toolkit's reader reads them. Another format (CSV,
//! Arrow IPC) is read by the toolkit's reader, written to a temporary Parquet file and scanned
//! from there: in process, or on a cluster into its scratch directory
//! ([`EngineSpec::scratch_dir`]).
//!
//! The row number is DataFusion's `file_row_index()`, the record's offset in its file. A
//! Ballista cluster's executors cannot read it (datafusion-proto 55.2 drops a scan's virtual
//! columns): there the client writes, in process, a copy of the columns read with the row
//! number as a column, in the scratch directory every executor sees
//! ([`EngineSpec::scratch_dir`]), and the plans scan that copy.

use std::io::Read;
use std::path::Path;

use datafusion::arrow::datatypes::DataType;
use datafusion::prelude::*;

use intruder_data::{DEFAULT_MISSING, Input, Kind, ReadOptions};

use super::run_error;
use crate::{Engine, EngineError, EngineSpec};

/// A scanned file, and the temporary copies it may come from (removed when dropped).
pub struct Source {
    /// The columns asked for, renamed, then the row number when asked for.
    pub df: DataFrame,
    /// The file's name in messages.
    pub label: String,
    _temps: Vec<tempfile::TempDir>,
}

/// Whether `path` starts with Parquet's magic bytes.
fn is_parquet(path: &Path) -> Result<bool, EngineError> {
    let mut f = std::fs::File::open(path).map_err(|e| {
        EngineError::Data(intruder_data::DataError::Io {
            path: path.to_path_buf(),
            source: e,
        })
    })?;
    let mut magic = [0u8; 4];
    Ok(f.read_exact(&mut magic).is_ok() && &magic == b"PAR1")
}

/// The missing tokens of column `name` as the toolkit's reader takes them.
fn tokens(opts: &ReadOptions, name: &str) -> Vec<String> {
    let schema = opts.schema.as_ref();
    schema
        .and_then(|s| s.get(name))
        .and_then(|c| c.missing.clone())
        .or_else(|| opts.missing.clone())
        .or_else(|| schema.and_then(|s| s.missing.clone()))
        .unwrap_or_else(|| DEFAULT_MISSING.iter().map(|s| s.to_string()).collect())
}

/// `c` with its missing cells as nulls, by the column's type.
fn normalised(c: Expr, dt: &DataType, tokens: &[String]) -> Expr {
    let text = |e: Expr| tokens.iter().fold(e, |e, t| nullif(e, lit(t.as_str())));
    match dt {
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => text(c),
        DataType::Dictionary(_, v)
            if matches!(
                v.as_ref(),
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
            ) =>
        {
            text(cast(c, v.as_ref().clone()))
        }
        DataType::Float16 | DataType::Float32 | DataType::Float64 => {
            when(isnan(c.clone()), lit(datafusion::scalar::ScalarValue::Null))
                .otherwise(c)
                .expect("a CASE with one branch")
        }
        _ => c,
    }
}

/// Set-valued keys match by overlap, which the plans do not express: refused.
pub(crate) fn set_valued(spec: &EngineSpec, label: &str, name: &str) -> EngineError {
    EngineError::Unsupported {
        engine: spec.engine.label(),
        what: format!(
            "{label}: column '{name}' is set-valued; set-valued keys run on the local engine only"
        ),
    }
}

/// Scans `path` (read as `input` says): `columns` as `(file column, alias)`, then the row
/// number as `row` when given (on Ballista from a numbered copy in the scratch directory).
pub async fn scan(
    spec: &EngineSpec,
    ctx: &SessionContext,
    path: &Path,
    input: &Input,
    columns: &[(String, String)],
    row: Option<&str>,
) -> Result<Source, EngineError> {
    let label = path.display().to_string();
    let opts = input.read_options(path)?;
    for (name, _) in columns {
        let declared = opts
            .schema
            .as_ref()
            .and_then(|s| s.get(name))
            .is_some_and(|c| c.kind == Some(Kind::Set));
        if declared || input.set_valued.contains(name) {
            return Err(set_valued(spec, &label, name));
        }
    }
    let mut temps = Vec::new();
    let mut file = path.to_path_buf();
    if !is_parquet(path)? {
        if !matches!(spec.engine, Engine::DataFusion) && spec.scratch_dir.is_none() {
            return Err(EngineError::Unsupported {
                engine: spec.engine.label(),
                what: format!(
                    "{label} is not a Parquet file: a cluster's executors read Parquet on shared storage (write the file as Parquet, e.g. with pandas' to_parquet, at a path every executor sees, or give --scratch-dir DIR, a directory they all see, for a copy)"
                ),
            });
        }
        let ds = intruder_data::load(path, input)?;
        for (name, _) in columns {
            if ds.table.column(name).is_ok_and(|c| c.kind() == Kind::Set) {
                return Err(set_valued(spec, &label, name));
            }
        }
        let dir = scratch(spec, &label, "a Parquet copy")?;
        file = dir.path().join("data.parquet");
        intruder_data::write_parquet(&file, &ds)?;
        temps.push(dir);
    }
    // Ballista's executors cannot read `file_row_index()`: they scan a copy that carries it.
    let numbered = row.is_some() && !super::risk::file_row_index_reaches_executors(spec);
    if numbered {
        let dir = scratch(spec, &label, "a copy numbering its records")?;
        let copy = dir.path().join("numbered.parquet");
        number_rows(spec, path, &file, columns, &copy).await?;
        file = copy;
        temps.push(dir);
    }
    let file_str = file
        .to_str()
        .ok_or_else(|| EngineError::Config(format!("{label}: the path is not UTF-8")))?;
    let df = ctx
        .read_parquet(file_str, ParquetReadOptions::default())
        .await
        .map_err(|e| run_error(spec, e))?;
    let schema = df.schema().clone();
    let mut exprs = Vec::with_capacity(columns.len() + 1);
    for (name, alias) in columns {
        let field = schema
            .field_with_unqualified_name(name)
            .map_err(|_| unknown_column(path, name, &schema))?;
        exprs.push(
            normalised(ident(name), field.data_type(), &tokens(&opts, name)).alias(alias.as_str()),
        );
    }
    if let Some(r) = row {
        let number = if numbered { col(ROW) } else { file_row_index() };
        exprs.push(number.alias(r));
    }
    let df = df.select(exprs).map_err(|e| run_error(spec, e))?;
    Ok(Source {
        df,
        label,
        _temps: temps,
    })
}

/// The row-number column of a numbered copy.
const ROW: &str = "__intruder_row";

/// `name` is not a column of `path` (whose columns `schema` lists).
fn unknown_column(path: &Path, name: &str, schema: &datafusion::common::DFSchema) -> EngineError {
    EngineError::Data(intruder_data::DataError::UnknownColumn {
        file: path.to_path_buf(),
        name: name.to_string(),
        hint: String::new(),
        available: schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// A file in a directory of its own in the cluster's scratch directory, for `what` (a table
/// the driver made, which the executors read): the directory (removed when dropped) and the
/// file's path.
pub(crate) fn scratch_file(
    spec: &EngineSpec,
    what: &str,
) -> Result<(tempfile::TempDir, std::path::PathBuf), EngineError> {
    let Some(d) = &spec.scratch_dir else {
        return Err(EngineError::Unsupported {
            engine: spec.engine.label(),
            what: format!(
                "{what} are tables the driver makes, which a cluster's executors read from shared storage: give --scratch-dir DIR ([engine] scratch_dir), a directory every executor sees"
            ),
        });
    };
    let dir = tempfile::Builder::new()
        .prefix("intruder-")
        .tempdir_in(d)
        .map_err(|e| {
            EngineError::Config(format!("cannot make a directory in {}: {e}", d.display()))
        })?;
    let file = dir.path().join("table.parquet");
    Ok((dir, file))
}

/// A directory for a copy of `label` the executors read: in `spec`'s scratch directory on a
/// cluster (shared storage), the system's temporary directory in process.
fn scratch(spec: &EngineSpec, label: &str, what: &str) -> Result<tempfile::TempDir, EngineError> {
    let made = match (&spec.engine, &spec.scratch_dir) {
        (Engine::DataFusion, _) => tempfile::tempdir(),
        (_, Some(d)) => tempfile::Builder::new().prefix("intruder-").tempdir_in(d),
        (_, None) => {
            return Err(EngineError::Unsupported {
                engine: spec.engine.label(),
                what: format!(
                    "{label}: this run reads each record's row number, which Ballista 55 loses on the way to its executors (docs/cluster.md); give --scratch-dir DIR ([engine] scratch_dir), a directory every executor sees, for {what}"
                ),
            });
        }
    };
    made.map_err(|e| {
        EngineError::Config(format!(
            "cannot make a directory for {what} of {label}: {e}"
        ))
    })
}

/// Writes the `columns` of the Parquet file `file` (the user's `path`, or a copy of it) to
/// `out` with each record's row number as [`ROW`]: DataFusion in process reads
/// `file_row_index()`, which a cluster's executors cannot.
async fn number_rows(
    spec: &EngineSpec,
    path: &Path,
    file: &Path,
    columns: &[(String, String)],
    out: &Path,
) -> Result<(), EngineError> {
    let e = |e| run_error(spec, e);
    let utf8 = |p: &Path| {
        p.to_str()
            .map(str::to_owned)
            .ok_or_else(|| EngineError::Config(format!("{}: the path is not UTF-8", p.display())))
    };
    let ctx = super::context(&super::in_process(spec)).await?;
    // As in the linkage plans: no round-robin repartition between the scan and the row index.
    ctx.state_ref()
        .write()
        .config_mut()
        .options_mut()
        .optimizer
        .enable_round_robin_repartition = false;
    let df = ctx
        .read_parquet(utf8(file)?, ParquetReadOptions::default())
        .await
        .map_err(e)?;
    let schema = df.schema().clone();
    let mut names: Vec<&str> = Vec::new();
    for (name, _) in columns {
        if schema.field_with_unqualified_name(name).is_err() {
            return Err(unknown_column(path, name, &schema));
        }
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    let mut exprs: Vec<Expr> = names.iter().map(|n| ident(*n)).collect();
    exprs.push(file_row_index().alias(ROW));
    df.select(exprs)
        .map_err(e)?
        .write_parquet(
            &utf8(out)?,
            datafusion::dataframe::DataFrameWriteOptions::new().with_single_file_output(true),
            None,
        )
        .await
        .map_err(e)?;
    Ok(())
}
