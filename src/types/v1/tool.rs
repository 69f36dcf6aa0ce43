//! Tools a client offers an agent and the tool calls an agent makes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{FunctionCall, Metadata, ToolCallType};

/// A tool the agent may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Tool {
    /// The tool's name, as the agent will call it.
    pub name: String,
    /// What the tool does, for the agent to decide when to use it.
    pub description: String,
    /// A JSON Schema describing the tool's arguments: any JSON value but
    /// `null`, carried opaquely. Absent and empty mean the same: no
    /// arguments to declare.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::any_but_null")]
    pub parameters: Option<Value>,
    /// Extra information about the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A call of a tool made by an agent in an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ToolCall {
    /// Identifier of the tool call; the tool message answering it carries the
    /// same value as `toolCallId`.
    pub id: String,
    /// Kind of tool call; always `"function"`.
    #[serde(rename = "type")]
    pub kind: ToolCallType,
    /// The function called and its arguments.
    pub function: FunctionCall,
    /// A provider's opaque artefact belonging to this call, stored and
    /// returned on a later turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
    /// The producer's own name for what kind of artefact `encryptedValue`
    /// is; never interpreted by a consumer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("x-agui-since" = "1.1"))]
    pub encrypted_value_type: Option<String>,
    /// Extra information attached to this call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}
