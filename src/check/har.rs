//! HTTP Archives: each entry whose request body is a RunAgentInput is
//! checked as one, and its response as an SSE event stream.
//!
//! A body is a JSON string inside the HAR file. When it is stored as plain
//! text, a finding inside it is placed at the very character of the HAR file
//! that holds it, escapes taken into account; a base64 body has no such
//! correspondence, so its findings point at the start of the string.

use std::cell::RefCell;
use std::sync::Arc;

use serde_json::Value;

use super::{Context, FileCheck, Sink};
use crate::input::har::{self, HarBody, HarEntry};
use crate::input::proto::ProtoFramer;
use crate::input::sse::SseFramer;
use crate::lines::Lines;
use crate::rules::Interrupted;
use crate::stream::record::{
    fill_source_lines, line_text, relocate, root_location, to_file_positions, Pending, Record, Text,
};
use crate::{EventStream, Kind, Location};

/// The HAR file being read, for placing findings in it: its text,
/// indexed once, and the last line asked for (every event of a minified
/// HAR is on its one line, shared rather than copied).
struct Archive<'a> {
    bytes: &'a [u8],
    lines: Lines<'a>,
    last_line: RefCell<Option<(usize, Arc<str>)>>,
}

impl<'a> Archive<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Archive {
            bytes,
            lines: Lines::new(bytes),
            last_line: RefCell::new(None),
        }
    }

    /// The location of byte `offset`, or the start of the file.
    fn location(&self, offset: Option<usize>) -> Location {
        offset.map_or(Location { line: 1, column: 1 }, |at| {
            self.lines.location(at)
        })
    }

    /// The text of a 1-based line of the HAR file.
    fn line(&self, line: usize) -> Option<Arc<str>> {
        if let Some((known, text)) = &*self.last_line.borrow() {
            if *known == line {
                return Some(text.clone());
            }
        }
        let text = line_text(self.lines.line(line)?, usize::MAX);
        *self.last_line.borrow_mut() = Some((line, text.clone()));
        Some(text)
    }

    /// How findings inside `body` are placed in the HAR file.
    fn body<'b>(&self, body: &'b HarBody) -> BodyPlace<'b> {
        let start = body.offset;
        // Plain text when the string in the file is the body itself (not
        // its base64): positions inside the body are followed into it.
        let plain = start.filter(|_| !body.base64).and_then(|quote| {
            Escaped::index(self.bytes, quote).map(|map| (Lines::new(&body.bytes), map))
        });
        BodyPlace {
            plain,
            fallback: self.location(start),
        }
    }
}

/// Where a body's string is in the HAR file, and, when it is plain text,
/// how positions inside the body are followed into it.
struct BodyPlace<'b> {
    /// The body's text indexed, and how its bytes map to the string's.
    plain: Option<(Lines<'b>, Escaped)>,
    /// Where the string starts, for a body read from base64.
    fallback: Location,
}

impl BodyPlace<'_> {
    /// The HAR file position of `location` within the body.
    fn locate(&self, archive: &Archive<'_>, location: Location) -> Location {
        let Some((lines, escaped)) = &self.plain else {
            return self.fallback;
        };
        let raw = lines
            .offset(location)
            .and_then(|decoded| escaped.raw(archive.bytes, decoded));
        match raw {
            Some(raw) => archive.lines.location(raw),
            None => self.fallback,
        }
    }
}

/// The bytes of a JSON string in the HAR file against the bytes they
/// stand for: escapes (`\n`, `\"`, `\u00e9`, surrogate pairs) take more
/// raw bytes than their text. Indexed once, so that any body offset is
/// followed into the file without reading the string from its quote.
struct Escaped {
    /// (decoded offset, raw offset) every [`ESCAPED_STRIDE`] decoded bytes.
    marks: Vec<(usize, usize)>,
}

/// How many decoded bytes apart [`Escaped`] keeps its marks.
const ESCAPED_STRIDE: usize = 256;

impl Escaped {
    /// Indexes the string whose opening quote is at `quote` in `har`.
    fn index(har: &[u8], quote: usize) -> Option<Escaped> {
        if har.get(quote) != Some(&b'"') {
            return None;
        }
        let mut marks = vec![(0, quote + 1)];
        let (mut raw, mut decoded) = (quote + 1, 0);
        loop {
            let (raw_len, decoded_len) = match *har.get(raw)? {
                b'"' => break,
                b'\\' => escape_lengths(har, raw)?,
                _ => (1, 1),
            };
            raw += raw_len;
            decoded += decoded_len;
            if decoded >= marks.last().map_or(0, |m| m.0) + ESCAPED_STRIDE {
                marks.push((decoded, raw));
            }
        }
        Some(Escaped { marks })
    }

