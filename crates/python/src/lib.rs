//! `intruder._intruder`: the native half of the Python package `intruder`.
//!
//! Every function reads its parameters as one raw table and hands it to the family's registry
//! (`configure`), exactly as the command line and the experiment runner do; tables arrive and
//! leave through the Arrow C stream interface (`__arrow_c_stream__` PyCapsules). The Python half
//! (`python/intruder/__init__.py`) turns keyword arguments into those tables and the results back
//! into the kind of table the caller passed. Computation runs with the GIL released.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, anyhow, bail};
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, RecordBatchIterator, UInt32Array,
};
use arrow_schema::{DataType, Field, SchemaRef};
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyDict, PyList};
use serde_json::{Value, json};

use intruder::attack::TruthNames;
use intruder_data::params::{ColumnSet, ParamSpec, Problem};
use intruder_data::{
    ColumnarFile, Dataset, Input, Kind, ReadOptions, Role, Schema, Select, read_csv,
};
use intruder_eval::Labelled;

mod arrow_in;
mod arrow_out;
mod convert;

create_exception!(
    _intruder,
    IntruderError,
    PyValueError,
    "An error of the toolkit: the message is the one the command line prints."
);

fn to_py(e: anyhow::Error) -> PyErr {
    IntruderError::new_err(format!("{e:#}"))
}

// ---------------------------------------------------------------------------------------------
// Tables in and out.

/// A table produced by the toolkit, exported through the Arrow C stream interface: pass it to
/// `pyarrow.table`, `polars.DataFrame` or `pandas.DataFrame.from_arrow`.
#[pyclass(frozen, module = "intruder._intruder")]
pub struct ArrowTable {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl ArrowTable {
    fn new(batch: RecordBatch) -> ArrowTable {
        ArrowTable {
            schema: batch.schema(),
            batches: vec![batch],
        }
    }
}

#[pymethods]
impl ArrowTable {
    /// The Arrow PyCapsule interface: a stream of record batches.
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The schema is given as it is; consumers cast if they asked for another.
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(
            self.batches.clone().into_iter().map(Ok),
            self.schema.clone(),
        );
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// Number of rows.
    #[getter]
    fn num_rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// Column names.
    #[getter]
    fn column_names(&self) -> Vec<String> {
        self.schema
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "ArrowTable({} rows: {})",
            self.num_rows(),
            self.column_names().join(", ")
        )
    }
}

/// Where a table comes from: Arrow batches (from any object with `__arrow_c_stream__`), or a
/// data file read as the command line reads it.
enum Source {
    Arrow {
        label: String,
        fields: Vec<String>,
        batches: Vec<RecordBatch>,
    },
    File(PathBuf),
}

/// A schema argument: a TOML file, or one built from a dict.
enum SchemaArg {
    File(PathBuf),
    Parsed(Schema),
}

/// How a file is read: with the schema given as a dict (its roles overridden by those the
/// parameters name), else the schema file given or the one beside the data, the roles named
/// by the parameters winning.
fn file_options(
    path: &Path,
    schema: &Option<SchemaArg>,
    roles: &[(String, Role)],
) -> Result<ReadOptions> {
    Ok(match schema {
        Some(SchemaArg::Parsed(s)) => {
            let mut opts = ReadOptions {
                schema: Some(s.clone()),
                optional_overrides: true,
                ..ReadOptions::default()
            };
            for (n, r) in roles {
                opts.override_spec(n).role = Some(*r);
            }
            opts
        }
        other => Input {
            schema: match other {
                Some(SchemaArg::File(p)) => Some(p.clone()),
                _ => None,
            },
            roles: roles.to_vec(),
            optional_roles: true,
            ..Input::default()
        }
        .read_options(path)?,
    })
}

/// Imports a stream: the consumer side of the Arrow C stream interface.
fn import_stream(obj: &Bound<'_, PyAny>) -> PyResult<(SchemaRef, Vec<RecordBatch>)> {
    let capsule = obj.call_method1("__arrow_c_stream__", (obj.py().None(),))?;
    let capsule = capsule
        .cast::<PyCapsule>()
        .map_err(|_| PyTypeError::new_err("__arrow_c_stream__ did not return a PyCapsule"))?;
    let ptr = capsule
        .pointer_checked(Some(c"arrow_array_stream"))?
        .as_ptr()
        .cast::<FFI_ArrowArrayStream>();
    // SAFETY: the capsule holds an ArrowArrayStream (its name says so); `from_raw` moves the
    // stream out and leaves a released one behind, which the capsule's destructor ignores.
    let stream = unsafe { FFI_ArrowArrayStream::from_raw(ptr) };
    let reader = RecordBatchStreamReader::try_new(stream)
        .map_err(|e| PyValueError::new_err(format!("reading the Arrow stream: {e}")))?;
    let schema = arrow_array::RecordBatchReader::schema(&reader);
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| PyValueError::new_err(format!("reading the Arrow stream: {e}")))?;
    Ok((schema, batches))
}

