//! Checks sources end to end: read, split into documents, validate, and
//! keep what the renderers need (file positions, the source lines a
//! finding points at).
//!
//! Sources are checked in parallel (rayon); the result keeps the sources'
//! order, so output does not depend on scheduling. Within a source,
//! records are read and checked a bounded batch at a time (`stream.rs`):
//! JSON Lines and SSE captures are never read whole, and the events of a
//! stream go through one [`crate::EventStream`], whose memory is bounded
//! by what is open.

use std::collections::btree_map::Entry;
use std::collections::BTreeMap;
use std::io::{self, BufRead, Read};
use std::sync::Arc;

mod checked;
mod har;
mod ordered;
mod outcome;
mod stream;

pub use checked::{Checked, Context, Failure};
pub use ordered::check_sources_in_order;
pub use outcome::Outcome;

use crate::input::sse::{LineOrigin, SseEvent, SseReader};
use crate::input::{JsonLines, Layout, Line, Source};
use crate::locate;
use crate::{Diagnostic, Kind, Location, Report, Validator};

/// Checks every source in parallel, as `kind` or as detected when `None`,
/// calling `progress` after each source. Documents come out in the order of
/// `sources`, each source's in record order (see
/// [`check_sources_in_order`], which hands them over a stretch at a time
/// instead of gathering them).
pub fn check_sources(
    validator: &Validator,
    sources: &[Source],
    kind: Option<Kind>,
    progress: &(dyn Fn() + Sync),
) -> Outcome {
    let mut outcome = Outcome::default();
    let mut failures = Vec::new();
    check_sources_in_order(
        validator,
        sources,
        kind,
        progress,
        &mut |documents| outcome.append(documents),
        &mut |failure| failures.push(failure),
    );
    outcome.failures = failures;
    outcome
}

/// Checks every document of `source`, handing each to `sink` in order once
/// it is checked: the clean records of a capture a run at a time, at the
/// latest at the end of their batch; the last event of a stream once the
/// stream has ended, since the end may add findings to it.
///
/// A source that cannot be read is a [`Failure`] (documents read before the
/// error have been handed over); a document that is not JSON is a finding.
pub fn check_source(
    validator: &Validator,
    source: &Source,
    kind: Option<Kind>,
    mut sink: &mut dyn FnMut(Checked),
) -> Result<(), Failure> {
    check_source_into(validator, source, kind, &mut sink)
}

/// [`check_source`], its documents handed to `sink`, clean records of a
/// stream as runs.
pub(crate) fn check_source_into(
    validator: &Validator,
    source: &Source,
    kind: Option<Kind>,
    sink: &mut dyn Sink,
) -> Result<(), Failure> {
    let path = source.display_name();
    let failure = |e: io::Error| Failure {
        path: path.clone(),
        message: format!("cannot read: {e}"),
    };
    let mut reader = source.open().map_err(failure)?;
    let layout = source.layout(reader.fill_buf().map_err(failure)?);
    let source = Opened {
        reader,
        size: source.size(),
    };
    read_into(validator, &path, layout, source, kind, sink).map_err(failure)
}

/// Checks the documents `reader` holds in `layout`, shown under `path`:
/// what [`check_source`] does once it has opened a source.
pub fn check_reader(
    validator: &Validator,
    path: &str,
    layout: Layout,
    reader: impl BufRead,
    kind: Option<Kind>,
    mut sink: &mut dyn FnMut(Checked),
) -> io::Result<()> {
    let source = Opened { reader, size: None };
    read_into(validator, path, layout, source, kind, &mut sink)
}

/// A source being read, and its size when known beforehand.
pub(super) struct Opened<R> {
    pub(super) reader: R,
    pub(super) size: Option<u64>,
}

