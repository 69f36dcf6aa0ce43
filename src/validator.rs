//! The validator: parse, tell the kind and the protocol version, check
//! against the version's compiled schema, locate what was found.

use std::sync::{Arc, LazyLock};

use memchr::memmem;
use serde_json::Value;

use crate::diagnostic::{Diagnostic, Location};
use crate::encoding;
use crate::fast;
use crate::findings::{Capped, Findings};
use crate::limits::{self, PARSER_DEPTH};
use crate::locate::{self, Locator};
use crate::parse;
use crate::protocol::Protocol;
use crate::report::Report;
use crate::rules::{self, version, EventPlace, EventView, Interrupted, Sequence};
pub use crate::schema::BuildError;
use crate::schema::{self, Schemas};
use crate::settings::Settings;
use crate::types::RunAgentInput;
use crate::Kind;

mod by_message;
mod noticed;

use noticed::{Noted, Noticed};

/// Finds the key every RunAgentInput has, built once.
static THREAD_ID_KEY: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"\"threadId\""));

/// Finds the event type that declares a stream's version, built once.
static RUN_STARTED: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"RUN_STARTED"));

/// Checks AG-UI documents. Compiles each kind's schema of each protocol
/// version once (all of them in [`Self::new`], each when a document first
/// needs it in [`Self::compiling_on_demand`]); build one and share it (it
/// is `Send + Sync`), for example across a server's requests. A clone
/// shares the compiled schemas, so a validator with other settings costs
/// nothing to make from one.
#[derive(Clone)]
pub struct Validator {
    /// Every kind's schema of every version, compiled once.
    schemas: Arc<Schemas>,
    /// By [`Protocol::index`]: what each event type may carry, read from
    /// the event schema, for reading events without a `Value`.
    event_shapes: Arc<Vec<fast::EventShapes>>,
    settings: Settings,
}

/// An event of a stream as its own check left it, for the sequence rules.
pub(crate) enum StreamEvent<'a> {
    /// Parsed by the full path.
    Parsed(Value),
    /// Read without a `Value` by the fast path, which found it clean.
    Read(fast::Event<'a>),
}

impl StreamEvent<'_> {
    /// The event as the sequence rules read it.
    pub(crate) fn view(&self) -> EventView<'_> {
        match self {
            StreamEvent::Parsed(value) => EventView::Value(value),
            StreamEvent::Read(event) => EventView::Read(event),
        }
    }
}

/// Which version judges each event of a stream, told in stream order: kept
/// apart from the rest of [`EventStream`] so that a capture's records can
/// be given their versions before they are checked out of order.
#[derive(Debug, Default, Clone)]
pub(crate) struct StreamVersions {
    /// The version the current run's `RUN_STARTED` declared, which judges
    /// the events that follow it.
    declared: Option<Protocol>,
    /// The version a run that declares none is judged by, when the stream
    /// has one of its own (the request of a captured exchange).
    assumed: Option<Protocol>,
}

impl StreamVersions {
    /// The version the record `bytes`, the stream's next, is judged by if
    /// it is an event that declares none itself: a `RUN_STARTED` starts a
    /// run and brings its own declaration (or none); other events keep the
    /// current run's. Cheap for every record but `RUN_STARTED`, which is
    /// read once more here.
    pub(crate) fn protocol_for(&mut self, bytes: &[u8], default: Protocol) -> Protocol {
        if RUN_STARTED.find(bytes).is_some() {
            if let Ok(event) = serde_json::from_slice::<Value>(bytes) {
                if event.get("type").and_then(Value::as_str) == Some("RUN_STARTED") {
                    self.declared = version::declared_by_run_started(&event)
                        .map(|(_, text)| Protocol::from_declaration(text).judged_as());
                }
            }
        }
        self.declared.or(self.assumed).unwrap_or(default)
    }
}

/// One stream of events being checked in order: what is open (the run,
/// messages, tool calls, steps) and the state built so far. Memory grows
/// with what is open, never with the number of events.
#[derive(Debug, Default)]
pub struct EventStream {
    sequence: Sequence,
    events: usize,
    last: Option<EventPlace>,
    versions: StreamVersions,
}

impl EventStream {
    /// A stream with no event yet.
    pub fn new() -> Self {
        EventStream::default()
    }

    /// How many events the stream has had.
    pub fn events(&self) -> usize {
        self.events
    }

    /// Sets the version the stream's events are judged by where no
    /// `RUN_STARTED` declares one, for example the version the request of
    /// a captured exchange declared.
    pub fn assume_protocol(&mut self, protocol: Protocol) {
        self.versions.assumed = Some(protocol);
    }

