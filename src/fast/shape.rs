//! What the schema asks of the flat structs beyond JSON types: which keys
//! each message role, content part type and source type takes, which are
//! required, and the constants (`type: "function"`).
//!
//! Tests hold the role tables and the content part and source rules to
//! the generated schema, so the schema stays the one source of truth.

use super::borrowed::{Content, Message, Part, RunAgentInput, Source, ToolCall};

/// The keys of a message, one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Keys(u16);

impl Keys {
    const ID: Keys = Keys(1);
    const CONTENT: Keys = Keys(1 << 1);
    const NAME: Keys = Keys(1 << 2);
    const TOOL_CALLS: Keys = Keys(1 << 3);
    const TOOL_CALL_ID: Keys = Keys(1 << 4);
    const ERROR: Keys = Keys(1 << 5);
    const ENCRYPTED_VALUE: Keys = Keys(1 << 6);
    const ACTIVITY_TYPE: Keys = Keys(1 << 7);

    /// Every key with its wire name (`role` is always required and is not
    /// in the set).
    #[cfg(test)]
    pub(super) const NAMES: [(Keys, &'static str); 8] = [
        (Keys::ID, "id"),
        (Keys::CONTENT, "content"),
        (Keys::NAME, "name"),
        (Keys::TOOL_CALLS, "toolCalls"),
        (Keys::TOOL_CALL_ID, "toolCallId"),
        (Keys::ERROR, "error"),
        (Keys::ENCRYPTED_VALUE, "encryptedValue"),
        (Keys::ACTIVITY_TYPE, "activityType"),
    ];

    const fn or(self, other: Keys) -> Keys {
        Keys(self.0 | other.0)
    }

    /// Whether every key of `other` is in `self`.
    pub(super) fn contains(self, other: Keys) -> bool {
        self.0 & other.0 == other.0
    }

    fn of(message: &Message<'_>) -> Keys {
        let mut keys = Keys(0);
        for (present, key) in [
            (message.id.is_some(), Keys::ID),
            (message.content.is_some(), Keys::CONTENT),
            (message.name.is_some(), Keys::NAME),
            (message.tool_calls.is_some(), Keys::TOOL_CALLS),
            (message.tool_call_id.is_some(), Keys::TOOL_CALL_ID),
            (message.error.is_some(), Keys::ERROR),
            (message.encrypted_value.is_some(), Keys::ENCRYPTED_VALUE),
            (message.activity_type.is_some(), Keys::ACTIVITY_TYPE),
        ] {
            if present {
                keys = keys.or(key);
            }
        }
        keys
    }
}

/// Which JSON type a role's `content` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ContentType {
    /// A string.
    Text,
    /// A string or an array of content parts.
    TextOrParts,
    /// An object.
    Object,
}

/// What the schema asks of a message of one role.
#[derive(Debug, Clone, Copy)]
pub(super) struct RoleShape {
    /// The `role` value.
    pub(super) role: &'static str,
    /// The keys it may have besides `role`.
    pub(super) allowed: Keys,
    /// The keys it must have besides `role`.
    pub(super) required: Keys,
    /// The type of its `content`.
    pub(super) content: ContentType,
}

const TEXT_MESSAGE: Keys = Keys::ID.or(Keys::CONTENT).or(Keys::NAME);
const ID_AND_CONTENT: Keys = Keys::ID.or(Keys::CONTENT);

