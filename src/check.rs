//! Checks sources end to end: read, split into documents, validate, and
//! keep what the renderers need (file positions, the source lines a
//! finding points at).
//!
//! Sources are checked in parallel (rayon); the result keeps the sources'
//! order, so output does not depend on scheduling.

use std::collections::BTreeMap;

use rayon::prelude::*;

use crate::input::{records, Source};
use crate::{Kind, Location, Report, Severity, Validator};

/// One checked document: where it came from and what was found.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The path as shown to the user (`-` for stdin).
    pub path: String,
    /// 1-based record number in a multi-document file; `None` for a file
    /// that is one document.
    pub record: Option<usize>,
    /// Lines of the file before the document's first line.
    pub line_offset: usize,
    /// The findings, located within the document.
    pub report: Report,
    /// The text of each file line a finding or its related notes point at,
    /// keyed by 1-based file line.
    pub source_lines: BTreeMap<usize, String>,
}

impl Checked {
    /// Where a location within the document is in the file.
    pub fn file_location(&self, location: Location) -> Location {
        Location {
            line: location.line + self.line_offset,
            column: location.column,
        }
    }

    /// The text of a 1-based file line, when a finding points at it.
    pub fn source_line(&self, line: usize) -> Option<&str> {
        self.source_lines.get(&line).map(String::as_str)
    }

    /// Whether the document fails the run: any error, or under `strict`
    /// any warning.
    pub fn fails(&self, strict: bool) -> bool {
        !self.report.is_valid() || (strict && self.report.count(Severity::Warning) > 0)
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

/// Everything a run found: the checked documents in source order, and the
/// sources that could not be read.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Every document of every readable source.
    pub documents: Vec<Checked>,
    /// Sources that could not be read.
    pub failures: Vec<Failure>,
}

impl Outcome {
    /// Whether any document fails (see [`Checked::fails`]).
    pub fn has_failing_document(&self, strict: bool) -> bool {
        self.documents.iter().any(|d| d.fails(strict))
    }
}

/// Checks every source in parallel, as `kind` or as detected when `None`,
/// calling `progress` after each source. Documents come out in the order of
/// `sources`, each source's in record order.
pub fn check_sources(
    validator: &Validator,
    sources: &[Source],
    kind: Option<Kind>,
    progress: &(dyn Fn() + Sync),
) -> Outcome {
    let results: Vec<Result<Vec<Checked>, Failure>> = sources
        .par_iter()
        .map(|source| {
            let result = check_source(validator, source, kind);
            progress();
            result
        })
        .collect();
    let mut outcome = Outcome::default();
    for result in results {
        match result {
            Ok(documents) => outcome.documents.extend(documents),
            Err(failure) => outcome.failures.push(failure),
        }
    }
    outcome
}

/// Checks every document of `source`.
///
/// A file that cannot be read is a [`Failure`]; a file that is not JSON is a
/// finding, not a failure.
pub fn check_source(
    validator: &Validator,
    source: &Source,
    kind: Option<Kind>,
) -> Result<Vec<Checked>, Failure> {
    let path = source.display_name();
    let bytes = source.read().map_err(|e| Failure {
        path: path.clone(),
        message: format!("cannot read: {e}"),
    })?;
    let layout = source.layout(&bytes);
    Ok(records(layout, &bytes)
        .into_iter()
        .map(|record| {
            let document = &bytes[record.range];
            let report = match kind {
                Some(kind) => validator.validate(kind, document),
                None => validator.validate_detected(document),
            };
            let source_lines = lines_pointed_at(&report, document, record.line_offset);
            Checked {
                path: path.clone(),
                record: record.record,
                line_offset: record.line_offset,
                report,
                source_lines,
            }
        })
        .collect())
}

/// The lines of `document` that findings point at, keyed by file line.
/// Only documents with findings pay for this.
fn lines_pointed_at(
    report: &Report,
    document: &[u8],
    line_offset: usize,
) -> BTreeMap<usize, String> {
    let mut wanted: Vec<usize> = report
        .diagnostics()
        .iter()
        .flat_map(|d| {
            d.location
                .into_iter()
                .chain(d.related.iter().filter_map(|r| r.location))
        })
        .map(|l| l.line)
        .collect();
    if wanted.is_empty() {
        return BTreeMap::new();
    }
    wanted.sort_unstable();
    wanted.dedup();
    let mut lines = BTreeMap::new();
    let mut wanted = wanted.into_iter().peekable();
    for (index, line) in document.split(|&b| b == b'\n').enumerate() {
        let Some(&next) = wanted.peek() else { break };
        if index + 1 == next {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            lines.insert(
                next + line_offset,
                String::from_utf8_lossy(line).into_owned(),
            );
            wanted.next();
        }
    }
    lines
}
