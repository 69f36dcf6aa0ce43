//! `--format json`: one JSON document in the shape DESIGN.md fixes; CI
//! scripts and servers parse it, so it stays stable.

use serde::Serialize;

use super::{Checked, Summary};
use crate::{Diagnostic, Kind};

#[derive(Serialize)]
struct Output<'a> {
    tool: &'static str,
    version: &'static str,
    documents: Vec<Document<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct Document<'a> {
    path: &'a str,
    record: Option<usize>,
    kind: Option<Kind>,
    valid: bool,
    diagnostics: &'a [Diagnostic],
}

/// The JSON report of `documents`, pretty-printed, with a trailing newline.
pub fn render_json(documents: &[Checked]) -> String {
    let output = Output {
        tool: "agui-lint",
        version: env!("CARGO_PKG_VERSION"),
        documents: documents
            .iter()
            .map(|d| Document {
                path: &d.path,
                record: d.record,
                kind: d.report.kind(),
                valid: d.report.is_valid(),
                diagnostics: d.report.diagnostics(),
            })
            .collect(),
        summary: Summary::of(documents),
    };
    let mut text = serde_json::to_string_pretty(&output).unwrap_or_default();
    text.push('\n');
    text
}
