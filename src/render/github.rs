//! `--format github`: GitHub Actions workflow commands, which the runner
//! turns into annotations on the pull request's files.
//!
//! `::error file=PATH,line=L,col=C,title=RULE::message`, one per finding;
//! infos become `::notice`, the level GitHub has for them.

use std::fmt::Write;
use std::io;

use super::{related_text, where_text, Emit, Tally};
use crate::check::{Checked, Failure};
use crate::Severity;

/// The workflow commands for every finding, as its document arrives, and
/// for every unreadable file at the end.
pub(super) struct Github;

impl Emit for Github {
    fn begin(&mut self, _: &mut dyn io::Write) -> io::Result<()> {
        Ok(())
    }

    fn document(&mut self, out: &mut dyn io::Write, document: &Checked) -> io::Result<()> {
        let mut text = String::new();
        for d in document.report.diagnostics() {
            let mut properties = file_property(&document.path);
            if let Some(location) = d.location.map(|l| document.file_location(l)) {
                properties.push(format!("line={}", location.line));
                properties.push(format!("col={}", location.column));
            }
            properties.push(format!("title={}", escape_property(&d.rule)));
            let mut message = d.message.clone();
            let _ = write!(message, "\n{}", where_text(document, d));
            if let Some(help) = &d.help {
                let _ = write!(message, "\nhelp: {help}");
            }
            for related in &d.related {
                let position = document.related_file_location(related);
                let _ = write!(message, "\nnote: {}", related_text(related, position));
            }
            let _ = writeln!(
                text,
                "::{} {}::{}",
                command(d.severity),
                properties.join(","),
                escape_data(&message)
            );
        }
        out.write_all(text.as_bytes())
    }

    fn finish(
        &mut self,
        out: &mut dyn io::Write,
        _: &Tally,
        failures: &[Failure],
    ) -> io::Result<()> {
        let mut text = String::new();
        for failure in failures {
            let mut properties = file_property(&failure.path);
            properties.push("title=agui-lint".into());
            let _ = writeln!(
                text,
                "::error {}::{}",
                properties.join(","),
                escape_data(&failure.message)
            );
        }
        out.write_all(text.as_bytes())
    }
}

fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

/// `file=PATH`, except for standard input, which has no file to annotate.
fn file_property(path: &str) -> Vec<String> {
    if path == "-" {
        Vec::new()
    } else {
        vec![format!("file={}", escape_property(path))]
    }
}

/// Escapes a command's message as the runner expects (`%`, CR, LF).
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value: as data, plus the separators `:` and `,`.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separators_and_newlines_are_escaped() {
        assert_eq!(escape_data("50%\r\nok"), "50%25%0D%0Aok");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
