//! The messages of a conversation, told apart by `role`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{InputContent, ToolCall};

/// The role of a message's sender.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions from the application's developer.
    Developer,
    /// A system prompt.
    System,
    /// The agent (model) speaking.
    Assistant,
    /// The human user.
    User,
    /// The result of a tool call.
    Tool,
    /// Structured progress shown between chat messages.
    Activity,
    /// The agent's visible reasoning.
    Reasoning,
}

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
    /// A message from the user: text or multimodal content.
    User(UserMessage),
    /// The result of a tool call.
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

/// A message from the application's developer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct DeveloperMessage {
    /// Unique identifier of the message.
    pub id: String,
    /// Text of the message.
    pub content: String,
    /// Name of the sender.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A system message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct SystemMessage {
    /// Unique identifier of the message.
    pub id: String,
    /// Text of the message.
    pub content: String,
    /// Name of the sender.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A message from the assistant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct AssistantMessage {
    /// Unique identifier of the message.
    pub id: String,
    /// Text of the message, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Name of the sender.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Tools the assistant calls in this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<ToolCall>>,
}

/// A message from the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct UserMessage {
    /// Unique identifier of the message.
    pub id: String,
    /// Plain text, or an ordered list of multimodal content parts.
    pub content: UserContent,
    /// Name of the sender.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The content of a user message: plain text or multimodal parts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum UserContent {
    /// Plain text.
    Text(String),
    /// An ordered list of multimodal content parts.
    Parts(Vec<InputContent>),
}

/// The result of a tool call, answering the call whose `id` is `toolCallId`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ToolMessage {
    /// Unique identifier of the message.
    pub id: String,
    /// The tool's result as text.
    pub content: String,
    /// Identifier of the tool call this message answers.
    pub tool_call_id: String,
    /// Error message when the tool call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Opaque encrypted value attached by a signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
}

/// Structured activity progress shown between chat messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ActivityMessage {
    /// Unique identifier of the message.
    pub id: String,
    /// Kind of activity, used by clients to choose a renderer.
    pub activity_type: String,
    /// The activity's state: an object with any keys.
    pub content: Map<String, Value>,
}

/// The agent's reasoning (thinking) made visible.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ReasoningMessage {
    /// Unique identifier of the message.
    pub id: String,
    /// The reasoning text.
    pub content: String,
    /// Opaque encrypted reasoning attached by a signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
}
