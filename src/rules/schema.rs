//! Rules of the parse and schema layers: what the JSON parser and the
//! published JSON Schemas report. Their checks live in [`crate::parse`] and
//! [`crate::schema`]; this file holds their registry entries (one job:
//! it is long because each entry carries its documentation and examples).

use super::Rule;
use crate::diagnostic::Severity;

/// The rules of the parse and schema layers, in documentation order.
pub(super) const RULES: &[Rule] = &[
    INVALID_JSON,
    INVALID_ENCODING,
    BYTE_ORDER_MARK,
    EMPTY_INPUT,
    DOCUMENT_TOO_LARGE,
    TOO_MANY_FINDINGS,
    CHECK_TIMED_OUT,
    NESTING_TOO_DEEP,
    NESTING_REFUSED_BY_SERVERS,
    INVALID_HAR,
    NO_AGUI_TRAFFIC,
    RESPONSE_NOT_CAPTURED,
    DUPLICATE_KEY,
    UNKNOWN_KIND,
    MISSING_FIELD,
    WRONG_TYPE,
    INVALID_VALUE,
    NULL_FOR_OPTIONAL,
    UNKNOWN_FIELD,
    UNKNOWN_EVENT_TYPE,
    SCHEMA_VIOLATION,
];

pub(crate) const INVALID_JSON: Rule = Rule {
    name: "invalid-json",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The document is not JSON",
    docs: r#"## What it checks
That the document is one well-formed JSON text (RFC 8259): no comments, no
trailing commas, no single quotes, nothing after the value. The finding
points at the line and column where the parser gave up.

## Why it matters
Neither SDK can read the payload at all; nothing else in it can be checked.

## Invalid
```json
{"threadId": "t", "runId": "r",}
```

## Valid
```json
{"threadId": "t", "runId": "r"}
```
"#,
};

pub(crate) const INVALID_ENCODING: Rule = Rule {
    name: "invalid-encoding",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The document is UTF-16 or UTF-32, not UTF-8",
    docs: r#"## What it checks
That the document is not in a wide Unicode encoding: UTF-16 or UTF-32,
told by its byte order mark or by the NUL bytes of its first characters.
JSON exchanged between systems must be UTF-8 (RFC 8259, section 8.1). The
document is not read further. (Bytes that are not UTF-8 in an otherwise
UTF-8 text are `invalid-json`, with the byte named.)

## Why it matters
Both SDKs read request bodies as UTF-8: a UTF-16 body is garbage to them.
Such files come from editors and shells on Windows (PowerShell's `>`
writes UTF-16).

## Invalid
```json
<FF FE>{<00>"<00>i<00>d<00>"<00>...
```
(`{"id": ...}` saved as UTF-16LE)

## Valid
```json
{"id": "m1", "role": "user", "content": "hi"}
```
"#,
};

pub(crate) const BYTE_ORDER_MARK: Rule = Rule {
    name: "byte-order-mark",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The document starts with a byte order mark",
    docs: r#"## What it checks
That the document does not start with the UTF-8 byte order mark (`EF BB
BF`), which RFC 8259 forbids in JSON sent between systems. The rest of the
document is checked as if the mark were not there.

## Why it matters
`JSON.parse` (the TypeScript SDK) and Python's `json.loads` both reject a
text that starts with it, so the payload is unreadable to both.

## Invalid
```json
<EF BB BF>{"id": "m1", "role": "user", "content": "hi"}
```
(saved by an editor "with BOM")

## Valid
```json
{"id": "m1", "role": "user", "content": "hi"}
```
"#,
};

pub(crate) const EMPTY_INPUT: Rule = Rule {
    name: "empty-input",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A capture holds no document",
    docs: r#"## What it checks
Whether a JSON Lines file or an SSE capture holds at least one record. An
empty (or blank) one is reported once, so that a capture that recorded
nothing does not pass unnoticed. (An empty `.json` file is `invalid-json`:
it is one document, and not JSON.)

## Why it matters
A CI step over captured traffic that finds nothing to check is usually a
capture that failed.

## Invalid
```json
```
(an empty `run.jsonl`)

## Valid
```json
{"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}
```
"#,
};

