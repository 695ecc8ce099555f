//! Functions that carry the run's state — Fellegi–Sunter's value dictionaries and model — and
//! the codecs that ship that state to a Ballista cluster.
//!
//! Ballista 55 sends a plan's functions by name: the scheduler and the executors look the name
//! up in their own registry ([`super::udf`]). A function that holds what one run computed on
//! the driver cannot be found that way. Such a function is a [`Shipped`]: besides its
//! evaluation it keeps a *payload* — the inputs it was built from, encoded — which the
//! codecs ([`LogicalCodec`] from client to scheduler, [`PhysicalCodec`] from scheduler to
//! executors) write into the plan beside the function's name (DataFusion's
//! `fun_definition`), and from which the receiving process builds the same function again
//! ([`rebuild`]). Everything else a plan holds is left to Ballista's own codecs.
//!
//! A process keeps the functions it rebuilt (the last four, by name and payload), so that the
//! tasks of one run share one function — and its memo of levels — rather than build it per
//! task.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::arrow::datatypes::DataType;
use datafusion::catalog::TableProvider;
use datafusion::common::TableReference;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{
    ColumnarValue, Extension, LogicalPlan, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::{PhysicalExtensionCodec, PhysicalProtoConverterExtension};

/// How a [`Shipped`] function computes its column from its arguments.
pub(crate) type Eval = dyn Fn(&[ColumnarValue]) -> Result<ColumnarValue> + Send + Sync;

/// A scalar function built from a payload, which travels with it to a cluster; see the
/// [module docs](self).
pub(crate) struct Shipped {
    name: String,
    signature: Signature,
    returns: DataType,
    payload: Arc<Vec<u8>>,
    /// A hash of `payload`: two functions of one name and payload compute the same.
    digest: u64,
    eval: Arc<Eval>,
}

impl Shipped {
    /// The function `name(args) -> returns` that `eval` computes, built from `payload`.
    pub(crate) fn udf(
        name: &str,
        args: Vec<DataType>,
        returns: DataType,
        payload: Vec<u8>,
        eval: Arc<Eval>,
    ) -> ScalarUDF {
        ScalarUDF::new_from_impl(Shipped {
            name: name.to_string(),
            signature: Signature::exact(args, Volatility::Immutable),
            returns,
            digest: digest(&payload),
            payload: Arc::new(payload),
            eval,
        })
    }
}

#[cfg(test)]
impl Shipped {
    /// The payload.
    pub(crate) fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// The return type.
    pub(crate) fn returns_type(&self) -> DataType {
        self.returns.clone()
    }
}

/// A stable hash of a payload (the same in every process).
fn digest(bytes: &[u8]) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

impl fmt::Debug for Shipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shipped")
            .field("name", &self.name)
            .field("payload_bytes", &self.payload.len())
            .field("digest", &self.digest)
            .finish()
    }
}

impl PartialEq for Shipped {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.digest == other.digest && self.payload == other.payload
    }
}

impl Eq for Shipped {}

impl Hash for Shipped {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.digest.hash(state);
    }
}

impl ScalarUDFImpl for Shipped {
    fn name(&self) -> &str {
        &self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _args: &[DataType]) -> Result<DataType> {
        Ok(self.returns.clone())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        (self.eval)(&args.args)
    }
}

/// The payload of `udf` when it is a [`Shipped`] function.
fn payload_of(udf: &ScalarUDF) -> Option<&[u8]> {
    udf.inner()
        .as_ref()
        .downcast_ref::<Shipped>()
        .map(|s| s.payload.as_slice())
}

/// Functions this process rebuilt, most recent last.
static REBUILT: Mutex<Vec<(String, u64, Arc<ScalarUDF>)>> = Mutex::new(Vec::new());

/// [`REBUILT`], locked. Its entries are whole functions, valid even if a thread panicked
/// while holding the lock: a poisoned lock is taken as it is, not a panic of every later task.
fn kept() -> std::sync::MutexGuard<'static, Vec<(String, u64, Arc<ScalarUDF>)>> {
    REBUILT.lock().unwrap_or_else(|p| p.into_inner())
}

/// Functions kept in [`REBUILT`]: a Fellegi–Sunter run's two (pattern and weight) for two runs
/// at once. A kept function holds its dictionaries and the levels it met (up to a few hundred
/// MB on a large linkage), which a long-lived executor would otherwise keep after its run.
const KEPT: usize = 4;

/// The function `name` built again from `payload` (or the one this process built from it
/// already).
pub(crate) fn rebuild(name: &str, payload: &[u8]) -> Result<Arc<ScalarUDF>> {
    let d = digest(payload);
    let found = |kept: &[(String, u64, Arc<ScalarUDF>)]| {
        kept.iter()
            .find(|(n, x, f)| n == name && *x == d && payload_of(f) == Some(payload))
            .map(|(_, _, f)| f.clone())
    };
    if let Some(f) = found(&kept()) {
        return Ok(f);
    }
    let f = Arc::new(match name {
        super::fs_functions::PATTERN | super::fs_functions::WEIGHT => {
            super::fs_functions::function_from_payload(name, payload)?
        }
        _ => {
            return Err(DataFusionError::Plan(format!(
                "function {name} arrived with a payload this build of the toolkit does not know (are the client, scheduler and executors one version?)"
            )));
        }
    });
    let mut kept = kept();
    if let Some(g) = found(&kept) {
        return Ok(g);
    }
    if kept.len() == KEPT {
        kept.remove(0);
    }
    kept.push((name.to_string(), d, f.clone()));
    Ok(f)
}

/// Writes the payload of a [`Shipped`] function (nothing for any other: it travels by name).
fn encode(udf: &ScalarUDF, buf: &mut Vec<u8>) {
    if let Some(p) = payload_of(udf) {
        buf.extend_from_slice(p);
    }
}

/// The function `name`: from its payload, else (a function sent by name) from the toolkit's
/// registry.
fn decode(name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
    if !buf.is_empty() {
        return rebuild(name, buf);
    }
    super::udf::all()
        .into_iter()
        .find(|f| f.name() == name)
        .ok_or_else(|| DataFusionError::Plan(format!("unknown function {name}")))
}

/// Ballista's logical codec (client → scheduler), with [`Shipped`] functions' payloads.
#[derive(Debug, Default)]
pub struct LogicalCodec {
    inner: BallistaLogicalExtensionCodec,
}

impl LogicalExtensionCodec for LogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: datafusion::arrow::datatypes::SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        self.inner
            .try_decode_table_provider(buf, table_ref, schema, ctx)
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        self.inner.try_encode_table_provider(table_ref, node, buf)
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn datafusion::datasource::file_format::FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn datafusion::datasource::file_format::FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        decode(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        encode(node, buf);
        Ok(())
    }
}

/// Ballista's physical codec (scheduler → executors), with [`Shipped`] functions' payloads.
#[derive(Debug, Default)]
pub struct PhysicalCodec {
    inner: BallistaPhysicalExtensionCodec,
}

impl PhysicalExtensionCodec for PhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.inner.try_decode(buf, inputs, ctx, proto_converter)
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        self.inner.try_encode(node, buf, proto_converter)
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        decode(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        encode(node, buf);
        Ok(())
    }
}

/// Both codecs, as the client, the scheduler and the executors install them.
pub fn codecs() -> (Arc<LogicalCodec>, Arc<PhysicalCodec>) {
    (
        Arc::new(LogicalCodec::default()),
        Arc::new(PhysicalCodec::default()),
    )
}
