//! What an agent declares it supports (`AgentCapabilities`), by category, as in
//! `spec/concepts-capabilities.md`. Every key is optional: absent means
//! "not declared".

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use super::Tool;

/// The capabilities an agent declares, by category.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct AgentCapabilities {
    /// Who the agent is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<IdentityCapabilities>,
    /// Which transports the agent speaks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<TransportCapabilities>,
    /// The agent's own tools and how it calls tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapabilities>,
    /// Which output formats the agent produces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputCapabilities>,
    /// How the agent handles shared state and memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<StateCapabilities>,
    /// How the agent works with other agents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_agent: Option<MultiAgentCapabilities>,
    /// Whether and how the agent shows its reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningCapabilities>,
    /// Which media the agent accepts and produces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multimodal: Option<MultimodalCapabilities>,
    /// Execution limits and code execution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ExecutionCapabilities>,
    /// Which kinds of human involvement the agent supports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human_in_the_loop: Option<HumanInTheLoopCapabilities>,
    /// Integration-specific capabilities outside the standard categories.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<Map<String, Value>>,
}

/// Who the agent is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct IdentityCapabilities {
    /// Human-readable name shown in agent pickers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The framework or platform behind the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// What the agent does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The agent's semantic version, such as `1.2.0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The organization or team maintaining the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// URL of the agent's documentation or home page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub documentation_url: Option<String>,
    /// Integration-specific identity details.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Map<String, Value>>,
}

/// Which transports the agent speaks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct TransportCapabilities {
    /// The agent streams responses over Server-Sent Events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    /// The agent accepts persistent WebSocket connections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub websocket: Option<bool>,
    /// The agent speaks the binary protocol (protobuf over HTTP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http_binary: Option<bool>,
    /// The agent can send updates by webhook after a run ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub push_notifications: Option<bool>,
    /// The agent can resume interrupted streams by sequence number.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resumable: Option<bool>,
}

/// The agent's own tools and how it calls tools.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ToolsCapabilities {
    /// Whether the agent makes tool calls at all; `false` disables tool calling
    /// even when `items` are listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported: Option<bool>,
    /// Tools the agent provides itself, distinct from the client's
    /// `RunAgentInput.tools`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<Tool>>,
    /// The agent can call several tools at once within one step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_calls: Option<bool>,
    /// The agent uses tools the client provides at run time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_provided: Option<bool>,
}

/// Which output formats the agent produces.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct OutputCapabilities {
    /// The agent can produce JSON output matching a given schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_output: Option<bool>,
    /// MIME types the agent can produce, such as `application/json`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported_mime_types: Option<Vec<String>>,
}

/// How the agent handles shared state and memory.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct StateCapabilities {
    /// The agent emits `STATE_SNAPSHOT` events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshots: Option<bool>,
    /// The agent emits `STATE_DELTA` events (JSON Patch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deltas: Option<bool>,
    /// The agent has long-term memory beyond the thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<bool>,
    /// State survives across runs of the same thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persistent_state: Option<bool>,
}

/// How the agent works with other agents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct MultiAgentCapabilities {
    /// The agent takes part in any multi-agent coordination.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported: Option<bool>,
    /// The agent delegates subtasks while keeping control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegation: Option<bool>,
    /// The agent hands the conversation over to another agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handoffs: Option<bool>,
    /// Sub-agents the agent can invoke.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sub_agents: Option<Vec<SubAgent>>,
}

/// A sub-agent an agent can invoke.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct SubAgent {
    /// Name of the sub-agent.
    pub name: String,
    /// What the sub-agent does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Whether and how the agent shows its reasoning.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ReasoningCapabilities {
    /// The agent produces reasoning visible to the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported: Option<bool>,
    /// Reasoning is streamed as it is produced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
    /// Reasoning is encrypted; clients see opaque `encryptedValue`s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted: Option<bool>,
}

/// Which media the agent accepts and produces.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct MultimodalCapabilities {
    /// Media the agent accepts as input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<MultimodalInputCapabilities>,
    /// Media the agent produces as output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<MultimodalOutputCapabilities>,
}

/// Media the agent accepts as input.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct MultimodalInputCapabilities {
    /// The agent processes images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<bool>,
    /// The agent processes audio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio: Option<bool>,
    /// The agent processes video.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video: Option<bool>,
    /// The agent processes PDF documents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pdf: Option<bool>,
    /// The agent processes arbitrary file uploads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<bool>,
}

/// Media the agent produces as output.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct MultimodalOutputCapabilities {
    /// The agent generates images.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<bool>,
    /// The agent produces audio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio: Option<bool>,
}

/// Execution limits and code execution.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ExecutionCapabilities {
    /// The agent executes code during a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_execution: Option<bool>,
    /// Code runs in a sandbox; meaningful only with `codeExecution`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandboxed: Option<bool>,
    /// Most tool-call or reasoning iterations per run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<Number>,
    /// Longest wall-clock time of a run, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_execution_time: Option<Number>,
}

/// Which kinds of human involvement the agent supports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct HumanInTheLoopCapabilities {
    /// The agent supports any human-in-the-loop interaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported: Option<bool>,
    /// The agent asks for approval before sensitive actions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approvals: Option<bool>,
    /// Humans can change the agent's plan mid-run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interventions: Option<bool>,
    /// The agent uses user feedback within the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<bool>,
    /// The agent takes part in the interrupt protocol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupts: Option<bool>,
    /// Tool-call interrupts accept edited arguments on resume; meaningful only
    /// with `interrupts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approve_with_edits: Option<bool>,
}
