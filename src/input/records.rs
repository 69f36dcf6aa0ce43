//! How a source holds its documents ([`Layout`]), and JSON Lines read one
//! line at a time, so that a capture of any size is read in bounded memory.

use std::io::BufRead;
use std::path::Path;

use super::framed::{Framed, Framer};
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
    /// AG-UI's binary transport: length-prefixed protobuf frames
    /// (`.aguipb`, see [`crate::input::proto::EXTENSION`]).
    Proto,
}

impl Layout {
    /// Every extension agui-lint reads, with the layout it announces: what a
    /// directory walk keeps unless `--include` says otherwise.
    pub const EXTENSIONS: [(&'static str, Layout); 6] = [
        ("json", Layout::Json),
        ("jsonl", Layout::JsonLines),
        ("ndjson", Layout::JsonLines),
        ("sse", Layout::Sse),
        ("har", Layout::Har),
        (super::proto::EXTENSION, Layout::Proto),
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
    /// HAR export is JSON; it is recognised once parsed.) Bytes that start
    /// with a zero byte are binary frames: no text starts so, and a frame's
    /// length starts so below 16 MiB.
    pub fn sniff(bytes: &[u8]) -> Layout {
        if bytes.first() == Some(&0) {
            return Layout::Proto;
        }
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
    /// Where the line starts in the stream, in bytes from its first.
    pub offset: u64,
}

/// JSON Lines fed bytes as they come: each non-blank line is handed out
/// once its `\n` arrives (or the stream ends), including a line that is
/// not JSON (its finding belongs to that record alone). A line longer
/// than the limit is measured and handed out empty, never held whole.
#[derive(Debug)]
pub struct LineFramer {
    limit: usize,
    /// 1-based number of the last line ended; 0 before the first.
    number: usize,
    /// What of the current line is kept (at most `limit + 1` bytes).
    kept: Vec<u8>,
    /// The current line's length so far.
    length: usize,
    /// Some byte of the current line has arrived.
    started: bool,
    /// Bytes fed so far.
    fed: u64,
    /// Where the current line starts in the stream.
    line_offset: u64,
}

impl LineFramer {
    /// A framer whose lines of more than `limit` bytes are measured and
    /// skipped.
    pub fn new(limit: usize) -> Self {
        LineFramer {
            limit,
            number: 0,
            kept: Vec::new(),
            length: 0,
            started: false,
            fed: 0,
            line_offset: 0,
        }
    }

    /// Frames the next `chunk`, handing each line it completes to `out`.
    pub fn push(&mut self, chunk: &[u8], out: &mut impl FnMut(Line)) {
        let mut rest = chunk;
        while let Some(at) = memchr::memchr(b'\n', rest) {
            let content = &rest[..at];
            rest = &rest[at + 1..];
            self.fed += at as u64 + 1;
            let bytes = if !self.started && content.len() <= self.limit {
                // The whole line in the chunk: one allocation, of its size.
                self.length = content.len();
                content.to_vec()
            } else {
                self.take(content);
                std::mem::take(&mut self.kept)
            };
            self.end_line(bytes, out);
        }
        if !rest.is_empty() {
            self.started = true;
            self.fed += rest.len() as u64;
            self.take(rest);
        }
    }

    /// Ends the stream: a final line without a `\n` is still a line.
    pub fn finish(&mut self, out: &mut impl FnMut(Line)) {
        if self.started {
            let bytes = std::mem::take(&mut self.kept);
            self.end_line(bytes, out);
        }
    }

    /// Adds `part` to the current line, keeping what fits.
    fn take(&mut self, part: &[u8]) {
        self.length += part.len();
        if self.kept.len() <= self.limit {
            let room = self.limit.saturating_add(1) - self.kept.len();
            self.kept.extend_from_slice(&part[..part.len().min(room)]);
        }
    }

    /// Hands out the line just ended, unless blank, and begins the next.
    fn end_line(&mut self, mut bytes: Vec<u8>, out: &mut impl FnMut(Line)) {
        self.number += 1;
        let mut length = std::mem::take(&mut self.length);
        let offset = self.line_offset;
        self.started = false;
        self.line_offset = self.fed;
        if length <= self.limit && bytes.last() == Some(&b'\r') {
            bytes.pop();
            length -= 1;
        }
        if length > self.limit {
            out(Line {
                number: self.number,
                bytes: Vec::new(),
                length,
                offset,
            });
        } else if !is_blank(&bytes) {
            out(Line {
                number: self.number,
                bytes,
                length,
                offset,
            });
        }
    }
}

impl Framer for LineFramer {
    type Record = Line;

    fn push(&mut self, chunk: &[u8], out: &mut impl FnMut(Line)) {
        LineFramer::push(self, chunk, out);
    }

    fn finish(&mut self, out: &mut impl FnMut(Line)) {
        LineFramer::finish(self, out);
    }
}

/// Reads the non-blank lines of JSON Lines one at a time from a buffered
/// reader, through a [`LineFramer`].
pub type JsonLines<R> = Framed<R, LineFramer>;

impl LineFramer {
    /// Lines of `reader`, of any length.
    pub fn read<R: BufRead>(reader: R) -> JsonLines<R> {
        Framed::over(reader, LineFramer::new(usize::MAX))
    }

    /// Lines of `reader`; a line longer than `limit` bytes is measured and
    /// skipped, never held in memory.
    pub fn read_with_limit<R: BufRead>(reader: R, limit: usize) -> JsonLines<R> {
        Framed::over(reader, LineFramer::new(limit))
    }
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(bytes: &[u8]) -> Vec<(usize, String)> {
        LineFramer::read(bytes)
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
        let lines: Vec<Line> = LineFramer::read_with_limit(text.as_bytes(), 10)
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
        let again: Vec<Line> = LineFramer::read_with_limit(small, 10)
            .map(|l| l.expect("line"))
            .collect();
        assert_eq!(again, lines);
    }

    #[test]
    fn lines_split_anywhere_frame_as_they_do_whole() {
        let input: &[u8] = b"{\"a\":1}\r\n\n  \n{broken\r\n\xc3\xa9\n[]";
        let framed = |size: usize, limit: usize| {
            let mut framer = LineFramer::new(limit);
            let mut lines = Vec::new();
            for chunk in input.chunks(size) {
                framer.push(chunk, &mut |line| lines.push(line));
            }
            framer.finish(&mut |line| lines.push(line));
            lines
        };
        for limit in [usize::MAX, 3] {
            let whole = framed(input.len(), limit);
            assert_eq!(whole.len(), 4);
            for size in 1..input.len() {
                assert_eq!(
                    framed(size, limit),
                    whole,
                    "chunks of {size}, limit {limit}"
                );
            }
        }
        let whole = framed(input.len(), usize::MAX);
        let offsets: Vec<u64> = whole.iter().map(|line| line.offset).collect();
        assert_eq!(offsets, [0, 13, 22, 25]);
        assert_eq!(whole[1].bytes, b"{broken");
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
