//! Maps a JSON pointer to a line and column in the source text.
//!
//! Only documents with something to report pay for this: the text is parsed
//! a second time, by `jsonc-parser` in strict JSON mode, into a syntax tree
//! that keeps the byte range of every key and value.

use jsonc_parser::ast::{ObjectProp, Value as Node};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};

use crate::diagnostic::{Location, Target};
use crate::pointer;

/// Answers "where is this pointer?" for one source text.
pub struct Locator<'t> {
    text: &'t str,
    root: Option<Node<'t>>,
}

impl<'t> Locator<'t> {
    /// Builds the syntax tree of `text`. A text that is not strict JSON has
    /// no tree; every pointer then maps to the start of the text.
    pub fn new(text: &'t str) -> Self {
        let strict = ParseOptions {
            allow_comments: false,
            allow_loose_object_property_names: false,
            allow_trailing_commas: false,
            allow_missing_commas: false,
            allow_single_quoted_strings: false,
            allow_hexadecimal_numbers: false,
            allow_unary_plus_numbers: false,
            allow_bare_decimal_point_numbers: false,
            allow_non_finite_numbers: false,
            allow_extended_string_escapes: false,
        };
        let collect = CollectOptions {
            comments: CommentCollectionStrategy::Off,
            tokens: false,
        };
        let root = jsonc_parser::parse_to_ast(text, &collect, &strict)
            .ok()
            .and_then(|r| r.value);
        Locator { text, root }
    }

    /// Where the node at `pointer` is, or the nearest ancestor that exists.
    pub fn locate(&self, at: &str, target: Target) -> Location {
        let offset = self.offset_of(at, target).unwrap_or(0);
        location_at(self.text.as_bytes(), offset)
    }

    /// The byte offset where the node at `pointer` starts (see
    /// [`Self::locate`]).
    pub fn offset(&self, at: &str, target: Target) -> usize {
        self.offset_of(at, target).unwrap_or(0)
    }

    fn offset_of(&self, at: &str, target: Target) -> Option<usize> {
        let mut node = self.root.as_ref()?;
        let tokens: Vec<String> = pointer::tokens(at).collect();
        let mut offset = node.start();
        for (i, token) in tokens.iter().enumerate() {
            let is_last = i + 1 == tokens.len();
            match node {
                Node::Object(object) => {
                    let repetition = match target {
                        Target::RepeatedKey(n) if is_last => Some(n),
                        _ => None,
                    };
                    let Some(prop) = find_property(&object.properties, token, repetition) else {
                        return Some(offset);
                    };
                    if is_last && target != Target::Value {
                        return Some(prop.name.start());
                    }
                    node = &prop.value;
                }
                Node::Array(array) => {
                    let Some(element) = token
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| array.elements.get(i))
                    else {
                        return Some(offset);
                    };
                    node = element;
                }
                _ => return Some(offset),
            }
            offset = node.start();
        }
        Some(offset)
    }
}

/// The property named `name`: its `n`-th repetition when asked, else the
/// last occurrence, which is the one whose value the parser kept.
fn find_property<'a, 't>(
    properties: &'a [ObjectProp<'t>],
    name: &str,
    repetition: Option<usize>,
) -> Option<&'a ObjectProp<'t>> {
    let mut matching = properties.iter().filter(|p| p.name.as_str() == name);
    match repetition {
        Some(n) => matching.nth(n),
        None => matching.next_back(),
    }
}

/// The line and column of byte `offset` in `bytes`. Columns count characters
/// (UTF-8 lead bytes), and invalid UTF-8 still gets a position.
pub fn location_at(bytes: &[u8], offset: usize) -> Location {
    let offset = offset.min(bytes.len());
    let before = &bytes[..offset];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before[line_start..]
        .iter()
        .filter(|&&b| (b & 0xC0) != 0x80)
        .count()
        + 1;
    Location { line, column }
}

/// The byte offset of a 1-based line and 1-based byte column, as serde_json
/// reports a syntax error, clamped to the text.
pub fn offset_of_line_column(bytes: &[u8], line: usize, byte_column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(i) => start += i + 1,
            None => return bytes.len(),
        }
    }
    (start + byte_column.saturating_sub(1)).min(bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "{\n  \"a\": [1, {\"é\": \"x\", \"b\": true}],\n  \"c\": 1,\n  \"c\": 2\n}";

    fn at(pointer: &str, target: Target) -> (usize, usize) {
        let l = Locator::new(TEXT).locate(pointer, target);
        (l.line, l.column)
    }

    #[test]
    fn locates_values_and_keys() {
        assert_eq!(at("", Target::Value), (1, 1));
        assert_eq!(at("/a", Target::Value), (2, 8));
        assert_eq!(at("/a", Target::Key), (2, 3));
        assert_eq!(at("/a/1/b", Target::Value), (2, 28));
        assert_eq!(at("/a/1/b", Target::Key), (2, 23));
    }

    #[test]
    fn repeated_keys_map_to_the_last_occurrence_unless_asked() {
        assert_eq!(at("/c", Target::Value), (4, 8));
        assert_eq!(at("/c", Target::RepeatedKey(1)), (4, 3));
        assert_eq!(at("/c", Target::RepeatedKey(0)), (3, 3));
    }

    #[test]
    fn missing_nodes_fall_back_to_the_nearest_ancestor() {
        assert_eq!(at("/a/7/x", Target::Value), (2, 8));
        assert_eq!(at("/nope", Target::Value), (1, 1));
    }

    #[test]
    fn converts_byte_positions() {
        let bytes = "ab\né\u{e9}x".as_bytes();
        let offset = offset_of_line_column(bytes, 2, 5);
        assert_eq!(location_at(bytes, offset), Location { line: 2, column: 3 });
        assert_eq!(
            location_at(b"\xff\xfe{", 2),
            Location { line: 1, column: 3 }
        );
    }
}
