//! HTTP Archives: each entry whose request body is a RunAgentInput is
//! checked as one, and its response as an SSE event stream.
//!
//! A body is a JSON string inside the HAR file. When it is stored as plain
//! text, a finding inside it is placed at the very character of the HAR file
//! that holds it, escapes taken into account; a base64 body has no such
//! correspondence, so its findings point at the start of the string.

use std::sync::Arc;

use serde_json::Value;

use super::{
    fill_source_lines, relocate, root_location, to_file_positions, Context, File, Pending, Sink,
    Text,
};
use crate::input::har::{self, HarBody, HarEntry};
use crate::input::sse::SseReader;
use crate::locate::{self, Locator};
use crate::rules::Interrupted;
use crate::{rules, Diagnostic, EventStream, Kind, Location, Protocol, Target};

/// The HAR file being read, for placing findings in it.
struct Archive<'a> {
    bytes: &'a [u8],
    value: &'a Value,
    locator: Locator<'a>,
}

impl Archive<'_> {
    fn location(&self, pointer: &str) -> Location {
        self.locator.locate(pointer, Target::Value)
    }

    /// The text of a 1-based line of the HAR file.
    fn line(&self, line: usize) -> Option<String> {
        super::document_line(self.bytes, line)
    }

    /// How findings inside `body` are placed in the HAR file.
    fn body(&self, body: &HarBody) -> BodyPlace {
        let start = self.locator.offset(&body.pointer, Target::Value);
        // Plain text when the string in the file is the body itself (not
        // its base64).
        let plain = self
            .value
            .pointer(&body.pointer)
            .and_then(Value::as_str)
            .is_some_and(|text| text.as_bytes() == body.bytes.as_slice());
        BodyPlace {
            start,
            plain,
            fallback: locate::location_at(self.bytes, start),
        }
    }
}

/// Where a body's string starts in the HAR file, and whether positions
/// inside the body can be followed into it.
struct BodyPlace {
    /// Byte offset of the string's opening quote.
    start: usize,
    plain: bool,
    fallback: Location,
}

impl BodyPlace {
    /// The HAR file position of `location` within `body`'s text.
    fn locate(&self, archive: &Archive<'_>, body: &[u8], location: Location) -> Location {
        if !self.plain {
            return self.fallback;
        }
        let Some(decoded) = byte_offset(body, location) else {
            return self.fallback;
        };
        match raw_offset(archive.bytes, self.start, decoded) {
            Some(raw) => locate::location_at(archive.bytes, raw),
            None => self.fallback,
        }
    }
}

impl File<'_> {
    /// Checks an HTTP Archive already parsed as `value`.
    pub(super) fn har(&self, bytes: &[u8], value: &Value, sink: &mut dyn Sink) {
        let Ok(text) = std::str::from_utf8(bytes) else {
            return self.json(bytes, sink);
        };
        let archive = Archive {
            bytes,
            value,
            locator: Locator::new(text),
        };
        let entries = match har::entries(value) {
            Ok(entries) => entries,
            Err(error) => return self.invalid_har(&archive, None, &error, sink),
        };
        // How the latest exchange's run ended, for the next request's resume.
        let mut previous = None;
        for entry in entries {
            match entry {
                Ok(entry) => self.har_entry(&archive, &entry, &mut previous, sink),
                Err(error) => {
                    let record = entry_index(&error.pointer);
                    self.invalid_har(&archive, record, &error, sink);
                }
            }
        }
    }

    fn invalid_har(
        &self,
        archive: &Archive<'_>,
        record: Option<usize>,
        error: &har::HarError,
        sink: &mut dyn Sink,
    ) {
        let location = archive.location(&error.pointer);
        let mut diagnostic = Diagnostic::new(
            "invalid-har",
            rules::default_severity("invalid-har"),
            error.pointer.clone(),
            error.message.clone(),
        )
        .with_help(
            "export the capture again as HAR 1.2 (browser devtools: Save all as HAR with content)",
        );
        diagnostic.location = Some(location);
        let report = self.validator.report_of(vec![diagnostic]);
        let mut checked = self.checked(record, record.map(Context::HarEntry), report);
        fill_source_lines(&mut checked, |line| archive.line(line));
        sink.document(checked);
    }

    fn har_entry(
        &self,
        archive: &Archive<'_>,
        entry: &HarEntry,
        previous: &mut Option<Interrupted>,
        sink: &mut dyn Sink,
    ) {
        let Some(request) = &entry.request_body else {
            return;
        };
        let input = serde_json::from_slice::<Value>(&request.bytes)
            .ok()
            .filter(|v| Kind::detect(v) == Ok(Kind::RunAgentInput));
        let Some(input) = input else {
            return;
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
            to_file_positions(d, |l| place.locate(archive, &request.bytes, l));
        });
        let mut checked = self.checked(record, Some(Context::HarRequest(label.clone())), report);
        fill_source_lines(&mut checked, |line| archive.line(line));
        sink.document(checked);

        let Some(response) = &entry.response_body else {
            return;
        };
        let place = archive.body(response);
        let mut stream = EventStream::new();
        // The response answers in the version its request declared
        // (`spec/1.1/basic/versioning.mdx`, "Version negotiation").
        if let Some(declared) = input.get("protocolVersion").and_then(Value::as_str) {
            stream.assume_protocol(Protocol::from_declaration(declared).judged_as());
            stream.expect_version(declared);
        }
        let mut pending = Pending::default();
        for event in SseReader::new(response.bytes.as_slice()) {
            // Reading from memory cannot fail.
            let Ok(event) = event else { break };
            let origins = event.lines;
            // Event data → the SSE text of the body → the HAR file.
            let to_har =
                |l: Location| place.locate(archive, &response.bytes, relocate(&origins, l));
            let mut report = self.validator.validate_in_stream(
                &mut stream,
                Some(Kind::Event),
                &event.data,
                record,
                Some(to_har(root_location(&event.data))),
            );
            report.relocate(|d| to_file_positions(d, to_har));
            let context = Context::HarEvent(label.clone(), event.index);
            let mut checked = self.checked(record, Some(context), report);
            fill_source_lines(&mut checked, |line| archive.line(line));
            // The end of the stream reports at the last event's start.
            let start = to_har(root_location(&event.data)).line;
            let text = Text::Fixed(start, archive.line(start));
            pending.push(checked, text, sink);
        }
        pending.finish(self.validator.finish_stream(&mut stream), sink, true);
        if let Some(interrupted) = stream.interrupted() {
            *previous = Some(interrupted.clone());
        }
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

