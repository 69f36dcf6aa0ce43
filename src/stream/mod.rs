//! A stream of events checked as its bytes come: [`StreamChecker`].
//!
//! The stages are the CLI's: framing (SSE or JSON Lines, a chunk split
//! anywhere), each record told the version that judges it and checked on
//! its own ([`batch`]), then the events sequenced in stream order and the
//! documents handed on ([`sequenced`]). The CLI runs the middle stage on
//! threads of its own over a file's batches (`check/stream.rs`); a
//! [`StreamChecker`] runs all three on the caller's thread over each chunk.

pub(crate) mod batch;
mod frame;
pub(crate) mod record;
pub(crate) mod sequenced;

use std::sync::Arc;

use serde_json::Value;

use crate::checked::{Checked, Sink};
use crate::input::line_endings::LineEndings;
use crate::input::proto::ProtoFramer;
use crate::input::sse::{looks_like_sse, SseFramer};
use crate::input::LineFramer;
use crate::{Kind, Validator};
use batch::{check_batch, CheckedBatch};
use record::{File, Record};
use sequenced::Sequenced;

/// How a stream's bytes hold its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Server-Sent Events: each event's `data:` lines are one record
    /// (`text/event-stream`, what AG-UI servers send).
    Sse,
    /// One JSON document a line (`application/jsonl`, captures and logs).
    JsonLines,
    /// AG-UI's binary transport (`application/vnd.ag-ui.event+proto`):
    /// length-prefixed protobuf frames, each event decoded as the official
    /// decoder decodes it and placed by its frame.
    Proto,
    /// Told from the stream's first bytes: binary frames when the first
    /// byte is zero, SSE when its first non-blank line is an SSE field or
    /// comment, JSON Lines otherwise.
    Auto,
}

/// Records a [`StreamChecker`] gathers before checking them together: a
/// chunk of many events is checked a bounded batch at a time, as the CLI
/// checks a file, so that feeding a whole capture at once holds a batch,
/// not the capture.
const BATCH_RECORDS: usize = 4096;
/// Bytes of records gathered at most before checking them.
const BATCH_BYTES: usize = 128 * 1024;

/// Bytes of a stream held to tell its framing ([`Framing::Auto`]) before
/// taking it as JSON Lines: only blank lines can come before the first
/// field, and past this many of them the framing makes no difference.
const UNDECIDED_BYTES: usize = 64 * 1024;

/// The framing stage, once told.
enum Framer {
    Sse(SseFramer),
    Lines(LineFramer),
    Proto(ProtoFramer),
    /// [`Framing::Auto`] before enough bytes came to tell: what came.
    Undecided(Vec<u8>),
}

/// Checks one stream of events as its bytes come, in chunks split
/// anywhere: the API a guard on a response, a binding or a probe uses.
///
/// ```
/// use agui_lint::{Framing, StreamChecker, Validator};
///
/// let validator = Validator::new()?;
/// let mut checker = StreamChecker::new(&validator, Framing::Sse);
/// let mut found = checker.feed(b"data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"ru");
/// found.extend(checker.feed(b"nId\":\"r\"}\n\ndata: {\"type\":\"TEXT_MESSAGE_END\",\"messageId\":\"m\"}\n\n"));
/// found.extend(checker.finish());
/// let rules: Vec<&str> = found
///     .iter()
///     .flat_map(|document| document.report.diagnostics())
///     .map(|finding| finding.rule.as_str())
///     .collect();
/// assert_eq!(rules, ["stream-truncated", "event-without-start"]);
/// # Ok::<(), agui_lint::BuildError>(())
/// ```
///
/// Each record (an SSE event, a JSON Lines line) becomes a document as
/// [`crate::Checked`]: its record number (the event's index, the
/// line's number), its byte offset in the stream, and its findings located
/// at lines and columns of the stream. A record is handed out once the
/// next one has come (the stream's end may still add findings to the
/// last), and every finding is exactly what checking the whole stream at
/// once finds. Memory holds the record being framed, one batch of records
/// and what the stream has open (runs, messages, tool calls, state),
/// never the stream's length.
pub struct StreamChecker {
    /// The validator's clone (which shares its compiled schemas), so that
    /// a checker borrows nothing: a response body or a binding owns one.
    validator: Validator,
    path: Arc<str>,
    kind: Option<Kind>,
    framer: Framer,
    /// Records framed and not yet checked.
    pending: Vec<Record>,
    pending_bytes: usize,
    sequenced: Sequenced,
    /// The line endings of an SSE stream, as the client splits its events
    /// (`sse-carriage-return`, reported at the stream's end).
    endings: LineEndings,
}

