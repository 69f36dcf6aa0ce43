//! Where some nodes of a document start, noted while it is read, so that
//! its findings are located from there rather than by a walk from the
//! document's start: a finding inside message 5,000 of a RunAgentInput is
//! found by walking message 5,000 alone.

/// An element the reading could not place (its first key was written
/// with escapes, so it was not borrowed from the text).
const UNKNOWN: u32 = u32::MAX;

/// The starts of the elements of some arrays of one document, by the
/// pointer of each array (`/messages`, `/tools`).
#[derive(Debug)]
pub(crate) struct Anchors<'d> {
    document: &'d [u8],
    /// Per array: its pointer and each element's offset ([`UNKNOWN`] when
    /// not known). Offsets are 32-bit: a document past 4 GiB is located
    /// by the walk from its start.
    lists: Vec<(&'static str, Vec<u32>)>,
}

impl<'d> Anchors<'d> {
    /// No anchors yet, for `document`.
    pub(crate) fn new(document: &'d [u8]) -> Self {
        Anchors {
            document,
            lists: Vec::new(),
        }
    }

    /// Notes element `index` of the array at `list`: an object whose first
    /// key's text starts at address `first_key` (0 when that key was not
    /// borrowed from the document).
    pub(crate) fn note_object(&mut self, list: &'static str, index: usize, first_key: usize) {
        let start = self.object_start(first_key).unwrap_or(UNKNOWN);
        let starts = match self.lists.iter_mut().position(|(at, _)| *at == list) {
            Some(found) => &mut self.lists[found].1,
            None => {
                self.lists.push((list, Vec::new()));
                let last = self.lists.len() - 1;
                &mut self.lists[last].1
            }
        };
        if index >= starts.len() {
            starts.resize(index + 1, UNKNOWN);
        }
        starts[index] = start;
    }

    /// Where the object whose first key's text starts at address
    /// `first_key` starts in the document: the `{` before the key's
    /// opening quote, only whitespace between.
    fn object_start(&self, first_key: usize) -> Option<u32> {
        let offset = first_key.checked_sub(self.document.as_ptr() as usize)?;
        let quote = offset.checked_sub(1)?;
        if self.document.get(quote) != Some(&b'"') {
            return None;
        }
        let before = &self.document[..quote];
        let brace = before
            .iter()
            .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))?;
        if before[brace] != b'{' {
            return None;
        }
        u32::try_from(brace).ok().filter(|&at| at != UNKNOWN)
    }

    /// The offset of the deepest noted element `pointer` lies in, and the
    /// rest of the pointer below it; `None` when no noted element holds it.
    pub(crate) fn anchor<'p>(&self, pointer: &'p str) -> Option<(usize, &'p str)> {
        self.lists.iter().find_map(|(list, starts)| {
            let below = pointer.strip_prefix(list)?.strip_prefix('/')?;
            let end = below.find('/').unwrap_or(below.len());
            let index: usize = below[..end].parse().ok()?;
            let start = *starts.get(index)?;
            (start != UNKNOWN).then_some((start as usize, &below[end..]))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_anchored_at_their_opening_brace() {
        let text = br#"{"messages": [ {"id": "a"},
            {  "id": "b"}], "tools": [{"name": "t"}]}"#;
        let address = |needle: &str| {
            let at = text
                .windows(needle.len())
                .position(|w| w == needle.as_bytes())
                .unwrap();
            text.as_ptr() as usize + at + 1
        };
        let mut anchors = Anchors::new(text);
        anchors.note_object("/messages", 1, address(r#""id": "b""#));
        anchors.note_object("/messages", 0, address(r#""id": "a""#));
        anchors.note_object("/tools", 0, address(r#""name""#));
        // A key not borrowed from the text, and one that is not a first key.
        anchors.note_object("/tools", 1, 0);
        anchors.note_object("/tools", 2, address(r#""t""#));
        let (first, rest) = anchors.anchor("/messages/0/id").unwrap();
        assert_eq!((&text[first..first + 3], rest), (&br#"{"i"#[..], "/id"));
        let (second, rest) = anchors.anchor("/messages/1").unwrap();
        assert_eq!((text[second], rest), (b'{', ""));
        assert!(anchors.anchor("/tools/0/name").is_some());
        for unplaced in [
            "/tools/1",
            "/tools/2/name",
            "/tools/3",
            "/messagesx/0",
            "/threadId",
            "",
        ] {
            assert_eq!(anchors.anchor(unplaced), None, "{unplaced}");
        }
    }
}
