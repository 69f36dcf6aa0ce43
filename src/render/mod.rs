//! Output formats: one module per format, each written as the documents
//! of a run arrive ([`Writer`]), holding counts only, never the documents,
//! so that a report of millions of findings costs the memory of one
//! document.

mod github;
mod human;
mod json;
mod junit;
mod pieces;
mod sarif;

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::sync::Arc;

use crate::check::{Checked, Failure, Outcome};
use crate::stream::record::{fill_source_lines, line_text};
use crate::{Diagnostic, Location, Related, Report, Severity};

pub use json::report_schema;

/// The output formats of `agui-lint check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One finding per line with the source line and a caret, for people.
    Human,
    /// One JSON document: the documents checked, each with its findings,
    /// and a summary (the shape the README documents).
    Json,
    /// One JSON object per checked document, one per line.
    JsonLines,
    /// SARIF 2.1.0, for code-scanning upload.
    Sarif,
    /// GitHub Actions workflow commands, shown as pull-request annotations.
    Github,
    /// JUnit XML: a testsuite per file, a testcase per document.
    Junit,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 6] = [
        Format::Human,
        Format::Json,
        Format::JsonLines,
        Format::Sarif,
        Format::Github,
        Format::Junit,
    ];
}

/// How a report is rendered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Colour the human format with ANSI escapes.
    pub color: bool,
    /// Add per-rule counts (human, json, jsonl).
    pub statistics: bool,
    /// Leave out everything but findings: no summary, no clean documents.
    pub quiet: bool,
    /// Leave out each finding: the per-rule counts and the summary line
    /// only (human).
    pub summary: bool,
    /// Warnings fail documents (JUnit failures, SARIF levels unchanged).
    pub strict: bool,
    /// The version documents that declare none were judged as; the human
    /// format names a document's version where it is another.
    pub protocol: crate::Protocol,
    /// List the files skipped as not AG-UI (human), not only count them.
    pub verbose: bool,
}

/// Writes the report of `outcome` in `format` to `out`, document by
/// document (through a [`Writer`]).
pub fn render_to(
    format: Format,
    outcome: &Outcome,
    options: &Options,
    out: &mut dyn Write,
) -> io::Result<()> {
    let mut writer = Writer::begin(format, options, out)?;
    writer.outcome(outcome)?;
    writer.finish(&outcome.failures)?;
    Ok(())
}

/// The report of `outcome` in `format`.
pub fn render(format: Format, outcome: &Outcome, options: &Options) -> String {
    let mut bytes = Vec::new();
    // Writing to memory fails only if a report's own skeleton is broken,
    // which the tests of every format rule out; what was written is kept.
    let _ = render_to(format, outcome, options, &mut bytes);
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// A report being written in one format as the documents of a run arrive:
/// [`Writer::begin`], then [`Writer::document`] for each document in
/// order, then [`Writer::finish`] with the sources that could not be read.
///
/// It holds the run's counts (the [`Summary`], the per-rule statistics,
/// whether a document fails), never a document. The JSON formats, the
/// human format and GitHub's commands go straight to the output; SARIF and
/// JUnit carry counts and failures before their body, so they spool the
/// body (to a temporary file once it is large) and write it after them at
/// the end.
///
/// ```
/// use agui_lint::unstable::check::check_reader;
/// use agui_lint::unstable::input::Layout;
/// use agui_lint::unstable::render::{Format, Options, Writer};
/// use agui_lint::Validator;
///
/// let validator = Validator::new()?;
/// let mut writer = Writer::begin(Format::JsonLines, &Options::default(), Vec::new())?;
/// let capture = b"{\"id\":\"m\",\"role\":\"user\",\"content\":\"hi\"}\n{\"id\":\"m\"}\n";
/// let mut written = Ok(());
/// check_reader(&validator, "chat.jsonl", Layout::JsonLines, &capture[..], None, &mut |checked| {
///     if written.is_ok() {
///         written = writer.document(&checked);
///     }
/// })?;
/// written?;
/// assert!(writer.has_failing_document());
/// let lines = writer.finish(&[])?;
/// assert_eq!(String::from_utf8_lossy(&lines).lines().count(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Writer<W: Write> {
    out: W,
    strict: bool,
    tally: Tally,
    format: Box<dyn Emit>,
}

