//! `--format json` and `--format jsonl`: the document shape the README shows;
//! CI scripts and servers parse it, so it stays stable.
//!
//! Each document is serialized as it arrives: the JSON report is its
//! skeleton (tool, version, an empty `documents` array, then the summary)
//! cut open at the array, whose elements are written in between.

use std::io::{self, Write};

use serde::Serialize;

use super::pieces::{Elements, Splice};
use super::{Emit, Options, RuleCount, Summary, Tally};
use crate::check::{Checked, Failure};
use crate::{Diagnostic, Kind, Protocol};

/// The report of `check --format json`.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(rename = "Report")]
struct Output<'a> {
    /// Always `agui-lint`.
    tool: &'static str,
    /// The version of agui-lint that wrote the report.
    version: &'static str,
    /// Every document checked, in the order of the sources (under
    /// `--quiet`, only those with findings).
    documents: &'a [Document<'a>],
    /// Totals over every document checked.
    summary: Summary,
    /// With `--statistics`: how often each rule fired, most frequent first.
    #[serde(skip_serializing_if = "Option::is_none")]
    statistics: Option<Vec<RuleCount>>,
}

/// The JSON Schema of the `json` report (each `jsonl` line is one of its
/// `documents`), generated from the types that write it.
pub fn report_schema() -> schemars::Schema {
    // As written, not as read: a key left out when empty is not required.
    schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<Output<'static>>()
}

impl Output<'_> {
    /// The report with no document in its array, cut open at it.
    fn skeleton(summary: Summary, statistics: Option<Vec<RuleCount>>) -> io::Result<Splice> {
        let output = Output {
            tool: "agui-lint",
            version: env!("CARGO_PKG_VERSION"),
            documents: &[],
            summary,
            statistics,
        };
        let text = serde_json::to_string_pretty(&output).map_err(io::Error::from)?;
        Splice::new(&text, "documents")
    }
}

/// One checked document and its findings.
#[derive(Serialize, schemars::JsonSchema)]
struct Document<'a> {
    /// The file as given or found by the walk (`-` for standard input).
    path: &'a str,
    /// 1-based record in a file of many documents (the JSON Lines line,
    /// the SSE event, the HAR entry's body); `null` for a file that is one
    /// document.
    #[schemars(required, schema_with = "crate::diagnostic::nullable::<usize>")]
    record: Option<usize>,
    /// Where in a capture the document is, in words (`entry 2 (POST
    /// https://…), response event 5`); absent for a file of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    context: Option<String>,
    /// What the document was checked as; `null` when its kind could not be
    /// told.
    #[schemars(required, schema_with = "crate::diagnostic::nullable::<Kind>")]
    kind: Option<Kind>,
    /// The AG-UI version that judged it.
    protocol: Protocol,
    /// Whether it has no error (warnings and infos leave it valid).
    valid: bool,
    /// Its findings, in document order.
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

/// The JSON report, pretty-printed, with a trailing newline. Every document
/// is shown, or under `--quiet` those with findings; the summary always
/// counts every document.
pub(super) struct Json {
    options: Options,
    elements: Option<Elements>,
}

impl Json {
    pub(super) fn new(options: &Options) -> Self {
        Json {
            options: *options,
            elements: None,
        }
    }
}

impl Emit for Json {
    fn begin(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let skeleton = Output::skeleton(Summary::default(), None)?;
        out.write_all(skeleton.head.as_bytes())?;
        self.elements = Some(skeleton.elements());
        Ok(())
    }

    fn document(&mut self, out: &mut dyn Write, checked: &Checked) -> io::Result<()> {
        match &mut self.elements {
            Some(elements) => elements.write(out, &Document::of(checked)),
            None => Err(io::Error::other("a document before the report began")),
        }
    }

    fn finish(&mut self, out: &mut dyn Write, tally: &Tally, _: &[Failure]) -> io::Result<()> {
        let statistics = self.options.statistics.then(|| tally.statistics());
        let skeleton = Output::skeleton(tally.summary, statistics)?;
        if let Some(elements) = &self.elements {
            elements.close(out)?;
        }
        out.write_all(skeleton.tail.as_bytes())?;
        out.write_all(b"\n")
    }

    fn shows_clean(&self) -> bool {
        !self.options.quiet
    }
}

/// One compact document object per line; with `--statistics`, a last line
/// `{"statistics": [...]}`.
pub(super) struct JsonLines {
    options: Options,
}

impl JsonLines {
    pub(super) fn new(options: &Options) -> Self {
        JsonLines { options: *options }
    }
}

impl Emit for JsonLines {
    fn begin(&mut self, _: &mut dyn Write) -> io::Result<()> {
        Ok(())
    }

    fn document(&mut self, out: &mut dyn Write, checked: &Checked) -> io::Result<()> {
        serde_json::to_writer(&mut *out, &Document::of(checked)).map_err(io::Error::from)?;
        out.write_all(b"\n")
    }

    fn finish(&mut self, out: &mut dyn Write, tally: &Tally, _: &[Failure]) -> io::Result<()> {
        if self.options.statistics {
            let line = serde_json::json!({ "statistics": tally.statistics() });
            serde_json::to_writer(&mut *out, &line).map_err(io::Error::from)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }

    fn shows_clean(&self) -> bool {
        !self.options.quiet
    }
}
