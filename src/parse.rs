//! Bytes to a JSON value, noticing what `serde_json::Value` hides.
//!
//! A plain `serde_json::from_slice::<Value>` silently keeps the last of two
//! equal keys in one object; parsers disagree on which wins, so a repeated
//! key is reported (`duplicate-key`). The value is built by our own visitor,
//! which tracks the path so each repetition can be pointed at.
//!
//! `serde_json` also refuses a string with an unpaired UTF-16 surrogate
//! escape (`"\ud800"`), which JSON's grammar allows and the TypeScript SDK
//! accepts. Such a document is read a second time with each unpaired escape
//! replaced by `\ufffd`, and the escapes are reported (`lone-surrogate`)
//! rather than the whole document being `invalid-json`. Valid documents
//! never pay for this: it runs only after a failed parse.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

use crate::pointer;

/// A parsed document and what the parser noticed on the way.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The document, with the last of any repeated keys kept (as
    /// `serde_json` does).
    pub value: Value,
    /// Each repeated key: the pointer of the key and which repetition it is
    /// (1 for the second occurrence), the first [`Limit::keep`] of them.
    pub repeated_keys: Vec<(String, usize)>,
    /// How many more repeated keys there were, past the ones kept.
    pub more_repeated_keys: usize,
    /// Each unpaired UTF-16 surrogate escape, in document order, the first
    /// [`Limit::keep`] of them. In `value` each reads as U+FFFD.
    pub lone_surrogates: Vec<LoneSurrogate>,
    /// How many more unpaired escapes there were, past the ones kept.
    pub more_lone_surrogates: usize,
    /// Each number too large in magnitude for a double (`1e400`), in
    /// document order, the first [`Limit::keep`] of them. In `value` each
    /// reads as ±1e300, which is as far beyond every integer bound.
    pub out_of_range: Vec<OutOfRange>,
    /// How many more such numbers there were, past the ones kept.
    pub more_out_of_range: usize,
}

/// A number of the source text beyond the range of a double (RFC 8259
/// section 6 lets a parser refuse it; JavaScript reads it as `Infinity`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutOfRange {
    /// Byte offset of the number.
    pub offset: usize,
    /// Its length in bytes, as written.
    pub length: usize,
    /// Pointer of the number.
    pub pointer: String,
}

/// How many of each kind of thing the parser notices it records with its
/// pointer; past that it only counts, so that a document repeating a key a
/// million times costs a million counts, not a million pointers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// The most repeated keys, and the most unpaired escapes, recorded.
    pub keep: usize,
}

impl Limit {
    /// Every one recorded.
    pub const ALL: Limit = Limit { keep: usize::MAX };
}

/// An unpaired UTF-16 surrogate escape (`\ud800` without its `\udc00`, or
/// the other way round) in a string of the source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoneSurrogate {
    /// Byte offset of the escape's backslash; the escape is the six bytes
    /// from here.
    pub offset: usize,
    /// Pointer of the string holding the escape; for an object key, the
    /// pointer of that key's value.
    pub pointer: String,
    /// Whether the string is an object key rather than a value.
    pub in_key: bool,
}

/// What each unpaired surrogate escape is replaced with: U+FFFD, the
/// replacement character, in an escape of the same length, so that every
/// byte offset and line:column of the source stays valid for the copy.
const REPLACEMENT_ESCAPE: &[u8; 6] = b"\\ufffd";

/// Why bytes are not a JSON document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// What is wrong, as the parser says it.
    pub message: String,
    /// 1-based line of the offending byte.
    pub line: usize,
    /// 1-based byte column within the line, as the parser counts it.
    pub byte_column: usize,
}

/// Parses one JSON document, recording everything it notices.
pub fn parse(bytes: &[u8]) -> Result<Parsed, SyntaxError> {
    parse_within(bytes, Limit::ALL)
}

/// Parses one JSON document, recording what it notices within `limit`.
pub fn parse_within(bytes: &[u8], limit: Limit) -> Result<Parsed, SyntaxError> {
    parse_pruning(bytes, limit, &[], 0)
}

