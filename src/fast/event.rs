//! An event read straight from its bytes, without a `serde_json::Value`,
//! refusing on the way everything the parse layer or the schema would
//! report.
//!
//! What each event type may carry comes from the generated schema of each
//! version, read once into [`EventShapes`]: for every `type`, its keys,
//! which are required, and what each key's value must be ([`Slot`]). The
//! keys agui-lint reads are those [`super::slot`] reads: strings, bounded
//! integers, booleans, open objects, `any` values, lists of these, objects
//! of known keys holding them (an interrupt, token usage) and tagged
//! objects (patch operations, a run's or a subagent's outcome). A key whose
//! schema is anything richer (a RunAgentInput, messages, content parts) is
//! left to the full path: an event that carries one is not read here, but
//! for a `MESSAGES_SNAPSHOT`'s messages, which [`super::snapshot`] judges.
//! So are events whose first key is not `type`, which no SDK sends.
//!
//! Strings borrow from the input unless they hold escapes; every other
//! member is kept as its source text (checked as the full path
//! checks every value: keys unique, numbers interoperable), so that the
//! sequence rules can read the few they need (a state snapshot) as values.

use std::fmt;

use foldhash::HashMap;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

use super::borrowed::Str;
use super::members::{Event, Member, Members};
use super::scan;
use super::slot::{self, resolve, Keys, Slot};

/// What every event type of one version may carry, read from its
/// generated event schema: the keys of each `type` but `type` itself.
#[derive(Debug, Clone, Default)]
pub(crate) struct EventShapes {
    by_type: HashMap<String, Keys>,
}

impl EventShapes {
    /// The shapes of the event schema `schema` (a `oneOf` of one closed
    /// object schema per `type`). A branch that is not such an object, or
    /// has more keys than are counted, is left out: its events go the full
    /// path.
    pub(crate) fn of_schema(schema: &Value) -> EventShapes {
        let empty = serde_json::Map::new();
        let defs = schema
            .get("$defs")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let mut by_type = HashMap::default();
        let branches = schema.get("oneOf").and_then(Value::as_array);
        for branch in branches.into_iter().flatten() {
            let branch = resolve(branch, defs);
            let kind = branch
                .get("properties")
                .and_then(|p| p.get("type"))
                .and_then(|t| t.get("const"))
                .and_then(Value::as_str);
            let (Some(kind), Some(keys)) = (kind, Keys::of(branch, defs, "type")) else {
                continue;
            };
            if !keys.open {
                by_type.insert(kind.to_string(), keys);
            }
        }
        EventShapes { by_type }
    }

    /// The event `bytes` hold, if it is one this version's schema accepts
    /// with nothing for the parse layer to report, and every key it
    /// carries is one read here.
    #[inline]
    pub(crate) fn read<'a>(&self, bytes: &'a [u8]) -> Option<Event<'a>> {
        // UTF-8 checked once for the whole record (the full path reports
        // where it is broken), so that strings are not checked one by one.
        let text = std::str::from_utf8(bytes).ok()?;
        scan::event(text, |kind| self.shape(kind)).or_else(|| self.read_with_serde(text))
    }

    /// The keys of event type `kind`, if this version defines it.
    pub(super) fn shape(&self, kind: &str) -> Option<&Keys> {
        self.by_type.get(kind)
    }

    /// What [`Self::read`] makes of `text` through serde: the reference
    /// for what the fast path accepts, read when the scanner gives up.
    pub(super) fn read_with_serde<'a>(&self, text: &'a str) -> Option<Event<'a>> {
        self.read_seeded(text, None)
    }

    /// A `MESSAGES_SNAPSHOT` event `bytes` hold, read as [`Self::read`]
    /// reads an event but for its `messages`, kept as their source text
    /// for [`super::snapshot`] to judge.
    pub(super) fn read_messages_snapshot<'a>(&self, bytes: &'a [u8]) -> Option<Event<'a>> {
        let text = std::str::from_utf8(bytes).ok()?;
        self.read_seeded(text, Some(("MESSAGES_SNAPSHOT", "messages")))
    }

    /// Reads `text` as an event of these shapes, with `richer` the one type
    /// read and its member kept as text, or any type and no such member.
    fn read_seeded<'a>(&self, text: &'a str, richer: Option<Richer>) -> Option<Event<'a>> {
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let event = EventSeed {
            shapes: self,
            richer,
        }
        .deserialize(&mut deserializer)
        .ok()?;
        deserializer.end().ok()?;
        Some(event)
    }
}

/// The one event type read, and its one member of a richer schema kept as
/// its source text (for a judge of its own), when not every type is.
type Richer = (&'static str, &'static str);

