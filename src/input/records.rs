//! How a source holds its documents ([`Layout`]), and JSON Lines read one
//! line at a time, so that a capture of any size is read in bounded memory.

use std::io::{self, BufRead};
use std::path::Path;

use super::sse::looks_like_sse;

/// How a source holds its documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One JSON document (`.json`).
    Json,
    /// One JSON document per line (`.jsonl`, `.ndjson`).
    JsonLines,
    /// A Server-Sent Events capture, one event per `data:` block (`.sse`).
    Sse,
    /// An HTTP Archive of browser or proxy traffic (`.har`).
    Har,
}

impl Layout {
    /// Every extension agui-lint reads, with the layout it announces: what a
    /// directory walk keeps unless `--include` says otherwise.
    pub const EXTENSIONS: [(&'static str, Layout); 5] = [
        ("json", Layout::Json),
        ("jsonl", Layout::JsonLines),
        ("ndjson", Layout::JsonLines),
        ("sse", Layout::Sse),
        ("har", Layout::Har),
    ];

    /// The layout a file name's extension announces, if any.
    pub fn from_path(path: &Path) -> Option<Layout> {
        let extension = path.extension()?.to_str()?;
        Layout::EXTENSIONS
            .iter()
            .find(|(known, _)| *known == extension)
            .map(|&(_, layout)| layout)
    }

    /// Tells the layout of unnamed bytes (stdin, an unknown extension) from
    /// their beginning: an event stream when the first line is an SSE field;
    /// JSON Lines when the first non-blank line is a complete JSON value by
    /// itself and more follows; one JSON document otherwise, so that a
    /// pretty-printed document (whose first line is `{`) stays whole. (A
    /// HAR export is JSON; it is recognised once parsed.)
    pub fn sniff(bytes: &[u8]) -> Layout {
        if looks_like_sse(bytes) {
            return Layout::Sse;
        }
        let mut lines = bytes
            .split(|&b| b == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .filter(|l| !is_blank(l));
        let Some(first) = lines.next() else {
            return Layout::Json;
        };
        let first_is_whole = serde_json::from_slice::<serde::de::IgnoredAny>(first).is_ok();
        if first_is_whole && lines.next().is_some() {
            Layout::JsonLines
        } else {
            Layout::Json
        }
    }
}

/// One non-blank line of a JSON Lines source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// 1-based line number, the record number of the line's document.
    pub number: usize,
    /// The line without its `\n` or `\r\n`; empty when the line is longer
    /// than the reader's limit.
    pub bytes: Vec<u8>,
    /// The line's length in bytes, also when it was too long to keep.
    pub length: usize,
}

/// Reads the non-blank lines of JSON Lines one at a time. Every other line
/// is a record, including a final line without a newline and a line that is
/// not JSON (its finding belongs to that record alone).
pub struct JsonLines<R> {
    reader: R,
    number: usize,
    failed: bool,
    limit: usize,
}

impl<R: BufRead> JsonLines<R> {
    /// Lines of `reader`, of any length.
    pub fn new(reader: R) -> Self {
        JsonLines::with_limit(reader, usize::MAX)
    }

    /// Lines of `reader`; a line longer than `limit` bytes is measured and
    /// skipped, never held in memory.
    pub fn with_limit(reader: R, limit: usize) -> Self {
        JsonLines {
            reader,
            number: 0,
            failed: false,
            limit,
        }
    }

