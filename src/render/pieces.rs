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
            buffer: Vec::new(),
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
    /// The element being written, kept between elements so that its
    /// allocation is reused.
    buffer: Vec<u8>,
}

impl Elements {
    /// Writes the next element, serialized straight at the array's depth
    /// (no pretty text re-indented afterwards: a report's findings are
    /// most of what it writes).
    pub(crate) fn write(&mut self, out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
        let mut element = std::mem::take(&mut self.buffer);
        element.clear();
        element.extend_from_slice(if self.count == 0 { b"\n" } else { b",\n" });
        element.extend_from_slice(self.inner.as_bytes());
        self.count += 1;
        let formatter = Indented::new(self.inner.as_bytes());
        let mut serializer = serde_json::Serializer::with_formatter(&mut element, formatter);
        let written = value.serialize(&mut serializer).map_err(io::Error::from);
        // One write: the element may go to a spool's file, unbuffered.
        let result = written.and_then(|()| out.write_all(&element));
        self.buffer = element;
        result
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

/// serde_json's pretty printer (two spaces a level) for a value whose
/// every line starts with `base`: what `PrettyFormatter` writes, indented
/// as if the value were nested that deep.
struct Indented<'a> {
    base: &'a [u8],
    depth: usize,
    has_value: bool,
}

impl<'a> Indented<'a> {
    fn new(base: &'a [u8]) -> Self {
        Indented {
            base,
            depth: 0,
            has_value: false,
        }
    }

    fn indent<W: ?Sized + Write>(&self, writer: &mut W) -> io::Result<()> {
        writer.write_all(self.base)?;
        for _ in 0..self.depth {
            writer.write_all(b"  ")?;
        }
        Ok(())
    }

    fn open<W: ?Sized + Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        writer.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, writer: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.depth = self.depth.saturating_sub(1);
        if self.has_value {
            writer.write_all(b"\n")?;
            self.indent(writer)?;
        }
        writer.write_all(bracket)
    }

    fn item<W: ?Sized + Write>(&mut self, writer: &mut W, first: bool) -> io::Result<()> {
        writer.write_all(if first { b"\n" } else { b",\n" })?;
        self.indent(writer)
    }
}

impl serde_json::ser::Formatter for Indented<'_> {
    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.open(writer, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.close(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.item(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
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
            json!([[1, 2], [], {"e": [], "f": {}}, "g"]),
            json!("a string"),
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
