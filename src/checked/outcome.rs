//! Everything a run found, held compactly: a run of consecutive clean
//! documents of one stream is kept as its first document and a count, so
//! that a capture of millions of clean events costs a few bytes, not a
//! document each.

use std::borrow::Cow;
use std::sync::Arc;

use super::document::{Checked, Failure};
use crate::Report;

/// Documents as stored: one with findings, or a run of clean ones.
#[derive(Debug, Clone)]
enum Entry {
    /// A document, kept whole.
    One(Checked),
    /// `first` and the `more` clean documents that follow it, each one
    /// record (or one event of the same HAR entry) further.
    CleanRun { first: Checked, more: usize },
}

/// Everything a run found: the checked documents in source order, and the
/// sources that could not be read.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    entries: Vec<Entry>,
    count: usize,
    /// Sources that could not be read, or not to the end.
    pub failures: Vec<Failure>,
    /// Files a directory walk found that are skipped: one JSON document
    /// whose kind cannot be told (see
    /// [`crate::input::Source::Walked`]), in source order.
    pub skipped: Vec<String>,
}

impl Outcome {
    /// Adds the next document.
    pub fn push(&mut self, checked: Checked) {
        self.count += 1;
        if checked.is_clean() {
            if let Some(last) = self.entries.last_mut() {
                if extend_run(last, &checked) {
                    return;
                }
            }
        }
        self.entries.push(Entry::One(checked));
    }

    /// Adds the next documents: `first`, which is clean, and the `more`
    /// clean documents right after it in its stream (see
    /// [`super::Sink::clean_run`]), as one run.
    pub(crate) fn push_clean_run(&mut self, first: Checked, more: usize) {
        self.count += 1 + more;
        if let Some(last) = self.entries.last_mut() {
            if extend_run(last, &first) {
                if let Entry::CleanRun { more: run, .. } = last {
                    *run += more;
                }
                return;
            }
        }
        self.entries.push(match more {
            0 => Entry::One(first),
            more => Entry::CleanRun { first, more },
        });
    }

    /// Adds everything `other` found after what this one has.
    pub fn append(&mut self, other: Outcome) {
        self.count += other.count;
        self.entries.extend(other.entries);
        self.failures.extend(other.failures);
        self.skipped.extend(other.skipped);
    }

    /// Every stored document passed through `f`: each document with
    /// findings, and the first of each run of clean ones, which stands for
    /// the run (so `f` must treat a document the same wherever it sits in
    /// its stream, as masking does).
    pub fn map_documents(mut self, mut f: impl FnMut(Checked) -> Checked) -> Outcome {
        self.entries = self
            .entries
            .into_iter()
            .map(|entry| match entry {
                Entry::One(checked) => Entry::One(f(checked)),
                Entry::CleanRun { first, more } => Entry::CleanRun {
                    first: f(first),
                    more,
                },
            })
            .collect();
        self
    }

    /// Adds sources that could not be checked, such as paths that do not
    /// exist, keeping every failure in path order.
    pub fn add_failures(&mut self, failures: impl IntoIterator<Item = Failure>) {
        self.failures.extend(failures);
        self.failures.sort_by(|a, b| a.path.cmp(&b.path));
    }

    /// How many documents were checked.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether no document was checked.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Every document, in order; the clean ones of a run are rebuilt one at
    /// a time.
    pub fn documents(&self) -> impl Iterator<Item = Cow<'_, Checked>> + '_ {
        self.entries.iter().flat_map(|entry| {
            let (first, more) = match entry {
                Entry::One(checked) => (checked, 0),
                Entry::CleanRun { first, more } => (first, *more),
            };
            (0..=more).map(move |k| {
                if k == 0 {
                    Cow::Borrowed(first)
                } else {
                    Cow::Owned(advanced(first, k))
                }
            })
        })
    }

