//! The messages of a conversation, told apart by `role`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{ContentPart, Metadata, Role, ToolCall};

/// A message of the conversation, told apart by `role`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "role", rename_all = "lowercase")]
#[schemars(extend("discriminator" = {"propertyName": "role"}))]
pub enum Message {
    /// A message from the application's developer.
    Developer(DeveloperMessage),
    /// A system message.
    System(SystemMessage),
    /// A message from the assistant, possibly with tool calls.
    Assistant(AssistantMessage),
    /// A message from the person using the application.
    User(UserMessage),
    /// What a tool returned.
    Tool(ToolMessage),
    /// Structured activity progress between chat messages.
    Activity(ActivityMessage),
    /// The agent's reasoning.
    Reasoning(ReasoningMessage),
}

impl Message {
    /// The message's `id`.
    pub fn id(&self) -> &str {
        match self {
            Message::Developer(m) => &m.id,
            Message::System(m) => &m.id,
            Message::Assistant(m) => &m.id,
            Message::User(m) => &m.id,
            Message::Tool(m) => &m.id,
            Message::Activity(m) => &m.id,
            Message::Reasoning(m) => &m.id,
        }
    }

    /// The message's role.
    pub fn role(&self) -> Role {
        match self {
            Message::Developer(_) => Role::Developer,
            Message::System(_) => Role::System,
            Message::Assistant(_) => Role::Assistant,
            Message::User(_) => Role::User,
            Message::Tool(_) => Role::Tool,
            Message::Activity(_) => Role::Activity,
            Message::Reasoning(_) => Role::Reasoning,
        }
    }
}

/// Defines a message with the keys every named message carries (`id`,
/// `subagentRunId`, `name`, `encryptedValue`, `encryptedValueType`,
/// `metadata`: upstream's `BaseMessage`) after its own.
macro_rules! named_message {
    ($(#[$doc:meta])* $name:ident { $($(#[$field_doc:meta])* $field:ident: $ty:ty,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "camelCase")]
        #[schemars(deny_unknown_fields)]
        pub struct $name {
            /// Identifies the message within the conversation.
            pub id: String,
            $($(#[$field_doc])* pub $field: $ty,)*
            /// An optional display name for the author.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub name: Option<String>,
            /// A provider's opaque artefact belonging to this message, stored
            /// and returned on a later turn.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub encrypted_value: Option<String>,
            /// The producer's own name for what kind of artefact
            /// `encryptedValue` is; never interpreted by a consumer.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            #[schemars(extend("x-agui-since" = "1.1"))]
            pub encrypted_value_type: Option<String>,
            /// Extra information attached to this message.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub metadata: Option<Metadata>,
            /// The subagent invocation this message belongs to; absent when
            /// the parent agent produced it.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub subagent_run_id: Option<String>,
        }
    };
}

named_message!(
    /// A message from the application's developer.
    DeveloperMessage {
        /// Text of the message.
        content: String,
    }
);

named_message!(
    /// A system message.
    SystemMessage {
        /// Text of the message.
        content: String,
    }
);

named_message!(
    /// A message from the assistant.
    AssistantMessage {
        /// Text of the message, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        /// Tools the assistant calls in this message.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_calls: Option<Vec<ToolCall>>,
    }
);

named_message!(
    /// A message from the person using the application.
    UserMessage {
        /// Plain text, or an ordered list of parts for a multimodal message.
        content: UserContent,
    }
);

/// The content of a user message: plain text or parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum UserContent {
    /// Plain text.
    Text(String),
    /// An ordered list of parts.
    Parts(Vec<ContentPart>),
}

/// What a tool returned: plain text or parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ToolContent {
    /// Plain text (structured data serialized into text).
    Text(String),
    /// An ordered list of parts; media travel as parts of their own.
    Parts(Vec<ContentPart>),
}

/// What a tool returned, answering the call whose `id` is `toolCallId`.
/// Carries no `name`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ToolMessage {
    /// Identifies the message.
    pub id: String,
    /// What the tool returned: plain text or parts.
    pub content: ToolContent,
    /// The call this answers.
    pub tool_call_id: String,
    /// Why the tool failed, when it did; beside `content`, so that a partial
    /// result survives a failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A provider's opaque artefact belonging to this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    /// The producer's own name for what kind of artefact `encryptedValue`
    /// is; never interpreted by a consumer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-agui-since" = "1.1"))]
    pub encrypted_value_type: Option<String>,
    /// Extra information attached to this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// The subagent invocation this message belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// Structured activity progress shown between chat messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ActivityMessage {
    /// Identifies the message.
    pub id: String,
    /// Kind of activity, used by clients to choose a renderer.
    pub activity_type: String,
    /// The activity's state: an object with any keys.
    pub content: Map<String, Value>,
    /// Extra information attached to this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// The subagent invocation this message belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// The agent's reasoning made visible.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ReasoningMessage {
    /// Identifies the message.
    pub id: String,
    /// The reasoning text.
    pub content: String,
    /// A provider's opaque reasoning artefact, stored and returned on a
    /// later turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    /// The producer's own name for what kind of artefact `encryptedValue`
    /// is; never interpreted by a consumer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-agui-since" = "1.1"))]
    pub encrypted_value_type: Option<String>,
    /// Extra information attached to this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// The subagent invocation this message belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}