/// [`check_reader`], its documents handed to `sink`, clean records of a
/// stream as runs.
pub(super) fn read_into(
    validator: &Validator,
    path: &str,
    layout: Layout,
    source: Opened<impl BufRead>,
    kind: Option<Kind>,
    sink: &mut dyn Sink,
) -> io::Result<()> {
    let Opened { reader, size } = source;
    let file = File {
        validator,
        path: Arc::from(path),
        kind,
    };
    match layout {
        Layout::Json | Layout::Har => {
            let bytes = match read_all(reader, validator.limits().max_document_bytes, size)? {
                Ok(bytes) => bytes,
                Err(length) => {
                    sink.document(file.checked(None, None, validator.oversized(length)));
                    return Ok(());
                }
            };
            // A `.json` file may be a HAR export; a `.har` file is one (or,
            // not being JSON, gets the validator's word on where it breaks).
            // Read as a HAR without a `Value` of the whole: checked to be
            // JSON first (without building anything), then read entry by
            // entry.
            let maybe_har = layout == Layout::Har || (kind.is_none() && may_be_har(&bytes));
            if maybe_har
                && serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).is_ok()
                && (layout == Layout::Har || crate::input::har::read(&bytes).is_ok())
            {
                file.har(&bytes, sink);
                return Ok(());
            }
            file.json(&bytes, sink);
            Ok(())
        }
        Layout::JsonLines => file.json_lines(reader, sink),
        Layout::Sse => file.sse(reader, sink),
    }
}

/// Where a source's documents go, in order. The clean records of a stream
/// come as runs, the first of each and how many follow it, so that a
/// capture of millions of clean events is handed over without a document
/// each (an [`Outcome`] keeps a run as a count).
pub(crate) trait Sink {
    /// The next document.
    fn document(&mut self, checked: Checked);

    /// The next documents: `first`, which is clean, and the `more` clean
    /// documents right after it in its stream, each one record (and one
    /// event) further on. By default each is rebuilt and handed over.
    fn clean_run(&mut self, first: Checked, more: usize) {
        let template = (more > 0).then(|| first.clone());
        self.document(first);
        if let Some(first) = template {
            for k in 1..=more {
                self.document(outcome::advanced(&first, k));
            }
        }
    }
}

/// The public entry points' sink: a function given every document.
impl<F: FnMut(Checked) + ?Sized> Sink for F {
    fn document(&mut self, checked: Checked) {
        self(checked);
    }
}

/// One record of a capture's stream: a JSON Lines line or an SSE event.
struct Record {
    /// The line number, or the event's index among the stream's events.
    number: usize,
    /// The document: the line, or the event's data.
    bytes: Vec<u8>,
    /// The document's length, larger than `bytes` when it was over the
    /// size limit and only measured.
    length: usize,
    /// An SSE event's data lines, each where it is in the file.
    origins: Option<Vec<LineOrigin>>,
}

impl Record {
    fn line(line: Line) -> Record {
        Record {
            number: line.number,
            bytes: line.bytes,
            length: line.length,
            origins: None,
        }
    }

    fn sse(event: SseEvent) -> Record {
        Record {
            number: event.index,
            bytes: event.data,
            length: event.length,
            origins: Some(event.lines),
        }
    }

    fn is_oversized(&self) -> bool {
        self.length > self.bytes.len()
    }

    /// Where the document's value starts: in its line for a JSON Lines
    /// record (whose findings are offset by their record), in the file for
    /// an SSE event.
    fn root(&self) -> Location {
        let at = root_location(&self.bytes);
        match &self.origins {
            Some(origins) => relocate(origins, at),
            None => at,
        }
    }
}

/// The whole of `reader`, or `Err(length)` when it holds more than
/// `limit` bytes. A source whose `size` is known is read into a buffer of
/// that size (growing one by doubling would hold two at once), and one over
/// the limit is not read at all; of another, what passes the limit is
/// measured, never held.
fn read_all(
    reader: impl io::Read,
    limit: usize,
    size: Option<u64>,
) -> io::Result<Result<Vec<u8>, usize>> {
    if let Some(size) = size.and_then(|size| usize::try_from(size).ok()) {
        if size > limit {
            return Ok(Err(size));
        }
    }
    let capacity = size.map_or(0, |size| size as usize + 1);
    let mut bytes = Vec::with_capacity(capacity.min(limit.saturating_add(1)));
    // Grown by a quarter at a time rather than by `read_to_end`, whose
    // doubling holds up to three times the limit while it copies.
    let mut reader = reader.take(limit.saturating_add(1) as u64);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if bytes.capacity() - bytes.len() < n {
            let grow = (bytes.len() / 4).max(chunk.len());
            let room = limit.saturating_add(1).saturating_sub(bytes.len()).max(n);
            bytes.reserve_exact(grow.min(room));
        }
        bytes.extend_from_slice(&chunk[..n]);
    }
    if bytes.len() <= limit {
        return Ok(Ok(bytes));
    }
    let rest = io::copy(&mut reader.into_inner(), &mut io::sink())?;
    Ok(Err(
        bytes.len() + usize::try_from(rest).unwrap_or(usize::MAX)
    ))
}

