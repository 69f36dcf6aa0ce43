//! The requests the kit builds: a first turn, and the next turn of a
//! thread as `@ag-ui/client` sends it (the conversation so far, the state
//! the last run left, a fresh `runId`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

use super::streamed::Streamed;

/// A fresh id: unique within this process and unlikely across runs.
pub fn fresh_id(what: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("agui-lint-{what}-{:x}-{n}", nanos & 0xffff_ffff_ffff)
}

/// The client-side tool the tool scenarios offer first. Named for the kit,
/// so that no agent's own tool shares its name: an agent refuses a client
/// tool that collides with one of its own, and the run fails for a reason
/// that is the kit's.
pub const WEATHER_TOOL: &str = "agui_lint_get_weather";

/// The second tool of the parallel calls scenario, named as the first.
pub const TIME_TOOL: &str = "agui_lint_get_time";

/// The label of the request whose resume names an interrupt never raised:
/// the scenario sends it, `judge::unknown_resume_handled` finds it by it.
pub const UNKNOWN_RESUME: &str = "a resume naming an interrupt never raised";

/// A tool definition the client offers.
pub fn tool(name: &str) -> Value {
    let (description, parameter) = match name {
        TIME_TOOL => (
            "Get the current local time in a city. Runs in the user's browser.",
            "city",
        ),
        _ => (
            "Get the current weather for a city. Runs in the user's browser.",
            "city",
        ),
    };
    json!({
        "name": name,
        "description": description,
        "parameters": {
            "type": "object",
            "properties": {parameter: {"type": "string", "description": "City name"}},
            "required": [parameter]
        }
    })
}

/// What a client-side tool "returns" in the follow-up.
pub fn tool_result(name: &str) -> &'static str {
    match name {
        TIME_TOOL => r#"{"city":"Berlin","time":"14:05"}"#,
        _ => r#"{"city":"Berlin","temperature":21,"unit":"celsius"}"#,
    }
}

/// A user message.
pub fn user(text: &str) -> Value {
    json!({"id": fresh_id("user"), "role": "user", "content": text})
}

/// The first request of a thread: `text` from the user, `tools` offered,
/// `state`, declaring `version` (nothing when `None`, as before 1.0).
pub fn first_request(
    thread: &str,
    text: &str,
    tools: Vec<Value>,
    state: Value,
    version: Option<&str>,
) -> Value {
    let mut input = json!({
        "threadId": thread,
        "runId": fresh_id("run"),
        "state": state,
        "messages": [user(text)],
        "tools": tools,
        "context": [],
        "forwardedProps": {}
    });
    if let (Some(version), Some(object)) = (version, input.as_object_mut()) {
        object.insert("protocolVersion".into(), json!(version));
    }
    input
}

/// The next request of `previous`'s thread: a fresh `runId`, `messages`
/// and `state` as the last run left them, then `more` messages.
pub fn next(previous: &Value, messages: &[Value], state: &Value, more: Vec<Value>) -> Value {
    let mut next: Map<String, Value> = previous.as_object().cloned().unwrap_or_default();
    next.remove("resume");
    next.insert("runId".into(), json!(fresh_id("run")));
    let mut messages = messages.to_vec();
    messages.extend(more);
    next.insert("messages".into(), Value::Array(messages));
    next.insert("state".into(), state.clone());
    Value::Object(next)
}

/// The request `@ag-ui/client` sends after `input`'s run streamed
/// `streamed`, once the client-side tools it called have run: the same
/// thread, the conversation so far and a result for each call of an
/// offered tool the run left unanswered. `None` when there is none.
pub fn with_tool_results(input: &Value, streamed: &Streamed) -> Option<Value> {
    if streamed.conversation_over.is_some() {
        return None;
    }
    let offered = offered(input);
    let results: Vec<Value> = streamed
        .pending_calls(&offered)
        .map(|call| {
            json!({"id": fresh_id("tool-result"), "role": "tool",
                "toolCallId": call.id, "content": tool_result(&call.name)})
        })
        .collect();
    if results.is_empty() {
        return None;
    }
    Some(next(input, &streamed.messages, &streamed.state, results))
}

/// The names of the tools `input` offers.
pub fn offered(input: &Value) -> Vec<String> {
    input
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.get("name")?.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
