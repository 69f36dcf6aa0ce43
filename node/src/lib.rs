//! The Node binding of agui-lint: the native half of the `agui-lint` npm
//! package, whose JavaScript half (`index.js`) gives it its API.
//!
//! Every check is the root crate's: this module only moves bytes in and
//! JSON out. Results cross into JavaScript as the JSON document of
//! `agui-lint check --format json`, the one format every agui-lint binding
//! shares, so a finding reads the same from the CLI, Python and Node; a
//! document without findings crosses as one number (`verdict`), as a
//! guard's clean request should cost no more than its check. A
//! check over a large body runs as napi async work, off the JavaScript
//! thread (`checkAsync`); `index.js` picks it above a threshold.

mod kit;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use agui_lint::unstable::check::{self, Checked, Outcome};
use agui_lint::unstable::input::Layout;
use agui_lint::unstable::render::{self, Format, Options};
use agui_lint::{rules, Kind, Protocol, ProtocolChoice, Report, Settings, Severity};
use napi::bindgen_prelude::{AsyncTask, Buffer, Either};
use napi::{Env, Error, Result, Task};
use napi_derive::napi;

/// Rust's allocations in the addon, as in the CLI: see `Cargo.toml`.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The schemas of every kind and version, compiled once per process; each
/// `Validator` shares them and adds its own settings.
static COMPILED: LazyLock<std::result::Result<agui_lint::Validator, String>> =
    LazyLock::new(|| agui_lint::Validator::new().map_err(|e| e.to_string()));

/// The compiled schemas, shared.
pub(crate) fn compiled() -> Result<agui_lint::Validator> {
    COMPILED.clone().map_err(invalid)
}

/// A setting or argument that is not valid, as a JavaScript `Error`.
pub(crate) fn invalid(error: impl std::fmt::Display) -> Error {
    Error::from_reason(error.to_string())
}

/// The options of `new Validator(options)`, as `index.js` passes them on
/// (JSON text). An unknown option is refused, so a misspelt one is not
/// silently ignored.
#[derive(Debug, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ValidatorOptions {
    protocol: Option<String>,
    client: Option<String>,
    select: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
    severity: Option<BTreeMap<String, String>>,
    mask_values: Option<bool>,
    config: Option<PathBuf>,
    max_findings: Option<usize>,
    max_document_size: Option<usize>,
    max_state_size: Option<usize>,
    max_total_state_size: Option<usize>,
}

/// A severity named as in every output format.
fn parse_severity(name: &str) -> Result<Severity> {
    Severity::from_name(name).ok_or_else(|| {
        invalid(format!(
            "unknown severity '{name}' (expected error, warning or info)"
        ))
    })
}

/// The settings `options` describe, over a configuration file's when one
/// is named.
fn settings(options: ValidatorOptions) -> Result<Settings> {
    let choice: ProtocolChoice = options
        .protocol
        .as_deref()
        .unwrap_or("auto")
        .parse()
        .map_err(invalid)?;
    let mut settings = match &options.config {
        Some(path) => Settings::load(path).map_err(invalid)?,
        None => Settings::default(),
    };
    // "auto" leaves a configuration file's choice standing.
    if options.config.is_none() || choice != ProtocolChoice::Auto {
        settings = settings.protocol(choice);
    }
    if let Some(select) = options.select {
        settings = settings.select(select).map_err(invalid)?;
    }
    if let Some(ignore) = options.ignore {
        settings = settings.ignore(ignore).map_err(invalid)?;
    }
    for (rule, name) in options.severity.unwrap_or_default() {
        settings = settings
            .severity(&rule, parse_severity(&name)?)
            .map_err(invalid)?;
    }
    if options.mask_values == Some(true) {
        settings = settings.mask_values(true);
    }
    if let Some(client) = &options.client {
        settings = settings.client(client.parse().map_err(invalid)?);
    }
    let mut limits = settings.limits();
    if let Some(findings) = options.max_findings {
        limits = limits.with_max_findings(findings);
    }
    if let Some(bytes) = options.max_document_size {
        limits = limits.with_max_document_bytes(bytes);
    }
    if let Some(bytes) = options.max_state_size {
        limits = limits.with_max_state_bytes(bytes);
    }
    if let Some(bytes) = options.max_total_state_size {
        limits = limits.with_max_total_state_bytes(bytes);
    }
    Ok(settings.with_limits(limits))
}

