//! Guarding an AG-UI endpoint: every request body is checked before the
//! agent runs (feature `axum`, off by default).
//!
//! An AG-UI run is a POST whose body is a `RunAgentInput`. A [`Guard`] (a
//! shared [`Validator`] and a few settings) checks that body three ways:
//!
//! - **An axum extractor**, [`ValidatedRunAgentInput`]: the handler gets the
//!   typed input, or the client gets the rejection.
//! - **A tower layer**, [`Guard::layer`], for services that do not use
//!   axum's extractors: a rejected request never reaches the inner service;
//!   an accepted one reaches it with its body intact and the typed input in
//!   its extensions ([`Validated`]).
//! - **A plain function** for any framework:
//!   [`Validator::check_run_agent_input`] takes the body's bytes and returns
//!   the typed input or the [`crate::Report`] to answer 422 with;
//!   [`Validator::check_run_agent_input_with_findings`] also hands back the
//!   warnings, which is what the guard itself uses.
//!
//! With [`Guard::with_responses`], the layer also checks the response
//! stream each request is answered with, as its bytes pass
//! ([`ResponseMode`]: off, report, enforce; [`Guard::with_response_sampling`]
//! checks one stream in N; [`Guard::response_stats`] counts):
//!
//! ```no_run
//! use agui_lint::server::{Guard, ResponseMode};
//! use axum::{routing::post, Router};
//!
//! let guard = Guard::shared().with_responses(ResponseMode::Report);
//! let app: Router = Router::new()
//!     .route("/agent", post(|| async { "an SSE stream" }))
//!     .route_layer(guard.layer());
//! ```
//!
//! The answers:
//!
//! | the request | the status | the body |
//! |---|---|---|
//! | a valid `RunAgentInput` (warnings allowed) | the handler's | the handler's |
//! | JSON that is not a valid `RunAgentInput`, or not JSON | `422 Unprocessable Entity` | the CLI's `--format json` document |
//! | a `Content-Type` other than JSON (`application/json`, `application/*+json`) | `415 Unsupported Media Type` | `{"tool", "version", "error"}` |
//! | a body over the limit ([`Guard::with_body_limit`], and axum's `DefaultBodyLimit`) | `413 Payload Too Large` | `{"tool", "version", "error"}` |
//! | a `Content-Encoding` other than `identity` (the guard checks bytes as sent; decompress before it) | `415 Unsupported Media Type` | `{"tool", "version", "error"}` |
//! | a body not received within [`Guard::with_body_timeout`] (10 s) | `408 Request Timeout` | `{"tool", "version", "error"}` |
//! | a check not done within [`Guard::with_check_timeout`] (2 s), or no room to start it | `503 Service Unavailable` | `{"tool", "version", "error", "rule": "check-timed-out"}` |
//!
//! # What a request can cost
//!
//! A guard sits on the path of every request, so no request may take it
//! down. Every check is linear in the body and bounded (see the README's
//! "Hostile input"); on top of that, a body larger than a few kilobytes is
//! checked on tokio's blocking pool, never on the executor's threads, at
//! most [`Guard::with_check_concurrency`] at a time (by default half the
//! cores, so that the executor keeps one), within a time budget past which
//! the request is answered `503`; a document reports at most 100 findings.
//! The body is read within a deadline. Servers should also bound how long
//! a client may take to send its headers: `examples/server.rs` shows how.
//!
//! The 422 document is the one `agui-lint check --format json` prints, with
//! the request's path as the document's `path`: each finding has its `rule`,
//! `severity`, `message`, `pointer`, `line`, `column` and, when there is
//! more to say, `help` and `related`. Findings that do not block (warnings
//! and infos) are logged through `tracing`, or sent back in the
//! `agui-lint-warnings` response header ([`Warnings`]). With
//! [`crate::Settings::mask_values`] on the validator, findings quote no
//! value of the request, so they can be logged as they are.
//!
//! # The extractor
//!
//! ```no_run
//! use agui_lint::server::{Guard, ValidatedRunAgentInput};
//! use agui_lint::{Settings, Validator};
//! use axum::{routing::post, Router};
//!
//! async fn agent(ValidatedRunAgentInput(input): ValidatedRunAgentInput) -> String {
//!     format!("run {} of thread {}", input.run_id, input.thread_id)
//! }
//!
//! # fn main() -> Result<(), agui_lint::BuildError> {
//! let validator = Validator::new()?.with_settings(Settings::default().mask_values(true));
//! let app: Router = Router::new()
//!     .route("/agent", post(agent))
//!     .with_state(Guard::new(validator));
//! # Ok(())
//! # }
//! ```
//!
//! The extractor takes the [`Guard`] from the router's state: the state is a
//! `Guard`, or implements [`FromRef`](axum::extract::FromRef) for one. A
//! router without state (`Router<()>`) uses the process-wide
//! [`Guard::shared`].
//!
//! # The layer
//!
//! ```no_run
//! use agui_lint::server::{Guard, Validated, Warnings};
//! use axum::{extract::Request, routing::post, Router};
//!
//! async fn agent(request: Request) -> String {
//!     // The layer let the request through: its input is valid.
//!     let validated = request.extensions().get::<Validated>();
//!     format!("{} messages", validated.map_or(0, |v| v.input.messages.len()))
//! }
//!
//! let guard = Guard::shared().with_warnings(Warnings::Header);
//! let app: Router = Router::new().route("/agent", post(agent).layer(guard.layer()));
//! ```
//!
//! # The plain function
//!
//! ```
//! use agui_lint::Validator;
//!
//! let validator = Validator::new()?; // once, shared by every request
//! let body = br#"{"threadId":"t","runId":"r","protocolVersion":"1.0","messages":[]}"#;
//! match validator.check_run_agent_input(body) {
//!     Ok(input) => assert_eq!(input.run_id, "r"),
//!     // Answer 422 with `report.diagnostics()` as JSON.
//!     Err(report) => panic!("{:?}", report.diagnostics()),
//! }
//! # Ok::<(), agui_lint::BuildError>(())
//! ```

