//! Tools a client offers an agent and the tool calls an agent makes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A tool an agent may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Tool {
    /// Name of the tool, as tool calls refer to it.
    pub name: String,
    /// What the tool does, for the model to decide when to call it.
    pub description: String,
    /// A JSON Schema describing the tool's arguments.
    pub parameters: Value,
}

/// A call of a tool made by an agent in an assistant message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
    /// Opaque encrypted value attached to the call by a signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
}

/// Kind of a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ToolCallType {
    /// A function call, the only kind the protocol defines.
    Function,
}

/// The function named by a tool call and the arguments it is called with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct FunctionCall {
    /// Name of the function (tool) to call.
    pub name: String,
    /// The arguments, as a JSON-encoded string.
    pub arguments: String,
}
