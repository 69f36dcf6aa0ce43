//! `StreamChecker`: one event stream checked as its bytes come.

use agui_lint::unstable::check;
use agui_lint::{Kind, StreamChecker};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::input::body;
use crate::results::CheckResult;
use crate::validator::PyValidator;
use crate::value_error;

/// The JSON of the request a stream answers (`bytes` or `str`).
pub(crate) fn parsed_request(request: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    let mut text = None;
    let request = body(request, &mut text)?;
    serde_json::from_slice(request.bytes())
        .map_err(|e| PyValueError::new_err(format!("the request is not JSON: {e}")))
}

/// Chunks a `StreamChecker` feeds up to this size are checked holding the
/// GIL (a few microseconds); larger ones let other threads run meanwhile.
const DETACHED_CHUNK_BYTES: usize = 16 * 1024;

/// One event stream checked as its bytes come: `feed(chunk)` with each
/// chunk as it arrives (split anywhere, an SSE event across two writes
/// included), `finish()` at its end. Each returns the records made final
/// that have findings, as `Result`s with their `record`; what the stream
/// leaves open (a run never finished) is found by `finish()`. Memory holds
/// the record being framed and what is open, never the stream.
///
/// `format` is `"sse"`, `"jsonl"` or `"auto"` (told from the first
/// bytes); `kind` the records' kind (`"auto"`: events for SSE, as each
/// line's shape tells for JSON Lines); `request`, the JSON text of the
/// `RunAgentInput` the stream answers, pairs the two (its declared version,
/// the tool calls its messages made, its state).
#[pyclass(name = "StreamChecker", module = "agui_lint")]
pub(crate) struct PyStreamChecker {
    /// `None` once finished.
    inner: Option<StreamChecker>,
    /// How many records the stream held, once finished.
    finished: usize,
}

#[pymethods]
impl PyStreamChecker {
    #[new]
    #[pyo3(signature = (validator, format = "sse", kind = "auto", path = "-", request = None))]
    fn new(
        validator: &PyValidator,
        format: &str,
        kind: &str,
        path: &str,
        request: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let framing = check::stream_framing(format).map_err(PyValueError::new_err)?;
        let kind = match kind {
            "auto" => None,
            name => Some(name.parse::<Kind>().map_err(value_error)?),
        };
        let request = request.map(parsed_request).transpose()?;
        let checker =
            check::stream_checker(&validator.inner, framing, kind, path, request.as_ref());
        Ok(PyStreamChecker {
            inner: Some(checker),
            finished: 0,
        })
    }

    /// Feeds the next chunk (`bytes` or `str`); returns the records it
    /// made final that have findings.
    fn feed(&mut self, py: Python<'_>, chunk: &Bound<'_, PyAny>) -> PyResult<Vec<CheckResult>> {
        let mut text = None;
        let chunk = body(chunk, &mut text)?;
        let checker = self
            .inner
            .as_mut()
            .ok_or_else(|| PyRuntimeError::new_err("the stream was finished"))?;
        let bytes = chunk.bytes();
        // Releasing the GIL costs about a microsecond: worth it for a chunk
        // whose check takes longer, not for the one event an SSE write
        // usually carries.
        let found = if bytes.len() > DETACHED_CHUNK_BYTES {
            py.detach(|| checker.feed(bytes))
        } else {
            checker.feed(bytes)
        };
        Ok(found.into_iter().map(CheckResult::of).collect())
    }

    /// Ends the stream; returns the records left that have findings, with
    /// what the end found still open.
    fn finish(&mut self, py: Python<'_>) -> PyResult<Vec<CheckResult>> {
        let checker = self
            .inner
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("the stream was finished"))?;
        let (found, records) = py.detach(|| checker.finish_counted());
        self.finished = records;
        Ok(found.into_iter().map(CheckResult::of).collect())
    }

    /// How many records (events, lines) have been checked so far; once
    /// finished, how many the stream held.
    #[getter]
    fn records(&self) -> usize {
        self.inner
            .as_ref()
            .map_or(self.finished, StreamChecker::records)
    }
}