    /// The offset in `har` of the `decoded`-th byte of the string: inside
    /// a multi-byte escape, the escape.
    fn raw(&self, har: &[u8], decoded: usize) -> Option<usize> {
        let mark = self
            .marks
            .partition_point(|&(at, _)| at <= decoded)
            .checked_sub(1)?;
        let (mut seen, mut raw) = self.marks[mark];
        while seen < decoded {
            let (raw_len, decoded_len) = match *har.get(raw)? {
                b'"' => return None,
                b'\\' => escape_lengths(har, raw)?,
                _ => (1, 1),
            };
            if seen + decoded_len > decoded {
                break;
            }
            raw += raw_len;
            seen += decoded_len;
        }
        Some(raw)
    }
}

/// The raw and decoded lengths of the escape at `at`.
fn escape_lengths(har: &[u8], at: usize) -> Option<(usize, usize)> {
    match *har.get(at + 1)? {
        b'u' => unicode_escape(har, at),
        _ => Some((2, 1)),
    }
}

impl FileCheck<'_> {
    /// Checks an HTTP Archive, read entry by entry from its text (which
    /// parses as JSON).
    pub(super) fn har(&self, bytes: &[u8], sink: &mut dyn Sink) {
        let archive = Archive::new(bytes);
        let entries = match har::read(bytes) {
            Ok(entries) => entries,
            Err(error) => return self.invalid_har(&archive, None, &error, sink),
        };
        // How the latest exchange's run ended, for the next request's resume.
        let mut previous = None;
        let (mut entries_seen, mut runs, mut unreadable) = (0, 0, 0);
        for entry in entries {
            entries_seen += 1;
            match entry {
                Ok(entry) => {
                    runs += usize::from(self.har_entry(&archive, &entry, &mut previous, sink));
                }
                Err(error) => {
                    unreadable += 1;
                    let record = entry_index(&error.pointer);
                    self.invalid_har(&archive, record, &error, sink);
                }
            }
        }
        // An unreadable entry is reported already, and may have been a run.
        if runs == 0 && unreadable == 0 {
            self.no_agui_traffic(entries_seen, sink);
        }
    }

    /// An archive none of whose entries is an AG-UI run is said to be so,
    /// once, as an empty capture is.
    fn no_agui_traffic(&self, entries: usize, sink: &mut dyn Sink) {
        let message = match entries {
            0 => "the archive holds no entry".to_string(),
            1 => "the archive's one entry is not an AG-UI run".to_string(),
            n => format!("none of the archive's {n} entries is an AG-UI run"),
        };
        let mut finding = crate::rules::NO_AGUI_TRAFFIC.diagnostic(
            "",
            message,
        )
        .with_help("an AG-UI run is a request whose body is a RunAgentInput; record the exchange with the agent's endpoint (devtools: Save all as HAR with content)");
        finding.location = Some(Location { line: 1, column: 1 });
        let report = self.validator.report_of(vec![finding]);
        if !report.diagnostics().is_empty() {
            sink.document(self.checked(None, None, report));
        }
    }

    /// A run's response whose events the archive does not hold (no
    /// `content.text`, an empty one, or a body that is not text) is said to
    /// be so, at the entry's response.
    fn response_not_captured(
        &self,
        archive: &Archive<'_>,
        entry: &HarEntry,
        label: &Arc<str>,
        why: &NotCaptured,
        sink: &mut dyn Sink,
    ) {
        let mut finding = crate::rules::RESPONSE_NOT_CAPTURED
            .diagnostic(
                format!("{}/response", entry.pointer),
                format!(
                    "the run's response {}: its events are not checked",
                    why.why()
                ),
            )
            .with_help(why.help());
        finding.location = Some(archive.location(entry.response_offset));
        // A stream that is there but unreadable is not checked at all:
        // never a pass.
        if matches!(why, NotCaptured::Encoded(_)) {
            finding.severity = crate::Severity::Error;
        }
        let report = self.validator.report_of(vec![finding]);
        if !report.diagnostics().is_empty() {
            let context = Context::HarResponse(label.clone());
            let mut checked = self.checked(Some(entry.index), Some(context), report);
            fill_source_lines(&mut checked, |line, _| archive.line(line));
            sink.document(checked);
        }
    }

    /// The findings about a run's HTTP exchange (status, media type, line
    /// endings, delivery), as one document at the entry's response.
    fn exchange_findings(
        &self,
        archive: &Archive<'_>,
        entry: &HarEntry,
        label: &Arc<str>,
        mut findings: Vec<crate::Diagnostic>,
        sink: &mut dyn Sink,
    ) {
        for finding in &mut findings {
            finding.location = Some(archive.location(entry.response_offset));
        }
        let report = self.validator.report_of(findings);
        if !report.diagnostics().is_empty() {
            let context = Context::HarResponse(label.clone());
            let mut checked = self.checked(Some(entry.index), Some(context), report);
            fill_source_lines(&mut checked, |line, _| archive.line(line));
            sink.document(checked);
        }
    }

    fn invalid_har(
        &self,
        archive: &Archive<'_>,
        record: Option<usize>,
        error: &har::HarError,
        sink: &mut dyn Sink,
    ) {
        let location = archive.location(error.offset);
        let mut diagnostic = crate::rules::INVALID_HAR.diagnostic(
            error.pointer.clone(),
            error.message.clone(),
        )
        .with_help(
            "export the capture again as HAR 1.2 (browser devtools: Save all as HAR with content)",
        );
        diagnostic.location = Some(location);
        let report = self.validator.report_of(vec![diagnostic]);
        let mut checked = self.checked(record, record.map(Context::HarEntry), report);
        fill_source_lines(&mut checked, |line, _| archive.line(line));
        sink.document(checked);
    }

    /// Checks one entry when it is an AG-UI run (its request body is a
    /// RunAgentInput), and says whether it was.
    fn har_entry(
        &self,
        archive: &Archive<'_>,
        entry: &HarEntry,
        previous: &mut Option<Interrupted>,
        sink: &mut dyn Sink,
    ) -> bool {
        let Some(request) = &entry.request_body else {
            return false;
        };
        let input = serde_json::from_slice::<Value>(&request.bytes)
            .ok()
            .filter(|v| Kind::detect(v) == Ok(Kind::RunAgentInput));
        let Some(input) = input else {
            return false;
        };
        let label: Arc<str> = Arc::from(format!(
            "entry {} ({} {})",
            entry.index, entry.method, entry.url
        ));
        let record = Some(entry.index);

        let place = archive.body(request);
        let mut report = self
            .validator
            .validate_following(&request.bytes, previous.as_ref());
        report.relocate(|d| {
            to_file_positions(d, |l| place.locate(archive, l));
        });
        let mut checked = self.checked(record, Some(Context::HarRequest(label.clone())), report);
        fill_source_lines(&mut checked, |line, _| archive.line(line));
        sink.document(checked);

        let exchange = super::exchange::judge(entry, self.validator.settings().client_profile());
        if !exchange.findings.is_empty() {
            self.exchange_findings(archive, entry, &label, exchange.findings, sink);
        }
        if !exchange.read_events {
            return true;
        }
        let Some(response) = &entry.response_body else {
            self.response_not_captured(archive, entry, &label, &NotCaptured::Missing, sink);
            return true;
        };
        if let Some(encoding) = entry.undecoded_encoding() {
            let why = NotCaptured::Encoded(encoding.to_owned());
            self.response_not_captured(archive, entry, &label, &why, sink);
            return true;
        }
        let mime = response.mime_type.as_deref().unwrap_or("");
        if crate::rules::transport::essence(mime) == crate::rules::transport::PROTO_EVENT_STREAM {
            self.proto_response(archive, entry, &label, &input, previous, sink);
            return true;
        }
        if let Some(why) = NotCaptured::of(response) {
            self.response_not_captured(archive, entry, &label, &why, sink);
            return true;
        }
        let place = archive.body(response);
        let mut stream = EventStream::new();
        // The response answers its request: in the version it declared
        // (`spec/1.1/basic/versioning.mdx`, "Version negotiation"), with
        // the calls and the state its messages and state carried.
        stream.answer(&input);
        let mut pending = Pending::default();
        let mut events = 0;
        for event in SseFramer::read(response.bytes.as_slice()) {
            events += 1;
            // Reading from memory cannot fail.
            let Ok(event) = event else { break };
            let origins = event.lines;
            // Event data → the SSE text of the body → the HAR file.
            let to_har = |l: Location| place.locate(archive, relocate(&origins, l));
            let mut report = self.validator.validate_in_stream(
                &mut stream,
                Some(Kind::Event),
                &event.data,
                record,
                Some(to_har(root_location(&event.data))),
            );
            report.relocate(|d| to_file_positions(d, to_har));
            let context = if response.base64 {
                Context::HarBase64Event(label.clone(), event.index)
            } else {
                Context::HarEvent(label.clone(), event.index)
            };
            let mut checked = self.checked(record, Some(context), report);
            fill_source_lines(&mut checked, |line, _| archive.line(line));
            // The end of the stream reports at the last event's start.
            let start = to_har(root_location(&event.data)).line;
            let text = Text::Fixed(start, archive.line(start));
            pending.push(checked, text, sink);
        }
        if events == 0 {
            self.response_not_captured(archive, entry, &label, &NotCaptured::NoEvents, sink);
            return true;
        }
        // A recording its recorder cut (`--max-response-size`) has no end
        // to judge: what the run would have sent next was not kept.
        let cut = entry
            .delivery
            .as_ref()
            .is_some_and(|delivery| delivery.dropped_bytes.is_some());
        let end = if cut {
            Vec::new()
        } else {
            self.validator.finish_stream(&mut stream)
        };
        pending.finish(end, sink, true);
        if let Some(interrupted) = stream.interrupted() {
            *previous = Some(interrupted.clone());
        }
        true
    }
}

