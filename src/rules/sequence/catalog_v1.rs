//! The registry entries of the sequence rules AG-UI 1.0 and 1.1 add (the
//! normative processing rules of `spec/1.1/`), with an invalid and a valid
//! stream each; a unit test in the parent runs every example through the
//! checker at 1.1.

use crate::diagnostic::Severity;
use crate::rules::Rule;
use crate::rules::SINCE_1_0;

pub(super) const RUN_STARTED_OTHER_THREAD: Rule = Rule {
    name: "run-started-other-thread",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A run of a stream names another thread than the run before it",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/lifecycle.mdx`, "Several runs on one stream"): a
stream may carry several runs in sequence, but they are runs of one
conversation, so every `RUN_STARTED` of a stream carries the `threadId` of
the run before it (a stream re-homed once is reported once).

## Why it matters
A consumer rejects a second run on another thread rather than quietly
re-homing the stream: its messages and state belong to the first thread.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_STARTED", "threadId": "t2", "runId": "r2", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t2", "runId": "r2"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_STARTED", "threadId": "t1", "runId": "r2", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r2"}]
```
"#,
};

pub(super) const RUN_ID_REUSED: Rule = Rule {
    name: "run-id-reused",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A run of a stream reuses the runId of an earlier run",
    docs: r#"## What it checks
AG-UI 1.x: every run a stream carries is a new run (`spec/1.1/events/lifecycle.mdx`,
"After a run closes": "a producer MAY emit RUN_STARTED to begin a new run"),
and each run has its own `runId`. A `RUN_STARTED` repeating the `runId` of
an earlier run of the stream is reported.

## Why it matters
Clients key a run's events, outcome and usage by its `runId`; two runs
under one id merge in their history. A consumer carries on, hence a
warning.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_STARTED", "threadId": "t1", "runId": "r2", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r2"}]
```
"#,
};

pub(super) const PROTOCOL_VERSION_MISMATCH: Rule = Rule {
    name: "protocol-version-mismatch",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary:
        "RUN_STARTED declares another protocolVersion than the request (or the input it echoes)",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/basic/versioning.mdx`, "Version negotiation"): the
producer declares the version it speaks on `RUN_STARTED`. Reported when
that declaration differs from the one its request made (in a HAR capture,
the request of the same entry) or from the `protocolVersion` of the input
the event echoes.

## Why it matters
A consumer meeting a declaration other than its own proceeds under the
version it speaks and warns: what the newer version adds is stripped.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1",
  "input": {"threadId": "t1", "runId": "r1", "messages": [], "protocolVersion": "1.0"}},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1",
  "input": {"threadId": "t1", "runId": "r1", "messages": [], "protocolVersion": "1.1"}},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const PROTOCOL_VERSION_MISSING: Rule = Rule {
    name: "protocol-version-missing",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A 1.x run's RUN_STARTED declares no protocolVersion, though its request did or the run uses what only 1.x has",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/basic/versioning.mdx`, "Version negotiation"): "an
implementation of this version MUST send its declaration" on
`RUN_STARTED.protocolVersion`. Absence means a peer from before the
protocol carried a version, so it is reported only where the stream says
otherwise: the request the run answers declared a version (in a HAR, the
request of the same entry), or the run uses something only 1.x has (a
`RUN_FINISHED` outcome or usage, subagent events, `subagentRunId`).
Where nothing tells, nothing is reported.

## Why it matters
A consumer that sees no declaration must treat the producer as one that
predates versioning. An adapter built on a 1.x SDK that declares nothing
(ag-ui-langgraph 0.0.47 answers every `"1.0"` request so) keeps its
consumers from noticing a downgrade.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "success"}}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "success"}}]
```
"#,
};

pub(super) const SNAPSHOT_CONTRADICTS_STREAM: Rule = Rule {
    name: "snapshot-contradicts-stream",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A MESSAGES_SNAPSHOT says otherwise than the run streamed about the same message or tool call",
    docs: r#"## What it checks
AG-UI 1.x: a `MESSAGES_SNAPSHOT` replaces a consumer's copy of each message
by id (`spec/1.1/events/state.mdx`, "MESSAGES_SNAPSHOT"). Reported when a
snapshot entry contradicts what the same run streamed for that id and
closed: another role (`TEXT_MESSAGE_START`), other text
(`TEXT_MESSAGE_CONTENT`), another tool name or other arguments
(`TOOL_CALL_START`, `TOOL_CALL_ARGS`; arguments compared as JSON where both
parse, none streamed being the same as `{}`), or another tool result
(`TOOL_CALL_RESULT`). A snapshot that completes a message still streaming,
or restates what an earlier run streamed, is history superseded (a
snapshot "MAY restate the message wholesale", `events/text-messages.mdx`),
and is not reported. A run keeps at most 4 MiB of streamed text for the
comparison; what does not fit is not compared.

## Why it matters
A client that builds the conversation from the events and one that takes
the snapshot now hold different conversations. ag-ui-langgraph 0.0.47
streams a backend tool call with no `TOOL_CALL_ARGS` while its own
snapshot carries the arguments: a client applying the events calls the
tool with none.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "get_weather", "parentMessageId": "m1"},
 {"type": "TOOL_CALL_END", "toolCallId": "c1"},
 {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m1", "role": "assistant", "toolCalls": [
   {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Berlin\"}"}}]}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "get_weather", "parentMessageId": "m1"},
 {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"city\":\"Berlin\"}"},
 {"type": "TOOL_CALL_END", "toolCallId": "c1"},
 {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "m1", "role": "assistant", "toolCalls": [
   {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Berlin\"}"}}]}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const CHUNK_CONTRADICTS_OPENER: Rule = Rule {
    name: "chunk-contradicts-opener",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A continuation chunk repeats a field of its opener with another value",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/basic/patterns/streaming.mdx`, "Continuation chunks"):
