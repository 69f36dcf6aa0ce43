//! A capture read into the exchanges it recorded: each with its run
//! request (when the capture holds one), its response's status and
//! framing, the body as it came (when the capture holds it whole) and the
//! events read from it, in order.
//!
//! HTTP Archives give one exchange per entry that carries a run: a
//! RunAgentInput request or an event-stream response. JSON Lines give one
//! exchange per RunAgentInput line, with the event lines after it (a file
//! of events alone is one exchange). A Server-Sent Events or binary capture
//! is one response.

use std::path::Path;

use serde_json::Value;

use crate::input::har;
use crate::input::{Layout, LineFramer};
use crate::rules::transport::{essence, EVENT_STREAM, PROTO_EVENT_STREAM};
use crate::{Kind, Limits};

use super::framing::EventFramer;

/// A capture's exchanges, in the order recorded.
#[derive(Debug, Clone, Default)]
pub struct Capture {
    /// Every exchange that carried a run.
    pub exchanges: Vec<Exchange>,
}

/// How a response's body frames its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyLayout {
    /// Server-Sent Events (`text/event-stream`).
    Sse,
    /// One JSON event per line.
    JsonLines,
    /// AG-UI's binary transport (`application/vnd.ag-ui.event+proto`).
    Proto,
}

impl BodyLayout {
    /// The layout a response's media type announces, if it is one of the
    /// event streams.
    pub fn of_media_type(media_type: &str) -> Option<BodyLayout> {
        match essence(media_type).as_str() {
            EVENT_STREAM => Some(BodyLayout::Sse),
            PROTO_EVENT_STREAM => Some(BodyLayout::Proto),
            "application/x-ndjson" | "application/jsonl" | "application/json-seq" => {
                Some(BodyLayout::JsonLines)
            }
            _ => None,
        }
    }

    /// The layout of a body whose media type says nothing, from its bytes.
    pub fn sniff(body: &[u8]) -> BodyLayout {
        match Layout::sniff(body) {
            Layout::Proto => BodyLayout::Proto,
            Layout::Sse => BodyLayout::Sse,
            _ => BodyLayout::JsonLines,
        }
    }

    /// The media type a response of this layout is sent with.
    pub fn media_type(self) -> &'static str {
        match self {
            BodyLayout::Sse => EVENT_STREAM,
            BodyLayout::JsonLines => "application/x-ndjson",
            BodyLayout::Proto => PROTO_EVENT_STREAM,
        }
    }
}

/// One recorded request and the response that answered it.
#[derive(Debug, Clone)]
pub struct Exchange {
    /// Where the exchange is in the capture ("entry 3", "line 12"), empty
    /// for a capture that is one response.
    pub origin: String,
    /// The HTTP Archive entry it is (1-based), in an archive.
    pub entry: Option<usize>,
    /// The line of its run request, in a JSON Lines capture.
    pub request_line: Option<usize>,
    /// The run request's body, when the capture holds it.
    pub request: Option<Vec<u8>>,
    /// The response's status (200 when the capture does not say).
    pub status: u16,
    /// How the response framed its events.
    pub layout: BodyLayout,
    /// The response's body as it came, when the capture holds it whole
    /// (not for JSON Lines, whose exchanges are rebuilt from lines).
    pub body: Option<Vec<u8>>,
    /// The events read from the response, in order.
    pub events: Vec<RecordedEvent>,
    /// The media type of a response recorded as something other than an
    /// event stream (an error's JSON, a page): served again as recorded,
    /// whole, and no events read from it.
    pub other_media_type: Option<String>,
}

impl Exchange {
    /// The run request, parsed, when the capture holds one that is JSON.
    pub fn request_value(&self) -> Option<Value> {
        serde_json::from_slice(self.request.as_deref()?).ok()
    }
}

/// One record of a response: an event, or what was sent in its place.
#[derive(Debug, Clone)]
pub struct RecordedEvent {
    /// Where it is in the capture ("line 4", "event 3 (line 9)", "frame 2
    /// (byte 40)", each after its entry in an archive).
    pub origin: String,
    /// The record's bytes: an SSE event's data, a line, a frame's message.
    pub raw: Vec<u8>,
    /// The event, when the record is JSON (for a frame, the JSON the
    /// official decoder makes of it).
    pub value: Option<Value>,
    /// Where the record starts in its exchange's body, when the capture
    /// holds the body whole.
    pub offset: Option<u64>,
    /// Its number as `check` counts its stream's records (1-based): an SSE
    /// event's index, a JSON Lines line's number, a frame's index, an
    /// array item's index.
    pub record: usize,
}

impl RecordedEvent {
    /// The event's `type`, when it has one.
    pub fn event_type(&self) -> Option<&str> {
        self.value.as_ref()?.get("type")?.as_str()
    }
}

