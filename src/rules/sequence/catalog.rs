//! The registry entries of the sequence rules: name, severity, summary
//! and documentation, with an invalid and a valid stream each (a unit test
//! in the parent runs every example through the checker).

use crate::diagnostic::Severity;
use crate::rules::Rule;
use crate::rules::EVERY_VERSION;

pub(super) const EVENT_BEFORE_RUN_STARTED: Rule = Rule {
    name: "event-before-run-started",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A stream's first event is not RUN_STARTED (or RUN_ERROR)",
    docs: r#"## What it checks
That a stream begins with `RUN_STARTED`. `RUN_ERROR` may come first too: an
agent that fails before starting reports it that way. Only the first event
out of place is reported.

## Why it matters
Clients create the run's context (its ids, loading state) on
`RUN_STARTED`; events before it belong to no run and clients drop or
misattribute them.

## Invalid
```json
[{"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}]
```
"#,
};

pub(super) const RUN_STARTED_WHILE_ACTIVE: Rule = Rule {
    name: "run-started-while-active",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "RUN_STARTED arrives while a run is still active",
    docs: r#"## What it checks
That a run ends (`RUN_FINISHED` or `RUN_ERROR`) before the next
`RUN_STARTED`. The finding names the run that is still active.

## Why it matters
Runs do not nest: every run is bounded by its start and its end. A second
start leaves the first run without an end, and clients mix up the events
of both.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_STARTED", "threadId": "t1", "runId": "r2"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_STARTED", "threadId": "t1", "runId": "r2"}]
```
"#,
};

pub(super) const EVENT_AFTER_RUN_ERROR: Rule = Rule {
    name: "event-after-run-error",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An event follows RUN_ERROR",
    docs: r#"## What it checks
That nothing follows `RUN_ERROR`: "after a RunError event, no further
processing will occur". Since 1.0 a new run may: "a producer MUST NOT emit
anything after `RUN_ERROR` except `RUN_STARTED`"
(`spec/1.1/events/lifecycle.mdx`), so in 1.x only a `RUN_STARTED` may
follow; before 1.0 nothing may. Only the first event after it is reported.

## Why it matters
Clients tear the run down on `RUN_ERROR`; what follows is lost or, worse,
applied to the next run.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_ERROR", "message": "model unavailable"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_ERROR", "message": "model unavailable"}]
```
"#,
};

pub(super) const EVENT_AFTER_RUN_FINISHED: Rule = Rule {
    name: "event-after-run-finished",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An event other than RUN_STARTED follows RUN_FINISHED",
    docs: r#"## What it checks
That after `RUN_FINISHED` the only event is a new `RUN_STARTED`. Only the
first event out of place after each finished run is reported.

## Why it matters
`RUN_FINISHED` closes the run's context; later events belong to no run.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"},
 {"type": "STATE_SNAPSHOT", "snapshot": {}}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STATE_SNAPSHOT", "snapshot": {}},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const RUN_FINISHED_ID_MISMATCH: Rule = Rule {
    name: "run-finished-id-mismatch",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "RUN_FINISHED names another thread or run than its RUN_STARTED",
    docs: r#"## What it checks
That `RUN_FINISHED` carries the `threadId` and `runId` of the
`RUN_STARTED` it ends.

## Why it matters
Clients match the end to the start by these ids; a mismatch leaves the
started run open and finishes one that does not exist.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r2"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const RUN_FINISHED_WHILE_OPEN: Rule = Rule {
    name: "run-finished-while-open",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "RUN_FINISHED arrives while a message, tool call, step or reasoning block is open",
    docs: r#"## What it checks
That every text message, tool call, step, reasoning phase and reasoning
message started in a run has ended when `RUN_FINISHED` arrives. One
finding per open item, naming where it started. (`RUN_ERROR` may end a run
with items open: the error explains why.)

## Why it matters
A successful run that leaves a message open shows a message that never
stops loading; a tool call left open is never executed or answered.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const STREAM_TRUNCATED: Rule = Rule {
    name: "stream-truncated",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The stream ends while a run is active",
    docs: r#"## What it checks
That the last run of a stream has ended (`RUN_FINISHED` or `RUN_ERROR`)
when the stream ends. The finding is on the last event and names the run's
`RUN_STARTED`.

## Why it matters
A stream cut off mid-run (a proxy timeout, a crashed agent, a capture
stopped early) leaves the client waiting forever; `RUN_ERROR` is how an
agent says it cannot go on.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "plan"},
 {"type": "STEP_FINISHED", "stepName": "plan"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "plan"},
 {"type": "STEP_FINISHED", "stepName": "plan"},
 {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}]