/// As [`parse_within`], with the members named in `prune` of the objects
/// `depth` levels down (0: the top-level object; 1: the objects of a
/// top-level array) read without keeping what they hold: each (an array or an
/// object) stands in the value as an empty one of its type. Everything
/// the parser notices inside them (repeated keys, unpaired escapes,
/// numbers beyond a double) is noticed as in a whole parse, with the same
/// pointers: the value's tree, 30 to 80 times the text it is built from,
/// is what is not made.
pub fn parse_pruning(
    bytes: &[u8],
    limit: Limit,
    prune: &[String],
    depth: usize,
) -> Result<Parsed, SyntaxError> {
    parse_pruning_to(bytes, limit, prune, depth, false)
}

/// [`parse_pruning`] with `unbounded` set: without serde_json's recursion
/// limit of 128 levels. The caller bounds the depth first (a scan that
/// does not recurse) and gives the parse a stack deep enough for it.
pub(crate) fn parse_pruning_to(
    bytes: &[u8],
    limit: Limit,
    prune: &[String],
    depth: usize,
    unbounded: bool,
) -> Result<Parsed, SyntaxError> {
    let state = State {
        keep: limit.keep,
        prune: prune.to_vec(),
        prune_depth: depth,
        unbounded,
        ..State::default()
    };
    match parse_with(bytes, state) {
        Ok(parsed) => Ok(parsed),
        Err(error) if is_surrogate_error(&error) || is_range_error(&error) => {
            parse_a_readable_copy(bytes, error, limit, (prune, depth), unbounded)
        }
        Err(error) => Err(error),
    }
}

fn parse_with(bytes: &[u8], mut state: State) -> Result<Parsed, SyntaxError> {
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    if state.unbounded {
        deserializer.disable_recursion_limit();
    }
    let result = ValueSeed { state: &mut state }
        .deserialize(&mut deserializer)
        .and_then(|value| deserializer.end().map(|()| value));
    match result {
        Ok(value) => {
            let (lone_surrogates, more_lone_surrogates) = state
                .lone
                .map(|lone| (lone.found, lone.more))
                .unwrap_or_default();
            let (out_of_range, more_out_of_range) = state
                .numbers
                .map(|numbers| (numbers.found, numbers.more))
                .unwrap_or_default();
            Ok(Parsed {
                value,
                repeated_keys: state.repeated,
                more_repeated_keys: state.more_repeated,
                lone_surrogates,
                more_lone_surrogates,
                out_of_range,
                more_out_of_range,
            })
        }
        Err(error) => Err(SyntaxError {
            message: strip_position(&error.to_string()),
            line: error.line(),
            byte_column: error.column(),
        }),
    }
}

/// Whether serde_json gave up on an unpaired surrogate: "lone leading
/// surrogate in hex escape" (also said of a lone trailing one), or
/// "unexpected end of hex escape" for a leading one followed by no escape.
fn is_surrogate_error(error: &SyntaxError) -> bool {
    error.message.contains("surrogate") || error.message.contains("end of hex escape")
}

/// Whether serde_json gave up on a number beyond the range of a double.
fn is_range_error(error: &SyntaxError) -> bool {
    error.message == "number out of range"
}

