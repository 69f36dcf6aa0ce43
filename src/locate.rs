//! Maps a JSON pointer to a line and column in the source text.
//!
//! Only documents with something to report pay for this. The text is
//! known to be JSON (it parsed), so the locator does not build a tree: it
//! walks the bytes along the pointer's path, skipping every other value
//! (strings at memory speed with `memchr`), and stops at the node.

// foldhash: seeded per process, so keys a client chooses cannot collide at
// will, and several times faster than SipHash on short keys.
use foldhash::{HashMap, HashMapExt};

use memchr::{memchr2, memchr_iter, memrchr};

mod anchors;

pub(crate) use anchors::Anchors;

use crate::diagnostic::{Location, Target};
use crate::pointer;

/// Answers "where is this pointer?" for one source text.
pub struct Locator<'t> {
    bytes: &'t [u8],
    /// Whether an object may hold a key twice; when not, the first match
    /// is the only one and the rest of the object need not be read.
    keys_repeat: bool,
}

impl<'t> Locator<'t> {
    /// A locator over `text`, which may repeat keys within an object (the
    /// node of a repeated key is its last occurrence, which is the one a
    /// parser keeps).
    pub fn new(text: &'t str) -> Self {
        Locator {
            bytes: text.as_bytes(),
            keys_repeat: true,
        }
    }

    /// A locator over `text` known to repeat no key within an object.
    pub fn with_unique_keys(text: &'t str) -> Self {
        Locator {
            bytes: text.as_bytes(),
            keys_repeat: false,
        }
    }

    /// A locator over `bytes`, text a JSON parser has read (and so UTF-8),
    /// which repeats keys within an object when `keys_repeat`.
    pub(crate) fn over_parsed(bytes: &'t [u8], keys_repeat: bool) -> Self {
        Locator { bytes, keys_repeat }
    }

    /// Where the node at `pointer` is, or the nearest ancestor that exists.
    pub fn locate(&self, at: &str, target: Target) -> Location {
        location_at(self.bytes, self.offset(at, target))
    }

    /// The byte offset where the node at `pointer` starts (see
    /// [`Self::locate`]).
    pub fn offset(&self, at: &str, target: Target) -> usize {
        self.offset_from(skip_whitespace(self.bytes, 0), at, target)
    }

    /// [`Self::offset`] of a pointer relative to the value at `root`.
    pub(crate) fn offset_from(&self, root: usize, at: &str, target: Target) -> usize {
        let bytes = self.bytes;
        let mut node = root;
        let mut tokens = pointer::tokens(at).peekable();
        while let Some(token) = tokens.next() {
            let token = token.as_str();
            let is_last = tokens.peek().is_none();
            let found = match bytes.get(node) {
                Some(b'{') => {
                    let repetition = match target {
                        Target::RepeatedKey(n) if is_last => Some(n),
                        _ => None,
                    };
                    self.member(node, token, repetition)
                        .map(|(key, value)| match target {
                            Target::Value => value,
                            _ if is_last => key,
                            _ => value,
                        })
                }
                Some(b'[') => token
                    .parse::<usize>()
                    .ok()
                    .and_then(|index| element(bytes, node, index)),
                _ => None,
            };
            match found {
                Some(next) => node = next,
                None => return node,
            }
        }
        node
    }

    /// The byte offsets of many nodes (as [`Self::offset`] finds each), in
    /// the order asked, found in one walk over the text: the pointers are
    /// gathered into a tree and the walk enters only the values that lead
    /// to one of them, skipping every other value once. Locating the
    /// findings of a document costs one pass however many there are.
    pub fn offsets(&self, requests: &[(&str, Target)]) -> Vec<usize> {
        self.offsets_from(skip_whitespace(self.bytes, 0), requests)
    }

