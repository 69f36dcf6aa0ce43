//! The events of AG-UI 1.x, told apart by `type`.
//!
//! Every event carries upstream's `BaseEvent` keys (`timestamp`,
//! `rawEvent`, `metadata`); the events that describe content or progress
//! also carry `Attributable`'s `subagentRunId`. Run-scoped events
//! (`RUN_*`), `MESSAGES_SNAPSHOT` and the `SUBAGENT_*` events do not.
//!
//! One file for all of them, long as it is: it has one job (the events'
//! types, whose doc comments become the schema's descriptions), and the
//! `Event` enum that tells them apart must name every one.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use super::{
    EncryptedValueSubtype, Interrupt, Message, Metadata, ReasoningRole, RunAgentInput,
    TextMessageRole, ToolContent, ToolRole,
};

/// Defines one event struct with the `BaseEvent` keys after its own, and
/// `subagentRunId` too when it is `attributed`.
macro_rules! event {
    (@struct $(#[$doc:meta])* $name:ident { $($(#[$field_doc:meta])* $field:ident: $ty:ty,)* } { $($extra:tt)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        #[schemars(deny_unknown_fields)]
        pub struct $name {
            $($(#[$field_doc])* pub $field: $ty,)*
            /// When the event was created: an integer within ±(2^53 − 1),
            /// by convention milliseconds since the Unix epoch.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(schema_with = "super::safe_integer")]
            pub timestamp: Option<Number>,
            /// The provider-native event this one was translated from: any
            /// JSON value but `null`.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(schema_with = "super::any_but_null")]
            pub raw_event: Option<Value>,
            /// Extra information attached to this event.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub metadata: Option<Metadata>,
            $($extra)*
        }
    };
    (attributed $(#[$doc:meta])* $name:ident { $($body:tt)* }) => {
        event!(@struct $(#[$doc])* $name { $($body)* } {
            /// The subagent invocation this event belongs to; absent when
            /// the parent agent produced it.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub subagent_run_id: Option<String>,
        });
    };
    (run_scoped $(#[$doc:meta])* $name:ident { $($body:tt)* }) => {
        event!(@struct $(#[$doc])* $name { $($body)* } {});
    };
}

/// One event of the stream an agent sends its client, told apart by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
#[schemars(extend("discriminator" = {"propertyName": "type"}))]
pub enum Event {
    /// Starts a streamed text message.
    TextMessageStart(TextMessageStartEvent),
    /// Appends a fragment to a streamed text message.
    TextMessageContent(TextMessageContentEvent),
    /// Ends a streamed text message.
    TextMessageEnd(TextMessageEndEvent),
    /// Part of a text message, the message's ids on its first chunk.
    TextMessageChunk(TextMessageChunkEvent),
    /// Starts a streamed tool call.
    ToolCallStart(ToolCallStartEvent),
    /// Appends a fragment to a tool call's arguments.
    ToolCallArgs(ToolCallArgsEvent),
    /// Ends a streamed tool call.
    ToolCallEnd(ToolCallEndEvent),
    /// Part of a tool call, the call's ids on its first chunk.
    ToolCallChunk(ToolCallChunkEvent),
    /// What a tool returned, minting a tool message.
    ToolCallResult(ToolCallResultEvent),
    /// The agent's whole state.
    StateSnapshot(StateSnapshotEvent),
    /// A JSON Patch to the agent's state.
    StateDelta(StateDeltaEvent),
    /// The whole conversation.
    MessagesSnapshot(MessagesSnapshotEvent),
    /// The whole state of an activity message.
    ActivitySnapshot(ActivitySnapshotEvent),
    /// A JSON Patch to an activity message's content.
    ActivityDelta(ActivityDeltaEvent),
    /// An event passed through from another system.
    Raw(RawEvent),
    /// An application-defined event.
    Custom(CustomEvent),
    /// Starts a run.
    RunStarted(RunStartedEvent),
    /// Ends a run: completed, interrupted or cancelled.
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
    /// Appends a fragment to a streamed reasoning message.
    ReasoningMessageContent(ReasoningMessageContentEvent),
    /// Ends a streamed reasoning message.
    ReasoningMessageEnd(ReasoningMessageEndEvent),
    /// Part of a reasoning message, its id on the first chunk.
    ReasoningMessageChunk(ReasoningMessageChunkEvent),
    /// Ends a reasoning phase.
    ReasoningEnd(ReasoningEndEvent),
    /// Attaches a provider's encrypted reasoning to a message or tool call.
    ReasoningEncryptedValue(ReasoningEncryptedValueEvent),
    /// A subagent invocation begins.
    SubagentStarted(SubagentStartedEvent),
    /// A subagent invocation ends: completed or suspended.
    SubagentFinished(SubagentFinishedEvent),
    /// A subagent invocation fails.
    SubagentError(SubagentErrorEvent),
}

/// Every 1.x event `type`, in the order of [`Event`]'s variants.
pub const EVENT_TYPES: [&str; 31] = [
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
    "SUBAGENT_STARTED",
    "SUBAGENT_FINISHED",
    "SUBAGENT_ERROR",
];

event!(attributed
    /// Starts a streamed text message.
    TextMessageStartEvent {
        /// Identifies the message.
        message_id: String,
        /// The sender; `"assistant"` when absent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<TextMessageRole>,
        /// A display name for the author.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    }
);

event!(attributed
    /// Appends a fragment to a streamed text message.
    TextMessageContentEvent {
        /// The message this fragment belongs to.
        message_id: String,
        /// The fragment; may be empty (providers send empty keep-alives).
        delta: String,
    }
);

event!(attributed
    /// Ends a streamed text message.
    TextMessageEndEvent {
        /// The message that ends.
        message_id: String,
    }
);

event!(attributed
    /// Part of a text message; the first chunk of a message carries its
    /// `messageId`, later ones may leave it out.
    TextMessageChunkEvent {
        /// The message this chunk belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
        /// The sender.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<TextMessageRole>,
        /// The fragment to append.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delta: Option<String>,
        /// A display name for the author.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    }
);

event!(attributed
    /// Starts a streamed tool call.
    ToolCallStartEvent {
        /// Identifies the tool call.
        tool_call_id: String,
        /// The tool called.
        tool_call_name: String,
        /// The assistant message the call belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
    }
);

event!(attributed
    /// Appends a fragment to a tool call's JSON arguments.
    ToolCallArgsEvent {
        /// The call the fragment belongs to.
        tool_call_id: String,
        /// The fragment; may be empty.
        delta: String,
    }
);

event!(attributed
    /// Ends a streamed tool call.
    ToolCallEndEvent {
        /// The call that ends.
        tool_call_id: String,
    }
);

event!(attributed
    /// Part of a tool call; the first chunk of a call carries its
    /// `toolCallId` and `toolCallName`.
    ToolCallChunkEvent {
        /// The call this chunk belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_call_id: Option<String>,
        /// The tool called.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_call_name: Option<String>,
        /// The assistant message the call belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
        /// A fragment of the arguments.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delta: Option<String>,
    }
);

event!(attributed
    /// What a tool returned; mints a tool message with its own `messageId`.
    ToolCallResultEvent {
        /// The tool message this result becomes.
        message_id: String,
        /// The call answered.
        tool_call_id: String,
        /// What the tool returned: plain text or parts.
        content: ToolContent,
        /// Always `"tool"` when present.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        role: Option<ToolRole>,
    }
);

event!(attributed
    /// The agent's whole state.
    StateSnapshotEvent {
        /// The state: any JSON value.
        snapshot: Value,
    }
);

event!(attributed
    /// A JSON Patch (RFC 6902) to the agent's state.
    StateDeltaEvent {
        /// The operations, applied in order.
        delta: Vec<JsonPatchOperation>,
    }
);

event!(run_scoped
    /// The whole conversation; conversation-wide, so never attributed to a
    /// subagent.
    MessagesSnapshotEvent {
        /// Every message, in order.
        messages: Vec<Message>,
    }
);

event!(attributed
    /// The whole state of an activity message.
    ActivitySnapshotEvent {
        /// The activity message.
        message_id: String,
        /// Kind of activity.
        activity_type: String,
        /// The activity's state: an object with any keys.
        content: Map<String, Value>,
        /// Whether the snapshot replaces an existing activity message
        /// (`true` when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        replace: Option<bool>,
    }
);

event!(attributed
    /// A JSON Patch (RFC 6902) to an activity message's content.
    ActivityDeltaEvent {
        /// The activity message.
        message_id: String,
        /// Kind of activity.
        activity_type: String,
        /// The operations, applied in order.
        patch: Vec<JsonPatchOperation>,
    }
);

event!(attributed
    /// An event passed through from another system.
    RawEvent {
        /// The original event: any JSON value.
        event: Value,
        /// The system it came from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        source: Option<String>,
    }
);

event!(attributed
    /// An application-defined event.
    CustomEvent {
        /// The event's name.
        name: String,
        /// Its value: any JSON value.
        value: Value,
    }
);

event!(run_scoped
    /// Starts a run.
    RunStartedEvent {
        /// The conversation the run belongs to.
        thread_id: String,
        /// Identifies the run.
        run_id: String,
        /// The protocol version the producer speaks, such as `"1.0"`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        protocol_version: Option<String>,
        /// The run that spawned this one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_run_id: Option<String>,
        /// The input the run started from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        input: Option<Box<RunAgentInput>>,
    }
);

event!(run_scoped
    /// Ends a run.
    RunFinishedEvent {
        /// The run's thread, as in its `RUN_STARTED`.
        thread_id: String,
        /// The run, as in its `RUN_STARTED`.
        run_id: String,
        /// The run's result: any JSON value but `null`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(schema_with = "super::any_but_null")]
        result: Option<Value>,
        /// How the run ended; absent means success.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outcome: Option<RunFinishedOutcome>,
        /// Token counts, one entry per provider and model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Vec<TokenUsage>>,
    }
);

event!(run_scoped
    /// Ends a run with an error.
    RunErrorEvent {
        /// What went wrong.
        message: String,
        /// A machine-readable error code.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
        /// Token counts spent before the error.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<Vec<TokenUsage>>,
    }
);

event!(attributed
    /// Starts a step of a run.
    StepStartedEvent {
        /// The step's name.
        step_name: String,
    }
);

event!(attributed
    /// Ends a step of a run.
    StepFinishedEvent {
        /// The step's name, as in its `STEP_STARTED`.
        step_name: String,
    }
);

event!(attributed
    /// Starts a reasoning phase.
    ReasoningStartEvent {
        /// Identifies the reasoning phase.
        message_id: String,
    }
);

event!(attributed
    /// Starts a streamed reasoning message.
    ReasoningMessageStartEvent {
        /// Identifies the message.
        message_id: String,
        /// Always `"reasoning"`.
        role: ReasoningRole,
    }
);

event!(attributed
    /// Appends a fragment to a streamed reasoning message.
    ReasoningMessageContentEvent {
        /// The message this fragment belongs to.
        message_id: String,
        /// The fragment.
        delta: String,
    }
);

event!(attributed
    /// Ends a streamed reasoning message.
    ReasoningMessageEndEvent {
        /// The message that ends.
        message_id: String,
    }
);

event!(attributed
    /// Part of a reasoning message; the first chunk carries its `messageId`.
    ReasoningMessageChunkEvent {
        /// The message this chunk belongs to.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
        /// The fragment to append.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        delta: Option<String>,
    }
);

event!(attributed
    /// Ends a reasoning phase.
    ReasoningEndEvent {
        /// The reasoning phase, as in its `REASONING_START`.
        message_id: String,
    }
);

event!(attributed
    /// Attaches a provider's encrypted reasoning to a message or tool call.
    ReasoningEncryptedValueEvent {
        /// What the value is attached to.
        subtype: EncryptedValueSubtype,
        /// The id of the message or tool call.
        entity_id: String,
        /// The opaque value.
        encrypted_value: String,
        /// The producer's own name for what kind of artefact
        /// `encryptedValue` is; never interpreted by a consumer.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(extend("x-agui-since" = "1.1"))]
        encrypted_value_type: Option<String>,
    }
);

event!(run_scoped
    /// A subagent invocation begins.
    SubagentStartedEvent {
        /// Identifies this invocation; content events carry it as their
        /// `subagentRunId`.
        subagent_run_id: String,
        /// The subagent's name.
        name: String,
        /// What the subagent is doing.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// The invocation that started this one, for a nested subagent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_subagent_run_id: Option<String>,
        /// The tool call that started the subagent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_tool_call_id: Option<String>,
        /// The message that started the subagent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_message_id: Option<String>,
    }
);

event!(run_scoped
    /// A subagent invocation ends.
    SubagentFinishedEvent {
        /// The invocation, as in its `SUBAGENT_STARTED`.
        subagent_run_id: String,
        /// The subagent's result: any JSON value but `null`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[schemars(schema_with = "super::any_but_null")]
        result: Option<Value>,
        /// How the invocation ended; absent means success.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        outcome: Option<SubagentFinishedOutcome>,
    }
);

event!(run_scoped
    /// A subagent invocation fails.
    SubagentErrorEvent {
        /// The invocation, as in its `SUBAGENT_STARTED`.
        subagent_run_id: String,
        /// What went wrong.
        message: String,
        /// A machine-readable error code.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code: Option<String>,
    }
);

/// How a run ended, told apart by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
#[schemars(extend("discriminator" = {"propertyName": "type"}))]
pub enum RunFinishedOutcome {
    /// The run completed (the same as no outcome).
    Success {
        /// The tool calls the run started and left unanswered, for the
        /// application to answer in the next input, in the order made.
        #[serde(
            default,
            rename = "pendingToolCallIds",
            skip_serializing_if = "Option::is_none"
        )]
        pending_tool_call_ids: Option<Vec<String>>,
    },
    /// The run stopped on interrupts that need answers.
    Interrupt {
        /// The interrupts, at least one.
        #[schemars(length(min = 1))]
        interrupts: Vec<Interrupt>,
    },
    /// The run was cancelled.
    Cancelled {},
}

/// How a subagent invocation ended, told apart by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
#[schemars(extend("discriminator" = {"propertyName": "type"}))]
pub enum SubagentFinishedOutcome {
    /// The subagent completed.
    Success {},
    /// The subagent stopped on interrupts of its own.
    Suspended {
        /// The interrupts it stopped on, by id.
        #[serde(
            default,
            rename = "interruptIds",
            skip_serializing_if = "Option::is_none"
        )]
        interrupt_ids: Option<Vec<String>>,
    },
}

/// Token counts for one provider and model. Every count is a total or a
/// named part of one: `reasoningTokens` is part of `outputTokens`, the
/// cache counts are parts of `inputTokens`, `totalTokens` is input plus
/// output.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct TokenUsage {
    /// Which provider served the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Which model served the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Every prompt token the call was charged for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::safe_count")]
    pub input_tokens: Option<Number>,
    /// Every generated token, reasoning included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::safe_count")]
    pub output_tokens: Option<Number>,
    /// `inputTokens` plus `outputTokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::safe_count")]
    pub total_tokens: Option<Number>,
    /// Output tokens spent on reasoning; part of `outputTokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::safe_count")]
    pub reasoning_tokens: Option<Number>,
    /// Input tokens read from a provider cache; part of `inputTokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::safe_count")]
    pub cached_input_tokens: Option<Number>,
    /// Input tokens written to a provider cache; part of `inputTokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::safe_count")]
    pub cache_write_input_tokens: Option<Number>,
}

/// One JSON Patch operation (RFC 6902), told apart by `op`. Open objects:
/// the RFC requires members an operation does not define to be ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "op", rename_all = "lowercase")]
#[schemars(extend("discriminator" = {"propertyName": "op"}))]
pub enum JsonPatchOperation {
    /// Adds `value` at `path`.
    Add {
        /// Where to add.
        #[schemars(schema_with = "super::json_pointer")]
        path: String,
        /// What to add: any JSON value.
        value: Value,
    },
    /// Removes the value at `path`.
    Remove {
        /// What to remove.
        #[schemars(schema_with = "super::json_pointer")]
        path: String,
    },
    /// Replaces the value at `path` with `value`.
    Replace {
        /// What to replace.
        #[schemars(schema_with = "super::json_pointer")]
        path: String,
        /// The new value: any JSON value.
        value: Value,
    },
    /// Moves the value at `from` to `path`.
    Move {
        /// Where the value is.
        #[schemars(schema_with = "super::json_pointer")]
        from: String,
        /// Where it goes.
        #[schemars(schema_with = "super::json_pointer")]
        path: String,
    },
    /// Copies the value at `from` to `path`.
    Copy {
        /// Where the value is.
        #[schemars(schema_with = "super::json_pointer")]
        from: String,
        /// Where the copy goes.
        #[schemars(schema_with = "super::json_pointer")]
        path: String,
    },
    /// Tests that the value at `path` equals `value`.
    Test {
        /// What to test.
        #[schemars(schema_with = "super::json_pointer")]
        path: String,
        /// The expected value: any JSON value.
        value: Value,
    },
}
