//! The Python binding of agui-lint: `agui_lint._agui_lint`, re-exported by
//! the `agui_lint` package.
//!
//! Every check is the root crate's: this module only converts arguments and
//! results. A [`PyValidator`] holds one compiled [`Validator`] (shared, never
//! copied) and releases the GIL while it checks, so a server's threads check
//! requests in parallel.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use agui_lint::unstable::check::{self, Outcome};
use agui_lint::unstable::render::{self, Format, Options};
use agui_lint::{
    rules, Diagnostic, Kind, ProtocolChoice, Related, Report, Settings, Severity, StreamChecker,
    Validator,
};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyString};

/// The schemas of every kind and version, compiled once per process; each
/// `Validator` shares them (a clone shares the compiled schemas) and adds
/// its own settings.
static COMPILED: LazyLock<Result<Validator, String>> =
    LazyLock::new(|| Validator::new().map_err(|e| e.to_string()));

/// A request body or document as Python hands it over: borrowed from
/// `bytes` and `str`, copied from `bytearray` (which may change under us).
enum Body<'a> {
    Borrowed(&'a [u8]),
    Owned(Vec<u8>),
}

impl Body<'_> {
    fn bytes(&self) -> &[u8] {
        match self {
            Body::Borrowed(bytes) => bytes,
            Body::Owned(bytes) => bytes,
        }
    }
}

/// Reads `body` (`bytes`, `str`, `bytearray` or `memoryview`) without a
/// copy where Python allows it.
fn body<'a>(body: &'a Bound<'_, PyAny>, text: &'a mut Option<String>) -> PyResult<Body<'a>> {
    if let Ok(bytes) = body.cast::<PyBytes>() {
        return Ok(Body::Borrowed(bytes.as_bytes()));
    }
    if let Ok(string) = body.cast::<PyString>() {
        let cow = string.to_cow()?;
        return Ok(match cow {
            std::borrow::Cow::Borrowed(s) => Body::Borrowed(s.as_bytes()),
            std::borrow::Cow::Owned(s) => Body::Borrowed(text.insert(s).as_bytes()),
        });
    }
    if let Ok(array) = body.cast::<PyByteArray>() {
        return Ok(Body::Owned(array.to_vec()));
    }
    if body.hasattr("tobytes")? {
        // A memoryview (or any buffer that can say what it holds).
        let bytes = body.call_method0("tobytes")?;
        if let Ok(bytes) = bytes.cast::<PyBytes>() {
            return Ok(Body::Owned(bytes.as_bytes().to_vec()));
        }
    }
    Err(PyTypeError::new_err(format!(
        "the body must be bytes or str, not {}",
        body.get_type().name()?
    )))
}

/// A setting that is not valid, as Python's `ValueError`.
fn value_error(error: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// A severity named as in every output format.
fn parse_severity(name: &str) -> PyResult<Severity> {
    Severity::from_name(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "unknown severity '{name}' (expected error, warning or info)"
        ))
    })
}

/// `settings` with the bounds given (the others as they are).
fn with_limits(
    settings: Settings,
    max_findings: Option<usize>,
    max_document_size: Option<usize>,
    max_state_size: Option<usize>,
) -> Settings {
    let mut limits = settings.limits();
    if let Some(findings) = max_findings {
        limits = limits.with_max_findings(findings);
    }
    if let Some(bytes) = max_document_size {
        limits = limits.with_max_document_bytes(bytes);
    }
    if let Some(bytes) = max_state_size {
        limits = limits.with_max_state_bytes(bytes);
    }
    settings.with_limits(limits)
}

/// The validator: the compiled schemas of every kind and protocol version,
/// and the settings that decide which rules report and how seriously.
/// Build it once and share it: it is thread-safe, and it releases the GIL
/// while it checks.
///
/// Arguments (all optional, applied over `config` when one is given):
///
/// - `protocol`: the version that judges documents declaring no
///   `protocolVersion`: `"auto"` (the newest known, 1.1, or the config
///   file's choice), `"1.1"`, `"1.0"` or `"0"`. A document's own
///   declaration always wins.
/// - `select`, `ignore`: rule names reported alone, or never.
/// - `severity`: `{rule: "error" | "warning" | "info"}` overrides.
/// - `mask_values`: keep the document's values out of every finding.
/// - `config`: the path of an `agui-lint.toml` file to start from.
/// - `max_findings`, `max_document_size`, `max_state_size`: the bounds of
///   `[limits]` (findings a document reports, bytes a document may have,
///   memory a stream's state may take).
/// - `client`: see streams and requests through the official client,
///   `@ag-ui/client` 1.0.0 with a current peer (`"1.0.0"`) or one pinned to
///   an older era (`"0.0.57"`, `"0.0.45"`, `"0.0.39"`).
#[pyclass(frozen, name = "Validator", module = "agui_lint")]
struct PyValidator {
    inner: Arc<Validator>,
}

