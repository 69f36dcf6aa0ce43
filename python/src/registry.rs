//! `Rule`, the registry as Python lists it, and the kinds of document.

use agui_lint::{rules, Kind};
use pyo3::prelude::*;

/// A rule of the registry: its stable `name`, default `severity`, one-line
/// `summary`, Markdown `docs` (what it checks, why, an invalid and a valid
/// example) and the `protocols` whose documents it judges.
#[pyclass(frozen, name = "Rule", module = "agui_lint")]
pub(crate) struct PyRule {
    inner: rules::Rule,
}

#[pymethods]
impl PyRule {
    /// The stable kebab-case name.
    #[getter]
    fn name(&self) -> &'static str {
        self.inner.name
    }

    /// The default severity: `"error"`, `"warning"` or `"info"`.
    #[getter]
    fn severity(&self) -> &'static str {
        self.inner.severity.as_str()
    }

    /// One line saying what the rule reports.
    #[getter]
    fn summary(&self) -> &'static str {
        self.inner.summary
    }

    /// The Markdown documentation `agui-lint rule NAME` prints.
    #[getter]
    fn docs(&self) -> &'static str {
        self.inner.docs
    }

    /// The protocol versions whose documents the rule judges.
    #[getter]
    fn protocols(&self) -> Vec<&'static str> {
        self.inner.protocols().iter().map(|p| p.as_str()).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "Rule({} [{}]: {})",
            self.inner.name, self.inner.severity, self.inner.summary
        )
    }
}

/// Every rule agui-lint can report, in documentation order.
#[pyfunction(name = "rules")]
pub(crate) fn list_rules() -> Vec<PyRule> {
    rules::all().iter().map(|&inner| PyRule { inner }).collect()
}

/// The names of the kinds of document `Validator.validate` checks.
#[pyfunction]
pub(crate) fn kinds() -> Vec<&'static str> {
    Kind::ALL.iter().map(|k| k.as_str()).collect()
}
