//! Server-Sent Events captures: the events of a stream, located in the file.
//!
//! Owns the event-stream grammar (WHATWG HTML, "Interpreting an event
//! stream"): splitting lines on CRLF, LF or a lone CR, fields, comments and
//! dispatch on blank lines, plus where each data line sits in the capture so
//! that a finding inside an event's JSON can point back into the file. It
//! knows nothing about AG-UI: events come out as bytes.

use std::io::BufRead;

use super::framed::{Framed, Framer};

/// The UTF-8 byte order mark, which the event-stream grammar allows (and
/// drops) at the very start of a stream.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Where one line of an event's data sits in the capture file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineOrigin {
    /// 1-based line number in the file.
    pub line: usize,
    /// Characters (Unicode scalar values) before the value on that line,
    /// e.g. 6 for `data: `, 5 for `data:`.
    pub column_shift: usize,
}

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// 1-based index among the emitted events of the stream.
    pub index: usize,
    /// The data lines joined with "\n" (bytes as in the file; invalid UTF-8
    /// is kept, not replaced).
    pub data: Vec<u8>,
    /// The `event:` field, if any (an empty value counts as none, as it
    /// means the default type to a browser).
    pub event: Option<String>,
    /// The last `id:` field seen (ids persist across events per WHATWG), if
    /// any; an empty `id:` clears it.
    pub id: Option<String>,
    /// For each line of `data` (data.split('\n')), where it is in the file.
    /// Same length as the number of data lines.
    pub lines: Vec<LineOrigin>,
    /// 1-based file line of the event's first field line (its first `data:`
    /// or `event:`/`id:` line).
    pub first_line: usize,
    /// Where that line starts in the stream, in bytes from its first.
    pub offset: u64,
    /// The length of the event's data in bytes. Larger than `data.len()`
    /// when the data was over the reader's limit: then only its start is
    /// kept.
    pub length: usize,
}

/// The event-stream grammar fed bytes as they come: a chunk may end
/// anywhere (inside a field, between a CR and its LF), and each event is
/// handed out as soon as the blank line that dispatches it arrives. Holds
/// at most one event and one line (each within its limit), so a stream of
/// any length is framed in bounded memory.
#[derive(Debug)]
pub struct SseFramer {
    /// Most bytes of data kept per event (and, give or take a field name,
    /// per line); beyond it data is only measured.
    limit: usize,
    /// The line being read, reused from line to line.
    line: Vec<u8>,
    /// The line's length, also the part not kept.
    line_length: usize,
    /// Some byte of the current line has arrived (a final line without a
    /// break is still a line).
    started: bool,
    /// 1-based number of the last line read; 0 before the first.
    line_number: usize,
    /// The previous line ended with a CR, so an LF at the start of the next
    /// chunk belongs to that break. Remembered rather than peeked at so that
    /// a live stream's line is handled without waiting for the next byte.
    skip_lf: bool,
    /// Bytes fed so far.
    fed: u64,
    /// Where the current line starts in the stream.
    line_offset: u64,
    /// The event being built.
    pending: Pending,
    /// The last event ID buffer, which outlives events.
    id: Option<String>,
    /// Events emitted so far.
    emitted: usize,
}

/// The buffers of the event not yet dispatched.
#[derive(Debug, Default)]
struct Pending {
    data: Vec<u8>,
    length: usize,
    event: Option<String>,
    lines: Vec<LineOrigin>,
    first_line: Option<(usize, u64)>,
}

impl SseFramer {
    /// A framer that keeps at most `limit` bytes of an event's data (and
    /// of a line), measuring the rest: an event of any size is framed in
    /// bounded memory and reported by its length.
    pub fn new(limit: usize) -> Self {
        SseFramer {
            limit,
            line: Vec::new(),
            line_length: 0,
            started: false,
            line_number: 0,
            skip_lf: false,
            fed: 0,
            line_offset: 0,
            pending: Pending::default(),
            id: None,
            emitted: 0,
        }
    }