```
"#,
};

pub(super) const EVENT_WITHOUT_START: Rule = Rule {
    name: "event-without-start",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A content, arguments or end event names a message, tool call or reasoning block that is not open",
    docs: r#"## What it checks
That `TEXT_MESSAGE_CONTENT`/`TEXT_MESSAGE_END`, `TOOL_CALL_ARGS`/
`TOOL_CALL_END`, `REASONING_MESSAGE_CONTENT`/`REASONING_MESSAGE_END` and
`REASONING_END` name an id whose start event came before and whose end
has not.

## Why it matters
Clients look the id up among open messages and tool calls; content for an
unknown id is dropped (or throws in the TypeScript client), and an end
for one already ended says the agent lost track of its own stream.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello"},
 {"type": "TEXT_MESSAGE_END", "messageId": "m1"}]
```
"#,
};

pub(super) const DUPLICATE_START: Rule = Rule {
    name: "duplicate-start",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A start event names a message, tool call or reasoning block that is already open",
    docs: r#"## What it checks
That `TEXT_MESSAGE_START`, `TOOL_CALL_START`, `REASONING_START` and
`REASONING_MESSAGE_START` do not name an id that is open already. The
finding names the first start.

## Why it matters
Two streams under one id interleave into one garbled message or one
tool call with two argument texts run together.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"},
 {"type": "TOOL_CALL_END", "toolCallId": "c1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "search"}]
```
"#,
};

pub(super) const NEVER_ENDED: Rule = Rule {
    name: "never-ended",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A message, tool call or reasoning block is still open when the stream ends",
    docs: r#"## What it checks
That every text message, tool call, reasoning phase and reasoning message
started in the stream has ended when the stream ends: in practice, a stream
cut off mid-message (which is also `stream-truncated`). Chunk events close
themselves, and `RUN_ERROR` ends a run with whatever is open, so neither
is reported. The finding is on the last event and names the start.

## Why it matters
The client keeps showing the message as in progress and never runs the
tool call.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hel"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
 {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hel"},
 {"type": "RUN_ERROR", "message": "cancelled"}]
```
"#,
};

pub(super) const TOOL_CALL_ARGS_NOT_JSON: Rule = Rule {
    name: "tool-call-args-not-json",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: Some(Severity::Warning),
    summary: "A tool call's streamed arguments do not concatenate to JSON",
    docs: r#"## What it checks
That the `delta`s of a tool call's `TOOL_CALL_ARGS` (or `TOOL_CALL_CHUNK`)
events, concatenated in order, parse as JSON when the call ends. A call
with no argument chunks at all is accepted.

An error before 1.0; in AG-UI 1.0 and 1.1 a **warning**: the protocol
carries argument text "and does not validate it", and text that does not
parse is "not a protocol violation" (`spec/1.1/events/tool-calls.mdx`,
`TOOL_CALL_ARGS` and `TOOL_CALL_END`). It is still worth knowing: the tool
runs with arguments its caller cannot read.

## Why it matters
Clients parse the concatenation to run the tool; text that is not JSON
fails there, after the stream has been shown as fine. (ag-ui-langgraph
drops the first chunk of a call's arguments, so its deltas join to
`"values": [1, 2, 3]}`.)

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"},
 {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"q\": \"wea"},
 {"type": "TOOL_CALL_END", "toolCallId": "c1"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search"},
 {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"q\": \"wea"},
 {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "ther\"}"},
 {"type": "TOOL_CALL_END", "toolCallId": "c1"}]
```
"#,
};

pub(super) const TOOL_CALL_RESULT_WITHOUT_START: Rule = Rule {
    name: "tool-call-result-without-start",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "TOOL_CALL_RESULT answers a tool call the stream never started",
    docs: r#"## What it checks
That the `toolCallId` of a `TOOL_CALL_RESULT` was started earlier in the
stream, by `TOOL_CALL_START` or a `TOOL_CALL_CHUNK`. A stream that starts
with a `MESSAGES_SNAPSHOT` counts the tool calls of its assistant messages
as started too.

## Why it matters
The result becomes a tool message answering no call, which model
providers reject on the next run (see `tool-result-without-call`).

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_RESULT", "messageId": "m2", "toolCallId": "c9", "content": "18°C"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_START", "toolCallId": "c9", "toolCallName": "weather"},
 {"type": "TOOL_CALL_END", "toolCallId": "c9"},
 {"type": "TOOL_CALL_RESULT", "messageId": "m2", "toolCallId": "c9", "content": "18°C"}]
```
"#,
};

pub(super) const STEP_FINISHED_WITHOUT_START: Rule = Rule {
    name: "step-finished-without-start",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "STEP_FINISHED names a step that is not running",
    docs: r#"## What it checks
That `STEP_FINISHED` names a step whose `STEP_STARTED` came before and
that has not finished yet: "the `stepName` must match the corresponding
`StepStarted` event".

## Why it matters
Progress UIs pair starts and ends by name; an end without its start
finishes nothing, and the real step stays shown as running.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "plan"},
 {"type": "STEP_FINISHED", "stepName": "planning"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "plan"},
 {"type": "STEP_FINISHED", "stepName": "plan"}]
