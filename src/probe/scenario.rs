//! The requests the probe sends on its own: a text turn, and a turn that
//! offers a client-side tool, followed, when the agent calls it, by the
//! request `@ag-ui/client` sends next: the conversation so far with the
//! assistant's call and the tool's result.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use agui_lint::unstable::input::sse::SseReader;
use serde_json::{json, Map, Value};

/// A built-in scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scenario {
    /// One user message, no tool.
    Text,
    /// A user message asking for a client-side tool, and the follow-up
    /// carrying its result when the agent calls it.
    Tool,
}

impl Scenario {
    /// The name shown in the probe's summary.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Text => "text turn",
            Scenario::Tool => "client-side tool",
        }
    }
}

/// The client-side tool the tool scenario offers.
pub const TOOL_NAME: &str = "get_weather";

/// What the tool "returns" in the follow-up.
const TOOL_RESULT: &str = r#"{"city":"Berlin","temperature":21,"unit":"celsius"}"#;

/// A fresh id: unique within this process and unlikely across runs.
pub fn fresh_id(what: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("agui-lint-{what}-{:x}-{n}", nanos & 0xffff_ffff_ffff)
}

/// The first request of `scenario`, declaring `version` (none when
/// `None`, as before 1.0).
pub fn request(scenario: Scenario, version: Option<&str>) -> Value {
    let (text, tools) = match scenario {
        Scenario::Text => ("Reply with one short sentence: what can you do?", json!([])),
        Scenario::Tool => (
            "What is the weather in Berlin right now? Use the get_weather tool.",
            json!([{
                "name": TOOL_NAME,
                "description": "Get the current weather for a city. Runs in the user's browser.",
                "parameters": {
                    "type": "object",
                    "properties": {"city": {"type": "string", "description": "City name"}},
                    "required": ["city"]
                }
            }]),
        ),
    };
    let mut input = json!({
        "threadId": fresh_id("thread"),
        "runId": fresh_id("run"),
        "state": {},
        "messages": [{"id": fresh_id("user"), "role": "user", "content": text}],
        "tools": tools,
        "context": [],
        "forwardedProps": {}
    });
    if let (Some(version), Some(object)) = (version, input.as_object_mut()) {
        object.insert("protocolVersion".into(), json!(version));
    }
    input
}

/// A tool call the agent made in a stream.
#[derive(Debug, Default, Clone)]
struct Call {
    name: String,
    arguments: String,
    parent: Option<String>,
    answered: bool,
}

/// The follow-up request to `request` after its run streamed `body`: when
/// the agent called a tool the request offers and nobody answered it, the
/// same thread's next run carries the assistant's call and the tool's
/// result, as `@ag-ui/client` sends it once the tool has run. `None` when
/// there is nothing to answer.
pub fn follow_up(request: &Value, body: &[u8]) -> Option<Value> {
    let offered: Vec<&str> = request
        .get("tools")?
        .as_array()?
        .iter()
        .filter_map(|t| t.get("name")?.as_str())
        .collect();
    let mut calls: BTreeMap<String, Call> = BTreeMap::new();
    let mut order = Vec::new();
    let mut texts: Vec<(String, String)> = Vec::new();
    let mut snapshot: Option<Vec<Value>> = None;
    let (mut open_chunk_call, mut open_chunk_text) = (None::<String>, None::<String>);
    for event in SseReader::new(body) {
        let Ok(event) = event else { break };
        let Ok(event) = serde_json::from_slice::<Value>(&event.data) else {
            continue;
        };
        let text = |key: &str| event.get(key).and_then(Value::as_str).map(str::to_owned);
        match event.get("type").and_then(Value::as_str).unwrap_or("") {
            "TOOL_CALL_START" | "TOOL_CALL_CHUNK" => {
                let id = text("toolCallId").or_else(|| open_chunk_call.clone());
                let Some(id) = id else { continue };
                if !calls.contains_key(&id) {
                    order.push(id.clone());
                }
                let call = calls.entry(id.clone()).or_default();
                if let Some(name) = text("toolCallName") {
                    call.name = name;
                }
                if let Some(parent) = text("parentMessageId") {
                    call.parent = Some(parent);
                }
                if let Some(delta) = text("delta") {
                    call.arguments.push_str(&delta);
                }
                open_chunk_call = Some(id);
            }
            "TOOL_CALL_ARGS" => {
                if let (Some(id), Some(delta)) = (text("toolCallId"), text("delta")) {
                    calls.entry(id).or_default().arguments.push_str(&delta);
                }
            }
            "TOOL_CALL_RESULT" => {
                if let Some(call) = text("toolCallId").and_then(|id| calls.get_mut(&id)) {
                    call.answered = true;
                }
            }
            "TEXT_MESSAGE_START" | "TEXT_MESSAGE_CONTENT" | "TEXT_MESSAGE_CHUNK" => {
                let id = text("messageId").or_else(|| open_chunk_text.clone());
                let Some(id) = id else { continue };
                let at = match texts.iter().position(|(known, _)| *known == id) {
                    Some(at) => at,
                    None => {
                        texts.push((id.clone(), String::new()));
                        texts.len() - 1
                    }
                };
                if let Some(delta) = text("delta") {
                    texts[at].1.push_str(&delta);
                }
                open_chunk_text = Some(id);
            }
            "MESSAGES_SNAPSHOT" => {
                snapshot = event.get("messages").and_then(Value::as_array).cloned();
            }
            _ => {}
        }
    }
    let pending: Vec<(&String, &Call)> = order
        .iter()
        .filter_map(|id| Some((id, calls.get(id)?)))
        .filter(|(_, call)| !call.answered && offered.contains(&call.name.as_str()))
        .collect();
    if pending.is_empty() {
        return None;
    }
    let mut messages = match snapshot {
        Some(messages) => messages,
        None => {
            let mut messages = request.get("messages")?.as_array()?.clone();
            messages.extend(assistant_messages(&order, &calls, &texts));
            messages
        }
    };
    for (id, _) in &pending {
        messages.push(json!({
            "id": fresh_id("tool-result"),
            "role": "tool",
            "toolCallId": id,
            "content": TOOL_RESULT
        }));
    }
    let mut next: Map<String, Value> = request.as_object()?.clone();
    next.insert("runId".into(), json!(fresh_id("run")));
    next.insert("messages".into(), Value::Array(messages));
    Some(Value::Object(next))
}

