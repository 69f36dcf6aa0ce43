//! The kinds of document agui-lint checks, and telling a document's kind from
//! its shape (`--kind auto`).

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

use crate::Protocol;

/// A kind of AG-UI document, each with its own published schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A `RunAgentInput`, the body of the request that starts a run.
    RunAgentInput,
    /// One `Message`.
    Message,
    /// An array of `Message`s.
    Messages,
    /// One `Tool`.
    Tool,
    /// An array of `Tool`s.
    Tools,
    /// One `ToolCall`.
    ToolCall,
    /// One `Context` entry.
    Context,
    /// One `InputContent` part.
    InputContent,
    /// An `AgentCapabilities` declaration.
    Capabilities,
    /// One event of an agent's stream.
    Event,
    /// An array of events, checked as one stream.
    Events,
    /// One `ResumeEntry` (AG-UI 1.x), answering an interrupt.
    ResumeEntry,
    /// One `Interrupt` (AG-UI 1.x), something a run needs to continue.
    Interrupt,
}

/// A kind name that agui-lint does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown kind '{0}' (expected one of: {list})", list = Kind::names().join(", "))]
pub struct UnknownKindName(pub String);

/// A document whose kind could not be told from its shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undetected {
    /// The kinds the document resembles most, best first; empty when it
    /// resembles none.
    pub closest: Vec<Kind>,
}

impl Kind {
    /// Every kind, in the order the schemas are listed.
    pub const ALL: [Kind; 13] = [
        Kind::RunAgentInput,
        Kind::Message,
        Kind::Messages,
        Kind::Tool,
        Kind::Tools,
        Kind::ToolCall,
        Kind::Context,
        Kind::InputContent,
        Kind::Capabilities,
        Kind::Event,
        Kind::Events,
        Kind::ResumeEntry,
        Kind::Interrupt,
    ];

    /// Whether `protocol` defines this kind: resume entries and interrupts
    /// came with AG-UI 1.0.
    pub fn is_in(self, protocol: Protocol) -> bool {
        protocol.is_1x() || !matches!(self, Kind::ResumeEntry | Kind::Interrupt)
    }

    /// The kinds `protocol` defines, in [`Kind::ALL`] order.
    pub fn all_in(protocol: Protocol) -> impl Iterator<Item = Kind> {
        Kind::ALL.into_iter().filter(move |k| k.is_in(protocol))
    }

    /// The kind's position in [`Kind::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// The kebab-case name used on the command line and in schema file names.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::RunAgentInput => "run-agent-input",
            Kind::Message => "message",
            Kind::Messages => "messages",
            Kind::Tool => "tool",
            Kind::Tools => "tools",
            Kind::ToolCall => "tool-call",
            Kind::Context => "context",
            Kind::InputContent => "input-content",
            Kind::Capabilities => "capabilities",
            Kind::Event => "event",
            Kind::Events => "events",
            Kind::ResumeEntry => "resume-entry",
            Kind::Interrupt => "interrupt",
        }
    }

    /// The names of every kind.
    pub fn names() -> Vec<&'static str> {
        Kind::ALL.iter().map(|k| k.as_str()).collect()
    }

    /// The file name of the kind's schema under `schemas/`.
    pub fn schema_file_name(self) -> String {
        format!("{}.schema.json", self.as_str())
    }

    /// The protocol type a document of this kind is, for messages.
    pub fn type_name(self) -> &'static str {
        match self {
            Kind::RunAgentInput => "RunAgentInput",
            Kind::Message => "Message",
            Kind::Messages => "Message[]",
            Kind::Tool => "Tool",
            Kind::Tools => "Tool[]",
            Kind::ToolCall => "ToolCall",
            Kind::Context => "Context",
            Kind::InputContent => "InputContent",
            Kind::Capabilities => "AgentCapabilities",
            Kind::Event => "Event",
            Kind::Events => "Event[]",
            Kind::ResumeEntry => "ResumeEntry",
            Kind::Interrupt => "Interrupt",
        }
    }

    /// Tells a document's kind from its shape.
    ///
    /// Objects are recognised by their distinctive keys (snake_case
    /// spellings included, so that a payload in the Python SDK's spelling is
    /// still checked as what it was meant to be); arrays by their first
    /// object. The empty array is valid both as messages and as tools and is
    /// taken as messages; the empty object is valid only as capabilities.
    /// A scalar cannot be told.
    pub fn detect(value: &Value) -> Result<Kind, Undetected> {
        match value {
            Value::Object(map) if map.is_empty() => Ok(Kind::Capabilities),
            Value::Array(items) if items.is_empty() => Ok(Kind::Messages),
            Value::Object(map) => detect_object(map),
            Value::Array(items) => match items.iter().find(|v| v.is_object()) {
                Some(Value::Object(first)) => match detect_object(first) {
                    Ok(Kind::Message) => Ok(Kind::Messages),
                    Ok(Kind::Tool) => Ok(Kind::Tools),
                    Ok(Kind::Event) => Ok(Kind::Events),
                    // A list of objects that resemble no kind resembles
                    // no list of one.
                    Err(Undetected { closest }) if closest.is_empty() => {
                        Err(Undetected { closest })
                    }
                    _ => Err(Undetected {
                        closest: vec![Kind::Messages, Kind::Tools],
                    }),
                },
                _ => Err(Undetected {
                    closest: vec![Kind::Messages, Kind::Tools],
                }),
            },
            _ => Err(Undetected {
                closest: Vec::new(),
            }),
        }
    }
}

