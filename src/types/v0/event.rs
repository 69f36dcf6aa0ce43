//! The events an agent streams to its client (`spec/events.md`), told apart
//! by `type`.
//!
//! Every event carries the `BaseEvent` keys `timestamp?` and `rawEvent?`
//! next to its own, as the TypeScript types intersect them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use super::{Message, RunAgentInput};

/// Defines one event struct with the `BaseEvent` keys after its own.
macro_rules! event {
    ($(#[$doc:meta])* $name:ident { $($(#[$field_doc:meta])* $field:ident: $ty:ty,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        #[schemars(deny_unknown_fields)]
        pub struct $name {
            $($(#[$field_doc])* pub $field: $ty,)*
            /// When the event was created.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub timestamp: Option<Number>,
            /// The original event data, when this event was transformed from
            /// another system's; any JSON value, `null` included.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub raw_event: Option<Value>,
        }
    };
}

/// The role a streamed text message is sent with.
///
/// `spec/events.md` types `TextMessageStart.role` as `"assistant"` and
/// `TextMessageChunk.role` as one of these four; the events concept page
/// lists the same senders for both, and the TypeScript SDK accepts the four
/// on both. agui-lint accepts the four, so that a stream both SDKs read is
/// not reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TextMessageRole {
    /// Instructions from the application's developer.
    Developer,
    /// A system prompt.
    System,
    /// The agent (model) speaking.
    Assistant,
    /// The human user.
    User,
}

/// The role of a streamed reasoning message: always `"reasoning"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ReasoningRole {
    /// The agent's visible reasoning.
    Reasoning,
}

/// The role of a tool result event: always `"tool"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ToolRole {
    /// The result of a tool call.
    Tool,
}

/// What an encrypted reasoning value is attached to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum EncryptedValueSubtype {
    /// A tool call, by its id.
    ToolCall,
    /// A message, by its id.
    Message,
}

/// One event of the stream an agent sends its client, told apart by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
#[schemars(extend("discriminator" = {"propertyName": "type"}))]
pub enum Event {
    /// Starts a streamed text message.
    TextMessageStart(TextMessageStartEvent),
    /// A chunk of a streamed text message.
    TextMessageContent(TextMessageContentEvent),
    /// Ends a streamed text message.
    TextMessageEnd(TextMessageEndEvent),
    /// Start, content and end of a text message in one convenience event.
    TextMessageChunk(TextMessageChunkEvent),
    /// Starts a streamed tool call.
    ToolCallStart(ToolCallStartEvent),
    /// A chunk of a tool call's arguments.
    ToolCallArgs(ToolCallArgsEvent),
    /// Ends a streamed tool call.
    ToolCallEnd(ToolCallEndEvent),
    /// Start, arguments and end of a tool call in one convenience event.
    ToolCallChunk(ToolCallChunkEvent),
    /// The result of a tool call.
    ToolCallResult(ToolCallResultEvent),
    /// The agent's whole state.
    StateSnapshot(StateSnapshotEvent),
    /// A JSON Patch to the agent's state.
    StateDelta(StateDeltaEvent),
    /// The whole conversation.
    MessagesSnapshot(MessagesSnapshotEvent),
    /// The whole state of an activity message.
    ActivitySnapshot(ActivitySnapshotEvent),
    /// A JSON Patch to an activity message.
    ActivityDelta(ActivityDeltaEvent),
    /// An event passed through from another system.
    Raw(RawEvent),
    /// An application-defined event.
    Custom(CustomEvent),
    /// Starts a run.
    RunStarted(RunStartedEvent),
    /// Ends a run successfully.
    RunFinished(RunFinishedEvent),
    /// Ends a run with an error.
    RunError(RunErrorEvent),
    /// Starts a step of a run.
    StepStarted(StepStartedEvent),
    /// Ends a step of a run.
    StepFinished(StepFinishedEvent),
    /// Starts a reasoning phase.
    ReasoningStart(ReasoningStartEvent),
    /// Starts a streamed reasoning message.
    ReasoningMessageStart(ReasoningMessageStartEvent),
    /// A chunk of a streamed reasoning message.
    ReasoningMessageContent(ReasoningMessageContentEvent),
    /// Ends a streamed reasoning message.
    ReasoningMessageEnd(ReasoningMessageEndEvent),
    /// Start, content and end of a reasoning message in one convenience event.
    ReasoningMessageChunk(ReasoningMessageChunkEvent),
    /// Ends a reasoning phase.
    ReasoningEnd(ReasoningEndEvent),
    /// Attaches encrypted reasoning to a message or tool call.
    ReasoningEncryptedValue(ReasoningEncryptedValueEvent),
}

