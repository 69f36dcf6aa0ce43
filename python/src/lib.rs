//! The Python binding of agui-lint: `agui_lint._agui_lint`, re-exported by
//! the `agui_lint` package.
//!
//! Every check is the root crate's: this module only converts arguments and
//! results. A [`PyValidator`] holds one compiled [`Validator`] (shared, never
//! copied) and releases the GIL while it checks, so a server's threads check
//! requests in parallel.

mod findings;
mod input;
mod kit;
mod registry;
mod results;
mod stream;
mod validator;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use findings::{PyDiagnostic, PyRelated};
use kit::{scenario_names, PyKit};
use registry::{kinds, list_rules, PyRule};
use results::{CheckResult, StreamResult};
use stream::PyStreamChecker;
use validator::PyValidator;

/// A setting that is not valid, as Python's `ValueError`.
pub(crate) fn value_error(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// agui-lint's checks, from the Rust library.
#[pymodule]
fn _agui_lint(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyValidator>()?;
    m.add_class::<CheckResult>()?;
    m.add_class::<StreamResult>()?;
    m.add_class::<PyStreamChecker>()?;
    m.add_class::<PyDiagnostic>()?;
    m.add_class::<PyRelated>()?;
    m.add_class::<PyRule>()?;
    m.add_class::<PyKit>()?;
    m.add_function(wrap_pyfunction!(scenario_names, m)?)?;
    m.add_function(wrap_pyfunction!(list_rules, m)?)?;
    m.add_function(wrap_pyfunction!(kinds, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "PROTOCOLS",
        agui_lint::Protocol::ALL
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>(),
    )?;
    Ok(())
}