    /// The next line's bytes (at most `limit + 1` kept) and its length,
    /// without the `\n`; `None` at the end of the input.
    fn read_line(&mut self) -> io::Result<Option<(Vec<u8>, usize)>> {
        let mut kept = Vec::new();
        let mut length = 0usize;
        let mut any = false;
        loop {
            let buffer = self.reader.fill_buf()?;
            if buffer.is_empty() {
                return Ok(any.then_some((kept, length)));
            }
            let first = !any;
            any = true;
            let (chunk, done) = match memchr::memchr(b'\n', buffer) {
                Some(at) => (&buffer[..at], Some(at + 1)),
                None => (buffer, None),
            };
            length += chunk.len();
            if let (true, Some(consumed)) = (first, done) {
                if chunk.len() <= self.limit {
                    // The whole line in the buffer: one allocation, of its size.
                    let line = chunk.to_vec();
                    self.reader.consume(consumed);
                    return Ok(Some((line, length)));
                }
            }
            if kept.len() <= self.limit {
                let room = self.limit.saturating_add(1) - kept.len();
                kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            let consumed = done.unwrap_or(buffer.len());
            self.reader.consume(consumed);
            if done.is_some() {
                return Ok(Some((kept, length)));
            }
        }
    }
}

impl<R: BufRead> Iterator for JsonLines<R> {
    type Item = io::Result<Line>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            match self.read_line() {
                Ok(None) => return None,
                Ok(Some((mut bytes, mut length))) => {
                    self.number += 1;
                    if length <= self.limit && bytes.last() == Some(&b'\r') {
                        bytes.pop();
                        length -= 1;
                    }
                    if length > self.limit {
                        return Some(Ok(Line {
                            number: self.number,
                            bytes: Vec::new(),
                            length,
                        }));
                    }
                    if !is_blank(&bytes) {
                        return Some(Ok(Line {
                            number: self.number,
                            bytes,
                            length,
                        }));
                    }
                }
                Err(error) => {
                    self.failed = true;
                    return Some(Err(error));
                }
            }
        }
    }
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Vec<(usize, String)> {
        JsonLines::new(bytes)
            .map(|l| {
                let l = l.expect("line");
                (l.number, String::from_utf8(l.bytes).expect("utf-8"))
            })
            .collect()
    }

    #[test]
    fn json_lines_are_numbered_by_line_skipping_blank_ones() {
        assert_eq!(
            lines(b"{\"a\":1}\r\n\n  \n{broken\n[]"),
            [
                (1, "{\"a\":1}".to_string()),
                (4, "{broken".to_string()),
                (5, "[]".to_string())
            ]
        );
        assert!(lines(b"\n\n").is_empty());
        assert!(lines(b"").is_empty());
    }

    #[test]
    fn lines_over_the_limit_are_measured_not_kept() {
        let text = format!("{{}}\n{}\n[]", "x".repeat(100));
        let lines: Vec<Line> = JsonLines::with_limit(text.as_bytes(), 10)
            .map(|l| l.expect("line"))
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(
            (lines[1].number, lines[1].length, lines[1].bytes.len()),
            (2, 100, 0)
        );
        assert_eq!(lines[2].bytes, b"[]");
        // A tiny buffer splits lines across refills.
        let small = std::io::BufReader::with_capacity(3, text.as_bytes());
        let again: Vec<Line> = JsonLines::with_limit(small, 10)
            .map(|l| l.expect("line"))
            .collect();
        assert_eq!(again, lines);
    }

    #[test]
    fn layout_comes_from_the_extension() {
        assert_eq!(Layout::from_path(Path::new("a/b.json")), Some(Layout::Json));
        assert_eq!(
            Layout::from_path(Path::new("b.ndjson")),
            Some(Layout::JsonLines)
        );
        assert_eq!(
            Layout::from_path(Path::new("b.jsonl")),
            Some(Layout::JsonLines)
        );
        assert_eq!(Layout::from_path(Path::new("b.sse")), Some(Layout::Sse));
        assert_eq!(Layout::from_path(Path::new("b.har")), Some(Layout::Har));
        assert_eq!(Layout::from_path(Path::new("b.txt")), None);
    }

    #[test]
    fn sniffing_tells_the_layouts_apart() {
        assert_eq!(Layout::sniff(b"{\"a\":1}\n{\"b\":2}\n"), Layout::JsonLines);
        assert_eq!(Layout::sniff(b"{\"a\":1}\nnot json\n"), Layout::JsonLines);
        assert_eq!(Layout::sniff(b"{\n  \"a\": 1\n}\n"), Layout::Json);
        assert_eq!(Layout::sniff(b"{\"a\":1}\n\n"), Layout::Json);
        assert_eq!(Layout::sniff(b""), Layout::Json);
        assert_eq!(Layout::sniff(b"data: {}\n\n"), Layout::Sse);
        assert_eq!(Layout::sniff(b": keep-alive\n\ndata: {}\n\n"), Layout::Sse);
    }
}