/// A kind name, or `None` for `"auto"` (told from the document's shape).
fn kind(name: Option<&str>) -> Result<Option<Kind>> {
    match name {
        None | Some("auto") => Ok(None),
        Some(name) => name.parse::<Kind>().map(Some).map_err(invalid),
    }
}

/// Checks one document of `kind` (or of the kind its shape tells).
fn check_document(validator: &agui_lint::Validator, kind: Option<Kind>, bytes: &[u8]) -> Report {
    match kind {
        Some(kind) => validator.validate(kind, bytes),
        None => validator.validate_detected(bytes),
    }
}

/// The native validator behind `index.js`'s `Validator`: the compiled
/// schemas (shared by every validator of the process) and its settings.
#[napi(js_name = "NativeValidator")]
pub struct NativeValidator {
    inner: Arc<agui_lint::Validator>,
}

#[napi]
impl NativeValidator {
    /// A validator with the settings of `options` (JSON text of the
    /// `ValidatorOptions` object; empty for the defaults).
    #[napi(constructor)]
    pub fn new(options: Option<String>) -> Result<Self> {
        let options: ValidatorOptions = match options.as_deref() {
            None | Some("") => ValidatorOptions::default(),
            Some(text) => serde_json::from_str(text).map_err(|e| invalid(format!("{e}")))?,
        };
        let settings = settings(options)?;
        let compiled = COMPILED.clone().map_err(invalid)?;
        Ok(NativeValidator {
            inner: Arc::new(compiled.with_settings(settings)),
        })
    }

    /// The most findings a document reports.
    #[napi(getter)]
    pub fn max_findings(&self) -> u32 {
        u32::try_from(self.inner.limits().max_findings).unwrap_or(u32::MAX)
    }

    /// Checks `body` as a document of `kind` (`"auto"` or absent: told from
    /// its shape) on this thread.
    #[napi]
    pub fn check(&self, kind: Option<String>, body: Buffer) -> Result<NativeReport> {
        let kind = self::kind(kind.as_deref())?;
        Ok(NativeReport {
            report: check_document(&self.inner, kind, &body),
        })
    }

    /// `check` for the request path, where nearly every body is clean:
    /// `kind` is an index into `kinds()` (`u32::MAX`: told from the shape),
    /// and a document without findings comes back as a plain number, its
    /// `cleanCode` (protocol and kind), since making a `NativeReport` costs
    /// a JavaScript object and a wrap per call. A document with findings
    /// comes back as its `NativeReport`.
    #[napi(ts_return_type = "number | NativeReport")]
    pub fn verdict(&self, kind: u32, body: Buffer) -> Result<Either<u32, NativeReport>> {
        let kind = match kind {
            u32::MAX => None,
            index => Some(
                *Kind::ALL
                    .get(index as usize)
                    .ok_or_else(|| invalid(format!("no kind has the index {index}")))?,
            ),
        };
        let report = check_document(&self.inner, kind, &body);
        Ok(match clean_code(&report) {
            Some(code) => Either::A(code),
            None => Either::B(NativeReport { report }),
        })
    }

    /// `check`, as napi async work on libuv's thread pool: the JavaScript
    /// thread goes on while the body is checked. The body is copied first,
    /// as JavaScript may change a buffer it still holds.
    #[napi(ts_return_type = "Promise<NativeReport>")]
    pub fn check_async(&self, kind: Option<String>, body: Buffer) -> Result<AsyncTask<CheckTask>> {
        let kind = self::kind(kind.as_deref())?;
        Ok(AsyncTask::new(CheckTask {
            validator: Arc::clone(&self.inner),
            kind,
            body: body.to_vec(),
        }))
    }

    /// Checks a whole captured stream (`format`: `sse`, `jsonl`, `har` or
    /// `auto`), paired with the `request` it answers (JSON text) when
    /// given.
    #[napi]
    pub fn check_stream(
        &self,
        body: Buffer,
        format: String,
        kind: Option<String>,
        path: String,
        request: Option<String>,
    ) -> Result<NativeStreamResult> {
        let kind = self::kind(kind.as_deref())?;
        let request = request.as_deref().map(parsed_request).transpose()?;
        let layout = check::capture_layout(&format, &body).map_err(invalid)?;
        let outcome =
            check::check_capture(&self.inner, &body, layout, kind, &path, request.as_ref())
                .map_err(invalid)?;
        Ok(NativeStreamResult { outcome })
    }
}