/// A cheap look before parsing a `.json` file twice: a HAR export is an
/// object with `log` and `entries` keys.
fn may_be_har(bytes: &[u8]) -> bool {
    let starts_as_object = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{');
    let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    starts_as_object && has(b"\"log\"") && has(b"\"entries\"")
}

/// One source being checked.
struct File<'a> {
    validator: &'a Validator,
    path: Arc<str>,
    kind: Option<Kind>,
}

impl File<'_> {
    fn checked(&self, record: Option<usize>, context: Option<Context>, report: Report) -> Checked {
        Checked {
            path: self.path.clone(),
            record,
            context,
            line_offset: 0,
            report,
            source_lines: BTreeMap::new(),
        }
    }

    /// A file that is one document.
    fn json(&self, bytes: &[u8], sink: &mut dyn Sink) {
        let report = match self.kind {
            Some(kind) => self.validator.validate(kind, bytes),
            None => self.validator.validate_detected(bytes),
        };
        let mut checked = self.checked(None, None, report);
        fill_source_lines(&mut checked, |line, column| {
            document_line(bytes, line, column)
        });
        sink.document(checked);
    }

    /// JSON Lines: each line a record, the events among them one stream.
    fn json_lines(&self, reader: impl BufRead, sink: &mut dyn Sink) -> io::Result<()> {
        let lines = JsonLines::with_limit(reader, self.validator.limits().max_document_bytes);
        let records = lines.map(|line| line.map(Record::line));
        self.stream(records, self.kind, sink)
    }

    /// An SSE capture: each event a record of one stream, located in the
    /// file through the lines its data came from.
    fn sse(&self, reader: impl BufRead, sink: &mut dyn Sink) -> io::Result<()> {
        let limit = self.validator.limits().max_document_bytes;
        let records = SseReader::with_limit(reader, limit).map(|event| event.map(Record::sse));
        self.stream(records, self.kind.or(Some(Kind::Event)), sink)
    }

    /// The document of a checked record, and where its source lines are
    /// read from.
    fn checked_record(&self, record: Record, report: Report) -> (Checked, Text) {
        let n = record.number;
        let (mut checked, text) = match record.origins {
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
        fill_source_lines(&mut checked, |l, column| text.line(l, column));
        (checked, text)
    }

    /// A capture with no record is said to be empty, once.
    fn empty(&self, sink: &mut dyn Sink) {
        let finding = Diagnostic::new(
            "empty-input",
            crate::rules::default_severity("empty-input"),
            "",
            "the capture holds no document",
        )
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
fn root_location(bytes: &[u8]) -> Location {
    let offset = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(0);
    locate::location_at(bytes, offset)
}

/// A location in an SSE event's data, as a position in the capture file.
fn relocate(origins: &[LineOrigin], location: Location) -> Location {
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
fn to_file_positions(diagnostic: &mut Diagnostic, map: impl Fn(Location) -> Location) {
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
fn document_line(bytes: &[u8], line: usize, last_column: usize) -> Option<Arc<str>> {
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
const KEPT_PAST_COLUMN: usize = 1024;

/// The text of a source line, as findings show it (broken UTF-8 replaced),
/// up to [`KEPT_PAST_COLUMN`] characters past 1-based `last_column`: a
/// minified document is one line, which is not copied whole for the
/// snippets of findings near its start.
fn line_text(line: &[u8], last_column: usize) -> Arc<str> {
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
fn fill_source_lines(checked: &mut Checked, line: impl Fn(usize, usize) -> Option<Arc<str>>) {
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
enum Text {
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
    fn line(&self, line: usize, last_column: usize) -> Option<Arc<str>> {
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
struct Pending {
    last: Option<(Checked, Text)>,
}

impl Pending {
    fn push(&mut self, checked: Checked, text: Text, sink: &mut dyn Sink) {
        if let Some((previous, _)) = self.last.replace((checked, text)) {
            sink.document(previous);
        }
    }

    /// Ends the stream: see [`end_stream`].
    fn finish(&mut self, ending: Vec<Diagnostic>, sink: &mut dyn Sink, file_positions: bool) {
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
fn end_stream(
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