    /// Every document, in order, moved out; the clean ones of a run are
    /// rebuilt one at a time. (The failures are left behind: take them
    /// first.)
    pub fn into_documents(self) -> impl Iterator<Item = Checked> {
        self.entries
            .into_iter()
            .flat_map(|entry| -> Box<dyn Iterator<Item = Checked>> {
                match entry {
                    Entry::One(checked) => Box::new(std::iter::once(checked)),
                    Entry::CleanRun { first, more } => {
                        Box::new((0..=more).map(move |k| advanced(&first, k)))
                    }
                }
            })
    }

    /// The documents with findings, in order (clean ones skipped without
    /// being rebuilt).
    pub fn with_findings(&self) -> impl Iterator<Item = &Checked> + '_ {
        self.entries.iter().filter_map(|entry| match entry {
            Entry::One(checked) if !checked.is_clean() => Some(checked),
            _ => None,
        })
    }

    /// Whether any document fails (see [`Checked::fails`]).
    pub fn has_failing_document(&self, strict: bool) -> bool {
        self.with_findings().any(|d| d.fails(strict))
    }
}

impl super::Sink for Outcome {
    fn document(&mut self, checked: Checked) {
        self.push(checked);
    }

    fn clean_run(&mut self, first: Checked, more: usize) {
        self.push_clean_run(first, more);
    }
}

/// The document `k` steps after `first` in its stream.
pub(crate) fn advanced(first: &Checked, k: usize) -> Checked {
    let mut next = first.clone();
    next.offset = None;
    (next.record, next.context) = place_after(first, k);
    // A JSON Lines record (no context) starts `k` lines further; an event
    // of an SSE or HAR capture is placed in file positions already.
    if first.context.is_none() {
        next.line_offset = first.line_offset + k;
    }
    next
}

/// The record and context of the document `k` steps after `first`.
fn place_after(first: &Checked, k: usize) -> (Option<usize>, Option<super::document::Context>) {
    (
        record_after(first, k),
        first.context.as_ref().map(|c| c.advanced(k)),
    )
}

/// The record of the document `k` steps after `first`.
fn record_after(first: &Checked, k: usize) -> Option<usize> {
    match &first.context {
        // The events of one HAR response share their entry's record.
        Some(
            super::document::Context::HarEvent(..)
            | super::document::Context::HarBase64Event(..)
            | super::document::Context::HarFrame(..),
        ) => first.record,
        _ => first.record.map(|r| r + k),
    }
}

/// Whether a clean document at `record`, reported as `report`, is the one
/// right after the run of `first` and the `more` documents after it: the
/// next record, of the same kind and version. Its path and context are the
/// caller's to compare where they can differ; a capture's stream
/// ([`crate::stream`]) asks this of each clean record before making it a
/// document.
pub(crate) fn follows_run(first: &Checked, more: usize, record: usize, report: &Report) -> bool {
    record_after(first, more + 1) == Some(record)
        && first.report.kind() == report.kind()
        && first.report.protocol() == report.protocol()
}