/// What a capture read piece by piece hands on, in order: an exchange
/// (its events not yet read), then its events one by one.
#[derive(Debug)]
pub enum Piece {
    /// The next exchange, its `events` empty. A capture that is one
    /// response's body (SSE, binary frames) hands it on without its body,
    /// which is the capture itself.
    Exchange(Exchange),
    /// The next event of the latest exchange.
    Event(RecordedEvent),
}

/// Reads the capture `bytes`, named `path` (whose extension tells its
/// layout; unnamed bytes are sniffed).
pub fn read_capture(bytes: &[u8], path: &Path) -> Result<Capture, String> {
    let mut exchanges: Vec<Exchange> = Vec::new();
    let whole_body = read_capture_each(bytes, path, &mut |piece| match piece {
        Piece::Exchange(exchange) => exchanges.push(exchange),
        Piece::Event(event) => {
            if let Some(exchange) = exchanges.last_mut() {
                exchange.events.push(event);
            }
        }
    })?;
    if whole_body {
        if let Some(exchange) = exchanges.first_mut() {
            exchange.body = Some(bytes.to_vec());
        }
    }
    Ok(Capture { exchanges })
}

/// Reads the capture `bytes`, named `path`, handing each exchange and
/// event to `each` as it is read, so that a reader of a large capture holds
/// one event at a time (an archive's entry at a time). Whether the capture
/// is one response's body (then its exchange's body is `bytes`).
pub fn read_capture_each(
    bytes: &[u8],
    path: &Path,
    each: &mut dyn FnMut(Piece),
) -> Result<bool, String> {
    let layout = Layout::from_path(path).unwrap_or_else(|| Layout::sniff(bytes));
    let limit = Limits::default().max_document_bytes;
    match layout {
        Layout::Har => read_har(bytes, limit, each).map(|()| false),
        Layout::JsonLines => {
            read_json_lines(bytes, limit, each);
            Ok(false)
        }
        Layout::Sse => {
            one_response(bytes, BodyLayout::Sse, limit, each);
            Ok(true)
        }
        Layout::Proto => {
            one_response(bytes, BodyLayout::Proto, limit, each);
            Ok(true)
        }
        Layout::Json => {
            let value: Value =
                serde_json::from_slice(bytes).map_err(|e| format!("is not JSON: {e}"))?;
            if har::looks_like_har(&value) {
                return read_har(bytes, limit, each).map(|()| false);
            }
            // A JSON array of events, or one event: one response.
            let events = match value {
                Value::Array(items) => items,
                other => vec![other],
            };
            each(Piece::Exchange(Exchange {
                origin: String::new(),
                entry: None,
                request_line: None,
                request: None,
                status: 200,
                layout: BodyLayout::JsonLines,
                body: None,
                events: Vec::new(),
                other_media_type: None,
            }));
            for (i, value) in events.into_iter().enumerate() {
                each(Piece::Event(RecordedEvent {
                    origin: format!("item {}", i + 1),
                    raw: serde_json::to_vec(&value).unwrap_or_default(),
                    value: Some(value),
                    offset: None,
                    record: i + 1,
                }));
            }
            Ok(false)
        }
    }
}

/// [`read_capture_each`] of a capture read from `reader` a piece at a
/// time, never held whole: a JSON Lines, SSE or binary frames capture
/// (`layout`; an archive or a JSON document is read whole, with
/// [`read_capture_each`]).
pub fn read_stream_each(
    reader: &mut dyn std::io::Read,
    layout: Layout,
    each: &mut dyn FnMut(Piece),
) -> Result<(), String> {
    let limit = Limits::default().max_document_bytes;
    let mut failed = None;
    {
        let mut feed = |push: &mut dyn FnMut(&[u8])| {
            let mut buffer = vec![0u8; 1 << 20];
            loop {
                match reader.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => push(&buffer[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        failed = Some(format!("cannot read: {e}"));
                        break;
                    }
                }
            }
        };
        let body_layout = match layout {
            Layout::JsonLines => {
                read_json_lines_fed(&mut feed, limit, each);
                None
            }
            Layout::Sse => Some(BodyLayout::Sse),
            Layout::Proto => Some(BodyLayout::Proto),
            Layout::Har | Layout::Json => {
                return Err("an archive or a JSON document is read whole".to_owned())
            }
        };
        if let Some(layout) = body_layout {
            each(Piece::Exchange(one_response_head(layout)));
            events_fed(&mut feed, layout, limit, "", &mut |event| {
                each(Piece::Event(event));
            });
        }
    }
    failed.map_or(Ok(()), Err)
}

