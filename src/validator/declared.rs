//! The version a `RUN_STARTED` record declares, read from its text
//! without building a `Value`.
//!
//! Which version judges a stream's events is told in stream order, on the
//! one thread that reads and sequences the stream, before any record is
//! checked; a `RUN_STARTED` may carry the whole request it answers, so
//! building it into a `Value` there cost that thread more than the rest of
//! its work on the event. This reader goes through the same parser with a
//! visitor that keeps only `type`, `protocolVersion` and the input's
//! `protocolVersion`, so it accepts exactly the texts a `Value` parse
//! accepts (strings decoded and checked, numbers read, nesting bounded), and
//! a repeated key counts as a `Value` counts it: the last one.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// What a record's text says of its run's version: `None` when it is no
/// `RUN_STARTED` object (or no JSON), else the `protocolVersion` it
/// declares (its own, else its input's), if any, as a
/// [`crate::rules::version::declared_by_run_started`] reads it from the
/// record's `Value`.
pub(crate) fn declared_by_run_started(bytes: &[u8]) -> Option<Option<String>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let head = Head::default().deserialize(&mut deserializer).ok()??;
    deserializer.end().ok()?;
    (head.kind.as_deref() == Some("RUN_STARTED"))
        .then(|| head.own.or(head.input.flatten()).map(Cow::into_owned))
}

/// The members of an event object the declaration is read from; each the
/// last of its key, `None` when not a string (an input: when not an
/// object).
#[derive(Default)]
struct Head<'de> {
    kind: Option<Cow<'de, str>>,
    own: Option<Cow<'de, str>>,
    input: Option<Option<Cow<'de, str>>>,
}

impl<'de> DeserializeSeed<'de> for Head<'de> {
    /// `None` for a value that is no object.
    type Value = Option<Head<'de>>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Head<'de> {
    type Value = Option<Head<'de>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an event")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Self::Value, A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "type" => self.kind = map.next_value::<Text<'de>>()?.0,
                "protocolVersion" => self.own = map.next_value::<Text<'de>>()?.0,
                "input" => self.input = map.next_value::<Input<'de>>()?.0,
                _ => {
                    map.next_value::<Skipped>()?;
                }
            }
        }
        Ok(Some(self))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Skipped.visit_seq(seq).map(|_| None)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// A value kept when it is a string, read through otherwise.
struct Text<'de>(Option<Cow<'de, str>>);

impl<'de> de::Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TextVisitor)
    }
}

struct TextVisitor;

impl<'de> Visitor<'de> for TextVisitor {
    type Value = Text<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Text(Some(Cow::Borrowed(text))))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Text(Some(Cow::Owned(text.to_string()))))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Skipped.visit_map(map).map(|_| Text(None))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Skipped.visit_seq(seq).map(|_| Text(None))
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Text(None))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Text(None))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Text(None))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Text(None))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Text(None))
    }
}

/// A run's input: `Some` with its `protocolVersion` (the last, when a
/// string) when it is an object, `None` otherwise.
struct Input<'de>(Option<Option<Cow<'de, str>>>);

impl<'de> de::Deserialize<'de> for Input<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let head = Head::default().deserialize(deserializer)?;
        Ok(Input(head.map(|head| head.own)))
    }
}

/// Any value, read through and dropped: its strings decoded and checked as
/// a `Value`'s are, so that it is refused where a `Value` parse is.
struct Skipped;

impl<'de> de::Deserialize<'de> for Skipped {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Skipped)
    }
}

impl<'de> Visitor<'de> for Skipped {
    type Value = Skipped;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skipped, A::Error> {
        while map.next_key::<Skipped>()?.is_some() {
            map.next_value::<Skipped>()?;
        }
        Ok(Skipped)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skipped, A::Error> {
        while seq.next_element::<Skipped>()?.is_some() {}
        Ok(Skipped)
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Skipped, E> {
        Ok(Skipped)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Skipped, E> {
        Ok(Skipped)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Skipped, E> {
        Ok(Skipped)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Skipped, E> {
        Ok(Skipped)
    }

    fn visit_str<E: de::Error>(self, _: &str) -> Result<Skipped, E> {
        Ok(Skipped)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Skipped, E> {
        Ok(Skipped)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    /// What the `Value` reading gives for `text`.
    fn by_value(text: &str) -> Option<Option<String>> {
        let event: Value = serde_json::from_str(text).ok()?;
        (event.get("type").and_then(Value::as_str) == Some("RUN_STARTED")).then(|| {
            crate::rules::version::declared_by_run_started(&event).map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn reads_what_the_value_reading_reads() {
        let texts = [
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r"}"#,
            r#"{"type":"RUN_STARTED","threadId":"t","runId":"r","protocolVersion":"1.1"}"#,
            r#"{"type":"RUN_STARTED","input":{"messages":[{"id":"m","content":"RUN_STARTED"}],"protocolVersion":"1.0"}}"#,
            r#"{"type":"RUN_STARTED","protocolVersion":"1.1","input":{"protocolVersion":"1.0"}}"#,
            r#"{"type":"RUN_STARTED","protocolVersion":7,"input":{"protocolVersion":"1.0"}}"#,
            r#"{"type":"RUN_STARTED","protocolVersion":"1.0","protocolVersion":"1.1"}"#,
            r#"{"type":"RUN_STARTED","protocolVersion":"1.0","protocolVersion":null}"#,
            r#"{"type":"RUN_STARTED","input":[{"protocolVersion":"1.0"}]}"#,
            r#"{"type":"RUN_STARTED","input":{"protocolVersion":"1.0"},"input":5}"#,
            r#"{"type":"RUN_STARTED","input":{"nested":{"protocolVersion":"1.0"}}}"#,
            r#"{"protocolVersion":"1.0","type":"RUN_STARTED"}"#,
            r#"{"type":"RUN_\u0053TARTED","protocolVersion":"1\u002e0"}"#,
            r#"{"type":"RUN_STARTED","type":"RUN_FINISHED","protocolVersion":"1.0"}"#,
            r#"{"type":"RUN_FINISHED","protocolVersion":"1.0"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","delta":"RUN_STARTED"}"#,
            r#"["RUN_STARTED"]"#,
            r#""RUN_STARTED""#,
            // What a Value parse refuses: a lone surrogate, a cut, a
            // number out of range, trailing text, deep nesting.
            r#"{"type":"RUN_STARTED","protocolVersion":"1.0","x":"\ud800"}"#,
            r#"{"type":"RUN_STARTED","protocolVersion":"1.0""#,
            r#"{"type":"RUN_STARTED","protocolVersion":"1.0","x":1e400}"#,
            r#"{"type":"RUN_STARTED","protocolVersion":"1.0"} x"#,
        ];
        for text in texts {
            assert_eq!(
                declared_by_run_started(text.as_bytes()),
                by_value(text),
                "{text}"
            );
        }
        let deep = format!(
            r#"{{"type":"RUN_STARTED","protocolVersion":"1.0","x":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert_eq!(by_value(&deep), None);
        assert_eq!(declared_by_run_started(deep.as_bytes()), None);
        assert_eq!(
            declared_by_run_started(b"{\"type\":\"RUN_STARTED\",\"x\":\"\xff\"}"),
            None
        );
    }
}
