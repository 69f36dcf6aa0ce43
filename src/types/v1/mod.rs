//! Rust types for AG-UI 1.x: every definition of the normative 1.1 JSON
//! Schema (`$defs` of upstream's `spec/1.1/schema.json`), named as upstream
//! names them. AG-UI 1.0 is the same set less what 1.1 added
//! (`encryptedValueType`); those fields carry `x-agui-since: "1.1"` in their
//! schema and the generator drops them from the 1.0 schemas.
//!
//! As for the pre-1.0 types ([`super::v0`]), doc comments become the
//! published schema descriptions, optional keys refuse `null` (rule
//! `null-for-optional`), and the schemas close every object except the
//! slots open by meaning: `metadata`, activity `content`,
//! `Interrupt.responseSchema`, capabilities `custom`, and the JSON Patch
//! operations, which RFC 6902 requires to ignore members they do not define.
//! Types that did not change since pre-1.0 are shared with [`super::v0`].

mod capabilities;
mod content;
mod event;
mod message;
mod run;
mod tool;

use schemars::{json_schema, Schema, SchemaGenerator};

pub use super::v0::{
    Context, EncryptedValueSubtype, FunctionCall, HumanInTheLoopCapabilities, IdentityCapabilities,
    MultimodalCapabilities, MultimodalInputCapabilities, MultimodalOutputCapabilities,
    OutputCapabilities, ReasoningCapabilities, ReasoningRole, Role, StateCapabilities,
    TextMessageRole, ToolCallType, ToolRole, TransportCapabilities,
};
pub use capabilities::{
    AgentCapabilities, ExecutionCapabilities, MultiAgentCapabilities, SubagentInfo,
    ToolsCapabilities,
};
pub use content::{
    AudioPart, ContentPart, DataSource, DocumentPart, FileSource, ImagePart, PartSource, TextPart,
    UrlSource, VideoPart,
};
pub use event::{
    ActivityDeltaEvent, ActivitySnapshotEvent, CustomEvent, Event, JsonPatchOperation,
    MessagesSnapshotEvent, RawEvent, ReasoningEncryptedValueEvent, ReasoningEndEvent,
    ReasoningMessageChunkEvent, ReasoningMessageContentEvent, ReasoningMessageEndEvent,
    ReasoningMessageStartEvent, ReasoningStartEvent, RunErrorEvent, RunFinishedEvent,
    RunFinishedOutcome, RunStartedEvent, StateDeltaEvent, StateSnapshotEvent, StepFinishedEvent,
    StepStartedEvent, SubagentErrorEvent, SubagentFinishedEvent, SubagentFinishedOutcome,
    SubagentStartedEvent, TextMessageChunkEvent, TextMessageContentEvent, TextMessageEndEvent,
    TextMessageStartEvent, TokenUsage, ToolCallArgsEvent, ToolCallChunkEvent, ToolCallEndEvent,
    ToolCallResultEvent, ToolCallStartEvent, EVENT_TYPES,
};
pub use message::{
    ActivityMessage, AssistantMessage, DeveloperMessage, Message, ReasoningMessage, SystemMessage,
    ToolContent, ToolMessage, UserContent, UserMessage,
};
pub use run::{Interrupt, ResumeEntry, ResumeStatus, RunAgentInput};
pub use tool::{Tool, ToolCall};

/// Extra information attached to an event, a message, a tool call, a tool,
/// an interrupt or a resume entry: an object open by key, never `null`
/// when present. The key `ag-ui` is reserved for the protocol's own use.
pub type Metadata = serde_json::Map<String, serde_json::Value>;

/// The keys AG-UI 1.1 added over 1.0, wherever they appear.
pub const ADDED_IN_1_1: &[&str] = &["encryptedValueType"];

/// The largest integer a JSON number keeps exactly through a round trip
/// (2^53 − 1), which bounds timestamps and token counts.
pub const MAX_SAFE_INTEGER: i64 = 9_007_199_254_740_991;

/// Any JSON value but `null`: the 1.x slots that are any JSON by meaning
/// (`state`, `forwardedProps`, `parameters`, `payload`, `result`,
/// `rawEvent`, part `metadata`), where `null` is refused.
fn any_but_null(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"not": {"type": "null"}})
}

/// An integer a JSON number keeps exactly: within ±(2^53 − 1).
fn safe_integer(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "integer",
        "minimum": -MAX_SAFE_INTEGER,
        "maximum": MAX_SAFE_INTEGER,
    })
}

/// A count: an integer from 0 to 2^53 − 1.
fn safe_count(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "integer",
        "minimum": 0,
        "maximum": MAX_SAFE_INTEGER,
    })
}

/// A JSON Pointer (RFC 6901): empty, or `/`-prefixed tokens in which `~`
/// is written `~0` or `~1`.
fn json_pointer(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "string",
        "pattern": "^(/([^/~]|~[01])*)*$",
    })
}
