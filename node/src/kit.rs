//! `NativeKit`: the conformance kit for agent servers, driven from
//! JavaScript. The kit plans each request from the responses so far and
//! does no I/O; `lib/kit.js` sends the requests (to a fetch handler in
//! process, or to a URL) and hands back what came.

use std::path::PathBuf;

use agui_lint::unstable::input::har_write::Sent;
use agui_lint::unstable::kit::{self, BuiltIn, Expected, Level, Outcome, Suite, UserScenario};
use napi::bindgen_prelude::Buffer;
use napi::{Error, Result};
use napi_derive::napi;

use crate::invalid;

/// The options of `new NativeKit(options)`.
#[napi(object)]
pub struct KitOptions {
    /// The URL requests are recorded as sent to.
    pub url: Option<String>,
    /// Built-in scenario names (default: all; an empty list: none, the
    /// scenario files alone).
    pub scenarios: Option<Vec<String>>,
    /// Users' scenario files, run after the built-in scenarios.
    pub scenario_files: Option<Vec<String>>,
    /// What first requests declare; `"none"` for nothing (default `"1.0"`).
    pub version: Option<String>,
    /// `"must"` or `"should"`.
    pub level: Option<String>,
    /// A TOML file of known failures.
    pub expected_failures: Option<String>,
    /// Whether a SHOULD failure fails the run too (default false).
    pub strict: Option<bool>,
}

/// One request to send.
#[napi(object)]
pub struct KitRequest {
    /// The scenario it belongs to.
    pub scenario: String,
    /// What it is for.
    pub label: String,
    /// Every header, `[name, value]` each.
    pub headers: Vec<Vec<String>>,
    /// The body.
    pub body: Buffer,
    /// Close the connection after this many events, when set.
    pub cancel_after_events: Option<u32>,
    /// Milliseconds to wait before sending.
    pub wait_before_ms: u32,
}

/// One run of the conformance kit.
#[napi(js_name = "NativeKit")]
pub struct NativeKit {
    suite: Suite,
    expected: Expected,
    /// The request handed out and not yet recorded, as sent.
    pending: Option<(kit::Request, Sent)>,
    url: String,
    /// The verdicts once judged, until the next response is recorded: a
    /// report in three formats judges once.
    outcome: Option<Outcome>,
    /// Whether a SHOULD failure fails the run.
    strict: bool,
}

#[napi]
impl NativeKit {
    /// A run of `options`' scenarios.
    #[napi(constructor)]
    pub fn new(options: Option<KitOptions>) -> Result<Self> {
        let options = options.unwrap_or(KitOptions {
            url: None,
            scenarios: None,
            scenario_files: None,
            version: None,
            level: None,
            expected_failures: None,
            strict: None,
        });
        // Unset: every built-in scenario, scenario files besides them; a
        // list (empty included): those alone.
        let scenarios = options
            .scenarios
            .map(|names| {
                names
                    .iter()
                    .map(|name| {
                        BuiltIn::by_name(name).ok_or_else(|| {
                            invalid(format!(
                                "'{name}' is not a scenario of the kit (one of: {})",
                                scenario_names().join(", ")
                            ))
                        })
                    })
                    .collect::<Result<Vec<_>>>()
            })
            .transpose()?;
        let user = options
            .scenario_files
            .unwrap_or_default()
            .iter()
            .map(|path| UserScenario::read(&PathBuf::from(path)).map_err(invalid))
            .collect::<Result<Vec<_>>>()?;
        let level = match options.level.as_deref() {
            None => None,
            Some("must") => Some(Level::Must),
            Some("should") => Some(Level::Should),
            Some(other) => {
                return Err(invalid(format!(
                    "level '{other}' is not 'must' or 'should'"
                )))
            }
        };
        let expected = match options.expected_failures {
            Some(path) => {
                let expected = Expected::read(&PathBuf::from(&path)).map_err(invalid)?;
                expected
                    .refuse_unknown_scenarios(&user)
                    .map_err(|e| invalid(format!("{path}: {e}")))?;
                expected
            }
            None => Expected::default(),
        };
        let version = match options.version.as_deref() {
            None => Some("1.0".to_owned()),
            Some("none") => None,
            Some(version) => Some(version.to_owned()),
        };
        let validator = crate::compiled()?;
        Ok(NativeKit {
            suite: Suite::new(
                &validator,
                kit::Options {
                    scenarios,
                    user,
                    version,
                    level,
                },
            ),
            expected,
            pending: None,
            url: options
                .url
                .unwrap_or_else(|| "http://localhost/".to_owned()),
            outcome: None,
            strict: options.strict.unwrap_or(false),
        })
    }

