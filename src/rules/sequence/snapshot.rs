//! A `MESSAGES_SNAPSHOT`'s messages as the sequence rules read them: the
//! members they compare with what the run streamed ([`super::streamed`]),
//! remember ([`super::tool_calls`]) and restate ([`super::activity`]).
//!
//! A snapshot restates the whole conversation, and is read on the one
//! thread that sequences a stream. From a parsed event the messages borrow
//! the event's `Value`; from an event the fast path read they are read
//! from their text, strings borrowed, without a `Value`: the fast path has
//! already held them to the schema and the message rules
//! ([`crate::fast`]), so only what the rules here compare is kept, and a
//! content that is no string is kept as its text until a rule needs it as
//! a value.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

/// A message of a snapshot: what the sequence rules read of it. A member
/// that is absent, or not of the type the rules read (a parsed event's
/// `id` that is a number), is `None`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct SnapshotMessage<'a> {
    /// `id`.
    #[serde(borrow, default, deserialize_with = "text")]
    pub(super) id: Option<Cow<'a, str>>,
    /// `role`.
    #[serde(borrow, default, deserialize_with = "text")]
    pub(super) role: Option<Cow<'a, str>>,
    /// `toolCallId`.
    #[serde(borrow, default, deserialize_with = "text", rename = "toolCallId")]
    pub(super) tool_call_id: Option<Cow<'a, str>>,
    /// `content`, whatever its type (`null` too).
    #[serde(borrow, default, deserialize_with = "present")]
    pub(super) content: Option<Content<'a>>,
    /// `toolCalls`, each in its place (an item that is no object is a
    /// call of no members).
    #[serde(borrow, default, rename = "toolCalls")]
    pub(super) tool_calls: Vec<SnapshotCall<'a>>,
}

/// A tool call of a snapshot's message.
#[derive(Debug, Default, Deserialize)]
pub(super) struct SnapshotCall<'a> {
    /// `id`.
    #[serde(borrow, default, deserialize_with = "text")]
    pub(super) id: Option<Cow<'a, str>>,
    /// `function`.
    #[serde(borrow, default)]
    pub(super) function: Option<Function<'a>>,
}

/// The function a tool call names.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Function<'a> {
    /// `name`.
    #[serde(borrow, default, deserialize_with = "text")]
    pub(super) name: Option<Cow<'a, str>>,
    /// `arguments`.
    #[serde(borrow, default, deserialize_with = "text")]
    pub(super) arguments: Option<Cow<'a, str>>,
}

/// A message's `content`.
#[derive(Debug)]
pub(super) enum Content<'a> {
    /// A string.
    Text(Cow<'a, str>),
    /// Any other value, as its source text.
    Source(&'a str),
    /// Any value, of a parsed event.
    Parsed(Cow<'a, Value>),
}

impl Content<'_> {
    /// The content when it is a string.
    pub(super) fn as_str(&self) -> Option<&str> {
        match self {
            Content::Text(text) => Some(text),
            Content::Source(_) => None,
            Content::Parsed(value) => value.as_str(),
        }
    }

    /// The content as a value (`None` for source text that is none, which
    /// the fast path never hands over).
    pub(super) fn value(&self) -> Option<Cow<'_, Value>> {
        match self {
            Content::Text(text) => Some(Cow::Owned(Value::String(text.to_string()))),
            Content::Source(text) => serde_json::from_str(text).ok().map(Cow::Owned),
            Content::Parsed(value) => Some(Cow::Borrowed(value.as_ref())),
        }
    }
}

impl<'de> Deserialize<'de> for Content<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let source = <&'de RawValue>::deserialize(deserializer)?.get();
        if !source.starts_with('"') {
            return Ok(Content::Source(source));
        }
        let mut strings = serde_json::Deserializer::from_str(source);
        strings
            .deserialize_str(Text)
            .map(Content::Text)
            .map_err(de::Error::custom)
    }
}

/// A member that is there, whatever its value: a `null` content is one,
/// as it is in a parsed event's `Value`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Content<'de>>, D::Error> {
    Content::deserialize(deserializer).map(Some)
}

/// A string member, borrowed from the text when it holds no escapes (serde
/// borrows a `Cow` only outside an `Option`), or `null`.
fn text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    deserializer.deserialize_any(OptionalText)
}

/// A string or `null`.
struct OptionalText;

impl<'de> Visitor<'de> for OptionalText {
    type Value = Option<Cow<'de, str>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string or null")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Some(Cow::Owned(text.to_string())))
    }
}

/// A string, borrowed from the text when it holds no escapes.
struct Text;

impl<'de> Visitor<'de> for Text {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(text))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(text.to_string()))
    }
}