/// The second reading: unpaired escapes and numbers beyond a double's
/// range replaced by stand-ins of the same length, each remembered. Should
/// the copy still not parse, its error is the document's real syntax error
/// (at the same position, as the copy has the same length); should there
/// be nothing to replace after all, the first error stands.
fn parse_a_readable_copy(
    bytes: &[u8],
    first: SyntaxError,
    limit: Limit,
    (prune, depth): (&[String], usize),
    unbounded: bool,
) -> Result<Parsed, SyntaxError> {
    let lone = find_lone_surrogates(bytes);
    let numbers = find_out_of_range(bytes);
    if lone.is_empty() && numbers.is_empty() {
        return Err(first);
    }
    let mut copy = bytes.to_vec();
    for &(offset, _) in &lone {
        if let Some(escape) = copy.get_mut(offset..offset + REPLACEMENT_ESCAPE.len()) {
            escape.copy_from_slice(REPLACEMENT_ESCAPE);
        }
    }
    for number in &numbers {
        if let Some(text) = copy.get_mut(number.offset..number.offset + number.length) {
            stand_in(text);
        }
    }
    let state = State {
        keep: limit.keep,
        prune: prune.to_vec(),
        prune_depth: depth,
        unbounded,
        lone: (!lone.is_empty()).then(|| LoneTracker {
            wanted: lone,
            ..LoneTracker::default()
        }),
        numbers: (!numbers.is_empty()).then(|| NumberTracker {
            wanted: numbers,
            ..NumberTracker::default()
        }),
        ..State::default()
    };
    parse_with(&copy, state)
}

/// Overwrites `text`, a number beyond the range of a double, with ±1e300
/// and spaces (JSON allows whitespace after a value): the same length, so
/// every offset and line:column of the source stays valid for the copy.
fn stand_in(text: &mut [u8]) {
    let standing: &[u8] = if text.first() == Some(&b'-') {
        b"-1e300"
    } else {
        b"1e300"
    };
    // Overflowing takes at least 309 digits or an exponent of 309, so the
    // stand-in always fits.
    let Some((head, rest)) = text.split_at_mut_checked(standing.len()) else {
        return;
    };
    head.copy_from_slice(standing);
    rest.fill(b' ');
}

/// A number of the source that is beyond the range of a double: where it
/// is, how long, and its index among all the document's numbers.
#[derive(Debug, Clone, Default)]
struct Overflowing {
    offset: usize,
    length: usize,
    index: usize,
}

/// The numbers of `bytes` (outside strings) beyond the range of a double,
/// in document order, as the parser meets them.
fn find_out_of_range(bytes: &[u8]) -> Vec<Overflowing> {
    let mut found = Vec::new();
    let mut index = 0;
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        match byte {
            b'"' => match crate::locate::skip_string(bytes, i) {
                Some(end) => i = end,
                None => break,
            },
            b'-' | b'0'..=b'9' => {
                let start = i;
                while bytes
                    .get(i)
                    .is_some_and(|b| matches!(b, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                {
                    i += 1;
                }
                let text = std::str::from_utf8(&bytes[start..i]).unwrap_or_default();
                if text.parse::<f64>().is_ok_and(f64::is_infinite) {
                    found.push(Overflowing {
                        offset: start,
                        length: i - start,
                        index,
                    });
                }
                index += 1;
            }
            _ => i += 1,
        }
    }
    found
}

/// The unpaired surrogate escapes in the strings of `bytes`, as (byte
/// offset of the escape, 0-based index of the string among all strings of
/// the document, keys included), in document order. Pairs are matched as
/// serde_json and JavaScript match them: a leading surrogate escape pairs
/// with a trailing one that immediately follows it.
fn find_lone_surrogates(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    // The index of the current string, and how many strings have started.
    let mut current = 0;
    let mut started = 0;
    let mut in_string = false;
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        if !in_string {
            if byte == b'"' {
                in_string = true;
                current = started;
                started += 1;
            }
            i += 1;
            continue;
        }
        match byte {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' => match unicode_escape(bytes, i) {
                Some(0xD800..=0xDBFF) => {
                    if unicode_escape(bytes, i + 6)
                        .is_some_and(|next| (0xDC00..=0xDFFF).contains(&next))
                    {
                        i += 12;
                    } else {
                        found.push((i, current));
                        i += 6;
                    }
                }
                Some(0xDC00..=0xDFFF) => {
                    found.push((i, current));
                    i += 6;
                }
                Some(_) => i += 6,
                // Any other escape is two bytes; skipping both keeps an
                // escaped backslash or quote from being read as syntax.
                None => i += 2,
            },
            _ => i += 1,
        }
    }
    found
}