```
"#,
};

pub(super) const STEP_STARTED_TWICE: Rule = Rule {
    name: "step-started-twice",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "STEP_STARTED names a step that is already running",
    docs: r#"## What it checks
That a step is not started again before it finishes. The finding names
the first start.

## Why it matters
Steps are paired by name; with two starts open, one `STEP_FINISHED` leaves
the UI unsure which ended, and one of them never does.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "search"},
 {"type": "STEP_STARTED", "stepName": "search"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "search"},
 {"type": "STEP_FINISHED", "stepName": "search"},
 {"type": "STEP_STARTED", "stepName": "search"}]
```
"#,
};

pub(super) const STEP_NEVER_FINISHED: Rule = Rule {
    name: "step-never-finished",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A step is still running when the stream ends",
    docs: r#"## What it checks
That every `STEP_STARTED` is followed by its `STEP_FINISHED` before the
stream ends (a stream cut off mid-step). A step open at `RUN_FINISHED` is
`run-finished-while-open`; `RUN_ERROR` ends a run with whatever is open.
A warning: steps are optional progress information.

## Why it matters
The progress UI shows the step as running forever.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "plan"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STEP_STARTED", "stepName": "plan"},
 {"type": "STEP_FINISHED", "stepName": "plan"}]
```
"#,
};

pub(super) const FIRST_CHUNK_WITHOUT_ID: Rule = Rule {
    name: "first-chunk-without-id",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The first chunk of a message or tool call lacks its id (or a tool call its name)",
    docs: r#"## What it checks
That the first `TEXT_MESSAGE_CHUNK` and `REASONING_MESSAGE_CHUNK` of a
message carry `messageId`, and the first `TOOL_CALL_CHUNK` of a tool call
carries both `toolCallId` and `toolCallName`. Later chunks may leave them
out and continue the current message or call.

## Why it matters
The client expands the first chunk into a start event, which needs the id
(and the tool's name); without them it cannot start anything and drops
the chunk.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "delta": "{}"}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "search", "delta": "{"},
 {"type": "TOOL_CALL_CHUNK", "delta": "}"}]
```
"#,
};

pub(super) const STATE_DELTA_INVALID_PATCH: Rule = Rule {
    name: "state-delta-invalid-patch",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A STATE_DELTA's delta is not a valid JSON Patch (RFC 6902)",
    docs: r#"## What it checks
That every operation of a `STATE_DELTA`'s `delta` is an RFC 6902 JSON
Patch operation: an `op` among `add`, `remove`, `replace`, `move`, `copy`
and `test`, a `path` that is a JSON Pointer, a `from` for `move` and
`copy`, a `value` for `add`, `replace` and `test`.

In AG-UI 1.x an operation whose `op` names something RFC 6902 does not
define is not malformed but unrecognised: a consumer drops it from the
patch, with a warning, and applies the rest
(`spec/1.1/basic/patterns/snapshots.mdx`, "When a patch does not apply").
That operation is the schema's `invalid-value` warning there, not this
rule's; a malformed operation (no `path`, a `value` missing) is this
error in every version.

## Why it matters
Clients apply the patch with a JSON Patch library, which rejects the whole
delta; the client's state silently stops following the agent's.

## Invalid
```json
[{"type": "STATE_SNAPSHOT", "snapshot": {"count": 1}},
 {"type": "STATE_DELTA", "delta": [{"op": "replace", "value": 2}]}]
```

## Valid
```json
[{"type": "STATE_SNAPSHOT", "snapshot": {"count": 1}},
 {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/count", "value": 2}]}]
```
"#,
};