impl<W: Write> Writer<W> {
    /// Starts a report in `format` on `out`, writing what comes before the
    /// first document.
    pub fn begin(format: Format, options: &Options, mut out: W) -> io::Result<Self> {
        let mut emit: Box<dyn Emit> = match format {
            Format::Human => Box::new(human::Human::new(options)),
            Format::Json => Box::new(json::Json::new(options)),
            Format::JsonLines => Box::new(json::JsonLines::new(options)),
            Format::Sarif => Box::new(sarif::Sarif::new()),
            Format::Github => Box::new(github::Github),
            Format::Junit => Box::new(junit::Junit::new(options)),
        };
        emit.begin(&mut out)?;
        Ok(Writer {
            out,
            strict: options.strict,
            tally: Tally::default(),
            format: emit,
        })
    }

    /// Counts the next document and writes it (or, in the formats that
    /// show findings only, nothing when it is clean).
    pub fn document(&mut self, checked: &Checked) -> io::Result<()> {
        self.count(checked);
        if self.format.shows_clean() || !checked.is_clean() {
            self.format.document(&mut self.out, checked)?;
        }
        Ok(())
    }

    /// Counts the next document without writing it: after a write error,
    /// so that the totals and the exit code still cover every document.
    pub fn count(&mut self, checked: &Checked) {
        self.tally.add(checked, self.strict);
    }

    /// Every document of `outcome`, in order. Runs of clean documents are
    /// only counted, not rebuilt, by the formats that do not show them.
    pub fn outcome(&mut self, outcome: &Outcome) -> io::Result<()> {
        self.tally.skip(&outcome.skipped);
        if self.format.shows_clean() {
            for document in outcome.documents() {
                self.document(&document)?;
            }
        } else {
            let mut shown = 0;
            for document in outcome.with_findings() {
                self.document(document)?;
                shown += 1;
            }
            self.tally.add_clean(outcome.len() - shown);
        }
        Ok(())
    }

    /// The totals over the documents so far.
    pub fn summary(&self) -> Summary {
        self.tally.summary
    }

    /// Whether any document so far fails (see [`Checked::fails`], under the
    /// options' `strict`).
    pub fn has_failing_document(&self) -> bool {
        self.tally.failing
    }

    /// Writes what comes after the last document, with `failures`, the
    /// sources that could not be read (in the order they are shown), and
    /// flushes. Returns the output.
    pub fn finish(mut self, failures: &[Failure]) -> io::Result<W> {
        self.format.finish(&mut self.out, &self.tally, failures)?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// Bytes the writer holds, apart from its output: bounded by the number
    /// of rules and by the spools' memory threshold, never by the number of
    /// documents.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.tally.held() + self.format.held()
    }
}

/// One format's side of a [`Writer`].
trait Emit {
    /// Writes what comes before the first document.
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()>;
    /// Writes one document.
    fn document(&mut self, out: &mut dyn Write, checked: &Checked) -> io::Result<()>;
    /// Writes what comes after the last document.
    fn finish(
        &mut self,
        out: &mut dyn Write,
        tally: &Tally,
        failures: &[Failure],
    ) -> io::Result<()>;
    /// Whether clean documents are written (else they are only counted).
    fn shows_clean(&self) -> bool {
        false
    }
    /// Bytes held in memory between documents.
    #[cfg(test)]
    fn held(&self) -> usize {
        0
    }
}

/// What a run found so far, in counts.
#[derive(Debug, Default)]
struct Tally {
    summary: Summary,
    /// Findings per rule and severity, in the order first seen: a handful
    /// of entries, at most two per rule.
    rules: Vec<RuleCount>,
    failing: bool,
    /// The files skipped as not AG-UI, in source order: one path a file,
    /// listed under `--verbose`.
    skipped: Vec<String>,
}

impl Tally {
    /// Files skipped as not AG-UI.
    fn skip(&mut self, paths: &[String]) {
        self.summary.skipped += paths.len();
        self.skipped.extend_from_slice(paths);
    }

    fn add(&mut self, checked: &Checked, strict: bool) {
        self.summary.documents += 1;
        if checked.is_clean() {
            self.summary.valid += 1;
            return;
        }
        self.summary.valid += usize::from(checked.report.is_valid());
        self.failing |= checked.fails(strict);
        for d in checked.report.diagnostics() {
            match d.severity {
                Severity::Error => self.summary.errors += 1,
                Severity::Warning => self.summary.warnings += 1,
                Severity::Info => self.summary.infos += 1,
            }
            match self
                .rules
                .iter_mut()
                .find(|c| c.severity == d.severity && c.rule == d.rule)
            {
                Some(count) => count.count += 1,
                None => self.rules.push(RuleCount {
                    rule: d.rule.clone(),
                    severity: d.severity,
                    count: 1,
                }),
            }
        }
    }

