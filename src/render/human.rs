//! `--format human`: one line per finding, `path:line:col: severity[rule]
//! message`, help indented below, and a summary line.

use std::fmt::Write;

use super::{Checked, Summary};

/// The human-readable report of `documents`.
pub fn render_human(documents: &[Checked]) -> String {
    let mut out = String::new();
    for document in documents {
        let record = document
            .record
            .map(|r| format!("[{r}]"))
            .unwrap_or_default();
        for d in document.report.diagnostics() {
            let position = d
                .location
                .map(|l| format!(":{}:{}", l.line, l.column))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{}{record}{position}: {}[{}] {}",
                document.path, d.severity, d.rule, d.message
            );
            if !d.pointer.is_empty() {
                let _ = writeln!(out, "  at {}", d.pointer);
            }
            if let Some(help) = &d.help {
                let _ = writeln!(out, "  help: {help}");
            }
            for related in &d.related {
                let position = related
                    .location
                    .map(|l| format!(" ({}:{})", l.line, l.column))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "  note: {} at {}{position}",
                    related.message, related.pointer
                );
            }
        }
    }
    let s = Summary::of(documents);
    let _ = writeln!(
        out,
        "{} document{} checked: {} valid, {} error{}, {} warning{}, {} info{}",
        s.documents,
        plural(s.documents),
        s.valid,
        s.errors,
        plural(s.errors),
        s.warnings,
        plural(s.warnings),
        s.infos,
        plural(s.infos),
    );
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