pub(crate) const DOCUMENT_TOO_LARGE: Rule = Rule {
    name: "document-too-large",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The document is larger than the configured limit",
    docs: r#"## What it checks
That a document (a file, a JSON Lines line, an SSE event) is no larger than
`max-document-bytes` (default 64 MiB; `--max-document-size`, or
`[limits]` in `agui-lint.toml`). A larger one is not read into memory or
checked; the finding says so.

## Why it matters
A validator in front of a server sees whatever is sent; bounding the size
bounds the memory and time one request can take.

## Invalid
```json
{"threadId": "t1", "runId": "r1", "state": {"blob": "... 100 MB ..."}}
```

## Valid
```json
{"threadId": "t1", "runId": "r1", "state": {}}
```
"#,
};

pub(super) const TOO_MANY_FINDINGS: Rule = Rule {
    name: crate::findings::TOO_MANY_FINDINGS,
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A document has more findings than are reported; the rest are counted by rule",
    docs: r#"## What it checks
How many findings one document reports: the first `max-findings` (default
1,000; `--max-findings`, `max-findings` under `[limits]`; the server
guards keep 100). Past that, findings are counted by rule and severity and
not built, and this one finding says how many of which rules there were.
It is as serious as the most serious finding it counts, so a document
whose only errors are among the counted ones is still invalid; with
nothing but warnings counted it is a warning.

## Why it matters
A validator in front of a server sees whatever is sent: a request that
repeats a message id a million times must cost the memory of the findings
shown, not of a million findings nobody reads. Fixing the first findings
usually fixes the rest; raise the limit to see them all.

## Invalid
```json
{"threadId": "t1", "runId": "r1", "messages": [
  {"id": "", "role": "user", "content": "a"},
  {"id": "", "role": "user", "content": "b"},
  "... 1,000 more messages with an empty id ..."
]}
```

## Valid
```json
{"threadId": "t1", "runId": "r1", "messages": [
  {"id": "m1", "role": "user", "content": "a"},
  {"id": "m2", "role": "user", "content": "b"}
]}
```
"#,
};

pub(crate) const CHECK_TIMED_OUT: Rule = Rule {
    name: "check-timed-out",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A server guard could not check a request within its time budget",
    docs: r#"## What it checks
Whether a server guard (the Rust tower layer and axum extractor, the
Python ASGI guard) checked a request's body within its time budget
(2 s by default; `Guard::with_check_timeout`, `check_timeout=`), waiting
for room on its pool of checks included. A request that was not is
answered `503 Service Unavailable` with this rule in the body, and never
reaches the handler; the client may try again.

Every check is linear in the body and bounded, so a request meets this
only when the server is overloaded (many large bodies at once). The CLI
has no time budget: it reports the same findings however long they take.

## Why it matters
A guard sits on the path of every request: a burst of large bodies must
not hold the server's workers, nor let an unchecked request through.

## Invalid
```json
{"threadId": "t1", "runId": "r1", "messages": ["... 2 MiB of messages, while the server checks a hundred more ..."]}
```

## Valid
```json
{"threadId": "t1", "runId": "r1", "messages": [{"id": "m1", "role": "user", "content": "hi"}]}
```
"#,
};

pub(crate) const NESTING_TOO_DEEP: Rule = Rule {
    name: "nesting-too-deep",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "Arrays and objects nest deeper than agui-lint's limit",
    docs: r#"## What it checks
That arrays and objects nest no deeper than `max-depth` (default 512, at
most 2,048; `--max-depth`, or `[limits]` in `agui-lint.toml`). The finding
points at the first value too deep; the document is not checked further.

The limit is agui-lint's own, not the protocol's, and the message says so:
it sits above what the official receivers refuse, so that what they accept
is judged. `JSON.parse` and zod (`@ag-ui/core`, `@ag-ui/client`) accept any
depth; pydantic (`ag-ui-protocol`) refuses a document past about 200
levels. A document deeper than the parser's 128 levels is parsed and
checked on a stack grown for it, never by recursing on the caller's.

## Why it matters
Deep nesting is how a hostile payload exhausts a recursive parser's stack;
an error, since the document was not checked. No AG-UI payload a receiver
accepts needs more than the default.

## Invalid
```json
{"state": [[[[[[[[[[[[[[[[[[[[ ... 600 levels ... ]]]]]]]]]]]]]]]]]]]]}
```

## Valid
```json
{"state": [[1, 2], [3, 4]]}
```
"#,
};