    /// `n` clean documents.
    fn add_clean(&mut self, n: usize) {
        self.summary.documents += n;
        self.summary.valid += n;
    }

    /// Per-rule counts, most frequent first, then by name (then severity).
    fn statistics(&self) -> Vec<RuleCount> {
        let mut list = self.rules.clone();
        list.sort_by(|a, b| (&a.rule, a.severity).cmp(&(&b.rule, b.severity)));
        list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.rule.cmp(&b.rule)));
        list
    }

    #[cfg(test)]
    fn held(&self) -> usize {
        self.rules
            .iter()
            .map(|c| std::mem::size_of::<RuleCount>() + c.rule.capacity())
            .sum()
    }
}

/// The `--format json` document for one document's `report`, shown under
/// `path` (and `record`, its line or event number in a capture, if it is
/// one): what `agui-lint check --format json` prints for a file holding
/// that document alone, and the body of the server guard's `422` answer
/// (there `path` is the request's path). Pretty-printed, with a trailing
/// newline.
///
/// ```
/// use agui_lint::{document_json, Kind, Validator};
///
/// let validator = Validator::new()?;
/// let report = validator.validate(Kind::Message, br#"{"id":"m","role":"user"}"#);
/// let document: serde_json::Value =
///     serde_json::from_str(&document_json("/agent", None, &report)).unwrap();
/// assert_eq!(document["tool"], "agui-lint");
/// assert_eq!(document["documents"][0]["path"], "/agent");
/// assert_eq!(document["documents"][0]["valid"], false);
/// assert_eq!(document["documents"][0]["diagnostics"][0]["rule"], "missing-field");
/// assert_eq!(document["summary"]["errors"], 1);
/// # Ok::<(), agui_lint::BuildError>(())
/// ```
pub fn document_json(path: &str, record: Option<usize>, report: &Report) -> String {
    let mut outcome = Outcome::default();
    outcome.push(one_document(path, record, report));
    render(Format::Json, &outcome, &Options::default())
}

/// One document checked alone, shown under `path`.
fn one_document(path: &str, record: Option<usize>, report: &Report) -> Checked {
    Checked {
        path: Arc::from(path),
        record,
        context: None,
        line_offset: 0,
        offset: None,
        report: report.clone(),
        source_lines: BTreeMap::new(),
    }
}

/// What `agui-lint check` prints (the human format) for one document
/// checked alone, shown under `path`, with `record` as a stream's
/// 1-based record. With `source`, the document's bytes, each finding shows
/// its source line and a caret; `color` adds ANSI colours. The language
/// bindings' test helpers fail a test with it.
///
/// ```
/// use agui_lint::{Kind, Validator};
/// use agui_lint::unstable::render::document_text;
///
/// let body = br#"{"threadId": "t", "runId": "r", "messages": [{"role": "user"}]}"#;
/// let report = Validator::new()?.validate(Kind::RunAgentInput, body);
/// let text = document_text("request", None, &report, Some(body), false);
/// assert!(text.starts_with("request:1:"), "{text}");
/// assert!(text.contains("error[missing-field]"), "{text}");
/// # Ok::<(), agui_lint::BuildError>(())
/// ```
pub fn document_text(
    path: &str,
    record: Option<usize>,
    report: &Report,
    source: Option<&[u8]>,
    color: bool,
) -> String {
    let mut checked = one_document(path, record, report);
    if let Some(source) = source {
        let lines = crate::lines::Lines::new(source);
        fill_source_lines(&mut checked, |line, last_column| {
            lines.line(line).map(|text| line_text(text, last_column))
        });
    }
    let mut outcome = Outcome::default();
    outcome.push(checked);
    let options = Options {
        color,
        ..Options::default()
    };
    render(Format::Human, &outcome, &options)
}

/// Totals over all checked documents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Summary {
    /// Documents checked.
    pub documents: usize,
    /// Documents with no error.
    pub valid: usize,
    /// Error findings.
    pub errors: usize,
    /// Warning findings.
    pub warnings: usize,
    /// Info findings.
    pub infos: usize,
    /// Files a directory walk found and skipped: one JSON document whose
    /// kind cannot be told (left out of the JSON document when none).
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Summary {
    /// Adds up what `outcome` found.
    pub fn of(outcome: &Outcome) -> Self {
        tally(outcome).summary
    }
}

