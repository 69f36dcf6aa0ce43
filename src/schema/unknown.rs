//! The `unknown-field` finding, made alike on both paths: the full path
//! makes it from a schema error (its parent schema lists the known keys),
//! the fast path from a key its structs read but no version defines, with
//! the known keys looked up here in the generated schema of the version
//! judging the document.

use std::sync::OnceLock;

use serde_json::Value;

use crate::diagnostic::{Diagnostic, Target};
use crate::{pointer, suggest, Kind, Protocol};

/// The finding for `key` in the object at `at`, whose schema defines
/// `known` (in the schema's order), judged by `protocol`.
pub(crate) fn unknown_field(protocol: Protocol, at: &str, key: &str, known: &[&str]) -> Diagnostic {
    let diagnostic = crate::rules::UNKNOWN_FIELD
        .diagnostic(pointer::push(at, key), format!("unknown key '{key}'"))
        .at(Target::Key);
    if protocol == Protocol::V1_0 && crate::types::v1::ADDED_IN_1_1.contains(&key) {
        return diagnostic.with_help(format!(
            "'{key}' came with AG-UI 1.1; a 1.0 receiver strips it: declare protocolVersion \"1.1\" if the sender speaks 1.1"
        ));
    }
    match suggest::closest(key, known.iter().copied()) {
        Some(best) if suggest::is_snake_case(key) => diagnostic.with_help(format!(
            "did you mean '{best}'? the Python SDK accepts the snake_case spelling, the TypeScript SDK does not"
        )),
        Some(best) => diagnostic.with_help(format!("did you mean '{best}'?")),
        None if known.is_empty() => diagnostic,
        None => diagnostic.with_help(format!(
            "both SDKs ignore keys the spec does not define; known keys here: {}",
            quoted_list(known)
        )),
    }
}

/// `'a', 'b', 'c'`.
pub(crate) fn quoted_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|i| format!("'{i}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An object of a RunAgentInput whose unknown keys the fast path reports.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Holder<'r> {
    /// The input itself.
    Input,
    /// A message of this role.
    Message(&'r str),
    /// A tool call of an assistant message.
    ToolCall,
    /// The `function` of a tool call.
    Function,
    /// A tool.
    Tool,
    /// A piece of context.
    Context,
    /// A resume entry (1.x).
    ResumeEntry,
}

/// The keys the schema of a RunAgentInput of `protocol` defines for
/// `holder`, in the schema's order (empty for a holder the version does
/// not have). The schema is generated the first time a version's unknown
/// key is reported, never for a document without one.
pub(crate) fn known_keys(protocol: Protocol, holder: Holder<'_>) -> Vec<&'static str> {
    static SCHEMAS: [OnceLock<Option<Value>>; Protocol::ALL.len()] =
        [const { OnceLock::new() }; Protocol::ALL.len()];
    let schema = SCHEMAS[protocol.index()]
        .get_or_init(|| super::generate(protocol, Kind::RunAgentInput))
        .as_ref();
    let definition = |name: &str| schema.and_then(|s| s.get("$defs")?.get(name));
    let object = match holder {
        Holder::Input => schema,
        Holder::Message(role) => definition("Message")
            .and_then(|m| m.get("oneOf")?.as_array())
            .and_then(|branches| {
                branches.iter().find(|branch| {
                    branch
                        .pointer("/properties/role/const")
                        .and_then(Value::as_str)
                        == Some(role)
                })
            }),
        Holder::ToolCall => definition("ToolCall"),
        Holder::Function => definition("FunctionCall"),
        Holder::Tool => definition("Tool"),
        Holder::Context => definition("Context"),
        Holder::ResumeEntry => definition("ResumeEntry"),
    };
    object
        .and_then(|o| o.get("properties")?.as_object())
        .map(|properties| properties.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_holder_of_every_version_has_its_keys() {
        for protocol in Protocol::ALL {
            let holders = [
                (Holder::Input, "threadId"),
                (Holder::Message("user"), "content"),
                (Holder::Message("assistant"), "toolCalls"),
                (Holder::Message("tool"), "toolCallId"),
                (Holder::ToolCall, "function"),
                (Holder::Function, "arguments"),
                (Holder::Tool, "parameters"),
                (Holder::Context, "value"),
            ];
            for (holder, key) in holders {
                let known = known_keys(protocol, holder);
                assert!(
                    known.contains(&key),
                    "{protocol} {holder:?}: {known:?} lacks '{key}'"
                );
            }
            let resume = known_keys(protocol, Holder::ResumeEntry);
            assert_eq!(
                resume.contains(&"interruptId"),
                protocol.is_1x(),
                "{protocol}: {resume:?}"
            );
        }
        assert!(known_keys(Protocol::V1_1, Holder::Message("nobody")).is_empty());
    }
}