fn source(obj: &Bound<'_, PyAny>, label: &str) -> PyResult<Source> {
    if let Ok(s) = obj.extract::<PathBuf>() {
        return Ok(Source::File(s));
    }
    if !obj.hasattr("__arrow_c_stream__")? {
        return Err(PyTypeError::new_err(format!(
            "{label}: expected a table (pandas, polars or pyarrow; any object with \
             __arrow_c_stream__) or a data file path, found {}",
            obj.get_type().name()?
        )));
    }
    let (schema, batches) = import_stream(obj)?;
    Ok(Source::Arrow {
        label: label.to_string(),
        fields: schema.fields().iter().map(|f| f.name().clone()).collect(),
        batches,
    })
}

fn schema_arg(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<SchemaArg>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    if let Ok(p) = obj.extract::<PathBuf>() {
        return Ok(Some(SchemaArg::File(p)));
    }
    let Ok(d) = obj.cast::<PyDict>() else {
        return Err(PyTypeError::new_err(
            "schema: expected a dict (column → type, role or {type, role, categories, missing, \
             separator}) or the path of a schema TOML file",
        ));
    };
    // A word is a type or a role; a dict is a column specification as in a schema file.
    let mut columns = toml::Table::new();
    for (name, spec) in convert::table(d, "schema")? {
        let spec = match spec {
            toml::Value::String(w) if w.parse::<Kind>().is_ok() => {
                toml::Table::from_iter([("type".to_string(), toml::Value::String(w))])
            }
            toml::Value::String(w) => {
                toml::Table::from_iter([("role".to_string(), toml::Value::String(w))])
            }
            toml::Value::Table(t) => t,
            other => {
                return Err(IntruderError::new_err(format!(
                    "schema.{name}: expected a type, a role or a table, found {other}"
                )));
            }
        };
        columns.insert(name, toml::Value::Table(spec));
    }
    let doc = toml::Table::from_iter([("columns".to_string(), toml::Value::Table(columns))]);
    Schema::from_toml(&doc.to_string(), Path::new("schema"))
        .map(|s| Some(SchemaArg::Parsed(s)))
        .map_err(|e| IntruderError::new_err(e.to_string()))
}

impl Source {
    /// The names, kinds and roles of the columns when only roles are known (kinds are those the
    /// schema declares, else categorical): for filling role defaults before reading.
    fn read_spec(
        &self,
        schema: &Option<SchemaArg>,
        roles: &[(String, Role)],
    ) -> Result<Option<arrow_in::ReadSpec>> {
        let Source::Arrow { label, .. } = self else {
            return Ok(None);
        };
        let schema = match schema {
            Some(SchemaArg::File(p)) => Some(Schema::from_file(p)?),
            Some(SchemaArg::Parsed(s)) => Some(s.clone()),
            None => None,
        };
        Ok(Some(arrow_in::ReadSpec {
            label: label.clone(),
            schema,
            roles: roles.to_vec(),
            keys_as_codes: false,
            // A parameter naming an absent column is reported by the parameter check, every
            // one at once with its parameter (the truth is checked here).
            optional_roles: true,
        }))
    }

    /// Reads the table: every column, or only those named (Arrow sources). The column set
    /// returned lists every column of the source.
    fn load(
        &self,
        schema: &Option<SchemaArg>,
        roles: &[(String, Role)],
        only: Option<&[String]>,
    ) -> Result<(Dataset, ColumnSet)> {
        self.load_as(schema, roles, only, false)
    }

    /// [`Source::load`]; with `keys_as_codes`, key columns of an Arrow source whose type is
    /// not declared are read as categorical codes (for methods that only count or match keys;
    /// see [`arrow_in::ReadSpec::keys_as_codes`]).
    fn load_as(
        &self,
        schema: &Option<SchemaArg>,
        roles: &[(String, Role)],
        only: Option<&[String]>,
        keys_as_codes: bool,
    ) -> Result<(Dataset, ColumnSet)> {
        match self {
            Source::File(path) => {
                let ds = read_csv(path, &file_options(path, schema, roles)?)?;
                let set = ds.column_set();
                Ok((ds, set))
            }
            Source::Arrow {
                label,
                fields,
                batches,
            } => {
                let spec = arrow_in::ReadSpec {
                    keys_as_codes,
                    ..self
                        .read_spec(schema, roles)?
                        .expect("an Arrow source has a read spec")
                };
                let specs = arrow_in::specs(fields, &spec)?;
                let columns = arrow_in::columns(&spec, fields, &specs, batches, only)?;
                let set = ColumnSet {
                    file: label.clone(),
                    columns: fields
                        .iter()
                        .zip(&specs)
                        .map(|(n, s)| {
                            let kind = columns
                                .iter()
                                .find(|c| c.name() == n)
                                .map_or(s.kind.unwrap_or(Kind::Categorical), |c| c.kind());
                            (n.clone(), kind, s.role.unwrap_or(Role::Other))
                        })
                        .collect(),
                    first_not_number: Vec::new(),
                    levels: Vec::new(),
                };
                let ds = Dataset::split_truth(PathBuf::from(label), columns)?;
                Ok((ds, set))
            }
        }
    }

