//! What the schema of each protocol version asks of the flat structs
//! beyond JSON types: which keys each object, message role, content part
//! type and source type takes, which are required, where `null` is
//! refused, and the constants (`type: "function"`, a resume `status`).
//!
//! Tests hold every table and rule here to the generated schema of each
//! version, so the schemas stay the one source of truth.

use super::borrowed::{
    Any, Content, Context, Message, Part, ResumeEntry, RunAgentInput, Source, Tool, ToolCall,
};
use crate::Protocol;

/// The keys of a message, one bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Keys(u16);

impl Keys {
    const NONE: Keys = Keys(0);
    const ID: Keys = Keys(1);
    const CONTENT: Keys = Keys(1 << 1);
    const NAME: Keys = Keys(1 << 2);
    const TOOL_CALLS: Keys = Keys(1 << 3);
    const TOOL_CALL_ID: Keys = Keys(1 << 4);
    const ERROR: Keys = Keys(1 << 5);
    const ENCRYPTED_VALUE: Keys = Keys(1 << 6);
    const ACTIVITY_TYPE: Keys = Keys(1 << 7);
    const ENCRYPTED_VALUE_TYPE: Keys = Keys(1 << 8);
    const METADATA: Keys = Keys(1 << 9);
    const SUBAGENT_RUN_ID: Keys = Keys(1 << 10);

