//! One record of a stream (a JSON Lines line or an SSE event) made a
//! checked document: its report moved to positions in the stream, the
//! source lines its findings point at, and the last record of a stream
//! held until the stream's end has had its say.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::checked::{Checked, Context, Sink};
use crate::input::sse::{LineOrigin, SseEvent};
use crate::input::Line;
use crate::locate;
use crate::{Diagnostic, Kind, Location, Report, Validator};

/// One record of a capture's stream: a JSON Lines line or an SSE event.
pub(crate) struct Record {
    /// The line number, or the event's index among the stream's events.
    pub(crate) number: usize,
    /// The document: the line, or the event's data.
    pub(crate) bytes: Vec<u8>,
    /// The document's length, larger than `bytes` when it was over the
    /// size limit and only measured.
    pub(crate) length: usize,
    /// An SSE event's data lines, each where it is in the file.
    pub(crate) origins: Option<Vec<LineOrigin>>,
    /// Where the record starts in its source, in bytes.
    pub(crate) offset: u64,
    /// A binary frame's findings, and whether it holds an event (`bytes`,
    /// its JSON): a frame's place is its index and offset, not a line.
    pub(crate) frame: Option<Box<FrameNotes>>,
}

/// What the binary transport found in one frame.
pub(crate) struct FrameNotes {
    /// The findings of its framing and decoding.
    pub(crate) findings: Vec<Diagnostic>,
    /// Whether it holds an event, whose JSON is the record's bytes.
    pub(crate) event: bool,
    /// Its bytes are still the frame's message, not yet decoded
    /// ([`Record::decode_frame`]).
    pub(crate) undecoded: bool,
    /// The JSON of a frame decoded where its batch was checked, when its
    /// event was not taken as its members.
    pub(crate) json: std::sync::OnceLock<Vec<u8>>,
    /// The decimal text of a frame's timestamp, when its event is taken as
    /// its members.
    pub(crate) digits: std::sync::OnceLock<String>,
}

impl Record {
    pub(crate) fn line(line: Line) -> Record {
        Record {
            number: line.number,
            bytes: line.bytes,
            length: line.length,
            origins: None,
            offset: line.offset,
            frame: None,
        }
    }

    pub(crate) fn sse(event: SseEvent) -> Record {
        Record {
            number: event.index,
            bytes: event.data,
            length: event.length,
            origins: Some(event.lines),
            offset: event.offset,
            frame: None,
        }
    }

    pub(crate) fn is_oversized(&self) -> bool {
        self.length > self.bytes.len()
    }

    /// Whether the record is a binary frame that holds no event to check
    /// (one cut short, or one that does not decode).
    pub(crate) fn holds_no_event(&self) -> bool {
        self.frame.as_ref().is_some_and(|notes| !notes.event)
    }

    /// Whether its findings are placed by record and offset alone, their
    /// line and column positions (in a frame's JSON, which no file holds)
    /// forgotten.
    pub(crate) fn is_frame(&self) -> bool {
        self.frame.is_some()
    }

    /// Where the document's value starts: in its line for a JSON Lines
    /// record (whose findings are offset by their record), in the file for
    /// an SSE event.
    pub(crate) fn root(&self) -> Location {
        let at = root_location(self.check_text());
        match &self.origins {
            Some(origins) => relocate(origins, at),
            None => at,
        }
    }
}

/// Where a binary frame's findings point: the start of the file (a frame
/// has no line; its context says which frame and byte), so that every
/// format, line-based ones too, can show them.
pub(crate) const FILE_START: Location = Location { line: 1, column: 1 };

/// One source being checked.
pub(crate) struct File<'a> {
    pub(crate) validator: &'a Validator,
    pub(crate) path: Arc<str>,
    pub(crate) kind: Option<Kind>,
}