/// The counts over `outcome`'s documents (its clean runs counted, not
/// rebuilt).
fn tally(outcome: &Outcome) -> Tally {
    let mut tally = Tally::default();
    let mut with_findings = 0;
    for document in outcome.with_findings() {
        tally.add(document, false);
        with_findings += 1;
    }
    tally.add_clean(outcome.len() - with_findings);
    tally
}

/// How often one rule fired, for `--statistics`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct RuleCount {
    /// The rule's name.
    pub rule: String,
    /// The severity it was reported with.
    pub severity: Severity,
    /// How many findings.
    pub count: usize,
}

/// Per-rule counts over what `outcome` found, most frequent first, then by
/// name.
pub fn statistics(outcome: &Outcome) -> Vec<RuleCount> {
    tally(outcome).statistics()
}

/// `""` for one, `"s"` otherwise, for counts in sentences.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A JSON pointer as the text formats write it: as it is, and `""` (RFC
/// 6901's whole document) said to be the whole document.
pub(crate) fn pointer_text(pointer: &str) -> &str {
    if pointer.is_empty() {
        "\"\" (the whole document)"
    } else {
        pointer
    }
}

/// Where a finding is, as every text format names it: `at POINTER`
/// (see [`pointer_text`]), then ` in PLACE` with the capture's place (the
/// HAR entry and its method and URL, the response event, the record)
/// whenever the document has one, so that a finding of a capture is found
/// again from any format. Every finding has one, a whole document's too,
/// so that the whole document reads the same way wherever it is.
pub(crate) fn where_text(document: &Checked, d: &Diagnostic) -> String {
    let pointer = pointer_text(&d.pointer);
    match document.place() {
        Some(place) => format!("at {pointer} in {place}"),
        None => format!("at {pointer}"),
    }
}

/// A related place as every text format names it: its message, then ` at
/// POINTER` when the pointer names a place inside the document or event,
/// then `(line:column)` when its position is known. A place that is a whole
/// other event (an empty pointer) is named by its message alone ("the run
/// started here (event 1)"), so no format prints a label with nothing after
/// it.
pub(crate) fn related_text(related: &Related, position: Option<Location>) -> String {
    let mut text = related.message.clone();
    if !related.pointer.is_empty() {
        text.push_str(" at ");
        text.push_str(&related.pointer);
    }
    if let Some(position) = position {
        text.push_str(&format!(" ({}:{})", position.line, position.column));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::Context;

    /// Record `n` of a capture at `path`, with two findings and the source
    /// line they point at.
    fn document(path: &Arc<str>, n: usize) -> Checked {
        let mut error = crate::rules::MISSING_FIELD.diagnostic("/role", "no 'role'");
        error.location = Some(Location { line: 1, column: 2 });
        let warning = crate::rules::UNKNOWN_FIELD
            .diagnostic("/x", "unknown key 'x'")
            .with_help("remove it");
        Checked {
            path: path.clone(),
            record: Some(n),
            context: Some(Context::Event(n)),
            line_offset: n - 1,
            offset: None,
            report: Report::new(Some(crate::Kind::Message), vec![error, warning]),
            source_lines: BTreeMap::from([(n, format!("{{\"id\": \"m{n}\", \"x\": 1}}").into())]),
        }
    }

    #[test]
    fn a_writer_holds_nothing_per_document() {
        let options = Options {
            statistics: true,
            ..Options::default()
        };
        for format in Format::ALL {
            let mut writer = Writer::begin(format, &options, io::sink()).expect("begin");
            let mut held = Vec::new();
            for file in 0..4 {
                let path: Arc<str> = Arc::from(format!("capture-{file}.jsonl"));
                for n in 1..=2_000 {
                    writer.document(&document(&path, n)).expect("write");
                }
                held.push(writer.held());
            }
            // The spools move to a file on the first file's findings; from
            // then on nothing grows with the documents.
            assert!(
                held.windows(2).all(|w| w[0] == w[1]),
                "{format:?}: held {held:?} bytes after each 2,000 documents"
            );
            assert!(held[0] < 64 * 1024, "{format:?}: held {held:?}");
            assert_eq!(writer.summary().documents, 8_000);
            assert_eq!(writer.summary().errors, 8_000);
            assert!(writer.has_failing_document());
            writer.finish(&[]).expect("finish");
        }
    }
}