    /// The version the record `bytes`, the stream's next, is judged by (see
    /// [`StreamVersions::protocol_for`]).
    pub(crate) fn protocol_for(&mut self, bytes: &[u8], default: Protocol) -> Protocol {
        self.versions.protocol_for(bytes, default)
    }

    /// Sets the `protocolVersion` the request of a captured exchange
    /// declared: a `RUN_STARTED` declaring another is reported.
    pub fn expect_version(&mut self, declared: &str) {
        self.sequence.expect_version(declared);
    }

    /// Pairs the stream with the `RunAgentInput` it answers (a parsed
    /// request): the version it declared judges a run that declares none,
    /// and is the one `RUN_STARTED` must declare; the tool calls its
    /// messages made may be answered by `TOOL_CALL_RESULT`s; its state is
    /// the baseline of `STATE_DELTA`s when `RUN_STARTED` echoes no input.
    pub fn answer(&mut self, input: &Value) {
        if let Some(declared) = input.get("protocolVersion").and_then(Value::as_str) {
            self.assume_protocol(Protocol::from_declaration(declared).judged_as());
        }
        self.sequence.answer(input);
    }

    /// How the stream's latest 1.x run finished: the interrupts the next
    /// request on its thread answers.
    pub(crate) fn interrupted(&self) -> Option<&Interrupted> {
        self.sequence.interrupted()
    }

    fn feed(
        &mut self,
        event: EventView<'_>,
        protocol: Protocol,
        record: Option<usize>,
        location: Option<Location>,
        out: &mut impl Findings,
    ) {
        self.events += 1;
        let place = EventPlace {
            index: self.events,
            record,
            pointer: String::new(),
            location,
        };
        self.sequence.event(event, protocol, &place, out);
        self.last = Some(place);
    }
}

impl Validator {
    /// Compiles the schemas of every kind of every protocol version, so
    /// that no document waits for one: what a server wants.
    pub fn new() -> Result<Self, BuildError> {
        let validator = Validator::compiling_on_demand();
        validator.schemas.compile_all()?;
        Ok(validator)
    }

    /// A validator that compiles each schema the first time a document
    /// needs it: quicker to build and smaller for a run that meets few
    /// kinds and versions, such as the CLI over a capture of events. Should
    /// one of agui-lint's own schemas not compile (which its tests rule
    /// out, and which [`Self::new`] returns as an error), a document that
    /// needs it gets a `schema-violation` error saying so.
    pub fn compiling_on_demand() -> Self {
        let event_shapes = Protocol::ALL
            .into_iter()
            .map(|protocol| {
                schema::generate(protocol, Kind::Event)
                    .map(|schema| fast::EventShapes::of_schema(&schema))
                    .unwrap_or_default()
            })
            .collect();
        Validator {
            schemas: Arc::new(Schemas::new()),
            event_shapes: Arc::new(event_shapes),
            settings: Settings::default(),
        }
    }

    /// The validator with `settings` deciding which rules report and how
    /// seriously.
    #[must_use]
    pub fn with_settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// Checks `bytes` as a document of `kind`.
    pub fn validate(&self, kind: Kind, bytes: &[u8]) -> Report {
        self.check_bytes(Some(kind), bytes, None).0
    }

    /// Checks `bytes`, telling its kind from its shape ([`Kind::detect`]).
    /// A document whose kind cannot be told gets an `unknown-kind` error.
    pub fn validate_detected(&self, bytes: &[u8]) -> Report {
        self.check_bytes(None, bytes, None).0
    }

