//! The toolkit's functions as DataFusion scalar UDFs, where SQL has no equivalent: each calls
//! the toolkit's own function, so a plan computes what the local engine computes. A Ballista
//! cluster resolves them by name: the project's scheduler and executor binaries register the
//! same list ([`all`]).

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, Float64Array, Int64Array};
use datafusion::arrow::datatypes::DataType;
use datafusion::error::DataFusionError;
use datafusion::logical_expr::{ColumnarValue, ScalarUDF, Volatility, create_udf};
use datafusion::prelude::SessionContext;

/// The name of [`individual_risk`] in plans.
pub const INDIVIDUAL_RISK: &str = "intruder_individual_risk";

/// `intruder_individual_risk(f_k BIGINT, F_k DOUBLE) -> DOUBLE`: Benedetti–Franconi's
/// individual risk as sdcMicro's `indivRisk` ([`intruder_risk::measures::individual_risk`]);
/// null where either input is null.
pub fn individual_risk() -> ScalarUDF {
    create_udf(
        INDIVIDUAL_RISK,
        vec![DataType::Int64, DataType::Float64],
        DataType::Float64,
        Volatility::Immutable,
        Arc::new(|args: &[ColumnarValue]| {
            let arrays = ColumnarValue::values_to_arrays(args)?;
            let f = arrays[0]
                .as_any()
                .downcast_ref::<Int64Array>()
                .ok_or_else(|| DataFusionError::Internal("f_k is not BIGINT".into()))?;
            let big = arrays[1]
                .as_any()
                .downcast_ref::<Float64Array>()
                .ok_or_else(|| DataFusionError::Internal("F_k is not DOUBLE".into()))?;
            let out: Float64Array = (0..f.len())
                .map(|i| {
                    (f.is_valid(i) && big.is_valid(i)).then(|| {
                        let fk = u32::try_from(f.value(i)).unwrap_or(u32::MAX);
                        intruder_risk::measures::individual_risk(fk, big.value(i))
                    })
                })
                .collect();
            Ok(ColumnarValue::Array(Arc::new(out) as ArrayRef))
        }),
    )
}

/// Every function of the toolkit's plans.
pub fn all() -> Vec<Arc<ScalarUDF>> {
    vec![Arc::new(individual_risk())]
}

/// Registers [`all`] on `ctx`.
pub fn register(ctx: &SessionContext) {
    for f in all() {
        ctx.register_udf(f.as_ref().clone());
    }
}
