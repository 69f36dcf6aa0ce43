//! A 1.x run's `RUN_FINISHED` outcome against the run it ends
//! (`spec/1.1/basic/patterns/interrupt-resume.mdx`,
//! `spec/1.1/events/lifecycle.mdx`): interrupt ids unique, and no call the
//! run answered named as pending; and the next request's `resume` entries
//! against the interrupts of the run it continues.

use foldhash::{HashMap, HashSet};

use serde_json::Value;

use super::here::Here;
use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Rule, SINCE_1_0};

pub(super) const INTERRUPT_ID_DUPLICATE: Rule = Rule {
    name: "interrupt-id-duplicate",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "Two interrupts of one RUN_FINISHED outcome share an id",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/basic/patterns/interrupt-resume.mdx`, "Interrupting"):
each interrupt's `id` is unique within the run.

## Why it matters
A resume entry answers an interrupt by its id: with a duplicate one answer
covers two questions and the second is dropped in silence. A consumer
rejects the outcome.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "interrupt",
  "interrupts": [{"id": "i1", "reason": "approval"}, {"id": "i1", "reason": "approval"}]}}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "interrupt",
  "interrupts": [{"id": "i1", "reason": "approval"}, {"id": "i2", "reason": "approval"}]}}]
```
"#,
};

pub(super) const OUTCOME_TOOL_CALL_ANSWERED: Rule = Rule {
    name: "outcome-tool-call-answered",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A RUN_FINISHED outcome names as pending a tool call the run answered",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/lifecycle.mdx`, `RUN_FINISHED`): a success
outcome's `pendingToolCallIds` names the calls the run left unanswered, and
an interrupt's `toolCallId` the call an approval concerns. Reported when
the run's own `TOOL_CALL_RESULT` already answered that call.

## Why it matters
The outcome contradicts the stream: an application would ask for, or wait
on, an answer that already exists.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"},
 {"type": "TOOL_CALL_END", "toolCallId": "c1"},
 {"type": "TOOL_CALL_RESULT", "messageId": "t1m", "toolCallId": "c1", "content": "ok"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1",
  "outcome": {"type": "success", "pendingToolCallIds": ["c1"]}}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "confirm"},
 {"type": "TOOL_CALL_END", "toolCallId": "c1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1",
  "outcome": {"type": "success", "pendingToolCallIds": ["c1"]}}]
```
"#,
};

pub(super) const RESUME_MISSING_INTERRUPT: Rule = Rule {
    name: "resume-missing-interrupt",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary:
        "The request after an interrupted run leaves one of its interrupts without a resume entry",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/basic/patterns/interrupt-resume.mdx`, "Resuming"), in
a captured exchange (HAR): the next request on the thread of a run that
finished with the interrupt outcome must cover every interrupt of that run
in its `resume` list, each answered or explicitly abandoned.

## Why it matters
Omission is not abandonment: a consumer must reject such an input before
sending it, and a producer that notices must keep the interrupt open.

## Invalid
```json
{"previous run": {"threadId": "t1", "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "approval"}]}},
 "next request": {"threadId": "t1", "runId": "r2", "messages": [], "resume": []}}
```

## Valid
```json
{"previous run": {"threadId": "t1", "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "approval"}]}},
 "next request": {"threadId": "t1", "runId": "r2", "messages": [],
                  "resume": [{"interruptId": "i1", "status": "resolved", "payload": {"approved": true}}]}}
```
"#,
};

pub(super) const RESUME_UNKNOWN_INTERRUPT: Rule = Rule {
    name: "resume-unknown-interrupt",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A resume entry answers an interrupt the run it continues did not raise",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/basic/patterns/interrupt-resume.mdx`, "Resuming"), in
a captured exchange (HAR): each resume entry's `interruptId` names an
interrupt of the run being continued, the most recent run on the thread.

## Why it matters
A producer proceeds without an entry it does not recognise and warns: the
answer is lost.

## Invalid
```json
{"previous run": {"threadId": "t1", "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "approval"}]}},
 "next request": {"threadId": "t1", "runId": "r2", "messages": [],
                  "resume": [{"interruptId": "i1", "status": "resolved"}, {"interruptId": "i9", "status": "resolved"}]}}
```

## Valid
```json
{"previous run": {"threadId": "t1", "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "approval"}]}},
 "next request": {"threadId": "t1", "runId": "r2", "messages": [],
                  "resume": [{"interruptId": "i1", "status": "resolved"}]}}
```
"#,
};

/// How the latest 1.x run of a stream finished: the interrupts the next
/// request on its thread must answer (none after a run that finished
/// otherwise).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interrupted {
    /// The run's thread, when its `RUN_STARTED` named one.
    pub thread: Option<String>,
    /// The ids of the interrupts its `RUN_FINISHED` outcome carried.
    pub ids: Vec<String>,
}