mod extract;
mod layer;
mod reject;
mod response;

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use axum::http::header::{HeaderMap, HeaderValue, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE};
use bytes::Bytes;
use http_body::Body;
use http_body_util::{BodyExt, LengthLimitError, Limited};

use crate::types::RunAgentInput;
use crate::{Diagnostic, Severity, Validator};

pub use extract::ValidatedRunAgentInput;
pub use layer::{GuardLayer, GuardService};
pub use reject::Rejection;
pub use response::{CheckedBody, Lagging, ResponseMode, ResponseStats, QUEUE_FRAMES};

/// The largest body a [`Guard`] reads unless told otherwise: 2 MiB, axum's
/// own default.
pub const DEFAULT_BODY_LIMIT: usize = 2 * 1024 * 1024;

/// How long a [`Guard`] waits for a body unless told otherwise.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a [`Guard`] lets a check take unless told otherwise; past it
/// the request is answered `503`. Every check is linear in its body, so a
/// 2 MiB body takes well under this; the budget is for a machine that is
/// itself overloaded.
pub const DEFAULT_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// The most findings a document reports in a guard's answer unless told
/// otherwise ([`crate::Limits::max_findings`]).
pub const DEFAULT_MAX_FINDINGS: usize = 100;

/// Bodies up to this size are checked on the executor's thread: their
/// check costs microseconds, less than handing it over.
const INLINE_CHECK_BYTES: usize = 16 * 1024;

/// The response header that carries the findings that did not block the
/// request, under [`Warnings::Header`]: a JSON array of diagnostics, in the
/// shape of the CLI's JSON output.
pub const WARNINGS_HEADER: &str = "agui-lint-warnings";

/// The response header that says how many findings did not block the
/// request, under [`Warnings::Header`], also when not all of them fit in
/// [`WARNINGS_HEADER`].
pub const WARNING_COUNT_HEADER: &str = "agui-lint-warning-count";

/// How long [`WARNINGS_HEADER`] may grow: servers and proxies refuse long
/// header sections, so findings past this are counted, not listed.
const WARNINGS_HEADER_BYTES: usize = 4096;

