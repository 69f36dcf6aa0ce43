//! The request body of a run (`RunAgentInput`), and the interrupts a run
//! ends on and the resume entries that answer them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Context, Message, Metadata, Tool};

/// A request to run an agent: the body of the HTTP `POST` that starts a
/// run, also echoed back as `RUN_STARTED.input`. Only `threadId`, `runId`
/// and `messages` are required; an absent `tools` or `context` means none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct RunAgentInput {
    /// The conversation this run belongs to.
    pub thread_id: String,
    /// Identifies this run.
    pub run_id: String,
    /// The protocol version the sender speaks, such as `"1.0"`; absent for
    /// an input produced before the protocol carried a version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The run that spawned this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    /// The state the run starts from: any JSON value but `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::any_but_null")]
    pub state: Option<Value>,
    /// The conversation so far, in order.
    pub messages: Vec<Message>,
    /// The tools the agent may call; absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// Ambient information for the run; absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Vec<Context>>,
    /// Application-specific values passed through to the agent untouched:
    /// any JSON value but `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::any_but_null")]
    pub forwarded_props: Option<Value>,
    /// Answers to the interrupts that ended a previous run, when this run
    /// continues from one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resume: Option<Vec<ResumeEntry>>,
}

/// Something a run needs from outside before it can continue, such as an
/// approval or a missing value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct Interrupt {
    /// Identifies the interrupt; a resume entry answers it by this id.
    pub id: String,
    /// Why the run stopped: an open string, not an enumeration.
    pub reason: String,
    /// A human-readable prompt for whoever answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The tool call this interrupt concerns, when it is a tool approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// A JSON Schema describing the answer this interrupt expects: an
    /// object, carried opaquely.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_schema: Option<Map<String, Value>>,
    /// When the interrupt stops being answerable; by convention ISO 8601.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    /// Extra information attached to this interrupt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// The subagent invocation that raised this interrupt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subagent_run_id: Option<String>,
}

/// An answer to one interrupt, sent on the run that continues from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(deny_unknown_fields)]
pub struct ResumeEntry {
    /// The interrupt being answered.
    pub interrupt_id: String,
    /// Whether the interrupt was answered or abandoned.
    pub status: ResumeStatus,
    /// The answer the agent asked for and will act on: any JSON value but
    /// `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::any_but_null")]
    pub payload: Option<Value>,
    /// Envelope information about the response (signatures, routing keys),
    /// as opposed to `payload`, the answer itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// Whether a resume entry answers its interrupt or abandons it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResumeStatus {
    /// The interrupt was answered.
    Resolved,
    /// The interrupt was abandoned.
    Cancelled,
}