/// The byte offset in `text` of a 1-based line and character column.
fn byte_offset(text: &[u8], location: Location) -> Option<usize> {
    let mut start = 0;
    for _ in 1..location.line {
        start += text.get(start..)?.iter().position(|&b| b == b'\n')? + 1;
    }
    let mut offset = start;
    let mut column = 1;
    while column < location.column {
        let byte = *text.get(offset)?;
        if byte == b'\n' {
            break;
        }
        offset += 1;
        // Count characters: skip UTF-8 continuation bytes.
        while text.get(offset).is_some_and(|&b| (b & 0xC0) == 0x80) {
            offset += 1;
        }
        column += 1;
    }
    Some(offset)
}

/// The offset in `har` of the `decoded`-th byte of the JSON string whose
/// opening quote is at `quote`: escapes (`\n`, `\"`, `\u00e9`, surrogate
/// pairs) take more raw bytes than the bytes they stand for.
fn raw_offset(har: &[u8], quote: usize, decoded: usize) -> Option<usize> {
    if har.get(quote) != Some(&b'"') {
        return None;
    }
    let mut raw = quote + 1;
    let mut seen = 0;
    while seen < decoded {
        let (raw_len, decoded_len) = match *har.get(raw)? {
            b'"' => return None,
            b'\\' => match *har.get(raw + 1)? {
                b'u' => unicode_escape(har, raw)?,
                _ => (2, 1),
            },
            _ => (1, 1),
        };
        if seen + decoded_len > decoded {
            // Inside a multi-byte escape: point at the escape.
            break;
        }
        raw += raw_len;
        seen += decoded_len;
    }
    Some(raw)
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
        let quote = 6;
        assert_eq!(raw_offset(har, quote, 0), Some(7)); // a
        assert_eq!(raw_offset(har, quote, 2), Some(10)); // b after \n
        assert_eq!(raw_offset(har, quote, 3), Some(11)); // the \u00e9 escape
        assert_eq!(raw_offset(har, quote, 5), Some(17)); // c after 2-byte é
        assert_eq!(raw_offset(har, quote, 6), Some(18)); // \" escape
        assert_eq!(raw_offset(har, 0, 1), None);
    }

    #[test]
    fn byte_offsets_count_characters() {
        let text = "ab\néx".as_bytes();
        assert_eq!(byte_offset(text, Location { line: 1, column: 2 }), Some(1));
        assert_eq!(byte_offset(text, Location { line: 2, column: 2 }), Some(5));
        assert_eq!(byte_offset(text, Location { line: 3, column: 1 }), None);
    }

    #[test]
    fn entry_numbers_are_one_based() {
        assert_eq!(entry_index("/log/entries/2/request"), Some(3));
        assert_eq!(entry_index("/log"), None);
    }
}