/// What becomes of the findings that do not block a request (warnings and
/// infos).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Warnings {
    /// Logged through `tracing`: warnings at WARN, infos at INFO, each with
    /// its rule, pointer, line and column as fields.
    #[default]
    Log,
    /// Sent back in the [`WARNINGS_HEADER`] and [`WARNING_COUNT_HEADER`]
    /// response headers. Only [`Guard::layer`] sees the response, so this
    /// needs the layer on the route; the extractor alone logs them.
    Header,
}

/// A request body that passed the check: the typed input and the findings
/// that did not block it. [`Guard::layer`] puts it in the request's
/// extensions for the inner service.
#[derive(Debug, Clone)]
pub struct Validated {
    /// The request's `RunAgentInput`.
    pub input: RunAgentInput,
    /// Its warnings and infos, in position order.
    pub findings: Vec<Diagnostic>,
}

/// The check of an AG-UI endpoint's requests: a shared [`Validator`], the
/// body size limit and what becomes of warnings. Cheap to clone; clones
/// share the validator.
#[derive(Clone)]
pub struct Guard {
    /// The validator, or why the process-wide one could not be built.
    validator: Result<Arc<Validator>, Arc<str>>,
    body_limit: usize,
    warnings: Warnings,
    body_timeout: Duration,
    check_timeout: Duration,
    /// The checks that may run off the executor at once.
    checks: Arc<tokio::sync::Semaphore>,
    /// What becomes of the response streams, and their counts.
    responses: response::Responses,
}

/// How many checks run off the executor at once unless told otherwise:
/// half the cores, at least one, so that a burst of large bodies leaves
/// the executor a core to answer other requests with.
fn default_check_concurrency() -> usize {
    std::thread::available_parallelism().map_or(1, |n| (n.get() / 2).max(1))
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("ready", &self.validator.is_ok())
            .field("body_limit", &self.body_limit)
            .field("warnings", &self.warnings)
            .field("body_timeout", &self.body_timeout)
            .field("check_timeout", &self.check_timeout)
            .field("responses", &self.responses.mode())
            .finish()
    }
}

/// The validator of [`Guard::shared`], built on first use.
static SHARED: LazyLock<Result<Arc<Validator>, Arc<str>>> = LazyLock::new(|| {
    Validator::new()
        .map(|validator| Arc::new(with_guard_findings(validator)))
        .map_err(|e| Arc::from(e.to_string()))
});

/// `validator` reporting at most [`DEFAULT_MAX_FINDINGS`] a document,
/// unless its settings already keep fewer.
fn with_guard_findings(validator: Validator) -> Validator {
    let settings = validator.settings().clone();
    let limits = settings.limits();
    let findings = limits.max_findings.min(DEFAULT_MAX_FINDINGS);
    validator.with_settings(settings.with_limits(limits.with_max_findings(findings)))
}

impl Guard {
    /// A guard checking with `validator` (its settings decide which rules
    /// report, how seriously, and whether values are masked).
    pub fn new(validator: Validator) -> Self {
        Guard::from_shared(Arc::new(validator))
    }

    /// A guard checking with a validator the application shares otherwise.
    /// Its documents report at most [`DEFAULT_MAX_FINDINGS`] findings
    /// (fewer if its settings say so; [`Guard::with_max_findings`] says
    /// otherwise).
    pub fn from_shared(validator: Arc<Validator>) -> Self {
        let validator = Arc::new(with_guard_findings((*validator).clone()));
        Guard::with_validator(Ok(validator))
    }

    fn with_validator(validator: Result<Arc<Validator>, Arc<str>>) -> Self {
        Guard {
            validator,
            body_limit: DEFAULT_BODY_LIMIT,
            warnings: Warnings::default(),
            body_timeout: DEFAULT_BODY_TIMEOUT,
            check_timeout: DEFAULT_CHECK_TIMEOUT,
            checks: Arc::new(tokio::sync::Semaphore::new(default_check_concurrency())),
            responses: response::Responses::default(),
        }
    }