const CAPABILITY_CATEGORIES: [&str; 12] = [
    "identity",
    "transport",
    "tools",
    "output",
    "state",
    "multiAgent",
    "multi_agent",
    "reasoning",
    "multimodal",
    "execution",
    "humanInTheLoop",
    "human_in_the_loop",
];

const CONTENT_TYPES: [&str; 5] = ["text", "image", "audio", "video", "document"];

fn has_any(map: &Map<String, Value>, keys: &[&str]) -> bool {
    keys.iter().any(|k| map.contains_key(*k))
}

/// Whether `type` is written the way event types are (`RUN_STARTED`):
/// upper-case words joined by `_`. Other kinds' `type`s (`"text"`,
/// `"function"`) are lower-case, so a misspelled event type is still
/// checked as an event and reported as such.
fn is_event_type(value: &str) -> bool {
    !value.is_empty()
        && value.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        && value.chars().any(|c| c.is_ascii_uppercase())
}

fn detect_object(map: &Map<String, Value>) -> Result<Kind, Undetected> {
    // Before the other kinds: RUN_STARTED carries `threadId` and `runId`
    // like a RunAgentInput.
    if map
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(is_event_type)
    {
        return Ok(Kind::Event);
    }
    if has_any(
        map,
        &[
            "threadId",
            "runId",
            "thread_id",
            "run_id",
            "forwardedProps",
            "forwarded_props",
        ],
    ) {
        return Ok(Kind::RunAgentInput);
    }
    // 1.x's interrupt answers and interrupts, before messages: an
    // interrupt has an `id` but no `role`.
    if map.contains_key("interruptId") || map.contains_key("interrupt_id") {
        return Ok(Kind::ResumeEntry);
    }
    if map.contains_key("reason") && !map.contains_key("role") {
        return Ok(Kind::Interrupt);
    }
    // A message without its `role` is still best checked as a message: the
    // missing discriminator is then reported as such.
    if map.contains_key("role") || (map.contains_key("id") && map.contains_key("content")) {
        return Ok(Kind::Message);
    }
    if map.contains_key("function") {
        return Ok(Kind::ToolCall);
    }
    if map.contains_key("parameters") {
        return Ok(Kind::Tool);
    }
    match map.get("type").and_then(Value::as_str) {
        Some("function") => return Ok(Kind::ToolCall),
        Some(t) if CONTENT_TYPES.contains(&t) => return Ok(Kind::InputContent),
        _ => {}
    }
    if map.contains_key("source") {
        return Ok(Kind::InputContent);
    }
    if !map.is_empty()
        && map
            .keys()
            .all(|k| CAPABILITY_CATEGORIES.contains(&k.as_str()) || k == "custom")
    {
        return Ok(Kind::Capabilities);
    }
    // Keys shared with other JSON (`name`, `description`, `value`) tell a
    // context or a tool only when they are most of the document: a test
    // case, a package manifest or a configuration with a `name` and a
    // `description` among many keys of its own is no tool.
    if map.contains_key("value") && map.contains_key("description") && most(map, CONTEXT_KEYS) {
        return Ok(Kind::Context);
    }
    if map.contains_key("name") && map.contains_key("description") && most(map, TOOL_KEYS) {
        return Ok(Kind::Tool);
    }
    let mut closest = Vec::new();
    if has_any(map, &["messages", "tools", "context", "state"]) && mostly(map, INPUT_KEYS) {
        closest.push(Kind::RunAgentInput);
    }
    if has_any(map, &["content", "id"]) && mostly(map, MESSAGE_KEYS) {
        closest.push(Kind::Message);
    }
    if has_any(map, &["name", "description"]) && mostly(map, TOOL_KEYS) {
        closest.push(Kind::Tool);
    }
    if has_any(map, &["value", "description"]) && mostly(map, CONTEXT_KEYS) {
        closest.push(Kind::Context);
    }
    if map
        .keys()
        .any(|k| CAPABILITY_CATEGORIES.contains(&k.as_str()))
        && mostly(map, &CAPABILITY_CATEGORIES)
    {
        closest.push(Kind::Capabilities);
    }
    Err(Undetected { closest })
}

