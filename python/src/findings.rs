//! `Diagnostic` and `Related`: one finding and the other places it names.

use agui_lint::{Diagnostic, Related};
use pyo3::prelude::*;

use crate::value_error;

use pyo3::types::PyDict;

/// One finding: its `rule`, `severity`, one-sentence `message`, the JSON
/// `pointer` of the node, its `line` and `column` (1-based; `None` when
/// unknown), advice in `help` and the other places involved in `related`.
#[pyclass(frozen, name = "Diagnostic", module = "agui_lint")]
pub(crate) struct PyDiagnostic {
    inner: Diagnostic,
}

impl From<&Diagnostic> for PyDiagnostic {
    fn from(diagnostic: &Diagnostic) -> Self {
        PyDiagnostic {
            inner: diagnostic.clone(),
        }
    }
}

#[pymethods]
impl PyDiagnostic {
    /// The rule's stable kebab-case name, e.g. `tool-result-without-call`.
    #[getter]
    fn rule(&self) -> &str {
        &self.inner.rule
    }

    /// `"error"`, `"warning"` or `"info"`.
    #[getter]
    fn severity(&self) -> &'static str {
        self.inner.severity.as_str()
    }

    /// One sentence saying what is wrong.
    #[getter]
    fn message(&self) -> &str {
        &self.inner.message
    }

    /// JSON pointer (RFC 6901) of the offending node; `""` is the root.
    #[getter]
    fn pointer(&self) -> &str {
        &self.inner.pointer
    }

    /// 1-based line of the node in the document, when known.
    #[getter]
    fn line(&self) -> Option<usize> {
        self.inner.location.map(|l| l.line)
    }

    /// 1-based column (in characters) of the node, when known.
    #[getter]
    fn column(&self) -> Option<usize> {
        self.inner.location.map(|l| l.column)
    }

    /// Advice on how to fix it, when there is more to say.
    #[getter]
    fn help(&self) -> Option<&str> {
        self.inner.help.as_deref()
    }

    /// The other places involved (such as the earlier duplicate).
    #[getter]
    fn related(&self) -> Vec<PyRelated> {
        self.inner.related.iter().map(PyRelated::from).collect()
    }

    /// The finding as the CLI's JSON output writes it (compact).
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner).map_err(value_error)
    }

    /// The finding as a dict with the keys of the CLI's JSON output.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("rule", &self.inner.rule)?;
        dict.set_item("severity", self.inner.severity.as_str())?;
        dict.set_item("message", &self.inner.message)?;
        dict.set_item("pointer", &self.inner.pointer)?;
        dict.set_item("line", self.line())?;
        dict.set_item("column", self.column())?;
        if let Some(help) = &self.inner.help {
            dict.set_item("help", help)?;
        }
        if !self.inner.related.is_empty() {
            let related = self
                .inner
                .related
                .iter()
                .map(|r| PyRelated::from(r).to_dict(py))
                .collect::<PyResult<Vec<_>>>()?;
            dict.set_item("related", related)?;
        }
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        let at = match self.inner.location {
            Some(l) => format!(" {}:{}", l.line, l.column),
            None => String::new(),
        };
        format!(
            "Diagnostic({} {} at {:?}{}: {})",
            self.inner.severity, self.inner.rule, self.inner.pointer, at, self.inner.message
        )
    }
}

/// Another place involved in a finding: its `pointer`, what it has to do
/// with the finding (`message`), its `line` and `column` when known, and
/// its `record` when it is in another record of the same stream.
#[pyclass(frozen, name = "Related", module = "agui_lint")]
pub(crate) struct PyRelated {
    inner: Related,
}

impl From<&Related> for PyRelated {
    fn from(related: &Related) -> Self {
        PyRelated {
            inner: related.clone(),
        }
    }
}

#[pymethods]
impl PyRelated {
    /// JSON pointer of the other place.
    #[getter]
    fn pointer(&self) -> &str {
        &self.inner.pointer
    }

    /// What the other place has to do with the finding.
    #[getter]
    fn message(&self) -> &str {
        &self.inner.message
    }

    /// The record holding the other place, when it is another record.
    #[getter]
    fn record(&self) -> Option<usize> {
        self.inner.record
    }

    /// 1-based line of the other place, when known.
    #[getter]
    fn line(&self) -> Option<usize> {
        self.inner.location.map(|l| l.line)
    }

    /// 1-based column of the other place, when known.
    #[getter]
    fn column(&self) -> Option<usize> {
        self.inner.location.map(|l| l.column)
    }

    /// The place as a dict with the keys of the CLI's JSON output.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("pointer", &self.inner.pointer)?;
        dict.set_item("message", &self.inner.message)?;
        if let Some(record) = self.inner.record {
            dict.set_item("record", record)?;
        }
        dict.set_item("line", self.line())?;
        dict.set_item("column", self.column())?;
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!("Related({:?}: {})", self.inner.pointer, self.inner.message)
    }
}