    /// The columns with their declared roles, before reading any value (Arrow sources).
    fn roles_only(
        &self,
        schema: &Option<SchemaArg>,
        roles: &[(String, Role)],
    ) -> Result<Option<ColumnSet>> {
        let Some(spec) = self.read_spec(schema, roles)? else {
            return Ok(None);
        };
        let Source::Arrow { label, fields, .. } = self else {
            return Ok(None);
        };
        let specs = arrow_in::specs(fields, &spec)?;
        Ok(Some(ColumnSet {
            file: label.clone(),
            columns: fields
                .iter()
                .zip(&specs)
                .map(|(n, s)| {
                    (
                        n.clone(),
                        s.kind.unwrap_or(Kind::Categorical),
                        s.role.unwrap_or(Role::Other),
                    )
                })
                .collect(),
            first_not_number: Vec::new(),
            levels: Vec::new(),
        }))
    }

    fn label(&self) -> String {
        match self {
            Source::Arrow { label, .. } => label.clone(),
            Source::File(p) => p.display().to_string(),
        }
    }
}

/// Every column named by a column parameter of `specs` in `table`.
fn named_columns(table: &toml::Table, specs: &[&[ParamSpec]]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in specs.iter().flat_map(|s| s.iter()) {
        if !s.kind.is_column() {
            continue;
        }
        for key in std::iter::once(&s.name).chain(s.aliases) {
            match table.get(*key) {
                Some(toml::Value::String(v)) => out.push(v.clone()),
                Some(toml::Value::Array(a)) => {
                    out.extend(a.iter().filter_map(|v| v.as_str().map(str::to_string)))
                }
                _ => {}
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn table_of(ds: &Dataset) -> Result<ArrowTable> {
    let cols = ds.all_columns();
    Ok(ArrowTable::new(arrow_out::columns_batch(
        cols,
        ds.table.nrows(),
    )?))
}

fn json_text(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

fn warnings_text(w: &[Problem]) -> Vec<String> {
    w.iter().map(ToString::to_string).collect()
}

fn params_table(params: Option<&Bound<'_, PyDict>>) -> PyResult<toml::Table> {
    match params {
        Some(d) => convert::table(d, ""),
        None => Ok(toml::Table::new()),
    }
}

// ---------------------------------------------------------------------------------------------
// methods()

/// The methods of a family as JSON (name, summary, reference, parameters): the facade's
/// listing, the one `--list` and the web page read.
#[pyfunction]
fn methods(family: &str) -> PyResult<String> {
    intruder::methods::listing(family)
        .map(|v| json_text(&v))
        .map_err(|e| IntruderError::new_err(e.to_string()))
}

// ---------------------------------------------------------------------------------------------
// risk()

type RiskOut = (String, Option<ArrowTable>, Vec<String>);

fn risk_impl(
    src: &Source,
    mut table: toml::Table,
    schema: &Option<SchemaArg>,
    per_record: bool,
) -> Result<RiskOut> {
    use intruder_risk::{RISK_COMMON, RISK_MEASURES, fill_roles};
    let engine = intruder_engine::EngineSpec::take_from(&mut table)?;
    if per_record && !engine.engine.is_local() {
        bail!(
            "per_record runs on the local engine only (engine = {})",
            engine.engine
        );
    }
    let roles = intruder::risk::roles_named(&table);
    if let (Source::File(path), true) = (src, engine.engine.is_local()) {
        // The read (a file's key columns alone when they suffice, else its table) is the
        // facade's, as for the command line.
        let run = intruder::risk::measure_file(
            path,
            &file_options(path, schema, &roles)?,
            &mut table,
            per_record,
            (intruder::Surface::Python, "intruder.risk()"),
            &mut intruder_data::Timings::new(),
        )?;
        let records = match per_record {
            true => Some(ArrowTable::new(arrow_out::records_batch(
                &run.outcome.records,
            )?)),
            false => None,
        };
        let mut warned = run.notes;
        warned.extend(warnings_text(&run.warnings));
        warned.extend(run.outcome.warnings.iter().cloned());
        return Ok((json_text(&run.outcome.report.to_json()), records, warned));
    }
    if !per_record
        && engine.engine.is_local()
        && let Some(out) = risk_from_codes(src, &table, schema, &roles)?
    {
        return Ok(out);
    }
    // Only the columns the measure reads are converted.
    let only = match src.roles_only(schema, &roles)? {
        Some(set) => {
            let mut filled = table.clone();
            fill_roles(&mut filled, &set);
            let mut specs: Vec<&[ParamSpec]> = vec![RISK_COMMON];
            specs.extend(RISK_MEASURES.iter().map(|e| e.params));
            Some(named_columns(&filled, &specs))
        }
        None => None,
    };
    // Risk measures only count and match the keys: read them as codes.
    let (ds, columns) = src.load_as(schema, &roles, only.as_deref(), true)?;
    let built = intruder::risk::configure(
        &mut table,
        &columns,
        intruder::Surface::Python,
        "intruder.risk()",
        &src.label(),
    )?;
    let outcome = match engine.engine.is_local() {
        true => built.method.assess(&ds.table, per_record)?,
        false => intruder_engine::risk_table(&engine, &ds.table, built.method.as_ref())?,
    };
    let records = if per_record {
        Some(ArrowTable::new(arrow_out::records_batch(&outcome.records)?))
    } else {
        None
    };
    // Every warning of the command line: the reader's notes, deprecated names, the inputs'
    // (weights below 1, a weight total far from the population size).
    let mut warned = ds.notes.clone();
    warned.extend(warnings_text(&built.warnings));
    warned.extend(outcome.warnings.iter().cloned());
    Ok((json_text(&outcome.report.to_json()), records, warned))
}

/// [`risk_impl`] without a table, when the measure needs only the key codes
/// ([`intruder_risk::RiskMeasure::parts_suffice`]) and every key of an Arrow source has them
/// ([`arrow_in::key_sources`]): the classes are counted straight from the Arrow arrays (a
/// dictionary's keys, integers), with 8 bytes per record and no copy of any column; wildcard
/// matching copies the codes into one array per key, still without a table. `None` when the
/// table must be read (then every error is the general path's).
fn risk_from_codes(
    src: &Source,
    table: &toml::Table,
    schema: &Option<SchemaArg>,
    roles: &[(String, Role)],
) -> Result<Option<RiskOut>> {
    use intruder_data::keys::OnePart;
    use intruder_risk::{CodeSource, configure_for_parts};
    let Source::Arrow {
        label,
        fields,
        batches,
    } = src
    else {
        return Ok(None);
    };
    let (Some(set), Some(spec)) = (
        src.roles_only(schema, roles)?,
        src.read_spec(schema, roles)?,
    ) else {
        return Ok(None);
    };
    let Some(built) = configure_for_parts(table, &set) else {
        return Ok(None);
    };
    let spec = arrow_in::ReadSpec {
        keys_as_codes: true,
        ..spec
    };
    let specs = arrow_in::specs(fields, &spec)?;
    let Some(sources) = arrow_in::key_sources(&spec, fields, &specs, batches, built.method.keys())?
    else {
        return Ok(None);
    };
    let refs: Vec<&dyn CodeSource> = sources
        .iter()
        .map(|s| s.as_ref() as &dyn CodeSource)
        .collect();
    let outcome = if built.method.codes_suffice() {
        built.method.assess_codes(&refs, label)
    } else {
        let Some(whole) = OnePart::new(&refs) else {
            return Ok(None);
        };
        let mut timings = intruder_data::Timings::new();
        built.method.assess_parts(&whole, label, &mut timings)
    };
    let Some(outcome) = outcome else {
        return Ok(None);
    };
    let outcome = outcome?;
    let mut warned = warnings_text(&built.warnings);
    warned.extend(outcome.warnings.iter().cloned());
    Ok(Some((json_text(&outcome.report.to_json()), None, warned)))
}

/// Risk measures of one table: (summary JSON, per-record table, warnings).
#[pyfunction]
#[pyo3(signature = (data, params=None, schema=None, per_record=false))]
fn risk(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    params: Option<&Bound<'_, PyDict>>,
    schema: Option<&Bound<'_, PyAny>>,
    per_record: bool,
) -> PyResult<RiskOut> {
    let src = source(data, "data")?;
    let table = params_table(params)?;
    let schema = schema_arg(schema)?;
    let out = py.detach(|| risk_impl(&src, table, &schema, per_record));
    drop(src);
    out.map_err(to_py)
}

// ---------------------------------------------------------------------------------------------
// mask()

type MaskOut = (ArrowTable, String, Vec<String>);

fn mask_impl(
    src: &Source,
    steps: Vec<toml::Table>,
    seed: u64,
    schema: &Option<SchemaArg>,
    check: bool,
    check_keys: Option<Vec<String>>,
) -> Result<MaskOut> {
    use intruder::mask::{Check, mask, pipeline_of_steps, pipeline_of_steps_on};
    // Steps that a Parquet file's columns, read from its footer, refuse are refused before the
    // table is read, as `intruder mask` does.
    if let Source::File(p) = src
        && let Some(file) = ColumnarFile::open(p, &file_options(p, schema, &[])?)
    {
        pipeline_of_steps_on(&steps, &file.columns(), "intruder.mask() steps")?;
    }
    let (ds, _) = src.load(schema, &[], None)?;
    let label = src.label();
    let pipeline = pipeline_of_steps(&steps, &ds.table, &label, "intruder.mask() steps")?;
    let mut warned = ds.notes.clone();
    warned.extend(warnings_text(pipeline.warnings()));
    // Every promise of the pipeline, cross-examined by the exact attack (as `intruder mask`).
    let check = match check {
        true => Check::On {
            keys: check_keys.as_deref(),
        },
        false => Check::Off,
    };
    let masked = mask(
        ds,
        &pipeline,
        seed,
        check,
        &label,
        &mut intruder_data::Timings::new(),
    )?;
    // One flat object: the change log's figures (rows, cells, suppressions, kept_rows as
    // 1-based record numbers, steps) beside the tool, the seed, the pipeline and the
    // cross-examination (Python warns with its warnings by kind).
    Ok((
        table_of(&masked.dataset)?,
        json_text(&masked.log_flat_json()),
        warned,
    ))
}

/// A pipeline of defences: (masked table, change log JSON, warnings).
#[pyfunction]
#[pyo3(signature = (data, steps, seed, schema=None, check=true, check_keys=None))]
fn mask(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    steps: &Bound<'_, PyList>,
    seed: u64,
    schema: Option<&Bound<'_, PyAny>>,
    check: bool,
    check_keys: Option<Vec<String>>,
) -> PyResult<MaskOut> {
    let src = source(data, "data")?;
    let mut tables = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let d = s.cast::<PyDict>().map_err(|_| {
            PyTypeError::new_err(format!(
                "steps[{}]: expected a dict such as {{\"method\": \"local-suppression\", \"k\": 3}}",
                i
            ))
        })?;
        tables.push(convert::table(d, &format!("step[{}]", i + 1))?);
    }
    let schema = schema_arg(schema)?;
    let out = py.detach(|| mask_impl(&src, tables, seed, &schema, check, check_keys));
    drop(src);
    out.map_err(to_py)
}

// ---------------------------------------------------------------------------------------------
// attack()

type AttackOut = (String, ArrowTable, ArrowTable, Vec<String>);

fn candidates_batch(linkage: &intruder_attack::Linkage) -> Result<RecordBatch> {
    let (mut irow, mut rrow, mut rank, mut score) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (i, cands) in linkage.records.iter().enumerate() {
        for c in &cands.list {
            irow.push(i as i64 + 1);
            rrow.push(c.row as i64 + 1);
            rank.push(c.rank);
            score.push((!c.score.is_nan()).then_some(c.score));
        }
    }
    let fields = vec![
        Field::new("intruder_row", DataType::Int64, false),
        Field::new("released_row", DataType::Int64, false),
        Field::new("rank", DataType::UInt32, false),
        Field::new("score", DataType::Float64, true),
    ];
    let n = irow.len();
    let arrays: Vec<ArrayRef> = vec![
        Arc::new(Int64Array::from(irow)),
        Arc::new(Int64Array::from(rrow)),
        Arc::new(UInt32Array::from(rank)),
        Arc::new(score.into_iter().collect::<Float64Array>()),
    ];
    Ok(arrow_out::batch(fields, arrays, n)?)
}

fn evaluation_batch(ev: &intruder_eval::Evaluation) -> Result<RecordBatch> {
    let r = &ev.records;
    let one = |v: Option<usize>| v.map(|x| x as i64 + 1);
    let fields = vec![
        Field::new("intruder_row", DataType::Int64, false),
        Field::new("twin_row", DataType::Int64, true),
        Field::new("candidates", DataType::Int64, false),
        Field::new("best_ties", DataType::Int64, false),
        Field::new("best_score", DataType::Float64, true),
        Field::new("chosen_row", DataType::Int64, true),
        Field::new("correct", DataType::Boolean, false),
        Field::new("twin_rank", DataType::UInt32, true),
        Field::new("p", DataType::Float64, true),
        Field::new("r", DataType::Float64, true),
    ];
    let arrays: Vec<ArrayRef> = vec![
        Arc::new(
            r.iter()
                .map(|x| x.intruder_row as i64 + 1)
                .collect::<Int64Array>(),
        ),
        Arc::new(r.iter().map(|x| one(x.twin_row)).collect::<Int64Array>()),
        Arc::new(
            r.iter()
                .map(|x| x.candidates as i64)
                .collect::<Int64Array>(),
        ),
        Arc::new(r.iter().map(|x| x.best_ties as i64).collect::<Int64Array>()),
        Arc::new(
            r.iter()
                .map(|x| (!x.best_score.is_nan()).then_some(x.best_score))
                .collect::<Float64Array>(),
        ),
        Arc::new(r.iter().map(|x| one(x.chosen_row)).collect::<Int64Array>()),
        Arc::new(r.iter().map(|x| Some(x.correct)).collect::<BooleanArray>()),
        Arc::new(r.iter().map(|x| x.twin_rank).collect::<UInt32Array>()),
        Arc::new(r.iter().map(|x| x.p).collect::<Float64Array>()),
        Arc::new(r.iter().map(|x| x.r).collect::<Float64Array>()),
    ];
    Ok(arrow_out::batch(fields, arrays, r.len())?)
}

/// A file source's path and read options, borrowed.
fn side(f: &Option<(PathBuf, ReadOptions)>) -> Option<(&Path, &ReadOptions)> {
    f.as_ref().map(|(p, o)| (p.as_path(), o))
}

/// How an engine reads a file whose schema is a file or beside it (`None` for a schema given
/// as a dict, which an engine cannot read: such tables reach it as temporary copies).
fn engine_input(schema: &Option<SchemaArg>) -> Option<Input> {
    match schema {
        Some(SchemaArg::File(p)) => Some(Input {
            schema: Some(p.clone()),
            ..Input::default()
        }),
        None => Some(Input::default()),
        Some(SchemaArg::Parsed(_)) => None,
    }
}

/// A file read with its options and a selection of columns ([`intruder_data::Select`]).
fn read_selected(path: &Path, options: &ReadOptions, select: Select) -> Result<Dataset> {
    let options = ReadOptions {
        select: Some(select),
        ..options.clone()
    };
    Ok(read_csv(path, &options)?)
}

fn attack_impl(
    (isrc, ischema): (&Source, &Option<SchemaArg>),
    (rsrc, rschema): (&Source, &Option<SchemaArg>),
    mut params: toml::Table,
    truth: TruthNames,
    seed: u64,
) -> Result<AttackOut> {
    use intruder::attack::{
        AttackRequest, Placement, attack, check_keys_before_reading, configure,
    };
    let engine = intruder_engine::EngineSpec::take_from(&mut params)?;
    if !params.contains_key("method") {
        params.insert("method".into(), "exact".into());
    }
    let surface_name = "intruder.attack()";
    let configured = configure(&params, surface_name)?;
    // Truth columns named by the caller are read as ground truth (never seen by an attack).
    let as_truth = |names: Vec<String>| -> Vec<(String, Role)> {
        names.into_iter().map(|n| (n, Role::Truth)).collect()
    };
    let roles = (
        as_truth(truth.intruder_columns()),
        as_truth(truth.released_columns()),
    );
    let file = |src: &Source, schema: &Option<SchemaArg>, roles: &[(String, Role)]| match src {
        Source::File(p) => {
            Ok::<_, anyhow::Error>(Some((p.clone(), file_options(p, schema, roles)?)))
        }
        Source::Arrow { .. } => Ok(None),
    };
    let files = (
        file(isrc, ischema, &roles.0)?,
        file(rsrc, rschema, &roles.1)?,
    );
    check_keys_before_reading(&configured, [side(&files.0), side(&files.1)], surface_name)?;
    // Two files on another engine: the engine reads them itself, and this side only what it
    // scores with, as the command line does (docs/cluster.md, "What the command line reads").
    let engine_files = match (isrc, rsrc) {
        (Source::File(i), Source::File(r)) if !engine.engine.is_local() => engine_input(ischema)
            .zip(engine_input(rschema))
            .map(|(ii, ri)| [(i, ii), (r, ri)]),
        _ => None,
    };
    let selection = engine_files
        .as_ref()
        .and_then(|_| intruder::attack::engine_selection(&configured, &truth, false));
    let (intruder, released) = match (selection, &files) {
        (Some([si, sr]), (Some((ip, io)), Some((rp, ro)))) => {
            (read_selected(ip, io, si)?, read_selected(rp, ro, sr)?)
        }
        _ => (
            isrc.load(ischema, &roles.0, None)?.0,
            rsrc.load(rschema, &roles.1, None)?.0,
        ),
    };
    let mut warnings: Vec<String> = intruder
        .notes
        .iter()
        .chain(&released.notes)
        .cloned()
        .collect();
    let (intruder, released) = (
        Labelled::from_dataset(intruder),
        Labelled::from_dataset(released),
    );
    let request = AttackRequest {
        params,
        configured,
        truth,
        seed,
        placement: match &engine_files {
            Some([(ip, ii), (rp, ri)]) => Placement::Engine {
                spec: engine,
                files: Some([(ip.as_path(), ii), (rp.as_path(), ri)]),
            },
            None => Placement::of(Some(engine)),
        },
        surface: intruder::Surface::Python,
        surface_name,
        intruder_label: isrc.label(),
    };
    let run = attack(
        request,
        &intruder,
        &released,
        &mut intruder_data::Timings::new(),
    )?;
    warnings.extend(warnings_text(&run.configured.warnings));
    // The evaluator's warnings about the inputs, as `intruder attack` prints them.
    warnings.extend(run.evaluation.warnings.iter().cloned());
    let mut report = run.report(String::new())?;
    report
        .details
        .insert("version".into(), Value::from(env!("CARGO_PKG_VERSION")));
    Ok((
        json_text(&report.to_json()),
        ArrowTable::new(candidates_batch(&run.linkage)?),
        ArrowTable::new(evaluation_batch(&run.evaluation)?),
        warnings,
    ))
}

/// Links an intruder's table to a released one and scores it: (evaluation JSON, candidates,
/// per-record evaluation, warnings).
#[pyfunction]
#[pyo3(signature = (intruder, released, params=None, truth=None, truth_intruder=None,
    truth_released=None, sensitive_truth=None, seed=0, intruder_schema=None,
    released_schema=None))]
#[allow(clippy::too_many_arguments)]
fn attack(
    py: Python<'_>,
    intruder: &Bound<'_, PyAny>,
    released: &Bound<'_, PyAny>,
    params: Option<&Bound<'_, PyDict>>,
    truth: Option<String>,
    truth_intruder: Option<String>,
    truth_released: Option<String>,
    sensitive_truth: Option<String>,
    seed: u64,
    intruder_schema: Option<&Bound<'_, PyAny>>,
    released_schema: Option<&Bound<'_, PyAny>>,
) -> PyResult<AttackOut> {
    let truth = TruthNames {
        truth,
        truth_intruder,
        truth_released,
        sensitive_truth,
    };
    truth.check(intruder::Surface::Python).map_err(to_py)?;
    let isrc = source(intruder, "intruder")?;
    let rsrc = source(released, "released")?;
    let table = params_table(params)?;
    let ischema = schema_arg(intruder_schema)?;
    let rschema = schema_arg(released_schema)?;
    let out = py.detach(|| attack_impl((&isrc, &ischema), (&rsrc, &rschema), table, truth, seed));
    drop((isrc, rsrc));
    out.map_err(to_py)
}

// ---------------------------------------------------------------------------------------------
// attack(..., method="singling-out" | "linkability" | "inference", control=...)

fn question_impl(
    question: intruder::questions::Question,
    [osrc, csrc, rsrc]: [&Source; 3],
    [oschema, cschema, rschema]: [&Option<SchemaArg>; 3],
    table: toml::Table,
    seed: u64,
) -> Result<(String, Vec<String>)> {
    let (original, _) = osrc.load(oschema, &[], None)?;
    let (control, _) = csrc.load(cschema, &[], None)?;
    let (released, _) = rsrc.load(rschema, &[], None)?;
    let mut warned: Vec<String> = [&original, &control, &released]
        .iter()
        .flat_map(|d| d.notes.iter().cloned())
        .collect();
    let answer = intruder::questions::ask(
        question,
        &table,
        "intruder.attack()",
        (&original.table, &control.table, &released.table),
        seed,
    )?;
    warned.extend(answer.warnings().iter().cloned());
    let mut report = answer.report(String::new());
    report
        .details
        .insert("version".into(), Value::from(env!("CARGO_PKG_VERSION")));
    Ok((json_text(&report.to_json()), warned))
}

/// One of the three questions (singling out, linkability, inference): (report JSON, warnings).
#[pyfunction]
#[pyo3(signature = (original, control, released, method, params=None, seed=0,
    original_schema=None, control_schema=None, released_schema=None))]