/// The assistant messages a stream built: each text message, and each tool
/// call under its parent message (or a message of its own).
fn assistant_messages(
    order: &[String],
    calls: &BTreeMap<String, Call>,
    texts: &[(String, String)],
) -> Vec<Value> {
    let mut messages: Vec<(String, Map<String, Value>)> = Vec::new();
    for (id, content) in texts {
        let mut message = Map::new();
        message.insert("id".into(), json!(id));
        message.insert("role".into(), json!("assistant"));
        message.insert("content".into(), json!(content));
        messages.push((id.clone(), message));
    }
    for id in order {
        let Some(call) = calls.get(id) else { continue };
        let parent = call.parent.clone().unwrap_or_else(|| fresh_id("assistant"));
        let at = match messages.iter().position(|(known, _)| *known == parent) {
            Some(at) => at,
            None => {
                let mut message = Map::new();
                message.insert("id".into(), json!(parent));
                message.insert("role".into(), json!("assistant"));
                messages.push((parent.clone(), message));
                messages.len() - 1
            }
        };
        let entry = json!({
            "id": id,
            "type": "function",
            "function": {"name": call.name, "arguments": call.arguments}
        });
        let message = &mut messages[at].1;
        match message.get_mut("toolCalls").and_then(Value::as_array_mut) {
            Some(list) => list.push(entry),
            None => {
                message.insert("toolCalls".into(), json!([entry]));
            }
        }
    }
    messages
        .into_iter()
        .map(|(_, m)| Value::Object(m))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_requests_are_valid_run_agent_inputs() {
        let validator = agui_lint::Validator::new().expect("validator");
        for scenario in [Scenario::Text, Scenario::Tool] {
            for version in [Some("1.0"), Some("1.1"), None] {
                let body = serde_json::to_vec(&request(scenario, version)).expect("JSON");
                let report = validator.validate(agui_lint::Kind::RunAgentInput, &body);
                assert!(
                    report.diagnostics().is_empty(),
                    "{scenario:?} {version:?}: {:?}",
                    report.diagnostics()
                );
            }
        }
    }

    fn sse(events: &[Value]) -> Vec<u8> {
        events
            .iter()
            .map(|e| format!("data: {e}\n\n"))
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn a_call_of_the_offered_tool_is_answered_in_the_next_run() {
        let first = request(Scenario::Tool, Some("1.0"));
        let body = sse(&[
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "Checking."}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "a1"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": TOOL_NAME, "parentMessageId": "a1"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"city\":"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "\"Berlin\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
        ]);
        let next = follow_up(&first, &body).expect("a follow-up");
        assert_eq!(next["threadId"], first["threadId"]);
        assert_ne!(next["runId"], first["runId"]);
        let messages = next["messages"].as_array().expect("messages");
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[1]["id"], "a1");
        assert_eq!(messages[1]["content"], "Checking.");
        assert_eq!(
            messages[1]["toolCalls"][0]["function"]["arguments"],
            "{\"city\":\"Berlin\"}"
        );
        assert_eq!(messages[2]["role"], "tool");
        assert_eq!(messages[2]["toolCallId"], "c1");
        let validator = agui_lint::Validator::new().expect("validator");
        let report = validator.validate(
            agui_lint::Kind::RunAgentInput,
            &serde_json::to_vec(&next).expect("JSON"),
        );
        assert!(
            report.diagnostics().is_empty(),
            "{:?}",
            report.diagnostics()
        );
    }

    #[test]
    fn no_follow_up_without_an_unanswered_call_of_an_offered_tool() {
        let first = request(Scenario::Tool, None);
        let server_side = sse(&[
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        ]);
        assert!(follow_up(&first, &server_side).is_none());
        let answered = sse(&[
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": TOOL_NAME}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c1", "content": "x"}),
        ]);
        assert!(follow_up(&first, &answered).is_none());
        assert!(follow_up(&request(Scenario::Text, None), b"data: {}\n\n").is_none());
    }
}