/// A check of one document as async work.
pub struct CheckTask {
    validator: Arc<agui_lint::Validator>,
    kind: Option<Kind>,
    body: Vec<u8>,
}

impl Task for CheckTask {
    type Output = Report;
    type JsValue = NativeReport;

    fn compute(&mut self) -> Result<Report> {
        Ok(check_document(&self.validator, self.kind, &self.body))
    }

    fn resolve(&mut self, _env: Env, report: Report) -> Result<NativeReport> {
        Ok(NativeReport { report })
    }
}

/// What a check found in one document. Its verdict and counts are read
/// without any conversion; the findings cross as the `--format json`
/// document only when asked for, so a clean request costs no rendering.
#[napi(js_name = "NativeReport")]
pub struct NativeReport {
    report: Report,
}

#[napi]
impl NativeReport {
    /// No error left (warnings allowed).
    #[napi(getter)]
    pub fn valid(&self) -> bool {
        self.report.is_valid()
    }

    /// The protocol version that judged the document.
    #[napi(getter)]
    pub fn protocol(&self) -> &'static str {
        self.report.protocol().as_str()
    }

    /// The kind the document was checked as, if it could be told.
    #[napi(getter)]
    pub fn kind(&self) -> Option<&'static str> {
        self.report.kind().map(|k| k.as_str())
    }

    /// How many findings there are, of every severity.
    #[napi(getter)]
    pub fn findings(&self) -> u32 {
        u32::try_from(self.report.diagnostics().len()).unwrap_or(u32::MAX)
    }

    /// How many findings are errors.
    #[napi(getter)]
    pub fn errors(&self) -> u32 {
        count(&self.report, Severity::Error)
    }

    /// How many findings are warnings.
    #[napi(getter)]
    pub fn warnings(&self) -> u32 {
        count(&self.report, Severity::Warning)
    }

    /// How many findings are infos.
    #[napi(getter)]
    pub fn infos(&self) -> u32 {
        count(&self.report, Severity::Info)
    }

    /// The `--format json` document of this one document, shown under
    /// `path`.
    #[napi]
    pub fn json(&self, path: String) -> String {
        render::document_json(&path, None, &self.report)
    }
}

/// The code `verdict` gives a document without findings: the index of its
/// protocol in `protocols()` times 16, plus one more than the index of its
/// kind in `kinds()` (0: no kind told).
fn clean_code(report: &Report) -> Option<u32> {
    const {
        assert!(
            Kind::ALL.len() < 16,
            "a kind's index must fit in a clean code's four bits"
        )
    };
    if !report.diagnostics().is_empty() {
        return None;
    }
    let protocol = Protocol::ALL.iter().position(|p| *p == report.protocol())?;
    let kind = match report.kind() {
        None => 0,
        Some(kind) => Kind::ALL.iter().position(|k| *k == kind)? + 1,
    };
    u32::try_from(protocol * 16 + kind).ok()
}

fn count(report: &Report, severity: Severity) -> u32 {
    u32::try_from(report.count(severity)).unwrap_or(u32::MAX)
}

/// The JSON of the request a stream answers.
fn parsed_request(text: &str) -> Result<serde_json::Value> {
    serde_json::from_str(text).map_err(|e| invalid(format!("the request is not JSON: {e}")))
}

/// The `--format json` document of `found`, or `None` when it is empty
/// (the common case for a chunk of a healthy stream: nothing to convert).
fn found_json(found: Vec<Checked>) -> Option<String> {
    if found.is_empty() {
        return None;
    }
    let mut outcome = Outcome::default();
    found.into_iter().for_each(|c| outcome.push(c));
    Some(render::render(Format::Json, &outcome, &Options::default()))
}

/// The native stream checker behind `index.js`'s `StreamChecker`: bytes fed
/// as they come, split anywhere.
#[napi(js_name = "NativeStreamChecker")]
pub struct NativeStreamChecker {
    /// `None` once finished.
    inner: Option<agui_lint::StreamChecker>,
    /// How many records the stream held, once finished.
    finished: u32,
}