#[allow(clippy::too_many_arguments)]
fn question(
    py: Python<'_>,
    original: &Bound<'_, PyAny>,
    control: &Bound<'_, PyAny>,
    released: &Bound<'_, PyAny>,
    method: &str,
    params: Option<&Bound<'_, PyDict>>,
    seed: u64,
    original_schema: Option<&Bound<'_, PyAny>>,
    control_schema: Option<&Bound<'_, PyAny>>,
    released_schema: Option<&Bound<'_, PyAny>>,
) -> PyResult<(String, Vec<String>)> {
    let Some(question) = intruder::questions::Question::named(method) else {
        return Err(IntruderError::new_err(format!(
            "'{method}' is not a question without truth (singling-out, linkability, inference, membership, dcr)"
        )));
    };
    let sources = [
        source(original, "original")?,
        source(control, "control")?,
        source(released, "released")?,
    ];
    let schemas = [
        schema_arg(original_schema)?,
        schema_arg(control_schema)?,
        schema_arg(released_schema)?,
    ];
    let table = params_table(params)?;
    let out = py.detach(|| {
        question_impl(
            question,
            [&sources[0], &sources[1], &sources[2]],
            [&schemas[0], &schemas[1], &schemas[2]],
            table,
            seed,
        )
    });
    drop(sources);
    out.map_err(to_py)
}

