//! What a run holds open: the kind of an item (a text message, a tool
//! call, a step, ...) and the item with the event that opened it. Both the
//! tracker of open items ([`super::open`]) and its compact store
//! ([`super::open_slots`]) speak of them, so they live apart from both.

use super::held::Arguments;
use super::here::EventPlace;

/// What kind of thing is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Opened {
    TextMessage,
    ToolCall,
    ReasoningPhase,
    ReasoningMessage,
    Step,
    Subagent,
}

impl Opened {
    /// The item, named for a message.
    pub(super) fn describe(self, id: &str) -> String {
        match self {
            Opened::TextMessage => format!("text message '{id}'"),
            Opened::ToolCall => format!("tool call '{id}'"),
            Opened::ReasoningPhase => format!("reasoning phase '{id}'"),
            Opened::ReasoningMessage => format!("reasoning message '{id}'"),
            Opened::Step => format!("step '{id}'"),
            Opened::Subagent => format!("subagent '{id}'"),
        }
    }

    /// The event that would have opened it.
    pub(super) fn start_event(self) -> &'static str {
        match self {
            Opened::TextMessage => "TEXT_MESSAGE_START",
            Opened::ToolCall => "TOOL_CALL_START",
            Opened::ReasoningPhase => "REASONING_START",
            Opened::ReasoningMessage => "REASONING_MESSAGE_START",
            Opened::Step => "STEP_STARTED",
            Opened::Subagent => "SUBAGENT_STARTED",
        }
    }

    /// The event that would have ended it.
    pub(super) fn end_event(self) -> &'static str {
        match self {
            Opened::TextMessage => "TEXT_MESSAGE_END",
            Opened::ToolCall => "TOOL_CALL_END",
            Opened::ReasoningPhase => "REASONING_END",
            Opened::ReasoningMessage => "REASONING_MESSAGE_END",
            Opened::Step => "STEP_FINISHED",
            Opened::Subagent => "SUBAGENT_FINISHED",
        }
    }
}

/// Something open, and the event that opened it.
#[derive(Debug, Clone)]
pub(super) struct Open {
    pub(super) kind: Opened,
    pub(super) id: String,
    pub(super) start: EventPlace,
    pub(super) start_type: String,
    /// The subagent the opener is attributed to (1.x).
    pub(super) owner: Option<String>,
    /// Argument text of a tool call, concatenated so far.
    pub(super) arguments: Arguments,
}