    /// [`Self::offsets`] of pointers relative to the value at `root`, an
    /// element the reading of the document placed ([`Anchors`]): only that
    /// value is walked.
    pub(crate) fn offsets_from(&self, root: usize, requests: &[(&str, Target)]) -> Vec<usize> {
        let mut tree = Wanted::default();
        for (i, (at, target)) in requests.iter().enumerate() {
            let mut node = &mut tree;
            for token in pointer::tokens(at) {
                node.below.push(i);
                node = node.children.entry(token).or_default();
            }
            node.below.push(i);
            match *target {
                Target::RepeatedKey(n) => node.repeated.entry(n).or_default().push(i),
                target => node.here.push((i, target)),
            }
        }
        let mut found = Found {
            exact: vec![None; requests.len()],
            nearest: vec![0; requests.len()],
        };
        for &(i, _) in &tree.here {
            found.exact[i] = Some(root);
        }
        for &i in &tree.below {
            found.nearest[i] = root;
        }
        self.walk(root, &tree, &mut found);
        // What the walk did not reach (a node the text does not have) falls
        // back to its nearest ancestor, as one pointer at a time does; the
        // walk noted it on its way.
        found
            .exact
            .into_iter()
            .zip(found.nearest)
            .map(|(exact, nearest)| exact.unwrap_or(nearest))
            .collect()
    }

    /// Records, under the value at `at`, the nodes `wanted` asks for.
    fn walk(&self, at: usize, wanted: &Wanted, found: &mut Found) {
        if wanted.children.is_empty() {
            return;
        }
        match self.bytes.get(at) {
            Some(b'{') => self.walk_object(at, wanted, found),
            Some(b'[') => self.walk_array(at, wanted, found),
            _ => {}
        }
    }

    /// Enters `value`, the node of `child` (whose key, for an object
    /// member, is at `key`): what it asks for is found there, and it is the
    /// nearest node yet of every request below it. Each node is entered at
    /// most once: of a repeated key, only the latest occurrence.
    fn enter(&self, key: usize, value: usize, child: &Wanted, found: &mut Found) {
        for &i in &child.below {
            found.nearest[i] = value;
        }
        for &(i, target) in &child.here {
            found.exact[i] = Some(match target {
                Target::Value => value,
                _ => key,
            });
        }
        self.walk(value, child, found);
    }

    fn walk_object(&self, object: usize, wanted: &Wanted, found: &mut Found) {
        let bytes = self.bytes;
        let mut at = skip_whitespace(bytes, object + 1);
        if bytes.get(at) == Some(&b'}') {
            return;
        }
        // Per wanted key: how often it occurred, and where its latest
        // occurrence is. A key repeated n times costs n lookups; only its
        // latest occurrence (the one a parser keeps) is entered, once the
        // object is read.
        let mut seen: HashMap<&str, (usize, usize, usize)> = HashMap::new();
        loop {
            let key = at;
            let Some(key_end) = skip_string(bytes, key) else {
                break;
            };
            let colon = skip_whitespace(bytes, key_end);
            if bytes.get(colon) != Some(&b':') {
                break;
            }
            let value = skip_whitespace(bytes, colon + 1);
            if let Some((name, child)) = bytes
                .get(key..key_end)
                .and_then(|raw| wanted.child_named(raw))
            {
                let entry = seen.entry(name).or_insert((0, key, value));
                let occurrence = entry.0;
                if let Some(requests) = child.repeated.get(&occurrence) {
                    for &i in requests {
                        found.exact[i] = Some(key);
                    }
                }
                entry.0 += 1;
                if self.keys_repeat {
                    (entry.1, entry.2) = (key, value);
                } else if occurrence == 0 {
                    // Keys are unique: the first occurrence is the only one.
                    self.enter(key, value, child, found);
                }
            }
            let Some(end) = skip_value(bytes, value) else {
                break;
            };
            let after = skip_whitespace(bytes, end);
            match bytes.get(after) {
                Some(b',') => at = skip_whitespace(bytes, after + 1),
                _ => break,
            }
        }
        if self.keys_repeat {
            for (name, (_, key, value)) in seen {
                if let Some(child) = wanted.children.get(name) {
                    self.enter(key, value, child, found);
                }
            }
        }
    }

