//! 1.x subagents (`spec/1.1/events/subagents.mdx`): `SUBAGENT_STARTED`
//! announces an invocation under its `subagentRunId` (opened in the
//! registry of [`super::open`]) and `SUBAGENT_FINISHED` or
//! `SUBAGENT_ERROR` ends it; other events carry the id they are
//! attributed to. An invocation that finished sends nothing more in its
//! run, an announcement comes before what is attributed to it, and a tool
//! call or continuation carries its opener's attribution ("Ownership").

use foldhash::{HashMap, HashSet};

use super::event_type::EventType;
use super::here::{owner_name, EventPlace, Here};
use super::open::{OpenItems, Opened, OWNER_MISMATCH};
use super::REMEMBERED_IDS;
use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Rule, SINCE_1_0};

pub(super) const SUBAGENT_STARTED_LATE: Rule = Rule {
    name: "subagent-started-late",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "SUBAGENT_STARTED comes after events already attributed to the invocation",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/subagents.mdx`, "Lifecycle"): a producer that
announces an invocation does so before any event attributed to it.

## Why it matters
A consumer shows the invocation as running from its announcement; events
before it were grouped under an invocation it did not know yet.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "CUSTOM", "name": "n", "value": 1, "subagentRunId": "s1"},
 {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
 {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
 {"type": "CUSTOM", "name": "n", "value": 1, "subagentRunId": "s1"},
 {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const SUBAGENT_ID_REUSED: Rule = Rule {
    name: "subagent-id-reused",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A subagentRunId is used again after its invocation finished in the run",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/subagents.mdx`): an id identifies one
invocation; a producer must not reuse the id of an invocation that already
finished in this run, neither to announce another nor to attribute more
events. (A later run may continue a suspended invocation under its id.)

