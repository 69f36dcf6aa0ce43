//! `--format json` and `--format jsonl`: the document shape DESIGN.md fixes;
//! CI scripts and servers parse it, so it stays stable.

use serde::Serialize;

use super::{statistics, Options, RuleCount, Summary};
use crate::check::{Checked, Outcome};
use crate::{Diagnostic, Kind};

#[derive(Serialize)]
struct Output<'a> {
    tool: &'static str,
    version: &'static str,
    documents: Vec<Document<'a>>,
    summary: Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    statistics: Option<Vec<RuleCount>>,
}

#[derive(Serialize)]
struct Document<'a> {
    path: &'a str,
    record: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<&'a str>,
    kind: Option<Kind>,
    valid: bool,
    diagnostics: &'a [Diagnostic],
}

impl<'a> Document<'a> {
    fn of(checked: &'a Checked) -> Self {
        Document {
            path: &checked.path,
            record: checked.record,
            context: checked.context.as_deref(),
            kind: checked.report.kind(),
            valid: checked.report.is_valid(),
            diagnostics: checked.report.diagnostics(),
        }
    }
}

/// The documents shown: all of them, or under `--quiet` those with
/// findings.
fn shown<'a>(outcome: &'a Outcome, options: &Options) -> impl Iterator<Item = &'a Checked> {
    let quiet = options.quiet;
    outcome
        .documents
        .iter()
        .filter(move |d| !quiet || !d.report.diagnostics().is_empty())
}

/// The JSON report, pretty-printed, with a trailing newline. The summary
/// always counts every document, also under `--quiet`.
pub fn render(outcome: &Outcome, options: &Options) -> String {
    let output = Output {
        tool: "agui-lint",
        version: env!("CARGO_PKG_VERSION"),
        documents: shown(outcome, options).map(Document::of).collect(),
        summary: Summary::of(&outcome.documents),
        statistics: options.statistics.then(|| statistics(&outcome.documents)),
    };
    let mut text = serde_json::to_string_pretty(&output).unwrap_or_default();
    text.push('\n');
    text
}

/// One compact document object per line; with `--statistics`, a last line
/// `{"statistics": [...]}`.
pub fn render_lines(outcome: &Outcome, options: &Options) -> String {
    let mut text = String::new();
    for checked in shown(outcome, options) {
        text.push_str(&serde_json::to_string(&Document::of(checked)).unwrap_or_default());
        text.push('\n');
    }
    if options.statistics {
        let line = serde_json::json!({ "statistics": statistics(&outcome.documents) });
        text.push_str(&line.to_string());
        text.push('\n');
    }
    text
}