/// A RunAgentInput's keys, in both spellings.
const INPUT_KEYS: &[&str] = &[
    "threadId",
    "thread_id",
    "runId",
    "run_id",
    "parentRunId",
    "parent_run_id",
    "state",
    "messages",
    "tools",
    "context",
    "forwardedProps",
    "forwarded_props",
    "resume",
];

/// A message's keys, in both spellings.
const MESSAGE_KEYS: &[&str] = &[
    "id",
    "role",
    "content",
    "name",
    "toolCalls",
    "tool_calls",
    "toolCallId",
    "tool_call_id",
    "error",
    "activityType",
    "activity_type",
    "encryptedValue",
    "encrypted_value",
];

/// A tool's keys.
const TOOL_KEYS: &[&str] = &["name", "description", "parameters", "metadata"];

/// A context entry's keys.
const CONTEXT_KEYS: &[&str] = &["description", "value"];

/// Whether more than half of `map`'s keys are among `own`: enough to tell
/// the kind by keys other JSON shares.
fn most(map: &Map<String, Value>, own: &[&str]) -> bool {
    owned(map, own) * 2 > map.len()
}

/// Whether at least half of `map`'s keys are among `own`: enough for the
/// kind to be named as the closest.
fn mostly(map: &Map<String, Value>, own: &[&str]) -> bool {
    owned(map, own) * 2 >= map.len()
}

/// How many of `map`'s keys are among `own` (a key one or two letters from
/// one of them counts: a misspelt key still belongs to the kind, and is
/// reported as misspelt).
fn owned(map: &Map<String, Value>, own: &[&str]) -> usize {
    map.keys()
        .filter(|key| own.iter().any(|o| o == key || near(key, o)))
        .count()
}

