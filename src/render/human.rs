//! `--format human`: one finding per line, `path:line:col: severity[rule]
//! message`, then the source line with a caret under the column, the
//! pointer, help and related notes indented below, and a summary line.

use std::fmt::Write;

use anstyle::{AnsiColor, Style};
use unicode_width::UnicodeWidthChar;

use super::{plural, statistics, Options, Summary};
use crate::check::{Checked, Outcome};
use crate::{Diagnostic, Severity};

/// Source lines longer than this are shown as a window around the column,
/// so that a minified one-line payload does not flood the terminal.
const MAX_SHOWN_CHARS: usize = 120;
/// How much of the line before the column a window keeps.
const CONTEXT_BEFORE: usize = 40;

/// The styles of one report: plain when colour is off.
struct Palette {
    path: Style,
    gutter: Style,
    rule: Style,
    help: Style,
    note: Style,
    color: bool,
}

impl Palette {
    fn new(color: bool) -> Self {
        let pick = |style: Style| if color { style } else { Style::new() };
        Palette {
            path: pick(Style::new().bold()),
            gutter: pick(AnsiColor::Blue.on_default().bold()),
            rule: pick(Style::new().dimmed()),
            help: pick(AnsiColor::Cyan.on_default().bold()),
            note: pick(Style::new().bold()),
            color,
        }
    }

    fn severity(&self, severity: Severity) -> Style {
        if !self.color {
            return Style::new();
        }
        match severity {
            Severity::Error => AnsiColor::Red.on_default().bold(),
            Severity::Warning => AnsiColor::Yellow.on_default().bold(),
            Severity::Info => AnsiColor::Blue.on_default().bold(),
        }
    }
}

/// Wraps `text` in `style`, or leaves it bare when the style is plain.
fn paint(style: Style, text: impl std::fmt::Display) -> String {
    if style == Style::new() {
        text.to_string()
    } else {
        format!("{}{text}{}", style.render(), style.render_reset())
    }
}

/// The human-readable report of `outcome`.
pub fn render(outcome: &Outcome, options: &Options) -> String {
    let palette = Palette::new(options.color);
    let mut out = String::new();
    for document in outcome.with_findings() {
        for d in document.report.diagnostics() {
            finding(&mut out, document, d, options, &palette);
        }
    }
    for failure in &outcome.failures {
        let _ = writeln!(
            out,
            "{}: {} {}",
            paint(palette.path, &failure.path),
            paint(palette.severity(Severity::Error), "error:"),
            failure.message
        );
    }
    if options.statistics {
        for count in statistics(outcome) {
            let _ = writeln!(
                out,
                "{:>6}  {}  {}",
                count.count,
                paint(
                    palette.severity(count.severity),
                    format!("{:<7}", count.severity)
                ),
                count.rule
            );
        }
    }
    let s = Summary::of(outcome);
    let clean = s.errors + s.warnings + s.infos == 0 && outcome.failures.is_empty();
    if options.quiet {
        return out;
    }
    let unreadable = match outcome.failures.len() {
        0 => String::new(),
        n => format!(", {n} file{} unreadable", plural(n)),
    };
    let line = format!(
        "{} document{} checked: {} valid, {} error{}, {} warning{}, {} info{}{unreadable}",
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
    let style = if clean { Style::new() } else { palette.note };
    let _ = writeln!(out, "{}", paint(style, line));
    out
}

fn finding(
    out: &mut String,
    document: &Checked,
    d: &Diagnostic,
    options: &Options,
    palette: &Palette,
) {
    let location = d.location.map(|l| document.file_location(l));
    let position = location
        .map(|l| format!(":{}:{}", l.line, l.column))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{}: {}{} {}",
        paint(palette.path, format!("{}{position}", document.path)),
        paint(palette.severity(d.severity), d.severity),
        paint(palette.rule, format!("[{}]", d.rule)),
        d.message
    );
    if let Some(location) = location {
        if let Some(text) = document.source_line(location.line) {
            snippet(
                out,
                location.line,
                location.column,
                text,
                palette,
                d.severity,
            );
        }
    }
    let mut record = document
        .place()
        .map(|place| format!(" in {place}"))
        .unwrap_or_default();
    // The version is named where it is not the one the run was set to,
    // which is where a reader would not expect it.
    if document.report.protocol() != options.protocol {
        record.push_str(&format!(
            " (judged as AG-UI {})",
            document.report.protocol()
        ));
    }
    if !d.pointer.is_empty() || !record.is_empty() {
        let pointer = if d.pointer.is_empty() {
            "/"
        } else {
            &d.pointer
        };
        let _ = writeln!(out, "  at {pointer}{record}");
    }
    if let Some(help) = &d.help {
        let _ = writeln!(out, "  {} {help}", paint(palette.help, "help:"));
    }
    for related in &d.related {
        let _ = writeln!(
            out,
            "  {} {}",
            paint(palette.note, "note:"),
            super::related_text(related, document.related_file_location(related))
        );
    }
}

/// The source line and a caret under `column`:
///
/// ```text
///   12 |     "role": "assitant",
///      |             ^
/// ```
fn snippet(
    out: &mut String,
    line: usize,
    column: usize,
    text: &str,
    palette: &Palette,
    severity: Severity,
) {
    let (shown, caret_at) = window(text, column);
    let padding: usize = shown
        .chars()
        .take(caret_at)
        .map(|c| c.width().unwrap_or(1))
        .sum();
    let number = line.to_string();
    let blank = " ".repeat(number.len());
    let _ = writeln!(
        out,
        "  {} {shown}",
        paint(palette.gutter, format!("{number} |"))
    );
    let _ = writeln!(
        out,
        "  {} {}{}",
        paint(palette.gutter, format!("{blank} |")),
        " ".repeat(padding),
        paint(palette.severity(severity), "^")
    );
}

/// The part of `text` shown for a finding at 1-based `column`, with
/// control characters made visible as spaces, and the caret's index (in
/// characters) within it.
fn window(text: &str, column: usize) -> (String, usize) {
    let chars: Vec<char> = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let target = column.saturating_sub(1).min(chars.len());
    if chars.len() <= MAX_SHOWN_CHARS {
        return (chars.into_iter().collect(), target);
    }
    let start = target.saturating_sub(CONTEXT_BEFORE);
    let end = (start + MAX_SHOWN_CHARS).min(chars.len());
    let mut shown = String::new();
    let mut caret = target - start;
    if start > 0 {
        shown.push('…');
        caret += 1;
    }
    shown.extend(&chars[start..end]);
    if end < chars.len() {
        shown.push('…');
    }
    (shown, caret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_shown_whole() {
        assert_eq!(window("\t\"a\": 1", 2), (" \"a\": 1".to_string(), 1));
    }

    #[test]
    fn long_lines_are_windowed_around_the_column() {
        let text = format!("{}X{}", "a".repeat(500), "b".repeat(500));
        let (shown, caret) = window(&text, 501);
        assert_eq!(shown.chars().nth(caret), Some('X'));
        assert!(shown.starts_with('…') && shown.ends_with('…'));
        assert_eq!(shown.chars().count(), MAX_SHOWN_CHARS + 2);
    }

    #[test]
    fn a_column_past_the_end_points_just_after_the_text() {
        assert_eq!(window("{", 2), ("{".to_string(), 1));
    }
}
