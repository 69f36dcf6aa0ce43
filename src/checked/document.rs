//! One checked document as the renderers see it: where it is (path,
//! record, place in a capture), what was found, and the source lines the
//! findings point at.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::{Location, Related, Report, Severity};

/// Where a document sits in a capture, when its record number alone does
/// not say. Kept structured (no text per document) so that a capture of
/// millions of events costs little to hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Context {
    /// The `n`-th event of a Server-Sent Events capture.
    Event(usize),
    /// A HAR entry that could not be read.
    HarEntry(usize),
    /// The request body of a HAR entry, named by its label
    /// (`entry 2 (POST https://…)`).
    HarRequest(Arc<str>),
    /// The `n`-th event of a HAR entry's response.
    HarEvent(Arc<str>, usize),
    /// The `n`-th event of a HAR entry's response held as base64: a
    /// position inside the body has no place in the HAR file, so its
    /// findings point at the start of the entry's response text.
    HarBase64Event(Arc<str>, usize),
    /// A HAR entry's response as a whole (one that was not recorded).
    HarResponse(Arc<str>),
    /// The `n`-th frame of a binary (protobuf) capture, and where it
    /// starts in bytes when the document has findings (a clean one may
    /// stand for a run of frames, whose offsets are not kept).
    Frame(usize, Option<u64>),
    /// The `n`-th frame of a HAR entry's binary response, and where it
    /// starts in the body in bytes (as [`Context::Frame`]).
    HarFrame(Arc<str>, usize, Option<u64>),
}

impl Context {
    /// The context of the document `k` events further on in the same
    /// stream.
    pub(crate) fn advanced(&self, k: usize) -> Context {
        match self {
            Context::Event(n) => Context::Event(n + k),
            Context::HarEvent(label, n) => Context::HarEvent(label.clone(), n + k),
            Context::HarBase64Event(label, n) => Context::HarBase64Event(label.clone(), n + k),
            Context::Frame(n, _) => Context::Frame(n + k, None),
            Context::HarFrame(label, n, _) => Context::HarFrame(label.clone(), n + k, None),
            other => other.clone(),
        }
    }
}

impl fmt::Display for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Context::Event(n) => write!(f, "event {n}"),
            Context::HarEntry(n) => write!(f, "entry {n}"),
            Context::HarRequest(label) => write!(f, "{label}, request body"),
            Context::HarEvent(label, n) => write!(f, "{label}, response event {n}"),
            Context::HarBase64Event(label, n) => write!(
                f,
                "{label}, response event {n} (the response is base64: placed at its start)"
            ),
            Context::HarResponse(label) => write!(f, "{label}, response"),
            Context::Frame(n, Some(offset)) => write!(f, "frame {n} (byte {offset})"),
            Context::Frame(n, None) => write!(f, "frame {n}"),
            Context::HarFrame(label, n, Some(offset)) => {
                write!(f, "{label}, response frame {n} (byte {offset} of the body)")
            }
            Context::HarFrame(label, n, None) => write!(f, "{label}, response frame {n}"),
        }
    }
}

/// One checked document: where it came from and what was found.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The path as shown to the user (`-` for stdin), shared by the
    /// documents of one source.
    pub path: Arc<str>,
    /// 1-based record number in a multi-document file (the JSON Lines line,
    /// the SSE event, the HAR entry); `None` for a file that is one
    /// document.
    pub record: Option<usize>,
    /// Where in a capture the document is, when the record number alone
    /// does not say.
    pub context: Option<Context>,
    /// Lines of the file before the document's first line: locations are
    /// within the document, and a file line is `line + line_offset`. Zero
    /// for SSE and HAR documents, whose locations are file positions
    /// already.
    pub line_offset: usize,
    /// Where the record starts in its stream, in bytes from the stream's
    /// first: known for a record of a JSON Lines or SSE stream that has
    /// findings; `None` for a clean record (which may stand for a run of
    /// them), a file that is one document and a HAR entry.
    pub offset: Option<u64>,
    /// The findings.
    pub report: Report,
    /// The text of each file line a finding or its related notes point at,
    /// keyed by 1-based file line.
    pub source_lines: BTreeMap<usize, Arc<str>>,
}

impl Checked {
    /// Where a finding's location is in the file.
    pub fn file_location(&self, location: Location) -> Location {
        Location {
            line: location.line + self.line_offset,
            column: location.column,
        }
    }

    /// Where a related note's location is in the file: in its own record
    /// when it names one (an earlier line of a JSON Lines stream, whose
    /// record number is its line number).
    pub fn related_file_location(&self, related: &Related) -> Option<Location> {
        let location = related.location?;
        Some(match related.record {
            Some(record) => Location {
                line: location.line + record.saturating_sub(1),
                column: location.column,
            },
            None => self.file_location(location),
        })
    }

    /// The document without line and column positions or source lines,
    /// placed by its context alone (the HAR entry and the response
    /// event): for bytes the user never sees as a file, such as the
    /// session `agui-lint probe` recorded and did not save.
    #[must_use]
    pub fn without_file_positions(mut self) -> Checked {
        self.report.forget_locations();
        self.source_lines.clear();
        self.offset = None;
        self
    }

    /// The text of a 1-based file line, when a finding points at it.
    pub fn source_line(&self, line: usize) -> Option<&str> {
        self.source_lines.get(&line).map(|text| &**text)
    }

    /// How the document is named after its path: its context, else its
    /// record.
    pub fn place(&self) -> Option<String> {
        match &self.context {
            Some(context) => Some(context.to_string()),
            None => self.record.map(|r| format!("record {r}")),
        }
    }

    /// Whether the document fails the run: any error, or under `strict`
    /// any warning.
    pub fn fails(&self, strict: bool) -> bool {
        !self.report.is_valid() || (strict && self.report.count(Severity::Warning) > 0)
    }

    /// Whether the document has nothing to report.
    pub fn is_clean(&self) -> bool {
        self.report.diagnostics().is_empty()
    }
}

/// A source that could not be checked at all, such as an unreadable file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The path as shown to the user.
    pub path: String,
    /// What went wrong.
    pub message: String,
}

impl From<crate::input::InputError> for Failure {
    fn from(error: crate::input::InputError) -> Self {
        Failure {
            path: error.path,
            message: error.message,
        }
    }
}