/// An HTTP Archive's exchanges that carry a run.
fn read_har(bytes: &[u8], limit: usize, each: &mut dyn FnMut(Piece)) -> Result<(), String> {
    let entries = har::read(bytes).map_err(|e| format!("is not an HTTP Archive: {e}"))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", e.pointer))?;
        let request = entry
            .request_body
            .map(|body| body.bytes)
            .filter(|body| is_run_request(body));
        let mime = entry
            .response_body
            .as_ref()
            .and_then(|b| b.mime_type.clone())
            .or(entry.response_mime_type.clone());
        let announced = mime.as_deref().and_then(BodyLayout::of_media_type);
        if request.is_none() && announced.is_none() {
            continue;
        }
        let body = entry.response_body.map(|b| b.bytes).unwrap_or_default();
        let layout = announced.unwrap_or_else(|| BodyLayout::sniff(&body));
        let origin = format!("entry {}", entry.index);
        // A response that says it is something else (a 422's JSON) is no
        // stream of events, whatever its bytes look like.
        let other_media_type = match (&mime, announced) {
            (Some(mime), None) if !mime.trim().is_empty() => Some(mime.clone()),
            _ => None,
        };
        let events = if other_media_type.is_some() {
            Vec::new()
        } else {
            events_of(&body, layout, limit, &format!("{origin}, "))
        };
        each(Piece::Exchange(Exchange {
            origin,
            entry: Some(entry.index),
            request_line: None,
            request,
            status: entry.status.unwrap_or(200),
            layout,
            body: Some(body),
            events: Vec::new(),
            other_media_type,
        }));
        for event in events {
            each(Piece::Event(event));
        }
    }
    Ok(())
}

/// A JSON Lines capture: each RunAgentInput line starts an exchange, the
/// event lines after it are its response.
fn read_json_lines(bytes: &[u8], limit: usize, each: &mut dyn FnMut(Piece)) {
    read_json_lines_fed(&mut |push| push(bytes), limit, each);
}

/// The bytes of a capture, handed piece by piece to the function given.
type Feed<'a> = dyn FnMut(&mut dyn FnMut(&[u8])) + 'a;

/// [`read_json_lines`] of the bytes `feed` hands on.
fn read_json_lines_fed(feed: &mut Feed<'_>, limit: usize, each: &mut dyn FnMut(Piece)) {
    let mut framer = LineFramer::new(limit);
    let mut started = false;
    let mut on_line = |line: crate::input::Line| {
        let value = serde_json::from_slice::<Value>(&line.bytes).ok();
        let is_request = value
            .as_ref()
            .is_some_and(|v| Kind::detect(v) == Ok(Kind::RunAgentInput));
        if is_request || !started {
            started = true;
            each(Piece::Exchange(Exchange {
                origin: format!("line {}", line.number),
                entry: None,
                request_line: is_request.then_some(line.number),
                request: is_request.then(|| line.bytes.clone()),
                status: 200,
                layout: BodyLayout::JsonLines,
                body: None,
                events: Vec::new(),
                other_media_type: None,
            }));
        }
        if !is_request {
            each(Piece::Event(RecordedEvent {
                origin: format!("line {}", line.number),
                raw: line.bytes,
                value,
                offset: None,
                record: line.number,
            }));
        }
    };
    feed(&mut |chunk| framer.push(chunk, &mut on_line));
    framer.finish(&mut on_line);
}

/// The exchange of a capture that is one response's body, its events
/// not yet read and its body the capture's.
fn one_response_head(layout: BodyLayout) -> Exchange {
    Exchange {
        origin: String::new(),
        entry: None,
        request_line: None,
        request: None,
        status: 200,
        layout,
        body: None,
        events: Vec::new(),
        other_media_type: None,
    }
}

/// A capture that is one response's body.
fn one_response(bytes: &[u8], layout: BodyLayout, limit: usize, each: &mut dyn FnMut(Piece)) {
    each(Piece::Exchange(one_response_head(layout)));
    events_each(bytes, layout, limit, "", &mut |event| {
        each(Piece::Event(event))
    });
}

/// Whether `bytes` are a RunAgentInput.
fn is_run_request(bytes: &[u8]) -> bool {
    serde_json::from_slice::<Value>(bytes)
        .is_ok_and(|v| Kind::detect(&v) == Ok(Kind::RunAgentInput))
}

/// The records of a response body framed as `layout`, each named after
/// `prefix` (the exchange's place in the capture, if any).
pub fn events_of(
    body: &[u8],
    layout: BodyLayout,
    limit: usize,
    prefix: &str,
) -> Vec<RecordedEvent> {
    let mut events = Vec::new();
    events_each(body, layout, limit, prefix, &mut |event| events.push(event));
    events
}

