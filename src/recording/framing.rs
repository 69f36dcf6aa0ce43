//! A response body's records framed as its bytes come, in chunks split
//! anywhere, each handed on as a [`RecordedEvent`]: what reading a
//! capture does to a body it holds, and what a watcher of live traffic
//! (the proxy's live view) does to a body still passing.

use crate::input::proto::{decode, Decoded, FrameBody, ProtoFramer};
use crate::input::sse::SseFramer;
use crate::input::LineFramer;

use super::capture::{BodyLayout, RecordedEvent};

/// Frames one response body's records as its bytes come.
///
/// ```
/// use agui_lint::unstable::recording::capture::BodyLayout;
/// use agui_lint::unstable::recording::framing::EventFramer;
///
/// let mut framer = EventFramer::new(BodyLayout::Sse, 1 << 20, "");
/// let mut types = Vec::new();
/// framer.push(b"data: {\"type\":\"RUN_STA", &mut |e| types.push(e.event_type().map(str::to_owned)));
/// framer.push(b"RTED\"}\n\n", &mut |e| types.push(e.event_type().map(str::to_owned)));
/// framer.finish(&mut |e| types.push(e.event_type().map(str::to_owned)));
/// assert_eq!(types, [Some("RUN_STARTED".to_owned())]);
/// ```
pub struct EventFramer {
    framer: Framer,
    /// What each record's origin starts with (its exchange's place in a
    /// capture, if any).
    prefix: String,
}

enum Framer {
    Sse(SseFramer),
    Lines(LineFramer),
    Proto(ProtoFramer),
}

impl EventFramer {
    /// A framer of a body laid out as `layout`, whose records may be
    /// `limit` bytes at most (a longer one is handed on as what was sent
    /// in its place), each named after `prefix`.
    pub fn new(layout: BodyLayout, limit: usize, prefix: &str) -> EventFramer {
        let framer = match layout {
            BodyLayout::Sse => Framer::Sse(SseFramer::new(limit)),
            BodyLayout::JsonLines => Framer::Lines(LineFramer::new(limit)),
            BodyLayout::Proto => Framer::Proto(ProtoFramer::new(limit)),
        };
        EventFramer {
            framer,
            prefix: prefix.to_owned(),
        }
    }

    /// The next `chunk` of the body: each record it completes goes to
    /// `each`.
    pub fn push(&mut self, chunk: &[u8], each: &mut dyn FnMut(RecordedEvent)) {
        let prefix = self.prefix.as_str();
        match &mut self.framer {
            Framer::Sse(framer) => framer.push(chunk, &mut |event| each(sse_event(prefix, event))),
            Framer::Lines(framer) => framer.push(chunk, &mut |line| each(line_event(prefix, line))),
            Framer::Proto(framer) => {
                framer.push(chunk, &mut |frame| each(frame_event(prefix, frame)));
            }
        }
    }

    /// The body ended: the record left unfinished, if any, goes to `each`.
    pub fn finish(self, each: &mut dyn FnMut(RecordedEvent)) {
        let prefix = self.prefix.as_str();
        match self.framer {
            Framer::Sse(mut framer) => framer.finish(&mut |event| each(sse_event(prefix, event))),
            Framer::Lines(mut framer) => {
                framer.finish(&mut |line| each(line_event(prefix, line)));
            }
            Framer::Proto(mut framer) => {
                framer.finish(&mut |frame| each(frame_event(prefix, frame)));
            }
        }
    }
}

fn sse_event(prefix: &str, event: crate::input::sse::SseEvent) -> RecordedEvent {
    RecordedEvent {
        origin: format!("{prefix}event {} (line {})", event.index, event.first_line),
        value: serde_json::from_slice(&event.data).ok(),
        raw: event.data,
        offset: Some(event.offset),
        record: event.index,
    }
}

fn line_event(prefix: &str, line: crate::input::Line) -> RecordedEvent {
    RecordedEvent {
        origin: format!("{prefix}line {}", line.number),
        value: serde_json::from_slice(&line.bytes).ok(),
        raw: line.bytes,
        offset: Some(line.offset),
        record: line.number,
    }
}

fn frame_event(prefix: &str, frame: crate::input::proto::Frame) -> RecordedEvent {
    let origin = format!("{prefix}frame {} (byte {})", frame.index, frame.offset);
    let FrameBody::Message(message) = frame.body else {
        return RecordedEvent {
            origin,
            raw: Vec::new(),
            value: None,
            offset: Some(frame.offset),
            record: frame.index,
        };
    };
    let value = match decode(&message) {
        Ok(Decoded::Event { written, .. }) => serde_json::from_slice(&written.json).ok(),
        _ => None,
    };
    RecordedEvent {
        origin,
        raw: message,
        value,
        offset: Some(frame.offset),
        record: frame.index,
    }
}