/// Every role, as types.md defines its message.
pub(super) const ROLES: [RoleShape; 7] = [
    RoleShape {
        role: "developer",
        allowed: TEXT_MESSAGE,
        required: ID_AND_CONTENT,
        content: ContentType::Text,
    },
    RoleShape {
        role: "system",
        allowed: TEXT_MESSAGE,
        required: ID_AND_CONTENT,
        content: ContentType::Text,
    },
    RoleShape {
        role: "assistant",
        allowed: TEXT_MESSAGE.or(Keys::TOOL_CALLS),
        required: Keys::ID,
        content: ContentType::Text,
    },
    RoleShape {
        role: "user",
        allowed: TEXT_MESSAGE,
        required: ID_AND_CONTENT,
        content: ContentType::TextOrParts,
    },
    RoleShape {
        role: "tool",
        allowed: ID_AND_CONTENT
            .or(Keys::TOOL_CALL_ID)
            .or(Keys::ERROR)
            .or(Keys::ENCRYPTED_VALUE),
        required: ID_AND_CONTENT.or(Keys::TOOL_CALL_ID),
        content: ContentType::Text,
    },
    RoleShape {
        role: "activity",
        allowed: ID_AND_CONTENT.or(Keys::ACTIVITY_TYPE),
        required: ID_AND_CONTENT.or(Keys::ACTIVITY_TYPE),
        content: ContentType::Object,
    },
    RoleShape {
        role: "reasoning",
        allowed: ID_AND_CONTENT.or(Keys::ENCRYPTED_VALUE),
        required: ID_AND_CONTENT,
        content: ContentType::Text,
    },
];

/// The media part types; `text` is the other part type.
pub(super) const MEDIA_TYPES: [&str; 4] = ["image", "audio", "video", "document"];

/// Whether the whole input has the shape its schema asks for, given that
/// every value it holds already has the right JSON type.
pub(super) fn fits(input: &RunAgentInput<'_>) -> bool {
    let required = input.thread_id.is_some()
        && input.run_id.is_some()
        && input.state.is_some()
        && input.forwarded_props.is_some();
    let (Some(messages), Some(tools), Some(context)) =
        (&input.messages, &input.tools, &input.context)
    else {
        return false;
    };
    required
        && messages.iter().all(message_fits)
        && tools
            .iter()
            .all(|t| t.name.is_some() && t.description.is_some() && t.parameters.is_some())
        && context
            .iter()
            .all(|c| c.description.is_some() && c.value.is_some())
}

fn message_fits(message: &Message<'_>) -> bool {
    let Some(role) = &message.role else {
        return false;
    };
    let Some(shape) = ROLES.iter().find(|r| r.role == role.as_str()) else {
        return false;
    };
    let keys = Keys::of(message);
    if !shape.allowed.contains(keys) || !keys.contains(shape.required) {
        return false;
    }
    let content_fits = match (&message.content, shape.content) {
        (None, _) => true,
        (Some(Content::Text(_)), ContentType::Text | ContentType::TextOrParts) => true,
        (Some(Content::Parts(parts)), ContentType::TextOrParts) => parts.iter().all(part_fits),
        (Some(Content::Object), ContentType::Object) => true,
        _ => false,
    };
    content_fits && message.tool_calls.iter().flatten().all(tool_call_fits)
}

fn tool_call_fits(call: &ToolCall<'_>) -> bool {
    call.id.is_some()
        && call.kind.as_ref().is_some_and(|k| k.as_str() == "function")
        && call
            .function
            .as_ref()
            .is_some_and(|f| f.name.is_some() && f.arguments.is_some())
}

fn part_fits(part: &Part<'_>) -> bool {
    match part.kind.as_ref().map(|k| k.as_str()) {
        Some("text") => part.text.is_some() && part.source.is_none() && part.metadata.is_none(),
        Some(media) if MEDIA_TYPES.contains(&media) => {
            part.text.is_none() && part.source.as_ref().is_some_and(source_fits)
        }
        _ => false,
    }
}