// ---------------------------------------------------------------------------------------------
// utility()

fn utility_impl(
    osrc: &Source,
    msrc: &Source,
    table: toml::Table,
    names: Vec<String>,
    log: Option<Value>,
    schema: &Option<SchemaArg>,
) -> Result<(String, Vec<String>)> {
    use intruder::utility::{LogInput, UtilityRequest, utility};
    let (original, _) = osrc.load(schema, &[], None)?;
    let (masked, _) = msrc.load(schema, &[], None)?;
    let mut warned: Vec<String> = original.notes.clone();
    warned.extend(masked.notes.iter().cloned());
    let request = UtilityRequest {
        params: table,
        measures: names,
        log: log.map(|value| LogInput {
            value,
            label: "log".into(),
        }),
        surface: intruder::Surface::Python,
        surface_name: "intruder.utility()",
        original_label: osrc.label(),
    };
    let run = utility(
        &original.table,
        &masked.table,
        request,
        &mut intruder_data::Timings::new(),
    )?;
    warned.extend(run.left_out.iter().cloned());
    warned.extend(warnings_text(&run.warnings));
    let mut report = run.report;
    report
        .details
        .insert("measures".into(), json!(run.measures));
    Ok((json_text(&report.to_json()), warned))
}

/// What masking cost: (report JSON, warnings).
#[pyfunction]
#[pyo3(signature = (original, masked, params=None, measures=None, log=None, schema=None))]
fn utility(
    py: Python<'_>,
    original: &Bound<'_, PyAny>,
    masked: &Bound<'_, PyAny>,
    params: Option<&Bound<'_, PyDict>>,
    measures: Option<Vec<String>>,
    log: Option<String>,
    schema: Option<&Bound<'_, PyAny>>,
) -> PyResult<(String, Vec<String>)> {
    let osrc = source(original, "original")?;
    let msrc = source(masked, "masked")?;
    let table = params_table(params)?;
    let schema = schema_arg(schema)?;
    let log = match log {
        Some(text) => Some(
            serde_json::from_str::<Value>(&text)
                .map_err(|e| IntruderError::new_err(format!("log: not JSON: {e}")))?,
        ),
        None => None,
    };
    let out = py.detach(|| {
        utility_impl(
            &osrc,
            &msrc,
            table,
            measures.unwrap_or_default(),
            log,
            &schema,
        )
    });
    drop((osrc, msrc));
    out.map_err(to_py)
}