    /// Frames the next `chunk` of the stream, handing each event it
    /// completes to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut impl FnMut(SseEvent)) {
        let mut rest = chunk;
        while !rest.is_empty() {
            if self.skip_lf {
                self.skip_lf = false;
                if rest.first() == Some(&b'\n') {
                    rest = &rest[1..];
                    self.fed += 1;
                    self.line_offset = self.fed;
                    continue;
                }
            }
            self.started = true;
            // Every event ends with a blank line: found without a search.
            let at = match rest.first() {
                Some(b'\n') => Some(0),
                _ => memchr::memchr2(b'\n', b'\r', rest),
            };
            let Some(at) = at else {
                keep(&mut self.line, rest, self.limit);
                self.line_length += rest.len();
                self.fed += rest.len() as u64;
                return;
            };
            let (content, after) = rest.split_at(at);
            keep(&mut self.line, content, self.limit);
            self.line_length += content.len();
            self.skip_lf = after.first() == Some(&b'\r');
            rest = after.get(1..).unwrap_or_default();
            self.fed += at as u64 + 1;
            self.end_line(out);
        }
    }

    /// Ends the stream: a final line without a break is still a line, and
    /// unlike a browser, a capture cut before its final blank line still
    /// shows its last event.
    pub fn finish(&mut self, out: &mut impl FnMut(SseEvent)) {
        self.skip_lf = false;
        if self.started {
            self.end_line(out);
        }
        if let Some(event) = self.dispatch() {
            out(event);
        }
    }

    /// The line just completed, interpreted, and the next one begun.
    fn end_line(&mut self, out: &mut impl FnMut(SseEvent)) {
        self.line_number += 1;
        if let Some(event) = self.process_line() {
            out(event);
        }
        self.line.clear();
        self.line_length = 0;
        self.started = false;
        self.line_offset = self.fed;
    }

    /// Interprets the line just read; returns the event a blank line
    /// dispatches.
    fn process_line(&mut self) -> Option<SseEvent> {
        let mut line = self.line.as_slice();
        if self.line_number == 1 {
            line = line.strip_prefix(BOM).unwrap_or(line);
        }
        if line.is_empty() {
            return self.dispatch();
        }
        if line.first() == Some(&b':') {
            return None;
        }
        let (name, value, prefix_len) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let (name, rest) = line.split_at(colon);
                let rest = rest.get(1..).unwrap_or_default();
                let value = rest.strip_prefix(b" ").unwrap_or(rest);
                (name, value, line.len() - value.len())
            }
            None => (line, &[][..], line.len()),
        };
        let line_number = self.line_number;
        match name {
            b"data" => {
                // `data:` and its optional space: characters as many as
                // bytes (a BOM before them is dropped above).
                let column_shift = prefix_len;
                let dropped = self.line_length.saturating_sub(self.line.len());
                if !self.pending.lines.is_empty() {
                    self.pending.length += 1;
                    if self.pending.data.len() < self.limit {
                        self.pending.data.push(b'\n');
                    }
                }
                self.pending.length += value.len() + dropped;
                keep(&mut self.pending.data, value, self.limit);
                self.pending.lines.push(LineOrigin {
                    line: line_number,
                    column_shift,
                });
            }
            b"event" => {
                self.pending.event = non_empty(value);
            }
            b"id" => {
                // WHATWG ignores an id with NUL (it could not be sent back
                // in a `Last-Event-ID` header).
                if value.contains(&0) {
                    return None;
                }
                self.id = non_empty(value);
            }
            // `retry` only steers reconnection; unknown fields are ignored
            // by the grammar, and neither marks where an event starts.
            _ => return None,
        }
        self.pending
            .first_line
            .get_or_insert((line_number, self.line_offset));
        None
    }

    /// Ends the pending event: emitted when it has data, dropped otherwise.
    fn dispatch(&mut self) -> Option<SseEvent> {
        let pending = std::mem::take(&mut self.pending);
        if pending.lines.is_empty() {
            return None;
        }
        self.emitted += 1;
        let (first_line, offset) = pending
            .first_line
            .unwrap_or((self.line_number, self.line_offset));
        Some(SseEvent {
            index: self.emitted,
            data: pending.data,
            event: pending.event,
            id: self.id.clone(),
            first_line,
            offset,
            lines: pending.lines,
            length: pending.length,
        })
    }
}

impl Framer for SseFramer {
    type Record = SseEvent;

    fn push(&mut self, chunk: &[u8], out: &mut impl FnMut(SseEvent)) {
        SseFramer::push(self, chunk, out);
    }

    fn finish(&mut self, out: &mut impl FnMut(SseEvent)) {
        SseFramer::finish(self, out);
    }
}

