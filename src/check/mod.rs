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

use std::io::{self, BufRead, Read};
use std::sync::Arc;

mod capture;
mod exchange;
mod har;
mod line_endings;
mod ordered;
mod stream;
mod walked;

pub use crate::checked::{Checked, Context, Failure, Outcome};
pub use capture::{capture_layout, check_capture, stream_checker, stream_framing};
pub use ordered::check_sources_in_order;

pub(crate) use crate::checked::Sink;
use crate::input::proto::ProtoFramer;
use crate::input::sse::SseFramer;
use crate::input::{Framed, Layout, LineFramer, Source};
use crate::stream::record::{document_line, fill_source_lines, File, Record};
use crate::{Kind, Validator};

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
    let layout = match validator.settings().input_format() {
        Some(layout) => layout,
        None => source.layout(reader.fill_buf().map_err(failure)?),
    };
    let source = Opened {
        reader,
        size: source.size(),
        skips_unknown_kinds: source.skips_unknown_kinds(),
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
    let source = Opened {
        reader,
        size: None,
        skips_unknown_kinds: false,
    };
    read_into(validator, path, layout, source, kind, &mut sink)
}

/// A source being read, its size when known beforehand, and whether a
/// document of it whose kind cannot be told is skipped (a file a directory
/// walk found by its extension alone: see [`Source::Walked`]).
pub(super) struct Opened<R> {
    pub(super) reader: R,
    pub(super) size: Option<u64>,
    pub(super) skips_unknown_kinds: bool,
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
    let Opened {
        reader,
        size,
        skips_unknown_kinds,
    } = source;
    let file = FileCheck(File {
        validator,
        path: Arc::from(path),
        kind,
    });
    match layout {
        Layout::Json | Layout::Har => {
            let mut reader = reader;
            // An archive is held to the archive limit, its bodies each to
            // the document limit: a `.har`, or a `.json` that starts as one.
            let limits = validator.limits();
            let archive =
                layout == Layout::Har || (kind.is_none() && starts_as_har(reader.fill_buf()?));
            let limit = if archive {
                limits.max_archive_bytes.max(limits.max_document_bytes)
            } else {
                limits.max_document_bytes
            };
            let bytes = match read_all(reader, limit, size)? {
                Ok(bytes) => bytes,
                Err(length) => {
                    let report = if archive {
                        validator.oversized_archive(length)
                    } else {
                        validator.oversized(length)
                    };
                    sink.document(file.checked(None, None, report));
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
            if bytes.len() > limits.max_document_bytes {
                // Read as an archive, but not one.
                sink.document(file.checked(None, None, validator.oversized(bytes.len())));
                return Ok(());
            }
            file.json(&bytes, skips_unknown_kinds, sink);
            Ok(())
        }
        Layout::JsonLines => file.json_lines(reader, sink),
        Layout::Sse => file.sse(reader, sink),
        Layout::Proto => file.proto(reader, sink),
    }
}

/// A source as the CLI's pipeline checks it: the stream's [`File`], with
/// the ways a file holds its documents (one document, JSON Lines, SSE, a
/// HAR archive). A type of this module's own, so that the pipeline's
/// methods live here and the stream's stages never depend on them.
pub(crate) struct FileCheck<'a>(File<'a>);

impl<'a> std::ops::Deref for FileCheck<'a> {
    type Target = File<'a>;

    fn deref(&self) -> &File<'a> {
        &self.0
    }
}

impl FileCheck<'_> {
    /// A file that is one document; when `skips_unknown_kinds`, one that is
    /// not AG-UI as far as can be told ([`walked`]) is skipped.
    fn json(&self, bytes: &[u8], skips_unknown_kinds: bool, sink: &mut dyn Sink) {
        let report = match self.kind {
            Some(kind) => self.validator.validate(kind, bytes),
            None => self.validator.validate_detected(bytes),
        };
        if skips_unknown_kinds
            && self.kind.is_none()
            && walked::is_skipped(&self.path, bytes, &report)
        {
            sink.skipped(&self.path);
            return;
        }
        let mut checked = self.checked(None, None, report);
        fill_source_lines(&mut checked, |line, column| {
            document_line(bytes, line, column)
        });
        sink.document(checked);
    }

    /// JSON Lines: each line a record, the events among them one stream.
    fn json_lines(&self, reader: impl BufRead, sink: &mut dyn Sink) -> io::Result<()> {
        let lines = LineFramer::read_with_limit(reader, self.validator.limits().max_document_bytes);
        let records = lines.map(|line| line.map(Record::line));
        self.stream(records, self.kind, sink)
    }

    /// A binary capture: each frame a record of one stream, its event
    /// checked as the official decoder reads it, placed by frame and byte.
    fn proto(&self, reader: impl BufRead, sink: &mut dyn Sink) -> io::Result<()> {
        let limit = self.validator.limits().max_document_bytes;
        let records =
            Framed::over(reader, ProtoFramer::new(limit)).map(|frame| frame.map(Record::frame));
        self.stream(records, self.kind.or(Some(Kind::Event)), sink)
    }

    /// An SSE capture: each event a record of one stream, located in the
    /// file through the lines its data came from.
    /// Its line endings are watched as they pass, as the client reads
    /// them: CR framing is `sse-carriage-return`, an error where the
    /// client fails the run on it.
    fn sse(&self, reader: impl BufRead, sink: &mut dyn Sink) -> io::Result<()> {
        let limit = self.validator.limits().max_document_bytes;
        let kind = self.kind.or(Some(Kind::Event));
        let client = self.validator.settings().client_profile();
        let (reader, endings) = line_endings::watch(reader);
        let records = SseFramer::read_with_limit(reader, limit).map(|event| event.map(Record::sse));
        self.stream(records, kind, sink)?;
        if let Some(finding) = endings.finding(client) {
            let report = self.validator.report_of(vec![finding]);
            if !report.diagnostics().is_empty() {
                sink.document(self.checked(None, None, report));
            }
        }
        Ok(())
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
/// Whether the first bytes read of a document (a buffer's worth) are the
/// start of an HTTP Archive: an object whose first member is `log`.
fn starts_as_har(head: &[u8]) -> bool {
    let at = crate::locate::skip_whitespace(head, 0);
    if head.get(at) != Some(&b'{') {
        return false;
    }
    let key = crate::locate::skip_whitespace(head, at + 1);
    head.get(key..)
        .is_some_and(|rest| rest.starts_with(b"\"log\""))
}

fn may_be_har(bytes: &[u8]) -> bool {
    let starts_as_object = bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{');
    let has = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    starts_as_object && has(b"\"log\"") && has(b"\"entries\"")
}