    /// Checks the `RunAgentInput` of a captured exchange that follows
    /// `previous`, how the exchange before it ended: a 1.x input's resume
    /// entries must answer that run's interrupts.
    pub(crate) fn validate_following(
        &self,
        bytes: &[u8],
        previous: Option<&Interrupted>,
    ) -> Report {
        let mut report = self.validate(Kind::RunAgentInput, bytes);
        let Some(previous) = previous.filter(|_| report.protocol().is_1x()) else {
            return report;
        };
        let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
            return report;
        };
        let mut found = self.sink();
        rules::check_resume(&value, previous, &mut found);
        let mut diagnostics = found.finish();
        self.settings.apply(&mut diagnostics);
        if !diagnostics.is_empty() {
            let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
            locate_all(text, true, &mut diagnostics);
            report.extend(diagnostics);
        }
        report
    }

    /// Checks an already parsed document of `kind`. Diagnostics carry no
    /// line and column, as there is no source text; repeated keys cannot be
    /// seen in a parsed value.
    pub fn validate_value(&self, kind: Kind, value: &Value) -> Report {
        let (protocol, declaration) = self.judge_version(kind, value, None);
        let mut found = self.sink();
        if let Some(declaration) = declaration {
            found.push(declaration);
        }
        self.check_value(
            protocol,
            kind,
            value,
            foldhash::HashSet::default(),
            &mut found,
        );
        self.report(Some(kind), found.finish())
            .with_protocol(protocol)
    }

    /// A sink for one document's findings, within the settings' limit.
    fn sink(&self) -> Capped<'_, Settings> {
        Capped::new(&self.settings, self.settings.limits().max_findings)
    }

    /// For servers: the typed `RunAgentInput` when `bytes` is a valid one
    /// (warnings allowed), else the report saying why not.
    pub fn check_run_agent_input(&self, bytes: &[u8]) -> Result<RunAgentInput, Report> {
        self.check_run_agent_input_with_findings(bytes)
            .map(|(input, _)| input)
    }

    /// As [`Self::check_run_agent_input`], also handing back the findings
    /// that did not make the input invalid (warnings and infos), for a
    /// server to log or return.
    pub fn check_run_agent_input_with_findings(
        &self,
        bytes: &[u8],
    ) -> Result<(RunAgentInput, Vec<Diagnostic>), Report> {
        let (report, kept) = self.check_bytes(Some(Kind::RunAgentInput), bytes, None);
        if !report.is_valid() {
            return Err(report);
        }
        let protocol = report.protocol();
        let typed = match kept {
            // Read from the checked value, which holds a lone surrogate
            // escape as U+FFFD where serde's reader of the bytes refuses it.
            Kept::Value(value) => read_run_agent_input(protocol, value),
            // Checked a message at a time: parsed again, as the full path
            // would have.
            Kept::Parts => match parse::parse(bytes) {
                Ok(parsed) => read_run_agent_input(protocol, parsed.value),
                Err(_) => serde_json::from_slice(bytes),
            },
            // The fast path found the bytes clean without building a value.
            Kept::Nothing => serde_json::from_slice(bytes),
        };
        let findings = report.into_diagnostics();
        match typed {
            Ok(input) => Ok((input, findings)),
            Err(e) => {
                // The schema and the types are generated from one source,
                // so this is not expected; still a report, never a panic.
                let mut diagnostics = findings;
                diagnostics.push(crate::rules::SCHEMA_VIOLATION.diagnostic(
                    "",
                    format!("the document passed the schema but not the typed reader: {e}"),
                ));
                Err(self
                    .report(Some(Kind::RunAgentInput), diagnostics)
                    .with_protocol(protocol))
            }
        }
    }

    /// Checks one record of an event stream (a JSON Lines line, an SSE
    /// event, a HAR response's event) as `kind`, or as detected when `None`.
    /// When the record is an event it is also checked against the events
    /// before it (the sequence rules).
    ///
    /// `record` and `location` say where the record's document starts, for
    /// notes that later events make about this one: the record number and
    /// the location of its first character, in the coordinates the caller
    /// reports in.
    pub fn validate_in_stream(
        &self,
        stream: &mut EventStream,
        kind: Option<Kind>,
        bytes: &[u8],
        record: Option<usize>,
        location: Option<Location>,
    ) -> Report {
        let protocol = stream.protocol_for(bytes, self.settings.default_protocol());
        let (mut report, event) = self.check_record(kind, bytes, protocol);
        if let Some(event) = event {
            let sequence = self.continue_stream(
                stream,
                event.view(),
                report.protocol(),
                bytes,
                record,
                location,
            );
            if !sequence.is_empty() {
                report.extend(sequence);
            }
        }
        report
    }

    /// The first half of [`Self::validate_in_stream`], which may run on any
    /// thread: the record's own check, and the event when it is one (for
    /// [`Self::continue_stream`], in stream order). An event that declares
    /// no version is judged by `stream_protocol`, which
    /// [`EventStream::protocol_for`] told in stream order.
    ///
    /// Most records of a capture are clean events: they are read without a
    /// `Value` ([`fast::read_clean_event`]); the rest take the full path.
    pub(crate) fn check_record<'a>(
        &self,
        kind: Option<Kind>,
        bytes: &'a [u8],
        stream_protocol: Protocol,
    ) -> (Report, Option<StreamEvent<'a>>) {
        if kind.is_none_or(|k| k == Kind::Event) {
            let shapes = &self.event_shapes[stream_protocol.index()];
            let limits = self.settings.limits();
            if let Some(event) = fast::read_clean_event(shapes, bytes, limits, stream_protocol) {
                let report = self
                    .report(Some(Kind::Event), Vec::new())
                    .with_protocol(stream_protocol);
                return (report, Some(StreamEvent::Read(event)));
            }
        }
        let (report, kept) = self.check_bytes(kind, bytes, Some(stream_protocol));
        let event = kept
            .value()
            .filter(|_| report.kind() == Some(Kind::Event))
            .map(StreamEvent::Parsed);
        (report, event)
    }

    /// The second half of [`Self::validate_in_stream`], in stream order: the
    /// sequence findings of `event` (parsed from `bytes`, judged by
    /// `protocol`), located in `bytes`, with the settings applied.
    pub(crate) fn continue_stream(
        &self,
        stream: &mut EventStream,
        event: EventView<'_>,
        protocol: Protocol,
        bytes: &[u8],
        record: Option<usize>,
        location: Option<Location>,
    ) -> Vec<Diagnostic> {
        let mut found = self.sink();
        stream
            .sequence
            .limit_state(self.settings.limits().state_limit());
        stream.feed(event, protocol, record, location, &mut found);
        let mut diagnostics = found.finish();
        self.settings.apply(&mut diagnostics);
        if !diagnostics.is_empty() {
            // Located as the record's own findings were: after a byte order
            // mark, which `check_record` reported and skipped.
            let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
            locate_all(text, true, &mut diagnostics);
        }
        diagnostics
    }

    /// Ends `stream`: findings about what is still open (a run never
    /// finished, a message never ended), placed on the stream's last event
    /// (at the location it was given) with the settings applied. Empty when
    /// the stream had no event.
    pub fn finish_stream(&self, stream: &mut EventStream) -> Vec<Diagnostic> {
        let mut found = self.sink();
        stream.sequence.finish(&mut found);
        let mut diagnostics = found.finish();
        if let Some(last) = &stream.last {
            for diagnostic in &mut diagnostics {
                diagnostic.location = last.location;
            }
        }
        self.settings.apply(&mut diagnostics);
        diagnostics
    }

    /// The report of findings made outside the validator (about a capture
    /// rather than a document in it), after the settings had their say.
    pub(crate) fn report_of(&self, diagnostics: Vec<Diagnostic>) -> Report {
        self.report(None, diagnostics)
    }

    /// The limits documents are checked within.
    pub fn limits(&self) -> crate::Limits {
        self.settings.limits()
    }

    /// The report of a document of `length` bytes, over the size limit,
    /// which was not read whole.
    pub(crate) fn oversized(&self, length: usize) -> Report {
        let limit = self.settings.limits().max_document_bytes;
        let mut finding = crate::rules::DOCUMENT_TOO_LARGE.diagnostic("",
            format!("the document is {length} bytes, over the limit of {limit}"),
        )
        .with_help("it was not checked; raise the limit with --max-document-size (max-document-bytes under [limits]) if it is expected");
        finding.location = Some(Location { line: 1, column: 1 });
        self.report(None, vec![finding])
    }

    /// The report of `diagnostics` after the settings had their say,
    /// judged by the configured default version (callers that judged by
    /// another say so with [`Report::with_protocol`]).
    fn report(&self, kind: Option<Kind>, mut diagnostics: Vec<Diagnostic>) -> Report {
        self.settings.apply(&mut diagnostics);
        Report::new(kind, diagnostics).with_protocol(self.settings.default_protocol())
    }

    /// The settings the validator reports with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The version `value`, a document of `kind`, is judged by: the one it
    /// declares, else (for an event of a stream) the stream's, else the
    /// configured default; with the `unknown-protocol-version` finding
    /// when the declaration cannot be judged by.
    fn judge_version(
        &self,
        kind: Kind,
        value: &Value,
        stream_protocol: Option<Protocol>,
    ) -> (Protocol, Option<Diagnostic>) {
        if let Some((pointer, text)) = version::declared(kind, value) {
            let declaration = Protocol::from_declaration(text);
            return (
                declaration.judged_as(),
                version::finding(pointer, text, declaration),
            );
        }
        let fallback = match kind {
            Kind::Event | Kind::Events => stream_protocol,
            _ => None,
        };
        (
            fallback.unwrap_or_else(|| self.settings.default_protocol()),
            None,
        )
    }

    /// The whole check of one source text; also hands back the parsed
    /// value, unless the fast path found a RunAgentInput clean without one.
    /// `stream_protocol` judges an event that declares no version.
    fn check_bytes(
        &self,
        kind: Option<Kind>,
        bytes: &[u8],
        stream_protocol: Option<Protocol>,
    ) -> (Report, Kept) {
        // A document the fast path finds clean as a RunAgentInput has
        // `threadId` and no `type`, so it is detected as one too. Of a
        // document of unknown kind, only one whose text holds `"threadId"`
        // is tried: most records of a capture are other events, and a
        // failed try costs them about a sixth of their check. (A key
        // written with escapes is left to the full path, which is always
        // right.)
        //
        // The fast path reads every version and chooses the one a document
        // is judged by as `judge_version` does: the one it declares, else
        // the configured default (a RunAgentInput is never judged by a
        // stream's version).
        let worth_trying = match kind {
            Some(kind) => kind == Kind::RunAgentInput,
            None => THREAD_ID_KEY.find(bytes).is_some(),
        };
        if worth_trying {
            let default = self.settings.default_protocol();
            let mut found = self.sink();
            let limits = self.settings.limits();
            if let Some(protocol) = fast::judge_run_agent_input(bytes, limits, default, &mut found)
            {
                let mut diagnostics = found.finish();
                // What the fast path reads has no repeated key.
                if !diagnostics.is_empty() {
                    locate_all(bytes, false, &mut diagnostics);
                }
                let report = self
                    .report(Some(Kind::RunAgentInput), diagnostics)
                    .with_protocol(protocol);
                return (report, Kept::Nothing);
            }
        }
        self.check_bytes_fully(kind, bytes, stream_protocol, Whole::WhenSmall)
    }

    /// Whether the fast path reads `bytes`, a record of a stream judged by
    /// `protocol`, as a clean event.
    pub(crate) fn reads_clean_event(&self, bytes: &[u8], protocol: Protocol) -> bool {
        let shapes = &self.event_shapes[protocol.index()];
        fast::read_clean_event(shapes, bytes, self.settings.limits(), protocol).is_some()
    }

    /// The full path's report on `bytes`, a record of a stream judged by
    /// `protocol` (its own findings, not the sequence's).
    pub(crate) fn full_record_report(&self, bytes: &[u8], protocol: Protocol) -> Report {
        self.check_bytes_fully(None, bytes, Some(protocol), Whole::WhenSmall)
            .0
    }

    /// The report of the full path alone (`Value`, schema, every rule),
    /// which the fast path must agree with.
    pub(crate) fn full_report(&self, kind: Option<Kind>, bytes: &[u8]) -> Report {
        self.check_bytes_fully(kind, bytes, None, Whole::WhenSmall)
            .0
    }

    /// The report of the full path on `bytes` as a RunAgentInput, parsed
    /// whole (`whole`) or a message at a time whatever its size; `None`
    /// when it cannot be parsed a message at a time.
    pub(crate) fn full_report_as(&self, bytes: &[u8], whole: bool) -> Option<Report> {
        let how = if whole { Whole::Always } else { Whole::Never };
        let (report, kept) = self.check_bytes_fully(Some(Kind::RunAgentInput), bytes, None, how);
        (whole || matches!(kept, Kept::Parts)).then_some(report)
    }

    /// The full path: parse into a `Value`, check the schema and every
    /// rule, locate what was found.
    fn check_bytes_fully(
        &self,
        kind: Option<Kind>,
        bytes: &[u8],
        stream_protocol: Option<Protocol>,
        whole: Whole,
    ) -> (Report, Kept) {
        // Until the document is read, it is judged as an event of its
        // stream would be, else by the configured default.
        let unread = stream_protocol
            .filter(|_| kind.is_none_or(|k| matches!(k, Kind::Event | Kind::Events)))
            .unwrap_or_else(|| self.settings.default_protocol());
        let limits = self.settings.limits();
        if bytes.len() > limits.max_document_bytes {
            return (self.oversized(bytes.len()), Kept::Nothing);
        }
        let (mut early, readable) = encoding::examine(bytes);
        let Some(bytes) = readable else {
            return (
                self.report(None, early).with_protocol(unread),
                Kept::Nothing,
            );
        };
        if limits.max_depth < PARSER_DEPTH {
            let nesting = limits::nesting(bytes, limits.max_depth);
            if let Some(offset) = nesting.too_deep_at {
                early.extend(too_deep(
                    bytes,
                    offset,
                    limits.max_depth,
                    nesting.open_at_end,
                ));
                return (
                    self.report(None, early).with_protocol(unread),
                    Kept::Nothing,
                );
            }
        }
        let apart = match whole {
            Whole::Always => false,
            Whole::WhenSmall => bytes.len() >= by_message::FROM,
            Whole::Never => true,
        };
        if apart {
            if let Some(report) = by_message::check(self, kind, bytes, &mut early) {
                return (report, Kept::Parts);
            }
        }
        let keep = parse::Limit {
            keep: limits.max_findings,
        };
        let (value, noted) = match parse::parse_within(bytes, keep) {
            Ok(parsed) => Noted::of(parsed),
            Err(error) => {
                let offset = locate::offset_of_line_column(bytes, error.line, error.byte_column);
                if error.message == "recursion limit exceeded" {
                    let open = limits::nesting(bytes, PARSER_DEPTH).open_at_end;
                    early.extend(too_deep(bytes, offset, PARSER_DEPTH, open));
                    return (
                        self.report(None, early).with_protocol(unread),
                        Kept::Nothing,
                    );
                }
                let message = if bytes.iter().all(u8::is_ascii_whitespace) {
                    "the document is empty".to_string()
                } else if bytes.get(offset) == Some(&0) {
                    "invalid JSON: a NUL byte".to_string()
                } else {
                    format!("invalid JSON: {}", plain_syntax_message(&error.message))
                };
                let mut diagnostic = crate::rules::INVALID_JSON.diagnostic("", message);
                if error.message == "trailing characters" {
                    diagnostic = diagnostic.with_help(
                        "one document per file; a file with one JSON document per line \
                         is read as JSON Lines when named *.jsonl or *.ndjson",
                    );
                }
                diagnostic.location = Some(locate::location_at(bytes, offset));
                early.push(diagnostic);
                return (
                    self.report(kind, early).with_protocol(unread),
                    Kept::Nothing,
                );
            }
        };
        let mut found = self.sink();
        for diagnostic in early {
            found.push(diagnostic);
        }
        let mut noticed = Noticed::default();
        noticed.report(bytes, "", &|offset| offset, noted, &mut found);
        let mut protocol = unread;
        let kind = match kind.map_or_else(|| Kind::detect(&value), Ok) {
            Ok(kind) => {
                let (judged, declaration) = self.judge_version(kind, &value, stream_protocol);
                protocol = judged;
                if let Some(declaration) = declaration {
                    found.push(declaration);
                }
                let bounded = std::mem::take(&mut noticed.skip_numbers);
                self.check_value(protocol, kind, &value, bounded, &mut found);
                Some(kind)
            }
            Err(undetected) => {
                let closest: Vec<String> = undetected
                    .closest
                    .iter()
                    .map(|k| format!("'{k}'"))
                    .collect();
                let help = if closest.is_empty() {
                    "pass --kind to say what the document is".to_string()
                } else {
                    format!(
                        "closest: {}; pass --kind to say what the document is",
                        closest.join(", ")
                    )
                };
                found.push(
                    crate::rules::UNKNOWN_KIND
                        .diagnostic("", "cannot tell which kind of AG-UI document this is")
                        .with_help(help),
                );
                None
            }
        };
        let mut diagnostics = found.finish();
        if !diagnostics.is_empty() {
            let located = noticed.located_text(bytes);
            locate_all(&located, noticed.keys_repeat, &mut diagnostics);
        }
        (
            self.report(kind, diagnostics).with_protocol(protocol),
            Kept::Value(value),
        )
    }

    /// Schema and rule check of a parsed value (no locations), into `out`;
    /// numbers at the pointers `bounded` holds are already reported.
    fn check_value(
        &self,
        protocol: Protocol,
        kind: Kind,
        value: &Value,
        mut bounded: foldhash::HashSet<String>,
        out: &mut Capped<'_, Settings>,
    ) {
        let compiled = match self.schemas.get(protocol, kind) {
            Ok(Some(compiled)) => compiled,
            Ok(None) => return out.push(
                crate::rules::UNKNOWN_KIND
                    .diagnostic("", format!("AG-UI {protocol} has no '{kind}' documents"))
                    .with_help(
                        "pass --protocol with a version that has them, or declare protocolVersion",
                    ),
            ),
            Err(error) => {
                return out.push(
                    crate::rules::SCHEMA_VIOLATION
                        .diagnostic("", error.to_string())
                        .with_help(
                            "this is a bug in agui-lint, not in the document; please report it",
                        ),
                )
            }
        };
        // A number the 1.x schema bounds (a timestamp, a token count) beyond
        // ±(2^53 − 1) is the schema's error; the interoperability warning
        // would say it a second time. The pointers of the schema's other
        // findings are kept for that, up to a bound (past it, such a
        // number may be counted twice in `too-many-findings`).
        if !compiled.validator.is_valid(value) {
            let mut noting = SchemaFindings {
                inner: &mut *out,
                bounded: &mut bounded,
                bound: out_bound(self.settings.limits().max_findings),
            };
            compiled.check(value, protocol, &mut noting);
        }
        rules::check(
            kind,
            protocol,
            value,
            self.settings.limits(),
            &|pointer| bounded.contains(pointer),
            out,
        );
    }
}