    /// Every key with its wire name (`role` is always required and is not
    /// in the set).
    #[cfg(test)]
    pub(super) const NAMES: [(Keys, &'static str); 11] = [
        (Keys::ID, "id"),
        (Keys::CONTENT, "content"),
        (Keys::NAME, "name"),
        (Keys::TOOL_CALLS, "toolCalls"),
        (Keys::TOOL_CALL_ID, "toolCallId"),
        (Keys::ERROR, "error"),
        (Keys::ENCRYPTED_VALUE, "encryptedValue"),
        (Keys::ACTIVITY_TYPE, "activityType"),
        (Keys::ENCRYPTED_VALUE_TYPE, "encryptedValueType"),
        (Keys::METADATA, "metadata"),
        (Keys::SUBAGENT_RUN_ID, "subagentRunId"),
    ];

    const fn or(self, other: Keys) -> Keys {
        Keys(self.0 | other.0)
    }

    /// Whether every key of `other` is in `self`.
    pub(super) fn contains(self, other: Keys) -> bool {
        self.0 & other.0 == other.0
    }

    fn of(message: &Message<'_>) -> Keys {
        let mut keys = Keys::NONE;
        for (present, key) in [
            (message.id.is_some(), Keys::ID),
            (message.content.is_some(), Keys::CONTENT),
            (message.name.is_some(), Keys::NAME),
            (message.tool_calls.is_some(), Keys::TOOL_CALLS),
            (message.tool_call_id.is_some(), Keys::TOOL_CALL_ID),
            (message.error.is_some(), Keys::ERROR),
            (message.encrypted_value.is_some(), Keys::ENCRYPTED_VALUE),
            (message.activity_type.is_some(), Keys::ACTIVITY_TYPE),
            (
                message.encrypted_value_type.is_some(),
                Keys::ENCRYPTED_VALUE_TYPE,
            ),
            (message.metadata.is_some(), Keys::METADATA),
            (message.subagent_run_id.is_some(), Keys::SUBAGENT_RUN_ID),
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
/// What 1.0 adds to every role.
const V1_0_COMMON: Keys = Keys::METADATA.or(Keys::SUBAGENT_RUN_ID);
/// What 1.0 adds to every role that carries a provider's artefact.
const V1_0_ENCRYPTED: Keys = V1_0_COMMON.or(Keys::ENCRYPTED_VALUE);
/// What 1.1 adds to those.
const V1_1_ENCRYPTED: Keys = V1_0_ENCRYPTED.or(Keys::ENCRYPTED_VALUE_TYPE);

/// Every role, as types.md defines its message (pre-1.0).
const ROLES_V0: [RoleShape; 7] = [
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

/// Every role of 1.x, given what the version adds to the roles that carry
/// a provider's artefact (`encrypted`).
const fn roles_1x(encrypted: Keys) -> [RoleShape; 7] {
    [
        RoleShape {
            role: "developer",
            allowed: TEXT_MESSAGE.or(encrypted),
            required: ID_AND_CONTENT,
            content: ContentType::Text,
        },
        RoleShape {
            role: "system",
            allowed: TEXT_MESSAGE.or(encrypted),
            required: ID_AND_CONTENT,
            content: ContentType::Text,
        },
        RoleShape {
            role: "assistant",
            allowed: TEXT_MESSAGE.or(Keys::TOOL_CALLS).or(encrypted),
            required: Keys::ID,
            content: ContentType::Text,
        },
        RoleShape {
            role: "user",
            allowed: TEXT_MESSAGE.or(encrypted),
            required: ID_AND_CONTENT,
            content: ContentType::TextOrParts,
        },
        RoleShape {
            role: "tool",
            allowed: ID_AND_CONTENT
                .or(Keys::TOOL_CALL_ID)
                .or(Keys::ERROR)
                .or(encrypted),
            required: ID_AND_CONTENT.or(Keys::TOOL_CALL_ID),
            content: ContentType::TextOrParts,
        },
        RoleShape {
            role: "activity",
            allowed: ID_AND_CONTENT.or(Keys::ACTIVITY_TYPE).or(V1_0_COMMON),
            required: ID_AND_CONTENT.or(Keys::ACTIVITY_TYPE),
            content: ContentType::Object,
        },
        RoleShape {
            role: "reasoning",
            allowed: ID_AND_CONTENT.or(encrypted),
            required: ID_AND_CONTENT,
            content: ContentType::Text,
        },
    ]
}

const ROLES_V1_0: [RoleShape; 7] = roles_1x(V1_0_ENCRYPTED);
const ROLES_V1_1: [RoleShape; 7] = roles_1x(V1_1_ENCRYPTED);

/// Every role of `protocol`'s messages.
pub(super) fn roles(protocol: Protocol) -> &'static [RoleShape; 7] {
    match protocol {
        Protocol::V0 => &ROLES_V0,
        Protocol::V1_0 => &ROLES_V1_0,
        Protocol::V1_1 => &ROLES_V1_1,
    }
}

/// The media part types; `text` is the other part type.
pub(super) const MEDIA_TYPES: [&str; 4] = ["image", "audio", "video", "document"];

/// Whether an optional `any` slot holds what `protocol` admits there:
/// pre-1.0 admits `null`, 1.x refuses it.
fn any_fits(slot: Option<&Any>, protocol: Protocol) -> bool {
    !(protocol.is_1x() && slot.is_some_and(|any| any.null))
}

/// Whether the input has the shape the schema of `protocol` asks for,
/// given that every value it holds already has the right JSON type: all
/// of it but its messages, which are read later, one at a time, and held
/// to [`message_fits`] each.
pub(super) fn fits(input: &RunAgentInput<'_>, protocol: Protocol) -> bool {
    let required = input.thread_id.is_some() && input.run_id.is_some();
    let top = if protocol.is_1x() {
        input.messages.is_some()
            && any_fits(input.state.as_ref(), protocol)
            && any_fits(input.forwarded_props.as_ref(), protocol)
    } else {
        // Pre-1.0 requires every list and both `any` slots, and has no
        // declaration and no resume.
        input.messages.is_some()
            && input.tools.is_some()
            && input.context.is_some()
            && input.state.is_some()
            && input.forwarded_props.is_some()
            && input.protocol_version.is_none()
            && input.resume.is_none()
    };
    required
        && top
        && input.tools.iter().flatten().all(|t| tool_fits(t, protocol))
        && input.context.iter().flatten().all(context_fits)
        && input.resume.iter().flatten().all(resume_fits)
}

fn context_fits(context: &Context<'_>) -> bool {
    context.description.is_some() && context.value.is_some()
}

fn tool_fits(tool: &Tool<'_>, protocol: Protocol) -> bool {
    let named = tool.name.is_some() && tool.description.is_some();
    if protocol.is_1x() {
        named && tool.parameters.is_none_or(|p| p.get() != "null")
    } else {
        named && tool.parameters.is_some() && tool.metadata.is_none()
    }
}

/// A resume entry (1.x only: pre-1.0 refuses `resume` as a whole).
fn resume_fits(entry: &ResumeEntry<'_>) -> bool {
    entry.interrupt_id.is_some()
        && entry
            .status
            .as_ref()
            .is_some_and(|s| matches!(s.as_str(), "resolved" | "cancelled"))
        && any_fits(entry.payload.as_ref(), Protocol::NEWEST)
}

/// Whether `message` has the shape the schema of `protocol` asks for.
pub(super) fn message_fits(message: &Message<'_>, protocol: Protocol) -> bool {
    let Some(role) = &message.role else {
        return false;
    };
    let Some(shape) = roles(protocol).iter().find(|r| r.role == role.as_str()) else {
        return false;
    };
    let keys = Keys::of(message);
    if !shape.allowed.contains(keys) || !keys.contains(shape.required) {
        return false;
    }
    let content_fits = match (&message.content, shape.content) {
        (None, _) => true,
        (Some(Content::Text(_)), ContentType::Text | ContentType::TextOrParts) => true,
        (Some(Content::Parts(parts)), ContentType::TextOrParts) => {
            parts.iter().all(|p| part_fits(p, protocol))
        }
        (Some(Content::Object), ContentType::Object) => true,
        _ => false,
    };
    content_fits
        && message
            .tool_calls
            .iter()
            .flatten()
            .all(|c| tool_call_fits(c, protocol))
}

fn tool_call_fits(call: &ToolCall<'_>, protocol: Protocol) -> bool {
    let keys_fit = (protocol.is_1x() || call.metadata.is_none())
        && (protocol >= Protocol::V1_1 || call.encrypted_value_type.is_none());
    keys_fit
        && call.id.is_some()
        && call.kind.as_ref().is_some_and(|k| k.as_str() == "function")
        && call
            .function
            .as_ref()
            .is_some_and(|f| f.name.is_some() && f.arguments.is_some())
}

fn part_fits(part: &Part<'_>, protocol: Protocol) -> bool {
    // An unknown key of a part or a source is the full path's to report:
    // which branch of the content union the schema blames is its to say.
    if !part.unknown.is_empty() || part.source.as_ref().is_some_and(|s| !s.unknown.is_empty()) {
        return false;
    }
    // 1.x gives every part an `id` and a `metadata` that is not `null`;
    // pre-1.0 has neither on a text part and any `metadata` on media.
    let v1 = protocol.is_1x();
    if !v1 && part.id.is_some() {
        return false;
    }
    let metadata_fits = any_fits(part.metadata.as_ref(), protocol);
    match part.kind.as_ref().map(|k| k.as_str()) {
        Some("text") => {
            part.text.is_some()
                && part.source.is_none()
                && (if v1 {
                    metadata_fits
                } else {
                    part.metadata.is_none()
                })
        }
        Some(media) if MEDIA_TYPES.contains(&media) => {
            part.text.is_none()
                && metadata_fits
                && part
                    .source
                    .as_ref()
                    .is_some_and(|s| source_fits(s, protocol))
        }
        _ => false,
    }
}

fn source_fits(source: &Source<'_>, protocol: Protocol) -> bool {
    let (mime_required, provider_allowed) = match source.kind.as_ref().map(|k| k.as_str()) {
        Some("data") => (true, false),
        Some("url") => (false, false),
        Some("file") if protocol.is_1x() => (false, true),
        _ => return false,
    };
    source.value.is_some()
        && (source.mime_type.is_some() || !mime_required)
        && (source.provider.is_none() || provider_allowed)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use serde::Deserialize;
    use serde_json::{json, Value};

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

    fn generated(protocol: Protocol, kind: Kind) -> Value {
        crate::schema::generate(protocol, kind).expect("a kind of the version")
    }

    /// A valid value for `key` of an object whose schema is `object`.
    fn sample(key: &str, object: &Value) -> Value {
        let property = &object["properties"][key];
        if let Some(constant) = property.get("const") {
            return constant.clone();
        }
        match key {
            "type" => json!("function"),
            "source" => json!({"type": "url", "value": "https://example.test/a"}),
            "metadata" => json!({"any": [1, null]}),
            "state" | "forwardedProps" | "payload" => json!({"any": [1, null]}),
            "messages" | "tools" | "context" | "resume" | "toolCalls" => json!([]),
            "parameters" => json!({"type": "object"}),
            "function" => json!({"name": "f", "arguments": "{}"}),
            "status" => json!("resolved"),
            "content" if property["type"] == "object" => json!({"any": 1}),
            _ => Value::String("text".into()),
        }
    }

    /// Whether the schema of a property takes `null`: only an `any` slot
    /// with no constraint does (pre-1.0's `state`, say).
    fn admits_null(property: &Value) -> bool {
        ["type", "$ref", "not", "const", "anyOf", "oneOf"]
            .iter()
            .all(|k| property.get(k).is_none())
    }

    /// For an object schema (`variant`, one of `every_key`'s holders): the
    /// object of its required keys fits; with each optional key it still
    /// fits, with a key it does not define it does not (or the reader
    /// notes the key as unknown, which `fits` tells); without any
    /// required key it does not; with `null` for a key it fits exactly when
    /// the key's schema takes `null`.
    fn check_object(variant: &Value, every_key: &BTreeSet<String>, fits: &dyn Fn(&str) -> bool) {
        assert_eq!(variant["additionalProperties"], json!(false), "{variant}");
        let allowed = keys_of(variant, "properties");
        let required = keys_of(variant, "required");
        let object = |keys: &BTreeSet<String>, null: Option<&str>| {
            let map: serde_json::Map<String, Value> = keys
                .iter()
                .map(|k| {
                    let value = if Some(k.as_str()) == null {
                        Value::Null
                    } else {
                        sample(k, variant)
                    };
                    (k.clone(), value)
                })
                .collect();
            Value::Object(map).to_string()
        };
        let mut base = required.clone();
        if variant["properties"]["type"].get("const").is_some() {
            base.insert("type".into());
        }
        assert!(fits(&object(&base, None)), "{}", object(&base, None));
        for key in every_key.iter().chain(["extra".to_string()].iter()) {
            let mut more = base.clone();
            more.insert(key.clone());
            let text = object(&more, None);
            assert_eq!(fits(&text), allowed.contains(key), "{text}");
            if allowed.contains(key) {
                let text = object(&more, Some(key));
                let expected = admits_null(&variant["properties"][key]);
                assert_eq!(fits(&text), expected, "{text}");
            }
        }
        for key in &required {
            let mut fewer = base.clone();
            fewer.remove(key);
            assert!(!fits(&object(&fewer, None)), "{}", object(&fewer, None));
        }
    }

    /// [`check_object`] on each variant of `schema`, a `oneOf` told apart
    /// by `type`.
    fn check_variants(schema: &Value, fits: &dyn Fn(&str) -> bool) {
        let variants = schema["oneOf"].as_array().expect("a oneOf");
        let every_key: BTreeSet<String> = variants
            .iter()
            .flat_map(|v| keys_of(v, "properties"))
            .collect();
        for variant in variants {
            check_object(variant, &every_key, fits);
        }
    }

    /// Whether `text` reads as a `T` that `fits` accepts.
    fn reads<'a, T: Deserialize<'a>>(text: &'a str, fits: impl Fn(&T) -> bool) -> bool {
        serde_json::from_str::<T>(text).is_ok_and(|value| fits(&value))
    }

    #[test]
    fn part_and_source_rules_are_the_generated_schema() {
        for protocol in Protocol::ALL {
            let schema = generated(protocol, Kind::InputContent);
            check_variants(&schema, &|text| {
                reads(text, |p: &Part<'_>| part_fits(p, protocol))
            });
            // And the keys of other versions' parts.
            let others: BTreeSet<String> = Protocol::ALL
                .iter()
                .filter_map(|&p| crate::schema::generate(p, Kind::InputContent))
                .flat_map(|s| s["oneOf"].as_array().cloned().unwrap_or_default())
                .flat_map(|v| keys_of(&v, "properties"))
                .collect();
            for variant in schema["oneOf"].as_array().expect("a oneOf") {
                check_object(variant, &others, &|text| {
                    reads(text, |p: &Part<'_>| part_fits(p, protocol))
                });
            }
            let defs = &schema["$defs"];
            let sources = defs
                .get("PartSource")
                .or_else(|| defs.get("InputContentSource"))
                .expect("the sources");
            check_variants(sources, &|text| {
                reads(text, |s: &Source<'_>| {
                    source_fits(s, protocol) && s.unknown.is_empty()
                })
            });
            // A source type the version does not define does not fit.
            let defined: BTreeSet<String> = sources["oneOf"]
                .as_array()
                .expect("a oneOf")
                .iter()
                .filter_map(|v| v["properties"]["type"]["const"].as_str())
                .map(str::to_owned)
                .collect();
            for kind in ["data", "url", "file", "blob"] {
                let text = json!({"type": kind, "value": "v", "mimeType": "image/png"}).to_string();
                assert_eq!(
                    reads(&text, |s: &Source<'_>| source_fits(s, protocol)),
                    defined.contains(kind),
                    "{protocol} {text}"
                );
            }
        }
    }

    #[test]
    fn object_rules_are_the_generated_schema() {
        // Each object is also offered the keys other versions define.
        let every_key = |kind: Kind| -> BTreeSet<String> {
            Protocol::ALL
                .iter()
                .filter_map(|&p| crate::schema::generate(p, kind))
                .flat_map(|schema| keys_of(&schema, "properties"))
                .collect()
        };
        for protocol in Protocol::ALL {
            let input = generated(protocol, Kind::RunAgentInput);
            check_object(&input, &every_key(Kind::RunAgentInput), &|text| {
                crate::fast::borrowed::read_input(text.as_bytes(), usize::MAX).is_some_and(|i| {
                    fits(&i, protocol)
                        && i.unknown.is_empty()
                        && i.messages.is_none_or(|messages| {
                            messages.each(|_, m| message_fits(&m, protocol) && m.unknown.is_empty())
                        })
                })
            });
            let tool = generated(protocol, Kind::Tool);
            check_object(&tool, &every_key(Kind::Tool), &|text| {
                reads(text, |t: &Tool<'_>| {
                    tool_fits(t, protocol) && t.unknown.is_empty()
                })
            });
            let call = generated(protocol, Kind::ToolCall);
            check_object(&call, &every_key(Kind::ToolCall), &|text| {
                reads(text, |c: &ToolCall<'_>| {
                    tool_call_fits(c, protocol) && c.unknown.is_empty()
                })
            });
            let context = generated(protocol, Kind::Context);
            check_object(&context, &every_key(Kind::Context), &|text| {
                reads(text, |c: &Context<'_>| {
                    context_fits(c) && c.unknown.is_empty()
                })
            });
            if protocol.is_1x() {
                let entry = generated(protocol, Kind::ResumeEntry);
                check_object(&entry, &every_key(Kind::ResumeEntry), &|text| {
                    reads(text, |e: &ResumeEntry<'_>| {
                        resume_fits(e) && e.unknown.is_empty()
                    })
                });
                let statuses = &entry["$defs"]["ResumeStatus"];
                let listed: Vec<&Value> = statuses["enum"]
                    .as_array()
                    .map(|e| e.iter().collect())
                    .or_else(|| {
                        statuses["oneOf"]
                            .as_array()
                            .map(|v| v.iter().map(|s| &s["const"]).collect())
                    })
                    .expect("the statuses");
                assert_eq!(listed, [&json!("resolved"), &json!("cancelled")]);
            }
        }
    }

    #[test]
    fn role_tables_are_the_generated_schema() {
        for protocol in Protocol::ALL {
            let schema = generated(protocol, Kind::Message);
            let variants = schema["oneOf"].as_array().expect("a oneOf of roles");
            let roles = roles(protocol);
            assert_eq!(variants.len(), roles.len());
            for variant in variants {
                let role = variant["properties"]["role"]["const"]
                    .as_str()
                    .expect("role const");
                let shape = roles.iter().find(|r| r.role == role).expect("a table row");
                let context = format!("{protocol} {role}");
                assert_eq!(
                    names(shape.allowed),
                    keys_of(variant, "properties"),
                    "{context}"
                );
                assert_eq!(
                    names(shape.required),
                    keys_of(variant, "required"),
                    "{context}"
                );
                assert_eq!(
                    variant["additionalProperties"],
                    Value::Bool(false),
                    "{context}"
                );
                let content = &variant["properties"]["content"];
                match shape.content {
                    ContentType::Text => assert_eq!(content["type"], "string", "{context}"),
                    ContentType::Object => assert_eq!(content["type"], "object", "{context}"),
                    ContentType::TextOrParts => {
                        let name = content["$ref"]
                            .as_str()
                            .and_then(|r| r.strip_prefix("#/$defs/"))
                            .expect("a reference");
                        let types: Vec<&Value> = schema["$defs"][name]["anyOf"]
                            .as_array()
                            .expect("text or parts")
                            .iter()
                            .map(|v| &v["type"])
                            .collect();
                        assert_eq!(types, [&json!("string"), &json!("array")], "{context}");
                    }
                }
                // Metadata is an object, never null, where a role has it.
                if shape.allowed.contains(Keys::METADATA) {
                    assert_eq!(variant["properties"]["metadata"]["type"], "object");
                }
            }
        }
    }
}
