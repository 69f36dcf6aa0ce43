//! Rust types for the pre-1.0 AG-UI profile: every type in the Types
//! reference (`spec/types.md`), the capability categories
//! (`spec/concepts-capabilities.md`) and the events (`spec/events.md`).
//!
//! Each type derives serde (camelCase wire names) and schemars; its doc
//! comments become the descriptions of the published JSON Schemas under
//! `schemas/0/`. Optional keys are `Option`s that are skipped when absent; the
//! schema generator ([`crate::unstable::schema`]) makes them refuse `null`, because the
//! TypeScript SDK rejects `null` there (rule `null-for-optional`).
//!
//! The types accept unknown keys when deserialized (both SDKs do), while the
//! schemas close every object so that the validator can report them as
//! `unknown-field` warnings.

mod capabilities;
mod content;
mod event;
mod message;
mod run;
mod tool;

pub use capabilities::{
    AgentCapabilities, ExecutionCapabilities, HumanInTheLoopCapabilities, IdentityCapabilities,
    MultiAgentCapabilities, MultimodalCapabilities, MultimodalInputCapabilities,
    MultimodalOutputCapabilities, OutputCapabilities, ReasoningCapabilities, StateCapabilities,
    SubAgent, ToolsCapabilities, TransportCapabilities,
};
pub use content::{
    AudioInputContent, DocumentInputContent, ImageInputContent, InputContent,
    InputContentDataSource, InputContentSource, InputContentUrlSource, TextInputContent,
    VideoInputContent,
};
pub use event::{
    ActivityDeltaEvent, ActivitySnapshotEvent, CustomEvent, EncryptedValueSubtype, Event,
    MessagesSnapshotEvent, RawEvent, ReasoningEncryptedValueEvent, ReasoningEndEvent,
    ReasoningMessageChunkEvent, ReasoningMessageContentEvent, ReasoningMessageEndEvent,
    ReasoningMessageStartEvent, ReasoningRole, ReasoningStartEvent, RunErrorEvent,
    RunFinishedEvent, RunStartedEvent, StateDeltaEvent, StateSnapshotEvent, StepFinishedEvent,
    StepStartedEvent, TextMessageChunkEvent, TextMessageContentEvent, TextMessageEndEvent,
    TextMessageRole, TextMessageStartEvent, ToolCallArgsEvent, ToolCallChunkEvent,
    ToolCallEndEvent, ToolCallResultEvent, ToolCallStartEvent, ToolRole, DEPRECATED_EVENT_TYPES,
    EVENT_TYPES,
};
pub use message::{
    ActivityMessage, AssistantMessage, DeveloperMessage, Message, ReasoningMessage, Role,
    SystemMessage, ToolMessage, UserContent, UserMessage,
};
pub use run::{Context, RunAgentInput, State};
pub use tool::{FunctionCall, Tool, ToolCall, ToolCallType};
