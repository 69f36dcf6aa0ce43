//! A text's lines and characters, indexed once, so that the line and
//! column of any byte offset, and the byte offset of any line and column,
//! are found without reading the text from its start.
//!
//! A capture holds many documents inside one text (a HAR's bodies, each
//! an SSE stream of events): placing each event's findings by counting
//! from the start of the file made a capture of n events cost n² (issue
//! 25). Here a lookup reads at most [`STRIDE`] bytes, however long the
//! text and its lines (a minified HAR is one line of megabytes).

use memchr::memchr_iter;

use crate::diagnostic::Location;
use crate::locate::char_count;

/// How many bytes apart the character counts are kept.
const STRIDE: usize = 256;

/// The index of one text.
#[derive(Debug, Clone)]
pub(crate) struct Lines<'t> {
    text: &'t [u8],
    /// The byte offset where each line starts; the first is 0.
    starts: Vec<usize>,
    /// The characters before each multiple of [`STRIDE`].
    counts: Vec<usize>,
}

impl<'t> Lines<'t> {
    /// Indexes `text`, in one pass.
    pub(crate) fn new(text: &'t [u8]) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr_iter(b'\n', text).map(|i| i + 1));
        let mut counts = Vec::with_capacity(text.len() / STRIDE + 1);
        let mut chars = 0;
        for block in text.chunks(STRIDE) {
            counts.push(chars);
            chars += char_count(block);
        }
        counts.push(chars);
        Lines {
            text,
            starts,
            counts,
        }
    }

    /// The characters (UTF-8 lead bytes) before byte `offset`.
    fn chars_before(&self, offset: usize) -> usize {
        let offset = offset.min(self.text.len());
        let block = offset / STRIDE;
        let counted = self.counts.get(block).copied().unwrap_or(0);
        counted + char_count(&self.text[block * STRIDE..offset])
    }

    /// The 1-based line and character column of byte `offset`.
    pub(crate) fn location(&self, offset: usize) -> Location {
        let offset = offset.min(self.text.len());
        let line = self.starts.partition_point(|&start| start <= offset);
        let start = self.starts[line.saturating_sub(1)];
        Location {
            line,
            column: self.chars_before(offset) - self.chars_before(start) + 1,
        }
    }

    /// The byte offset of `location` (1-based line, character column): the
    /// end of its line when the column is past it, `None` when the line
    /// is past the text.
    pub(crate) fn offset(&self, location: Location) -> Option<usize> {
        let index = location.line.checked_sub(1)?;
        let start = *self.starts.get(index)?;
        let end = self
            .starts
            .get(index + 1)
            .map_or(self.text.len(), |next| next - 1);
        let target = self.chars_before(start) + location.column.saturating_sub(1);
        // Start from the last count at or before the target, inside the
        // line: at most one stride to walk (past the line's end, the end).
        let block = self
            .counts
            .partition_point(|&chars| chars <= target)
            .saturating_sub(1);
        let mut at = (block * STRIDE).clamp(start, end);
        // A stride may end inside a character: start from its first byte.
        while at > start && self.text.get(at).is_some_and(|&b| (b & 0xC0) == 0x80) {
            at -= 1;
        }
        let mut chars = self.chars_before(at);
        while chars < target {
            match self.text.get(at) {
                None | Some(b'\n') => break,
                Some(_) => {
                    at += 1;
                    while self.text.get(at).is_some_and(|&b| (b & 0xC0) == 0x80) {
                        at += 1;
                    }
                    chars += 1;
                }
            }
        }
        Some(at)
    }

    /// The text of 1-based `line`, without its line break (`\n` or
    /// `\r\n`).
    pub(crate) fn line(&self, line: usize) -> Option<&'t [u8]> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        let end = self
            .starts
            .get(line)
            .map_or(self.text.len(), |next| next - 1);
        let text = self.text.get(start..end)?;
        Some(text.strip_suffix(b"\r").unwrap_or(text))
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::locate::location_at;

    #[test]
    fn lines_columns_and_offsets() {
        let text = "ab\r\né x\n\nlast".as_bytes();
        let lines = Lines::new(text);
        assert_eq!(lines.location(0), Location { line: 1, column: 1 });
        assert_eq!(lines.location(6), Location { line: 2, column: 2 });
        assert_eq!(lines.location(text.len()), Location { line: 4, column: 5 });
        assert_eq!(lines.offset(Location { line: 2, column: 2 }), Some(6));
        assert_eq!(
            lines.offset(Location {
                line: 2,
                column: 99
            }),
            Some(8)
        );
        assert_eq!(lines.offset(Location { line: 5, column: 1 }), None);
        assert_eq!(lines.line(1), Some(&b"ab"[..]));
        assert_eq!(lines.line(3), Some(&b""[..]));
        assert_eq!(lines.line(4), Some(&b"last"[..]));
        assert_eq!(lines.line(5), None);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Every offset is located as counting from the start locates it,
        /// and every location leads back to its offset, across strides.
        #[test]
        fn as_counting_from_the_start(
            pieces in prop::collection::vec(prop_oneof![Just("a"), Just("é"), Just("\n"), Just("😀"), Just("xyz")], 0..3000),
            picks in prop::collection::vec(any::<prop::sample::Index>(), 1..20),
        ) {
            let text: String = pieces.concat();
            let bytes = text.as_bytes();
            let lines = Lines::new(bytes);
            for pick in picks {
                let offset = pick.index(bytes.len() + 1);
                if !text.is_char_boundary(offset) {
                    continue;
                }
                let location = lines.location(offset);
                prop_assert_eq!(location, location_at(bytes, offset));
                prop_assert_eq!(lines.offset(location), Some(offset));
            }
        }
    }
}