impl FileCheck<'_> {
    /// A run's response in the binary transport: its frames checked as one
    /// stream answering the request, each placed by its entry, frame and
    /// byte in the body (a binary body has no place in the HAR's text).
    fn proto_response(
        &self,
        archive: &Archive<'_>,
        entry: &HarEntry,
        label: &Arc<str>,
        input: &Value,
        previous: &mut Option<Interrupted>,
        sink: &mut dyn Sink,
    ) {
        let Some(response) = &entry.response_body else {
            return;
        };
        let record = Some(entry.index);
        // A binary body has no lines: its findings point at its start.
        let start = archive
            .body(response)
            .locate(archive, Location { line: 1, column: 1 });
        let mut stream = EventStream::new();
        stream.answer(input);
        let mut pending = Pending::default();
        let mut frames = Vec::new();
        let mut framer = ProtoFramer::new(self.validator.limits().max_document_bytes);
        framer.push(&response.bytes, &mut |frame| frames.push(frame));
        framer.finish(&mut |frame| frames.push(frame));
        if frames.is_empty() {
            self.response_not_captured(archive, entry, label, &NotCaptured::NoFrames, sink);
            return;
        }
        for frame in frames {
            let (index, offset) = (frame.index, frame.offset);
            let mut frame = Record::frame(frame);
            frame.decode_frame();
            let mut report = if frame.is_oversized() {
                self.validator.oversized(frame.length)
            } else if frame.holds_no_event() {
                self.validator.report_of(Vec::new())
            } else {
                self.validator.validate_in_stream(
                    &mut stream,
                    Some(Kind::Event),
                    &frame.bytes,
                    record,
                    None,
                )
            };
            if let Some(notes) = &frame.frame {
                let found = self
                    .validator
                    .report_of(notes.findings_in(report.protocol()));
                report.extend(found.into_diagnostics());
            }
            report.place_all_at(start);
            let context = Context::HarFrame(label.clone(), index, Some(offset));
            let mut checked = self.checked(record, Some(context), report);
            fill_source_lines(&mut checked, |line, _| archive.line(line));
            pending.push(
                checked,
                Text::Fixed(start.line, archive.line(start.line)),
                sink,
            );
        }
        let cut = entry
            .delivery
            .as_ref()
            .is_some_and(|delivery| delivery.dropped_bytes.is_some());
        let mut end = if cut {
            Vec::new()
        } else {
            self.validator.finish_stream(&mut stream)
        };
        for finding in &mut end {
            crate::report::place_at(finding, start);
        }
        pending.finish(end, sink, true);
        if let Some(interrupted) = stream.interrupted() {
            *previous = Some(interrupted.clone());
        }
    }
}

