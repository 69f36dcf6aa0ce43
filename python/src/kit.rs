//! `Kit`: the conformance kit for agent servers, driven from Python. The
//! kit plans each request from the responses so far and does no I/O; the
//! `agui_lint.kit` module sends the requests (to an ASGI app in process,
//! or anywhere) and hands back what came.

use std::path::PathBuf;

use agui_lint::unstable::input::har_write::Sent;
use agui_lint::unstable::kit::{self, BuiltIn, Expected, Level, Outcome, Suite, UserScenario};
use agui_lint::Validator;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::value_error;

/// One run of the conformance kit. `next_request()` gives the next request
/// to send (a dict) or `None` when every scenario has ended; `record()`
/// hands back its response; `report()` judges. `scenarios` are built-in
/// scenario names (default: all), `scenario_files` users' scenario files,
/// `version` what first requests declare (`None`: nothing), `level`
/// `"must"` or `"should"`, `expected_failures` a TOML file of known
/// failures, `strict` whether a SHOULD failure fails the run too.
#[pyclass(name = "Kit", module = "agui_lint")]
pub(crate) struct PyKit {
    suite: Suite,
    expected: Expected,
    /// The request handed out and not yet recorded, as sent.
    pending: Option<(kit::Request, Sent)>,
    url: String,
    /// The verdicts once judged, until the next response is recorded: a
    /// report in three formats and its verdict judge once.
    outcome: Option<Outcome>,
    /// Whether a SHOULD failure fails the run.
    strict: bool,
}

#[pymethods]
impl PyKit {
    #[new]
    #[pyo3(signature = (url = "http://testserver/", scenarios = None, scenario_files = None, version = Some("1.0"), level = None, expected_failures = None, strict = false))]
    fn new(
        url: &str,
        scenarios: Option<Vec<String>>,
        scenario_files: Option<Vec<PathBuf>>,
        version: Option<&str>,
        level: Option<&str>,
        expected_failures: Option<PathBuf>,
        strict: bool,
    ) -> PyResult<Self> {
        // None: every built-in scenario, scenario files besides them; a
        // list (empty included): those alone.
        let scenarios = scenarios
            .map(|names| {
                names
                    .iter()
                    .map(|name| {
                        BuiltIn::by_name(name).ok_or_else(|| {
                            PyValueError::new_err(format!(
                                "'{name}' is not a scenario of the kit (one of: {})",
                                scenario_names().join(", ")
                            ))
                        })
                    })
                    .collect::<PyResult<Vec<_>>>()
            })
            .transpose()?;
        let user = scenario_files
            .unwrap_or_default()
            .iter()
            .map(|path| UserScenario::read(path).map_err(value_error))
            .collect::<PyResult<Vec<_>>>()?;
        let level = match level {
            None => None,
            Some("must") => Some(Level::Must),
            Some("should") => Some(Level::Should),
            Some(other) => {
                return Err(PyValueError::new_err(format!(
                    "level '{other}' is not 'must' or 'should'"
                )))
            }
        };
        let expected = match expected_failures {
            Some(path) => {
                let expected = Expected::read(&path).map_err(value_error)?;
                expected
                    .refuse_unknown_scenarios(&user)
                    .map_err(|e| value_error(format!("{}: {e}", path.display())))?;
                expected
            }
            None => Expected::default(),
        };
        let validator = Validator::new().map_err(value_error)?;
        let options = kit::Options {
            scenarios,
            user,
            version: version.map(str::to_owned),
            level,
        };
        Ok(PyKit {
            suite: Suite::new(&validator, options),
            expected,
            pending: None,
            url: url.to_owned(),
            outcome: None,
            strict,
        })
    }

