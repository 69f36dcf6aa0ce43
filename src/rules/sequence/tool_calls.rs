//! Tool calls: `TOOL_CALL_START` opens a call under its `toolCallId` (in
//! the registry of [`super::open`]), `TOOL_CALL_ARGS` streams its argument
//! text, `TOOL_CALL_END` ends it, and the text must then be JSON.
//! `TOOL_CALL_RESULT` answers a call the stream (or the request it
//! answers, or a messages snapshot) made. The chunked form is
//! [`super::chunks`] (1.x) and [`super::chunks_pre1`].

use foldhash::HashSet;
use serde_json::Value;

use super::event_type::EventType;
use super::here::{EventPlace, Here};
use super::open::{Open, OpenItems, Opened};
use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::ids::IdMap;
use crate::rules::{Rule, EVERY_VERSION};

pub(crate) const TOOL_CALL_ARGS_NOT_JSON: Rule = Rule {
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

/// The tool calls a stream has made and answered.
#[derive(Debug, Default)]
pub(super) struct ToolCalls {
    /// Every tool call id started (before 1.0, in the stream; in 1.x, in
    /// this run), for TOOL_CALL_RESULT.
    started: IdMap<()>,
    /// 1.x, this run: tool calls a TOOL_CALL_RESULT answered.
    answered: HashSet<String>,
    /// The ids of the tool calls the messages of the request the stream
    /// answers made: calls each 1.x run may answer.
    requested: HashSet<String>,
}

impl ToolCalls {
    /// The request the stream answers made the calls of `input`'s
    /// assistant messages.
    pub(super) fn answer(&mut self, input: &Value) {
        let calls = input
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .filter_map(|m| m.get("toolCalls").and_then(Value::as_array))
            .flatten()
            .filter_map(|c| c.get("id").and_then(Value::as_str));
        let mut requested: HashSet<String> = HashSet::default();
        for id in calls {
            requested.insert(id.to_string());
        }
        // Before 1.0 the calls a stream started are never forgotten.
        for id in &requested {
            self.started.insert(id, ());
        }
        self.requested = requested;
    }

    /// A run starts: in 1.x the calls it may answer are the request's; the
    /// calls of the input its `RUN_STARTED` echoes are known too.
    pub(super) fn run_started(&mut self, at: &Here<'_>) {
        if at.is_1x() {
            self.started.clear();
            for id in &self.requested {
                self.started.insert(id, ());
            }
        }
        let input = at.event.get("input");
        if let Some(messages) = input.as_deref().and_then(|input| input.get("messages")) {
            let calls = messages
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|m| m.get("toolCalls").and_then(Value::as_array))
                .flatten()
                .filter_map(|c| c.get("id").and_then(Value::as_str));
            self.remember_calls(calls);
        }
    }

    /// The run ended: what it answered is forgotten.
    pub(super) fn clear_run(&mut self) {
        self.answered.clear();
    }

    /// 1.x, this run: the tool calls a `TOOL_CALL_RESULT` answered.
    pub(super) fn answered(&self) -> &HashSet<String> {
        &self.answered
    }

    /// A chunk opened tool call `id`.
    pub(super) fn started(&mut self, id: &str) {
        self.started.insert(id, ());
    }

    /// Opens, continues and ends the tool call of a `TOOL_CALL_*` event,
    /// checks a result against the calls made, and learns the calls of a
    /// messages snapshot.
    pub(super) fn event(&mut self, at: &Here<'_>, open: &mut OpenItems, out: &mut impl Findings) {
        match at.kind {
            EventType::ToolCallStart => {
                if let Some(id) = at.str("toolCallId") {
                    self.started.insert(id, ());
                }
                open.start(Opened::ToolCall, "toolCallId", at, out);
            }
            EventType::ToolCallArgs => open.touch(Opened::ToolCall, "toolCallId", at, out),
            EventType::ToolCallEnd => {
                if let Some(call) = open.end(Opened::ToolCall, "toolCallId", at, out) {
                    check_open_arguments(&call, at, out);
                }
            }
            EventType::ToolCallResult => self.result(at, out),
            EventType::MessagesSnapshot => {
                // A snapshot of the conversation makes its tool calls known.
                if let Some(messages) = at.messages() {
                    let calls = messages.iter().flat_map(|m| &m.tool_calls);
                    self.remember_calls(calls.filter_map(|c| c.id.as_deref()));
                }
            }
            _ => {}
        }
    }

    fn result(&mut self, at: &Here<'_>, out: &mut impl Findings) {
        let Some(id) = at.str("toolCallId") else {
            return;
        };
        if at.is_1x() {
            self.answered.insert(id.to_string());
        }
        if !self.started.contains(id) {
            out.push(
                at.finding(
                    &TOOL_CALL_RESULT_WITHOUT_START,
                    "/toolCallId",
                    format!(
                        "TOOL_CALL_RESULT for tool call '{id}', which the stream never started"
                    ),
                )
                .with_help(
                    "send TOOL_CALL_START (or a TOOL_CALL_CHUNK) for the call before its result",
                ),
            );
        }
    }

    fn remember_calls<'i>(&mut self, ids: impl Iterator<Item = &'i str>) {
        for id in ids {
            self.started.insert(id, ());
        }
    }
}