/// Reads events one at a time from a buffered reader through an
/// [`SseFramer`], so a capture of any size is read in bounded memory.
pub type SseReader<R> = Framed<R, SseFramer>;

impl SseFramer {
    /// A reader of the events in `reader`, from its first byte.
    pub fn read<R: BufRead>(reader: R) -> SseReader<R> {
        Framed::over(reader, SseFramer::new(usize::MAX))
    }

    /// A reader that keeps at most `limit` bytes of an event's data (and
    /// of a line), measuring the rest: an event of any size is read in
    /// bounded memory and reported by its length.
    pub fn read_with_limit<R: BufRead>(reader: R, limit: usize) -> SseReader<R> {
        Framed::over(reader, SseFramer::new(limit))
    }
}

/// Appends to `kept` what of `bytes` fits under `limit` (plus room for a
/// field name, so that an over-long line still tells which field it is).
fn keep(kept: &mut Vec<u8>, bytes: &[u8], limit: usize) {
    let room = limit.saturating_add(64).saturating_sub(kept.len());
    kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
}

/// Whether unnamed bytes look like an event stream: after an optional BOM
/// and blank lines, the first non-blank line starts with `data:`, `event:`,
/// `id:`, `retry:` or `:`.
pub fn looks_like_sse(bytes: &[u8]) -> bool {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    let start = bytes
        .iter()
        .position(|&b| b != b'\n' && b != b'\r')
        .unwrap_or(bytes.len());
    let first = bytes.get(start..).unwrap_or_default();
    [&b"data:"[..], b"event:", b"id:", b"retry:", b":"]
        .iter()
        .any(|prefix| first.starts_with(prefix))
}