// ---------------------------------------------------------------------------------------------
// synth()

type SynthOut = (Vec<(String, ArrowTable)>, String);

fn synth_impl(name: &str, n: Option<u64>, seed: u64, table: toml::Table) -> Result<SynthOut> {
    let generator = intruder_synth::configure(name, n, &table, "").map_err(|e| anyhow!("{e}"))?;
    // The generators stream to files (they are built for 10^7 rows); they are read back from a
    // temporary directory that is removed at once.
    let dir = tempfile::tempdir().context("creating a temporary directory")?;
    let out = dir.path().join(name);
    let files = generator
        .generate(seed, &out)
        .with_context(|| format!("generating {name}"))?;
    let mut tables = Vec::new();
    for f in files {
        let fname = f
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(stem) = fname
            .strip_suffix(".csv.gz")
            .or_else(|| fname.strip_suffix(".csv"))
        else {
            continue;
        };
        let ds = intruder_data::load(&f, &Input::default())?;
        tables.push((stem.to_string(), table_of(&ds)?));
    }
    Ok((tables, generator.params().describe()))
}

/// A synthetic data set: ([(file stem, table)], parameters as text).
#[pyfunction]
#[pyo3(signature = (name, n=None, seed=1, params=None))]
fn synth(
    py: Python<'_>,
    name: &str,
    n: Option<u64>,
    seed: u64,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<SynthOut> {
    let table = params_table(params)?;
    py.detach(|| synth_impl(name, n, seed, table))
        .map_err(to_py)
}

// ---------------------------------------------------------------------------------------------
// run()

type RunOut = (String, Option<ArrowTable>, Vec<String>, usize, usize);

fn run_impl(
    path: &Path,
    out: Option<PathBuf>,
    threads: Option<usize>,
    force: bool,
    size: Option<&str>,
) -> Result<RunOut> {
    use intruder_runner::{Experiment, Plan, RunOptions, default_out, run_experiment};
    let mut exp = Experiment::from_file(path)?;
    // `intruder run --tiny` / `--paper`: the file's [tiny] or [paper] sizes.
    match size {
        None => {}
        Some("tiny") => {
            let t = exp.tiny.clone();
            exp.resize(&t);
        }
        Some("paper") => {
            let t = exp.paper.clone();
            exp.resize(&t);
        }
        Some(other) => bail!("size: expected \"tiny\" or \"paper\", found \"{other}\""),
    }
    let mut warnings: Vec<String> = exp
        .warnings
        .iter()
        .map(|w| format!("{}: {w}", path.display()))
        .collect();
    if threads == Some(0) {
        bail!("threads: expected at least 1");
    }
    // Checks the plan before running; the data's fingerprint only names runs, so none is needed.
    Plan::new(&exp, "").map_err(anyhow::Error::msg)?;
    let out = out.unwrap_or_else(|| default_out(&exp));
    let done = run_experiment(
        &exp,
        &RunOptions {
            out: Some(out),
            force,
            threads,
            progress: false,
        },
    )
    .with_context(|| format!("running {}", path.display()))?;
    warnings.extend(
        done.warnings
            .iter()
            .map(|w| format!("{}: {w}", path.display())),
    );
    if !done.failed.failed.is_empty() {
        bail!(
            "{} of {} runs failed; the reports in {} cover the others and list the failures:\n{}",
            done.failed.failed.len(),
            done.plan.runs.len(),
            done.out_dir.display(),
            done.failed.failure_text(done.plan.runs.len())
        );
    }
    let results = done.out_dir.join("results.csv");
    let table = if results.is_file() {
        Some(table_of(&intruder_data::load(
            &results,
            &Input::default(),
        )?)?)
    } else {
        None
    };
    Ok((
        done.out_dir.display().to_string(),
        table,
        warnings,
        done.executed,
        done.plan.runs.len(),
    ))
}

/// Runs an experiment file: (output directory, results table, warnings, runs executed, runs).
#[pyfunction]
#[pyo3(signature = (path, out=None, threads=None, force=false, size=None))]
fn run(
    py: Python<'_>,
    path: PathBuf,
    out: Option<PathBuf>,
    threads: Option<usize>,
    force: bool,
    size: Option<String>,
) -> PyResult<RunOut> {
    py.detach(|| run_impl(&path, out, threads, force, size.as_deref()))
        .map_err(to_py)
}

/// Reads a table as the toolkit sees it and gives it back (types inferred or declared, roles,
/// missing cells): what every function reads from `data`.
#[pyfunction]
#[pyo3(signature = (data, schema=None))]
fn read(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    schema: Option<&Bound<'_, PyAny>>,
) -> PyResult<(ArrowTable, String)> {
    let src = source(data, "data")?;
    let schema = schema_arg(schema)?;
    let out = py.detach(|| -> Result<(ArrowTable, String)> {
        let (ds, _) = src.load(&schema, &[], None)?;
        Ok((table_of(&ds)?, ds.schema().to_toml()))
    });
    drop(src);
    out.map_err(to_py)
}

#[pymodule]
fn _intruder(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("IntruderError", m.py().get_type::<IntruderError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<ArrowTable>()?;
    m.add_function(wrap_pyfunction!(methods, m)?)?;
    m.add_function(wrap_pyfunction!(risk, m)?)?;
    m.add_function(wrap_pyfunction!(mask, m)?)?;
    m.add_function(wrap_pyfunction!(attack, m)?)?;
    m.add_function(wrap_pyfunction!(question, m)?)?;
    m.add_function(wrap_pyfunction!(utility, m)?)?;
    m.add_function(wrap_pyfunction!(synth, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(read, m)?)?;
    Ok(())
}