#[pymethods]
impl PyValidator {
    #[new]
    #[pyo3(signature = (protocol = "auto", select = None, ignore = None, severity = None, mask_values = false, config = None, max_findings = None, max_document_size = None, max_state_size = None, client = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        protocol: &str,
        select: Option<Vec<String>>,
        ignore: Option<Vec<String>>,
        severity: Option<HashMap<String, String>>,
        mask_values: bool,
        config: Option<PathBuf>,
        max_findings: Option<usize>,
        max_document_size: Option<usize>,
        max_state_size: Option<usize>,
        client: Option<&str>,
    ) -> PyResult<Self> {
        let choice: ProtocolChoice = protocol.parse().map_err(value_error)?;
        let mut settings = match &config {
            Some(path) => Settings::load(path).map_err(value_error)?,
            None => Settings::default(),
        };
        // "auto" leaves a config file's choice standing.
        if config.is_none() || choice != ProtocolChoice::Auto {
            settings = settings.protocol(choice);
        }
        if let Some(select) = select {
            settings = settings.select(select).map_err(value_error)?;
        }
        if let Some(ignore) = ignore {
            settings = settings.ignore(ignore).map_err(value_error)?;
        }
        let mut overrides: Vec<(String, String)> =
            severity.unwrap_or_default().into_iter().collect();
        overrides.sort();
        for (rule, name) in overrides {
            settings = settings
                .severity(&rule, parse_severity(&name)?)
                .map_err(value_error)?;
        }
        if mask_values {
            settings = settings.mask_values(true);
        }
        if let Some(client) = client {
            settings = settings.client(client.parse().map_err(value_error)?);
        }
        let settings = with_limits(settings, max_findings, max_document_size, max_state_size);
        let compiled = py
            .detach(|| COMPILED.clone())
            .map_err(PyRuntimeError::new_err)?;
        Ok(PyValidator {
            inner: Arc::new(compiled.with_settings(settings)),
        })
    }

    /// This validator with other bounds (the rest of its settings kept, its
    /// compiled schemas shared): `None` keeps a bound as it is.
    #[pyo3(signature = (max_findings = None, max_document_size = None, max_state_size = None))]
    fn with_limits(
        &self,
        max_findings: Option<usize>,
        max_document_size: Option<usize>,
        max_state_size: Option<usize>,
    ) -> Self {
        let settings = with_limits(
            self.inner.settings().clone(),
            max_findings,
            max_document_size,
            max_state_size,
        );
        PyValidator {
            inner: Arc::new((*self.inner).clone().with_settings(settings)),
        }
    }

    /// The most findings a document reports (the rest are counted in one
    /// `too-many-findings` finding).
    #[getter]
    fn max_findings(&self) -> usize {
        self.inner.limits().max_findings
    }

    /// Checks a `RunAgentInput`, the body of the request that starts a
    /// run: the verdict the server guard gives before dispatch. `body` is
    /// `bytes` (as received) or `str`.
    fn check_run_agent_input(
        &self,
        py: Python<'_>,
        body: &Bound<'_, PyAny>,
    ) -> PyResult<CheckResult> {
        self.check(py, Some(Kind::RunAgentInput), body)
    }

    /// Checks `body` as a document of `kind` (a kind name such as
    /// `"message"` or `"tools"`, see `agui_lint.kinds()`), or of the kind
    /// its shape tells with `kind="auto"`.
    fn validate(
        &self,
        py: Python<'_>,
        kind: &str,
        body: &Bound<'_, PyAny>,
    ) -> PyResult<CheckResult> {
        let kind = match kind {
            "auto" => None,
            name => Some(name.parse::<Kind>().map_err(value_error)?),
        };
        self.check(py, kind, body)
    }

    /// Checks a captured event stream: every record (an SSE event, a JSON
    /// Lines line) as one document, and the events together as one stream
    /// (a run's events against each other). `format` is `"sse"`, `"jsonl"`,
    /// `"har"` or `"auto"`; `kind` the records' kind (`"auto"`: events, or
    /// as each record's shape tells). `path` names the capture in
    /// `to_json()`. `request`, the JSON of the `RunAgentInput` an SSE or
    /// JSON Lines stream answers, pairs the two (its tool calls, declared
    /// version and state).
    #[pyo3(signature = (body, format = "sse", kind = "auto", path = "-", request = None))]
    fn check_stream(
        &self,
        py: Python<'_>,
        body: &Bound<'_, PyAny>,
        format: &str,
        kind: &str,
        path: &str,
        request: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<StreamResult> {
        let request = request.map(parsed_request).transpose()?;
        let kind = match kind {
            "auto" => None,
            name => Some(name.parse::<Kind>().map_err(value_error)?),
        };
        let mut text = None;
        let body = self::body(body, &mut text)?;
        let bytes = body.bytes();
        let layout = check::capture_layout(format, bytes).map_err(PyValueError::new_err)?;
        let validator = &*self.inner;
        let outcome = py.detach(|| {
            check::check_capture(validator, bytes, layout, kind, path, request.as_ref())
        });
        let outcome = outcome.map_err(|e: std::io::Error| PyValueError::new_err(e.to_string()))?;
        Ok(StreamResult { outcome })
    }

    fn __repr__(&self) -> String {
        let settings = self.inner.settings();
        format!(
            "Validator(protocol={:?}, mask_values={})",
            settings.protocol_choice().to_string(),
            if settings.masks_values() {
                "True"
            } else {
                "False"
            }
        )
    }
}

