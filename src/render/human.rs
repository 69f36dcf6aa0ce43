//! `--format human`: one finding per line, `path:line:col: severity[rule]
//! message`, then the source line with a caret under the column, the
//! pointer, help and related notes indented below, and a summary line.

use std::collections::HashMap;
use std::fmt::Write;
use std::io;

use anstyle::{AnsiColor, Style};
use unicode_width::UnicodeWidthChar;

use super::{plural, Emit, Options, Tally};
use crate::check::{Checked, Failure};
use crate::shape::shape_hash;
use crate::{Diagnostic, Severity};

/// How many findings of one rule and message shape are shown before the
/// rest are counted instead: one defect repeated through a capture is
/// seen, not scrolled through.
const SHOWN_OF_A_SHAPE: usize = 3;
/// How many shapes are counted; findings of shapes beyond are all shown,
/// so that the count stays bounded whatever the corpus.
const MAX_SHAPES: usize = 65_536;

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

/// The human-readable report: each document's findings as it arrives,
/// then the unreadable files, the `--statistics` table and the summary
/// line.
pub(super) struct Human {
    options: Options,
    palette: Palette,
    /// Findings of each rule and message shape seen so far.
    shapes: HashMap<(Severity, u64, u64), Seen>,
    /// The shapes with findings not shown, in the order the first was
    /// held back.
    held_back: Vec<HeldBack>,
}

/// How many findings of one shape have been seen, and where its held-back
/// ones are counted.
#[derive(Default)]
struct Seen {
    count: usize,
    held_back: Option<usize>,
}

/// Findings of one shape not shown.
struct HeldBack {
    severity: Severity,
    rule: String,
    /// The first held back's message.
    message: String,
    count: usize,
}

impl Human {
    pub(super) fn new(options: &Options) -> Self {
        Human {
            options: *options,
            palette: Palette::new(options.color),
            shapes: HashMap::new(),
            held_back: Vec::new(),
        }
    }

    /// Whether `d` is shown: always under `--verbose`, else for the first
    /// [`SHOWN_OF_A_SHAPE`] of its rule and message shape; the others are
    /// counted to be named at the end.
    fn shows(&mut self, d: &Diagnostic) -> bool {
        if self.options.verbose {
            return true;
        }
        let key = (d.severity, shape_hash(&d.rule), shape_hash(&d.message));
        if self.shapes.len() >= MAX_SHAPES && !self.shapes.contains_key(&key) {
            return true;
        }
        let seen = self.shapes.entry(key).or_default();
        seen.count += 1;
        if seen.count <= SHOWN_OF_A_SHAPE {
            return true;
        }
        match seen.held_back {
            Some(index) => self.held_back[index].count += 1,
            None => {
                seen.held_back = Some(self.held_back.len());
                self.held_back.push(HeldBack {
                    severity: d.severity,
                    rule: d.rule.clone(),
                    message: d.message.clone(),
                    count: 1,
                });
            }
        }
        false
    }
}

impl Emit for Human {
    fn begin(&mut self, _: &mut dyn io::Write) -> io::Result<()> {
        Ok(())
    }

    fn document(&mut self, out: &mut dyn io::Write, document: &Checked) -> io::Result<()> {
        if self.options.summary {
            return Ok(());
        }
        let mut text = String::new();
        let mut cursor = Cursor::default();
        for d in document.report.diagnostics() {
            if !self.shows(d) {
                continue;
            }
            finding(
                &mut text,
                document,
                d,
                &self.options,
                &self.palette,
                &mut cursor,
            );
        }
        out.write_all(text.as_bytes())
    }

