//! An event read straight from its bytes, without a `serde_json::Value`,
//! refusing on the way everything the parse layer or the schema would
//! report.
//!
//! What each event type may carry comes from the generated schema of each
//! version, read once into [`EventShapes`]: for every `type`, its keys,
//! which are required, and what each key's value must be ([`Slot`]). The
//! keys agui-lint reads from the schema are plain: strings, strings from a
//! closed set, bounded integers, booleans, open objects and `any` values.
//! A key whose schema is anything richer (a RunAgentInput, an outcome, a
//! list of patch operations or content parts) is left to the full path:
//! an event that carries one is not read here. So are events whose first
//! key is not `type`, which no SDK sends.
//!
//! Strings borrow from the input unless they hold escapes; the `any` and
//! object members are kept as their source text (checked as the full path
//! checks every value: keys unique, numbers interoperable), so that the
//! sequence rules can read the few they need (a state snapshot) as values.

use std::fmt;

use foldhash::HashMap;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

use super::borrowed::{Any, Object, Str};
use crate::rules::verdict::is_interoperable;

/// What the schema asks of one key's value.
#[derive(Debug, Clone, PartialEq)]
enum Slot {
    /// Any string.
    Str,
    /// One of these strings.
    StrIn(Vec<String>),
    /// A string, or something richer the full path judges.
    StrOrRicher,
    /// An integer within these bounds.
    Integer { min: i64, max: i64 },
    /// Any number (read as the interoperability rule reads it).
    Number,
    /// `true` or `false`.
    Bool,
    /// Any value; `null` only where `null_ok`.
    Any { null_ok: bool },
    /// An object of any members.
    Object,
    /// Something richer: the full path reads it.
    Richer,
}

impl Slot {
    /// The slot of the property schema `schema`, whose `$ref`s point into
    /// `defs`.
    fn of(schema: &Value, defs: &serde_json::Map<String, Value>) -> Slot {
        let schema = resolve(schema, defs);
        let Some(object) = schema.as_object() else {
            return Slot::Richer;
        };
        // Keys that do not constrain the value.
        let constraining: Vec<(&str, &Value)> = object
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "description" | "title" | "x-agui-since"))
            .map(|(k, v)| (k.as_str(), v))
            .collect();
        let type_is = |name: &str| object.get("type").and_then(Value::as_str) == Some(name);
        match constraining.as_slice() {
            [] => Slot::Any { null_ok: true },
            [("not", not)] if **not == serde_json::json!({"type": "null"}) => {
                Slot::Any { null_ok: false }
            }
            [("type", _)] if type_is("string") => Slot::Str,
            [("type", _)] if type_is("number") => Slot::Number,
            [("type", _)] if type_is("boolean") => Slot::Bool,
            [("additionalProperties", open), ("type", _)]
            | [("type", _), ("additionalProperties", open)]
                if type_is("object") && **open == Value::Bool(true) =>
            {
                Slot::Object
            }
            _ if type_is("integer") && constraining.len() == 3 => {
                match (
                    object.get("minimum").and_then(Value::as_i64),
                    object.get("maximum").and_then(Value::as_i64),
                ) {
                    (Some(min), Some(max)) => Slot::Integer { min, max },
                    _ => Slot::Richer,
                }
            }
            [(alternatives, Value::Array(branches))]
                if matches!(*alternatives, "oneOf" | "anyOf") =>
            {
                Slot::of_alternatives(branches, defs)
            }
            _ => Slot::Richer,
        }
    }

    /// The slot of a `oneOf`/`anyOf`: a closed set of strings when every
    /// branch is a string constant; strings or richer when one branch is
    /// any string and no other takes a string.
    fn of_alternatives(branches: &[Value], defs: &serde_json::Map<String, Value>) -> Slot {
        let branches: Vec<&Value> = branches.iter().map(|b| resolve(b, defs)).collect();
        let constant = |b: &Value| -> Option<String> {
            let object = b.as_object()?;
            let plain = object
                .keys()
                .all(|k| matches!(k.as_str(), "description" | "type" | "const"));
            (plain && object.get("type")? == "string")
                .then(|| object.get("const")?.as_str().map(str::to_string))?
        };
        let constants: Vec<String> = branches.iter().filter_map(|b| constant(b)).collect();
        if !branches.is_empty() && constants.len() == branches.len() {
            return Slot::StrIn(constants);
        }
        let any_string = |b: &Value| Slot::of(b, defs) == Slot::Str;
        let strings = branches.iter().filter(|b| any_string(b)).count();
        let others_take_strings = branches
            .iter()
            .any(|b| !any_string(b) && b.get("type").and_then(Value::as_str) != Some("array"));
        if strings == 1 && !others_take_strings {
            Slot::StrOrRicher
        } else {
            Slot::Richer
        }
    }
}

