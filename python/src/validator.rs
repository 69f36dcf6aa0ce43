//! `Validator`: the compiled schemas, the settings its arguments make, and its checks.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use agui_lint::unstable::check;
use agui_lint::{Kind, ProtocolChoice, Settings, Severity, Validator};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::results::{CheckResult, StreamResult};
use crate::stream::parsed_request;
use crate::value_error;

/// The schemas of every kind and version, compiled once per process; each
/// `Validator` shares them (a clone shares the compiled schemas) and adds
/// its own settings.
static COMPILED: LazyLock<Result<Validator, String>> =
    LazyLock::new(|| Validator::new().map_err(|e| e.to_string()));

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
    max_total_state_size: Option<usize>,
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
    if let Some(bytes) = max_total_state_size {
        limits = limits.with_max_total_state_bytes(bytes);
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
/// - `max_findings`, `max_document_size`, `max_state_size`,
///   `max_total_state_size`: the bounds of `[limits]` (findings a document
///   reports, bytes a document may have, memory a stream's state may take,
///   memory the states of every stream this validator follows at once may
///   take together).
/// - `client`: see streams and requests through the official client,
///   `@ag-ui/client` 1.0.0 with a current peer (`"1.0.0"`) or one pinned to
///   an older version (any version, judged as its era's profile:
///   `"0.0.47"` as `"0.0.57"`, as the client compares versions).
#[pyclass(frozen, name = "Validator", module = "agui_lint")]
pub(crate) struct PyValidator {
    pub(crate) inner: Arc<Validator>,
}

#[pymethods]
impl PyValidator {
    #[new]
    #[pyo3(signature = (protocol = "auto", select = None, ignore = None, severity = None, mask_values = false, config = None, max_findings = None, max_document_size = None, max_state_size = None, max_total_state_size = None, client = None))]
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
        max_total_state_size: Option<usize>,
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
        let settings = with_limits(
            settings,
            max_findings,
            max_document_size,
            max_state_size,
            max_total_state_size,
        );
        let compiled = py
            .detach(|| COMPILED.clone())
            .map_err(PyRuntimeError::new_err)?;
        Ok(PyValidator {
            inner: Arc::new(compiled.with_settings(settings)),
        })
    }

    /// This validator with other bounds (the rest of its settings kept, its
    /// compiled schemas shared): `None` keeps a bound as it is.
    #[pyo3(signature = (max_findings = None, max_document_size = None, max_state_size = None, max_total_state_size = None))]
    fn with_limits(
        &self,
        max_findings: Option<usize>,
        max_document_size: Option<usize>,
        max_state_size: Option<usize>,
        max_total_state_size: Option<usize>,
    ) -> Self {
        let settings = with_limits(
            self.inner.settings().clone(),
            max_findings,
            max_document_size,
            max_state_size,
            max_total_state_size,
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
    /// `"har"`, `"proto"` (AG-UI's binary transport) or `"auto"`; `kind` the records' kind (`"auto"`: events, or
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
        let body = crate::input::body(body, &mut text)?;
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
    pub(crate) fn check(
        &self,
        py: Python<'_>,
        kind: Option<Kind>,
        body: &Bound<'_, PyAny>,
    ) -> PyResult<CheckResult> {
        let mut text = None;
        let body = crate::input::body(body, &mut text)?;
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