    /// The process-wide guard: a validator with the default settings, built
    /// once on first use, and the default limit and [`Warnings`]. Should the
    /// validator fail to build, which the crate's tests rule out, requests
    /// are answered `500` with the reason rather than let through.
    pub fn shared() -> Self {
        static CHECKS: LazyLock<Arc<tokio::sync::Semaphore>> =
            LazyLock::new(|| Arc::new(tokio::sync::Semaphore::new(default_check_concurrency())));
        Guard {
            checks: CHECKS.clone(),
            ..Guard::with_validator(SHARED.clone())
        }
    }

    /// Waits at most `timeout` for a request's body; a client that has not
    /// sent it by then is answered `408` (a slow client cannot hold a
    /// connection open). The default is [`DEFAULT_BODY_TIMEOUT`].
    #[must_use]
    pub fn with_body_timeout(mut self, timeout: Duration) -> Self {
        self.body_timeout = timeout;
        self
    }

    /// Lets a check take at most `timeout` (waiting for room to start it
    /// included); past it the request is answered `503` with the rule
    /// `check-timed-out`. The default is [`DEFAULT_CHECK_TIMEOUT`].
    #[must_use]
    pub fn with_check_timeout(mut self, timeout: Duration) -> Self {
        self.check_timeout = timeout;
        self
    }

    /// Runs at most `checks` checks of large bodies at once, off the
    /// executor (by default half the cores, at least one). Guards cloned
    /// from this one share the bound.
    #[must_use]
    pub fn with_check_concurrency(mut self, checks: usize) -> Self {
        self.checks = Arc::new(tokio::sync::Semaphore::new(checks.max(1)));
        self
    }

    /// Reports at most `findings` findings a document (the rest are
    /// counted in one `too-many-findings`); the default is
    /// [`DEFAULT_MAX_FINDINGS`].
    #[must_use]
    pub fn with_max_findings(mut self, findings: usize) -> Self {
        if let Ok(validator) = &self.validator {
            let settings = validator.settings().clone();
            let limits = settings.limits().with_max_findings(findings);
            self.validator = Ok(Arc::new(
                (**validator)
                    .clone()
                    .with_settings(settings.with_limits(limits)),
            ));
        }
        self
    }

    /// Reads at most `bytes` of a body; a larger one is answered `413`. The
    /// default is [`DEFAULT_BODY_LIMIT`]; under axum, a smaller
    /// `DefaultBodyLimit` on the route wins.
    #[must_use]
    pub fn with_body_limit(mut self, bytes: usize) -> Self {
        self.body_limit = bytes;
        self
    }

    /// Chooses what becomes of findings that do not block a request.
    #[must_use]
    pub fn with_warnings(mut self, warnings: Warnings) -> Self {
        self.warnings = warnings;
        self
    }

    /// The guard judging requests that declare no `protocolVersion` as
    /// `protocol` (a request's own declaration always wins). Shares the
    /// compiled schemas; only the settings change.
    #[must_use]
    pub fn with_protocol(mut self, protocol: crate::ProtocolChoice) -> Self {
        if let Ok(validator) = &self.validator {
            let settings = validator.settings().clone().protocol(protocol);
            self.validator = Ok(Arc::new((**validator).clone().with_settings(settings)));
        }
        self
    }

    /// The largest body read.
    pub fn body_limit(&self) -> usize {
        self.body_limit
    }

    /// What becomes of findings that do not block a request.
    pub fn warnings(&self) -> Warnings {
        self.warnings
    }

    /// The validator, unless the process-wide one could not be built.
    pub fn validator(&self) -> Option<&Validator> {
        self.validator.as_deref().ok()
    }

    /// The tower layer that checks each request with this guard.
    pub fn layer(&self) -> GuardLayer {
        GuardLayer::new(self.clone())
    }