/// `last` grown by `next` when `next` is the clean document right after it.
/// Called for every clean document, so it compares places, never copying a
/// document.
fn extend_run(last: &mut Entry, next: &Checked) -> bool {
    let (first, more) = match last {
        Entry::One(checked) if checked.is_clean() => (&*checked, 0),
        Entry::CleanRun { first, more } => (&*first, *more),
        Entry::One(_) => return false,
    };
    let follows = next
        .record
        .is_some_and(|record| follows_run(first, more, record, &next.report))
        && first.context.as_ref().map(|c| c.advanced(more + 1)) == next.context
        && (Arc::ptr_eq(&first.path, &next.path) || first.path == next.path);
    if !follows {
        return false;
    }
    match last {
        Entry::CleanRun { more, .. } => *more += 1,
        Entry::One(checked) => {
            let first = checked.clone();
            *last = Entry::CleanRun { first, more: 1 };
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use super::*;
    use crate::check::Context;
    use crate::{Diagnostic, Kind, Report, Severity};

    fn event(path: &Arc<str>, n: usize, findings: usize) -> Checked {
        let diagnostics = (0..findings)
            .map(|_| {
                Diagnostic::new(
                    crate::rules::sequence::open::NEVER_ENDED.name,
                    Severity::Error,
                    "",
                    "open",
                )
            })
            .collect();
        Checked {
            path: path.clone(),
            record: Some(n),
            context: Some(Context::Event(n)),
            line_offset: 0,
            offset: None,
            report: Report::new(Some(Kind::Event), diagnostics),
            source_lines: BTreeMap::new(),
        }
    }

    #[test]
    fn clean_runs_are_stored_once_and_rebuilt_in_order() {
        let path: Arc<str> = Arc::from("a.sse");
        let mut outcome = Outcome::default();
        for n in 1..=1000 {
            outcome.push(event(&path, n, usize::from(n == 500)));
        }
        assert_eq!(outcome.len(), 1000);
        assert_eq!(outcome.entries.len(), 3, "run, finding, run");
        let rebuilt: Vec<(Option<usize>, String, usize)> = outcome
            .documents()
            .map(|d| {
                (
                    d.record,
                    d.place().unwrap_or_default(),
                    d.report.diagnostics().len(),
                )
            })
            .collect();
        let expected: Vec<(Option<usize>, String, usize)> = (1..=1000)
            .map(|n| (Some(n), format!("event {n}"), usize::from(n == 500)))
            .collect();
        assert_eq!(rebuilt, expected);
        assert_eq!(outcome.with_findings().count(), 1);
        let moved: Vec<(Option<usize>, Option<String>)> = outcome
            .into_documents()
            .map(|d| (d.record, d.place()))
            .collect();
        let expected: Vec<(Option<usize>, Option<String>)> = (1..=1000)
            .map(|n| (Some(n), Some(format!("event {n}"))))
            .collect();
        assert_eq!(moved, expected);
    }

    #[test]
    fn runs_handed_over_as_runs_are_kept_as_documents_pushed_one_by_one_are() {
        let path: Arc<str> = Arc::from("a.sse");
        let mut one_by_one = Outcome::default();
        for n in 1..=40 {
            one_by_one.push(event(&path, n, usize::from(n == 20)));
        }
        // Runs as a capture's stream hands them over: split at batch ends
        // (1..=5 and 6..=19 join), then a finding, then a run of one and
        // a run that follows it.
        let mut as_runs = Outcome::default();
        as_runs.push_clean_run(event(&path, 1, 0), 4);
        as_runs.push_clean_run(event(&path, 6, 0), 13);
        as_runs.push(event(&path, 20, 1));
        as_runs.push_clean_run(event(&path, 21, 0), 0);
        as_runs.push_clean_run(event(&path, 22, 0), 18);
        assert_eq!(as_runs.len(), 40);
        assert_eq!(as_runs.entries.len(), 3, "run, finding, run");
        let places = |outcome: &Outcome| -> Vec<(Option<usize>, Option<String>, bool)> {
            outcome
                .documents()
                .map(|d| (d.record, d.place(), d.is_clean()))
                .collect()
        };
        assert_eq!(places(&as_runs), places(&one_by_one));
        // A run that does not follow the document before it starts anew.
        as_runs.push_clean_run(event(&path, 50, 0), 2);
        assert_eq!(as_runs.entries.len(), 4);
        assert_eq!(as_runs.len(), 43);
    }

    #[test]
    fn har_events_run_within_their_entry() {
        let path: Arc<str> = Arc::from("a.har");
        let label: Arc<str> = Arc::from("entry 2 (POST u)");
        let mut outcome = Outcome::default();
        for n in 1..=3 {
            let mut checked = event(&path, 2, 0);
            checked.context = Some(Context::HarEvent(label.clone(), n));
            outcome.push(checked);
        }
        assert_eq!(outcome.entries.len(), 1);
        let places: Vec<String> = outcome.documents().filter_map(|d| d.place()).collect();
        assert_eq!(
            places,
            [
                "entry 2 (POST u), response event 1",
                "entry 2 (POST u), response event 2",
                "entry 2 (POST u), response event 3"
            ]
        );
    }
}
