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
    match remembered_help(protocol, key, known) {
        Some(help) => diagnostic.with_help(help),
        None => diagnostic,
    }
}

/// The help of the finding for `key` among `known`: what the key came
/// with, the key it is nearest to, or the keys the object may have.
fn help(protocol: Protocol, key: &str, known: &[&str]) -> Option<String> {
    if protocol == Protocol::V1_0 && crate::types::v1::ADDED_IN_1_1.contains(&key) {
        return Some(format!(
            "'{key}' came with AG-UI 1.1; a 1.0 receiver strips it: declare protocolVersion \"1.1\" if the sender speaks 1.1"
        ));
    }
    match suggest::closest(key, known.iter().copied()) {
        Some(best) if suggest::is_snake_case(key) => Some(format!(
            "did you mean '{best}'? the Python SDK accepts the snake_case spelling, the TypeScript SDK does not"
        )),
        Some(best) => Some(format!("did you mean '{best}'?")),
        None if known.is_empty() => None,
        None => Some(format!(
            "both SDKs ignore keys the spec does not define; known keys here: {}",
            quoted_list(known)
        )),
    }
}

/// Keys longer than this are not remembered (a key is user data).
const REMEMBERED_KEY_LEN: usize = 64;
/// How many helps a thread remembers.
const REMEMBERED_HELPS: usize = 64;

/// One help worked out, and what it was worked out for.
struct Remembered {
    protocol: Protocol,
    key: String,
    known: Vec<String>,
    help: Option<String>,
}

thread_local! {
    /// The helps of this thread's latest findings: a document with a key
    /// the protocol does not know usually has it on every message, and
    /// measuring it against every known key (and listing them) was most
    /// of the cost of such a document.
    static HELPS: std::cell::RefCell<(Vec<Remembered>, usize)> =
        const { std::cell::RefCell::new((Vec::new(), 0)) };
}

/// [`help`], remembered for the latest keys seen by this thread.
fn remembered_help(protocol: Protocol, key: &str, known: &[&str]) -> Option<String> {
    if key.len() > REMEMBERED_KEY_LEN {
        return help(protocol, key, known);
    }
    let same = |r: &Remembered| {
        r.protocol == protocol
            && r.key == key
            && r.known.len() == known.len()
            && r.known.iter().zip(known).all(|(a, b)| a == b)
    };
    HELPS.with_borrow_mut(|(remembered, next)| {
        if let Some(found) = remembered.iter().find(|r| same(r)) {
            return found.help.clone();
        }
        let worked_out = help(protocol, key, known);
        let entry = Remembered {
            protocol,
            key: key.to_string(),
            known: known.iter().map(|k| k.to_string()).collect(),
            help: worked_out.clone(),
        };
        if remembered.len() < REMEMBERED_HELPS {
            remembered.push(entry);
        } else {
            remembered[*next % REMEMBERED_HELPS] = entry;
            *next = (*next + 1) % REMEMBERED_HELPS;
        }
        worked_out
    })
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
/// not have). The schema is generated, and every holder's keys read from
/// it, the first time a version's unknown key is reported, never for a
/// document without one.
pub(crate) fn known_keys(protocol: Protocol, holder: Holder<'_>) -> &'static [&'static str] {
    static KEYS: [OnceLock<KnownKeys>; Protocol::ALL.len()] =
        [const { OnceLock::new() }; Protocol::ALL.len()];
    let keys = KEYS[protocol.index()].get_or_init(|| KnownKeys::of(protocol));
    let list = match holder {
        Holder::Input => &keys.input,
        Holder::Message(role) => match keys.messages.iter().find(|(r, _)| *r == role) {
            Some((_, list)) => list,
            None => return &[],
        },
        Holder::ToolCall => &keys.tool_call,
        Holder::Function => &keys.function,
        Holder::Tool => &keys.tool,
        Holder::Context => &keys.context,
        Holder::ResumeEntry => &keys.resume_entry,
    };
    list
}

/// The keys of every holder of one version's RunAgentInput schema.
struct KnownKeys {
    input: Vec<&'static str>,
    /// Each message role's keys.
    messages: Vec<(&'static str, Vec<&'static str>)>,
    tool_call: Vec<&'static str>,
    function: Vec<&'static str>,
    tool: Vec<&'static str>,
    context: Vec<&'static str>,
    resume_entry: Vec<&'static str>,
}

impl KnownKeys {
    fn of(protocol: Protocol) -> Self {
        static SCHEMAS: [OnceLock<Option<Value>>; Protocol::ALL.len()] =
            [const { OnceLock::new() }; Protocol::ALL.len()];
        let schema: Option<&'static Value> = SCHEMAS[protocol.index()]
            .get_or_init(|| super::generate(protocol, Kind::RunAgentInput))
            .as_ref();
        let definition = |name: &str| schema.and_then(|s| s.get("$defs")?.get(name));
        let keys = |object: Option<&'static Value>| -> Vec<&'static str> {
            object
                .and_then(|o| o.get("properties")?.as_object())
                .map(|properties| properties.keys().map(String::as_str).collect())
                .unwrap_or_default()
        };
        let messages = definition("Message")
            .and_then(|m| m.get("oneOf")?.as_array())
            .map(|branches| {
                branches
                    .iter()
                    .filter_map(|branch| {
                        let role = branch.pointer("/properties/role/const")?.as_str()?;
                        Some((role, keys(Some(branch))))
                    })
                    .collect()
            })
            .unwrap_or_default();
        KnownKeys {
            input: keys(schema),
            messages,
            tool_call: keys(definition("ToolCall")),
            function: keys(definition("FunctionCall")),
            tool: keys(definition("Tool")),
            context: keys(definition("Context")),
            resume_entry: keys(definition("ResumeEntry")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remembered_help_is_that_of_its_own_key_known_keys_and_version() {
        let help = |protocol, key: &str, known: &[&str]| {
            unknown_field(protocol, "/messages/0", key, known).help
        };
        // Twice: the second round is answered from what was remembered.
        for _ in 0..2 {
            assert_eq!(
                help(Protocol::V1_1, "toolCallid", &["toolCallId", "content"]).as_deref(),
                Some("did you mean 'toolCallId'?")
            );
            assert_eq!(
                help(Protocol::V1_1, "toolCallid", &["content"]).as_deref(),
                Some("both SDKs ignore keys the spec does not define; known keys here: 'content'")
            );
            let in_1_0 = help(Protocol::V1_0, "encryptedValueType", &["content"]);
            assert!(in_1_0.is_some_and(|h| h.contains("came with AG-UI 1.1")));
            let in_1_1 = help(Protocol::V1_1, "encryptedValueType", &["content"]);
            assert!(in_1_1.is_some_and(|h| !h.contains("came with AG-UI 1.1")));
            assert_eq!(help(Protocol::V1_1, "colour", &[]), None);
        }
        // More keys than are remembered, and a key too long to remember:
        // each still gets its own help.
        for i in 0..(3 * REMEMBERED_HELPS) {
            let key = format!("zz{i}");
            assert_eq!(
                help(Protocol::V1_1, &key, &["content"]).as_deref(),
                Some("both SDKs ignore keys the spec does not define; known keys here: 'content'"),
                "{key}"
            );
        }
        let long = "k".repeat(REMEMBERED_KEY_LEN + 1);
        assert!(help(Protocol::V1_1, &long, &["content"]).is_some());
    }

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
