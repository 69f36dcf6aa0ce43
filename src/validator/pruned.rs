//! Which members of a large document are parsed without their contents.
//!
//! A parsed `Value` takes 30 to 80 times its text (an array of a million
//! zeros: 80 MB for 2 MB), so a 60 MB document held as a tree took 3.4 GB.
//! Most of such a document is usually one member whose contents no schema
//! constrains and no rule reads: a `RAW` event's `event`, a `CUSTOM`
//! event's `value`, any event's `rawEvent`, a RunAgentInput's `state` and
//! `forwardedProps` (any JSON each). From [`FROM`] bytes on, such a
//! top-level member that is an array or an object of [`MEMBER_FROM`]
//! bytes or more is parsed without keeping what it holds
//! ([`crate::parse::parse_pruning`]): it stands in the value as an empty
//! one of its type, which is all the schema and the rules look at, and
//! what the parser notices inside it is reported as before.
//!
//! The sequence rules read none of these members of an event, so a
//! pruned event still feeds a stream; a RunAgentInput whose state was
//! pruned is not handed to a server as its typed value (it is parsed
//! again whole for that).

use std::borrow::Cow;
use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

/// The smallest document whose members may be pruned: a smaller one's
/// tree is a few megabytes at most.
pub(super) const FROM: usize = 256 * 1024;

/// The smallest member pruned.
const MEMBER_FROM: usize = 64 * 1024;

/// The top-level members no schema constrains and no rule reads inside.
const UNREAD: &[&str] = &["event", "value", "rawEvent", "state", "forwardedProps"];

/// What of `bytes` to parse without its contents: the members of the
/// top-level object (or of each object of a top-level array, an events
/// array) named in [`Pruned::keys`]. Empty for a small document, or one
/// that is not such an object or array (its full parse then reports what
/// is wrong).
pub(super) fn members(bytes: &[u8]) -> Pruned {
    if bytes.len() < FROM {
        return Pruned::default();
    }
    let array = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let keys = if array {
        deserializer.deserialize_seq(Items)
    } else {
        deserializer.deserialize_map(Large(Vec::new()))
    }
    .and_then(|found| deserializer.end().map(|()| found))
    .unwrap_or_default();
    Pruned {
        keys,
        depth: usize::from(array),
    }
}

/// The members to prune, and at which depth their objects are.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Pruned {
    /// Their keys.
    pub(super) keys: Vec<String>,
    /// 0 for the top-level object's members, 1 for those of a top-level
    /// array's objects.
    pub(super) depth: usize,
}

/// Finds the large unread members of each object of an array.
struct Items;

impl<'de> Visitor<'de> for Items {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut found = Vec::new();
        while let Some(item) = seq.next_element::<&'de RawValue>()? {
            let mut deserializer = serde_json::Deserializer::from_str(item.get());
            if let Ok(keys) = deserializer.deserialize_map(Large(std::mem::take(&mut found))) {
                found = keys;
            }
        }
        Ok(found)
    }
}

/// Finds the large unread members of an object, adding them to those
/// already found.
struct Large(Vec<String>);

impl<'de> Visitor<'de> for Large {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = self.0;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if UNREAD.contains(&key.as_ref()) {
                let raw = map.next_value::<&'de RawValue>()?;
                let text = raw.get();
                let container = matches!(text.as_bytes().first(), Some(b'[' | b'{'));
                if container && text.len() >= MEMBER_FROM && !found.iter().any(|k| k == &key) {
                    found.push(key.into_owned());
                }
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_large_unread_containers_are_pruned() {
        let big = format!("[{}0]", "0,".repeat(MEMBER_FROM));
        let text = format!(
            r#"{{"type": "RAW", "event": {big}, "value": "{}", "messages": {big}, "state": {{"a": {big}}}, "rawEvent": [1]}}"#,
            "x".repeat(FROM)
        );
        assert_eq!(members(text.as_bytes()).keys, ["event", "state"]);
        assert_eq!(members(text.as_bytes()).depth, 0);
        assert!(members(br#"{"event": [1]}"#).keys.is_empty());
        let broken = format!(r#"{{"event": {big}"#);
        assert!(members(broken.as_bytes()).keys.is_empty());
        let custom = format!(r#"{{"type": "CUSTOM", "value": {big}}}"#);
        let events = format!(r#"[{{"type": "RAW", "event": [1]}}, 7, {custom}, {custom}]"#);
        let found = members(events.as_bytes());
        assert_eq!((found.keys, found.depth), (vec!["value".to_string()], 1));
    }
}