/// What a check hands back of the document besides its report.
pub(crate) enum Kept {
    /// Nothing: the fast path read the bytes without a value (a typed
    /// read takes them as they are), or nothing was read.
    Nothing,
    /// Nothing: the full path parsed the document a message at a time.
    Parts,
    /// The value the full path parsed.
    Value(Value),
}

impl Kept {
    /// The value, when one was kept.
    fn value(self) -> Option<Value> {
        match self {
            Kept::Value(value) => Some(value),
            Kept::Nothing | Kept::Parts => None,
        }
    }
}

/// Whether the full path parses a RunAgentInput whole or a message at a
/// time ([`by_message`]).
#[derive(Clone, Copy)]
enum Whole {
    /// Whole, whatever its size.
    Always,
    /// Whole when it is smaller than [`by_message::FROM`].
    WhenSmall,
    /// A message at a time whenever it can be.
    Never,
}

/// The schema's findings on their way to `inner`, each with its rule's
/// default severity, the pointers of the `schema-violation` ones noted in
/// `bounded` (up to `bound` of them).
struct SchemaFindings<'a, F> {
    inner: &'a mut F,
    bounded: &'a mut foldhash::HashSet<String>,
    bound: usize,
}

impl<F: Findings> Findings for SchemaFindings<'_, F> {
    fn add_as<R: crate::findings::RuleId>(
        &mut self,
        rule: &R,
        severity: crate::Severity,
        make: impl FnOnce(&R) -> Diagnostic,
    ) {
        self.inner.add_as(rule, severity, make);
    }

    fn add_unbuilt<R: crate::findings::RuleId>(&mut self, rule: &R, count: usize) {
        self.inner.add_unbuilt(rule, count);
    }

    fn push(&mut self, mut diagnostic: Diagnostic) {
        diagnostic.severity = rules::default_severity(&diagnostic.rule);
        if diagnostic.rule == crate::rules::SCHEMA_VIOLATION.name && self.bounded.len() < self.bound
        {
            self.bounded.insert(diagnostic.pointer.clone());
        }
        self.inner.push(diagnostic);
    }
}