/// Why a run's response has no events to check.
enum NotCaptured {
    /// No `content.text`.
    Missing,
    /// A body of whitespace only.
    Empty,
    /// A media type that carries no AG-UI events as text.
    MediaType(String),
    /// A body recorded still encoded (`Content-Encoding: gzip`), which
    /// agui-lint does not decode: an error, since the stream is unchecked.
    Encoded(String),
    /// Text without a single Server-Sent Event (an error page, a JSON
    /// error body).
    NoEvents,
    /// A binary (protobuf) body without a single frame.
    NoFrames,
}

impl NotCaptured {
    /// Why, as the finding's message says it.
    fn why(&self) -> String {
        match self {
            NotCaptured::Missing => "is not in the archive (no content.text)".into(),
            NotCaptured::Empty => "is empty in the archive".into(),
            NotCaptured::MediaType(essence) => {
                format!("is {essence}, a media type not read as events")
            }
            NotCaptured::Encoded(encoding) => format!(
                "was recorded still encoded (Content-Encoding: {encoding}), which agui-lint does not decode"
            ),
            NotCaptured::NoEvents => "holds no Server-Sent Event (no data: line)".into(),
            NotCaptured::NoFrames => "holds no frame of the binary transport".into(),
        }
    }

    /// What to do about it.
    fn help(&self) -> &'static str {
        match self {
            NotCaptured::Missing | NotCaptured::Empty => {
                "export the HAR with content (devtools: Save all as HAR with content) after the stream has ended, or capture the stream with a proxy"
            }
            NotCaptured::MediaType(_) => {
                "agui-lint reads a HAR response as Server-Sent Events (text/event-stream) or as AG-UI's binary transport (application/vnd.ag-ui.event+proto)"
            }
            NotCaptured::Encoded(_) => {
                "record the decoded body (browsers' HAR exports do), or ask the server for an unencoded stream (Accept-Encoding: identity): an event stream is rarely worth compressing"
            }
            NotCaptured::NoEvents | NotCaptured::NoFrames => {
                "the server answered the run without an event stream (an error page or body?); its status and body say why"
            }
        }
    }

    /// Why the body the archive holds is no event stream to check, if it
    /// is not: empty, or of a media type that carries no AG-UI events as
    /// text (a binary transport, an image). Text of any other type is read
    /// as Server-Sent Events, as servers label their streams loosely.
    fn of(response: &HarBody) -> Option<NotCaptured> {
        if response.bytes.iter().all(u8::is_ascii_whitespace) {
            return Some(NotCaptured::Empty);
        }
        let mime = response.mime_type.as_deref().unwrap_or("");
        let essence = crate::rules::transport::essence(mime);
        // `x-unknown` is how browsers record a response without a
        // Content-Type: read as events, as a client would.
        let textual = essence.is_empty()
            || essence == "x-unknown"
            || essence.starts_with("text/")
            || essence.ends_with("json")
            || essence.contains("ndjson")
            || essence.contains("jsonl");
        if !textual {
            return Some(NotCaptured::MediaType(essence));
        }
        // Bytes that are not UTF-8 are read as the SSE standard reads them
        // (each event's own finding), never a reason to skip the rest.
        None
    }
}