a later chunk may repeat a field its first chunk established (`role` or
`name` of a text message, `toolCallName` or `parentMessageId` of a tool
call) only with the same value. A message opened without a role is an
`assistant` message, so a continuation claiming another role contradicts it.

## Why it matters
The producer said two incompatible things about one item; a consumer must
reject the stream rather than choose.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "Hel"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "user", "delta": "lo"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "delta": "Hel"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": "lo"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const CHUNK_CONTINUATION_AMBIGUOUS: Rule = Rule {
    name: "chunk-continuation-ambiguous",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A chunk names no item and no owner while several subagents stream one",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/basic/patterns/streaming.mdx`, "Closing a chunk
stream"): a chunk carrying neither its item's id nor a `subagentRunId`
continues the parent agent's open stream of its kind, else the only open
one. When several subagents have one open and the parent none, it has no
unique referent.

## Why it matters
A consumer must reject the chunk as ambiguous: appending it to either
stream could put one agent's words in another's message.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "subagentRunId": "s1", "delta": "a"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "subagentRunId": "s2", "delta": "b"},
 {"type": "TEXT_MESSAGE_CHUNK", "delta": "c"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "subagentRunId": "s1", "delta": "a"},
 {"type": "TEXT_MESSAGE_CHUNK", "messageId": "m2", "subagentRunId": "s2", "delta": "b"},
 {"type": "TEXT_MESSAGE_CHUNK", "subagentRunId": "s1", "delta": "c"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const OWNER_MISMATCH: Rule = Rule {
    name: "continuation-owner-mismatch",
    severity: Severity::Error,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "A content or end event is attributed to another subagent than its opener",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/subagents.mdx`, "Ownership"): once a message,
reasoning message or tool call is opened under an owner, every event
continuing it carries that owner's `subagentRunId` or none. A continuation
naming another owner is reported (an untagged one is fine).

## Why it matters
A consumer must reject it: accepting it would append one producer's content
to another producer's message, which nobody can detect afterwards.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "subagentRunId": "s1"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi", "subagentRunId": "s2"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant", "subagentRunId": "s1"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi", "subagentRunId": "s1"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

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

pub(super) const ACTIVITY_DELTA_WITHOUT_SNAPSHOT: Rule = Rule {
    name: "activity-delta-without-snapshot",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "ACTIVITY_DELTA for an activity message no ACTIVITY_SNAPSHOT created",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/activity.mdx`, `ACTIVITY_DELTA`): a producer
must not send a delta for an activity message it has not created with a
snapshot (or restated in a `MESSAGES_SNAPSHOT`).

## Why it matters
A consumer skips the delta with a warning and must not fail the run; the
activity it was meant to update never shows the change.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
  "patch": [{"op": "replace", "path": "/found", "value": 3}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "search", "content": {"found": 0}},
 {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
  "patch": [{"op": "replace", "path": "/found", "value": 3}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const ACTIVITY_DELTA_NOT_APPLICABLE: Rule = Rule {
    name: "activity-delta-not-applicable",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "An ACTIVITY_DELTA patch does not apply to the activity's content",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/activity.mdx`): each `ACTIVITY_DELTA` patch is
applied to the content its activity message has so far (built from its
snapshot and earlier deltas), as `STATE_DELTA` is applied to the state.

## Why it matters
A well-formed patch that does not apply is skipped with a warning; producer
and consumer now disagree about the activity until its next snapshot.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "search", "content": {"found": 0}},
 {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
  "patch": [{"op": "remove", "path": "/results"}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "search", "content": {"found": 0}},
 {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
  "patch": [{"op": "add", "path": "/results", "value": []}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const ACTIVITY_CONTENT_NOT_OBJECT: Rule = Rule {
    name: "activity-content-not-object",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary: "An ACTIVITY_DELTA patch makes the activity's content something other than an object",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/events/activity.mdx`): the patched content must still
be an object; a producer must not send a patch (a root replacement, say)
whose application makes it anything else. A warning: the duty is the
producer's, and "a consumer is not required to detect the violation", so
a conforming consumer need not fail the run for it.

## Why it matters
Activity content is an object by schema: the consumer now holds an
activity message no schema accepts.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "search", "content": {"found": 0}},
 {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
  "patch": [{"op": "replace", "path": "", "value": [1, 2]}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1", "protocolVersion": "1.1"},
 {"type": "ACTIVITY_SNAPSHOT", "messageId": "a1", "activityType": "search", "content": {"found": 0}},
 {"type": "ACTIVITY_DELTA", "messageId": "a1", "activityType": "search",
  "patch": [{"op": "replace", "path": "", "value": {"found": 2}}]},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};