/// How many `schema-violation` pointers a document keeps for leaving out
/// the interoperability warning at the same place.
fn out_bound(max_findings: usize) -> usize {
    max_findings.saturating_mul(4).max(64)
}

/// The typed input of a RunAgentInput judged by `protocol`. A pre-1.0
/// document is read through the pre-1.0 types first, which drop what
/// pre-1.0 does not define (an unknown `resume` of another shape, say), as
/// a pre-1.0 receiver strips unknown keys; every pre-1.0 input then reads
/// as a 1.x one.
fn read_run_agent_input(protocol: Protocol, value: Value) -> serde_json::Result<RunAgentInput> {
    if protocol == Protocol::V0 {
        let stripped: crate::types::v0::RunAgentInput = serde_json::from_value(value)?;
        return serde_json::from_value(serde_json::to_value(stripped)?);
    }
    serde_json::from_value(value)
}

/// Fills in the line and column of every diagnostic and related place not
/// yet located (a `lone-surrogate` finding comes located at its escape).
fn locate_all(bytes: &[u8], keys_repeat: bool, diagnostics: &mut [Diagnostic]) {
    // The bytes parsed as JSON, so they are UTF-8.
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let locator = if keys_repeat {
        Locator::new(text)
    } else {
        Locator::with_unique_keys(text)
    };
    // Every offset in one walk over the text, then every line and column in
    // one more: finding by finding, a document with hundreds of findings
    // would be walked (and a minified one, one long line, counted) from its
    // start once per finding.
    let mut requests = Vec::new();
    for diagnostic in diagnostics.iter() {
        if diagnostic.location.is_none() {
            requests.push((diagnostic.pointer.as_str(), diagnostic.target));
        }
        for related in diagnostic.related.iter().filter(|r| r.location.is_none()) {
            requests.push((related.pointer.as_str(), related.target));
        }
    }
    let offsets = locator.offsets(&requests);
    let mut locations = locate::locations_at(bytes, &offsets).into_iter();
    for diagnostic in diagnostics {
        if diagnostic.location.is_none() {
            diagnostic.location = locations.next();
        }
        for related in diagnostic
            .related
            .iter_mut()
            .filter(|r| r.location.is_none())
        {
            related.location = locations.next();
        }
    }
}