    /// Checks a request's body as [`Guard::check_body`] does, without
    /// holding the executor: a body larger than a few kilobytes is checked
    /// on tokio's blocking pool, at most [`Guard::with_check_concurrency`]
    /// at a time, within [`Guard::with_check_timeout`] (past which the
    /// answer is `503`, while the check runs to its end, bounded as every
    /// check is, still holding its place).
    pub async fn check(&self, path: &str, body: Bytes) -> Result<Validated, Rejection> {
        if body.len() <= INLINE_CHECK_BYTES {
            return self.check_body(path, &body);
        }
        let timeout = self.check_timeout;
        let checks = self.checks.clone();
        let guard = self.clone();
        let path = path.to_string();
        let checked = tokio::time::timeout(timeout, async move {
            let permit = checks
                .acquire_owned()
                .await
                .map_err(|_| Rejection::TimedOut { timeout })?;
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                guard.check_body(&path, &body)
            })
            .await
            .map_err(|e| Rejection::Unavailable(format!("the check failed: {e}")))?
        })
        .await;
        checked.unwrap_or(Err(Rejection::TimedOut { timeout }))
    }

    /// Checks a request's body: the typed input and the findings that do
    /// not block it, or the rejection to answer with. `path` names the
    /// document in a 422 answer. The content type and size are checked by
    /// [`Guard::check_headers`] and while reading the body. This runs on
    /// the calling thread; [`Guard::check`] keeps large bodies off an
    /// async executor.
    pub fn check_body(&self, path: &str, body: &[u8]) -> Result<Validated, Rejection> {
        let validator = self
            .validator
            .as_ref()
            .map_err(|reason| Rejection::Unavailable(reason.to_string()))?;
        let invalid = |report| Rejection::Invalid {
            path: path.to_string(),
            report,
        };
        let (input, findings) = validator
            .check_run_agent_input_with_findings(body)
            .map_err(invalid)?;
        Ok(Validated { input, findings })
    }

    /// Checks a request's headers: a JSON content type, no content
    /// encoding (the guard checks the bytes as sent, and does not expand a
    /// compressed body whose size it cannot bound beforehand), and a
    /// declared length within the limit (so that an oversized body is
    /// refused before it is read).
    pub fn check_headers(&self, headers: &HeaderMap) -> Result<(), Rejection> {
        let content_type = headers.get(CONTENT_TYPE);
        if !content_type.is_some_and(is_json) {
            return Err(Rejection::UnsupportedMediaType {
                found: content_type.map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
            });
        }
        for encoding in headers.get_all(CONTENT_ENCODING) {
            let text = String::from_utf8_lossy(encoding.as_bytes());
            let encoded = text
                .split(',')
                .map(str::trim)
                .any(|e| !e.is_empty() && !e.eq_ignore_ascii_case("identity"));
            if encoded {
                return Err(Rejection::UnsupportedEncoding {
                    encoding: text.into_owned(),
                });
            }
        }
        let declared = headers
            .get(CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if let Some(length) = declared {
            if usize::try_from(length).map_or(true, |l| l > self.body_limit) {
                return Err(Rejection::PayloadTooLarge {
                    limit: self.body_limit,
                });
            }
        }
        Ok(())
    }

    /// Reads `body` whole, within the limit and within the body timeout.
    pub async fn read_body<B>(&self, body: B) -> Result<Bytes, Rejection>
    where
        B: Body,
        B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
        let read = Limited::new(body, self.body_limit).collect();
        let Ok(read) = tokio::time::timeout(self.body_timeout, read).await else {
            return Err(Rejection::BodyTimeout {
                timeout: self.body_timeout,
            });
        };
        match read {
            Ok(collected) => Ok(collected.to_bytes()),
            Err(error) if is_length_limit(&*error) => Err(Rejection::PayloadTooLarge {
                limit: self.body_limit,
            }),
            Err(error) => Err(Rejection::UnreadableBody(error.to_string())),
        }
    }

    /// Logs `findings` that did not block a request, or, under
    /// [`Warnings::Header`] with `header` true, returns the response headers
    /// that carry them.
    fn report_findings(
        &self,
        findings: &[Diagnostic],
        header: bool,
    ) -> Option<(HeaderValue, HeaderValue)> {
        if findings.is_empty() {
            return None;
        }
        if header && self.warnings == Warnings::Header {
            return Some(warnings_headers(findings));
        }
        for d in findings {
            let (line, column) = d
                .location
                .map_or((None, None), |l| (Some(l.line), Some(l.column)));
            match d.severity {
                Severity::Info => tracing::info!(
                    target: "agui_lint",
                    rule = %d.rule, pointer = %d.pointer, line, column,
                    "{}", d.message
                ),
                Severity::Warning | Severity::Error => tracing::warn!(
                    target: "agui_lint",
                    rule = %d.rule, pointer = %d.pointer, line, column,
                    "{}", d.message
                ),
            }
        }
        None
    }
}