## Why it matters
A consumer would reopen a closed invocation or attribute new work to one
that already reported its end.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
 {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
 {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
 {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
 {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
 {"type": "SUBAGENT_STARTED", "subagentRunId": "s2", "name": "researcher"},
 {"type": "SUBAGENT_FINISHED", "subagentRunId": "s2"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const SUBAGENT_PARENT_NOT_STARTED: Rule = Rule {
    name: "subagent-parent-not-started",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "SUBAGENT_STARTED names a parent invocation the run never announced",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/subagents.mdx`, "Nesting and parallelism"):
`parentSubagentRunId` names the invocation that spawned this one, and a
producer must not name one that has not been announced in this run.

## Why it matters
A consumer nests the invocation under its parent; an unknown parent leaves
it nowhere in the tree.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "SUBAGENT_STARTED", "subagentRunId": "s2", "name": "helper", "parentSubagentRunId": "s1"},
 {"type": "SUBAGENT_FINISHED", "subagentRunId": "s2"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "SUBAGENT_STARTED", "subagentRunId": "s1", "name": "researcher"},
 {"type": "SUBAGENT_STARTED", "subagentRunId": "s2", "name": "helper", "parentSubagentRunId": "s1"},
 {"type": "SUBAGENT_FINISHED", "subagentRunId": "s2"},
 {"type": "SUBAGENT_FINISHED", "subagentRunId": "s1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

/// What a 1.x run knows of its subagent invocations beyond those open.
#[derive(Debug, Default)]
pub(super) struct Subagents {
    /// This run: subagent invocations that finished, by id.
    done: HashMap<String, EventPlace>,
    /// This run: subagent ids events were attributed to before any
    /// announcement (at most [`REMEMBERED_IDS`]).
    attributed: HashSet<String>,
}

impl Subagents {
    /// The run ended: its invocations are forgotten.
    pub(super) fn clear(&mut self) {
        self.done.clear();
        self.attributed.clear();
    }

    /// 1.x: follows the subagent brackets, the attribution of every other
    /// event, and the owner a `TOOL_CALL_START` names.
    pub(super) fn event(&mut self, at: &Here<'_>, open: &mut OpenItems, out: &mut impl Findings) {
        // Any SUBAGENT_ event (one a later version adds among them) is an
        // invocation's bracket, not an event attributed to it.
        if !at.type_.starts_with("SUBAGENT_") {
            self.attribution(at, open, out);
        }
        match at.kind {
            EventType::SubagentStarted => self.started(at, open, out),
            EventType::SubagentFinished | EventType::SubagentError => self.ended(at, open, out),
            EventType::ToolCallStart => tool_call_owner(at, open, out),
            _ => {}
        }
    }

    /// An event attributed to a subagent invocation.
    fn attribution(&mut self, at: &Here<'_>, open: &OpenItems, out: &mut impl Findings) {
        let Some(id) = at.owner() else {
            return;
        };
        if let Some(done) = self.done.get(id) {
            out.push(
                at.finding(
                    &SUBAGENT_ID_REUSED,
                    "/subagentRunId",
                    format!("{} is attributed to subagent '{id}', whose invocation already finished in this run", at.type_),
                )
                .with_help("a finished invocation sends nothing more; a second invocation gets its own subagentRunId")
                .with_note(done.note("the invocation finished here")),
            );
        } else if !open.contains(Opened::Subagent, id) && self.attributed.len() < REMEMBERED_IDS {
            self.attributed.insert(id.to_string());
        }
    }

    /// `SUBAGENT_FINISHED` or `SUBAGENT_ERROR` ends an active invocation,
    /// whose id this run may not use again.
    fn ended(&mut self, at: &Here<'_>, open: &mut OpenItems, out: &mut impl Findings) {
        let ended = open.end(Opened::Subagent, "subagentRunId", at, out);
        if let (Some(_), Some(id)) = (ended, at.owner()) {
            self.done.insert(id.to_string(), at.place.clone());
        }
    }

    fn started(&mut self, at: &Here<'_>, open: &mut OpenItems, out: &mut impl Findings) {
        let Some(id) = at.owner() else {
            return;
        };
        if let Some(done) = self.done.get(id) {
            out.push(
                at.finding(
                    &SUBAGENT_ID_REUSED,
                    "/subagentRunId",
                    format!("SUBAGENT_STARTED reuses subagentRunId '{id}' of an invocation that finished in this run"),
                )
                .with_help("each invocation gets its own subagentRunId; an id reappears only in a later run, continuing a suspended invocation")
                .with_note(done.note("the invocation finished here")),
            );
        } else if self.attributed.contains(id) {
            out.push(
                at.finding(
                    &SUBAGENT_STARTED_LATE,
                    "/subagentRunId",
                    format!(
                        "SUBAGENT_STARTED for '{id}' comes after events already attributed to it"
                    ),
                )
                .with_help(
                    "announce an invocation before any event attributed to it, or not at all",
                ),
            );
        }
        if let Some(parent) = at.str("parentSubagentRunId") {
            let announced =
                open.contains(Opened::Subagent, parent) || self.done.contains_key(parent);
            if !announced {
                out.push(
                    at.finding(
                        &SUBAGENT_PARENT_NOT_STARTED,
                        "/parentSubagentRunId",
                        format!("SUBAGENT_STARTED names parent invocation '{parent}', which this run never announced"),
                    )
                    .with_help("announce the parent with SUBAGENT_STARTED first, or leave parentSubagentRunId out for the parent agent"),
                );
            }
        }
        open.start(Opened::Subagent, "subagentRunId", at, out);
    }
}

/// 1.x: a tool call inherits the attribution of the message holding it,
/// and may not name another owner.
fn tool_call_owner(at: &Here<'_>, open: &OpenItems, out: &mut impl Findings) {
    let (Some(tag), Some(parent)) = (at.owner(), at.str("parentMessageId")) else {
        return;
    };
    let Some(message) = open.get(Opened::TextMessage, parent) else {
        return;
    };
    if message.owner.as_deref() == Some(tag) {
        return;
    }
    let owner = owner_name(message.owner.as_deref());
    out.push(
        at.finding(
            &OWNER_MISMATCH,
            "/subagentRunId",
            format!(
                "TOOL_CALL_START is attributed to subagent '{tag}', but its message '{parent}' belongs to {owner}"
            ),
        )
        .with_help("a tool call carries the attribution of the message that holds it, or none")
        .with_note(message.start.note(format!("{} here", message.start_type))),
    );
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::fired_at;
    use crate::Protocol;

    #[test]
    fn subagents_are_bracketed_and_own_their_items() {
        assert_eq!(
            fired_at(
                Protocol::V1_1,
                json!([
                    {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                    {"type": "SUBAGENT_FINISHED", "subagentRunId": "x"},
                    {"type": "SUBAGENT_STARTED", "subagentRunId": "s", "name": "n"},
                    {"type": "SUBAGENT_STARTED", "subagentRunId": "s", "name": "n"},
                    {"type": "STEP_STARTED", "stepName": "p", "subagentRunId": "s"},
                    {"type": "STEP_STARTED", "stepName": "p"},
                    {"type": "STEP_FINISHED", "stepName": "p", "subagentRunId": "s"},
                    {"type": "STEP_FINISHED", "stepName": "p"},
                    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
                ])
            ),
            [
                crate::rules::sequence::open::EVENT_WITHOUT_START.name,
                crate::rules::sequence::open::DUPLICATE_START.name,
                crate::rules::sequence::lifecycle::RUN_FINISHED_WHILE_OPEN.name
            ]
        );
        assert_eq!(
            fired_at(
                Protocol::V1_1,
                json!([
                    {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "subagentRunId": "s"},
                    {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f", "parentMessageId": "m", "subagentRunId": "x"},
                    {"type": "TOOL_CALL_START", "toolCallId": "d", "toolCallName": "f", "parentMessageId": "m"},
                    {"type": "TOOL_CALL_END", "toolCallId": "c"},
                    {"type": "TOOL_CALL_END", "toolCallId": "d"},
                    {"type": "TEXT_MESSAGE_END", "messageId": "m"},
                    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
                ])
            ),
            [crate::rules::sequence::open::OWNER_MISMATCH.name]
        );
    }
}