impl File<'_> {
    /// A document of this source, at `record` and `context`.
    pub(crate) fn checked(
        &self,
        record: Option<usize>,
        context: Option<Context>,
        report: Report,
    ) -> Checked {
        Checked {
            path: self.path.clone(),
            record,
            context,
            line_offset: 0,
            offset: None,
            report,
            source_lines: BTreeMap::new(),
        }
    }

    /// The document of a checked record, and where its source lines are
    /// read from.
    pub(crate) fn checked_record(&self, record: Record, report: Report) -> (Checked, Text) {
        let n = record.number;
        let offset = record.offset;
        let is_frame = record.is_frame();
        let (mut checked, text) = match record.origins {
            None if is_frame => {
                let mut checked = self.checked(Some(n), None, report);
                checked.report.place_all_at(FILE_START);
                (checked, Text::Fixed(0, None))
            }
            None => {
                let mut checked = self.checked(Some(n), None, report);
                checked.line_offset = n - 1;
                // An oversized line was measured, not kept: nothing to show.
                let text = if record.length > record.bytes.len() {
                    Text::Fixed(0, None)
                } else {
                    Text::Line(record.bytes)
                };
                (checked, text)
            }
            Some(origins) => {
                let checked = self.checked(Some(n), Some(Context::Event(n)), report);
                let text = Text::Sse {
                    data: record.bytes,
                    origins,
                };
                (checked, text)
            }
        };
        // Only a record with findings is placed: a clean one may stand for
        // a run of them, whose offsets are not kept.
        checked.offset = (!checked.is_clean()).then_some(offset);
        if is_frame {
            checked.context = Some(Context::Frame(n, checked.offset));
        }
        fill_source_lines(&mut checked, |l, column| text.line(l, column));
        (checked, text)
    }

    /// A capture with no record is said to be empty, once.
    pub(crate) fn empty(&self, sink: &mut dyn Sink) {
        let finding = crate::rules::EMPTY_INPUT
            .diagnostic("", "the capture holds no document")
            .with_help("a capture that recorded nothing is usually a capture that failed");
        // At the start of the file, so every format can point at it.
        let mut finding = finding;
        finding.location = Some(Location { line: 1, column: 1 });
        let report = self.validator.report_of(vec![finding]);
        if !report.diagnostics().is_empty() {
            sink.document(self.checked(None, None, report));
        }
    }
}

/// Where the document's value starts: its first non-blank character.
pub(crate) fn root_location(bytes: &[u8]) -> Location {
    let offset = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    locate::location_at(bytes, offset)
}

/// A location in an SSE event's data, as a position in the capture file.
pub(crate) fn relocate(origins: &[LineOrigin], location: Location) -> Location {
    match location.line.checked_sub(1).and_then(|i| origins.get(i)) {
        Some(origin) => Location {
            line: origin.line,
            column: location.column + origin.column_shift,
        },
        None => location,
    }
}

/// Moves a finding located in its document to file positions. Notes about
/// other records were placed in file positions by the stream already, and
/// lose their record number (which only says how to offset a JSON Lines
/// line).
pub(crate) fn to_file_positions(diagnostic: &mut Diagnostic, map: impl Fn(Location) -> Location) {
    diagnostic.location = diagnostic.location.map(&map);
    for related in &mut diagnostic.related {
        if related.record.take().is_none() {
            related.location = related.location.map(&map);
        }
    }
}

/// Line `line` (1-based) of a document's bytes.
///
/// A document may be one line of megabytes, so its breaks are found with
/// `memchr` and its text is checked as UTF-8 in one pass, copied as is
/// unless broken.
pub(crate) fn document_line(bytes: &[u8], line: usize, last_column: usize) -> Option<Arc<str>> {
    let before = line.checked_sub(1)?;
    let start = match before {
        0 => 0,
        n => memchr::memchr_iter(b'\n', bytes).nth(n - 1)? + 1,
    };
    let rest = bytes.get(start..)?;
    let text = match memchr::memchr(b'\n', rest) {
        Some(end) => &rest[..end],
        None => rest,
    };
    Some(line_text(
        text.strip_suffix(b"\r").unwrap_or(text),
        last_column,
    ))
}

/// Characters of a source line kept past the last column a finding points
/// at: more than a snippet shows after its caret.
pub(crate) const KEPT_PAST_COLUMN: usize = 1024;

/// The text of a source line, as findings show it (broken UTF-8 replaced),
/// up to [`KEPT_PAST_COLUMN`] characters past 1-based `last_column`: a
/// minified document is one line, which is not copied whole for the
/// snippets of findings near its start.
pub(crate) fn line_text(line: &[u8], last_column: usize) -> Arc<str> {
    let keep = last_column.saturating_add(KEPT_PAST_COLUMN);
    let line = if line.len() > keep {
        // Characters start at every byte but a UTF-8 continuation byte.
        let end = line
            .iter()
            .enumerate()
            .filter(|(_, &b)| b & 0xC0 != 0x80)
            .nth(keep)
            .map_or(line.len(), |(offset, _)| offset);
        &line[..end]
    } else {
        line
    };
    match std::str::from_utf8(line) {
        Ok(text) => Arc::from(text),
        Err(_) => Arc::from(String::from_utf8_lossy(line).as_ref()),
    }
}

/// Fills `checked.source_lines` with the file lines its findings point at
/// (in its own record), asking `line` for each one's text.
pub(crate) fn fill_source_lines(
    checked: &mut Checked,
    line: impl Fn(usize, usize) -> Option<Arc<str>>,
) {
    // File line -> the last column a finding points at on it.
    let mut wanted: BTreeMap<usize, usize> = BTreeMap::new();
    let mut want = |location: crate::diagnostic::Location| {
        let at = checked.file_location(location);
        let last = wanted.entry(at.line).or_insert(at.column);
        *last = (*last).max(at.column);
    };
    for d in checked.report.diagnostics() {
        d.location.map(&mut want);
        for related in d.related.iter().filter(|r| r.record.is_none()) {
            related.location.map(&mut want);
        }
    }
    for (file_line, last_column) in wanted {
        if let Entry::Vacant(entry) = checked.source_lines.entry(file_line) {
            if let Some(text) = line(file_line, last_column) {
                entry.insert(text);
            }
        }
    }
}