fn source_fits(source: &Source<'_>) -> bool {
    let mime_required = match source.kind.as_ref().map(|k| k.as_str()) {
        Some("data") => true,
        Some("url") => false,
        _ => return false,
    };
    source.value.is_some() && (source.mime_type.is_some() || !mime_required)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde_json::Value;

    use super::*;
    use crate::Kind;

    fn keys_of(schema: &Value, field: &str) -> BTreeSet<String> {
        let list: Box<dyn Iterator<Item = String>> = match &schema[field] {
            Value::Object(properties) => Box::new(properties.keys().cloned()),
            Value::Array(required) => {
                Box::new(required.iter().filter_map(Value::as_str).map(str::to_owned))
            }
            _ => Box::new(std::iter::empty()),
        };
        list.filter(|k| k != "role").collect()
    }

    fn names(keys: Keys) -> BTreeSet<String> {
        Keys::NAMES
            .iter()
            .filter(|(key, _)| keys.contains(*key))
            .map(|(_, name)| (*name).to_owned())
            .collect()
    }

    /// A valid value for each key of a content part or its source.
    fn sample(key: &str, variant: &Value) -> Value {
        match key {
            "type" => variant["properties"]["type"]["const"].clone(),
            "source" => serde_json::json!({"type": "url", "value": "https://example.test/a"}),
            "metadata" => serde_json::json!({"any": [1, null]}),
            _ => Value::String("text".into()),
        }
    }

    /// For each variant of `schema` (a `oneOf` told apart by `type`): the
    /// object of its required keys fits, with each optional key it still
    /// fits, without any required key or with a key of another variant it
    /// does not.
    fn check_variants(schema: &Value, fits: impl Fn(&str) -> bool) {
        let variants = schema["oneOf"].as_array().expect("a oneOf");
        let every_key: BTreeSet<String> = variants
            .iter()
            .flat_map(|v| keys_of(v, "properties"))
            .collect();
        for variant in variants {
            let allowed = keys_of(variant, "properties");
            let required = keys_of(variant, "required");
            let object = |keys: &BTreeSet<String>| {
                let map: serde_json::Map<String, Value> = keys
                    .iter()
                    .map(|k| (k.clone(), sample(k, variant)))
                    .collect();
                Value::Object(map).to_string()
            };
            let mut base = required.clone();
            base.insert("type".into());
            assert!(fits(&object(&base)), "{}", object(&base));
            for key in &every_key {
                let mut more = base.clone();
                more.insert(key.clone());
                assert_eq!(
                    fits(&object(&more)),
                    allowed.contains(key),
                    "{}",
                    object(&more)
                );
            }
            for key in &required {
                let mut fewer = base.clone();
                fewer.remove(key);
                assert!(!fits(&object(&fewer)), "{}", object(&fewer));
            }
        }
    }

    #[test]
    fn part_and_source_rules_are_the_generated_schema() {
        let schema = crate::schema::generate(crate::Protocol::V0, Kind::InputContent)
            .expect("a pre-1.0 kind");
        check_variants(&schema, |text| {
            serde_json::from_str::<Part<'_>>(text).is_ok_and(|p| part_fits(&p))
        });
        let sources = &schema["$defs"]["InputContentSource"];
        check_variants(sources, |text| {
            serde_json::from_str::<Source<'_>>(text).is_ok_and(|s| source_fits(&s))
        });
    }

    #[test]
    fn role_tables_are_the_generated_schema() {
        let schema =
            crate::schema::generate(crate::Protocol::V0, Kind::Message).expect("a pre-1.0 kind");
        let variants = schema["oneOf"].as_array().expect("a oneOf of roles");
        assert_eq!(variants.len(), ROLES.len());
        for variant in variants {
            let role = variant["properties"]["role"]["const"]
                .as_str()
                .expect("role const");
            let shape = ROLES.iter().find(|r| r.role == role).expect("a table row");
            assert_eq!(
                names(shape.allowed),
                keys_of(variant, "properties"),
                "{role}"
            );
            assert_eq!(
                names(shape.required),
                keys_of(variant, "required"),
                "{role}"
            );
            assert_eq!(
                variant["additionalProperties"],
                Value::Bool(false),
                "{role}"
            );
            let content = &variant["properties"]["content"];
            let expected = match shape.content {
                ContentType::Text => serde_json::json!({"type": "string"}),
                ContentType::TextOrParts => serde_json::json!({"$ref": "#/$defs/UserContent"}),
                ContentType::Object => serde_json::json!({"type": "object"}),
            };
            for (key, value) in expected.as_object().expect("object") {
                assert_eq!(&content[key], value, "{role} content");
            }
        }
    }
}
