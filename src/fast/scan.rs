//! The common event read by a scanner of its own: an object whose keys
//! have no escapes, with `type` first, whose members are strings, integers,
//! booleans and values the slot table checks from their text.
//!
//! Events are small and flat, and most of their members are short
//! strings: through serde, each key and value costs a visitor call and a
//! string scan, which made reading an event cost as much as parsing it
//! into a `Value`. This scanner steps over the bytes once. It vouches only
//! for what it reads fully; anything else (an escaped key, a number where
//! an integer is expected in another spelling, broken JSON) makes it give
//! up, and the serde reader in `event.rs`, which stays the reference for
//! what the fast path accepts, reads the event instead. Nested values are
//! only measured here: [`slot::fits`] reads each one as serde does.

use std::borrow::Cow;

use super::borrowed::Str;
use super::members::{Event, Member, Members};
use super::slot::{self, Keys, Slot};

/// The event `text` holds, if the scanner can vouch that it fits the
/// shape `shape_of` gives its `type` with nothing for the parse layer to
/// report; `None` when it cannot (the serde reader then decides).
pub(super) fn event<'a, 's>(
    text: &'a str,
    shape_of: impl FnOnce(&str) -> Option<&'s Keys>,
) -> Option<Event<'a>> {
    let mut scanner = Scanner { text, at: 0 };
    scanner.skip_whitespace();
    scanner.expect(b'{')?;
    scanner.skip_whitespace();
    if scanner.key()? != "type" {
        return None;
    }
    scanner.colon()?;
    let kind = scanner.string()?;
    let shape = shape_of(kind.as_str())?;
    let mut members = Members::default();
    let mut seen = 0u64;
    loop {
        scanner.skip_whitespace();
        match scanner.next()? {
            b'}' => break,
            b',' => scanner.skip_whitespace(),
            _ => return None,
        }
        let (key, slot) = match scanner.known_key(shape) {
            Some((index, key)) => (key, shape.mark(index, &mut seen).ok()?),
            None => {
                let key = scanner.key()?;
                (key, shape.slot_of(key, &mut seen).ok()??)
            }
        };
        scanner.colon()?;
        let member = match slot {
            Slot::Str | Slot::StrOrRicher | Slot::StrIn(_) | Slot::Pointer => {
                let text = scanner.string()?;
                if !slot::fits_str(slot, text.as_str()) {
                    return None;
                }
                Member::Str(text)
            }
            Slot::Richer => return None,
            _ => {
                let text = match slot {
                    Slot::Integer { .. } => scanner.integer()?,
                    _ => scanner.value()?,
                };
                if !slot::fits(slot, text) {
                    return None;
                }
                Member::Text(text)
            }
        };
        members.push((Str(Cow::Borrowed(key)), member));
    }
    scanner.skip_whitespace();
    if scanner.at != text.len() || !shape.has_required(seen) {
        return None;
    }
    Some(Event { kind, members })
}

