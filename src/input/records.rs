//! Splits a source's bytes into the documents it holds: a JSON file is one
//! document, a JSON Lines file one per non-blank line.

use std::ops::Range;
use std::path::Path;

/// How a source holds its documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// One JSON document (`.json`).
    Json,
    /// One JSON document per line (`.jsonl`, `.ndjson`).
    JsonLines,
}

impl Layout {
    /// The layout a file name's extension announces, if any.
    pub fn from_path(path: &Path) -> Option<Layout> {
        match path.extension()?.to_str()? {
            "json" => Some(Layout::Json),
            "jsonl" | "ndjson" => Some(Layout::JsonLines),
            _ => None,
        }
    }

    /// Tells the layout of unnamed bytes (stdin, an unknown extension): JSON
    /// Lines when the first non-blank line is a complete JSON value by
    /// itself and more follows; one JSON document otherwise, so that a
    /// pretty-printed document (whose first line is `{`) stays whole.
    pub fn sniff(bytes: &[u8]) -> Layout {
        let mut lines = lines(bytes).filter(|(_, range)| !is_blank(&bytes[range.clone()]));
        let Some((_, first)) = lines.next() else {
            return Layout::Json;
        };
        let first_is_whole = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes[first]).is_ok();
        if first_is_whole && lines.next().is_some() {
            Layout::JsonLines
        } else {
            Layout::Json
        }
    }
}

/// One document inside a source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// 1-based record number (the line number in JSON Lines); `None` when
    /// the source is one document.
    pub record: Option<usize>,
    /// Lines of the source before the document's first line, to turn a
    /// location in the document into one in the source.
    pub line_offset: usize,
    /// The document's bytes within the source.
    pub range: Range<usize>,
}

/// The documents of `bytes` laid out as `layout`. Blank JSON Lines lines
/// are not documents; every other line is one, including a final line
/// without a newline and a line that is not JSON (its finding belongs to
/// that record alone).
pub fn records(layout: Layout, bytes: &[u8]) -> Vec<Record> {
    match layout {
        Layout::Json => vec![Record {
            record: None,
            line_offset: 0,
            range: 0..bytes.len(),
        }],
        Layout::JsonLines => lines(bytes)
            .filter(|(_, range)| !is_blank(&bytes[range.clone()]))
            .map(|(index, range)| Record {
                record: Some(index + 1),
                line_offset: index,
                range,
            })
            .collect(),
    }
}

/// Each line's 0-based index and byte range, without its `\n` or `\r\n`.
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, Range<usize>)> + '_ {
    let mut start = 0;
    let mut index = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let end = bytes[start..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |p| start + p);
        let next = end + 1;
        let content_end = if end > start && bytes[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        let line = (index, start..content_end);
        start = next;
        index += 1;
        Some(line)
    })
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(bytes: &[u8], layout: Layout) -> Vec<(Option<usize>, &str)> {
        records(layout, bytes)
            .into_iter()
            .map(|r| {
                (
                    r.record,
                    std::str::from_utf8(&bytes[r.range]).expect("utf-8"),
                )
            })
            .collect()
    }

    #[test]
    fn json_lines_are_numbered_by_line_skipping_blank_ones() {
        let bytes = b"{\"a\":1}\r\n\n  \n{broken\n[]";
        assert_eq!(
            texts(bytes, Layout::JsonLines),
            [
                (Some(1), "{\"a\":1}"),
                (Some(4), "{broken"),
                (Some(5), "[]")
            ]
        );
        let last = &records(Layout::JsonLines, bytes)[2];
        assert_eq!(last.line_offset, 4);
    }

    #[test]
    fn a_json_file_is_one_record() {
        assert_eq!(texts(b"{\n}\n", Layout::Json), [(None, "{\n}\n")]);
        assert_eq!(texts(b"", Layout::Json), [(None, "")]);
        assert!(records(Layout::JsonLines, b"\n\n").is_empty());
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
        assert_eq!(Layout::from_path(Path::new("b.txt")), None);
    }

    #[test]
    fn sniffing_tells_json_lines_from_a_pretty_document() {
        assert_eq!(Layout::sniff(b"{\"a\":1}\n{\"b\":2}\n"), Layout::JsonLines);
        assert_eq!(Layout::sniff(b"{\"a\":1}\nnot json\n"), Layout::JsonLines);
        assert_eq!(Layout::sniff(b"{\n  \"a\": 1\n}\n"), Layout::Json);
        assert_eq!(Layout::sniff(b"{\"a\":1}\n\n"), Layout::Json);
        assert_eq!(Layout::sniff(b""), Layout::Json);
    }
}