/// serde_json's wording where it speaks of its own grammar: "ident" is
/// its name for `true`, `false` and `null`, which is what it was trying to
/// read when a document starts with a stray word.
fn plain_syntax_message(message: &str) -> &str {
    match message {
        "expected ident" => {
            "expected a value (an object, array, string, number, true, false or null)"
        }
        other => other,
    }
}

/// A `nesting-too-deep` finding at the value starting at `offset`, and,
/// when `open` arrays and objects are never closed, the `invalid-json`
/// finding that the text is cut short (which no depth limit hides).
fn too_deep(bytes: &[u8], offset: usize, limit: usize, open: usize) -> Vec<Diagnostic> {
    let mut finding = crate::rules::NESTING_TOO_DEEP
        .diagnostic(
            "",
            format!("arrays and objects nest more than {limit} levels deep here"),
        )
        .with_help("the document was not checked further; no AG-UI payload nests this deep");
    finding.location = Some(locate::location_at(bytes, offset));
    let mut findings = vec![finding];
    if open > 0 {
        let mut cut = crate::rules::INVALID_JSON.diagnostic(
            "",
            format!("invalid JSON: the text ends with {open} arrays or objects still open"),
        );
        cut.location = Some(locate::location_at(bytes, bytes.len()));
        findings.push(cut);
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_1x_requests_build_no_value_and_read_typed() {
        use crate::{ProtocolChoice, Settings};
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/1.0/run-agent-input/valid");
        let mut official = 0;
        for entry in std::fs::read_dir(dir).expect("the 1.0 fixtures") {
            let path = entry.expect("an entry").path();
            if !path.display().to_string().contains("official-client-") {
                continue;
            }
            let bytes = std::fs::read(&path).expect("a fixture");
            for default in Protocol::ALL {
                let validator = Validator::new()
                    .expect("validator")
                    .with_settings(Settings::default().protocol(ProtocolChoice::Version(default)));
                // The full path always hands back the value it parsed; the
                // fast path never builds one.
                let (report, kept) = validator.check_bytes(Some(Kind::RunAgentInput), &bytes, None);
                assert!(report.diagnostics().is_empty(), "{}", path.display());
                assert!(
                    matches!(kept, Kept::Nothing),
                    "{} built a Value",
                    path.display()
                );
                assert_eq!(report.protocol(), Protocol::V1_0, "{}", path.display());
                let (report, kept) = validator.check_bytes(None, &bytes, None);
                assert_eq!(report.kind(), Some(Kind::RunAgentInput));
                assert!(
                    matches!(kept, Kept::Nothing),
                    "{} detected built a Value",
                    path.display()
                );
                let typed = validator
                    .check_run_agent_input(&bytes)
                    .expect("a valid input");
                assert_eq!(typed.protocol_version.as_deref(), Some("1.0"));
                let full: RunAgentInput =
                    serde_json::from_slice(&bytes).expect("the 1.x type reads it");
                assert_eq!(typed, full);
            }
            official += 1;
        }
        assert!(official >= 3);
    }

    #[test]
    fn findings_of_the_rules_are_reported_from_the_structs_without_a_value() {
        // Each family finds something: an empty message id, a call whose
        // arguments break its tool's parameters, a tool name providers
        // refuse, empty user content and the reserved metadata key.
        let bytes = br#"{"threadId": "t", "runId": "r", "protocolVersion": "1.1",
            "tools": [{"name": "get weather", "description": "d",
                       "parameters": {"type": "object", "required": ["city"]}},
                      {"name": "f", "description": "d", "metadata": {"ag-ui": 1}}],
            "messages": [{"id": "", "role": "user", "content": ""},
                         {"id": "m2", "role": "assistant", "toolCalls": [{"id": "c1",
                          "type": "function",
                          "function": {"name": "get weather", "arguments": "{}"}}]}]}"#;
        let validator = Validator::new().expect("validator");
        let (report, kept) = validator.check_bytes(Some(Kind::RunAgentInput), bytes, None);
        assert!(matches!(kept, Kept::Nothing), "the full path built a Value");
        let mut rules: Vec<&str> = report.diagnostics().iter().map(|d| &*d.rule).collect();
        rules.sort_unstable();
        assert_eq!(
            rules,
            [
                "content-empty",
                "empty-id",
                "metadata-reserved-key",
                "tool-arguments-schema-mismatch",
                "tool-name-format"
            ]
        );
        let full = validator.full_report(Some(Kind::RunAgentInput), bytes);
        assert_eq!(report.diagnostics(), full.diagnostics());
        assert!(report.diagnostics().iter().all(|d| d.location.is_some()));
    }

    #[test]
    fn a_run_that_declares_no_version_falls_back_to_the_streams_own() {
        let mut stream = EventStream::new();
        stream.assume_protocol(Protocol::V1_0);
        let undeclared = br#"{"type":"RUN_STARTED","threadId":"t","runId":"r1"}"#;
        let declared =
            br#"{"type":"RUN_STARTED","threadId":"t","runId":"r2","protocolVersion":"1.1"}"#;
        let content = br#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}"#;
        let default = Protocol::V0;
        assert_eq!(stream.protocol_for(undeclared, default), Protocol::V1_0);
        assert_eq!(stream.protocol_for(content, default), Protocol::V1_0);
        assert_eq!(stream.protocol_for(declared, default), Protocol::V1_1);
        assert_eq!(stream.protocol_for(content, default), Protocol::V1_1);
        assert_eq!(stream.protocol_for(undeclared, default), Protocol::V1_0);
        assert_eq!(EventStream::new().protocol_for(content, default), default);
    }

    #[test]
    fn validator_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Validator>();
    }
}