/// A position in an event's text.
struct Scanner<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.next()? == byte).then_some(())
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// The index in `shape` of the key here, spelled plainly, and its
    /// text; `None`, and nothing read, when it is not one of them.
    fn known_key(&mut self, shape: &Keys) -> Option<(usize, &'a str)> {
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.at + 1;
        let index = shape.key_at_start(self.text.as_bytes().get(start..)?)?;
        let end = start + shape.name(index).len();
        let key = self.text.get(start..end)?;
        self.at = end + 1;
        Some((index, key))
    }

    /// A key without escapes.
    fn key(&mut self) -> Option<&'a str> {
        self.expect(b'"')?;
        let start = self.at;
        let length = string_stop(&self.text.as_bytes()[start..])?;
        self.at += length;
        self.expect(b'"')?;
        self.text.get(start..start + length)
    }

    /// The `:` after a key, with the whitespace around it.
    fn colon(&mut self) -> Option<()> {
        self.skip_whitespace();
        self.expect(b':')?;
        self.skip_whitespace();
        Some(())
    }

    /// A string: borrowed when it has no escapes, decoded by serde_json
    /// (which refuses a broken escape or a lone surrogate) when it has.
    fn string(&mut self) -> Option<Str<'a>> {
        let (quoted, escaped) = self.string_text()?;
        if escaped {
            return serde_json::from_str(quoted).ok();
        }
        quoted
            .get(1..quoted.len() - 1)
            .map(|text| Str(Cow::Borrowed(text)))
    }

    /// The text of a string, quotes included, with no control character
    /// in it (which JSON refuses unescaped), and whether it has escapes.
    fn string_text(&mut self) -> Option<(&'a str, bool)> {
        let start = self.at;
        let mut escaped = false;
        self.expect(b'"')?;
        loop {
            let length = string_stop(&self.text.as_bytes()[self.at..])?;
            self.at += length;
            match self.next()? {
                b'"' => break,
                // The escaped character is checked when the string is
                // decoded; here it only must not end the string.
                b'\\' => {
                    escaped = true;
                    self.next()?;
                }
                _ => return None,
            }
        }
        Some((self.text.get(start..self.at)?, escaped))
    }

    /// The text of an integer spelled as JSON spells one: no fraction,
    /// no exponent, no leading zero. [`slot::fits`] then tells its value
    /// from this text alone, which it can only for such a spelling.
    fn integer(&mut self) -> Option<&'a str> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        let rest = self.text.as_bytes().get(self.at..)?;
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let leading_zero = digits > 1 && rest.first() == Some(&b'0');
        self.at += digits;
        if digits == 0 || leading_zero || matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.text.get(start..self.at)
    }

    /// The text of any value, measured without being checked: strings
    /// and brackets matched, a scalar up to what ends it. [`slot::fits`]
    /// then reads exactly this text as one value, which checks it.
    fn value(&mut self) -> Option<&'a str> {
        let start = self.at;
        match self.peek()? {
            b'"' => {
                self.string_text()?;
            }
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match self.peek()? {
                        b'"' => {
                            self.string_text()?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.at += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.at += 1;
                }
            }
            _ => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
                ) {
                    self.at += 1;
                }
            }
        }
        self.text.get(start..self.at)
    }
}

