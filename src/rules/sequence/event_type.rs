//! An event's `type`, read once into an enum: the dispatcher and every
//! tracker match on it instead of comparing strings.

/// The event types the sequence rules know (every version's), and
/// [`EventType::Other`] for any other name, which they pass over (the
/// schema reports an unknown type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EventType {
    RunStarted,
    RunFinished,
    RunError,
    StepStarted,
    StepFinished,
    TextMessageStart,
    TextMessageContent,
    TextMessageEnd,
    TextMessageChunk,
    ToolCallStart,
    ToolCallArgs,
    ToolCallEnd,
    ToolCallChunk,
    ToolCallResult,
    StateSnapshot,
    StateDelta,
    MessagesSnapshot,
    ActivitySnapshot,
    ActivityDelta,
    Raw,
    Custom,
    ReasoningStart,
    ReasoningMessageStart,
    ReasoningMessageContent,
    ReasoningMessageEnd,
    ReasoningMessageChunk,
    ReasoningEnd,
    ReasoningEncryptedValue,
    SubagentStarted,
    SubagentFinished,
    SubagentError,
    /// A name no version defines for a stream rule to follow (pre-1.0's
    /// `THINKING_*` events among them: no sequence rule reads them).
    Other,
}

impl EventType {
    /// The type named `name`.
    pub(super) fn of(name: &str) -> EventType {
        match name {
            "RUN_STARTED" => EventType::RunStarted,
            "RUN_FINISHED" => EventType::RunFinished,
            "RUN_ERROR" => EventType::RunError,
            "STEP_STARTED" => EventType::StepStarted,
            "STEP_FINISHED" => EventType::StepFinished,
            "TEXT_MESSAGE_START" => EventType::TextMessageStart,
            "TEXT_MESSAGE_CONTENT" => EventType::TextMessageContent,
            "TEXT_MESSAGE_END" => EventType::TextMessageEnd,
            "TEXT_MESSAGE_CHUNK" => EventType::TextMessageChunk,
            "TOOL_CALL_START" => EventType::ToolCallStart,
            "TOOL_CALL_ARGS" => EventType::ToolCallArgs,
            "TOOL_CALL_END" => EventType::ToolCallEnd,
            "TOOL_CALL_CHUNK" => EventType::ToolCallChunk,
            "TOOL_CALL_RESULT" => EventType::ToolCallResult,
            "STATE_SNAPSHOT" => EventType::StateSnapshot,
            "STATE_DELTA" => EventType::StateDelta,
            "MESSAGES_SNAPSHOT" => EventType::MessagesSnapshot,
            "ACTIVITY_SNAPSHOT" => EventType::ActivitySnapshot,
            "ACTIVITY_DELTA" => EventType::ActivityDelta,
            "RAW" => EventType::Raw,
            "CUSTOM" => EventType::Custom,
            "REASONING_START" => EventType::ReasoningStart,
            "REASONING_MESSAGE_START" => EventType::ReasoningMessageStart,
            "REASONING_MESSAGE_CONTENT" => EventType::ReasoningMessageContent,
            "REASONING_MESSAGE_END" => EventType::ReasoningMessageEnd,
            "REASONING_MESSAGE_CHUNK" => EventType::ReasoningMessageChunk,
            "REASONING_END" => EventType::ReasoningEnd,
            "REASONING_ENCRYPTED_VALUE" => EventType::ReasoningEncryptedValue,
            "SUBAGENT_STARTED" => EventType::SubagentStarted,
            "SUBAGENT_FINISHED" => EventType::SubagentFinished,
            "SUBAGENT_ERROR" => EventType::SubagentError,
            _ => EventType::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::EventType;

    #[test]
    fn unknown_and_pre_1_0_only_names_are_other() {
        assert_eq!(EventType::of("RUN_STARTED"), EventType::RunStarted);
        assert_eq!(EventType::of("SUBAGENT_ERROR"), EventType::SubagentError);
        assert_eq!(EventType::of("THINKING_START"), EventType::Other);
        assert_eq!(EventType::of("run_started"), EventType::Other);
    }
}
