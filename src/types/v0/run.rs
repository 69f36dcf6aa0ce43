//! The request body of a run (`RunAgentInput`) and the context it carries.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Message, Tool};

/// The state an agent shares with its client: any JSON value, `null` included.
pub type State = Value;

/// Input for running an agent: the body of the HTTP `POST` that starts a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct RunAgentInput {
    /// Identifier of the conversation thread the run belongs to.
    pub thread_id: String,
    /// Identifier of this run.
    pub run_id: String,
    /// Identifier of the run that spawned this one, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// The agent's current state: any JSON value, `null` included.
    pub state: State,
    /// The conversation so far, oldest message first.
    pub messages: Vec<Message>,
    /// Tools the client provides for this run; may be empty. Tools defined by
    /// the backend are not listed here.
    pub tools: Vec<Tool>,
    /// Context entries the client provides to the agent; may be empty.
    pub context: Vec<Context>,
    /// Properties the client forwards to the agent unchanged: any JSON value,
    /// `null` included.
    pub forwarded_props: Value,
}

/// A piece of contextual information the client gives the agent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Context {
    /// What this context entry represents.
    pub description: String,
    /// The context value itself.
    pub value: String,
}