/// Where in `bytes` the first `"`, `\\` or control character is: what
/// ends a string's plain run. Looked for eight bytes at a time, as
/// serde_json looks for the end of a string: in each byte of a word, the
/// high bit of `x - 1` without the high bit of `x` is set where `x` is 0,
/// and the lowest such bit is never a false one.
fn string_stop(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_in = |word: u64| word.wrapping_sub(ONES) & !word;
    let mut words = bytes.chunks_exact(8);
    let mut at = 0;
    for word in words.by_ref() {
        let mut eight = [0u8; 8];
        eight.copy_from_slice(word);
        let word = u64::from_le_bytes(eight);
        let found = (zero_in(word ^ (ONES * u64::from(b'"')))
            | zero_in(word ^ (ONES * u64::from(b'\\')))
            | (word.wrapping_sub(ONES * 0x20) & !word))
            & HIGH;
        if found != 0 {
            return Some(at + (found.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let rest = words.remainder();
    rest.iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .map(|i| at + i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast::event::EventShapes;
    use crate::{schema, Kind, Protocol};

    fn shapes() -> &'static EventShapes {
        static SHAPES: std::sync::LazyLock<EventShapes> = std::sync::LazyLock::new(|| {
            let schema = schema::generate(Protocol::V1_1, Kind::Event).expect("event schema");
            EventShapes::of_schema(&schema)
        });
        &SHAPES
    }

    /// Events whose edits the scanner must read as the serde reader does.
    const SAMPLES: [&str; 6] = [
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m-1","delta":"a \"b\" \u00e9","timestamp":1764547200001}"#,
        r#"{"type":"TOOL_CALL_ARGS","toolCallId":"c","delta":"{\"city\": \"Oslo\"}"}"#,
        r#"{ "type": "STATE_DELTA", "delta": [ {"op":"replace","path":"/a~1b","value":[1,-2.5e3,null]} ] }"#,
        r#"{"type":"CUSTOM","name":"n","value":{"k":[true,false,{"x":"]"}]},"timestamp":-12}"#,
        r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"m","activityType":"plan","content":{"s":1},"replace":true}"#,
        r#"{"type":"RUN_ERROR","message":"boom","code":"E1"}"#,
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        #[test]
        fn edited_events_are_read_as_the_serde_reader_reads_them_or_left_to_it(
            sample in 0..SAMPLES.len(),
            at in 0usize..200,
            operation in 0u8..3,
            byte in proptest::sample::select(b"\"\\{}[],: \t0123456789-+.eEaflnrtu\x1f".to_vec()),
        ) {
            let mut bytes = SAMPLES[sample].as_bytes().to_vec();
            let at = at % (bytes.len() + 1);
            match operation {
                0 => bytes.insert(at, byte),
                1 if at < bytes.len() => bytes[at] = byte,
                _ if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => bytes.push(byte),
            }
            let text = String::from_utf8(bytes).expect("ASCII edits of UTF-8");
            let shapes = shapes();
            if let Some(read) = scanned(shapes, &text) {
                let reference = shapes.read_with_serde(&text).map(|e| format!("{e:?}"));
                proptest::prop_assert_eq!(Some(read), reference, "{}", text);
            }
        }
    }

    /// What the scanner makes of `text`, as the event's members.
    fn scanned(shapes: &EventShapes, text: &str) -> Option<String> {
        event(text, |kind| shapes.shape(kind)).map(|event| format!("{event:?}"))
    }

    #[test]
    fn string_stops_are_found_in_every_position() {
        for length in 0..40 {
            for stop in [b'"', b'\\', b'\n', 0x00, 0x1f] {
                for at in 0..=length {
                    let mut bytes = vec![b'a'; length];
                    // Bytes that look like stops to a careless word trick.
                    for (i, b) in bytes.iter_mut().enumerate() {
                        *b = [b'a', 0x20, 0x21, 0x23, 0x5b, 0x5d, 0xc3, 0xa9, 0xff][i % 9];
                    }
                    let expected = (at < length).then_some(at);
                    if at < length {
                        bytes[at] = stop;
                        // A second stop after the first changes nothing.
                        if at + 1 < length {
                            bytes[at + 1] = b'"';
                        }
                    }
                    assert_eq!(string_stop(&bytes), expected, "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn reads_common_events_as_the_serde_reader_does() {
        let shapes = shapes();
        for text in [
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":1}"#,
            r#" { "type" : "TEXT_MESSAGE_CONTENT" , "messageId" : "m" , "delta" : "a\"b\n" } "#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"é \u00e9","timestamp":-0}"#,
            r#"{"type":"STATE_SNAPSHOT","snapshot":{"a":[1,null,"]}"],"b":{}}}"#,
            r#"{"type":"STATE_DELTA","delta":[{"op":"add","path":"/a","value":1}]}"#,
            r#"{"type":"ACTIVITY_SNAPSHOT","messageId":"m","activityType":"a","content":{},"replace":false}"#,
            r#"{"type":"CUSTOM","name":"n","value":null}"#,
            r#"{"type":"CUSTOM","name":"n","value":1.5e3}"#,
        ] {
            let read = scanned(shapes, text);
            assert!(read.is_some(), "{text}");
            let reference = shapes.read_with_serde(text).map(|e| format!("{e:?}"));
            assert_eq!(read, reference, "{text}");
        }
    }

    #[test]
    fn gives_up_on_what_it_cannot_vouch_for() {
        let shapes = shapes();
        // What neither reads, and what the scanner alone must refuse as it
        // measures: broken strings, brackets and literals.
        let broken = [
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":1e3}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":01}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":+1}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\x"}"#,
            "{\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"a\tb\"}",
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi",}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi""#,
            r#"{"type":"CUSTOM","name":"n","value":{"a":1}}}"#,
            r#"{"type":"CUSTOM","name":"n","value":tru}"#,
            r#"{"type":"CUSTOM","name":"n","value":[1,}"#,
        ];
        for &text in crate::fast::event::tests::REFUSED.iter().chain(&broken) {
            assert_eq!(scanned(shapes, text), None, "{text}");
            assert!(shapes.read_with_serde(text).is_none(), "{text}");
        }
        // An escaped key is left to the serde reader, which reads it.
        let escaped_key = r#"{"type":"TEXT_MESSAGE_CONTENT","message\u0049d":"m","delta":"hi"}"#;
        assert_eq!(scanned(shapes, escaped_key), None);
        assert!(shapes.read(escaped_key.as_bytes()).is_some());
    }
}
