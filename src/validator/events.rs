//! A stream of events as the validator checks it: which version judges
//! each event, told in stream order, the open state of the stream, and
//! the checks of its records.

use std::sync::LazyLock;

use memchr::memmem;
use serde_json::Value;

use super::located::locate_all;
use super::Validator;
use crate::diagnostic::{Diagnostic, Location};
use crate::fast;
use crate::findings::Findings;
use crate::protocol::Protocol;
use crate::report::Report;
use crate::rules::{self, EventPlace, EventView, Interrupted, Sequence};
use crate::Kind;

/// Finds the event type that declares a stream's version, built once.
static RUN_STARTED: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"RUN_STARTED"));

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
    /// read once more here, without a `Value` ([`super::declared`]).
    pub(crate) fn protocol_for(&mut self, bytes: &[u8], default: Protocol) -> Protocol {
        if RUN_STARTED.find(bytes).is_some() {
            if let Some(declared) = super::declared::declared_by_run_started(bytes) {
                self.declared = declared.map(|text| Protocol::from_declaration(&text).judged_as());
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
    /// Whether an event nested deeper than the parser's limit was seen.
    deep: bool,
}

/// Whether `bytes` nest deeper than serde_json parses on the caller's
/// stack: a scan, run only for an event the full path parsed.
fn nests_deep(bytes: &[u8]) -> bool {
    bytes.len() > 2 * crate::limits::PARSER_DEPTH
        && crate::limits::nesting(bytes, crate::limits::PARSER_DEPTH)
            .too_deep_at
            .is_some()
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
            let snapshot =
                fast::read_clean_messages_snapshot(shapes, bytes, limits, stream_protocol);
            if let Some(event) = snapshot {
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

    /// The event `members` make, of type `event_type`, read as the fast path
    /// reads the same event from its text, when it fits its shape with
    /// nothing to report: a binary frame's event given without JSON.
    pub(crate) fn check_given<'a>(
        &self,
        kind: Option<Kind>,
        event_type: &'static str,
        members: impl Iterator<Item = (&'static str, fast::given::Given<'a>)>,
        stream_protocol: Protocol,
    ) -> Option<(Report, StreamEvent<'a>)> {
        if kind.is_some_and(|k| k != Kind::Event) {
            return None;
        }
        let shapes = &self.event_shapes[stream_protocol.index()];
        let event = fast::given::event(shapes, event_type, members)?;
        let report = self
            .report(Some(Kind::Event), Vec::new())
            .with_protocol(stream_protocol);
        Some((report, StreamEvent::Read(event)))
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
        // A stream that once held a value nested deeper than the parser's
        // limit (only the full path parses one) keeps it in its state: its
        // later events are followed on a stack grown for it, as the record
        // was checked (the state's copies and patches recurse as it nests).
        if !stream.deep && matches!(event, EventView::Value(_)) && nests_deep(bytes) {
            stream.deep = true;
        }
        let deep = stream.deep;
        let mut follow = || {
            let mut found = self.sink();
            stream
                .sequence
                .bound_state(self.settings.limits().state_limit(), &self.state_total);
            let asked = stream.sequence.requested_version();
            rules::client::event(self.settings.client_profile(), event, "", asked, &mut found);
            stream.feed(event, protocol, record, location, &mut found);
            let mut diagnostics = found.finish();
            self.settings.apply(&mut diagnostics);
            if !diagnostics.is_empty() {
                // Located as the record's own findings were: after a byte order
                // mark, which `check_record` reported and skipped.
                let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
                locate_all(text, true, None, &mut diagnostics);
            }
            diagnostics
        };
        if deep {
            stacker::grow(super::full::DEEP_STACK_BYTES, follow)
        } else {
            follow()
        }
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
}