/// Reads an event against the shapes of a version.
struct EventSeed<'s> {
    shapes: &'s EventShapes,
    richer: Option<Richer>,
}

impl<'de> DeserializeSeed<'de> for EventSeed<'_> {
    type Value = Event<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Event<'de>, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for EventSeed<'_> {
    type Value = Event<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an event object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Event<'de>, A::Error> {
        let refuse = |why: &str| de::Error::custom(why.to_string());
        match map.next_key::<Str<'de>>()? {
            Some(key) if key.as_str() == "type" => {}
            _ => return Err(refuse("the first key is not 'type'")),
        }
        let kind: Str<'de> = map.next_value()?;
        if self.richer.is_some_and(|(only, _)| kind.as_str() != only) {
            return Err(refuse("another type than the one read"));
        }
        let shape = self
            .shapes
            .by_type
            .get(kind.as_str())
            .ok_or_else(|| refuse("a type this version does not define"))?;
        let mut members = Members::default();
        let mut seen = 0u64;
        while let Some(key) = map.next_key::<Str<'de>>()? {
            // Events are closed objects: every key has a slot.
            let slot = shape
                .slot_of(key.as_str(), &mut seen)
                .map_err(refuse)?
                .ok_or_else(|| refuse("a key the schema does not allow"))?;
            let member = match slot {
                Slot::Str | Slot::StrOrRicher | Slot::StrIn(_) | Slot::Pointer => {
                    let text: Str<'de> = map.next_value()?;
                    if !slot::fits_str(slot, text.as_str()) {
                        return Err(refuse("a string the schema refuses"));
                    }
                    Member::Str(text)
                }
                Slot::Richer => match self.richer {
                    Some((_, member)) if key.as_str() == member => {
                        let text: &'de RawValue = map.next_value()?;
                        Member::Text(text.get())
                    }
                    _ => return Err(refuse("a member the full path reads")),
                },
                _ => {
                    let text: &'de RawValue = map.next_value()?;
                    if !slot::fits(slot, text.get()) {
                        return Err(refuse("a value the schema or the parse layer refuses"));
                    }
                    Member::Text(text.get())
                }
            };
            members.push((key, member));
        }
        if !shape.has_required(seen) {
            return Err(refuse("a required key is missing"));
        }
        Ok(Event { kind, members })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::rules::EventView;
    use crate::{schema, Kind, Protocol};

    /// Events the fast path must leave to the full path: each breaks the
    /// parse layer or the 1.1 schema, or carries something richer.
    pub(in crate::fast) const REFUSED: &[&str] = &[
        r#"{"messageId":"m","type":"TEXT_MESSAGE_CONTENT","delta":"hi"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","extra":1}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","delta":"again"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":null}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":1.5}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":9007199254740992}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","rawEvent":null}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"\ud800"}"#,
        r#"{"type":"CUSTOM","name":"n","value":{"a":1,"a":2}}"#,
        r#"{"type":"CUSTOM","name":"n","value":12345678901234567890}"#,
        r#"{"type":"REASONING_MESSAGE_START","messageId":"m","role":"assistant"}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[]}}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i"}]}}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"r","id":"j"}]}}"#,
        r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"r","extra":1}]}}"#,
        r#"{"type":"THINKING_START"}"#,
        r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"} x"#,
        "[]",
    ];

    fn shapes(protocol: Protocol) -> EventShapes {
        let schema = schema::generate(protocol, Kind::Event).expect("event schema");
        EventShapes::of_schema(&schema)
    }

    #[test]
    fn every_event_type_of_every_version_has_a_shape() {
        for protocol in Protocol::ALL {
            let schema = schema::generate(protocol, Kind::Event).expect("event schema");
            let branches = schema["oneOf"].as_array().map_or(0, Vec::len);
            assert!(branches > 0, "{protocol}");
            assert_eq!(shapes(protocol).by_type.len(), branches, "{protocol}");
        }
    }

    #[test]
    fn slots_read_from_the_1_1_schema() {
        let shapes = shapes(Protocol::V1_1);
        let slot = |kind: &str, key: &str| {
            shapes.by_type[kind]
                .keys
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, s)| s.clone())
        };
        assert_eq!(slot("TEXT_MESSAGE_CONTENT", "delta"), Some(Slot::Str));
        assert_eq!(
            slot("TEXT_MESSAGE_CONTENT", "timestamp"),
            Some(Slot::Integer {
                min: -9_007_199_254_740_991,
                max: 9_007_199_254_740_991
            })
        );
        assert_eq!(
            slot("TEXT_MESSAGE_CONTENT", "rawEvent"),
            Some(Slot::Any { null_ok: false })
        );
        assert_eq!(slot("TEXT_MESSAGE_START", "metadata"), Some(Slot::Object));
        assert_eq!(
            slot("REASONING_MESSAGE_START", "role"),
            Some(Slot::StrIn(vec!["reasoning".into()]))
        );
        assert_eq!(slot("TOOL_CALL_RESULT", "content"), Some(Slot::StrOrRicher));
        // A run's outcome is tagged; an interrupt outcome's interrupts are
        // a non-empty list of objects of known keys.
        assert!(matches!(
            slot("RUN_FINISHED", "outcome"),
            Some(Slot::Tagged(_))
        ));
        assert!(matches!(
            slot("RUN_FINISHED", "usage"),
            Some(Slot::Keyed(_) | Slot::Array { .. })
        ));
        let patch = |kind: &str, key: &str| match slot(kind, key) {
            Some(Slot::Array { item, min: 0 }) => matches!(*item, Slot::Tagged(_)),
            _ => false,
        };
        assert!(patch("STATE_DELTA", "delta"), "a list of patch operations");
        assert!(
            patch("ACTIVITY_DELTA", "patch"),
            "a list of patch operations"
        );
        assert!(matches!(
            slot("SUBAGENT_FINISHED", "outcome"),
            Some(Slot::Tagged(_))
        ));
        assert_eq!(slot("ACTIVITY_SNAPSHOT", "replace"), Some(Slot::Bool));
        assert_eq!(
            slot("STATE_SNAPSHOT", "snapshot"),
            Some(Slot::Any { null_ok: true })
        );
        let required = shapes.by_type["TEXT_MESSAGE_CONTENT"].required.count_ones();
        assert_eq!(required, 2, "messageId and delta");
    }

    #[test]
    fn reads_what_the_schema_accepts_and_refuses_the_rest() {
        let shapes = shapes(Protocol::V1_1);
        let read = |text: &str| shapes.read(text.as_bytes()).is_some();
        assert!(read(
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi","timestamp":1}"#
        ));
        assert!(read(
            r#"{"type":"STATE_SNAPSHOT","snapshot":{"a":[1,null]}}"#
        ));
        assert!(read(
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}"#
        ));
        assert!(read(
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i","reason":"tool_call","metadata":{"n":1}}]}}"#
        ));
        for refused in REFUSED {
            assert!(!read(refused), "{refused}");
        }
    }

    #[test]
    fn a_patch_is_read_from_its_text_as_from_its_value() {
        let shapes = shapes(Protocol::V1_1);
        let patches = [
            r#"[]"#,
            r#"[{"op":"add","path":"/a","value":{"b":[1,2.5]}},{"op":"remove","path":"/a~0b"}]"#,
            r#"[{"op":"move","from":"/a","path":"/b"},{"op":"test","path":"/b","value":null}]"#,
            r#"[{"op":"add","path":"/a","value":1},{"op":"set","path":"/a"}]"#,
            r#"[{"op":"add","path":"/a"}]"#,
            r#"[{"op":"add","path":"/a","value":1,"value":2}]"#,
            r#"[{"op":"remove","op":"add","path":"/a","value":1}]"#,
            r#"[{"path":"/a","value":1,"op":"replace"}]"#,
        ];
        let mut read_from_text = 0;
        for patch in patches {
            let text = format!(r#"{{"type":"STATE_DELTA","delta":{patch}}}"#);
            let value: Value = serde_json::from_str(&text).expect("JSON");
            let expected = format!("{:?}", EventView::Value(&value).patch("delta", true));
            if let Some(event) = shapes.read(text.as_bytes()) {
                read_from_text += 1;
                let got = format!("{:?}", EventView::Read(&event).patch("delta", true));
                assert_eq!(got, expected, "{patch}");
            };
        }
        assert!(
            read_from_text >= 3,
            "{read_from_text} patches read by the fast path"
        );
    }

    #[test]
    fn members_are_read_as_strings_and_values() {
        let shapes = shapes(Protocol::V1_1);
        let text = br#"{"type":"STATE_SNAPSHOT","snapshot":{"n":1},"subagentRunId":"s\u0031"}"#;
        let event = shapes.read(text).expect("read");
        let view = EventView::Read(&event);
        assert_eq!(view.str("type"), Some("STATE_SNAPSHOT"));
        assert_eq!(view.str("subagentRunId"), Some("s1"));
        assert_eq!(view.str("snapshot"), None);
        assert_eq!(
            view.get("snapshot").map(Cow::into_owned),
            Some(serde_json::json!({"n": 1}))
        );
        assert_eq!(view.get("messages"), None);
    }
}