/// Whether `key` is within two edits of `own`, both long enough for that
/// to mean a slip rather than another word.
fn near(key: &str, own: &str) -> bool {
    key.len() > 4 && own.len() > 4 && strsim::levenshtein(key, own) <= 2
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Kind {
    type Err = UnknownKindName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownKindName(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn index_is_the_position_in_all() {
        for (i, kind) in Kind::ALL.into_iter().enumerate() {
            assert_eq!(kind.index(), i);
        }
    }

    #[test]
    fn names_round_trip() {
        for kind in Kind::ALL {
            assert_eq!(kind.as_str().parse::<Kind>(), Ok(kind));
        }
        assert!("messagez".parse::<Kind>().is_err());
    }

    #[test]
    fn detects_each_kind_from_its_shape() {
        let cases = [
            (json!({"threadId": "t", "runId": "r"}), Kind::RunAgentInput),
            (json!({"thread_id": "t"}), Kind::RunAgentInput),
            (
                json!({"id": "m", "role": "user", "content": "hi"}),
                Kind::Message,
            ),
            (
                json!([{"id": "m", "role": "user", "content": "hi"}]),
                Kind::Messages,
            ),
            (
                json!({"name": "n", "description": "d", "parameters": {}}),
                Kind::Tool,
            ),
            (
                json!([{"name": "n", "description": "d", "parameters": {}}]),
                Kind::Tools,
            ),
            (
                json!({"id": "c", "type": "function", "function": {}}),
                Kind::ToolCall,
            ),
            (json!({"description": "d", "value": "v"}), Kind::Context),
            (json!({"type": "text", "text": "hi"}), Kind::InputContent),
            (json!({"type": "image", "source": {}}), Kind::InputContent),
            (json!({"tools": {"supported": true}}), Kind::Capabilities),
            (json!({"custom": {}}), Kind::Capabilities),
            (json!({}), Kind::Capabilities),
            (json!([]), Kind::Messages),
            (
                json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
                Kind::Event,
            ),
            (json!({"type": "TEXT_MESAGE_END"}), Kind::Event),
            (json!([{"type": "RUN_ERROR", "message": "m"}]), Kind::Events),
            (
                json!({"interruptId": "i", "status": "resolved"}),
                Kind::ResumeEntry,
            ),
            (
                json!({"id": "i", "reason": "tool_approval"}),
                Kind::Interrupt,
            ),
        ];
        for (value, kind) in cases {
            assert_eq!(Kind::detect(&value), Ok(kind), "{value}");
        }
    }

    #[test]
    fn undetectable_documents_name_the_closest_kinds() {
        assert_eq!(
            Kind::detect(&json!([1, 2])),
            Err(Undetected {
                closest: vec![Kind::Messages, Kind::Tools]
            })
        );
        assert_eq!(
            Kind::detect(&json!({"messages": [], "tools": []})),
            Err(Undetected {
                closest: vec![Kind::RunAgentInput, Kind::Capabilities]
            })
        );
        assert_eq!(Kind::detect(&json!(3)), Err(Undetected { closest: vec![] }));
        assert_eq!(
            Kind::detect(&json!({"hello": "world"})),
            Err(Undetected { closest: vec![] })
        );
    }

    #[test]
    fn shared_keys_among_many_of_a_documents_own_tell_no_kind() {
        // A conformance test case and a package manifest: a name and a
        // description among keys no tool has.
        let test_case = json!({
            "name": "n", "area": "a", "description": "d", "specPage": "/p",
            "kill": "k", "stream": [{"type": "RUN_STARTED"}], "expect": {},
        });
        assert_eq!(
            Kind::detect(&test_case),
            Err(Undetected { closest: vec![] })
        );
        let manifest = json!({
            "name": "app", "version": "1.0.0", "description": "d",
            "main": "index.js", "scripts": {},
        });
        assert_eq!(Kind::detect(&manifest), Err(Undetected { closest: vec![] }));
        // Half its keys a tool's: named the closest, not taken for one.
        assert_eq!(
            Kind::detect(&json!({"name": "app", "description": "d", "version": "1", "main": "m"})),
            Err(Undetected {
                closest: vec![Kind::Tool]
            })
        );
        assert_eq!(
            Kind::detect(&json!([test_case])),
            Err(Undetected { closest: vec![] })
        );
        // A tool with a key of its own, or a misspelt one, is still a tool.
        for tool in [
            json!({"name": "n", "description": "d", "strict": true}),
            json!({"name": "n", "description": "d", "paramters": {}, "x": 1}),
            json!({"name": "n", "description": "d", "metadata": {}, "x": 1}),
            json!({"name": "n", "description": "d"}),
        ] {
            assert_eq!(Kind::detect(&tool), Ok(Kind::Tool), "{tool}");
        }
        assert_eq!(
            Kind::detect(&json!({"description": "d", "value": "v", "unit": "s"})),
            Ok(Kind::Context)
        );
        assert_eq!(
            Kind::detect(&json!({"description": "d", "value": 1, "a": 1, "b": 2, "c": 3})),
            Err(Undetected { closest: vec![] })
        );
    }
}
