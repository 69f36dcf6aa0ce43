//! `--format json` and `--format jsonl`: the document shape the README shows;
//! CI scripts and servers parse it, so it stays stable.
//!
//! Documents are serialized as they are rebuilt from the outcome, never
//! gathered first, so a capture of millions of clean events is written
//! without holding a copy of each.

use std::borrow::Cow;
use std::cell::RefCell;
use std::io::{self, Write};

use serde::ser::{SerializeSeq, Serializer};
use serde::Serialize;

use super::{statistics, Options, RuleCount, Summary};
use crate::check::{Checked, Outcome};
use crate::{Diagnostic, Kind, Protocol};

#[derive(Serialize)]
struct Output<'a> {
    tool: &'static str,
    version: &'static str,
    documents: Documents<'a>,
    summary: Summary,
    #[serde(skip_serializing_if = "Option::is_none")]
    statistics: Option<Vec<RuleCount>>,
}

#[derive(Serialize)]
struct Document<'a> {
    path: &'a str,
    record: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<String>,
    kind: Option<Kind>,
    protocol: Protocol,
    valid: bool,
    diagnostics: &'a [Diagnostic],
}

impl<'a> Document<'a> {
    fn of(checked: &'a Checked) -> Self {
        Document {
            path: &checked.path,
            record: checked.record,
            context: checked.context.as_ref().map(ToString::to_string),
            kind: checked.report.kind(),
            protocol: checked.report.protocol(),
            valid: checked.report.is_valid(),
            diagnostics: checked.report.diagnostics(),
        }
    }
}

/// The documents shown: all of them, or under `--quiet` those with
/// findings.
fn shown<'a>(
    outcome: &'a Outcome,
    options: &Options,
) -> Box<dyn Iterator<Item = Cow<'a, Checked>> + 'a> {
    if options.quiet {
        Box::new(outcome.with_findings().map(Cow::Borrowed))
    } else {
        Box::new(outcome.documents())
    }
}

/// The `documents` array, serialized from an iterator.
struct Documents<'a>(RefCell<Box<dyn Iterator<Item = Cow<'a, Checked>> + 'a>>);

impl Serialize for Documents<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for checked in self.0.borrow_mut().by_ref() {
            seq.serialize_element(&Document::of(&checked))?;
        }
        seq.end()
    }
}

/// The JSON report, pretty-printed, with a trailing newline. The summary
/// always counts every document, also under `--quiet`.
pub fn render(outcome: &Outcome, options: &Options) -> String {
    let mut bytes = Vec::new();
    // Writing to memory cannot fail.
    let _ = write(outcome, options, &mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// [`render`], written to `out` as it is serialized.
pub fn write(outcome: &Outcome, options: &Options, out: &mut dyn Write) -> io::Result<()> {
    let output = Output {
        tool: "agui-lint",
        version: env!("CARGO_PKG_VERSION"),
        documents: Documents(RefCell::new(shown(outcome, options))),
        summary: Summary::of(outcome),
        statistics: options.statistics.then(|| statistics(outcome)),
    };
    serde_json::to_writer_pretty(&mut *out, &output).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// One compact document object per line; with `--statistics`, a last line
/// `{"statistics": [...]}`.
pub fn render_lines(outcome: &Outcome, options: &Options) -> String {
    let mut bytes = Vec::new();
    let _ = write_lines(outcome, options, &mut bytes);
    String::from_utf8_lossy(&bytes).into_owned()
}

/// [`render_lines`], written to `out` a line at a time.
pub fn write_lines(outcome: &Outcome, options: &Options, out: &mut dyn Write) -> io::Result<()> {
    for checked in shown(outcome, options) {
        serde_json::to_writer(&mut *out, &Document::of(&checked)).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    }
    if options.statistics {
        let line = serde_json::json!({ "statistics": statistics(outcome) });
        serde_json::to_writer(&mut *out, &line).map_err(io::Error::from)?;
        out.write_all(b"\n")?;
    }
    Ok(())
}