impl PyValidator {
    fn check(
        &self,
        py: Python<'_>,
        kind: Option<Kind>,
        body: &Bound<'_, PyAny>,
    ) -> PyResult<CheckResult> {
        let mut text = None;
        let body = self::body(body, &mut text)?;
        let bytes = body.bytes();
        let validator = &*self.inner;
        let report = py.detach(|| match kind {
            Some(kind) => validator.validate(kind, bytes),
            None => validator.validate_detected(bytes),
        });
        Ok(CheckResult {
            report,
            record: None,
        })
    }
}

/// What a check found in one document: `valid` (no error left; warnings
/// allowed), the `protocol` version that judged it, the `kind` it was
/// checked as, and every diagnostic in position order.
#[pyclass(frozen, name = "Result", module = "agui_lint")]
struct CheckResult {
    report: Report,
    record: Option<usize>,
}

impl CheckResult {
    /// The result of one checked record of a stream.
    fn of(checked: check::Checked) -> Self {
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

/// The JSON of the request a stream answers (`bytes` or `str`).
fn parsed_request(request: &Bound<'_, PyAny>) -> PyResult<serde_json::Value> {
    let mut text = None;
    let request = self::body(request, &mut text)?;
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
struct PyStreamChecker {
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
        let chunk = self::body(chunk, &mut text)?;
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

/// What a check found in a captured stream: one `Result` per record, in
/// order, and the totals.
#[pyclass(frozen, name = "StreamResult", module = "agui_lint")]
struct StreamResult {
    outcome: Outcome,
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
    fn count(&self, severity: Severity) -> usize {
        self.outcome
            .with_findings()
            .map(|c| c.report.count(severity))
            .sum()
    }
}

/// One finding: its `rule`, `severity`, one-sentence `message`, the JSON
/// `pointer` of the node, its `line` and `column` (1-based; `None` when
/// unknown), advice in `help` and the other places involved in `related`.
#[pyclass(frozen, name = "Diagnostic", module = "agui_lint")]
struct PyDiagnostic {
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
struct PyRelated {
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

/// A rule of the registry: its stable `name`, default `severity`, one-line
/// `summary`, Markdown `docs` (what it checks, why, an invalid and a valid
/// example) and the `protocols` whose documents it judges.
#[pyclass(frozen, name = "Rule", module = "agui_lint")]
struct PyRule {
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
fn list_rules() -> Vec<PyRule> {
    rules::all().iter().map(|&inner| PyRule { inner }).collect()
}

/// The names of the kinds of document `Validator.validate` checks.
#[pyfunction]
fn kinds() -> Vec<&'static str> {
    Kind::ALL.iter().map(|k| k.as_str()).collect()
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