    fn walk_array(&self, array: usize, wanted: &Wanted, found: &mut Found) {
        let bytes = self.bytes;
        let mut indices: Vec<(usize, &Wanted)> = wanted
            .children
            .iter()
            .filter_map(|(token, child)| Some((token.parse::<usize>().ok()?, child)))
            .collect();
        indices.sort_unstable_by_key(|(index, _)| *index);
        let mut at = skip_whitespace(bytes, array + 1);
        if bytes.get(at) == Some(&b']') {
            return;
        }
        let mut index = 0;
        for (wanted_index, child) in indices {
            // Elements before the next wanted one are skipped, each once.
            while index < wanted_index {
                let Some(end) = skip_value(bytes, at) else {
                    return;
                };
                let after = skip_whitespace(bytes, end);
                if bytes.get(after) != Some(&b',') {
                    return;
                }
                at = skip_whitespace(bytes, after + 1);
                index += 1;
            }
            self.enter(at, at, child, found);
        }
    }

    /// The key and value offsets of the member named `name` of the object
    /// at `object`: its `repetition`-th occurrence when asked, else the last.
    fn member(
        &self,
        object: usize,
        name: &str,
        repetition: Option<usize>,
    ) -> Option<(usize, usize)> {
        let bytes = self.bytes;
        let mut at = skip_whitespace(bytes, object + 1);
        let mut seen = 0;
        let mut last = None;
        if bytes.get(at) == Some(&b'}') {
            return None;
        }
        loop {
            let key = at;
            let key_end = skip_string(bytes, key)?;
            let colon = skip_whitespace(bytes, key_end);
            if bytes.get(colon) != Some(&b':') {
                return last;
            }
            let value = skip_whitespace(bytes, colon + 1);
            if key_is(bytes.get(key..key_end)?, name) {
                if repetition == Some(seen) {
                    return Some((key, value));
                }
                seen += 1;
                last = Some((key, value));
                if !self.keys_repeat && repetition.is_none() {
                    return last;
                }
            }
            let after = skip_whitespace(bytes, skip_value(bytes, value)?);
            match bytes.get(after) {
                Some(b',') => at = skip_whitespace(bytes, after + 1),
                _ => return if repetition.is_some() { None } else { last },
            }
        }
    }
}

/// The pointers to locate, as a tree of their tokens.
#[derive(Debug, Default)]
struct Wanted {
    /// The nodes one token further down.
    children: HashMap<String, Wanted>,
    /// The requests for this node's value or key: their indices and
    /// targets.
    here: Vec<(usize, Target)>,
    /// The requests for the n-th occurrence of this node's key, by n.
    repeated: HashMap<usize, Vec<usize>>,
    /// Every request at or below this node.
    below: Vec<usize>,
}

/// What a walk has found of each request: the node itself, once reached,
/// and the nearest ancestor reached so far.
struct Found {
    exact: Vec<Option<usize>>,
    nearest: Vec<usize>,
}

impl Wanted {
    /// The child named by the quoted key `raw`, with its name.
    fn child_named(&self, raw: &[u8]) -> Option<(&str, &Wanted)> {
        let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
        let entry = if inner.contains(&b'\\') {
            let key = serde_json::from_slice::<String>(raw).ok()?;
            self.children.get_key_value(key.as_str())
        } else {
            self.children
                .get_key_value(std::str::from_utf8(inner).ok()?)
        };
        entry.map(|(name, child)| (name.as_str(), child))
    }
}

/// The offset of element `index` of the array at `array`.
fn element(bytes: &[u8], array: usize, index: usize) -> Option<usize> {
    let mut at = skip_whitespace(bytes, array + 1);
    if bytes.get(at) == Some(&b']') {
        return None;
    }
    for _ in 0..index {
        let after = skip_whitespace(bytes, skip_value(bytes, at)?);
        if bytes.get(after) != Some(&b',') {
            return None;
        }
        at = skip_whitespace(bytes, after + 1);
    }
    Some(at)
}

