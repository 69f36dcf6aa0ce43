//! A 1.x run's `RUN_FINISHED` outcome against the run it ends
//! (`spec/1.1/basic/patterns/interrupt-resume.mdx`,
//! `spec/1.1/events/lifecycle.mdx`): interrupt ids unique, and no call the
//! run answered named as pending.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::catalog_v1::{INTERRUPT_ID_DUPLICATE, OUTCOME_TOOL_CALL_ANSWERED};
use super::Here;
use crate::diagnostic::Diagnostic;

/// Checks the outcome of the `RUN_FINISHED` at `at`; `answered` holds the
/// tool calls the run's `TOOL_CALL_RESULT`s answered.
pub(super) fn check(at: &Here<'_>, answered: &HashSet<String>, out: &mut Vec<Diagnostic>) {
    let Some(outcome) = at.event.get("outcome") else {
        return;
    };
    match outcome.get("type").and_then(Value::as_str) {
        Some("interrupt") => interrupts(at, outcome, answered, out),
        Some("success") => {
            let pending = outcome.get("pendingToolCallIds").and_then(Value::as_array);
            for (i, id) in pending.into_iter().flatten().enumerate() {
                let Some(id) = id.as_str() else { continue };
                if answered.contains(id) {
                    out.push(
                        at.finding(
                            &OUTCOME_TOOL_CALL_ANSWERED,
                            &format!("/outcome/pendingToolCallIds/{i}"),
                            format!("pendingToolCallIds names tool call '{id}', which a TOOL_CALL_RESULT of this run answered"),
                        )
                        .with_help("name only the calls the run left unanswered"),
                    );
                }
            }
        }
        _ => {}
    }
}

fn interrupts(
    at: &Here<'_>,
    outcome: &Value,
    answered: &HashSet<String>,
    out: &mut Vec<Diagnostic>,
) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let list = outcome.get("interrupts").and_then(Value::as_array);
    for (i, interrupt) in list.into_iter().flatten().enumerate() {
        if let Some(id) = interrupt.get("id").and_then(Value::as_str) {
            if let Some(first) = seen.insert(id, i) {
                seen.insert(id, first);
                out.push(
                    at.finding(
                        &INTERRUPT_ID_DUPLICATE,
                        &format!("/outcome/interrupts/{i}/id"),
                        format!("two interrupts carry the id '{id}' (interrupts {first} and {i})"),
                    )
                    .with_help("give each interrupt of a run its own id: a resume entry answers an interrupt by it"),
                );
            }
        }
        if let Some(call) = interrupt.get("toolCallId").and_then(Value::as_str) {
            if answered.contains(call) {
                out.push(
                    at.finding(
                        &OUTCOME_TOOL_CALL_ANSWERED,
                        &format!("/outcome/interrupts/{i}/toolCallId"),
                        format!("interrupt '{}' asks about tool call '{call}', which a TOOL_CALL_RESULT of this run answered", interrupt.get("id").and_then(Value::as_str).unwrap_or("?")),
                    )
                    .with_help("an approval concerns a call still waiting for its result"),
                );
            }
        }
    }
}
