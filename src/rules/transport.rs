//! Rules of the HTTP exchange that carries a run: the response's status and
//! media type, its Server-Sent Events line endings, and how its body
//! arrived (recorded by `agui-lint probe`). Their checks live with the HTTP
//! Archive reader ([`crate::check`]), the one place an exchange is seen
//! whole; this file holds their registry entries and the facts they judge.

use super::{Rule, EVERY_VERSION};
use crate::diagnostic::Severity;

/// The transport rules, in documentation order.
pub(super) const RULES: &[Rule] = &[
    UNEXPECTED_STATUS,
    UNEXPECTED_CONTENT_TYPE,
    SSE_CARRIAGE_RETURN,
    RESPONSE_INCOMPLETE,
    KEEP_ALIVE_GAP,
];

/// The media type of an AG-UI event stream over Server-Sent Events.
pub(crate) const EVENT_STREAM: &str = "text/event-stream";

/// The media type of AG-UI's binary (protobuf) transport, which the
/// official client asks for in `Accept` and reads instead of SSE.
pub(crate) const PROTO_EVENT_STREAM: &str = "application/vnd.ag-ui.event+proto";

/// The longest silence a stream may keep without a keep-alive: proxies and
/// load balancers commonly close a connection idle for 30 to 60 seconds,
/// so a stream quiet for half the shorter of these is at risk.
pub(crate) const KEEP_ALIVE_LIMIT_MS: u64 = 15_000;

/// The essence of a media type (`text/event-stream; charset=utf-8` →
/// `text/event-stream`), lower-cased.
pub(crate) fn essence(media_type: &str) -> String {
    media_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// A minimal valid exchange, for the docs' examples.
macro_rules! exchange {
    ($response:literal) => {
        concat!(
            r#"{"log": {"entries": [{"request": {"method": "POST", "url": "http://127.0.0.1:8000/agent",
  "postData": {"mimeType": "application/json", "text": "{\"threadId\": \"t1\", \"runId\": \"r1\", \"state\": {}, \"messages\": [], \"tools\": [], \"context\": [], \"forwardedProps\": {}}"}},
  "response": "#,
            $response,
            "}]}}"
        )
    };
}

pub(crate) const UNEXPECTED_STATUS: Rule = Rule {
    name: "unexpected-status",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An AG-UI run was answered with an HTTP status other than 2xx",
    docs: concat!(
        r#"## What it checks
For each AG-UI run of an HTTP Archive (an entry whose request body is a
RunAgentInput, as `agui-lint probe` saves them), that the response's status
is a success (200 to 299). A status of 0, which browsers write for a request
that got no response, is left to `response-not-captured`.

## Why it matters
`@ag-ui/client` raises an error for any other status and reads no event: the
run fails before it starts, whatever the body says. A 4xx usually means the
request was refused (authentication, a request guard's 422: its own findings
say why), a 5xx that the agent failed.

## Invalid
```json
"#,
        exchange!(
            r#"{"status": 500, "content": {"mimeType": "text/plain", "text": "Internal Server Error"}}"#
        ),
        r#"
```

## Valid
```json
"#,
        exchange!(
            r#"{"status": 200, "content": {"mimeType": "text/event-stream", "text": "data: {\"type\": \"RUN_STARTED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\ndata: {\"type\": \"RUN_FINISHED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\n"}}"#
        ),
        "\n```\n"
    ),
};

pub(crate) const UNEXPECTED_CONTENT_TYPE: Rule = Rule {
    name: "unexpected-content-type",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An AG-UI run's event stream is not served as text/event-stream",
    docs: concat!(
        r#"## What it checks
For each AG-UI run of an HTTP Archive answered with a success, that the
response's media type is `text/event-stream` (parameters such as
`charset` aside), or `application/vnd.ag-ui.event+proto`, the binary
transport.

## Why it matters
`@ag-ui/client` reads any other type as Server-Sent Events, so the run may
work in a test; but `EventSource`, proxies and CDNs treat the response by its
type: `application/json` or `text/plain` is buffered or compressed whole, and
the user sees every event at once at the end of the run, or a timeout. A
warning: the events themselves are still checked.

## Invalid
```json
"#,
        exchange!(
            r#"{"status": 200, "content": {"mimeType": "application/json", "text": "data: {\"type\": \"RUN_STARTED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\ndata: {\"type\": \"RUN_FINISHED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\n"}}"#
        ),
        r#"
```

## Valid
```json
"#,
        exchange!(
            r#"{"status": 200, "content": {"mimeType": "text/event-stream; charset=utf-8", "text": "data: {\"type\": \"RUN_STARTED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\ndata: {\"type\": \"RUN_FINISHED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\n"}}"#
        ),
        "\n```\n"
    ),
};