impl StreamChecker {
    /// A checker of one stream framed as `framing`, judged by `validator`
    /// and its settings. SSE records are events; a JSON Lines record is
    /// checked as the kind it is (see [`Self::with_kind`]).
    pub fn new(validator: &Validator, framing: Framing) -> Self {
        let limit = validator.limits().max_document_bytes;
        let framer = match framing {
            Framing::Sse => Framer::Sse(SseFramer::new(limit)),
            Framing::JsonLines => Framer::Lines(LineFramer::new(limit)),
            Framing::Proto => Framer::Proto(ProtoFramer::new(limit)),
            Framing::Auto => Framer::Undecided(Vec::new()),
        };
        StreamChecker {
            validator: validator.clone(),
            path: Arc::from("-"),
            kind: None,
            framer,
            pending: Vec::new(),
            pending_bytes: 0,
            sequenced: Sequenced::new(),
            endings: LineEndings::new(),
        }
    }

    /// Checks every record as `kind` instead of telling each one's kind
    /// (an SSE record is an event unless this says otherwise).
    pub fn with_kind(mut self, kind: Kind) -> Self {
        self.kind = Some(kind);
        self
    }

    /// Names the stream in its documents (`-` unless given): the path a
    /// renderer shows.
    pub fn with_path(mut self, path: &str) -> Self {
        self.path = Arc::from(path);
        self
    }

    /// Pairs the stream with the `RunAgentInput` it answers (a parsed
    /// request; see [`crate::EventStream::answer`]): its declared version
    /// judges runs that declare none and is the one `RUN_STARTED` must
    /// declare, its messages' tool calls may be answered, and its state is
    /// the baseline of `STATE_DELTA`s.
    pub fn answering(mut self, request: &Value) -> Self {
        self.sequenced.stream_mut().answer(request);
        self
    }

    /// How many records (events, lines) have been framed and checked.
    pub fn records(&self) -> usize {
        self.sequenced.records()
    }

    /// Feeds the next `chunk` of the stream; returns the documents it made
    /// final that have findings.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<Checked> {
        let mut found = WithFindings(Vec::new());
        self.feed_to(chunk, &mut found);
        found.0
    }

    /// Feeds the next `chunk`, handing every document it made final to
    /// `each`, clean ones too (a report with no finding).
    pub fn feed_each(&mut self, chunk: &[u8], mut each: impl FnMut(Checked)) {
        self.feed_to(chunk, &mut each);
    }

    /// Ends the stream; returns the documents left that have findings,
    /// with what the end found still open (a run never finished, a tool
    /// call never ended).
    pub fn finish(self) -> Vec<Checked> {
        let mut found = WithFindings(Vec::new());
        self.finish_to(&mut found);
        found.0
    }

    /// Ends the stream, handing every document left to `each`.
    pub fn finish_each(self, mut each: impl FnMut(Checked)) {
        self.finish_to(&mut each);
    }

    /// [`Self::finish`], and how many records the stream held in all (what
    /// [`Self::records`] tells once the last record is checked; a binding
    /// keeps it after the checker is gone).
    pub fn finish_counted(self) -> (Vec<Checked>, usize) {
        let mut found = WithFindings(Vec::new());
        let records = self.finish_to(&mut found);
        (found.0, records)
    }

    /// [`Self::feed`] into any sink.
    pub(crate) fn feed_to(&mut self, chunk: &[u8], sink: &mut dyn Sink) {
        if let Framer::Undecided(held) = &mut self.framer {
            held.extend_from_slice(chunk);
            let Some(framer) = decide(held, false, &self.validator) else {
                return;
            };
            let held = std::mem::take(held);
            self.framer = framer;
            return self.feed_to(&held, sink);
        }
        let StreamChecker {
            validator,
            path,
            kind,
            framer,
            pending,
            pending_bytes,
            sequenced,
            endings,
        } = self;
        if matches!(framer, Framer::Sse(_)) {
            endings.watch(chunk);
        }
        let file = &File {
            validator,
            path: path.clone(),
            kind: *kind,
        };
        let mut take = |record: Record| {
            *pending_bytes += record.bytes.len();
            pending.push(record);
            if pending.len() >= BATCH_RECORDS || *pending_bytes >= BATCH_BYTES {
                check_pending(file, pending, pending_bytes, sequenced, sink);
            }
        };
        match framer {
            Framer::Sse(framer) => framer.push(chunk, &mut |event| take(Record::sse(event))),
            Framer::Lines(framer) => framer.push(chunk, &mut |line| take(Record::line(line))),
            Framer::Proto(framer) => framer.push(chunk, &mut |frame| take(Record::frame(frame))),
            Framer::Undecided(_) => {}
        }
        check_pending(file, pending, pending_bytes, sequenced, sink);
    }

    /// [`Self::finish`] into any sink; how many records the stream held.
    pub(crate) fn finish_to(mut self, sink: &mut dyn Sink) -> usize {
        if let Framer::Undecided(held) = &mut self.framer {
            let held = std::mem::take(held);
            if let Some(framer) = decide(&held, true, &self.validator) {
                self.framer = framer;
                self.feed_to(&held, sink);
            }
        }
        let mut records = Vec::new();
        match &mut self.framer {
            Framer::Sse(framer) => framer.finish(&mut |event| records.push(Record::sse(event))),
            Framer::Lines(framer) => framer.finish(&mut |line| records.push(Record::line(line))),
            Framer::Proto(framer) => {
                framer.finish(&mut |frame| records.push(Record::frame(frame)));
            }
            Framer::Undecided(_) => {}
        }
        self.pending.extend(records);
        let sse = matches!(self.framer, Framer::Sse(_));
        let StreamChecker {
            validator,
            path,
            kind,
            mut pending,
            mut pending_bytes,
            mut sequenced,
            endings,
            ..
        } = self;
        let file = File {
            validator: &validator,
            path,
            kind,
        };
        check_pending(
            &file,
            &mut pending,
            &mut pending_bytes,
            &mut sequenced,
            sink,
        );
        let records = sequenced.records();
        // Nothing was read from a reader: no read error can end it.
        let _ = sequenced.finish(&file, None, sink);
        // The framing as the client reads it, as `check` reports it for an
        // SSE file: a document of the stream's own, after its records.
        if let Some(finding) = endings
            .finding(validator.settings().client_profile())
            .filter(|_| sse)
        {
            let report = validator.report_of(vec![finding]);
            if !report.diagnostics().is_empty() {
                sink.document(file.checked(None, None, report));
            }
        }
        records
    }
}

