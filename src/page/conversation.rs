//! What a request holds and what the official client holds after its
//! run, as the page lists them: each message's role and text (clipped),
//! each tool with its parameters folded, the state; and the conversation
//! rebuilt from the request and the streamed events as `@ag-ui/client`
//! builds its next request.

use agui_lint::unstable::kit::Streamed;
use agui_lint::unstable::recording::{BodyLayout, Exchange};
use serde_json::Value;

use super::text::clip;
use super::views::{RequestView, ToolView, CONVERSATION_BODY};

/// The longest text of a message or a value shown in a request.
const SHOWN_TEXT: usize = 2_000;

/// The conversation the official client holds after `exchange`'s
/// response (the request's messages with what the run streamed applied,
/// as it builds its next request), and why it is not shown whole.
pub(super) fn conversation_of(
    exchange: &Exchange,
    body: Option<&[u8]>,
    request: Option<&Value>,
) -> (Vec<(String, String)>, Option<String>) {
    if exchange.layout == BodyLayout::Proto || exchange.other_media_type.is_some() {
        return (Vec::new(), None);
    }
    let json_lines = exchange.layout == BodyLayout::JsonLines;
    let Some(body) = body.filter(|body| body.len() <= CONVERSATION_BODY) else {
        return (
            Vec::new(),
            Some(format!(
                "not rebuilt: the response is over {} MiB",
                CONVERSATION_BODY >> 20
            )),
        );
    };
    let empty = Value::Object(serde_json::Map::new());
    let streamed = Streamed::read_within(request.unwrap_or(&empty), body, json_lines, STATE_LIMIT);
    let messages = streamed
        .messages
        .iter()
        .take(MAX_MESSAGES)
        .map(|m| (text_of(m.get("role")), message_text(m)))
        .collect();
    let note = match (
        streamed.messages.len() > MAX_MESSAGES,
        streamed.conversation_over,
    ) {
        (_, Some(why)) => Some(why),
        (true, None) => Some(format!(
            "{} more message(s) not shown",
            streamed.messages.len() - MAX_MESSAGES
        )),
        (false, None) => None,
    };
    (messages, note)
}

/// The most messages of a conversation shown.
const MAX_MESSAGES: usize = 200;

/// The most memory the client's view of a run keeps of its state.
const STATE_LIMIT: usize = 64 * 1024 * 1024;

fn text_of(value: Option<&Value>) -> String {
    value
        .and_then(Value::as_str)
        .map(str::to_owned)
        .unwrap_or_default()
}

/// A message's content as text: its string, its parts, or its tool calls.
fn message_text(message: &Value) -> String {
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => message
            .get("toolCalls")
            .map(|calls| format!("tool calls: {calls}"))
            .unwrap_or_default(),
        Some(other) => other.to_string(),
    };
    clip(&text, SHOWN_TEXT)
}

pub(super) fn request_view(request: &Value) -> RequestView {
    let text = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_default()
    };
    let messages = request
        .get("messages")
        .and_then(Value::as_array)
        .map(|messages| {
            messages
                .iter()
                .map(|m| (text(m.get("role")), message_text(m)))
                .collect()
        })
        .unwrap_or_default();
    let tools = request
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .map(|t| ToolView {
                    name: text(t.get("name")),
                    description: clip(&text(t.get("description")), SHOWN_TEXT),
                    parameters: clip(
                        &t.get("parameters")
                            .and_then(|p| serde_json::to_string_pretty(p).ok())
                            .unwrap_or_default(),
                        SHOWN_TEXT,
                    ),
                })
                .collect()
        })
        .unwrap_or_default();
    RequestView {
        thread: text(request.get("threadId")),
        run: text(request.get("runId")),
        protocol: request
            .get("protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned),
        messages,
        tools,
        state: request
            .get("state")
            .and_then(|s| serde_json::to_string_pretty(s).ok())
            .map(|s| clip(&s, SHOWN_TEXT)),
    }
}