/// The concatenated arguments of a closed tool call must be JSON.
pub(super) fn check_open_arguments(call: &Open, at: &Here<'_>, out: &mut impl Findings) {
    check_arguments(
        &call.id,
        call.arguments.text(),
        &call.start,
        &call.start_type,
        at,
        out,
    );
}

/// The concatenated `arguments` of tool call `id`, opened at `start` by
/// `start_type`, must be JSON when any argument text arrived (and was
/// held: see [`super::held`]).
pub(super) fn check_arguments(
    id: &str,
    arguments: Option<&str>,
    start: &EventPlace,
    start_type: &str,
    at: &Here<'_>,
    out: &mut impl Findings,
) {
    let Some(arguments) = arguments else {
        return;
    };
    if let Err(error) = serde_json::from_str::<serde::de::IgnoredAny>(arguments) {
        // AG-UI 1.x carries argument text "and does not validate it": text
        // that does not parse is "not a protocol violation"
        // (`spec/1.1/events/tool-calls.mdx`, "TOOL_CALL_ARGS" and
        // "TOOL_CALL_END"); before 1.0 clients parse it to run the tool.
        let severity = TOOL_CALL_ARGS_NOT_JSON.severity_in(at.protocol);
        out.add_as(&TOOL_CALL_ARGS_NOT_JSON, severity, |rule| {
            at.finding(
                rule,
                "",
                format!("the arguments of tool call '{id}' are not JSON: {error}"),
            )
            .with_help(format!(
                "the argument deltas concatenate to {}",
                crate::text::excerpt(arguments)
            ))
            .with_note(start.note(format!("{start_type} here")))
        });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::fired;

    #[test]
    fn tool_calls_and_chunks() {
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "TOOL_CALL_START", "toolCallId": "c", "toolCallName": "f"},
                {"type": "TOOL_CALL_ARGS", "toolCallId": "c", "delta": "{\"a\""},
                {"type": "TOOL_CALL_END", "toolCallId": "c"},
                {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "zz", "content": ""},
                {"type": "TOOL_CALL_CHUNK", "toolCallId": "d", "delta": "{}"},
                {"type": "TEXT_MESSAGE_CHUNK", "delta": "x"},
                {"type": "TOOL_CALL_CHUNK", "toolCallId": "e", "toolCallName": "f", "delta": "nope"},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
            ])),
            [
                "tool-call-args-not-json",
                "tool-call-result-without-start",
                crate::rules::sequence::chunks::FIRST_CHUNK_WITHOUT_ID.name,
                crate::rules::sequence::chunks::FIRST_CHUNK_WITHOUT_ID.name,
                "tool-call-args-not-json"
            ]
        );
    }

    #[test]
    fn results_for_calls_of_a_messages_snapshot_are_known() {
        assert_eq!(
            fired(json!([
                {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.1"},
                {"type": "MESSAGES_SNAPSHOT", "messages": [{"id": "a", "role": "assistant",
                    "toolCalls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]},
                {"type": "TOOL_CALL_RESULT", "messageId": "m", "toolCallId": "c", "content": ""},
                {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
            ])),
            Vec::<String>::new()
        );
    }
}
