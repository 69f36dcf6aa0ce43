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
    /// The layout a file name's extension announces, if any.
    pub fn from_path(path: &Path) -> Option<Layout> {
        match path.extension()?.to_str()? {
            "json" => Some(Layout::Json),
            "jsonl" | "ndjson" => Some(Layout::JsonLines),
            "sse" => Some(Layout::Sse),
            "har" => Some(Layout::Har),
            _ => None,
        }
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
    /// The line without its `\n` or `\r\n`.
    pub bytes: Vec<u8>,
}

/// Reads the non-blank lines of JSON Lines one at a time. Every other line
/// is a record, including a final line without a newline and a line that is
/// not JSON (its finding belongs to that record alone).
pub struct JsonLines<R> {
    reader: R,
    number: usize,
    failed: bool,
}

impl<R: BufRead> JsonLines<R> {
    /// Lines of `reader`.
    pub fn new(reader: R) -> Self {
        JsonLines {
            reader,
            number: 0,
            failed: false,
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
            let mut bytes = Vec::new();
            match self.reader.read_until(b'\n', &mut bytes) {
                Ok(0) => return None,
                Ok(_) => {
                    self.number += 1;
                    if bytes.last() == Some(&b'\n') {
                        bytes.pop();
                    }
                    if bytes.last() == Some(&b'\r') {
                        bytes.pop();
                    }
                    if !is_blank(&bytes) {
                        return Some(Ok(Line {
                            number: self.number,
                            bytes,
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