/// `schema`, or what its local `$ref` points at.
fn resolve<'v>(schema: &'v Value, defs: &'v serde_json::Map<String, Value>) -> &'v Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| defs.get(name))
        .unwrap_or(schema)
}

/// What one event type may carry.
#[derive(Debug, Clone)]
struct Shape {
    /// Every key but `type`, with its slot.
    keys: Vec<(String, Slot)>,
    /// The required keys, one bit per position in `keys`.
    required: u64,
}

/// What every event type of one version may carry, read from its
/// generated event schema.
#[derive(Debug, Clone, Default)]
pub(crate) struct EventShapes {
    by_type: HashMap<String, Shape>,
}

impl EventShapes {
    /// The shapes of the event schema `schema` (a `oneOf` of one object
    /// schema per `type`). A branch that is not such an object, or has more
    /// keys than are counted, is left out: its events go the full path.
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
            if branch.get("additionalProperties") != Some(&Value::Bool(false)) {
                continue;
            }
            let Some(properties) = branch.get("properties").and_then(Value::as_object) else {
                continue;
            };
            let Some(kind) = properties
                .get("type")
                .and_then(|t| t.get("const"))
                .and_then(Value::as_str)
            else {
                continue;
            };
            let keys: Vec<(String, Slot)> = properties
                .iter()
                .filter(|(key, _)| key.as_str() != "type")
                .map(|(key, schema)| (key.clone(), Slot::of(schema, defs)))
                .collect();
            if keys.len() > 64 {
                continue;
            }
            let required_keys: Vec<&str> = branch
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let mut required = 0u64;
            for (i, (key, _)) in keys.iter().enumerate() {
                if required_keys.contains(&key.as_str()) {
                    required |= 1 << i;
                }
            }
            by_type.insert(kind.to_string(), Shape { keys, required });
        }
        EventShapes { by_type }
    }

    /// The event `bytes` hold, if it is one this version's schema accepts
    /// with nothing for the parse layer to report, and every key it
    /// carries is one read here.
    pub(crate) fn read<'a>(&self, bytes: &'a [u8]) -> Option<Event<'a>> {
        // UTF-8 checked once for the whole record (the full path reports
        // where it is broken), so that strings are not checked one by one.
        let text = std::str::from_utf8(bytes).ok()?;
        let mut deserializer = serde_json::Deserializer::from_str(text);
        let event = EventSeed { shapes: self }
            .deserialize(&mut deserializer)
            .ok()?;
        deserializer.end().ok()?;
        Some(event)
    }
}

/// A member of an event as read.
#[derive(Debug)]
enum Member<'a> {
    /// A string.
    Str(Str<'a>),
    /// Any other value, as its source text.
    Text(&'a RawValue),
}

/// An event, read and found to fit its version's schema: its `type` and
/// its other members in the order they came.
#[derive(Debug)]
pub(crate) struct Event<'a> {
    kind: Str<'a>,
    members: Vec<(Str<'a>, Member<'a>)>,
}

impl<'a> Event<'a> {
    /// The event's `type`.
    pub(crate) fn kind(&self) -> &str {
        self.kind.as_str()
    }

    /// The string member `key`, if the event has it.
    pub(crate) fn str(&self, key: &str) -> Option<&str> {
        if key == "type" {
            return Some(self.kind());
        }
        self.members.iter().find_map(|(k, m)| match m {
            Member::Str(s) if k.as_str() == key => Some(s.as_str()),
            _ => None,
        })
    }