#[napi]
impl NativeStreamChecker {
    /// A checker of a stream framed as `format` (`sse`, `jsonl` or `auto`),
    /// answering `request` (JSON text) when given.
    #[napi(constructor)]
    pub fn new(
        validator: &NativeValidator,
        format: String,
        kind: Option<String>,
        path: String,
        request: Option<String>,
    ) -> Result<Self> {
        let framing = check::stream_framing(&format).map_err(invalid)?;
        let kind = self::kind(kind.as_deref())?;
        let request = request.as_deref().map(parsed_request).transpose()?;
        let checker =
            check::stream_checker(&validator.inner, framing, kind, &path, request.as_ref());
        Ok(NativeStreamChecker {
            inner: Some(checker),
            finished: 0,
        })
    }

    /// Feeds the next chunk; the `--format json` document of the records it
    /// made final that have findings, or nothing when none has.
    #[napi]
    pub fn feed(&mut self, chunk: Buffer) -> Result<Option<String>> {
        let checker = self
            .inner
            .as_mut()
            .ok_or_else(|| invalid("the stream was finished"))?;
        Ok(found_json(checker.feed(&chunk)))
    }

    /// Ends the stream: the records left that have findings, with what the
    /// end found still open.
    #[napi]
    pub fn finish(&mut self) -> Result<Option<String>> {
        let checker = self
            .inner
            .take()
            .ok_or_else(|| invalid("the stream was finished"))?;
        let (found, records) = checker.finish_counted();
        self.finished = u32::try_from(records).unwrap_or(u32::MAX);
        Ok(found_json(found))
    }

    /// How many records (events, lines) have been checked so far; once
    /// finished, how many the stream held.
    #[napi(getter)]
    pub fn records(&self) -> u32 {
        self.inner.as_ref().map_or(self.finished, |c| {
            u32::try_from(c.records()).unwrap_or(u32::MAX)
        })
    }
}

/// What a check of a whole stream found, record by record.
#[napi(js_name = "NativeStreamResult")]
pub struct NativeStreamResult {
    outcome: Outcome,
}

#[napi]
impl NativeStreamResult {
    /// The document `agui-lint check --format json` prints for the stream.
    #[napi]
    pub fn json(&self) -> String {
        render::render(Format::Json, &self.outcome, &Options::default())
    }

    /// What `agui-lint check` prints for the stream (its human format);
    /// `color` adds ANSI colours.
    #[napi]
    pub fn text(&self, color: Option<bool>) -> String {
        let options = Options {
            color: color.unwrap_or(false),
            ..Options::default()
        };
        render::render(Format::Human, &self.outcome, &options)
    }
}

/// What `agui-lint check` prints (its human format) for `body` checked as
/// one document of `kind` by `validator`: each finding with its source
/// line, a caret and help, then the summary line.
#[napi]
pub fn document_text(
    validator: &NativeValidator,
    kind: Option<String>,
    body: Buffer,
    path: String,
    color: Option<bool>,
) -> Result<String> {
    let kind = self::kind(kind.as_deref())?;
    let outcome = check::check_capture(&validator.inner, &body, Layout::Json, kind, &path, None)
        .map_err(invalid)?;
    let options = Options {
        color: color.unwrap_or(false),
        ..Options::default()
    };
    Ok(render::render(Format::Human, &outcome, &options))
}

/// Every rule agui-lint can report, as JSON (`agui-lint rule --all
/// --format json`'s fields: name, severity, summary, docs, protocols).
#[napi]
pub fn rules_json() -> String {
    let list: Vec<serde_json::Value> = rules::all()
        .iter()
        .map(|rule| {
            serde_json::json!({
                "name": rule.name,
                "severity": rule.severity.as_str(),
                "summary": rule.summary,
                "docs": rule.docs,
                "protocols": rule.protocols().iter().map(|p| p.as_str()).collect::<Vec<_>>(),
            })
        })
        .collect();
    serde_json::Value::Array(list).to_string()
}

/// The names of the kinds of document `validate` checks.
#[napi]
pub fn kinds() -> Vec<&'static str> {
    Kind::ALL.iter().map(|k| k.as_str()).collect()
}

/// The names of the protocol versions, in the order `verdict`'s clean
/// codes count them.
#[napi]
pub fn protocols() -> Vec<&'static str> {
    Protocol::ALL.iter().map(|p| p.as_str()).collect()
}

/// The version of agui-lint the addon was built from.
#[napi]
pub fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}