/// The UTF-16 code unit of the `\uXXXX` escape starting at `at`, if one does.
fn unicode_escape(bytes: &[u8], at: usize) -> Option<u16> {
    match bytes.get(at..at + 6)? {
        [b'\\', b'u', hex @ ..] => {
            let hex = std::str::from_utf8(hex).ok()?;
            // from_str_radix would accept a leading '+'.
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            u16::from_str_radix(hex, 16).ok()
        }
        _ => None,
    }
}

/// serde_json appends " at line L column C"; the location is reported on
/// its own.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

#[derive(Default)]
struct State {
    path: Vec<String>,
    repeated: Vec<(String, usize)>,
    /// Repeated keys met past `keep`, counted only.
    more_repeated: usize,
    /// How many repeated keys, and unpaired escapes, are recorded.
    keep: usize,
    /// Set only when reading a copy with unpaired surrogates replaced.
    lone: Option<LoneTracker>,
    /// Set only when reading a copy with numbers beyond a double's range
    /// replaced.
    numbers: Option<NumberTracker>,
    /// Members of the top-level object read without their contents
    /// ([`parse_pruning`]).
    prune: Vec<String>,
    /// How deep the objects whose members are pruned are.
    prune_depth: usize,
    /// Whether serde_json's recursion limit is lifted ([`parse_pruning_to`]).
    unbounded: bool,
}

/// Matches the numbers the parser meets, counted in document order, with
/// those [`find_out_of_range`] found beyond a double's range.
#[derive(Default)]
struct NumberTracker {
    wanted: Vec<Overflowing>,
    matched: usize,
    /// How many numbers the parser has met.
    numbers: usize,
    found: Vec<OutOfRange>,
    more: usize,
}

/// Matches the strings the parser meets, counted in document order, with
/// the strings [`find_lone_surrogates`] found unpaired escapes in; the
/// parser and the scan meet the same strings in the same order.
#[derive(Default)]
struct LoneTracker {
    /// (byte offset, string index) from the scan, in document order.
    wanted: Vec<(usize, usize)>,
    /// How many of `wanted` have been matched.
    matched: usize,
    /// How many strings the parser has met.
    strings: usize,
    found: Vec<LoneSurrogate>,
    /// Unpaired escapes matched past the state's `keep`, counted only.
    more: usize,
}

impl State {
    fn pointer_here(&self) -> String {
        let mut out = String::new();
        for token in &self.path {
            out.push('/');
            out.push_str(&pointer::escape(token));
        }
        out
    }

    fn pointer_to(&self, key: &str) -> String {
        pointer::push(&self.pointer_here(), key)
    }

    /// Notes that the parser met a number.
    fn number_met(&mut self) {
        let Some(mut numbers) = self.numbers.take() else {
            return;
        };
        let index = numbers.numbers;
        numbers.numbers += 1;
        if let Some(wanted) = numbers.wanted.get(numbers.matched) {
            if wanted.index == index {
                numbers.matched += 1;
                if numbers.found.len() < self.keep {
                    numbers.found.push(OutOfRange {
                        offset: wanted.offset,
                        length: wanted.length,
                        pointer: self.pointer_here(),
                    });
                } else {
                    numbers.more += 1;
                }
            }
        }
        self.numbers = Some(numbers);
    }

    /// Notes that the parser met a string: a key (`Some(key)`) or a value.
    fn string_met(&mut self, key: Option<&str>) {
        // Taken out for the duration, so that the pointer can be built from
        // `self` while the tracker changes.
        let Some(mut lone) = self.lone.take() else {
            return;
        };
        let index = lone.strings;
        lone.strings += 1;
        while let Some(&(offset, string)) = lone.wanted.get(lone.matched) {
            if string != index {
                break;
            }
            lone.matched += 1;
            if lone.found.len() >= self.keep {
                lone.more += 1;
                continue;
            }
            let pointer = match key {
                Some(key) => self.pointer_to(key),
                None => self.pointer_here(),
            };
            lone.found.push(LoneSurrogate {
                offset,
                pointer,
                in_key: key.is_some(),
            });
        }
        self.lone = Some(lone);
    }
}