/// The messages of `messages`, a parsed event's `messages` (none when it is
/// no array).
pub(super) fn of_value(messages: &Value) -> Vec<SnapshotMessage<'_>> {
    fn text<'v>(value: &'v Value, key: &str) -> Option<Cow<'v, str>> {
        value.get(key).and_then(Value::as_str).map(Cow::Borrowed)
    }
    messages
        .as_array()
        .into_iter()
        .flatten()
        .map(|message| SnapshotMessage {
            id: text(message, "id"),
            role: text(message, "role"),
            tool_call_id: text(message, "toolCallId"),
            content: message
                .get("content")
                .map(|content| Content::Parsed(Cow::Borrowed(content))),
            tool_calls: message
                .get("toolCalls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|call| SnapshotCall {
                    id: text(call, "id"),
                    function: call.get("function").map(|function| Function {
                        name: text(function, "name"),
                        arguments: text(function, "arguments"),
                    }),
                })
                .collect(),
        })
        .collect()
}

/// The messages `text` holds, the source of a read event's `messages`;
/// read through a `Value` when they are not as the fast path hands them
/// over (it never hands over any other).
pub(super) fn of_text(text: &str) -> Vec<SnapshotMessage<'_>> {
    if let Ok(messages) = serde_json::from_str(text) {
        return messages;
    }
    let value: Value = serde_json::from_str(text).unwrap_or_default();
    of_value(&value).into_iter().map(owned).collect()
}

/// `message`, owning what it borrowed.
fn owned(message: SnapshotMessage<'_>) -> SnapshotMessage<'static> {
    let own = |text: Option<Cow<'_, str>>| text.map(|t| Cow::Owned(t.into_owned()));
    SnapshotMessage {
        id: own(message.id),
        role: own(message.role),
        tool_call_id: own(message.tool_call_id),
        content: message.content.and_then(|content| {
            content
                .value()
                .map(|value| Content::Parsed(Cow::Owned(value.into_owned())))
        }),
        tool_calls: message
            .tool_calls
            .into_iter()
            .map(|call| SnapshotCall {
                id: own(call.id),
                function: call.function.map(|function| Function {
                    name: own(function.name),
                    arguments: own(function.arguments),
                }),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// What the rules read of `messages`, shown.
    fn shown(messages: &[SnapshotMessage<'_>]) -> Vec<String> {
        messages
            .iter()
            .map(|m| {
                let calls: Vec<String> = m
                    .tool_calls
                    .iter()
                    .map(|c| {
                        let function = c.function.as_ref();
                        format!(
                            "{:?}/{:?}/{:?}",
                            c.id,
                            function.map(|f| &f.name),
                            function.map(|f| &f.arguments)
                        )
                    })
                    .collect();
                format!(
                    "{:?} {:?} {:?} {:?} {:?} {calls:?}",
                    m.id,
                    m.role,
                    m.tool_call_id,
                    m.content.as_ref().and_then(Content::as_str),
                    m.content.as_ref().and_then(Content::value),
                )
            })
            .collect()
    }

    #[test]
    fn text_and_value_read_the_same() {
        let messages = json!([
            {"id": "u", "role": "user", "content": "caf\u{e9} \"quoted\"\n"},
            {"id": "u2", "role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"id": "a", "role": "assistant", "content": null, "toolCalls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}},
                {"id": "d", "type": "function", "function": {"name": "g", "arguments": ""}}
            ]},
            {"id": "t", "role": "tool", "toolCallId": "c", "content": "ok", "error": "none"},
            {"id": "x", "role": "activity", "activityType": "plan", "content": {"steps": [1, 2]}},
            {"id": "r", "role": "reasoning", "content": "thinking", "encryptedValue": "e"},
        ]);
        let text = serde_json::to_string(&messages).expect("JSON");
        let read = of_text(&text);
        assert_eq!(shown(&read), shown(&of_value(&messages)));
        // The text of a message is borrowed, unless it holds escapes.
        assert!(matches!(read[2].tool_calls[1].id, Some(Cow::Borrowed("d"))));
        assert!(matches!(
            read[0].content,
            Some(Content::Text(Cow::Owned(_)))
        ));
        assert!(matches!(
            read[3].content,
            Some(Content::Text(Cow::Borrowed("ok")))
        ));
    }

    #[test]
    fn what_the_fast_path_never_hands_over_is_read_through_a_value() {
        let messages = json!([
            {"id": 5, "role": "user", "content": "hi", "toolCalls": [7, {"id": "c"}]},
            "not a message",
        ]);
        let text = serde_json::to_string(&messages).expect("JSON");
        assert_eq!(shown(&of_text(&text)), shown(&of_value(&messages)));
        assert!(of_text("[1,").is_empty());
    }
}