    fn finish(
        &mut self,
        out: &mut dyn io::Write,
        tally: &Tally,
        failures: &[Failure],
    ) -> io::Result<()> {
        let (options, palette) = (&self.options, &self.palette);
        let mut text = String::new();
        for held in &self.held_back {
            let _ = writeln!(
                text,
                "... and {} more {}{} like: {} (--verbose or --format jsonl shows every one)",
                held.count,
                paint(palette.severity(held.severity), held.severity),
                paint(palette.rule, format!("[{}]", held.rule)),
                held.message
            );
        }
        for failure in failures {
            let _ = writeln!(
                text,
                "{}: {} {}",
                paint(palette.path, &failure.path),
                paint(palette.severity(Severity::Error), "error:"),
                failure.message
            );
        }
        if options.statistics || options.summary {
            for count in tally.statistics() {
                let _ = writeln!(
                    text,
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
        let s = tally.summary;
        let clean = s.errors + s.warnings + s.infos == 0 && failures.is_empty();
        if options.verbose && !options.quiet {
            for path in &tally.skipped {
                let _ = writeln!(
                    text,
                    "{}: skipped: not AG-UI as far as can be told (name it, or pass --kind, to check it)",
                    paint(palette.path, path)
                );
            }
        }
        if !options.quiet {
            let unreadable = match failures.len() {
                0 => String::new(),
                n => format!(", {n} file{} unreadable", plural(n)),
            };
            let skipped = match (s.skipped, options.verbose) {
                (0, _) => String::new(),
                (n, true) => format!(", {n} file{} skipped as not AG-UI", plural(n)),
                (n, false) => format!(
                    ", {n} file{} skipped as not AG-UI (--verbose lists {})",
                    plural(n),
                    if n == 1 { "it" } else { "them" }
                ),
            };
            let line = format!(
                "{} document{} checked: {} valid, {} error{}, {} warning{}, {} info{}{unreadable}{skipped}",
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
            let _ = writeln!(text, "{}", paint(style, line));
        }
        out.write_all(text.as_bytes())
    }
}

fn finding(
    out: &mut String,
    document: &Checked,
    d: &Diagnostic,
    options: &Options,
    palette: &Palette,
    cursor: &mut Cursor,
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
            let at = cursor.seek(text, location.line, location.column);
            snippet(out, location.line, at, text, palette, d.severity);
        }
    }
    let mut place = super::where_text(document, d);
    // The version is named where it is not the one the run was set to,
    // which is where a reader would not expect it.
    if document.report.protocol() != options.protocol {
        place.push_str(&format!(
            " (judged as AG-UI {})",
            document.report.protocol()
        ));
    }
    let _ = writeln!(out, "  {place}");
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
    at: usize,
    text: &str,
    palette: &Palette,
    severity: Severity,
) {
    let (shown, caret_at) = window(text, at);
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

/// Where on its line each finding's column is, for the snippets of one
/// document: its findings come in position order, so the walk along a
/// line goes on from the last finding's column instead of starting over,
/// and a minified document (one long line) with hundreds of findings is
/// walked once.
#[derive(Debug, Default)]
struct Cursor {
    line: usize,
    /// A 0-based character column and its byte offset in the line.
    column: usize,
    byte: usize,
}

impl Cursor {
    /// The byte offset in `text`, the text of `line`, of 1-based character
    /// `column`; the end of the text when the column is past it.
    fn seek(&mut self, text: &str, line: usize, column: usize) -> usize {
        let target = column.saturating_sub(1);
        if self.line != line || self.column > target || self.byte > text.len() {
            *self = Cursor {
                line,
                column: 0,
                byte: 0,
            };
        }
        let rest = text.get(self.byte..).unwrap_or_default();
        let mut found = text.len();
        let mut column = self.column;
        for (offset, _) in rest.char_indices() {
            if column == target {
                found = self.byte + offset;
                break;
            }
            column += 1;
        }
        self.column = column;
        self.byte = found;
        found
    }
}

/// The part of `text` shown around byte offset `at` (a character
/// boundary), with control characters as spaces, and where the caret goes
/// in it (in characters). Long lines are cut to a window around the
/// caret, marked with `…`; only the window is read, never the whole line.
fn window(text: &str, at: usize) -> (String, usize) {
    let clean = |c: char| if c.is_control() { ' ' } else { c };
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or_default();
    let short = text.len() <= MAX_SHOWN_CHARS
        || text.chars().take(MAX_SHOWN_CHARS + 1).count() <= MAX_SHOWN_CHARS;
    if short {
        return (text.chars().map(clean).collect(), before.chars().count());
    }
    let start = before
        .char_indices()
        .rev()
        .nth(CONTEXT_BEFORE - 1)
        .map_or(0, |(offset, _)| offset);
    let mut shown = String::new();
    let mut caret = before.get(start..).unwrap_or_default().chars().count();
    if start > 0 {
        shown.push('…');
        caret += 1;
    }
    let mut rest = text.get(start..).unwrap_or_default().chars();
    shown.extend(rest.by_ref().take(MAX_SHOWN_CHARS).map(clean));
    if rest.next().is_some() {
        shown.push('…');
    }
    (shown, caret)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The window around 1-based character `column` of `text`.
    fn window_at(text: &str, column: usize) -> (String, usize) {
        window(text, Cursor::default().seek(text, 1, column))
    }

    #[test]
    fn short_lines_are_shown_whole() {
        assert_eq!(window_at("\t\"a\": 1", 2), (" \"a\": 1".to_string(), 1));
    }

    #[test]
    fn long_lines_are_windowed_around_the_column() {
        let text = format!("{}X{}", "é".repeat(500), "b".repeat(500));
        let (shown, caret) = window_at(&text, 501);
        assert_eq!(shown.chars().nth(caret), Some('X'));
        assert!(shown.starts_with('…') && shown.ends_with('…'));
        assert_eq!(shown.chars().count(), MAX_SHOWN_CHARS + 2);
        let (shown, caret) = window_at(&text, 3);
        assert_eq!((shown.chars().nth(caret), caret), (Some('é'), 2));
        assert!(!shown.starts_with('…') && shown.ends_with('…'));
    }

    #[test]
    fn a_column_past_the_end_points_just_after_the_text() {
        assert_eq!(window_at("{", 2), ("{".to_string(), 1));
        assert_eq!(window_at("{", 9), ("{".to_string(), 1));
    }

    #[test]
    fn the_cursor_goes_on_along_a_line_and_starts_over_on_another() {
        let text = "aé€😀b";
        let mut cursor = Cursor::default();
        let offsets: Vec<usize> = [1, 2, 3, 4, 5, 6]
            .iter()
            .map(|&column| cursor.seek(text, 7, column))
            .collect();
        assert_eq!(offsets, [0, 1, 3, 6, 10, 11]);
        // Back to an earlier column, or another line: from the start again.
        assert_eq!(cursor.seek(text, 7, 2), 1);
        assert_eq!(cursor.seek("xy", 8, 2), 1);
    }
}
