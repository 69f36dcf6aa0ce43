//! Output formats: one module per format, all over the same
//! [`Outcome`] of a run.

mod github;
mod human;
mod json;
mod junit;
mod sarif;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::check::{Checked, Outcome};
use crate::{Location, Related, Report, Severity};

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

/// How a report is rendered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Colour the human format with ANSI escapes.
    pub color: bool,
    /// Add per-rule counts (human, json, jsonl).
    pub statistics: bool,
    /// Leave out everything but findings: no summary, no clean documents.
    pub quiet: bool,
    /// Warnings fail documents (JUnit failures, SARIF levels unchanged).
    pub strict: bool,
    /// The version documents that declare none were judged as; the human
    /// format names a document's version where it is another.
    pub protocol: crate::Protocol,
}

/// Writes the report of `outcome` in `format` to `out`. The JSON formats
/// are written document by document, so a report of millions of documents
/// is never held whole.
pub fn render_to(
    format: Format,
    outcome: &Outcome,
    options: &Options,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Json => json::write(outcome, options, out),
        Format::JsonLines => json::write_lines(outcome, options, out),
        _ => out.write_all(render(format, outcome, options).as_bytes()),
    }
}

/// The report of `outcome` in `format`.
pub fn render(format: Format, outcome: &Outcome, options: &Options) -> String {
    match format {
        Format::Human => human::render(outcome, options),
        Format::Json => json::render(outcome, options),
        Format::JsonLines => json::render_lines(outcome, options),
        Format::Sarif => sarif::render(outcome),
        Format::Github => github::render(outcome),
        Format::Junit => junit::render(outcome, options),
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
/// use agui_lint::{render, Kind, Validator};
///
/// let validator = Validator::new()?;
/// let report = validator.validate(Kind::Message, br#"{"id":"m","role":"user"}"#);
/// let document: serde_json::Value =
///     serde_json::from_str(&render::document_json("/agent", None, &report)).unwrap();
/// assert_eq!(document["tool"], "agui-lint");
/// assert_eq!(document["documents"][0]["path"], "/agent");
/// assert_eq!(document["documents"][0]["valid"], false);
/// assert_eq!(document["documents"][0]["diagnostics"][0]["rule"], "missing-field");
/// assert_eq!(document["summary"]["errors"], 1);
/// # Ok::<(), agui_lint::BuildError>(())
/// ```
pub fn document_json(path: &str, record: Option<usize>, report: &Report) -> String {
    let mut outcome = Outcome::default();
    outcome.push(Checked {
        path: Arc::from(path),
        record,
        context: None,
        line_offset: 0,
        report: report.clone(),
        source_lines: BTreeMap::new(),
    });
    render(Format::Json, &outcome, &Options::default())
}

/// Totals over all checked documents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
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
}

impl Summary {
    /// Adds up what `outcome` found.
    pub fn of(outcome: &Outcome) -> Self {
        let mut summary = Summary {
            documents: outcome.len(),
            valid: outcome.len(),
            ..Summary::default()
        };
        for document in outcome.with_findings() {
            summary.valid -= usize::from(!document.report.is_valid());
            summary.errors += document.report.count(Severity::Error);
            summary.warnings += document.report.count(Severity::Warning);
            summary.infos += document.report.count(Severity::Info);
        }
        summary
    }
}

/// How often one rule fired, for `--statistics`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
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
    let mut counts: BTreeMap<(&str, Severity), usize> = BTreeMap::new();
    for document in outcome.with_findings() {
        for d in document.report.diagnostics() {
            *counts.entry((&d.rule, d.severity)).or_default() += 1;
        }
    }
    let mut list: Vec<RuleCount> = counts
        .into_iter()
        .map(|((rule, severity), count)| RuleCount {
            rule: rule.to_string(),
            severity,
            count,
        })
        .collect();
    list.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.rule.cmp(&b.rule)));
    list
}

/// `""` for one, `"s"` otherwise, for counts in sentences.
fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
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