/// `application/json` or `application/*+json`, with any parameters.
fn is_json(value: &HeaderValue) -> bool {
    let Ok(text) = value.to_str() else {
        return false;
    };
    let essence = text.split(';').next().unwrap_or_default().trim();
    let Some((kind, subtype)) = essence.split_once('/') else {
        return false;
    };
    kind.eq_ignore_ascii_case("application")
        && (subtype.eq_ignore_ascii_case("json")
            || subtype.len() > 5 && subtype[subtype.len() - 5..].eq_ignore_ascii_case("+json"))
}

/// Whether `error`, or an error it wraps, is a body over its limit.
fn is_length_limit(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = Some(error);
    while let Some(error) = current {
        if error.is::<LengthLimitError>() {
            return true;
        }
        current = error.source();
    }
    false
}

/// The [`WARNINGS_HEADER`] and [`WARNING_COUNT_HEADER`] values for
/// `findings`: as many as fit, as a JSON array written in ASCII (header
/// values allow nothing else).
fn warnings_headers(findings: &[Diagnostic]) -> (HeaderValue, HeaderValue) {
    let mut list = String::from("[");
    for d in findings {
        let Ok(json) = serde_json::to_string(d) else {
            continue;
        };
        let json = ascii_json(&json);
        if list.len() + json.len() + 2 > WARNINGS_HEADER_BYTES {
            break;
        }
        if list.len() > 1 {
            list.push(',');
        }
        list.push_str(&json);
    }
    list.push(']');
    // ASCII without control characters (serde escapes them): always a
    // valid header value; an empty list if not, never a panic.
    let list = HeaderValue::from_str(&list).unwrap_or(HeaderValue::from_static("[]"));
    (list, HeaderValue::from(findings.len()))
}

/// `json` with every character beyond ASCII written as a `\u` escape, which
/// leaves the JSON meaning the same.
fn ascii_json(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_content_types() {
        for (text, json) in [
            ("application/json", true),
            ("Application/JSON; charset=utf-8", true),
            ("application/vnd.ag-ui+json", true),
            ("application/+json", false),
            ("text/plain", false),
            ("application/jsonl", false),
            ("text/json", false),
        ] {
            assert_eq!(is_json(&HeaderValue::from_static(text)), json, "{text}");
        }
    }

    #[test]
    fn text_the_typed_reader_refuses_is_read_from_the_checked_document() {
        let guard = Guard::new(Validator::new().unwrap());
        // An unpaired surrogate escape: a warning for agui-lint, an error
        // for serde's typed reader.
        let body = br#"{"threadId":"t","runId":"r","state":{},"tools":[],"context":[],
            "forwardedProps":{},"messages":[{"id":"m","role":"user","content":"a\ud800"}]}"#;
        let validated = guard.check_body("/agent", body).unwrap();
        assert_eq!(validated.input.run_id, "r");
        assert_eq!(
            validated.findings[0].rule,
            crate::rules::interop::LONE_SURROGATE.name
        );
        let rejection = guard.check_body("/agent", b"[]").unwrap_err();
        assert_eq!(rejection.status(), 422);
        assert_eq!(
            rejection.report().unwrap().diagnostics()[0].rule,
            crate::rules::schema::WRONG_TYPE.name
        );
    }

    #[test]
    fn warnings_header_is_ascii_json_within_its_bound() {
        let finding = crate::rules::UNKNOWN_FIELD.diagnostic("/é", "unknown key 'é'");
        let (list, count) = warnings_headers(&vec![finding; 100]);
        assert!(list.len() <= WARNINGS_HEADER_BYTES);
        assert_eq!(count, "100");
        let parsed: serde_json::Value = serde_json::from_slice(list.as_bytes()).unwrap();
        let shown = parsed.as_array().unwrap();
        assert!(!shown.is_empty() && shown.len() < 100);
        assert_eq!(shown[0]["pointer"], "/é");
    }
}