/// [`events_of`], each record handed to `each` as it is read.
pub fn events_each(
    body: &[u8],
    layout: BodyLayout,
    limit: usize,
    prefix: &str,
    each: &mut dyn FnMut(RecordedEvent),
) {
    events_fed(&mut |push| push(body), layout, limit, prefix, each);
}

/// [`events_each`] of the bytes `feed` hands on.
fn events_fed(
    feed: &mut Feed<'_>,
    layout: BodyLayout,
    limit: usize,
    prefix: &str,
    each: &mut dyn FnMut(RecordedEvent),
) {
    let mut framer = EventFramer::new(layout, limit, prefix);
    feed(&mut |chunk| framer.push(chunk, each));
    framer.finish(each);
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUN: &str = r#"{"threadId":"t","runId":"r","state":{},"messages":[],"tools":[],"context":[],"forwardedProps":{}}"#;

    /// A reader that hands its bytes on `size` at a time.
    struct Trickle<'a> {
        bytes: &'a [u8],
        size: usize,
    }

    impl std::io::Read for Trickle<'_> {
        fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
            let n = self.size.min(self.bytes.len()).min(buffer.len());
            buffer[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// Each exchange's origin and request line, and each event's origin,
    /// record and raw bytes, as read.
    fn pieces(read: impl FnOnce(&mut dyn FnMut(Piece))) -> Vec<String> {
        let mut seen = Vec::new();
        read(&mut |piece| {
            seen.push(match piece {
                Piece::Exchange(x) => format!("x {} {:?}", x.origin, x.request_line),
                Piece::Event(e) => format!(
                    "e {} {} {}",
                    e.origin,
                    e.record,
                    String::from_utf8_lossy(&e.raw)
                ),
            });
        });
        seen
    }

    #[test]
    fn a_capture_read_a_piece_at_a_time_is_read_as_whole() {
        let lines = format!(
            "{RUN}\n{{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}}\nnot json\n{RUN}\n{{\"type\":\"RUN_ERROR\",\"message\":\"m\"}}\n"
        );
        let sse = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\r\n\r\n: keep\n\ndata: {\"type\":\n data: \"RUN_FINISHED\"}\n\n";
        for (text, name, layout) in [
            (lines.as_str(), "c.jsonl", Layout::JsonLines),
            (sse, "c.sse", Layout::Sse),
        ] {
            let whole = pieces(|each| {
                read_capture_each(text.as_bytes(), Path::new(name), each).expect("read");
            });
            assert!(whole.len() > 2, "{whole:?}");
            for size in [1, 7, 1 << 20] {
                let mut reader = Trickle {
                    bytes: text.as_bytes(),
                    size,
                };
                let streamed = pieces(|each| {
                    read_stream_each(&mut reader, layout, each).expect("read");
                });
                assert_eq!(streamed, whole, "{name} in pieces of {size}");
            }
        }
    }

    #[test]
    fn json_lines_split_at_each_run_request() {
        let text = format!(
            "{RUN}\n{{\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}}\nnot json\n{RUN}\n{{\"type\":\"RUN_ERROR\",\"message\":\"m\"}}\n"
        );
        let capture = read_capture(text.as_bytes(), Path::new("c.jsonl")).expect("capture");
        assert_eq!(capture.exchanges.len(), 2);
        let first = &capture.exchanges[0];
        assert_eq!(first.request.as_deref(), Some(RUN.as_bytes()));
        assert_eq!(first.events.len(), 2);
        assert_eq!(first.events[0].event_type(), Some("RUN_STARTED"));
        assert!(first.events[1].value.is_none());
        assert_eq!(first.events[1].origin, "line 3");
        assert_eq!(
            capture.exchanges[1].events[0].event_type(),
            Some("RUN_ERROR")
        );
    }

    #[test]
    fn events_alone_are_one_response() {
        let text = "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\ndata: {\"type\":\"RUN_FINISHED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n";
        let capture = read_capture(text.as_bytes(), Path::new("-")).expect("capture");
        assert_eq!(capture.exchanges.len(), 1);
        let exchange = &capture.exchanges[0];
        assert_eq!(exchange.layout, BodyLayout::Sse);
        assert_eq!(exchange.body.as_deref(), Some(text.as_bytes()));
        assert_eq!(exchange.events[1].origin, "event 2 (line 3)");
    }

    #[test]
    fn media_types_name_layouts() {
        assert_eq!(
            BodyLayout::of_media_type("text/event-stream; charset=utf-8"),
            Some(BodyLayout::Sse)
        );
        assert_eq!(
            BodyLayout::of_media_type("application/vnd.ag-ui.event+proto"),
            Some(BodyLayout::Proto)
        );
        assert_eq!(BodyLayout::of_media_type("application/json"), None);
    }
}