/// The 1-based entry number a HAR pointer (`/log/entries/3/...`) is in.
fn entry_index(pointer: &str) -> Option<usize> {
    pointer
        .strip_prefix("/log/entries/")?
        .split('/')
        .next()?
        .parse::<usize>()
        .ok()
        .map(|i| i + 1)
}

/// A `\uXXXX` escape at `at`: its raw length (12 for a surrogate pair) and
/// the length of the UTF-8 it decodes to.
fn unicode_escape(har: &[u8], at: usize) -> Option<(usize, usize)> {
    let hex = |from: usize| {
        let digits = std::str::from_utf8(har.get(from..from + 4)?).ok()?;
        u32::from_str_radix(digits, 16).ok()
    };
    let unit = hex(at + 2)?;
    if (0xD800..0xDC00).contains(&unit) && har.get(at + 6..at + 8) == Some(b"\\u") {
        return Some((12, 4));
    }
    let len = char::from_u32(unit).map_or(3, char::len_utf8);
    Some((6, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_escapes() {
        //          0123456789
        let har = br#"{"t": "a\nb\u00e9c\"d"}"#;
        let escaped = Escaped::index(har, 6).expect("a string");
        assert_eq!(escaped.raw(har, 0), Some(7)); // a
        assert_eq!(escaped.raw(har, 2), Some(10)); // b after \n
        assert_eq!(escaped.raw(har, 3), Some(11)); // the \u00e9 escape
        assert_eq!(escaped.raw(har, 5), Some(17)); // c after 2-byte é
        assert_eq!(escaped.raw(har, 6), Some(18)); // \" escape
        assert!(Escaped::index(har, 0).is_none());
    }

    #[test]
    fn offsets_far_into_a_long_string_are_found_from_the_nearest_mark() {
        let text = "é\\n".repeat(5000);
        let har = format!("{{\"t\": \"{text}\"}}");
        let escaped = Escaped::index(har.as_bytes(), 6).expect("a string");
        assert!(escaped.marks.len() > 3);
        // Each repetition is 2 + 1 decoded bytes and 2 + 2 raw ones.
        for k in [0, 1, 1234, 4999] {
            assert_eq!(escaped.raw(har.as_bytes(), 3 * k), Some(7 + 4 * k));
        }
    }

    #[test]
    fn entry_numbers_are_one_based() {
        assert_eq!(entry_index("/log/entries/2/request"), Some(3));
        assert_eq!(entry_index("/log"), None);
    }
}
