//! What the streaming formats are built from: a pretty-printed JSON text
//! cut open at one array, so that the array's elements are written between
//! its halves as documents arrive, and a spool that holds a report's body
//! where the text before it (counts, SARIF's invocations) is only known at
//! the end.

use std::io::{self, BufWriter, Seek, Write};

use serde::Serialize;
use tempfile::SpooledTempFile;

/// How much of a spool is held in memory before it moves to a temporary
/// file. Small under test, so that the tests go through the file too.
const SPOOL_MEMORY: usize = if cfg!(test) {
    16 * 1024
} else {
    4 * 1024 * 1024
};

/// A pretty-printed JSON text whose array under `key` was left empty, cut
/// at that array: `head` ends with its `[`, `tail` starts after its `]`.
#[derive(Debug, Clone)]
pub(crate) struct Splice {
    pub(crate) head: String,
    pub(crate) tail: String,
    /// The indentation of the line the key is on.
    indent: String,
}

impl Splice {
    /// Cuts `text` (pretty-printed by serde_json, two spaces a level) at
    /// its first `"key": []`. A key in a JSON text is never inside a
    /// string, whose quote marks are escaped, so the first match is the
    /// key itself.
    pub(crate) fn new(text: &str, key: &str) -> io::Result<Splice> {
        let placeholder = format!("\"{key}\": []");
        let at = text.find(&placeholder).ok_or_else(|| {
            io::Error::other(format!("no empty '{key}' array in the report skeleton"))
        })?;
        let close = at + placeholder.len() - 1;
        let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
        Ok(Splice {
            head: text[..close].to_string(),
            tail: text[close + 1..].to_string(),
            indent: text[line_start..at].to_string(),
        })
    }

    /// The writer of this array's elements.
    pub(crate) fn elements(&self) -> Elements {
        Elements {
            outer: self.indent.clone(),
            inner: format!("{}  ", self.indent),
            count: 0,
        }
    }
}

/// Writes the elements of a cut-open array one at a time, each
/// pretty-printed at the array's depth, byte for byte what serde_json's
/// pretty printer writes for the whole array.
#[derive(Debug, Clone)]
pub(crate) struct Elements {
    /// The indentation of the array's closing bracket and of its elements.
    outer: String,
    inner: String,
    count: usize,
}

impl Elements {
    /// Writes the next element.
    pub(crate) fn write(&mut self, out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
        let text = serde_json::to_vec_pretty(value).map_err(io::Error::from)?;
        let mut element = Vec::with_capacity(text.len() + text.len() / 4);
        element.extend_from_slice(if self.count == 0 { b"\n" } else { b",\n" });
        self.count += 1;
        // JSON strings hold no raw line break, so every line break of the
        // text is the printer's, and each line gets the array's depth.
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                element.push(b'\n');
            }
            element.extend_from_slice(self.inner.as_bytes());
            element.extend_from_slice(line);
        }
        // One write: the element may go to a spool's file, unbuffered.
        out.write_all(&element)
    }

    /// Writes the closing bracket: on its own line after elements, right
    /// after the opening one when there were none (`[]`).
    pub(crate) fn close(&self, out: &mut dyn Write) -> io::Result<()> {
        if self.count > 0 {
            out.write_all(b"\n")?;
            out.write_all(self.outer.as_bytes())?;
        }
        out.write_all(b"]")
    }
}

/// Bytes written now and read back once, at the end of a run: in memory
/// up to [`SPOOL_MEMORY`], then in a temporary file, so that a report
/// whose head must wait for the end costs little memory however long it
/// is. Writes are buffered, as a spool's file is written in small pieces.
pub(crate) struct Spool {
    file: BufWriter<SpooledTempFile>,
    len: usize,
}

impl Default for Spool {
    fn default() -> Self {
        Spool {
            file: BufWriter::new(SpooledTempFile::new(SPOOL_MEMORY)),
            len: 0,
        }
    }
}

impl Spool {
    /// Copies everything written to `out` and starts over empty.
    pub(crate) fn drain_to(&mut self, out: &mut dyn Write) -> io::Result<()> {
        let mut file = std::mem::take(self)
            .file
            .into_inner()
            .map_err(io::IntoInnerError::into_error)?;
        file.rewind()?;
        io::copy(&mut file, out)?;
        Ok(())
    }

    /// Bytes held in memory: the write buffer, and what is written until
    /// the spool moves to its file.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        let written = if self.file.get_ref().is_rolled() {
            0
        } else {
            self.len
        };
        self.file.capacity() + written
    }
}

impl Write for Spool {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.file.write(bytes)?;
        self.len += n;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn elements_written_one_by_one_are_the_pretty_printed_array() {
        let items = [
            json!({"a": [1, {}], "b": "x\ny"}),
            json!([]),
            json!({"c": {"d": null}}),
        ];
        for n in 0..=items.len() {
            let whole = serde_json::to_string_pretty(&json!({
                "before": 1, "outer": {"items": &items[..n]}, "after": [2]
            }))
            .expect("serialize");
            let skeleton = serde_json::to_string_pretty(&json!({
                "before": 1, "outer": {"items": []}, "after": [2]
            }))
            .expect("serialize");
            let splice = Splice::new(&skeleton, "items").expect("splice");
            let mut out = splice.head.clone().into_bytes();
            let mut elements = splice.elements();
            for item in &items[..n] {
                elements.write(&mut out, item).expect("write");
            }
            elements.close(&mut out).expect("close");
            out.extend_from_slice(splice.tail.as_bytes());
            assert_eq!(String::from_utf8(out).expect("utf-8"), whole, "{n} items");
        }
    }

    #[test]
    fn a_spool_moves_to_a_file_and_reads_back_whole() {
        let mut spool = Spool::default();
        let line = [b'x'; 1000];
        for _ in 0..100 {
            spool.write_all(&line).expect("write");
        }
        spool.flush().expect("flush");
        let buffer = spool.file.capacity();
        assert_eq!(spool.held(), buffer, "rolled over to a file");
        let mut out = Vec::new();
        spool.drain_to(&mut out).expect("drain");
        assert_eq!(out.len(), 100_000);
        assert_eq!(spool.held(), buffer);
        spool.write_all(b"again").expect("write");
        assert_eq!(spool.held(), buffer + 5);
    }
}