pub(crate) const NESTING_REFUSED_BY_SERVERS: Rule = Rule {
    name: "nesting-refused-by-servers",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A RunAgentInput nests deeper than the official Python servers parse (200 levels)",
    docs: r#"## What it checks
That a `RunAgentInput` nests its arrays and objects no deeper than 200
levels, the document itself counted. `ag-ui-protocol` parses a request
with pydantic (`RunAgentInput.model_validate_json`, as FastAPI does), whose
JSON parser refuses a deeper document as invalid JSON ("recursion limit
exceeded"): every Python server built on the official SDK answers it with
422. `@ag-ui/core`'s zod schema and `JSON.parse` accept any depth, so a
TypeScript server serves it. Events are received by `@ag-ui/client`
(`JSON.parse`), and are not held to this limit.

## Why it matters
State or forwarded props nested this deep (a recursive tree an
application built up, a serialized graph) reach a TypeScript agent and
fail at a Python one before the agent runs. Flatten the structure, or
send it as a JSON string.

## Invalid
```json
{"threadId": "t1", "runId": "r1", "state": {"a": {"a": {"a": ... 200 levels ... }}}, "messages": []}
```

## Valid
```json
{"threadId": "t1", "runId": "r1", "state": {"a": {"a": 1}}, "messages": []}
```
"#,
};

pub(crate) const INVALID_HAR: Rule = Rule {
    name: "invalid-har",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An HTTP Archive, or one of its entries, cannot be read",
    docs: r#"## What it checks
That a `.har` file is an HTTP Archive (HAR 1.2): a `log` object with an
`entries` array, each entry with a `request` and a `response` whose bodies
are strings (`postData.text`, `content.text`), base64 when `encoding` says
so. An entry that cannot be read is reported and the others are still
checked.

## Why it matters
The AG-UI traffic inside cannot be found or decoded, so it would go
unchecked.

## Invalid
```json
{"log": {"entries": [{"request": {"method": "POST", "url": "https://agent.example/run"},
  "response": {"content": {"text": "not base64!", "encoding": "base64"}}}]}}
```

## Valid
```json
{"log": {"entries": [{"request": {"method": "POST", "url": "https://agent.example/run"},
  "response": {"content": {"mimeType": "text/event-stream", "text": "data: {}

"}}}]}}
```
"#,
};

pub(crate) const NO_AGUI_TRAFFIC: Rule = Rule {
    name: "no-agui-traffic",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An HTTP Archive holds no AG-UI run",
    docs: r#"## What it checks
Whether a `.har` file holds at least one AG-UI run: an entry whose request
body is a RunAgentInput. An archive without one is reported once, as an
empty capture is (`empty-input`), so that a check over it does not pass by
checking nothing.

## Why it matters
An archive saved from the wrong tab, filtered to other requests, or
recorded before the agent was called has nothing of the agent's traffic in
it; a CI step that reads it and says "0 documents checked" hides that.

## Invalid
```json
{"log": {"entries": [{"request": {"method": "GET", "url": "https://app.example/"},
  "response": {"content": {"mimeType": "text/html", "text": "<html></html>"}}}]}}
```

## Valid
```json
{"log": {"entries": [{"request": {"method": "POST", "url": "https://agent.example/run",
  "postData": {"mimeType": "application/json", "text": "{\"threadId\": \"t1\", \"runId\": \"r1\", \"state\": {}, \"messages\": [], \"tools\": [], \"context\": [], \"forwardedProps\": {}}"}},
  "response": {"content": {"mimeType": "text/event-stream", "text": "data: {\"type\": \"RUN_STARTED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\ndata: {\"type\": \"RUN_FINISHED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\n"}}}]}}
```
"#,
};

pub(crate) const RESPONSE_NOT_CAPTURED: Rule = Rule {
    name: "response-not-captured",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A run's response is not in the HTTP Archive as events",
    docs: r#"## What it checks
For each AG-UI run of a `.har` file (an entry whose request body is a
RunAgentInput), that the archive holds its response as text the stream
checker can read: `response.content.text` present, not empty, of a text
media type (any `text/*` or JSON type is read as Server-Sent Events), not
still encoded, and holding at least one event. Bytes that are not UTF-8
are no reason to skip a stream: each event holding one is reported as it
is read, and the others are checked. The request is checked either way;
the finding says why the events were not.

A body recorded still encoded (a `Content-Encoding` such as `gzip` and no
`data:` line, as `agui-lint probe` records what came over the wire) is an
**error**: the stream is there but unchecked, and must not pass. Browsers
record the decoded body, which is read as usual.

A response longer than `agui-lint probe --max-response-size` is recorded
up to its last whole event within it (the entry's `_aguiLint.droppedBytes`
counts the rest): a warning says how much was not checked, and the end of
the run, which was not kept, is not judged.

## Why it matters
Browsers leave a streamed body out of a HAR when the export ran before the
stream ended, or when it was saved without content; a response of another
media type (a binary transport, an error page) carries no events to read.
Without this finding the run's request would be checked and its stream,
where most AG-UI bugs are, skipped without a word.

## Invalid
```json
{"log": {"entries": [{"request": {"method": "POST", "url": "https://agent.example/run",
  "postData": {"mimeType": "application/json", "text": "{\"threadId\": \"t1\", \"runId\": \"r1\", \"state\": {}, \"messages\": [], \"tools\": [], \"context\": [], \"forwardedProps\": {}}"}},
  "response": {"content": {"mimeType": "text/event-stream", "size": 0}}}]}}
```

## Valid
```json
{"log": {"entries": [{"request": {"method": "POST", "url": "https://agent.example/run",
  "postData": {"mimeType": "application/json", "text": "{\"threadId\": \"t1\", \"runId\": \"r1\", \"state\": {}, \"messages\": [], \"tools\": [], \"context\": [], \"forwardedProps\": {}}"}},
  "response": {"content": {"mimeType": "text/event-stream", "text": "data: {\"type\": \"RUN_STARTED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\ndata: {\"type\": \"RUN_FINISHED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\n"}}}]}}
```
"#,
};

pub(crate) const DUPLICATE_KEY: Rule = Rule {
    name: "duplicate-key",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A key appears twice in one object",
    docs: r#"## What it checks
That no object repeats a key. The finding points at each repetition, with
the first occurrence as related information.

## Why it matters
JSON leaves the meaning of repeated keys open and parsers disagree: most keep
the last value, some the first, some reject the document. A payload with a
repeated key can mean one thing to the client and another to the agent.

## Invalid
```json
{"id": "m1", "role": "user", "content": "hi", "content": "bye"}
```

## Valid
```json
{"id": "m1", "role": "user", "content": "bye"}
```
"#,
};

pub(crate) const UNKNOWN_KIND: Rule = Rule {
    name: "unknown-kind",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The kind of the document cannot be told from its shape",
    docs: r#"## What it checks
With `--kind auto`, that the document looks like one of the kinds agui-lint
checks (run-agent-input, message, messages, tool, tools, tool-call, context,
input-content, capabilities). The finding names the closest kinds.

## Why it matters
A document of unknown kind would otherwise be skipped silently. Pass
`--kind` to check it as a given kind.

## Invalid
```json
{"hello": "world"}
```

## Valid
```json
{"description": "User's time zone", "value": "Europe/Berlin"}
```
"#,
};

pub(crate) const MISSING_FIELD: Rule = Rule {
    name: "missing-field",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A required key is absent",
    docs: r#"## What it checks
That every key the protocol requires is present, for example `toolCallId`
on a tool message or `forwardedProps` on a RunAgentInput (which may be
`null`, but must be there).

In a stream, a missing union tag where `@ag-ui/client` 1.0.0 strips the
member is a **warning** (a `MESSAGES_SNAPSHOT` message without `role`, a
part without `type`, a patch operation without `op`): the client removes
it, with a warning.

## Why it matters
Both SDKs reject a payload without a required key.

## Invalid
```json
{"id": "m3", "role": "tool", "content": "18°C"}
```

## Valid
```json
{"id": "m3", "role": "tool", "content": "18°C", "toolCallId": "call_1"}
```
"#,
};

pub(crate) const WRONG_TYPE: Rule = Rule {
    name: "wrong-type",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A value has the wrong JSON type",
    docs: r#"## What it checks
That each value has the JSON type the protocol gives it: strings for ids and
text, arrays for `messages`, `tools` and `context`, objects for messages,
a string or an array of parts for user content. A required key given `null`
is reported here too.

In a stream, a **warning** where `@ag-ui/client` 1.0.0 tolerates the value:
a union tag it strips (a `MESSAGES_SNAPSHOT` or `RUN_STARTED.input`
message's `role`, a part's or source's `type`, a patch `op`, an outcome's
`type`, given `null` or a number: the member is removed, with a warning),
and a `null` its compatibility boundary drops (see `null-for-optional`).

## Why it matters
The TypeScript SDK rejects the payload; the Python SDK coerces some values
(numbers to strings) and rejects others, so the payload's meaning depends on
the peer.

## Invalid
```json
{"id": "m1", "role": "user", "content": 42}
```

## Valid
```json
{"id": "m1", "role": "user", "content": "42"}
```
"#,
};

pub(crate) const INVALID_VALUE: Rule = Rule {
    name: "invalid-value",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A value is not one of those the protocol allows",
    docs: r#"## What it checks
That values restricted to a fixed set are in it: a message's `role`, a
content part's or source's `type`, a tool call's `type` (`"function"`), a
run's outcome, a patch operation's `op`, an encrypted value's `subtype`, a
resume entry's `status`. The finding lists the allowed values and suggests
the closest one.

Its severity is what the official receivers do with the value (measured
with `@ag-ui/core` 1.0.0, `ag-ui-protocol` 1.0.0 and `@ag-ui/client` 1.0.0,
and kept true by a test that runs them):

- **Before 1.0**: an error everywhere; the pre-1.0 SDKs reject the whole
  object.
- **A request** (a RunAgentInput, and a message, tool, tool call or resume
  entry checked on its own): an **error**. A server parsing it with zod or
  pydantic rejects the body (HTTP 422), whatever the value.
- **An event** received by `@ag-ui/client`: a **warning** where the value
  is the tag of a union whose unknown member the client strips, with a
  warning, before parsing the event: a message's `role` in
  `MESSAGES_SNAPSHOT` or `RUN_STARTED.input` (the message is removed), a
  content part's `type` or its source's `type` there or in
  `TOOL_CALL_RESULT.content` (the part is removed), a JSON Patch `op` in
  `STATE_DELTA` or `ACTIVITY_DELTA` (the operation is removed), an
  outcome's `type` in `RUN_FINISHED` or `SUBAGENT_FINISHED` (the outcome is
  removed). An **error** everywhere else: the role of `TEXT_MESSAGE_START`,
  `TEXT_MESSAGE_CHUNK`, `TOOL_CALL_RESULT` or `REASONING_MESSAGE_START`, a
  tool call's `type`, a `REASONING_ENCRYPTED_VALUE`'s `subtype`, a resume
  entry's `status`: the client checks these as leaves and fails the run.
  The 1.1 prose asks receivers to strip every unrecognised value
  (`spec/1.1/basic/processing.mdx`, "The rule"); upstream's own
  conformance suite pins the reference client's failure as an admitted gap
  (`unknown-enum-value-role-fatal`), and the finding says both.
- **A document that declares a newer version** than agui-lint knows
  (`protocolVersion: "1.2"`): a value no schema of the newest known version
  names is a **warning**, since the newer version may define it; a value
  the version knows, in a place that does not allow it, stays an error.

## Why it matters
A request with such a value is refused by every server on the official
SDKs; an event with one either fails the user's run or silently loses what
the stripped member carried.

## Invalid
```json
{"id": "m1", "role": "assitant", "content": "hi"}
```

## Valid
```json
{"id": "m1", "role": "assistant", "content": "hi"}
```
"#,
};

