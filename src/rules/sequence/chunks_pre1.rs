//! Chunk events before 1.0: one current text message, one current
//! reasoning message and one current tool call for the whole stream, with
//! no owner lanes and no closing events (1.x's chunk streams are
//! [`super::chunks`]). A chunk with an id starts its item; one without
//! continues the current item, which must then exist.

use std::sync::Arc;

use super::chunks::FIRST_CHUNK_WITHOUT_ID;
use super::event_type::EventType;
use super::held::{self, Arguments};
use super::here::Here;
use super::open::{Open, Opened};
use super::tool_calls::{check_open_arguments, ToolCalls};
use crate::findings::Findings;

/// The items pre-1.0 chunk events currently continue.
#[derive(Debug)]
pub(super) struct PreChunks {
    /// The message `TEXT_MESSAGE_CHUNK` continues.
    text: Option<String>,
    /// The message `REASONING_MESSAGE_CHUNK` continues.
    reasoning: Option<String>,
    /// The tool call `TOOL_CALL_CHUNK` continues, with its argument text.
    tool: Option<Open>,
    /// What the tool call's argument text may hold, with the other open
    /// calls'.
    pool: Arc<held::Pool>,
}

impl PreChunks {
    /// No chunk stream open; argument text held within `pool`.
    pub(super) fn new(pool: &Arc<held::Pool>) -> PreChunks {
        PreChunks {
            text: None,
            reasoning: None,
            tool: None,
            pool: Arc::clone(pool),
        }
    }

    /// Forgets the current items: a run ended, or a new one started.
    pub(super) fn clear(&mut self) {
        self.text = None;
        self.reasoning = None;
        self.tool = None;
    }

    /// Follows a `*_CHUNK` event; a tool call's chunk that starts a call
    /// makes it known to `tools`.
    pub(super) fn event(&mut self, at: &Here<'_>, tools: &mut ToolCalls, out: &mut impl Findings) {
        match at.kind {
            EventType::TextMessageChunk => message_chunk(&mut self.text, at, out),
            EventType::ReasoningMessageChunk => message_chunk(&mut self.reasoning, at, out),
            EventType::ToolCallChunk => self.tool_chunk(at, tools, out),
            _ => {}
        }
    }

    fn tool_chunk(&mut self, at: &Here<'_>, tools: &mut ToolCalls, out: &mut impl Findings) {
        let id = at.str("toolCallId");
        let continues = match (&self.tool, id) {
            (Some(current), Some(id)) => current.id == id,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if !continues {
            self.close_tool(at, out);
            let name = at.str("toolCallName");
            let Some(id) = id.filter(|_| name.is_some()) else {
                let missing = match (id, name) {
                    (None, None) => "toolCallId and toolCallName",
                    (None, Some(_)) => "toolCallId",
                    _ => "toolCallName",
                };
                out.push(
                    at.finding(
                        &FIRST_CHUNK_WITHOUT_ID,
                        "",
                        format!("the first TOOL_CALL_CHUNK of a tool call has no {missing}"),
                    )
                    .with_help(
                        "give the first chunk of each tool call its toolCallId and toolCallName",
                    ),
                );
                return;
            };
            tools.started(id);
            self.tool = Some(Open {
                kind: Opened::ToolCall,
                id: id.to_string(),
                start: at.place.clone(),
                start_type: "TOOL_CALL_CHUNK".into(),
                owner: None,
                arguments: Arguments::new(&self.pool),
            });
        }
        if let (Some(call), Some(delta)) = (&mut self.tool, at.str("delta")) {
            call.arguments.push(&call.id, delta, at, out);
        }
    }

    /// The current chunked tool call ends (another starts, the run or the
    /// stream ends): its arguments must be JSON by now.
    pub(super) fn close_tool(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        if let Some(call) = self.tool.take() {
            check_open_arguments(&call, at, out);
        }
    }
}

/// A `TEXT_MESSAGE_CHUNK` or `REASONING_MESSAGE_CHUNK`: it continues the
/// `current` message, or names the one it starts.
fn message_chunk(current: &mut Option<String>, at: &Here<'_>, out: &mut impl Findings) {
    match (at.str("messageId"), current.as_ref()) {
        (Some(id), _) => *current = Some(id.to_string()),
        (None, Some(_)) => {}
        (None, None) => out.push(
            at.finding(
                &FIRST_CHUNK_WITHOUT_ID,
                "",
                format!("the first {} of a message has no messageId", at.type_),
            )
            .with_help("give the first chunk of each message its messageId"),
        ),
    }
    // A reasoning chunk with an empty delta "implicitly closes the message".
    if at.kind == EventType::ReasoningMessageChunk && at.str("delta") == Some("") {
        *current = None;
    }
}
