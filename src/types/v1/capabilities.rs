//! The 1.x capability declaration (`AgentCapabilities`): the categories
//! that changed since pre-1.0. The others are shared with [`super::super::v0`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Number, Value};

use super::{
    HumanInTheLoopCapabilities, IdentityCapabilities, MultimodalCapabilities, OutputCapabilities,
    ReasoningCapabilities, StateCapabilities, Tool, TransportCapabilities,
};

/// A typed, categorized snapshot of an agent's capabilities. Every field is
/// optional: an omitted category is undeclared (unknown), not unsupported.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct AgentCapabilities {
    /// Agent identity and metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub identity: Option<IdentityCapabilities>,
    /// Supported transport mechanisms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<TransportCapabilities>,
    /// Tools the agent provides and tool calling configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapabilities>,
    /// Output format support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputCapabilities>,
    /// State and memory management.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<StateCapabilities>,
    /// Multi-agent coordination (delegation, handoffs, subagents).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_agent: Option<MultiAgentCapabilities>,
    /// Reasoning support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<ReasoningCapabilities>,
    /// Multimodal input and output support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multimodal: Option<MultimodalCapabilities>,
    /// Execution control and limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ExecutionCapabilities>,
    /// Human-in-the-loop support.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub human_in_the_loop: Option<HumanInTheLoopCapabilities>,
    /// Integration-specific capabilities: an object open by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<Map<String, Value>>,
}

/// Tools the agent provides and how it calls tools.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ToolsCapabilities {
    /// Whether the agent can call tools at all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported: Option<bool>,
    /// The tools the agent provides itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<Tool>>,
    /// Whether the agent may call several tools at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_calls: Option<bool>,
    /// Whether the agent accepts tools the client provides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_provided: Option<bool>,
}

/// Multi-agent coordination capabilities.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct MultiAgentCapabilities {
    /// Whether the agent takes part in any multi-agent coordination.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supported: Option<bool>,
    /// Whether the agent can delegate subtasks while keeping control.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delegation: Option<bool>,
    /// Whether the agent can hand the conversation to another agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handoffs: Option<bool>,
    /// The subagents this agent can invoke (pre-1.0 spelled it `subAgents`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagents: Option<Vec<SubagentInfo>>,
}

/// A subagent an agent can invoke.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct SubagentInfo {
    /// The subagent's name.
    pub name: String,
    /// What the subagent does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Execution control and limits.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ExecutionCapabilities {
    /// Whether the agent can execute code during a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_execution: Option<bool>,
    /// Whether code execution is sandboxed; meaningful only with
    /// `codeExecution`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandboxed: Option<bool>,
    /// Most tool-call or reasoning iterations per run: an integer from 0 to
    /// 2^53 − 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::safe_count")]
    pub max_iterations: Option<Number>,
    /// Most wall-clock milliseconds a run takes before timing out: an
    /// integer from 0 to 2^53 − 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::safe_count")]
    pub max_execution_time: Option<Number>,
}