/// Every event `type`, in the order of [`Event`]'s variants.
pub const EVENT_TYPES: [&str; 28] = [
    "TEXT_MESSAGE_START",
    "TEXT_MESSAGE_CONTENT",
    "TEXT_MESSAGE_END",
    "TEXT_MESSAGE_CHUNK",
    "TOOL_CALL_START",
    "TOOL_CALL_ARGS",
    "TOOL_CALL_END",
    "TOOL_CALL_CHUNK",
    "TOOL_CALL_RESULT",
    "STATE_SNAPSHOT",
    "STATE_DELTA",
    "MESSAGES_SNAPSHOT",
    "ACTIVITY_SNAPSHOT",
    "ACTIVITY_DELTA",
    "RAW",
    "CUSTOM",
    "RUN_STARTED",
    "RUN_FINISHED",
    "RUN_ERROR",
    "STEP_STARTED",
    "STEP_FINISHED",
    "REASONING_START",
    "REASONING_MESSAGE_START",
    "REASONING_MESSAGE_CONTENT",
    "REASONING_MESSAGE_END",
    "REASONING_MESSAGE_CHUNK",
    "REASONING_END",
    "REASONING_ENCRYPTED_VALUE",
];

/// Event types the protocol has retired, and what replaces each
/// (`spec/events.md`, "Deprecated Events").
pub const DEPRECATED_EVENT_TYPES: [(&str, &str); 5] = [
    ("THINKING_START", "REASONING_START"),
    ("THINKING_END", "REASONING_END"),
    ("THINKING_TEXT_MESSAGE_START", "REASONING_MESSAGE_START"),
    ("THINKING_TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"),
    ("THINKING_TEXT_MESSAGE_END", "REASONING_MESSAGE_END"),
];

event!(
    /// Signals the start of a text message.
    TextMessageStartEvent {
        /// Unique identifier of the message.
        message_id: String,
        /// The sender; `"assistant"` for the agent's own messages.
        role: TextMessageRole,
    }
);

event!(
    /// A chunk of a streamed text message.
    TextMessageContentEvent {
        /// The id from the message's `TEXT_MESSAGE_START`.
        message_id: String,
        /// The text chunk; the spec requires it non-empty.
        delta: String,
    }
);

event!(
    /// Signals the end of a text message.
    TextMessageEndEvent {
        /// The id from the message's `TEXT_MESSAGE_START`.
        message_id: String,
    }
);

event!(
    /// Expands to start, content and end in the client: the first chunk of a
    /// message must carry `messageId`.
    TextMessageChunkEvent {
        /// The message's id; required on its first chunk.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
        /// The sender; `"assistant"` when omitted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<TextMessageRole>,
        /// A text chunk.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delta: Option<String>,
    }
);

event!(
    /// Signals the start of a tool call.
    ToolCallStartEvent {
        /// Unique identifier of the tool call.
        tool_call_id: String,
        /// Name of the tool being called.
        tool_call_name: String,
        /// The message the call belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
    }
);

event!(
    /// A chunk of a tool call's arguments; the chunks of one call
    /// concatenate to its JSON arguments.
    ToolCallArgsEvent {
        /// The id from the call's `TOOL_CALL_START`.
        tool_call_id: String,
        /// The arguments chunk.
        delta: String,
    }
);

event!(
    /// Signals the end of a tool call.
    ToolCallEndEvent {
        /// The id from the call's `TOOL_CALL_START`.
        tool_call_id: String,
    }
);

event!(
    /// Expands to start, arguments and end in the client: the first chunk of
    /// a call must carry `toolCallId` and `toolCallName`.
    ToolCallChunkEvent {
        /// The call's id; required on its first chunk.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_call_id: Option<String>,
        /// The tool's name; required on the call's first chunk.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_call_name: Option<String>,
        /// The message the call belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
        /// An arguments chunk.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delta: Option<String>,
    }
);

event!(
    /// The result of a tool call's execution.
    ToolCallResultEvent {
        /// The conversation message this result belongs to.
        message_id: String,
        /// The id from the call's `TOOL_CALL_START`.
        tool_call_id: String,
        /// The tool's output.
        content: String,
        /// Always `"tool"` when given.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<ToolRole>,
    }
);

event!(
    /// The agent's whole state, replacing the client's copy.
    StateSnapshotEvent {
        /// The state: any JSON value.
        snapshot: Value,
    }
);

event!(
    /// A change to the agent's state as JSON Patch operations (RFC 6902).
    StateDeltaEvent {
        /// The JSON Patch operations, applied in order.
        delta: Vec<Value>,
    }
);

event!(
    /// The whole conversation, replacing the client's copy.
    MessagesSnapshotEvent {
        /// Every message, oldest first.
        messages: Vec<Message>,
    }
);