pub(crate) const NULL_FOR_OPTIONAL: Rule = Rule {
    name: "null-for-optional",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An optional key is given null instead of being left out",
    docs: r#"## What it checks
That optional keys (`name?: string`, `parentRunId?: string`, `toolCalls?`)
are either absent or of their type, never `null`. Keys typed `unknown`, such
as a media part's `metadata`, may be `null`.

In a stream, a **warning** where `@ag-ui/client` 1.0.0 turns the `null`
into an absent key with a deprecation warning before parsing the event:
`rawEvent` on any event, `parentMessageId` on `TOOL_CALL_START` and
`TOOL_CALL_CHUNK`, `outcome` and `result` on `RUN_FINISHED`, `result` on
`SUBAGENT_FINISHED`, and in `RUN_STARTED.input` `forwardedProps`, a tool's
`parameters`, a resume entry's `payload` and a media part's `metadata`
(also in `MESSAGES_SNAPSHOT`). A request's `state: null` is accepted by
both SDKs: an info in 1.0, a warning in 1.1, whose normative schema says
`not null`.

## Why it matters
The TypeScript SDK rejects `null` for an optional key; the Python SDK
accepts it. Such a payload works with one peer and fails with the other.

## Invalid
```json
{"id": "m2", "role": "assistant", "content": null, "toolCalls": []}
```

## Valid
```json
{"id": "m2", "role": "assistant", "toolCalls": []}
```
"#,
};