    /// The next request, or `null` when every scenario has ended.
    #[napi]
    pub fn next_request(&mut self) -> Result<Option<KitRequest>> {
        if self.pending.is_some() {
            return Err(invalid("record() the response to the last request first"));
        }
        let Some(request) = self.suite.next_request() else {
            return Ok(None);
        };
        let sent = kit::sent(&self.url, &request, &[]);
        let planned = KitRequest {
            scenario: self.suite.current_scenario().unwrap_or("").to_owned(),
            label: request.label.clone(),
            headers: sent
                .headers
                .iter()
                .map(|(n, v)| vec![n.clone(), v.clone()])
                .collect(),
            body: request.body.clone().into(),
            cancel_after_events: request
                .cancel_after_events
                .map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
            wait_before_ms: u32::try_from(request.wait_before_ms).unwrap_or(u32::MAX),
        };
        self.pending = Some((request, sent));
        Ok(Some(planned))
    }

    /// Records the response to the last request: its status (`null` when
    /// none came), headers, the body read, and whether it was read to its
    /// end.
    #[napi]
    pub fn record(
        &mut self,
        status: Option<u32>,
        headers: Vec<Vec<String>>,
        body: Buffer,
        complete: bool,
    ) -> Result<()> {
        let (request, sent) = self
            .pending
            .take()
            .ok_or_else(|| Error::from_reason("no request is waiting for its response"))?;
        let headers = headers
            .into_iter()
            .filter_map(|pair| {
                let mut pair = pair.into_iter();
                Some((pair.next()?, pair.next()?))
            })
            .collect();
        let status = status.and_then(|s| u16::try_from(s).ok());
        let received = kit::received(status, headers, body.to_vec(), complete);
        self.suite.record(request, sent, received);
        self.outcome = None;
        Ok(())
    }

    /// Records that the last request got no response at all (the handler
    /// threw, the connection was refused, reset or closed first), as
    /// `why` says: its check fails with it, and a second in a row ends the
    /// suite (the server is gone).
    #[napi]
    pub fn record_unanswered(&mut self, why: String) -> Result<()> {
        let (request, sent) = self
            .pending
            .take()
            .ok_or_else(|| Error::from_reason("no request is waiting for its response"))?;
        self.suite.record(request, sent, kit::unanswered(why));
        self.outcome = None;
        Ok(())
    }

    /// The report: `"human"`, `"json"` or `"junit"`, with whether the run
    /// fails, as JSON text `{"fails": bool, "text": string}`.
    #[napi]
    pub fn report(&mut self, format: String) -> Result<String> {
        let format = match format.as_str() {
            "human" => kit::Format::Human,
            "json" => kit::Format::Json,
            "junit" => kit::Format::Junit,
            other => {
                return Err(invalid(format!(
                    "format '{other}' is not human, json or junit"
                )))
            }
        };
        let (suite, expected, strict) = (&self.suite, &self.expected, self.strict);
        let outcome = self
            .outcome
            .get_or_insert_with(|| Outcome::new(&suite.results(), expected).strict(strict));
        Ok(
            serde_json::json!({"fails": outcome.fails(), "text": outcome.render(format)})
                .to_string(),
        )
    }
}

/// The names of the kit's built-in scenarios, in the order run.
#[napi]
pub fn scenario_names() -> Vec<String> {
    BuiltIn::ALL.iter().map(|s| s.name().to_owned()).collect()
}