/// What a pending record's source lines are read from.
pub(crate) enum Text {
    /// A JSON Lines record: the line itself, the only line its own
    /// findings can point at.
    Line(Vec<u8>),
    /// An SSE event: its data lines, each at its origin.
    Sse {
        data: Vec<u8>,
        origins: Vec<LineOrigin>,
    },
    /// One known line (of a HAR file) and its text.
    Fixed(usize, Option<Arc<str>>),
}

impl Text {
    /// The text of file line `line`, as far as this record holds it.
    pub(crate) fn line(&self, line: usize, last_column: usize) -> Option<Arc<str>> {
        match self {
            Text::Line(bytes) => document_line(bytes, 1, last_column),
            Text::Sse { data, origins } => {
                let index = origins.iter().position(|o| o.line == line)?;
                let origin = origins.get(index)?;
                let value = data.split(|&b| b == b'\n').nth(index)?;
                // The field name the shift stands for: `data:` and its space.
                let field = format!("{:<width$}", "data:", width = origin.column_shift);
                Some(Arc::from(format!(
                    "{field}{}",
                    String::from_utf8_lossy(value)
                )))
            }
            Text::Fixed(known, text) => text.clone().filter(|_| *known == line),
        }
    }
}

/// The last record of a stream, held back until the next arrives or the
/// stream ends, because the end of a stream reports on its last event.
#[derive(Default)]
pub(crate) struct Pending {
    last: Option<(Checked, Text)>,
}

impl Pending {
    pub(crate) fn push(&mut self, checked: Checked, text: Text, sink: &mut dyn Sink) {
        if let Some((previous, _)) = self.last.replace((checked, text)) {
            sink.document(previous);
        }
    }

    /// Ends the stream: see [`end_stream`].
    pub(crate) fn finish(
        &mut self,
        ending: Vec<Diagnostic>,
        sink: &mut dyn Sink,
        file_positions: bool,
    ) {
        if let Some((checked, text)) = self.last.take() {
            end_stream(checked, &text, ending, sink, file_positions);
        }
    }
}

/// Hands `last`, a stream's last document (its source lines read from
/// `text`), over with `ending`, the findings the stream's end made about
/// what is still open (see [`Validator::finish_stream`]). With
/// `file_positions`, the stream's places are file positions already (SSE,
/// HAR), so notes lose their record number as in [`to_file_positions`].
pub(crate) fn end_stream(
    mut last: Checked,
    text: &Text,
    mut ending: Vec<Diagnostic>,
    sink: &mut dyn Sink,
    file_positions: bool,
) {
    if !ending.is_empty() {
        if file_positions {
            for related in ending.iter_mut().flat_map(|d| d.related.iter_mut()) {
                related.record = None;
            }
        }
        last.report.extend(ending);
        fill_source_lines(&mut last, |l, column| text.line(l, column));
    }
    sink.document(last);
}

#[cfg(test)]
mod tests {
    use super::{document_line, line_text, KEPT_PAST_COLUMN};

    #[test]
    fn a_long_line_is_kept_only_past_its_last_column_as_far_as_a_snippet_shows() {
        let line = format!("{}{}", "é".repeat(10), "x".repeat(5 * KEPT_PAST_COLUMN));
        let kept = line_text(line.as_bytes(), 3);
        assert_eq!(kept.chars().count(), 3 + KEPT_PAST_COLUMN);
        assert!(line.starts_with(&*kept));
        assert_eq!(&*line_text(b"short", 3), "short");
    }

    #[test]
    fn a_document_line_is_its_text_between_breaks() {
        let bytes = b"{\r\n  \"a\": \"\xc3\xa9\",\n\n  \"b\": \"\xff\"\n}";
        let lines: Vec<Option<String>> = (0..=6)
            .map(|n| document_line(bytes, n, usize::MAX).map(|text| text.to_string()))
            .collect();
        assert_eq!(
            lines,
            [
                None,
                Some("{".to_string()),
                Some("  \"a\": \"\u{e9}\",".to_string()),
                Some(String::new()),
                Some("  \"b\": \"\u{fffd}\"".to_string()),
                Some("}".to_string()),
                None,
            ]
        );
        assert_eq!(document_line(b"", 1, 1).as_deref(), Some(""));
        assert_eq!(document_line(b"x\n", 2, 1).as_deref(), Some(""));
    }
}
