//! The requests the probe sends on its own: a text turn, and a turn that
//! offers a client-side tool, followed, when the agent calls it, by the
//! request `@ag-ui/client` sends next: the conversation so far with the
//! assistant's call and the tool's result.

use agui_lint::unstable::kit;
use serde_json::{json, Value};

/// A built-in scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// One user message, no tool.
    Text,
    /// A user message asking for a client-side tool, and the follow-up
    /// carrying its result when the agent calls it.
    Tool,
}

impl Scenario {
    /// The name shown in the probe's summary.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::Text => "text turn",
            Scenario::Tool => "client-side tool",
        }
    }
}

/// The client-side tool the tool scenario offers.
pub const TOOL_NAME: &str = kit::WEATHER_TOOL;

/// The first request of `scenario`, declaring `version` (none when
/// `None`, as before 1.0).
pub fn request(scenario: Scenario, version: Option<&str>) -> Value {
    let (text, tools) = match scenario {
        Scenario::Text => (
            "Reply with one short sentence: what can you do?".to_owned(),
            vec![],
        ),
        Scenario::Tool => (
            format!("What is the weather in Berlin right now? Use the {TOOL_NAME} tool."),
            vec![kit::tool(TOOL_NAME)],
        ),
    };
    kit::first_request(&kit::fresh_id("thread"), &text, tools, json!({}), version)
}

/// The follow-up request to `request` after its run streamed `body`: when
/// the agent called a tool the request offers and nobody answered it, the
/// same thread's next run carries the assistant's call and the tool's
/// result, as `@ag-ui/client` sends it once the tool has run. `None` when
/// there is nothing to answer.
pub fn follow_up(request: &Value, body: &[u8]) -> Option<Value> {
    kit::with_tool_results(request, &kit::Streamed::read(request, body, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_requests_are_valid_run_agent_inputs() {
        let validator = agui_lint::Validator::new().expect("validator");
        for scenario in [Scenario::Text, Scenario::Tool] {
            for version in [Some("1.0"), Some("1.1"), None] {
                let body = serde_json::to_vec(&request(scenario, version)).expect("JSON");
                let report = validator.validate(agui_lint::Kind::RunAgentInput, &body);
                assert!(
                    report.diagnostics().is_empty(),
                    "{scenario:?} {version:?}: {:?}",
                    report.diagnostics()
                );
            }
        }
    }

    fn sse(events: &[Value]) -> Vec<u8> {
        events
            .iter()
            .map(|e| format!("data: {e}\n\n"))
            .collect::<String>()
            .into_bytes()
    }

    #[test]
    fn a_call_of_the_offered_tool_is_answered_in_the_next_run() {
        let first = request(Scenario::Tool, Some("1.0"));
        let body = sse(&[
            json!({"type": "RUN_STARTED", "threadId": "t", "runId": "r"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "a1", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "a1", "delta": "Checking."}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "a1"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": TOOL_NAME, "parentMessageId": "a1"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"city\":"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "\"Berlin\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            json!({"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}),
        ]);
        let next = follow_up(&first, &body).expect("a follow-up");
        assert_eq!(next["threadId"], first["threadId"]);
        assert_ne!(next["runId"], first["runId"]);
        let messages = next["messages"].as_array().expect("messages");
        assert_eq!(messages.len(), 3);
        assert_eq!(messages[1]["id"], "a1");
        assert_eq!(messages[1]["content"], "Checking.");
        assert_eq!(
            messages[1]["toolCalls"][0]["function"]["arguments"],
            "{\"city\":\"Berlin\"}"
        );
        assert_eq!(messages[2]["role"], "tool");
        assert_eq!(messages[2]["toolCallId"], "c1");
        let validator = agui_lint::Validator::new().expect("validator");
        let report = validator.validate(
            agui_lint::Kind::RunAgentInput,
            &serde_json::to_vec(&next).expect("JSON"),
        );
        assert!(
            report.diagnostics().is_empty(),
            "{:?}",
            report.diagnostics()
        );
    }

    #[test]
    fn no_follow_up_without_an_unanswered_call_of_an_offered_tool() {
        let first = request(Scenario::Tool, None);
        let server_side = sse(&[
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
        ]);
        assert!(follow_up(&first, &server_side).is_none());
        let answered = sse(&[
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": TOOL_NAME}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c1", "content": "x"}),
        ]);
        assert!(follow_up(&first, &answered).is_none());
        assert!(follow_up(&request(Scenario::Text, None), b"data: {}\n\n").is_none());
    }
}