/// Whether the quoted key `raw` (quotes included) is `name`. Keys with
/// escapes are decoded; the others are compared as they are.
fn key_is(raw: &[u8], name: &str) -> bool {
    let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
    if !inner.contains(&b'\\') {
        return inner == name.as_bytes();
    }
    serde_json::from_slice::<String>(raw).is_ok_and(|key| key == name)
}

/// The offset after any JSON whitespace at `at`.
pub(crate) fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while bytes
        .get(at)
        .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        at += 1;
    }
    at
}

/// The offset just after the string starting at `at` (its opening quote).
pub(crate) fn skip_string(bytes: &[u8], at: usize) -> Option<usize> {
    if bytes.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        let found = i + memchr2(b'"', b'\\', bytes.get(i..)?)?;
        if bytes.get(found) == Some(&b'"') {
            return Some(found + 1);
        }
        // A backslash escapes the next byte (for \uXXXX, the `u`).
        i = found + 2;
    }
}

/// Where the value of the member `name` of the object at `object` starts
/// in `bytes` (JSON): its last occurrence, the one a parser keeps.
pub(crate) fn member_value(bytes: &[u8], object: usize, name: &str) -> Option<usize> {
    let text = std::str::from_utf8(bytes).ok()?;
    Locator::new(text)
        .member(object, name, None)
        .map(|(_, value)| value)
}