event!(
    /// The whole state of an activity message.
    ActivitySnapshotEvent {
        /// The activity message this event updates.
        message_id: String,
        /// What kind of activity, such as `"PLAN"` or `"SEARCH"`.
        activity_type: String,
        /// The activity's structured state.
        content: Map<String, Value>,
        /// `true` (the default) replaces an existing message with this id;
        /// `false` ignores the snapshot when one exists.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replace: Option<bool>,
    }
);

event!(
    /// A change to an activity message as JSON Patch operations (RFC 6902).
    ActivityDeltaEvent {
        /// The activity message this event updates.
        message_id: String,
        /// The activity's kind, as in its latest snapshot.
        activity_type: String,
        /// The JSON Patch operations, applied in order.
        patch: Vec<Value>,
    }
);

event!(
    /// An event passed through from a system that does not speak AG-UI.
    RawEvent {
        /// The original event: any JSON value.
        event: Value,
        /// Where the event comes from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        source: Option<String>,
    }
);

event!(
    /// An application-defined event.
    CustomEvent {
        /// The custom event's name.
        name: String,
        /// Its value: any JSON value.
        value: Value,
    }
);

event!(
    /// Signals the start of a run.
    RunStartedEvent {
        /// The conversation thread of the run.
        thread_id: String,
        /// The run's id.
        run_id: String,
        /// An earlier run of the same thread this run branches from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_run_id: Option<String>,
        /// The exact input the agent received for this run.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input: Option<Box<RunAgentInput>>,
    }
);

event!(
    /// Signals that a run completed.
    RunFinishedEvent {
        /// The conversation thread of the run.
        thread_id: String,
        /// The run's id.
        run_id: String,
        /// What the run produced; any JSON value.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
    }
);

event!(
    /// Signals that a run ended with an error; nothing follows in the run.
    RunErrorEvent {
        /// What went wrong.
        message: String,
        /// A machine-readable error code.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    }
);

event!(
    /// Signals the start of a step within a run.
    StepStartedEvent {
        /// The step's name, such as the node or function running.
        step_name: String,
    }
);

event!(
    /// Signals the end of a step within a run.
    StepFinishedEvent {
        /// The name from the step's `STEP_STARTED`.
        step_name: String,
    }
);

event!(
    /// Signals the start of a reasoning phase.
    ReasoningStartEvent {
        /// Identifier of the reasoning phase.
        message_id: String,
    }
);

event!(
    /// Signals the start of a reasoning message.
    ReasoningMessageStartEvent {
        /// Unique identifier of the message.
        message_id: String,
        /// Always `"reasoning"`.
        role: ReasoningRole,
    }
);

event!(
    /// A chunk of a streamed reasoning message.
    ReasoningMessageContentEvent {
        /// The id from the message's `REASONING_MESSAGE_START`.
        message_id: String,
        /// The reasoning chunk.
        delta: String,
    }
);

event!(
    /// Signals the end of a reasoning message.
    ReasoningMessageEndEvent {
        /// The id from the message's `REASONING_MESSAGE_START`.
        message_id: String,
    }
);

event!(
    /// Expands to start, content and end of a reasoning message in the
    /// client: the first chunk of a message must carry `messageId`.
    ReasoningMessageChunkEvent {
        /// The message's id; required on its first chunk.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
        /// A reasoning chunk; an empty one closes the message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delta: Option<String>,
    }
);

event!(
    /// Signals the end of a reasoning phase.
    ReasoningEndEvent {
        /// The id from the phase's `REASONING_START`.
        message_id: String,
    }
);

event!(
    /// Attaches encrypted chain-of-thought to a message or tool call.
    ReasoningEncryptedValueEvent {
        /// What the value is attached to.
        subtype: EncryptedValueSubtype,
        /// The id of that message or tool call.
        entity_id: String,
        /// The encrypted value, opaque to the client.
        encrypted_value: String,
    }
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_types_match_the_variants() {
        let generated = serde_json::to_value(schemars::schema_for!(Event)).expect("schema");
        let branches = generated["oneOf"].as_array().expect("oneOf");
        let types: Vec<&str> = branches
            .iter()
            .filter_map(|b| b["properties"]["type"]["const"].as_str())
            .collect();
        assert_eq!(types, EVENT_TYPES);
    }

    #[test]
    fn events_deserialize_by_type() {
        let event: Event = serde_json::from_str(
            r#"{"type":"TOOL_CALL_START","toolCallId":"c1","toolCallName":"search","timestamp":1}"#,
        )
        .expect("event");
        let Event::ToolCallStart(start) = event else {
            panic!("not a tool call start: {event:?}");
        };
        assert_eq!(start.tool_call_name, "search");
        assert_eq!(start.timestamp, Some(Number::from(1)));
    }
}