    /// The member `key` as a value, if the event has it.
    pub(crate) fn value(&self, key: &str) -> Option<Value> {
        if key == "type" {
            return Some(Value::from(self.kind()));
        }
        self.members
            .iter()
            .find(|(k, _)| k.as_str() == key)
            .and_then(|(_, m)| match m {
                Member::Str(s) => Some(Value::from(s.as_str())),
                Member::Text(text) => serde_json::from_str(text.get()).ok(),
            })
    }
}

/// Reads an event against the shapes of a version.
struct EventSeed<'s> {
    shapes: &'s EventShapes,
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
        let shape = self
            .shapes
            .by_type
            .get(kind.as_str())
            .ok_or_else(|| refuse("a type this version does not define"))?;
        let mut members = Vec::with_capacity(shape.keys.len().min(8));
        let mut seen = 0u64;
        while let Some(key) = map.next_key::<Str<'de>>()? {
            let (index, slot) = shape
                .keys
                .iter()
                .enumerate()
                .find_map(|(i, (k, slot))| (k == key.as_str()).then_some((i, slot)))
                .ok_or_else(|| refuse("a key the schema does not allow"))?;
            if seen & (1 << index) != 0 {
                return Err(refuse("a repeated key"));
            }
            seen |= 1 << index;
            let member = match slot {
                Slot::Str | Slot::StrOrRicher => Member::Str(map.next_value()?),
                Slot::StrIn(allowed) => {
                    let text: Str<'de> = map.next_value()?;
                    if !allowed.iter().any(|a| a == text.as_str()) {
                        return Err(refuse("a string outside the closed set"));
                    }
                    Member::Str(text)
                }
                Slot::Integer { min, max } => {
                    let text: &'de RawValue = map.next_value()?;
                    // A JSON number's text is an `i64`'s exactly when it is
                    // an integer in range (no fraction, no exponent).
                    let n: i64 = text.get().parse().map_err(|_| refuse("not an integer"))?;
                    if n < *min || n > *max {
                        return Err(refuse("an integer out of bounds"));
                    }
                    Member::Text(text)
                }
                Slot::Number => {
                    let text: &'de RawValue = map.next_value()?;
                    let n: serde_json::Number =
                        serde_json::from_str(text.get()).map_err(|_| refuse("not a number"))?;
                    if !is_interoperable(&n) {
                        return Err(refuse("a number the SDKs read differently"));
                    }
                    Member::Text(text)
                }
                Slot::Bool => {
                    let text: &'de RawValue = map.next_value()?;
                    if !matches!(text.get(), "true" | "false") {
                        return Err(refuse("not a boolean"));
                    }
                    Member::Text(text)
                }
                Slot::Any { null_ok } => {
                    let text: &'de RawValue = map.next_value()?;
                    let any: Any = serde_json::from_str(text.get())
                        .map_err(|_| refuse("a value the full path reports"))?;
                    if any.null && !null_ok {
                        return Err(refuse("null where the schema refuses it"));
                    }
                    Member::Text(text)
                }
                Slot::Object => {
                    let text: &'de RawValue = map.next_value()?;
                    let object: Object = serde_json::from_str(text.get())
                        .map_err(|_| refuse("not an object the full path accepts"))?;
                    if object.reserved {
                        return Err(refuse("the reserved metadata key"));
                    }
                    Member::Text(text)
                }
                Slot::Richer => return Err(refuse("a member the full path reads")),
            };
            members.push((key, member));
        }
        if seen & shape.required != shape.required {
            return Err(refuse("a required key is missing"));
        }
        Ok(Event { kind, members })
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;
    use crate::rules::EventView;
    use crate::{schema, Kind, Protocol};

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
        assert_eq!(slot("RUN_FINISHED", "outcome"), Some(Slot::Richer));
        assert_eq!(slot("STATE_DELTA", "delta"), Some(Slot::Richer));
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
        for refused in [
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
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"success"}}"#,
            r#"{"type":"THINKING_START"}"#,
            r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"hi"} x"#,
            "[]",
        ] {
            assert!(!read(refused), "{refused}");
        }
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
