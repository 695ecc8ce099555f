//! Python values → the raw parameter tables every surface hands to the registries.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// A Python value as a TOML value: bool, int, float, str (and `os.PathLike`), lists and tuples,
/// dicts with string keys; numpy scalars through `__index__` / `__float__`. `None` is `None`
/// (the parameter is left out).
pub fn value(v: &Bound<'_, PyAny>, path: &str) -> PyResult<Option<toml::Value>> {
    if v.is_none() {
        return Ok(None);
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(Some(toml::Value::Boolean(v.extract::<bool>()?)));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(Some(toml::Value::Integer(v.extract::<i64>()?)));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(Some(toml::Value::Float(v.extract::<f64>()?)));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(Some(toml::Value::String(v.extract::<String>()?)));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        return Ok(Some(toml::Value::Table(table(d, path)?)));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut out = Vec::new();
        for (i, item) in v.try_iter()?.enumerate() {
            let item = item?;
            match value(&item, &format!("{path}[{i}]"))? {
                Some(x) => out.push(x),
                None => {
                    return Err(PyTypeError::new_err(format!(
                        "{path}[{i}]: None is not a value"
                    )));
                }
            }
        }
        return Ok(Some(toml::Value::Array(out)));
    }
    // os.PathLike, numpy scalars, numpy arrays and pandas Index objects.
    let py = v.py();
    let os = py.import("os")?;
    if v.is_instance(&os.getattr("PathLike")?)? {
        let s: String = os.call_method1("fspath", (v,))?.extract()?;
        return Ok(Some(toml::Value::String(s)));
    }
    if v.hasattr("__index__")? {
        return Ok(Some(toml::Value::Integer(
            v.call_method0("__index__")?.extract()?,
        )));
    }
    if v.hasattr("tolist")? {
        return value(&v.call_method0("tolist")?, path);
    }
    if v.hasattr("__float__")? {
        return Ok(Some(toml::Value::Float(
            v.call_method0("__float__")?.extract()?,
        )));
    }
    Err(PyTypeError::new_err(format!(
        "{path}: a {} cannot be a parameter value; expected a bool, number, string, list or dict",
        v.get_type().name()?
    )))
}

/// A dict with string keys as a TOML table (entries whose value is `None` are left out).
pub fn table(d: &Bound<'_, PyDict>, path: &str) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in d.iter() {
        let key: String = k.extract().map_err(|_| {
            PyTypeError::new_err(format!("{path}: parameter names are strings, found {k}"))
        })?;
        let at = if path.is_empty() {
            key.clone()
        } else {
            format!("{path}.{key}")
        };
        if let Some(x) = value(&v, &at)? {
            t.insert(key, x);
        }
    }
    Ok(t)
}