/// The offset just after the value starting at `at`, without recursion.
pub(crate) fn skip_value(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => skip_string(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            loop {
                match bytes.get(i)? {
                    b'"' => {
                        i = skip_string(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            // A number or a literal: up to the next delimiter.
            let mut i = at;
            while bytes
                .get(i)
                .is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
            {
                i += 1;
            }
            Some(i)
        }
    }
}

/// The line and column of byte `offset` in `bytes`. Columns count characters
/// (UTF-8 lead bytes), and invalid UTF-8 still gets a position.
pub fn location_at(bytes: &[u8], offset: usize) -> Location {
    // Where every event of a capture starts, asked once an event.
    if offset == 0 {
        return Location { line: 1, column: 1 };
    }
    let offset = offset.min(bytes.len());
    let before = &bytes[..offset];
    let line_start = memrchr(b'\n', before).map_or(0, |i| i + 1);
    let line = memchr_iter(b'\n', before).count() + 1;
    let column = char_count(&before[line_start..]) + 1;
    Location { line, column }
}

/// The line and column of each of `offsets` in `bytes`, in the order
/// given, found in one pass over the text however many there are.
pub fn locations_at(bytes: &[u8], offsets: &[usize]) -> Vec<Location> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    let mut found = vec![Location { line: 1, column: 1 }; offsets.len()];
    // Where the walk is: a byte offset, its line, and its column.
    let (mut at, mut line, mut column) = (0usize, 1usize, 1usize);
    for i in order {
        let target = offsets[i].min(bytes.len());
        let between = &bytes[at..target];
        match memrchr(b'\n', between) {
            Some(last) => {
                line += memchr_iter(b'\n', between).count();
                column = 1 + char_count(&between[last + 1..]);
            }
            None => column += char_count(between),
        }
        at = target;
        found[i] = Location { line, column };
    }
    found
}

/// Characters (UTF-8 lead bytes) in `bytes`: one count serves valid and
/// broken text alike, without checking it first.
pub(crate) fn char_count(bytes: &[u8]) -> usize {
    bytecount::num_chars(bytes)
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
    fn strings_with_brackets_quotes_and_escapes_are_skipped() {
        let text = r#"{"a\u0062": "x}]\"[{", "s": ["[", {"k": "\\"}, 3], "t": -1.5e3, "u": null}"#;
        let locator = Locator::new(text);
        let offset = |p: &str| locator.offset(p, Target::Value);
        assert_eq!(&text[offset("/ab")..offset("/ab") + 3], r#""x}"#);
        assert_eq!(&text[offset("/s/1/k")..offset("/s/1/k") + 2], r#""\"#);
        assert_eq!(&text[offset("/s/2")..offset("/s/2") + 1], "3");
        assert_eq!(&text[offset("/t")..offset("/t") + 2], "-1");
        assert_eq!(&text[offset("/u")..offset("/u") + 4], "null");
        assert_eq!(offset("/s/3"), offset("/s"));
    }

    #[test]
    fn broken_text_never_panics() {
        for text in [
            "",
            "{",
            "{\"a\"",
            "{\"a\":",
            "[1,",
            "\"abc",
            "{\"a\":[{\"b\":\"\\",
            "}}]]",
        ] {
            let locator = Locator::new(text);
            for pointer in ["", "/a", "/a/0/b", "/0"] {
                let _ = locator.locate(pointer, Target::Value);
                let _ = locator.locate(pointer, Target::Key);
            }
        }
    }

    #[test]
    fn unique_keys_stop_at_the_first_match() {
        let text = "{\"a\": 1, \"a\": 2}";
        assert_eq!(
            Locator::with_unique_keys(text).offset("/a", Target::Value),
            6
        );
        assert_eq!(Locator::new(text).offset("/a", Target::Value), 14);
    }

    #[test]
    fn many_pointers_in_one_walk_agree_with_one_at_a_time() {
        let text = concat!(
            r#"{"a": [1, {"b": "x\"]}", "c": [true]}, 3], "d\u0065": {"e": null},"#,
            r#" "k": 1, "k": {"z": 2}, "s": "a/b", "": 0}"#
        );
        let requests = [
            ("", Target::Value),
            ("/a", Target::Value),
            ("/a", Target::Key),
            ("/a/1", Target::Value),
            ("/a/1/b", Target::Key),
            ("/a/1/c/0", Target::Value),
            ("/a/2", Target::Value),
            ("/a/7", Target::Value),
            ("/a/1/missing/deeper", Target::Value),
            ("/de/e", Target::Value),
            ("/de", Target::Key),
            ("/k", Target::Value),
            ("/k/z", Target::Value),
            ("/k", Target::RepeatedKey(0)),
            ("/k", Target::RepeatedKey(1)),
            ("/s", Target::Value),
            ("/", Target::Key),
            ("/nope", Target::Key),
        ];
        for locator in [Locator::new(text), Locator::with_unique_keys(text)] {
            let one_at_a_time: Vec<usize> = requests
                .iter()
                .map(|(at, target)| locator.offset(at, *target))
                .collect();
            assert_eq!(locator.offsets(&requests), one_at_a_time);
        }
        // Only text that parsed is located, but cut text never panics and
        // every answer is a place in it.
        for end in 0..text.len() {
            let Some(cut) = text.get(..end) else {
                continue;
            };
            let offsets = Locator::new(cut).offsets(&requests);
            assert!(offsets.iter().all(|&o| o <= cut.len()), "{cut}");
        }
    }

    #[test]
    fn many_locations_in_one_pass_agree_with_one_at_a_time() {
        let text = "ab\né\u{e9}x\n\n{\"k\": \"v\"}".as_bytes();
        let offsets = [9, 0, 3, 2, text.len(), 5, 9, 7];
        let expected: Vec<Location> = offsets.iter().map(|&o| location_at(text, o)).collect();
        assert_eq!(locations_at(text, &offsets), expected);
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Counted eight bytes at a time, characters are what a count byte
        /// by byte makes them, at every length and alignment, valid UTF-8
        /// or not.
        #[test]
        fn characters_are_counted_as_byte_by_byte(
            bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80),
            text in ".{0,40}",
        ) {
            let one_by_one = |b: &[u8]| b.iter().filter(|&&b| (b & 0xC0) != 0x80).count();
            for start in 0..bytes.len().min(9) {
                proptest::prop_assert_eq!(char_count(&bytes[start..]), one_by_one(&bytes[start..]));
            }
            proptest::prop_assert_eq!(char_count(text.as_bytes()), text.chars().count());
        }
    }
}