pub(super) const STATE_OVER_BUDGET: Rule = Rule {
    name: "state-over-budget",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary:
        "A state or activity update would take what agui-lint keeps of a stream past its bounds",
    docs: r#"## What it checks
What a stream's state and activity contents grow to as snapshots and
deltas are applied: the memory they take together, as agui-lint holds
them, is held to `max-state-bytes` (by default the document limit,
64 MiB; `--max-state-size`, or `max-state-bytes` under `[limits]`), and
the work of applying the
stream's patches (the values `copy` duplicates, the items an array
insertion shifts) to what the patches themselves bring, sixteen times
their size, beyond one state's worth. A `STATE_SNAPSHOT`,
`ACTIVITY_SNAPSHOT`, `STATE_DELTA` or `ACTIVITY_DELTA` past either bound
is reported and not applied, and the state (or the activity's content) is
unknown until the next snapshot, so no later delta is reported against a
state agui-lint did not build.

The argument text of open tool calls, held until each call ends to check
that it concatenates to JSON, is held to the same limit in all: the delta
that would take it past is reported, that call's text is dropped and its
arguments are not checked.

## Why it matters
Twenty `copy` operations from the root double the state twenty times: a
few hundred bytes of stream ask for a million times the state's size.
A consumer that applies them runs out of memory; so would a checker.

## Invalid
```json
[{"type": "STATE_SNAPSHOT", "snapshot": {"a": "xxxxxxxxxxxxxxxx"}},
 {"type": "STATE_DELTA", "delta": [
  {"op": "copy", "from": "", "path": "/c0"},
  {"op": "copy", "from": "", "path": "/c1"},
  {"op": "copy", "from": "", "path": "/c2"},
  {"op": "copy", "from": "", "path": "/c3"},
  {"op": "copy", "from": "", "path": "/c4"},
  {"op": "copy", "from": "", "path": "/c5"},
  {"op": "copy", "from": "", "path": "/c6"},
  {"op": "copy", "from": "", "path": "/c7"},
  {"op": "copy", "from": "", "path": "/c8"},
  {"op": "copy", "from": "", "path": "/c9"},
  {"op": "copy", "from": "", "path": "/c10"},
  {"op": "copy", "from": "", "path": "/c11"},
  {"op": "copy", "from": "", "path": "/c12"},
  {"op": "copy", "from": "", "path": "/c13"},
  {"op": "copy", "from": "", "path": "/c14"},
  {"op": "copy", "from": "", "path": "/c15"},
  {"op": "copy", "from": "", "path": "/c16"},
  {"op": "copy", "from": "", "path": "/c17"},
  {"op": "copy", "from": "", "path": "/c18"},
  {"op": "copy", "from": "", "path": "/c19"},
  {"op": "copy", "from": "", "path": "/c20"},
  {"op": "copy", "from": "", "path": "/c21"},
  {"op": "copy", "from": "", "path": "/c22"},
  {"op": "copy", "from": "", "path": "/c23"},
  {"op": "copy", "from": "", "path": "/c24"},
  {"op": "copy", "from": "", "path": "/c25"},
  {"op": "copy", "from": "", "path": "/c26"},
  {"op": "copy", "from": "", "path": "/c27"},
  {"op": "copy", "from": "", "path": "/c28"},
  {"op": "copy", "from": "", "path": "/c29"}
 ]}]
```

## Valid
```json
[{"type": "STATE_SNAPSHOT", "snapshot": {"a": "xxxxxxxxxxxxxxxx"}},
 {"type": "STATE_DELTA", "delta": [{"op": "copy", "from": "/a", "path": "/b"}]}]
```
"#,
};

pub(super) const STATE_DELTA_NOT_APPLICABLE: Rule = Rule {
    name: "state-delta-not-applicable",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A STATE_DELTA does not apply to the state built so far",
    docs: r#"## What it checks
That each `STATE_DELTA` applies to the state built from the last
`STATE_SNAPSHOT` (or the `state` of `RUN_STARTED.input`) and the deltas
since: paths exist where they must, `test` operations hold. Before 1.0,
after a delta that does not apply the state is unknown until the next
snapshot, so nothing more is reported about it.

In AG-UI 1.x this is a warning (`spec/1.1/basic/patterns/snapshots.mdx`,
"When a patch does not apply"): the consumer must surface the failure and
may carry on with its prior state, so later deltas are checked against that
state, as the consumer applies them.

## Why it matters
The client's patch fails and its state diverges from the agent's; the
spec's remedy is a fresh `STATE_SNAPSHOT`.

## Invalid
```json
[{"type": "STATE_SNAPSHOT", "snapshot": {"items": []}},
 {"type": "STATE_DELTA", "delta": [{"op": "replace", "path": "/count", "value": 2}]}]
```

## Valid
```json
[{"type": "STATE_SNAPSHOT", "snapshot": {"items": []}},
 {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/items/-", "value": "a"}]}]
```
"#,
};

pub(super) const STATE_DELTA_BEFORE_SNAPSHOT: Rule = Rule {
    name: "state-delta-before-snapshot",
    severity: Severity::Info,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A STATE_DELTA comes before any state snapshot in the stream",
    docs: r#"## What it checks
Whether a `STATE_DELTA` arrives before the stream gave a base state (a
`STATE_SNAPSHOT`, or `RUN_STARTED.input.state`). An info: the client may
hold the state from an earlier run, but agui-lint cannot check the delta.

## Why it matters
A client that joins here (a reload, a second tab) has nothing to apply
the delta to; sending a snapshot first makes the stream self-contained.

## Invalid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/count", "value": 1}]}]
```

## Valid
```json
[{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"},
 {"type": "STATE_SNAPSHOT", "snapshot": {}},
 {"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/count", "value": 1}]}]
```
"#,
};