/// A field value as text, `None` when empty.
fn non_empty(value: &[u8]) -> Option<String> {
    (!value.is_empty()).then(|| String::from_utf8_lossy(value).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{self, BufReader, Cursor, Read};

    fn events(input: &[u8]) -> Vec<SseEvent> {
        SseFramer::read(Cursor::new(input.to_vec()))
            .collect::<io::Result<Vec<_>>>()
            .expect("reading from memory does not fail")
    }

    fn origin(line: usize, column_shift: usize) -> LineOrigin {
        LineOrigin { line, column_shift }
    }

    #[test]
    fn events_over_the_limit_are_measured_not_kept() {
        let text = format!(
            "data: {}\ndata: {}\n\ndata: {{}}\n\n",
            "x".repeat(300),
            "y".repeat(300)
        );
        let events: Vec<SseEvent> = SseFramer::read_with_limit(text.as_bytes(), 100)
            .map(|e| e.expect("event"))
            .collect();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].length, 601);
        assert!(events[0].data.len() <= 164);
        assert_eq!(
            (events[1].length, events[1].data.as_slice()),
            (2, &b"{}"[..])
        );
    }

    #[test]
    fn two_events_separated_by_blank_lines() {
        let got = events(b"data: {\"a\":1}\n\ndata: {\"b\":2}\n\n");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].index, 1);
        assert_eq!(got[0].data, b"{\"a\":1}");
        assert_eq!(got[0].lines, vec![origin(1, 6)]);
        assert_eq!(got[0].first_line, 1);
        assert_eq!(got[1].index, 2);
        assert_eq!(got[1].data, b"{\"b\":2}");
        assert_eq!(got[1].lines, vec![origin(3, 6)]);
        assert_eq!(got[1].first_line, 3);
        assert_eq!(got[0].event, None);
        assert_eq!(got[0].id, None);
    }

    #[test]
    fn multi_line_data_is_joined_and_located() {
        let got = events(b"\nevent: e\ndata: {\ndata:\"a\":1\ndata:  }\n\n");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].data, b"{\n\"a\":1\n }");
        assert_eq!(got[0].lines, vec![origin(3, 6), origin(4, 5), origin(5, 6)]);
        assert_eq!(got[0].first_line, 2);
    }

    #[test]
    fn comments_are_ignored() {
        let got = events(b": keep-alive\ndata: x\n:another\n\n: ping\n\n");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].data, b"x");
        assert_eq!(got[0].first_line, 2);
    }

    #[test]
    fn event_and_id_are_captured_and_id_persists() {
        let got = events(b"event: RUN_STARTED\nid: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n");
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].event.as_deref(), Some("RUN_STARTED"));
        assert_eq!(got[0].id.as_deref(), Some("7"));
        assert_eq!(got[0].first_line, 1);
        assert_eq!(got[1].event, None);
        assert_eq!(got[1].id.as_deref(), Some("7"));
        assert_eq!(got[2].id, None);
    }

    #[test]
    fn id_with_nul_is_ignored() {
        let got = events(b"id: 1\ndata: a\n\nid: 2\0\ndata: b\n\n");
        assert_eq!(got[1].id.as_deref(), Some("1"));
        assert_eq!(got[1].first_line, 5);
    }

    #[test]
    fn retry_and_unknown_fields_are_ignored() {
        let got = events(b"retry: 1000\nfoo: bar\ndata: a\n\n");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].data, b"a");
        assert_eq!(got[0].first_line, 3);
    }

    #[test]
    fn crlf_and_lone_cr_read_like_lf() {
        let lf = events(b"event: e\ndata: a\ndata:b\n\n: c\ndata: d\n\n");
        let crlf = events(b"event: e\r\ndata: a\r\ndata:b\r\n\r\n: c\r\ndata: d\r\n\r\n");
        let cr = events(b"event: e\rdata: a\rdata:b\r\r: c\rdata: d\r\r");
        assert_eq!(lf.len(), 2);
        assert_eq!(lf[0].lines, vec![origin(2, 6), origin(3, 5)]);
        assert_eq!(lf[1].lines, vec![origin(6, 6)]);
        // The same events, but for where they start in bytes.
        let offsets = |events: &[SseEvent]| events.iter().map(|e| e.offset).collect::<Vec<_>>();
        assert_eq!(offsets(&lf), [0, 29]);
        assert_eq!(offsets(&crlf), [0, 34]);
        assert_eq!(offsets(&cr), [0, 29]);
        let without_offsets = |events: Vec<SseEvent>| {
            events
                .into_iter()
                .map(|e| SseEvent { offset: 0, ..e })
                .collect::<Vec<_>>()
        };
        assert_eq!(without_offsets(crlf), without_offsets(lf.clone()));
        assert_eq!(without_offsets(cr), without_offsets(lf));
    }

    #[test]
    fn crlf_split_across_buffer_refills() {
        let input = b"data: a\r\n\r\ndata: b\r\n\r\n";
        let expected = events(input);
        // A one-byte buffer puts every CR at the end of a chunk, its LF at
        // the start of the next.
        let reader = BufReader::with_capacity(1, Cursor::new(input.to_vec()));
        let got = SseFramer::read(reader)
            .collect::<io::Result<Vec<_>>>()
            .expect("reading from memory does not fail");
        assert_eq!(got, expected);
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].lines, vec![origin(3, 6)]);
    }

    #[test]
    fn missing_final_blank_line_still_emits() {
        let got = events(b"data: a\n\ndata: b\ndata: c");
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].data, b"b\nc");
        assert_eq!(got[1].lines, vec![origin(3, 6), origin(4, 6)]);
        let got = events(b"data: a\n");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].data, b"a");
    }

    #[test]
    fn dispatch_without_data_emits_nothing() {
        assert!(events(b"\n\n\n").is_empty());
        assert!(events(b"").is_empty());
        let got = events(b"event: ignored\n\ndata: a\n\n");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].index, 1);
        assert_eq!(got[0].event, None);
        assert_eq!(got[0].first_line, 3);
    }

    #[test]
    fn bom_is_skipped_without_shifting_columns() {
        let got = events(b"\xEF\xBB\xBFdata: a\n\n");
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].data, b"a");
        assert_eq!(got[0].lines, vec![origin(1, 6)]);
        // Only at the very start: a BOM later is part of the field name.
        assert!(events(b"\n\xEF\xBB\xBFdata: a\n\n").is_empty());
    }

    #[test]
    fn empty_data_value_is_an_empty_line() {
        let got = events(b"data:\n\ndata\n\ndata\ndata: x\n\n");
        assert_eq!(got.len(), 3);
        assert_eq!(got[0].data, b"");
        assert_eq!(got[0].lines, vec![origin(1, 5)]);
        assert_eq!(got[1].data, b"");
        assert_eq!(got[1].lines, vec![origin(3, 4)]);
        assert_eq!(got[2].data, b"\nx");
        assert_eq!(got[2].lines, vec![origin(5, 4), origin(6, 6)]);
    }

    #[test]
    fn only_one_leading_space_is_removed() {
        let got = events(b"data:  a \n\n");
        assert_eq!(got[0].data, b" a ");
        assert_eq!(got[0].lines, vec![origin(1, 6)]);
    }

    #[test]
    fn invalid_utf8_is_preserved() {
        let got = events(b"data: \xFF\xFEok\n\n");
        assert_eq!(got[0].data, b"\xFF\xFEok");
    }

    #[test]
    fn io_error_is_returned_once() {
        struct Failing(bool);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0 {
                    return Err(io::Error::other("boom"));
                }
                self.0 = true;
                let chunk = b"data: a\n\ndata: b\n";
                let n = chunk.len().min(buf.len());
                buf[..n].copy_from_slice(&chunk[..n]);
                Ok(n)
            }
        }
        let mut reader = SseFramer::read(BufReader::new(Failing(false)));
        let first = reader.next().expect("an event").expect("no error yet");
        assert_eq!(first.data, b"a");
        assert!(matches!(reader.next(), Some(Err(_))));
        assert!(reader.next().is_none());
    }

    /// The events of `input` fed to a framer in chunks of `size` bytes.
    fn framed_in_chunks(input: &[u8], size: usize) -> Vec<SseEvent> {
        let mut framer = SseFramer::new(usize::MAX);
        let mut events = Vec::new();
        for chunk in input.chunks(size) {
            framer.push(chunk, &mut |event| events.push(event));
        }
        framer.finish(&mut |event| events.push(event));
        events
    }

    #[test]
    fn a_stream_split_anywhere_frames_as_it_does_whole() {
        let input: &[u8] = b"\xEF\xBB\xBF: hi\r\nevent: e\r\nid: 7\r\ndata: {\r\ndata:  }\r\n\r\n\
            data: b\rdata:c\r\r\ndata: \xc3\xa9\n\ndata: last";
        let whole = framed_in_chunks(input, input.len());
        assert_eq!(whole.len(), 4);
        assert_eq!(whole, events(input));
        for size in 1..input.len() {
            assert_eq!(framed_in_chunks(input, size), whole, "chunks of {size}");
        }
        // Each split in two, at every byte.
        for at in 0..=input.len() {
            let mut framer = SseFramer::new(usize::MAX);
            let mut events = Vec::new();
            framer.push(&input[..at], &mut |event| events.push(event));
            framer.push(&input[at..], &mut |event| events.push(event));
            framer.finish(&mut |event| events.push(event));
            assert_eq!(events, whole, "split at {at}");
        }
    }

    #[test]
    fn an_event_is_handed_out_as_soon_as_its_blank_line_arrives() {
        let mut framer = SseFramer::new(usize::MAX);
        let mut events = Vec::new();
        framer.push(b"data: a\n", &mut |event| events.push(event));
        assert!(events.is_empty());
        framer.push(b"\n", &mut |event| events.push(event));
        assert_eq!(events.len(), 1);
        // A CR ends the line at once: the LF that may follow is not waited for.
        framer.push(b"data: b\r\r", &mut |event| events.push(event));
        assert_eq!(events.len(), 2);
    }

    #[test]
    fn an_event_knows_the_byte_offset_of_its_first_field() {
        let got = events(b": c\r\n\r\nevent: x\r\ndata: a\n\ndata: b\n\n");
        assert_eq!(got[0].offset, 7);
        assert_eq!(got[1].offset, 26);
    }

    #[test]
    fn looks_like_sse_accepts_event_streams() {
        assert!(looks_like_sse(b"data: {}\n\n"));
        assert!(looks_like_sse(b"\xEF\xBB\xBF\r\n\nevent: x\ndata: {}\n\n"));
        assert!(looks_like_sse(b"id:1\n"));
        assert!(looks_like_sse(b"retry: 10\n"));
        assert!(looks_like_sse(b": comment\n"));
    }

    #[test]
    fn looks_like_sse_rejects_json() {
        assert!(!looks_like_sse(b"{\"a\":1}"));
        assert!(!looks_like_sse(b"{\"a\":1}\n{\"b\":2}\n"));
        assert!(!looks_like_sse(b""));
        assert!(!looks_like_sse(b"\n\n"));
        assert!(!looks_like_sse(b"database: x\n"));
    }
}