    /// The next request, as a dict: `scenario`, `label`, `headers` (a list
    /// of `(name, value)`, whole), `body` (bytes), `cancel_after_events`
    /// (close the connection after that many events, or `None`) and
    /// `wait_before_ms`; `None` when every scenario has ended.
    fn next_request<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        if self.pending.is_some() {
            return Err(PyRuntimeError::new_err(
                "record() the response to the last request first",
            ));
        }
        let Some(request) = self.suite.next_request() else {
            return Ok(None);
        };
        let sent = kit::sent(&self.url, &request, &[]);
        let dict = PyDict::new(py);
        dict.set_item("scenario", self.suite.current_scenario().unwrap_or(""))?;
        dict.set_item("label", &request.label)?;
        dict.set_item("headers", sent.headers.clone())?;
        dict.set_item("body", PyBytes::new(py, &request.body))?;
        dict.set_item("cancel_after_events", request.cancel_after_events)?;
        dict.set_item("wait_before_ms", request.wait_before_ms)?;
        self.pending = Some((request, sent));
        Ok(Some(dict))
    }

    /// Records the response to the last request: its `status` (`None` when
    /// none came), `headers`, the `body` read, and whether it was read to
    /// its end (`complete`) or the connection was closed first.
    #[pyo3(signature = (status, headers, body, complete = true))]
    fn record(
        &mut self,
        status: Option<u16>,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        complete: bool,
    ) -> PyResult<()> {
        let (request, sent) = self
            .pending
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("no request is waiting for its response"))?;
        let received = kit::received(status, headers, body, complete);
        self.suite.record(request, sent, received);
        self.outcome = None;
        Ok(())
    }

    /// Records that the last request got no response at all: the app
    /// raised, or the connection was refused, reset or closed first, as
    /// `why` says. Its check fails with it; a second in a row ends the
    /// suite (the server is gone) and the rest is not exercised.
    fn record_unanswered(&mut self, why: String) -> PyResult<()> {
        let (request, sent) = self
            .pending
            .take()
            .ok_or_else(|| PyRuntimeError::new_err("no request is waiting for its response"))?;
        self.suite.record(request, sent, kit::unanswered(why));
        self.outcome = None;
        Ok(())
    }

    /// Why the suite ended before its end (the server stopped answering),
    /// or `None`.
    fn abandoned(&self) -> Option<String> {
        self.suite.abandoned().map(str::to_owned)
    }

    /// The report: `"human"` (default), `"json"` or `"junit"`.
    #[pyo3(signature = (format = "human"))]
    fn report(&mut self, format: &str) -> PyResult<String> {
        let format = match format {
            "human" => kit::Format::Human,
            "json" => kit::Format::Json,
            "junit" => kit::Format::Junit,
            other => {
                return Err(PyValueError::new_err(format!(
                    "format '{other}' is not human, json or junit"
                )))
            }
        };
        Ok(self.outcome().render(format))
    }

    /// Whether the run fails: a check failed that the expected failures do
    /// not list, or one they list passed.
    fn fails(&mut self) -> bool {
        self.outcome().fails()
    }

    /// Every check judged: `(scenario, check, level, verdict, why)`, the
    /// verdict one of `passed`, `failed`, `not-exercised`,
    /// `expected-failure`, `fixed-but-listed`.
    fn results(&mut self) -> Vec<(String, String, String, String, Option<String>)> {
        use kit::Status;
        self.outcome()
            .rows()
            .map(|(scenario, check, status)| {
                let (verdict, why) = match status {
                    Status::Passed => ("passed", None),
                    Status::Failed(why) => ("failed", Some(why.clone())),
                    Status::NotExercised(why) => ("not-exercised", Some(why.clone())),
                    Status::SameCause(why) => ("same-cause", Some(why.clone())),
                    Status::ExpectedFailure { why, .. } => ("expected-failure", Some(why.clone())),
                    Status::FixedButListed { reason } => ("fixed-but-listed", Some(reason.clone())),
                };
                (
                    scenario.to_owned(),
                    check.id.to_owned(),
                    check.level.as_str().to_owned(),
                    verdict.to_owned(),
                    why,
                )
            })
            .collect()
    }
}

impl PyKit {
    /// The verdicts, judged once per set of exchanges.
    fn outcome(&mut self) -> &Outcome {
        let (suite, expected, strict) = (&self.suite, &self.expected, self.strict);
        self.outcome
            .get_or_insert_with(|| Outcome::new(&suite.results(), expected).strict(strict))
    }
}

/// The names of the kit's built-in scenarios, in the order run.
#[pyfunction]
pub(crate) fn scenario_names() -> Vec<&'static str> {
    BuiltIn::ALL.iter().map(|s| s.name()).collect()
}