pub(crate) const UNKNOWN_FIELD: Rule = Rule {
    name: "unknown-field",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "A key the protocol does not define",
    docs: r#"## What it checks
That every key is one the version judging the document defines for its
object. Where a defined key is close (another case, a snake_case spelling,
a typo) it is suggested. A key of a later version is reported here when
the document is judged by an earlier one: `encryptedValueType` (1.1) in a
document that declares `protocolVersion: "1.0"`, or `metadata` (1.0) in one
judged as pre-1.0 (`--protocol 0`); declare the version the document speaks
to have it judged by that version. A pre-1.0 key that 1.0 retired
(`subAgents`) is `retired-shape` instead.

## Why it matters
Receivers strip unknown keys with a warning (`spec/1.1/basic/processing.mdx`),
so the data is silently dropped; the normative 1.1 schema rejects them. A
snake_case key (`tool_call_id`) is read by the Python SDK but not by the
TypeScript SDK.

## Invalid
```json
{"id": "m3", "role": "tool", "content": "ok", "toolCallId": "c1", "tool_call_id": "c1"}
```

## Valid
```json
{"id": "m3", "role": "tool", "content": "ok", "toolCallId": "c1"}
```
"#,
};

pub(crate) const UNKNOWN_EVENT_TYPE: Rule = Rule {
    name: "unknown-event-type",
    severity: Severity::Warning,
    protocols: SINCE_1_0,
    severity_1x: None,
    summary:
        "An event of a type the protocol version does not define (1.x: dropped with a warning)",
    docs: r#"## What it checks
AG-UI 1.x (`spec/1.1/basic/processing.mdx`, "The rule"): an event whose
`type` the version does not define. Unrecognised material is not an error:
a receiver drops the event and warns, naming the type. (Before 1.0 an
unknown type is the `invalid-value` error.) A close known type is
suggested.

## Why it matters
Whatever the event carried never reaches the application. A producer must
not smuggle private signals this way: `CUSTOM` and `RAW` exist for that.

## Invalid
```json
{"type": "TEXT_MESSAGE_DELTA", "messageId": "m1", "delta": "hi"}
```

## Valid
```json
{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "hi"}
```
"#,
};

pub(crate) const SCHEMA_VIOLATION: Rule = Rule {
    name: "schema-violation",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "The document breaks its JSON Schema in a way no narrower rule names",
    docs: r#"## What it checks
Any schema error that is not a missing key, a wrong type, a disallowed
value, an unknown key or a null optional key. The message is the JSON
Schema validator's own, or a plainer one where agui-lint knows the keyword:
in the 1.x schemas, numbers out of bounds (a negative token count, a
timestamp beyond 2^53 − 1), an interrupt outcome with no interrupts, a JSON
Patch path that is not a JSON Pointer. It is also the safety net for errors
agui-lint cannot refine, such as a value that matches several alternatives
of a union at once.

## Why it matters
The payload does not conform to the published schema, so other tools that
use the schema will reject it.

## Invalid
A document that matches two alternatives of a `oneOf` at once.

## Valid
A document that matches exactly one alternative.
"#,
};
use crate::rules::{EVERY_VERSION, SINCE_1_0};