/// The records gathered, checked as a batch and sequenced.
fn check_pending(
    file: &File<'_>,
    pending: &mut Vec<Record>,
    pending_bytes: &mut usize,
    sequenced: &mut Sequenced,
    sink: &mut dyn Sink,
) {
    if pending.is_empty() {
        return;
    }
    let records = std::mem::take(pending);
    *pending_bytes = 0;
    let default = file.validator.settings().default_protocol();
    let stream = sequenced.stream_mut();
    let protocols = records
        .iter()
        .map(|record| stream.protocol_for(record.version_text(), default))
        .collect();
    let kind = match &records.first().map(|r| r.origins.is_some() || r.is_frame()) {
        Some(true) => file.kind.or(Some(Kind::Event)),
        _ => file.kind,
    };
    let batch: CheckedBatch = check_batch(file, records, protocols, kind);
    sequenced.take(file, batch, sink);
}

/// The framer `held`, a stream's first bytes, call for, once they tell:
/// after a BOM and blank lines, the first line's start (an SSE field name
/// is at most `retry:`, six bytes), its end, or the stream's.
fn decide(held: &[u8], ended: bool, validator: &Validator) -> Option<Framer> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let limit = validator.limits().max_document_bytes;
    if held.first() == Some(&0) {
        return Some(Framer::Proto(ProtoFramer::new(limit)));
    }
    let rest = match held.strip_prefix(BOM) {
        Some(rest) => rest,
        None if !ended && BOM.starts_with(held) => return None,
        None => held,
    };
    let start = rest.iter().position(|&b| b != b'\n' && b != b'\r');
    let told = match start {
        Some(start) => {
            let line = &rest[start..];
            line.len() >= 6 || memchr::memchr2(b'\n', b'\r', line).is_some()
        }
        None => false,
    };
    if !(told || ended || held.len() >= UNDECIDED_BYTES) {
        return None;
    }
    Some(if looks_like_sse(held) {
        Framer::Sse(SseFramer::new(limit))
    } else {
        Framer::Lines(LineFramer::new(limit))
    })
}

/// The sink of [`StreamChecker::feed`]: documents with findings, clean
/// ones (and runs of them) dropped.
struct WithFindings(Vec<Checked>);

impl Sink for WithFindings {
    fn document(&mut self, checked: Checked) {
        if !checked.is_clean() {
            self.0.push(checked);
        }
    }

    fn clean_run(&mut self, _first: Checked, _more: usize) {}
}
