//! `Result` and `StreamResult`: what a check found, as Python reads it.

use agui_lint::unstable::check::{self, Outcome};
use agui_lint::unstable::render::{self, Format, Options};
use agui_lint::{Kind, Report, Severity};
use pyo3::prelude::*;

use crate::findings::PyDiagnostic;

/// What a check found in one document: `valid` (no error left; warnings
/// allowed), the `protocol` version that judged it, the `kind` it was
/// checked as, and every diagnostic in position order.
#[pyclass(frozen, name = "Result", module = "agui_lint")]
pub(crate) struct CheckResult {
    pub(crate) report: Report,
    pub(crate) record: Option<usize>,
}

impl CheckResult {
    /// The result of one checked record of a stream.
    pub(crate) fn of(checked: check::Checked) -> Self {
        CheckResult {
            report: checked.report,
            record: checked.record,
        }
    }
}

#[pymethods]
impl CheckResult {
    /// `True` when no error is left (warnings and infos allowed).
    #[getter]
    fn valid(&self) -> bool {
        self.report.is_valid()
    }

    /// The protocol version that judged the document: `"1.1"`, `"1.0"` or
    /// `"0"`.
    #[getter]
    fn protocol(&self) -> &'static str {
        self.report.protocol().as_str()
    }

    /// The kind the document was checked as (`None` when it could not be
    /// told, for instance because the document is not JSON).
    #[getter]
    fn kind(&self) -> Option<&'static str> {
        self.report.kind().map(Kind::as_str)
    }

    /// The record of a stream this document is (the JSON Lines line, the
    /// SSE event, 1-based); `None` for a document checked alone.
    #[getter]
    fn record(&self) -> Option<usize> {
        self.record
    }

    /// Every finding, in position order.
    #[getter]
    fn diagnostics(&self) -> Vec<PyDiagnostic> {
        self.report
            .diagnostics()
            .iter()
            .map(PyDiagnostic::from)
            .collect()
    }

    /// How many findings are errors.
    #[getter]
    fn errors(&self) -> usize {
        self.report.count(Severity::Error)
    }

    /// How many findings are warnings.
    #[getter]
    fn warnings(&self) -> usize {
        self.report.count(Severity::Warning)
    }

    /// How many findings are infos.
    #[getter]
    fn infos(&self) -> usize {
        self.report.count(Severity::Info)
    }

    /// The document `agui-lint check --format json` prints for this one
    /// document, shown under `path` (`"-"`, standard input, unless given;
    /// the server guard gives the request's path). Pretty-printed, with a
    /// trailing newline.
    #[pyo3(signature = (path = "-"))]
    fn to_json(&self, path: &str) -> String {
        render::document_json(path, self.record, &self.report)
    }

    /// What `agui-lint check` prints for this one document (its human
    /// format), shown under `path`. With `source`, the document's bytes,
    /// each finding shows its source line and a caret; `color` adds ANSI
    /// colours.
    #[pyo3(signature = (path = "-", source = None, color = false))]
    fn to_text(&self, path: &str, source: Option<&[u8]>, color: bool) -> String {
        render::document_text(path, self.record, &self.report, source, color)
    }

    fn __bool__(&self) -> bool {
        self.report.is_valid()
    }

    fn __repr__(&self) -> String {
        format!(
            "Result(valid={}, protocol={:?}, errors={}, warnings={})",
            if self.report.is_valid() {
                "True"
            } else {
                "False"
            },
            self.report.protocol().as_str(),
            self.report.count(Severity::Error),
            self.report.count(Severity::Warning)
        )
    }
}

/// What a check found in a captured stream: one `Result` per record, in
/// order, and the totals.
#[pyclass(frozen, name = "StreamResult", module = "agui_lint")]
pub(crate) struct StreamResult {
    pub(crate) outcome: Outcome,
}

#[pymethods]
impl StreamResult {
    /// `True` when no record has an error left.
    #[getter]
    fn valid(&self) -> bool {
        !self.outcome.has_failing_document(false)
    }

    /// One `Result` per record, in stream order, each with its `record`.
    #[getter]
    fn documents(&self) -> Vec<CheckResult> {
        self.outcome
            .documents()
            .map(|checked| CheckResult {
                report: checked.report.clone(),
                record: checked.record,
            })
            .collect()
    }

    /// How many findings are errors, over every record.
    #[getter]
    fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    /// How many findings are warnings, over every record.
    #[getter]
    fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    /// How many findings are infos, over every record.
    #[getter]
    fn infos(&self) -> usize {
        self.count(Severity::Info)
    }

    /// The document `agui-lint check --format json` prints for the capture.
    fn to_json(&self) -> String {
        render::render(Format::Json, &self.outcome, &Options::default())
    }

    /// What `agui-lint check` prints for the capture (its human format):
    /// each finding with its place, its source line and help, then the
    /// summary. `color` adds ANSI colours.
    #[pyo3(signature = (color = false))]
    fn to_text(&self, color: bool) -> String {
        let options = Options {
            color,
            ..Options::default()
        };
        render::render(Format::Human, &self.outcome, &options)
    }

    fn __len__(&self) -> usize {
        self.outcome.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "StreamResult(valid={}, documents={}, errors={}, warnings={})",
            if self.valid() { "True" } else { "False" },
            self.outcome.len(),
            self.count(Severity::Error),
            self.count(Severity::Warning)
        )
    }
}

impl StreamResult {
    pub(crate) fn count(&self, severity: Severity) -> usize {
        self.outcome
            .with_findings()
            .map(|c| c.report.count(severity))
            .sum()
    }
}