pub(crate) const SSE_CARRIAGE_RETURN: Rule = Rule {
    name: "sse-carriage-return",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary:
        "An AG-UI event stream frames its events with CRLF or CR, which the client cannot split",
    docs: concat!(
        r#"## What it checks
That the Server-Sent Events of an AG-UI run's response end their lines
with LF alone, wherever agui-lint sees the bytes: a raw SSE capture or
standard input, an HTTP Archive entry (as `agui-lint probe` and the proxy
save them), a stream fed to the stream checker, the response guards, the
kit.

## Why it matters
The SSE standard allows CRLF and a lone CR, and agui-lint reads them; but
`@ag-ui/client` 1.0.0 splits events on a blank LF line only (and the 1.1
HTTP binding says a producer frames with LF): a stream that frames two or
more events with CR arrives as one block whose JSON fails to parse, and
the run fails. That is an error, judged as that client by default
(`--client` names another profile; every profile splits alike). What the
client still reads whole is not reported: CRLF lines dispatched by a lone
LF (`\r\n\n` holds the `\n\n` it splits on), or a CR framing the last
event alone (read at the stream's end). `\n` line endings work with every
client.

## Invalid
```json
"#,
        exchange!(
            r#"{"status": 200, "content": {"mimeType": "text/event-stream", "text": "data: {\"type\": \"RUN_STARTED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\r\n\r\ndata: {\"type\": \"RUN_FINISHED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\r\n\r\n"}}"#
        ),
        r#"
```

## Valid
```json
"#,
        exchange!(
            r#"{"status": 200, "content": {"mimeType": "text/event-stream", "text": "data: {\"type\": \"RUN_STARTED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\ndata: {\"type\": \"RUN_FINISHED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\n"}}"#
        ),
        "\n```\n"
    ),
};

pub(crate) const RESPONSE_INCOMPLETE: Rule = Rule {
    name: "response-incomplete",
    severity: Severity::Error,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An AG-UI run's response stalled, timed out or lost its connection before its end",
    docs: concat!(
        r#"## What it checks
How the response of a run recorded by `agui-lint probe` ended (the entry's
`_aguiLint` member): that the server ended it, rather than the probe giving
up (no response within the first-byte timeout, no byte within the idle
timeout, the whole exchange over the total timeout) or the connection
failing or closing before the body's end (a chunked body cut short).

## Why it matters
A client behind such a response waits, then fails: the run's last events
never come. The stream checked is the part that arrived, so the sequence
rules also report what it left open; this finding says why it stopped.

## Invalid
```json
"#,
        r#"{"log": {"entries": [{"request": {"method": "POST", "url": "http://127.0.0.1:8000/agent",
  "postData": {"mimeType": "application/json", "text": "{\"threadId\": \"t1\", \"runId\": \"r1\", \"state\": {}, \"messages\": [], \"tools\": [], \"context\": [], \"forwardedProps\": {}}"}},
  "response": {"status": 200, "content": {"mimeType": "text/event-stream", "text": "data: {\"type\": \"RUN_STARTED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\n"}},
  "_aguiLint": {"longestGapMs": 10000, "end": "idle-timeout", "limitMs": 10000}}]}}"#,
        r#"
```

## Valid
```json
"#,
        r#"{"log": {"entries": [{"request": {"method": "POST", "url": "http://127.0.0.1:8000/agent",
  "postData": {"mimeType": "application/json", "text": "{\"threadId\": \"t1\", \"runId\": \"r1\", \"state\": {}, \"messages\": [], \"tools\": [], \"context\": [], \"forwardedProps\": {}}"}},
  "response": {"status": 200, "content": {"mimeType": "text/event-stream", "text": "data: {\"type\": \"RUN_STARTED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\ndata: {\"type\": \"RUN_FINISHED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\n"}},
  "_aguiLint": {"longestGapMs": 40, "end": "complete"}}]}}"#,
        "\n```\n"
    ),
};

pub(crate) const KEEP_ALIVE_GAP: Rule = Rule {
    name: "keep-alive-gap",
    severity: Severity::Warning,
    protocols: EVERY_VERSION,
    severity_1x: None,
    summary: "An AG-UI event stream went 15 seconds or more without a byte",
    docs: concat!(
        r#"## What it checks
For a run recorded by `agui-lint probe` (the entry's `_aguiLint` member),
that the response never went 15 seconds or more without sending a byte:
neither before its first event nor between two.

## Why it matters
Proxies, load balancers and serverless platforms commonly close a
connection that has been idle for 30 to 60 seconds, in the middle of a
run that is thinking or waiting on a tool. A comment line (`: keep-alive`
and a blank line) every few seconds keeps the connection open; every SSE
client ignores it.

## Invalid
```json
"#,
        r#"{"log": {"entries": [{"request": {"method": "POST", "url": "http://127.0.0.1:8000/agent",
  "postData": {"mimeType": "application/json", "text": "{\"threadId\": \"t1\", \"runId\": \"r1\", \"state\": {}, \"messages\": [], \"tools\": [], \"context\": [], \"forwardedProps\": {}}"}},
  "response": {"status": 200, "content": {"mimeType": "text/event-stream", "text": "data: {\"type\": \"RUN_STARTED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\ndata: {\"type\": \"RUN_FINISHED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\n"}},
  "_aguiLint": {"longestGapMs": 31000, "end": "complete"}}]}}"#,
        r#"
```

## Valid
```json
"#,
        r#"{"log": {"entries": [{"request": {"method": "POST", "url": "http://127.0.0.1:8000/agent",
  "postData": {"mimeType": "application/json", "text": "{\"threadId\": \"t1\", \"runId\": \"r1\", \"state\": {}, \"messages\": [], \"tools\": [], \"context\": [], \"forwardedProps\": {}}"}},
  "response": {"status": 200, "content": {"mimeType": "text/event-stream", "text": "data: {\"type\": \"RUN_STARTED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\n: keep-alive\n\ndata: {\"type\": \"RUN_FINISHED\", \"threadId\": \"t1\", \"runId\": \"r1\"}\n\n"}},
  "_aguiLint": {"longestGapMs": 5000, "end": "complete"}}]}}"#,
        "\n```\n"
    ),
};