struct ValueSeed<'s> {
    state: &'s mut State,
}

impl<'de> DeserializeSeed<'de> for ValueSeed<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueSeed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        self.state.number_met();
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        self.state.number_met();
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        self.state.number_met();
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        self.state.string_met(None);
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        self.state.string_met(None);
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        loop {
            self.state.path.push(items.len().to_string());
            let next = seq.next_element_seed(ValueSeed {
                state: &mut *self.state,
            });
            self.state.path.pop();
            match next? {
                Some(item) => items.push(item),
                None => break,
            }
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut object = Map::new();
        // Counts repetitions only for keys seen more than once (the object
        // itself says whether a key was seen), in a map, so that a key
        // repeated n times costs n lookups, not n scans.
        let mut repeats: foldhash::HashMap<String, usize> = foldhash::HashMap::default();
        while let Some(key) = map.next_key::<String>()? {
            self.state.string_met(Some(&key));
            if object.contains_key(&key) {
                let count = repeats.entry(key.clone()).or_insert(0);
                *count += 1;
                let count = *count;
                if self.state.repeated.len() < self.state.keep {
                    let at = self.state.pointer_to(&key);
                    self.state.repeated.push((at, count));
                } else {
                    self.state.more_repeated += 1;
                }
            }
            let pruned =
                self.state.path.len() == self.state.prune_depth && self.state.prune.contains(&key);
            self.state.path.push(key.clone());
            let value = if pruned {
                map.next_value_seed(Skim {
                    state: &mut *self.state,
                })
            } else {
                map.next_value_seed(ValueSeed {
                    state: &mut *self.state,
                })
            };
            self.state.path.pop();
            let value = value?;
            // Like serde_json, the last occurrence wins, but in the position
            // of the first so that document order is kept.
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

/// Reads a value without keeping what it holds: an array or an object
/// becomes an empty one, anything else null. What [`ValueSeed`] notices
/// is noticed in the same order, with the same pointers.
struct Skim<'s> {
    state: &'s mut State,
}

impl<'de> DeserializeSeed<'de> for Skim<'_> {
    type Value = Value;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skim<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Value, E> {
        self.state.number_met();
        Ok(Value::Null)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Value, E> {
        self.state.number_met();
        Ok(Value::Null)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        self.state.number_met();
        Ok(Value::Null)
    }

    fn visit_str<E>(self, _: &str) -> Result<Value, E> {
        self.state.string_met(None);
        Ok(Value::Null)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut index = 0usize;
        loop {
            self.state.path.push(index.to_string());
            let next = seq.next_element_seed(Skim {
                state: &mut *self.state,
            });
            self.state.path.pop();
            if next?.is_none() {
                break;
            }
            index += 1;
        }
        Ok(Value::Array(Vec::new()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        // The keys alone, to notice repeats as `ValueSeed` does.
        let mut keys: foldhash::HashMap<String, usize> = foldhash::HashMap::default();
        while let Some(key) = map.next_key::<String>()? {
            self.state.string_met(Some(&key));
            let seen = keys.entry(key.clone()).or_insert(0);
            if *seen > 0 {
                if self.state.repeated.len() < self.state.keep {
                    let at = self.state.pointer_to(&key);
                    self.state.repeated.push((at, *seen));
                } else {
                    self.state.more_repeated += 1;
                }
            }
            *seen += 1;
            self.state.path.push(key);
            let value = map.next_value_seed(Skim {
                state: &mut *self.state,
            });
            self.state.path.pop();
            value?;
        }
        Ok(Value::Object(Map::new()))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn pruned_members_are_empty_and_noticed_alike() {
        let text = r#"{"type": "RAW", "event": {"a": [1, {"b": 2, "b": 3}], "a": "\ud800", "n": 1e400},
            "value": [1, 2], "rawEvent": "kept", "other": {"x": 1}}"#;
        let whole = parse(text.as_bytes()).expect("parses");
        let prune = [
            "event".to_string(),
            "value".to_string(),
            "rawEvent".to_string(),
        ];
        let pruned = parse_pruning(text.as_bytes(), Limit::ALL, &prune, 0).expect("parses");
        assert_eq!(
            pruned.value,
            json!({"type": "RAW", "event": {}, "value": [], "rawEvent": null, "other": {"x": 1}})
        );
        assert_eq!(pruned.repeated_keys, whole.repeated_keys);
        assert_eq!(pruned.repeated_keys.len(), 2);
        assert_eq!(pruned.lone_surrogates, whole.lone_surrogates);
        assert_eq!(pruned.lone_surrogates.len(), 1);
        assert_eq!(pruned.out_of_range, whole.out_of_range);
        assert_eq!(pruned.out_of_range[0].pointer, "/event/n");
        // Only at the top level.
        let nested =
            parse_pruning(br#"{"x": {"event": [1]}}"#, Limit::ALL, &prune, 0).expect("parses");
        assert_eq!(nested.value, json!({"x": {"event": [1]}}));
        let events = parse_pruning(
            br#"[{"event": [1]}, {"x": {"event": [1]}}]"#,
            Limit::ALL,
            &prune,
            1,
        )
        .expect("parses");
        assert_eq!(events.value, json!([{"event": []}, {"x": {"event": [1]}}]));
    }

    #[test]
    fn parses_like_serde_json() {
        let text = br#"{"a": [1, -2, 3.5, true, null, "x"], "b": {"c": {}}}"#;
        let parsed = parse(text).unwrap();
        assert_eq!(parsed.value, serde_json::from_slice::<Value>(text).unwrap());
        assert!(parsed.repeated_keys.is_empty());
    }

    #[test]
    fn notices_repeated_keys_with_their_pointers() {
        let parsed = parse(br#"{"a": 1, "b": [{"x/y": 1, "x/y": 2, "x/y": 3}], "a": 2}"#).unwrap();
        assert_eq!(parsed.value, json!({"a": 2, "b": [{"x/y": 3}]}));
        assert_eq!(
            parsed.repeated_keys,
            vec![
                ("/b/0/x~1y".to_string(), 1),
                ("/b/0/x~1y".to_string(), 2),
                ("/a".to_string(), 1)
            ]
        );
    }

    #[test]
    fn reports_syntax_errors_with_position() {
        let error = parse(b"{\n  \"a\": 1,\n}").unwrap_err();
        assert_eq!((error.line, error.byte_column), (3, 1));
        assert_eq!(error.message, "trailing comma");
        assert!(parse(b"{} x").is_err());
        assert!(parse(b"").is_err());
    }

    fn lone(parsed: &Parsed) -> Vec<(usize, &str, bool)> {
        parsed
            .lone_surrogates
            .iter()
            .map(|l| (l.offset, l.pointer.as_str(), l.in_key))
            .collect()
    }

    #[test]
    fn lone_surrogates_are_replaced_and_reported() {
        let text = br#"{"a": "x\ud800y", "b": ["ok", "\udc00"], "\uD83D": "\ud83d\ude00", "c": "\ud800\ud800\udc00"}"#;
        let parsed = parse(text).unwrap();
        assert_eq!(
            parsed.value,
            json!({"a": "x\u{fffd}y", "b": ["ok", "\u{fffd}"], "\u{fffd}": "😀", "c": "\u{fffd}\u{10000}"})
        );
        let offsets: Vec<usize> = parsed.lone_surrogates.iter().map(|l| l.offset).collect();
        for &offset in &offsets {
            assert_eq!(&text[offset..offset + 2], br"\u");
        }
        assert_eq!(
            lone(&parsed),
            vec![
                (8, "/a", false),
                (31, "/b/1", false),
                (42, "/\u{fffd}", true),
                (73, "/c", false),
            ]
        );
    }

    #[test]
    fn every_form_of_unpaired_escape_is_found() {
        // Leading at the end, before another escape, before a non-escape,
        // before a leading one; trailing alone; several in one string.
        for (text, count) in [
            (r#""\ud800""#, 1),
            (r#""\ud800\n""#, 1),
            (r#""\ud800\u0041""#, 1),
            (r#""\ud800x""#, 1),
            (r#""\udfff""#, 1),
            (r#""\ud800\ud800""#, 2),
            (r#""\udc00\ud800""#, 2),
            (r#""\ud800\udc00""#, 0),
        ] {
            let parsed = parse(text.as_bytes()).unwrap_or_else(|e| panic!("{text}: {e:?}"));
            assert_eq!(parsed.lone_surrogates.len(), count, "{text}");
            assert!(parsed.lone_surrogates.iter().all(|l| l.pointer.is_empty()));
        }
    }

    #[test]
    fn escaped_backslashes_are_not_escapes() {
        let parsed = parse(br#"["\\ud800", "\\\ud800"]"#).unwrap();
        assert_eq!(parsed.value, json!(["\\ud800", "\\\u{fffd}"]));
        assert_eq!(lone(&parsed), vec![(15, "/1", false)]);
    }

    #[test]
    fn other_syntax_errors_still_win() {
        // The trailing comma is the real error, at its own position.
        let error = parse(b"{\"a\": \"\\ud800\",\n}").unwrap_err();
        assert_eq!(error.message, "trailing comma");
        assert_eq!((error.line, error.byte_column), (2, 1));
        // A malformed escape is not a surrogate.
        let error = parse(br#""\ud80x""#).unwrap_err();
        assert_eq!(error.message, "invalid escape");
    }

    #[test]
    fn numbers_beyond_a_double_are_read_as_stand_ins_and_reported() {
        let text = br#"{"a": 1e400, "b": [2, -1.79e309, "1e999"], "c": 1e-400, "\ud800": 1e309}"#;
        let parsed = parse(text).unwrap();
        assert_eq!(parsed.value["a"], json!(1e300));
        assert_eq!(parsed.value["b"], json!([2, -1e300, "1e999"]));
        assert_eq!(parsed.value["c"], json!(0.0));
        let found: Vec<(&str, &[u8])> = parsed
            .out_of_range
            .iter()
            .map(|n| (n.pointer.as_str(), &text[n.offset..n.offset + n.length]))
            .collect();
        assert_eq!(
            found,
            [
                ("/a", &b"1e400"[..]),
                ("/b/1", &b"-1.79e309"[..]),
                ("/\u{fffd}", &b"1e309"[..])
            ]
        );
        assert_eq!(parsed.lone_surrogates.len(), 1);
        // A document whose only trouble is its range, kept within a limit.
        let many = format!("[{}]", ["1e999"; 10].join(","));
        let parsed = parse_within(many.as_bytes(), Limit { keep: 3 }).unwrap();
        assert_eq!(
            (parsed.out_of_range.len(), parsed.more_out_of_range),
            (3, 7)
        );
        // Not a number beyond range: the syntax error stands.
        assert!(parse(b"[1e400, ]").is_err());
    }

    #[test]
    fn repeated_keys_past_the_limit_are_counted() {
        let text = format!("{{{}}}", [r#""a": 1"#; 10].join(","));
        let parsed = parse_within(text.as_bytes(), Limit { keep: 4 }).unwrap();
        assert_eq!(parsed.repeated_keys.len(), 4);
        assert_eq!(parsed.more_repeated_keys, 5);
        assert_eq!(parsed.repeated_keys[3], ("/a".to_string(), 4));
    }

    #[test]
    fn valid_documents_report_no_surrogates() {
        let parsed = parse(br#"{"e": "\ud83d\ude00", "f": "\ufffd"}"#).unwrap();
        assert!(parsed.lone_surrogates.is_empty());
    }
}