/// Checks the outcome of the `RUN_FINISHED` at `at`; `answered` holds the
/// tool calls the run's `TOOL_CALL_RESULT`s answered.
pub(super) fn check(
    at: &Here<'_>,
    outcome: Option<&Value>,
    answered: &HashSet<String>,
    out: &mut impl Findings,
) {
    let Some(outcome) = outcome else {
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

/// The ids of the interrupts `outcome`, a `RUN_FINISHED`'s, carries.
pub(super) fn interrupt_ids(outcome: Option<&Value>) -> Vec<String> {
    let Some(outcome) =
        outcome.filter(|o| o.get("type").and_then(Value::as_str) == Some("interrupt"))
    else {
        return Vec::new();
    };
    outcome
        .get("interrupts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|i| i.get("id").and_then(Value::as_str))
        .map(str::to_string)
        .collect()
}

/// A 1.x `RunAgentInput` that follows `previous`, the latest run of a
/// captured exchange: on the same thread its `resume` list must cover every
/// interrupt of that run (a consumer rejects it otherwise) and name no
/// other (a producer proceeds without such an entry, with a warning).
/// `spec/1.1/basic/patterns/interrupt-resume.mdx`, "Resuming".
pub(crate) fn check_resume(input: &Value, previous: &Interrupted, out: &mut impl Findings) {
    let thread = input.get("threadId").and_then(Value::as_str);
    if thread.is_none() || thread != previous.thread.as_deref() {
        return;
    }
    let entries = input.get("resume").and_then(Value::as_array);
    let answered: Vec<&str> = entries
        .into_iter()
        .flatten()
        .filter_map(|e| e.get("interruptId").and_then(Value::as_str))
        .collect();
    for (i, entry) in entries.into_iter().flatten().enumerate() {
        let Some(id) = entry.get("interruptId").and_then(Value::as_str) else {
            continue;
        };
        if !previous.ids.iter().any(|known| known == id) {
            let why = if previous.ids.is_empty() {
                "the run before on this thread was not interrupted".to_string()
            } else {
                format!(
                    "the run before on this thread raised {}",
                    quoted(&previous.ids)
                )
            };
            out.push(
                RESUME_UNKNOWN_INTERRUPT
                    .diagnostic(
                        format!("/resume/{i}/interruptId"),
                        format!("resume entry answers interrupt '{id}', which the run it continues did not raise: {why}"),
                    )
                    .with_help("a producer proceeds without the entry; answer the interrupts of the most recent interrupted run on the thread"),
            );
        }
    }
    let missing: Vec<&String> = previous
        .ids
        .iter()
        .filter(|id| !answered.contains(&id.as_str()))
        .collect();
    if !missing.is_empty() {
        let pointer = if entries.is_some() { "/resume" } else { "" };
        out.push(
            RESUME_MISSING_INTERRUPT
                .diagnostic(
                    pointer,
                    format!(
                        "the input continues an interrupted run but leaves interrupt{} {} without a resume entry",
                        if missing.len() == 1 { "" } else { "s" },
                        quoted(&missing)
                    ),
                )
                .with_help("answer each interrupt, or abandon it with an entry of status 'abandoned': omission is not abandonment"),
        );
    }
}

fn quoted<S: AsRef<str>>(ids: &[S]) -> String {
    ids.iter()
        .map(|id| format!("'{}'", id.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn interrupts(at: &Here<'_>, outcome: &Value, answered: &HashSet<String>, out: &mut impl Findings) {
    let mut seen: HashMap<&str, usize> = HashMap::default();
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

#[cfg(test)]
mod tests {
    use super::super::tests::example;
    use super::*;

    #[test]
    fn resume_entries_answer_the_interrupts() {
        for rule in [&RESUME_MISSING_INTERRUPT, &RESUME_UNKNOWN_INTERRUPT] {
            for (heading, fires) in [("## Invalid", true), ("## Valid", false)] {
                let example = example(rule.docs, heading);
                let run = &example["previous run"];
                let previous = Interrupted {
                    thread: run["threadId"].as_str().map(str::to_string),
                    ids: interrupt_ids(run.get("outcome")),
                };
                let mut out = Vec::new();
                check_resume(&example["next request"], &previous, &mut out);
                let rules: Vec<&str> = out.iter().map(|d| d.rule.as_str()).collect();
                assert_eq!(
                    rules.contains(&rule.name),
                    fires,
                    "{} {heading}: {rules:?}",
                    rule.name
                );
                if !fires {
                    assert!(rules.is_empty(), "{} {heading}: {rules:?}", rule.name);
                }
            }
        }
    }
}
